/* The plan header: per plan, macros for arenas and buffers, the step text,
 * the tables (header_tables.c) and compile-time checks, all under the
 * plan's prefix.  Two
 * namespaces that cannot meet: a runtime's bindings (P_PARAM_<n>...,
 * P_OUTPUT...) and the buffers' macros (P_BUF_<NAME>...), where NAME is the
 * sanitised HLO name, or NAME_<buffer id> when that is taken already. */
#define _POSIX_C_SOURCE 200809L	/* open_memstream */
#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "codegen/header_internal.h"
#include "ir/ir.h"
#include "ir/table.h"
#include "passes/passes.h"

/* ---- the identifiers a header defines, to settle clashes -------------- */

/* A set of identifiers, or of keys each given an id (hdr_key_id). */
struct idset {
	struct pool *pool;
	struct table t;		/* each identifier; a hdr_key_id key: its id */
	int n;			/* ids hdr_key_id has given */
	char *tmp;		/* scratch for a name looked up, not kept */
	size_t tmpcap;
	const char **list;	/* the identifiers idset_add added, in turn */
	int nlist, listcap;
};

/* Macro suffixes every plan defines, besides three per arena. */
static const char *const fixed_names[] = {
	"ALIGN", "NUM_BUFFERS", "NUM_STEPS", "NUM_ARENAS", "ARENA_SIZE",
	"ARENA_ALIGN", "CLASS_TEMP", "CLASS_PARAM", "CLASS_OUTPUT",
	"CLASS_CONST", "CLASS_TABLE", "NUM_COPIES", "NUM_SLOT_USES",
	"NUM_PARAMS", "NUM_OUTPUTS", "NUM_VALUES", "INDEX_MAX",
	"NUM_CONSTANTS", "CONST_BYTES", "CONST_FILE", "CONST_BASE",
	"CONST_EMBEDDED", "CONST_IN_ARENA", "CONST_DATA", "NUM_LOOPS",
	"TABLES_FILLED_BY_RUNTIME", "TABLE_POINTER_BYTES", "NUM_POSITIONS", "T",
	"NUM_OPERANDS", "BUF", "NUM_SHAPES", "NUM_COMPUTATIONS", "STEP_NAME",
	"STEP_COMPUTATION",
};
enum { NFIXED = sizeof fixed_names / sizeof *fixed_names };

/* The macros of a buffer whose C name is N (BUF_ and its sanitised HLO
 * name): P_N<suffix>.  All are reserved for every buffer, so a name does not
 * change with a buffer's class.  No fixed or binding macro starts with
 * P_BUF_, so only buffers (and the guard, and other plans' macros under a
 * prefix that extends this one) can take a buffer's name. */
static const char *const forms[] = {
	"", "_OFFSET", "_SIZE", "_SLOTS", "_STRIDE", "_SLOT_OFFSET",
};
enum { NFORMS = sizeof forms / sizeof *forms };

static int
idset_has(struct idset *set, const char *s)
{
	return table_str(&set->t, s, strlen(s), -1) >= 0;
}

/* s, which the set's pool holds, is taken. */
static void
idset_add(struct idset *set, const char *s)
{
	table_str(&set->t, s, strlen(s), 0);
	*VEC_PUSH(set->pool, set->list, set->nlist, set->listcap) = s;
}

static void
hdr_idset_init(struct idset *set, struct pool *pool, size_t n)
{
	set->pool = pool;
	table_init(&set->t, pool, n);
	set->n = 0;
	set->tmp = NULL;
	set->tmpcap = 0;
	set->list = NULL;
	set->nlist = set->listcap = 0;
}

/* ---- names -------------------------------------------------------------- */

static int
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* The HLO name in upper case, each run of other characters than letters and
 * digits made one '_', none at either end: no "__" (reserved in C++), and
 * never a leading digit, as every use follows the prefix and a '_'. */
static const char *
sanitise(struct pool *pool, const char *s)
{
	char *r = pool_alloc(pool, strlen(s) + 1), *q = r;

	for (; *s; s++) {
		if (is_alnum(*s))
			*q++ = *s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s;
		else if (q > r && q[-1] != '_')
			*q++ = '_';
	}
	while (q > r && q[-1] == '_')
		q--;
	*q = 0;
	return *r ? r : "UNNAMED";
}

/* The parts joined in the set's scratch: valid until the next call (a
 * name looked up is copied only if it is kept). */
static const char *
tmp_join(struct idset *set, const char *const *part, int n)
{
	size_t len = 1, k;
	char *q;

	for (int i = 0; i < n; i++)
		len += strlen(part[i]);
	if (len > set->tmpcap) {
		set->tmpcap = 2 * len;
		set->tmp = pool_alloc(set->pool, set->tmpcap);
	}
	q = set->tmp;
	for (int i = 0; i < n; i++) {
		memcpy(q, part[i], k = strlen(part[i]));
		q += k;
	}
	*q = 0;
	return set->tmp;
}

/* Macro i of a buffer named name, in the set's scratch. */
static const char *
form_tmp(struct idset *set, const char *pre, const char *name, int i)
{
	const char *part[] = {pre, "_", name, forms[i]};

	return tmp_join(set, part, 4);
}

static const char *
form(struct idset *set, const char *pre, const char *name, int i)
{
	return pool_strdup(set->pool, form_tmp(set, pre, name, i));
}

/* The names a header reserves: exact ones (the guard, the fixed and
 * binding macros), and each buffer's stem P_BUF_<NAME>, which stands for
 * its NFORMS macros (a table of stems is a sixth the size of one of every
 * macro, and naming L09's 34,000 buffers spent most of codegen in it). */
struct names {
	struct idset exact;
	struct table stems;
	const char *pre;	/* the prefix exact_buf is for */
	int exact_buf;		/* some exact name starts with pre "_BUF_" */
};

/* Whether some buffer's macro is the len bytes at f, form i of a stem:
 * some stem followed by one of the forms.  Form j = i gives the stem
 * itself, which form 0 looked up already. */
static int
a_buffer_macro(struct names *nm, const char *f, size_t len, int i)
{
	for (int j = 0; j < NFORMS; j++) {
		size_t lj = strlen(forms[j]);

		if ((j != i || i == 0) && len > lj &&
		    !memcmp(f + len - lj, forms[j], lj) &&
		    table_str(&nm->stems, f, len - lj, -1) >= 0)
			return 1;
	}
	return 0;
}

/* Whether an exact name can be a buffer macro of prefix pre: only one that
 * starts as they do, pre "_BUF_" (rare: a guard, or a plan whose prefix
 * extends pre); when none does, no exact name is looked up. */
static int
exact_buf(struct names *nm, const char *pre)
{
	if (nm->pre != pre) {
		size_t n = strlen(pre);

		nm->pre = pre;
		nm->exact_buf = 0;
		for (int k = 0; k < nm->exact.nlist; k++) {
			const char *s = nm->exact.list[k];

			nm->exact_buf |= !strncmp(s, pre, n) &&
					 !strncmp(s + n, "_BUF_", 5);
		}
	}
	return nm->exact_buf;
}

/* Whether every macro of name is free: none reserved exactly, none a
 * buffer's. */
static int
forms_free(struct names *nm, const char *pre, const char *name)
{
	int exact = exact_buf(nm, pre);

	for (int i = 0; i < NFORMS; i++) {
		const char *f = form_tmp(&nm->exact, pre, name, i);

		if ((exact && idset_has(&nm->exact, f)) ||
		    a_buffer_macro(nm, f, strlen(f), i))
			return 0;
	}
	return 1;
}

/* Buffer id's C name: BUF_<base>, or when one of its macros is taken,
 * BUF_<base>_<id>, then BUF_<base>_<id>_<id>, ... (taken twice only when
 * another buffer's HLO name spells the first): a name a reader predicts
 * from the HLO name and the id the plan's table and JSON show. */
static const char *
pick_name(struct names *nm, const char *pre, const char *base, int id)
{
	struct pool *pool = nm->exact.pool;
	const char *part[] = {"BUF_", base}, *stem;
	const char *name = pool_strdup(pool, tmp_join(&nm->exact, part, 2));

	while (!forms_free(nm, pre, name))
		name = pool_printf(pool, "%s_%d", name, id);
	stem = form(&nm->exact, pre, name, 0);
	table_str(&nm->stems, stem, strlen(stem), 0);
	return name;
}

/* The macros of an entry parameter or output: P_<NAME>_OFFSET and _BYTES,
 * where NAME is PARAM_<n> or OUTPUT, then _<i> per shape index. */
static const char *const io_forms[] = {"_OFFSET", "_BYTES"};
enum { NIO_FORMS = sizeof io_forms / sizeof *io_forms };

static const char *
io_name(struct pool *pool, const struct plan_pos *q, int param)
{
	const char *n = param ? pool_printf(pool, "PARAM_%d", q->param) :
				"OUTPUT";

	for (int d = 0; d < q->depth; d++)
		n = pool_printf(pool, "%s_%d", n, q->index[d]);
	return n;
}

/* Macro f of a parameter or output named n, in the set's scratch. */
static const char *
io_form(struct idset *set, const char *pre, const char *n, int f)
{
	const char *part[] = {pre, "_", n, io_forms[f]};

	return tmp_join(set, part, 4);
}

/* Reserves the macros of each parameter and output of a plan: io[k] is
 * the name of bindings par[k] (k < npar) or out[k - npar], NULL when a
 * name is taken already (it cannot be, unless a plan is made by hand). */
static const char **
name_io(struct idset *set, const char *pre, const struct plan *p,
	const struct bindings *b)
{
	const char **io = pool_alloc(set->pool, sizeof(char *) *
					      (size_t)(b->npar + b->nout + 1));

	for (int k = 0; k < b->npar + b->nout; k++) {
		int param = k < b->npar;
		const struct plan_pos *q =
			&p->pos[param ? b->par[k] : b->out[k - b->npar]];
		const char *n = io_name(set->pool, q, param);
		int f;

		for (f = 0; f < NIO_FORMS; f++)
			if (idset_has(set, io_form(set, pre, n, f)))
				break;
		if (f < NIO_FORMS)
			continue;
		for (f = 0; f < NIO_FORMS; f++)
			idset_add(set, pool_strdup(set->pool,
						   io_form(set, pre, n, f)));
		io[k] = n;
	}
	return io;
}

static void
reserve_fixed(struct idset *set, const char *pre, const struct plan *p)
{
	static const char *const arena[] = {"SIZE", "ALIGN", "LOWER"};
	int i, j;

	for (i = 0; i < NFIXED; i++)
		idset_add(set, pool_printf(set->pool, "%s_%s", pre,
					   fixed_names[i]));
	for (i = 0; i < p->narena; i++)
		for (j = 0; j < 3; j++)
			idset_add(set, pool_printf(set->pool, "%s_ARENA_S%d_%s",
						   pre, p->arenas[i].space,
						   arena[j]));
}

/* The names chosen, kept in pool when the set that chose them goes. */
static void
keep_names(struct pool *pool, const struct plan *plans,
	   const struct bindings *b, int nplan, const char ***names,
	   const char ***io)
{
	for (int i = 0; i < nplan; i++) {
		const char **k = pool_alloc(pool, sizeof(char *) *
				(size_t)(b[i].npar + b[i].nout + 1));

		for (int j = 0; j < plans[i].nbuf; j++)
			names[i][j] = pool_strdup(pool, names[i][j]);
		for (int j = 0; j < b[i].npar + b[i].nout; j++)
			k[j] = io[i][j] ? pool_strdup(pool, io[i][j]) : NULL;
		io[i] = k;
	}
}

/* names[i][j]: the C name of buffer j of plan i; io[i]: its parameters'
 * and outputs' (name_io), in pool.  Every plan's fixed names go in first,
 * then the parameters' and outputs', so no buffer takes one, even under
 * another plan's prefix.  Then the include guard, *guard, with _H added
 * while it is one of them (-o align made P_ALIGN the guard, defined empty
 * and then 256): no buffer takes it either.  The set of every macro (tens
 * of bytes a macro, six macros a buffer) lives in a pool of its own, freed
 * before the header is written. */
static const char ***
name_buffers(struct pool *keep, const struct plan *plans,
	     const char *const *prefixes, int nplan, const char **guard,
	     const struct bindings *b, const char ***io)
{
	const char ***names = pool_alloc(keep, (size_t)nplan * sizeof *names);
	struct pool *pool = pool_new();
	struct names nm;
	size_t n = 1, nbuf = 0;
	int i, j;

	for (i = 0; i < nplan; i++) {
		n += NFIXED + 3 * (size_t)plans[i].narena +
		     NIO_FORMS * (size_t)(b[i].npar + b[i].nout);
		nbuf += (size_t)plans[i].nbuf;
	}
	hdr_idset_init(&nm.exact, pool, n);
	table_init(&nm.stems, pool, nbuf);
	nm.pre = NULL;
	for (i = 0; i < nplan; i++)
		reserve_fixed(&nm.exact, prefixes[i], &plans[i]);
	for (i = 0; i < nplan; i++)
		io[i] = name_io(&nm.exact, prefixes[i], &plans[i], &b[i]);
	while (idset_has(&nm.exact, *guard))
		*guard = pool_printf(keep, "%s_H", *guard);
	idset_add(&nm.exact, *guard);
	for (i = 0; i < nplan; i++) {
		names[i] = pool_alloc(keep, (size_t)plans[i].nbuf *
						    sizeof *names[i] + 1);
		for (j = 0; j < plans[i].nbuf; j++) {
			assert(plans[i].bufs[j].name);
			names[i][j] = pick_name(&nm, prefixes[i],
						sanitise(pool,
							 plans[i].bufs[j].name),
						j);
		}
	}
	keep_names(keep, plans, b, nplan, names, io);
	pool_free(pool);
	return names;
}

/* ---- text --------------------------------------------------------------- */

/* s inside a comment: no comment delimiters, trigraphs or escapes. */
static void
put_comment_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int bad = c < 0x20 || c > 0x7e || strchr("*/\\?", c);

		fputc(bad ? '_' : c, out);
	}
}

/* ---- one plan ----------------------------------------------------------- */

static const struct arena *
find_arena(const struct plan *p, int space)
{
	int i;

	for (i = 0; i < p->narena; i++)
		if (p->arenas[i].space == space)
			return &p->arenas[i];
	return NULL;
}

static void
define(struct hdr *h, const char *name, int64_t v)
{
	codegen_printf(h->out, "#define %s_%s %" PRId64 "\n", h->pre, name, v);
}

static void
put_arena_macros(struct hdr *h, const struct arena *a)
{
	codegen_printf(h->out,
		"#define %s_ARENA_S%d_SIZE %" PRId64 "\n", h->pre,
		a->space, a->size);
	codegen_printf(h->out,
		"#define %s_ARENA_S%d_ALIGN %" PRId64 "\n", h->pre,
		a->space, h->p->align);
	codegen_printf(h->out,
		"#define %s_ARENA_S%d_LOWER %" PRId64 "\n", h->pre,
		a->space, a->lower);
}

static void
put_plan_macros(struct hdr *h)
{
	const struct plan *p = h->p;
	const struct arena *s0 = find_arena(p, 0);
	int i;

	define(h, "ALIGN", p->align);
	define(h, "NUM_BUFFERS", p->nbuf);
	define(h, "NUM_STEPS", p->ntime);
	define(h, "NUM_ARENAS", p->narena);
	define(h, "NUM_POSITIONS", p->npos);
	define(h, "NUM_OPERANDS", p->opnd_first ? p->nopnd : 0);
	define(h, "NUM_COPIES", p->ncopy);
	define(h, "NUM_LOOPS", p->nloop);
	define(h, "NUM_VALUES", h->b->nval);
	define(h, "NUM_PARAMS", h->b->npar);
	define(h, "NUM_OUTPUTS", h->b->nout);
	define(h, "INDEX_MAX", h->b->depth);
	define(h, "NUM_CONSTANTS", p->nconst);
	define(h, "CONST_BYTES", p->const_bytes);
	if (hdr_slot_uses(p))
		define(h, "NUM_SLOT_USES", hdr_slot_uses(p));
	define(h, "ARENA_SIZE", s0 ? s0->size : 0);
	define(h, "ARENA_ALIGN", p->align);
	for (i = 0; i < p->narena; i++)
		put_arena_macros(h, &p->arenas[i]);
	define(h, "CLASS_TEMP", 0);
	define(h, "CLASS_PARAM", BUF_PARAM);
	define(h, "CLASS_OUTPUT", BUF_OUTPUT);
	define(h, "CLASS_CONST", BUF_CONST);
	define(h, "CLASS_TABLE", BUF_TABLE);
	codegen_printf(h->out,
		"/* A table (P_CLASS_TABLE) is a tuple's index table: "
		"a pointer per element to\n * the element's buffer.  The plan "
		"only reserves its bytes; the runtime fills\n * it in at the "
		"step that defines it (as XLA's tuple thunk and kernels with\n"
		" * a tuple result do), from the elements' places. */\n");
	define(h, "TABLES_FILLED_BY_RUNTIME", 1);
	define(h, "TABLE_POINTER_BYTES", 8);
}

/* P_BUF_<NAME>: a buffer's id, one line; the rest is its table row.
 * P_BUF(NAME) is buf_pre's P_BUF_<NAME>: this plan's, or the earlier plan's
 * whose buffers have the same ids and names, the other target of a module
 * whose order and buffers are the same, where the lines would repeat that
 * plan's (585 KB of Gemma 4 2B's 5.4 MB header). */
static void
put_buffer_ids(struct hdr *h)
{
	int own = h->buf_pre == h->pre;

	if (!h->p->nbuf)
		return;
	codegen_printf(h->out, "\n/* Buffers by name: ids in P_buffers[]%s%s%s "
		"*/\n#define %s_BUF(name) %s_BUF_##name\n",
		own ? "" : ", the same as ", own ? "" : h->buf_pre,
		own ? "" : "'s", h->pre, h->buf_pre);
	for (int i = 0; own && i < h->p->nbuf; i++)
		codegen_printf(h->out,
			"#define %s_%s %d\n", h->pre, h->name[i], i);
}

/* key's id in set, 0, 1, ... in the order keys are first seen; *fresh
 * says whether it was given now.  Thousands of buffers share a few shapes,
 * and a compiler pays for every row and every string literal: each is
 * written once, under its id. */
static int
hdr_key_id(struct idset *set, const char *key, int *fresh)
{
	int id = table_str(&set->t, key, strlen(key), set->n);

	*fresh = id < 0;
	return *fresh ? set->n++ : id;
}

/* P_PARAM_<n>[_<i>...]_OFFSET and _BYTES, and P_OUTPUT[_<i>...]_...:
 * where the runtime puts each argument and finds each result, and the
 * bytes to copy, as constants a compiler can size and check with; the
 * rest of a binding is its row of P_params[] or P_outputs[].  _OFFSET is
 * -1 when not in an arena (--io-out-of-arena: memory of the caller's), as
 * in the tables, so that one runtime compiles for both. */
static void
put_io_macros(struct hdr *h)
{
	int n = h->b->npar + h->b->nout;

	if (n)
		fputs("\n/* Entry parameters and outputs, by number and shape "
		      "index: where (-1: the\n * caller's memory, "
		      "--io-out-of-arena) and the bytes to copy */\n", h->out);
	for (int k = 0; k < n; k++) {
		const struct plan_pos *q = hdr_io_pos(h, k);
		const struct buffer *b = &h->p->bufs[q->buf];
		const char *pre = h->pre, *m = h->io[k];

		if (!m)
			continue;
		codegen_printf(h->out,
			"#define %s_%s_OFFSET %" PRId64 "\n", pre, m,
			b->in_arena ? b->offset : -1);
		codegen_printf(h->out,
			"#define %s_%s_BYTES %" PRId64 "\n", pre, m,
			hdr_exact_bytes(h, q));
	}
}

/* The instruction's part of a step's "computation/instruction" (names
 * have no '/'). */
static const char *
hdr_step_instr(const char *step)
{
	const char *slash = strchr(step, '/');

	return slash ? slash + 1 : step;
}

/* Where each of p's steps' names starts in its step text: at[t] = chunk *
 * STEP_CHUNK + offset.  Returns the last chunk. */
static int
step_chunks(const struct plan *p, int *at)
{
	int chunk = 0, used = 0;

	for (int32_t t = 0; p->steps && t < p->ntime; t++) {
		int len = (int)strlen(hdr_step_instr(p->steps[t])) + 1;

		if (t > 0 && used && used + len >= STEP_CHUNK_TEXT) {
			chunk++;
			used = 0;
		}
		at[t] = chunk * STEP_CHUNK + used;
		used += len;
	}
	return chunk;
}

/* The same steps give the same chunks, so a plan sharing an earlier plan's
 * step text points into it with its own at[]. */
static int
chunk_steps(struct hdr *h)
{
	h->at = pool_alloc(h->pool, ((size_t)h->p->ntime + 1) * sizeof *h->at);
	return step_chunks(h->p, h->at);
}

/* A computation the schedule runs: its steps, and the first of them. */
struct comp_rank {
	int comp, steps, first;
};

static int
cmp_rank(const void *x, const void *y)
{
	const struct comp_rank *a = x, *b = y;

	if (a->steps != b->steps)
		return a->steps > b->steps ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

/* The computations p runs steps of, most steps first (ties: the one run
 * first first): list[0 .. n), and of[c] each one's place, -1 for none.
 * Then a step's index is mostly a digit or two: on torax's 58,491 steps of
 * 2,171 computations, 71 KB less a plan than in the order first run. */
static int
comp_order(struct pool *pool, const struct plan *p, int **of, int **list)
{
	struct comp_rank *r = pool_alloc(pool, sizeof *r *
					       (size_t)(p->ncomp + 1));
	int n = 0;

	*of = pool_alloc(pool, sizeof(int) * (size_t)(p->ncomp + 1));
	*list = pool_alloc(pool, sizeof(int) * (size_t)(p->ncomp + 1));
	for (int c = 0; c < p->ncomp; c++)
		(*of)[c] = -1;
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->step_comp[t];

		if ((*of)[c] < 0) {
			r[n] = (struct comp_rank){c, 0, (int)t};
			(*of)[c] = n++;
		}
		r[(*of)[c]].steps++;
	}
	qsort(r, (size_t)n, sizeof *r, cmp_rank);
	for (int k = 0; k < n; k++) {
		(*list)[k] = r[k].comp;
		(*of)[r[k].comp] = k;
	}
	return n;
}

/* P_step_at[]: where each step's name starts in the step text, then -1. */
static void
put_step_at(struct hdr *h)
{
	codegen_printf(h->out, "static const int %s_step_at[%s_NUM_STEPS + 1] "
		"HLOPLAN_UNUSED = {", h->pre, h->pre);
	hdr_ints(h->out, h->at, h->p->ntime, 16);
	fputs("\t-1\n};\n", h->out);
}

/* P_step_comp[]: each step's computation, idx[t] in P_computations[]. */
static void
put_step_comp(struct hdr *h, const int *idx)
{
	codegen_printf(h->out, "static const int %s_step_comp[%s_NUM_STEPS] "
		"HLOPLAN_UNUSED = {", h->pre, h->pre);
	hdr_ints(h->out, idx, (int)h->p->ntime, 32);
	fputs("};\n", h->out);
}

/* Each computation's name once (comp_order), and per step its index: a
 * name of up to 4 KiB is not written again for every step of its
 * computation. */
static void
put_step_comps(struct hdr *h)
{
	const struct plan *p = h->p;
	int *of, *list, n = comp_order(h->pool, p, &of, &list);
	int *idx = pool_alloc(h->pool, sizeof(int) * (size_t)(p->ntime + 1));

	codegen_printf(h->out, "static const char *const %s_computations[] "
		"HLOPLAN_UNUSED = {", h->pre);
	for (int k = 0; k < n; k++) {
		fputs(k ? ",\n\t" : "\n\t", h->out);
		hdr_cstring(h->out, p->comp_names[list[k]]);
	}
	for (int32_t t = 0; t < p->ntime; t++)
		idx[t] = of[p->step_comp[t]];
	codegen_printf(h->out, "\n};\n#define %s_NUM_COMPUTATIONS %d\n",
		h->pre, n);
	put_step_comp(h, idx);
}

/* Steps whose names are all in an earlier plan's step text, in another
 * order: P_step_at[] and P_step_comp[] point into its tables. */
static void
put_shared_steps(struct hdr *h)
{
	const char *pre = h->pre, *of = h->text_of;
	FILE *out = h->out;

	codegen_printf(out, ".  Step t's instruction\n * name is "
		"P_STEP_NAME(t), in %s's step text. */\n"
		"#define %s_step_text %s_step_text\n", of, pre, of);
	put_step_at(h);
	if (!h->p->step_comp)
		return;
	codegen_printf(out, "#define %s_computations %s_computations\n"
		"#define %s_NUM_COMPUTATIONS %s_NUM_COMPUTATIONS\n",
		pre, of, pre, of);
	put_step_comp(h, h->comp_ix);
}

/* The order the plan assumes, one instruction a step: the
 * live intervals count these steps.  The names are chunks of text, each
 * NUL-terminated, and P_step_at[] an int per step saying where its name
 * starts: on a module of 10^5 steps, one string literal a step cost G++
 * a second, an int a step a fifth of that.  Written before the tables,
 * whose names point into it. */
static void
put_steps(struct hdr *h)
{
	const char *pre = h->pre;
	FILE *out = h->out;
	int32_t n = h->p->ntime;
	int chunk = h->at ? 0 : chunk_steps(h);	/* at[]: set when shared */

	if (!h->p->steps)
		return;
	codegen_printf(out, "\n/* The schedule the intervals count: %s order",
		h->p->sched.name ? h->p->sched.name : "text");
	if (h->text_of) {
		put_shared_steps(h);
	} else if (h->steps_of) {	/* the same order: one table, for size */
		codegen_printf(out, ", the same as %s's. */\n"
			"#define %s_step_text %s_step_text\n"
			"#define %s_step_at %s_step_at\n", h->steps_of, pre,
			h->steps_of, pre, h->steps_of);
		if (h->p->step_comp)
			codegen_printf(out,
				"#define %s_computations %s_computations\n"
				"#define %s_NUM_COMPUTATIONS "
				"%s_NUM_COMPUTATIONS\n"
				"#define %s_step_comp %s_step_comp\n", pre,
				h->steps_of, pre, h->steps_of, pre, h->steps_of);
	} else {
		fputs(".  Step t's instruction\n * name starts at "
		      "P_step_at[t] % 4096 in chunk P_step_at[t] / 4096 of\n"
		      " * P_step_text[] (P_STEP_NAME(t), which reads t "
		      "twice); its computation is\n * "
		      "P_computations[P_step_comp[t]] (P_STEP_COMPUTATION(t)). "
		      "*/", out);
		for (int32_t t = 0; t < n; t++) {
			if (t == 0 || h->at[t] % STEP_CHUNK == 0)
				codegen_printf(out,
					"%s\nstatic const char %s_step_text_"
					"%d[] =", t ? ";" : "", pre,
					h->at[t] / STEP_CHUNK);
			fputs("\n\t", out);
			hdr_cstring_nul(out, hdr_step_instr(h->p->steps[t]));
		}
		codegen_printf(out,
			"%sstatic const char *const %s_step_text[%d] "
			"HLOPLAN_UNUSED = {", n ? ";\n" : "\n", pre,
			n ? chunk + 1 : 1);
		for (int k = 0; k <= chunk && n; k++)
			codegen_printf(out, "%s%s%s_step_text_%d", k ? "," : "",
				k % 4 ? " " : "\n\t", pre, k);
		codegen_printf(out, "%s};\n", n ? "\n" : "0");
		put_step_at(h);
		codegen_printf(out,
			"/* A name in the tables: byte k of chunk c */\n"
			"#define %s_T(c, k) (%s_step_text_##c + (k))\n", pre,
			pre);
		if (h->p->step_comp)
			put_step_comps(h);
	}
	codegen_printf(out,
		"#define %s_STEP_NAME(t) (%s_step_text[%s_step_at[t] / "
		"%d] + %s_step_at[t] %% %d)\n", pre, pre, pre, STEP_CHUNK, pre,
		STEP_CHUNK);
	if (h->p->step_comp)
		codegen_printf(out, "#define %s_STEP_COMPUTATION(t) "
			"(%s_computations[%s_step_comp[t]])\n", pre, pre, pre);
}

/* The tiles of a layout as XLA prints them, without the "T". */
static const char *
tiles_text(struct pool *pool, const struct shape *s)
{
	const char *t = "";

	for (int k = 0; s && k < s->ntile; k++) {
		t = pool_printf(pool, "%s(", t);
		for (int i = 0; i < s->tiles[k].n; i++) {
			int64_t d = s->tiles[k].d[i];

			t = d < 0 ? pool_printf(pool, "%s%s*", t, i ? "," : "") :
				    pool_printf(pool, "%s%s%" PRId64, t,
						i ? "," : "", d);
		}
		t = pool_printf(pool, "%s)", t);
	}
	return t;
}

/* "d100, 200" or "m1, 0": a shape's dims or minor_to_major as a key, in
 * time linear in the rank. */
static const char *
list_key(struct pool *pool, const struct shape *s, int m2m)
{
	int rank = s && !shape_is_tuple(s) ? s->rank : 0;
	char *key = pool_alloc(pool, 24 * (size_t)rank + 2), *at = key;

	*at++ = m2m ? 'm' : 'd';
	for (int d = 0; d < rank; d++) {
		int64_t v = !m2m ? s->dims[d] : s->has_layout ? s->m2m[d] :
			    rank - 1 - d;

		at += sprintf(at, "%s%" PRId64, d ? ", " : "", v);
	}
	*at = 0;
	return key;
}

/* The named array P_s<id> holding a list key's numbers, written at its
 * first use. */
static int
list_array(struct hdr *h, struct idset *t, const char *key)
{
	int fresh, id = hdr_key_id(t, key, &fresh);

	if (fresh)
		codegen_printf(h->out, "static const %s %s_s%d[] = {%s};\n",
			key[0] == 'd' ? "long long" : "int", h->pre, id,
			key[1] ? key + 1 : "0");
	return id;
}

/* A shape as the table gives it: its fields' text, and the named arrays
 * of its lists. */
struct shape_row {
	const struct shape *s;
	const char *dims, *m2m;	/* list keys */
	const char *tiles, *text;
};

static void
put_shape_row(struct hdr *h, struct idset *lists,
	      const struct shape_row *r)
{
	const struct shape *s = r->s;
	int rank = s && !shape_is_tuple(s) ? s->rank : 0;
	int dims = list_array(h, lists, r->dims);
	int m2m = list_array(h, lists, r->m2m);

	fputs("\t{", h->out);
	hdr_cstring(h->out, codegen_dtype(s));
	codegen_printf(h->out,
		", %d, %s_s%d, %s_s%d, ", rank, h->pre, dims, h->pre,
		m2m);
	hdr_cstring(h->out, r->tiles);
	fputs(", ", h->out);
	hdr_cstring(h->out, r->text);
	fputs("},\n", h->out);
}

/* P_shapes[]: each distinct laid-out shape once, the buffers' shape field
 * indexing it; *shape gets each buffer's row.  Each shape's text is made
 * once a buffer: a shape may have a million dimensions. */
static void
put_shapes(struct hdr *h, int *shape)
{
	const struct plan *p = h->p;
	struct pool *pool = h->pool;
	struct idset keys, lists;
	struct shape_row *rows = pool_alloc(pool, ((size_t)p->nbuf + 1) *
					    sizeof *rows);
	int fresh, n = 0;

	struct table seen;		/* a shape pointer: its row */

	table_init(&seen, pool, (size_t)p->nbuf);
	hdr_idset_init(&keys, pool, 16);	/* grown as keys come */
	hdr_idset_init(&lists, pool, 16);
	for (int i = 0; i < p->nbuf; i++) {
		const struct shape *s = p->bufs[i].shape;
		struct shape_row r;
		const char *key;

		/* Buffers share laid-out shapes: each pointer's text once. */
		if (s && (shape[i] = table_u64(&seen, (uintptr_t)s, -1)) >= 0)
			continue;
		r = (struct shape_row){s, list_key(pool, s, 0),
				       list_key(pool, s, 1), tiles_text(pool, s),
				       codegen_shape_text(pool, s)};
		key = pool_printf(pool, "%s|%s|%s|%s|%s", codegen_dtype(s),
				  r.dims, r.m2m, r.tiles, r.text);
		shape[i] = hdr_key_id(&keys, key, &fresh);
		if (fresh)
			rows[n++] = r;
		if (s)
			table_u64(&seen, (uintptr_t)s, shape[i]);
	}
	fputs("\n/* The buffers' shapes, each once, and their lists */\n",
	      h->out);
	for (int k = 0; k < n; k++) {	/* the lists first */
		list_array(h, &lists, rows[k].dims);
		list_array(h, &lists, rows[k].m2m);
	}
	codegen_printf(h->out, "#define %s_NUM_SHAPES %d\n"
		"static const struct hloplan_plan_shape %s_shapes[%s_NUM_SHAPES]"
		" HLOPLAN_UNUSED = {\n", h->pre, n ? n : 1, h->pre, h->pre);
	if (!n)
		fputs("\t/* no buffers: a placeholder */\n"
		      "\t{\"\", 0, 0, 0, \"\", \"\"},\n", h->out);
	for (int k = 0; k < n; k++)
		put_shape_row(h, &lists, &rows[k]);
	fputs("};\n", h->out);
}

/* Shape index id of P_ix[]: its depth, then its entries. */
static void
put_index(FILE *out, const struct plan_pos *q, int id)
{
	codegen_printf(out, ",%s%d", id % 8 ? "" : "\n\t", q->depth);
	for (int d = 0; d < q->depth; d++)
		codegen_printf(out, ",%d", q->index[d]);
}

/* P_ix[]: each shape index once, its depth then its entries; h->ix[k]
 * gets position k's.  The empty index is P_ix[0]. */
static void
put_indices(struct hdr *h)
{
	const struct plan *p = h->p;
	struct idset keys;
	char *key;
	int fresh, next = 1;
	int *start = pool_alloc(h->pool, ((size_t)p->npos + 1) * sizeof *start);

	h->ix = pool_alloc(h->pool, ((size_t)p->npos + 1) * sizeof *h->ix);
	hdr_idset_init(&keys, h->pool, 16);
	if (h->rows_of)	/* the same positions: the same indices */
		codegen_printf(h->out, "\n#define %s_ix %s_ix\n", h->pre,
			h->rows_of);
	else
		codegen_printf(h->out, "\n/* Shape indices: P_ix[k] is a "
			"depth, the entries follow */\nstatic const int "
			"%s_ix[] HLOPLAN_UNUSED = {0", h->pre);
	for (int k = 0; k < p->npos; k++) {
		const struct plan_pos *q = &p->pos[k];
		int id;

		if (!q->depth)
			continue;
		key = pool_alloc(h->pool, 12 * (size_t)q->depth + 1);
		for (int d = 0, n = 0; d < q->depth; d++)
			n += sprintf(key + n, "%d,", q->index[d]);
		id = hdr_key_id(&keys, key, &fresh);
		if (fresh) {
			start[id] = next;
			next += q->depth + 1;
			if (!h->rows_of)
				put_index(h->out, q, id);
		}
		h->ix[k] = start[id];
	}
	if (!h->rows_of)
		fputs("};\n", h->out);
}

/* One buffer's row: the numbers themselves, the name a pointer into the
 * step text.  A row is what a runtime needs of a buffer; a macro and a
 * compile-time check a buffer cost a compiler more than the row (L01's
 * header held 12 MB of checks of what verify had proved). */
static void
put_row(struct hdr *h, int i, int shape)
{
	const struct buffer *b = &h->p->bufs[i];
	FILE *out = h->out;

	fputs("\t{", out);
	hdr_buffer_name(h, i);
	codegen_printf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
		",%" PRId32 ",%" PRId32 ",%d,%d,%d,%d,%d,%d,%d},\n",
		b->in_arena ? b->offset : -1, b->size, b->bytes,
		b->slots > 1 ? b->stride : 0, b->start, b->end, b->space,
		b->flags, b->slots > 1 ? b->slots : 1, b->in_arena ? 1 : 0,
		shape, h->b->first[i], h->b->count[i]);
}

/* The table.  It is static, so each translation unit has its own copy, and
 * marked unused for GCC and Clang, which otherwise warn when the header is
 * compiled on its own (-x c-header, as Bazel's parse_headers does). */
static void
put_table(struct hdr *h)
{
	FILE *out = h->out;
	int *shape = pool_alloc(h->pool, ((size_t)h->p->nbuf + 1) *
				sizeof *shape);

	put_shapes(h, shape);
	codegen_printf(out,
		"\nstatic const struct hloplan_plan_buffer %s_buffers[%s%s] "
		"HLOPLAN_UNUSED = {\n", h->pre, h->p->nbuf ? h->pre : "1",
		h->p->nbuf ? "_NUM_BUFFERS" : "");
	if (h->p->nbuf)
		fputs("\t/* name, offset, size, bytes, stride, start, end, "
		      "space, flags, slots, in_arena,\n"
		      "\t   shape, first_value, num_values */\n", out);
	else
		fputs("\t/* no buffers: a placeholder */\n"
		      "\t{\"\", -1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},\n",
		      out);
	for (int i = 0; i < h->p->nbuf; i++)
		put_row(h, i, shape[i]);
	fputs("};\n", out);
}

/* Compile-time checks of what a runtime sizes statically: each arena's
 * size a multiple of the alignment.  A check that fails is a bit-field of
 * negative width, an error that names it, in C99, C11 and C++ alike.
 * Buffers are checked by verify before any header is written. */
static void
put_checks(struct hdr *h)
{
	const char *pre = h->pre;

	if (!h->p->narena)
		return;
	codegen_printf(h->out, "\n/* Compile-time checks: arenas aligned */\n"
		"struct %s_checks {\n", pre);
	for (int i = 0; i < h->p->narena; i++)
		codegen_printf(h->out, "\tunsigned %s_arena_s%d_aligned : "
			"%s_ARENA_S%d_SIZE %% %s_ALIGN == 0 ? 1 : -1;\n", pre,
			h->p->arenas[i].space, pre, h->p->arenas[i].space, pre);
	fputs("};\n", h->out);
}

static void
put_plan(struct hdr *h)
{
	codegen_printf(h->out, "\n/* ---- %s: module ", h->pre);
	put_comment_text(h->out, h->p->module ? h->p->module : "");
	codegen_printf(h->out, ", target %s ---- */\n",
		codegen_target(h->p->target));
	put_plan_macros(h);
	put_io_macros(h);
	put_buffer_ids(h);
	put_steps(h);
	put_indices(h);
	put_table(h);
	hdr_tables(h);
	put_checks(h);
}

/* Plan h's text, in a pool of its own freed once it is written. */
static void
put_plan_text(struct hdr *h)
{
	h->pool = pool_new();
	put_plan(h);
	pool_free(h->pool);
	h->pool = NULL;
}

/* The plans after the first, each into memory of its own (NULL where that
 * failed: then written in turn after), on a thread beside the first. */
struct later {
	struct hdr *h;
	int n;
	char **text;
	size_t *len;
};

static void *
put_later(void *arg)
{
	struct later *l = arg;

	for (int i = 1; i < l->n; i++) {
		struct hdr h = l->h[i];
		FILE *f = open_memstream(&l->text[i], &l->len[i]);

		if (!f)
			continue;
		h.out = f;
		put_plan_text(&h);
		if (ferror(f)) {
			fclose(f);
			free(l->text[i]);
			l->text[i] = NULL;
			continue;
		}
		fclose(f);
	}
	return NULL;
}

/* Below this many positions in the first plan a header is written on one
 * thread: a thread costs more than so small a plan's text. */
enum { PUT_AT_ONCE = 8000 };

/* Each plan's text in turn.  With threads other than 1, the plans after
 * the first are written at once with it, into memory, and copied after
 * it: the same bytes, and on two cores most of L09's codegen hidden. */
static void
put_plans(struct pool *pool, struct hdr *h, int nplan, int threads)
{
	char **text = pool_alloc(pool, sizeof *text * (size_t)(nplan + 1));
	size_t *len = pool_alloc(pool, sizeof *len * (size_t)(nplan + 1));
	struct later l = {h, nplan, text, len};
	pthread_t th;
	int started = 0;

	if (nplan > 1 && threads != 1 &&
	    h[0].p->npos >= PUT_AT_ONCE && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		started = pthread_create(&th, NULL, put_later, &l) == 0;
	put_plan_text(&h[0]);
	if (started)
		pthread_join(th, NULL);
	for (int i = 1; i < nplan; i++) {
		if (text[i]) {
			fwrite(text[i], 1, len[i], h[0].out);
			free(text[i]);
		} else {
			put_plan_text(&h[i]);
		}
	}
}

/* ---- the header --------------------------------------------------------- */

static int
same_steps(const struct plan *a, const struct plan *b)
{
	if (!a->steps || !b->steps || a->ntime != b->ntime)
		return 0;
	for (int32_t t = 0; t < a->ntime; t++)
		if (strcmp(a->steps[t], b->steps[t]) != 0)
			return 0;
	return 1;
}

/* Whether b's positions lie at a's steps and indices, with a's operands:
 * then the tables of those are a's. */
static int
same_positions(const struct plan *a, const struct plan *b)
{
	if (a->npos != b->npos || !a->opnd_first != !b->opnd_first ||
	    a->ntime != b->ntime || (a->opnd_first && a->nopnd != b->nopnd))
		return 0;
	for (int k = 0; k < a->npos; k++) {
		const struct plan_pos *x = &a->pos[k], *y = &b->pos[k];

		if (x->step != y->step || x->depth != y->depth ||
		    memcmp(x->index, y->index, sizeof(int) * (size_t)x->depth))
			return 0;
	}
	return !a->opnd_first ||
	       (!memcmp(a->opnd, b->opnd, sizeof(int) * (size_t)a->nopnd) &&
		!memcmp(a->opnd_first, b->opnd_first,
			sizeof(int) * (size_t)(a->ntime + 1)));
}

/* The first plan before plan i whose schedule is plan i's, or -1. */
static int
steps_shared_with(const struct plan *plans, int i)
{
	for (int j = 0; j < i; j++)
		if (same_steps(&plans[j], &plans[i]))
			return j;
	return -1;
}

/* Whether b's positions, at a's steps and indices (same_positions), lie in
 * the same buffers and slots, written the same way: one P_positions[]. */
static int
same_rows(const struct plan *a, const struct plan *b)
{
	for (int k = 0; k < a->npos; k++) {
		const struct plan_pos *x = &a->pos[k], *y = &b->pos[k];

		if (x->buf != y->buf || x->slot != y->slot ||
		    hdr_pos_kind(x) != hdr_pos_kind(y))
			return 0;
	}
	return 1;
}

/* An earlier plan's step names, indexed once, when a later plan first
 * looks for its own among them (a file of thousands of modules tries each
 * plan against every earlier one). */
struct steps_index {
	int built;
	struct table t;		/* "computation/instruction" -> step */
	int *at;		/* by step: where its name starts (step_chunks) */
};

static void
index_steps(struct pool *pool, const struct plan *a, struct steps_index *x)
{
	if (x->built)
		return;
	x->built = 1;
	table_init(&x->t, pool, (size_t)a->ntime);
	for (int32_t k = 0; k < a->ntime; k++)
		table_str(&x->t, a->steps[k], strlen(a->steps[k]), k);
	x->at = pool_alloc(pool, ((size_t)a->ntime + 1) * sizeof *x->at);
	step_chunks(a, x->at);
}

/* The step of a named as b's step k is, or -1. */
static int
step_in(struct steps_index *x, const struct plan *b, int32_t k)
{
	return table_str(&x->t, b->steps[k], strlen(b->steps[k]), -1);
}

/* Plan b's step names as places in plan a's step text, and its steps'
 * computations as indices into a's P_computations[] (in the order
 * put_step_comps writes them), into h->at and h->comp_ix: 0 when a lacks
 * one of them. */
static int
share_text(struct pool *pool, struct steps_index *x, const struct plan *a,
	   const struct plan *b, struct hdr *h)
{
	int *at, *cix = NULL, *of, *list, n;
	struct table t;

	if (!a->steps || !b->steps || !a->step_comp != !b->step_comp ||
	    b->ntime > a->ntime)	/* names are unique in a module */
		return 0;
	index_steps(pool, a, x);
	for (int32_t k = 0; k < b->ntime; k++)
		if (step_in(x, b, k) < 0)
			return 0;
	if (b->step_comp) {
		n = comp_order(pool, a, &of, &list);
		cix = pool_alloc(pool, ((size_t)b->ntime + 1) * sizeof *cix);
		table_init(&t, NULL, (size_t)a->ncomp);
		for (int k = 0; k < n; k++) {
			const char *c = a->comp_names[list[k]];

			table_str(&t, c, strlen(c), k);
		}
		for (int32_t k = 0; cix && k < b->ntime; k++) {
			const char *c = b->comp_names[b->step_comp[k]];

			cix[k] = table_str(&t, c, strlen(c), -1);
			if (cix[k] < 0)
				cix = NULL;
		}
		table_free(&t);
		if (!cix)
			return 0;
	}
	at = pool_alloc(pool, ((size_t)b->ntime + 1) * sizeof *at);
	for (int32_t k = 0; k < b->ntime; k++)
		at[k] = x->at[step_in(x, b, k)];
	h->at = at;
	h->comp_ix = cix;
	return 1;
}

/* Do plans a and b name the same buffers by the same ids?  (Each name is
 * BUF_<NAME>, unique in its plan.) */
static int
same_names(const struct plan *a, const struct plan *b, const char **na,
	   const char **nb)
{
	if (a->nbuf != b->nbuf)
		return 0;
	for (int k = 0; k < a->nbuf; k++)
		if (strcmp(na[k], nb[k]))
			return 0;
	return 1;
}

/* The tables plan i takes from an earlier plan, where they would be the
 * same: its steps (steps_of), or the text of the same steps in another
 * order (text_of); its positions' steps and operands (pos_of) and rows
 * (rows_of); its buffers' names; its values; its constants' bytes. */
static void
share_tables(struct pool *pool, const struct plan *plans,
	     const char *const *prefixes, const struct bindings *b,
	     struct hdr *h, struct steps_index *sx, int i, int blob)
{
	const struct plan *p = &plans[i];
	int j = steps_shared_with(plans, i);

	h[i].steps_of = j >= 0 ? prefixes[j] : NULL;
	h[i].text_pre = j >= 0 ? h[j].text_pre : prefixes[i];
	if (j >= 0 && h[j].text_of)	/* j's text is another plan's */
		h[i].at = h[j].at;
	h[i].pos_of = j >= 0 && same_positions(&plans[j], p) ? prefixes[j] :
							      NULL;
	h[i].rows_of = h[i].pos_of && same_rows(&plans[j], p) ? prefixes[j] :
								 NULL;
	for (int k = 0; j < 0 && !h[i].text_of && k < i; k++)
		if (!h[k].steps_of && !h[k].text_of &&
		    share_text(pool, &sx[k], &plans[k], p, &h[i]))
			h[i].text_of = h[i].text_pre = prefixes[k];
	h[i].buf_pre = prefixes[i];
	for (int k = 0; k < i && h[i].buf_pre == prefixes[i]; k++)
		if (h[k].buf_pre == prefixes[k] &&
		    same_names(&plans[k], p, h[k].name, h[i].name))
			h[i].buf_pre = prefixes[k];
	for (int k = 0; k < i && !h[i].values_of; k++)
		if (!h[k].values_of && b[k].nval == b[i].nval &&
		    !memcmp(b[k].val, b[i].val, sizeof(int) *
						(size_t)b[i].nval))
			h[i].values_of = prefixes[k];
	for (int k = 0; k < i && !blob && p->const_bytes && !h[i].cdata_of; k++)
		if (!h[k].cdata_of && plans[k].const_bytes == p->const_bytes &&
		    !memcmp(plans[k].const_data, p->const_data,
			    (size_t)p->const_bytes))
			h[i].cdata_of = prefixes[k];
}

/* The include guard: the caller's, after the first plan's prefix, so that
 * headers of plans under other prefixes all take effect. */
static const char *
prefixed_guard(struct pool *pool, const struct header_opts *o,
	       const char *prefix)
{
	const char *g = o && o->guard ? o->guard : "PLAN_H";

	return prefix ? pool_printf(pool, "%s_%s", prefix, g) : g;
}

void
codegen_header(FILE *out, const struct plan *plans,
	       const char *const *prefixes, int nplan,
	       const struct header_opts *o)
{
	struct pool *pool = pool_new();
	const char *guard = prefixed_guard(pool, o, nplan ? prefixes[0] : NULL);
	const char ***names, ***io;
	const struct plan_set set = {plans, prefixes, nplan, NULL, NULL};
	struct bindings *b;
	struct hdr *h;
	struct steps_index *sx;
	int i, j;

	b = pool_alloc(pool, sizeof *b * (size_t)(nplan + 1));
	io = pool_alloc(pool, sizeof *io * (size_t)(nplan + 1));
	for (i = 0; i < nplan; i++) {
		assert(plans[i].align > 0);
		for (j = 0; j < i; j++)
			assert(strcmp(prefixes[i], prefixes[j]) != 0);
		codegen_bindings(pool, &plans[i], &b[i]);
	}
	names = name_buffers(pool, plans, prefixes, nplan, &guard, b, io);
	header_legend(out, o ? o->source : NULL, guard);
	header_types(out);
	h = pool_alloc(pool, sizeof *h * (size_t)(nplan + 1));
	sx = pool_alloc(pool, sizeof *sx * (size_t)(nplan + 1));	/* zeroed */
	for (i = 0; i < nplan; i++) {
		h[i] = (struct hdr){.out = out,
				    .blob = o ? o->constants : NULL,
				    .blob_base = codegen_constants_base(&set, i),
				    .p = &plans[i], .pre = prefixes[i],
				    .name = names[i], .b = &b[i], .io = io[i]};
		share_tables(pool, plans, prefixes, b, h, sx, i,
			     h[i].blob != NULL);
	}
	put_plans(pool, h, nplan, o ? o->threads : 1);
	codegen_printf(out, "\n#endif /* %s */\n", guard);
	pool_free(pool);
}

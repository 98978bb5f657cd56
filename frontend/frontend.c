/* The frontend's glue: the parser's actions that build the IR, and
 * frontend_parse, which runs the scanner and the parser over a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/frontend.h"
#define YYSTYPE union hloval
#define YYLTYPE struct span
#include "lexer.h"

struct loc
span_loc(struct parser *P, struct span s)
{
	return lex_loc(P->ls, s.first_off);
}

void
too_deep(struct parser *P, struct span loc)
{
	diag_error(P->ds, span_loc(P, loc),
		   "brackets nested too deeply (memory exhausted)");
	P->syntax_errors++;
	P->aborted = 1;
}

/* A name token without its leading '%', copied into the pool. */
const char *
tok_name(struct parser *P, struct tok t)
{
	const char *s = P->src + t.off;
	size_t n = t.len;

	if (n && *s == '%') {
		s++;
		n--;
	}
	return pool_strndup(P->pool, s, n);
}

void
act_module(struct parser *P, struct tok name, struct span loc)
{
	struct hlofile *f = P->file;

	P->mod = VEC_PUSH(P->pool, f->mods, f->nmod, f->cap);
	P->mod->name = tok_name(P, name);
	P->mod->loc = span_loc(P, loc);
	P->mod->entry = -1;
	P->comp = NULL;
}

void
act_module_attr(struct parser *P, struct attr *a)
{
	struct module *m = P->mod;
	struct attrs l = {m->nattr, m->nattr, m->attrs};

	*VEC_PUSH(P->pool, l.v, l.n, l.cap) = *a;
	m->attrs = l.v;
	m->nattr = l.n;
}

void
act_comp(struct parser *P, int entry, struct tok name, struct span loc)
{
	struct module *m = P->mod;

	P->comp = VEC_PUSH(P->pool, m->comps, m->ncomp, m->cap);
	P->comp->name = tok_name(P, name);
	P->comp->loc = span_loc(P, loc);
	P->comp->is_entry = entry;
	P->comp->root = -1;
	P->nroot = 0;
}

/* The result shape its signature gives the computation being parsed. */
void
act_comp_result(struct parser *P, const struct shape *result, struct span loc)
{
	struct shape *r;

	if (!result)
		return;
	r = pool_alloc(P->pool, sizeof *r);	/* result is in P->tmp */
	*r = *result;
	P->comp->result = r;
	P->comp->result_loc = span_loc(P, loc);
}

/* A zeroed instruction at the end of the computation being parsed.  They
 * gather in a buffer of a pool of their own, which comp_finish copies to
 * the pool at its exact size: growing them in the IR's pool would leave
 * every old copy behind until the end of the run. */
static struct instr *
new_instr(struct parser *P)
{
	struct comp *c = P->comp;
	struct instr *in;

	if (c->ninstr == P->ibuf_cap)
		P->ibuf = vec_grow(P->ibuf_pool, P->ibuf, &P->ibuf_cap,
				   sizeof *in);
	in = &P->ibuf[c->ninstr++];
	memset(in, 0, sizeof *in);
	return in;
}

/* The instruction buffer at a line per instruction, as XLA writes them,
 * when that is a large buffer: growing it by doubling copied it and
 * touched twice its size (L09: one computation of 16,828 instructions).
 * A large reservation is a mapping of its own, touched only as it fills;
 * a small one would be a block whose pages fault one by one, and growing
 * a small buffer costs little.  Lines need not hold instructions, so the
 * reservation stops at IBUF_MAX_RESERVE bytes (a file of blank lines must
 * not ask for hundreds of GiB); the buffer still grows past it. */
static void
reserve_ibuf(struct parser *P, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t n = 1, most = IBUF_MAX_RESERVE / sizeof *P->ibuf;

	while (n < most && p < end &&
	       (p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	if (n * sizeof *P->ibuf >= IBUF_RESERVE)
		P->ibuf = vec_reserve(P->ibuf_pool, NULL, &P->ibuf_cap,
				      (int)n, sizeof *P->ibuf);
}

/* Ends the computation being parsed: its instructions move to the pool. */
static void
comp_finish(struct parser *P)
{
	struct comp *c = P->comp;
	size_t n = sizeof(struct instr) * (size_t)c->ninstr;

	c->instrs = pool_alloc(P->pool, n ? n : 1);
	if (n)
		memcpy(c->instrs, P->ibuf, n);
	c->cap = c->ninstr;
	if (c->root < 0)
		c->root = c->ninstr - 1;	/* XLA: no ROOT, last is root */
	P->comp = NULL;
}

/* A list of attributes, copied out of the scratch pool. */
static struct attr *
keep_attrs(struct parser *P, const struct attrs *l)
{
	struct attr *v;

	if (!l->n)
		return NULL;
	v = pool_alloc(P->pool, sizeof *v * (size_t)l->n);
	memcpy(v, l->v, sizeof *v * (size_t)l->n);
	return v;
}

/* Between instructions nothing points into the scratch pool, so it is
 * emptied once it holds more than a couple of blocks; it keeps one, whose
 * pages are backed already. */
static void
trim_tmp(struct parser *P)
{
	if (pool_bytes(P->tmp) >= TMP_LIMIT)
		pool_reset(P->tmp);
}

void
act_comp_end(struct parser *P, struct attrs *attrs)
{
	struct comp *c = P->comp;

	if (!c)
		return;
	c->nattr = attrs->n;
	c->attrs = keep_attrs(P, attrs);
	comp_finish(P);
}

struct attr *
act_attr(struct parser *P, struct tok key, struct span kloc, struct span v)
{
	struct attr *a = pool_alloc(P->tmp, sizeof *a);

	a->key = tok_name(P, key);
	a->val = P->src + v.first_off;
	a->vlen = (int)(v.last_off - v.first_off);
	a->loc = span_loc(P, kloc);
	return a;
}

/* The opcode spelled s (n bytes): a known one, or X-start, X-update,
 * X-done around a known X (XLA's ParseOpcode): then *wrapped is X.  The
 * collectives and copies with async opcodes of their own are not wrapped. */
static const struct opinfo *
lookup_opcode(const char *s, size_t n, const struct opinfo **wrapped)
{
	static const char *const sfx[] = {"-start", "-update", "-done"};
	static const char *const async[] = {"async-start", "async-update",
					    "async-done"};
	static const char *const own[] = {"all-gather", "all-reduce",
					  "collective-permute", "copy",
					  "recv", "send"};
	const struct opinfo *op = opcode_lookup(s, n);

	*wrapped = NULL;
	for (int k = 0; !op && k < 3; k++) {
		size_t l = strlen(sfx[k]);

		if (n <= l || memcmp(s + n - l, sfx[k], l))
			continue;
		*wrapped = opcode_lookup(s, n - l);
		for (size_t i = 0; *wrapped && i < sizeof own / sizeof *own;
		     i++)
			if (!strcmp((*wrapped)->name, own[i]))
				*wrapped = NULL;
		if (*wrapped)
			op = opcode_lookup(async[k], strlen(async[k]));
	}
	return op;
}

/* An instruction named name at the end of the computation being parsed;
 * shape NULL when the text leaves it to be inferred. */
static struct instr *
add_instr(struct parser *P, const char *name, struct span nloc,
	  struct shape *shape, const char *ocs, size_t olen,
	  struct span oploc, struct opnds *ops, struct span args,
	  struct attrs *attrs)
{
	struct instr *in = new_instr(P);

	in->name = name;
	in->loc = span_loc(P, nloc);
	if (shape)
		in->shape = *shape;
	in->no_shape = !shape;
	in->op = lookup_opcode(ocs, olen, &in->wrapped);
	if (!in->op)
		diag_error(P->ds, span_loc(P, oploc), "unknown opcode '%.*s'",
			   (int)(olen > 40 ? 40 : olen), ocs);
	in->nops = ops->n;
	in->ops = pool_alloc(P->pool, sizeof(int) * (size_t)(ops->n + 1));
	in->oploc = pool_alloc(P->pool,
			       sizeof(struct loc) * (size_t)(ops->n + 1));
	in->opname = pool_alloc(P->pool, sizeof(char *) * (size_t)(ops->n + 1));
	for (int i = 0; i < ops->n; i++) {
		in->ops[i] = -1;
		in->opname[i] = ops->v[i].name;
		in->oploc[i] = ops->v[i].loc;
	}
	/* The text between the parentheses: a constant's literal. */
	in->literal = P->src + args.first_off + 1;
	in->literal_len = (int)(args.last_off - args.first_off - 2);
	in->param = -1;
	in->index = -1;
	in->nattr = attrs->n;
	in->attrs = keep_attrs(P, attrs);
	return in;
}

void
act_instr(struct parser *P, int root, struct tok name, struct span nloc,
	  struct shape *shape, struct tok opc, struct span oploc,
	  struct opnds *ops, struct span args, struct attrs *attrs)
{
	struct comp *c = P->comp;
	struct instr *in = add_instr(P, tok_name(P, name), nloc, shape,
				     P->src + opc.off, opc.len, oploc, ops,
				     args, attrs);

	in->is_root = root;
	if (root) {
		if (P->nroot++)
			diag_error(P->ds, span_loc(P, nloc),
				   "second ROOT in computation '%s' (the first "
				   "is at %d:%d)", c->name, P->rootloc.line,
				   P->rootloc.col);
		else
			P->rootloc = span_loc(P, nloc);
		c->root = c->ninstr - 1;
	}
	trim_tmp(P);
}

/* A name for an instruction the text does not name: XLA calls nested ones
 * "<opcode>.anon"; a number keeps them apart. */
static const char *
anon_name(struct parser *P, const char *what, size_t n)
{
	return pool_printf(P->pool, "%.*s.anon.%d", (int)n, what, ++P->nanon);
}

/* An instruction nested in an operand list: it is added before the
 * instruction whose operand it is, and that operand names it. */
struct opnd
act_nested(struct parser *P, struct shape *shape, struct tok opc,
	   struct span oploc, struct opnds *ops, struct span args)
{
	struct attrs none = {0};
	const char *ocs = P->src + opc.off;
	struct instr *in = add_instr(P, anon_name(P, ocs, opc.len), oploc,
				     shape, ocs, opc.len, oploc, ops, args,
				     &none);
	struct opnd o = {in->name, in->loc};

	return o;
}

/* An operand named name; name#i#j is get-tuple-element i of name, then j
 * of that, each an instruction of its own whose shape sema infers. */
struct opnd
act_operand(struct parser *P, struct tok name, struct span loc,
	    struct ints *idx)
{
	struct opnd o = {tok_name(P, name), span_loc(P, loc)};

	for (int k = 0; idx && k < idx->n; k++) {
		struct attr *a = pool_alloc(P->tmp, sizeof *a);
		struct attrs attrs = {1, 1, a};
		struct opnds ops = {1, 1, &o};
		struct instr *in;

		a->key = "index";
		a->val = pool_printf(P->pool, "%lld", (long long)idx->v[k]);
		a->vlen = (int)strlen(a->val);
		a->loc = o.loc;
		in = add_instr(P, anon_name(P, "get-tuple-element", 17), loc,
			       NULL, "get-tuple-element", 17, loc, &ops, loc,
			       &attrs);
		in->literal_len = 0;
		o.name = in->name;
	}
	return o;
}

/* b(shape): a buffer (XLA's ShapeUtil::MakeValidatedBufferShape): an
 * array that copy insertion must never copy. */
struct shape *
act_buffer(struct parser *P, struct tok b, struct span loc,
	   struct shape *inner)
{
	if (b.len != 1 || P->src[b.off] != 'b')
		diag_error(P->ds, span_loc(P, loc), "unexpected '(' after '%.*s': "
			   "a shape is a type with dimensions, a tuple, or "
			   "b(array shape)", (int)(b.len > 40 ? 40 : b.len),
			   P->src + b.off);
	else if (shape_is_tuple(inner))
		diag_error(P->ds, span_loc(P, loc), "a buffer shape b(...) holds "
			   "an array, not a tuple");
	inner->is_buffer = 1;
	return inner;
}

static int
cmp_diag(const void *a, const void *b)
{
	const struct diag *x = *(const struct diag *const *)a;
	const struct diag *y = *(const struct diag *const *)b;

	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	if (x->loc.col != y->loc.col)
		return x->loc.col < y->loc.col ? -1 : 1;
	return (x > y) - (x < y);	/* stable: the order of reporting */
}

/* Puts the diagnostics from index `from` on in the order of the text: the
 * checks after parsing report in their own order. */
static void
sort_diags(struct pool *pool, struct diags *ds, int from)
{
	size_t n = (size_t)(ds->n - from);
	struct diag **p, *sorted;

	if (ds->n - from < 2)
		return;
	p = pool_alloc(pool, sizeof *p * n);
	sorted = pool_alloc(pool, sizeof *sorted * n);
	for (size_t i = 0; i < n; i++)
		p[i] = &ds->d[(size_t)from + i];
	qsort(p, n, sizeof *p, cmp_diag);
	for (size_t i = 0; i < n; i++)
		sorted[i] = *p[i];
	memcpy(&ds->d[from], sorted, sizeof *sorted * n);
}

/* One run of a parser over the text, from a fresh scanner: hlo (fast)
 * or hlolac. */
static void
run_parser(struct parser *P, struct lexstate *ls, struct loc at, int fast)
{
	const char *text = ls->src;
	size_t len = ls->len;

	memset(ls, 0, sizeof *ls);
	ls->ds = P->ds;
	ls->src = text;
	ls->len = len;
	ls->cur_line = at.line;
	ls->col0 = at.col;
	ls->after_rbracket = (size_t)-1;
	P->ls = ls;
	P->fast = fast;
	P->depth = BASE_DEPTH;
	if (hlo_lex_init_extra(ls, &P->scanner))
		abort();	/* out of memory */
	lex_begin(P->scanner, fast);
	if (fast)
		hloparse(P);
	else
		hlolacparse(P);
	hlo_lex_destroy(P->scanner);
	P->scanner = NULL;
	if (P->comp)
		comp_finish(P);	/* cut short by an error */
}

/* Forgets what a parse that gave up made: its modules, its messages. */
static void
restart(struct parser *P, struct lexstate *ls, int first)
{
	P->file->nmod = P->file->cap = 0;
	P->file->mods = NULL;
	P->ds->n = first;
	P->mod = NULL;
	P->comp = NULL;
	P->nroot = 0;
	P->syntax_errors = 0;
	P->too_deep = 0;
	P->nanon = 0;
	P->deep_pending = P->aborted = P->gave_up = 0;
	pool_reset(P->tmp);
	ls->errors = 0;
}

/* Parses text whose first byte is at line:col of the file; with sema, the
 * checks that need the whole module follow.  hlo parses it; where it gives
 * up, at the first error, hlolac parses it again and reports each error. */
static struct hlofile *
parse(struct pool *pool, const char *text, size_t len, struct diags *ds,
      struct loc at, int sema)
{
	struct hlofile *f = pool_alloc(pool, sizeof *f);
	struct lexstate ls = {0};
	struct parser P = {0};
	int first = ds->n;

	f->pool = pool;
	if (len > FRONTEND_MAX_INPUT) {	/* before reading any of it */
		diag_error(ds, (struct loc){0, 0}, "input larger than 1 GiB");
		return f;
	}
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;	/* a byte-order mark: columns count after */
		len -= 3;
	}
	if (foreign_format(text, len, ds))
		return f;
	ls.src = text;
	ls.len = len;
	P.file = f;
	P.ds = ds;
	P.pool = pool;
	P.tmp = pool_new();
	P.ibuf_pool = pool_new();
	reserve_ibuf(&P, text, len);
	P.src = text;
	run_parser(&P, &ls, at, 1);
	if (P.gave_up || P.aborted || ls.errors) {
		restart(&P, &ls, first);
		run_parser(&P, &ls, at, 0);
	}
	pool_free(P.ibuf_pool);
	pool_free(P.tmp);
	/* Name checks need the whole tree; unknown types and opcodes do not
	 * stop them, so that every such error in a file is reported. */
	if (sema && P.syntax_errors == 0 && ls.errors == 0)
		for (int i = 0; i < f->nmod; i++)
			sema_module(&P, &f->mods[i]);
	sort_diags(pool, ds, first);
	return f;
}

struct hlofile *
frontend_parse(struct pool *pool, const char *text, size_t len,
	       struct diags *ds)
{
	return parse(pool, text, len, ds, (struct loc){1, 1}, 1);
}

struct hlofile *
frontend_parse_at(struct pool *pool, const char *text, size_t len,
		  struct diags *ds, struct loc at)
{
	return parse(pool, text, len, ds, at, 0);
}

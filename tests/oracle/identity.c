/* The planned run by value identity (issue 37): the plan's schedule walked
 * as interp.c's planned run walks it (copies, loops, conditionals, calls,
 * slots, async pairs, in-place kernels, XLA's contract from contract.c),
 * with no array data.  Each byte range of each arena holds the tag of the
 * value instance last written there (an interval map: a treap of
 * non-overlapping [lo, hi) ranges); every read checks its bytes carry the
 * tag of the value the reference semantics say it reads. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "passes/passes.h"
#include "tests/oracle/contract.h"
#include "tests/oracle/exec.h"
#include "tests/oracle/sched.h"
#include "tests/oracle/identity.h"
#include "tests/oracle/jsonread.h"
#include "tests/oracle/trial.h"

enum { MAXDEPTH = 256, DEFAULT_TRIPS = 2 };
#define DEFAULT_BUDGET INT64_C(200000000)
#define TABLE_TAG UINT64_C(0x8000000000000000)
#define GAP (INT64_C(1) << 20)	/* between regions of the address space */

/* ---- the interval map: [lo, hi) -> tag, a treap keyed by lo ------------- */

struct range {
	int64_t lo, hi;
	uint64_t tag;
	uint32_t pri;
	int l, r;
};

struct imap {
	struct range *t;	/* t[0] is unused: 0 is no node */
	int n, cap, free, root, live, maxlive;
	uint32_t rng;
};

static int
node_new(struct imap *mp, int64_t lo, int64_t hi, uint64_t tag)
{
	int x = mp->free;

	if (x) {
		mp->free = mp->t[x].l;
	} else {
		if (mp->n + 1 >= mp->cap) {
			mp->cap = mp->cap ? 2 * mp->cap : 1024;
			mp->t = realloc(mp->t, sizeof *mp->t * (size_t)mp->cap);
			if (!mp->t)
				abort();
		}
		x = ++mp->n;
	}
	mp->rng = mp->rng * 1664525u + 1013904223u;
	mp->t[x] = (struct range){lo, hi, tag, mp->rng, 0, 0};
	if (++mp->live > mp->maxlive)
		mp->maxlive = mp->live;
	return x;
}

static int
merge(struct imap *mp, int a, int b)
{
	if (!a || !b)
		return a ? a : b;
	if (mp->t[a].pri > mp->t[b].pri) {
		mp->t[a].r = merge(mp, mp->t[a].r, b);
		return a;
	}
	mp->t[b].l = merge(mp, a, mp->t[b].l);
	return b;
}

/* Splits x into ranges starting before key (*a) and the rest (*b). */
static void
split(struct imap *mp, int x, int64_t key, int *a, int *b)
{
	if (!x) {
		*a = *b = 0;
	} else if (mp->t[x].lo < key) {
		split(mp, mp->t[x].r, key, &mp->t[x].r, b);
		*a = x;
	} else {
		split(mp, mp->t[x].l, key, a, &mp->t[x].l);
		*b = x;
	}
}

static void
drop(struct imap *mp, int x)
{
	if (!x)
		return;
	drop(mp, mp->t[x].l);
	drop(mp, mp->t[x].r);
	mp->t[x].l = mp->free;
	mp->free = x;
	mp->live--;
}

/* The range starting last at or before key (le), or first after it. */
static int
find_le(const struct imap *mp, int64_t key)
{
	int x = mp->root, best = 0;

	while (x) {
		if (mp->t[x].lo <= key) {
			best = x;
			x = mp->t[x].r;
		} else {
			x = mp->t[x].l;
		}
	}
	return best;
}

static int
find_gt(const struct imap *mp, int64_t key)
{
	int x = mp->root, best = 0;

	while (x) {
		if (mp->t[x].lo > key) {
			best = x;
			x = mp->t[x].l;
		} else {
			x = mp->t[x].r;
		}
	}
	return best;
}

/* [lo, hi) takes tag (0: untagged, poison). */
static void
imap_write(struct imap *mp, int64_t lo, int64_t hi, uint64_t tag)
{
	int p = lo > INT64_MIN ? find_le(mp, lo - 1) : 0, a, b, mid, c;
	int64_t rlo = 0, rhi = 0;
	uint64_t rtag = 0;

	if (lo >= hi)
		return;
	if (p && mp->t[p].hi > lo) {	/* a range across lo */
		if (mp->t[p].hi > hi) {
			rlo = hi;
			rhi = mp->t[p].hi;
			rtag = mp->t[p].tag;
		}
		mp->t[p].hi = lo;
	}
	split(mp, mp->root, lo, &a, &b);
	split(mp, b, hi, &mid, &c);
	for (int x = mid; x; x = mp->t[x].r)
		if (!mp->t[x].r && mp->t[x].hi > hi) {	/* across hi */
			rlo = hi;
			rhi = mp->t[x].hi;
			rtag = mp->t[x].tag;
		}
	drop(mp, mid);
	if (rtag)
		c = merge(mp, node_new(mp, rlo, rhi, rtag), c);
	if (tag)
		a = merge(mp, a, node_new(mp, lo, hi, tag));
	mp->root = merge(mp, a, c);
}

/* The tag over all of [lo, hi), or where it first differs from want:
 * returns 0 when every byte holds want, else 1 with what *got there (0:
 * poison). */
static int
imap_check(const struct imap *mp, int64_t lo, int64_t hi, uint64_t want,
	   uint64_t *got)
{
	while (lo < hi) {
		int x = find_le(mp, lo);

		if (!x || mp->t[x].hi <= lo || mp->t[x].tag != want) {
			*got = x && mp->t[x].hi > lo ? mp->t[x].tag : 0;
			return 1;
		}
		lo = mp->t[x].hi;
	}
	return 0;
}

struct piece {
	int64_t lo, hi;
	uint64_t tag;
};

/* The tags of [lo, hi) moved to [to, to + hi - lo), as memmove. */
static void
imap_move(struct imap *mp, int64_t lo, int64_t hi, int64_t to)
{
	struct piece *pc = NULL;
	int n = 0, cap = 0;

	for (int64_t at = lo; at < hi;) {
		int x = find_le(mp, at);

		if (!x || mp->t[x].hi <= at) {
			x = find_gt(mp, at);
			if (!x || mp->t[x].lo >= hi)
				break;
			at = mp->t[x].lo;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			pc = realloc(pc, sizeof *pc * (size_t)cap);
			if (!pc)
				abort();
		}
		pc[n++] = (struct piece){at,
					 mp->t[x].hi < hi ? mp->t[x].hi : hi,
					 mp->t[x].tag};
		at = pc[n - 1].hi;
	}
	imap_write(mp, to, to + hi - lo, 0);
	for (int k = 0; k < n; k++)
		imap_write(mp, pc[k].lo - lo + to, pc[k].hi - lo + to,
			   pc[k].tag);
	free(pc);
}

/* A hash of the tags over [lo, hi), gaps included. */
static uint64_t
imap_hash(const struct imap *mp, int64_t lo, int64_t hi, uint64_t h)
{
	for (int64_t at = lo; at < hi;) {
		int x = find_le(mp, at);
		int64_t end;

		if (!x || mp->t[x].hi <= at) {
			x = find_gt(mp, at);
			at = x && mp->t[x].lo < hi ? mp->t[x].lo : hi;
			h = (h ^ (uint64_t)at) * 1099511628211u;
			continue;
		}
		end = mp->t[x].hi < hi ? mp->t[x].hi : hi;
		h = (h ^ (uint64_t)(end - lo)) * 1099511628211u;
		h = (h ^ mp->t[x].tag) * 1099511628211u;
		at = end;
	}
	return h;
}

/* The map against a byte array over [0, 4096): random writes, erases
 * and moves, every byte's tag and every check compared (test_identity).
 * 0, or the first operation that disagrees (1-based). */
int
identity_map_selftest(uint64_t seed, int ops)
{
	enum { N = 4096 };
	static uint64_t model[N], tmp[N];
	struct imap mp = {.rng = 1};
	uint64_t r = seed, got;
	int bad = 0;

	memset(model, 0, sizeof model);
	for (int k = 1; k <= ops && !bad; k++) {
		int64_t lo, hi, to;
		int kind;

		r = r * 6364136223846793005u + 1442695040888963407u;
		kind = (int)(r >> 60) % 4;
		lo = (int64_t)(r >> 20) % N;
		hi = lo + (int64_t)(r >> 40) % (kind == 3 ? 600 : 90);
		hi = hi > N ? N : hi;
		to = (int64_t)(r >> 8) % (N - (hi - lo) + 1);
		if (kind < 2) {
			uint64_t tag = kind ? (uint64_t)k : 0;

			imap_write(&mp, lo, hi, tag);
			for (int64_t b = lo; b < hi; b++)
				model[b] = tag;
		} else if (kind == 2) {
			size_t len = sizeof *tmp * (size_t)(hi - lo);

			imap_move(&mp, lo, hi, to);
			memcpy(tmp, model + lo, len);
			memcpy(model + to, tmp, len);
		}
		for (int64_t b = 0; b < N && !bad; b++)
			if (imap_check(&mp, b, b + 1, model[b], &got) !=
			    (model[b] == 0) || (model[b] == 0 && got))
				bad = k;
		if (lo < hi && !bad) {
			int same = 1;

			for (int64_t b = lo; b < hi; b++)
				same &= model[b] == model[lo] && model[b];
			if (imap_check(&mp, lo, hi, model[lo], &got) == same)
				bad = k;
		}
	}
	free(mp.t);
	return bad;
}

/* ---- the run's state ---------------------------------------------------- */

/* A program computation's instructions: per instruction and output node,
 * the value it holds (the reference's tag) and where (the plan's). */
struct frame {
	uint64_t **ref;
	int64_t **addr;
	char **defs;
	const struct shape ***ns;	/* per node: its array or tuple */
	int **fwd;		/* per node: k << 16 | j forwarded, or -1;
				   NULL: not yet worked out */
	int **inplace;		/* per node: the operand node it updates in
				   place, k << 16 | j, or -1; NULL: none */
	int64_t *runs;
	uint64_t *inflight;	/* per async start: its operands' tags,
				   hashed after it ran */
	int busy;
};

struct taginfo {
	int c, i, node;
	int64_t iter;
};

struct ident {
	const struct module *m;
	const struct plan *pl;
	struct pool *pool;
	struct ident_opts o;
	struct ident_stats *stats;
	struct imap map;
	int64_t *base;		/* per buffer: its address */
	struct sched s;		/* the plan's positions, steps and copies */
	int *slotcomp, *trips_at;	/* per step: the loop ending there */
	int64_t *iter_of, iter[MAXDEPTH];
	int depth;
	struct frame *fr;
	uint64_t *callroot;
	struct taginfo *tags;
	int64_t ntag, captag;
	uint64_t *const_tag;	/* per position: its constant's, or 0 */
	int filled;		/* the entry's parameters are */
	int64_t work, budget;
	jmp_buf jb;
	int status;
	char *msg;
	size_t msglen;
};

static _Noreturn void
fail(struct ident *st, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->msg, st->msglen, fmt, ap);
	va_end(ap);
	st->status = status;
	longjmp(st->jb, 1);
}

static void
work(struct ident *st, int64_t n)
{
	st->work += n;
	if (st->work > st->budget)
		fail(st, INTERP_LIMIT, "over the budget of %lld checks "
		     "(loops' trips multiply)", (long long)st->budget);
}

static void *
alloc(struct ident *st, size_t n)
{
	return pool_alloc(st->pool, n ? n : 1);
}

static int
opcode(const struct instr *in)
{
	return in->op ? in->op->op : OP_OTHER;
}

/* ---- tags --------------------------------------------------------------- */

/* An index table's tag: its shape's, as interp.c's table signatures. */
static uint64_t
table_tag(const struct shape *s)
{
	return TABLE_TAG | (sched_shape_hash(s) >> 1);
}

/* A new value instance: (c, i)'s node in this iteration. */
static uint64_t
fresh(struct ident *st, int c, int i, int node)
{
	if (st->ntag + 1 >= st->captag) {
		st->captag = st->captag ? 2 * st->captag : 4096;
		st->tags = realloc(st->tags, sizeof *st->tags *
				   (size_t)st->captag);
		if (!st->tags)
			fail(st, INTERP_ERROR, "out of memory");
	}
	st->tags[++st->ntag] = (struct taginfo){c, i, node,
		st->depth ? st->iter[st->depth - 1] : 0};
	st->stats->values++;
	return (uint64_t)st->ntag;
}

/* What a tag names, for messages. */
static void
tag_text(const struct ident *st, uint64_t tag, char *buf, size_t n)
{
	const struct taginfo *ti;

	if (!tag) {
		snprintf(buf, n, "poison (no value)");
		return;
	}
	if (tag & TABLE_TAG) {
		snprintf(buf, n, "an index table");
		return;
	}
	ti = &st->tags[tag];
	snprintf(buf, n, "'%s' node %d (iteration %lld)",
		 st->m->comps[ti->c].instrs[ti->i].name, ti->node,
		 (long long)ti->iter);
}

/* ---- placement, as interp.c's buffer_at --------------------------------- */

static int64_t
cur_iter(const struct ident *st)
{
	return st->depth > 0 ? st->iter[st->depth - 1] : 0;
}

static int64_t
buffer_at(struct ident *st, int b, int slot, int64_t bytes, const char *who)
{
	const struct buffer *bf = &st->pl->bufs[b];
	int64_t room = bf->slots > 1 ? bf->stride : bf->size, at = st->base[b];

	if (bytes > room)
		fail(st, INTERP_DIFF, "%s: %lld bytes do not fit buffer '%s' "
		     "(%lld bytes)", who, (long long)bytes, bf->name,
		     (long long)room);
	if (bf->slots > 1 && slot < 0)
		slot = (int)((st->slotcomp[b] >= 0 ?
			      st->iter_of[st->slotcomp[b]] : cur_iter(st)) %
			     bf->slots);
	if (bf->slots > 1)
		at += slot % bf->slots * bf->stride;
	return at;
}

static const char *
buf_name(const struct ident *st, int c, int i, int node)
{
	return st->pl->bufs[st->pl->pos[st->s.posbase[c][i] + node].buf].name;
}

/* Reads bytes at `at`: they must hold tag. */
static void
check_read(struct ident *st, int64_t at, int64_t bytes, uint64_t tag,
	   const char *who, const char *what, const char *where)
{
	uint64_t got;
	char g[256], w[256];

	work(st, 1);
	st->stats->reads++;
	if (!bytes || !imap_check(&st->map, at, at + bytes, tag, &got))
		return;
	tag_text(st, got, g, sizeof g);
	tag_text(st, tag, w, sizeof w);
	fail(st, INTERP_DIFF, "'%s' reads %s in buffer '%s': its bytes hold "
	     "%s, not %s", who, what, where, g, w);
}

static void
write_tag(struct ident *st, int64_t at, int64_t bytes, uint64_t tag)
{
	work(st, 1);
	imap_write(&st->map, at, at + bytes, tag);
}

/* ---- per instruction, worked out once ----------------------------------- */

static void
node_shapes(const struct shape *s, const struct shape **out, int *k)
{
	out[(*k)++] = s;
	for (int e = 0; e < s->nelem; e++)
		node_shapes(&s->elems[e], out, k);
}

static const struct shape *const *
operand_shapes(struct ident *st, int c, int i, const struct shape **as)
{
	const struct comp *cp = &st->m->comps[c];
	const struct instr *in = &cp->instrs[i];

	for (int k = 0; k < in->nops; k++)
		as[k] = &cp->instrs[in->ops[k]].shape;
	return as;
}

/* Forwarded nodes and in-place pairs of (c, i), from contract.c. */
static void
instr_facts(struct ident *st, int c, int i)
{
	struct frame *f = &st->fr[c];
	const struct instr *in = &st->m->comps[c].instrs[i];
	const struct shape **as = alloc(st, sizeof *as *
					(size_t)(in->nops + 1));
	int n = shape_nodes(&in->shape), k, j, any = 0;

	operand_shapes(st, c, i, as);
	f->fwd[i] = alloc(st, sizeof(int) * (size_t)n);
	f->inplace[i] = alloc(st, sizeof(int) * (size_t)n);
	for (int node = 0; node < n; node++) {
		int op = opcode(in);

		f->fwd[i][node] = f->inplace[i][node] = -1;
		if (op != OP_PARAMETER && op != OP_CALL && op != OP_WHILE &&
		    op != OP_CONDITIONAL &&
		    contract_forward(in, as, node, &k, &j) && k < in->nops &&
		    j < shape_nodes(as[k]))
			f->fwd[i][node] = k << 16 | j;
		if (contract_in_place(st->m, in, as, node, &k, &j) &&
		    k < in->nops && j < shape_nodes(as[k]) && k < 1 << 14 &&
		    j < 1 << 16 && (st->pl->target != TARGET_TPU ||
				    shape_equal(f->ns[i][node],
						node_shape(as[k], j)))) {
			f->inplace[i][node] = k << 16 | j;
			any = 1;
		}
	}
	if (!any)
		f->inplace[i] = NULL;
}

/* ---- binding an instruction's nodes ------------------------------------- */

/* The value node `node` forwards and where it is, or 0 when it defines
 * one; a call forwards its callee's root, a parameter its argument. */
static uint64_t
forwarded(struct ident *st, int c, int i, int node, uint64_t **args,
	  int64_t *src)
{
	struct frame *f = &st->fr[c];
	const struct instr *in = &st->m->comps[c].instrs[i];
	int x = f->fwd[i][node];

	*src = -1;
	switch (opcode(in)) {
	case OP_PARAMETER:
		return c == st->m->entry ? 0 : args[in->param][node];
	case OP_CALL:
		return st->callroot[node];
	default:
		if (x < 0)
			return 0;
		*src = st->fr[c].addr[in->ops[x >> 16]][x & 0xffff];
		return st->fr[c].ref[in->ops[x >> 16]][x & 0xffff];
	}
}

/* Each node's place from its plan position, and whether it defines a
 * value (the plan must agree with XLA's dataflow for an array). */
static void
bind(struct ident *st, int c, int i, uint64_t **args)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->fr[c];
	int n = shape_nodes(&in->shape);

	for (int node = 0; node < n; node++) {
		const struct plan_pos *p = &st->pl->pos[st->s.posbase[c][i] +
							 node];
		const struct shape *s = f->ns[i][node];
		int64_t src, bytes = node_bytes(s);
		uint64_t v = forwarded(st, c, i, node, args, &src);
		int tuple = shape_is_tuple(s);

		if (!v != !!p->defines && !tuple)
			fail(st, INTERP_DIFF, "'%s' node %d: the plan says it "
			     "%s a value, XLA's dataflow that it %s", in->name,
			     node, p->defines ? "defines" : "forwards",
			     v ? "forwards" : "defines");
		f->defs[i][node] = (char)!!p->defines;
		f->addr[i][node] = buffer_at(st, p->buf, p->slot, bytes,
					     in->name);
		f->ref[i][node] = tuple ? table_tag(s) : v;
		if (v && src >= 0 && src != f->addr[i][node] &&
		    contract_is_done(in) && !tuple)
			fail(st, INTERP_DIFF, "'%s' node %d is its start's "
			     "bytes (XLA), but the plan puts it in buffer "
			     "'%s', elsewhere", in->name, node,
			     buf_name(st, c, i, node));
	}
}

/* ---- the plan's copies -------------------------------------------------- */

static void
do_copy(struct ident *st, int k)
{
	const struct plan_copy *pc = &st->pl->copies[k];
	int64_t s = buffer_at(st, pc->src, -1, pc->bytes, "a copy's source");
	int64_t d = buffer_at(st, pc->dst, -1, pc->bytes,
			      "a copy's destination");

	work(st, 1);
	st->stats->copies++;
	imap_move(&st->map, s, s + pc->bytes, d);
}

static void
step_copies(struct ident *st, int t, int after)
{
	for (int j = st->s.cfirst[t]; j < st->s.cfirst[t + 1]; j++) {
		int k = st->s.cidx[j];

		if (st->pl->copies[k].after == after && st->s.entry_of[k] < 0)
			do_copy(st, k);
	}
}

static void
entry_copies(struct ident *st, int pos)
{
	for (int k = 0; k < st->pl->ncopy; k++)
		if (st->s.entry_of[k] == pos)
			do_copy(st, k);
}

/* ---- running ------------------------------------------------------------ */

static uint64_t *run_comp(struct ident *st, int c, uint64_t **args);

/* The output node of (c, i) that updates operand k's node j in place,
 * or -1. */
static int
updated_by(const struct ident *st, int c, int i, int k, int j)
{
	int n = shape_nodes(&st->m->comps[c].instrs[i].shape);

	for (int node = 0; st->fr[c].inplace[i] && node < n; node++)
		if (st->fr[c].inplace[i][node] == (k << 16 | j))
			return node;
	return -1;
}

/* Operand k's node j as (c, i) reads it: at its producer's place, or at
 * the output's when the kernel updates it in place. */
static int64_t
operand_at(struct ident *st, int c, int i, int k, int j)
{
	int node = updated_by(st, c, i, k, j);

	if (node >= 0)
		return st->fr[c].addr[i][node];
	return st->fr[c].addr[st->m->comps[c].instrs[i].ops[k]][j];
}

static void
read_operand(struct ident *st, int c, int i, int k)
{
	struct frame *f = &st->fr[c];
	const struct instr *in = &st->m->comps[c].instrs[i];
	int x = in->ops[k], n = shape_nodes(&st->m->comps[c].instrs[x].shape);
	char what[300];

	for (int j = 0; j < n; j++) {
		int64_t at = operand_at(st, c, i, k, j);

		snprintf(what, sizeof what, "operand %d ('%s') node %d", k,
			 st->m->comps[c].instrs[x].name, j);
		check_read(st, at, node_bytes(f->ns[x][j]), f->ref[x][j],
			   in->name, what, buf_name(st, c, x, j));
	}
}

/* An output may not overlap what the op reads, but exactly over an
 * operand XLA lets it share (interp.c's check_overlap). */
static void
check_overlap(struct ident *st, int c, int i)
{
	struct frame *f = &st->fr[c];
	const struct instr *in = &st->m->comps[c].instrs[i];
	const struct shape **as = alloc(st, sizeof *as *
					(size_t)(in->nops + 1));
	int n = shape_nodes(&in->shape);

	operand_shapes(st, c, i, as);
	for (int node = 0; node < n; node++) {
		int64_t p = f->addr[i][node], pb = node_bytes(f->ns[i][node]);

		if (!f->defs[i][node] || !pb)
			continue;
		for (int k = 0; k < in->nops; k++) {
			int x = in->ops[k];

			for (int j = 0; j < shape_nodes(as[k]); j++) {
				int64_t q = operand_at(st, c, i, k, j);
				int64_t qb = node_bytes(f->ns[x][j]);

				if (!qb || p + pb <= q || q + qb <= p)
					continue;
				if (p == q && pb == qb &&
				    (contract_may_share(st->m, in, as, node,
							k, j) ||
				     opcode(in) == OP_ALL_REDUCE ||
				     opcode(in) == OP_DUS))
					continue;
				fail(st, INTERP_DIFF, "'%s' writes its buffer "
				     "'%s' over operand %d (%s), which it "
				     "reads", in->name,
				     buf_name(st, c, i, node), k,
				     st->m->comps[c].instrs[x].name);
			}
		}
	}
}

/* Every node the op defines takes a new value (an index table its
 * shape's tag). */
static void
write_defined(struct ident *st, int c, int i)
{
	struct frame *f = &st->fr[c];
	int n = shape_nodes(&st->m->comps[c].instrs[i].shape);

	for (int node = 0; node < n; node++) {
		const struct shape *s = f->ns[i][node];

		if (!f->defs[i][node])
			continue;
		if (!shape_is_tuple(s))
			f->ref[i][node] = fresh(st, c, i, node);
		write_tag(st, f->addr[i][node], node_bytes(s),
			  f->ref[i][node]);
	}
}

/* The tags over every operand node of (c, i), where it was made (as
 * interp.c's hash_args). */
static uint64_t
hash_args(struct ident *st, int c, int i)
{
	const struct comp *cp = &st->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	struct frame *f = &st->fr[c];
	uint64_t h = 1469598103934665603u;

	for (int k = 0; k < in->nops; k++) {
		int x = in->ops[k];

		for (int j = 0; j < shape_nodes(&cp->instrs[x].shape); j++) {
			int64_t at = f->addr[x][j];

			work(st, 1);
			h = imap_hash(&st->map, at, at +
				      node_bytes(f->ns[x][j]), h);
		}
	}
	return h;
}

/* A done: its start's operands (through any updates) as they were once
 * it ran. */
static void
check_inflight(struct ident *st, int c, int i)
{
	const struct comp *cp = &st->m->comps[c];
	int j;

	if (cp->instrs[i].nops < 1)
		return;
	for (j = cp->instrs[i].ops[0]; opcode(&cp->instrs[j]) ==
	     OP_ASYNC_UPDATE && cp->instrs[j].nops > 0;)
		j = cp->instrs[j].ops[0];
	if (sched_is_start(&cp->instrs[j]) &&
	    hash_args(st, c, j) != st->fr[c].inflight[j])
		fail(st, INTERP_DIFF, "'%s': an operand of '%s' changed while "
		     "it was in flight", cp->instrs[i].name,
		     cp->instrs[j].name);
}

static int
writes_nothing(struct ident *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];

	if (!contract_is_done(in))
		return 0;
	for (int node = 0; node < shape_nodes(&in->shape); node++)
		if (st->fr[c].defs[i][node] &&
		    !shape_is_tuple(st->fr[c].ns[i][node]))
			return 0;
	return 1;
}

static int64_t
loop_trips(struct ident *st, int c, int i)
{
	int l = st->trips_at[st->s.step[c][i]];

	if (l >= 0 && st->pl->loops[l].trips >= 0)
		return st->pl->loops[l].trips;
	return st->o.trips > 0 ? st->o.trips : DEFAULT_TRIPS;
}

/* A while: nothing moves (the plan shares the state's buffers); its trip
 * count the plan's, else o.trips; the condition's predicate is read. */
static void
run_while(struct ident *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->fr[c];
	int cond = sched_callee(st->m, in, "condition", 0);
	int body = sched_callee(st->m, in, "body", 1);
	int n = shape_nodes(&in->shape);
	int64_t trips = loop_trips(st, c, i);
	uint64_t *state = alloc(st, sizeof *state * (size_t)n), *r;
	uint64_t *args[1] = {state};

	memcpy(state, f->ref[in->ops[0]], sizeof *state * (size_t)n);
	entry_copies(st, st->s.posbase[c][i]);
	if (st->depth == MAXDEPTH || cond < 0 || body < 0 ||
	    !st->s.posbase[cond] || !st->s.posbase[body])
		fail(st, INTERP_SKIP, "'%s': loops nested over %d deep, or "
		     "a loop whose computations the plan does not place",
		     in->name, MAXDEPTH);
	st->iter[st->depth++] = 0;
	for (;;) {
		int root = st->m->comps[cond].root;

		st->iter_of[cond] = st->iter_of[body] = st->iter[st->depth - 1];
		r = run_comp(st, cond, args);
		check_read(st, st->fr[cond].addr[root][0], 1, r[0], in->name,
			   "its condition's predicate",
			   buf_name(st, cond, root, 0));
		if (st->iter[st->depth - 1] == trips)
			break;
		r = run_comp(st, body, args);
		memcpy(state, r, sizeof *state * (size_t)n);
		st->iter[st->depth - 1]++;
	}
	st->depth--;
	for (int node = 0; node < n; node++)
		if (!shape_is_tuple(f->ns[i][node]))
			f->ref[i][node] = state[node];
}

/* A conditional's branch: forced (o.branch >= 0), or a hash of the seed,
 * its name and how many times it ran. */
static int
pick_branch(struct ident *st, int c, int i, int nb)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	uint64_t h = st->o.seed ^ 0x9e3779b97f4a7c15u;

	if (st->o.branch >= 0)
		return st->o.branch < nb ? st->o.branch : nb - 1;
	for (const char *p = in->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	h = (h ^ (uint64_t)st->fr[c].runs[i]++) * 1099511628211u;
	return (int)((h >> 17) % (uint64_t)nb);
}

static void
run_conditional(struct ident *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->fr[c];
	const struct shape *ps = &st->m->comps[c].instrs[in->ops[0]].shape;
	int pred = ps->type == DT_PRED, k, b, n = shape_nodes(&in->shape);
	uint64_t *args[1], *r;

	read_operand(st, c, i, 0);
	k = pick_branch(st, c, i, pred ? 2 : in->ncall);
	if (pred)
		b = k == 0 ? sched_callee(st->m, in, "true_computation", 0) :
			sched_callee(st->m, in, "false_computation", 1);
	else
		b = in->calls[k];
	if (b < 0 || !st->s.posbase[b] || k + 1 >= in->nops + (in->nops == 0))
		fail(st, INTERP_SKIP, "'%s': a branch the plan does not "
		     "place", in->name);
	args[0] = f->ref[in->ops[k + 1]];
	r = run_comp(st, b, args);
	for (int node = 0; node < n; node++)
		if (!shape_is_tuple(f->ns[i][node]))
			f->ref[i][node] = r[node];
}

/* A constant: the runtime loaded its bytes before the run (the plan's
 * constants table, out of the arena); its step reads them.  Any other is
 * written at its step. */
static void
run_constant(struct ident *st, int c, int i)
{
	struct frame *f = &st->fr[c];
	int n = shape_nodes(&st->m->comps[c].instrs[i].shape);

	for (int node = 0; node < n; node++) {
		uint64_t t = st->const_tag[st->s.posbase[c][i] + node];

		if (!t || !f->defs[i][node])
			continue;
		f->ref[i][node] = t;
		f->defs[i][node] = 0;
		check_read(st, f->addr[i][node], node_bytes(f->ns[i][node]),
			   t, st->m->comps[c].instrs[i].name, "its constant",
			   buf_name(st, c, i, node));
	}
	write_defined(st, c, i);
}

/* What an op reads: every operand, but for those that only pass values
 * on (and a get-tuple-element its operand's table). */
static void
run_op(struct ident *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->fr[c];
	int x;

	switch (opcode(in)) {
	case OP_PARAMETER:
		if (c == st->m->entry)
			write_defined(st, c, i);
		return;
	case OP_TUPLE: case OP_BITCAST: case OP_OPT_BARRIER: case OP_CALL:
	case OP_ADD_DEPENDENCY: case OP_DOMAIN: case OP_ASYNC_UPDATE:
		write_defined(st, c, i);
		return;
	case OP_GTE:
		x = in->ops[0];
		check_read(st, f->addr[x][0], node_bytes(f->ns[x][0]),
			   f->ref[x][0], in->name, "its operand's index table",
			   buf_name(st, c, x, 0));
		return;
	case OP_CONSTANT: run_constant(st, c, i); return;
	case OP_WHILE: run_while(st, c, i); return;
	case OP_CONDITIONAL: run_conditional(st, c, i); return;
	default: break;
	}
	if (sched_is_done(in))
		check_inflight(st, c, i);
	if (writes_nothing(st, c, i))
		return;
	for (int k = 0; k < in->nops; k++)
		read_operand(st, c, i, k);
	check_overlap(st, c, i);
	write_defined(st, c, i);
	if (sched_is_start(in))
		st->fr[c].inflight[i] = hash_args(st, c, i);
}

static void
run_instr(struct ident *st, int c, int i, uint64_t **args)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->fr[c];

	work(st, 1);
	st->stats->steps++;
	if (opcode(in) == OP_PARAMETER && c == st->m->entry && st->filled)
		return;	/* filled before the run, as interp.c's */
	if (!f->fwd[i])
		instr_facts(st, c, i);
	if (opcode(in) == OP_CALL) {
		int d = sched_callee(st->m, in, "to_apply", 0);
		uint64_t **a = alloc(st, sizeof *a * (size_t)(in->nops + 1));

		if (d < 0 || !st->s.posbase[d])
			fail(st, INTERP_SKIP, "'%s': a call the plan does not "
			     "place", in->name);
		for (int k = 0; k < in->nops; k++)
			a[k] = f->ref[in->ops[k]];
		st->callroot = run_comp(st, d, a);
	}
	bind(st, c, i, args);
	run_op(st, c, i);
}

static void
run_step(struct ident *st, int c, int i, uint64_t **args)
{
	int t = st->s.step[c][i];

	step_copies(st, t, 0);
	run_instr(st, c, i, args);
	step_copies(st, t, 1);
}

static uint64_t *
run_comp(struct ident *st, int c, uint64_t **args)
{
	struct frame *f = &st->fr[c];
	const struct comp *cp = &st->m->comps[c];

	if (f->busy)
		fail(st, INTERP_SKIP, "'%s' runs inside itself", cp->name);
	f->busy = 1;
	for (int k = 0; k < st->s.norder[c]; k++)
		run_step(st, c, st->s.order[c][k], args);
	f->busy = 0;
	return f->ref[cp->root];
}

/* ---- setting up: buffers, loops and frames ------------------------------ */

/* The plan's loop of each while's step. */
static void
index_loops(struct ident *st)
{
	st->trips_at = alloc(st, sizeof(int) * (size_t)(st->s.nstep + 1));
	for (int t = 0; t <= st->s.nstep; t++)
		st->trips_at[t] = -1;
	for (int l = 0; l < st->pl->nloop; l++)
		if (st->pl->loops[l].step >= 0 &&
		    st->pl->loops[l].step < st->s.nstep)
			st->trips_at[st->pl->loops[l].step] = l;
}

/* One address space: each arena, then each buffer out of an arena, in a
 * region of its own; a slotted buffer's loop body (interp.c's rule). */
static void
place_buffers(struct ident *st)
{
	const struct plan *pl = st->pl;
	int64_t *abase = alloc(st, sizeof(int64_t) * (size_t)(pl->narena + 1));
	int64_t top = GAP;

	st->base = alloc(st, sizeof(int64_t) * (size_t)(pl->nbuf + 1));
	st->slotcomp = alloc(st, sizeof(int) * (size_t)(pl->nbuf + 1));
	for (int a = 0; a < pl->narena; a++) {
		abase[a] = top;
		top += pl->arenas[a].size + GAP;
	}
	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *bf = &pl->bufs[b];
		int a = 0;

		st->slotcomp[b] = -1;
		while (a < pl->narena && pl->arenas[a].space != bf->space)
			a++;
		if (bf->slots > 1 && (bf->stride < 0 || bf->slots > bf->size ||
				      bf->stride > bf->size / bf->slots))
			fail(st, INTERP_DIFF, "buffer '%s': %d slots of %lld "
			     "bytes overrun its %lld", bf->name, bf->slots,
			     (long long)bf->stride, (long long)bf->size);
		if (!bf->in_arena) {
			st->base[b] = top;
			top += bf->size + GAP;
			continue;
		}
		if (a == pl->narena || bf->offset < 0 || bf->size < 0 ||
		    bf->offset > pl->arenas[a].size - bf->size)
			fail(st, INTERP_DIFF, "buffer '%s' lies outside its "
			     "arena", bf->name);
		st->base[b] = abase[a] + bf->offset;
	}
	for (int k = 0; k < pl->npos; k++) {
		const struct plan_pos *p = &pl->pos[k];

		if (p->defines && pl->bufs[p->buf].slots > 1 &&
		    st->slotcomp[p->buf] < 0)
			st->slotcomp[p->buf] = p->comp;
	}
}

static void
setup_frames(struct ident *st)
{
	const struct module *m = st->m;

	st->fr = alloc(st, sizeof *st->fr * (size_t)m->ncomp);
	for (int c = 0; c < m->ncomp; c++) {
		const struct comp *cp = &m->comps[c];
		struct frame *f = &st->fr[c];
		size_t n = (size_t)cp->ninstr + 1;

		if (!st->s.posbase[c])
			continue;
		f->ref = alloc(st, sizeof *f->ref * n);
		f->addr = alloc(st, sizeof *f->addr * n);
		f->defs = alloc(st, sizeof *f->defs * n);
		f->ns = alloc(st, sizeof *f->ns * n);
		f->fwd = alloc(st, sizeof *f->fwd * n);
		f->inplace = alloc(st, sizeof *f->inplace * n);
		f->runs = alloc(st, sizeof *f->runs * n);
		f->inflight = alloc(st, sizeof *f->inflight * n);
		for (int i = 0; i < cp->ninstr; i++) {
			const struct shape *s = &cp->instrs[i].shape;
			size_t nn = (size_t)shape_nodes(s);
			int k = 0;

			f->ref[i] = alloc(st, sizeof(uint64_t) * nn);
			f->addr[i] = alloc(st, sizeof(int64_t) * nn);
			f->defs[i] = alloc(st, nn);
			f->ns[i] = alloc(st, sizeof(void *) * nn);
			node_shapes(s, f->ns[i], &k);
		}
	}
}

/* The runtime loads every constant the plan lists in a buffer out of
 * the arena before the run; one in the arena (the plan may give it an
 * output's buffer, which other values hold before it) is written at its
 * step, as interp.c writes every constant. */
static void
load_constants(struct ident *st)
{
	const struct plan *pl = st->pl;

	st->const_tag = alloc(st, sizeof(uint64_t) * (size_t)(pl->npos + 1));
	for (int k = 0; k < pl->nconst; k++) {
		const struct plan_const *pc = &pl->consts[k];
		const struct plan_pos *p;
		const struct shape *s;
		int64_t at;

		if (pc->pos < 0 || pc->pos >= pl->npos)
			fail(st, INTERP_ERROR, "constant %d: no position", k);
		p = &pl->pos[pc->pos];
		if (!st->s.posbase[p->comp] || p->slot >= 0 ||
		    pl->bufs[p->buf].slots > 1 || pl->bufs[p->buf].in_arena)
			continue;
		s = st->fr[p->comp].ns[p->instr][p->node];
		at = buffer_at(st, p->buf, -1, node_bytes(s), p->name);
		st->const_tag[pc->pos] = fresh(st, p->comp, p->instr, p->node);
		write_tag(st, at, node_bytes(s), st->const_tag[pc->pos]);
	}
}

/* The end: each output node holds its own value, and each parameter not
 * donated its own (when parameters survive the call). */
static void
check_end(struct ident *st)
{
	const struct comp *e = &st->m->comps[st->m->entry];
	struct frame *f = &st->fr[st->m->entry];
	int n = shape_nodes(&e->instrs[e->root].shape);
	char what[64];

	for (int node = 0; node < n; node++) {
		snprintf(what, sizeof what, "output node %d", node);
		check_read(st, f->addr[e->root][node],
			   node_bytes(f->ns[e->root][node]),
			   f->ref[e->root][node], "the result", what,
			   buf_name(st, st->m->entry, e->root, node));
	}
	for (int k = 0; st->o.params_survive && k < e->nparam; k++) {
		int i = e->params[k];

		if (sched_donated(st->m, k))
			continue;
		for (int node = 0; node < shape_nodes(&e->instrs[i].shape);
		     node++) {
			snprintf(what, sizeof what, "parameter %d node %d "
				 "(it survives the call)", k, node);
			check_read(st, f->addr[i][node],
				   node_bytes(f->ns[i][node]),
				   f->ref[i][node], "the end", what,
				   buf_name(st, st->m->entry, i, node));
		}
	}
}

/* The schedule's index takes the run's memory and stops it. */
static void *
sched_alloc(void *st, size_t n)
{
	return alloc(st, n);
}

static _Noreturn void
sched_fail(void *st, const char *msg)
{
	fail(st, INTERP_ERROR, "%s", msg);
}

static void
run(struct ident *st)
{
	const struct comp *e;

	sched_index(&st->s, st->m, st->pl, &(struct sched_env){st, sched_alloc,
							       sched_fail});
	st->iter_of = alloc(st, sizeof(int64_t) * (size_t)st->m->ncomp);
	index_loops(st);
	place_buffers(st);
	setup_frames(st);
	load_constants(st);
	e = &st->m->comps[st->m->entry];
	for (int k = 0; k < e->nparam; k++)
		run_instr(st, st->m->entry, e->params[k], NULL);
	st->filled = 1;
	run_comp(st, st->m->entry, NULL);
	check_end(st);
}

int
identity_run(const struct module *m, const struct plan *pl,
	     const struct ident_opts *o, struct ident_stats *s, char *msg,
	     size_t n)
{
	struct ident *st = calloc(1, sizeof *st);
	int status;

	memset(s, 0, sizeof *s);
	if (!st) {
		snprintf(msg, n, "out of memory");
		return INTERP_ERROR;
	}
	st->m = m;
	st->pl = pl;
	st->o = *o;
	st->stats = s;
	st->pool = pool_new();
	st->budget = o->budget > 0 ? o->budget : DEFAULT_BUDGET;
	st->map.rng = 12345;
	st->msg = msg;
	st->msglen = n;
	msg[0] = 0;
	if (m->entry < 0 || m->entry >= m->ncomp) {
		snprintf(msg, n, "no entry computation");
		st->status = INTERP_ERROR;
	} else if (setjmp(st->jb) == 0) {
		run(st);
	}
	status = st->status;
	s->maxranges = st->map.maxlive;
	free(st->map.t);
	free(st->tags);
	pool_free(st->pool);
	free(st);
	return status;
}

/* ---- trials ------------------------------------------------------------- */

/* Every branch pass of one plan by value identity: TRIAL_SAME, _DIFF,
 * _SKIP or _ERROR, why in t->why; the passes' figures added to *sum. */
int
identity_trial(struct trial *t, const struct module *m, const struct plan *pl,
	       int params_survive, struct ident_stats *sum)
{
	int npass = 1 + interp_branches(m);

	for (int j = 0; j < npass; j++) {
		struct ident_opts o = {.seed = t->seed, .branch = j - 1,
				       .trips = t->trips,
				       .budget = t->budget,
				       .params_survive = params_survive};
		struct ident_stats s;
		int r = identity_run(m, pl, &o, &s, t->why, sizeof t->why);

		sum->steps += s.steps;
		sum->reads += s.reads;
		sum->values += s.values;
		sum->copies += s.copies;
		if (s.maxranges > sum->maxranges)
			sum->maxranges = s.maxranges;
		if (r == INTERP_DIFF)
			return TRIAL_DIFF;
		if (r == INTERP_SKIP || r == INTERP_LIMIT)
			return TRIAL_SKIP;
		if (r != INTERP_OK)
			return TRIAL_ERROR;
	}
	return TRIAL_SAME;
}

static void
print_stats(struct trial *t, const char *name, const char *target,
	    const struct ident_stats *s)
{
	if (t->quiet)
		return;
	fprintf(t->out, "%s: %s: %s: clean by value identity: %lld steps, "
		"%lld reads, %lld values, %lld copies, at most %d ranges\n",
		t->file, name, target, (long long)s->steps,
		(long long)s->reads, (long long)s->values,
		(long long)s->copies, s->maxranges);
}

/* The module of plan p: the file's plans follow its modules, a plan per
 * target, and names may repeat (// -----): the current module while its
 * name matches and the target is new to it, else the next of that name.
 * *cur and *seen (targets' bits) carry from plan to plan. */
static int
module_of(const struct hlofile *f, const struct jv *p, int *cur, int *seen)
{
	const struct jv *mv = json_get(p, "module");
	const struct jv *tv = json_get(p, "target");
	const char *name = mv->kind == JV_STR ? mv->str : "";
	int bit = tv->kind == JV_STR && !strcmp(tv->str, "tpu") ? 2 : 1;

	if (*cur >= 0 && !strcmp(f->mods[*cur].name, name) && !(*seen & bit)) {
		*seen |= bit;
		return *cur;
	}
	for (int k = *cur + 1; k < f->nmod; k++)
		if (!strcmp(f->mods[k].name, name)) {
			*cur = k;
			*seen = bit;
			return k;
		}
	return -1;
}

/* Plan k of the file on its module (flattened as hloplan does before it
 * plans): a TRIAL_* status, reported. */
static int
json_plan(struct trial *t, struct pool *pool, struct hlofile *f,
	  const struct jv *root, int k, int mod)
{
	struct ident_stats sum = {0};
	struct plan pl;
	int r;

	if (mod < 0) {
		fprintf(t->out, "%s: plan %d: error: no module of its name\n",
			t->file, k);
		return TRIAL_ERROR;
	}
	if (plan_from_jv(pool, &f->mods[mod], root, k, &pl, t->why,
			 sizeof t->why) < 0) {
		fprintf(t->out, "%s: %s: error: %s\n", t->file,
			f->mods[mod].name, t->why);
		return TRIAL_ERROR;
	}
	r = identity_trial(t, &f->mods[mod], &pl, 1, &sum);
	if (r == TRIAL_SAME)
		print_stats(t, f->mods[mod].name, pl.target == TARGET_TPU ?
			    "tpu" : "gpu", &sum);
	else
		fprintf(t->out, "%s: %s: %s: %s: %s\n", t->file,
			f->mods[mod].name, pl.target == TARGET_TPU ? "tpu" :
			"gpu", r == TRIAL_DIFF ? "DIFFERS" : r == TRIAL_SKIP ?
			"refused" : "error", t->why);
	return r;
}

static char *
slurp_path(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1)) &&
	    fread(s, 1, (size_t)n, f) == (size_t)n) {
		s[n] = 0;
		*len = (size_t)n;
	} else {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

int
identity_json(struct trial *t, const char *text, size_t len, const char *json)
{
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = t->file, .src = text,
			   .srclen = len};
	struct hlofile *f = frontend_parse(pool, text, len, &ds);
	size_t jlen;
	char *js = slurp_path(json, &jlen);
	struct jv root;
	int worst = TRIAL_SAME, np, cur = -1, seen = 0;
	static const int rank[] = {
		[TRIAL_SAME] = 0, [TRIAL_SKIP] = 1, [TRIAL_REFUSED] = 1,
		[TRIAL_ERROR] = 2, [TRIAL_DIFF] = 3,
	};

	if (ds.n || !js || json_read(pool, js, jlen, &root, t->why,
				     sizeof t->why) < 0) {
		if (ds.n)
			diag_print(&ds, stderr);
		else
			fprintf(stderr, "%s: %s\n", json, js ? t->why :
				"cannot read it");
		free(js);
		pool_free(pool);
		return TRIAL_ERROR;
	}
	free(js);
	for (int k = 0; k < f->nmod; k++)
		if (flatten_calls(pool, &ds, &f->mods[k]) < 0) {
			diag_print(&ds, stderr);
			pool_free(pool);
			return TRIAL_ERROR;
		}
	np = json_get(&root, "plans")->kind == JV_ARR ?
	     json_get(&root, "plans")->n : 0;
	if (!np)
		fprintf(stderr, "%s: no plans\n", json);
	for (int k = 0; k < np; k++) {
		const struct jv *p = &json_get(&root, "plans")->items[k];
		int r = json_plan(t, pool, f, &root, k,
				  module_of(f, p, &cur, &seen));

		if (rank[r] > rank[worst])
			worst = r;
	}
	pool_free(pool);
	return np ? worst : TRIAL_ERROR;
}

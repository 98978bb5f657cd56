/* The plan run symbolically (doc/model.md): every byte of every
 * arena holds a tag naming the value last written there, and every read
 * checks that the bytes where the plan says the value is hold its tag.
 * From the IR, the plan's steps, places and copies only: nothing of the
 * passes' values, liveness or copies.  A read is what XLA's live ranges
 * count as a use: an operand, a ROOT element at its computation's end, a
 * copy's source, the entry's result, an async start's operands at its
 * done; a forward is none.  Loops run a few abstract iterations (zero
 * trips, the first, steady ones, each a possible last), each state
 * element a variable of its own; each branch of a conditional runs from
 * the same state, and what any of them wrote is clobbered after it, but
 * for the result where every branch left it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/verifier.h"
#include "checker/verify.h"
#include "ir/ir.h"

/* The planner refuses exactly what this run cannot follow (plan.h). */
_Static_assert(PLAN_MAX_BYTES == (int64_t)VM_MAX_OFFSET - 1,
	       "PLAN_MAX_BYTES is the verifier's last offset");

enum { TAG_VALUE, TAG_TABLE, TAG_POISON };

/* What a tag stands for: a value written by position pos at a step and
 * iteration, a tuple index table (its contents depend on its shape only),
 * or bytes clobbered by a loop or a branch (pos: the while or
 * conditional, why: how). */
struct tag {
	int64_t bytes;		/* a value's: as written (a reader checks no
				   more: beyond them a wider layout pads) */
	uint32_t parent;	/* a loop state element's: the value it
				   starts as (0: none) */
	int pos;
	int32_t step, iter;
	uint8_t kind;
	uint8_t why;		/* a poison's: an index in whys[] */
};

static const char *const whys[] = {
	"", "written in the loop", "written in a branch",
	"not where the loop keeps its state when it exits",
	"not where the conditional's result is after a branch",
};

enum { WHY_NONE, WHY_LOOP, WHY_BRANCH, WHY_STATE, WHY_RESULT };

struct vr {
	const struct module *m;
	const struct options *o;
	const struct plan *pl;
	int **posbase;		/* [c][i]: first position; NULL: a kernel's */
	int **stepof;		/* [c][i]: its step */
	int **order;		/* [c]: instructions by step */
	int *norder;
	int nstep;
	int *comp_of_pos, *instr_of_pos;	/* per position */
	const struct shape **nshape;	/* per position: the node's shape */
	int *nsub;		/* per position: the nodes of its subtree */
	int64_t *nbytes;	/* per position: bytes read and written */
	uint32_t *cur;		/* per position: the tag it holds now */
	int *region;		/* per buffer */
	int *slotcomp;		/* per slotted buffer: where it is made */
	int *readonly;		/* per buffer: 1 constant, 2 caller's param */
	int *cfirst, *cidx;	/* step t's copies: cidx[cfirst[t] ..] */
	int *entry_of;		/* per copy: the while position it enters */
	int64_t *iter_of;	/* per computation: its loop's iteration */
	int64_t iters[256];	/* the loops running, innermost last */
	int depth;
	int *kslots;		/* per computation: the most slots of a
				   buffer whose values it makes, or 0 */
	int nest;		/* branches and loops whose writes count */
	int32_t now;		/* the step running */
	struct tag *tags;
	uint32_t ntag, captag;
	uint64_t *tabkey;	/* table tags by shape hash: open addressing */
	uint32_t *tabtag;
	size_t ntab;
	struct vm_piece *tmp;	/* a loop's or branch's writes, merged */
	size_t captmp;
	struct vmap *mem;
	struct verify_span *span;	/* per tag, when asked for: where it
					   was written, when, its last read */
	int64_t clock;		/* reads and writes so far */
	int path, npath, cappath;	/* the branch run now, and each
					   one's parent (spans only) */
	int *parent;
	char *err;
	size_t errlen;
	jmp_buf jb;
	void **live;		/* what vr_alloc gave and vr_free did not
				   take back: freed at the end, failed or not */
	int nlive, caplive;
};

static void *
vr_alloc(struct vr *v, size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	if (v->nlive == v->caplive) {
		v->caplive = v->caplive ? 2 * v->caplive : 256;
		v->live = realloc(v->live, sizeof *v->live *
					   (size_t)v->caplive);
		if (!v->live)
			abort();
	}
	v->live[v->nlive++] = p;
	return p;
}

/* Frees p early; the latest allocations are found first. */
static void
vr_free(struct vr *v, void *p)
{
	for (int k = v->nlive - 1; k >= 0; k--)
		if (v->live[k] == p) {
			free(p);
			v->live[k] = v->live[--v->nlive];
			return;
		}
}

static _Noreturn void vr_fail(struct vr *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static _Noreturn void
vr_fail(struct vr *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errlen, fmt, ap);
	va_end(ap);
	longjmp(v->jb, 1);
}

static int
opcode(const struct instr *in)
{
	return in->op ? in->op->op : OP_OTHER;
}

static const char *
opname(const struct instr *in)
{
	return in->op ? in->op->name : "";
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* ---- shapes, without the passes' helpers ------------------------------- */

static int
nodes_of(const struct shape *s)
{
	int n = 1;

	for (int e = 0; e < s->nelem; e++)
		n += nodes_of(&s->elems[e]);
	return n;
}

/* Fills out[] with the shape of each preorder node of s from *node on,
 * and nsub[] with the nodes of each one's subtree. */
static int
fill_nodes(const struct shape *s, const struct shape **out, int *nsub,
	   int *node)
{
	int me = (*node)++, n = 1;

	out[me] = s;
	for (int e = 0; e < s->nelem; e++)
		n += fill_nodes(&s->elems[e], out, nsub, node);
	nsub[me] = n;
	return n;
}

/* "{1,0}" for a node's shape index; "" for node 0. */
static void
node_path(const struct shape *s, int node, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	while (node > 0 && shape_is_tuple(s)) {
		int e = 0, at = 1;

		while (e + 1 < s->nelem && at + nodes_of(&s->elems[e]) <= node)
			at += nodes_of(&s->elems[e++]);
		len += (size_t)snprintf(buf + len, len < n ? n - len : 0,
					"%s%d", len ? "," : "{", e);
		node -= at;
		s = &s->elems[e];
		if (len >= n)
			break;
	}
	if (len && len + 1 < n)
		strcat(buf, "}");
}

static uint64_t
shape_hash(const struct shape *s)
{
	uint64_t h = 1469598103934665603u ^ (uint64_t)s->type;

	h = (h ^ (uint64_t)s->rank) * 1099511628211u;
	for (int k = 0; k < s->rank; k++)
		h = (h ^ (uint64_t)s->dims[k]) * 1099511628211u;
	for (int k = 0; k < s->nelem; k++)
		h = (h ^ shape_hash(&s->elems[k])) * 1099511628211u;
	return h | 1;
}

/* ---- tags ---------------------------------------------------------------- */

static uint32_t
new_tag(struct vr *v, int kind, int pos, int why)
{
	if (v->ntag == v->captag) {
		v->captag = v->captag ? 2 * v->captag : 4096;
		v->tags = realloc(v->tags, sizeof *v->tags * v->captag);
		if (!v->tags)
			abort();
		if (v->span && !(v->span = realloc(v->span, sizeof *v->span *
							     v->captag)))
			abort();
	}
	if (v->span)
		v->span[v->ntag] = (struct verify_span){-1, 0, 0, 0, -1,
							v->path, 0};
	v->tags[v->ntag] = (struct tag){
		kind == TAG_VALUE && pos >= 0 ? v->nbytes[pos] : INT64_MAX, 0,
		pos, v->now, v->depth ? (int32_t)v->iters[v->depth - 1] : 0,
		(uint8_t)kind, (uint8_t)why};
	return v->ntag++;
}

/* The tag of a table of shape s: one per shape, as its contents are. */
static uint32_t
table_tag(struct vr *v, const struct shape *s)
{
	uint64_t h = shape_hash(s);
	size_t k = (size_t)(h % v->ntab);

	while (v->tabkey[k] && v->tabkey[k] != h)
		k = (k + 1) % v->ntab;
	if (!v->tabkey[k]) {
		v->tabkey[k] = h;
		v->tabtag[k] = new_tag(v, TAG_TABLE, -1, WHY_NONE);
	}
	return v->tabtag[k];
}

/* ---- naming what went wrong --------------------------------------------- */

/* " (x.py:12, jit(f)/dot)" after an instruction's name, when known. */
static const char *
source_note(const struct instr *in, char *buf, size_t n)
{
	char w[160];

	src_where(w, sizeof w, in->src_file, in->src_line, in->op_name);
	snprintf(buf, n, "%s%s%s", w[0] ? " (" : "", w, w[0] ? ")" : "");
	return buf;
}

static void
pos_name(const struct vr *v, int pos, char *buf, size_t n)
{
	const struct comp *c = &v->m->comps[v->comp_of_pos[pos]];
	const struct instr *in = &c->instrs[v->instr_of_pos[pos]];
	char path[96], src[168];

	node_path(&in->shape, v->pl->pos[pos].node, path, sizeof path);
	snprintf(buf, n, "%s/%s%s%s", c->name, in->name, path,
		 source_note(in, src, sizeof src));
}

static void
tag_name(const struct vr *v, uint32_t t, char *buf, size_t n)
{
	const struct tag *g = &v->tags[t];
	char w[256];

	if (t == 0) {
		snprintf(buf, n, "nothing written yet");
		return;
	}
	if (g->kind == TAG_TABLE) {
		snprintf(buf, n, "a tuple index table of another shape");
		return;
	}
	pos_name(v, g->pos, w, sizeof w);
	if (g->kind == TAG_POISON)
		snprintf(buf, n, "bytes %s by '%s' (step %d)", whys[g->why],
			 w, g->step);
	else
		snprintf(buf, n, "'%s' (written at step %d, iteration %lld)",
			 w, g->step, (long long)g->iter);
}

/* ---- where a position's bytes are --------------------------------------- */

static int64_t
cur_iter(const struct vr *v)
{
	return v->depth ? v->iters[v->depth - 1] : 0;
}

/* The address of buffer b's first byte (slot 0). */
static uint64_t
buf_base(const struct vr *v, int b)
{
	const struct buffer *bf = &v->pl->bufs[b];

	return ((uint64_t)v->region[b] << VM_REGION_SHIFT) +
	       (bf->in_arena ? (uint64_t)bf->offset : 0);
}

/* The address of buffer b in slot `slot`, or (slot < 0) in the slot of
 * the current iteration of the loop its values are made in. */
static uint64_t
slot_where(const struct vr *v, int b, int64_t slot)
{
	const struct buffer *bf = &v->pl->bufs[b];

	if (bf->slots <= 1)
		return buf_base(v, b);
	if (slot < 0)
		slot = v->slotcomp[b] >= 0 ? v->iter_of[v->slotcomp[b]] :
					     cur_iter(v);
	return buf_base(v, b) +
	       (uint64_t)(slot % bf->slots) * (uint64_t)bf->stride;
}

/* Where position pos's bytes are now. */
static uint64_t
where(const struct vr *v, int pos)
{
	return slot_where(v, v->pl->pos[pos].buf, v->pl->pos[pos].slot);
}

/* ---- reads and writes --------------------------------------------------- */

/* The value a tag names the bytes of: a loop state element that has not
 * changed since it started holds the bytes of what it started as. */
static uint32_t
first_value(const struct vr *v, uint32_t t)
{
	while (v->tags[t].parent)
		t = v->tags[t].parent;
	return t;
}

/* Does tag `found` hold the value `want`: it, or loop state elements
 * that start as one value and have not changed since (a state element
 * that changes takes a tag of its own)? */
static int
same_value(const struct vr *v, uint32_t found, uint32_t want)
{
	return first_value(v, found) == first_value(v, want);
}

struct want {
	const struct vr *v;
	uint32_t tag;
	struct vm_piece bad;
};

static int
is_wanted(void *arg, const struct vm_piece *p)
{
	struct want *w = arg;

	if (p->tag == w->tag || (p->tag && same_value(w->v, p->tag, w->tag)))
		return 0;
	w->bad = *p;
	return 1;
}

/* Do bytes [a, a+n) all hold tag t? */
static int
holds(const struct vr *v, uint64_t a, int64_t n, uint32_t t,
      struct vm_piece *bad)
{
	struct want w = {v, t, {0, 0, 0}};
	int r = vm_visit(v->mem, a, a + (uint64_t)n, is_wanted, &w);

	if (r && bad)
		*bad = w.bad;
	return !r;
}

/* Who reads or writes, named only when a message needs it: the
 * instruction at a position, the caller (WHO_RESULT), plan copy k
 * (WHO_COPY(k)); WHO_NONE writes where nothing else may. */
enum { WHO = 320, WHO_NONE = -1, WHO_RESULT = -2, WHO_ENDS = 1 << 30,
       WHO_KEPT = WHO_ENDS - 1 };
#define WHO_COPY(k) (-3 - (k))
#define WHO_END(c) (WHO_ENDS + (c))	/* computation c's end */

static const char *
who_str(const struct vr *v, int who, char *buf)
{
	const struct plan_copy *pc;

	if (who == WHO_KEPT) {
		snprintf(buf, WHO, "the caller after the call (a parameter "
			 "not donated survives it)");
	} else if (who >= WHO_ENDS) {
		snprintf(buf, WHO, "the end of '%s' (its ROOT)",
			 v->m->comps[who - WHO_ENDS].name);
	} else if (who >= 0) {
		const struct comp *c = &v->m->comps[v->comp_of_pos[who]];
		const struct instr *in = &c->instrs[v->instr_of_pos[who]];
		char src[168];

		snprintf(buf, WHO, "'%s/%s'%s", c->name, in->name,
			 source_note(in, src, sizeof src));
	} else if (who == WHO_RESULT) {
		snprintf(buf, WHO, "the entry's result");
	} else if (who <= WHO_COPY(0)) {
		pc = &v->pl->copies[-3 - who];
		snprintf(buf, WHO, "the copy of '%s' into '%s'",
			 v->pl->bufs[pc->src].name, v->pl->bufs[pc->dst].name);
	} else {
		snprintf(buf, WHO, "the runtime");
	}
	return buf;
}

/* Fails with a message that starts with who's name. */
static _Noreturn void vr_failw(struct vr *v, int who, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static _Noreturn void
vr_failw(struct vr *v, int who, const char *fmt, ...)
{
	char w[WHO];
	size_t n;
	va_list ap;

	who_str(v, who, w);
	n = (size_t)snprintf(v->err, v->errlen, "%s", w);
	va_start(ap, fmt);
	if (n < v->errlen)
		vsnprintf(v->err + n, v->errlen - n, fmt, ap);
	va_end(ap);
	longjmp(v->jb, 1);
}

static _Noreturn void
not_intact(struct vr *v, int pos, uint32_t t, int who,
	   const struct vm_piece *bad)
{
	char val[256], was[320], w[WHO];
	const struct buffer *b = &v->pl->bufs[v->pl->pos[pos].buf];
	uint64_t mask = VM_MAX_OFFSET - 1;

	tag_name(v, t, val, sizeof val);
	tag_name(v, bad->tag, was, sizeof was);
	vr_fail(v, "%s at step %d (iteration %lld) reads %s from buffer '%s' "
		"(S(%d)%s), but bytes [%llu, %llu) there hold %s",
		who_str(v, who, w), v->now,
		(long long)cur_iter(v), val, b->name, b->space,
		b->in_arena ? "" : ", out of the arena",
		(unsigned long long)(bad->lo & mask),
		(unsigned long long)(bad->hi & mask), was);
}

/* The value at position pos is read now, where the plan says it is. */
/* Tag t is read at address a: where it was first written, its span
 * grows (a copy of it elsewhere has a span of its own making). */
static void
read_at(struct vr *v, uint32_t t, uint64_t a)
{
	struct verify_span *s = v->span ? &v->span[t] : NULL;

	if (s && s->buf >= 0 && !s->closed &&
	    a == buf_base(v, s->buf) + (uint64_t)s->at)
		s->last = v->clock++;
}

/* Tag t is written at address a: at its own place again, its span ends. */
static void
rewritten_at(struct vr *v, uint32_t t, uint64_t a)
{
	struct verify_span *s = v->span ? &v->span[t] : NULL;

	if (s && s->buf >= 0 && a == buf_base(v, s->buf) + (uint64_t)s->at)
		s->closed = 1;
}

/* The bytes of tag t that position pos reads. */
static int64_t
read_len(const struct vr *v, int pos, uint32_t t)
{
	return v->nbytes[pos] < v->tags[t].bytes ? v->nbytes[pos] :
						   v->tags[t].bytes;
}

static void
need_at(struct vr *v, int pos, uint64_t a, uint32_t t, int who)
{
	struct vm_piece bad;
	int64_t n = read_len(v, pos, t);

	if (n > 0 && !holds(v, a, n, t, &bad))
		not_intact(v, pos, t, who, &bad);
	if (n > 0)
		read_at(v, t, a);
}

static void
need(struct vr *v, int pos, int who)
{
	need_at(v, pos, where(v, pos), v->cur[pos], who);
}

static void
need_all(struct vr *v, int base, int who)
{
	int n = v->nsub[base];

	for (int node = 0; node < n; node++)
		need(v, base + node, who);
}

/* Bytes written by anyone but the runtime's caller must be writable. */
static void
check_writable(struct vr *v, int b, int who)
{
	char w[WHO];

	if (v->readonly[b])
		vr_fail(v, "%s at step %d writes buffer '%s', which %s",
			who_str(v, who, w),
			v->now, v->pl->bufs[b].name, v->readonly[b] == 1 ?
			"holds a constant" : "is the caller's parameter "
			"(not donated by input_output_alias)");
}

static void
put(struct vr *v, int pos, uint32_t t, int who)
{
	uint64_t a = where(v, pos);

	v->cur[pos] = t;
	if (v->nbytes[pos] <= 0)
		return;
	if (who != WHO_NONE)
		check_writable(v, v->pl->pos[pos].buf, who);
	rewritten_at(v, t, a);
	vm_assign(v->mem, a, a + (uint64_t)v->nbytes[pos], t);
	if (v->span && v->span[t].buf < 0 && v->tags[t].kind == TAG_VALUE) {
		const struct plan_pos *p = &v->pl->pos[pos];

		v->span[t] = (struct verify_span){
			p->buf, (int64_t)(a - buf_base(v, p->buf)),
			v->nbytes[pos], v->clock++, -1, v->path, 0};
	}
}

/* A new value at pos, or the table of its shape. */
static void
define(struct vr *v, int pos, int who)
{
	const struct shape *s = v->nshape[pos];

	put(v, pos, shape_is_tuple(s) ? table_tag(v, s) :
		    new_tag(v, TAG_VALUE, pos, WHY_NONE), who);
}

/* Position dst holds what src holds: the same bytes (checked where it is
 * read: a forward is no use, as in XLA's live ranges).  A plan that gives
 * an array there bytes of its own is refused: XLA's op writes nothing
 * there, so nothing would fill them (a tuple's index table, which the
 * runtime fills, may be its own). */
static void
forward(struct vr *v, int dst, int src, int who)
{
	if (v->pl->pos[dst].defines && !shape_is_tuple(v->nshape[dst]))
		vr_failw(v, who, ": the plan gives its node %d bytes of its "
			 "own, but XLA's op writes nothing there: it hands on "
			 "what its operand holds", dst - v->posbase[
				 v->comp_of_pos[dst]][v->instr_of_pos[dst]]);
	if (v->pl->pos[dst].defines) {
		need(v, src, who);
		put(v, dst, v->cur[src], who);
	}
	v->cur[dst] = v->cur[src];
}

static void
forward_tree(struct vr *v, int dst, int src, int n, int who)
{
	for (int node = 0; node < n; node++)
		forward(v, dst + node, src + node, who);
}



/* ---- copies the plan lists ---------------------------------------------- */

struct copied {
	uint64_t from, to;
	uint32_t tag;
	int mixed;
	const struct vr *v;
};

/* (Loop states that start as a value and hold it still are that value:
 * a copy of their bytes is a copy of it.) */
static int
first_tag(void *arg, const struct vm_piece *p)
{
	struct copied *c = arg;
	uint32_t t = p->tag ? first_value(c->v, p->tag) : 0;

	if (p->lo == c->from)
		c->tag = t;
	else if (t != c->tag)
		c->mixed = 1;
	return 0;
}

/* The runtime copies bytes from src to dst: dst holds whatever src held
 * (one value, or bytes of several that nothing may read whole). */
static void
do_copy(struct vr *v, int k)
{
	const struct plan_copy *pc = &v->pl->copies[k];
	struct copied c = {slot_where(v, pc->src, -1),
			   slot_where(v, pc->dst, -1), 0, 0, v};

	if (pc->bytes <= 0)
		return;
	check_writable(v, pc->dst, WHO_COPY(k));
	vm_visit(v->mem, c.from, c.from + (uint64_t)pc->bytes, first_tag, &c);
	if (c.mixed)
		c.tag = new_tag(v, TAG_POISON, -1, WHY_NONE);
	else
		read_at(v, c.tag, c.from);
	rewritten_at(v, c.tag, c.to);
	vm_assign(v->mem, c.to, c.to + (uint64_t)pc->bytes, c.tag);
}

static void
step_copies(struct vr *v, int32_t t, int after)
{
	for (int j = v->cfirst[t]; j < v->cfirst[t + 1]; j++) {
		int k = v->cidx[j];

		if (v->pl->copies[k].after == after && v->entry_of[k] < 0)
			do_copy(v, k);
	}
}

/* ---- clobbering what a loop or the branches wrote ----------------------- */

/* Appends the ranges written since mark to v->tmp[*n..]. */
static void
collect_writes(struct vr *v, size_t mark, size_t *n)
{
	size_t k;
	const struct vm_piece *j = vm_journal(v->mem, mark, &k);

	if (*n + k > v->captmp) {
		v->captmp = 2 * (*n + k) + 1024;
		v->tmp = realloc(v->tmp, sizeof *v->tmp * v->captmp);
		if (!v->tmp)
			abort();
	}
	for (size_t i = 0; i < k; i++)
		if (j[i].tag == VM_WRITTEN)
			v->tmp[(*n)++] = j[i];
}

/* The ranges in v->tmp[0..n) are clobbered (tag t) from now on: each
 * once (a loop writes the same ranges in every iteration), in the order
 * written. */
static void
clobber(struct vr *v, size_t n, uint32_t t)
{
	size_t cap = 1, h;
	uint32_t *seen;

	while (cap < 2 * n)
		cap *= 2;
	seen = vr_alloc(v, sizeof *seen * cap);	/* index + 1 per slot */
	for (size_t k = 0; k < n; k++) {
		const struct vm_piece *p = &v->tmp[k];

		h = (size_t)((p->lo * 0x9e3779b97f4a7c15u) ^
			     (p->hi * 0xc2b2ae3d27d4eb4fu)) >> 7;
		for (h &= cap - 1; seen[h]; h = (h + 1) & (cap - 1))
			if (v->tmp[seen[h] - 1].lo == p->lo &&
			    v->tmp[seen[h] - 1].hi == p->hi)
				break;
		if (seen[h])
			continue;
		seen[h] = (uint32_t)k + 1;
		vm_assign(v->mem, p->lo, p->hi, t);
	}
	vr_free(v, seen);
}

/* ---- running computations ----------------------------------------------- */

static void run_comp(struct vr *v, int c, const int *args);

static int
callee(const struct instr *in, const char *key)
{
	for (int j = 0; j < in->ncall; j++)
		if (!strcmp(in->callkey[j], key))
			return in->calls[j];
	return -1;
}

static int
root_pos(struct vr *v, int d, int who)
{
	const struct comp *dc = &v->m->comps[d];

	if (!v->posbase[d] || dc->root < 0 || v->posbase[d][dc->root] < 0)
		vr_failw(v, who, " runs '%s', which the plan does not list",
			 dc->name);
	return v->posbase[d][dc->root];
}

/* Results of a loop or a conditional: per node, the tag every exit
 * agrees on (or a new one), and whether every exit left it in place. */
struct exits {
	uint32_t *first;
	char *same, *ok;
};

static void
exits_init(struct vr *v, struct exits *x, int n)
{
	x->first = vr_alloc(v, sizeof *x->first * (size_t)n);
	x->same = vr_alloc(v, (size_t)n);
	x->ok = vr_alloc(v, (size_t)n);
	memset(x->same, 1, (size_t)n);
	memset(x->ok, 1, (size_t)n);
}

static void
exits_free(struct vr *v, struct exits *x)
{
	vr_free(v, x->first);
	vr_free(v, x->same);
	vr_free(v, x->ok);
}

/* One exit: position base's nodes should hold tags t[] where they are. */
static void
exits_see(struct vr *v, struct exits *x, int e, int base, const uint32_t *t,
	  int n)
{
	for (int node = 0; node < n; node++) {
		if (e == 0)
			x->first[node] = t[node];
		else if (t[node] != x->first[node])
			x->same[node] = 0;
		if (x->ok[node] && read_len(v, base + node, t[node]) > 0 &&
		    !holds(v, where(v, base + node),
			   read_len(v, base + node, t[node]), t[node], NULL))
			x->ok[node] = 0;
	}
}

/* After the exits: what they wrote is clobbered, and each result node
 * holds its tag where every exit left it. */
static void
exits_finish(struct vr *v, struct exits *x, size_t nw, int base, int n,
	     int clobbered, int misplaced)
{
	clobber(v, nw, new_tag(v, TAG_POISON, base, clobbered));
	for (int node = 0; node < n; node++) {
		uint32_t t = x->same[node] ? x->first[node] :
			     shape_is_tuple(v->nshape[base + node]) ?
			     table_tag(v, v->nshape[base + node]) :
			     new_tag(v, TAG_VALUE, base + node, WHY_NONE);

		/* (where every exit left it and nothing clobbered it since,
		   no write) */
		if (!x->ok[node] || read_len(v, base + node, t) <= 0 ||
		    !holds(v, where(v, base + node), read_len(v, base + node, t),
			   t, NULL))
			put(v, base + node, x->ok[node] ? t :
				new_tag(v, TAG_POISON, base + node, misplaced),
			    WHO_NONE);
		v->cur[base + node] = t;
	}
}

/* Abstract iterations of a loop: the first and a steady one (which reads
 * what the first left), and enough that every slot of a buffer streamed
 * through it is written again once; each may be the last, and zero trips
 * too. */
static int
iterations(const struct vr *v, int cond, int body)
{
	int k = 2;

	if (v->kslots[cond] + 1 > k)
		k = v->kslots[cond] + 1;
	if (v->kslots[body] + 1 > k)
		k = v->kslots[body] + 1;
	return k;
}

/* The loop's state starts as its init: each array element a variable of
 * its own (a tag whose parent is the init's value), so that two elements
 * that start as one value are still told apart, but where the plan puts
 * them in one place (the planner's one value, XLA's phi of one input);
 * the bytes where the state is take its tag when they hold the init. */
static void
enter_state(struct vr *v, int w, int init, int n)
{
	for (int node = 0; node < n; node++) {
		uint32_t t = v->cur[init + node], phi;

		if (shape_is_tuple(v->nshape[w + node])) {
			v->cur[w + node] = t;
			continue;
		}
		phi = 0;
		for (int k = 0; k < node && !phi; k++)	/* one value, one
							   place: one state */
			if (v->cur[init + k] == t &&
			    !shape_is_tuple(v->nshape[w + k]) &&
			    where(v, w + k) == where(v, w + node) &&
			    v->nbytes[w + k] == v->nbytes[w + node])
				phi = v->cur[w + k];
		if (phi) {
			v->cur[w + node] = phi;
			continue;
		}
		phi = new_tag(v, TAG_VALUE, w + node, WHY_NONE);
		v->tags[phi].parent = t;
		if (read_len(v, w + node, t) > 0 &&
		    holds(v, where(v, w + node), read_len(v, w + node, t), t,
			  NULL)) {
			/* the same bytes, named anew: no write that a
			   branch or a loop around this one clobbers */
			size_t mark = vm_mark(v->mem);

			put(v, w + node, phi, WHO_NONE);
			vm_forget_since(v->mem, mark);
		}
		v->cur[w + node] = phi;
	}
}

static void
run_while(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int cond = callee(in, "condition"), body = callee(in, "body");
	int w = v->posbase[c][i], n = v->nsub[w], args[1] = {w};
	size_t mark = vm_mark(v->mem), nw = 0;
	struct exits x;
	int rb, rc, trips;

	if (cond < 0 || body < 0 || in->nops != 1 || v->depth == 256)
		vr_failw(v, who, ": a while the verifier cannot run");
	for (int k = 0; k < v->pl->ncopy; k++)
		if (v->entry_of[k] == w)
			do_copy(v, k);
	enter_state(v, w, v->posbase[c][in->ops[0]], n);
	rc = root_pos(v, cond, who);
	rb = root_pos(v, body, who);
	trips = iterations(v, cond, body);
	exits_init(v, &x, n);
	v->nest++;
	v->iters[v->depth++] = 0;
	for (int j = 0;; j++) {
		v->iters[v->depth - 1] = j;
		v->iter_of[cond] = v->iter_of[body] = j;
		run_comp(v, cond, args);
		need(v, rc, who);	/* the runtime reads the predicate */
		exits_see(v, &x, j, w, v->cur + w, n);
		if (j == trips)
			break;
		run_comp(v, body, args);
		for (int node = 0; node < n; node++)
			v->cur[w + node] = v->cur[rb + node];
	}
	v->depth--;
	v->nest--;
	collect_writes(v, mark, &nw);
	exits_finish(v, &x, nw, w, n, WHY_LOOP, WHY_STATE);
	exits_free(v, &x);
}

/* A run of one branch begins: a path of its own, for spans; returns the
 * path to go back to. */
static int
enter_branch(struct vr *v)
{
	int saved = v->path;

	if (!v->span)
		return saved;
	if (v->npath == v->cappath) {
		v->cappath = 2 * v->cappath + 64;
		v->parent = realloc(v->parent, sizeof(int) *
					       (size_t)v->cappath);
		if (!v->parent)
			abort();
	}
	v->parent[v->npath] = saved;
	v->path = v->npath++;
	return saved;
}

/* The operand a branch computation takes. */
static int
branch_operand(const struct instr *in, int j)
{
	if (!strcmp(in->callkey[j], "true_computation"))
		return 1;
	if (!strcmp(in->callkey[j], "false_computation"))
		return 2;
	return j + 1;
}

static void
run_conditional(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];
	size_t mark = vm_mark(v->mem), nw = 0;
	struct exits x;
	uint32_t *t = vr_alloc(v, sizeof *t * (size_t)n);

	need(v, v->posbase[c][in->ops[0]], who);
	exits_init(v, &x, n);
	v->nest++;
	for (int j = 0; j < in->ncall; j++) {
		int d = in->calls[j], k = branch_operand(in, j), args[1], r;
		int saved;

		if (k >= in->nops)
			vr_failw(v, who, ": branch %d has no operand", j);
		args[0] = v->posbase[c][in->ops[k]];
		saved = enter_branch(v);
		run_comp(v, d, args);
		v->path = saved;
		r = root_pos(v, d, who);
		for (int node = 0; node < n; node++)
			t[node] = v->cur[r + node];
		exits_see(v, &x, j, base, t, n);
		collect_writes(v, mark, &nw);
		vm_undo(v->mem, mark);
	}
	v->nest--;
	exits_finish(v, &x, nw, base, n, WHY_BRANCH, WHY_RESULT);
	exits_free(v, &x);
	vr_free(v, t);
}

static void
run_call(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int d = in->ncall ? in->calls[0] : -1, base = v->posbase[c][i], r;
	int *args = vr_alloc(v, sizeof *args * (size_t)(in->nops + 1));

	if (d < 0)
		vr_failw(v, who, " calls nothing");
	for (int k = 0; k < in->nops; k++)
		args[k] = v->posbase[c][in->ops[k]];
	run_comp(v, d, args);
	vr_free(v, args);
	r = root_pos(v, d, who);
	forward_tree(v, base, r, v->nsub[base], who);
}

/* ---- kernels: every other instruction ------------------------------------ */

/* May the output at node `node` (address a, n bytes) of (c,i) lie over
 * node j of operand k, at b with m bytes?  Only where the op writes in
 * place over what it consumes there: an elementwise op over an operand of
 * its size, dynamic-update-slice and scatter over operand 0 (or a whole
 * update over itself), a fusion whose root updates a parameter in place,
 * a custom-call's output_to_operand_aliasing. */
/* The k-th minor dimension of s (a missing layout is the default one). */
static int
minor(const struct shape *s, int k)
{
	return s->has_layout ? s->m2m[k] : s->rank - 1 - k;
}

/* Does element i of a lie where element i of b does (dims, layout, tiles
 * and element width alike), so that an elementwise op may run in place? */
static int
same_places(const struct shape *a, const struct shape *b)
{
	int ba = a->elem_bits ? a->elem_bits : dtype_bits(a->type);
	int bb = b->elem_bits ? b->elem_bits : dtype_bits(b->type);

	if (ba != bb || a->rank != b->rank || a->nelem || b->nelem ||
	    a->ntile != b->ntile)
		return 0;
	for (int k = 0; k < a->rank; k++)
		if (a->dims[k] != b->dims[k] || minor(a, k) != minor(b, k))
			return 0;
	for (int t = 0; t < a->ntile; t++) {
		if (a->tiles[t].n != b->tiles[t].n)
			return 0;
		for (int k = 0; k < a->tiles[t].n; k++)
			if (a->tiles[t].d[k] != b->tiles[t].d[k])
				return 0;
	}
	return 1;
}

/* May the output at node `node` (address a, n bytes) of in lie over node
 * j of operand k, at b with m bytes?  Only where the op writes in place
 * over what it consumes there: an elementwise op over an operand laid out
 * alike, dynamic-update-slice and scatter over operand 0 (or a whole
 * update over itself), and what XLA's kernel contract allows
 * (verify_xla.c). */
static int
in_place_ok(struct vr *v, int c, const struct instr *in,
	    const struct shape *os, int k, int j, int node, uint64_t a,
	    int64_t n, uint64_t b, int64_t m)
{
	int op = opcode(in), same = a == b && n == m;

	if (op == OP_SCATTER && !shape_is_tuple(&in->shape))
		return k == 0 && node == 0;	/* updates land anywhere */
	if (op == OP_DUS)
		return (k == 0 && node == 0) || same;
	if (!same)
		return 0;
	if (in->op && (in->op->flags & OPF_ELEMENTWISE) && op != OP_COPY)
		return same_places(&in->shape, os);
	return vx_over(v->m, &v->m->comps[c], in, k, j, node);
}

/* No output node lies over an operand the op reads, but in place. */
static void
check_overlap(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];

	for (int node = 0; node < n; node++) {
		uint64_t a = where(v, base + node);
		int64_t an = v->pl->pos[base + node].defines ?
			     v->nbytes[base + node] : 0;	/* a forward */

		for (int k = 0; an > 0 && k < in->nops; k++) {
			int ob = v->posbase[c][in->ops[k]];
			int on = v->nsub[ob];

			for (int j = 0; j < on; j++) {
				uint64_t b = where(v, ob + j);
				int64_t bn = v->nbytes[ob + j];

				if (bn <= 0 || a + (uint64_t)an <= b ||
				    b + (uint64_t)bn <= a ||
				    in_place_ok(v, c, in, v->nshape[ob + j], k,
						j, node, a, an, b, bn))
					continue;
				vr_failw(v, who, " at step %d writes its "
					 "output over operand %d ('%s'), which "
					 "it reads", v->now, k,
					v->m->comps[c].instrs[in->ops[k]].name);
			}
		}
	}
}

/* The start of an asynchronous pair whose done is (c,i), or -1. */
static int
async_start(const struct vr *v, int c, int i)
{
	const struct comp *cp = &v->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int s;

	if (!ends_with(opname(in), "-done") || in->nops < 1)
		return -1;
	s = in->ops[0];
	while (opcode(&cp->instrs[s]) == OP_ASYNC_UPDATE &&
	       cp->instrs[s].nops > 0)
		s = cp->instrs[s].ops[0];
	in = &cp->instrs[s];
	return ends_with(opname(in), "-start") || opcode(in) == OP_SEND ||
	       opcode(in) == OP_RECV ? s : -1;
}

/* An in-place collective-permute writes slices of operand 1 where its
 * result lies: each array of operand 1 must be there already. */
static void
need_permuted(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], ob = v->posbase[c][in->ops[1]];

	for (int j = 0; j < v->nsub[ob]; j++) {
		int node = vx_permute_node(in, j);

		if (shape_is_tuple(v->nshape[ob + j]) || node >= v->nsub[base])
			need(v, ob + j, who);
		else
			need_at(v, ob + j, where(v, base + node),
				v->cur[ob + j], who);
	}
}

static void
run_kernel(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];
	int dus = (opcode(in) == OP_DUS || opcode(in) == OP_SCATTER) &&
		  !shape_is_tuple(&in->shape) && in->nops > 0;

	for (int k = 0; k < in->nops; k++) {
		int ob = v->posbase[c][in->ops[k]];

		if (dus && k == 0)	/* updated where the output is */
			need_at(v, ob, where(v, base), v->cur[ob], who);
		else if (k == 1 && vx_permute_node(in, 0) >= 0)
			need_permuted(v, c, i, who);
		else
			need_all(v, ob, who);
	}
	check_overlap(v, c, i, who);
	for (int node = 0; node < n; node++) {
		if (!v->pl->pos[base + node].defines)
			vr_failw(v, who, ": the plan says node %d forwards a "
				 "value, but the op writes it", node);
		define(v, base + node, who);
	}
}

/* The node of operand o's output that output node 0 of a done or a
 * get-tuple-element forwards: element e of a tuple, or o itself. */
static int
element_of(struct vr *v, int ob, int64_t e, int n)
{
	const struct shape *s = v->nshape[ob];
	int at = ob + 1;

	if (!shape_is_tuple(s))
		return v->nsub[ob] == n && e < 0 ? ob : -1;
	if (e < 0 || e >= s->nelem)
		return -1;
	if (v->nsub[ob] == s->nelem + 1)	/* flat: no walk */
		at = ob + 1 + (int)e;
	else
		for (int k = 0; k < e; k++)
			at += v->nsub[at];
	return v->nsub[at] == n ? at : -1;
}

/* A done: its operands and the start's stay intact until now; it hands
 * back what the start made (element 1 of a tuple start; a copy-start's
 * element 0), else it is a kernel. */
/* recv-done: (data, token); the data is what the recv received, its {0}
 * (the recv may be in an earlier iteration, passed on in a tuple). */
static void
run_recv_done(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob, src;

	if (in->nops < 1 || !shape_is_tuple(v->nshape[base]) || n < 2) {
		run_kernel(v, c, i, who);
		return;
	}
	ob = v->posbase[c][in->ops[0]];
	need_all(v, ob, who);
	src = element_of(v, ob, 0, v->nsub[base + 1]);
	if (src < 0 || !shape_is_tuple(&v->m->comps[c].instrs[in->ops[0]].shape) ||
	    !shape_equal(&in->shape.elems[0],
			 &v->m->comps[c].instrs[in->ops[0]].shape.elems[0])) {
		run_kernel(v, c, i, who);
		return;
	}
	define(v, base, who);
	forward_tree(v, base + 1, src, v->nsub[base + 1], who);
	for (int node = 1 + v->nsub[base + 1]; node < n; node++)
		define(v, base + node, who);
}

/* Did start s write an output node over node j of its operand k, in
 * place as XLA's kernel contract lets it (an in-place collective)?  Then
 * those bytes are the output's now: the done needs the output, not them.
 * (A tuple's table is the plan's, not read.) */
static int
consumed_in_place(struct vr *v, int c, int s, int k, int j)
{
	const struct instr *in = &v->m->comps[c].instrs[s];
	int sb = v->posbase[c][s], ob = v->posbase[c][in->ops[k]];

	if (shape_is_tuple(v->nshape[ob + j]))	/* (of an in-place
						   collective-permute) */
		return k == 1 && vx_permute_node(in, 0) >= 0;
	for (int node = 0; node < v->nsub[sb]; node++)
		if (v->pl->pos[sb + node].defines &&
		    v->nbytes[ob + j] > 0 &&
		    where(v, sb + node) == where(v, ob + j) &&
		    v->nbytes[sb + node] == v->nbytes[ob + j] &&
		    vx_over(v->m, &v->m->comps[c], in, k, j, node))
			return 1;
	return 0;
}

static void
run_done(struct vr *v, int c, int i, int s, int who)
{
	const struct comp *cp = &v->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];
	int ob = v->posbase[c][in->ops[0]], src;

	for (int k = 0; k < cp->instrs[s].nops; k++) {
		int kb = v->posbase[c][cp->instrs[s].ops[k]];

		for (int j = 0; j < v->nsub[kb]; j++)
			if (!consumed_in_place(v, c, s, k, j))
				need(v, kb + j, who);
	}
	need_all(v, ob, who);
	switch (opcode(in)) {
	case OP_SEND_DONE:	/* only waits: its token is new */
		run_kernel(v, c, i, who);
		return;
	case OP_RECV_DONE:
		run_recv_done(v, c, i, who);
		return;
	default:
		break;
	}
	/* copy-done hands on start{0}; all-reduce-done the start's output;
	 * every other done start{1}, where the op wrote (unless the start
	 * left it empty, to be bound late: then the done writes) */
	if (!strcmp(opname(in), "all-reduce-done"))	/* several operands: */
		src = v->nsub[ob] == n ? ob : -1;	/* a tuple, whole */
	else
		src = element_of(v, ob, opcode(in) == OP_COPY_DONE ? 0 :
				 shape_is_tuple(v->nshape[ob]) ? 1 : -1, n);
	if (src >= 0 && shape_is_tuple(v->nshape[src]) !=
				shape_is_tuple(v->nshape[base]))
		src = -1;
	if (src < 0) {
		run_kernel(v, c, i, who);
		return;
	}
	forward_tree(v, base, src, n, who);
}

/* send: (operand, context, token); element 0 is the operand itself, kept
 * until the send-done. */
static void
run_send(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob, n0;

	if (in->nops < 1 || !shape_is_tuple(v->nshape[base]) || n < 2 ||
	    v->nsub[ob = v->posbase[c][in->ops[0]]] != (n0 = v->nsub[base + 1]) ||
	    !shape_equal(&in->shape.elems[0],
			 &v->m->comps[c].instrs[in->ops[0]].shape)) {
		run_kernel(v, c, i, who);	/* (another type: a copy) */
		return;
	}
	for (int k = 0; k < in->nops; k++)
		need_all(v, v->posbase[c][in->ops[k]], who);
	define(v, base, who);
	forward_tree(v, base + 1, ob, n0, who);
	for (int node = 1 + n0; node < n; node++)
		define(v, base + node, who);
}

static void
run_copy_start(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], ob = v->posbase[c][in->ops[0]];
	int n1, src;

	src = shape_is_tuple(&in->shape) && in->shape.nelem == 3 ?
	      element_of(v, base, 1, v->nsub[ob]) : -1;
	if (src < 0 || nodes_of(&in->shape.elems[0]) != 1) {
		run_kernel(v, c, i, who);
		return;
	}
	need_all(v, ob, who);
	define(v, base, who);
	define(v, base + 1, who);		/* the destination */
	n1 = v->nsub[ob];
	forward_tree(v, src, ob, n1, who);	/* the source */
	for (int node = src + n1; node < base + v->nsub[base]; node++)
		define(v, node, who);		/* the context */
}

/* An asynchronous start whose element 0 the plan keeps as its operands
 * (XLA's dataflow: start{0} is the operand, read until the done): one
 * operand of that shape, or a tuple of them; it writes the rest. */
static int
run_async_start(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], e0 = base + 1, n0;

	if (opcode(in) == OP_COPY_START || !(opcode(in) == OP_ASYNC_START ||
					     ends_with(opname(in), "-start")) ||
	    !shape_is_tuple(&in->shape) || in->shape.nelem < 2 ||
	    in->nops < 1)
		return 0;
	n0 = v->nsub[e0];
	if (vx_permute_node(in, 0) >= 0) {	/* {0} is operand 0 */
		if (v->pl->pos[e0].defines ||
		    v->nsub[v->posbase[c][in->ops[0]]] != n0)
			return 0;
		forward_tree(v, e0, v->posbase[c][in->ops[0]], n0, who);
		for (int k = 0; k < in->nops; k++)
			if (k == 1)
				need_permuted(v, c, i, who);
			else
				need_all(v, v->posbase[c][in->ops[k]], who);
		check_overlap(v, c, i, who);
		define(v, base, who);
		for (int node = e0 + n0; node < base + v->nsub[base]; node++)
			define(v, node, who);
		return 1;
	} else if (in->nops == 1 && v->nsub[v->posbase[c][in->ops[0]]] == n0) {
		if (v->pl->pos[e0].defines)
			return 0;
		forward_tree(v, e0, v->posbase[c][in->ops[0]], n0, who);
	} else {
		int at = e0 + 1;

		if (!shape_is_tuple(&in->shape.elems[0]) ||
		    in->shape.elems[0].nelem != in->nops ||
		    v->pl->pos[at].defines)
			return 0;
		for (int k = 0; k < in->nops; k++) {	/* all or none */
			int n = v->nsub[v->posbase[c][in->ops[k]]];

			if (v->nsub[at] != n)
				return 0;
			at += n;
		}
		at = e0 + 1;
		for (int k = 0; k < in->nops; k++) {
			int ob = v->posbase[c][in->ops[k]], n = v->nsub[ob];

			forward_tree(v, at, ob, n, who);
			at += n;
		}
	}
	for (int k = 0; k < in->nops; k++)
		need_all(v, v->posbase[c][in->ops[k]], who);
	check_overlap(v, c, i, who);
	for (int node = 0; node < v->nsub[base]; node++)
		if (v->pl->pos[base + node].defines)
			define(v, base + node, who);
	return 1;
}

/* Nodes of (c,i) forwarded whole from operand 0, when shapes allow. */
static void
run_forward(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob;

	if (in->nops < 1 ||
	    v->nsub[ob = v->posbase[c][in->ops[0]]] != n) {
		run_kernel(v, c, i, who);
		return;
	}
	forward_tree(v, base, ob, n, who);
}

static void
run_tuple(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], at = base + 1;

	if (in->nops != in->shape.nelem) {
		run_kernel(v, c, i, who);
		return;
	}
	define(v, base, who);
	for (int k = 0; k < in->nops; k++) {
		int ob = v->posbase[c][in->ops[k]], n = v->nsub[ob];

		forward_tree(v, at, ob, n, who);
		at += n;
	}
}

static void
run_gte(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob, src;

	if (in->nops < 1) {
		run_kernel(v, c, i, who);
		return;
	}
	ob = v->posbase[c][in->ops[0]];
	src = element_of(v, ob, in->index, n);
	if (src < 0)
		vr_failw(v, who, ": no element %lld of its operand",
			 (long long)in->index);
	need(v, ob, who);	/* the index table */
	forward_tree(v, base, src, n, who);
}

static void
run_param(struct vr *v, int c, int i, const int *args, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];

	if (c == v->m->entry)
		return;		/* written before the first step */
	if (!args || in->param < 0 || in->param >= v->m->comps[c].nparam ||
	    v->nsub[args[in->param]] != n)
		vr_failw(v, who, ": its caller passes no operand of its "
			 "shape");
	forward_tree(v, base, args[in->param], n, who);
}

static void
run_instr(struct vr *v, int c, int i, const int *args)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int who = v->posbase[c][i], s;

	switch (opcode(in)) {
	case OP_PARAMETER: run_param(v, c, i, args, who); return;
	case OP_CONSTANT:
		for (int node = 0; node < v->nsub[who]; node++)
			define(v, who + node, WHO_NONE);
		return;
	case OP_GTE: run_gte(v, c, i, who); return;
	case OP_TUPLE: run_tuple(v, c, i, who); return;
	case OP_BITCAST: case OP_OPT_BARRIER: case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
		run_forward(v, c, i, who);
		return;
	case OP_ASYNC_UPDATE:	/* the arrays of its operand (XLA) */
		if (in->nops == 1 && shape_equal(&in->shape, &v->m->comps[c]
					.instrs[in->ops[0]].shape)) {
			run_forward(v, c, i, who);
			return;
		}
		break;
	case OP_COPY_START: run_copy_start(v, c, i, who); return;
	case OP_SEND: run_send(v, c, i, who); return;
	case OP_RECV_DONE: run_recv_done(v, c, i, who); return;
	case OP_WHILE: run_while(v, c, i, who); return;
	case OP_CONDITIONAL: run_conditional(v, c, i, who); return;
	case OP_CALL: run_call(v, c, i, who); return;
	default: break;
	}
	if ((s = async_start(v, c, i)) >= 0)
		run_done(v, c, i, s, who);
	else if (!run_async_start(v, c, i, who))
		run_kernel(v, c, i, who);
}

/* Runs computation c's steps, each with the plan's copies before and
 * after it.  Its ROOT elements are read at its end: after its last step,
 * before the copies that follow it (which carry a loop's state round). */
static void
run_comp(struct vr *v, int c, const int *args)
{
	if (!v->posbase[c])
		vr_fail(v, "'%s' runs as program steps, but the plan does not "
			"list it", v->m->comps[c].name);
	for (int k = 0; k < v->norder[c]; k++) {
		int i = v->order[c][k];

		v->now = v->stepof[c][i];
		step_copies(v, v->now, 0);
		run_instr(v, c, i, args);
		v->now = v->stepof[c][i];
		if (k == v->norder[c] - 1 && c != v->m->entry)
			need_all(v, root_pos(v, c, WHO_NONE), WHO_END(c));
		step_copies(v, v->now, 1);
		if (!v->nest)
			vm_forget(v->mem);	/* nothing will be undone */
	}
}

/* ---- setting up: the plan's positions, steps and copies ------------------ */

static void
index_positions(struct vr *v)
{
	const struct plan *pl = v->pl;
	const struct module *m = v->m;

	for (int k = 0, n; k < pl->npos; k += n) {
		const struct plan_pos *p = &pl->pos[k];
		const struct comp *cp;
		int fill = k;

		if (p->comp < 0 || p->comp >= m->ncomp || p->instr < 0 ||
		    p->instr >= m->comps[p->comp].ninstr || p->node != 0)
			vr_fail(v, "plan position %d is out of range", k);
		cp = &m->comps[p->comp];
		if (!v->posbase[p->comp]) {
			size_t ni = (size_t)cp->ninstr + 1;

			v->posbase[p->comp] = vr_alloc(v, sizeof(int) * ni);
			v->stepof[p->comp] = vr_alloc(v, sizeof(int) * ni);
			v->order[p->comp] = vr_alloc(v, sizeof(int) * ni);
			memset(v->posbase[p->comp], -1, sizeof(int) * ni);
		}
		if (v->posbase[p->comp][p->instr] >= 0)
			vr_fail(v, "the plan lists '%s' twice",
				cp->instrs[p->instr].name);
		v->posbase[p->comp][p->instr] = k;
		v->stepof[p->comp][p->instr] = v->nstep++;
		v->order[p->comp][v->norder[p->comp]++] = p->instr;
		n = nodes_of(&cp->instrs[p->instr].shape);
		if (k + n > pl->npos)
			vr_fail(v, "the plan's positions do not cover '%s'",
				cp->instrs[p->instr].name);
		fill_nodes(&cp->instrs[p->instr].shape, v->nshape, v->nsub,
			   &fill);
		for (int j = k; j < k + n; j++) {
			if (pl->pos[j].comp != p->comp ||
			    pl->pos[j].instr != p->instr ||
			    pl->pos[j].node != j - k || pl->pos[j].buf < 0 ||
			    pl->pos[j].buf >= pl->nbuf)
				vr_fail(v, "plan position %d is out of order",
					j);
			v->comp_of_pos[j] = p->comp;
			v->instr_of_pos[j] = p->instr;
		}
	}
}

/* The shape the entry's result layout gives position k, when k is an
 * output node of a root that is not a parameter or a constant (those
 * outputs stay where they are defined); else NULL. */
static const struct shape *
result_of(const struct vr *v, int k)
{
	const struct comp *e = &v->m->comps[v->m->entry];
	const struct instr *r;

	if (v->comp_of_pos[k] != v->m->entry || v->instr_of_pos[k] != e->root)
		return NULL;
	r = &e->instrs[e->root];
	if (r->op && (r->op->op == OP_PARAMETER || r->op->op == OP_CONSTANT))
		return NULL;
	return vs_result(v->m, v->o, v->pl->pos[k].node, v->nshape[k]);
}

/* An entry output lies in the memory space its result layout names and
 * has the room that layout takes. */
static int64_t
size_output(struct vr *v, int k, int64_t n)
{
	const struct shape *rs = result_of(v, k);
	const struct buffer *b = &v->pl->bufs[v->pl->pos[k].buf];
	int64_t rn;

	if (!rs)
		return n;
	if (b->space != rs->space)
		vr_fail(v, "entry output '%s' is in memory space %d, its "
			"layout's is %d", b->name, b->space, rs->space);
	rn = vs_bytes(v->o, rs);
	return n < 0 || rn < 0 ? -1 : rn > n ? rn : n;
}

/* Every position's bytes fit the room of its buffer (its slot); an entry
 * output's, the room its result layout takes too. */
static void
size_positions(struct vr *v)
{
	for (int k = 0; k < v->pl->npos; k++) {
		const struct buffer *b = &v->pl->bufs[v->pl->pos[k].buf];
		int64_t room = b->slots > 1 ? b->stride : b->size;
		int64_t n = vs_bytes(v->o, v->nshape[k]);
		int64_t need = size_output(v, k, n);
		char name[256];

		if (b->flags & BUF_CONST && !b->in_arena && room < need)
			room = need;	/* constants: listed, not placed */
		if (need < 0 || need > room) {
			pos_name(v, k, name, sizeof name);
			vr_fail(v, "'%s' needs %lld bytes, more than the %lld "
				"of buffer '%s'", name, (long long)need,
				(long long)room, b->name);
		}
		v->nbytes[k] = n;
	}
}

static int
arena_index(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return a;
	return -1;
}

/* Regions, the loop each slotted buffer's values are made in, and the
 * buffers nothing but their value may write. */
static void
index_buffers(struct vr *v)
{
	const struct plan *pl = v->pl;
	const struct comp *e = &v->m->comps[v->m->entry];

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *bf = &pl->bufs[b];

		v->region[b] = bf->in_arena ? arena_index(pl, bf->space) :
					      pl->narena + b;
		if (v->region[b] < 0 || (uint64_t)v->region[b] >=
		    UINT64_C(1) << (64 - VM_REGION_SHIFT) ||
		    (uint64_t)(bf->in_arena ? bf->offset + bf->size :
					       bf->size) >= VM_MAX_OFFSET)
			vr_fail(v, "buffer '%s' lies where the verifier "
				"cannot follow it", bf->name);
		v->slotcomp[b] = -1;
		v->readonly[b] = bf->flags & BUF_CONST ? 1 :
				 bf->flags & BUF_PARAM && !bf->in_arena ? 2 : 0;
	}
	for (int k = 0; k < pl->npos; k++) {
		const struct plan_pos *p = &pl->pos[k];

		if (p->defines && pl->bufs[p->buf].slots > 1 &&
		    v->slotcomp[p->buf] < 0) {
			v->slotcomp[p->buf] = p->comp;
			if (pl->bufs[p->buf].slots > v->kslots[p->comp])
				v->kslots[p->comp] = pl->bufs[p->buf].slots;
		}
		if (p->comp == v->m->entry &&
		    opcode(&e->instrs[p->instr]) == OP_PARAMETER &&
		    v->readonly[p->buf] == 2)
			for (int a = 0; a < v->m->nalias; a++)
				if (v->m->aliases[a].param ==
				    e->instrs[p->instr].param)
					v->readonly[p->buf] = 0;
	}
}

/* Copies by step; a copy before a loop's step from its init into its
 * state runs when the loop starts (as the runtime and the oracle do). */
static void
index_copies(struct vr *v)
{
	const struct plan *pl = v->pl;
	int *fill = vr_alloc(v, sizeof(int) * (size_t)(v->nstep + 2));

	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *pc = &pl->copies[k];

		if (pc->step < 0 || pc->step >= v->nstep || pc->src < 0 ||
		    pc->src >= pl->nbuf || pc->dst < 0 ||
		    pc->dst >= pl->nbuf || pc->bytes < 0 ||
		    pc->bytes > pl->bufs[pc->src].size ||
		    pc->bytes > pl->bufs[pc->dst].size)
			vr_fail(v, "plan copy %d is out of range", k);
		v->cfirst[pc->step + 1]++;
		v->entry_of[k] = -1;
	}
	for (int t = 0; t < v->nstep; t++)
		v->cfirst[t + 1] += v->cfirst[t];
	for (int k = 0; k < pl->ncopy; k++) {
		int t = pl->copies[k].step;

		v->cidx[v->cfirst[t] + fill[t]++] = k;
	}
	vr_free(v, fill);
}

struct wnode {
	int src, dst, pos;
	int32_t step;
};

static int
cmp_wnode(const void *a, const void *b)
{
	const struct wnode *x = a, *y = b;

	if (x->src != y->src)
		return (x->src > y->src) - (x->src < y->src);
	if (x->dst != y->dst)
		return (x->dst > y->dst) - (x->dst < y->dst);
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The first step of a while's loop: of its condition's and body's own
 * instructions, the earliest (their callees' steps come before them). */
static int
loop_first(const struct vr *v, const struct instr *in)
{
	int first = INT32_MAX;
	const char *keys[2] = {"condition", "body"};

	for (int j = 0; j < 2; j++) {
		int d = callee(in, keys[j]);

		for (int i = 0; d >= 0 && v->posbase[d] &&
				i < v->m->comps[d].ninstr; i++)
			if (v->posbase[d][i] >= 0 && v->stepof[d][i] < first)
				first = v->stepof[d][i];
	}
	return first;
}

/* Each copy before a step that moves a while's init into its state at or
 * before the loop's first step enters the nearest such loop (the one
 * whose first step comes first from the copy's on; one loop may nest
 * in another with the same buffers); one inside the loop is a copy of
 * that step. */
static void
find_entries(struct vr *v)
{
	const struct plan *pl = v->pl;
	struct wnode *w = NULL;
	size_t n = 0, cap = 0;

	for (int k = 0; k < pl->npos; k++) {
		const struct instr *in = &v->m->comps[v->comp_of_pos[k]]
					  .instrs[v->instr_of_pos[k]];
		int init;

		if (opcode(in) != OP_WHILE || in->nops != 1)
			continue;
		init = v->posbase[v->comp_of_pos[k]][in->ops[0]] +
		       pl->pos[k].node;
		if (n == cap) {
			cap = 2 * cap + 64;
			w = realloc(w, sizeof *w * cap);
			if (!w)
				abort();
		}
		w[n++] = (struct wnode){pl->pos[init].buf, pl->pos[k].buf,
					k - pl->pos[k].node,
					loop_first(v, in)};
	}
	if (n > 1)
		qsort(w, n, sizeof *w, cmp_wnode);
	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *pc = &pl->copies[k];
		size_t lo = 0, hi = n;

		while (lo < hi) {	/* the first of (src, dst) */
			size_t mid = (lo + hi) / 2;

			if (w[mid].src < pc->src || (w[mid].src == pc->src &&
						     w[mid].dst < pc->dst))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int best = INT32_MAX; !pc->after && lo < n &&
		     w[lo].src == pc->src && w[lo].dst == pc->dst; lo++)
			if (pc->step <= w[lo].step && w[lo].step < best) {
				v->entry_of[k] = w[lo].pos;	/* the nearest */
				best = w[lo].step;
			}
	}
	free(w);
}

/* The caller writes the entry's parameters before the first step. */
static void
write_params(struct vr *v)
{
	const struct comp *e = &v->m->comps[v->m->entry];

	if (!v->posbase[v->m->entry])
		vr_fail(v, "the plan does not list the entry computation");
	v->now = -1;
	for (int k = 0; k < e->nparam; k++) {
		int i = e->params[k], base;

		if (i < 0 || (base = v->posbase[v->m->entry][i]) < 0)
			continue;
		for (int node = 0; node < v->nsub[base]; node++)
			define(v, base + node, WHO_NONE);
	}
}

/* Is preorder node `node` of entry parameter k donated to an output
 * (input_output_alias)? */
static int
donated(const struct module *m, int64_t k, int node)
{
	const struct comp *e = &m->comps[m->entry];
	const struct shape *s = &e->instrs[e->params[k]].shape;

	for (int a = 0; a < m->nalias; a++) {
		const struct shape *t = s;
		int at = 0, d;

		if (m->aliases[a].param != k)
			continue;
		for (d = 0; d < m->aliases[a].npidx; d++) {
			int64_t x = m->aliases[a].pidx[d];

			if (x < 0 || x >= t->nelem)
				break;
			at++;
			for (int64_t y = 0; y < x; y++)
				at += vs_nodes(&t->elems[y]);
			t = &t->elems[x];
		}
		if (d == m->aliases[a].npidx && at == node)
			return 1;
	}
	return 0;
}

/* The caller finds every array of a parameter it did not donate as it
 * passed it, unless it let the plan reuse their space. */
static void
read_kept_params(struct vr *v)
{
	const struct comp *e = &v->m->comps[v->m->entry];

	if (v->o->reuse_params)
		return;
	for (int k = 0; k < e->nparam; k++) {
		int i = e->params[k], base;

		if (i < 0 || (base = v->posbase[v->m->entry][i]) < 0)
			continue;
		for (int node = 0; node < v->nsub[base]; node++)
			if (!shape_is_tuple(v->nshape[base + node]) &&
			    !donated(v->m, k, node))
				need(v, base + node, WHO_KEPT);
	}
}

/* The caller reads every array of the entry's result after the last. */
static void
read_result(struct vr *v)
{
	const struct comp *e = &v->m->comps[v->m->entry];
	int base = e->root >= 0 ? v->posbase[v->m->entry][e->root] : -1;

	if (base < 0)
		vr_fail(v, "the plan does not list the entry's ROOT");
	v->now = v->nstep;
	need_all(v, base, WHO_RESULT);
}

static void
setup(struct vr *v)
{
	const struct plan *pl = v->pl;
	size_t np = (size_t)pl->npos + 1, nc = (size_t)v->m->ncomp + 1;
	size_t nb = (size_t)pl->nbuf + 1;

	v->posbase = vr_alloc(v, sizeof(int *) * nc);
	v->stepof = vr_alloc(v, sizeof(int *) * nc);
	v->order = vr_alloc(v, sizeof(int *) * nc);
	v->norder = vr_alloc(v, sizeof(int) * nc);
	v->iter_of = vr_alloc(v, sizeof(int64_t) * nc);
	v->comp_of_pos = vr_alloc(v, sizeof(int) * np);
	v->instr_of_pos = vr_alloc(v, sizeof(int) * np);
	v->nshape = vr_alloc(v, sizeof(*v->nshape) * np);
	v->nsub = vr_alloc(v, sizeof(int) * np);
	v->nbytes = vr_alloc(v, sizeof(int64_t) * np);
	v->cur = vr_alloc(v, sizeof(uint32_t) * np);
	v->region = vr_alloc(v, sizeof(int) * nb);
	v->slotcomp = vr_alloc(v, sizeof(int) * nb);
	v->readonly = vr_alloc(v, sizeof(int) * nb);
	v->ntab = 1021;
	v->tabkey = vr_alloc(v, sizeof(uint64_t) * v->ntab);
	v->tabtag = vr_alloc(v, sizeof(uint32_t) * v->ntab);
	v->kslots = vr_alloc(v, sizeof(int) * nc);
	new_tag(v, TAG_POISON, -1, WHY_NONE);	/* tag 0: never written */
	index_positions(v);
	v->cfirst = vr_alloc(v, sizeof(int) * (size_t)(v->nstep + 2));
	v->cidx = vr_alloc(v, sizeof(int) * (size_t)(pl->ncopy + 1));
	v->entry_of = vr_alloc(v, sizeof(int) * (size_t)(pl->ncopy + 1));
	size_positions(v);
	index_buffers(v);
	index_copies(v);
	find_entries(v);
}

static int
run(const struct module *m, const struct options *o, const struct plan *pl,
    struct verify_trace *tr, char *err, size_t errlen)
{
	struct vr *v = calloc(1, sizeof *v);
	int bad;

	if (!v)
		abort();
	*v = (struct vr){.m = m, .o = o, .pl = pl, .err = err,
			 .errlen = errlen, .mem = vm_new()};
	if (tr) {
		v->span = malloc(sizeof *v->span);
		enter_branch(v);	/* path 0: the whole run */
		v->parent[0] = -1;
	}
	bad = setjmp(v->jb);
	if (!bad) {
		setup(v);
		write_params(v);
		run_comp(v, m->entry, NULL);
		read_result(v);
		read_kept_params(v);
	}
	for (int k = 0; k < v->nlive; k++)
		free(v->live[k]);
	if (tr)
		*tr = (struct verify_trace){(int)v->ntag, v->npath, v->span,
					    v->parent};
	free(v->live);
	free(v->tags);
	free(v->tmp);
	vm_free(v->mem);
	free(v);
	return bad;
}

int
verify_values(const struct module *m, const struct options *o,
	      const struct plan *pl, char *err, size_t errlen)
{
	return run(m, o, pl, NULL, err, errlen);
}

int
verify_spans(const struct module *m, const struct options *o,
	     const struct plan *pl, struct verify_trace *tr, char *err,
	     size_t errlen)
{
	return run(m, o, pl, tr, err, errlen);
}

void
verify_trace_free(struct verify_trace *tr)
{
	free(tr->span);
	free(tr->parent);
	tr->span = NULL;
	tr->parent = NULL;
}

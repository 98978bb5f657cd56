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

#include "checker/verify_internal.h"
#include "checker/verify.h"
#include "ir/ir.h"

/* The planner refuses exactly what this run cannot follow (plan.h). */
_Static_assert(PLAN_MAX_BYTES == (int64_t)VM_MAX_OFFSET - 1,
	       "PLAN_MAX_BYTES is the verifier's last offset");

#include "checker/verify_run.h"

static const char *const whys[] = {
	"", "written in the loop", "written in a branch",
	"not where the loop keeps its state when it exits",
	"not where the conditional's result is after a branch",
};


void *
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
void
vr_free(struct vr *v, void *p)
{
	for (int k = v->nlive - 1; k >= 0; k--)
		if (v->live[k] == p) {
			free(p);
			v->live[k] = v->live[--v->nlive];
			return;
		}
}

_Noreturn void
vr_fail(struct vr *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errlen, fmt, ap);
	va_end(ap);
	longjmp(v->jb, 1);
}

int
vr_opcode(const struct instr *in)
{
	return in->op ? in->op->op : OP_OTHER;
}

const char *
vr_opname(const struct instr *in)
{
	return in->op ? in->op->name : "";
}

int
vr_ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* ---- shapes, without the passes' helpers ------------------------------- */

int
vr_nodes_of(const struct shape *s)
{
	int n = 1;

	for (int e = 0; e < s->nelem; e++)
		n += vr_nodes_of(&s->elems[e]);
	return n;
}

/* Fills out[] with the shape of each preorder node of s from *node on,
 * and nsub[] with the nodes of each one's subtree. */
int
vr_fill_nodes(const struct shape *s, const struct shape **out, int *nsub,
	   int *node)
{
	int me = (*node)++, n = 1;

	out[me] = s;
	for (int e = 0; e < s->nelem; e++)
		n += vr_fill_nodes(&s->elems[e], out, nsub, node);
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

		while (e + 1 < s->nelem && at + vr_nodes_of(&s->elems[e]) <= node)
			at += vr_nodes_of(&s->elems[e++]);
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

uint32_t
vr_new_tag(struct vr *v, int kind, int pos, int why)
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
	int t = table_u64(&v->tabs, h, -1);

	if (t < 0) {
		t = (int)vr_new_tag(v, TAG_TABLE, -1, WHY_NONE);
		table_u64(&v->tabs, h, t);
	}
	return (uint32_t)t;
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

void
vr_pos_name(const struct vr *v, int pos, char *buf, size_t n)
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
	vr_pos_name(v, g->pos, w, sizeof w);
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
uint64_t
vr_where(const struct vr *v, int pos)
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
_Noreturn void
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

void
vr_need_at(struct vr *v, int pos, uint64_t a, uint32_t t, int who)
{
	struct vm_piece bad;
	int64_t n = read_len(v, pos, t);

	if (n > 0 && !holds(v, a, n, t, &bad))
		not_intact(v, pos, t, who, &bad);
	if (n > 0)
		read_at(v, t, a);
}

void
vr_need(struct vr *v, int pos, int who)
{
	vr_need_at(v, pos, vr_where(v, pos), v->cur[pos], who);
}

void
vr_need_all(struct vr *v, int base, int who)
{
	int n = v->nsub[base];

	for (int node = 0; node < n; node++)
		vr_need(v, base + node, who);
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
	uint64_t a = vr_where(v, pos);

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
void
vr_define(struct vr *v, int pos, int who)
{
	const struct shape *s = v->nshape[pos];

	put(v, pos, shape_is_tuple(s) ? table_tag(v, s) :
		    vr_new_tag(v, TAG_VALUE, pos, WHY_NONE), who);
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
		vr_need(v, src, who);
		put(v, dst, v->cur[src], who);
	}
	v->cur[dst] = v->cur[src];
}

void
vr_forward_tree(struct vr *v, int dst, int src, int n, int who)
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
		c.tag = vr_new_tag(v, TAG_POISON, -1, WHY_NONE);
	else
		read_at(v, c.tag, c.from);
	rewritten_at(v, c.tag, c.to);
	vm_assign(v->mem, c.to, c.to + (uint64_t)pc->bytes, c.tag);
}

void
vr_step_copies(struct vr *v, int32_t t, int after)
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
struct range_key {
	const struct vm_piece *v, *p;
};

static int
same_range(const void *ctx, int j)
{
	const struct range_key *k = ctx;

	return k->v[j].lo == k->p->lo && k->v[j].hi == k->p->hi;
}

static void
clobber(struct vr *v, size_t n, uint32_t t)
{
	struct table seen;	/* each range once: its index */

	table_init(&seen, NULL, n);
	for (size_t k = 0; k < n; k++) {
		const struct vm_piece *p = &v->tmp[k];
		struct range_key key = {v->tmp, p};
		uint64_t h = (p->lo * 0x9e3779b97f4a7c15u) ^
			     (p->hi * 0xc2b2ae3d27d4eb4fu);

		if (table_key(&seen, h, same_range, &key, (int)k) < 0)
			vm_assign(v->mem, p->lo, p->hi, t);
	}
	table_free(&seen);
}

/* ---- running computations ----------------------------------------------- */


int
vr_callee(const struct instr *in, const char *key)
{
	for (int j = 0; j < in->ncall; j++)
		if (!strcmp(in->callkey[j], key))
			return in->calls[j];
	return -1;
}

int
vr_root_pos(struct vr *v, int d, int who)
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
		    !holds(v, vr_where(v, base + node),
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
	clobber(v, nw, vr_new_tag(v, TAG_POISON, base, clobbered));
	for (int node = 0; node < n; node++) {
		uint32_t t = x->same[node] ? x->first[node] :
			     shape_is_tuple(v->nshape[base + node]) ?
			     table_tag(v, v->nshape[base + node]) :
			     vr_new_tag(v, TAG_VALUE, base + node, WHY_NONE);

		/* (where every exit left it and nothing clobbered it since,
		   no write) */
		if (!x->ok[node] || read_len(v, base + node, t) <= 0 ||
		    !holds(v, vr_where(v, base + node), read_len(v, base + node, t),
			   t, NULL))
			put(v, base + node, x->ok[node] ? t :
				vr_new_tag(v, TAG_POISON, base + node, misplaced),
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
			    vr_where(v, w + k) == vr_where(v, w + node) &&
			    v->nbytes[w + k] == v->nbytes[w + node])
				phi = v->cur[w + k];
		if (phi) {
			v->cur[w + node] = phi;
			continue;
		}
		phi = vr_new_tag(v, TAG_VALUE, w + node, WHY_NONE);
		v->tags[phi].parent = t;
		if (read_len(v, w + node, t) > 0 &&
		    holds(v, vr_where(v, w + node), read_len(v, w + node, t), t,
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

void
vr_run_while(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int cond = vr_callee(in, "condition"), body = vr_callee(in, "body");
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
	rc = vr_root_pos(v, cond, who);
	rb = vr_root_pos(v, body, who);
	trips = iterations(v, cond, body);
	exits_init(v, &x, n);
	v->nest++;
	v->iters[v->depth++] = 0;
	for (int j = 0;; j++) {
		v->iters[v->depth - 1] = j;
		v->iter_of[cond] = v->iter_of[body] = j;
		vr_run_comp(v, cond, args);
		vr_need(v, rc, who);	/* the runtime reads the predicate */
		exits_see(v, &x, j, w, v->cur + w, n);
		if (j == trips)
			break;
		vr_run_comp(v, body, args);
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

void
vr_run_conditional(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];
	size_t mark = vm_mark(v->mem), nw = 0;
	struct exits x;
	uint32_t *t = vr_alloc(v, sizeof *t * (size_t)n);

	vr_need(v, v->posbase[c][in->ops[0]], who);
	exits_init(v, &x, n);
	v->nest++;
	for (int j = 0; j < in->ncall; j++) {
		int d = in->calls[j], k = branch_operand(in, j), args[1], r;
		int saved;

		if (k >= in->nops)
			vr_failw(v, who, ": branch %d has no operand", j);
		args[0] = v->posbase[c][in->ops[k]];
		saved = enter_branch(v);
		vr_run_comp(v, d, args);
		v->path = saved;
		r = vr_root_pos(v, d, who);
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

void
vr_run_call(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int d = in->ncall ? in->calls[0] : -1, base = v->posbase[c][i], r;
	int *args = vr_alloc(v, sizeof *args * (size_t)(in->nops + 1));

	if (d < 0)
		vr_failw(v, who, " calls nothing");
	for (int k = 0; k < in->nops; k++)
		args[k] = v->posbase[c][in->ops[k]];
	vr_run_comp(v, d, args);
	vr_free(v, args);
	r = vr_root_pos(v, d, who);
	vr_forward_tree(v, base, r, v->nsub[base], who);
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
		vr_setup(v);
		vr_write_params(v);
		vr_run_comp(v, m->entry, NULL);
		vr_read_result(v);
		vr_read_kept_params(v);
	}
	for (int k = 0; k < v->nlive; k++)
		free(v->live[k]);
	table_free(&v->tabs);
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

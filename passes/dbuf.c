/* Double buffering: a buffer fetched anew in every iteration of a loop gets
 * k slots, iteration i using slot i mod k, so that the next fetch overlaps
 * this iteration's compute (Pallas pipelining, TVM InjectDoubleBuffer).  The
 * block of k slots is live over the whole loop. */
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

/* Does instruction i of c come (through forwarding) from the computation's
 * parameter or a constant: loop-carried or loop-invariant? */
static int
from_state(const struct comp *c, int i)
{
	for (int depth = 0; depth < 64 && i >= 0; depth++) {
		const struct instr *in = &c->instrs[i];
		int op = in->op ? in->op->op : OP_OTHER;

		if (op == OP_PARAMETER || op == OP_CONSTANT)
			return 1;
		if ((op != OP_GTE && op != OP_BITCAST) || in->nops < 1)
			return 0;
		i = in->ops[0];
	}
	return 0;
}

/* Per instruction of c: does it depend on the computation's parameter,
 * where the loop counter lives?  Text order is topological: one pass. */
static const char *
reads_state(struct prog *p, const struct comp *c)
{
	char *dep = pool_alloc(p->pool, (size_t)c->ninstr + 1);

	for (int i = 0; i < c->ninstr; i++) {
		const struct instr *in = &c->instrs[i];

		dep[i] = in->op && in->op->op == OP_PARAMETER;
		for (int k = 0; k < in->nops && !dep[i]; k++)
			dep[i] = in->ops[k] >= 0 && dep[in->ops[k]];
	}
	return dep;
}

/* A dynamic-slice of the loop state indexed by something the loop state
 * feeds: the scan-over-layers fetch of JAX models. */
static int
streamed_slice(const struct comp *c, const struct instr *in, const char *dep)
{
	if (in->nops < 2 || !from_state(c, in->ops[0]))
		return 0;
	for (int k = 1; k < in->nops; k++)
		if (dep[in->ops[k]])
			return 1;
	return 0;
}

/* frontend_attributes={... hloplan_double_buffer="K" ...}: K, or 0. */
static int
attr_slots(const struct instr *in)
{
	const struct attr *a = instr_attr(in, "frontend_attributes");
	const char *key = "hloplan_double_buffer=\"";
	size_t n = strlen(key);

	if (!a)
		return 0;
	for (int k = 0; k + (int)n < a->vlen; k++)
		if (!strncmp(a->val + k, key, n)) {
			int v = 0;

			for (k += (int)n; k < a->vlen && a->val[k] >= '0' &&
					  a->val[k] <= '9' && v < 1000; k++)
				v = v * 10 + (a->val[k] - '0');
			return v;
		}
	return 0;
}

static int
named(const struct options *o, const char *name)
{
	for (int k = 0; k < o->nname; k++)
		if (!strcmp(o->names[k], name))
			return 1;
	return 0;
}

/* Slots for instruction i of c: k when it is streamed, else 0.  dep[c] is
 * filled on first need. */
int
wanted_slots(struct prog *p, int c, int i, const char **dep)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int op = in->op ? in->op->op : OP_OTHER, k = attr_slots(in);

	if (k > 0)
		return k;
	if (named(&p->opt, in->name))
		return p->opt.slots;
	if (!p->opt.double_buffer)
		return 0;
	if (op == OP_DYNAMIC_SLICE) {
		if (!dep[c])
			dep[c] = reads_state(p, cp);
		return streamed_slice(cp, in, dep[c]) ? p->opt.slots : 0;
	}
	if (op == OP_COPY_START)
		return p->opt.slots;
	return 0;
}

/* k slots of stride bytes; INT64_MAX past 64 bits, which check_sizes
 * refuses. */
static int64_t
block_size(int64_t stride, int k)
{
	return stride > INT64_MAX / k ? INT64_MAX : stride * k;
}

/* The block: k slots of the aligned size, live over the loop.  Only for
 * a buffer whose values are all made and dead within one iteration: no
 * loop state (a phi) and no copy into or out of it (`fixed`). */
static void
give_slots(struct buffer *b, const struct loop *l, int k, int fixed)
{
	if (k <= 1 || b->slots > 1 || fixed ||
	    (b->flags & (BUF_PARAM | BUF_OUTPUT | BUF_CONST | BUF_TABLE)))
		return;
	if (b->start < l->start || b->end > l->end)
		return;		/* it outlives an iteration: not streamed */
	b->stride = b->size;
	b->slots = k;
	b->size = block_size(b->stride, k);
	b->start = l->start;
	b->end = l->end;
}

static void
check_names(struct prog *p, const char *const *found)
{
	for (int k = 0; k < p->opt.nname; k++)
		if (!found[k])
			diag_error(p->ds, p->m->loc, "--double-buffer=%s: no "
				   "instruction of that name in a loop body",
				   p->opt.names[k]);
}

/* ---- unrolled loops -------------------------------------------------- */

/* A fetch of an unrolled loop: its computation, the source it slices (an
 * instruction index, through forwarding), its size, its step, its buffer. */
struct fetch {
	int comp, src;
	int64_t size;
	int32_t step;
	int buf;
};

/* The same computation, source and size: one unrolled loop. */
static int
cmp_key(const struct fetch *x, const struct fetch *y)
{
	return x->comp != y->comp || x->src != y->src || x->size != y->size;
}

static int
cmp_fetch(const void *a, const void *b)
{
	const struct fetch *x = a, *y = b;

	if (x->comp != y->comp)
		return (x->comp > y->comp) - (x->comp < y->comp);
	if (x->src != y->src)
		return (x->src > y->src) - (x->src < y->src);
	if (x->size != y->size)
		return (x->size > y->size) - (x->size < y->size);
	return (x->step > y->step) - (x->step < y->step);
}

/* The instruction a value comes from, through get-tuple-element/bitcast. */
static int
source_of(const struct comp *c, int i)
{
	for (int d = 0; d < 64; d++) {
		const struct instr *in = &c->instrs[i];
		int op = in->op ? in->op->op : OP_OTHER;

		if ((op != OP_GTE && op != OP_BITCAST) || in->nops < 1)
			return i;
		i = in->ops[0];
	}
	return i;
}

/* A dynamic-slice outside any loop body, at an index computed at run time,
 * into a plain buffer of its own. */
static int
unrolled_fetch(struct prog *p, struct plan *pl, int c, int i, const int *loop,
	       const int *nvals, const int *fixed, struct fetch *f)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	const struct buffer *b;
	int dynamic = 0;

	if (!in->op || in->op->op != OP_DYNAMIC_SLICE || loop[c] >= 0 ||
	    in->nops < 2)
		return 0;
	for (int k = 1; k < in->nops; k++)
		dynamic |= !cp->instrs[in->ops[k]].op ||
			   cp->instrs[in->ops[k]].op->op != OP_CONSTANT;
	f->buf = p->buf_of[prog_val(p, c, i, 0)];
	b = &pl->bufs[f->buf];
	if (!dynamic || b->flags || b->slots > 1 || !b->in_arena || !b->size ||
	    nvals[f->buf] != 1 || fixed[f->buf])
		return 0;	/* one value alone in a plain buffer, with
				   no copy into or out of it */
	f->comp = c;
	f->src = source_of(cp, in->ops[0]);
	f->size = b->size;
	f->step = p->time[c][i];
	return 1;
}

/* Fetches f[0..n) of one source share a block of k slots, the j-th in
 * slot j mod k, when no two in one slot are live at once; merged[] maps
 * each member's buffer to the block's. */
static void
share_block(struct prog *p, struct plan *pl, const struct fetch *f, int n,
	    int *merged, int *slot)
{
	int k = p->opt.slots;
	struct buffer *b0 = &pl->bufs[f[0].buf];

	for (int j = 0; j + 1 < n; j++)
		if (f[j].buf == f[j + 1].buf)
			return;
	for (int j = 0; j + k < n; j++)
		if (pl->bufs[f[j].buf].end >= pl->bufs[f[j + k].buf].start)
			return;
	for (int j = 0; j < n; j++) {
		const struct buffer *b = &pl->bufs[f[j].buf];

		slot[f[j].buf] = j % k;
		merged[f[j].buf] = f[0].buf;
		if (b->end > b0->end)
			b0->end = b->end;
	}
	b0->stride = f[0].size;
	b0->slots = k;
	b0->size = block_size(b0->stride, k);
}

/* Drops merged buffers, renumbering every reference to the others. */
static void
compact(struct prog *p, struct plan *pl, const int *merged)
{
	int *to = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));
	int n = 0;

	for (int b = 0; b < pl->nbuf; b++)
		if (merged[b] == b) {
			to[b] = n;
			pl->bufs[n++] = pl->bufs[b];
		}
	for (int b = 0; b < pl->nbuf; b++)
		to[b] = to[merged[b]];
	pl->nbuf = n;
	for (int v = 0; v < p->nval; v++)
		p->buf_of[v] = to[p->buf_of[v]];
	for (int k = 0; k < pl->npos; k++)
		pl->pos[k].buf = to[pl->pos[k].buf];
	for (int k = 0; k < pl->ncopy; k++) {
		pl->copies[k].src = to[pl->copies[k].src];
		pl->copies[k].dst = to[pl->copies[k].dst];
	}
}

/* Unrolled loops (M04): dynamic-slices of one source and one size at
 * run-time indices are the iterations of a loop the tracer unrolled; in
 * schedule order they take turns in one block of k slots. */
static void
stream_unrolled(struct prog *p, struct plan *pl, const int *loop,
		const int *fixed)
{
	struct fetch *f = pool_alloc(p->pool, sizeof *f * (size_t)(p->ntime + 1));
	int *merged = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));
	int *slot = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));
	int *nvals = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));
	int n = 0, any = 0;

	for (int b = 0; b < pl->nbuf; b++) {
		merged[b] = b;
		slot[b] = -1;
	}
	for (int v = 0; v < p->nval; v++)
		nvals[p->buf_of[v]]++;
	for (int32_t t = 0; t < p->ntime; t++)
		n += unrolled_fetch(p, pl, p->steps[t].comp, p->steps[t].instr,
				    loop, nvals, fixed, &f[n]);
	if (n > 1)
		qsort(f, (size_t)n, sizeof *f, cmp_fetch);
	for (int a = 0, z; a < n; a = z) {
		for (z = a + 1; z < n && !cmp_key(&f[a], &f[z]); z++)
			;
		if (z - a >= 2 && p->opt.slots <= z - a) {
			share_block(p, pl, &f[a], z - a, merged, slot);
			any = 1;
		}
	}
	for (int v = 0; v < p->nval; v++)
		p->slot_of[v] = slot[p->buf_of[v]];
	for (int k = 0; k < pl->npos; k++)
		pl->pos[k].slot = slot[pl->pos[k].buf];
	if (any)
		compact(p, pl, merged);
}

/* The fetched node: a copy-start's destination is element 0 of its
 * (destination, source, context) tuple. */
static int
fetched_node(const struct instr *in)
{
	return in->op && in->op->op == OP_COPY_START &&
	       shape_is_tuple(&in->shape) && in->shape.nelem >= 1;
}

int
insert_double_buffers(struct prog *p, struct plan *pl)
{
	int nerr = p->ds->n, n = p->m->ncomp, *loop = pool_alloc(p->pool, sizeof(int) *
						      (size_t)(n + 1));
	const char **found = pool_alloc(p->pool, sizeof(char *) *
						     (size_t)(p->opt.nname + 1));
	const char **dep = pool_alloc(p->pool, sizeof(char *) * (size_t)(n + 1));
	int *fixed;

	for (int c = 0; c < n; c++)
		loop[c] = -1;
	fixed = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));
	for (int v = 0; v < p->nval; v++)
		if (p->values[v].flags & VAL_PHI)
			fixed[p->buf_of[v]] = 1;
	for (int k = 0; k < pl->ncopy; k++)
		fixed[pl->copies[k].src] = fixed[pl->copies[k].dst] = 1;
	for (int l = 0; l < p->nloop; l++)
		if (p->loops[l].body >= 0)
			loop[p->loops[l].body] = l;
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp, i = p->steps[t].instr, k, b;
		const struct instr *in = &p->m->comps[c].instrs[i];

		if (loop[c] < 0 || !(k = wanted_slots(p, c, i, dep)))
			continue;
		for (int j = 0; j < p->opt.nname; j++)
			if (!strcmp(p->opt.names[j], in->name))
				found[j] = in->name;
		b = p->buf_of[prog_val(p, c, i, fetched_node(in))];
		give_slots(&pl->bufs[b], &p->loops[loop[c]], k, fixed[b]);
	}
	check_names(p, found);
	p->slot_of = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));
	for (int v = 0; v < p->nval; v++)
		p->slot_of[v] = -1;
	if (p->opt.double_buffer)
		stream_unrolled(p, pl, loop, fixed);
	return p->ds->n > nerr ? -1 : 0;
}

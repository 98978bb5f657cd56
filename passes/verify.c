/* verify: an independent check of a finished plan (DESIGN.md section 8).  It
 * trusts no pass: bounds, alignment and overlap are checked from the plan's
 * numbers alone, and every value is checked to have a buffer that is live
 * wherever the schedule defines or reads it. */
#include <stdarg.h>
#include <stdlib.h>

#include "passes/passes.h"

static int
fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return 1;
}

static const struct arena *
arena_of(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return &pl->arenas[a];
	return NULL;
}

static int
check_buffer(const struct plan *pl, const struct buffer *b, char *err,
	     size_t n)
{
	const struct arena *a = arena_of(pl, b->space);

	if (b->size < b->bytes && !(b->flags & BUF_CONST))
		return fail(err, n, "buffer '%s' has %lld bytes, less than its "
			    "shape's %lld", b->name, (long long)b->size,
			    (long long)b->bytes);
	if (b->start < 0 || b->end < b->start || b->end >= pl->ntime)
		return fail(err, n, "buffer '%s' has a bad interval [%d, %d]",
			    b->name, b->start, b->end);
	if (b->slots < 1 || (b->slots > 1 &&
			     (b->stride < b->bytes || b->stride % pl->align ||
			      b->stride > b->size / b->slots ||
			      b->stride * b->slots != b->size)))
		return fail(err, n, "buffer '%s' has %d slots of stride %lld "
			    "that do not hold it in %lld bytes", b->name,
			    b->slots, (long long)b->stride, (long long)b->size);
	if (!b->in_arena)
		return 0;
	if (!a)
		return fail(err, n, "buffer '%s' is in S(%d), which has no "
			    "arena", b->name, b->space);
	if (b->offset < 0 || b->offset % pl->align ||
	    b->size > a->size || b->offset > a->size - b->size)
		return fail(err, n, "buffer '%s' at offset %lld size %lld is "
			    "not aligned inside its %lld-byte arena", b->name,
			    (long long)b->offset, (long long)b->size,
			    (long long)a->size);
	if (a->size % pl->align)
		return fail(err, n, "arena S(%d) size is not aligned", a->space);
	return 0;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Buffers live at one time in one space share no byte: a sweep in start
 * order against the buffers still live. */
static int
check_overlap(const struct plan *pl, char *err, size_t n)
{
	uint64_t *order = malloc(sizeof(uint64_t) * (size_t)(pl->nbuf + 1));
	int *live = malloc(sizeof(int) * (size_t)(pl->nbuf + 1));
	int norder = 0, nlive = 0, bad = 0;

	if (!order || !live)
		abort();
	for (int b = 0; b < pl->nbuf; b++)
		if (pl->bufs[b].in_arena && pl->bufs[b].size > 0)
			order[norder++] = (uint64_t)pl->bufs[b].start << 32 |
					  (uint32_t)b;
	qsort(order, (size_t)norder, sizeof *order, cmp_u64);
	for (int k = 0; k < norder && !bad; k++) {
		int xb = (int)(order[k] & 0xffffffffu);
		const struct buffer *x = &pl->bufs[xb];
		int keep = 0;

		for (int j = 0; j < nlive && !bad; j++) {
			const struct buffer *y = &pl->bufs[live[j]];

			if (y->end < x->start)
				continue;
			live[keep++] = live[j];
			if (y->space == x->space &&
			    x->offset < y->offset + y->size &&
			    y->offset < x->offset + x->size)
				bad = fail(err, n, "buffers '%s' and '%s' are "
					   "live at once and overlap", y->name,
					   x->name);
		}
		nlive = keep;
		live[nlive++] = xb;
	}
	free(order);
	free(live);
	return bad;
}

static int
live_at(const struct plan *pl, int b, int32_t t)
{
	return pl->bufs[b].start <= t && t <= pl->bufs[b].end;
}

/* Every value has a buffer that is big enough and covers its interval. */
static int
check_values(const struct prog *p, const struct plan *pl, char *err, size_t n)
{
	for (int v = 0; v < p->nval; v++) {
		const struct value *x = &p->values[v];
		int b = p->buf_of[v];

		if (b < 0 || b >= pl->nbuf)
			return fail(err, n, "value %d has no buffer", v);
		if (!live_at(pl, b, x->def) || !live_at(pl, b, x->end) ||
		    pl->bufs[b].size < target_size(&p->opt, x->shape))
			return fail(err, n, "buffer '%s' does not hold value "
				    "%d of '%s'", pl->bufs[b].name, v,
				    p->m->comps[x->comp].instrs[x->instr].name);
	}
	return 0;
}

/* Re-derives the simplest liveness facts from the schedule: a value is
 * live where it is defined, and an operand where it is read. */
static int
check_steps(const struct prog *p, const struct plan *pl, char *err, size_t n)
{
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp, i = p->steps[t].instr;
		const struct instr *in = &p->m->comps[c].instrs[i];
		int v = prog_val(p, c, i, 0), b = p->buf_of[v], op;
		int own = p->values[v].comp == c && p->values[v].instr == i;

		if (own && !live_at(pl, b, t) && !(pl->bufs[b].flags & BUF_CONST))
			return fail(err, n, "'%s' is not live at its own step",
				    in->name);
		op = in->op ? in->op->op : OP_OTHER;
		if (op == OP_TUPLE || op == OP_WHILE || op == OP_CALL ||
		    op == OP_PARAMETER || op == OP_BITCAST || op == OP_DOMAIN ||
		    op == OP_OPT_BARRIER || op == OP_ADD_DEPENDENCY ||
		    op == OP_CONDITIONAL)
			continue;
		for (int k = 0; k < in->nops; k++) {
			b = p->buf_of[prog_val(p, c, in->ops[k], 0)];
			if (!live_at(pl, b, t) &&
			    !(pl->bufs[b].flags & BUF_CONST))
				return fail(err, n, "operand '%s' of '%s' is "
					    "not live where it is read",
					    p->m->comps[c].instrs[in->ops[k]]
						    .name, in->name);
		}
	}
	return 0;
}

/* A copy's two buffers are live where it happens and hold its bytes. */
static int
check_copies(const struct plan *pl, char *err, size_t n)
{
	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *c = &pl->copies[k];

		if (c->src < 0 || c->src >= pl->nbuf || c->dst < 0 ||
		    c->dst >= pl->nbuf || c->src == c->dst)
			return fail(err, n, "copy %d has bad buffers", k);
		if (!live_at(pl, c->src, c->step) ||
		    !live_at(pl, c->dst, c->step) ||
		    pl->bufs[c->src].size < c->bytes ||
		    pl->bufs[c->dst].size < c->bytes)
			return fail(err, n, "copy of '%s' into '%s' at step %d: "
				    "a buffer is not live there or too small",
				    pl->bufs[c->src].name,
				    pl->bufs[c->dst].name, c->step);
	}
	return 0;
}

/* Values sharing one slot of a block (an unrolled loop's fetches) are
 * never live at once: sorted by (buffer, slot, start), each starts after
 * every one before it in its slot has ended. */
struct slotted {
	uint64_t group;		/* buffer << 8 | slot */
	int32_t def, end;
};

static int
cmp_slotted(const void *a, const void *b)
{
	const struct slotted *x = a, *y = b;

	if (x->group != y->group)
		return (x->group > y->group) - (x->group < y->group);
	return (x->def > y->def) - (x->def < y->def);
}

static int
check_slots(const struct prog *p, const struct plan *pl, char *err, size_t n)
{
	struct slotted *s = malloc(sizeof *s * (size_t)(p->nval + 1));
	int m = 0, bad = 0;
	int32_t end = -1;

	if (!s)
		abort();
	for (int v = 0; v < p->nval && p->slot_of; v++)
		if (p->slot_of[v] >= 0)
			s[m++] = (struct slotted){
				(uint64_t)p->buf_of[v] << 8 |
					(uint64_t)(p->slot_of[v] & 255),
				p->values[v].def, p->values[v].end};
	if (m > 1)
		qsort(s, (size_t)m, sizeof *s, cmp_slotted);
	for (int k = 0; k < m && !bad; k++) {
		if (k == 0 || s[k].group != s[k - 1].group)
			end = -1;
		if (s[k].def <= end)
			bad = fail(err, n, "two values in slot %d of '%s' are "
				   "live at once", (int)(s[k].group & 255),
				   pl->bufs[s[k].group >> 8].name);
		if (s[k].end > end)
			end = s[k].end;
	}
	free(s);
	return bad;
}

int
verify_layout(const struct plan *pl, char *err, size_t errlen)
{
	for (int b = 0; b < pl->nbuf; b++)
		if (check_buffer(pl, &pl->bufs[b], err, errlen))
			return 1;
	return check_overlap(pl, err, errlen) ||
	       check_copies(pl, err, errlen);
}

int
verify_plan(const struct prog *p, const struct plan *pl, char *err,
	    size_t errlen)
{
	return verify_layout(pl, err, errlen) ||
	       check_slots(p, pl, err, errlen) ||
	       check_values(p, pl, err, errlen) ||
	       check_steps(p, pl, err, errlen);
}

/* Optional reuse: an elementwise output (not a copy) takes over an
 * operand's buffer when that operand dies at this instruction and the two
 * shapes are equal, layout, tiles and memory space included (XLA's
 * CanShareOperandBufferWithUser). */
#include "passes/passes.h"

/* The k-th minor dimension (a missing layout is the default one). */
static int
minor(const struct shape *s, int k)
{
	return s->has_layout ? s->m2m[k] : s->rank - 1 - k;
}

int
same_layout(const struct shape *a, const struct shape *b)
{
	if (a->type != b->type || a->rank != b->rank || a->space != b->space ||
	    a->elem_bits != b->elem_bits || a->ntile != b->ntile)
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

static int
can_take(struct prog *p, int out, int in, int32_t t)
{
	const struct value *vo = &p->values[out], *vi = &p->values[in];
	int ro = prog_find(p, out), ri = prog_find(p, in);
	const struct shape *so = vo->shape, *si = vi->shape;

	if (ro == ri || p->bstart[ro] != t || p->bend[ri] != t)
		return 0;
	return !shape_is_tuple(so) && !shape_is_tuple(si) &&
	       same_layout(so, si);
}

static void
take(struct prog *p, int out, int in)
{
	int ro = prog_find(p, out), ri = prog_find(p, in), r;
	int32_t s = p->bstart[ri], e = p->bend[ro];

	prog_union(p, ro, ri);
	r = prog_find(p, ro);
	p->bstart[r] = s;
	p->bend[r] = e;
}

void
share_reuse(struct prog *p)
{
	int *flags = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));

	/* Parameters, constants, outputs and tables are never taken over. */
	for (int v = 0; v < p->nval; v++)
		flags[prog_find(p, v)] |= p->values[v].flags;
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp, i = p->steps[t].instr;
		const struct instr *in = &p->m->comps[c].instrs[i];
		int out;

		if (!in->op || !(in->op->flags & OPF_ELEMENTWISE) ||
		    in->op->op == OP_COPY || shape_is_tuple(&in->shape))
			continue;	/* a copy may change the layout */
		out = prog_val(p, c, i, 0);
		if (flags[prog_find(p, out)])
			continue;
		for (int k = 0; k < in->nops; k++) {
			int v = prog_val(p, c, in->ops[k], 0);

			if (flags[prog_find(p, v)] || !can_take(p, out, v, t))
				continue;
			take(p, out, v);
			break;
		}
	}
}

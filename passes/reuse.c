/* Optional reuse: an elementwise output (not a copy) takes over an
 * operand's buffer when that operand dies at this instruction and the two
 * shapes are equal, layout, tiles and memory space included (XLA's
 * CanShareOperandBufferWithUser: values.c's in-place table), and the two
 * sets hold no values live at once (sets.c). */
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
	    a->elem_bits != b->elem_bits || a->ntile != b->ntile ||
	    a->tail_pad != b->tail_pad || a->meta_bytes != b->meta_bytes)
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

void
share_reuse(struct prog *p)
{
	int *flags = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));

	/* Parameters, constants, outputs, tables and loop state are never
	 * taken over. */
	for (int v = 0; v < p->nval; v++)
		flags[prog_find(p, v)] |= p->values[v].flags;
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp, i = p->steps[t].instr;
		const struct comp *cp = &p->m->comps[c];
		const struct instr *in = &cp->instrs[i];
		int out;

		if (!in->op || shape_is_tuple(&in->shape))
			continue;
		out = prog_val(p, c, i, 0);
		if (flags[prog_find(p, out)])
			continue;
		for (int k = 0; k < in->nops; k++) {
			int v = prog_val(p, c, in->ops[k], 0);

			if (in_place_kind(p->m, cp, in, k, 0) != IP_MAY ||
			    flags[prog_find(p, v)] ||
			    prog_find(p, v) == prog_find(p, out) ||
			    sets_conflict(p, out, v))
				continue;
			sets_union(p, out, v);
			break;
		}
	}
	prog_hulls(p);
}

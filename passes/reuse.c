/* Optional reuse: an elementwise output takes over an operand's buffer when
 * that operand dies at this instruction and the two match in size, shape and
 * memory space (XLA's CanShareOperandBufferWithUser). */
#include "passes/passes.h"

static int
can_take(struct prog *p, int out, int in, int32_t t)
{
	const struct value *vo = &p->values[out], *vi = &p->values[in];
	int ro = prog_find(p, out), ri = prog_find(p, in);
	const struct shape *so = vo->shape, *si = vi->shape;

	if (ro == ri || p->bstart[ro] != t || p->bend[ri] != t)
		return 0;
	if (shape_is_tuple(so) || shape_is_tuple(si) || so->rank != si->rank ||
	    so->space != si->space || shape_bytes(so) != shape_bytes(si) ||
	    target_size(&p->opt, so) != target_size(&p->opt, si))
		return 0;
	for (int k = 0; k < so->rank; k++)
		if (so->dims[k] != si->dims[k] ||
		    (so->has_layout && si->has_layout &&
		     so->m2m[k] != si->m2m[k]))
			return 0;
	return 1;
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
		    shape_is_tuple(&in->shape))
			continue;
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

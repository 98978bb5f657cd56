/* Optional reuse: an output takes over an operand's buffer when that
 * operand dies at this instruction and the op may write over it (XLA's
 * CanShareOperandBufferWithUser: rules.c's table), and the two sets hold
 * no values live at once (sets.c). */
#include "passes/passes.h"

/* Output node `node` of (c,i), a value it defines, takes over the set of
 * an operand node that dies there, when the op may write over it. */
static void
reuse_node(struct prog *p, const int *flags, int c, int i, int node)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int out = prog_val(p, c, i, node);

	if (flags[prog_find(p, out)] & ~(BUF_OUTPUT | VAL_PHI))
		return;
	for (int k = 0; k < in->nops; k++)
		for (int kn = 0, n = shape_nodes(&cp->instrs[in->ops[k]].shape);
		     kn < n; kn++) {
			int v = prog_val(p, c, in->ops[k], kn);

			if (flags[prog_find(p, v)] & ~(BUF_OUTPUT | VAL_PHI) ||
			    prog_find(p, v) == prog_find(p, out) ||
			    sets_conflict(p, out, v) ||
			    in_place_kind(p, cp, in, k, kn, node) != IP_MAY)
				continue;
			sets_union(p, out, v);
			return;
		}
}

void
share_reuse(struct prog *p)
{
	int *flags = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));

	/* Parameters, constants and tables are never taken over; an output
	 * or a loop's state may take over a temporary, or be taken over
	 * where it dies (XLA colocates them too). */
	for (int v = 0; v < p->nval; v++)
		flags[prog_find(p, v)] |= p->values[v].flags;
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp, i = p->steps[t].instr;
		const struct instr *in = &p->m->comps[c].instrs[i];

		if (!in->op)
			continue;
		for (int node = 0, nn = shape_nodes(&in->shape); node < nn;
		     node++) {
			const struct value *x =
				&p->values[prog_val(p, c, i, node)];

			if (x->comp == c && x->instr == i && x->node == node &&
			    !shape_is_tuple(x->shape))
				reuse_node(p, flags, c, i, node);
		}
	}
	prog_hulls(p);
}

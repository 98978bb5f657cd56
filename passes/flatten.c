/* Flattens the call graph (XLA's FlattenCallGraph): a computation that runs
 * as program steps from more than one call site is cloned, so that each
 * runs from one site and each value has one live range.  Clones are named
 * NAME.cloneK, their instructions too.  Flattening is complete: every call
 * site gets a computation of its own.  The work is linear in the
 * instructions of the flattened module, which a budget bounds (a tree of
 * calls that share callees can grow exponentially); past it the module is
 * refused with a clear error rather than planned with shared
 * computations. */
#include <string.h>

#include "passes/passes.h"

/* A copy of computation c whose call lists can be redirected, named after
 * o, the computation of the text that c copies: names do not grow with the
 * depth of the call tree (k is unique in the module). */
static int
clone_comp(struct pool *pool, struct module *m, int c, int k, int o)
{
	struct comp *d = VEC_PUSH(pool, m->comps, m->ncomp, m->cap);
	const struct comp *s = &m->comps[c];

	*d = *s;
	d->name = pool_printf(pool, "%s.clone%d", m->comps[o].name, k);
	d->is_entry = 0;
	d->cap = d->ninstr;
	d->instrs = pool_alloc(pool, sizeof(struct instr) *
					     (size_t)(s->ninstr + 1));
	for (int i = 0; i < s->ninstr; i++) {
		struct instr *in = &d->instrs[i];

		*in = s->instrs[i];
		in->name = pool_printf(pool, "%s.clone%d",
				       m->comps[o].instrs[i].name, k);
		in->calls = pool_alloc(pool, sizeof(int) *
						     (size_t)(in->ncall + 1));
		if (in->ncall)
			memcpy(in->calls, s->instrs[i].calls,
			       sizeof(int) * (size_t)in->ncall);
	}
	return m->ncomp - 1;
}

int
flatten_calls(struct pool *pool, struct diags *ds, struct module *m)
{
	int n0 = m->ncomp, top = 0, nclone = 0, cap = 0, ncl = 0, clcap = 0;
	int *origin = NULL, no = 0, ocap = 0, o;
	int64_t total, budget;
	char *claimed = NULL;
	int *stack = NULL;

	total = module_instrs(m);
	budget = 16 * total + 1000000;
	for (int c = 0; c < n0; c++) {
		*VEC_PUSH(pool, claimed, ncl, clcap) = 0;
		*VEC_PUSH(pool, origin, no, ocap) = c;
	}
	claimed[m->entry] = 1;
	*VEC_PUSH(pool, stack, top, cap) = m->entry;
	while (top > 0) {
		int c = stack[--top];

		for (int i = 0; i < m->comps[c].ninstr; i++) {
			struct instr *in = &m->comps[c].instrs[i];

			if (!runs_program(in))
				continue;
			for (int j = 0; j < in->ncall; j++) {
				int d = in->calls[j];

				if (claimed[d]) {
					budget -= m->comps[d].ninstr + 1;
					if (budget < 0) {
						diag_error(ds, m->loc,
							"flattening the calls "
							"of module '%s' clones "
							"more than %lld "
							"instructions (%s is "
							"called from too many "
							"sites); hloplan plans "
							"each computation from "
							"one call site",
							m->name, (long long)(
							16 * total + 1000000),
							m->comps[d].name);
						return -1;
					}
					o = origin[d];
					d = clone_comp(pool, m, d, ++nclone, o);
					in = &m->comps[c].instrs[i];
					in->calls[j] = d;
					*VEC_PUSH(pool, claimed, ncl, clcap) = 0;
					*VEC_PUSH(pool, origin, no, ocap) = o;
				}
				claimed[d] = 1;
				*VEC_PUSH(pool, stack, top, cap) = d;
			}
		}
	}
	return 0;
}

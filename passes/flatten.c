/* Flattens the call graph (XLA's FlattenCallGraph): a computation that runs
 * as program steps from more than one call site is cloned, so that each
 * runs from one site and each value has one live range.  Clones are named
 * NAME.cloneK, their instructions too.  A budget on cloned instructions
 * keeps deep sharing from growing the module without bound; past it, a
 * shared computation stays shared and the schedule widens its live ranges
 * instead (schedule.c). */
#include <string.h>

#include "passes/passes.h"

/* A copy of computation c whose call lists can be redirected. */
static int
clone_comp(struct pool *pool, struct module *m, int c, int k)
{
	struct comp *d = VEC_PUSH(pool, m->comps, m->ncomp, m->cap);
	const struct comp *s = &m->comps[c];

	*d = *s;
	d->name = pool_printf(pool, "%s.clone%d", s->name, k);
	d->is_entry = 0;
	d->cap = d->ninstr;
	d->instrs = pool_alloc(pool, sizeof(struct instr) *
					     (size_t)(s->ninstr + 1));
	for (int i = 0; i < s->ninstr; i++) {
		struct instr *in = &d->instrs[i];

		*in = s->instrs[i];
		in->name = pool_printf(pool, "%s.clone%d", in->name, k);
		in->calls = pool_alloc(pool, sizeof(int) *
						     (size_t)(in->ncall + 1));
		if (in->ncall)
			memcpy(in->calls, s->instrs[i].calls,
			       sizeof(int) * (size_t)in->ncall);
	}
	return m->ncomp - 1;
}

void
flatten_calls(struct pool *pool, struct module *m)
{
	int n0 = m->ncomp, total = 0, budget, top = 0, nclone = 0;
	char *claimed = pool_alloc(pool, (size_t)n0 * 64 + 64);
	int *stack = pool_alloc(pool, sizeof(int) * ((size_t)n0 * 64 + 64));
	int cap = n0 * 64 + 64;

	for (int c = 0; c < n0; c++)
		total += m->comps[c].ninstr;
	budget = 4 * total + 10000;
	claimed[m->entry] = 1;
	stack[top++] = m->entry;
	while (top > 0) {
		int c = stack[--top];

		for (int i = 0; i < m->comps[c].ninstr; i++) {
			struct instr *in = &m->comps[c].instrs[i];

			if (!runs_program(in))
				continue;
			for (int j = 0; j < in->ncall; j++) {
				int d = in->calls[j];

				if (claimed[d]) {
					if (m->ncomp >= cap ||
					    m->comps[d].ninstr > budget)
						continue;	/* stays shared */
					budget -= m->comps[d].ninstr;
					d = clone_comp(pool, m, d, ++nclone);
					in = &m->comps[c].instrs[i];
					in->calls[j] = d;
				}
				claimed[d] = 1;
				stack[top++] = d;
			}
		}
	}
}

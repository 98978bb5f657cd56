/* The plan's schedule, indexed once for both runs of the oracle
 * (sched.h). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/sched.h"

struct index {
	struct sched *s;
	const struct module *m;
	const struct plan *pl;
	const struct sched_env *env;
};

static _Noreturn void
failf(const struct index *x, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	x->env->fail(x->env->ctx, msg);
	abort();	/* fail does not return */
}

static void *
zalloc(const struct index *x, size_t n)
{
	return x->env->alloc(x->env->ctx, n ? n : 1);
}

int
sched_callee(const struct module *m, const struct instr *in, const char *key,
	     int fallback)
{
	int c = called_comp(m, in, key);

	if (c < 0 && fallback < in->ncall)
		c = in->calls[fallback];
	return c;
}

static void
add_step(const struct index *x, int c, int i, int k)
{
	struct sched *s = x->s;
	const struct comp *cp = &x->m->comps[c];

	if (!s->posbase[c]) {
		s->posbase[c] = zalloc(x, sizeof(int) * (size_t)cp->ninstr);
		s->step[c] = zalloc(x, sizeof(int) * (size_t)cp->ninstr);
		s->order[c] = zalloc(x, sizeof(int) * (size_t)cp->ninstr);
		for (int j = 0; j < cp->ninstr; j++)
			s->posbase[c][j] = -1;
	}
	if (s->posbase[c][i] >= 0)
		failf(x, "the plan lists '%s' twice", cp->instrs[i].name);
	s->posbase[c][i] = k;
	s->step[c][i] = s->nstep++;
	s->order[c][s->norder[c]++] = i;
}

static void
index_positions(const struct index *x)
{
	struct sched *s = x->s;
	const struct module *m = x->m;
	const struct plan *pl = x->pl;
	int lc = -1, li = -1;

	s->posbase = zalloc(x, sizeof(int *) * (size_t)m->ncomp);
	s->step = zalloc(x, sizeof(int *) * (size_t)m->ncomp);
	s->order = zalloc(x, sizeof(int *) * (size_t)m->ncomp);
	s->norder = zalloc(x, sizeof(int) * (size_t)m->ncomp);
	for (int k = 0; k < pl->npos; k++) {
		const struct plan_pos *p = &pl->pos[k];

		if (p->comp < 0 || p->comp >= m->ncomp || p->instr < 0 ||
		    p->instr >= m->comps[p->comp].ninstr || p->buf < 0 ||
		    p->buf >= pl->nbuf)
			failf(x, "plan position %d is out of range", k);
		if (p->comp != lc || p->instr != li)
			add_step(x, p->comp, p->instr, k);
		lc = p->comp;
		li = p->instr;
		if (p->node != k - s->posbase[lc][li])
			failf(x, "plan position %d: nodes out of order", k);
	}
}

static void
check_positions(const struct index *x)
{
	const struct module *m = x->m;
	const struct plan *pl = x->pl;

	for (int c = 0; c < m->ncomp; c++)
		for (int i = 0; x->s->posbase[c] && i < m->comps[c].ninstr;
		     i++) {
			int b = x->s->posbase[c][i], next = b +
				shape_nodes(&m->comps[c].instrs[i].shape);

			if (b < 0 || next > pl->npos ||
			    (next < pl->npos && pl->pos[next].node != 0) ||
			    pl->pos[next - 1].comp != c ||
			    pl->pos[next - 1].instr != i)
				failf(x, "the plan's positions do not cover "
				      "'%s'", m->comps[c].instrs[i].name);
		}
	if (!x->s->posbase[m->entry])
		failf(x, "the plan has no positions");
}

static void
index_copies(const struct index *x)
{
	struct sched *s = x->s;
	const struct plan *pl = x->pl;
	int *fill = zalloc(x, sizeof(int) * (size_t)(s->nstep + 2));

	s->cfirst = zalloc(x, sizeof(int) * (size_t)(s->nstep + 2));
	s->cidx = zalloc(x, sizeof(int) * (size_t)(pl->ncopy + 1));
	s->entry_of = zalloc(x, sizeof(int) * (size_t)(pl->ncopy + 1));
	s->entry_first = zalloc(x, sizeof(int) * (size_t)(pl->ncopy + 1));
	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *pc = &pl->copies[k];

		if (pc->step < 0 || pc->step >= s->nstep || pc->src < 0 ||
		    pc->src >= pl->nbuf || pc->dst < 0 || pc->dst >= pl->nbuf ||
		    pc->bytes < 0)
			failf(x, "plan copy %d is out of range", k);
		s->cfirst[pc->step + 1]++;
		s->entry_of[k] = -1;
	}
	for (int t = 0; t < s->nstep; t++)
		s->cfirst[t + 1] += s->cfirst[t];
	for (int k = 0; k < pl->ncopy; k++) {
		int t = pl->copies[k].step;

		s->cidx[s->cfirst[t] + fill[t]++] = k;
	}
}

/* The first step of a while's loop: the earliest of its condition's and
 * body's own instructions. */
static int
loop_first(const struct index *x, const struct instr *in)
{
	int first = INT_MAX;

	for (int j = 0; j < 2; j++) {
		int d = sched_callee(x->m, in, j ? "body" : "condition", j);

		for (int i = 0; d >= 0 && x->s->posbase[d] &&
				i < x->m->comps[d].ninstr; i++)
			if (x->s->posbase[d][i] >= 0 &&
			    x->s->step[d][i] < first)
				first = x->s->step[d][i];
	}
	return first;
}

/* A copy before a step from a while's initial value into its state, at or
 * before the loop's first step, enters the nearest such loop (loops may
 * nest with the same buffers); one inside the loop is a copy of that
 * step. */
static void
find_entry_copies(const struct index *x, int c, int i)
{
	struct sched *s = x->s;
	const struct plan *pl = x->pl;
	const struct instr *in = &x->m->comps[c].instrs[i];
	int n = shape_nodes(&in->shape), init = s->posbase[c][in->ops[0]];
	int self = s->posbase[c][i], first = loop_first(x, in);

	for (int node = 0; node < n; node++)
		for (int k = 0; k < pl->ncopy; k++) {
			const struct plan_copy *pc = &pl->copies[k];

			if (!pc->after && pc->src == pl->pos[init + node].buf &&
			    pc->dst == pl->pos[self + node].buf &&
			    pc->step <= first &&
			    (s->entry_of[k] < 0 || first < s->entry_first[k])) {
				s->entry_of[k] = self;	/* the nearest loop */
				s->entry_first[k] = first;
			}
		}
}

void
sched_index(struct sched *s, const struct module *m, const struct plan *pl,
	    const struct sched_env *env)
{
	const struct index x = {s, m, pl, env};

	*s = (struct sched){0};
	index_positions(&x);
	check_positions(&x);
	index_copies(&x);
	for (int c = 0; c < m->ncomp; c++)
		for (int i = 0; s->posbase[c] && i < m->comps[c].ninstr; i++) {
			const struct instr *in = &m->comps[c].instrs[i];

			if (in->op && in->op->op == OP_WHILE && in->nops > 0)
				find_entry_copies(&x, c, i);
		}
}

static int
name_ends(const struct instr *in, const char *suffix)
{
	size_t n = strlen(in->op->name), k = strlen(suffix);

	return n > k && !strcmp(in->op->name + n - k, suffix);
}

int
sched_is_start(const struct instr *in)
{
	return in->op && in->op->op != OP_COPY_START &&
	       (in->op->op == OP_ASYNC_START || name_ends(in, "-start"));
}

int
sched_is_done(const struct instr *in)
{
	return in->op && in->op->op != OP_COPY_DONE &&
	       (in->op->op == OP_ASYNC_DONE || name_ends(in, "-done"));
}

uint64_t
sched_shape_hash(const struct shape *s)
{
	uint64_t h = 1469598103934665603u ^ (uint64_t)s->type;

	h = (h ^ (uint64_t)s->rank) * 1099511628211u;
	for (int k = 0; k < s->rank; k++)
		h = (h ^ (uint64_t)s->dims[k]) * 1099511628211u;
	for (int k = 0; k < s->nelem; k++)
		h = (h ^ sched_shape_hash(&s->elems[k])) * 1099511628211u;
	return h;
}

int
sched_donated(const struct module *m, int k)
{
	for (int a = 0; a < m->nalias; a++)
		if (m->aliases[a].param == k)
			return 1;
	return 0;
}

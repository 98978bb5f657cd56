/* Copy insertion: each sharing the model asks for (while state, branch
 * results, in-place ops, input_output_alias) is made when the two values can
 * hold one buffer; when they would be live at once, they stay apart and the
 * runtime copies one into the other where the second takes over (XLA's
 * copy insertion, decided on live intervals). */
#include <stdlib.h>
#include "passes/passes.h"

/* A parameter that input_output_alias gives to an output: writable. */
enum { DONATED = 1 << 9 };

struct cx {
	struct prog *p;
	int *flags;		/* per union-find root: BUF_* of the set */
	int32_t *last;		/* per value: last read inside the current
				   while body, or -1 */
	int lastc, lasti;	/* the while `last` was filled for */
};

static int
root(struct cx *x, int v)
{
	return prog_find(x->p, v);
}

static void
join_sets(struct cx *x, int a, int b)
{
	struct prog *p = x->p;
	int ra = root(x, a), rb = root(x, b), r;
	int32_t s = p->bstart[ra] < p->bstart[rb] ? p->bstart[ra] : p->bstart[rb];
	int32_t e = p->bend[ra] > p->bend[rb] ? p->bend[ra] : p->bend[rb];
	int f = x->flags[ra] | x->flags[rb];

	prog_union(p, ra, rb);
	r = root(x, ra);
	p->bstart[r] = s;
	p->bend[r] = e;
	x->flags[r] = f;
}

/* A set that may not be written: constants, and parameters the runtime
 * owns when they are kept out of the arena. */
static int
read_only(struct cx *x, int v)
{
	int f = x->flags[root(x, v)];

	return (f & BUF_CONST) ||
	       ((f & BUF_PARAM) && !(f & DONATED) && !x->p->opt.io_in_arena);
}

static void
add_copy(struct cx *x, int src, int dst, int32_t step, int after, int phase)
{
	struct prog *p = x->p;
	struct copy *c = VEC_PUSH(p->pool, p->copies, p->ncopy, p->copycap);
	int rs = root(x, src), rd = root(x, dst);

	c->src = src;
	c->dst = dst;
	c->step = step;
	c->after = after;
	c->phase = phase;
	/* Both are live where the copy happens. */
	if (p->bend[rs] < step)
		p->bend[rs] = step;
	if (p->bstart[rs] > step)
		p->bstart[rs] = step;
	if (p->bstart[rd] > step)
		p->bstart[rd] = step;
	if (p->bend[rd] < step)
		p->bend[rd] = step;
}

/* Fills x->last for the state of while (c,i): the last step of its body
 * that reads each state value. */
static void
fill_last_reads(struct cx *x, int c, int i, int body)
{
	struct prog *p = x->p;

	if (x->lastc == c && x->lasti == i)
		return;
	for (int v = 0; v < p->nval; v++)
		x->last[v] = -1;
	for (int32_t t = p->lo[body]; t >= 0 && t <= p->hi[body]; t++)
		step_reads(p, t, x->last);
	x->lastc = c;
	x->lasti = i;
}

/* The state takes the body's new value in place when the old one is no
 * longer read where the new one is made (or is read there by an
 * elementwise op, in place). */
static int
root_fits(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	const struct value *r = &p->values[j->a];
	const struct instr *def = &p->m->comps[r->comp].instrs[r->instr];
	int32_t last, start = p->bstart[root(x, j->a)];

	if (start < p->lo[j->callee])
		return 0;	/* not made in this iteration: another state */
	fill_last_reads(x, j->comp, j->instr, j->callee);
	last = x->last[j->b];
	if (start > last)
		return 1;
	return start == last && r->def == last && r->node == 0 && def->op &&
	       (def->op->flags & OPF_ELEMENTWISE);
}

/* The body's new state element a goes into s by a copy after the body's
 * last step.  When a was not made in this iteration (it is another state
 * element: a rotation or swap), it is saved to a buffer of its own first,
 * before any state is overwritten (phase 0, then phase 1). */
static void
copy_root(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	int32_t end = p->hi[j->callee];
	const struct comp *body = &p->m->comps[j->callee];
	const struct value *a = &p->values[j->a];
	int t;

	if (p->bstart[root(x, j->a)] >= p->lo[j->callee]) {
		add_copy(x, j->a, j->b, end, 1, 1);
		return;
	}
	t = prog_new_value(p, j->callee, body->root, p->values[j->b].node,
			   a->shape, 0);
	p->values[t].def = p->values[t].end = end;
	p->bstart[t] = p->bend[t] = end;
	x->flags[t] = 0;
	add_copy(x, j->a, t, end, 1, 0);
	add_copy(x, t, j->b, end, 1, 1);
}

/* Two sets between which a copy was decided stay apart for good. */
static int
copied_apart(struct cx *x, int ra, int rb)
{
	for (int k = 0; k < x->p->ncopy; k++) {
		int s = root(x, x->p->copies[k].src);
		int d = root(x, x->p->copies[k].dst);

		if ((s == ra && d == rb) || (s == rb && d == ra))
			return 1;
	}
	return 0;
}

/* Does the instruction at step t write its output in place over every
 * value of set rb it reads: an elementwise op (not a copy) over an
 * operand of its very shape, or dynamic-update-slice and scatter over
 * operand 0? */
static int
in_place_over(struct cx *x, int32_t t, int rb)
{
	struct prog *p = x->p;
	int c = p->steps[t].comp, i = p->steps[t].instr, found = 0;
	const struct instr *in = &p->m->comps[c].instrs[i];
	int op = in->op ? in->op->op : OP_OTHER;
	int ew = in->op && (in->op->flags & OPF_ELEMENTWISE) && op != OP_COPY;

	if (shape_is_tuple(&in->shape))
		return 0;
	for (int k = 0; k < in->nops; k++) {
		const struct instr *o = &p->m->comps[c].instrs[in->ops[k]];
		int n = shape_nodes(&o->shape);

		for (int node = 0; node < n; node++) {
			if (root(x, prog_val(p, c, in->ops[k], node)) != rb)
				continue;
			if (!((ew && node == 0 && same_layout(&o->shape,
							      &in->shape)) ||
			      ((op == OP_DUS || op == OP_SCATTER) && k == 0)))
				return 0;
			found = 1;
		}
	}
	return found;
}

/* Can the two sets of join j hold one buffer? */
static int
can_join(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	int ra = root(x, j->a), rb = root(x, j->b);
	int32_t bdef = p->values[j->b].def;

	if (copied_apart(x, ra, rb))
		return 0;
	switch (j->kind) {
	case J_WHILE_ROOT:
		return !read_only(x, j->a) && root_fits(x, j);
	case J_ALIAS:
	case J_ALIAS_MUST:
		/* a: the output; b: the parameter it may take over, once
		 * no longer read; at the step that makes a only if that op
		 * writes in place over what it reads of b. */
		if (read_only(x, j->a))
			return 0;
		return p->bend[rb] < p->bstart[ra] ||
		       (p->bend[rb] == p->bstart[ra] &&
			in_place_over(x, p->bstart[ra], rb));
	default:	/* init, branch result, in-place op */
		return !read_only(x, j->a) && p->bend[ra] <= bdef;
	}
}

/* Keeps the two values of join j apart: the copy that stands for the
 * sharing, where the second takes over (none for a may-alias). */
static void
keep_apart(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	int32_t bdef = p->values[j->b].def;

	switch (j->kind) {
	case J_WHILE_INIT:
	case J_IN_PLACE:
		add_copy(x, j->a, j->b, bdef, 0, 1);
		return;
	case J_WHILE_ROOT:
		copy_root(x, j);
		return;
	case J_BRANCH:
		add_copy(x, j->a, j->b, p->hi[j->callee], 1, 1);
		return;
	case J_ALIAS_MUST:
		add_copy(x, j->a, j->b, p->ntime - 1, 1, 1);
		return;
	}
}

static void
do_join(struct cx *x, const struct join *j)
{
	if (root(x, j->a) == root(x, j->b))
		return;
	if (can_join(x, j))
		join_sets(x, j->a, j->b);
	else
		keep_apart(x, j);
}

/* The runtime's order: by step, before the step then after it, and at one
 * point the saving copies first; otherwise as decided. */
static int
cmp_copy(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;

	if (x->step != y->step)
		return (x->step > y->step) - (x->step < y->step);
	if (x->after != y->after)
		return x->after - y->after;
	if (x->phase != y->phase)
		return x->phase - y->phase;
	return (x->src > y->src) - (x->src < y->src);
}

void
insert_copies(struct prog *p)
{
	struct cx x = {.p = p, .lastc = -1, .lasti = -1};
	size_t n = (size_t)(p->nval + p->njoin + 1);

	x.flags = pool_alloc(p->pool, sizeof(int) * n);
	x.last = pool_alloc(p->pool, sizeof(int32_t) * n);
	for (int v = 0; v < p->nval; v++)
		x.flags[root(&x, v)] |= p->values[v].flags;
	for (int k = 0; k < p->njoin; k++)
		if (p->joins[k].kind == J_ALIAS || p->joins[k].kind == J_ALIAS_MUST)
			x.flags[root(&x, p->joins[k].b)] |= DONATED;
	for (int k = 0; k < p->njoin; k++)
		do_join(&x, &p->joins[k]);
	if (p->ncopy > 1)
		qsort(p->copies, (size_t)p->ncopy, sizeof *p->copies, cmp_copy);
}

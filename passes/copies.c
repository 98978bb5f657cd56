/* Copy insertion: each sharing the model asks for (a loop's init and next
 * state, branch results, in-place ops, input_output_alias) is made when the
 * two sets of values can hold one buffer (sets.c: no two of their spans
 * overlap); otherwise they stay apart and the runtime copies the source
 * into the destination where it hands over (XLA's copy insertion). */
#include <stdlib.h>
#include "passes/passes.h"

/* A parameter that input_output_alias gives to an output: writable. */
enum { DONATED = 1 << 9 };

struct cx {
	struct prog *p;
	int *flags;		/* per union-find root: BUF_* of the set */
	int *space;		/* per root: the memory space of its arrays,
				   or -1 (tables only) */
	char *written;		/* per root: something writes the set (an
				   instruction, a copy, a hand-over) */
};

static int
root(struct cx *x, int v)
{
	return prog_find(x->p, v);
}

/* A set that may not be written: constants, and parameters not donated
 * (input_output_alias), which survive the call unless the runtime lets
 * their space be reused (--reuse-params, in the arena). */
static int
read_only(struct cx *x, int v)
{
	int f = x->flags[root(x, v)];

	return (f & BUF_CONST) ||
	       ((f & BUF_PARAM) && !(f & DONATED) &&
		(!x->p->opt.io_in_arena || !x->p->opt.reuse_params));
}

/* A value of a buffer shape b(...) is never copied into another buffer
 * (XLA: a buffer is not copyable); a plan that needs to is refused.  Its
 * bytes copied into an array are XLA's copy after the op that leaves the
 * chain (an Unpin): that copy is made. */
static int
copyable(struct prog *p, int v, int dst)
{
	const struct value *x = &p->values[v];
	const struct instr *in = &p->m->comps[x->comp].instrs[x->instr];

	if (!x->shape->is_buffer || !p->values[dst].shape->is_buffer)
		return 1;
	diag_error(p->ds, in->loc, "'%s' is a buffer b(...), which must not "
		   "be copied, but two of its values are needed at once here: "
		   "XLA's verifier refuses a buffer with two writers or used "
		   "in results more than once", in->name);
	return 0;
}

static void
add_copy(struct cx *x, int src, int dst, int32_t step, int after, int phase)
{
	struct prog *p = x->p;
	struct copy *c;

	if (!copyable(p, src, dst))
		return;		/* a copy into a buffer is XLA's too */
	c = VEC_PUSH(p->pool, p->copies, p->ncopy, p->copycap);

	c->src = src;
	c->dst = dst;
	c->step = step;
	c->after = after;
	c->phase = phase;
}

/* Is the state that join j (a rotation of loop j's state) writes the
 * source of another rotation of that loop, which reads its old bytes at
 * the same point?  (A swap: then each goes through a buffer of its own.) */
static int
rotation_source(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;

	for (int k = 0; k < p->njoin; k++) {
		const struct join *o = &p->joins[k];

		if (o != j && o->kind == J_WHILE_ROOT && o->comp == j->comp &&
		    o->instr == j->instr && o->hand == j->hand &&
		    root(x, o->a) == root(x, j->b))
			return 1;
	}
	return 0;
}

/* The next state at one index is a value not made in this iteration (the
 * state at another index, a rotation): it is saved to a buffer of its own
 * first, before any state is overwritten (phase 0, then phase 1). */
static void
copy_rotation(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	int32_t end = pt_step(j->hand);
	const struct comp *body = &p->m->comps[j->callee];
	int t;

	if (!rotation_source(x, j)) {	/* nothing reads b's old bytes
					   there: one copy, before any state
					   is overwritten */
		add_copy(x, j->a, j->b, end, 1, 0);
		return;
	}
	t = sets_new_value(p, j->callee, body->root, p->values[j->b].node,
			   p->values[j->a].shape, pt(end, PT_AFTER0),
			   pt(end, PT_AFTER1));
	add_copy(x, j->a, t, end, 1, 0);
	add_copy(x, t, j->b, end, 1, 1);
}

/* Keeps the two values of join j apart: the copy that stands for the
 * sharing, where the source hands over (none for a may-alias). */
static void
keep_apart(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	int32_t t = pt_step(j->hand);

	switch (j->kind) {
	case J_WHILE_INIT:
		add_copy(x, j->a, j->b, t, 0, 1);
		return;
	case J_IN_PLACE:
		/* The op then runs in place on the copy. */
		add_copy(x, j->a, j->b, t, 0, 1);
		sets_add(p, j->b, pt(t, PT_BEFORE1), pt(t, PT_INSTR));
		return;
	case J_WHILE_ROOT:
	case J_BRANCH:
	case J_ALIAS_MUST:
		add_copy(x, j->a, j->b, t, 1, 1);
		return;
	case J_OUTPUT:	/* first: an aliased output may then overwrite
			   the parameter */
		add_copy(x, j->a, j->b, t, 1, 0);
		return;
	}
}

/* An input_output_alias between arrays of different sizes on the target
 * (a bitcast or transpose in between may change the shape, not the size:
 * XLA's layout-sensitive HloInputOutputAliasConfig::Verify).  A may-alias
 * is then dropped; a must-alias cannot be kept. */
static int
alias_sizes_differ(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	const struct shape *a = p->values[j->a].shape;
	const struct shape *b = p->values[j->b].shape;
	int64_t sa = target_bytes(&p->opt, a), sb = target_bytes(&p->opt, b);

	if (shape_is_tuple(a) || shape_is_tuple(b) || sa == sb)
		return 0;
	if (j->kind == J_ALIAS_MUST)
		diag_error(p->ds, p->m->loc, "input_output_alias: an output "
			   "of %lld bytes must alias a parameter of %lld "
			   "bytes", (long long)sa, (long long)sb);
	return 1;
}

/* The sharing join j asks for, when the two sets can hold one buffer;
 * otherwise the copy that stands for it (XLA's copy insertion adds it and
 * removes it when it can prove it unneeded: here, decided at once). */
static void
do_join(struct cx *x, const struct join *j)
{
	struct prog *p = x->p;
	int ra = root(x, j->a), rb = root(x, j->b), f, s, w;

	if (j->kind == J_ALIAS || j->kind == J_ALIAS_MUST) {
		p->nalias++;
		if (alias_sizes_differ(x, j))
			return;
	}
	if (ra == rb || (!shape_is_tuple(p->values[j->a].shape) &&
			 p->values[j->a].shape->type == DT_TOKEN))
		return;		/* a token holds no bytes: nothing to copy */
	if (j->kind == J_WHILE_ROOT && j->hand != pt(pt_step(j->hand),
						     PT_AFTER1)) {
		copy_rotation(x, j);
		return;
	}
	if (x->space[ra] >= 0 && x->space[rb] >= 0 &&
	    x->space[ra] != x->space[rb]) {	/* a copy between spaces */
		if (j->kind == J_ALIAS_MUST)
			diag_error(p->ds, p->m->loc, "input_output_alias: an "
				   "output in memory space %d must alias a "
				   "parameter in memory space %d",
				   x->space[ra], x->space[rb]);
		keep_apart(x, j);
		return;
	}
	if (j->kind == J_OUTPUT || ((read_only(x, j->a) || read_only(x, j->b)) &&
				    (x->written[ra] || x->written[rb])) ||
	    sets_conflict(p, j->a, j->b)) {
		keep_apart(x, j);
		return;
	}
	f = x->flags[ra] | x->flags[rb];
	s = x->space[ra] >= 0 ? x->space[ra] : x->space[rb];
	w = x->written[ra] | x->written[rb];
	sets_union(p, j->a, j->b);
	x->flags[root(x, j->a)] = f;
	x->space[root(x, j->a)] = s;
	x->written[root(x, j->a)] = w;
}

/* An op that takes an array into a chain of buffers b(...) (a Pin) or
 * out of one (an Unpin), in place.  These joins are made last: a loop
 * state of a chain pipelined across iterations first joins the chain's
 * two parts, and a copy falls on the arrays around them, never on a
 * buffer (XLA's AddCopiesForNonCopyableTransitionsRotatedCase: a copy of
 * the Pin's operand, of the Unpin's result). */
static int
transition(const struct prog *p, const struct join *j)
{
	return j->kind == J_IN_PLACE &&
	       !shape_is_tuple(p->values[j->a].shape) &&
	       !shape_is_tuple(p->values[j->b].shape) &&
	       p->values[j->a].shape->is_buffer !=
		       p->values[j->b].shape->is_buffer;
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

int
insert_copies(struct prog *p)
{
	struct cx x = {.p = p};
	int nerr = p->ds->n;

	/* Room for a saving buffer per join. */
	x.flags = pool_alloc(p->pool, sizeof(int) *
					      (size_t)(p->nval + p->njoin + 1));
	x.space = pool_alloc(p->pool, sizeof(int) *
					      (size_t)(p->nval + p->njoin + 1));
	sets_init(p);
	for (int v = 0; v < p->nval + p->njoin + 1; v++)
		x.space[v] = -1;
	for (int v = 0; v < p->nval; v++) {
		x.flags[root(&x, v)] |= p->values[v].flags;
		if (!shape_is_tuple(p->values[v].shape))
			x.space[root(&x, v)] = p->values[v].shape->space;
	}
	/* What writes a set: an instruction that defines a value in it, a
	 * copy or a hand-over into it.  A read-only set (a constant, a
	 * parameter the runtime owns) may join only a set nothing writes:
	 * a loop state that the body passes on unchanged. */
	x.written = pool_alloc(p->pool, (size_t)(p->nval + p->njoin + 1));
	for (int v = 0; v < p->nval; v++)
		if (!(p->values[v].flags & (BUF_PARAM | BUF_CONST | VAL_PHI)))
			x.written[root(&x, v)] = 1;
	for (int k = 0; k < p->njoin; k++) {
		const struct join *j = &p->joins[k];

		if (j->kind == J_ALIAS || j->kind == J_ALIAS_MUST)
			x.flags[root(&x, j->b)] |= DONATED;
		if (j->kind != J_WHILE_INIT && j->kind != J_ALIAS)
			x.written[root(&x, j->b)] = 1;
	}
	for (int k = 0; k < p->njoin; k++)
		if (!transition(p, &p->joins[k]))
			do_join(&x, &p->joins[k]);
	for (int k = 0; k < p->njoin; k++)
		if (transition(p, &p->joins[k]))
			do_join(&x, &p->joins[k]);
	for (int k = 0; k < p->njoin; k++)	/* a must-alias is kept by
						   its copy */
		p->nalias_kept += p->joins[k].kind == J_ALIAS_MUST ||
				  (p->joins[k].kind == J_ALIAS &&
				   root(&x, p->joins[k].a) ==
					   root(&x, p->joins[k].b));
	if (p->ncopy > 1)
		qsort(p->copies, (size_t)p->ncopy, sizeof *p->copies, cmp_copy);
	prog_hulls(p);
	return p->ds->n > nerr ? -1 : 0;
}

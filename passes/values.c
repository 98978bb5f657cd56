/* Values and forced sharing (XLA's HloDataflowAnalysis, without phis): each
 * instruction output node holds one value, defined there or forwarded from
 * an operand; while, conditional, call, in-place ops and input_output_alias
 * join values that must share a buffer. */
#include <string.h>

#include "passes/passes.h"

/* New values for every node of s, from node `node` on, into row[];
 * returns the count. */
static int
define_into(struct prog *p, int c, int i, const struct shape *s, int node,
	    int flags, int *row)
{
	int n = 1;

	row[node] = prog_new_value(p, c, i, node, s, flags);
	for (int k = 0; k < s->nelem; k++)
		n += define_into(p, c, i, &s->elems[k], node + n, flags, row);
	return n;
}

/* New values for the nodes of (c,i)'s output from node `node` on. */
static int
define_tree(struct prog *p, int c, int i, const struct shape *s, int node,
	    int flags)
{
	return define_into(p, c, i, s, node, flags,
			   &p->nodeval[p->nodebase[c][i]]);
}

/* The state values of while (c,i), one per node, made on first need. */
static int *
while_phis(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	int n = shape_nodes(&in->shape);
	int **row;

	if (!p->phi[c])
		p->phi[c] = pool_alloc(p->pool, sizeof(int *) *
				       (size_t)(p->m->comps[c].ninstr + 1));
	row = &p->phi[c][i];
	if (*row)
		return *row;
	*row = pool_alloc(p->pool, sizeof(int) * (size_t)n);
	define_into(p, c, i, &in->shape, 0, VAL_PHI, *row);
	return *row;
}

static void
add_join(struct prog *p, int kind, int a, int b, int c, int i, int callee)
{
	struct join *j = VEC_PUSH(p->pool, p->joins, p->njoin, p->joincap);

	j->kind = kind;
	j->a = a;
	j->b = b;
	j->comp = c;
	j->instr = i;
	j->callee = callee;
}

static void
mismatch(struct prog *p, const struct instr *in, const char *what)
{
	diag_error(p->ds, in->loc, "the shape of '%s' does not match %s",
		   in->name, what);
}

/* Output nodes [dst, dst+n) of (c,i) take the values of operand k's nodes
 * from src on; a shape mismatch is the input's error. */
static int
forward(struct prog *p, int c, int i, int dst, int k, int src, int n)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int o = in->ops[k], ob = p->nodebase[c][o];

	if (ob < 0 || src + n > shape_nodes(&cp->instrs[o].shape)) {
		mismatch(p, in, "its operand's");
		return 0;
	}
	memcpy(&p->nodeval[p->nodebase[c][i] + dst], &p->nodeval[ob + src],
	       sizeof(int) * (size_t)n);
	return 1;
}

/* Joins n nodes of two outputs: they must share buffers. */
static void
join(struct prog *p, int base_a, int base_b, int n)
{
	for (int k = 0; k < n; k++)
		prog_union(p, p->nodeval[base_a + k], p->nodeval[base_b + k]);
}

/* Which operand of the calling instruction feeds parameter `param` of
 * callee d: the while's state, a branch's operand, or a call's argument. */
static int
caller_operand(const struct prog *p, const struct instr *call, int d,
	       int64_t param)
{
	if (call->op->op == OP_WHILE)
		return param == 0 && call->nops == 1 ? 0 : -1;
	if (call->op->op == OP_CALL)
		return param < call->nops ? (int)param : -1;
	for (int j = 0; j < call->ncall; j++)
		if (call->calls[j] == d)
			return param == 0 && j + 1 < call->nops ? j + 1 : -1;
	(void)p;
	return -1;
}

static void
do_parameter(struct prog *p, int c, int i)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int sc = p->site_comp[c], si = p->site_instr[c], k;
	const struct comp *caller;

	if (c == p->m->entry || sc < 0) {
		define_tree(p, c, i, &in->shape, 0, c == p->m->entry ?
			    BUF_PARAM : 0);
		return;
	}
	caller = &p->m->comps[sc];
	k = caller_operand(p, &caller->instrs[si], c, in->param);
	if (k < 0 || shape_nodes(&caller->instrs[caller->instrs[si].ops[k]]
				 .shape) != shape_nodes(&in->shape)) {
		mismatch(p, in, "what its caller passes");
		define_tree(p, c, i, &in->shape, 0, 0);
		return;
	}
	if (caller->instrs[si].op->op == OP_WHILE) {
		/* A loop's condition and body read its state, not its init. */
		memcpy(&p->nodeval[p->nodebase[c][i]], while_phis(p, sc, si),
		       sizeof(int) * (size_t)shape_nodes(&in->shape));
		return;
	}
	memcpy(&p->nodeval[p->nodebase[c][i]],
	       &p->nodeval[p->nodebase[sc][caller->instrs[si].ops[k]]],
	       sizeof(int) * (size_t)shape_nodes(&in->shape));
}

/* A call site other than the first: the callee's parameters already hold
 * the first site's values, so this site's operands join them. */
static void
join_params(struct prog *p, int c, int i, int d)
{
	const struct comp *dc = &p->m->comps[d];
	const struct instr *call = &p->m->comps[c].instrs[i];

	if (p->site_comp[d] == c && p->site_instr[d] == i)
		return;
	for (int k = 0; k < dc->nparam; k++) {
		int pi = dc->params[k], o = caller_operand(p, call, d, k);

		if (pi < 0 || o < 0 || p->nodebase[d][pi] < 0)
			continue;
		if (shape_nodes(&dc->instrs[pi].shape) ==
		    shape_nodes(&p->m->comps[c].instrs[call->ops[o]].shape))
			join(p, p->nodebase[d][pi],
			     p->nodebase[c][call->ops[o]],
			     shape_nodes(&dc->instrs[pi].shape));
	}
}

/* The callee's ROOT output joins (or, for call, becomes) the result. */
static int
root_base(const struct prog *p, int d)
{
	const struct comp *dc = &p->m->comps[d];

	if (dc->root < 0 || p->nodebase[d][dc->root] < 0)
		return -1;
	return p->nodebase[d][dc->root];
}

static void
do_while(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	int n = shape_nodes(&in->shape), body = called_comp(p->m, in, "body");
	int cond = called_comp(p->m, in, "condition"), rb;

	int *phi, ib;

	if (in->nops != 1 || body < 0 || cond < 0 ||
	    shape_nodes(&p->m->comps[c].instrs[in->ops[0]].shape) != n) {
		diag_error(p->ds, in->loc, "while '%s' needs one operand of "
			   "its shape, condition= and body=", in->name);
		define_tree(p, c, i, &in->shape, 0, 0);
		return;
	}
	phi = while_phis(p, c, i);
	memcpy(&p->nodeval[p->nodebase[c][i]], phi, sizeof(int) * (size_t)n);
	join_params(p, c, i, body);
	join_params(p, c, i, cond);
	ib = p->nodebase[c][in->ops[0]];
	for (int k = 0; k < n; k++)
		add_join(p, J_WHILE_INIT, p->nodeval[ib + k], phi[k], c, i, -1);
	rb = root_base(p, body);
	if (rb < 0 || shape_nodes(&p->m->comps[body].instrs[
			p->m->comps[body].root].shape) != n) {
		mismatch(p, in, "its body's ROOT");
		return;
	}
	for (int k = 0; k < n; k++)
		if (p->nodeval[rb + k] != phi[k])
			add_join(p, J_WHILE_ROOT, p->nodeval[rb + k], phi[k],
				 c, i, body);
		else if (!(p->values[p->nodeval[ib + k]].flags & BUF_CONST) &&
			 !(c == p->m->entry && i == p->m->comps[c].root)) {
			/* a phi of one value is that value (XLA's SSA form):
			   the state the body passes on as it is.  A constant's
			   is left to copies.c, which keeps constants out of
			   the arena where it can; so is the state of a loop
			   that is the entry's ROOT, whose places are the
			   outputs' */
			prog_union(p, p->nodeval[ib + k], phi[k]);
			p->values[phi[k]].flags |= VAL_SAME;
		}
}

static void
do_call(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	int n = shape_nodes(&in->shape), rb;

	if (in->ncall == 0) {
		diag_error(p->ds, in->loc, "%s '%s' names no computation to "
			   "run (%s)", in->op->name, in->name,
			   in->op->op == OP_CALL ? "to_apply=" :
			   "branch_computations= or true_computation= and "
			   "false_computation=");
		if (in->op->op == OP_CALL)
			define_tree(p, c, i, &in->shape, 0, 0);
		return;
	}
	for (int j = 0; j < in->ncall; j++) {
		int d = in->calls[j];

		join_params(p, c, i, d);
		rb = root_base(p, d);
		if (rb < 0 || shape_nodes(&p->m->comps[d].instrs[
				p->m->comps[d].root].shape) != n) {
			mismatch(p, in, "its computation's ROOT");
			define_tree(p, c, i, &in->shape, 0, 0);
			return;
		}
		if (in->op->op == OP_CALL) {
			memcpy(&p->nodeval[p->nodebase[c][i]], &p->nodeval[rb],
			       sizeof(int) * (size_t)n);
			continue;
		}
		for (int k = 0; k < n; k++)
			add_join(p, J_BRANCH, p->nodeval[rb + k],
				 p->nodeval[p->nodebase[c][i] + k], c, i, d);
	}
}

static void
do_tuple(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	int node = 1;

	if (in->nops != in->shape.nelem) {
		mismatch(p, in, "its operands");
		define_tree(p, c, i, &in->shape, 0, 0);
		return;
	}
	p->nodeval[p->nodebase[c][i]] = prog_new_value(p, c, i, 0, &in->shape, 0);
	for (int k = 0; k < in->nops; k++) {
		int n = shape_nodes(&in->shape.elems[k]);
		int o = shape_nodes(&p->m->comps[c].instrs[in->ops[k]].shape);

		if (n != o || !forward(p, c, i, node, k, 0, n)) {
			mismatch(p, in, "its operands");
			define_tree(p, c, i, &in->shape.elems[k], node, 0);
		}
		node += n;
	}
}

/* A copy of a tuple copies its index table only (XLA's dataflow:
 * UpdateCopyValueSet): the top level is new, the elements are the
 * operand's. */
static void
do_shallow_copy(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	int n = shape_nodes(&in->shape);

	if (in->nops != 1 || !shape_equal(&in->shape, &p->m->comps[c].instrs[
					      in->ops[0]].shape)) {
		mismatch(p, in, "its operand's");
		define_tree(p, c, i, &in->shape, 0, 0);
		return;
	}
	p->nodeval[p->nodebase[c][i]] = prog_new_value(p, c, i, 0, &in->shape, 0);
	forward(p, c, i, 1, 0, 1, n - 1);
}

static void do_in_place(struct prog *p, int c, int i);
static int must_pair(const struct prog *p, const struct comp *cp,
		     const struct instr *in, int node, int *k, int *kn);

/* Forwards element `elem` of operand 0's tuple (get-tuple-element, and the
 * -done half of async pairs); otherwise defines new values. */
static void
do_element(struct prog *p, int c, int i, int64_t elem)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	const struct shape *os;
	int n = shape_nodes(&in->shape);

	if (in->nops >= 1) {
		os = &p->m->comps[c].instrs[in->ops[0]].shape;
		if (shape_is_tuple(os) && elem >= 0 && elem < os->nelem &&
		    shape_nodes(&os->elems[elem]) == n &&
		    shape_is_tuple(&os->elems[elem]) ==
			    shape_is_tuple(&in->shape) &&
		    forward(p, c, i, 0, 0, shape_child(os, (int)elem), n))
			return;
	}
	if (in->op->op == OP_GTE)
		mismatch(p, in, "element index of its operand");
	do_in_place(p, c, i);	/* (a done of a late-bound output: it
				   writes, maybe over what it bound) */
}

/* copy-start defines (destination, source, context); the source is
 * operand 0 itself, so it stays live until the copy-done. */
static void
do_copy_start(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	const struct shape *s = &in->shape;
	int n, node = 1;

	if (in->nops < 1 || !shape_is_tuple(s) || s->nelem < 2 ||
	    shape_nodes(&s->elems[1]) !=
		    shape_nodes(&p->m->comps[c].instrs[in->ops[0]].shape)) {
		define_tree(p, c, i, s, 0, 0);
		return;
	}
	p->nodeval[p->nodebase[c][i]] = prog_new_value(p, c, i, 0, s, 0);
	for (int k = 0; k < s->nelem; k++) {
		n = shape_nodes(&s->elems[k]);
		if (k == 1)
			forward(p, c, i, node, 0, 0, n);
		else
			define_tree(p, c, i, &s->elems[k], node, 0);
		node += n;
	}
}

/* bitcast, opt-barrier, add-dependency, domain: the output is operand 0. */
static void
do_forward(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	int n = shape_nodes(&in->shape);

	if (in->nops < 1 || n != shape_nodes(&p->m->comps[c].instrs[
				  in->ops[0]].shape) ||
	    !forward(p, c, i, 0, 0, 0, n))
		define_tree(p, c, i, &in->shape, 0, 0);
}

/* Element e of (c,i)'s tuple at node `at` forwards n nodes of operand k
 * from node src when their shapes agree; else it is defined here. */
static void
element_from(struct prog *p, int c, int i, int at, const struct shape *e,
	     int k, int src, const struct shape *from)
{
	if (from && shape_equal(e, from) && k < p->m->comps[c].instrs[i].nops &&
	    forward(p, c, i, at, k, src, shape_nodes(e)))
		return;
	define_tree(p, c, i, e, at, 0);
}

/* An async-update that binds late: (bound operands, result, contexts).
 * {0, e} is what the chain bound (the previous op's {0, e}, then its own
 * operands 1, 2, ...); {1} the previous op's when bound there, else what
 * the computation writes now (over an operand it updates in place:
 * rules.c); contexts the previous op's (XLA's UpdateAsyncUpdateValueSet). */
static void
do_late_update(struct prog *p, int c, int i)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	const struct shape *s = &in->shape, *q = &cp->instrs[in->ops[0]].shape;
	const struct shape *e0 = &s->elems[0], *q0 = &q->elems[0];
	int at = shape_child(s, 0), qa = shape_child(q, 0), np = q0->nelem;

	p->nodeval[p->nodebase[c][i]] = prog_new_value(p, c, i, 0, s, 0);
	p->nodeval[p->nodebase[c][i] + at] = prog_new_value(p, c, i, at, e0, 0);
	for (int e = 0; e < e0->nelem; e++) {
		int k = e < np ? 0 : e - np + 1;
		const struct shape *from = e < np ? &q0->elems[e] :
					   k < in->nops ?
					   &cp->instrs[in->ops[k]].shape : NULL;

		element_from(p, c, i, at + shape_child(e0, e), &e0->elems[e], k,
			     e < np ? qa + shape_child(q0, e) : 0, from);
	}
	for (int e = 1; e < s->nelem; e++)
		element_from(p, c, i, shape_child(s, e), &s->elems[e], 0,
			     e < q->nelem ? shape_child(q, e) : 0,
			     e < q->nelem && (e != 1 || !shape_is_tuple(
					&q->elems[1]) || q->elems[1].nelem) ?
				     &q->elems[e] : NULL);
	for (int node = shape_child(s, 1), end = node + shape_nodes(
		     &s->elems[1]); node < end; node++) {
		int k, kn;

		if (p->values[prog_val(p, c, i, node)].instr == i &&
		    must_pair(p, cp, in, node, &k, &kn))
			add_join(p, J_IN_PLACE, prog_val(p, c, in->ops[k], kn),
				 prog_val(p, c, i, node), c, i, -1);
	}
}

/* Does (c,i), an async-update, bind late: operands past its chain, or a
 * shape that is not its operand's? */
static int
binds_late(const struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	const struct shape *s = &in->shape, *q;

	if (in->nops < 1)
		return 0;
	q = &p->m->comps[c].instrs[in->ops[0]].shape;
	return (in->nops > 1 || !shape_equal(s, q)) && shape_is_tuple(s) &&
	       s->nelem >= 2 && shape_is_tuple(&s->elems[0]) &&
	       shape_is_tuple(q) && q->nelem >= 2 &&
	       shape_is_tuple(&q->elems[0]);
}

/* How element 0 of start (c,i) can be its operands themselves: the one
 * operand whole (1), each operand an element of a tuple (2), or not (0). */
static int
start_forwards(const struct prog *p, int c, int i)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	const struct shape *e0 = &in->shape.elems[0];

	if (permute_in_place(in))	/* {0} is its input, operand 0 */
		return shape_nodes(&cp->instrs[in->ops[0]].shape) ==
		       shape_nodes(e0);
	if (in->nops == 1 && shape_nodes(&cp->instrs[in->ops[0]].shape) ==
				     shape_nodes(e0))
		return 1;
	if (!shape_is_tuple(e0) || e0->nelem != in->nops)
		return 0;
	for (int k = 0; k < in->nops; k++)
		if (shape_nodes(&e0->elems[k]) !=
		    shape_nodes(&cp->instrs[in->ops[k]].shape))
			return 0;
	return 2;
}

/* An asynchronous start's element 0 is its operands themselves, kept there
 * until the done (XLA's dataflow: start{0} aliases the operand): one
 * operand of that shape, or a tuple of them.  The rest is new.  Only what
 * is new gets a value: a forwarded node's own would hold no data. */
static void
do_start(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	const struct shape *s = &in->shape, *e0 = &s->elems[0];
	int at = shape_child(s, 0), how = start_forwards(p, c, i);

	if (!how) {
		define_tree(p, c, i, s, 0, 0);
		return;
	}
	p->nodeval[p->nodebase[c][i]] = prog_new_value(p, c, i, 0, s, 0);
	for (int k = 1; k < s->nelem; k++)
		define_tree(p, c, i, &s->elems[k], shape_child(s, k), 0);
	for (int node = shape_child(s, 1), end = node + shape_nodes(
		     &s->elems[1]); node < end; node++) {	/* a result that
							   is an operand */
		int k, kn;

		if (must_pair(p, &p->m->comps[c], in, node, &k, &kn))
			add_join(p, J_IN_PLACE, prog_val(p, c, in->ops[k], kn),
				 prog_val(p, c, i, node), c, i, -1);
	}
	if (how == 1) {
		forward(p, c, i, at, 0, 0, shape_nodes(e0));
		return;
	}
	p->nodeval[p->nodebase[c][i] + at] =
		prog_new_value(p, c, i, at, e0, 0);	/* the tuple itself */
	for (int k = 0; k < in->nops; k++)
		forward(p, c, i, at + shape_child(e0, k), k, 0,
			shape_nodes(&e0->elems[k]));
}

/* The operand k and its node *kn that output node `node` of in must be
 * written over, if any (the first: XLA pairs an output with one). */
static int
must_pair(const struct prog *p, const struct comp *cp, const struct instr *in,
	  int node, int *k, int *kn)
{
	for (*k = 0; *k < in->nops; (*k)++)
		for (*kn = 0; *kn < shape_nodes(&cp->instrs[in->ops[*k]].shape);
		     (*kn)++)
			if (in_place_must(p, cp, in, *k, *kn, node))
				return 1;
	return 0;
}

/* An op that must update an operand in place where its output cannot lie
 * over it: no plan is right (the kernel would read its operand from bytes
 * nothing wrote), so it is the module's error. */
static void
unmet(struct prog *p, const struct comp *cp, const struct instr *in,
      int node)
{
	for (int k = 0; k < in->nops; k++)
		for (int kn = 0; kn < shape_nodes(&cp->instrs[in->ops[k]].shape);
		     kn++)
			if (must_unmet(p, cp, in, k, kn, node)) {
				diag_error(p->ds, in->loc, "'%s' must write its "
					   "output over operand %d in place, "
					   "but on the TPU the two are not laid "
					   "out alike: layout assignment must "
					   "make them agree", in->name, k);
				return;
			}
}

/* An op that updates an operand in place writes into its buffer: each
 * output node joins the operand node it must be written over. */
static void
do_in_place(struct prog *p, int c, int i)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];

	define_tree(p, c, i, &in->shape, 0, 0);
	for (int node = 0, nn = shape_nodes(&in->shape); node < nn; node++) {
		int k, kn;

		if (must_pair(p, cp, in, node, &k, &kn))
			add_join(p, J_IN_PLACE, prog_val(p, c, in->ops[k], kn),
				 prog_val(p, c, i, node), c, i, -1);
		else
			unmet(p, cp, in, node);
	}
}

/* send: element 0 is its operand, kept until the send-done; the context
 * and token are new. */
static void
do_send(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	const struct shape *s = &in->shape;

	define_tree(p, c, i, s, 0, 0);
	if (in->nops >= 1 && shape_is_tuple(s) && s->nelem >= 1 &&
	    shape_equal(&s->elems[0],	/* (else the send copies) */
			&p->m->comps[c].instrs[in->ops[0]].shape))
		forward(p, c, i, 1, 0, 0, shape_nodes(&s->elems[0]));
}

/* recv-done: element 0 is what the recv received, in recv{0}. */
static void
do_recv_done(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	const struct shape *s = &in->shape, *os;

	define_tree(p, c, i, s, 0, 0);
	if (in->nops < 1 || !shape_is_tuple(s) || s->nelem < 1)
		return;
	os = &p->m->comps[c].instrs[in->ops[0]].shape;
	if (shape_is_tuple(os) && os->nelem >= 1 &&
	    shape_equal(&os->elems[0], &s->elems[0]))
		forward(p, c, i, 1, 0, 1, shape_nodes(&s->elems[0]));
}

static void
do_instr(struct prog *p, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	int64_t elem;

	switch (value_rule(in, &elem)) {
	case R_PARAM: do_parameter(p, c, i); break;
	case R_CONST: define_tree(p, c, i, &in->shape, 0, BUF_CONST); break;
	case R_ELEMENT: do_element(p, c, i, elem); break;
	case R_COPY_START: do_copy_start(p, c, i); break;
	case R_TUPLE: do_tuple(p, c, i); break;
	case R_SHALLOW_COPY: do_shallow_copy(p, c, i); break;
	case R_FORWARD: do_forward(p, c, i); break;
	case R_UPDATE:	/* XLA: its arrays alias its operand's */
		if (in->nops == 1 && shape_equal(&in->shape, &p->m->comps[c]
					.instrs[in->ops[0]].shape))
			do_forward(p, c, i);
		else if (binds_late(p, c, i))
			do_late_update(p, c, i);
		else
			do_in_place(p, c, i);
		break;
	case R_WHILE: do_while(p, c, i); break;
	case R_CONDITIONAL:
		define_tree(p, c, i, &in->shape, 0, 0);
		do_call(p, c, i);
		break;
	case R_CALL: do_call(p, c, i); break;
	case R_SEND: do_send(p, c, i); break;
	case R_RECV_DONE: do_recv_done(p, c, i); break;
	case R_START: do_start(p, c, i); break;
	default: do_in_place(p, c, i); break;
	}
}

/* input_output_alias: the entry's output {out} shares parameter p {pidx}. */
static void
join_aliases(struct prog *p)
{
	const struct module *m = p->m;
	const struct comp *e = &m->comps[m->entry];

	for (int k = 0; k < m->nalias; k++) {
		const struct alias *a = &m->aliases[k];
		int pi = a->param < e->nparam ? e->params[a->param] : -1;
		int on, pn;

		if (pi < 0 || e->root < 0)
			continue;
		on = shape_node_at(&e->instrs[e->root].shape, a->out, a->nout);
		pn = shape_node_at(&e->instrs[pi].shape, a->pidx, a->npidx);
		if (on < 0 || pn < 0) {
			diag_error(p->ds, m->loc, "input_output_alias entry "
				   "%d names an index that does not exist", k);
			continue;
		}
		add_join(p, a->must ? J_ALIAS_MUST : J_ALIAS,
			 prog_val(p, m->entry, e->root, on),
			 prog_val(p, m->entry, pi, pn), -1, -1, -1);
	}
}

/* Does input_output_alias give output node `on` parameter value v? */
static int
aliased_output(struct prog *p, int on, int v)
{
	const struct module *m = p->m;
	const struct comp *e = &m->comps[m->entry];

	for (int k = 0; k < m->nalias; k++) {
		const struct alias *a = &m->aliases[k];
		int pi = a->param < e->nparam ? e->params[a->param] : -1;
		int pn = pi >= 0 ? shape_node_at(&e->instrs[pi].shape, a->pidx,
						a->npidx) : -1;

		if (pn >= 0 && p->nodebase[m->entry][pi] >= 0 &&
		    shape_node_at(&e->instrs[e->root].shape, a->out,
				 a->nout) == on &&
		    prog_find(p, prog_val(p, m->entry, pi, pn)) ==
			    prog_find(p, v))
			return 1;
	}
	return 0;
}

int
param_survives(const struct prog *p, int v)
{
	const struct module *m = p->m;
	const struct value *x = &p->values[v];
	const struct instr *in = &m->comps[x->comp].instrs[x->instr];

	if (!(x->flags & BUF_PARAM) || p->opt.reuse_params)
		return 0;
	for (int k = 0; k < m->nalias; k++)
		if (m->aliases[k].param == in->param &&
		    shape_node_at(&in->shape, m->aliases[k].pidx,
				 m->aliases[k].npidx) == x->node)
			return 0;
	return 1;
}

/* 1 when a and b are tiled alike (no tiles at all is alike too). */
static int
same_tiles(const struct shape *a, const struct shape *b)
{
	if (a->ntile != b->ntile)
		return 0;
	for (int t = 0; t < a->ntile; t++) {
		if (a->tiles[t].n != b->tiles[t].n)
			return 0;
		for (int i = 0; i < a->tiles[t].n; i++)
			if (a->tiles[t].d[i] != b->tiles[t].d[i])
				return 0;
	}
	return 1;
}

/* The shape entry_computation_layout gives output node `node` when it is
 * an array like s (type and dimensions): its tiles, padding and memory
 * space are the output buffer's, as XLA's layout assignment makes the
 * root's; else s.  But a layout tiled otherwise that takes fewer bytes
 * than s does not shrink the value: its kernels write s's bytes, into a
 * buffer it may share (a loop's state), and XLA's verifier compares the
 * two ignoring tiles. */
static const struct shape *
result_shape(const struct prog *p, int node, const struct shape *s)
{
	const struct module *m = p->m;
	const struct shape *r = m->result ? shape_array_at(m->result, node) : NULL;

	if (!r || r->type != s->type || r->rank != s->rank)
		return s;
	for (int i = 0; i < s->rank; i++)
		if (r->dims[i] != s->dims[i])
			return s;
	if (s->ntile && !same_tiles(s, r) &&
	    target_bytes(&p->opt, r) < target_bytes(&p->opt, s))
		return s;
	return r;
}

/* Entry outputs that the runtime gets a buffer of its own for (XLA's
 * special-case copies): a parameter (unless aliased to that output), a
 * constant, a value returned twice.  The output takes a new value that a
 * copy fills at the end.  Every output value is laid out as the entry's
 * result layout says. */
static void
own_outputs(struct prog *p)
{
	const struct module *m = p->m;
	const struct comp *e = &m->comps[m->entry];
	const struct instr *r;
	int base, n, *seen, *flags;

	if (e->root < 0 || (base = p->nodebase[m->entry][e->root]) < 0)
		return;
	r = &e->instrs[e->root];
	if (r->op && (r->op->op == OP_PARAMETER || r->op->op == OP_CONSTANT))
		return;		/* the output is where it is defined */
	n = shape_nodes(&r->shape);
	seen = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));
	flags = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));
	for (int v = 0; v < p->nval; v++)	/* (a loop may pass a parameter
						   on as its state) */
		flags[prog_find(p, v)] |= p->values[v].flags;
	for (int node = 0; node < n; node++) {
		int v = p->nodeval[base + node], t, rv = prog_find(p, v);
		const struct shape *s = p->values[v].shape;

		if (shape_is_tuple(s))
			continue;
		if (!seen[rv] && (!(flags[rv] & (BUF_PARAM | BUF_CONST)) ||
				  aliased_output(p, node, v))) {
			seen[rv] = 1;
			if (!(p->values[v].flags & BUF_PARAM))
				p->values[v].shape = result_shape(p, node, s);
			continue;
		}
		s = result_shape(p, node, s);
		t = prog_new_value(p, m->entry, e->root, node, s, VAL_COPY);
		p->nodeval[base + node] = t;
		add_join(p, J_OUTPUT, v, t, m->entry, e->root, -1);
	}
}

static void
alloc_nodes(struct prog *p)
{
	const struct module *m = p->m;

	p->nodebase = pool_alloc(p->pool, sizeof(int *) * (size_t)m->ncomp);
	for (int c = 0; c < m->ncomp; c++) {
		p->nodebase[c] = pool_alloc(p->pool, sizeof(int) *
					    (size_t)(m->comps[c].ninstr + 1));
		memset(p->nodebase[c], -1,
		       sizeof(int) * (size_t)m->comps[c].ninstr);
	}
	for (int32_t t = 0; t < p->ntime; t++) {
		const struct step *s = &p->steps[t];

		p->nodebase[s->comp][s->instr] = p->nnode;
		p->nnode += shape_nodes(&m->comps[s->comp].instrs[s->instr].shape);
	}
	p->nodeval = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nnode + 1));
}

int
fill_values(struct prog *p)
{
	int n = p->ds->n;

	alloc_nodes(p);
	/* About a value a node. */
	p->values = vec_reserve(p->pool, p->values, &p->valcap, p->nnode + 1,
				sizeof *p->values);
	p->phi = pool_alloc(p->pool, sizeof(int **) * (size_t)(p->m->ncomp + 1));
	for (int32_t t = 0; t < p->ntime; t++)
		do_instr(p, p->steps[t].comp, p->steps[t].instr);
	own_outputs(p);
	join_aliases(p);
	return p->ds->n > n ? -1 : 0;
}

void
dump_values(FILE *out, const struct prog *p)
{
	for (int v = 0; v < p->nval; v++) {
		const struct value *x = &p->values[v];

		fprintf(out, "v%-6d %s/%s node %d  [%d, %d]  buffer v%d\n", v,
			p->m->comps[x->comp].name,
			p->m->comps[x->comp].instrs[x->instr].name, x->node,
			x->def, x->end, x->parent);
	}
}

/* XLA's kernel contract from the IR alone: the values an op forwards
 * (HloDataflowAnalysis::InitializeInstructionValueSets), the operands it
 * updates in place (AliasInfo::GetInPlaceInputOutputPairs, with a fusion's
 * pairs from its root), and the dying operands it may write over (GPU
 * FusionCanShareBufferHint).  Shares no code with passes/, so that the
 * planner's mistake is not the oracle's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/oracle/contract.h"

enum { MAXIDX = 8, MAXPAIRS = 16 };

/* ---- shapes as preorder nodes ------------------------------------------ */

static int
nodes(const struct shape *s)
{
	int n = 1;

	for (int e = 0; e < s->nelem; e++)
		n += nodes(&s->elems[e]);
	return n;
}

static int
child(const struct shape *s, int e)
{
	int n = 1;

	for (int k = 0; k < e; k++)
		n += nodes(&s->elems[k]);
	return n;
}

/* Node `node` of tuple s: its element, *at its node there; -1 for the
 * tuple's own node. */
static int
split(const struct shape *s, int node, int *at)
{
	int e = 0;

	if (node-- == 0 || !shape_is_tuple(s))
		return -1;
	while (e < s->nelem && node >= nodes(&s->elems[e]))
		node -= nodes(&s->elems[e++]);
	*at = node;
	return e < s->nelem ? e : -1;
}

static const struct shape *
at_node(const struct shape *s, int node)
{
	int at, e;

	while (node > 0 && (e = split(s, node, &at)) >= 0) {
		s = &s->elems[e];
		node = at;
	}
	return s;
}

static int
is_array(const struct shape *s, int node)
{
	return !shape_is_tuple(at_node(s, node));
}

/* The node at shape index idx[0..n), or -1. */
static int
index_node(const struct shape *s, const int64_t *idx, int n)
{
	int node = 0;

	for (int d = 0; d < n; d++) {
		if (!shape_is_tuple(s) || idx[d] < 0 || idx[d] >= s->nelem)
			return -1;
		node += child(s, (int)idx[d]);
		s = &s->elems[idx[d]];
	}
	return node;
}

static int
opcode(const struct instr *in)
{
	return in->op ? in->op->op : OP_OTHER;
}

static int
named(const struct instr *in, const char *name)
{
	return in->op && !strcmp(in->op->name, name);
}

/* An in-place collective-permute: (input, output buffer, input and
 * output offsets), XLA's inplace(). */
static int
permutes_over(const struct instr *in)
{
	return in->nops == 4 && instr_attr(in, "slice_sizes") &&
	       (named(in, "collective-permute") ||
		named(in, "collective-permute-start"));
}

/* ---- forwarding --------------------------------------------------------- */

/* Element 0 of a start (all-gather, collective-permute, async): its
 * operands' arrays, one operand or a tuple of them. */
static int
start_operands(const struct instr *in, const struct shape *const *as,
	       int node, int *k, int *j)
{
	const struct shape *s = &in->shape, *e0;
	int at, e;

	if (!shape_is_tuple(s) || s->nelem < 2 || in->nops < 1 ||
	    split(s, node, &at) != 0)
		return 0;
	e0 = &s->elems[0];
	if ((in->nops == 1 || permutes_over(in)) &&	/* its input */
	    nodes(as[0]) == nodes(e0)) {
		*k = 0;
		*j = at;
		return is_array(e0, at);
	}
	if (!shape_is_tuple(e0) || e0->nelem != in->nops ||
	    (e = split(e0, at, &at)) < 0 ||
	    nodes(as[e]) != nodes(&e0->elems[e]))
		return 0;
	*k = e;
	*j = at;
	return is_array(&e0->elems[e], at);
}

/* A done's arrays: element 1 of its start (all-gather, collective-permute,
 * async). */
static int
from_start(const struct instr *in, const struct shape *const *as, int node,
	   int *k, int *j)
{
	const struct shape *a = in->nops ? as[0] : NULL;

	if (!a || !shape_is_tuple(a) || a->nelem < 2 ||
	    nodes(&a->elems[1]) != nodes(&in->shape) ||
	    !is_array(&in->shape, node) || !is_array(&a->elems[1], node))
		return 0;	/* not bound yet (an empty {1}): its own */
	*k = 0;
	*j = child(a, 1) + node;
	return 1;
}

/* Arrays of operand 0 at the same nodes (all-reduce-done, async-update). */
static int
same_arrays(const struct instr *in, const struct shape *const *as, int node,
	    int *k, int *j)
{
	if (!in->nops || nodes(as[0]) != nodes(&in->shape) ||
	    !is_array(&in->shape, node))
		return 0;
	*k = 0;
	*j = node;
	return 1;
}

/* Is async-update in, of shape s over operand 0's q, one that binds
 * late (operands past the chain's, or a shape not its operand's)? */
int
contract_binds_late(const struct instr *in, const struct shape *const *as)
{
	const struct shape *s = &in->shape, *q = in->nops ? as[0] : NULL;

	return opcode(in) == OP_ASYNC_UPDATE && q &&
	       (in->nops > 1 || !shape_equal(s, q)) && shape_is_tuple(s) &&
	       s->nelem >= 2 && shape_is_tuple(&s->elems[0]) &&
	       shape_is_tuple(q) && q->nelem >= 2 &&
	       shape_is_tuple(&q->elems[0]);
}

/* Does element a (of the update) take element b's arrays: same shape,
 * and b no empty tuple (a result not bound yet)? */
static int
takes(const struct shape *a, const struct shape *b)
{
	return b && shape_equal(a, b) && !(shape_is_tuple(b) && !b->nelem);
}

/* A late-binding async-update (XLA's UpdateAsyncUpdateValueSet): {0, e}
 * what the chain bound (operand 0's {0, e}, then its operands 1, 2, ...),
 * {1} and the contexts operand 0's where bound there. */
static int
late_update(const struct instr *in, const struct shape *const *as, int node,
	    int *k, int *j)
{
	const struct shape *s = &in->shape, *q = as[0];
	int at, e, e2, np = q->elems[0].nelem;

	if ((e = split(s, node, &at)) < 0 || !is_array(s, node))
		return 0;
	if (e != 0) {
		if (e >= q->nelem || !takes(&s->elems[e], &q->elems[e]))
			return 0;
		*k = 0;
		*j = child(q, e) + at;
		return 1;
	}
	if ((e2 = split(&s->elems[0], at, &at)) < 0)
		return 0;
	if (e2 < np) {
		if (!takes(&s->elems[0].elems[e2], &q->elems[0].elems[e2]))
			return 0;
		*k = 0;
		*j = child(q, 0) + child(&q->elems[0], e2) + at;
		return 1;
	}
	*k = e2 - np + 1;
	*j = at;
	return *k < in->nops && takes(&s->elems[0].elems[e2], as[*k]);
}

int
contract_forward(const struct instr *in, const struct shape *const *as,
		 int node, int *k, int *j)
{
	int at, e;

	*k = 0;
	switch (opcode(in)) {
	case OP_GTE:
		*j = child(as[0], (int)in->index) + node;
		return 1;
	case OP_TUPLE:
		if ((e = split(&in->shape, node, &at)) < 0)
			return 0;
		*k = e;
		*j = at;
		return 1;
	case OP_BITCAST: case OP_OPT_BARRIER: case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
		*j = node;
		return in->nops > 0;
	case OP_COPY:	/* of a tuple: its index table only (XLA's
			   UpdateCopyValueSet); the elements are operand 0's */
		*j = node;
		return node > 0 && in->nops == 1 && shape_is_tuple(&in->shape);
	case OP_ASYNC_UPDATE:
		if (contract_binds_late(in, as))
			return late_update(in, as, node, k, j);
		return same_arrays(in, as, node, k, j);
	case OP_ASYNC_DONE:
		return from_start(in, as, node, k, j);
	case OP_ASYNC_START:
		return start_operands(in, as, node, k, j);
	case OP_COPY_START:	/* (destination, source, context) */
		if (split(&in->shape, node, &at) != 1)
			return 0;
		*j = at;
		return 1;
	case OP_COPY_DONE:
		*j = child(as[0], 0) + node;
		return 1;
	case OP_SEND:		/* (operand, context, token) */
	case OP_RECV_DONE:	/* (recv's data, token) */
		if (split(&in->shape, node, &at) != 0 || !in->nops ||
		    !shape_is_tuple(as[0]) == (opcode(in) == OP_RECV_DONE))
			return 0;
		*j = opcode(in) == OP_SEND ? at : child(as[0], 0) + at;
		/* (only the same array: a send of another type copies) */
		return is_array(&in->shape, node) &&
		       shape_equal(at_node(&in->shape, node),
				   at_node(as[0], *j));
	default:
		break;
	}
	if (named(in, "all-gather-done") || named(in, "collective-permute-done"))
		return from_start(in, as, node, k, j);
	if (named(in, "all-reduce-done"))
		return same_arrays(in, as, node, k, j);
	if (named(in, "all-gather-start") ||
	    named(in, "collective-permute-start"))
		return start_operands(in, as, node, k, j);
	return 0;
}

int
contract_is_done(const struct instr *in)
{
	return opcode(in) == OP_ASYNC_DONE || named(in, "all-gather-done") ||
	       named(in, "collective-permute-done") ||
	       named(in, "all-reduce-done");
}

/* ---- in place ----------------------------------------------------------- */

struct alias_pair {
	int64_t out[MAXIDX], idx[MAXIDX], operand;
	int nout, nidx;
};

static const char *
blanks(const char *p, const char *e)
{
	while (p < e && strchr(" \t\r\n", *p))
		p++;
	return p;
}

static const char *
number(const char *p, const char *e, int64_t *v)
{
	p = blanks(p, e);
	if (p >= e || *p < '0' || *p > '9')
		return NULL;
	for (*v = 0; p < e && *p >= '0' && *p <= '9'; p++)
		*v = *v * 10 + (*p - '0');
	return p;
}

/* "{a, b, ...}": the position after it, or NULL. */
static const char *
index_list(const char *p, const char *e, int64_t *v, int *n)
{
	*n = 0;
	p = blanks(p, e);
	if (p >= e || *p++ != '{')
		return NULL;
	for (;;) {
		p = blanks(p, e);
		if (p < e && *p == '}')
			return p + 1;
		if (*n == MAXIDX || !(p = number(p, e, &v[*n])))
			return NULL;
		++*n;
		p = blanks(p, e);
		if (p < e && *p == ',')
			p++;
	}
}

static const char *
expect(const char *p, const char *e, char c)
{
	p = p ? blanks(p, e) : NULL;
	return p && p < e && *p == c ? p + 1 : NULL;
}

/* output_to_operand_aliasing={ {out}: (operand, {index}), ... }: the pairs
 * read (the first malformed one ends the list). */
static int
alias_pairs(const struct instr *in, struct alias_pair *pr, int max)
{
	const struct attr *a = instr_attr(in, "output_to_operand_aliasing");
	const char *p, *e;
	int n = 0;

	if (!a)
		return 0;
	p = expect(a->val, e = a->val + a->vlen, '{');
	while (p && n < max && (p = blanks(p, e)) < e && *p != '}') {
		struct alias_pair *x = &pr[n];

		p = index_list(p, e, x->out, &x->nout);
		p = expect(expect(p, e, ':'), e, '(');
		p = p ? number(p, e, &x->operand) : NULL;
		p = expect(p, e, ',');
		p = p ? index_list(p, e, x->idx, &x->nidx) : NULL;
		if (!(p = expect(p, e, ')')))
			break;
		n++;
		p = blanks(p, e);
		if (p < e && *p == ',')
			p++;
	}
	return n;
}

/* Output node `node` in an output_to_operand_aliasing pair: operand *k's
 * node *j (the pair's subtree, node by node). */
static int
attr_in_place(const struct instr *in, const struct shape *const *as,
	      int node, int *k, int *j)
{
	struct alias_pair pr[MAXPAIRS];
	int n = alias_pairs(in, pr, MAXPAIRS);

	for (int q = 0; q < n; q++) {
		int o = index_node(&in->shape, pr[q].out, pr[q].nout), p;

		if (o < 0 || node < o ||
		    node >= o + nodes(at_node(&in->shape, o)) ||
		    pr[q].operand >= in->nops)
			continue;
		p = index_node(as[pr[q].operand], pr[q].idx, pr[q].nidx);
		if (p < 0 || nodes(at_node(as[pr[q].operand], p)) !=
		    nodes(at_node(&in->shape, o)))
			continue;
		*k = (int)pr[q].operand;
		*j = p + node - o;
		return 1;
	}
	return 0;
}

/* Scatter's operands: (inputs..., indices, updates...). */
static int
scatter_inputs(const struct instr *in)
{
	return (in->nops - 1) / 2;
}

/* Output node `node` of an in-place op: operand *k's node *j. */
static int
op_in_place(const struct instr *in, int node, int *k, int *j)
{
	int n, at;

	*j = 0;
	if (opcode(in) == OP_DUS) {
		*k = 0;
		return node == 0;
	}
	if (opcode(in) != OP_SCATTER || (n = scatter_inputs(in)) < 1)
		return 0;
	if (n == 1) {
		*k = 0;
		return node == 0;
	}
	*k = split(&in->shape, node, &at);
	return *k >= 0 && *k < n && at == 0;
}

/* Instruction x of computation f at node *node, followed back through
 * tuples, get-tuple-elements and bitcasts (XLA's FollowTupleIndirection
 * and FollowNoOpIndirection) to the instruction that makes it. */
static int
source(const struct comp *f, int x, int *node)
{
	for (int steps = 0; steps < 4 * f->ninstr + 8; steps++) {
		const struct instr *in = &f->instrs[x];
		int at, e;

		if (opcode(in) == OP_TUPLE &&
		    (e = split(&in->shape, *node, &at)) >= 0 && e < in->nops) {
			x = in->ops[e];
			*node = at;
		} else if (opcode(in) == OP_GTE && in->nops == 1) {
			*node += child(&f->instrs[in->ops[0]].shape,
				       (int)in->index);
			x = in->ops[0];
		} else if (opcode(in) == OP_BITCAST && *node == 0 &&
			   in->nops == 1) {
			x = in->ops[0];
		} else {
			return x;
		}
	}
	return x;
}

/* A fusion's output node computed in place over a parameter: the fused
 * root (followed back) is an in-place op whose operand (followed back)
 * is parameter *k. */
static int
fusion_in_place(const struct module *m, const struct instr *in, int node,
		int *k, int *j)
{
	const struct comp *f;
	int x, op, jn;

	if (in->ncall < 1 || (f = &m->comps[in->calls[0]])->root < 0)
		return 0;
	x = source(f, f->root, &node);
	if (!op_in_place(&f->instrs[x], node, &op, &jn) ||
	    op >= f->instrs[x].nops)
		return 0;
	x = source(f, f->instrs[x].ops[op], &jn);
	if (opcode(&f->instrs[x]) != OP_PARAMETER || f->instrs[x].param < 0 ||
	    f->instrs[x].param >= in->nops)
		return 0;
	*k = (int)f->instrs[x].param;
	*j = jn;
	return 1;
}

/* An in-place collective-permute writes slices of operand 1 where they
 * lie: its output {i} (a start's {1, i}) is operand 1's {i}
 * (AliasInfo::GetInPlaceInputOutputPairs). */
static int
permute_in_place(const struct instr *in, const struct shape *const *as,
		 int node, int *k, int *j)
{
	int at = node;

	if (!permutes_over(in) ||
	    (named(in, "collective-permute-start") &&
	     split(&in->shape, node, &at) != 1) ||
	    at >= nodes(as[1]) || !is_array(as[1], at))
		return 0;
	*k = 1;
	*j = at;
	return 1;
}

/* The parameter of computation d whose array its root is, or updates in
 * place (dynamic-update-slice, scatter, a custom-call's aliasing, a call
 * of one): -1 when none.  XLA's dataflow shares an async computation's
 * values with its start: start{1} is then that operand's bytes. */
static int
root_parameter(const struct module *m, int d, int depth)
{
	const struct comp *f = &m->comps[d];
	const struct shape *as[MAXPAIRS];
	const struct instr *in;
	int node = 0, x, k = -1, jn = 0;

	if (f->root < 0 || depth > 32)
		return -1;
	x = source(f, f->root, &node);
	in = &f->instrs[x];
	if (node != 0 || !is_array(&in->shape, 0))
		return -1;
	if (opcode(in) == OP_PARAMETER)
		return (int)in->param;
	if (opcode(in) == OP_CUSTOM_CALL && in->nops <= MAXPAIRS) {
		for (int q = 0; q < in->nops; q++)
			as[q] = &f->instrs[in->ops[q]].shape;
		if (!attr_in_place(in, as, 0, &k, &jn))
			k = -1;
	} else if (opcode(in) == OP_CALL && in->ncall == 1) {
		k = root_parameter(m, in->calls[0], depth + 1);
	} else if (!op_in_place(in, 0, &k, &jn)) {
		k = -1;
	}
	if (k < 0 || k >= in->nops || jn != 0)
		return -1;
	node = 0;
	x = source(f, in->ops[k], &node);
	return node == 0 && opcode(&f->instrs[x]) == OP_PARAMETER ?
		       (int)f->instrs[x].param : -1;
}

/* Are a and b laid out alike (shape, layout, tiles, memory space)?  An
 * async computation updates an operand in place only so. */
static int
laid_alike(const struct shape *a, const struct shape *b)
{
	if (!shape_equal(a, b) || a->ntile != b->ntile)
		return 0;
	for (int t = 0; t < a->ntile; t++)
		if (a->tiles[t].n != b->tiles[t].n ||
		    memcmp(a->tiles[t].d, b->tiles[t].d,
			   sizeof(int64_t) * (size_t)a->tiles[t].n))
			return 0;
	return 1;
}

/* An async-start's {1}, an array, over the operand its computation
 * returns or updates in place. */
static int
start_in_place(const struct module *m, const struct instr *in,
	       const struct shape *const *as, int node, int *k, int *j)
{
	int p;

	if (in->ncall < 1 || !shape_is_tuple(&in->shape) ||
	    in->shape.nelem < 2 || shape_is_tuple(&in->shape.elems[1]) ||
	    node != child(&in->shape, 1))
		return 0;
	p = root_parameter(m, in->calls[0], 0);
	if (p < 0 || p >= in->nops || !is_array(as[p], 0) ||
	    !laid_alike(as[p], &in->shape.elems[1]))
		return 0;
	*k = p;
	*j = 0;
	return 1;
}

/* The computation that holds instruction in. */
static const struct comp *
comp_holding(const struct module *m, const struct instr *in)
{
	uintptr_t a = (uintptr_t)in;

	for (int c = 0; c < m->ncomp; c++) {
		const struct comp *cp = &m->comps[c];

		if (a >= (uintptr_t)cp->instrs &&
		    a < (uintptr_t)(cp->instrs + cp->ninstr))
			return cp;
	}
	return NULL;
}

/* A late-binding async-update that binds its result {1}, an array, now:
 * over the operand of the chain its computation returns or updates in
 * place (its own operand past the chain's count, or operand 0's {0, p});
 * the chain's start names the computation. */
static int
update_in_place(const struct module *m, const struct comp *c,
		const struct instr *in, const struct shape *const *as,
		int node, int *k, int *j)
{
	const struct instr *st = in;
	const struct shape *q = as[0];
	int p, np;

	if (!c || !contract_binds_late(in, as) ||
	    shape_is_tuple(&in->shape.elems[1]) ||
	    node != child(&in->shape, 1) || takes(&in->shape.elems[1],
						  &q->elems[1]))
		return 0;
	for (int n = 0; n <= c->ninstr && opcode(st) == OP_ASYNC_UPDATE &&
			st->nops >= 1; n++)
		st = &c->instrs[st->ops[0]];
	if (opcode(st) != OP_ASYNC_START || st->ncall < 1 ||
	    (p = root_parameter(m, st->calls[0], 0)) < 0)
		return 0;
	np = q->elems[0].nelem;
	*k = p >= np ? p - np + 1 : 0;
	*j = p >= np ? 0 : child(q, 0) + child(&q->elems[0], p);
	return *k < in->nops && is_array(as[*k], *j) &&
	       laid_alike(at_node(as[*k], *j), &in->shape.elems[1]);
}

int
contract_in_place(const struct module *m, const struct instr *in,
		  const struct shape *const *as, int node, int *k, int *j)
{
	if (!is_array(&in->shape, node))
		return 0;
	if (permutes_over(in))
		return permute_in_place(in, as, node, k, j);
	if (named(in, "ragged-all-to-all")) {	/* operand 1 is its output */
		*k = 1;
		*j = 0;
		return node == 0 && in->nops > 1;
	}
	switch (opcode(in)) {
	case OP_DUS:
	case OP_SCATTER:
		return op_in_place(in, node, k, j);
	case OP_CUSTOM_CALL:
		return attr_in_place(in, as, node, k, j);
	case OP_FUSION:
		return fusion_in_place(m, in, node, k, j) ||
		       attr_in_place(in, as, node, k, j);
	case OP_ASYNC_START:
		return start_in_place(m, in, as, node, k, j);
	case OP_ASYNC_UPDATE:
		return update_in_place(m, comp_holding(m, in), in, as, node, k,
				       j);
	default:
		return 0;
	}
}

/* ---- may share ---------------------------------------------------------- */

static int
readers_of(const struct comp *f, int x, int i)
{
	int n = 0;

	for (int k = 0; k < f->instrs[i].nops; k++)
		n += f->instrs[i].ops[k] == x;
	return n;
}

/* A dynamic-slice i reading the very slice the root dynamic-update-slice
 * r writes (same array, same starts, the update's shape): read before it
 * is written. */
static int
same_slice(const struct comp *f, int i, int r)
{
	const struct instr *u = &f->instrs[i], *d = &f->instrs[r];

	if (opcode(d) != OP_DUS || d->nops < 2 || u->nops != d->nops - 1 ||
	    u->ops[0] != d->ops[0] ||
	    !shape_equal(&u->shape, &f->instrs[d->ops[1]].shape))
		return 0;
	if (shape_elements(&u->shape) == 1)
		return 1;
	for (int k = 1; k < u->nops; k++)
		if (u->ops[k] != d->ops[k + 1])
			return 0;
	return 1;
}

/* Does user i of x (in fused computation f, whose output's non-bitcast
 * root is r) read x in the order the output is written, as XLA's path
 * from a parameter to the output allows: elementwise (not copy),
 * bitcast, tuple; a dynamic-update-slice's operand 0, or the root's
 * update; the slice the root updates; the root scatter's input; the
 * reduction hero `hero`, which the reduction emitter runs first? */
static int
keeps_order(const struct comp *f, int i, int x, int r, int hero)
{
	const struct instr *u = &f->instrs[i];

	if (i == hero)
		return 1;
	switch (opcode(u)) {
	case OP_BITCAST: case OP_TUPLE:
		return 1;
	case OP_COPY:
		return 0;
	case OP_DUS:
		return u->ops[0] == x || (i == r && u->ops[1] == x);
	case OP_DYNAMIC_SLICE:
		return same_slice(f, i, r);
	case OP_SCATTER:
		for (int k = 0; k < scatter_inputs(u); k++)
			if (u->ops[k] == x)
				return i == r && readers_of(f, x, i) == 1;
		return 0;
	default:
		return u->op && (u->op->flags & OPF_ELEMENTWISE);
	}
}

/* The fused root for output node `node`, through the root tuple and a
 * bitcast at most. */
static int
fused_output(const struct comp *f, int node)
{
	int r = f->root, at, e;

	if (opcode(&f->instrs[r]) == OP_TUPLE) {
		if ((e = split(&f->instrs[r].shape, node, &at)) < 0 || at ||
		    e >= f->instrs[r].nops)
			return -1;
		r = f->instrs[r].ops[e];
	} else if (node) {
		return -1;
	}
	return r;
}

/* Is x an operand of f's root tuple other than `out`? */
static int
other_output(const struct comp *f, int x, int out)
{
	const struct instr *r = &f->instrs[f->root];

	return opcode(r) == OP_TUPLE && x != out && readers_of(f, x, f->root);
}

/* An input fusion's reduction hero (HloFusionAnalysis::
 * FindHeroReduction): the reduce that an output is, through bitcasts and
 * one-operand elementwise ops (FindNonTrivialHero); -1 for none. */
static int
reduction_hero(const struct comp *f)
{
	const struct instr *r = &f->instrs[f->root];
	int n = opcode(r) == OP_TUPLE ? r->nops : 1;

	for (int e = 0; e < n; e++) {
		int h = opcode(r) == OP_TUPLE ? r->ops[e] : f->root;

		for (int hops = 0; h >= 0 && hops < f->ninstr; hops++) {
			const struct instr *u = &f->instrs[h];

			if (opcode(u) == OP_REDUCE)
				return h;
			if (u->nops != 1 || (opcode(u) != OP_BITCAST &&
					     !(u->op && (u->op->flags &
							 OPF_ELEMENTWISE))))
				break;
			h = u->ops[0];
		}
	}
	return -1;
}

/* Breadth first from parameter p over its users: 1 when every path keeps
 * the element order and one reaches out; 0 else.  The users of the
 * reduction hero `hero` are not followed: the reduction emitter computes
 * it before any output is written.  *other: another output of the root
 * tuple was reached. */
static int
ordered_paths(const struct comp *f, int p, int out, int hero, int *other)
{
	int r = opcode(&f->instrs[out]) == OP_BITCAST &&
		f->instrs[out].nops == 1 ? f->instrs[out].ops[0] : out;
	int *queue = calloc((size_t)f->ninstr + 1, sizeof(int)), ok = 1;
	char *seen = calloc((size_t)f->ninstr + 1, 1);
	int head = 0, tail = 0, found = 0;

	if (!queue || !seen) {
		free(queue);
		free(seen);
		return 0;
	}
	queue[tail++] = p;
	seen[p] = 1;
	while (head < tail && ok) {
		int x = queue[head++];

		found |= x == out;
		*other |= other_output(f, x, out);
		for (int i = 0; i < f->ninstr && ok && x != hero; i++) {
			if (!readers_of(f, x, i))
				continue;
			if (!keeps_order(f, i, x, r, hero))
				ok = 0;
			else if (!seen[i])
				seen[i] = 1, queue[tail++] = i;
		}
	}
	free(queue);
	free(seen);
	return ok && found;
}

/* A loop or input fusion that reads parameter k element for element on
 * every path to output node `node`, or into an input fusion's reduction
 * hero (FusionCanShareBufferHint): another output reached is allowed
 * only when this one is elementwise. */
static int
fusion_elementwise(const struct module *m, const struct instr *in, int k,
		   int node)
{
	const struct attr *kind = instr_attr(in, "kind");
	const struct comp *f;
	const struct instr *nb;
	int out, p = -1, other = 0;

	if (in->ncall < 1 || !kind || (strncmp(kind->val, "kLoop", 5) &&
				       strncmp(kind->val, "kInput", 6)))
		return 0;
	f = &m->comps[in->calls[0]];
	if (f->root < 0 || (out = fused_output(f, node)) < 0)
		return 0;
	for (int i = 0; i < f->ninstr; i++)
		if (opcode(&f->instrs[i]) == OP_PARAMETER &&
		    f->instrs[i].param == k)
			p = i;
	if (p < 0 || !ordered_paths(f, p, out, strncmp(kind->val, "kInput", 6)
					      ? -1 : reduction_hero(f), &other))
		return 0;
	nb = &f->instrs[out];
	if (opcode(nb) == OP_BITCAST && nb->nops == 1)
		nb = &f->instrs[nb->ops[0]];
	return !other || (nb->op && (nb->op->flags & OPF_ELEMENTWISE));
}

int
contract_may_share(const struct module *m, const struct instr *in,
		   const struct shape *const *as, int node, int k, int j)
{
	const struct shape *o = at_node(&in->shape, node), *a;
	int kk, jj;

	if (k >= in->nops)
		return 0;
	a = at_node(as[k], j);
	if (shape_is_tuple(o) || shape_is_tuple(a) ||
	    shape_bytes(o) != shape_bytes(a) ||
	    shape_elements(o) != shape_elements(a))
		return 0;
	if (contract_in_place(m, in, as, node, &kk, &jj) && kk == k && jj == j)
		return 1;
	if (in->op && (in->op->flags & OPF_ELEMENTWISE) && j == 0)
		return opcode(in) != OP_COPY;	/* never a copy (XLA) */
	return opcode(in) == OP_FUSION && j == 0 &&
	       fusion_elementwise(m, in, k, node);
}

int
contract_tied(const struct module *m, const struct instr *in,
	      const struct shape *const *as, int node)
{
	int k, j;

	if (contract_in_place(m, in, as, node, &k, &j))
		return 1;
	return contract_is_done(in) && contract_forward(in, as, node, &k, &j);
}

/* The planner's rules, one table that every pass reads: which values an
 * instruction defines and which it forwards (XLA's HloDataflowAnalysis,
 * InitializeInstructionValueSets and the Update*ValueSet special cases),
 * and which operand it must or may write an output over (AliasInfo's
 * GetInPlaceInputOutputPairs, HloDataflowAnalysis's
 * CanShareOperandBufferWithUser, the GPU backend's FusionCanShareBufferHint
 * and NVPTXAliasInfo::MayAlias).  doc/semantics.md is this file as a table,
 * one row per kind of opcode, each row with its test. */
#include <string.h>

#include "passes/passes.h"

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

int
op_name_ends(const struct instr *in, const char *tail)
{
	size_t n = strlen(in->op->name), k = strlen(tail);

	return n >= k && !strcmp(in->op->name + n - k, tail);
}

int
value_rule(const struct instr *in, int64_t *elem)
{
	*elem = -1;
	switch (opcode(in)) {
	case OP_PARAMETER: return R_PARAM;
	case OP_CONSTANT: return R_CONST;
	case OP_GTE: *elem = in->index; return R_ELEMENT;
	case OP_TUPLE: return R_TUPLE;
	case OP_COPY:
		return shape_is_tuple(&in->shape) ? R_SHALLOW_COPY : R_DEFINE;
	case OP_WHILE: return R_WHILE;
	case OP_CALL: return R_CALL;
	case OP_CONDITIONAL: return R_CONDITIONAL;
	case OP_COPY_START: return R_COPY_START;
	case OP_COPY_DONE: *elem = 0; return R_ELEMENT;
	case OP_ASYNC_DONE: *elem = 1; return R_ELEMENT;
	case OP_ASYNC_UPDATE: return R_UPDATE;
	case OP_BITCAST:
	case OP_OPT_BARRIER:
	case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
		return R_FORWARD;
	case OP_SEND: return R_SEND;
	case OP_RECV_DONE: return R_RECV_DONE;
	default: break;
	}
	if (named(in, "all-gather-done") || named(in, "collective-permute-done")) {
		*elem = 1;	/* the collective wrote into start{1} */
		return R_ELEMENT;
	}
	if (named(in, "all-reduce-done"))
		return R_FORWARD;	/* the start's output, reduced there */
	if (in->op && (opcode(in) == OP_ASYNC_START ||
		       op_name_ends(in, "-start")) &&
	    shape_is_tuple(&in->shape) && in->shape.nelem >= 2 &&
	    in->nops >= 1 && !named(in, "all-reduce-start"))
		return R_START;
	return R_DEFINE;
}

/* An in-place collective-permute (XLA's inplace(): slice_sizes, and
 * input, output buffer, input and output offsets): it writes slices of
 * operand 1, and its result (a start's {1}) is operand 1's buffer
 * (GetInPlaceInputOutputPairs). */
int
permute_in_place(const struct instr *in)
{
	return in->nops == 4 && instr_attr(in, "slice_sizes") &&
	       (named(in, "collective-permute") ||
		named(in, "collective-permute-start"));
}

/* ---- shape indices and nodes ------------------------------------------- */

/* The array at output node `node` of s, or NULL; its index path in
 * idx[0 .. *depth) when idx is not NULL. */
static const struct shape *
node_path(const struct shape *s, int node, int64_t *idx, int *depth)
{
	while (node > 0) {
		int at = 1, e;

		for (e = 0; e < s->nelem; e++) {
			/* (an array is one node: no call for it) */
			int n = s->elems[e].nelem ? shape_nodes(&s->elems[e])
						  : 1;

			if (node < at + n)
				break;
			at += n;
		}
		if (e == s->nelem || *depth >= SHAPE_MAX_DEPTH)
			return NULL;
		idx[(*depth)++] = e;
		node -= at;
		s = &s->elems[e];
	}
	return s;
}

const struct shape *
shape_array_at(const struct shape *s, int node)
{
	int64_t idx[SHAPE_MAX_DEPTH];
	int depth = 0;

	s = node_path(s, node, idx, &depth);
	return s && !shape_is_tuple(s) ? s : NULL;
}

/* Reads "{i,j,...}" at *q; returns its length in idx, or -1. */
static int
read_index(const char **q, const char *end, int64_t *idx)
{
	const char *s = *q;
	int n = 0;

	while (s < end && *s == ' ')
		s++;
	if (s >= end || *s++ != '{')
		return -1;
	for (;;) {
		while (s < end && (*s == ' ' || *s == ','))
			s++;
		if (s < end && *s == '}') {
			*q = s + 1;
			return n;
		}
		if (s >= end || *s < '0' || *s > '9' || n >= SHAPE_MAX_DEPTH)
			return -1;
		idx[n] = 0;
		while (s < end && *s >= '0' && *s <= '9' && idx[n] < 1000000)
			idx[n] = idx[n] * 10 + (*s++ - '0');
		n++;
	}
}

int
shape_node_at(const struct shape *s, const int64_t *idx, int n)
{
	int node = 0;

	for (int k = 0; k < n; k++) {
		if (!shape_is_tuple(s) || idx[k] < 0 || idx[k] >= s->nelem)
			return -1;
		node += shape_child(s, (int)idx[k]);
		s = &s->elems[idx[k]];
	}
	return node;
}

/* The pairs of output_to_operand_aliasing={{out}: (k, {in}), ...}, one a
 * call: the output index in oi[0 .. *no), the operand in *k, its index in
 * ii[0 .. *ni).  0 when there is no pair left (or the text is not one). */
struct pairs {
	const char *q, *end;
};

static int
next_pair(struct pairs *r, int64_t *oi, int *no, int64_t *k, int64_t *ii,
	  int *ni)
{
	const char **q = &r->q, *end = r->end;

	while (*q < end && (**q == ' ' || **q == ')' || **q == ','))
		(*q)++;
	if (*q >= end || **q == '}' || (*no = read_index(q, end, oi)) < 0)
		return 0;
	while (*q < end && (**q == ' ' || **q == ':' || **q == '('))
		(*q)++;
	for (*k = 0; *q < end && **q >= '0' && **q <= '9' && *k < 1000000;
	     (*q)++)
		*k = *k * 10 + (**q - '0');
	while (*q < end && (**q == ' ' || **q == ','))
		(*q)++;
	return (*ni = read_index(q, end, ii)) >= 0;
}

static struct pairs
pairs_of(const struct attr *at)
{
	struct pairs r = {at->val, at->val + at->vlen};

	if (r.q < r.end && *r.q == '{')
		r.q++;
	return r;
}

/* output_to_operand_aliasing={{out}: (k, {in}), ...}: does it write output
 * node `node` of in over node `knode` of operand k? */
static int
aliasing_names(const struct comp *c, const struct instr *in, int k,
	       int knode, int node)
{
	const struct attr *at = instr_attr(in, "output_to_operand_aliasing");
	int64_t oi[SHAPE_MAX_DEPTH], ii[SHAPE_MAX_DEPTH], opnd;
	int no, ni;
	struct pairs r;

	if (!at)
		return 0;
	r = pairs_of(at);
	while (next_pair(&r, oi, &no, &opnd, ii, &ni))
		if (opnd == k && shape_node_at(&in->shape, oi, no) == node &&
		    shape_node_at(&c->instrs[in->ops[k]].shape, ii, ni) ==
			    knode)
			return 1;
	return 0;
}

/* An async-done's output over what its chain bound late: the start's
 * output_to_operand_aliasing {1, i...}: (p, {j...}) makes done output
 * {i...} alias the chain's element {0, p, j...} (XLA's in-place pairs of
 * kAsyncDone). */
static int
done_aliases(const struct comp *c, const struct instr *in, int k, int knode,
	     int node)
{
	const struct instr *start = in;
	const struct attr *at;
	int64_t oi[SHAPE_MAX_DEPTH], ii[SHAPE_MAX_DEPTH + 2], opnd;
	int no, ni, guard = 0;
	struct pairs r;

	if (k != 0 || in->nops < 1)
		return 0;
	do	/* back along the chain to its start */
		start = &c->instrs[start->ops[0]];
	while (opcode(start) == OP_ASYNC_UPDATE && start->nops >= 1 &&
	       ++guard < c->ninstr);
	if (opcode(start) != OP_ASYNC_START ||
	    !(at = instr_attr(start, "output_to_operand_aliasing")))
		return 0;
	r = pairs_of(at);
	while (next_pair(&r, oi, &no, &opnd, ii + 2, &ni)) {
		ii[0] = 0;
		ii[1] = opnd;
		if (no >= 1 && oi[0] == 1 &&
		    shape_node_at(&in->shape, oi + 1, no - 1) == node &&
		    shape_node_at(&c->instrs[in->ops[0]].shape, ii, ni + 2) ==
			    knode)
			return 1;
	}
	return 0;
}

/* Which parameter of computation c instruction i may hand on as it is,
 * through bitcasts, tuples, calls and (not strict) the branches of
 * conditionals, or -1: the result of an asynchronous computation that
 * forwards one is that operand's bytes (XLA's dataflow gives start{1} the
 * root's values), which hloplan's kernel would not write.  Strict: on
 * every path, so no conditional (a branch may compute anew). */
static int
forward_of(const struct module *m, int c, int i, int strict, int depth)
{
	const struct comp *cp = &m->comps[c];
	const struct instr *in = &cp->instrs[i];
	const struct instr *t;
	int r;

	if (depth > 64)
		return -1;
	switch (opcode(in)) {
	case OP_PARAMETER:
		return (int)in->param;
	case OP_BITCAST:
	case OP_OPT_BARRIER:
		return in->nops >= 1 ? forward_of(m, c, in->ops[0], strict,
						  depth + 1) : -1;
	case OP_GTE:
		if (in->nops < 1 || opcode(t = &cp->instrs[in->ops[0]]) !=
					    OP_TUPLE || in->index >= t->nops)
			return -1;
		return forward_of(m, c, t->ops[in->index], strict, depth + 1);
	case OP_CALL:
		if (in->ncall < 1 || m->comps[in->calls[0]].root < 0)
			return -1;
		r = forward_of(m, in->calls[0], m->comps[in->calls[0]].root,
			       strict, depth + 1);
		return r >= 0 && r < in->nops ?
			       forward_of(m, c, in->ops[r], strict, depth + 1) :
			       -1;
	case OP_CONDITIONAL:
		for (int b = 0; !strict && b < in->ncall; b++) {
			int d = in->calls[b];

			if (m->comps[d].root < 0 || b + 1 >= in->nops ||
			    forward_of(m, d, m->comps[d].root, 0,
				       depth + 1) != 0)
				continue;
			r = forward_of(m, c, in->ops[b + 1], 0, depth + 1);
			if (r >= 0)
				return r;
		}
		return -1;	/* strict: a branch may compute anew */
	default:
		return -1;
	}
}

/* forward_of, not strict: through a conditional a branch forwards. */
static int
forwarded_param(const struct module *m, int c, int i, int depth)
{
	return forward_of(m, c, i, 0, depth);
}

/* The parameter instruction i of c is on every path (through bitcasts,
 * tuples and calls), or -1. */
static int
strict_forward(const struct module *m, int c, int i, int depth)
{
	return forward_of(m, c, i, 1, depth);
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

/* Which parameter of computation d its root updates in place, or -1: a
 * dynamic-update-slice or scatter over it, a custom-call's
 * output_to_operand_aliasing {}: (k, {}) over it, a call of one (XLA's
 * dataflow shares the wrapped computation's values with its async-start,
 * so that start{1} is that operand's buffer). */
static int source_of(const struct comp *f, int r, const int64_t *idx, int n,
		     int64_t *left, int *rest);

static int
updated_param(const struct module *m, int d, int depth)
{
	const struct comp *f = &m->comps[d];
	const struct instr *in;
	int rest, r, k = -1, x;

	if (f->root < 0 || depth > 64)
		return -1;
	r = source_of(f, f->root, NULL, 0, NULL, &rest);
	in = &f->instrs[r];
	if (rest != 0)
		return -1;
	if ((opcode(in) == OP_DUS || (opcode(in) == OP_SCATTER &&
				      !shape_is_tuple(&in->shape))) &&
	    in->nops >= 1)
		k = 0;
	for (int j = 0; j < in->nops && opcode(in) == OP_CUSTOM_CALL &&
			k < 0; j++)
		if (aliasing_names(f, in, j, 0, 0))
			k = j;
	if (opcode(in) == OP_CALL && in->ncall >= 1)
		k = updated_param(m, in->calls[0], depth + 1);
	if (k < 0 || k >= in->nops)
		return -1;
	x = source_of(f, in->ops[k], NULL, 0, NULL, &rest);
	return opcode(&f->instrs[x]) == OP_PARAMETER && rest == 0 ?
		       (int)f->instrs[x].param : -1;
}

/* Does async-start in's computation return an operand's bytes on every
 * path (as it is, or updated in place: no branch computes it anew)?  Then
 * its result may take that operand over while its done still counts it
 * as read (liveness.c's tail); a branch that may compute anew keeps them
 * apart. */
int
start_writes_over(const struct module *m, const struct instr *in)
{
	int d = in->ncall >= 1 ? in->calls[0] : -1;

	if (d < 0 || m->comps[d].root < 0)
		return 0;
	return updated_param(m, d, 0) >= 0 ||
	       strict_forward(m, d, m->comps[d].root, 0) >= 0;
}

/* An async-start whose computation may return operand k as it is writes
 * its result {1} over it: they share a buffer, or the runtime copies the
 * operand in first and the kernel writes over the copy when it computes
 * its result instead. */
static int
start_forwards(const struct module *m, const struct comp *c,
	       const struct instr *in, int k, int knode, int node)
{
	int d = in->ncall >= 1 ? in->calls[0] : -1;

	if (knode != 0 || d < 0 || m->comps[d].root < 0 ||
	    !shape_is_tuple(&in->shape) || in->shape.nelem < 2 ||
	    shape_is_tuple(&in->shape.elems[1]) ||
	    node != shape_child(&in->shape, 1))
		return 0;
	return forwarded_param(m, d, m->comps[d].root, 0) == k ||
	       (updated_param(m, d, 0) == k && k < in->nops &&
		laid_alike(&c->instrs[in->ops[k]].shape, &in->shape.elems[1]));
}

/* An async-update that binds its result {1} (an array) late, over the
 * operand its chain's computation returns or updates in place: that
 * operand of the chain, bound by the update itself (operand 1, 2, ...
 * past the chain's count) or before it (its operand 0's {0, p}). */
static int
update_over(const struct module *m, const struct comp *c,
	    const struct instr *in, int k, int knode, int node)
{
	const struct instr *st = in;
	const struct shape *s = &in->shape, *q;
	int d, par, np, guard = 0;

	if (in->nops < 1 || !shape_is_tuple(s) || s->nelem < 2 ||
	    shape_is_tuple(&s->elems[1]) || node != shape_child(s, 1))
		return 0;
	q = &c->instrs[in->ops[0]].shape;
	if (!shape_is_tuple(q) || q->nelem < 2 || !shape_is_tuple(&q->elems[0]) ||
	    shape_equal(&q->elems[1], &s->elems[1]))
		return 0;	/* {1} bound before: the previous op's */
	while (opcode(st) == OP_ASYNC_UPDATE && st->nops >= 1 &&
	       ++guard < c->ninstr)
		st = &c->instrs[st->ops[0]];
	d = opcode(st) == OP_ASYNC_START && st->ncall >= 1 ? st->calls[0] : -1;
	if (d < 0 || m->comps[d].root < 0)
		return 0;
	par = updated_param(m, d, 0);
	if (par < 0)
		par = strict_forward(m, d, m->comps[d].root, 0);
	np = q->elems[0].nelem;
	if (par < 0)
		return 0;
	if (par >= np)
		return k == par - np + 1 && knode == 0 && k < in->nops &&
		       laid_alike(&c->instrs[in->ops[k]].shape, &s->elems[1]);
	return k == 0 && shape_is_tuple(&q->elems[0]) &&
	       !shape_is_tuple(&q->elems[0].elems[par]) &&
	       laid_alike(&q->elems[0].elems[par], &s->elems[1]) &&
	       knode == shape_child(q, 0) + shape_child(&q->elems[0], par);
}

/* ---- fusions ------------------------------------------------------------ */

/* Past get-tuple-elements of tuples and bitcasts, the instruction of f
 * that makes the array at index idx[0..n) of instruction r (XLA's
 * FollowTupleIndirection and FollowNoOpIndirection); *rest is how much of
 * the index is left (0 when it ends at an array), in left[0 .. *rest)
 * when left is not NULL. */
static int
source_of(const struct comp *f, int r, const int64_t *idx, int n,
	  int64_t *left, int *rest)
{
	int64_t path[SHAPE_MAX_DEPTH];
	int np = n;

	if (n)
		memcpy(path, idx, sizeof *idx * (size_t)n);
	for (int guard = 0; guard < f->ninstr + SHAPE_MAX_DEPTH; guard++) {
		const struct instr *in = &f->instrs[r];

		if (opcode(in) == OP_TUPLE && np > 0 && path[0] < in->nops) {
			r = in->ops[path[0]];
			memmove(path, path + 1, sizeof *path * (size_t)--np);
		} else if (opcode(in) == OP_GTE && in->nops == 1 &&
			   np < SHAPE_MAX_DEPTH) {
			memmove(path + 1, path, sizeof *path * (size_t)np++);
			path[0] = in->index;
			r = in->ops[0];
		} else if (np == 0 && opcode(in) == OP_BITCAST && in->nops == 1) {
			r = in->ops[0];
		} else {
			break;
		}
	}
	*rest = np;
	if (left && np)
		memcpy(left, path, sizeof *path * (size_t)np);
	return r;
}

/* Does output index idx of fused computation f update parameter k in
 * place: its source a dynamic-update-slice of it, or element e of a
 * scatter of it (XLA's GetFusionInstructionInPlaceInputOutputPairs)? */
static int
fusion_updates(const struct comp *f, int64_t k, int knode, const int64_t *idx,
	       int n)
{
	int64_t left[SHAPE_MAX_DEPTH];
	int rest, r, x, e = 0;

	if (f->root < 0)
		return 0;
	r = source_of(f, f->root, idx, n, NULL, &rest);
	if (opcode(&f->instrs[r]) == OP_SCATTER &&
	    shape_is_tuple(&f->instrs[r].shape) && rest == 1) {
		int64_t i0;

		r = source_of(f, f->root, idx, n - 1, NULL, &rest);
		i0 = idx[n - 1];
		if (opcode(&f->instrs[r]) != OP_SCATTER || rest != 0 ||
		    i0 >= f->instrs[r].nops)
			return 0;
		e = (int)i0;
	} else if (rest != 0 || (opcode(&f->instrs[r]) != OP_DUS &&
				 opcode(&f->instrs[r]) != OP_SCATTER) ||
		   f->instrs[r].nops < 1) {
		return 0;
	}
	/* the parameter, or an element of a tuple parameter (XLA's pair
	   names the operand's shape index) */
	x = source_of(f, f->instrs[r].ops[e], NULL, 0, left, &rest);
	return opcode(&f->instrs[x]) == OP_PARAMETER &&
	       f->instrs[x].param == k &&
	       shape_node_at(&f->instrs[x].shape, left, rest) == knode;
}

/* Is instruction u elementwise on its operand slot j (XLA's
 * IsElementwiseOnOperand)? */
static int
elementwise_on(const struct instr *u, int j)
{
	if (opcode(u) == OP_DUS)
		return j == 0;
	return u->op && (u->op->flags & OPF_ELEMENTWISE);
}

/* The reduction an input fusion's emitter computes before it writes any
 * other output (XLA's FindHeroReduction): the first output that is a
 * reduce, past bitcasts and elementwise ops of one operand; or -1. */
static int
reduction_hero(const struct comp *f)
{
	const struct instr *r = &f->instrs[f->root];
	int n = opcode(r) == OP_TUPLE ? r->nops : 1;

	for (int e = 0; e < n; e++) {
		int x = opcode(r) == OP_TUPLE ? r->ops[e] : f->root;

		for (int guard = 0; guard < f->ninstr; guard++) {
			const struct instr *in = &f->instrs[x];

			if (opcode(in) == OP_REDUCE)
				return x;
			if (in->nops != 1 || !(opcode(in) == OP_BITCAST ||
					       (in->op && (in->op->flags &
							   OPF_ELEMENTWISE))))
				break;
			x = in->ops[0];
		}
	}
	return -1;
}

/* The GPU backend's FusionCanShareBufferHint: every path from parameter
 * instruction pi of f reads it elementwise (bitcasts and tuples pass it
 * on), in the order the output at index idx[0..n) is written, and one
 * reaches that output; an input fusion's reduction hero, which its
 * emitter computes first, ends a path. */
static int
param_elementwise(const struct comp *f, int pi, const int64_t *idx, int n,
		  int hero, char *seen, int *queue)
{
	int out = f->root, nbr, head = 0, tail = 0, found = 0, other = 0;

	for (int k = 0; k < n && opcode(&f->instrs[out]) == OP_TUPLE; k++) {
		if (idx[k] >= f->instrs[out].nops)
			return 0;
		out = f->instrs[out].ops[idx[k]];
	}
	nbr = out;
	if (opcode(&f->instrs[nbr]) == OP_BITCAST && f->instrs[nbr].nops == 1)
		nbr = f->instrs[nbr].ops[0];
	memset(seen, 0, (size_t)f->ninstr);
	queue[tail++] = pi;
	seen[pi] = 1;
	while (head < tail) {
		int x = queue[head++];

		found |= x == out;
		if (x == hero)
			continue;
		for (int i = 0; i < f->ninstr; i++) {
			const struct instr *u = &f->instrs[i];
			int j, cnt = 0;

			for (j = 0; j < u->nops && u->ops[j] != x; j++)
				;
			if (j == u->nops)
				continue;
			for (int q = 0; q < u->nops; q++)
				cnt += u->ops[q] == x;
			if (!seen[i]) {
				seen[i] = 1;
				queue[tail++] = i;
			}
			if (i == nbr && opcode(u) == OP_SCATTER && cnt == 1 &&
			    j < (shape_is_tuple(&u->shape) ? u->shape.nelem : 1))
				continue;
			if (i == nbr && opcode(u) == OP_SORT && cnt == 1) {
				if (n != 1 || idx[0] != j)
					return 0;
				continue;
			}
			if (opcode(&f->instrs[nbr]) == OP_DUS &&
			    opcode(u) == OP_DYNAMIC_SLICE && u->nops >= 1 &&
			    f->instrs[nbr].nops >= 2 &&
			    f->instrs[nbr].ops[0] == u->ops[0] &&
			    shape_equal(&u->shape, &f->instrs[f->instrs[nbr]
							       .ops[1]].shape)) {
				/* the same slice read and then written */
				if (shape_elements(&u->shape) == 1)
					continue;
				for (int q = 1; q < u->nops; q++)
					if (q + 1 >= f->instrs[nbr].nops ||
					    u->ops[q] != f->instrs[nbr].ops[q + 1])
						return 0;
			} else if ((!elementwise_on(u, j) || opcode(u) == OP_COPY) &&
				   opcode(u) != OP_BITCAST &&
				   opcode(u) != OP_TUPLE && i != hero &&
				   !(i == nbr && opcode(u) == OP_DUS && j == 1)) {
				return 0;
			}
		}
	}
	/* Another output reached: only where every output is written in
	 * the same elementwise order. */
	if (opcode(&f->instrs[f->root]) == OP_TUPLE)
		for (int k = 0; k < f->instrs[f->root].nops; k++) {
			int r = f->instrs[f->root].ops[k];

			if (seen[r] && r != out &&
			    (!(f->instrs[nbr].op &&
			       (f->instrs[nbr].op->flags & OPF_ELEMENTWISE)) ||
			     opcode(&f->instrs[r]) == OP_TRANSPOSE ||
			     opcode(&f->instrs[r]) == OP_COPY))
				other = 1;
		}
	return found && !other;
}

/* May a fusion write output index idx over operand k (a loop or input
 * fusion's elementwise path: XLA's FusionCanShareBufferHint on the GPU,
 * AreTransitiveUsesElementwiseOrTuple elsewhere, which this is a subset
 * of)?  Every parameter that operand k's instruction is passed as must
 * be read that way. */
static int
fusion_may(struct pool *pool, const struct module *m, const struct comp *c,
	   const struct instr *in, int k, const int64_t *idx, int n)
{
	int d = called_comp(m, in, "calls"), ok = 1, hero;
	const struct attr *kind = instr_attr(in, "kind");
	const struct comp *f;
	char seen0[256], *seen = seen0;
	int queue0[256], *queue = queue0;

	if (d < 0 || (f = &m->comps[d])->root < 0 || !kind ||
	    !((kind->vlen == 5 && !strncmp(kind->val, "kLoop", 5)) ||
	      (kind->vlen == 6 && !strncmp(kind->val, "kInput", 6))))
		return 0;
	if (f->ninstr > 256) {	/* (the pool is freed with the plan) */
		seen = pool_alloc(pool, (size_t)f->ninstr + 1);
		queue = pool_alloc(pool, sizeof(int) * ((size_t)f->ninstr + 1));
	}
	hero = kind->vlen == 6 ? reduction_hero(f) : -1;
	for (int j = 0; j < in->nops && ok; j++) {
		if (in->ops[j] != in->ops[k])
			continue;
		ok = j < f->nparam && f->params[j] >= 0 &&
		     param_elementwise(f, f->params[j], idx, n, hero, seen,
				       queue);
	}
	(void)c;
	return ok;
}

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

/* On the TPU, an array that names no tile is stored in the default one
 * (sizing.c), so it is laid out as one that names that tile. */
static int
same_tpu_layout(const struct prog *p, const struct shape *a,
		const struct shape *b)
{
	if (p->opt.target != TARGET_TPU || (a->ntile > 0) == (b->ntile > 0))
		return 0;
	return same_layout(target_layout(p->pool, &p->opt, a),
			   target_layout(p->pool, &p->opt, b));
}

/* ---- the in-place table ------------------------------------------------- */

/* The must pairs (XLA's GetInPlaceInputOutputPairs). */
static int
must_share(const struct module *m, const struct comp *c,
	   const struct instr *in, int k, int knode, int node)
{
	int64_t idx[SHAPE_MAX_DEPTH];
	int depth = 0, d;

	if (permute_in_place(in))	/* operand 1 {i} -> output {i}, or
					   a start's {1, i} */
		return k == 1 && node == knode + (named(in, "collective-permute")
						  ? 0 : shape_child(&in->shape,
								    1));
	if (named(in, "ragged-all-to-all"))	/* operand 1 is its output */
		return k == 1 && knode == 0 && node == 0;
	switch (opcode(in)) {
	case OP_DUS:
		return k == 0 && knode == 0 && node == 0;
	case OP_SCATTER:
		if (knode != 0 || k >= in->nops / 2)
			return 0;
		return shape_is_tuple(&in->shape) ?
			       node == shape_child(&in->shape, k) :
			       k == 0 && node == 0;
	case OP_CUSTOM_CALL:
		return aliasing_names(c, in, k, knode, node);
	case OP_ASYNC_DONE:
		return done_aliases(c, in, k, knode, node);
	case OP_ASYNC_START:
		return start_forwards(m, c, in, k, knode, node);
	case OP_ASYNC_UPDATE:
		return update_over(m, c, in, k, knode, node);
	case OP_FUSION:
		if (aliasing_names(c, in, k, knode, node))
			return 1;
		d = called_comp(m, in, "calls");
		if (d < 0 || !node_path(&in->shape, node, idx, &depth))
			return 0;
		return fusion_updates(&m->comps[d], k, knode, idx, depth);
	default:
		return 0;
	}
}

/* in_place_kind; with may 0 it stops at IP_MUST and never walks a fused
 * computation (what the values pass asks of every instruction). */
static int
kind(const struct prog *p, const struct comp *c, const struct instr *in,
     int k, int knode, int node, int may)
{
	const struct shape *out = shape_array_at(&in->shape, node), *os;
	int64_t idx[SHAPE_MAX_DEPTH];
	int op = opcode(in), depth = 0, must;
	struct shape moved;

	if (k < 0 || k >= in->nops || !out ||
	    !(os = shape_array_at(&c->instrs[in->ops[k]].shape, knode)))
		return IP_NONE;
	must = must_share(p->m, c, in, k, knode, node);
	if (os->space != out->space) {
		/* An update in place from another memory space: the runtime
		 * copies the operand in first (copies.c never joins across
		 * spaces). */
		moved = *os;
		moved.space = out->space;
		return must && same_layout(&moved, out) ? IP_MUST : IP_NONE;
	}
	if (!same_layout(os, out) && !same_tpu_layout(p, os, out)) {
		/* On the GPU, a kernel that updates an operand in place
		 * through a bitcast (XLA pairs them whatever the shapes); a
		 * fusion that reads it elementwise into the same bytes (the
		 * GPU's hint: as many elements of one width). */
		if (p->opt.target != TARGET_GPU ||	/* TPU tiles move
							   elements */
		    target_size(&p->opt, os) != target_size(&p->opt, out) ||
		    !(must || (op == OP_FUSION &&
			       shape_elements(os) == shape_elements(out) &&
			       dtype_bits(os->type) == dtype_bits(out->type))))
			return IP_NONE;
	}
	if (must)
		return IP_MUST;
	if (!may || (c->instrs[in->ops[k]].op &&
	    opcode(&c->instrs[in->ops[k]]) == OP_CONSTANT))
		return IP_NONE;
	switch (op) {
	case OP_FUSION:
		node_path(&in->shape, node, idx, &depth);
		return knode == 0 && fusion_may(p->pool, p->m, c, in, k, idx,
						 depth) ? IP_MAY : IP_NONE;
	case OP_ALL_REDUCE:	/* NCCL's all-reduce runs in place; a
				   start too (its operand is read until the
				   done: liveness.c's tail) */
		if (knode != 0)
			return IP_NONE;
		return in->nops == 1 || (shape_is_tuple(&in->shape) &&
					 node == shape_child(&in->shape, k)) ?
			       IP_MAY : IP_NONE;
	case OP_COPY:
		return IP_NONE;		/* a copy is never in place */
	default:
		return knode == 0 && in->op &&
		       (in->op->flags & OPF_ELEMENTWISE) ? IP_MAY : IP_NONE;
	}
}

int
in_place_kind(const struct prog *p, const struct comp *c,
	      const struct instr *in, int k, int knode, int node)
{
	return kind(p, c, in, k, knode, node, 1);
}

int
in_place_must(const struct prog *p, const struct comp *c,
	      const struct instr *in, int k, int knode, int node)
{
	return kind(p, c, in, k, knode, node, 0) == IP_MUST;
}

int
must_unmet(const struct prog *p, const struct comp *c, const struct instr *in,
	   int k, int knode, int node)
{
	/* (a custom-call's own output_to_operand_aliasing on the TPU: the
	 * other must pairs are XLA's, which its passes keep alike) */
	return opcode(in) == OP_CUSTOM_CALL && p->opt.target != TARGET_GPU &&
	       must_share(p->m, c, in, k, knode, node) &&
	       kind(p, c, in, k, knode, node, 0) != IP_MUST;
}

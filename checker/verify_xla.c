/* The verifier's own table of XLA's kernel contract: where a kernel may
 * write an output over bytes it reads, because XLA runs it in place
 * (dynamic-update-slice, scatter, output_to_operand_aliasing at any index,
 * fusions that update a parameter, NCCL's all-reduce) or lets it take
 * over an operand it reads elementwise (a loop or input fusion: the GPU
 * backend's FusionCanShareBufferHint).  Written apart from the passes'
 * rules.c, from XLA's alias_info.cc and gpu/alias_info.cc. */
#include <string.h>

#include "checker/verify_internal.h"
#include "checker/verify.h"
#include "ir/ir.h"

static int
op_of(const struct instr *in)
{
	return in->op ? in->op->op : OP_OTHER;
}

/* The preorder node of index idx[0..n) in s, or -1. */
static int
node_of(const struct shape *s, const int64_t *idx, int n)
{
	int node = 0;

	for (int d = 0; d < n; d++) {
		if (idx[d] < 0 || idx[d] >= s->nelem)
			return -1;
		node++;
		for (int e = 0; e < idx[d]; e++)
			node += vs_nodes(&s->elems[e]);
		s = &s->elems[idx[d]];
	}
	return node;
}

/* One "{a,b}" index of the attribute text; its length, or -1. */
static int
index_at(const char *s, const char *end, const char **next, int64_t *idx)
{
	int n = 0;

	while (s < end && *s != '{')
		s++;
	if (s == end)
		return -1;
	for (s++; s < end && *s != '}'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (n == SHAPE_MAX_DEPTH)
			return -1;
		idx[n] = 0;
		for (; s < end && *s >= '0' && *s <= '9'; s++)
			if (idx[n] < 1000000)
				idx[n] = idx[n] * 10 + (*s - '0');
		n++;
		s--;
	}
	*next = s < end ? s + 1 : end;
	return s < end ? n : -1;
}

/* Does output_to_operand_aliasing give output node `node` of in the bytes
 * of node `knode` of operand k? */
static int
aliased(const struct comp *c, const struct instr *in, int k, int knode,
	int node)
{
	const struct attr *at = instr_attr(in, "output_to_operand_aliasing");
	const char *s, *end;
	int64_t out[SHAPE_MAX_DEPTH], opi[SHAPE_MAX_DEPTH];

	if (!at || at->vlen < 2)
		return 0;
	s = at->val + 1;	/* past the list's own brace */
	end = at->val + at->vlen;
	for (;;) {
		int no = index_at(s, end, &s, out), ni, opnd = 0;

		if (no < 0)
			return 0;
		while (s < end && (*s < '0' || *s > '9'))
			s++;
		while (s < end && *s >= '0' && *s <= '9' && opnd < 1000000)
			opnd = opnd * 10 + (*s++ - '0');
		if ((ni = index_at(s, end, &s, opi)) < 0)
			return 0;
		if (opnd == k && node_of(&in->shape, out, no) == node &&
		    node_of(&c->instrs[in->ops[k]].shape, opi, ni) == knode)
			return 1;
	}
}

/* The instruction of fused computation f that writes the array at index
 * idx[0..n) of instruction r's output, past tuples, get-tuple-elements
 * and bitcasts; *left: how much of the index is left to apply to it, in
 * rem[0 .. *left) when rem is not NULL. */
static int
writer(const struct comp *f, int r, const int64_t *idx, int n, int *left,
       int64_t *rem)
{
	int64_t st[2 * SHAPE_MAX_DEPTH];
	int top = 0;

	for (int d = n - 1; d >= 0; d--)	/* a stack: front on top */
		st[top++] = idx[d];
	for (int steps = 0; steps <= f->ninstr + SHAPE_MAX_DEPTH; steps++) {
		const struct instr *in = &f->instrs[r];

		if (op_of(in) == OP_TUPLE && top > 0 && st[top - 1] < in->nops)
			r = in->ops[st[--top]];
		else if (op_of(in) == OP_GTE && in->nops == 1 &&
			 top < 2 * SHAPE_MAX_DEPTH)
			st[top++] = in->index, r = in->ops[0];
		else if (op_of(in) == OP_BITCAST && in->nops == 1 && top == 0)
			r = in->ops[0];
		else
			break;
	}
	*left = top;
	for (int d = 0; rem && d < top; d++)
		rem[d] = st[top - 1 - d];
	return r;
}

/* Does the fusion's output at idx update node knode of parameter k where
 * it lies (an element of a tuple parameter too)? */
static int
updates(const struct comp *f, int64_t k, int knode, const int64_t *idx,
	int n)
{
	int64_t rem[2 * SHAPE_MAX_DEPTH];
	int left, r = writer(f, f->root, idx, n, &left, NULL), e = 0, x;

	if (left == 1 && n >= 1) {	/* an element of a tuple scatter */
		r = writer(f, f->root, idx, n - 1, &left, NULL);
		e = (int)idx[n - 1];
		if (left || op_of(&f->instrs[r]) != OP_SCATTER)
			return 0;
	} else if (left || (op_of(&f->instrs[r]) != OP_DUS &&
			    op_of(&f->instrs[r]) != OP_SCATTER)) {
		return 0;
	}
	if (e >= f->instrs[r].nops)
		return 0;
	x = writer(f, f->instrs[r].ops[e], NULL, 0, &left, rem);
	return op_of(&f->instrs[x]) == OP_PARAMETER &&
	       f->instrs[x].param == k && left <= SHAPE_MAX_DEPTH &&
	       node_of(&f->instrs[x].shape, rem, left) == knode;
}

/* Is u elementwise on its operand slot j (a dynamic-update-slice on the
 * array it updates)? */
static int
ew_on(const struct instr *u, int j)
{
	if (op_of(u) == OP_DUS)
		return j == 0;
	return op_of(u) != OP_COPY && u->op &&
	       (u->op->flags & OPF_ELEMENTWISE);
}

/* Does dynamic-slice u read exactly the slice that the dynamic-update-slice
 * w writes (or one element), so that it reads it before it is written? */
static int
same_slice(const struct comp *f, const struct instr *u, const struct instr *w)
{
	if (op_of(u) != OP_DYNAMIC_SLICE || op_of(w) != OP_DUS ||
	    u->nops < 1 || w->nops < 2 || u->ops[0] != w->ops[0] ||
	    !shape_equal(&u->shape, &f->instrs[w->ops[1]].shape))
		return 0;
	if (shape_elements(&u->shape) == 1)
		return 1;
	for (int q = 1; q < u->nops; q++)
		if (q + 1 >= w->nops || u->ops[q] != w->ops[q + 1])
			return 0;
	return 1;
}

/* May the use of x by u, at slot j, let u's result lie over x?  The
 * output's writer is w (w's slot-1 update, a scatter's inputs and a sort's
 * own key as it says). */
static int
use_ok(const struct comp *f, int ui, int x, int j, int w, const int64_t *idx,
       int n)
{
	const struct instr *u = &f->instrs[ui];
	int cnt = 0;

	for (int q = 0; q < u->nops; q++)
		cnt += u->ops[q] == x;
	if (ui == w && op_of(u) == OP_SCATTER && cnt == 1)
		return j < (shape_is_tuple(&u->shape) ? u->shape.nelem : 1);
	if (ui == w && op_of(u) == OP_SORT && cnt == 1)
		return n == 1 && idx[0] == j;
	if (op_of(&f->instrs[w]) == OP_DUS && op_of(u) == OP_DYNAMIC_SLICE &&
	    u->ops[0] == f->instrs[w].ops[0])
		return same_slice(f, u, &f->instrs[w]);
	return ew_on(u, j) || op_of(u) == OP_BITCAST || op_of(u) == OP_TUPLE ||
	       (ui == w && op_of(u) == OP_DUS && j == 1);
}

/* An input fusion's reduction emitter computes the reduction it is built
 * around first: the first output that is, under bitcasts and elementwise
 * ops of one operand, a reduce.  -1: none. */
static int
first_reduce(const struct comp *f)
{
	const struct instr *r = &f->instrs[f->root];

	for (int e = 0; e < (op_of(r) == OP_TUPLE ? r->nops : 1); e++) {
		int x = op_of(r) == OP_TUPLE ? r->ops[e] : f->root;

		for (int d = 0; d <= f->ninstr; d++) {
			const struct instr *in = &f->instrs[x];

			if (op_of(in) == OP_REDUCE)
				return x;
			if (in->nops != 1 || (op_of(in) != OP_BITCAST &&
					      !(in->op && (in->op->flags &
							   OPF_ELEMENTWISE))))
				break;
			x = in->ops[0];
		}
	}
	return -1;
}

/* Every path from parameter instruction pi of f reads it elementwise in
 * the order the output at index idx is written, and one path reaches that
 * output; another output reached must be written in that order too.  A
 * path ends at the reduction hero (hero >= 0), computed first. */
static int
path_elementwise(const struct comp *f, int pi, const int64_t *idx, int n,
		 int hero)
{
	char seen[4096];
	int stack[4096], top = 0, out = f->root, w, reached = 0;

	if (f->ninstr > 4096)
		return 0;	/* (no fusion in the corpora is that large) */
	for (int d = 0; d < n; d++) {
		if (op_of(&f->instrs[out]) != OP_TUPLE)
			break;
		if (idx[d] >= f->instrs[out].nops)
			return 0;
		out = f->instrs[out].ops[idx[d]];
	}
	w = op_of(&f->instrs[out]) == OP_BITCAST && f->instrs[out].nops == 1 ?
	    f->instrs[out].ops[0] : out;
	memset(seen, 0, (size_t)f->ninstr);
	seen[pi] = 1;
	stack[top++] = pi;
	while (top > 0) {
		int x = stack[--top];

		reached |= x == out;
		if (x == hero)
			continue;
		for (int ui = 0; ui < f->ninstr; ui++)
			for (int j = 0; j < f->instrs[ui].nops; j++) {
				if (f->instrs[ui].ops[j] != x)
					continue;
				if (ui != hero && !use_ok(f, ui, x, j, w, idx, n))
					return 0;
				if (!seen[ui]) {
					seen[ui] = 1;
					stack[top++] = ui;
				}
				break;	/* XLA looks at the first slot */
			}
	}
	if (op_of(&f->instrs[f->root]) == OP_TUPLE)
		for (int e = 0; e < f->instrs[f->root].nops; e++) {
			const struct instr *r =
				&f->instrs[f->instrs[f->root].ops[e]];

			if (f->instrs[f->root].ops[e] == out ||
			    !seen[f->instrs[f->root].ops[e]])
				continue;
			if (!(f->instrs[w].op &&
			      (f->instrs[w].op->flags & OPF_ELEMENTWISE)) ||
			    op_of(r) == OP_TRANSPOSE || op_of(r) == OP_COPY)
				return 0;
		}
	return reached;
}

/* The index of output node `node` of s in idx; its length, or -1. */
static int
index_of(const struct shape *s, int node, int64_t *idx)
{
	int n = 0;

	while (node > 0) {
		int e = 0, at = 1;

		while (e < s->nelem && node >= at + vs_nodes(&s->elems[e]))
			at += vs_nodes(&s->elems[e++]);
		if (e == s->nelem || n == SHAPE_MAX_DEPTH)
			return -1;
		idx[n++] = e;
		node -= at;
		s = &s->elems[e];
	}
	return n;
}

/* A loop or input fusion that reads operand k elementwise on the way to
 * output node `node`: every parameter operand k is passed as. */
static int
fusion_takes_over(const struct module *m, const struct instr *in, int k,
		  int node)
{
	const struct attr *kind = instr_attr(in, "kind");
	const struct comp *f = NULL;
	int64_t idx[SHAPE_MAX_DEPTH];
	int n = index_of(&in->shape, node, idx);

	for (int j = 0; j < in->ncall; j++)
		if (!strcmp(in->callkey[j], "calls"))
			f = &m->comps[in->calls[j]];
	if (!f || f->root < 0 || n < 0 || !kind ||
	    !((kind->vlen == 5 && !memcmp(kind->val, "kLoop", 5)) ||
	      (kind->vlen == 6 && !memcmp(kind->val, "kInput", 6))))
		return 0;
	for (int j = 0; j < in->nops; j++)
		if (in->ops[j] == in->ops[k] &&
		    (j >= f->nparam || f->params[j] < 0 ||
		     !path_elementwise(f, f->params[j], idx, n,
				       kind->vlen == 6 ? first_reduce(f) : -1)))
			return 0;
	return 1;
}

/* An async-done over what its chain bound late: the start's
 * output_to_operand_aliasing {1, i...}: (p, {j...}) puts done output
 * {i...} over the chain's {0, p, j...}. */
static int
done_over(const struct comp *c, const struct instr *in, int knode, int node)
{
	const struct instr *s = in;
	const struct attr *at;
	const char *q, *end;
	int64_t out[SHAPE_MAX_DEPTH], opi[SHAPE_MAX_DEPTH + 2];

	for (int n = 0; n <= c->ninstr && s->nops >= 1 &&
			(s == in || op_of(s) == OP_ASYNC_UPDATE); n++)
		s = &c->instrs[s->ops[0]];
	if (op_of(s) != OP_ASYNC_START ||
	    !(at = instr_attr(s, "output_to_operand_aliasing")) || at->vlen < 2)
		return 0;
	q = at->val + 1;
	end = at->val + at->vlen;
	for (;;) {
		int no = index_at(q, end, &q, out), ni, p = 0;

		if (no < 0)
			return 0;
		while (q < end && (*q < '0' || *q > '9'))
			q++;
		while (q < end && *q >= '0' && *q <= '9' && p < 1000000)
			p = p * 10 + (*q++ - '0');
		if ((ni = index_at(q, end, &q, opi + 2)) < 0)
			return 0;
		opi[0] = 0;
		opi[1] = p;
		if (no >= 1 && out[0] == 1 &&
		    node_of(&in->shape, out + 1, no - 1) == node &&
		    node_of(&c->instrs[in->ops[0]].shape, opi, ni + 2) == knode)
			return 1;
	}
}

/* Are a and b laid out alike (shape, layout, tiles, memory space)?  An
 * async computation updates an operand in place only so. */
static int
alike(const struct shape *a, const struct shape *b)
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

/* The parameter of computation f whose bytes its root result is: the
 * parameter itself, or one an in-place op there updates (a
 * dynamic-update-slice, a scatter, a custom-call's aliasing of {}, a call
 * of such a computation); -1 otherwise.  XLA's dataflow shares an async
 * computation's values with its start, so start{1} is that operand. */
static int
root_param(const struct module *m, int f, int depth)
{
	const struct comp *c = &m->comps[f];
	const struct instr *in;
	int left, r, k = -1;

	if (c->root < 0 || depth > 64)
		return -1;
	r = writer(c, c->root, NULL, 0, &left, NULL);
	in = &c->instrs[r];
	if (left)
		return -1;
	if (op_of(in) == OP_PARAMETER)
		return (int)in->param;
	if (op_of(in) == OP_DUS || (op_of(in) == OP_SCATTER &&
				    in->nops == 3))
		k = 0;
	for (int j = 0; op_of(in) == OP_CUSTOM_CALL && j < in->nops; j++)
		if (k < 0 && aliased(c, in, j, 0, 0))
			k = j;
	if (op_of(in) == OP_CALL && in->ncall == 1)
		k = root_param(m, in->calls[0], depth + 1);
	if (k < 0 || k >= in->nops)
		return -1;
	r = writer(c, in->ops[k], NULL, 0, &left, NULL);
	return !left && op_of(&c->instrs[r]) == OP_PARAMETER ?
		       (int)c->instrs[r].param : -1;
}

/* An async-start's result {1}, an array, over operand k (an array) that
 * its computation returns or updates in place. */
static int
start_over(const struct module *m, const struct comp *c,
	   const struct instr *in, int k, int knode, int node)
{
	static const int64_t one[1] = {1};

	if (knode != 0 || in->ncall < 1 || !shape_is_tuple(&in->shape) ||
	    in->shape.nelem < 2 || shape_is_tuple(&in->shape.elems[1]) ||
	    node != node_of(&in->shape, one, 1))
		return 0;
	return root_param(m, in->calls[0], 0) == k && k < in->nops &&
	       alike(&c->instrs[in->ops[k]].shape, &in->shape.elems[1]);
}

/* An async-update that binds its result {1}, an array, late: over the
 * operand of its chain that the computation returns or updates in place,
 * its own operand k (past the chain's count) or its operand 0's {0, p}. */
static int
update_over_x(const struct module *m, const struct comp *c,
	      const struct instr *in, int k, int knode, int node)
{
	static const int64_t one[1] = {1};
	const struct instr *st = in;
	const struct shape *q;
	int64_t idx[2] = {0, 0};
	int par, np;

	if (in->nops < 1 || !shape_is_tuple(&in->shape) ||
	    in->shape.nelem < 2 || shape_is_tuple(&in->shape.elems[1]) ||
	    node != node_of(&in->shape, one, 1))
		return 0;
	q = &c->instrs[in->ops[0]].shape;
	if (!shape_is_tuple(q) || q->nelem < 2 ||
	    !shape_is_tuple(&q->elems[0]) ||
	    shape_equal(&q->elems[1], &in->shape.elems[1]))
		return 0;
	for (int n = 0; n <= c->ninstr && st->nops >= 1 &&
			op_of(st) == OP_ASYNC_UPDATE; n++)
		st = &c->instrs[st->ops[0]];
	if (op_of(st) != OP_ASYNC_START || st->ncall < 1 ||
	    (par = root_param(m, st->calls[0], 0)) < 0)
		return 0;
	np = q->elems[0].nelem;
	if (par >= np)
		return k == par - np + 1 && knode == 0 && k < in->nops &&
		       alike(&c->instrs[in->ops[k]].shape,
			     &in->shape.elems[1]);
	idx[1] = par;
	return k == 0 && knode == node_of(q, idx, 2) &&
	       alike(&q->elems[0].elems[par], &in->shape.elems[1]);
}

/* An in-place collective-permute (input, output buffer, input and output
 * offsets; alias_info.cc): it writes slices of operand 1 where they lie,
 * its result {i} (a start's {1, i}) is operand 1's {i}.  -1 when in is
 * none, else the output node over operand 1's node knode. */
int
vx_permute_node(const struct instr *in, int knode)
{
	static const int64_t one[1] = {1};
	int start;

	if (in->nops != 4 || !in->op || !instr_attr(in, "slice_sizes"))
		return -1;		/* (four operands of a combined one) */
	start = !strcmp(in->op->name, "collective-permute-start");
	if (!start && strcmp(in->op->name, "collective-permute"))
		return -1;
	return knode + (start ? node_of(&in->shape, one, 1) : 0);
}

int
vx_over(const struct module *m, const struct comp *c, const struct instr *in,
	int k, int knode, int node)
{
	int64_t idx[SHAPE_MAX_DEPTH];
	int n;

	if (vx_permute_node(in, knode) >= 0)
		return k == 1 && vx_permute_node(in, knode) == node;
	if (in->op && !strcmp(in->op->name, "ragged-all-to-all"))
		return k == 1 && knode == 0 && node == 0;	/* alias_info.cc */
	switch (op_of(in)) {
	case OP_DUS:
		return k == 0 && knode == 0 && node == 0;
	case OP_SCATTER:
		if (knode != 0 || k >= in->nops / 2)
			return 0;
		if (!shape_is_tuple(&in->shape))
			return k == 0 && node == 0;
		n = index_of(&in->shape, node, idx);
		return n == 1 && idx[0] == k;
	case OP_CUSTOM_CALL:
		return aliased(c, in, k, knode, node);
	case OP_ASYNC_DONE:
		return k == 0 && done_over(c, in, knode, node);
	case OP_ASYNC_START:
		return start_over(m, c, in, k, knode, node);
	case OP_ASYNC_UPDATE:
		return update_over_x(m, c, in, k, knode, node);
	case OP_FUSION:
		if (aliased(c, in, k, knode, node))
			return 1;
		if ((n = index_of(&in->shape, node, idx)) < 0)
			return 0;
		for (int j = 0; j < in->ncall; j++)
			if (!strcmp(in->callkey[j], "calls") &&
			    updates(&m->comps[in->calls[j]], k, knode, idx, n))
				return 1;
		return knode == 0 && fusion_takes_over(m, in, k, node);
	case OP_ALL_REDUCE:
		if (knode != 0)
			return 0;
		if (in->nops == 1)
			return 1;
		n = index_of(&in->shape, node, idx);
		return n == 1 && idx[0] == k;
	default:
		return 0;
	}
}

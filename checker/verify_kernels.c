/* The checker's symbolic run, instruction by instruction (verify_run.c runs
 * the computations): each kernel reads its operands where the plan puts
 * them and writes its result, in place only where XLA's kernel runs in
 * place; forwarding ops, async pairs, sends and receives as XLA's dataflow
 * has them. */
#include <stdlib.h>
#include <string.h>

#include "checker/verify_run.h"

/* ---- kernels: every other instruction ------------------------------------ */

/* May the output at node `node` (address a, n bytes) of (c,i) lie over
 * node j of operand k, at b with m bytes?  Only where the op writes in
 * place over what it consumes there: an elementwise op over an operand of
 * its size, dynamic-update-slice and scatter over operand 0 (or a whole
 * update over itself), a fusion whose root updates a parameter in place,
 * a custom-call's output_to_operand_aliasing. */
/* The k-th minor dimension of s (a missing layout is the default one). */
static int
minor(const struct shape *s, int k)
{
	return s->has_layout ? s->m2m[k] : s->rank - 1 - k;
}

/* Does element i of a lie where element i of b does (dims, layout, tiles
 * and element width alike), so that an elementwise op may run in place? */
static int
same_places(const struct shape *a, const struct shape *b)
{
	int ba = a->elem_bits ? a->elem_bits : dtype_bits(a->type);
	int bb = b->elem_bits ? b->elem_bits : dtype_bits(b->type);

	if (ba != bb || a->rank != b->rank || a->nelem || b->nelem ||
	    a->ntile != b->ntile)
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

/* May the output at node `node` (address a, n bytes) of in lie over node
 * j of operand k, at b with m bytes?  Only where the op writes in place
 * over what it consumes there: an elementwise op over an operand laid out
 * alike, dynamic-update-slice and scatter over operand 0 (or a whole
 * update over itself), and what XLA's kernel contract allows
 * (verify_xla.c). */
static int
in_place_ok(struct vr *v, int c, const struct instr *in,
	    const struct shape *os, int k, int j, int node, uint64_t a,
	    int64_t n, uint64_t b, int64_t m)
{
	int op = vr_opcode(in), same = a == b && n == m;

	if (op == OP_SCATTER && !shape_is_tuple(&in->shape))
		return k == 0 && node == 0;	/* updates land anywhere */
	if (op == OP_DUS)
		return (k == 0 && node == 0) || same;
	if (!same)
		return 0;
	if (in->op && (in->op->flags & OPF_ELEMENTWISE) && op != OP_COPY)
		return same_places(&in->shape, os);
	return vx_over(v->m, &v->m->comps[c], in, k, j, node);
}

/* No output node lies over an operand the op reads, but in place. */
static void
check_overlap(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];

	for (int node = 0; node < n; node++) {
		uint64_t a = vr_where(v, base + node);
		int64_t an = v->pl->pos[base + node].defines ?
			     v->nbytes[base + node] : 0;	/* a forward */

		for (int k = 0; an > 0 && k < in->nops; k++) {
			int ob = v->posbase[c][in->ops[k]];
			int on = v->nsub[ob];

			for (int j = 0; j < on; j++) {
				uint64_t b = vr_where(v, ob + j);
				int64_t bn = v->nbytes[ob + j];

				if (bn <= 0 || a + (uint64_t)an <= b ||
				    b + (uint64_t)bn <= a ||
				    in_place_ok(v, c, in, v->nshape[ob + j], k,
						j, node, a, an, b, bn))
					continue;
				vr_failw(v, who, " at step %d writes its "
					 "output over operand %d ('%s'), which "
					 "it reads", v->now, k,
					v->m->comps[c].instrs[in->ops[k]].name);
			}
		}
	}
}

/* The start of an asynchronous pair whose done is (c,i), or -1. */
static int
async_start(const struct vr *v, int c, int i)
{
	const struct comp *cp = &v->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int s;

	if (!vr_ends_with(vr_opname(in), "-done") || in->nops < 1)
		return -1;
	s = in->ops[0];
	while (vr_opcode(&cp->instrs[s]) == OP_ASYNC_UPDATE &&
	       cp->instrs[s].nops > 0)
		s = cp->instrs[s].ops[0];
	in = &cp->instrs[s];
	return vr_ends_with(vr_opname(in), "-start") || vr_opcode(in) == OP_SEND ||
	       vr_opcode(in) == OP_RECV ? s : -1;
}

/* An in-place collective-permute writes slices of operand 1 where its
 * result lies: each array of operand 1 must be there already. */
static void
need_permuted(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], ob = v->posbase[c][in->ops[1]];

	for (int j = 0; j < v->nsub[ob]; j++) {
		int node = vx_permute_node(in, j);

		if (shape_is_tuple(v->nshape[ob + j]) || node >= v->nsub[base])
			vr_need(v, ob + j, who);
		else
			vr_need_at(v, ob + j, vr_where(v, base + node),
				v->cur[ob + j], who);
	}
}

static void
run_kernel(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];
	int dus = (vr_opcode(in) == OP_DUS || vr_opcode(in) == OP_SCATTER) &&
		  !shape_is_tuple(&in->shape) && in->nops > 0;

	for (int k = 0; k < in->nops; k++) {
		int ob = v->posbase[c][in->ops[k]];

		if (dus && k == 0)	/* updated where the output is */
			vr_need_at(v, ob, vr_where(v, base), v->cur[ob], who);
		else if (k == 1 && vx_permute_node(in, 0) >= 0)
			need_permuted(v, c, i, who);
		else
			vr_need_all(v, ob, who);
	}
	check_overlap(v, c, i, who);
	for (int node = 0; node < n; node++) {
		if (!v->pl->pos[base + node].defines)
			vr_failw(v, who, ": the plan says node %d forwards a "
				 "value, but the op writes it", node);
		vr_define(v, base + node, who);
	}
}

/* The node of operand o's output that output node 0 of a done or a
 * get-tuple-element forwards: element e of a tuple, or o itself. */
static int
element_of(struct vr *v, int ob, int64_t e, int n)
{
	const struct shape *s = v->nshape[ob];
	int at = ob + 1;

	if (!shape_is_tuple(s))
		return v->nsub[ob] == n && e < 0 ? ob : -1;
	if (e < 0 || e >= s->nelem)
		return -1;
	if (v->nsub[ob] == s->nelem + 1)	/* flat: no walk */
		at = ob + 1 + (int)e;
	else
		for (int k = 0; k < e; k++)
			at += v->nsub[at];
	return v->nsub[at] == n ? at : -1;
}

/* A done: its operands and the start's stay intact until now; it hands
 * back what the start made (element 1 of a tuple start; a copy-start's
 * element 0), else it is a kernel. */
/* recv-done: (data, token); the data is what the recv received, its {0}
 * (the recv may be in an earlier iteration, passed on in a tuple). */
static void
run_recv_done(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob, src;

	if (in->nops < 1 || !shape_is_tuple(v->nshape[base]) || n < 2) {
		run_kernel(v, c, i, who);
		return;
	}
	ob = v->posbase[c][in->ops[0]];
	vr_need_all(v, ob, who);
	src = element_of(v, ob, 0, v->nsub[base + 1]);
	if (src < 0 || !shape_is_tuple(&v->m->comps[c].instrs[in->ops[0]].shape) ||
	    !shape_equal(&in->shape.elems[0],
			 &v->m->comps[c].instrs[in->ops[0]].shape.elems[0])) {
		run_kernel(v, c, i, who);
		return;
	}
	vr_define(v, base, who);
	vr_forward_tree(v, base + 1, src, v->nsub[base + 1], who);
	for (int node = 1 + v->nsub[base + 1]; node < n; node++)
		vr_define(v, base + node, who);
}

/* Did start s write an output node over node j of its operand k, in
 * place as XLA's kernel contract lets it (an in-place collective)?  Then
 * those bytes are the output's now: the done needs the output, not them.
 * (A tuple's table is the plan's, not read.) */
static int
consumed_in_place(struct vr *v, int c, int s, int k, int j)
{
	const struct instr *in = &v->m->comps[c].instrs[s];
	int sb = v->posbase[c][s], ob = v->posbase[c][in->ops[k]];

	if (shape_is_tuple(v->nshape[ob + j]))	/* (of an in-place
						   collective-permute) */
		return k == 1 && vx_permute_node(in, 0) >= 0;
	for (int node = 0; node < v->nsub[sb]; node++)
		if (v->pl->pos[sb + node].defines &&
		    v->nbytes[ob + j] > 0 &&
		    vr_where(v, sb + node) == vr_where(v, ob + j) &&
		    v->nbytes[sb + node] == v->nbytes[ob + j] &&
		    vx_over(v->m, &v->m->comps[c], in, k, j, node))
			return 1;
	return 0;
}

/* Is position pos (of the done's operand: the start's {0}) one of start
 * s's operands that it consumed in place?  Its bytes are the output's. */
static int
forwards_consumed(struct vr *v, int c, int s, int pos)
{
	const struct instr *in = &v->m->comps[c].instrs[s];

	for (int k = 0; k < in->nops; k++) {
		int kb = v->posbase[c][in->ops[k]];

		for (int j = 0; j < v->nsub[kb]; j++)
			if (v->cur[kb + j] == v->cur[pos] &&
			    !shape_is_tuple(v->nshape[pos]) &&
			    consumed_in_place(v, c, s, k, j))
				return 1;
	}
	return 0;
}

static void
run_done(struct vr *v, int c, int i, int s, int who)
{
	const struct comp *cp = &v->m->comps[c];
	const struct instr *in = &cp->instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];
	int ob = v->posbase[c][in->ops[0]], src;

	for (int k = 0; k < cp->instrs[s].nops; k++) {
		int kb = v->posbase[c][cp->instrs[s].ops[k]];

		for (int j = 0; j < v->nsub[kb]; j++)
			if (!consumed_in_place(v, c, s, k, j))
				vr_need(v, kb + j, who);
	}
	for (int node = 0; node < v->nsub[ob]; node++)
		if (!forwards_consumed(v, c, s, ob + node))
			vr_need(v, ob + node, who);
	switch (vr_opcode(in)) {
	case OP_SEND_DONE:	/* only waits: its token is new */
		run_kernel(v, c, i, who);
		return;
	case OP_RECV_DONE:
		run_recv_done(v, c, i, who);
		return;
	default:
		break;
	}
	/* copy-done hands on start{0}; all-reduce-done the start's output;
	 * every other done start{1}, where the op wrote (unless the start
	 * left it empty, to be bound late: then the done writes) */
	if (!strcmp(vr_opname(in), "all-reduce-done"))	/* several operands: */
		src = v->nsub[ob] == n ? ob : -1;	/* a tuple, whole */
	else
		src = element_of(v, ob, vr_opcode(in) == OP_COPY_DONE ? 0 :
				 shape_is_tuple(v->nshape[ob]) ? 1 : -1, n);
	if (src >= 0 && shape_is_tuple(v->nshape[src]) !=
				shape_is_tuple(v->nshape[base]))
		src = -1;
	if (src < 0) {
		run_kernel(v, c, i, who);
		return;
	}
	vr_forward_tree(v, base, src, n, who);
}

/* send: (operand, context, token); element 0 is the operand itself, kept
 * until the send-done. */
static void
run_send(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob, n0;

	if (in->nops < 1 || !shape_is_tuple(v->nshape[base]) || n < 2 ||
	    v->nsub[ob = v->posbase[c][in->ops[0]]] != (n0 = v->nsub[base + 1]) ||
	    !shape_equal(&in->shape.elems[0],
			 &v->m->comps[c].instrs[in->ops[0]].shape)) {
		run_kernel(v, c, i, who);	/* (another type: a copy) */
		return;
	}
	for (int k = 0; k < in->nops; k++)
		vr_need_all(v, v->posbase[c][in->ops[k]], who);
	vr_define(v, base, who);
	vr_forward_tree(v, base + 1, ob, n0, who);
	for (int node = 1 + n0; node < n; node++)
		vr_define(v, base + node, who);
}

static void
run_copy_start(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], ob = v->posbase[c][in->ops[0]];
	int n1, src;

	src = shape_is_tuple(&in->shape) && in->shape.nelem == 3 ?
	      element_of(v, base, 1, v->nsub[ob]) : -1;
	if (src < 0 || vr_nodes_of(&in->shape.elems[0]) != 1) {
		run_kernel(v, c, i, who);
		return;
	}
	vr_need_all(v, ob, who);
	vr_define(v, base, who);
	vr_define(v, base + 1, who);		/* the destination */
	n1 = v->nsub[ob];
	vr_forward_tree(v, src, ob, n1, who);	/* the source */
	for (int node = src + n1; node < base + v->nsub[base]; node++)
		vr_define(v, node, who);		/* the context */
}

/* Operand k of a start, where its kernel reads it: at the result {1}
 * when its computation returns it or updates it in place there (XLA's
 * dataflow shares the computation's values with the start). */
static void
need_start_operand(struct vr *v, int c, int i, int k, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], ob = v->posbase[c][in->ops[k]];
	int one = 1 + v->nsub[base + 1];	/* {1}: after {0}'s nodes */

	if (v->nsub[ob] == 1 && one < v->nsub[base] &&
	    vx_over(v->m, &v->m->comps[c], in, k, 0, one))
		vr_need_at(v, ob, vr_where(v, base + one), v->cur[ob], who);
	else
		vr_need_all(v, ob, who);
}

/* An asynchronous start whose element 0 the plan keeps as its operands
 * (XLA's dataflow: start{0} is the operand, read until the done): one
 * operand of that shape, or a tuple of them; it writes the rest. */
static int
run_async_start(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], e0 = base + 1, n0;

	if (vr_opcode(in) == OP_COPY_START || !(vr_opcode(in) == OP_ASYNC_START ||
					     vr_ends_with(vr_opname(in), "-start")) ||
	    !shape_is_tuple(&in->shape) || in->shape.nelem < 2 ||
	    in->nops < 1)
		return 0;
	n0 = v->nsub[e0];
	if (vx_permute_node(in, 0) >= 0) {	/* {0} is operand 0 */
		if (v->pl->pos[e0].defines ||
		    v->nsub[v->posbase[c][in->ops[0]]] != n0)
			return 0;
		vr_forward_tree(v, e0, v->posbase[c][in->ops[0]], n0, who);
		for (int k = 0; k < in->nops; k++)
			if (k == 1)
				need_permuted(v, c, i, who);
			else
				vr_need_all(v, v->posbase[c][in->ops[k]], who);
		check_overlap(v, c, i, who);
		vr_define(v, base, who);
		for (int node = e0 + n0; node < base + v->nsub[base]; node++)
			vr_define(v, node, who);
		return 1;
	} else if (in->nops == 1 && v->nsub[v->posbase[c][in->ops[0]]] == n0) {
		if (v->pl->pos[e0].defines)
			return 0;
		vr_forward_tree(v, e0, v->posbase[c][in->ops[0]], n0, who);
	} else {
		int at = e0 + 1;

		if (!shape_is_tuple(&in->shape.elems[0]) ||
		    in->shape.elems[0].nelem != in->nops ||
		    v->pl->pos[at].defines)
			return 0;
		for (int k = 0; k < in->nops; k++) {	/* all or none */
			int n = v->nsub[v->posbase[c][in->ops[k]]];

			if (v->nsub[at] != n)
				return 0;
			at += n;
		}
		at = e0 + 1;
		for (int k = 0; k < in->nops; k++) {
			int ob = v->posbase[c][in->ops[k]], n = v->nsub[ob];

			vr_forward_tree(v, at, ob, n, who);
			at += n;
		}
	}
	for (int k = 0; k < in->nops; k++)
		need_start_operand(v, c, i, k, who);
	check_overlap(v, c, i, who);
	for (int node = 0; node < v->nsub[base]; node++)
		if (v->pl->pos[base + node].defines)
			vr_define(v, base + node, who);
	return 1;
}

/* The position of element e of the tuple at position pos. */
static int
elem_pos(const struct vr *v, int pos, int e)
{
	int at = pos + 1;

	for (int k = 0; k < e; k++)
		at += v->nsub[at];
	return at;
}

/* Element at dst is src's arrays when their shapes agree (and src is no
 * empty tuple, a result not bound yet); else the op writes it. */
static void
take_or_write(struct vr *v, int dst, int src, int who)
{
	const struct shape *a = v->nshape[dst], *b = src >= 0 ? v->nshape[src] :
					NULL;

	if (b && shape_equal(a, b) && !(shape_is_tuple(b) && !b->nelem)) {
		vr_forward_tree(v, dst, src, v->nsub[dst], who);
		return;
	}
	for (int node = 0; node < v->nsub[dst]; node++)
		vr_define(v, dst + node, who);
}

/* An async-update that binds late (XLA's UpdateAsyncUpdateValueSet): its
 * {0, e} is what its chain bound (operand 0's {0, e}, then its operands
 * 1, 2, ...), {1} operand 0's when bound there, else the computation's
 * result written now (over an operand it updates in place: read there),
 * the contexts operand 0's. */
static int
run_late_update(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	const struct shape *s = &in->shape, *q;
	int base = v->posbase[c][i], ob, np, one, e0, q0;

	if (in->nops < 1)
		return 0;
	ob = v->posbase[c][in->ops[0]];
	q = v->nshape[ob];
	if (!shape_is_tuple(s) || s->nelem < 2 || !shape_is_tuple(q) ||
	    q->nelem < 2 || !shape_is_tuple(&s->elems[0]) ||
	    !shape_is_tuple(&q->elems[0]))
		return 0;
	np = q->elems[0].nelem;
	one = elem_pos(v, base, 1);
	for (int k = 1; k < in->nops; k++) {
		int kb = v->posbase[c][in->ops[k]];

		if (v->nsub[kb] == 1 &&
		    vx_over(v->m, &v->m->comps[c], in, k, 0, one - base))
			vr_need_at(v, kb, vr_where(v, one), v->cur[kb], who);
		else
			vr_need_all(v, kb, who);
	}
	vr_define(v, base, who);
	vr_define(v, e0 = base + 1, who);
	q0 = ob + 1;
	for (int e = 0; e < s->elems[0].nelem; e++) {
		int k = e - np + 1, src = e < np ? elem_pos(v, q0, e) :
				     k < in->nops ? v->posbase[c][in->ops[k]] : -1;

		take_or_write(v, elem_pos(v, e0, e), src, who);
	}
	for (int e = 1; e < s->nelem; e++)
		take_or_write(v, elem_pos(v, base, e),
			      e < q->nelem ? elem_pos(v, ob, e) : -1, who);
	return 1;
}

/* Nodes of (c,i) forwarded whole from operand 0, when shapes allow. */
static void
run_forward(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob;

	if (in->nops < 1 ||
	    v->nsub[ob = v->posbase[c][in->ops[0]]] != n) {
		run_kernel(v, c, i, who);
		return;
	}
	vr_forward_tree(v, base, ob, n, who);
}

static void
run_tuple(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], at = base + 1;

	if (in->nops != in->shape.nelem) {
		run_kernel(v, c, i, who);
		return;
	}
	vr_define(v, base, who);
	for (int k = 0; k < in->nops; k++) {
		int ob = v->posbase[c][in->ops[k]], n = v->nsub[ob];

		vr_forward_tree(v, at, ob, n, who);
		at += n;
	}
}

/* A copy of a tuple (XLA's UpdateCopyValueSet): a new index table over
 * its operand's elements. */
static void
run_tuple_copy(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob;

	if (in->nops != 1 || v->nsub[ob = v->posbase[c][in->ops[0]]] != n) {
		run_kernel(v, c, i, who);
		return;
	}
	vr_need(v, ob, who);	/* the table it copies */
	vr_define(v, base, who);
	vr_forward_tree(v, base + 1, ob + 1, n - 1, who);
}

static void
run_gte(struct vr *v, int c, int i, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base], ob, src;

	if (in->nops < 1) {
		run_kernel(v, c, i, who);
		return;
	}
	ob = v->posbase[c][in->ops[0]];
	src = element_of(v, ob, in->index, n);
	if (src < 0)
		vr_failw(v, who, ": no element %lld of its operand",
			 (long long)in->index);
	vr_need(v, ob, who);	/* the index table */
	vr_forward_tree(v, base, src, n, who);
}

static void
run_param(struct vr *v, int c, int i, const int *args, int who)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int base = v->posbase[c][i], n = v->nsub[base];

	if (c == v->m->entry)
		return;		/* written before the first step */
	if (!args || in->param < 0 || in->param >= v->m->comps[c].nparam ||
	    v->nsub[args[in->param]] != n)
		vr_failw(v, who, ": its caller passes no operand of its "
			 "shape");
	vr_forward_tree(v, base, args[in->param], n, who);
}

static void
run_instr(struct vr *v, int c, int i, const int *args)
{
	const struct instr *in = &v->m->comps[c].instrs[i];
	int who = v->posbase[c][i], s;

	switch (vr_opcode(in)) {
	case OP_PARAMETER: run_param(v, c, i, args, who); return;
	case OP_CONSTANT:
		for (int node = 0; node < v->nsub[who]; node++)
			vr_define(v, who + node, WHO_NONE);
		return;
	case OP_GTE: run_gte(v, c, i, who); return;
	case OP_TUPLE: run_tuple(v, c, i, who); return;
	case OP_COPY:
		if (shape_is_tuple(&in->shape)) {
			run_tuple_copy(v, c, i, who);
			return;
		}
		break;
	case OP_BITCAST: case OP_OPT_BARRIER: case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
		run_forward(v, c, i, who);
		return;
	case OP_ASYNC_UPDATE:	/* the arrays of its operand (XLA) */
		if (in->nops == 1 && shape_equal(&in->shape, &v->m->comps[c]
					.instrs[in->ops[0]].shape)) {
			run_forward(v, c, i, who);
			return;
		}
		if (run_late_update(v, c, i, who))
			return;
		break;
	case OP_COPY_START: run_copy_start(v, c, i, who); return;
	case OP_SEND: run_send(v, c, i, who); return;
	case OP_RECV_DONE: run_recv_done(v, c, i, who); return;
	case OP_WHILE: vr_run_while(v, c, i, who); return;
	case OP_CONDITIONAL: vr_run_conditional(v, c, i, who); return;
	case OP_CALL: vr_run_call(v, c, i, who); return;
	default: break;
	}
	if ((s = async_start(v, c, i)) >= 0)
		run_done(v, c, i, s, who);
	else if (!run_async_start(v, c, i, who))
		run_kernel(v, c, i, who);
}

/* Runs computation c's steps, each with the plan's copies before and
 * after it.  Its ROOT elements are read at its end: after its last step,
 * before the copies that follow it (which carry a loop's state round). */
void
vr_run_comp(struct vr *v, int c, const int *args)
{
	if (!v->posbase[c])
		vr_fail(v, "'%s' runs as program steps, but the plan does not "
			"list it", v->m->comps[c].name);
	for (int k = 0; k < v->norder[c]; k++) {
		int i = v->order[c][k];

		v->now = v->stepof[c][i];
		vr_step_copies(v, v->now, 0);
		run_instr(v, c, i, args);
		v->now = v->stepof[c][i];
		if (k == v->norder[c] - 1 && c != v->m->entry)
			vr_need_all(v, vr_root_pos(v, c, WHO_NONE), WHO_END(c));
		vr_step_copies(v, v->now, 1);
		if (!v->nest)
			vm_forget(v->mem);	/* nothing will be undone */
	}
}


/* Liveness: where each value's bytes must stay intact, as spans of the
 * fine timeline (passes.h: five points a step) over the flattened schedule
 * (XLA's HloLiveRange), and the point where each join hands its source
 * over to its destination.
 *
 * A value is read by: an operand; a ROOT element, to the end of its
 * computation; the entry's outputs, to the end; a join's source, at its
 * hand-over; an asynchronous start's operands, until the done (a value
 * only the done reads after its start is its `tail`: an output the start
 * writes over it in place may take it over there).  Forwarding
 * (a tuple, a call's or a branch's parameter) is not a read: the values
 * forwarded are read where their forwards are.  A value read inside a loop
 * it was made outside of lives to the loop's end.
 *
 * The state of a loop at one index (XLA's phi) has two spans: inside the
 * loop, from where the loop takes its init to its last read there or the
 * end of the condition (the loop may leave there with it); after
 * it, from the end of the body (where the next state is handed over) to its
 * last read after the loop.  A conditional's result has one point at the
 * end of each branch and a span from the conditional on. */

#include "passes/passes.h"

struct lv {
	struct prog *p;
	int *at;		/* per step: the innermost loop, or -1 */
	int *loop_of;		/* per step: the loop that ends there, or -1 */
	int64_t *dp;		/* per value: where it is written */
	int64_t *ein, *eout;	/* per value: last read (a state's: inside
				   its loop, and after it) */
	int *injoin, *outjoin;	/* per value: the join handing over into
				   its first span, its second */
	int *branch, *next;	/* per value: its first J_BRANCH join;
				   per join: the next of that value */
	int64_t *sync;		/* per value: its last read but a done's */
	int32_t *tail;		/* per value: the start whose done reads
				   it (-1: none, -2: several) */
	int32_t async;		/* the start whose done reads now, or -1 */
};

/* The innermost loop at each step: loops closed later enclose earlier ones,
 * so painting from the last closed to the first leaves the innermost. */
static int *
loops_at(struct prog *p)
{
	int *at = pool_alloc(p->pool, sizeof(int) * (size_t)(p->ntime + 1));

	for (int32_t t = 0; t < p->ntime; t++)
		at[t] = -1;
	for (int l = p->nloop - 1; l >= 0; l--)
		for (int32_t t = p->loops[l].start; t <= p->loops[l].end; t++)
			at[t] = l;
	return at;
}

/* The loop whose while instruction defines value v (a state), or -1. */
static int
phi_loop(const struct lv *x, int v)
{
	const struct value *y = &x->p->values[v];

	if (!(y->flags & VAL_PHI))
		return -1;
	return x->loop_of[x->p->time[y->comp][y->instr]];
}

/* A read of v at point q.  Inside a loop that the span began outside of,
 * the read is made in every iteration: the span lasts to the loop's end. */
static void
read_at(struct lv *x, int v, int64_t q)
{
	struct prog *p = x->p;
	int32_t t = pt_step(q);
	int l = phi_loop(x, v), inner;
	int64_t d, *e;

	if (t >= p->ntime)
		t = p->ntime - 1;
	inner = l >= 0 && t >= p->loops[l].start && t < p->loops[l].end;
	if (l >= 0 && !inner) {
		d = pt(p->loops[l].end - 1, PT_AFTER1);
		e = &x->eout[v];
	} else {
		d = x->dp[v];
		e = &x->ein[v];
	}
	for (int k = x->at[t]; k >= 0 && d < pt(p->loops[k].start,
						 PT_BEFORE0);
	     k = p->loops[k].parent)	/* (the copies before a loop's first
					   step run once, as it is entered) */
		if (q >= pt(p->loops[k].start, PT_INSTR) &&
		    pt(p->loops[k].end, PT_INSTR) > q)
			q = pt(p->loops[k].end, PT_INSTR);
	if (q > *e)
		*e = q;
	if (x->async < 0 && e == &x->ein[v] && q > x->sync[v])
		x->sync[v] = q;	/* (a state's reads after its loop: eout) */
	else if (x->async >= 0 && e == &x->ein[v])	/* (after its loop: no
							   tail) */
		x->tail[v] = x->tail[v] == -1 || x->tail[v] == x->async ?
				     x->async : -2;
}

typedef void readfn(struct lv *x, int v, int64_t q);

/* Every value at every node of operand k of (c,i) is read. */
static void
read_operand(struct lv *x, int c, int i, int k, int64_t q)
{
	struct prog *p = x->p;
	const struct comp *cp = &p->m->comps[c];
	int o = cp->instrs[i].ops[k], n = shape_nodes(&cp->instrs[o].shape);

	for (int node = 0; node < n; node++)
		read_at(x, prog_val(p, c, o, node), q);
}

/* The start of the asynchronous pair whose done is instruction i of
 * computation c (through async-updates), or -1. */
static int
async_start(const struct comp *cp, int i)
{
	const struct instr *in = &cp->instrs[i];
	int s;

	if (!in->op || !op_name_ends(in, "-done") || in->nops < 1)
		return -1;
	s = in->ops[0];
	while (cp->instrs[s].op && cp->instrs[s].op->op == OP_ASYNC_UPDATE &&
	       cp->instrs[s].nops > 0)
		s = cp->instrs[s].ops[0];
	in = &cp->instrs[s];
	if (!in->op)
		return -1;
	return op_name_ends(in, "-start") || in->op->op == OP_SEND ||
	       in->op->op == OP_RECV ? s : -1;
}

/* A done reads what the async-updates of its chain bound (their operands
 * past the first) too: the asynchronous op reads them until then. */
static void
read_bound_late(struct lv *x, int c, int i, int64_t q)
{
	struct prog *p = x->p;
	const struct comp *cp = &p->m->comps[c];

	for (int u = cp->instrs[i].ops[0], guard = 0;
	     cp->instrs[u].op && cp->instrs[u].op->op == OP_ASYNC_UPDATE &&
	     cp->instrs[u].nops > 0 && guard < cp->ninstr;
	     u = cp->instrs[u].ops[0], guard++) {
		x->async = p->time[c][u];
		for (int k = 1; k < cp->instrs[u].nops; k++)
			read_operand(x, c, u, k, q);
	}
}

/* The values the instruction at step t reads.  A done reads its start's
 * operands too: the asynchronous op reads them until then. */
static void
reads_at(struct lv *x, int32_t t)
{
	struct prog *p = x->p;
	int c = p->steps[t].comp, i = p->steps[t].instr;
	const struct instr *in = &p->m->comps[c].instrs[i];
	int s = async_start(&p->m->comps[c], i);
	int64_t q = pt(t, PT_INSTR);

	x->async = s >= 0 ? p->time[c][s] : -1;
	for (int k = 0; s >= 0 && k < p->m->comps[c].instrs[s].nops; k++)
		read_operand(x, c, s, k, q);
	if (s >= 0) {	/* its operand: the start's operands in {0} too */
		for (int k = 0; k < in->nops; k++)
			read_operand(x, c, i, k, q);
		read_bound_late(x, c, i, q);
		x->async = -1;
		return;
	}

	switch (in->op ? in->op->op : OP_OTHER) {
	case OP_PARAMETER:
	case OP_CONSTANT:
	case OP_TUPLE:
	case OP_BITCAST:
	case OP_OPT_BARRIER:
	case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
	case OP_CALL:
		return;		/* they forward; their users read */
	case OP_WHILE:
		/* The loop ends with its state. */
		for (int node = 0, nn = shape_nodes(&in->shape); node < nn;
		     node++)
			read_at(x, prog_val(p, c, i, node), q);
		return;
	case OP_GTE:
		read_at(x, prog_val(p, c, in->ops[0], 0), q);
		return;
	case OP_CONDITIONAL:
		read_operand(x, c, i, 0, q);
		return;
	default:
		for (int k = 0; k < in->nops; k++)
			read_operand(x, c, i, k, q);
	}
}

/* Every node of the ROOT of c is read at q. */
static void
read_root(struct lv *x, int c, int64_t q)
{
	struct prog *p = x->p;
	const struct comp *cp = &p->m->comps[c];

	if (cp->root < 0 || p->nodebase[c][cp->root] < 0)
		return;
	for (int node = 0, nn = shape_nodes(&cp->instrs[cp->root].shape);
	     node < nn; node++)
		read_at(x, prog_val(p, c, cp->root, node), q);
}

/* ROOT elements are read at the end of their computation, the entry's
 * outputs at the end of the run. */
static void
read_roots(struct lv *x)
{
	struct prog *p = x->p;
	const struct comp *e = &p->m->comps[p->m->entry];

	for (int c = 0; c < p->m->ncomp; c++)
		if (c != p->m->entry && p->kind[c] == COMP_PROGRAM &&
		    p->lo[c] >= 0 && p->hi[c] >= p->lo[c])
			read_root(x, c, pt(p->hi[c], PT_INSTR));
	if (e->root < 0 || p->nodebase[p->m->entry][e->root] < 0)
		return;
	for (int node = 0, nn = shape_nodes(&e->instrs[e->root].shape);
	     node < nn; node++)
		p->values[prog_val(p, p->m->entry, e->root, node)].flags |=
			BUF_OUTPUT;
	read_root(x, p->m->entry, pt(p->ntime - 1, PT_AFTER1));
}

/* A loop's state is read where its condition ends: the loop leaves there
 * with it, whether or not the condition or the body reads it. */
static void
read_conditions(struct lv *x)
{
	struct prog *p = x->p;

	for (int l = 0; l < p->nloop; l++) {
		int32_t t = p->loops[l].end;
		int c = p->steps[t].comp, i = p->steps[t].instr;
		const struct instr *in = &p->m->comps[c].instrs[i];
		int cond = called_comp(p->m, in, "condition");

		if (cond < 0 || p->lo[cond] < 0 || p->hi[cond] < p->lo[cond] ||
		    !p->phi[c] || !p->phi[c][i])
			continue;
		for (int node = 0, nn = shape_nodes(&in->shape); node < nn;
		     node++)
			read_at(x, p->phi[c][i][node], pt(p->hi[cond], PT_AFTER1));
	}
}

/* Where join j hands its source over: where a loop takes its init; after
 * the body's last step for its next state (in the first phase, to a
 * buffer of its own, when the source was not made in this iteration: a
 * rotation of the state); after a branch's last step; at an in-place op;
 * at the end for input_output_alias. */
static int64_t
hand_over(struct lv *x, const struct join *j)
{
	struct prog *p = x->p;
	int32_t hi = j->callee >= 0 ? p->hi[j->callee] : 0;
	int64_t da = x->dp[j->a];

	switch (j->kind) {
	case J_WHILE_INIT:
		return pt(p->loops[x->loop_of[p->time[j->comp][j->instr]]].start,
			  PT_BEFORE1);
	case J_WHILE_ROOT:	/* (a state passed on as it is is its
				   init's bytes, older than this iteration) */
		return !(p->values[j->a].flags & VAL_SAME) &&
		       da >= pt(p->lo[j->callee], PT_BEFORE0) &&
		       da <= pt(hi, PT_AFTER1) ? pt(hi, PT_AFTER1) :
						 pt(hi, PT_AFTER0);
	case J_BRANCH:
		return pt(hi, PT_AFTER1);
	case J_IN_PLACE:
		return pt(p->time[j->comp][j->instr], PT_INSTR);
	case J_OUTPUT:
		return pt(p->ntime - 1, PT_AFTER0);
	default:
		return pt(p->ntime - 1, PT_AFTER1);
	}
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static void
add_seg(struct prog *p, int v, int64_t lo, int64_t hi, int join)
{
	struct seg *s = VEC_PUSH(p->pool, p->seg, p->nseg, p->segcap);

	s->lo = lo;
	s->hi = max64(lo, hi);
	s->val = v;
	s->join = join;
	p->values[v].nseg++;
}

/* The spans of value v, consecutive in p->seg. */
static void
make_segs(struct lv *x, int v)
{
	struct prog *p = x->p;
	struct value *y = &p->values[v];
	int l = phi_loop(x, v);
	const struct instr *in = &p->m->comps[y->comp].instrs[y->instr];

	y->seg0 = p->nseg;
	y->nseg = 0;
	if (l >= 0) {
		const struct loop *lp = &p->loops[l];

		add_seg(p, v, x->dp[v], x->ein[v], x->injoin[v]);
		add_seg(p, v, pt(lp->end - 1, PT_AFTER1),
			max64(x->eout[v], pt(lp->end, PT_INSTR)),
			x->outjoin[v]);
		return;
	}
	add_seg(p, v, x->dp[v], x->ein[v], -1);
	if (in->op && in->op->op == OP_CONDITIONAL) {
		for (int k = x->branch[v]; k >= 0; k = x->next[k])
			add_seg(p, v, p->joins[k].hand, p->joins[k].hand, k);
	} else if (x->outjoin[v] >= 0) {
		int k = x->outjoin[v];

		add_seg(p, v, p->joins[k].hand, p->joins[k].hand, k);
	}
}

/* Where each value is written. */
static void
fill_defs(struct lv *x)
{
	struct prog *p = x->p;

	for (int v = 0; v < p->nval; v++) {
		struct value *y = &p->values[v];
		int32_t t = p->time[y->comp][y->instr];
		int l = phi_loop(x, v);
		const struct instr *in = &p->m->comps[y->comp].instrs[y->instr];

		if (y->flags & BUF_PARAM)
			x->dp[v] = 0;
		else if (y->flags & VAL_COPY)	/* written by its copy */
			x->dp[v] = pt(p->ntime - 1, PT_AFTER0);
		else if (l >= 0)
			x->dp[v] = pt(p->loops[l].start, PT_BEFORE1);
		else if (in->op && in->op->op == OP_CONDITIONAL)
			x->dp[v] = pt(t, PT_BEFORE0);
		else
			x->dp[v] = pt(t, PT_INSTR);
		x->ein[v] = x->eout[v] = x->sync[v] = x->dp[v];
		x->tail[v] = -1;
		x->injoin[v] = x->outjoin[v] = -1;
	}
}

void
fill_liveness(struct prog *p)
{
	struct lv x = {.p = p};
	size_t n = (size_t)(p->nval + 1);

	x.at = loops_at(p);
	x.loop_of = pool_alloc(p->pool, sizeof(int) * (size_t)(p->ntime + 1));
	for (int32_t t = 0; t < p->ntime; t++)
		x.loop_of[t] = -1;
	for (int l = 0; l < p->nloop; l++)
		x.loop_of[p->loops[l].end] = l;
	x.dp = pool_alloc(p->pool, sizeof(int64_t) * n);
	x.ein = pool_alloc(p->pool, sizeof(int64_t) * n);
	x.eout = pool_alloc(p->pool, sizeof(int64_t) * n);
	x.injoin = pool_alloc(p->pool, sizeof(int) * n);
	x.outjoin = pool_alloc(p->pool, sizeof(int) * n);
	x.sync = pool_alloc(p->pool, sizeof(int64_t) * n);
	x.tail = pool_alloc(p->pool, sizeof(int32_t) * n);
	x.async = -1;
	x.branch = pool_alloc(p->pool, sizeof(int) * n);
	x.next = pool_alloc(p->pool, sizeof(int) * (size_t)(p->njoin + 1));
	for (int v = 0; v < p->nval; v++)
		x.branch[v] = -1;
	for (int k = p->njoin - 1; k >= 0; k--)	/* in join order */
		if (p->joins[k].kind == J_BRANCH) {
			x.next[k] = x.branch[p->joins[k].b];
			x.branch[p->joins[k].b] = k;
		}
	fill_defs(&x);
	for (int32_t t = 0; t < p->ntime; t++)
		reads_at(&x, t);
	read_roots(&x);
	read_conditions(&x);
	for (int k = 0; k < p->njoin; k++) {
		struct join *j = &p->joins[k];

		j->hand = hand_over(&x, j);
		read_at(&x, j->a, j->hand);
		if (j->kind == J_WHILE_INIT && x.injoin[j->b] < 0)
			x.injoin[j->b] = k;
		else if ((j->kind == J_WHILE_ROOT ||
			  j->kind == J_ALIAS_MUST) && x.outjoin[j->b] < 0)
			x.outjoin[j->b] = k;
	}
	p->nseg = 0;
	p->seg = vec_reserve(p->pool, p->seg, &p->segcap,
			     p->nval + p->njoin + 1, sizeof *p->seg);
	for (int v = 0; v < p->nval; v++) {
		struct value *y = &p->values[v];

		y->tail = x.tail[v] >= 0 && x.ein[v] > x.sync[v] &&
			  x.sync[v] <= pt(x.tail[v], PT_INSTR) ? x.tail[v] : -1;
		if (p->wide[y->comp]) {	/* runs more than once: all over */
			if (pt(p->lo[y->comp], PT_BEFORE0) < x.dp[v])
				x.dp[v] = pt(p->lo[y->comp], PT_BEFORE0);
			x.ein[v] = max64(x.ein[v], pt(p->hi[y->comp],
						      PT_AFTER1));
			y->tail = -1;
		}
		make_segs(&x, v);
	}
	for (int v = 0; v < p->nval; v++) {
		struct value *y = &p->values[v];
		int64_t lo = INT64_MAX, hi = -1;

		for (int k = y->seg0; k < y->seg0 + y->nseg; k++) {
			if (p->seg[k].lo < lo)
				lo = p->seg[k].lo;
			hi = max64(hi, p->seg[k].hi);
		}
		y->def = pt_step(lo);
		y->end = pt_step(hi) < p->ntime ? pt_step(hi) : p->ntime - 1;
	}
}

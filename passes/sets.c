/* Alias sets (XLA's HloBuffer): the values that share one buffer, each
 * set with the spans of its values sorted by start.  Two sets may become
 * one only when no span of one overlaps a span of the other, except where
 * one value hands its bytes over to the next at a single point:
 *   - a join's source, at the join's hand-over point, to the span the join
 *     writes (a loop's init to its state, a body's result to the next
 *     state, a branch's result to the conditional's);
 *   - an operand, at the instruction that reads it last, to that
 *     instruction's output when the op writes it in place over the operand
 *     (rules.c's table of in-place pairs);
 *   - a value a branch returns as it is, to the conditional's result, at
 *     that branch's end, though later branches still read it.
 * Copy insertion and reuse decide every sharing by this test, so no plan
 * puts two values that are live at once in one buffer. */
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

static int
cmp_seg(const struct seg *x, const struct seg *y)
{
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return (x->val > y->val) - (x->val < y->val);
}

static int
cmp_seg_q(const void *a, const void *b)
{
	return cmp_seg(a, b);
}

static void
reserve(struct prog *p, struct segset *s, int n)
{
	struct seg *ns;
	int64_t *nt;
	int cap = s->cap ? s->cap : 2;

	if (n <= s->cap)
		return;
	while (cap < n)
		cap *= 2;
	ns = pool_alloc(p->pool, sizeof *ns * (size_t)cap);
	nt = pool_alloc(p->pool, sizeof *nt * (size_t)cap);
	if (s->n) {
		memcpy(ns, s->s, sizeof *ns * (size_t)s->n);
		memcpy(nt, s->top, sizeof *nt * (size_t)s->n);
	}
	s->s = ns;
	s->top = nt;
	s->cap = cap;
}

static void
retop(struct segset *s, int from)
{
	for (int k = from; k < s->n; k++)
		s->top[k] = k && s->top[k - 1] > s->s[k].hi ? s->top[k - 1] :
							      s->s[k].hi;
}

static void
grow_sets(struct prog *p, int n)
{
	if (n > p->setcap)	/* at least doubled: one value at a time */
		p->sets = vec_reserve(p->pool, p->sets, &p->setcap,
				      n > 2 * p->setcap ? n : 2 * p->setcap,
				      sizeof *p->sets);
}

void
sets_init(struct prog *p)
{
	int *count = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));
	struct seg *seg;
	int64_t *top;
	size_t total = 1;

	grow_sets(p, p->nval + 1);
	for (int v = 0; v < p->nval; v++)
		count[prog_find(p, v)] += p->values[v].nseg;
	for (int v = 0; v < p->nval; v++)
		total += (size_t)count[v];
	/* Every set's room carved from one array (an allocation a set was
	 * a fifth of a schedule trial); a set that grows moves out. */
	seg = pool_alloc(p->pool, sizeof *seg * total);
	top = pool_alloc(p->pool, sizeof *top * total);
	for (int v = 0; v < p->nval; v++) {
		p->sets[v].s = seg;
		p->sets[v].top = top;
		p->sets[v].cap = count[v];
		seg += count[v];
		top += count[v];
	}
	for (int v = 0; v < p->nval; v++) {
		struct segset *s = &p->sets[prog_find(p, v)];
		const struct value *y = &p->values[v];

		for (int k = y->seg0; k < y->seg0 + y->nseg; k++)
			s->s[s->n++] = p->seg[k];
	}
	for (int v = 0; v < p->nval; v++) {
		struct segset *s = &p->sets[v];

		if (s->n > 1)
			qsort(s->s, (size_t)s->n, sizeof *s->s, cmp_seg_q);
		retop(s, 0);
	}
}

/* Does the instruction at step t write its output node `out` in place
 * over every place it reads value v from? */
static int
over_operand(const struct prog *p, int32_t t, int v, int out)
{
	int c = p->steps[t].comp, i = p->steps[t].instr, found = 0;
	const struct comp *cp = &p->m->comps[c];
	const struct instr *in = &cp->instrs[i];

	for (int k = 0; k < in->nops; k++) {
		int n = shape_nodes(&cp->instrs[in->ops[k]].shape);

		for (int node = 0; node < n; node++) {
			if (prog_val(p, c, in->ops[k], node) != v)
				continue;
			if (in_place_kind(p, cp, in, k, node, out) == IP_NONE)
				return 0;
			found = 1;
		}
	}
	return found;
}

/* May span e, which ends at q, and span l, which starts there, hold one
 * buffer? */
static int
hands_over(const struct prog *p, const struct seg *e, const struct seg *l,
	   int64_t q)
{
	const struct value *y = &p->values[l->val];
	int32_t t = pt_step(q);

	if (l->join >= 0 && p->joins[l->join].a == e->val &&
	    p->joins[l->join].hand == q)
		return 1;
	if (q < 1 || (q - 1) % 5 != PT_INSTR || t >= p->ntime)
		return 0;
	return y->comp == p->steps[t].comp && y->instr == p->steps[t].instr &&
	       l->lo == q && over_operand(p, t, e->val, y->node);
}

/* Is y the point where a branch hands x, a value from outside the
 * conditional, over as its result, while x is still read after that point
 * only by the branches laid out after this one (which never run when this
 * one does), and not from the conditional on?  (XLA's ordering knows
 * branches exclude each other; the flat timeline does not.) */
static int
other_branches(const struct prog *p, const struct seg *x, const struct seg *y)
{
	const struct join *j;

	if (y->join < 0 || y->lo != y->hi)
		return 0;
	j = &p->joins[y->join];
	return j->kind == J_BRANCH && j->a == x->val && j->hand == y->lo &&
	       x->lo <= y->lo &&
	       x->hi < pt(p->time[j->comp][j->instr], PT_INSTR);
}

/* Is x read after an asynchronous start only by its done, while the start
 * writes y over it in place (an in-place collective: the operand's bytes
 * become the output's there)? */
static int
in_flight(const struct prog *p, const struct seg *x, const struct seg *y)
{
	int32_t t = p->values[x->val].tail;
	const struct instr *in;
	int64_t q, e;

	if (t < 0)
		return 0;
	in = &p->m->comps[p->steps[t].comp].instrs[p->steps[t].instr];
	if (in->ncall >= 1 && value_rule(in, &e) == R_START &&
	    !start_writes_over(p->m, in))
		return 0;	/* its computation's branch may compute anew */
	q = pt(t, PT_INSTR);
	return x->lo <= q && x->hi > q && hands_over(p, x, y, q);
}

/* prog_find, without a call when v names its set (as a set's root, the
 * usual argument, does). */
static inline int
find_root(struct prog *p, int v)
{
	return p->values[v].parent == v ? v : prog_find(p, v);
}

/* The cheap tests first: other_branches needs a point span with a join,
 * in_flight a value with an asynchronous start. */
static int
may_overlap(const struct prog *p, const struct seg *x, const struct seg *y)
{
	if (x->hi == y->lo && hands_over(p, x, y, x->hi))
		return 1;
	if (y->hi == x->lo && hands_over(p, y, x, y->hi))
		return 1;
	return (y->join >= 0 && y->lo == y->hi && other_branches(p, x, y)) ||
	       (x->join >= 0 && x->lo == x->hi && other_branches(p, y, x)) ||
	       (p->values[x->val].tail >= 0 && in_flight(p, x, y)) ||
	       (p->values[y->val].tail >= 0 && in_flight(p, y, x));
}

/* The last span of s starting by point q among s[0..hi], or -1. */
static int
last_by(const struct segset *s, int hi, int64_t q)
{
	int lo = 0, at = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (s->s[mid].lo <= q) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return at;
}

/* Does span x overlap a span of s, from s[at] (the last one starting by
 * x's end) back, where they may not share bytes? */
static int
conflict_at(const struct prog *p, const struct seg *x, const struct segset *s,
	    int at)
{
	for (; at >= 0 && s->top[at] >= x->lo; at--)
		if (s->s[at].hi >= x->lo && !may_overlap(p, x, &s->s[at]))
			return 1;
	return 0;
}

int
sets_conflict(struct prog *p, int a, int b)
{
	const struct segset *sa = &p->sets[find_root(p, a)];
	const struct segset *sb = &p->sets[find_root(p, b)];

	if (sa->n > sb->n) {
		const struct segset *t = sa;

		sa = sb;
		sb = t;
	}
	for (int k = 0; k < sa->n; k++)
		if (conflict_at(p, &sa->s[k], sb,
				last_by(sb, sb->n - 1, sa->s[k].hi)))
			return 1;
	return 0;
}

/* (Re)builds ix for root r's set over steps [lo, hi]: per bucket of steps,
 * about one bucket per span, the last span starting by the bucket's last
 * point. */
static void
index_set(struct prog *p, struct set_index *ix, int r)
{
	const struct segset *s = &p->sets[r];
	int32_t steps = ix->hi - ix->lo + 1;
	int nb, k = -1;

	ix->width = s->n > 0 && steps > s->n ? (steps + s->n - 1) / s->n : 1;
	nb = (int)((steps + ix->width - 1) / ix->width);
	if (nb > ix->cap) {
		ix->cap = 2 * nb;
		ix->last = pool_alloc(p->pool, sizeof(int) * (size_t)ix->cap);
	}
	for (int j = 0; j < nb; j++) {
		int32_t t = ix->lo + (j + 1) * ix->width - 1;
		int64_t end = pt(t < ix->hi ? t : ix->hi, PT_AFTER1);

		while (k + 1 < s->n && s->s[k + 1].lo <= end)
			k++;
		ix->last[j] = k;
	}
	ix->root = r;
	ix->s = s->s;
	ix->n = s->n;
}

/* The last span of the indexed set starting by point q, or -1. */
static int
last_indexed(const struct segset *s, const struct set_index *ix, int64_t q)
{
	int32_t t = pt_step(q);
	int at;

	if (t < ix->lo || t > ix->hi)
		return last_by(s, s->n - 1, q);
	at = ix->last[(t - ix->lo) / ix->width];
	for (int i = 0; at >= 0 && s->s[at].lo > q; at--)
		if (++i > 8)
			return last_by(s, at, q);
	return at;
}

static int
cmp_run(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;

	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The steps whose every point lies strictly inside a span of root r's
 * set that no exception of may_overlap can concern (not a point, its
 * value never in flight), as sorted disjoint runs of steps.  A span x
 * that exceptions cannot concern either, touching such a step, overlaps
 * that span on two points or more: neither ends where the other starts,
 * so x conflicts with the set.  Spans the set gains later only add to
 * this. */
static void
solid_steps(struct prog *p, struct set_index *ix, int r)
{
	const struct segset *s = &p->sets[r];
	int32_t *run = pool_alloc(p->pool, sizeof(int32_t) * 2 *
					   (size_t)(s->n + 1));
	int n = 0;

	for (int k = 0; k < s->n; k++) {
		const struct seg *y = &s->s[k];
		/* steps t with y->lo < pt(t, 0) and pt(t, PT_AFTER1) < y->hi */
		int64_t t0 = (y->lo + 4) / 5, t1 = (y->hi - 6) / 5;

		if (y->hi < 6 || t0 > t1 || p->values[y->val].tail >= 0)
			continue;
		run[2 * n] = (int32_t)t0;
		run[2 * n + 1] = (int32_t)t1;
		n++;
	}
	qsort(run, (size_t)n, 2 * sizeof *run, cmp_run);
	ix->nsolid = 0;
	for (int k = 0; k < n; k++) {
		int32_t *last = run + 2 * (ix->nsolid - 1);

		if (ix->nsolid && run[2 * k] <= last[1] + 1) {
			if (run[2 * k + 1] > last[1])
				last[1] = run[2 * k + 1];
			continue;
		}
		run[2 * ix->nsolid] = run[2 * k];
		run[2 * ix->nsolid + 1] = run[2 * k + 1];
		ix->nsolid++;
	}
	ix->solid = run;
}

/* The steps span x touches, when no exception of may_overlap can concern
 * it (solid_steps); 0 when one can. */
static int
sure_steps(const struct prog *p, const struct seg *x, int32_t *t0,
	   int32_t *t1)
{
	if (x->hi < 1 || (x->join >= 0 && x->lo == x->hi) ||
	    p->values[x->val].tail >= 0)
		return 0;
	*t0 = pt_step(x->lo > 1 ? x->lo : 1);
	*t1 = pt_step(x->hi);
	return 1;
}

/* Does span x surely conflict with the indexed set (solid_steps)? */
static int
hits_solid(const struct prog *p, const struct set_index *ix,
	   const struct seg *x)
{
	int32_t t0, t1;

	return sure_steps(p, x, &t0, &t1) && sets_hits_runs(ix, t0, t1);
}

int
sets_sure_steps(const struct prog *p, int b, int32_t *t0, int32_t *t1)
{
	const struct segset *s = &p->sets[b];
	int found = 0;

	if (p->values[b].parent != b)
		return 0;
	for (int k = 0; k < s->n; k++) {	/* the widest */
		int32_t a, z;

		if (sure_steps(p, &s->s[k], &a, &z) &&
		    (!found || z - a > *t1 - *t0)) {
			*t0 = a;
			*t1 = z;
			found = 1;
		}
	}
	return found;
}

void
sets_solid(struct prog *p, struct set_index *ix, int a)
{
	solid_steps(p, ix, find_root(p, a));
}

int
sets_conflict_indexed(struct prog *p, struct set_index *ix, int a, int b)
{
	int ra = find_root(p, a), rb = find_root(p, b);
	const struct segset *sa = &p->sets[ra], *sb = &p->sets[rb];

	if (ra == rb)
		return sets_conflict(p, a, b);
	if (!ix->solid)
		solid_steps(p, ix, ra);
	for (int k = 0; k < sb->n; k++)
		if (hits_solid(p, ix, &sb->s[k]))
			return 1;
	if (ix->root != ra || ix->s != sa->s || ix->n != sa->n)
		index_set(p, ix, ra);
	for (int k = 0; k < sb->n; k++)
		if (conflict_at(p, &sb->s[k], sa,
				last_indexed(sa, ix, sb->s[k].hi)))
			return 1;
	return 0;
}

void
sets_union(struct prog *p, int a, int b)
{
	int ra = prog_find(p, a), rb = prog_find(p, b), r, o;
	struct segset *s, *t;

	if (ra == rb)
		return;
	prog_union(p, ra, rb);
	r = prog_find(p, ra);
	o = r == ra ? rb : ra;
	s = &p->sets[r];
	t = &p->sets[o];
	if (!s->n || !t->n || s->s[s->n - 1].lo <= t->s[0].lo) {
		int from = s->n;	/* t comes after s: append it */

		reserve(p, s, s->n + t->n);
		if (t->n)
			memcpy(s->s + s->n, t->s, sizeof *t->s * (size_t)t->n);
		s->n += t->n;
		retop(s, from);
	} else {
		/* Merged from the back into s's own array: a set that takes
		 * in many small ones grows it by doubling, where a new array
		 * a union was O(n^2) bytes of the pool (on L13, a sixth of
		 * a run in the faults of fresh pages).  On a tie s's span
		 * comes first, as in a merge from the front. */
		int i = s->n - 1, j = t->n - 1, k = s->n + t->n;

		reserve(p, s, s->n + t->n);
		while (j >= 0)
			s->s[--k] = i < 0 || cmp_seg(&s->s[i], &t->s[j]) <= 0 ?
				    t->s[j--] : s->s[i--];
		s->n += t->n;
		retop(s, k);
	}
	memset(t, 0, sizeof *t);
}

void
sets_add(struct prog *p, int v, int64_t lo, int64_t hi)
{
	struct segset *s = &p->sets[prog_find(p, v)];
	struct seg x = {lo, hi, v, -1};
	int k;

	reserve(p, s, s->n + 1);
	for (k = s->n; k > 0 && cmp_seg(&s->s[k - 1], &x) > 0; k--)
		s->s[k] = s->s[k - 1];
	s->s[k] = x;
	s->n++;
	retop(s, k);
}

int
sets_new_value(struct prog *p, int c, int i, int node, const struct shape *s,
	       int64_t lo, int64_t hi)
{
	int v = prog_new_value(p, c, i, node, s, 0);

	grow_sets(p, v + 1);
	p->values[v].seg0 = -1;
	p->values[v].nseg = 0;
	p->values[v].def = pt_step(lo);
	p->values[v].end = pt_step(hi);
	sets_add(p, v, lo, hi);
	return v;
}

void
prog_hulls(struct prog *p)
{
	size_t n = (size_t)(p->nval + 1);

	p->bstart = pool_alloc(p->pool, sizeof(int32_t) * n);
	p->bend = pool_alloc(p->pool, sizeof(int32_t) * n);
	for (int v = 0; v < p->nval; v++) {
		const struct segset *s = &p->sets[v];
		int64_t lo = INT64_MAX, hi = 0;

		for (int k = 0; k < s->n; k++) {
			if (s->s[k].lo < lo)
				lo = s->s[k].lo;
			if (s->s[k].hi > hi)
				hi = s->s[k].hi;
		}
		if (!s->n)
			lo = hi = 0;
		p->bstart[v] = pt_step(lo);
		p->bend[v] = pt_step(hi);
		if (p->bend[v] >= p->ntime)
			p->bend[v] = p->ntime - 1;
	}
}

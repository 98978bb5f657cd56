/* Memory-aware orders for unscheduled modules (XLA's hlo_memory_scheduler):
 * a list scheduler that runs first what frees the most bytes, a DFS that
 * runs the heaviest operand subtrees first, and the text order.  Each is
 * planned by the driver's own plan_buffers, as the real run is, and the
 * order with the lowest peak of live bytes wins; ties keep the earlier
 * candidate. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "passes/passes.h"

/* The dependences of one computation: operands, control-predecessors and
 * the text order of side-effecting instructions, as CSR lists. */
struct deps {
	int n;
	int *pfirst, *pred;	/* predecessors of i: pred[pfirst[i]..] */
	int *sfirst, *succ;	/* successors */
	int64_t *bytes;		/* bytes an instruction's output defines */
	int root;		/* runs last when nothing reads it */
};

/* ---- side effects ----------------------------------------------------- */

static int comp_has_effects(struct prog *p, int c, char *memo);

static int
has_effects(struct prog *p, const struct instr *in, char *memo)
{
	const struct attr *a;

	if (!in->op)
		return 0;
	if (in->op->flags & OPF_SIDE_EFFECT)
		return 1;
	a = instr_attr(in, "custom_call_has_side_effect");
	if (a && a->vlen == 4 && !strncmp(a->val, "true", 4))
		return 1;
	if (instr_attr(in, "channel_id"))
		return 1;
	for (int j = 0; j < in->ncall; j++)
		if (comp_has_effects(p, in->calls[j], memo))
			return 1;
	return 0;
}

/* memo: 0 unknown, 1 no, 2 yes, 3 being visited (a cycle: no). */
static int
comp_has_effects(struct prog *p, int c, char *memo)
{
	const struct comp *cp = &p->m->comps[c];

	if (memo[c])
		return memo[c] == 2;
	memo[c] = 3;
	for (int i = 0; i < cp->ninstr; i++)
		if (has_effects(p, &cp->instrs[i], memo)) {
			memo[c] = 2;
			return 1;
		}
	memo[c] = 1;
	return 0;
}

/* ---- dependences ------------------------------------------------------ */

struct edge {
	int from, to;
};

static int
cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->to != y->to)
		return (x->to > y->to) - (x->to < y->to);
	return (x->from > y->from) - (x->from < y->from);
}

static int
find_name(const struct comp *cp, const char *s, size_t n)
{
	for (int i = 0; i < cp->ninstr; i++)
		if (strlen(cp->instrs[i].name) == n &&
		    !memcmp(cp->instrs[i].name, s, n))
			return i;
	return -1;
}

static void
push_edge(struct edge **e, int *n, int *cap, int from, int to)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*e = realloc(*e, sizeof **e * (size_t)*cap);
		if (!*e)
			abort();
	}
	(*e)[(*n)++] = (struct edge){from, to};
}

/* control-predecessors={%a, %b}: edges a -> i, b -> i. */
static void
control_edges(const struct comp *cp, int i, struct edge **e, int *n, int *cap)
{
	const struct attr *a = instr_attr(&cp->instrs[i], "control-predecessors");
	const char *s, *end, *w;
	int j;

	if (!a)
		return;
	for (s = a->val, end = a->val + a->vlen; s < end;) {
		while (s < end && strchr("{}, %\t", *s))
			s++;
		for (w = s; s < end && !strchr("{}, \t", *s); s++)
			;
		if (s > w && (j = find_name(cp, w, (size_t)(s - w))) >= 0 &&
		    j != i)
			push_edge(e, n, cap, j, i);
	}
}

/* ---- a chain of buffers b(...) pipelined across a loop's iterations ---- */

/* The instruction that element (i, 0) of c is, past a get-tuple-element
 * of a tuple (*node: the element's node there); else i itself, node 0. */
static int
past_gte(const struct comp *cp, int i, int *node)
{
	const struct instr *in = &cp->instrs[i];
	const struct shape *t;

	*node = 0;
	if (!in->op || in->op->op != OP_GTE || in->nops != 1 || in->ops[0] < 0)
		return i;
	t = &cp->instrs[in->ops[0]].shape;
	if (!shape_is_tuple(t) || in->index < 0 || in->index >= t->nelem)
		return i;
	*node = shape_child(t, (int)in->index);
	return in->ops[0];
}

/* Is element e of tuple s an array that is a buffer b(...)? */
static int
elem_is_buffer(const struct shape *s, int e)
{
	return !shape_is_tuple(&s->elems[e]) && s->elems[e].is_buffer;
}

/* Is node n of a tuple of arrays s (or s itself, n 0) a buffer b(...)? */
static int
node_is_buffer(const struct shape *s, int n)
{
	if (!shape_is_tuple(s))
		return n == 0 && s->is_buffer;
	for (int e = 0; e < s->nelem; e++)
		if (shape_child(s, e) == n)
			return elem_is_buffer(s, e);
	return 0;
}

/* The operand k and output node *on of in written over it in place. */
static int
in_place_out(struct prog *p, const struct comp *cp, const struct instr *in,
	     int k)
{
	for (int n = 0; n < shape_nodes(&in->shape); n++)
		if (in_place_must(p, cp, in, k, 0, n))
			return n;
	return -1;
}

/* Up from ROOT operand r, through ops that write it in place over a
 * buffer, to the one that writes it over an array (a Pin): the start of
 * the chain's second part, or -1. */
static int
chain_start(struct prog *p, const struct comp *cp, int r)
{
	for (int guard = 0; guard < cp->ninstr; guard++) {
		int node, i = past_gte(cp, r, &node), up = -1;
		const struct instr *in = &cp->instrs[i];

		for (int k = 0; k < in->nops && up < 0; k++)
			if (in->ops[k] >= 0 &&
			    !shape_is_tuple(&cp->instrs[in->ops[k]].shape) &&
			    in_place_must(p, cp, in, k, 0, node))
				up = k;
		if (up < 0)
			return -1;
		if (!cp->instrs[in->ops[up]].shape.is_buffer)
			return i;
		r = in->ops[up];
	}
	return -1;
}

/* The one reader of node `node` of i (an element of a tuple: through its
 * one get-tuple-element), and the operand it reads it as; -1 if not one. */
static int
one_user(const struct comp *cp, int i, int node, int *k)
{
	int u = -1, n = 0, jn;

	if (shape_is_tuple(&cp->instrs[i].shape)) {
		for (int j = i + 1; j < cp->ninstr; j++)
			if (cp->instrs[j].op && cp->instrs[j].op->op == OP_GTE &&
			    past_gte(cp, j, &jn) == i && jn == node)
				u = j, n++;
		return n == 1 ? one_user(cp, u, 0, k) : -1;
	}
	for (int j = i + 1; j < cp->ninstr; j++)
		for (int q = 0; q < cp->instrs[j].nops; q++)
			if (cp->instrs[j].ops[q] == i)
				u = j, *k = q, n++;
	return n == 1 ? u : -1;
}

/* Down from the body parameter's element at `node`, through ops that
 * write it in place, to the last (an Unpin, which leaves the buffer for an
 * array): the end of the chain's first part; -1 when the chain reaches the
 * ROOT (one part) or no op takes it. */
static int
chain_end(struct prog *p, const struct comp *cp, int i, int node)
{
	for (int guard = 0, last = -1; guard < cp->ninstr; guard++) {
		int k = 0, u = one_user(cp, i, node, &k), on;

		if (u < 0 || u == cp->root)
			return u < 0 ? last : -1;
		if ((on = in_place_out(p, cp, &cp->instrs[u], k)) < 0)
			return last;
		if (!node_is_buffer(&cp->instrs[u].shape, on))
			return u;
		i = last = u, node = on;
	}
	return -1;
}

/* Does instruction a depend on b (through operands)? */
static int
depends(const struct comp *cp, int a, int b, char *seen)
{
	if (a == b)
		return 1;
	if (seen[a])
		return 0;
	seen[a] = 1;
	for (int k = 0; k < cp->instrs[a].nops; k++)
		if (cp->instrs[a].ops[k] >= 0 &&
		    depends(cp, cp->instrs[a].ops[k], b, seen))
			return 1;
	return 0;
}

/* Is c the body of a while? */
static int
is_body(const struct module *m, int c)
{
	for (int d = 0; d < m->ncomp; d++)
		for (int i = 0; i < m->comps[d].ninstr; i++) {
			const struct instr *in = &m->comps[d].instrs[i];

			for (int j = 0; j < in->ncall; j++)
				if (in->calls[j] == c && in->callkey[j] &&
				    !strcmp(in->callkey[j], "body"))
					return 1;
		}
	return 0;
}

/* A loop state b(...) whose chain the body ends (an Unpin) before it
 * starts the next iteration's (a Pin): the end runs before the start, so
 * that the two parts share the state's buffer, copies falling on the
 * arrays around them (XLA's control dependence, copy_insertion.cc's
 * AddCopiesForNonCopyableTransitionsRotatedCase). */
static void
chain_edges(struct prog *p, int c, struct edge **e, int *n, int *cap)
{
	const struct comp *cp = &p->m->comps[c];
	const struct instr *r = &cp->instrs[cp->root];
	const struct shape *ps;
	int par = cp->nparam == 1 ? cp->params[0] : -1, body = -1, pnode = 1;

	if (par < 0 || !r->op || r->op->op != OP_TUPLE ||
	    !shape_is_tuple(&r->shape) ||
	    !shape_is_tuple(&cp->instrs[par].shape))
		return;
	ps = &cp->instrs[par].shape;
	/* pnode: the node of the parameter's element x, counted as x goes
	 * (shape_child for each x took the time of a cube of the elements:
	 * three quarters of torax's dependences). */
	for (int x = 0; x < r->nops && x < ps->nelem && x < r->shape.nelem;
	     pnode += shape_nodes(&ps->elems[x]), x++) {
		int s, t;
		char *seen;

		if (r->ops[x] < 0 || !elem_is_buffer(&r->shape, x))
			continue;
		if (body < 0)	/* only now: a walk over the module */
			body = is_body(p->m, c);
		if (!body || (s = chain_start(p, cp, r->ops[x])) < 0 ||
		    (t = chain_end(p, cp, par, pnode)) < 0)
			continue;
		seen = calloc((size_t)cp->ninstr, 1);
		if (!seen)
			abort();
		if (t != s && !depends(cp, t, s, seen))
			push_edge(e, n, cap, t, s);
		free(seen);
	}
}

/* Bytes an instruction's output adds: none for what only forwards, for
 * parameters (live anyway) and constants (not in the arena). */
static int64_t
defined_bytes(const struct instr *in)
{
	int64_t b;

	switch (in->op ? in->op->op : OP_OTHER) {
	case OP_PARAMETER: case OP_CONSTANT: case OP_GTE: case OP_BITCAST:
	case OP_TUPLE: case OP_WHILE: case OP_CALL: case OP_OPT_BARRIER:
	case OP_ADD_DEPENDENCY: case OP_DOMAIN:
		return 0;
	default:
		b = shape_bytes(&in->shape);
		return b < 0 ? INT64_MAX / 4 : b;
	}
}

/* Builds the CSR lists from a sorted, deduplicated edge list. */
static void
csr(struct prog *p, struct deps *d, struct edge *e, int n)
{
	int k = 0;

	if (n > 1)
		qsort(e, (size_t)n, sizeof *e, cmp_edge);
	for (int r = 0; r < n; r++)
		if (r == 0 || e[r].from != e[r - 1].from ||
		    e[r].to != e[r - 1].to)
			e[k++] = e[r];
	d->pfirst = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	d->sfirst = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 2));
	d->pred = pool_alloc(p->pool, sizeof(int) * (size_t)(k + 1));
	d->succ = pool_alloc(p->pool, sizeof(int) * (size_t)(k + 1));
	for (int r = 0; r < k; r++) {
		d->pfirst[e[r].to + 1]++;
		d->sfirst[e[r].from + 2]++;
	}
	for (int i = 0; i < d->n; i++) {
		d->pfirst[i + 1] += d->pfirst[i];
		d->sfirst[i + 2] += d->sfirst[i + 1];
	}
	for (int r = 0; r < k; r++) {
		d->pred[r] = e[r].from;	/* sorted by `to`: in place */
		d->succ[d->sfirst[e[r].from + 1]++] = e[r].to;
	}
}

static void
build_deps(struct prog *p, int c, struct deps *d, char *memo)
{
	const struct comp *cp = &p->m->comps[c];
	struct edge *e = NULL;
	int n = 0, cap = 0, last_effect = -1;

	d->n = cp->ninstr;
	d->root = cp->root;
	d->bytes = pool_alloc(p->pool, sizeof(int64_t) * (size_t)(d->n + 1));
	for (int i = 0; i < cp->ninstr; i++) {
		const struct instr *in = &cp->instrs[i];

		d->bytes[i] = defined_bytes(in);
		for (int k = 0; k < in->nops; k++)
			if (in->ops[k] >= 0)
				push_edge(&e, &n, &cap, in->ops[k], i);
		control_edges(cp, i, &e, &n, &cap);
		if (i == cp->root)
			chain_edges(p, c, &e, &n, &cap);
		if (has_effects(p, in, memo)) {
			if (last_effect >= 0)
				push_edge(&e, &n, &cap, last_effect, i);
			last_effect = i;
		}
	}
	csr(p, d, e, n);
	free(e);
	/* The root runs last unless something reads it. */
	if (d->root >= 0 && d->sfirst[d->root + 1] != d->sfirst[d->root])
		d->root = -1;
}

/* ---- the list scheduler ----------------------------------------------- */

/* A max-heap of (priority, -index) pairs, stale entries skipped. */
struct heap {
	int n, cap;
	struct item {
		int64_t prio;
		int i;
	} *v;
};

static int
above(const struct item *a, const struct item *b)
{
	return a->prio != b->prio ? a->prio > b->prio : a->i < b->i;
}

static void
heap_push(struct heap *h, int64_t prio, int i)
{
	int k;

	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->v = realloc(h->v, sizeof *h->v * (size_t)h->cap);
		if (!h->v)
			abort();
	}
	k = h->n++;
	h->v[k] = (struct item){prio, i};
	while (k > 0 && above(&h->v[k], &h->v[(k - 1) / 2])) {
		struct item t = h->v[k];

		h->v[k] = h->v[(k - 1) / 2];
		h->v[(k - 1) / 2] = t;
		k = (k - 1) / 2;
	}
}

static struct item
heap_pop(struct heap *h)
{
	struct item top = h->v[0];
	int k = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		int l = 2 * k + 1, r = l + 1, m = k;
		struct item t;

		if (l < h->n && above(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && above(&h->v[r], &h->v[m]))
			m = r;
		if (m == k)
			return top;
		t = h->v[k];
		h->v[k] = h->v[m];
		h->v[m] = t;
		k = m;
	}
}

struct lstate {
	const struct deps *d;
	int *waiting;		/* unscheduled predecessors */
	int *left;		/* unscheduled readers of each output */
	char *done;
	struct heap h;
};

/* Bytes freed by running i now, less the bytes it defines; the sum stops
 * at INT64_MAX (sizes that large are refused later, by check_sizes). */
static int64_t
priority(const struct lstate *s, int i)
{
	const struct deps *d = s->d;
	int64_t freed = 0, b;

	for (int k = d->pfirst[i]; k < d->pfirst[i + 1]; k++)
		if (s->left[d->pred[k]] == 1) {
			b = d->bytes[d->pred[k]];
			freed = b > INT64_MAX - freed ? INT64_MAX : freed + b;
		}
	return freed - d->bytes[i];
}

static void
ready(struct lstate *s, int i)
{
	if (i != s->d->root)
		heap_push(&s->h, priority(s, i), i);
}

/* After i runs: its operands lose a reader (the last reader of one gains
 * priority), and its successors may become ready. */
static void
retire(struct lstate *s, int i)
{
	const struct deps *d = s->d;

	s->done[i] = 1;
	for (int k = d->pfirst[i]; k < d->pfirst[i + 1]; k++) {
		int o = d->pred[k];

		if (--s->left[o] != 1)
			continue;
		for (int u = d->sfirst[o]; u < d->sfirst[o + 1]; u++)
			if (!s->done[d->succ[u]] && !s->waiting[d->succ[u]])
				ready(s, d->succ[u]);
	}
	for (int k = d->sfirst[i]; k < d->sfirst[i + 1]; k++)
		if (--s->waiting[d->succ[k]] == 0)
			ready(s, d->succ[k]);
}

static int *
order_list(struct prog *p, const struct deps *d)
{
	struct lstate s = {.d = d};
	int *out = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	int n = 0;

	s.waiting = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	s.left = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	s.done = pool_alloc(p->pool, (size_t)d->n + 1);
	for (int i = 0; i < d->n; i++) {
		s.waiting[i] = d->pfirst[i + 1] - d->pfirst[i];
		s.left[i] = d->sfirst[i + 1] - d->sfirst[i];
	}
	for (int i = 0; i < d->n; i++)
		if (!s.waiting[i])
			ready(&s, i);
	while (s.h.n > 0) {
		struct item it = heap_pop(&s.h);

		if (s.done[it.i] || it.prio != priority(&s, it.i))
			continue;	/* stale: pushed again since */
		out[n++] = it.i;
		retire(&s, it.i);
	}
	if (d->root >= 0)
		out[n++] = d->root;
	free(s.h.v);
	return n == d->n ? out : NULL;
}

/* ---- the DFS scheduler ------------------------------------------------ */

/* An operand to visit: its subtree's bytes, and its place in the list. */
struct visit {
	int64_t total;
	int k;
};

/* More bytes first, then earlier in the list. */
static int
cmp_visit(const void *pa, const void *pb)
{
	const struct visit *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

/* Post-order from the root (then from every other unvisited instruction
 * in text order, and the root last), visiting the operand subtrees with the
 * most bytes first.
 * An explicit stack: deep graphs cannot overflow the C stack.  Each
 * instruction's operands are sorted once and walked with a cursor: the
 * rescan of every operand at every return took a 16,384-element tuple
 * 134 million steps. */
static int *
order_dfs(struct prog *p, const struct deps *d)
{
	int64_t *total = pool_alloc(p->pool, sizeof(int64_t) * (size_t)(d->n + 1));
	int *out = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	int *stack = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	int *next = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	int np = d->n > 0 ? d->pfirst[d->n] : 0;
	int *ord = pool_alloc(p->pool, sizeof(int) * (size_t)(np + 1));
	struct visit *v = pool_alloc(p->pool, sizeof *v * (size_t)(np + 1));
	char *seen = pool_alloc(p->pool, (size_t)d->n + 1);
	int n = 0;

	for (int i = 0; i < d->n; i++) {
		total[i] = d->bytes[i];
		for (int k = d->pfirst[i]; k < d->pfirst[i + 1]; k++)
			total[i] += total[d->pred[k]] < INT64_MAX / 4 - total[i] ?
				    total[d->pred[k]] : 0;
	}
	for (int i = 0; i < d->n; i++) {
		int f = d->pfirst[i], m = d->pfirst[i + 1] - f;

		for (int k = 0; k < m; k++)
			v[k] = (struct visit){total[d->pred[f + k]], k};
		qsort(v, (size_t)m, sizeof *v, cmp_visit);
		for (int k = 0; k < m; k++)
			ord[f + k] = d->pred[f + v[k].k];
		next[i] = f;
	}
	for (int s = -1; s < d->n; s++) {
		int start = s < 0 ? d->root : s, top = 0;

		if (start < 0 || seen[start])
			continue;
		stack[top++] = start;
		seen[start] = 1;
		while (top > 0) {
			int i = stack[top - 1], best = -1;

			while (next[i] < d->pfirst[i + 1] && seen[ord[next[i]]])
				next[i]++;
			if (next[i] < d->pfirst[i + 1])
				best = ord[next[i]];
			if (best < 0) {
				if (i != d->root)	/* the root runs last */
					out[n++] = i;
				top--;
				continue;
			}
			seen[best] = 1;
			stack[top++] = best;
		}
	}
	if (d->root >= 0)
		out[n++] = d->root;
	return n == d->n ? out : NULL;
}

/* ---- the text order ---------------------------------------------------- */

/* The text order, unless it runs an instruction before a control
 * predecessor (which the text may name later): then the order closest to
 * it that keeps every dependence, each step the first ready instruction
 * in the text.  NULL when the text order keeps them all. */
static int *
order_text(struct prog *p, const struct deps *d)
{
	struct heap h = {0};
	int *waiting, *out, n = 0, bad = 0;

	for (int i = 0; i < d->n && !bad; i++)
		for (int k = d->pfirst[i]; k < d->pfirst[i + 1]; k++)
			bad |= d->pred[k] > i;
	if (!bad)
		return NULL;
	waiting = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	out = pool_alloc(p->pool, sizeof(int) * (size_t)(d->n + 1));
	for (int i = 0; i < d->n; i++) {
		waiting[i] = d->pfirst[i + 1] - d->pfirst[i];
		if (!waiting[i])
			heap_push(&h, 0, i);
	}
	while (h.n > 0) {
		int i = heap_pop(&h).i;

		out[n++] = i;
		for (int k = d->sfirst[i]; k < d->sfirst[i + 1]; k++)
			if (--waiting[d->succ[k]] == 0)
				heap_push(&h, 0, d->succ[k]);
	}
	free(h.v);
	return n == d->n ? out : NULL;	/* a cycle: the parser's to say */
}

/* A scheduled module's order is its text: it must keep its control
 * predecessors (XLA's verifier asks the same). */
static void
check_text(struct prog *p, int c, const struct deps *d)
{
	const struct comp *cp = &p->m->comps[c];

	for (int i = 0; i < d->n; i++)
		for (int k = d->pfirst[i]; k < d->pfirst[i + 1]; k++)
			if (d->pred[k] > i) {
				diag_error(p->ds, cp->instrs[i].loc, "the "
					   "schedule runs '%s' before its "
					   "control predecessor '%s'",
					   cp->instrs[i].name,
					   cp->instrs[d->pred[k]].name);
				return;
			}
}

/* ---- choosing ---------------------------------------------------------- */

/* The peak of live bytes of a plan's buffers: the sum over arenas. */
static int64_t
plan_peak(const struct plan *pl)
{
	int64_t *delta = calloc((size_t)pl->ntime + 2, sizeof *delta);
	int64_t peak = 0;

	if (!delta)
		abort();
	for (int a = 0; a < pl->narena; a++) {
		int64_t live = 0, best = 0;

		memset(delta, 0, sizeof *delta * ((size_t)pl->ntime + 2));
		for (int b = 0; b < pl->nbuf; b++) {
			const struct buffer *x = &pl->bufs[b];

			if (!x->in_arena || x->space != pl->arenas[a].space)
				continue;
			delta[x->start] += x->size;
			delta[x->end + 1] -= x->size;
		}
		for (int32_t t = 0; t < pl->ntime; t++) {
			live += delta[t];
			if (live > best)
				best = live;
		}
		peak += best;
	}
	free(delta);
	return peak;
}

/* The driver's plan_buffers, as fill_order was given it. */
typedef int plan_fn(struct prog *, struct plan *, const struct driver_opts *);

/* One candidate's trial: the plan made with its orders, in a pool of its
 * own, and its peak of live bytes (-1: the module has errors). */
struct trial {
	const struct prog *base;
	int **order;
	plan_fn *plan;
	int64_t peak;
	int trial;		/* prog.trial: not to be kept */
	struct pool *pool;
	struct diags ds;
	struct prog q;
	struct plan pl;
};

/* Plans with t's orders through plan, the function the real run plans
 * with, as far as the buffers: as the real run would, or as far as the
 * peak only (t->trial).  All it makes is in t's pool, and the module is
 * only read: candidates may be tried on threads at once.  The chosen
 * one's plan may be the real run's (keep_trial); the others are dropped
 * (drop_trial). */
static void
try_orders(struct trial *t)
{
	t->pool = pool_new();
	t->ds = (struct diags){.pool = t->pool};
	t->q = (struct prog){.pool = t->pool, .ds = &t->ds, .m = t->base->m,
			     .opt = t->base->opt, .order = t->order,
			     .trial = t->trial};
	t->pl = (struct plan){0};
	t->peak = -1;
	if (t->plan(&t->q, &t->pl, NULL) == 0) {
		list_arenas(&t->q, &t->pl);
		t->peak = plan_peak(&t->pl);
	}
}

static void
drop_trial(struct trial *t)
{
	pool_free(t->pool);
	t->pool = NULL;
}

/* p and pl become t's: its pool joins p's, its program and plan are p's
 * and pl's (a trial with a peak has no diagnostics). */
static void
keep_trial(struct prog *p, struct plan *pl, struct trial *t)
{
	struct pool *pool = p->pool;
	struct diags *ds = p->ds;

	pool_adopt(pool, t->pool);
	t->pool = NULL;
	*p = t->q;
	p->pool = pool;
	p->ds = ds;
	*pl = t->pl;
}

static void *
run_trial(void *arg)
{
	try_orders(arg);
	return NULL;
}

/* Below this many instructions a module's trials run on the calling
 * thread: a thread and its malloc arena cost about a millisecond, a trial
 * of samples/mlp.hlo a tenth of that.  Nor is the chosen trial kept: a
 * kept pool holds its pages, and the next trials take fresh ones, which
 * cost more than planning so small a module again. */
enum { TRIAL_THREADED = 2000 };

/* Trials run one after another drop at once what cannot be chosen, so
 * that the next reuses its pages: fill_order chooses the first trial of
 * the lowest peak, and none when the first has errors.  *best: the one
 * kept so far. */
static void
drop_loser(struct trial *t, int k, int *best)
{
	if (k == 0 && t[0].peak >= 0)
		return;
	if (t[0].peak < 0 || t[k].peak < 0 || t[k].peak >= t[*best].peak) {
		drop_trial(&t[k]);
		return;
	}
	drop_trial(&t[*best]);
	*best = k;
}

/* Tries n (at most 3) candidates, on up to options.threads threads (0:
 * one per processor); each peak is the same however many run at once. */
static void
try_all(const struct prog *p, struct trial *t, int n)
{
	long nt = p->opt.threads > 0 ? p->opt.threads
				     : sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t th[3];
	int started[3] = {0, 0, 0}, threaded = 0, best = 0;

	if (module_instrs(p->m) < TRIAL_THREADED)
		nt = 1;
	for (int k = 1; k < n && k < nt; k++)
		threaded |= started[k] = pthread_create(&th[k], NULL,
							run_trial,
							&t[k]) == 0;
	for (int k = 0; k < n; k++) {
		if (started[k])
			continue;
		run_trial(&t[k]);
		if (!threaded)
			drop_loser(t, k, &best);
	}
	for (int k = 1; k < n; k++)
		if (started[k])
			pthread_join(th[k], NULL);
}

/* The candidates: every program computation ordered by each of how[0 ..
 * n), from its dependences built once.  order[k][c] NULL: the text order. */
static void
candidates(struct prog *p, int *(*const how[])(struct prog *,
					       const struct deps *),
	   int n, const int *kind, int ***order)
{
	char *memo = pool_alloc(p->pool, (size_t)p->m->ncomp + 1);

	for (int k = 0; k < n; k++)
		order[k] = pool_alloc(p->pool, sizeof(int *) *
					       (size_t)(p->m->ncomp + 1));
	for (int c = 0; c < p->m->ncomp; c++) {
		struct deps d;

		if (kind[c] != COMP_PROGRAM)
			continue;
		build_deps(p, c, &d, memo);
		for (int k = 0; k < n; k++)
			order[k][c] = how[k](p, &d);
	}
}

/* Do two candidates run every computation in the same order? */
static int
same_order(const struct module *m, int **a, int **b)
{
	for (int c = 0; c < m->ncomp; c++) {
		int n = m->comps[c].ninstr;

		if (!a[c] != !b[c])	/* NULL and the text order itself */
			for (int i = 0; i < n; i++)
				if ((a[c] ? a[c][i] : i) != (b[c] ? b[c][i] : i))
					return 0;
		if (a[c] && b[c] && memcmp(a[c], b[c], sizeof(int) * (size_t)n))
			return 0;
	}
	return 1;
}

/* For each of n candidates, the first earlier one that runs everything
 * as it does, or -1; the number of candidates unlike any earlier one. */
static int
find_same(const struct prog *p, int **const *orders, int n, int *same)
{
	int m = 0;

	for (int k = 0; k < n; k++) {
		same[k] = -1;
		for (int j = 0; j < k && same[k] < 0; j++)
			if (orders[j] && orders[k] &&
			    same_order(p->m, orders[j], orders[k]))
				same[k] = j;
		m += same[k] < 0;
	}
	return m;
}

/* The peak of each of n candidates (-1: the module has errors), and in
 * at[k] the trial that planned candidate k: one that runs everything as
 * an earlier one does is not tried again (a small or straight-line
 * module's orders often agree). */
static void
try_candidates(const struct prog *p, int **const *orders, int n,
	       const int *same, plan_fn *plan, int keep, struct trial *t,
	       int *at, int64_t *peak)
{
	int m = 0;

	for (int k = 0; k < n; k++)
		if (same[k] < 0)
			t[m++] = (struct trial){.base = p, .order = orders[k],
						.plan = plan, .trial = !keep};
	try_all(p, t, m);
	for (int k = 0, i = 0; k < n; k++) {
		at[k] = same[k] < 0 ? i++ : at[same[k]];
		peak[k] = t[at[k]].peak;
	}
}

/* A scheduled module's order is its text: each computation must keep its
 * control predecessors. */
static void
check_scheduled(struct prog *p, const int *kind)
{
	char *memo = pool_alloc(p->pool, (size_t)p->m->ncomp + 1);

	for (int c = 0; c < p->m->ncomp; c++) {
		struct deps d;

		if (kind[c] != COMP_PROGRAM)
			continue;
		build_deps(p, c, &d, memo);
		check_text(p, c, &d);
	}
}

int
fill_order(struct prog *p, struct plan *pl, plan_fn *plan, int keep)
{
	static const char *const names[] = {"text", "list", "dfs"};
	int *(*const how[])(struct prog *, const struct deps *) = {
		order_text, order_list, order_dfs,
	};
	int64_t peak[3];
	int **orders[3] = {NULL, NULL, NULL}, same[3], at[3] = {0, 0, 0};
	int mem = p->opt.schedule == SCHED_MEM ||
		  (p->opt.schedule == SCHED_AUTO && !p->m->is_scheduled);
	int n = mem ? 3 : 1, best = 0, nerr = p->ds->n, m;
	struct prog q = {.pool = p->pool, .ds = p->ds, .m = p->m,
			 .opt = p->opt};
	struct trial t[3];

	if (fill_schedule(&q))	/* which computations run as steps */
		return -1;
	if (p->m->is_scheduled && p->opt.schedule != SCHED_MEM)
		check_scheduled(p, q.kind);
	else
		candidates(p, how, n, q.kind, orders);
	if (p->ds->n > nerr)
		return -1;
	p->order = orders[0];
	pl->sched.name = names[0];
	m = find_same(p, orders, n, same);
	if (m == 1) {
		/* One order only (a scheduled module's text, or candidates
		 * that agree): nothing to choose, and the real run's plan
		 * gives the peak (score_order). */
		pl->sched.peak_text = pl->sched.peak = SCHED_UNSCORED;
		return 0;
	}
	/* Every candidate at once: when the text order has errors, the
	 * others are tried for nothing, but a module with errors is rare and
	 * its run short. */
	keep = keep && module_instrs(p->m) >= TRIAL_THREADED;
	try_candidates(p, orders, n, same, plan, keep, t, at, peak);
	for (int k = 1; k < n; k++)
		if (peak[0] >= 0 && peak[k] >= 0 && peak[k] < peak[best])
			best = k;
	for (int i = 0; i < m; i++)
		if (i != at[best] || peak[best] < 0 || !keep)
			drop_trial(&t[i]);
	pl->sched.peak_text = peak[0];
	if (peak[0] < 0) {	/* the real run reports the errors */
		pl->sched.peak = peak[0];
		return 0;
	}
	p->order = orders[best];
	if (keep)	/* the chosen trial's plan is the real run's */
		keep_trial(p, pl, &t[at[best]]);
	pl->sched.name = names[best];
	pl->sched.peak_text = peak[0];
	pl->sched.peak = peak[best];
	return keep;
}

void
score_order(struct prog *p, struct plan *pl)
{
	if (pl->sched.peak != SCHED_UNSCORED)
		return;
	list_arenas(p, pl);
	pl->sched.peak_text = pl->sched.peak = plan_peak(pl);
}

/* Packing.  Time is cut where no interval crosses and each piece is packed
 * apart: best fit over the gaps between placed neighbours in several orders
 * (XLA's GlobalDecreasingSizeBestFit, TFLite's greedy-by-size); then pieces
 * above the lower bound get google/minimalloc's canonical branch and bound
 * (Moffitt, ASPLOS 2024), or, when large, squeaky-wheel iterated greedy. */
#include <stdlib.h>
#include <string.h>

#include "passes/pack.h"

enum { NORDER = 6 };
/* A neighbour visited by best fit (listed, sorted, scanned) is worth about
 * four units of search bookkeeping: steps are weighted so. */
enum { GREEDY_STEP = 4 };
enum { SEARCH_MAX_BOXES = 4096 };
#define SEARCH_GRAPH_LIMIT 20000000L

/* Boxes sorted by start; a piece is a slice [first, first + n). */
struct packer {
	struct box *b;
	int n;
	int *ix;		/* box index of rank r */
	int64_t *start, *end, *size, *align, *pin;
	int64_t *off;		/* best offsets found, by rank */
	int64_t *live;		/* live bytes just after rank r starts */
	int npiece;
	struct piece *piece;
	int64_t lower;		/* peak of live bytes */
	int64_t target;		/* no plan is lower: lower, pinned tops */
	long steps, budget;
};

struct piece {
	int first, n;
	int order;		/* the greedy order that gave height */
	int64_t height;
};

/* A piece seen on its own: pointers into the packer's arrays. */
struct local {
	int n;
	const int64_t *start, *end, *size, *align, *pin, *live;
	int64_t *off;
};

struct kv {
	int64_t key;
	int i;
};

struct okey {
	int64_t k[3];
	int i;
};

struct span {
	int64_t lo, hi;
};

/* ---- small helpers ------------------------------------------------------ */

static int64_t
align_up(int64_t x, int64_t a)
{
	int64_t r;

	if (a == 1)
		return x;
	r = x % a;

	return r ? x + (a - r) : x;
}

static int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t
sat_mul(int64_t a, int64_t b)
{
	if (a > 0 && b > INT64_MAX / a)
		return INT64_MAX;
	return a * b;
}

/* end - start + 1 without overflow, saturating. */
static int64_t
duration(int64_t start, int64_t end)
{
	uint64_t d = (uint64_t)end - (uint64_t)start;

	return d >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d + 1;
}

static int
cmp_kv(const void *pa, const void *pb)
{
	const struct kv *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Larger keys first, then smaller index: a total order. */
static int
cmp_okey(const void *pa, const void *pb)
{
	const struct okey *a = pa, *b = pb;

	for (int j = 0; j < 3; j++)
		if (a->k[j] != b->k[j])
			return a->k[j] > b->k[j] ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Indices of bx's boxes sorted by start (or end), ties by index. */
static int *
sorted_by(const struct box *b, int n, int by_end)
{
	struct kv *kv = pack_xmalloc((size_t)n * sizeof *kv);
	int *ix = pack_xmalloc((size_t)n * sizeof *ix);

	for (int i = 0; i < n; i++) {
		kv[i].key = by_end ? b[i].end : b[i].start;
		kv[i].i = i;
	}
	qsort(kv, n, sizeof *kv, cmp_kv);
	for (int i = 0; i < n; i++)
		ix[i] = kv[i].i;
	free(kv);
	return ix;
}

/* First rank in start[0..n) whose start is > t. */
static int
upper_rank(const int64_t *start, int n, int64_t t)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (start[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- lower bound --------------------------------------------------------- */

/* Sweep in start order, retiring boxes that ended before each start.
 * live[r] (when not NULL) is the live total just after rank r starts. */
static int64_t
peak_sweep(const struct box *b, int n, const int *bystart, const int *byend,
	   int64_t *live)
{
	int64_t cur = 0, peak = 0;
	int e = 0;

	for (int r = 0; r < n; r++) {
		const struct box *x = &b[bystart[r]];

		while (e < n && b[byend[e]].end < x->start)
			cur -= b[byend[e++]].size;
		cur += x->size;
		peak = max64(peak, cur);
		if (live)
			live[r] = cur;
	}
	return peak;
}

int64_t
pack_lower_bound(const struct boxes *bx)
{
	int *bys = sorted_by(bx->b, bx->n, 0);
	int *bye = sorted_by(bx->b, bx->n, 1);
	int64_t peak = peak_sweep(bx->b, bx->n, bys, bye, NULL);

	free(bys);
	free(bye);
	return peak;
}

/* ---- the packer's arrays and its pieces ---------------------------------- */

static void
packer_init(struct packer *P, struct boxes *bx, long budget)
{
	int n = bx->n;
	int *bye;

	memset(P, 0, sizeof *P);
	P->b = bx->b;
	P->n = n;
	P->budget = budget;
	P->ix = sorted_by(bx->b, n, 0);
	P->start = pack_xmalloc((size_t)n * sizeof *P->start);
	P->end = pack_xmalloc((size_t)n * sizeof *P->end);
	P->size = pack_xmalloc((size_t)n * sizeof *P->size);
	P->align = pack_xmalloc((size_t)n * sizeof *P->align);
	P->pin = pack_xmalloc((size_t)n * sizeof *P->pin);
	P->off = pack_xmalloc((size_t)n * sizeof *P->off);
	P->live = pack_xmalloc((size_t)n * sizeof *P->live);
	for (int r = 0; r < n; r++) {
		const struct box *x = &bx->b[P->ix[r]];

		P->start[r] = x->start;
		P->end[r] = x->end;
		P->size[r] = x->size;
		P->align[r] = x->align > 0 ? x->align : 1;
		P->pin[r] = x->pin;
	}
	bye = sorted_by(bx->b, n, 1);
	P->lower = peak_sweep(bx->b, n, P->ix, bye, P->live);
	free(bye);
}

static void
packer_free(struct packer *P)
{
	free(P->ix);
	free(P->start);
	free(P->end);
	free(P->size);
	free(P->align);
	free(P->pin);
	free(P->off);
	free(P->live);
	free(P->piece);
}

static void
add_piece(struct packer *P, int first, int last, int *cap)
{
	struct piece *p;

	if (P->npiece == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		P->piece = pack_xrealloc(P->piece,
					 (size_t)*cap * sizeof *P->piece);
	}
	p = &P->piece[P->npiece++];
	memset(p, 0, sizeof *p);
	p->first = first;
	p->n = last - first;
	for (int r = first; r < last; r++)
		if (P->pin[r] >= 0)
			P->target = max64(P->target, P->pin[r] + P->size[r]);
}

/* A new piece starts where a box starts after every earlier one ended. */
static void
split_pieces(struct packer *P)
{
	int first = 0, cap = 0;
	int64_t maxend = INT64_MIN;

	P->target = P->lower;
	for (int r = 0; r < P->n; r++) {
		if (r > first && P->start[r] > maxend) {
			add_piece(P, first, r, &cap);
			first = r;
		}
		maxend = max64(maxend, P->end[r]);
	}
	if (P->n > first)
		add_piece(P, first, P->n, &cap);
}

static struct local
local_of(struct packer *P, const struct piece *p)
{
	struct local L;
	int f = p->first;

	L.n = p->n;
	L.start = P->start + f;
	L.end = P->end + f;
	L.size = P->size + f;
	L.align = P->align + f;
	L.pin = P->pin + f;
	L.live = P->live + f;
	L.off = P->off + f;
	return L;
}

/* ---- greedy: best fit in one order --------------------------------------- */

struct greedy {
	const struct local *L;
	struct pack_tree tree;
	int *near;		/* ranks of placed neighbours */
	struct span *sp, *tmp;
	int *lo, *hi;		/* see rank_bounds */
	int64_t *off;		/* offsets of this pass; -1 if unplaced */
	long steps;
};

static void
sort_small(struct span *a, int n)
{
	while (n > 12) {
		int64_t piv = a[n / 2].lo;
		int i = 0, j = n - 1;

		while (i <= j) {
			while (a[i].lo < piv)
				i++;
			while (a[j].lo > piv)
				j--;
			if (i <= j) {
				struct span t = a[i];

				a[i++] = a[j];
				a[j--] = t;
			}
		}
		if (j + 1 < n - i) {	/* recurse on the smaller side */
			sort_small(a, j + 1);
			a += i;
			n -= i;
		} else {
			sort_small(a + i, n - i);
			n = j + 1;
		}
	}
	for (int i = 1; i < n; i++) {
		struct span t = a[i];
		int j = i;

		for (; j > 0 && a[j - 1].lo > t.lo; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/* Spans by lo (offsets are >= 0): quicksort when few, else an LSD radix
 * sort on bytes, skipping bytes all spans share.  tmp holds n spans; the
 * result is in a or tmp, whichever is returned. */
static struct span *
sort_spans(struct span *a, int n, struct span *tmp)
{
	uint64_t or = 0, and = UINT64_MAX;

	if (n < 256) {
		sort_small(a, n);
		return a;
	}
	for (int i = 0; i < n; i++) {
		or |= (uint64_t)a[i].lo;
		and &= (uint64_t)a[i].lo;
	}
	for (int sh = 0; sh < 64 && (or >> sh); sh += 8) {
		int cnt[257] = { 0 };
		struct span *t;

		if ((((or ^ and) >> sh) & 0xff) == 0)
			continue;
		for (int i = 0; i < n; i++)
			cnt[(((uint64_t)a[i].lo >> sh) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (int i = 0; i < n; i++)
			tmp[cnt[((uint64_t)a[i].lo >> sh) & 0xff]++] = a[i];
		t = a;
		a = tmp;
		tmp = t;
	}
	return a;
}

/* The lowest offset in the smallest gap between spans (sorted by lo) that
 * holds size at align; above them all if no gap does. */
static int64_t
best_fit(const struct span *sp, int n, int64_t size, int64_t align)
{
	int64_t cur = 0, best = -1, bestgap = INT64_MAX;

	for (int i = 0; i < n; i++) {
		if (sp[i].lo > cur) {
			int64_t o = align_up(cur, align);

			if (o <= sp[i].lo - size && sp[i].lo - cur < bestgap) {
				best = o;
				bestgap = sp[i].lo - cur;
			}
		}
		cur = max64(cur, sp[i].hi);
	}
	return best >= 0 ? best : align_up(cur, align);
}

/* The placed neighbours of k as spans sorted by lo, *m of them: those
 * that started earlier and are still live (a stab of the tree), and those
 * that start inside k's life (a slice of ranks, scanned). */
static struct span *
neighbours(struct greedy *G, int k, int *m)
{
	const struct local *L = G->L;
	int nt = pack_tree_stab(&G->tree, G->lo[k], G->near, 0), c = 0;

	for (int q = 0; q < nt; q++) {
		int j = G->near[q];

		G->sp[c].lo = G->off[j];
		G->sp[c++].hi = G->off[j] + L->size[j];
	}
	for (int j = G->lo[k]; j < G->hi[k]; j++)
		if (G->off[j] >= 0 && j != k) {
			G->sp[c].lo = G->off[j];
			G->sp[c++].hi = G->off[j] + L->size[j];
		}
	G->steps += GREEDY_STEP * (1L + nt + (G->hi[k] - G->lo[k]));
	*m = c;
	return sort_spans(G->sp, c, G->tmp);
}

static int64_t
fit(struct greedy *G, int k)
{
	int m;
	struct span *sp = neighbours(G, k, &m);

	return best_fit(sp, m, G->L->size[k], G->L->align[k]);
}

static void
place(struct greedy *G, int k, int64_t off)
{
	G->off[k] = off;
	pack_tree_place(&G->tree, k, G->lo[k] + 1, G->hi[k]);
}

static int64_t
greedy_pass(struct greedy *G, const int *order, int norder)
{
	const struct local *L = G->L;
	int64_t h = 0;

	pack_tree_clear(&G->tree);
	for (int k = 0; k < L->n; k++)
		G->off[k] = -1;
	for (int k = 0; k < L->n; k++) {
		if (L->pin[k] < 0)
			continue;
		place(G, k, L->pin[k]);
		h = max64(h, L->pin[k] + L->size[k]);
	}
	for (int q = 0; q < norder; q++) {
		int k = order[q];

		place(G, k, fit(G, k));
		h = max64(h, G->off[k] + L->size[k]);
	}
	return h;
}

/* lo[k]: the first rank that starts with k; hi[k]: the first that starts
 * after k ends.  Box j is live when k starts, having started before, iff
 * lo[j] < lo[k] < hi[j]: the tree files j under [lo[j] + 1, hi[j]). */
static void
rank_bounds(const struct local *L, int *lo, int *hi)
{
	for (int k = 0; k < L->n; k++) {
		lo[k] = k > 0 && L->start[k] == L->start[k - 1] ? lo[k - 1] : k;
		hi[k] = upper_rank(L->start, L->n, L->end[k]);
	}
}

/* peak[k]: the most bytes live at one time during box k's life (the
 * "total" of minimalloc), a range maximum of live[] over the ranks that
 * start inside [start[k], end[k]]. */
static int64_t *
lifetime_peaks(const struct local *L)
{
	int n = L->n, w = 1;
	int64_t *t, *peak = pack_xmalloc((size_t)n * sizeof *peak);

	while (w < n)
		w *= 2;
	t = pack_xmalloc(2 * (size_t)w * sizeof *t);
	for (int i = 0; i < w; i++)
		t[w + i] = i < n ? L->live[i] : 0;
	for (int i = w - 1; i > 0; i--)
		t[i] = max64(t[2 * i], t[2 * i + 1]);
	for (int k = 0; k < n; k++) {
		int64_t m = 0;
		int lo = k + w, hi = upper_rank(L->start, n, L->end[k]) + w;

		for (; lo < hi; lo /= 2, hi /= 2) {
			if (lo & 1)
				m = max64(m, t[lo++]);
			if (hi & 1)
				m = max64(m, t[--hi]);
		}
		peak[k] = m;
	}
	free(t);
	return peak;
}

/* The keys of order `which` for box k; larger keys go first. */
static void
order_key(const struct local *L, const int64_t *peak, int which, int k,
	  struct okey *key)
{
	int64_t size = L->size[k], dur = duration(L->start[k], L->end[k]);
	int64_t area = sat_mul(size, dur);

	key->i = k;
	key->k[2] = 0;
	switch (which) {
	case 0: key->k[0] = size; key->k[1] = dur; break;
	case 1: key->k[0] = area; key->k[1] = size; break;
	case 2: key->k[0] = dur; key->k[1] = size; break;
	case 3: key->k[0] = peak[k]; key->k[1] = size; key->k[2] = dur; break;
	case 4: key->k[0] = ~L->start[k]; key->k[1] = size; break;
	default: key->k[0] = peak[k]; key->k[1] = area; break;
	}
}

/* The unpinned boxes of a piece in order `which`; returns their count. */
static int
make_order(const struct local *L, const int64_t *peak, int which, int *order)
{
	struct okey *key = pack_xmalloc((size_t)L->n * sizeof *key);
	int m = 0;

	for (int k = 0; k < L->n; k++)
		if (L->pin[k] < 0)
			order_key(L, peak, which, k, &key[m++]);
	qsort(key, m, sizeof *key, cmp_okey);
	for (int q = 0; q < m; q++)
		order[q] = key[q].i;
	free(key);
	return m;
}

/* Lays out G for the boxes of L; every box unplaced, the tree empty. */
static void
greedy_init(struct greedy *G, const struct local *L)
{
	size_t n = (size_t)L->n;

	memset(G, 0, sizeof *G);
	G->L = L;
	G->near = pack_xmalloc(n * sizeof *G->near);
	G->sp = pack_xmalloc(n * sizeof *G->sp);
	G->tmp = pack_xmalloc(n * sizeof *G->tmp);
	G->lo = pack_xmalloc(n * sizeof *G->lo);
	G->hi = pack_xmalloc(n * sizeof *G->hi);
	G->off = pack_xmalloc(n * sizeof *G->off);
	rank_bounds(L, G->lo, G->hi);
	for (int k = 0; k < L->n; k++) {
		G->near[k] = G->lo[k] + 1;
		G->off[k] = -1;
	}
	pack_tree_init(&G->tree, L->n, G->near, G->hi);
}

static void
greedy_free(struct greedy *G)
{
	pack_tree_free(&G->tree);
	free(G->near);
	free(G->sp);
	free(G->tmp);
	free(G->lo);
	free(G->hi);
	free(G->off);
}

/* Runs order `which` on a piece; keeps the plan if it is lower. */
static void
greedy_order(struct packer *P, struct piece *p, int which)
{
	struct local L = local_of(P, p);
	struct greedy G;
	int *order = pack_xmalloc((size_t)L.n * sizeof *order);
	int64_t *peak = which >= 3 ? lifetime_peaks(&L) : NULL;
	int m = make_order(&L, peak, which, order);
	int64_t h;

	greedy_init(&G, &L);
	h = greedy_pass(&G, order, m);
	if (which == 0 || h < p->height) {
		p->height = h;
		p->order = which;
		memcpy(L.off, G.off, (size_t)L.n * sizeof *G.off);
	}
	P->steps += G.steps;
	greedy_free(&G);
	free(order);
	free(peak);
}

/* Order 0 on every piece, whatever the budget; then the other orders on
 * the pieces still above the target while half the budget lasts.  A pass
 * costs about what the first one cost. */
static void
greedy(struct packer *P)
{
	long *cost = pack_xcalloc((size_t)P->npiece, sizeof *cost);

	for (int i = 0; i < P->npiece; i++) {
		long before = P->steps;

		greedy_order(P, &P->piece[i], 0);
		cost[i] = P->steps - before;
	}
	for (int w = 1; w < NORDER; w++)
		for (int i = 0; i < P->npiece; i++) {
			struct piece *p = &P->piece[i];

			if (p->height > P->target &&
			    P->steps + cost[i] <= P->budget / 2)
				greedy_order(P, p, w);
		}
	free(cost);
}

/* ---- search: minimalloc's canonical branch and bound --------------------- */

/* Boxes are placed in order of non-decreasing offset, each at the lowest
 * offset above its placed neighbours (a canonical solution), candidates
 * tried by that offset and then a static preorder; a partial plan is cut
 * when, in some section, the floor plus the unplaced bytes exceed the
 * capacity, and pieces split again when every box crossing a section
 * boundary is placed.  Work is counted in steps; the node limit doubles
 * round-robin over three preorders, as minimalloc's solver does. */

enum { BB_FOUND, BB_NONE, BB_ABORT };

struct ent {
	int64_t off;
	int pidx, box;
};

struct part {
	int *box;
	int n, s0, s1;		/* sections [s0, s1) */
};

struct undo {
	int64_t *at;
	int64_t old;
};

struct bb {
	const struct local *L;
	struct pack_graph g;
	int n;
	int64_t cap;
	int64_t *off, *minoff, *floor, *total, *total0, *sol;
	int *cuts, *cuts0;
	struct undo *log;
	int nlog, caplog;
	struct ent *ent;
	int nent, capent;
	int *stamp, epoch, *aff, naff;
	int *ucnt;		/* section s's unplaced boxes lead its sbox run */
	int *mbase, *mpos;	/* where box i sits in section s's run */
	long nodes, steps, budget;
	const char *heur;
};

static void
bb_set(struct bb *s, int64_t *at, int64_t v)
{
	if (s->nlog == s->caplog) {
		s->caplog = s->caplog ? 2 * s->caplog : 1024;
		s->log = pack_xrealloc(s->log,
				       (size_t)s->caplog * sizeof *s->log);
	}
	s->log[s->nlog].at = at;
	s->log[s->nlog++].old = *at;
	*at = v;
}

static void
bb_undo(struct bb *s, int mark)
{
	while (s->nlog > mark) {
		s->nlog--;
		*s->log[s->nlog].at = s->log[s->nlog].old;
	}
}

static int
bb_push(struct bb *s, int m)
{
	int at = s->nent;

	if (s->nent + m > s->capent) {
		s->capent = max64(2 * (int64_t)s->capent, s->nent + m);
		s->ent = pack_xrealloc(s->ent,
				       (size_t)s->capent * sizeof *s->ent);
	}
	s->nent += m;
	return at;
}

static int
ent_less(const struct ent *a, const struct ent *b)
{
	return a->off < b->off || (a->off == b->off && a->pidx < b->pidx);
}

/* The parent's run was sorted and offsets only rose since: insertion sort
 * costs little more than a pass. */
static void
sort_ents(struct ent *a, int n)
{
	for (int i = 1; i < n; i++) {
		struct ent t = a[i];
		int j = i;

		for (; j > 0 && ent_less(&t, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/* Raises the floor of the sections whose unplaced boxes all start higher
 * (minimalloc's "unallocated floor"); one box at or below the floor ends
 * the scan. */
static void
bb_raise_floors(struct bb *s, int naff)
{
	const struct pack_graph *g = &s->g;

	for (int a = 0; a < naff; a++) {
		int sec = s->aff[a], q = g->sfirst[sec];
		int end = q + s->ucnt[sec];
		int64_t mn = INT64_MAX, fl = s->floor[sec];

		for (; q < end && mn > fl; q++)
			if (s->minoff[g->sbox[q]] < mn)
				mn = s->minoff[g->sbox[q]];
		s->steps += q - g->sfirst[sec];
		if (mn != INT64_MAX && fl < mn)
			bb_set(s, &s->floor[sec], mn);
	}
}

enum { PL_HATLESS = 1, PL_DEAD = 2 };

/* Moves box i out of the unplaced lead of each of its sections' runs;
 * bb_unlist puts it back (last out, first back). */
static void
bb_delist(struct bb *s, int i)
{
	struct pack_graph *g = &s->g;

	for (int sec = g->slo[i]; sec < g->shi[i]; sec++) {
		int *pi = &s->mpos[s->mbase[i] + sec - g->slo[i]];
		int last = g->sfirst[sec] + --s->ucnt[sec], j = g->sbox[last];

		g->sbox[*pi] = j;
		s->mpos[s->mbase[j] + sec - g->slo[j]] = *pi;
		g->sbox[last] = i;
		*pi = last;
	}
}

static void
bb_unlist(struct bb *s, int i)
{
	for (int sec = s->g.slo[i]; sec < s->g.shi[i]; sec++)
		s->ucnt[sec]++;
}

/* Marks the sections of box j whose floor is below its new lowest offset
 * (only there can the unallocated floor rise) and where that offset plus
 * the unplaced bytes would pass the capacity (elsewhere the raised floor,
 * at most that offset, cannot fail bb_check, and the floor can wait: a
 * section is rescanned whenever it is marked again, and the placements
 * that set it directly override it). */
static int
bb_mark(struct bb *s, int j, int naff)
{
	const struct pack_graph *g = &s->g;

	for (int sec = g->slo[j]; sec < g->shi[j]; sec++)
		if (s->floor[sec] < s->minoff[j] &&
		    s->minoff[j] > s->cap - s->total[sec] &&
		    s->stamp[sec] != s->epoch) {
			s->stamp[sec] = s->epoch;
			s->aff[naff++] = sec;
		}
	s->steps += g->shi[j] - g->slo[j];
	return naff;
}

/* Places box i at o: its unplaced neighbours now start above it.  Returns
 * PL_HATLESS when it has none, PL_DEAD when one is pushed above its pin or
 * past the capacity. */
static int
bb_place(struct bb *s, int i, int64_t o)
{
	const struct pack_graph *g = &s->g;
	const struct local *L = s->L;
	int64_t top = o + L->size[i];
	int naff = 0, flags = PL_HATLESS;

	s->off[i] = o;
	s->epoch++;
	bb_delist(s, i);
	for (int sec = g->slo[i]; sec < g->shi[i]; sec++) {
		bb_set(s, &s->floor[sec], top);
		bb_set(s, &s->total[sec], s->total[sec] - L->size[i]);
	}
	for (int a = g->first[i]; a < g->first[i + 1]; a++) {
		int j = g->adj[a];

		if (s->off[j] >= 0)
			continue;
		flags &= ~PL_HATLESS;
		if (s->minoff[j] >= top)
			continue;
		bb_set(s, &s->minoff[j], align_up(top, L->align[j]));
		if ((L->pin[j] >= 0 && s->minoff[j] > L->pin[j]) ||
		    s->minoff[j] > s->cap - L->size[j])
			flags |= PL_DEAD;
		naff = bb_mark(s, j, naff);
	}
	s->steps += g->first[i + 1] - g->first[i] + g->shi[i] - g->slo[i];
	bb_raise_floors(s, naff);
	s->naff = naff;
	return flags;
}

/* Every section of the part needs max(o, floor) + unplaced bytes <= cap,
 * that is floor + total <= cap and o + total <= cap.  The parent checked
 * the first; since then only box i's sections and the raised ones
 * changed.  bb_room checked the second before i was placed. */
static int
bb_check(struct bb *s, int i)
{
	const struct pack_graph *g = &s->g;

	s->steps += g->shi[i] - g->slo[i] + s->naff;
	for (int sec = g->slo[i]; sec < g->shi[i]; sec++)
		if (s->floor[sec] + s->total[sec] > s->cap)
			return 0;
	for (int a = 0; a < s->naff; a++)
		if (s->floor[s->aff[a]] + s->total[s->aff[a]] > s->cap)
			return 0;
	return 1;
}

/* The most unplaced bytes in one section of the part, and the first and
 * last sections that hold that many. */
struct most {
	int64_t bytes;
	int first, last;
};

static struct most
bb_most(struct bb *s, int s0, int s1)
{
	struct most m = { 0, -1, -1 };

	s->steps += s1 - s0;
	for (int sec = s0; sec < s1; sec++)
		if (s->total[sec] > m.bytes || m.first < 0) {
			m.bytes = s->total[sec];
			m.first = m.last = sec;
		} else if (s->total[sec] == m.bytes) {
			m.last = sec;
		}
	return m;
}

/* Whether box i at o leaves o + total <= cap in every section of the
 * part outside i's own (inside them, bb_check's floor test implies it). */
static int
bb_room(struct bb *s, const struct part *p, const struct most *m, int i,
	int64_t o)
{
	const struct pack_graph *g = &s->g;
	struct most lo, hi;

	if (o <= s->cap - m->bytes)
		return 1;
	if (m->first < g->slo[i] || m->last >= g->shi[i])
		return 0;
	lo = bb_most(s, p->s0, g->slo[i]);
	hi = bb_most(s, g->shi[i], p->s1);
	return o <= s->cap - max64(lo.bytes, hi.bytes);
}

/* The unplaced boxes of ent[from..from+m) by their current lowest offset,
 * then preorder, pushed as a new run; returns its start, count in *k. */
static int
bb_order(struct bb *s, int from, int m, int *k)
{
	int at = bb_push(s, m), c = 0;

	for (int q = 0; q < m; q++) {
		struct ent e = s->ent[from + q];

		if (s->off[e.box] >= 0)
			continue;
		e.off = s->minoff[e.box];
		s->ent[at + c++] = e;
	}
	sort_ents(s->ent + at, c);
	s->nent = at + c;
	s->steps += m;
	*k = c;
	return at;
}

static int bb_subsolve(struct bb *s, const struct part *p);

static int
bb_search(struct bb *s, const struct part *p, int from, int m,
	  int64_t lastoff, int lastp);

/* Solves each run of sections between the cut points [c, c + nc] apart. */
static int
bb_subparts(struct bb *s, const struct part *p, const int *c, int nc)
{
	int *box = pack_xmalloc(((size_t)p->n + 1) * sizeof *box);
	int r = BB_FOUND;

	for (int j = 0; j < nc && r == BB_FOUND; j++) {
		struct part sp = { box, 0, c[j], c[j + 1] };

		for (int q = 0; q < p->n; q++) {
			int b = p->box[q];

			if (s->off[b] < 0 && s->g.slo[b] >= c[j] &&
			    s->g.slo[b] < c[j + 1])
				box[sp.n++] = b;
		}
		s->steps += p->n;
		if (sp.n)
			r = bb_subsolve(s, &sp);
	}
	free(box);
	return r;
}

/* minimalloc's dynamic decomposition: placing box i may leave section
 * boundaries that no unplaced box crosses; the parts between them are
 * independent. */
static int
bb_split(struct bb *s, const struct part *p, int at, int k, struct ent e)
{
	const struct pack_graph *g = &s->g;
	int i = e.box, nc = 0, r;
	int *c = NULL;

	s->sol[i] = e.off;
	for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
		if (--s->cuts[sec] == 0)
			nc++;
	if (nc == 0) {
		r = bb_search(s, p, at, k, e.off, e.pidx);
	} else {
		c = pack_xmalloc(((size_t)nc + 2) * sizeof *c);
		nc = 0;
		c[nc++] = p->s0;
		for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
			if (s->cuts[sec] == 0)
				c[nc++] = sec + 1;
		c[nc] = p->s1;
		r = bb_subparts(s, p, c, nc);
		free(c);
	}
	for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
		s->cuts[sec]++;
	return r;
}

/* Places e and searches on; *hatless tells whether e met no unplaced box
 * (then no other choice here can do better: minimalloc's hatless
 * pruning). */
static int
bb_try(struct bb *s, const struct part *p, int at, int k, struct ent e,
       int *hatless)
{
	int mark = s->nlog, r = BB_NONE;
	int flags = bb_place(s, e.box, e.off);

	if (!(flags & PL_DEAD) && bb_check(s, e.box))
		r = bb_split(s, p, at, k, e);
	bb_undo(s, mark);
	bb_unlist(s, e.box);
	s->off[e.box] = -1;
	*hatless = flags & PL_HATLESS;
	return r;
}

static int
bb_search(struct bb *s, const struct part *p, int from, int m,
	  int64_t lastoff, int lastp)
{
	int save = s->nent, r = BB_NONE, k, at, hatless = 0;
	int64_t minh = INT64_MAX;
	struct most most;

	if (--s->nodes < 0 || s->steps >= s->budget)
		return BB_ABORT;
	at = bb_order(s, from, m, &k);
	if (k == 0) {
		for (int q = 0; q < p->n; q++)
			s->sol[p->box[q]] = s->off[p->box[q]];
		s->nent = save;
		return BB_FOUND;
	}
	for (int q = 0; q < k; q++) {
		const struct ent *e = &s->ent[at + q];

		if (e->off + s->L->size[e->box] < minh)
			minh = e->off + s->L->size[e->box];
	}
	most = bb_most(s, p->s0, p->s1);
	for (int q = 0; q < k && r == BB_NONE && !hatless; q++) {
		struct ent e = s->ent[at + q];

		if (e.off >= minh)	/* dominated: a gap another box fits */
			break;
		if (e.off < lastoff || (e.off == lastoff && e.pidx < lastp))
			continue;	/* not canonical */
		if (s->L->pin[e.box] >= 0 && e.off != s->L->pin[e.box])
			continue;
		if (!bb_room(s, p, &most, e.box, e.off))
			continue;
		r = bb_try(s, p, at, k, e, &hatless);
	}
	s->nent = save;
	return r;
}

/* Preorder keys: W the lifespan, A the area, T the most unplaced bytes in
 * one of its sections, in the order the heuristic names them. */
static void
bb_prekey(struct bb *s, int i, struct okey *key)
{
	const struct local *L = s->L;
	int64_t w = duration(L->start[i], L->end[i]);
	int64_t a = sat_mul(L->size[i], w), t = 0;

	for (int sec = s->g.slo[i]; sec < s->g.shi[i]; sec++)
		t = max64(t, s->total[sec]);
	s->steps += s->g.shi[i] - s->g.slo[i];
	for (int j = 0; j < 3; j++)
		key->k[j] = s->heur[j] == 'W' ? w : s->heur[j] == 'A' ? a : t;
	key->i = i;
}

static int
bb_subsolve(struct bb *s, const struct part *p)
{
	struct okey *key = pack_xmalloc((size_t)p->n * sizeof *key);
	int save = s->nent, at, r;

	for (int q = 0; q < p->n; q++)
		bb_prekey(s, p->box[q], &key[q]);
	qsort(key, p->n, sizeof *key, cmp_okey);
	at = bb_push(s, p->n);
	for (int q = 0; q < p->n; q++) {
		s->ent[at + q].off = 0;
		s->ent[at + q].pidx = q;
		s->ent[at + q].box = key[q].i;
	}
	free(key);
	r = bb_search(s, p, at, p->n, 0, 0);
	s->nent = save;
	return r;
}

static void
bb_reset(struct bb *s)
{
	int nsec = s->g.nsec;

	for (int i = 0; i < s->n; i++) {
		s->off[i] = -1;
		s->minoff[i] = s->L->pin[i] >= 0 ? s->L->pin[i] : 0;
	}
	memset(s->floor, 0, (size_t)nsec * sizeof *s->floor);
	memcpy(s->total, s->total0, (size_t)nsec * sizeof *s->total);
	memcpy(s->cuts, s->cuts0, (size_t)nsec * sizeof *s->cuts);
	for (int sec = 0; sec < nsec; sec++)
		s->ucnt[sec] = s->g.sfirst[sec + 1] - s->g.sfirst[sec];
	s->nlog = 0;
	s->nent = 0;
}

static void
bb_count(struct bb *s)
{
	const struct pack_graph *g = &s->g;

	for (int i = 0; i < s->n; i++) {
		for (int sec = g->slo[i]; sec < g->shi[i]; sec++)
			s->total0[sec] += s->L->size[i];
		for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
			s->cuts0[sec]++;
	}
}

/* mbase[i]: where box i's sections start in mpos; mpos: its place in
 * each section's run of sbox. */
static void
bb_positions(struct bb *s)
{
	const struct pack_graph *g = &s->g;
	size_t m = 0;

	s->mbase = pack_xmalloc((size_t)s->n * sizeof *s->mbase);
	for (int i = 0; i < s->n; i++) {
		s->mbase[i] = (int)m;
		m += (size_t)(g->shi[i] - g->slo[i]);
	}
	s->mpos = pack_xmalloc((m + 1) * sizeof *s->mpos);
	for (int sec = 0; sec < g->nsec; sec++)
		for (int q = g->sfirst[sec]; q < g->sfirst[sec + 1]; q++) {
			int j = g->sbox[q];

			s->mpos[s->mbase[j] + sec - g->slo[j]] = q;
		}
}

static int
bb_init(struct bb *s, const struct local *L)
{
	size_t n = (size_t)L->n, nsec;

	memset(s, 0, sizeof *s);
	if (pack_graph_build(&s->g, L->n, L->start, L->end,
			     SEARCH_GRAPH_LIMIT) != 0)
		return -1;
	s->L = L;
	s->n = L->n;
	nsec = (size_t)s->g.nsec;
	s->off = pack_xmalloc(n * sizeof *s->off);
	s->minoff = pack_xmalloc(n * sizeof *s->minoff);
	s->sol = pack_xmalloc(n * sizeof *s->sol);
	s->floor = pack_xmalloc(nsec * sizeof *s->floor);
	s->total = pack_xmalloc(nsec * sizeof *s->total);
	s->total0 = pack_xcalloc(nsec, sizeof *s->total0);
	s->cuts = pack_xmalloc(nsec * sizeof *s->cuts);
	s->cuts0 = pack_xcalloc(nsec, sizeof *s->cuts0);
	s->stamp = pack_xcalloc(nsec, sizeof *s->stamp);
	s->aff = pack_xmalloc(nsec * sizeof *s->aff);
	s->ucnt = pack_xmalloc(nsec * sizeof *s->ucnt);
	bb_positions(s);
	bb_count(s);
	return 0;
}

static void
bb_free(struct bb *s)
{
	pack_graph_free(&s->g);
	free(s->off);
	free(s->minoff);
	free(s->sol);
	free(s->floor);
	free(s->total);
	free(s->total0);
	free(s->cuts);
	free(s->cuts0);
	free(s->stamp);
	free(s->aff);
	free(s->ucnt);
	free(s->mbase);
	free(s->mpos);
	free(s->log);
	free(s->ent);
}

/* Is there a plan of height <= cap?  minimalloc's restarts: the node
 * limit doubles round after round, each tried with every preorder, until
 * an answer or s->budget.  BB_FOUND (in s->sol), BB_NONE (the canonical
 * space holds none), or BB_ABORT. */
static int
bb_attempt(struct bb *s, int64_t cap)
{
	static const char *const heur[] = { "WAT", "TAW", "TWA" };
	int *all = pack_xmalloc((size_t)s->n * sizeof *all);
	struct part whole = { all, s->n, 0, s->g.nsec };
	int r = BB_ABORT;

	for (int i = 0; i < s->n; i++)
		all[i] = i;
	s->cap = cap;
	for (long limit = 2L * s->n; r == BB_ABORT && limit < (1L << 40) &&
	     s->steps < s->budget; limit *= 2)
		for (int h = 0; h < 3 && r == BB_ABORT &&
		     s->steps < s->budget; h++) {
			bb_reset(s);
			s->nodes = limit;
			s->heur = heur[h];
			r = bb_subsolve(s, &whole);
		}
	free(all);
	return r;
}

static int64_t
bb_height(const struct bb *s)
{
	int64_t h = 0;

	for (int i = 0; i < s->n; i++)
		h = max64(h, s->sol[i] + s->L->size[i]);
	return h;
}

/* The lowest plan it can find below best, no lower than lo: the capacity
 * lo first with three quarters of the budget, then bisecting with half of
 * what is left each time, a capacity that found nothing counting as too
 * low.  Returns the height (best when it found none), the offsets in
 * out. */
static int64_t
bb_minimize(struct bb *s, int64_t lo, int64_t best, long budget, int64_t *out)
{
	int first = 1;

	while (lo < best && s->steps < budget) {
		int64_t cap = first ? lo : lo + (best - lo) / 2;
		long left = budget - s->steps;

		s->budget = s->steps + (first ? left / 4 * 3 : left / 2);
		if (bb_attempt(s, cap) == BB_FOUND) {
			best = bb_height(s);
			memcpy(out, s->sol, (size_t)s->n * sizeof *out);
		} else {
			lo = cap + 1;
		}
		first = 0;
	}
	return best;
}

static int
search_piece(struct packer *P, struct piece *p, long budget)
{
	struct local L = local_of(P, p);
	struct bb s;
	int64_t h;

	if (bb_init(&s, &L) != 0)
		return 0;
	h = bb_minimize(&s, P->target, p->height, budget, L.off);
	P->steps += s.steps;
	bb_free(&s);
	if (h == p->height)
		return 0;
	p->height = h;
	return 1;
}

/* ---- improvement: iterated greedy -------------------------------------- */

/* Marks the boxes that ended above the target as hot, for good, and
 * orders the hot ones first, each group in the base order; returns how
 * many became hot. */
static int
promote(const struct greedy *G, int64_t target, const int *base, int m,
	char *hot, int *order)
{
	int added = 0, a = 0;

	for (int q = 0; q < m; q++) {
		int k = base[q];

		if (!hot[k] && G->off[k] + G->L->size[k] > target) {
			hot[k] = 1;
			added++;
		}
	}
	for (int q = 0; q < m; q++)
		if (hot[base[q]])
			order[a++] = base[q];
	for (int q = 0; q < m; q++)
		if (!hot[base[q]])
			order[a++] = base[q];
	return added;
}

/* Best fit again and again, the boxes that ever ended above the target
 * going first (squeaky wheel optimisation), keeping the lowest plan, until
 * a pass makes no new box hot. */
static int
iterate_greedy(struct packer *P, struct piece *p, long budget)
{
	struct local L = local_of(P, p);
	struct greedy G;
	int *base = pack_xmalloc((size_t)L.n * sizeof *base);
	int *order = pack_xmalloc((size_t)L.n * sizeof *order);
	char *hot = pack_xcalloc((size_t)L.n, 1);
	int64_t *peak = p->order >= 3 ? lifetime_peaks(&L) : NULL;
	int m = make_order(&L, peak, p->order, base), improved = 0;
	long end = P->steps + budget;

	greedy_init(&G, &L);
	memcpy(G.off, L.off, (size_t)L.n * sizeof *G.off);
	promote(&G, P->target, base, m, hot, order);
	while (p->height > P->target && P->steps < end) {
		int64_t h = greedy_pass(&G, order, m);

		if (h < p->height) {
			p->height = h;
			memcpy(L.off, G.off, (size_t)L.n * sizeof *G.off);
			improved = 1;
		}
		P->steps += G.steps;
		G.steps = 0;
		if (!promote(&G, P->target, base, m, hot, order))
			break;
	}
	greedy_free(&G);
	free(base);
	free(order);
	free(hot);
	free(peak);
	return improved;
}

/* The pieces above the target share what is left of the budget, smallest
 * first so that what a piece leaves goes to the larger ones.  Each gets
 * the iterated greedy (which stops by itself when it stalls), then the
 * search when it is small enough for it. */
static void
search(struct packer *P, struct pack_stats *st)
{
	struct kv *todo = pack_xmalloc((size_t)P->npiece * sizeof *todo);
	int nt = 0;

	for (int i = 0; i < P->npiece; i++) {
		const struct piece *p = &P->piece[i];

		if (p->height > P->target)
			todo[nt++] = (struct kv){ p->n, i };
	}
	qsort(todo, nt, sizeof *todo, cmp_kv);
	for (int q = 0; q < nt && P->steps < P->budget; q++) {
		long share = (P->budget - P->steps) / (nt - q);

		struct piece *p = &P->piece[todo[q].i];

		st->searched++;
		long before = P->steps;
		int better;

		if (p->n > SEARCH_MAX_BOXES) {
			st->improved += iterate_greedy(P, p, share);
			continue;
		}
		better = iterate_greedy(P, p, share / 8);
		better |= search_piece(P, p, share - (P->steps - before));
		st->improved += better;
	}
	free(todo);
}

static int64_t
top_height(const struct packer *P)
{
	int64_t h = 0;

	for (int i = 0; i < P->npiece; i++)
		h = max64(h, P->piece[i].height);
	return h;
}

void
pack(struct boxes *bx, const struct pack_opts *opt)
{
	static const struct pack_opts def;
	struct pack_stats st = { 0 };
	struct packer P;

	if (!opt)
		opt = &def;
	packer_init(&P, bx, opt->effort > 0 ? opt->effort
					    : PACK_EFFORT_DEFAULT);
	split_pieces(&P);
	greedy(&P);
	st.greedy = top_height(&P);
	st.pieces = P.npiece;
	if (!opt->greedy_only)
		search(&P, &st);
	for (int r = 0; r < P.n; r++)
		bx->b[P.ix[r]].offset = P.off[r];
	bx->height = top_height(&P);
	bx->lower = P.lower;
	st.steps = P.steps;
	if (opt->stats)
		*opt->stats = st;
	packer_free(&P);
}

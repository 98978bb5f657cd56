/* Best fit over the gaps between placed neighbours, boxes in one of
 * several orders (XLA's GlobalDecreasingSizeBestFit, TFLite's
 * greedy-by-size); and squeaky-wheel iterated greedy over it. */
#include <stdlib.h>
#include <string.h>

#include "passes/packer.h"

/* A run or box read by best fit (listed, sorted, scanned) is worth about
 * four units of search bookkeeping: steps are weighted so. */
enum { GREEDY_STEP = 4 };
/* Orders from this one on need lifetime_peaks. */
enum { PEAK_ORDERS = 5 };
/* Up to this many spans are sorted by buckets, more by radix. */
enum { SORT_BUCKETS = 256 };

/* ---- greedy: best fit in one order --------------------------------------- */

struct greedy {
	const struct local *L;
	struct gaps gaps;
	struct span *sp, *tmp;
	int *lo, *hi;		/* see rank_bounds */
	int64_t *off;		/* offsets of this pass; -1 if unplaced */
	long steps;
};

static void
insertion_sort(struct span *a, int n)
{
	for (int i = 1; i < n; i++) {
		struct span t = a[i];
		int j = i;

		for (; j > 0 && a[j - 1].lo > t.lo; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/* Few spans: into about n buckets by the high bits of lo - min, then an
 * insertion sort, which has little left to do.  tmp holds n spans. */
static struct span *
sort_buckets(struct span *a, int n, struct span *tmp)
{
	int64_t min = a[0].lo, max = a[0].lo;
	int cnt[SORT_BUCKETS + 1], nb = 1, sh = 0;

	for (int i = 1; i < n; i++) {
		min = a[i].lo < min ? a[i].lo : min;
		max = a[i].lo > max ? a[i].lo : max;
	}
	while (nb < n)
		nb *= 2;
	while (((uint64_t)(max - min) >> sh) >= (uint64_t)nb)
		sh++;
	memset(cnt, 0, (size_t)(nb + 1) * sizeof *cnt);
	for (int i = 0; i < n; i++)
		cnt[((uint64_t)(a[i].lo - min) >> sh) + 1]++;
	for (int d = 0; d < nb; d++)
		cnt[d + 1] += cnt[d];
	for (int i = 0; i < n; i++)
		tmp[cnt[(uint64_t)(a[i].lo - min) >> sh]++] = a[i];
	insertion_sort(tmp, n);
	return tmp;
}

/* Spans by lo (offsets are >= 0): bucketed when few, else an LSD radix
 * sort on bytes, skipping bytes all spans share.  tmp holds n spans; the
 * result is in a or tmp, whichever is returned. */
static struct span *
sort_spans(struct span *a, int n, struct span *tmp)
{
	uint64_t or = 0, and = UINT64_MAX;

	if (n < 16) {
		insertion_sort(a, n);
		return a;
	}
	if (n <= SORT_BUCKETS)
		return sort_buckets(a, n, tmp);
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

/* The bytes k's placed neighbours occupy, as spans sorted by lo, *m of
 * them. */
static struct span *
neighbours(struct greedy *G, int k, int *m)
{
	*m = pk_gaps_query(&G->gaps, k, G->off, G->sp);
	return sort_spans(G->sp, *m, G->tmp);
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
	pk_gaps_place(&G->gaps, k, off);
}

static int64_t
greedy_pass(struct greedy *G, const int *order, int norder)
{
	const struct local *L = G->L;
	int64_t h = 0;

	pk_gaps_clear(&G->gaps);
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
	G->steps += GREEDY_STEP * G->gaps.steps;
	G->gaps.steps = 0;
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
		hi[k] = pk_upper_rank(L->start, L->n, L->end[k]);
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
		int lo = k + w, hi = pk_upper_rank(L->start, n, L->end[k]) + w;

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

/* floor(log4(size)): boxes within a factor of 4 share a class. */
static int64_t
size_class(int64_t size)
{
	int64_t c = 0;

	for (; size >= 4; size /= 4)
		c++;
	return c;
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
	case 1:	/* size classes (factors of 4), long-lived first */
		key->k[0] = size_class(size);
		key->k[1] = dur;
		key->k[2] = size;
		break;
	case 2: key->k[0] = area; key->k[1] = size; break;
	case 3: key->k[0] = dur; key->k[1] = size; break;
	case 4: key->k[0] = ~L->start[k]; key->k[1] = size; break;
	case 5: key->k[0] = peak[k]; key->k[1] = size; key->k[2] = dur; break;
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
	qsort(key, m, sizeof *key, pk_cmp_okey);
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
	G->sp = pack_xmalloc(n * sizeof *G->sp);
	G->tmp = pack_xmalloc(n * sizeof *G->tmp);
	G->lo = pack_xmalloc(n * sizeof *G->lo);
	G->hi = pack_xmalloc(n * sizeof *G->hi);
	G->off = pack_xmalloc(n * sizeof *G->off);
	rank_bounds(L, G->lo, G->hi);
	for (int k = 0; k < L->n; k++)
		G->off[k] = -1;
	pk_gaps_init(&G->gaps, L->n, G->lo, G->hi, L->size);
}

static void
greedy_free(struct greedy *G)
{
	pk_gaps_free(&G->gaps);
	free(G->sp);
	free(G->tmp);
	free(G->lo);
	free(G->hi);
	free(G->off);
}

/* Runs order `which` on a piece; keeps the plan if it is lower. */
void
pk_greedy_order(struct packer *P, struct piece *p, int which)
{
	struct local L = pk_local_of(P, p);
	struct greedy G;
	int *order = pack_xmalloc((size_t)L.n * sizeof *order);
	int64_t *peak = which >= PEAK_ORDERS ? lifetime_peaks(&L) : NULL;
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
int
pk_iterate_greedy(struct packer *P, struct piece *p, long budget)
{
	struct local L = pk_local_of(P, p);
	struct greedy G;
	int *base = pack_xmalloc((size_t)L.n * sizeof *base);
	int *order = pack_xmalloc((size_t)L.n * sizeof *order);
	char *hot = pack_xcalloc((size_t)L.n, 1);
	int64_t *peak = p->order >= PEAK_ORDERS ? lifetime_peaks(&L) : NULL;
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

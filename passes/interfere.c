/* Interference without an all-pairs scan: a sweep over sorted intervals
 * builds the graph and its time sections; and pack_check sweeps time with
 * the live boxes ordered by offset. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pack.h"

void *
pack_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("hloplan: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *
pack_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("hloplan: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *
pack_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("hloplan: out of memory\n", stderr);
		abort();
	}
	return p;
}

/* ---- the interference graph -------------------------------------------- */

/* One sweep in start order, keeping the boxes still live; every live box
 * meets the one that starts.  With adj NULL it only counts degrees. */
static long
sweep_edges(int n, const int64_t *start, const int64_t *end, int *deg,
	    const int *first, int *adj, int *live)
{
	long edges = 0;
	int nlive = 0;

	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int a = 0; a < nlive; a++) {
			int j = live[a];

			if (end[j] < start[i])
				continue;
			live[k++] = j;
			if (adj) {
				adj[first[i] + deg[i]++] = j;
				adj[first[j] + deg[j]++] = i;
			} else {
				deg[i]++;
				deg[j]++;
			}
		}
		nlive = k;
		live[nlive++] = i;
		edges += k;
	}
	return edges;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int
find_point(const int64_t *pt, int npt, int64_t t)
{
	int lo = 0, hi = npt - 1;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (pt[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	assert(pt[lo] == t);
	return lo;
}

/* Sections are the spans between consecutive distinct points in
 * {start} u {end + 1}; box i covers [slo[i], shi[i]). */
static long
build_sections(struct pack_graph *g, const int64_t *start, const int64_t *end)
{
	int n = g->n, npt = 0;
	int64_t *pt = pack_xmalloc(2 * (size_t)n * sizeof *pt);
	long members = 0;

	for (int i = 0; i < n; i++) {
		assert(end[i] < INT64_MAX);
		pt[npt++] = start[i];
		pt[npt++] = end[i] + 1;
	}
	qsort(pt, npt, sizeof *pt, cmp_i64);
	int m = 0;
	for (int i = 0; i < npt; i++)
		if (m == 0 || pt[i] != pt[m - 1])
			pt[m++] = pt[i];
	g->nsec = m - 1;
	g->slo = pack_xmalloc((size_t)n * sizeof *g->slo);
	g->shi = pack_xmalloc((size_t)n * sizeof *g->shi);
	for (int i = 0; i < n; i++) {
		g->slo[i] = find_point(pt, m, start[i]);
		g->shi[i] = find_point(pt, m, end[i] + 1);
		members += g->shi[i] - g->slo[i];
	}
	free(pt);
	return members;
}

static void
fill_sections(struct pack_graph *g)
{
	int *cnt = pack_xcalloc((size_t)g->nsec + 1, sizeof *cnt);

	for (int i = 0; i < g->n; i++)
		for (int s = g->slo[i]; s < g->shi[i]; s++)
			cnt[s + 1]++;
	for (int s = 0; s < g->nsec; s++)
		cnt[s + 1] += cnt[s];
	g->sfirst = pack_xmalloc(((size_t)g->nsec + 1) * sizeof *g->sfirst);
	memcpy(g->sfirst, cnt, ((size_t)g->nsec + 1) * sizeof *cnt);
	g->sbox = pack_xmalloc((size_t)cnt[g->nsec] * sizeof *g->sbox + 1);
	for (int i = 0; i < g->n; i++)
		for (int s = g->slo[i]; s < g->shi[i]; s++)
			g->sbox[cnt[s]++] = i;
	free(cnt);
}

int
pack_graph_build(struct pack_graph *g, int n, const int64_t *start,
		 const int64_t *end, long limit)
{
	int *deg = pack_xcalloc((size_t)n, sizeof *deg);
	int *live = pack_xmalloc((size_t)n * sizeof *live);
	long edges = sweep_edges(n, start, end, deg, NULL, NULL, live);

	memset(g, 0, sizeof *g);
	g->n = n;
	if (edges > limit / 2 || build_sections(g, start, end) > limit) {
		free(deg);
		free(live);
		pack_graph_free(g);
		return -1;
	}
	g->first = pack_xmalloc(((size_t)n + 1) * sizeof *g->first);
	g->first[0] = 0;
	for (int i = 0; i < n; i++)
		g->first[i + 1] = g->first[i] + deg[i];
	g->adj = pack_xmalloc(2 * (size_t)edges * sizeof *g->adj + 1);
	memset(deg, 0, (size_t)n * sizeof *deg);
	sweep_edges(n, start, end, deg, g->first, g->adj, live);
	fill_sections(g);
	free(deg);
	free(live);
	return 0;
}

void
pack_graph_free(struct pack_graph *g)
{
	free(g->first);
	free(g->adj);
	free(g->slo);
	free(g->shi);
	free(g->sfirst);
	free(g->sbox);
	memset(g, 0, sizeof *g);
}

/* ---- the check ----------------------------------------------------------- */

static int
check_box(const struct box *x, int64_t height, char *err, size_t errlen)
{
	long long id = x->id;

	if (x->size <= 0)
		snprintf(err, errlen, "box %lld: size %" PRId64
			 " is not positive", id, x->size);
	else if (x->end < x->start)
		snprintf(err, errlen, "box %lld: interval [%" PRId64 ", %"
			 PRId64 "] is empty", id, x->start, x->end);
	else if (x->offset < 0)
		snprintf(err, errlen, "box %lld: negative offset %" PRId64,
			 id, x->offset);
	else if (x->pin >= 0 && x->offset != x->pin)
		snprintf(err, errlen, "box %lld: offset %" PRId64
			 " differs from its pin %" PRId64, id, x->offset,
			 x->pin);
	else if (x->align > 1 && x->offset % x->align != 0)
		snprintf(err, errlen, "box %lld: offset %" PRId64
			 " is not a multiple of its alignment %" PRId64, id,
			 x->offset, x->align);
	else if (x->size > height || x->offset > height - x->size)
		snprintf(err, errlen, "box %lld: offset %" PRId64 " + size %"
			 PRId64 " exceeds the height %" PRId64, id, x->offset,
			 x->size, height);
	else
		return 0;
	return 1;
}

struct order {
	int64_t key;
	int i;
};

static int
cmp_order(const void *pa, const void *pb)
{
	const struct order *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static struct order *
order_boxes(const struct boxes *bx, int what)
{
	struct order *o = pack_xmalloc((size_t)bx->n * sizeof *o);

	for (int i = 0; i < bx->n; i++) {
		const struct box *x = &bx->b[i];

		o[i].key = what == 0 ? x->start
			 : what == 1 ? x->end : x->offset;
		o[i].i = i;
	}
	qsort(o, bx->n, sizeof *o, cmp_order);
	return o;
}

/* The live boxes, pairwise disjoint, counted by offset rank in a Fenwick
 * tree; owner[rank] is the live box at that offset. */
struct live {
	int m;
	int64_t *val;		/* distinct offsets, ascending */
	int *fen, *owner;
};

static int
rank_of(const struct live *lv, int64_t v)	/* first rank with val >= v */
{
	int lo = 0, hi = lv->m;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (lv->val[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
live_add(struct live *lv, int r, int d)
{
	for (int i = r + 1; i <= lv->m; i += i & -i)
		lv->fen[i] += d;
}

static int
live_count(const struct live *lv, int r)	/* live boxes below rank r */
{
	int c = 0;

	for (int i = r; i > 0; i -= i & -i)
		c += lv->fen[i];
	return c;
}

static int
live_kth(const struct live *lv, int k)	/* rank of the k-th (1-based) */
{
	int pos = 0, step = 1;

	while (2 * step <= lv->m)
		step *= 2;
	for (; step; step /= 2)
		if (pos + step <= lv->m && lv->fen[pos + step] < k) {
			pos += step;
			k -= lv->fen[pos];
		}
	return pos;
}

/* A live box that shares a byte with x, or -1. */
static int
live_clash(const struct live *lv, const struct box *b, const struct box *x)
{
	int r = rank_of(lv, x->offset), rt = rank_of(lv, x->offset + x->size);
	int below = live_count(lv, r);

	if (live_count(lv, rt) > below)
		return lv->owner[live_kth(lv, below + 1)];
	if (below > 0) {
		int j = lv->owner[live_kth(lv, below)];

		if (b[j].offset + b[j].size > x->offset)
			return j;
	}
	return -1;
}

static void
live_init(struct live *lv, const struct boxes *bx)
{
	struct order *o = order_boxes(bx, 2);

	lv->val = pack_xmalloc((size_t)bx->n * sizeof *lv->val);
	lv->m = 0;
	for (int i = 0; i < bx->n; i++)
		if (lv->m == 0 || o[i].key != lv->val[lv->m - 1])
			lv->val[lv->m++] = o[i].key;
	free(o);
	lv->fen = pack_xcalloc((size_t)lv->m + 1, sizeof *lv->fen);
	lv->owner = pack_xmalloc(((size_t)lv->m + 1) * sizeof *lv->owner);
}

static void
clash_msg(const struct box *a, const struct box *x, char *err, size_t errlen)
{
	int64_t lo = a->offset > x->offset ? a->offset : x->offset;
	int64_t ta = a->offset + a->size, tx = x->offset + x->size;

	snprintf(err, errlen, "box %lld and box %lld overlap: both live at "
		 "time %" PRId64 ", bytes [%" PRId64 ", %" PRId64 ")",
		 (long long)a->id, (long long)x->id, x->start, lo,
		 ta < tx ? ta : tx);
}

/* In start order: retire boxes that ended before this start, then the
 * newcomer may touch only its neighbours in offset order. */
static int
check_overlaps(const struct boxes *bx, char *err, size_t errlen)
{
	struct order *bys = order_boxes(bx, 0), *bye = order_boxes(bx, 1);
	struct live lv;
	int e = 0, bad = 0;

	live_init(&lv, bx);
	for (int q = 0; q < bx->n && !bad; q++) {
		const struct box *x = &bx->b[bys[q].i];
		int j;

		for (; e < bx->n && bye[e].key < x->start; e++)
			live_add(&lv, rank_of(&lv, bx->b[bye[e].i].offset), -1);
		j = live_clash(&lv, bx->b, x);
		if (j >= 0) {
			clash_msg(&bx->b[j], x, err, errlen);
			bad = 1;
		}
		live_add(&lv, rank_of(&lv, x->offset), 1);
		lv.owner[rank_of(&lv, x->offset)] = bys[q].i;
	}
	free(bys);
	free(bye);
	free(lv.val);
	free(lv.fen);
	free(lv.owner);
	return bad;
}

int
pack_check(const struct boxes *bx, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	for (int i = 0; i < bx->n; i++)
		if (check_box(&bx->b[i], bx->height, err, errlen))
			return 1;
	return check_overlaps(bx, err, errlen);
}

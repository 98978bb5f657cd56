/* The greedy packers the packer promises never to be above, written apart
 * from it for test_pack_promise.c: first fit and best fit over the placed
 * boxes live at some time of a box's life, in each of the eleven orders
 * that packer/pack_greedy.c lists, with sort keys of their own; and a
 * check of a packing that shares nothing with pack_check.  Simple, not
 * fast: the neighbours of a box are found by a scan over a window of
 * start times, and sorted. */
#ifndef HLOPLAN_TESTS_PACK_REF_H
#define HLOPLAN_TESTS_PACK_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/boxes.h"

enum { REF_NORDER = 11 };

static const char *const ref_order_name[REF_NORDER] = {
	"size", "size class", "area", "duration", "start", "peak",
	"peak area", "input", "degree", "degree size", "size in input order",
};

/* A problem seen by start time: by[r] is the box of rank r (starts
 * ascending, then index), long boxes (longer than maxdur) listed apart. */
struct ref {
	const struct boxes *bx;
	int *by;
	int64_t *start;		/* start of rank r */
	int64_t maxdur;		/* every box not in lng is at most this long */
	int *lng, nlng;
	int64_t *off;		/* offset of box i, -1 unplaced */
	int64_t (*sp)[2];	/* scratch: occupied [lo, hi) */
	int64_t (*tmp)[2];	/* ... and room to sort them */
};

static int64_t
ref_dur(const struct box *b)
{
	uint64_t d = (uint64_t)b->end - (uint64_t)b->start;

	return d >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d + 1;
}

static int64_t
ref_mul(int64_t a, int64_t b)
{
	return a > 0 && b > INT64_MAX / a ? INT64_MAX : a * b;
}

static const struct box *ref_sort_b;

static int
ref_cmp_start(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	int64_t sa = ref_sort_b[a].start, sb = ref_sort_b[b].start;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	return (a > b) - (a < b);
}

static int
ref_cmp_end(const void *pa, const void *pb)
{
	int64_t a = ref_sort_b[*(const int *)pa].end;
	int64_t b = ref_sort_b[*(const int *)pb].end;

	return (a > b) - (a < b);
}

static int
ref_cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

static void
ref_init(struct ref *R, const struct boxes *bx)
{
	int n = bx->n, nl = n < 256 ? n / 2 : 256;
	int64_t *d = malloc(((size_t)n + 1) * sizeof *d);

	R->bx = bx;
	R->by = malloc(((size_t)n + 1) * sizeof *R->by);
	R->start = malloc(((size_t)n + 1) * sizeof *R->start);
	R->lng = malloc(((size_t)n + 1) * sizeof *R->lng);
	R->off = malloc(((size_t)n + 1) * sizeof *R->off);
	R->sp = malloc(((size_t)n + 1) * sizeof *R->sp);
	R->tmp = malloc(((size_t)n + 1) * sizeof *R->tmp);
	for (int i = 0; i < n; i++) {
		R->by[i] = i;
		d[i] = ref_dur(&bx->b[i]);
	}
	ref_sort_b = bx->b;
	qsort(R->by, (size_t)n, sizeof *R->by, ref_cmp_start);
	for (int r = 0; r < n; r++)
		R->start[r] = bx->b[R->by[r]].start;
	qsort(d, (size_t)n, sizeof *d, ref_cmp_i64);
	R->maxdur = n ? d[n - 1 - nl] : 0;
	R->nlng = 0;
	for (int i = 0; i < n; i++)
		if (ref_dur(&bx->b[i]) > R->maxdur)
			R->lng[R->nlng++] = i;
	free(d);
}

static void
ref_free(struct ref *R)
{
	free(R->by);
	free(R->start);
	free(R->lng);
	free(R->off);
	free(R->sp);
	free(R->tmp);
}

/* First rank whose start is >= t. */
static int
ref_rank_at(const struct ref *R, int64_t t)
{
	int lo = 0, hi = R->bx->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (R->start[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sorts the first m spans by their low end: runs of 8 by insertion,
 * then merges of runs of 8, 16, 32, ... (qsort's calls made the test
 * slow). */
static void
ref_sort_spans(struct ref *R, int m)
{
	int64_t (*a)[2] = R->sp, (*t)[2] = R->tmp, (*x)[2];

	for (int i = 1; i < m; i++) {
		int64_t lo = a[i][0], hi = a[i][1];
		int j = i;

		for (; j % 8 && a[j - 1][0] > lo; j--) {
			a[j][0] = a[j - 1][0];
			a[j][1] = a[j - 1][1];
		}
		a[j][0] = lo;
		a[j][1] = hi;
	}
	for (int w = 8; w < m; w *= 2) {
		for (int lo = 0; lo < m; lo += 2 * w) {
			int mid = lo + w < m ? lo + w : m;
			int hi = lo + 2 * w < m ? lo + 2 * w : m;
			int i = lo, j = mid, o = lo;

			while (i < mid || j < hi) {
				int from;

				if (j >= hi || (i < mid && a[i][0] <= a[j][0]))
					from = i++;
				else
					from = j++;
				t[o][0] = a[from][0];
				t[o++][1] = a[from][1];
			}
		}
		x = a;
		a = t;
		t = x;
	}
	if (a != R->sp)
		memcpy(R->sp, a, (size_t)m * sizeof *a);
}

static int
ref_live_together(const struct box *a, const struct box *b)
{
	return a->start <= b->end && b->start <= a->end;
}

/* The bytes of box k's placed neighbours, sorted by their low end. */
static int
ref_neighbours(struct ref *R, int k)
{
	const struct box *b = R->bx->b, *x = &b[k];
	int m = 0, r;
	/* a short box live at x->start started at most maxdur - 1 before */
	int64_t from = x->start - R->maxdur < x->start ? x->start - R->maxdur
						       : INT64_MIN;

	for (r = ref_rank_at(R, from);
	     r < R->bx->n && R->start[r] <= x->end; r++) {
		int j = R->by[r];

		if (R->off[j] >= 0 && ref_dur(&b[j]) <= R->maxdur &&
		    ref_live_together(&b[j], x)) {
			R->sp[m][0] = R->off[j];
			R->sp[m++][1] = R->off[j] + b[j].size;
		}
	}
	for (int q = 0; q < R->nlng; q++) {
		int j = R->lng[q];

		if (R->off[j] >= 0 && ref_live_together(&b[j], x)) {
			R->sp[m][0] = R->off[j];
			R->sp[m++][1] = R->off[j] + b[j].size;
		}
	}
	ref_sort_spans(R, m);
	return m;
}

static int64_t
ref_up(int64_t x, int64_t a)
{
	return a > 1 && x % a ? x + (a - x % a) : x;
}

/* First fit: the lowest aligned offset clear of the spans.  Best fit: the
 * lowest aligned offset in the smallest hole between spans (a hole is
 * measured from the top of what lies below it to the next span) that
 * holds the box, the lowest such hole on a tie; above every span when no
 * hole does. */
static int64_t
ref_fit(struct ref *R, int k, int best)
{
	const struct box *x = &R->bx->b[k];
	int64_t a = x->align > 0 ? x->align : 1, top = 0;
	int64_t pick = -1, hole = INT64_MAX;
	int m = ref_neighbours(R, k);

	for (int q = 0; q < m; q++) {
		int64_t o = ref_up(top, a);

		if (R->sp[q][0] > top && o + x->size <= R->sp[q][0]) {
			if (!best)
				return o;
			if (R->sp[q][0] - top < hole) {
				hole = R->sp[q][0] - top;
				pick = o;
			}
		}
		if (R->sp[q][1] > top)
			top = R->sp[q][1];
	}
	return pick >= 0 ? pick : ref_up(top, a);
}

/* live[r]: the bytes live at the start of rank r (boxes started by then
 * and not ended before), by a sweep over starts and sorted ends. */
static int64_t *
ref_live_at_starts(const struct ref *R)
{
	const struct boxes *bx = R->bx;
	int n = bx->n, e = 0;
	int64_t *end = malloc(((size_t)n + 1) * sizeof *end);
	int64_t *sz = malloc(((size_t)n + 1) * sizeof *sz);
	int64_t *live = malloc(((size_t)n + 1) * sizeof *live), cur = 0;
	int *bye = malloc(((size_t)n + 1) * sizeof *bye);

	for (int i = 0; i < n; i++)
		bye[i] = i;
	ref_sort_b = bx->b;
	qsort(bye, (size_t)n, sizeof *bye, ref_cmp_end);
	for (int i = 0; i < n; i++) {
		end[i] = bx->b[bye[i]].end;
		sz[i] = bx->b[bye[i]].size;
	}
	for (int r = 0, s = 0; r < n; r++) {
		for (; s < n && R->start[s] <= R->start[r]; s++)
			cur += bx->b[R->by[s]].size;
		for (; e < n && end[e] < R->start[r]; e++)
			cur -= sz[e];
		live[r] = cur;
	}
	free(end);
	free(sz);
	free(bye);
	return live;
}

/* The most bytes live at one time during each box's life: the live bytes
 * peak at a start, so the most of live[] over the starts inside the box's
 * life, by a table of maxima over runs of 2^j ranks. */
static int64_t *
ref_peaks(const struct ref *R)
{
	int n = R->bx->n, levels = 1;
	int64_t *peak = malloc(((size_t)n + 1) * sizeof *peak), **t;

	while ((1 << levels) <= n)
		levels++;
	t = malloc((size_t)levels * sizeof *t);
	t[0] = ref_live_at_starts(R);
	for (int j = 1; j < levels; j++) {
		t[j] = malloc(((size_t)n + 1) * sizeof **t);
		for (int r = 0; r + (1 << j) <= n; r++)
			t[j][r] = t[j - 1][r] > t[j - 1][r + (1 << (j - 1))]
					  ? t[j - 1][r]
					  : t[j - 1][r + (1 << (j - 1))];
	}
	for (int i = 0; i < n; i++) {
		const struct box *x = &R->bx->b[i];
		int lo = ref_rank_at(R, x->start), hi = lo, j = 0;

		while (hi < n && R->start[hi] <= x->end)
			hi++;
		while ((2 << j) <= hi - lo)
			j++;
		peak[i] = t[j][lo] > t[j][hi - (1 << j)] ? t[j][lo]
							 : t[j][hi - (1 << j)];
	}
	for (int j = 0; j < levels; j++)
		free(t[j]);
	free(t);
	return peak;
}

/* How many other boxes live at some time of each box's life: those that
 * start by its end, less those that end before its start, less itself. */
static int64_t *
ref_degrees(const struct ref *R)
{
	const struct boxes *bx = R->bx;
	int n = bx->n;
	int64_t *deg = malloc(((size_t)n + 1) * sizeof *deg);
	int64_t *end = malloc(((size_t)n + 1) * sizeof *end);

	for (int i = 0; i < n; i++)
		end[i] = bx->b[i].end;
	qsort(end, (size_t)n, sizeof *end, ref_cmp_i64);
	for (int i = 0; i < n; i++) {
		int lo = 0, hi = n, started = ref_rank_at(R, bx->b[i].end);

		while (started < n && R->start[started] <= bx->b[i].end)
			started++;
		while (lo < hi) {	/* ends before bx->b[i].start */
			int mid = lo + (hi - lo) / 2;

			if (end[mid] < bx->b[i].start)
				lo = mid + 1;
			else
				hi = mid;
		}
		deg[i] = started - lo - 1;
	}
	free(end);
	return deg;
}

static int
ref_size_class(int64_t size)
{
	int c = 0;

	while (size >= 4) {
		size /= 4;
		c++;
	}
	return c;
}

struct ref_key {
	int64_t k[3];
	int64_t start;
	int i;
};

/* Larger keys first; then earlier start, then lower index. */
static int
ref_cmp_key(const void *pa, const void *pb)
{
	const struct ref_key *a = pa, *b = pb;

	for (int j = 0; j < 3; j++)
		if (a->k[j] != b->k[j])
			return a->k[j] > b->k[j] ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The keys of order `which` for box i; fig[i] is its peak or its degree
 * where the order needs one. */
static void
ref_keys(const struct box *x, int i, int which, int64_t fig,
	 struct ref_key *key)
{
	int64_t dur = ref_dur(x), area = ref_mul(x->size, dur);
	int64_t k0 = 0, k1 = 0, k2 = 0;

	switch (which) {
	case 0: k0 = x->size; k1 = dur; break;
	case 1: k0 = ref_size_class(x->size); k1 = dur; k2 = x->size; break;
	case 2: k0 = area; k1 = x->size; break;
	case 3: k0 = dur; k1 = x->size; break;
	case 4: k0 = ~x->start; k1 = x->size; break;	/* earliest first */
	case 5: k0 = fig; k1 = x->size; k2 = dur; break;
	case 6: k0 = fig; k1 = area; break;
	case 7: k0 = -(int64_t)i; break;
	case 8: k0 = fig; k1 = x->size; break;
	case 9: k0 = ref_mul(fig + 1, x->size); k1 = dur; break;
	default: k0 = x->size; k1 = -(int64_t)i; break;
	}
	*key = (struct ref_key){ { k0, k1, k2 }, x->start, i };
}

/* The unpinned boxes in order `which`; returns how many. fig holds the
 * peaks (orders 5, 6) or degrees (8, 9), else is unused. */
static int
ref_order(const struct ref *R, int which, const int64_t *fig, int *order)
{
	const struct boxes *bx = R->bx;
	struct ref_key *key = malloc(((size_t)bx->n + 1) * sizeof *key);
	int m = 0;

	for (int i = 0; i < bx->n; i++)
		if (bx->b[i].pin < 0)
			ref_keys(&bx->b[i], i, which, fig ? fig[i] : 0,
				 &key[m++]);
	qsort(key, (size_t)m, sizeof *key, ref_cmp_key);
	for (int q = 0; q < m; q++)
		order[q] = key[q].i;
	free(key);
	return m;
}

/* Peaks or degrees of every box, as order `which` needs; NULL if none. */
static int64_t *
ref_figures(const struct ref *R, int which)
{
	if (which != 5 && which != 6 && which != 8 && which != 9)
		return NULL;
	return which <= 6 ? ref_peaks(R) : ref_degrees(R);
}

/* The height of the greedy in order `which` by first fit (best 0) or best
 * fit (1): pinned boxes at their pins, then each box in order.  It stops
 * once higher than stop (the height so far is then above stop, as the
 * whole pass's would be), so a pass need not end to be shown higher. */
static int64_t
ref_greedy(struct ref *R, int which, int best, const int64_t *fig,
	   int64_t stop)
{
	const struct boxes *bx = R->bx;
	int *order = malloc(((size_t)bx->n + 1) * sizeof *order);
	int m = ref_order(R, which, fig, order);
	int64_t h = 0;

	for (int i = 0; i < bx->n; i++) {
		R->off[i] = bx->b[i].pin;
		if (R->off[i] >= 0 && R->off[i] + bx->b[i].size > h)
			h = R->off[i] + bx->b[i].size;
	}
	for (int q = 0; q < m && h <= stop; q++) {
		int k = order[q];

		R->off[k] = ref_fit(R, k, best);
		if (R->off[k] + bx->b[k].size > h)
			h = R->off[k] + bx->b[k].size;
	}
	free(order);
	return h;
}

/* 0 when the offsets in bx are a packing of height at most bx->height:
 * aligned, pins kept, and no two boxes live together sharing a byte;
 * else 1 and a message in err.  A sweep over starts, each box checked
 * against those still live. */
static int
ref_check(const struct boxes *bx, char *err, size_t errlen)
{
	struct ref R;
	int *live = malloc(((size_t)bx->n + 1) * sizeof *live), nlive = 0;
	int bad = 0;

	ref_init(&R, bx);
	for (int r = 0; r < bx->n && !bad; r++) {
		const struct box *x = &bx->b[R.by[r]];
		int64_t a = x->align > 0 ? x->align : 1;

		if (x->offset < 0 || x->offset % a ||
		    (x->pin >= 0 && x->offset != x->pin) ||
		    x->offset > bx->height - x->size) {
			snprintf(err, errlen, "box %d misplaced at %lld",
				 R.by[r], (long long)x->offset);
			bad = 1;
		}
		for (int q = 0; q < nlive && !bad; q++) {
			const struct box *y = &bx->b[live[q]];

			if (y->end < x->start) {
				live[q--] = live[--nlive];
				continue;
			}
			if (x->offset < y->offset + y->size &&
			    y->offset < x->offset + x->size) {
				snprintf(err, errlen, "boxes %d and %d overlap",
					 R.by[r], live[q]);
				bad = 1;
			}
		}
		live[nlive++] = R.by[r];
	}
	free(live);
	ref_free(&R);
	return bad;
}

#endif

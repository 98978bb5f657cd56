/* The occupied bytes around a box, for best fit: two segment trees over
 * the ranks of a piece (boxes in start order) whose nodes keep the union
 * of their placed boxes' spans as a sorted list of disjoint runs.  Packed
 * boxes merge into few runs, so a query reads far fewer runs than the box
 * has neighbours. */
#include <stdlib.h>
#include <string.h>

#include "packer/pack_internal.h"

/* "below" keeps runs for nodes at least 2^GAPS_SHIFT ranks wide; the
 * ranks of narrower ones are read box by box. */
enum { GAPS_SHIFT = 4 };

/* How many "below" nodes there are: those at least 2^GAPS_SHIFT wide
 * have indices under 2 leaves / 2^GAPS_SHIFT. */
static int
below_nodes(const struct gaps *g)
{
	return 2 * g->leaves >> GAPS_SHIFT;
}

static void
runs_free(struct runs *r, int nodes)
{
	for (int v = 0; v < nodes; v++)
		free(r[v].v);
	free(r);
}

void
pk_gaps_init(struct gaps *g, int n, const int *lo, const int *hi,
	     const int64_t *size)
{
	memset(g, 0, sizeof *g);
	g->lo = lo;
	g->hi = hi;
	g->size = size;
	g->leaves = 1;
	while (g->leaves < n)
		g->leaves *= 2;
	g->cover = pack_xcalloc(2 * (size_t)g->leaves, sizeof *g->cover);
	g->below = pack_xcalloc((size_t)below_nodes(g), sizeof *g->below);
}

void
pk_gaps_clear(struct gaps *g)
{
	for (int v = 0; v < 2 * g->leaves; v++)
		g->cover[v].n = 0;
	for (int v = 0; v < below_nodes(g); v++)
		g->below[v].n = 0;
}

void
pk_gaps_free(struct gaps *g)
{
	runs_free(g->cover, 2 * g->leaves);
	runs_free(g->below, below_nodes(g));
	memset(g, 0, sizeof *g);
}

/* First run of r[0..n) whose hi is >= x (runs are disjoint and sorted,
 * so their his are too). */
static int
first_reaching(const struct span *r, int n, int64_t x)
{
	const struct span *p = r;

	if (n == 0)
		return 0;
	while (n > 1) {		/* the answer is in p[0..n], p[n - 1] */
		int half = n / 2;

		p = p[half - 1].hi < x ? p + half : p;
		n -= half;
	}
	return (int)(p - r) + (p->hi < x);
}

/* Runs moved by a loop rather than by memmove: most moves are short. */
enum { MOVE_FEW = 8 };

/* memmove of n runs from src down to dst < src. */
static inline void
move_down(struct span *dst, const struct span *src, int n)
{
	if (n > MOVE_FEW) {
		memmove(dst, src, (size_t)n * sizeof *dst);
		return;
	}
	for (int i = 0; i < n; i++)
		dst[i] = src[i];
}

/* memmove of n runs from src up to dst > src. */
static inline void
move_up(struct span *dst, const struct span *src, int n)
{
	if (n > MOVE_FEW) {
		memmove(dst, src, (size_t)n * sizeof *dst);
		return;
	}
	for (int i = n - 1; i >= 0; i--)
		dst[i] = src[i];
}

/* Adds [lo, hi) to the union: the runs it overlaps or touches become one. */
static long
runs_add(struct runs *r, int64_t lo, int64_t hi)
{
	int a = first_reaching(r->v, r->n, lo), b = a;

	while (b < r->n && r->v[b].lo <= hi)
		b++;
	if (a < b) {
		lo = r->v[a].lo < lo ? r->v[a].lo : lo;
		hi = r->v[b - 1].hi > hi ? r->v[b - 1].hi : hi;
		if (b > a + 1)
			move_down(r->v + a + 1, r->v + b, r->n - b);
		r->n -= b - a - 1;
	} else {
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 4;
			r->v = pack_xrealloc(r->v,
					     (size_t)r->cap * sizeof *r->v);
		}
		move_up(r->v + a + 1, r->v + a, r->n - a);
		r->n++;
	}
	r->v[a].lo = lo;
	r->v[a].hi = hi;
	return 8 + (b - a) + (r->n - a) / 4;	/* mostly cache misses */
}

/* Box j placed at off: filed in "cover" under the nodes that tile the
 * ranks [lo[j] + 1, hi[j]) (where it is live, having started earlier),
 * and in "below" under the wide ancestors of its own rank. */
void
pk_gaps_place(struct gaps *g, int j, int64_t off)
{
	int64_t top = off + g->size[j];
	struct runs *nd[96];	/* 2 per level in "cover", 1 in "below" */
	int c = 0;

	for (int l = g->lo[j] + 1 + g->leaves, r = g->hi[j] + g->leaves;
	     l < r; l /= 2, r /= 2) {
		if (l & 1)
			nd[c++] = &g->cover[l++];
		if (r & 1)
			nd[c++] = &g->cover[--r];
	}
	for (int v = (j + g->leaves) >> GAPS_SHIFT; v > 0; v /= 2)
		nd[c++] = &g->below[v];
	for (int i = 0; i < c; i++)
		__builtin_prefetch(nd[i]);
	for (int i = 0; i < c; i++)
		if (nd[i]->v)	/* an empty node may have no array yet */
			__builtin_prefetch(nd[i]->v + nd[i]->n / 2);
	for (int i = 0; i < c; i++)
		g->steps += runs_add(nd[i], off, top);
}

/* Appends r's runs to out[..c) as a list, unless there are none; returns
 * the new end. */
static int
append(struct gaps *g, struct span *out, int c, const struct runs *r)
{
	if (!r->n)	/* an empty node has no array yet */
		return c;
	memcpy(out + c, r->v, (size_t)r->n * sizeof *r->v);
	g->seg[g->nseg++] = c + r->n;
	return c + r->n;
}

/* Sorts out[a..c) by lo: a narrow node's few boxes. */
static void
sort_few(struct span *out, int a, int c)
{
	for (int i = a + 1; i < c; i++) {
		struct span t = out[i];
		int j = i;

		for (; j > a && out[j - 1].lo > t.lo; j--)
			out[j] = out[j - 1];
		out[j] = t;
	}
}

/* The runs of node v (2^h ranks wide) of "below", or, when it is narrow,
 * the spans of its placed boxes. */
static int
take(struct gaps *g, int v, int h, const int64_t *off, struct span *out,
     int c)
{
	int j = (v << h) - g->leaves, end = ((v + 1) << h) - g->leaves, a;

	if (h >= GAPS_SHIFT) {
		g->steps += 1 + 2L * g->below[v].n;
		return append(g, out, c, &g->below[v]);
	}
	g->steps += end - j;
	for (a = c; j < end; j++)
		if (off[j] >= 0) {
			out[c].lo = off[j];
			out[c++].hi = off[j] + g->size[j];
		}
	if (c > a) {
		sort_few(out, a, c);
		g->seg[g->nseg++] = c;
	}
	return c;
}

int
pk_gaps_query(struct gaps *g, int k, const int64_t *off, struct span *out)
{
	int c = 0;

	g->nseg = 0;
	for (int v = g->lo[k] + g->leaves; v > 0; v /= 2) {
		g->steps += 1 + 2L * g->cover[v].n;
		c = append(g, out, c, &g->cover[v]);
	}
	for (int l = g->lo[k] + g->leaves, r = g->hi[k] + g->leaves, h = 0;
	     l < r; l /= 2, r /= 2, h++) {
		if (l & 1)
			c = take(g, l++, h, off, out, c);
		if (r & 1)
			c = take(g, --r, h, off, out, c);
	}
	return c;
}

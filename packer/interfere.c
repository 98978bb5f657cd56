/* Interference without an all-pairs scan: a sweep over sorted intervals
 * builds the graph and its time sections; and the allocation helpers of
 * every file of the packer. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packer/pack.h"

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

/* A lower bound stronger than the peak of live bytes, where alignment makes
 * one cheap to prove.
 *
 * Let g be the greatest common divisor of the alignments of the boxes not
 * pinned: each of their offsets is a multiple of g.  Take the boxes not
 * pinned that are live at one time, in the order of their offsets in any
 * packing.  The next one starts at a multiple of g at or after the end of
 * this one, so at least roundup(size, g) after its offset; the last one
 * ends size after its own.  So the packing is at least the sum of
 * roundup(size, g) over them, less the largest roundup(size, g) - size
 * among them (the last box saves at most that).  Three boxes of 100 bytes
 * aligned to 256 need 612 bytes where their live bytes are 300.  The
 * bound is the larger of this and the peak, at every time; pinned boxes
 * count only in the peak.  O(n log n): a sweep with a heap of the slacks
 * of the live boxes, stale entries dropped when they reach the top. */
#include <stdlib.h>

#include "packer/pack_internal.h"

struct slack {
	int64_t v;
	int box;
};

struct heap {
	struct slack *a;
	int n;
};

static void
heap_push(struct heap *h, struct slack s)
{
	int i = h->n++;

	while (i > 0 && h->a[(i - 1) / 2].v < s.v) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = s;
}

static void
heap_pop(struct heap *h)
{
	struct slack last = h->a[--h->n];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1].v > h->a[c].v)
			c++;
		if (h->a[c].v <= last.v)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
}

int64_t
pack_aligned_bound(const struct boxes *bx)
{
	int64_t g = 0, cur = 0, rsum = 0, bound = 0;
	int *bys, *bye, e = 0;
	char *live;
	struct heap h;

	for (int i = 0; i < bx->n; i++)
		if (bx->b[i].pin < 0)
			g = gcd64(g, bx->b[i].align > 0 ? bx->b[i].align : 1);
	if (g <= 1)
		return pack_lower_bound(bx);
	bys = pk_sorted_by(bx->b, bx->n, 0);
	bye = pk_sorted_by(bx->b, bx->n, 1);
	live = pack_xmalloc((size_t)bx->n);
	h.a = pack_xmalloc((size_t)bx->n * sizeof *h.a);
	h.n = 0;
	for (int r = 0; r < bx->n; r++) {
		const struct box *x = &bx->b[bys[r]];

		while (e < bx->n && bx->b[bye[e]].end < x->start) {
			const struct box *y = &bx->b[bye[e]];

			cur -= y->size;
			if (y->pin < 0) {
				rsum -= align_up(y->size, g);
				live[bye[e]] = 0;
			}
			e++;
		}
		cur += x->size;
		if (x->pin < 0) {
			int64_t up = align_up(x->size, g);

			rsum += up;
			live[bys[r]] = 1;
			heap_push(&h, (struct slack){up - x->size, bys[r]});
		}
		while (h.n && !live[h.a[0].box])
			heap_pop(&h);
		bound = max64(bound, cur);
		if (h.n)
			bound = max64(bound, rsum - h.a[0].v);
	}
	free(bys);
	free(bye);
	free(live);
	free(h.a);
	return bound;
}

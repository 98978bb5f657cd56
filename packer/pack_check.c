/* An independent check of a packing (pack.h, pack_check): sweeps time with
 * the live boxes ordered by offset.  Of the packer it uses only the sort
 * and the allocation helpers, never its placements. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packer/pack.h"

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

static struct pack_kv *
order_boxes(const struct boxes *bx, int what)
{
	struct pack_kv *o = pack_xmalloc((size_t)bx->n * sizeof *o);

	for (int i = 0; i < bx->n; i++) {
		const struct box *x = &bx->b[i];

		o[i].key = what == 0 ? x->start
			 : what == 1 ? x->end : x->offset;
		o[i].i = i;
	}
	pack_sort_kv(o, bx->n);
	return o;
}

/* The live boxes, pairwise disjoint, as a set of offset ranks: a bitmap
 * with a bit per rank, and above it a bitmap with a bit per non-zero word
 * below, up to a single word, so that the next and previous member are a
 * few word operations away.  owner[rank] is the live box at that offset. */
enum { LIVE_LEVELS = 6 };	/* 64^6 ranks: more than an int counts */

struct live {
	int levels;
	uint64_t *w[LIVE_LEVELS];
	int nw[LIVE_LEVELS];	/* words at each level */
	int *owner;
};

static void
live_init(struct live *lv, int m)
{
	int words = m;

	memset(lv, 0, sizeof *lv);
	do {
		words = (words + 63) / 64;
		lv->nw[lv->levels] = words;
		lv->w[lv->levels++] = pack_xcalloc((size_t)words,
						   sizeof(uint64_t));
	} while (words > 1);
	lv->owner = pack_xmalloc(((size_t)m + 1) * sizeof *lv->owner);
}

static void
live_free(struct live *lv)
{
	for (int l = 0; l < lv->levels; l++)
		free(lv->w[l]);
	free(lv->owner);
}

static void
live_set(struct live *lv, int r)
{
	for (int l = 0; l < lv->levels; l++, r /= 64) {
		uint64_t was = lv->w[l][r / 64];

		lv->w[l][r / 64] = was | UINT64_C(1) << (r % 64);
		if (was)	/* the levels above know this word already */
			break;
	}
}

static void
live_clear(struct live *lv, int r)
{
	for (int l = 0; l < lv->levels; l++, r /= 64)
		if ((lv->w[l][r / 64] &= ~(UINT64_C(1) << (r % 64))) != 0)
			break;
}

/* The lowest member >= r, or -1. */
static int
live_next(const struct live *lv, int r)
{
	uint64_t m;
	int l = 0;

	for (;; l++) {
		if (l == lv->levels || r / 64 >= lv->nw[l])
			return -1;
		m = lv->w[l][r / 64] & (~UINT64_C(0) << (r % 64));
		if (m)
			break;
		r = r / 64 + 1;		/* the words after this one */
	}
	r = r / 64 * 64 + __builtin_ctzll(m);
	while (l-- > 0)
		r = r * 64 + __builtin_ctzll(lv->w[l][r]);
	return r;
}

/* The highest member < r, or -1. */
static int
live_prev(const struct live *lv, int r)
{
	uint64_t m;
	int l = 0;

	for (;; l++) {
		if (l == lv->levels)
			return -1;
		m = lv->w[l][r / 64] & ((UINT64_C(1) << (r % 64)) - 1);
		if (m)
			break;
		r /= 64;		/* the words before this one */
	}
	r = r / 64 * 64 + 63 - __builtin_clzll(m);
	while (l-- > 0)
		r = r * 64 + 63 - __builtin_clzll(lv->w[l][r]);
	return r;
}

/* rank[i]: box i's offset among the distinct offsets; returns how many. */
static int
offset_ranks(const struct boxes *bx, int *rank)
{
	struct pack_kv *o = order_boxes(bx, 2);
	int m = 0;

	for (int q = 0; q < bx->n; q++) {
		if (q > 0 && o[q].key != o[q - 1].key)
			m++;
		rank[o[q].i] = m;
	}
	free(o);
	return bx->n ? m + 1 : 0;
}

/* A live box that shares a byte with x (at rank r), or -1: live boxes are
 * disjoint, so only the next one up and the one below can. */
static int
live_clash(const struct live *lv, const struct box *b, const struct box *x,
	   int r)
{
	int up = live_next(lv, r), down = live_prev(lv, r);

	if (up >= 0 && b[lv->owner[up]].offset - x->offset < x->size)
		return lv->owner[up];
	if (down >= 0 && b[lv->owner[down]].offset +
			 b[lv->owner[down]].size > x->offset)
		return lv->owner[down];
	return -1;
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

/* In start order: retire boxes that ended before each start, then the
 * newcomer may touch only its neighbours in offset order. */
static int
check_overlaps(const struct boxes *bx, char *err, size_t errlen)
{
	struct pack_kv *bys = order_boxes(bx, 0), *bye = order_boxes(bx, 1);
	int *rank = pack_xmalloc((size_t)bx->n * sizeof *rank + 1);
	struct live lv;
	int e = 0, bad = 0;

	live_init(&lv, offset_ranks(bx, rank));
	for (int q = 0; q < bx->n && !bad; q++) {
		int i = bys[q].i, j;
		const struct box *x = &bx->b[i];

		for (; e < bx->n && bye[e].key < x->start; e++)
			live_clear(&lv, rank[bye[e].i]);
		j = live_clash(&lv, bx->b, x, rank[i]);
		if (j >= 0) {
			clash_msg(&bx->b[j], x, err, errlen);
			bad = 1;
		}
		live_set(&lv, rank[i]);
		lv.owner[rank[i]] = i;
	}
	free(bys);
	free(bye);
	free(rank);
	live_free(&lv);
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

/* Unit tests of the allocator models of --allocators (allocators/alloc_*.c,
 * allocators/allocators.c): one rule each, on a sequence worked out by hand in
 * the comment above it; then every model on random sequences: the same
 * places twice, and no two live blocks sharing a byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "allocators/allocators.h"
#include "ir/ir.h"
#include "splitmix.h"

enum { KiB = 1 << 10, MiB = 1 << 20 };

/* Rows {size, start, end}: request i is allocated at step start and freed
 * after step end.  Every size here is > 0, so place[i] is request i's. */
static struct alloc_run
replay_rows(struct pool *pool, int kind, int n, const int64_t (*row)[3],
	    int64_t limit)
{
	struct alloc_req *req = pool_alloc(pool, sizeof *req * (size_t)n);
	struct alloc_run run;

	for (int i = 0; i < n; i++)
		req[i] = (struct alloc_req){row[i][0], (int32_t)row[i][1],
					    (int32_t)row[i][2], i};
	assert_int_equal(alloc_replay(pool, kind, req, n, limit, &run), 0);
	assert_int_equal(run.nplace, n);
	return run;
}

#define REPLAY(kind, rows, limit)                                            \
	replay_rows(pool, (kind), (int)(sizeof(rows) / sizeof *(rows)),      \
		    (rows), (limit))

/* ---- BFC ----------------------------------------------------------------- */

/* BinNumForSize: 256 << b .. (512 << b) - 1 is bin b; bin 20 holds the
 * rest. */
static void
bfc_bins(void **state)
{
	(void)state;
	assert_int_equal(bfc_bin(1), 0);
	assert_int_equal(bfc_bin(256), 0);
	assert_int_equal(bfc_bin(511), 0);
	assert_int_equal(bfc_bin(512), 1);
	assert_int_equal(bfc_bin(2047), 2);
	assert_int_equal(bfc_bin(2048), 3);
	assert_int_equal(bfc_bin((int64_t)256 << 20), 20);
	assert_int_equal(bfc_bin((int64_t)256 << 30), 20);
}

/* A split: 1000 bytes round to 1024 and take the front of the first 2 MiB
 * region, which splits (2 MiB >= 2 * 1024); the next, 300 bytes, rounds
 * to 512 and takes the remainder's front. */
static void
bfc_split(void **state)
{
	static const int64_t rows[][3] = {{1000, 0, 1}, {300, 1, 1}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_BFC_GROWTH, rows, -1);

	(void)state;
	assert_int_equal(r.place[0].at, 0);
	assert_int_equal(r.place[0].size, 1024);
	assert_int_equal(r.place[1].at, 1024);
	assert_int_equal(r.place[1].size, 512);
	assert_int_equal(r.peak_reserved, 2 * MiB);
	assert_int_equal(r.peak_allocated, 1024 + 512);
	pool_free(pool);
}

/* No split: A (1536) at 0, B (256) at 1536; A freed leaves a free chunk of
 * 1536 before B.  C asks 1024: that chunk is the best fit, and as
 * 1536 < 2 * 1024 and 512 < 128 MiB it is not split: C gets all 1536. */
static void
bfc_no_split(void **state)
{
	static const int64_t rows[][3] = {
		{1536, 0, 0}, {256, 0, 2}, {1024, 1, 1}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_BFC_GROWTH, rows, -1);

	(void)state;
	assert_int_equal(r.place[2].at, 0);
	assert_int_equal(r.place[2].size, 1536);
	assert_int_equal(r.peak_allocated, 1536 + 256);
	pool_free(pool);
}

/* The bin choice: free chunks of 4096 at 0 (bin 4) and of 2048 at 4352
 * (bin 3), kept apart by S1 and S2.  1024 (bin 2) searches bin 2, then
 * bin 3: the 2048 chunk, although the 4096 one is at a lower address. */
static void
bfc_bin_choice(void **state)
{
	static const int64_t rows[][3] = {
		{4096, 0, 0}, {256, 0, 3}, {2048, 0, 0}, {256, 0, 3},
		{1024, 1, 1}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_BFC_GROWTH, rows, -1);

	(void)state;
	assert_int_equal(r.place[2].at, 4352);
	assert_int_equal(r.place[4].at, 4352);
	assert_int_equal(r.place[4].size, 1024);
	pool_free(pool);
}

/* Coalescing: A, B, C at 0, 1024, 2048.  B is freed at step 0; at step 1
 * A merges with B's chunk after it, and C with the region's tail after it
 * and then with A+B before it: one free chunk, where D (3072) goes at 0. */
static void
bfc_coalesce(void **state)
{
	static const int64_t rows[][3] = {
		{1024, 0, 1}, {1024, 0, 0}, {1024, 0, 1}, {3072, 2, 2}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_BFC_GROWTH, rows, -1);

	(void)state;
	assert_int_equal(r.place[1].at, 1024);
	assert_int_equal(r.place[2].at, 2048);
	assert_int_equal(r.place[3].at, 0);
	assert_int_equal(r.peak_reserved, 2 * MiB);
	pool_free(pool);
}

/* Region growth: the first region is 2 MiB; X (1 MiB) splits it, and the
 * region size doubles to 4 MiB, as it did not have to grow.  Y (1.5 MiB)
 * finds no chunk: a region of 4 MiB at 2 MiB, and the size doubles to
 * 8 MiB.  Z (1 MiB) takes the 1 MiB left in the first region, the best
 * fit.  W (10 MiB) > 8 MiB: the size doubles to 16 MiB, a region at 6 MiB
 * that W holds whole (16 < 2 * 10 and 6 MiB < 128 MiB), and having grown
 * it does not double again: U (12 MiB) gets a region of 16 MiB, not 32. */
static void
bfc_growth_regions(void **state)
{
	static const int64_t rows[][3] = {
		{1 * MiB, 0, 4}, {3 * MiB / 2, 1, 4}, {1 * MiB, 2, 4},
		{10 * MiB, 3, 4}, {12 * MiB, 4, 4}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_BFC_GROWTH, rows, -1);

	(void)state;
	assert_int_equal(r.place[1].at, 2 * MiB);
	assert_int_equal(r.place[2].at, 1 * MiB);
	assert_int_equal(r.place[3].at, 6 * MiB);
	assert_int_equal(r.place[3].size, 16 * MiB);
	assert_int_equal(r.place[4].at, 22 * MiB);
	assert_int_equal(r.npiece, 4);
	assert_int_equal(r.piece[1].size, 4 * MiB);
	assert_int_equal(r.piece[2].size, 16 * MiB);
	assert_int_equal(r.piece[3].size, 16 * MiB);
	assert_int_equal(r.peak_reserved, 38 * MiB);
	pool_free(pool);
}

/* A growing BFC within a limit of 3 MiB: after the 2 MiB region only 1 MiB
 * is left, so Y (1.5 MiB) cannot be had: the capacity is exceeded. */
static void
bfc_growth_limit(void **state)
{
	static const int64_t rows[][3] = {{1 * MiB, 0, 4}, {3 * MiB / 2, 1, 4}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_BFC_GROWTH, rows, 3 * MiB);
	struct alloc_run ok = REPLAY(ALLOC_BFC_GROWTH, rows, 4 * MiB);

	(void)state;
	assert_int_equal(r.exceeded, 1);
	assert_int_equal(ok.exceeded, 0);
	pool_free(pool);
}

/* The preallocated region: the sequence of bfc_no_split has its
 * high-water address at 1792 in an unlimited region, but in a region of
 * 1792 A's chunk (1792 < 2 * 1536) is not split and B finds nothing; so
 * are regions of 2048, 2304 and 2816.  One of 3840 splits for A (and C
 * still goes at 0): the region BFC needs is 3840, not the high water. */
static void
bfc_region_search(void **state)
{
	static const int64_t rows[][3] = {
		{1536, 0, 0}, {256, 0, 2}, {1024, 1, 1}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_BFC, rows, -1);
	struct alloc_run small = REPLAY(ALLOC_BFC, rows, 2816);

	(void)state;
	assert_int_equal(r.region, 3840);
	assert_int_equal(r.peak_reserved, 3840);
	assert_int_equal(r.place[1].at, 1536);
	assert_int_equal(r.place[2].at, 0);
	assert_int_equal(small.exceeded, 1);
	pool_free(pool);
}

/* ---- PyTorch ------------------------------------------------------------- */

/* get_allocation_size: <= 1 MiB: 2 MiB; < 10 MiB: 20 MiB; else rounded up
 * to 2 MiB. */
static void
torch_segments(void **state)
{
	(void)state;
	assert_int_equal(torch_segment_size(512), 2 * MiB);
	assert_int_equal(torch_segment_size(1 * MiB), 2 * MiB);
	assert_int_equal(torch_segment_size(1 * MiB + 512), 20 * MiB);
	assert_int_equal(torch_segment_size(10 * MiB - 512), 20 * MiB);
	assert_int_equal(torch_segment_size(10 * MiB), 10 * MiB);
	assert_int_equal(torch_segment_size(11 * MiB), 12 * MiB);
}

/* The pools and split rules: A (100 bytes) rounds to 512, small pool: a
 * 2 MiB segment, split as 2 MiB - 512 >= 512.  B (1 MiB + 1) rounds to
 * 1 MiB + 512, large pool: a 20 MiB segment after it, split as the rest is
 * > 1 MiB.  C (23.5 MiB) fits no cached block: a segment of 24 MiB, not
 * split, as the 0.5 MiB left is not > 1 MiB: C holds all 24 MiB. */
static void
torch_pools_split(void **state)
{
	static const int64_t rows[][3] = {
		{100, 0, 1}, {MiB + 1, 0, 1}, {47 * MiB / 2, 0, 1}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_TORCH, rows, -1);

	(void)state;
	assert_int_equal(r.place[0].at, 0);
	assert_int_equal(r.place[0].size, 512);
	assert_int_equal(r.place[1].at, 2 * MiB);
	assert_int_equal(r.place[1].size, MiB + 512);
	assert_int_equal(r.place[2].at, 22 * MiB);
	assert_int_equal(r.place[2].size, 24 * MiB);
	assert_int_equal(r.peak_reserved, 46 * MiB);
	assert_int_equal(r.peak_allocated, 512 + MiB + 512 + 24 * MiB);
	pool_free(pool);
}

/* Segments never merge: A (2 MiB) splits a 20 MiB segment; B (19 MiB) does
 * not fit the 18 MiB left, so gets a segment of its own (20 MiB, not split:
 * 1 MiB is not > 1 MiB).  A freed merges with its 18 MiB: the first
 * segment is whole again, and C (3 MiB) goes at 0.  At step 2 both
 * segments are free and side by side, yet D (30 MiB) gets a third. */
static void
torch_no_cross_segment(void **state)
{
	static const int64_t rows[][3] = {
		{2 * MiB, 0, 0}, {19 * MiB, 0, 1}, {3 * MiB, 1, 1},
		{30 * MiB, 2, 2}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_TORCH, rows, 70 * MiB - 1);

	(void)state;
	assert_int_equal(r.place[1].at, 20 * MiB);
	assert_int_equal(r.place[1].size, 20 * MiB);
	assert_int_equal(r.place[2].at, 0);
	assert_int_equal(r.place[3].at, 40 * MiB);
	assert_int_equal(r.peak_reserved, 70 * MiB);
	assert_int_equal(r.exceeded, 1);
	pool_free(pool);
}

/* Expandable segments: A (3 MiB) maps one 20 MiB granule of the large
 * pool's segment and splits it.  B (30 MiB) fits no free block: the free
 * 17 MiB before the unmapped tail grows by one more granule (13 MiB asked,
 * 20 mapped) to 37 MiB, of which B takes the front.  Both freed, the 40
 * mapped MiB are one block: C (35 MiB) goes at 0, nothing more mapped. */
static void
torch_expandable_growth(void **state)
{
	static const int64_t rows[][3] = {
		{3 * MiB, 0, 0}, {30 * MiB, 0, 0}, {35 * MiB, 1, 1}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_TORCH_EXPANDABLE, rows, -1);

	(void)state;
	assert_int_equal(r.place[0].at, 0);
	assert_int_equal(r.place[1].at, 3 * MiB);
	assert_int_equal(r.place[1].size, 30 * MiB);
	assert_int_equal(r.place[2].at, 0);
	assert_int_equal(r.peak_reserved, 40 * MiB);
	pool_free(pool);
}

/* Best fit with expandable segments: free blocks of 2 MiB at 18 MiB (just
 * before the unmapped tail) and of 4 MiB at 0.  E (1.5 MiB) finds the
 * 2 MiB one first, but its expandable size (2 MiB + the unmapped room) is
 * more than the next block's (4 MiB): E goes at 0. */
static void
torch_expandable_best_fit(void **state)
{
	static const int64_t rows[][3] = {
		{4 * MiB, 0, 0}, {2 * MiB, 0, 2}, {12 * MiB, 0, 2},
		{2 * MiB, 0, 0}, {3 * MiB / 2, 1, 1}};
	struct pool *pool = pool_new();
	struct alloc_run r = REPLAY(ALLOC_TORCH_EXPANDABLE, rows, -1);
	struct alloc_run plain = REPLAY(ALLOC_TORCH, rows, -1);

	(void)state;
	assert_int_equal(r.place[3].at, 18 * MiB);
	assert_int_equal(r.place[4].at, 0);
	/* without expandable segments the plain best fit: at 18 MiB */
	assert_int_equal(plain.place[3].at, 18 * MiB);
	assert_int_equal(plain.place[4].at, 18 * MiB);
	pool_free(pool);
}

/* ---- first fit and best fit ---------------------------------------------- */

/* Holes of 4096 at 0 and 2048 at 4352: 1024 goes in the first by first
 * fit, in the second by best fit; no rounding (100 stays 100), and a hole
 * at the top goes back to it (F reuses 0 after E leaves). */
static void
heap_fits(void **state)
{
	static const int64_t rows[][3] = {
		{4096, 0, 0}, {256, 0, 3}, {2048, 0, 0}, {256, 0, 3},
		{1024, 1, 1}, {100, 4, 4}, {50, 5, 5}};
	struct pool *pool = pool_new();
	struct alloc_run ff = REPLAY(ALLOC_FIRST_FIT, rows, -1);
	struct alloc_run bf = REPLAY(ALLOC_BEST_FIT, rows, -1);

	(void)state;
	assert_int_equal(ff.place[4].at, 0);
	assert_int_equal(bf.place[4].at, 4352);
	assert_int_equal(ff.place[5].at, 0);
	assert_int_equal(ff.place[5].size, 100);
	assert_int_equal(ff.place[6].at, 0);
	assert_int_equal(ff.peak_reserved, 6656);
	assert_int_equal(bf.peak_reserved, 6656);
	pool_free(pool);
}

/* ---- every model on random sequences ------------------------------------- */

static struct alloc_req *
random_reqs(struct pool *pool, int n, uint64_t seed)
{
	struct alloc_req *req = pool_alloc(pool, sizeof *req * (size_t)n);

	for (int i = 0; i < n; i++) {
		int32_t s = (int32_t)(next_rand(&seed) % 200);
		int64_t big = next_rand(&seed) % 4 == 0;

		req[i].start = s;
		req[i].end = s + (int32_t)(next_rand(&seed) % 30);
		req[i].size = 1 + (int64_t)(next_rand(&seed) %
					    (uint64_t)(big ? 40 * MiB : 64 * KiB));
		req[i].buf = i;
	}
	return req;
}

/* No two blocks live at one step share a byte; allocated bytes never pass
 * reserved ones; the same sequence gives the same places. */
static void
check_model(struct pool *pool, int kind, const struct alloc_req *req, int n)
{
	struct alloc_run a, b;

	alloc_replay(pool, kind, req, n, -1, &a);
	alloc_replay(pool, kind, req, n, -1, &b);
	assert_int_equal(a.nplace, n);
	assert_int_equal(a.peak_reserved, b.peak_reserved);
	assert_true(a.peak_allocated <= a.peak_reserved);
	for (int i = 0; i < n; i++) {
		const struct alloc_place *p = &a.place[i];

		assert_int_equal(p->at, b.place[i].at);
		assert_true(p->size >= req[i].size);
		assert_true(p->at + p->size <= a.peak_reserved);
		for (int j = 0; j < i; j++) {
			const struct alloc_place *q = &a.place[j];

			if (req[i].start > req[j].end ||
			    req[j].start > req[i].end)
				continue;
			if (p->at < q->at + q->size && q->at < p->at + p->size)
				fail_msg("%s: requests %d and %d overlap",
					 alloc_name(kind), j, i);
		}
	}
}

static void
random_sequences(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct pool *pool = pool_new();
		struct alloc_req *req = random_reqs(pool, 400, seed);

		for (int k = 0; k < NALLOC; k++)
			check_model(pool, k, req, 400);
		pool_free(pool);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bfc_bins),
		cmocka_unit_test(bfc_split),
		cmocka_unit_test(bfc_no_split),
		cmocka_unit_test(bfc_bin_choice),
		cmocka_unit_test(bfc_coalesce),
		cmocka_unit_test(bfc_growth_regions),
		cmocka_unit_test(bfc_growth_limit),
		cmocka_unit_test(bfc_region_search),
		cmocka_unit_test(torch_segments),
		cmocka_unit_test(torch_pools_split),
		cmocka_unit_test(torch_no_cross_segment),
		cmocka_unit_test(torch_expandable_growth),
		cmocka_unit_test(torch_expandable_best_fit),
		cmocka_unit_test(heap_fits),
		cmocka_unit_test(random_sequences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

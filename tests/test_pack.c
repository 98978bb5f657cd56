/* Unit tests of the packer (packer/) and of the CSV reader and writer for
 * raw packing problems (packer/intervals.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "packer/intervals.h"
#include "packer/pack.h"
#include "packer/pack_internal.h"
#include "splitmix.h"

/* ---- helpers ------------------------------------------------------------- */

/* Boxes from rows of {start, end, size}, align 1, unpinned, id = index. */
static struct boxes
make_boxes(int n, const int64_t (*row)[3])
{
	struct boxes bx = { n, calloc((size_t)n + 1, sizeof(struct box)), 0,
			    0 };

	for (int i = 0; i < n; i++) {
		bx.b[i].start = row[i][0];
		bx.b[i].end = row[i][1];
		bx.b[i].size = row[i][2];
		bx.b[i].align = 1;
		bx.b[i].pin = -1;
		bx.b[i].id = i;
	}
	return bx;
}

static void
assert_valid(const struct boxes *bx)
{
	char err[256];

	if (pack_check(bx, err, sizeof err))
		fail_msg("%s", err);
}

static struct boxes
random_boxes(int n, int64_t horizon, int64_t maxsize, uint64_t seed)
{
	struct boxes bx = { n, calloc((size_t)n + 1, sizeof(struct box)), 0,
			    0 };

	for (int i = 0; i < n; i++) {
		struct box *b = &bx.b[i];

		b->start = (int64_t)(next_rand(&seed) % (uint64_t)horizon);
		b->end = b->start + (int64_t)(next_rand(&seed) %
					      (uint64_t)(horizon - b->start));
		b->size = 1 + (int64_t)(next_rand(&seed) % (uint64_t)maxsize);
		b->align = 1;
		b->pin = -1;
		b->id = i;
	}
	return bx;
}

/* The exact optimum by brute force: every order, each box at the top of
 * its placed neighbours, rounded up to its alignment (every packing
 * compacts down to one of these). */
static void
brute(const struct boxes *bx, int64_t *off, int *used, int k, int64_t h,
      int64_t *best)
{
	if (h >= *best)
		return;
	if (k == bx->n) {
		*best = h;
		return;
	}
	for (int i = 0; i < bx->n; i++) {
		const struct box *x = &bx->b[i];
		int64_t o = 0;

		if (used[i])
			continue;
		for (int j = 0; j < bx->n; j++) {
			const struct box *y = &bx->b[j];

			if (used[j] && y->start <= x->end &&
			    x->start <= y->end && off[j] + y->size > o)
				o = off[j] + y->size;
		}
		if (x->align > 1)
			o = (o + x->align - 1) / x->align * x->align;
		used[i] = 1;
		off[i] = o;
		brute(bx, off, used, k + 1, h > o + x->size ? h : o + x->size,
		      best);
		used[i] = 0;
	}
}

/* The optimum, or `upper` when nothing is lower. */
static int64_t
optimum(const struct boxes *bx, int64_t upper)
{
	int64_t off[16], best = upper;
	int used[16] = { 0 };

	brute(bx, off, used, 0, 0, &best);
	return best;
}

/* ---- lower bound --------------------------------------------------------- */

static void
test_lower_bound(void **state)
{
	static const int64_t touch[][3] = { { 0, 3, 5 }, { 3, 5, 7 } };
	static const int64_t apart[][3] = { { 0, 2, 5 }, { 3, 5, 7 } };
	static const int64_t peak[][3] = {
		{ 0, 9, 4 }, { 5, 9, 4 }, { 0, 4, 8 }, { 10, 12, 1 },
	};
	struct boxes a = make_boxes(2, touch), b = make_boxes(2, apart);
	struct boxes c = make_boxes(4, peak), e = { 0, NULL, 0, 0 };

	(void)state;
	assert_int_equal(pack_lower_bound(&a), 12);	/* closed: both at 3 */
	assert_int_equal(pack_lower_bound(&b), 7);
	assert_int_equal(pack_lower_bound(&c), 12);
	assert_int_equal(pack_lower_bound(&e), 0);
	free(a.b);
	free(b.b);
	free(c.b);
}

/* ---- packing ------------------------------------------------------------- */

static void
test_empty(void **state)
{
	struct boxes bx = { 0, NULL, 77, 77 };

	(void)state;
	pack(&bx, NULL);
	assert_int_equal(bx.height, 0);
	assert_int_equal(bx.lower, 0);
	assert_valid(&bx);
}

/* minimalloc's README example: optimal at its lower bound, 12. */
static void
test_minimalloc_example(void **state)
{
	static const int64_t row[][3] = {
		{ 0, 2, 4 }, { 3, 8, 4 }, { 0, 8, 4 }, { 9, 20, 4 },
		{ 0, 20, 4 },
	};
	struct boxes bx = make_boxes(5, row);

	(void)state;
	pack(&bx, NULL);
	assert_int_equal(bx.lower, 12);
	assert_int_equal(bx.height, 12);
	assert_valid(&bx);
	free(bx.b);
}

/* A long box of 4, a box of 8 before t=5 and one of 4 after: the 8 and
 * the second 4 must share bytes [4, 8) or [0, 4) over time. */
static void
test_hand_optimum(void **state)
{
	static const int64_t row[][3] = {
		{ 0, 9, 4 }, { 5, 9, 4 }, { 0, 4, 8 },
	};
	struct boxes bx = make_boxes(3, row);

	(void)state;
	pack(&bx, NULL);
	assert_int_equal(bx.height, 12);
	assert_int_equal(bx.b[2].offset, 0);	/* largest first, lowest */
	assert_int_equal(bx.b[0].offset, 8);
	assert_int_equal(bx.b[1].offset, 0);	/* best fit: the gap below */
	assert_valid(&bx);
	free(bx.b);
}

/* Best fit takes the smallest gap that holds the box, not the first:
 * pinned boxes leave gaps [10, 20) and [23, 25) below the top, 40. */
static void
test_best_fit_gap(void **state)
{
	static const int64_t row[][3] = {
		{ 0, 9, 10 }, { 0, 9, 3 }, { 0, 9, 15 }, { 0, 9, 2 },
	};
	static const int64_t pin[] = { 0, 20, 25, -1 };
	static const int64_t size[] = { 2, 5, 11 }, want[] = { 23, 10, 40 };
	struct boxes bx = make_boxes(4, row);

	(void)state;
	for (int i = 0; i < 4; i++)
		bx.b[i].pin = pin[i];
	for (int k = 0; k < 3; k++) {
		bx.b[3].size = size[k];
		pack(&bx, &(struct pack_opts){ .greedy_only = 1 });
		assert_int_equal(bx.b[3].offset, want[k]);
		assert_valid(&bx);
	}
	free(bx.b);
}

static void
test_pinned(void **state)
{
	static const int64_t row[][3] = { { 0, 5, 10 }, { 0, 5, 50 } };
	struct boxes bx = make_boxes(2, row);

	(void)state;
	bx.b[0].pin = 100;
	pack(&bx, NULL);
	assert_int_equal(bx.b[0].offset, 100);
	assert_int_equal(bx.b[1].offset, 0);	/* fits below the pin */
	assert_int_equal(bx.height, 110);
	assert_valid(&bx);
	bx.b[1].size = 150;			/* does not fit below */
	pack(&bx, NULL);
	assert_int_equal(bx.b[0].offset, 100);
	assert_int_equal(bx.b[1].offset, 110);
	assert_int_equal(bx.height, 260);
	assert_valid(&bx);
	free(bx.b);
}

static void
test_alignment(void **state)
{
	static const int64_t row[][3] = {
		{ 0, 1, 100 }, { 0, 1, 100 }, { 1, 2, 10 },
	};
	struct boxes bx = make_boxes(3, row);

	(void)state;
	for (int i = 0; i < 3; i++)
		bx.b[i].align = 256;
	pack(&bx, NULL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(bx.b[i].offset % 256, 0);
	assert_int_equal(bx.height, 256 + 256 + 10);
	assert_valid(&bx);
	free(bx.b);
}

/* Pieces of time that no interval crosses are packed apart. */
static void
test_pieces(void **state)
{
	static const int64_t row[][3] = {
		{ 0, 3, 8 }, { 2, 5, 8 }, { 6, 9, 16 }, { 10, 10, 1 },
	};
	struct boxes bx = make_boxes(4, row);
	struct pack_stats st;

	(void)state;
	pack(&bx, &(struct pack_opts){ .stats = &st });
	assert_int_equal(st.pieces, 3);
	assert_int_equal(bx.height, 16);
	assert_int_equal(bx.lower, 16);
	assert_valid(&bx);
	free(bx.b);
}

/* Against brute force on small random problems; some of them must need
 * the search (the greedy alone above the optimum). */
static void
test_optimal_small(void **state)
{
	int searched = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct boxes bx = random_boxes(3 + (int)(seed % 7), 12, 20,
					       seed);
		int64_t opt;

		pack(&bx, &(struct pack_opts){ .greedy_only = 1 });
		opt = optimum(&bx, bx.height);
		searched += bx.height > opt;
		pack(&bx, NULL);
		assert_valid(&bx);
		if (bx.height != opt)
			fail_msg("seed %d: height %lld, optimum %lld",
				 (int)seed, (long long)bx.height,
				 (long long)opt);
		free(bx.b);
	}
	assert_true(searched > 0);
}

/* pack_aligned_bound is a proof: never above the optimum (by brute force,
 * alignments honoured) on small random problems with mixed alignments,
 * never below the peak; and above the peak where alignment forces it:
 * three boxes of 100 bytes aligned to 256 need 612 bytes, not 300. */
static void
test_aligned_bound(void **state)
{
	static const int64_t aligns[] = {1, 2, 4, 8, 16};
	struct boxes three = random_boxes(3, 1, 1, 1);
	int above = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct boxes bx = random_boxes(3 + (int)(seed % 5), 10, 20,
					       seed);
		uint64_t r = seed * 7919;
		int64_t opt, bound;

		for (int i = 0; i < bx.n; i++)
			bx.b[i].align = aligns[next_rand(&r) % 5];
		bound = pack_aligned_bound(&bx);
		opt = optimum(&bx, INT64_MAX);
		if (bound > opt || bound < pack_lower_bound(&bx))
			fail_msg("seed %d: bound %lld, optimum %lld, peak %lld",
				 (int)seed, (long long)bound, (long long)opt,
				 (long long)pack_lower_bound(&bx));
		above += bound > pack_lower_bound(&bx);
		free(bx.b);
	}
	assert_true(above > 0);
	for (int i = 0; i < 3; i++) {
		three.b[i] = (struct box){.start = 0, .end = 9, .size = 100,
					  .align = 256, .pin = -1, .id = i};
	}
	assert_int_equal(pack_lower_bound(&three), 300);
	assert_int_equal(pack_aligned_bound(&three), 612);
	pack(&three, NULL);
	assert_int_equal(three.height, 612);
	/* A pinned box counts only in the peak. */
	three.b[0].pin = 0;
	three.b[0].align = 1;
	assert_int_equal(pack_aligned_bound(&three), 356);
	free(three.b);
}

/* Cuts the rectangle [t0, t1) x [o0, o1) into boxes by random guillotine
 * cuts (in time or in offset) down to at most `left` boxes: a perfect
 * packing, whose height and lower bound are both o1 - o0. */
static void
guillotine(struct boxes *bx, int64_t t0, int64_t t1, int64_t o0, int64_t o1,
	   int left, uint64_t *seed)
{
	uint64_t r = next_rand(seed);
	int in_time = r & 1, l;
	int64_t lo = in_time ? t0 : o0, hi = in_time ? t1 : o1, cut;

	if (left <= 1 || hi - lo < 2) {
		struct box *b = &bx->b[bx->n];

		*b = (struct box){ t0, t1 - 1, o1 - o0, 1, -1, 0, bx->n };
		bx->n++;
		return;
	}
	cut = lo + 1 + (int64_t)((r >> 32) % (uint64_t)(hi - lo - 1));
	l = 1 + (int)((r >> 8) % (uint64_t)(left - 1));
	if (in_time) {
		guillotine(bx, t0, cut, o0, o1, l, seed);
		guillotine(bx, cut, t1, o0, o1, left - l, seed);
	} else {
		guillotine(bx, t0, t1, o0, cut, l, seed);
		guillotine(bx, t0, t1, cut, o1, left - l, seed);
	}
}

/* Tight problems (no byte to spare anywhere) reach their bound.  Since
 * the greedy became a portfolio of twenty orders and fits, it packs every
 * one of these alone (and of 128 to 255 boxes too), so that the search's
 * pruning is tried against the optimum in test_optimal_small, where the
 * greedy still falls short. */
static void
test_perfect_packings(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct boxes bx = { 0, calloc(96, sizeof(struct box)), 0, 0 };
		uint64_t s = seed;

		guillotine(&bx, 0, 1000, 0, 4096, 48 + (int)(seed % 48), &s);
		pack(&bx, &(struct pack_opts){ .greedy_only = 1 });
		assert_int_equal(bx.lower, 4096);
		pack(&bx, NULL);
		assert_valid(&bx);
		if (bx.height != 4096)
			fail_msg("seed %d: %d boxes, height %lld, bound 4096",
				 (int)seed, bx.n, (long long)bx.height);
		free(bx.b);
	}
}

static void
test_deterministic(void **state)
{
	struct boxes a = random_boxes(3000, 2000, 1000, 42);
	struct boxes b = random_boxes(3000, 2000, 1000, 42);
	struct pack_opts o = { .effort = 20000000 };

	(void)state;
	pack(&a, &o);
	pack(&b, &o);
	assert_valid(&a);
	assert_int_equal(a.height, b.height);
	for (int i = 0; i < a.n; i++)
		assert_int_equal(a.b[i].offset, b.b[i].offset);
	free(a.b);
	free(b.b);
}

/* n boxes like a model's tensors: per of them start at each step and live
 * 1 to span steps; sizes 1 to 32, powers of two. */
static struct boxes
tensor_boxes(int n, int per, int span, uint64_t seed)
{
	struct boxes bx = { n, calloc((size_t)n + 1, sizeof(struct box)), 0,
			    0 };

	for (int i = 0; i < n; i++) {
		struct box *b = &bx.b[i];

		b->start = i / per;
		b->end = b->start + 1 +
			 (int64_t)(next_rand(&seed) % (uint64_t)span);
		b->size = (int64_t)1 << (next_rand(&seed) % 6);
		b->align = 1;
		b->pin = -1;
		b->id = i;
	}
	return bx;
}

/* One thread and two spare processors, which the portfolio takes as it
 * runs (another target's planner has left them): the plan and steps of a
 * (one thread, no spare), and both given back.  Returns the threads
 * taken. */
static int
same_with_spare(const struct boxes *a, const struct pack_stats *sa, int per,
		int span, uint64_t seed, int greedy)
{
	struct boxes b = tensor_boxes(600, per, span, seed);
	struct pack_spare spare;
	struct pack_stats sb;

	atomic_init(&spare.n, 2);
	pack(&b, &(struct pack_opts){ .effort = 5000000,
		.greedy_only = greedy, .threads = 1, .spare = &spare,
		.stats = &sb });
	assert_int_equal(a->height, b.height);
	assert_int_equal(sa->steps, sb.steps);
	for (int i = 0; i < a->n; i++)
		assert_int_equal(a->b[i].offset, b.b[i].offset);
	assert_int_equal(atomic_load(&spare.n), 2);
	free(b.b);
	return sb.taken;
}

/* The greedy portfolio on threads (pieces of 256 boxes and more): the
 * same plan and the same steps on 1, 2 and 5 threads, and on 1 with 2
 * spare (same_with_spare), though a pass as low
 * as the piece's peak stops the passes handed out after it, whichever
 * thread runs them (here some do); then the search from there, also the
 * same. */
static void
test_portfolio_threads(void **state)
{
	int at_bound = 0, taken = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		int per = seed % 2 ? 1 : 4, span = seed % 3 ? 40 : 10;
		struct boxes a = tensor_boxes(600, per, span, seed);
		struct pack_stats sa, sb;

		for (int greedy = 1; greedy >= 0; greedy--) {
			pack(&a, &(struct pack_opts){ .effort = 5000000,
				.greedy_only = greedy, .threads = 1,
				.stats = &sa });
			assert_valid(&a);
			at_bound += greedy && a.height == a.lower;
			for (int t = 2; t <= 5; t += 3) {
				struct boxes b = tensor_boxes(600, per, span,
							      seed);

				pack(&b, &(struct pack_opts){ .effort = 5000000,
					.greedy_only = greedy, .threads = t,
					.stats = &sb });
				assert_int_equal(a.height, b.height);
				assert_int_equal(sa.steps, sb.steps);
				for (int i = 0; i < a.n; i++)
					assert_int_equal(a.b[i].offset,
							 b.b[i].offset);
				free(b.b);
			}
			taken += same_with_spare(&a, &sa, per, span, seed,
						 greedy);
		}
		free(a.b);
	}
	assert_true(at_bound > 0);
	assert_true(taken > 0);
}

/* The search's restarts on threads: the same plan and steps on 1 and 3
 * threads.  Each batch of runs starts from one order of the sections'
 * boxes, the order its deciding run left; when a run started from what
 * the run before it on its own thread left, seed 11's search counted
 * 50,186,593 steps on one thread and 50,189,297 on three. */
static void
test_search_threads(void **state)
{
	static const uint64_t seeds[] = {11, 13, 14};

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct boxes a = random_boxes(300, 200, 50, seeds[k]);
		struct boxes b = random_boxes(300, 200, 50, seeds[k]);
		struct pack_stats sa, sb;

		pack(&a, &(struct pack_opts){ .effort = 50000000, .threads = 1,
			.stats = &sa });
		pack(&b, &(struct pack_opts){ .effort = 50000000, .threads = 3,
			.stats = &sb });
		assert_int_equal(sa.steps, sb.steps);
		assert_int_equal(a.height, b.height);
		for (int i = 0; i < a.n; i++)
			assert_int_equal(a.b[i].offset, b.b[i].offset);
		free(a.b);
		free(b.b);
	}
}

/* More effort never hurts here, and the search stops at the bound. */
static void
test_effort(void **state)
{
	struct boxes bx = random_boxes(300, 200, 50, 9);
	struct pack_stats st;
	int64_t greedy;

	(void)state;
	pack(&bx, &(struct pack_opts){ .greedy_only = 1, .stats = &st });
	greedy = bx.height;
	assert_int_equal(st.greedy, greedy);
	pack(&bx, &(struct pack_opts){ .effort = 50000000, .stats = &st });
	assert_true(bx.height <= greedy);
	assert_true(bx.height >= bx.lower);
	assert_true(st.steps <= 50000000L + 1000000L);
	assert_valid(&bx);
	free(bx.b);
}

/* a's boxes, then b's after them in time: one problem of two pieces. */
static struct boxes
two_pieces(const struct boxes *a, const struct boxes *b)
{
	struct boxes ab = { a->n + b->n,
			    calloc((size_t)(a->n + b->n) + 1,
				   sizeof(struct box)), 0, 0 };
	int64_t shift = 1;

	for (int i = 0; i < a->n; i++)
		shift = shift > a->b[i].end + 1 ? shift : a->b[i].end + 1;
	for (int i = 0; i < a->n; i++)
		ab.b[i] = a->b[i];
	for (int i = 0; i < b->n; i++) {
		ab.b[a->n + i] = b->b[i];
		ab.b[a->n + i].start += shift;
		ab.b[a->n + i].end += shift;
		ab.b[a->n + i].id = a->n + i;
	}
	return ab;
}

/* The budget follows the work: beside a different piece that can gain
 * no more, a piece gets what it gets alone (b is a mirrored in time: the
 * same peak, another problem to the packer, not a twin).  With half the
 * budget, a's plan differs: sharing the budget would fail this test. */
static void
test_budget_per_piece(void **state)
{
	enum { N = 100, EFFORT = 2000000 };
	struct boxes a = random_boxes(N, 200, 50, 9), b, ab, half;
	int64_t t = 0, ha, hb;
	int differ = 0;

	(void)state;
	b = random_boxes(N, 200, 50, 9);
	for (int i = 0; i < N; i++)
		t = t > a.b[i].end ? t : a.b[i].end;
	for (int i = 0; i < N; i++) {
		b.b[i].start = t - a.b[i].end;
		b.b[i].end = t - a.b[i].start;
	}
	ab = two_pieces(&a, &b);
	half = two_pieces(&a, &b);
	half.n = N;
	pack(&a, &(struct pack_opts){ .greedy_only = 1 });
	ha = a.height;
	pack(&b, &(struct pack_opts){ .greedy_only = 1 });
	hb = b.height;
	assert_true(ha >= hb);
	pack(&a, &(struct pack_opts){ .effort = EFFORT });
	pack(&half, &(struct pack_opts){ .effort = EFFORT / 2 });
	pack(&ab, &(struct pack_opts){ .effort = EFFORT });
	assert_valid(&ab);
	for (int i = 0; i < N; i++) {
		assert_int_equal(ab.b[i].offset, a.b[i].offset);
		differ |= half.b[i].offset != a.b[i].offset;
	}
	assert_true(differ);
	free(a.b);
	free(b.b);
	free(ab.b);
	free(half.b);
}

/* The arena is as high as its highest piece: a piece no higher than what
 * the search made of the higher ones is not searched, however far above
 * its own bound and the arena's lower bound it is (searching every piece
 * of a 10^6-box problem of 186 hard pieces took 90 s).  Piece b, a in
 * time reversed with sizes scaled down, is packed by the greedy above a's
 * bound but below what the search makes of a: it is not searched, and a's
 * plan is its plan alone. */
static void
test_search_highest_first(void **state)
{
	enum { N = 100, EFFORT = 2000000 };
	struct boxes a, raw, b = {0}, ab;
	struct pack_stats st = {0};
	uint64_t seed;
	int pct = 0;

	(void)state;
	/* The first seed that has such a b is 8 (at 97%): start there. */
	for (seed = 8; seed < 40 && !pct; seed++) {
		int64_t t = 0, peak;

		a = random_boxes(N, 200, 50, seed);
		raw = random_boxes(N, 200, 50, seed);
		b = random_boxes(N, 200, 50, seed);
		peak = pack_lower_bound(&a);
		for (int i = 0; i < N; i++)
			t = t > a.b[i].end ? t : a.b[i].end;
		pack(&a, &(struct pack_opts){ .effort = EFFORT });
		for (pct = 99; pct > 50; pct--) {
			for (int i = 0; i < N; i++) {
				b.b[i].start = t - raw.b[i].end;
				b.b[i].end = t - raw.b[i].start;
				b.b[i].size = (raw.b[i].size * pct + 99) / 100;
			}
			pack(&b, &(struct pack_opts){ .greedy_only = 1 });
			if (b.height > peak && b.height < a.height &&
			    b.height > pack_lower_bound(&b))
				break;	/* b: above a's bound, below a */
		}
		if (pct == 50) {
			pct = 0;
			free(a.b);
			free(raw.b);
			free(b.b);
		}
	}
	assert_true(pct > 0);
	ab = two_pieces(&raw, &b);
	pack(&ab, &(struct pack_opts){ .effort = EFFORT, .stats = &st });
	assert_valid(&ab);
	assert_int_equal(st.pieces, 2);
	assert_int_equal(st.searched, 1);
	assert_int_equal(ab.height, a.height);
	for (int i = 0; i < N; i++)
		assert_int_equal(ab.b[i].offset, a.b[i].offset);
	free(a.b);
	free(raw.b);
	free(b.b);
	free(ab.b);
}

/* ---- cutting huge pieces ------------------------------------------------- */

/* n boxes along a long time line, each short-lived, so that a piece this
 * large is cut into windows; every 1000th lives 20000 steps, across many
 * cuts.  Some sit at a pin, some need alignment 64. */
static struct boxes
long_chain(int n, uint64_t seed)
{
	struct boxes bx = { n, calloc((size_t)n + 1, sizeof(struct box)), 0,
			    0 };

	for (int i = 0; i < n; i++) {
		struct box *b = &bx.b[i];

		b->start = i / 4 + (int64_t)(next_rand(&seed) % 8);
		b->end = b->start + (int64_t)(next_rand(&seed) % 40);
		if (i % 1000 == 0)
			b->end = b->start + 20000;
		b->size = 1 + (int64_t)(next_rand(&seed) % 1000);
		b->align = i % 7 == 0 ? 64 : 1;
		b->pin = i % 5000 == 1 ? 1000000 + 1024 * (i / 5000 % 3) : -1;
		b->id = i;
	}
	return bx;
}

static void
test_cut_windows(void **state)
{
	int n = PK_CUT_MIN + PK_CUT_MIN / 2;
	struct boxes a = long_chain(n, 5), b = long_chain(n, 5);
	struct pack_stats st;
	int64_t top = 0;

	(void)state;
	pack(&a, &(struct pack_opts){ .effort = 20000000, .stats = &st });
	assert_int_equal(st.pieces, 1);
	assert_int_equal(st.cut, 1);
	assert_valid(&a);
	for (int i = 0; i < n; i++)
		if (a.b[i].pin >= 0)
			assert_int_equal(a.b[i].offset, a.b[i].pin);
	/* the pins stand apart (at 10^6 and up): the rest fits below
	 * their top, which is as low as any packing goes */
	for (int i = 0; i < n; i++)
		if (a.b[i].pin >= 0 && a.b[i].pin + a.b[i].size > top)
			top = a.b[i].pin + a.b[i].size;
	assert_int_equal(a.height, top);
	/* the same plan on one thread as on several */
	pack(&b, &(struct pack_opts){ .effort = 20000000, .threads = 1 });
	for (int i = 0; i < n; i++)
		assert_int_equal(a.b[i].offset, b.b[i].offset);
	pack(&b, &(struct pack_opts){ .effort = 20000000, .threads = 5 });
	for (int i = 0; i < n; i++)
		assert_int_equal(a.b[i].offset, b.b[i].offset);
	/* unpinned: windows stacked rather than side by side would be a
	 * multiple of the bound; best fit lands 1.11 above it here, uncut
	 * 1.12 */
	for (int i = 0; i < n; i++)
		b.b[i].pin = -1;
	pack(&b, &(struct pack_opts){ .effort = 20000000, .stats = &st });
	assert_int_equal(st.cut, 1);
	assert_valid(&b);
	assert_true(b.height <= b.lower + b.lower * 15 / 100);
	free(a.b);
	free(b.b);
}

/* Pins low down, where the crossing boxes would go first: they must
 * keep out of the pinned boxes' way in every window.  Some long-lived
 * boxes, crossing many cuts, are pinned too. */
static void
test_cut_low_pins(void **state)
{
	int n = PK_CUT_MIN + PK_CUT_MIN / 2;
	struct boxes bx = long_chain(n, 6);
	struct pack_stats st;

	(void)state;
	for (int i = 0; i < n; i++) {
		bx.b[i].pin = -1;
		if (i % 97 == 5) {	/* short-lived, pinned at 0 or 64 */
			bx.b[i].end = bx.b[i].start + 2;
			bx.b[i].pin = 64 * (i % 2);
			bx.b[i].size = 64;
		}
		if (i % 3000 == 0)	/* 27 live at a time, 32 slots */
			bx.b[i].pin = 4096 + 1024 * (i / 3000 % 32);
	}
	pack(&bx, &(struct pack_opts){ .effort = 20000000, .stats = &st });
	assert_int_equal(st.cut, 1);
	assert_valid(&bx);
	free(bx.b);
}

/* Cut pieces of several shapes: starts per step, lives short and long,
 * sizes, alignment 256 here and there, pins low (short-lived, two slots)
 * and high (a band of their own): every plan valid, every pin kept. */
static void
test_cut_random(void **state)
{
	(void)state;
	for (int t = 0; t < 3; t++) {
		uint64_t seed = 1000 + (uint64_t)t;
		int n = PK_CUT_MIN + 4000 + (int)(next_rand(&seed) % 8000);
		int rate = 1 + (int)(next_rand(&seed) % 8);
		int life = 1 + (int)(next_rand(&seed) % 200);
		int every = 50 + (int)(next_rand(&seed) % 5000);
		int longlife = 100 + (int)(next_rand(&seed) % 50000);
		int pins = 50 + (int)(next_rand(&seed) % 2000), npin = 0;
		int64_t maxsize = 1 + (int64_t)(next_rand(&seed) % 100000);
		struct boxes bx = { n, calloc((size_t)n + 1, sizeof(struct box)),
				    0, 0 };
		struct pack_stats st;

		for (int i = 0; i < n; i++) {
			struct box *b = &bx.b[i];

			b->start = i / rate + (int64_t)(next_rand(&seed) % 4);
			b->end = b->start + (int64_t)(next_rand(&seed) %
						      (uint64_t)life);
			if (i % every == 0)
				b->end = b->start + (int64_t)(next_rand(&seed) %
							      (uint64_t)longlife);
			b->size = 1 + (int64_t)(next_rand(&seed) %
						(uint64_t)maxsize);
			b->align = i % 7 == 0 ? 256 : 1;
			b->pin = -1;
			b->id = i;
			if (i % pins)
				continue;
			if (npin++ % 2) {	/* high, in a slot of its own */
				b->pin = ((int64_t)1 << 40) +
					 (int64_t)npin * 256 * 200000;
			} else {		/* low, for one step */
				b->pin = (npin / 2 % 2) * 256 * 1024;
				b->end = b->start;
				b->size = 1000;
			}
		}
		pack(&bx, &(struct pack_opts){ .effort = 20000000,
					       .greedy_only = t == 2,
					       .stats = &st });
		assert_int_equal(st.cut, 1);
		assert_valid(&bx);
		for (int i = 0; i < n; i++)
			if (bx.b[i].pin >= 0)
				assert_int_equal(bx.b[i].offset, bx.b[i].pin);
		free(bx.b);
	}
}

/* Long lives everywhere: any cut would cross most boxes, so none is
 * made.  (Equal sizes keep best fit quick here.) */
static void
test_cut_declined(void **state)
{
	int n = PK_CUT_MIN + 1000;
	struct boxes bx = { n, calloc((size_t)n + 1, sizeof(struct box)), 0,
			    0 };
	struct pack_stats st;

	(void)state;
	for (int i = 0; i < n; i++)
		bx.b[i] = (struct box){ .start = i, .end = i + 30000, .size = 8,
					.align = 1, .pin = -1, .id = i };
	pack(&bx, &(struct pack_opts){ .greedy_only = 1, .stats = &st });
	assert_int_equal(st.cut, 0);
	assert_int_equal(bx.height, bx.lower);
	assert_valid(&bx);
	free(bx.b);
}

/* ---- the check ----------------------------------------------------------- */

static void
test_check(void **state)
{
	static const int64_t row[][3] = {
		{ 0, 2, 4 }, { 3, 5, 4 }, { 3, 9, 4 },
	};
	struct boxes bx = make_boxes(3, row);
	char err[256];

	(void)state;
	bx.b[0].offset = 0;
	bx.b[1].offset = 0;
	bx.b[2].offset = 4;
	bx.height = 8;
	assert_int_equal(pack_check(&bx, err, sizeof err), 0);
	assert_string_equal(err, "");
	bx.b[2].offset = 2;
	assert_int_equal(pack_check(&bx, err, sizeof err), 1);
	assert_string_equal(err, "box 1 and box 2 overlap: both live at time "
			    "3, bytes [2, 4)");
	bx.b[2].offset = 5;
	assert_int_equal(pack_check(&bx, err, sizeof err), 1);
	assert_string_equal(err, "box 2: offset 5 + size 4 exceeds the "
			    "height 8");
	bx.b[2].offset = 4;
	bx.b[2].align = 8;
	assert_int_equal(pack_check(&bx, err, sizeof err), 1);
	assert_string_equal(err, "box 2: offset 4 is not a multiple of its "
			    "alignment 8");
	bx.b[2].align = 1;
	bx.b[0].pin = 4;
	assert_int_equal(pack_check(&bx, err, sizeof err), 1);
	assert_string_equal(err, "box 0: offset 0 differs from its pin 4");
	free(bx.b);
}

/* A sweep finds the overlap of a long box with one far along in time. */
/* Any two boxes live at one time that share a byte, by brute force. */
static int
brute_clash(const struct boxes *bx)
{
	for (int i = 0; i < bx->n; i++)
		for (int j = i + 1; j < bx->n; j++) {
			const struct box *a = &bx->b[i], *b = &bx->b[j];

			if (a->start <= b->end && b->start <= a->end &&
			    a->offset < b->offset + b->size &&
			    b->offset < a->offset + a->size)
				return 1;
		}
	return 0;
}

/* pack_check against brute force: packed plans, some with one box moved,
 * and offsets drawn at random from ranges wide and narrow. */
static void
test_check_random(void **state)
{
	uint64_t seed = 11;
	char err[256];
	int found[2] = { 0, 0 };

	(void)state;
	for (int t = 0; t < 400; t++) {
		int n = 2 + (int)(next_rand(&seed) % 300);
		struct boxes bx = random_boxes(n, 20 + t, 40, seed + (uint64_t)t);
		int64_t span = 1 + (int64_t)(next_rand(&seed) % (40u * (unsigned)n));
		int clash;

		if (t % 2) {	/* packed; every other time one box moved */
			pack(&bx, &(struct pack_opts){ .greedy_only = 1 });
			if (t % 4 == 3)
				bx.b[t % n].offset = (int64_t)(
					next_rand(&seed) % (uint64_t)bx.height);
		} else {
			for (int i = 0; i < n; i++)
				bx.b[i].offset = (int64_t)(next_rand(&seed) %
							   (uint64_t)span);
		}
		bx.height = 0;
		for (int i = 0; i < n; i++)
			if (bx.b[i].offset + bx.b[i].size > bx.height)
				bx.height = bx.b[i].offset + bx.b[i].size;
		clash = brute_clash(&bx);
		found[clash]++;
		assert_int_equal(pack_check(&bx, err, sizeof err), clash);
		free(bx.b);
	}
	assert_true(found[0] > 50 && found[1] > 50);	/* both seen */
}

/* Three levels of the live set (20000 offsets): a valid plan, then one
 * box moved at a time, checked against a scan of the others. */
static void
test_check_large(void **state)
{
	struct boxes bx = random_boxes(20000, 5000, 100, 21);
	uint64_t seed = 4;
	char err[256];

	(void)state;
	pack(&bx, &(struct pack_opts){ .greedy_only = 1 });
	assert_valid(&bx);
	for (int t = 0; t < 40; t++) {
		int k = (int)(next_rand(&seed) % (uint64_t)bx.n), clash = 0;
		struct box *x = &bx.b[k];
		int64_t was = x->offset;

		x->offset = (int64_t)(next_rand(&seed) %
				      (uint64_t)(bx.height - x->size + 1));
		for (int j = 0; j < bx.n; j++) {
			const struct box *y = &bx.b[j];

			clash |= j != k && y->start <= x->end &&
				 x->start <= y->end &&
				 y->offset < x->offset + x->size &&
				 x->offset < y->offset + y->size;
		}
		assert_int_equal(pack_check(&bx, err, sizeof err), clash);
		x->offset = was;
	}
	free(bx.b);
}

/* Two boxes live at once, 300000 offset ranks apart (the rest live at
 * other times): the live set is searched up three levels and down. */
static void
test_check_sparse(void **state)
{
	int n = 300002;
	struct boxes bx = { n, calloc((size_t)n + 1, sizeof(struct box)), 0,
			    0 };
	char err[256];

	(void)state;
	for (int i = 0; i < n - 2; i++)
		bx.b[i] = (struct box){ .start = 10 + i, .end = 10 + i,
					.size = 10, .align = 1, .pin = -1,
					.offset = 10 * (int64_t)i, .id = i };
	/* a big box low, a small one high inside it, both at times 0-5 */
	bx.b[n - 2] = (struct box){ .start = 0, .end = 5, .size = 4000000,
				    .align = 1, .pin = -1, .offset = 5,
				    .id = 900 };
	bx.b[n - 1] = (struct box){ .start = 0, .end = 5, .size = 10,
				    .align = 1, .pin = -1,
				    .offset = 10 * (int64_t)(n - 3),
				    .id = 901 };
	bx.height = 4000005;
	/* the small one comes second: its neighbour below is far down */
	assert_int_equal(pack_check(&bx, err, sizeof err), 1);
	assert_string_equal(err, "box 900 and box 901 overlap: both live at "
			    "time 0, bytes [2999990, 3000000)");
	/* the big one second: its neighbour above is far up */
	bx.b[n - 2].start = 1;
	assert_int_equal(pack_check(&bx, err, sizeof err), 1);
	assert_string_equal(err, "box 901 and box 900 overlap: both live at "
			    "time 1, bytes [2999990, 3000000)");
	/* apart, nothing clashes */
	bx.b[n - 2].size = 10;
	assert_int_equal(pack_check(&bx, err, sizeof err), 0);
	free(bx.b);
}

static void
test_check_far(void **state)
{
	struct boxes bx = random_boxes(2000, 1000, 100, 5);
	char err[256];

	(void)state;
	bx.b[7].start = 0;
	bx.b[7].end = 999;
	bx.b[7].id = 1007;
	pack(&bx, &(struct pack_opts){ .greedy_only = 1 });
	assert_valid(&bx);
	for (int i = 0; i < bx.n; i++)
		if (i != 7 && bx.b[i].start > 900) {
			bx.b[i].offset = bx.b[7].offset;
			bx.b[i].id = 5000;
			break;
		}
	assert_int_equal(pack_check(&bx, err, sizeof err), 1);
	assert_non_null(strstr(err, "box 1007 and box 5000 overlap"));
	free(bx.b);
}

/* ---- the CSV reader and writer ------------------------------------------- */

struct csv {
	struct pool *pool;
	struct diags ds;
	struct intervals iv;
	char msgs[2048];	/* "line:col: message\n" per error */
	int nerr;
};

static void
read_csv(struct csv *c, const char *text)
{
	size_t at = 0;

	memset(c, 0, sizeof *c);
	c->pool = pool_new();
	c->ds.pool = c->pool;
	c->ds.file = "t.csv";
	c->nerr = intervals_read(c->pool, text, strlen(text), &c->ds, &c->iv);
	assert_int_equal(c->nerr, c->ds.n);
	for (int i = 0; i < c->ds.n && at < sizeof c->msgs; i++)
		at += (size_t)snprintf(c->msgs + at, sizeof c->msgs - at,
				       "%d:%d: %s\n", c->ds.d[i].loc.line,
				       c->ds.d[i].loc.col, c->ds.d[i].msg);
}

static void
expect_errors(const char *text, const char *msgs)
{
	struct csv c;

	read_csv(&c, text);
	assert_string_equal(c.msgs, msgs);
	pool_free(c.pool);
}

static void
test_csv_read(void **state)
{
	struct csv c;

	(void)state;
	read_csv(&c, "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n");
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.iv.bx.n, 2);
	assert_string_equal(c.iv.ids[1], "b2");
	assert_int_equal(c.iv.bx.b[0].start, 0);
	assert_int_equal(c.iv.bx.b[0].end, 2);	/* [0, 3) is [0, 2] */
	assert_int_equal(c.iv.bx.b[1].size, 4);
	assert_int_equal(c.iv.bx.b[1].pin, -1);
	assert_int_equal(c.iv.bx.b[1].align, 1);
	assert_int_equal(c.iv.bx.b[1].id, 1);	/* not all ids are integers */
	pool_free(c.pool);

	read_csv(&c, "id,lower,upper,size\n7,0,3,4\n3,1,2,5\n");
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.iv.bx.b[0].id, 7);
	assert_int_equal(c.iv.bx.b[1].id, 3);
	pool_free(c.pool);
}

static void
test_csv_columns(void **state)
{
	struct csv c;

	(void)state;
	read_csv(&c, "size,id,upper,lower,offset,alignment\n8,x,10,0,16,8\n");
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.iv.has_align, 1);
	assert_int_equal(c.iv.bx.b[0].size, 8);
	assert_int_equal(c.iv.bx.b[0].end, 9);
	assert_int_equal(c.iv.bx.b[0].pin, 16);
	assert_int_equal(c.iv.bx.b[0].align, 8);
	pool_free(c.pool);

	/* an empty offset pins nothing */
	read_csv(&c, "id,lower,upper,size,offset\na,0,3,4,\nb,0,3,4, 8\n");
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.iv.bx.b[0].pin, -1);
	assert_int_equal(c.iv.bx.b[1].pin, 8);
	pool_free(c.pool);

	/* blanks around fields, CRLF, blank lines */
	read_csv(&c, "id, lower ,upper,size\r\n\r\n a ,0,3,4\r\n\n");
	assert_int_equal(c.nerr, 0);
	assert_int_equal(c.iv.bx.n, 1);
	assert_string_equal(c.iv.ids[0], "a");
	pool_free(c.pool);
}

static void
test_csv_header_errors(void **state)
{
	(void)state;
	expect_errors("", "1:1: expected a header line "
		      "'id,lower,upper,size'\n");
	expect_errors("id,lower,size\n", "1:1: the header lacks column "
		      "'upper'\n");
	expect_errors("id,lower,upper,size,gaps\n", "1:21: unknown column "
		      "'gaps'; expected id, lower, upper, size, alignment or "
		      "offset\n");
	expect_errors("id,lower,upper,size,size\n1,0,1,1\n",
		      "1:21: column 'size' appears twice\n");
}

static void
test_csv_row_errors(void **state)
{
	(void)state;
	expect_errors("id,lower,upper,size\n"
		      "a,0,x,4\n"
		      "b,0,3\n"
		      "c,0,3,4,5\n"
		      "d,5,5,1\n"
		      "e,0,3,-4\n"
		      "f,0,99999999999999999999,1\n"
		      "a,1,2,3\n"
		      ",1,2,3\n"
		      "g,1,2,0\n",
		      "2:5: expected an integer for upper, found 'x'\n"
		      "3:6: expected 4 fields, found 3\n"
		      "4:9: expected 4 fields, found 5\n"
		      "5:5: upper 5 must be greater than lower 5\n"
		      "6:7: size must be positive, found -4\n"
		      "7:5: upper 99999999999999999999 does not fit in 64 "
		      "bits\n"
		      "8:1: duplicate id 'a' (first on line 2)\n"
		      "9:1: empty id\n"
		      "10:7: size must be positive, found 0\n");
	expect_errors("id,lower,upper,size,alignment,offset\n"
		      "a,0,1,8,8,12\n"
		      "b,0,1,8,0,0\n"
		      "c,0,1,8,8,-8\n",
		      "2:11: offset 12 is not a multiple of alignment 8\n"
		      "3:9: alignment must be positive, found 0\n"
		      "4:11: offset must not be negative, found -8\n");
	expect_errors("id,lower,upper,size\n"
		      "a,0,1,9223372036854775807\n"
		      "b,0,1,1\n"
		      "c,0,1,1\n",
		      "3:7: the sizes add up to more than 2^63 - 1 bytes\n");
	expect_errors("id,lower,upper,size\n"
		      "a,-9223372036854775808,-9223372036854775807,1\n"
		      "b,0,9223372036854775808,1\n",
		      "3:5: upper 9223372036854775808 does not fit in 64 "
		      "bits\n");
}

static char *
write_csv(const struct intervals *iv)
{
	FILE *f = tmpfile();
	static char buf[4096];
	size_t n;

	assert_non_null(f);
	assert_int_equal(intervals_write(f, iv), 0);
	rewind(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void
test_csv_write(void **state)
{
	struct csv c;

	(void)state;
	read_csv(&c, "id,lower,upper,size\nb1,0,3,4\nb2,2,9,8\nb3,9,10,2\n");
	assert_int_equal(c.nerr, 0);
	pack(&c.iv.bx, NULL);
	assert_valid(&c.iv.bx);
	assert_string_equal(write_csv(&c.iv), "id,lower,upper,size,offset\n"
			    "b1,0,3,4,8\nb2,2,9,8,0\nb3,9,10,2,0\n");
	pool_free(c.pool);

	read_csv(&c, "id,lower,upper,size,alignment\nx,0,3,4,16\ny,1,2,4,16\n");
	pack(&c.iv.bx, NULL);
	assert_string_equal(write_csv(&c.iv), "id,lower,upper,size,alignment,"
			    "offset\nx,0,3,4,16,0\ny,1,2,4,16,16\n");
	pool_free(c.pool);
}

/* A solution read back pins every box; the check accepts it as it is. */
static void
test_csv_round_trip(void **state)
{
	struct csv c;
	char *out;

	(void)state;
	read_csv(&c, "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\n"
		 "b4,9,21,4\nb5,0,21,4\n");
	pack(&c.iv.bx, NULL);
	assert_int_equal(c.iv.bx.height, 12);
	out = malloc(strlen(write_csv(&c.iv)) + 1);
	strcpy(out, write_csv(&c.iv));
	pool_free(c.pool);
	read_csv(&c, out);
	assert_int_equal(c.nerr, 0);
	pack(&c.iv.bx, NULL);
	assert_int_equal(c.iv.bx.height, 12);
	assert_valid(&c.iv.bx);
	assert_string_equal(write_csv(&c.iv), out);
	free(out);
	pool_free(c.pool);
}

/* Spans sorted and merged where they overlap or touch: a union's normal
 * form.  Returns the new count. */
static int
normal_union(struct span *a, int n)
{
	int m = 0;

	for (int i = 1; i < n; i++)	/* insertion sort by lo */
		for (int j = i; j > 0 && a[j].lo < a[j - 1].lo; j--) {
			struct span t = a[j];

			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		if (m > 0 && a[i].lo <= a[m - 1].hi)
			a[m - 1].hi = a[i].hi > a[m - 1].hi ? a[i].hi
							    : a[m - 1].hi;
		else
			a[m++] = a[i];
	return m;
}

/* The gap structure's answer for a box is exactly the union of its placed
 * neighbours' spans, checked against all pairs while boxes are placed in
 * a random order at random (even overlapping) offsets. */
static void
gaps_against_pairs(int n, int64_t horizon, uint64_t seed)
{
	struct boxes bx = random_boxes(n, horizon, 50, seed);
	size_t m = (size_t)n;
	int64_t *start = malloc(m * sizeof *start);
	int64_t *end = malloc(m * sizeof *end);
	int64_t *size = malloc(m * sizeof *size);
	int64_t *off = malloc(m * sizeof *off);
	int *lo = malloc(m * sizeof *lo), *hi = malloc(m * sizeof *hi);
	struct span *got = malloc(m * sizeof *got);
	struct span *want = malloc(m * sizeof *want);
	struct gaps g;

	for (int i = 1; i < n; i++)	/* by start: ranks */
		for (int j = i; j > 0 && bx.b[j].start < bx.b[j - 1].start;
		     j--) {
			struct box t = bx.b[j];

			bx.b[j] = bx.b[j - 1];
			bx.b[j - 1] = t;
		}
	for (int k = 0; k < n; k++) {
		start[k] = bx.b[k].start;
		end[k] = bx.b[k].end;
		size[k] = bx.b[k].size;
		off[k] = -1;
	}
	for (int k = 0; k < n; k++) {
		lo[k] = k > 0 && start[k] == start[k - 1] ? lo[k - 1] : k;
		hi[k] = pk_upper_rank(start, n, end[k]);
	}
	pk_gaps_init(&g, n, lo, hi, size);
	for (int step = 0; step < n; step++) {
		int k = (int)(next_rand(&seed) % (uint64_t)n), ng, nw = 0;

		while (off[k] >= 0)
			k = (k + 1) % n;
		ng = normal_union(got, pk_gaps_query(&g, k, off, got));
		for (int j = 0; j < n; j++)
			if (off[j] >= 0 && start[j] <= end[k] &&
			    start[k] <= end[j])
				want[nw++] = (struct span){ off[j],
							    off[j] + size[j] };
		nw = normal_union(want, nw);
		assert_int_equal(ng, nw);
		for (int i = 0; i < nw; i++) {
			assert_int_equal(got[i].lo, want[i].lo);
			assert_int_equal(got[i].hi, want[i].hi);
		}
		off[k] = (int64_t)(next_rand(&seed) % 400);
		pk_gaps_place(&g, k, off[k]);
	}
	pk_gaps_free(&g);
	free(bx.b);
	free(start);
	free(end);
	free(size);
	free(off);
	free(lo);
	free(hi);
	free(got);
	free(want);
}

static void
test_gaps_exact(void **state)
{
	(void)state;
	gaps_against_pairs(1, 5, 1);
	gaps_against_pairs(40, 10, 2);	/* many equal starts */
	gaps_against_pairs(700, 300, 3);	/* wide nodes ("below") */
	gaps_against_pairs(700, 5000, 4);
}

/* ---- the greedy portfolio ------------------------------------------------ */

/* Keys of the orders the packer's portfolio must never be above, written
 * here apart from pack_greedy.c: fpedd/omnimalloc's seven (input order,
 * size, duration, area, conflict degree, degree times size, start) with
 * the tie-breaks the packer documents; larger keys first, then index. */
enum { NAIVE_ORDERS = 7 };

struct naive_key {
	int64_t k[2];
	int i;
};

static int
cmp_naive(const void *pa, const void *pb)
{
	const struct naive_key *a = pa, *b = pb;

	for (int j = 0; j < 2; j++)
		if (a->k[j] != b->k[j])
			return a->k[j] > b->k[j] ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static int
overlap(const struct box *a, const struct box *b)
{
	return a->start <= b->end && b->start <= a->end;
}

static int
cmp_span(const void *pa, const void *pb)
{
	const int64_t *a = pa, *b = pb;

	return (a[0] > b[0]) - (a[0] < b[0]);
}

/* The height of plain first fit (first 1) or best fit (the smallest gap
 * that holds the box, its lowest offset; else on top) in order `which`,
 * in quadratic time. */
static int64_t
naive_greedy(const struct boxes *bx, int which, int first)
{
	int n = bx->n;
	struct naive_key *key = calloc((size_t)n + 1, sizeof *key);
	int64_t *off = calloc((size_t)n + 1, sizeof *off);
	int64_t (*sp)[2] = calloc((size_t)n + 1, sizeof *sp);
	char *placed = calloc((size_t)n + 1, 1);
	int64_t h = 0;

	for (int i = 0; i < n; i++) {
		const struct box *b = &bx->b[i];
		int64_t dur = b->end - b->start + 1, deg = 0;

		for (int j = 0; j < n; j++)
			deg += j != i && overlap(b, &bx->b[j]);
		key[i].i = i;
		switch (which) {
		case 0: key[i].k[0] = -i; break;
		case 1: key[i].k[0] = b->size; key[i].k[1] = dur; break;
		case 2: key[i].k[0] = dur; key[i].k[1] = b->size; break;
		case 3: key[i].k[0] = b->size * dur; key[i].k[1] = b->size; break;
		case 4: key[i].k[0] = deg; key[i].k[1] = b->size; break;
		case 5: key[i].k[0] = (deg + 1) * b->size; key[i].k[1] = dur; break;
		default: key[i].k[0] = -b->start; key[i].k[1] = b->size; break;
		}
	}
	qsort(key, (size_t)n, sizeof *key, cmp_naive);
	for (int q = 0; q < n; q++) {
		int i = key[q].i, m = 0;
		int64_t cur = 0, best = -1, gap = INT64_MAX, size = bx->b[i].size;

		for (int j = 0; j < n; j++)
			if (placed[j] && overlap(&bx->b[i], &bx->b[j])) {
				sp[m][0] = off[j];
				sp[m++][1] = off[j] + bx->b[j].size;
			}
		qsort(sp, (size_t)m, sizeof *sp, cmp_span);
		for (int k = 0; k < m && !(first && best >= 0); k++) {
			if (sp[k][0] - cur >= size && sp[k][0] - cur < gap) {
				best = cur;
				gap = sp[k][0] - cur;
			}
			cur = cur > sp[k][1] ? cur : sp[k][1];
		}
		off[i] = best >= 0 ? best : cur;
		placed[i] = 1;
		h = h > off[i] + size ? h : off[i] + size;
	}
	free(key);
	free(off);
	free(sp);
	free(placed);
	return h;
}

/* On random problems, with no budget for search (greedy_only), the
 * packer is never above first fit or best fit in any of the seven
 * orders: it runs them all. */
static void
test_portfolio(void **state)
{
	(void)state;
	for (int t = 0; t < 60; t++) {
		uint64_t seed = 1000 + (uint64_t)t;
		int n = 20 + t * 3;
		struct boxes bx = random_boxes(n, 40 + t, 1 + 97 * (t % 5 + 1),
					       seed);
		int64_t least = INT64_MAX;

		for (int w = 0; w < NAIVE_ORDERS; w++)
			for (int first = 0; first < 2; first++) {
				int64_t h = naive_greedy(&bx, w, first);

				least = h < least ? h : least;
			}
		pack(&bx, &(struct pack_opts){ .effort = 1, .greedy_only = 1 });
		assert_valid(&bx);
		if (bx.height > least)
			fail_msg("problem %d: height %lld above a greedy's "
				 "%lld", t, (long long)bx.height,
				 (long long)least);
		free(bx.b);
	}
}

/* A problem made of copies of one, shifted in time, is packed as that
 * one: the same height, each copy's boxes at the same offsets. */
static void
test_twins(void **state)
{
	enum { N = 300, K = 5 };
	struct boxes one = random_boxes(N, 200, 1000, 77);
	struct boxes many = { N * K, calloc((size_t)N * K + 1,
					    sizeof(struct box)), 0, 0 };

	(void)state;
	for (int c = 0; c < K; c++)
		for (int i = 0; i < N; i++) {
			struct box *b = &many.b[c * N + i];

			*b = one.b[i];
			b->start += c * 1000;
			b->end += c * 1000;
			b->id = c * N + i;
		}
	pack(&one, NULL);
	pack(&many, NULL);
	assert_valid(&many);
	assert_int_equal(many.height, one.height);
	for (int c = 0; c < K; c++)
		for (int i = 0; i < N; i++)
			assert_int_equal(many.b[c * N + i].offset,
					 one.b[i].offset);
	free(one.b);
	free(many.b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lower_bound),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_minimalloc_example),
		cmocka_unit_test(test_hand_optimum),
		cmocka_unit_test(test_best_fit_gap),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_portfolio_threads),
		cmocka_unit_test(test_search_threads),
		cmocka_unit_test(test_cut_windows),
		cmocka_unit_test(test_cut_low_pins),
		cmocka_unit_test(test_cut_random),
		cmocka_unit_test(test_cut_declined),
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_portfolio),
		cmocka_unit_test(test_twins),
		cmocka_unit_test(test_optimal_small),
		cmocka_unit_test(test_aligned_bound),
		cmocka_unit_test(test_perfect_packings),
		cmocka_unit_test(test_gaps_exact),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_effort),
		cmocka_unit_test(test_budget_per_piece),
		cmocka_unit_test(test_search_highest_first),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_random),
		cmocka_unit_test(test_check_large),
		cmocka_unit_test(test_check_sparse),
		cmocka_unit_test(test_check_far),
		cmocka_unit_test(test_csv_read),
		cmocka_unit_test(test_csv_columns),
		cmocka_unit_test(test_csv_header_errors),
		cmocka_unit_test(test_csv_row_errors),
		cmocka_unit_test(test_csv_write),
		cmocka_unit_test(test_csv_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

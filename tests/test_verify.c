/* The plan verifier's overlap check (checker/verify.c, verify_layout) on
 * plans built by hand, and on random plans against the obvious check of
 * every pair.  Alignment 1; buffers are named b0, b1, ... by index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "checker/verify.h"
#include "splitmix.h"

enum { MAXBUF = 512, NTIME = 1000, ARENA = 1 << 20 };

static struct buffer bufs[MAXBUF];
static char names[MAXBUF][12];
static struct arena arenas[2] = {{0, ARENA, 0, 0, NULL},
				 {1, ARENA, 0, 0, NULL}};
static struct plan P;
static char err[256];

/* A plan of n buffers from rows of {space, start, end, offset, size}, all
 * in their space's arena (S(0) and S(1), ARENA bytes each). */
static void
make_plan(int n, const int64_t (*row)[5])
{
	memset(&P, 0, sizeof P);
	P.module = "test";
	P.align = 1;
	P.ntime = NTIME;
	P.nbuf = n;
	P.bufs = bufs;
	P.narena = 2;
	P.arenas = arenas;
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "b%d", i);
		bufs[i] = (struct buffer){
			.name = names[i],
			.space = (int)row[i][0],
			.start = (int32_t)row[i][1],
			.end = (int32_t)row[i][2],
			.offset = row[i][3],
			.bytes = row[i][4],
			.size = row[i][4],
			.slots = 1,
			.in_arena = 1,
		};
	}
}

static void
assert_passes(void)
{
	if (verify_layout(&P, err, sizeof err))
		fail_msg("%s", err);
}

static void
assert_fails(const char *msg)
{
	assert_int_equal(verify_layout(&P, err, sizeof err), 1);
	assert_string_equal(err, msg);
}

/* Do buffers x and y take a byte of one space at one time? */
static int
overlap(const struct buffer *x, const struct buffer *y)
{
	return x != y && x->in_arena && y->in_arena && x->size > 0 &&
	       y->size > 0 && x->space == y->space && x->start <= y->end &&
	       y->start <= x->end && x->offset < y->offset + y->size &&
	       y->offset < x->offset + x->size;
}

static int
any_overlap(void)
{
	for (int i = 0; i < P.nbuf; i++)
		for (int j = 0; j < i; j++)
			if (overlap(&bufs[i], &bufs[j]))
				return 1;
	return 0;
}

/* The verdict is the obvious check's, and a pair it names overlaps. */
static void
assert_agrees(void)
{
	int x, y, bad = verify_layout(&P, err, sizeof err);

	if (bad != any_overlap())
		fail_msg("verify_layout says %d (%s), every pair says %d",
			 bad, bad ? err : "", !bad);
	if (!bad)
		return;
	if (sscanf(err, "buffers 'b%d' and 'b%d' are live at once and "
		   "overlap", &x, &y) != 2)
		fail_msg("unexpected message: %s", err);
	assert_in_range(x, 0, P.nbuf - 1);
	assert_in_range(y, 0, P.nbuf - 1);
	if (!overlap(&bufs[x], &bufs[y]))
		fail_msg("%s, but they do not", err);
}

static void
test_valid(void **state)
{
	static const int64_t row[][5] = {
		{0, 0, 9, 0, 100},   {0, 0, 9, 100, 50}, {0, 10, 19, 0, 150},
		{1, 0, 19, 0, 64},   {1, 5, 6, 64, 64},  {0, 3, 4, 150, 10},
		{0, 20, 20, 0, 200}, {1, 20, 30, 0, 1},
	};

	(void)state;
	make_plan(8, row);
	assert_passes();
}

static void
test_overlap(void **state)
{
	static const int64_t row[][5] = {
		{0, 0, 9, 0, 100},
		{0, 5, 12, 50, 100},
	};

	(void)state;
	make_plan(2, row);
	assert_fails("buffers 'b0' and 'b1' are live at once and overlap");
}

/* One buffer inside another, whichever comes first; and a newcomer that
 * reaches over several live buffers. */
static void
test_containment(void **state)
{
	static const int64_t inside[][5] = {
		{0, 0, 9, 0, 1000},
		{0, 1, 2, 500, 10},
	};
	static const int64_t around[][5] = {
		{0, 0, 9, 500, 10},
		{0, 1, 2, 0, 1000},
	};
	static const int64_t across[][5] = {
		{0, 0, 9, 0, 10},
		{0, 0, 9, 20, 10},
		{0, 0, 9, 40, 10},
		{0, 1, 9, 12, 26},
	};

	(void)state;
	make_plan(2, inside);
	assert_fails("buffers 'b0' and 'b1' are live at once and overlap");
	make_plan(2, around);
	assert_fails("buffers 'b0' and 'b1' are live at once and overlap");
	make_plan(4, across);
	assert_fails("buffers 'b1' and 'b3' are live at once and overlap");
	bufs[3].offset = 15;	/* [15, 41): b1 and b2 */
	assert_agrees();
	bufs[3].offset = 10;	/* [10, 20): between b0 and b1 */
	bufs[3].size = bufs[3].bytes = 10;
	assert_passes();
}

/* The same bytes in two spaces, or at two times, are apart.  Buffers of
 * S(0) sort before those of S(1) whatever their offsets: a check that
 * ignored the space would see b0 and b1 as neighbours. */
static void
test_apart(void **state)
{
	static const int64_t spaces[][5] = {
		{0, 0, 9, 100, 100},
		{1, 0, 9, 0, 150},
		{1, 0, 9, 150, 100},
		{0, 0, 9, 0, 100},
	};
	static const int64_t times[][5] = {
		{0, 0, 4, 0, 100},
		{0, 5, 9, 0, 100},
		{0, 10, 10, 50, 10},
	};

	(void)state;
	make_plan(4, spaces);
	assert_passes();
	make_plan(3, times);
	assert_passes();
}

/* Intervals are closed: a buffer that ends at step t is live at t; byte
 * ranges are half open: [0, 100) and [100, 200) share nothing. */
static void
test_touching(void **state)
{
	static const int64_t in_time[][5] = {
		{0, 0, 5, 0, 100},
		{0, 5, 9, 50, 10},
	};
	static const int64_t in_bytes[][5] = {
		{0, 0, 9, 0, 100},
		{0, 0, 9, 100, 100},
		{0, 9, 9, 200, 1},
	};

	(void)state;
	make_plan(2, in_time);
	assert_fails("buffers 'b0' and 'b1' are live at once and overlap");
	make_plan(3, in_bytes);
	assert_passes();
}

/* Empty buffers and buffers kept out of the arena take no bytes. */
static void
test_skipped(void **state)
{
	static const int64_t row[][5] = {
		{0, 0, 9, 0, 100},
		{0, 0, 9, 50, 0},
		{0, 0, 9, 10, 20},
	};

	(void)state;
	make_plan(3, row);
	bufs[2].in_arena = 0;
	assert_passes();
	bufs[2].in_arena = 1;
	assert_fails("buffers 'b0' and 'b2' are live at once and overlap");
}

static int64_t
draw(uint64_t *s, int64_t n)
{
	return (int64_t)(next_rand(s) % (uint64_t)n);
}

/* n random buffers over `steps` steps and `height` bytes of two spaces;
 * some empty, some out of the arena. */
static void
random_plan(uint64_t *s, int n, int64_t steps, int64_t height,
	    int64_t life, int64_t size)
{
	static int64_t row[MAXBUF][5];

	for (int i = 0; i < n; i++) {
		row[i][0] = draw(s, 2);
		row[i][1] = draw(s, steps);
		row[i][2] = row[i][1] + draw(s, life);
		row[i][4] = draw(s, 10) ? 1 + draw(s, size) : 0;
		row[i][3] = draw(s, height);
	}
	make_plan(n, (const int64_t(*)[5])row);
	for (int i = 0; i < n; i++)
		bufs[i].in_arena = draw(s, 20) != 0;
}

/* Random plans of a few hundred buffers, from sparse to crowded (up to
 * all of them live at once), against every pair; then each made valid by
 * taking out of the arena every buffer that overlaps one kept before it,
 * and made invalid again by putting one of those back. */
static void
test_random(void **state)
{
	uint64_t s = 7;
	int raw[2] = {0, 0};	/* random plans that pass, that fail */

	(void)state;
	for (int trial = 0; trial < 400; trial++) {
		int n = 100 + (int)draw(&s, MAXBUF - 100), out = -1;
		int64_t steps = 1 + draw(&s, 200), life = 1 + draw(&s, 50);
		int64_t height = 64 << draw(&s, 14);

		random_plan(&s, n, steps, height, life, 1 << draw(&s, 10));
		assert_agrees();
		raw[any_overlap()]++;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < i && bufs[i].in_arena; j++)
				if (overlap(&bufs[i], &bufs[j])) {
					bufs[i].in_arena = 0;
					out = i;
				}
		assert_passes();
		if (out < 0)
			continue;
		bufs[out].in_arena = 1;
		assert_agrees();
		assert_true(any_overlap());
	}
	assert_true(raw[0] >= 50 && raw[1] >= 50);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_containment),
		cmocka_unit_test(test_apart),
		cmocka_unit_test(test_touching),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

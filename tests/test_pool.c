/* The pool (ir/pool.c): memory handed out is zeroed whatever the block it
 * comes from, and an emptied pool keeps one block and hands out its bytes
 * again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ir/ir.h"

static int
all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Small, shared-block, huge-block and own-block requests: all zeroed,
 * none overlapping the one before. */
static void
test_alloc_zeroed(void **state)
{
	static const size_t sizes[] = {1, 24, 4000, 70000, 300000, 3 << 20};
	struct pool *p = pool_new();
	unsigned char *prev = NULL;
	size_t prevn = 0;

	(void)state;
	for (int round = 0; round < 40; round++) {
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			size_t n = sizes[k];
			unsigned char *q = pool_alloc(p, n);

			assert_true(all_zero(q, n));
			assert_true(!prev || q >= prev + prevn ||
				    q + n <= prev);
			memset(q, 0xa5, n);
			prev = q, prevn = n;
		}
	}
	assert_true(pool_bytes(p) >= 40 * (1 + 24 + 4000 + 70000 + 300000 +
					   (3 << 20)));
	pool_free(p);
}

/* After pool_reset, the pool holds one block, the next request takes its
 * first bytes again, and they are zero though they were written. */
static void
test_reset_reuses(void **state)
{
	struct pool *p = pool_new();
	unsigned char *first, *again;
	size_t held;

	(void)state;
	pool_reset(p);		/* an empty pool: nothing to keep */
	assert_int_equal(pool_bytes(p), 0);
	for (int i = 0; i < 200; i++)
		memset(pool_alloc(p, 50000), 0xff, 50000);
	first = pool_alloc(p, 1000);
	memset(first, 0xff, 1000);
	held = pool_bytes(p);
	pool_reset(p);
	assert_true(pool_bytes(p) < held);
	assert_true(pool_bytes(p) > 0);
	again = pool_alloc(p, 1000);
	assert_true(all_zero(again, 1000));
	/* The kept block is the newest: what was handed out last sits in
	 * it, so the first request after the reset lands at or before it. */
	assert_true(again <= first);
	assert_true(first - again < (ptrdiff_t)(2 << 20));
	for (int i = 0; i < 100; i++) {
		unsigned char *q = pool_alloc(p, 30000);

		assert_true(all_zero(q, 30000));
		memset(q, 0x11, 30000);
	}
	pool_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_zeroed),
		cmocka_unit_test(test_reset_reuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

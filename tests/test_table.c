/* Unit tests of the one hash table (ir/table.c): strings, 64-bit keys and
 * the caller's keys, through growth; a lookup never stores, an add stores
 * once and keeps the first value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ir/pool.h"
#include "ir/table.h"

enum { N = 5000 };

static void
test_strings(void **state)
{
	struct pool *pool = pool_new();
	struct table t;
	char *name[N];

	(void)state;
	table_init(&t, pool, 4);	/* grows many times */
	for (int i = 0; i < N; i++) {
		name[i] = pool_printf(pool, "%%fusion.%d", i);
		assert_int_equal(table_str(&t, name[i], strlen(name[i]), -1),
				 -1);
		assert_int_equal(table_str(&t, name[i], strlen(name[i]), i),
				 -1);
	}
	for (int i = 0; i < N; i++)
		assert_int_equal(table_str(&t, name[i], strlen(name[i]), 7), i);
	/* A prefix, and a slice of a longer text, are keys of their own. */
	assert_int_equal(table_str(&t, "%fusion.1", 8, -1), -1);
	assert_int_equal(table_str(&t, "%fusion.12xyz", 10, -1), 12);
	assert_int_equal(t.n, N);
	pool_free(pool);
}

static void
test_u64(void **state)
{
	struct table t;

	(void)state;
	table_init(&t, NULL, 0);
	for (int i = 0; i < N; i++)	/* keys alike in their low bits */
		assert_int_equal(table_u64(&t, (uint64_t)i << 40, i), -1);
	for (int i = 0; i < N; i++)
		assert_int_equal(table_u64(&t, (uint64_t)i << 40, -1), i);
	assert_int_equal(table_u64(&t, 1, -1), -1);
	assert_int_equal(table_u64(&t, 0, 3), 0);
	table_free(&t);
}

/* The caller's keys: every value's key is its value mod 10, all under
 * one hash, so that same() alone tells them apart. */
static int
same_mod(const void *ctx, int v)
{
	return v % 10 == *(const int *)ctx;
}

static void
test_key(void **state)
{
	struct table t;

	(void)state;
	table_init(&t, NULL, 2);
	for (int i = 0; i < 100; i++) {
		int key = i % 10;

		assert_int_equal(table_key(&t, 42, same_mod, &key, i),
				 i < 10 ? -1 : key);
	}
	assert_int_equal(t.n, 10);
	table_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* identity.c's interval map (the tags of byte ranges) against a byte
 * array: random writes, erases and moves, every byte compared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/oracle/identity.h"

static void
map_agrees(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++)
		assert_int_equal(identity_map_selftest(seed, 400), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(map_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Limits of the frontend that a file cannot easily show: the input size cap
 * (checked before a byte is read), and tuple depth right at the limit. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/frontend.h"

struct fx {
	struct pool *pool;
	struct diags ds;
	struct hlofile *f;
};

static void
parse(struct fx *x, const char *text, size_t len)
{
	x->pool = pool_new();
	memset(&x->ds, 0, sizeof x->ds);
	x->ds.pool = x->pool;
	x->ds.file = "t.hlo";
	x->f = frontend_parse(x->pool, text, len, &x->ds);
}

/* A length over 1 GiB is refused before the text is touched: the one byte
 * here stands for a file that large. */
static void
test_input_too_large(void **state)
{
	static const char one[1] = {'H'};
	struct fx x;

	(void)state;
	parse(&x, one, (size_t)1 << 30);
	assert_int_equal(x.ds.n, 1);
	assert_int_equal(x.ds.d[0].loc.line, 0);
	assert_string_equal(x.ds.d[0].msg, "input larger than 1 GiB");
	assert_int_equal(x.f->nmod, 0);
	pool_free(x.pool);
}

/* A module whose parameter's shape nests `depth` tuples. */
static char *
nested(int depth)
{
	size_t n = (size_t)depth * 2 + 128;
	char *s = malloc(n), *p;

	assert_non_null(s);
	p = s + sprintf(s, "HloModule m\nENTRY e {\n  ROOT p = ");
	for (int i = 0; i < depth; i++)
		*p++ = '(';
	p += sprintf(p, "f32[2]");
	for (int i = 0; i < depth; i++)
		*p++ = ')';
	sprintf(p, " parameter(0)\n}\n");
	return s;
}

static void
test_tuple_depth(void **state)
{
	char *ok = nested(SHAPE_MAX_DEPTH), *deep = nested(SHAPE_MAX_DEPTH + 1);
	const struct shape *s;
	struct fx x;
	int depth = 0;

	(void)state;
	parse(&x, ok, strlen(ok));
	assert_int_equal(x.ds.n, 0);
	for (s = &x.f->mods[0].comps[0].instrs[0].shape; shape_is_tuple(s);
	     s = &s->elems[0])
		depth++;
	assert_int_equal(depth, SHAPE_MAX_DEPTH);
	pool_free(x.pool);

	parse(&x, deep, strlen(deep));
	assert_int_equal(x.ds.n, 1);
	assert_string_equal(x.ds.d[0].msg,
			    "tuple shapes nest more than 64 levels deep");
	assert_int_equal(x.ds.d[0].loc.col, 12);
	pool_free(x.pool);
	free(ok);
	free(deep);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input_too_large),
		cmocka_unit_test(test_tuple_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

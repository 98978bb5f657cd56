/* Unit tests of several programs in one arena (issue 41): the declaration
 * reader's messages, the joint plans of samples/joint/ (arrays at one
 * offset in every program, the arena between the lower bound and the
 * alternatives, the same bytes twice), and the joint checker, which must
 * refuse a program's buffer moved over an array it leaves alone and an
 * array bound away from its offset. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "checker/verify_joint.h"
#include "codegen/joint.h"
#include "driver_joint.h"

/* The first error joint_read gives text, or "" when none. */
static const char *
read_error(struct pool *pool, const char *text, int *line, int *col)
{
	struct diags ds = {.pool = pool, .file = "d.txt"};
	struct joint_decl d;

	if (!joint_read(pool, &ds, text, strlen(text), &d))
		return "";
	*line = ds.d[0].loc.line;
	*col = ds.d[0].loc.col;
	return ds.d[0].msg;
}

static void
reader_messages(void **state)
{
	struct pool *pool = pool_new();
	int line = 0, col = 0;

	(void)state;
	assert_string_equal(read_error(pool, "program a a.hlo\nshared w a "
				       "param 0, a out{1}\ncalls a a\n", &line,
				       &col), "program 'a' named twice for "
			    "shared array 'w' (one use: 'param N out{I}' when "
			    "it reads and writes it)");
	assert_int_equal(line, 2);
	assert_int_equal(col, 21);
	assert_string_equal(read_error(pool, "# none\n", &line, &col),
			    "no program declared ('program NAME FILE')");
	assert_string_equal(read_error(pool, "program a a.hlo\nshared w a "
				       "param x\n", &line, &col),
			    "expected a number, found 'x'");
	assert_string_equal(read_error(pool, "program a a.hlo\nshared w a "
				       "out{1,\n", &line, &col),
			    "expected a number at the end of the line");
	assert_string_equal(read_error(pool, "program a a.hlo\nshared w a\n",
				       &line, &col), "expected 'param N' or "
			    "'out' at the end of the line");
	assert_string_equal(read_error(pool, "program a a.hlo  # c\nshared w "
				       "a param 0 out{1} # c\ncalls a\n", &line,
				       &col), "");
	pool_free(pool);
}

static void
plan_sample(struct joint_run *r, const char *name, int targets)
{
	char path[512];
	struct options o;
	struct joint_opts jo = {targets, NULL, 0};

	snprintf(path, sizeof path, "%s/samples/joint/%s", HLOPLAN_SOURCE_DIR,
		 name);
	options_default(&o);
	memset(r, 0, sizeof *r);
	plan_programs(r, path, &o, &jo);
	if (r->status)
		joint_print_diags(r, stderr);
	assert_int_equal(r->status, 0);
}

/* Each array at one offset in every program that binds it. */
static void
arrays_shared(void **state)
{
	static const char *const fam[] = {"llm.txt", "trainer.txt"};

	(void)state;
	for (int f = 0; f < 2; f++) {
		struct joint_run r;

		plan_sample(&r, fam[f], 3);
		for (int t = 0; t < r.nplan; t++) {
			const struct joint_plan *jp = &r.jp[t];

			assert_true(jp->arena >= jp->lower);
			assert_true(jp->arena < jp->sum_alone);
			assert_true(jp->arena <= jp->persistent +
						  jp->max_own_alone);
			for (int a = 0; a < jp->narray; a++)
				for (int k = 0; k < jp->nprog; k++)
					if (jp->buf[k][a] >= 0)
						assert_int_equal(jp->plans[k]
							.bufs[jp->buf[k][a]]
							.offset, jp->offset[a]);
		}
		pool_free(r.pool);
	}
}

/* In prefill the KV cache holds nothing before prefill writes it: on the
 * GPU the joint arena is below the shared arrays plus the largest
 * temporaries' arena (ExecuTorch's layout), and at the lower bound. */
static void
llm_below_state_arena(void **state)
{
	struct joint_run r;

	(void)state;
	plan_sample(&r, "llm.txt", 1 << TARGET_GPU);
	assert_int_equal(r.jp[0].phase, 2);
	assert_true(r.jp[0].arena < r.jp[0].persistent +
				    r.jp[0].max_own_alone);
	assert_int_equal(r.jp[0].arena, r.jp[0].lower);
	pool_free(r.pool);
}

static char *
header_text(const struct joint_run *r, size_t *len)
{
	struct joint_out j = {&r->decl, r->jp, r->nplan, "HLOPLAN", "llm.txt",
			      0, {{0}}, {0}};
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	codegen_joint_header(f, &j);
	codegen_joint_json(f, &j);
	fclose(f);
	return buf;
}

static void
same_bytes_twice(void **state)
{
	struct joint_run r1, r2;
	size_t n1, n2;
	char *a, *b;

	(void)state;
	plan_sample(&r1, "llm.txt", 3);
	plan_sample(&r2, "llm.txt", 3);
	a = header_text(&r1, &n1);
	b = header_text(&r2, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(a, b, n1);
	assert_non_null(strstr(a, "#define HLOPLAN_JOINT_GPU_SHARED_KV_OFFSET"));
	free(a);
	free(b);
	pool_free(r1.pool);
	pool_free(r2.pool);
}

/* eval leaves m1 alone: one of its buffers over m1's bytes is refused. */
static void
checker_refuses_overlap(void **state)
{
	struct joint_run r;
	struct joint_plan *jp;
	char err[512];
	int m1 = 2, eval = 1, moved = 0;

	(void)state;
	plan_sample(&r, "trainer.txt", 1 << TARGET_GPU);
	jp = &r.jp[0];
	assert_string_equal(r.decl.arr[m1].name, "m1");
	assert_int_equal(verify_joint(&r.decl, jp, err, sizeof err), 0);
	for (int b = 0; b < jp->plans[eval].nbuf && !moved; b++) {
		struct buffer *x = &jp->plans[eval].bufs[b];

		if (x->in_arena && x->size && x->size <= jp->size[m1] &&
		    x->offset != jp->offset[0] && x->offset != jp->offset[1]) {
			x->offset = jp->offset[m1];
			moved = 1;
		}
	}
	assert_true(moved);
	assert_int_equal(verify_joint(&r.decl, jp, err, sizeof err), 1);
	assert_non_null(strstr(err, "lies over shared array 'm1'"));
	pool_free(r.pool);
}

/* decode binds the KV cache somewhere else (over wq): refused. */
static void
checker_refuses_offset(void **state)
{
	struct joint_run r;
	struct joint_plan *jp;
	char err[512];

	(void)state;
	plan_sample(&r, "llm.txt", 1 << TARGET_GPU);
	jp = &r.jp[0];
	jp->plans[1].bufs[jp->buf[1][4]].offset += jp->plans[1].align;
	assert_int_equal(verify_joint(&r.decl, jp, err, sizeof err), 1);
	assert_non_null(strstr(err, "program 'decode'"));
	pool_free(r.pool);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_messages),
		cmocka_unit_test(arrays_shared),
		cmocka_unit_test(llm_below_state_arena),
		cmocka_unit_test(same_bytes_twice),
		cmocka_unit_test(checker_refuses_overlap),
		cmocka_unit_test(checker_refuses_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

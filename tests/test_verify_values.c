/* The verifier by value (checker/verify_run.c) on small modules: each is
 * planned, then its plan is broken on purpose (a buffer moved over
 * another, a copy dropped, a slot changed) and verify_plan must refuse it
 * with a message that names the value, or accept it where the change is
 * one the runtime may make (an op in place over what it consumes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "checker/verify_internal.h"
#include "driver.h"
#include "frontend/frontend.h"

static struct {
	struct pool *pool;
	struct diags ds;
	struct module *m;
	struct options o;
	struct plan pl;
	char err[1024];
} F;

static int
setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof F);
	F.pool = pool_new();
	F.ds.pool = F.pool;
	F.ds.file = "test.hlo";
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	pool_free(F.pool);
	return 0;
}

/* Plans text for a target, without reuse (the tests move buffers by
 * hand); the plan verifies as made. */
static void
plan_on(int target, const char *text)
{
	struct hlofile *f = frontend_parse(F.pool, text, strlen(text), &F.ds);

	if (F.ds.n)
		diag_print(&F.ds, stderr);
	assert_int_equal(F.ds.n, 0);
	F.m = &f->mods[0];
	options_default(&F.o);
	F.o.target = target;
	F.o.reuse = 0;
	assert_int_equal(plan_module(F.pool, &F.ds, F.m, &F.o, NULL, &F.pl),
			 0);
}

static void
plan(const char *text)
{
	plan_on(TARGET_GPU, text);
}

static int
buf(const char *name)
{
	for (int b = 0; b < F.pl.nbuf; b++)
		if (!strcmp(F.pl.bufs[b].name, name))
			return b;
	fail_msg("no buffer '%s'", name);
	return -1;
}

/* Buffer `what` moves to bytes of its own past the end of its arena. */
static void
isolate(const char *what)
{
	struct buffer *b = &F.pl.bufs[buf(what)];

	for (int a = 0; a < F.pl.narena; a++)
		if (F.pl.arenas[a].space == b->space) {
			b->offset = F.pl.arenas[a].size;
			F.pl.arenas[a].size += b->size;
		}
}

/* Every position in buffer `what` goes to buffer `into`, as if the
 * planner had joined them. */
static void
rehome(const char *what, const char *into)
{
	int from = buf(what), to = buf(into);

	for (int k = 0; k < F.pl.npos; k++)
		if (F.pl.pos[k].buf == from)
			F.pl.pos[k].buf = to;
}

static void
assert_refused(const char *words)
{
	if (!verify_values(F.m, &F.o, &F.pl, F.err, sizeof F.err))
		fail_msg("verify accepted the plan");
	if (!strstr(F.err, words))
		fail_msg("'%s' is not in: %s", words, F.err);
}

static void
assert_accepted(void)
{
	if (verify_values(F.m, &F.o, &F.pl, F.err, sizeof F.err))
		fail_msg("verify refused the plan: %s", F.err);
}

static const char chain[] =
	"HloModule chain\n"
	"ENTRY main {\n"
	"  a = f32[64] parameter(0)\n"
	"  b = f32[64] negate(a)\n"
	"  c = f32[64] exponential(b)\n"
	"  d = f32[64] add(b, c)\n"
	"  ROOT r = (f32[64], f32[64]) tuple(c, d)\n"
	"}\n";

/* An elementwise op may write over the operand it consumes, at its
 * place; not over one that is read later. */
static void
test_in_place(void **state)
{
	(void)state;
	plan(chain);
	assert_accepted();
	isolate("b");
	rehome("d", "b");	/* d = add(b, c) over b: b dies there */
	assert_accepted();
	plan(chain);
	rehome("c", "b");	/* c over b, which d reads after */
	assert_refused("'main/d' at step 3 (iteration 0) reads 'main/b'");
}

/* A dot reads every element of its operands while it writes: never in
 * place. */
static void
test_not_in_place(void **state)
{
	(void)state;
	plan("HloModule dot\n"
	     "ENTRY main {\n"
	     "  a = f32[16,16] parameter(0)\n"
	     "  b = f32[16,16] negate(a)\n"
	     "  ROOT d = f32[16,16] dot(b, b), lhs_contracting_dims={1}, "
	     "rhs_contracting_dims={0}\n"
	     "}\n");
	rehome("d", "b");
	assert_refused("writes its output over operand 0 ('b')");
}

/* A loop of four trips over (counter, array), and an entry that runs it
 * on parameter a. */
#define LOOP_COMPS                                                            \
	"cond {\n"                                                            \
	"  p = (s32[], f32[64]) parameter(0)\n"                               \
	"  i = s32[] get-tuple-element(p), index=0\n"                         \
	"  n = s32[] constant(4)\n"                                           \
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"                    \
	"}\n"                                                                 \
	"body {\n"                                                            \
	"  p = (s32[], f32[64]) parameter(0)\n"                               \
	"  i = s32[] get-tuple-element(p), index=0\n"                         \
	"  x = f32[64] get-tuple-element(p), index=1\n"                       \
	"  one = s32[] constant(1)\n"                                         \
	"  j = s32[] add(i, one)\n"                                           \
	"  y = f32[64] negate(x)\n"                                           \
	"  ROOT t = (s32[], f32[64]) tuple(j, y)\n"                            \
	"}\n"

static const char loop[] =
	"HloModule loop\n" LOOP_COMPS
	"ENTRY main {\n"
	"  a = f32[64] parameter(0)\n"
	"  zero = s32[] constant(0)\n"
	"  init = (s32[], f32[64]) tuple(zero, a)\n"
	"  w = (s32[], f32[64]) while(init), condition=cond, body=body\n"
	"  ROOT x = f32[64] get-tuple-element(w), index=1\n"
	"}\n";

/* The constant counter is copied into the loop's state: without the
 * copy, the loop reads bytes never written. */
static void
test_dropped_copy(void **state)
{
	(void)state;
	plan(loop);
	assert_accepted();
	assert_true(F.pl.ncopy > 0);
	F.pl.ncopy = 0;
	assert_refused("nothing written yet");
}

/* A value made before a loop and read after it may not share bytes with
 * anything the loop writes, even on the trip that never comes. */
static void
test_clobbered_by_loop(void **state)
{
	(void)state;
	/* (scheduled: k stays before the loop, which the memory-aware
	   order would move it after now that a survives the call) */
	plan("HloModule after, is_scheduled=true\n" LOOP_COMPS
	     "ENTRY main {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  k = f32[64] exponential(a)\n"
	     "  zero = s32[] constant(0)\n"
	     "  init = (s32[], f32[64]) tuple(zero, a)\n"
	     "  w = (s32[], f32[64]) while(init), condition=cond, body=body\n"
	     "  x = f32[64] get-tuple-element(w), index=1\n"
	     "  ROOT s = f32[64] add(x, k)\n"
	     "}\n");
	assert_accepted();
	isolate("lt");
	rehome("k", "lt");	/* where the loop's predicate is */
	assert_refused("written in the loop");
}

/* A ROOT element stays intact to the end of its computation: a body that
 * overwrites the state element it passes on is refused in its first
 * iteration. */
static void
test_root_to_the_end(void **state)
{
	(void)state;
	plan("HloModule pass, is_scheduled=true\n"
	     "cond {\n"
	     "  p = (s32[], f32[64], f32[64]) parameter(0)\n"
	     "  i = s32[] get-tuple-element(p), index=0\n"
	     "  n = s32[] constant(4)\n"
	     "  ROOT lt = pred[] compare(i, n), direction=LT\n"
	     "}\n"
	     "body {\n"
	     "  p = (s32[], f32[64], f32[64]) parameter(0)\n"
	     "  i = s32[] get-tuple-element(p), index=0\n"
	     "  x = f32[64] get-tuple-element(p), index=1\n"
	     "  one = s32[] constant(1)\n"
	     "  j = s32[] add(i, one)\n"
	     "  y = f32[64] negate(x)\n"
	     "  z = f32[64] exponential(y)\n"
	     "  ROOT t = (s32[], f32[64], f32[64]) tuple(j, x, z)\n"
	     "}\n"
	     "ENTRY main {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  zero = s32[] constant(0)\n"
	     "  init = (s32[], f32[64], f32[64]) tuple(zero, a, a)\n"
	     "  w = (s32[], f32[64], f32[64]) while(init), condition=cond, "
	     "body=body\n"
	     "  ROOT r = f32[64] get-tuple-element(w), index=2\n"
	     "}\n");
	assert_accepted();
	rehome("y", "a");	/* y over x, the state element passed on */
	assert_refused("the end of 'body' (its ROOT) at step");
}

/* Each branch leaves the conditional's result where the plan keeps it;
 * a branch that leaves it elsewhere is refused (the other branch alone
 * would pass). */
static void
test_branch_result(void **state)
{
	const char *text =
		"HloModule cond\n"
		"yes {\n"
		"  p = f32[64] parameter(0)\n"
		"  ROOT n = f32[64] negate(p)\n"
		"}\n"
		"no {\n"
		"  q = f32[64] parameter(0)\n"
		"  ROOT e = f32[64] exponential(q)\n"
		"}\n"
		"ENTRY main {\n"
		"  c = pred[] parameter(0)\n"
		"  a = f32[64] parameter(1)\n"
		"  ROOT r = f32[64] conditional(c, a, a), "
		"true_computation=yes, false_computation=no\n"
		"}\n";

	(void)state;
	plan(text);
	assert_accepted();
	for (int k = 0; k < F.pl.npos; k++)	/* 'e' in a's buffer */
		if (!strcmp(F.pl.pos[k].name, "e"))
			F.pl.pos[k].buf = buf("a");
	assert_refused("'main/r'");
}

/* An asynchronous copy's source must stay intact until its done. */
static void
test_async_operand(void **state)
{
	(void)state;
	plan("HloModule async, is_scheduled=true\n"
	     "ENTRY main {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] negate(a)\n"
	     "  s = (f32[64], f32[64], u32[]) copy-start(b)\n"
	     "  c = f32[64] exponential(a)\n"
	     "  d = f32[64] copy-done(s)\n"
	     "  ROOT r = f32[64] add(c, d)\n"
	     "}\n");
	assert_accepted();
	rehome("c", "b");
	assert_refused("'main/d' at step 4 (iteration 0) reads 'main/b'");
}

/* The entry's result is read after the last step: an output overwritten
 * by a later temporary is refused. */
static void
test_output_read_at_end(void **state)
{
	(void)state;
	plan(chain);
	rehome("d", "c");	/* d = add(b, c) in place over c: fine for
				   the add, but c is an output */
	assert_refused("the entry's result");
}

/* An entry parameter the module does not donate survives the call: a
 * temporary over it after its last read is refused, unless the runtime
 * lets its space be reused (--reuse-params); a donated one may be. */
static void
test_param_survives(void **state)
{
	const char *text = "HloModule keep, is_scheduled=true%s\n"
			   "ENTRY main {\n"
			   "  a = f32[64] parameter(0)\n"
			   "  b = f32[64] negate(a)\n"
			   "  c = f32[64] exponential(b)\n"
			   "  ROOT d = f32[64] sine(c)\n"
			   "}\n";
	char buf[512];

	(void)state;
	snprintf(buf, sizeof buf, text, "");
	plan(buf);
	rehome("c", "a");
	assert_refused("the caller after the call");
	F.o.reuse_params = 1;
	assert_accepted();
	snprintf(buf, sizeof buf, text,
		 ", input_output_alias={ {}: (0, {}, may-alias) }");
	plan(buf);
	rehome("c", "a");
	assert_accepted();
}

/* XLA's kernel contract: an all-gather writes into its start's element 1
 * and the done hands that on; a plan that gives the done bytes of its own
 * (which nothing would write) is refused. */
static void
test_done_writes_nothing(void **state)
{
	(void)state;
	plan("HloModule ag, is_scheduled=true\n"
	     "ENTRY main {\n"
	     "  a = f32[8] parameter(0)\n"
	     "  s = (f32[8], f32[16]) all-gather-start(a), dimensions={0}\n"
	     "  d = f32[16] all-gather-done(s)\n"
	     "  c = f32[16] exponential(d)\n"
	     "  ROOT r = f32[16] negate(c)\n"
	     "}\n");
	assert_accepted();
	for (int k = 0; k < F.pl.npos; k++)
		if (!strcmp(F.pl.pos[k].name, "d")) {
			assert_int_equal(F.pl.pos[k].defines, 0);
			assert_int_equal(F.pl.pos[k].buf, buf("s{1}"));
			F.pl.pos[k].defines = 1;
			F.pl.pos[k].buf = buf("r");
		}
	assert_refused("XLA's op writes nothing there");
}

/* A buffer with fewer bytes than XLA lays its value out in is refused
 * (verify's own sizes, checker/verify_size.c): an s4 array tiled without
 * E(4) takes a byte per element, a dynamic one its sizes too. */
static void
test_laid_out_bytes(void **state)
{
	(void)state;
	plan_on(TARGET_TPU, "HloModule s4\n"
		"ENTRY main {\n"
		"  a = s4[20,130]{1,0:T(8,128)(2,1)} parameter(0)\n"
		"  ROOT b = s4[20,130]{1,0:T(8,128)(2,1)} negate(a)\n"
		"}\n");
	assert_accepted();
	F.pl.bufs[buf("b")].size = 3072;
	assert_refused("needs 6144 bytes, more than the 3072");
	plan_on(TARGET_GPU, "HloModule dyn\n"
		"ENTRY main {\n"
		"  a = f32[<=64] parameter(0)\n"
		"  ROOT b = f32[<=64] negate(a)\n"
		"}\n");
	assert_accepted();
	F.pl.bufs[buf("b")].size = 256;
	assert_refused("needs 260 bytes, more than the 256");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_in_place, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dropped_copy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_clobbered_by_loop, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_root_to_the_end, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_branch_result, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_async_operand, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_param_survives, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_done_writes_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_laid_out_bytes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_output_read_at_end, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

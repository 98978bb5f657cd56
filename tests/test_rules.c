/* passes/rules.c, row by row of doc/semantics.md: for each kind of
 * opcode, which values it defines, which it forwards, and which operand
 * it must or may write its output over, checked on the plan of a small
 * module (the buffer each position lies in, and the copies). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "driver.h"
#include "frontend/frontend.h"

static struct {
	struct pool *pool;
	struct diags ds;
	struct plan pl;
} F;

/* Plans src for the GPU in text order, with the default options. */
static void
plan(const char *src)
{
	struct hlofile *f;
	struct options o;

	pool_free(F.pool);
	memset(&F, 0, sizeof F);
	F.pool = pool_new();
	F.ds.pool = F.pool;
	F.ds.file = "rules.hlo";
	F.ds.src = src;
	F.ds.srclen = strlen(src);
	f = frontend_parse(F.pool, src, strlen(src), &F.ds);
	if (F.ds.n)
		diag_print(&F.ds, stderr);
	assert_int_equal(F.ds.n, 0);
	options_default(&o);
	o.schedule = SCHED_TEXT;
	assert_int_equal(plan_module(F.pool, &F.ds, &f->mods[0], &o, NULL,
				     &F.pl), 0);
}

static const struct plan_pos *
pos(const char *name, int node)
{
	for (int k = 0; k < F.pl.npos; k++)
		if (!strcmp(F.pl.pos[k].name, name) &&
		    F.pl.pos[k].node == node)
			return &F.pl.pos[k];
	fail_msg("no position %s node %d", name, node);
	return NULL;
}

static int
same(const char *a, int na, const char *b, int nb)
{
	return pos(a, na)->buf == pos(b, nb)->buf;
}

static int
teardown(void **state)
{
	(void)state;
	pool_free(F.pool);
	memset(&F, 0, sizeof F);
	return 0;
}

/* Elementwise: defines its output; may take over an operand of its shape
 * and layout that dies there. */
static void
test_elementwise(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  c = f32[64] negate(b)\n"
	     "  ROOT d = f32[64] sine(c)\n"
	     "}\n");
	assert_true(pos("c", 0)->defines);
	assert_true(same("b", 0, "c", 0));
	assert_true(same("c", 0, "d", 0));
	assert_false(same("a", 0, "b", 0));	/* a survives the call */
}

/* copy: defines; never written over its operand. */
static void
test_copy(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  c = f32[64] copy(b)\n"
	     "  ROOT d = f32[64] sine(c)\n"
	     "}\n");
	assert_false(same("b", 0, "c", 0));
}

/* bitcast, opt-barrier, add-dependency, domain: forward operand 0. */
static void
test_forwards(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  c = f32[8,8] bitcast(b)\n"
	     "  t = token[] after-all()\n"
	     "  d = f32[8,8] add-dependency(c, t)\n"
	     "  ROOT r = f32[8,8] negate(d)\n"
	     "}\n");
	assert_false(pos("c", 0)->defines);
	assert_false(pos("d", 0)->defines);
	assert_true(same("b", 0, "c", 0) && same("b", 0, "d", 0));
}

/* tuple: defines its index table, forwards its elements;
 * get-tuple-element forwards one. */
static void
test_tuple(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  t = (f32[64], f32[64]) tuple(a, b)\n"
	     "  g = f32[64] get-tuple-element(t), index=1\n"
	     "  ROOT r = f32[64] negate(g)\n"
	     "}\n");
	assert_true(pos("t", 0)->defines);
	assert_false(pos("t", 2)->defines);
	assert_true(same("t", 2, "b", 0) && same("g", 0, "b", 0));
}

/* An entry parameter survives the call unless input_output_alias donates
 * it: never taken over, live to the end. */
static void
test_parameter(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true, input_output_alias={ {}: (1, "
	     "{}, may-alias) }\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] parameter(1)\n"
	     "  c = f32[64] add(a, b)\n"
	     "  ROOT d = f32[64] negate(c)\n"
	     "}\n");
	assert_int_equal(pos("a", 0)->survives, 1);
	assert_int_equal(pos("b", 0)->survives, 0);
	assert_true(same("b", 0, "d", 0));	/* donated to the output */
	assert_int_equal(F.pl.bufs[pos("a", 0)->buf].end, F.pl.ntime - 1);
}

/* constant: defines; out of the arena, never written. */
static void
test_constant(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  k = f32[4] constant({1, 2, 3, 4})\n"
	     "  ROOT n = f32[4] negate(k)\n"
	     "}\n");
	assert_false(F.pl.bufs[pos("k", 0)->buf].in_arena);
	assert_false(same("k", 0, "n", 0));
}

#define LOOP_COND                                                             \
	"cond {\n"                                                            \
	"  p = (s32[], f32[64], f32[64]) parameter(0)\n"                      \
	"  i = s32[] get-tuple-element(p), index=0\n"                         \
	"  n = s32[] constant(4)\n"                                           \
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"                    \
	"}\n"

/* while: one state per element (a phi); the body's result joins it; an
 * element the body passes on as it is is its init (no copy, even when the
 * init is read after the loop); a loop fusion over the state takes it
 * over in place. */
static void
test_while(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n" LOOP_COND
	     "add1 {\n"
	     "  x = f32[64] parameter(0)\n"
	     "  ROOT y = f32[64] negate(x)\n"
	     "}\n"
	     "body {\n"
	     "  p = (s32[], f32[64], f32[64]) parameter(0)\n"
	     "  i = s32[] get-tuple-element(p), index=0\n"
	     "  x = f32[64] get-tuple-element(p), index=1\n"
	     "  z = f32[64] get-tuple-element(p), index=2\n"
	     "  one = s32[] constant(1)\n"
	     "  j = s32[] add(i, one)\n"
	     "  f = f32[64] fusion(x), kind=kLoop, calls=add1\n"
	     "  ROOT t = (s32[], f32[64], f32[64]) tuple(j, f, z)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  c = f32[64] sine(a)\n"
	     "  zero = s32[] constant(0)\n"
	     "  init = (s32[], f32[64], f32[64]) tuple(zero, b, c)\n"
	     "  w = (s32[], f32[64], f32[64]) while(init), condition=cond, "
	     "body=body\n"
	     "  r = f32[64] get-tuple-element(w), index=1\n"
	     "  ROOT s = f32[64] add(r, c)\n"
	     "}\n");
	assert_true(same("w", 2, "f", 0));	/* the fusion in place */
	assert_true(same("w", 2, "b", 0));	/* b dies as the loop starts */
	assert_true(same("w", 3, "c", 0));	/* passed on as it is */
	assert_int_equal(F.pl.ncopy, 1);	/* zero, a constant */
}

/* conditional: its result joins each branch's ROOT; a branch that
 * returns its operand as it is hands that over. */
static void
test_conditional(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "tb {\n"
	     "  ROOT x = f32[64] parameter(0)\n"
	     "}\n"
	     "fb {\n"
	     "  x = f32[64] parameter(0)\n"
	     "  ROOT y = f32[64] negate(x)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  p = pred[] parameter(0)\n"
	     "  a = f32[64] parameter(1)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  c = f32[64] conditional(p, b, b), true_computation=tb, "
	     "false_computation=fb\n"
	     "  ROOT r = f32[64] sine(c)\n"
	     "}\n");
	assert_true(same("c", 0, "y", 0));
	assert_true(same("c", 0, "b", 0));
	assert_int_equal(F.pl.ncopy, 0);
}

/* call: its result is the callee's ROOT. */
static void
test_call(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "f {\n"
	     "  x = f32[64] parameter(0)\n"
	     "  ROOT y = f32[64] exponential(x)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  c = f32[64] call(a), to_apply=f\n"
	     "  ROOT r = f32[64] negate(c)\n"
	     "}\n");
	assert_false(pos("c", 0)->defines);
	assert_true(same("c", 0, "y", 0));
}

/* dynamic-update-slice and scatter: must write over operand 0 (a copy
 * of it when it is live after); a fusion whose root does too. */
static void
test_dynamic_update_slice(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "upd {\n"
	     "  p0 = f32[64] parameter(0)\n"
	     "  p1 = f32[8] parameter(1)\n"
	     "  i = s32[] parameter(2)\n"
	     "  ROOT d = f32[64] dynamic-update-slice(p0, p1, i)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  u = f32[8] parameter(1)\n"
	     "  i = s32[] parameter(2)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  d = f32[64] dynamic-update-slice(b, u, i)\n"
	     "  ROOT f = f32[64] fusion(d, u, i), kind=kLoop, calls=upd\n"
	     "}\n");
	assert_true(same("b", 0, "d", 0) && same("d", 0, "f", 0));
	assert_int_equal(F.pl.ncopy, 0);
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  u = f32[8] parameter(1)\n"
	     "  i = s32[] parameter(2)\n"
	     "  ROOT d = f32[64] dynamic-update-slice(a, u, i)\n"
	     "}\n");
	assert_int_equal(F.pl.ncopy, 1);	/* a survives: a copy */
}

/* scatter: must write over its operand (a copy of it when it is live
 * after). */
static void
test_scatter(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "sum {\n"
	     "  x = f32[] parameter(0)\n"
	     "  y = f32[] parameter(1)\n"
	     "  ROOT z = f32[] add(x, y)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  i = s32[4,1] parameter(1)\n"
	     "  u = f32[4] parameter(2)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  s = f32[64] scatter(b, i, u), update_window_dims={}, "
	     "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
	     "index_vector_dim=1, to_apply=sum\n"
	     "  ROOT r = f32[64] add(s, b)\n"
	     "}\n");
	assert_false(same("b", 0, "s", 0));
	assert_int_equal(F.pl.ncopy, 1);	/* b is read after */
}

/* custom-call: output_to_operand_aliasing at any index must share. */
static void
test_custom_call(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64,64]{1,0} parameter(0)\n"
	     "  b = f32[64,64]{1,0} parameter(1)\n"
	     "  c = f32[64,64]{1,0} parameter(2)\n"
	     "  n = f32[64,64]{1,0} negate(c)\n"
	     "  g = (f32[64,64]{1,0}, s8[1024]{0}) custom-call(a, b, n), "
	     "custom_call_target=\"__cublas$gemm\", "
	     "output_to_operand_aliasing={{0}: (2, {})}\n"
	     "  ROOT r = f32[64,64]{1,0} get-tuple-element(g), index=0\n"
	     "}\n");
	assert_true(same("g", 1, "n", 0));
	assert_false(same("g", 2, "n", 0));
}

/* all-reduce: may run in place (NCCL). */
static void
test_all_reduce(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "sum {\n"
	     "  x = f32[] parameter(0)\n"
	     "  y = f32[] parameter(1)\n"
	     "  ROOT z = f32[] add(x, y)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  b = f32[64] exponential(a)\n"
	     "  c = f32[64] all-reduce(b), to_apply=sum\n"
	     "  ROOT r = f32[64] negate(c)\n"
	     "}\n");
	assert_true(same("b", 0, "c", 0));
}

/* all-reduce-start may run in place too (XLA: elementwise on its
 * operand): its operand's bytes become the result's, when nothing but the
 * collective reads the operand between the start and the done. */
static const char all_reduce_start[] =
	"HloModule m, is_scheduled=true\n"
	"sum {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT z = f32[] add(x, y)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[64] parameter(0)\n"
	"  b = f32[64] exponential(a)\n"
	"  r = f32[64] all-reduce-start(b), to_apply=sum\n"
	"  u = f32[64] %s(a)\n"
	"  t = f32[64] all-reduce-done(r)\n"
	"  ROOT o = f32[64] add(t, u)\n"
	"}\n";

static void
test_all_reduce_start(void **state)
{
	char src[sizeof all_reduce_start + 16];

	(void)state;
	snprintf(src, sizeof src, all_reduce_start, "negate");
	plan(src);
	assert_true(same("b", 0, "r", 0));
	/* b is read while the collective is in flight: not in place */
	snprintf(src, sizeof src, all_reduce_start, "negate");
	memcpy(strstr(src, "negate(a)"), "negate(b)", 9);
	plan(src);
	assert_false(same("b", 0, "r", 0));
}

/* Async collectives: the start's {0} is its operand, {1} the result the
 * collective writes; all-gather-done and collective-permute-done hand on
 * {1}, all-reduce-done its operand. */
static void
test_async_collectives(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "sum {\n"
	     "  x = f32[] parameter(0)\n"
	     "  y = f32[] parameter(1)\n"
	     "  ROOT z = f32[] add(x, y)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  a = f32[8] parameter(0)\n"
	     "  s = (f32[8], f32[16]) all-gather-start(a), dimensions={0}\n"
	     "  d = f32[16] all-gather-done(s)\n"
	     "  p = (f32[16], f32[16], u32[], u32[]) collective-permute-start(d), "
	     "source_target_pairs={{0,1}}\n"
	     "  q = f32[16] collective-permute-done(p)\n"
	     "  r = f32[16] all-reduce-start(q), to_apply=sum\n"
	     "  t = f32[16] all-reduce-done(r)\n"
	     "  ROOT o = f32[16] negate(t)\n"
	     "}\n");
	assert_true(same("s", 1, "a", 0));
	assert_false(pos("d", 0)->defines);
	assert_true(same("d", 0, "s", 2));
	assert_true(same("q", 0, "p", 2));
	assert_false(pos("t", 0)->defines);
	assert_true(same("t", 0, "r", 0));
}

/* In-place collective-permute (input, output buffer, offsets): its
 * result, a start's {1} (each element), is operand 1's buffer; a start's
 * {0} is its input (issue 38). */
static void
test_collective_permute_in_place(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[2,8] parameter(0)\n"
	     "  b = f32[4,8] parameter(1)\n"
	     "  z = s32[] constant(0)\n"
	     "  o = (s32[], s32[]) tuple(z, z)\n"
	     "  n = f32[4,8] negate(b)\n"
	     "  c = f32[4,8] collective-permute(a, n, o, o), "
	     "source_target_pairs={{0,1}}, slice_sizes={{1,8}}\n"
	     "  e = f32[2,8] exponential(a)\n"
	     "  t = (f32[2,8], f32[4,8]) tuple(e, c)\n"
	     "  u = (f32[2,8], f32[2,8]) tuple(a, a)\n"
	     "  f = ((s32[], s32[]), (s32[], s32[])) tuple(o, o)\n"
	     "  s = ((f32[2,8], f32[2,8]), (f32[2,8], f32[4,8]), u32[], u32[]) "
	     "collective-permute-start(u, t, f, f), source_target_pairs={{0,1}}, "
	     "slice_sizes={{1,8},{1,8}}\n"
	     "  d = (f32[2,8], f32[4,8]) collective-permute-done(s)\n"
	     "  ROOT r = f32[4,8] get-tuple-element(d), index=1\n"
	     "}\n");
	assert_true(same("c", 0, "n", 0));
	assert_true(pos("c", 0)->defines);
	assert_false(pos("s", 2)->defines);	/* {0, 0}: a */
	assert_true(same("s", 2, "a", 0));
	assert_true(same("s", 5, "e", 0));	/* {1, 0} over e */
	assert_true(same("s", 6, "c", 0));	/* {1, 1} over c */
	assert_true(same("r", 0, "c", 0));
}

/* copy-start: {0} the destination, {1} its operand, {2} a context;
 * copy-done hands on {0}. */
static void
test_copy_start(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  s = (f32[64], f32[64], u32[]) copy-start(a)\n"
	     "  d = f32[64] copy-done(s)\n"
	     "  ROOT r = f32[64] negate(d)\n"
	     "}\n");
	assert_true(same("s", 2, "a", 0));
	assert_true(same("d", 0, "s", 1));
	assert_false(pos("d", 0)->defines);
}

/* async-start: {0} its operands; {1} what its computation returns, over
 * an operand it may return as it is; async-done hands on {1}. */
static void
test_async_start(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "f {\n"
	     "  x = f32[64] parameter(0)\n"
	     "  ROOT y = f32[64] exponential(x)\n"
	     "}\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  s = ((f32[64]), f32[64], s32[]) async-start(a), calls=f\n"
	     "  d = f32[64] async-done(s)\n"
	     "  ROOT r = f32[64] negate(d)\n"
	     "}\n");
	assert_true(same("s", 2, "a", 0));
	assert_true(same("d", 0, "s", 3));
	assert_false(pos("d", 0)->defines);
}

/* send: {0} its operand until the send-done; recv-done: {0} what the
 * recv received. */
static void
test_send_recv(void **state)
{
	(void)state;
	plan("HloModule m, is_scheduled=true\n"
	     "ENTRY e {\n"
	     "  a = f32[64] parameter(0)\n"
	     "  t = token[] after-all()\n"
	     "  s = (f32[64], u32[], token[]) send(a, t), channel_id=1\n"
	     "  sd = token[] send-done(s), channel_id=1\n"
	     "  r = (f32[64], u32[], token[]) recv(t), channel_id=2\n"
	     "  rd = (f32[64], token[]) recv-done(r), channel_id=2\n"
	     "  ROOT g = f32[64] get-tuple-element(rd), index=0\n"
	     "}\n");
	assert_true(same("s", 1, "a", 0));
	assert_false(pos("rd", 1)->defines);
	assert_true(same("rd", 1, "r", 1));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_elementwise, teardown),
		cmocka_unit_test_teardown(test_copy, teardown),
		cmocka_unit_test_teardown(test_forwards, teardown),
		cmocka_unit_test_teardown(test_tuple, teardown),
		cmocka_unit_test_teardown(test_parameter, teardown),
		cmocka_unit_test_teardown(test_constant, teardown),
		cmocka_unit_test_teardown(test_while, teardown),
		cmocka_unit_test_teardown(test_conditional, teardown),
		cmocka_unit_test_teardown(test_call, teardown),
		cmocka_unit_test_teardown(test_dynamic_update_slice, teardown),
		cmocka_unit_test_teardown(test_scatter, teardown),
		cmocka_unit_test_teardown(test_custom_call, teardown),
		cmocka_unit_test_teardown(test_all_reduce, teardown),
		cmocka_unit_test_teardown(test_all_reduce_start, teardown),
		cmocka_unit_test_teardown(test_async_collectives, teardown),
		cmocka_unit_test_teardown(test_collective_permute_in_place,
					  teardown),
		cmocka_unit_test_teardown(test_copy_start, teardown),
		cmocka_unit_test_teardown(test_async_start, teardown),
		cmocka_unit_test_teardown(test_send_recv, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The passes: each aliasing and liveness rule on a small module whose
 * expected buffers and intervals are written out by hand.  Sizes use
 * --align=1 so that a buffer's size is its bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "driver.h"
#include "frontend/frontend.h"

struct fixture {
	struct pool *pool;
	struct diags ds;
	struct plan plan;
};

static struct fixture F;

/* Plans src for the GPU with alignment 1, reuse as given, and the other
 * options as `tweak` sets them. */
static int
plan_with(const char *src, int reuse, void (*tweak)(struct options *))
{
	struct hlofile *f;
	struct options o;

	pool_free(F.pool);
	memset(&F, 0, sizeof F);
	F.pool = pool_new();
	F.ds.pool = F.pool;
	F.ds.file = "test.hlo";
	F.ds.src = src;
	F.ds.srclen = strlen(src);
	f = frontend_parse(F.pool, src, strlen(src), &F.ds);
	assert_int_equal(F.ds.n, 0);
	options_default(&o);
	o.align = 1;
	o.reuse = reuse;
	o.schedule = SCHED_TEXT;	/* the intervals below count text steps */
	o.reuse_params = 1;	/* live ranges as values have them: a runtime
				   that copies its inputs in (test_keep_params
				   plans the default) */
	if (tweak)
		tweak(&o);
	return plan_module(F.pool, &F.ds, &f->mods[0], &o, NULL, &F.plan);
}

static int
plan_text(const char *src, int reuse)
{
	return plan_with(src, reuse, NULL);
}

static const struct buffer *
buf(const char *name)
{
	for (int b = 0; b < F.plan.nbuf; b++)
		if (!strcmp(F.plan.bufs[b].name, name))
			return &F.plan.bufs[b];
	fail_msg("no buffer named '%s'", name);
	return NULL;
}

static void
expect(const char *name, int start, int end, int flags)
{
	const struct buffer *b = buf(name);

	if (b->start != start || b->end != end || b->flags != flags)
		fail_msg("%s: [%d, %d] flags %d, expected [%d, %d] flags %d",
			 name, b->start, b->end, b->flags, start, end, flags);
}

static int
has_buffer(const char *name)
{
	for (int b = 0; b < F.plan.nbuf; b++)
		if (!strcmp(F.plan.bufs[b].name, name))
			return 1;
	return 0;
}

static const char straight[] =
	"HloModule m\n"
	"ENTRY e {\n"
	"  a = f32[16] parameter(0)\n"		/* 0 */
	"  b = f32[16] negate(a)\n"		/* 1 */
	"  c = f32[16] exponential(b)\n"	/* 2 */
	"  ROOT d = f32[16] add(c, a)\n"	/* 3 */
	"}\n";

/* Parameters from step 0, outputs to the last step, temporaries from
 * definition to last use. */
static void
test_straight_line(void **state)
{
	(void)state;
	assert_int_equal(plan_text(straight, 0), 0);
	assert_int_equal(F.plan.ntime, 4);
	expect("a", 0, 3, BUF_PARAM);
	expect("b", 1, 2, 0);
	expect("c", 2, 3, 0);
	expect("d", 3, 3, BUF_OUTPUT);
	assert_int_equal(buf("b")->size, 64);
	assert_int_equal(F.plan.arenas[0].lower, 64 * 3);
}

/* With reuse, c takes over b, which dies at c; d is an output and takes
 * nothing; a is a parameter and is never taken. */
static void
test_reuse(void **state)
{
	(void)state;
	assert_int_equal(plan_text(straight, 1), 0);
	/* b, c and the output d in one buffer: an output may take over a
	   temporary that dies where it is made (XLA colocates them) */
	expect("b", 1, 3, BUF_OUTPUT);
	assert_false(has_buffer("c"));
	assert_false(has_buffer("d"));
}

static void
keep_params(struct options *o)
{
	o->reuse_params = 0;
}

/* By default an entry parameter survives the call: its buffer lives to
 * the end and nothing takes it over (a may-alias donates it). */
static void
test_keep_params(void **state)
{
	(void)state;
	assert_int_equal(plan_with(straight, 1, keep_params), 0);
	expect("a", 0, 3, BUF_PARAM);
	expect("b", 1, 3, BUF_OUTPUT);
	assert_int_equal(plan_with("HloModule m, input_output_alias={ {}: "
				   "(0, {}, may-alias) }\n"
				   "ENTRY e {\n"
				   "  a = f32[8] parameter(0)\n"
				   "  ROOT b = f32[8] negate(a)\n"
				   "}\n", 1, keep_params), 0);
	expect("a", 0, 1, BUF_PARAM | BUF_OUTPUT);
}

/* A tuple forwards its elements: y lives until the negate that reads it
 * through get-tuple-element; the table lives until the gte. */
static void
test_tuple_forwarding(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"			/* 0 */
		"  y = f32[8] sine(x)\n"			/* 1 */
		"  z = f32[8] cosine(x)\n"			/* 2 */
		"  t = (f32[8], f32[8]) tuple(z, y)\n"		/* 3 */
		"  w = f32[8] exponential(x)\n"			/* 4 */
		"  g = f32[8] get-tuple-element(t), index=1\n"	/* 5 */
		"  ROOT r = f32[8] negate(g)\n"			/* 6 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	expect("y", 1, 6, 0);
	expect("z", 2, 2, 0);	/* forwarded but never read */
	expect("t", 3, 5, BUF_TABLE);
	expect("w", 4, 4, 0);
	expect("r", 6, 6, BUF_OUTPUT);
	assert_int_equal(buf("t")->bytes, 16);
}

/* A copy of a tuple copies its index table only (XLA's dataflow,
 * hlo_dataflow_analysis_test TupleCopy): its elements are the operand's
 * buffers, so y lives through the get-tuple-element of the copy, and no
 * buffer is made for the copy's elements. */
static void
test_tuple_copy_shallow(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"			/* 0 */
		"  y = f32[8] sine(x)\n"			/* 1 */
		"  t = (f32[8], f32[8]) tuple(x, y)\n"		/* 2 */
		"  c = (f32[8], f32[8]) copy(t)\n"		/* 3 */
		"  g = f32[8] get-tuple-element(c), index=1\n"	/* 4 */
		"  ROOT r = f32[8] negate(g)\n"			/* 5 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	expect("y", 1, 5, 0);
	expect("c", 3, 4, BUF_TABLE);
	assert_int_equal(F.plan.nbuf, 5);	/* x, y, t, c, r */
}

/* The while's state: init, body parameter, body ROOT and the result share
 * one buffer per element, live over the whole loop. */
static void
test_while(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"cond {\n"
		"  s = (s32[], f32[4]) parameter(0)\n"		/* 4 */
		"  i = s32[] get-tuple-element(s), index=0\n"	/* 5 */
		"  n = s32[] constant(3)\n"			/* 6 */
		"  ROOT lt = pred[] compare(i, n), direction=LT\n" /* 7 */
		"}\n"
		"body {\n"
		"  s = (s32[], f32[4]) parameter(0)\n"		/* 8 */
		"  i = s32[] get-tuple-element(s), index=0\n"	/* 9 */
		"  v = f32[4] get-tuple-element(s), index=1\n"	/* 10 */
		"  k = s32[] constant(1)\n"			/* 11 */
		"  i1 = s32[] add(i, k)\n"			/* 12 */
		"  v1 = f32[4] sine(v)\n"			/* 13 */
		"  ROOT t = (s32[], f32[4]) tuple(i1, v1)\n"	/* 14 */
		"}\n"
		"ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"			/* 0 */
		"  z = s32[] constant(0)\n"			/* 1 */
		"  c = f32[4] cosine(x)\n"			/* 2 */
		"  init = (s32[], f32[4]) tuple(z, c)\n"	/* 3 */
		"  w = (s32[], f32[4]) while(init), condition=cond, body=body\n"
								/* 15 */
		"  ROOT r = f32[4] get-tuple-element(w), index=1\n" /* 16 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 1), 0);
	assert_int_equal(F.plan.ntime, 17);
	/* c, v1 and r share: from c's definition to the end. */
	expect("c", 2, 16, BUF_OUTPUT);
	assert_false(has_buffer("v1"));
	/* The counter: the loop's state w{0} holds i1 in place; the constant
	 * z is read-only, so it is copied in before the loop starts. */
	expect("z", 1, 4, BUF_CONST);
	expect("w{0}", 4, 15, 0);
	assert_false(has_buffer("i1"));
	assert_int_equal(F.plan.ncopy, 1);
	assert_int_equal(F.plan.copies[0].src, buf("z") - F.plan.bufs);
	assert_int_equal(F.plan.copies[0].dst, buf("w{0}") - F.plan.bufs);
	assert_int_equal(F.plan.copies[0].step, 4);
	assert_int_equal(F.plan.copies[0].after, 0);
	/* The tables of init, the body's ROOT and the while share. */
	expect("init", 3, 16, BUF_TABLE);
	assert_false(has_buffer("t"));
	expect("lt", 7, 7, 0);
	expect("x", 0, 2, BUF_PARAM);
}

/* A value defined before a loop and read inside it lives to the loop's
 * end, in nested loops to the end of the outermost loop it is outside. */
static void
test_loop_use_lives_to_loop_end(void **state)
{
	static const char good[] =
		"HloModule m\n"
		"icond {\n"
		"  s = (f32[4]) parameter(0)\n"
		"  ROOT p = pred[] constant(false)\n"
		"}\n"
		"ibody {\n"
		"  s = (f32[4]) parameter(0)\n"
		"  e = f32[4] get-tuple-element(s), index=0\n"
		"  ROOT t = (f32[4]) tuple(e)\n"
		"}\n"
		"ocond {\n"
		"  s = (f32[4], f32[4]) parameter(0)\n"
		"  ROOT p = pred[] constant(false)\n"
		"}\n"
		"obody {\n"
		"  s = (f32[4], f32[4]) parameter(0)\n"
		"  a = f32[4] get-tuple-element(s), index=0\n"
		"  b = f32[4] get-tuple-element(s), index=1\n"
		"  it = (f32[4]) tuple(a)\n"
		"  iw = (f32[4]) while(it), condition=icond, body=ibody\n"
		"  ie = f32[4] get-tuple-element(iw), index=0\n"
		"  sum = f32[4] add(ie, b)\n"
		"  ROOT t = (f32[4], f32[4]) tuple(sum, b)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  y = f32[4] sine(x)\n"
		"  init = (f32[4], f32[4]) tuple(x, y)\n"
		"  w = (f32[4], f32[4]) while(init), condition=ocond, body=obody\n"
		"  ROOT r = f32[4] get-tuple-element(w), index=0\n"
		"}\n";
	const struct buffer *y;

	(void)state;
	assert_int_equal(plan_text(good, 0), 0);
	/* Steps: x 0, y 1, init 2, ocond 3-4, obody: s 5, a 6, b 7, it 8,
	 * icond 9-10, ibody 11-13, iw 14, ie 15, sum 16, t 17; w 18, r 19. */
	assert_int_equal(F.plan.ntime, 20);
	y = buf("y");
	assert_int_equal(y->start, 1);
	assert_int_equal(y->end, 18);	/* state of the outer loop */
	/* x is the outer state's element 0, joined with sum, and the inner
	 * loop's state a/e/ie: all one buffer, an output. */
	expect("x", 0, 19, BUF_PARAM | BUF_OUTPUT);
	assert_false(has_buffer("sum"));
}

/* A temporary goes inside a donated parameter's buffer where it holds
 * nothing live (after the parameter's last read, before the output that
 * takes it is written): XLA's buffer assignment does too. */
static void
test_colocate(void **state)
{
	static const char src[] =
		"HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\n"
		"ENTRY e {\n"
		"  a = f32[64] parameter(0)\n"			/* 0 */
		"  b = f32[64] reverse(a), dimensions={0}\n"	/* 1 */
		"  c = f32[64] reverse(b), dimensions={0}\n"	/* 2 */
		"  d = f32[64] reverse(c), dimensions={0}\n"	/* 3 */
		"  ROOT r = f32[64] reverse(d), dimensions={0}\n"	/* 4 */
		"}\n";

	(void)state;
	assert_int_equal(plan_with(src, 1, keep_params), 0);
	expect("a", 0, 4, BUF_PARAM | BUF_OUTPUT);
	assert_false(has_buffer("c"));	/* inside a's, [2, 3] */
	expect("b", 1, 2, 0);
	expect("d", 3, 4, 0);
	assert_int_equal(F.plan.arenas[0].size, 2 * 256);	/* a; b, d */
	assert_int_equal(plan_with(src, 0, keep_params), 0);	/* --no-reuse */
	assert_true(has_buffer("c"));
}

/* A temporary inside a loop goes into the loop state's buffer between
 * the state's last read in an iteration and the next state's write (XLA's
 * heap simulator does too); a temporary of the condition never does: the
 * loop may leave there with the state. */
static void
test_colocate_loop_state(void **state)
{
	static const char src[] =
		"HloModule m, is_scheduled=true\n"
		"cond {\n"
		"  s = (s32[], f32[64]) parameter(0)\n"		/* 2 */
		"  i = s32[] get-tuple-element(s), index=0\n"	/* 3 */
		"  k = f32[64] iota(), iota_dimension=0\n"		/* 4 */
		"  n = s32[] constant(4)\n"				/* 5 */
		"  ROOT lt = pred[] compare(i, n), direction=LT\n"	/* 6 */
		"}\n"
		"body {\n"
		"  s = (s32[], f32[64]) parameter(0)\n"		/* 7 */
		"  i = s32[] get-tuple-element(s), index=0\n"	/* 8 */
		"  x = f32[64] get-tuple-element(s), index=1\n"	/* 9 */
		"  y = f32[64] reverse(x), dimensions={0}\n"		/* 10 */
		"  z = f32[64] reverse(y), dimensions={0}\n"		/* 11 */
		"  u = f32[64] reverse(z), dimensions={0}\n"		/* 12 */
		"  w = f32[64] reverse(u), dimensions={0}\n"		/* 13 */
		"  one = s32[] constant(1)\n"			/* 14 */
		"  i1 = s32[] add(i, one)\n"				/* 15 */
		"  ROOT t = (s32[], f32[64]) tuple(i1, w)\n"		/* 16 */
		"}\n"
		"ENTRY e {\n"
		"  a = f32[64] parameter(0)\n"			/* 0 */
		"  b = f32[64] negate(a)\n"				/* 1 */
		"  zero = s32[] constant(0)\n"
		"  init = (s32[], f32[64]) tuple(zero, b)\n"
		"  l = (s32[], f32[64]) while(init), condition=cond, body=body\n"
		"  g = f32[64] get-tuple-element(l), index=1\n"
		"  ROOT r = f32[64] negate(g)\n"
		"}\n";

	(void)state;
	assert_int_equal(plan_with(src, 1, keep_params), 0);
	assert_false(has_buffer("z"));	/* inside b's: the state's hole */
	assert_true(has_buffer("y"));
	assert_true(has_buffer("u"));
	assert_true(has_buffer("k"));
	assert_int_equal(plan_with(src, 0, keep_params), 0);	/* --no-reuse */
	assert_true(has_buffer("z"));
}

/* The body never reads the state's element: its hole begins where the
 * condition ends (the loop may leave there with it), so y goes in, and k,
 * made in the condition, does not. */
static void
test_colocate_after_condition(void **state)
{
	static const char src[] =
		"HloModule m, is_scheduled=true\n"
		"cond {\n"
		"  s = (s32[], f32[64]) parameter(0)\n"
		"  i = s32[] get-tuple-element(s), index=0\n"
		"  k = f32[64] iota(), iota_dimension=0\n"
		"  n = s32[] constant(4)\n"
		"  ROOT lt = pred[] compare(i, n), direction=LT\n"
		"}\n"
		"body {\n"
		"  s = (s32[], f32[64]) parameter(0)\n"
		"  i = s32[] get-tuple-element(s), index=0\n"
		"  y = f32[64] iota(), iota_dimension=0\n"
		"  z = f32[64] reverse(y), dimensions={0}\n"
		"  w = f32[64] reverse(z), dimensions={0}\n"
		"  one = s32[] constant(1)\n"
		"  i1 = s32[] add(i, one)\n"
		"  ROOT t = (s32[], f32[64]) tuple(i1, w)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[64] parameter(0)\n"
		"  b = f32[64] negate(a)\n"
		"  zero = s32[] constant(0)\n"
		"  init = (s32[], f32[64]) tuple(zero, b)\n"
		"  l = (s32[], f32[64]) while(init), condition=cond, body=body\n"
		"  g = f32[64] get-tuple-element(l), index=1\n"
		"  ROOT r = f32[64] negate(g)\n"
		"}\n";

	(void)state;
	assert_int_equal(plan_with(src, 1, keep_params), 0);
	assert_true(has_buffer("k"));
	assert_false(has_buffer("y"));
}

/* A branch that returns a value from outside as it is hands it over as
 * the result at its end, though a branch laid out after it still reads
 * it: the two never both run, so no copy (XLA's ordering of branches). */
static void
test_branch_returns_operand(void **state)
{
	static const char src[] =
		"HloModule m, is_scheduled=true\n"
		"tb {\n"
		"  a = f32[8] parameter(0)\n"			/* 3 */
		"  ROOT same = f32[8] bitcast(a)\n"		/* 4 */
		"}\n"
		"fb {\n"
		"  b = f32[8] parameter(0)\n"			/* 5 */
		"  ROOT nb = f32[8] negate(b)\n"		/* 6 */
		"}\n"
		"ENTRY e {\n"
		"  p = pred[] parameter(0)\n"			/* 0 */
		"  x = f32[8] parameter(1)\n"			/* 1 */
		"  t = f32[8] tanh(x)\n"			/* 2 */
		"  y = f32[8] conditional(p, t, t), true_computation=tb, "
		"false_computation=fb\n"			/* 7 */
		"  ROOT z = f32[8] sine(y)\n"			/* 8 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	assert_int_equal(F.plan.ncopy, 0);
	expect("t", 2, 8, 0);		/* t, nb and y */
	assert_false(has_buffer("nb"));
	assert_false(has_buffer("y"));
}

/* An async call whose computation may return its operand as it is (a
 * branch that forwards it) writes its result over that operand: the
 * operand is copied into start{1} before the start, and the kernel writes
 * over the copy when another branch runs (XLA: start{1} is the root's
 * values).  Without it the done read bytes nothing wrote. */
static void
test_async_call_forwards(void **state)
{
	static const char src[] =
		"HloModule m, is_scheduled=true\n"
		"neg { p = f32[8] parameter(0)\n"
		"  ROOT n = f32[8] negate(p) }\n"
		"fwd { ROOT q = f32[8] parameter(0) }\n"
		"wrapped { i = s32[] parameter(0)\n"
		"  x = f32[8] parameter(1)\n"
		"  ROOT c = f32[8] conditional(i, x, x), "
		"branch_computations={neg, fwd} }\n"
		"ENTRY e {\n"
		"  i = s32[] parameter(0)\n"
		"  a = f32[8] parameter(1)\n"
		"  b = f32[8] exponential(a)\n"
		"  s = ((s32[], f32[8]), f32[8], s32[]) call-start(i, b), "
		"to_apply=wrapped\n"
		"  d = f32[8] call-done(s)\n"
		"  ROOT r = f32[8] sine(d)\n"
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	assert_int_equal(F.plan.ncopy, 1);
	assert_string_equal(F.plan.bufs[F.plan.copies[0].src].name, "b");
	assert_string_equal(F.plan.bufs[F.plan.copies[0].dst].name, "s{1}");
	assert_int_equal(F.plan.copies[0].after, 0);
}

/* An async computation that updates its operand in place: start{1} is
 * that operand's buffer (XLA's dataflow shares the wrapped computation's
 * values with the start).  In a loop over its state, no copy
 * (copy_insertion_test.cc's AsyncDUSInLoop); over an operand read later,
 * a copy of it into start{1} (AsyncCallDUSCopy). */
static void
test_async_in_place(void **state)
{
	static const char loop[] =
		"HloModule m\n"
		"w { p0 = f32[64] parameter(0)\n"
		"  p1 = f32[4] parameter(1)\n"
		"  i = s32[] constant(8)\n"
		"  ROOT d = f32[64] dynamic-update-slice(p0, p1, i) }\n"
		"c { t = (f32[64], f32[4], pred[]) parameter(0)\n"
		"  ROOT b = pred[] get-tuple-element(t), index=2 }\n"
		"b { t = (f32[64], f32[4], pred[]) parameter(0)\n"
		"  x = f32[64] get-tuple-element(t), index=0\n"
		"  u = f32[4] get-tuple-element(t), index=1\n"
		"  q = pred[] get-tuple-element(t), index=2\n"
		"  s = ((f32[64], f32[4]), f32[64], u32[]) async-start(x, u), "
		"calls=w\n"
		"  d = f32[64] async-done(s), calls=w\n"
		"  ROOT r = (f32[64], f32[4], pred[]) tuple(d, u, q) }\n"
		"ENTRY e { a = f32[] parameter(0)\n"
		"  u = f32[4] parameter(1)\n"
		"  q = pred[] parameter(2)\n"
		"  x = f32[64] broadcast(a), dimensions={}\n"
		"  t = (f32[64], f32[4], pred[]) tuple(x, u, q)\n"
		"  l = (f32[64], f32[4], pred[]) while(t), condition=c, body=b\n"
		"  ROOT o = f32[64] get-tuple-element(l), index=0 }\n";
	static const char param[] =
		"HloModule m\n"
		"w { p0 = f32[64] parameter(0)\n"
		"  p1 = f32[4] parameter(1)\n"
		"  i = s32[] constant(8)\n"
		"  ROOT d = f32[64] dynamic-update-slice(p0, p1, i) }\n"
		"ENTRY e { x = f32[64] parameter(0)\n"
		"  u = f32[4] parameter(1)\n"
		"  s = ((f32[64], f32[4]), f32[64], u32[]) async-start(x, u), "
		"calls=w\n"
		"  d = f32[64] async-done(s), calls=w\n"
		"  ROOT r = (f32[64], f32[64]) tuple(d, x) }\n";

	(void)state;
	assert_int_equal(plan_text(loop, 0), 0);
	assert_int_equal(F.plan.ncopy, 0);
	assert_int_equal(plan_text(param, 0), 0);
	assert_int_equal(F.plan.ncopy, 2);	/* and x into its output */
	assert_string_equal(F.plan.bufs[F.plan.copies[0].src].name, "x");
	assert_string_equal(F.plan.bufs[F.plan.copies[0].dst].name, "s{1}");
	assert_int_equal(F.plan.copies[0].after, 0);
}

/* A loop's next state that is the state at another index (a send's
 * operand passed on too: copy_insertion_test.cc's
 * PartiallyPipelinedAsyncSendMultipleUses) moves with one copy when
 * nothing reads the old state there; a swap would go through a buffer of
 * its own. */
static void
test_rotation_one_copy(void **state)
{
	static const char src[] =
		"HloModule send_pipelined_rotation\n"
		"body {\n"
		"  param = (s32[], (f32[16], u32[], token[]), f32[16]) parameter(0)\n"
		"  i = s32[] get-tuple-element(param), index=0\n"
		"  one = s32[] constant(1)\n"
		"  i1 = s32[] add(i, one)\n"
		"  prev = (f32[16], u32[], token[]) get-tuple-element(param), index=1\n"
		"  data = f32[16] get-tuple-element(param), index=2\n"
		"  sd = token[] send-done(prev), channel_id=1\n"
		"  aa = token[] after-all()\n"
		"  s = (f32[16], u32[], token[]) send(data, aa), channel_id=1\n"
		"  ROOT t = (s32[], (f32[16], u32[], token[]), f32[16]) tuple(i1, s, data)\n"
		"}\n"
		"cond {\n"
		"  pc = (s32[], (f32[16], u32[], token[]), f32[16]) parameter(0)\n"
		"  n = s32[] get-tuple-element(pc), index=0\n"
		"  three = s32[] constant(3)\n"
		"  ROOT lt = pred[] compare(n, three), direction=LT\n"
		"}\n"
		"ENTRY main {\n"
		"  d0 = f32[16] parameter(0)\n"
		"  zero = s32[] constant(0)\n"
		"  d1 = f32[16] add(d0, d0)\n"
		"  aa = token[] after-all()\n"
		"  s = (f32[16], u32[], token[]) send(d1, aa), channel_id=1\n"
		"  init = (s32[], (f32[16], u32[], token[]), f32[16]) tuple(zero, s, d1)\n"
		"  w = (s32[], (f32[16], u32[], token[]), f32[16]) while(init),\n"
		"    condition=cond, body=body\n"
		"  ctx = (f32[16], u32[], token[]) get-tuple-element(w), index=1\n"
		"  sd = token[] send-done(ctx), channel_id=1\n"
		"  ROOT d2 = f32[16] get-tuple-element(w), index=2\n"
		"}\n";
	int in_body = 0;

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	for (int k = 0; k < F.plan.ncopy; k++)
		in_body += F.plan.copies[k].after;
	assert_int_equal(F.plan.ncopy, 3);	/* zero and d1 in; one turn */
	assert_int_equal(in_body, 1);
}

/* A conditional's branch ROOTs and its result share one buffer; the
 * branches' parameters are the conditional's operands. */
static void
test_conditional(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"tb {\n"
		"  a = f32[8] parameter(0)\n"			/* 3 */
		"  ROOT sq = f32[8] multiply(a, a)\n"		/* 4 */
		"}\n"
		"fb {\n"
		"  b = f32[8] parameter(0)\n"			/* 5 */
		"  u = f32[8] sine(b)\n"			/* 6 */
		"  ROOT nb = f32[8] negate(u)\n"		/* 7 */
		"}\n"
		"ENTRY e {\n"
		"  p = pred[] parameter(0)\n"			/* 0 */
		"  x = f32[8] parameter(1)\n"			/* 1 */
		"  t = f32[8] tanh(x)\n"			/* 2 */
		"  y = f32[8] conditional(p, t, t), true_computation=tb, "
		"false_computation=fb\n"			/* 8 */
		"  ROOT z = f32[8] add(y, x)\n"			/* 9 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	assert_int_equal(F.plan.ntime, 10);
	expect("sq", 4, 9, 0);		/* sq, nb and y */
	assert_false(has_buffer("nb"));
	assert_false(has_buffer("y"));
	expect("t", 2, 6, 0);		/* read by both branches */
	expect("u", 6, 7, 0);
	expect("p", 0, 8, BUF_PARAM);
	expect("z", 9, 9, BUF_OUTPUT);
}

/* dynamic-update-slice and scatter write into operand 0's buffer. */
static void
test_in_place(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"ENTRY e {\n"
		"  c = f32[8,16] parameter(0)\n"		/* 0 */
		"  u = f32[1,16] parameter(1)\n"		/* 1 */
		"  i = s32[] parameter(2)\n"			/* 2 */
		"  z = s32[] constant(0)\n"			/* 3 */
		"  n = f32[8,16] negate(c)\n"			/* 4 */
		"  d = f32[8,16] dynamic-update-slice(n, u, i, z)\n" /* 5 */
		"  ROOT r = f32[8,16] exponential(d)\n"		/* 6 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	expect("n", 4, 6, 0);
	assert_false(has_buffer("d"));
	expect("c", 0, 4, BUF_PARAM);
}

/* input_output_alias joins an entry parameter with an output. */
static void
test_input_output_alias(void **state)
{
	static const char src[] =
		"HloModule m, input_output_alias={ {1}: (1, {}, may-alias) }\n"
		"ENTRY e {\n"
		"  a = f32[4] parameter(0)\n"			/* 0 */
		"  b = f32[4] parameter(1)\n"			/* 1 */
		"  s = f32[4] add(a, b)\n"			/* 2 */
		"  m = f32[4] multiply(a, b)\n"			/* 3 */
		"  ROOT t = (f32[4], f32[4]) tuple(s, m)\n"	/* 4 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	expect("b", 0, 4, BUF_PARAM | BUF_OUTPUT);	/* b and m */
	assert_false(has_buffer("m"));
	expect("s", 2, 4, BUF_OUTPUT);
	expect("a", 0, 3, BUF_PARAM);
	expect("t", 4, 4, BUF_OUTPUT | BUF_TABLE);
}

/* A call's computation runs as program steps before the call; a fusion's
 * runs inside one kernel and gets no buffers. */
static void
test_call_and_fusion(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"fused {\n"
		"  p0 = f32[4] parameter(0)\n"
		"  ROOT q = f32[4] negate(p0)\n"
		"}\n"
		"callee {\n"
		"  a = f32[4] parameter(0)\n"			/* 2 */
		"  h = f32[4] sine(a)\n"			/* 3 */
		"  ROOT g = f32[4] cosine(h)\n"			/* 4 */
		"}\n"
		"ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"			/* 0 */
		"  f = f32[4] fusion(x), kind=kLoop, calls=fused\n" /* 1 */
		"  c = f32[4] call(f), to_apply=callee\n"	/* 5 */
		"  ROOT r = f32[4] add(c, x)\n"			/* 6 */
		"}\n";

	(void)state;
	assert_int_equal(plan_text(src, 0), 0);
	assert_int_equal(F.plan.ntime, 7);
	assert_false(has_buffer("q"));
	assert_false(has_buffer("p0"));
	expect("f", 1, 3, 0);		/* read in the callee as its a */
	expect("h", 3, 4, 0);
	expect("g", 4, 6, 0);		/* the call's result is g */
	assert_false(has_buffer("c"));
	expect("x", 0, 6, BUF_PARAM);
}

/* Constants are listed, not placed; no two live buffers overlap. */
static void
test_constants_and_no_overlap(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"ENTRY e {\n"
		"  k = f32[4] constant({1, 2, 3, 4})\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT y = f32[4] add(x, k)\n"
		"}\n", 0), 0);
	assert_int_equal(buf("k")->flags, BUF_CONST);
	assert_int_equal(buf("k")->in_arena, 0);
	assert_int_equal(F.plan.arenas[0].size, 32);
	assert_true(buf("x")->offset != buf("y")->offset);
}

/* dynamic-update-slice whose operand is read afterwards: the two cannot
 * share, so the operand is copied into the output just before the update. */
static void
test_copy_in_place(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"ENTRY e {\n"
		"  c = f32[8] parameter(0)\n"			/* 0 */
		"  u = f32[1] parameter(1)\n"			/* 1 */
		"  i = s32[] parameter(2)\n"			/* 2 */
		"  n = f32[8] negate(c)\n"			/* 3 */
		"  d = f32[8] dynamic-update-slice(n, u, i)\n"	/* 4 */
		"  s = f32[8] sine(n)\n"			/* 5 */
		"  ROOT r = f32[8] add(d, s)\n"			/* 6 */
		"}\n", 0), 0);
	expect("n", 3, 5, 0);
	expect("d", 4, 6, 0);
	assert_int_equal(F.plan.ncopy, 1);
	assert_int_equal(F.plan.copies[0].src, buf("n") - F.plan.bufs);
	assert_int_equal(F.plan.copies[0].dst, buf("d") - F.plan.bufs);
	assert_int_equal(F.plan.copies[0].step, 4);
	assert_int_equal(F.plan.copies[0].after, 0);
	assert_int_equal(F.plan.copies[0].bytes, 32);
}

static const char swap_loop[] =
	"HloModule m\n"
	"cond {\n"
	"  s = (f32[4], f32[4]) parameter(0)\n"		/* 2 */
	"  ROOT p = pred[] constant(false)\n"		/* 3 */
	"}\n"
	"body {\n"
	"  s = (f32[4], f32[4]) parameter(0)\n"		/* 4 */
	"  a = f32[4] get-tuple-element(s), index=0\n"	/* 5 */
	"  b = f32[4] get-tuple-element(s), index=1\n"	/* 6 */
	"  ROOT t = (f32[4], f32[4]) tuple(b, a)\n"	/* 7 */
	"}\n"
	"ENTRY e {\n"
	"  x = f32[4] parameter(0)\n"			/* 0 */
	"  init = (f32[4], f32[4]) tuple(x, x)\n"	/* 1 */
	"  w = (f32[4], f32[4]) while(init), condition=cond, body=body\n"
	"  ROOT r = f32[4] get-tuple-element(w), index=0\n"
	"}\n";

/* A loop that swaps its two state elements: each is saved to a buffer of
 * its own first (phase 0), then written back crosswise, all after the
 * body's last step; x feeds both elements, so one gets a copy in. */
static void
test_copy_swap(void **state)
{
	const struct plan_copy *c;

	(void)state;
	assert_int_equal(plan_text(swap_loop, 0), 0);
	assert_int_equal(F.plan.ncopy, 5);
	c = F.plan.copies;
	/* x joins element 0; element 1 gets a copy of x at the loop start. */
	assert_int_equal(c[0].src, buf("x") - F.plan.bufs);
	assert_int_equal(c[0].dst, buf("w{1}") - F.plan.bufs);
	assert_int_equal(c[0].step, 2);
	/* Save both elements, then write them crosswise, after step 7. */
	assert_int_equal(c[1].src, buf("x") - F.plan.bufs);
	assert_int_equal(c[1].dst, buf("t{1}") - F.plan.bufs);
	assert_int_equal(c[2].src, buf("w{1}") - F.plan.bufs);
	assert_int_equal(c[2].dst, buf("t{0}") - F.plan.bufs);
	assert_int_equal(c[3].src, buf("t{0}") - F.plan.bufs);
	assert_int_equal(c[3].dst, buf("x") - F.plan.bufs);
	assert_int_equal(c[4].src, buf("t{1}") - F.plan.bufs);
	assert_int_equal(c[4].dst, buf("w{1}") - F.plan.bufs);
	for (int k = 1; k < 5; k++) {
		assert_int_equal(c[k].step, 7);
		assert_int_equal(c[k].after, 1);
	}
}

/* A loop whose new state is a dot of the old: the dot cannot write where
 * it reads, so its result is copied into the state after the body. */
static void
test_copy_while_dot(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"cond {\n"
		"  s = (f32[4,4]) parameter(0)\n"
		"  ROOT p = pred[] constant(false)\n"
		"}\n"
		"body {\n"
		"  s = (f32[4,4]) parameter(0)\n"			/* 4 */
		"  h = f32[4,4] get-tuple-element(s), index=0\n"	/* 5 */
		"  d = f32[4,4] dot(h, h), lhs_contracting_dims={1}, "
		"rhs_contracting_dims={0}\n"				/* 6 */
		"  ROOT t = (f32[4,4]) tuple(d)\n"			/* 7 */
		"}\n"
		"ENTRY e {\n"
		"  x = f32[4,4] parameter(0)\n"			/* 0 */
		"  init = (f32[4,4]) tuple(x)\n"			/* 1 */
		"  w = (f32[4,4]) while(init), condition=cond, body=body\n"
		"  ROOT r = f32[4,4] get-tuple-element(w), index=0\n"
		"}\n", 0), 0);
	expect("d", 6, 7, 0);
	assert_int_equal(F.plan.ncopy, 1);
	assert_int_equal(F.plan.copies[0].src, buf("d") - F.plan.bufs);
	assert_int_equal(F.plan.copies[0].dst, buf("x") - F.plan.bufs);
	assert_int_equal(F.plan.copies[0].step, 7);
	assert_int_equal(F.plan.copies[0].after, 1);
}

static const char stream[] =
	"HloModule m\n"
	"cond {\n"
	"  s = (s32[], f32[4,16]) parameter(0)\n"		/* 3 */
	"  ROOT p = pred[] constant(false)\n"		/* 4 */
	"}\n"
	"body {\n"
	"  s = (s32[], f32[4,16]) parameter(0)\n"		/* 5 */
	"  i = s32[] get-tuple-element(s), index=0\n"	/* 6 */
	"  ws = f32[4,16] get-tuple-element(s), index=1\n"	/* 7 */
	"  z = s32[] constant(0)\n"				/* 8 */
	"  w = f32[1,16] dynamic-slice(ws, i, z), "
	"dynamic_slice_sizes={1,16}\n"			/* 9 */
	"  k = f32[1,16] dynamic-slice(ws, z, z), "
	"dynamic_slice_sizes={1,16}\n"			/* 10 */
	"  e = f32[1,16] exponential(w)\n"			/* 11 */
	"  f = f32[1,16] sine(k)\n"				/* 12 */
	"  c = f32[1,16] cosine(k), "
	"frontend_attributes={hloplan_double_buffer=\"3\"}\n" /* 13 */
	"  ROOT t = (s32[], f32[4,16]) tuple(i, ws)\n"	/* 14 */
	"}\n"
	"ENTRY e {\n"
	"  x = f32[4,16] parameter(0)\n"			/* 0 */
	"  zero = s32[] constant(0)\n"			/* 1 */
	"  init = (s32[], f32[4,16]) tuple(zero, x)\n"	/* 2 */
	"  l = (s32[], f32[4,16]) while(init), condition=cond, body=body\n"
	"  y = f32[1,16] dynamic-slice(x, zero, zero), "
	"dynamic_slice_sizes={1,16}\n"
	"  ROOT r = f32[1,16] negate(y)\n"
	"}\n";

/* A dynamic-slice of the loop state indexed by the loop counter gets two
 * slots live over the whole loop; one at a fixed index does not, nor one
 * outside a loop; a frontend attribute asks for three. */
static void
test_double_buffer(void **state)
{
	const struct buffer *w;

	(void)state;
	assert_int_equal(plan_text(stream, 0), 0);
	w = buf("w");
	assert_int_equal(w->slots, 2);
	assert_int_equal(w->stride, 64);
	assert_int_equal(w->size, 128);
	assert_int_equal(w->start, 3);
	assert_int_equal(w->end, 15);
	expect("k", 10, 13, 0);
	assert_int_equal(buf("k")->slots, 1);
	assert_int_equal(buf("y")->slots, 1);
	assert_int_equal(buf("c")->slots, 3);
	assert_int_equal(buf("c")->size, 3 * 64);
}

static void
no_double_buffer(struct options *o)
{
	o->double_buffer = 0;
}

static void
named_and_three(struct options *o)
{
	static const char *names[] = {"f"};

	o->slots = 3;
	o->nname = 1;
	o->names = names;
}

static void
unknown_name(struct options *o)
{
	static const char *names[] = {"nothing"};

	o->nname = 1;
	o->names = names;
}

/* --no-double-buffer keeps only what the module asks for itself;
 * --double-buffer=NAME and --slots=K add and widen; a name that is not in a
 * loop body is an error. */
static void
test_double_buffer_options(void **state)
{
	(void)state;
	assert_int_equal(plan_with(stream, 0, no_double_buffer), 0);
	assert_int_equal(buf("w")->slots, 1);
	assert_int_equal(buf("c")->slots, 3);
	assert_int_equal(plan_with(stream, 0, named_and_three), 0);
	assert_int_equal(buf("w")->slots, 3);
	assert_int_equal(buf("f")->slots, 3);
	assert_int_equal(buf("f")->stride, 64);
	assert_int_equal(plan_with(stream, 0, unknown_name), -1);
	assert_non_null(strstr(F.ds.d[0].msg, "--double-buffer=nothing"));
}

/* A copy-start's destination is streamed: two slots; its source stays
 * live until the copy-done. */
static void
test_copy_start_slots(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"cond {\n"
		"  s = (f32[16]) parameter(0)\n"			/* 2 */
		"  ROOT p = pred[] constant(false)\n"		/* 3 */
		"}\n"
		"body {\n"
		"  s = (f32[16]) parameter(0)\n"			/* 4 */
		"  a = f32[16] get-tuple-element(s), index=0\n"	/* 5 */
		"  cs = (f32[16], f32[16], u32[]) copy-start(a)\n"	/* 6 */
		"  b = f32[16] sine(a)\n"				/* 7 */
		"  cd = f32[16] copy-done(cs)\n"			/* 8 */
		"  n = f32[16] add(cd, b)\n"			/* 9 */
		"  ROOT t = (f32[16]) tuple(n)\n"			/* 10 */
		"}\n"
		"ENTRY e {\n"
		"  x = f32[16] parameter(0)\n"			/* 0 */
		"  init = (f32[16]) tuple(x)\n"			/* 1 */
		"  w = (f32[16]) while(init), condition=cond, body=body\n"
		"  ROOT r = f32[16] get-tuple-element(w), index=0\n"
		"}\n", 0), 0);
	assert_int_equal(buf("cs{0}")->slots, 2);
	assert_int_equal(buf("cs{0}")->start, 2);
	assert_int_equal(buf("cs{0}")->end, 11);
	assert_int_equal(buf("cs{2}")->slots, 1);
}

static void
schedule_mem(struct options *o)
{
	o->schedule = SCHED_MEM;
}

/* Text order holds four 1 KiB results at once before summing them; a
 * memory-aware order sums each as soon as it exists.  Control
 * predecessors and side effects keep their order. */
static void
test_memory_schedule(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"ENTRY e {\n"
		"  x = f32[256] parameter(0)\n"
		"  a = f32[256] sine(x)\n"
		"  b = f32[256] cosine(x)\n"
		"  c = f32[256] tanh(x)\n"
		"  d = f32[256] exponential(x)\n"
		"  ab = f32[256] add(a, b)\n"
		"  abc = f32[256] add(ab, c)\n"
		"  ROOT abcd = f32[256] add(abc, d)\n"
		"}\n";
	int64_t text;

	(void)state;
	assert_int_equal(plan_with(src, 0, NULL), 0);
	text = F.plan.sched.peak;
	assert_string_equal(F.plan.sched.name, "text");
	assert_int_equal(text, 5 * 1024);	/* a, b, c, d, ab at ab */
	assert_int_equal(plan_with(src, 0, schedule_mem), 0);
	assert_int_equal(F.plan.sched.peak_text, text);
	assert_true(F.plan.sched.peak < text);
	assert_int_equal(F.plan.sched.peak, 4 * 1024);
	assert_string_not_equal(F.plan.sched.name, "text");
	/* The schedule the plan assumes is in it, root last. */
	assert_string_equal(F.plan.steps[F.plan.ntime - 1], "e/abcd");
}

/* The index of the step that runs instruction `name` of the entry. */
static int
step_of(const char *name)
{
	char full[128];

	snprintf(full, sizeof full, "e/%s", name);
	for (int t = 0; t < F.plan.ntime; t++)
		if (!strcmp(F.plan.steps[t], full))
			return t;
	fail_msg("no step runs %s", name);
	return -1;
}

/* Two chains: text order runs both big producers first; running each
 * chain to its end lowers the peak, and unconstrained the heavier chain
 * (a, ra, s2) and the heavier d would run first.  The side-effecting
 * custom-calls s1, s2 and the control predecessor c of d keep their
 * order all the same. */
static void
test_schedule_constraints(void **state)
{
	static const char src[] =
		"HloModule m\n"
		"ENTRY e {\n"
		"  x = f32[16] parameter(0)\n"
		"  a = f32[128,16] broadcast(x), dimensions={1}\n"
		"  b = f32[64,16] broadcast(x), dimensions={1}\n"
		"  ra = f32[1,16] slice(a), slice={[0:1], [0:16]}\n"
		"  rb = f32[1,16] slice(b), slice={[0:1], [0:16]}\n"
		"  s1 = f32[16] custom-call(rb), custom_call_target=\"log\", "
		"custom_call_has_side_effect=true\n"
		"  s2 = f32[16] custom-call(ra), custom_call_target=\"log\", "
		"custom_call_has_side_effect=true\n"
		"  c = f32[16] negate(x)\n"
		"  d = f32[16,16] broadcast(x), dimensions={1}, "
		"control-predecessors={c}\n"
		"  ROOT r = (f32[16], f32[16], f32[16], f32[16,16]) "
		"tuple(s1, s2, c, d)\n"
		"}\n";

	(void)state;
	assert_int_equal(plan_with(src, 0, schedule_mem), 0);
	assert_int_equal(F.plan.sched.peak_text, 12416);
	assert_int_equal(F.plan.sched.peak, 8320);
	assert_true(step_of("ra") < step_of("b"));
	assert_true(step_of("s1") < step_of("s2"));
	assert_true(step_of("c") < step_of("d"));
	assert_int_equal(step_of("r"), F.plan.ntime - 1);
}

/* A computation called from two sites is cloned: each call's values have
 * their own buffers and live ranges. */
static void
test_flatten_calls(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"f {\n"
		"  a = f32[4] parameter(0)\n"
		"  ROOT s = f32[4] sine(a), metadata={op_name=\"jit(f)/sin\" "
		"source_file=\"f.py\" source_line=3}\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"			/* 0 */
		"  c1 = f32[4] call(x), to_apply=f\n"		/* a 1, s 2, c1 3 */
		"  y = f32[4] cosine(x)\n"			/* 4 */
		"  c2 = f32[4] call(y), to_apply=f\n"		/* a 5, s 6, c2 7 */
		"  ROOT r = f32[4] add(c1, c2)\n"		/* 8 */
		"}\n", 0), 0);
	assert_int_equal(F.plan.ntime, 9);
	expect("s", 2, 8, 0);
	expect("s.clone1", 6, 8, 0);
	assert_string_equal(F.plan.steps[6], "f.clone1/s.clone1");
	/* A clone comes from where its original does. */
	assert_string_equal(buf("s.clone1")->src_file, "f.py");
	assert_int_equal(buf("s.clone1")->src_line, 3);
	assert_string_equal(buf("s.clone1")->op_name, "jit(f)/sin");
}

/* M04 is a loop the tracer unrolled: 64 dynamic-slices of x.1, named
 * dynamic_slice.64 to dynamic_slice.127, at offsets read from a
 * parameter.  They take turns in one block of two slots, in schedule
 * order; nothing else in the module is streamed. */
static void
test_m04_unrolled_stream(void **state)
{
	char path[1024], name[64];
	FILE *fp;
	static char text[1 << 16];
	size_t len;
	struct hlofile *f;
	struct options o;
	int last = -1, seen = 0, block = -1;

	(void)state;
	snprintf(path, sizeof path, "%s/hlo/M04_dynamic_slice_loop_bf16.hlo",
		 HLOPLAN_CORPUS_DIR);
	if (!(fp = fopen(path, "rb")))
		skip();
	len = fread(text, 1, sizeof text - 1, fp);
	fclose(fp);
	pool_free(F.pool);
	memset(&F, 0, sizeof F);
	F.pool = pool_new();
	F.ds.pool = F.pool;
	f = frontend_parse(F.pool, text, len, &F.ds);
	assert_int_equal(F.ds.n, 0);
	options_default(&o);
	assert_int_equal(plan_module(F.pool, &F.ds, &f->mods[0], &o, NULL,
				     &F.plan), 0);
	for (int k = 0; k < F.plan.npos; k++) {
		const struct plan_pos *q = &F.plan.pos[k];

		if (strncmp(q->name, "dynamic_slice.", 14))
			continue;
		if (block < 0)
			block = q->buf;
		assert_int_equal(q->buf, block);
		assert_int_equal(q->slot, last < 0 ? 0 : 1 - last);
		last = q->slot;
		seen++;
	}
	assert_int_equal(seen, 64);
	for (int j = 64; j < 128; j++) {
		snprintf(name, sizeof name, "dynamic_slice.%d", j);
		if (j == 64)
			assert_int_equal(buf(name)->slots, 2);
		else
			assert_false(has_buffer(name));
	}
	assert_int_equal(buf("dynamic_slice.64")->stride, 49152);
	for (int b = 0; b < F.plan.nbuf; b++)
		assert_true(F.plan.bufs[b].slots == 1 ||
			    &F.plan.bufs[b] == buf("dynamic_slice.64"));
}

/* A shape mismatch between a gte and its tuple is the input's error,
 * reported by the frontend (frontend/agree.c) before any pass runs. */
static void
test_bad_gte_shape(void **state)
{
	static const char src[] = "HloModule m\n"
		"ENTRY e {\n"
		"  x = (f32[4], f32[4]) parameter(0)\n"
		"  ROOT g = (f32[4], f32[4]) get-tuple-element(x), index=0\n"
		"}\n";

	(void)state;
	pool_free(F.pool);
	memset(&F, 0, sizeof F);
	F.pool = pool_new();
	F.ds.pool = F.pool;
	frontend_parse(F.pool, src, strlen(src), &F.ds);
	assert_true(F.ds.n > 0);
	assert_non_null(strstr(F.ds.d[0].msg, "does not match"));
}

/* Issue 17: the loop state updated in place.  The body's
 * dynamic-update-slice writes over the state it reads last, and its result
 * is the next state: one buffer, no copy but the counter's init (XLA runs
 * it in place; before, the state was copied in and out every iteration). */
static const char dus_loop[] =
	"HloModule m\n"
	"cond {\n"
	"  s = (s32[], f32[64]) parameter(0)\n"
	"  i = s32[] get-tuple-element(s), index=0\n"
	"  n = s32[] constant(4)\n"
	"  ROOT lt = pred[] compare(i, n), direction=LT\n"
	"}\n"
	"body {\n"
	"  s = (s32[], f32[64]) parameter(0)\n"
	"  i = s32[] get-tuple-element(s), index=0\n"
	"  x = f32[64] get-tuple-element(s), index=1\n"
	"  u = f32[1] constant({1})\n"
	"  d = f32[64] dynamic-update-slice(x, u, i)\n"
	"  one = s32[] constant(1)\n"
	"  j = s32[] add(i, one)\n"
	"  ROOT t = (s32[], f32[64]) tuple(j, d)\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[64] parameter(0)\n"
	"  b = f32[64] negate(a)\n"
	"  zero = s32[] constant(0)\n"
	"  init = (s32[], f32[64]) tuple(zero, b)\n"
	"  w = (s32[], f32[64]) while(init), condition=cond, body=body\n"
	"  ROOT r = f32[64] get-tuple-element(w), index=1\n"
	"}\n";

static void
test_dus_state_in_place(void **state)
{
	(void)state;
	assert_int_equal(plan_text(dus_loop, 0), 0);
	assert_false(has_buffer("d"));		/* in b's buffer */
	assert_false(has_buffer("w{1}"));
	assert_int_equal(F.plan.ncopy, 1);	/* zero, a constant, into w{0} */
	assert_int_equal(F.plan.copies[0].dst, buf("w{0}") - F.plan.bufs);
}

/* A ROOT element is read at the end of its computation: the body passes
 * x on as element 2 and also updates it in place as element 1, so the
 * update needs a copy of x first (before, d overwrote x). */
static void
test_root_read_at_end(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"cond {\n"
		"  s = (s32[], f32[64], f32[64]) parameter(0)\n"
		"  ROOT p = pred[] constant(false)\n"
		"}\n"
		"body {\n"
		"  s = (s32[], f32[64], f32[64]) parameter(0)\n"	/* 5 */
		"  i = s32[] get-tuple-element(s), index=0\n"	/* 6 */
		"  x = f32[64] get-tuple-element(s), index=1\n"	/* 7 */
		"  u = f32[1] constant({1})\n"			/* 8 */
		"  d = f32[64] dynamic-update-slice(x, u, i)\n"	/* 9 */
		"  ROOT t = (s32[], f32[64], f32[64]) tuple(i, d, x)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[64] parameter(0)\n"
		"  zero = s32[] constant(0)\n"
		"  init = (s32[], f32[64], f32[64]) tuple(zero, a, a)\n"
		"  w = (s32[], f32[64], f32[64]) while(init), condition=cond, "
		"body=body\n"
		"  ROOT r = f32[64] get-tuple-element(w), index=2\n"
		"}\n", 0), 0);
	assert_true(has_buffer("d"));
	for (int k = 0; k < F.plan.ncopy; k++)
		if (F.plan.copies[k].dst == buf("d") - F.plan.bufs) {
			assert_int_equal(F.plan.copies[k].step, 9);
			assert_int_equal(F.plan.copies[k].after, 0);
			return;
		}
	fail_msg("no copy into d before its step");
}

/* Entry outputs get buffers of their own (XLA's special-case copies): a
 * parameter returned, a constant returned, a value returned twice; each
 * copied at the end, its position forwarding. */
static void
test_output_copies(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[8] parameter(0)\n"
		"  k = f32[8] constant({1,2,3,4,5,6,7,8})\n"
		"  n = f32[8] negate(a)\n"
		"  ROOT r = (f32[8], f32[8], f32[8], f32[8]) tuple(a, k, n, n)\n"
		"}\n", 0), 0);
	assert_int_equal(F.plan.ncopy, 3);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(F.plan.copies[k].step, 3);
		assert_int_equal(F.plan.copies[k].after, 1);
	}
	assert_int_equal(buf("r{0}")->flags & BUF_OUTPUT, BUF_OUTPUT);
	assert_int_equal(buf("r{3}")->flags & BUF_OUTPUT, BUF_OUTPUT);
	assert_int_equal(buf("a")->flags & BUF_OUTPUT, 0);
}

/* Flattening is complete: 100 call sites of one computation (past the
 * old cap of 64 clones) each get a clone, and their values buffers of
 * their own. */
static void
test_flatten_many_sites(void **state)
{
	static char src[1 << 14];
	size_t n;

	(void)state;
	n = (size_t)snprintf(src, sizeof src, "HloModule m\n"
			     "f {\n  a = f32[4] parameter(0)\n"
			     "  ROOT s = f32[4] sine(a)\n}\n"
			     "ENTRY e {\n  c0 = f32[4] parameter(0)\n");
	for (int k = 1; k <= 100; k++)
		n += (size_t)snprintf(src + n, sizeof src - n,
				      "  c%d = f32[4] call(c%d), to_apply=f\n",
				      k, k - 1);
	snprintf(src + n, sizeof src - n,
		 "  ROOT r = f32[4] add(c100, c0)\n}\n");
	assert_int_equal(plan_text(src, 0), 0);
	assert_true(has_buffer("s.clone99"));
	assert_int_equal(F.plan.ntime, 1 + 3 * 100 + 1);
}

/* A loop whose body makes its next state in another memory space: the
 * two cannot share a buffer, so the body's result is copied in. */
static void
test_join_across_spaces(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"cond {\n"
		"  s = (f32[64]) parameter(0)\n"
		"  ROOT p = pred[] constant(false)\n"
		"}\n"
		"body {\n"
		"  s = (f32[64]) parameter(0)\n"			/* 4 */
		"  x = f32[64] get-tuple-element(s), index=0\n"	/* 5 */
		"  y = f32[64]{0:S(1)} negate(x)\n"			/* 6 */
		"  ROOT t = (f32[64]{0:S(1)}) tuple(y)\n"		/* 7 */
		"}\n"
		"ENTRY e {\n"
		"  a = f32[64] parameter(0)\n"
		"  init = (f32[64]) tuple(a)\n"
		"  w = (f32[64]) while(init), condition=cond, body=body\n"
		"  ROOT r = f32[64] get-tuple-element(w), index=0\n"
		"}\n", 0), 0);
	assert_int_equal(buf("y")->space, 1);
	assert_int_equal(F.plan.ncopy, 1);
	assert_int_equal(F.plan.copies[0].src, buf("y") - F.plan.bufs);
	assert_int_equal(F.plan.copies[0].step, 7);
}

/* A multi-output fusion whose ROOT tuple's element 1 updates parameter 1
 * in place: XLA compiles it to write only the slice, so output {1} is in
 * its operand's buffer (n dies there: no copy); element 0 is not. */
static void
test_fusion_tuple_in_place(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m\n"
		"f {\n"
		"  p0 = f32[64] parameter(0)\n"
		"  p1 = f32[64] parameter(1)\n"
		"  u = f32[1] constant({1})\n"
		"  i = s32[] constant(0)\n"
		"  a = f32[64] add(p0, p0)\n"
		"  d = f32[64] dynamic-update-slice(p1, u, i)\n"
		"  ROOT t = (f32[64], f32[64]) tuple(a, d)\n"
		"}\n"
		"ENTRY e {\n"
		"  x = f32[64] parameter(0)\n"
		"  m = f32[64] negate(x)\n"
		"  n = f32[64] exponential(x)\n"
		"  r = (f32[64], f32[64]) fusion(m, n), kind=kLoop, calls=f\n"
		"  r0 = f32[64] get-tuple-element(r), index=0\n"
		"  r1 = f32[64] get-tuple-element(r), index=1\n"
		"  ROOT s = f32[64] add(r0, r1)\n"
		"}\n", 0), 0);
	assert_false(has_buffer("r{1}"));	/* in n's buffer */
	assert_true(has_buffer("r{0}"));
	assert_int_equal(F.plan.ncopy, 0);
}

/* With parameters out of the arena (the runtime owns them, read-only), a
 * loop that passes a parameter on unchanged keeps it in place: nothing
 * writes that state, so no copy (XLA's AsyncDUSInLoop); a state the body
 * writes gets a copy of its parameter in. */
static void
io_out(struct options *o)
{
	o->io_in_arena = 0;
}

static void
test_read_only_state(void **state)
{
	(void)state;
	assert_int_equal(plan_with(
		"HloModule m\n"
		"cond {\n"
		"  s = (f32[64], f32[64]) parameter(0)\n"
		"  ROOT p = pred[] constant(false)\n"
		"}\n"
		"body {\n"
		"  s = (f32[64], f32[64]) parameter(0)\n"
		"  x = f32[64] get-tuple-element(s), index=0\n"
		"  y = f32[64] get-tuple-element(s), index=1\n"
		"  z = f32[64] add(x, y)\n"
		"  ROOT t = (f32[64], f32[64]) tuple(x, z)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[64] parameter(0)\n"
		"  b = f32[64] parameter(1)\n"
		"  init = (f32[64], f32[64]) tuple(a, b)\n"
		"  w = (f32[64], f32[64]) while(init), condition=cond, body=body\n"
		"  ROOT r = f32[64] get-tuple-element(w), index=1\n"
		"}\n", 0, io_out), 0);
	assert_false(has_buffer("w{0}"));	/* a, in place */
	assert_true(has_buffer("w{1}"));	/* b is copied in */
	assert_int_equal(F.plan.ncopy, 1);
	assert_int_equal(F.plan.copies[0].src, buf("b") - F.plan.bufs);
}

/* A control predecessor written after its successor: the text order
 * would break it, so an unscheduled module runs the closest order that
 * keeps it (d before c); a scheduled one is refused with the position. */
static void
test_control_predecessor_later(void **state)
{
	static const char body[] =
		"ENTRY e {\n"
		"  a = f32[16] parameter(0)\n"
		"  b = f32[16] negate(a)\n"
		"  c = f32[16] exponential(a), control-predecessors={d}\n"
		"  d = f32[16] sine(a)\n"
		"  ROOT t = (f32[16], f32[16], f32[16]) tuple(b, c, d)\n"
		"}\n";
	static char src[1024];

	(void)state;
	snprintf(src, sizeof src, "HloModule m\n%s", body);
	assert_int_equal(plan_text(src, 0), 0);
	assert_true(step_of("d") < step_of("c"));
	assert_int_equal(step_of("b"), 1);
	snprintf(src, sizeof src, "HloModule m, is_scheduled=true\n%s", body);
	assert_int_equal(plan_text(src, 0), -1);
	assert_non_null(strstr(F.ds.d[0].msg, "the schedule runs 'c' before "
				"its control predecessor 'd'"));
	assert_int_equal(F.ds.d[0].loc.line, 5);
}

/* A may-alias whose output and parameter are live at once is not kept
 * (the output gets a buffer of its own), and the plan says so; a
 * must-alias is kept by a copy. */
static void
test_alias_kept_count(void **state)
{
	(void)state;
	assert_int_equal(plan_text(
		"HloModule m, input_output_alias={ {0}: (0, {}, may-alias), "
		"{1}: (1, {}, must-alias) }\n"
		"ENTRY e {\n"
		"  x = f32[8] parameter(0)\n"
		"  y = f32[8] parameter(1)\n"
		"  a = f32[8] reverse(x), dimensions={0}\n"
		"  b = f32[8] reverse(y), dimensions={0}\n"
		"  ROOT r = (f32[8], f32[8], f32[8]) tuple(a, b, y)\n"
		"}\n", 0), 0);
	assert_int_equal(F.plan.nalias, 2);
	assert_int_equal(F.plan.nalias_kept, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_straight_line),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_keep_params),
		cmocka_unit_test(test_branch_returns_operand),
		cmocka_unit_test(test_colocate),
		cmocka_unit_test(test_colocate_loop_state),
		cmocka_unit_test(test_colocate_after_condition),
		cmocka_unit_test(test_async_call_forwards),
		cmocka_unit_test(test_async_in_place),
		cmocka_unit_test(test_rotation_one_copy),
		cmocka_unit_test(test_tuple_forwarding),
		cmocka_unit_test(test_tuple_copy_shallow),
		cmocka_unit_test(test_while),
		cmocka_unit_test(test_loop_use_lives_to_loop_end),
		cmocka_unit_test(test_conditional),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_input_output_alias),
		cmocka_unit_test(test_call_and_fusion),
		cmocka_unit_test(test_constants_and_no_overlap),
		cmocka_unit_test(test_copy_in_place),
		cmocka_unit_test(test_copy_swap),
		cmocka_unit_test(test_copy_while_dot),
		cmocka_unit_test(test_double_buffer),
		cmocka_unit_test(test_double_buffer_options),
		cmocka_unit_test(test_copy_start_slots),
		cmocka_unit_test(test_memory_schedule),
		cmocka_unit_test(test_schedule_constraints),
		cmocka_unit_test(test_flatten_calls),
		cmocka_unit_test(test_m04_unrolled_stream),
		cmocka_unit_test(test_bad_gte_shape),
		cmocka_unit_test(test_dus_state_in_place),
		cmocka_unit_test(test_root_read_at_end),
		cmocka_unit_test(test_output_copies),
		cmocka_unit_test(test_flatten_many_sites),
		cmocka_unit_test(test_join_across_spaces),
		cmocka_unit_test(test_fusion_tuple_in_place),
		cmocka_unit_test(test_read_only_state),
		cmocka_unit_test(test_control_predecessor_later),
		cmocka_unit_test(test_alias_kept_count),
	};
	int r;

	r = cmocka_run_group_tests(tests, NULL, NULL);
	pool_free(F.pool);
	return r;
}

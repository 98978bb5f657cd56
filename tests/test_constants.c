/* Constants' bytes (passes/constants.c): small modules planned through the
 * library, each constant's bytes checked exactly as its buffer lays them
 * out: every dtype family, layouts, TPU tiles, tuples, elided literals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "driver.h"
#include "frontend/frontend.h"
#include "tests/oracle/num.h"
#include "tests/splitmix.h"

struct fixture {
	struct pool *pool;
	struct diags ds;
	struct plan plan;
};

static struct fixture F;

/* Plans src for a target with alignment 1 (sizes are bytes). */
static void
plan_for(const char *src, int target)
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
	o.target = target;
	assert_int_equal(plan_module(F.pool, &F.ds, &f->mods[0], &o, NULL,
				     &F.plan), 0);
}

/* The constant at node `node` of instruction `name`. */
static const struct plan_const *
cst_node(const char *name, int node)
{
	for (int k = 0; k < F.plan.nconst; k++) {
		const struct plan_const *c = &F.plan.consts[k];
		const struct plan_pos *q = &F.plan.pos[c->pos];

		if (!strcmp(q->name, name) && q->node == node)
			return c;
	}
	fail_msg("no constant '%s' node %d", name, node);
	return NULL;
}

static const struct plan_const *
cst(const char *name)
{
	return cst_node(name, 0);
}

/* Its bytes begin with want[0 .. n) and are zero after; one not known
 * has none (n 0), and no place. */
static void
expect_data(const struct plan_const *c, const unsigned char *want, size_t n)
{
	const unsigned char *d;

	if (!c->known) {
		assert_int_equal(c->offset, -1);
		assert_int_equal(n, 0);
		return;
	}
	d = F.plan.const_data + c->offset;

	assert_int_equal(c->offset % 64, 0);
	assert_true((int64_t)n <= c->bytes);
	assert_memory_equal(d, want, n);
	for (int64_t k = (int64_t)n; k < c->bytes; k++)
		if (d[k])
			fail_msg("byte %lld is %#x, expected 0", (long long)k,
				 d[k]);
}

#define EXPECT(name, ...)                                                     \
	do {                                                                  \
		static const unsigned char w_[] = {__VA_ARGS__};              \
		const struct plan_const *c_ = cst(name);                      \
		assert_int_equal(c_->known, 1);                               \
		expect_data(c_, w_, sizeof w_);                               \
	} while (0)

#define EXPECT_NODE(name, node, ...)                                          \
	do {                                                                  \
		static const unsigned char w_[] = {__VA_ARGS__};              \
		const struct plan_const *c_ = cst_node(name, node);           \
		assert_int_equal(c_->known, 1);                               \
		expect_data(c_, w_, sizeof w_);                               \
	} while (0)

#define MODULE(body) "HloModule m\nENTRY e {\n" body "}\n"

static void
test_ints(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = s8[3] constant({-1, 127, -128})\n"
		"  b = s16[] constant(-2)\n"
		"  c = s32[2] constant({1, -2})\n"
		"  d = s64[] constant(-3)\n"
		"  e = u8[] constant(255)\n"
		"  f = u16[] constant(513)\n"
		"  g = u32[] constant(4294967295)\n"
		"  h = u64[] constant(18446744073709551615)\n"
		"  ROOT t = (s8[3], s16[], s32[2], s64[], u8[], u16[], u32[],"
		" u64[]) tuple(a, b, c, d, e, f, g, h)\n"), TARGET_GPU);
	assert_int_equal(F.plan.nconst, 8);
	EXPECT("a", 0xff, 0x7f, 0x80);
	EXPECT("b", 0xfe, 0xff);
	EXPECT("c", 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff);
	EXPECT("d", 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
	EXPECT("e", 0xff);
	EXPECT("f", 0x01, 0x02);
	EXPECT("g", 0xff, 0xff, 0xff, 0xff);
	EXPECT("h", 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
	assert_int_equal(cst("c")->bytes, 8);
}

/* Out of the type's range, or the wrong kind of value: XLA refuses the
 * literal; we give no bytes. */
static void
test_ints_refused(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = s8[] constant(128)\n"
		"  b = u32[] constant(-1)\n"
		"  c = s32[] constant(1.5)\n"
		"  d = pred[] constant(2)\n"
		"  ROOT t = (s8[], u32[], s32[], pred[]) tuple(a, b, c, d)\n"),
		 TARGET_GPU);
	assert_int_equal(cst("a")->known, 0);
	assert_int_equal(cst("b")->known, 0);
	assert_int_equal(cst("c")->known, 0);
	assert_int_equal(cst("d")->known, 0);
	expect_data(cst("c"), NULL, 0);
}

static void
test_pred(void **state)
{
	(void)state;
	plan_for(MODULE("  ROOT p = pred[4] constant({true, false, 1, 0})\n"),
		 TARGET_GPU);
	EXPECT("p", 1, 0, 1, 0);
}

static void
test_floats(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = f32[2] constant({1.5, -2})\n"
		"  b = f64[] constant(-2.5)\n"
		"  c = f32[] constant(1e-05)\n"
		"  d = f32[] constant(0.1)\n"
		"  e = f32[2] constant({-0, -0.0})\n"
		"  ROOT t = (f32[2], f64[], f32[], f32[], f32[2]) tuple(a, b, c, d,"
		" e)\n"), TARGET_GPU);
	EXPECT("a", 0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0);
	EXPECT("b", 0, 0, 0, 0, 0, 0, 0x04, 0xc0);
	EXPECT("c", 0xac, 0xc5, 0x27, 0x37);	/* 0x3727c5ac */
	EXPECT("d", 0xcd, 0xcc, 0xcc, 0x3d);	/* 0x3dcccccd */
	/* XLA lexes -0 as the integer 0: +0.0; -0.0 is a decimal. */
	EXPECT("e", 0, 0, 0, 0, 0, 0, 0, 0x80);
}

/* Values between two representable ones round to nearest, ties to even:
 * 1 + 2^-8 is halfway between bf16 0x3f80 and 0x3f81 (to 0x3f80), 1 + 3 *
 * 2^-8 between 0x3f81 and 0x3f82 (to 0x3f82); 0.1 is 0x3dcd in bf16,
 * 0x2e66 in f16; 1e-05 is an f16 subnormal, 168 * 2^-24. */
static void
test_half_rounding(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = bf16[4] constant({1.00390625, 1.01171875, 0.1, -0.0})\n"
		"  b = f16[4] constant({0.1, 1e-05, 65504, -1})\n"
		"  ROOT t = (bf16[4], f16[4]) tuple(a, b)\n"), TARGET_GPU);
	EXPECT("a", 0x80, 0x3f, 0x82, 0x3f, 0xcd, 0x3d, 0x00, 0x80);
	EXPECT("b", 0x66, 0x2e, 0xa8, 0x00, 0xff, 0x7b, 0x00, 0xbc);
}

/* f16 overflows past 65504 (65520 rounds to inf): XLA refuses it. */
static void
test_half_overflow(void **state)
{
	(void)state;
	plan_for(MODULE("  ROOT a = f16[] constant(65520)\n"), TARGET_GPU);
	assert_int_equal(cst("a")->known, 0);
}

/* inf, -inf, nan, -nan and a NaN payload (XLA's nan(0x...)). */
static void
test_nan_inf(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = f32[5] constant({inf, -inf, nan, -nan, nan(0x123)})\n"
		"  b = bf16[2] constant({nan, -inf})\n"
		"  c = f64[] constant(-nan)\n"
		"  d = f16[] constant(inf)\n"
		"  e = bf16[1] constant({nan(0x80)})\n"
		"  ROOT t = (f32[5], bf16[2], f64[], f16[], bf16[1]) tuple(a, b, c,"
		" d, e)\n"), TARGET_GPU);
	EXPECT("a", 0, 0, 0x80, 0x7f, 0, 0, 0x80, 0xff, 0, 0, 0xc0, 0x7f,
	       0, 0, 0xc0, 0xff, 0x23, 0x01, 0x80, 0x7f);
	EXPECT("b", 0xc0, 0x7f, 0x80, 0xff);
	EXPECT("c", 0, 0, 0, 0, 0, 0, 0xf8, 0xff);
	EXPECT("d", 0x00, 0x7c);
	assert_int_equal(cst("e")->known, 0);	/* past bf16's 7 bits */
}

static void
test_complex(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = c64[2] constant({(1.5, -2), (0, 1)})\n"
		"  b = c128[] constant((1, -inf))\n"
		"  c = c64[] constant((nan, 0))\n"
		"  ROOT t = (c64[2], c128[], c64[]) tuple(a, b, c)\n"),
		 TARGET_GPU);
	EXPECT("a", 0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0,
	       0, 0, 0x80, 0x3f);
	EXPECT("b", 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0,
	       0xff);
	assert_int_equal(cst("c")->known, 0);	/* XLA's NaN copy: refused */
}

/* f8, f6, f4: rounded to nearest even, each in a byte (low bits). */
static void
test_small_floats(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = f8e4m3fn[4] constant({1, 448, -0.5, 0.001953125})\n"
		"  b = f8e5m2[3] constant({1, 1.125, -inf})\n"
		"  c = f8e4m3fnuz[2] constant({1, nan})\n"
		"  d = f4e2m1fn[3] constant({1, -6, 0.25})\n"
		"  e = f8e8m0fnu[2] constant({1, 0.25})\n"
		"  f = f8e4m3fn[] constant(480)\n"
		"  g = f6e2m3fn[3] constant({7.5, -1, 0.125})\n"
		"  h = f6e3m2fn[2] constant({28, -0.0625})\n"
		"  i = f8e8m0fnu[] constant(3)\n"
		"  ROOT t = (f8e4m3fn[4], f8e5m2[3], f8e4m3fnuz[2], f4e2m1fn[3],"
		" f8e8m0fnu[2], f8e4m3fn[], f6e2m3fn[3], f6e3m2fn[2], f8e8m0fnu[])"
		" tuple(a, b, c, d, e, f, g, h, i)\n"), TARGET_GPU);
	EXPECT("a", 0x38, 0x7e, 0xb0, 0x01);
	EXPECT("b", 0x3c, 0x3c, 0xfc);	/* 1.125: a tie, to even 1.0 */
	EXPECT("c", 0x40, 0x80);
	EXPECT("d", 0x02, 0x0f, 0x00);	/* 0.25: a tie, to even 0 */
	EXPECT("e", 0x7f, 0x7d);
	assert_int_equal(cst("f")->known, 0);	/* past 448 */
	EXPECT("g", 0x1f, 0x28, 0x01);	/* 0.125: the least subnormal */
	EXPECT("h", 0x1f, 0x21);
	assert_int_equal(cst("i")->known, 0);	/* not a power of two */
}

/* {0,1}: column-major, the physical order minor_to_major gives. */
static void
test_layout(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  ROOT a = s32[2,3]{0,1} constant({ {1, 2, 3}, {4, 5, 6} })\n"),
		 TARGET_GPU);
	EXPECT("a", 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0,
	       3, 0, 0, 0, 6, 0, 0, 0);
}

/* TPU: f32[2,3] without tiles takes the default (8,128): element (r, c)
 * at r * 128 + c of 8 * 128, the padding zero. */
static void
test_tpu_default_tile(void **state)
{
	const struct plan_const *c;
	const unsigned char *d;

	(void)state;
	plan_for(MODULE(
		"  ROOT a = f32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })\n"),
		 TARGET_TPU);
	c = cst("a");
	assert_int_equal(c->known, 1);
	assert_int_equal(c->bytes, 8 * 128 * 4);
	d = F.plan.const_data + c->offset;
	for (int k = 0; k < 8 * 128; k++) {
		int r = k / 128, col = k % 128;
		float want = r < 2 && col < 3 ? (float)(1 + 3 * r + col) : 0;
		uint32_t bits;

		memcpy(&bits, &want, 4);
		for (int j = 0; j < 4; j++)	/* little-endian */
			if (d[4 * k + j] != (unsigned char)(bits >> (8 * j)))
				fail_msg("element %d is not %g", k, want);
	}
}

/* TPU, two tiles: T(8,128)(2,1) on bf16[4,2] stores each pair of rows
 * interleaved in the 8x128 tile: (r, c) at (r % 8 / 2) * 256 + c * 2 +
 * r % 2.  Scalars take T(256) for 16 bits. */
static void
test_tpu_two_tiles(void **state)
{
	static const int at[4][2] = {{0, 2}, {1, 3}, {256, 258}, {257, 259}};
	const struct plan_const *c;
	const unsigned char *d;

	(void)state;
	plan_for(MODULE(
		"  a = bf16[4,2]{1,0:T(8,128)(2,1)} constant({ {1, 2}, {3, 4},"
		" {5, 6}, {7, 8} })\n"
		"  b = bf16[] constant(1)\n"
		"  ROOT t = (bf16[4,2]{1,0:T(8,128)(2,1)}, bf16[]) tuple(a, b)\n"),
		 TARGET_TPU);
	c = cst("a");
	assert_int_equal(c->known, 1);
	assert_int_equal(c->bytes, 8 * 128 * 2);
	d = F.plan.const_data + c->offset;
	for (int r = 0; r < 4; r++)
		for (int col = 0; col < 2; col++) {
			/* bf16 of 1 .. 8: 0x3f80, 0x4000, 0x4040, ... */
			static const unsigned char hi[] = {0x3f, 0x40, 0x40,
				0x40, 0x40, 0x40, 0x40, 0x41};
			static const unsigned char lo[] = {0x80, 0x00, 0x40,
				0x80, 0xa0, 0xc0, 0xe0, 0x00};
			int v = 2 * r + col;

			assert_int_equal(d[2 * at[r][col]], lo[v]);
			assert_int_equal(d[2 * at[r][col] + 1], hi[v]);
		}
	assert_int_equal(cst("b")->bytes, 512);
	EXPECT("b", 0x80, 0x3f);
}

/* Without tiles, a bf16 array of rank 2 takes the TPU's (8,128)(2,1) as
 * the corpus shows them, not (8,128) alone; 64-bit ones, whose in-tile
 * order we have not seen, are given up. */
static void
test_tpu_default_narrow(void **state)
{
	const unsigned char *d;

	(void)state;
	plan_for(MODULE(
		"  a = bf16[4,2] constant({ {1, 2}, {3, 4}, {5, 6}, {7, 8} })\n"
		"  b = s64[2,2] constant({ {1, 2}, {3, 4} })\n"
		"  ROOT t = (bf16[4,2], s64[2,2]) tuple(a, b)\n"), TARGET_TPU);
	assert_int_equal(cst("a")->known, 1);
	d = F.plan.const_data + cst("a")->offset;
	assert_int_equal(d[2 * 1 + 1], 0x40);	/* (1, 0) = 3 at 1 */
	assert_int_equal(d[2 * 1], 0x40);
	assert_int_equal(d[2 * 256 + 1], 0x40);	/* (2, 0) = 5 at 256 */
	assert_int_equal(d[2 * 256], 0xa0);
	assert_int_equal(cst("b")->known, 0);
}

/* TPU: minor_to_major first, then the tiles: {0,1} makes dimension 0 the
 * minor one, so (r, c) is at c * 128 + r.  s4 T(8,128)(8,1)E(4), as the
 * corpus has it: (r, c) at c * 8 + r, two elements a byte. */
static void
test_tpu_layout_and_packing(void **state)
{
	const unsigned char *d;

	(void)state;
	plan_for(MODULE(
		"  a = s32[2,3]{0,1} constant({ {1, 2, 3}, {4, 5, 6} })\n"
		"  b = s4[2,3]{1,0:T(8,128)(8,1)E(4)} constant({ {1, 2, 3},"
		" {4, 5, 6} })\n"
		"  ROOT t = (s32[2,3]{0,1}, s4[2,3]{1,0:T(8,128)(8,1)E(4)})"
		" tuple(a, b)\n"), TARGET_TPU);
	d = F.plan.const_data + cst("a")->offset;
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 3; c++)
			assert_int_equal(d[4 * (c * 128 + r)], 1 + 3 * r + c);
	assert_int_equal(cst("b")->bytes, 8 * 128 / 2);
	d = F.plan.const_data + cst("b")->offset;
	assert_int_equal(d[0], 0x41);
	assert_int_equal(d[4], 0x52);
	assert_int_equal(d[8], 0x63);
	for (int k = 0; k < 8 * 128 / 2; k++)
		if (k != 0 && k != 4 && k != 8 && d[k])
			fail_msg("byte %d is %#x, expected 0", k, d[k]);
}

/* A tuple constant: one per leaf, each laid out on its own. */
static void
test_tuple(void **state)
{
	const struct plan_const *a, *b;

	(void)state;
	plan_for(MODULE(
		"  ROOT t = (f32[2], (s32[], pred[])) constant(({1, 2}, (3, true)))\n"),
		 TARGET_GPU);
	assert_int_equal(F.plan.nconst, 3);
	a = cst_node("t", 1);
	b = cst_node("t", 3);
	assert_int_equal(a->known, 1);
	expect_data(a, (const unsigned char[]){0, 0, 0x80, 0x3f, 0, 0, 0,
					       0x40}, 8);
	expect_data(b, (const unsigned char[]){3, 0, 0, 0}, 4);
	expect_data(cst_node("t", 4), (const unsigned char[]){1}, 1);
	assert_int_equal(F.plan.pos[a->pos].buf, a->buf);
	/* One leaf elided, the other still known. */
	plan_for(MODULE("  ROOT t = (f32[2], s32[]) constant(({...}, 3))\n"),
		 TARGET_GPU);
	assert_int_equal(cst_node("t", 1)->known, 0);
	EXPECT_NODE("t", 2, 3, 0, 0, 0);
}

/* {...}: elided, no bytes and no room (an 800 MB constant({...}) made a
 * 3.3 GB header of zeros); its size still given, and a known constant
 * after it placed as if it were not there. */
static void
test_elided(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = f32[4] constant({...})\n"
		"  b = f32[2,2] constant({...})\n"
		"  c = s32[] constant(7)\n"
		"  ROOT t = (f32[4], f32[2,2], s32[]) tuple(a, b, c)\n"),
		 TARGET_GPU);
	assert_int_equal(cst("a")->known, 0);
	assert_int_equal(cst("a")->bytes, 16);
	assert_int_equal(cst("a")->offset, -1);
	assert_int_equal(cst("b")->offset, -1);
	assert_int_equal(cst("c")->known, 1);
	assert_int_equal(cst("c")->offset, 0);
	expect_data(cst("c"), (const unsigned char[]){7, 0, 0, 0}, 4);
	assert_int_equal(F.plan.const_bytes, 4);
}

/* No elements: nothing to write (the TPU pads a dimension of 0 to 0). */
static void
test_empty(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = bf16[0] constant({})\n"
		"  b = s32[2,0] constant({ {}, {} })\n"
		"  ROOT t = (bf16[0], s32[2,0]) tuple(a, b)\n"), TARGET_GPU);
	assert_int_equal(cst("a")->known, 1);
	assert_int_equal(cst("a")->bytes, 0);
	assert_int_equal(cst("b")->known, 1);
	plan_for(MODULE("  ROOT a = bf16[0] constant({})\n"), TARGET_TPU);
	assert_int_equal(cst("a")->known, 1);
	assert_int_equal(cst("a")->bytes, 0);
}

/* Too few or too many elements for the shape: not understood, no bytes. */
static void
test_wrong_count(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = f32[3] constant({1, 2})\n"
		"  b = s32[2,2] constant({ {1, 2}, {3, 4, 5} })\n"
		"  c = s32[2] constant({1, 2}, {3})\n"
		"  ROOT t = (f32[3], s32[2,2], s32[2]) tuple(a, b, c)\n"),
		 TARGET_GPU);
	assert_int_equal(cst("a")->known, 0);
	assert_int_equal(cst("b")->known, 0);
	assert_int_equal(cst("c")->known, 0);
	expect_data(cst("b"), NULL, 0);
}

/* A constant in a while body runs as a program step: it has its bytes. */
static void
test_while_body(void **state)
{
	(void)state;
	plan_for("HloModule m\n"
		 "body {\n"
		 "  p = s32[] parameter(0)\n"
		 "  one = s32[] constant(7)\n"
		 "  ROOT n = s32[] add(p, one)\n"
		 "}\n"
		 "cond {\n"
		 "  p = s32[] parameter(0)\n"
		 "  lim = s32[] constant(-10)\n"
		 "  ROOT lt = pred[] compare(p, lim), direction=LT\n"
		 "}\n"
		 "ENTRY e {\n"
		 "  z = s32[] constant(0)\n"
		 "  ROOT w = s32[] while(z), condition=cond, body=body\n"
		 "}\n", TARGET_GPU);
	EXPECT("one", 7, 0, 0, 0);
	EXPECT("lim", 0xf6, 0xff, 0xff, 0xff);
	EXPECT("z", 0, 0, 0, 0);
}

/* s4: E(4) packs two to a byte, the first in the low bits (PackIntN);
 * without E a byte each, the value in the low 4 bits. */
static void
test_s4(void **state)
{
	(void)state;
	plan_for(MODULE(
		"  a = s4[5]{0:E(4)} constant({1, -1, 7, -8, 3})\n"
		"  b = s4[4] constant({1, -1, 7, -8})\n"
		"  c = u4[2]{0:E(4)} constant({15, 2})\n"
		"  ROOT t = (s4[5]{0:E(4)}, s4[4], u4[2]{0:E(4)}) tuple(a, b, c)\n"),
		 TARGET_GPU);
	EXPECT("a", 0xf1, 0x87, 0x03);
	EXPECT("b", 0x01, 0x0f, 0x07, 0x08);
	EXPECT("c", 0x2f);
	assert_int_equal(cst("a")->bytes, 3);
}

/* A dynamic array: the bound's elements, then (GPU) an s32 size per
 * dimension; on the TPU with M(n) the sizes come first. */
static void
test_dynamic(void **state)
{
	(void)state;
	plan_for(MODULE("  ROOT a = s32[<=2] constant({5, 6})\n"), TARGET_GPU);
	EXPECT("a", 5, 0, 0, 0, 6, 0, 0, 0, 2, 0, 0, 0);
	plan_for(MODULE("  ROOT a = s32[<=2]{0:T(128)M(8)} constant({5, 6})\n"),
		 TARGET_TPU);
	EXPECT("a", 2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0);
	assert_int_equal(cst("a")->bytes, 8 + 128 * 4);
}

/* Plans `ROOT a = TYPE[n] constant({v...})` (each %.17g, exact) on the GPU
 * and checks its bytes against want[], one element of `size` bytes each. */
static void
expect_values(int dt, const double *v, int n, const unsigned char *want,
	      int size)
{
	static char text[1 << 16];
	int k = snprintf(text, sizeof text, "HloModule m\nENTRY e {\n  ROOT a "
			 "= %s[%d] constant({", dtype_name(dt), n);

	for (int i = 0; i < n; i++)
		k += snprintf(text + k, sizeof text - (size_t)k, "%s%.17g",
			      i ? ", " : "", v[i]);
	snprintf(text + k, sizeof text - (size_t)k, "})\n}\n");
	plan_for(text, TARGET_GPU);
	assert_int_equal(cst("a")->known, 1);
	for (int i = 0; i < n * size; i++)
		if (F.plan.const_data[cst("a")->offset + i] != want[i])
			fail_msg("%s %.17g: byte %d is %#x, the oracle's %#x",
				 dtype_name(dt), v[i / size], i % size,
				 F.plan.const_data[cst("a")->offset + i],
				 want[i]);
}

/* The f8 formats against the oracle's own encoder (tests/oracle/num_f8.c):
 * every finite code, the midpoint of each two neighbours (a tie, to even)
 * and their negatives (but those fnuz rounds to zero: it has no -0). */
static void
test_f8_against_oracle(void **state)
{
	static const int types[] = {DT_F8E5M2, DT_F8E4M3, DT_F8E3M4,
		DT_F8E4M3FN, DT_F8E4M3B11FNUZ, DT_F8E5M2FNUZ, DT_F8E4M3FNUZ};
	static double v[1024];
	static unsigned char want[1024];

	(void)state;
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
		int dt = types[t], n = 0;

		for (unsigned x = 0; x < 0x80; x++) {
			double d = num_f8_decode(dt, x), e =
				num_f8_decode(dt, x + 1);

			if (!isfinite(d))
				continue;
			v[n++] = d;
			if (x + 1 < 0x80 && isfinite(e))
				v[n++] = (d + e) / 2;
		}
		for (int i = 0, m = n; i < m; i++)
			if (v[i] != 0 && num_f8_encode(dt, -v[i]) != 0)
				v[n++] = -v[i];
		for (int i = 0; i < n; i++)
			want[i] = (unsigned char)num_f8_encode(dt, v[i]);
		expect_values(dt, v, n, want, 1);
	}
}

/* f16, bf16 (through f32, as Eigen converts a double) and f32 against the
 * oracle's stores, on 500 random doubles of each's range, subnormals
 * included. */
static void
test_floats_against_oracle(void **state)
{
	static const struct {
		int dt, size, lo, hi;
	} types[] = {{DT_F16, 2, -28, 15}, {DT_BF16, 2, -140, 127},
		     {DT_F32, 4, -152, 127}};
	static double v[500];
	static unsigned char want[500 * 4];
	uint64_t seed = 19;

	(void)state;
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
		int span = types[t].hi - types[t].lo;

		for (int i = 0; i < 500; i++) {
			uint64_t r = next_rand(&seed);
			double m = 1 + (double)(r >> 12) / 4503599627370496.0;
			int e = types[t].lo + (int)(r % (uint64_t)span);

			v[i] = (r >> 11 & 1 ? -m : m) * pow(2, e);
			num_put(types[t].dt, want, i, (union num){.f = v[i]});
		}
		expect_values(types[t].dt, v, 500, want, types[t].size);
	}
}

static int
teardown(void **state)
{
	(void)state;
	pool_free(F.pool);
	memset(&F, 0, sizeof F);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ints, teardown),
		cmocka_unit_test_teardown(test_ints_refused, teardown),
		cmocka_unit_test_teardown(test_pred, teardown),
		cmocka_unit_test_teardown(test_floats, teardown),
		cmocka_unit_test_teardown(test_half_rounding, teardown),
		cmocka_unit_test_teardown(test_half_overflow, teardown),
		cmocka_unit_test_teardown(test_nan_inf, teardown),
		cmocka_unit_test_teardown(test_complex, teardown),
		cmocka_unit_test_teardown(test_small_floats, teardown),
		cmocka_unit_test_teardown(test_layout, teardown),
		cmocka_unit_test_teardown(test_tpu_default_tile, teardown),
		cmocka_unit_test_teardown(test_tpu_two_tiles, teardown),
		cmocka_unit_test_teardown(test_tpu_default_narrow, teardown),
		cmocka_unit_test_teardown(test_tpu_layout_and_packing,
					  teardown),
		cmocka_unit_test_teardown(test_tuple, teardown),
		cmocka_unit_test_teardown(test_elided, teardown),
		cmocka_unit_test_teardown(test_empty, teardown),
		cmocka_unit_test_teardown(test_wrong_count, teardown),
		cmocka_unit_test_teardown(test_while_body, teardown),
		cmocka_unit_test_teardown(test_s4, teardown),
		cmocka_unit_test_teardown(test_dynamic, teardown),
		cmocka_unit_test_teardown(test_f8_against_oracle, teardown),
		cmocka_unit_test_teardown(test_floats_against_oracle, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

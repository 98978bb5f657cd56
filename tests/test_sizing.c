/* Sizes for the targets, as XLA lays them out (README "Sizes"): TPU tile
 * padding (explicit tiles, the default tiles, L(n)), sub-byte types and
 * E(n), dynamic-shape metadata, GPU bytes, the entry's result layout, and
 * the tiles of the TPU-tiled corpus modules honoured end to end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hloplan.h>

#include "driver.h"
#include "frontend/frontend.h"

/* Bytes the target stores for one shape written in HLO. */
static int64_t
bytes_of(const char *shape, int target, int tile_r, int tile_c)
{
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = "t"};
	char *src = pool_printf(pool, "HloModule m\nENTRY e {\n  ROOT x = %s "
				"parameter(0)\n}\n", shape);
	struct hlofile *f = frontend_parse(pool, src, strlen(src), &ds);
	struct options o;
	int64_t r;

	if (ds.n)
		fail_msg("%s: %s", shape, ds.d[0].msg);
	options_default(&o);
	o.target = target;
	o.tpu_tile[0] = tile_r;
	o.tpu_tile[1] = tile_c;
	r = target_bytes(&o, &f->mods[0].comps[0].instrs[0].shape);
	pool_free(pool);
	return r;
}

static int64_t
tpu(const char *shape)
{
	return bytes_of(shape, TARGET_TPU, 8, 128);
}

static int64_t
gpu(const char *shape)
{
	return bytes_of(shape, TARGET_GPU, 8, 128);
}

static void
test_explicit_tiles(void **state)
{
	(void)state;
	assert_int_equal(tpu("f32[3,5]{1,0:T(8,128)}"), 4096);
	assert_int_equal(tpu("bf16[3,5]{1,0:T(8,128)(2,1)}"), 2048);
	assert_int_equal(tpu("f32[]{:T(128)}"), 512);
	assert_int_equal(tpu("f32[1000]{0:T(128)}"), 4096);
	assert_int_equal(tpu("f32[128]{0:T(256)}"), 1024);
	/* Physical minor dims are 0 (14 -> 128) then 2 (100 -> 104); dim 1
	 * (40) is major: 40 * 104 * 128 * 4. */
	assert_int_equal(tpu("f32[14,40,100]{0,2,1:T(8,128)}"), 2129920);
	/* A tile of rank 1 on a rank-2 array pads the most minor only. */
	assert_int_equal(tpu("f32[3,5]{1,0:T(128)}"), 3 * 128 * 4);
}

/* TPU tiles for layouts that name none: rank 0 and 1 take 512 bytes of
 * elements, 128 at least (the corpus: s32[]{:T(128)}, bf16[]{:T(256)},
 * pred[]{:T(512)}, s32[1..32]{0:T(128)}); rank 2 and up --tpu-tile. */
static void
test_default_tile(void **state)
{
	(void)state;
	assert_int_equal(tpu("f32[3,5]{1,0}"), 8 * 128 * 4);
	assert_int_equal(tpu("f32[3,5]"), 8 * 128 * 4);
	assert_int_equal(tpu("f32[5,3]{0,1}"), 8 * 128 * 4);
	assert_int_equal(tpu("f32[2,3,5]"), 2 * 8 * 128 * 4);
	assert_int_equal(tpu("f32[16,256]"), 16 * 256 * 4);
	assert_int_equal(tpu("f32[]"), 128 * 4);
	assert_int_equal(tpu("u32[256]"), 256 * 4);
	assert_int_equal(tpu("f32[129]"), 256 * 4);
	assert_int_equal(tpu("f16[300]"), 512 * 2);
	assert_int_equal(tpu("pred[200]"), 512);
	assert_int_equal(tpu("s64[]"), 128 * 8);	/* 128 at least */
	assert_int_equal(tpu("c128[3]"), 128 * 16);
	assert_int_equal(tpu("s4[]{:E(4)}"), 512);	/* T(1024) */
	assert_int_equal(bytes_of("f32[3,5]", TARGET_TPU, 16, 256),
			 16 * 256 * 4);
}

/* Issue 18, rows 1-3: scalars and short vectors without a layout. */
static void
test_tpu_scalars_and_vectors(void **state)
{
	(void)state;
	assert_int_equal(tpu("bf16[]"), 512);	/* T(256) x 2 bytes */
	assert_int_equal(tpu("s8[]"), 512);	/* T(512) x 1 byte */
	assert_int_equal(tpu("pred[]"), 512);	/* T(512): pred is a byte */
	/* Rank 1 is tiled as the scalar of its width: T(128) for 32 bits
	 * (the corpus's s32[1], f32[1], u32[10] and s32[32] all are). */
	assert_int_equal(tpu("f32[10]"), 512);
	assert_int_equal(tpu("f32[10]{0}"), 512);
}

/* Issue 18, rows 4-5: a sub-byte element takes a whole byte (XLA's
 * ShapeUtil::ByteSizeOfElements: primitive_util::ByteWidth) unless E(n)
 * packs it (element_size_in_bits); with tiles, the tile's padding comes
 * first, then the packing (ShapeUtil::ArraySize). */
static void
test_sub_byte_and_element_size(void **state)
{
	(void)state;
	assert_int_equal(tpu("s4[20,130]{1,0:T(8,128)(2,1)}"), 24 * 256);
	assert_int_equal(tpu("s4[20,130]{1,0:T(8,128)(2,1)E(4)}"),
			 24 * 256 / 2);
	assert_int_equal(gpu("s4[1000]{0}"), 1000);
	assert_int_equal(gpu("s4[1000]{0:E(4)}"), 500);
	assert_int_equal(tpu("s4[3,5]{1,0:T(8,128)}"), 8 * 128);
	assert_int_equal(tpu("u4[3,5]"), 8 * 128);
	assert_int_equal(tpu("s8[3,5]{1,0:T(8,128)E(4)}"), 8 * 128 / 2);
	assert_int_equal(gpu("s4[7]"), 7);
	assert_int_equal(gpu("s8[7]{0:E(4)}"), 4);
	assert_int_equal(gpu("f4e2m1fn[3]"), 3);
	assert_int_equal(gpu("f6e2m3fn[3]"), 3);
	assert_int_equal(gpu("f8e4m3fn[3,5]"), 15);
}

/* Issue 18, row 6: L(n), tail_padding_alignment_in_elements, rounds the
 * tiled element count up to a multiple of n (ShapeUtil::ArraySize); the
 * GPU's ShapeUtil::ByteSizeOf reads neither tiles nor L(n). */
static void
test_tail_padding(void **state)
{
	(void)state;
	assert_int_equal(tpu("f32[1000]{0:T(128)L(2048)}"), 8192);
	assert_int_equal(tpu("f32[1000]{0:T(128)}"), 4096);
	assert_int_equal(tpu("f32[1000]{0:L(2048)}"), 8192);
	assert_int_equal(tpu("s4[1000]{0:T(128)L(2048)E(4)}"), 1024);
	assert_int_equal(gpu("f32[1000]{0:T(128)L(2048)}"), 4000);
}

/* Issue 18, row 7: a dynamic array takes its bound's bytes and an s32
 * per dimension for the sizes (xla/service/gpu/gpu_latency_hiding_
 * scheduler.cc ShapeSizeBytesFunction, GenericTransferManager::
 * GetByteSizeRequirement); on the TPU the layout's M(n) prefix when given. */
static void
test_dynamic_metadata(void **state)
{
	(void)state;
	assert_int_equal(gpu("f32[<=64]"), 260);
	assert_int_equal(gpu("f32[64]"), 256);
	assert_int_equal(gpu("f32[<=64,8]{1,0}"), 64 * 8 * 4 + 8);
	assert_int_equal(tpu("f32[<=64]"), 512 + 4);
	assert_int_equal(tpu("s32[<=4096]{0:T(8)M(1024)}"), 4096 * 4 + 1024);
	assert_int_equal(gpu("s32[<=4096]{0:T(8)M(1024)}"), 4096 * 4 + 4);
}

static void
test_gpu_bytes(void **state)
{
	(void)state;
	assert_int_equal(gpu("f32[3,5]{1,0:T(8,128)}"), 60);
	assert_int_equal(gpu("pred[7]"), 7);
	assert_int_equal(gpu("bf16[2,3]"), 12);
	assert_int_equal(gpu("c128[2]"), 32);
	assert_int_equal(gpu("(f32[2], s32[])"), 16);	/* index table */
	assert_int_equal(gpu("token[]"), 0);
	assert_int_equal(gpu("opaque[]"), 8);	/* a pointer, as ByteSizeOf */
}

/* Plans text for targets: HLOPLAN_OK, or the first diagnostic's message,
 * which must hold want and be at line:col. */
static void
limit_case(const char *text, int targets, int out_of_arena, const char *want,
	   int line, int col)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	const struct hloplan_diag *d;

	o.targets = targets;
	o.io_out_of_arena = out_of_arena;
	r = hloplan_plan_string(text, strlen(text), "t.hlo", &o);
	if (!want) {
		if (hloplan_status(r) != HLOPLAN_OK)
			fail_msg("%s", hloplan_get_diag(r, 0)->message);
	} else {
		assert_int_equal(hloplan_status(r), HLOPLAN_ERR_INPUT);
		d = hloplan_get_diag(r, 0);
		if (!strstr(d->message, want))
			fail_msg("'%s' lacks '%s'", d->message, want);
		assert_int_equal(d->line, line);
		assert_int_equal(d->col, col);
		assert_null(strstr(d->message, "internal"));
	}
	hloplan_free(r);
}

/* Issue 33: a buffer as laid out, slots included, and the buffers of one
 * arena together take at most PLAN_MAX_BYTES, 2^42 - 1, what the verifier
 * can follow; more is an error at the instruction, for either target and
 * either arena mode, and 2^42 - 256 plans. */
static void
test_size_limit(void **state)
{
	static const char under[] = "HloModule m\nENTRY e {\n"
		"  ROOT a = f32[1099511627712]{0} parameter(0)\n}\n";
	static const char at[] = "HloModule m\nENTRY e {\n"
		"  ROOT a = f32[1099511627776]{0} parameter(0)\n}\n";
	/* 127 columns fit on the GPU; padded to 128, not on the TPU. */
	static const char padded[] = "HloModule m\nENTRY e {\n"
		"  ROOT a = f32[8589934600,127]{1,0} parameter(0)\n}\n";
	/* Two halves: each fits, not both in one arena. */
	static const char halves[] = "HloModule m\nENTRY e {\n"
		"  ROOT p = (f32[549755814144]{0}, f32[549755814144]{0}) "
		"parameter(0)\n}\n";
	const char *over = "more than hloplan can place";

	(void)state;
	assert_int_equal(PLAN_MAX_BYTES, ((int64_t)1 << 42) - 1);
	limit_case(under, HLOPLAN_TARGET_GPU, 0, NULL, 0, 0);
	limit_case(under, HLOPLAN_TARGET_GPU, 1, NULL, 0, 0);
	limit_case(at, HLOPLAN_TARGET_GPU, 0, over, 3, 8);
	limit_case(at, HLOPLAN_TARGET_GPU, 1, over, 3, 8);
	limit_case(padded, HLOPLAN_TARGET_GPU, 0, NULL, 0, 0);
	limit_case(padded, HLOPLAN_TARGET_TPU, 0, over, 3, 8);
	limit_case(padded, HLOPLAN_TARGET_TPU, 1, over, 3, 8);
	limit_case(halves, HLOPLAN_TARGET_GPU, 0,
		   "the buffers of memory space S(0) need 4398046513408 bytes "
		   "together for gpu", 3, 8);
	limit_case(halves, HLOPLAN_TARGET_TPU, 0, over, 3, 8);
	limit_case(halves, HLOPLAN_TARGET_ALL, 1, NULL, 0, 0);
}

/* The buffer holding entry output `name` in the one TPU plan of text. */
static void
output_buffer(const char *text, const char *name, int64_t size, int space)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	const struct hloplan_plan *pl;
	int found = 0;

	o.targets = HLOPLAN_TARGET_TPU;
	r = hloplan_plan_string(text, strlen(text), "t.hlo", &o);
	assert_int_equal(hloplan_status(r), HLOPLAN_OK);
	pl = hloplan_get_plan(r, 0);
	for (int b = 0; b < pl->nbuffer; b++) {
		const struct hloplan_buffer *x = &pl->buffers[b];

		if (strcmp(x->name, name))
			continue;
		found = 1;
		assert_true(x->flags & HLOPLAN_BUF_OUTPUT);
		assert_int_equal(x->size, size);
		assert_int_equal(x->space, space);
	}
	assert_true(found);
	hloplan_free(r);
}

/* Issue 18, row 8: entry_computation_layout's result layout is the
 * output buffer's: its tiles and its memory space (XLA's layout
 * assignment makes the root's layout the result's), through a tuple, over
 * a root that has a tile of its own unless that takes more bytes, and for
 * a parameter's copy. */
static void
test_entry_output_layout(void **state)
{
	(void)state;
	output_buffer("HloModule m, entry_computation_layout="
		      "{(f32[10]{0})->f32[10]{0:T(256)S(1)}}\n"
		      "ENTRY e {\n p = f32[10]{0} parameter(0)\n"
		      " ROOT n = f32[10]{0:T(128)} negate(p)\n}\n",
		      "n", 1024, 1);
	/* ... but a layout tiled otherwise in fewer bytes does not shrink
	 * what the root's kernel writes (fuzz_long's finding). */
	output_buffer("HloModule m, entry_computation_layout="
		      "{(f32[10]{0})->f32[10]{0:T(128)}}\n"
		      "ENTRY e {\n p = f32[10]{0} parameter(0)\n"
		      " ROOT n = f32[10]{0:T(256)} negate(p)\n}\n",
		      "n", 1024, 0);
	output_buffer("HloModule m, entry_computation_layout="
		      "{(f32[10]{0})->f32[10]{0:T(256)S(1)}}\n"
		      "ENTRY e {\n p = f32[10]{0} parameter(0)\n"
		      " ROOT n = f32[10]{0} negate(p)\n}\n",
		      "n", 1024, 1);
	output_buffer("HloModule m, entry_computation_layout={(f32[10]{0})->"
		      "(f32[10]{0:T(256)S(1)}, f32[10]{0:T(256)S(1)})}\n"
		      "ENTRY e {\n p = f32[10]{0} parameter(0)\n"
		      " n = f32[10]{0} negate(p)\n"
		      " ROOT t = (f32[10]{0}, f32[10]{0}) tuple(n, p)\n}\n",
		      "n", 1024, 1);
	output_buffer("HloModule m, entry_computation_layout={(f32[10]{0})->"
		      "(f32[10]{0:T(256)S(1)}, f32[10]{0:T(256)S(1)})}\n"
		      "ENTRY e {\n p = f32[10]{0} parameter(0)\n"
		      " n = f32[10]{0} negate(p)\n"
		      " ROOT t = (f32[10]{0}, f32[10]{0}) tuple(n, p)\n}\n",
		      "t{1}", 1024, 1);
	/* No entry layout: the root's own (T(128) by default, S(0)). */
	output_buffer("HloModule m\nENTRY e {\n p = f32[10]{0} parameter(0)\n"
		      " ROOT n = f32[10]{0} negate(p)\n}\n", "n", 512, 0);
}

/* Plans a corpus file for the TPU; NULL (and the test skipped) without
 * the corpus. */
static struct plan *
plan_corpus(struct pool *pool, const char *name)
{
	char path[1024];
	FILE *fp;
	char *text;
	long len;
	struct diags ds = {.pool = pool, .file = name};
	struct hlofile *f;
	struct options o;
	struct plan *pl = pool_alloc(pool, sizeof *pl);

	snprintf(path, sizeof path, "%s/hlo/%s", HLOPLAN_CORPUS_DIR, name);
	if (!(fp = fopen(path, "rb")))
		return NULL;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	text = pool_alloc(pool, (size_t)len + 1);
	assert_int_equal(fread(text, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);
	f = frontend_parse(pool, text, (size_t)len, &ds);
	assert_int_equal(ds.n, 0);
	options_default(&o);
	o.target = TARGET_TPU;
	assert_int_equal(plan_module(pool, &ds, &f->mods[0], &o, NULL, pl), 0);
	return pl;
}

static const struct buffer *
named(const struct plan *pl, const char *name)
{
	for (int b = 0; b < pl->nbuf; b++)
		if (!strcmp(pl->bufs[b].name, name))
			return &pl->bufs[b];
	fail_msg("no buffer '%s'", name);
	return NULL;
}

/* E02's layouts carry T(8,128)(4,1) and S(1) on every instruction. */
static void
test_corpus_e02(void **state)
{
	struct pool *pool = pool_new();
	struct plan *pl = plan_corpus(pool, "E02_tpu_tiled_while_unroll.hlo");

	(void)state;
	if (!pl) {
		pool_free(pool);
		skip();
	}
	/* s8[1,32,2048] T(8,128): already a multiple of the tile. */
	assert_int_equal(named(pl, "fusion.4456")->bytes, 32 * 2048);
	assert_int_equal(named(pl, "fusion.4456")->size, 32 * 2048);
	assert_int_equal(named(pl, "fusion.4456")->space, 1);
	/* s32[1,32,256] T(8,128) in S(1). */
	assert_int_equal(named(pl, "broadcast.26239")->size, 32 * 256 * 4);
	/* u32[]{:T(128)}: one element padded to 128. */
	assert_int_equal(named(pl, "constant.28863")->size, 512);
	assert_int_equal(named(pl, "constant.28863")->bytes, 4);
	pool_free(pool);
}

/* E04's tiles are only in entry_computation_layout: the parameters take
 * them (f32[128]{0:T(256)} pads to 256 elements). */
static void
test_corpus_e04(void **state)
{
	struct pool *pool = pool_new();
	struct plan *pl = plan_corpus(pool,
				      "E04_mnist_train_loop_tpu_layout.hlo");

	(void)state;
	if (!pl) {
		pool_free(pool);
		skip();
	}
	assert_int_equal(named(pl, "layer1_biases.2")->bytes, 512);
	assert_int_equal(named(pl, "layer1_biases.2")->size, 1024);
	assert_int_equal(named(pl, "layer2_biases.4")->size, 1024);
	assert_int_equal(named(pl, "layer2_weights.3")->size, 128 * 128 * 4);
	assert_int_equal(named(pl, "layer3_weights.5")->size, 32 * 128 * 4);
	assert_int_equal(named(pl, "layer1_weights.1")->size, 784 * 128 * 4);
	pool_free(pool);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explicit_tiles),
		cmocka_unit_test(test_default_tile),
		cmocka_unit_test(test_tpu_scalars_and_vectors),
		cmocka_unit_test(test_sub_byte_and_element_size),
		cmocka_unit_test(test_tail_padding),
		cmocka_unit_test(test_dynamic_metadata),
		cmocka_unit_test(test_gpu_bytes),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_entry_output_layout),
		cmocka_unit_test(test_corpus_e02),
		cmocka_unit_test(test_corpus_e04),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

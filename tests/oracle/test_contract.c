/* XLA's kernel contract as the oracle reads it from the IR (contract.c):
 * one test per row of the table in README.md — which output nodes an op
 * forwards, which it updates in place over which operand, which operand
 * it may write over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/frontend.h"
#include "tests/oracle/contract.h"

static struct {
	struct pool *pool;
	struct diags ds;
	struct module *m;
	const struct shape *as[16];
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

static void
parse(const char *text)
{
	struct hlofile *f = frontend_parse(F.pool, text, strlen(text), &F.ds);

	if (F.ds.n)
		diag_print(&F.ds, stderr);
	assert_int_equal(F.ds.n, 0);
	F.m = &f->mods[0];
}

/* Instruction `name` of the entry, its operands' shapes in F.as. */
static const struct instr *
find(const char *name)
{
	const struct comp *c = &F.m->comps[F.m->entry];

	for (int i = 0; i < c->ninstr; i++) {
		const struct instr *in = &c->instrs[i];

		if (strcmp(in->name, name))
			continue;
		assert_true(in->nops <= 16);
		for (int k = 0; k < in->nops; k++)
			F.as[k] = &c->instrs[in->ops[k]].shape;
		return in;
	}
	fail_msg("no instruction '%s'", name);
	return NULL;
}

/* Forwards: -1 when `name` defines node `node`, else k * 100 + j. */
static int
fwd(const char *name, int node)
{
	const struct instr *in = find(name);
	int k, j;

	return contract_forward(in, F.as, node, &k, &j) ? k * 100 + j : -1;
}

static int
in_place(const char *name, int node)
{
	const struct instr *in = find(name);
	int k, j;

	return contract_in_place(F.m, in, F.as, node, &k, &j) ? k * 100 + j :
	       -1;
}

static int
may_share(const char *name, int node, int k)
{
	const struct instr *in = find(name);

	return contract_may_share(F.m, in, F.as, node, k, 0);
}

static const char async_text[] =
	"HloModule m\n"
	"%add (x: f32[], y: f32[]) -> f32[] {\n"
	"  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n}\n"
	"%neg (p: f32[8]) -> f32[8] {\n"
	"  p = f32[8] parameter(0)\n  ROOT n = f32[8] negate(p)\n}\n"
	"ENTRY main {\n"
	"  p = f32[8] parameter(0)\n"
	"  ags = (f32[8], f32[16]) all-gather-start(p), dimensions={0}, "
	"replica_groups={{0,1}}\n"
	"  agd = f32[16] all-gather-done(ags)\n"
	"  ars = f32[8] all-reduce-start(p), replica_groups={{0}}, "
	"to_apply=%add\n"
	"  ard = f32[8] all-reduce-done(ars)\n"
	"  cps = (f32[8], f32[8], u32[], u32[]) collective-permute-start(p), "
	"source_target_pairs={{1,0}}\n"
	"  cpd = f32[8] collective-permute-done(cps)\n"
	"  as = ((f32[8]), f32[8], s32[]) async-start(p), calls=%neg\n"
	"  ad = f32[8] async-done(as), calls=%neg\n"
	"  cs = (f32[8], f32[8], u32[]) copy-start(p)\n"
	"  cd = f32[8] copy-done(cs)\n"
	"  tok = token[] after-all()\n"
	"  s = (f32[8], u32[], token[]) send(p, tok), channel_id=1\n"
	"  r = (f32[8], u32[], token[]) recv(tok), channel_id=2\n"
	"  rd = (f32[8], token[]) recv-done(r), channel_id=2\n"
	"  t = (f32[16], f32[8]) tuple(agd, ard)\n"
	"  g = f32[8] get-tuple-element(t), index=1\n"
	"  ROOT o = f32[8] add(g, cd)\n}\n";

/* Dones hand their start's {1} on (all-reduce-done: its operand); a
 * start's {0} is its operand; copy-start {1}, send {0}, recv-done {0}. */
static void
test_forwards_async(void **state)
{
	(void)state;
	parse(async_text);
	assert_int_equal(fwd("ags", 1), 0);	/* {0}: p */
	assert_int_equal(fwd("ags", 2), -1);	/* {1}: the collective's */
	assert_int_equal(fwd("agd", 0), 2);	/* start {1} */
	assert_int_equal(fwd("ars", 0), -1);
	assert_int_equal(fwd("ard", 0), 0);
	assert_int_equal(fwd("cps", 1), 0);
	assert_int_equal(fwd("cps", 2), -1);
	assert_int_equal(fwd("cps", 3), -1);
	assert_int_equal(fwd("cpd", 0), 2);
	assert_int_equal(fwd("as", 1), -1);	/* a table */
	assert_int_equal(fwd("as", 2), 0);	/* {0,0}: p */
	assert_int_equal(fwd("as", 3), -1);
	assert_int_equal(fwd("ad", 0), 3);	/* start {1} */
	assert_int_equal(fwd("cs", 1), -1);	/* the destination */
	assert_int_equal(fwd("cs", 2), 0);	/* the source */
	assert_int_equal(fwd("cd", 0), 1);
	assert_int_equal(fwd("s", 1), 0);
	assert_int_equal(fwd("s", 2), -1);
	assert_int_equal(fwd("rd", 1), 1);	/* recv {0} */
	assert_int_equal(fwd("rd", 2), -1);
	assert_true(contract_is_done(find("agd")));
	assert_true(contract_is_done(find("ard")));
	assert_true(contract_is_done(find("ad")));
	assert_false(contract_is_done(find("cd")));
	assert_true(contract_tied(F.m, find("agd"), F.as, 0));
	assert_false(contract_tied(F.m, find("ags"), F.as, 1));
}

/* tuple defines only its table; get-tuple-element and bitcast forward;
 * everything else defines. */
static void
test_forwards_plain(void **state)
{
	(void)state;
	parse(async_text);
	assert_int_equal(fwd("t", 0), -1);
	assert_int_equal(fwd("t", 1), 0);
	assert_int_equal(fwd("t", 2), 100);
	assert_int_equal(fwd("g", 0), 2);
	assert_int_equal(fwd("o", 0), -1);
}

static const char in_place_text[] =
	"HloModule m\n"
	"%dus (p0: f32[8,4], p1: f32[1,4], p2: s32[]) -> f32[32] {\n"
	"  p0 = f32[8,4] parameter(0)\n  p1 = f32[1,4] parameter(1)\n"
	"  p2 = s32[] parameter(2)\n  z = s32[] constant(0)\n"
	"  q = f32[1,4] dynamic-slice(p0, p2, z), dynamic_slice_sizes={1,4}\n"
	"  u = f32[1,4] add(q, p1)\n"
	"  b = f32[32] bitcast(p0)\n  c = f32[8,4] bitcast(b)\n"
	"  d = f32[8,4] dynamic-update-slice(c, u, p2, z)\n"
	"  ROOT r = f32[32] bitcast(d)\n}\n"
	"%ew (a: f32[8,4], b: f32[8,4]) -> f32[8,4] {\n"
	"  a = f32[8,4] parameter(0)\n  b = f32[8,4] parameter(1)\n"
	"  ROOT m = f32[8,4] multiply(a, b)\n}\n"
	"%pick (p0: f32[], p1: f32[], p2: f32[], p3: f32[]) -> (f32[], f32[]) "
	"{\n  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n"
	"  p2 = f32[] parameter(2)\n  p3 = f32[] parameter(3)\n"
	"  ROOT t = (f32[], f32[]) tuple(p2, p3)\n}\n"
	"ENTRY main {\n"
	"  x = f32[8,4] parameter(0)\n  u = f32[1,4] parameter(1)\n"
	"  i = s32[] parameter(2)\n"
	"  d = f32[8,4] dynamic-update-slice(x, u, i, i)\n"
	"  f = f32[32] fusion(x, u, i), kind=kLoop, calls=%dus\n"
	"  e = f32[8,4] fusion(x, d), kind=kLoop, calls=%ew, "
	"output_to_operand_aliasing={{}: (1, {})}\n"
	"  e2 = f32[8,4] fusion(x, d), kind=kLoop, calls=%ew\n"
	"  g = (f32[8,4], s8[64]) custom-call(x, d, e), "
	"custom_call_target=\"__cublas$gemm\", "
	"output_to_operand_aliasing={{0}: (2, {})}\n"
	"  h = (s8[64], f32[8,4]) custom-call(x, d), custom_call_target=\"k\", "
	"output_to_operand_aliasing={ {1}: (0, {}) }\n"
	"  idx = s32[1] constant({2})\n  v = f32[] constant(1)\n"
	"  y = f32[32] reshape(x)\n  z = f32[32] negate(y)\n"
	"  s = (f32[32], f32[32]) scatter(y, z, idx, v, v), update_window_dims={}, "
	"inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
	"index_vector_dim=0, to_apply=%pick\n"
	"  ROOT o = f32[8,4] add(e, e2)\n}\n";

/* In place: dynamic-update-slice over operand 0; scatter input i over
 * {i}; output_to_operand_aliasing at any index; a fusion whose root (past
 * bitcasts) updates a parameter also read elsewhere; a fusion's own
 * aliasing. */
static void
test_in_place(void **state)
{
	(void)state;
	parse(in_place_text);
	assert_int_equal(in_place("d", 0), 0);
	assert_int_equal(in_place("f", 0), 0);
	assert_int_equal(in_place("e", 0), 100);
	assert_int_equal(in_place("e2", 0), -1);
	assert_int_equal(in_place("g", 1), 200);
	assert_int_equal(in_place("g", 2), -1);
	assert_int_equal(in_place("h", 2), 0);
	assert_int_equal(in_place("h", 1), -1);
	assert_int_equal(in_place("s", 1), 0);
	assert_int_equal(in_place("s", 2), 100);
	assert_int_equal(in_place("o", 0), -1);
	assert_true(contract_tied(F.m, find("g"), F.as, 1));
	assert_false(contract_tied(F.m, find("g"), F.as, 2));
}

static const char share_text[] =
	"HloModule m\n"
	"%ew (a: f32[8], b: f32[8]) -> f32[8] {\n"
	"  a = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n"
	"  m = f32[8] multiply(a, b)\n  ROOT n = f32[8] negate(m)\n}\n"
	"%rev (a: f32[8], b: f32[8]) -> f32[8] {\n"
	"  a = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n"
	"  r = f32[8] reverse(a), dimensions={0}\n"
	"  ROOT m = f32[8] multiply(r, b)\n}\n"
	"%cp (a: f32[8]) -> f32[8] {\n"
	"  a = f32[8] parameter(0)\n  ROOT c = f32[8] copy(a)\n}\n"
	"%two (a: f32[8], b: f32[8]) -> (f32[8], f32[8]) {\n"
	"  a = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n"
	"  m = f32[8] multiply(a, b)\n  n = f32[8] negate(a)\n"
	"  ROOT t = (f32[8], f32[8]) tuple(m, n)\n}\n"
	"%upd (a: f32[1,2], b: f32[1,2], i: s32[]) -> f32[1,2] {\n"
	"  a = f32[1,2] parameter(0)\n  b = f32[1,2] parameter(1)\n"
	"  i = s32[] parameter(2)\n  z = s32[] constant(0)\n"
	"  q = f32[1,2] dynamic-slice(a, i, z), dynamic_slice_sizes={1,2}\n"
	"  u = f32[1,2] add(q, b)\n"
	"  ROOT d = f32[1,2] dynamic-update-slice(a, u, i, z)\n}\n"
	"%updr (a: f32[1,2], b: f32[1,2], i: s32[]) -> f32[1,2] {\n"
	"  a = f32[1,2] parameter(0)\n  b = f32[1,2] parameter(1)\n"
	"  i = s32[] parameter(2)\n  z = s32[] constant(0)\n"
	"  u = f32[1,2] reverse(b), dimensions={1}\n"
	"  ROOT d = f32[1,2] dynamic-update-slice(a, u, i, z)\n}\n"
	"ENTRY main {\n"
	"  x = f32[8] parameter(0)\n  y = f32[8] parameter(1)\n"
	"  w = f32[1,2] parameter(2)\n  j = s32[] parameter(3)\n"
	"  du = f32[1,2] fusion(w, w, j), kind=kLoop, calls=%upd\n"
	"  dr = f32[1,2] fusion(w, w, j), kind=kLoop, calls=%updr\n"
	"  n = f32[8] negate(x)\n  c = f32[8] copy(x)\n"
	"  e = f32[8] fusion(x, y), kind=kLoop, calls=%ew\n"
	"  r = f32[8] fusion(x, y), kind=kLoop, calls=%rev\n"
	"  o = f32[8] fusion(x, y), kind=kOutput, calls=%ew\n"
	"  k = f32[8] fusion(x), kind=kLoop, calls=%cp\n"
	"  t = (f32[8], f32[8]) fusion(x, y), kind=kLoop, calls=%two\n"
	"  ROOT s = f32[8] add(e, r)\n}\n";

/* May share: elementwise ops (not copy); loop and input fusions on
 * elementwise paths only, the root dynamic-update-slice's update and the
 * slice it rewrites included (GPU FusionCanShareBufferHint). */
static void
test_may_share(void **state)
{
	(void)state;
	parse(share_text);
	assert_true(may_share("n", 0, 0));
	assert_false(may_share("c", 0, 0));
	assert_true(may_share("e", 0, 0));
	assert_true(may_share("e", 0, 1));
	assert_false(may_share("r", 0, 0));	/* through a reverse */
	assert_true(may_share("r", 0, 1));
	assert_false(may_share("o", 0, 0));	/* kOutput */
	assert_false(may_share("k", 0, 0));	/* a copy */
	assert_true(may_share("t", 1, 0));	/* both outputs elementwise */
	assert_true(may_share("t", 2, 0));
	assert_true(may_share("t", 1, 1));
	assert_false(may_share("t", 2, 1));	/* no path from b to {1} */
	assert_true(may_share("du", 0, 0));	/* in place */
	assert_true(may_share("du", 0, 1));	/* the root DUS's update */
	assert_false(may_share("dr", 0, 1));	/* ... through a reverse */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forwards_async, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forwards_plain, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_may_share, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the frontend: HLO snippets parsed into IR, the IR checked
 * field by field, each semantic error's exact message, and the print/parse
 * round trip. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/frontend_internal.h"
#include "frontend/frontend.h"

/* One parse: the pool that owns it, its diagnostics, and the file. */
struct fx {
	struct pool *pool;
	struct diags ds;
	struct hlofile *f;
};

static struct fx *
parse_len(const char *text, size_t len)
{
	struct fx *x = calloc(1, sizeof *x);

	assert_non_null(x);
	x->pool = pool_new();
	x->ds.pool = x->pool;
	x->ds.file = "t.hlo";
	x->ds.src = text;
	x->ds.srclen = len;
	x->f = frontend_parse(x->pool, text, len, &x->ds);
	return x;
}

static struct fx *
parse(const char *text)
{
	return parse_len(text, strlen(text));
}

/* The diagnostics as the CLI prints them, in a string owned by x's pool. */
static char *
rendered(struct fx *x)
{
	char *buf = NULL, *r;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	diag_print(&x->ds, m);
	fclose(m);
	r = pool_strdup(x->pool, buf);
	free(buf);
	return r;
}

/* Parses text that must be free of errors (the errors are shown if not). */
static struct fx *
parse_ok(const char *text)
{
	struct fx *x = parse(text);

	if (x->ds.n)
		fputs(rendered(x), stderr);
	assert_int_equal(x->ds.n, 0);
	return x;
}

static void
done(struct fx *x)
{
	pool_free(x->pool);
	free(x);
}

/* Parses text that has errors; compares the whole rendered output. */
static void
expect_errors_len(const char *text, size_t len, const char *want)
{
	struct fx *x = parse_len(text, len);

	assert_true(x->ds.n > 0);
	assert_string_equal(rendered(x), want);
	done(x);
}

static void
expect_errors(const char *text, const char *want)
{
	expect_errors_len(text, strlen(text), want);
}

static const struct module *
mod0(const struct fx *x)
{
	assert_true(x->f->nmod >= 1);
	return &x->f->mods[0];
}

static const struct comp *
comp_named(const struct module *m, const char *name)
{
	int i = comp_lookup(m, name);

	assert_true(i >= 0);
	return &m->comps[i];
}

static int
instr_index(const struct comp *c, const char *name)
{
	for (int i = 0; i < c->ninstr; i++)
		if (!strcmp(c->instrs[i].name, name))
			return i;
	fail_msg("no instruction '%s' in '%s'", name, c->name);
	return -1;
}

static const struct instr *
instr_named(const struct comp *c, const char *name)
{
	return &c->instrs[instr_index(c, name)];
}

/* The shape of an instruction of the entry computation. */
static const struct shape *
shape_of(const struct fx *x, const char *name)
{
	const struct module *m = mod0(x);

	return &instr_named(&m->comps[m->entry], name)->shape;
}

static void
assert_dims(const struct shape *s, int rank, ...)
{
	va_list ap;

	assert_int_equal(s->rank, rank);
	va_start(ap, rank);
	for (int i = 0; i < rank; i++)
		assert_int_equal(s->dims[i], va_arg(ap, int));
	va_end(ap);
}

static void
assert_attr(const struct instr *in, const char *key, const char *val)
{
	const struct attr *a = instr_attr(in, key);

	assert_non_null(a);
	assert_int_equal(a->vlen, strlen(val));
	assert_memory_equal(a->val, val, strlen(val));
}

/* ---- shapes ----------------------------------------------------------- */

static void
test_element_types(void **state)
{
	struct fx *x = parse_ok(
		"HloModule types\n"
		"ENTRY e {\n"
		"  a = f8e4m3fn[16]{0} parameter(0)\n"
		"  b = s4[8,2]{1,0} parameter(1)\n"
		"  c = token[] after-all()\n"
		"  d = pred[] parameter(2)\n"
		"  e = u2[4] parameter(3)\n"
		"  f = bf16[3] parameter(4)\n"
		"  g = c128[] parameter(5)\n"
		"  h = f4e2m1fn[32] parameter(6)\n"
		"  i = f8e5m2[2] parameter(7)\n"
		"  ROOT t = (f8e4m3fn[16]{0}, s4[8,2]{1,0}, token[]) "
		"tuple(a, b, c)\n"
		"}\n");
	const struct shape *t = shape_of(x, "t");

	(void)state;
	assert_int_equal(shape_of(x, "a")->type, DT_F8E4M3FN);
	assert_dims(shape_of(x, "a"), 1, 16);
	assert_int_equal(shape_of(x, "b")->type, DT_S4);
	assert_dims(shape_of(x, "b"), 2, 8, 2);
	/* A byte per s4 element without E(4) (XLA's ByteSizeOf). */
	assert_int_equal(shape_bytes(shape_of(x, "b")), 16);
	assert_int_equal(shape_of(x, "c")->type, DT_TOKEN);
	assert_int_equal(shape_of(x, "c")->rank, 0);
	assert_int_equal(shape_of(x, "d")->type, DT_PRED);
	assert_int_equal(shape_of(x, "e")->type, DT_U2);
	assert_int_equal(shape_of(x, "f")->type, DT_BF16);
	assert_int_equal(shape_of(x, "g")->type, DT_C128);
	assert_int_equal(shape_of(x, "h")->type, DT_F4E2M1FN);
	assert_int_equal(shape_of(x, "i")->type, DT_F8E5M2);
	assert_int_equal(t->type, DT_TUPLE);
	assert_int_equal(t->nelem, 3);
	assert_int_equal(t->elems[0].type, DT_F8E4M3FN);
	assert_int_equal(t->elems[1].type, DT_S4);
	assert_int_equal(t->elems[2].type, DT_TOKEN);
	done(x);
}

static void
test_dynamic_dims(void **state)
{
	struct fx *x = parse_ok(
		"HloModule dyn\n"
		"ENTRY e {\n"
		"  a = f32[<=8,?,3]{2,1,0} parameter(0)\n"
		"  ROOT b = f32[2,3] parameter(1)\n"
		"}\n");
	const struct shape *a = shape_of(x, "a");

	(void)state;
	assert_dims(a, 3, 8, 0, 3);
	assert_non_null(a->dyn);
	assert_int_equal(a->dyn[0], DIM_BOUNDED);
	assert_int_equal(a->dyn[1], DIM_UNKNOWN);
	assert_int_equal(a->dyn[2], DIM_STATIC);
	assert_null(shape_of(x, "b")->dyn);
	assert_int_equal(shape_of(x, "b")->has_layout, 0);
	done(x);
}

static void
test_layouts(void **state)
{
	struct fx *x = parse_ok(
		"HloModule lay\n"
		"ENTRY e {\n"
		"  a = f32[8,128]{0,1:T(8,128)(2,1)E(4)S(1)} parameter(0)\n"
		"  b = f32[4,256]{1,0:T(8,128)#(u32)*(u32)S(2)} parameter(1)\n"
		"  c = f32[2,3,4]{2,0,1} parameter(2)\n"
		"  e = s32[<=64]{0:T(8)L(256)M(1024)} parameter(4)\n"
		"  ROOT d = f32[] parameter(3)\n"
		"}\n");
	const struct shape *a = shape_of(x, "a"), *b = shape_of(x, "b");
	const struct shape *c = shape_of(x, "c");

	(void)state;
	assert_true(a->has_layout);
	assert_int_equal(a->m2m[0], 0);
	assert_int_equal(a->m2m[1], 1);
	assert_int_equal(a->ntile, 2);
	assert_int_equal(a->tiles[0].n, 2);
	assert_int_equal(a->tiles[0].d[0], 8);
	assert_int_equal(a->tiles[0].d[1], 128);
	assert_int_equal(a->tiles[1].n, 2);
	assert_int_equal(a->tiles[1].d[0], 2);
	assert_int_equal(a->tiles[1].d[1], 1);
	assert_int_equal(a->elem_bits, 4);
	assert_int_equal(a->space, 1);
	/* other layout fields are skipped */
	assert_int_equal(b->m2m[0], 1);
	assert_int_equal(b->ntile, 1);
	assert_int_equal(b->space, 2);
	assert_int_equal(b->elem_bits, 0);
	assert_int_equal(c->m2m[0], 2);
	assert_int_equal(c->m2m[1], 0);
	assert_int_equal(c->m2m[2], 1);
	assert_int_equal(c->ntile, 0);
	assert_int_equal(c->space, 0);
	assert_true(shape_of(x, "d")->has_layout == 0);
	/* tail padding L(n) and dynamic-size metadata M(n) */
	assert_int_equal(shape_of(x, "e")->tail_pad, 256);
	assert_int_equal(shape_of(x, "e")->meta_bytes, 1024);
	assert_int_equal(b->tail_pad, 0);
	assert_int_equal(b->meta_bytes, 0);
	done(x);
}

static void
test_tuple_shapes(void **state)
{
	struct fx *x = parse_ok(
		"HloModule tup\n"
		"ENTRY e {\n"
		"  p = ((f32[2]{0}, s32[]), pred[], ()) parameter(0)\n"
		"  ROOT g = (f32[2]{0}, s32[]) get-tuple-element(p), index=0\n"
		"}\n");
	const struct shape *p = shape_of(x, "p");

	(void)state;
	assert_int_equal(p->type, DT_TUPLE);
	assert_int_equal(p->nelem, 3);
	assert_int_equal(p->elems[0].type, DT_TUPLE);
	assert_int_equal(p->elems[0].nelem, 2);
	assert_int_equal(p->elems[0].elems[0].type, DT_F32);
	assert_dims(&p->elems[0].elems[0], 1, 2);
	assert_int_equal(p->elems[0].elems[1].type, DT_S32);
	assert_int_equal(p->elems[1].type, DT_PRED);
	assert_int_equal(p->elems[2].type, DT_TUPLE);
	assert_int_equal(p->elems[2].nelem, 0);
	assert_int_equal(instr_named(&mod0(x)->comps[0], "g")->index, 0);
	done(x);
}

/* ---- instructions ----------------------------------------------------- */

static void
test_operands_and_names(void **state)
{
	struct fx *x = parse_ok(
		"HloModule ops\n"
		"ENTRY %e {\n"
		"  %a = f32[2]{0} parameter(0)\n"
		"  b.1 = f32[2]{0} parameter(1)\n"
		"  %c-2 = f32[2]{0} add(f32[2]{0} %a, b.1)\n"
		"  ROOT d = f32[2]{0} subtract(%c-2, a)\n"
		"}\n");
	const struct comp *e = comp_named(mod0(x), "e");
	const struct instr *c = instr_named(e, "c-2");
	const struct instr *d = instr_named(e, "d");

	(void)state;
	assert_string_equal(e->instrs[0].name, "a");
	assert_int_equal(c->nops, 2);
	assert_int_equal(c->ops[0], instr_index(e, "a"));
	assert_int_equal(c->ops[1], instr_index(e, "b.1"));
	assert_int_equal(d->ops[0], instr_index(e, "c-2"));
	assert_int_equal(d->ops[1], instr_index(e, "a"));
	assert_int_equal(c->op->op, OP_OTHER);
	assert_string_equal(c->op->name, "add");
	assert_int_equal(c->loc.line, 5);
	assert_int_equal(c->loc.col, 3);
	assert_int_equal(c->oploc[1].line, 5);
	assert_int_equal(c->oploc[1].col, 38);
	done(x);
}

static void
test_attributes_raw(void **state)
{
	struct fx *x = parse_ok(
		"HloModule attrs\n"
		"ENTRY e {\n"
		"  a = f32[1,8,8,3]{3,2,1,0} parameter(0)\n"
		"  k = f32[3,3,3,4]{3,2,1,0} parameter(1)\n"
		"  ROOT c = f32[1,8,8,4]{3,2,1,0} custom-call(a, k), "
		"window={size=3x3 pad=0_1x1_1}, dim_labels=b01f_01io->b01f, "
		"metadata={op_name=\"conv\" source_line=12}, "
		"backend_config={\"x\":{\"y\":[1,2]}}, "
		"frontend_attributes={_xla=\"a,b\"}, "
		"output_to_operand_aliasing={{}: (0, {})}, "
		"feature_group_count=1, "
		"custom_call_target=\"tpu.x\", sharding={devices=[2,1]<=[2]}\n"
		"  p = f32[4,4] parameter(2)\n"
		"  s = f32[2,2] slice(p), slice={[0:2], [1:3]}\n"
		"}\n");
	const struct instr *c = instr_named(&mod0(x)->comps[0], "c");
	const struct instr *s = instr_named(&mod0(x)->comps[0], "s");

	(void)state;
	assert_int_equal(c->nattr, 9);
	assert_attr(c, "window", "{size=3x3 pad=0_1x1_1}");
	assert_attr(c, "dim_labels", "b01f_01io->b01f");
	assert_attr(c, "metadata", "{op_name=\"conv\" source_line=12}");
	assert_attr(c, "backend_config", "{\"x\":{\"y\":[1,2]}}");
	assert_attr(c, "frontend_attributes", "{_xla=\"a,b\"}");
	assert_attr(c, "output_to_operand_aliasing", "{{}: (0, {})}");
	assert_attr(s, "slice", "{[0:2], [1:3]}");
	assert_attr(c, "feature_group_count", "1");
	assert_attr(c, "custom_call_target", "\"tpu.x\"");
	assert_attr(c, "sharding", "{devices=[2,1]<=[2]}");
	assert_null(instr_attr(c, "nothere"));
	done(x);
}

static void
test_constants(void **state)
{
	struct fx *x = parse_ok(
		"HloModule consts\n"
		"ENTRY e {\n"
		"  a = f32[3]{0} constant({1, 2.5, -3e2})\n"
		"  b = f32[] constant(-inf)\n"
		"  c = (s32[], f32[]) constant((1, 2))\n"
		"  d = f32[1024]{0} constant({...})\n"
		"  e = f32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })\n"
		"  f = pred[] constant(true)\n"
		"  ROOT g = f32[] constant(nan)\n"
		"}\n");
	const struct comp *c = &mod0(x)->comps[0];
	static const char *const lit[] = {
		"{1, 2.5, -3e2}", "-inf", "(1, 2)", "{...}",
		"{ { 1, 2 }, { 3, 4 } }", "true", "nan",
	};

	(void)state;
	assert_int_equal(c->ninstr, 7);
	for (int i = 0; i < c->ninstr; i++) {
		assert_int_equal(c->instrs[i].op->op, OP_CONSTANT);
		assert_int_equal(c->instrs[i].literal_len, strlen(lit[i]));
		assert_memory_equal(c->instrs[i].literal, lit[i],
				    strlen(lit[i]));
		assert_int_equal(c->instrs[i].nops, 0);
	}
	assert_int_equal(c->instrs[2].shape.nelem, 2);
	done(x);
}

static void
test_parameters_and_gte(void **state)
{
	struct fx *x = parse_ok(
		"HloModule params\n"
		"ENTRY e {\n"
		"  b = s32[] parameter(1)\n"
		"  p = (f32[2], s32[], pred[]) parameter(0)\n"
		"  g = pred[] get-tuple-element(p), index=2\n"
		"  ROOT h = f32[2] get-tuple-element("
		"(f32[2], s32[], pred[]) p), index=0\n"
		"}\n");
	const struct comp *e = &mod0(x)->comps[0];

	(void)state;
	assert_int_equal(e->nparam, 2);
	assert_int_equal(e->params[0], instr_index(e, "p"));
	assert_int_equal(e->params[1], instr_index(e, "b"));
	assert_int_equal(instr_named(e, "b")->param, 1);
	assert_int_equal(instr_named(e, "p")->param, 0);
	assert_int_equal(instr_named(e, "g")->param, -1);
	assert_int_equal(instr_named(e, "g")->index, 2);
	assert_int_equal(instr_named(e, "h")->index, 0);
	assert_int_equal(instr_named(e, "h")->ops[0], instr_index(e, "p"));
	assert_int_equal(instr_named(e, "p")->index, -1);
	done(x);
}

/* ---- computations and modules ----------------------------------------- */

static const char calls_hlo[] =
	"HloModule calls, is_scheduled=true\n"
	"\n"
	"add {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n"
	"\n"
	"cond (c.p: (s32[], f32[4])) -> pred[] {\n"
	"  c.p = (s32[], f32[4]) parameter(0)\n"
	"  c.i = s32[] get-tuple-element(c.p), index=0\n"
	"  c.n = s32[] constant(10)\n"
	"  ROOT c.lt = pred[] compare(c.i, c.n), direction=LT\n"
	"}\n"
	"\n"
	"body {\n"
	"  b.p = (s32[], f32[4]) parameter(0)\n"
	"  ROOT b.t = (s32[], f32[4]) copy(b.p)\n"
	"}\n"
	"\n"
	"ENTRY main {\n"
	"  a = f32[4] parameter(0)\n"
	"  z = f32[] constant(0)\n"
	"  r = f32[] reduce(a, z), dimensions={0}, to_apply=add\n"
	"  i = s32[] constant(0)\n"
	"  t = (s32[], f32[4]) tuple(i, a)\n"
	"  w = (s32[], f32[4]) while(t), condition=cond, body=%body\n"
	"  k = f32[] call(r, r), to_apply=add\n"
	"  sel = s32[] parameter(1)\n"
	"  ROOT br = (s32[], f32[4]) conditional(sel, t, w), "
	"branch_computations={body, %body}\n"
	"  after = f32[] add(k, k)\n"
	"}, execution_thread=\"main\"\n";

static void
test_called_computations(void **state)
{
	struct fx *x = parse_ok(calls_hlo);
	const struct module *m = mod0(x);
	const struct comp *e = comp_named(m, "main");
	const struct instr *w = instr_named(e, "w");
	const struct instr *br = instr_named(e, "br");

	(void)state;
	assert_int_equal(m->ncomp, 4);
	assert_int_equal(m->entry, 3);
	assert_true(m->is_scheduled);
	assert_int_equal(instr_named(e, "r")->ncall, 1);
	assert_int_equal(instr_named(e, "r")->calls[0], comp_lookup(m, "add"));
	assert_int_equal(instr_named(e, "k")->calls[0], comp_lookup(m, "add"));
	assert_int_equal(w->ncall, 2);
	assert_int_equal(w->calls[0], comp_lookup(m, "cond"));
	assert_int_equal(w->calls[1], comp_lookup(m, "body"));
	assert_int_equal(br->ncall, 2);
	assert_int_equal(br->calls[0], comp_lookup(m, "body"));
	assert_int_equal(br->calls[1], comp_lookup(m, "body"));
	/* ROOT in the middle is the root; attributes after the brace kept */
	assert_int_equal(e->root, instr_index(e, "br"));
	assert_true(br->is_root);
	assert_int_equal(e->nattr, 1);
	assert_string_equal(e->attrs[0].key, "execution_thread");
	/* the signature is read and dropped; the body defines c.p */
	assert_int_equal(comp_named(m, "cond")->nparam, 1);
	done(x);
}

static void
test_entry_rules(void **state)
{
	struct fx *x = parse_ok(
		"HloModule m1\n"
		"a {\n  ROOT p = f32[] parameter(0)\n}\n"
		"ENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n"
		"c {\n  ROOT p = f32[] parameter(0)\n}\n"
		"// -----\n"
		"HloModule m2\n"
		"a {\n  ROOT p = f32[] parameter(0)\n}\n"
		"c {\n  p = f32[] parameter(0)\n  q = f32[] negate(p)\n}\n");
	const struct module *m1 = &x->f->mods[0], *m2 = &x->f->mods[1];

	(void)state;
	assert_int_equal(x->f->nmod, 2);
	assert_string_equal(m1->name, "m1");
	assert_int_equal(m1->entry, 1);
	assert_true(m1->comps[1].is_entry);
	assert_false(m1->comps[2].is_entry);
	assert_false(m1->is_scheduled);
	/* no ENTRY: the last computation is the entry */
	assert_string_equal(m2->name, "m2");
	assert_int_equal(m2->entry, 1);
	assert_true(m2->comps[1].is_entry);
	assert_false(m2->comps[0].is_entry);
	/* no ROOT: the last instruction is the root */
	assert_int_equal(m2->comps[1].root, 1);
	assert_false(m2->comps[1].instrs[1].is_root);
	done(x);
}

static void
test_comments(void **state)
{
	struct fx *x = parse_ok(
		"// RUN: hlo-opt %s\n"
		"HloModule cm /* a block\n comment */\n"
		"ENTRY e { // the entry\n"
		"  p = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) "
		"parameter(0)\n"
		"  a = f32[] get-tuple-element(p), index=5 // last\n"
		"  ROOT t = (f32[], f32[]) tuple(a, /*index=1*/a)\n"
		"}\n"
		"/* trailing */\n");
	const struct comp *e = &mod0(x)->comps[0];

	(void)state;
	assert_int_equal(e->ninstr, 3);
	assert_int_equal(instr_named(e, "p")->shape.nelem, 6);
	assert_int_equal(instr_named(e, "t")->nops, 2);
	assert_int_equal(instr_named(e, "a")->index, 5);
	done(x);
}

static void
test_input_output_alias(void **state)
{
	struct fx *x = parse_ok(
		"HloModule al, input_output_alias={ {0}: (0, {}, may-alias), "
		"{1, 2}: (1, {1}, must-alias), {3}: (0, {}) }, "
		"entry_computation_layout={(f32[2]{0}, (s32[], f32[2]{0}))->"
		"f32[2]{0}}\n"
		"ENTRY e {\n"
		"  a = f32[2]{0} parameter(0)\n"
		"  b = (s32[], f32[2]{0}) parameter(1)\n"
		"  ROOT r = f32[2]{0} negate(a)\n"
		"}\n");
	const struct module *m = mod0(x);

	(void)state;
	assert_int_equal(m->nattr, 2);
	assert_int_equal(m->nalias, 3);
	assert_int_equal(m->aliases[0].nout, 1);
	assert_int_equal(m->aliases[0].out[0], 0);
	assert_int_equal(m->aliases[0].param, 0);
	assert_int_equal(m->aliases[0].npidx, 0);
	assert_false(m->aliases[0].must);
	assert_int_equal(m->aliases[1].nout, 2);
	assert_int_equal(m->aliases[1].out[1], 2);
	assert_int_equal(m->aliases[1].param, 1);
	assert_int_equal(m->aliases[1].npidx, 1);
	assert_int_equal(m->aliases[1].pidx[0], 1);
	assert_true(m->aliases[1].must);
	assert_false(m->aliases[2].must);
	done(x);

	x = parse_ok("HloModule f, input_output_alias={{}: (0, {}, "
		     "must-alias)}\nENTRY f {\n  a = s32[10] parameter(0)\n"
		     "  ROOT s = s32[10] add(a, a)\n}\n");
	assert_int_equal(mod0(x)->nalias, 1);
	assert_int_equal(mod0(x)->aliases[0].nout, 0);
	assert_true(mod0(x)->aliases[0].must);
	done(x);
}

/* Bytes the lexer cannot start a token with, and a NUL inside a string. */
static void
test_bytes(void **state)
{
	static const char nul[] = "HloModule m\nENTRY e {\n"
				  "  ROOT a = f32[] parameter(0), "
				  "metadata={op_name=\"x\0y\"}\n}\n";
	static const char ff[] = "HloModule m\nENTRY e {\n"
				 "  ROOT a = f32[] parameter(0)\xff\n}\n";
	static const char meta[] = "{op_name=\"x\0y\"}";
	struct fx *x = parse_len(nul, sizeof nul - 1);
	const struct attr *a;

	(void)state;
	assert_int_equal(x->ds.n, 0);
	a = instr_attr(&mod0(x)->comps[0].instrs[0], "metadata");
	assert_non_null(a);
	assert_int_equal(a->vlen, sizeof meta - 1);
	assert_memory_equal(a->val, meta, sizeof meta - 1);
	done(x);
	expect_errors_len(ff, sizeof ff - 1,
			  "t.hlo:3:30: error: unexpected byte 0xff\n"
			  "    ROOT a = f32[] parameter(0)?\n"
			  "                               ^\n");
}

/* ---- diagnostics ------------------------------------------------------ */

static void
test_error_undefined_operand(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2] parameter(0)\n"
		"  ROOT b = f32[2] add(a, c)\n"
		"}\n",
		"t.hlo:4:26: error: operand 'c' of 'b' is not defined in "
		"computation 'e'\n"
		"    ROOT b = f32[2] add(a, c)\n"
		"                           ^\n");
}

static void
test_error_used_before_defined(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  b = f32[2] negate(a)\n"
		"  a = f32[2] parameter(0)\n"
		"}\n",
		"t.hlo:3:21: error: operand 'a' of 'b' is used before its "
		"definition at 4:3\n"
		"    b = f32[2] negate(a)\n"
		"                      ^\n");
}

static void
test_error_duplicate_name(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2] parameter(0)\n"
		"  %a = f32[2] negate(a)\n"
		"}\n",
		"t.hlo:4:3: error: 'a' is defined twice in computation 'e'\n"
		"    %a = f32[2] negate(a)\n"
		"    ^\n");
	expect_errors(
		"HloModule m\n"
		"f {\n  ROOT a = f32[2] parameter(0)\n}\n"
		"ENTRY f {\n  ROOT a = f32[2] parameter(0)\n}\n",
		"t.hlo:5:7: error: computation 'f' is defined twice\n"
		"  ENTRY f {\n"
		"        ^\n");
}

static void
test_error_unknown_computation(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2] parameter(0)\n"
		"  ROOT w = f32[2] while(a), condition=c, body=b\n"
		"}\n",
		"t.hlo:4:29: error: condition: unknown computation 'c'\n"
		"    ROOT w = f32[2] while(a), condition=c, body=b\n"
		"                              ^\n"
		"t.hlo:4:42: error: body: unknown computation 'b'\n"
		"    ROOT w = f32[2] while(a), condition=c, body=b\n"
		"                                           ^\n");
}

static void
test_error_two_roots(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  ROOT a = f32[2] parameter(0)\n"
		"  ROOT b = f32[2] negate(a)\n"
		"}\n",
		"t.hlo:4:8: error: second ROOT in computation 'e' (the first "
		"is at 3:8)\n"
		"    ROOT b = f32[2] negate(a)\n"
		"         ^\n");
}

static void
test_error_two_entries(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n"
		"ENTRY g {\n  ROOT a = f32[2] parameter(0)\n}\n",
		"t.hlo:5:7: error: second ENTRY computation 'g' (the first is "
		"'e')\n"
		"  ENTRY g {\n"
		"        ^\n");
}

static void
test_error_element_type(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  ROOT a = f31[2] parameter(0)\n"
		"}\n",
		"t.hlo:3:12: error: unknown element type 'f31'\n"
		"    ROOT a = f31[2] parameter(0)\n"
		"             ^\n");
}

static void
test_error_layout(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2,3]{1,1} parameter(0)\n"
		"  ROOT b = f32[2,3]{2,0,1} parameter(1)\n"
		"}\n",
		"t.hlo:3:15: error: layout is not a permutation of the shape's "
		"2 dimensions\n"
		"    a = f32[2,3]{1,1} parameter(0)\n"
		"                ^\n"
		"t.hlo:4:20: error: layout lists 3 dimensions, the shape "
		"has 2\n"
		"    ROOT b = f32[2,3]{2,0,1} parameter(1)\n"
		"                     ^\n");
}

static void
test_error_opcode(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2] parameter(0)\n"
		"  ROOT b = f32[2] frobnicate(a)\n"
		"}\n",
		"t.hlo:4:19: error: unknown opcode 'frobnicate'\n"
		"    ROOT b = f32[2] frobnicate(a)\n"
		"                    ^\n");
}

static void
test_error_gte_index(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  p = (f32[2], s32[]) parameter(0)\n"
		"  g = s32[] get-tuple-element(p), index=2\n"
		"  ROOT h = s32[] get-tuple-element(p)\n"
		"}\n",
		"t.hlo:4:3: error: index=2 is out of range for operand 'p'\n"
		"    g = s32[] get-tuple-element(p), index=2\n"
		"    ^\n"
		"t.hlo:5:8: error: get-tuple-element needs index=N\n"
		"    ROOT h = s32[] get-tuple-element(p)\n"
		"         ^\n");
}

static void
test_error_parameter_number(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2] parameter()\n"
		"  ROOT b = f32[2] parameter(x)\n"
		"}\n",
		"t.hlo:3:3: error: parameter needs its number, from 0 to the "
		"number of parameters - 1\n"
		"    a = f32[2] parameter()\n"
		"    ^\n"
		"t.hlo:4:8: error: parameter needs its number, from 0 to the "
		"number of parameters - 1\n"
		"    ROOT b = f32[2] parameter(x)\n"
		"         ^\n");
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2] parameter(0)\n"
		"  b = f32[2] parameter(2)\n"
		"  ROOT c = f32[2] add(a, b)\n"
		"}\n",
		"t.hlo:2:7: error: computation 'e' has no parameter(1)\n"
		"  ENTRY e {\n"
		"        ^\n");
}

/* Name errors in different computations are all reported, along with an
 * unknown opcode elsewhere, in the order of the text. */
static void
test_error_several(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"f {\n"
		"  x = f32[] parameter(0)\n"
		"  ROOT y = f32[] add(x, z)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[] parameter(0)\n"
		"  b = f32[] bogus(a)\n"
		"  ROOT c = f32[] call(a), to_apply=g\n"
		"}\n",
		"t.hlo:4:25: error: operand 'z' of 'y' is not defined in "
		"computation 'f'\n"
		"    ROOT y = f32[] add(x, z)\n"
		"                          ^\n"
		"t.hlo:8:13: error: unknown opcode 'bogus'\n"
		"    b = f32[] bogus(a)\n"
		"              ^\n"
		"t.hlo:9:27: error: to_apply: unknown computation 'g'\n"
		"    ROOT c = f32[] call(a), to_apply=g\n"
		"                            ^\n");
}

/* A syntax error in each computation: one message each, even though the
 * first one's recovery has to skip braces inside attributes. */
static void
test_error_syntax_recovery(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"f {\n"
		"  x = f32[] parameter(0) oops\n"
		"  ROOT y = f32[4] broadcast(x), dimensions={}\n"
		"  z = f32[4] negate(y), metadata={op_name=\"n\"}\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[] parameter(0)\n"
		"  ROOT c = f32[] call(a a), to_apply=f\n"
		"}\n",
		"t.hlo:4:3: error: unexpected 'ROOT', expected '='\n"
		"    ROOT y = f32[4] broadcast(x), dimensions={}\n"
		"    ^\n"
		"t.hlo:9:25: error: unexpected name 'a', expected ',', '(', ')', "
		"'#' or '['\n"
		"    ROOT c = f32[] call(a a), to_apply=f\n"
		"                          ^\n");
}

static void
test_error_truncated(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[2] parameter(0)\n"
		"  b = f32[2] add(a,\n",
		"t.hlo:4:20: error: unexpected end of file (the '(' opened at "
		"4:17 is not closed)\n"
		"    b = f32[2] add(a,\n"
		"                     ^\n");
}

/* A long line is shown as a window around the column, its cuts marked. */
static void
test_error_long_line(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"ENTRY e {\n"
		"  a = f32[] parameter(0)\n"
		"  ROOT c = f32[] call(a), metadata={op_name=\""
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"\"}, to_apply=g, backend_config=\""
		"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
		"yyyyyyyyyyyyyyyyyyyy\"\n"
		"}\n",
		"t.hlo:4:110: error: to_apply: unknown computation 'g'\n"
		"  ...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}, to_apply=g, "
		"backend_config=\"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...\n"
		"                                             ^\n");
}

/* Nesting deeper than the parser's stack is one message, not a crash. */
static void
test_error_nesting(void **state)
{
	enum { DEPTH = 20000 };
	static const char head[] = "HloModule m\nENTRY e {\n"
				   "  ROOT a = f32[] parameter(0), x=";
	char *text = malloc(sizeof head + 2 * DEPTH + 4);
	struct fx *x;
	size_t n = sizeof head - 1;

	(void)state;
	assert_non_null(text);
	memcpy(text, head, n);
	memset(text + n, '{', DEPTH);
	memset(text + n + DEPTH, '}', DEPTH);
	memcpy(text + n + 2 * DEPTH, "\n}\n", 4);
	x = parse_len(text, n + 2 * DEPTH + 3);
	assert_int_equal(x->ds.n, 1);
	assert_int_equal(x->ds.d[0].loc.line, 3);
	assert_string_equal(x->ds.d[0].msg,
			    "brackets nested too deeply (memory exhausted)");
	done(x);
	free(text);
}

/* ---- shape inference and the verifier's checks ------------------------ */

static const char infer_hlo[] =
	"HloModule inf\n"
	"add {\n"
	"  x = f32[] parameter(0)\n"
	"  y = f32[] parameter(1)\n"
	"  ROOT s = f32[] add(x, y)\n"
	"}\n"
	"add2 {\n"
	"  x0 = f32[] parameter(0)\n"
	"  x1 = s32[] parameter(1)\n"
	"  y0 = f32[] parameter(2)\n"
	"  y1 = s32[] parameter(3)\n"
	"  s0 = f32[] add(x0, y0)\n"
	"  s1 = s32[] add(x1, y1)\n"
	"  ROOT t = (f32[], s32[]) tuple(s0, s1)\n"
	"}\n"
	"lt {\n"
	"  a = f32[] parameter(0)\n"
	"  b = f32[] parameter(1)\n"
	"  ROOT c = pred[] compare(a, b), direction=LT\n"
	"}\n"
	"lt2 {\n"
	"  a = f32[] parameter(0)\n"
	"  b = f32[] parameter(1)\n"
	"  c = s32[] parameter(2)\n"
	"  d = s32[] parameter(3)\n"
	"  ROOT e = pred[] compare(a, b), direction=LT\n"
	"}\n"
	"ENTRY e {\n"
	"  a = f32[2,3]{0,1} parameter(0)\n"
	"  b = f32[2,3] parameter(1)\n"
	"  i = s32[2,3] parameter(2)\n"
	"  h = bf16[2,3] parameter(3)\n"
	"  c = c64[2,3] parameter(4)\n"
	"  p = pred[2,3] parameter(5)\n"
	"  a3 = f32[4,2,3] parameter(6)\n"
	"  b3 = f32[4,3,5] parameter(7)\n"
	"  z = f32[] constant(0)\n"
	"  zi = s32[] constant(0)\n"
	"  neg = f32[2,3] negate(a)\n"
	"  ab = f32[2,3] abs(c)\n"
	"  fin = pred[2,3] is-finite(a)\n"
	"  mul = f32[2,3] multiply(a, h)\n"
	"  cmp = pred[2,3] compare(a, b), direction=GT\n"
	"  cpx = c64[2,3] complex(a, b)\n"
	"  sh = s32[2,3] shift-left(i, i)\n"
	"  sel = f32[2,3] select(p, a, b)\n"
	"  cl = f32[2,3] clamp(z, a, z)\n"
	"  tr = f32[3,2] transpose(a), dimensions={1,0}\n"
	"  bc = f32[] broadcast(z), dimensions={}\n"
	"  bv = f32[4,2,3] broadcast(a), dimensions={1,2}\n"
	"  rv = f32[2,3] reverse(a), dimensions={0}\n"
	"  cat = f32[2,6] concatenate(a, b), dimensions={1}\n"
	"  pd = f32[5,8] pad(a, z), padding=1_2x0_1_2\n"
	"  dt = f32[2,2] dot(a, b), lhs_contracting_dims={1}, "
	"rhs_contracting_dims={1}\n"
	"  bd = f32[4,2,5] dot(a3, b3), lhs_batch_dims={0}, "
	"rhs_batch_dims={0}, lhs_contracting_dims={2}, "
	"rhs_contracting_dims={1}\n"
	"  rd = f32[3] reduce(a, z), dimensions={0}, to_apply=add\n"
	"  rd2 = (f32[2], s32[2]) reduce(a, i, z, zi), dimensions={1}, "
	"to_apply=add2\n"
	"  mp = f32[2,3] map(a, b), dimensions={0,1}, to_apply=add\n"
	"  rw = f32[1,3] reduce-window(a, z), window={size=2x1 stride=2x1}, "
	"to_apply=add\n"
	"  rw2 = f32[3,3] reduce-window(a, z), window={size=2x1 pad=1_1x0_0 "
	"lhs_dilate=1x1}, to_apply=add\n"
	"  st = f32[2,3] sort(a), dimensions={1}, to_apply=lt\n"
	"  st2 = (f32[2,3], s32[2,3]) sort(a, i), dimensions={0}, "
	"to_apply=lt2\n"
	"  tu = (f32[2,3]{0,1}, s32[]) tuple(a, zi)\n"
	"  g = s32[] get-tuple-element(tu), index=1\n"
	"  tk = token[] after-all()\n"
	"  ad = f32[2,3] add-dependency(a, tk)\n"
	"  pid = u32[] partition-id()\n"
	"  gds = s32[] get-dimension-size(a), dimensions={1}\n"
	"  cp = f32[2,3] copy(a)\n"
	"  cv = s32[2,3] convert(a)\n"
	"  rs = f32[6] reshape(a)\n"
	"  io = s32[4] iota(), iota_dimension=0\n"
	"  cal = f32[] call(z, z), to_apply=add\n"
	"  ROOT r = f32[2,3] add(a, b)\n"
	"}\n";

/* What infer_shape gives for instruction name of the entry: the shape as
 * text, or "not inferred", or "error". */
static const char *
inferred(struct fx *x, const char *name)
{
	const struct module *m = mod0(x);
	const struct comp *e = &m->comps[m->entry];
	struct parser P = {.file = x->f, .ds = &x->ds, .pool = x->pool};
	struct shape s;
	char *buf = NULL, *r;
	size_t len = 0;
	FILE *f;
	int got = infer_shape(&P, m, e, instr_named(e, name), &s);

	if (got <= 0)
		return got ? "error" : "not inferred";
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ir_print_shape(f, &s);
	fclose(f);
	r = pool_strdup(x->pool, buf);
	free(buf);
	return r;
}

static void
test_infer_elementwise(void **state)
{
	struct fx *x = parse_ok(infer_hlo);

	(void)state;
	assert_string_equal(inferred(x, "neg"), "f32[2,3]");
	assert_string_equal(inferred(x, "ab"), "f32[2,3]");
	assert_string_equal(inferred(x, "fin"), "pred[2,3]");
	assert_string_equal(inferred(x, "mul"), "f32[2,3]");
	assert_string_equal(inferred(x, "cmp"), "pred[2,3]");
	assert_string_equal(inferred(x, "cpx"), "c64[2,3]");
	assert_string_equal(inferred(x, "sh"), "s32[2,3]");
	assert_string_equal(inferred(x, "sel"), "f32[2,3]");
	assert_string_equal(inferred(x, "cl"), "f32[2,3]");
	assert_string_equal(inferred(x, "cp"), "f32[2,3]{0,1}");
	assert_string_equal(inferred(x, "r"), "f32[2,3]");
	assert_string_equal(inferred(x, "cv"), "not inferred");
	assert_int_equal(x->ds.n, 0);
	done(x);
}

/* A convolution's shape from dim_labels and window (InferConvolveShape):
 * cudnn_fused_conv_rewriter_test writes convolutions without a shape. */
static void
test_infer_convolution(void **state)
{
	struct fx *x = parse_ok(
		"HloModule conv\n"
		"ENTRY e {\n"
		"  a = f32[1,17,9,9] parameter(0)\n"
		"  k = f32[3,3,17,32] parameter(1)\n"
		"  b = f32[256,32,32,1] parameter(2)\n"
		"  k2 = f32[2,2,1,1] parameter(3)\n"
		"  c = f32[1,32,9,9] convolution(a, k), window={size=3x3 "
		"pad=1_1x1_1}, dim_labels=bf01_01io->bf01\n"
		"  ROOT d = f32[1,30,30,256] convolution(b, k2), window={size=3x3 "
		"stride=4x5 pad=44_45x60_60\n    rhs_dilate=2x3 rhs_reversal=0x1}, "
		"dim_labels=b01f_01io->f01b\n"
		"}\n");

	(void)state;
	assert_string_equal(inferred(x, "c"), "f32[1,32,9,9]");
	assert_string_equal(inferred(x, "d"), "f32[1,30,30,256]");
	done(x);
	expect_errors("HloModule m\n"
		      "ENTRY e {\n"
		      "  a = f32[1,17,9,9] parameter(0)\n"
		      "  k = f32[3,3,17,32] parameter(1)\n"
		      "  ROOT c = s32[1,32,9,8] convolution(a, k), "
		      "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_01io->bf01\n"
		      "}\n",
		      "t.hlo:5:8: error: convolution 'c': its shape, "
		      "s32[1,32,9,8], is not the f32[1,32,9,9] that its operands "
		      "give\n"
		      "    ROOT c = s32[1,32,9,8] convolution(a, k), "
		      "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_01io->bf0...\n"
		      "         ^\n");
	expect_errors("HloModule m\n"
		      "ENTRY e {\n"
		      "  a = f32[1,2,1] parameter(0)\n"
		      "  k = f32[1,1,1] parameter(1)\n"
		      "  ROOT c = f32[1,2,1] convolution(a, k), "
		      "window={pad=1_1_0 size=1}, dim_labels=b0f_0io->b0f\n"
		      "}\n",
		      "t.hlo:5:8: error: convolution 'c': window does not "
		      "describe 1 dimensions\n"
		      "    ROOT c = f32[1,2,1] convolution(a, k), window={pad=1_1_0 "
		      "size=1}, dim_labels=b0f_0io->b0f\n"
		      "         ^\n");
}

/* What XLA's parser and verifier refuse that a plan would not notice: a
 * signature's result that is not its root's shape (ParseComputation), an
 * infeed whose shape is not a non-empty tuple, a dynamic-slice whose shape
 * is not its dynamic_slice_sizes (collective_opt_utils_test writes one). */
static void
test_signature_result(void **state)
{
	(void)state;
	expect_errors("HloModule m\n"
		      "ENTRY e () -> f32[1] {\n"
		      "  c = f32[1]{0} constant({1})\n"
		      "  ROOT f = f32[1,2]{1,0} custom-call(c), "
		      "custom_call_target=\"f\"\n"
		      "}\n",
		      "t.hlo:2:15: error: the shape of computation 'e', f32[1], "
		      "is not compatible with that of its root 'f', f32[1,2]{1,0}\n"
		      "  ENTRY e () -> f32[1] {\n"
		      "                ^\n");
	expect_errors("HloModule m\n"
		      "ENTRY e {\n"
		      "  t = token[] after-all()\n"
		      "  ROOT i = pred[] infeed(t)\n"
		      "}\n",
		      "t.hlo:4:8: error: infeed 'i' must have a non-empty tuple "
		      "shape (data, token), not pred[]\n"
		      "    ROOT i = pred[] infeed(t)\n"
		      "         ^\n");
	expect_errors("HloModule m\n"
		      "ENTRY e {\n"
		      "  c = s32[4] parameter(0)\n"
		      "  i = u32[] parameter(1)\n"
		      "  ROOT d = s32[] dynamic-slice(c, i), "
		      "dynamic_slice_sizes={1}\n"
		      "}\n",
		      "t.hlo:5:8: error: dynamic-slice 'd': its shape, s32[], is "
		      "not a slice of dynamic_slice_sizes of its operand, "
		      "s32[4]\n"
		      "    ROOT d = s32[] dynamic-slice(c, i), "
		      "dynamic_slice_sizes={1}\n"
		      "         ^\n");
	done(parse_ok("HloModule m\n"
		      "ENTRY e (p: f32[2]) -> f32[2] {\n"
		      "  ROOT p = f32[2]{0:S(1)} parameter(0)\n"
		      "}\n"));
}

/* Bounded dimensions (<=N) go through elementwise ops and reduce's kept
 * dimensions as XLA's shape inference carries them; '?' and other ops are
 * not inferred. */
static void
test_infer_bounded(void **state)
{
	struct fx *x = parse_ok(
		"HloModule dyn\n"
		"add {\n"
		"  x = f32[] parameter(0)\n"
		"  y = f32[] parameter(1)\n"
		"  ROOT s = f32[] add(x, y)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[<=20,20] parameter(0)\n"
		"  b = f32[20,<=20] parameter(1)\n"
		"  z = f32[] constant(0)\n"
		"  s = f32[20,20] add(a, b)\n"
		"  n = f32[20,20] imag(a)\n"
		"  c = pred[20,20] compare(a, b), direction=LT\n"
		"  r = f32[20] reduce(a, z), dimensions={0}, to_apply=add\n"
		"  r1 = f32[20] reduce(b, z), dimensions={0}, to_apply=add\n"
		"  t = f32[20,20] transpose(a), dimensions={1,0}\n"
		"  ROOT o = f32[20,20] negate(a)\n"
		"}\n");

	(void)state;
	assert_string_equal(inferred(x, "s"), "f32[<=20,<=20]");
	assert_string_equal(inferred(x, "n"), "f32[<=20,20]");
	assert_string_equal(inferred(x, "c"), "pred[<=20,<=20]");
	assert_string_equal(inferred(x, "r"), "f32[20]");
	assert_string_equal(inferred(x, "r1"), "f32[<=20]");
	assert_string_equal(inferred(x, "t"), "not inferred");
	done(x);
}

static void
test_infer_structure(void **state)
{
	struct fx *x = parse_ok(infer_hlo);

	(void)state;
	assert_string_equal(inferred(x, "tu"), "(f32[2,3]{0,1}, s32[])");
	assert_string_equal(inferred(x, "g"), "s32[]");
	assert_string_equal(inferred(x, "cal"), "f32[]");
	assert_string_equal(inferred(x, "tk"), "token[]");
	assert_string_equal(inferred(x, "ad"), "f32[2,3]{0,1}");
	assert_string_equal(inferred(x, "pid"), "u32[]");
	assert_string_equal(inferred(x, "gds"), "s32[]");
	assert_string_equal(inferred(x, "rs"), "not inferred");
	assert_string_equal(inferred(x, "io"), "not inferred");
	assert_int_equal(x->ds.n, 0);
	done(x);
}

static void
test_infer_data_movement(void **state)
{
	struct fx *x = parse_ok(infer_hlo);

	(void)state;
	assert_string_equal(inferred(x, "tr"), "f32[3,2]");
	assert_string_equal(inferred(x, "bc"), "f32[]");
	assert_string_equal(inferred(x, "bv"), "not inferred");
	assert_string_equal(inferred(x, "rv"), "f32[2,3]");
	assert_string_equal(inferred(x, "cat"), "f32[2,6]");
	assert_string_equal(inferred(x, "pd"), "f32[5,8]");
	assert_int_equal(x->ds.n, 0);
	done(x);
}

static void
test_infer_dot_and_reductions(void **state)
{
	struct fx *x = parse_ok(infer_hlo);

	(void)state;
	assert_string_equal(inferred(x, "dt"), "f32[2,2]");
	assert_string_equal(inferred(x, "bd"), "f32[4,2,5]");
	assert_string_equal(inferred(x, "rd"), "f32[3]");
	assert_string_equal(inferred(x, "rd2"), "(f32[2], s32[2])");
	assert_string_equal(inferred(x, "mp"), "f32[2,3]");
	assert_string_equal(inferred(x, "rw"), "f32[1,3]");
	assert_string_equal(inferred(x, "rw2"), "f32[3,3]");
	assert_string_equal(inferred(x, "st"), "f32[2,3]");
	assert_string_equal(inferred(x, "st2"),
			    "(f32[2,3]{0,1}, s32[2,3])");
	assert_int_equal(x->ds.n, 0);
	done(x);
}

/* An entry with these instructions after parameters a: f32[8], b: f32[9],
 * i: s32[8], z: f32[]. */
static void
expect_entry_errors(const char *body, const char *want)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fprintf(f, "HloModule m\n"
		   "add {\n"
		   "  x = f32[] parameter(0)\n"
		   "  y = f32[] parameter(1)\n"
		   "  ROOT s = f32[] add(x, y)\n"
		   "}\n"
		   "ENTRY e {\n"
		   "  a = f32[8] parameter(0)\n"
		   "  b = f32[9] parameter(1)\n"
		   "  i = s32[8] parameter(2)\n"
		   "  z = f32[] constant(0)\n"
		   "%s}\n", body);
	fclose(f);
	expect_errors(text, want);
	free(text);
}

static void
test_check_operands(void **state)
{
	(void)state;
	expect_entry_errors(
		"  m = f32[8] multiply(a, b)\n"
		"  n = f32[8] add(a, i)\n"
		"  x = s32[8] exponential(i)\n"
		"  s = f32[8] select(a, a, a)\n",
		"t.hlo:12:3: error: multiply 'm': operands of different "
		"shapes, f32[8] and f32[9] (HLO has no implicit broadcast)\n"
		"    m = f32[8] multiply(a, b)\n"
		"    ^\n"
		"t.hlo:13:3: error: add 'n': operands of different element "
		"types, f32[8] and s32[8]\n"
		"    n = f32[8] add(a, i)\n"
		"    ^\n"
		"t.hlo:14:3: error: exponential 'x': does not take elements "
		"of type s32\n"
		"    x = s32[8] exponential(i)\n"
		"    ^\n"
		"t.hlo:15:3: error: select 's': the predicate, f32[8], is not "
		"pred\n"
		"    s = f32[8] select(a, a, a)\n"
		"    ^\n");
}

static void
test_check_result_shape(void **state)
{
	(void)state;
	expect_entry_errors(
		"  c = f32[8] compare(a, a), direction=LT\n"
		"  d = f32[9] negate(a)\n"
		"  t = f32[8,1] concatenate(a, a), dimensions={0}\n",
		"t.hlo:12:3: error: compare 'c': its shape, f32[8], is not "
		"the pred[8] that its operands give\n"
		"    c = f32[8] compare(a, a), direction=LT\n"
		"    ^\n"
		"t.hlo:13:3: error: negate 'd': its shape, f32[9], is not the "
		"f32[8] that its operands give\n"
		"    d = f32[9] negate(a)\n"
		"    ^\n"
		"t.hlo:14:3: error: concatenate 't': its shape, f32[8,1], is "
		"not the f32[16] that its operands give\n"
		"    t = f32[8,1] concatenate(a, a), dimensions={0}\n"
		"    ^\n");
}

static void
test_check_dimension_numbers(void **state)
{
	(void)state;
	expect_entry_errors(
		"  t = f32[8] transpose(a), dimensions={1}\n"
		"  r = f32[] reduce(a, z), dimensions={0,0}, to_apply=add\n"
		"  v = f32[8] reverse(a), dimensions={-1}\n"
		"  d = f32[] dot(a, a), lhs_contracting_dims={0}, "
		"rhs_contracting_dims={1}\n"
		"  c = f32[16] concatenate(a, a), dimensions={1}\n"
		"  g = s32[] get-dimension-size(a), dimensions={2}\n",
		"t.hlo:12:3: error: transpose 't': dimensions lists dimension "
		"1, out of range for rank 1\n"
		"    t = f32[8] transpose(a), dimensions={1}\n"
		"    ^\n"
		"t.hlo:13:3: error: reduce 'r': dimensions lists dimension 0 "
		"twice\n"
		"    r = f32[] reduce(a, z), dimensions={0,0}, to_apply=add\n"
		"    ^\n"
		"t.hlo:14:3: error: reverse 'v': dimensions lists dimension "
		"-1, out of range for rank 1\n"
		"    v = f32[8] reverse(a), dimensions={-1}\n"
		"    ^\n"
		"t.hlo:15:3: error: dot 'd': rhs_contracting_dims lists "
		"dimension 1, out of range for rank 1\n"
		"    d = f32[] dot(a, a), lhs_contracting_dims={0}, "
		"rhs_contracting_dims={1}\n"
		"    ^\n"
		"t.hlo:16:3: error: concatenate 'c': dimensions lists "
		"dimension 1, out of range for rank 1\n"
		"    c = f32[16] concatenate(a, a), dimensions={1}\n"
		"    ^\n"
		"t.hlo:17:3: error: get-dimension-size 'g': dimensions lists "
		"dimension 2, out of range for rank 1\n"
		"    g = s32[] get-dimension-size(a), dimensions={2}\n"
		"    ^\n");
}

static void
test_check_broadcast_iota_reshape(void **state)
{
	(void)state;
	expect_entry_errors(
		"  b1 = f32[8,2] broadcast(a), dimensions={1}\n"
		"  b2 = s32[2,8] broadcast(a), dimensions={1}\n"
		"  b3 = f32[2,8] broadcast(a), dimensions={}\n"
		"  i1 = s32[4] iota(), iota_dimension=1\n"
		"  r1 = f32[3,3] reshape(a)\n"
		"  s1 = f32[3] slice(a), slice={[0:8:3]}\n"
		"  s2 = f32[2] slice(a), slice={[4:9]}\n"
		"  c1 = s32[9] convert(a)\n",
		"t.hlo:12:3: error: broadcast 'b1': operand dimension 0, of "
		"size 8, is not dimension 1 of f32[8,2]\n"
		"    b1 = f32[8,2] broadcast(a), dimensions={1}\n"
		"    ^\n"
		"t.hlo:13:3: error: broadcast 'b2': its operand is f32, its "
		"result s32\n"
		"    b2 = s32[2,8] broadcast(a), dimensions={1}\n"
		"    ^\n"
		"t.hlo:14:3: error: broadcast 'b3': dimensions={...} needs "
		"one entry for each of the 1 dimensions of its operand\n"
		"    b3 = f32[2,8] broadcast(a), dimensions={}\n"
		"    ^\n"
		"t.hlo:15:23: error: iota_dimension=1 is out of range for "
		"s32[4]\n"
		"    i1 = s32[4] iota(), iota_dimension=1\n"
		"                        ^\n"
		"t.hlo:16:3: error: reshape 'r1': its shape, f32[3,3], does "
		"not fit its operand, f32[8]\n"
		"    r1 = f32[3,3] reshape(a)\n"
		"    ^\n"
		"t.hlo:18:3: error: slice 's2': its shape, f32[2], is not a "
		"slice={[4:9]} of its operand, f32[8]\n"
		"    s2 = f32[2] slice(a), slice={[4:9]}\n"
		"    ^\n"
		"t.hlo:19:3: error: convert 'c1': its shape, s32[9], does not "
		"fit its operand, f32[8]\n"
		"    c1 = s32[9] convert(a)\n"
		"    ^\n");
}

static void
test_check_attributes(void **state)
{
	(void)state;
	expect_entry_errors(
		"  r = f32[] reduce(a, z), dimension={0}, to_apply=add\n"
		"  n = f32[8] negate(a), metadata={op_name=\"n\"}, "
		"sharding={replicated}, index=3\n"
		"  e = f32[8] exponential(a), result_accuracy={mode=highest}, "
		"metadata={}, metadata={}\n",
		"t.hlo:12:3: error: reduce 'r': needs dimensions={...}\n"
		"    r = f32[] reduce(a, z), dimension={0}, to_apply=add\n"
		"    ^\n"
		"t.hlo:12:27: error: unexpected attribute dimension: reduce "
		"takes to_apply and dimensions, and the attributes of every "
		"instruction\n"
		"    r = f32[] reduce(a, z), dimension={0}, to_apply=add\n"
		"                            ^\n"
		"t.hlo:13:72: error: unexpected attribute index: negate takes "
		"only the attributes of every instruction\n"
		"  ...a={op_name=\"n\"}, sharding={replicated}, index=3\n"
		"                                             ^\n"
		"t.hlo:14:75: error: attribute metadata is given twice\n"
		"  ...t_accuracy={mode=highest}, metadata={}, metadata={}\n"
		"                                             ^\n");
}

/* X-start, X-update and X-done wrap opcode X: X takes its attributes in
 * the computation that wraps it, the start keeps the async ones and those
 * of every instruction; an unknown one is X's, and reported as such. */
static void
test_check_async_wrapper_attributes(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m\n"
		"f {\n"
		"  p = f32[8] parameter(0)\n"
		"  ROOT n = f32[8] negate(p)\n"
		"}\n"
		"ENTRY e {\n"
		"  a = f32[8] parameter(0)\n"
		"  s = ((f32[8]), f32[8]) fusion-start(a), calls=f, kind=kLoop, "
		"async_execution_thread=\"t\", output_to_operand_aliasing={}, "
		"metadata={}, bogus=1\n"
		"  ROOT d = f32[8] fusion-done(s)\n"
		"}\n",
		"t.hlo:8:136: error: unexpected attribute bogus: fusion takes "
		"calls, kind and output_to_operand_aliasing, and the attributes "
		"of every instruction\n"
		"  ...ut_to_operand_aliasing={}, metadata={}, bogus=1\n"
		"                                             ^\n");
}

static void
test_check_entry_layout(void **state)
{
	(void)state;
	expect_errors(
		"HloModule m, "
		"entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n"
		"ENTRY e {\n"
		"  a = f32[8] parameter(0)\n"
		"  b = f32[8] parameter(1)\n"
		"  ROOT c = f32[8] add(a, b)\n"
		"}\n",
		"t.hlo:1:14: error: entry_computation_layout lists 1 "
		"parameter; the entry has 2\n"
		"  HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{"
		"0}}\n"
		"               ^\n");
	expect_errors(
		"HloModule m, entry_computation_layout={(s32[8]{0}, f32[4]{0})"
		"->f32[9]{0}}\n"
		"ENTRY e {\n"
		"  a = f32[8] parameter(0)\n"
		"  b = f32[8] parameter(1)\n"
		"  ROOT c = f32[8] add(a, b)\n"
		"}\n",
		"t.hlo:1:14: error: entry_computation_layout: parameter 0 is "
		"s32[8]{0}, not f32[8]\n"
		"  HloModule m, entry_computation_layout={(s32[8]{0}, "
		"f32[4]{0})->f32[9]{0}}\n"
		"               ^\n"
		"t.hlo:1:14: error: entry_computation_layout: parameter 1 is "
		"f32[4]{0}, not f32[8]\n"
		"  HloModule m, entry_computation_layout={(s32[8]{0}, "
		"f32[4]{0})->f32[9]{0}}\n"
		"               ^\n"
		"t.hlo:1:14: error: entry_computation_layout: the result is "
		"f32[9]{0}, not f32[8]\n"
		"  HloModule m, entry_computation_layout={(s32[8]{0}, "
		"f32[4]{0})->f32[9]{0}}\n"
		"               ^\n");
}

/* ---- round trip ------------------------------------------------------- */

static char *
printed(struct fx *x)
{
	char *buf = NULL, *r;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	for (int i = 0; i < x->f->nmod; i++)
		ir_print_module(m, &x->f->mods[i]);
	fclose(m);
	r = pool_strdup(x->pool, buf);
	free(buf);
	return r;
}

static void
round_trip(const char *text)
{
	struct fx *a = parse_ok(text), *b, *c;
	char *pa = printed(a), *pb, *pc;

	b = parse_ok(pa);
	pb = printed(b);
	c = parse_ok(pb);
	pc = printed(c);
	assert_string_equal(pa, pb);
	assert_string_equal(pb, pc);
	assert_int_equal(a->f->nmod, b->f->nmod);
	for (int i = 0; i < a->f->nmod; i++) {
		const struct module *ma = &a->f->mods[i], *mb = &b->f->mods[i];

		assert_int_equal(ma->ncomp, mb->ncomp);
		assert_int_equal(ma->entry, mb->entry);
		assert_int_equal(ma->nalias, mb->nalias);
		for (int k = 0; k < ma->ncomp; k++)
			assert_int_equal(ma->comps[k].root, mb->comps[k].root);
	}
	done(a);
	done(b);
	done(c);
}

static void
test_round_trip(void **state)
{
	(void)state;
	round_trip(calls_hlo);
	round_trip(
		"HloModule rt, input_output_alias={ {0}: (0, {}, may-alias) }\n"
		"ENTRY e {\n"
		"  a = f32[8,128]{0,1:T(8,128)(2,1)E(4)S(1)} parameter(0)\n"
		"  d = f32[<=8,?]{1,0} parameter(1)\n"
		"  c = (s32[], f32[]) constant((1, 2))\n"
		"  k = f32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })\n"
		"  n = f32[] constant(-inf)\n"
		"  ROOT r = f32[8,128]{0,1:T(8,128)(2,1)E(4)S(1)} "
		"negate(f32[8,128]{0,1} a), metadata={op_name=\"x\"}\n"
		"}\n"
		"// -----\n"
		"HloModule two\n"
		"g {\n"
		"  p = (f32[2], /*index=1*/s4[4]) parameter(0)\n"
		"  q = s4[4] get-tuple-element(p), index=1\n"
		"}\n");
}

/* ---- where instructions come from -------------------------------------- */

static void
test_stack_frames(void **state)
{
	struct fx *x = parse_ok(
		"HloModule sf, "
		"entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\n"
		"FileNames\n1 \"a/m\\303\\251\\\"x\\\".py\"\n2 \"lib.py\"\n\n"
		"FunctionNames\n1 \"main\"\n2 \"f\"\n\n"
		"FileLocations\n"
		"1 {file_name_id=1 function_name_id=1 line=7 end_line=7 "
		"column=2 end_column=9}\n"
		"2 {file_name_id=2 function_name_id=2 line=30 end_line=31 "
		"column=4 end_column=8}\n\n"
		"StackFrames\n"
		"1 {file_location_id=1 parent_frame_id=1}\n"
		"2 {file_location_id=2 parent_frame_id=2}\n\n"
		"ENTRY e {\n"
		"  FileNames = f32[8]{0} parameter(0), metadata={op_type=\"p\" "
		"op_name=\"jit(f)/x\" stack_frame_id=1}\n"
		"  s = f32[8]{0} sine(FileNames), metadata={op_name="
		"\"jit(f)/sin\" profile_type={1,2} stack_frame_id=2}, "
		"frontend_attributes="
		"{StackFrames=\"1\"}\n"
		"  c = f32[8]{0} cosine(s), metadata={source_file=\"own.py\" "
		"source_line=3 stack_frame_id=2}\n"
		"  ROOT n = f32[8]{0} negate(c), metadata={op_name=\"n\" "
		"stack_frame_id=146}\n"
		"}\n");
	const struct module *m = mod0(x);
	const struct comp *e = &m->comps[0];

	(void)state;
	assert_int_equal(m->frames.nfile, 2);
	assert_string_equal(m->frames.files[0], "a/m\xc3\xa9\"x\".py");
	assert_int_equal(m->frames.nfunc, 2);
	assert_int_equal(m->frames.nloc, 2);
	assert_int_equal(m->frames.locs[1].end_line, 31);
	assert_int_equal(m->frames.locs[1].end_col, 8);
	assert_int_equal(m->frames.nframe, 2);
	assert_int_equal(m->frames.frames[0].parent, 0);
	assert_int_equal(m->frames.frames[1].parent, 1);
	assert_string_equal(e->instrs[0].name, "FileNames");
	assert_string_equal(e->instrs[0].src_file, m->frames.files[0]);
	assert_int_equal(e->instrs[0].src_line, 7);
	assert_string_equal(e->instrs[0].op_name, "jit(f)/x");
	assert_string_equal(e->instrs[1].src_file, "lib.py");
	assert_int_equal(e->instrs[1].src_line, 30);
	assert_string_equal(e->instrs[1].op_name, "jit(f)/sin");
	/* source_file/source_line of its own win over the frame. */
	assert_string_equal(e->instrs[2].src_file, "own.py");
	assert_int_equal(e->instrs[2].src_line, 3);
	assert_null(e->instrs[2].op_name);
	/* A frame the tables do not have: no file, as XLA drops it. */
	assert_null(e->instrs[3].src_file);
	assert_int_equal(e->instrs[3].src_line, 0);
	assert_string_equal(e->instrs[3].op_name, "n");
	done(x);
}

/* ---- inputs that are not HLO text ------------------------------------ */

#define GET_TEXT "; hloplan reads HLO text: get it with " \
	"jax.jit(f).lower(x).compile().as_text(), or run with " \
	"XLA_FLAGS=\"--xla_dump_to=DIR --xla_dump_hlo_as_text\"\n"

static void
test_foreign_formats(void **state)
{
	static const char proto[] = "\x0a\x0b\x0a\x05jit_f\x28\x07\x30\x01";

	(void)state;
	expect_errors("module @jit_f attributes {mhlo.num_replicas = 1 : i32}"
		      " {\n}\n",
		      "t.hlo:1:1: error: this is StableHLO or MHLO text "
		      "(MLIR), not HLO text" GET_TEXT
		      "  module @jit_f attributes {mhlo.num_replicas = 1 : "
		      "i32} {\n  ^\n");
	expect_errors("// from jax\n#loc = loc(unknown)\nmodule {\n}\n",
		      "t.hlo:2:1: error: this is StableHLO or MHLO text "
		      "(MLIR), not HLO text" GET_TEXT
		      "  #loc = loc(unknown)\n  ^\n");
	expect_errors("func.func @main() {\n}\n",
		      "t.hlo:1:1: error: this is StableHLO or MHLO text "
		      "(MLIR), not HLO text" GET_TEXT
		      "  func.func @main() {\n  ^\n");
	expect_errors("name: \"jit_f\"\nentry_computation_name: \"main\"\n",
		      "t.hlo:1:1: error: this is an HloProto in protobuf text "
		      "format, not HLO text" GET_TEXT
		      "  name: \"jit_f\"\n  ^\n");
	expect_errors_len(proto, sizeof proto - 1,
			  "t.hlo:1:1: error: this is a binary protobuf (an "
			  "HloProto or HloSnapshot?), not HLO text" GET_TEXT);
	/* Not taken for another format: a computation without a header. */
	expect_errors("add {\n}\n",
		      "t.hlo:1:1: error: unexpected name 'add', expected "
		      "'HloModule'\n  add {\n  ^\n");
}

/* A UTF-8 byte-order mark is skipped; columns count from after it. */
static void
test_byte_order_mark(void **state)
{
	struct fx *x = parse_ok("\xef\xbb\xbfHloModule bom\n"
				"ENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n"
				"}\n");

	(void)state;
	assert_string_equal(mod0(x)->name, "bom");
	assert_int_equal(mod0(x)->loc.col, 1);
	done(x);
	expect_errors("\xef\xbb\xbfHloModule bom, x\n",
		      "t.hlo:1:17: error: unexpected end of file, expected "
		      "'='\n  HloModule bom, x\n                  ^\n");
}

/* find_opattrs searches the attribute table by halves: its rows must be in
 * strcmp order, and each row must be found, or an opcode's attributes go
 * unchecked. */
static void
test_opattrs_sorted(void **state)
{
	const char *prev = NULL, *op;
	char text[256], want[128];

	(void)state;
	for (size_t i = 0; (op = opattrs_op(i)); i++) {
		struct fx *x;

		if (prev)
			assert_true(strcmp(prev, op) < 0);
		prev = op;
		snprintf(text, sizeof text, "HloModule m\nENTRY e {\n"
			 "  p = f32[4] parameter(0)\n"
			 "  ROOT x = f32[4] %s(p), bogus_attr=1\n}\n", op);
		snprintf(want, sizeof want, "unexpected attribute bogus_attr: "
			 "%s takes", op);
		x = parse(text);
		if (!strstr(rendered(x), want))
			fail_msg("%s: no '%s' in\n%s", op, want, rendered(x));
		done(x);
	}
	assert_non_null(prev);
}

/* XLA's lexer makes "name:" one name token, and its ParseParamList wants a
 * name and a shape: "HloModule m:" and "(p f32[2])" parse.  A '{' right
 * after a result shape's ']' opens the body unless a number or ':' comes
 * next (XLA's ParseShape looks one token ahead). */
static void
test_xla_name_tokens(void **state)
{
	struct fx *x = parse_ok(
		"HloModule named_with_colon:\n"
		"ENTRY e (p f32[2]{0}, q: f32[2]) -> f32[2]{\n"
		"  %p = f32[2]{0} parameter(0)\n"
		"  %q = f32[2]{0} parameter(1)\n"
		"  ROOT s = f32[2]{0} add(p, q)\n"
		"}\n");
	const struct comp *e = comp_named(mod0(x), "e");

	(void)state;
	assert_string_equal(mod0(x)->name, "named_with_colon");
	assert_int_equal(e->ninstr, 3);
	assert_int_equal(e->nparam, 2);
	done(x);
	x = parse_ok("HloModule m\n"
		     "ENTRY e (p: f32[2,3]) -> f32[2,3]{\n"
		     "  p = f32[2,3]{0,1} parameter(0)\n"
		     "  ROOT n = f32[2,3]{\n"
		     "0,1} negate(p)\n"
		     "}\n");
	assert_int_equal(shape_of(x, "n")->m2m[0], 0);
	done(x);
}

/* A brace group of words and strings after '=' is one token: lines and
 * columns after it (a string in it may span lines) and the attribute's
 * text are as when its words were tokens; a layout's braces and a group
 * with brackets in it are lexed as before. */
static void
test_value_groups(void **state)
{
	struct fx *x;
	const struct instr *in;

	(void)state;
	expect_errors("HloModule m\n"
		      "ENTRY e {\n"
		      "  p = f32[4]{0} parameter(0), metadata={op_name=\"a\n"
		      "b\" source_line=3}\n"
		      "  ROOT x = f32[4] bogus(p)\n"
		      "}\n",
		      "t.hlo:5:19: error: unknown opcode 'bogus'\n"
		      "    ROOT x = f32[4] bogus(p)\n"
		      "                    ^\n");
	x = parse_ok("HloModule m\n"
		     "ENTRY e {\n"
		     "  p = f32[2,3]{1,0} parameter(0), metadata={op_name=\"f\""
		     " source_file=\"g.py\" source_line=7}\n"
		     "  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0},"
		     " sharding={devices=[2,1]0,1}\n"
		     "}\n");
	in = &mod0(x)->comps[0].instrs[0];
	assert_int_equal(in->shape.m2m[0], 1);
	assert_string_equal(in->op_name, "f");
	assert_string_equal(in->src_file, "g.py");
	assert_int_equal(in->src_line, 7);
	in = &mod0(x)->comps[0].instrs[1];
	assert_int_equal(in->shape.m2m[0], 0);
	assert_int_equal(in->nattr, 2);
	assert_int_equal(in->attrs[0].vlen, 5);
	assert_memory_equal(in->attrs[0].val, "{1,0}", 5);
	assert_int_equal(in->attrs[1].vlen, 18);
	assert_memory_equal(in->attrs[1].val, "{devices=[2,1]0,1}", 18);
	done(x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_element_types),
		cmocka_unit_test(test_dynamic_dims),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_tuple_shapes),
		cmocka_unit_test(test_operands_and_names),
		cmocka_unit_test(test_attributes_raw),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_parameters_and_gte),
		cmocka_unit_test(test_called_computations),
		cmocka_unit_test(test_entry_rules),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_input_output_alias),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_error_undefined_operand),
		cmocka_unit_test(test_error_used_before_defined),
		cmocka_unit_test(test_error_duplicate_name),
		cmocka_unit_test(test_error_unknown_computation),
		cmocka_unit_test(test_error_two_roots),
		cmocka_unit_test(test_error_two_entries),
		cmocka_unit_test(test_error_element_type),
		cmocka_unit_test(test_error_layout),
		cmocka_unit_test(test_error_opcode),
		cmocka_unit_test(test_error_gte_index),
		cmocka_unit_test(test_error_parameter_number),
		cmocka_unit_test(test_error_several),
		cmocka_unit_test(test_error_syntax_recovery),
		cmocka_unit_test(test_error_truncated),
		cmocka_unit_test(test_error_long_line),
		cmocka_unit_test(test_error_nesting),
		cmocka_unit_test(test_infer_elementwise),
		cmocka_unit_test(test_infer_structure),
		cmocka_unit_test(test_infer_data_movement),
		cmocka_unit_test(test_infer_dot_and_reductions),
		cmocka_unit_test(test_check_operands),
		cmocka_unit_test(test_check_result_shape),
		cmocka_unit_test(test_check_dimension_numbers),
		cmocka_unit_test(test_check_broadcast_iota_reshape),
		cmocka_unit_test(test_check_attributes),
		cmocka_unit_test(test_check_async_wrapper_attributes),
		cmocka_unit_test(test_check_entry_layout),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_foreign_formats),
		cmocka_unit_test(test_stack_frames),
		cmocka_unit_test(test_byte_order_mark),
		cmocka_unit_test(test_opattrs_sorted),
		cmocka_unit_test(test_value_groups),
		cmocka_unit_test(test_xla_name_tokens),
		cmocka_unit_test(test_infer_bounded),
		cmocka_unit_test(test_infer_convolution),
		cmocka_unit_test(test_signature_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

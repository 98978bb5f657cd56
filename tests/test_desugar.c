/* Unit tests of the forms XLA's parser expands (frontend/desugar.c and the
 * grammar around it): instructions nested in operand lists, X-start/-done
 * around any opcode, computations written inline, layout fields hloplan
 * skips, a blank before a layout, buffer shapes, late-bound async ops. */
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

static struct fx *
parse(const char *text)
{
	struct fx *x = calloc(1, sizeof *x);

	assert_non_null(x);
	x->pool = pool_new();
	x->ds.pool = x->pool;
	x->ds.file = "t.hlo";
	x->ds.src = text;
	x->ds.srclen = strlen(text);
	x->f = frontend_parse(x->pool, text, strlen(text), &x->ds);
	return x;
}

static char *
rendered(struct fx *x)
{
	char *buf = NULL, *r;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	diag_print(&x->ds, m);
	fclose(m);
	r = pool_strdup(x->pool, buf ? buf : "");
	free(buf);
	return r;
}

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
expect_errors(const char *text, const char *want)
{
	struct fx *x = parse(text);

	assert_string_equal(rendered(x), want);
	pool_free(x->pool);
	free(x);
}

static void
done(struct fx *x)
{
	pool_free(x->pool);
	free(x);
}

static const struct comp *
comp_named(const struct fx *x, const char *name)
{
	const struct module *m = &x->f->mods[0];
	int i = comp_lookup(m, name);

	assert_true(i >= 0);
	return &m->comps[i];
}

static int
instr_named(const struct comp *c, const char *name)
{
	for (int i = 0; i < c->ninstr; i++)
		if (!strcmp(c->instrs[i].name, name))
			return i;
	fail_msg("no instruction '%s' in '%s'", name, c->name);
	return -1;
}

/* The module printed back as HLO text (a string in x's pool). */
static char *
printed(struct fx *x)
{
	char *buf = NULL, *r;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	ir_print_module(m, &x->f->mods[0]);
	fclose(m);
	r = pool_strdup(x->pool, buf);
	free(buf);
	return r;
}

/* An instruction nested in an operand list comes first, with a name of
 * its own, and the operand names it (XLA's ParseOperands). */
static void
test_nested_operands(void **state)
{
	struct fx *x = parse_ok(
		"HloModule n\n"
		"ENTRY e {\n"
		"  p = f32[4,4] parameter(0)\n"
		"  ROOT q = (f32[4,4], f32[4,4]) tuple(p, f32[4,4] "
		"broadcast(f32[] constant(1)))\n"
		"}\n");
	const struct comp *e = comp_named(x, "e");
	int c = instr_named(e, "constant.anon.1");
	int b = instr_named(e, "broadcast.anon.2");
	int q = instr_named(e, "q");

	(void)state;
	assert_int_equal(e->ninstr, 4);
	assert_true(c < b && b < q);
	assert_int_equal(e->instrs[b].ops[0], c);
	assert_int_equal(e->instrs[q].ops[1], b);
	assert_int_equal(e->instrs[q].ops[0], instr_named(e, "p"));
	assert_int_equal(e->root, q);
	assert_int_equal(e->instrs[b].nattr, 0);	/* nested: none */
	done(x);
}

/* name#i is element i of name's tuple: a get-tuple-element of its own,
 * its shape inferred; name#i#j goes on into a nested tuple. */
static void
test_compact_gte(void **state)
{
	struct fx *x = parse_ok(
		"HloModule g\n"
		"ENTRY e {\n"
		"  p = (f32[4], (s32[2], f32[])) parameter(0)\n"
		"  ROOT q = (f32[4], f32[]) tuple(p#0, p#1#1)\n"
		"}\n");
	const struct comp *e = comp_named(x, "e");
	const struct instr *q = &e->instrs[e->root];
	const struct instr *g0 = &e->instrs[q->ops[0]];
	const struct instr *g11 = &e->instrs[q->ops[1]];

	(void)state;
	assert_int_equal(e->ninstr, 5);
	assert_string_equal(g0->op->name, "get-tuple-element");
	assert_int_equal(g0->index, 0);
	assert_int_equal(g0->shape.type, DT_F32);
	assert_int_equal(g0->shape.dims[0], 4);
	assert_int_equal(g11->index, 1);
	assert_int_equal(g11->shape.type, DT_F32);
	assert_int_equal(g11->shape.rank, 0);
	assert_string_equal(e->instrs[g11->ops[0]].op->name,
			    "get-tuple-element");
	done(x);
}

static const char *const wrapped_hlo =
	"HloModule w\n"
	"add {\n"
	"  a = f32[4] parameter(0)\n"
	"  b = f32[4] parameter(1)\n"
	"  ROOT s = f32[4] add(a, b)\n"
	"}\n"
	"ENTRY e {\n"
	"  x = f32[4] parameter(0)\n"
	"  y = f32[4] parameter(1)\n"
	"  st = ((f32[4], f32[4]), f32[4], u32[]) call-start(x, y), "
	"to_apply=add, async_execution_thread=\"t\", "
	"control-predecessors={y}, backend_config={\"k\":1}\n"
	"  ROOT d = f32[4] call-done(st)\n"
	"}\n";

/* X-start(ops) is an async-start calling a computation that wraps X over
 * parameters shaped as the start's element {0}; the start keeps only the
 * attributes every instruction may carry. */
static void
test_async_wrapper(void **state)
{
	struct fx *x = parse_ok(wrapped_hlo);
	const struct comp *e = comp_named(x, "e");
	const struct comp *w = comp_named(x, "wrapped_call_computation");
	const struct instr *st = &e->instrs[instr_named(e, "st")];
	const struct instr *d = &e->instrs[instr_named(e, "d")];
	const struct instr *call = &w->instrs[w->root];

	(void)state;
	assert_string_equal(st->op->name, "async-start");
	assert_string_equal(st->wrapped->name, "call");
	assert_string_equal(d->op->name, "async-done");
	assert_int_equal(st->ncall, 1);
	assert_ptr_equal(&x->f->mods[0].comps[st->calls[0]], w);
	assert_null(instr_attr(st, "to_apply"));
	assert_non_null(instr_attr(st, "async_execution_thread"));
	assert_non_null(instr_attr(st, "control-predecessors"));
	assert_non_null(instr_attr(st, "backend_config"));
	assert_int_equal(w->nparam, 2);
	assert_string_equal(call->op->name, "call");
	assert_int_equal(call->nops, 2);
	assert_int_equal(call->ops[1], w->params[1]);
	assert_ptr_equal(&x->f->mods[0].comps[call->calls[0]],
			 comp_named(x, "add"));
	assert_null(instr_attr(call, "async_execution_thread"));
	assert_null(instr_attr(call, "control-predecessors"));
	assert_non_null(instr_attr(call, "backend_config"));
	done(x);
}

/* The printed module is plain HLO that parses to the same text. */
static void
test_async_wrapper_round_trip(void **state)
{
	struct fx *x = parse_ok(wrapped_hlo), *y;
	char *once = printed(x);

	(void)state;
	assert_non_null(strstr(once, "async-start(%x, %y), "));
	assert_non_null(strstr(once, "calls=%wrapped_call_computation"));
	y = parse_ok(once);
	assert_string_equal(printed(y), once);
	done(y);
	done(x);
}

static void
test_async_wrapper_errors(void **state)
{
	(void)state;
	expect_errors(
		"HloModule w\n"
		"ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  st = (f32[4], f32[4]) negate-start(x)\n"
		"  ROOT d = f32[4] negate-done(st)\n"
		"}\n",
		"t.hlo:4:3: error: negate-start 'st' needs the shape ((operand "
		"shapes), result shape, ...) with one operand shape for each "
		"of its 1 operands\n"
		"    st = (f32[4], f32[4]) negate-start(x)\n"
		"    ^\n");
	/* copy, send, recv and the collectives have async opcodes of their
	 * own: copy-start is not a wrapped copy. */
	expect_errors(
		"HloModule w\n"
		"ENTRY e {\n"
		"  x = f32[4] parameter(0)\n"
		"  ROOT d = f32[4] copy-update(x)\n"
		"}\n",
		"t.hlo:4:19: error: unknown opcode 'copy-update'\n"
		"    ROOT d = f32[4] copy-update(x)\n"
		"                    ^\n");
}

/* Late binding: operands bound by updates.  The op the done reads becomes
 * the start, with every operand bound along the way; the steps before it
 * go.  One that is never done is refused. */
static void
test_late_binding(void **state)
{
	static const char *const head =
		"HloModule l\n"
		"c {\n"
		"  p = f32[2] parameter(0)\n"
		"  q = f32[2] parameter(1)\n"
		"  ROOT a = f32[2] add(p, q)\n"
		"}\n"
		"ENTRY e {\n"
		"  p = f32[2] parameter(0)\n"
		"  q = f32[2] parameter(1)\n"
		"  s = ((), (), s32[]) call-start(), to_apply=c\n"
		"  u = ((f32[2]), (), s32[]) call-update(s, p)\n";
	char *text = malloc(1024);
	struct fx *x;
	const struct comp *e;
	const struct instr *v;

	(void)state;
	snprintf(text, 1024, "%s%s", head,
		 "  v = ((f32[2], f32[2]), f32[2], ()) call-update(u, q)\n"
		 "  ROOT d = f32[2] call-done(v)\n"
		 "}\n");
	x = parse_ok(text);
	e = comp_named(x, "e");
	v = &e->instrs[instr_named(e, "v")];
	assert_int_equal(e->ninstr, 4);	/* p, q, v, d */
	assert_string_equal(v->op->name, "async-start");
	assert_int_equal(v->nops, 2);
	assert_int_equal(v->ops[0], instr_named(e, "p"));
	assert_int_equal(v->ops[1], instr_named(e, "q"));
	assert_int_equal(e->root, instr_named(e, "d"));
	assert_int_equal(comp_named(x, "wrapped_call_computation")->nparam,
			 2);
	done(x);
	snprintf(text, 1024, "%s}\n", head);
	expect_errors(text,
		"t.hlo:10:3: error: 's' starts an async op that binds its "
		"operands late and is never done (or a step of it is read "
		"elsewhere): what it reads would grow past the end of the "
		"program\n"
		"    s = ((), (), s32[]) call-start(), to_apply=c\n"
		"    ^\n");
	free(text);
}

/* Strings may span lines, as XLA's lexer reads them. */
static void
test_multiline_string(void **state)
{
	struct fx *x = parse_ok(
		"HloModule s\n"
		"ENTRY e {\n"
		"  ROOT p = f32[2] parameter(0), metadata={op_name=\"a\n"
		"b\"}\n"
		"}\n");

	(void)state;
	assert_int_equal(comp_named(x, "e")->ninstr, 1);
	done(x);
}

/* calls={ ... }: a computation written in place, with its positions. */
static void
test_inline_computation(void **state)
{
	struct fx *x = parse_ok(
		"HloModule i\n"
		"ENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  ROOT f = f32[4] fusion(p), kind=kLoop, calls=\n"
		"    {\n"
		"      q = f32[4] parameter(0)\n"
		"      ROOT r = f32[4] multiply(q, q)\n"
		"    }\n"
		"}\n");
	const struct comp *e = comp_named(x, "e");
	const struct comp *in = comp_named(x, "f.calls");
	const struct instr *f = &e->instrs[e->root];

	(void)state;
	assert_int_equal(f->ncall, 1);
	assert_ptr_equal(&x->f->mods[0].comps[f->calls[0]], in);
	assert_int_equal(in->ninstr, 2);
	assert_int_equal(in->instrs[1].loc.line, 7);
	assert_int_equal(in->instrs[1].loc.col, 12);
	done(x);
	expect_errors(
		"HloModule i\n"
		"ENTRY e {\n"
		"  p = f32[4] parameter(0)\n"
		"  ROOT f = f32[4] fusion(p), kind=kLoop, calls={\n"
		"      q = f32[4] parameter(0)\n"
		"      ROOT r = f32[4] multiply(q, z)\n"
		"    }\n"
		"}\n",
		"t.hlo:6:35: error: operand 'z' of 'r' is not defined in "
		"computation 'f.calls'\n"
		"        ROOT r = f32[4] multiply(q, z)\n"
		"                                    ^\n");
}

/* Layout fields hloplan does not use parse (SC, P, D, M), and a layout
 * may follow its shape after a blank when a number or ':' opens it. */
static void
test_layout_fields(void **state)
{
	struct fx *x = parse_ok(
		"HloModule l\n"
		"c (a: f32[2]) -> f32[2] {\n"
		"  ROOT a = f32[2] parameter(0)\n"
		"}\n"
		"ENTRY e {\n"
		"  p = s32[6]{0:T(128)S(1)SC(0:3)} parameter(0)\n"
		"  q = s32[3,2]{0,1:T(128)S(1)SC(1:1)P(s32[8]{0})} "
		"parameter(1)\n"
		"  r = bf16[1,128] {1,0} parameter(2)\n"
		"  ROOT t = (s32[6]{0:T(128)S(1)}, bf16[1,128]) tuple(p, r)\n"
		"}\n");
	const struct comp *e = comp_named(x, "e");
	const struct shape *p = &e->instrs[0].shape;
	const struct shape *q = &e->instrs[1].shape;
	const struct shape *r = &e->instrs[2].shape;

	(void)state;
	assert_int_equal(p->space, 1);
	assert_int_equal(p->ntile, 1);
	assert_int_equal(p->tiles[0].d[0], 128);
	assert_int_equal(q->m2m[0], 0);
	assert_int_equal(q->space, 1);
	assert_true(r->has_layout);
	assert_int_equal(r->m2m[0], 1);
	assert_int_equal(comp_named(x, "c")->ninstr, 1);
	done(x);
}

/* b(shape) is kept, printed back, and planned like its array. */
static void
test_buffer_shape(void **state)
{
	struct fx *x = parse_ok(
		"HloModule b\n"
		"ENTRY e {\n"
		"  p = s32[2,8] parameter(0)\n"
		"  b0 = b(s32[2,8]) custom-call(p), custom_call_target=\"Pin\", "
		"output_to_operand_aliasing={{}: (0, {})}\n"
		"  ROOT v = s32[2,8] custom-call(b0), "
		"custom_call_target=\"Unpin\", "
		"output_to_operand_aliasing={{}: (0, {})}\n"
		"}\n");
	const struct comp *e = comp_named(x, "e");

	(void)state;
	assert_true(e->instrs[1].shape.is_buffer);
	assert_false(e->instrs[2].shape.is_buffer);
	assert_int_equal(e->instrs[1].shape.rank, 2);
	assert_non_null(strstr(printed(x), "%b0 = b(s32[2,8]) custom-call"));
	done(x);
	expect_errors(
		"HloModule b\n"
		"ENTRY e {\n"
		"  ROOT p = c((s32[2])) parameter(0)\n"
		"}\n",
		"t.hlo:3:12: error: unexpected '(' after 'c': a shape is a type "
		"with dimensions, a tuple, or b(array shape)\n"
		"    ROOT p = c((s32[2])) parameter(0)\n"
		"             ^\n");
	expect_errors(
		"HloModule b\n"
		"ENTRY e {\n"
		"  ROOT p = b((s32[2])) parameter(0)\n"
		"}\n",
		"t.hlo:3:12: error: a buffer shape b(...) holds an array, not a "
		"tuple\n"
		"    ROOT p = b((s32[2])) parameter(0)\n"
		"             ^\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_operands),
		cmocka_unit_test(test_compact_gte),
		cmocka_unit_test(test_async_wrapper),
		cmocka_unit_test(test_async_wrapper_round_trip),
		cmocka_unit_test(test_async_wrapper_errors),
		cmocka_unit_test(test_late_binding),
		cmocka_unit_test(test_multiline_string),
		cmocka_unit_test(test_inline_computation),
		cmocka_unit_test(test_layout_fields),
		cmocka_unit_test(test_buffer_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

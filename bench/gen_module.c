/* Writes a large, valid HLO module to stdout, as XLA prints a deep model:
 * an entry that calls one computation per layer, each layer running a
 * while loop whose body calls two fusions, with a reduce and an in-place
 * update (issue 20's "generated" bench rows).  Six computations a layer:
 * two fusion kernels, a reduce region, a while body, its condition and the
 * layer.  Deterministic: the same arguments give the same bytes.
 *   gen_module COMPUTATIONS [repeat|unique]
 * repeat (the default): every computation names its instructions anew
 * (its own p0, add.1, ...), as XLA prints a module whose passes reset the
 * name counters; unique: one counter over the module, every name distinct. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X "f32[64,128]{1,0}"
#define S "f32[8,64,128]{2,1,0}"
#define ST "(s32[], " X ", " S ")"

enum { KERNEL_OPS = 64, LAYER_OPS = 28, TRIPS = 8 };

static int unique;
static long counter;	/* the next name's number */
static long layer;

/* The next instruction name with base `op`: "add.3" (per computation when
 * names repeat, per module when unique). */
static const char *
name(const char *op)
{
	static char buf[8][64];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s.%ld", op, counter++);
	return buf[k];
}

/* Starts a computation: the counter restarts unless names are unique. */
static void
begin(void)
{
	if (!unique)
		counter = 1;
}

static void
meta(const char *what)
{
	printf(", metadata={op_name=\"jit(train_step)/while/body/layer_%ld/"
	       "%s\" source_file=\"/workspace/model/transformer.py\" "
	       "source_line=%ld}\n", layer, what, 100 + layer % 900);
}

static const char *const unary[] = {"tanh", "exponential", "negate", "abs"};
static const char *const binary[] = {"add", "multiply", "subtract",
				     "maximum"};

/* A loop fusion's kernel: a chain of elementwise ops over two inputs. */
static void
kernel(void)
{
	char a[64], b[64], c[64];

	begin();
	printf("%%fused_computation.%ld (param_0: f32[64,128], param_1: "
	       "f32[64,128]) -> f32[64,128] {\n", layer);
	strcpy(a, name("param_0"));
	printf("  %%%s = " X " parameter(0)\n", a);
	strcpy(b, name("param_1"));
	printf("  %%%s = " X " parameter(1)\n", b);
	for (int i = 0; i < KERNEL_OPS; i++) {
		strcpy(c, name(i % 2 ? unary[i / 2 % 4] : binary[i / 2 % 4]));
		printf("  %s%%%s = " X " ", i == KERNEL_OPS - 1 ? "ROOT " : "",
		       c);
		if (i % 2)
			printf("%s(" X " %%%s)", unary[i / 2 % 4], a);
		else
			printf("%s(" X " %%%s, " X " %%%s)", binary[i / 2 % 4],
			       a, b);
		meta(i % 2 ? unary[i / 2 % 4] : binary[i / 2 % 4]);
		strcpy(b, a);
		strcpy(a, c);
	}
	puts("}\n");
}

/* A fusion whose root updates parameter 0 in place. */
static void
update_kernel(void)
{
	char p0[64], p1[64], p2[64], z[64], r[64];

	begin();
	printf("%%fused_update.%ld (param_0: f32[8,64,128], param_1: "
	       "f32[64,128], param_2: s32[]) -> f32[8,64,128] {\n", layer);
	strcpy(p0, name("param_0"));
	strcpy(p1, name("param_1"));
	strcpy(p2, name("param_2"));
	printf("  %%%s = " S " parameter(0)\n", p0);
	printf("  %%%s = " X " parameter(1)\n", p1);
	printf("  %%%s = s32[] parameter(2)\n", p2);
	strcpy(z, name("constant"));
	printf("  %%%s = s32[] constant(0)\n", z);
	strcpy(r, name("bitcast"));
	printf("  %%%s = f32[1,64,128]{2,1,0} bitcast(" X " %%%s)\n", r, p1);
	printf("  ROOT %%%s = " S " dynamic-update-slice(" S " %%%s, "
	       "f32[1,64,128]{2,1,0} %%%s, s32[] %%%s, s32[] %%%s, s32[] %%%s)",
	       name("dynamic-update-slice"), p0, r, p2, z, z);
	meta("dynamic_update_slice");
	puts("}\n");
}

static void
region(void)
{
	char a[64], b[64];

	begin();
	strcpy(a, name("Arg_0"));
	strcpy(b, name("Arg_1"));
	printf("%%region_add.%ld (Arg_0: f32[], Arg_1: f32[]) -> f32[] {\n"
	       "  %%%s = f32[] parameter(0)\n  %%%s = f32[] parameter(1)\n"
	       "  ROOT %%%s = f32[] add(f32[] %%%s, f32[] %%%s)\n}\n\n", layer,
	       a, b, name("add"), a, b);
}

static void
cond(void)
{
	char p[64], i[64], n[64];

	begin();
	strcpy(p, name("loop_state"));
	strcpy(i, name("get-tuple-element"));
	strcpy(n, name("constant"));
	printf("%%cond.%ld (loop_state: " ST ") -> pred[] {\n"
	       "  %%%s = " ST " parameter(0)\n"
	       "  %%%s = s32[] get-tuple-element(" ST " %%%s), index=0\n"
	       "  %%%s = s32[] constant(%d)\n"
	       "  ROOT %%%s = pred[] compare(s32[] %%%s, s32[] %%%s), "
	       "direction=LT\n}\n\n", layer, p, i, p, n, TRIPS,
	       name("compare"), i, n);
}

/* The loop body: the counter, a slice of the stack, a fusion over it and
 * the carried value, written back in place. */
static void
body(void)
{
	char p[64], i[64], x[64], s[64], one[64], z[64], i1[64], ds[64],
	    sl[64], f[64], u[64];

	begin();
	printf("%%body.%ld (loop_state: " ST ") -> " ST " {\n", layer);
	strcpy(p, name("loop_state"));
	printf("  %%%s = " ST " parameter(0)\n", p);
	strcpy(i, name("get-tuple-element"));
	printf("  %%%s = s32[] get-tuple-element(" ST " %%%s), index=0\n", i, p);
	strcpy(x, name("get-tuple-element"));
	printf("  %%%s = " X " get-tuple-element(" ST " %%%s), index=1\n", x, p);
	strcpy(s, name("get-tuple-element"));
	printf("  %%%s = " S " get-tuple-element(" ST " %%%s), index=2\n", s, p);
	strcpy(one, name("constant"));
	printf("  %%%s = s32[] constant(1)\n", one);
	strcpy(z, name("constant"));
	printf("  %%%s = s32[] constant(0)\n", z);
	strcpy(i1, name("add"));
	printf("  %%%s = s32[] add(s32[] %%%s, s32[] %%%s)", i1, i, one);
	meta("add");
	strcpy(ds, name("dynamic-slice"));
	printf("  %%%s = f32[1,64,128]{2,1,0} dynamic-slice(" S " %%%s, "
	       "s32[] %%%s, s32[] %%%s, s32[] %%%s), "
	       "dynamic_slice_sizes={1,64,128}", ds, s, i, z, z);
	meta("dynamic_slice");
	strcpy(sl, name("bitcast"));
	printf("  %%%s = " X " bitcast(f32[1,64,128]{2,1,0} %%%s)\n", sl, ds);
	strcpy(f, name("fusion"));
	printf("  %%%s = " X " fusion(" X " %%%s, " X " %%%s), kind=kLoop, "
	       "calls=%%fused_computation.%ld", f, x, sl, layer);
	meta("mlp");
	strcpy(u, name("fusion"));
	printf("  %%%s = " S " fusion(" S " %%%s, " X " %%%s, s32[] %%%s), "
	       "kind=kLoop, calls=%%fused_update.%ld", u, s, f, i, layer);
	meta("dynamic_update_slice");
	printf("  ROOT %%%s = " ST " tuple(s32[] %%%s, " X " %%%s, " S
	       " %%%s)\n}\n\n", name("tuple"), i1, f, u);
}

/* The layer: a loop over the stack, a reduce, then a chain of
 * elementwise ops on program level (each a buffer of its own). */
static void
layer_comp(void)
{
	char x[64], w[64], c0[64], t[64], l[64], a[64], b[64], r[64],
	    zero[64], br[64], n[64];

	begin();
	printf("%%layer.%ld (x: f32[64,128], w: f32[8,64,128]) -> "
	       "(f32[64,128], f32[8,64,128]) {\n", layer);
	strcpy(x, name("x"));
	printf("  %%%s = " X " parameter(0)\n", x);
	strcpy(w, name("w"));
	printf("  %%%s = " S " parameter(1)\n", w);
	strcpy(c0, name("constant"));
	printf("  %%%s = s32[] constant(0)\n", c0);
	strcpy(t, name("tuple"));
	printf("  %%%s = " ST " tuple(s32[] %%%s, " X " %%%s, " S " %%%s)\n",
	       t, c0, x, w);
	strcpy(l, name("while"));
	printf("  %%%s = " ST " while(" ST " %%%s), condition=%%cond.%ld, "
	       "body=%%body.%ld", l, t, layer, layer);
	meta("while");
	strcpy(a, name("get-tuple-element"));
	printf("  %%%s = " X " get-tuple-element(" ST " %%%s), index=1\n",
	       a, l);
	strcpy(b, name("get-tuple-element"));
	printf("  %%%s = " S " get-tuple-element(" ST " %%%s), index=2\n",
	       b, l);
	strcpy(zero, name("constant"));
	printf("  %%%s = f32[] constant(0)\n", zero);
	strcpy(r, name("reduce"));
	printf("  %%%s = f32[64]{0} reduce(" X " %%%s, f32[] %%%s), "
	       "dimensions={1}, to_apply=%%region_add.%ld", r, a, zero, layer);
	meta("reduce_sum");
	strcpy(br, name("broadcast"));
	printf("  %%%s = " X " broadcast(f32[64]{0} %%%s), dimensions={0}",
	       br, r);
	meta("broadcast_in_dim");
	for (int i = 0; i < LAYER_OPS; i++) {
		const char *op = i % 2 ? unary[i / 2 % 4] : binary[i / 2 % 4];

		strcpy(n, name(op));
		if (i % 2)
			printf("  %%%s = " X " %s(" X " %%%s)", n, op, a);
		else
			printf("  %%%s = " X " %s(" X " %%%s, " X " %%%s)", n,
			       op, a, br);
		meta(op);
		strcpy(br, a);
		strcpy(a, n);
	}
	printf("  ROOT %%%s = (" X ", " S ") tuple(" X " %%%s, " S " %%%s)\n"
	       "}\n\n", name("tuple"), a, b);
}

static void
entry(long nlayer)
{
	char x[64], w[64], c[64];

	begin();
	printf("ENTRY %%main.%ld (x: f32[64,128], w: f32[8,64,128]) -> "
	       "(f32[64,128], f32[8,64,128]) {\n", nlayer + 1);
	strcpy(x, name("x"));
	printf("  %%%s = " X " parameter(0)\n", x);
	strcpy(w, name("w"));
	printf("  %%%s = " S " parameter(1)\n", w);
	for (layer = 1; layer <= nlayer; layer++) {
		strcpy(c, name("call"));
		printf("  %%%s = (" X ", " S ") call(" X " %%%s, " S " %%%s), "
		       "to_apply=%%layer.%ld", c, x, w, layer);
		meta("call");
		strcpy(x, name("get-tuple-element"));
		printf("  %%%s = " X " get-tuple-element((" X ", " S ") %%%s), "
		       "index=0\n", x, c);
		strcpy(w, name("get-tuple-element"));
		printf("  %%%s = " S " get-tuple-element((" X ", " S ") %%%s), "
		       "index=1\n", w, c);
	}
	printf("  ROOT %%%s = (" X ", " S ") tuple(" X " %%%s, " S " %%%s)\n"
	       "}\n", name("tuple"), x, w);
}

int
main(int argc, char **argv)
{
	long ncomp = argc > 1 ? atol(argv[1]) : 0, nlayer;

	if (ncomp < 7 || (argc > 2 && strcmp(argv[2], "repeat") &&
			  strcmp(argv[2], "unique"))) {
		fputs("usage: gen_module COMPUTATIONS [repeat|unique]\n",
		      stderr);
		return 2;
	}
	unique = argc > 2 && !strcmp(argv[2], "unique");
	nlayer = (ncomp - 1) / 6;
	printf("HloModule generated_%ld_%s\n\n", ncomp,
	       unique ? "unique" : "repeat");
	for (layer = 1; layer <= nlayer; layer++) {
		kernel();
		update_kernel();
		region();
		cond();
		body();
		layer_comp();
	}
	entry(nlayer);
	return ferror(stdout) ? 1 : 0;
}

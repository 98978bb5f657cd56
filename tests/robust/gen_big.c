/* Writes a valid HLO module of about BYTES bytes to stdout, for the limits
 * tests: a chain of fusions, each calling a kernel computation of its own
 * (distinct names), with metadata as real dumps carry it.
 *   gen_big BYTES [scheduled] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPE "f32[64,128]{1,0}"

/* Kernel computation i: a multiply-add, and its bytes written. */
static long
kernel(long i)
{
	return printf("%%fused_%ld (p0: f32[64,128], p1: f32[64,128]) -> "
		      "f32[64,128] {\n"
		      "  %%p0 = " SHAPE " parameter(0)\n"
		      "  %%p1 = " SHAPE " parameter(1)\n"
		      "  %%m = " SHAPE " multiply(%%p0, %%p1), metadata="
		      "{op_name=\"jit(f)/layer_%ld/mul\" source_file=\"model.py\""
		      " source_line=%ld}\n"
		      "  %%c = f32[] constant(0.5)\n"
		      "  %%b = " SHAPE " broadcast(%%c), dimensions={}\n"
		      "  ROOT %%a = " SHAPE " add(%%m, %%b)\n"
		      "}\n\n", i, i, i);
}

/* The entry's step i: the fusion, then an elementwise op on its result. */
#define STEP "  %%f_%ld = " SHAPE " fusion(%%x_%ld, %%f_%ld), kind=kLoop, " \
	     "calls=%%fused_%ld, metadata={op_name=\"jit(f)/layer_%ld\"}\n"  \
	     "  %%x_%ld = " SHAPE " tanh(%%f_%ld)\n"

/* Writes step i, or with out NULL only counts its bytes. */
static long
step(FILE *out, long i)
{
	if (!out)
		return snprintf(NULL, 0, STEP, i, i - 1, i - 1, i, i, i, i);
	return fprintf(out, STEP, i, i - 1, i - 1, i, i, i, i);
}

int
main(int argc, char **argv)
{
	long want = argc > 1 ? atol(argv[1]) : 0, n = 0, done = 0;
	int sched = argc > 2 && !strcmp(argv[2], "scheduled");

	if (want <= 0) {
		fputs("usage: gen_big BYTES [scheduled]\n", stderr);
		return 2;
	}
	done += printf("HloModule big%s\n\n", sched ? ", is_scheduled=true" :
			"");
	/* Kernels first, counting the entry lines each will need. */
	while (done < want) {
		done += kernel(++n);
		done += step(NULL, n);
	}
	printf("ENTRY %%main (x: f32[64,128]) -> f32[64,128] {\n"
	       "  %%x_0 = " SHAPE " parameter(0)\n"
	       "  %%f_0 = " SHAPE " negate(%%x_0)\n");
	for (long i = 1; i <= n; i++)
		step(stdout, i);
	printf("  ROOT %%out = " SHAPE " add(%%x_%ld, %%f_%ld)\n}\n", n, n);
	return ferror(stdout) ? 1 : 0;
}

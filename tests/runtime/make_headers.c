/* Writes plan headers from hand-made plans for the compile-and-run tests:
 * good plans, a plan whose live buffers overlap (the checker must fail) and
 * one whose buffer overruns its arena (the checker must fail). */
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"

#define LEN(a) ((int)(sizeof(a) / sizeof *(a)))

enum { P = BUF_PARAM, O = BUF_OUTPUT, C = BUF_CONST, T = BUF_TABLE };

/* name, flags, space, bytes, size, start, end, slots, stride, in_arena,
 * offset, op_name, src_file, src_line */
static struct buffer small_bufs[] = {
	{"p0", P, 0, 1000, 1024, 0, 5, 1, 0, 1, 0, NULL, NULL, 0, NULL},
	{"add.1", 0, 0, 512, 512, 1, 2, 1, 0, 1, 1024, NULL, NULL, 0, NULL},
	{"add_1", 0, 0, 300, 512, 3, 4, 1, 0, 1, 1024, NULL, NULL, 0, NULL},
	{"constant.3", C, 0, 64, 64, 0, 5, 1, 0, 0, -1, NULL, NULL, 0, NULL},
	{"tuple.5{1}", O, 0, 256, 256, 4, 5, 1, 0, 1, 1536, NULL, NULL, 0, NULL},
	{"out", O, 0, 1024, 1024, 2, 5, 1, 0, 1, 2048, NULL, NULL, 0, NULL},
};
static struct arena small_arenas[] = {{0, 3072, 2816, 5, NULL}};

static struct buffer tpu_bufs[] = {
	{"param.0", P | O, 0, 4096, 4096, 0, 7, 1, 0, 1, 0, NULL, NULL, 0, NULL},
	{"dynamic-slice.2", 0, 1, 3000, 6144, 1, 6, 2, 3072, 1, 0,
	 NULL, NULL, 0, NULL},
	{"tuple.4", T, 0, 16, 512, 6, 7, 1, 0, 1, 4096, NULL, NULL, 0, NULL},
	{"fusion.3", 0, 1, 1024, 1024, 2, 5, 1, 0, 1, 6144, NULL, NULL, 0, NULL},
	{"weights", C, 0, 8192, 8192, 0, 7, 1, 0, 0, -1, NULL, NULL, 0, NULL},
};
static struct arena tpu_arenas[] = {{0, 4608, 4608, 2, NULL},
				     {1, 7168, 7168, 2, NULL}};

/* Names that clash with each other and with the fixed macros. */
static struct buffer gen_bufs[] = {
	{"gpu_arena", 0, 0, 100, 256, 0, 1, 1, 0, 1, 0, NULL, NULL, 0, NULL},
	{"gpu.x", 0, 0, 100, 256, 0, 1, 1, 0, 1, 256, NULL, NULL, 0, NULL},
	{"x", 0, 0, 100, 256, 0, 1, 1, 0, 1, 512, NULL, NULL, 0, NULL},
};
static struct arena gen_arenas[] = {{0, 768, 768, 3, NULL}};

/* All live at once, side by side: the checker sees every pattern. */
static struct buffer name_bufs[] = {
	{"a\"b\\c", 0, 0, 8, 16, 0, 3, 1, 0, 1, 0, NULL, NULL, 0, NULL},
	{"?\?=x", 0, 0, 8, 16, 0, 3, 1, 0, 1, 16, NULL, NULL, 0, NULL},
	{"x*/y", 0, 0, 8, 16, 0, 3, 1, 0, 1, 32, NULL, NULL, 0, NULL},
	{"/*z", 0, 0, 8, 16, 0, 3, 1, 0, 1, 48, NULL, NULL, 0, NULL},
	{"1abc", 0, 0, 8, 16, 0, 3, 1, 0, 1, 64, NULL, NULL, 0, NULL},
	{"", 0, 0, 8, 16, 0, 3, 1, 0, 1, 80, NULL, NULL, 0, NULL},
	{"na\xc3\xafve\nline", 0, 0, 8, 16, 0, 3, 1, 0, 1, 96, NULL, NULL, 0, NULL},
	{"a{0}", 0, 0, 8, 16, 0, 3, 1, 0, 1, 112, NULL, NULL, 0, NULL},
	{"a_0_", 0, 0, 8, 16, 0, 3, 1, 0, 1, 128, NULL, NULL, 0, NULL},
	{"a.0", 0, 0, 8, 16, 0, 3, 1, 0, 1, 144, NULL, NULL, 0, NULL},
	{"x", 0, 0, 8, 32, 0, 3, 2, 16, 1, 160, NULL, NULL, 0, NULL},
	{"x_slot", 0, 0, 8, 16, 0, 3, 1, 0, 1, 192, NULL, NULL, 0, NULL},
	{"arena", 0, 0, 8, 16, 0, 3, 1, 0, 1, 208, NULL, NULL, 0, NULL},
	{"num.buffers", 0, 0, 8, 16, 0, 3, 1, 0, 1, 224, NULL, NULL, 0, NULL},
	{"buf_x", 0, 0, 8, 16, 0, 3, 1, 0, 1, 240, NULL, NULL, 0, NULL},
	{"x_offset", 0, 0, 8, 16, 0, 3, 1, 0, 1, 256, NULL, NULL, 0, NULL},
	{"__cplusplus", 0, 0, 8, 16, 0, 3, 1, 0, 1, 272, NULL, NULL, 0, NULL},
};
static struct arena name_arenas[] = {{0, 288, 288, 17, NULL}};

/* "right" is written at step 2 over half of "left", still live. */
static struct buffer broken_bufs[] = {
	{"left", 0, 0, 512, 512, 0, 3, 1, 0, 1, 0, NULL, NULL, 0, NULL},
	{"right", 0, 0, 512, 512, 2, 5, 1, 0, 1, 256, NULL, NULL, 0, NULL},
};
static struct arena broken_arenas[] = {{0, 768, 1024, 2, NULL}};

/* "tmp" sits on slot 1 of the double buffer "fetch" while the loop still
 * fetches into it: iteration 1's bytes are overwritten at step 3. */
static struct buffer slots_bufs[] = {
	{"fetch", 0, 0, 256, 512, 1, 6, 2, 256, 1, 0, NULL, NULL, 0, NULL},
	{"tmp", 0, 0, 256, 256, 3, 4, 1, 0, 1, 256, NULL, NULL, 0, NULL},
};
static struct arena slots_arenas[] = {{0, 512, 768, 2, NULL}};

static struct buffer misfit_bufs[] = {
	{"fine", 0, 0, 256, 256, 0, 1, 1, 0, 1, 0, NULL, NULL, 0, NULL},
	{"overrun", 0, 0, 512, 512, 0, 1, 1, 0, 1, 256, NULL, NULL, 0, NULL},
};
static struct arena misfit_arenas[] = {{0, 512, 768, 2, NULL}};

#define PLAN(mod, tgt, al, nt, b, a) \
	{mod, tgt, al, nt, LEN(b), b, LEN(a), a, 0, NULL, 0, NULL, {NULL, 0, 0}, NULL, 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0, NULL, 0, NULL, NULL, 0, NULL, NULL}

static const struct plan small = PLAN("jit_small", TARGET_GPU, 256, 6,
				      small_bufs, small_arenas);
static const struct plan tpu = PLAN("jit_small", TARGET_TPU, 512, 8,
				    tpu_bufs, tpu_arenas);
static const struct plan gen = PLAN("generic", TARGET_GPU, 256, 2, gen_bufs,
				    gen_arenas);
static const struct plan names = PLAN("names \"*/", TARGET_GPU, 16, 4,
				      name_bufs, name_arenas);
static const struct plan broken = PLAN("broken", TARGET_GPU, 256, 6,
				       broken_bufs, broken_arenas);
static const struct plan broken_slots = PLAN("broken_slots", TARGET_GPU,
					     256, 8, slots_bufs, slots_arenas);
static const struct plan misfit = PLAN("misfit", TARGET_GPU, 256, 2,
				       misfit_bufs, misfit_arenas);
static const struct plan empty = {"empty", TARGET_GPU, 256, 0, 0, NULL, 0,
				  NULL, 0, NULL, 0, NULL, {NULL, 0, 0}, NULL, 0, 0, 0, NULL, 0, NULL, 0, NULL, 0, 0, NULL, 0, NULL, NULL, 0, NULL, NULL};

static int
emit(const char *dir, const char *file, const char *guard,
      const struct plan *plans, const char *const *prefixes, int n)
{
	struct header_opts o = {guard, "hand_made.hlo", NULL, 0};
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	codegen_header(f, plans, prefixes, n, &o);
	if (fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const char *const gpu[] = {"HLOPLAN_GPU"};
	static const char *const tpu1[] = {"HLOPLAN_TPU"};
	static const char *const three[] = {"HLOPLAN_GPU", "HLOPLAN_TPU",
					    "HLOPLAN"};
	const struct plan multi[] = {small, tpu, gen};
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: make_headers DIR\n");
		return 2;
	}
	err |= emit(argv[1], "gpu_small.h", "GPU_SMALL_H", &small, gpu, 1);
	err |= emit(argv[1], "tpu_spaces.h", "TPU_SPACES_H", &tpu, tpu1, 1);
	err |= emit(argv[1], "multi.h", "MULTI_H", multi, three, 3);
	err |= emit(argv[1], "names.h", "NAMES_H", &names, gpu, 1);
	err |= emit(argv[1], "empty.h", "EMPTY_H", &empty, gpu, 1);
	err |= emit(argv[1], "broken.h", "BROKEN_H", &broken, gpu, 1);
	err |= emit(argv[1], "broken_slots.h", "BROKEN_SLOTS_H", &broken_slots,
		    gpu, 1);
	err |= emit(argv[1], "misfit.h", "MISFIT_H", &misfit, gpu, 1);
	return err ? 2 : 0;
}

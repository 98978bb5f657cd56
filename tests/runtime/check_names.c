/* Bindings and buffers are two namespaces (tests/golden/names.hlo): the
 * buffer of parameter 1, named param.2.0, is P_BUF_PARAM_2_0 and no
 * P_PARAM_2_* exists; the temporary output.0 is P_BUF_OUTPUT_0, apart from
 * output {0}, P_OUTPUT_0_*.  The TPU plan's buffers have the GPU plan's
 * ids and names, so its P_BUF(NAME) is the GPU plan's P_BUF_<NAME>.
 * Compiles only if the header says so, and runs to check that the tables
 * agree with the macros. */
#include <stdio.h>
#include <string.h>

#include "names.h"

#if defined(HLOPLAN_GPU_PARAM_2_OFFSET) || defined(HLOPLAN_GPU_PARAM_2_0_BYTES) || \
	defined(HLOPLAN_GPU_PARAM_2_0_OFFSET) ||                               \
	defined(HLOPLAN_TPU_PARAM_2_0_OFFSET) ||                               \
	defined(HLOPLAN_GPU_OUTPUT_2_OFFSET) || defined(HLOPLAN_GPU_OUTPUT_0_2_BYTES)
#error "a buffer's macro reads as a binding"
#endif
/* A binding's macros are its _OFFSET and _BYTES; the rest is its row. */
#if defined(HLOPLAN_GPU_PARAM_0_BUF) || defined(HLOPLAN_GPU_PARAM_0_SIZE) ||   \
	defined(HLOPLAN_GPU_OUTPUT_0_IN_ARENA) ||                              \
	defined(HLOPLAN_TPU_PARAM_1_SURVIVES) || !defined(HLOPLAN_TPU_PARAM_1_BYTES)
#error "a binding's macros are not _OFFSET and _BYTES"
#endif

/* A buffer's id: P_BUF_<NAME> once per module, P_BUF(NAME) in each plan. */
#if !defined(HLOPLAN_GPU_BUF_OUTPUT_0) || defined(HLOPLAN_TPU_BUF_OUTPUT_0) || \
	HLOPLAN_GPU_BUF(OUTPUT_0) != HLOPLAN_GPU_BUF_OUTPUT_0 ||               \
	HLOPLAN_TPU_BUF(OUTPUT_0) != HLOPLAN_GPU_BUF_OUTPUT_0
#error "the TPU plan's buffers are not the GPU plan's macros"
#endif

static int bad;

static void
check(int ok, const char *what)
{
	if (!ok) {
		printf("check_names: %s\n", what);
		bad = 1;
	}
}

/* The tables of plan P say what its macros say. */
#define CHECK_PLAN(P)                                                          \
	do {                                                                   \
		check(!strcmp(P##_buffers[P##_BUF(OUTPUT_0)].name, "output.0"), \
		      #P ": P_BUF(OUTPUT_0) is output.0");                      \
		check(P##_buffers[P##_BUF(OUTPUT_0)].flags == P##_CLASS_TEMP,   \
		      #P ": output.0 is a temporary");                         \
		check(P##_params[1].parameter == 1 &&                          \
			      P##_params[1].buffer == P##_BUF(PARAM_2_0),       \
		      #P ": P_params[1] is param.2.0's buffer");               \
		check(P##_params[0].buffer == P##_BUF(PARAM_1_0) &&             \
			      P##_outputs[1].buffer == P##_BUF(OUTPUT_1) &&     \
			      P##_outputs[2].buffer == P##_BUF(OUTPUT) &&       \
			      P##_outputs[0].depth == 0 &&                     \
			      P##_outputs[0].buffer == P##_BUF(TUPLE_6),        \
		      #P ": a binding names the wrong buffer");                \
		check(P##_params[1].survives == 1 &&                           \
			      P##_outputs[1].survives == -1,                   \
		      #P ": survives");                                        \
		check(P##_outputs[1].depth == 1 &&                             \
			      P##_outputs[1].index[0] == 0 &&                  \
			      P##_outputs[1].offset == P##_OUTPUT_0_OFFSET,    \
		      #P ": P_outputs[1] is output {0}");                      \
		check(P##_buffers[P##_BUF(OUTPUT_0)].offset !=                  \
			      P##_OUTPUT_0_OFFSET,                             \
		      #P ": output.0 lies apart from output {0}");             \
		check(P##_buffers[P##_BUF(PARAM_2_0)].offset ==                 \
			      P##_PARAM_1_OFFSET &&                            \
			      P##_buffers[P##_BUF(OUTPUT_1)].offset ==          \
			      P##_OUTPUT_0_OFFSET,                             \
		      #P ": bindings and buffers at one offset");              \
	} while (0)

int
main(void)
{
	CHECK_PLAN(HLOPLAN_GPU);
	CHECK_PLAN(HLOPLAN_TPU);
	if (!bad)
		printf("check_names: OK\n");
	return bad;
}

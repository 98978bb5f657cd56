/* Binding a joint plan (hloplan --programs llm.txt -o llm_plan.h): one
 * arena for both programs; the weights are written once at their shared
 * offsets, and prefill's KV cache is where decode reads it, because both
 * programs' bindings name the same bytes.  Checks that with the tables a
 * runtime binds by, and exits 0 when every binding agrees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_plan.h"

/* Where program P binds parameter n (its table row for element {}). */
#define PARAM_AT(P, n) P##_PARAM_##n##_OFFSET

static int
inside(long long off, long long size)
{
	return off >= 0 && off + size <= HLOPLAN_JOINT_GPU_ARENA_SIZE;
}

int
main(void)
{
	unsigned char *arena = malloc(HLOPLAN_JOINT_GPU_ARENA_SIZE);
	int bad = 0;

	if (!arena)
		return 1;
	/* The weights, once, for every program. */
	for (int a = 0; a < HLOPLAN_JOINT_GPU_NUM_SHARED; a++) {
		bad |= !inside(HLOPLAN_JOINT_GPU_shared[a].offset,
			       HLOPLAN_JOINT_GPU_shared[a].size);
		memset(arena + HLOPLAN_JOINT_GPU_shared[a].offset, a,
		       (size_t)HLOPLAN_JOINT_GPU_shared[a].bytes);
	}
	/* Each program's bindings lie in the one arena. */
	for (int k = 0; k < HLOPLAN_PREFILL_GPU_NUM_PARAMS; k++)
		bad |= !inside(HLOPLAN_PREFILL_GPU_params[k].offset,
			       HLOPLAN_PREFILL_GPU_params[k].size);
	for (int k = 0; k < HLOPLAN_DECODE_GPU_NUM_PARAMS; k++)
		bad |= !inside(HLOPLAN_DECODE_GPU_params[k].offset,
			       HLOPLAN_DECODE_GPU_params[k].size);
	/* prefill's output {1} is decode's parameter 5 and output {1}. */
	bad |= HLOPLAN_PREFILL_GPU_OUTPUT_1_OFFSET !=
	       HLOPLAN_DECODE_GPU_PARAM_5_OFFSET;
	bad |= HLOPLAN_DECODE_GPU_OUTPUT_1_OFFSET !=
	       HLOPLAN_JOINT_GPU_SHARED_KV_OFFSET;
	bad |= PARAM_AT(HLOPLAN_PREFILL_GPU, 0) !=
	       PARAM_AT(HLOPLAN_DECODE_GPU, 0);
	printf("arena %d bytes: wq at %d, kv at %d; %s\n",
	       HLOPLAN_JOINT_GPU_ARENA_SIZE, HLOPLAN_JOINT_GPU_SHARED_WQ_OFFSET,
	       HLOPLAN_JOINT_GPU_SHARED_KV_OFFSET, bad ? "WRONG" : "bound");
	free(arena);
	return bad;
}

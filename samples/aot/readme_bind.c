#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"	/* hloplan samples/aot/readme.hlo -o plan.h */

/* The caller's arguments: parameter(0) pred[1,41], parameter(1) f32[3] */
static const unsigned char mask[41] = {1};
static const float x[3] = {1, 2, 3};

int main(void)
{
	unsigned char *arena = aligned_alloc(HLOPLAN_GPU_ARENA_ALIGN,
					     HLOPLAN_GPU_ARENA_SIZE);
	float *y;

	if (!arena)
		return 1;
	/* Arguments by number and shape index (P_PARAM_1_0_* would be
	   parameter(1)'s element {0}): copy _BYTES, the array's own bytes;
	   P_params[0].size is what the plan reserves, with padding. */
	memcpy(arena + HLOPLAN_GPU_PARAM_0_OFFSET, mask,
	       HLOPLAN_GPU_PARAM_0_BYTES);
	memcpy(arena + HLOPLAN_GPU_PARAM_1_OFFSET, x,
	       HLOPLAN_GPU_PARAM_1_BYTES);
	/* Where each step's result lies: its positions, an operand's being
	   its producer's.  A slotted buffer's slot turns with the iteration
	   (slot -1) or is fixed. */
	for (int t = 0; t < HLOPLAN_GPU_NUM_STEPS; t++)
		for (int k = HLOPLAN_GPU_step_first_position[t];
		     k < HLOPLAN_GPU_step_first_position[t + 1]; k++) {
			const struct hloplan_plan_position *q =
				&HLOPLAN_GPU_positions[k];
			const struct hloplan_plan_buffer *b =
				&HLOPLAN_GPU_buffers[q->buffer];

			printf("%s/%s: %s at %lld\n",
			       HLOPLAN_GPU_STEP_COMPUTATION(t),
			       HLOPLAN_GPU_STEP_NAME(t), b->name,
			       HLOPLAN_SLOT_OFFSET(b, 0) + q->offset);
		}
	/* The result, by output index (P_OUTPUT_* for a single array; a
	   tuple's element {2} is P_OUTPUT_2_*), where the kernel of
	   negate(x) writes it */
	y = (float *)(arena + HLOPLAN_GPU_OUTPUT_OFFSET);
	for (int i = 0; i < HLOPLAN_GPU_OUTPUT_BYTES / 4; i++)
		y[i] = -x[i];
	/* Or in a loop: b->parameter, b->index[0 .. b->depth), b->buffer,
	   b->offset (-1 under --io-out-of-arena: the caller's memory),
	   b->size, b->bytes, b->shape, b->survives */
	for (int k = 0; k < HLOPLAN_GPU_NUM_PARAMS; k++) {
		const struct hloplan_plan_binding *b = &HLOPLAN_GPU_params[k];

		printf("parameter(%d) %s: %lld bytes at %lld\n", b->parameter,
		       b->shape, b->bytes, b->offset);
	}
	printf("y = %g %g %g\n", y[0], y[1], y[2]);
	free(arena);
	return 0;
}

/* Two plans of two models under two prefixes in one translation unit,
 * compiled as C and as C++: both headers take effect (their include guards
 * carry the prefix), the struct types are defined once and shared, and a
 * header included twice is included once. */
#include <stdio.h>

#include "alias_plan.h"
#include "mlp_plan.h"
#include "alias_plan.h"

#if !defined(ALIAS_GPU_ALIGN) || !defined(MLP_GPU_ALIGN)
#error "a plan's header did not take effect"
#endif

static int
check(const char *prefix, const struct hloplan_plan_buffer *buf, int nbuf,
      const struct hloplan_plan_position *pos, const int *first, int nstep)
{
	int bad = 0;

	for (int t = 0; t < nstep; t++)
		for (int k = first[t]; k < first[t + 1]; k++)
			if (pos[k].buffer < 0 || pos[k].buffer >= nbuf ||
			    pos[k].offset < 0 ||
			    pos[k].offset >= buf[pos[k].buffer].size) {
				printf("%s: position %d of step %d outside "
				       "its buffer\n", prefix, k, t);
				bad = 1;
			}
	printf("%s: %d buffers, %d steps\n", prefix, nbuf, nstep);
	return bad;
}

int
main(void)
{
	int bad = check("ALIAS_GPU", ALIAS_GPU_buffers, ALIAS_GPU_NUM_BUFFERS,
			ALIAS_GPU_positions, ALIAS_GPU_step_first_position,
			ALIAS_GPU_NUM_STEPS);

	bad |= check("ALIAS_TPU", ALIAS_TPU_buffers, ALIAS_TPU_NUM_BUFFERS,
		     ALIAS_TPU_positions, ALIAS_TPU_step_first_position,
		     ALIAS_TPU_NUM_STEPS);
	bad |= check("MLP_GPU", MLP_GPU_buffers, MLP_GPU_NUM_BUFFERS,
		     MLP_GPU_positions, MLP_GPU_step_first_position,
		     MLP_GPU_NUM_STEPS);
	bad |= check("MLP_TPU", MLP_TPU_buffers, MLP_TPU_NUM_BUFFERS,
		     MLP_TPU_positions, MLP_TPU_step_first_position,
		     MLP_TPU_NUM_STEPS);
	return bad;
}

/* The checker's second translation unit: the program links only if a header
 * included twice defines nothing with external linkage. */
#include "check_plan.h"

const struct hloplan_plan_buffer *
tu2_table(int *n)
{
	*n = P(_NUM_BUFFERS);
	return P(_buffers);
}

/* What the two translation units of the plan checker share.  Build both with
 * -DPLAN_HEADER='"plan.h"' -DPLAN_PREFIX=HLOPLAN_GPU (the plan's prefix). */
#ifndef CHECK_PLAN_H
#define CHECK_PLAN_H

#if !defined(PLAN_HEADER) || !defined(PLAN_PREFIX)
#error "define PLAN_HEADER (a quoted file name) and PLAN_PREFIX"
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define P(x) CAT(PLAN_PREFIX, x)	/* P(_ALIGN): HLOPLAN_GPU_ALIGN */

#include PLAN_HEADER

/* The table as the other translation unit sees it. */
const struct hloplan_plan_buffer *tu2_table(int *n);

#endif

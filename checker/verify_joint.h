/* The checker of a joint plan (issue 41), apart from the passes: every
 * program's buffers clear of every shared array's bytes while the array
 * lives across calls (checker/verify_joint.c). */
#ifndef HLOPLAN_VERIFY_JOINT_H
#define HLOPLAN_VERIFY_JOINT_H

#include <stddef.h>

#include "ir/joint.h"
#include "passes/joint.h"

/* 0 when the joint plan is sound, else 1 with a message.  Each program's
 * plan is checked on its own by verify_plan; this checks what lies
 * between calls. */
int verify_joint(const struct joint_decl *d, const struct joint_plan *jp,
		 char *err, size_t errlen);

#endif

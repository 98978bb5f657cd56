/* The joint plan written out (issue 41): one header holding the shared
 * arena, the shared arrays' offsets and every program's plan under its own
 * prefix; the same as JSON; the figures for --stats (codegen/joint.c). */
#ifndef HLOPLAN_CODEGEN_JOINT_H
#define HLOPLAN_CODEGEN_JOINT_H

#include <stdio.h>

#include "ir/joint.h"
#include "passes/joint.h"

struct joint_out {
	const struct joint_decl *d;
	const struct joint_plan *jp;	/* one per target */
	int nplan;
	const char *prefix;	/* HLOPLAN: HLOPLAN_JOINT_GPU_* */
	const char *source;	/* the declaration's base name */
	/* --allocators: per plan, each model's peak reserved over the call
	 * sequence; nalloc 0 when not asked for */
	int nalloc;
	int64_t alloc[2][NALLOC];
	const char *alloc_names[NALLOC];
};

void codegen_joint_header(FILE *out, const struct joint_out *j);
void codegen_joint_json(FILE *out, const struct joint_out *j);
void codegen_joint_stats(FILE *out, const struct joint_out *j);

#endif

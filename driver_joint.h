/* Several programs, one arena (issue 41): the declaration read, each
 * program planned, the joint plan made and checked (driver_joint.c). */
#ifndef HLOPLAN_DRIVER_JOINT_H
#define HLOPLAN_DRIVER_JOINT_H

#include <stdio.h>

#include "ir/joint.h"
#include "passes/joint.h"

/* The call sequence replayed through one allocator model. */
struct joint_alloc {
	const char *name;
	int64_t reserved;	/* peak reserved */
};

struct joint_run {
	struct pool *pool;
	int status;		/* 0 ok, 1 bad input, 2 I/O (a file not read) */
	int ndiag, capdiag;
	struct diags **diags;	/* the declaration's, then each program's */
	const char *io_error;	/* status 2: what could not be read */
	struct joint_decl decl;
	int nplan;		/* one per target */
	struct joint_plan jp[2];
	struct joint_alloc allocs[2][NALLOC];	/* --allocators */
	int nalloc;
	int64_t alloc_lower;	/* the sequence's peak of live bytes */
};

struct joint_opts {
	int targets;		/* bit 1 << TARGET_GPU, 1 << TARGET_TPU */
	const char *prefix;	/* macro prefix; NULL: HLOPLAN */
	int allocators;		/* replay the call sequence */
};

/* Plans the programs decl names, jointly; r->status says how it went and
 * r->diags hold the errors.  o: the passes' options (io_in_arena and
 * reuse_params are set as a joint plan needs them). */
void plan_programs(struct joint_run *r, const char *decl,
		   const struct options *o, const struct joint_opts *jo);
/* Prints every error, each file's with its lines and carets. */
void joint_print_diags(const struct joint_run *r, FILE *out);

#endif

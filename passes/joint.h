/* The joint plan of several programs that share one arena (issue 41):
 * persistent arrays placed once, at the same offsets in every program, and
 * each program's own buffers packed around them (passes/joint.c).  The
 * checker and codegen read the data; the driver calls plan_joint. */
#ifndef HLOPLAN_PASSES_JOINT_H
#define HLOPLAN_PASSES_JOINT_H

#include <stdint.h>

#include "ir/joint.h"
#include "passes/plan.h"

/* One target's joint plan.  Only memory space S(0) is shared: it is the
 * arena every program binds; other spaces stay each program's own. */
struct joint_plan {
	int target;		/* enum target */
	int nprog;
	struct plan *plans;	/* per program: its S(0) offsets and arena
				   size are the joint plan's */
	const char **prefixes;	/* per program: its header prefix */
	int narray;
	int64_t *offset;	/* per array: its offset in the arena */
	int64_t *size;		/* ... its bytes reserved (the largest of
				   its buffers') */
	int64_t *bytes;		/* ... unpadded */
	int **buf;		/* buf[k][a]: the buffer of program k that
				   holds array a, or -1 (k does not use it) */
	int64_t arena;		/* the shared S(0) arena, bytes */
	int64_t lower;		/* a lower bound: the largest, over programs
				   and steps, of the bytes live then (its own
				   buffers and the arrays live in it), and
				   at least the arrays' bytes together */
	int64_t persistent;	/* the arrays' bytes together */
	int64_t *own_peak;	/* per program: its peak of its own live
				   bytes (S(0), the arrays left out) */
	int64_t *alone;		/* per program: its S(0) arena planned
				   alone */
	int64_t *own_alone;	/* per program: its own buffers packed
				   alone (a temporaries' arena) */
	int64_t sum_alone;	/* the sum of the separate plans */
	int64_t max_own_alone;	/* the largest temporaries' arena */
	int64_t simple_bound;	/* the largest, over programs, of the
				   arrays' bytes plus its own peak */
	int phase;		/* 1: the arrays live across every call kept
				   their boxes; 2: the arrays pinned and
				   each program's buffers packed around
				   them where they are live */
};

/* Given each program's plan (made with parameters and outputs in the
 * arena, parameters surviving the call), places the arrays and every
 * program's S(0) buffers jointly and rewrites the plans' offsets and S(0)
 * arena sizes.  0, or -1 with errors in ds at the declaration's lines (an
 * array the plans cannot keep in one place). */
int plan_joint(struct pool *pool, struct diags *ds,
	       const struct joint_decl *d, const struct options *o,
	       struct joint_plan *jp);

#endif

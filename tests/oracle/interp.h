/* A reference interpreter of the IR that runs a module inside a placement:
 * every value in an allocation of its own (the reference), or every buffer
 * at its planned place in one arena per memory space (the plan on trial).
 * Equal outputs from the two runs are evidence that the plan is safe. */
#ifndef HLOPLAN_ORACLE_INTERP_H
#define HLOPLAN_ORACLE_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "passes/plan.h"

enum { INTERP_REF, INTERP_PLANNED };	/* the two placements */

enum {
	INTERP_OK,
	INTERP_DIFF,	/* the planned run broke: a check failed */
	INTERP_SKIP,	/* the module cannot be run: unsupported, too big */
	INTERP_ERROR,	/* the oracle's own trouble */
	INTERP_LIMIT,	/* over the work budget */
};

struct interp_opts {
	int mode;		/* INTERP_REF or INTERP_PLANNED */
	uint64_t seed;		/* parameters' random data */
	int64_t budget;		/* element operations (not counting the
				   plan's copies, which differ by plan);
				   0: the default */
	int fill_elided;	/* elided constants ({...}) get random data,
				   seeded by their name */
	int data_only;		/* no overlap check: only the data counts */
	FILE *trace;		/* each instruction run, and its first
				   element; NULL: none */
	int params_survive;	/* the planned run: an entry parameter that
				   input_output_alias does not donate must
				   hold its bytes at the end (the plan was
				   made without reuse_params) */
	int branch;		/* -1: each conditional takes the branch its
				   operand picks; j >= 0: the branch pass j,
				   where each of n branches takes branch
				   min(j, n-1) (a predicate: 0 true, 1
				   false) */
	/* A call of a sequence (calls.c): the planned run takes arena0 as
	 * S(0)'s arena as it is, and param() fills each entry parameter's
	 * array nodes (1: filled, or left as the arena holds it; 0: random
	 * data).  NULL: a fresh poisoned arena, random parameters. */
	unsigned char *arena0;
	int (*param)(void *ctx, int k, int node, unsigned char *p,
		     int64_t bytes);
	void *param_ctx;
};

/* One array of the entry's result, copied out of the run. */
struct leaf {
	char path[64];		/* "{}" or "{1,0}" */
	int type;		/* enum dtype */
	int rank;
	const int64_t *dims;
	int64_t bytes;
	unsigned char *data;
};

struct outputs {
	int n;
	struct leaf *leaf;
	int64_t work;		/* element operations the run took */
	int stubs;		/* custom-calls and ops run as stubs */
};

/* 0 when every op and element type the entry reaches can run; else -1
 * and why names the first that cannot. */
int interp_check(const struct module *m, const struct interp_opts *o,
		 char *why, size_t n);

/* The most branches of a conditional the entry reaches (0: none): the
 * branch passes 0 .. n-1 reach every branch of every conditional. */
int interp_branches(const struct module *m);

/* Runs m (as planned into pl, which gives the schedule and, for the
 * planned run, every place).  Returns INTERP_*; out holds the outputs on
 * INTERP_OK, msg says why otherwise. */
int interp_run(const struct module *m, const struct plan *pl,
	       const struct interp_opts *o, struct outputs *out, char *msg,
	       size_t n);

/* 0 when a and b are equal bit for bit, else 1 with the first differing
 * element in msg. */
int interp_compare(const struct outputs *a, const struct outputs *b,
		   char *msg, size_t n);
void interp_free(struct outputs *o);

#endif

/* The planned run by value identity (issue 37): no array data, each byte
 * range of each arena tagged with the value instance it holds, so that
 * modules of any size run from the plan alone (identity.c). */
#ifndef HLOPLAN_ORACLE_IDENTITY_H
#define HLOPLAN_ORACLE_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "passes/plan.h"

struct trial;

struct ident_opts {
	uint64_t seed;		/* the branch a conditional takes (branch
				   -1): a hash of seed, its name and run */
	int branch;		/* -1: by the seed; j >= 0: every
				   conditional takes branch min(j, n-1) */
	int64_t trips;		/* a loop whose trip count the plan does
				   not know runs this often; 0: 2 */
	int64_t budget;		/* bytes ranges checked or written; 0: the
				   default (2e8) */
	int params_survive;	/* entry parameters not donated must hold
				   their values at the end */
};

struct ident_stats {
	int64_t steps;		/* instructions run */
	int64_t reads;		/* operand ranges checked */
	int64_t values;		/* value instances written */
	int64_t copies;		/* the plan's copies made */
	int maxranges;		/* most tagged ranges at once */
};

/* Runs m's program computations in pl's schedule by value identity;
 * returns INTERP_OK, INTERP_DIFF (msg says which read found what),
 * INTERP_LIMIT, INTERP_SKIP or INTERP_ERROR. */
int identity_run(const struct module *m, const struct plan *pl,
		 const struct ident_opts *o, struct ident_stats *s, char *msg,
		 size_t n);

/* Every branch pass of plan pl by value identity (t's seed, trips and
 * budget): TRIAL_SAME, _DIFF, _SKIP or _ERROR, why in t->why; the
 * figures added to *sum. */
int identity_trial(struct trial *t, const struct module *m,
		   const struct plan *pl, int params_survive,
		   struct ident_stats *sum);

/* oracle --identity --json FILE: every plan of hloplan's JSON file run by
 * value identity on the module of that name in text; a TRIAL_* status. */
int identity_json(struct trial *t, const char *text, size_t len,
		  const char *json);

/* The interval map against a byte array, ops random operations from
 * seed: 0, or the first that disagrees. */
int identity_map_selftest(uint64_t seed, int ops);

#endif

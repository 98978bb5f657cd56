/* The pipeline from a parsed module to a verified plan (driver.c). */
#ifndef HLOPLAN_DRIVER_H
#define HLOPLAN_DRIVER_H

#include <stdio.h>

#include "ir/ir.h"
#include "passes/passes.h"

enum {
	ST_PARSE, ST_ORDER, ST_SCHEDULE, ST_VALUES, ST_LIVENESS, ST_COPIES, ST_REUSE, ST_BUFFERS,
	ST_DBUF, ST_PACKING, ST_VERIFY, ST_CODEGEN, NSTAGE
};

extern const char *const stage_names[NSTAGE];

struct stats {
	double ms[NSTAGE];	/* wall time per stage, for --stats only */
};

struct driver_opts {
	const char *dump;	/* a stage to dump: schedule, hlo, values, plan */
	FILE *dumpf;
	struct stats *stats;	/* NULL: no timing */
	int keep_refused;	/* for the oracle: a plan that fails
				   verification is still filled in, and
				   plan_module returns 1 (the diagnostic
				   recorded) */
};

/* Plans one module; returns 0, or -1 with diagnostics in ds.  A plan that
 * fails verification is reported as an internal error and not returned
 * (unless d->keep_refused: then it is, and the result is 1). */
int plan_module(struct pool *pool, struct diags *ds, struct module *m,
		const struct options *o, const struct driver_opts *d,
		struct plan *pl);

#endif

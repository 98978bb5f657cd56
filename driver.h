/* The pipeline from a parsed module to a verified plan (driver.c). */
#ifndef HLOPLAN_DRIVER_H
#define HLOPLAN_DRIVER_H

#include <stdio.h>

#include "ir/ir.h"
#include "passes/passes.h"

/* The stages of a run for --stats, in order; together they cover it: from
 * the call that plans to the moment the statistics are written.  read: the
 * input into memory; parse: the frontend; flatten ... verify: the passes
 * (plan_module); codegen: every output made, dumps and depfiles included;
 * write: output files opened, flushed, compared and renamed (output.c);
 * other: what no stage covers, worked out as the rest (options checked,
 * the plans handed over as data, and the caller's time between calls). */
enum {
	ST_READ, ST_PARSE, ST_FLATTEN, ST_ORDER, ST_SCHEDULE, ST_VALUES,
	ST_LIVENESS, ST_COPIES, ST_REUSE, ST_BUFFERS, ST_DBUF, ST_PACKING,
	ST_VERIFY, ST_ALLOCATORS, ST_CODEGEN, ST_WRITE, ST_OTHER, NSTAGE
};

extern const char *const stage_names[NSTAGE];

struct stats {
	double ms[NSTAGE];	/* wall time per stage, for --stats only;
				   ms[ST_OTHER] is worked out when read */
	double start;		/* stats_now() when the run began */
};

/* A monotonic clock, in milliseconds. */
double stats_now(void);

/* output.c: o's opening, commit or abort are timed into *ms (the write
 * stage of a result; NULL: not timed). */
struct hloplan_output;
void output_time_into(struct hloplan_output *o, double *ms);

struct driver_opts {
	const char *dump;	/* a stage to dump: schedule, hlo, values, plan */
	FILE *dumpf;
	const char *label;	/* the plan's name in a dump's first line (its
				   header prefix), or NULL */
	struct stats *stats;	/* NULL: no timing */
	int keep_refused;	/* for the oracle: a plan that fails
				   verification is still filled in, and
				   plan_module returns 1 (the diagnostic
				   recorded) */
};

/* The stages from an order to sized buffers: schedule, values, liveness,
 * copies, reuse and colocation, buffers, double buffering.  The driver runs
 * them once the order is chosen, and fill_order (passes/order.c) runs them
 * for each candidate order (d NULL: no dumps, no timing), so that the
 * order is scored on the plan that is written.  0, or -1 with diagnostics
 * in p->ds. */
int plan_buffers(struct prog *p, struct plan *pl, const struct driver_opts *d);

/* Plans one module; returns 0, or -1 with diagnostics in ds.  A plan that
 * fails verification is reported as an internal error and not returned
 * (unless d->keep_refused: then it is, and the result is 1). */
int plan_module(struct pool *pool, struct diags *ds, struct module *m,
		const struct options *o, const struct driver_opts *d,
		struct plan *pl);

#endif

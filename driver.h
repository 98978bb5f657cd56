/* The pipeline from the text to verified plans and their outputs
 * (driver.c). */
#ifndef HLOPLAN_DRIVER_H
#define HLOPLAN_DRIVER_H

#include <stdio.h>

#include "codegen/codegen.h"
#include "frontend/frontend.h"
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

/* Plans one module; returns 0, or -1 with diagnostics in ds.  A plan that
 * fails verification is reported as an internal error and not returned
 * (unless d->keep_refused: then it is, and the result is 1). */
int plan_module(struct pool *pool, struct diags *ds, struct module *m,
		const struct options *o, const struct driver_opts *d,
		struct plan *pl);

/* One input through the compiler: what the caller sets (pool, ds, opt,
 * targets, prefix, constants, drv with its stats, set.source and set.xla)
 * and what compile fills in (the file and the plans). */
struct run {
	struct pool *pool;	/* owns all it makes */
	struct diags *ds;
	struct options opt;	/* for every plan, but the target */
	int targets;		/* 1 << TARGET_* bits */
	const char *prefix;	/* of every plan's macros */
	const char *constants;	/* the constants file's name, or NULL */
	struct driver_opts drv;	/* drv.stats must be set */
	struct hlofile *file;
	struct plan *plans;
	const char **prefixes;	/* each plan's, PREFIX_GPU ... */
	struct plan_set set;	/* the plans, for the writers */
};

/* Parses text (len bytes, NUL-terminated), then plans each module for
 * each target asked for (or, with drv.dump "ir", prints the modules); 0,
 * or -1 with diagnostics in r->ds. */
int compile(struct run *r, const char *text, size_t len);

/* Writes r's plans in format (HLOPLAN_FORMAT_*) to out; name is the output
 * file's (the header's include guard), or NULL.  0, or -1 with errno. */
int write_plans(const struct run *r, int format, FILE *out, const char *name);

/* The stage times so far into ms[], ms[ST_OTHER] the part of the run's
 * wall time no stage covers; returns that wall time, their sum. */
double stage_times(const struct stats *st, double *ms);

/* The last component of a path. */
const char *base_name(const char *path);

#endif

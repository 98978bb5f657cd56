/* The compiler at a glance: one straight call per stage, from a parsed
 * module to a verified plan (QBE's main).  Analyses fill in facts about the
 * program; transforms build and change the plan; verify checks the result
 * independently of how it was made. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "allocators/allocators.h"
#include "checker/verify.h"
#include "codegen/codegen.h"
#include "driver.h"
#include "passes/passes.h"

double
stats_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Times a stage for --stats; never read by the planner itself. */
#define STAGE(st, k, call)                                                    \
	do {                                                                  \
		double t0_ = stats_now();                                     \
		call;                                                         \
		if (st)                                                       \
			(st)->ms[k] += stats_now() - t0_;                     \
	} while (0)

const char *const stage_names[NSTAGE] = {
	"read", "parse", "flatten", "order", "schedule", "values",
	"liveness", "copies", "reuse", "buffers", "double-buffering",
	"packing", "verify", "allocators", "codegen", "write", "other",
};

/* Prints a stage when it is the one asked for, timed as codegen, after a
 * line naming the stage and the plan ("== plan HLOPLAN_GPU (module m,
 * target gpu)"; an HLO comment before the module --dump=hlo prints, so
 * that it still parses). */
static void
dump(const struct driver_opts *d, const char *what, const struct prog *p,
     const struct plan *pl)
{
	double t0 = stats_now();

	if (!d || !d->dump || strcmp(d->dump, what))
		return;
	fprintf(d->dumpf, "%s== %s %s (module %s, target %s)\n",
		strcmp(what, "hlo") ? "" : "// ", what,
		d->label ? d->label : "-", p->m->name,
		codegen_target(p->opt.target));
	if (!strcmp(what, "schedule"))
		dump_schedule(d->dumpf, p);
	else if (!strcmp(what, "hlo"))
		ir_print_module_order(d->dumpf, p->m, (const int *const *)p->order);
	else if (!strcmp(what, "values"))
		dump_values(d->dumpf, p);
	else
		dump_plan(d->dumpf, pl);
	if (d->stats)
		d->stats->ms[ST_CODEGEN] += stats_now() - t0;
}

/* The verifier's verdict as a diagnostic: 0, or -1 (a bug in hloplan). */
static int
verify(struct prog *p, const struct plan *pl)
{
	char err[512];

	if (!verify_plan(p->m, &p->opt, pl, err, sizeof err))
		return 0;
	diag_error(p->ds, p->m->loc, "internal error: the plan for module '%s' "
		   "fails verification: %s", p->m->name, err);
	return -1;
}

int
plan_buffers(struct prog *p, struct plan *pl, const struct driver_opts *d)
{
	struct stats *st = d ? d->stats : NULL;
	int err;

	STAGE(st, ST_SCHEDULE, err = fill_schedule(p));
	if (err)
		return -1;
	dump(d, "schedule", p, pl);
	dump(d, "hlo", p, pl);
	STAGE(st, ST_VALUES, err = fill_values(p));
	if (err)
		return -1;
	STAGE(st, ST_LIVENESS, fill_liveness(p));
	STAGE(st, ST_COPIES, err = insert_copies(p));
	if (err)
		return -1;
	if (p->opt.reuse) {
		STAGE(st, ST_REUSE, share_reuse(p));
		STAGE(st, ST_REUSE, colocate(p));
	}
	STAGE(st, ST_BUFFERS, build_buffers(p, pl));
	dump(d, "values", p, pl);
	STAGE(st, ST_DBUF, err = insert_double_buffers(p, pl));
	if (err)
		return -1;
	STAGE(st, ST_BUFFERS, err = check_sizes(p, pl));
	return err;
}

int
plan_module(struct pool *pool, struct diags *ds, struct module *m,
	    const struct options *o, const struct driver_opts *d,
	    struct plan *pl)
{
	struct prog p = {.pool = pool, .ds = ds, .m = m, .opt = *o};
	struct stats *st = d ? d->stats : NULL;
	int err;

	STAGE(st, ST_FLATTEN, err = flatten_calls(pool, ds, m));
	if (err)
		return -1;
	STAGE(st, ST_ORDER, err = fill_order(&p, pl, plan_buffers));
	if (err || plan_buffers(&p, pl, d))
		return -1;
	STAGE(st, ST_BUFFERS, list_constants(&p, pl));
	STAGE(st, ST_PACKING, assign_offsets(&p, pl));
	STAGE(st, ST_PACKING, err = check_heights(&p, pl));
	if (err)
		return -1;
	dump(d, "plan", &p, pl);
	STAGE(st, ST_PACKING, fill_peaks(&p, pl));
	STAGE(st, ST_PACKING, err = check_capacity(&p, pl));
	if (err)
		return -1;
	STAGE(st, ST_VERIFY, err = verify(&p, pl));
	if (err)
		return d && d->keep_refused ? 1 : -1;
	if (o->allocators)
		STAGE(st, ST_ALLOCATORS, replay_allocators(pool, &p.opt, pl));
	return 0;
}

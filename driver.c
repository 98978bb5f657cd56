/* The compiler at a glance: parse, then per module and target one straight
 * call per stage to a verified plan, then the writers (QBE's main).
 * Analyses fill in facts about the program; transforms build and change
 * the plan; verify checks the result independently of how it was made. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hloplan.h"
#include "allocators/allocators.h"
#include "checker/verify.h"
#include "codegen/codegen.h"
#include "driver.h"
#include "frontend/frontend.h"
#include "packer/pack.h"
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

/* The stages from an order to sized buffers: schedule, values, liveness,
 * copies, reuse and colocation, buffers, double buffering.  The driver runs
 * them for each candidate order (fill_order, passes/order.c; d NULL: no
 * dumps, no timing), so that the order is scored on the plan that is
 * written, and keeps the chosen candidate's plan; or once the order is
 * chosen, when there was one candidate only or for a dump.  0, or -1 with
 * diagnostics in p->ds. */
static int
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
	/* The chosen order's trial is the real run, but for a dump of its
	 * stages. */
	STAGE(st, ST_ORDER, err = fill_order(&p, pl, plan_buffers,
					     !d || !d->dump));
	if (err < 0 || (err == 0 && plan_buffers(&p, pl, d)))
		return -1;
	STAGE(st, ST_ORDER, score_order(&p, pl));
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

/* An upper-case C identifier made from s (for guards and prefixes). */
static char *
upper_ident(struct pool *pool, const char *s)
{
	char *r = pool_printf(pool, "%s%s", *s >= '0' && *s <= '9' ? "_" : "",
			      s);

	for (char *q = r; *q; q++)
		*q = (*q >= 'a' && *q <= 'z') ? (char)(*q - 32) :
		     ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')) ?
		     *q : '_';
	return r;
}

/* PREFIX_GPU, or PREFIX_<MODULE>_GPU when a file holds several modules
 * (with _<index> when two share a name). */
static const char *
plan_prefix(struct run *r, int mod, int target)
{
	const struct hlofile *f = r->file;
	const char *t = target == TARGET_GPU ? "GPU" : "TPU";
	int dup = 0;

	if (f->nmod == 1)
		return pool_printf(r->pool, "%s_%s", r->prefix, t);
	for (int i = 0; i < f->nmod; i++)
		dup |= i != mod && !strcmp(f->mods[i].name, f->mods[mod].name);
	if (dup)
		return pool_printf(r->pool, "%s_%s_%d_%s", r->prefix,
				   upper_ident(r->pool, f->mods[mod].name),
				   mod, t);
	return pool_printf(r->pool, "%s_%s_%s", r->prefix,
			   upper_ident(r->pool, f->mods[mod].name), t);
}

/* One target of a module planned on a thread of its own: a pool,
 * diagnostics and stage times of its own, joined to the run's after. */
struct target_run {
	struct module *m;
	struct options o;
	struct driver_opts d;
	struct stats st;
	struct pool *pool;
	struct diags ds;
	struct plan *pl;
	int ret;
};

static void *
plan_target(void *arg)
{
	struct target_run *t = arg;

	t->ret = plan_module(t->pool, &t->ds, t->m, &t->o, &t->d, t->pl);
	if (t->o.spare)	/* its processors, to the other target's packer */
		atomic_fetch_add(&t->o.spare->n, t->o.threads);
	return NULL;
}

/* Below this many instructions a module's targets are planned in turn: a
 * thread costs more than planning so small a module (samples/add.hlo
 * took 0.5 ms on threads, 0.3 ms in turn). */
enum { TARGETS_AT_ONCE = 1000 };

/* Whether a module's two targets are planned at once: with more than one
 * processor and no --threads 1, unless a stage is dumped (its text comes
 * in target order). */
static int
targets_at_once(const struct run *r, const struct module *m)
{
	return r->targets == (1 << TARGET_GPU | 1 << TARGET_TPU) &&
	       !r->drv.dump && r->opt.threads != 1 &&
	       module_instrs(m) >= TARGETS_AT_ONCE &&
	       sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/* t's diagnostics after r's (their text is in t's pool, which r's takes
 * in). */
static void
take_diags(struct run *r, const struct target_run *t)
{
	for (int k = 0; k < t->ds.n; k++)
		*VEC_PUSH(r->ds->pool, r->ds->d, r->ds->n, r->ds->cap) =
			t->ds.d[k];
}

/* Both targets of module `mod`, each on a thread (the planner reads the
 * module only, once its calls are flattened here): on a two-core machine
 * each target's serial stages (buffers, verify, what trials and packing
 * leave a core idle in) overlap the other's.  What comes out is what
 * planning them in turn gives: the GPU's diagnostics, and the TPU's only
 * when the GPU's plan was made.  The stages' times, which overlap, are
 * each scaled so that they add up to the wall time the two took. */
static int
plan_both(struct run *r, int mod, int n)
{
	struct target_run t[2];
	struct pack_spare spare;
	struct stats *st = r->drv.stats;
	struct module *m = &r->file->mods[mod];
	pthread_t th;
	double t0, wall, sum = 0;
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	int started, err, half = np > 3 ? (int)(np / 2) : 1;

	STAGE(st, ST_FLATTEN, err = flatten_calls(r->pool, r->ds, m));
	if (err)
		return -1;
	t0 = stats_now();
	atomic_init(&spare.n, 0);
	for (int k = 0; k < 2; k++) {
		t[k] = (struct target_run){.m = m, .o = r->opt, .d = r->drv,
					   .pool = pool_new(),
					   .pl = &r->plans[n + k]};
		t[k].o.target = TARGET_GPU + k;
		if (r->opt.threads == 0) {	/* half the processors each, */
			t[k].o.threads = half;
			t[k].o.spare = &spare;	/* and the other's when done */
		}
		t[k].d.stats = &t[k].st;
		t[k].d.label = r->prefixes[n + k] = plan_prefix(r, mod,
								TARGET_GPU + k);
		t[k].ds = *r->ds;
		t[k].ds.pool = t[k].pool;
		t[k].ds.n = t[k].ds.cap = 0;
		t[k].ds.d = NULL;
	}
	started = pthread_create(&th, NULL, plan_target, &t[1]) == 0;
	plan_target(&t[0]);
	if (started)
		pthread_join(th, NULL);
	else
		plan_target(&t[1]);
	wall = stats_now() - t0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < NSTAGE; i++)
			sum += t[k].st.ms[i];
	for (int k = 0; k < 2; k++) {
		for (int i = 0; st && sum > 0 && i < NSTAGE; i++)
			st->ms[i] += t[k].st.ms[i] * wall / sum;
		pool_adopt(r->pool, t[k].pool);
	}
	take_diags(r, &t[0]);
	if (t[0].ret < 0)
		return -1;
	take_diags(r, &t[1]);
	return t[1].ret < 0 ? -1 : 0;
}

/* Plans every module for every target asked for; 0, or -1 on bad input. */
static int
plan_all(struct run *r)
{
	size_t cap = (size_t)(2 * r->file->nmod + 1);
	int n = 0;

	r->plans = pool_alloc(r->pool, sizeof *r->plans * cap);
	r->prefixes = pool_alloc(r->pool, sizeof *r->prefixes * cap);
	r->set.plans = r->plans;
	r->set.prefixes = r->prefixes;
	for (int i = 0; i < r->file->nmod; i++) {
		if (targets_at_once(r, &r->file->mods[i])) {
			if (plan_both(r, i, n) < 0)
				return -1;
			r->set.nplan = n += 2;
			continue;
		}
		for (int t = TARGET_GPU; t <= TARGET_TPU; t++) {
			struct options o = r->opt;

			if (!(r->targets & (1 << t)))
				continue;
			o.target = t;
			r->prefixes[n] = plan_prefix(r, i, t);
			r->drv.label = r->prefixes[n];
			if (plan_module(r->pool, r->ds, &r->file->mods[i], &o,
					&r->drv, &r->plans[n]) < 0)
				return -1;
			r->set.nplan = ++n;
		}
	}
	return 0;
}

/* --dump=ir: the modules as parsed, instead of planning them. */
static void
dump_ir(struct run *r)
{
	double t0 = stats_now();

	for (int i = 0; i < r->file->nmod; i++)
		ir_print_module(r->drv.dumpf, &r->file->mods[i]);
	r->drv.stats->ms[ST_CODEGEN] += stats_now() - t0;
}

int
compile(struct run *r, const char *text, size_t len)
{
	struct stats *st = r->drv.stats;

	STAGE(st, ST_PARSE, r->file = frontend_parse(r->pool, text, len,
						     r->ds));
	if (r->ds->n)
		return -1;
	if (r->drv.dump && !strcmp(r->drv.dump, "ir")) {
		dump_ir(r);
		return 0;
	}
	return plan_all(r);
}

const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

double
stage_times(const struct stats *st, double *ms)
{
	double total = stats_now() - st->start, sum = 0;

	for (int k = 0; k < ST_OTHER; k++)
		sum += ms[k] = st->ms[k];
	ms[ST_OTHER] = total > sum ? total - sum : 0.0;
	return sum + ms[ST_OTHER];
}

static void
write_header(const struct run *r, FILE *out, const char *name)
{
	struct pool *pool = pool_new();
	struct header_opts ho = {"PLAN_H", r->set.source,
				 r->constants ? base_name(r->constants) : NULL,
				 r->opt.threads};

	if (name && strcmp(name, "-") && *base_name(name))
		ho.guard = upper_ident(pool, base_name(name));
	codegen_header(out, r->set.plans, r->set.prefixes, r->set.nplan, &ho);
	pool_free(pool);
}

int
write_plans(const struct run *r, int format, FILE *out, const char *name)
{
	double ms[NSTAGE], total;

	switch (format) {
	case HLOPLAN_FORMAT_HEADER:
		write_header(r, out, name);
		break;
	case HLOPLAN_FORMAT_JSON:
		codegen_json(out, &r->set);
		break;
	case HLOPLAN_FORMAT_CSV:
		codegen_csv(out, &r->set);
		break;
	case HLOPLAN_FORMAT_SVG:
		codegen_svg(out, &r->set);
		break;
	case HLOPLAN_FORMAT_STATS:
		total = stage_times(r->drv.stats, ms);
		codegen_stats(out, &r->set, ms, stage_names, NSTAGE, total);
		break;
	case HLOPLAN_FORMAT_CONSTANTS:
		codegen_constants(out, &r->set);
		break;
	case HLOPLAN_FORMAT_ALLOCATORS:
		codegen_allocators(out, &r->set);
		break;
	case HLOPLAN_FORMAT_STATS_JSON:
		total = stage_times(r->drv.stats, ms);
		codegen_stats_json(out, &r->set, ms, stage_names, NSTAGE,
				   total);
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (ferror(out)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

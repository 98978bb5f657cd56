/* Trials: plan a module for the GPU (with and without reuse, with entry
 * parameters and outputs in and out of the arena) and the TPU, run the
 * reference once and each plan inside its arena, compare bit for bit.  A
 * mutation mode overlaps two buffers that are live at once, to show that
 * the oracle notices a broken plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "frontend/frontend.h"
#include "tests/oracle/interp.h"
#include "tests/oracle/num.h"
#include "tests/oracle/trial.h"

static void
no_reuse(struct options *o)
{
	o->reuse = 0;
}

static void
io_out(struct options *o)
{
	o->io_in_arena = 0;
}

static void
tpu(struct options *o)
{
	o->target = TARGET_TPU;
}

static const struct variant {
	const char *name;
	void (*set)(struct options *o);
} variants[] = {
	{"gpu", NULL}, {"gpu-no-reuse", no_reuse}, {"gpu-io-out", io_out},
	{"tpu", tpu},
};

enum { NVARIANT = sizeof variants / sizeof variants[0] };

/* One module parsed afresh and planned (planning may rewrite it). */
struct planned {
	struct pool *pool;
	struct diags ds;
	struct module *m;
	struct plan pl;
};

static int
plan_one(struct trial *t, const char *text, size_t len, int mod, int v,
	 struct planned *p)
{
	struct hlofile *f;
	struct options o;

	memset(p, 0, sizeof *p);
	p->pool = pool_new();
	p->ds.pool = p->pool;
	p->ds.file = t->file;
	p->ds.src = text;
	p->ds.srclen = len;
	f = frontend_parse(p->pool, text, len, &p->ds);
	if (p->ds.n || mod >= f->nmod) {
		diag_print(&p->ds, stderr);
		return -1;
	}
	p->m = &f->mods[mod];
	options_default(&o);
	if (variants[v].set)
		variants[v].set(&o);
	if (plan_module(p->pool, &p->ds, p->m, &o, NULL, &p->pl) < 0) {
		diag_print(&p->ds, stderr);
		return -1;
	}
	return 0;
}

static int64_t
plan_bytes(const struct plan *pl)
{
	int64_t n = 0;

	for (int a = 0; a < pl->narena; a++)
		n += pl->arenas[a].size;
	for (int b = 0; b < pl->nbuf; b++)
		if (!pl->bufs[b].in_arena)
			n += pl->bufs[b].size;
	return n;
}

/* Runs the plan and compares with ref: TRIAL_SAME or TRIAL_DIFF (why
 * says), TRIAL_SKIP or TRIAL_ERROR.  A plan that makes the run take
 * far longer than the reference (a loop that never ends) differs. */
static int
try_plan(struct trial *t, const struct module *m, const struct plan *pl,
	 const struct outputs *ref)
{
	struct interp_opts io = {INTERP_PLANNED, t->seed,
				 4 * ref->work + 100000, t->fill_elided,
				 t->data_only, t->trace ? stderr : NULL};
	struct outputs out;
	int r = interp_run(m, pl, &io, &out, t->why, sizeof t->why);

	if (r == INTERP_LIMIT) {
		snprintf(t->why, sizeof t->why, "the planned run did not end "
			 "within %lld element operations (the reference took "
			 "%lld)", (long long)io.budget, (long long)ref->work);
		return TRIAL_DIFF;
	}
	if (r == INTERP_SKIP)
		return TRIAL_SKIP;
	if (r == INTERP_ERROR)
		return TRIAL_ERROR;
	if (r == INTERP_DIFF)
		return TRIAL_DIFF;
	r = interp_compare(ref, &out, t->why, sizeof t->why);
	interp_free(&out);
	return r ? TRIAL_DIFF : TRIAL_SAME;
}

/* Buffers whose intervals intersect (1), and more than at one end,
 * where an elementwise op may write over what it reads (2); else 0. */
static int
live_together(const struct buffer *a, const struct buffer *b)
{
	if (!a->in_arena || !b->in_arena || a->space != b->space ||
	    a->bytes == 0 || b->bytes == 0 || a->start > b->end ||
	    b->start > a->end)
		return 0;
	return a->start < b->end && b->start < a->end ? 2 : 1;
}

static int64_t
arena_size(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return pl->arenas[a].size;
	return 0;
}

/* Overlaps buffer y with x (y moves to x's offset) and runs the plan:
 * 1 when the oracle sees it, 0 when not, -1 when it cannot move. */
static int
overlap_seen(struct trial *t, struct planned *p, int x, int y,
	     const struct outputs *ref)
{
	struct buffer *bx = &p->pl.bufs[x], *by = &p->pl.bufs[y];
	int64_t saved = by->offset;
	int r;

	if (bx->offset + by->size > arena_size(&p->pl, by->space) ||
	    bx->offset == by->offset)
		return -1;
	by->offset = bx->offset;
	r = try_plan(t, p->m, &p->pl, ref);
	by->offset = saved;
	return r == TRIAL_DIFF;
}

static int
mutate(struct trial *t, struct planned *p, const struct outputs *ref,
       const char *name)
{
	int tried[3] = {0}, seen[3] = {0};

	for (int x = 0; x < p->pl.nbuf; x++)
		for (int y = x + 1; y < p->pl.nbuf; y++) {
			int r, k = live_together(&p->pl.bufs[x],
						 &p->pl.bufs[y]);

			if (!k || (t->mutate == MUTATE_ONE && k < 2))
				continue;
			r = overlap_seen(t, p, x, y, ref);
			if (r < 0)
				continue;
			tried[k]++;
			seen[k] += r;
			if (!t->quiet || !r)
				fprintf(t->out, "%s: %s: '%s' over '%s'%s: "
					"%s%s\n", t->file, name,
					p->pl.bufs[y].name, p->pl.bufs[x].name,
					k < 2 ? " (at one end)" : "",
					r ? "seen: " : "NOT SEEN", r ? t->why
								    : "");
			if (t->mutate == MUTATE_ONE)
				return r ? TRIAL_SAME : TRIAL_DIFF;
		}
	fprintf(t->out, "%s: %s: overlaps seen: %d of %d buffers live at "
		"once, %d of %d that meet at one end\n", t->file, name,
		seen[2], tried[2], seen[1], tried[1]);
	return tried[2] && seen[2] == tried[2] ? TRIAL_SAME : TRIAL_DIFF;
}

static int
skip(struct trial *t, const char *name, const char *why)
{
	t->skipped++;
	fprintf(t->out, "%s: %s: skipped: %s\n", t->file, name, why);
	return TRIAL_SKIP;
}

static int
differ(struct trial *t, const char *name, const char *plan)
{
	t->differed++;
	fprintf(t->out, "%s: %s: DIFFERS in plan %s: %s\n", t->file, name,
		plan, t->why);
	return TRIAL_DIFF;
}

static int
fail(struct trial *t, const char *name, const char *what)
{
	t->failed++;
	fprintf(t->out, "%s: %s: error: %s\n", t->file, name, what);
	return TRIAL_ERROR;
}

/* Every plan but the first: parsed and planned afresh, run, compared. */
static int
other_plans(struct trial *t, const char *text, size_t len, int mod,
	    const char *name, const struct outputs *ref)
{
	for (int v = 1; v < NVARIANT; v++) {
		struct planned p;
		int r;

		if (plan_one(t, text, len, mod, v, &p) < 0) {
			pool_free(p.pool);
			snprintf(t->why, sizeof t->why, "planning for %s "
				 "failed", variants[v].name);
			return fail(t, name, t->why);
		}
		r = try_plan(t, p.m, &p.pl, ref);
		pool_free(p.pool);
		if (r == TRIAL_DIFF)
			return differ(t, name, variants[v].name);
		if (r != TRIAL_SAME)
			return r == TRIAL_SKIP ? skip(t, name, t->why) :
			       fail(t, name, t->why);
	}
	return TRIAL_SAME;
}

static int
run_module(struct trial *t, const char *text, size_t len, int mod,
	   struct planned *p, const struct outputs *ref)
{
	const char *name = p->m->name;
	int r;

	if (t->mutate)
		return mutate(t, p, ref, name);
	r = try_plan(t, p->m, &p->pl, ref);
	if (r == TRIAL_DIFF)
		return differ(t, name, variants[0].name);
	if (r != TRIAL_SAME)
		return r == TRIAL_SKIP ? skip(t, name, t->why) :
		       fail(t, name, t->why);
	r = other_plans(t, text, len, mod, name, ref);
	if (r != TRIAL_SAME)
		return r;
	t->ran++;
	if (!t->quiet)
		fprintf(t->out, "%s: %s: identical in %d plans, %lld bytes, "
			"%d result arrays%s\n", t->file, name, NVARIANT,
			(long long)plan_bytes(&p->pl), ref->n,
			t->fill_elided ? " (elided constants filled)" : "");
	return TRIAL_SAME;
}

/* One line per result array: its index and values, as %.9g or ints. */
static void
print_outputs(struct trial *t, const struct outputs *o)
{
	for (int k = 0; k < o->n; k++) {
		const struct leaf *l = &o->leaf[k];
		int es = num_size(l->type);

		fprintf(t->out, "%s", l->path);
		for (int64_t i = 0; i * es < l->bytes; i++) {
			union num v = num_get(l->type, l->data, i);

			if (num_kind(l->type) == NK_F)
				fprintf(t->out, " %.9g", v.f);
			else if (num_kind(l->type) == NK_S)
				fprintf(t->out, " %lld", (long long)v.s);
			else
				fprintf(t->out, " %llu",
					(unsigned long long)v.u);
		}
		fprintf(t->out, "\n");
	}
}

static int
trial_module(struct trial *t, const char *text, size_t len, int mod)
{
	struct interp_opts io = {INTERP_REF, t->seed, t->budget,
				 t->fill_elided, 0, t->trace ? stderr : NULL};
	struct planned p;
	struct outputs ref;
	const char *name;
	int r;

	if (plan_one(t, text, len, mod, 0, &p) < 0) {
		pool_free(p.pool);
		return fail(t, "?", "planning for gpu failed");
	}
	name = p.m->name;
	if (interp_check(p.m, &io, t->why, sizeof t->why) < 0) {
		r = skip(t, name, t->why);
	} else if (t->max_bytes && plan_bytes(&p.pl) > t->max_bytes) {
		snprintf(t->why, sizeof t->why, "the plan needs %lld bytes",
			 (long long)plan_bytes(&p.pl));
		r = skip(t, name, t->why);
	} else {
		r = interp_run(p.m, &p.pl, &io, &ref, t->why, sizeof t->why);
		if (r == INTERP_OK) {
			if (t->print)
				print_outputs(t, &ref);
			r = run_module(t, text, len, mod, &p, &ref);
			interp_free(&ref);
		} else {
			r = r == INTERP_SKIP || r == INTERP_LIMIT ?
				skip(t, name, t->why) : fail(t, name, t->why);
		}
	}
	pool_free(p.pool);
	return r;
}

/* The file's status: a difference over an error over identical over
 * skipped. */
static int
worse(int r, int worst)
{
	static const int rank[] = {
		[TRIAL_SKIP] = 0, [TRIAL_SAME] = 1, [TRIAL_ERROR] = 2,
		[TRIAL_DIFF] = 3,
	};

	return rank[r] > rank[worst];
}

int
trial_file(struct trial *t, const char *text, size_t len)
{
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = t->file, .src = text,
			   .srclen = len};
	struct hlofile *f = frontend_parse(pool, text, len, &ds);
	int nmod = f->nmod, worst = TRIAL_SKIP;

	if (ds.n) {
		diag_print(&ds, stderr);
		pool_free(pool);
		return TRIAL_ERROR;
	}
	pool_free(pool);
	for (int k = 0; k < nmod; k++) {
		int r = trial_module(t, text, len, k);

		if (worse(r, worst))
			worst = r;
	}
	return worst;
}

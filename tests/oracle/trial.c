/* Trials: plan a module for the GPU (with and without reuse, with entry
 * parameters and outputs in and out of the arena) and the TPU, run the
 * reference and each plan (refused by verify or not) once per branch pass,
 * compare bit for bit, and judge each plan by both verdicts.  A mutation
 * mode overlaps two buffers that are live at once, to show that the oracle
 * notices a broken plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "driver.h"
#include "frontend/frontend.h"
#include "tests/oracle/contract.h"
#include "tests/oracle/identity.h"
#include "tests/oracle/interp.h"
#include "tests/oracle/jsonread.h"
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
	int refused;		/* verify refused the plan */
	int params_survive;	/* made without reuse_params */
	char verdict[400];	/* verify's message */
};

/* --from-json: the plan written as JSON to a file and read back; from then
 * on both runs take every place from the file alone.  With --json-dir, the
 * file is DIR/MODULE.VARIANT.json, read as it is when it exists (so that a
 * test can edit it). */
static FILE *
contract_file(struct trial *t, const struct planned *p, int v)
{
	const char *prefix = "P";
	struct plan_set s = {.plans = &p->pl, .prefixes = &prefix,
			     .nplan = 1, .source = t->file};
	char path[1024];
	FILE *f;

	if (!t->json_dir) {
		f = tmpfile();
	} else {
		snprintf(path, sizeof path, "%s/%s.%s.json", t->json_dir,
			 p->m->name, variants[v].name);
		f = fopen(path, "rb");
		if (f)
			return f;
		f = fopen(path, "w+b");
	}
	if (!f)
		return NULL;
	codegen_json(f, &s);
	rewind(f);
	if (!ferror(f))
		return f;
	fclose(f);
	return NULL;
}

static int
from_contract(struct trial *t, struct planned *p, int v)
{
	FILE *f = contract_file(t, p, v);
	int r;

	if (!f) {
		fprintf(stderr, "%s: cannot write the JSON plan\n", t->file);
		return -1;
	}
	r = plan_from_json(p->pool, p->m, f, 0, &p->pl, t->why,
			   sizeof t->why);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", t->file, t->why);
	fclose(f);
	return r;
}

static int
plan_one(struct trial *t, const char *text, size_t len, int mod, int v,
	 struct planned *p)
{
	struct driver_opts d = {.keep_refused = 1};
	struct hlofile *f;
	struct options o;
	int r;

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
	p->params_survive = !o.reuse_params;
	r = plan_module(p->pool, &p->ds, p->m, &o, &d, &p->pl);
	if (r < 0) {
		diag_print(&p->ds, stderr);
		return -1;
	}
	p->refused = r == 1;
	if ((t->contract || t->identity) && from_contract(t, p, v) < 0)
		return -1;
	if (p->refused && p->ds.n)
		snprintf(p->verdict, sizeof p->verdict, "%s",
			 p->ds.d[p->ds.n - 1].msg);
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

/* Pass 0 lets each conditional's operand pick its branch; pass j > 0 makes
 * each take branch j - 1 (or its last), so that every branch runs. */

/* Runs the plan in branch pass `pass` and compares with ref: TRIAL_SAME
 * or TRIAL_DIFF (why says), TRIAL_SKIP or TRIAL_ERROR.  A plan that makes
 * the run take far longer than the reference (a loop that never ends)
 * differs. */
static int
try_plan(struct trial *t, const struct planned *p, const struct outputs *ref,
	 int pass)
{
	struct interp_opts io = {
		.mode = INTERP_PLANNED, .seed = t->seed,
		.budget = 4 * ref->work + 100000,
		.fill_elided = t->fill_elided, .data_only = t->data_only,
		.trace = t->trace ? stderr : NULL, .branch = pass - 1,
		.params_survive = p->params_survive,
	};
	struct outputs out;
	struct ident_stats s = {0};
	int r;

	if (t->identity == 1)	/* --identity --mutate: by value identity */
		return identity_trial(t, p->m, &p->pl, p->params_survive, &s);
	r = interp_run(p->m, &p->pl, &io, &out, t->why, sizeof t->why);

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
	r = try_plan(t, p, ref, 0);
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

/* Does XLA's contract tie plan position k to an operand's buffer? */
static int
tied(const struct module *m, const struct plan_pos *ps)
{
	const struct comp *cp = &m->comps[ps->comp];
	const struct instr *in = &cp->instrs[ps->instr];
	const struct shape *as[64];

	if (in->nops > 64)
		return 0;
	for (int k = 0; k < in->nops; k++)
		as[k] = &cp->instrs[in->ops[k]].shape;
	return contract_tied(m, in, as, ps->node);
}

/* Plan position k moved to buffer b, a copy of its own out of the arena
 * (poisoned, as every buffer): 1 when the oracle sees it. */
static int
moved_seen(struct trial *t, struct planned *p, int k, int b,
	   const struct outputs *ref)
{
	struct plan_pos *ps = &p->pl.pos[k];
	struct buffer *nb = &p->pl.bufs[b];
	int old = ps->buf, r;

	*nb = p->pl.bufs[old];
	nb->name = "mutant";
	nb->in_arena = 0;
	nb->slots = 1;
	nb->stride = 0;
	nb->size = ps->size > nb->bytes ? ps->size : nb->bytes;
	ps->buf = b;
	r = try_plan(t, p, ref, 0);
	ps->buf = old;
	return r == TRIAL_DIFF;
}

/* --mutate-contract: each node XLA's kernel contract ties to an operand's
 * buffer (an in-place output, a done's array) given a buffer of its own,
 * in turn; every one must be seen. */
static int
contract_mutants(struct trial *t, struct planned *p,
		 const struct outputs *ref, const char *name)
{
	struct buffer *saved = p->pl.bufs;
	int n = p->pl.nbuf, tried = 0, seen = 0;

	p->pl.bufs = malloc(sizeof *saved * (size_t)(n + 1));
	if (!p->pl.bufs) {
		p->pl.bufs = saved;
		return TRIAL_ERROR;
	}
	memcpy(p->pl.bufs, saved, sizeof *saved * (size_t)n);
	p->pl.nbuf = n + 1;
	for (int k = 0; k < p->pl.npos; k++) {
		const struct plan_pos *ps = &p->pl.pos[k];
		int r;

		if (!tied(p->m, ps))
			continue;
		r = moved_seen(t, p, k, n, ref);
		tried++;
		seen += r;
		if (!t->quiet || !r)
			fprintf(t->out, "%s: %s: '%s' node %d in a buffer of "
				"its own: %s%s\n", t->file, name, ps->name,
				ps->node, r ? "seen: " : "NOT SEEN",
				r ? t->why : "");
	}
	free(p->pl.bufs);
	p->pl.bufs = saved;
	p->pl.nbuf = n;
	fprintf(t->out, "%s: %s: contract mutants seen: %d of %d\n", t->file,
		name, seen, tried);
	return tried && seen == tried ? TRIAL_SAME : TRIAL_DIFF;
}

static int
skip(struct trial *t, const char *name, const char *why)
{
	t->skipped++;
	fprintf(t->out, "%s: %s: skipped: %s\n", t->file, name, why);
	return TRIAL_SKIP;
}

static int
fail(struct trial *t, const char *name, const char *what)
{
	t->failed++;
	fprintf(t->out, "%s: %s: error: %s\n", t->file, name, what);
	return TRIAL_ERROR;
}

/* Every variant planned, from a fresh parse each; -1 when one fails. */
static int
plan_all(struct trial *t, const char *text, size_t len, int mod,
	 struct planned *p)
{
	for (int v = 0; v < NVARIANT; v++)
		if (plan_one(t, text, len, mod, v, &p[v]) < 0) {
			for (int w = 0; w <= v; w++)
				pool_free(p[w].pool);
			snprintf(t->why, sizeof t->why, "planning for %s "
				 "failed", variants[v].name);
			return -1;
		}
	return 0;
}

/* The verdicts of one variant: what verify said, what the oracle saw. */
struct verdict {
	int status;		/* TRIAL_SAME, _DIFF, _SKIP or _ERROR */
	int pass;		/* the branch pass it first differed in */
	char why[512];
};

/* One plan judged by both: a plan the oracle sees differ that verify
 * accepted is a wrong plan written (TRIAL_DIFF); a refused plan is
 * TRIAL_REFUSED, caught or a false alarm. */
static int
judge(struct trial *t, const char *name, int v, const struct planned *p,
      const struct verdict *d)
{
	int differs = d->status == TRIAL_DIFF;

	if (d->status == TRIAL_SKIP)
		return skip(t, name, d->why);
	if (d->status == TRIAL_ERROR)
		return fail(t, name, d->why);
	if (!p->refused && !differs)
		return TRIAL_SAME;
	if (!p->refused) {
		t->wrong++;
		fprintf(t->out, "%s: %s: DIFFERS in plan %s%s: %s\n", t->file,
			name, variants[v].name, d->pass ? " (a branch pass)" :
			"", d->why);
		return TRIAL_DIFF;
	}
	t->refused++;
	fprintf(t->out, "%s: %s: plan %s refused by verify; the oracle sees "
		"%s%s%s\n  verify: %s\n", t->file, name, variants[v].name,
		differs ? "it differ: " : "no difference",
		differs ? d->why : "", differs && d->pass ? " (a later branch "
		"pass)" : "", p->verdict);
	return TRIAL_REFUSED;
}

/* The file's status: a wrong plan over an error over a refused plan over
 * identical over skipped. */
static int
worse(int r, int worst)
{
	static const int rank[] = {
		[TRIAL_SKIP] = 0, [TRIAL_SAME] = 1, [TRIAL_REFUSED] = 2,
		[TRIAL_ERROR] = 3, [TRIAL_DIFF] = 4,
	};

	return rank[r] > rank[worst];
}

/* One line per result array: its index and values, as %.9g or ints. */
static void
print_outputs(struct trial *t, const struct outputs *o)
{
	for (int k = 0; k < o->n; k++) {
		const struct leaf *l = &o->leaf[k];
		int es = num_size(l->type);

		fprintf(t->out, "%s", l->path);
		for (int64_t i = 0; es && i * es < l->bytes; i++) {
			char buf[64];

			num_print(l->type, l->data, i, buf, sizeof buf);
			fprintf(t->out, " %s", buf);
		}
		fprintf(t->out, "\n");
	}
}

/* Runs the reference of branch pass `pass`: INTERP_* as interp_run. */
static int
run_reference(struct trial *t, const struct planned *p, int pass,
	      struct outputs *ref)
{
	struct interp_opts io = {
		.mode = INTERP_REF, .seed = t->seed, .budget = t->budget,
		.fill_elided = t->fill_elided,
		.trace = t->trace ? stderr : NULL, .branch = pass - 1,
	};

	return interp_run(p->m, &p->pl, &io, ref, t->why, sizeof t->why);
}

/* One branch pass: the reference, then every plan not yet seen to
 * differ.  TRIAL_SAME, or a TRIAL_* that ends the trial (skip, error). */
static int
run_pass(struct trial *t, struct planned *p, int pass, struct verdict *d,
	 int *nstub)
{
	struct outputs ref;
	int r = run_reference(t, &p[0], pass, &ref);

	if (r == INTERP_LIMIT && pass > 0) {
		fprintf(t->out, "%s: %s: note: branch pass %d left out: its "
			"reference run %s\n", t->file, p->m->name, pass, t->why);
		return TRIAL_SAME;	/* a forced branch may loop forever */
	}
	if (r != INTERP_OK)
		return r == INTERP_SKIP || r == INTERP_LIMIT ? TRIAL_SKIP :
		       TRIAL_ERROR;
	if (t->print && pass == 0)
		print_outputs(t, &ref);
	*nstub = ref.stubs > *nstub ? ref.stubs : *nstub;
	for (int v = 0; v < NVARIANT; v++) {
		if (d[v].status != TRIAL_SAME)
			continue;
		d[v].status = try_plan(t, &p[v], &ref, pass);
		d[v].pass = pass;
		snprintf(d[v].why, sizeof d[v].why, "%s", t->why);
	}
	interp_free(&ref);
	return TRIAL_SAME;
}

static void
report_same(struct trial *t, const struct planned *p, int npass, int nstub)
{
	char stubs[64] = "";

	t->ran++;
	if (t->quiet)
		return;
	if (nstub)
		snprintf(stubs, sizeof stubs, ", ran with %d stub%s", nstub,
			 nstub > 1 ? "s" : "");
	fprintf(t->out, "%s: %s: identical in %d plans, %lld bytes, %d "
		"branch pass%s%s%s\n", t->file, p->m->name, NVARIANT,
		(long long)plan_bytes(&p->pl), npass, npass > 1 ? "es" : "",
		stubs, t->fill_elided ? " (elided constants filled)" : "");
}

/* Every branch pass, then each plan judged. */
static int
run_module(struct trial *t, struct planned *p)
{
	struct verdict d[NVARIANT];
	const char *name = p->m->name;
	int npass = 1 + interp_branches(p->m), nstub = 0;
	int worst = TRIAL_SAME;

	memset(d, 0, sizeof d);
	for (int j = 0; j < npass; j++) {
		int r = run_pass(t, p, j, d, &nstub);

		if (r != TRIAL_SAME)
			return r == TRIAL_SKIP ? skip(t, name, t->why) :
			       fail(t, name, t->why);
	}
	for (int v = 0; v < NVARIANT; v++) {
		int r = judge(t, name, v, &p[v], &d[v]);

		if (r == TRIAL_SKIP || r == TRIAL_ERROR)
			return r;
		if (worse(r, worst))
			worst = r;
	}
	for (int v = 0; v < NVARIANT; v++)
		if (d[v].status == TRIAL_DIFF) {
			t->differed++;
			break;
		}
	if (worst == TRIAL_SAME)
		report_same(t, p, npass, nstub);
	return worst;
}

/* --mutate, --break: the first plan broken on purpose, pass 0. */
static int
run_mutants(struct trial *t, struct planned *p)
{
	struct outputs ref;
	int r = run_reference(t, p, 0, &ref);

	if (r != INTERP_OK)
		return r == INTERP_SKIP || r == INTERP_LIMIT ?
		       skip(t, p->m->name, t->why) :
		       fail(t, p->m->name, t->why);
	if (p->refused)
		fprintf(t->out, "%s: %s: note: plan %s refused by verify: "
			"%s\n", t->file, p->m->name, variants[0].name,
			p->verdict);
	r = t->mutate == MUTATE_CONTRACT ?
	    contract_mutants(t, p, &ref, p->m->name) :
	    mutate(t, p, &ref, p->m->name);
	interp_free(&ref);
	return r;
}

/* A module the oracle cannot run still has its plans judged by verify:
 * a refusal there is reported (TRIAL_REFUSED), else the skip stands. */
static int
refused_unrun(struct trial *t, const char *name, const struct planned *p)
{
	int r = TRIAL_SKIP;

	for (int v = 0; v < NVARIANT; v++) {
		if (!p[v].refused)
			continue;
		t->refused++;
		fprintf(t->out, "%s: %s: plan %s refused by verify (the oracle "
			"does not run it)\n  %s\n", t->file, name,
			variants[v].name, p[v].verdict);
		r = TRIAL_REFUSED;
	}
	return r;
}

/* --identity: each plan, as read back from its JSON, run by value
 * identity (identity.c) and judged as the data run's are. */
static int
identity_module(struct trial *t, struct planned *p)
{
	struct ident_stats s = {0};
	int worst = TRIAL_SAME;

	for (int v = 0; v < NVARIANT; v++) {
		struct verdict d = {0};
		int r;

		d.status = identity_trial(t, p[v].m, &p[v].pl,
					  p[v].params_survive, &s);
		snprintf(d.why, sizeof d.why, "by value identity: %.480s",
			 t->why);
		r = judge(t, p->m->name, v, &p[v], &d);
		if (r == TRIAL_SKIP || r == TRIAL_ERROR)
			return r;
		if (worse(r, worst))
			worst = r;
	}
	if (worst == TRIAL_SAME && !t->quiet)
		fprintf(t->out, "%s: %s: clean by value identity in %d plans: "
			"%lld steps, %lld reads, %lld values, %lld copies, at "
			"most %d ranges\n", t->file, p->m->name, NVARIANT,
			(long long)s.steps, (long long)s.reads,
			(long long)s.values, (long long)s.copies, s.maxranges);
	return worst;
}

/* --identity beside the data run: the two verdicts must agree. */
static int
agree(struct trial *t, struct planned *p, int data)
{
	int r = identity_module(t, p);

	if ((r == TRIAL_SAME) == (data == TRIAL_SAME))
		return data;
	fprintf(t->out, "%s: %s: error: value identity (%d) and data (%d) "
		"disagree\n", t->file, p->m->name, r, data);
	t->failed++;
	return TRIAL_ERROR;
}

static int
trial_module(struct trial *t, const char *text, size_t len, int mod)
{
	struct interp_opts io = {.mode = INTERP_REF,
				 .fill_elided = t->fill_elided};
	struct planned p[NVARIANT];
	const char *name;
	int r;

	if (plan_all(t, text, len, mod, p) < 0)
		return fail(t, "?", t->why);
	name = p[0].m->name;
	if (t->identity == 1 && !t->mutate) {
		r = identity_module(t, p);
	} else if (interp_check(p[0].m, &io, t->why, sizeof t->why) < 0) {
		r = t->identity ? identity_module(t, p) :
		    skip(t, name, t->why);
	} else if (t->max_bytes && plan_bytes(&p[0].pl) > t->max_bytes) {
		snprintf(t->why, sizeof t->why, "the plan needs %lld bytes",
			 (long long)plan_bytes(&p[0].pl));
		r = skip(t, name, t->why);
	} else {
		r = t->mutate ? run_mutants(t, p) : run_module(t, p);
		if (t->identity && !t->mutate)
			r = agree(t, p, r);
	}
	if (r == TRIAL_SKIP)
		r = refused_unrun(t, name, p);
	for (int v = 0; v < NVARIANT; v++)
		pool_free(p[v].pool);
	return r;
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

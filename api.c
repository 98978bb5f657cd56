/* The library API (include/hloplan.h): reads the input, runs the frontend and
 * the driver for each module and target, and hands the plans and diagnostics
 * back as data; hloplan_write picks the writer.  Nothing here prints. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hloplan.h"
#include "checker/verify.h"
#include "codegen/codegen.h"
#include "driver.h"
#include "frontend/frontend.h"
#include "frontend/intervals.h"
#include "frontend/xla_assignment.h"
#include "packer/pack.h"

struct hloplan_result {
	struct pool *pool;	/* owns everything below but text */
	char *text;		/* the input, in pool */
	const char *dep;	/* the input's path for depfiles, or NULL */
	struct diags ds;
	int status;		/* enum hloplan_status */
	struct options opt;	/* for every plan, but the target */
	int targets;		/* HLOPLAN_TARGET_* bits */
	const char *prefix;
	struct driver_opts drv;
	struct hlofile *file;
	const char *constants;	/* options.constants, or NULL */
	struct plan_set set;	/* the plans, for the writers */
	struct xla_assignment xla;	/* set.xla points here when given */
	struct plan *plans;
	const char **prefixes;
	struct hloplan_plan *pub;	/* made on the first hloplan_get_plan:
					   the CLI never asks, and a shape's
					   text a position was a tenth of a
					   large run */
	pthread_mutex_t pub_lock;
	struct hloplan_diag *diags;
	struct stats st;
};

static const struct loc noloc;

const char *
hloplan_version(void)
{
	return HLOPLAN_VERSION;
}

/* ---- options ------------------------------------------------------------ */

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int
is_upper_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int
is_dump_stage(const char *s)
{
	static const char *const stages[] = {
		"ir", "schedule", "hlo", "values", "plan",
	};

	for (size_t i = 0; i < sizeof stages / sizeof *stages; i++)
		if (!strcmp(s, stages[i]))
			return 1;
	return 0;
}

/* What is wrong with the numbers in o, or NULL. */
static const char *
bad_number(const struct hloplan_options *o)
{
	const int *t = o->tpu_tile;

	if (o->targets < 0 || o->targets > HLOPLAN_TARGET_ALL)
		return "targets: expected HLOPLAN_TARGET_* bits";
	if (o->align < 0 || o->align > 1 << 30 || (o->align & (o->align - 1)))
		return "align: expected a power of two up to 2^30";
	if ((t[0] == 0) != (t[1] == 0) || t[0] < 0 || t[1] < 0 ||
	    t[0] > 4096 || t[1] > 4096)
		return "tpu_tile: expected rows and columns from 1 to 4096";
	if (o->effort < 0)
		return "effort: expected a number of steps";
	if (o->schedule < HLOPLAN_SCHEDULE_AUTO ||
	    o->schedule > HLOPLAN_SCHEDULE_MEM)
		return "schedule: expected HLOPLAN_SCHEDULE_*";
	if (o->slots && (o->slots < 2 || o->slots > 64))
		return "slots: expected a number from 2 to 64";
	if (o->threads < 0 || o->threads > HLOPLAN_THREADS_MAX)
		return "threads: expected a number from 0 to 64";
	return NULL;
}

/* What is wrong with the lists and names in o, or NULL. */
static const char *
bad_list(const struct hloplan_options *o, int maxcap)
{
	if (o->ndouble_buffer < 0 || (o->ndouble_buffer && !o->double_buffer))
		return "double_buffer: expected ndouble_buffer names";
	for (int i = 0; i < o->ndouble_buffer; i++)
		if (!o->double_buffer[i] || !*o->double_buffer[i])
			return "double_buffer: expected instruction names";
	if (o->ncapacity < 0 || o->ncapacity > maxcap ||
	    (o->ncapacity && !o->capacities))
		return "capacities: expected at most 16";
	for (int i = 0; i < o->ncapacity; i++)
		if (o->capacities[i].space < 0 || o->capacities[i].bytes < 0)
			return "capacities: expected spaces and bytes >= 0";
	if (o->prefix && !is_upper_ident(o->prefix))
		return "prefix: expected an upper-case C identifier";
	if (o->dump && (!is_dump_stage(o->dump) || !o->dump_file))
		return "dump: expected ir, schedule, hlo, values or plan, and "
		       "a dump_file";
	if (o->constants && !*base_name(o->constants))
		return "constants: expected a file name";
	return NULL;
}

static void
set_lists(struct hloplan_result *r, const struct hloplan_options *o)
{
	struct options *x = &r->opt;
	const char **names;

	names = pool_alloc(r->pool, sizeof *names *
					    (size_t)(o->ndouble_buffer + 1));
	for (int i = 0; i < o->ndouble_buffer; i++)
		names[i] = pool_strdup(r->pool, o->double_buffer[i]);
	x->names = names;
	x->nname = o->ndouble_buffer;
	for (int i = 0; i < o->ncapacity; i++) {
		x->cap[i].space = o->capacities[i].space;
		x->cap[i].bytes = o->capacities[i].bytes;
	}
	x->ncap = o->ncapacity;
}

/* The passes' options from the public ones; zero fields keep defaults. */
static void
set_options(struct hloplan_result *r, const struct hloplan_options *o)
{
	static const int sched[] = {SCHED_AUTO, SCHED_TEXT, SCHED_MEM};
	struct options *x = &r->opt;

	options_default(x);
	if (o->align)
		x->align = o->align;
	x->reuse = !o->no_reuse;
	x->io_in_arena = !o->io_out_of_arena;
	x->reuse_params = o->reuse_params != 0;
	if (o->tpu_tile[0]) {
		x->tpu_tile[0] = o->tpu_tile[0];
		x->tpu_tile[1] = o->tpu_tile[1];
	}
	x->effort = o->effort;
	x->threads = o->threads;
	x->allocators = o->allocators != 0;
	x->schedule = sched[o->schedule];
	x->double_buffer = !o->no_double_buffer;
	if (o->slots)
		x->slots = o->slots;
	set_lists(r, o);
	r->targets = o->targets ? o->targets : HLOPLAN_TARGET_ALL;
	r->prefix = pool_strdup(r->pool, o->prefix ? o->prefix : "HLOPLAN");
	r->drv.dump = o->dump ? pool_strdup(r->pool, o->dump) : NULL;
	r->drv.dumpf = o->dump_file;
	r->drv.stats = &r->st;
	r->constants = o->constants ? pool_strdup(r->pool, o->constants) :
				      NULL;
}

/* ---- planning ----------------------------------------------------------- */

/* Reads a whole file (or stdin for "-") into the pool, NUL-terminated;
 * NULL with errno on failure.  A regular file is read into a buffer of its
 * size (from the pool, whose big blocks fault in huge pages: a 4 MB module
 * took 15 ms to read through doubling mallocs); a pipe, or a file that
 * grows meanwhile, into doubling buffers.  A regular file of more than
 * limit bytes is not read (EFBIG, its size in *len); from anything else
 * no more than limit + 1 bytes are read, for the caller to refuse. */
static char *
read_all(struct pool *pool, const char *path, size_t *len, size_t limit)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0, r;
	struct stat st;
	char *buf, *nb;
	int err = 0;

	if (!f)
		return NULL;
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
	    (uintmax_t)st.st_size > limit) {
		if (f != stdin)
			fclose(f);
		*len = (uintmax_t)st.st_size < SIZE_MAX ? (size_t)st.st_size :
							  SIZE_MAX;
		errno = EFBIG;
		return NULL;
	}
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size < SIZE_MAX / 4)
		cap = (size_t)st.st_size + 1;	/* + 1: the EOF is seen */
	buf = pool_alloc(pool, cap + 1);
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n > limit)
			break;	/* left to the frontend's limit */
		if (n == cap) {
			if (cap > SIZE_MAX / 4)
				break;
			nb = pool_alloc(pool, 2 * cap + 1);
			memcpy(nb, buf, n);
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		err = errno ? errno : EIO;
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	if (err)
		errno = err;
	*len = n;
	return buf;
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
plan_prefix(struct hloplan_result *r, int mod, int target)
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

/* Plans every module for every target asked for; -1 on bad input. */
static int
plan_all(struct hloplan_result *r)
{
	size_t cap = (size_t)(2 * r->file->nmod + 1);
	int n = 0;

	r->plans = pool_alloc(r->pool, sizeof *r->plans * cap);
	r->prefixes = pool_alloc(r->pool, sizeof *r->prefixes * cap);
	for (int i = 0; i < r->file->nmod; i++)
		for (int t = TARGET_GPU; t <= TARGET_TPU; t++) {
			struct options o = r->opt;

			if (!(r->targets & (1 << t)))
				continue;
			o.target = t;
			r->prefixes[n] = plan_prefix(r, i, t);
			r->drv.label = r->prefixes[n];
			if (plan_module(r->pool, &r->ds, &r->file->mods[i], &o,
					&r->drv, &r->plans[n]) < 0)
				return -1;
			n++;
		}
	r->set.nplan = n;
	r->set.plans = r->plans;
	return 0;
}

/* ---- the plans and diagnostics as data ---------------------------------- */

static void
export_buffer(struct hloplan_buffer *d, const struct buffer *b)
{
	d->name = b->name;
	d->flags = b->flags;
	d->space = b->space;
	d->in_arena = b->in_arena;
	d->offset = b->in_arena ? b->offset : -1;
	d->size = b->size;
	d->bytes = b->bytes;
	d->start = b->start;
	d->end = b->end;
	d->slots = b->slots > 1 ? b->slots : 1;
	d->stride = b->slots > 1 ? b->stride : 0;
}

static struct hloplan_position *
export_positions(struct pool *pool, const struct plan *p)
{
	struct hloplan_position *d =
		pool_alloc(pool, sizeof *d * (size_t)(p->npos + 1));

	for (int k = 0; k < p->npos; k++) {
		const struct plan_pos *q = &p->pos[k];

		d[k] = (struct hloplan_position){
			q->comp_name, q->name, q->depth, q->index, q->buf,
			q->defines || q->copied, q->slot, q->param, q->output,
			q->size, codegen_shape_text(pool, q->shape)};
	}
	return d;
}

static void
export_arrays(struct pool *pool, struct hloplan_plan *d, const struct plan *p)
{
	struct hloplan_buffer *bufs;
	struct hloplan_arena *arenas;
	struct hloplan_copy *copies;
	struct hloplan_loop *loops;

	bufs = pool_alloc(pool, sizeof *bufs * (size_t)(p->nbuf + 1));
	for (int i = 0; i < p->nbuf; i++)
		export_buffer(&bufs[i], &p->bufs[i]);
	arenas = pool_alloc(pool, sizeof *arenas * (size_t)(p->narena + 1));
	for (int i = 0; i < p->narena; i++)
		arenas[i] = (struct hloplan_arena){
			p->arenas[i].space, p->arenas[i].size,
			p->arenas[i].lower, p->arenas[i].nbuf};
	copies = pool_alloc(pool, sizeof *copies * (size_t)(p->ncopy + 1));
	for (int i = 0; i < p->ncopy; i++)
		copies[i] = (struct hloplan_copy){
			p->copies[i].src, p->copies[i].dst, p->copies[i].step,
			p->copies[i].after, p->copies[i].bytes,
			p->copies[i].loop};
	loops = pool_alloc(pool, sizeof *loops * (size_t)(p->nloop + 1));
	for (int i = 0; i < p->nloop; i++)
		loops[i] = (struct hloplan_loop){
			p->loops[i].first, p->loops[i].cond_last,
			p->loops[i].step, p->loops[i].parent,
			p->loops[i].trips, p->loops[i].trips_from};
	d->loops = loops;
	d->nloop = p->nloop;
	d->buffers = bufs;
	d->nbuffer = p->nbuf;
	d->arenas = arenas;
	d->narena = p->narena;
	d->copies = copies;
	d->ncopy = p->ncopy;
	d->positions = export_positions(pool, p);
	d->nposition = p->npos;
}

static void
export_allocators(struct pool *pool, struct hloplan_plan *d,
		  const struct plan *p)
{
	struct hloplan_allocator *a =
		pool_alloc(pool, sizeof *a * (size_t)(p->nalloc + 1));

	for (int k = 0; k < p->nalloc; k++) {
		const struct alloc_run *x = &p->allocs[k];

		a[k] = (struct hloplan_allocator){
			x->name, x->peak_reserved, x->peak_allocated,
			x->region, x->exceeded};
	}
	d->nallocator = p->nalloc;
	d->allocators = p->nalloc ? a : NULL;
	d->allocator_buffers = p->alloc_buffers;
}

static void
export_plans(struct hloplan_result *r)
{
	r->pub = pool_alloc(r->pool, sizeof *r->pub *
					     (size_t)(r->set.nplan + 1));
	for (int i = 0; i < r->set.nplan; i++) {
		const struct plan *p = &r->plans[i];
		struct hloplan_plan *d = &r->pub[i];

		d->module = p->module;
		d->target = p->target == TARGET_GPU ? HLOPLAN_TARGET_GPU :
						      HLOPLAN_TARGET_TPU;
		d->prefix = r->prefixes[i];
		d->align = p->align;
		d->nstep = p->ntime;
		d->steps = p->steps;
		d->schedule = p->sched.name ? p->sched.name : "text";
		d->peak = p->sched.peak;
		d->peak_text = p->sched.peak_text;
		d->const_bytes = p->const_bytes;
		d->const_data = p->const_bytes ? p->const_data : NULL;
		d->const_base = codegen_constants_base(&r->set, i);
		export_arrays(r->pool, d, p);
		export_allocators(r->pool, d, p);
	}
}

static struct hloplan_result *
finish(struct hloplan_result *r, int status)
{
	r->status = status;
	r->diags = pool_alloc(r->pool, sizeof *r->diags *
					       (size_t)(r->ds.n + 1));
	for (int i = 0; i < r->ds.n; i++)
		r->diags[i] = (struct hloplan_diag){
			r->ds.file, r->ds.d[i].loc.line, r->ds.d[i].loc.col,
			r->ds.d[i].msg, r->ds.d[i].notes};
	if (status != HLOPLAN_OK)
		r->set.nplan = 0;
	r->set.plans = r->plans;
	r->set.prefixes = r->prefixes;
	return r;
}

static struct hloplan_result *
result_new(const char *name)
{
	struct hloplan_result *r = calloc(1, sizeof *r);

	if (!r)
		abort();	/* out of memory, as in the pool */
	r->pool = pool_new();
	pthread_mutex_init(&r->pub_lock, NULL);
	r->ds.pool = r->pool;
	r->ds.file = pool_strdup(r->pool, name);
	r->set.source = base_name(r->ds.file);
	r->st.start = stats_now();
	return r;
}

/* Parses and plans r->text; the common part of plan_file and plan_string. */
static struct hloplan_result *
run(struct hloplan_result *r, size_t len, const struct hloplan_options *o)
{
	static const struct hloplan_options defaults;
	int maxcap = (int)(sizeof r->opt.cap / sizeof *r->opt.cap);
	const char *why;
	double t0;

	if (!o)
		o = &defaults;
	if ((why = bad_number(o)) || (why = bad_list(o, maxcap))) {
		diag_error(&r->ds, noloc, "invalid option: %s", why);
		return finish(r, HLOPLAN_ERR_OPTIONS);
	}
	set_options(r, o);
	if (o->xla) {
		r->xla = (struct xla_assignment){
			.nalloc = o->xla->nalloc, .total = o->xla->total,
			.params = o->xla->params, .outputs = o->xla->outputs,
			.constants = o->xla->constants,
			.thread_local = o->xla->thread_local,
			.temps = o->xla->temps, .temp_size = o->xla->temp_size,
			.temp_peak = o->xla->temp_peak};
		r->set.xla = &r->xla;
	}
	r->ds.src = r->text;
	r->ds.srclen = len;
	t0 = stats_now();
	r->file = frontend_parse(r->pool, r->text, len, &r->ds);
	r->st.ms[ST_PARSE] += stats_now() - t0;
	if (r->ds.n)
		return finish(r, HLOPLAN_ERR_INPUT);
	if (r->drv.dump && !strcmp(r->drv.dump, "ir")) {
		t0 = stats_now();
		for (int i = 0; i < r->file->nmod; i++)
			ir_print_module(r->drv.dumpf, &r->file->mods[i]);
		r->st.ms[ST_CODEGEN] += stats_now() - t0;
		return finish(r, HLOPLAN_OK);
	}
	if (plan_all(r) < 0 || r->ds.n)
		return finish(r, HLOPLAN_ERR_INPUT);
	return finish(r, HLOPLAN_OK);
}

struct hloplan_result *
hloplan_plan_file(const char *path, const struct hloplan_options *o)
{
	int from_stdin = path && !strcmp(path, "-");
	struct hloplan_result *r = result_new(from_stdin ? "<stdin>" :
					      path ? path : "<null>");
	size_t len;
	double t0;

	if (!path) {
		diag_error(&r->ds, noloc, "no file name");
		return finish(r, HLOPLAN_ERR_IO);
	}
	if (!from_stdin)
		r->dep = r->ds.file;
	t0 = stats_now();
	r->text = read_all(r->pool, path, &len, FRONTEND_MAX_INPUT);
	r->st.ms[ST_READ] += stats_now() - t0;
	if (!r->text && errno == EFBIG) {	/* the frontend's message */
		diag_error(&r->ds, noloc, "input larger than 1 GiB (%zu bytes)",
			   len);
		return finish(r, HLOPLAN_ERR_INPUT);
	}
	if (!r->text) {
		diag_error(&r->ds, noloc, "%s", strerror(errno));
		return finish(r, HLOPLAN_ERR_IO);
	}
	return run(r, len, o);
}

struct hloplan_result *
hloplan_plan_string(const char *text, size_t len, const char *name,
		    const struct hloplan_options *o)
{
	struct hloplan_result *r = result_new(name ? name : "<string>");
	double t0 = stats_now();

	if (name)
		r->dep = r->ds.file;
	r->text = pool_alloc(r->pool, len + 1);
	if (len)
		memcpy(r->text, text, len);
	r->text[len] = 0;
	r->st.ms[ST_READ] += stats_now() - t0;
	return run(r, len, o);
}

void
hloplan_free(struct hloplan_result *r)
{
	if (!r)
		return;
	pool_free(r->pool);
	pthread_mutex_destroy(&r->pub_lock);
	free(r);
}

/* ---- accessors ---------------------------------------------------------- */

int
hloplan_status(const struct hloplan_result *r)
{
	return r->status;
}

int
hloplan_ndiag(const struct hloplan_result *r)
{
	return r->ds.n;
}

const struct hloplan_diag *
hloplan_get_diag(const struct hloplan_result *r, int i)
{
	return i >= 0 && i < r->ds.n ? &r->diags[i] : NULL;
}

int
hloplan_write_diags(const struct hloplan_result *r, FILE *out)
{
	diag_print(&r->ds, out);
	return ferror(out) ? -1 : 0;
}

int
hloplan_nplan(const struct hloplan_result *r)
{
	return r->set.nplan;
}

const struct hloplan_plan *
hloplan_get_plan(const struct hloplan_result *r, int i)
{
	struct hloplan_result *w = (struct hloplan_result *)r;

	if (i < 0 || i >= r->set.nplan)
		return NULL;
	pthread_mutex_lock(&w->pub_lock);	/* callers may share r */
	if (!w->pub)
		export_plans(w);
	pthread_mutex_unlock(&w->pub_lock);
	return &r->pub[i];
}

int
hloplan_nstage(void)
{
	return NSTAGE;
}

const char *
hloplan_stage_name(int stage)
{
	return stage >= 0 && stage < NSTAGE ? stage_names[stage] : NULL;
}

/* The stage times so far into ms[], "other" the part of the run's wall
 * time that no stage covers; returns that wall time, their sum. */
static double
stage_times(const struct hloplan_result *r, double *ms)
{
	double total = stats_now() - r->st.start, sum = 0;

	for (int k = 0; k < ST_OTHER; k++)
		sum += ms[k] = r->st.ms[k];
	ms[ST_OTHER] = total > sum ? total - sum : 0.0;
	return sum + ms[ST_OTHER];
}

double
hloplan_stage_ms(const struct hloplan_result *r, int stage)
{
	double ms[NSTAGE];

	if (stage < 0 || stage >= NSTAGE)
		return 0.0;
	stage_times(r, ms);
	return ms[stage];
}

double
hloplan_total_ms(const struct hloplan_result *r)
{
	double ms[NSTAGE];

	return stage_times(r, ms);
}

/* ---- outputs ------------------------------------------------------------ */

static void
write_header(const struct hloplan_result *r, FILE *out, const char *name)
{
	struct pool *pool = pool_new();
	struct header_opts ho = {"PLAN_H", r->set.source,
				 r->constants ? base_name(r->constants) : NULL};

	if (name && strcmp(name, "-") && *base_name(name))
		ho.guard = upper_ident(pool, base_name(name));
	codegen_header(out, r->set.plans, r->set.prefixes, r->set.nplan, &ho);
	pool_free(pool);
}

/* One output of r in format into out; 0, or -1 with errno. */
static int
write_format(const struct hloplan_result *r, int format, FILE *out,
	     const char *name)
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
		total = stage_times(r, ms);
		codegen_stats(out, &r->set, ms, stage_names, NSTAGE, total);
		break;
	case HLOPLAN_FORMAT_CONSTANTS:
		codegen_constants(out, &r->set);
		break;
	case HLOPLAN_FORMAT_ALLOCATORS:
		codegen_allocators(out, &r->set);
		break;
	case HLOPLAN_FORMAT_STATS_JSON:
		total = stage_times(r, ms);
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

/* Adds to a stage's time: bookkeeping beside the plan, kept even in a
 * result the caller holds as const. */
static void
add_time(const struct hloplan_result *r, int stage, double t0)
{
	((struct hloplan_result *)r)->st.ms[stage] += stats_now() - t0;
}

/* The plan's outputs are timed as the codegen stage of --stats; the
 * statistics are not (their figures end where they begin). */
int
hloplan_write(const struct hloplan_result *r, int format, FILE *out,
	      const char *name)
{
	double t0 = stats_now();
	int ret;

	if (!r || r->status != HLOPLAN_OK || !out) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;	/* what a failed write sets is what is reported */
	ret = write_format(r, format, out, name);
	if (format != HLOPLAN_FORMAT_STATS &&
	    format != HLOPLAN_FORMAT_STATS_JSON &&
	    format != HLOPLAN_FORMAT_ALLOCATORS)
		add_time(r, ST_CODEGEN, t0);
	return ret;
}

/* A path in a Make rule: '$' doubled, '#' and spaces after a backslash,
 * and the backslashes before a space doubled (GCC's mkdeps.c). */
static void
put_make_path(FILE *out, const char *s)
{
	int slashes = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t') {
			for (; slashes > 0; slashes--)
				fputc('\\', out);
			fputc('\\', out);
		} else if (*s == '#') {
			fputc('\\', out);
		} else if (*s == '$') {
			fputc('$', out);
		}
		slashes = *s == '\\' ? slashes + 1 : 0;
		fputc(*s, out);
	}
}

int
hloplan_write_depfile(const struct hloplan_result *r, FILE *out,
		      const char *const *targets, const int *quoted,
		      int ntarget)
{
	double t0 = stats_now();

	if (!r || !out || ntarget < 1 || !targets) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	for (int i = 0; i < ntarget; i++) {
		if (i)
			fputc(' ', out);
		if (quoted && quoted[i])
			put_make_path(out, targets[i]);
		else
			fputs(targets[i], out);
	}
	fputc(':', out);
	if (r->dep) {
		fputc(' ', out);
		put_make_path(out, r->dep);
	}
	fputc('\n', out);
	add_time(r, ST_CODEGEN, t0);
	if (ferror(out)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

struct hloplan_output *
hloplan_output_open_timed(const char *path, const struct hloplan_result *r)
{
	double t0 = stats_now();
	struct hloplan_output *o = hloplan_output_open(path);

	if (o && r) {
		output_time_into(o, &((struct hloplan_result *)r)->st.ms[
					    ST_WRITE]);
		add_time(r, ST_WRITE, t0);
	}
	return o;
}

/* One output file, written whole or not at all (output.c): its opening and
 * commit timed as the write stage, its bytes as codegen. */
int
hloplan_write_file(const struct hloplan_result *r, int format,
		   const char *path)
{
	struct hloplan_output *o = hloplan_output_open_timed(path, r);

	if (!o)
		return -1;
	if (hloplan_write(r, format, hloplan_output_stream(o), path) < 0) {
		hloplan_output_abort(o);
		return -1;
	}
	return hloplan_output_commit(o);
}

/* ---- raw packing problems ------------------------------------------------ */

/* The packed boxes as a plan, for the HLO path's layout verifier: one
 * buffer per box, one arena of the packing's height, alignment 1 (the
 * boxes' own alignments and pins are pack_check's). */
static int
verify_boxes(struct pool *pool, const struct boxes *bx, char *err, size_t n)
{
	struct plan pl = {0};
	struct arena a = {0, bx->height, bx->lower, bx->n, NULL};
	int32_t last = 0;

	pl.align = 1;
	pl.nbuf = bx->n;
	pl.bufs = pool_alloc(pool, sizeof *pl.bufs * (size_t)(bx->n + 1));
	for (int i = 0; i < bx->n; i++) {
		const struct box *b = &bx->b[i];
		struct buffer *x = &pl.bufs[i];

		if (b->end >= INT32_MAX || b->start < 0)
			return snprintf(err, n, "interval too long"), 1;
		x->name = pool_printf(pool, "%lld", (long long)b->id);
		x->bytes = x->size = b->size;
		x->start = (int32_t)b->start;
		x->end = (int32_t)b->end;
		x->slots = 1;
		x->in_arena = 1;
		x->offset = b->offset;
		if (x->end + 1 > last)
			last = x->end + 1;
	}
	pl.ntime = last;
	pl.narena = 1;
	pl.arenas = &a;
	return verify_layout(&pl, err, n) || pack_check(bx, err, n);
}

/* Pinned boxes are the input's: two that overlap are its error. */
static int
pins_overlap(struct pool *pool, const struct boxes *bx, char *err, size_t n)
{
	struct boxes pins = {0};

	pins.b = pool_alloc(pool, sizeof *pins.b * (size_t)(bx->n + 1));
	for (int i = 0; i < bx->n; i++)
		if (bx->b[i].pin >= 0) {
			pins.b[pins.n] = bx->b[i];
			pins.b[pins.n].offset = bx->b[i].pin;
			if (bx->b[i].pin + bx->b[i].size > pins.height)
				pins.height = bx->b[i].pin + bx->b[i].size;
			pins.n++;
		}
	return pins.n > 1 && pack_check(&pins, err, n);
}

int
hloplan_read_xla_assignment(const char *path, struct hloplan_xla *x,
			    char *err, size_t errlen)
{
	struct pool *pool = pool_new();
	struct xla_assignment xa;
	size_t len;
	char *text = read_all(pool, path, &len, SIZE_MAX - 1);
	int r = HLOPLAN_OK;

	memset(x, 0, sizeof *x);
	if (!text) {
		snprintf(err, errlen, "%s", strerror(errno));
		r = HLOPLAN_ERR_IO;
	} else if (xla_assignment_read(text, len, &xa, err, errlen)) {
		r = HLOPLAN_ERR_INPUT;
	} else {
		*x = (struct hloplan_xla){
			.nalloc = xa.nalloc, .total = xa.total,
			.params = xa.params, .outputs = xa.outputs,
			.constants = xa.constants,
			.thread_local = xa.thread_local, .temps = xa.temps,
			.temp_size = xa.temp_size, .temp_peak = xa.temp_peak,
		};
	}
	pool_free(pool);
	return r;
}

int
hloplan_pack_csv(const char *path, const struct hloplan_options *o,
		 FILE *out, FILE *diag, struct hloplan_pack_stats *st)
{
	static const struct hloplan_options none;
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = strcmp(path, "-") ? path :
								   "<stdin>"};
	struct pack_opts po;
	const char *why;
	struct intervals iv;
	char err[512];
	size_t len;
	char *text = read_all(pool, path, &len, SIZE_MAX - 1);
	int status = HLOPLAN_OK;
	double t0;

	if (!text) {
		fprintf(diag, "%s: error: %s\n", ds.file, strerror(errno));
		pool_free(pool);
		return HLOPLAN_ERR_IO;
	}
	ds.src = text;
	ds.srclen = len;
	if (!o)
		o = &none;
	po = (struct pack_opts){.effort = o->effort, .threads = o->threads};
	if ((why = bad_number(o))) {
		fprintf(diag, "hloplan: bad options: %s\n", why);
		status = HLOPLAN_ERR_OPTIONS;
	} else if (intervals_read(pool, text, len, &ds, &iv)) {
		diag_print(&ds, diag);
		status = HLOPLAN_ERR_INPUT;
	} else if (pins_overlap(pool, &iv.bx, err, sizeof err)) {
		fprintf(diag, "%s: error: the offsets given pin buffers that "
			"overlap: %s\n", ds.file, err);
		status = HLOPLAN_ERR_INPUT;
	} else {
		t0 = stats_now();
		pack(&iv.bx, &po);
		if (st) {
			st->buffers = iv.bx.n;
			st->lower = iv.bx.lower;
			st->height = iv.bx.height;
			st->ms = stats_now() - t0;
			st->bound = pack_aligned_bound(&iv.bx);
		}
		if (verify_boxes(pool, &iv.bx, err, sizeof err)) {
			fprintf(diag, "%s: error: internal error: the packing "
				"fails verification: %s\n", ds.file, err);
			status = HLOPLAN_ERR_INPUT;
		} else if (intervals_write(out, &iv) < 0) {
			status = HLOPLAN_ERR_IO;
		}
	}
	pool_free(pool);
	return status;
}

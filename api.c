/* The library API (include/hloplan.h): checks the options, reads the input,
 * runs the driver (parse, then plan each module and target), and hands the
 * result and its diagnostics back as data; it writes only to the streams a
 * caller hands it (--intervals' messages).  The plans as data are
 * api_export.c's, the outputs api_write.c's. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"

static const struct loc noloc;

const char *
hloplan_version(void)
{
	return HLOPLAN_VERSION;
}

/* ---- options ------------------------------------------------------------ */

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
	struct options *x = &r->run.opt;
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
	struct options *x = &r->run.opt;

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
	r->run.targets = o->targets ? o->targets : HLOPLAN_TARGET_ALL;
	r->run.prefix = pool_strdup(r->pool, o->prefix ? o->prefix : "HLOPLAN");
	r->run.drv.dump = o->dump ? pool_strdup(r->pool, o->dump) : NULL;
	r->run.drv.dumpf = o->dump_file;
	r->run.constants = o->constants ? pool_strdup(r->pool, o->constants) :
					  NULL;
}

/* ---- planning ----------------------------------------------------------- */

/* Reads what is left of stream f after the n bytes of head into a
 * buffer that realloc grows (past glibc's mmap threshold it moves pages,
 * not bytes: the input is never held twice), NUL-terminated, malloc'd.
 * The reading stops at the first byte past limit (EFBIG).  NULL with
 * errno on failure. */
static char *
read_stream(FILE *f, const char *head, size_t n, size_t limit, size_t *len)
{
	size_t cap = n > (1 << 16) ? n * 2 : 1 << 16, r;
	char *buf = malloc(cap + 1), *nb;

	if (!buf)
		return NULL;
	if (n)
		memcpy(buf, head, n);	/* a regular file that grew */
	while (n <= limit && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n <= limit && n == cap) {
			cap = cap > limit / 2 ? limit + 1 : cap * 2;
			if (!(nb = realloc(buf, cap + 1))) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
	}
	if (n > limit || ferror(f)) {
		int err = n > limit ? EFBIG : errno ? errno : EIO;

		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Reads a whole file (or stdin for "-"), NUL-terminated; NULL with errno
 * on failure.  Nothing past limit bytes is kept: a regular file larger
 * than that is refused from its size before any of it is read (EFBIG, its
 * size in *len), anything else as soon as a byte past the limit arrives
 * (EFBIG, *len 0).  A regular file is read into a buffer of its size in
 * the pool (whose big blocks fault in huge pages: a 4 MB module took 15 ms
 * to read through doubling mallocs); a pipe, or a file that grows
 * meanwhile, into a malloc'd buffer, *owned, for the caller to free. */
static char *
read_all(struct pool *pool, const char *path, size_t *len, size_t limit,
	 char **owned)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 0, n = 0;
	struct stat st;
	char *buf = NULL;
	int err = 0;

	*owned = NULL;
	*len = 0;
	if (!f)
		return NULL;
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode)) {
		if ((uintmax_t)st.st_size > limit) {
			*len = (uintmax_t)st.st_size < SIZE_MAX ?
			       (size_t)st.st_size : SIZE_MAX;
			err = EFBIG;
		} else {
			cap = (size_t)st.st_size + 1;	/* + 1: EOF is seen */
			buf = pool_alloc(pool, cap + 1);
			n = fread(buf, 1, cap, f);
			err = ferror(f) ? (errno ? errno : EIO) : 0;
		}
	}
	if (!err && n == cap) {		/* not a regular file, or it grew */
		buf = *owned = read_stream(f, buf, n, limit, &n);
		err = buf ? 0 : errno;
	}
	if (f != stdin)
		fclose(f);
	if (err) {
		errno = err;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* read_all's EFBIG as a message: the size, when it was known before
 * reading. */
static void
too_big(struct diags *ds, size_t len)
{
	if (len)
		diag_error(ds, noloc, "input larger than 1 GiB (%zu bytes)",
			   len);
	else
		diag_error(ds, noloc, "input larger than 1 GiB (read no "
			   "further than %zu bytes)", FRONTEND_MAX_INPUT + 1);
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
		r->run.set.nplan = 0;
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
	r->run.pool = r->pool;
	r->run.ds = &r->ds;
	r->run.drv.stats = &r->st;
	r->run.set.source = base_name(r->ds.file);
	r->st.start = stats_now();
	return r;
}

/* Parses and plans r->text; the common part of plan_file and plan_string. */
static struct hloplan_result *
run(struct hloplan_result *r, size_t len, const struct hloplan_options *o)
{
	static const struct hloplan_options defaults;
	int maxcap = (int)(sizeof r->run.opt.cap / sizeof *r->run.opt.cap);
	const char *why;

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
		r->run.set.xla = &r->xla;
	}
	r->ds.src = r->text;
	r->ds.srclen = len;
	if (compile(&r->run, r->text, len) < 0 || r->ds.n)
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
	r->text = read_all(r->pool, path, &len, FRONTEND_MAX_INPUT,
			   &r->owned);
	r->st.ms[ST_READ] += stats_now() - t0;
	if (!r->text && errno == EFBIG) {	/* the frontend's message */
		too_big(&r->ds, len);
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
	free(r->owned);
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
	return r->run.set.nplan;
}

const struct hloplan_plan *
hloplan_get_plan(const struct hloplan_result *r, int i)
{
	struct hloplan_result *w = (struct hloplan_result *)r;

	if (i < 0 || i >= r->run.set.nplan)
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

double
hloplan_stage_ms(const struct hloplan_result *r, int stage)
{
	double ms[NSTAGE];

	if (stage < 0 || stage >= NSTAGE)
		return 0.0;
	stage_times(&r->st, ms);
	return ms[stage];
}

double
hloplan_total_ms(const struct hloplan_result *r)
{
	double ms[NSTAGE];

	return stage_times(&r->st, ms);
}

/* ---- the inputs of the other tools --------------------------------------- */

int
hloplan_read_xla_assignment(const char *path, struct hloplan_xla *x,
			    char *err, size_t errlen)
{
	struct pool *pool = pool_new();
	struct xla_assignment xa;
	size_t len;
	char *owned, *text = read_all(pool, path, &len, FRONTEND_MAX_INPUT,
				      &owned), why[512];
	int r = HLOPLAN_OK;

	memset(x, 0, sizeof *x);
	if (!text && errno == EFBIG) {
		snprintf(err, errlen, "%s: error: larger than 1 GiB", path);
		r = HLOPLAN_ERR_INPUT;
	} else if (!text) {
		snprintf(err, errlen, "%s: error: %s", path, strerror(errno));
		r = HLOPLAN_ERR_IO;
	} else if (xla_assignment_read(text, len, &xa, why, sizeof why)) {
		snprintf(err, errlen, "%s:%s", path, why);
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
	free(owned);
	pool_free(pool);
	return r;
}

/* --intervals (intervals_tool.c): a packing problem in minimalloc's CSV,
 * packed, verified and written with its offsets; messages go to diag. */
int
hloplan_pack_csv(const char *path, const struct hloplan_options *o,
		 FILE *out, FILE *diag, struct hloplan_pack_stats *st)
{
	static const struct hloplan_options none;
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = strcmp(path, "-") ? path :
								   "<stdin>"};
	size_t len;
	char *owned, *text = read_all(pool, path, &len, FRONTEND_MAX_INPUT,
				      &owned);
	const char *why;
	int status;

	if (!o)
		o = &none;
	if (!text) {
		int big = errno == EFBIG;

		if (big)
			too_big(&ds, len);
		else
			diag_error(&ds, noloc, "%s", strerror(errno));
		diag_print(&ds, diag);
		status = big ? HLOPLAN_ERR_INPUT : HLOPLAN_ERR_IO;
	} else if ((why = bad_number(o))) {
		fprintf(diag, "hloplan: bad options: %s\n", why);
		status = HLOPLAN_ERR_OPTIONS;
	} else {
		status = pack_intervals(pool, &ds, text, len, o, out, diag, st);
	}
	free(owned);
	pool_free(pool);
	return status;
}

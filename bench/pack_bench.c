/* The packer on the corpus of raw packing problems (minimalloc's CSVs, with
 * the best known heights of MANIFEST.csv) and on random and trace-tiled ones
 * of 10^5 and 10^6 boxes, each in a child process; every plan is checked. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "packer/pack.h"
#include "problems.h"

enum { MAXREPEAT = 1000, MAXBOXES = 100000000 };
enum { SEED_RANDOM = 42, SEED_TILED = 1 };

static const char usage[] =
	"usage: pack_bench [--effort N] [--greedy] [--repeat N] [--threads N]"
	"\n"
	"                  [--corpus-only | --synthetic-only] "
	"[INTERVALS_DIR]\n"
	"       pack_bench --write-tiled[-hard] N FILE [INTERVALS_DIR]\n"
	"Packs each problem of INTERVALS_DIR/MANIFEST.csv, then random and\n"
	"trace-tiled problems of 10^5 and 10^6 boxes, each in a child\n"
	"process, and prints the height against the lower bound (and the\n"
	"best known), the median time of N runs (--repeat; their plans must\n"
	"be the same) and the child's peak RSS.  The tiled problems are\n"
	"copies of real model traces (somas_resnet50, iopddl_G_1), and of\n"
	"those mixed with minimalloc's hard A-K (\"challenging mix\"); and\n"
	"4 and 35 copies of iopddl_S_1 one after another in time.\n"
	"The greedy column is the best of the greedy portfolio alone.\n"
	"--effort: the packer's budget in steps; --greedy: no improvement\n"
	"phase; --threads: the packer's threads (default: one per processor).\n"
	"The scale table also gives the median time of the check.\n"
	"--write-tiled writes the table's real tiled problem with N\n"
	"boxes as minimalloc's CSV to FILE (- for stdout), for hloplan\n"
	"--intervals, and exits; --write-tiled-hard the challenging mix.\n"
	"Exit status: 0; 1 an invalid or changing plan or a failed run;\n"
	"2 usage or I/O error.\n";

struct opts {
	long effort;
	int greedy_only;
	int threads;
	int corpus, synthetic;
	int repeat;
	const char *dir;	/* the intervals corpus, or NULL */
	long write_n;		/* --write-tiled's boxes, or 0 */
	const char *write_file;
	enum tiled_mix write_mix;
};

enum kind { P_IDLE, P_FILE, P_RANDOM, P_TILED, P_COPIES };

struct problem {
	enum kind kind;
	const char *path;	/* P_FILE, P_COPIES */
	int n;			/* P_RANDOM, P_TILED: boxes; P_COPIES: copies */
	uint64_t seed;
	enum tiled_mix mix;	/* P_TILED */
};

static const char *const mix_label[] = {
	[TILED_REAL] = "tiled real traces",
	[TILED_HARD] = "tiled challenging mix",
};

enum status { OK, INVALID, NO_PROBLEM, FAILED, CHANGED };

static const char *const status_label[] = {
	"", "INVALID PLAN: ", "", "", "NOT DETERMINISTIC: ",
};

/* What a child sends back through its pipe. */
struct result {
	enum status status;
	int n, pieces;
	int64_t lower, greedy, height;
	uint64_t plan;		/* a hash of the offsets */
	long steps;
	double ms, check_ms;	/* packing; pack_check */
	char msg[256];
};

/* The --repeat runs of one problem. */
struct runs {
	struct result r;	/* the first, or the one that went wrong */
	double ms, check_ms;	/* the medians */
	double peak_mib;	/* the largest peak RSS */
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
fail(struct result *r, enum status s, const char *fmt, ...)
{
	va_list ap;

	r->status = s;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof r->msg, fmt, ap);
	va_end(ap);
}

/* ---- in the child -------------------------------------------------------- */

static uint64_t
plan_hash(const struct boxes *bx)
{
	uint64_t h = 14695981039346656037u;	/* FNV-1a, a word at a time */

	for (int i = 0; i < bx->n; i++)
		h = (h ^ (uint64_t)bx->b[i].offset) * 1099511628211u;
	return h;
}

static int
load(const struct opts *o, const struct problem *p, struct boxes *bx,
     struct result *r)
{
	if (p->kind == P_FILE)
		return problem_read(p->path, bx, r->msg, sizeof r->msg);
	if (p->kind == P_TILED)
		return problem_tiled(bx, p->n, o->dir, p->mix, p->seed, r->msg,
				     sizeof r->msg);
	if (p->kind == P_COPIES)
		return problem_copies(bx, p->path, p->n, r->msg,
				      sizeof r->msg);
	problem_random(bx, p->n, p->seed);
	return 0;
}

static void
pack_one(const struct opts *o, struct boxes *bx, struct result *r)
{
	struct pack_stats st = { 0 };
	struct pack_opts po = { .effort = o->effort,
				.greedy_only = o->greedy_only,
				.threads = o->threads, .stats = &st };
	double t0 = now_ms();

	pack(bx, &po);
	r->ms = now_ms() - t0;
	t0 = now_ms();
	if (pack_check(bx, r->msg, sizeof r->msg))
		r->status = INVALID;
	r->check_ms = now_ms() - t0;
	r->n = bx->n;
	r->pieces = st.pieces;
	r->lower = bx->lower;
	r->greedy = st.greedy;
	r->height = bx->height;
	r->steps = st.steps;
	r->plan = plan_hash(bx);
}

/* Loads, packs and checks p (nothing for P_IDLE); writes the result to fd. */
static _Noreturn void
child(const struct opts *o, const struct problem *p, int fd)
{
	struct result r;
	struct boxes bx = { 0 };

	memset(&r, 0, sizeof r);	/* padding too: it goes down a pipe */
	if (p->kind != P_IDLE && load(o, p, &bx, &r))
		r.status = NO_PROBLEM;
	else if (p->kind != P_IDLE)
		pack_one(o, &bx, &r);
	_exit(write(fd, &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
}

/* ---- in the parent ------------------------------------------------------- */

static size_t
read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

/* Runs p in a child: its result in r, its peak RSS in *kib. */
static void
run_child(const struct opts *o, const struct problem *p, struct result *r,
	  long *kib)
{
	struct rusage ru = { 0 };
	int fd[2], status = 0;
	size_t got;
	pid_t pid;

	memset(r, 0, sizeof *r);
	*kib = 0;
	fflush(stdout);
	if (pipe(fd)) {
		fail(r, FAILED, "pipe: %s", strerror(errno));
		return;
	}
	if ((pid = fork()) < 0) {
		fail(r, FAILED, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		close(fd[0]);
		child(o, p, fd[1]);
	}
	close(fd[1]);
	got = read_full(fd[0], r, sizeof *r);
	close(fd[0]);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	*kib = ru.ru_maxrss;	/* KiB on Linux */
	if (WIFSIGNALED(status))
		fail(r, FAILED, "the child died of signal %d (%s)",
		     WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (got != sizeof *r)
		fail(r, FAILED, "the child exited with status %d, no result",
		     WEXITSTATUS(status));
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Run i (from 0) of a deterministic packer must give run 0's plan. */
static void
compare(struct result *first, const struct result *r, int i)
{
	if (r->height != first->height)
		fail(first, CHANGED, "run %d: height %" PRId64 ", run 1: %"
		     PRId64, i + 1, r->height, first->height);
	else if (r->plan != first->plan)
		fail(first, CHANGED, "run %d: other offsets than run 1",
		     i + 1);
}

/* Runs p o->repeat times; 0, or 1 when a run went wrong (in u->r). */
static int
run_problem(const struct opts *o, const struct problem *p, struct runs *u)
{
	double ms[MAXREPEAT], cms[MAXREPEAT];
	struct result r;
	long kib;

	u->peak_mib = 0;
	for (int i = 0; i < o->repeat; i++) {
		run_child(o, p, &r, &kib);
		if ((double)kib / 1024 > u->peak_mib)
			u->peak_mib = (double)kib / 1024;
		if (i == 0 || r.status != OK)
			u->r = r;
		else
			compare(&u->r, &r, i);
		if (u->r.status != OK)
			return 1;
		ms[i] = r.ms;
		cms[i] = r.check_ms;
	}
	u->ms = median(ms, o->repeat);
	u->check_ms = median(cms, o->repeat);
	return 0;
}

static double
ratio(int64_t a, int64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static int
print_failure(const char *name, const struct result *r)
{
	printf("| %-28s | %s%s |\n", name, status_label[r->status], r->msg);
	return 1;
}

static int
bench_file(const struct opts *o, const char *file, long long best)
{
	char path[4096];
	struct problem p = { P_FILE, path, 0, 0, 0 };
	struct runs u;

	snprintf(path, sizeof path, "%s/%s", o->dir, file);
	if (run_problem(o, &p, &u))
		return print_failure(file, &u.r);
	printf("| %-28s | %6d | %10" PRId64 " | %10lld | %10" PRId64
	       " | %10" PRId64 " | %6.4f | %6.4f | %8.1f | %8.1f |\n", file,
	       u.r.n, u.r.lower, best, u.r.greedy, u.r.height,
	       ratio(u.r.height, u.r.lower), ratio(u.r.height, best), u.ms,
	       u.peak_mib);
	return 0;
}

/* MANIFEST.csv: file,buffers,lower_bound,best_known,... */
static int
bench_corpus(const struct opts *o)
{
	char path[4096], line[1024], file[512];
	long long buffers, lower, best;
	FILE *f;
	int bad = 0;

	snprintf(path, sizeof path, "%s/MANIFEST.csv", o->dir);
	if (!(f = fopen(path, "r"))) {
		printf("no %s: corpus skipped\n", path);
		return 0;
	}
	printf("\n| file | buffers | lower | best known | greedy | height | "
	       "h/lower | h/best | ms | peak MiB |\n"
	       "|---|---|---|---|---|---|---|---|---|---|\n");
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%511[^,],%lld,%lld,%lld", file, &buffers,
			   &lower, &best) == 4)
			bad |= bench_file(o, file, best);
	fclose(f);
	return bad;
}

static int
bench_scale_row(const struct opts *o, const struct problem *p)
{
	char name[64];
	struct runs u;

	if (p->kind == P_COPIES)
		snprintf(name, sizeof name, "%d copies of %s", p->n,
			 strrchr(p->path, '/') + 1);
	else
		snprintf(name, sizeof name, "%s, seed %" PRIu64,
			 p->kind == P_TILED ? mix_label[p->mix] : "random",
			 p->seed);
	if (run_problem(o, p, &u))
		return print_failure(name, &u.r);
	printf("| %-29s | %7d | %6d | %10" PRId64 " | %10" PRId64 " | %10"
	       PRId64 " | %6.4f | %10ld | %8.1f | %8.1f | %8.1f |\n", name,
	       u.r.n, u.r.pieces, u.r.lower, u.r.greedy, u.r.height,
	       ratio(u.r.height, u.r.lower), u.r.steps, u.ms, u.check_ms,
	       u.peak_mib);
	return 0;
}

static int
bench_scale(const struct opts *o)
{
	static const int sizes[] = { 100000, 1000000 };
	static const enum tiled_mix mixes[] = { TILED_REAL, TILED_HARD };
	static const int copies[] = { 4, 35 };	/* 114k and 998k boxes */
	char why[2][4200], path[4200];
	int have[2], bad = 0;

	printf("\n| problem | boxes | pieces | lower | greedy | height | "
	       "h/lower | steps | ms | check ms | peak MiB |\n"
	       "|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (int k = 0; k < 2; k++)
		bad |= bench_scale_row(o, &(struct problem){
			P_RANDOM, NULL, sizes[k], SEED_RANDOM, 0 });
	for (int m = 0; m < 2; m++) {
		have[m] = !problem_traces_present(o->dir, mixes[m], why[m],
						  sizeof why[m]);
		for (int k = 0; k < 2 && have[m]; k++)
			bad |= bench_scale_row(o, &(struct problem){
				P_TILED, NULL, sizes[k], SEED_TILED,
				mixes[m] });
	}
	snprintf(path, sizeof path, "%s/idealloc/iopddl_S_1.csv", o->dir);
	for (int k = 0; k < 2 && access(path, R_OK) == 0; k++)
		bad |= bench_scale_row(o, &(struct problem){
			P_COPIES, path, copies[k], 0, 0 });
	for (int m = 0; m < 2; m++)
		if (!have[m])
			printf("\n%s: the %s rows skipped\n", why[m],
			       mix_label[mixes[m]]);
	if (access(path, R_OK) != 0)
		printf("\n%s: the copies rows skipped\n", path);
	return bad;
}

static void
print_preamble(const struct opts *o)
{
	struct result r;
	long kib;
	char threads[48];

	if (o->threads)
		snprintf(threads, sizeof threads, "%d thread%s", o->threads,
			 o->threads > 1 ? "s" : "");
	else
		snprintf(threads, sizeof threads, "threads: one per processor");
	run_child(o, &(struct problem){ P_IDLE, NULL, 0, 0, 0 }, &r, &kib);
	printf("pack_bench: effort %ld steps%s; %s; median ms of %d run%s, each "
	       "in its own child; peak MiB: the child's peak RSS (an idle "
	       "child's: %.1f)\n", o->effort ? o->effort
	       : PACK_EFFORT_DEFAULT, o->greedy_only ? ", greedy only" : "",
	       threads,
	       o->repeat, o->repeat > 1 ? "s" : "", (double)kib / 1024);
}

static int
write_tiled(const struct opts *o)
{
	char err[4200];
	struct boxes bx;
	FILE *f;
	int bad;

	if (problem_tiled(&bx, (int)o->write_n, o->dir, o->write_mix,
			  SEED_TILED, err, sizeof err)) {
		fprintf(stderr, "pack_bench: %s\n", err);
		return 2;
	}
	f = strcmp(o->write_file, "-") ? fopen(o->write_file, "w") : stdout;
	bad = !f || problem_write(f, &bx);
	if (f)
		bad |= f == stdout ? fflush(f) : fclose(f);
	if (bad)
		fprintf(stderr, "pack_bench: cannot write %s: %s\n",
			o->write_file, strerror(errno));
	else
		fprintf(stderr, "pack_bench: %d boxes written to %s\n", bx.n,
			o->write_file);
	free(bx.b);
	return bad ? 2 : 0;
}

/* s as a whole number in [lo, hi]: 0, or -1. */
static int
number(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < lo || *v > hi ? -1 : 0;
}

/* 0, 1 for --help, -1 on a bad argument. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	long v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = argc - 1 - i;	/* arguments after a */

		if (!strcmp(a, "--effort") && more > 0 &&
		    !number(argv[i + 1], 0, LONG_MAX, &o->effort)) {
			i++;
		} else if (!strcmp(a, "--repeat") && more > 0 &&
			   !number(argv[i + 1], 1, MAXREPEAT, &v)) {
			o->repeat = (int)v;
			i++;
		} else if ((!strcmp(a, "--write-tiled") ||
			    !strcmp(a, "--write-tiled-hard")) && more > 1 &&
			   !number(argv[i + 1], 1, MAXBOXES, &o->write_n)) {
			o->write_mix = strcmp(a, "--write-tiled") ?
				       TILED_HARD : TILED_REAL;
			o->write_file = argv[i + 2];
			i += 2;
		} else if (!strcmp(a, "--threads") && more > 0 &&
			   !number(argv[i + 1], 1, 64, &v)) {
			o->threads = (int)v;
			i++;
		} else if (!strcmp(a, "--greedy")) {
			o->greedy_only = 1;
		} else if (!strcmp(a, "--corpus-only")) {
			o->synthetic = 0;
		} else if (!strcmp(a, "--synthetic-only")) {
			o->corpus = 0;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return 1;
		} else if (a[0] == '-') {
			return -1;
		} else {
			o->dir = a;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { .corpus = 1, .synthetic = 1, .repeat = 1 };
	int r, bad = 0;

#ifdef HLOPLAN_CORPUS_DIR
	o.dir = HLOPLAN_CORPUS_DIR "/intervals";
#endif
	if ((r = parse_args(argc, argv, &o)) != 0) {
		fputs(usage, r > 0 ? stdout : stderr);
		return r > 0 ? 0 : 2;
	}
	if (o.write_n)
		return write_tiled(&o);
	if (!o.dir && o.corpus) {
		fputs(usage, stderr);
		return 2;
	}
	print_preamble(&o);
	if (o.corpus)
		bad |= bench_corpus(&o);
	if (o.synthetic)
		bad |= bench_scale(&o);
	return bad;
}

/* The frontend's speed and memory on the corpus: each file is parsed R times
 * in a child process, which reports the median time; the parent reads the
 * child's peak RSS with wait4.  MB/s is of the median wall time; cpu_ms, the
 * median CPU time, shows what other jobs on the machine hide.  Targets:
 * >= 100 MB/s, peak RSS < 10x file. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frontend/frontend.h"

#ifndef HLOPLAN_CORPUS_DIR
#define HLOPLAN_CORPUS_DIR "../shared/corpus"
#endif

enum { R = 5, MAXFILES = 1024 };

/* What a child sends back through its pipe. */
struct result {
	long long bytes;
	long long instrs;
	double median_ms;
	double cpu_ms;		/* median CPU time: what a busy machine hides */
	int errors;
};

static double
clock_ms(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file's bytes in a buffer of exactly its size (NULL on error). */
static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf = NULL;

	if (f && !fstat(fileno(f), &st) &&
	    (buf = malloc((size_t)st.st_size + 1)))
		*len = fread(buf, 1, (size_t)st.st_size, f);
	if (f)
		fclose(f);
	return buf;
}

static long long
count_instrs(const struct hlofile *f)
{
	long long n = 0;

	for (int m = 0; m < f->nmod; m++)
		for (int c = 0; c < f->mods[m].ncomp; c++)
			n += f->mods[m].comps[c].ninstr;
	return n;
}

/* One parse into a fresh pool; returns milliseconds, and the CPU's in
 * *cpu. */
static double
parse_once(const char *text, size_t len, struct result *r, double *cpu)
{
	struct pool *pool = pool_new();
	struct diags ds = {0};
	struct hlofile *f;
	double t0, t1, c0;

	ds.pool = pool;
	c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
	t0 = clock_ms(CLOCK_MONOTONIC);
	f = frontend_parse(pool, text, len, &ds);
	t1 = clock_ms(CLOCK_MONOTONIC);
	*cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
	r->errors = ds.n;
	r->instrs = count_instrs(f);
	pool_free(pool);
	return t1 - t0;
}

/* In the child: read, parse R times, report the median.  With no path,
 * nothing: the RSS every child starts with. */
static void
child(const char *path, int fd)
{
	struct result r = {0};
	double ms[R], cpu[R];
	size_t len = 0;
	char *text = path ? read_file(path, &len) : NULL;

	if (text) {
		r.bytes = (long long)len;
		for (int i = 0; i < R; i++)
			ms[i] = parse_once(text, len, &r, &cpu[i]);
		qsort(ms, R, sizeof ms[0], cmp_double);
		qsort(cpu, R, sizeof cpu[0], cmp_double);
		r.median_ms = ms[R / 2];
		r.cpu_ms = cpu[R / 2];
	} else if (path) {
		r.errors = -1;
	}
	if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(1);
	_exit(0);
}

/* Runs one file in a child; fills r and the child's peak RSS in KiB. */
static int
run(const char *path, struct result *r, long *maxrss_kb)
{
	struct rusage ru;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		child(path, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], r, sizeof *r) != (ssize_t)sizeof *r)
		r->errors = -1;
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	*maxrss_kb = ru.ru_maxrss;
	return 0;
}

static void
report(const char *name, const struct result *r, long rss_kb)
{
	double mb = (double)r->bytes / 1e6, rss = (double)rss_kb / 1024.0;
	double rate = r->median_ms > 0 ? mb / (r->median_ms / 1e3) : 0;

	printf("%-40.40s %9lld %7lld %9.2f %8.2f %8.1f %8.1f %7.1f%s\n",
	       name, r->bytes, r->instrs, r->median_ms, r->cpu_ms, rate, rss,
	       r->bytes ? rss * 1048576.0 / (double)r->bytes : 0.0,
	       r->errors ? "  (errors)" : "");
}

/* The *.hlo names in dir, sorted; returns the count. */
static int
list_hlo(const char *dir, char **names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < MAXFILES) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".hlo"))
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], cmp_str);
	return n;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : HLOPLAN_CORPUS_DIR "/hlo";
	static char *names[MAXFILES];
	int n = list_hlo(dir, names);
	long base = 0, maxrss = 0;
	struct result all = {0};

	if (n < 0) {
		fprintf(stderr, "parse_bench: cannot open '%s'\n", dir);
		return 2;
	}
	printf("parse_bench: %s, median of %d parses, peak RSS of a child "
	       "that reads and parses\n", dir, R);
	if (run(NULL, &(struct result){0}, &base) == 0)
		printf("an idle child's peak RSS: %.1f MiB\n",
		       (double)base / 1024.0);
	printf("%-40s %9s %7s %9s %8s %8s %8s %7s\n", "file", "bytes",
	       "instrs", "median_ms", "cpu_ms", "MB/s", "rss_MiB", "rss/file");
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct result r = {0};
		long rss = 0;

		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (run(path, &r, &rss) < 0) {
			printf("%-40.40s failed\n", names[i]);
		} else {
			report(names[i], &r, rss);
			all.bytes += r.bytes;
			all.instrs += r.instrs;
			all.median_ms += r.median_ms;
			all.cpu_ms += r.cpu_ms;
			all.errors += r.errors;
			maxrss = rss > maxrss ? rss : maxrss;
		}
		free(names[i]);
	}
	/* The sums: MB/s of all the bytes over all the medians. */
	report("all files", &all, maxrss);
	return 0;
}

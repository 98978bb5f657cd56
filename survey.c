/* XLA dumps in, answers out (survey.h).  A module's total is what vs_xla.sh
 * counts: its arenas plus its constants' bytes, against the sum of XLA's
 * allocations; XLA's temporary allocation beside the most of it live at
 * once tells where XLA's packing leaves bytes unused. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "survey.h"

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int
survey_target(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strstr(base, "_gpu_after_optimizations"))
		return HLOPLAN_TARGET_GPU;
	if (strstr(base, "_tpu_after_optimizations"))
		return HLOPLAN_TARGET_TPU;
	return 0;
}

char *
survey_beside(const char *path)
{
	size_t n = strlen(path);
	struct stat st;
	char *s;

	if (!ends_with(path, ".txt") || !(s = malloc(n + 32)))
		return NULL;
	snprintf(s, n + 32, "%.*s-buffer-assignment.txt", (int)(n - 4), path);
	if (stat(s, &st) == 0 && S_ISREG(st.st_mode))
		return s;
	free(s);
	return NULL;
}

int
survey_is_dir(const char *path)
{
	struct stat st;

	return strcmp(path, "-") && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

/* A plan's total, as XLA's is counted: its arenas and its constants. */
static int64_t
plan_total(const struct hloplan_plan *p)
{
	int64_t t = 0;

	for (int k = 0; k < p->narena; k++)
		t += p->arenas[k].size;
	for (int b = 0; b < p->nbuffer; b++)
		if (p->buffers[b].flags & HLOPLAN_BUF_CONST)
			t += p->buffers[b].bytes;
	return t;
}

static const char *
target_name(int t)
{
	return t == HLOPLAN_TARGET_TPU ? "tpu" : "gpu";
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The modules of a directory, by name; NULL (errno set) when it cannot be
 * read. */
static char **
list_dir(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	int cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t len;
		char *s;

		if (!ends_with(e->d_name, "after_optimizations.txt"))
			continue;
		if (*n == cap) {
			char **w = realloc(v, sizeof *v *
						      (size_t)(cap ? cap * 2 :
								     64));
			if (!w)
				break;
			v = w;
			cap = cap ? cap * 2 : 64;
		}
		len = strlen(dir) + strlen(e->d_name) + 2;
		if (!(s = malloc(len)))
			break;
		snprintf(s, len, "%s/%s", dir, e->d_name);
		v[(*n)++] = s;
	}
	closedir(d);
	if (*n > 1)
		qsort(v, (size_t)*n, sizeof *v, cmp_str);
	if (!v)
		v = malloc(sizeof *v);
	return v;
}

struct tally {
	int n, refused, with_xla, above, below, far;
	int64_t xla, plan;	/* over modules with XLA's figures */
	double log_ratio;
};

/* The table's row for one module. */
static int
one(const char *path, const struct hloplan_options *o, int target_given,
    FILE *out, FILE *err, struct tally *t)
{
	struct hloplan_options mo = *o;
	struct hloplan_result *r;
	const struct hloplan_plan *p;
	struct hloplan_xla x;
	char *beside = survey_beside(path), why[256];
	const char *base = strrchr(path, '/');
	int have = 0, code = 0;
	int64_t total;

	base = base ? base + 1 : path;
	if (!target_given && survey_target(path))
		mo.targets = survey_target(path);
	t->n++;
	if (beside) {
		int s = hloplan_read_xla_assignment(beside, &x, why,
						    sizeof why);

		if (s != HLOPLAN_OK)
			fprintf(err, "%s: error: %s\n", beside, why);
		have = s == HLOPLAN_OK;
		code = s != HLOPLAN_OK;
	}
	r = hloplan_plan_file(path, &mo);
	if (hloplan_status(r) != HLOPLAN_OK || !(p = hloplan_get_plan(r, 0))) {
		hloplan_write_diags(r, err);
		fprintf(out, "| %s | refused | | | | | | | |\n", base);
		t->refused++;
		hloplan_free(r);
		free(beside);
		return 1;
	}
	total = plan_total(p);
	if (!have) {
		fprintf(out, "| %s | %s | | | | | %" PRId64 " | | |\n", base,
			target_name(p->target), total);
	} else {
		double ratio = x.total ? (double)total / (double)x.total : 1;

		fprintf(out, "| %s | %s | %" PRId64 " | %" PRId64 " | %" PRId64
			" | %" PRId64 " | %" PRId64 " | %" PRId64 " | %.4f |\n",
			base, target_name(p->target), x.total, x.temp_size,
			x.temp_peak, x.temp_size - x.temp_peak, total,
			x.total - total, ratio);
		t->with_xla++;
		t->xla += x.total;
		t->plan += total;
		t->above += total > x.total + 4096;
		t->below += total < x.total - 4096;
		t->far += ratio < 0.9;
		if (x.total > 0 && total > 0)
			t->log_ratio += log(ratio);
	}
	hloplan_free(r);
	free(beside);
	return code;
}

int
survey_run(const char *const *inputs, int n, const struct hloplan_options *o,
	   int target_given, FILE *out, FILE *err)
{
	struct tally t = {0};
	int code = 0;

	fputs("| module | target | XLA total | XLA temp | XLA temp peak | "
	      "XLA temp unused | hloplan total | saved | ratio |\n"
	      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
	      out);
	for (int i = 0; i < n; i++) {
		char **files;
		int nf;

		if (!survey_is_dir(inputs[i])) {
			code |= one(inputs[i], o, target_given, out, err, &t);
			continue;
		}
		if (!(files = list_dir(inputs[i], &nf))) {
			fprintf(err, "hloplan: cannot read directory '%s'\n",
				inputs[i]);
			code = 1;
			continue;
		}
		if (!nf) {
			fprintf(err, "hloplan: '%s' holds no "
				"*after_optimizations.txt\n", inputs[i]);
			code = 1;
		}
		for (int k = 0; k < nf; k++) {
			code |= one(files[k], o, target_given, out, err, &t);
			free(files[k]);
		}
		free(files);
	}
	fprintf(out, "\n%d modules: %d refused, %d with XLA's assignment "
		"beside them: %d above XLA's total (4 KiB slack), %d below "
		"(%d more than 10%% below); XLA %" PRId64 " bytes, hloplan %"
		PRId64 ", saved %" PRId64 "; geometric mean hloplan/XLA "
		"%.4f\n", t.n, t.refused, t.with_xla, t.above, t.below, t.far,
		t.xla, t.plan, t.xla - t.plan,
		t.with_xla ? exp(t.log_ratio / t.with_xla) : 0.0);
	return t.n ? code : -1;
}

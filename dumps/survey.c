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

#include "dumps/survey.h"

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

/* The modules whose XLA total is at least this many bytes enter the
 * geometric mean: below it, alignment (256 bytes a buffer) and XLA's
 * small allocations dominate a ratio (tiny modules showed 19 and 42). */
#define SURVEY_MEAN_MIN ((int64_t)1 << 20)

struct tally {
	int n, refused, bad_xla, with_xla, above, above_far, below, far;
	int nmean;
	int64_t xla, plan;	/* over modules with XLA's figures */
	double log_ratio;	/* over the nmean modules of the mean */
};

/* The row of a module planned, with XLA's figures x or none; counts it. */
static void
row(FILE *out, const char *base, const struct hloplan_plan *p,
    const struct hloplan_xla *x, struct tally *t)
{
	int64_t total = plan_total(p);
	double ratio;

	if (!x) {
		fprintf(out, "| %s | %s | | | | | %" PRId64 " | | |\n", base,
			target_name(p->target), total);
		return;
	}
	ratio = x->total ? (double)total / (double)x->total : 1;
	fprintf(out, "| %s | %s | %" PRId64 " | %" PRId64 " | %" PRId64
		" | %" PRId64 " | %" PRId64 " | %" PRId64 " | %.4f |\n",
		base, target_name(p->target), x->total, x->temp_size,
		x->temp_peak, x->temp_size - x->temp_peak, total,
		x->total - total, ratio);
	t->with_xla++;
	t->xla += x->total;
	t->plan += total;
	t->above += total > x->total;	/* the rows' saved below 0 */
	t->above_far += total > x->total + 4096;
	t->below += total < x->total;
	t->far += ratio < 0.9;
	if (x->total >= SURVEY_MEAN_MIN && total > 0) {
		t->nmean++;
		t->log_ratio += log(ratio);
	}
}

/* XLA's assignment beside the module at path into x: 1 when read, 0 when
 * there is none, or an exit status (the message on err). */
static int
read_beside(const char *path, struct hloplan_xla *x, FILE *err, int *code)
{
	char *beside = survey_beside(path), why[4096];
	int s;

	if (!beside)
		return 0;
	s = hloplan_read_xla_assignment(beside, x, why, sizeof why);
	free(beside);
	if (s == HLOPLAN_OK)
		return 1;
	fprintf(err, "%s\n", why);
	*code = s == HLOPLAN_ERR_IO ? 2 : *code > 1 ? *code : 1;
	return -1;
}

/* The table's row for one module; returns 0, 1 (bad input) or 2 (a file
 * that cannot be read). */
static int
one(const char *path, const struct hloplan_options *o, int target_given,
    FILE *out, FILE *err, struct tally *t)
{
	struct hloplan_options mo = *o;
	struct hloplan_result *r;
	const struct hloplan_plan *p;
	struct hloplan_xla x;
	const char *base = strrchr(path, '/');
	int code = 0, have;

	base = base ? base + 1 : path;
	if (!target_given && survey_target(path))
		mo.targets = survey_target(path);
	t->n++;
	have = read_beside(path, &x, err, &code);
	r = hloplan_plan_file(path, &mo);
	if (hloplan_status(r) != HLOPLAN_OK || !(p = hloplan_get_plan(r, 0))) {
		hloplan_write_diags(r, err);
		fprintf(out, "| %s | refused | | | | | | | |\n", base);
		t->refused++;
		code = hloplan_status(r) == HLOPLAN_ERR_IO ? 2 :
		       code > 1 ? code : 1;
	} else if (have < 0) {
		fprintf(out, "| %s | %s | error: XLA's assignment | | | | %"
			PRId64 " | | |\n", base, target_name(p->target),
			plan_total(p));
		t->bad_xla++;
	} else {
		row(out, base, p, have ? &x : NULL, t);
	}
	hloplan_free(r);
	return code;
}

/* The modules of every input, directories listed by name, in *files
 * (malloc'd, each malloc'd); returns an exit status for the inputs that
 * could not be listed or hold none (the messages on err). */
static int
gather(const char *const *inputs, int n, char ***files, int *nf, FILE *err)
{
	int code = 0;

	*files = NULL;
	*nf = 0;
	for (int i = 0; i < n; i++) {
		char **v, **w;
		int nv = 1;

		if (!survey_is_dir(inputs[i])) {
			v = malloc(sizeof *v);
			if (v && !(v[0] = strdup(inputs[i])))
				nv = 0;
		} else if (!(v = list_dir(inputs[i], &nv))) {
			fprintf(err, "hloplan: cannot read directory '%s'\n",
				inputs[i]);
			code = 2;
			continue;
		} else if (!nv) {
			fprintf(err, "hloplan: '%s' holds no "
				"*after_optimizations.txt\n", inputs[i]);
			code = code ? code : 1;
		}
		w = v ? realloc(*files, sizeof *w * (size_t)(*nf + nv)) : NULL;
		if (!w) {
			fputs("hloplan: out of memory\n", err);
			free(v);
			return 2;
		}
		*files = w;
		memcpy(w + *nf, v, sizeof *v * (size_t)nv);
		*nf += nv;
		free(v);
	}
	return code;
}

static void
summary(FILE *out, const struct tally *t)
{
	fprintf(out, "\n%d modules: %d refused, %d with XLA's assignment "
		"beside them", t->n, t->refused, t->with_xla);
	if (t->bad_xla)
		fprintf(out, ", %d beside an assignment in error", t->bad_xla);
	fprintf(out, ": %d above XLA's total (%d of them by more than 4 KiB), "
		"%d below (%d more than 10%% below); XLA %" PRId64 " bytes, "
		"hloplan %" PRId64 ", saved %" PRId64 "; hloplan/XLA over all "
		"bytes %.4f", t->above, t->above_far, t->below, t->far,
		t->xla, t->plan, t->xla - t->plan,
		t->xla ? (double)t->plan / (double)t->xla : 0.0);
	if (t->nmean)
		fprintf(out, ", geometric mean %.4f over the %d modules of 1 "
			"MiB or more in XLA\n", exp(t->log_ratio / t->nmean),
			t->nmean);
	else
		fputs(", no module of 1 MiB or more in XLA for a geometric "
		      "mean\n", out);
}

int
survey_run(const char *const *inputs, int n, const struct hloplan_options *o,
	   int target_given, FILE *out, FILE *err)
{
	struct tally t = {0};
	char **files;
	int nf, code = gather(inputs, n, &files, &nf, err);

	if (!nf) {
		free(files);
		return code > 1 ? -2 : -1;
	}
	fputs("| module | target | XLA total | XLA temp | XLA temp peak | "
	      "XLA temp unused | hloplan total | saved | ratio |\n"
	      "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
	      out);
	for (int k = 0; k < nf; k++) {
		int c = one(files[k], o, target_given, out, err, &t);

		code = c > code ? c : code;
		free(files[k]);
	}
	free(files);
	summary(out, &t);
	return code;
}

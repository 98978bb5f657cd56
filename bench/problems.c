/* Packing problems for pack_bench (see problems.h).  A tiled problem is a
 * run of copies of real traces, each scaled by whole factors to a common
 * span and peak (which keeps its packing problem as it was), then shifted. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "packer/intervals.h"
#include "packer/pack.h"
#include "problems.h"

/* The traces a tiled problem is made of: minimalloc's A-K, chosen to be
 * hard to pack, then the last NREAL, real model traces.  TILED_REAL takes
 * those, TILED_HARD all.  iopddl_S_1 is left out: its 28526 boxes would be
 * most of every problem. */
static const char *const trace_file[] = {
	"minimalloc/A.1048576.csv", "minimalloc/B.1048576.csv",
	"minimalloc/C.1048576.csv", "minimalloc/D.1048576.csv",
	"minimalloc/E.1048576.csv", "minimalloc/F.1048576.csv",
	"minimalloc/G.1048576.csv", "minimalloc/H.1048576.csv",
	"minimalloc/I.1048576.csv", "minimalloc/J.1048576.csv",
	"minimalloc/K.1048576.csv", "idealloc/somas_resnet50.csv",
	"idealloc/iopddl_G_1.csv",
};

enum { NTRACE = sizeof trace_file / sizeof trace_file[0], NREAL = 2 };

struct trace {
	struct boxes bx;	/* bx.lower: its peak */
	int64_t t0, span;	/* first step; steps up to the last end */
	int64_t tf, sf;		/* time and size factors */
};

static uint64_t
next_rand(uint64_t *s)	/* splitmix64 */
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			buf = pack_xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

static void
copy_boxes(struct boxes *dst, const struct boxes *src)
{
	size_t bytes = (size_t)src->n * sizeof *src->b;

	*dst = (struct boxes){ .n = src->n, .b = pack_xmalloc(bytes + 1) };
	memcpy(dst->b, src->b, bytes);
}

int
problem_read(const char *path, struct boxes *bx, char *err, size_t errlen)
{
	struct pool *pool;
	struct diags ds = { .file = path };
	struct intervals iv;
	size_t len;
	char *text = slurp(path, &len);
	int nerr;

	if (!text) {
		snprintf(err, errlen, "cannot read %s", path);
		return -1;
	}
	ds.pool = pool = pool_new();
	if ((nerr = intervals_read(pool, text, len, &ds, &iv)) != 0) {
		ds.src = text;
		ds.srclen = len;
		diag_print(&ds, stderr);
		snprintf(err, errlen, "%s: %d error%s (on stderr)", path, nerr,
			 nerr > 1 ? "s" : "");
	} else {
		copy_boxes(bx, &iv.bx);
	}
	free(text);
	pool_free(pool);
	return nerr ? -1 : 0;
}

void
problem_random(struct boxes *bx, int n, uint64_t seed)
{
	*bx = (struct boxes){ .n = n };
	bx->b = pack_xcalloc((size_t)n + 1, sizeof *bx->b);
	for (int i = 0; i < n; i++) {
		struct box *b = &bx->b[i];
		uint64_t r = next_rand(&seed);
		int64_t life = 1 + (int64_t)(r % 16);

		if (r % 100 < 10)
			life = 1 + (int64_t)(next_rand(&seed) % 1000);
		if (r % 10000 == 0)
			life = 1 + (int64_t)(next_rand(&seed) % (uint64_t)n);
		b->start = i;
		b->end = i + life - 1;
		b->size = 256 << (next_rand(&seed) % 15);
		b->align = 256;
		b->pin = -1;
		b->id = i;
	}
}

/* The first of mix's traces in trace_file; they run to the end. */
static int
first_trace(enum tiled_mix mix)
{
	return mix == TILED_REAL ? NTRACE - NREAL : 0;
}

int
problem_traces_present(const char *dir, enum tiled_mix mix, char *err,
		       size_t errlen)
{
	char path[4096];

	if (!dir) {
		snprintf(err, errlen, "no intervals directory");
		return -1;
	}
	for (int i = first_trace(mix); i < NTRACE; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, trace_file[i]);
		if (access(path, R_OK)) {
			snprintf(err, errlen, "no %s", path);
			return -1;
		}
	}
	return 0;
}

/* Its first step, span and peak. */
static void
measure(struct trace *t)
{
	int64_t last = INT64_MIN;

	t->t0 = INT64_MAX;
	for (int i = 0; i < t->bx.n; i++) {
		if (t->bx.b[i].start < t->t0)
			t->t0 = t->bx.b[i].start;
		if (t->bx.b[i].end > last)
			last = t->bx.b[i].end;
	}
	t->span = last + 1 - t->t0;
	t->bx.lower = pack_lower_bound(&t->bx);
}

/* Reads mix's traces into t[first_trace(mix)..] and gives each the whole
 * factors that bring its span and peak closest to (not above) the largest
 * of them. */
static int
load_traces(struct trace *t, const char *dir, enum tiled_mix mix, char *err,
	    size_t errlen)
{
	char path[4096];
	int64_t span = 1, peak = 1;

	if (problem_traces_present(dir, mix, err, errlen))
		return -1;
	for (int i = first_trace(mix); i < NTRACE; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, trace_file[i]);
		if (problem_read(path, &t[i].bx, err, errlen))
			return -1;
		if (t[i].bx.n == 0) {
			snprintf(err, errlen, "%s: no boxes", path);
			return -1;
		}
		measure(&t[i]);
		span = t[i].span > span ? t[i].span : span;
		peak = t[i].bx.lower > peak ? t[i].bx.lower : peak;
	}
	for (int i = first_trace(mix); i < NTRACE; i++) {
		t[i].tf = span / t[i].span;
		t[i].sf = peak / t[i].bx.lower;
	}
	return 0;
}

/* Appends a copy of t whose first step is at, or as much of it as fits in
 * want boxes.  Scaling the half-open [start, end + 1) keeps which boxes
 * meet. */
static void
lay_copy(struct boxes *bx, int want, const struct trace *t, int64_t at)
{
	int m = t->bx.n < want - bx->n ? t->bx.n : want - bx->n;

	for (int i = 0; i < m; i++) {
		const struct box *s = &t->bx.b[i];
		struct box *d = &bx->b[bx->n];

		*d = *s;
		d->start = at + (s->start - t->t0) * t->tf;
		d->end = at + (s->end + 1 - t->t0) * t->tf - 1;
		d->size = s->size * t->sf;
		d->pin = -1;
		d->offset = 0;
		d->id = bx->n++;
	}
}

int
problem_tiled(struct boxes *bx, int n, const char *dir, enum tiled_mix mix,
	      uint64_t seed, char *err, size_t errlen)
{
	struct trace t[NTRACE] = { 0 };
	int64_t at = 0;
	int first = first_trace(mix);
	uint64_t ntrace = (uint64_t)(NTRACE - first);
	int bad = load_traces(t, dir, mix, err, errlen);

	*bx = (struct boxes){ 0 };
	if (!bad)
		bx->b = pack_xmalloc((size_t)n * sizeof *bx->b + 1);
	while (!bad && bx->n < n) {
		const struct trace *c = &t[first + next_rand(&seed) % ntrace];
		int64_t len = c->span * c->tf;

		lay_copy(bx, n, c, at);
		/* the next copy starts 5/8 to 7/8 of the way into this one */
		at += len - len / 4 - len / 8 +
		      (int64_t)(next_rand(&seed) % (uint64_t)(len / 4 + 1));
	}
	for (int i = 0; i < NTRACE; i++)
		free(t[i].bx.b);
	return bad;
}

int
problem_copies(struct boxes *bx, const char *path, int k, char *err,
	       size_t errlen)
{
	struct boxes one;
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	*bx = (struct boxes){ 0 };
	if (problem_read(path, &one, err, errlen))
		return -1;
	for (int i = 0; i < one.n; i++) {
		lo = one.b[i].start < lo ? one.b[i].start : lo;
		hi = one.b[i].end > hi ? one.b[i].end : hi;
	}
	bx->b = pack_xmalloc((size_t)one.n * (size_t)k * sizeof *bx->b + 1);
	for (int c = 0; c < k; c++)
		for (int i = 0; i < one.n; i++) {
			struct box *b = &bx->b[bx->n];

			*b = one.b[i];
			b->start += c * (hi - lo + 1);
			b->end += c * (hi - lo + 1);
			b->id = bx->n++;
		}
	free(one.b);
	return 0;
}

int
problem_write(FILE *out, const struct boxes *bx)
{
	int align = 0;

	for (int i = 0; i < bx->n; i++)
		align |= bx->b[i].align != 1;
	fputs(align ? "id,lower,upper,size,alignment\n"
		    : "id,lower,upper,size\n", out);
	for (int i = 0; i < bx->n; i++) {
		const struct box *b = &bx->b[i];

		fprintf(out, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64,
			b->id, b->start, b->end + 1, b->size);
		if (align)
			fprintf(out, ",%" PRId64, b->align);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}

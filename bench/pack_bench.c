/* The packer on the corpus of raw packing problems (minimalloc's CSVs, with
 * the lower bound and best known height from MANIFEST.csv) and on random
 * problems of 10^5 and 10^6 boxes; every plan is checked.  Not a test. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/intervals.h"
#include "passes/pack.h"

struct opts {
	long effort;
	int greedy_only;
	int corpus, synthetic;
	const char *dir;
};

static double
now_ms(void)
{
	struct timespec ts;

	timespec_get(&ts, TIME_UTC);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
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
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

/* Packs, checks, and prints what it took; returns 1 on a bad plan. */
static int
run(struct boxes *bx, const struct opts *o, struct pack_stats *st,
    double *ms)
{
	struct pack_opts po = { o->effort, o->greedy_only, st };
	char err[256];
	double t0 = now_ms();

	pack(bx, &po);
	*ms = now_ms() - t0;
	if (pack_check(bx, err, sizeof err)) {
		printf("INVALID PLAN: %s\n", err);
		return 1;
	}
	return 0;
}

static int
bench_file(const struct opts *o, const char *file, long long best)
{
	char path[4096];
	struct pool *pool = pool_new();
	struct diags ds = { .pool = pool, .file = path };
	struct intervals iv;
	struct pack_stats st;
	size_t len;
	char *text;
	double ms;
	int bad = 1;

	snprintf(path, sizeof path, "%s/%s", o->dir, file);
	if (!(text = slurp(path, &len))) {
		printf("| %s | cannot read |\n", file);
	} else if (intervals_read(pool, text, len, &ds, &iv)) {
		ds.src = text;
		ds.srclen = len;
		diag_print(&ds, stdout);
	} else if (!(bad = run(&iv.bx, o, &st, &ms))) {
		printf("| %-28s | %6d | %10" PRId64 " | %10lld | %10" PRId64
		       " | %10" PRId64 " | %6.4f | %6.4f | %8.1f |\n", file,
		       iv.bx.n, iv.bx.lower, best, st.greedy, iv.bx.height,
		       (double)iv.bx.height / iv.bx.lower,
		       (double)iv.bx.height / best, ms);
	}
	free(text);
	pool_free(pool);
	return bad;
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
	printf("| file | buffers | lower | best known | greedy | height | "
	       "h/lower | h/best | ms |\n|---|---|---|---|---|---|---|---|"
	       "---|\n");
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%511[^,],%lld,%lld,%lld", file, &buffers,
			   &lower, &best) == 4)
			bad |= bench_file(o, file, best);
	fclose(f);
	return bad;
}

static uint64_t
next_rand(uint64_t *s)	/* splitmix64 */
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* A trace-like problem: one buffer born per step, most short-lived, some
 * long; sizes log-uniform from 256 B to 4 MiB, in 256-byte units. */
static void
synth(struct boxes *bx, int n, uint64_t seed)
{
	bx->n = n;
	bx->b = calloc((size_t)n, sizeof *bx->b);
	if (!bx->b)
		abort();
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

static int
bench_synthetic(const struct opts *o)
{
	static const int sizes[] = { 100000, 1000000 };
	int bad = 0;

	printf("\n| synthetic | boxes | pieces | lower | greedy | height | "
	       "h/lower | steps | ms |\n|---|---|---|---|---|---|---|---|"
	       "---|\n");
	for (int k = 0; k < 2; k++) {
		struct boxes bx = { 0 };
		struct pack_stats st;
		double ms;

		synth(&bx, sizes[k], 42);
		if (!(bad |= run(&bx, o, &st, &ms)))
			printf("| seed 42 | %7d | %6d | %10" PRId64 " | %10"
			       PRId64 " | %10" PRId64 " | %6.4f | %10ld | "
			       "%8.1f |\n", bx.n, st.pieces, bx.lower,
			       st.greedy, bx.height,
			       (double)bx.height / bx.lower, st.steps, ms);
		free(bx.b);
	}
	return bad;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0, 0, 1, 1, NULL };

#ifdef HLOPLAN_CORPUS_DIR
	o.dir = HLOPLAN_CORPUS_DIR "/intervals";
#endif
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--effort") && i + 1 < argc)
			o.effort = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--greedy"))
			o.greedy_only = 1;
		else if (!strcmp(argv[i], "--corpus-only"))
			o.synthetic = 0;
		else if (!strcmp(argv[i], "--synthetic-only"))
			o.corpus = 0;
		else
			o.dir = argv[i];
	}
	if (!o.dir && o.corpus) {
		fputs("usage: pack_bench [--effort N] [--greedy] "
		      "[--corpus-only|--synthetic-only] [INTERVALS_DIR]\n",
		      stderr);
		return 2;
	}
	if (o.corpus)
		bad |= bench_corpus(&o);
	if (o.synthetic)
		bad |= bench_synthetic(&o);
	return bad;
}

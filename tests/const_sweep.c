/* The constants sweep: every constant of every module of the corpus (hlo/
 * and xla-tests/), planned for the GPU and the TPU, must encode without a
 * crash, inside const_data; prints how many are known, elided ({...}) and
 * given up.  Each known GPU array in row-major order, unpacked, must hold
 * the bytes the oracle's own literal reader (tests/oracle/literal.c) gives.
 * Exits 77 (skipped) without the corpus, 1 on a difference.
 *   const_sweep CORPUS_DIR [-v]	(-v: each constant given up) */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "frontend/frontend.h"
#include "tests/oracle/exec.h"

struct tally {
	long modules, refused, known, elided, given_up;
	long compared, differ, zero_sign;
};

static int verbose;

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir ending in suffix (or, with suffix NULL, every entry
 * but dot ones), sorted; NULL when dir cannot be read. */
static char **
list_dir(const char *dir, const char *suffix, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	int cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), s = suffix ? strlen(suffix) : 0;

		if (e->d_name[0] == '.' ||
		    (suffix && (l < s || strcmp(e->d_name + l - s, suffix))))
			continue;
		if (*n == cap)
			v = realloc(v, sizeof *v * (size_t)(cap = 2 * cap + 16));
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(v, (size_t)*n, sizeof *v, cmp_str);
	return v;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *t;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	*len = (size_t)ftell(fp);
	rewind(fp);
	t = malloc(*len + 1);
	if (fread(t, 1, *len, fp) != *len)
		*len = 0;
	fclose(fp);
	return t;
}

/* Is "..." in the literal text (an elided array)? */
static int
elided(const struct instr *in)
{
	for (int k = 0; in->literal && k + 3 <= in->literal_len; k++)
		if (!memcmp(in->literal + k, "...", 3))
			return 1;
	return 0;
}

/* Is the array laid out as the oracle lays its arrays out: row-major, a
 * byte or more per element, static? */
static int
plain(const struct shape *s)
{
	if (s->elem_bits || shape_is_dynamic(s))
		return 0;
	for (int k = 0; s->has_layout && k < s->rank; k++)
		if (s->m2m[k] != s->rank - 1 - k)
			return 0;
	return 1;
}

/* Do a and b differ only in zeros' signs (elements of `size` bytes)?  XLA
 * lexes "-0" as the integer 0, so a float "-0" is +0.0 (ParseDouble); the
 * oracle's strtod reads -0.0. */
static int
zero_sign_only(const unsigned char *a, const unsigned char *b, int64_t n,
	       int size)
{
	static const unsigned char zero[16];

	for (int64_t i = 0; i + size <= n; i += size) {
		if (!memcmp(a + i, b + i, (size_t)size))
			continue;
		if (memcmp(a + i, zero, (size_t)size - 1) ||
		    memcmp(b + i, zero, (size_t)size - 1) ||
		    (a[i + size - 1] | b[i + size - 1]) != 0x80)
			return 0;
	}
	return 1;
}

/* Compares a known GPU constant with the oracle's reading of its literal
 * (when the oracle reads it: it does not take every literal). */
static void
compare(const char *path, const struct plan *pl, const struct plan_const *c,
	const struct instr *in, struct tally *t)
{
	const struct plan_pos *q = &pl->pos[c->pos];
	int n = shape_nodes(&in->shape);
	unsigned char **out = calloc((size_t)n, sizeof *out);
	int64_t bytes = shape_bytes(q->shape);
	char why[256];

	for (int k = 0; k < n; k++)
		out[k] = calloc(1, (size_t)node_bytes(node_shape(&in->shape,
								 k)) + 16);
	if (literal_write(in, out, why, sizeof why) == 0) {
		const unsigned char *mine = pl->const_data + c->offset;

		t->compared++;
		if (num_kind(q->shape->type) == NK_F &&
		    zero_sign_only(out[q->node], mine, bytes,
				   num_size(q->shape->type)) &&
		    memcmp(out[q->node], mine, (size_t)bytes)) {
			t->zero_sign++;
		} else if (memcmp(out[q->node], mine, (size_t)bytes)) {
			t->differ++;
			printf("  differs: %s %s: %.*s\n", path, q->name,
			       in->literal_len < 80 ? in->literal_len : 80,
			       in->literal);
		}
	}
	for (int k = 0; k < n; k++)
		free(out[k]);
	free(out);
}

/* Counts one plan's constants; aborts when a known one lies outside
 * const_data, one not known has a place, or one is not sized as its
 * position's shape. */
static void
count(const char *path, const struct plan *pl, const struct options *o,
      const struct module *m, struct tally *t)
{
	for (int k = 0; k < pl->nconst; k++) {
		const struct plan_const *c = &pl->consts[k];
		const struct plan_pos *q = &pl->pos[c->pos];
		const struct instr *in = &m->comps[q->comp].instrs[q->instr];

		if ((c->known ? c->offset < 0 || c->offset % 64 ||
				c->offset + c->bytes > pl->const_bytes
			      : c->offset != -1) ||
		    c->bytes != target_size(o, q->shape)) {
			fprintf(stderr, "%s: %s: bad place\n", path, q->name);
			abort();
		}
		if (c->known) {
			t->known++;
			if (o->target == TARGET_GPU && plain(q->shape))
				compare(path, pl, c, in, t);
		}
		else if (elided(in))
			t->elided++;
		else {
			t->given_up++;
			if (verbose)
				printf("  given up: %s %s %s: %.*s\n", path,
				       q->name, dtype_name(q->shape->type),
				       in->literal_len < 80 ? in->literal_len
							    : 80, in->literal);
		}
	}
}

/* Plans every module of one file for one target, counting. */
static void
sweep_file(const char *path, int target, struct tally *t)
{
	size_t len;
	char *text = slurp(path, &len);
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = path};
	struct hlofile *f = text ? frontend_parse(pool, text, len, &ds) : NULL;

	for (int i = 0; f && ds.n == 0 && i < f->nmod; i++) {
		struct options o;
		struct plan pl;

		memset(&pl, 0, sizeof pl);
		options_default(&o);
		o.target = target;
		o.schedule = SCHED_TEXT;	/* constants do not care */
		t->modules++;
		if (plan_module(pool, &ds, &f->mods[i], &o, NULL, &pl) != 0) {
			t->refused++;
			ds.n = 0;
			continue;
		}
		count(path, &pl, &o, &f->mods[i], t);
	}
	pool_free(pool);
	free(text);
}

static void
sweep_dir(const char *dir, int target, struct tally *t)
{
	int n;
	char **names = list_dir(dir, ".hlo", &n);
	char path[4096];

	for (int k = 0; k < n; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[k]);
		sweep_file(path, target, t);
		free(names[k]);
	}
	free(names);
}

/* hlo/ and each folder of xla-tests/. */
static void
sweep(const char *corpus, int target, struct tally *t)
{
	char dir[4096];
	int n;
	char **sub;

	snprintf(dir, sizeof dir, "%s/hlo", corpus);
	sweep_dir(dir, target, t);
	snprintf(dir, sizeof dir, "%s/xla-tests", corpus);
	sub = list_dir(dir, NULL, &n);
	for (int k = 0; k < n; k++) {
		snprintf(dir, sizeof dir, "%s/xla-tests/%s", corpus, sub[k]);
		sweep_dir(dir, target, t);
		free(sub[k]);
	}
	free(sub);
}

int
main(int argc, char **argv)
{
	static const char *names[] = {"gpu", "tpu"};
	char probe[4096];
	int n;
	long bad = 0;
	char **files;

	if (argc < 2) {
		fprintf(stderr, "usage: const_sweep CORPUS_DIR [-v]\n");
		return 2;
	}
	verbose = argc > 2 && !strcmp(argv[2], "-v");
	snprintf(probe, sizeof probe, "%s/hlo", argv[1]);
	if (!(files = list_dir(probe, ".hlo", &n)) || n == 0) {
		printf("no corpus at %s: skipped\n", argv[1]);
		return 77;
	}
	for (int k = 0; k < n; k++)
		free(files[k]);
	free(files);
	for (int tg = 0; tg < 2; tg++) {
		struct tally t = {0};

		sweep(argv[1], tg == 0 ? TARGET_GPU : TARGET_TPU, &t);
		printf("%s: %ld modules (%ld not planned): constants %ld "
		       "known, %ld elided, %ld given up", names[tg],
		       t.modules, t.refused, t.known, t.elided, t.given_up);
		if (tg == 0)
			printf("; %ld compared with the oracle's reading, %ld "
			       "differ, %ld only in a zero's sign (\"-0\")",
			       t.compared, t.differ, t.zero_sign);
		printf("\n");
		bad += t.differ;
	}
	return bad ? 1 : 0;
}

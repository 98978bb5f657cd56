/* Mutation test of the verifier: plans each module (GPU), asks the verifier
 * where and when every value is intact (verify_spans), then, for pairs of
 * values in two buffers whose intact spans overlap in time, moves the
 * second buffer so that the two values share their first byte, and checks
 * that verify_plan refuses the plan.  With --oracle, each broken plan is
 * also run by the oracle, to count how many it sees.
 * usage: verify_mutate [--per-module N] [--oracle] FILE.hlo...
 * Exit 0 when every mutation was refused, 1 otherwise, 2 on errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/verify.h"
#include "driver.h"
#include "frontend/frontend.h"
#include "tests/oracle/interp.h"

struct tally {
	long tried, refused, seen, oracle_ran;
};

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1))) {
		if (f)
			fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = 0;
	fclose(f);
	return buf;
}

static int64_t
arena_size(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return pl->arenas[a].size;
	return -1;
}

/* Is path a inside path b (or b itself)? */
static int
inside(const struct verify_trace *tr, int a, int b)
{
	for (; a >= 0; a = tr->parent[a])
		if (a == b)
			return 1;
	return 0;
}

/* Do the spans of two values intersect, on one path through the
 * branches, both read, in two buffers of one arena? */
static int
overlapping(const struct plan *pl, const struct verify_trace *tr,
	    const struct verify_span *x, const struct verify_span *y)
{
	const struct buffer *a, *b;

	if (!inside(tr, x->path, y->path) && !inside(tr, y->path, x->path))
		return 0;
	if (x->buf < 0 || y->buf < 0 || x->buf == y->buf || x->last < 0 ||
	    y->last < 0 || x->bytes <= 0 || y->bytes <= 0)
		return 0;
	a = &pl->bufs[x->buf];
	b = &pl->bufs[y->buf];
	return a->in_arena && b->in_arena && a->space == b->space &&
	       x->first <= y->last && y->first <= x->last;
}

/* Does the oracle see the broken plan differ from the reference? */
static int
oracle_sees(const struct module *m, const struct plan *pl,
	    const struct outputs *ref)
{
	struct interp_opts io = {.mode = INTERP_PLANNED, .seed = 1,
				 .budget = 4 * ref->work + 100000,
				 .fill_elided = 1};
	struct outputs out;
	char why[512];
	int r = interp_run(m, pl, &io, &out, why, sizeof why);

	if (r == INTERP_OK) {
		r = interp_compare(ref, &out, why, sizeof why);
		interp_free(&out);
		return r != 0;
	}
	return r == INTERP_DIFF || r == INTERP_LIMIT;
}

/* Moves y's buffer so that its value starts where x's does; runs the
 * verifier (and the oracle, given ref); restores it. */
static void
mutate(const struct module *m, const struct options *o, struct plan *pl,
       const struct verify_span *x, const struct verify_span *y,
       const struct outputs *ref, struct tally *t, const char *file)
{
	struct buffer *by = &pl->bufs[y->buf];
	int64_t saved = by->offset;
	int64_t off = pl->bufs[x->buf].offset + x->at - y->at;
	char err[1024];

	if (off < 0 || off % pl->align || off == saved ||
	    off + by->size > arena_size(pl, by->space))
		return;
	by->offset = off;
	t->tried++;
	if (verify_plan(m, o, pl, err, sizeof err))
		t->refused++;
	else
		printf("%s: NOT REFUSED: '%s' moved over '%s' (spans [%lld, "
		       "%lld] at %lld and [%lld, %lld] at %lld)\n", file,
		       by->name, pl->bufs[x->buf].name, (long long)y->first,
		       (long long)y->last, (long long)y->at,
		       (long long)x->first, (long long)x->last,
		       (long long)x->at);
	if (ref) {
		t->oracle_ran++;
		t->seen += oracle_sees(m, pl, ref);
	}
	by->offset = saved;
}

/* Up to `per` mutations of one planned module, spread over its pairs. */
static void
mutate_module(const struct module *m, const struct options *o,
	      struct plan *pl, int per, int oracle, struct tally *t,
	      const char *file)
{
	struct verify_trace tr = {0};
	struct verify_span *s;
	struct outputs ref = {0};
	struct interp_opts io = {.mode = INTERP_REF, .seed = 1,
				 .fill_elided = 1};
	char err[1024];
	long npair = 0, k = 0, step;
	int n = 0, have_ref = 0;

	if (verify_spans(m, o, pl, &tr, err, sizeof err)) {
		printf("%s: the plan is refused already: %s\n", file, err);
		verify_trace_free(&tr);
		return;
	}
	s = tr.span;
	n = tr.n;
	if (oracle && interp_check(m, &io, err, sizeof err) == 0 &&
	    interp_run(m, pl, &io, &ref, err, sizeof err) == INTERP_OK)
		have_ref = 1;
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++)
			npair += overlapping(pl, &tr, &s[a], &s[b]);
	step = npair / per + 1;
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++)
			if (overlapping(pl, &tr, &s[a], &s[b]) &&
			    k++ % step == 0)
				mutate(m, o, pl, &s[a], &s[b],
				       have_ref ? &ref : NULL, t, file);
	if (have_ref)
		interp_free(&ref);
	verify_trace_free(&tr);
}

static int
mutate_file(const char *path, int per, int oracle, struct tally *t)
{
	size_t len;
	char *text = slurp(path, &len);
	struct pool *pool;
	struct diags ds = {0};
	struct hlofile *f;
	struct options o;
	int bad = 0;

	if (!text)
		return fprintf(stderr, "verify_mutate: cannot read %s\n", path),
		       1;
	pool = pool_new();
	ds = (struct diags){.pool = pool, .file = path, .src = text,
			    .srclen = len};
	f = frontend_parse(pool, text, len, &ds);
	options_default(&o);
	for (int k = 0; !ds.n && k < f->nmod; k++) {
		struct plan pl;

		memset(&pl, 0, sizeof pl);
		if (plan_module(pool, &ds, &f->mods[k], &o, NULL, &pl) == 0)
			mutate_module(&f->mods[k], &o, &pl, per, oracle, t,
				      path);
	}
	if (ds.n) {
		diag_print(&ds, stderr);
		bad = 1;
	}
	pool_free(pool);
	free(text);
	return bad;
}

int
main(int argc, char **argv)
{
	struct tally t = {0};
	int per = 100, oracle = 0, bad = 0;

	for (int k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--per-module") && k + 1 < argc)
			per = atoi(argv[++k]);
		else if (!strcmp(argv[k], "--oracle"))
			oracle = 1;
		else
			bad |= mutate_file(argv[k], per > 0 ? per : 1, oracle,
					   &t);
	}
	printf("verify_mutate: %ld overlaps of values intact at once: %ld "
	       "refused by verify", t.tried, t.refused);
	if (oracle)
		printf(", %ld of %ld seen by the oracle", t.seen,
		       t.oracle_ran);
	printf("\n");
	if (bad)
		return 2;
	return t.tried == 0 || t.refused < t.tried;
}

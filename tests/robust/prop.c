/* Property test: random valid modules (tests/oracle's generator, oracle_gen
 * --print) plan and verify through the library, every plan passes the
 * run-time pattern check of tests/runtime/check_plan.c (done here, in
 * process), and every K-th module's header is compiled with check_plan.c
 * and run.  Fixed seeds: the same modules on every machine.  --mutate checks
 * the check: in each plan two buffers live at once are made to overlap,
 * and the pattern check must see it.
 *   prop --gen ORACLE_GEN --seed S --count N [--compile-every K --cc CC
 *        --runtime DIR [--cflags FLAGS]] [--work DIR] [--mutate 1]
 * Exit 0 when every module held, 1 when one did not (kept in the work
 * directory as gen<seed>.hlo), 2 on trouble running. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hloplan.h"

struct args {
	const char *gen, *cc, *runtime, *cflags, *work;
	unsigned long long seed, count;
	long every;		/* compile every K-th header; 0: none */
	int mutate;		/* break each plan; the check must notice */
};

struct tally {
	long modules, plans, headers, failures, caught;
};

enum { MAX_ARENA = 256 << 20 };	/* bigger arenas are not pattern-checked */

static int quiet;		/* checking a mutant: failures are expected */

/* A failure's message on stderr, unless quiet. */
static void
say(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* ---- the pattern check (tests/runtime/check_plan.c, in process) ------- */

/* The byte buffer id leaves at arena address a: check_plan.c's pattern. */
static unsigned char
pattern(int id, int64_t a)
{
	unsigned long x = (unsigned long)id * 0x9e3779b1UL +
			  (unsigned long)a * 0x85ebca77UL + 1;

	x &= 0xffffffffUL;
	x ^= x >> 15;
	x = (x * 0x2c1b3c6dUL) & 0xffffffffUL;
	x ^= x >> 12;
	return (unsigned char)(x ^ (x >> 8));
}

/* The memory of arena `space` of p, or NULL when p has none. */
static unsigned char *
arena_of(const struct hloplan_plan *p, unsigned char **mem, int space)
{
	for (int a = 0; a < p->narena; a++)
		if (p->arenas[a].space == space)
			return mem[a];
	return NULL;
}

static int64_t
arena_size(const struct hloplan_plan *p, int space)
{
	for (int a = 0; a < p->narena; a++)
		if (p->arenas[a].space == space)
			return p->arenas[a].size;
	return 0;
}

/* Step t: buffers that start at t write their pattern; then every live
 * buffer must still hold its own.  Returns the failures. */
static int
pattern_step(const struct hloplan_plan *p, unsigned char **mem, int32_t t,
	     char *bad)
{
	int fails = 0;

	for (int id = 0; id < p->nbuffer; id++) {
		const struct hloplan_buffer *b = &p->buffers[id];
		unsigned char *m = arena_of(p, mem, b->space);

		if (b->in_arena && m && b->start == t)
			for (int64_t a = b->offset; a < b->offset + b->size; a++)
				m[a] = pattern(id, a);
	}
	for (int id = 0; id < p->nbuffer; id++) {
		const struct hloplan_buffer *b = &p->buffers[id];
		unsigned char *m = arena_of(p, mem, b->space);

		if (!b->in_arena || !m || bad[id] || b->start > t || t > b->end)
			continue;
		for (int64_t a = b->offset; a < b->offset + b->size; a++)
			if (m[a] != pattern(id, a)) {
				say("prop: %s: step %d: '%s' overwritten at "
				    "S(%d) byte %" PRId64 "\n", p->prefix, t,
				    b->name, b->space, a);
				bad[id] = 1;
				fails++;
				break;
			}
	}
	return fails;
}

/* Every buffer inside its arena, then the run over all steps. */
static int
pattern_check(const struct hloplan_plan *p)
{
	unsigned char *mem[64] = {0};
	char *bad = calloc((size_t)p->nbuffer + 1, 1);
	int fails = 0;

	if (!bad || p->narena > 64)
		return 0;
	for (int a = 0; a < p->narena; a++)
		if (p->arenas[a].size > MAX_ARENA)
			goto out;	/* too big to run: verify has checked */
	for (int a = 0; a < p->narena; a++)
		if (!(mem[a] = calloc((size_t)p->arenas[a].size + 1, 1)))
			goto out;
	for (int id = 0; id < p->nbuffer; id++) {
		const struct hloplan_buffer *b = &p->buffers[id];
		unsigned char *m = arena_of(p, mem, b->space);

		if (b->in_arena && (!m || b->offset < 0 || b->size < 0 ||
				    b->offset > arena_size(p, b->space) -
						b->size ||
				    b->start < 0 || b->end >= p->nstep)) {
			say("prop: %s: '%s' lies outside its arena or its "
			    "steps\n", p->prefix, b->name);
			bad[id] = 1;
			fails++;
		}
	}
	for (int32_t t = 0; t < p->nstep; t++)
		fails += pattern_step(p, mem, t, bad);
out:
	for (int a = 0; a < 64; a++)
		free(mem[a]);
	free(bad);
	return fails;
}

/* Two buffers of one arena live at the same step, or -1. */
static int
live_pair(const struct hloplan_plan *p, int *second)
{
	for (int i = 0; i < p->nbuffer; i++)
		for (int j = i + 1; j < p->nbuffer; j++) {
			const struct hloplan_buffer *a = &p->buffers[i];
			const struct hloplan_buffer *b = &p->buffers[j];

			if (a->in_arena && b->in_arena && a->space == b->space &&
			    a->size > 0 && b->size > 0 && a->start <= b->end &&
			    b->start <= a->end) {
				*second = j;
				return i;
			}
		}
	return -1;
}

/* The plan with one buffer moved onto another live at the same time:
 * 1 when the pattern check sees it, 0 when it does not, -1 when the plan
 * has no such pair. */
static int
mutant_caught(const struct hloplan_plan *p)
{
	struct hloplan_plan m = *p;
	struct hloplan_buffer *bufs;
	int i, j, seen;

	if ((i = live_pair(p, &j)) < 0)
		return -1;
	if (!(bufs = malloc(sizeof *bufs * (size_t)p->nbuffer)))
		abort();
	memcpy(bufs, p->buffers, sizeof *bufs * (size_t)p->nbuffer);
	bufs[j].offset = bufs[i].offset;
	if (bufs[j].size > bufs[i].size)
		bufs[j].size = bufs[i].size;
	m.buffers = bufs;
	quiet = 1;
	seen = pattern_check(&m) > 0;
	quiet = 0;
	free(bufs);
	return seen;
}

/* ---- the header, compiled with check_plan.c and run -------------------- */

static int
run_header(const struct args *a, const char *header, const char *prefix)
{
	char cmd[4096];

	snprintf(cmd, sizeof cmd, "%s -std=c11 -Wall -Wextra -Wpedantic "
		 "-Werror %s -I%s -I%s '-DPLAN_HEADER=\"%s\"' "
		 "-DPLAN_PREFIX=%s %s/check_plan.c %s/check_tu2.c -o %s/check "
		 "&& %s/check >/dev/null", a->cc, a->cflags, a->runtime,
		 a->work, strrchr(header, '/') + 1, prefix, a->runtime,
		 a->runtime, a->work, a->work);
	if (system(cmd)) {
		fprintf(stderr, "prop: %s failed:\n  %s\n", header, cmd);
		return 1;
	}
	return 0;
}

static int
compile_check(const struct args *a, const struct hloplan_result *r,
	      unsigned long long seed)
{
	char header[1024];
	int fails = 0;

	snprintf(header, sizeof header, "%s/gen%llu.h", a->work, seed);
	if (hloplan_write_file(r, HLOPLAN_FORMAT_HEADER, header)) {
		perror(header);
		return 1;
	}
	for (int i = 0; i < hloplan_nplan(r); i++)
		fails += run_header(a, header, hloplan_get_plan(r, i)->prefix);
	if (!fails)
		remove(header);
	return fails;
}

/* ---- one module -------------------------------------------------------- */

/* The options of seed s: the defaults, or one of the variants the oracle
 * runs (no reuse, parameters and outputs out of the arena, text order). */
static void
options_for(unsigned long long s, struct hloplan_options *o)
{
	memset(o, 0, sizeof *o);
	o->no_reuse = s % 4 == 1;
	o->io_out_of_arena = s % 4 == 2;
	o->schedule = s % 4 == 3 ? HLOPLAN_SCHEDULE_TEXT : HLOPLAN_SCHEDULE_AUTO;
}

static void
keep(const struct args *a, unsigned long long s, const char *text, size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/gen%llu.hlo", a->work, s);
	if ((f = fopen(path, "w"))) {
		fwrite(text, 1, n, f);
		fclose(f);
		fprintf(stderr, "prop: kept %s\n", path);
	}
}

static void
check_module(const struct args *a, unsigned long long s, const char *text,
	     size_t n, struct tally *t)
{
	struct hloplan_options o;
	struct hloplan_result *r;
	int fails = 0;

	options_for(s, &o);
	r = hloplan_plan_string(text, n, "gen.hlo", &o);
	if (hloplan_status(r) != HLOPLAN_OK) {
		fprintf(stderr, "prop: seed %llu does not plan:\n", s);
		hloplan_write_diags(r, stderr);
		fails++;
	}
	for (int i = 0; i < hloplan_nplan(r); i++, t->plans++) {
		const struct hloplan_plan *p = hloplan_get_plan(r, i);
		int caught;

		fails += pattern_check(p);
		if (a->mutate && (caught = mutant_caught(p)) >= 0) {
			t->caught += caught;
			if (!caught)
				fprintf(stderr, "prop: %s: a broken plan was "
					"not seen\n", p->prefix);
			fails += !caught;
		}
	}
	if (!fails && a->every && s % (unsigned long long)a->every == 0) {
		fails += compile_check(a, r, s);
		t->headers++;
	}
	if (fails) {
		fprintf(stderr, "prop: seed %llu (no_reuse %d, "
			"io_out_of_arena %d, schedule %d) failed\n", s,
			o.no_reuse, o.io_out_of_arena, o.schedule);
		keep(a, s, text, n);
		t->failures++;
	}
	t->modules++;
	hloplan_free(r);
}

/* ---- the generator's output, split into modules ----------------------- */

static char *
generate(const struct args *a, size_t *len)
{
	char cmd[2048], *buf = NULL;
	size_t cap = 0, n = 0, k;
	FILE *p;

	snprintf(cmd, sizeof cmd, "%s --seed %llu --count %llu --print",
		 a->gen, a->seed, a->count);
	if (!(p = popen(cmd, "r")))
		return NULL;
	do {
		if (n + 65536 > cap && !(buf = realloc(buf, cap = 2 * cap +
							     65536)))
			abort();
		k = fread(buf + n, 1, cap - n - 1, p);
		n += k;
	} while (k > 0);
	if (pclose(p)) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Where the module after the one at s starts: the next line that opens
 * with "HloModule ", or the end.  (The comment line the generator puts
 * before each module stays with the module before it.) */
static const char *
next_module(const char *s, const char *end)
{
	for (const char *p = s + 1; p < end; p++)
		if (p[-1] == '\n' && !strncmp(p, "HloModule ", 10))
			return p;
	return end;
}

/* ---- arguments ---------------------------------------------------------- */

static int
parse_args(int argc, char **argv, struct args *a)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--gen"))
			a->gen = v;
		else if (!strcmp(k, "--seed"))
			a->seed = strtoull(v, NULL, 10);
		else if (!strcmp(k, "--count"))
			a->count = strtoull(v, NULL, 10);
		else if (!strcmp(k, "--compile-every"))
			a->every = atol(v);
		else if (!strcmp(k, "--cc"))
			a->cc = v;
		else if (!strcmp(k, "--runtime"))
			a->runtime = v;
		else if (!strcmp(k, "--cflags"))
			a->cflags = v;
		else if (!strcmp(k, "--work"))
			a->work = v;
		else if (!strcmp(k, "--mutate"))
			a->mutate = atoi(v);
		else
			return -1;
	}
	if (argc % 2 == 0 || !a->gen || !a->count ||
	    (a->every && (!a->cc || !a->runtime)))
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	struct args a = {.seed = 1, .cflags = "", .work = "."};
	struct tally t = {0};
	const char *s, *end, *next;
	unsigned long long seed;
	size_t len;
	char *text;

	if (parse_args(argc, argv, &a)) {
		fputs("usage: prop --gen ORACLE_GEN --seed S --count N "
		      "[--compile-every K --cc CC --runtime DIR [--cflags F]] "
		      "[--work DIR] [--mutate 1]\n", stderr);
		return 2;
	}
	if (!(text = generate(&a, &len))) {
		fprintf(stderr, "prop: cannot run %s\n", a.gen);
		return 2;
	}
	end = text + len;
	s = strncmp(text, "HloModule ", 10) ? next_module(text, end) : text;
	for (seed = a.seed; s < end; s = next, seed++) {
		next = next_module(s, end);
		check_module(&a, seed, s, (size_t)(next - s), &t);
	}
	free(text);
	printf("prop: %ld modules from seed %llu: %ld plans pattern-checked, "
	       "%ld headers compiled and run, %ld broken plans caught, %ld "
	       "failed\n", t.modules, a.seed, t.plans, t.headers, t.caught,
	       t.failures);
	if (t.modules != (long)a.count) {
		fprintf(stderr, "prop: %llu modules asked for, %ld made\n",
			a.count, t.modules);
		return 2;
	}
	return t.failures ? 1 : 0;
}

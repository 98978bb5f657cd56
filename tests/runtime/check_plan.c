/* Checks a plan header at run time, for any header and prefix: allocates each
 * arena from its size macro, writes a pattern over each buffer at its first
 * step and checks at every step that every live buffer still holds its own. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_plan.h"

#define STR_(x) #x
#define STR(x) STR_(x)

enum { NSPACE = 8 };	/* memory spaces probed: S(0) to S(7) */

/* The macros must work in #if. */
#if P(_ALIGN) <= 0 || P(_NUM_BUFFERS) < 0 || P(_NUM_STEPS) < 0
#error "bad P_ALIGN, P_NUM_BUFFERS or P_NUM_STEPS"
#endif
#if P(_ARENA_SIZE) != P(_ARENA_S0_SIZE) || P(_ARENA_ALIGN) != P(_ALIGN)
#error "P_ARENA_SIZE or P_ARENA_ALIGN differs from S(0)'s"
#endif

#define NBUF P(_NUM_BUFFERS)
#define ALIGN ((long long)P(_ALIGN))

static long long arena_size[NSPACE], arena_align[NSPACE];
static unsigned char *arena[NSPACE];
static int failures;

static void
fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "check_plan: %s: ", STR(PLAN_PREFIX));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

/* Space n's arena: its size macro as an array size, and its alignment. */
#define PROBE(n)                                                            \
	do {                                                                \
		typedef unsigned char bytes[P(_ARENA_S##n##_SIZE)];         \
		arena_size[n] = (long long)sizeof(bytes);                   \
		arena_align[n] = P(_ARENA_S##n##_ALIGN);                    \
	} while (0)

static void
probe_arenas(void)
{
#if P(_ARENA_S0_SIZE) > 0
	PROBE(0);
#endif
#if P(_ARENA_S1_SIZE) > 0
	PROBE(1);
#endif
#if P(_ARENA_S2_SIZE) > 0
	PROBE(2);
#endif
#if P(_ARENA_S3_SIZE) > 0
	PROBE(3);
#endif
#if P(_ARENA_S4_SIZE) > 0
	PROBE(4);
#endif
#if P(_ARENA_S5_SIZE) > 0
	PROBE(5);
#endif
#if P(_ARENA_S6_SIZE) > 0
	PROBE(6);
#endif
#if P(_ARENA_S7_SIZE) > 0
	PROBE(7);
#endif
}

static void
alloc_arenas(void)
{
	int s;

	for (s = 0; s < NSPACE; s++) {
		if (arena_size[s] % ALIGN || arena_align[s] % ALIGN)
			fail("S(%d): size %lld or alignment %lld not a "
			     "multiple of %lld", s, arena_size[s],
			     arena_align[s], ALIGN);
		arena[s] = (unsigned char *)malloc(
			(size_t)(arena_size[s] ? arena_size[s] : 1));
		if (!arena[s]) {
			perror("check_plan");
			exit(2);
		}
	}
}

/* Where a buffer lies, so that writing its pattern stays in bounds. */
static int
check_place(const struct hloplan_plan_buffer *b)
{
	if (!b->in_arena) {
		if (b->offset != -1)
			fail("'%s': not in an arena, offset %lld, not -1",
			     b->name, b->offset);
		return 0;
	}
	if (b->space < 0 || b->space >= NSPACE || !arena_size[b->space]) {
		fail("'%s': space S(%d) has no arena", b->name, b->space);
		return 0;
	}
	if (b->offset < 0 || b->offset % ALIGN || b->size < 0 ||
	    b->offset > arena_size[b->space] - b->size) {
		fail("'%s': offset %lld, size %lld: misaligned or outside "
		     "S(%d)'s arena of %lld", b->name, b->offset, b->size,
		     b->space, arena_size[b->space]);
		return 0;
	}
	return 1;
}

/* 1 when the buffer may be written: it is in an arena, inside it. */
static int
check_entry(const struct hloplan_plan_buffer *b)
{
	if (!b->name) {
		fail("a buffer has no name");
		return 0;
	}
	if (b->start < 0 || b->start > b->end || b->end >= P(_NUM_STEPS))
		fail("'%s': bad live interval [%d, %d] for %d steps", b->name,
		     b->start, b->end, P(_NUM_STEPS));
	if (b->bytes < 0 || b->size < b->bytes)
		fail("'%s': size %lld below its bytes %lld", b->name, b->size,
		     b->bytes);
	if (b->slots < 1 ||
	    (b->slots > 1 && (b->stride < b->bytes || b->stride % ALIGN ||
			      b->stride > b->size / b->slots)))
		fail("'%s': %d slots of stride %lld do not fit in %lld bytes",
		     b->name, b->slots, b->stride, b->size);
	if (b->in_arena != 0 && b->in_arena != 1)
		fail("'%s': in_arena is %d", b->name, b->in_arena);
	return check_place(b) && b->start >= 0;
}

/* The other translation unit's table holds the same entries. */
static void
check_tu2(void)
{
	const struct hloplan_plan_buffer *t, *b;
	int n, i;

	t = tu2_table(&n);
	if (n != NBUF)
		fail("the translation units disagree: %d vs %d buffers", n,
		     NBUF);
	for (i = 0; i < n && i < NBUF; i++) {
		b = &P(_buffers)[i];
		if (strcmp(t[i].name, b->name) || t[i].offset != b->offset ||
		    t[i].size != b->size || t[i].start != b->start ||
		    t[i].end != b->end || t[i].space != b->space)
			fail("'%s': entry %d differs between translation "
			     "units", b->name, i);
	}
}

/* The byte buffer id leaves at arena address a. */
static unsigned char
pattern(int id, long long a)
{
	unsigned long x = (unsigned long)id * 0x9e3779b1UL +
			  (unsigned long)a * 0x85ebca77UL + 1;

	x &= 0xffffffffUL;
	x ^= x >> 15;
	x = (x * 0x2c1b3c6dUL) & 0xffffffffUL;
	x ^= x >> 12;
	return (unsigned char)(x ^ (x >> 8));
}

/* A slotted buffer is a loop's double buffer: iteration i (step start + i)
 * fetches into slot i mod k while iteration i - 1's slot is still read.
 * Each iteration's bytes get a tag of their own. */
static int
slot_tag(int id, int i)
{
	return id + (i + 1) * (NBUF + 1);
}

static long long
slot_at(const struct hloplan_plan_buffer *b, int i)
{
	return b->offset + (long long)(i % b->slots) * b->stride;
}

static void
fill_slot(int id, int i)
{
	const struct hloplan_plan_buffer *b = &P(_buffers)[id];
	long long a, at = slot_at(b, i);

	for (a = at; a < at + b->stride; a++)
		arena[b->space][a] = pattern(slot_tag(id, i), a);
}

/* Slot of iteration i still holds that iteration's bytes. */
static int
slot_intact(int id, int i, int t)
{
	const struct hloplan_plan_buffer *b = &P(_buffers)[id];
	long long a, at = slot_at(b, i);

	for (a = at; a < at + b->bytes; a++)
		if (arena[b->space][a] != pattern(slot_tag(id, i), a)) {
			fail("step %d: slot %d of '%s' (iteration %d) "
			     "overwritten at S(%d) byte %lld", t,
			     i % b->slots, b->name, i, b->space, a);
			return 0;
		}
	return 1;
}

static void
fill(int id)
{
	const struct hloplan_plan_buffer *b = &P(_buffers)[id];
	long long a;

	if (b->slots > 1) {
		fill_slot(id, 0);
		return;
	}
	for (a = b->offset; a < b->offset + b->size; a++)
		arena[b->space][a] = pattern(id, a);
}

/* Who wrote byte a over buffer v: the last writer whose pattern is there. */
static int
culprit(int v, long long a, int t)
{
	const struct hloplan_plan_buffer *b, *vb = &P(_buffers)[v];
	int id, best = -1;

	for (id = 0; id < NBUF; id++) {
		b = &P(_buffers)[id];
		if (id == v || !b->in_arena || b->space != vb->space ||
		    b->start > t || a < b->offset || a >= b->offset + b->size ||
		    arena[b->space][a] != pattern(id, a))
			continue;
		if (best < 0 || b->start >= P(_buffers)[best].start)
			best = id;
	}
	return best;
}

static void
report(int v, long long a, int t)
{
	const struct hloplan_plan_buffer *vb = &P(_buffers)[v], *wb;
	int w = culprit(v, a, t);

	if (w < 0) {
		fail("step %d: '%s' (S(%d) byte %lld) overwritten by an "
		     "unknown write", t, vb->name, vb->space, a);
		return;
	}
	wb = &P(_buffers)[w];
	fail("step %d: '%s' [offset %lld, size %lld, live %d..%d] "
	     "overwritten at S(%d) byte %lld by '%s' [offset %lld, size %lld, "
	     "live %d..%d]", t, vb->name, vb->offset, vb->size, vb->start,
	     vb->end, vb->space, a, wb->name, wb->offset, wb->size, wb->start,
	     wb->end);
}

/* Only bytes written in this step, [lo, hi) of the space, can have changed
 * since the last check. */
static int
intact(int id, long long lo, long long hi, int t)
{
	const struct hloplan_plan_buffer *b = &P(_buffers)[id];
	long long a = b->offset > lo ? b->offset : lo;
	long long end = b->offset + b->size < hi ? b->offset + b->size : hi;
	int i = t - b->start;

	if (b->slots > 1)
		return slot_intact(id, i, t) && (i == 0 ||
						 slot_intact(id, i - 1, t));
	for (; a < end; a++) {
		if (arena[b->space][a] != pattern(id, a)) {
			report(id, a, t);
			return 0;
		}
	}
	return 1;
}

/* Step t: write the buffers that start at t, then check the live ones. */
static void
step(int t, const char *ok, char *bad)
{
	long long lo[NSPACE] = {0}, hi[NSPACE] = {0};
	const struct hloplan_plan_buffer *b;
	int id, s;

	for (id = 0; id < NBUF; id++) {
		b = &P(_buffers)[id];
		if (!ok[id] || t < b->start || t > b->end ||
		    (b->start != t && b->slots < 2))
			continue;
		if (b->start == t)
			fill(id);
		else
			fill_slot(id, t - b->start);	/* the next fetch */
		s = b->space;
		if (lo[s] == hi[s] || b->offset < lo[s])
			lo[s] = b->offset;
		if (b->offset + b->size > hi[s])
			hi[s] = b->offset + b->size;
	}
	for (id = 0; id < NBUF; id++) {
		b = &P(_buffers)[id];
		if (ok[id] && !bad[id] && b->start <= t && t <= b->end &&
		    !intact(id, lo[b->space], hi[b->space], t))
			bad[id] = 1;	/* reported once */
	}
}

int
main(void)
{
	static char ok[NBUF + 1], bad[NBUF + 1];
	int id, t;

	probe_arenas();
	alloc_arenas();
	check_tu2();
	for (id = 0; id < NBUF; id++)
		ok[id] = (char)check_entry(&P(_buffers)[id]);
	for (t = 0; t < P(_NUM_STEPS); t++)
		step(t, ok, bad);
	for (id = 0; id < NSPACE; id++)
		free(arena[id]);
	if (failures) {
		fprintf(stderr, "check_plan: %s: %d failures\n",
			STR(PLAN_PREFIX), failures);
		return 1;
	}
	printf("check_plan: %s: %d buffers over %d steps: ok\n",
	       STR(PLAN_PREFIX), NBUF, P(_NUM_STEPS));
	return 0;
}

/* A runtime that runs a plan's schedule from its header alone: no HLO is
 * read and no library linked.  It reserves each arena, binds the entry's
 * parameters, then runs the steps in order, each while loop's condition
 * and body P_loops[].trips times (twice where the header says the
 * condition decides at run time), binds every step's positions
 * (P_positions[], found by P_step_first_position[]): writes each it
 * defines, reads each it forwards; binds every node of every operand
 * (P_operands[], found by P_step_first_operand[]: the producer's
 * position); and makes each copy where P_copies[] says: before or after
 * its step, once per run or in every iteration of its loop.
 *
 * What it checks, with the header's facts only: no write lands on bytes of
 * another buffer that is live at that step (the arena is tracked in
 * pieces between the buffers' edges, each piece owned by the buffer that
 * last wrote it: a 500 GB arena costs no more than a small one); a copy
 * reads a buffer that has been written and is live, and fits both sides;
 * an operand's node that is live at its step (so read there) lies in a
 * buffer written before and holding its own bytes; each output still
 * holds its own bytes at the end.  Prints what it ran,
 * then OK.
 *
 * Built for any header: -DPLAN_HEADER='"plan.h"' -DPLAN_PREFIX=HLOPLAN_TPU;
 * `run` takes no argument. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PLAN_HEADER
#define PLAN_HEADER "loop_plan.h"
#endif
#ifndef PLAN_PREFIX
#define PLAN_PREFIX HLOPLAN_GPU
#endif
#include PLAN_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define P(x) CAT(PLAN_PREFIX, x)

enum { MAX_SPACE = 64, UNKNOWN_TRIPS = 2 };

#define NBUF P(_NUM_BUFFERS)
#define NSTEP P(_NUM_STEPS)
#define NLOOP P(_NUM_LOOPS)
#define NCOPY P(_NUM_COPIES)

/* Each space's arena in pieces: edge[s][0 .. nedge[s]) are the buffers'
 * first and last bytes + 1, sorted, and owner[s][i] the buffer whose bytes
 * the piece [edge[i], edge[i + 1]) holds, -1 for none yet. */
static long long *edge[MAX_SPACE];
static int nedge[MAX_SPACE];
static int *owner[MAX_SPACE];
static int written[NBUF > 0 ? NBUF : 1];
static char entered_at[NSTEP + 1];	/* a while laid out as a loop: its
					   operands are bound at entry */
static long long steps_run, copies_made, values_written, iterations;
static long long positions_bound;
static long long forwards_dead;	/* forwards of values no longer live */
static long long operands_bound, operand_nodes, operand_nodes_dead;
static int failures;

static void
fail(const char *what, int t, int b, int other)
{
	if (failures++ < 20)
		printf("FAIL at step %d (%s): %s '%s'%s%s%s\n", t,
		       t >= 0 && t < NSTEP ? P(_STEP_NAME)(t) : "-", what,
		       P(_buffers)[b].name, other >= 0 ? " over '" : "",
		       other >= 0 ? P(_buffers)[other].name : "",
		       other >= 0 ? "'" : "");
}

static int
live_at(int b, int t)
{
	return P(_buffers)[b].start <= t && t <= P(_buffers)[b].end;
}

/* The piece of space sp that starts at byte x (an edge). */
static int
piece(int sp, long long x)
{
	int lo = 0, hi = nedge[sp] - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (edge[sp][mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Buffer b written at step t: every piece it spans becomes its own; a
 * piece of another buffer live at t is a clobber. */
static void
write_buffer(int b, int t)
{
	const struct hloplan_plan_buffer *x = &P(_buffers)[b];
	int u, end, said = 0;

	written[b] = 1;
	if (!x->in_arena || x->size <= 0)
		return;	/* memory of its own: a constant, or the caller's */
	if (x->space < 0 || x->space >= MAX_SPACE || x->offset < 0) {
		fail("outside its arena:", t, b, -1);
		return;
	}
	u = piece(x->space, x->offset);
	end = piece(x->space, x->offset + x->size);
	for (; u < end; u++) {
		int o = owner[x->space][u];

		if (o >= 0 && o != b && live_at(o, t) && !said++)
			fail("write of", t, b, o);
		owner[x->space][u] = b;
	}
}

/* b still holds its own bytes: every piece is its. */
static int
holds_own(int b)
{
	const struct hloplan_plan_buffer *x = &P(_buffers)[b];
	int end;

	if (x->size <= 0)
		return 1;	/* a token: no bytes to hold */
	if (!x->in_arena)
		return written[b];
	end = piece(x->space, x->offset + x->size);
	for (int u = piece(x->space, x->offset); u < end; u++)
		if (owner[x->space][u] != b)
			return 0;
	return written[b];
}

/* The copies of step t on one side; at a loop's first step in a later
 * iteration (again), those made as the loop is entered are not made. */
static void
copies_at(int t, int after, int again)
{
	for (int k = 0; k < NCOPY; k++) {
		const struct hloplan_plan_copy *c = &P(_copies)[k];

		if (c->src < 0 || c->step != t || c->after != after)
			continue;
		if (again >= 0 && !after && c->loop != again)
			continue;
		if (!written[c->src] || !live_at(c->src, t))
			fail("copy from a buffer not written or not live:",
			     t, c->src, -1);
		else if (!holds_own(c->src))
			fail("copy from a buffer overwritten:", t, c->src,
			     -1);
		if (c->bytes > P(_buffers)[c->src].size ||
		    c->bytes > P(_buffers)[c->dst].size)
			fail("copy larger than a side:", t, c->dst, -1);
		write_buffer(c->dst, t);
		copies_made++;
	}
}

/* Step t's positions: each node of each result, where the step's kernels
 * find it (an operand is its producer's position).  A position the step
 * writes (defines 1) is written; one it forwards (a get-tuple-element, a
 * bitcast, an async done, a while's result: defines 0) is read, and must
 * still hold the bytes written there; one a copy writes (2) is the copy's.
 * No aliasing rule of its own: the table says where everything is. */
static void
bind_positions(int t)
{
	int last = -1;

	for (int k = P(_step_first_position)[t];
	     k < P(_step_first_position)[t + 1]; k++) {
		const struct hloplan_plan_position *q = &P(_positions)[k];

		if (q->buffer < 0 || q->buffer >= NBUF) {
			fail("a position names no buffer:", t, 0, -1);
			continue;
		}
		positions_bound++;
		if (q->defines == 0 && !live_at(q->buffer, t)) {
			/* a forward of a value nothing reads any more (a
			   called computation's parameter element it never
			   uses): passing a value on is no read (XLA's
			   liveness), so its bytes may be another's now */
			forwards_dead++;
			continue;
		}
		if (!live_at(q->buffer, t))
			fail("a position's buffer is not live:", t, q->buffer,
			     -1);
		if (q->defines == 1) {
			/* a tuple's table, or an in-place kernel, writes
			 * its buffer once per step */
			if (q->buffer != last)
				write_buffer(q->buffer, t);
			last = q->buffer;
			values_written++;
		} else if (q->defines == 0 && !holds_own(q->buffer)) {
			fail("a forwarded position reads bytes not its own:",
			     t, q->buffer, -1);
		}
	}
}

/* Step t's operands, bound at step at (t itself, or a loop's first step
 * for its while: the loop's inputs are read as it is entered), through
 * the positions alone: each is its producer's root position, the
 * operand's other nodes after it (an index of depth > 0).  A node whose
 * buffer is live at that step is read: its buffer was written and still
 * holds its own bytes.  One the plan says is dead there is not read (a
 * forward passing a tuple on, or a conditional's operand its branch read
 * before the conditional's step): counted, not checked. */
static void
bind_operands(int t, int at)
{
	for (int j = P(_step_first_operand)[t];
	     j < P(_step_first_operand)[t + 1]; j++) {
		int k = P(_operands)[j];

		if (k < 0 || k >= P(_NUM_POSITIONS) ||
		    P(_ix)[P(_positions)[k].index] != 0) {
			fail("an operand is no producer's root position:", t,
			     0, -1);
			continue;
		}
		operands_bound++;
		do {
			int b = P(_positions)[k].buffer;

			operand_nodes++;
			if (b < 0 || b >= NBUF) {
				fail("an operand names no buffer:", t, 0, -1);
			} else if (!live_at(b, at)) {
				operand_nodes_dead++;
			} else if (P(_buffers)[b].size <= 0) {
				/* a token: no bytes to read */
			} else if (!written[b]) {
				fail("an operand reads a buffer never "
				     "written:", at, b, -1);
			} else if (!holds_own(b)) {
				fail("an operand reads bytes not its own:",
				     at, b, -1);
			}
			k++;
		} while (k < P(_NUM_POSITIONS) &&
			 P(_ix)[P(_positions)[k].index] != 0);
	}
}

/* Step t: its copies before, its operands, its positions, its copies
 * after.  again: the
 * loop in a later iteration of which t is that loop's first step, or -1. */
static void
run_step(int t, int again)
{
	copies_at(t, 0, again);
	if (!entered_at[t])	/* a while's: bound as its loop is entered */
		bind_operands(t, t);
	bind_positions(t);
	copies_at(t, 1, -1);
	steps_run++;
}

static void run_range(int lo, int hi);

/* The outermost loop starting at t, or -1. */
static int
loop_at(int t)
{
	int best = -1;

	for (int l = 0; NLOOP > 0 && l < NLOOP; l++)
		if (P(_loops)[l].first == t && P(_loops)[l].first >= 0 &&
		    (best < 0 || P(_loops)[l].step > P(_loops)[best].step))
			best = l;
	return best;
}

/* Loop l: the condition, then the body, trips times; the condition once
 * more; the caller runs the while's own step. */
static void
run_loop(int l)
{
	const struct hloplan_plan_loop *L = &P(_loops)[l];
	long long trips = L->trips >= 0 ? L->trips : UNKNOWN_TRIPS;

	if (L->cond_last < 0) {	/* not laid out as a loop here */
		run_range(L->first, L->step - 1);
		return;
	}
	for (long long i = 0;; i++) {
		if (!i)
			bind_operands(L->step, L->first);
		run_step(L->first, i ? l : -1);
		run_range(L->first + 1, L->cond_last);
		if (i == trips)
			break;
		run_range(L->cond_last + 1, L->step - 1);
		iterations++;
	}
}

/* Steps lo .. hi, each loop that starts there run whole. */
static void
run_range(int lo, int hi)
{
	for (int t = lo; t <= hi && failures < 20; t++) {
		int l = loop_at(t);

		if (l >= 0 && P(_loops)[l].step <= hi) {
			run_loop(l);
			t = P(_loops)[l].step - 1;
			continue;
		}
		run_step(t, -1);
	}
}

/* Buffer b takes bytes of an arena. */
static int
in_pieces(int b)
{
	const struct hloplan_plan_buffer *x = &P(_buffers)[b];

	return x->in_arena && x->size > 0 && x->space >= 0 &&
	       x->space < MAX_SPACE;
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Each space's pieces, from the buffers' edges: the header's tables
 * alone.  Nonzero when there is no memory or a buffer ends past
 * P_ARENA_SIZE. */
static int
make_pieces(void)
{
	long long end0 = 0;
	static int cap[MAX_SPACE];

	for (int b = 0; b < NBUF; b++)
		if (in_pieces(b))
			cap[P(_buffers)[b].space] += 2;
	for (int s = 0; s < MAX_SPACE; s++) {
		edge[s] = malloc(sizeof(long long) * (size_t)(cap[s] + 1));
		owner[s] = malloc(sizeof(int) * (size_t)(cap[s] + 1));
		if (!edge[s] || !owner[s]) {
			printf("FAIL: no memory for the pieces\n");
			return 1;
		}
	}
	for (int b = 0; b < NBUF; b++) {
		const struct hloplan_plan_buffer *x = &P(_buffers)[b];

		if (!in_pieces(b))
			continue;
		edge[x->space][nedge[x->space]++] = x->offset;
		edge[x->space][nedge[x->space]++] = x->offset + x->size;
		if (x->space == 0 && x->offset + x->size > end0)
			end0 = x->offset + x->size;
	}
	if (P(_ARENA_SIZE) < end0) {
		printf("FAIL: a buffer ends past P_ARENA_SIZE\n");
		return 1;
	}
	for (int s = 0; s < MAX_SPACE; s++) {
		int n = 0;

		qsort(edge[s], (size_t)nedge[s], sizeof(long long), cmp_ll);
		for (int i = 0; i < nedge[s]; i++)
			if (!n || edge[s][i] != edge[s][n - 1])
				edge[s][n++] = edge[s][i];
		nedge[s] = n;
		for (int i = 0; i <= cap[s]; i++)
			owner[s][i] = -1;
	}
	return 0;
}

int
main(void)
{
	int bound = 0;

	if (make_pieces())
		return 1;
	for (int l = 0; NLOOP > 0 && l < NLOOP; l++)
		if (P(_loops)[l].cond_last >= 0 && P(_loops)[l].step >= 0)
			entered_at[P(_loops)[l].step] = 1;
	/* The caller's arguments, then constants' bytes: before step 0. */
	for (int k = 0; k < P(_NUM_PARAMS); k++)
		if (P(_params)[k].buffer >= 0) {
			write_buffer(P(_params)[k].buffer, 0);
			bound++;
		}
	for (int k = 0; k < P(_NUM_CONSTANTS); k++)
		if (P(_constants)[k].buffer >= 0)
			write_buffer(P(_constants)[k].buffer, 0);
	run_range(0, NSTEP - 1);
	for (int k = 0; k < P(_NUM_OUTPUTS); k++) {
		int b = P(_outputs)[k].buffer;

		if (b >= 0 && !holds_own(b))
			fail("output not held at the end:", NSTEP - 1, b, -1);
	}
	printf("%d parameters bound; %lld steps run, %d loops, %lld "
	       "iterations, %lld positions bound (%lld forwards of dead "
	       "values), %lld operands bound (%lld nodes, %lld dead: not "
	       "read), %lld values written, %lld copies made\n", bound,
	       steps_run, NLOOP, iterations, positions_bound, forwards_dead,
	       operands_bound, operand_nodes, operand_nodes_dead,
	       values_written, copies_made);
	for (int s = 0; s < MAX_SPACE; s++) {
		free(owner[s]);
		free(edge[s]);
	}
	if (failures)
		return 1;
	puts("OK");
	return 0;
}

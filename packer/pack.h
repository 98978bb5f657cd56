/* The packer: boxes (size x closed time interval) in, offsets out, in a
 * strip of least height; greedy portfolio, then search bounded by work. */
#ifndef HLOPLAN_PACK_H
#define HLOPLAN_PACK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/boxes.h"

/* The default work budget, in steps (see struct pack_opts). */
#define PACK_EFFORT_DEFAULT 400000000L

struct pack_stats {
	int64_t greedy;		/* height after the greedy phase */
	long steps;		/* work done, in steps */
	int pieces;		/* independent pieces in time */
	int cut;		/* ... of which were cut into windows */
	int searched;		/* pieces handed to the improvement phase */
	int improved;		/* ... of which it made lower */
	int taken;		/* threads the portfolios took from spare */
};

/* Processors a planner running beside this one has left: a portfolio of
 * greedy passes takes them for more of its passes while it runs, and gives
 * them back.  The plan is the same however many it takes. */
struct pack_spare {
	atomic_int n;
};

struct pack_opts {
	/* Work budget in steps: a neighbour visited by best fit counts 4, a
	 * unit of bookkeeping in the search 1 (about 1.5-2 ns each today, so
	 * the default is under a second per call on a small hard piece).  0 means
	 * PACK_EFFORT_DEFAULT.  The first greedy order always runs in full,
	 * whatever the budget; the search stops early at the lower bound.  The
	 * same input and effort give the same plan on every machine. */
	long effort;
	int greedy_only;	/* 1: skip the improvement phase */
	/* Threads for the windows of a huge piece (see pack_cut.c); 0: one
	 * per processor.  The plan is the same for any number. */
	int threads;
	struct pack_spare *spare;	/* more threads when it has some, or
					   NULL */
	struct pack_stats *stats;	/* filled when not NULL */
};

/* The peak of live bytes: the largest total size of boxes whose closed
 * intervals share a time step.  No packing is lower.  O(n log n). */
int64_t pack_lower_bound(const struct boxes *bx);

/* At least pack_lower_bound, and more where alignments prove it: with g
 * the gcd of the alignments of the boxes not pinned, the boxes not pinned
 * live at one time need the sum of their sizes rounded up to g, less the
 * largest rounding among them (pack_bound.c).  No packing is lower.
 * O(n log n). */
int64_t pack_aligned_bound(const struct boxes *bx);

/* Fills every box's offset, bx->height (the largest offset + size) and
 * bx->lower (pack_lower_bound).  Boxes with pin >= 0 stay at their pin;
 * every other offset is a multiple of its box's align.  opt may be NULL.
 * Sizes plus alignments must sum to at most INT64_MAX, and every end must
 * be below INT64_MAX (packer/intervals.c checks both). */
void pack(struct boxes *bx, const struct pack_opts *opt);

/* An independent check of a packing: positive sizes, non-empty intervals,
 * offsets aligned, at their pins and inside [0, bx->height), and no two
 * boxes live at one time sharing a byte.  Returns 0 when valid; otherwise
 * 1 with one message naming the box(es) by id in err.  O(n log n). */
int pack_check(const struct boxes *bx, char *err, size_t errlen);

/* ---- shared by the packer's files and interfere.c ------------------- */

/* The interference graph of a piece (boxes sorted by start), built by a
 * sweep over the intervals: adjacency in CSR form, and the time sections
 * (maximal spans with one set of live boxes) each box covers. */
struct pack_graph {
	int n;
	int *first;		/* n + 1 entries: adj[first[i]..first[i+1]) */
	int *adj;
	int nsec;		/* sections */
	int *slo, *shi;		/* box i covers sections [slo[i], shi[i]) */
	int *sfirst;		/* nsec + 1: boxes of section s in sbox[] */
	int *sbox;
};

/* Builds the graph of n boxes given by start[] and end[] (sorted by
 * start).  Returns 0, or -1 (and builds nothing) when the edges or the
 * section memberships would exceed limit entries. */
int pack_graph_build(struct pack_graph *g, int n, const int64_t *start,
		     const int64_t *end, long limit);
void pack_graph_free(struct pack_graph *g);

/* A key and an index.  pack_sort_kv sorts by key, stably (so by index
 * too when a[] was filled in index order): an LSD radix sort on the bytes
 * where keys differ, O(n). */
struct pack_kv {
	int64_t key;
	int i;
};

void pack_sort_kv(struct pack_kv *a, int n);

void *pack_xmalloc(size_t n);	/* aborts when out of memory */
void *pack_xcalloc(size_t n, size_t size);
void *pack_xrealloc(void *p, size_t n);

#endif

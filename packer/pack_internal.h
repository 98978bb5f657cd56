/* The packer's insides, shared by its files and by no other pass:
 * packer.c (pieces, phases, the entry point), pack_greedy.c (best fit and
 * the iterated greedy) and pack_search.c (the branch and bound). */
#ifndef HLOPLAN_PACK_INTERNAL_H
#define HLOPLAN_PACK_INTERNAL_H

#include <stdint.h>

#include "packer/pack.h"

/* Boxes sorted by start; a piece is a slice [first, first + n). */
struct packer {
	struct box *b;
	int n;
	int *ix;		/* box index of rank r */
	int64_t *start, *end, *size, *align, *pin;
	int64_t *off;		/* best offsets found, by rank */
	int64_t *live;		/* live bytes just after rank r starts */
	int npiece;
	struct piece *piece;
	int64_t lower;		/* peak of live bytes */
	int64_t target;		/* no plan is lower: lower, pinned tops */
	long steps, budget;
	int threads;		/* pack_opts.threads */
	struct pack_spare *spare;	/* pack_opts.spare */
	int taken;		/* threads taken from it (pack_stats) */
	int greedy_only;	/* pack_opts.greedy_only */
};

struct piece {
	int first, n;
	int order;		/* the greedy order that gave height */
	int first_fit;		/* ... placing by first fit (else best) */
	int bf_order;		/* the lowest of the orders by best fit */
	int cut;		/* 1: packed by pack_cut.c */
	int twin;		/* 1 + an earlier piece it is a copy of,
				   shifted in time: packed as that one is;
				   0: none */
	int64_t height;
	long spent;		/* steps of its greedy phase */
};

/* A piece seen on its own: pointers into the packer's arrays. */
struct local {
	int n;
	const int *ix;		/* box index in the input: its order there */
	const int64_t *start, *end, *size, *align, *pin, *live;
	int64_t *off;
};

struct okey {
	int64_t k[3];
	int i;
};

static inline int64_t
gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static inline int64_t
align_up(int64_t x, int64_t a)
{
	int64_t r;

	if (a == 1)
		return x;
	r = x % a;

	return r ? x + (a - r) : x;
}

static inline int64_t
max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static inline int64_t
min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static inline int64_t
sat_mul(int64_t a, int64_t b)
{
	if (a > 0 && b > INT64_MAX / a)
		return INT64_MAX;
	return a * b;
}

/* end - start + 1 without overflow, saturating. */
static inline int64_t
duration(int64_t start, int64_t end)
{
	uint64_t d = (uint64_t)end - (uint64_t)start;

	return d >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d + 1;
}

/* Total orders for qsort: pack_kv by key, then index; okey by larger keys
 * first, then smaller index. */
int pk_cmp_kv(const void *pa, const void *pb);
int pk_cmp_okey(const void *pa, const void *pb);
/* Indices of the n boxes sorted by start (or end), ties by index. */
int *pk_sorted_by(const struct box *b, int n, int by_end);
/* First rank in start[0..n) whose start is > t. */
int pk_upper_rank(const int64_t *start, int n, int64_t t);
struct local pk_local_of(struct packer *P, const struct piece *p);
/* Threads to run on: P->threads, or one per processor up to
 * PK_THREADS_AUTO; at most PK_THREADS_MAX. */
enum { PK_THREADS_MAX = 64, PK_THREADS_AUTO = 8 };
int pk_threads(const struct packer *P);
/* Packs bx as pack() does, but never cuts it, and stops searching at
 * height floor; returns the steps spent. */
long pk_pack_part(struct boxes *bx, long budget, int64_t floor);

/* pack_gaps.c: what best fit needs to know of a box's placed neighbours.
 * Box k of a piece (ranks in start order) is live from rank lo[k] (the
 * first that starts with it) to before hi[k] (the first that starts
 * after it ends). */
struct span {
	int64_t lo, hi;
};

struct runs {			/* sorted, disjoint, not touching */
	struct span *v;
	int n, cap;
};

/* Most sorted lists a query returns: 2 per level of "cover" and of the
 * ranks' nodes, 64 levels at most. */
enum { GAPS_SEG_MAX = 192 };

struct gaps {
	int leaves;		/* a power of two >= n */
	const int *lo, *hi;
	const int64_t *size;
	struct runs *cover;	/* node v: boxes live over all its ranks */
	struct runs *below;	/* node v: boxes starting at one of them
				 * (wide nodes only, see pack_gaps.c) */
	long steps;		/* runs and ranks read or moved */
	int nseg;		/* the last query's out[] is nseg lists, */
	int seg[GAPS_SEG_MAX];	/* each sorted by lo, list i ending at seg[i] */
};

void pk_gaps_init(struct gaps *g, int n, const int *lo, const int *hi,
		  const int64_t *size);
void pk_gaps_clear(struct gaps *g);	/* unplaces every box */
void pk_gaps_free(struct gaps *g);
void pk_gaps_place(struct gaps *g, int j, int64_t off);
/* Writes to out the occupied bytes of unplaced k's placed neighbours
 * (off[j] >= 0) as spans, possibly overlapping (their union is exact), and
 * returns how many; out must hold n spans.  They come as g->nseg lists,
 * each sorted by lo (see struct gaps), for a merge. */
int pk_gaps_query(struct gaps *g, int k, const int64_t *off,
		  struct span *out);

/* pack_greedy.c: a piece's first plan, order 0 by best fit.  Orders are
 * 0 .. PK_NORDER - 1, each placing boxes by best fit or first fit. */
enum { PK_NORDER = 11 };
void pk_greedy_first(struct packer *P, struct piece *p);
/* Every other order and fit on a piece (every one on a piece cut into
 * windows, whose plan is pack_cut.c's), on pk_threads(P) threads; keeps
 * the lowest plan when lower than the piece's. */
void pk_greedy_portfolio(struct packer *P, struct piece *p);
/* Squeaky-wheel iterated greedy on a piece within budget steps, in order
 * `which` by first fit or best fit, its boxes above the target first: as
 * they are in the piece's best plan, or (own_start) in that order's own;
 * returns 1 when it lowered the piece. */
int pk_iterate_greedy(struct packer *P, struct piece *p, long budget,
		      int which, int first, int own_start);

/* pack_search.c: branch and bound on a piece of at most PK_SEARCH_MAX
 * boxes within budget steps; returns 1 when it lowered the piece. */
enum { PK_SEARCH_MAX = 4096 };
int pk_search_piece(struct packer *P, struct piece *p, long budget);

/* pack_cut.c: a piece of more than PK_CUT_MIN boxes is cut in time into
 * windows of about PK_CUT_WINDOW boxes where few bytes cross; the boxes
 * that cross a cut are packed first, then each window around them.
 * Returns 1 when it packed the piece (offsets and height), 0 when the
 * piece does not cut well and is left to the other phases. */
enum { PK_CUT_MIN = 1 << 16, PK_CUT_WINDOW = 1 << 12 };
int pk_cut_piece(struct packer *P, struct piece *p, long budget);

#endif

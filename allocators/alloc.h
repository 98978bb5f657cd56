/* What the allocator models share (alloc_*.c, model.c, allocators.c): an
 * ordered set of free blocks, the blocks themselves linked by address, and
 * a model's state.  Internal to the replay of --allocators. */
#ifndef HLOPLAN_ALLOC_H
#define HLOPLAN_ALLOC_H

#include <stdint.h>

#include "passes/plan.h"

/* ---- an ordered set: a treap keyed by (a, b), each node carrying a value
 * and the largest value of its subtree (for first fit).  Priorities come
 * from a fixed seed, so the same inserts give the same tree. */
struct onode {
	int64_t a, b;		/* the key */
	int64_t val, mx;	/* a value; the largest in the subtree */
	int id;			/* what the node stands for (a block) */
	int l, r;
	uint32_t pri;
};

struct oset {
	struct onode *n;
	int len, cap, root, free;
	uint32_t seed;
};

void oset_init(struct oset *s);
void oset_done(struct oset *s);
void oset_insert(struct oset *s, int64_t a, int64_t b, int64_t val, int id);
void oset_erase(struct oset *s, int64_t a, int64_t b);
/* The first node with key >= (a, b), or -1. */
int oset_lower(const struct oset *s, int64_t a, int64_t b);
/* The first node in key order whose value is >= v, or -1. */
int oset_first_val(const struct oset *s, int64_t v);

/* ---- blocks: pieces of reserved memory, linked to their neighbours in
 * the same region or segment (never across: prev/next are -1 there). */
struct blk {
	int64_t addr, size;
	int prev, next;		/* neighbours by address, or -1 */
	int used;		/* handed out */
	int mapped;		/* torch expandable segments: backed by pages */
	int pool;		/* torch: 0 small, 1 large */
	int live;		/* 0: on the free list of handles */
};

/* ---- a model's state ------------------------------------------------- */
struct model {
	int kind;		/* ALLOC_* */
	struct blk *b;		/* blocks, by handle */
	int nb, capb, freeb;
	struct oset set[2];	/* free blocks: BFC and the heaps use set[0],
				   keyed (size, addr) or for first fit
				   (addr, 0); torch a set per pool */
	int64_t in_use, peak_in_use;	/* bytes of blocks handed out */
	int64_t reserved, peak_reserved;
	int64_t high;		/* the highest end of a block handed out */
	int64_t vtop;		/* where the next region or segment starts */
	/* BFC */
	int64_t limit;		/* memory_limit_ */
	int64_t curr_region;	/* curr_region_allocation_bytes_ */
	/* torch, expandable segments: per pool the unmapped tail, or -1 */
	int tail[2];
	/* heaps: the last block below the top, or -1 */
	int last;
	int32_t step;		/* the step being replayed */
	struct alloc_piece *piece;	/* reserved memory as it was added */
	int npiece, cappiece;
};

int blk_new(struct model *m, int64_t addr, int64_t size);
void blk_del(struct model *m, int h);
/* The part of block h past its first n bytes becomes a block of its own,
 * linked after h; returns it. */
int blk_split(struct model *m, int h, int64_t n);
/* Block b, just after a, joins a (and is deleted). */
void blk_join(struct model *m, int a, int b);
/* Records memory reserved at the current step: [at, at + size). */
void model_reserve(struct model *m, int64_t at, int64_t size);
/* Bookkeeping of a block handed out or taken back. */
void model_use(struct model *m, int h);
void model_unuse(struct model *m, int h);

/* alloc_bfc.c: XLA/TSL's BFC allocator; a handle, or -1 when the limit
 * does not allow the request. */
void bfc_init(struct model *m, int growth, int64_t limit);
int bfc_alloc(struct model *m, int64_t bytes);
void bfc_free(struct model *m, int h);
/* alloc_torch.c: PyTorch's CUDA caching allocator. */
int torch_alloc(struct model *m, int64_t bytes);
void torch_free(struct model *m, int h);
/* alloc_heap.c: textbook first fit and best fit with a top. */
int heap_alloc(struct model *m, int64_t bytes);
void heap_free(struct model *m, int h);

#endif

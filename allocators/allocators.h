/* The allocator models: a finished plan's buffers replayed through XLA's
 * BFC, PyTorch's caching allocator, first and best fit (--allocators). */
#ifndef HLOPLAN_ALLOCATORS_H
#define HLOPLAN_ALLOCATORS_H

#include <stdint.h>

#include "passes/plan.h"

struct pool;

/* allocators.c: the plan's buffers of S(0) replayed through models of the
 * allocators runtimes use (pl->allocs, NALLOC of them), against the
 * capacity o gives S(0); the results are in pool. */
void replay_allocators(struct pool *pool, const struct options *o,
		       struct plan *pl);
/* One replay of requests: each allocated at step start, freed after step
 * end (at a step, allocations in request order, then frees in request
 * order); a request of 0 bytes is not made.  limit: the device's capacity,
 * or -1.  The results are in pool. */
struct alloc_req {
	int64_t size;
	int32_t start, end;
	int buf;		/* what the places name it by */
};
int alloc_replay(struct pool *pool, int kind, const struct alloc_req *req,
		 int n, int64_t limit, struct alloc_run *run);
const char *alloc_name(int kind);
/* alloc_bfc.c: the BFC bin of a chunk size; alloc_torch.c: the segment
 * PyTorch's allocator asks cudaMalloc for, for a rounded request. */
int bfc_bin(int64_t n);
int64_t torch_segment_size(int64_t size);

#endif

/* XLA/TSL's BFC allocator (xla/tsl/framework/bfc_allocator.cc), as the GPU
 * runtime of JAX and TensorFlow runs it: default Options, no spatial
 * partitioning, no timestamped chunks, no garbage collection, regions never
 * coalesced (the GPU sub-allocator does not support it).  Regions are laid
 * out one after another from address 0, in the order they are made. */
#include "allocators/alloc.h"

enum {
	MIN_ALLOC = 256,		/* kMinAllocationSize */
	NUM_BINS = 21,			/* kNumBins */
};
/* max_internal_fragmentation_bytes_ when fragmentation_fraction is 0 */
static const int64_t max_frag = (int64_t)128 << 20;

/* RoundedBytes */
static int64_t
rounded(int64_t n)
{
	return (n + MIN_ALLOC - 1) / MIN_ALLOC * MIN_ALLOC;
}

/* BinNumForSize: min(kNumBins - 1, Log2Floor(max(n, 256) >> 8)).  Chunks
 * in a bin are ordered by (size, address), and FindChunkPtr takes the first
 * that fits from the request's bin upward; since the bin grows with the
 * size, that is the least (size, address) with size >= the request: one
 * lower bound in a set of every free chunk ordered so. */
int
bfc_bin(int64_t n)
{
	uint64_t v = (uint64_t)(n > 256 ? n : 256) >> 8;
	int b = 0;

	while (v >>= 1)
		b++;
	return b < NUM_BINS - 1 ? b : NUM_BINS - 1;
}

void
bfc_init(struct model *m, int growth, int64_t limit)
{
	m->limit = limit;
	/* the constructor: 2 MiB first with allow_growth, else all of it */
	m->curr_region = rounded(growth && limit > (2 << 20) ? 2 << 20 :
				 limit);
}

static void
insert_free(struct model *m, int h)
{
	oset_insert(&m->set[0], m->b[h].size, m->b[h].addr, m->b[h].size, h);
}

static void
remove_free(struct model *m, int h)
{
	oset_erase(&m->set[0], m->b[h].size, m->b[h].addr);
}

/* Extend: a new region of curr_region_allocation_bytes_ (doubled until the
 * request fits), at most what the limit leaves; 0 when it leaves too
 * little.  curr doubles after a region that did not have to grow. */
static int
extend(struct model *m, int64_t bytes)
{
	int64_t avail = (m->limit - m->reserved) / MIN_ALLOC * MIN_ALLOC;
	int increased = 0;
	int64_t size;
	int h;

	if (bytes > avail)
		return 0;
	while (bytes > m->curr_region) {
		m->curr_region *= 2;
		increased = 1;
	}
	size = m->curr_region < avail ? m->curr_region : avail;
	if (!increased)
		m->curr_region *= 2;
	h = blk_new(m, m->vtop, size);
	model_reserve(m, m->vtop, size);
	m->vtop += size;
	insert_free(m, h);	/* TryToCoalesce: a region's chunk is alone */
	return 1;
}

/* SplitChunk: the tail past n becomes a free chunk after h. */
static void
split_chunk(struct model *m, int h, int64_t n)
{
	insert_free(m, blk_split(m, h, n));
}

/* AllocateRawInternal, FindChunkPtr, AllocateChunkFromLowEnd. */
int
bfc_alloc(struct model *m, int64_t bytes)
{
	int64_t r = rounded(bytes);
	int k = oset_lower(&m->set[0], r, 0), h;

	if (k < 0) {
		if (!extend(m, r))
			return -1;
		k = oset_lower(&m->set[0], r, 0);
	}
	h = m->set[0].n[k].id;
	remove_free(m, h);
	if (m->b[h].size >= 2 * r || m->b[h].size - r >= max_frag)
		split_chunk(m, h, r);
	model_use(m, h);
	return h;
}

/* DeallocateRawInternal, TryToCoalesce, MergeChunks: the next chunk, then
 * the previous, when free; they are in the same region by construction. */
void
bfc_free(struct model *m, int h)
{
	int n = m->b[h].next, p = m->b[h].prev;

	model_unuse(m, h);
	if (n >= 0 && !m->b[n].used) {
		remove_free(m, n);
		blk_join(m, h, n);
	}
	if (p >= 0 && !m->b[p].used) {
		remove_free(m, p);
		blk_join(m, p, h);
		h = p;
	}
	insert_free(m, h);
}

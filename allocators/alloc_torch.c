/* PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp,
 * DeviceCachingAllocator), one stream, default settings (no max_split_size,
 * no roundup_power2_divisions, no garbage collection, no empty_cache), with
 * expandable_segments off (ALLOC_TORCH) or on (ALLOC_TORCH_EXPANDABLE).
 * cudaMalloc'd segments are laid out one after another from address 0; the
 * expandable segment of a pool reserves a huge range (of which only the
 * mapped part counts as reserved), the small pool's first. */
#include "allocators/alloc.h"

static const int64_t min_block = 512;		/* kMinBlockSize */
static const int64_t small_size = 1 << 20;	/* kSmallSize */
static const int64_t small_buffer = 2 << 20;	/* kSmallBuffer */
static const int64_t min_large = 10 << 20;	/* kMinLargeAlloc */
static const int64_t large_buffer = 20 << 20;	/* kLargeBuffer */
static const int64_t round_large = 2 << 20;	/* kRoundLarge */
/* The address space of an expandable segment: 1 1/8 of the device there;
 * here more than any module asks for, so that its unmapped tail is always
 * the largest block (as on a device that holds the program). */
static const int64_t es_space = (int64_t)1 << 50;

/* round_size */
static int64_t
round_size(int64_t n)
{
	return n < min_block ? min_block :
			       (n + min_block - 1) / min_block * min_block;
}

/* get_allocation_size */
int64_t
torch_segment_size(int64_t size)
{
	if (size <= small_size)
		return small_buffer;
	if (size < min_large)
		return large_buffer;
	return (size + round_large - 1) / round_large * round_large;
}

static int
expandable(const struct model *m)
{
	return m->kind == ALLOC_TORCH_EXPANDABLE;
}

static void
insert_block(struct model *m, int h)
{
	struct blk *b = &m->b[h];

	oset_insert(&m->set[b->pool], b->size, b->addr, b->size, h);
}

static void
erase_block(struct model *m, int h)
{
	struct blk *b = &m->b[h];

	oset_erase(&m->set[b->pool], b->size, b->addr);
}

/* The size best fit gives a block of an expandable segment: its own, plus
 * the unmapped room after it (get_free_block's expandable_size). */
static int64_t
expandable_size(const struct model *m, int h)
{
	int n = m->b[h].next;

	return m->b[h].size + (n >= 0 && !m->b[n].mapped ? m->b[n].size : 0);
}

/* get_free_block: the least (size, address) of the pool that fits; with
 * expandable segments, the walk on to a block whose expandable size is
 * smaller. */
static int
get_free_block(struct model *m, int pool, int64_t size)
{
	struct oset *s = &m->set[pool];
	int k = oset_lower(s, size, 0), h, next;

	if (k < 0)
		return -1;
	h = s->n[k].id;
	while (expandable(m)) {
		k = oset_lower(s, m->b[h].size, m->b[h].addr + 1);
		if (k < 0)
			break;
		next = s->n[k].id;
		if (expandable_size(m, next) >= expandable_size(m, h))
			break;
		h = next;
	}
	erase_block(m, h);
	return h;
}

/* try_merge_blocks: src into dst when src is free and mapped alike. */
static void
try_merge(struct model *m, int dst, int src)
{
	struct blk *d = &m->b[dst], *s;

	if (src < 0 || m->b[src].used || m->b[src].mapped != d->mapped)
		return;
	s = &m->b[src];
	if (s->mapped)
		erase_block(m, src);
	if (d->prev != src) {
		blk_join(m, dst, src);
		return;
	}
	d->addr = s->addr;	/* dst, which the caller holds, stays */
	d->prev = s->prev;
	if (d->prev >= 0)
		m->b[d->prev].next = dst;
	d->size += s->size;
	blk_del(m, src);
}

/* map_block: the granules that cover [ptr, ptr + size) of an unmapped
 * block are mapped; the rest stays unmapped after it.  The mapped block
 * merges with a free neighbour and joins the pool. */
static void
map_block(struct model *m, int h, int64_t size)
{
	int64_t gran = m->b[h].pool ? large_buffer : small_buffer;
	int64_t got = (size + gran - 1) / gran * gran;

	if (got < m->b[h].size) {
		int r = blk_split(m, h, got);

		m->b[r].pool = m->b[h].pool;
		m->b[r].mapped = 0;
		m->tail[m->b[h].pool] = r;
	}
	m->b[h].mapped = 1;
	model_reserve(m, m->b[h].addr, got);
	try_merge(m, h, m->b[h].prev);
	try_merge(m, h, m->b[h].next);
	insert_block(m, h);
}

/* find_expandable_block, try_allocate_expandable_block: the pool's one
 * segment (made on first use), from the free block before its unmapped
 * tail when there is one, mapped on until it holds size. */
static int
expandable_block(struct model *m, int pool, int64_t size)
{
	int c, t;

	if (m->tail[pool] < 0) {
		c = blk_new(m, pool * (es_space << 1), es_space);
		m->b[c].pool = pool;
		m->b[c].mapped = 0;
		m->tail[pool] = c;
	}
	t = m->tail[pool];
	c = m->b[t].prev >= 0 && !m->b[m->b[t].prev].used ? m->b[t].prev : t;
	if (!m->b[c].mapped)
		map_block(m, c, size < m->b[c].size ? size : m->b[c].size);
	while (m->b[c].size < size) {
		int n = m->b[c].next;
		int64_t rest = size - m->b[c].size;

		map_block(m, n, rest < m->b[n].size ? rest : m->b[n].size);
		c = n;
	}
	erase_block(m, c);
	return c;
}

/* alloc_block: a new segment of get_allocation_size bytes (cudaMalloc). */
static int
alloc_block(struct model *m, int pool, int64_t size)
{
	int64_t seg = torch_segment_size(size);
	int h;

	if (expandable(m))
		return expandable_block(m, pool, size);
	h = blk_new(m, m->vtop, seg);
	m->b[h].pool = pool;
	m->b[h].mapped = 1;
	model_reserve(m, m->vtop, seg);
	m->vtop += seg;
	return h;
}

/* should_split */
static int
should_split(const struct model *m, int h, int64_t size)
{
	int64_t remaining = m->b[h].size - size;

	if (m->b[h].pool == 0 || expandable(m))
		return remaining >= min_block;
	return remaining > small_size;
}

/* alloc_found_block: a new block for the front, the rest stays free. */
static int
split_front(struct model *m, int rest, int64_t size)
{
	int h = blk_new(m, m->b[rest].addr, size);

	m->b[h].pool = m->b[rest].pool;
	m->b[h].mapped = 1;
	m->b[h].prev = m->b[rest].prev;
	if (m->b[h].prev >= 0)
		m->b[m->b[h].prev].next = h;
	m->b[h].next = rest;
	m->b[rest].prev = h;
	m->b[rest].addr += size;
	m->b[rest].size -= size;
	insert_block(m, rest);
	return h;
}

/* malloc: round, pick the pool (get_pool), reuse a cached block or get a
 * new one, split off what should_split allows. */
int
torch_alloc(struct model *m, int64_t bytes)
{
	int64_t size = round_size(bytes);
	int pool = size <= small_size ? 0 : 1;
	int h = get_free_block(m, pool, size);

	if (h < 0)
		h = alloc_block(m, pool, size);
	if (should_split(m, h, size))
		h = split_front(m, h, size);
	model_use(m, h);
	return h;
}

/* free, free_block: merge with the previous, then the next block. */
void
torch_free(struct model *m, int h)
{
	int p = m->b[h].prev, n = m->b[h].next;

	model_unuse(m, h);
	try_merge(m, h, p);
	try_merge(m, h, n);
	insert_block(m, h);
}

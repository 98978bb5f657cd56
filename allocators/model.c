/* The blocks every allocator model hands out, linked by address within a
 * region or segment, and a model's bookkeeping of bytes in use and
 * reserved (alloc.h).  Called by the models, calling none of them. */
#include <stdlib.h>

#include "allocators/alloc.h"

int
blk_new(struct model *m, int64_t addr, int64_t size)
{
	int h;

	if (m->freeb >= 0) {
		h = m->freeb;
		m->freeb = m->b[h].next;
	} else {
		if (m->nb == m->capb) {
			m->capb = m->capb ? 2 * m->capb : 64;
			m->b = realloc(m->b, sizeof *m->b * (size_t)m->capb);
			if (!m->b)
				abort();	/* out of memory */
		}
		h = m->nb++;
	}
	m->b[h] = (struct blk){addr, size, -1, -1, 0, 1, 0, 1};
	return h;
}

void
blk_del(struct model *m, int h)
{
	m->b[h].live = 0;
	m->b[h].next = m->freeb;
	m->freeb = h;
}

int
blk_split(struct model *m, int h, int64_t n)
{
	int t = blk_new(m, m->b[h].addr + n, m->b[h].size - n);

	m->b[h].size = n;
	m->b[t].prev = h;
	m->b[t].next = m->b[h].next;
	if (m->b[h].next >= 0)
		m->b[m->b[h].next].prev = t;
	m->b[h].next = t;
	return t;
}

void
blk_join(struct model *m, int a, int b)
{
	m->b[a].size += m->b[b].size;
	m->b[a].next = m->b[b].next;
	if (m->b[b].next >= 0)
		m->b[m->b[b].next].prev = a;
	if (m->last == b)
		m->last = a;
	blk_del(m, b);
}

void
model_reserve(struct model *m, int64_t at, int64_t size)
{
	if (m->npiece == m->cappiece) {
		m->cappiece = m->cappiece ? 2 * m->cappiece : 16;
		m->piece = realloc(m->piece,
				   sizeof *m->piece * (size_t)m->cappiece);
		if (!m->piece)
			abort();
	}
	m->piece[m->npiece++] = (struct alloc_piece){at, size, m->step};
	m->reserved += size;
	if (m->reserved > m->peak_reserved)
		m->peak_reserved = m->reserved;
}

void
model_use(struct model *m, int h)
{
	m->b[h].used = 1;
	m->in_use += m->b[h].size;
	if (m->in_use > m->peak_in_use)
		m->peak_in_use = m->in_use;
	if (m->b[h].addr + m->b[h].size > m->high)
		m->high = m->b[h].addr + m->b[h].size;
}

void
model_unuse(struct model *m, int h)
{
	m->b[h].used = 0;
	m->in_use -= m->b[h].size;
}


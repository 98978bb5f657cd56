/* The textbook baseline (Knuth, TAOCP 2.5; Wilson et al., "Dynamic Storage
 * Allocation: A Survey", 1995): one heap growing at the top, no rounding,
 * holes split on allocation and coalesced with free neighbours on free; a
 * hole that reaches the top gives its bytes back to the top.  First fit
 * takes the lowest hole with room (holes keyed by address, each subtree
 * knowing its largest hole); best fit the smallest, lowest on ties. */
#include "allocators/alloc.h"

static int
first_fit(const struct model *m)
{
	return m->kind == ALLOC_FIRST_FIT;
}

static void
insert_hole(struct model *m, int h)
{
	const struct blk *b = &m->b[h];

	if (first_fit(m))
		oset_insert(&m->set[0], b->addr, 0, b->size, h);
	else
		oset_insert(&m->set[0], b->size, b->addr, b->size, h);
}

static void
erase_hole(struct model *m, int h)
{
	const struct blk *b = &m->b[h];

	if (first_fit(m))
		oset_erase(&m->set[0], b->addr, 0);
	else
		oset_erase(&m->set[0], b->size, b->addr);
}

static int
find_hole(const struct model *m, int64_t n)
{
	int k = first_fit(m) ? oset_first_val(&m->set[0], n) :
			       oset_lower(&m->set[0], n, 0);

	return k < 0 ? -1 : m->set[0].n[k].id;
}

/* A new block at the top; the heap grows past its high-water mark. */
static int
at_top(struct model *m, int64_t n)
{
	int64_t top = m->last >= 0 ? m->b[m->last].addr + m->b[m->last].size :
				     0;
	int h = blk_new(m, top, n);

	m->b[h].prev = m->last;
	if (m->last >= 0)
		m->b[m->last].next = h;
	m->last = h;
	if (top + n > m->vtop) {
		model_reserve(m, m->vtop, top + n - m->vtop);
		m->vtop = top + n;
	}
	return h;
}

int
heap_alloc(struct model *m, int64_t n)
{
	int h = find_hole(m, n);

	if (h < 0) {
		h = at_top(m, n);
	} else {
		erase_hole(m, h);
		if (m->b[h].size > n)
			insert_hole(m, blk_split(m, h, n));
	}
	model_use(m, h);
	return h;
}

void
heap_free(struct model *m, int h)
{
	int n = m->b[h].next, p = m->b[h].prev;

	model_unuse(m, h);
	if (n >= 0 && !m->b[n].used) {
		erase_hole(m, n);
		blk_join(m, h, n);
	}
	if (p >= 0 && !m->b[p].used) {
		erase_hole(m, p);
		blk_join(m, p, h);
		h = p;
	}
	if (m->last == h) {	/* back to the top */
		m->last = m->b[h].prev;
		if (m->last >= 0)
			m->b[m->last].next = -1;
		blk_del(m, h);
		return;
	}
	insert_hole(m, h);
}

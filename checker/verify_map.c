/* The verifier's memory: which tag every byte holds, as a treap of disjoint
 * segments ordered by address, with a journal of what each assignment
 * replaced.  Symbolic: a segment costs the same whatever its size. */
#include <stdlib.h>
#include <string.h>

#include "checker/verify_internal.h"

struct seg {
	uint64_t lo, hi;
	uint32_t tag, prio;
	int kid[2];		/* -1: none */
};

struct vmap {
	struct seg *s;
	int nseg, cap, free;	/* free: a list through kid[0] */
	int root;
	uint32_t seed;
	struct vm_piece *jr;	/* the journal */
	size_t njr, capjr;
};

static void *
grow(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		abort();
	return p;
}

struct vmap *
vm_new(void)
{
	struct vmap *m = calloc(1, sizeof *m);

	if (!m)
		abort();
	m->root = m->free = -1;
	m->seed = 2463534242u;
	return m;
}

void
vm_free(struct vmap *m)
{
	if (!m)
		return;
	free(m->s);
	free(m->jr);
	free(m);
}

static int
new_seg(struct vmap *m, uint64_t lo, uint64_t hi, uint32_t tag)
{
	int x = m->free;

	if (x >= 0) {
		m->free = m->s[x].kid[0];
	} else {
		if (m->nseg == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 1024;
			m->s = grow(m->s, sizeof *m->s * (size_t)m->cap);
		}
		x = m->nseg++;
	}
	m->seed ^= m->seed << 13;	/* xorshift32: the same on every run */
	m->seed ^= m->seed >> 17;
	m->seed ^= m->seed << 5;
	m->s[x] = (struct seg){lo, hi, tag, m->seed, {-1, -1}};
	return x;
}

/* Splits t into the segments starting before key (*l) and the rest. */
static void
split(struct seg *s, int t, uint64_t key, int *l, int *r)
{
	if (t < 0) {
		*l = *r = -1;
	} else if (s[t].lo < key) {
		*l = t;
		split(s, s[t].kid[1], key, &s[t].kid[1], r);
	} else {
		*r = t;
		split(s, s[t].kid[0], key, l, &s[t].kid[0]);
	}
}

static int
merge(struct seg *s, int l, int r)
{
	if (l < 0 || r < 0)
		return l < 0 ? r : l;
	if (s[l].prio > s[r].prio) {
		s[l].kid[1] = merge(s, s[l].kid[1], r);
		return l;
	}
	s[r].kid[0] = merge(s, l, s[r].kid[0]);
	return r;
}

/* No segment straddles key afterwards: one that did is cut in two. */
static void
cut(struct vmap *m, uint64_t key)
{
	int t = m->root, at = -1, x, l, r;

	while (t >= 0) {	/* the last segment starting before key */
		if (m->s[t].lo < key) {
			at = t;
			t = m->s[t].kid[1];
		} else {
			t = m->s[t].kid[0];
		}
	}
	if (at < 0 || m->s[at].hi <= key)
		return;
	x = new_seg(m, key, m->s[at].hi, m->s[at].tag);
	m->s[at].hi = key;
	split(m->s, m->root, key, &l, &r);
	m->root = merge(m->s, merge(m->s, l, x), r);
}

static void
journal(struct vmap *m, uint64_t lo, uint64_t hi, uint32_t tag)
{
	if (m->njr == m->capjr) {
		m->capjr = m->capjr ? 2 * m->capjr : 1024;
		m->jr = grow(m->jr, sizeof *m->jr * m->capjr);
	}
	m->jr[m->njr++] = (struct vm_piece){lo, hi, tag};
}

/* Journals the pieces of tree t (all inside [*at, hi)), gaps included,
 * and frees its segments. */
static void
drop(struct vmap *m, int t, uint64_t *at, int record)
{
	struct seg *x;

	if (t < 0)
		return;
	drop(m, m->s[t].kid[0], at, record);
	x = &m->s[t];
	if (record && *at < x->lo)
		journal(m, *at, x->lo, 0);
	if (record)
		journal(m, x->lo, x->hi, x->tag);
	*at = x->hi;
	drop(m, x->kid[1], at, record);
	m->s[t].kid[0] = m->free;
	m->free = t;
}

/* The segment that starts at lo, or -1. */
static int
find(const struct vmap *m, uint64_t lo)
{
	int t = m->root;

	while (t >= 0 && m->s[t].lo != lo)
		t = m->s[t].kid[m->s[t].lo < lo];
	return t;
}

static void
assign(struct vmap *m, uint64_t lo, uint64_t hi, uint32_t tag, int record)
{
	int l, mid, r, t;
	uint64_t at = lo;

	if (lo >= hi)
		return;
	if (record)
		journal(m, lo, hi, VM_WRITTEN);
	t = find(m, lo);
	if (t >= 0 && m->s[t].hi == hi && tag) {	/* the common case: the
							   same bytes again */
		if (record)
			journal(m, lo, hi, m->s[t].tag);
		m->s[t].tag = tag;
		return;
	}
	cut(m, lo);
	cut(m, hi);
	split(m->s, m->root, lo, &l, &mid);
	split(m->s, mid, hi, &mid, &r);
	drop(m, mid, &at, record);
	if (record && at < hi)
		journal(m, at, hi, 0);
	if (tag) {
		int x = new_seg(m, lo, hi, tag);	/* may move m->s */

		l = merge(m->s, l, x);
	}
	m->root = merge(m->s, l, r);
}

void
vm_assign(struct vmap *m, uint64_t lo, uint64_t hi, uint32_t tag)
{
	assign(m, lo, hi, tag, 1);
}

struct walk {
	uint64_t lo, hi, at;
	int (*fn)(void *, const struct vm_piece *);
	void *arg;
};

static int
visit(const struct seg *s, int t, struct walk *w)
{
	struct vm_piece p;
	int r;

	if (t < 0)
		return 0;
	if (s[t].hi <= w->lo)
		return visit(s, s[t].kid[1], w);
	if (s[t].lo >= w->hi)
		return visit(s, s[t].kid[0], w);
	if ((r = visit(s, s[t].kid[0], w)))
		return r;
	if (w->at < s[t].lo) {
		p = (struct vm_piece){w->at, s[t].lo, 0};
		if ((r = w->fn(w->arg, &p)))
			return r;
	}
	p = (struct vm_piece){s[t].lo > w->lo ? s[t].lo : w->lo,
			      s[t].hi < w->hi ? s[t].hi : w->hi, s[t].tag};
	if ((r = w->fn(w->arg, &p)))
		return r;
	w->at = p.hi;
	return visit(s, s[t].kid[1], w);
}

int
vm_visit(const struct vmap *m, uint64_t lo, uint64_t hi,
	 int (*fn)(void *arg, const struct vm_piece *p), void *arg)
{
	struct walk w = {lo, hi, lo, fn, arg};
	struct vm_piece p;
	int r;

	if (lo >= hi)
		return 0;
	if ((r = visit(m->s, m->root, &w)))
		return r;
	if (w.at < hi) {
		p = (struct vm_piece){w.at, hi, 0};
		return fn(arg, &p);
	}
	return 0;
}

size_t
vm_mark(const struct vmap *m)
{
	return m->njr;
}

const struct vm_piece *
vm_journal(const struct vmap *m, size_t mark, size_t *n)
{
	*n = m->njr - mark;
	return *n ? m->jr + mark : NULL;
}

void
vm_undo(struct vmap *m, size_t mark)
{
	while (m->njr > mark) {
		struct vm_piece p = m->jr[--m->njr];

		if (p.tag != VM_WRITTEN)
			assign(m, p.lo, p.hi, p.tag, 0);
	}
}

void
vm_forget_since(struct vmap *m, size_t mark)
{
	if (mark < m->njr)
		m->njr = mark;
}

void
vm_forget(struct vmap *m)
{
	m->njr = 0;
}

/* An ordered set for the allocator models: a treap (split and merge) keyed
 * by (a, b), whose nodes carry the largest value of their subtree so that
 * first fit finds the lowest address with room in O(log n).  Priorities
 * come from a fixed xorshift seed: the same operations give the same tree. */
#include <stdlib.h>

#include "allocators/alloc.h"

void
oset_init(struct oset *s)
{
	*s = (struct oset){.root = -1, .free = -1, .seed = 2463534242u};
}

void
oset_done(struct oset *s)
{
	free(s->n);
	oset_init(s);
}

static int
key_less(const struct onode *x, int64_t a, int64_t b)
{
	return x->a < a || (x->a == a && x->b < b);
}

static void
update(struct oset *s, int t)
{
	struct onode *x = &s->n[t];

	x->mx = x->val;
	if (x->l >= 0 && s->n[x->l].mx > x->mx)
		x->mx = s->n[x->l].mx;
	if (x->r >= 0 && s->n[x->r].mx > x->mx)
		x->mx = s->n[x->r].mx;
}

/* Splits t into keys < (a, b) and keys >= (a, b). */
static void
split(struct oset *s, int t, int64_t a, int64_t b, int *lo, int *hi)
{
	if (t < 0) {
		*lo = *hi = -1;
		return;
	}
	if (key_less(&s->n[t], a, b)) {
		split(s, s->n[t].r, a, b, &s->n[t].r, hi);
		*lo = t;
	} else {
		split(s, s->n[t].l, a, b, lo, &s->n[t].l);
		*hi = t;
	}
	update(s, t);
}

/* Every key of lo is below every key of hi. */
static int
merge(struct oset *s, int lo, int hi)
{
	if (lo < 0 || hi < 0)
		return lo < 0 ? hi : lo;
	if (s->n[lo].pri > s->n[hi].pri) {
		s->n[lo].r = merge(s, s->n[lo].r, hi);
		update(s, lo);
		return lo;
	}
	s->n[hi].l = merge(s, lo, s->n[hi].l);
	update(s, hi);
	return hi;
}

static int
node_new(struct oset *s)
{
	int k;

	if (s->free >= 0) {
		k = s->free;
		s->free = s->n[k].l;
		return k;
	}
	if (s->len == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->n = realloc(s->n, sizeof *s->n * (size_t)s->cap);
		if (!s->n)
			abort();	/* out of memory, as in the pool */
	}
	return s->len++;
}

void
oset_insert(struct oset *s, int64_t a, int64_t b, int64_t val, int id)
{
	int k = node_new(s), lo, hi;

	s->seed ^= s->seed << 13;
	s->seed ^= s->seed >> 17;
	s->seed ^= s->seed << 5;
	s->n[k] = (struct onode){a, b, val, val, id, -1, -1, s->seed};
	split(s, s->root, a, b, &lo, &hi);
	s->root = merge(s, merge(s, lo, k), hi);
}

void
oset_erase(struct oset *s, int64_t a, int64_t b)
{
	int lo, mid, hi;

	split(s, s->root, a, b, &lo, &hi);
	split(s, hi, a, b + 1, &mid, &hi);
	for (int k = mid; k >= 0;) {	/* at most one node: keys are unique */
		int next = s->n[k].r;

		s->n[k].l = s->free;
		s->free = k;
		k = next;
	}
	s->root = merge(s, lo, hi);
}

int
oset_lower(const struct oset *s, int64_t a, int64_t b)
{
	int t = s->root, best = -1;

	while (t >= 0) {
		if (key_less(&s->n[t], a, b)) {
			t = s->n[t].r;
		} else {
			best = t;
			t = s->n[t].l;
		}
	}
	return best;
}

int
oset_first_val(const struct oset *s, int64_t v)
{
	int t = s->root;

	if (t < 0 || s->n[t].mx < v)
		return -1;
	for (;;) {
		int l = s->n[t].l;

		if (l >= 0 && s->n[l].mx >= v)
			t = l;
		else if (s->n[t].val >= v)
			return t;
		else
			t = s->n[t].r;
	}
}

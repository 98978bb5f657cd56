/* verify: an independent check of a finished plan (doc/model.md).  It
 * trusts no pass: bounds, alignment and overlap are checked from the plan's
 * numbers alone (here), and every value by running the plan symbolically
 * from the IR, the plan's steps, places and copies (verify_run.c). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checker/verify_internal.h"
#include "checker/verify.h"
#include "ir/ir.h"

static int
fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return 1;
}

static const struct arena *
arena_of(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return &pl->arenas[a];
	return NULL;
}

static int
check_buffer(const struct plan *pl, const struct buffer *b, char *err,
	     size_t n)
{
	const struct arena *a = arena_of(pl, b->space);

	if (b->size < b->bytes && !(b->flags & BUF_CONST))
		return fail(err, n, "buffer '%s' has %lld bytes, less than its "
			    "shape's %lld", b->name, (long long)b->size,
			    (long long)b->bytes);
	if (b->start < 0 || b->end < b->start || b->end >= pl->ntime)
		return fail(err, n, "buffer '%s' has a bad interval [%d, %d]",
			    b->name, b->start, b->end);
	if (b->slots < 1 || (b->slots > 1 &&
			     (b->stride < b->bytes || b->stride % pl->align ||
			      b->stride > b->size / b->slots ||
			      b->stride * b->slots != b->size)))
		return fail(err, n, "buffer '%s' has %d slots of stride %lld "
			    "that do not hold it in %lld bytes", b->name,
			    b->slots, (long long)b->stride, (long long)b->size);
	if (!b->in_arena)
		return 0;
	if (!a)
		return fail(err, n, "buffer '%s' is in S(%d), which has no "
			    "arena", b->name, b->space);
	if (b->offset < 0 || b->offset % pl->align ||
	    b->size > a->size || b->offset > a->size - b->size)
		return fail(err, n, "buffer '%s' at offset %lld size %lld is "
			    "not aligned inside its %lld-byte arena", b->name,
			    (long long)b->offset, (long long)b->size,
			    (long long)a->size);
	if (a->size % pl->align)
		return fail(err, n, "arena S(%d) size is not aligned", a->space);
	return 0;
}

enum { RADIX_BITS = 11, RADIX = 1 << RADIX_BITS };

/* Sorts a[0..m) by the bits of each above bit 31, stably: LSD radix, 11
 * bits a pass, up to the highest bit set; tmp holds m. */
static void
radix_sort(uint64_t *a, uint64_t *tmp, int m)
{
	uint64_t *src = a, *dst = tmp, *t, any = 0;
	int count[RADIX];

	for (int i = 0; i < m; i++)
		any |= a[i];
	for (int sh = 32; sh < 64 && any >> sh; sh += RADIX_BITS) {
		memset(count, 0, sizeof count);
		for (int i = 0; i < m; i++)
			count[src[i] >> sh & (RADIX - 1)]++;
		for (int d = 0, sum = 0, c; d < RADIX; d++) {
			c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (int i = 0; i < m; i++)
			dst[count[src[i] >> sh & (RADIX - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof *a * (size_t)m);
}

/* A buffer that takes arena bytes, as the sweep reads it. */
struct item {
	int64_t offset, top;
	int32_t start, end;
	int space, buf;
};

/* The m buffers that take arena bytes, in start order: a sort of
 * (start, index) keys in key (room for 2 * nbuf), then one pass that
 * gathers them, so that the sweep reads them in order. */
static struct item *
items_by_start(const struct plan *pl, uint64_t *key, int *m)
{
	struct item *it;

	*m = 0;
	for (int b = 0; b < pl->nbuf; b++)
		if (pl->bufs[b].in_arena && pl->bufs[b].size > 0)
			key[(*m)++] = (uint64_t)pl->bufs[b].start << 32 |
				      (uint32_t)b;
	radix_sort(key, key + *m, *m);
	it = malloc(sizeof *it * ((size_t)*m + 1));
	if (!it)
		abort();
	for (int k = 0; k < *m; k++) {
		const struct buffer *b = &pl->bufs[(uint32_t)key[k]];

		it[k] = (struct item){b->offset, b->offset + b->size, b->start,
				      b->end, b->space, (int)(uint32_t)key[k]};
	}
	return it;
}

/* The live buffers of the sweep: a treap ordered by (space, offset, i),
 * i the buffer's index among those checked.  Its nodes come from a pool
 * that reuses freed ones, so it stays as small as the most buffers live
 * at once.  (Not pack_check's structure, on purpose: the two verifiers
 * should not share a mistake.) */
struct node {
	int64_t offset, top;
	int space, i;
	uint32_t prio;		/* random; above its children's */
	int kid[2];		/* -1: none */
};

struct treap {
	struct node *n;
	int root, nused, free;	/* free: a list through kid[0] */
	uint32_t seed;
};

static int
before(const struct node *x, const struct node *y)
{
	if (x->space != y->space)
		return x->space < y->space;
	if (x->offset != y->offset)
		return x->offset < y->offset;
	return x->i < y->i;
}

/* The nearest nodes before and after a new node, met on its way down. */
struct near {
	int pred, succ;
};

/* Splits treap t into the nodes before x (*l) and those after it (*r). */
static void
split(struct node *n, int t, int x, int *l, int *r, struct near *nb)
{
	if (t < 0) {
		*l = *r = -1;
	} else if (before(&n[t], &n[x])) {
		*l = nb->pred = t;
		split(n, n[t].kid[1], x, &n[t].kid[1], r, nb);
	} else {
		*r = nb->succ = t;
		split(n, n[t].kid[0], x, l, &n[t].kid[0], nb);
	}
}

/* Treap t with node x, which it does not hold. */
static int
insert(struct node *n, int t, int x, struct near *nb)
{
	int d;

	if (t < 0 || n[x].prio > n[t].prio) {
		split(n, t, x, &n[x].kid[0], &n[x].kid[1], nb);
		return x;
	}
	d = before(&n[t], &n[x]);
	if (d)
		nb->pred = t;
	else
		nb->succ = t;
	n[t].kid[d] = insert(n, n[t].kid[d], x, nb);
	return t;
}

/* Joins treaps l and r, every node of l before every node of r. */
static int
merge(struct node *n, int l, int r)
{
	if (l < 0 || r < 0)
		return l < 0 ? r : l;
	if (n[l].prio > n[r].prio) {
		n[l].kid[1] = merge(n, n[l].kid[1], r);
		return l;
	}
	n[r].kid[0] = merge(n, l, n[r].kid[0]);
	return r;
}

/* Treap t without node x, which it holds. */
static int
erase(struct node *n, int t, int x)
{
	int d;

	if (t == x)
		return merge(n, n[t].kid[0], n[t].kid[1]);
	d = before(&n[t], &n[x]);
	n[t].kid[d] = erase(n, n[t].kid[d], x);
	return t;
}

/* Do two live buffers of one space share a byte? */
static int
clash(const struct node *x, const struct node *y)
{
	return x->space == y->space && x->offset < y->top &&
	       y->offset < x->top;
}

/* Adds buffer b (i among those checked) to the live set; returns its node,
 * and sets *y to the live buffer it shares a byte with, or -1.  Live
 * buffers of a space are disjoint (else the sweep would have stopped), so
 * their tops rise with their offsets: if any overlaps b, its nearest
 * neighbour by offset on that side does. */
static int
treap_add(struct treap *tr, const struct item *b, int i, int *y)
{
	struct node *n = tr->n;
	struct near nb = {-1, -1};
	int x = tr->free;

	if (x >= 0)
		tr->free = n[x].kid[0];
	else
		x = tr->nused++;
	tr->seed ^= tr->seed << 13;	/* xorshift32 */
	tr->seed ^= tr->seed >> 17;
	tr->seed ^= tr->seed << 5;
	n[x] = (struct node){b->offset, b->top, b->space, i, tr->seed,
			     {-1, -1}};
	tr->root = insert(n, tr->root, x, &nb);
	*y = nb.pred >= 0 && clash(&n[nb.pred], &n[x]) ? n[nb.pred].i :
	     nb.succ >= 0 && clash(&n[nb.succ], &n[x]) ? n[nb.succ].i : -1;
	return x;
}

static void
treap_remove(struct treap *tr, int x)
{
	tr->root = erase(tr->n, tr->root, x);
	tr->n[x].kid[0] = tr->free;
	tr->free = x;
}

/* " (x.py:12, jit(f)/dot)" after a buffer's name, when its source is
 * known. */
static const char *
buf_source(const struct buffer *b, char *buf, size_t n)
{
	char w[160];

	src_where(w, sizeof w, b->src_file, b->src_line, b->op_name);
	snprintf(buf, n, "%s%s%s", w[0] ? " (" : "", w, w[0] ? ")" : "");
	return buf;
}

static int
overlap(const struct plan *pl, int a, int b, char *err, size_t n)
{
	char sa[168], sb[168];

	return fail(err, n, "buffers '%s'%s and '%s'%s are live at once and "
		    "overlap", pl->bufs[a].name,
		    buf_source(&pl->bufs[a], sa, sizeof sa), pl->bufs[b].name,
		    buf_source(&pl->bufs[b], sb, sizeof sb));
}

/* Buffers live at one time in one space share no byte: a sweep in start
 * order over the live buffers, ordered by offset; O(n log n).  Intervals
 * are closed: a buffer retires once its end is before the newcomer's
 * start (the newcomer's own end, which is not, stops the retiring). */
static int
check_overlap(const struct plan *pl, char *err, size_t n)
{
	uint64_t *ends = malloc(sizeof *ends * (2 * (size_t)pl->nbuf + 1));
	int *node = malloc(sizeof *node * ((size_t)pl->nbuf + 1));
	struct treap tr = {malloc(sizeof *tr.n * ((size_t)pl->nbuf + 1)),
			   -1, 0, -1, 1};
	struct item *it;
	int m, y = -1;

	if (!ends || !node || !tr.n)
		abort();
	it = items_by_start(pl, ends, &m);
	for (int k = 0; k < m; k++)	/* (end, index in it) */
		ends[k] = (uint64_t)it[k].end << 32 | (uint32_t)k;
	radix_sort(ends, ends + m, m);
	for (int k = 0, e = 0; k < m && y < 0; k++) {
		for (; (int32_t)(ends[e] >> 32) < it[k].start; e++)
			treap_remove(&tr, node[(uint32_t)ends[e]]);
		node[k] = treap_add(&tr, &it[k], k, &y);
		if (y >= 0)
			overlap(pl, it[y].buf, it[k].buf, err, n);
	}
	free(ends);
	free(node);
	free(tr.n);
	free(it);
	return y >= 0;
}

static int
live_at(const struct plan *pl, int b, int32_t t)
{
	return pl->bufs[b].start <= t && t <= pl->bufs[b].end;
}

/* A copy's two buffers are live where it happens and hold its bytes. */
static int
check_copies(const struct plan *pl, char *err, size_t n)
{
	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *c = &pl->copies[k];

		if (c->src < 0 || c->src >= pl->nbuf || c->dst < 0 ||
		    c->dst >= pl->nbuf || c->src == c->dst)
			return fail(err, n, "copy %d has bad buffers", k);
		if (!live_at(pl, c->src, c->step) ||
		    !live_at(pl, c->dst, c->step) ||
		    pl->bufs[c->src].size < c->bytes ||
		    pl->bufs[c->dst].size < c->bytes)
			return fail(err, n, "copy of '%s' into '%s' at step %d: "
				    "a buffer is not live there or too small",
				    pl->bufs[c->src].name,
				    pl->bufs[c->dst].name, c->step);
	}
	return 0;
}

int
verify_layout(const struct plan *pl, char *err, size_t errlen)
{
	for (int b = 0; b < pl->nbuf; b++)
		if (check_buffer(pl, &pl->bufs[b], err, errlen))
			return 1;
	return check_overlap(pl, err, errlen) ||
	       check_copies(pl, err, errlen);
}

int
verify_plan(const struct module *m, const struct options *o,
	    const struct plan *pl, char *err, size_t errlen)
{
	return verify_layout(pl, err, errlen) ||
	       verify_values(m, o, pl, err, errlen);
}

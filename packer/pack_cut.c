/* Cutting a huge piece in time.  One best-fit tree over 10^6 boxes spends
 * its time in cache misses; windows of some thousands of boxes fit in
 * cache.  The cuts go where few bytes cross; the boxes crossing a cut are
 * packed first, among themselves and around the pinned boxes, then pinned
 * in turn, and each window is packed around them as a problem of its own:
 * the same phases, on a small tree, the windows on a thread per processor
 * (the plan is the same for any number). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "packer/pack_internal.h"

/* A piece is left whole when more than 1/CROSS_MAX of its boxes cross
 * a cut.  After best fit in every window, the window setting the height
 * gets what is left of the budget, and at least 1/IMPROVE_SHARE of it. */
enum { CROSS_MAX = 4, IMPROVE_SHARE = 4 };

struct cuts {
	int n;
	int *rank;		/* a cut just before rank[i] (a local rank) */
	int64_t *time;		/* ... at the start of that rank */
};

/* cross[r]: the bytes of boxes that start before rank r and are still
 * live when r starts (those a cut just before r would cut); -1 where r
 * starts with r - 1, as no cut can fall there. */
static int64_t *
crossing_bytes(const struct local *L)
{
	struct pack_kv *kv = pack_xmalloc((size_t)L->n * sizeof *kv);
	int64_t *cross = pack_xmalloc((size_t)L->n * sizeof *cross);
	int64_t cur = 0;
	int e = 0;

	for (int k = 0; k < L->n; k++)
		kv[k] = (struct pack_kv){ L->end[k], k };
	pack_sort_kv(kv, L->n);
	cross[0] = -1;
	for (int r = 1; r < L->n; r++) {
		cur += L->size[r - 1];
		/* a box that ends before r starts has a rank below r */
		for (; e < L->n && kv[e].key < L->start[r]; e++)
			cur -= L->size[kv[e].i];
		cross[r] = L->start[r] > L->start[r - 1] ? cur : -1;
	}
	free(kv);
	return cross;
}

/* Every PK_CUT_WINDOW boxes or so, the cut with the fewest bytes crossing
 * among the ranks half a window either side. */
static void
choose_cuts(const struct local *L, const int64_t *cross, struct cuts *c)
{
	int last = 0, cap = 16;

	c->n = 0;
	c->rank = pack_xmalloc((size_t)cap * sizeof *c->rank);
	while (L->n - last >= 3 * PK_CUT_WINDOW / 2) {
		int best = -1;
		int end = last + 3 * PK_CUT_WINDOW / 2;

		for (int r = last + PK_CUT_WINDOW / 2; r < end; r++)
			if (cross[r] >= 0 && (best < 0 || cross[r] < cross[best]))
				best = r;
		if (best < 0) {	/* one start time all along: look further */
			last = end;
			continue;
		}
		if (c->n == cap) {
			cap *= 2;
			c->rank = pack_xrealloc(c->rank,
						(size_t)cap * sizeof *c->rank);
		}
		c->rank[c->n++] = best;
		last = best;
	}
	c->time = pack_xmalloc(((size_t)c->n + 1) * sizeof *c->time);
	for (int i = 0; i < c->n; i++)
		c->time[i] = L->start[c->rank[i]];
}

/* 1 when box k is live across a cut: it starts before the cut's time and
 * ends at or after it. */
static int
crosses(const struct local *L, const struct cuts *c, int k)
{
	int next = pk_upper_rank(c->time, c->n, L->start[k]);

	return next < c->n && c->time[next] <= L->end[k];
}

static struct box
box_of(const struct local *L, int k)
{
	return (struct box){ .start = L->start[k], .end = L->end[k],
			     .size = L->size[k], .align = L->align[k],
			     .pin = L->pin[k], .id = k };
}

/* Packs the crossing boxes (cross[k] set) among themselves and around
 * the pinned boxes (which the windows keep where they are), best fit in
 * one order; their offsets go to L->off.  Returns their height. */
static int64_t
pack_crossing(struct packer *P, const struct local *L, const char *cross,
	      int ncross)
{
	struct boxes x = { 0 };
	int npin = 0;

	for (int k = 0; k < L->n; k++)
		npin += !cross[k] && L->pin[k] >= 0;
	x.b = pack_xmalloc(((size_t)ncross + (size_t)npin) * sizeof *x.b + 1);
	for (int k = 0; k < L->n; k++)
		if (cross[k] || L->pin[k] >= 0)
			x.b[x.n++] = box_of(L, k);
	P->steps += pk_pack_part(&x, 0, 0);
	for (int i = 0; i < x.n; i++)
		if (cross[x.b[i].id])
			L->off[x.b[i].id] = x.b[i].offset;
	free(x.b);
	return x.height;
}

/* A window: the boxes of ranks [a, b) that cross no cut, packed around
 * the crossing boxes live in it, act[0..nact) of the cut piece's list. */
struct window {
	int a, b;
	int act, nact;
	int64_t height;
	long steps;		/* of the first pass */
};

/* Packs window w within budget, content with height floor; the crossing
 * boxes are pinned where they are and cut to the window's time.  Keeps the
 * plan when it is lower than the window's (INT64_MAX at first).  Writes
 * the offsets of w's own boxes only; returns the steps spent. */
static long
pack_window(const struct local *L, const char *cross, const int *act,
	    struct window *w, long budget, int64_t floor)
{
	long steps;
	struct boxes x = { 0 };
	int64_t t0 = L->start[w->a], t1 = INT64_MAX;

	if (w->b < L->n)
		t1 = L->start[w->b] - 1;
	x.b = pack_xmalloc(((size_t)(w->b - w->a) + (size_t)w->nact) *
			   sizeof *x.b + 1);
	for (int i = 0; i < w->nact; i++) {
		struct box *y = &x.b[x.n++];
		int k = act[w->act + i];

		*y = box_of(L, k);
		y->start = max64(y->start, t0);
		y->end = y->end < t1 ? y->end : t1;
		y->pin = L->off[k];
		y->id = -1;
	}
	for (int k = w->a; k < w->b; k++)
		if (!cross[k])
			x.b[x.n++] = box_of(L, k);
	steps = pk_pack_part(&x, budget, floor);
	if (x.height < w->height) {
		w->height = x.height;
		for (int i = 0; i < x.n; i++)
			if (x.b[i].id >= 0)
				L->off[x.b[i].id] = x.b[i].offset;
	}
	free(x.b);
	return steps;
}

/* The first pass: best fit in one order in every window. */
struct sweep {
	const struct local *L;
	const char *cross;
	const int *act;
	struct window *w;
	int nw;
	int64_t floor;
	atomic_int next;	/* the next window to take */
};

static void *
sweep_windows(void *arg)
{
	struct sweep *s = arg;

	for (int i; (i = atomic_fetch_add(&s->next, 1)) < s->nw;)
		s->w[i].steps = pack_window(s->L, s->cross, s->act, &s->w[i],
					    0, s->floor);
	return NULL;
}

/* The windows are independent once the crossing boxes are placed, and
 * each is packed the same whichever thread takes it: so the pass runs on
 * pk_threads(P) threads, and the plan does not depend on their number. */
static void
sweep(struct packer *P, struct sweep *s)
{
	int nt = pk_threads(P);
	pthread_t t[PK_THREADS_MAX];
	int started = 0;

	atomic_init(&s->next, 0);
	for (int i = 1; i < nt && i < s->nw; i++)
		if (pthread_create(&t[started], NULL, sweep_windows, s) == 0)
			started++;
	sweep_windows(s);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < s->nw; i++)
		P->steps += s->w[i].steps;
}

/* The windows between the cuts, each with the crossing boxes live in it:
 * those live at its first start, and those starting in it.  act gets the
 * lists, one after another (at most ncross boxes per window). */
static struct window *
make_windows(const struct local *L, const struct cuts *c, const char *cross,
	     int ncross, int **act)
{
	struct window *w = pack_xmalloc(((size_t)c->n + 1) * sizeof *w);
	int *live = pack_xmalloc((size_t)ncross * sizeof *live);
	int nlive = 0, cap = 2 * ncross + 16, used = 0, a = 0;

	*act = pack_xmalloc((size_t)cap * sizeof **act);
	for (int i = 0; i <= c->n; i++) {
		int b = i < c->n ? c->rank[i] : L->n, m = 0;

		for (int j = 0; j < nlive; j++)	/* still live at a's start */
			if (L->end[live[j]] >= L->start[a])
				live[m++] = live[j];
		for (int k = a; k < b; k++)
			if (cross[k])
				live[m++] = k;
		nlive = m;
		if (used + nlive > cap) {
			cap = 2 * (used + nlive);
			*act = pack_xrealloc(*act, (size_t)cap * sizeof **act);
		}
		memcpy(*act + used, live, (size_t)nlive * sizeof *live);
		w[i] = (struct window){ a, b, used, nlive, INT64_MAX, 0 };
		used += nlive;
		a = b;
	}
	free(live);
	return w;
}

/* The highest window, and the height of the next highest. */
static int
highest(const struct window *w, int n, int64_t *second)
{
	int top = 0;

	*second = 0;
	for (int i = 1; i < n; i++)
		if (w[i].height > w[top].height)
			top = i;
	for (int i = 0; i < n; i++)
		if (i != top)
			*second = max64(*second, w[i].height);
	return top;
}

int
pk_cut_piece(struct packer *P, struct piece *p, long budget)
{
	struct local L = pk_local_of(P, p);
	int64_t *cbytes = crossing_bytes(&L);
	int64_t hx, second;
	struct window *w;
	struct cuts c;
	char *cross;
	int *act, ncross = 0, nw;
	long end;

	choose_cuts(&L, cbytes, &c);
	free(cbytes);
	cross = pack_xcalloc((size_t)L.n, 1);
	for (int k = 0; k < L.n; k++)
		ncross += cross[k] = (char)crosses(&L, &c, k);
	if (c.n == 0 || ncross > L.n / CROSS_MAX) {
		free(c.rank);
		free(c.time);
		free(cross);
		return 0;
	}
	end = P->steps + budget;
	hx = pack_crossing(P, &L, cross, ncross);
	nw = c.n + 1;
	w = make_windows(&L, &c, cross, ncross, &act);
	sweep(P, &(struct sweep){ .L = &L, .cross = cross, .act = act,
				  .w = w, .nw = nw, .floor = P->target });
	/* then, unless greedy only, the budget (at least IMPROVE_SHARE of it)
	 * to the window that sets the height, while it comes down below the
	 * others */
	end = max64(end, P->steps + budget / IMPROVE_SHARE);
	while (!P->greedy_only) {
		int top = highest(w, nw, &second);
		int64_t before = w[top].height;

		/* a tie at the top cannot come down one window at a time */
		if (before <= max64(P->target, hx) || before <= second ||
		    P->steps >= end)
			break;
		P->steps += pack_window(&L, cross, act, &w[top],
					end - P->steps,
					max64(P->target, second));
		if (w[top].height >= before)
			break;
	}
	p->height = hx;
	for (int i = 0; i < nw; i++)
		p->height = max64(p->height, w[i].height);
	free(w);
	free(act);
	free(c.rank);
	free(c.time);
	free(cross);
	return 1;
}

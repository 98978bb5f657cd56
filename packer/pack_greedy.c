/* Best fit and first fit over the gaps between placed neighbours, boxes in
 * one of several orders: XLA's GlobalDecreasingSizeBestFit (spatial: by
 * size; temporal: by duration; by start, as its fast merge), TFLite's
 * greedy-by-size, the orders of fpedd/omnimalloc's portfolio (input order,
 * area, conflict degree, degree times size), minimalloc's lifetime peaks,
 * and plain decreasing size in input order; and squeaky-wheel iterated
 * greedy over the best of them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "packer/pack_internal.h"

/* A run or box read by best fit (listed, sorted, scanned) is worth about
 * four units of search bookkeeping: steps are weighted so. */
enum { GREEDY_STEP = 4 };
/* The orders, by number: keys in order_key. */
enum {
	BY_SIZE, BY_SIZE_CLASS, BY_AREA, BY_DURATION, BY_START, BY_PEAK,
	BY_PEAK_AREA, BY_INPUT, BY_DEGREE, BY_DEGREE_SIZE, BY_SIZE_INPUT
};
/* ---- greedy: best fit in one order --------------------------------------- */

/* A pass's height rose to h, steps into it. */
struct rise {
	int64_t h;
	long steps;
};

struct worker;

/* The portfolio's workers and their threads: the calling thread's is
 * k[0]; it starts one more whenever it can take a processor from spare
 * (see grow_crew). */
struct crew {
	struct worker *k;
	pthread_t *t;
	int n;			/* workers made, k[0 .. n) */
	int started;		/* threads, t[0 .. started) */
	int taken;		/* processors taken from spare */
	struct pack_spare *spare;
};

/* The portfolio's passes on one piece, shared by its workers (below). */
struct portfolio {
	const struct local *L;
	struct crew *crew;
	atomic_int next;	/* in pass_seq */
	atomic_int last;	/* in pass_seq: no pass after it is needed */
	int npass;
	int64_t stop;		/* one_pass's */
	int64_t floor;		/* the piece's peak of live bytes */
	int cut;		/* pass 0 has not run */
	long steps[2 * PK_NORDER];	/* of each pass */
	/* On a piece not cut, by place in pass_seq: the height of the pass
	 * there once done, INT64_MAX before or when it gave up; its rises
	 * above the floor. */
	_Atomic int64_t done[2 * PK_NORDER];
	struct rise *rise[2 * PK_NORDER];
	int nrise[2 * PK_NORDER];
};

struct greedy {
	const struct local *L;
	struct gaps gaps;
	struct span *sp, *tmp;
	int *lo, *hi;		/* see rank_bounds */
	int64_t *off;		/* offsets of this pass; -1 if unplaced */
	int first_fit;		/* place by first fit, else best fit */
	int64_t stop;		/* a pass gives up at this height */
	long steps;
	/* A portfolio's pass at place w of pass_seq gives up (returning
	 * INT64_MAX) once one handed out before it has made it needless:
	 * when *last < w. */
	atomic_int *last;
	int w;
	/* A pass of the portfolio on a piece not cut also gives up once it
	 * cannot beat a pass handed out before it that is done (see
	 * earlier_stop); it notes each height it reaches above floor, and
	 * the steps to it, so that the steps it is charged do not depend on
	 * when the others finish. */
	struct portfolio *pf;
	struct rise *rise;
	int nrise, caprise;
};

static int64_t earlier_stop(struct portfolio *pf, int at, int bf);

/* Boxes placed between two looks at *last. */
enum { LAST_EVERY = 64 };

/* Merges a[lo..mid) and a[mid..hi), each sorted by lo, into out[lo..hi).
 * The list whose last span comes first runs out first: only its end is
 * watched. */
static void
merge2(const struct span *a, int lo, int mid, int hi, struct span *out)
{
	const struct span *i = a + lo, *j = a + mid, *ie = j, *je = a + hi;
	struct span *o = out + lo;

	if (ie[-1].lo <= je[-1].lo) {	/* ties take i: it runs out first */
		while (i < ie)
			*o++ = j->lo < i->lo ? *j++ : *i++;
	} else {
		while (j < je)
			*o++ = j->lo < i->lo ? *j++ : *i++;
	}
	while (i < ie)
		*o++ = *i++;
	while (j < je)
		*o++ = *j++;
}

/* The n spans of a, nseg lists sorted by lo (list i ending at seg[i]),
 * sorted by lo: merged pairwise, log2(nseg) rounds.  seg is overwritten;
 * tmp holds n spans; the result is in a or tmp, whichever is returned. */
static struct span *
merge_lists(struct span *a, int *seg, int nseg, struct span *tmp)
{
	while (nseg > 1) {
		int m = 0;
		struct span *t;

		for (int i = 0; i < nseg; i += 2) {
			int lo = i ? seg[i - 1] : 0;

			if (i + 1 < nseg) {
				merge2(a, lo, seg[i], seg[i + 1], tmp);
				seg[m++] = seg[i + 1];
			} else {
				memcpy(tmp + lo, a + lo,
				       (size_t)(seg[i] - lo) * sizeof *a);
				seg[m++] = seg[i];
			}
		}
		nseg = m;
		t = a;
		a = tmp;
		tmp = t;
	}
	return a;
}

/* The lowest offset in the smallest gap between spans (sorted by lo) that
 * holds size at align; above them all if no gap does. */
static int64_t
best_fit(const struct span *sp, int n, int64_t size, int64_t align)
{
	int64_t cur = 0, best = -1, bestgap = INT64_MAX;

	for (int i = 0; i < n; i++) {
		if (sp[i].lo > cur) {
			int64_t o = align_up(cur, align);

			if (o <= sp[i].lo - size && sp[i].lo - cur < bestgap) {
				best = o;
				bestgap = sp[i].lo - cur;
			}
		}
		cur = max64(cur, sp[i].hi);
	}
	return best >= 0 ? best : align_up(cur, align);
}

/* The lowest offset between spans (sorted by lo) that holds size at
 * align. */
static int64_t
first_fit(const struct span *sp, int n, int64_t size, int64_t align)
{
	int64_t cur = 0;

	for (int i = 0; i < n; i++) {
		int64_t o = align_up(cur, align);

		if (sp[i].lo > cur && o <= sp[i].lo - size)
			return o;
		cur = max64(cur, sp[i].hi);
	}
	return align_up(cur, align);
}

/* The bytes k's placed neighbours occupy, as spans sorted by lo, *m of
 * them. */
static struct span *
neighbours(struct greedy *G, int k, int *m)
{
	*m = pk_gaps_query(&G->gaps, k, G->off, G->sp);
	return merge_lists(G->sp, G->gaps.seg, G->gaps.nseg, G->tmp);
}

static int64_t
fit(struct greedy *G, int k)
{
	int m;
	struct span *sp = neighbours(G, k, &m);

	return G->first_fit ? first_fit(sp, m, G->L->size[k], G->L->align[k]) :
			      best_fit(sp, m, G->L->size[k], G->L->align[k]);
}

static void
place(struct greedy *G, int k, int64_t off)
{
	G->off[k] = off;
	pk_gaps_place(&G->gaps, k, off);
}

static void
note_rise(struct greedy *G, int64_t h)
{
	if (G->nrise == G->caprise) {
		G->caprise = G->caprise ? 2 * G->caprise : 64;
		G->rise = pack_xrealloc(G->rise, (size_t)G->caprise *
						 sizeof *G->rise);
	}
	G->rise[G->nrise++] = (struct rise){h, G->gaps.steps};
}

static int64_t
greedy_pass(struct greedy *G, const int *order, int norder)
{
	const struct local *L = G->L;
	int64_t h = 0;

	pk_gaps_clear(&G->gaps);
	for (int k = 0; k < L->n; k++)
		G->off[k] = -1;
	for (int k = 0; k < L->n; k++) {
		if (L->pin[k] < 0)
			continue;
		place(G, k, L->pin[k]);
		h = max64(h, L->pin[k] + L->size[k]);
	}
	for (int q = 0; q < norder && h < G->stop; q++) {
		int k = order[q];

		if (G->last && q % LAST_EVERY == 0) {
			if (atomic_load_explicit(G->last,
						 memory_order_relaxed) < G->w) {
				h = INT64_MAX;
				break;
			}
			if (G->pf)
				G->stop = min64(G->stop,
						earlier_stop(G->pf, G->w,
							     !G->first_fit));
			if (h >= G->stop)
				break;
		}
		place(G, k, fit(G, k));
		if (G->off[k] + L->size[k] > h) {
			h = G->off[k] + L->size[k];
			if (G->pf && h > G->pf->floor)
				note_rise(G, h);
		}
	}
	G->steps += GREEDY_STEP * G->gaps.steps;
	G->gaps.steps = 0;
	return h;
}

/* lo[k]: the first rank that starts with k; hi[k]: the first that starts
 * after k ends.  Box j is live when k starts, having started before, iff
 * lo[j] < lo[k] < hi[j]: the tree files j under [lo[j] + 1, hi[j]). */
static void
rank_bounds(const struct local *L, int *lo, int *hi)
{
	for (int k = 0; k < L->n; k++) {
		lo[k] = k > 0 && L->start[k] == L->start[k - 1] ? lo[k - 1] : k;
		hi[k] = pk_upper_rank(L->start, L->n, L->end[k]);
	}
}

/* peak[k]: the most bytes live at one time during box k's life (the
 * "total" of minimalloc), a range maximum of live[] over the ranks that
 * start inside [start[k], end[k]]. */
static int64_t *
lifetime_peaks(const struct local *L)
{
	int n = L->n, w = 1;
	int64_t *t, *peak = pack_xmalloc((size_t)n * sizeof *peak);

	while (w < n)
		w *= 2;
	t = pack_xmalloc(2 * (size_t)w * sizeof *t);
	for (int i = 0; i < w; i++)
		t[w + i] = i < n ? L->live[i] : 0;
	for (int i = w - 1; i > 0; i--)
		t[i] = max64(t[2 * i], t[2 * i + 1]);
	for (int k = 0; k < n; k++) {
		int64_t m = 0;
		int lo = k + w, hi = pk_upper_rank(L->start, n, L->end[k]) + w;

		for (; lo < hi; lo /= 2, hi /= 2) {
			if (lo & 1)
				m = max64(m, t[lo++]);
			if (hi & 1)
				m = max64(m, t[--hi]);
		}
		peak[k] = m;
	}
	free(t);
	return peak;
}

/* degree[k]: how many other boxes are live at some time of box k's life:
 * those starting by its end, less those ending before its start. */
static int64_t *
conflict_degrees(const struct local *L)
{
	int n = L->n;
	int64_t *deg = pack_xmalloc((size_t)n * sizeof *deg);
	struct pack_kv *ends = pack_xmalloc((size_t)n * sizeof *ends);

	for (int k = 0; k < n; k++)
		ends[k] = (struct pack_kv){L->end[k], k};
	pack_sort_kv(ends, n);
	for (int k = 0, e = 0; k < n; k++) {	/* starts ascend with k */
		while (e < n && ends[e].key < L->start[k])
			e++;
		deg[k] = pk_upper_rank(L->start, n, L->end[k]) - e - 1;
	}
	free(ends);
	return deg;
}

/* The per-box figures order `which` sorts by, or NULL. */
static int64_t *
order_data(const struct local *L, int which)
{
	if (which == BY_PEAK || which == BY_PEAK_AREA)
		return lifetime_peaks(L);
	if (which == BY_DEGREE || which == BY_DEGREE_SIZE)
		return conflict_degrees(L);
	return NULL;
}

/* floor(log4(size)): boxes within a factor of 4 share a class. */
static int64_t
size_class(int64_t size)
{
	int64_t c = 0;

	for (; size >= 4; size /= 4)
		c++;
	return c;
}

/* The keys of order `which` for box k (data: order_data's); larger keys
 * go first. */
static void
order_key(const struct local *L, const int64_t *data, int which, int k,
	  struct okey *key)
{
	int64_t size = L->size[k], dur = duration(L->start[k], L->end[k]);
	int64_t area = sat_mul(size, dur);

	key->i = k;
	key->k[2] = 0;
	switch (which) {
	case BY_SIZE: key->k[0] = size; key->k[1] = dur; break;
	case BY_SIZE_CLASS:	/* factors of 4, long-lived first */
		key->k[0] = size_class(size);
		key->k[1] = dur;
		key->k[2] = size;
		break;
	case BY_AREA: key->k[0] = area; key->k[1] = size; break;
	case BY_DURATION: key->k[0] = dur; key->k[1] = size; break;
	case BY_START: key->k[0] = ~L->start[k]; key->k[1] = size; break;
	case BY_PEAK:
		key->k[0] = data[k];
		key->k[1] = size;
		key->k[2] = dur;
		break;
	case BY_PEAK_AREA: key->k[0] = data[k]; key->k[1] = area; break;
	case BY_INPUT: key->k[0] = ~(int64_t)L->ix[k]; break;
	case BY_DEGREE: key->k[0] = data[k]; key->k[1] = size; break;
	case BY_DEGREE_SIZE:
		key->k[0] = sat_mul(data[k] + 1, size);
		key->k[1] = dur;
		break;
	/* BY_SIZE without XLA's long-lived first: on MindSpore's pangu_2.6B
	 * trace that tie-break costs 2.6% of the height */
	default: key->k[0] = size; key->k[1] = ~(int64_t)L->ix[k]; break;
	}
}

/* The unpinned boxes of a piece in order `which`; returns their count. */
static int
make_order(const struct local *L, const int64_t *data, int which, int *order)
{
	struct okey *key = pack_xmalloc((size_t)L->n * sizeof *key);
	int m = 0;

	for (int k = 0; k < L->n; k++)
		if (L->pin[k] < 0)
			order_key(L, data, which, k, &key[m++]);
	qsort(key, m, sizeof *key, pk_cmp_okey);
	for (int q = 0; q < m; q++)
		order[q] = key[q].i;
	free(key);
	return m;
}

/* Lays out G for the boxes of L; every box unplaced, the tree empty. */
static void
greedy_init(struct greedy *G, const struct local *L)
{
	size_t n = (size_t)L->n;

	memset(G, 0, sizeof *G);
	G->L = L;
	G->stop = INT64_MAX;
	G->sp = pack_xmalloc(n * sizeof *G->sp);
	G->tmp = pack_xmalloc(n * sizeof *G->tmp);
	G->lo = pack_xmalloc(n * sizeof *G->lo);
	G->hi = pack_xmalloc(n * sizeof *G->hi);
	G->off = pack_xmalloc(n * sizeof *G->off);
	rank_bounds(L, G->lo, G->hi);
	for (int k = 0; k < L->n; k++)
		G->off[k] = -1;
	pk_gaps_init(&G->gaps, L->n, G->lo, G->hi, L->size);
}

static void
greedy_free(struct greedy *G)
{
	pk_gaps_free(&G->gaps);
	free(G->sp);
	free(G->tmp);
	free(G->lo);
	free(G->hi);
	free(G->off);
}

/* One pass: order `which`, placed by first fit or best fit, its plan in
 * off; returns its height and adds its steps to *steps.  It gives up
 * (and returns a height >= stop, its plan partial) once as high as
 * stop. */
static int64_t
one_pass(const struct local *L, int which, int first, int64_t stop,
	 int64_t *off, long *steps)
{
	struct greedy G;
	int *order = pack_xmalloc((size_t)L->n * sizeof *order);
	int64_t *data = order_data(L, which);
	int m = make_order(L, data, which, order);
	int64_t h;

	greedy_init(&G, L);
	G.first_fit = first;
	G.stop = stop;
	h = greedy_pass(&G, order, m);
	memcpy(off, G.off, (size_t)L->n * sizeof *off);
	*steps += G.steps;
	greedy_free(&G);
	free(order);
	free(data);
	return h;
}

/* A piece's first plan: order 0 by best fit. */
void
pk_greedy_first(struct packer *P, struct piece *p)
{
	struct local L = pk_local_of(P, p);

	p->height = one_pass(&L, 0, 0, INT64_MAX, L.off, &P->steps);
	p->order = p->bf_order = p->first_fit = 0;
}

/* ---- the portfolio: every order, both fits, on threads ------------------ */

/* Pass w is order w / 2, by first fit when w is odd.  The passes are
 * handed out in the order of pass_seq, those that most often reached the
 * floor first (pass_at): over the portfolios of corpus/hlo,
 * corpus/xla-tests and ../xla-ba that reached the floor, pass 10 (peak,
 * best fit) was the first to in three, 19 (degree times size, first fit)
 * in two (L13's), 2, 11 and 20 in one each; pass 0, first, ran already
 * on a piece not cut.  Each worker keeps its lowest pass: on a tie the
 * lower pass number, but at the floor the one handed out first; so the plan
 * kept does not depend on how many run or which takes what.  A pass as
 * low as the piece's peak of live bytes cannot be beaten by one handed
 * out after it: none is, and only the steps of the passes up to it
 * count, so that the steps too are the same for any number of threads.
 * Such a piece is done (no search), so which of its floor plans is kept
 * changes offsets only; a piece above the floor keeps what every pass in
 * pass-number order gave. */
static const int pass_seq[2 * PK_NORDER] = {
	0, 10, 19, 2, 11, 20, 1, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17,
	18, 21
};

/* The pass handed out at place at: of pass_seq, but on a piece cut into
 * windows in pass-number order, as before (on the 10^6-box problems of
 * pack_bench, all cut, pass_seq took a quarter more steps). */
static int
pass_at(int cut, int at)
{
	return cut ? at : pass_seq[at];
}

struct worker {
	struct portfolio *pf;
	struct greedy G;	/* kept from pass to pass */
	int *order, m, which;	/* the last order made; which -1 before */
	int64_t *best;		/* its best plan */
	int64_t h;		/* of best; INT64_MAX before any */
	int w, at;		/* best's pass, and where pass_seq has it */
	int64_t bf_h;		/* its lowest pass by best fit */
	int bf_w;
};

/* Whether pass w of height h beats pass w2 of height h2: lower, or as
 * low and earlier. */
static int
beats(int64_t h, int w, int64_t h2, int w2)
{
	return h < h2 || (h == h2 && w < w2);
}

/* The same for the plan kept: at the floor, the pass handed out first
 * (at, at2: their places in pass_seq). */
static int
beats_kept(const struct portfolio *pf, int64_t h, int w, int at, int64_t h2,
	   int w2, int at2)
{
	if (h == h2 && h <= pf->floor)
		return at < at2;
	return beats(h, w, h2, w2);
}

/* The height at which pass w gives up against a pass wa done at height
 * h: h, or past it when w would beat wa at h, as lower in number. */
static int64_t
stop_against(int64_t h, int wa, int w)
{
	return w < wa ? h + 1 : h;
}

/* The height at which the pass at place at gives up, its first fit
 * (bf 0) or best fit (bf 1) the passes done at earlier places beside pass
 * 0: as high as one it cannot beat, a lower pass or as low and earlier in
 * number.  A first-fit pass must beat every earlier one to be kept; a
 * best-fit pass, the earlier best-fit ones, as iterate starts from the
 * lowest best-fit order.  The lowest pass beats every earlier one, so it
 * never gives up: the plan kept and the best-fit order are those of every
 * pass run to the end.  Only earlier places count, so that a pass gives
 * up no sooner than where charged_steps says. */
static int64_t
earlier_stop(struct portfolio *pf, int at, int bf)
{
	int w = pass_at(pf->cut, at);
	int64_t stop = pf->stop;

	for (int a = 0; a < at; a++) {
		int64_t h = atomic_load_explicit(&pf->done[a],
						 memory_order_acquire);
		int wa = pass_at(pf->cut, a);

		if (h == INT64_MAX || (bf && wa % 2))
			continue;
		stop = min64(stop, stop_against(h, wa, w));
	}
	return stop;
}

/* The steps of the pass at place at up to where it rose to stop. */
static long
steps_to(const struct portfolio *pf, int at, int64_t stop)
{
	for (int r = 0; r < pf->nrise[at]; r++)
		if (pf->rise[at][r].h >= stop)
			return GREEDY_STEP * pf->rise[at][r].steps;
	return pf->steps[pass_at(pf->cut, at)];
}

/* The steps of the portfolio on a piece not cut, as if every pass had
 * run in turn on one thread, each giving up once it could not beat those
 * before it: on more threads a pass may run further, while one before it
 * is still running, but is charged only this far, so that the budget
 * left for the search, and so the plan, is the same for any number. */
static long
charged_steps(struct portfolio *pf)
{
	int64_t h = pf->stop, bf_h = pf->stop;
	int w = 0, bf_w = 0, last = atomic_load(&pf->last);
	long steps = 0;

	for (int at = 1; at < pf->npass && at <= last; at++) {
		int v = pass_seq[at], bf = v % 2 == 0;
		int64_t stop = bf ? stop_against(bf_h, bf_w, v)
				  : stop_against(h, w, v);
		int64_t done = pf->done[at];

		if (done >= stop) {
			steps += steps_to(pf, at, stop);
			continue;
		}
		steps += pf->steps[v];
		if (beats(done, v, h, w)) {
			h = done;
			w = v;
		}
		if (bf && beats(done, v, bf_h, bf_w)) {
			bf_h = done;
			bf_w = v;
		}
	}
	return steps;
}

/* The pass at place at of pass_seq reached the floor: passes handed out
 * after it are not needed. */
static void
reached_floor(struct portfolio *pf, int at)
{
	int last = atomic_load(&pf->last);

	while (at < last &&
	       !atomic_compare_exchange_weak(&pf->last, &last, at))
		;
}

/* Pass w, at place at of pass_seq, on k's greedy state, its plan in
 * k->G.off; returns its height.  The two passes of an order share the
 * order when k runs both. */
static int64_t
worker_pass(struct worker *k, int w, int at)
{
	const struct local *L = k->pf->L;
	int64_t h;

	if (k->which != w / 2) {
		int64_t *data = order_data(L, w / 2);

		k->m = make_order(L, data, w / 2, k->order);
		k->which = w / 2;
		free(data);
	}
	k->G.first_fit = w % 2;
	k->G.stop = k->pf->stop;
	k->G.last = &k->pf->last;
	k->G.w = at;
	k->G.steps = 0;
	k->G.pf = k->pf->cut ? NULL : k->pf;
	k->G.nrise = 0;
	h = greedy_pass(&k->G, k->order, k->m);
	k->pf->steps[w] = k->G.steps;
	if (!k->G.pf)
		return h;
	k->pf->rise[at] = k->G.rise;	/* the portfolio's now */
	k->pf->nrise[at] = k->G.nrise;
	k->G.rise = NULL;
	k->G.caprise = 0;
	if (h >= k->G.stop)
		return INT64_MAX;	/* gave up: it cannot be kept */
	atomic_store_explicit(&k->pf->done[at], h, memory_order_release);
	return h;
}

static void *portfolio_work(void *arg);

/* Before each pass of the calling thread's worker: a processor another
 * planner has left (the other target's, once it is done) runs another
 * worker, which takes passes not yet handed out.  Which worker runs a pass
 * changes neither the plan kept nor the steps charged. */
static void
grow_crew(struct portfolio *pf)
{
	struct crew *c = pf->crew;
	int v;

	while (c->spare && c->n < PK_THREADS_MAX &&
	       atomic_load(&pf->next) < pf->npass - 1 &&
	       (v = atomic_load(&c->spare->n)) > 0) {
		if (!atomic_compare_exchange_weak(&c->spare->n, &v, v - 1))
			continue;
		c->k[c->n] = (struct worker){.pf = pf, .which = -1,
					     .h = INT64_MAX, .bf_h = INT64_MAX};
		if (pthread_create(&c->t[c->started], NULL, portfolio_work,
				   &c->k[c->n]) != 0) {
			atomic_fetch_add(&c->spare->n, 1);
			return;
		}
		c->n++;
		c->started++;
		c->taken++;
	}
}

static void *
portfolio_work(void *arg)
{
	struct worker *k = arg;
	struct portfolio *pf = k->pf;
	int at, w;

	greedy_init(&k->G, pf->L);
	k->order = pack_xmalloc((size_t)pf->L->n * sizeof *k->order);
	k->best = pack_xmalloc((size_t)pf->L->n * sizeof *k->best);
	for (;;) {
		int64_t h;

		if (k == pf->crew->k)
			grow_crew(pf);
		at = atomic_fetch_add(&pf->next, 1);
		if (at >= pf->npass || at > atomic_load(&pf->last))
			break;
		w = pass_at(pf->cut, at);
		h = worker_pass(k, w, at);
		if (h <= pf->floor)
			reached_floor(pf, at);
		if (w % 2 == 0 && beats(h, w, k->bf_h, k->bf_w)) {
			k->bf_h = h;
			k->bf_w = w;
		}
		if (beats_kept(pf, h, w, at, k->h, k->w, k->at)) {
			int64_t *t = k->best;

			k->best = k->G.off;
			k->G.off = t;
			k->h = h;
			k->w = w;
			k->at = at;
		}
	}
	greedy_free(&k->G);
	free(k->G.rise);
	free(k->order);
	return NULL;
}

/* Pieces smaller than this run the portfolio on the calling thread. */
enum { PORTFOLIO_THREADED = 256 };

/* The most bytes live at one time in the piece: no plan is lower. */
static int64_t
piece_peak(const struct local *L)
{
	int64_t m = 0;

	for (int k = 0; k < L->n; k++)
		m = max64(m, L->live[k]);
	return m;
}

void
pk_greedy_portfolio(struct packer *P, struct piece *p)
{
	struct local L = pk_local_of(P, p);
	/* pass 0 ran already, unless the piece was cut (then the windows'
	 * plan is the height): a pass gives up once as high as it, which it
	 * could not beat (as low and later loses).  On L13 most orders give
	 * up a third of the way: packing 28 -> 17 ms, every plan the same. */
	struct portfolio pf = {.L = &L, .npass = 2 * PK_NORDER,
			       .stop = p->height,
			       .floor = piece_peak(&L), .cut = p->cut};
	int64_t bf_h = p->cut ? INT64_MAX : p->height;
	int bf_w = 0;
	int nt = L.n < PORTFOLIO_THREADED ? 1 : pk_threads(P);
	struct worker k[PK_THREADS_MAX];
	pthread_t t[PK_THREADS_MAX];
	struct crew crew = {k, t, nt, 0, 0,
			    L.n < PORTFOLIO_THREADED ? NULL : P->spare};
	int b = 0;

	atomic_init(&pf.next, p->cut ? 0 : 1);	/* pass_seq[0] is pass 0 */
	atomic_init(&pf.last, pf.npass);
	for (int at = 0; at < pf.npass; at++) {
		atomic_init(&pf.done[at], INT64_MAX);
		pf.rise[at] = NULL;
		pf.nrise[at] = 0;
	}
	pf.crew = &crew;
	for (int i = 0; i < nt; i++)
		k[i] = (struct worker){.pf = &pf, .which = -1,
				       .h = INT64_MAX, .bf_h = INT64_MAX};
	for (int i = 1; i < nt; i++)
		if (pthread_create(&t[crew.started], NULL, portfolio_work,
				   &k[i]) == 0)
			crew.started++;
	portfolio_work(&k[0]);
	for (int i = 0; i < crew.started; i++)
		pthread_join(t[i], NULL);
	if (crew.taken)	/* given back */
		atomic_fetch_add(&crew.spare->n, crew.taken);
	P->taken += crew.taken;
	if (pf.cut)
		for (int at = 0; at < pf.npass && at <= atomic_load(&pf.last);
		     at++)
			P->steps += pf.steps[at];
	else
		P->steps += charged_steps(&pf);
	for (int at = 0; at < pf.npass; at++)
		free(pf.rise[at]);
	for (int i = 0; i < crew.n; i++) {
		if (beats_kept(&pf, k[i].h, k[i].w, k[i].at, k[b].h, k[b].w,
			       k[b].at))
			b = i;
		if (beats(k[i].bf_h, k[i].bf_w, bf_h, bf_w)) {
			bf_h = k[i].bf_h;
			bf_w = k[i].bf_w;
		}
	}
	p->bf_order = bf_w / 2;
	if (k[b].h < p->height) {
		p->height = k[b].h;
		p->order = k[b].w / 2;
		p->first_fit = k[b].w % 2;
		memcpy(L.off, k[b].best, (size_t)L.n * sizeof *L.off);
	}
	for (int i = 0; i < crew.n; i++)
		free(k[i].best);
}

/* ---- improvement: iterated greedy -------------------------------------- */

/* Marks the boxes that ended above the target as hot, for good, and
 * orders the hot ones first, each group in the base order; returns how
 * many became hot. */
static int
promote(const struct greedy *G, int64_t target, const int *base, int m,
	char *hot, int *order)
{
	int added = 0, a = 0;

	for (int q = 0; q < m; q++) {
		int k = base[q];

		if (!hot[k] && G->off[k] + G->L->size[k] > target) {
			hot[k] = 1;
			added++;
		}
	}
	for (int q = 0; q < m; q++)
		if (hot[base[q]])
			order[a++] = base[q];
	for (int q = 0; q < m; q++)
		if (!hot[base[q]])
			order[a++] = base[q];
	return added;
}

/* Passes of the iterated greedy in a row that gain nothing before it
 * gives up.  Over every run of it on corpus/hlo, corpus/xla-tests,
 * ../xla-ba and XLA's model benchmarks (bench/xla_models.sh), 43 in all,
 * two gained, at their second and sixth pass; the rest gained nothing,
 * and those that ran to the budget (Llama 3.1 405B bf16 64x8: 47
 * passes; torax's TPU plan: 19, twice) are where the time went.  On
 * pack_bench's challenging mix of 10^6 boxes one run gains at its tenth
 * pass, after nine that did not (8 lost it): about twice that. */
enum { ITER_STALL = 16 };

/* Best fit again and again, the boxes that ever ended above the target
 * going first (squeaky wheel optimisation), keeping the lowest plan, until
 * a pass makes no new box hot, or ITER_STALL passes in a row gain
 * nothing.  A pass gives up once as high as the best plan, which it could
 * not beat; the boxes it placed above the target become hot all the same
 * (torax, both targets: packing 154 -> 67 ms; pack_bench's challenging
 * mix, with more passes in the budget, 2.5% lower on 10^5 boxes, 0.3% on
 * 10^6). */
int
pk_iterate_greedy(struct packer *P, struct piece *p, long budget, int which,
		  int first, int own_start)
{
	struct local L = pk_local_of(P, p);
	struct greedy G;
	int *base = pack_xmalloc((size_t)L.n * sizeof *base);
	int *order = pack_xmalloc((size_t)L.n * sizeof *order);
	char *hot = pack_xcalloc((size_t)L.n, 1);
	int64_t *data = order_data(&L, which);
	int m = make_order(&L, data, which, base), improved = 0, stale = 0;
	long end = P->steps + budget;

	greedy_init(&G, &L);
	G.first_fit = first;
	if (own_start) {	/* the order's own plan, not the best one */
		greedy_pass(&G, base, m);
		P->steps += G.steps;
		G.steps = 0;
	} else {
		memcpy(G.off, L.off, (size_t)L.n * sizeof *G.off);
	}
	promote(&G, P->target, base, m, hot, order);
	while (p->height > P->target && P->steps < end && stale < ITER_STALL) {
		int64_t h;

		G.stop = p->height;	/* no lower: gives up */
		h = greedy_pass(&G, order, m);

		if (h < p->height) {
			p->height = h;
			memcpy(L.off, G.off, (size_t)L.n * sizeof *G.off);
			improved = 1;
			stale = 0;
		} else {
			stale++;
		}
		P->steps += G.steps;
		G.steps = 0;
		if (!promote(&G, P->target, base, m, hot, order))
			break;
	}
	greedy_free(&G);
	free(base);
	free(order);
	free(hot);
	free(data);
	return improved;
}

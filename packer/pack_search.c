/* google/minimalloc's canonical branch and bound (Moffitt, ASPLOS 2024)
 * on one piece: the lower bound tried first, then capacities bisected
 * between it and the best height found. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "packer/pack_internal.h"

#define SEARCH_GRAPH_LIMIT 20000000L

/* ---- search: minimalloc's canonical branch and bound --------------------- */

/* Boxes are placed in order of non-decreasing offset, each at the lowest
 * offset above its placed neighbours (a canonical solution), candidates
 * tried by that offset and then a static preorder; a partial plan is cut
 * when, in some section, the floor plus the unplaced bytes exceed the
 * capacity, and pieces split again when every box crossing a section
 * boundary is placed.  Work is counted in steps; the limit on a run
 * doubles round-robin over three preorders, as in minimalloc's solver,
 * but after the first round it is counted in steps rather than nodes. */

enum { BB_FOUND, BB_NONE, BB_ABORT };

struct ent {
	int64_t off;
	int pidx, box;
};

struct part {
	int *box;
	int n, s0, s1;		/* sections [s0, s1) */
};

struct undo {
	int64_t *at;
	int64_t old;
};

struct bb {
	const struct local *L;
	struct pack_graph g;
	int n;
	int64_t cap;
	int64_t *off, *minoff, *floor, *total, *total0, *sol;
	int *cuts, *cuts0;
	struct undo *log;
	int nlog, caplog;
	struct ent *ent;
	int nent, capent;
	int *stamp, epoch, *aff, naff;
	int *ucnt;		/* section s's unplaced boxes lead its sbox run */
	int *mbase, *mpos;	/* where box i sits in section s's run */
	size_t nmem;		/* entries of sbox and mpos */
	long nodes, steps, budget;
	const char *heur;
	uint64_t rng;		/* 0: the preorder as it is; else its seed */
	atomic_long *stop;	/* a restart: stop when *stop < run */
	long run;
};

static void
bb_set(struct bb *s, int64_t *at, int64_t v)
{
	if (s->nlog == s->caplog) {
		s->caplog = s->caplog ? 2 * s->caplog : 1024;
		s->log = pack_xrealloc(s->log,
				       (size_t)s->caplog * sizeof *s->log);
	}
	s->log[s->nlog].at = at;
	s->log[s->nlog++].old = *at;
	*at = v;
}

static void
bb_undo(struct bb *s, int mark)
{
	while (s->nlog > mark) {
		s->nlog--;
		*s->log[s->nlog].at = s->log[s->nlog].old;
	}
}

static int
bb_push(struct bb *s, int m)
{
	int at = s->nent;

	if (s->nent + m > s->capent) {
		s->capent = max64(2 * (int64_t)s->capent, s->nent + m);
		s->ent = pack_xrealloc(s->ent,
				       (size_t)s->capent * sizeof *s->ent);
	}
	s->nent += m;
	return at;
}

static int
ent_less(const struct ent *a, const struct ent *b)
{
	return a->off < b->off || (a->off == b->off && a->pidx < b->pidx);
}

/* Insertion sort: the few entries it gets are nearly in order. */
static void
sort_ents(struct ent *a, int n)
{
	for (int i = 1; i < n; i++) {
		struct ent t = a[i];
		int j = i;

		for (; j > 0 && ent_less(&t, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/* Merges the sorted b[0..nb) into the sorted a[0..na), a having room for
 * both. */
static void
merge_ents(struct ent *a, int na, const struct ent *b, int nb)
{
	int w = na + nb;

	while (nb > 0)
		if (na > 0 && ent_less(&b[nb - 1], &a[na - 1]))
			a[--w] = a[--na];
		else
			a[--w] = b[--nb];
}

/* Raises the floor of the sections whose unplaced boxes all start higher
 * (minimalloc's "unallocated floor"); one box at or below the floor ends
 * the scan. */
static void
bb_raise_floors(struct bb *s, int naff)
{
	const struct pack_graph *g = &s->g;

	for (int a = 0; a < naff; a++) {
		int sec = s->aff[a], q = g->sfirst[sec];
		int end = q + s->ucnt[sec];
		int64_t mn = INT64_MAX, fl = s->floor[sec];

		for (; q < end && mn > fl; q++)
			if (s->minoff[g->sbox[q]] < mn)
				mn = s->minoff[g->sbox[q]];
		s->steps += q - g->sfirst[sec];
		if (mn != INT64_MAX && fl < mn)
			bb_set(s, &s->floor[sec], mn);
	}
}

enum { PL_HATLESS = 1, PL_DEAD = 2 };

/* Moves box i out of the unplaced lead of each of its sections' runs;
 * bb_unlist puts it back (last out, first back). */
static void
bb_delist(struct bb *s, int i)
{
	struct pack_graph *g = &s->g;

	for (int sec = g->slo[i]; sec < g->shi[i]; sec++) {
		int *pi = &s->mpos[s->mbase[i] + sec - g->slo[i]];
		int last = g->sfirst[sec] + --s->ucnt[sec], j = g->sbox[last];

		g->sbox[*pi] = j;
		s->mpos[s->mbase[j] + sec - g->slo[j]] = *pi;
		g->sbox[last] = i;
		*pi = last;
	}
}

static void
bb_unlist(struct bb *s, int i)
{
	for (int sec = s->g.slo[i]; sec < s->g.shi[i]; sec++)
		s->ucnt[sec]++;
}

/* Marks the sections of box j whose floor is below its new lowest offset
 * (only there can the unallocated floor rise) and where that offset plus
 * the unplaced bytes would pass the capacity (elsewhere the raised floor,
 * at most that offset, cannot fail bb_check, and the floor can wait: a
 * section is rescanned whenever it is marked again, and the placements
 * that set it directly override it). */
static int
bb_mark(struct bb *s, int j, int naff)
{
	const struct pack_graph *g = &s->g;
	int64_t mo = s->minoff[j], room = s->cap - mo;

	for (int sec = g->slo[j]; sec < g->shi[j]; sec++)
		if (s->total[sec] > room && s->floor[sec] < mo &&
		    s->stamp[sec] != s->epoch) {
			s->stamp[sec] = s->epoch;
			s->aff[naff++] = sec;
		}
	s->steps += g->shi[j] - g->slo[j];
	return naff;
}

/* Places box i at o: its unplaced neighbours now start above it.  Returns
 * PL_HATLESS when it has none, PL_DEAD when one is pushed above its pin or
 * past the capacity. */
static int
bb_place(struct bb *s, int i, int64_t o)
{
	const struct pack_graph *g = &s->g;
	const struct local *L = s->L;
	int64_t top = o + L->size[i];
	int naff = 0, flags = PL_HATLESS;

	s->off[i] = o;
	s->epoch++;
	bb_delist(s, i);
	for (int sec = g->slo[i]; sec < g->shi[i]; sec++) {
		bb_set(s, &s->floor[sec], top);
		bb_set(s, &s->total[sec], s->total[sec] - L->size[i]);
	}
	for (int a = g->first[i]; a < g->first[i + 1]; a++) {
		int j = g->adj[a];

		if (s->off[j] >= 0)
			continue;
		flags &= ~PL_HATLESS;
		if (s->minoff[j] >= top)
			continue;
		bb_set(s, &s->minoff[j], align_up(top, L->align[j]));
		if ((L->pin[j] >= 0 && s->minoff[j] > L->pin[j]) ||
		    s->minoff[j] > s->cap - L->size[j])
			flags |= PL_DEAD;
		naff = bb_mark(s, j, naff);
	}
	s->steps += g->first[i + 1] - g->first[i] + g->shi[i] - g->slo[i];
	bb_raise_floors(s, naff);
	s->naff = naff;
	return flags;
}

/* Every section of the part needs max(o, floor) + unplaced bytes <= cap,
 * that is floor + total <= cap and o + total <= cap.  The parent checked
 * the first; since then only box i's sections and the raised ones
 * changed.  bb_room checked the second before i was placed. */
static int
bb_check(struct bb *s, int i)
{
	const struct pack_graph *g = &s->g;

	s->steps += g->shi[i] - g->slo[i] + s->naff;
	for (int sec = g->slo[i]; sec < g->shi[i]; sec++)
		if (s->floor[sec] + s->total[sec] > s->cap)
			return 0;
	for (int a = 0; a < s->naff; a++)
		if (s->floor[s->aff[a]] + s->total[s->aff[a]] > s->cap)
			return 0;
	return 1;
}

/* The most unplaced bytes in one section of the part, and the first and
 * last sections that hold that many. */
struct most {
	int64_t bytes;
	int first, last;
};

static struct most
bb_most(struct bb *s, int s0, int s1)
{
	struct most m = { 0, -1, -1 };

	s->steps += s1 - s0;
	for (int sec = s0; sec < s1; sec++)
		if (s->total[sec] > m.bytes || m.first < 0) {
			m.bytes = s->total[sec];
			m.first = m.last = sec;
		} else if (s->total[sec] == m.bytes) {
			m.last = sec;
		}
	return m;
}

/* Whether box i at o leaves o + total <= cap in every section of the
 * part outside i's own (inside them, bb_check's floor test implies it). */
static int
bb_room(struct bb *s, const struct part *p, const struct most *m, int i,
	int64_t o)
{
	const struct pack_graph *g = &s->g;
	struct most lo, hi;

	if (o <= s->cap - m->bytes)
		return 1;
	if (m->first < g->slo[i] || m->last >= g->shi[i])
		return 0;
	lo = bb_most(s, p->s0, g->slo[i]);
	hi = bb_most(s, g->shi[i], p->s1);
	return o <= s->cap - max64(lo.bytes, hi.bytes);
}

/* The unplaced boxes of ent[from..from+m) by their current lowest offset,
 * then preorder, pushed as a new run; returns its start, count in *k.
 * The parent's run was sorted and offsets only rose since: the boxes
 * whose offset stayed are still in order, the few that rose are sorted
 * apart and merged in. */
static int
bb_order(struct bb *s, int from, int m, int *k)
{
	int at = bb_push(s, 2 * m), c = 0, nr = 0;
	struct ent *run = s->ent + at, *risen = run + m;

	for (int q = 0; q < m; q++) {
		struct ent e = s->ent[from + q];

		if (s->off[e.box] >= 0)
			continue;
		if (e.off == s->minoff[e.box]) {
			run[c++] = e;
		} else {
			e.off = s->minoff[e.box];
			risen[nr++] = e;
		}
	}
	sort_ents(risen, nr);
	merge_ents(run, c, risen, nr);
	s->nent = at + c + nr;
	s->steps += m;
	*k = c + nr;
	return at;
}

static int bb_subsolve(struct bb *s, const struct part *p);

static int
bb_search(struct bb *s, const struct part *p, int from, int m,
	  int64_t lastoff, int lastp);

/* Solves each run of sections between the cut points [c, c + nc] apart. */
static int
bb_subparts(struct bb *s, const struct part *p, const int *c, int nc)
{
	int *box = pack_xmalloc(((size_t)p->n + 1) * sizeof *box);
	int r = BB_FOUND;

	for (int j = 0; j < nc && r == BB_FOUND; j++) {
		struct part sp = { box, 0, c[j], c[j + 1] };

		for (int q = 0; q < p->n; q++) {
			int b = p->box[q];

			if (s->off[b] < 0 && s->g.slo[b] >= c[j] &&
			    s->g.slo[b] < c[j + 1])
				box[sp.n++] = b;
		}
		s->steps += p->n;
		if (sp.n)
			r = bb_subsolve(s, &sp);
	}
	free(box);
	return r;
}

/* minimalloc's dynamic decomposition: placing box i may leave section
 * boundaries that no unplaced box crosses; the parts between them are
 * independent. */
static int
bb_split(struct bb *s, const struct part *p, int at, int k, struct ent e)
{
	const struct pack_graph *g = &s->g;
	int i = e.box, nc = 0, r;
	int *c = NULL;

	s->sol[i] = e.off;
	for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
		if (--s->cuts[sec] == 0)
			nc++;
	if (nc == 0) {
		r = bb_search(s, p, at, k, e.off, e.pidx);
	} else {
		c = pack_xmalloc(((size_t)nc + 2) * sizeof *c);
		nc = 0;
		c[nc++] = p->s0;
		for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
			if (s->cuts[sec] == 0)
				c[nc++] = sec + 1;
		c[nc] = p->s1;
		r = bb_subparts(s, p, c, nc);
		free(c);
	}
	for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
		s->cuts[sec]++;
	return r;
}

/* Places e and searches on; *hatless tells whether e met no unplaced box
 * (then no other choice here can do better: minimalloc's hatless
 * pruning). */
static int
bb_try(struct bb *s, const struct part *p, int at, int k, struct ent e,
       int *hatless)
{
	int mark = s->nlog, r = BB_NONE;
	int flags = bb_place(s, e.box, e.off);

	if (!(flags & PL_DEAD) && bb_check(s, e.box))
		r = bb_split(s, p, at, k, e);
	bb_undo(s, mark);
	bb_unlist(s, e.box);
	s->off[e.box] = -1;
	*hatless = flags & PL_HATLESS;
	return r;
}

/* splitmix64 (Steele, Lea and Flood), the same on every machine. */
static uint64_t
bb_rand(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A seeded run tries a candidate before the one ahead of it one time in
 * 64. */
enum { BB_SWAP_MASK = 63 };

static int
bb_swap(struct bb *s)
{
	if (!s->rng)
		return 0;
	s->steps++;
	return (bb_rand(&s->rng) & BB_SWAP_MASK) == 0;
}

static int
bb_search(struct bb *s, const struct part *p, int from, int m,
	  int64_t lastoff, int lastp)
{
	int save = s->nent, r = BB_NONE, k, at, hatless = 0;
	int64_t minh = INT64_MAX;
	struct most most;

	if (--s->nodes < 0 || s->steps >= s->budget ||
	    (s->stop && atomic_load_explicit(s->stop, memory_order_relaxed) <
			    s->run))
		return BB_ABORT;
	at = bb_order(s, from, m, &k);
	if (k == 0) {
		for (int q = 0; q < p->n; q++)
			s->sol[p->box[q]] = s->off[p->box[q]];
		s->nent = save;
		return BB_FOUND;
	}
	for (int q = 0; q < k; q++) {
		const struct ent *e = &s->ent[at + q];

		if (e->off + s->L->size[e->box] < minh)
			minh = e->off + s->L->size[e->box];
	}
	most = bb_most(s, p->s0, p->s1);
	for (int q = 0, up = 0; q < k && r == BB_NONE && !hatless; q++) {
		struct ent e;

		if (up) {	/* q + 1 went first: now q */
			e = s->ent[at + q - 1];
			up = 0;
		} else if (q + 1 < k && bb_swap(s)) {
			e = s->ent[at + q + 1];
			up = 1;
		} else {
			e = s->ent[at + q];
		}
		if (e.off >= minh) {	/* dominated: a gap another box fits */
			if (up)
				continue;
			break;
		}
		if (e.off < lastoff || (e.off == lastoff && e.pidx < lastp))
			continue;	/* not canonical */
		if (s->L->pin[e.box] >= 0 && e.off != s->L->pin[e.box])
			continue;
		if (!bb_room(s, p, &most, e.box, e.off))
			continue;
		r = bb_try(s, p, at, k, e, &hatless);
	}
	s->nent = save;
	return r;
}

/* Preorder keys: W the lifespan, A the area, T the most unplaced bytes in
 * one of its sections, in the order the heuristic names them. */
static void
bb_prekey(struct bb *s, int i, struct okey *key)
{
	const struct local *L = s->L;
	int64_t w = duration(L->start[i], L->end[i]);
	int64_t a = sat_mul(L->size[i], w), t = 0;

	for (int sec = s->g.slo[i]; sec < s->g.shi[i]; sec++)
		t = max64(t, s->total[sec]);
	s->steps += s->g.shi[i] - s->g.slo[i];
	for (int j = 0; j < 3; j++)
		key->k[j] = s->heur[j] == 'W' ? w : s->heur[j] == 'A' ? a : t;
	key->i = i;
}

static int
bb_subsolve(struct bb *s, const struct part *p)
{
	struct okey *key = pack_xmalloc((size_t)p->n * sizeof *key);
	int save = s->nent, at, r;

	for (int q = 0; q < p->n; q++)
		bb_prekey(s, p->box[q], &key[q]);
	qsort(key, p->n, sizeof *key, pk_cmp_okey);
	at = bb_push(s, p->n);
	for (int q = 0; q < p->n; q++) {
		s->ent[at + q].off = 0;
		s->ent[at + q].pidx = q;
		s->ent[at + q].box = key[q].i;
	}
	free(key);
	r = bb_search(s, p, at, p->n, 0, 0);
	s->nent = save;
	return r;
}

static void
bb_reset(struct bb *s)
{
	int nsec = s->g.nsec;

	for (int i = 0; i < s->n; i++) {
		s->off[i] = -1;
		s->minoff[i] = s->L->pin[i] >= 0 ? s->L->pin[i] : 0;
	}
	memset(s->floor, 0, (size_t)nsec * sizeof *s->floor);
	memcpy(s->total, s->total0, (size_t)nsec * sizeof *s->total);
	memcpy(s->cuts, s->cuts0, (size_t)nsec * sizeof *s->cuts);
	for (int sec = 0; sec < nsec; sec++)
		s->ucnt[sec] = s->g.sfirst[sec + 1] - s->g.sfirst[sec];
	s->nlog = 0;
	s->nent = 0;
}

static void
bb_count(struct bb *s)
{
	const struct pack_graph *g = &s->g;

	for (int i = 0; i < s->n; i++) {
		for (int sec = g->slo[i]; sec < g->shi[i]; sec++)
			s->total0[sec] += s->L->size[i];
		for (int sec = g->slo[i]; sec + 1 < g->shi[i]; sec++)
			s->cuts0[sec]++;
	}
}

/* mbase[i]: where box i's sections start in mpos; mpos: its place in
 * each section's run of sbox. */
static void
bb_positions(struct bb *s)
{
	const struct pack_graph *g = &s->g;
	size_t m = 0;

	s->mbase = pack_xmalloc((size_t)s->n * sizeof *s->mbase);
	for (int i = 0; i < s->n; i++) {
		s->mbase[i] = (int)m;
		m += (size_t)(g->shi[i] - g->slo[i]);
	}
	s->mpos = pack_xmalloc((m + 1) * sizeof *s->mpos);
	for (int sec = 0; sec < g->nsec; sec++)
		for (int q = g->sfirst[sec]; q < g->sfirst[sec + 1]; q++) {
			int j = g->sbox[q];

			s->mpos[s->mbase[j] + sec - g->slo[j]] = q;
		}
	s->nmem = m;
}

static int
bb_init(struct bb *s, const struct local *L)
{
	size_t n = (size_t)L->n, nsec;

	memset(s, 0, sizeof *s);
	if (pack_graph_build(&s->g, L->n, L->start, L->end,
			     SEARCH_GRAPH_LIMIT) != 0)
		return -1;
	s->L = L;
	s->n = L->n;
	nsec = (size_t)s->g.nsec;
	s->off = pack_xmalloc(n * sizeof *s->off);
	s->minoff = pack_xmalloc(n * sizeof *s->minoff);
	s->sol = pack_xmalloc(n * sizeof *s->sol);
	s->floor = pack_xmalloc(nsec * sizeof *s->floor);
	s->total = pack_xmalloc(nsec * sizeof *s->total);
	s->total0 = pack_xcalloc(nsec, sizeof *s->total0);
	s->cuts = pack_xmalloc(nsec * sizeof *s->cuts);
	s->cuts0 = pack_xcalloc(nsec, sizeof *s->cuts0);
	s->stamp = pack_xcalloc(nsec, sizeof *s->stamp);
	s->aff = pack_xmalloc(nsec * sizeof *s->aff);
	s->ucnt = pack_xmalloc(nsec * sizeof *s->ucnt);
	bb_positions(s);
	bb_count(s);
	return 0;
}

static void
bb_free(struct bb *s)
{
	pack_graph_free(&s->g);
	free(s->off);
	free(s->minoff);
	free(s->sol);
	free(s->floor);
	free(s->total);
	free(s->total0);
	free(s->cuts);
	free(s->cuts0);
	free(s->stamp);
	free(s->aff);
	free(s->ucnt);
	free(s->mbase);
	free(s->mpos);
	free(s->log);
	free(s->ent);
}

/* One run of the search on the whole piece with preorder heur, cut off
 * after nodes nodes, limit steps or at s->budget, whichever comes first.
 * Returns its result, the steps it took in *took. */
static int
bb_run(struct bb *s, const struct part *whole, const char *heur, long nodes,
       long limit, long *took)
{
	long end = s->budget, start = s->steps;
	int r;

	bb_reset(s);
	s->heur = heur;
	s->nodes = nodes;
	if (limit < end - s->steps)
		s->budget = s->steps + limit;
	r = bb_subsolve(s, whole);
	s->budget = end;
	*took = s->steps - start;
	return r;
}

/* Is there a plan of height <= cap?  minimalloc's restarts, each round
 * trying every preorder, until an answer or s->budget: the first round
 * with its limit of 2n nodes a run, the next with twice the steps the
 * costliest run of the first took, doubling round after round.  A run is
 * a depth-first search that the limit only cuts short; counted in steps,
 * it gives every preorder the same work, where a node limit gave most of
 * each round to the preorders that spend the most per node.  BB_FOUND
 * (in s->sol), BB_NONE (the canonical space holds none), or BB_ABORT. */
static int
bb_attempt(struct bb *s, int64_t cap)
{
	static const char *const heur[] = { "WAT", "TAW", "TWA" };
	int *all = pack_xmalloc((size_t)s->n * sizeof *all);
	struct part whole = { all, s->n, 0, s->g.nsec };
	int r = BB_ABORT;
	long limit = 1, took;

	for (int i = 0; i < s->n; i++)
		all[i] = i;
	s->cap = cap;
	for (int h = 0; h < 3 && r == BB_ABORT && s->steps < s->budget;
	     h++) {
		r = bb_run(s, &whole, heur[h], 2L * s->n, LONG_MAX, &took);
		limit = max64(limit, 2 * took);
	}
	for (; r == BB_ABORT && s->steps < s->budget;
	     limit = limit < LONG_MAX / 2 ? 2 * limit : LONG_MAX)
		for (int h = 0; h < 3 && r == BB_ABORT &&
		     s->steps < s->budget; h++)
			r = bb_run(s, &whole, heur[h], LONG_MAX, limit, &took);
	free(all);
	return r;
}

static int64_t
bb_height(const struct bb *s)
{
	int64_t h = 0;

	for (int i = 0; i < s->n; i++)
		h = max64(h, s->sol[i] + s->L->size[i]);
	return h;
}

/* What every height is a multiple of: the gcd of the sizes, pins and
 * alignments above 1 (an offset is a pin or a top aligned up).
 * Capacities between two multiples behave as the lower one. */
static int64_t
bb_granule(const struct bb *s)
{
	const struct local *L = s->L;
	int64_t g = 0;

	for (int i = 0; i < s->n; i++) {
		g = gcd64(g, L->size[i]);
		if (L->align[i] > 1)
			g = gcd64(g, L->align[i]);
		if (L->pin[i] > 0)
			g = gcd64(g, L->pin[i]);
	}
	return g > 0 ? g : 1;
}

/* Tries cap with at most b more steps; a plan it finds lower than *best
 * becomes the best, in out. */
static int
bb_probe(struct bb *s, int64_t cap, long b, int64_t *best, int64_t *out)
{
	int r;

	s->budget = s->steps + b;
	r = bb_attempt(s, cap);
	if (r == BB_FOUND && bb_height(s) < *best) {
		*best = bb_height(s);
		memcpy(out, s->sol, (size_t)s->n * sizeof *out);
	}
	return r;
}

/* One pass of bisection between *lo and *best (multiples of g), unit
 * steps a probe, until budget: a found plan lowers *best, a probe that
 * ran out moves the next one up (proving nothing: below, another may be
 * found sooner), one that exhausted the space raises *lo. */
static void
bb_pass(struct bb *s, int64_t *lo, int64_t *best, int64_t g, long unit,
	long budget, int64_t *out)
{
	int64_t soft = *lo;

	while (soft < *best && s->steps < budget) {
		int64_t cap = max64(soft, (soft + (*best - soft) / 2) / g * g);
		long b = unit < budget - s->steps ? unit : budget - s->steps;
		int r = bb_probe(s, cap, b, best, out);

		if (r == BB_NONE)
			*lo = cap + g;
		if (r != BB_FOUND)
			soft = max64(soft, cap + g);
	}
}

/* ---- restarts ----------------------------------------------------------- */

/* The search's work to a plan is heavy-tailed (Gomes, Selman and Kautz,
 * 1998): at one capacity a preorder finds a plan in 2M steps, at the next
 * granule none in 40M.  So once a plan is found, capacities are tried by
 * short runs of fixed length, many capacities and preorders rather than
 * one long run.  A batch is a list of runs (capacity, preorder, seed: 0
 * for the plain search, else one that swaps candidates now and then);
 * each run is a pure function of those, the runs go to the threads in
 * order, and the batch's answer is that of its first run that found a
 * plan or exhausted the space, its steps those of the runs up to it: the
 * same for any number of threads. */

/* Steps of a run (on D and J, the plain search finds its plans one or
 * two granules lower within 8M steps, or not in 40M); capacities of a
 * walk. */
enum { RS_LEN = 10000000, RS_WALK = 4 };

struct rsrun {
	int64_t cap;
	int heur;
	uint64_t seed;
	long limit, took;
	int res;
};

struct restarts {
	struct bb *s;		/* one per thread */
	int nt;
	int *all;		/* 0 .. n - 1: the whole piece */
	struct rsrun *run;
	int nrun;
	atomic_int next;
	atomic_long decided;	/* first run that found or exhausted */
	long *won;		/* per thread: the first run it found with */
	int64_t **sol;		/* ... and that run's plan */
	/* The order of the sections' runs each run starts from: as built,
	 * then as the batch's deciding run left it (the order a run leaves
	 * steers the next; from one order for all, a run is the same
	 * whichever thread runs it). */
	int *sbox, *mpos;
	long *ord_run;		/* per thread: the deciding run whose order
				   it keeps in ord_sbox, ord_mpos */
	int **ord_sbox, **ord_mpos;
};

/* Copies an order of the sections' runs, sbox and mpos, n entries each. */
static void
copy_order(int *sbox, int *mpos, const int *from_sbox, const int *from_mpos,
	   size_t n)
{
	memcpy(sbox, from_sbox, n * sizeof *sbox);
	memcpy(mpos, from_mpos, n * sizeof *mpos);
}

static void
rs_one(struct restarts *R, int t, int k)
{
	static const char *const heur[] = { "WAT", "TAW", "TWA" };
	struct bb *s = &R->s[t];
	struct part whole = { R->all, s->n, 0, s->g.nsec };
	struct rsrun *u = &R->run[k];

	s->cap = u->cap;
	s->rng = u->seed;
	s->run = k;
	s->budget = LONG_MAX;
	copy_order(s->g.sbox, s->mpos, R->sbox, R->mpos, s->nmem);
	u->res = bb_run(s, &whole, heur[u->heur], LONG_MAX, u->limit,
			&u->took);
	if (u->res == BB_ABORT)
		return;
	if (k < R->ord_run[t]) {
		R->ord_run[t] = k;
		copy_order(R->ord_sbox[t], R->ord_mpos[t], s->g.sbox, s->mpos,
			   s->nmem);
	}
	for (long d = atomic_load(&R->decided); k < d &&
	     !atomic_compare_exchange_weak(&R->decided, &d, k);)
		;
	if (u->res == BB_FOUND && k < R->won[t]) {
		R->won[t] = k;
		memcpy(R->sol[t], s->sol, (size_t)s->n * sizeof *s->sol);
	}
}

struct rs_arg {
	struct restarts *R;
	int t;
};

static void *
rs_thread(void *arg)
{
	struct rs_arg *a = arg;
	struct restarts *R = a->R;
	int k;

	while ((k = atomic_fetch_add(&R->next, 1)) < R->nrun &&
	       k <= atomic_load(&R->decided))
		rs_one(R, a->t, k);
	return NULL;
}

/* Runs the batch on the threads; returns its first run that decided, or
 * nrun. */
static long
rs_batch(struct restarts *R)
{
	struct rs_arg a[PK_THREADS_MAX];
	pthread_t th[PK_THREADS_MAX];
	int started = 0, nt = R->nt < R->nrun ? R->nt : R->nrun;

	atomic_store(&R->next, 0);
	atomic_store(&R->decided, R->nrun);
	for (int t = 0; t < R->nt; t++) {
		a[t] = (struct rs_arg){ R, t };
		R->won[t] = LONG_MAX;
		R->ord_run[t] = LONG_MAX;
		R->s[t].stop = &R->decided;
	}
	for (int t = 1; t < nt; t++)
		if (pthread_create(&th[started], NULL, rs_thread,
				   &a[t]) == 0)
			started++;
	rs_thread(&a[0]);
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	return atomic_load(&R->decided);
}

/* Runs the batch, each run cut to what is left of budget (those past it
 * not started); a plan lower than *best becomes the best, in out.
 * Returns the deciding run, or -1; its steps are added to s->steps. */
static int
rs_probe(struct bb *s, struct restarts *R, long budget, int64_t *best,
	 int64_t *out)
{
	long planned = s->steps, d;
	int n = 0;

	for (; n < R->nrun && planned < budget; n++) {
		long l = R->run[n].limit;

		R->run[n].limit = l < budget - planned ? l : budget - planned;
		planned += R->run[n].limit;
	}
	R->nrun = n;
	d = rs_batch(R);
	for (int k = 0; k < n && k <= d; k++)
		s->steps += R->run[k].took;
	for (int t = 0; t < R->nt && d < n; t++)
		if (R->ord_run[t] == d)
			copy_order(R->sbox, R->mpos, R->ord_sbox[t],
				   R->ord_mpos[t], s->nmem);
	if (d >= n)
		return -1;
	for (int t = 0; t < R->nt && R->run[d].res == BB_FOUND; t++)
		if (R->won[t] == d) {
			int64_t h = 0;

			for (int i = 0; i < s->n; i++)
				h = max64(h, R->sol[t][i] + s->L->size[i]);
			if (h < *best) {
				*best = h;
				memcpy(out, R->sol[t],
				       (size_t)s->n * sizeof *out);
			}
		}
	return (int)d;
}

static void
rs_init(struct restarts *R, const struct local *L, int nt)
{
	memset(R, 0, sizeof *R);
	R->run = pack_xmalloc(3 * (size_t)RS_WALK * sizeof *R->run);
	R->s = pack_xmalloc((size_t)nt * sizeof *R->s);
	R->won = pack_xmalloc((size_t)nt * sizeof *R->won);
	R->ord_run = pack_xmalloc((size_t)nt * sizeof *R->ord_run);
	R->ord_sbox = pack_xmalloc((size_t)nt * sizeof *R->ord_sbox);
	R->ord_mpos = pack_xmalloc((size_t)nt * sizeof *R->ord_mpos);
	R->sol = pack_xmalloc((size_t)nt * sizeof *R->sol);
	R->all = pack_xmalloc((size_t)L->n * sizeof *R->all);
	for (int i = 0; i < L->n; i++)
		R->all[i] = i;
	for (; R->nt < nt; R->nt++) {
		struct bb *b = &R->s[R->nt];

		if (bb_init(b, L) != 0)
			break;
		R->sol[R->nt] = pack_xmalloc((size_t)L->n * sizeof(int64_t));
		R->ord_sbox[R->nt] = pack_xmalloc((b->nmem + 1) * sizeof(int));
		R->ord_mpos[R->nt] = pack_xmalloc((b->nmem + 1) * sizeof(int));
		if (!R->sbox) {
			R->sbox = pack_xmalloc((b->nmem + 1) * sizeof(int));
			R->mpos = pack_xmalloc((b->nmem + 1) * sizeof(int));
			copy_order(R->sbox, R->mpos, b->g.sbox, b->mpos,
				   b->nmem);
		}
	}
}

static void
rs_free(struct restarts *R)
{
	for (int t = 0; t < R->nt; t++) {
		bb_free(&R->s[t]);
		free(R->sol[t]);
		free(R->ord_sbox[t]);
		free(R->ord_mpos[t]);
	}
	free(R->ord_sbox);
	free(R->ord_mpos);
	free(R->ord_run);
	free(R->sbox);
	free(R->mpos);
	free(R->run);
	free(R->s);
	free(R->won);
	free(R->sol);
	free(R->all);
}

/* The batch of pass `pass`: every preorder at each capacity of caps[0 ..
 * nc), plain in pass 0, seeded by the pass, capacity and preorder after. */
static void
rs_plan(struct restarts *R, const int64_t *caps, int nc, long pass)
{
	R->nrun = 0;
	for (int c = 0; c < nc; c++)
		for (int h = 0; h < 3; h++) {
			uint64_t x = (uint64_t)pass * 0x100000001b3u ^
				     (uint64_t)caps[c] * 3 ^ (uint64_t)h;

			R->run[R->nrun++] = (struct rsrun){ caps[c], h,
				pass ? bb_rand(&x) | 1 : 0, RS_LEN, 0, 0 };
		}
}

/* The lowest plan it can find below best, no lower than lo: the capacity
 * lo first with a quarter of the budget (where the bound is reached,
 * mostly there), then passes of bisection, each probe of the first pass
 * with 1/32 of what is left, four times that in the next pass, and so
 * on, until 5/8 of the budget; then walks of RS_WALK capacities down
 * from the best, a granule apart, every preorder at each, until the
 * budget: plain in the first walk below a new best, seeded in the next.
 * The work to reach a capacity is erratic, many short runs find low
 * plans that a few long ones miss; and bisection wastes its late probes
 * far below what the search can reach (on D, 1009664 took 75M steps for
 * nothing), where the next granule down is as good a throw of the dice
 * as a new seed (on D and J, the first walk finds 1031168 and 1036288).
 * Returns the height (best when it found none), the offsets in out. */
static int64_t
bb_minimize(struct bb *s, int nt, int64_t lo, int64_t best, long budget,
	    int64_t *out)
{
	int64_t g = bb_granule(s), caps[RS_WALK];
	long bisect = budget / 8 * 5, pass = 0;
	struct restarts R;

	lo = align_up(lo, g);
	if (lo >= best)
		return best;
	if (bb_probe(s, lo, budget / 4, &best, out) == BB_NONE)
		lo += g;
	for (long unit = max64((budget - s->steps) / 32, 1);
	     lo < best && s->steps < bisect;
	     unit = unit < LONG_MAX / 4 ? 4 * unit : LONG_MAX)
		bb_pass(s, &lo, &best, g, unit, bisect, out);
	if (lo >= best || s->steps >= budget)
		return best;
	rs_init(&R, s->L, nt);
	while (lo < best && s->steps < budget && R.nt > 0) {
		int64_t was = best;
		int nc = 0, d;

		for (; nc < RS_WALK && best - (nc + 1) * g >= lo; nc++)
			caps[nc] = best - (nc + 1) * g;
		rs_plan(&R, caps, nc, pass);
		d = rs_probe(s, &R, budget, &best, out);
		if (d >= 0 && R.run[d].res == BB_NONE)
			lo = R.run[d].cap + g;
		pass = best < was ? 0 : pass + 1;
	}
	rs_free(&R);
	return best;
}

int
pk_search_piece(struct packer *P, struct piece *p, long budget)
{
	struct local L = pk_local_of(P, p);
	struct bb s;
	int64_t h;

	if (bb_init(&s, &L) != 0)
		return 0;
	h = bb_minimize(&s, pk_threads(P), P->target, p->height, budget,
			L.off);
	P->steps += s.steps;
	bb_free(&s);
	if (h == p->height)
		return 0;
	p->height = h;
	return 1;
}

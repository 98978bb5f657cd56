/* --allocators: the plan's buffers of the device arena, S(0), replayed
 * through the allocators runtimes use, to measure what a static plan saves.
 * Each buffer is allocated at the first step of its interval and freed
 * after its last; at step t the buffers that start at t are allocated in
 * buffer order, then those that end at t are freed in buffer order.  The
 * models (alloc_bfc.c, alloc_torch.c, alloc_heap.c) share nothing with the
 * packer; each replay is O(n log n) in the buffers. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allocators/alloc.h"
#include "allocators/allocators.h"
#include "ir/ir.h"

static const char *const names[NALLOC] = {
	"bfc", "bfc_growth", "torch_caching", "torch_expandable", "first_fit",
	"best_fit",
};

/* A device with no limit: more than any module asks for. */
static const int64_t unlimited = (int64_t)1 << 60;

const char *
alloc_name(int kind)
{
	return kind >= 0 && kind < NALLOC ? names[kind] : NULL;
}

/* ---- a model: started, dispatched, done ---------------------------------- */

static void
model_start(struct model *m, int kind, int64_t limit)
{
	memset(m, 0, sizeof *m);
	m->kind = kind;
	m->freeb = -1;
	m->tail[0] = m->tail[1] = -1;
	m->last = -1;
	oset_init(&m->set[0]);
	oset_init(&m->set[1]);
	if (kind == ALLOC_BFC || kind == ALLOC_BFC_GROWTH)
		bfc_init(m, kind == ALLOC_BFC_GROWTH, limit);
}

static void
model_done(struct model *m)
{
	free(m->b);
	free(m->piece);
	oset_done(&m->set[0]);
	oset_done(&m->set[1]);
}

static int
model_alloc(struct model *m, int64_t bytes)
{
	switch (m->kind) {
	case ALLOC_BFC:
	case ALLOC_BFC_GROWTH:
		return bfc_alloc(m, bytes);
	case ALLOC_TORCH:
	case ALLOC_TORCH_EXPANDABLE:
		return torch_alloc(m, bytes);
	default:
		return heap_alloc(m, bytes);
	}
}

static void
model_free(struct model *m, int h)
{
	switch (m->kind) {
	case ALLOC_BFC:
	case ALLOC_BFC_GROWTH:
		bfc_free(m, h);
		break;
	case ALLOC_TORCH:
	case ALLOC_TORCH_EXPANDABLE:
		torch_free(m, h);
		break;
	default:
		heap_free(m, h);
	}
}

/* ---- the replay ---------------------------------------------------------- */

/* The requests by (start, index) and by (end, index). */
struct events {
	int n;
	int *by_start, *by_end;
};

struct keyed {
	int64_t key;
	int i;
};

static int
cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int *
sorted_by(const struct alloc_req *req, int n, int end)
{
	struct keyed *k = malloc(sizeof *k * (size_t)(n + 1));
	int *order = malloc(sizeof *order * (size_t)(n + 1));

	if (!k || !order)
		abort();
	for (int i = 0; i < n; i++)
		k[i] = (struct keyed){end ? req[i].end : req[i].start, i};
	qsort(k, (size_t)n, sizeof *k, cmp_keyed);
	for (int i = 0; i < n; i++)
		order[i] = k[i].i;
	free(k);
	return order;
}

/* Runs the events through m; -1 when an allocation fails.  place, when
 * given, gets where each request sat (its block's address and size). */
static int
run_model(struct model *m, const struct alloc_req *req, const struct events *ev,
	  int *handle, struct alloc_place *place)
{
	int i = 0, j = 0;

	while (j < ev->n) {
		int k;

		if (i < ev->n &&
		    req[ev->by_start[i]].start <= req[ev->by_end[j]].end) {
			k = ev->by_start[i++];
			m->step = req[k].start;
			handle[k] = req[k].size > 0 ?
				    model_alloc(m, req[k].size) : -1;
			if (req[k].size > 0 && handle[k] < 0)
				return -1;
			if (place && handle[k] >= 0)
				place[k] = (struct alloc_place){
					req[k].buf, m->b[handle[k]].addr,
					m->b[handle[k]].size};
		} else {
			k = ev->by_end[j++];
			m->step = req[k].end;
			if (handle[k] >= 0)
				model_free(m, handle[k]);
		}
	}
	return 0;
}

/* One replay from scratch; 0, or -1 when the limit was reached. */
static int
replay(struct model *m, int kind, int64_t limit, const struct alloc_req *req,
       const struct events *ev, struct alloc_place *place)
{
	int *handle = malloc(sizeof *handle * (size_t)(ev->n + 1));
	int r;

	if (!handle)
		abort();
	model_start(m, kind, limit);
	r = run_model(m, req, ev, handle, place);
	free(handle);
	return r;
}

/* ---- results ------------------------------------------------------------- */

static int
cmp_piece(const void *a, const void *b)
{
	const struct alloc_piece *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* Addresses become offsets in the reserved memory laid end to end: the
 * pieces in address order, each after the one before. */
static void
lay_out(struct pool *pool, const struct model *m, struct alloc_run *run)
{
	struct alloc_piece *pc = pool_alloc(pool, sizeof *pc *
						  (size_t)(m->npiece + 1));
	int64_t *base = pool_alloc(pool, sizeof *base *
					 (size_t)(m->npiece + 1));
	int64_t sum = 0;

	memcpy(pc, m->piece, sizeof *pc * (size_t)m->npiece);
	qsort(pc, (size_t)m->npiece, sizeof *pc, cmp_piece);
	for (int i = 0; i < m->npiece; i++) {
		base[i] = sum;
		sum += pc[i].size;
	}
	for (int k = 0; k < run->nplace; k++) {
		struct alloc_place *q = &run->place[k];
		int lo = 0, hi = m->npiece - 1;

		while (lo < hi) {	/* the last piece at or below q->at */
			int mid = (lo + hi + 1) / 2;

			if (pc[mid].at <= q->at)
				lo = mid;
			else
				hi = mid - 1;
		}
		if (m->npiece)
			q->at = base[lo] + q->at - pc[lo].at;
	}
	for (int i = 0; i < m->npiece; i++)
		pc[i].at = base[i];
	run->piece = pc;
	run->npiece = m->npiece;
}

/* The places of the requests that got a block, in request order. */
static void
keep_places(struct pool *pool, const struct alloc_req *req, int n,
	    const struct alloc_place *all, struct alloc_run *run)
{
	run->place = pool_alloc(pool, sizeof *run->place * (size_t)(n + 1));
	for (int k = 0; k < n; k++)
		if (req[k].size > 0)
			run->place[run->nplace++] = all[k];
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* BFC with one region: the region it needs is found by a replay in an
 * unlimited one (its high-water address H), checked by a replay in a
 * region of exactly H, and, should the smaller last chunk change a choice
 * and fail, searched upward by a step doubling from 256 bytes.  A choice
 * changes most often where a chunk is no longer split, which BFC does when
 * what is left is under twice the request and under 128 MiB (its default
 * max_internal_fragmentation_bytes): so above 1 GiB the step starts at
 * 128 MiB.  On every corpus module the region is the one steps from 256
 * bytes find, in two replays where those took up to twenty (L02's TPU
 * plan). */
static int64_t
bfc_region(struct model *m, const struct alloc_req *req,
	   const struct events *ev, struct alloc_place *place)
{
	int64_t high, r, step = 256, frag = (int64_t)128 << 20;

	replay(m, ALLOC_BFC, unlimited, req, ev, NULL);
	high = m->high;
	model_done(m);
	if (high >= 8 * frag)
		step = frag;
	r = high;
	for (int k = 0; replay(m, ALLOC_BFC, r, req, ev, place) < 0; k++) {
		model_done(m);
		r = high + (step << k);
	}
	return r;
}

/* Was the capacity exceeded: for BFC a replay within it fails (one region
 * of that size, or regions that stop there); for the others, what they
 * reserve with no limit is more. */
static int
over_capacity(struct model *m, int kind, int64_t limit,
	      const struct alloc_req *req, const struct events *ev,
	      int64_t reserved)
{
	int r;

	if (limit < 0)
		return -1;
	if (kind != ALLOC_BFC && kind != ALLOC_BFC_GROWTH)
		return reserved > limit;
	r = replay(m, kind, limit, req, ev, NULL);
	model_done(m);
	return r < 0;
}

/* One allocator's replay of events ev of req into run. */
static void
replay_kind(struct pool *pool, int kind, const struct alloc_req *req,
	    const struct events *ev, int64_t limit, struct alloc_run *run)
{
	int n = ev->n;
	struct alloc_place *all = calloc((size_t)n + 1, sizeof *all);
	double t0 = now_ms();
	struct model m;

	if (!all)
		abort();
	*run = (struct alloc_run){.kind = kind, .name = names[kind]};
	if (kind == ALLOC_BFC)
		run->region = bfc_region(&m, req, ev, all);
	else
		replay(&m, kind, unlimited, req, ev, all);
	run->peak_reserved = m.peak_reserved;
	run->peak_allocated = m.peak_in_use;
	keep_places(pool, req, n, all, run);
	lay_out(pool, &m, run);
	model_done(&m);
	run->exceeded = over_capacity(&m, kind, limit, req, ev,
				      run->peak_reserved);
	run->ms = now_ms() - t0;
	free(all);
}

int
alloc_replay(struct pool *pool, int kind, const struct alloc_req *req, int n,
	     int64_t limit, struct alloc_run *run)
{
	struct events ev = {n, sorted_by(req, n, 0), sorted_by(req, n, 1)};

	replay_kind(pool, kind, req, &ev, limit, run);
	free(ev.by_start);
	free(ev.by_end);
	return 0;
}

/* ---- the pass ------------------------------------------------------------ */

static int64_t
device_capacity(const struct options *o)
{
	for (int i = 0; i < o->ncap; i++)
		if (o->cap[i].space == 0)
			return o->cap[i].bytes;
	return -1;
}

void
replay_allocators(struct pool *pool, const struct options *o,
		  struct plan *pl)
{
	struct alloc_req *req = pool_alloc(pool, sizeof *req *
						  (size_t)(pl->nbuf + 1));
	struct events ev;
	double t0;
	int n = 0;

	for (int i = 0; i < pl->nbuf; i++) {
		const struct buffer *b = &pl->bufs[i];

		if (b->in_arena && b->space == 0)
			req[n++] = (struct alloc_req){b->size, b->start,
						      b->end, i};
	}
	t0 = now_ms();	/* the events, sorted once: timed in the first */
	ev = (struct events){n, sorted_by(req, n, 0), sorted_by(req, n, 1)};
	t0 = now_ms() - t0;
	pl->allocs = pool_alloc(pool, sizeof *pl->allocs * NALLOC);
	for (int k = 0; k < NALLOC; k++)
		replay_kind(pool, k, req, &ev, device_capacity(o),
			    &pl->allocs[k]);
	pl->allocs[0].ms += t0;
	free(ev.by_start);
	free(ev.by_end);
	pl->nalloc = NALLOC;
	pl->alloc_buffers = n;
}

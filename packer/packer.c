/* Packing.  Time is cut where no interval crosses and each piece is packed
 * apart: best fit over the gaps between placed neighbours in several orders
 * (XLA's GlobalDecreasingSizeBestFit, TFLite's greedy-by-size); then pieces
 * above the lower bound get google/minimalloc's canonical branch and bound
 * (Moffitt, ASPLOS 2024), or, when large, squeaky-wheel iterated greedy.
 * Pieces too large for one tree are cut further, where few bytes cross,
 * and packed window by window (pack_cut.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/table.h"
#include "packer/pack_internal.h"

/* ---- small helpers ------------------------------------------------------ */

int
pk_cmp_kv(const void *pa, const void *pb)
{
	const struct pack_kv *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Larger keys first, then smaller index: a total order. */
int
pk_cmp_okey(const void *pa, const void *pb)
{
	const struct okey *a = pa, *b = pb;

	for (int j = 0; j < 3; j++)
		if (a->k[j] != b->k[j])
			return a->k[j] > b->k[j] ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* A signed key as an unsigned one in the same order. */
static uint64_t
ukey(int64_t key)
{
	return (uint64_t)key ^ (UINT64_C(1) << 63);
}

void
pack_sort_kv(struct pack_kv *a, int n)
{
	struct pack_kv *tmp, *src = a, *dst;
	uint64_t or = 0, and = UINT64_MAX;

	for (int i = 0; i < n; i++) {
		or |= ukey(a[i].key);
		and &= ukey(a[i].key);
	}
	if (n < 2 || or == and)
		return;
	tmp = dst = pack_xmalloc((size_t)n * sizeof *tmp);
	for (int sh = 0; sh < 64; sh += 8) {
		size_t cnt[257] = { 0 };
		struct pack_kv *t;

		if ((((or ^ and) >> sh) & 0xff) == 0)	/* one digit for all */
			continue;
		for (int i = 0; i < n; i++)
			cnt[((ukey(src[i].key) >> sh) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (int i = 0; i < n; i++)
			dst[cnt[(ukey(src[i].key) >> sh) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof *a);
	free(tmp);
}

int *
pk_sorted_by(const struct box *b, int n, int by_end)
{
	struct pack_kv *kv = pack_xmalloc((size_t)n * sizeof *kv);
	int *ix = pack_xmalloc((size_t)n * sizeof *ix);

	for (int i = 0; i < n; i++) {
		kv[i].key = by_end ? b[i].end : b[i].start;
		kv[i].i = i;
	}
	pack_sort_kv(kv, n);
	for (int i = 0; i < n; i++)
		ix[i] = kv[i].i;
	free(kv);
	return ix;
}

int
pk_upper_rank(const int64_t *start, int n, int64_t t)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (start[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- lower bound --------------------------------------------------------- */

/* Sweep in start order, retiring boxes that ended before each start.
 * live[r] (when not NULL) is the live total just after rank r starts. */
static int64_t
peak_sweep(const struct box *b, int n, const int *bystart, const int *byend,
	   int64_t *live)
{
	int64_t cur = 0, peak = 0;
	int e = 0;

	for (int r = 0; r < n; r++) {
		const struct box *x = &b[bystart[r]];

		while (e < n && b[byend[e]].end < x->start)
			cur -= b[byend[e++]].size;
		cur += x->size;
		peak = max64(peak, cur);
		if (live)
			live[r] = cur;
	}
	return peak;
}

int64_t
pack_lower_bound(const struct boxes *bx)
{
	int *bys = pk_sorted_by(bx->b, bx->n, 0);
	int *bye = pk_sorted_by(bx->b, bx->n, 1);
	int64_t peak = peak_sweep(bx->b, bx->n, bys, bye, NULL);

	free(bys);
	free(bye);
	return peak;
}

/* ---- the packer's arrays and its pieces ---------------------------------- */

static void
packer_init(struct packer *P, struct boxes *bx, long budget)
{
	int n = bx->n;
	int *bye;

	memset(P, 0, sizeof *P);
	P->b = bx->b;
	P->n = n;
	P->budget = budget;
	P->ix = pk_sorted_by(bx->b, n, 0);
	P->start = pack_xmalloc((size_t)n * sizeof *P->start);
	P->end = pack_xmalloc((size_t)n * sizeof *P->end);
	P->size = pack_xmalloc((size_t)n * sizeof *P->size);
	P->align = pack_xmalloc((size_t)n * sizeof *P->align);
	P->pin = pack_xmalloc((size_t)n * sizeof *P->pin);
	P->off = pack_xmalloc((size_t)n * sizeof *P->off);
	P->live = pack_xmalloc((size_t)n * sizeof *P->live);
	for (int r = 0; r < n; r++) {
		const struct box *x = &bx->b[P->ix[r]];

		P->start[r] = x->start;
		P->end[r] = x->end;
		P->size[r] = x->size;
		P->align[r] = x->align > 0 ? x->align : 1;
		P->pin[r] = x->pin;
	}
	bye = pk_sorted_by(bx->b, n, 1);
	P->lower = peak_sweep(bx->b, n, P->ix, bye, P->live);
	free(bye);
}

static void
packer_free(struct packer *P)
{
	free(P->ix);
	free(P->start);
	free(P->end);
	free(P->size);
	free(P->align);
	free(P->pin);
	free(P->off);
	free(P->live);
	free(P->piece);
}

static void
add_piece(struct packer *P, int first, int last, int *cap)
{
	struct piece *p;

	if (P->npiece == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		P->piece = pack_xrealloc(P->piece,
					 (size_t)*cap * sizeof *P->piece);
	}
	p = &P->piece[P->npiece++];
	memset(p, 0, sizeof *p);
	p->first = first;
	p->n = last - first;
	for (int r = first; r < last; r++)
		if (P->pin[r] >= 0)
			P->target = max64(P->target, P->pin[r] + P->size[r]);
}

/* A new piece starts where a box starts after every earlier one ended. */
static void
split_pieces(struct packer *P)
{
	int first = 0, cap = 0;
	int64_t maxend = INT64_MIN;

	P->target = P->lower;
	for (int r = 0; r < P->n; r++) {
		if (r > first && P->start[r] > maxend) {
			add_piece(P, first, r, &cap);
			first = r;
		}
		maxend = max64(maxend, P->end[r]);
	}
	if (P->n > first)
		add_piece(P, first, P->n, &cap);
}

int
pk_threads(const struct packer *P)
{
	long np = sysconf(_SC_NPROCESSORS_ONLN);
	long want = P->threads > 0 ? P->threads
		    : np > PK_THREADS_AUTO ? PK_THREADS_AUTO : np;

	return want < 1 ? 1 : want > PK_THREADS_MAX ? PK_THREADS_MAX
						    : (int)want;
}

/* ---- twins: pieces that are copies of one another, shifted in time ----- */

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= UINT64_C(0x100000001b3);
	return h ^ (h >> 29);
}

/* How long after t0 (a piece's first start, so never later) time t is:
 * exact in 64 unsigned bits even when the span passes INT64_MAX. */
static uint64_t
since(int64_t t, int64_t t0)
{
	return (uint64_t)t - (uint64_t)t0;
}

/* A piece's boxes, times taken from its first start. */
static uint64_t
piece_hash(const struct packer *P, const struct piece *p)
{
	int64_t t0 = P->start[p->first];
	uint64_t h = mix(UINT64_C(0xcbf29ce484222325), (uint64_t)p->n);

	for (int r = p->first; r < p->first + p->n; r++) {
		h = mix(h, since(P->start[r], t0));
		h = mix(h, since(P->end[r], t0));
		h = mix(h, (uint64_t)P->size[r]);
		h = mix(h, (uint64_t)P->align[r]);
		h = mix(h, (uint64_t)P->pin[r]);
	}
	return h;
}

static int
same_piece(const struct packer *P, const struct piece *a,
	   const struct piece *b)
{
	int64_t ta = P->start[a->first], tb = P->start[b->first];

	if (a->n != b->n)
		return 0;
	for (int k = 0; k < a->n; k++) {
		int i = a->first + k, j = b->first + k;

		if (since(P->start[i], ta) != since(P->start[j], tb) ||
		    since(P->end[i], ta) != since(P->end[j], tb) ||
		    P->size[i] != P->size[j] || P->align[i] != P->align[j] ||
		    P->pin[i] != P->pin[j])
			return 0;
	}
	return 1;
}

/* Marks each piece that repeats an earlier one (a model's layers, a
 * problem made of copies) as its twin: packed once, its plan copied, so
 * that k copies cost what one does and get what one gets. */
struct twin_key {
	const struct packer *P;
	const struct piece *p;
};

static int
same_twin(const void *ctx, int j)
{
	const struct twin_key *k = ctx;

	return same_piece(k->P, &k->P->piece[j], k->p);
}

static void
find_twins(struct packer *P)
{
	struct table t;

	table_init(&t, NULL, (size_t)P->npiece);
	for (int i = 0; i < P->npiece; i++) {
		struct piece *p = &P->piece[i];
		struct twin_key k = {P, p};
		int j = table_key(&t, piece_hash(P, p), same_twin, &k, i);

		if (j >= 0)
			p->twin = j + 1;
	}
	table_free(&t);
}

/* The plan of each twin, from the piece it copies. */
static void
copy_twins(struct packer *P)
{
	for (int i = 0; i < P->npiece; i++) {
		struct piece *p = &P->piece[i];
		const struct piece *q;

		if (!p->twin)
			continue;
		q = &P->piece[p->twin - 1];
		memcpy(P->off + p->first, P->off + q->first,
		       (size_t)p->n * sizeof *P->off);
		p->height = q->height;
	}
}

struct local
pk_local_of(struct packer *P, const struct piece *p)
{
	struct local L;
	int f = p->first;

	L.n = p->n;
	L.ix = P->ix + f;
	L.start = P->start + f;
	L.end = P->end + f;
	L.size = P->size + f;
	L.align = P->align + f;
	L.pin = P->pin + f;
	L.live = P->live + f;
	L.off = P->off + f;
	return L;
}

/* The greedy portfolio, whatever the budget: order 0 by best fit on
 * every piece, then every order by best fit and by first fit on the
 * pieces still above the target, the lowest kept; so that no plan is
 * above what any of them gives.  The arena is as high as its highest
 * piece, so the pieces go highest first, and stop at the first that is
 * no higher than what the portfolio made of those before it: it and the
 * rest cannot set the height, and the portfolio could only lower them.
 * (On 10^6 boxes of 186 hard pieces, the portfolio on every one took 17
 * s.)  Cut pieces are packed already, window by window: the portfolio
 * runs on them whole all the same, as no window sees a whole-piece
 * greedy order, and their windows' plan stays unless it is higher. */
static void
greedy(struct packer *P)
{
	struct pack_kv *by = pack_xmalloc(((size_t)P->npiece + 1) *
					  sizeof *by);
	int64_t top = 0;
	int n = 0;

	for (int i = 0; i < P->npiece; i++)
		if (!P->piece[i].cut && !P->piece[i].twin) {
			long before = P->steps;

			pk_greedy_first(P, &P->piece[i]);
			P->piece[i].spent = P->steps - before;
		}
	for (int i = 0; i < P->npiece; i++) {
		struct piece *p = &P->piece[i];

		if (!p->twin && p->height > P->target)
			by[n++] = (struct pack_kv){-p->height, i};
	}
	pack_sort_kv(by, n);
	for (int q = 0; q < n; q++) {
		struct piece *p = &P->piece[by[q].i];

		long before = P->steps;

		if (p->height <= top)
			break;
		pk_greedy_portfolio(P, p);
		p->spent += P->steps - before;
		top = max64(top, p->height);
	}
	free(by);
}

/* The iterated greedy.  When the portfolio's winner is a best-fit pass,
 * from it, as before the portfolio.  Otherwise first from the lowest order
 * by best fit and that order's own plan, with half the budget, then from
 * the winner with what is left: on L07's TPU plan the winner (size classes
 * by first fit) spent the whole budget and gained nothing, where the
 * best-fit start reaches the bound in a tenth of it. */
static int
iterate(struct packer *P, struct piece *p, long budget)
{
	long end = P->steps + budget;
	int better = 0;

	if (p->first_fit || p->order != p->bf_order)
		better = pk_iterate_greedy(P, p, budget / 2, p->bf_order, 0, 1);
	if (p->height > P->target && P->steps < end)
		better |= pk_iterate_greedy(P, p, end - P->steps, p->order,
					    p->first_fit, 0);
	return better;
}

/* The bytes a piece can still gain: above the target and above its own
 * peak of live bytes. */
static int64_t
gain(const struct packer *P, const struct piece *p)
{
	int64_t bound = P->target;

	for (int r = p->first; r < p->first + p->n; r++)
		bound = max64(bound, P->live[r]);
	return p->height > bound ? p->height - bound : 0;
}

/* A piece above the target gets the budget less its own greedy steps, in
 * proportion to the bytes it can gain, the piece that can gain the most
 * getting all of it: so each of k different pieces gets what it would
 * alone, whatever the others (on one piece, as before).  Each gets the
 * iterated greedy (which stops by itself when it stalls), then the
 * search when it is small enough for it.  As in the portfolio, the arena
 * is as high as its highest piece: the pieces go highest first, and stop
 * at the first no higher than what the search made of those before it
 * (searching every piece of the 10^6-box challenging mix took 90 s). */
static void
search(struct packer *P, struct pack_stats *st)
{
	struct pack_kv *by = pack_xmalloc(((size_t)P->npiece + 1) *
					  sizeof *by);
	int64_t most = 0, top = 0;
	int n = 0;

	for (int i = 0; i < P->npiece; i++) {
		struct piece *p = &P->piece[i];
		int64_t g = p->cut || p->twin ? 0 : gain(P, p);

		if (p->twin)
			continue;	/* as high as the piece it copies */
		if (g == 0 || p->height <= P->target || P->budget <= p->spent) {
			top = max64(top, p->height);	/* done: it counts */
			continue;
		}
		most = max64(most, g);
		by[n++] = (struct pack_kv){-p->height, i};
	}
	pack_sort_kv(by, n);
	for (int q = 0; q < n; q++) {
		struct piece *p = &P->piece[by[q].i];
		long before = P->steps, share;
		int better;

		if (p->height <= top)
			break;
		share = (long)((double)(P->budget - p->spent) *
			       (double)gain(P, p) / (double)most);
		st->searched++;
		if (p->n > PK_SEARCH_MAX) {
			st->improved += iterate(P, p, share);
		} else {
			better = iterate(P, p, share / 8);
			better |= pk_search_piece(P, p,
						  share - (P->steps - before));
			st->improved += better;
		}
		top = max64(top, p->height);
	}
	free(by);
}

/* The pieces too large for one tree are cut (pack_cut.c), each with a
 * share of the budget by its boxes. */
static void
cut(struct packer *P)
{
	long left = 0;

	for (int i = 0; i < P->npiece; i++)
		if (P->piece[i].n > PK_CUT_MIN && !P->piece[i].twin)
			left += P->piece[i].n;
	for (int i = 0; i < P->npiece && left > 0; i++) {
		struct piece *p = &P->piece[i];
		long share;

		if (p->n <= PK_CUT_MIN || p->twin)
			continue;
		share = (long)((double)(P->budget - P->steps) * p->n / left);
		left -= p->n;
		p->cut = pk_cut_piece(P, p, share > 0 ? share : 0);
	}
}

static int64_t
top_height(const struct packer *P)
{
	int64_t h = 0;

	for (int i = 0; i < P->npiece; i++)
		h = max64(h, P->piece[i].height);
	return h;
}

/* The phases, offsets written back to bx; may_cut 0 for the packer's own
 * sub-problems (pack_cut.c), which are small or are cut already. */
static void
run(struct boxes *bx, long budget, int64_t floor, int greedy_only,
    int may_cut, int threads, struct pack_spare *spare, struct pack_stats *st)
{
	struct packer P;

	packer_init(&P, bx, budget);
	P.threads = threads;
	P.spare = spare;
	P.greedy_only = greedy_only;
	split_pieces(&P);
	find_twins(&P);
	P.target = max64(P.target, floor);
	if (may_cut)
		cut(&P);
	greedy(&P);
	st->greedy = top_height(&P);
	st->pieces = P.npiece;
	for (int i = 0; i < P.npiece; i++)
		st->cut += P.piece[i].cut;
	if (!greedy_only)
		search(&P, st);
	copy_twins(&P);
	for (int r = 0; r < P.n; r++)
		bx->b[P.ix[r]].offset = P.off[r];
	bx->height = top_height(&P);
	bx->lower = P.lower;
	st->steps = P.steps;
	st->taken = P.taken;
	packer_free(&P);
}

long
pk_pack_part(struct boxes *bx, long budget, int64_t floor)
{
	struct pack_stats st = { 0 };

	run(bx, budget, floor, 0, 0, 1, NULL, &st);
	return st.steps;
}

void
pack(struct boxes *bx, const struct pack_opts *opt)
{
	static const struct pack_opts def;
	struct pack_stats st = { 0 };

	if (!opt)
		opt = &def;
	run(bx, opt->effort > 0 ? opt->effort : PACK_EFFORT_DEFAULT, 0,
	    opt->greedy_only, 1, opt->threads, opt->spare, &st);
	if (opt->stats)
		*opt->stats = st;
}

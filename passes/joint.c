/* The joint plan: persistent arrays at one offset in every program, each
 * program's own buffers packed around them, as one packing problem over
 * the programs' timelines laid end to end.  Phase 1 gives each array one
 * box over the whole line (live across every call) and packs it all; phase
 * 2 pins the arrays, as boxes only where each program needs them (an
 * output of A read by B holds nothing in A before A writes it), where
 * phase 1 put them and again laid end to end from 0, and packs the
 * programs' buffers around them; the lowest of the three is kept. */
#include <string.h>

#include "packer/pack.h"
#include "passes/joint.h"

/* Whether position k of pl is at the shape index j names. */
static int
pos_at(const struct plan *pl, int k, const struct jindex *j)
{
	int64_t a[JOINT_MAX_DEPTH];
	int n = pl->pos[k].depth;

	if (n > JOINT_MAX_DEPTH)
		return 0;
	for (int i = 0; i < n; i++)
		a[i] = pl->pos[k].index[i];
	return jindex_is(j, a, n);
}

/* The buffer of pl that holds the node u names, or -1. */
static int
param_buf(const struct plan *pl, const struct joint_use *u)
{
	for (int k = 0; k < pl->npos; k++)
		if (pl->pos[k].param == u->param && pos_at(pl, k, &u->pidx))
			return pl->pos[k].buf;
	return -1;
}

static int
out_buf(const struct plan *pl, const struct joint_use *u)
{
	for (int k = 0; k < pl->npos; k++)
		if (pl->pos[k].output && pos_at(pl, k, &u->oidx))
			return pl->pos[k].buf;
	return -1;
}

/* The buffer that holds array a in use u's program, or -1 with an error:
 * one buffer, in the arena of S(0), with no slots. */
static int
use_buf(struct diags *ds, const struct joint_decl *d, int a,
	const struct joint_use *u, const struct plan *pl)
{
	const char *pn = d->prog[u->prog].name;
	int p = u->param >= 0 ? param_buf(pl, u) : -1;
	int o = u->out ? out_buf(pl, u) : -1;
	int b = p >= 0 ? p : o;

	if ((u->param >= 0 && p < 0) || (u->out && o < 0) || b < 0) {
		diag_error(ds, u->loc, "program '%s': shared array '%s' has no "
			   "buffer in the %s plan", pn, d->arr[a].name,
			   pl->target == TARGET_TPU ? "tpu" : "gpu");
		return -1;
	}
	if (p >= 0 && o >= 0 && p != o) {
		diag_error(ds, u->oloc, "program '%s' cannot update shared "
			   "array '%s' in place: its output and parameter "
			   "are live at once, so the plan gives them two "
			   "buffers", pn, d->arr[a].name);
		return -1;
	}
	if (!pl->bufs[b].in_arena || pl->bufs[b].space != 0 ||
	    pl->bufs[b].slots != 1) {
		diag_error(ds, u->loc, "program '%s': shared array '%s' must "
			   "live in memory space S(0) in one buffer with no "
			   "slots", pn, d->arr[a].name);
		return -1;
	}
	return b;
}

static int
is_array_buf(const struct joint_plan *jp, int k, int b)
{
	for (int a = 0; a < jp->narray; a++)
		if (jp->buf[k][a] == b)
			return 1;
	return 0;
}

/* Program k's own buffers of S(0) as boxes from time t0; returns how many
 * were added to bx. */
static int
own_boxes(const struct joint_plan *jp, int k, int64_t t0, struct boxes *bx)
{
	const struct plan *pl = &jp->plans[k];
	int n = 0;

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];
		struct box *y;

		if (!x->in_arena || x->space != 0 || x->size == 0 ||
		    is_array_buf(jp, k, b))
			continue;
		y = &bx->b[bx->n++];
		*y = (struct box){t0 + x->start, t0 + x->end, x->size,
				  pl->align, -1, 0, (int64_t)k << 32 | b};
		n++;
	}
	return n;
}

static int
nbox_max(const struct joint_plan *jp)
{
	int n = jp->narray * (jp->nprog + 1);

	for (int k = 0; k < jp->nprog; k++)
		n += jp->plans[k].nbuf;
	return n + 1;
}

/* Finds each array's buffers, sizes, and each program's own figures. */
static int
fill_arrays(struct pool *pool, struct diags *ds, const struct joint_decl *d,
	    struct joint_plan *jp)
{
	int bad = 0;

	for (int k = 0; k < jp->nprog; k++) {
		jp->buf[k] = pool_alloc(pool, sizeof(int) *
					(size_t)(jp->narray + 1));
		for (int a = 0; a < jp->narray; a++)
			jp->buf[k][a] = -1;
	}
	for (int a = 0; a < jp->narray; a++)
		for (int u = 0; u < d->arr[a].nuse; u++) {
			const struct joint_use *x = &d->arr[a].use[u];
			const struct plan *pl = &jp->plans[x->prog];
			int b = use_buf(ds, d, a, x, pl);

			bad |= b < 0;
			if (b < 0)
				continue;
			jp->buf[x->prog][a] = b;
			if (pl->bufs[b].size > jp->size[a])
				jp->size[a] = pl->bufs[b].size;
			if (pl->bufs[b].bytes > jp->bytes[a])
				jp->bytes[a] = pl->bufs[b].bytes;
		}
	return bad ? -1 : 0;
}

static int64_t
space0_size(const struct plan *pl)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == 0)
			return pl->arenas[a].size;
	return 0;
}

/* Each program alone: its plan's arena, its own buffers packed alone and
 * their peak. */
static void
fill_alone(struct pool *pool, const struct options *o, struct joint_plan *jp)
{
	struct pack_opts po = {.effort = o->effort, .threads = o->threads};
	struct boxes bx = {0};

	bx.b = pool_alloc(pool, sizeof *bx.b * (size_t)nbox_max(jp));
	for (int k = 0; k < jp->nprog; k++) {
		bx.n = 0;
		own_boxes(jp, k, 0, &bx);
		pack(&bx, &po);
		jp->own_peak[k] = bx.lower;
		jp->own_alone[k] = bx.height;
		jp->alone[k] = space0_size(&jp->plans[k]);
		jp->sum_alone += jp->alone[k];
		if (jp->own_alone[k] > jp->max_own_alone)
			jp->max_own_alone = jp->own_alone[k];
	}
	for (int a = 0; a < jp->narray; a++)
		jp->persistent += jp->size[a];
	for (int k = 0; k < jp->nprog; k++)
		if (jp->persistent + jp->own_peak[k] > jp->simple_bound)
			jp->simple_bound = jp->persistent + jp->own_peak[k];
}

/* Where array a must keep its bytes in program k, from t0: from the start
 * when k reads it or does not touch it (it lives across the call), else
 * from its buffer's first step; always to the end. */
static void
array_window(const struct joint_plan *jp, const struct joint_decl *d, int k,
	     int a, int64_t t0, struct box *y)
{
	const struct plan *pl = &jp->plans[k];
	int b = jp->buf[k][a];
	int reads = b < 0;

	for (int u = 0; u < d->arr[a].nuse; u++)
		reads |= d->arr[a].use[u].prog == k &&
			 d->arr[a].use[u].param >= 0;
	y->start = t0 + (reads ? 0 : pl->bufs[b].start);
	y->end = t0 + (pl->ntime > 0 ? pl->ntime - 1 : 0);
}

/* Phase 1: every array one box over all programs, every program's own
 * buffers in its window of the line. */
static void
phase1(struct joint_plan *jp, const int64_t *t0, int64_t total,
       struct boxes *bx)
{
	bx->n = 0;
	for (int a = 0; a < jp->narray; a++)
		if (jp->size[a] > 0)
			bx->b[bx->n++] = (struct box){0, total - 1, jp->size[a],
				jp->plans[0].align, -1, 0, -1 - (int64_t)a};
	for (int k = 0; k < jp->nprog; k++)
		own_boxes(jp, k, t0[k], bx);
}

/* Phase 2: the arrays pinned at off[], live only where each program needs
 * them. */
static void
phase2(struct joint_plan *jp, const struct joint_decl *d, const int64_t *t0,
       const int64_t *off, struct boxes *bx)
{
	bx->n = 0;
	for (int k = 0; k < jp->nprog; k++) {
		for (int a = 0; a < jp->narray; a++) {
			struct box *y = &bx->b[bx->n];

			if (jp->size[a] == 0)
				continue;
			*y = (struct box){0, 0, jp->size[a], 1, off[a], 0,
					  -1 - (int64_t)a};
			array_window(jp, d, k, a, t0[k], y);
			bx->n++;
		}
		own_boxes(jp, k, t0[k], bx);
	}
}

/* The packing's offsets into the plans: own buffers by id, arrays at
 * off[], and every S(0) arena the joint height. */
static void
apply(struct joint_plan *jp, const struct boxes *bx, const int64_t *off)
{
	int64_t al = jp->plans[0].align;

	jp->arena = (bx->height + al - 1) / al * al;
	for (int i = 0; i < bx->n; i++)
		if (bx->b[i].id >= 0)
			jp->plans[bx->b[i].id >> 32].bufs[bx->b[i].id &
				0xffffffff].offset = bx->b[i].offset;
	for (int a = 0; a < jp->narray; a++) {
		jp->offset[a] = off[a];
		for (int k = 0; k < jp->nprog; k++)
			if (jp->buf[k][a] >= 0)
				jp->plans[k].bufs[jp->buf[k][a]].offset =
					off[a];
	}
	for (int k = 0; k < jp->nprog; k++)
		for (int a = 0; a < jp->plans[k].narena; a++)
			if (jp->plans[k].arenas[a].space == 0)
				jp->plans[k].arenas[a].size = jp->arena;
}

/* Phase 2 with the arrays at off[]: keeps it in *best when lower. */
static void
try_pinned(struct joint_plan *jp, const struct joint_decl *d,
	   const int64_t *t0, const int64_t *off, const struct pack_opts *po,
	   struct boxes *bx, struct boxes *best, int64_t *best_off)
{
	phase2(jp, d, t0, off, bx);
	pack(bx, po);
	if (bx->lower > jp->lower)
		jp->lower = bx->lower;
	if (best->n && bx->height >= best->height)
		return;
	memcpy(best->b, bx->b, sizeof *bx->b * (size_t)bx->n);
	best->n = bx->n;
	best->height = bx->height;
	memcpy(best_off, off, sizeof *off * (size_t)jp->narray);
	jp->phase = 2;
}

/* Three candidates, the lowest kept: phase 1; phase 2 with the arrays
 * where phase 1 put them; phase 2 with the arrays laid end to end from 0
 * (ExecuTorch's state arena, every program's buffers packed around it). */
static void
pack_joint(struct pool *pool, const struct joint_decl *d,
	   const struct options *o, struct joint_plan *jp)
{
	struct pack_opts po = {.effort = o->effort, .threads = o->threads};
	size_t na = (size_t)(jp->narray + 1), nb = (size_t)nbox_max(jp);
	int64_t *t0 = pool_alloc(pool, sizeof *t0 * (size_t)(jp->nprog + 1));
	int64_t *off = pool_alloc(pool, sizeof *off * na);
	int64_t *best_off = pool_alloc(pool, sizeof *off * na);
	struct boxes b1 = {0}, b2 = {0}, best = {0};

	for (int k = 0; k < jp->nprog; k++)
		t0[k + 1] = t0[k] + (jp->plans[k].ntime > 0 ?
				     jp->plans[k].ntime : 1);
	b1.b = pool_alloc(pool, sizeof *b1.b * nb);
	b2.b = pool_alloc(pool, sizeof *b2.b * nb);
	best.b = pool_alloc(pool, sizeof *best.b * nb);
	phase1(jp, t0, t0[jp->nprog], &b1);
	pack(&b1, &po);
	for (int i = 0; i < b1.n; i++)
		if (b1.b[i].id < 0)
			off[-1 - b1.b[i].id] = b1.b[i].offset;
	memcpy(best.b, b1.b, sizeof *b1.b * (size_t)b1.n);
	best.n = b1.n;
	best.height = b1.height;
	memcpy(best_off, off, sizeof *off * na);
	jp->phase = 1;
	jp->lower = jp->persistent;
	try_pinned(jp, d, t0, off, &po, &b2, &best, best_off);
	for (int a = 0; a < jp->narray; a++) {
		int64_t end = a ? off[a - 1] + jp->size[a - 1] : 0;
		int64_t al = jp->plans[0].align;

		off[a] = (end + al - 1) / al * al;
	}
	try_pinned(jp, d, t0, off, &po, &b2, &best, best_off);
	apply(jp, &best, best_off);
}

int
plan_joint(struct pool *pool, struct diags *ds, const struct joint_decl *d,
	   const struct options *o, struct joint_plan *jp)
{
	size_t np = (size_t)d->nprog + 1, na = (size_t)d->narray + 1;

	jp->narray = d->narray;
	jp->buf = pool_alloc(pool, sizeof *jp->buf * np);
	jp->offset = pool_alloc(pool, sizeof(int64_t) * na);
	jp->size = pool_alloc(pool, sizeof(int64_t) * na);
	jp->bytes = pool_alloc(pool, sizeof(int64_t) * na);
	jp->own_peak = pool_alloc(pool, sizeof(int64_t) * np);
	jp->alone = pool_alloc(pool, sizeof(int64_t) * np);
	jp->own_alone = pool_alloc(pool, sizeof(int64_t) * np);
	if (fill_arrays(pool, ds, d, jp))
		return -1;
	fill_alone(pool, o, jp);
	pack_joint(pool, d, o, jp);
	return 0;
}

/* Setting up the checker's symbolic run (verify_run.c): the plan's
 * positions, steps, buffers and copies indexed and checked for shape, the
 * entry's parameters written before the first step and its result and
 * kept parameters read after the last. */
#include <stdlib.h>
#include <string.h>

#include "checker/verify_run.h"

/* ---- setting up: the plan's positions, steps and copies ------------------ */

static void
index_positions(struct vr *v)
{
	const struct plan *pl = v->pl;
	const struct module *m = v->m;

	for (int k = 0, n; k < pl->npos; k += n) {
		const struct plan_pos *p = &pl->pos[k];
		const struct comp *cp;
		int fill = k;

		if (p->comp < 0 || p->comp >= m->ncomp || p->instr < 0 ||
		    p->instr >= m->comps[p->comp].ninstr || p->node != 0)
			vr_fail(v, "plan position %d is out of range", k);
		cp = &m->comps[p->comp];
		if (!v->posbase[p->comp]) {
			size_t ni = (size_t)cp->ninstr + 1;

			v->posbase[p->comp] = vr_alloc(v, sizeof(int) * ni);
			v->stepof[p->comp] = vr_alloc(v, sizeof(int) * ni);
			v->order[p->comp] = vr_alloc(v, sizeof(int) * ni);
			memset(v->posbase[p->comp], -1, sizeof(int) * ni);
		}
		if (v->posbase[p->comp][p->instr] >= 0)
			vr_fail(v, "the plan lists '%s' twice",
				cp->instrs[p->instr].name);
		v->posbase[p->comp][p->instr] = k;
		v->stepof[p->comp][p->instr] = v->nstep++;
		v->order[p->comp][v->norder[p->comp]++] = p->instr;
		n = vr_nodes_of(&cp->instrs[p->instr].shape);
		if (k + n > pl->npos)
			vr_fail(v, "the plan's positions do not cover '%s'",
				cp->instrs[p->instr].name);
		vr_fill_nodes(&cp->instrs[p->instr].shape, v->nshape, v->nsub,
			   &fill);
		for (int j = k; j < k + n; j++) {
			if (pl->pos[j].comp != p->comp ||
			    pl->pos[j].instr != p->instr ||
			    pl->pos[j].node != j - k || pl->pos[j].buf < 0 ||
			    pl->pos[j].buf >= pl->nbuf)
				vr_fail(v, "plan position %d is out of order",
					j);
			v->comp_of_pos[j] = p->comp;
			v->instr_of_pos[j] = p->instr;
		}
	}
}

/* The shape the entry's result layout gives position k, when k is an
 * output node of a root that is not a parameter or a constant (those
 * outputs stay where they are defined); else NULL. */
static const struct shape *
result_of(const struct vr *v, int k)
{
	const struct comp *e = &v->m->comps[v->m->entry];
	const struct instr *r;

	if (v->comp_of_pos[k] != v->m->entry || v->instr_of_pos[k] != e->root)
		return NULL;
	r = &e->instrs[e->root];
	if (r->op && (r->op->op == OP_PARAMETER || r->op->op == OP_CONSTANT))
		return NULL;
	return vs_result(v->m, v->o, v->pl->pos[k].node, v->nshape[k]);
}

/* An entry output lies in the memory space its result layout names and
 * has the room that layout takes. */
static int64_t
size_output(struct vr *v, int k, int64_t n)
{
	const struct shape *rs = result_of(v, k);
	const struct buffer *b = &v->pl->bufs[v->pl->pos[k].buf];
	int64_t rn;

	if (!rs)
		return n;
	if (b->space != rs->space)
		vr_fail(v, "entry output '%s' is in memory space %d, its "
			"layout's is %d", b->name, b->space, rs->space);
	rn = vs_bytes(v->o, rs);
	return n < 0 || rn < 0 ? -1 : rn > n ? rn : n;
}

/* Every position's bytes fit the room of its buffer (its slot); an entry
 * output's, the room its result layout takes too. */
static void
size_positions(struct vr *v)
{
	for (int k = 0; k < v->pl->npos; k++) {
		const struct buffer *b = &v->pl->bufs[v->pl->pos[k].buf];
		int64_t room = b->slots > 1 ? b->stride : b->size;
		int64_t n = vs_bytes(v->o, v->nshape[k]);
		int64_t need = size_output(v, k, n);
		char name[256];

		if (b->flags & BUF_CONST && !b->in_arena && room < need)
			room = need;	/* constants: listed, not placed */
		if (need < 0 || need > room) {
			vr_pos_name(v, k, name, sizeof name);
			vr_fail(v, "'%s' needs %lld bytes, more than the %lld "
				"of buffer '%s'", name, (long long)need,
				(long long)room, b->name);
		}
		v->nbytes[k] = n;
	}
}

static int
arena_index(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return a;
	return -1;
}

/* Regions, the loop each slotted buffer's values are made in, and the
 * buffers nothing but their value may write. */
static void
index_buffers(struct vr *v)
{
	const struct plan *pl = v->pl;
	const struct comp *e = &v->m->comps[v->m->entry];

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *bf = &pl->bufs[b];

		v->region[b] = bf->in_arena ? arena_index(pl, bf->space) :
					      pl->narena + b;
		if (v->region[b] < 0 || (uint64_t)v->region[b] >=
		    UINT64_C(1) << (64 - VM_REGION_SHIFT) ||
		    (uint64_t)(bf->in_arena ? bf->offset + bf->size :
					       bf->size) >= VM_MAX_OFFSET)
			vr_fail(v, "buffer '%s' lies where the verifier "
				"cannot follow it", bf->name);
		v->slotcomp[b] = -1;
		v->readonly[b] = bf->flags & BUF_CONST ? 1 :
				 bf->flags & BUF_PARAM && !bf->in_arena ? 2 : 0;
	}
	for (int k = 0; k < pl->npos; k++) {
		const struct plan_pos *p = &pl->pos[k];

		if (p->defines && pl->bufs[p->buf].slots > 1 &&
		    v->slotcomp[p->buf] < 0) {
			v->slotcomp[p->buf] = p->comp;
			if (pl->bufs[p->buf].slots > v->kslots[p->comp])
				v->kslots[p->comp] = pl->bufs[p->buf].slots;
		}
		if (p->comp == v->m->entry &&
		    vr_opcode(&e->instrs[p->instr]) == OP_PARAMETER &&
		    v->readonly[p->buf] == 2)
			for (int a = 0; a < v->m->nalias; a++)
				if (v->m->aliases[a].param ==
				    e->instrs[p->instr].param)
					v->readonly[p->buf] = 0;
	}
}

/* Copies by step; a copy before a loop's step from its init into its
 * state runs when the loop starts (as the runtime and the oracle do). */
static void
index_copies(struct vr *v)
{
	const struct plan *pl = v->pl;
	int *fill = vr_alloc(v, sizeof(int) * (size_t)(v->nstep + 2));

	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *pc = &pl->copies[k];

		if (pc->step < 0 || pc->step >= v->nstep || pc->src < 0 ||
		    pc->src >= pl->nbuf || pc->dst < 0 ||
		    pc->dst >= pl->nbuf || pc->bytes < 0 ||
		    pc->bytes > pl->bufs[pc->src].size ||
		    pc->bytes > pl->bufs[pc->dst].size)
			vr_fail(v, "plan copy %d is out of range", k);
		v->cfirst[pc->step + 1]++;
		v->entry_of[k] = -1;
	}
	for (int t = 0; t < v->nstep; t++)
		v->cfirst[t + 1] += v->cfirst[t];
	for (int k = 0; k < pl->ncopy; k++) {
		int t = pl->copies[k].step;

		v->cidx[v->cfirst[t] + fill[t]++] = k;
	}
	vr_free(v, fill);
}

struct wnode {
	int src, dst, pos;
	int32_t step;
};

static int
cmp_wnode(const void *a, const void *b)
{
	const struct wnode *x = a, *y = b;

	if (x->src != y->src)
		return (x->src > y->src) - (x->src < y->src);
	if (x->dst != y->dst)
		return (x->dst > y->dst) - (x->dst < y->dst);
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The first step of a while's loop: of its condition's and body's own
 * instructions, the earliest (their callees' steps come before them). */
static int
loop_first(const struct vr *v, const struct instr *in)
{
	int first = INT32_MAX;
	const char *keys[2] = {"condition", "body"};

	for (int j = 0; j < 2; j++) {
		int d = vr_callee(in, keys[j]);

		for (int i = 0; d >= 0 && v->posbase[d] &&
				i < v->m->comps[d].ninstr; i++)
			if (v->posbase[d][i] >= 0 && v->stepof[d][i] < first)
				first = v->stepof[d][i];
	}
	return first;
}

/* Each copy before a step that moves a while's init into its state at or
 * before the loop's first step enters the nearest such loop (the one
 * whose first step comes first from the copy's on; one loop may nest
 * in another with the same buffers); one inside the loop is a copy of
 * that step. */
static void
find_entries(struct vr *v)
{
	const struct plan *pl = v->pl;
	struct wnode *w = NULL;
	size_t n = 0, cap = 0;

	for (int k = 0; k < pl->npos; k++) {
		const struct instr *in = &v->m->comps[v->comp_of_pos[k]]
					  .instrs[v->instr_of_pos[k]];
		int init;

		if (vr_opcode(in) != OP_WHILE || in->nops != 1)
			continue;
		init = v->posbase[v->comp_of_pos[k]][in->ops[0]] +
		       pl->pos[k].node;
		if (n == cap) {
			cap = 2 * cap + 64;
			w = realloc(w, sizeof *w * cap);
			if (!w)
				abort();
		}
		w[n++] = (struct wnode){pl->pos[init].buf, pl->pos[k].buf,
					k - pl->pos[k].node,
					loop_first(v, in)};
	}
	if (n > 1)
		qsort(w, n, sizeof *w, cmp_wnode);
	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *pc = &pl->copies[k];
		size_t lo = 0, hi = n;

		while (lo < hi) {	/* the first of (src, dst) */
			size_t mid = (lo + hi) / 2;

			if (w[mid].src < pc->src || (w[mid].src == pc->src &&
						     w[mid].dst < pc->dst))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int best = INT32_MAX; !pc->after && lo < n &&
		     w[lo].src == pc->src && w[lo].dst == pc->dst; lo++)
			if (pc->step <= w[lo].step && w[lo].step < best) {
				v->entry_of[k] = w[lo].pos;	/* the nearest */
				best = w[lo].step;
			}
	}
	free(w);
}

/* The caller writes the entry's parameters before the first step. */
void
vr_write_params(struct vr *v)
{
	const struct comp *e = &v->m->comps[v->m->entry];

	if (!v->posbase[v->m->entry])
		vr_fail(v, "the plan does not list the entry computation");
	v->now = -1;
	for (int k = 0; k < e->nparam; k++) {
		int i = e->params[k], base;

		if (i < 0 || (base = v->posbase[v->m->entry][i]) < 0)
			continue;
		for (int node = 0; node < v->nsub[base]; node++)
			vr_define(v, base + node, WHO_NONE);
	}
}

/* Is preorder node `node` of entry parameter k donated to an output
 * (input_output_alias)? */
static int
donated(const struct module *m, int64_t k, int node)
{
	const struct comp *e = &m->comps[m->entry];
	const struct shape *s = &e->instrs[e->params[k]].shape;

	for (int a = 0; a < m->nalias; a++) {
		const struct shape *t = s;
		int at = 0, d;

		if (m->aliases[a].param != k)
			continue;
		for (d = 0; d < m->aliases[a].npidx; d++) {
			int64_t x = m->aliases[a].pidx[d];

			if (x < 0 || x >= t->nelem)
				break;
			at++;
			for (int64_t y = 0; y < x; y++)
				at += vs_nodes(&t->elems[y]);
			t = &t->elems[x];
		}
		if (d == m->aliases[a].npidx && at == node)
			return 1;
	}
	return 0;
}

/* The caller finds every array of a parameter it did not donate as it
 * passed it, unless it let the plan reuse their space. */
void
vr_read_kept_params(struct vr *v)
{
	const struct comp *e = &v->m->comps[v->m->entry];

	if (v->o->reuse_params)
		return;
	for (int k = 0; k < e->nparam; k++) {
		int i = e->params[k], base;

		if (i < 0 || (base = v->posbase[v->m->entry][i]) < 0)
			continue;
		for (int node = 0; node < v->nsub[base]; node++)
			if (!shape_is_tuple(v->nshape[base + node]) &&
			    !donated(v->m, k, node))
				vr_need(v, base + node, WHO_KEPT);
	}
}

/* The caller reads every array of the entry's result after the last. */
void
vr_read_result(struct vr *v)
{
	const struct comp *e = &v->m->comps[v->m->entry];
	int base = e->root >= 0 ? v->posbase[v->m->entry][e->root] : -1;

	if (base < 0)
		vr_fail(v, "the plan does not list the entry's ROOT");
	v->now = v->nstep;
	vr_need_all(v, base, WHO_RESULT);
}

void
vr_setup(struct vr *v)
{
	const struct plan *pl = v->pl;
	size_t np = (size_t)pl->npos + 1, nc = (size_t)v->m->ncomp + 1;
	size_t nb = (size_t)pl->nbuf + 1;

	v->posbase = vr_alloc(v, sizeof(int *) * nc);
	v->stepof = vr_alloc(v, sizeof(int *) * nc);
	v->order = vr_alloc(v, sizeof(int *) * nc);
	v->norder = vr_alloc(v, sizeof(int) * nc);
	v->iter_of = vr_alloc(v, sizeof(int64_t) * nc);
	v->comp_of_pos = vr_alloc(v, sizeof(int) * np);
	v->instr_of_pos = vr_alloc(v, sizeof(int) * np);
	v->nshape = vr_alloc(v, sizeof(*v->nshape) * np);
	v->nsub = vr_alloc(v, sizeof(int) * np);
	v->nbytes = vr_alloc(v, sizeof(int64_t) * np);
	v->cur = vr_alloc(v, sizeof(uint32_t) * np);
	v->region = vr_alloc(v, sizeof(int) * nb);
	v->slotcomp = vr_alloc(v, sizeof(int) * nb);
	v->readonly = vr_alloc(v, sizeof(int) * nb);
	table_init(&v->tabs, NULL, 64);
	v->kslots = vr_alloc(v, sizeof(int) * nc);
	vr_new_tag(v, TAG_POISON, -1, WHY_NONE);	/* tag 0: never written */
	index_positions(v);
	v->cfirst = vr_alloc(v, sizeof(int) * (size_t)(v->nstep + 2));
	v->cidx = vr_alloc(v, sizeof(int) * (size_t)(pl->ncopy + 1));
	v->entry_of = vr_alloc(v, sizeof(int) * (size_t)(pl->ncopy + 1));
	size_positions(v);
	index_buffers(v);
	index_copies(v);
	find_entries(v);
}


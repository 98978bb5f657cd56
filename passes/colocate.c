/* Colocation: a temporary goes inside the buffer of another set where
 * that buffer holds nothing live, when it fits in its bytes: a donated
 * parameter after its last read, an output before it is written, a loop's
 * state between its last read in an iteration and the next state's write
 * (XLA's heap simulator places values of one buffer apart in time the same
 * way).  A box inside another's hull and bytes leaves the packer less to
 * place, never more. */
#include <stdlib.h>

#include "passes/passes.h"

/* At most this many candidate pairs are tried: work, not time, so that
 * every machine makes the same plan. */
enum { COLOCATE_WORK = 4000000 };

struct host {
	int root;
	int64_t size;
};

/* A temp as the search reads it: its set, space and hull, and the steps
 * of a span of it that may show a conflict at once (t0 > t1: none). */
struct cand {
	int root, space;
	int32_t bstart, bend, t0, t1;
};

/* Candidates: sets of arrays of one memory space, by size, largest first
 * (ties by root: the same plan on every machine). */
static int
cmp_desc(const void *a, const void *b)
{
	const struct host *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return (x->root > y->root) - (x->root < y->root);
}

/* Per root: its flags, its space (-1: mixed or tables) and its largest
 * array's bytes on the target; whether it stays as it is (a value of a
 * computation run more than once, or in a loop when double buffering may
 * give it slots; a parameter that survives the call). */
struct facts {
	int *flags, *space, *fixed, *copied;
	int64_t *size;
};

/* Is there a point inside the hull of root r's spans that none of them
 * covers, with room for a span of its own? */
static int
has_hole(const struct prog *p, int r)
{
	const struct segset *s = &p->sets[r];

	for (int k = 1; k < s->n; k++)
		if (s->s[k].lo - s->top[k - 1] >= 2)
			return 1;
	return 0;
}

static void
gather(struct prog *p, struct facts *f)
{
	size_t n = (size_t)(p->nval + 1);
	int32_t *inloop = pool_alloc(p->pool, sizeof(int32_t) *
					      (size_t)(p->ntime + 1));
	const char **dep = pool_alloc(p->pool, sizeof(char *) *
					       (size_t)(p->m->ncomp + 1));

	f->flags = pool_alloc(p->pool, sizeof(int) * n);
	f->space = pool_alloc(p->pool, sizeof(int) * n);
	f->fixed = pool_alloc(p->pool, sizeof(int) * n);
	f->copied = pool_alloc(p->pool, sizeof(int) * n);
	f->size = pool_alloc(p->pool, sizeof(int64_t) * n);
	for (int l = 0; l < p->nloop; l++)
		for (int32_t t = p->loops[l].start; t <= p->loops[l].end; t++)
			inloop[t] = 1;
	for (int v = 0; v < p->nval; v++)
		f->space[v] = -2;
	for (int k = 0; k < p->ncopy; k++)	/* (a copy's ends stay apart:
						   a runtime tells a loop's
						   entry copy by its buffers) */
		f->copied[prog_find(p, p->copies[k].src)] =
			f->copied[prog_find(p, p->copies[k].dst)] = 1;
	for (int v = 0; v < p->nval; v++) {
		const struct value *x = &p->values[v];
		int r = prog_find(p, v), s;
		int64_t b;

		f->flags[r] |= x->flags;
		if (p->wide[x->comp] || (inloop[p->time[x->comp][x->instr]] &&
		    wanted_slots(p, x->comp, x->instr, dep)) ||
		    param_survives(p, v))
			f->fixed[r] = 1;
		if (shape_is_tuple(x->shape)) {
			f->space[r] = -1;
			continue;
		}
		s = x->shape->space;
		f->space[r] = f->space[r] == -2 || f->space[r] == s ? s : -1;
		b = target_size(&p->opt, x->shape);
		if (b > f->size[r])
			f->size[r] = b;
	}
}

void
colocate(struct prog *p)
{
	struct facts f;
	struct host *hosts, *temps;
	struct cand *cands;
	int nh = 0, nt = 0;
	long work = 0;

	gather(p, &f);
	hosts = pool_alloc(p->pool, sizeof *hosts * (size_t)(p->nval + 1));
	temps = pool_alloc(p->pool, sizeof *temps * (size_t)(p->nval + 1));
	for (int v = 0; v < p->nval; v++) {
		if (prog_find(p, v) != v || f.space[v] < 0 || f.size[v] <= 0 ||
		    f.fixed[v] || (f.flags[v] & (BUF_CONST | BUF_TABLE)))
			continue;
		if ((f.flags[v] & (BUF_PARAM | BUF_OUTPUT)) || has_hole(p, v))
			hosts[nh++] = (struct host){v, f.size[v]};
		else if (!(f.flags[v] & VAL_PHI) && !f.copied[v])
			temps[nt++] = (struct host){v, f.size[v]};
	}
	qsort(hosts, (size_t)nh, sizeof *hosts, cmp_desc);
	qsort(temps, (size_t)nt, sizeof *temps, cmp_desc);
	cands = pool_alloc(p->pool, sizeof *cands * (size_t)(nt + 1));
	for (int t = 0; t < nt; t++) {
		struct cand *c = &cands[t];

		c->root = temps[t].root;
		c->space = f.space[c->root];
		c->bstart = p->bstart[c->root];
		c->bend = p->bend[c->root];
		if (!sets_sure_steps(p, c->root, &c->t0, &c->t1)) {
			c->t0 = 1;
			c->t1 = 0;
		}
	}
	for (int h = 0, t0 = 0; h < nh && work < COLOCATE_WORK; h++) {
		int a = hosts[h].root, space = f.space[a];
		int32_t lo = p->bstart[a], hi = p->bend[a];
		struct set_index ix = {.root = -1, .lo = lo, .hi = hi};

		while (t0 < nt && temps[t0].size > hosts[h].size)
			t0++;	/* hosts by size too: none before t0 fits */
		for (int t = t0; t < nt && work < COLOCATE_WORK; t++) {
			const struct cand *c = &cands[t];

			if (c->root < 0 || c->space != space ||
			    c->bstart < lo || c->bend > hi)
				continue;
			work++;
			if ((c->t0 <= c->t1 &&
			     sets_sure_conflict(p, &ix, a, c->t0, c->t1)) ||
			    sets_conflict_indexed(p, &ix, a, c->root))
				continue;
			sets_union(p, a, c->root);
			cands[t].root = -1;	/* placed */
			a = prog_find(p, a);
		}
	}
	prog_hulls(p);
}

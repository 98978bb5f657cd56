/* Offsets: the in-arena buffers of each memory space become one packing
 * problem (passes/pack.c); its height, aligned, is that space's arena. */
#include <stdlib.h>
#include <string.h>

#include "passes/pack.h"
#include "passes/passes.h"

static int
has_space(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return 1;
	return 0;
}

static int
cmp_space(const void *a, const void *b)
{
	const struct arena *x = a, *y = b;

	return (x->space > y->space) - (x->space < y->space);
}

/* One arena per memory space in use, sorted; space 0 always has one. */
void
list_arenas(struct prog *p, struct plan *pl)
{
	int cap = 0;

	pl->narena = 0;
	VEC_PUSH(p->pool, pl->arenas, pl->narena, cap)->space = 0;
	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (x->in_arena && !has_space(pl, x->space))
			VEC_PUSH(p->pool, pl->arenas, pl->narena, cap)->space =
				x->space;
	}
	qsort(pl->arenas, (size_t)pl->narena, sizeof *pl->arenas, cmp_space);
}

static void
pack_space(struct prog *p, struct plan *pl, struct arena *a)
{
	struct boxes bx = {0};
	struct pack_opts po = {0};
	int n = 0;

	bx.b = pool_alloc(p->pool, sizeof(struct box) * (size_t)(pl->nbuf + 1));
	for (int b = 0; b < pl->nbuf; b++) {
		struct buffer *x = &pl->bufs[b];

		if (!x->in_arena || x->space != a->space)
			continue;
		a->nbuf++;
		x->offset = 0;
		if (x->size == 0)
			continue;
		bx.b[n].start = x->start;
		bx.b[n].end = x->end;
		bx.b[n].size = x->size;
		bx.b[n].align = pl->align;
		bx.b[n].pin = -1;
		bx.b[n].id = b;
		n++;
	}
	bx.n = n;
	po.effort = p->opt.effort;
	pack(&bx, &po);
	for (int k = 0; k < n; k++)
		pl->bufs[bx.b[k].id].offset = bx.b[k].offset;
	a->size = (bx.height + pl->align - 1) / pl->align * pl->align;
	a->lower = bx.lower;
}

void
assign_offsets(struct prog *p, struct plan *pl)
{
	list_arenas(p, pl);
	for (int a = 0; a < pl->narena; a++)
		pack_space(p, pl, &pl->arenas[a]);
}

/* The step where the most bytes of a space are live. */
static int32_t
peak_step(struct prog *p, const struct plan *pl, int space)
{
	int64_t *delta = pool_alloc(p->pool, sizeof(int64_t) *
						     (size_t)(pl->ntime + 2));
	int64_t live = 0, best = -1;
	int32_t at = 0;

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (x->in_arena && x->space == space) {
			delta[x->start] += x->size;
			delta[x->end + 1] -= x->size;
		}
	}
	for (int32_t t = 0; t < pl->ntime; t++) {
		live += delta[t];
		if (live > best) {
			best = live;
			at = t;
		}
	}
	return at;
}

static int
cmp_size_desc(const void *a, const void *b)
{
	const struct buffer *x = *(const struct buffer *const *)a;
	const struct buffer *y = *(const struct buffer *const *)b;

	if (x->size != y->size)
		return (x->size < y->size) - (x->size > y->size);
	return strcmp(x->name, y->name);
}

/* "'a' (n)", or "'a' (n; x.py:12, jit(f)/dot)" when its source is known
 * (cut to keep eight of them in one message). */
static size_t
live_entry(char *buf, size_t n, const struct buffer *b, const char *sep)
{
	char where[112];

	src_where(where, sizeof where, b->src_file, b->src_line, b->op_name);
	return (size_t)snprintf(buf, n, "%s'%s' (%lld%s%s)", sep, b->name,
				(long long)b->size, where[0] ? "; " : "",
				where);
}

/* "S(1) needs N bytes, over its capacity C; live at step T: a (n), ..." */
static void
over_capacity(struct prog *p, const struct plan *pl, const struct arena *a,
	      int64_t cap)
{
	int32_t t = peak_step(p, pl, a->space);
	const struct buffer **live = pool_alloc(
		p->pool, sizeof(struct buffer *) * (size_t)(pl->nbuf + 1));
	char list[1024];
	size_t k = 0;
	int n = 0;

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (x->in_arena && x->space == a->space && x->start <= t &&
		    t <= x->end)
			live[n++] = x;
	}
	qsort(live, (size_t)n, sizeof *live, cmp_size_desc);
	list[0] = 0;
	for (int i = 0; i < n && i < 8 && k < sizeof list; i++)
		k += live_entry(list + k, sizeof list - k, live[i],
				i ? ", " : "");
	if (n > 8 && k < sizeof list)
		snprintf(list + k, sizeof list - k, " and %d more", n - 8);
	diag_error(p->ds, p->m->loc, "module '%s', target %s: memory "
		   "space S(%d) needs %lld bytes (lower bound %lld), over its "
		   "capacity of %lld; live at step %d, the peak: %s",
		   pl->module, pl->target == TARGET_TPU ? "tpu" : "gpu",
		   a->space, (long long)a->size, (long long)a->lower,
		   (long long)cap, t, list);
}

int
check_capacity(struct prog *p, const struct plan *pl)
{
	int bad = 0;

	for (int a = 0; a < pl->narena; a++)
		for (int c = 0; c < p->opt.ncap; c++)
			if (p->opt.cap[c].space == pl->arenas[a].space &&
			    pl->arenas[a].size > p->opt.cap[c].bytes) {
				over_capacity(p, pl, &pl->arenas[a],
					      p->opt.cap[c].bytes);
				bad = 1;
			}
	return bad ? -1 : 0;
}

void
dump_plan(FILE *out, const struct plan *pl)
{
	for (int a = 0; a < pl->narena; a++)
		fprintf(out, "arena S(%d): %lld bytes, lower bound %lld, "
			"%d buffers\n", pl->arenas[a].space,
			(long long)pl->arenas[a].size,
			(long long)pl->arenas[a].lower, pl->arenas[a].nbuf);
	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		fprintf(out, "%5d %-40s S(%d) [%d, %d] size %lld bytes %lld "
			"flags %d offset %lld%s\n", b, x->name, x->space,
			x->start, x->end, (long long)x->size,
			(long long)x->bytes, x->flags, (long long)x->offset,
			x->in_arena ? "" : " (not in arena)");
	}
	for (int k = 0; k < pl->ncopy; k++)
		fprintf(out, "copy %s -> %s %s step %d, %lld bytes\n",
			pl->bufs[pl->copies[k].src].name,
			pl->bufs[pl->copies[k].dst].name,
			pl->copies[k].after ? "after" : "before",
			pl->copies[k].step, (long long)pl->copies[k].bytes);
}

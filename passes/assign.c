/* Offsets: the in-arena buffers of each memory space become one packing
 * problem (packer/pack.h); its height, aligned, is that space's arena.  An
 * arena over its capacity is reported as XLA reports running out of
 * memory: the largest buffers live at the peak (passes/peak.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packer/pack.h"
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
	po.threads = p->opt.threads;
	po.spare = p->opt.spare;
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

/* "S(1) needs N bytes, over its capacity C by D; lower bound L" at the
 * module, with the buffers live at the peak as notes. */
static void
over_capacity(struct prog *p, const struct plan *pl, const struct arena *a,
	      int64_t cap)
{
	char hs[32], hc[32], hd[32];
	char *notes = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&notes, &len);

	if (!out)
		abort();	/* out of memory, as in the pool */
	diag_error(p->ds, p->m->loc, "module '%s', target %s: memory space "
		   "S(%d) needs %lld bytes (%s), over its capacity of %lld "
		   "(%s) by %lld (%s); lower bound %lld (the peak of live "
		   "bytes)", pl->module, pl->target == TARGET_TPU ? "tpu" :
		   "gpu", a->space, (long long)a->size,
		   human_bytes(hs, sizeof hs, a->size), (long long)cap,
		   human_bytes(hc, sizeof hc, cap), (long long)(a->size - cap),
		   human_bytes(hd, sizeof hd, a->size - cap),
		   (long long)a->lower);
	peak_report(out, pl, a->peak, "");
	if (fclose(out))
		abort();
	diag_notes(p->ds, notes);
	free(notes);
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

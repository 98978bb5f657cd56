/* Offsets: the in-arena buffers of each memory space become one packing
 * problem (passes/pack.c); its height, aligned, is that space's arena.  An
 * arena over its capacity is reported as XLA reports running out of
 * memory: the largest buffers live at the peak, with shape and source. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
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
	po.threads = p->opt.threads;
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

/* How many of the buffers live at the peak a capacity error lists. */
enum { NLISTED = 10 };

/* What a buffer holds for the runtime, as the report names it. */
static const char *
kind_name(int flags)
{
	if ((flags & BUF_PARAM) && (flags & BUF_OUTPUT))
		return "an entry parameter and output";
	if (flags & BUF_PARAM)
		return "an entry parameter";
	if (flags & BUF_OUTPUT)
		return "an entry output";
	if (flags & BUF_TABLE)
		return "a tuple's index table";
	return "a temporary";
}

/* "401408 bytes (392.0KiB)", or "512 bytes" under a KiB. */
static void
put_size(FILE *out, int64_t bytes)
{
	char h[32];

	if (bytes < 1024 && bytes > -1024)
		fprintf(out, "%lld byte%s", (long long)bytes,
			bytes == 1 ? "" : "s");
	else
		fprintf(out, "%lld bytes (%s)", (long long)bytes,
			human_bytes(h, sizeof h, bytes));
}

/* ", tiled T(8,128) by default" for a TPU array whose layout names no
 * tile: what pads it. */
static void
put_default_tile(FILE *out, struct prog *p, const struct shape *s)
{
	int64_t tile[2];
	int n;

	if (!s || p->opt.target != TARGET_TPU || shape_is_tuple(s) ||
	    s->ntile || s->type == DT_TOKEN || s->type == DT_OPAQUE)
		return;
	n = tpu_default_tile(&p->opt, s, tile);
	fprintf(out, ", tiled T(%lld", (long long)tile[0]);
	if (n > 1)
		fprintf(out, ",%lld", (long long)tile[1]);
	fputs(") by default", out);
}

/* "N. 'name', kind: size" and, one a line, the shape of the value v it
 * holds, its unpadded size when it differs, v's instruction and where that
 * comes from (XLA's OOM report: Size, Shape, Unpadded size, XLA label,
 * Operator). */
static void
put_buffer(FILE *out, struct prog *p, const struct buffer *b,
	   const struct value *v, int rank)
{
	const struct comp *c = &p->m->comps[v->comp];
	const struct instr *in = &c->instrs[v->instr];
	const char *name = value_name(p, v);
	size_t n = strlen(in->name);
	int64_t each = b->slots > 1 ? b->stride : b->size;
	char where[512];

	fprintf(out, "   %2d. '%s', %s: ", rank, b->name, kind_name(b->flags));
	put_size(out, b->size);
	if (b->slots > 1)
		fprintf(out, ", %d slots of %lld", b->slots, (long long)each);
	fprintf(out, "\n        shape: %s", shape_text(p->pool, v->shape));
	put_default_tile(out, p, v->shape);
	fputc('\n', out);
	if (b->bytes != each) {
		fputs("        unpadded size: ", out);
		put_size(out, b->bytes);
		fputc('\n', out);
	}
	fprintf(out, "        instruction: '%s' (%s) in computation '%s'",
		in->name, in->op ? in->op->name : "?", c->name);
	if (!strncmp(name, in->name, n) && name[n] == '{')
		fprintf(out, ", element %s", name + n);	/* "t{1,0}" */
	fputc('\n', out);
	src_where(where, sizeof where, in->src_file, in->src_line,
		  in->op_name);
	if (where[0])
		fprintf(out, "        source: %s\n", where);
}

/* The value each buffer holds at step t, as XLA's report names the value
 * live at the peak: of those live then, the one written last (a buffer an
 * output took over holds the output); else its first value, the one it is
 * named after. */
static int *
held_values(struct prog *p, const struct plan *pl, int32_t t)
{
	int *held = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));
	int *live = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));

	for (int v = p->nval - 1; v >= 0; v--) {
		const struct value *x = &p->values[v];
		int b = p->buf_of[v];

		if (x->def <= t && t <= x->end &&
		    (!live[b] || x->def >= p->values[held[b]].def)) {
			held[b] = v;
			live[b] = 1;
		} else if (!live[b]) {
			held[b] = v;
		}
	}
	return held;
}

/* The buffers live at step t, largest first, as lines for the error's
 * notes: the first NLISTED of them, and what the rest add up to. */
static char *
peak_report(struct prog *p, const struct plan *pl,
	    const struct buffer **live, int n, int32_t t)
{
	const struct step *st = &p->steps[t];
	const struct comp *c = &p->m->comps[st->comp];
	int *held = held_values(p, pl, t);
	int64_t rest = 0, all = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		abort();	/* out of memory, as in the pool */
	for (int i = 0; i < n; i++)
		all += live[i]->size;
	fprintf(out, "  the peak is at step %d ('%s' in computation '%s'): "
		"%d buffers live, ", t, c->instrs[st->instr].name, c->name, n);
	put_size(out, all);
	fputs("; largest first:\n", out);
	for (int i = 0; i < n && i < NLISTED; i++)
		put_buffer(out, p, live[i],
			   &p->values[held[live[i] - pl->bufs]], i + 1);
	for (int i = NLISTED; i < n; i++)
		rest += live[i]->size;
	if (n > NLISTED) {
		fprintf(out, "    and %d more, ", n - NLISTED);
		put_size(out, rest);
		fputc('\n', out);
	}
	if (fclose(out))
		abort();
	return text;
}

/* "S(1) needs N bytes, over its capacity C by D; lower bound L" at the
 * module, with the buffers live at the peak as notes. */
static void
over_capacity(struct prog *p, const struct plan *pl, const struct arena *a,
	      int64_t cap)
{
	int32_t t = peak_step(p, pl, a->space);
	const struct buffer **live = pool_alloc(
		p->pool, sizeof(struct buffer *) * (size_t)(pl->nbuf + 1));
	char hs[32], hc[32], hd[32];
	char *notes;
	int n = 0;

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (x->in_arena && x->space == a->space && x->start <= t &&
		    t <= x->end)
			live[n++] = x;
	}
	qsort(live, (size_t)n, sizeof *live, cmp_size_desc);
	diag_error(p->ds, p->m->loc, "module '%s', target %s: memory space "
		   "S(%d) needs %lld bytes (%s), over its capacity of %lld "
		   "(%s) by %lld (%s); lower bound %lld (the peak of live "
		   "bytes)", pl->module, pl->target == TARGET_TPU ? "tpu" :
		   "gpu", a->space, (long long)a->size,
		   human_bytes(hs, sizeof hs, a->size), (long long)cap,
		   human_bytes(hc, sizeof hc, cap), (long long)(a->size - cap),
		   human_bytes(hd, sizeof hd, a->size - cap),
		   (long long)a->lower);
	notes = peak_report(p, pl, live, n, t);
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

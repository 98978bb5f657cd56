/* What makes each arena's peak: the buffers live at the first step where
 * the most of its bytes are, largest first, each with the value it holds
 * then, as XLA's out-of-memory report gives them (BufferAssignment::
 * ToVerboseString, the TPU's "Largest program allocations").  The capacity
 * error and --stats print it. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

/* The first step where the most bytes of a space are live, and their
 * bytes; -1 when none ever is. */
static int32_t
peak_step(struct prog *p, const struct plan *pl, int space, int64_t *bytes)
{
	int64_t *delta = pool_alloc(p->pool, sizeof(int64_t) *
						     (size_t)(pl->ntime + 2));
	int64_t live = 0, best = 0;
	int32_t at = -1;

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
	*bytes = best;
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

/* "T(8,128)" for a TPU array whose layout names no tile: what pads it. */
static const char *
default_tile(struct prog *p, const struct shape *s)
{
	int64_t tile[2];
	int n;

	if (!s || p->opt.target != TARGET_TPU || shape_is_tuple(s) ||
	    s->ntile || s->type == DT_TOKEN || s->type == DT_OPAQUE)
		return NULL;
	n = tpu_default_tile(&p->opt, s, tile);
	if (n > 1)
		return pool_printf(p->pool, "T(%lld,%lld)", (long long)tile[0],
				   (long long)tile[1]);
	return pool_printf(p->pool, "T(%lld)", (long long)tile[0]);
}

/* Buffer id holding value v, as the report lists it. */
static struct peak_buf
describe(struct prog *p, const struct value *v, int id)
{
	const struct comp *c = &p->m->comps[v->comp];
	const struct instr *in = &c->instrs[v->instr];
	const char *name = value_name(p, v);
	size_t n = strlen(in->name);

	return (struct peak_buf){
		id, shape_text(p->pool, v->shape), default_tile(p, v->shape),
		in->name, in->op ? in->op->name : "?", c->name,
		!strncmp(name, in->name, n) && name[n] == '{' ? name + n : NULL,
		in->src_file, in->op_name, in->src_line};
}

static void
fill_peak(struct prog *p, const struct plan *pl, struct arena *a)
{
	struct peak *k = pool_alloc(p->pool, sizeof *k);
	const struct buffer **live = pool_alloc(
		p->pool, sizeof(struct buffer *) * (size_t)(pl->nbuf + 1));
	const struct step *st;
	int *held;

	a->peak = k;
	k->step = peak_step(p, pl, a->space, &k->bytes);
	if (k->step < 0)
		return;
	st = &p->steps[k->step];
	k->comp = p->m->comps[st->comp].name;
	k->instr = p->m->comps[st->comp].instrs[st->instr].name;
	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (x->in_arena && x->space == a->space &&
		    x->start <= k->step && k->step <= x->end)
			live[k->nlive++] = x;
	}
	qsort(live, (size_t)k->nlive, sizeof *live, cmp_size_desc);
	held = held_values(p, pl, k->step);
	k->nlisted = k->nlive < PEAK_LISTED ? k->nlive : PEAK_LISTED;
	k->listed = pool_alloc(p->pool, sizeof *k->listed *
					(size_t)(k->nlisted + 1));
	for (int i = 0; i < k->nlisted; i++) {
		int id = (int)(live[i] - pl->bufs);

		k->listed[i] = describe(p, &p->values[held[id]], id);
	}
	for (int i = k->nlisted; i < k->nlive; i++)
		k->rest += live[i]->size;
}

void
fill_peaks(struct prog *p, struct plan *pl)
{
	for (int a = 0; a < pl->narena; a++)
		fill_peak(p, pl, &pl->arenas[a]);
}

/* ---- the report as text ------------------------------------------------- */

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

/* "N. 'name', kind: size" and, one a line, the held value's shape, its
 * unpadded size when it differs, its instruction and where that comes
 * from (XLA's report: Size, Shape, Unpadded size, XLA label, Operator). */
static void
put_listed(FILE *out, const struct plan *pl, const struct peak_buf *e,
	   int rank, const char *lead)
{
	const struct buffer *b = &pl->bufs[e->buf];
	int64_t each = b->slots > 1 ? b->stride : b->size;
	char where[512];

	fprintf(out, "%s   %2d. '%s', %s: ", lead, rank, b->name,
		kind_name(b->flags));
	put_size(out, b->size);
	if (b->slots > 1)
		fprintf(out, ", %d slots of %lld", b->slots, (long long)each);
	fprintf(out, "\n%s        shape: %s", lead, e->shape);
	if (e->tile)
		fprintf(out, ", tiled %s by default", e->tile);
	fputc('\n', out);
	if (b->bytes != each) {
		fprintf(out, "%s        unpadded size: ", lead);
		put_size(out, b->bytes);
		fputc('\n', out);
	}
	fprintf(out, "%s        instruction: '%s' (%s) in computation '%s'",
		lead, e->instr, e->opcode, e->comp);
	if (e->element)
		fprintf(out, ", element %s", e->element);
	fputc('\n', out);
	src_where(where, sizeof where, e->src_file, e->src_line, e->op_name);
	if (where[0])
		fprintf(out, "%s        source: %s\n", lead, where);
}

void
peak_report(FILE *out, const struct plan *pl, const struct peak *k,
	    const char *lead)
{
	if (!k || k->step < 0)
		return;
	fprintf(out, "%s  the peak is at step %d ('%s' in computation '%s'): "
		"%d buffers live, ", lead, k->step, k->instr, k->comp,
		k->nlive);
	put_size(out, k->bytes);
	fputs("; largest first:\n", out);
	for (int i = 0; i < k->nlisted; i++)
		put_listed(out, pl, &k->listed[i], i + 1, lead);
	if (k->nlive > k->nlisted) {
		fprintf(out, "%s    and %d more, ", lead,
			k->nlive - k->nlisted);
		put_size(out, k->rest);
		fputc('\n', out);
	}
}

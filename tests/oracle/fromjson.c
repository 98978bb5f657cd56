/* The contract mode's plan: rebuilt from hloplan's --json file alone, so
 * that the planned run takes every place (positions, buffers, copies,
 * slots) from what a runtime receives, not from the library's struct. */
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/jsonread.h"

/* Instructions by "computation/instruction" name: open addressing. */
struct names {
	int cap;
	const char **key;	/* computation name */
	const char **key2;	/* instruction name */
	int *comp, *instr;
};

static uint64_t
hash2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603u;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211u;
	h = (h ^ '/') * 1099511628211u;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211u;
	return h;
}

static void
names_fill(struct pool *pool, const struct module *m, struct names *t)
{
	long n = module_instrs(m);

	t->cap = 16;
	while (t->cap < 2 * n)
		t->cap *= 2;
	t->key = pool_alloc(pool, sizeof *t->key * (size_t)t->cap);
	t->key2 = pool_alloc(pool, sizeof *t->key2 * (size_t)t->cap);
	t->comp = pool_alloc(pool, sizeof *t->comp * (size_t)t->cap);
	t->instr = pool_alloc(pool, sizeof *t->instr * (size_t)t->cap);
	for (int c = 0; c < m->ncomp; c++)
		for (int i = 0; i < m->comps[c].ninstr; i++) {
			const char *a = m->comps[c].name;
			const char *b = m->comps[c].instrs[i].name;
			uint64_t h = hash2(a, b) & (uint64_t)(t->cap - 1);

			while (t->key[h])
				h = (h + 1) & (uint64_t)(t->cap - 1);
			t->key[h] = a;
			t->key2[h] = b;
			t->comp[h] = c;
			t->instr[h] = i;
		}
}

/* The slot of instruction b in computation a, or -1. */
static int
names_find(const struct names *t, const char *a, const char *b)
{
	uint64_t h = hash2(a, b) & (uint64_t)(t->cap - 1);

	while (t->key[h]) {
		if (!strcmp(t->key[h], a) && !strcmp(t->key2[h], b))
			return (int)h;
		h = (h + 1) & (uint64_t)(t->cap - 1);
	}
	return -1;
}

struct builder {
	struct pool *pool;
	const struct module *m;
	struct plan *pl;
	struct names names;
	const char **comp, **instr;	/* by step: its names (version 7
					   writes each once: schedule steps
					   index "computations") */
	char *why;
	size_t n;
};

static int
fail(struct builder *b, const char *what, int k)
{
	snprintf(b->why, b->n, "the JSON plan: %s (item %d)", what, k);
	return -1;
}

static int64_t
num(const struct jv *o, const char *key)
{
	return json_get(o, key)->num;
}

static const char *
str(struct builder *b, const struct jv *o, const char *key)
{
	const struct jv *v = json_get(o, key);

	return v->kind == JV_STR ? v->str : pool_strdup(b->pool, "");
}

/* An array member with every item an object (or n == 0): its count, or
 * -1 when missing. */
static int
list(const struct jv *o, const char *key, const struct jv **items)
{
	const struct jv *v = json_get(o, key);

	*items = v->items;
	if (v->kind != JV_ARR)
		return -1;
	for (int i = 0; i < v->n; i++)
		if (v->items[i].kind != JV_OBJ)
			return -1;
	return v->n;
}

static int
buffers(struct builder *b, const struct jv *p)
{
	const struct jv *it;
	struct plan *pl = b->pl;

	pl->nbuf = list(p, "buffers", &it);
	if (pl->nbuf < 0)
		return fail(b, "no buffers", 0);
	pl->bufs = pool_alloc(b->pool, sizeof *pl->bufs * (size_t)(pl->nbuf + 1));
	for (int i = 0; i < pl->nbuf; i++) {
		struct buffer *bf = &pl->bufs[i];
		const struct jv *o = &it[i], *iv = json_get(o, "interval");

		if (num(o, "id") != i || iv->kind != JV_ARR || iv->n != 2)
			return fail(b, "a buffer's id or interval", i);
		bf->name = str(b, o, "name");
		bf->flags = (int)num(o, "flags");
		bf->space = (int)num(o, "space");
		bf->in_arena = (int)num(o, "in_arena");
		bf->offset = num(o, "offset");
		bf->size = num(o, "size");
		bf->bytes = num(o, "bytes");
		bf->start = (int32_t)iv->items[0].num;
		bf->end = (int32_t)iv->items[1].num;
		bf->slots = (int)num(o, "slots");
		bf->stride = num(o, "stride");
		if (bf->slots < 1 || bf->size < 0 || bf->offset < 0)
			return fail(b, "a buffer's slots, size or offset", i);
	}
	return 0;
}

static int
arenas(struct builder *b, const struct jv *p)
{
	const struct jv *it;
	struct plan *pl = b->pl;

	pl->narena = list(p, "arenas", &it);
	if (pl->narena < 0)
		return fail(b, "no arenas", 0);
	pl->arenas = pool_alloc(b->pool,
				sizeof *pl->arenas * (size_t)(pl->narena + 1));
	for (int i = 0; i < pl->narena; i++) {
		pl->arenas[i].space = (int)num(&it[i], "space");
		pl->arenas[i].size = num(&it[i], "size");
		pl->arenas[i].lower = num(&it[i], "lower_bound");
		pl->arenas[i].nbuf = (int)num(&it[i], "buffers");
	}
	return 0;
}

/* The preorder node of shape s at the index of o ("index": [...]), its
 * depth and index in *q; -1 when the index is not in s. */
static int
node_of(struct builder *b, const struct shape *s, const struct jv *o,
	struct plan_pos *q)
{
	const struct jv *ix = json_get(o, "index");
	int node = 0, *index;

	if (ix->kind != JV_ARR)
		return -1;
	index = pool_alloc(b->pool, sizeof(int) * (size_t)(ix->n + 1));
	for (int d = 0; d < ix->n; d++) {
		int64_t e = ix->items[d].num;

		if (ix->items[d].kind != JV_NUM || e < 0 || e >= s->nelem)
			return -1;
		node++;
		for (int k = 0; k < e; k++)
			node += shape_nodes(&s->elems[k]);
		s = &s->elems[e];
		index[d] = (int)e;
	}
	q->depth = ix->n;
	q->index = index;
	q->shape = s;
	return node;
}

/* Where position o lies in the module (its step's instruction): comp,
 * instr, node. */
static int
locate(struct builder *b, const struct jv *o, struct plan_pos *q)
{
	int64_t t = num(o, "step");
	const struct instr *in;
	int h;

	if (!b->comp || t < 0 || t >= b->pl->ntime)
		return -1;
	h = names_find(&b->names, b->comp[t], b->instr[t]);
	if (h < 0)
		return -1;
	q->comp = b->names.comp[h];
	q->instr = b->names.instr[h];
	in = &b->m->comps[q->comp].instrs[q->instr];
	q->name = in->name;
	q->comp_name = b->m->comps[q->comp].name;
	q->node = node_of(b, &in->shape, o, q);
	return q->node;
}

static int
positions(struct builder *b, const struct jv *p)
{
	const struct jv *it;
	struct plan *pl = b->pl;

	pl->npos = list(p, "positions", &it);
	if (pl->npos < 0)
		return fail(b, "no positions", 0);
	pl->pos = pool_alloc(b->pool, sizeof *pl->pos * (size_t)(pl->npos + 1));
	for (int i = 0; i < pl->npos; i++) {
		struct plan_pos *q = &pl->pos[i];
		const struct jv *o = &it[i];

		if (locate(b, o, q) < 0)
			return fail(b, "a position not in the module", i);
		q->buf = (int)num(o, "buffer");
		if (q->buf < 0 || q->buf >= pl->nbuf || num(o, "offset"))
			return fail(b, "a position's buffer or offset", i);
		q->step = (int32_t)num(o, "step");
		q->slot = (int)num(o, "slot");
		q->defines = (int)num(o, "defines");
		q->size = num(o, "size");
		q->param = json_get(o, "parameter")->kind == JV_NUM ?
			   (int)num(o, "parameter") : -1;
		q->output = (int)num(o, "output");
		q->copied = (int)num(o, "copied");
	}
	return 0;
}

static int
copies(struct builder *b, const struct jv *p)
{
	const struct jv *it;
	struct plan *pl = b->pl;

	pl->ncopy = list(p, "copies", &it);
	if (pl->ncopy < 0)
		return fail(b, "no copies", 0);
	pl->copies = pool_alloc(b->pool,
				sizeof *pl->copies * (size_t)(pl->ncopy + 1));
	for (int i = 0; i < pl->ncopy; i++) {
		struct plan_copy *c = &pl->copies[i];
		const char *when = str(b, &it[i], "when");

		c->src = (int)num(&it[i], "src");
		c->dst = (int)num(&it[i], "dst");
		c->step = (int32_t)num(&it[i], "step");
		c->bytes = num(&it[i], "bytes");
		c->loop = (int)num(&it[i], "loop");
		if (strcmp(when, "before") && strcmp(when, "after"))
			return fail(b, "a copy's when", i);
		c->after = !strcmp(when, "after");
	}
	return 0;
}

static int
loops(struct builder *b, const struct jv *p)
{
	const struct jv *it;
	struct plan *pl = b->pl;

	pl->nloop = list(p, "loops", &it);
	if (pl->nloop < 0)
		return fail(b, "no loops", 0);
	pl->loops = pool_alloc(b->pool,
			       sizeof *pl->loops * (size_t)(pl->nloop + 1));
	for (int i = 0; i < pl->nloop; i++) {
		struct plan_loop *l = &pl->loops[i];

		l->first = (int32_t)num(&it[i], "first");
		l->cond_last = (int32_t)num(&it[i], "cond_last");
		l->step = (int32_t)num(&it[i], "step");
		l->parent = (int)num(&it[i], "parent");
		l->trips = num(&it[i], "trips");
		l->trips_from = str(b, &it[i], "trips_from");
	}
	return 0;
}

/* Each constant's position: the next position of its step's instruction
 * and index (constants are listed in position order). */
static int
constants(struct builder *b, const struct jv *p)
{
	const struct jv *it;
	struct plan *pl = b->pl;
	int k = 0;

	pl->nconst = list(p, "constants", &it);
	if (pl->nconst < 0)
		return fail(b, "no constants", 0);
	pl->consts = pool_alloc(b->pool,
				sizeof *pl->consts * (size_t)(pl->nconst + 1));
	pl->const_bytes = num(p, "const_bytes");
	for (int i = 0; i < pl->nconst; i++) {
		struct plan_const *c = &pl->consts[i];
		struct plan_pos q;

		if (locate(b, &it[i], &q) < 0)
			return fail(b, "a constant not in the module", i);
		while (k < pl->npos && (pl->pos[k].comp != q.comp ||
					pl->pos[k].instr != q.instr ||
					pl->pos[k].node != q.node))
			k++;
		c->buf = (int)num(&it[i], "buffer");
		if (k == pl->npos || pl->pos[k].buf != c->buf)
			return fail(b, "a constant's position or buffer", i);
		c->pos = k;
		c->offset = num(&it[i], "offset");
		c->bytes = num(&it[i], "bytes");
		c->known = (int)num(&it[i], "known");
	}
	return 0;
}

/* Each step's names from its [computation, "instruction"] pair and the
 * plan's "computations", and its "computation/instruction" name. */
static int
step_names(struct builder *b, const struct jv *p, const struct jv *st)
{
	const struct jv *cs = json_get(p, "computations");
	struct plan *pl = b->pl;
	size_t n = (size_t)st->n;

	pl->steps = pool_alloc(b->pool, sizeof *pl->steps * n);
	b->comp = pool_alloc(b->pool, sizeof *b->comp * n);
	b->instr = pool_alloc(b->pool, sizeof *b->instr * n);
	for (int i = 0; i < st->n; i++) {
		const struct jv *s = &st->items[i];
		int64_t c;

		if (s->kind != JV_ARR || s->n != 2 ||
		    s->items[0].kind != JV_NUM || s->items[1].kind != JV_STR)
			return fail(b, "a step", i);
		c = s->items[0].num;
		if (cs->kind != JV_ARR || c < 0 || c >= cs->n ||
		    cs->items[c].kind != JV_STR)
			return fail(b, "a step's computation", i);
		b->comp[i] = cs->items[c].str;
		b->instr[i] = s->items[1].str;
		pl->steps[i] = pool_printf(b->pool, "%s/%s", b->comp[i],
					   b->instr[i]);
	}
	return 0;
}

static int
plan_head(struct builder *b, const struct jv *p)
{
	const struct jv *sch = json_get(p, "schedule");
	const struct jv *st = json_get(sch, "steps");
	const char *t = str(b, p, "target");
	struct plan *pl = b->pl;

	if (strcmp(t, "gpu") && strcmp(t, "tpu"))
		return fail(b, "the target", 0);
	pl->module = str(b, p, "module");
	pl->target = strcmp(t, "gpu") ? TARGET_TPU : TARGET_GPU;
	pl->align = num(p, "align");
	pl->ntime = (int32_t)num(p, "steps");
	pl->sched.name = str(b, sch, "order");
	pl->sched.peak = num(sch, "peak");
	pl->sched.peak_text = num(sch, "peak_text");
	if (st->kind == JV_ARR && st->n == pl->ntime && st->n)
		return step_names(b, p, st);
	return 0;
}

static char *
slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0, k;
	char *s = malloc(cap);

	while (s && (k = fread(s + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *t = realloc(s, cap *= 2);

			if (!t)
				free(s);
			s = t;
		}
	}
	if (s)
		s[n] = 0;	/* n < cap: strtoll stops there */
	*len = n;
	return s;
}

int
plan_from_jv(struct pool *pool, const struct module *m, const struct jv *root,
	     int which, struct plan *pl, char *why, size_t n)
{
	struct builder b = {.pool = pool, .m = m, .pl = pl, .why = why,
			    .n = n};
	const struct jv *plans = json_get(root, "plans"), *p;

	if (strcmp(str(&b, root, "schema"), "hloplan.plan") ||
	    num(root, "version") != 7 || plans->kind != JV_ARR ||
	    which >= plans->n || plans->items[which].kind != JV_OBJ)
		return fail(&b, "not an hloplan.plan of version 7", which);
	p = &plans->items[which];
	memset(pl, 0, sizeof *pl);
	names_fill(pool, m, &b.names);
	if (plan_head(&b, p) < 0 || buffers(&b, p) < 0 || arenas(&b, p) < 0 ||
	    positions(&b, p) < 0 || copies(&b, p) < 0 || loops(&b, p) < 0 ||
	    constants(&b, p) < 0)
		return -1;
	return 0;
}

int
plan_from_json(struct pool *pool, const struct module *m, FILE *f,
	       int which, struct plan *pl, char *why, size_t n)
{
	size_t len;
	char *text = slurp(f, &len);
	struct jv root;
	int r;

	if (!text) {
		snprintf(why, n, "the JSON plan: cannot read it");
		return -1;
	}
	r = json_read(pool, text, len, &root, why, n);
	free(text);
	if (r < 0)
		return -1;
	return plan_from_jv(pool, m, &root, which, pl, why, n);
}

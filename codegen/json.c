/* The plan as JSON for other tools: every plan of the run with its arenas,
 * buffers, copies and schedule, keys in a fixed order, one buffer a line.
 * The schema ("hloplan.plan", version 5) is described in README.md. */
#include <inttypes.h>
#include <string.h>

#include "codegen/codegen.h"

/* 2: buffers may carry source_file, source_line and op_name.
 * 3: buffers carry dtype, dims, layout, shape and values, and parameter,
 *    param_index and output_index when they hold one.
 * 4: plans carry loops (a runtime's while loops, their trip counts) and
 *    copies the loop in every iteration of which each is made; with
 *    XLA's assignment given, each plan carries "xla" beside it.
 * 5: plans carry positions: where every node of every instruction's
 *    result lives, forwarded ones included.
 * 6: plans carry operands: each step's operands as positions.
 * 7: every name once: plans carry "computations", schedule steps are
 *    [computation, instruction] pairs, and positions, values and
 *    constants give a step instead of the names. */
enum { JSON_VERSION = 7 };

/* Each computation's index in the plan's "computations", in the order
 * the schedule first runs one: by the module's computation index. */
struct comps {
	int n;
	int *of;		/* by module computation: its index, or -1 */
	const char **name;	/* by index */
};

static void
number_comps(struct pool *pool, const struct plan *p, struct comps *c)
{
	int max = 0;

	for (int k = 0; k < p->npos; k++)
		if (p->pos[k].comp + 1 > max)
			max = p->pos[k].comp + 1;
	c->n = 0;
	c->of = pool_alloc(pool, sizeof(int) * (size_t)(max + 1));
	c->name = pool_alloc(pool, sizeof(char *) * (size_t)(max + 1));
	for (int i = 0; i < max; i++)
		c->of[i] = -1;
	for (int k = 0; k < p->npos; k++) {
		const struct plan_pos *q = &p->pos[k];

		if (q->comp >= 0 && c->of[q->comp] < 0) {
			c->name[c->n] = q->comp_name ? q->comp_name : "";
			c->of[q->comp] = c->n++;
		}
	}
}

static void
put_key(FILE *out, const char *indent, const char *key)
{
	codegen_printf(out, "%s\"%s\": ", indent, key);
}

/* The shape of the value it is named after, as laid out: "dtype", "dims",
 * "layout" ({"minor_to_major", "tiles"}, null for a tuple) and "shape". */
static void
put_shape(FILE *out, struct pool *pool, const struct shape *s)
{
	int array = s && !shape_is_tuple(s);

	fputs(", \"dtype\": ", out);
	codegen_json_string(out, codegen_dtype(s));
	fputs(", \"dims\": [", out);
	for (int i = 0; array && i < s->rank; i++)
		codegen_printf(out, "%s%" PRId64, i ? ", " : "", s->dims[i]);
	fputs("], \"layout\": ", out);
	if (!array) {
		fputs("null", out);
	} else {
		fputs("{\"minor_to_major\": [", out);
		for (int i = 0; i < s->rank; i++)
			codegen_printf(out,
				"%s%d", i ? ", " : "", s->has_layout ?
				s->m2m[i] : s->rank - 1 - i);
		fputs("], \"tiles\": [", out);
		for (int t = 0; t < s->ntile; t++) {
			fputs(t ? ", [" : "[", out);
			for (int i = 0; i < s->tiles[t].n; i++)
				codegen_printf(out, "%s%" PRId64, i ? ", " : "",
					s->tiles[t].d[i]);
			fputc(']', out);
		}
		fputc(']', out);
		if (s->elem_bits)
			codegen_printf(out, ", \"element_size_in_bits\": %d",
				s->elem_bits);
		fputc('}', out);
	}
	fputs(", \"shape\": ", out);
	codegen_json_string(out, codegen_shape_text(pool, s));
}

/* "values": where each value it holds is defined; then "parameter" and
 * "param_index", "output_index" when it holds an entry's. */
static void
put_values(FILE *out, const struct plan *p, const struct bindings *bd,
	   int id)
{
	fputs(", \"values\": [", out);
	for (int v = bd->first[id]; v < bd->first[id] + bd->count[id]; v++) {
		const struct plan_pos *q = &p->pos[bd->val[v]];

		codegen_printf(out, "%s{\"step\": %" PRId32 ", \"index\": ",
			v > bd->first[id] ? ", " : "", q->step);
		codegen_index(out, q, "[]", ", ", "");
		if (q->slot >= 0)
			codegen_printf(out, ", \"slot\": %d", q->slot);
		fputc('}', out);
	}
	fputc(']', out);
	if (bd->bpar[id] >= 0) {
		const struct plan_pos *q = &p->pos[bd->par[bd->bpar[id]]];

		codegen_printf(out, ", \"parameter\": %d, \"param_index\": ",
			q->param);
		codegen_index(out, q, "[]", ", ", "");
	}
	if (bd->bout[id] >= 0) {
		fputs(", \"output_index\": ", out);
		codegen_index(out, &p->pos[bd->out[bd->bout[id]]], "[]", ", ", "");
	}
}

static void
put_buffer(FILE *out, const struct plan *p, const struct bindings *bd,
	   struct pool *pool, int id, int last)
{
	const struct buffer *b = &p->bufs[id];
	const char *cls[4];
	int n = codegen_classes(b->flags, cls);

	codegen_printf(out, "        {\"id\": %d, \"name\": ", id);
	codegen_json_string(out, b->name);
	fputs(", \"class\": [", out);
	for (int i = 0; i < n; i++)
		codegen_printf(out, "%s\"%s\"", i ? ", " : "", cls[i]);
	codegen_printf(out,
		"], \"flags\": %d, \"space\": %d, \"in_arena\": %s, "
		"\"offset\": ", b->flags, b->space,
		b->in_arena ? "true" : "false");
	if (b->in_arena)
		codegen_printf(out, "%" PRId64, b->offset);
	else
		fputs("null", out);
	codegen_printf(out, ", \"size\": %" PRId64 ", \"bytes\": %" PRId64
		", \"interval\": [%" PRId32 ", %" PRId32 "], \"slots\": %d, "
		"\"stride\": %" PRId64, b->size, b->bytes, b->start,
		b->end, b->slots > 1 ? b->slots : 1,
		b->slots > 1 ? b->stride : 0);
	put_shape(out, pool, b->shape);
	put_values(out, p, bd, id);
	codegen_json_source(out, b->src_file, b->src_line, b->op_name);
	codegen_printf(out, "}%s\n", last ? "" : ",");
}

static void
put_arenas(FILE *out, const struct plan *p)
{
	put_key(out, "      ", "arenas");
	fputs(p->narena ? "[\n" : "[", out);
	for (int i = 0; i < p->narena; i++) {
		const struct arena *a = &p->arenas[i];

		codegen_printf(out, "        {\"space\": %d, \"size\": %" PRId64
			", \"lower_bound\": %" PRId64 ", \"buffers\": %d}%s\n",
			a->space, a->size, a->lower, a->nbuf,
			i + 1 < p->narena ? "," : "");
	}
	fputs(p->narena ? "      ],\n" : "],\n", out);
}

/* --allocators: per allocator its peaks, and what it needs or hit; only
 * in plans that have replays. */
static void
put_allocators(FILE *out, const struct plan *p)
{
	if (!p->nalloc)
		return;
	codegen_printf(out,
		"      \"allocators\": {\"buffers\": %d", p->alloc_buffers);
	for (int k = 0; k < p->nalloc; k++) {
		const struct alloc_run *x = &p->allocs[k];

		codegen_printf(out,
			",\n        \"%s\": {\"peak_reserved\": %" PRId64
			", \"peak_allocated\": %" PRId64, x->name,
			x->peak_reserved, x->peak_allocated);
		if (x->kind == ALLOC_BFC)
			codegen_printf(out,
				", \"region_size\": %" PRId64, x->region);
		codegen_printf(out, ", \"reservations\": %d", x->npiece);
		if (x->exceeded >= 0)
			codegen_printf(out, ", \"capacity_exceeded\": %s",
				x->exceeded ? "true" : "false");
		fputc('}', out);
	}
	fputs("},\n", out);
}

static void
put_copies(FILE *out, const struct plan *p)
{
	put_key(out, "      ", "copies");
	fputs(p->ncopy ? "[\n" : "[", out);
	for (int i = 0; i < p->ncopy; i++) {
		const struct plan_copy *c = &p->copies[i];

		codegen_printf(out,
			"        {\"src\": %d, \"dst\": %d, \"step\": %"
			PRId32 ", \"when\": \"%s\", \"bytes\": %" PRId64
			", \"loop\": %d}%s\n", c->src, c->dst, c->step,
			c->after ? "after" : "before", c->bytes, c->loop,
			i + 1 < p->ncopy ? "," : "");
	}
	fputs(p->ncopy ? "      ],\n" : "],\n", out);
}

/* The while loops as a runtime runs the steps: condition first .. cond_last,
 * body to step - 1, the while at step; trips -1 when the HLO does not say. */
static void
put_loops(FILE *out, const struct plan *p)
{
	put_key(out, "      ", "loops");
	fputs(p->nloop ? "[\n" : "[", out);
	for (int i = 0; i < p->nloop; i++) {
		const struct plan_loop *l = &p->loops[i];

		codegen_printf(out,
			"        {\"first\": %" PRId32 ", \"cond_last\": "
			"%" PRId32 ", \"step\": %" PRId32 ", \"parent\": %d, "
			"\"trips\": %" PRId64 ", \"trips_from\": \"%s\"}%s\n",
			l->first, l->cond_last, l->step, l->parent, l->trips,
			l->trips_from, i + 1 < p->nloop ? "," : "");
	}
	fputs(p->nloop ? "      ],\n" : "],\n", out);
}

/* XLA's assignment of the module beside this plan: its allocations by
 * kind, its temporary allocation against the most of it live at once, and
 * what this plan (arenas and constants) saves against XLA's total. */
static void
put_xla(FILE *out, const struct plan *p, const struct xla_assignment *x)
{
	int64_t t = codegen_total(p);

	if (!x)
		return;
	codegen_printf(out, "      \"xla\": {\"allocations\": %d, \"total\": %"
		PRId64 ", \"parameters\": %" PRId64 ", \"outputs\": %" PRId64
		", \"constants\": %" PRId64 ", \"thread_local\": %" PRId64
		", \"temporaries\": %" PRId64 ", \"temp_size\": %" PRId64
		", \"temp_peak\": %" PRId64 ", \"plan_total\": %" PRId64
		", \"saved\": %" PRId64 "},\n", x->nalloc, x->total,
		x->params, x->outputs, x->constants, x->thread_local,
		x->temps, x->temp_size, x->temp_peak, t, x->total - t);
}

/* Where each constant's bytes are in the header's P_const_data[] or the
 * blob (after its plan's base), and into which buffer they go. */
static void
put_constants(FILE *out, const struct plan *p)
{
	codegen_printf(out,
		"      \"const_bytes\": %" PRId64 ",\n", p->const_bytes);
	put_key(out, "      ", "constants");
	fputs(p->nconst ? "[\n" : "[", out);
	for (int i = 0; i < p->nconst; i++) {
		const struct plan_const *k = &p->consts[i];
		const struct plan_pos *q = &p->pos[k->pos];

		codegen_printf(out,
			"        {\"buffer\": %d, \"step\": %" PRId32
			", \"index\": ", k->buf, q->step);
		codegen_index(out, q, "[]", ", ", "");
		codegen_printf(out,
			", \"offset\": %" PRId64 ", \"bytes\": %" PRId64
			", \"known\": %s}%s\n", k->offset, k->bytes,
			k->known ? "true" : "false",
			i + 1 < p->nconst ? "," : "");
	}
	fputs(p->nconst ? "      ],\n" : "],\n", out);
}

/* Step t as [computation, "instruction"]: from its first position, or
 * (a plan without positions) its "computation/instruction" name. */
static void
put_step(FILE *out, const struct plan *p, const struct comps *c,
	 const int *first, int32_t t)
{
	const struct plan_pos *q = first[t] >= 0 ? &p->pos[first[t]] : NULL;
	const char *s = p->steps[t], *slash = strchr(s, '/');

	if (q && q->comp >= 0) {
		codegen_printf(out, "[%d, ", c->of[q->comp]);
		codegen_json_string(out, q->name ? q->name : "");
	} else {
		fputs("[-1, ", out);
		codegen_json_string(out, slash ? slash + 1 : s);
	}
	fputc(']', out);
}

/* "computations": each name once, in the order the schedule first runs
 * one; steps, positions, values and constants index it. */
static void
put_comps(FILE *out, const struct comps *c)
{
	put_key(out, "      ", "computations");
	fputc('[', out);
	for (int i = 0; i < c->n; i++) {
		fputs(i ? ",\n        " : "\n        ", out);
		codegen_json_string(out, c->name[i]);
	}
	fputs(c->n ? "\n      ],\n" : "],\n", out);
}

/* The schedule the intervals count: its order's name, peaks, and per step
 * its computation's index and instruction's name when the plan has them. */
static void
put_schedule(FILE *out, struct pool *pool, const struct plan *p,
	     const struct comps *c)
{
	int *first = pool_alloc(pool, sizeof(int) * (size_t)(p->ntime + 1));

	for (int32_t t = 0; t <= p->ntime; t++)
		first[t] = -1;
	for (int k = p->npos - 1; k >= 0; k--)
		if (p->pos[k].step >= 0 && p->pos[k].step < p->ntime)
			first[p->pos[k].step] = k;
	put_key(out, "      ", "schedule");
	fputs("{\"order\": ", out);
	codegen_json_string(out, p->sched.name ? p->sched.name : "text");
	codegen_printf(out, ", \"peak\": %" PRId64 ", \"peak_text\": %" PRId64
		", \"steps\": [", p->sched.peak, p->sched.peak_text);
	for (int32_t t = 0; p->steps && t < p->ntime; t++) {
		fputs(t ? ",\n        " : "\n        ", out);
		put_step(out, p, c, first, t);
	}
	fputs(p->steps && p->ntime ? "\n      ]},\n" : "]},\n", out);
}

/* Every node of every instruction in the schedule, one a line, in
 * schedule order and preorder: the buffer and the offset inside it (0: a
 * node is never a slice of a larger buffer today), its slot rule (-1:
 * iteration % slots), whether it defines the value there, and its entry
 * parameter or output binding.  An operand is its producer's position. */
static void
put_positions(FILE *out, const struct plan *p)
{
	put_key(out, "      ", "positions");
	fputs(p->npos ? "[\n" : "[", out);
	for (int i = 0; i < p->npos; i++) {
		const struct plan_pos *q = &p->pos[i];

		codegen_printf(out,
			"        {\"step\": %" PRId32 ", \"index\": ",
			q->step);
		codegen_index(out, q, "[]", ", ", "");
		codegen_printf(out, ", \"buffer\": %d, "
			"\"offset\": 0, \"slot\": %d, \"defines\": %s, "
			"\"size\": %" PRId64, q->buf, q->slot,
			q->defines ? "true" : "false", q->size);
		if (q->param >= 0)
			codegen_printf(out, ", \"parameter\": %d", q->param);
		if (q->output)
			fputs(", \"output\": true", out);
		if (q->copied)
			fputs(", \"copied\": true", out);
		codegen_printf(out, "}%s\n", i + 1 < p->npos ? "," : "");
	}
	fputs(p->npos ? "      ],\n" : "],\n", out);
}

/* Each step's operands, a list a step, 16 steps a line: the position of
 * each operand's root node (its producer's; the other nodes follow it). */
static void
put_operands(FILE *out, const struct plan *p)
{
	put_key(out, "      ", "operands");
	fputc('[', out);
	for (int32_t t = 0; t < p->ntime; t++) {
		int a = p->opnd_first ? p->opnd_first[t] : 0;
		int z = p->opnd_first ? p->opnd_first[t + 1] : 0;

		fputs(t ? "," : "", out);
		fputs(t % 16 ? " [" : "\n        [", out);
		for (int k = a; k < z; k++)
			codegen_printf(out,
				"%s%d", k > a ? ", " : "", p->opnd[k]);
		fputc(']', out);
	}
	fputs(p->ntime ? "\n      ],\n" : "],\n", out);
}

static void
put_plan(FILE *out, struct pool *pool, const struct plan *p,
	 const char *prefix, const struct xla_assignment *xla, int last)
{
	struct bindings bd;
	struct comps c;

	number_comps(pool, p, &c);
	fputs("    {\n", out);
	put_key(out, "      ", "module");
	codegen_json_string(out, p->module ? p->module : "");
	fputs(",\n", out);
	put_key(out, "      ", "target");
	codegen_printf(out, "\"%s\",\n", codegen_target(p->target));
	put_key(out, "      ", "prefix");
	codegen_json_string(out, prefix);
	codegen_printf(out,
		",\n      \"align\": %" PRId64 ",\n      \"steps\": %"
		PRId32 ",\n", p->align, p->ntime);
	put_comps(out, &c);
	put_schedule(out, pool, p, &c);
	put_arenas(out, p);
	put_allocators(out, p);
	put_copies(out, p);
	put_loops(out, p);
	put_xla(out, p, xla);
	put_constants(out, p);
	put_positions(out, p);
	put_operands(out, p);
	put_key(out, "      ", "buffers");
	fputs(p->nbuf ? "[\n" : "[", out);
	codegen_bindings(pool, p, &bd);
	for (int i = 0; i < p->nbuf; i++)
		put_buffer(out, p, &bd, pool, i, i + 1 == p->nbuf);
	codegen_printf(out, "%s]\n    }%s\n", p->nbuf ? "      " : "",
		last ? "" : ",");
}

void
codegen_json(FILE *out, const struct plan_set *s)
{
	codegen_printf(out,
		"{\n  \"schema\": \"hloplan.plan\",\n  \"version\": %d,\n",
		JSON_VERSION);
	put_key(out, "  ", "source");
	codegen_json_string(out, s->source ? s->source : "");
	fputs(",\n  \"plans\": [", out);
	fputs(s->nplan ? "\n" : "", out);
	for (int i = 0; i < s->nplan; i++) {
		struct pool *pool = pool_new();

		put_plan(out, pool, &s->plans[i], s->prefixes[i], s->xla,
			 i + 1 == s->nplan);
		pool_free(pool);
	}
	codegen_printf(out, "%s]\n}\n", s->nplan ? "  " : "");
}

/* Buffers: each set of values that share storage becomes one buffer of the
 * plan, sized for the target, with the hull of its values' intervals, named
 * after its first value. */
#include <stdlib.h>
#include <string.h>

#include "ir/table.h"
#include "passes/passes.h"

const char *
value_name(struct prog *p, const struct value *v)
{
	const struct instr *in = &p->m->comps[v->comp].instrs[v->instr];
	const struct shape *s = &in->shape;
	char buf[512];
	int node = v->node, first = 1;
	size_t k;

	if (node == 0)
		return in->name;
	k = (size_t)snprintf(buf, sizeof buf, "%.400s{", in->name);
	while (node > 0 && k < sizeof buf - 24) {
		int e = 0;

		node -= 1;	/* into the tuple: its elements follow it */
		while (e < s->nelem && node >= shape_nodes(&s->elems[e]))
			node -= shape_nodes(&s->elems[e++]);
		if (e == s->nelem)
			break;
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%d",
				      first ? "" : ",", e);
		first = 0;
		s = &s->elems[e];
	}
	snprintf(buf + k, sizeof buf - k, "}");
	return pool_strdup(p->pool, buf);
}

/* ---- laid-out shapes, each made once ---------------------------------- */

/* Thousands of positions hold a few distinct shapes; a copy of the shape
 * laid out for each was a tenth of a wide module's run.  Arrays equal in
 * every field share one laid-out shape. */
struct layouts {
	struct table t;			/* hash_array of v[i].key to i */
	struct layout {
		const struct shape *key;
		const struct shape *val;	/* target_layout of key */
	} *v;
	int n, cap;
	const struct shape *s;		/* the array looked up */
};

static uint64_t
mix(uint64_t h, int64_t v)
{
	return (h ^ (uint64_t)v) * 1099511628211u;	/* FNV-1a, a word */
}

static uint64_t
hash_array(const struct shape *s)
{
	uint64_t h = 14695981039346656037u;

	h = mix(mix(mix(h, s->type), s->rank), s->has_layout);
	h = mix(mix(mix(h, s->ntile), s->elem_bits), s->space);
	h = mix(mix(mix(h, s->is_buffer), s->tail_pad), s->meta_bytes);
	for (int i = 0; i < s->rank; i++)
		h = mix(mix(mix(h, s->dims[i]), s->dyn ? s->dyn[i] : -1),
			s->has_layout ? s->m2m[i] : -1);
	for (int k = 0; k < s->ntile; k++)
		for (int i = 0; i < s->tiles[k].n; i++)
			h = mix(h, s->tiles[k].d[i]);
	return h;
}

/* Arrays a and b equal in every field of struct shape. */
static int
same_array(const struct shape *a, const struct shape *b)
{
	size_t r = (size_t)a->rank;

	if (a->type != b->type || a->rank != b->rank ||
	    a->has_layout != b->has_layout || a->ntile != b->ntile ||
	    a->elem_bits != b->elem_bits || a->space != b->space ||
	    a->is_buffer != b->is_buffer || a->tail_pad != b->tail_pad ||
	    a->meta_bytes != b->meta_bytes || !a->dyn != !b->dyn)
		return 0;
	if (r && (memcmp(a->dims, b->dims, r * sizeof *a->dims) ||
		  (a->dyn && memcmp(a->dyn, b->dyn, r * sizeof *a->dyn)) ||
		  (a->has_layout &&
		   memcmp(a->m2m, b->m2m, r * sizeof *a->m2m))))
		return 0;
	for (int k = 0; k < a->ntile; k++) {
		if (a->tiles[k].n != b->tiles[k].n)
			return 0;
		for (int i = 0; i < a->tiles[k].n; i++)
			if (a->tiles[k].d[i] != b->tiles[k].d[i])
				return 0;
	}
	return 1;
}

static int
same_key(const void *ctx, int i)
{
	const struct layouts *t = ctx;

	return same_array(t->v[i].key, t->s);
}

/* target_layout(s), made once for all arrays equal to s. */
static const struct shape *
laid_out(struct prog *p, const struct shape *s)
{
	struct layouts *t = p->layouts;
	int i;

	if (shape_is_tuple(s) || s->type == DT_OPAQUE || s->type == DT_TOKEN)
		return target_layout(p->pool, &p->opt, s);
	if (!t) {
		t = p->layouts = pool_alloc(p->pool, sizeof *t);
		table_init(&t->t, p->pool, 32);
	}
	t->s = s;
	i = table_key(&t->t, hash_array(s), same_key, t, t->n);
	if (i < 0) {
		i = t->n;
		*VEC_PUSH(p->pool, t->v, t->n, t->cap) =
			(struct layout){s, target_layout(p->pool, &p->opt, s)};
	}
	return t->v[i].val;
}

/* ---- buffers ------------------------------------------------------------- */

/* Bytes of s as the target lays it out; INT64_MAX past 64 bits, which
 * check_sizes refuses with the rest of what a plan cannot address. */
static int64_t
laid_out_size(const struct options *o, const struct shape *s)
{
	int64_t size = target_size(o, s);

	return size < 0 ? INT64_MAX : size;
}

static void
add_member(struct prog *p, struct buffer *b, const struct value *v)
{
	int64_t bytes = shape_bytes(v->shape);
	int64_t size = laid_out_size(&p->opt, v->shape);

	if (bytes < 0)
		bytes = INT64_MAX;
	if (bytes > b->bytes)
		b->bytes = bytes;
	if (size > b->size)
		b->size = size;
	b->flags |= v->flags & (BUF_PARAM | BUF_OUTPUT | BUF_CONST | BUF_TABLE);
}

static void
new_buffer(struct prog *p, struct buffer *b, int v)
{
	const struct value *x = &p->values[v];
	const struct instr *in = &p->m->comps[x->comp].instrs[x->instr];

	memset(b, 0, sizeof *b);
	/* A trial's messages are never shown: its buffers keep the name of
	 * their instruction. */
	b->name = p->trial ? in->name : value_name(p, x);
	b->op_name = in->op_name;
	b->src_file = in->src_file;
	b->src_line = in->src_line;
	b->space = shape_is_tuple(x->shape) ? 0 : x->shape->space;
	b->shape = p->trial ? NULL : laid_out(p, x->shape);
	b->start = p->bstart[v];
	b->end = p->bend[v];
	b->slots = 1;
}

/* Constants stay out of the arena, and so do parameters and outputs when
 * the runtime owns them (XLA's way). */
static void
place_class(const struct options *o, struct buffer *b, int all_const)
{
	b->in_arena = !all_const;
	if (!o->io_in_arena && (b->flags & (BUF_PARAM | BUF_OUTPUT)))
		b->in_arena = 0;
	if (all_const)
		b->flags = BUF_CONST | (b->flags & BUF_OUTPUT);
	else
		b->flags &= ~BUF_CONST;
}

/* The entries of the shape indices of s's preorder nodes, s at depth. */
static long
index_entries(const struct shape *s, int depth)
{
	long n = depth;

	for (int e = 0; e < s->nelem; e++)
		n += index_entries(&s->elems[e], depth + 1);
	return n;
}

/* Fills out[] with the shape of each preorder node of s from *node on, and
 * idx[] with its shape index (path[0 .. depth) is the index of s), each
 * copied to *room, which index_entries sized; the root's index is
 * empty. */
static void
node_shapes(int **room, const struct shape *s, int *path, int depth,
	    const struct shape **out, const int **idx, int *ndepth, int *node)
{
	memcpy(*room, path, sizeof(int) * (size_t)depth);
	out[*node] = s;
	idx[*node] = *room;
	*room += depth;
	ndepth[(*node)++] = depth;
	for (int e = 0; e < s->nelem; e++) {
		path[depth] = e;
		node_shapes(room, &s->elems[e], path, depth + 1, out, idx,
			    ndepth, node);
	}
}

/* A buffer holds every node placed in it: a forwarded node's shape may
 * take more bytes than its value's (a bitcast to a layout that the TPU
 * pads more). */
static void
fit_node(struct prog *p, struct buffer *b, const struct shape *s)
{
	int64_t bytes = shape_bytes(s), size = laid_out_size(&p->opt, s);

	if (bytes < 0)
		bytes = INT64_MAX;
	if (bytes > b->bytes)
		b->bytes = bytes;
	if (size > b->size)
		b->size = size;
}

/* fit_node over the nodes of instruction i of c from *node on: what
 * list_positions does for the sizes alone. */
static void
fit_shape(struct prog *p, struct plan *pl, int c, int i,
	  const struct shape *s, int *node)
{
	int v = prog_val(p, c, i, (*node)++);

	if (s->type != DT_TOKEN)
		fit_node(p, &pl->bufs[p->buf_of[v]], s);
	for (int e = 0; e < s->nelem; e++)
		fit_shape(p, pl, c, i, &s->elems[e], node);
}

static void
fit_nodes(struct prog *p, struct plan *pl)
{
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp, i = p->steps[t].instr, node = 0;

		fit_shape(p, pl, c, i, &p->m->comps[c].instrs[i].shape, &node);
	}
}

/* Where each node of each instruction lives, with what a runtime binds it
 * by: computation, instruction, shape index, and for the entry its
 * parameter number or output index. */
static void
list_positions(struct prog *p, struct plan *pl)
{
	int k = 0, cap = 0, at, *depth = NULL, *room;
	int path[SHAPE_MAX_DEPTH + 1];
	const struct shape **ns = NULL;
	const int **idx = NULL;
	const struct comp *entry = &p->m->comps[p->m->entry];

	pl->npos = p->nnode;
	pl->pos = pool_alloc(p->pool, sizeof(struct plan_pos) *
					      (size_t)(p->nnode + 1));
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp, i = p->steps[t].instr;
		const struct instr *in = &p->m->comps[c].instrs[i];
		int n = shape_nodes(&in->shape);

		if (n > cap) {
			cap = 2 * n;
			ns = pool_alloc(p->pool, sizeof *ns * (size_t)cap);
			idx = pool_alloc(p->pool, sizeof *idx * (size_t)cap);
			depth = pool_alloc(p->pool, sizeof *depth * (size_t)cap);
		}
		at = 0;
		room = pool_alloc(p->pool, sizeof(int) *
				  (size_t)(index_entries(&in->shape, 0) + 1));
		node_shapes(&room, &in->shape, path, 0, ns, idx, depth, &at);
		for (int node = 0; node < n; node++, k++) {
			int v = prog_val(p, c, i, node);
			struct plan_pos *q = &pl->pos[k];

			if (ns[node]->type != DT_TOKEN)
				fit_node(p, &pl->bufs[p->buf_of[v]], ns[node]);

			q->comp = c;
			q->instr = i;
			q->node = node;
			q->buf = p->buf_of[v];
			q->defines = !(p->values[v].flags & VAL_COPY) &&
				     p->values[v].comp == c &&
				     p->values[v].instr == i &&
				     p->values[v].node == node;
			q->slot = -1;
			q->name = in->name;
			q->comp_name = p->m->comps[c].name;
			q->depth = depth[node];
			q->index = idx[node];
			q->copied = !!(p->values[v].flags & VAL_COPY);
			q->survives = param_survives(p, v) &&
				      !shape_is_tuple(p->values[v].shape);
			q->shape = laid_out(p, q->copied ? p->values[v].shape
							    : ns[node]);
			q->size = target_size(&p->opt, q->shape);
			if (q->defines && prog_find(p, v) == v)
				/* the buffer's shape is its first value's, as
				   the instruction writes it */
				pl->bufs[q->buf].shape = q->shape;
			q->step = t;
			q->param = c == p->m->entry && in->op &&
				   in->op->op == OP_PARAMETER ?
				   (int)in->param : -1;
			q->output = c == p->m->entry && i == entry->root;
		}
	}
}

/* XLA's known_trip_count in a while's backend_config, {"n":"N"} (quoted
 * or not, its quotes escaped or not); -1 when it is not there. */
static int64_t
known_trips(const struct instr *in)
{
	static const char key[] = "known_trip_count";
	const struct attr *a = instr_attr(in, "backend_config");
	const char *s, *e;
	int64_t n = 0;

	if (!a)
		return -1;
	e = a->val + a->vlen;
	for (s = a->val; s + sizeof key - 1 <= e; s++)
		if (!memcmp(s, key, sizeof key - 1))
			break;
	if (s + sizeof key - 1 > e)
		return -1;
	for (s += sizeof key - 1; s < e && *s && strchr("\\\" :{", *s); s++)
		;
	if (s == e || *s++ != 'n')
		return -1;
	while (s < e && *s && strchr("\\\" :", *s))
		s++;
	if (s == e || *s < '0' || *s > '9')
		return -1;
	for (; s < e && *s >= '0' && *s <= '9'; s++) {
		if (n > (INT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (*s - '0');
	}
	return s < e && *s && strchr("\\\"}, ", *s) ? n : -1;
}

/* The loops as a runtime runs them, and per step the innermost loop
 * whose iterations run it (inside[t]: start < t < end) and the innermost
 * that starts there (at[t]).  A copy after a loop's start step is made in
 * every iteration, one before it as the loop is entered. */
static void
list_loops(struct prog *p, struct plan *pl, int **inside, int **at)
{
	size_t n = (size_t)p->ntime + 2;

	*inside = pool_alloc(p->pool, sizeof(int) * n);
	*at = pool_alloc(p->pool, sizeof(int) * n);
	memset(*inside, -1, sizeof(int) * n);
	memset(*at, -1, sizeof(int) * n);
	pl->nloop = 0;
	pl->loops = pool_alloc(p->pool, sizeof(struct plan_loop) *
					(size_t)(p->nloop + 1));
	/* Loops close inner before outer: painted from the last, an inner
	 * loop's steps are painted after its enclosing loop's. */
	for (int l = p->nloop - 1; l >= 0; l--) {
		const struct loop *lp = &p->loops[l];

		if (lp->start >= lp->end)
			continue;
		if ((*at)[lp->start] < 0 ||
		    p->loops[(*at)[lp->start]].end > lp->end)
			(*at)[lp->start] = l;
		for (int32_t t = lp->start + 1; t < lp->end; t++)
			(*inside)[t] = l;
	}
	for (int l = 0; l < p->nloop; l++) {
		const struct loop *lp = &p->loops[l];
		const struct step *w = &p->steps[lp->end];
		struct plan_loop *q = &pl->loops[pl->nloop++];

		q->first = lp->start;
		q->cond_last = lp->cond_last;
		q->step = lp->end;
		q->parent = lp->parent;
		q->trips = known_trips(&p->m->comps[w->comp].instrs[w->instr]);
		q->trips_from = q->trips >= 0 ? "backend_config" : "";
	}
}

static void
list_copies(struct prog *p, struct plan *pl)
{
	int *inside, *at;

	list_loops(p, pl, &inside, &at);
	pl->ncopy = p->ncopy;
	pl->copies = pool_alloc(p->pool, sizeof(struct plan_copy) *
						 (size_t)(p->ncopy + 1));
	for (int k = 0; k < p->ncopy; k++) {
		const struct copy *c = &p->copies[k];
		struct plan_copy *pc = &pl->copies[k];

		pc->src = p->buf_of[c->src];
		pc->dst = p->buf_of[c->dst];
		pc->step = c->step;
		pc->after = c->after;
		pc->loop = c->after && at[c->step] >= 0 ? at[c->step]
							: inside[c->step];
		/* The data: no more than either side holds (a TPU layout
		 * may pad the two differently). */
		pc->bytes = target_bytes(&p->opt, p->values[c->src].shape);
		if (target_bytes(&p->opt, p->values[c->dst].shape) < pc->bytes)
			pc->bytes = target_bytes(&p->opt,
						 p->values[c->dst].shape);
	}
}

/* Each step's operands, as positions: an operand is its producer's root
 * node (its other nodes follow), so a runtime binds it from the positions
 * alone.  An operand without a step (none in a program computation) is
 * -1. */
static void
list_operands(struct prog *p, struct plan *pl)
{
	int *root = pool_alloc(p->pool, sizeof(int) * (size_t)(p->ntime + 1));
	int n = 0;

	for (int k = pl->npos - 1; k >= 0; k--)
		root[pl->pos[k].step] = k;
	for (int32_t t = 0; t < p->ntime; t++)
		n += p->m->comps[p->steps[t].comp].instrs[p->steps[t].instr].nops;
	pl->nopnd = n;
	pl->opnd = pool_alloc(p->pool, sizeof(int) * (size_t)(n + 1));
	pl->opnd_first = pool_alloc(p->pool, sizeof(int) *
					     (size_t)(p->ntime + 1));
	n = 0;
	for (int32_t t = 0; t < p->ntime; t++) {
		int c = p->steps[t].comp;
		const struct instr *in = &p->m->comps[c].instrs[p->steps[t].instr];

		pl->opnd_first[t] = n;
		for (int j = 0; j < in->nops; j++) {
			int32_t s = p->time[c][in->ops[j]];

			pl->opnd[n++] = s >= 0 ? root[s] : -1;
		}
	}
	pl->opnd_first[p->ntime] = n;
}

/* Each step's "computation/instruction", for the outputs. */
static void
name_steps(struct prog *p, struct plan *pl)
{
	pl->steps = pool_alloc(p->pool, sizeof(char *) * (size_t)(p->ntime + 1));
	pl->step_comp = pool_alloc(p->pool, sizeof(int) * (size_t)(p->ntime + 1));
	pl->ncomp = p->m->ncomp;
	pl->comp_names = pool_alloc(p->pool, sizeof(char *) *
				    (size_t)(p->m->ncomp + 1));
	for (int c = 0; c < p->m->ncomp; c++)
		pl->comp_names[c] = p->m->comps[c].name;
	for (int32_t t = 0; t < p->ntime; t++) {
		const struct comp *c = &p->m->comps[p->steps[t].comp];
		const char *in = c->instrs[p->steps[t].instr].name;
		size_t nc = strlen(c->name), ni = strlen(in);
		char *s = pool_alloc(p->pool, nc + ni + 2);

		memcpy(s, c->name, nc);
		s[nc] = '/';
		memcpy(s + nc + 1, in, ni + 1);
		pl->steps[t] = s;
		pl->step_comp[t] = p->steps[t].comp;
	}
}

void
build_buffers(struct prog *p, struct plan *pl)
{
	int *nonconst;

	p->buf_of = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));
	nonconst = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nval + 1));
	pl->nbuf = 0;
	/* At most a buffer a value: no array grown and copied. */
	pl->bufs = pool_alloc(p->pool, sizeof *pl->bufs * (size_t)(p->nval + 1));
	for (int v = 0; v < p->nval; v++) {
		int r = prog_find(p, v);

		if (r == v) {
			p->buf_of[v] = pl->nbuf;
			new_buffer(p, &pl->bufs[pl->nbuf++], v);
		} else {
			p->buf_of[v] = p->buf_of[r];
		}
		add_member(p, &pl->bufs[p->buf_of[v]], &p->values[v]);
		if (param_survives(p, v))	/* the caller's, after the call */
			pl->bufs[p->buf_of[v]].end = p->ntime - 1;
		if (!(p->values[v].flags & BUF_CONST))
			nonconst[p->buf_of[v]] = 1;
	}
	for (int b = 0; b < pl->nbuf; b++)
		place_class(&p->opt, &pl->bufs[b], !nonconst[b]);
	if (p->trial)
		fit_nodes(p, pl);
	else
		list_positions(p, pl);
	if (!p->trial)
		list_operands(p, pl);
	list_copies(p, pl);
	if (!p->trial)
		name_steps(p, pl);
	pl->ntime = p->ntime;
	pl->nalias = p->nalias;
	pl->nalias_kept = p->nalias_kept;
	pl->target = p->opt.target;
	pl->align = p->opt.align;
	pl->module = p->m->name;
}

/* ---- what a plan can address ------------------------------------------ */

#define LIMIT_TEXT "more than hloplan can place: a buffer, and the " \
		   "buffers of one arena together, may take at most " \
		   "2^42 - 1 bytes (4 TiB)"

/* For each buffer, the position whose node takes the most bytes: the one
 * an error points at; -1 where the plan lists no positions (a trial). */
static int *
largest_nodes(struct prog *p, const struct plan *pl)
{
	int *at = pool_alloc(p->pool, sizeof(int) * (size_t)(pl->nbuf + 1));
	int64_t *most = pool_alloc(p->pool,
				   sizeof(int64_t) * (size_t)(pl->nbuf + 1));

	for (int b = 0; b < pl->nbuf; b++)
		at[b] = -1;
	for (int k = 0; k < pl->npos; k++) {
		const struct plan_pos *q = &pl->pos[k];
		int64_t size = q->size < 0 ? INT64_MAX : q->size;

		if (at[q->buf] < 0 || size > most[q->buf]) {
			most[q->buf] = size;
			at[q->buf] = k;
		}
	}
	return at;
}

/* "N bytes", or more than int64 holds. */
static const char *
bytes_text(struct prog *p, int64_t n)
{
	if (n == INT64_MAX)
		return "over 2^63 - 1 bytes";
	return pool_printf(p->pool, "%lld bytes", (long long)n);
}

/* Where an error about buffer b points: the instruction of its largest
 * node, else the module. */
static struct loc
node_loc(struct prog *p, const struct plan *pl, int pos)
{
	if (pos < 0)
		return p->m->loc;
	return p->m->comps[pl->pos[pos].comp].instrs[pl->pos[pos].instr].loc;
}

/* What an error names: "'a{1}' (f32[8]{0})", the largest node and its
 * shape as laid out, else the buffer. */
static const char *
node_text(struct prog *p, const struct plan *pl, int b, int pos)
{
	const struct plan_pos *q;
	char idx[256];
	size_t k = 0;

	if (pos < 0)
		return pool_printf(p->pool, "'%s'", pl->bufs[b].name);
	q = &pl->pos[pos];
	idx[0] = 0;
	for (int d = 0; d < q->depth && k < sizeof idx - 16; d++)
		k += (size_t)snprintf(idx + k, sizeof idx - k, "%s%d",
				      d ? "," : "{", q->index[d]);
	if (k)
		snprintf(idx + k, sizeof idx - k, "}");
	return pool_printf(p->pool, "'%.400s%s' (%s)", q->name, idx,
			   shape_text(p->pool, q->shape));
}

static void
buffer_too_large(struct prog *p, const struct plan *pl, int b, int pos)
{
	const struct buffer *x = &pl->bufs[b];
	const char *target = p->opt.target == TARGET_TPU ? "tpu" : "gpu";

	if (x->slots > 1)
		diag_error(p->ds, node_loc(p, pl, pos), "%s needs %d slots of "
			   "%lld bytes for %s, %s in all, %s",
			   node_text(p, pl, b, pos), x->slots,
			   (long long)x->stride, target,
			   bytes_text(p, x->size), LIMIT_TEXT);
	else
		diag_error(p->ds, node_loc(p, pl, pos), "%s needs %s for %s, "
			   "%s", node_text(p, pl, b, pos),
			   bytes_text(p, x->size), target, LIMIT_TEXT);
}

static int
cmp_space_buf(const void *a, const void *b)
{
	const int *x = a, *y = b;

	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The buffers of each arena together, each buffer within the limit: an
 * error at the largest of a space whose sum passes it. */
static void
check_arenas(struct prog *p, const struct plan *pl, const int *largest,
	     int packed)
{
	int *sb = pool_alloc(p->pool, sizeof(int) * 2 * (size_t)(pl->nbuf + 1));
	int n = 0;

	for (int b = 0; b < pl->nbuf; b++)
		if (pl->bufs[b].in_arena && pl->bufs[b].size <= PLAN_MAX_BYTES) {
			sb[2 * n] = pl->bufs[b].space;
			sb[2 * n++ + 1] = b;
		}
	qsort(sb, (size_t)n, 2 * sizeof(int), cmp_space_buf);
	for (int i = 0, j; i < n; i = j) {
		int64_t total = 0;
		int big = sb[2 * i + 1];

		for (j = i; j < n && sb[2 * j] == sb[2 * i]; j++) {
			const struct buffer *x = &pl->bufs[sb[2 * j + 1]];

			total = x->size > INT64_MAX - total ? INT64_MAX :
							      total + x->size;
			if (x->size > pl->bufs[big].size)
				big = sb[2 * j + 1];
		}
		for (int a = 0; packed && a < pl->narena; a++)
			if (pl->arenas[a].space == sb[2 * i])
				total = pl->arenas[a].size;
		if (total > (packed ? PLAN_MAX_BYTES : PLAN_MAX_SUM))
			diag_error(p->ds, node_loc(p, pl, largest[big]),
				   "the buffers of memory space S(%d) need %s "
				   "together for %s (the largest: %s, %lld "
				   "bytes), %s", sb[2 * i], bytes_text(p, total),
				   p->opt.target == TARGET_TPU ? "tpu" : "gpu",
				   node_text(p, pl, big, largest[big]),
				   (long long)pl->bufs[big].size, LIMIT_TEXT);
	}
}

int
check_sizes(struct prog *p, const struct plan *pl)
{
	int n = p->ds->n, *largest = largest_nodes(p, pl);

	for (int b = 0; b < pl->nbuf; b++)
		if (pl->bufs[b].size > PLAN_MAX_BYTES)
			buffer_too_large(p, pl, b, largest[b]);
	check_arenas(p, pl, largest, 0);
	return p->ds->n > n ? -1 : 0;
}

int
check_heights(struct prog *p, const struct plan *pl)
{
	int n = p->ds->n;

	check_arenas(p, pl, largest_nodes(p, pl), 1);
	return p->ds->n > n ? -1 : 0;
}

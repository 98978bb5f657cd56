/* Array shapes as the parser meets them: the element type, dimensions
 * (N, <=N, ?) and the layout's minor-to-major order, tiles T(..), tail
 * padding L(n), element size E(n), memory space S(n) and dynamic-size
 * metadata M(n) (xla/layout.h); other layout fields are skipped. */
#include <string.h>

#include "frontend/frontend_internal.h"

/* XLA's parser: "shape dimensions must be non-negative". */
int64_t
act_dim(struct parser *P, struct span loc, int64_t v)
{
	if (v >= 0)
		return v;
	diag_error(P->ds, span_loc(P, loc), "a dimension size must not be "
		   "negative: %lld", (long long)v);
	return 0;
}

/* dims holds N for a static size, -1 - N for <=N and INT64_MIN for '?'. */
static void
set_dims(struct parser *P, struct shape *s, struct ints *dims)
{
	s->rank = dims->n;
	s->dims = pool_alloc(P->pool, sizeof(int64_t) * (size_t)(dims->n + 1));
	for (int i = 0; i < dims->n; i++) {
		int64_t d = dims->v[i];

		if (d >= 0) {
			s->dims[i] = d;
			continue;
		}
		if (!s->dyn)
			s->dyn = pool_alloc(P->pool, (size_t)dims->n + 1);
		s->dyn[i] = d == INT64_MIN ? DIM_UNKNOWN : DIM_BOUNDED;
		s->dims[i] = d == INT64_MIN ? 0 : -1 - d;
	}
}

static void
set_tiles(struct parser *P, struct shape *s, struct layout_item *it)
{
	s->ntile = it->ngroup;
	s->tiles = pool_alloc(P->pool,
			      sizeof(struct tile) * (size_t)it->ngroup);
	for (int g = 0; g < it->ngroup; g++) {
		struct ints *t = &it->groups[g];

		if (t->n < 1 || t->n > 8) {
			diag_error(P->ds, it->loc, "a tile has 1 to 8 "
				   "dimensions, not %d", t->n);
			return;
		}
		s->tiles[g].n = t->n;
		for (int i = 0; i < t->n; i++) {
			if (t->v[i] == 0)
				diag_error(P->ds, it->loc, "a tile dimension "
					   "must be positive");
			s->tiles[g].d[i] = t->v[i];
		}
	}
}

/* One number in parentheses: E(n), S(n). */
static int64_t
item_number(struct parser *P, struct layout_item *it, int64_t max)
{
	if (it->ngroup != 1 || it->groups[0].n != 1 ||
	    it->groups[0].v[0] < 0 || it->groups[0].v[0] > max) {
		diag_error(P->ds, it->loc, "%s(...) takes one number from 0 "
			   "to %lld", it->name, (long long)max);
		return 0;
	}
	return it->groups[0].v[0];
}

static void
set_m2m(struct parser *P, struct shape *s, struct layout *l)
{
	unsigned char *seen;

	if (l->m2m.n != s->rank) {
		diag_error(P->ds, l->loc, "layout lists %d dimensions, the "
			   "shape has %d", l->m2m.n, s->rank);
		return;
	}
	seen = pool_alloc(P->tmp, (size_t)s->rank + 1);
	s->m2m = pool_alloc(P->pool, sizeof(int) * (size_t)(s->rank + 1));
	for (int i = 0; i < s->rank; i++) {
		int64_t d = l->m2m.v[i];

		if (d < 0 || d >= s->rank || seen[d]) {
			diag_error(P->ds, l->loc, "layout is not a permutation "
				   "of the shape's %d dimensions", s->rank);
			return;
		}
		seen[d] = 1;
		s->m2m[i] = (int)d;
	}
	s->has_layout = 1;
}

static void
set_layout(struct parser *P, struct shape *s, struct layout *l)
{
	set_m2m(P, s, l);
	for (int i = 0; i < l->nitem; i++) {
		struct layout_item *it = &l->items[i];

		if (!strcmp(it->name, "T"))
			set_tiles(P, s, it);
		else if (!strcmp(it->name, "E"))
			s->elem_bits = (int)item_number(P, it, 1024);
		else if (!strcmp(it->name, "S"))
			s->space = (int)item_number(P, it, 1 << 20);
		else if (!strcmp(it->name, "L"))
			s->tail_pad = item_number(P, it, (int64_t)1 << 40);
		else if (!strcmp(it->name, "M"))
			s->meta_bytes = item_number(P, it, (int64_t)1 << 40);
	}
}

struct shape *
act_array(struct parser *P, struct tok type, struct span loc,
	  struct ints *dims, struct layout *layout)
{
	struct shape *s = pool_alloc(P->tmp, sizeof *s);
	const char *name = P->src + type.off;

	s->type = dtype_lookup(name, type.len);
	if (s->type == DT_INVALID)
		diag_error(P->ds, span_loc(P, loc), "unknown element type '%.*s'",
			   (int)(type.len > 40 ? 40 : type.len), name);
	set_dims(P, s, dims);
	if (layout)
		set_layout(P, s, layout);
	if (s->type != DT_INVALID && shape_bytes(s) < 0)
		diag_error(P->ds, span_loc(P, loc), "shape is too large: its size "
			   "overflows 64 bits");
	return s;
}

/* How deep tuples nest in s: 0 for an array.  The parser never builds a
 * shape deeper than SHAPE_MAX_DEPTH, which bounds this recursion. */
static int
tuple_depth(const struct shape *s)
{
	int d = 0;

	for (int i = 0; i < s->nelem; i++) {
		int e = tuple_depth(&s->elems[i]);

		d = e > d ? e : d;
	}
	return shape_is_tuple(s) ? d + 1 : 0;
}

/* A tuple of the shapes in elems, written at loc.  One nested too deep
 * loses its elements, so that passes may recurse over any shape; it is
 * reported once, not again by the tuples around it. */
struct shape *
act_tuple(struct parser *P, struct shapes *elems, struct span loc)
{
	struct shape *s = pool_alloc(P->tmp, sizeof *s);
	size_t n = sizeof(struct shape) * (size_t)elems->n;
	int depth = 0;

	s->type = DT_TUPLE;
	for (int i = 0; i < elems->n; i++) {
		int d = tuple_depth(&elems->v[i]);

		depth = d > depth ? d : depth;
	}
	if (depth + 1 > SHAPE_MAX_DEPTH ||
	    (P->too_deep && P->too_deep - 1 >= loc.first_off &&
	     P->too_deep - 1 < loc.last_off)) {
		if (!P->too_deep || P->too_deep - 1 < loc.first_off)
			diag_error(P->ds, span_loc(P, loc), "tuple shapes nest "
				   "more than %d levels deep", SHAPE_MAX_DEPTH);
		P->too_deep = loc.first_off + 1;
		return s;
	}
	s->nelem = elems->n;
	if (n) {
		s->elems = pool_alloc(P->pool, n);
		memcpy(s->elems, elems->v, n);
	}
	return s;
}

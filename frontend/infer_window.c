/* Shape inference of windowed ops: reduce-window, and convolution from
 * dim_labels and its window (ShapeInference::InferConvolveShape). */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/infer_internal.h"

/* ---- windows ---------------------------------------------------------- */

/* One dimension of window={size=.. stride=.. pad=lo_hi.. lhs_dilate=..
 * rhs_dilate=..}: a field missing from the text keeps its default. */
struct windim {
	int64_t size, stride, lo, hi, base_dil, win_dil;
};

/* "AxBxC" for rank numbers (pairs "lo_hi" when pairs) into w at offset. */
static int
read_window_field(const char **p, const char *end, int rank, int pairs,
		  struct windim *w, size_t offset)
{
	for (int i = 0; i < rank; i++) {
		int64_t *f = (int64_t *)((char *)&w[i] + offset);

		if ((i && !skip_to(p, end, 'x')) || !read_int(p, end, &f[0]) ||
		    (pairs && (!skip_to(p, end, '_') ||
			       !read_int(p, end, &f[1]))))
			return 0;
	}
	return *p >= end || isspace((unsigned char)**p) || **p == '}'; /* not 1_1_0 */
}

static const struct winfield {
	const char *name;
	int pairs;
	size_t offset;
} winfields[] = {
	{"size", 0, offsetof(struct windim, size)},
	{"stride", 0, offsetof(struct windim, stride)},
	{"pad", 1, offsetof(struct windim, lo)},
	{"lhs_dilate", 0, offsetof(struct windim, base_dil)},
	{"rhs_dilate", 0, offsetof(struct windim, win_dil)},
};

/* Reads one "name=value" of the window; other fields (rhs_reversal) are
 * skipped.  0 when the value does not fit the rank. */
static int
read_window_item(const char **p, const char *end, int rank, struct windim *w)
{
	size_t n = 0;

	while (*p + n < end && (*p)[n] != '=' && (*p)[n] != ' ')
		n++;
	for (size_t i = 0; i < sizeof winfields / sizeof winfields[0]; i++) {
		const struct winfield *f = &winfields[i];

		if (strlen(f->name) != n || strncmp(f->name, *p, n) ||
		    *p + n >= end || (*p)[n] != '=')
			continue;
		*p += n + 1;
		return read_window_field(p, end, rank, f->pairs, w, f->offset);
	}
	while (*p < end && !isspace((unsigned char)**p) && **p != '}')
		(*p)++;
	return 1;
}

static int
read_window(const struct inf *x, int rank, struct windim *w)
{
	const struct attr *a = instr_attr(x->in, "window");
	const char *p, *end;

	for (int i = 0; i < rank; i++)
		w[i] = (struct windim){0, 1, 0, 0, 1, 1};
	if (!a)
		return rank ? inf_fail(x, "needs window={size=...}") : 1;
	p = a->val;
	end = a->val + a->vlen;
	if (!skip_to(&p, end, '{'))
		return inf_fail(x, "window: expected {size=...}");
	while (!skip_to(&p, end, '}'))
		if (p >= end || !read_window_item(&p, end, rank, w))
			return inf_fail(x, "window does not describe %d "
				    "dimensions", rank);
	return 1;
}

/* window_util's DilatedBound and StridedBound. */
static int64_t
dilated(int64_t n, int64_t d)
{
	return n ? (n - 1) * d + 1 : 0;
}

static int
window_dims(const struct inf *x, const struct shape *s,
	    const struct windim *w, int64_t *d)
{
	for (int i = 0; i < s->rank; i++) {
		int64_t base, win;

		if (w[i].size <= 0 || w[i].stride <= 0 || w[i].base_dil < 1 ||
		    w[i].win_dil < 1)
			return inf_fail(x, "window dimension %d is not positive",
				    i);
		base = w[i].lo + dilated(s->dims[i], w[i].base_dil) + w[i].hi;
		win = dilated(w[i].size, w[i].win_dil);
		d[i] = base <= 0 || win > base ? 0 :
						(base - win) / w[i].stride + 1;
	}
	return 1;
}

/* reduce-window: each input's windowed dimensions, of its init value's
 * type; a tuple when the reducer returns one. */
int
infer_reduce_window(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0);
	const struct shape *root = inf_callee_root(x, "to_apply");
	int n = x->in->nops / 2;
	struct windim *w;
	int64_t *d;
	struct shape *e;

	if (inf_inputs_ok(x, n) < 0)
		return -1;
	w = pool_alloc(x->P->pool, sizeof *w * (size_t)(s->rank + 1));
	d = pool_alloc(x->P->pool, sizeof *d * (size_t)(s->rank + 1));
	if (read_window(x, s->rank, w) < 0 || window_dims(x, s, w, d) < 0)
		return -1;
	if (!root)
		return 0;
	if (n == 1 && !shape_is_tuple(root))
		return inf_like(x, &(struct shape){.rank = s->rank, .dims = d},
			    inf_operand(x, 1)->type);
	e = pool_alloc(x->P->pool, sizeof *e * (size_t)n);
	for (int i = 0; i < n; i++)
		memcpy(inf_array_of(x->P->pool, &e[i], inf_operand(x, n + i)->type,
				s->rank),
		       d, sizeof *d * (size_t)s->rank);
	memset(x->out, 0, sizeof *x->out);
	x->out->type = DT_TUPLE;
	x->out->nelem = n;
	x->out->elems = e;
	return 1;
}

/* ---- convolution ------------------------------------------------------ */

/* Where batch (b, or input feature i), feature (f, or output feature o)
 * and each spatial dimension lie in one side of dim_labels. */
struct convside {
	int b, f, sp[10];
};

/* One side of "bf01_01io->bf01" from *p: rank labels, each once. */
static int
read_conv_side(const char **p, const char *end, int rank, const char *bf,
	       struct convside *cs)
{
	int seen = 0;

	cs->b = cs->f = -1;
	for (int k = 0; k < 10; k++)
		cs->sp[k] = -1;
	for (int j = 0; j < rank; j++, (*p)++) {
		char c = *p < end ? **p : 0;
		int digit = c >= '0' && c <= '9';
		int *slot = c == bf[0] ? &cs->b : c == bf[1] ? &cs->f :
			    digit ? &cs->sp[c - '0'] : NULL;

		if (!slot || *slot >= 0 || (digit && c - '0' >= rank - 2))
			return 0;
		*slot = j;
		seen++;
	}
	return seen == rank;
}

static int
conv_labels(const struct inf *x, int rank, struct convside cs[3])
{
	const struct attr *a = instr_attr(x->in, "dim_labels");
	const char *p = a ? a->val : NULL, *end = a ? a->val + a->vlen : NULL;

	if (!a || rank < 2 || rank > 12 ||
	    !read_conv_side(&p, end, rank, "bf", &cs[0]) ||
	    !skip_to(&p, end, '_') ||
	    !read_conv_side(&p, end, rank, "io", &cs[1]) ||
	    !skip_to(&p, end, '-') || !skip_to(&p, end, '>') ||
	    !read_conv_side(&p, end, rank, "bf", &cs[2]) || p != end)
		return inf_fail(x, "needs dim_labels for rank %d operands, such as "
			    "bf01_01io->bf01", rank);
	return 1;
}

/* A count attribute (feature_group_count, batch_group_count): 1 when
 * absent, 0 when not a positive number. */
static int64_t
group_count(const struct inf *x, const char *key)
{
	const struct attr *a = instr_attr(x->in, key);
	const char *p = a ? a->val : NULL;
	int64_t v = 1;

	if (a && (!read_int(&p, a->val + a->vlen, &v) ||
		  p != a->val + a->vlen || v < 1))
		return 0;
	return v;
}

/* ShapeInference::InferConvolveShape: the output's batch is the lhs's
 * over batch_group_count, its feature the rhs's output feature, each
 * spatial dimension the lhs's through the window.  The window's sizes are
 * taken as written: XLA's verifier also wants them to be the kernel's,
 * which MHLO's importer does not (the corpus's M01). */
int
infer_convolution(const struct inf *x)
{
	const struct shape *l = inf_operand(x, 0), *r = inf_operand(x, 1);
	struct convside cs[3];
	struct windim w[10];
	int64_t in[10], out[10], *d;
	int nsp = l->rank - 2;
	int64_t bg = group_count(x, "batch_group_count");

	if (shape_is_tuple(l) || shape_is_tuple(r))
		return 0;	/* a sparse kernel (values, indices) */
	if (l->rank != r->rank)
		return inf_fail(x, "operands of ranks %d and %d", l->rank,
			    r->rank);
	if (conv_labels(x, l->rank, cs) < 0 || read_window(x, nsp, w) < 0)
		return -1;
	if (!bg || !group_count(x, "feature_group_count") ||
	    l->dims[cs[0].b] % bg)
		return inf_fail(x, "group counts that do not divide its batch");
	for (int k = 0; k < nsp; k++)
		in[k] = l->dims[cs[0].sp[k]];
	if (window_dims(x, &(struct shape){.rank = nsp, .dims = in}, w,
			out) < 0)
		return -1;
	d = inf_make_array(x, inf_wider(l->type, r->type), l->rank);
	d[cs[2].b] = l->dims[cs[0].b] / bg;
	d[cs[2].f] = r->dims[cs[1].f];
	for (int k = 0; k < nsp; k++)
		d[cs[2].sp[k]] = out[k];
	return 1;
}


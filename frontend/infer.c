/* Shape inference: an instruction's result shape from its operands, as
 * XLA's ShapeInference computes it (xla/service/shape_inference.cc), for
 * the opcodes whose shape XLA's parser lets a text omit (hlo_parser.cc
 * CanInferShape).  The parser uses it where the text omits a result shape;
 * the checks compare it with the shape written.  Two rules are stricter
 * than ShapeInference, as HloVerifier is: elementwise operands have one
 * shape (no implicit broadcast), and floating-point precisions may mix
 * (the result takes the wider) but other element types may not. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/infer_internal.h"

/* ---- elementwise ------------------------------------------------------ */

enum { U_FLOAT, U_FLOAT_COMPLEX, U_PART, U_ABS, U_INT, U_NUMBER, U_SIGN,
       U_NOT, U_FINITE, U_ANY };

/* Unary opcodes and the element types each takes (InferUnaryOpShape). */
static const struct unary {
	const char *name;
	int rule;
} unaries[] = {
	{"abs", U_ABS}, {"acos", U_FLOAT_COMPLEX}, {"acosh", U_FLOAT_COMPLEX},
	{"asin", U_FLOAT_COMPLEX}, {"asinh", U_FLOAT_COMPLEX},
	{"atanh", U_FLOAT_COMPLEX}, {"cbrt", U_FLOAT}, {"ceil", U_FLOAT},
	{"clz", U_INT}, {"copy", U_ANY}, {"cosh", U_FLOAT_COMPLEX},
	{"cosine", U_FLOAT_COMPLEX}, {"domain", U_ANY}, {"erf", U_FLOAT},
	{"exponential", U_FLOAT_COMPLEX},
	{"exponential-minus-one", U_FLOAT_COMPLEX}, {"floor", U_FLOAT},
	{"imag", U_PART}, {"is-finite", U_FINITE}, {"log", U_FLOAT_COMPLEX},
	{"log-plus-one", U_FLOAT_COMPLEX}, {"logistic", U_FLOAT_COMPLEX},
	{"negate", U_NUMBER}, {"not", U_NOT}, {"popcnt", U_INT},
	{"real", U_PART}, {"round-nearest-afz", U_FLOAT},
	{"round-nearest-even", U_FLOAT}, {"rsqrt", U_FLOAT_COMPLEX},
	{"sign", U_SIGN}, {"sine", U_FLOAT_COMPLEX},
	{"sinh", U_FLOAT_COMPLEX}, {"sqrt", U_FLOAT_COMPLEX},
	{"tan", U_FLOAT_COMPLEX}, {"tanh", U_FLOAT_COMPLEX},
};

static const struct unary *
find_unary(const char *name)
{
	for (size_t i = 0; i < sizeof unaries / sizeof unaries[0]; i++)
		if (unaries[i].name[0] == name[0] &&
		    !strcmp(unaries[i].name, name))
			return &unaries[i];
	return NULL;
}

/* The result type of a unary rule on t, or DT_INVALID when t is not one
 * it takes. */
static int
unary_type(int rule, int t)
{
	switch (rule) {
	case U_FLOAT:
		return inf_is_float(t) ? t : DT_INVALID;
	case U_FLOAT_COMPLEX:
		return inf_is_float(t) || inf_is_complex(t) ? t : DT_INVALID;
	case U_PART:
	case U_ABS:
		if (inf_is_complex(t))
			return t == DT_C64 ? DT_F32 : DT_F64;
		if (rule == U_PART)
			return inf_is_float(t) ? t : DT_INVALID;
		return inf_is_signed(t) ? t : DT_INVALID;
	case U_INT:
		return inf_is_int(t) ? t : DT_INVALID;
	case U_NUMBER:
		return inf_is_int(t) || inf_is_float(t) || inf_is_complex(t) ? t :
								   DT_INVALID;
	case U_SIGN:
		return inf_is_signed(t) || inf_is_complex(t) ? t : DT_INVALID;
	case U_NOT:
		return t == DT_PRED || inf_is_int(t) ? t : DT_INVALID;
	case U_FINITE:
		return inf_is_float(t) ? DT_PRED : DT_INVALID;
	default:
		return t;
	}
}

static int
infer_unary(const struct inf *x, int rule)
{
	const struct shape *s = inf_operand(x, 0);
	int t;

	if (rule == U_ANY)
		return inf_same(x, s);	/* copy, domain: any shape */
	if (!inf_need_array(x, 0))
		return -1;
	t = unary_type(rule, s->type);
	if (t == DT_INVALID)
		return inf_fail(x, "does not take elements of type %s",
			    dtype_name(s->type));
	return inf_like(x, s, t);
}

enum { B_ANY, B_ARITH, B_LOGIC, B_FLOAT, B_COMPLEX, B_COMPARE };

static const struct binary {
	const char *name;
	int rule;
} binaries[] = {
	{"add", B_ANY}, {"and", B_LOGIC}, {"atan2", B_FLOAT},
	{"compare", B_COMPARE}, {"complex", B_COMPLEX}, {"divide", B_ARITH},
	{"maximum", B_ANY}, {"minimum", B_ANY}, {"multiply", B_ANY},
	{"or", B_LOGIC}, {"power", B_ARITH}, {"remainder", B_ARITH},
	{"shift-left", B_ARITH}, {"shift-right-arithmetic", B_ARITH},
	{"shift-right-logical", B_ARITH}, {"subtract", B_ARITH},
	{"xor", B_LOGIC},
};

static const struct binary *
find_binary(const char *name)
{
	for (size_t i = 0; i < sizeof binaries / sizeof binaries[0]; i++)
		if (binaries[i].name[0] == name[0] &&
		    !strcmp(binaries[i].name, name))
			return &binaries[i];
	return NULL;
}

/* The element type rule of a binary opcode (InferBinaryOpShape). */
static int
binary_type_ok(int rule, int t)
{
	switch (rule) {
	case B_ARITH:
		return t != DT_PRED;
	case B_LOGIC:
		return t == DT_PRED || inf_is_int(t);
	case B_FLOAT:
		return inf_is_float(t) || inf_is_complex(t);
	case B_COMPLEX:
		return t == DT_F32 || t == DT_F64;
	default:
		return 1;
	}
}

static int
infer_binary(const struct inf *x, int rule)
{
	const struct shape *a = inf_operand(x, 0), *b = inf_operand(x, 1);
	int t;

	if (!inf_need_array(x, 0) || !inf_need_array(x, 1))
		return -1;
	if (!same_element_type(a->type, b->type) ||
	    (rule == B_COMPLEX && a->type != b->type))
		return inf_fail(x, "operands of different element types, %s and "
			    "%s", inf_text(x, a), inf_text(x, b));
	if (!binary_type_ok(rule, a->type))
		return inf_fail(x, "does not take elements of type %s",
			    dtype_name(a->type));
	if (!inf_same_dims(a, b))
		return inf_fail(x, "operands of different shapes, %s and %s (HLO "
			    "has no implicit broadcast)", inf_text(x, a),
			    inf_text(x, b));
	t = inf_wider(a->type, b->type);
	if (rule == B_COMPARE)
		t = DT_PRED;
	else if (rule == B_COMPLEX)
		t = a->type == DT_F32 ? DT_C64 : DT_C128;
	inf_like(x, a, t);
	inf_merge_bounded(x, b);
	return 1;
}

/* select(pred, on_true, on_false): pred is PRED, scalar or of their
 * shape (InferSelectShape). */
static int
infer_select(const struct inf *x)
{
	const struct shape *p = inf_operand(x, 0), *a = inf_operand(x, 1),
			   *b = inf_operand(x, 2);

	for (int k = 0; k < 3; k++)
		if (!inf_need_array(x, k))
			return -1;
	if (!same_element_type(a->type, b->type) || !inf_same_dims(a, b))
		return inf_fail(x, "on_true and on_false differ, %s and %s",
			    inf_text(x, a), inf_text(x, b));
	if (p->type != DT_PRED)
		return inf_fail(x, "the predicate, %s, is not pred", inf_text(x, p));
	if (p->rank != 0 && !inf_same_dims(p, a))
		return inf_fail(x, "the predicate, %s, has not the shape of the "
			    "values, %s", inf_text(x, p), inf_text(x, a));
	return inf_like(x, a, inf_wider(a->type, b->type));
}

/* clamp(min, operand, max): min and max scalar or of its shape. */
static int
infer_clamp(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 1);

	for (int k = 0; k < 3; k++) {
		const struct shape *b = inf_operand(x, k);

		if (!inf_need_array(x, k))
			return -1;
		if (!same_element_type(b->type, s->type) ||
		    (b->rank != 0 && !inf_same_dims(b, s)))
			return inf_fail(x, "operands of incompatible shapes, %s, "
				    "%s and %s", inf_text(x, inf_operand(x, 0)),
				    inf_text(x, s), inf_text(x, inf_operand(x, 2)));
	}
	return inf_like(x, s, s->type);
}

/* ---- tuples and calls ------------------------------------------------- */

/* A tuple of its operands' shapes, layouts as they are. */
static int
infer_tuple(const struct inf *x)
{
	struct shape *e = pool_alloc(x->P->pool, sizeof *e *
				     (size_t)(x->in->nops + 1));

	for (int k = 0; k < x->in->nops; k++)
		e[k] = *inf_operand(x, k);
	memset(x->out, 0, sizeof *x->out);
	x->out->type = DT_TUPLE;
	x->out->nelem = x->in->nops;
	x->out->elems = e;
	return 1;
}

static int
infer_gte(const struct inf *x)
{
	const struct shape *t = inf_operand(x, 0);

	if (!shape_is_tuple(t) || x->in->index < 0 ||
	    x->in->index >= t->nelem)
		return inf_fail(x, "index=%lld is out of range for %s",
			    (long long)x->in->index, inf_text(x, t));
	return inf_same(x, &t->elems[x->in->index]);
}

/* call, conditional: the root of what they call. */
static int
infer_callee(const struct inf *x, const char *key)
{
	const struct shape *r = inf_callee_root(x, key);

	if (!r)
		return 0;	/* none: the name checks reported it */
	return inf_same(x, r);
}

static int
infer_conditional(const struct inf *x)
{
	if (x->in->ncall < 1)
		return 0;
	return infer_callee(x, x->in->callkey[0]);
}

/* ---- data movement ---------------------------------------------------- */

/* XLA's parser infers a broadcast as its operand's dimensions after the
 * listed sizes; only a scalar with dimensions={} gives a valid one. */
static int
infer_broadcast(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0);
	int64_t *v;

	if (!inf_need_array(x, 0))
		return -1;
	if (s->rank != 0 || inf_attr_list(x, "dimensions", 0, &v) > 0)
		return 0;
	return inf_like(x, s, s->type);
}

static int
infer_transpose(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0);
	int64_t *v, *d;
	int n = inf_attr_list(x, "dimensions", 1, &v);

	if (n < 0 || !inf_need_array(x, 0))
		return -1;
	if (n != s->rank)
		return inf_fail(x, "dimensions={...} lists %d dimensions for an "
			    "operand of rank %d", n, s->rank);
	if (!inf_dims_ok(x, "dimensions", v, n, s->rank))
		return -1;
	d = inf_make_array(x, s->type, n);
	for (int i = 0; i < n; i++)
		d[i] = s->dims[v[i]];
	return 1;
}

static int
infer_reverse(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0);
	int64_t *v;
	int n = inf_attr_list(x, "dimensions", 1, &v);

	if (n < 0 || !inf_need_array(x, 0))
		return -1;
	if (!inf_dims_ok(x, "dimensions", v, n, s->rank))
		return -1;
	return inf_like(x, s, s->type);
}

static int
infer_concatenate(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0);
	int64_t *v, *d;
	int t = s->type, n = inf_attr_list(x, "dimensions", 1, &v);

	if (n < 0 || !inf_need_array(x, 0))
		return -1;
	if (n != 1)
		return inf_fail(x, "dimensions={...} lists %d dimensions, not 1",
			    n);
	if (!inf_dims_ok(x, "dimensions", v, 1, s->rank))
		return -1;
	d = inf_make_array(x, t, s->rank);
	for (int i = 0; i < s->rank; i++)
		d[i] = i == v[0] ? 0 : s->dims[i];
	for (int k = 0; k < x->in->nops; k++) {
		const struct shape *o = inf_operand(x, k);

		if (!inf_need_array(x, k))
			return -1;
		if (!same_element_type(o->type, t) || o->rank != s->rank)
			return inf_fail(x, "operands %s and %s do not concatenate",
				    inf_text(x, s), inf_text(x, o));
		for (int i = 0; i < s->rank; i++)
			if (i != v[0] && o->dims[i] != s->dims[i])
				return inf_fail(x, "operands %s and %s differ in "
					    "dimension %d", inf_text(x, s),
					    inf_text(x, o), i);
		d[v[0]] += o->dims[v[0]];
		t = inf_wider(t, o->type);
	}
	x->out->type = t;
	return 1;
}

/* padding=lo_hi[_interior]x... for each dimension (PaddingConfig). */
static int
read_padding(const struct inf *x, int rank, int64_t (*pad)[3])
{
	const struct attr *a = instr_attr(x->in, "padding");
	const char *p, *end;

	if (!a)
		return inf_fail(x, "needs padding=lo_hi[_interior]x...");
	p = a->val;
	end = a->val + a->vlen;
	for (int i = 0; i < rank; i++) {
		pad[i][2] = 0;
		if ((i && !skip_to(&p, end, 'x')) ||
		    !read_int(&p, end, &pad[i][0]) || !skip_to(&p, end, '_') ||
		    !read_int(&p, end, &pad[i][1]) ||
		    (skip_to(&p, end, '_') && !read_int(&p, end, &pad[i][2])))
			return inf_fail(x, "padding=%.*s does not give lo_hi or "
				    "lo_hi_interior for each of %d dimensions",
				    a->vlen > 60 ? 60 : a->vlen, a->val, rank);
	}
	if (p != end)
		return inf_fail(x, "padding=%.*s does not give lo_hi or "
			    "lo_hi_interior for each of %d dimensions",
			    a->vlen > 60 ? 60 : a->vlen, a->val, rank);
	return 1;
}

static int
infer_pad(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0), *v = inf_operand(x, 1);
	int64_t(*pad)[3], *d;

	if (!inf_need_array(x, 0) || !inf_need_array(x, 1))
		return -1;
	if (v->rank != 0 || !same_element_type(s->type, v->type))
		return inf_fail(x, "the padding value, %s, is not a scalar of the "
			    "operand's type", inf_text(x, v));
	pad = pool_alloc(x->P->pool, sizeof *pad * (size_t)(s->rank + 1));
	if (read_padding(x, s->rank, pad) < 0)
		return -1;
	d = inf_make_array(x, inf_wider(s->type, v->type), s->rank);
	for (int i = 0; i < s->rank; i++) {
		int64_t n = s->dims[i];

		if (pad[i][2] < 0)
			return inf_fail(x, "interior padding must not be "
				    "negative");
		d[i] = n + pad[i][0] + pad[i][1] + (n ? n - 1 : 0) * pad[i][2];
		if (d[i] < 0)
			return inf_fail(x, "padding makes dimension %d negative",
				    i);
	}
	return 1;
}

/* ---- dot -------------------------------------------------------------- */

struct dotdims {
	int nlc, nrc, nlb, nrb;
	int64_t *lc, *rc, *lb, *rb;
};

static int
read_dotdims(const struct inf *x, struct dotdims *dd)
{
	const struct shape *l = inf_operand(x, 0), *r = inf_operand(x, 1);

	dd->nlc = inf_attr_list(x, "lhs_contracting_dims", 0, &dd->lc);
	dd->nrc = inf_attr_list(x, "rhs_contracting_dims", 0, &dd->rc);
	dd->nlb = inf_attr_list(x, "lhs_batch_dims", 0, &dd->lb);
	dd->nrb = inf_attr_list(x, "rhs_batch_dims", 0, &dd->rb);
	dd->nlc = dd->nlc < 0 ? 0 : dd->nlc;
	dd->nrc = dd->nrc < 0 ? 0 : dd->nrc;
	dd->nlb = dd->nlb < 0 ? 0 : dd->nlb;
	dd->nrb = dd->nrb < 0 ? 0 : dd->nrb;
	if (!inf_dims_ok(x, "lhs_contracting_dims", dd->lc, dd->nlc, l->rank) ||
	    !inf_dims_ok(x, "rhs_contracting_dims", dd->rc, dd->nrc, r->rank) ||
	    !inf_dims_ok(x, "lhs_batch_dims", dd->lb, dd->nlb, l->rank) ||
	    !inf_dims_ok(x, "rhs_batch_dims", dd->rb, dd->nrb, r->rank))
		return -1;
	for (int i = 0; i < dd->nlb; i++)
		if (inf_listed(dd->lc, dd->nlc, dd->lb[i]) ||
		    (i < dd->nrb && inf_listed(dd->rc, dd->nrc, dd->rb[i])))
			return inf_fail(x, "a batch dimension is also contracting");
	return 1;
}

/* Pairs of dimensions that must be equal: contracting, then batch. */
static int
dot_pairs(const struct inf *x, const struct dotdims *dd)
{
	const struct shape *l = inf_operand(x, 0), *r = inf_operand(x, 1);

	if (dd->nlc != dd->nrc || dd->nlb != dd->nrb)
		return inf_fail(x, "lhs and rhs have %d and %d %s dimensions",
			    dd->nlc != dd->nrc ? dd->nlc : dd->nlb,
			    dd->nlc != dd->nrc ? dd->nrc : dd->nrb,
			    dd->nlc != dd->nrc ? "contracting" : "batch");
	for (int i = 0; i < dd->nlc; i++)
		if (l->dims[dd->lc[i]] != r->dims[dd->rc[i]])
			return inf_fail(x, "contracting dimensions of %s and %s "
				    "differ", inf_text(x, l), inf_text(x, r));
	for (int i = 0; i < dd->nlb; i++)
		if (l->dims[dd->lb[i]] != r->dims[dd->rb[i]])
			return inf_fail(x, "batch dimensions of %s and %s differ",
				    inf_text(x, l), inf_text(x, r));
	return 1;
}

/* Batch dimensions, then lhs's free ones, then rhs's (InferDotOpShape).
 * The element type is the wider operand's; XLA lets the text choose it. */
static int
infer_dot(const struct inf *x)
{
	const struct shape *l = inf_operand(x, 0), *r = inf_operand(x, 1);
	struct dotdims dd;
	int64_t *d;
	int n = 0;

	if (!inf_need_array(x, 0) || !inf_need_array(x, 1) ||
	    read_dotdims(x, &dd) < 0 || dot_pairs(x, &dd) < 0)
		return -1;
	d = inf_make_array(x, inf_wider(l->type, r->type),
		       l->rank + r->rank - dd.nlc - dd.nrc - dd.nrb);
	for (int i = 0; i < dd.nlb; i++)
		d[n++] = l->dims[dd.lb[i]];
	for (int i = 0; i < l->rank; i++)
		if (!inf_listed(dd.lc, dd.nlc, i) && !inf_listed(dd.lb, dd.nlb, i))
			d[n++] = l->dims[i];
	for (int i = 0; i < r->rank; i++)
		if (!inf_listed(dd.rc, dd.nrc, i) && !inf_listed(dd.rb, dd.nrb, i))
			d[n++] = r->dims[i];
	return 1;
}

/* A scale of 1 in the operand's bf16, every dimension 1: no scale
 * (XLA's IsNoOpScale). */
static int
noop_scale(const struct shape *o, const struct shape *s)
{
	int all1 = 1, any = 0;

	if (s->type != o->type || o->type != DT_BF16)
		return 0;
	for (int i = 0; i < s->rank; i++)
		all1 &= s->dims[i] == 1;
	for (int i = 0; i < o->rank; i++)
		any |= o->dims[i] != 1;
	return all1 && any;
}

/* Operand k's scale, operand k + 2: of its rank, one contracting
 * dimension, each dimension dividing the operand's (ScalesShapeVerifier). */
static int
scale_ok(const struct inf *x, int k, int ncontract)
{
	const struct shape *o = inf_operand(x, k), *s = inf_operand(x, k + 2);

	if (noop_scale(o, s))
		return 1;
	if (s->rank != o->rank)
		return inf_fail(x, "scale %s has %d dimensions, its operand %s "
			    "has %d", inf_text(x, s), s->rank, inf_text(x, o),
			    o->rank);
	if (ncontract != 1)
		return inf_fail(x, "operand %d has %d contracting dimensions, a "
			    "scaled dot takes one", k, ncontract);
	for (int i = 0; i < o->rank; i++)
		if (!s->dims[i] || o->dims[i] % s->dims[i])
			return inf_fail(x, "dimension %d of operand %d, %s, is not "
				    "a multiple of its scale's, %s", i, k,
				    inf_text(x, o), inf_text(x, s));
	return 1;
}

/* scaled-dot(lhs, rhs, lhs_scale, rhs_scale): a dot of lhs and rhs, each
 * scaled blockwise (XLA's ShapeVerifier::HandleScaledDot). */
static int
infer_scaled_dot(const struct inf *x)
{
	struct dotdims dd;

	for (int k = 0; k < 4; k++)
		if (!inf_need_array(x, k))
			return -1;
	if (read_dotdims(x, &dd) < 0 || scale_ok(x, 0, dd.nlc) < 0 ||
	    scale_ok(x, 1, dd.nrc) < 0)
		return -1;
	if (!inf_operand(x, 2)->rank && !inf_operand(x, 3)->rank)
		return inf_fail(x, "both scales are scalars: at least one must not "
			    "be");
	return infer_dot(x);
}

/* ---- reductions ------------------------------------------------------- */

/* The element type of leaf i of the reducer's root, or DT_INVALID. */
static int
reducer_type(const struct shape *root, int i, int n)
{
	if (n == 1 && !shape_is_tuple(root))
		return root->type;
	if (!shape_is_tuple(root) || root->nelem != n ||
	    shape_is_tuple(&root->elems[i]))
		return DT_INVALID;
	return root->elems[i].type;
}

/* *out becomes n arrays of dims d (rank r) of the reducer's types: one
 * array, or a tuple of them. */
static int
reduced(const struct inf *x, const struct shape *root, int n,
	const int64_t *d, const uint8_t *dyn, int r)
{
	struct shape *e = pool_alloc(x->P->pool, sizeof *e * (size_t)n);

	for (int i = 0; i < n; i++) {
		int t = reducer_type(root, i, n);

		if (t == DT_INVALID)
			return inf_fail(x, "its reducer returns %s for %d input%s",
				    inf_text(x, root), n, n == 1 ? "" : "s");
		memcpy(inf_array_of(x->P->pool, &e[i], t, r), d,
		       sizeof(int64_t) * (size_t)r);
		e[i].dyn = (uint8_t *)dyn;
	}
	if (n == 1 && !shape_is_tuple(root))
		return inf_same(x, &e[0]);
	memset(x->out, 0, sizeof *x->out);
	x->out->type = DT_TUPLE;
	x->out->nelem = n;
	x->out->elems = e;
	return 1;
}


static int
infer_reduce(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0);
	const struct shape *root = inf_callee_root(x, "to_apply");
	int64_t *v, *d;
	uint8_t *dyn;
	int n = x->in->nops / 2, r = 0;
	int nd = inf_attr_list(x, "dimensions", 1, &v);

	if (nd < 0 || inf_inputs_ok(x, n) < 0)
		return -1;
	if (!inf_dims_ok(x, "dimensions", v, nd, s->rank))
		return -1;
	if (!root)
		return 0;
	d = pool_alloc(x->P->pool, sizeof *d * (size_t)(s->rank + 1));
	dyn = s->dyn ? pool_alloc(x->P->pool, (size_t)s->rank + 1) : NULL;
	for (int i = 0; i < s->rank; i++)
		if (!inf_listed(v, nd, i)) {
			if (dyn)
				dyn[r] = s->dyn[i];
			d[r++] = s->dims[i];
		}
	return reduced(x, root, n, d, dyn, r);
}

/* map: the operands' dimensions, the element type of to_apply's root. */
static int
infer_map(const struct inf *x)
{
	const struct shape *root = inf_callee_root(x, "to_apply"), *s;

	if (x->in->nops < 1)
		return inf_fail(x, "takes at least one operand");
	s = inf_operand(x, 0);
	for (int k = 0; k < x->in->nops; k++)
		if (!inf_need_array(x, k))
			return -1;
		else if (!inf_same_dims(s, inf_operand(x, k)))
			return inf_fail(x, "operands of different shapes, %s and "
				    "%s", inf_text(x, s), inf_text(x, inf_operand(x, k)));
	if (!root || !inf_is_array(root) || root->rank != 0)
		return 0;	/* XLA's verifier rejects it; its parser not */
	return inf_like(x, s, root->type);
}

/* sort: its operand, or a tuple of its operands, all of one dimensions. */
static int
infer_sort(const struct inf *x)
{
	const struct shape *s;
	int64_t *v;
	int n = inf_attr_list(x, "dimensions", 1, &v);

	if (n < 0 || x->in->nops < 1)
		return x->in->nops < 1 ? inf_fail(x, "takes at least one operand") :
					 -1;
	s = inf_operand(x, 0);
	if (n != 1)
		return inf_fail(x, "dimensions={...} lists %d dimensions, not 1",
			    n);
	for (int k = 0; k < x->in->nops; k++)
		if (!inf_need_array(x, k))
			return -1;
		else if (!inf_same_dims(s, inf_operand(x, k)))
			return inf_fail(x, "operands of different dimensions, %s "
				    "and %s", inf_text(x, s),
				    inf_text(x, inf_operand(x, k)));
	if (!inf_dims_ok(x, "dimensions", v, 1, s->rank))
		return -1;
	return x->in->nops == 1 ? inf_like(x, s, s->type) : infer_tuple(x);
}

/* ---- small ones ------------------------------------------------------- */

static int
scalar(const struct inf *x, int type)
{
	inf_make_array(x, type, 0);
	return 1;
}

static int
infer_dimension_size(const struct inf *x)
{
	const struct shape *s = inf_operand(x, 0);
	int64_t *v;
	int n = inf_attr_list(x, "dimensions", 1, &v);

	if (n < 0 || !inf_need_array(x, 0))
		return -1;
	if (n != 1)
		return inf_fail(x, "dimensions={...} lists %d dimensions, not 1",
			    n);
	if (!inf_dims_ok(x, "dimensions", v, 1, s->rank))
		return -1;
	return scalar(x, DT_S32);
}

/* Opcodes the generic enum leaves as OP_OTHER, by name. */
static int
infer_named(const struct inf *x)
{
	const char *name = x->in->op->name;
	const struct unary *u = find_unary(name);
	const struct binary *b = find_binary(name);

	if (u && x->in->nops == 1)
		return infer_unary(x, u->rule);
	if (b && x->in->nops == 2)
		return infer_binary(x, b->rule);
	if (!strcmp(name, "partition-id") || !strcmp(name, "replica-id"))
		return scalar(x, DT_U32);
	if (!strcmp(name, "get-dimension-size") && x->in->nops == 1)
		return infer_dimension_size(x);
	if (!strcmp(name, "convolution") && x->in->nops == 2)
		return infer_convolution(x);
	return 0;
}

/* Operand counts that agree.c checks; 0 here when they are wrong. */
static int
infer_op(const struct inf *x)
{
	int n = x->in->nops;

	switch (x->in->op->op) {
	case OP_COPY: case OP_DOMAIN:
		return n == 1 ? infer_unary(x, U_ANY) : 0;
	case OP_COMPARE:
		return n == 2 ? infer_binary(x, B_COMPARE) : 0;
	case OP_SELECT:
		return n == 3 ? infer_select(x) : 0;
	case OP_CLAMP:
		return n == 3 ? infer_clamp(x) : 0;
	case OP_TUPLE:
		return infer_tuple(x);
	case OP_GTE:
		return n == 1 ? infer_gte(x) : 0;
	case OP_WHILE: case OP_OPT_BARRIER:
		return n == 1 ? inf_same(x, inf_operand(x, 0)) : 0;
	case OP_ADD_DEPENDENCY:
		return n == 2 ? inf_same(x, inf_operand(x, 0)) : 0;
	case OP_CALL:
		return infer_callee(x, "to_apply");
	case OP_CONDITIONAL:
		return infer_conditional(x);
	case OP_AFTER_ALL:
		return scalar(x, DT_TOKEN);
	case OP_BROADCAST:
		return n == 1 ? infer_broadcast(x) : 0;
	case OP_TRANSPOSE:
		return n == 1 ? infer_transpose(x) : 0;
	case OP_REVERSE:
		return n == 1 ? infer_reverse(x) : 0;
	case OP_CONCATENATE:
		return n >= 1 ? infer_concatenate(x) : 0;
	case OP_PAD:
		return n == 2 ? infer_pad(x) : 0;
	case OP_DOT:
		if (!strcmp(x->in->op->name, "scaled-dot"))
			return n == 4 ? infer_scaled_dot(x) : 0;
		return n == 2 ? infer_dot(x) : 0;
	case OP_REDUCE:
		return infer_reduce(x);
	case OP_MAP:
		return infer_map(x);
	case OP_SORT:
		return infer_sort(x);
	case OP_REDUCE_WINDOW:
		return infer_reduce_window(x);
	case OP_OTHER:
		return infer_named(x);
	default:
		return 0;
	}
}

/* Ops that pass shapes on whole: a dynamic dimension goes through them
 * as it is. */
static int
moves_shapes(const struct instr *in)
{
	switch (in->op->op) {
	case OP_TUPLE:
	case OP_GTE:
	case OP_WHILE:
	case OP_CALL:
	case OP_CONDITIONAL:
	case OP_COPY:
	case OP_OPT_BARRIER:
	case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
		return 1;
	default:
		return 0;
	}
}

/* Ops whose result keeps an operand's bounded dimensions as they are:
 * elementwise ones and reduce (its kept dimensions). */
static int
keeps_bounds(const struct instr *in)
{
	const char *name = in->op->name;

	if (in->op->op == OP_COMPARE || in->op->op == OP_REDUCE)
		return 1;
	return in->op->op == OP_OTHER &&
	       ((find_unary(name) && in->nops == 1) ||
		(find_binary(name) && in->nops == 2));
}

/* Whether operand s's dynamic dimensions are ones in infers through:
 * bounded ones (<=N) through keeps_bounds's ops; any through ops that
 * move shapes whole. */
static int
dynamic_ok(const struct instr *in, const struct shape *s)
{
	if (!shape_is_dynamic(s) || moves_shapes(in))
		return 1;
	if (!keeps_bounds(in) || shape_is_tuple(s))
		return 0;
	for (int i = 0; i < s->rank; i++)
		if (s->dyn[i] == DIM_UNKNOWN)
			return 0;
	return 1;
}

/* Other shapes with dynamic dimensions are left to XLA: hloplan sizes
 * them by their bounds and does not infer them. */
int
infer_shape(struct parser *P, const struct module *m, const struct comp *c,
	    const struct instr *in, struct shape *out)
{
	struct inf x = {P, m, c, in, out};

	if (!in->op)
		return 0;
	for (int k = 0; k < in->nops; k++)
		if (in->ops[k] < 0 || inf_operand(&x, k)->type == DT_INVALID ||
		    !dynamic_ok(in, inf_operand(&x, k)))
			return 0;
	return infer_op(&x);
}

/* Shape inference's helpers: element types, shapes and attributes read
 * as ShapeInference needs them (see infer.c). */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/infer_internal.h"

/* ---- element types ---------------------------------------------------- */

int
inf_is_float(int t)
{
	return t == DT_F16 || t == DT_BF16 || t == DT_F32 || t == DT_F64 ||
	       (t >= DT_F8E5M2 && t <= DT_F4E2M1FN);
}

int
inf_is_complex(int t)
{
	return t == DT_C64 || t == DT_C128;
}

int
inf_is_int(int t)
{
	return t >= DT_S2 && t <= DT_U64;
}

/* XLA's ElementIsSigned: signed integers and floating point. */
int
inf_is_signed(int t)
{
	return (t >= DT_S2 && t <= DT_S64) || inf_is_float(t);
}

int
same_element_type(int a, int b)
{
	return a == b || (inf_is_float(a) && inf_is_float(b));
}

/* HigherPrecisionElementType: the wider of two floating-point types. */
int
inf_wider(int a, int b)
{
	return dtype_bits(b) > dtype_bits(a) ? b : a;
}

/* ---- shapes ----------------------------------------------------------- */

const struct shape *
inf_operand(const struct inf *x, int k)
{
	return &x->c->instrs[x->in->ops[k]].shape;
}

int
inf_is_array(const struct shape *s)
{
	return s->type != DT_TUPLE && s->type != DT_TOKEN &&
	       s->type != DT_OPAQUE && s->type != DT_INVALID;
}

int
inf_same_dims(const struct shape *a, const struct shape *b)
{
	if (a->rank != b->rank)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	return 1;
}

/* o becomes an array of type with rank dimensions, to be filled. */
int64_t *
inf_array_of(struct pool *pool, struct shape *o, int type, int rank)
{
	memset(o, 0, sizeof *o);
	o->type = type;
	o->rank = rank;
	o->dims = pool_alloc(pool, sizeof(int64_t) * (size_t)(rank + 1));
	return o->dims;
}

int64_t *
inf_make_array(const struct inf *x, int type, int rank)
{
	return inf_array_of(x->P->pool, x->out, type, rank);
}

/* *out becomes s's type and dimensions (bounded ones too), with type t,
 * without a layout. */
int
inf_like(const struct inf *x, const struct shape *s, int t)
{
	int64_t *d = inf_make_array(x, t, s->rank);

	for (int i = 0; i < s->rank; i++)
		d[i] = s->dims[i];
	if (s->dyn) {
		x->out->dyn = pool_alloc(x->P->pool, (size_t)s->rank + 1);
		memcpy(x->out->dyn, s->dyn, (size_t)s->rank);
	}
	return 1;
}

/* A dimension of *out is bounded where s's is (XLA's elementwise ops: the
 * result is dynamic where either operand is). */
void
inf_merge_bounded(const struct inf *x, const struct shape *s)
{
	if (!s->dyn)
		return;
	if (!x->out->dyn)
		x->out->dyn = pool_alloc(x->P->pool, (size_t)s->rank + 1);
	for (int i = 0; i < s->rank; i++)
		if (s->dyn[i] != DIM_STATIC)
			x->out->dyn[i] = s->dyn[i];
}

/* *out becomes s as it is, tuples included. */
int
inf_same(const struct inf *x, const struct shape *s)
{
	*x->out = *s;
	return 1;
}

const char *
inf_text(const struct inf *x, const struct shape *s)
{
	return shape_text(x->P->pool, s);
}

/* Reports "opcode 'name': msg" at the instruction; returns -1. */
int
inf_fail(const struct inf *x, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(x->P->ds, x->in->loc, "%s '%s': %s", x->in->op->name,
		   x->in->name, msg);
	return -1;
}

int
inf_need_array(const struct inf *x, int k)
{
	if (inf_is_array(inf_operand(x, k)))
		return 1;
	inf_fail(x, "operand %d, %s, is not an array", k,
		 inf_text(x, inf_operand(x, k)));
	return 0;
}

/* ---- attributes ------------------------------------------------------- */

/* The list attribute key ("{1,2}"): its count, or -1 when absent (and
 * required: reported) or not a list of numbers (reported). */
int
inf_attr_list(const struct inf *x, const char *key, int required, int64_t **v)
{
	const struct attr *a = instr_attr(x->in, key);
	const char *p;
	int n;

	*v = NULL;
	if (!a) {
		if (required)
			inf_fail(x, "needs %s={...}", key);
		return -1;
	}
	p = a->val;
	n = read_index(x->P->pool, &p, a->val + a->vlen, v);
	if (n < 0 || p != a->val + a->vlen) {
		diag_error(x->P->ds, a->loc, "%s: expected a list of numbers "
			   "in braces", key);
		return -1;
	}
	return n;
}

/* Dimension numbers v[0..n) each in [0, rank) and none twice. */
int
inf_dims_ok(const struct inf *x, const char *key, const int64_t *v, int n,
	int rank)
{
	for (int i = 0; i < n; i++) {
		if (v[i] < 0 || v[i] >= rank) {
			inf_fail(x, "%s lists dimension %lld, out of range for "
			     "rank %d", key, (long long)v[i], rank);
			return 0;
		}
		for (int j = 0; j < i; j++)
			if (v[j] == v[i]) {
				inf_fail(x, "%s lists dimension %lld twice", key,
				     (long long)v[i]);
				return 0;
			}
	}
	return 1;
}

int
inf_listed(const int64_t *v, int n, int64_t d)
{
	for (int i = 0; i < n; i++)
		if (v[i] == d)
			return 1;
	return 0;
}

/* The root shape of the computation in calls under key, or NULL. */
const struct shape *
inf_callee_root(const struct inf *x, const char *key)
{
	for (int j = 0; j < x->in->ncall; j++) {
		const struct comp *d = &x->m->comps[x->in->calls[j]];

		if (!strcmp(x->in->callkey[j], key) && d->root >= 0)
			return &d->instrs[d->root].shape;
	}
	return NULL;
}

/* Inputs 0..n-1 are arrays of one dimensions; n init values follow. */
int
inf_inputs_ok(const struct inf *x, int n)
{
	if (x->in->nops < 2 || x->in->nops % 2)
		return inf_fail(x, "takes inputs and as many init values, not %d "
			    "operands", x->in->nops);
	for (int k = 0; k < 2 * n; k++)
		if (!inf_need_array(x, k))
			return -1;
	for (int k = 1; k < n; k++)
		if (!inf_same_dims(inf_operand(x, 0), inf_operand(x, k)))
			return inf_fail(x, "inputs %s and %s differ",
				    inf_text(x, inf_operand(x, 0)),
				    inf_text(x, inf_operand(x, k)));
	return 1;
}

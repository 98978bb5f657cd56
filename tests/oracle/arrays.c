/* The oracle's array ops on row-major data: elementwise arithmetic,
 * compare, select, clamp, convert, iota, broadcast, reshape, transpose,
 * slice, concatenate, pad, reverse, dot, reduce, map, dynamic-slice and
 * dynamic-update-slice (XLA's operation semantics; starts are clamped). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/arrays.h"

const struct shape *
node_shape(const struct shape *s, int node)
{
	while (node > 0) {
		int e = 0;

		node--;
		while (node >= shape_nodes(&s->elems[e]))
			node -= shape_nodes(&s->elems[e++]);
		s = &s->elems[e];
	}
	return s;
}

int64_t
node_bytes(const struct shape *s)
{
	return shape_is_tuple(s) ? 8 * (int64_t)s->nelem : shape_bytes(s);
}

/* ---- attributes --------------------------------------------------------- */

_Noreturn void
bad_attr(struct op *o, const char *key)
{
	interp_fail(o->st, INTERP_SKIP, "'%s' (%s): cannot read %s=",
		    o->in->name, o->in->op->name, key);
}

/* The text of attribute key, NUL-terminated in buf; NULL when absent. */
const char *
attr_text(struct op *o, const char *key, char *buf, size_t n)
{
	const struct attr *a = instr_attr(o->in, key);

	if (!a)
		return NULL;
	if ((size_t)a->vlen >= n)
		bad_attr(o, key);
	memcpy(buf, a->val, (size_t)a->vlen);
	buf[a->vlen] = 0;
	return buf;
}

/* The integers in attribute key ({1,0}, 3, ...): their count, or -1 when
 * it is absent. */
int
attr_ints(struct op *o, const char *key, int64_t *v, int max)
{
	const struct attr *a = instr_attr(o->in, key);
	const char *p, *end;
	int n = 0;

	if (!a)
		return -1;
	for (p = a->val, end = a->val + a->vlen; p < end;) {
		int64_t x = 0, sign = 1;

		if (*p == '-' && p + 1 < end && isdigit((unsigned char)p[1])) {
			sign = -1;
			p++;
		}
		if (!isdigit((unsigned char)*p)) {
			p++;
			continue;
		}
		for (; p < end && isdigit((unsigned char)*p); p++)
			x = x * 10 + (*p - '0');
		if (n == max)
			bad_attr(o, key);
		v[n++] = sign * x;
	}
	return n;
}

/* A list attribute the op needs: exactly `want` integers (want < 0: any
 * number); absent counts as empty when `optional`. */
int
need_ints(struct op *o, const char *key, int64_t *v, int want, int optional)
{
	int n = attr_ints(o, key, v, want >= 0 ? want : MAXRANK);

	if (n < 0 && optional)
		n = 0;
	if (n < 0 || (want >= 0 && n != want))
		bad_attr(o, key);
	for (int k = 0; k < n; k++)
		if (v[k] < 0)
			bad_attr(o, key);
	return n;
}

/* ---- indices ------------------------------------------------------------ */

int
next_index(int64_t *idx, const int64_t *dims, int rank)
{
	for (int k = rank - 1; k >= 0; k--) {
		if (++idx[k] < dims[k])
			return 1;
		idx[k] = 0;
	}
	return 0;
}

void
strides(const struct shape *s, int64_t *st)
{
	int64_t n = 1;

	for (int k = s->rank - 1; k >= 0; k--) {
		st[k] = n;
		n *= s->dims[k];
	}
}

int64_t
elems(const struct shape *s)
{
	return shape_elements(s);
}

/* One element: a copy of constant size for the usual widths, which the
 * compiler makes a move (this is the inner loop of most data movement). */
void
copy_elem(unsigned char *dst, int64_t di, const unsigned char *src,
	  int64_t si, int es)
{
	switch (es) {
	case 1: dst[di] = src[si]; break;
	case 2: memmove(dst + di * 2, src + si * 2, 2); break;
	case 4: memmove(dst + di * 4, src + si * 4, 4); break;
	case 8: memmove(dst + di * 8, src + si * 8, 8); break;
	default: memmove(dst + di * es, src + si * es, (size_t)es); break;
	}
}

/* Element 0 of src into each of the n elements at dst, by doubling. */
static void
splat(unsigned char *dst, const unsigned char *src, int64_t n, int es)
{
	int64_t done = n > 0;

	if (n > 0)
		memmove(dst, src, (size_t)es);
	for (; done < n; done *= 2)
		memcpy(dst + done * es, dst, (size_t)(es * (done < n - done ?
							    done : n - done)));
}

static void
check_rank(struct op *o)
{
	if (o->in->shape.rank > MAXRANK)
		interp_fail(o->st, INTERP_SKIP, "'%s': rank over %d",
			    o->in->name, MAXRANK);
	for (int k = 0; k < o->in->nops; k++)
		if (o->as[k]->rank > MAXRANK)
			interp_fail(o->st, INTERP_SKIP, "'%s': rank over %d",
				    o->in->name, MAXRANK);
}

/* Operand k has the output's rank and dimensions, except dimension
 * `skip` (-1: none). */
static void
same_dims(struct op *o, int k, int skip)
{
	const struct shape *os = &o->in->shape, *s = o->as[k];

	for (int d = 0; d < os->rank && s->rank == os->rank; d++)
		if (d != skip && s->dims[d] != os->dims[d])
			goto bad;
	if (s->rank == os->rank)
		return;
bad:
	interp_fail(o->st, INTERP_SKIP, "'%s': operand %d does not fit the "
		    "output", o->in->name, k);
}

/* Per operand of an elementwise op: 1, or 0 for an operand of one
 * element, which stands for every index (clamp, select). */
static void
steps(struct op *o, int64_t *st)
{
	for (int k = 0; k < o->in->nops && k < 3; k++)
		st[k] = elems(o->as[k]) != 1;
}

/* ---- elementwise -------------------------------------------------------- */

static void
elementwise(struct op *o, int op)
{
	const struct shape *os = &o->in->shape;
	int64_t n = elems(os);
	int dt = o->as[0]->type, two = op >= EW_NUNARY;
	int64_t st[3] = {1, 1, 1};

	if (op == EW_COPY) {
		memmove(o->out[0], o->arg[0][0], (size_t)shape_bytes(os));
		return;
	}
	steps(o, st);
	for (int64_t i = 0; i < n; i++) {
		union num a = num_get(dt, o->arg[0][0], i * st[0]);
		union num b;

		memset(&b, 0, sizeof b);
		if (two)
			b = num_get(o->as[1]->type, o->arg[1][0], i * st[1]);
		num_put(os->type, o->out[0], i, num_apply(op, dt, a, b));
	}
	interp_work(o->st, n);
}

static void
compare(struct op *o)
{
	char db[32], tb[32];
	const char *d = attr_text(o, "direction", db, sizeof db);
	const char *t = attr_text(o, "type", tb, sizeof tb);
	int dir = d ? num_direction(d, (int)strlen(d)) : -1;
	int total = t && !strcmp(t, "TOTALORDER"), dt = o->as[0]->type;
	int64_t n = elems(&o->in->shape);
	int64_t st[3] = {1, 1, 1};

	if (dir < 0)
		bad_attr(o, "direction");
	steps(o, st);
	for (int64_t i = 0; i < n; i++) {
		union num r, a = num_get(dt, o->arg[0][0], i * st[0]);
		union num b = num_get(dt, o->arg[1][0], i * st[1]);

		r.u = (uint64_t)num_compare(dir, total, dt, a, b);
		num_put(o->in->shape.type, o->out[0], i, r);
	}
	interp_work(o->st, n);
}

static void
select_op(struct op *o)
{
	int64_t n = elems(&o->in->shape);
	int es = num_size(o->in->shape.type);
	int64_t st[3] = {1, 1, 1};

	steps(o, st);
	for (int64_t i = 0; i < n; i++) {
		int k = num_get(DT_PRED, o->arg[0][0], i * st[0]).u ? 1 : 2;

		copy_elem(o->out[0], i, o->arg[k][0], i * st[k], es);
	}
	interp_work(o->st, n);
}

static void
clamp(struct op *o)
{
	int64_t n = elems(&o->in->shape);
	int dt = o->in->shape.type;
	int64_t st[3] = {1, 1, 1};

	steps(o, st);
	for (int64_t i = 0; i < n; i++) {
		union num lo = num_get(dt, o->arg[0][0], i * st[0]);
		union num x = num_get(dt, o->arg[1][0], i * st[1]);
		union num hi = num_get(dt, o->arg[2][0], i * st[2]);

		x = num_apply(EW_MAXIMUM, dt, x, lo);
		num_put(dt, o->out[0], i, num_apply(EW_MINIMUM, dt, x, hi));
	}
	interp_work(o->st, n);
}

static void
convert(struct op *o)
{
	int64_t n = elems(&o->in->shape);
	int from = o->as[0]->type, to = o->in->shape.type;

	for (int64_t i = 0; i < n; i++)
		num_put(to, o->out[0], i,
			num_convert(from, to, num_get(from, o->arg[0][0], i)));
	interp_work(o->st, n);
}

static void
bitcast_convert(struct op *o)
{
	if (shape_bytes(&o->in->shape) != shape_bytes(o->as[0]) ||
	    num_size(o->in->shape.type) != num_size(o->as[0]->type))
		interp_fail(o->st, INTERP_SKIP, "'%s': bitcast-convert "
			    "between widths", o->in->name);
	memmove(o->out[0], o->arg[0][0], (size_t)shape_bytes(o->as[0]));
}

static void
reduce_precision(struct op *o)
{
	int64_t e, m, n = elems(&o->in->shape);
	int dt = o->in->shape.type;

	if (need_ints(o, "exponent_bits", &e, 1, 0) < 0 || e < 1 || e > 11 ||
	    need_ints(o, "mantissa_bits", &m, 1, 0) < 0 || m > 52)
		bad_attr(o, "exponent_bits");
	for (int64_t i = 0; i < n; i++)
		num_put(dt, o->out[0], i, num_reduce_precision(
			dt, num_get(dt, o->arg[0][0], i), (int)e, (int)m));
	interp_work(o->st, n);
}

/* ---- data movement ------------------------------------------------------ */

static void
iota(struct op *o)
{
	const struct shape *os = &o->in->shape;
	int64_t d, idx[MAXRANK] = {0}, i = 0;

	need_ints(o, "iota_dimension", &d, 1, 0);
	if (d >= os->rank)
		bad_attr(o, "iota_dimension");
	if (elems(os) == 0)
		return;
	do {
		union num v = {.s = idx[d]};

		num_put(os->type, o->out[0], i++,
			num_convert(DT_S64, os->type, v));
	} while (next_index(idx, os->dims, os->rank));
	interp_work(o->st, i);
}

static void
broadcast(struct op *o)
{
	const struct shape *os = &o->in->shape, *is = o->as[0];
	int64_t dims[MAXRANK], ist[MAXRANK], idx[MAXRANK] = {0}, i = 0;
	int es = num_size(os->type);

	need_ints(o, "dimensions", dims, is->rank, 1);
	for (int k = 0; k < is->rank; k++)
		if (dims[k] >= os->rank || os->dims[dims[k]] != is->dims[k])
			bad_attr(o, "dimensions");
	strides(is, ist);
	if (elems(os) == 0)
		return;
	do {
		int64_t s = 0;

		for (int k = 0; k < is->rank; k++)
			s += idx[dims[k]] * ist[k];
		copy_elem(o->out[0], i++, o->arg[0][0], s, es);
	} while (next_index(idx, os->dims, os->rank));
	interp_work(o->st, i);
}

static void
reshape(struct op *o)
{
	if (shape_bytes(&o->in->shape) != shape_bytes(o->as[0]))
		interp_fail(o->st, INTERP_SKIP, "'%s': reshape changes the "
			    "size", o->in->name);
	memmove(o->out[0], o->arg[0][0], (size_t)shape_bytes(o->as[0]));
	interp_work(o->st, elems(o->as[0]));
}

/* Copies out[idx] = in[sum_k f(idx)_k * stride_k] over the output, where
 * map[k] is the input dimension output dimension k walks, with an offset
 * `base`, a step and a direction per output dimension. */
struct walk {
	int64_t base;
	int64_t step[MAXRANK];	/* input elements per output index */
};

static void
walk_copy(struct op *o, const struct walk *w, const unsigned char *src)
{
	const struct shape *os = &o->in->shape;
	int64_t idx[MAXRANK] = {0}, i = 0;
	int es = num_size(os->type);

	if (elems(os) == 0)
		return;
	do {
		int64_t s = w->base;

		for (int k = 0; k < os->rank; k++)
			s += idx[k] * w->step[k];
		copy_elem(o->out[0], i++, src, s, es);
	} while (next_index(idx, os->dims, os->rank));
	interp_work(o->st, i);
}

static void
transpose(struct op *o)
{
	const struct shape *os = &o->in->shape, *is = o->as[0];
	int64_t perm[MAXRANK], ist[MAXRANK];
	struct walk w = {0};

	need_ints(o, "dimensions", perm, is->rank, 0);
	strides(is, ist);
	for (int k = 0; k < os->rank; k++) {
		if (perm[k] >= is->rank || is->dims[perm[k]] != os->dims[k])
			bad_attr(o, "dimensions");
		w.step[k] = ist[perm[k]];
	}
	walk_copy(o, &w, o->arg[0][0]);
}

static void
reverse(struct op *o)
{
	const struct shape *os = &o->in->shape;
	int64_t dims[MAXRANK], st[MAXRANK];
	int n = need_ints(o, "dimensions", dims, -1, 0);
	struct walk w = {0};

	same_dims(o, 0, -1);
	strides(os, st);
	for (int k = 0; k < os->rank; k++)
		w.step[k] = st[k];
	for (int j = 0; j < n; j++) {
		if (dims[j] >= os->rank)
			bad_attr(o, "dimensions");
		w.base += (os->dims[dims[j]] - 1) * st[dims[j]];
		w.step[dims[j]] = -st[dims[j]];
	}
	walk_copy(o, &w, o->arg[0][0]);
}

/* slice={[a:b], [a:b:s], ...} */
static void
slice(struct op *o)
{
	const struct shape *os = &o->in->shape, *is = o->as[0];
	int64_t v[3 * MAXRANK], ist[MAXRANK];
	char buf[1024];
	const char *p = attr_text(o, "slice", buf, sizeof buf);
	struct walk w = {0};
	int n = 0;

	if (!p || os->rank != is->rank)
		bad_attr(o, "slice");
	for (int k = 0; k < is->rank; k++) {
		char *end;

		p = strchr(p, '[');
		if (!p)
			bad_attr(o, "slice");
		v[3 * k + 2] = 1;
		for (n = 0, p++; n < 3 && *p && *p != ']'; n++) {
			v[3 * k + n] = strtoll(p, &end, 10);
			if (end == p)
				bad_attr(o, "slice");
			while (*end == ' ')
				end++;	/* [0 : 1], as XLA's parser reads it */
			p = *end == ':' ? end + 1 : end;
		}
		if (n < 2 || v[3 * k] < 0 || v[3 * k + 2] < 1)
			bad_attr(o, "slice");
	}
	strides(is, ist);
	for (int k = 0; k < is->rank; k++) {
		int64_t a = v[3 * k], s = v[3 * k + 2];

		if (os->dims[k] > 0 && a + (os->dims[k] - 1) * s >= is->dims[k])
			bad_attr(o, "slice");
		w.base += a * ist[k];
		w.step[k] = s * ist[k];
	}
	walk_copy(o, &w, o->arg[0][0]);
}

/* Copies operand array src (shape s) into the output at offsets off[]. */
static void
place_into(struct op *o, const unsigned char *src, const struct shape *s,
	   const int64_t *off)
{
	const struct shape *os = &o->in->shape;
	int64_t idx[MAXRANK] = {0}, ost[MAXRANK], i = 0;
	int es = num_size(os->type);

	strides(os, ost);
	if (elems(s) == 0)
		return;
	do {
		int64_t d = 0;

		for (int k = 0; k < s->rank; k++)
			d += (idx[k] + off[k]) * ost[k];
		copy_elem(o->out[0], d, src, i++, es);
	} while (next_index(idx, s->dims, s->rank));
	interp_work(o->st, i);
}

static void
concatenate(struct op *o)
{
	const struct shape *os = &o->in->shape;
	int64_t d, off[MAXRANK] = {0};

	need_ints(o, "dimensions", &d, 1, 0);
	if (d >= os->rank)
		bad_attr(o, "dimensions");
	for (int k = 0; k < o->in->nops; k++) {
		same_dims(o, k, (int)d);
		if (
		    off[d] + o->as[k]->dims[d] > os->dims[d])
			bad_attr(o, "dimensions");
		place_into(o, o->arg[k][0], o->as[k], off);
		off[d] += o->as[k]->dims[d];
	}
}

/* padding=lo_hi[_interior]x...: the three numbers per dimension. */
static void
padding(struct op *o, int rank, int64_t *cfg)
{
	char buf[1024];
	const char *p = attr_text(o, "padding", buf, sizeof buf);

	if (!p)
		bad_attr(o, "padding");
	for (int k = 0; k < rank; k++) {
		char *end;

		cfg[3 * k + 2] = 0;
		for (int n = 0; n < 3; n++) {
			cfg[3 * k + n] = strtoll(p, &end, 10);
			if (end == p)
				bad_attr(o, "padding");
			p = end;
			if (*p != '_')
				break;
			p++;
		}
		if (cfg[3 * k + 2] < 0 || (k + 1 < rank && *p++ != 'x'))
			bad_attr(o, "padding");
	}
}

static void
pad(struct op *o)
{
	const struct shape *os = &o->in->shape, *is = o->as[0];
	int64_t cfg[3 * MAXRANK], idx[MAXRANK] = {0}, ost[MAXRANK], n;
	int es = num_size(os->type);

	if (os->rank != is->rank)
		bad_attr(o, "padding");
	padding(o, is->rank, cfg);
	n = elems(os);
	splat(o->out[0], o->arg[1][0], n, es);
	strides(os, ost);
	if (elems(is) == 0)
		return;
	n = 0;
	do {
		int64_t d = 0;
		int in = 1;

		for (int k = 0; k < is->rank && in; k++) {
			int64_t x = cfg[3 * k] + idx[k] * (cfg[3 * k + 2] + 1);

			in = x >= 0 && x < os->dims[k];
			d += x * ost[k];
		}
		if (in)
			copy_elem(o->out[0], d, o->arg[0][0], n, es);
		n++;
	} while (next_index(idx, is->dims, is->rank));
	interp_work(o->st, n + elems(os));
}

/* ---- dynamic slices ----------------------------------------------------- */

/* The start indices of a dynamic op, from operand `first` on (one scalar
 * each, or one vector), clamped so that `size` fits in `dims`. */
static void
starts(struct op *o, int first, const struct shape *s, const int64_t *size,
       int64_t *st)
{
	int vec = o->in->nops == first + 1 && o->as[first]->rank == 1;

	if (!vec && o->in->nops != first + s->rank)
		interp_fail(o->st, INTERP_SKIP, "'%s': start indices do not "
			    "match the rank", o->in->name);
	for (int k = 0; k < s->rank; k++) {
		int kk = vec ? first : first + k, dt = o->as[kk]->type;
		union num v = num_get(dt, o->arg[kk][0], vec ? k : 0);
		int64_t x = num_kind(dt) == NK_S ? v.s :
			    v.u > INT64_MAX ? INT64_MAX : (int64_t)v.u;
		int64_t hi = s->dims[k] - size[k];

		if (hi < 0 || (vec && k >= elems(o->as[first])))
			interp_fail(o->st, INTERP_SKIP, "'%s': a slice larger "
				    "than its operand", o->in->name);

		st[k] = x < 0 ? 0 : x > hi ? hi : x;
	}
}

static void
dynamic_slice(struct op *o)
{
	const struct shape *os = &o->in->shape, *is = o->as[0];
	int64_t st[MAXRANK], ist[MAXRANK];
	struct walk w = {0};

	if (os->rank != is->rank)
		bad_attr(o, "dynamic_slice_sizes");
	starts(o, 1, is, os->dims, st);
	strides(is, ist);
	for (int k = 0; k < is->rank; k++) {
		w.base += st[k] * ist[k];
		w.step[k] = ist[k];
	}
	walk_copy(o, &w, o->arg[0][0]);
}

static void
dynamic_update_slice(struct op *o)
{
	const struct shape *os = &o->in->shape, *us = o->as[1];
	int64_t st[MAXRANK];

	same_dims(o, 0, -1);
	if (us->rank != os->rank)
		bad_attr(o, "update");
	starts(o, 2, os, us->dims, st);
	if (!o->in_place && o->out[0] != o->arg[0][0])
		memmove(o->out[0], o->arg[0][0], (size_t)shape_bytes(os));
	place_into(o, o->arg[1][0], us, st);
}

/* ---- dot ---------------------------------------------------------------- */

struct dims {
	int64_t batch[MAXRANK], contract[MAXRANK], free[MAXRANK];
	int nbatch, ncontract, nfree;
};

static void
dot_dims(struct op *o, const struct shape *s, const char *batch,
	 const char *contract, struct dims *d)
{
	int used[MAXRANK] = {0};

	d->nbatch = need_ints(o, batch, d->batch, -1, 1);
	d->ncontract = need_ints(o, contract, d->contract, -1, 1);
	for (int k = 0; k < d->nbatch + d->ncontract; k++) {
		int64_t x = k < d->nbatch ? d->batch[k] :
			    d->contract[k - d->nbatch];

		if (x >= s->rank || used[x])
			bad_attr(o, contract);
		used[x] = 1;
	}
	d->nfree = 0;
	for (int k = 0; k < s->rank; k++)
		if (!used[k])
			d->free[d->nfree++] = k;
	if (d->nbatch + d->ncontract + d->nfree != s->rank)
		bad_attr(o, contract);
}

/* Element offsets of every contracting index, in l and r. */
static int64_t
contract_offsets(struct op *o, const struct dims *l, const struct dims *r,
		 int64_t **loff, int64_t **roff)
{
	const struct shape *ls = o->as[0], *rs = o->as[1];
	int64_t lst[MAXRANK], rst[MAXRANK], size[MAXRANK], idx[MAXRANK] = {0};
	int64_t n = 1, i = 0;

	strides(ls, lst);
	strides(rs, rst);
	for (int k = 0; k < l->ncontract; k++) {
		size[k] = ls->dims[l->contract[k]];
		if (size[k] != rs->dims[r->contract[k]])
			bad_attr(o, "rhs_contracting_dims");
		n *= size[k];
	}
	*loff = interp_alloc(o->st, sizeof(int64_t) * (size_t)(n + 1));
	*roff = interp_alloc(o->st, sizeof(int64_t) * (size_t)(n + 1));
	if (n == 0)
		return 0;
	do {
		(*loff)[i] = (*roff)[i] = 0;
		for (int k = 0; k < l->ncontract; k++) {
			(*loff)[i] += idx[k] * lst[l->contract[k]];
			(*roff)[i] += idx[k] * rst[r->contract[k]];
		}
		i++;
	} while (next_index(idx, size, l->ncontract));
	return n;
}

/* Sum over the contraction of l[lb + loff] * r[rb + roff], in the output
 * type's kind; lf and rf, when not NULL, hold the operands as doubles. */
static union num
dot_sum(struct op *o, int64_t lb, int64_t rb, const int64_t *loff,
	const int64_t *roff, int64_t n, const double *lf, const double *rf)
{
	int lt = o->as[0]->type, rt = o->as[1]->type, ot = o->in->shape.type;
	union num acc = {.u = 0};

	if (num_kind(ot) == NK_F)
		acc.f = 0;
	if (lf && rf) {
		for (int64_t k = 0; k < n; k++)
			acc.f += lf[lb + loff[k]] * rf[rb + roff[k]];
		return acc;
	}
	for (int64_t k = 0; k < n; k++) {
		union num a = num_convert(lt, ot, num_get(lt, o->arg[0][0],
							   lb + loff[k]));
		union num b = num_convert(rt, ot, num_get(rt, o->arg[1][0],
							   rb + roff[k]));

		if (num_kind(ot) == NK_F)
			acc.f += a.f * b.f;
		else if (num_kind(ot) == NK_PRED)
			acc.u |= a.u & b.u;
		else
			acc.u += a.u * b.u;
	}
	return acc;
}

/* Operand k as doubles, for a float dot (NULL when not worth it). */
static double *
as_doubles(struct op *o, int k)
{
	int64_t n = elems(o->as[k]);
	int dt = o->as[k]->type;
	double *d;

	if (num_kind(o->in->shape.type) != NK_F || num_kind(dt) != NK_F ||
	    n > (INT64_C(1) << 24))
		return NULL;
	d = interp_alloc(o->st, sizeof(double) * (size_t)(n + 1));
	for (int64_t i = 0; i < n; i++)
		d[i] = num_get(dt, o->arg[k][0], i).f;
	return d;
}

static void
dot(struct op *o)
{
	const struct shape *os = &o->in->shape, *ls = o->as[0], *rs = o->as[1];
	struct dims l, r;
	int64_t lst[MAXRANK], rst[MAXRANK], idx[MAXRANK] = {0}, *loff, *roff;
	int64_t n, i = 0;
	double *lf, *rf;

	dot_dims(o, ls, "lhs_batch_dims", "lhs_contracting_dims", &l);
	dot_dims(o, rs, "rhs_batch_dims", "rhs_contracting_dims", &r);
	if (l.nbatch != r.nbatch || l.ncontract != r.ncontract ||
	    os->rank != l.nbatch + l.nfree + r.nfree)
		bad_attr(o, "lhs_contracting_dims");
	for (int k = 0; k < os->rank; k++) {
		int64_t want = k < l.nbatch ? ls->dims[l.batch[k]] :
			       k < l.nbatch + l.nfree ?
			       ls->dims[l.free[k - l.nbatch]] :
			       rs->dims[r.free[k - l.nbatch - l.nfree]];

		if (os->dims[k] != want ||
		    (k < l.nbatch && rs->dims[r.batch[k]] != want))
			bad_attr(o, "lhs_batch_dims");
	}
	strides(ls, lst);
	strides(rs, rst);
	n = contract_offsets(o, &l, &r, &loff, &roff);
	lf = as_doubles(o, 0);
	rf = as_doubles(o, 1);
	if (elems(os) > 0)
		do {
			int64_t lb = 0, rb = 0;

			for (int k = 0; k < l.nbatch; k++) {
				lb += idx[k] * lst[l.batch[k]];
				rb += idx[k] * rst[r.batch[k]];
			}
			for (int k = 0; k < l.nfree; k++)
				lb += idx[l.nbatch + k] * lst[l.free[k]];
			for (int k = 0, o0 = l.nbatch + l.nfree; k < r.nfree;
			     k++)
				rb += idx[o0 + k] * rst[r.free[k]];
			num_put(os->type, o->out[0], i++,
				dot_sum(o, lb, rb, loff, roff, n, lf, rf));
			interp_work(o->st, n + 1);
		} while (next_index(idx, os->dims, os->rank));
	interp_release(o->st, loff);
	interp_release(o->st, roff);
	interp_release(o->st, lf);
	interp_release(o->st, rf);
}

/* ---- reduce and map ----------------------------------------------------- */

int
to_apply(struct op *o)
{
	int c = called_comp(o->m, o->in, "to_apply");

	if (c < 0 && o->in->ncall == 1)
		c = o->in->calls[0];
	if (c < 0)
		bad_attr(o, "to_apply");
	return c;
}

/* A reducer that is one binary op of its two parameters: its op, and
 * whether the parameters come swapped; -1 otherwise. */
int
simple_reducer(const struct comp *c, int dt, int *swapped)
{
	const struct instr *r;
	int op;

	if (c->ninstr != 3 || c->nparam != 2 || c->root < 0)
		return -1;
	r = &c->instrs[c->root];
	op = r->op ? num_op_lookup(r->op->name) : -1;
	if (op < EW_NUNARY || r->nops != 2 || r->shape.type != dt ||
	    r->shape.rank != 0 || r->ops[0] == r->ops[1])
		return -1;
	for (int k = 0; k < 2; k++) {
		const struct instr *p = &c->instrs[c->params[k]];

		if (p->shape.type != dt || p->shape.rank != 0)
			return -1;
	}
	if (r->ops[0] == c->params[0] && r->ops[1] == c->params[1])
		*swapped = 0;
	else if (r->ops[0] == c->params[1] && r->ops[1] == c->params[0])
		*swapped = 1;
	else
		return -1;
	return op;
}

void
combiner_init(struct op *o, struct combiner *C, int comp, int n,
	      const int *types)
{
	memset(C, 0, sizeof *C);
	if (n < 1 || n > MAXRANK)
		interp_fail(o->st, INTERP_SKIP, "'%s': a combiner of %d "
			    "arrays", o->in->name, n);
	C->o = o;
	C->n = n;
	C->comp = comp;
	C->dt = types[0];
	C->fast = n == 1 ? simple_reducer(&o->m->comps[comp], types[0],
					  &C->swapped) : -1;
	for (int k = 0; k < 2 * n; k++)
		C->args[k] = &C->node[k];
}

void
combine(struct combiner *C, unsigned char **acc, int64_t ai,
	unsigned char **x, int64_t xi)
{
	unsigned char tmp[MAXRANK][16], **root;
	int n = C->n, es[MAXRANK];

	if (C->fast >= 0) {
		union num a = num_get(C->dt, acc[0], ai);
		union num b = num_get(C->dt, x[0], xi);

		num_put(C->dt, acc[0], ai, C->swapped ?
			num_apply(C->fast, C->dt, b, a) :
			num_apply(C->fast, C->dt, a, b));
		return;
	}
	for (int k = 0; k < n; k++) {
		const struct instr *p = &C->o->m->comps[C->comp].instrs[
			C->o->m->comps[C->comp].params[k]];

		es[k] = num_size(p->shape.type);
		C->node[k] = acc[k] + ai * es[k];
		C->node[n + k] = x[k] + xi * es[k];
	}
	root = interp_kernel(C->o->st, C->comp, C->args);
	for (int k = 0; k < n; k++)
		memcpy(tmp[k], root[n == 1 ? 0 : 1 + k], (size_t)es[k]);
	for (int k = 0; k < n; k++)
		memcpy(acc[k] + ai * es[k], tmp[k], (size_t)es[k]);
}

struct reduction {
	int n;			/* inputs */
	int comp, fast, swapped;
	int64_t *roff;		/* input offsets of every reduced index */
	int64_t nred;
	unsigned char acc[MAXRANK][8], tmp[MAXRANK][8];
	unsigned char *argnode[2 * MAXRANK];
	unsigned char **args[2 * MAXRANK];
};

/* One reducer step: acc = reducer(acc, input elements at offset off). */
static void
reduce_step(struct op *o, struct reduction *R, int64_t off)
{
	unsigned char **root;
	int n = R->n;

	if (R->fast >= 0) {
		int dt = o->as[0]->type;
		union num a = num_get(dt, R->acc[0], 0);
		union num x = num_get(dt, o->arg[0][0], off);

		num_put(dt, R->acc[0], 0, R->swapped ?
			num_apply(R->fast, dt, x, a) :
			num_apply(R->fast, dt, a, x));
		return;
	}
	for (int k = 0; k < n; k++)
		R->argnode[n + k] = o->arg[k][0] +
				    off * num_size(o->as[k]->type);
	root = interp_kernel(o->st, R->comp, R->args);
	for (int k = 0; k < n; k++)
		memcpy(R->tmp[k], root[n == 1 ? 0 : 1 + k],
		       (size_t)num_size(o->as[k]->type));
	memcpy(R->acc, R->tmp, sizeof R->acc);
}

static void
reduce_setup(struct op *o, struct reduction *R, const int *red)
{
	const struct shape *is = o->as[0];
	int64_t ist[MAXRANK], size[MAXRANK], idx[MAXRANK] = {0}, i = 0;
	int rd[MAXRANK], nr = 0;

	strides(is, ist);
	R->nred = 1;
	for (int k = 0; k < is->rank; k++)
		if (red[k]) {
			rd[nr] = k;
			size[nr++] = is->dims[k];
			R->nred *= is->dims[k];
		}
	R->roff = interp_alloc(o->st, sizeof(int64_t) * (size_t)(R->nred + 1));
	if (R->nred == 0)
		return;
	do {
		R->roff[i] = 0;
		for (int k = 0; k < nr; k++)
			R->roff[i] += idx[k] * ist[rd[k]];
		i++;
	} while (next_index(idx, size, nr));
}

static void
reduce_check(struct op *o, int n, int *red)
{
	const struct shape *is = o->as[0], *os = &o->in->shape;
	int64_t dims[MAXRANK];
	int nd = need_ints(o, "dimensions", dims, -1, 0);

	if (n < 1 || n > MAXRANK || o->in->nops != 2 * n ||
	    (n > 1 && (!shape_is_tuple(os) || os->nelem != n)))
		interp_fail(o->st, INTERP_SKIP, "'%s': reduce of this form",
			    o->in->name);
	memset(red, 0, sizeof(int) * MAXRANK);
	for (int k = 0; k < nd; k++) {
		if (dims[k] >= is->rank)
			bad_attr(o, "dimensions");
		red[dims[k]] = 1;
	}
	for (int k = 0; k < n; k++) {
		if (o->as[k]->rank != is->rank || elems(o->as[n + k]) != 1)
			bad_attr(o, "dimensions");
		for (int d = 0; d < is->rank; d++)
			if (o->as[k]->dims[d] != is->dims[d])
				bad_attr(o, "dimensions");
	}
}

/* Output element i: the inits, then a reducer step per reduced index
 * from input offset base on. */
static void
reduce_one(struct op *o, struct reduction *R, int64_t base, int64_t i)
{
	int n = R->n;

	for (int k = 0; k < n; k++)
		memcpy(R->acc[k], o->arg[n + k][0],
		       (size_t)num_size(o->as[k]->type));
	for (int64_t r = 0; r < R->nred; r++)
		reduce_step(o, R, base + R->roff[r]);
	for (int k = 0; k < n; k++)
		copy_elem(o->out[n == 1 ? 0 : 1 + k], i, R->acc[k], 0,
			  num_size(o->as[k]->type));
	interp_work(o->st, R->nred + 1);
}

static void
reduce(struct op *o)
{
	const struct shape *is = o->as[0];
	struct reduction R = {.n = o->in->nops / 2, .fast = -1};
	int64_t ist[MAXRANK], odims[MAXRANK], idx[MAXRANK] = {0}, i = 0;
	int red[MAXRANK], kd[MAXRANK], nk = 0, n = R.n;
	int64_t nout = 1;

	reduce_check(o, n, red);
	R.comp = to_apply(o);
	if (n == 1)
		R.fast = simple_reducer(&o->m->comps[R.comp], is->type,
					&R.swapped);
	for (int k = 0; k < 2 * n; k++)
		R.args[k] = &R.argnode[k];
	for (int k = 0; k < n; k++)
		R.argnode[k] = R.acc[k];
	for (int k = 0; k < is->rank; k++)
		if (!red[k]) {
			kd[nk] = k;
			odims[nk++] = is->dims[k];
			nout *= is->dims[k];
		}
	for (int k = 0; k < n; k++) {
		const struct shape *ls = n == 1 ? &o->in->shape :
					 &o->in->shape.elems[k];

		if (ls->type != o->as[k]->type || elems(ls) != nout ||
		    o->as[n + k]->type != o->as[k]->type)
			bad_attr(o, "dimensions");
	}
	strides(is, ist);
	reduce_setup(o, &R, red);
	if (nout > 0)
		do {
			int64_t base = 0;

			for (int j = 0; j < nk; j++)
				base += idx[j] * ist[kd[j]];
			reduce_one(o, &R, base, i++);
		} while (next_index(idx, odims, nk));
	interp_release(o->st, R.roff);
}

static void
map(struct op *o)
{
	int64_t n = elems(&o->in->shape);
	int c = to_apply(o), es = num_size(o->in->shape.type);
	unsigned char *node[MAXRANK], **args[MAXRANK];

	if (o->in->nops > MAXRANK)
		interp_fail(o->st, INTERP_SKIP, "'%s': map of over %d "
			    "operands", o->in->name, MAXRANK);
	for (int k = 0; k < o->in->nops; k++)
		args[k] = &node[k];
	for (int64_t i = 0; i < n; i++) {
		for (int k = 0; k < o->in->nops; k++)
			node[k] = o->arg[k][0] + i * num_size(o->as[k]->type);
		copy_elem(o->out[0], i, interp_kernel(o->st, c, args)[0], 0,
			  es);
	}
	interp_work(o->st, n);
}

/* sort: each row along the dimension ordered by a stable merge sort whose
 * "less" is the comparator on (lhs, rhs) of every operand in turn. */
struct sorter {
	struct op *o;
	int comp, n;
	int64_t base, stride;
	unsigned char *node[2 * MAXRANK];
	unsigned char **args[2 * MAXRANK];
};

static int
sort_less(struct sorter *S, int64_t a, int64_t b)
{
	struct op *o = S->o;

	for (int k = 0; k < S->n; k++) {
		int es = num_size(o->as[k]->type);

		S->node[2 * k] = o->arg[k][0] + (S->base + a * S->stride) * es;
		S->node[2 * k + 1] = o->arg[k][0] +
				     (S->base + b * S->stride) * es;
	}
	interp_work(o->st, 1);
	return num_get(DT_PRED, interp_kernel(o->st, S->comp, S->args)[0],
		       0).u != 0;
}

static void
merge_sort(struct sorter *S, int64_t *v, int64_t *tmp, int64_t len)
{
	for (int64_t w = 1; w < len; w *= 2) {
		for (int64_t lo = 0; lo < len; lo += 2 * w) {
			int64_t mid = lo + w < len ? lo + w : len;
			int64_t hi = lo + 2 * w < len ? lo + 2 * w : len;
			int64_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = sort_less(S, v[j], v[i]) ? v[j++] :
								      v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, sizeof(int64_t) * (size_t)len);
	}
}

static void
sort_check(struct op *o, int n, int64_t d)
{
	const struct shape *s = o->as[0], *os = &o->in->shape;

	if (n > MAXRANK || d >= s->rank ||
	    (n > 1 && (!shape_is_tuple(os) || os->nelem != n)))
		bad_attr(o, "dimensions");
	for (int k = 0; k < n; k++) {
		const struct shape *ks = n == 1 ? os : &os->elems[k];

		if (o->as[k]->rank != s->rank || ks->type != o->as[k]->type ||
		    shape_is_tuple(ks) || ks->rank != s->rank)
			bad_attr(o, "dimensions");
		for (int j = 0; j < s->rank; j++)
			if (o->as[k]->dims[j] != s->dims[j] ||
			    ks->dims[j] != s->dims[j])
				bad_attr(o, "dimensions");
	}
}

static void
sort_op(struct op *o)
{
	const struct shape *s = o->as[0];
	struct sorter S = {.o = o, .comp = to_apply(o), .n = o->in->nops};
	int64_t d, st[MAXRANK], rows[MAXRANK], idx[MAXRANK] = {0}, *v, *tmp;

	need_ints(o, "dimensions", &d, 1, 0);
	sort_check(o, S.n, d);
	for (int k = 0; k < 2 * S.n; k++)
		S.args[k] = &S.node[k];
	strides(s, st);
	memcpy(rows, s->dims, sizeof(int64_t) * (size_t)s->rank);
	rows[d] = 1;
	S.stride = st[d];
	v = interp_alloc(o->st, sizeof(int64_t) * (size_t)(s->dims[d] + 1));
	tmp = interp_alloc(o->st, sizeof(int64_t) * (size_t)(s->dims[d] + 1));
	if (elems(s) > 0)
		do {
			S.base = 0;
			for (int k = 0; k < s->rank; k++)
				S.base += idx[k] * st[k];
			for (int64_t j = 0; j < s->dims[d]; j++)
				v[j] = j;
			merge_sort(&S, v, tmp, s->dims[d]);
			for (int k = 0; k < S.n; k++)
				for (int64_t j = 0; j < s->dims[d]; j++)
					copy_elem(o->out[S.n == 1 ? 0 : 1 + k],
						  S.base + j * S.stride,
						  o->arg[k][0],
						  S.base + v[j] * S.stride,
						  num_size(o->as[k]->type));
		} while (next_index(idx, rows, s->rank));
	interp_release(o->st, v);
	interp_release(o->st, tmp);
}

/* ---- dispatch ----------------------------------------------------------- */

static const struct kernel ops[] = {
	{"compare", compare, 0}, {"select", select_op, 0}, {"clamp", clamp, 0},
	{"convert", convert, 0}, {"bitcast-convert", bitcast_convert, 0},
	{"reduce-precision", reduce_precision, 0}, {"iota", iota, 0},
	{"broadcast", broadcast, 0}, {"reshape", reshape, 0},
	{"transpose", transpose, 0}, {"reverse", reverse, 0},
	{"slice", slice, 0},
	{"concatenate", concatenate, 0}, {"pad", pad, 0},
	{"dynamic-slice", dynamic_slice, 0},
	{"dynamic-update-slice", dynamic_update_slice, 0}, {"dot", dot, 0},
	{"reduce", reduce, 1}, {"map", map, 0}, {"sort", sort_op, 1},
};
static const int nops = sizeof ops / sizeof ops[0];

static const struct {
	const struct kernel *k;
	const int *n;
} tables[] = {
	{ops, &nops}, {gather_kernels, &gather_nkernels},
	{window_kernels, &window_nkernels}, {stub_kernels, &stub_nkernels},
	{extra_kernels, &extra_nkernels},
};

static const struct kernel *
find_kernel(const char *name)
{
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
		for (int k = 0; k < *tables[t].n; k++)
			if (!strcmp(tables[t].k[k].name, name))
				return &tables[t].k[k];
	return NULL;
}

int
array_known(const char *name)
{
	return find_kernel(name) || num_op_lookup(name) >= 0;
}

int
array_tuple_ok(const char *name)
{
	const struct kernel *k = find_kernel(name);

	return k && k->tuple;
}

int
array_run(struct op *o)
{
	const char *name = o->in->op->name;
	const struct kernel *k = find_kernel(name);
	int ew = num_op_lookup(name);

	check_rank(o);
	if (k) {
		k->run(o);
		return 0;
	}
	if (ew < 0)
		return -1;
	elementwise(o, ew);
	return 0;
}

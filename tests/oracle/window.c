/* Windowed ops, as XLA's operation semantics define them: reduce-window,
 * select-and-scatter and convolution (dim_labels, feature and batch
 * groups), over windows with stride, padding, and base (lhs) and window
 * (rhs) dilation; padding and holes of a dilated base hold nothing. */
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/arrays.h"

struct window {
	int rank;
	int64_t size[MAXRANK], stride[MAXRANK], lo[MAXRANK], hi[MAXRANK];
	int64_t ldil[MAXRANK], rdil[MAXRANK], rev[MAXRANK];
};

/* "key=AxBxC" (or lo_hi pairs for pad) inside the window text. */
static void
window_field(struct op *o, const char *text, const char *key, int rank,
	     int64_t *a, int64_t *b)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof pat, "%s=", key);
	for (p = strstr(text, pat); p && p > text && p[-1] != ' ' &&
				    p[-1] != '{'; p = strstr(p + 1, pat))
		;
	if (!p)
		return;
	p += strlen(pat);
	for (int d = 0; d < rank; d++) {
		char *end;

		a[d] = strtoll(p, &end, 10);
		if (end == p)
			bad_attr(o, "window");
		p = end;
		if (b) {
			if (*p++ != '_')
				bad_attr(o, "window");
			b[d] = strtoll(p, &end, 10);
			if (end == p)
				bad_attr(o, "window");
			p = end;
		}
		if (d + 1 < rank && *p++ != 'x')
			bad_attr(o, "window");
	}
}

static void
read_window(struct op *o, int rank, struct window *w)
{
	char buf[1024];
	const char *t = attr_text(o, "window", buf, sizeof buf);

	memset(w, 0, sizeof *w);
	w->rank = rank;
	for (int d = 0; d < rank; d++)
		w->size[d] = w->stride[d] = w->ldil[d] = w->rdil[d] = 1;
	if (!t)
		t = "";
	window_field(o, t, "size", rank, w->size, NULL);
	window_field(o, t, "stride", rank, w->stride, NULL);
	window_field(o, t, "pad", rank, w->lo, w->hi);
	window_field(o, t, "lhs_dilate", rank, w->ldil, NULL);
	window_field(o, t, "rhs_dilate", rank, w->rdil, NULL);
	window_field(o, t, "rhs_reversal", rank, w->rev, NULL);
	for (int d = 0; d < rank; d++)
		if (w->size[d] < 0 || w->stride[d] < 1 || w->ldil[d] < 1 ||
		    w->rdil[d] < 1)
			bad_attr(o, "window");
}

/* The base index that window position k of output index x reads along
 * dimension d of a base of n elements, or -1 (padding, a hole). */
static int64_t
base_at(const struct window *w, int d, int64_t x, int64_t k, int64_t n)
{
	int64_t p = x * w->stride[d] + k * w->rdil[d] - w->lo[d];

	if (p < 0 || p % w->ldil[d])
		return -1;
	p /= w->ldil[d];
	return p < n ? p : -1;
}

/* The base offset of window position k at output index x, or -1. */
static int64_t
window_offset(const struct window *w, const struct shape *s,
	      const int64_t *st, const int64_t *x, const int64_t *k)
{
	int64_t off = 0;

	for (int d = 0; d < w->rank; d++) {
		int64_t p = base_at(w, d, x[d], k[d], s->dims[d]);

		if (p < 0)
			return -1;
		off += p * st[d];
	}
	return off;
}

/* ---- reduce-window ------------------------------------------------------ */

static void
reduce_window(struct op *o)
{
	int n = o->in->nops / 2, types[MAXRANK];
	const struct shape *is = o->as[0];
	struct window w;
	struct combiner C;
	unsigned char *acc[MAXRANK], *x[MAXRANK];
	int64_t ist[MAXRANK], idx[MAXRANK] = {0}, k[MAXRANK], i = 0, win = 1;
	const struct shape *os0 = n == 1 ? &o->in->shape :
				  &o->in->shape.elems[0];

	if (n < 1 || n > MAXRANK || o->in->nops != 2 * n || os0->rank !=
	    is->rank || (n > 1 && o->in->shape.nelem != n))
		interp_fail(o->st, INTERP_SKIP, "'%s': reduce-window of "
			    "this form", o->in->name);
	read_window(o, is->rank, &w);
	for (int j = 0; j < n; j++) {
		types[j] = o->as[j]->type;
		acc[j] = o->out[n == 1 ? 0 : 1 + j];
		x[j] = o->arg[j][0];
	}
	combiner_init(o, &C, to_apply(o), n, types);
	strides(is, ist);
	for (int d = 0; d < w.rank; d++)
		win *= w.size[d];
	if (elems(os0) == 0)
		return;
	do {
		for (int j = 0; j < n; j++)
			copy_elem(acc[j], i, o->arg[n + j][0], 0,
				  num_size(types[j]));
		memset(k, 0, sizeof k);
		if (elems(is) > 0 && w.rank >= 0)
			do {
				int64_t off = window_offset(&w, is, ist, idx,
							    k);

				if (off >= 0)
					combine(&C, acc, i, x, off);
			} while (next_index(k, w.size, w.rank));
		interp_work(o->st, win);	/* every window position */
		i++;
	} while (next_index(idx, os0->dims, os0->rank));
	interp_work(o->st, i);
}

/* ---- select-and-scatter ------------------------------------------------- */

static int
comp_attr(struct op *o, const char *key)
{
	int c = called_comp(o->m, o->in, key);

	if (c < 0)
		bad_attr(o, key);
	return c;
}

/* The operand offset the select comparator picks in the window at x:
 * the first valid one kept unless select(kept, next) is false. */
static int64_t
select_in_window(struct op *o, const struct window *w, const int64_t *st,
		 const int64_t *x, int sel)
{
	const struct shape *s = o->as[0];
	int es = num_size(s->type);
	int64_t k[MAXRANK] = {0}, best = -1;
	unsigned char *node[2], **args[2] = {&node[0], &node[1]};

	do {
		int64_t off = window_offset(w, s, st, x, k);

		if (off < 0)
			continue;
		if (best >= 0) {
			node[0] = o->arg[0][0] + best * es;
			node[1] = o->arg[0][0] + off * es;
			if (num_get(DT_PRED, interp_kernel(o->st, sel, args)[0],
				    0).u)
				continue;
		}
		best = off;
	} while (next_index(k, w->size, w->rank));
	return best;
}

static void
select_and_scatter(struct op *o)
{
	const struct shape *s = o->as[0], *src = o->as[1];
	struct window w;
	struct combiner C;
	int sel = comp_attr(o, "select"), es = num_size(s->type);
	int64_t st[MAXRANK], idx[MAXRANK] = {0}, n = elems(s), i = 0, win = 1;
	unsigned char *acc[1] = {o->out[0]}, *x[1] = {o->arg[1][0]};

	if (o->in->nops != 3 || src->rank != s->rank)
		interp_fail(o->st, INTERP_SKIP, "'%s': select-and-scatter of "
			    "this form", o->in->name);
	read_window(o, s->rank, &w);
	for (int d = 0; d < w.rank; d++)
		win *= w.size[d];
	combiner_init(o, &C, comp_attr(o, "scatter"), 1, &s->type);
	for (int64_t j = 0; j < n; j++)
		copy_elem(o->out[0], j, o->arg[2][0], 0, es);
	strides(s, st);
	if (elems(src) > 0 && n > 0)
		do {
			int64_t at = select_in_window(o, &w, st, idx, sel);

			if (at >= 0)
				combine(&C, acc, at, x, i);
			interp_work(o->st, win);
			i++;
		} while (next_index(idx, src->dims, src->rank));
	interp_work(o->st, n + i);
}

/* ---- convolution -------------------------------------------------------- */

/* dim_labels=b01f_01io->b01f: per operand, the dimension of the batch
 * (lhs, out) or input feature (rhs), of the feature (lhs, out) or output
 * feature (rhs), and of each spatial dimension. */
struct labels {
	int b[3], f[3], sp[3][MAXRANK];
	int nsp;
};

static void
read_labels(struct op *o, struct labels *L)
{
	char buf[128];
	const char *t = attr_text(o, "dim_labels", buf, sizeof buf);
	const char *part[3] = {"bf", "io", "bf"};
	int a = 0, d = 0;

	if (!t)
		bad_attr(o, "dim_labels");
	memset(L, -1, sizeof *L);
	L->nsp = 0;
	for (; *t && a < 3; t++) {
		if (*t == '_' || *t == '-' || *t == '>') {
			a += *t != '-';
			d = 0;
			continue;
		}
		if (*t == part[a][0])
			L->b[a] = d;
		else if (*t == part[a][1])
			L->f[a] = d;
		else if (*t >= '0' && *t <= '9' && *t - '0' < MAXRANK)
			L->sp[a][*t - '0'] = d;
		else
			bad_attr(o, "dim_labels");
		if (*t >= '0' && *t <= '9' && *t - '0' + 1 > L->nsp)
			L->nsp = *t - '0' + 1;
		d++;
	}
	if (L->b[0] < 0 || L->f[0] < 0 || L->b[1] < 0 || L->f[1] < 0 ||
	    L->b[2] < 0 || L->f[2] < 0)
		bad_attr(o, "dim_labels");
}

struct conv {
	struct labels L;
	struct window w;
	int64_t lst[MAXRANK], rst[MAXRANK];
	int64_t fgc, bgc, cin, nout, nbatch;
	int ot, fl;		/* the output's type; is it a float? */
	double *lf, *rf;	/* the operands in it: floats, */
	uint64_t *li, *ri;	/* or integers */
};

/* Operand k converted to the output's type, as doubles or integers. */
static void
conv_operand(struct op *o, struct conv *V, int k, double **f, uint64_t **u)
{
	int64_t n = elems(o->as[k]);
	int dt = o->as[k]->type;

	*f = NULL;
	*u = NULL;
	if (V->fl)
		*f = interp_alloc(o->st, sizeof(double) * (size_t)(n + 1));
	else
		*u = interp_alloc(o->st, sizeof(uint64_t) * (size_t)(n + 1));
	for (int64_t i = 0; i < n; i++) {
		union num v = num_convert(dt, V->ot, num_get(dt, o->arg[k][0],
							     i));

		if (V->fl)
			(*f)[i] = v.f;
		else
			(*u)[i] = v.u;
	}
	interp_work(o->st, n);
}

/* One output element: batch b, output feature of, spatial x. */
static union num
conv_one(struct op *o, const struct conv *V, int64_t b, int64_t of,
	 const int64_t *x)
{
	const struct shape *ls = o->as[0];
	int64_t k[MAXRANK] = {0}, g = of / (V->nout / V->fgc);
	int64_t lb = (of / (V->nout / V->bgc)) * V->nbatch + b;
	union num acc;

	memset(&acc, 0, sizeof acc);
	do {
		int64_t lo = lb * V->lst[V->L.b[0]];
		int64_t ro = of * V->rst[V->L.f[1]];
		int ok = 1;

		for (int d = 0; d < V->L.nsp && ok; d++) {
			int ld = V->L.sp[0][d], rd = V->L.sp[1][d];
			int64_t kk = V->w.rev[d] ? V->w.size[d] - 1 - k[d] :
				     k[d];
			int64_t p = base_at(&V->w, d, x[d], k[d],
					    ls->dims[ld]);

			ok = p >= 0;
			lo += p * V->lst[ld];
			ro += kk * V->rst[rd];
		}
		lo += g * V->cin * V->lst[V->L.f[0]];
		for (int64_t c = 0; ok && c < V->cin; c++) {
			int64_t a = lo + c * V->lst[V->L.f[0]];
			int64_t r = ro + c * V->rst[V->L.b[1]];

			if (V->fl)
				acc.f += V->lf[a] * V->rf[r];
			else
				acc.u += V->li[a] * V->ri[r];
		}
	} while (next_index(k, V->w.size, V->w.rank));
	return acc;
}

static void
conv_setup(struct op *o, struct conv *V)
{
	const struct shape *ls = o->as[0], *rs = o->as[1], *os = &o->in->shape;
	int64_t v;

	read_labels(o, &V->L);
	if (V->L.nsp != ls->rank - 2 || ls->rank != rs->rank ||
	    os->rank != ls->rank || ls->rank > MAXRANK)
		bad_attr(o, "dim_labels");
	read_window(o, V->L.nsp, &V->w);
	for (int d = 0; d < V->L.nsp; d++)
		if (V->w.size[d] != rs->dims[V->L.sp[1][d]])
			bad_attr(o, "window");
	V->fgc = attr_ints(o, "feature_group_count", &v, 1) == 1 ? v : 1;
	V->bgc = attr_ints(o, "batch_group_count", &v, 1) == 1 ? v : 1;
	V->cin = rs->dims[V->L.b[1]];
	V->nout = rs->dims[V->L.f[1]];
	V->nbatch = os->dims[V->L.b[2]];
	V->ot = os->type;
	V->fl = num_kind(os->type) == NK_F;
	if (num_kind(os->type) == NK_C || num_kind(os->type) == NK_PRED)
		interp_fail(o->st, INTERP_SKIP, "'%s': convolution of this "
			    "type", o->in->name);
	if (V->fgc < 1 || V->bgc < 1 || V->nout % V->fgc ||
	    V->nout % V->bgc || V->cin * V->fgc != ls->dims[V->L.f[0]] ||
	    V->nbatch * V->bgc != ls->dims[V->L.b[0]] ||
	    os->dims[V->L.f[2]] != V->nout)
		bad_attr(o, "feature_group_count");
	strides(ls, V->lst);
	strides(rs, V->rst);
	conv_operand(o, V, 0, &V->lf, &V->li);
	conv_operand(o, V, 1, &V->rf, &V->ri);
}

static void
convolution(struct op *o)
{
	const struct shape *os = &o->in->shape;
	struct conv V;
	int64_t idx[MAXRANK] = {0}, x[MAXRANK], i = 0, win = 1;

	conv_setup(o, &V);
	for (int d = 0; d < V.L.nsp; d++)
		win *= V.w.size[d];
	if (elems(os) == 0)
		return;
	do {
		for (int d = 0; d < V.L.nsp; d++)
			x[d] = idx[V.L.sp[2][d]];
		num_put(os->type, o->out[0], i++,
			conv_one(o, &V, idx[V.L.b[2]], idx[V.L.f[2]], x));
		interp_work(o->st, win * V.cin + 1);
	} while (next_index(idx, os->dims, os->rank));
	interp_release(o->st, V.fl ? (void *)V.lf : (void *)V.li);
	interp_release(o->st, V.fl ? (void *)V.rf : (void *)V.ri);
}

const struct kernel window_kernels[] = {
	{"reduce-window", reduce_window, 1},
	{"select-and-scatter", select_and_scatter, 0},
	{"convolution", convolution, 0},
};
const int window_nkernels = sizeof window_kernels / sizeof window_kernels[0];

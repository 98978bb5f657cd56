/* Composite ops that real models use, on their defining formulas (XLA's
 * operation semantics): batch-norm-training, -inference and -grad over a
 * feature dimension, computed in double; fft, term by term; topk along
 * the last dimension. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/arrays.h"

/* The feature dimension's extent and stride, epsilon. */
struct bn {
	int64_t nf, fstride, n, per;	/* features, stride, elements,
					   elements per feature */
	double eps;
	int dt;
};

static void
bn_setup(struct op *o, struct bn *B)
{
	const struct shape *s = o->as[0];
	int64_t f, st[MAXRANK];
	char buf[64];
	const char *e = attr_text(o, "epsilon", buf, sizeof buf);

	need_ints(o, "feature_index", &f, 1, 0);
	if (f >= s->rank || s->rank > MAXRANK || num_kind(s->type) != NK_F)
		bad_attr(o, "feature_index");
	strides(s, st);
	B->nf = s->dims[f];
	B->fstride = st[f];
	B->n = elems(s);
	B->per = B->nf ? B->n / B->nf : 0;
	B->eps = e ? strtod(e, NULL) : 0;
	B->dt = s->type;
}

static double
get(struct op *o, int k, int64_t i)
{
	return num_get(o->as[k]->type, o->arg[k][0], i).f;
}

static void
put(unsigned char *p, int dt, int64_t i, double v)
{
	union num x;

	memset(&x, 0, sizeof x);
	x.f = v;
	num_put(dt, p, i, x);
}

/* Per feature: the sum of operand k, and of (x - mean) * operand k (or
 * its square when k < 0), into sum and dev. */
static void
bn_sums(struct op *o, const struct bn *B, const double *mean, int k,
	double *sum, double *dev)
{
	for (int64_t i = 0; i < B->n; i++) {
		int64_t f = i / B->fstride % B->nf;
		double x = get(o, 0, i) - (mean ? mean[f] : 0);
		double y = k < 0 ? x : get(o, k, i);

		sum[f] += k < 0 ? get(o, 0, i) : y;
		dev[f] += x * y;
	}
	interp_work(o->st, B->n);
}

/* out = (x - mean) / sqrt(var + eps) * scale + offset */
static void
bn_normalize(struct op *o, const struct bn *B, const double *mean,
	     const double *var, int sc, int off)
{
	for (int64_t i = 0; i < B->n; i++) {
		int64_t f = i / B->fstride % B->nf;

		put(o->out[shape_is_tuple(&o->in->shape) ? 1 : 0], B->dt, i,
		    (get(o, 0, i) - mean[f]) / sqrt(var[f] + B->eps) *
		    get(o, sc, f) + get(o, off, f));
	}
	interp_work(o->st, B->n);
}

static void
batch_norm_training(struct op *o)
{
	struct bn B;
	double *sum, *mean, *var;

	bn_setup(o, &B);
	sum = interp_alloc(o->st, sizeof(double) * (size_t)(3 * B.nf + 1));
	mean = sum + B.nf;
	var = mean + B.nf;
	bn_sums(o, &B, NULL, 0, sum, var);
	for (int64_t f = 0; f < B.nf; f++)
		mean[f] = B.per ? sum[f] / (double)B.per : 0;
	memset(sum, 0, sizeof(double) * (size_t)B.nf);
	memset(var, 0, sizeof(double) * (size_t)B.nf);
	bn_sums(o, &B, mean, -1, sum, var);
	for (int64_t f = 0; f < B.nf; f++) {
		var[f] = B.per ? var[f] / (double)B.per : 0;
		put(o->out[2], B.dt, f, mean[f]);
		put(o->out[3], B.dt, f, var[f]);
	}
	bn_normalize(o, &B, mean, var, 1, 2);
	interp_release(o->st, sum);
}

static void
batch_norm_inference(struct op *o)
{
	struct bn B;
	double *mean, *var;

	bn_setup(o, &B);
	mean = interp_alloc(o->st, sizeof(double) * (size_t)(2 * B.nf + 1));
	var = mean + B.nf;
	for (int64_t f = 0; f < B.nf; f++) {
		mean[f] = get(o, 3, f);
		var[f] = get(o, 4, f);
	}
	bn_normalize(o, &B, mean, var, 1, 2);
	interp_release(o->st, mean);
}

/* (operand, scale, mean, variance, grad_output) -> (grad_operand,
 * grad_scale, grad_offset). */
static void
batch_norm_grad(struct op *o)
{
	struct bn B;
	double *mean, *sdy, *sdyx;

	bn_setup(o, &B);
	mean = interp_alloc(o->st, sizeof(double) * (size_t)(3 * B.nf + 1));
	sdy = mean + B.nf;
	sdyx = sdy + B.nf;
	for (int64_t f = 0; f < B.nf; f++)
		mean[f] = get(o, 2, f);
	bn_sums(o, &B, mean, 4, sdy, sdyx);
	for (int64_t i = 0; i < B.n; i++) {
		int64_t f = i / B.fstride % B.nf;
		double r = 1 / sqrt(get(o, 3, f) + B.eps), n = (double)B.per;
		double xc = get(o, 0, i) - mean[f];

		put(o->out[1], B.dt, i, get(o, 1, f) * r / n *
		    (n * get(o, 4, i) - sdy[f] - xc * r * r * sdyx[f]));
	}
	for (int64_t f = 0; f < B.nf; f++) {
		put(o->out[2], B.dt, f, sdyx[f] / sqrt(get(o, 3, f) + B.eps));
		put(o->out[3], B.dt, f, sdy[f]);
	}
	interp_work(o->st, B.n);
	interp_release(o->st, mean);
}

/* ---- fft: the discrete Fourier transform, term by term --------------- */

static const double PI = 3.14159265358979323846;

/* e^(sign 2 pi i a / n), exact at the quarter turns. */
static double complex
twiddle(int64_t a, int64_t n, int sign)
{
	static const double complex quarter[4] = {1, I, -1, -I};

	if (4 * a % n == 0)
		return quarter[(sign > 0 ? 4 * a / n : 4 - 4 * a / n) % 4];
	return cexp(sign * 2 * PI * I * (double)a / (double)n);
}

/* One line of n points at stride st along a dimension: its DFT (sign -1)
 * or inverse (sign +1, scaled by 1/n); tmp holds n points. */
static void
dft_line(double complex *x, int64_t n, int64_t st, int sign,
	 double complex *tmp)
{
	for (int64_t k = 0; k < n; k++) {
		double complex s = 0;

		for (int64_t j = 0; j < n; j++)
			s += x[j * st] * twiddle(j * k % n, n, sign);
		tmp[k] = sign > 0 ? s / (double)n : s;
	}
	for (int64_t k = 0; k < n; k++)
		x[k * st] = tmp[k];
}

/* Every line along dimension d of the array x of shape dims[rank]. */
static void
dft_dim(struct op *o, double complex *x, const int64_t *dims, int rank,
	int d, int sign)
{
	int64_t st = 1, n = dims[d], total = 1;
	double complex *tmp = interp_alloc(o->st, sizeof *tmp *
					   (size_t)(n + 1));

	for (int k = 0; k < rank; k++)
		total *= dims[k];
	for (int k = d + 1; k < rank; k++)
		st *= dims[k];
	for (int64_t b = 0; n > 0 && b < total; b++)
		if (b / st % n == 0)	/* the first point of a line */
			dft_line(x + b, n, st, sign, tmp);
	interp_work(o->st, total * n);
	interp_release(o->st, tmp);
}

/* IRFFT's last dimension: the half spectrum at src (m = n/2+1 points a
 * line) made whole by Hermitian symmetry, into x (n points a line). */
static void
hermitian(double complex *x, const double complex *src, int64_t rows,
	  int64_t m, int64_t n)
{
	for (int64_t r = 0; r < rows; r++)
		for (int64_t k = 0; k < n; k++)
			x[r * n + k] = k < m ? src[r * m + k] :
				       conj(src[r * m + n - k]);
}

static void
fft(struct op *o)
{
	const struct shape *s = o->as[0], *os = &o->in->shape;
	int64_t len[3], dims[MAXRANK], n, rows;
	int nl = need_ints(o, "fft_length", len, -1, 0), r = s->rank;
	char buf[16];
	const char *t = attr_text(o, "fft_type", buf, sizeof buf);
	int inv = t && (!strcmp(t, "IFFT") || !strcmp(t, "IRFFT"));
	int real_in = t && !strcmp(t, "RFFT"), real_out = t &&
							 !strcmp(t, "IRFFT");
	double complex *x, *h;

	if (!t || nl < 1 || nl > 3 || nl > r || os->rank != r)
		bad_attr(o, "fft_length");
	memcpy(dims, os->dims, sizeof(int64_t) * (size_t)r);
	for (int k = 0; k < nl; k++)
		dims[r - nl + k] = len[k];
	n = len[nl - 1];
	rows = n ? elems(os) / (real_in ? n / 2 + 1 : os->dims[r - 1]) : 0;
	x = interp_alloc(o->st, sizeof *x * (size_t)(rows * n + 1));
	h = interp_alloc(o->st, sizeof *h * (size_t)(elems(s) + 1));
	for (int64_t i = 0; i < elems(s); i++) {
		union num v = num_get(s->type, o->arg[0][0], i);

		h[i] = num_kind(s->type) == NK_C ? v.c.re + I * v.c.im : v.f;
	}
	if (real_out) {	/* the outer dimensions first, on the half */
		dims[r - 1] = n / 2 + 1;
		for (int k = r - nl; k < r - 1; k++)
			dft_dim(o, h, dims, r, k, 1);
		dims[r - 1] = n;
		hermitian(x, h, rows, n / 2 + 1, n);
		dft_dim(o, x, dims, r, r - 1, 1);
	} else {
		memcpy(x, h, sizeof *x * (size_t)(rows * n));
		for (int k = r - nl; k < r; k++)
			dft_dim(o, x, dims, r, k, inv ? 1 : -1);
	}
	for (int64_t i = 0; i < elems(os); i++) {
		int64_t m = os->dims[r - 1], at = i / m * n + i % m;
		union num v;

		v.c.re = creal(x[at]);
		v.c.im = cimag(x[at]);
		num_put(os->type, o->out[0], i, v);
	}
	interp_release(o->st, x);
	interp_release(o->st, h);
}

/* ---- topk --------------------------------------------------------------- */

struct ranked {
	double v;
	int64_t i;
};

/* Larger first (NaN largest), then the lower index. */
static int
by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int xn = isnan(x->v), yn = isnan(y->v);

	if (xn != yn)
		return yn - xn;
	if (!xn && x->v != y->v)
		return x->v > y->v ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static void
topk(struct op *o)
{
	const struct shape *s = o->as[0], *os = &o->in->shape;
	int64_t k, n, rows, largest = 1;
	struct ranked *r;
	char buf[16];
	const char *l = attr_text(o, "largest", buf, sizeof buf);

	need_ints(o, "k", &k, 1, 0);
	if (s->rank < 1 || !shape_is_tuple(os) || os->nelem != 2 ||
	    k > s->dims[s->rank - 1])
		bad_attr(o, "k");
	largest = !l || strcmp(l, "false");
	n = s->dims[s->rank - 1];
	rows = n ? elems(s) / n : 0;
	r = interp_alloc(o->st, sizeof *r * (size_t)(n + 1));
	for (int64_t row = 0; row < rows; row++) {
		for (int64_t j = 0; j < n; j++) {
			double v = num_get(s->type, o->arg[0][0],
					   row * n + j).f;

			r[j].v = largest ? v : -v;
			r[j].i = j;
		}
		qsort(r, (size_t)n, sizeof *r, by_rank);
		for (int64_t j = 0; j < k; j++) {
			union num ix = {.s = r[j].i};

			copy_elem(o->out[1], row * k + j, o->arg[0][0],
				  row * n + r[j].i, num_size(s->type));
			num_put(os->elems[1].type, o->out[2], row * k + j, ix);
		}
		interp_work(o->st, n + 1);
	}
	interp_release(o->st, r);
}

const struct kernel extra_kernels[] = {
	{"batch-norm-training", batch_norm_training, 1},
	{"batch-norm-inference", batch_norm_inference, 0},
	{"batch-norm-grad", batch_norm_grad, 1}, {"topk", topk, 1},
	{"fft", fft, 0},
};
const int extra_nkernels = sizeof extra_kernels / sizeof extra_kernels[0];

/* Element values: load, store, convert, and HLO's elementwise arithmetic
 * (XLA's HloEvaluator semantics: integer division by zero gives -1, a
 * shift by the width or more gives 0, maximum and minimum propagate NaN). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "tests/oracle/num.h"

static const struct {
	unsigned char kind, size;
} types[DT_COUNT] = {
	[DT_PRED] = {NK_PRED, 1},
	[DT_S8] = {NK_S, 1}, [DT_S16] = {NK_S, 2}, [DT_S32] = {NK_S, 4},
	[DT_S64] = {NK_S, 8}, [DT_U8] = {NK_U, 1}, [DT_U16] = {NK_U, 2},
	[DT_U32] = {NK_U, 4}, [DT_U64] = {NK_U, 8}, [DT_F16] = {NK_F, 2},
	[DT_BF16] = {NK_F, 2}, [DT_F32] = {NK_F, 4}, [DT_F64] = {NK_F, 8},
	[DT_C64] = {NK_C, 8}, [DT_C128] = {NK_C, 16},
	[DT_F8E5M2] = {NK_F, 1}, [DT_F8E4M3] = {NK_F, 1},
	[DT_F8E4M3FN] = {NK_F, 1}, [DT_F8E4M3B11FNUZ] = {NK_F, 1},
	[DT_F8E5M2FNUZ] = {NK_F, 1}, [DT_F8E4M3FNUZ] = {NK_F, 1},
	[DT_F8E3M4] = {NK_F, 1}, [DT_F8E8M0FNU] = {NK_F, 1},
};

int
num_kind(int dt)
{
	return dt > 0 && dt < DT_COUNT ? types[dt].kind : NK_NONE;
}

int
num_size(int dt)
{
	return dt > 0 && dt < DT_COUNT ? types[dt].size : 0;
}

/* ---- the float formats -------------------------------------------------- */

static float
bits_f32(uint32_t x)
{
	float f;

	memcpy(&f, &x, 4);
	return f;
}

static uint32_t
f32_bits(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	return x;
}

static uint16_t
f32_to_bf16(float f)
{
	uint32_t x = f32_bits(f);

	if (isnan(f))
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

/* Rounds r (the bits above `shift`) to nearest even by the bits below. */
static uint32_t
round_even(uint32_t m, int shift)
{
	uint32_t r = m >> shift, rem = m & ((1u << shift) - 1);
	uint32_t half = 1u << (shift - 1);

	return r + (rem > half || (rem == half && (r & 1)));
}

static uint16_t
f32_to_f16(float f)
{
	uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000;
	uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
	int e = (int)exp - 112;

	if (exp == 0xff)
		return (uint16_t)(sign | 0x7c00 |
				  (man ? 0x200 | man >> 13 : 0));
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		return (uint16_t)(sign | round_even(man | 0x800000, 14 - e));
	}
	return (uint16_t)(sign | round_even(((uint32_t)e << 23) | man, 13));
}

static double
f16_to_double(uint16_t h)
{
	int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;

	if (exp == 0)
		return copysign(ldexp(man, -24), sign ? -1.0 : 1.0);
	if (exp == 31)
		return bits_f32(sign | 0x7f800000 | (uint32_t)man << 13);
	return bits_f32(sign | (uint32_t)(exp + 112) << 23 |
			(uint32_t)man << 13);
}

/* ---- load and store ----------------------------------------------------- */

union num
num_get(int dt, const unsigned char *base, int64_t i)
{
	const unsigned char *p = base + i * num_size(dt);
	union num v = {.u = 0};
	int8_t s8; int16_t s16; int32_t s32;
	uint16_t u16; uint32_t u32;
	float f;

	switch (dt) {
	case DT_PRED: v.u = *p != 0; break;
	case DT_S8: memcpy(&s8, p, 1); v.s = s8; break;
	case DT_S16: memcpy(&s16, p, 2); v.s = s16; break;
	case DT_S32: memcpy(&s32, p, 4); v.s = s32; break;
	case DT_S64: memcpy(&v.s, p, 8); break;
	case DT_U8: v.u = *p; break;
	case DT_U16: memcpy(&u16, p, 2); v.u = u16; break;
	case DT_U32: memcpy(&u32, p, 4); v.u = u32; break;
	case DT_U64: memcpy(&v.u, p, 8); break;
	case DT_F16: memcpy(&u16, p, 2); v.f = f16_to_double(u16); break;
	case DT_BF16:
		memcpy(&u16, p, 2);
		v.f = bits_f32((uint32_t)u16 << 16);
		break;
	case DT_F32: memcpy(&f, p, 4); v.f = f; break;
	case DT_F64: memcpy(&v.f, p, 8); break;
	case DT_C64:
		memcpy(&f, p, 4);
		v.c.re = f;
		memcpy(&f, p + 4, 4);
		v.c.im = f;
		break;
	case DT_C128: memcpy(&v.c.re, p, 8); memcpy(&v.c.im, p + 8, 8); break;
	default:
		if (num_is_f8(dt))
			v.f = num_f8_decode(dt, *p);
		break;
	}
	return v;
}

void
num_put(int dt, unsigned char *base, int64_t i, union num v)
{
	unsigned char *p = base + i * num_size(dt);
	uint16_t u16;
	uint32_t u32;
	float f;

	switch (dt) {
	case DT_PRED: *p = v.u != 0; break;
	case DT_S8: case DT_U8: *p = (unsigned char)v.u; break;
	case DT_S16: case DT_U16:
		u16 = (uint16_t)v.u;
		memcpy(p, &u16, 2);
		break;
	case DT_S32: case DT_U32:
		u32 = (uint32_t)v.u;
		memcpy(p, &u32, 4);
		break;
	case DT_S64: case DT_U64: memcpy(p, &v.u, 8); break;
	case DT_F16: u16 = f32_to_f16((float)v.f); memcpy(p, &u16, 2); break;
	case DT_BF16: u16 = f32_to_bf16((float)v.f); memcpy(p, &u16, 2); break;
	case DT_F32: f = (float)v.f; memcpy(p, &f, 4); break;
	case DT_F64: memcpy(p, &v.f, 8); break;
	case DT_C64:
		f = (float)v.c.re;
		memcpy(p, &f, 4);
		f = (float)v.c.im;
		memcpy(p + 4, &f, 4);
		break;
	case DT_C128: memcpy(p, &v.c.re, 8); memcpy(p + 8, &v.c.im, 8); break;
	default:
		if (num_is_f8(dt))
			*p = (unsigned char)num_f8_encode(dt, v.f);
		break;
	}
}

/* ---- convert ------------------------------------------------------------ */

static double
int_max(int dt)
{
	return ldexp(1.0, dtype_bits(dt) - (num_kind(dt) == NK_S)) - 1;
}

static union num
float_to_int(double f, int to)
{
	union num r = {.u = 0};
	double hi = int_max(to), lo = num_kind(to) == NK_S ? -hi - 1 : 0;

	if (isnan(f))
		return r;
	f = trunc(f);
	if (num_kind(to) == NK_S) {
		r.s = f <= lo ? (int64_t)lo : f >= hi ?
			(dtype_bits(to) == 64 ? INT64_MAX : (int64_t)hi) :
			(int64_t)f;
		return r;
	}
	r.u = f <= 0 ? 0 : f >= hi ?
		(dtype_bits(to) == 64 ? UINT64_MAX : (uint64_t)hi) :
		(uint64_t)f;
	return r;
}

union num
num_convert(int from, int to, union num v)
{
	int kf = num_kind(from), kt = num_kind(to);
	union num r = v;

	if (kf == NK_C && kt != NK_C)
		kf = NK_F;	/* the real part */
	if (kt == NK_C) {
		r = num_convert(from, DT_F64, v);
		if (kf != NK_C)
			r.c.im = 0;
	} else if (kt == NK_PRED) {
		r.u = kf == NK_F ? v.f != 0 : v.u != 0;
	} else if (kt == NK_F) {
		if (kf == NK_S)
			r.f = (double)v.s;
		else if (kf != NK_F)
			r.f = (double)v.u;
	} else if (kf == NK_F) {
		r = float_to_int(v.f, to);
	}
	return r;
}

void
num_format(int dt, const unsigned char *base, int64_t i, char *buf, int n)
{
	union num v = num_get(dt, base, i);
	uint64_t bits = 0;
	int sz = num_size(dt);

	memcpy(&bits, base + i * sz, (size_t)(sz > 8 ? 8 : sz));
	switch (num_kind(dt)) {
	case NK_F:
		snprintf(buf, (size_t)n, "%.9g (0x%0*llx)", v.f, 2 * sz,
			 (unsigned long long)bits);
		break;
	case NK_C:
		snprintf(buf, (size_t)n, "(%.9g,%.9g)", v.c.re, v.c.im);
		break;
	case NK_S:
		snprintf(buf, (size_t)n, "%lld", (long long)v.s);
		break;
	default:
		snprintf(buf, (size_t)n, "%llu", (unsigned long long)v.u);
		break;
	}
}

void
num_print(int dt, const unsigned char *base, int64_t i, char *buf, int n)
{
	union num v = num_get(dt, base, i);

	switch (num_kind(dt)) {
	case NK_F: snprintf(buf, (size_t)n, "%.9g", v.f); break;
	case NK_C:
		snprintf(buf, (size_t)n, "%.9g,%.9g", v.c.re, v.c.im);
		break;
	case NK_S: snprintf(buf, (size_t)n, "%lld", (long long)v.s); break;
	default:
		snprintf(buf, (size_t)n, "%llu", (unsigned long long)v.u);
		break;
	}
}

/* ---- elementwise ops ---------------------------------------------------- */

static const char *const op_names[EW_NBINARY] = {
	[EW_ABS] = "abs", [EW_NEGATE] = "negate", [EW_NOT] = "not",
	[EW_EXP] = "exponential", [EW_EXPM1] = "exponential-minus-one",
	[EW_LOG] = "log", [EW_LOG1P] = "log-plus-one", [EW_SQRT] = "sqrt",
	[EW_RSQRT] = "rsqrt", [EW_CBRT] = "cbrt", [EW_TANH] = "tanh",
	[EW_LOGISTIC] = "logistic", [EW_SINE] = "sine",
	[EW_COSINE] = "cosine", [EW_TAN] = "tan", [EW_ATAN] = "atan",
	[EW_SINH] = "sinh", [EW_COSH] = "cosh", [EW_ASIN] = "asin",
	[EW_ACOS] = "acos", [EW_ASINH] = "asinh", [EW_ACOSH] = "acosh",
	[EW_ATANH] = "atanh", [EW_ERF] = "erf", [EW_FLOOR] = "floor",
	[EW_CEIL] = "ceil", [EW_ROUND_AFZ] = "round-nearest-afz",
	[EW_ROUND_EVEN] = "round-nearest-even", [EW_SIGN] = "sign",
	[EW_IS_FINITE] = "is-finite", [EW_POPCNT] = "popcnt",
	[EW_CLZ] = "clz", [EW_COPY] = "copy",
	[EW_ADD] = "add", [EW_SUBTRACT] = "subtract",
	[EW_MULTIPLY] = "multiply", [EW_DIVIDE] = "divide",
	[EW_REMAINDER] = "remainder", [EW_MAXIMUM] = "maximum",
	[EW_MINIMUM] = "minimum", [EW_POWER] = "power", [EW_ATAN2] = "atan2",
	[EW_AND] = "and", [EW_OR] = "or", [EW_XOR] = "xor",
	[EW_SHL] = "shift-left", [EW_SHRA] = "shift-right-arithmetic",
	[EW_SHRL] = "shift-right-logical",
};

int
num_op_lookup(const char *name)
{
	for (int op = 0; op < EW_NBINARY; op++)
		if (op_names[op] && !strcmp(op_names[op], name))
			return op;
	return -1;
}

int
num_op_accepts(int op, int kind)
{
	switch (op) {
	case EW_COPY: case EW_MAXIMUM: case EW_MINIMUM:
		return kind != NK_NONE;
	case EW_AND: case EW_OR: case EW_XOR: case EW_NOT:
		return kind == NK_PRED || kind == NK_S || kind == NK_U;
	case EW_SHL: case EW_SHRA: case EW_SHRL: case EW_POPCNT: case EW_CLZ:
		return kind == NK_S || kind == NK_U;
	case EW_ABS: case EW_NEGATE: case EW_SIGN: case EW_ADD:
	case EW_SUBTRACT: case EW_MULTIPLY: case EW_DIVIDE: case EW_POWER:
		return kind == NK_F || kind == NK_S || kind == NK_U ||
		       kind == NK_C;
	case EW_REMAINDER:
		return kind == NK_F || kind == NK_S || kind == NK_U;
	case EW_EXP: case EW_EXPM1: case EW_LOG: case EW_LOG1P: case EW_SQRT:
	case EW_RSQRT: case EW_TANH: case EW_SINE: case EW_COSINE:
	case EW_TAN: case EW_IS_FINITE:
		return kind == NK_F || kind == NK_C;
	default:
		return kind == NK_F;
	}
}

static double
fmax_nan(double a, double b, int max)
{
	if (isnan(a))
		return a;
	if (isnan(b))
		return b;
	return max ? (a > b ? a : b) : (a < b ? a : b);
}

static double
float_unary(int op, double a)
{
	switch (op) {
	case EW_ABS: return fabs(a);
	case EW_NEGATE: return -a;
	case EW_EXP: return exp(a);
	case EW_EXPM1: return expm1(a);
	case EW_LOG: return log(a);
	case EW_LOG1P: return log1p(a);
	case EW_SQRT: return sqrt(a);
	case EW_RSQRT: return 1 / sqrt(a);
	case EW_CBRT: return cbrt(a);
	case EW_TANH: return tanh(a);
	case EW_LOGISTIC: return 1 / (1 + exp(-a));
	case EW_SINE: return sin(a);
	case EW_COSINE: return cos(a);
	case EW_TAN: return tan(a);
	case EW_ATAN: return atan(a);
	case EW_SINH: return sinh(a);
	case EW_COSH: return cosh(a);
	case EW_ASIN: return asin(a);
	case EW_ACOS: return acos(a);
	case EW_ASINH: return asinh(a);
	case EW_ACOSH: return acosh(a);
	case EW_ATANH: return atanh(a);
	case EW_ERF: return erf(a);
	case EW_FLOOR: return floor(a);
	case EW_CEIL: return ceil(a);
	case EW_ROUND_AFZ: return round(a);
	case EW_ROUND_EVEN: return nearbyint(a);
	case EW_SIGN: return isnan(a) || a == 0 ? a : a > 0 ? 1 : -1;
	default: return a;
	}
}

static double
float_binary(int op, double a, double b)
{
	switch (op) {
	case EW_ADD: return a + b;
	case EW_SUBTRACT: return a - b;
	case EW_MULTIPLY: return a * b;
	case EW_DIVIDE: return a / b;
	case EW_REMAINDER: return fmod(a, b);
	case EW_MAXIMUM: return fmax_nan(a, b, 1);
	case EW_MINIMUM: return fmax_nan(a, b, 0);
	case EW_POWER: return pow(a, b);
	case EW_ATAN2: return atan2(a, b);
	default: return a;
	}
}

/* The value of the low w bits of x, sign-extended. */
static int64_t
sign_extend(uint64_t x, int w)
{
	uint64_t m = w == 64 ? 0 : UINT64_MAX << w;

	if (w < 64 && (x >> (w - 1) & 1))
		x |= m;
	else
		x &= ~m;
	return (int64_t)x;
}

static uint64_t
low_bits(uint64_t x, int w)
{
	return w == 64 ? x : x & ((UINT64_C(1) << w) - 1);
}

static uint64_t
int_power(int64_t a, int64_t b, int is_signed)
{
	uint64_t r = 1, base = (uint64_t)a, e = (uint64_t)b;

	if (is_signed && b < 0)
		return a == 1 ? 1 : a == -1 ? (b & 1 ? (uint64_t)-1 : 1) : 0;
	for (; e; e >>= 1, base *= base)
		if (e & 1)
			r *= base;
	return r;
}

static int
clz_bits(uint64_t x, int w)
{
	int n = 0;

	for (int k = w - 1; k >= 0 && !(x >> k & 1); k--)
		n++;
	return n;
}

static int
popcount(uint64_t x)
{
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

static union num
int_divide(int op, int sig, union num a, union num b)
{
	union num r;

	if (op == EW_DIVIDE) {
		if (sig)
			r.u = b.s == 0 ? UINT64_MAX : b.s == -1 ? 0 - a.u :
			      (uint64_t)(a.s / b.s);
		else
			r.u = b.u == 0 ? UINT64_MAX : a.u / b.u;
		return r;
	}
	if (sig)
		r.u = b.s == 0 ? a.u : b.s == -1 ? 0 : (uint64_t)(a.s % b.s);
	else
		r.u = b.u == 0 ? a.u : a.u % b.u;
	return r;
}

/* A shift by b, which is out of range when not in [0, w). */
static union num
int_shift(int op, int sig, int w, union num a, union num b)
{
	int in = sig ? (b.s >= 0 && b.s < w) : b.u < (uint64_t)w;
	int64_t sx = sign_extend(a.u, w);
	union num r;

	if (op == EW_SHRA) {
		int k = in ? (int)b.u : w - 1;

		r.s = sx < 0 ? ~(~sx >> k) : sx >> k;
		return r;
	}
	if (!in)
		r.u = 0;
	else if (op == EW_SHL)
		r.u = a.u << b.u;
	else
		r.u = low_bits(a.u, w) >> b.u;
	return r;
}

static union num
int_apply(int op, int dt, union num a, union num b)
{
	int sig = num_kind(dt) == NK_S, w = dtype_bits(dt);
	union num r = a;

	switch (op) {
	case EW_ABS: r.u = sig && a.s < 0 ? 0 - a.u : a.u; break;
	case EW_NEGATE: r.u = 0 - a.u; break;
	case EW_NOT: r.u = num_kind(dt) == NK_PRED ? !a.u : ~a.u; break;
	case EW_SIGN:
		r.s = sig ? (a.s > 0) - (a.s < 0) : a.u != 0;
		break;
	case EW_POPCNT: r.u = (uint64_t)popcount(low_bits(a.u, w)); break;
	case EW_CLZ: r.u = (uint64_t)clz_bits(a.u, w); break;
	case EW_ADD: r.u = a.u + b.u; break;
	case EW_SUBTRACT: r.u = a.u - b.u; break;
	case EW_MULTIPLY: r.u = a.u * b.u; break;
	case EW_DIVIDE: case EW_REMAINDER: r = int_divide(op, sig, a, b); break;
	case EW_MAXIMUM:
		r = sig ? (a.s > b.s ? a : b) : (a.u > b.u ? a : b);
		break;
	case EW_MINIMUM:
		r = sig ? (a.s < b.s ? a : b) : (a.u < b.u ? a : b);
		break;
	case EW_POWER: r.u = int_power(a.s, b.s, sig); break;
	case EW_AND: r.u = a.u & b.u; break;
	case EW_OR: r.u = a.u | b.u; break;
	case EW_XOR: r.u = a.u ^ b.u; break;
	case EW_SHL: case EW_SHRA: case EW_SHRL:
		r = int_shift(op, sig, w, a, b);
		break;
	default: break;
	}
	return r;
}

/* Complex arithmetic, as XLA's evaluator does it with std::complex. */
static union num
complex_apply(int op, union num a, union num b)
{
	double complex x = a.c.re + I * a.c.im, y = b.c.re + I * b.c.im, z;
	union num r;

	switch (op) {
	case EW_ABS: z = cabs(x); break;
	case EW_NEGATE: z = -x; break;
	case EW_SIGN: z = x == 0 ? 0 : x / cabs(x); break;
	case EW_EXP: z = cexp(x); break;
	case EW_EXPM1: z = cexp(x) - 1; break;
	case EW_LOG: z = clog(x); break;
	case EW_LOG1P: z = clog(1 + x); break;
	case EW_SQRT: z = csqrt(x); break;
	case EW_RSQRT: z = 1 / csqrt(x); break;
	case EW_TANH: z = ctanh(x); break;
	case EW_SINE: z = csin(x); break;
	case EW_COSINE: z = ccos(x); break;
	case EW_TAN: z = ctan(x); break;
	case EW_ADD: z = x + y; break;
	case EW_SUBTRACT: z = x - y; break;
	case EW_MULTIPLY: z = x * y; break;
	case EW_DIVIDE: z = x / y; break;
	case EW_POWER: z = cpow(x, y); break;
	case EW_IS_FINITE:
		r.u = isfinite(a.c.re) && isfinite(a.c.im);
		return r;
	default: z = x; break;
	}
	r.c.re = creal(z);
	r.c.im = cimag(z);
	return r;
}

union num
num_apply(int op, int dt, union num a, union num b)
{
	union num r;

	if (num_kind(dt) == NK_C)
		return complex_apply(op, a, b);
	if (num_kind(dt) != NK_F)
		return int_apply(op, dt, a, b);
	if (op == EW_IS_FINITE) {
		r.u = isfinite(a.f) != 0;
		return r;
	}
	r.f = op < EW_NUNARY ? float_unary(op, a.f) :
			       float_binary(op, a.f, b.f);
	return r;
}

int
num_direction(const char *s, int n)
{
	static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};

	for (int d = 0; d < 6; d++)
		if (n == 2 && !memcmp(s, dirs[d], 2))
			return d;
	return -1;
}

/* The total order of floats: -NaN < -Inf < ... < -0 < +0 < ... < NaN. */
static int64_t
total_key(double f)
{
	int64_t k;

	memcpy(&k, &f, 8);
	return k < 0 ? k ^ INT64_MAX : k;
}

static int
order(int dir, int lt, int eq)
{
	switch (dir) {
	case CMP_EQ: return eq;
	case CMP_NE: return !eq;
	case CMP_LT: return lt;
	case CMP_LE: return lt || eq;
	case CMP_GT: return !lt && !eq;
	default: return !lt;
	}
}

int
num_compare(int dir, int total, int dt, union num a, union num b)
{
	switch (num_kind(dt)) {
	case NK_C:
		return order(dir, 0, a.c.re == b.c.re && a.c.im == b.c.im);
	case NK_F:
		if (total)
			return order(dir, total_key(a.f) < total_key(b.f),
				     total_key(a.f) == total_key(b.f));
		switch (dir) {
		case CMP_EQ: return a.f == b.f;
		case CMP_NE: return a.f != b.f;
		case CMP_LT: return a.f < b.f;
		case CMP_LE: return a.f <= b.f;
		case CMP_GT: return a.f > b.f;
		default: return a.f >= b.f;
		}
	case NK_S:
		return order(dir, a.s < b.s, a.s == b.s);
	default:
		return order(dir, a.u < b.u, a.u == b.u);
	}
}

/* XLA's ReducePrecision on the bits of an IEEE float with `mant` mantissa
 * and `expo` exponent bits, of width w (32 or 64). */
static uint64_t
reduce_bits(uint64_t x, int w, int mant, int expo, int ebits, int mbits)
{
	uint64_t top = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;

	if (mbits < mant) {
		uint64_t last = UINT64_C(1) << (mant - mbits);
		uint64_t bias = (last >> 1) - 1 +
				((x & last) >> (mant - mbits));

		x = ((x + bias) & top) & ~(last - 1);
	}
	if (ebits < expo) {
		uint64_t sign = UINT64_C(1) << (w - 1);
		uint64_t emask = ((UINT64_C(1) << expo) - 1) << mant;
		uint64_t ebias = (UINT64_C(1) << (expo - 1)) - 1;
		uint64_t rbias = (UINT64_C(1) << (ebits - 1)) - 1;
		uint64_t e = x & emask;

		if (e > (ebias + rbias) << mant)
			x = (x & sign) | emask;
		else if (e <= (ebias - rbias) << mant)
			x &= sign;
	}
	return x;
}

union num
num_reduce_precision(int dt, union num a, int ebits, int mbits)
{
	union num r = a;

	if (isnan(a.f)) {
		if (mbits == 0)
			r.f = INFINITY;
		return r;
	}
	if (dt == DT_F64) {
		uint64_t x;

		memcpy(&x, &a.f, 8);
		x = reduce_bits(x, 64, 52, 11, ebits, mbits);
		memcpy(&r.f, &x, 8);
		return r;
	}
	r.f = bits_f32((uint32_t)reduce_bits(f32_bits((float)a.f), 32, 23, 8,
					     ebits, mbits));
	return r;
}

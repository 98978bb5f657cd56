/* The 8-bit float formats (OCP FP8 and the FNUZ variants, as ml_dtypes
 * defines them): decoding to double and encoding to nearest even.  A value
 * past the largest finite becomes infinity where the format has one, NaN
 * otherwise; FNUZ formats have a single NaN (0x80) and no negative zero. */
#include <math.h>

#include "ir/ir.h"
#include "tests/oracle/num.h"

enum { F8_IEEE, F8_FN, F8_FNUZ, F8_E8M0 };	/* how NaN and inf look */

struct f8 {
	int ebits, mbits, bias, style;
};

static int
f8_format(int dt, struct f8 *f)
{
	static const struct {
		int dt;
		struct f8 f;
	} fmts[] = {
		{DT_F8E5M2, {5, 2, 15, F8_IEEE}},
		{DT_F8E4M3, {4, 3, 7, F8_IEEE}},
		{DT_F8E3M4, {3, 4, 3, F8_IEEE}},
		{DT_F8E4M3FN, {4, 3, 7, F8_FN}},
		{DT_F8E4M3B11FNUZ, {4, 3, 11, F8_FNUZ}},
		{DT_F8E5M2FNUZ, {5, 2, 16, F8_FNUZ}},
		{DT_F8E4M3FNUZ, {4, 3, 8, F8_FNUZ}},
		{DT_F8E8M0FNU, {8, 0, 127, F8_E8M0}},
	};

	for (unsigned k = 0; k < sizeof fmts / sizeof fmts[0]; k++)
		if (fmts[k].dt == dt) {
			*f = fmts[k].f;
			return 1;
		}
	return 0;
}

int
num_is_f8(int dt)
{
	struct f8 f;

	return f8_format(dt, &f);
}

double
num_f8_decode(int dt, unsigned x)
{
	struct f8 f;
	unsigned emax, e, m;
	double v;

	if (!f8_format(dt, &f))
		return NAN;
	if (f.style == F8_E8M0)
		return x == 0xff ? NAN : ldexp(1.0, (int)x - 127);
	if (f.style == F8_FNUZ && x == 0x80)
		return NAN;
	emax = (1u << f.ebits) - 1;
	e = x >> f.mbits & emax;
	m = x & ((1u << f.mbits) - 1);
	if (f.style == F8_IEEE && e == emax)
		v = m ? NAN : INFINITY;
	else if (f.style == F8_FN && e == emax && m == (1u << f.mbits) - 1)
		v = NAN;
	else if (e == 0)
		v = ldexp(m, 1 - f.bias - f.mbits);
	else
		v = ldexp(m + (1u << f.mbits), (int)e - f.bias - f.mbits);
	return x & 0x80 ? -v : v;
}

/* The largest finite code, without its sign. */
static unsigned
f8_max(const struct f8 *f)
{
	unsigned emax = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;

	if (f->style == F8_IEEE)
		return (emax - 1) << f->mbits | mmask;
	if (f->style == F8_FN)
		return emax << f->mbits | (mmask - 1);
	return emax << f->mbits | mmask;
}

static unsigned
f8_nan(const struct f8 *f)
{
	if (f->style == F8_FNUZ)
		return 0x80;
	return f->style == F8_E8M0 ? 0xff : 0x7f;
}

/* |a|'s code (a finite, > 0): round to nearest even, the carry of a full
 * mantissa moving into the exponent on its own. */
static unsigned
f8_code(const struct f8 *f, double a)
{
	int ex;
	double q;

	frexp(a, &ex);
	ex -= 1;		/* a = 1.x * 2^ex */
	if (ex + f->bias >= 1) {
		q = nearbyint(ldexp(a, f->mbits - ex));
		return (unsigned)fmin(ldexp(1, 12), (double)((ex + f->bias) <<
			f->mbits) + q - ldexp(1, f->mbits));
	}
	q = nearbyint(ldexp(a, f->bias - 1 + f->mbits));
	return (unsigned)q;
}

unsigned
num_f8_encode(int dt, double v)
{
	struct f8 f;
	unsigned sign = signbit(v) ? 0x80 : 0, code;

	if (!f8_format(dt, &f) || isnan(v))
		return f8_format(dt, &f) ? f8_nan(&f) : 0;
	if (f.style == F8_E8M0) {
		if (v <= 0)
			return v == 0 ? 0 : 0xff;
		if (ilogb(v) < -127 || ilogb(v) > 127)
			return ilogb(v) < 0 ? 0 : 0xff;
		code = (unsigned)(ilogb(v) + 127);
		code += v >= ldexp(1.5, ilogb(v));
		return code > 0xfe ? 0xff : code;
	}
	code = v == 0 ? 0 : isinf(v) ? 0x100 : f8_code(&f, fabs(v));
	if (code > f8_max(&f))
		return f.style == F8_IEEE ? sign | (f8_max(&f) + 1) :
		       f8_nan(&f) | sign;
	if (f.style == F8_FNUZ && code == 0)
		return 0;
	return sign | code;
}

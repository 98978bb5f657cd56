/* Element values for the oracle: loading and storing one element of each
 * supported type, and the scalar arithmetic of HLO's elementwise ops.  Floats
 * compute in double and round to their type when stored (bf16, f16: via f32,
 * to nearest even; the f8 formats straight to nearest even); complex values
 * compute in double complex; integers wrap at their width. */
#ifndef HLOPLAN_ORACLE_NUM_H
#define HLOPLAN_ORACLE_NUM_H

#include <stdint.h>

/* Kinds of element; NK_C is complex (c64, c128). */
enum { NK_NONE, NK_PRED, NK_S, NK_U, NK_F, NK_C };

union num {
	double f;	/* NK_F; NK_C's real part, c.re */
	int64_t s;	/* NK_S: sign-extended */
	uint64_t u;	/* NK_U, NK_PRED (0 or 1): zero-extended */
	struct {
		double re, im;
	} c;		/* NK_C */
};

int num_kind(int dt);		/* NK_NONE when unsupported */
int num_size(int dt);		/* bytes of one element */
union num num_get(int dt, const unsigned char *base, int64_t i);
void num_put(int dt, unsigned char *base, int64_t i, union num v);
/* The value v of type `from` as type `to` (convert): floats to integers
 * truncate and saturate, NaN gives 0. */
union num num_convert(int from, int to, union num v);
/* Prints one element, as the value and its bits, into buf. */
void num_format(int dt, const unsigned char *base, int64_t i, char *buf,
		int n);

/* num_f8.c: the 8-bit float formats. */
int num_is_f8(int dt);
double num_f8_decode(int dt, unsigned x);
unsigned num_f8_encode(int dt, double v);

/* Prints one element's value alone (%.9g, an integer, or re,im). */
void num_print(int dt, const unsigned char *base, int64_t i, char *buf,
	       int n);

/* Elementwise opcodes by name; -1 when not an elementwise op. */
enum {
	EW_ABS, EW_NEGATE, EW_NOT, EW_EXP, EW_EXPM1, EW_LOG, EW_LOG1P,
	EW_SQRT, EW_RSQRT, EW_CBRT, EW_TANH, EW_LOGISTIC, EW_SINE, EW_COSINE,
	EW_TAN, EW_ATAN, EW_SINH, EW_COSH, EW_ASIN, EW_ACOS, EW_ASINH,
	EW_ACOSH, EW_ATANH, EW_ERF, EW_FLOOR, EW_CEIL, EW_ROUND_AFZ,
	EW_ROUND_EVEN, EW_SIGN, EW_IS_FINITE, EW_POPCNT, EW_CLZ, EW_COPY,
	EW_NUNARY,
	EW_ADD = EW_NUNARY, EW_SUBTRACT, EW_MULTIPLY, EW_DIVIDE,
	EW_REMAINDER, EW_MAXIMUM, EW_MINIMUM, EW_POWER, EW_ATAN2, EW_AND,
	EW_OR, EW_XOR, EW_SHL, EW_SHRA, EW_SHRL,
	EW_NBINARY
};

int num_op_lookup(const char *name);
/* Is the op defined on this kind of element? */
int num_op_accepts(int op, int kind);
/* op applied to a (unary) or a, b (binary), both of type dt. */
union num num_apply(int op, int dt, union num a, union num b);

enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

/* direction=EQ ...: CMP_*, or -1. */
int num_direction(const char *s, int n);
int num_compare(int dir, int total, int dt, union num a, union num b);
/* reduce-precision of a float to exponent and mantissa bits. */
union num num_reduce_precision(int dt, union num a, int ebits, int mbits);

#endif

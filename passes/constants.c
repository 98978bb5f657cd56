/* Constants' bytes, laid out as the plan lays out their buffers.  The
 * literal is read as XLA's HloParser reads it (ParseDenseLiteral, values
 * cast as SetValueInLiteralHelper casts them), then stored in minor_to_major
 * order, in the TPU's tiles as sizing.c pads them (XLA's "Tiled layout"),
 * E(n)-packed as util.h's PackIntN packs, a dynamic array's sizes where
 * pjrt/dynamic_shapes.cc puts them.  What we cannot be sure of: known = 0. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

/* Dimensions of an array once tiled (its rank plus, per tile, at most
 * twice the tile's), and tiles per layout, that we follow; past them a
 * constant is given up. */
enum { MAXD = 128, MAXTILE = 16 };

enum { LIT_OK, LIT_ELIDED, LIT_BAD };

/* Where an array's elements go: the physical dimensions, then each tile
 * splits the most-minor ones into (count, tile) pairs; row-major over the
 * result.  bits per element, data at byte data_at of the region. */
struct layout {
	const struct shape *s;
	int rank;
	int phys[MAXD];		/* logical dimension, major first */
	int ntile;
	int tn[MAXTILE];
	const int64_t *tile[MAXTILE];
	int64_t def[2], def2[2];	/* the TPU's default tiles */
	int bits;
	int64_t data_at;
};

/* The text being read: a slice of the source, not NUL-terminated. */
struct lit {
	const char *p, *end;
};

/* ---- reading the text ------------------------------------------------ */

static void
skip_blank(struct lit *l)
{
	while (l->p < l->end) {
		if (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' ||
		    *l->p == '\r')
			l->p++;
		else if (l->end - l->p >= 2 && !memcmp(l->p, "/*", 2)) {
			const char *q = l->p + 2;

			while (q + 1 < l->end && memcmp(q, "*/", 2))
				q++;
			l->p = q + 1 < l->end ? q + 2 : l->end;
		} else
			break;
	}
}

static int
eat(struct lit *l, char c)
{
	skip_blank(l);
	if (l->p < l->end && *l->p == c) {
		l->p++;
		return 1;
	}
	return 0;
}

/* Narrows *l to one element of a tuple literal: up to the ',' or ')' that
 * ends it at depth 0; *rest is left after its ','. */
static int
tuple_element(struct lit *l, struct lit *rest)
{
	int depth = 0;
	const char *q;

	skip_blank(l);
	for (q = l->p; q < l->end; q++) {
		if (*q == '(' || *q == '{')
			depth++;
		else if ((*q == ')' || *q == '}') && depth > 0)
			depth--;
		else if ((*q == ',' || *q == ')') && depth == 0)
			break;
	}
	if (q >= l->end)
		return 0;
	rest->p = *q == ',' ? q + 1 : q;
	rest->end = l->end;
	l->end = q;
	return 1;
}

/* Narrows *l to the text of preorder node `node` of shape s; 0 when the
 * text is not the tuple literal s says (ParseTupleLiteral). */
static int
find_node(const struct shape *s, struct lit *l, int node)
{
	struct lit rest;

	if (node == 0)
		return 1;
	if (!eat(l, '('))
		return 0;
	node--;
	for (int e = 0; e < s->nelem; e++) {
		int n = shape_nodes(&s->elems[e]);

		if (!tuple_element(l, &rest))
			return 0;
		if (node < n)
			return find_node(&s->elems[e], l, node);
		node -= n;
		*l = rest;
	}
	return 0;
}

/* A number as XLA's lexer reads it. */
enum { N_INT, N_DEC, N_INF, N_NAN, N_BOOL };

struct num {
	int kind;
	int neg;		/* N_INF, N_NAN: the sign */
	int64_t i;		/* N_INT (a u64 above INT64_MAX wraps, as
				   the lexer's does); N_BOOL: 0 or 1 */
	double d;		/* N_DEC */
	uint64_t payload;	/* N_NAN: nan(0x...), else 0 */
};

/* -?digits, -?digits.digits*, -?.digits, each with an optional exponent:
 * XLA's kInt and kDecimal; returns 1 for an integer, 2 for a decimal. */
static int
number_form(const char *t)
{
	int digits = 0, dec = 0;

	t += *t == '-';
	for (; *t >= '0' && *t <= '9'; t++)
		digits++;
	if (*t == '.') {
		dec = 1;
		for (t++; *t >= '0' && *t <= '9'; t++)
			digits++;
	}
	if (!digits)
		return 0;
	if (*t == 'e' || *t == 'E') {
		dec = 1;
		t++;
		t += *t == '+' || *t == '-';
		if (!(*t >= '0' && *t <= '9'))
			return 0;
		while (*t >= '0' && *t <= '9')
			t++;
	}
	return *t ? 0 : 1 + dec;
}

/* nan(0x...): XLA's LexNanPayload, a nonzero payload of a double. */
static int
nan_payload(struct lit *l, uint64_t *payload)
{
	char *e;

	if (l->end - l->p < 4 || memcmp(l->p, "(0x", 3))
		return 1;
	*payload = strtoull(l->p + 3, &e, 16);
	if (e >= l->end || *e != ')' || *payload == 0 ||
	    *payload >= (UINT64_C(1) << 52))
		return 0;
	l->p = e + 1;
	return 1;
}

/* XLA's LexInt64Impl: a negative number fits an int64, a non-negative one
 * a uint64, kept as its int64 bits. */
static int
int_value(const char *t, struct num *n)
{
	uint64_t u;

	n->kind = N_INT;
	errno = 0;
	if (*t == '-') {
		n->i = strtoll(t, NULL, 10);
		return errno == 0;
	}
	u = strtoull(t, NULL, 10);
	memcpy(&n->i, &u, sizeof u);
	return errno == 0;
}

/* Reads one scalar token: true, false, [-]inf, [-]nan[(0x...)], or a
 * number. */
static int
read_num(struct lit *l, struct num *n)
{
	char t[80];
	size_t k = 0;
	const char *w;

	skip_blank(l);
	memset(n, 0, sizeof *n);
	while (l->p < l->end && k < sizeof t - 1 &&
	       (strchr("+-._", *l->p) || (*l->p >= '0' && *l->p <= '9') ||
		(*l->p >= 'a' && *l->p <= 'z') || (*l->p >= 'A' && *l->p <= 'Z')))
		t[k++] = *l->p++;
	t[k] = 0;
	w = t + (t[0] == '-');
	n->neg = t[0] == '-';
	if (!strcmp(t, "true") || !strcmp(t, "false")) {
		n->kind = N_BOOL;
		n->i = t[0] == 't';
		return 1;
	}
	if (!strcmp(w, "inf")) {
		n->kind = N_INF;
		return 1;
	}
	if (!strcmp(w, "nan")) {
		n->kind = N_NAN;
		return nan_payload(l, &n->payload);
	}
	switch (number_form(t)) {
	case 1:
		return int_value(t, n);
	case 2:
		n->kind = N_DEC;
		n->d = strtod(t, NULL);
		return isfinite(n->d);	/* XLA: out of range for double */
	}
	return 0;
}

/* ---- values to bits -------------------------------------------------- */

/* A binary float format: IEEE-like (inf and NaN at the top exponent, NaN
 * payloads), "fn" (no inf; NaN is S.1111.111), "fnuz" (no inf, no -0; NaN
 * is 0x80), no inf nor NaN (f6, f4), or e8m0 (exponent only). */
enum { FK_IEEE, FK_FN, FK_FNUZ, FK_FINITE, FK_E8M0 };

struct ffmt {
	int ebits, mbits, bias, kind;
	int via_float;		/* Eigen's half and bfloat16 convert a double
				   through float first */
};

static const struct ffmt *
float_fmt(int type)
{
	static const struct ffmt
		f16 = {5, 10, 15, FK_IEEE, 1}, bf16 = {8, 7, 127, FK_IEEE, 1},
		f32 = {8, 23, 127, FK_IEEE, 0}, f64 = {11, 52, 1023, FK_IEEE, 0},
		e5m2 = {5, 2, 15, FK_IEEE, 0}, e4m3 = {4, 3, 7, FK_IEEE, 0},
		e3m4 = {3, 4, 3, FK_IEEE, 0}, e4m3fn = {4, 3, 7, FK_FN, 0},
		e4m3b11 = {4, 3, 11, FK_FNUZ, 0},
		e5m2fnuz = {5, 2, 16, FK_FNUZ, 0},
		e4m3fnuz = {4, 3, 8, FK_FNUZ, 0},
		e8m0 = {8, 0, 127, FK_E8M0, 0}, e2m3 = {2, 3, 1, FK_FINITE, 0},
		e3m2 = {3, 2, 3, FK_FINITE, 0}, e2m1 = {2, 1, 1, FK_FINITE, 0};

	switch (type) {
	case DT_F16: return &f16;
	case DT_BF16: return &bf16;
	case DT_F32: case DT_C64: return &f32;
	case DT_F64: case DT_C128: return &f64;
	case DT_F8E5M2: return &e5m2;
	case DT_F8E4M3: return &e4m3;
	case DT_F8E3M4: return &e3m4;
	case DT_F8E4M3FN: return &e4m3fn;
	case DT_F8E4M3B11FNUZ: return &e4m3b11;
	case DT_F8E5M2FNUZ: return &e5m2fnuz;
	case DT_F8E4M3FNUZ: return &e4m3fnuz;
	case DT_F8E8M0FNU: return &e8m0;
	case DT_F6E2M3FN: return &e2m3;
	case DT_F6E3M2FN: return &e3m2;
	case DT_F4E2M1FN: return &e2m1;
	}
	return NULL;
}

/* Whether a rounded value, its exponent field and mantissa, is past the
 * format's largest finite one. */
static int
too_big(const struct ffmt *f, uint64_t field, uint64_t mant)
{
	uint64_t top = ((uint64_t)1 << f->ebits) - 1;

	switch (f->kind) {
	case FK_IEEE:
		return field >= top;
	case FK_FN:
		return field > top ||
		       (field == top && mant == ((uint64_t)1 << f->mbits) - 1);
	default:
		return field > top;
	}
}

/* NaN and inf: XLA writes a NaN with its sign and payload where the type
 * has payloads (NanWithSignAndPayload; a bare nan is the quiet one), else
 * ml_dtypes' quiet NaN.  Inf into a type without one: not sure, refused. */
static int
encode_special(const struct ffmt *f, const struct num *n, uint64_t *out)
{
	uint64_t sign = (uint64_t)n->neg << (f->ebits + f->mbits);
	uint64_t top = (((uint64_t)1 << f->ebits) - 1) << f->mbits;
	uint64_t pay = n->payload ? n->payload : (uint64_t)1 << (f->mbits - 1);

	if (n->kind == N_INF) {
		*out = sign | top;
		return f->kind == FK_IEEE;
	}
	if (f->kind == FK_IEEE) {
		if (n->payload == (uint64_t)1 << 51)
			pay = (uint64_t)1 << (f->mbits - 1);
		*out = sign | top | pay;
		return pay < ((uint64_t)1 << f->mbits);
	}
	*out = f->kind == FK_FN ? sign | top | (((uint64_t)1 << f->mbits) - 1)
				: 0x80;
	return !n->payload && (f->kind == FK_FN || f->kind == FK_FNUZ);
}

/* floor(log2(m)), m > 0. */
static int
log2_floor(uint64_t m)
{
	int k = 0;

	while (m >>= 1)
		k++;
	return k;
}

/* m >> shift, rounded to nearest even. */
static uint64_t
shift_rne(uint64_t m, int shift)
{
	uint64_t r, rem, half;

	if (shift <= 0)
		return m << -shift;	/* exact: only ever by a few bits */
	if (shift > 62)
		return 0;		/* m < 2^53: below half of one */
	r = m >> shift;
	rem = m & (((uint64_t)1 << shift) - 1);
	half = (uint64_t)1 << (shift - 1);
	return r + (rem > half || (rem == half && (r & 1)));
}

/* e8m0: powers of two from 2^-127 to 2^127 only; others (rounding in the
 * log domain, zero, negatives) are refused rather than guessed. */
static int
encode_e8m0(int neg, uint64_t m, int e2, uint64_t *out)
{
	int e = log2_floor(m) + e2;

	if (neg || (m & (m - 1)) || e < -127 || e > 127)
		return 0;
	*out = (uint64_t)(e + 127);
	return 1;
}

/* A finite double rounded to nearest even in format f (ml_dtypes'
 * ConvertFrom, C's cast for float), in integers: the double is m * 2^e2.
 * 0 when it overflows (XLA's range check refuses the literal). */
static int
encode_finite(const struct ffmt *f, double x, uint64_t *out)
{
	uint64_t b, m, r, field, mant;
	int neg, e2, emin = 1 - f->bias, q;

	memcpy(&b, &x, sizeof b);
	neg = (int)(b >> 63);
	m = b & ((UINT64_C(1) << 52) - 1);
	e2 = (int)(b >> 52 & 0x7ff);
	if (e2)
		m |= UINT64_C(1) << 52;
	e2 = (e2 ? e2 : 1) - 1075;
	if (f->kind == FK_E8M0)
		return m && encode_e8m0(neg, m, e2, out);
	q = m ? log2_floor(m) + e2 : emin;
	q = (q > emin ? q : emin) - f->mbits;	/* the quantum's exponent */
	r = m ? shift_rne(m, q - e2) : 0;
	if (r >> (f->mbits + 1)) {		/* rounded up a binade */
		r >>= 1;
		q++;
	}
	field = r >> f->mbits ? (uint64_t)(q + f->mbits + f->bias) : 0;
	mant = r & (((uint64_t)1 << f->mbits) - 1);
	if (too_big(f, field, mant) || (neg && !r && f->kind == FK_FNUZ))
		return 0;	/* fnuz has no -0: refused, not guessed */
	*out = (uint64_t)neg << (f->ebits + f->mbits) | field << f->mbits | mant;
	return 1;
}

/* A float element: the text's value as a double (ParseDouble), cast to the
 * type.  XLA rounds twice, decimal to double then to the type (and half and
 * bfloat16 through float), so we do too. */
static int
encode_float(const struct ffmt *f, const struct num *n, uint64_t *out)
{
	double d;

	if (n->kind == N_INF || n->kind == N_NAN) {
		if (f->kind != FK_E8M0)
			return encode_special(f, n, out);
		*out = 0xff;	/* its one NaN; it has no inf */
		return n->kind == N_NAN && !n->neg && !n->payload;
	}
	if (n->kind == N_BOOL)
		return 0;
	d = n->kind == N_INT ? (double)n->i : n->d;
	if (f->via_float) {
		float g = (float)d;

		if (!isfinite(g))
			return 0;	/* out of range: XLA refuses it */
		d = g;
	}
	return encode_finite(f, d, out);
}

/* An integer element: in range for the type (CheckParsedValueIsInRange:
 * an unsigned type takes the value's 64 bits as unsigned), two's
 * complement in its low bits.  pred: 0, 1, true or false. */
static int
encode_int(int type, const struct num *n, uint64_t *out)
{
	int bits = dtype_bits(type);
	uint64_t u = (uint64_t)n->i, mask = bits == 64 ? UINT64_MAX :
					   ((uint64_t)1 << bits) - 1;
	int sgn = type >= DT_S2 && type <= DT_S64;

	if (type == DT_PRED) {
		*out = u;
		return (n->kind == N_BOOL || n->kind == N_INT) && u <= 1;
	}
	if (n->kind != N_INT)
		return 0;
	*out = u & mask;
	if (!sgn)
		return u <= mask;
	return bits == 64 || (n->i >= -((int64_t)1 << (bits - 1)) &&
			      n->i < ((int64_t)1 << (bits - 1)));
}

/* ---- where each element goes ----------------------------------------- */

/* One tile of XLA's tiled layout: each of the n most-minor dimensions
 * becomes (tiles, place in the tile), the places after all the counts; a
 * tile wider than the rank first adds leading dimensions of 1.  idx, the
 * element's index in those dimensions, may be NULL. */
static void
apply_tile(int64_t *dims, int64_t *idx, int *n, const int64_t *t, int tn)
{
	int lead = tn > *n ? tn - *n : 0;

	memmove(dims + lead, dims, sizeof *dims * (size_t)*n);
	if (idx)
		memmove(idx + lead, idx, sizeof *idx * (size_t)*n);
	for (int k = 0; k < lead; k++) {
		dims[k] = 1;
		if (idx)
			idx[k] = 0;
	}
	*n += lead;
	for (int j = 0; j < tn; j++) {
		int a = *n - tn + j;

		dims[*n + j] = t[j];
		if (idx) {
			idx[*n + j] = idx[a] % t[j];
			idx[a] /= t[j];
		}
		dims[a] = (dims[a] + t[j] - 1) / t[j];
	}
	*n += tn;
}

/* The element at a logical index: its place in the physical order
 * (minor_to_major), then in the tiles, row-major over all. */
static int64_t
element_at(const struct layout *L, const int64_t *logical)
{
	int64_t dims[MAXD], idx[MAXD], at = 0;
	int n = L->rank;

	for (int k = 0; k < n; k++) {
		idx[k] = logical[L->phys[k]];
		dims[k] = L->s->dims[L->phys[k]];
	}
	for (int t = 0; t < L->ntile; t++)
		apply_tile(dims, idx, &n, L->tile[t], L->tn[t]);
	for (int k = 0; k < n; k++)
		at = at * dims[k] + idx[k];
	return at;
}

/* The second tile the TPU gives an array of rank >= 2 narrower than 32
 * bits: (32 / bits, 1), as the corpus's layouts show (bf16 T(8,128)(2,1),
 * s8 and pred (4,1), s4 E(4) (8,1)).  0 for 1- and 2-bit elements and for
 * 64 bits and more, whose in-tile order we have never seen. */
static int
narrow_tile(struct layout *L)
{
	if (L->bits == 32)
		return 1;
	if (L->bits != 16 && L->bits != 8 && L->bits != 4)
		return 0;
	L->def2[0] = 32 / L->bits;
	L->def2[1] = 1;
	L->tile[1] = L->def2;
	L->tn[1] = 2;
	L->ntile = 2;
	return 1;
}

/* The tiles an array is stored in: none on the GPU (tiles and L(n) play no
 * part there); on the TPU the layout's, else sizing.c's default (which
 * pads), below it narrow_tile's.  0 for a tile we do not follow (a '*'
 * combining dimensions). */
static int
set_tiles(const struct options *o, const struct shape *s, struct layout *L)
{
	int sum = 0;

	L->ntile = 0;
	if (o->target != TARGET_TPU)
		return 1;
	if (s->ntile == 0) {
		L->tn[0] = tpu_default_tile(o, s, L->def);
		L->tile[0] = L->def;
		L->ntile = 1;
		return s->rank < 2 || narrow_tile(L);
	}
	if (s->ntile > MAXTILE)
		return 0;
	for (int t = 0; t < s->ntile; t++) {
		for (int j = 0; j < s->tiles[t].n; j++)
			if (s->tiles[t].d[j] <= 0)
				return 0;
		L->tile[t] = s->tiles[t].d;
		L->tn[t] = s->tiles[t].n;
		sum += 2 * s->tiles[t].n;
	}
	L->ntile = s->ntile;
	return s->rank + sum <= MAXD;
}

/* A dynamic array's sizes: an s32 per dimension, in the M(n) prefix on
 * the TPU, else after the data (sizing.c's metadata_bytes; XLA's
 * PjRtShapeAndMetadataTransferRequirements). */
static int64_t
meta_bytes(const struct options *o, const struct shape *s, int *prefix)
{
	*prefix = o->target == TARGET_TPU && s->meta_bytes > 0 &&
		  shape_is_dynamic(s);
	if (!shape_is_dynamic(s))
		return 0;
	return *prefix ? s->meta_bytes : 4 * (int64_t)s->rank;
}

/* Elements the layout stores; -1 when it needs more bytes than sizing.c
 * reserves (a later tile that pads further) or overflows. */
static int64_t
stored_elements(const struct options *o, const struct layout *L)
{
	int64_t dims[MAXD], e = 1;
	int n = L->rank;

	for (int k = 0; k < n; k++)
		dims[k] = L->s->dims[L->phys[k]];
	for (int t = 0; t < L->ntile; t++)
		apply_tile(dims, NULL, &n, L->tile[t], L->tn[t]);
	for (int k = 0; k < n; k++) {
		if (dims[k] && e > INT64_MAX / 256 / dims[k])
			return -1;
		e *= dims[k];
	}
	if (o->target == TARGET_TPU && L->s->tail_pad > 1)
		e = (e + L->s->tail_pad - 1) / L->s->tail_pad *
		    L->s->tail_pad;
	return e;
}

/* 0 when the array's layout is beyond us: a '*' tile, a rank past MAXD,
 * an element wider than E(n) or E(n) wider than its whole bytes, tiles
 * that pad past sizing.c's bytes. */
static int
set_layout(const struct options *o, const struct shape *s, struct layout *L)
{
	int prefix;
	int64_t meta = meta_bytes(o, s, &prefix), e;

	memset(L, 0, sizeof *L);
	L->s = s;
	L->rank = s->rank;
	L->bits = s->elem_bits ? s->elem_bits : (dtype_bits(s->type) + 7) / 8 * 8;
	if (s->rank > MAXD / 2 || dtype_bits(s->type) > L->bits ||
	    L->bits > (dtype_bits(s->type) + 7) / 8 * 8 ||
	    (L->bits < 8 && 8 % L->bits) || !set_tiles(o, s, L))
		return 0;
	for (int k = 0; k < s->rank; k++)
		L->phys[k] = s->has_layout ? s->m2m[s->rank - 1 - k] : k;
	if (prefix && meta < 4 * (int64_t)s->rank)
		return 0;	/* no room for the sizes */
	L->data_at = prefix ? meta : 0;
	e = stored_elements(o, L);
	return e >= 0 && (e * L->bits + 7) / 8 <= target_bytes(o, s) - meta;
}

/* Stores one element's bits (lo, then hi for c128) at element `at`:
 * little-endian; below a byte, packed from the low bits up (PackIntN). */
static void
put_bits(const struct layout *L, unsigned char *out, int64_t at,
	 const uint64_t *v)
{
	int64_t bit = at * L->bits;
	unsigned char *b = out + L->data_at + bit / 8;

	if (L->bits < 8) {
		b[0] |= (unsigned char)((v[0] & ((1u << L->bits) - 1))
					<< (bit % 8));
		return;
	}
	for (int k = 0; k < L->bits / 8; k++)
		b[k] = (unsigned char)(k < 8 ? v[0] >> (8 * k)
					    : v[1] >> (8 * (k - 8)));
}

/* A dynamic array's sizes: its bounds, the literal holding all of them. */
static void
put_sizes(const struct options *o, const struct shape *s, unsigned char *out)
{
	int prefix;
	int64_t meta = meta_bytes(o, s, &prefix);
	int64_t at = prefix ? 0 : target_bytes(o, s) - meta;

	for (int k = 0; meta && k < s->rank; k++)
		for (int j = 0; j < 4; j++)
			out[at + 4 * k + j] =
				(unsigned char)((uint64_t)s->dims[k] >> (8 * j));
}

/* ---- the literal, element by element ---------------------------------- */

struct fill {
	const struct layout *L;
	unsigned char *out;
	int type;
};

/* A complex element, (re, im), each part a double (ParseComplex).  A NaN
 * real part is refused: XLA's SetValueInLiteralHelper then writes the
 * real part's NaN into the imaginary one as well (handle_nan is given the
 * real part twice), a bug whose bytes we will not copy or guess. */
static int
read_complex(struct lit *l, int type, uint64_t *v)
{
	const struct ffmt *f = float_fmt(type);
	struct num re, im;

	if (!eat(l, '(') || !read_num(l, &re) || !eat(l, ',') ||
	    !read_num(l, &im) || !eat(l, ')'))
		return 0;
	if (re.kind == N_NAN || (im.kind == N_NAN && im.payload))
		return 0;
	if (!encode_float(f, &re, &v[0]) || !encode_float(f, &im, &v[1]))
		return 0;
	if (type == DT_C64) {
		v[0] |= v[1] << 32;
		v[1] = 0;
	}
	return 1;
}

static int
read_element(struct lit *l, int type, uint64_t *v)
{
	const struct ffmt *f = float_fmt(type);
	struct num n;

	if (type == DT_C64 || type == DT_C128)
		return read_complex(l, type, v);
	if (!read_num(l, &n))
		return 0;
	return f ? encode_float(f, &n, v) : encode_int(type, &n, v);
}

/* The value at the logical index seen[k] - 1 of each dimension k. */
static int
put_value(struct fill *F, struct lit *l, const int64_t *seen)
{
	uint64_t v[2] = {0, 0};
	int64_t idx[MAXD];

	if (!read_element(l, F->type, v))
		return 0;
	for (int k = 0; k < F->L->rank; k++)
		idx[k] = seen[k] - 1;
	put_bits(F->L, F->out, element_at(F->L, idx), v);
	return 1;
}

/* A '{' or '}' of a dense literal: nest levels and counts as XLA's
 * ParseDenseLiteral keeps them; 0 when a group holds the wrong count. */
static int
brace(struct lit *l, const struct shape *s, int *nest, int64_t *seen)
{
	if (*l->p++ == '{') {
		if (++*nest > s->rank)
			return 0;
		return *nest == 1 || ++seen[*nest - 2] <= s->dims[*nest - 2];
	}
	if (*nest == 0)
		return 0;
	--*nest;
	if (seen[*nest] != s->dims[*nest])
		return 0;
	seen[*nest] = 0;
	return 1;
}

/* literal: value (rank 0) | '{' (literal | value) (',' ...)* '}' nested
 * rank deep, row-major, or '{...}' (elided).  Every element is written. */
static int
parse_dense(struct fill *F, struct lit *l)
{
	const struct shape *s = F->L->s;
	int64_t seen[MAXD] = {0};
	int nest = 0;

	if (s->rank == 0) {
		if (!put_value(F, l, seen))
			return LIT_BAD;
	} else do {
		skip_blank(l);
		if (l->p >= l->end)
			return LIT_BAD;
		if (l->end - l->p >= 3 && !memcmp(l->p, "...", 3))
			return LIT_ELIDED;
		if (*l->p == '{' || *l->p == '}') {
			if (!brace(l, s, &nest, seen))
				return LIT_BAD;
		} else if (*l->p == ',') {
			l->p++;
		} else if (nest != s->rank || ++seen[s->rank - 1] >
			   s->dims[s->rank - 1] || !put_value(F, l, seen)) {
			return LIT_BAD;
		}
	} while (nest > 0);
	skip_blank(l);
	return l->p == l->end ? LIT_OK : LIT_BAD;
}

/* ---- the pass --------------------------------------------------------- */

/* Does position q hold an array that a constant defines? */
static int
holds_constant(const struct prog *p, const struct plan_pos *q)
{
	const struct instr *in = &p->m->comps[q->comp].instrs[q->instr];

	return q->defines && in->op && in->op->op == OP_CONSTANT &&
	       !shape_is_tuple(q->shape) && q->shape->type != DT_TOKEN &&
	       q->shape->type != DT_OPAQUE;
}

/* Writes node `node` of constant `in`, shaped s, into out[0 .. bytes):
 * 1 when known; 0 when elided or beyond us, the bytes left zero. */
static int
encode_constant(const struct options *o, const struct instr *in, int node,
		const struct shape *s, unsigned char *out, int64_t bytes)
{
	struct layout L;
	struct lit l = {in->literal, in->literal + in->literal_len};
	struct fill F = {&L, out, s->type};

	if (!in->literal || target_bytes(o, s) > bytes ||
	    !find_node(&in->shape, &l, node) || !set_layout(o, s, &L))
		return 0;
	if (parse_dense(&F, &l) != LIT_OK) {
		if (bytes > 0)
			memset(out, 0, (size_t)bytes);
		return 0;
	}
	put_sizes(o, s, out);
	return 1;
}

/* Whether the text of node `node` of a constant elides its value:
 * "{...}", as parse_dense reads it. */
static int
elided(const struct instr *in, int node)
{
	struct lit l = {in->literal, in->literal + in->literal_len};

	if (!in->literal || !find_node(&in->shape, &l, node) || !eat(&l, '{'))
		return 0;
	skip_blank(&l);
	return l.end - l.p >= 3 && !memcmp(l.p, "...", 3);
}

/* One plan_const per array node a constant defines, in position order,
 * each at a multiple of 64 in const_data with target_size bytes (one
 * value's, padding included; never slots * stride); one whose value the
 * text elides at none (-1): an 800 MB constant({...}) made a 3.3 GB
 * header of zeros. */
static void
place_constants(struct prog *p, struct plan *pl)
{
	int64_t at = 0;
	int n = 0;

	for (int k = 0; k < pl->npos; k++)
		n += holds_constant(p, &pl->pos[k]);
	pl->consts = pool_alloc(p->pool, sizeof *pl->consts * (size_t)(n + 1));
	pl->nconst = 0;
	for (int k = 0; k < pl->npos; k++) {
		struct plan_const *c = &pl->consts[pl->nconst];
		int64_t size;

		if (!holds_constant(p, &pl->pos[k]))
			continue;
		size = target_size(&p->opt, pl->pos[k].shape);
		pl->nconst++;
		c->buf = pl->pos[k].buf;
		c->pos = k;
		c->bytes = size > 0 ? size : 0;
		c->offset = -1;
		if (elided(&p->m->comps[pl->pos[k].comp].instrs[pl->pos[k].instr],
			   pl->pos[k].node))
			continue;
		c->offset = at = (at + 63) / 64 * 64;
		at += c->bytes;
	}
	pl->const_bytes = at;
}

/* The constants not known lose their place: the known ones move down,
 * each still at a multiple of 64. */
static void
compact_constants(struct plan *pl)
{
	int64_t at = 0;

	for (int j = 0; j < pl->nconst; j++) {
		struct plan_const *c = &pl->consts[j];

		if (!c->known) {
			c->offset = -1;
			continue;
		}
		at = (at + 63) / 64 * 64;
		if (at != c->offset)
			memmove(pl->const_data + at, pl->const_data + c->offset,
				(size_t)c->bytes);
		c->offset = at;
		at += c->bytes;
	}
	pl->const_bytes = at;
	if (!at)
		pl->const_data = NULL;
}

/* The shape of preorder node `node` of s, as the instruction writes it
 * (a position's shape has the target's defaults spelled out, which would
 * hide which tiles are defaults). */
static const struct shape *
written_shape(const struct shape *s, int node)
{
	while (node > 0) {
		int e = 0;

		node--;
		while (e < s->nelem && node >= shape_nodes(&s->elems[e]))
			node -= shape_nodes(&s->elems[e++]);
		if (e == s->nelem)
			return NULL;
		s = &s->elems[e];
	}
	return s;
}

void
list_constants(struct prog *p, struct plan *pl)
{
	place_constants(p, pl);
	pl->const_data = pl->const_bytes ?
			 pool_alloc(p->pool, (size_t)pl->const_bytes) : NULL;
	for (int j = 0; j < pl->nconst; j++) {
		struct plan_const *c = &pl->consts[j];
		const struct plan_pos *q = &pl->pos[c->pos];
		const struct instr *in =
			&p->m->comps[q->comp].instrs[q->instr];
		const struct shape *s = written_shape(&in->shape, q->node);
		unsigned char *out = pl->const_data && c->offset >= 0 ?
				     pl->const_data + c->offset : NULL;

		c->known = s && c->offset >= 0 &&
			   encode_constant(&p->opt, in, q->node, s, out,
					   c->bytes);
	}
	compact_constants(pl);
}

/* Element types, opcodes and shape sizes: the tables the frontend looks names
 * up in, and the byte arithmetic the passes build on (XLA ShapeUtil). */
#include <string.h>

#include "ir/ir.h"

static const struct {
	const char *name;
	int bits;
} dtypes[DT_COUNT] = {
	[DT_INVALID] = {"invalid", 0},
	[DT_PRED] = {"pred", 8}, [DT_S2] = {"s2", 2}, [DT_S4] = {"s4", 4},
	[DT_S8] = {"s8", 8}, [DT_S16] = {"s16", 16}, [DT_S32] = {"s32", 32},
	[DT_S64] = {"s64", 64}, [DT_U2] = {"u2", 2}, [DT_U4] = {"u4", 4},
	[DT_U8] = {"u8", 8}, [DT_U16] = {"u16", 16}, [DT_U32] = {"u32", 32},
	[DT_U64] = {"u64", 64}, [DT_F16] = {"f16", 16},
	[DT_BF16] = {"bf16", 16}, [DT_F32] = {"f32", 32},
	[DT_F64] = {"f64", 64}, [DT_C64] = {"c64", 64},
	[DT_C128] = {"c128", 128}, [DT_F8E5M2] = {"f8e5m2", 8},
	[DT_F8E4M3] = {"f8e4m3", 8}, [DT_F8E4M3FN] = {"f8e4m3fn", 8},
	[DT_F8E4M3B11FNUZ] = {"f8e4m3b11fnuz", 8},
	[DT_F8E5M2FNUZ] = {"f8e5m2fnuz", 8},
	[DT_F8E4M3FNUZ] = {"f8e4m3fnuz", 8}, [DT_F8E3M4] = {"f8e3m4", 8},
	[DT_F8E8M0FNU] = {"f8e8m0fnu", 8}, [DT_F6E2M3FN] = {"f6e2m3fn", 6},
	[DT_F6E3M2FN] = {"f6e3m2fn", 6}, [DT_F4E2M1FN] = {"f4e2m1fn", 4},
	[DT_TOKEN] = {"token", 0}, [DT_OPAQUE] = {"opaque", 0},
	[DT_TUPLE] = {"tuple", 0},
};

const char *
dtype_name(int dt)
{
	return dt > 0 && dt < DT_COUNT ? dtypes[dt].name : "invalid";
}

int
dtype_bits(int dt)
{
	return dt > 0 && dt < DT_COUNT ? dtypes[dt].bits : 0;
}

int
dtype_lookup(const char *s, size_t n)
{
	for (int i = 1; i < DT_TUPLE; i++)
		if (n && dtypes[i].name[0] == s[0] &&	/* before strlen */
		    strlen(dtypes[i].name) == n && !memcmp(dtypes[i].name, s, n))
			return i;
	return DT_INVALID;
}

#define EW OPF_ELEMENTWISE
#define SE OPF_SIDE_EFFECT

/* Every opcode XLA prints (xla/hlo/ir/hlo_opcode.h), sorted by name. */
static const struct opinfo opcodes[] = {
	{"abs", OP_OTHER, EW}, {"acos", OP_OTHER, EW},
	{"acosh", OP_OTHER, EW}, {"add", OP_OTHER, EW},
	{"add-dependency", OP_ADD_DEPENDENCY, 0},
	{"after-all", OP_AFTER_ALL, 0}, {"all-gather", OP_OTHER, SE},
	{"all-gather-done", OP_OTHER, SE}, {"all-gather-start", OP_OTHER, SE},
	{"all-reduce", OP_ALL_REDUCE, SE}, {"all-reduce-done", OP_OTHER, SE},
	{"all-reduce-start", OP_ALL_REDUCE, SE}, {"all-to-all", OP_OTHER, SE},
	{"and", OP_OTHER, EW}, {"asin", OP_OTHER, EW},
	{"asinh", OP_OTHER, EW}, {"async-done", OP_ASYNC_DONE, 0},
	{"async-start", OP_ASYNC_START, 0},
	{"async-update", OP_ASYNC_UPDATE, 0}, {"atan", OP_OTHER, EW},
	{"atan2", OP_OTHER, EW}, {"atanh", OP_OTHER, EW},
	{"batch-norm-grad", OP_OTHER, 0},
	{"batch-norm-inference", OP_OTHER, 0},
	{"batch-norm-training", OP_OTHER, 0}, {"bitcast", OP_BITCAST, 0},
	{"bitcast-convert", OP_OTHER, 0}, {"broadcast", OP_BROADCAST, 0},
	{"call", OP_CALL, 0}, {"cbrt", OP_OTHER, EW}, {"ceil", OP_OTHER, EW},
	{"cholesky", OP_OTHER, 0}, {"clamp", OP_CLAMP, EW},
	{"clz", OP_OTHER, EW}, {"collective-broadcast", OP_OTHER, SE},
	{"collective-permute", OP_OTHER, SE},
	{"collective-permute-done", OP_OTHER, SE},
	{"collective-permute-start", OP_OTHER, SE},
	{"compare", OP_COMPARE, EW}, {"complex", OP_OTHER, EW},
	{"concatenate", OP_CONCATENATE, 0},
	{"conditional", OP_CONDITIONAL, 0}, {"constant", OP_CONSTANT, 0},
	{"convert", OP_CONVERT, EW}, {"convolution", OP_OTHER, 0},
	{"copy", OP_COPY, EW}, {"copy-done", OP_COPY_DONE, 0},
	{"copy-start", OP_COPY_START, 0}, {"cosh", OP_OTHER, EW},
	{"cosine", OP_OTHER, EW}, {"custom-call", OP_CUSTOM_CALL, 0},
	{"divide", OP_OTHER, EW}, {"domain", OP_DOMAIN, 0},
	{"dot", OP_DOT, 0}, {"dynamic-reshape", OP_OTHER, 0},
	{"dynamic-slice", OP_DYNAMIC_SLICE, 0},
	{"dynamic-update-slice", OP_DUS, 0}, {"erf", OP_OTHER, EW},
	{"exponential", OP_OTHER, EW},
	{"exponential-minus-one", OP_OTHER, EW}, {"fft", OP_OTHER, 0},
	{"floor", OP_OTHER, EW}, {"fusion", OP_FUSION, 0},
	{"gather", OP_OTHER, 0}, {"get-dimension-size", OP_OTHER, 0},
	{"get-tuple-element", OP_GTE, 0}, {"imag", OP_OTHER, EW},
	{"infeed", OP_INFEED, SE}, {"iota", OP_IOTA, 0},
	{"is-finite", OP_OTHER, EW}, {"log", OP_OTHER, EW},
	{"log-plus-one", OP_OTHER, EW}, {"logistic", OP_OTHER, EW},
	{"map", OP_MAP, 0}, {"maximum", OP_OTHER, EW},
	{"minimum", OP_OTHER, EW}, {"multiply", OP_OTHER, EW},
	{"negate", OP_OTHER, EW}, {"not", OP_OTHER, EW},
	{"opt-barrier", OP_OPT_BARRIER, 0}, {"or", OP_OTHER, EW},
	{"outfeed", OP_OUTFEED, SE}, {"pad", OP_PAD, 0},
	{"parameter", OP_PARAMETER, 0}, {"partition-id", OP_OTHER, 0},
	{"popcnt", OP_OTHER, EW}, {"power", OP_OTHER, EW},
	{"ragged-all-to-all", OP_OTHER, SE}, {"ragged-dot", OP_OTHER, 0},
	{"real", OP_OTHER, EW}, {"recv", OP_RECV, SE},
	{"recv-done", OP_RECV_DONE, SE}, {"reduce", OP_REDUCE, 0},
	{"reduce-precision", OP_OTHER, EW},
	{"reduce-scatter", OP_REDUCE_SCATTER, SE},
	{"reduce-window", OP_REDUCE_WINDOW, 0}, {"remainder", OP_OTHER, EW},
	{"replica-id", OP_OTHER, 0}, {"reshape", OP_RESHAPE, 0},
	{"reverse", OP_REVERSE, 0}, {"rng", OP_RNG, SE},
	{"rng-bit-generator", OP_OTHER, 0},
	{"rng-get-and-update-state", OP_OTHER, SE},
	{"round-nearest-afz", OP_OTHER, EW},
	{"round-nearest-even", OP_OTHER, EW}, {"rsqrt", OP_OTHER, EW},
	{"scaled-dot", OP_DOT, 0}, {"scan", OP_SCAN, 0}, {"scatter", OP_SCATTER, 0},
	{"select", OP_SELECT, EW},
	{"select-and-scatter", OP_SELECT_AND_SCATTER, 0},
	{"send", OP_SEND, SE}, {"send-done", OP_SEND_DONE, SE},
	{"set-dimension-size", OP_OTHER, 0}, {"shift-left", OP_OTHER, EW},
	{"shift-right-arithmetic", OP_OTHER, EW},
	{"shift-right-logical", OP_OTHER, EW}, {"sign", OP_OTHER, EW},
	{"sine", OP_OTHER, EW}, {"sinh", OP_OTHER, EW},
	{"slice", OP_SLICE, 0}, {"sort", OP_SORT, 0},
	{"sqrt", OP_OTHER, EW}, {"stochastic-convert", OP_OTHER, EW},
	{"subtract", OP_OTHER, EW}, {"tan", OP_OTHER, EW},
	{"tanh", OP_OTHER, EW}, {"topk", OP_OTHER, 0},
	{"transpose", OP_TRANSPOSE, 0}, {"triangular-solve", OP_OTHER, 0},
	{"tuple", OP_TUPLE, 0}, {"while", OP_WHILE, 0},
	{"xor", OP_OTHER, EW},
};

const struct opinfo *
opcode_lookup(const char *s, size_t n)
{
	size_t lo = 0, hi = sizeof opcodes / sizeof opcodes[0];

	if (!n)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *name = opcodes[mid].name;
		/* Most steps part on the first byte: no strlen for them. */
		int c = (unsigned char)name[0] - (unsigned char)s[0];

		if (c == 0) {
			size_t len = strlen(name);

			c = strncmp(name, s, n < len ? n : len);
			if (c == 0)
				c = len < n ? -1 : len > n;
		}
		if (c == 0)
			return &opcodes[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int
shape_is_tuple(const struct shape *s)
{
	return s->type == DT_TUPLE;
}

int
shape_is_dynamic(const struct shape *s)
{
	for (int i = 0; s->dyn && i < s->rank; i++)
		if (s->dyn[i] != DIM_STATIC)
			return 1;
	for (int i = 0; i < s->nelem; i++)
		if (shape_is_dynamic(&s->elems[i]))
			return 1;
	return 0;
}

int64_t
shape_elements(const struct shape *s)
{
	int64_t n = 1;

	for (int i = 0; i < s->rank; i++) {
		if (s->dims[i] != 0 && n > INT64_MAX / s->dims[i])
			return -1;
		n *= s->dims[i];
	}
	return n;
}

int64_t
shape_bytes(const struct shape *s)
{
	int64_t n;
	int bits;

	if (shape_is_tuple(s))
		return 8 * (int64_t)s->nelem;
	if (s->type == DT_OPAQUE)
		return 8;
	/* ByteSizeOfPrimitiveType: primitive_util::ByteWidth, whole bytes. */
	bits = s->elem_bits ? s->elem_bits : (dtype_bits(s->type) + 7) / 8 * 8;
	n = shape_elements(s);
	if (n < 0 || (bits && n > INT64_MAX / bits))
		return -1;
	return (n * bits + 7) / 8;
}

int
shape_equal(const struct shape *a, const struct shape *b)
{
	if (a->type != b->type || a->rank != b->rank || a->nelem != b->nelem)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	if (a->has_layout && b->has_layout)
		for (int i = 0; i < a->rank; i++)
			if (a->m2m[i] != b->m2m[i])
				return 0;
	if (a->space != b->space || a->elem_bits != b->elem_bits)
		return 0;
	for (int i = 0; i < a->nelem; i++)
		if (!shape_equal(&a->elems[i], &b->elems[i]))
			return 0;
	return 1;
}

const struct shape *
shape_at(const struct shape *s, const int64_t *idx, int n)
{
	for (int i = 0; i < n; i++) {
		if (!shape_is_tuple(s) || idx[i] < 0 || idx[i] >= s->nelem)
			return NULL;
		s = &s->elems[idx[i]];
	}
	return s;
}

const struct attr *
instr_attr(const struct instr *in, const char *key)
{
	for (int i = 0; i < in->nattr; i++)
		if (!strcmp(in->attrs[i].key, key))
			return &in->attrs[i];
	return NULL;
}

const char *
src_where(char *buf, size_t n, const char *file, int line,
	  const char *op_name)
{
	size_t k = 0;

	buf[0] = 0;
	if (file && line > 0)
		k = (size_t)snprintf(buf, n, "%s:%d", file, line);
	else if (file)
		k = (size_t)snprintf(buf, n, "%s", file);
	if (op_name && k < n)
		snprintf(buf + k, n - k, "%s%s", k ? ", " : "", op_name);
	return buf;
}

const char *
human_bytes(char *buf, size_t n, int64_t bytes)
{
	static const char units[] = "KMGTPE";
	uint64_t v = bytes < 0 ? -(uint64_t)bytes : (uint64_t)bytes;
	int u = 0;

	if (v < 1024) {
		snprintf(buf, n, "%s%lluB", bytes < 0 ? "-" : "",
			 (unsigned long long)v);
		return buf;
	}
	for (; v >= (uint64_t)1 << 20; u++)
		v /= 1024;
	snprintf(buf, n, "%s%.*f%ciB", bytes < 0 ? "-" : "", u ? 2 : 1,
		 (double)v / 1024.0, units[u]);
	return buf;
}

int
comp_lookup(const struct module *m, const char *name)
{
	for (int i = 0; i < m->ncomp; i++)
		if (!strcmp(m->comps[i].name, name))
			return i;
	return -1;
}

long
module_instrs(const struct module *m)
{
	long n = 0;

	for (int c = 0; c < m->ncomp; c++)
		n += m->comps[c].ninstr;
	return n;
}

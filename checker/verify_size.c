/* The bytes a plan must hold for one shape, worked out again for verify
 * from XLA's rules (README "Sizes") and sharing no code with the passes:
 * a plan that holds fewer bytes than XLA lays out is refused. */
#include <string.h>

#include "checker/verify_internal.h"
#include "checker/verify.h"
#include "ir/ir.h"

/* a * b, or -1 when either is -1 or the product overflows. */
static int64_t
times(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || (a && b > INT64_MAX / a))
		return -1;
	return a * b;
}

/* n up to a multiple of m (m <= 1: n), or -1. */
static int64_t
pad_to(int64_t n, int64_t m)
{
	if (n < 0 || m <= 1)
		return n;
	return n % m ? (n / m > INT64_MAX / m - 1 ? -1 : (n / m + 1) * m) : n;
}

/* Element bits as stored: the layout's E(n), else whole bytes. */
static int64_t
element_bits(const struct shape *s)
{
	return s->elem_bits ? s->elem_bits : (dtype_bits(s->type) + 7) / 8 * 8;
}

/* The k-th most minor physical dimension; 1 past the rank. */
static int64_t
extent(const struct shape *s, int k)
{
	if (k >= s->rank)
		return 1;
	return s->dims[s->has_layout ? s->m2m[k] : s->rank - 1 - k];
}

/* Elements the TPU stores: the tile's last entry pads the most minor
 * physical dimension, the one before it the next, and so on; then L(n)
 * pads the count (xla/shape_util.cc, ArraySize). */
static int64_t
tpu_count(const struct options *o, const struct shape *s, int64_t bits)
{
	int64_t dflt[2], count = 1;
	const int64_t *t = dflt;
	int nt = 2;

	if (s->ntile) {
		t = s->tiles[0].d;
		nt = s->tiles[0].n;
	} else if (s->rank < 2) {	/* 512 bytes, 128 elements at least */
		dflt[0] = 4096 / bits < 128 ? 128 : 4096 / bits;
		nt = 1;
	} else {
		dflt[0] = o->tpu_tile[0];
		dflt[1] = o->tpu_tile[1];
	}
	for (int k = 0; k < s->rank || k < nt; k++) {
		int64_t e = extent(s, k);

		count = times(count, k < nt ? pad_to(e, t[nt - 1 - k]) : e);
	}
	return s->tail_pad > 1 ? pad_to(count, s->tail_pad) : count;
}

int64_t
vs_bytes(const struct options *o, const struct shape *s)
{
	int64_t bits, count, bytes, meta = 0;

	if (s->type == DT_TUPLE)
		return times(8, s->nelem);
	if (s->type == DT_TOKEN)
		return 0;
	if (s->type == DT_OPAQUE)
		return 8;
	bits = element_bits(s);
	if (bits == 0)
		return 0;
	if (o->target == TARGET_TPU) {
		count = tpu_count(o, s, bits);
	} else {
		count = 1;
		for (int k = 0; k < s->rank; k++)
			count = times(count, s->dims[k]);
	}
	bytes = times(count, bits);
	if (bytes < 0)
		return -1;
	bytes = bytes / 8 + (bytes % 8 != 0);
	for (int k = 0; s->dyn && k < s->rank; k++)
		if (s->dyn[k])		/* the sizes: M(n), or an s32 each */
			meta = o->target == TARGET_TPU && s->meta_bytes ?
				       s->meta_bytes : 4 * (int64_t)s->rank;
	return bytes > INT64_MAX - meta ? -1 : bytes + meta;
}

/* The array at preorder node `node` of s, or NULL (a tuple, or none). */
static const struct shape *
node_at(const struct shape *s, int node)
{
	while (node > 0) {
		int e = 0, n = 0;

		node--;		/* into the tuple: its elements follow it */
		for (; e < s->nelem; e++, node -= n)
			if (node < (n = vs_nodes(&s->elems[e])))
				break;
		if (e == s->nelem)
			return NULL;
		s = &s->elems[e];
	}
	return s->type == DT_TUPLE ? NULL : s;
}

int
vs_nodes(const struct shape *s)
{
	int n = 1;

	for (int e = 0; e < s->nelem; e++)
		n += vs_nodes(&s->elems[e]);
	return n;
}

/* s has tiles of its own and r others (XLA's verifier compares the root
 * with the entry layout ignoring tiles). */
static int
tiled_otherwise(const struct shape *s, const struct shape *r)
{
	if (!s->ntile)
		return 0;
	if (s->ntile != r->ntile)
		return 1;
	for (int t = 0; t < s->ntile; t++)
		if (s->tiles[t].n != r->tiles[t].n ||
		    memcmp(s->tiles[t].d, r->tiles[t].d,
			   sizeof(int64_t) * (size_t)s->tiles[t].n))
			return 1;
	return 0;
}

/* The entry layout's result for an output whose own shape is s; NULL when
 * it names none, or when it is tiled otherwise in fewer bytes: the kernels
 * write s's bytes, and a layout does not shrink what they write. */
const struct shape *
vs_result(const struct module *m, const struct options *o, int node,
	  const struct shape *s)
{
	const struct shape *r = m->result ? node_at(m->result, node) : NULL;

	if (!r || r->type != s->type || r->rank != s->rank)
		return NULL;
	for (int k = 0; k < s->rank; k++)
		if (r->dims[k] != s->dims[k])
			return NULL;
	return tiled_otherwise(s, r) && vs_bytes(o, r) < vs_bytes(o, s) ? NULL
								      : r;
}

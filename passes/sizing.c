/* Bytes per buffer for the target.  GPU: the shape's bytes.  TPU: arrays are
 * stored in tiles: the layout's first tile, or the default (8,128), pads
 * the most-minor dimensions (XLA's ShapeUtil::ArraySize).  Both then round
 * up to the offset alignment. */
#include <string.h>

#include "passes/passes.h"

void
options_default(struct options *o)
{
	memset(o, 0, sizeof *o);
	o->target = TARGET_GPU;
	o->align = 256;
	o->reuse = 1;
	o->io_in_arena = 1;
	o->tpu_tile[0] = 8;
	o->tpu_tile[1] = 128;
	o->effort = 0;
	o->double_buffer = 1;
	o->slots = 2;
}

static int64_t
round_up(int64_t n, int64_t m)
{
	if (m <= 1)
		return n;
	if (n > INT64_MAX - m)
		return -1;
	return (n + m - 1) / m * m;
}

/* Multiplies, or -1 on overflow. */
static int64_t
mul(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || (b && a > INT64_MAX / b))
		return -1;
	return a * b;
}

/* The physical dimension that is k-th most minor (0 = most minor). */
static int64_t
minor_dim(const struct shape *s, int k)
{
	if (k >= s->rank)
		return 1;	/* a tile wider than the rank pads a 1 */
	return s->dims[s->has_layout ? s->m2m[k] : s->rank - 1 - k];
}

/* Elements after padding each of the tile's dimensions, tile[n-1] being
 * the most minor; dimensions the tile does not reach are not padded. */
static int64_t
tiled_elements(const struct shape *s, const int64_t *tile, int n)
{
	int64_t e = 1;
	int rank = s->rank > n ? s->rank : n;

	for (int k = 0; k < rank; k++) {
		int64_t d = minor_dim(s, k), t = k < n ? tile[n - 1 - k] : 1;

		e = mul(e, t > 1 ? round_up(d, t) : d);
	}
	return e;
}

static int64_t
tpu_elements(const struct options *o, const struct shape *s)
{
	int64_t def[2] = {o->tpu_tile[0], o->tpu_tile[1]};

	if (s->ntile > 0)
		return tiled_elements(s, s->tiles[0].d, s->tiles[0].n);
	if (s->rank >= 2)
		return tiled_elements(s, def, 2);
	return round_up(s->rank ? s->dims[0] : 1, 128);	/* rank 0, 1 */
}

/* Bytes the target stores for a shape, before alignment; -1 on overflow. */
int64_t
target_bytes(const struct options *o, const struct shape *s)
{
	int bits;
	int64_t e;

	if (o->target == TARGET_GPU || shape_is_tuple(s))
		return shape_bytes(s);
	bits = s->elem_bits ? s->elem_bits : dtype_bits(s->type);
	if (bits == 0)
		return 0;
	e = tpu_elements(o, s);
	if (e < 0 || e > INT64_MAX / bits)
		return -1;
	return (e * bits + 7) / 8;
}

int64_t
target_size(const struct options *o, const struct shape *s)
{
	int64_t b = target_bytes(o, s);

	return b < 0 ? -1 : round_up(b, o->align);
}

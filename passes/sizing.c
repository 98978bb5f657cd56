/* Bytes per buffer for the target, as XLA lays them out (README "Sizes").
 * GPU: the shape's bytes (ShapeUtil::ByteSizeOf).  TPU: arrays are stored
 * in tiles: the layout's first tile, or the default by rank and element
 * width, pads the most-minor dimensions (ShapeUtil::ArraySize).  Both add
 * a dynamic array's metadata, then round up to the offset alignment. */
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

/* Bits of one stored element: E(n), else whole bytes (XLA's
 * ShapeUtil::ElementSizeInBits over primitive_util::ByteWidth). */
static int
storage_bits(const struct shape *s)
{
	return s->elem_bits ? s->elem_bits : (dtype_bits(s->type) + 7) / 8 * 8;
}

/* The TPU's tile for a layout that names none (its compiler is closed;
 * these are the corpus's explicit tiles, README "Sizes"): rank >= 2, the
 * --tpu-tile (8,128); rank 0 and 1, 512 bytes of elements and at least
 * 128: T(128) for 32 bits, T(256) for 16, T(512) for 8, T(1024) for E(4). */
int
tpu_default_tile(const struct options *o, const struct shape *s,
		 int64_t *tile)
{
	int64_t n = 4096 / storage_bits(s);

	if (s->rank >= 2) {
		tile[0] = o->tpu_tile[0];
		tile[1] = o->tpu_tile[1];
		return 2;
	}
	tile[0] = n > 128 ? n : 128;
	return 1;
}

/* Elements the TPU stores: the first tile pads the most-minor dimensions,
 * then L(n) pads the count (XLA's ShapeUtil::ArraySize). */
static int64_t
tpu_elements(const struct options *o, const struct shape *s)
{
	int64_t def[2], e;

	if (s->ntile > 0)
		e = tiled_elements(s, s->tiles[0].d, s->tiles[0].n);
	else
		e = tiled_elements(s, def, tpu_default_tile(o, s, def));
	if (e >= 0 && s->tail_pad > 1)
		e = round_up(e, s->tail_pad);
	return e;
}

/* A dynamic array's sizes: the layout's M(n) prefix on the TPU, else an
 * s32 per dimension after the data (xla/service/gpu: ShapeSizeBytesFunction,
 * GenericTransferManager::GetByteSizeRequirement). */
static int64_t
metadata_bytes(const struct options *o, const struct shape *s)
{
	if (!shape_is_dynamic(s))
		return 0;
	if (o->target == TARGET_TPU && s->meta_bytes > 0)
		return s->meta_bytes;
	return 4 * (int64_t)s->rank;
}

static int64_t
tpu_bytes(const struct options *o, const struct shape *s)
{
	int bits = storage_bits(s);
	int64_t e;

	if (bits == 0)
		return 0;
	e = tpu_elements(o, s);
	if (e < 0 || e > INT64_MAX / bits)
		return -1;
	return (e * bits + 7) / 8;
}

/* Bytes the target stores for a shape, before alignment; -1 on overflow.
 * GPU: XLA's ShapeUtil::ByteSizeOf (tiles and L(n) play no part).  TPU:
 * the tiled bytes.  Both: a dynamic array's metadata. */
int64_t
target_bytes(const struct options *o, const struct shape *s)
{
	int64_t b, meta;

	if (shape_is_tuple(s) || s->type == DT_OPAQUE || s->type == DT_TOKEN)
		return shape_bytes(s);
	b = o->target == TARGET_GPU ? shape_bytes(s) : tpu_bytes(o, s);
	meta = metadata_bytes(o, s);
	if (b < 0 || b > INT64_MAX - meta)
		return -1;
	return b + meta;
}

int64_t
target_size(const struct options *o, const struct shape *s)
{
	int64_t b = target_bytes(o, s);

	return b < 0 ? -1 : round_up(b, o->align);
}

const struct shape *
target_layout(struct pool *pool, const struct options *o,
	      const struct shape *s)
{
	int tpu = o->target == TARGET_TPU && s->ntile == 0;
	struct shape *r;
	int64_t tile[2];

	if (shape_is_tuple(s) || s->type == DT_OPAQUE || s->type == DT_TOKEN ||
	    ((s->has_layout || s->rank == 0) && !tpu))
		return s;
	r = pool_alloc(pool, sizeof *r);
	*r = *s;
	if (!s->has_layout) {
		r->has_layout = 1;
		r->m2m = pool_alloc(pool, sizeof(int) * (size_t)(s->rank + 1));
		for (int i = 0; i < s->rank; i++)
			r->m2m[i] = s->rank - 1 - i;
	}
	if (tpu) {
		int bits = storage_bits(s);

		r->ntile = 1;
		r->tiles = pool_alloc(pool, 2 * sizeof *r->tiles);
		r->tiles[0].n = tpu_default_tile(o, s, tile);
		for (int i = 0; i < r->tiles[0].n; i++)
			r->tiles[0].d[i] = tile[i];
		/* Below it, rank >= 2 narrower than 32 bits: (32 / bits, 1),
		 * as the corpus's layouts show and constants.c lays out. */
		if (s->rank >= 2 && (bits == 16 || bits == 8 || bits == 4)) {
			r->ntile = 2;
			r->tiles[1].n = 2;
			r->tiles[1].d[0] = 32 / bits;
			r->tiles[1].d[1] = 1;
		}
	}
	return r;
}

/* --intervals: a raw packing problem in minimalloc's CSV packed as the HLO
 * path packs its arenas, checked by the verifier and pack_check, and
 * written back with its offsets (hloplan_pack_csv). */
#include <stdint.h>
#include <stdio.h>

#include "api.h"
#include "checker/verify.h"
#include "packer/intervals.h"
#include "packer/pack.h"

/* The packed boxes as a plan, for the HLO path's layout verifier: one
 * buffer per box, one arena of the packing's height, alignment 1 (the
 * boxes' own alignments and pins are pack_check's). */
static int
verify_boxes(struct pool *pool, const struct boxes *bx, char *err, size_t n)
{
	struct plan pl = {0};
	struct arena a = {0, bx->height, bx->lower, bx->n, NULL};
	int32_t last = 0;

	pl.align = 1;
	pl.nbuf = bx->n;
	pl.bufs = pool_alloc(pool, sizeof *pl.bufs * (size_t)(bx->n + 1));
	for (int i = 0; i < bx->n; i++) {
		const struct box *b = &bx->b[i];
		struct buffer *x = &pl.bufs[i];

		if (b->end >= INT32_MAX || b->start < 0)
			return snprintf(err, n, "interval too long"), 1;
		x->name = pool_printf(pool, "%lld", (long long)b->id);
		x->bytes = x->size = b->size;
		x->start = (int32_t)b->start;
		x->end = (int32_t)b->end;
		x->slots = 1;
		x->in_arena = 1;
		x->offset = b->offset;
		if (x->end + 1 > last)
			last = x->end + 1;
	}
	pl.ntime = last;
	pl.narena = 1;
	pl.arenas = &a;
	return verify_layout(&pl, err, n) || pack_check(bx, err, n);
}

/* Pinned boxes are the input's: two that overlap are its error. */
static int
pins_overlap(struct pool *pool, const struct boxes *bx, char *err, size_t n)
{
	struct boxes pins = {0};

	pins.b = pool_alloc(pool, sizeof *pins.b * (size_t)(bx->n + 1));
	for (int i = 0; i < bx->n; i++)
		if (bx->b[i].pin >= 0) {
			pins.b[pins.n] = bx->b[i];
			pins.b[pins.n].offset = bx->b[i].pin;
			if (bx->b[i].pin + bx->b[i].size > pins.height)
				pins.height = bx->b[i].pin + bx->b[i].size;
			pins.n++;
		}
	return pins.n > 1 && pack_check(&pins, err, n);
}

int
pack_intervals(struct pool *pool, struct diags *ds, const char *text,
	       size_t len, const struct hloplan_options *o, FILE *out,
	       FILE *diag, struct hloplan_pack_stats *st)
{
	struct pack_opts po = {.effort = o->effort, .threads = o->threads};
	struct intervals iv;
	char err[512];
	double t0;

	ds->src = text;
	ds->srclen = len;
	if (intervals_read(pool, text, len, ds, &iv)) {
		diag_print(ds, diag);
		return HLOPLAN_ERR_INPUT;
	}
	if (pins_overlap(pool, &iv.bx, err, sizeof err)) {
		fprintf(diag, "%s: error: the offsets given pin buffers that "
			"overlap: %s\n", ds->file, err);
		return HLOPLAN_ERR_INPUT;
	}
	t0 = stats_now();
	pack(&iv.bx, &po);
	if (st) {
		st->buffers = iv.bx.n;
		st->lower = iv.bx.lower;
		st->height = iv.bx.height;
		st->ms = stats_now() - t0;
		st->bound = pack_aligned_bound(&iv.bx);
	}
	if (verify_boxes(pool, &iv.bx, err, sizeof err)) {
		fprintf(diag, "%s: error: internal error: the packing fails "
			"verification: %s\n", ds->file, err);
		return HLOPLAN_ERR_INPUT;
	}
	return intervals_write(out, &iv) < 0 ? HLOPLAN_ERR_IO : HLOPLAN_OK;
}

/* Fuzz target: bytes -> the intervals CSV reader (--intervals) -> the
 * writer; a problem that reads is packed with a small budget and the
 * packing checked independently. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "packer/intervals.h"
#include "packer/pack.h"
#include "tests/fuzz/fuzz.h"

enum { EFFORT = 100000, MAXBOX = 2000 };

/* Pinned boxes may overlap one another by the input's say: then no
 * packing is valid, and that is no finding.  Otherwise there is always one
 * (the free boxes above all the pinned ones). */
static int
pins_conflict(const struct boxes *bx)
{
	for (int i = 0; i < bx->n; i++)
		for (int j = i + 1; j < bx->n; j++) {
			const struct box *a = &bx->b[i], *b = &bx->b[j];

			if (a->pin >= 0 && b->pin >= 0 &&
			    a->start <= b->end && b->start <= a->end &&
			    a->pin < b->pin + b->size &&
			    b->pin < a->pin + a->size)
				return 1;
		}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = "fuzz.csv",
			   .src = (const char *)data, .srclen = size};
	struct intervals iv = {0};
	struct pack_opts po = {.effort = EFFORT};
	char err[512];
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		abort();
	if (intervals_read(pool, (const char *)data, size, &ds, &iv) == 0 &&
	    !ds.n) {
		if (intervals_write(null, &iv))
			fuzz_fail("intervals_write failed on /dev/null");
		if (iv.bx.n <= MAXBOX) {
			pack(&iv.bx, &po);
			if (pack_check(&iv.bx, err, sizeof err) &&
			    !pins_conflict(&iv.bx)) {
				fprintf(stderr, "pack_check: %s\n", err);
				fuzz_fail("the packing is not valid");
			}
		}
	}
	fuzz_diags(&ds);
	fclose(null);
	pool_free(pool);
	return 0;
}

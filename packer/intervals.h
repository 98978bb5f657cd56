/* Raw packing problems in google/minimalloc's CSV format: a header naming
 * the columns id, lower, upper, size (and optionally alignment, offset) in
 * any order, then one box per line, live on the half-open [lower, upper). */
#ifndef HLOPLAN_INTERVALS_H
#define HLOPLAN_INTERVALS_H

#include <stddef.h>
#include <stdio.h>

#include "ir/boxes.h"
#include "ir/pool.h"
#include "ir/diag.h"

struct intervals {
	/* Box i is data row i, on the closed interval [lower, upper - 1];
	 * an offset column pins it.  Its id is the id column's value when
	 * every id is an integer, else i. */
	struct boxes bx;
	const char **ids;	/* the id column as written, per row */
	int has_align;		/* the input had an alignment column */
};

/* Parses text (len bytes) into iv, allocating from pool.  Every error goes
 * to ds as line:col and a message; returns how many were reported (at most
 * a few dozen; then reading stops).  iv is only to be used when 0. */
int intervals_read(struct pool *pool, const char *text, size_t len,
		   struct diags *ds, struct intervals *iv);

/* Writes the solution: the columns id,lower,upper,size[,alignment],offset
 * and one line per box in input order.  Returns 0, or -1 on a write
 * error. */
int intervals_write(FILE *out, const struct intervals *iv);

#endif

/* The library's result (include/hloplan.h's struct hloplan_result), shared
 * by the files of the API: api.c, api_export.c and api_write.c. */
#ifndef HLOPLAN_API_H
#define HLOPLAN_API_H

#include <pthread.h>
#include <stdio.h>

#include "hloplan.h"
#include "driver.h"
#include "dumps/xla_assignment.h"

struct hloplan_result {
	struct pool *pool;	/* owns everything below but text */
	char *text;		/* the input, in pool or owned */
	char *owned;		/* the input read from a stream, malloc'd */
	const char *dep;	/* the input's path for depfiles, or NULL */
	struct diags ds;
	int status;		/* enum hloplan_status */
	struct run run;		/* the compiler's (driver.h): options, the
				   parsed file, the plans */
	struct xla_assignment xla;	/* run.set.xla points here when
					   given */
	struct hloplan_plan *pub;	/* made on the first hloplan_get_plan:
					   the CLI never asks, and a shape's
					   text a position was a tenth of a
					   large run */
	pthread_mutex_t pub_lock;
	struct hloplan_diag *diags;
	struct stats st;
};

/* api_export.c: the plans as the public structs, into r->pub. */
void export_plans(struct hloplan_result *r);

/* intervals_tool.c: --intervals: packs the problem in text (minimalloc's
 * CSV), verifies the packing and writes the rows with their offsets to
 * out; messages to diag.  Returns an enum hloplan_status. */
int pack_intervals(struct pool *pool, struct diags *ds, const char *text,
		   size_t len, const struct hloplan_options *o, FILE *out,
		   FILE *diag, struct hloplan_pack_stats *st);

#endif

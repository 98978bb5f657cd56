/* The checker: an independent check of a finished plan from the IR and the
 * plan alone, sharing no code or data with the passes (doc/model.md). */
#ifndef HLOPLAN_VERIFY_H
#define HLOPLAN_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "passes/plan.h"

struct module;

/* verify.c: 0 when the plan is sound, else 1 with a message; runs on
 * every plan before anything is written. */
int verify_plan(const struct module *m, const struct options *o,
		const struct plan *pl, char *err, size_t errlen);
/* For tests (verify_mutate): where and when each value the verifier
 * follows is intact, in the order of its symbolic run's reads and writes;
 * *spans (malloc'ed, one per tag) is the caller's to free. */
struct verify_span {
	int buf;		/* its buffer, or -1: not a value */
	int64_t at, bytes;	/* where in the buffer (its slot included) */
	int64_t first, last;	/* its write and its last read; last < 0:
				   never read */
	int path;		/* the branch it was written in: 0, the
				   whole run, or a run of one branch */
	int closed;		/* written there again (by a copy): later
				   reads there are of the copy */
};

/* The spans, and the branch each branch's run is inside (parent[0] is
 * -1): two spans can be intact at once only when one's path holds the
 * other's. */
struct verify_trace {
	int n, npath;
	struct verify_span *span;
	int *parent;
};

int verify_spans(const struct module *m, const struct options *o,
		 const struct plan *pl, struct verify_trace *tr, char *err,
		 size_t errlen);
void verify_trace_free(struct verify_trace *tr);
/* The part of verify_plan that needs only the plan: bounds, alignment,
 * overlap and copies (also the check of --intervals mode). */
int verify_layout(const struct plan *pl, char *err, size_t errlen);

#endif

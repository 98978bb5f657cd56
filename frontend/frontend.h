/* The frontend: HLO text to IR.  Syntax and name errors are reported to the
 * diagnostics sink as file:line:col; the caller stops when there are any. */
#ifndef HLOPLAN_FRONTEND_H
#define HLOPLAN_FRONTEND_H

#include "ir/ir.h"

/* Parses text (len bytes, NUL bytes allowed) into a new file owned by pool.
 * Returns the file; ds->n > 0 means it is not to be used. */
struct hlofile *frontend_parse(struct pool *pool, const char *text,
			       size_t len, struct diags *ds);

#endif

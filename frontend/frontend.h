/* The frontend: HLO text to IR.  Syntax and name errors are reported to the
 * diagnostics sink as file:line:col; the caller stops when there are any. */
#ifndef HLOPLAN_FRONTEND_H
#define HLOPLAN_FRONTEND_H

#include "ir/ir.h"

/* The largest input, bytes: columns and offsets are 32-bit. */
#define FRONTEND_MAX_INPUT (((size_t)1 << 30) - 2)

/* The longest name (module, computation, instruction, parameter), bytes:
 * every output repeats names, so a longer one is an error at its first
 * byte.  Real names stay under 200 (the corpus' longest is 171). */
#define FRONTEND_MAX_NAME 4096

/* Parses text (len bytes, NUL bytes allowed) into a new file owned by pool;
 * more than FRONTEND_MAX_INPUT bytes are an error ("input larger than
 * 1 GiB") before any is read.  Returns the file; ds->n > 0 means it is not to be used. */
struct hlofile *frontend_parse(struct pool *pool, const char *text,
			       size_t len, struct diags *ds);

#endif

/* Codegen: writes finished plans out for their users.  The plan header is a
 * C/C++ header of macros, a table and compile-time checks (DESIGN.md §9). */
#ifndef HLOPLAN_CODEGEN_H
#define HLOPLAN_CODEGEN_H

#include <stdio.h>

#include "passes/plan.h"

struct header_opts {
	const char *guard;	/* include-guard macro; NULL: HLOPLAN_PLAN_H */
	const char *source;	/* the input's base name, for a comment; never
				   a path or a time, so output is reproducible */
};

/* Writes one header holding nplan plans, plans[i] under prefixes[i] (distinct,
 * upper-case C identifiers such as "HLOPLAN_GPU").  Writes only to out; the
 * caller checks ferror(out).  The same arguments give the same bytes. */
void codegen_header(FILE *out, const struct plan *plans,
		    const char *const *prefixes, int nplan,
		    const struct header_opts *o);

#endif

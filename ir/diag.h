/* Diagnostics: file:line:col messages gathered in a pool; the library
 * never prints on its own. */
#ifndef HLOPLAN_DIAG_H
#define HLOPLAN_DIAG_H

#include <stddef.h>
#include <stdio.h>

struct loc {
	int line;	/* 1-based */
	int col;	/* 1-based, in bytes */
};

struct diag {
	struct loc loc;
	char *msg;
	char *notes;	/* lines shown after the source line and caret,
			   each ending in '\n' (a report's details); or
			   NULL */
};

struct diags {
	struct pool *pool;
	const char *file;	/* name shown in messages */
	const char *src;	/* the text, to show the line; may be NULL */
	size_t srclen;
	int n, cap;
	struct diag *d;
};

void diag_error(struct diags *ds, struct loc loc, const char *fmt, ...);
/* Attaches text, lines each ending in '\n', to the last diagnostic. */
void diag_notes(struct diags *ds, const char *text);
/* file:line:col: error: msg, then the source line and a caret, then the
 * notes. */
void diag_print(const struct diags *ds, FILE *out);

#endif

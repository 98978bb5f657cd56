/* Diagnostics: collected in a sink, printed by the caller as
 * file:line:col: error: msg, the source line, and a caret (chibicc, cproc). */
#include <stdarg.h>
#include <string.h>

#include "ir/ir.h"

void
diag_error(struct diags *ds, struct loc loc, const char *fmt, ...)
{
	struct diag *d;
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	d = VEC_PUSH(ds->pool, ds->d, ds->n, ds->cap);
	d->loc = loc;
	d->msg = pool_strdup(ds->pool, buf);
}

/* The text of line `line` (1-based) in src, and its length. */
static const char *
find_line(const struct diags *ds, int line, size_t *len)
{
	const char *s = ds->src, *end = ds->src + ds->srclen;
	const char *nl;

	for (int l = 1; l < line && s < end; l++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			return NULL;
		s = nl + 1;
	}
	nl = memchr(s, '\n', (size_t)(end - s));
	*len = (size_t)((nl ? nl : end) - s);
	return s;
}

/* The source line, cut to a window around the column when it is long (the
 * cuts shown as "..."), with unprintable bytes shown as '?', and a caret
 * under the column. */
static void
print_caret(const struct diags *ds, struct loc loc, FILE *out)
{
	size_t len, full, from = 0;
	size_t col = loc.col > 0 ? (size_t)loc.col - 1 : 0;
	const char *s;

	if (!ds->src || loc.line <= 0 ||
	    !(s = find_line(ds, loc.line, &len)) || len == 0)
		return;	/* an empty line would show nothing but the caret */
	if (col > len)
		col = len;
	if (col > 60)
		from = col - 40;
	full = len;
	if (len - from > 100)
		len = from + 100;
	fputs(from ? "  ..." : "  ", out);
	for (size_t i = from; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		fputc(c == '\t' || (c >= 32 && c < 127) ? c : '?', out);
	}
	fputs(len < full ? "...\n" : "\n", out);
	fputs(from ? "     " : "  ", out);
	for (size_t i = from; i < col; i++)
		fputc(s[i] == '\t' ? '\t' : ' ', out);
	fputs("^\n", out);
}

void
diag_print(const struct diags *ds, FILE *out)
{
	for (int i = 0; i < ds->n; i++) {
		const struct diag *d = &ds->d[i];

		if (d->loc.line > 0)
			fprintf(out, "%s:%d:%d: error: %s\n", ds->file,
				d->loc.line, d->loc.col, d->msg);
		else
			fprintf(out, "%s: error: %s\n", ds->file, d->msg);
		print_caret(ds, d->loc, out);
	}
}

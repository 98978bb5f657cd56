/* Diagnostics: collected in a sink, printed by the caller as
 * file:line:col: error: msg, the source line, and a caret (chibicc, cproc). */
#include <stdarg.h>
#include <string.h>

#include "ir/pool.h"
#include "ir/diag.h"

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
	d->notes = NULL;
}

void
diag_notes(struct diags *ds, const char *text)
{
	if (ds->n > 0)
		ds->d[ds->n - 1].notes = pool_strdup(ds->pool, text);
}

/* Where the last line looked up starts: diagnostics come mostly in the
 * order of the text, so each search goes on from there (a file with many
 * errors would otherwise be rescanned from its start for each). */
struct cursor {
	int line;
	const char *s;
};

/* The text of line `line` (1-based) in src, and its length.  A UTF-8
 * byte-order mark is not part of line 1: columns count from after it. */
static const char *
find_line(const struct diags *ds, struct cursor *at, int line, size_t *len)
{
	const char *s = ds->src, *end = ds->src + ds->srclen;
	const char *nl;
	int l = 1;

	if (ds->srclen >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;

	if (at->s && at->line <= line) {
		s = at->s;
		l = at->line;
	}
	for (; l < line && s < end; l++) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			return NULL;
		s = nl + 1;
	}
	at->line = l;
	at->s = s;
	nl = memchr(s, '\n', (size_t)(end - s));
	*len = (size_t)((nl ? nl : end) - s);
	return s;
}

/* The source line, cut to a window around the column when it is long (the
 * cuts shown as "..."), with unprintable bytes shown as '?', and a caret
 * under the column: both lines made in memory and written at once, as
 * stderr has no buffer. */
static void
print_caret(const struct diags *ds, struct cursor *at, struct loc loc,
	    FILE *out)
{
	size_t len, full, from = 0, k;
	size_t col = loc.col > 0 ? (size_t)loc.col - 1 : 0;
	const char *s;
	char buf[256];

	if (!ds->src || loc.line <= 0 ||
	    !(s = find_line(ds, at, loc.line, &len)) || len == 0)
		return;	/* an empty line would show nothing but the caret */
	if (col > len)
		col = len;
	if (col > 60)
		from = col - 40;
	full = len;
	if (len - from > 100)
		len = from + 100;
	k = (size_t)sprintf(buf, from ? "  ..." : "  ");
	for (size_t i = from; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[k++] = c == '\t' || (c >= 32 && c < 127) ? (char)c : '?';
	}
	k += (size_t)sprintf(buf + k, len < full ? "...\n%s" : "\n%s",
			     from ? "     " : "  ");
	for (size_t i = from; i < col; i++)
		buf[k++] = s[i] == '\t' ? '\t' : ' ';
	memcpy(buf + k, "^\n", 3);
	fputs(buf, out);
}

void
diag_print(const struct diags *ds, FILE *out)
{
	struct cursor at = {0, NULL};

	for (int i = 0; i < ds->n; i++) {
		const struct diag *d = &ds->d[i];

		if (d->loc.line > 0)
			fprintf(out, "%s:%d:%d: error: %s\n", ds->file,
				d->loc.line, d->loc.col, d->msg);
		else
			fprintf(out, "%s: error: %s\n", ds->file, d->msg);
		print_caret(ds, &at, d->loc, out);
		if (d->notes)
			fputs(d->notes, out);
	}
}

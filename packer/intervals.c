/* Reads and writes packing problems in google/minimalloc's CSV format
 * (src/converter.cc there): columns found by name in the header, half-open
 * [lower, upper) made closed, ids kept as written. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/table.h"
#include "packer/intervals.h"

enum { C_ID, C_LOWER, C_UPPER, C_SIZE, C_ALIGN, C_OFFSET, NCOL };
enum { MAXERR = 50 };

static const char *const colname[NCOL] = {
	"id", "lower", "upper", "size", "alignment", "offset",
};

/* A field of the current line, blanks trimmed; col is 1-based. */
struct field {
	const char *s;
	int len, col;
};

struct reader {
	struct pool *pool;
	struct diags *ds;
	const char *p, *end;	/* the text not yet read */
	int line;		/* of the line last read */
	int nerr, stop;
	int at[NCOL];		/* field index of each column, or -1 */
	int ncol;		/* fields on every line */
	int64_t total;		/* sizes plus alignment slack so far */
	struct table ids;	/* each id seen: its line */
	int64_t *idval;
	int allint;
};

static void
error(struct reader *r, int col, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (r->stop)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diag_error(r->ds, (struct loc){ r->line, col }, "%s", buf);
	if (++r->nerr == MAXERR) {
		diag_error(r->ds, (struct loc){ r->line, col },
			   "too many errors; stopping");
		r->nerr++;
		r->stop = 1;
	}
}

/* The next line without its newline (and a '\r' before it). */
static int
next_line(struct reader *r, const char **s, int *len)
{
	const char *nl;
	size_t n;

	if (r->p >= r->end)
		return 0;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	n = (size_t)((nl ? nl : r->end) - r->p);
	*s = r->p;
	r->p += n + (nl != NULL);
	if (n > 0 && (*s)[n - 1] == '\r')
		n--;
	*len = n > INT_MAX ? INT_MAX : (int)n;
	r->line++;
	return 1;
}

static int
blank(char c)
{
	return c == ' ' || c == '\t';
}

static int
is_blank_line(const char *s, int len)
{
	for (int i = 0; i < len; i++)
		if (!blank(s[i]))
			return 0;
	return 1;
}

/* Splits a line at commas; fills up to max fields, returns how many. */
static int
split(const char *s, int len, struct field *f, int max)
{
	int n = 0, i = 0;

	for (;;) {
		int a = i, b;

		while (i < len && s[i] != ',')
			i++;
		b = i;
		while (a < b && blank(s[a]))
			a++;
		while (b > a && blank(s[b - 1]))
			b--;
		if (n < max)
			f[n] = (struct field){ s + a, b - a, a + 1 };
		n++;
		if (i >= len)
			return n;
		i++;
	}
}

/* A field's text for a message: unprintable bytes as '?', long text cut
 * with "...".  buf holds 48 bytes. */
static const char *
shown(const struct field *f, char *buf)
{
	int n = f->len > 40 ? 37 : f->len;

	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)f->s[i];

		buf[i] = c >= 32 && c < 127 ? (char)c : '?';
	}
	strcpy(buf + n, f->len > 40 ? "..." : "");
	return buf;
}

static int
field_is(const struct field *f, const char *name)
{
	return (size_t)f->len == strlen(name) && !memcmp(f->s, name, f->len);
}

/* ---- the header ---------------------------------------------------------- */

static void
header_field(struct reader *r, const struct field *f, int idx)
{
	char buf[48];
	int c = 0;

	while (c < NCOL && !field_is(f, colname[c]))
		c++;
	if (c == NCOL)
		error(r, f->col, "unknown column '%s'; expected id, lower, "
		      "upper, size, alignment or offset", shown(f, buf));
	else if (r->at[c] >= 0)
		error(r, f->col, "column '%s' appears twice", colname[c]);
	else
		r->at[c] = idx;
}

static void
read_header(struct reader *r)
{
	struct field f[NCOL + 1];
	const char *s = "";
	int len = 0, n;

	while (next_line(r, &s, &len) && is_blank_line(s, len))
		;
	for (int c = 0; c < NCOL; c++)
		r->at[c] = -1;
	if (is_blank_line(s, len)) {
		r->line = r->line ? r->line : 1;
		error(r, 1, "expected a header line 'id,lower,upper,size'");
		return;
	}
	n = split(s, len, f, NCOL + 1);
	for (int i = 0; i < n && i <= NCOL; i++)
		header_field(r, &f[i], i);
	for (int c = 0; c <= C_SIZE; c++)
		if (r->at[c] < 0)
			error(r, 1, "the header lacks column '%s'", colname[c]);
	r->ncol = n;
}

/* ---- the rows ------------------------------------------------------------ */

/* 0: an integer in *v; 1: not an integer; 2: out of range. */
static int
parse_int(const struct field *f, int64_t *v)
{
	int i = 0, neg = 0;
	uint64_t x = 0, lim;

	if (i < f->len && (f->s[i] == '-' || f->s[i] == '+'))
		neg = f->s[i++] == '-';
	if (i == f->len)
		return 1;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < f->len; i++) {
		unsigned d = (unsigned)(f->s[i] - '0');

		if (d > 9)
			return 1;
		if (x > (lim - d) / 10)
			return 2;
		x = x * 10 + d;
	}
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

static int
read_int(struct reader *r, const struct field *f, int c, int64_t *v)
{
	int e = parse_int(f, v);
	char buf[48];

	if (e == 1)
		error(r, f->col, "expected an integer for %s, found '%s'",
		      colname[c], shown(f, buf));
	else if (e == 2)
		error(r, f->col, "%s %s does not fit in 64 bits", colname[c],
		      shown(f, buf));
	return e;
}

/* The numbers of a row, in v[] by column; 0 when all are valid. */
static int
row_values(struct reader *r, const struct field *f, int64_t *v)
{
	int bad = 0;

	v[C_ALIGN] = 1;
	v[C_OFFSET] = -1;
	for (int c = C_LOWER; c < NCOL; c++) {
		if (r->at[c] < 0)
			continue;
		/* an empty offset leaves that buffer to the packer */
		if (c == C_OFFSET && f[r->at[c]].len == 0)
			continue;
		bad |= read_int(r, &f[r->at[c]], c, &v[c]);
	}
	if (bad)
		return 1;
	if (v[C_UPPER] <= v[C_LOWER])
		error(r, f[r->at[C_UPPER]].col, "upper %" PRId64 " must be "
		      "greater than lower %" PRId64, v[C_UPPER], v[C_LOWER]);
	else if (v[C_SIZE] <= 0)
		error(r, f[r->at[C_SIZE]].col, "size must be positive, found "
		      "%" PRId64, v[C_SIZE]);
	else if (v[C_ALIGN] <= 0)
		error(r, f[r->at[C_ALIGN]].col, "alignment must be positive, "
		      "found %" PRId64, v[C_ALIGN]);
	else
		return 0;
	return 1;
}

static int
check_offset(struct reader *r, const struct field *f, const int64_t *v)
{
	const struct field *o = r->at[C_OFFSET] >= 0 ? &f[r->at[C_OFFSET]] : 0;

	if (!o || o->len == 0)	/* no pin */
		return 0;
	if (v[C_OFFSET] < 0)
		error(r, o->col, "offset must not be negative, found %" PRId64,
		      v[C_OFFSET]);
	else if (v[C_OFFSET] % v[C_ALIGN])
		error(r, o->col, "offset %" PRId64 " is not a multiple of "
		      "alignment %" PRId64, v[C_OFFSET], v[C_ALIGN]);
	else if (v[C_OFFSET] > INT64_MAX - v[C_SIZE])
		error(r, o->col, "offset %" PRId64 " + size %" PRId64
		      " does not fit in 64 bits", v[C_OFFSET], v[C_SIZE]);
	else
		return 0;
	return 1;
}

/* The packer needs every size plus its alignment slack to add up. */
static int
check_total(struct reader *r, const struct field *f, const int64_t *v)
{
	if (r->total < 0)	/* reported once already */
		return 1;
	if (v[C_ALIGN] - 1 <= INT64_MAX - v[C_SIZE] &&
	    v[C_SIZE] + (v[C_ALIGN] - 1) <= INT64_MAX - r->total) {
		r->total += v[C_SIZE] + (v[C_ALIGN] - 1);
		return 0;
	}
	error(r, f[r->at[C_SIZE]].col, "the sizes add up to more than "
	      "2^63 - 1 bytes");
	r->total = -1;
	return 1;
}

/* Enters an id in the table; 1 (and an error) if it was there. */
static int
enter_id(struct reader *r, const struct field *f)
{
	int line = table_str(&r->ids, f->s, (size_t)f->len, r->line);

	if (line < 0)
		return 0;
	error(r, f->col, "duplicate id '%s' (first on line %d)",
	      shown(f, (char[48]){ 0 }), line);
	return 1;
}

static void
add_box(struct reader *r, struct intervals *iv, const struct field *id,
	const int64_t *v)
{
	int row = iv->bx.n++;
	struct box *b = &iv->bx.b[row];

	iv->ids[row] = pool_strndup(r->pool, id->s, (size_t)id->len);
	if (parse_int(id, &r->idval[row]) != 0)
		r->allint = 0;
	b->start = v[C_LOWER];
	b->end = v[C_UPPER] - 1;
	b->size = v[C_SIZE];
	b->align = v[C_ALIGN];
	b->pin = v[C_OFFSET];
	b->offset = 0;
	b->id = row;
}

static void
read_row(struct reader *r, struct intervals *iv, const char *s, int len)
{
	struct field f[NCOL + 1];
	int64_t v[NCOL];
	int n = split(s, len, f, NCOL + 1);
	const struct field *id;

	if (n != r->ncol) {
		error(r, n > r->ncol ? f[r->ncol].col : len + 1,
		      "expected %d fields, found %d", r->ncol, n);
		return;
	}
	id = &f[r->at[C_ID]];
	if (id->len == 0) {
		error(r, id->col, "empty id");
		return;
	}
	if (enter_id(r, id) || row_values(r, f, v) || check_offset(r, f, v) ||
	    check_total(r, f, v))
		return;
	add_box(r, iv, id, v);
}

/* ---- reading and writing ------------------------------------------------- */

static void
alloc_rows(struct reader *r, struct intervals *iv, const char *text,
	   size_t len)
{
	size_t rows = 1;

	for (size_t i = 0; i < len; i++)
		rows += text[i] == '\n';
	if (rows > INT_MAX / 4) {
		error(r, 1, "more than %d lines", INT_MAX / 4);
		rows = 0;
	}
	iv->bx.b = pool_alloc(r->pool, rows * sizeof *iv->bx.b);
	iv->ids = pool_alloc(r->pool, rows * sizeof *iv->ids);
	r->idval = malloc(rows * sizeof *r->idval + 1);
	table_init(&r->ids, NULL, rows);
	if (!r->idval) {
		fputs("hloplan: out of memory\n", stderr);
		abort();
	}
}

int
intervals_read(struct pool *pool, const char *text, size_t len,
	       struct diags *ds, struct intervals *iv)
{
	struct reader r = { .pool = pool, .ds = ds, .p = text,
			    .end = text + len, .allint = 1 };
	const char *s;
	int n;

	memset(iv, 0, sizeof *iv);
	alloc_rows(&r, iv, text, len);
	read_header(&r);
	iv->has_align = r.at[C_ALIGN] >= 0;
	if (r.nerr == 0)	/* rows mean nothing without their columns */
		while (!r.stop && next_line(&r, &s, &n))
			if (!is_blank_line(s, n))
				read_row(&r, iv, s, n);
	for (int i = 0; i < iv->bx.n && r.allint; i++)
		iv->bx.b[i].id = r.idval[i];
	free(r.idval);
	table_free(&r.ids);
	return r.nerr;
}

int
intervals_write(FILE *out, const struct intervals *iv)
{
	fputs(iv->has_align ? "id,lower,upper,size,alignment,offset\n"
			    : "id,lower,upper,size,offset\n", out);
	for (int i = 0; i < iv->bx.n; i++) {
		const struct box *b = &iv->bx.b[i];

		fprintf(out, "%s,%" PRId64 ",%" PRId64 ",%" PRId64, iv->ids[i],
			b->start, b->end + 1, b->size);
		if (iv->has_align)
			fprintf(out, ",%" PRId64, b->align);
		fprintf(out, ",%" PRId64 "\n", b->offset);
	}
	return ferror(out) ? -1 : 0;
}

/* codegen_printf: fprintf for the writers' own formats, some ten times
 * cheaper.  A header of millions of numbers spent two thirds of its
 * codegen in glibc's vfprintf (callgrind on L09); the writers use only
 * %s, %c, %d, %ld, %lld (PRId64, PRId32) and %%, which this formats into
 * a buffer of its own and writes with one fwrite, byte for byte as
 * fprintf would.  Any other format goes to vfprintf whole. */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "codegen/codegen.h"

enum { OUT_BUF = 512 };

struct sink {
	FILE *out;
	size_t n;
	char b[OUT_BUF];
};

static void
drain(struct sink *k)
{
	if (k->n)
		fwrite(k->b, 1, k->n, k->out);
	k->n = 0;
}

static void
put_bytes(struct sink *k, const char *s, size_t n)
{
	if (k->n + n > sizeof k->b) {
		drain(k);
		if (n > sizeof k->b) {
			fwrite(s, 1, n, k->out);
			return;
		}
	}
	memcpy(k->b + k->n, s, n);
	k->n += n;
}

/* v in decimal, as %lld writes it (the most negative value too). */
static void
put_int(struct sink *k, long long v)
{
	char d[24], *e = d + sizeof d, *p = e;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
				       (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	put_bytes(k, p, (size_t)(e - p));
}

/* Whether every conversion of fmt is one this formats. */
static int
plain(const char *f)
{
	while ((f = strchr(f, '%')) != NULL) {
		f++;
		if (f[0] == 'l' && f[1] == 'l')
			f += 2;
		else if (f[0] == 'l')
			f++;
		if (!*f || !strchr(f[-1] == 'l' ? "d" : "scd%", *f))
			return 0;
		f++;
	}
	return 1;
}

/* The formats found plain lately, by address (the writers' formats are
 * literals, each written thousands of times): a format is scanned once. */
enum { PLAIN_CACHE = 64 };
static _Thread_local const char *plain_seen[PLAIN_CACHE];

static int
plain_cached(const char *f)
{
	const char **e = &plain_seen[((uintptr_t)f >> 3) % PLAIN_CACHE];

	if (*e == f)
		return 1;
	if (!plain(f))
		return 0;
	*e = f;
	return 1;
}

void
codegen_printf(FILE *out, const char *fmt, ...)
{
	struct sink k;
	va_list ap;

	va_start(ap, fmt);
	if (!plain_cached(fmt)) {
		vfprintf(out, fmt, ap);
		va_end(ap);
		return;
	}
	k.out = out;
	k.n = 0;
	for (const char *f = fmt; *f; f++) {
		const char *s;
		char c;

		if (*f != '%') {
			if (k.n == sizeof k.b)
				drain(&k);
			k.b[k.n++] = *f;
			continue;
		}
		switch (*++f) {
		case 's':
			s = va_arg(ap, const char *);
			s = s ? s : "(null)";
			put_bytes(&k, s, strlen(s));
			break;
		case 'c':
			c = (char)va_arg(ap, int);
			put_bytes(&k, &c, 1);
			break;
		case 'd':
			put_int(&k, va_arg(ap, int));
			break;
		case 'l':
			if (f[1] == 'l') {
				f += 2;
				put_int(&k, va_arg(ap, long long));
			} else {
				f++;
				put_int(&k, va_arg(ap, long));
			}
			break;
		default:	/* '%' */
			put_bytes(&k, "%", 1);
			break;
		}
	}
	va_end(ap);
	drain(&k);
}

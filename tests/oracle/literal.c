/* Constant literals: the text between constant( and ) parsed by the shape
 * it must fill: scalars, nested {..} lists, (..) tuples, true/false and
 * inf/-inf/nan.  Elided literals ({...}) cannot be run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/oracle/arrays.h"

struct lit {
	const char *p, *end;
	unsigned char **out;	/* output nodes, or NULL: only check */
	int node;
	char *why;
	size_t whylen;
};

/* Steps over chars and comments (XLA prints each row's index as a
 * comment inside nested braces). */
static void
skip(struct lit *L, const char *chars)
{
	for (;;) {
		if (L->end - L->p >= 2 && L->p[0] == '/' && L->p[1] == '*') {
			const char *e = L->p + 2;

			while (e + 1 < L->end && !(e[0] == '*' && e[1] == '/'))
				e++;
			L->p = e + 1 < L->end ? e + 2 : L->end;
		} else if (L->p < L->end && strchr(chars, *L->p)) {
			L->p++;
		} else {
			return;
		}
	}
}

static int
bad(struct lit *L, const char *what)
{
	snprintf(L->why, L->whylen, "constant literal: %s", what);
	return -1;
}

/* One scalar token into element i of the array at out (may be NULL). */
static int
scalar(struct lit *L, int dt, unsigned char *out, int64_t i)
{
	char tok[64], *end = tok;
	size_t n = 0;
	union num v = {.u = 0};

	while (L->p + n < L->end && !strchr(",{}() \t\r\n", L->p[n]))
		n++;
	if (n == 0 || n >= sizeof tok)
		return bad(L, "expected a number");
	memcpy(tok, L->p, n);
	tok[n] = 0;
	L->p += n;
	if (!strcmp(tok, "...") || strstr(tok, "..."))
		return bad(L, "elided ({...})");
	if (!strcmp(tok, "true") || !strcmp(tok, "false")) {
		v.u = tok[0] == 't';
		v = num_convert(DT_PRED, dt, v);
		end = tok + n;
	} else if (num_kind(dt) == NK_F) {
		v.f = strtod(tok, &end);
	} else if (num_kind(dt) == NK_S) {
		v.s = strtoll(tok, &end, 10);
	} else {
		v.u = tok[0] == '-' ? (uint64_t)strtoll(tok, &end, 10) :
		      strtoull(tok, &end, 10);
	}
	if (end == tok || *end)
		return bad(L, "malformed number");
	if (out)
		num_put(dt, out, i, v);
	return 0;
}

/* A complex element: (re, im). */
static int
complex_pair(struct lit *L, int dt, unsigned char *out, int64_t i)
{
	unsigned char two[16];
	union num v;

	skip(L, " \t\r\n");
	if (L->p >= L->end || *L->p++ != '(')
		return bad(L, "expected '(' for a complex number");
	skip(L, " \t\r\n");
	if (scalar(L, DT_F64, two, 0) < 0)
		return -1;
	skip(L, ", \t\r\n");
	if (scalar(L, DT_F64, two + 8, 0) < 0)
		return -1;
	skip(L, " \t\r\n");
	if (L->p >= L->end || *L->p++ != ')')
		return bad(L, "expected ')' after a complex number");
	memcpy(&v.c.re, two, 8);
	memcpy(&v.c.im, two + 8, 8);
	if (out)
		num_put(dt, out, i, v);
	return 0;
}

static int
array(struct lit *L, const struct shape *s)
{
	int64_t n = shape_elements(s);
	unsigned char *out = L->out ? L->out[L->node] : NULL;

	L->node++;
	if (num_kind(s->type) == NK_NONE)
		return bad(L, "unsupported element type");
	for (int64_t i = 0; i < n; i++) {
		skip(L, ",{} \t\r\n");
		if (i == 1 && L->p == L->end) {	/* one value for all */
			for (int64_t j = 1; out && j < n; j++)
				copy_elem(out, j, out, 0, num_size(s->type));
			break;
		}
		if (num_kind(s->type) == NK_C ?
		    complex_pair(L, s->type, out, i) < 0 :
		    scalar(L, s->type, out, i) < 0)
			return -1;
	}
	skip(L, "{} \t\r\n");
	return 0;
}

static int
value(struct lit *L, const struct shape *s)
{
	if (!shape_is_tuple(s))
		return array(L, s);
	skip(L, " \t\r\n");
	if (L->p >= L->end || *L->p++ != '(')
		return bad(L, "expected '(' for a tuple");
	L->node++;
	for (int k = 0; k < s->nelem; k++) {
		skip(L, ", \t\r\n");
		if (value(L, &s->elems[k]) < 0)
			return -1;
	}
	skip(L, ", \t\r\n");
	if (L->p >= L->end || *L->p++ != ')')
		return bad(L, "expected ')' after a tuple");
	return 0;
}

int
literal_write(const struct instr *in, unsigned char **out, char *why,
	      size_t n)
{
	struct lit L = {in->literal, in->literal + in->literal_len, out, 0,
			why, n};

	if (!in->literal)
		return bad(&L, "missing");
	for (const char *p = L.p; p + 3 <= L.end; p++)
		if (!memcmp(p, "...", 3)) {
			bad(&L, "elided ({...})");
			return -2;
		}
	if (value(&L, &in->shape) < 0)
		return -1;
	skip(&L, " \t\r\n");
	if (L.p != L.end)
		return bad(&L, "more values than the shape holds");
	return 0;
}

/* A small JSON reader for the oracle's contract mode: the whole text into a
 * tree in a pool (objects keep their keys in order).  Numbers are integers
 * (hloplan's JSON writes no others where the oracle reads). */
#include <stdlib.h>
#include <string.h>

#include "tests/oracle/jsonread.h"

struct reader {
	struct pool *pool;
	const char *s, *end;
	const char *err;	/* the first error, or NULL */
	const char *at;		/* where it is */
	int depth;
};

static void
bad(struct reader *r, const char *what)
{
	if (!r->err) {
		r->err = what;
		r->at = r->s;
	}
	r->s = r->end;
}

static void
skip_space(struct reader *r)
{
	while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' ||
				 *r->s == '\n' || *r->s == '\r'))
		r->s++;
}

static int
hex4(struct reader *r, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		char c = r->s < r->end ? *r->s++ : 0;

		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* \uXXXX (of the basic plane) as UTF-8 into o; returns bytes written. */
static int
put_utf8(unsigned u, char *o)
{
	if (u < 0x80) {
		o[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		o[0] = (char)(0xc0 | (u >> 6));
		o[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	o[0] = (char)(0xe0 | (u >> 12));
	o[1] = (char)(0x80 | ((u >> 6) & 0x3f));
	o[2] = (char)(0x80 | (u & 0x3f));
	return 3;
}

static int
escape(struct reader *r, char *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	unsigned u;

	if (r->s >= r->end)
		return -1;
	if (*r->s == 'u') {
		r->s++;
		return hex4(r, &u) < 0 ? -1 : put_utf8(u, o);
	}
	k = strchr(from, *r->s);
	if (!k || !*r->s)
		return -1;
	r->s++;
	*o = to[k - from];
	return 1;
}

static const char *
string(struct reader *r)
{
	const char *q = ++r->s;
	char *out, *o;

	while (q < r->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	if (q >= r->end) {
		bad(r, "a string without its closing quote");
		return "";
	}
	/* Escapes never lengthen the text: \uXXXX is 6 bytes, at most 3 out. */
	out = o = pool_alloc(r->pool, (size_t)(q - r->s) + 1);
	while (*r->s != '"') {
		int n = 1;

		if (*r->s == '\\') {
			r->s++;
			n = escape(r, o);
			if (n < 0) {
				bad(r, "a bad escape in a string");
				return "";
			}
		} else {
			*o = *r->s++;
		}
		o += n;
	}
	r->s++;
	*o = 0;
	return out;
}

static void value(struct reader *r, struct jv *v);

/* Items (and keys, for an object) grown by doubling in the pool. */
static void
grow(struct reader *r, struct jv *v, int *cap)
{
	int nc = *cap ? 2 * *cap : 8;
	struct jv *items = pool_alloc(r->pool, sizeof *items * (size_t)nc);
	const char **keys = pool_alloc(r->pool, sizeof *keys * (size_t)nc);

	if (v->n) {
		memcpy(items, v->items, sizeof *items * (size_t)v->n);
		memcpy(keys, v->keys, sizeof *keys * (size_t)v->n);
	}
	v->items = items;
	v->keys = keys;
	*cap = nc;
}

static void
members(struct reader *r, struct jv *v, char close)
{
	int cap = 0;

	r->s++;
	skip_space(r);
	if (r->s < r->end && *r->s == close) {
		r->s++;
		return;
	}
	while (r->s < r->end) {
		if (v->n == cap)
			grow(r, v, &cap);
		skip_space(r);
		if (close == '}') {
			if (r->s >= r->end || *r->s != '"') {
				bad(r, "a key expected");
				return;
			}
			v->keys[v->n] = string(r);
			skip_space(r);
			if (r->s >= r->end || *r->s++ != ':') {
				bad(r, "':' expected after a key");
				return;
			}
		}
		value(r, &v->items[v->n++]);
		skip_space(r);
		if (r->s < r->end && *r->s == ',') {
			r->s++;
			continue;
		}
		if (r->s < r->end && *r->s == close) {
			r->s++;
			return;
		}
		bad(r, "',' or a closing bracket expected");
		return;
	}
	bad(r, "the text ends inside an array or object");
}

static void
number(struct reader *r, struct jv *v)
{
	char *e;

	v->kind = JV_NUM;
	v->num = strtoll(r->s, &e, 10);
	if (e == r->s || (e < r->end && (*e == '.' || *e == 'e' ||
					 *e == 'E'))) {
		bad(r, "an integer expected");
		return;
	}
	r->s = e;
}

static int
word(struct reader *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->s) < n || memcmp(r->s, w, n))
		return 0;
	r->s += n;
	return 1;
}

static void
value(struct reader *r, struct jv *v)
{
	memset(v, 0, sizeof *v);
	skip_space(r);
	if (r->s >= r->end) {
		bad(r, "a value expected");
		return;
	}
	if (++r->depth > 64) {
		bad(r, "nested too deep");
		return;
	}
	if (*r->s == '{' || *r->s == '[') {
		v->kind = *r->s == '{' ? JV_OBJ : JV_ARR;
		members(r, v, *r->s == '{' ? '}' : ']');
	} else if (*r->s == '"') {
		v->kind = JV_STR;
		v->str = string(r);
	} else if (word(r, "true") || word(r, "false")) {
		v->kind = JV_BOOL;
		v->num = r->s[-1] == 'e' && r->s[-2] == 'u';
	} else if (word(r, "null")) {
		v->kind = JV_NULL;
	} else {
		number(r, v);
	}
	r->depth--;
}

int
json_read(struct pool *pool, const char *text, size_t len, struct jv *v,
	  char *why, size_t n)
{
	struct reader r = {.pool = pool, .s = text, .end = text + len};

	value(&r, v);
	skip_space(&r);
	if (!r.err && r.s != r.end) {
		r.err = "text after the value";
		r.at = r.s;
	}
	if (r.err)
		snprintf(why, n, "JSON at byte %lld: %s",
			 (long long)(r.at - text), r.err);
	return r.err ? -1 : 0;
}

const struct jv *
json_get(const struct jv *o, const char *key)
{
	static const struct jv none = {.kind = JV_NONE};

	for (int i = 0; o && o->kind == JV_OBJ && i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return &none;
}

/* What the writers share: a plan's bindings (parameters, outputs, the
 * values of each buffer), shapes as text, target names, buffer class names
 * spelled as in the header's comments, and JSON strings. */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"

/* Whether s's text is surely longer than SHAPE_TEXT_MAX: an array writes
 * at least two characters a dimension.  Known without writing it, which
 * for a million dimensions takes seconds. */
static int
surely_long(const struct shape *s)
{
	if (!shape_is_tuple(s))
		return s->rank > SHAPE_TEXT_MAX / 2;
	for (int i = 0; i < s->nelem; i++)
		if (surely_long(&s->elems[i]))
			return 1;
	return 0;
}

/* Too long a text is cut to what it is: "(N elements)" for a tuple,
 * "f32[N dimensions]" for an array. */
const char *
codegen_shape_text(struct pool *pool, const struct shape *s)
{
	const char *r = NULL;

	if (!s)
		return "";
	if (!(shape_is_tuple(s) && s->nelem > 8) && !surely_long(s)) {
		r = ir_shape_string(pool, s);
		if (strlen(r) <= SHAPE_TEXT_MAX)
			return r;
	}
	return shape_is_tuple(s) ?
	       pool_printf(pool, "(%d elements)", s->nelem) :
	       pool_printf(pool, "%s[%d dimensions]", dtype_name(s->type),
			   s->rank);
}

const char *
codegen_dtype(const struct shape *s)
{
	return !s ? "" : shape_is_tuple(s) ? "tuple" : dtype_name(s->type);
}

void
codegen_index(FILE *out, const struct plan_pos *q, const char *brackets,
	      const char *sep, const char *none)
{
	fputc(brackets[0], out);
	for (int d = 0; d < q->depth; d++)
		codegen_printf(out, "%s%d", d ? sep : "", q->index[d]);
	fputs(q->depth ? "" : none, out);
	fputc(brackets[1], out);
}

static int
by_key(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Parameter positions by number, then by position (shape indices in
 * preorder): sorted as keys number * npos + position. */
static void
sort_params(struct pool *pool, const struct plan *p, int *par, int n)
{
	int64_t *key = pool_alloc(pool, sizeof(int64_t) * (size_t)(n + 1));
	int64_t np = p->npos + 1;

	for (int i = 0; i < n; i++)
		key[i] = p->pos[par[i]].param * np + par[i];
	qsort(key, (size_t)n, sizeof *key, by_key);
	for (int i = 0; i < n; i++)
		par[i] = (int)(key[i] % np);
}

static int
is_token(const struct plan_pos *q)
{
	return q->shape && q->shape->type == DT_TOKEN;
}

static void
list_io(struct pool *pool, const struct plan *p, struct bindings *b)
{
	b->par = pool_alloc(pool, sizeof(int) * (size_t)(p->npos + 1));
	b->out = pool_alloc(pool, sizeof(int) * (size_t)(p->npos + 1));
	b->depth = 1;
	for (int k = 0; k < p->npos; k++) {
		const struct plan_pos *q = &p->pos[k];

		if (is_token(q) || (q->param < 0 && !q->output))
			continue;
		if (q->param >= 0)
			b->par[b->npar++] = k;
		if (q->output)
			b->out[b->nout++] = k;
		if (q->depth > b->depth)
			b->depth = q->depth;
	}
	sort_params(pool, p, b->par, b->npar);
}

/* Values by buffer, each buffer's in position (schedule) order. */
static void
list_values(struct pool *pool, const struct plan *p, struct bindings *b)
{
	int *at = pool_alloc(pool, sizeof(int) * (size_t)(p->nbuf + 1));

	b->first = pool_alloc(pool, sizeof(int) * (size_t)(p->nbuf + 1));
	b->count = pool_alloc(pool, sizeof(int) * (size_t)(p->nbuf + 1));
	for (int k = 0; k < p->npos; k++)
		if (p->pos[k].defines || p->pos[k].copied) {
			b->count[p->pos[k].buf]++;
			if (p->pos[k].depth > b->depth)
				b->depth = p->pos[k].depth;
		}
	for (int i = 0; i < p->nbuf; i++) {
		b->first[i] = b->nval;
		at[i] = b->nval;
		b->nval += b->count[i];
	}
	b->val = pool_alloc(pool, sizeof(int) * (size_t)(b->nval + 1));
	for (int k = 0; k < p->npos; k++)
		if (p->pos[k].defines || p->pos[k].copied)
			b->val[at[p->pos[k].buf]++] = k;
}

void
codegen_bindings(struct pool *pool, const struct plan *p, struct bindings *b)
{
	memset(b, 0, sizeof *b);
	list_io(pool, p, b);
	list_values(pool, p, b);
	b->bpar = pool_alloc(pool, sizeof(int) * (size_t)(p->nbuf + 1));
	b->bout = pool_alloc(pool, sizeof(int) * (size_t)(p->nbuf + 1));
	memset(b->bpar, -1, sizeof(int) * (size_t)p->nbuf);
	memset(b->bout, -1, sizeof(int) * (size_t)p->nbuf);
	for (int i = b->npar - 1; i >= 0; i--)
		b->bpar[p->pos[b->par[i]].buf] = i;
	for (int i = b->nout - 1; i >= 0; i--)
		b->bout[p->pos[b->out[i]].buf] = i;
}

const char *
codegen_target(int target)
{
	switch (target) {
	case TARGET_GPU:
		return "gpu";
	case TARGET_TPU:
		return "tpu";
	}
	return "unknown";
}

int
codegen_classes(int flags, const char *names[4])
{
	static const struct {
		int flag;
		const char *name;
	} cls[] = {
		{BUF_PARAM, "param"}, {BUF_OUTPUT, "output"},
		{BUF_CONST, "const"}, {BUF_TABLE, "table"},
	};
	int n = 0;

	for (int i = 0; i < (int)(sizeof cls / sizeof *cls); i++)
		if (flags & cls[i].flag)
			names[n++] = cls[i].name;
	if (!n)
		names[n++] = "temp";
	return n;
}

/* The length of the valid UTF-8 sequence at s, or 0. */
static int
utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;	/* overlong, surrogate, or past U+10FFFF */
	return n;
}

/* s as a JSON string; bytes that are not UTF-8 become U+FFFD. */
void
codegen_json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	fputc('"', out);
	while (*s) {
		if (*s == '"' || *s == '\\')
			codegen_printf(out, "\\%c", *s++);
		else if (*s < 0x20)
			codegen_printf(out, "\\u%04x", *s++);
		else if (*s < 0x80)
			fputc(*s++, out);
		else if ((n = utf8_len(s)) > 0) {
			fwrite(s, 1, (size_t)n, out);
			s += n;
		} else {
			fputs("\\ufffd", out);
			s++;
		}
	}
	fputc('"', out);
}

void
codegen_json_source(FILE *out, const char *file, int line,
		    const char *op_name)
{
	if (file) {
		fputs(", \"source_file\": ", out);
		codegen_json_string(out, file);
		if (line > 0)
			codegen_printf(out, ", \"source_line\": %d", line);
	}
	if (op_name) {
		fputs(", \"op_name\": ", out);
		codegen_json_string(out, op_name);
	}
}

int64_t
codegen_total(const struct plan *p)
{
	int64_t t = 0;

	for (int k = 0; k < p->narena; k++)
		t += p->arenas[k].size;
	for (int b = 0; b < p->nbuf; b++)
		if (p->bufs[b].flags & BUF_CONST)
			t += p->bufs[b].bytes;
	return t;
}

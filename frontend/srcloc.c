/* Where instructions come from in the user's program: the stack-frame
 * tables after the module header (read as XLA's HloParser::
 * ParseStackFrameIndex reads them) and each instruction's metadata={op_name=
 * ".." source_file=".." source_line=N stack_frame_id=N}.  A reference out of
 * range gives no location, as XLA's CanonicalizeStackFrameIds drops it.
 * A string longer than FRONTEND_MAX_NAME is not kept: the outputs repeat
 * it for every buffer of its instruction, and it says nothing to the plan. */
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/frontend.h"

/* The value of an octal or hex digit, or -1. */
static int
digit(char c, int base)
{
	int v = c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;

	return v < base ? v : -1;
}

/* One escape after a '\' at s[*i] (absl::CEscape's: \n \t \r \" \' \\,
 * \ooo, \xhh), advancing *i past it. */
static char
unescape(const char *s, size_t n, size_t *i)
{
	static const char from[] = "ntr", to[] = "\n\t\r";
	const char *k = strchr(from, s[*i]);
	int v = 0, base = s[*i] == 'x' ? 16 : 8, d, len = 0;

	if (k && s[*i]) {
		(*i)++;
		return to[k - from];
	}
	if (base == 16)
		(*i)++;
	while (*i < n && len < (base == 8 ? 3 : 2) &&
	       (d = digit(s[*i], base)) >= 0) {
		v = v * base + d;
		(*i)++;
		len++;
	}
	return len ? (char)v : s[(*i)++];
}

/* A string token's text (n bytes, quotes included) without its quotes and
 * escapes, in the pool. */
static const char *
unquote(struct pool *pool, const char *s, size_t n)
{
	char *out;
	size_t k = 0;

	if (n < 2)
		return pool_strndup(pool, "", 0);
	if (!memchr(s + 1, '\\', n - 2))	/* most: nothing to unescape */
		return pool_strndup(pool, s + 1, n - 2);
	out = pool_alloc(pool, n + 1);
	for (size_t i = 1; i + 1 < n;)
		if (s[i] == '\\' && i + 2 < n) {
			i++;
			out[k++] = unescape(s, n - 1, &i);
		} else {
			out[k++] = s[i++];
		}
	out[k] = 0;
	return out;
}

/* An integer's text as an int; 0 when it is not one or out of range. */
static int
small_int(const char *s, size_t n)
{
	const char *p = s;
	int64_t v;

	if (!read_int(&p, s + n, &v) || p != s + n || v < INT32_MIN ||
	    v > INT32_MAX)
		return 0;
	return (int)v;
}

/* The value of key `key` in a table entry's keys, 0 when it is absent. */
static int
key_int(const struct attrs *keys, const char *key)
{
	for (int i = 0; i < keys->n; i++)
		if (!strcmp(keys->v[i].key, key))
			return small_int(keys->v[i].val,
					 (size_t)keys->v[i].vlen);
	return 0;
}

void
act_frame_string(struct parser *P, int which, struct span str)
{
	struct frames *f = &P->mod->frames;
	size_t n = str.last_off - str.first_off;
	const char *s = n > FRONTEND_MAX_NAME + 2 ? NULL :
			unquote(P->pool, P->src + str.first_off, n);

	if (which == 0)
		*VEC_PUSH(P->pool, f->files, f->nfile, f->capfile) = s;
	else
		*VEC_PUSH(P->pool, f->funcs, f->nfunc, f->capfunc) = s;
}

void
act_file_location(struct parser *P, struct attrs *keys)
{
	struct frames *f = &P->mod->frames;
	struct file_loc *l = VEC_PUSH(P->pool, f->locs, f->nloc, f->caploc);

	l->file = key_int(keys, "file_name_id");
	l->func = key_int(keys, "function_name_id");
	l->line = key_int(keys, "line");
	l->end_line = key_int(keys, "end_line");
	l->col = key_int(keys, "column");
	l->end_col = key_int(keys, "end_column");
}

/* XLA prints parent_frame_id one more than the parent's id (HloModule::
 * PrintStackFrameIndex adds 1, the parser takes it off): 1 is no parent. */
void
act_stack_frame(struct parser *P, struct attrs *keys)
{
	struct frames *f = &P->mod->frames;
	struct stack_frame *s = VEC_PUSH(P->pool, f->frames, f->nframe,
					 f->capframe);
	int parent = key_int(keys, "parent_frame_id") - 1;

	s->loc = key_int(keys, "file_location_id");
	s->parent = parent > 0 ? parent : 0;
}

/* Whether c ends a metadata word: strchr(" ,}", c) without a call per
 * byte, which was 2% of the frontend's time on L02. */
static int
ends_word(char c)
{
	return c == ' ' || c == ',' || c == '}';
}

/* The end of the metadata value starting at s[i]: a string, a braced
 * list (profile_type={1,2}) or a word. */
static size_t
value_end(const char *s, size_t n, size_t i)
{
	if (i < n && s[i] == '"') {
		/* op_name strings are long: memchr to the next quote, and
		 * to a backslash before it that escapes what follows. */
		for (i++; i < n;) {
			const char *q = memchr(s + i, '"', n - i);
			const char *b = memchr(s + i, '\\',
					       (size_t)((q ? q : s + n) - (s + i)));

			if (!b)
				return q ? (size_t)(q - s) + 1 : n;
			i = (size_t)(b - s) + 2;
		}
		return n;
	}
	if (i < n && s[i] == '{') {
		while (i < n && s[i] != '}')
			i++;
		return i < n ? i + 1 : n;
	}
	while (i < n && !ends_word(s[i]))
		i++;
	return i;
}

/* A metadata value as a string: a quoted one unquoted, else as written. */
static const char *
meta_string(struct pool *pool, const char *s, size_t n)
{
	if (n > FRONTEND_MAX_NAME + 2)
		return NULL;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
		return unquote(pool, s, n);
	return pool_strndup(pool, s, n);
}

/* Reads op_name, source_file, source_line and stack_frame_id from the
 * first (or only) {key=value ...} of a metadata attribute. */
static void
read_metadata(struct pool *pool, const struct attr *a, struct instr *in,
	      int *frame)
{
	const char *s = a->val;
	size_t n = (size_t)a->vlen, i = 0, k, v;

	while (i < n && (s[i] == '{' || s[i] == ' '))
		i++;
	while (i < n && s[i] != '}') {
		for (k = i; k < n && s[k] != '=' && !ends_word(s[k]); k++)
			;
		if (k >= n || s[k] != '=')
			break;
		v = value_end(s, n, k + 1);
		if (k - i == 7 && !memcmp(s + i, "op_name", 7))
			in->op_name = meta_string(pool, s + k + 1, v - k - 1);
		else if (k - i == 11 && !memcmp(s + i, "source_file", 11))
			in->src_file = meta_string(pool, s + k + 1,
						    v - k - 1);
		else if (k - i == 11 && !memcmp(s + i, "source_line", 11))
			in->src_line = small_int(s + k + 1, v - k - 1);
		else if (k - i == 14 && !memcmp(s + i, "stack_frame_id", 14))
			*frame = small_int(s + k + 1, v - k - 1);
		for (i = v; i < n && (s[i] == ' ' || s[i] == ','); i++)
			;
	}
}

/* The innermost frame's file and line, when the tables have them. */
static void
frame_source(const struct frames *f, int frame, struct instr *in)
{
	const struct file_loc *l;

	if (frame < 1 || frame > f->nframe)
		return;
	frame = f->frames[frame - 1].loc;
	if (frame < 1 || frame > f->nloc)
		return;
	l = &f->locs[frame - 1];
	if (l->file < 1 || l->file > f->nfile || !f->files[l->file - 1])
		return;
	in->src_file = f->files[l->file - 1];
	in->src_line = l->line;
}

void
srcloc_module(struct parser *P, struct module *m)
{
	for (int c = 0; c < m->ncomp; c++) {
		for (int i = 0; i < m->comps[c].ninstr; i++) {
			struct instr *in = &m->comps[c].instrs[i];
			const struct attr *a = instr_attr(in, "metadata");
			int frame = 0;

			if (!a)
				continue;
			read_metadata(P->pool, a, in, &frame);
			if (!in->src_file)
				frame_source(&m->frames, frame, in);
		}
	}
}

/* The HLO lexer, by hand: XLA's own (hlo_lexer.cc) is, and flex's tables
 * cost a fifth of the frontend's instructions.  Each token is the longest
 * match among the forms below, the first form winning a tie, as a flex
 * lexer's rules would be:
 *
 *	blanks [ \t\r\n]+, "//" comments and "/" "*" comments	skipped
 *	'HloModule' 'ENTRY' 'ROOT' 'FileNames' 'FunctionNames'
 *	'FileLocations' 'StackFrames' '->' '<=' '...'		keywords
 *	%?[A-Za-z_]([A-Za-z0-9_.-]*[A-Za-z0-9_.])?		name
 *	-?[0-9]+						integer
 *	-?I.[0-9]*E?  -?IE  -?.[0-9]+E?  -inf  -nan		number
 *	I(xI)+  P(xP)*  D_D->D  [L]<=[L](T(L))?			attribute word
 *	"..." '...' (escapes, newlines)				string
 *	'{' words, '=', ',' and strings '}' after '='		a value group
 *	( [ { ) ] }  = , : ? * # < > ! @ + | & ^ ~ ; $		themselves
 *
 * where I is [0-9]+, E [eE][-+]?[0-9]+, P -?I_-?I(_-?I)?, D [0-9a-z?]+ and
 * L [0-9, ]*.  Any other byte is an error of its own. */
#include <string.h>

#include "frontend/front.h"

enum {
	C_NAME0 = 1,	/* starts a name: [A-Za-z_] */
	C_NAME = 2,	/* inside a name: [A-Za-z0-9_.-] */
	C_DIGIT = 4,
	C_DL = 8,	/* [0-9a-z?] */
	C_GROUP = 16,	/* [A-Za-z0-9_=, \t], a group's bytes between strings */
	C_BLANK = 32,	/* [ \t\r\n] */
	C_PUNCT = 64,	/* [=,:?*#<>!@+|&^~;$] */
	C_INTL = 128,	/* [0-9, ] */
};

/* Each byte's classes, C_* bits, for ASCII; the rest have none. */
static const unsigned char cls[256] = {
	  0,   0,   0,   0,   0,   0,   0,   0,   0,  48,  32,   0,   0,  32,   0,   0,
	  0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
	176,  64,   0,  64,  64,   0,  64,   0,   0,   0,  64,  64, 208,   2,   2,   0,
	158, 158, 158, 158, 158, 158, 158, 158, 158, 158,  64,  64,  64,  80,  64,  72,
	 64,  19,  19,  19,  19,  19,  19,  19,  19,  19,  19,  19,  19,  19,  19,  19,
	 19,  19,  19,  19,  19,  19,  19,  19,  19,  19,  19,   0,   0,   0,  64,  19,
	  0,  27,  27,  27,  27,  27,  27,  27,  27,  27,  27,  27,  27,  27,  27,  27,
	 27,  27,  27,  27,  27,  27,  27,  27,  27,  27,  27,   0,  64,   0,  64,   0,
	/* 128-255: 0 */
};

#define IS(c, k) (cls[(unsigned char)(c)] & (k))

/* The end of the run of class k bytes in s[i, n): four at a time while
 * four are left (names are most of a module's bytes outside groups). */
static inline size_t
run_of(const char *s, size_t i, size_t n, unsigned char k)
{
	for (; i + 4 <= n; i += 4) {
		if (!IS(s[i], k))
			return i;
		if (!IS(s[i + 1], k))
			return i + 1;
		if (!IS(s[i + 2], k))
			return i + 2;
		if (!IS(s[i + 3], k))
			return i + 3;
	}
	while (i < n && IS(s[i], k))
		i++;
	return i;
}

/* The token [off, off + len): its span, and the position moves past it.
 * Only blanks, comments, strings and groups can hold a newline. */
static inline void
step(struct lexstate *ls, struct span *loc, size_t len, int lines)
{
	const char *p = ls->src + ls->off, *end = p + len, *nl;

	loc->first_line = ls->line;
	loc->first_column = ls->col;
	loc->first_off = ls->off;
	if (!lines) {
		ls->col += (int)len;
	} else {
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			ls->line++;
			ls->col = 1;
			p = nl + 1;
		}
		ls->col += (int)(end - p);
	}
	ls->off += len;
	loc->last_line = ls->line;
	loc->last_column = ls->col;
	loc->last_off = ls->off;
}

/* The lengths of the longest matches at s (n bytes left) of each form
 * that can start there; 0 where none does. */

static size_t
digits(const char *s, size_t i, size_t n)
{
	while (i < n && IS(s[i], C_DIGIT))
		i++;
	return i;
}

/* [eE][-+]?[0-9]+ at i: the end, or i when there is none. */
static size_t
exponent(const char *s, size_t i, size_t n)
{
	size_t j = i + 1, k;

	if (i >= n || (s[i] != 'e' && s[i] != 'E'))
		return i;
	if (j < n && (s[j] == '-' || s[j] == '+'))
		j++;
	k = digits(s, j, n);
	return k > j ? k : i;
}

/* -?[0-9]+ at i: the end, or i. */
static size_t
signed_int(const char *s, size_t i, size_t n)
{
	size_t j = i + (i < n && s[i] == '-'), k = digits(s, j, n);

	return k > j ? k : i;
}

/* -?I_-?I(_-?I)? (x that)* */
static size_t
pad_word(const char *s, size_t n)
{
	size_t i = 0, end = 0;

	for (;;) {
		size_t a = signed_int(s, i, n), b, c;

		if (a == i || a >= n || s[a] != '_')
			return end;
		b = signed_int(s, a + 1, n);
		if (b == a + 1)
			return end;
		if (b < n && s[b] == '_' && (c = signed_int(s, b + 1, n)) >
						    b + 1)
			b = c;
		end = b;
		if (end >= n || s[end] != 'x')
			return end;
		i = end + 1;
	}
}

/* [0-9a-z?]+_[0-9a-z?]+->[0-9a-z?]+ */
static size_t
dim_labels(const char *s, size_t n)
{
	size_t i = 0, j;

	while (i < n && IS(s[i], C_DL))
		i++;
	if (!i || i >= n || s[i] != '_')
		return 0;
	for (j = ++i; i < n && IS(s[i], C_DL); i++)
		;
	if (i == j || i + 2 > n || s[i] != '-' || s[i + 1] != '>')
		return 0;
	for (j = i += 2; i < n && IS(s[i], C_DL); i++)
		;
	return i > j ? i : 0;
}

/* '[' L ']' at i: the end, or 0. */
static size_t
int_list(const char *s, size_t i, size_t n)
{
	if (i >= n || s[i] != '[')
		return 0;
	for (i++; i < n && IS(s[i], C_INTL); i++)
		;
	return i < n && s[i] == ']' ? i + 1 : 0;
}

/* [L]<=[L](T(L))?: an iota tile assignment */
static size_t
tile_word(const char *s, size_t n)
{
	size_t i = int_list(s, 0, n), j;

	if (!i || i + 2 > n || s[i] != '<' || s[i + 1] != '=' ||
	    !(i = int_list(s, i + 2, n)))
		return 0;
	if (i + 2 <= n && s[i] == 'T' && s[i + 1] == '(') {
		for (j = i + 2; j < n && IS(s[j], C_INTL); j++)
			;
		if (j < n && s[j] == ')')
			return j + 1;
	}
	return i;
}

/* A string closed by its quote q at s[0]: its length, or 0. */
static size_t
string_len(const char *s, size_t n, char q)
{
	for (size_t i = 1; i < n; i++) {
		if (s[i] == q)
			return i + 1;
		if (s[i] == '\\') {
			if (i + 1 >= n)
				return 0;
			i++;
		}
	}
	return 0;
}

/* "..." left open: to its first newline not escaped, or the end. */
static size_t
open_string_len(const char *s, size_t n)
{
	size_t i = 1;

	while (i < n && s[i] != '\n') {
		if (s[i] == '\\') {
			if (i + 1 >= n)
				break;
			i++;
		}
		i++;
	}
	return i;
}

/* '{' ([A-Za-z0-9_=, \t] | string)* '}' */
static size_t
group_len(const char *s, size_t n)
{
	size_t i = 1, k;

	while (i < n) {
		if (IS(s[i], C_GROUP))
			i++;
		else if (s[i] == '"' && (k = string_len(s + i, n - i, '"')))
			i += k;
		else
			return s[i] == '}' ? i + 1 : 0;
	}
	return 0;
}

/* A name's length at s, '%' included, or 0. */
static size_t
name_len(const char *s, size_t n)
{
	size_t i = s[0] == '%', start = i;

	if (i >= n || !IS(s[i], C_NAME0))
		return 0;
	for (i++; i < n && IS(s[i], C_NAME); i++)
		;
	while (s[i - 1] == '-' && i - 1 > start)
		i--;
	return i;
}

/* The numbers: integer, number or attribute word, by longest match. */
static int
number(const char *s, size_t n, size_t *len)
{
	size_t i = signed_int(s, 0, n), best = 0, k;
	int tok = 0;

	if (i) {
		best = i;
		tok = T_INT;
		if (i < n && s[i] == '.') {	/* -?I.[0-9]*E? */
			k = exponent(s, digits(s, i + 1, n), n);
			best = k, tok = T_FLOAT;
		} else if ((k = exponent(s, i, n)) > i) {	/* -?IE */
			best = k, tok = T_FLOAT;
		}
	} else if (n >= 2 && (s[0] == '.' || (s[0] == '-' && s[1] == '.'))) {
		size_t j = 1 + (s[0] == '-');

		if ((k = digits(s, j, n)) > j)	/* -?.[0-9]+E? */
			best = exponent(s, k, n), tok = T_FLOAT;
	}
	if (n >= 4 && s[0] == '-' && (!memcmp(s + 1, "inf", 3) ||
				      !memcmp(s + 1, "nan", 3)) && best < 4)
		best = 4, tok = T_FLOAT;
	if (IS(s[0], C_DIGIT)) {	/* I(xI)+ */
		for (k = i; k < n && s[k] == 'x' && digits(s, k + 1, n) > k + 1;)
			k = digits(s, k + 1, n);
		if (k > best)
			best = k, tok = T_WORD;
	}
	if ((k = pad_word(s, n)) > best)
		best = k, tok = T_WORD;
	*len = best;
	return tok;
}

static const struct {
	const char *word;
	int tok;
} keywords[] = {
	{"HloModule", T_HLOMODULE},
	{"ENTRY", T_ENTRY},
	{"ROOT", T_ROOT},
	{"FileNames", T_FILENAMES},
	{"FunctionNames", T_FUNCTIONNAMES},
	{"FileLocations", T_FILELOCATIONS},
	{"StackFrames", T_STACKFRAMES},
};

/* A name's token: a keyword, or a name.  The words that open the
 * stack-frame tables are keywords only outside brackets, where the tables
 * are. */
static int
name_token(const struct lexstate *ls, const char *s, size_t len)
{
	if (s[0] < 'E' || s[0] > 'S' || len < 4 || len > 13)
		return T_NAME;
	for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
		if (strlen(keywords[k].word) == len &&
		    !memcmp(keywords[k].word, s, len))
			return k > 2 && ls->depth ? T_NAME : keywords[k].tok;
	return T_NAME;
}

/* Steps over a run of blanks, counting its lines as it goes: runs are
 * short, and a memchr per run cost more than the loop. */
static void
blanks(struct lexstate *ls, struct span *loc)
{
	const char *s = ls->src;
	size_t i = ls->off, n = ls->len;
	int line = ls->line, col = ls->col;

	loc->first_line = line;
	loc->first_column = col;
	loc->first_off = i;
	for (; i < n && IS(s[i], C_BLANK); i++) {
		if (s[i] == '\n')
			line++, col = 1;
		else
			col++;
	}
	ls->line = loc->last_line = line;
	ls->col = loc->last_column = col;
	ls->off = loc->last_off = i;
}

/* Skips blanks and comments; a comment left open is an error, returned
 * as 1. */
static int
skip(struct lexstate *ls, struct span *loc)
{
	const char *s = ls->src;
	size_t n = ls->len;

	for (;;) {
		size_t i = ls->off;
		const char *end;

		if (i < n && IS(s[i], C_BLANK)) {
			blanks(ls, loc);
		} else if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
			end = memchr(s + i, '\n', n - i);
			step(ls, loc, (end ? (size_t)(end - s) : n) - i, 0);
		} else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
			step(ls, loc, 2, 0);
			ls->open = *loc;
			for (i += 2; i + 1 < n; i++)
				if (s[i] == '*' && s[i + 1] == '/')
					break;
			if (i + 1 >= n) {
				step(ls, loc, n - ls->off, 1);
				lex_error(ls, ls->open, "unterminated comment");
				return 1;
			}
			step(ls, loc, i + 2 - ls->off, 1);
		} else {
			return 0;
		}
	}
}

/* A token of one line: its span, and the position moves past it. */
static inline int
token(struct lexstate *ls, struct span *loc, size_t len, int tok)
{
	loc->first_line = loc->last_line = ls->line;
	loc->first_column = ls->col;
	loc->first_off = ls->off;
	ls->col += (int)len;
	ls->off += len;
	loc->last_column = ls->col;
	loc->last_off = ls->off;
	return tok;
}

/* The forms that need more than a glance: names that may be dimension
 * labels, numbers and words, strings, groups and brackets. */
static int
lex_slow(struct lexstate *ls, struct span *loc, const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];
	size_t len, k;
	int tok;

	if (IS(c, C_NAME0) || c == '%') {
		len = name_len(s, n);
		tok = len ? name_token(ls, s, len) : 0;
		if (IS(c, C_DL) && (k = dim_labels(s, n)) > len)
			len = k, tok = T_WORD;
		if (tok)
			return token(ls, loc, len, tok);
	} else if (IS(c, C_DIGIT) || c == '-' || c == '.') {
		if (n >= 2 && c == '-' && s[1] == '>')
			return token(ls, loc, 2, T_ARROW);
		if (n >= 3 && !memcmp(s, "...", 3))
			return token(ls, loc, 3, T_ELLIPSIS);
		tok = number(s, n, &len);
		if (IS(c, C_DIGIT) && (k = dim_labels(s, n)) > len)
			len = k, tok = T_WORD;
		if (tok)
			return token(ls, loc, len, tok);
	} else if (c == '"' || c == '\'') {
		if ((len = string_len(s, n, (char)c))) {
			step(ls, loc, len, 1);
			return T_STRING;
		}
		if (c == '"') {
			step(ls, loc, open_string_len(s, n), 1);
			lex_error(ls, *loc, "unterminated string");
			return T_ERROR;
		}
	} else if (c == '{') {
		if ((len = group_len(s, n)) && lex_value_group(ls, ls->off)) {
			step(ls, loc, len, 1);
			return T_GROUP;
		}
		token(ls, loc, 1, 0);
		return lex_open(ls, *loc, '{');
	} else if (c == '[') {
		if ((len = tile_word(s, n)))
			return token(ls, loc, len, T_WORD);
		token(ls, loc, 1, 0);
		return lex_open(ls, *loc, '[');
	} else if (IS(c, C_PUNCT)) {
		if (c == '<' && n >= 2 && s[1] == '=')
			return token(ls, loc, 2, T_LE);
		if (c == '?' && (len = dim_labels(s, n)))
			return token(ls, loc, len, T_WORD);
		return token(ls, loc, 1, c);
	}
	token(ls, loc, 1, 0);
	return lex_bad(ls, *loc, c);
}

int
lex_next(struct lexstate *ls, struct span *loc)
{
	const char *s = ls->src + ls->off;
	size_t n = ls->len - ls->off, i;
	unsigned char c;

	if (n && (IS(s[0], C_BLANK) || s[0] == '/')) {
		if (skip(ls, loc))
			return T_ERROR;
		s = ls->src + ls->off;
		n = ls->len - ls->off;
	}
	if (!n) {
		lex_eof(ls, loc);
		return 0;
	}
	c = (unsigned char)s[0];
	switch (c) {
	case ',': case '=': case ':': case '#': case '*':
		return token(ls, loc, 1, c);
	case '(':
		token(ls, loc, 1, 0);
		return lex_open(ls, *loc, '(');
	case ')': case ']': case '}':
		token(ls, loc, 1, 0);
		return lex_close(ls, *loc, (char)c);
	}
	/* A name or an integer that nothing longer can start: a name not
	 * ending in '-', not a keyword, whose first run of [0-9a-z?] is not
	 * followed by '_' (as a dimension labels word's is); an integer
	 * before a byte that no other form continues with. */
	if (c == '%' && n > 1 && IS(s[1], C_NAME0)) {
		i = run_of(s, 2, n, C_NAME);
		if (s[i - 1] != '-')
			return token(ls, loc, i, T_NAME);
	} else if (IS(c, C_NAME0)) {
		/* 2: the run of [0-9a-z?] it starts with meets a '_' */
		size_t dl = IS(c, C_DL) ? run_of(s, 1, n, C_DL) : 0;

		dl = dl && dl < n && s[dl] == '_' ? 2 : 1;
		i = run_of(s, 1, n, C_NAME);
		if (s[i - 1] != '-' && dl != 2 && (c > 'S' || c < 'E'))
			return token(ls, loc, i, T_NAME);
	} else if (IS(c, C_DIGIT)) {
		for (i = 1; i < n && IS(s[i], C_DIGIT); i++)
			;
		if (i == n || !IS(s[i], C_NAME | C_DL))
			return token(ls, loc, i, T_INT);
	}
	return lex_slow(ls, loc, s, n);
}

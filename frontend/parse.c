/* The HLO grammar, by recursive descent (XLA's hlo_parser.cc is written so
 * too); bison's tables and stacks cost a third of the frontend.  Actions
 * build the IR through act_* in frontend.c; attribute values are kept as
 * source slices, a few read later by sema.c.
 *
 *	file	  = module+
 *	module	  = 'HloModule' name (',' attr)* frames? comp*
 *	frames	  = 'FileNames' (N string)* 'FunctionNames' (N string)*
 *		    'FileLocations' (N keys)* 'StackFrames' (N keys)*
 *	keys	  = '{' (name '=' N)* '}'
 *	comp	  = 'ENTRY'? name sig? '{' instr* '}' (',' attr)*
 *	sig	  = '(' (name ':' shape (',' name ':' shape)*)? ')' '->' shape
 *	instr	  = 'ROOT'? name '=' shape? name args (',' attr)*
 *	args	  = '(' (operand (',' operand)*)? ')'
 *	operand	  = shape? name ('#' N)* | shape? name args | literal
 *	literal	  = N | number | string | '...' | '{' soup '}'
 *		  | '(' (literal | name) (',' (literal | name))+ ')'
 *	attr	  = name '=' value
 *	value	  = name group* (N | number)? | N | number | string | word
 *		  | group
 *	group	  = '{' soup '}' | '[' soup ']' | '(' soup ')'
 *	soup	  = (any token but a bracket, or a group)*
 *	shape	  = type '[' dims? ']' layout? | '(' shapes? ')' | 'b' '(' shape ')'
 *	dims	  = dim (',' dim)*, dim = N | '<=' N | '?'
 *	layout	  = '{' (N (',' N)*)? (':' item*)? '}'
 *	item	  = (name | '#' | '*') ('(' (arg (',' arg)*)? ')')+
 *	arg	  = N | '*' | name | N ':' N | type '[' dims? ']' layout?
 *
 * Errors are reported and recovered from as a bison parser with LAC and
 * the error rules below would: the message lists the tokens that could
 * have come; the nearest open group, layout, stack frame's keys or
 * computation skips to its closer; until three tokens are read after that,
 * no new message; where nothing can recover, the parse stops. */
#include <string.h>

#include "frontend/front.h"

/* The tokens in the order messages list them (bison's symbol numbers). */
static const int order[] = {
	0, T_HLOMODULE, T_ENTRY, T_ROOT, T_NAME, T_INT, T_FLOAT, T_STRING,
	T_WORD, T_ARROW, T_LE, T_ELLIPSIS, T_LAYOUT, T_GROUP, T_END,
	T_FILENAMES, T_FUNCTIONNAMES, T_FILELOCATIONS, T_STACKFRAMES, ',',
	'{', '=', '(', ')', ':', '#', '}', '[', ']', '?', '*', '<', '>', '!',
	'@', '+', '|', '&', '^', '~', ';', '$',
};
enum { NSYM = sizeof order / sizeof order[0], T_EMPTY = -1 };

static const char *const names[] = {
	"end of file", "'HloModule'", "'ENTRY'", "'ROOT'", "name", "integer",
	"number", "string", "attribute word", "'->'", "'<='", "'...'",
	"layout '{'", "'{'", "'}'", "'FileNames'", "'FunctionNames'",
	"'FileLocations'", "'StackFrames'",
};

/* Brackets, groups, tuples and operand lists nest at most MAX_DEPTH deep,
 * counting the BASE_DEPTH levels below an instruction's attribute value.
 * Each level is a few calls of the descent, about 100 bytes of the C
 * stack: 500 levels fit a thread's stack of 128 KiB with room to spare
 * (bison's stack was on the heap; 10,000 states, 5,000 levels, took
 * 480 KiB here and crashed a parse under ulimit -s 256). */
enum { MAX_DEPTH = 500, BASE_DEPTH = 9 };

struct rd {
	struct parser *P;
	struct lexstate *ls;
	int tok;		/* the lookahead */
	struct span loc;	/* its span */
	struct span prev;	/* the span of the last token read */
	uint64_t expect;	/* symbols tested since the last token read */
	int errstatus;		/* tokens to read before a new message */
	int unwinding;		/* an error goes out to the nearest recovery */
	int aborted;		/* nothing recovered: the parse stops */
	int depth;		/* levels of nesting (enter) */
};

/* A token's place in order; 63 for T_ERROR, which no set holds. */
static const signed char char_sym[128] = {
	[','] = 19, ['{'] = 20, ['='] = 21, ['('] = 22, [')'] = 23,
	[':'] = 24, ['#'] = 25, ['}'] = 26, ['['] = 27, [']'] = 28,
	['?'] = 29, ['*'] = 30, ['<'] = 31, ['>'] = 32, ['!'] = 33,
	['@'] = 34, ['+'] = 35, ['|'] = 36, ['&'] = 37, ['^'] = 38,
	['~'] = 39, [';'] = 40, ['$'] = 41,
};

static inline int
sym(int tok)
{
	if (tok >= T_HLOMODULE && tok <= T_LAST)
		return tok - T_HLOMODULE + 1;
	if (tok > 0 && tok < 128 && char_sym[tok])
		return char_sym[tok];
	return tok == 0 ? 0 : 63;
}

static void
fetch(struct rd *R)
{
	R->tok = lex_next(R->ls, &R->loc);
}

/* Reads the lookahead: the next token becomes it. */
static void
next(struct rd *R)
{
	R->prev = R->loc;
	R->expect = 0;
	if (R->errstatus)
		R->errstatus--;
	fetch(R);
}

/* Whether the lookahead is tok; tok joins the expected ones. */
static int
is(struct rd *R, int tok)
{
	R->expect |= (uint64_t)1 << sym(tok);
	return R->tok == tok;
}

static int
accept(struct rd *R, int tok)
{
	if (!is(R, tok))
		return 0;
	next(R);
	return 1;
}

static struct tok
T(struct span s)
{
	struct tok t = {s.first_off, s.last_off - s.first_off};
	return t;
}

/* The span from a to b. */
static struct span
join(struct span a, struct span b)
{
	a.last_line = b.last_line;
	a.last_column = b.last_column;
	a.last_off = b.last_off;
	return a;
}

/* The text of a token for a message: at most 24 bytes, printable. */
static void
token_text(struct parser *P, struct span s, char *buf, size_t n)
{
	size_t len = s.last_off - s.first_off, k = 0;

	if (len > 24)
		len = 24;
	for (size_t i = 0; i < len && k + 1 < n; i++) {
		unsigned char c = (unsigned char)P->src[s.first_off + i];
		buf[k++] = c >= 32 && c < 127 ? (char)c : '?';
	}
	buf[k] = 0;
}

/* A token kind as a message names it: "name", "'->'", "'}'". */
static void
kind_name(int s, char *buf, size_t n)
{
	if (s < (int)(sizeof names / sizeof names[0]))
		snprintf(buf, n, "%s", names[s]);
	else
		snprintf(buf, n, "'%c'", order[s]);
}

/* " (the '(' opened at 3:5 is not closed)" */
static void
open_note(char *buf, size_t n, char ch, struct span s)
{
	snprintf(buf, n, " (the '%c' opened at %d:%d is not closed)", ch,
		 s.first_line, s.first_column);
}

/* "unexpected X, expected A, B or C"; at the end of the file or at a
 * closer that does not match, which bracket is still open and where it
 * opened.  Both '}' and the one that ends a computation read as '}', and
 * '{' and a value group as '{': each is listed once.  'FileNames' goes
 * unlisted: after a header, a computation is what is missing.  More than
 * eight, or six after that, are too many to be a help. */
static void
report(struct rd *R)
{
	struct parser *P = R->P;
	struct lexstate *ls = R->ls;
	int exp[NSYM], nexp = 0, k0 = sym(R->tok), brace, open;
	int bad_close = R->tok != 0 && ls->bad_close == R->loc.first_off + 1;
	char msg[512], name[64], text[32];
	size_t k;

	for (int s = 0; s < NSYM; s++)
		if (R->expect >> s & 1)
			exp[nexp++] = s;
	if (nexp > 8)
		nexp = 0;
	kind_name(k0, name, sizeof name);
	if (R->tok == 0) {
		k = (size_t)snprintf(msg, sizeof msg, "unexpected end of file");
	} else if (name[0] == '\'') {
		k = (size_t)snprintf(msg, sizeof msg, "unexpected %s", name);
	} else {
		token_text(P, R->loc, text, sizeof text);
		k = (size_t)snprintf(msg, sizeof msg, "unexpected %s '%s'",
				     name, text);
	}
	if (bad_close && !ls->unclosed_ch) {
		char c = P->src[R->loc.first_off];

		k += (size_t)snprintf(msg + k, sizeof msg - k,
				      " (no '%c' is open)",
				      c == ')' ? '(' : c == ']' ? '[' : '{');
		nexp = 0;
	}
	brace = R->expect >> sym('}') & 1;
	open = R->expect >> sym('{') & 1;
	{
		int n = 0;

		for (int i = 0; i < nexp; i++)
			if ((!brace || exp[i] != sym(T_END)) &&
			    (!open || exp[i] != sym(T_GROUP)) &&
			    exp[i] != sym(T_FILENAMES))
				exp[n++] = exp[i];
		nexp = n > 6 ? 0 : n;
	}
	for (int i = 0; i < nexp && k < sizeof msg; i++) {
		kind_name(exp[i], name, sizeof name);
		k += (size_t)snprintf(msg + k, sizeof msg - k, "%s%s",
				      i == 0 ? ", expected " :
				      i == nexp - 1 ? " or " : ", ", name);
	}
	if (R->tok == 0 && ls->depth > 0 && k < sizeof msg) {
		int d = ls->depth - 1 < 63 ? ls->depth - 1 : 63;

		open_note(msg + k, sizeof msg - k, ls->bracket_ch[d],
			  ls->brackets[d]);
	} else if (bad_close && ls->unclosed_ch && k < sizeof msg) {
		open_note(msg + k, sizeof msg - k, ls->unclosed_ch,
			  ls->unclosed);
	}
	diag_error(P->ds, span_loc(R->loc), "%s", msg);
	P->syntax_errors++;
}

/* The lookahead cannot come here: a message (none for a token the lexer
 * reported, nor within three tokens of the last recovery), then out to
 * the nearest recovery. */
static void
syntax_error(struct rd *R)
{
	if (R->unwinding)
		return;
	if (R->tok != T_ERROR) {	/* else the lexer said why */
		if (!R->errstatus)
			report(R);
		if (R->errstatus == 3 && R->tok == 0)
			R->aborted = 1;
	}
	/* The lookahead is dropped: read again only when needed. */
	if (R->tok == T_ERROR || R->errstatus == 3)
		R->tok = T_EMPTY;
	R->errstatus = 3;
	R->unwinding = 1;
}

#define BIT(tok) ((uint64_t)1 << sym(tok))
#define LIST (BIT(',') | BIT(')'))

/* Whether the lookahead is in follow, which joins the expected ones;
 * else fails.  Where bison needed the token after a construct to reduce
 * it, it checked that token (LAC) before the construct's action ran. */
static int
follows(struct rd *R, uint64_t follow)
{
	R->expect |= follow;
	if (R->tok >= 0 && (follow >> sym(R->tok) & 1))
		return 1;
	syntax_error(R);
	return 0;
}

/* Reads tok, or fails. */
static int
want(struct rd *R, int tok)
{
	if (accept(R, tok))
		return 1;
	syntax_error(R);
	return 0;
}

/* A recovery that can take the error going out: the tokens up to one of
 * its closers c1, c2 are dropped, and the closer read.  At the end of the
 * file the parse stops. */
static int
recover(struct rd *R, int c1, int c2)
{
	if (!R->unwinding || R->aborted)
		return 0;
	for (;;) {
		if (R->tok == T_EMPTY)
			fetch(R);
		if (R->tok == c1 || R->tok == c2)
			break;
		if (R->tok == 0) {
			R->aborted = 1;
			return 0;
		}
		R->tok = T_EMPTY;
	}
	R->unwinding = 0;
	R->errstatus = 3;
	next(R);
	return 1;
}

/* One level deeper; beyond MAX_DEPTH the parse stops. */
static int
enter(struct rd *R)
{
	R->depth++;
	if (R->depth < MAX_DEPTH)
		return 1;
	if (!R->unwinding) {
		diag_error(R->P->ds, span_loc(R->loc),
			   "brackets nested too deeply (memory exhausted)");
		R->P->syntax_errors++;
	}
	R->unwinding = R->aborted = 1;
	return 0;
}

#define OUT(R) ((R)->unwinding)

/* Lists live in the scratch pool; actions copy what they keep. */
static void *
list_new(struct parser *P, size_t size)
{
	return pool_alloc(P->tmp, size);
}

static void
ints_push(struct parser *P, struct ints *l, int64_t v)
{
	*VEC_PUSH(P->tmp, l->v, l->n, l->cap) = v;
}

static int64_t
tok_int(struct parser *P, struct span s)
{
	const char *p = P->src + s.first_off;
	int neg = *p == '-';
	int64_t v = 0;

	for (p += neg; p < P->src + s.last_off; p++) {
		if (v > (INT64_MAX - 9) / 10) {
			diag_error(P->ds, span_loc(s), "integer out of range");
			return 0;
		}
		v = v * 10 + (*p - '0');
	}
	return neg ? -v : v;
}

static int rbrace(struct rd *R);
static void soup(struct rd *R);
static struct shape *shape(struct rd *R, uint64_t follow);
static struct layout *layout(struct rd *R);

/* group: '{' soup '}' | value group | layout '{' soup '}' | '[' soup ']'
 * | '(' soup ')'; all but the layout recover at their closer. */
static int
group(struct rd *R)
{
	int open = R->tok, close = open == '[' ? ']' : open == '(' ? ')' : '}';
	int d;

	if (accept(R, T_GROUP))
		return 1;
	if (!is(R, '{') && !is(R, T_LAYOUT) && !is(R, '[') && !is(R, '('))
		return 0;
	d = R->depth;
	if (!enter(R))
		return 1;
	next(R);
	soup(R);
	if (!OUT(R)) {
		if (close == '}')
			rbrace(R);
		else
			want(R, close);
	}
	if (open != T_LAYOUT)
		recover(R, close, close == '}' ? T_END : close);
	R->depth = d;
	return 1;
}

/* '}' or the '}' that ends a computation. */
static int
rbrace(struct rd *R)
{
	if (accept(R, '}') || accept(R, T_END))
		return 1;
	syntax_error(R);
	return 0;
}

static void
soup(struct rd *R)
{
	for (;;) {
		switch (R->tok) {
		case T_NAME: case T_INT: case T_FLOAT: case T_STRING:
		case T_WORD: case T_ARROW: case T_LE: case T_ELLIPSIS:
		case T_ENTRY: case T_ROOT: case T_HLOMODULE: case '=':
		case ',': case ':': case '?': case '*': case '#': case '<':
		case '>': case '!': case '@': case '+': case '|': case '&':
		case '^': case '~': case ';': case '$':
			next(R);
			continue;
		}
		if (!group(R)) {
			/* Everything a soup can hold was possible here. */
			static const int items[] = {
				T_NAME, T_INT, T_FLOAT, T_STRING, T_WORD,
				T_ARROW, T_LE, T_ELLIPSIS, T_ENTRY, T_ROOT,
				T_HLOMODULE, '=', ',', ':', '?', '*', '#',
				'<', '>', '!', '@', '+', '|', '&', '^', '~',
				';', '$', T_GROUP,
			};
			for (size_t i = 0; i < sizeof items / sizeof items[0];
			     i++)
				is(R, items[i]);
			return;
		}
		if (OUT(R))
			return;
	}
}

/* attr: name '=' value */
static struct attr *
attr(struct rd *R)
{
	struct span key, first;

	if (!want(R, T_NAME))
		return NULL;
	key = R->prev;
	if (!want(R, '='))
		return NULL;
	first = R->loc;
	if (accept(R, T_NAME)) {
		while (group(R))
			if (OUT(R))
				return NULL;
		if (!accept(R, T_INT))
			accept(R, T_FLOAT);
	} else if (accept(R, T_INT) || accept(R, T_FLOAT) ||
		   accept(R, T_STRING) || accept(R, T_WORD)) {
		;
	} else if (!group(R)) {
		syntax_error(R);
	}
	if (OUT(R))
		return NULL;
	return act_attr(R->P, T(key), key, join(first, R->prev));
}

/* (',' attr)* */
static struct attrs *
attrs(struct rd *R)
{
	struct attrs *l = list_new(R->P, sizeof *l);
	struct attr *a;

	while (accept(R, ',')) {
		if (!(a = attr(R)))
			return l;
		*VEC_PUSH(R->P->tmp, l->v, l->n, l->cap) = *a;
	}
	return l;
}

/* dims: dim (',' dim)*, dim: N | '<=' N | '?'; dynamic kinds go in the
 * values: -1 - N for '<=' N, INT64_MIN for '?'. */
static struct ints *
dims(struct rd *R)
{
	struct parser *P = R->P;
	struct ints *l = list_new(P, sizeof *l);

	if (!is(R, T_INT) && !is(R, T_LE) && !is(R, '?'))
		return l;
	do {
		if (accept(R, T_INT)) {
			ints_push(P, l, act_dim(P, R->prev, tok_int(P, R->prev)));
		} else if (accept(R, T_LE)) {
			if (!want(R, T_INT))
				return l;
			ints_push(P, l, -1 - act_dim(P, R->prev,
						     tok_int(P, R->prev)));
		} else if (accept(R, '?')) {
			ints_push(P, l, INT64_MIN);
		} else {
			syntax_error(R);
			return l;
		}
	} while (accept(R, ','));
	return l;
}

/* larg: N | '*' | name | N ':' N | type '[' dims? ']' layout? */
static int64_t
larg(struct rd *R)
{
	int64_t v;

	if (accept(R, T_INT)) {
		v = tok_int(R->P, R->prev);
		if (accept(R, ':')) {
			want(R, T_INT);
			return 0;
		}
		return v;
	}
	if (accept(R, '*'))
		return -1;
	if (accept(R, T_NAME)) {
		if (accept(R, '[')) {
			dims(R);
			if (OUT(R) || !want(R, ']'))
				return 0;
			if (is(R, T_LAYOUT))
				layout(R);
		}
		return 0;
	}
	syntax_error(R);
	return 0;
}

/* '(' (larg (',' larg)*)? ')' */
static struct ints *
largs(struct rd *R)
{
	struct ints *l = list_new(R->P, sizeof *l);

	if (!want(R, '('))
		return l;
	if (accept(R, ')'))
		return l;
	do {
		int64_t v = larg(R);

		if (OUT(R))
			return l;
		ints_push(R->P, l, v);
	} while (accept(R, ','));
	want(R, ')');
	return l;
}

/* The body of a layout after its '{': minor-to-major numbers, then after
 * ':' its items; the caller reads the '}'. */
static struct layout *
layout_body(struct rd *R)
{
	struct parser *P = R->P;
	struct layout *lay;
	struct ints *m2m = list_new(P, sizeof *m2m);

	if (accept(R, T_INT)) {
		ints_push(P, m2m, tok_int(P, R->prev));
		while (accept(R, ',')) {
			if (!want(R, T_INT))
				return NULL;
			ints_push(P, m2m, tok_int(P, R->prev));
		}
	}
	lay = list_new(P, sizeof *lay);
	if (!accept(R, ':')) {
		lay->m2m = *m2m;
		return lay;
	}
	for (;;) {
		struct layout_item *it;
		struct ints *g;

		if (accept(R, T_NAME)) {
			it = list_new(P, sizeof *it);
			it->name = tok_name(P, T(R->prev));
		} else if (accept(R, '#') || accept(R, '*')) {
			it = list_new(P, sizeof *it);
			it->name = P->src[R->prev.first_off] == '#' ? "#" : "*";
		} else {
			break;
		}
		it->loc = span_loc(R->prev);
		g = largs(R);
		if (OUT(R))
			return NULL;
		if (it->name[0] != '#' && it->name[0] != '*')
			*VEC_PUSH(P->tmp, it->groups, it->ngroup, it->cap) = *g;
		while (is(R, '(')) {
			g = largs(R);
			if (OUT(R))
				return NULL;
			*VEC_PUSH(P->tmp, it->groups, it->ngroup, it->cap) = *g;
		}
		*VEC_PUSH(P->tmp, lay->items, lay->nitem, lay->cap) = *it;
	}
	lay->m2m = *m2m;
	return lay;
}

/* layout '{' body '}' */
static struct layout *
layout(struct rd *R)
{
	struct span at = R->loc;
	struct layout *lay;

	next(R);
	lay = layout_body(R);
	if (OUT(R) || !rbrace(R))
		return NULL;
	lay->loc = span_loc(at);
	return lay;
}

/* The rest of an array shape after its type: '[' dims? ']' layout?; an
 * error in the layout recovers at its '}', the shape without a layout.
 * Without a layout, the shape is made only once the token after it is
 * one of follow (bison read it first). */
static struct shape *
array_rest(struct rd *R, struct span type, uint64_t follow)
{
	struct ints *d;
	struct layout *lay = NULL;

	next(R);	/* '[' */
	d = dims(R);
	if (OUT(R) || !want(R, ']'))
		return NULL;
	if (is(R, T_LAYOUT)) {
		lay = layout(R);
		if (OUT(R)) {
			if (!recover(R, '}', T_END))
				return NULL;
			lay = NULL;
		}
	} else if (!follows(R, follow)) {
		return NULL;
	}
	return act_array(R->P, T(type), type, d, lay);
}

/* '(' (shape (',' shape)*)? ')', after its '(' */
static struct shape *
tuple_rest(struct rd *R, struct span open)
{
	struct shapes *l = list_new(R->P, sizeof *l);
	struct shape *s;
	int d = R->depth;

	if (!enter(R))
		return NULL;
	if (!is(R, ')')) {
		do {
			if (!(s = shape(R, LIST)))
				return NULL;
			*VEC_PUSH(R->P->tmp, l->v, l->n, l->cap) = *s;
		} while (accept(R, ','));
	}
	if (!want(R, ')'))
		return NULL;
	R->depth = d;
	return act_tuple(R->P, l, join(open, R->prev));
}

/* shape: type '[' dims? ']' layout? | '(' shapes? ')' | b '(' shape ')' */
static struct shape *
shape(struct rd *R, uint64_t follow)
{
	struct span first = R->loc;
	struct shape *in;

	if (accept(R, '('))
		return tuple_rest(R, first);
	if (!want(R, T_NAME))
		return NULL;
	if (is(R, '['))
		return array_rest(R, first, follow);
	if (!accept(R, '(')) {
		is(R, '[');
		syntax_error(R);
		return NULL;
	}
	if (!(in = shape(R, BIT(')'))) || !want(R, ')'))
		return NULL;
	return act_buffer(R->P, T(first), join(first, R->prev), in);
}

static struct opnds *operands(struct rd *R, struct shape **bare);
static int literal(struct rd *R);
static struct shape *paren(struct rd *R, int *is_literal);

/* The rest of an operand after its name: ('#' N)*. */
static struct opnd
named_operand(struct rd *R, struct span name)
{
	struct opnd o = {0};
	struct ints *idx = NULL;

	while (accept(R, '#')) {
		if (!want(R, T_INT))
			return o;
		if (!idx)
			idx = list_new(R->P, sizeof *idx);
		ints_push(R->P, idx, tok_int(R->P, R->prev));
	}
	return act_operand(R->P, T(name), name, idx);
}

/* After a shape in an operand list: name ('#' N)* or name args. */
static struct opnd
shaped_operand(struct rd *R, struct shape *s)
{
	struct opnd o = {0};
	struct span name, args;
	struct opnds *ops;

	if (!want(R, T_NAME))
		return o;
	name = R->prev;
	if (is(R, '(')) {
		args = R->loc;
		ops = operands(R, NULL);
		if (OUT(R))
			return o;
		return act_nested(R->P, s, T(name), name, ops,
				  join(args, R->prev));
	}
	return named_operand(R, name);
}

/* A literal element: a literal or a name. */
static int
literal_elem(struct rd *R)
{
	if (accept(R, T_NAME))
		return 1;
	return literal(R);
}

/* The rest of '(' literal_elem ',' literal_elems ')' after its first
 * element. */
static void
literal_tuple_rest(struct rd *R)
{
	if (!want(R, ','))
		return;
	do {
		if (!literal_elem(R) || OUT(R))
			return;
	} while (accept(R, ','));
	want(R, ')');
}

/* '(' in an operand list: a tuple shape (then a name follows) or a tuple
 * literal.  Returns the shape, or NULL for a literal (or an error). */
static struct shape *
paren_in(struct rd *R, int *is_literal)
{
	struct span open = R->loc, type;
	struct shapes *l;
	struct shape *s, *in;
	int lit;

	*is_literal = 0;
	next(R);
	if (!enter(R))
		return NULL;
	if (is(R, ')'))
		return tuple_rest(R, open);
	/* The first element says which. */
	if (accept(R, T_NAME)) {
		type = R->prev;
		if (is(R, '[')) {
			s = array_rest(R, type, LIST);
		} else if (accept(R, '(')) {
			if (!(in = shape(R, BIT(')'))) || !want(R, ')'))
				return NULL;
			s = act_buffer(R->P, T(type), join(type, R->prev), in);
		} else {
			literal_tuple_rest(R);
			*is_literal = 1;
			return NULL;
		}
	} else if (is(R, '(')) {
		s = paren(R, &lit);
		if (lit) {
			if (!OUT(R))
				literal_tuple_rest(R);
			*is_literal = 1;
			return NULL;
		}
	} else if (literal(R)) {
		if (!OUT(R))
			literal_tuple_rest(R);
		*is_literal = 1;
		return NULL;
	} else {
		is(R, ')');
		syntax_error(R);
		return NULL;
	}
	if (!s || OUT(R))
		return NULL;
	l = list_new(R->P, sizeof *l);
	*VEC_PUSH(R->P->tmp, l->v, l->n, l->cap) = *s;
	while (accept(R, ',')) {
		if (!(s = shape(R, LIST)))
			return NULL;
		*VEC_PUSH(R->P->tmp, l->v, l->n, l->cap) = *s;
	}
	if (!want(R, ')'))
		return NULL;
	return act_tuple(R->P, l, join(open, R->prev));
}

static struct shape *
paren(struct rd *R, int *is_literal)
{
	int d = R->depth;
	struct shape *s = paren_in(R, is_literal);

	R->depth = d;
	return s;
}

/* literal: N | number | string | '...' | '{' soup '}' | a tuple; 0 when
 * the lookahead starts none. */
static int
literal(struct rd *R)
{
	if (accept(R, T_INT) || accept(R, T_FLOAT) || accept(R, T_STRING) ||
	    accept(R, T_ELLIPSIS))
		return 1;
	if (is(R, '{')) {
		int d = R->depth;

		if (!enter(R))
			return 1;
		next(R);
		soup(R);
		if (!OUT(R))
			want(R, '}');
		recover(R, '}', '}');
		R->depth = d;
		return 1;
	}
	if (is(R, '(')) {
		int d = R->depth;

		if (!enter(R))
			return 1;
		next(R);
		if (literal_elem(R)) {
			if (!OUT(R))
				literal_tuple_rest(R);
		} else {
			syntax_error(R);
		}
		R->depth = d;
		return 1;
	}
	return 0;
}

/* operand: shape? name ('#' N)* | shape? name args | literal.  With bare,
 * a shape alone followed by ')' is returned there: b(shape) was a buffer
 * shape, not an instruction's arguments. */
static struct opnd
operand(struct rd *R, struct shape **bare)
{
	struct opnd o = {0};
	struct span first = R->loc, args;
	struct shape *s = NULL, *in = NULL;
	struct opnds *ops;
	int lit;

	if (accept(R, T_NAME)) {
		if (is(R, '[')) {
			s = array_rest(R, first, BIT(T_NAME) |
						 (bare ? BIT(')') : 0));
		} else if (is(R, '(')) {
			args = R->loc;
			ops = operands(R, &in);
			if (OUT(R))
				return o;
			if (!in)
				return act_nested(R->P, NULL, T(first), first,
						  ops, join(args, R->prev));
			s = act_buffer(R->P, T(first), join(first, R->prev),
				       in);
		} else {
			return named_operand(R, first);
		}
	} else if (is(R, '(')) {
		s = paren(R, &lit);
		if (lit) {
			o.loc = span_loc(first);
			return o;
		}
	} else if (literal(R)) {
		o.loc = span_loc(first);
		return o;
	} else {
		syntax_error(R);
		return o;
	}
	if (!s || OUT(R))
		return o;
	if (bare && is(R, ')')) {
		*bare = s;
		return o;
	}
	return shaped_operand(R, s);
}

/* args: '(' (operand (',' operand)*)? ')'.  With bare, a shape alone in
 * the parentheses is returned there instead. */
static struct opnds *
operands(struct rd *R, struct shape **bare)
{
	struct opnds *l = list_new(R->P, sizeof *l);
	struct opnd o;
	int d = R->depth;

	next(R);	/* '(' */
	if (!enter(R))
		return l;
	if (!is(R, ')')) {
		do {
			o = operand(R, l->n ? NULL : bare);
			if (OUT(R))
				return l;
			if (bare && *bare) {
				next(R);	/* ')' */
				R->depth = d;
				return l;
			}
			*VEC_PUSH(R->P->tmp, l->v, l->n, l->cap) = o;
		} while (accept(R, ','));
	}
	if (want(R, ')'))
		R->depth = d;
	return l;
}

/* instr: 'ROOT'? name '=' shape? opcode args (',' attr)* */
static void
instr(struct rd *R)
{
	struct span name, opc, args;
	struct shape *s = NULL, *in = NULL;
	struct opnds *ops;
	struct attrs *as;
	int root = accept(R, T_ROOT);

	if (!want(R, T_NAME))
		return;
	name = R->prev;
	if (!want(R, '='))
		return;
	if (is(R, '(')) {
		struct span open = R->loc;

		next(R);
		if (!(s = tuple_rest(R, open)))
			return;
	} else if (!want(R, T_NAME)) {
		return;
	} else {
		opc = R->prev;
		if (is(R, '[')) {
			if (!(s = array_rest(R, opc, BIT(T_NAME))))
				return;
		} else if (is(R, '(')) {
			args = R->loc;
			ops = operands(R, &in);
			if (OUT(R))
				return;
			if (!in)
				goto have_args;
			s = act_buffer(R->P, T(opc), join(opc, R->prev), in);
		} else {
			syntax_error(R);
			return;
		}
	}
	if (!want(R, T_NAME))
		return;
	opc = R->prev;
	if (!is(R, '(')) {
		syntax_error(R);
		return;
	}
	args = R->loc;
	ops = operands(R, NULL);
	if (OUT(R))
		return;
have_args:
	args = join(args, R->prev);
	as = attrs(R);
	if (OUT(R) || !follows(R, BIT(T_ROOT) | BIT(T_NAME) | BIT(T_END)))
		return;
	act_instr(R->P, root, T(name), name, s, T(opc), opc, ops, args, as);
}

/* sig: '(' (name ':' shape (',' name ':' shape)*)? ')' '->' shape */
static void
signature(struct rd *R)
{
	next(R);	/* '(' */
	if (accept(R, T_NAME)) {
		for (;;) {
			if (!want(R, ':') || !shape(R, LIST))
				return;
			if (!accept(R, ','))
				break;
			if (!want(R, T_NAME))
				return;
		}
	}
	if (want(R, ')') && want(R, T_ARROW))
		shape(R, BIT('{'));
}

/* comp: 'ENTRY'? name sig? '{' instr* '}' (',' attr)*; an error inside,
 * its attributes included, recovers at the '}' that closes it, and its
 * attributes follow. */
static void
comp(struct rd *R)
{
	struct parser *P = R->P;
	struct attrs *as;
	int entry = accept(R, T_ENTRY);
	struct span name;

	if (!want(R, T_NAME))
		return;
	name = R->prev;
	if (is(R, '(')) {
		signature(R);
		if (OUT(R))
			return;
	}
	if (!want(R, '{'))
		return;
	act_comp(P, entry, T(name), name);
	while (is(R, T_ROOT) || is(R, T_NAME)) {
		instr(R);
		if (OUT(R))
			break;
	}
	if (!OUT(R))
		want(R, T_END);
	for (;;) {
		if (OUT(R) && !recover(R, T_END, T_END))
			return;
		R->depth = BASE_DEPTH;
		as = attrs(R);
		/* What follows is read before the computation ends, so an
		 * error there recovers in it too. */
		if (!OUT(R) && !is(R, T_ENTRY) && !is(R, T_NAME) &&
		    !is(R, T_HLOMODULE) && !is(R, 0))
			syntax_error(R);
		if (!OUT(R))
			break;
	}
	act_comp_end(P, as);
}

/* '{' (name '=' N)* '}' after a stack-frame table's number; an error
 * recovers at the '}', the entry empty. */
static struct attrs *
frame_keys(struct rd *R)
{
	struct parser *P = R->P;
	struct attrs *l;

	if (!want(R, '{'))
		return NULL;
	l = list_new(P, sizeof *l);
	while (accept(R, T_NAME)) {
		struct span k = R->prev;

		if (!want(R, '=') || !want(R, T_INT))
			break;
		*VEC_PUSH(P->tmp, l->v, l->n, l->cap) =
			*act_attr(P, T(k), k, R->prev);
	}
	if (!OUT(R))
		want(R, T_END);
	if (OUT(R)) {
		if (!recover(R, T_END, T_END))
			return NULL;
		l = list_new(P, sizeof *l);
	}
	return l;
}

/* The stack-frame tables XLA prints after the header (HloModule::
 * PrintStackFrameIndex); ids are 1-based, in the order written. */
static void
frames(struct rd *R)
{
	static const int heads[] = {T_FUNCTIONNAMES, T_FILELOCATIONS,
				    T_STACKFRAMES, 0};
	struct attrs *keys;

	for (int table = 0; table < 4; table++) {
		while (accept(R, T_INT)) {
			if (table < 2) {
				if (!want(R, T_STRING))
					return;
				act_frame_string(R->P, table, R->prev);
				continue;
			}
			if (!(keys = frame_keys(R)))
				return;
			if (table == 2)
				act_file_location(R->P, keys);
			else
				act_stack_frame(R->P, keys);
		}
		if (heads[table] && !want(R, heads[table]))
			return;
	}
}

/* module: 'HloModule' name (',' attr)* frames? comp* */
static void
module(struct rd *R)
{
	struct parser *P = R->P;
	struct span at = R->loc;
	struct attr *a;

	next(R);
	if (!want(R, T_NAME))
		return;
	act_module(P, T(R->prev), at);
	while (accept(R, ',')) {
		if (!(a = attr(R)))
			return;
		act_module_attr(P, a);
	}
	if (accept(R, T_FILENAMES)) {
		frames(R);
		if (OUT(R))
			return;
	}
	while (is(R, T_ENTRY) || is(R, T_NAME)) {
		comp(R);
		if (OUT(R))
			return;
	}
}

/* file: module+ (modules may be split by // ----- comments) */
void
parse_hlo(struct parser *P, struct lexstate *ls)
{
	struct rd R = {0};

	R.P = P;
	R.ls = ls;
	R.depth = BASE_DEPTH;
	fetch(&R);
	if (!is(&R, T_HLOMODULE)) {
		syntax_error(&R);
		return;
	}
	do {
		module(&R);
		if (OUT(&R))
			return;
	} while (is(&R, T_HLOMODULE));
	if (!is(&R, 0))
		syntax_error(&R);
}

/* The HLO grammar: a pure, reentrant bison parser with locations (jq's
 * parser.y).  Actions build the IR directly through act_* in actions.c;
 * attribute values are kept as source slices, a few read later by sema.c.
 *
 * The grammar is built twice (CMakeLists.txt): as hlo, without LAC, which
 * parses a module and gives up at its first error, and as hlolac, with
 * parse.lac=full, which syntax.c runs over the text again only when hlo
 * gave up: its messages list exactly the tokens that could have come, and
 * its recovery runs no action a wrong token would have stopped.  hlo's
 * scanner also makes the common dimensions, layouts and operand lists one
 * token each (T_DIMS, T_M2M, T_ARGS), which hlolac's never does.
 * Locations are byte offsets; lex_loc makes lines and columns of them. */
%code requires {
#include "frontend/frontend_internal.h"
}

%code top {
#include <stdio.h>
#include <string.h>
}

%code {
/* A rule's span: its first symbol's start to its last one's end; an empty
 * rule sits where the symbol before it ends. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                          \
	do {                                                                 \
		if (N) {                                                     \
			(Cur).first_off = YYRHSLOC(Rhs, 1).first_off;        \
			(Cur).last_off = YYRHSLOC(Rhs, N).last_off;          \
		} else {                                                     \
			(Cur).first_off = (Cur).last_off =                   \
				YYRHSLOC(Rhs, 0).last_off;                   \
		}                                                            \
	} while (0)

static void yyerror(struct span *loc, struct parser *P, const char *msg);

/* The scanner's next token.  A nesting one level too deep that the parser
 * entered after an opener is reported at the token after it, as where the
 * nesting ends; the parse then stops (T_ABORT is in no rule). */
static int
yylex(union hloval *val, struct span *loc, struct parser *P)
{
	int tok;

	if (P->gave_up)
		return 0;	/* whatever bison does next, it ends */
	tok = hlo_lex(val, loc, P->scanner);
	if (P->deep_pending && !P->aborted) {
		too_deep(P, *loc);
		return T_ABORT;
	}
	if (P->fast && P->ls->errors)
		return T_ABORT;	/* hlolac will say it again */
	return tok;
}

static struct tok
T(struct span s)
{
	struct tok t = {s.first_off, s.last_off - s.first_off};
	return t;
}

/* The parser's lists live in the scratch pool; actions copy what they keep. */
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
			diag_error(P->ds, span_loc(P, s),
				   "integer out of range");
			return 0;
		}
		v = v * 10 + (*p - '0');
	}
	return neg ? -v : v;
}

/* The numbers of a T_DIMS or T_M2M token, each read as its own token. */
static struct ints *
ints_of(struct parser *P, struct span s)
{
	struct ints *l = list_new(P, sizeof *l);
	struct span n;

	for (n.last_off = s.first_off + 1; n.last_off < s.last_off - 1;
	     n.last_off++) {
		n.first_off = n.last_off;
		while (P->src[n.last_off] >= '0' && P->src[n.last_off] <= '9')
			n.last_off++;
		ints_push(P, l, tok_int(P, n));
	}
	return l;
}

/* A T_DIMS's dimensions, each as dims reads it. */
static struct ints *
dims_of(struct parser *P, struct span s)
{
	struct ints *l = list_new(P, sizeof *l);
	struct span n;

	for (n.last_off = s.first_off + 1; n.last_off < s.last_off - 1;
	     n.last_off++) {
		n.first_off = n.last_off;
		while (P->src[n.last_off] >= '0' && P->src[n.last_off] <= '9')
			n.last_off++;
		ints_push(P, l, act_dim(P, n, tok_int(P, n)));
	}
	return l;
}

/* A T_DIMS, T_M2M or T_ARGS as a group: a level, as its brackets would be; one
 * too deep, and hlo gives up for hlolac to say so. */
static int
flat_group(struct parser *P)
{
	if (P->depth + 1 < MAX_DEPTH)
		return 1;
	P->gave_up = 1;
	return 0;
}

/* A T_ARGS's operands, each as operand reads a name alone; NULL when a
 * name is a keyword, which hlolac reads as one, or the list is a level
 * too deep: hlo gives up. */
static struct opnds *
args_of(struct parser *P, struct span s)
{
	static const char *const words[] = {"HloModule", "ENTRY", "ROOT"};
	struct opnds *l = list_new(P, sizeof *l);
	const char *p = P->src + s.first_off + 1, *end = P->src + s.last_off;
	struct span n;

	if (!flat_group(P))
		return NULL;
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == ',' || *p == ')') {
			p++;
			continue;
		}
		n.first_off = (uint32_t)(p - P->src);
		while (*p != ' ' && *p != '\t' && *p != ',' && *p != ')')
			p++;
		n.last_off = (uint32_t)(p - P->src);
		for (size_t i = 0; i < sizeof words / sizeof *words; i++)
			if (strlen(words[i]) == n.last_off - n.first_off &&
			    !memcmp(words[i], P->src + n.first_off,
				    strlen(words[i]))) {
				P->gave_up = 1;
				return NULL;
			}
		*VEC_PUSH(P->tmp, l->v, l->n, l->cap) =
			act_operand(P, T(n), n, NULL);
	}
	return l;
}

/* One level deeper for a group, a literal, a tuple or an operand list;
 * returns the depth to go back to.  A level too deep is reported at the
 * opener (enter_here) or at the token after it (enter_next). */
static int
enter(struct parser *P, struct span opener, int here)
{
	int d = P->depth++;

	if (P->depth >= MAX_DEPTH) {
		if (here)
			too_deep(P, opener);
		else
			P->deep_pending = 1;
	}
	return d;
}
}

%define api.pure full
%define api.prefix {hlo}
%define api.value.type {union hloval}
%define api.location.type {struct span}
%define parse.error custom
%define lr.type ielr
%locations
%param {struct parser *P}
%expect 0

%token T_HLOMODULE "'HloModule'"
%token T_ENTRY "'ENTRY'"
%token T_ROOT "'ROOT'"
%token T_NAME "name"
%token T_INT "integer"
%token T_FLOAT "number"
%token T_STRING "string"
%token T_WORD "attribute word"
%token T_ARROW "'->'"
%token T_LE "'<='"
%token T_ELLIPSIS "'...'"
%token T_LAYOUT "layout '{'"
%token T_GROUP "'{'"
%token T_END "'}'"
%token T_FILENAMES "'FileNames'"
%token T_FUNCTIONNAMES "'FunctionNames'"
%token T_FILELOCATIONS "'FileLocations'"
%token T_STACKFRAMES "'StackFrames'"
/* Messages list the tokens in this order. */
%token ',' '{' '=' '(' ')' ':' '#' '}' '[' ']' '?' '*' '<' '>' '!' '@' '+'
%token '|' '&' '^' '~' ';' '$'
%token T_ABORT "nesting too deep"
/* Only hlo's scanner makes these, '[' 2,3 ']' and a layout '{' 1,0 '}';
 * messages never name them (drop_end). */
%token T_DIMS "dimensions"
%token T_M2M "minor-to-major"
%token T_ARGS "operands"

%type <flag> entry_opt root_opt enter_here enter_next
%type <num> larg
%type <opnd> operand
%type <opnds> operands operands_opt args
%type <attr> attr
%type <attrs> attrs frame_body frame_keys
%type <shape> shape head_shape sig_opt
%type <shapes> shapes shapes_opt
%type <ints> dims dims_opt ints ints_opt largs largs_opt hashes_opt
%type <layout> layout_opt layout_body litems
%type <litem> litem

%%

/* file: module+  (modules may be split by // ----- comments) */
file:	module
	| file module
	;

/* module: 'HloModule' name (',' attr)* [stack frames] computation* */
module:	T_HLOMODULE T_NAME colon_opt { act_module(P, T(@2), @1); } mod_attrs
	  frames_opt
	comps
	;

mod_attrs: %empty
	| mod_attrs ',' attr { act_module_attr(P, $3); }
	;

/* The stack-frame tables XLA prints after the header (HloModule::
 * PrintStackFrameIndex): 'FileNames' (N string)* 'FunctionNames'
 * (N string)* 'FileLocations' (N frame_body)* 'StackFrames'
 * (N frame_body)*.  Ids are 1-based, in the order written. */
frames_opt: %empty
	| T_FILENAMES file_names T_FUNCTIONNAMES function_names
	  T_FILELOCATIONS file_locations T_STACKFRAMES stack_frames
	;

file_names: %empty
	| file_names T_INT T_STRING { act_frame_string(P, 0, @3); }
	;

function_names: %empty
	| function_names T_INT T_STRING { act_frame_string(P, 1, @3); }
	;

file_locations: %empty
	| file_locations T_INT frame_body { act_file_location(P, $3); }
	;

stack_frames: %empty
	| stack_frames T_INT frame_body { act_stack_frame(P, $3); }
	;

/* '{' (name '=' N)* '}': at depth 0, so its '}' is T_END. */
frame_body: '{' frame_keys T_END { $$ = $2; }
	| '{' error T_END { $$ = list_new(P, sizeof(struct attrs)); }
	;

frame_keys: %empty { $$ = list_new(P, sizeof(struct attrs)); }
	| frame_keys T_NAME '=' T_INT {
		*VEC_PUSH(P->tmp, $1->v, $1->n, $1->cap) =
			*act_attr(P, T(@2), @2, @4);
		$$ = $1;
	}
	;

comps:	%empty
	| comps comp
	;

/* computation: ['ENTRY'] name [signature] '{' instruction* '}' (',' attr)*;
 * after an error inside, nesting counts from the bottom again. */
comp:	comp_head instrs comp_end attrs { act_comp_end(P, $4); }
	| comp_head error comp_end attrs { act_comp_end(P, $4); }
	;

comp_head: entry_opt T_NAME sig_opt '{' {
		act_comp(P, $1, T(@2), @2);
		act_comp_result(P, $3, @3);
	}
	;

comp_end: T_END { P->depth = BASE_DEPTH; }
	;

entry_opt: %empty { $$ = 0; }
	| T_ENTRY { $$ = 1; }
	;

/* signature: '(' [name [':'] shape (',' name [':'] shape)*] ')' '->' shape */
sig_opt: %empty { $$ = NULL; }
	| '(' params_opt ')' T_ARROW shape { $$ = $5; @$ = @5; }
	;

params_opt: %empty
	| params
	;

params:	param
	| params ',' param
	;

/* XLA's lexer makes "p:" one name token and its ParseParamList takes a
 * name and a shape, so the ':' is optional, as after HloModule's name. */
param:	T_NAME colon_opt shape
	;

colon_opt: %empty
	| ':'
	;

instrs:	%empty
	| instrs instr
	;

/* instruction: ['ROOT'] name '=' [shape] opcode '(' operands ')'
 *	(',' attr)*; without a shape, sema infers it as XLA's parser does. */
instr:	root_opt T_NAME '=' head_shape T_NAME args attrs {
		act_instr(P, $1, T(@2), @2, $4, T(@5), @5, $6, @6, $7);
	}
	| root_opt T_NAME '=' T_NAME args attrs {
		act_instr(P, $1, T(@2), @2, NULL, T(@4), @4, $5, @5, $6);
	}
	;

root_opt: %empty { $$ = 0; }
	| T_ROOT { $$ = 1; }
	;

/* The levels of nesting: one each for a group, a literal's braces or
 * parentheses, a tuple shape and an operand list. */
enter_here: %empty { $$ = enter(P, @0, 1); if (P->aborted) YYABORT; }
	;

enter_next: %empty { $$ = enter(P, @0, 0); }
	;

args:	'(' enter_next operands_opt ')' { $$ = $3; P->depth = $2; }
	| T_ARGS {
		$$ = args_of(P, @1);
		if (!$$)
			YYABORT;
	}
	;

operands_opt: %empty { $$ = list_new(P, sizeof(struct opnds)); }
	| operands
	;

operands: operand {
		$$ = list_new(P, sizeof(struct opnds));
		*VEC_PUSH(P->tmp, $$->v, $$->n, $$->cap) = $1;
	}
	| operands ',' operand {
		*VEC_PUSH(P->tmp, $1->v, $1->n, $1->cap) = $3;
		$$ = $1;
	}
	;

/* operand: [shape] name ('#' index)* | [shape] opcode '(' operands ')'
 *	| a literal (for constant).  name#i is element i of a tuple and an
 *	instruction nested in an operand list has no attributes (XLA's
 *	ParseOperands); both become instructions of their own before the one
 *	that reads them. */
operand: T_NAME hashes_opt { $$ = act_operand(P, T(@1), @1, $2); }
	| head_shape T_NAME hashes_opt { $$ = act_operand(P, T(@2), @2, $3); }
	| T_NAME args {
		$$ = act_nested(P, NULL, T(@1), @1, $2, @2);
	}
	| head_shape T_NAME args {
		$$ = act_nested(P, $1, T(@2), @2, $3, @3);
	}
	| literal { $$.name = NULL; $$.loc = span_loc(P, @1); }
	;

hashes_opt: %empty { $$ = NULL; }
	| hashes_opt '#' T_INT {
		$$ = $1 ? $1 : list_new(P, sizeof(struct ints));
		ints_push(P, $$, tok_int(P, @3));
	}
	;

/* A literal where an operand starts, or first in a tuple that is one:
 * its parentheses may still be a tuple shape's, so their level is
 * entered after them, as a shape's are. */
literal: T_INT
	| T_FLOAT
	| T_STRING
	| T_ELLIPSIS
	| '{' enter_here soup '}' { P->depth = $2; }
	| '{' enter_here error '}' { P->depth = $2; }
	| '(' enter_next literal_first ',' literal_elems ')' { P->depth = $2; }
	;

literal_first: literal
	| T_NAME
	;

/* A literal later in a tuple: nothing else can start there. */
literal_elem: T_INT
	| T_FLOAT
	| T_STRING
	| T_ELLIPSIS
	| T_NAME
	| '{' enter_here soup '}' { P->depth = $2; }
	| '{' enter_here error '}' { P->depth = $2; }
	| '(' enter_here literal_elem ',' literal_elems ')' { P->depth = $2; }
	;

literal_elems: literal_elem
	| literal_elems ',' literal_elem
	;

attrs:	%empty { $$ = list_new(P, sizeof(struct attrs)); }
	| attrs ',' attr {
		*VEC_PUSH(P->tmp, $1->v, $1->n, $1->cap) = *$3;
		$$ = $1;
	}
	;

/* attr: name '=' value, where a value is one word or a bracketed group */
attr:	T_NAME '=' attr_value { $$ = act_attr(P, T(@1), @1, @3); }
	;

attr_value: T_NAME groups_opt
	| T_NAME groups_opt T_INT
	| T_NAME groups_opt T_FLOAT
	| T_INT
	| T_FLOAT
	| T_STRING
	| T_WORD
	| group
	;

groups_opt: %empty
	| groups_opt group
	;

/* A bracketed group whose tokens are kept as text, brackets balanced. */
group:	'{' enter_here soup rbrace { P->depth = $2; }
	| T_GROUP
	| T_LAYOUT enter_here soup rbrace { P->depth = $2; }
	| '[' enter_here soup ']' { P->depth = $2; }
	| '(' enter_here soup ')' { P->depth = $2; }
	| '{' enter_here error rbrace { P->depth = $2; }
	| '[' enter_here error ']' { P->depth = $2; }
	| '(' enter_here error ')' { P->depth = $2; }
	| T_DIMS { if (!flat_group(P)) YYABORT; }
	| T_M2M { if (!flat_group(P)) YYABORT; }
	| T_ARGS { if (!flat_group(P)) YYABORT; }
	;

/* The lexer marks the '}' that closes the outermost '{' as T_END, so that
 * after an error, recovery skips to the end of the computation. */
rbrace:	'}'
	| T_END
	;

soup:	%empty
	| soup soup_item
	;

soup_item: T_NAME | T_INT | T_FLOAT | T_STRING | T_WORD | T_ARROW | T_LE
	| T_ELLIPSIS | T_ENTRY | T_ROOT | T_HLOMODULE
	| '=' | ',' | ':' | '?' | '*' | '#' | '<' | '>' | '!' | '@' | '+'
	| '|' | '&' | '^' | '~' | ';' | '$'
	| group
	;

/* shape: type '[' dims ']' [layout] | '(' [shape (',' shape)*] ')'
 *	| b '(' shape ')' */
shape:	T_NAME '[' dims_opt ']' layout_opt {
		$$ = act_array(P, T(@1), @1, $3, $5);
	}
	| T_NAME '[' dims_opt ']' T_LAYOUT error rbrace {
		$$ = act_array(P, T(@1), @1, $3, NULL);
	}
	| T_NAME T_DIMS layout_opt {
		$$ = act_array(P, T(@1), @1, dims_of(P, @2), $3);
	}
	| '(' enter_next shapes_opt ')' {
		$$ = act_tuple(P, $3, @$);
		P->depth = $2;
	}
	| T_NAME '(' shape ')' { $$ = act_buffer(P, T(@1), @$, $3); }
	;

/* A shape where an instruction or an operand starts, so that its
 * b '(' is where an operand list might have been, and counts as one. */
head_shape: T_NAME '[' dims_opt ']' layout_opt {
		$$ = act_array(P, T(@1), @1, $3, $5);
	}
	| T_NAME '[' dims_opt ']' T_LAYOUT error rbrace {
		$$ = act_array(P, T(@1), @1, $3, NULL);
	}
	| T_NAME T_DIMS layout_opt {
		$$ = act_array(P, T(@1), @1, dims_of(P, @2), $3);
	}
	| '(' enter_next shapes_opt ')' {
		$$ = act_tuple(P, $3, @$);
		P->depth = $2;
	}
	| T_NAME '(' enter_next head_shape ')' {
		$$ = act_buffer(P, T(@1), @$, $4);
		P->depth = $3;
	}
	;

shapes_opt: %empty { $$ = list_new(P, sizeof(struct shapes)); }
	| shapes
	;

shapes:	shape {
		$$ = list_new(P, sizeof(struct shapes));
		*VEC_PUSH(P->tmp, $$->v, $$->n, $$->cap) = *$1;
	}
	| shapes ',' shape {
		*VEC_PUSH(P->tmp, $1->v, $1->n, $1->cap) = *$3;
		$$ = $1;
	}
	;

/* dims: dim (',' dim)*, dim: N | '<=' N | '?'; dynamic kinds go in dyns */
dims_opt: %empty { $$ = list_new(P, sizeof(struct ints)); }
	| dims
	;

dims:	T_INT {
		$$ = list_new(P, sizeof(struct ints));
		ints_push(P, $$, act_dim(P, @1, tok_int(P, @1)));
	}
	| T_LE T_INT {
		$$ = list_new(P, sizeof(struct ints));
		ints_push(P, $$, -1 - act_dim(P, @2, tok_int(P, @2)));
	}
	| '?' {
		$$ = list_new(P, sizeof(struct ints));
		ints_push(P, $$, INT64_MIN);
	}
	| dims ',' T_INT {
		ints_push(P, $1, act_dim(P, @3, tok_int(P, @3)));
		$$ = $1;
	}
	| dims ',' T_LE T_INT {
		ints_push(P, $1, -1 - act_dim(P, @4, tok_int(P, @4)));
		$$ = $1;
	}
	| dims ',' '?' { ints_push(P, $1, INT64_MIN); $$ = $1; }
	;

/* layout: '{' [N (',' N)*] [':' item*] '}', item: name ('(' args ')')+ */
layout_opt: %empty { $$ = NULL; }
	| T_LAYOUT layout_body rbrace { $$ = $2; $$->loc = span_loc(P, @1); }
	| T_M2M {
		$$ = list_new(P, sizeof(struct layout));
		$$->m2m = *ints_of(P, @1);
		$$->loc = span_loc(P, @1);
	}
	;

layout_body: ints_opt {
		$$ = list_new(P, sizeof(struct layout));
		$$->m2m = *$1;
	}
	| ints_opt ':' litems { $$ = $3; $$->m2m = *$1; }
	;

ints_opt: %empty { $$ = list_new(P, sizeof(struct ints)); }
	| ints
	;

ints:	T_INT {
		$$ = list_new(P, sizeof(struct ints));
		ints_push(P, $$, tok_int(P, @1));
	}
	| ints ',' T_INT { ints_push(P, $1, tok_int(P, @3)); $$ = $1; }
	;

litems:	%empty { $$ = list_new(P, sizeof(struct layout)); }
	| litems litem {
		*VEC_PUSH(P->tmp, $1->items, $1->nitem, $1->cap) = *$2;
		$$ = $1;
	}
	;

litem:	T_NAME '(' largs_opt ')' {
		$$ = list_new(P, sizeof(struct layout_item));
		$$->name = tok_name(P, T(@1));
		$$->loc = span_loc(P, @1);
		*VEC_PUSH(P->tmp, $$->groups, $$->ngroup, $$->cap) = *$3;
	}
	| '#' '(' largs_opt ')' {
		$$ = list_new(P, sizeof(struct layout_item));
		$$->name = "#";
		$$->loc = span_loc(P, @1);
	}
	| '*' '(' largs_opt ')' {
		$$ = list_new(P, sizeof(struct layout_item));
		$$->name = "*";
		$$->loc = span_loc(P, @1);
	}
	| litem '(' largs_opt ')' {
		*VEC_PUSH(P->tmp, $1->groups, $1->ngroup, $1->cap) = *$3;
		$$ = $1;
	}
	;

largs_opt: %empty { $$ = list_new(P, sizeof(struct ints)); }
	| largs
	;

/* A layout item's arguments: numbers, '*', type names (#(u32)), split
 * configs (SC(0:3)) and physical shapes (P(s32[8])); only numbers are
 * read, the rest count as 0. */
largs:	larg {
		$$ = list_new(P, sizeof(struct ints));
		ints_push(P, $$, $1);
	}
	| largs ',' larg { ints_push(P, $1, $3); $$ = $1; }
	;

larg:	T_INT { $$ = tok_int(P, @1); }
	| '*' { $$ = -1; }
	| T_NAME { $$ = 0; }
	| T_INT ':' T_INT { $$ = 0; }
	| T_NAME '[' dims_opt ']' layout_opt { $$ = 0; }
	| T_NAME T_DIMS layout_opt { $$ = 0; }
	;

%%

/* Bison's own errors: only "memory exhausted", for input nested deeper
 * than its stack (YYMAXDEPTH) where no level is counted, or the end of a
 * parse given up.  hlo gives up without a word: hlolac will say it. */
static void
yyerror(struct span *loc, struct parser *P, const char *msg)
{
	if (P->fast || P->aborted) {
		P->gave_up = 1;
		return;
	}
	diag_error(P->ds, span_loc(P, *loc), "brackets nested too deeply (%s)",
		   msg);
	P->syntax_errors++;
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
kind_name(yysymbol_kind_t kind, char *buf, size_t n)
{
	const char *name = yysymbol_name(kind);
	size_t len = strlen(name);

	if (len >= 2 && name[0] == '"' && name[len - 1] == '"')
		snprintf(buf, n, "%.*s", (int)(len - 2), name + 1);
	else
		snprintf(buf, n, "%s", name);
}

/* The unexpected token: "end of file", "'}'", or "name 'foo'". */
static size_t
unexpected(struct parser *P, yysymbol_kind_t tok, struct span at, char *buf,
	   size_t n)
{
	char name[64], text[32];

	if (tok == YYSYMBOL_YYEOF)
		return (size_t)snprintf(buf, n, "unexpected end of file");
	kind_name(tok, name, sizeof name);
	if (name[0] == '\'')
		return (size_t)snprintf(buf, n, "unexpected %s", name);
	token_text(P, at, text, sizeof text);
	return (size_t)snprintf(buf, n, "unexpected %s '%s'", name, text);
}

/* T_DIMS, T_M2M and T_ARGS, which hlolac never reads, come where '[', a
 * layout '{' and '(' do: they go unlisted. */
static int
drop_fast(yysymbol_kind_t *exp, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (exp[i] != YYSYMBOL_T_DIMS && exp[i] != YYSYMBOL_T_M2M &&
		    exp[i] != YYSYMBOL_T_ARGS)
			exp[k++] = exp[i];
	return k;
}

/* Both '}' and T_END read as '}', and '{' and a T_GROUP as '{': list
 * each once.  'FileNames' goes unlisted: after a header, a computation is
 * what is missing. */
static int
drop_end(yysymbol_kind_t *exp, int n)
{
	int brace = 0, open = 0, k = 0;

	for (int i = 0; i < n; i++) {
		brace |= exp[i] == YYTRANSLATE('}');
		open |= exp[i] == YYTRANSLATE('{');
	}
	for (int i = 0; i < n; i++)
		if ((!brace || exp[i] != YYSYMBOL_T_END) &&
		    (!open || exp[i] != YYSYMBOL_T_GROUP) &&
		    exp[i] != YYSYMBOL_T_FILENAMES)
			exp[k++] = exp[i];
	return k;
}

/* " (the '(' opened at 3:5 is not closed)" */
static void
open_note(struct parser *P, char *buf, size_t n, char ch, struct span s)
{
	struct loc at = span_loc(P, s);

	snprintf(buf, n, " (the '%c' opened at %d:%d is not closed)", ch,
		 at.line, at.col);
}

/* "unexpected X, expected A, B or C"; at the end of the file or at a closer
 * that does not match, which bracket is still open and where it opened.
 * hlo only gives up: the parse ends as if out of memory. */
static int
yyreport_syntax_error(const yypcontext_t *ctx, struct parser *P)
{
	yysymbol_kind_t exp[11], tok = yypcontext_token(ctx);
	const struct span *at = yypcontext_location(ctx);
	struct lexstate *ls = P->ls;
	int nexp, bad_close;
	char msg[512], name[64];
	size_t k;

	if (P->fast || P->aborted) {
		P->gave_up = 1;
		return 2;	/* bison 3.8's yacc.c: memory exhausted */
	}
	/* More than eight are too many to list, hlo's tokens aside. */
	nexp = yypcontext_expected_tokens(ctx, exp, 11);
	nexp = drop_fast(exp, nexp);
	if (nexp > 8)
		nexp = 0;
	bad_close = tok != YYSYMBOL_YYEOF && ls->bad_close == at->first_off + 1;
	k = unexpected(P, tok, *at, msg, sizeof msg);
	if (bad_close && !ls->unclosed_ch) {
		char c = P->src[at->first_off];

		snprintf(msg + k, sizeof msg - k, " (no '%c' is open)",
			 c == ')' ? '(' : c == ']' ? '[' : '{');
		nexp = 0;
	}
	nexp = drop_end(exp, nexp);
	if (nexp > 6)
		nexp = 0;	/* too many to be a help */
	for (int i = 0; i < nexp && k < sizeof msg; i++) {
		kind_name(exp[i], name, sizeof name);
		k += (size_t)snprintf(msg + k, sizeof msg - k, "%s%s",
				      i == 0 ? ", expected " :
				      i == nexp - 1 ? " or " : ", ", name);
	}
	if (tok == YYSYMBOL_YYEOF && ls->depth > 0 && k < sizeof msg) {
		int d = ls->depth - 1 < 63 ? ls->depth - 1 : 63;

		open_note(P, msg + k, sizeof msg - k, ls->bracket_ch[d],
			  ls->brackets[d]);
	} else if (bad_close && ls->unclosed_ch && k < sizeof msg) {
		open_note(P, msg + k, sizeof msg - k, ls->unclosed_ch,
			  ls->unclosed);
	}
	diag_error(P->ds, span_loc(P, *at), "%s", msg);
	P->syntax_errors++;
	return 0;
}

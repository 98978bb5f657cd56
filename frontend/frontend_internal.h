/* Internal to the frontend: the state shared by the lexer, the parser's
 * actions and the semantic checks. */
#ifndef HLOPLAN_FRONTEND_INTERNAL_H
#define HLOPLAN_FRONTEND_INTERNAL_H

#include "ir/ir.h"


/* A source span, [first_off, last_off) in bytes: lex_loc makes a line
 * and a column of an offset when a message or the IR needs one. */
struct span {
	uint32_t first_off, last_off;	/* inputs are under 1 GiB */
};

struct lexstate {
	struct diags *ds;
	const char *src;
	size_t len, fed;		/* bytes of src, and given to flex */
	size_t off;			/* where the last token ended */
	int sc;				/* flex's start condition: FAST or not */
	/* lex_loc's place: an offset, its line and that line's start; the
	 * first line's column starts at col0. */
	size_t cur_off, cur_bol;
	int cur_line, col0;
	struct span open;		/* where the open comment began */
	struct span brackets[64];	/* innermost open brackets */
	char bracket_ch[64];
	int depth;
	int last_bad_line;
	int errors;			/* errors reported by the lexer */
	size_t after_rbracket;		/* offset just past the last ']' */
	/* The last closer that did not match its innermost bracket: its
	 * offset + 1, and that bracket ('\0' when none was open). */
	size_t bad_close;
	char unclosed_ch;
	struct span unclosed;
};

/* A token's text, as a slice of the source. */
struct tok {
	size_t off, len;
};

/* An operand as written: its name and where. */
struct opnd {
	const char *name;
	struct loc loc;
};

struct opnds {
	int n, cap;
	struct opnd *v;
};

struct attrs {
	int n, cap;
	struct attr *v;
};

struct shapes {
	int n, cap;
	struct shape *v;
};

/* Layout parts: minor-to-major, and items like T(8,128)(2,1) or S(1). */
struct ints {
	int n, cap;
	int64_t *v;
};

struct layout_item {
	const char *name;
	struct loc loc;
	int ngroup, cap;
	struct ints *groups;
};

struct layout {
	struct ints m2m;
	int nitem, cap;
	struct layout_item *items;
	struct loc loc;
};

/* The parser's semantic values. */
union hloval {
	int flag;
	int64_t num;
	struct opnd opnd;
	struct opnds *opnds;
	struct attr *attr;
	struct attrs *attrs;
	struct shape *shape;
	struct shapes *shapes;
	struct ints *ints;
	struct layout *layout;
	struct layout_item *litem;
};

/* Brackets, groups, tuples and operand lists nest at most MAX_DEPTH deep,
 * counting the BASE_DEPTH levels below an instruction's attribute value
 * (the limit of the recursive descent this parser replaced, whose levels
 * were on the C stack; bison's are on the heap, YYMAXDEPTH states). */
enum { MAX_DEPTH = 500, BASE_DEPTH = 9 };

enum { TMP_LIMIT = 4 << 20 };	/* bytes of scratch kept between instructions */
enum {
	IBUF_RESERVE = 2 << 20,		/* bytes from which ibuf is reserved */
	IBUF_MAX_RESERVE = 256 << 20	/* and up to which */
};

struct parser {
	struct hlofile *file;
	struct diags *ds;
	struct pool *pool;
	struct pool *tmp;	/* lists until an action copies them out */
	struct instr *ibuf;	/* the computation's instructions */
	struct pool *ibuf_pool;	/* holds ibuf and its smaller copies */
	int ibuf_cap;
	const char *src;
	struct module *mod;	/* the module being parsed */
	struct comp *comp;	/* the computation being parsed */
	int nroot;		/* ROOTs seen in comp */
	struct loc rootloc;
	int syntax_errors;
	size_t too_deep;	/* offset + 1 of a tuple nested too deep */
	int nanon;		/* instructions made for nested operands */
	struct lexstate *ls;
	void *scanner;		/* flex's */
	int depth;		/* levels of nesting (parser.y's enter) */
	int deep_pending;	/* a level too deep: report at the next token */
	int aborted;		/* nested too deep: the parse stops */
	int fast;		/* hlo, which gives up at the first error */
	int gave_up;		/* it did */
};

/* The two parsers of parser.y: hlo, fast, which gives up at the first
 * error, and hlolac, which reports every error (bison's LAC). */
int hloparse(struct parser *P);
int hlolacparse(struct parser *P);

/* The scanner's next token (lexer.l), its span in *loc; flex's yyscan_t
 * is a void *. */
int hlo_lex(union hloval *val, struct span *loc, void *scanner);
/* Starts the scanner for hlo (fast) or hlolac (lexer.l). */
void lex_begin(void *scanner, int fast);
/* The line and column of byte off of the text (lexer.l). */
struct loc lex_loc(struct lexstate *ls, size_t off);
/* Where span s starts. */
struct loc span_loc(struct parser *P, struct span s);
/* Nesting one level too deep at loc: reported, and the parse stops. */
void too_deep(struct parser *P, struct span loc);

/* Parser actions (actions.c). */
void act_module(struct parser *P, struct tok name, struct span loc);
void act_module_attr(struct parser *P, struct attr *a);
void act_comp(struct parser *P, int entry, struct tok name, struct span loc);
void act_comp_result(struct parser *P, const struct shape *result,
		     struct span loc);
void act_comp_end(struct parser *P, struct attrs *attrs);
void act_instr(struct parser *P, int root, struct tok name, struct span nloc,
	       struct shape *shape, struct tok opc, struct span oploc,
	       struct opnds *ops, struct span argspan, struct attrs *attrs);
struct attr *act_attr(struct parser *P, struct tok key, struct span kloc,
		      struct span vspan);
struct shape *act_array(struct parser *P, struct tok type, struct span loc,
			struct ints *dims,
			struct layout *layout);
/* A dimension size as written: a negative one is reported and read as 0. */
int64_t act_dim(struct parser *P, struct span loc, int64_t v);
struct shape *act_tuple(struct parser *P, struct shapes *elems,
			struct span loc);
const char *tok_name(struct parser *P, struct tok t);
struct opnd act_nested(struct parser *P, struct shape *shape, struct tok opc,
		       struct span oploc, struct opnds *ops,
		       struct span argspan);
struct opnd act_operand(struct parser *P, struct tok name, struct span loc,
			struct ints *idx);
struct shape *act_buffer(struct parser *P, struct tok b, struct span loc,
			 struct shape *inner);
/* Ends the computation being parsed: its instructions move to the pool. */
void comp_finish(struct parser *P);

/* Parses text whose first byte stands at `at` in the file being read,
 * without the semantic checks (syntax.c); *clean says whether it holds
 * no syntax error. */
struct hlofile *syntax_parse(struct pool *pool, const char *text, size_t len,
			     struct diags *ds, struct loc at, int *clean);

/* syntax_parse, for text inside an attribute. */
struct hlofile *frontend_parse_at(struct pool *pool, const char *text,
				  size_t len, struct diags *ds, struct loc at);

/* The forms XLA's parser expands, before names resolve (desugar.c):
 * computations written inline in a call attribute, and X-start/-update/
 * -done around an opcode X, which become async ops calling a computation
 * that wraps X. */
void desugar_module(struct parser *P, struct module *m);

/* The stack-frame tables and where each instruction comes from
 * (srcloc.c): a file (which 0) or function (1) name, a FileLocations or
 * StackFrames entry, in the order written; then, once the module is
 * parsed, each instruction's op_name and source file and line. */
void act_frame_string(struct parser *P, int which, struct span str);
void act_file_location(struct parser *P, struct attrs *keys);
void act_stack_frame(struct parser *P, struct attrs *keys);
void srcloc_module(struct parser *P, struct module *m);

/* An input in another format than HLO text (MLIR, a protobuf) named at
 * its first word: returns 1 after reporting one error, else 0 (foreign.c). */
int foreign_format(const char *text, size_t len, struct diags *ds);

/* Semantic checks after a module parsed cleanly (sema.c), its messages
 * to ds. */
void sema_module(struct pool *pool, struct diags *ds, struct module *m);
/* Whether attribute key names called computations: one (which may be
 * written inline), a list of them, or none (0). */
enum { CALL_ONE = 1, CALL_LIST };
int call_attr(const char *key);
/* (call_attr, and the readers below: attrs.c.)
 * Readers of attribute text [*p, end): each advances *p past what it read
 * and returns 1 (read_index: the count, its numbers in *out) or 0 (-1). */
int read_int(const char **p, const char *end, int64_t *v);
int skip_to(const char **p, const char *end, char c);	/* spaces, then c */
int read_index(struct pool *pool, const char **p, const char *end,
	       int64_t **out);				/* "{1,2}" */

/* Shapes agree where values share storage (agree.c). */
void sema_agree(struct parser *P, const struct module *m);
/* XLA's ShapeUtil::Compatible: the same element types and dimensions,
 * tuples element by element; layouts, memory spaces and dynamic-dimension
 * marks aside. */
int shape_compatible(const struct shape *a, const struct shape *b);

/* The result shape of instruction in of computation c, as XLA's
 * ShapeInference computes it from the operands' shapes (already set) and
 * the instruction's attributes and called computations (infer.c).
 * Returns 1 with *out set (its arrays in P->pool), 0 when hloplan does not
 * infer this opcode, -1 when the operands do not fit the opcode: then an
 * error with in's position has been reported. */
int infer_shape(struct parser *P, const struct module *m,
		const struct comp *c, const struct instr *in,
		struct shape *out);
/* XLA's SameElementTypeIgnoringFpPrecision, as HloVerifier runs in XLA's
 * tests (allow_mixed_precision): floating-point precisions may differ. */
int same_element_type(int a, int b);

/* XLA's HloVerifier checks, after names resolve and shapes are known:
 * operand shapes and element types, dimension numbers, attributes known to
 * each opcode, the entry layout (check.c). */
void sema_check(struct parser *P, const struct module *m);
/* Whether every instruction takes attribute key (hlo_parser.cc
 * ParseInstructionRhs: sharding, metadata, ...). */
int attr_of_every_instr(const char *key);
/* The opcode of the i-th row of check.c's attribute table, NULL past its
 * end: for the test that it is in the order find_opattrs searches. */
const char *opattrs_op(size_t i);
/* entry_computation_layout, read as a tuple of parameter shapes and a
 * result shape, against the entry's (check.c). */
void check_entry_layout(struct parser *P, const struct module *m,
			const struct attr *a, const struct shape *params,
			const struct shape *result);

#endif

/* Internal to the frontend: the state shared by the lexer, the parser's
 * actions and the semantic checks. */
#ifndef HLOPLAN_FRONT_H
#define HLOPLAN_FRONT_H

#include "frontend/frontend.h"


/* The lexer's tokens: a character stands for itself, the rest are these;
 * 0 is the end of the input. */
enum {
	T_ERROR = 256,		/* the lexer reported an error here */
	T_HLOMODULE, T_ENTRY, T_ROOT, T_NAME, T_INT, T_FLOAT, T_STRING,
	T_WORD,			/* an attribute word: 2x3, 0_1, bf01_oi01->bf01 */
	T_ARROW, T_LE, T_ELLIPSIS,
	T_LAYOUT,		/* a '{' that opens a layout */
	T_GROUP,		/* an attribute's value group, whole */
	T_END,			/* a '}' that closes a depth-0 '{' */
	T_FILENAMES, T_FUNCTIONNAMES, T_FILELOCATIONS, T_STACKFRAMES,
	T_LAST = T_STACKFRAMES
};

/* A source span: line/column for messages, byte offsets for slices. */
struct span {
	int first_line, first_column, last_line, last_column;
	size_t first_off, last_off;	/* [first_off, last_off) */
};

struct lexstate {
	struct diags *ds;
	const char *src;
	size_t len;			/* bytes of src */
	int line, col;
	size_t off;
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

enum { TMP_LIMIT = 4 << 20 };	/* bytes of scratch kept between instructions */
enum {
	IBUF_RESERVE = 2 << 20,		/* bytes from which ibuf is reserved */
	IBUF_MAX_RESERVE = 256 << 20	/* and up to which */
};

/* The largest input: columns and a token's length are ints. */
#define MAX_INPUT (((size_t)1 << 30) - 2)

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
};

int lex_next(struct lexstate *ls, struct span *loc);
/* Parses the whole input into P (parse.c). */
void parse_hlo(struct parser *P, struct lexstate *ls);
int lex_value_group(const struct lexstate *ls, size_t off);
void lex_error(struct lexstate *ls, struct span loc, const char *msg);
void lex_eof(struct lexstate *ls, struct span *loc);
int lex_open(struct lexstate *ls, struct span loc, char c);
int lex_close(struct lexstate *ls, struct span loc, char c);
int lex_bad(struct lexstate *ls, struct span loc, unsigned char c);

struct loc span_loc(struct span s);

/* Parser actions (frontend.c). */
void act_module(struct parser *P, struct tok name, struct span loc);
void act_module_attr(struct parser *P, struct attr *a);
void act_comp(struct parser *P, int entry, struct tok name, struct span loc);
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

/* Parses text whose first byte stands at `at` in the file being read,
 * without the semantic checks: for text inside an attribute. */
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

/* Semantic checks after a module parsed cleanly (sema.c). */
void sema_module(struct parser *P, struct module *m);
/* Whether attribute key names called computations: one (which may be
 * written inline), a list of them, or none (0). */
enum { CALL_ONE = 1, CALL_LIST };
int call_attr(const char *key);
/* Readers of attribute text [*p, end): each advances *p past what it read
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

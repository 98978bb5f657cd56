/* The IR: modules, computations, instructions and shapes, all owned by one
 * pool that is freed at once.  The frontend fills it; passes read it.
 * Indices, not pointers, link instructions and computations. */
#ifndef HLOPLAN_IR_H
#define HLOPLAN_IR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/pool.h"
#include "ir/diag.h"

/* ---- element types and shapes ----------------------------------------- */

enum dtype {
	DT_INVALID,
	DT_PRED, DT_S2, DT_S4, DT_S8, DT_S16, DT_S32, DT_S64,
	DT_U2, DT_U4, DT_U8, DT_U16, DT_U32, DT_U64,
	DT_F16, DT_BF16, DT_F32, DT_F64, DT_C64, DT_C128,
	DT_F8E5M2, DT_F8E4M3, DT_F8E4M3FN, DT_F8E4M3B11FNUZ, DT_F8E5M2FNUZ,
	DT_F8E4M3FNUZ, DT_F8E3M4, DT_F8E8M0FNU, DT_F6E2M3FN, DT_F6E3M2FN,
	DT_F4E2M1FN,
	DT_TOKEN, DT_OPAQUE,
	DT_TUPLE,
	DT_COUNT
};

const char *dtype_name(int dt);
int dtype_bits(int dt);		/* storage bits of one element; 0 for token */
int dtype_lookup(const char *s, size_t n);	/* DT_INVALID if unknown */

enum { DIM_STATIC, DIM_BOUNDED, DIM_UNKNOWN };	/* N, <=N, ? */

struct tile {
	int n;
	int64_t d[8];	/* -1 for '*' (combine) */
};

struct shape {
	int type;		/* enum dtype */
	int rank;
	int64_t *dims;		/* for '?' the dimension is 0 */
	uint8_t *dyn;		/* NULL, or a DIM_* per dimension */
	int has_layout;
	int *m2m;		/* minor_to_major, rank entries */
	int ntile;
	struct tile *tiles;	/* T(...)(...): tiles[0] sets the padding */
	int elem_bits;		/* E(n); 0 when absent */
	int space;		/* S(n); 0 when absent */
	int nelem;		/* tuple elements */
	struct shape *elems;
	int is_buffer;		/* b(shape): a buffer never to be copied */
	int64_t tail_pad;	/* L(n): elements round up to n; 0 absent */
	int64_t meta_bytes;	/* M(n): dynamic-size prefix bytes; 0 absent */
};

/* Tuples nest at most this deep: the frontend rejects deeper ones, so that
 * code may recurse over a shape's elements. */
enum { SHAPE_MAX_DEPTH = 64 };

int64_t shape_elements(const struct shape *s);	/* -1 on overflow */
/* Bytes of an array's elements, or of a tuple's index table (8 per
 * element); -1 on overflow.  XLA's ShapeUtil::ByteSizeOf: a whole byte per
 * element (sub-byte types too) unless E(n) packs them; a dynamic array at
 * its bound, without metadata; an opaque, a pointer (8); a token, 0. */
int64_t shape_bytes(const struct shape *s);
int shape_is_tuple(const struct shape *s);
/* Whether an array of s has a dimension that is not static (<=N, ?). */
int shape_is_dynamic(const struct shape *s);
int shape_equal(const struct shape *a, const struct shape *b);
/* The leaf or subtuple at a shape index, or NULL when out of range. */
const struct shape *shape_at(const struct shape *s, const int64_t *idx,
			     int n);

/* ---- opcodes ---------------------------------------------------------- */

enum opcode {
	OP_OTHER,		/* a known opcode that passes treat generically */
	OP_PARAMETER, OP_CONSTANT, OP_GTE, OP_TUPLE, OP_BITCAST, OP_WHILE,
	OP_CALL, OP_CONDITIONAL, OP_FUSION, OP_DUS, OP_SCATTER,
	OP_DYNAMIC_SLICE, OP_COPY_START, OP_COPY_DONE, OP_OPT_BARRIER,
	OP_ADD_DEPENDENCY, OP_DOMAIN, OP_ASYNC_START, OP_ASYNC_UPDATE,
	OP_ASYNC_DONE, OP_CUSTOM_CALL, OP_REDUCE, OP_MAP, OP_SORT,
	OP_REDUCE_WINDOW, OP_SELECT_AND_SCATTER, OP_ALL_REDUCE,
	OP_REDUCE_SCATTER, OP_SCAN, OP_IOTA, OP_AFTER_ALL, OP_INFEED,
	OP_OUTFEED, OP_SEND, OP_RECV, OP_SEND_DONE, OP_RECV_DONE, OP_RNG,
	OP_BROADCAST, OP_RESHAPE, OP_TRANSPOSE, OP_SLICE, OP_CONCATENATE,
	OP_PAD, OP_DOT, OP_CONVERT, OP_COPY, OP_SELECT, OP_COMPARE,
	OP_CLAMP, OP_REVERSE,
	OP_COUNT
};

enum {
	OPF_ELEMENTWISE = 1,	/* output element i reads only input element i */
	OPF_SIDE_EFFECT = 2,	/* keeps its place relative to other such ops */
};

struct opinfo {
	const char *name;
	int op;			/* enum opcode */
	int flags;		/* OPF_* */
};

/* The entry for an opcode spelling, or NULL when hloplan does not know it. */
const struct opinfo *opcode_lookup(const char *s, size_t n);

/* ---- instructions, computations, modules ------------------------------ */

/* An attribute as written: key and the raw text of its value. */
struct attr {
	const char *key;
	const char *val;
	int vlen;
	struct loc loc;
};

struct instr {
	const char *name;	/* without '%' */
	struct loc loc;
	struct shape shape;
	const struct opinfo *op;
	int nops;
	int *ops;		/* operand instruction indices in this comp */
	struct loc *oploc;	/* where each operand was written */
	const char **opname;	/* operand names as written (for checks) */
	const char *literal;	/* constant(...): the literal text */
	int literal_len;
	int64_t param;		/* parameter(N): N; else -1 */
	int64_t index;		/* get-tuple-element index=N; else -1 */
	int nattr;
	struct attr *attrs;
	int ncall;
	int *calls;		/* called computation indices */
	const char **callkey;	/* the attribute naming each: "body", ... */
	int is_root;
	int no_shape;		/* written without a shape: sema infers it
				   (2: inference failed) */
	/* For X-start, X-update, X-done: the opcode X that the async op
	 * wraps (op is then async-start, -update or -done); else NULL. */
	const struct opinfo *wrapped;
	/* Where it comes from in the user's program, for messages and
	 * outputs: metadata's op_name, and its source_file and source_line,
	 * else those of its innermost stack frame.  NULL and 0 when unknown. */
	const char *op_name;
	const char *src_file;
	int src_line;
};

struct comp {
	const char *name;
	struct loc loc;
	int is_entry;
	int ninstr, cap;
	struct instr *instrs;
	int root;		/* index of the ROOT (or last) instruction */
	int nparam;
	int *params;		/* instruction index of parameter(i) */
	const struct shape *result;	/* its signature's "-> shape", or NULL */
	struct loc result_loc;
	int nattr;		/* after the closing brace */
	struct attr *attrs;
};

/* The stack-frame tables of a module (XLA's StackFrameIndexProto), as
 * printed after its header.  Ids are 1-based positions; 0 is none. */
struct file_loc {
	int file, func;		/* ids in files[] and funcs[] */
	int line, end_line, col, end_col;
};

struct stack_frame {
	int loc;		/* id in locs[] */
	int parent;		/* the caller's frame id, 0 for none */
};

struct frames {
	int nfile, nfunc, nloc, nframe;
	int capfile, capfunc, caploc, capframe;
	const char **files;	/* unescaped */
	const char **funcs;
	struct file_loc *locs;
	struct stack_frame *frames;
};

/* input_output_alias: output {out} may/must share param's {pidx}. */
struct alias {
	int nout;
	int64_t *out;
	int64_t param;
	int npidx;
	int64_t *pidx;
	int must;
};

struct module {
	const char *name;
	struct loc loc;
	int nattr;
	struct attr *attrs;
	int ncomp, cap;
	struct comp *comps;
	int entry;		/* computation index */
	int is_scheduled;
	int nalias;
	struct alias *aliases;
	/* entry_computation_layout's result shape, or NULL: the layout and
	 * memory space of the entry's outputs. */
	const struct shape *result;
	struct frames frames;	/* empty when the text has none */
};

/* Everything parsed from one file: its modules, in order. */
struct hlofile {
	struct pool *pool;
	int nmod, cap;
	struct module *mods;
};

const struct attr *instr_attr(const struct instr *in, const char *key);
/* Where an instruction comes from, as messages show it: "x.py:12,
 * jit(f)/dot_general", either part alone, or "" when both are unknown (file
 * NULL, op_name NULL).  Writes at most n bytes to buf and returns it. */
const char *src_where(char *buf, size_t n, const char *file, int line,
		      const char *op_name);
int comp_lookup(const struct module *m, const char *name);	/* -1 if none */
long module_instrs(const struct module *m);	/* of every computation */
/* bytes as XLA's HumanReadableNumBytes writes them: "512B", "1.5KiB",
 * "2.00MiB", "3.25GiB".  Writes at most n bytes to buf and returns it. */
const char *human_bytes(char *buf, size_t n, int64_t bytes);

/* Prints the module back as HLO text that parses to the same module. */
void ir_print_module(FILE *out, const struct module *m);
/* The same, each computation c in order[c] (NULL: text order), marked
 * is_scheduled=true: the order a plan assumes. */
void ir_print_module_order(FILE *out, const struct module *m,
			   const int *const *order);
void ir_print_shape(FILE *out, const struct shape *s);
/* A shape as HLO text for a message, cut to 120 bytes. */
const char *shape_text(struct pool *pool, const struct shape *s);
/* s as HLO text, whole. */
const char *ir_shape_string(struct pool *pool, const struct shape *s);

#endif

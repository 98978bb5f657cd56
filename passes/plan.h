/* The plan: what the passes produce and codegen writes.  One plan per target;
 * each buffer lives in the arena of its memory space. */
#ifndef HLOPLAN_PLAN_H
#define HLOPLAN_PLAN_H

#include <stdint.h>
#include <stdio.h>

struct shape;
struct pack_spare;

enum target { TARGET_GPU, TARGET_TPU };

/* What a plan is made for: the options of the passes, which the checker
 * reads too (the target, its tiles, whether parameters survive). */
struct options {
	int target;		/* enum target */
	int64_t align;		/* GPU offset alignment; 0: the default */
	int reuse;		/* an elementwise output may take a dying
				   operand's buffer */
	int io_in_arena;	/* entry parameters and outputs in the arena */
	int reuse_params;	/* a parameter not donated may be overwritten
				   after its last read; 0: it survives the
				   call */
	int tpu_tile[2];	/* default TPU tile (rows, columns) */
	long effort;		/* packer work budget; 0: the default */
	int threads;		/* packer threads; 0: one per processor */
	struct pack_spare *spare;	/* processors another target's planner
					   left, or NULL (packer/pack.h) */
	int schedule;		/* SCHED_AUTO, SCHED_TEXT, SCHED_MEM */
	int double_buffer;	/* give streamed buffers slots */
	int slots;		/* k: slots per streamed buffer */
	int nname;		/* --double-buffer=NAME */
	const char **names;
	int allocators;		/* --allocators: replay the plan through the
				   runtimes' allocators */
	int ncap;		/* --capacity=SPACE:BYTES limits */
	struct {
		int space;
		int64_t bytes;
	} cap[16];
};

enum { SCHED_AUTO, SCHED_TEXT, SCHED_MEM };
/* plan.sched.peak before the order's plan is scored (passes/order.c). */
#define SCHED_UNSCORED INT64_C(-2)

/* sizing.c: the defaults, as the command line has them. */
void options_default(struct options *o);

/* The most bytes a buffer may take as the target lays it out (slots
 * included), and the buffers of one arena together: 2^42 - 1 (4 TiB).  The
 * verifier keeps an address as a region in the top 22 bits and an offset
 * in the low 42 (checker/verify_internal.h), so it follows a buffer only where
 * offset + size < 2^42.  check_sizes (buffers.c) holds every buffer to
 * it, and check_heights every packed arena (README "Sizes"). */
#define PLAN_MAX_BYTES ((INT64_C(1) << 42) - 1)
/* Before packing, the sizes of one arena's buffers may add up to more (the
 * packing shares bytes among buffers not live at once), up to where the
 * packer's sums stay far from overflow; the packed arena is then held to
 * PLAN_MAX_BYTES (check_heights). */
#define PLAN_MAX_SUM (INT64_MAX / 128)

enum {
	BUF_PARAM = 1,		/* holds an entry parameter */
	BUF_OUTPUT = 2,		/* holds (part of) the entry's result */
	BUF_CONST = 4,		/* a constant: listed, never in the arena */
	BUF_TABLE = 8,		/* a tuple's index table */
};

struct buffer {
	const char *name;	/* HLO name of its first value; "name{1,0}"
				   for a tuple element */
	int flags;		/* BUF_*; 0 is a plain temporary */
	int space;		/* memory space S(n) */
	int64_t bytes;		/* unpadded bytes of the largest value */
	int64_t size;		/* bytes reserved: padded for the target, and
				   slots * stride for a slotted buffer */
	int32_t start, end;	/* closed live interval, in schedule steps */
	int slots;		/* 1, or k for a double-buffered block */
	int64_t stride;		/* bytes between slots (slots > 1) */
	int in_arena;		/* 0 for constants, and for params/outputs
				   when they are kept out */
	int64_t offset;		/* offset in its space's arena (in_arena) */
	/* Where the instruction it is named after comes from in the user's
	 * program (struct instr's op_name, src_file, src_line): NULL and 0
	 * when unknown. */
	const char *op_name;
	const char *src_file;
	int src_line;
	/* The shape of the value it is named after, with the layout the plan
	 * lays it out in (the target's default spelled out; an entry output's
	 * as the entry's result layout says); NULL when unknown (a plan made
	 * by hand). */
	const struct shape *shape;
};

/* A buffer live at its arena's peak, and what it holds then: of its
 * values live at that step, the one written last (XLA's out-of-memory
 * report names the value, not the buffer). */
struct peak_buf {
	int buf;		/* index in plan.bufs */
	const char *shape;	/* the value's shape as laid out, HLO text */
	const char *tile;	/* "T(8,128)": the TPU's default tile that pads
				   it, when its layout names none; or NULL */
	const char *instr, *opcode, *comp;	/* what defines the value */
	const char *element;	/* a tuple element's index, "{1,0}"; or NULL */
	const char *src_file, *op_name;	/* where the instruction comes
					   from: NULL and 0 when unknown */
	int src_line;
};

/* What is live at the first step where an arena's buffers take the most
 * bytes (passes/peak.c): the capacity error's report, and --stats'. */
enum { PEAK_LISTED = 10 };
struct peak {
	int32_t step;		/* -1: no byte of the arena is ever live */
	const char *instr, *comp;	/* the instruction of that step */
	int nlive;		/* buffers live then */
	int64_t bytes;		/* their bytes */
	int nlisted;		/* the largest of them, at most PEAK_LISTED */
	struct peak_buf *listed;	/* largest first, then by name */
	int64_t rest;		/* the bytes of the others */
};

struct arena {
	int space;		/* S(n) */
	int64_t size;		/* bytes: the packed height, aligned */
	int64_t lower;		/* peak of live bytes: the lower bound */
	int nbuf;
	const struct peak *peak;	/* what makes that peak; NULL when not
					   known (a plan made by hand) */
};

/* Where each output node of each program instruction lives: for tools that
 * run or inspect the plan (tests/oracle, JSON output). */
struct plan_pos {
	int comp, instr;	/* indices in the module */
	int node;		/* preorder node of the instruction's shape */
	int buf;		/* the buffer of the value held there */
	int defines;		/* 1: the instruction defines that value; 0: it
				   forwards an operand's */
	int slot;		/* its slot in a slotted buffer shared by the
				   iterations of an unrolled loop; -1 else */
	const char *name;	/* the instruction's name */
	const char *comp_name;	/* its computation's name */
	int depth;		/* the node's shape index: depth entries */
	const int *index;
	const struct shape *shape;	/* the node's array or tuple, laid
					   out as the buffer's shape is */
	int param;		/* an entry parameter(N) instruction: N; else
				   -1 */
	int output;		/* 1: a node of the entry's ROOT, so index is
				   the output index */
	int copied;		/* 1: the value there is written by a copy of
				   the plan (an entry output's own buffer) */
	int64_t size;		/* the node's bytes as laid out (padded) */
	int32_t step;		/* the schedule step of its instruction */
	int survives;		/* an entry parameter's array whose bytes
				   are intact after the call (not donated by
				   input_output_alias, no --reuse-params) */
};

/* A copy the runtime makes: `bytes` from buffer src into buffer dst, just
 * before step `step` runs (after == 0) or just after it (after == 1).  Where
 * two values must share a buffer but are live at once, they stay apart and
 * one is copied into the other (copy insertion). */
struct plan_copy {
	int src, dst;		/* buffer indices */
	int32_t step;
	int after;
	int64_t bytes;
	int loop;		/* the innermost loop in every iteration of
				   which it is made: index in plan.loops[];
				   -1: once per run */
};

/* A while loop as a runtime runs the flattened schedule: steps first ..
 * cond_last are the condition, cond_last + 1 .. step - 1 the body (both
 * with what they call), step the while instruction itself, run once the
 * condition is false.  An iteration is the condition then the body; after
 * the last, the condition runs once more. */
struct plan_loop {
	int32_t first;		/* its first step: the condition's first */
	int32_t cond_last;	/* the condition's last step */
	int32_t step;		/* the while instruction's step */
	int parent;		/* the enclosing loop, or -1 */
	int64_t trips;		/* iterations (the body's runs), or -1 when
				   the HLO does not say */
	const char *trips_from;	/* where trips comes from: "backend_config"
				   (XLA's known_trip_count), or "" */
};

/* A constant's bytes as a runtime places them in its buffer: laid out as
 * the plan lays the buffer out (the target's layout, tiles and padding),
 * const_data[offset .. offset + bytes) of its plan.  One per array node
 * that a constant instruction defines. */
struct plan_const {
	int buf;		/* the buffer that holds it */
	int pos;		/* its position: index in plan.pos[] */
	int64_t offset;		/* in const_data, a multiple of 64; -1 when
				   not known */
	int64_t bytes;		/* its bytes as laid out (target_size) */
	int known;		/* 1: const_data holds its bytes.  0: the
				   text elides its value ({...}), or it is
				   text XLA would refuse or whose bytes we
				   cannot be sure of (passes/constants.c
				   says which); const_data has no place for
				   it and the runtime must fill it from
				   elsewhere */
};

/* --allocators: the plan's device-arena buffers replayed through the
 * allocators runtimes use (allocators/allocators.c). */
enum {
	ALLOC_BFC,		/* XLA/TSL BFC, one preallocated region */
	ALLOC_BFC_GROWTH,	/* ... allow_growth: regions doubling */
	ALLOC_TORCH,		/* PyTorch's CUDA caching allocator */
	ALLOC_TORCH_EXPANDABLE,	/* ... with expandable_segments:True */
	ALLOC_FIRST_FIT,	/* a textbook heap: first fit */
	ALLOC_BEST_FIT,		/* ... best fit */
	NALLOC
};

/* Memory an allocator reserved at a step (a region, a segment, a mapping,
 * a heap's new top): [at, at + size) in its memory laid end to end. */
struct alloc_piece {
	int64_t at, size;
	int32_t step;
};

/* Where a buffer sat: [at, at + size) in the allocator's memory laid end to
 * end (regions or segments in address order), size the block it got. */
struct alloc_place {
	int buf;
	int64_t at, size;
};

struct alloc_run {
	int kind;		/* ALLOC_* */
	const char *name;	/* "bfc", "bfc_growth", ... */
	int64_t peak_reserved;	/* bytes taken from the device, at most */
	int64_t peak_allocated;	/* bytes of blocks handed out, at most */
	int64_t region;		/* bfc: the region it needs; else 0 */
	int exceeded;		/* 1: over the capacity of S(0); 0: within;
				   -1: no capacity given */
	int nplace;
	struct alloc_place *place;
	int npiece;
	struct alloc_piece *piece;
	double ms;		/* wall time of the replay (--stats only) */
};

struct plan {
	const char *module;	/* HLO module name */
	int target;		/* enum target */
	int64_t align;		/* offsets and sizes are multiples of it */
	int32_t ntime;		/* schedule steps: intervals lie in [0,ntime) */
	int nbuf;
	struct buffer *bufs;	/* in definition (schedule) order */
	int narena;
	struct arena *arenas;	/* sorted by space */
	int npos;
	struct plan_pos *pos;	/* in schedule order, nodes in preorder */
	int ncopy;
	struct plan_copy *copies;	/* by step */
	struct {
		const char *name;	/* "text", "list" or "dfs" */
		int64_t peak_text;	/* peak of live bytes in text order */
		int64_t peak;		/* ... in the order chosen
					   (SCHED_UNSCORED: not yet) */
	} sched;
	const char **steps;	/* ntime names, "computation/instruction":
				   the order the plan assumes; or NULL */
	int nalias, nalias_kept;	/* input_output_alias entries, and
					   those kept (a may-alias whose
					   output and parameter are live at
					   once is not) */
	int nconst;
	struct plan_const *consts;	/* in position order */
	int64_t const_bytes;		/* of const_data */
	unsigned char *const_data;	/* NULL when const_bytes is 0 */
	int nalloc;		/* --allocators: NALLOC replays, else 0 */
	struct alloc_run *allocs;
	int alloc_buffers;	/* buffers replayed (S(0), in the arena) */
	int nloop;
	struct plan_loop *loops;	/* as each closes (by step), inner
					   before outer */
	int nopnd;
	int *opnd;		/* each step's operands in order: the position
				   of the producer's root node; the operand's
				   other nodes follow it (depth > 0) */
	int *opnd_first;	/* by step (ntime + 1 entries): step t's are
				   opnd[opnd_first[t] .. opnd_first[t + 1]);
				   NULL when the plan lists none */
	int ncomp;
	const char **comp_names;	/* the module's computations */
	int *step_comp;		/* by step: its index in comp_names; NULL
				   when steps is */
};

/* peak.c: an arena's peak as text, each line after lead: the step, then per
 * buffer listed its size, shape, unpadded size, instruction and source,
 * then what the others add up to (nothing for a NULL peak, or when nothing
 * is ever live). */
void peak_report(FILE *out, const struct plan *pl, const struct peak *k,
		 const char *lead);

#endif

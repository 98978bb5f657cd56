/* hloplan as a library: plan the buffers of an XLA HLO module from a file or
 * a string, read the plan and the diagnostics back as data, and write the C
 * header, JSON, CSV, SVG or the constants' bytes.  The library never exits
 * and never prints. */
#ifndef HLOPLAN_H
#define HLOPLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options ------------------------------------------------------------
 * A zeroed struct hloplan_options asks for the defaults; each field says
 * what its zero means. */

enum hloplan_target {		/* bits of hloplan_options.targets */
	HLOPLAN_TARGET_GPU = 1,	/* bytes; offsets aligned to 256 */
	HLOPLAN_TARGET_TPU = 2,	/* arrays padded to their tiles */
	HLOPLAN_TARGET_ALL = 3
};

enum hloplan_schedule {
	HLOPLAN_SCHEDULE_AUTO,	/* reorder unless it is_scheduled */
	HLOPLAN_SCHEDULE_TEXT,	/* the text order */
	HLOPLAN_SCHEDULE_MEM	/* the lowest-peak memory-aware order */
};

struct hloplan_capacity {
	int space;		/* memory space S(n) */
	int64_t bytes;		/* its arena may hold at most this much */
};

/* XLA's own buffer assignment of a module, from the text XLA's dump
 * writes beside it (`<module>-buffer-assignment.txt`): its allocations
 * summed by kind, exact bytes, and how much of its temporary allocation
 * is live at once by XLA's own live ranges (values that share bytes count
 * once): temp_size - temp_peak is what its packing leaves unused there. */
struct hloplan_xla {
	int nalloc;
	int64_t total;		/* every allocation */
	int64_t params, outputs, constants, thread_local, temps;
	int64_t temp_size;	/* its temporary allocation */
	int64_t temp_peak;	/* the most of that live at once */
};

struct hloplan_options {
	int targets;		/* HLOPLAN_TARGET_* bits; 0: GPU and TPU */
	int64_t align;		/* offset alignment, a power of two up to
				   2^30; 0: 256 */
	int no_reuse;		/* no reuse of dying operands */
	int io_out_of_arena;	/* keep entry parameters and outputs out of
				   the arena, as XLA does */
	int tpu_tile[2];	/* TPU tile for untiled arrays of rank >= 2,
				   1..4096 each; {0, 0}: 8x128 */
	long effort;		/* packer budget in steps; 0: default */
	int schedule;		/* enum hloplan_schedule */
	int no_double_buffer;	/* no slots for streamed buffers */
	int slots;		/* slots per streamed buffer, 2..64; 0: 2 */
	int ndouble_buffer;	/* instructions whose buffers get slots */
	const char *const *double_buffer;
	int ncapacity;		/* at most 16 */
	const struct hloplan_capacity *capacities;
	const char *prefix;	/* macro prefix, an upper-case C identifier;
				   NULL: "HLOPLAN" */
	const char *dump;	/* NULL, or a stage to print to dump_file as
				   it runs: "ir" (then nothing is planned),
				   "schedule", "hlo", "values", "plan" */
	FILE *dump_file;
	const char *constants;	/* where the caller writes the constants
				   blob (HLOPLAN_FORMAT_CONSTANTS): the
				   header names its base name and leaves the
				   bytes to it; NULL: no blob, the header
				   carries the constants' bytes itself */
	int allocators;		/* replay each plan's buffers of S(0)
				   through models of the runtimes'
				   allocators (XLA's BFC, PyTorch's caching
				   allocator, first and best fit): the
				   plans' allocators, the JSON, the SVG and
				   the stats show them */
	int threads;		/* threads for the schedule's trial orders
				   and the packer, 1..HLOPLAN_THREADS_MAX;
				   0: one per processor (at most 8 in the
				   packer).  The plan is the same for every
				   number */
	int reuse_params;	/* an entry parameter's space may be reused
				   after its last read, for a runtime that
				   copies its inputs in on every call; 0:
				   every parameter not donated by
				   input_output_alias survives the call */
	const struct hloplan_xla *xla;	/* XLA's assignment of the module
				   (hloplan_read_xla_assignment): the
				   stats, the JSON and the SVG show it
				   beside each plan; NULL: none */
};

enum { HLOPLAN_THREADS_MAX = 64 };

/* ---- raw packing problems ----------------------------------------------
 * google/minimalloc's CSV: a header naming id, lower, upper, size (and
 * optionally alignment, offset), one buffer a line, live on the half-open
 * [lower, upper); an offset pins that buffer. */

struct hloplan_pack_stats {
	int buffers;
	int64_t lower;		/* peak of live bytes: no packing is lower */
	int64_t height;		/* the strip the packing uses */
	/* A bound proven stronger where alignments allow (the live boxes
	 * rounded to the gcd of their alignments); else lower. */
	int64_t bound;
	double ms;		/* wall time of the packing (for reports) */
};

/* Reads the file at path into x, strictly: a file cut short, or whose
 * allocations do not add up to its "Total bytes used", is an error.
 * Returns HLOPLAN_OK, HLOPLAN_ERR_IO (it cannot be read) or
 * HLOPLAN_ERR_INPUT (not such a file, cut short, larger than 1 GiB), with
 * the whole message in err: "PATH:LINE:1: error: ..." or "PATH: error:
 * ...". */
int hloplan_read_xla_assignment(const char *path, struct hloplan_xla *x,
				char *err, size_t errlen);

/* Packs the problem in the CSV file at path ("-": standard input) with the
 * packer of the HLO path, checks the result with its verifier, and writes
 * the same rows with an offset column to out.  Diagnostics go to diag as
 * file:line:col: error: lines.  Of the options (NULL: the defaults) it
 * reads effort and threads, and checks them as hloplan_plan_* does.
 * Returns an enum hloplan_status; st may be NULL. */
int hloplan_pack_csv(const char *path, const struct hloplan_options *o,
		     FILE *out, FILE *diag, struct hloplan_pack_stats *st);

/* ---- planning ----------------------------------------------------------- */

struct hloplan_result;

enum hloplan_status {
	HLOPLAN_OK,		/* every module planned and verified */
	HLOPLAN_ERR_INPUT,	/* the module is wrong, or does not fit */
	HLOPLAN_ERR_OPTIONS,	/* an option is out of range */
	HLOPLAN_ERR_IO		/* the file cannot be read */
};

/* Plans every module of the file at path ("-": standard input) for every
 * target asked for.  Returns a result to free with hloplan_free, never NULL
 * (out of memory aborts).  o may be NULL for the defaults. */
struct hloplan_result *hloplan_plan_file(const char *path,
					 const struct hloplan_options *o);
/* The same for len bytes of HLO text; name is shown in diagnostics and
 * listed in depfiles (NULL: "<string>", listed in none). */
struct hloplan_result *hloplan_plan_string(const char *text, size_t len,
					   const char *name,
					   const struct hloplan_options *o);
void hloplan_free(struct hloplan_result *r);

/* An enum hloplan_status: HLOPLAN_OK, or why there are no plans. */
int hloplan_status(const struct hloplan_result *r);
const char *hloplan_version(void);

/* ---- diagnostics -------------------------------------------------------- */

struct hloplan_diag {
	const char *file;	/* the input's name */
	int line, col;		/* 1-based; 0 when not at a place in it */
	const char *message;
	const char *notes;	/* lines that follow the source line and
				   caret, each ending in a newline (a
				   capacity error's buffers at the peak); or
				   NULL */
};

int hloplan_ndiag(const struct hloplan_result *r);
const struct hloplan_diag *hloplan_get_diag(const struct hloplan_result *r,
					    int i);
/* All of them as "file:line:col: error: message", each followed by the
 * source line, a caret under the column, and its notes.  0, or -1 on a
 * write error. */
int hloplan_write_diags(const struct hloplan_result *r, FILE *out);

/* ---- the plan: one per module and target -------------------------------- */

/* Bits of hloplan_buffer.flags; 0 is a temporary. */
enum hloplan_class {
	HLOPLAN_BUF_PARAM = 1,	/* holds an entry parameter */
	HLOPLAN_BUF_OUTPUT = 2,	/* holds (part of) the entry's result */
	HLOPLAN_BUF_CONST = 4,	/* a constant: never in an arena */
	HLOPLAN_BUF_TABLE = 8	/* a tuple's index table */
};

struct hloplan_buffer {
	const char *name;	/* HLO name of its first value */
	int flags;		/* enum hloplan_class bits */
	int space;		/* memory space S(n) */
	int in_arena;		/* 0: constants, and parameters and
				   outputs kept out */
	int64_t offset;		/* in its space's arena, or -1 */
	int64_t size;		/* reserved: padded, slots * stride */
	int64_t bytes;		/* unpadded bytes of its largest value */
	int32_t start, end;	/* closed live interval, in steps */
	int slots;		/* 1, or k for a double-buffered block */
	int64_t stride;		/* between slots; 0 when slots == 1 */
};

struct hloplan_arena {
	int space;		/* S(n) */
	int64_t size;		/* bytes */
	int64_t lower_bound;	/* peak of live bytes: no arena is less */
	int nbuffer;		/* buffers in it */
};

/* A copy the runtime makes, src into dst, before or after a step. */
struct hloplan_copy {
	int src, dst;		/* buffer indices */
	int32_t step;
	int after;		/* 0: before the step runs; 1: after it */
	int64_t bytes;
	int loop;		/* -1: made once per run; else in every
				   iteration of loops[loop] */
};

/* A while loop as a runtime runs the steps: the condition is steps first
 * .. cond_last, the body cond_last + 1 .. step - 1 (both with what they
 * call), step the while itself, run once the condition is false. */
struct hloplan_loop {
	int32_t first;
	int32_t cond_last;	/* -1: the condition or body runs from another
				   site (not laid out as a loop here) */
	int32_t step;
	int parent;		/* the enclosing loop, or -1 */
	int64_t trips;		/* the body's runs; -1: the HLO does not say */
	const char *trips_from;	/* "backend_config" (XLA's
				   known_trip_count), or "" */
};

/* Where one node of one instruction's result lives: what a runtime binds
 * kernels, parameters and outputs by. */
struct hloplan_position {
	const char *computation;
	const char *instruction;
	int depth;		/* its shape index: index[0 .. depth) */
	const int *index;
	int buffer;		/* the buffer holding the value there */
	int defines;		/* 1: the instruction defines that value (or
				   a copy of the plan writes it); 0: it
				   passes an operand's on */
	int slot;		/* its slot in a slotted buffer, or -1 */
	int parameter;		/* an entry parameter(N): N; else -1 */
	int output;		/* 1: a node of the entry's ROOT: index is the
				   output index */
	int64_t size;		/* the node's bytes as laid out */
	const char *shape;	/* the node's shape as HLO text, as laid out */
};

/* --allocators: one allocator's replay of the plan's buffers of S(0). */
struct hloplan_allocator {
	const char *name;	/* "bfc", "bfc_growth", "torch_caching",
				   "torch_expandable", "first_fit",
				   "best_fit" */
	int64_t peak_reserved;	/* bytes it took from the device, at most */
	int64_t peak_allocated;	/* bytes of blocks it handed out, at most */
	int64_t region_size;	/* "bfc": the one region it needs; else 0 */
	int exceeded;		/* 1: over the capacity given for S(0); 0:
				   within it; -1: none given */
};

struct hloplan_plan {
	const char *module;	/* HLO module name */
	int target;		/* HLOPLAN_TARGET_GPU or _TPU */
	const char *prefix;	/* its macros' prefix, e.g. "HLOPLAN_GPU" */
	int64_t align;		/* offsets, sizes are multiples of it */
	int32_t nstep;		/* intervals lie in [0, nstep) */
	const char *const *steps;	/* nstep "computation/instruction"
					   names, or NULL */
	const char *schedule;	/* the order: "text", "list", ... */
	int64_t peak;		/* peak of live bytes in that order */
	int64_t peak_text;	/* ... and in the text order */
	int nbuffer;
	const struct hloplan_buffer *buffers;	/* in definition order */
	int narena;
	const struct hloplan_arena *arenas;	/* by space */
	int ncopy;
	const struct hloplan_copy *copies;	/* in the order to run them */
	int nposition;
	const struct hloplan_position *positions;	/* in schedule
							   order */
	int64_t const_bytes;	/* its constants' bytes as laid out in their
				   buffers, the blob's part for this plan */
	const unsigned char *const_data;	/* those bytes; NULL when
						   const_bytes is 0 */
	int64_t const_base;	/* where its part starts in the blob, a
				   multiple of 64 */
	int nallocator;		/* with options.allocators: 6, else 0 */
	const struct hloplan_allocator *allocators;
	int allocator_buffers;	/* buffers replayed */
	int nloop;
	const struct hloplan_loop *loops;	/* as each closes: inner
						   before outer */
};

/* Plans in the order module by module, GPU before TPU; 0 unless OK. */
int hloplan_nplan(const struct hloplan_result *r);
const struct hloplan_plan *hloplan_get_plan(const struct hloplan_result *r,
					    int i);

/* Wall time of each stage of the run, summed over all plans, in the order
 * it runs: "read" (the input), "parse", the passes from "flatten" to
 * "verify", "codegen" (every output made: hloplan_write, depfiles, dumps),
 * "write" (output files opened with hloplan_output_open_timed, or by
 * hloplan_write_file, then committed or aborted), and "other": what no
 * stage covers (options checked, the plans handed over as data, the
 * caller's time between calls).  They add up to hloplan_total_ms: the wall
 * time from the call that made r until now.  Writing the statistics is in
 * no stage: their figures stop where they begin.  Freeing r is not timed. */
int hloplan_nstage(void);
const char *hloplan_stage_name(int stage);
double hloplan_stage_ms(const struct hloplan_result *r, int stage);
double hloplan_total_ms(const struct hloplan_result *r);

/* ---- outputs ------------------------------------------------------------ */

enum hloplan_format {
	HLOPLAN_FORMAT_HEADER,	/* the C/C++ header */
	HLOPLAN_FORMAT_JSON,	/* the whole plan (schema in README.md) */
	HLOPLAN_FORMAT_CSV,	/* a row per buffer, XLA's columns first */
	HLOPLAN_FORMAT_SVG,	/* a memory timeline per arena */
	HLOPLAN_FORMAT_STATS,	/* the --stats text */
	HLOPLAN_FORMAT_STATS_JSON,	/* the same figures as JSON */
	HLOPLAN_FORMAT_CONSTANTS,	/* the constants blob: binary, each
					   plan's const_data from its
					   const_base, zeros between; its size
					   the sum of the const_bytes, each
					   rounded up to 64 */
	HLOPLAN_FORMAT_ALLOCATORS	/* the allocators' table of --stats
					   alone (options.allocators) */
};

/* Writes all plans in a format.  name is the output's path, from which the
 * header's include guard is made, after the first plan's prefix
 * ("out/plan.h", NULL or "-": HLOPLAN_GPU_PLAN_H).  The same plans give
 * the same bytes, but for the stage times in the stats.  0, or -1 with
 * errno (EINVAL: no plans). */
int hloplan_write(const struct hloplan_result *r, int format, FILE *out,
		  const char *name);
/* The same into a file, through hloplan_output; "-" is standard output. */
int hloplan_write_file(const struct hloplan_result *r, int format,
		       const char *path);

/* A Make depfile, "targets: input", the input as given to plan_file, with
 * '$', '#' and spaces escaped as GCC does; none listed when it was
 * standard input or a string with no name.  quoted[i] set: targets[i] is
 * escaped the same way (GCC's -MQ), else written as is (-MT); quoted may be
 * NULL.  0, or -1 with errno. */
int hloplan_write_depfile(const struct hloplan_result *r, FILE *out,
			  const char *const *targets, const int *quoted,
			  int ntarget);

/* An output file that appears whole or not at all: written to a temporary
 * beside path, then renamed over it on commit, unless path already holds
 * the same bytes: then it is left alone, mtime and all, so that build tools
 * that restat (ninja) skip what depends on it.  "-" is standard output. */
struct hloplan_output;

struct hloplan_output *hloplan_output_open(const char *path);	/* NULL,
								   errno */
/* The same, its time (opening now, committing or aborting later) counted
 * as r's "write" stage; r may be NULL. */
struct hloplan_output *hloplan_output_open_timed(
	const char *path, const struct hloplan_result *r);
FILE *hloplan_output_stream(struct hloplan_output *o);
/* Hands what o's stream holds to the system (its buffer may hold all of
 * it), so that a write that fails does so before any output is committed;
 * 0, or -1 with errno.  Counted as "write" when o is timed. */
int hloplan_output_flush(struct hloplan_output *o);
/* Closes, compares and renames or discards, then frees o; 0, or -1 with
 * errno and nothing changed at path. */
int hloplan_output_commit(struct hloplan_output *o);
/* Removes the temporary and frees o; path is untouched. */
void hloplan_output_abort(struct hloplan_output *o);
/* Ends the n outputs of o[] (NULL ones skipped) as one: each aborted when
 * bad >= 0 (the index of one that failed), else each committed until one
 * fails and the rest aborted; returns the index of the failed one, or -1. */
int hloplan_output_finish(struct hloplan_output **o, int n, int bad);
/* Removes the temporary of every output not yet committed or aborted, and
 * nothing else: async-signal-safe, for a SIGINT or SIGTERM handler that
 * then ends the process (the CLI's does). */
void hloplan_output_remove_temps(void);

#ifdef __cplusplus
}
#endif

#endif

/* The plan header's fixed text: the legend that opens it and the struct
 * types its tables use, defined once for every plan of every header that a
 * translation unit includes (under a guard of their own, not prefixed). */
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"

/* C99 promises string literals of 4,095 bytes: the legend in parts. */
static const char legend_plan[] =
	" *\n"
	" * Every name starts with its plan's prefix P (--prefix NAME: NAME_GPU\n"
	" * and NAME_TPU, by target).  For each plan:\n"
	" *   P_ALIGN                  offsets and sizes are multiples of it\n"
	" *   P_NUM_BUFFERS            entries of P_buffers[], the table\n"
	" *   P_NUM_STEPS              schedule steps; intervals lie in "
	"[0, P_NUM_STEPS)\n"
	" *   P_NUM_ARENAS             arenas, one per memory space in use\n"
	" *   P_ARENA_S<n>_SIZE        bytes of the arena of memory space S(n);"
	"\n"
	" *   P_ARENA_S<n>_ALIGN       its alignment; _LOWER: its peak of live "
	"bytes\n"
	" *   P_ARENA_SIZE, _ALIGN     the same for S(0); size 0 if it has no "
	"arena\n"
	" *   P_BUF(NAME)              a buffer's id: P_buffers[P_BUF(NAME)] "
	"gives\n"
	" *                            its offset (-1: in no arena), size, slots"
	"\n"
	" *                            (slot i at HLOPLAN_SLOT_OFFSET(&b, i)) ...\n"
	" *                            It is P_BUF_<NAME>, or an earlier plan's\n"
	" *                            when its buffers are that plan's\n"
	" *   P_CLASS_*                bits of P_buffers[].flags; 0 is a "
	"temporary\n"
	" *   P_NUM_SHAPES, P_shapes[] each laid-out shape once: dtype, rank, "
	"dims,\n"
	" *                            minor_to_major, tiles and HLO text; "
	"buffer\n"
	" *                            b's is P_shapes[b.shape]\n"
	" *   P_NUM_POSITIONS, P_positions[]  for every instruction of every\n"
	" *                            step, each node of its result (shape\n"
	" *                            indices in preorder): the buffer, the\n"
	" *                            offset inside it, the slot; step t's\n"
	" *                            are P_positions[P_step_first_position[t]\n"
	" *                            .. P_step_first_position[t + 1])\n"
	" *   P_NUM_OPERANDS, P_operands[]  each step's operands in order:\n"
	" *                            the position of the producer's root\n"
	" *                            node, its other nodes after it (index\n"
	" *                            depth > 0); step t's are P_operands[\n"
	" *                            P_step_first_operand[t] .. [t + 1])\n"
	" *   P_ix[]                   shape indices: P_ix[k] entries follow k\n"
	" *   P_NUM_VALUES, P_values[] the positions that write each buffer,\n"
	" *                            grouped by buffer: P_buffers[].first_value"
	"\n"
	" *                            and .num_values give a buffer's range\n";

static const char legend_io[] =
	" *   P_PARAM_<n>[_<i>...]_OFFSET, _BYTES  entry parameter(n), at shape\n"
	" *                            index {i,...} (a tuple's table at none):\n"
	" *                            its offset in the arena (-1 when not in\n"
	" *                            one: --io-out-of-arena, the caller's\n"
	" *                            memory), and the array's own bytes (no\n"
	" *                            alignment padding): copy _BYTES\n"
	" *   P_OUTPUT[_<i>...]_OFFSET, _BYTES  the same per output index\n"
	" *                            (P_OUTPUT_* for a single array output)\n"
	" *   P_NUM_PARAMS, P_params[], P_NUM_OUTPUTS, P_outputs[]\n"
	" *                            every binding: its buffer, bytes\n"
	" *                            reserved, shape, position and whether\n"
	" *                            the call leaves a parameter intact\n"
	" *                            (survives); P_INDEX_MAX bounds their\n"
	" *                            shape indices\n"
	" *   P_NUM_CONSTANTS, P_constants[]  each constant's buffer and where\n"
	" *                            its bytes are: P_CONST_DATA + offset\n"
	" *                            (P_CONST_EMBEDDED 1), or the file\n"
	" *                            P_CONST_FILE from P_CONST_BASE on; copy\n"
	" *                            them in before the first step; a\n"
	" *                            constant's buffer lies in no arena\n"
	" *                            (P_CONST_IN_ARENA 0): runtime memory\n"
	" *   P_NUM_SLOT_USES, P_slot_uses[]  which instruction of an unrolled\n"
	" *                            loop writes which slot\n"
	" *   P_STEP_NAME(t)           the instruction of step t, in the order\n"
	" *                            assumed (from P_step_text[], an earlier\n"
	" *                            plan's when it has the same steps in any\n"
	" *                            order, and P_step_at[])\n"
	" *   P_STEP_COMPUTATION(t)    its computation (P_computations[], each\n"
	" *                            name once, P_NUM_COMPUTATIONS;\n"
	" *                            P_step_comp[t])\n"
	" *   P_NUM_COPIES, P_copies[] copies the runtime makes, src into dst,\n"
	" *                            before or after a step; .loop -1: once\n"
	" *                            per run, else in every iteration of\n"
	" *                            P_loops[.loop]\n"
	" *   P_NUM_LOOPS, P_loops[]   the while loops: the condition's steps,\n"
	" *                            the body's, the while's step, the\n"
	" *                            enclosing loop, the trip count (-1: the\n"
	" *                            condition decides at run time)\n"
	" *   P_TABLES_FILLED_BY_RUNTIME  1: a tuple's index table (P_CLASS_\n"
	" *                            TABLE) holds P_TABLE_POINTER_BYTES per\n"
	" *                            element, written at the step defining it\n";

static const char legend_names[] =
	" * The loops and slot uses name their fields (HLOPLAN_FIELD: designated\n"
	" * initializers in C and C++20); the tables that grow with the model\n"
	" * are positional, their fields in a comment atop each, for size.\n"
	" * Bindings (P_PARAM_*, P_OUTPUT*) and buffers (P_BUF_*) are two\n"
	" * namespaces: a buffer whose HLO name is param.2.0 is P_BUF_PARAM_2_0.\n"
	" * <NAME> is the HLO name in upper case, each run of other characters\n"
	" * than letters and digits made one '_', none at either end (UNNAMED if\n"
	" * nothing is left).  When a macro of that name is taken already (by a\n"
	" * buffer before it in P_buffers[], the include guard, or a plan whose\n"
	" * prefix extends P), the buffer's id is appended, <NAME>_<id>, and\n"
	" * again while that is taken too.  Names are written once: a table's\n"
	" * name points into P_step_text[] (P_T(chunk, byte)).  A table that\n"
	" * would be an earlier plan's again is that plan's, under a macro, as\n"
	" * are buffers' ids: P_BUF(NAME) is the earlier plan's P_BUF_<NAME>.\n"
	" * Upper-case names are macros; the others have internal linkage, so "
	"any\n"
	" * number of C or C++ translation units may include this header, and\n"
	" * headers of plans of other prefixes beside it.\n"
	" */\n";

void
header_legend(FILE *out, const char *source, const char *guard)
{
	const char *slash = source ? strrchr(source, '/') : NULL;

	fputs("/* Buffer plan generated by hloplan", out);
	if (source) {
		fputs(" from ", out);
		for (const char *s = slash ? slash + 1 : source; *s; s++) {
			unsigned char c = (unsigned char)*s;
			int bad = c < 0x20 || c > 0x7e || strchr("*/\\?", c);

			fputc(bad ? '_' : c, out);
		}
	}
	codegen_printf(out, "; do not edit.\n%s%s%s#ifndef %s\n#define %s\n",
		legend_plan, legend_io, legend_names, guard, guard);
}

/* The types, the same text in every header: a second definition is
 * skipped by its guard.  The guard names the version of the types. */
static const char types_head[] =
	"\n#ifndef HLOPLAN_PLAN_TYPES_3\n"
	"#define HLOPLAN_PLAN_TYPES_3\n"
	"#if !defined(__cplusplus) || __cplusplus >= 202002L\n"
	"#define HLOPLAN_FIELD(f) .f =\n"
	"#else\n"
	"#define HLOPLAN_FIELD(f)\n"
	"#endif\n"
	"#if defined(__GNUC__)\n"
	"#define HLOPLAN_UNUSED __attribute__((unused))\n"
	"#else\n"
	"#define HLOPLAN_UNUSED\n"
	"#endif\n"
	"\nstruct hloplan_plan_shape {\n"
	"\tconst char *dtype;\t/* element type (\"f32\"), or \"tuple\" */\n"
	"\tint rank;\n"
	"\tconst long long *dims;\t/* rank sizes, major to minor as written "
	"*/\n"
	"\tconst int *minor_to_major;\t/* rank dimension numbers */\n"
	"\tconst char *tiles;\t/* \"(8,128)(2,1)\", or \"\" */\n"
	"\tconst char *text;\t/* the whole shape as HLO text */\n"
	"};\n"
	"\nstruct hloplan_plan_buffer {\n"
	"\tconst char *name;\t/* the HLO name */\n"
	"\tlong long offset;\t/* in its space's arena; -1 when not in one */\n"
	"\tlong long size;\t\t/* bytes reserved; slots * stride when slotted "
	"*/\n"
	"\tlong long bytes;\t/* unpadded bytes */\n"
	"\tlong long stride;\t/* bytes between slots; 0 when slots == 1 */\n"
	"\tint start, end;\t\t/* closed live interval, in steps */\n"
	"\tint space;\t\t/* memory space S(n) */\n"
	"\tint flags;\t\t/* P_CLASS_* bits; 0 is a temporary */\n"
	"\tint slots;\t\t/* 1, or the number of slots */\n"
	"\tint in_arena;\t\t/* 1 when offset is in the arena */\n"
	"\tint shape;\t\t/* P_shapes[shape]: the value it is named after, "
	"laid out */\n"
	"\tint first_value, num_values;\t/* P_values[first_value ...] */\n"
	"};\n"
	"\n/* The offset of slot i (an iteration, i >= 0) of buffer *b. */\n"
	"#define HLOPLAN_SLOT_OFFSET(b, i) \\\n"
	"\t((b)->offset + ((b)->slots > 1 ? (i) % (b)->slots * (b)->stride : 0))"
	"\n";

static const char types_tail[] =
	"\nstruct hloplan_plan_position {\n"
	"\tint buffer;\t\t/* P_BUF_* id of the buffer holding the node */\n"
	"\tlong long offset;\t/* of the node inside that buffer */\n"
	"\tint slot;\t\t/* its slot in a slotted buffer shared by an unrolled "
	"loop, else -1 */\n"
	"\tint index;\t\t/* its shape index: P_ix[index] entries after it */\n"
	"\tint defines;\t\t/* 1: the step writes it; 0: it forwards an "
	"operand's bytes;\n\t\t\t\t   2: a copy of P_copies[] writes it */\n"
	"};\n"
	"\nstruct hloplan_plan_binding {\n"
	"\tint parameter;\t\t/* N of parameter(N); -1 for an output */\n"
	"\tint depth;\t\t/* the shape index: index[0 .. depth) */\n"
	"\tconst int *index;\n"
	"\tint buffer;\t\t/* P_BUF_* id */\n"
	"\tlong long offset;\t/* in its space's arena; -1 when not in one */\n"
	"\tlong long size;\t\t/* bytes reserved for it */\n"
	"\tlong long bytes;\t/* the array's bytes, no alignment padding: "
	"what to copy */\n"
	"\tconst char *shape;\t/* as HLO text */\n"
	"\tint position;\t\t/* its P_positions[] entry */\n"
	"\tint survives;\t\t/* 1: the call leaves its bytes intact; 0: "
	"donated by\n\t\t\t\t   input_output_alias, or its space reused "
	"(--reuse-params);\n\t\t\t\t   -1: an output, or a tuple's table */\n"
	"};\n"
	"\nstruct hloplan_plan_copy {\n"
	"\tint src, dst;\t\t/* P_BUF_* ids: copy src into dst */\n"
	"\tint step;\t\t/* at this step, */\n"
	"\tint after;\t\t/* before it runs (0) or after (1) */\n"
	"\tlong long bytes;\t/* bytes to copy */\n"
	"\tint loop;\t\t/* -1: made once per run; else in every iteration of\n"
	"\t\t\t\t   P_loops[loop] (each time the step runs) */\n"
	"};\n"
	"\nstruct hloplan_plan_loop {\n"
	"\tint first;\t\t/* its first step: the condition's first */\n"
	"\tint cond_last;\t\t/* the condition's last step; the body runs from\n"
	"\t\t\t\t   cond_last + 1 to step - 1 (-1: not laid out here) */\n"
	"\tint step;\t\t/* the while: runs once the condition is false */\n"
	"\tint parent;\t\t/* the enclosing loop's index, or -1 */\n"
	"\tlong long trips;\t/* the body's runs; -1: not known before the\n"
	"\t\t\t\t   condition says (it runs trips + 1 times) */\n"
	"\tconst char *trips_from;\t/* \"backend_config\" (XLA's "
	"known_trip_count), or \"\" */\n"
	"};\n"
	"\nstruct hloplan_plan_constant {\n"
	"\tint buffer;\t\t/* P_BUF_* id of the buffer it is placed in */\n"
	"\tconst char *computation;\n"
	"\tconst char *instruction;\n"
	"\tint depth;\t\t/* its shape index: index[0 .. depth) */\n"
	"\tconst int *index;\n"
	"\tlong long offset;\t/* of its bytes after P_CONST_DATA, or in the "
	"blob after P_CONST_BASE; -1 when not known */\n"
	"\tlong long bytes;\t/* as laid out in its buffer */\n"
	"\tint known;\t\t/* 0: the HLO text elides its value (or hloplan "
	"cannot be sure of its bytes); fill it from elsewhere */\n"
	"};\n"
	"\nstruct hloplan_plan_slot_use {\n"
	"\tint buffer;\t\t/* P_BUF_* id of a slotted buffer */\n"
	"\tconst char *instr;\t/* the instruction that writes it */\n"
	"\tint slot;\t\t/* in this slot */\n"
	"};\n"
	"#endif /* HLOPLAN_PLAN_TYPES_3 */\n";

void
header_types(FILE *out)
{
	fputs(types_head, out);
	fputs(types_tail, out);
}

/* Codegen: writes finished plans out for their users.  The plan header is a
 * C/C++ header of macros, a table and compile-time checks (DESIGN.md §9);
 * beside it, the plan as JSON, a CSV with XLA's columns, an SVG timeline,
 * the constants' bytes. */
#ifndef HLOPLAN_CODEGEN_H
#define HLOPLAN_CODEGEN_H

#include <stdio.h>

#include "dumps/xla_assignment.h"
#include "ir/ir.h"
#include "passes/plan.h"

struct header_opts {
	const char *guard;	/* include guard after the prefix; NULL: PLAN_H */
	const char *source;	/* the input's base name, for a comment; never
				   a path or a time, so output is reproducible */
	const char *constants;	/* the constants blob's base name (see
				   codegen_constants), or NULL when no blob
				   is written: then the header carries the
				   constants' bytes itself */
	int threads;		/* 1: written on one thread; else the plans
				   after the first beside it (the same
				   bytes) */
};

/* Writes one header holding nplan plans, plans[i] under prefixes[i] (distinct,
 * upper-case C identifiers such as "HLOPLAN_GPU"), guarded by
 * prefixes[0]_guard.  Writes only to out; the caller checks ferror(out).
 * The same arguments give the same bytes. */
void codegen_header(FILE *out, const struct plan *plans,
		    const char *const *prefixes, int nplan,
		    const struct header_opts *o);

/* header_text.c: the header's opening legend and include guard, and the
 * struct types every plan's tables use, under a guard of their own. */
void header_legend(FILE *out, const char *source, const char *guard);
void header_types(FILE *out);

/* The plans of one run, for the writers beside the header. */
struct plan_set {
	const struct plan *plans;
	const char *const *prefixes;	/* each plan's header prefix */
	int nplan;
	const char *source;	/* the input's base name, or "<stdin>" */
	const struct xla_assignment *xla;	/* XLA's own assignment of the
						   module, or NULL */
};

/* A plan's total as XLA's is counted: its arenas and its constants. */
int64_t codegen_total(const struct plan *p);

/* What a runtime binds each buffer by, the same in every output. */
struct bindings {
	int npar, nout;
	int *par;	/* positions of the entry's parameter nodes, by number
			   then shape index (tokens left out) */
	int *out;	/* positions of the entry ROOT's nodes, in preorder */
	int depth;	/* the deepest shape index of these and of val[], at
			   least 1 */
	int nval;
	int *val;	/* positions that hold a value (define it, or are
			   written by a copy), grouped by buffer */
	int *first;	/* by buffer: its values are val[first .. first+count) */
	int *count;
	int *bpar;	/* by buffer: the first of par[] it holds, or -1 */
	int *bout;	/* by buffer: the first of out[] it holds, or -1 */
};

/* common.c: a plan's bindings, allocated in pool. */
void codegen_bindings(struct pool *pool, const struct plan *p,
		      struct bindings *b);
/* A shape as HLO text ("f32[8,128]{1,0:T(8,128)}"); "" for NULL.  A tuple
 * of more than 8 elements, or whose text would pass SHAPE_TEXT_MAX bytes,
 * as "(N elements)": its elements are bound on their own, and C99 strings
 * need not hold more than 4095 bytes. */
enum { SHAPE_TEXT_MAX = 1024 };
const char *codegen_shape_text(struct pool *pool, const struct shape *s);

/* A shape's element type name, "tuple" for a tuple, "" for NULL. */
const char *codegen_dtype(const struct shape *s);
/* q's shape index between brackets[0] and brackets[1], entries joined by
 * sep; none inside the brackets when it has none. */
void codegen_index(FILE *out, const struct plan_pos *q, const char *brackets,
		   const char *sep, const char *none);

/* print.c: fprintf, faster for the formats the writers use (%s, %c, %d,
 * %ld, %lld, %%); the same bytes.  fmt must be a string literal: which
 * formats are plain is remembered by address. */
void codegen_printf(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* common.c: "gpu" or "tpu"; a buffer's class names ("temp" for none),
 * returning how many. */
const char *codegen_target(int target);
int codegen_classes(int flags, const char *names[4]);
/* s as a JSON string, quotes included; bytes not UTF-8 become U+FFFD. */
void codegen_json_string(FILE *out, const char *s);
/* Where an instruction comes from, each key only when known:
 * , "source_file": ..., "source_line": ..., "op_name": ... */
void codegen_json_source(FILE *out, const char *file, int line,
			 const char *op_name);

/* Each writes only to out (the caller checks ferror) and gives the same
 * bytes for the same plans. */
/* json.c: the whole plan; the schema is in README.md. */
void codegen_json(FILE *out, const struct plan_set *s);
/* csv.c: one row per buffer, XLA's BufferInfoString columns first. */
void codegen_csv(FILE *out, const struct plan_set *s);
/* constants.c: the constants blob: each plan's const_data[0, const_bytes)
 * in plan order, each plan's part starting at a multiple of 64 and padded
 * with zeros to the next (so the blob's size is the sum of the parts).
 * codegen_constants_base: where plan's part starts (plan == nplan: the
 * blob's size); a constant is at that plus its plan_const.offset. */
void codegen_constants(FILE *out, const struct plan_set *s);
int64_t codegen_constants_base(const struct plan_set *s, int plan);
/* svg.c: per arena, offset x step boxes and the live-bytes curve. */
void codegen_svg(FILE *out, const struct plan_set *s);
/* stats.c: --stats as text and as JSON; ms[k] is stage k's time, and
 * total the run's, which they add up to. */
void codegen_stats(FILE *out, const struct plan_set *s, const double *ms,
		   const char *const *stages, int nstage, double total);
/* stats.c: the --allocators table alone: per plan, S(0)'s lower bound and
 * arena beside each allocator's peaks (nothing for plans without). */
void codegen_allocators(FILE *out, const struct plan_set *s);
void codegen_stats_json(FILE *out, const struct plan_set *s,
			const double *ms, const char *const *stages,
			int nstage, double total);

#endif

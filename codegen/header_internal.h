/* The plan header's writer, in two files: header.c the names, macros, step
 * text, shapes and buffer table, and the whole header; header_tables.c the
 * other tables and the helpers both use (header.c calls into it, never the
 * other way).  What they share, private to codegen/. */
#ifndef HLOPLAN_CODEGEN_HEADER_INTERNAL_H
#define HLOPLAN_CODEGEN_HEADER_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "codegen/codegen.h"

/* Where each step's name starts in the step text (see put_steps). */
enum { STEP_CHUNK = 4096, STEP_CHUNK_TEXT = 4095 };

struct hdr {
	FILE *out;
	const char *blob;	/* the constants blob's name, or NULL */
	int64_t blob_base;	/* this plan's part of it starts here */
	struct pool *pool;
	const struct plan *p;
	const char *pre;	/* the plan's prefix */
	const char **name;	/* the C name of each buffer */
	const struct bindings *b;
	const char **io;	/* the name of each parameter, then output */
	const char *pos_of;	/* an earlier plan's prefix whose positions
				   lie at the same steps and indices, with the
				   same operands: its step_first_position and
				   operand tables are this one's; or NULL */
	const char *steps_of;	/* an earlier plan's prefix whose step tables
				   is this one's too, or NULL */
	const struct shape *last;	/* the shape text_of made last */
	const char *last_text;
	int *at;		/* by step: chunk * STEP_CHUNK + offset of its
				   name in the step text */
	const char *text_pre;	/* the prefix whose step text that is */
	const char *buf_pre;	/* the prefix whose P_BUF_<NAME> macros name
				   the buffers (P_BUF(NAME)): pre, or an
				   earlier plan's with the same buffers */
	int *ix;		/* by position: its shape index in P_ix[] */
	/* Tables of an earlier plan's that are this one's too, by its
	 * prefix, or NULL: */
	const char *text_of;	/* the step text and computations (the same
				   steps in another order): then at[] and
				   comp_ix[] are set before it is written */
	int *comp_ix;		/* by step: its computation's index in
				   text_of's P_computations[] */
	const char *rows_of;	/* P_positions[] and P_ix[] */
	const char *values_of;	/* P_values[] */
	const char *cdata_of;	/* the constants' bytes */
};

/* header_tables.c: the tables of one plan after its buffers (positions,
 * operands, values, bindings, copies, loops, slot uses, constants), and
 * the helpers both files use. */
void hdr_tables(struct hdr *h);
/* s as a C string literal (hdr_cstring_nul: with a NUL of its own). */
void hdr_cstring(FILE *out, const char *s);
void hdr_cstring_nul(FILE *out, const char *s);
/* Numbers, per_line a line. */
void hdr_ints(FILE *out, const int *v, int n, int per_line);
/* The positions a slotted buffer's fetches write. */
int hdr_slot_uses(const struct plan *p);
/* Parameter (k < npar) or output k - npar of the bindings. */
const struct plan_pos *hdr_io_pos(const struct hdr *h, int k);
/* The array's own bytes as the caller holds it, without padding. */
int64_t hdr_exact_bytes(const struct hdr *h, const struct plan_pos *q);
/* 1: the step writes position q's value; 2: a copy does; 0: it holds what
 * an operand's position holds. */
int hdr_pos_kind(const struct plan_pos *q);
/* Buffer i's name in a table row: a pointer into the step text when its
 * first value's instruction is its name, else a literal. */
void hdr_buffer_name(struct hdr *h, int i);

#endif

/* Several programs that share one arena: the declaration --programs reads
 * (frontend/programs.c; the format is doc/joint.md).  Data only. */
#ifndef HLOPLAN_IR_JOINT_H
#define HLOPLAN_IR_JOINT_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

enum { JOINT_MAX_DEPTH = 8 };

/* A shape index: "{1,0}" is depth 2. */
struct jindex {
	int depth;
	int64_t i[JOINT_MAX_DEPTH];
};

/* Whether the shape index a (na numbers) is the one j names (ir/joint.c). */
int jindex_is(const struct jindex *j, const int64_t *a, int na);

/* One program's use of a shared array: it reads it as an entry parameter,
 * writes it as an output, or both (donated by input_output_alias). */
struct joint_use {
	int prog;		/* index in joint_decl.prog */
	int64_t param;		/* entry parameter number read, or -1 */
	struct jindex pidx;	/* ... and the node in it */
	int out;		/* 1: written as the output at oidx */
	struct jindex oidx;
	struct loc loc;		/* the program's name */
	struct loc ploc, oloc;	/* "param" and "out" */
};

/* A persistent array: the same bytes at the same offset in every program. */
struct joint_array {
	const char *name;
	struct loc loc;
	int nuse, cap;
	struct joint_use *use;
	const struct shape *shape;	/* the first use's (joint_check) */
};

struct joint_prog {
	const char *name;
	const char *path;	/* as the declaration writes it */
	struct loc loc;
	struct module *m;	/* NULL until parsed */
};

struct joint_decl {
	int nprog, capprog;
	struct joint_prog *prog;
	int narray, caparray;
	struct joint_array *arr;
	int ncall, capcall;
	int *call;		/* the call sequence: program indices */
	struct loc calls_loc;
};

/* frontend/programs.c: reads a declaration (len bytes) into d; errors go
 * to ds as file:line:col.  Returns 0, or -1 when there were any. */
int joint_read(struct pool *pool, struct diags *ds, const char *text,
	       size_t len, struct joint_decl *d);
/* Once every program's module is parsed (d->prog[k].m): every name and
 * number matches something, an array keeps one shape and layout, a
 * program that writes an array it reads donates it, and a program that
 * donates a shared parameter writes it back.  0, or -1 with errors in ds
 * (at the declaration's lines). */
int joint_check(struct diags *ds, struct joint_decl *d);

#endif

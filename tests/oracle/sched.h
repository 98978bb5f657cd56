/* What the data run (interp.c) and the value-identity run (identity.c)
 * both need: the plan's schedule indexed for a run of it, and the rules
 * both runs follow. */
#ifndef HLOPLAN_ORACLE_SCHED_H
#define HLOPLAN_ORACLE_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "passes/plan.h"

struct sched {
	int **posbase;		/* [c][i]: first position; NULL row: not run
				   as steps (a kernel's) */
	int **step;		/* [c][i]: schedule step */
	int **order;		/* per program computation: by step */
	int *norder;
	int nstep;
	int *cfirst, *cidx;	/* step t's copies: cidx[cfirst[t] ..] */
	int *entry_of;		/* per copy: the while it enters (its
				   position), or -1 */
	int *entry_first;	/* ... and that loop's first step */
};

/* How a run gives the index its memory (zeroed, freed with the run) and
 * stops at a plan that does not fit the module (never returns). */
struct sched_env {
	void *ctx;
	void *(*alloc)(void *ctx, size_t n);
	void (*fail)(void *ctx, const char *msg);	/* does not return */
};

/* Indexes pl's positions by instruction and step, checks that they cover
 * each instruction's nodes, its copies by step, and the copies that
 * enter a while loop. */
void sched_index(struct sched *s, const struct module *m,
		 const struct plan *pl, const struct sched_env *env);

/* The computation in's attribute key names, else its fallback'th call;
 * -1 when neither is there. */
int sched_callee(const struct module *m, const struct instr *in,
		 const char *key, int fallback);

/* An async pair's start and done (not copy-start/-done): by opcode, or a
 * name ending in -start or -done. */
int sched_is_start(const struct instr *in);
int sched_is_done(const struct instr *in);

/* A hash of a shape's type, dimensions and elements: what a tuple's
 * table holds in both runs. */
uint64_t sched_shape_hash(const struct shape *s);

/* Whether input_output_alias donates entry parameter k. */
int sched_donated(const struct module *m, int k);

#endif

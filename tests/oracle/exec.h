/* The oracle's insides, shared by the interpreter (interp.c), the array
 * kernels (arrays.c) and the literal reader (literal.c).  An instruction
 * runs on addresses: one per node of its output and of each operand. */
#ifndef HLOPLAN_ORACLE_EXEC_H
#define HLOPLAN_ORACLE_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "tests/oracle/interp.h"
#include "tests/oracle/num.h"

struct interp;

/* One instruction being run. */
struct op {
	struct interp *st;
	const struct module *m;
	const struct instr *in;
	unsigned char **out;		/* output nodes, preorder */
	unsigned char ***arg;		/* per operand: its nodes */
	const struct shape **as;	/* per operand: its shape */
	int in_place;			/* the plan's run: dynamic-update-
					   slice and scatter write only the
					   update */
	int c, i;			/* the instruction's place */
};

/* Stops the run with a status (INTERP_*) and a message; never returns. */
_Noreturn void interp_fail(struct interp *st, int status, const char *fmt,
			   ...);
/* Counts work; a run over its budget stops (INTERP_LIMIT). */
void interp_work(struct interp *st, int64_t n);
/* Zeroed memory an op needs for a while: freed by interp_release, or
 * with the run when it stops early. */
void *interp_alloc(struct interp *st, size_t n);
void interp_release(struct interp *st, void *p);
/* How many times instruction (c, i) ran before in this run: seeds the
 * stubs of ops whose data comes from outside (infeed, rng). */
int64_t interp_runs(struct interp *st, int c, int i);
/* Counts instruction in as run by a stub (once per instruction). */
void interp_stub(struct interp *st, const struct instr *in);
/* Runs kernel computation c (a reducer, a map or fusion body) on the
 * given argument nodes; returns its root's nodes, valid until c runs
 * again. */
unsigned char **interp_kernel(struct interp *st, int c, unsigned char ***args);

/* arrays.c: runs an array op; 0, or -1 when the opcode is not one. */
int array_run(struct op *o);
/* Is the opcode one array_run knows?  May it give a tuple? */
int array_known(const char *name);
int array_tuple_ok(const char *name);
/* A custom-call that only passes its operand on (Sharding, ...). */
int array_identity_call(const struct instr *in);
/* May a custom-call write output node `node` over operand k's array
 * (output_to_operand_aliasing)? */
int array_call_aliases(const struct instr *in);
/* The shape at preorder node `node` of s. */
const struct shape *node_shape(const struct shape *s, int node);
/* Bytes of the array or index table at a node. */
int64_t node_bytes(const struct shape *s);

/* literal.c: writes constant in's literal into out (NULL: only checks);
 * 0, or -1 with why, or -2 when the literal is elided ({...}). */
int literal_write(const struct instr *in, unsigned char **out, char *why,
		  size_t n);

#endif

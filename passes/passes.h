/* The passes between the IR and the plan, and the facts they share.  Each
 * fill_* analysis annotates struct prog; each transform changes the plan.
 * The driver (driver.c) calls them in order, one line each. */
#ifndef HLOPLAN_PASSES_H
#define HLOPLAN_PASSES_H

#include "ir/ir.h"
#include "passes/plan.h"

struct options {
	int target;		/* enum target */
	int64_t align;		/* GPU offset alignment; 0: the default */
	int reuse;		/* an elementwise output may take a dying
				   operand's buffer */
	int io_in_arena;	/* entry parameters and outputs in the arena */
	int tpu_tile[2];	/* default TPU tile (rows, columns) */
	long effort;		/* packer work budget; 0: the default */
};

void options_default(struct options *o);

enum { COMP_UNUSED, COMP_PROGRAM, COMP_KERNEL };

/* A value: what one instruction defines at one node of its shape. */
struct value {
	int comp, instr, node;
	const struct shape *shape;	/* the array or tuple at that node */
	int32_t def, end;	/* closed live interval */
	int flags;		/* BUF_PARAM, BUF_OUTPUT, BUF_CONST, BUF_TABLE */
	int parent;		/* union-find: values that must share */
};

/* A step of the flattened schedule: one instruction of a program
 * computation. */
struct step {
	int comp, instr;
};

/* A while loop's span of steps: its condition and body, then itself. */
struct loop {
	int32_t start, end;
	int parent;		/* the enclosing loop, or -1 */
};

/* The facts the analyses fill in about one module. */
struct prog {
	struct pool *pool;
	struct diags *ds;
	const struct module *m;
	struct options opt;
	int *kind;		/* COMP_* per computation */
	int **time;		/* time[c][i]: the step of instruction i, or -1 */
	int32_t ntime;
	int stepcap, loopcap;
	struct step *steps;	/* ntime steps: the flattened schedule */
	int32_t *lo, *hi;	/* per computation: the span of its steps,
				   widened when it runs more than once */
	int *wide;		/* per computation: runs more than once */
	int *site_comp, *site_instr;	/* the call laid out first */
	int nloop;
	struct loop *loops;
	int **nodebase;		/* nodebase[c][i]: instruction i's first
				   entry in nodeval, or -1 */
	int *nodeval;		/* the value at each node of each output */
	int nnode;
	int nval, valcap;
	struct value *values;
	int32_t *bstart, *bend;	/* per union-find root: the hull */
	int *buf_of;		/* value -> buffer index in the plan */
};

/* Number of nodes of a shape in preorder (1 for an array). */
int shape_nodes(const struct shape *s);
/* The node index of element i of the tuple at node n of shape s. */
int shape_child(const struct shape *s, int i);

int prog_find(struct prog *p, int v);
void prog_union(struct prog *p, int a, int b);
/* The value at a node of an instruction's output. */
int prog_val(const struct prog *p, int c, int i, int node);

/* The computation named by an instruction's attribute, or -1. */
int called_comp(const struct module *m, const struct instr *in,
		const char *key);

/* schedule.c: which computations run as program steps, and the flattened
 * schedule of their instructions (XLA's HloLiveRange order). */
void fill_schedule(struct prog *p);
/* values.c: values, forwarding, and the sharing the model forces. */
void fill_values(struct prog *p);
/* liveness.c: a closed interval per value. */
void fill_liveness(struct prog *p);
void prog_hulls(struct prog *p);
/* reuse.c: an elementwise output takes a dying operand's buffer. */
void share_reuse(struct prog *p);
/* buffers.c: buffers from the sets of values that share, sized for the
 * target (sizing.c), in the plan. */
void build_buffers(struct prog *p, struct plan *pl);
int64_t target_bytes(const struct options *o, const struct shape *s);
int64_t target_size(const struct options *o, const struct shape *s);
/* assign.c: offsets in one arena per memory space. */
void assign_offsets(struct prog *p, struct plan *pl);
/* verify.c: an independent check; 0 when sound, else 1 with a message. */
int verify_plan(const struct prog *p, const struct plan *pl, char *err,
		size_t errlen);

/* Dumps for debugging a stage (--dump=schedule, values, live, plan). */
void dump_schedule(FILE *out, const struct prog *p);
void dump_values(FILE *out, const struct prog *p);
void dump_plan(FILE *out, const struct plan *pl);

#endif

/* The passes between the IR and the plan, and the facts they share.  Each
 * fill_* analysis annotates struct prog; each transform changes the plan.
 * The driver (driver.c) calls them in order, one line each. */
#ifndef HLOPLAN_PASSES_H
#define HLOPLAN_PASSES_H

#include "ir/ir.h"
#include "passes/plan.h"

enum { COMP_UNUSED, COMP_PROGRAM, COMP_KERNEL };

/* The fine timeline that live ranges are measured on: step t has five
 * points, pt(t, k): the copies before it (two phases), the instruction
 * itself, the copies after it (two phases).  Point 0 is before the first
 * step (where entry parameters are defined); pt(ntime - 1, PT_AFTER1) is
 * the end, where the entry's outputs are read. */
enum { PT_BEFORE0, PT_BEFORE1, PT_INSTR, PT_AFTER0, PT_AFTER1 };

static inline int64_t
pt(int32_t t, int k)
{
	return 5 * (int64_t)t + 1 + k;
}

/* The step a point belongs to (point 0, before the first step: step 0). */
static inline int32_t
pt_step(int64_t q)
{
	return q <= 0 ? 0 : (int32_t)((q - 1) / 5);
}

/* Where a value's bytes must stay intact: a closed span of points.  A span
 * may continue a join's source into its destination (XLA's phi inputs): it
 * begins where join `join` hands the source over. */
struct seg {
	int64_t lo, hi;
	int val;
	int join;		/* the join handing over here, or -1 */
};

/* A value: what one instruction defines at one node of its shape. */
struct value {
	int comp, instr, node;
	const struct shape *shape;	/* the array or tuple at that node */
	int32_t def, end;	/* the hull of its spans, in steps */
	int flags;		/* BUF_PARAM, BUF_OUTPUT, BUF_CONST, BUF_TABLE */
	int parent;		/* union-find: values that must share */
	int seg0, nseg;		/* its spans: p->seg[seg0 .. seg0+nseg) */
	int32_t tail;		/* the step of an asynchronous start that
				   reads it last, and only its done reads
				   it after that (bytes in flight), or -1 */
};

/* A value's flag beside BUF_*: the state of a while loop, defined where the
 * loop starts (XLA's phi). */
enum { VAL_PHI = 1 << 8 };
/* A value that a copy writes, not its instruction (an entry output with a
 * buffer of its own): its position forwards. */
enum { VAL_COPY = 1 << 10 };
/* A loop's state that its body passes on as it is: one value with its init
 * (values.c), so not made anew in an enclosing loop's iteration. */
enum { VAL_SAME = 1 << 11 };

/* Sharing the model asks for; copies.c joins the two values, or, when they
 * are live at once, keeps them apart and has the runtime copy one into the
 * other (XLA's copy insertion). */
enum {
	J_WHILE_INIT, J_WHILE_ROOT, J_BRANCH, J_IN_PLACE, J_ALIAS, J_ALIAS_MUST,
	J_OUTPUT		/* an entry output that must have a buffer of
				   its own: always a copy */
};

struct join {
	int kind;		/* J_* */
	int a, b;		/* a goes into b's buffer */
	int comp, instr;	/* the instruction that asks: while,
				   conditional, in-place op; -1 for aliases */
	int callee;		/* the body or branch whose ROOT gives a */
	int64_t hand;		/* the point where a hands over to b
				   (liveness.c) */
};

/* A copy the runtime makes: src's bytes into dst, before step `step`
 * (after = 0) or after it (after = 1). */
struct copy {
	int src, dst;		/* values, then buffers in the plan */
	int32_t step;
	int after;
	int phase;		/* at one point, phase 0 copies run first:
				   they save state that phase 1 overwrites */
};

/* A step of the flattened schedule: one instruction of a program
 * computation. */
struct step {
	int comp, instr;
};

/* A while loop's span of steps: its condition and body, then itself. */
struct loop {
	int32_t start, end;	/* its first step; the while's step */
	int32_t cond_last;	/* the condition's last step; -1 when the
				   condition or body runs from another site */
	int parent;		/* the enclosing loop, or -1 */
	int body;		/* the body computation */
};

/* The facts the analyses fill in about one module. */
struct prog {
	struct pool *pool;
	struct diags *ds;
	const struct module *m;
	struct options opt;
	int *kind;		/* COMP_* per computation */
	int **time;		/* time[c][i]: the step of instruction i, or -1 */
	int **order;		/* order[c]: instruction indices in the order
				   they run; NULL (or order[c] NULL): text */
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
	int nseg, segcap;
	struct seg *seg;	/* every value's spans (liveness.c) */
	struct segset *sets;	/* per union-find root: the spans of its
				   values, by start (sets.c) */
	int setcap;
	int ***phi;		/* phi[c][i]: a while's state values, per node */
	int njoin, joincap;
	struct join *joins;
	int ncopy, copycap;
	int nalias, nalias_kept;	/* input_output_alias entries, and
					   those the plan keeps */
	struct copy *copies;
	int *buf_of;		/* value -> buffer index in the plan */
	int *slot_of;		/* value -> its slot in an unrolled stream's
				   block, or -1 (dbuf.c) */
	struct layouts *layouts;	/* buffers.c: each laid-out shape once */
	int trial;		/* planned only as far as the peak (order.c's
				   trials that are not kept): buffers get no
				   laid-out shape, the plan no positions or
				   step names */
};

/* prog.c: the nodes of a shape, and values in struct prog.
 * Number of nodes of a shape in preorder (1 for an array). */
int shape_nodes(const struct shape *s);
/* The node index of element i of the tuple at node n of shape s. */
int shape_child(const struct shape *s, int i);

int prog_find(struct prog *p, int v);
/* A new value held at `node` of (c,i)'s output; returns its id. */
int prog_new_value(struct prog *p, int c, int i, int node,
		   const struct shape *s, int flags);
void prog_union(struct prog *p, int a, int b);
/* The value at a node of an instruction's output. */
int prog_val(const struct prog *p, int c, int i, int node);

/* Does the instruction's opcode name end with tail ("-start", "-done")? */
int op_name_ends(const struct instr *in, const char *tail);
int permute_in_place(const struct instr *in);

/* rules.c: the one table of what an instruction does with buffers (XLA's
 * dataflow and alias analysis; doc/semantics.md).  value_rule: which
 * values it defines and which it forwards: all new (R_DEFINE); its
 * operand 0 whole (R_FORWARD: bitcast, opt-barrier, add-dependency,
 * domain, all-reduce-done); element *elem of operand 0 (R_ELEMENT:
 * get-tuple-element, copy-done {0}, async-done, all-gather-done and
 * collective-permute-done {1}); and the special cases. */
enum {
	R_DEFINE, R_FORWARD, R_ELEMENT, R_PARAM, R_CONST, R_TUPLE,
	R_SHALLOW_COPY, R_WHILE,
	R_CALL, R_CONDITIONAL, R_COPY_START, R_UPDATE, R_SEND, R_RECV_DONE,
	R_START
};
int value_rule(const struct instr *in, int64_t *elem);
/* Does an async-start's computation return an operand's bytes on every
 * path, as they are or updated in place? */
int start_writes_over(const struct module *m, const struct instr *in);
/* Does the instruction run its called computations as program steps
 * (while, conditional, call), rather than inside one kernel? */
int runs_program(const struct instr *in);

/* The preorder node at shape index idx[0 .. n) of s, or -1. */
int shape_node_at(const struct shape *s, const int64_t *idx, int n);
/* The array at preorder node `node` of s, or NULL (a tuple, or none). */
const struct shape *shape_array_at(const struct shape *s, int node);

/* The computation named by an instruction's attribute, or -1. */
int called_comp(const struct module *m, const struct instr *in,
		const char *key);

/* flatten.c: clones computations run from more than one call site (a
 * transform of the module, made once before planning). */
int flatten_calls(struct pool *pool, struct diags *ds, struct module *m);
/* order.c: the order each program computation runs in: the text order,
 * or the lowest-peak one of several memory-aware orders (XLA's
 * hlo_memory_scheduler), each planned by `plan` (the driver's
 * plan_buffers, with no driver_opts) as the real run would.  Fills
 * p->order and the plan's schedule facts; 0, or -1 with diagnostics in
 * p->ds.  With keep, the chosen candidate's trial is the real run: p and
 * pl are as `plan` leaves them, and it returns 1. */
struct driver_opts;
int fill_order(struct prog *p, struct plan *pl,
	       int (*plan)(struct prog *, struct plan *,
			   const struct driver_opts *), int keep);
/* When fill_order had one order only, it tried none: the peak is that
 * of the plan planned with it, which score_order fills in once the driver
 * has planned the buffers. */
void score_order(struct prog *p, struct plan *pl);
/* schedule.c: which computations run as program steps, and the flattened
 * schedule of their instructions (XLA's HloLiveRange order); 0, or -1
 * with diagnostics in p->ds. */
int fill_schedule(struct prog *p);
/* values.c: values, forwarding, and the sharing the model forces; 0, or
 * -1 with diagnostics in p->ds. */
int fill_values(struct prog *p);
/* rules.c: may output node `node` of `in` be written over node `knode`
 * of operand k while the op reads it?  IP_MUST: the kernel updates it in
 * place (dynamic-update-slice, scatter, their fusions,
 * output_to_operand_aliasing at any index), so they share a buffer or the
 * runtime copies the operand in first; IP_MAY: it may (elementwise over
 * an operand laid out alike; a loop or input fusion that reads it
 * elementwise on the way to that output; NCCL's all-reduce: XLA's
 * CanShareOperandBufferWithUser with the GPU backend's hints). */
enum { IP_NONE, IP_MAY, IP_MUST };
int in_place_kind(const struct prog *p, const struct comp *c,
		  const struct instr *in, int k, int knode, int node);
/* in_place_kind == IP_MUST, without looking for what may share. */
int in_place_must(const struct prog *p, const struct comp *c,
		  const struct instr *in, int k, int knode, int node);
/* Must output node `node` of custom-call in be written over operand k's
 * node knode (its output_to_operand_aliasing), though on the TPU no buffer
 * can hold both (tiles that place elements apart, sizes that differ)? */
int must_unmet(const struct prog *p, const struct comp *c,
	       const struct instr *in, int k, int knode, int node);
/* Does value v hold an entry parameter's bytes that must survive the call
 * (not donated by input_output_alias, and no --reuse-params)? */
int param_survives(const struct prog *p, int v);
/* The slots double buffering wants for instruction i of c, or 0; dep[]
 * has a null per computation, filled on need (dbuf.c). */
int wanted_slots(struct prog *p, int c, int i, const char **dep);
/* liveness.c: the spans of every value, and each join's hand-over point. */
void fill_liveness(struct prog *p);
/* sets.c: the sets of values that share a buffer, with their spans.  Two
 * sets may join when no two of their spans overlap, but where one value
 * hands over to the other: a join's source to its destination, or an
 * operand to the output written in place over it. */
struct segset {
	struct seg *s;
	int64_t *top;		/* top[k]: the latest end among s[0..k] */
	int n, cap;
};
void sets_init(struct prog *p);
int sets_conflict(struct prog *p, int a, int b);
/* Many tests against one set a (colocate.c): sets_conflict's answer,
 * with a's spans indexed by step over [lo, hi] (its hull) in ix, built
 * on the first test and again when a's set changes.  Start from
 * {.root = -1, .lo = lo, .hi = hi}. */
struct set_index {
	int root, n, cap;	/* the set indexed, its spans then */
	const struct seg *s;
	int32_t lo, hi, width;	/* steps covered, steps per bucket */
	int *last;		/* per bucket: the last span starting by its
				   last point, or -1 */
	int nsolid;
	int32_t *solid;		/* runs of steps of sure conflict: first,
				   last */
};
int sets_conflict_indexed(struct prog *p, struct set_index *ix, int a, int b);
/* A shortcut to that answer: the steps of root b's widest span that one
 * test can show in conflict (sets_sure_steps; 0: it has none); and that
 * test, 1 for a conflict with a, 0 for no answer. */
int sets_sure_steps(const struct prog *p, int b, int32_t *t0, int32_t *t1);
void sets_solid(struct prog *p, struct set_index *ix, int a);

/* Does a run of ix's solid steps meet steps [t0, t1]? */
static inline int
sets_hits_runs(const struct set_index *ix, int32_t t0, int32_t t1)
{
	int lo = 0, hi = ix->nsolid - 1, at = -1;

	while (lo <= hi) {	/* the last run starting by t1 */
		int mid = lo + (hi - lo) / 2;

		if (ix->solid[2 * mid] <= t1) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return at >= 0 && ix->solid[2 * at + 1] >= t0;
}

static inline int
sets_sure_conflict(struct prog *p, struct set_index *ix, int a, int32_t t0,
		   int32_t t1)
{
	if (!ix->solid)
		sets_solid(p, ix, a);
	return sets_hits_runs(ix, t0, t1);
}
void sets_union(struct prog *p, int a, int b);
/* A new span of value v (a copy that writes its set earlier). */
void sets_add(struct prog *p, int v, int64_t lo, int64_t hi);
/* A new value in a set of its own, live over [lo, hi]. */
int sets_new_value(struct prog *p, int c, int i, int node,
		   const struct shape *s, int64_t lo, int64_t hi);
/* bstart/bend: the hull of each set, in steps. */
void prog_hulls(struct prog *p);
/* copies.c: the sharing asked for, or copies where values overlap; 0, or
 * -1 with diagnostics in p->ds. */
int insert_copies(struct prog *p);
/* reuse.c: an elementwise output takes a dying operand's buffer. */
void share_reuse(struct prog *p);
/* colocate.c: temporaries inside a donated parameter's or an output's
 * buffer, where it holds nothing live (XLA's buffer assignment). */
void colocate(struct prog *p);
/* Equal shapes, as XLA's CanShareOperandBufferWithUser asks before an
 * output takes over an operand: element type, dims, layout (a missing one
 * is the default), tiles, element size and memory space. */
int same_layout(const struct shape *a, const struct shape *b);
/* buffers.c: buffers from the sets of values that share, sized for the
 * target (sizing.c), in the plan. */
void build_buffers(struct prog *p, struct plan *pl);
/* buffers.c: every buffer as laid out, slots included, within
 * PLAN_MAX_BYTES, and the buffers of each arena together within
 * PLAN_MAX_SUM, else an error at the instruction whose shape takes the
 * most; made when sizes are final, before packing adds them up.  0, or -1
 * with diagnostics in p->ds. */
int check_sizes(struct prog *p, const struct plan *pl);
/* buffers.c: after packing, each arena within PLAN_MAX_BYTES, with the
 * same error; 0 or -1. */
int check_heights(struct prog *p, const struct plan *pl);
/* A value's name: its instruction's for node 0, else "name{i,j}" with the
 * node's shape index. */
const char *value_name(struct prog *p, const struct value *v);
int64_t target_bytes(const struct options *o, const struct shape *s);
int64_t target_size(const struct options *o, const struct shape *s);
/* s with the layout the target gives it spelled out: minor_to_major, and
 * on the TPU the default tile when s names none.  s itself when nothing is
 * left implicit; tuples, tokens and opaques as they are. */
const struct shape *target_layout(struct pool *pool, const struct options *o,
				  const struct shape *s);
/* The TPU's tile for an array whose layout names none: its dimensions in
 * tile[0..2), and how many (1 or 2). */
int tpu_default_tile(const struct options *o, const struct shape *s,
		     int64_t *tile);
/* constants.c: each array a constant defines, its literal's bytes laid out
 * as its buffer is (plan.consts, const_data). */
void list_constants(struct prog *p, struct plan *pl);
/* dbuf.c: streamed buffers get k slots, live over their loop; 0, or -1
 * with diagnostics in p->ds (a --double-buffer name not found). */
int insert_double_buffers(struct prog *p, struct plan *pl);
/* assign.c: offsets in one arena per memory space; list_arenas makes the
 * (empty) arenas of the spaces in use. */
void list_arenas(struct prog *p, struct plan *pl);
void assign_offsets(struct prog *p, struct plan *pl);
/* peak.c: each arena's peak, the buffers live there (plan.h, struct
 * peak). */
void fill_peaks(struct prog *p, struct plan *pl);
/* assign.c: an arena over its space's capacity is an error naming the
 * buffers live at its peak (fill_peaks first); returns -1 then. */
int check_capacity(struct prog *p, const struct plan *pl);

/* Dumps for debugging a stage (--dump=schedule, values, live, plan). */
void dump_schedule(FILE *out, const struct prog *p);
void dump_values(FILE *out, const struct prog *p);
void dump_plan(FILE *out, const struct plan *pl);

#endif

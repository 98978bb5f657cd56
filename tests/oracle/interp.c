/* The oracle's interpreter: runs a module's program computations in the
 * plan's schedule, each output node placed by the run's mode (a fresh
 * allocation per value, or its buffer in the arena with the plan's copies
 * made where the plan says), and kernels (reducers, fusions) in storage of
 * their own, as a device runs a kernel. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/contract.h"
#include "tests/oracle/exec.h"
#include "tests/oracle/sched.h"

/* DISPATCH: what running one instruction costs in element operations
 * beyond its elements, so that a loop of small steps (or one that never
 * ends) meets the budget in about the time one of big steps does. */
enum { POISON = 0xA5, MAXDEPTH = 256, STUBS_LISTED = 4096, DISPATCH = 64 };
#define TABLE_MAGIC UINT64_C(0x7AB1E00000000000)
#define DEFAULT_BUDGET INT64_C(2000000000)

struct frame {
	unsigned char ***addr;		/* per instruction: output nodes */
	unsigned char ****arg;		/* per instruction: operands' nodes */
	const struct shape ***as;	/* per instruction: operands' shapes */
	char **defs;			/* per instruction: nodes it defines */
	unsigned char ***scratch;	/* a kernel's storage per node */
	int64_t *runs;			/* per instruction: times run */
	uint64_t *inflight;		/* per async start: its operands'
					   hash */
	int **alias;			/* per instruction: per output node,
					   the operand node it updates in
					   place (k << 16 | j), or -1; NULL
					   row: none */
	char *aliased;			/* ... worked out for it */
	int busy;
};

struct interp {
	const struct module *m;
	const struct plan *pl;
	int mode, fill_elided, data_only, branch, params_survive;
	struct interp_opts o;	/* as given: arena0 and param */
	uint64_t *param_hash;	/* per entry parameter: its bytes' hash */
	FILE *trace;
	int64_t work, budget;
	uint64_t rng, seed;
	struct sched s;		/* the plan's positions, steps and copies */
	int **text;		/* ... the reference run's: text order, each
				   operand first */
	const struct instr *stubbed[STUBS_LISTED];	/* run as stubs */
	int nstubbed, stubs;
	int *bufarena;		/* per buffer: its arena, or -1 */
	int *slotcomp;		/* per slotted buffer: the loop body its
				   values are made in, or -1 */
	int64_t *iter_of;	/* per loop body: its iteration now */
	unsigned char **valmem;	/* reference: per position */
	unsigned char **arena;	/* planned: per arena */
	unsigned char **own;	/* planned: per buffer out of the arena */
	struct frame *frames;
	unsigned char **callroot;	/* the root a call forwards */
	int64_t iter[MAXDEPTH];
	int depth;
	void **mem;
	int nmem, capmem;
	jmp_buf jb;
	int status;
	char *msg;
	size_t msglen;
};

_Noreturn void
interp_fail(struct interp *st, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->msg, st->msglen, fmt, ap);
	va_end(ap);
	st->status = status;
	longjmp(st->jb, 1);
}

void
interp_work(struct interp *st, int64_t n)
{
	st->work += n;
	if (st->work > st->budget)
		interp_fail(st, INTERP_LIMIT, "over the work budget of %lld "
			    "element operations", (long long)st->budget);
}

/* ---- memory: everything the run allocates goes when it ends ------------- */

static void *
st_alloc(struct interp *st, size_t n)
{
	void *p;

	if (st->nmem == st->capmem) {
		int cap = st->capmem ? 2 * st->capmem : 256;
		void **m = realloc(st->mem, sizeof(void *) * (size_t)cap);

		if (!m)
			interp_fail(st, INTERP_ERROR, "out of memory");
		st->mem = m;
		st->capmem = cap;
	}
	p = calloc(1, n ? n : 1);
	if (!p)
		interp_fail(st, INTERP_ERROR, "out of memory (%zu bytes)", n);
	st->mem[st->nmem++] = p;
	return p;
}

void *
interp_alloc(struct interp *st, size_t n)
{
	return st_alloc(st, n);
}

/* Frees p early; the latest allocations are found first. */
void
interp_release(struct interp *st, void *p)
{
	for (int k = st->nmem - 1; k >= 0; k--)
		if (st->mem[k] == p) {
			free(p);
			st->mem[k] = st->mem[--st->nmem];
			return;
		}
}

static unsigned char *
poisoned(struct interp *st, int64_t n)
{
	unsigned char *p = st_alloc(st, (size_t)n);

	memset(p, POISON, (size_t)n);
	return p;
}

static void
st_free(struct interp *st)
{
	for (int k = 0; k < st->nmem; k++)
		free(st->mem[k]);
	free(st->mem);
}

/* ---- tuple index tables: a signature per element, checked on use -------- */

static uint64_t
table_entry(const struct shape *s, int e)
{
	return TABLE_MAGIC ^ (sched_shape_hash(s) << 16 & 0x0fffffffffff0000u) ^
	       (uint64_t)e;
}

static void
write_table(unsigned char *p, const struct shape *s)
{
	for (int e = 0; e < s->nelem; e++) {
		uint64_t v = table_entry(s, e);

		memcpy(p + 8 * e, &v, 8);
	}
}

static void
check_table(struct interp *st, const unsigned char *p, const struct shape *s,
	    int e, const char *who)
{
	uint64_t v;

	memcpy(&v, p + 8 * e, 8);
	if (v != table_entry(s, e))
		interp_fail(st, INTERP_DIFF, "%s reads element %d of a tuple "
			    "whose index table was overwritten (0x%016llx)",
			    who, e, (unsigned long long)v);
}

/* ---- placement ---------------------------------------------------------- */

static int64_t
cur_iter(const struct interp *st)
{
	return st->depth > 0 ? st->iter[st->depth - 1] : 0;
}

/* Buffer b's address in the planned run: its slot, as the position says
 * (slot >= 0: an unrolled loop's), or the iteration's (slot < 0) of the
 * loop whose body makes its values (not the innermost loop: a slotted
 * fetch may be the state of a loop inside its own). */
static unsigned char *
buffer_at(struct interp *st, int b, int slot, int64_t bytes, const char *who)
{
	const struct buffer *bf = &st->pl->bufs[b];
	int64_t room = bf->slots > 1 ? bf->stride : bf->size;
	unsigned char *base;

	if (bytes > room)
		interp_fail(st, INTERP_DIFF, "%s: %lld bytes do not fit "
			    "buffer '%s' (%lld bytes)", who, (long long)bytes,
			    bf->name, (long long)room);
	if (bf->in_arena) {
		base = st->arena[st->bufarena[b]] + bf->offset;
	} else {
		if (!st->own[b])
			st->own[b] = poisoned(st, bf->size);
		base = st->own[b];
	}
	if (bf->slots > 1 && slot < 0)
		slot = (int)((st->slotcomp[b] >= 0 ?
			      st->iter_of[st->slotcomp[b]] : cur_iter(st)) %
			     bf->slots);
	if (bf->slots > 1)
		base += slot % bf->slots * bf->stride;
	return base;
}

/* Where the value defined at position pos lives in this run. */
static unsigned char *
define_node(struct interp *st, int pos, const struct shape *s,
	    const char *who)
{
	int64_t bytes = node_bytes(s);

	if (st->mode == INTERP_PLANNED)
		return buffer_at(st, st->pl->pos[pos].buf,
				 st->pl->pos[pos].slot, bytes, who);
	if (!st->valmem[pos])
		st->valmem[pos] = poisoned(st, bytes);
	return st->valmem[pos];
}

static unsigned char *
scratch(struct interp *st, int c, int i, int node, const struct shape *s)
{
	struct frame *f = &st->frames[c];

	if (!f->scratch)
		f->scratch = st_alloc(st, sizeof(void *) *
				      (size_t)st->m->comps[c].ninstr);
	if (!f->scratch[i])
		f->scratch[i] = st_alloc(st, sizeof(void *) * (size_t)
					 shape_nodes(&st->m->comps[c]
						     .instrs[i].shape));
	if (!f->scratch[i][node])
		f->scratch[i][node] = poisoned(st, node_bytes(s));
	return f->scratch[i][node];
}

static int
opcode(const struct instr *in)
{
	return in->op ? in->op->op : OP_OTHER;
}

/* The address node `node` of (c,i)'s output forwards from, or NULL when
 * the instruction defines that node: XLA's dataflow, from the IR alone
 * (contract.c); a call forwards its callee's root. */
static unsigned char *
forwarded(struct interp *st, int c, int i, int node, unsigned char ***args)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	int k, j;

	switch (opcode(in)) {
	case OP_PARAMETER:
		return c == st->m->entry ? NULL : args[in->param][node];
	case OP_CALL:
		return st->callroot[node];
	default:
		if (!contract_forward(in, (const struct shape *const *)
				      st->frames[c].as[i], node, &k, &j))
			return NULL;
		return st->frames[c].arg[i][k][j];
	}
}

static const char *
buf_name(const struct interp *st, int c, int i, int node)
{
	if (!st->s.posbase[c] || st->mode != INTERP_PLANNED)
		return "-";
	return st->pl->bufs[st->pl->pos[st->s.posbase[c][i] + node].buf].name;
}

/* In a program computation the plan lists every node: whether it defines
 * a value (it must agree with XLA's dataflow for an array; an index
 * table is the plan's to place), and (planned run) where a forwarded
 * value must already be.  *defines: whether the op writes the node. */
static unsigned char *
bind_planned(struct interp *st, int c, int i, int node, unsigned char *src,
	     char *defines)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	int pos = st->s.posbase[c][i] + node;
	const struct shape *s = node_shape(&in->shape, node);
	int plan_defines = !!st->pl->pos[pos].defines;
	unsigned char *at;

	if (st->mode != INTERP_PLANNED)
		return src ? src : define_node(st, pos, s, in->name);
	if ((src == NULL) != plan_defines && !shape_is_tuple(s))
		interp_fail(st, INTERP_DIFF, "'%s' node %d: the plan says it "
			    "%s a value, XLA's dataflow that it %s", in->name,
			    node, plan_defines ? "defines" : "forwards",
			    src ? "forwards" : "defines");
	*defines = (char)plan_defines;
	if (plan_defines)
		return define_node(st, pos, s, in->name);
	/* Read where the plan says the value is: if it is not there, what
	 * reads it sees the difference (a forward that nothing reads is no
	 * use, as in XLA's live ranges and the verifier).  A done's arrays
	 * are its start's {1} itself (XLA): no copy can stand in. */
	at = buffer_at(st, st->pl->pos[pos].buf, st->pl->pos[pos].slot,
		       node_bytes(s), in->name);
	if (src && at != src && contract_is_done(in) && !shape_is_tuple(s))
		interp_fail(st, INTERP_DIFF, "'%s' node %d is its start's "
			    "bytes (XLA), but the plan puts it in buffer '%s', "
			    "elsewhere", in->name, node,
			    st->pl->bufs[st->pl->pos[pos].buf].name);
	return at;
}

static void
bind(struct interp *st, int c, int i, unsigned char ***args)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->frames[c];
	int n = shape_nodes(&in->shape);

	for (int node = 0; node < n; node++) {
		unsigned char *src = forwarded(st, c, i, node, args);

		f->defs[i][node] = !src;
		if (st->s.posbase[c])
			src = bind_planned(st, c, i, node, src,
					   &f->defs[i][node]);
		else if (!src)
			src = scratch(st, c, i, node,
				      node_shape(&in->shape, node));
		f->addr[i][node] = src;
	}
}

/* ---- values moved by the semantics (the reference run's while and
 * conditional, fusion results) ------------------------------------------ */

static void
move_tree(struct interp *st, unsigned char **dst, unsigned char **src,
	  const struct shape *s)
{
	int n = shape_nodes(s);
	int64_t total = 0, off = 0;
	unsigned char *tmp;

	for (int node = 0; node < n; node++)
		if (!shape_is_tuple(node_shape(s, node)))
			total += node_bytes(node_shape(s, node));
	tmp = malloc((size_t)total + 1);
	if (!tmp)
		interp_fail(st, INTERP_ERROR, "out of memory");
	for (int node = 0; node < n; node++) {
		const struct shape *ns = node_shape(s, node);

		if (!shape_is_tuple(ns)) {
			memcpy(tmp + off, src[node], (size_t)node_bytes(ns));
			off += node_bytes(ns);
		}
	}
	off = 0;
	for (int node = 0; node < n; node++) {
		const struct shape *ns = node_shape(s, node);

		if (shape_is_tuple(ns)) {
			write_table(dst[node], ns);
		} else {
			memcpy(dst[node], tmp + off, (size_t)node_bytes(ns));
			off += node_bytes(ns);
		}
	}
	free(tmp);
}

/* ---- the plan's copies -------------------------------------------------- */

static void
do_copy(struct interp *st, int k)
{
	const struct plan_copy *pc = &st->pl->copies[k];
	unsigned char *s = buffer_at(st, pc->src, -1, pc->bytes,
				     "a copy's source");
	unsigned char *d = buffer_at(st, pc->dst, -1, pc->bytes,
				     "a copy's destination");

	memmove(d, s, (size_t)pc->bytes);
}

/* The copies at step t made before it (after = 0) or after it. */
static void
step_copies(struct interp *st, int t, int after)
{
	if (st->mode != INTERP_PLANNED)
		return;
	for (int j = st->s.cfirst[t]; j < st->s.cfirst[t + 1]; j++) {
		int k = st->s.cidx[j];

		if (st->pl->copies[k].after == after && st->s.entry_of[k] < 0)
			do_copy(st, k);
	}
}

/* A loop's entry: its state takes the initial values. */
static void
entry_copies(struct interp *st, int pos)
{
	for (int k = 0; k < st->pl->ncopy; k++)
		if (st->s.entry_of[k] == pos)
			do_copy(st, k);
}

/* ---- counting runs and stubs -------------------------------------------- */

int64_t
interp_runs(struct interp *st, int c, int i)
{
	struct frame *f = &st->frames[c];

	if (!f->runs)
		f->runs = st_alloc(st, sizeof(int64_t) *
				   (size_t)(st->m->comps[c].ninstr + 1));
	return f->runs[i]++;
}

void
interp_stub(struct interp *st, const struct instr *in)
{
	for (int k = 0; k < st->nstubbed; k++)
		if (st->stubbed[k] == in)
			return;
	if (st->nstubbed == STUBS_LISTED)
		return;
	st->stubbed[st->nstubbed++] = in;
	st->stubs++;
}

/* ---- async pairs: operands intact from start to done -------------------- */

static uint64_t
hash_args(struct interp *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	uint64_t h = 1469598103934665603u;

	for (int k = 0; k < in->nops; k++) {
		const struct shape *s = st->frames[c].as[i][k];

		for (int j = 0; j < shape_nodes(s); j++) {
			const unsigned char *p = st->frames[c].arg[i][k][j];
			int64_t n = shape_is_tuple(node_shape(s, j)) ? 0 :
				    node_bytes(node_shape(s, j));

			for (int64_t b = 0; b < n; b++)
				h = (h ^ p[b]) * 1099511628211u;
		}
	}
	return h;
}

/* The planned run: a start notes its operands once it ran (after = 1);
 * its done (through any updates) finds them unchanged before it runs. */
static void
inflight(struct interp *st, int c, int i, int after)
{
	const struct comp *cp = &st->m->comps[c];
	struct frame *f = &st->frames[c];
	int j;

	if (st->mode != INTERP_PLANNED || !st->s.posbase[c] || st->data_only)
		return;
	if (!f->inflight)
		f->inflight = st_alloc(st, sizeof(uint64_t) *
				       (size_t)(cp->ninstr + 1));
	if (sched_is_start(&cp->instrs[i])) {
		if (after)
			f->inflight[i] = hash_args(st, c, i);
		return;
	}
	if (after || !sched_is_done(&cp->instrs[i]) || cp->instrs[i].nops < 1)
		return;
	for (j = cp->instrs[i].ops[0]; opcode(&cp->instrs[j]) ==
	     OP_ASYNC_UPDATE && cp->instrs[j].nops > 0;)
		j = cp->instrs[j].ops[0];
	if (sched_is_start(&cp->instrs[j]) &&
	    hash_args(st, c, j) != f->inflight[j])
		interp_fail(st, INTERP_DIFF, "'%s': an operand of '%s' "
			    "changed while it was in flight",
			    cp->instrs[i].name, cp->instrs[j].name);
}

/* ---- running computations ----------------------------------------------- */

static unsigned char **run_comp(struct interp *st, int c,
				unsigned char ***args);

unsigned char **
interp_kernel(struct interp *st, int c, unsigned char ***args)
{
	if (st->s.posbase[c])
		interp_fail(st, INTERP_SKIP, "'%s' runs both as a kernel and "
			    "as program steps", st->m->comps[c].name);
	return run_comp(st, c, args);
}

static void
run_while(struct interp *st, int c, int i, struct op *o)
{
	const struct instr *in = o->in;
	int cond = sched_callee(st->m, in, "condition", 0);
	int body = sched_callee(st->m, in, "body", 1);
	unsigned char **state[1] = {o->out}, **r;
	int moves = st->mode == INTERP_REF || !st->s.posbase[c];

	/* The data moves as HLO says in the reference, and in a kernel (no
	 * plan inside it: a loop in an async computation); in the plan's
	 * steps it stays in the buffers the plan shares. */
	if (moves)
		move_tree(st, o->out, o->arg[0], &in->shape);
	else
		entry_copies(st, st->s.posbase[c][i]);
	if (st->depth == MAXDEPTH)
		interp_fail(st, INTERP_SKIP, "loops nested over %d deep",
			    MAXDEPTH);
	st->iter[st->depth++] = 0;
	for (;;) {
		st->iter_of[cond] = st->iter_of[body] = st->iter[st->depth - 1];
		r = run_comp(st, cond, state);
		if (!num_get(DT_PRED, r[0], 0).u)
			break;
		r = run_comp(st, body, state);
		if (moves)
			move_tree(st, o->out, r, &in->shape);
		st->iter[st->depth - 1]++;
		interp_work(st, 1);
	}
	st->depth--;
}

/* The branch a conditional takes: by its operand, or by the pass. */
static int
branch_index(struct interp *st, struct op *o, int nb)
{
	int64_t x;

	if (st->branch >= 0)
		return st->branch < nb ? st->branch : nb - 1;
	if (o->as[0]->type == DT_PRED)
		return num_get(DT_PRED, o->arg[0][0], 0).u ? 0 : 1;
	x = num_get(o->as[0]->type, o->arg[0][0], 0).s;
	return x < 0 || x >= nb ? nb - 1 : (int)x;
}

static void
run_conditional(struct interp *st, struct op *o)
{
	const struct instr *in = o->in;
	int pred = o->as[0]->type == DT_PRED, b, k;
	unsigned char **arg[1], **r;

	k = branch_index(st, o, pred ? 2 : in->ncall);
	if (pred)
		b = k == 0 ? sched_callee(st->m, in, "true_computation", 0) :
			sched_callee(st->m, in, "false_computation", 1);
	else
		b = in->calls[k];
	arg[0] = o->arg[k + 1];
	r = run_comp(st, b, arg);
	if (st->mode == INTERP_REF || !st->s.posbase[o->c])
		move_tree(st, o->out, r, &in->shape);
}

static void
run_fusion(struct interp *st, struct op *o)
{
	int d = sched_callee(st->m, o->in, "calls", 0);

	move_tree(st, o->out, interp_kernel(st, d, o->arg), &o->in->shape);
}

/* May in write output node `node` at the very place of operand k's node
 * j, which it reads?  What XLA lets share (contract.c), all-reduce as
 * NCCL runs it, a dynamic-update-slice over an update as big as it. */
static int
in_place_ok(const struct module *m, const struct instr *in,
	    const struct shape *const *as, int k, int j, int node, int64_t pb,
	    int64_t qb)
{
	if (pb != qb)
		return 0;
	if (contract_may_share(m, in, as, node, k, j))
		return 1;
	return opcode(in) == OP_ALL_REDUCE || opcode(in) == OP_DUS;
}

/* The planned run: an op's output may not overlap what it reads, but for
 * the ops in place above. */
static void
check_overlap(struct interp *st, int c, int i, struct op *o)
{
	const struct instr *in = o->in;
	int n = shape_nodes(&in->shape);

	if (st->mode != INTERP_PLANNED || !st->s.posbase[c] || st->data_only)
		return;
	for (int node = 0; node < n; node++) {
		const unsigned char *p = o->out[node];
		int64_t pb = node_bytes(node_shape(&in->shape, node));

		if (!st->frames[c].defs[i][node])
			continue;	/* forwarded: it is the operand */
		for (int k = 0; k < in->nops; k++) {
			const struct shape *s = o->as[k];

			for (int j = 0; j < shape_nodes(s); j++) {
				const unsigned char *q = o->arg[k][j];
				int64_t qb = node_bytes(node_shape(s, j));

				if (!pb || !qb || p + pb <= q || q + qb <= p)
					continue;
				if (p == q && in_place_ok(st->m, in,
				    (const struct shape *const *)o->as, k, j,
				    node, pb, qb))
					continue;
				interp_fail(st, INTERP_DIFF, "'%s' writes its "
					    "buffer '%s' over operand %d "
					    "(%s), which it reads", in->name,
					    buf_name(st, c, i, node), k,
					    st->m->comps[c].instrs[in->ops[k]]
						    .name);
			}
		}
	}
}

/* Instruction (c,i)'s in-place pairs (contract.c), worked out once: per
 * output node, k << 16 | j, or -1; NULL when it has none. */
static int *
alias_row(struct interp *st, int c, int i)
{
	struct frame *f = &st->frames[c];
	const struct instr *in = &st->m->comps[c].instrs[i];
	int n = shape_nodes(&in->shape), any = 0, k, j, *row;

	if (!f->aliased) {
		f->aliased = st_alloc(st, (size_t)st->m->comps[c].ninstr + 1);
		f->alias = st_alloc(st, sizeof(int *) *
				    (size_t)(st->m->comps[c].ninstr + 1));
	}
	if (f->aliased[i])
		return f->alias[i];
	f->aliased[i] = 1;
	row = st_alloc(st, sizeof(int) * (size_t)n);
	for (int node = 0; node < n; node++) {
		row[node] = -1;
		if (contract_in_place(st->m, in, (const struct shape *const *)
				      f->as[i], node, &k, &j) &&
		    k < in->nops && j < shape_nodes(f->as[i][k]) &&
		    k < 1 << 14 && j < 1 << 16 &&
		    (!st->pl || st->pl->target != TARGET_TPU ||
		     shape_equal(node_shape(&in->shape, node),
				 node_shape(f->as[i][k], j)))) {
			/* (on the TPU a bitcast between shapes tiled apart
			   moves elements: no kernel runs in place across
			   it, and the plan keeps them apart) */
			row[node] = k << 16 | j;
			any = 1;
		}
	}
	return f->alias[i] = any ? row : NULL;
}

/* XLA's kernel contract in the planned run: an op in place reads the
 * operand it updates from its output's buffer, which must already hold
 * it (the plan shares the buffer or copies it there first).  Returns the
 * operands' nodes as the op reads them: the frame's, or a copy (freed by
 * the caller) with those operands' nodes moved to the output's. */
static unsigned char ***
in_place_args(struct interp *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->frames[c];
	int *row, n = shape_nodes(&in->shape);
	unsigned char ***arg;

	if (st->mode != INTERP_PLANNED || !st->s.posbase[c] ||
	    !(row = alias_row(st, c, i)))
		return f->arg[i];
	arg = st_alloc(st, sizeof(void *) * (size_t)(in->nops + 1));
	memcpy(arg, f->arg[i], sizeof(void *) * (size_t)in->nops);
	for (int node = 0; node < n; node++) {
		int k = row[node] < 0 ? -1 : row[node] >> 16;

		if (k < 0)
			continue;
		if (arg[k] == f->arg[i][k]) {
			size_t sz = sizeof(void *) *
				    (size_t)shape_nodes(f->as[i][k]);

			arg[k] = st_alloc(st, sz);
			memcpy(arg[k], f->arg[i][k], sz);
		}
		arg[k][row[node] & 0xffff] = f->addr[i][node];
	}
	return arg;
}

static void
free_args(struct interp *st, int c, int i, unsigned char ***arg)
{
	const struct instr *in = &st->m->comps[c].instrs[i];

	if (arg == st->frames[c].arg[i])
		return;
	for (int k = 0; k < in->nops; k++)
		if (arg[k] != st->frames[c].arg[i][k])
			interp_release(st, arg[k]);
	interp_release(st, arg);
}

static void fill_random(struct interp *st, const struct shape *s,
			unsigned char *p);
static uint64_t rng_next(struct interp *st);

/* An elided constant's data: random, from its name, the same in every run
 * and every schedule. */
static void
fill_elided(struct interp *st, struct op *o)
{
	uint64_t saved = st->rng, h = st->seed ^ 0x5851f42d4c957f2du;
	const struct shape *s = &o->in->shape;

	for (const char *p = o->in->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	st->rng = h;
	for (int node = 0; node < shape_nodes(s); node++)
		if (!shape_is_tuple(node_shape(s, node)))
			fill_random(st, node_shape(s, node), o->out[node]);
	st->rng = saved;
}

/* An asynchronous copy: made at its start; at its done the destination
 * must still equal the source (neither was written while in flight). */
static void
run_copy_start(struct op *o)
{
	const struct shape *s = &o->in->shape;
	int ctx = shape_child(s, 2);

	memmove(o->out[1], o->arg[0][0], (size_t)node_bytes(&s->elems[0]));
	memset(o->out[ctx], 0, (size_t)node_bytes(&s->elems[2]));
}

static void
run_copy_done(struct interp *st, struct op *o)
{
	const struct shape *s = o->as[0];

	if (memcmp(o->arg[0][1], o->arg[0][2],
		   (size_t)node_bytes(&s->elems[0])))
		interp_fail(st, INTERP_DIFF, "'%s': the source or the "
			    "destination of an asynchronous copy changed "
			    "while it was in flight", o->in->name);
}

/* A done whose arrays are all its start's (XLA): the collective wrote
 * them at the start; the done only waits. */
static int
writes_nothing(struct interp *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];

	if (!contract_is_done(in))
		return 0;
	for (int node = 0; node < shape_nodes(&in->shape); node++)
		if (st->frames[c].defs[i][node] &&
		    !shape_is_tuple(node_shape(&in->shape, node)))
			return 0;
	return 1;
}

static void
run_op(struct interp *st, int c, int i, struct op *o)
{
	char why[256];

	switch (opcode(o->in)) {
	case OP_ASYNC_UPDATE:	/* one that binds late runs (stubs.c) */
		if (contract_binds_late(o->in, (const struct shape *const *)
					o->as))
			break;
		return;
	case OP_PARAMETER: case OP_TUPLE: case OP_BITCAST:
	case OP_OPT_BARRIER: case OP_CALL: case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
		return;
	case OP_COPY:	/* of a tuple: a new table (written as a tuple's) */
		if (shape_is_tuple(&o->in->shape))
			return;
		break;
	case OP_COPY_START:
		check_overlap(st, c, i, o);
		run_copy_start(o);
		return;
	case OP_COPY_DONE: run_copy_done(st, o); return;
	case OP_GTE:
		check_table(st, o->arg[0][0], o->as[0], (int)o->in->index,
			    o->in->name);
		return;
	case OP_CONSTANT:
		switch (literal_write(o->in, o->out, why, sizeof why)) {
		case 0: return;
		case -2: if (st->fill_elided) {
				fill_elided(st, o);
				return;
			}
			/* fall through */
		default:
			interp_fail(st, INTERP_SKIP, "'%s': %s", o->in->name,
				    why);
		}
	case OP_WHILE: run_while(st, c, i, o); return;
	case OP_CONDITIONAL: run_conditional(st, o); return;
	default: break;
	}
	if (writes_nothing(st, c, i))
		return;
	check_overlap(st, c, i, o);
	if (opcode(o->in) == OP_FUSION)
		run_fusion(st, o);
	else if (array_run(o) < 0)
		interp_fail(st, INTERP_SKIP, "unsupported op '%s'",
			    o->in->op->name);
}

/* The reference run keeps a call's result apart from its callee's values,
 * so that a computation run from two sites gives two results. */
static void
ref_call_result(struct interp *st, int c, int i)
{
	const struct shape *s = &st->m->comps[c].instrs[i].shape;
	unsigned char **out = st->frames[c].addr[i];
	int n = shape_nodes(s);
	unsigned char **own = st_alloc(st, sizeof(void *) * (size_t)n);

	for (int node = 0; node < n; node++) {
		int pos = st->s.posbase[c][i] + node;

		if (!st->valmem[pos])
			st->valmem[pos] = poisoned(st, node_bytes(
				node_shape(s, node)));
		own[node] = st->valmem[pos];
	}
	move_tree(st, own, out, s);
	memcpy(out, own, sizeof(void *) * (size_t)n);
}

static void
run_instr(struct interp *st, int c, int i, unsigned char ***args)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	struct frame *f = &st->frames[c];
	struct op o = {st, st->m, in, f->addr[i], f->arg[i], f->as[i],
		       st->mode == INTERP_PLANNED && st->s.posbase[c], c, i};
	int op = opcode(in), n = shape_nodes(&in->shape);

	interp_work(st, DISPATCH);
	if (op == OP_CALL)
		st->callroot = run_comp(st,
					sched_callee(st->m, in, "to_apply", 0),
					f->arg[i]);
	bind(st, c, i, args);
	if (op == OP_CALL && st->mode == INTERP_REF && st->s.posbase[c])
		ref_call_result(st, c, i);
	inflight(st, c, i, 0);	/* a done: before it writes */
	o.arg = in_place_args(st, c, i);
	run_op(st, c, i, &o);
	free_args(st, c, i, o.arg);
	inflight(st, c, i, 1);	/* a start: after it read */
	if (op == OP_PARAMETER || op == OP_WHILE || op == OP_CONDITIONAL ||
	    op == OP_FUSION)
		return;	/* parameters are filled; the rest move whole trees */
	for (int node = 0; node < n; node++)
		if (f->defs[i][node] &&
		    shape_is_tuple(node_shape(&in->shape, node)))
			write_table(o.out[node], node_shape(&in->shape, node));
}

/* --trace: the instruction, its step and iteration, where its output
 * lives and its first element. */
static void
trace(struct interp *st, int c, int i)
{
	const struct instr *in = &st->m->comps[c].instrs[i];
	const struct shape *s = &in->shape;
	unsigned char *p = st->frames[c].addr[i][0];
	char v[64] = "";

	if (!shape_is_tuple(s) && shape_elements(s) > 0)
		num_format(s->type, p, 0, v, sizeof v);
	fprintf(st->trace, "%s %s/%s step %d iter %lld at %s+%lld: %s\n",
		st->mode == INTERP_REF ? "ref" : "plan", st->m->comps[c].name,
		in->name, st->s.posbase[c] ? st->s.step[c][i] : -1,
		(long long)cur_iter(st), st->s.posbase[c] && st->mode ==
		INTERP_PLANNED ? buf_name(st, c, i, 0) : "-",
		st->mode == INTERP_PLANNED && st->s.posbase[c] &&
		st->pl->bufs[st->pl->pos[st->s.posbase[c][i]].buf].in_arena ?
		(long long)(p - st->arena[st->bufarena[st->pl->pos[
			st->s.posbase[c][i]].buf]]) : 0LL, v);
}

static void
run_step(struct interp *st, int c, int i, unsigned char ***args)
{
	int t = st->s.step[c][i];

	step_copies(st, t, 0);
	run_instr(st, c, i, args);
	if (st->trace)
		trace(st, c, i);
	step_copies(st, t, 1);
}

static unsigned char **
run_comp(struct interp *st, int c, unsigned char ***args)
{
	struct frame *f = &st->frames[c];
	const struct comp *cp = &st->m->comps[c];

	if (f->busy)
		interp_fail(st, INTERP_SKIP, "'%s' runs inside itself",
			    cp->name);
	f->busy = 1;
	if (st->s.posbase[c])
		for (int k = 0; k < st->s.norder[c]; k++)
			run_step(st, c, st->mode == INTERP_REF ?
				 st->text[c][k] : st->s.order[c][k], args);
	else
		for (int i = 0; i < cp->ninstr; i++)
			run_instr(st, c, i, args);
	f->busy = 0;
	return f->addr[cp->root];
}

/* ---- setting up a run --------------------------------------------------- */

static void
setup_frames(struct interp *st)
{
	const struct module *m = st->m;

	st->frames = st_alloc(st, sizeof(struct frame) * (size_t)m->ncomp);
	for (int c = 0; c < m->ncomp; c++) {
		const struct comp *cp = &m->comps[c];
		struct frame *f = &st->frames[c];
		size_t n = (size_t)cp->ninstr;

		f->addr = st_alloc(st, sizeof(void *) * n);
		f->arg = st_alloc(st, sizeof(void *) * n);
		f->as = st_alloc(st, sizeof(void *) * n);
		f->defs = st_alloc(st, sizeof(void *) * n);
		for (int i = 0; i < cp->ninstr; i++) {
			size_t nn = (size_t)shape_nodes(&cp->instrs[i].shape);

			f->addr[i] = st_alloc(st, sizeof(void *) * nn);
			f->defs[i] = st_alloc(st, nn);
		}
		for (int i = 0; i < cp->ninstr; i++) {
			const struct instr *in = &cp->instrs[i];

			f->arg[i] = st_alloc(st, sizeof(void *) *
					     (size_t)in->nops);
			f->as[i] = st_alloc(st, sizeof(void *) *
					    (size_t)in->nops);
			for (int k = 0; k < in->nops; k++) {
				f->arg[i][k] = f->addr[in->ops[k]];
				f->as[i][k] = &cp->instrs[in->ops[k]].shape;
			}
		}
	}
}

/* Computation c in text order, each instruction after its operands (an
 * iterative depth-first walk: chains may be long). */
static void
text_order(struct interp *st, int c)
{
	const struct comp *cp = &st->m->comps[c];
	char *state = st_alloc(st, (size_t)cp->ninstr + 1);
	int *stack = st_alloc(st, sizeof(int) * (size_t)(cp->ninstr + 1));
	int *out = st->text[c] = st_alloc(st, sizeof(int) *
					  (size_t)(cp->ninstr + 1));
	int n = 0, sp = 0;

	for (int i0 = 0; i0 < cp->ninstr; i0++) {
		if (!state[i0])
			stack[sp++] = i0;
		while (sp > 0) {
			int i = stack[sp - 1], k = 0;
			const struct instr *in = &cp->instrs[i];

			state[i] = state[i] ? state[i] : 1;
			while (k < in->nops && state[in->ops[k]])
				k++;
			if (state[i] == 1 && k < in->nops) {
				stack[sp++] = in->ops[k];
				continue;
			}
			if (state[i] == 1)
				out[n++] = i;
			state[i] = 2;
			sp--;
		}
	}
	interp_release(st, state);
	interp_release(st, stack);
}

static void
index_text(struct interp *st)
{
	st->text = st_alloc(st, sizeof(int *) * (size_t)st->m->ncomp);
	for (int c = 0; c < st->m->ncomp; c++)
		if (st->s.posbase[c])
			text_order(st, c);
}

static int
arena_of(const struct plan *pl, int space)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == space)
			return a;
	return -1;
}

/* Each slotted buffer's loop body: where its first value is made. */
static void
find_slot_comps(struct interp *st)
{
	const struct plan *pl = st->pl;

	st->slotcomp = st_alloc(st, sizeof(int) * (size_t)(pl->nbuf + 1));
	for (int b = 0; b < pl->nbuf; b++)
		st->slotcomp[b] = -1;
	for (int k = 0; k < pl->npos; k++) {
		const struct plan_pos *p = &pl->pos[k];

		if (p->defines && pl->bufs[p->buf].slots > 1 &&
		    st->slotcomp[p->buf] < 0)
			st->slotcomp[p->buf] = p->comp;
	}
}

/* The planned run: one poisoned arena per space; every buffer inside. */
static void
setup_arenas(struct interp *st)
{
	const struct plan *pl = st->pl;

	find_slot_comps(st);
	st->arena = st_alloc(st, sizeof(void *) * (size_t)(pl->narena + 1));
	st->own = st_alloc(st, sizeof(void *) * (size_t)(pl->nbuf + 1));
	st->bufarena = st_alloc(st, sizeof(int) * (size_t)(pl->nbuf + 1));
	for (int a = 0; a < pl->narena; a++)
		st->arena[a] = st->o.arena0 && pl->arenas[a].space == 0 ?
			       st->o.arena0 : poisoned(st, pl->arenas[a].size);
	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *bf = &pl->bufs[b];
		int a = arena_of(pl, bf->space);

		st->bufarena[b] = a;
		if (bf->slots > 1 && (bf->stride < 0 || bf->slots > bf->size ||
				      bf->stride > bf->size / bf->slots))
			interp_fail(st, INTERP_DIFF, "buffer '%s': %d slots "
				    "of %lld bytes overrun its %lld", bf->name,
				    bf->slots, (long long)bf->stride,
				    (long long)bf->size);
		if (!bf->in_arena)
			continue;
		if (a < 0 || bf->offset < 0 || bf->size < 0 ||
		    bf->offset > pl->arenas[a].size - bf->size)
			interp_fail(st, INTERP_DIFF, "buffer '%s' lies outside "
				    "its arena", bf->name);
	}
}

/* ---- parameters in, results out ----------------------------------------- */

static uint64_t
rng_next(struct interp *st)
{
	uint64_t z = (st->rng += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Random data: floats in [-1, 1], small integers, random predicates. */
static void
fill_random(struct interp *st, const struct shape *s, unsigned char *p)
{
	int64_t n = shape_elements(s);

	for (int64_t i = 0; i < n; i++) {
		uint64_t r = rng_next(st);
		union num v;

		switch (num_kind(s->type)) {
		case NK_F: v.f = (double)(r >> 11) * 0x1p-52 - 1; break;
		case NK_S: v.s = (int64_t)(r % 12) - 2; break;
		case NK_U: v.u = r % 10; break;
		case NK_C:
			v.c.re = (double)(r >> 40) * 0x1p-23 - 1;
			v.c.im = (double)(r & 0xffffff) * 0x1p-23 - 1;
			break;
		default: v.u = r >> 63; break;
		}
		num_put(s->type, p, i, v);
	}
}

/* The bytes of entry parameter k's arrays, hashed. */
static uint64_t
param_bytes(struct interp *st, int k)
{
	const struct comp *e = &st->m->comps[st->m->entry];
	const struct shape *s = &e->instrs[e->params[k]].shape;
	uint64_t h = 1469598103934665603u;

	for (int node = 0; node < shape_nodes(s); node++) {
		const unsigned char *p =
			st->frames[st->m->entry].addr[e->params[k]][node];
		int64_t n = shape_is_tuple(node_shape(s, node)) ? 0 :
			    node_bytes(node_shape(s, node));

		for (int64_t b = 0; b < n; b++)
			h = (h ^ p[b]) * 1099511628211u;
	}
	return h;
}

/* The planned run's end: every parameter not donated holds its bytes
 * (XLA's callers keep weights resident between calls). */
static void
check_params(struct interp *st)
{
	const struct comp *e = &st->m->comps[st->m->entry];

	if (st->mode != INTERP_PLANNED || !st->params_survive)
		return;
	for (int k = 0; k < e->nparam; k++)
		if (!sched_donated(st->m, k) && param_bytes(st, k) !=
		    st->param_hash[k])
			interp_fail(st, INTERP_DIFF, "entry parameter %d "
				    "('%s') was overwritten: it is not donated "
				    "(input_output_alias), so it survives the "
				    "call", k, e->instrs[e->params[k]].name);
}

static void
fill_params(struct interp *st)
{
	const struct comp *e = &st->m->comps[st->m->entry];

	for (int k = 0; k < e->nparam; k++) {
		int i = e->params[k];
		const struct shape *s = &e->instrs[i].shape;

		bind(st, st->m->entry, i, NULL);
		for (int node = 0; node < shape_nodes(s); node++) {
			const struct shape *ns = node_shape(s, node);
			unsigned char *p =
				st->frames[st->m->entry].addr[i][node];

			if (shape_is_tuple(ns))
				write_table(p, ns);
			else if (!st->o.param || !st->o.param(st->o.param_ctx,
					k, node, p, node_bytes(ns)))
				fill_random(st, ns, p);
		}
	}
	st->param_hash = st_alloc(st, sizeof(uint64_t) *
				  (size_t)(e->nparam + 1));
	for (int k = 0; k < e->nparam; k++)
		st->param_hash[k] = param_bytes(st, k);
}

static void
add_leaf(struct interp *st, struct outputs *out, const struct shape *s,
	 const unsigned char *p, const char *path)
{
	struct leaf *l;

	l = &out->leaf[out->n++];
	snprintf(l->path, sizeof l->path, "%s", path);
	l->type = s->type;
	l->rank = s->rank;
	l->dims = s->dims;
	l->bytes = shape_bytes(s);
	l->data = malloc((size_t)l->bytes + 1);
	if (!l->data)
		interp_fail(st, INTERP_ERROR, "out of memory");
	memcpy(l->data, p, (size_t)l->bytes);
}

/* The result's arrays in preorder, checking its tuples' tables. */
static void
collect(struct interp *st, unsigned char **nodes, const struct shape *s,
	int *node, const char *path, struct outputs *out)
{
	int me = (*node)++;
	char sub[64];

	if (!shape_is_tuple(s)) {
		add_leaf(st, out, s, nodes[me], path);
		return;
	}
	for (int e = 0; e < s->nelem; e++) {
		check_table(st, nodes[me], s, e, "the result");
		if (path[1] == '}')
			snprintf(sub, sizeof sub, "{%d}", e);
		else
			snprintf(sub, sizeof sub, "%.*s,%d}",
				 (int)strlen(path) - 1, path, e);
		collect(st, nodes, &s->elems[e], node, sub, out);
	}
}

/* The schedule's index takes the run's memory and stops it. */
static void *
sched_alloc(void *st, size_t n)
{
	return st_alloc(st, n);
}

static _Noreturn void
sched_fail(void *st, const char *msg)
{
	interp_fail(st, INTERP_ERROR, "%s", msg);
}

static void
run(struct interp *st, struct outputs *out)
{
	const struct shape *rs;
	unsigned char **r;
	int node = 0;

	setup_frames(st);
	sched_index(&st->s, st->m, st->pl, &(struct sched_env){st, sched_alloc,
							       sched_fail});
	st->iter_of = st_alloc(st, sizeof(int64_t) * (size_t)st->m->ncomp);
	if (st->mode == INTERP_PLANNED)
		setup_arenas(st);
	else
		index_text(st);
	if (st->mode != INTERP_PLANNED)
		st->valmem = st_alloc(st, sizeof(void *) *
				      (size_t)(st->pl->npos + 1));
	fill_params(st);
	r = run_comp(st, st->m->entry, NULL);
	check_params(st);
	rs = &st->m->comps[st->m->entry].instrs[st->m->comps[st->m->entry]
						.root].shape;
	out->leaf = calloc((size_t)shape_nodes(rs), sizeof *out->leaf);
	if (!out->leaf)
		interp_fail(st, INTERP_ERROR, "out of memory");
	collect(st, r, rs, &node, "{}", out);
	out->work = st->work;
	out->stubs = st->stubs;
}

int
interp_run(const struct module *m, const struct plan *pl,
	   const struct interp_opts *o, struct outputs *out, char *msg,
	   size_t n)
{
	struct interp *st = calloc(1, sizeof *st);
	int status;

	memset(out, 0, sizeof *out);
	if (!st) {
		snprintf(msg, n, "out of memory");
		return INTERP_ERROR;
	}
	st->m = m;
	st->pl = pl;
	st->mode = o->mode;
	st->budget = o->budget > 0 ? o->budget : DEFAULT_BUDGET;
	st->rng = st->seed = o->seed;
	st->fill_elided = o->fill_elided;
	st->data_only = o->data_only;
	st->trace = o->trace;
	st->branch = o->branch;
	st->params_survive = o->params_survive;
	st->o = *o;
	st->msg = msg;
	st->msglen = n;
	msg[0] = 0;
	if (setjmp(st->jb) == 0)
		run(st, out);
	status = st->status;
	if (status != INTERP_OK)
		interp_free(out);
	st_free(st);
	free(st);
	return status;
}

void
interp_free(struct outputs *o)
{
	for (int k = 0; o->leaf && k < o->n; k++)
		free(o->leaf[k].data);
	free(o->leaf);
	o->leaf = NULL;
	o->n = 0;
}

/* The flattened schedule: the order of each program computation (its text
 * order, or the one order.c chose), with
 * the computations an instruction runs (while condition and body, branches,
 * call) laid out just before it, as XLA's HloLiveRange does. */
#include <string.h>

#include "passes/passes.h"

int
runs_program(const struct instr *in)
{
	int op = in->op ? in->op->op : OP_OTHER;

	return op == OP_WHILE || op == OP_CONDITIONAL || op == OP_CALL;
}

static void
mark_kinds(struct prog *p, int c, int kind)
{
	const struct comp *cp = &p->m->comps[c];

	if (p->kind[c] == COMP_PROGRAM || p->kind[c] == kind)
		return;
	p->kind[c] = kind;
	for (int i = 0; i < cp->ninstr; i++) {
		const struct instr *in = &cp->instrs[i];
		int k = kind == COMP_PROGRAM && runs_program(in) ?
			COMP_PROGRAM : COMP_KERNEL;

		for (int j = 0; j < in->ncall; j++)
			mark_kinds(p, in->calls[j], k);
	}
}

/* The computations an instruction runs, in the order they execute. */
static int
program_callees(const struct prog *p, const struct instr *in, int *out)
{
	int n = 0;

	if (!runs_program(in))
		return 0;
	if (in->op->op == OP_WHILE) {
		out[n++] = called_comp(p->m, in, "condition");
		out[n++] = called_comp(p->m, in, "body");
		return n;
	}
	for (int j = 0; j < in->ncall && j < 64; j++)
		out[n++] = in->calls[j];
	return n;
}

static void layout(struct prog *p, int c, int depth);

static void
layout_callees(struct prog *p, int c, int i, int depth)
{
	int callees[64], n = program_callees(p, &p->m->comps[c].instrs[i],
					     callees);

	for (int j = 0; j < n; j++) {
		int d = callees[j];

		if (d < 0)
			continue;
		if (p->lo[d] >= 0 || p->site_comp[d] >= 0) {
			p->wide[d] = 1;	/* runs again: widened later */
			continue;
		}
		p->site_comp[d] = c;
		p->site_instr[d] = i;
		layout(p, d, depth + 1);
	}
}

/* The last step of computation d's layout (its hi before widen() runs)
 * when it was laid out from instruction i of c; else -1. */
static int32_t
laid_out_last(const struct prog *p, int d, int c, int i)
{
	if (d < 0 || p->site_comp[d] != c || p->site_instr[d] != i)
		return -1;
	return p->hi[d];
}

/* The while instruction i of c, its condition and body laid out from
 * start on; its own step comes next. */
static void
add_loop(struct prog *p, int32_t start, int c, int i)
{
	const struct instr *in = &p->m->comps[c].instrs[i];
	struct loop *l = VEC_PUSH(p->pool, p->loops, p->nloop, p->loopcap);
	int cond = called_comp(p->m, in, "condition");

	l->body = called_comp(p->m, in, "body");
	l->start = start;
	l->end = p->ntime;
	l->parent = -1;
	l->cond_last = laid_out_last(p, cond, c, i);
	if (l->cond_last < start ||
	    (l->body >= 0 && laid_out_last(p, l->body, c, i) < 0))
		l->cond_last = -1;
}

static void
layout(struct prog *p, int c, int depth)
{
	const struct comp *cp = &p->m->comps[c];

	if (depth > 1000) {
		diag_error(p->ds, cp->loc, "computations nested more than "
			   "1000 deep");
		return;
	}
	p->lo[c] = p->ntime;
	for (int k = 0; k < cp->ninstr; k++) {
		int i = p->order && p->order[c] ? p->order[c][k] : k;
		int32_t start = p->ntime;
		struct step *s;

		layout_callees(p, c, i, depth);
		if (cp->instrs[i].op && cp->instrs[i].op->op == OP_WHILE)
			add_loop(p, start, c, i);
		p->time[c][i] = p->ntime;
		s = VEC_PUSH(p->pool, p->steps, p->ntime, p->stepcap);
		s->comp = c;
		s->instr = i;
	}
	p->hi[c] = p->ntime - 1;
}

/* A computation that runs more than once keeps its values live over every
 * run: its span grows to cover each call, and so do its callees'. */
static void
widen(struct prog *p)
{
	for (int t = p->ntime - 1; t >= 0; t--) {
		const struct step *s = &p->steps[t];
		int callees[64], n = program_callees(
			p, &p->m->comps[s->comp].instrs[s->instr], callees);

		for (int j = 0; j < n; j++) {
			int d = callees[j];

			if (d < 0 || (!p->wide[d] && !p->wide[s->comp]))
				continue;
			if (t < p->lo[d])
				p->lo[d] = t;
			if (t > p->hi[d])
				p->hi[d] = t;
			if (p->wide[s->comp]) {
				p->wide[d] = 1;
				if (p->lo[s->comp] < p->lo[d])
					p->lo[d] = p->lo[s->comp];
				if (p->hi[s->comp] > p->hi[d])
					p->hi[d] = p->hi[s->comp];
			}
		}
	}
}

/* Loops are listed as they close, so by end: walking back from the last, a
 * stack holds the loops that may enclose the next one; those that start
 * after it are disjoint from it and everything before it. */
static void
nest_loops(struct prog *p)
{
	int *stack = pool_alloc(p->pool, sizeof(int) * (size_t)(p->nloop + 1));
	int top = 0;

	for (int i = p->nloop - 1; i >= 0; i--) {
		struct loop *l = &p->loops[i];

		while (top > 0 && p->loops[stack[top - 1]].start > l->start)
			top--;
		l->parent = top > 0 ? stack[top - 1] : -1;
		stack[top++] = i;
	}
}

/* A step per instruction of each program computation (each runs from one
 * site once flatten.c has cloned the others). */
static void
reserve_steps(struct prog *p)
{
	int n = 1;

	for (int c = 0; c < p->m->ncomp; c++)
		if (p->kind[c] == COMP_PROGRAM &&
		    n < INT32_MAX - p->m->comps[c].ninstr)
			n += p->m->comps[c].ninstr;
	p->steps = vec_reserve(p->pool, p->steps, &p->stepcap, n,
			       sizeof *p->steps);
}

int
fill_schedule(struct prog *p)
{
	const struct module *m = p->m;
	int n = m->ncomp, nerr = p->ds->n;

	p->kind = pool_alloc(p->pool, sizeof(int) * (size_t)n);
	p->time = pool_alloc(p->pool, sizeof(int *) * (size_t)n);
	p->lo = pool_alloc(p->pool, sizeof(int32_t) * (size_t)n);
	p->hi = pool_alloc(p->pool, sizeof(int32_t) * (size_t)n);
	p->wide = pool_alloc(p->pool, sizeof(int) * (size_t)n);
	p->site_comp = pool_alloc(p->pool, sizeof(int) * (size_t)n);
	p->site_instr = pool_alloc(p->pool, sizeof(int) * (size_t)n);
	for (int c = 0; c < n; c++) {
		p->time[c] = pool_alloc(p->pool, sizeof(int) *
					(size_t)(m->comps[c].ninstr + 1));
		memset(p->time[c], -1, sizeof(int) *
		       (size_t)m->comps[c].ninstr);
		p->lo[c] = p->hi[c] = -1;
		p->site_comp[c] = p->site_instr[c] = -1;
	}
	mark_kinds(p, m->entry, COMP_PROGRAM);
	reserve_steps(p);
	layout(p, m->entry, 0);
	widen(p);
	nest_loops(p);
	return p->ds->n > nerr ? -1 : 0;
}

void
dump_schedule(FILE *out, const struct prog *p)
{
	for (int32_t t = 0; t < p->ntime; t++) {
		const struct step *s = &p->steps[t];

		fprintf(out, "%6d  %s/%s\n", t, p->m->comps[s->comp].name,
			p->m->comps[s->comp].instrs[s->instr].name);
	}
}

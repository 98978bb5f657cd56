/* Liveness: a closed interval [def, last use] per value over the flattened
 * schedule (XLA's HloLiveRange).  A value used inside a loop but defined
 * before it lives to the loop's end; parameters live from step 0 and the
 * entry's outputs to the last step. */
#include <string.h>

#include "passes/passes.h"

/* The innermost loop at each step: loops closed later enclose earlier ones,
 * so painting from the last closed to the first leaves the innermost. */
static int *
loops_at(struct prog *p)
{
	int *at = pool_alloc(p->pool, sizeof(int) * (size_t)(p->ntime + 1));

	for (int32_t t = 0; t < p->ntime; t++)
		at[t] = -1;
	for (int l = p->nloop - 1; l >= 0; l--)
		for (int32_t t = p->loops[l].start; t <= p->loops[l].end; t++)
			at[t] = l;
	return at;
}

/* For each while's step, the step where its loop starts. */
static int32_t *
loop_starts(struct prog *p)
{
	int32_t *start = pool_alloc(p->pool, sizeof(int32_t) *
						     (size_t)(p->ntime + 1));

	for (int32_t t = 0; t < p->ntime; t++)
		start[t] = t;
	for (int l = 0; l < p->nloop; l++)
		start[p->loops[l].end] = p->loops[l].start;
	return start;
}

static void
use(struct prog *p, const int *at, int v, int32_t t)
{
	struct value *x = &p->values[v];

	if (t > x->end)
		x->end = t;
	for (int l = at[t]; l >= 0 && x->def < p->loops[l].start;
	     l = p->loops[l].parent)
		if (p->loops[l].end > x->end)
			x->end = p->loops[l].end;
}

typedef void readfn(struct prog *p, void *arg, int v, int32_t t);

/* Every value at every node of operand k of (c,i) is read. */
static void
read_operand(struct prog *p, int c, int i, int k, int32_t t, readfn *fn,
	     void *arg)
{
	const struct comp *cp = &p->m->comps[c];
	int o = cp->instrs[i].ops[k], n = shape_nodes(&cp->instrs[o].shape);

	for (int node = 0; node < n; node++)
		fn(p, arg, prog_val(p, c, o, node), t);
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* The start of the asynchronous pair whose done is instruction i of
 * computation c (through async-updates), or -1. */
static int
async_start(const struct comp *cp, int i)
{
	const struct instr *in = &cp->instrs[i];
	int s;

	if (!in->op || !ends_with(in->op->name, "-done") || in->nops < 1)
		return -1;
	s = in->ops[0];
	while (cp->instrs[s].op && cp->instrs[s].op->op == OP_ASYNC_UPDATE &&
	       cp->instrs[s].nops > 0)
		s = cp->instrs[s].ops[0];
	in = &cp->instrs[s];
	if (!in->op)
		return -1;
	return ends_with(in->op->name, "-start") || in->op->op == OP_SEND ||
	       in->op->op == OP_RECV ? s : -1;
}

/* Calls fn for each value the instruction at step t reads.  A done reads
 * its start's operands too: the asynchronous op reads them until then. */
static void
reads_at(struct prog *p, int32_t t, readfn *fn, void *arg)
{
	int c = p->steps[t].comp, i = p->steps[t].instr;
	const struct instr *in = &p->m->comps[c].instrs[i];
	int s = async_start(&p->m->comps[c], i);

	for (int k = 0; s >= 0 && k < p->m->comps[c].instrs[s].nops; k++)
		read_operand(p, c, s, k, t, fn, arg);

	switch (in->op ? in->op->op : OP_OTHER) {
	case OP_PARAMETER:
	case OP_CONSTANT:
	case OP_TUPLE:
	case OP_BITCAST:
	case OP_OPT_BARRIER:
	case OP_ADD_DEPENDENCY:
	case OP_DOMAIN:
	case OP_CALL:
		return;		/* they forward; their users read */
	case OP_WHILE:
		/* The state is live until the loop ends. */
		for (int node = 0; node < shape_nodes(&in->shape); node++)
			fn(p, arg, prog_val(p, c, i, node), t);
		return;
	case OP_GTE:
		fn(p, arg, prog_val(p, c, in->ops[0], 0), t);
		return;
	case OP_CONDITIONAL:
		read_operand(p, c, i, 0, t, fn, arg);
		return;
	default:
		for (int k = 0; k < in->nops; k++)
			read_operand(p, c, i, k, t, fn, arg);
	}
}

static void
use_fn(struct prog *p, void *at, int v, int32_t t)
{
	use(p, at, v, t);
}

static void
last_fn(struct prog *p, void *last, int v, int32_t t)
{
	(void)p;
	((int32_t *)last)[v] = t;
}

void
step_reads(struct prog *p, int32_t t, int32_t *last)
{
	reads_at(p, t, last_fn, last);
}

static void
mark_outputs(struct prog *p)
{
	const struct comp *e = &p->m->comps[p->m->entry];
	int n;

	if (e->root < 0 || p->nodebase[p->m->entry][e->root] < 0)
		return;
	n = shape_nodes(&e->instrs[e->root].shape);
	for (int node = 0; node < n; node++) {
		struct value *x = &p->values[prog_val(p, p->m->entry, e->root,
						      node)];

		x->flags |= BUF_OUTPUT;
		x->end = p->ntime - 1;
	}
}

void
fill_liveness(struct prog *p)
{
	int *at = loops_at(p);
	int32_t *start = loop_starts(p);

	for (int v = 0; v < p->nval; v++) {
		struct value *x = &p->values[v];

		x->def = x->flags & BUF_PARAM ? 0 : p->time[x->comp][x->instr];
		x->end = p->time[x->comp][x->instr];
		if (x->flags & VAL_PHI)
			x->def = start[x->def];
	}
	for (int32_t t = 0; t < p->ntime; t++)
		reads_at(p, t, use_fn, at);
	mark_outputs(p);
	for (int v = 0; v < p->nval; v++) {
		struct value *x = &p->values[v];

		if (!p->wide[x->comp])
			continue;
		if (p->lo[x->comp] < x->def)
			x->def = p->lo[x->comp];
		if (p->hi[x->comp] > x->end)
			x->end = p->hi[x->comp];
	}
	prog_hulls(p);
}

/* The interval of each set of sharing values, kept at its root. */
void
prog_hulls(struct prog *p)
{
	/* Copy insertion may add a value per join. */
	size_t n = (size_t)(p->nval + p->njoin + 1);

	p->bstart = pool_alloc(p->pool, sizeof(int32_t) * n);
	p->bend = pool_alloc(p->pool, sizeof(int32_t) * n);
	for (int v = 0; v < p->nval; v++) {
		p->bstart[v] = INT32_MAX;
		p->bend[v] = -1;
	}
	for (int v = 0; v < p->nval; v++) {
		int r = prog_find(p, v);

		if (p->values[v].def < p->bstart[r])
			p->bstart[r] = p->values[v].def;
		if (p->values[v].end > p->bend[r])
			p->bend[r] = p->values[v].end;
	}
}

/* The forms XLA's parser expands before it builds a module: a computation
 * written inline as a call attribute's value (`calls={ ... }`), and an
 * opcode X written X-start / X-update / X-done, which is an async op that
 * calls a computation wrapping X (xla/hlo/parser/hlo_parser.cc,
 * ParseOpcode and CreateInstruction's kAsyncStart). */
#include <ctype.h>
#include <string.h>

#include "frontend/frontend_internal.h"

/* A computation name not yet in the module: base, or base.N. */
static const char *
fresh_comp_name(struct parser *P, const struct module *m, const char *base)
{
	const char *name = base;

	for (int n = 1;; n++) {
		int used = 0;

		for (int c = 0; c < m->ncomp && !used; c++)
			used = !strcmp(m->comps[c].name, name);
		if (!used)
			return name;
		name = pool_printf(P->pool, "%s.%d", base, n);
	}
}

/* Where attribute a's value starts: its key's position moved past
 * "key=" and any space or line breaks after the '='. */
static struct loc
value_loc(const struct attr *a)
{
	struct loc l = a->loc;
	const char *v = a->val, *p = v;
	int broke = 0;

	while (p[-1] != '=')
		p--;
	for (const char *q = p; q < v; q++)
		broke += *q == '\n';
	if (!broke) {
		l.col += (int)strlen(a->key) + (int)(v - p) + 1;
		return l;
	}
	for (p = v; p[-1] != '\n'; p--)
		;
	l.line += broke;
	l.col = (int)(v - p) + 1;
	return l;
}

/* Parses the inline computation that is attribute a's value, adds it to m
 * and makes a name it. */
static void
inline_comp(struct parser *P, struct module *m, const struct instr *in,
	    struct attr *a)
{
	struct loc at = value_loc(a);
	const char *text, *name;
	struct hlofile *f;
	struct comp *c;

	/* Two lines before the value's line hold the module header and the
	 * computation's name, so that positions in the value stay right. */
	text = pool_printf(P->pool, "HloModule m\nc\n%*s%.*s", at.col - 1, "",
			   a->vlen, a->val);
	f = frontend_parse_at(P->pool, text, strlen(text), P->ds,
			      (struct loc){at.line - 2, 1});
	if (f->nmod != 1 || f->mods[0].ncomp != 1)
		return;		/* a syntax error, reported */
	name = fresh_comp_name(P, m, pool_printf(P->pool, "%s.%s", in->name,
						   a->key));
	c = VEC_PUSH(P->pool, m->comps, m->ncomp, m->cap);
	*c = f->mods[0].comps[0];
	c->name = name;
	c->loc = at;
	a->val = c->name;
	a->vlen = (int)strlen(c->name);
}

static void
inline_comps(struct parser *P, struct module *m)
{
	/* m->comps grows as the loop goes (an instruction array does not
	 * move): inline computations nested in inline ones are met in their
	 * turn. */
	for (int c = 0; c < m->ncomp; c++)
		for (int i = 0; i < m->comps[c].ninstr; i++) {
			struct instr *in = &m->comps[c].instrs[i];

			for (int k = 0; k < in->nattr; k++) {
				struct attr *a = &in->attrs[k];

				if (call_attr(a->key) == CALL_ONE &&
				    a->vlen > 1 && a->val[0] == '{')
					inline_comp(P, m, in, a);
			}
		}
}

/* Attributes an async start keeps: async_execution_thread, those every
 * instruction may carry, and output_to_operand_aliasing unless the wrapped
 * op takes its own (a custom call's, a fusion's: XLA's parser reads one
 * map of attributes, in which the wrapped op's entry replaces the
 * start's). */
static int
async_own_key(const char *k, const struct opinfo *x)
{
	if (!strcmp(k, "output_to_operand_aliasing"))
		return strcmp(x->name, "custom-call") &&
		       strcmp(x->name, "fusion");
	return !strcmp(k, "async_execution_thread") || attr_of_every_instr(k);
}

/* The attributes that are the start's alone; the wrapped op takes the
 * rest (metadata, backend_config and the like go to both, as in XLA). */
static int
start_only_key(const char *k, const struct opinfo *x)
{
	return !strcmp(k, "async_execution_thread") ||
	       !strcmp(k, "control-predecessors") ||
	       (!strcmp(k, "output_to_operand_aliasing") &&
		async_own_key(k, x));
}

static void
push_attr(struct parser *P, struct attr **v, int *n, int *cap,
	  const struct attr *a)
{
	*VEC_PUSH(P->pool, *v, *n, *cap) = *a;
}

/* The wrapped computation's instructions: a parameter per operand of the
 * start, shaped as element {0, k} of the start's shape, and X over them. */
static void
wrapped_body(struct parser *P, struct comp *w, const struct instr *s)
{
	const struct shape *ops = &s->shape.elems[0];
	struct instr *x;
	int n = s->nops, cap = 0;

	w->ninstr = n + 1;
	w->cap = n + 1;
	w->instrs = pool_alloc(P->pool, sizeof *w->instrs * (size_t)(n + 1));
	for (int k = 0; k < n; k++) {
		struct instr *p = &w->instrs[k];

		p->name = pool_printf(P->pool, "param_%d", k);
		p->loc = s->loc;
		p->shape = ops->elems[k];
		p->op = opcode_lookup("parameter", 9);
		p->literal = pool_printf(P->pool, "%d", k);
		p->literal_len = (int)strlen(p->literal);
		p->param = p->index = -1;
	}
	x = &w->instrs[n];
	*x = *s;
	x->name = s->wrapped->name;
	x->op = s->wrapped;
	x->wrapped = NULL;
	x->shape = s->shape.elems[1];
	x->no_shape = 0;
	x->is_root = 1;
	x->nattr = 0;
	x->attrs = NULL;
	x->ops = pool_alloc(P->pool, sizeof(int) * (size_t)(n + 1));
	x->opname = pool_alloc(P->pool, sizeof(char *) * (size_t)(n + 1));
	for (int k = 0; k < n; k++)
		x->opname[k] = w->instrs[k].name;
	for (int k = 0; k < s->nattr; k++)
		if (!start_only_key(s->attrs[k].key, s->wrapped))
			push_attr(P, &x->attrs, &x->nattr, &cap, &s->attrs[k]);
	w->root = n;
}

/* Leaves on start s only the attributes of its own, and extra if any. */
static void
keep_own_attrs(struct parser *P, struct instr *s, const struct attr *extra)
{
	struct attr *own = NULL;
	int n = 0, cap = 0;

	for (int k = 0; k < s->nattr; k++)
		if (async_own_key(s->attrs[k].key, s->wrapped))
			push_attr(P, &own, &n, &cap, &s->attrs[k]);
	if (extra)
		push_attr(P, &own, &n, &cap, extra);
	s->attrs = own;
	s->nattr = n;
}

/* X-start(ops), attrs: an async-start calling a new computation that
 * wraps X; the start keeps the attributes of its own. */
static void
wrap_start(struct parser *P, struct module *m, int c, int i)
{
	struct instr *s = &m->comps[c].instrs[i];
	const char *base = pool_printf(P->pool, "wrapped_%s_computation",
				       s->wrapped->name);
	struct attr calls = {"calls", NULL, 0, s->loc};
	struct comp *w;

	if (!shape_is_tuple(&s->shape) || s->shape.nelem < 2 ||
	    !shape_is_tuple(&s->shape.elems[0]) ||
	    s->shape.elems[0].nelem != s->nops) {
		diag_error(P->ds, s->loc, "%s-start '%s' needs the shape "
			   "((operand shapes), result shape, ...) with one "
			   "operand shape for each of its %d operands",
			   s->wrapped->name, s->name, s->nops);
		return;
	}
	base = fresh_comp_name(P, m, base);
	w = VEC_PUSH(P->pool, m->comps, m->ncomp, m->cap);
	s = &m->comps[c].instrs[i];
	w->name = base;
	w->loc = s->loc;
	wrapped_body(P, w, s);
	calls.val = w->name;
	calls.vlen = (int)strlen(w->name);
	keep_own_attrs(P, s, &calls);
}

/* ---- late binding ----------------------------------------------------- */

/* Whether the l bytes at p are a whole name within [s, s + n). */
static int
whole_name(const char *s, size_t n, const char *p, size_t l)
{
	static const char namec[] = "_.-";

	return (p == s || !(isalnum((unsigned char)p[-1]) ||
			    strchr(namec, p[-1]))) &&
	       (p + l == s + n || !(isalnum((unsigned char)p[l]) ||
				    strchr(namec, p[l])));
}

/* How many times computation c reads `name` (operands and control edges),
 * and the first instruction after `from` whose operand 0 it is (or -1). */
static int
readers(const struct comp *c, const char *name, int from, int *n)
{
	size_t l = strlen(name);
	int next = -1;

	*n = 0;
	for (int i = 0; i < c->ninstr; i++) {
		const struct instr *in = &c->instrs[i];

		for (int k = 0; k < in->nops; k++)
			if (in->opname[k] && !strcmp(in->opname[k], name)) {
				++*n;
				if (i > from && k == 0 && next < 0)
					next = i;
			}
		for (int k = 0; k < in->nattr; k++) {
			const struct attr *a = &in->attrs[k];

			if (strcmp(a->key, "control-predecessors"))
				continue;
			for (int o = 0; o + (int)l <= a->vlen; o++)
				*n += !strncmp(a->val + o, name, l) &&
				      whole_name(a->val, (size_t)a->vlen,
						 a->val + o, l);
		}
	}
	return next;
}

/* An async op whose operands come late: a start that binds no operand
 * and no result, or an update that adds operands. */
static int
binds_late(const struct instr *in)
{
	const struct shape *s = &in->shape;

	if (in->op->op == OP_ASYNC_UPDATE)
		return in->nops > 1;
	return in->op->op == OP_ASYNC_START && in->nops == 0 &&
	       shape_is_tuple(s) && s->nelem >= 2 &&
	       shape_is_tuple(&s->elems[1]) && !s->elems[1].nelem;
}

/* Follows start -> update ... -> done through the instructions that take
 * each as operand 0.  Returns the number of ops before the done, with
 * their indices in chain[] and *late set when one binds late; -1 when the
 * chain does not end in a done read only as a chain (then a late one is
 * refused: what it reads would grow past the end of the program). */
static int
async_chain(const struct comp *c, int start, int *chain, int *late)
{
	int n = 0, cur = start;

	*late = 0;
	for (;;) {
		const struct instr *in = &c->instrs[cur];
		int nread, next;

		if (in->op->op == OP_ASYNC_DONE)
			return n;
		*late |= binds_late(in);
		chain[n++] = cur;
		next = readers(c, in->name, cur, &nread);
		if (next < 0 || nread != 1 || cur == c->root ||
		    !c->instrs[next].op || !c->instrs[next].wrapped ||
		    c->instrs[next].op->op == OP_ASYNC_START)
			return -1;
		cur = next;
	}
}

/* A late-bound chain as XLA's async op would run it: the work starts once
 * every operand is bound, so the op the done reads becomes the start, with
 * every operand bound along the chain, and the ops before it (which only
 * bind) go.  Returns how many instructions went. */
static int
bind_late(struct parser *P, struct comp *c, const int *chain, int n)
{
	struct instr *s = &c->instrs[chain[0]];
	struct instr *last = &c->instrs[chain[n - 1]];
	struct opnd *ops = NULL;
	struct attr *attrs = NULL;
	int nops = 0, cap = 0, nattr = 0, acap = 0, gone = 0;

	for (int j = 0; j < n; j++) {
		const struct instr *in = &c->instrs[chain[j]];

		for (int k = j ? 1 : 0; k < in->nops; k++) {
			struct opnd *o = VEC_PUSH(P->pool, ops, nops, cap);

			o->name = in->opname[k];
			o->loc = in->oploc[k];
		}
	}
	for (int k = 0; k < s->nattr; k++)
		push_attr(P, &attrs, &nattr, &acap, &s->attrs[k]);
	for (int k = 0; k < last->nattr; k++)
		push_attr(P, &attrs, &nattr, &acap, &last->attrs[k]);
	last->op = s->op;
	last->nops = nops;
	last->ops = pool_alloc(P->pool, sizeof(int) * (size_t)(nops + 1));
	last->opname = pool_alloc(P->pool, sizeof(char *) * (size_t)(nops + 1));
	last->oploc = pool_alloc(P->pool,
				 sizeof(struct loc) * (size_t)(nops + 1));
	for (int k = 0; k < nops; k++) {
		last->ops[k] = -1;
		last->opname[k] = ops[k].name;
		last->oploc[k] = ops[k].loc;
	}
	last->attrs = attrs;
	last->nattr = nattr;
	for (int i = 0, j = 0, k = 0; i < c->ninstr; i++) {
		if (j < n - 1 && i == chain[j]) {
			j++;
			gone++;
			continue;
		}
		c->instrs[k++] = c->instrs[i];
	}
	for (int j = n - 2; j >= 0; j--)	/* no step is the ROOT */
		c->root -= c->root > chain[j];
	c->ninstr -= gone;
	return gone;
}

/* A late-bound async op becomes an ordinary one (bind_late); one that is
 * never done, or whose steps are read elsewhere, is refused. */
static int
late_start(struct parser *P, struct comp *c, int i)
{
	int *chain = pool_alloc(P->pool, sizeof(int) * (size_t)(c->ninstr + 1));
	int late, n = async_chain(c, i, chain, &late);

	if (n < 0) {
		if (late) {
			diag_error(P->ds, c->instrs[i].loc, "'%s' starts an "
				   "async op that binds its operands late and "
				   "is never done (or a step of it is read "
				   "elsewhere): what it reads would grow past "
				   "the end of the program",
				   c->instrs[i].name);
			keep_own_attrs(P, &c->instrs[i], NULL);
		}
		return late ? -1 : 0;
	}
	if (!late)
		return 0;
	return bind_late(P, c, chain, n);
}

/* Whether c has a wrapped async op that binds late: only then are the
 * chains followed, each a scan of c. */
static int
has_late(const struct comp *c)
{
	for (int i = 0; i < c->ninstr; i++)
		if (c->instrs[i].op && c->instrs[i].wrapped &&
		    binds_late(&c->instrs[i]))
			return 1;
	return 0;
}

void
desugar_module(struct parser *P, struct module *m)
{
	int ncomp;

	inline_comps(P, m);
	ncomp = m->ncomp;
	for (int c = 0; c < ncomp; c++) {
		int late = has_late(&m->comps[c]);

		for (int i = 0; i < m->comps[c].ninstr; i++) {
			struct comp *cp = &m->comps[c];
			const struct instr *in = &cp->instrs[i];
			int gone = 0;

			if (!in->op || !in->wrapped ||
			    in->op->op != OP_ASYNC_START)
				continue;
			if (late)
				gone = late_start(P, cp, i);
			if (gone > 0)
				i--;	/* the start has gone: look again */
			else if (!gone)
				wrap_start(P, m, c, i);
		}
	}
}

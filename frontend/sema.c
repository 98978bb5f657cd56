/* Semantic checks after parsing, as XLA's parser makes them: names defined
 * once and before use, called computations exist, one ROOT, one ENTRY.  Also
 * reads the attributes later passes need (index=, parameter numbers,
 * input_output_alias, is_scheduled). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/frontend.h"
#include "ir/table.h"

/* The index stored under name in t, or -1; with add >= 0, stores add if
 * absent. */
static int
name_find(struct table *t, const char *name, int add)
{
	return table_str(t, name, strlen(name), add);
}

/* input_output_alias={ {out}: (param, {pidx}[, may-alias|must-alias]), ...} */
static int
read_aliases(struct pool *pool, struct module *m, const struct attr *a)
{
	const char *p = a->val, *end = a->val + a->vlen;
	int cap = 0;

	if (!skip_to(&p, end, '{'))
		return 0;
	if (skip_to(&p, end, '}'))
		return 1;
	do {
		struct alias *al = VEC_PUSH(pool, m->aliases, m->nalias, cap);

		if ((al->nout = read_index(pool, &p, end, &al->out)) < 0 ||
		    !skip_to(&p, end, ':') || !skip_to(&p, end, '(') ||
		    !read_int(&p, end, &al->param) || !skip_to(&p, end, ',') ||
		    (al->npidx = read_index(pool, &p, end, &al->pidx)) < 0)
			return 0;
		if (skip_to(&p, end, ',')) {
			while (p < end && isspace((unsigned char)*p))
				p++;
			al->must = end - p >= 10 &&
				   !strncmp(p, "must-alias", 10);
			while (p < end && *p != ')')
				p++;
		}
		if (!skip_to(&p, end, ')'))
			return 0;
	} while (skip_to(&p, end, ','));
	return skip_to(&p, end, '}');
}

static const struct attr *
module_attr(const struct module *m, const char *key)
{
	for (int i = 0; i < m->nattr; i++)
		if (!strcmp(m->attrs[i].key, key))
			return &m->attrs[i];
	return NULL;
}

/* ---- checks ----------------------------------------------------------- */

/* Resolves every computation named in a call attribute's value. */
static void
resolve_calls(struct parser *P, struct table *comps, struct instr *in,
	      const struct attr *a)
{
	const char *p = a->val, *end = a->val + a->vlen;
	int cap = in->ncall, kcap = in->ncall, nk = in->ncall;

	while (p < end) {
		const char *s;
		char *name;
		int c;

		if (*p == '%' || isalpha((unsigned char)*p) || *p == '_') {
			s = p + (*p == '%');
			p = s;
			while (p < end && (isalnum((unsigned char)*p) ||
					   strchr("_.-", *p)))
				p++;
			name = pool_strndup(P->pool, s, (size_t)(p - s));
			c = name_find(comps, name, -1);
			if (c < 0)
				diag_error(P->ds, a->loc, "%s: unknown "
					   "computation '%s'", a->key, name);
			else {
				*VEC_PUSH(P->pool, in->calls, in->ncall,
					  cap) = c;
				*VEC_PUSH(P->pool, in->callkey, nk, kcap) =
					a->key;
			}
		} else {
			p++;
		}
	}
}

static void
check_parameter(struct parser *P, struct comp *c, int i)
{
	struct instr *in = &c->instrs[i];
	const char *p = in->literal, *end = p + in->literal_len;

	if (!read_int(&p, end, &in->param) || p != end || in->param < 0 ||
	    in->param >= c->ninstr) {
		diag_error(P->ds, in->loc, "parameter needs its number, "
			   "from 0 to the number of parameters - 1");
		in->param = -1;
		return;
	}
	if (c->params[in->param] >= 0)
		diag_error(P->ds, in->loc, "parameter(%lld) is defined twice",
			   (long long)in->param);
	c->params[in->param] = i;
	if (in->param + 1 > c->nparam)
		c->nparam = (int)in->param + 1;
}

static void
check_gte(struct parser *P, struct comp *c, struct instr *in)
{
	const struct attr *a = instr_attr(in, "index");
	const char *p;
	const struct shape *t;

	if (!a || (p = a->val, !read_int(&p, a->val + a->vlen, &in->index))) {
		diag_error(P->ds, in->loc, "get-tuple-element needs index=N");
		return;
	}
	if (in->nops != 1 || in->ops[0] < 0 ||
	    c->instrs[in->ops[0]].no_shape)
		return;		/* inferred later, and checked there */
	t = &c->instrs[in->ops[0]].shape;
	if (!shape_is_tuple(t) || in->index < 0 || in->index >= t->nelem)
		diag_error(P->ds, in->loc, "index=%lld is out of range for "
			   "operand '%s'", (long long)in->index,
			   c->instrs[in->ops[0]].name);
}

/* An operand that names no earlier instruction: used too early, or never
 * defined at all.  all maps every name of the computation to its first
 * definition. */
static void
undefined_operand(struct parser *P, struct table *all, const struct comp *c,
		  const struct instr *in, int k)
{
	int d = name_find(all, in->opname[k], -1);

	if (d > in - c->instrs)
		diag_error(P->ds, in->oploc[k], "operand '%s' of '%s' is used "
			   "before its definition at %d:%d", in->opname[k],
			   in->name, c->instrs[d].loc.line,
			   c->instrs[d].loc.col);
	else
		diag_error(P->ds, in->oploc[k], "operand '%s' of '%s' is not "
			   "defined in computation '%s'", in->opname[k],
			   in->name, c->name);
}

static void
check_operands(struct parser *P, struct table *defs, struct table *all,
	       const struct comp *c, struct instr *in)
{
	if (in->op &&
	    (in->op->op == OP_CONSTANT || in->op->op == OP_PARAMETER)) {
		in->nops = 0;	/* what they hold is a literal, not operands */
		return;
	}
	for (int k = 0; k < in->nops; k++) {
		if (!in->opname[k]) {
			diag_error(P->ds, in->oploc[k], "expected an operand "
				   "name, not a literal");
			continue;
		}
		in->ops[k] = name_find(defs, in->opname[k], -1);
		if (in->ops[k] < 0)
			undefined_operand(P, all, c, in, k);
	}
}

static void
check_comp(struct parser *P, struct table *comps, struct comp *c)
{
	struct table defs, all;

	if (c->ninstr == 0) {
		diag_error(P->ds, c->loc, "computation '%s' has no "
			   "instructions", c->name);
		return;
	}
	table_init(&defs, P->pool, (size_t)c->ninstr);
	table_init(&all, P->pool, (size_t)c->ninstr);
	for (int i = 0; i < c->ninstr; i++)
		name_find(&all, c->instrs[i].name, i);
	c->params = pool_alloc(P->pool, sizeof(int) * (size_t)c->ninstr);
	for (int i = 0; i < c->ninstr; i++)
		c->params[i] = -1;
	for (int i = 0; i < c->ninstr; i++) {
		struct instr *in = &c->instrs[i];

		check_operands(P, &defs, &all, c, in);
		if (name_find(&defs, in->name, i) >= 0)
			diag_error(P->ds, in->loc, "'%s' is defined twice in "
				   "computation '%s'", in->name, c->name);
		for (int k = 0; k < in->nattr; k++)
			if (call_attr(in->attrs[k].key))
				resolve_calls(P, comps, in, &in->attrs[k]);
		if (in->op && in->op->op == OP_PARAMETER)
			check_parameter(P, c, i);
		else if (in->op && in->op->op == OP_GTE)
			check_gte(P, c, in);
	}
	for (int i = 0; i < c->nparam; i++)
		if (c->params[i] < 0)
			diag_error(P->ds, c->loc, "computation '%s' has no "
				   "parameter(%d)", c->name, i);
}

/* ---- shapes the text leaves out ---------------------------------------- */

/* A shape still to be inferred: written without one, not yet known.
 * no_shape is 2 once inference has failed (reported once, at the failing
 * instruction; what reads it is not reported again). */
static int
pending(const struct instr *in)
{
	return in->no_shape && in->shape.type == DT_INVALID;
}

/* Whether x, an input of an instruction, has its shape: 1, 0 when it is
 * still pending, -1 when its inference failed. */
static int
input_known(const struct instr *x)
{
	return !pending(x) ? 1 : x->no_shape == 2 ? -1 : 0;
}

/* Whether in's operands and the roots of what it calls have shapes: 1,
 * 0 when one is still pending, -1 when one failed. */
static int
inputs_known(const struct module *m, const struct comp *c,
	     const struct instr *in)
{
	int known = 1, k;

	for (k = 0; k < in->nops && known >= 0; k++)
		if (in->ops[k] >= 0 &&
		    input_known(&c->instrs[in->ops[k]]) < known)
			known = input_known(&c->instrs[in->ops[k]]);
	for (k = 0; k < in->ncall && known >= 0; k++) {
		const struct comp *d = &m->comps[in->calls[k]];

		if (d->root >= 0 && input_known(&d->instrs[d->root]) < known)
			known = input_known(&d->instrs[d->root]);
	}
	return known;
}

/* Infers the shape of every instruction written without one, as XLA's
 * parser does.  An instruction's inputs may come later in the file (a
 * callee defined after its caller), so passes go on while one makes
 * progress; what is left waits on itself. */
static void
infer_shapes(struct parser *P, struct module *m)
{
	struct { int c, i; } *todo = NULL;
	int n = 0, cap = 0, progress = 1;

	for (int c = 0; c < m->ncomp; c++)
		for (int i = 0; i < m->comps[c].ninstr; i++)
			if (pending(&m->comps[c].instrs[i]) &&
			    m->comps[c].instrs[i].op) {
				if (n == cap)
					todo = vec_grow(P->pool, todo, &cap,
							sizeof *todo);
				todo[n].c = c;
				todo[n++].i = i;
			}
	while (n && progress) {
		int k = 0;

		progress = 0;
		for (int j = 0; j < n; j++) {
			struct comp *c = &m->comps[todo[j].c];
			struct instr *in = &c->instrs[todo[j].i];
			int known = inputs_known(m, c, in), r = 0;
			struct shape out = {0};

			if (!known) {
				todo[k++] = todo[j];
				continue;
			}
			progress = 1;
			if (known > 0 &&
			    !(r = infer_shape(P, m, c, in, &out)))
				diag_error(P->ds, in->loc, "cannot infer the "
					   "shape of '%s' (%s): write it",
					   in->name, in->op->name);
			if (r > 0)
				in->shape = out;
			else
				in->no_shape = 2;
		}
		n = k;
	}
	for (int j = 0; j < n; j++) {
		const struct instr *in = &m->comps[todo[j].c].instrs[todo[j].i];

		diag_error(P->ds, in->loc, "cannot infer the shape of '%s': it "
			   "depends on its own result", in->name);
	}
}

static void
find_entry(struct parser *P, struct module *m)
{
	m->entry = -1;
	for (int i = 0; i < m->ncomp; i++) {
		if (!m->comps[i].is_entry)
			continue;
		if (m->entry >= 0)
			diag_error(P->ds, m->comps[i].loc, "second ENTRY "
				   "computation '%s' (the first is '%s')",
				   m->comps[i].name, m->comps[m->entry].name);
		else
			m->entry = i;
	}
	if (m->entry < 0) {
		m->entry = m->ncomp - 1;	/* XLA: the last one */
		m->comps[m->entry].is_entry = 1;
	}
}

/* Gives an entry parameter the tiles, tail padding, element size, memory
 * space and metadata that entry_computation_layout states for it, where
 * its own layout has no tiles. */
static void
apply_layout(struct shape *dst, const struct shape *src)
{
	if (shape_is_tuple(dst) || shape_is_tuple(src)) {
		for (int i = 0; i < dst->nelem && dst->nelem == src->nelem; i++)
			apply_layout(&dst->elems[i], &src->elems[i]);
		return;
	}
	if (dst->rank != src->rank || dst->ntile || !src->has_layout)
		return;
	for (int i = 0; i < dst->rank; i++)
		if (dst->dims[i] != src->dims[i] ||
		    (dst->has_layout && dst->m2m[i] != src->m2m[i]))
			return;
	dst->has_layout = 1;
	dst->m2m = src->m2m;
	dst->ntile = src->ntile;
	dst->tiles = src->tiles;
	if (!dst->elem_bits)
		dst->elem_bits = src->elem_bits;
	if (!dst->space)
		dst->space = src->space;
	if (!dst->tail_pad)
		dst->tail_pad = src->tail_pad;
	if (!dst->meta_bytes)
		dst->meta_bytes = src->meta_bytes;
}

/* The top-level "->" of "(params)->result", or NULL. */
static const char *
find_arrow(const char *s, const char *end)
{
	int depth = 0;

	for (; s + 1 < end; s++) {
		if (strchr("({[", *s))
			depth++;
		else if (strchr(")}]", *s))
			depth--;
		else if (depth == 0 && s[0] == '-' && s[1] == '>')
			return s;
	}
	return NULL;
}

/* entry_computation_layout={(p0, p1, ...)->result}: read with the real
 * grammar, as the shapes of two parameters of a small module. */
static void
read_entry_layout(struct parser *P, struct module *m, const struct attr *a)
{
	const char *v = a->val, *end = a->val + a->vlen, *arrow;
	struct diags ds = {.pool = P->pool, .file = "entry_computation_layout"};
	struct hlofile *f;
	struct comp *e = &m->comps[m->entry], *le;
	char *text;

	if (a->vlen < 2 || v[0] != '{' || end[-1] != '}' ||
	    !(arrow = find_arrow(v + 1, end - 1)))
		goto bad;
	text = pool_printf(P->pool, "HloModule l\nENTRY e {\n  p = %.*s "
			   "parameter(0)\n  ROOT r = %.*s parameter(1)\n}\n",
			   (int)(arrow - v - 1), v + 1,
			   (int)(end - 1 - arrow - 2), arrow + 2);
	f = frontend_parse_at(P->pool, text, strlen(text), &ds,
			      (struct loc){1, 1});
	if (ds.n || f->nmod != 1)
		goto bad;
	sema_module(P->pool, &ds, &f->mods[0]);
	if (ds.n)
		goto bad;
	le = &f->mods[0].comps[0];
	if (!shape_is_tuple(&le->instrs[0].shape))
		goto bad;
	check_entry_layout(P, m, a, &le->instrs[0].shape,
			   &le->instrs[1].shape);
	for (int i = 0; i < e->nparam && i < le->instrs[0].shape.nelem; i++)
		if (e->params[i] >= 0)
			apply_layout(&e->instrs[e->params[i]].shape,
				     &le->instrs[0].shape.elems[i]);
	if (e->root >= 0)
		apply_layout(&e->instrs[e->root].shape, &le->instrs[1].shape);
	m->result = &le->instrs[1].shape;	/* passes/values.c */
	return;
bad:
	diag_error(P->ds, a->loc, "entry_computation_layout: expected "
		   "{(parameter shapes)->result shape}");
}

static void
read_module_attrs(struct parser *P, struct module *m)
{
	const struct attr *a = module_attr(m, "is_scheduled");

	m->is_scheduled = a && a->vlen == 4 && !strncmp(a->val, "true", 4);
	if ((a = module_attr(m, "entry_computation_layout")))
		read_entry_layout(P, m, a);
	a = module_attr(m, "input_output_alias");
	if (a && !read_aliases(P->pool, m, a))
		diag_error(P->ds, a->loc, "input_output_alias: expected "
			   "{ {output index}: (parameter, {index}, kind), "
			   "... }");
	for (int i = 0; i < m->nalias; i++) {
		const struct comp *e = &m->comps[m->entry];
		const struct alias *al = &m->aliases[i];

		if (al->param < 0 || al->param >= e->nparam)
			diag_error(P->ds, a->loc, "input_output_alias names "
				   "parameter %lld; the entry has %d",
				   (long long)al->param, e->nparam);
	}
}

static void
check_module(struct parser *P, struct module *m)
{
	struct table comps;
	int errors;

	if (m->ncomp == 0) {
		diag_error(P->ds, m->loc, "module '%s' has no computations",
			   m->name);
		return;
	}
	find_entry(P, m);
	desugar_module(P, m);
	srcloc_module(P, m);	/* after desugar: inline, wrapped ops too */
	table_init(&comps, P->pool, (size_t)m->ncomp);
	for (int i = 0; i < m->ncomp; i++)
		if (name_find(&comps, m->comps[i].name, i) >= 0)
			diag_error(P->ds, m->comps[i].loc, "computation '%s' "
				   "is defined twice", m->comps[i].name);
	for (int i = 0; i < m->ncomp; i++)
		check_comp(P, &comps, &m->comps[i]);
	errors = P->ds->n;
	infer_shapes(P, m);
	if (P->ds->n > errors)
		return;		/* the checks below need every shape */
	read_module_attrs(P, m);
	sema_agree(P, m);
	sema_check(P, m);
}

void
sema_module(struct pool *pool, struct diags *ds, struct module *m)
{
	struct parser P = {.pool = pool, .ds = ds};

	check_module(&P, m);
}

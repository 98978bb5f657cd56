/* What the oracle can run (every op and element type the entry reaches,
 * and calls whose shapes fit), and the bit-for-bit comparison of two runs'
 * results. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/exec.h"

struct chk {
	const struct module *m;
	int fill_elided;
	char *why;
	size_t n;
};

static int
no(struct chk *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->why, k->n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Do the two shapes hold the same bytes at every node? */
static int
fits(const struct shape *a, const struct shape *b)
{
	if (shape_is_tuple(a) != shape_is_tuple(b))
		return 0;
	if (!shape_is_tuple(a))
		return shape_bytes(a) == shape_bytes(b);
	if (a->nelem != b->nelem)
		return 0;
	for (int e = 0; e < a->nelem; e++)
		if (!fits(&a->elems[e], &b->elems[e]))
			return 0;
	return 1;
}

/* Element types the interpreter knows, whole bytes, no sub-byte E(n). */
static int
types_ok(const struct shape *s)
{
	if (shape_is_tuple(s)) {
		for (int e = 0; e < s->nelem; e++)
			if (!types_ok(&s->elems[e]))
				return 0;
		return 1;
	}
	if (s->type == DT_TOKEN)
		return 1;
	return num_kind(s->type) != NK_NONE &&
	       (!s->elem_bits || s->elem_bits == dtype_bits(s->type));
}

static const struct shape *
operand(const struct comp *c, const struct instr *in, int k)
{
	return &c->instrs[in->ops[k]].shape;
}

static const struct shape *
param_shape(const struct comp *d, int k)
{
	return k < d->nparam && d->params[k] >= 0 ?
		&d->instrs[d->params[k]].shape : NULL;
}

static const struct shape *
root_shape(const struct comp *d)
{
	return d->root >= 0 ? &d->instrs[d->root].shape : NULL;
}

/* Callee d takes `n` arguments shaped as `args` and returns `ret`. */
static int
call_fits(struct chk *k, const struct instr *in, int d,
	  const struct shape **args, int n, const struct shape *ret)
{
	const struct comp *dc;

	if (d < 0)
		return no(k, "'%s' names no computation", in->name);
	dc = &k->m->comps[d];
	if (dc->nparam != n || !root_shape(dc) ||
	    (ret && !fits(root_shape(dc), ret)))
		return no(k, "'%s': computation '%s' does not fit its call",
			  in->name, dc->name);
	for (int j = 0; j < n; j++)
		if (!param_shape(dc, j) || !fits(param_shape(dc, j), args[j]))
			return no(k, "'%s': computation '%s' does not fit its "
				  "call", in->name, dc->name);
	return 0;
}

static int
comp_of(const struct module *m, const struct instr *in, const char *key,
	int fallback)
{
	int c = called_comp(m, in, key);

	return c < 0 && fallback < in->ncall ? in->calls[fallback] : c;
}

static int
check_while(struct chk *k, const struct comp *c, const struct instr *in)
{
	const struct shape *s = &in->shape, *pred;
	int cond = comp_of(k->m, in, "condition", 0);

	if (in->nops != 1 || !fits(operand(c, in, 0), s))
		return no(k, "'%s': while of this form", in->name);
	if (call_fits(k, in, comp_of(k->m, in, "body", 1), &s, 1, s) < 0 ||
	    call_fits(k, in, cond, &s, 1, NULL) < 0)
		return -1;
	pred = root_shape(&k->m->comps[cond]);
	if (pred->type != DT_PRED || pred->rank != 0)
		return no(k, "'%s': condition does not give a pred[]",
			  in->name);
	return 0;
}

static int
check_conditional(struct chk *k, const struct comp *c, const struct instr *in)
{
	const struct shape *p = in->nops ? operand(c, in, 0) : NULL;
	int b[2] = {comp_of(k->m, in, "true_computation", 0),
		    comp_of(k->m, in, "false_computation", 1)};
	int nb = p && p->type == DT_PRED ? 2 : in->ncall;

	if (!p || p->rank != 0 || (p->type != DT_PRED && p->type != DT_S32) ||
	    nb < 1 || in->nops != nb + 1)
		return no(k, "'%s': conditional of this form", in->name);
	for (int j = 0; j < nb; j++) {
		const struct shape *a = operand(c, in, j + 1);
		int d = p->type == DT_PRED ? b[j] : in->calls[j];

		if (call_fits(k, in, d, &a, 1, &in->shape) < 0)
			return -1;
	}
	return 0;
}

/* A call, fusion or map: the callee takes the operands. */
static int
check_apply(struct chk *k, const struct comp *c, const struct instr *in,
	    const char *key, const struct shape *ret)
{
	const struct shape **args = malloc(sizeof *args *
					   (size_t)(in->nops + 1));
	int r;

	if (!args)
		return no(k, "out of memory");
	for (int j = 0; j < in->nops; j++)
		args[j] = operand(c, in, j);
	r = call_fits(k, in, comp_of(k->m, in, key, 0), args, in->nops, ret);
	free(args);
	return r;
}

/* reduce (inputs..., inits...) and map: the callee takes scalars and
 * returns one, or a tuple of them (a reduce of several inputs). */
static int
check_scalar_apply(struct chk *k, const struct comp *c,
		   const struct instr *in)
{
	struct shape sc[64], ret;
	const struct shape *args[64];
	int n = in->nops, red = in->op->op == OP_REDUCE;

	if (n < 1 || n > 64 || (red && n % 2))
		return no(k, "'%s': of this form", in->name);
	for (int j = 0; j < n; j++) {
		memset(&sc[j], 0, sizeof sc[j]);
		sc[j].type = operand(c, in, j)->type;
		args[j] = &sc[j];
	}
	memset(&ret, 0, sizeof ret);
	ret.type = red ? sc[0].type : in->shape.type;
	if (red && n > 2) {
		ret.type = DT_TUPLE;
		ret.nelem = n / 2;
		ret.elems = sc;
	}
	return call_fits(k, in, comp_of(k->m, in, "to_apply", 0), args, n,
			 &ret);
}

/* sort: the comparator takes (lhs, rhs) of each operand, gives pred. */
static int
check_sort(struct chk *k, const struct comp *c, const struct instr *in)
{
	struct shape sc[64], ret;
	const struct shape *args[64];

	if (in->nops < 1 || 2 * in->nops > 64)
		return no(k, "'%s': sort of this form", in->name);
	for (int j = 0; j < 2 * in->nops; j++) {
		memset(&sc[j], 0, sizeof sc[j]);
		sc[j].type = operand(c, in, j / 2)->type;
		args[j] = &sc[j];
	}
	memset(&ret, 0, sizeof ret);
	ret.type = DT_PRED;
	return call_fits(k, in, comp_of(k->m, in, "to_apply", 0), args,
			 2 * in->nops, &ret);
}

/* Ops whose operands must all have the output's element type: from
 * which operand on (-1: none). */
static int
same_type_from(const struct instr *in)
{
	static const char *const ops[] = {
		"broadcast", "transpose", "reverse", "slice", "concatenate",
		"pad", "clamp", "dynamic-update-slice",
	};
	const char *n = in->op->name;

	if (!strcmp(n, "select"))
		return 1;
	for (size_t j = 0; j < sizeof ops / sizeof ops[0]; j++)
		if (!strcmp(ops[j], n))
			return 0;
	if (num_op_lookup(n) >= 0 && strcmp(n, "is-finite"))
		return 0;
	return -1;
}

/* An elementwise op reads element i of each operand, or element 0 of
 * a one-element operand. */
static int
check_elementwise(struct chk *k, const struct comp *c, const struct instr *in)
{
	int64_t n = shape_elements(&in->shape);

	if (!(in->op->flags & OPF_ELEMENTWISE) && in->op->op != OP_MAP)
		return 0;
	for (int j = 0; j < in->nops; j++) {
		int64_t e = shape_elements(operand(c, in, j));

		if (shape_is_tuple(operand(c, in, j)) || (e != n && e != 1))
			return no(k, "'%s': operand %d has %lld elements, "
				  "not %lld", in->name, j, (long long)e,
				  (long long)n);
	}
	return 0;
}

static int
check_types(struct chk *k, const struct comp *c, const struct instr *in)
{
	int from = same_type_from(in), ew = num_op_lookup(in->op->name);
	int last = !strcmp(in->op->name, "dynamic-update-slice") ? 2 :
		   in->nops;

	if (ew == EW_ABS && in->nops == 1 &&
	    num_kind(operand(c, in, 0)->type) == NK_C)
		from = -1;	/* |complex| is real */
	if (!types_ok(&in->shape))
		return no(k, "'%s': element type of %s", in->name,
			  in->op->name);
	for (int j = 0; j < in->nops; j++)
		if (!types_ok(operand(c, in, j)))
			return no(k, "'%s': element type of an operand",
				  in->name);
	for (int j = from; from >= 0 && j < last; j++)
		if (shape_is_tuple(operand(c, in, j)) ||
		    operand(c, in, j)->type != in->shape.type)
			return no(k, "'%s': operand types differ", in->name);
	if (ew >= 0 && (in->nops != 1 + (ew >= EW_NUNARY) ||
			!num_op_accepts(ew, num_kind(operand(c, in, 0)->type))))
		return no(k, "'%s': %s of this type", in->name, in->op->name);
	if (shape_is_tuple(&in->shape) && in->op->op != OP_REDUCE &&
	    in->op->op != OP_SORT && !array_tuple_ok(in->op->name))
		return no(k, "'%s': %s of a tuple", in->name, in->op->name);
	return check_elementwise(k, c, in);
}

static int
check_forward(struct chk *k, const struct comp *c, const struct instr *in)
{
	const struct shape *s = &in->shape;

	switch (in->op->op) {
	case OP_GTE:
		if (in->nops == 1 && shape_is_tuple(operand(c, in, 0)) &&
		    in->index >= 0 && in->index < operand(c, in, 0)->nelem &&
		    fits(&operand(c, in, 0)->elems[in->index], s))
			return 0;
		break;
	case OP_TUPLE:
		if (!shape_is_tuple(s) || s->nelem != in->nops)
			break;
		for (int j = 0; j < in->nops; j++)
			if (!fits(&s->elems[j], operand(c, in, j)))
				return no(k, "'%s': tuple of this form",
					  in->name);
		return 0;
	default:	/* add-dependency also takes a token */
		if ((in->nops == 1 || (in->nops == 2 && in->op->op ==
				       OP_ADD_DEPENDENCY)) &&
		    fits(operand(c, in, 0), s))
			return 0;
		break;
	}
	return no(k, "'%s': %s of this form", in->name, in->op->name);
}

/* An async-update that binds late: operands past its chain's, or a
 * shape not its operand's (the stub binds them: stubs.c). */
static int
late_update(const struct comp *c, const struct instr *in)
{
	const struct shape *s = &in->shape, *q;

	if (in->nops < 1)
		return 0;
	q = operand(c, in, 0);
	return (in->nops > 1 || !fits(q, s)) && shape_is_tuple(s) &&
	       s->nelem >= 2 && shape_is_tuple(&s->elems[0]) &&
	       shape_is_tuple(q) && q->nelem >= 2 &&
	       shape_is_tuple(&q->elems[0]);
}

/* An async-start whose computation takes operands its chain binds later,
 * or whose result it binds later (an empty {1}). */
static int
late_start(struct chk *k, const struct comp *c, const struct instr *in)
{
	int d = comp_of(k->m, in, "calls", 0);
	const struct shape *r = &in->shape.elems[1];

	(void)c;
	return d >= 0 && (k->m->comps[d].nparam > in->nops ||
			  (shape_is_tuple(r) && !r->nelem));
}

static int
check_late_start(struct chk *k, const struct comp *c, const struct instr *in)
{
	const struct comp *d = &k->m->comps[comp_of(k->m, in, "calls", 0)];

	for (int j = 0; j < in->nops; j++)
		if (!param_shape(d, j) || !fits(param_shape(d, j),
						operand(c, in, j)))
			return no(k, "'%s': computation '%s' does not fit "
				  "its call", in->name, d->name);
	return 0;
}

/* copy-start: (destination, source, context) of one array;
 * copy-done: the destination. */
static int
check_async_copy(struct chk *k, const struct comp *c, const struct instr *in)
{
	const struct shape *s = in->op->op == OP_COPY_START ? &in->shape :
				in->nops == 1 ? operand(c, in, 0) : NULL;
	const struct shape *a = in->op->op == OP_COPY_START && in->nops == 1 ?
				operand(c, in, 0) : &in->shape;

	if (!s || !shape_is_tuple(s) || s->nelem != 3 ||
	    shape_is_tuple(&s->elems[0]) || shape_is_tuple(&s->elems[2]) ||
	    !fits(&s->elems[0], a) || !fits(&s->elems[1], a) ||
	    !types_ok(s))
		return no(k, "'%s': %s of this form", in->name, in->op->name);
	return 0;
}

static int
check_instr(struct chk *k, const struct comp *c, const struct instr *in)
{
	char why[200];

	if (!in->op)
		return no(k, "'%s': unknown op", in->name);
	switch (in->op->op) {
	case OP_PARAMETER:
		return types_ok(&in->shape) ? 0 :
			no(k, "'%s': element type of parameter", in->name);
	case OP_CONSTANT:
		switch (literal_write(in, NULL, why, sizeof why)) {
		case 0: return 0;
		case -2: if (k->fill_elided && types_ok(&in->shape)) return 0;
			/* fall through */
		default: return no(k, "'%s': %s", in->name, why);
		}
	case OP_ASYNC_UPDATE:
		return late_update(c, in) ? 0 : check_forward(k, c, in);
	case OP_GTE: case OP_TUPLE: case OP_BITCAST: case OP_OPT_BARRIER:
	case OP_ADD_DEPENDENCY: case OP_DOMAIN:
		return check_forward(k, c, in);
	case OP_COPY:	/* of a tuple: forwards its elements */
		if (shape_is_tuple(&in->shape))
			return check_forward(k, c, in);
		break;
	case OP_COPY_START: case OP_COPY_DONE:
		return check_async_copy(k, c, in);
	case OP_WHILE: return check_while(k, c, in);
	case OP_CONDITIONAL: return check_conditional(k, c, in);
	case OP_CALL: return check_apply(k, c, in, "to_apply", &in->shape);
	case OP_FUSION: return check_apply(k, c, in, "calls", &in->shape);
	case OP_ASYNC_START:	/* ((operands), result, context...) */
		if (!shape_is_tuple(&in->shape) || in->shape.nelem < 2)
			return no(k, "'%s': async-start of this form",
				  in->name);
		if (late_start(k, c, in))
			return check_late_start(k, c, in);
		return check_apply(k, c, in, "calls", &in->shape.elems[1]);
	default: break;
	}
	if (!array_known(in->op->name))
		return no(k, "unsupported op '%s' ('%s')", in->op->name,
			  in->name);
	if (check_types(k, c, in) < 0)
		return -1;
	if (in->op->op == OP_REDUCE || in->op->op == OP_MAP)
		return check_scalar_apply(k, c, in);
	if (in->op->op == OP_SORT)
		return check_sort(k, c, in);
	return 0;
}

static int
check_comp(struct chk *k, int c, char *seen)
{
	const struct comp *cp = &k->m->comps[c];

	if (seen[c])
		return 0;
	seen[c] = 1;
	if (cp->root < 0 || cp->root >= cp->ninstr)
		return no(k, "computation '%s' has no root", cp->name);
	for (int j = 0; j < cp->nparam; j++)
		if (cp->params[j] < 0)
			return no(k, "computation '%s' lacks parameter %d",
				  cp->name, j);
	for (int i = 0; i < cp->ninstr; i++) {
		const struct instr *in = &cp->instrs[i];

		if (check_instr(k, cp, in) < 0)
			return -1;
		for (int j = 0; j < in->ncall; j++)
			if (check_comp(k, in->calls[j], seen) < 0)
				return -1;
	}
	return 0;
}

int
interp_check(const struct module *m, const struct interp_opts *o, char *why,
	     size_t n)
{
	struct chk k = {m, o->fill_elided, why, n};
	char *seen = calloc((size_t)m->ncomp + 1, 1);
	int r;

	if (!seen)
		return no(&k, "out of memory");
	why[0] = 0;
	r = m->entry >= 0 && m->entry < m->ncomp ?
		check_comp(&k, m->entry, seen) : no(&k, "no entry");
	free(seen);
	return r;
}

static int
most_branches(const struct module *m, int c, char *seen)
{
	const struct comp *cp = &m->comps[c];
	int most = 0;

	if (seen[c])
		return 0;
	seen[c] = 1;
	for (int i = 0; i < cp->ninstr; i++) {
		const struct instr *in = &cp->instrs[i];
		int n = 0;

		if (in->op && in->op->op == OP_CONDITIONAL)
			n = in->nops && operand(cp, in, 0)->type == DT_PRED ?
				2 : in->ncall;
		for (int j = 0; j < in->ncall; j++) {
			int d = most_branches(m, in->calls[j], seen);

			n = d > n ? d : n;
		}
		most = n > most ? n : most;
	}
	return most;
}

int
interp_branches(const struct module *m)
{
	char *seen = calloc((size_t)m->ncomp + 1, 1);
	int n;

	if (!seen)
		return 0;
	n = m->entry >= 0 && m->entry < m->ncomp ?
		most_branches(m, m->entry, seen) : 0;
	free(seen);
	return n;
}

/* ---- comparing two runs ------------------------------------------------- */

/* Element i's index, "[a,b,c]". */
static void
index_text(const struct leaf *l, int64_t i, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "[");

	for (int d = 0; d < l->rank && k < n; d++) {
		int64_t stride = 1, x;

		for (int e = d + 1; e < l->rank; e++)
			stride *= l->dims[e];
		x = stride && l->dims[d] ? i / stride % l->dims[d] : 0;
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? "," : "",
				      (long long)x);
	}
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

int
interp_compare(const struct outputs *a, const struct outputs *b, char *msg,
	       size_t n)
{
	if (a->n != b->n) {
		snprintf(msg, n, "%d arrays in the result, not %d", b->n,
			 a->n);
		return 1;
	}
	for (int k = 0; k < a->n; k++) {
		const struct leaf *x = &a->leaf[k], *y = &b->leaf[k];
		int es = num_size(x->type);
		char idx[128], vx[64], vy[64];

		if (x->bytes == y->bytes && !memcmp(x->data, y->data,
						    (size_t)x->bytes))
			continue;
		for (int64_t i = 0; i * es < x->bytes; i++) {
			if (!memcmp(x->data + i * es, y->data + i * es,
				    (size_t)es))
				continue;
			index_text(x, i, idx, sizeof idx);
			num_format(x->type, x->data, i, vx, sizeof vx);
			num_format(y->type, y->data, i, vy, sizeof vy);
			snprintf(msg, n, "result %s element %s: reference "
				 "%s, planned %s", x->path, idx, vx, vy);
			return 1;
		}
		snprintf(msg, n, "result %s differs in size", x->path);
		return 1;
	}
	return 0;
}

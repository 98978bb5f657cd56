/* Operands agree with their instruction, as XLA's HloVerifier checks them:
 * the operand count of opcodes that fix it, and shapes where values share
 * storage (ShapeUtil::Compatible: element types and dimensions, layouts
 * aside): tuples, get-tuple-element, while, conditional, call, in-place ops
 * and input_output_alias.  Buffers are sized from shapes, so a mismatch
 * would give a plan that cannot hold its values. */
#include <stdio.h>
#include <string.h>

#include "frontend/frontend_internal.h"

/* Tuples nest at most SHAPE_MAX_DEPTH deep, which bounds the recursion. */
int
shape_compatible(const struct shape *a, const struct shape *b)
{
	if (a->type != b->type || a->rank != b->rank || a->nelem != b->nelem)
		return 0;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return 0;
	for (int i = 0; i < a->nelem; i++)
		if (!shape_compatible(&a->elems[i], &b->elems[i]))
			return 0;
	return 1;
}

/* 1 when shape a (what `as` says it is) agrees with shape b (`bs`);
 * else reports both against in. */
static int
agree(struct parser *P, const struct instr *in, const struct shape *a,
      const char *as, const struct shape *b, const char *bs)
{
	if (shape_compatible(a, b))
		return 1;
	diag_error(P->ds, in->loc, "%s, %s, does not match %s, %s", as,
		   shape_text(P->pool, a), bs, shape_text(P->pool, b));
	return 0;
}

/* agree() when the shapes do not fit, else 1: the descriptions, strings
 * made in the pool, are only made for a message (they were a twentieth
 * of the frontend on L05). */
#define AGREE(P, in, a, as, b, bs) \
	(shape_compatible((a), (b)) || agree((P), (in), (a), (as), (b), (bs)))

/* "the shape of 'name'" */
static const char *
shape_of(struct parser *P, const struct instr *in)
{
	return pool_printf(P->pool, "the shape of '%s'", in->name);
}

static const struct shape *
operand_shape(const struct comp *c, const struct instr *in, int k)
{
	return &c->instrs[in->ops[k]].shape;
}

static void
agree_tuple(struct parser *P, const struct comp *c, const struct instr *in)
{
	if (in->nops != in->shape.nelem || !shape_is_tuple(&in->shape)) {
		diag_error(P->ds, in->loc, "tuple '%s' has %d operand%s for a "
			   "shape of %d element%s", in->name, in->nops,
			   in->nops == 1 ? "" : "s", in->shape.nelem,
			   in->shape.nelem == 1 ? "" : "s");
		return;
	}
	for (int k = 0; k < in->nops; k++)
		if (!AGREE(P, in, &in->shape.elems[k],
			   pool_printf(P->pool, "element %d of the shape of "
				       "'%s'", k, in->name),
			   operand_shape(c, in, k),
			   pool_printf(P->pool, "its operand '%s'",
				       in->opname[k])))
			return;
}

static void
agree_gte(struct parser *P, const struct comp *c, const struct instr *in)
{
	const struct shape *t = operand_shape(c, in, 0);

	if (!shape_is_tuple(t) || in->index < 0 || in->index >= t->nelem)
		return;		/* reported by check_gte */
	(void)AGREE(P, in, &in->shape, shape_of(P, in), &t->elems[in->index],
		    pool_printf(P->pool, "element %lld of '%s'",
				(long long)in->index, in->opname[0]));
}

/* The shapes of callee d: its parameter `param` (NULL when it has none)
 * and its ROOT. */
static const struct shape *
param_shape(const struct module *m, int d, int param)
{
	const struct comp *dc = &m->comps[d];

	if (param >= dc->nparam || !dc->params || dc->params[param] < 0)
		return NULL;
	return &dc->instrs[dc->params[param]].shape;
}

static const struct shape *
root_shape(const struct module *m, int d)
{
	const struct comp *dc = &m->comps[d];

	return dc->root >= 0 ? &dc->instrs[dc->root].shape : NULL;
}

/* Parameter `param` of callee d takes operand k of in. */
static int
agree_param(struct parser *P, const struct module *m, const struct comp *c,
	    const struct instr *in, int d, int param, int k)
{
	const struct shape *s = param_shape(m, d, param);

	if (!s || k >= in->nops)
		return 1;
	return AGREE(P, in, s, pool_printf(P->pool, "parameter %d of '%s'",
					   param, m->comps[d].name),
		     operand_shape(c, in, k),
		     pool_printf(P->pool, "the operand '%s' of '%s'",
				 in->opname[k], in->name));
}

/* The ROOT of callee d gives in's result. */
static int
agree_root(struct parser *P, const struct module *m, const struct instr *in,
	   int d)
{
	const struct shape *s = root_shape(m, d);

	if (!s)
		return 1;
	return AGREE(P, in, &in->shape, shape_of(P, in), s,
		     pool_printf(P->pool, "the ROOT of '%s'",
				 m->comps[d].name));
}

/* A while's state: XLA's verifier checks its operand against the body's
 * and the condition's parameter, and its result against the body's ROOT.
 * A plan also needs the body's ROOT to fit the body's parameter, which it
 * becomes in the next iteration. */
static void
agree_while(struct parser *P, const struct module *m, const struct comp *c,
	    const struct instr *in)
{
	for (int j = 0; j < in->ncall; j++) {
		int body = !strcmp(in->callkey[j], "body");
		const struct shape *s = param_shape(m, in->calls[j], 0);
		const struct shape *r = root_shape(m, in->calls[j]);

		if (!agree_param(P, m, c, in, in->calls[j], 0, 0) ||
		    (body && !agree_root(P, m, in, in->calls[j])))
			return;
		if (body && s && r && !shape_compatible(s, r)) {
			diag_error(P->ds, in->loc, "the ROOT of '%s', %s, does "
				   "not match its parameter, %s: the state of "
				   "while loop '%s' would change shape from "
				   "one iteration to the next",
				   m->comps[in->calls[j]].name,
				   shape_text(P->pool, r),
				   shape_text(P->pool, s), in->name);
			return;
		}
	}
}

/* A conditional's branch j takes operand j + 1 and gives its result; a
 * call's computation takes every operand. */
static void
agree_calls(struct parser *P, const struct module *m, const struct comp *c,
	    const struct instr *in)
{
	for (int j = 0; j < in->ncall; j++) {
		int d = in->calls[j];

		if (in->op->op == OP_CALL) {
			for (int k = 0; k < in->nops; k++)
				if (!agree_param(P, m, c, in, d, k, k))
					return;
		} else if (!agree_param(P, m, c, in, d, 0, j + 1)) {
			return;
		}
		if (!agree_root(P, m, in, d))
			return;
	}
}

/* Opcodes with a fixed number of operands (a range for a few: a sparse dot
 * has a third, its metadata). */
static const struct arity {
	const char *name;
	int min, max;
} arities[] = {
	{"abs", 1, 1}, {"acos", 1, 1}, {"acosh", 1, 1}, {"add", 2, 2},
	{"and", 2, 2}, {"asin", 1, 1}, {"asinh", 1, 1}, {"atan", 1, 1},
	{"atan2", 2, 2}, {"atanh", 1, 1}, {"bitcast", 1, 1},
	{"bitcast-convert", 1, 1}, {"broadcast", 1, 1}, {"cbrt", 1, 1},
	{"ceil", 1, 1}, {"clamp", 3, 3}, {"clz", 1, 1}, {"compare", 2, 2},
	{"complex", 2, 2}, {"convert", 1, 1}, {"copy", 1, 1},
	{"copy-done", 1, 1}, {"copy-start", 1, 1}, {"cosh", 1, 1},
	{"cosine", 1, 1}, {"divide", 2, 2}, {"dot", 2, 3},
	{"dynamic-slice", 2, 1 << 30}, {"dynamic-update-slice", 3, 1 << 30},
	{"erf", 1, 1}, {"exponential", 1, 1}, {"exponential-minus-one", 1, 1},
	{"floor", 1, 1}, {"get-tuple-element", 1, 1}, {"imag", 1, 1},
	{"iota", 0, 0}, {"is-finite", 1, 1}, {"log", 1, 1},
	{"log-plus-one", 1, 1}, {"logistic", 1, 1}, {"maximum", 2, 2},
	{"minimum", 2, 2}, {"multiply", 2, 2}, {"negate", 1, 1},
	{"not", 1, 1}, {"or", 2, 2}, {"pad", 2, 2}, {"popcnt", 1, 1},
	{"power", 2, 2}, {"real", 1, 1}, {"reduce-precision", 1, 1},
	{"remainder", 2, 2}, {"reshape", 1, 1}, {"reverse", 1, 1},
	{"round-nearest-afz", 1, 1}, {"round-nearest-even", 1, 1},
	{"rsqrt", 1, 1}, {"scaled-dot", 4, 4}, {"select", 3, 3}, {"shift-left", 2, 2},
	{"shift-right-arithmetic", 2, 2}, {"shift-right-logical", 2, 2},
	{"sign", 1, 1}, {"sine", 1, 1}, {"sinh", 1, 1}, {"slice", 1, 1},
	{"sqrt", 1, 1}, {"stochastic-convert", 2, 2}, {"subtract", 2, 2},
	{"tan", 1, 1}, {"tanh", 1, 1}, {"transpose", 1, 1}, {"while", 1, 1},
	{"xor", 2, 2},
};

static int
agree_arity(struct parser *P, const struct instr *in)
{
	for (size_t i = 0; i < sizeof arities / sizeof arities[0]; i++) {
		const struct arity *a = &arities[i];

		if (a->name[0] != in->op->name[0] ||	/* before the call */
		    strcmp(a->name, in->op->name))
			continue;
		if (in->nops >= a->min && in->nops <= a->max)
			return 1;
		if (a->min == a->max)
			diag_error(P->ds, in->loc, "%s '%s' takes %d operand%s, "
				   "not %d", a->name, in->name, a->min,
				   a->min == 1 ? "" : "s", in->nops);
		else
			diag_error(P->ds, in->loc, "%s '%s' takes at least %d "
				   "operands, not %d", a->name, in->name,
				   a->min, in->nops);
		return 0;
	}
	return 1;
}

/* A bitcast reinterprets bytes: XLA's (layout-sensitive) verifier refuses
 * one whose output and operand differ in size, as an array and a tuple's
 * index table do. */
static void
agree_bitcast(struct parser *P, const struct comp *c, const struct instr *in)
{
	const struct shape *o = operand_shape(c, in, 0);

	if (shape_is_tuple(o) != shape_is_tuple(&in->shape))
		diag_error(P->ds, in->loc, "bitcast '%s' turns %s, %s, into "
			   "%s, %s: XLA's verifier refuses a bitcast whose "
			   "output and operand differ in size", in->name,
			   shape_is_tuple(o) ? "a tuple" : "an array",
			   shape_text(P->pool, o),
			   shape_is_tuple(o) ? "an array" : "a tuple",
			   shape_text(P->pool, &in->shape));
}

static void
agree_instr(struct parser *P, const struct module *m, const struct comp *c,
	    const struct instr *in)
{
	for (int k = 0; k < in->nops; k++)
		if (in->ops[k] < 0)
			return;		/* reported: undefined operand */
	if (!in->op || !agree_arity(P, in))
		return;
	switch (in->op->op) {
	case OP_TUPLE:
		agree_tuple(P, c, in);
		break;
	case OP_GTE:
		if (in->nops == 1)
			agree_gte(P, c, in);
		break;
	case OP_WHILE:
		agree_while(P, m, c, in);
		break;
	case OP_CALL:
	case OP_CONDITIONAL:
		agree_calls(P, m, c, in);
		break;
	case OP_BITCAST:
		agree_bitcast(P, c, in);
		break;
	case OP_DUS:
	case OP_OPT_BARRIER:
		if (in->nops >= 1)
			(void)AGREE(P, in, &in->shape, shape_of(P, in),
				    operand_shape(c, in, 0),
				    pool_printf(P->pool, "its operand '%s'",
						in->opname[0]));
		break;
	default:
		break;
	}
}

/* XLA's verifier pairs each start of a collective or a copy with its
 * done (VerifyAsynchronousInstructionPairs): the done's operand is its
 * start, and the start has that done as its one user.  A plan hands the
 * start's bytes to the done, so a pair that is not one has no plan. */
static const char *const async_pairs[][2] = {
	{"all-reduce-start", "all-reduce-done"},
	{"all-gather-start", "all-gather-done"},
	{"collective-permute-start", "collective-permute-done"},
	{"copy-start", "copy-done"},
};

static int
pair_of(const struct instr *in, int end)
{
	for (int p = 0; p < 4; p++)
		if (in->op && !strcmp(in->op->name, async_pairs[p][end]))
			return p;
	return -1;
}

static void
agree_done(struct parser *P, const struct comp *c, const struct instr *in,
	   int p)
{
	const struct instr *s = &c->instrs[in->ops[0]];

	if (pair_of(s, 0) != p)
		diag_error(P->ds, in->loc, "the operand of %s '%s' is '%s', "
			   "%s %s: XLA's verifier wants the %s it ends",
			   async_pairs[p][1], in->name, s->name,
			   s->op ? "a" : "an", s->op ? s->op->name : "unknown op",
			   async_pairs[p][0]);
}

/* users[i]: how many instructions read i; last[i]: the last of them. */
static void
agree_start(struct parser *P, const struct comp *c, int i, int p,
	    const int *users, const int *last)
{
	const struct instr *in = &c->instrs[i];
	int n = users[i];

	if (n != 1 || pair_of(&c->instrs[last[i]], 1) != p)
		diag_error(P->ds, in->loc, "%s '%s' has %d user%s%s: XLA's "
			   "verifier wants one, the %s that ends it",
			   async_pairs[p][0], in->name, n, n == 1 ? "" : "s",
			   n == 1 ? ", not a done" : "", async_pairs[p][1]);
}

/* The shapes of a start: all-reduce-start gives what all-reduce gives (its
 * operand, or a tuple of its operands), its done the same; the others a
 * tuple (operands, results[, contexts]). */
static void
agree_start_shape(struct parser *P, const struct comp *c,
		  const struct instr *in, int p)
{
	const struct shape *s = &in->shape;

	if (p == 0 && in->nops == 1) {
		(void)AGREE(P, in, s, shape_of(P, in), operand_shape(c, in, 0),
			    pool_printf(P->pool, "its operand '%s'",
					in->opname[0]));
	} else if (p == 0 && (!shape_is_tuple(s) || s->nelem != in->nops)) {
		diag_error(P->ds, in->loc, "the shape of '%s', %s, is not a "
			   "tuple of its %d operands, as all-reduce-start "
			   "gives", in->name, shape_text(P->pool, s), in->nops);
	} else if (p == 0) {
		for (int k = 0; k < in->nops; k++)
			if (!AGREE(P, in, &s->elems[k], pool_printf(P->pool,
				   "element %d of the shape of '%s'", k,
				   in->name), operand_shape(c, in, k),
				   pool_printf(P->pool, "its operand '%s'",
					       in->opname[k])))
				return;
	} else if (!shape_is_tuple(s) || s->nelem < 2) {
		diag_error(P->ds, in->loc, "the shape of '%s', %s, is not a "
			   "tuple: %s gives (operands, results[, contexts])",
			   in->name, shape_text(P->pool, s), in->op->name);
	}
}

static void
agree_async(struct parser *P, const struct comp *c, int i, const int *users,
	    const int *last)
{
	const struct instr *in = &c->instrs[i];
	int p;

	for (int k = 0; k < in->nops; k++)
		if (in->ops[k] < 0)
			return;		/* reported: undefined operand */
	if ((p = pair_of(in, 1)) >= 0 && in->nops == 1) {
		agree_done(P, c, in, p);
		if (p == 0 && pair_of(&c->instrs[in->ops[0]], 0) == 0)
			(void)AGREE(P, in, &in->shape, shape_of(P, in),
				    operand_shape(c, in, 0), pool_printf(
					    P->pool, "its operand '%s'",
					    in->opname[0]));
	} else if ((p = pair_of(in, 0)) >= 0) {
		agree_start(P, c, i, p, users, last);
		if (p < 3)
			agree_start_shape(P, c, in, p);
	}
}

/* A "control_dep" custom-call only orders: XLA's verifier counts no
 * such user. */
static int
control_dep(const struct instr *in)
{
	const struct attr *a = instr_attr(in, "custom_call_target");

	return a && a->vlen == 13 && !memcmp(a->val, "\"control_dep\"", 13);
}

/* Each computation's starts and dones, with its users counted once. */
static void
agree_pairs(struct parser *P, const struct comp *c)
{
	int *users = pool_alloc(P->pool, (size_t)c->ninstr * sizeof *users);
	int *last = pool_alloc(P->pool, (size_t)c->ninstr * sizeof *last);

	for (int j = 0; j < c->ninstr; j++)
		for (int k = 0; k < c->instrs[j].nops && !control_dep(
			     &c->instrs[j]); k++) {
			int o = c->instrs[j].ops[k];

			if (o >= 0 && o < j && last[o] != j + 1)
				users[o]++, last[o] = j + 1;
		}
	for (int j = 0; j < c->ninstr; j++)
		last[j]--;
	for (int i = 0; i < c->ninstr; i++)
		agree_async(P, c, i, users, last);
}

/* Output {out} may share parameter `param` at {pidx}: two arrays (of any
 * shapes: copies.c compares their sizes on the target, as XLA's
 * layout-sensitive check does), or tuples of the same shape, where both
 * indices exist (passes report an alias whose do not). */
static void
agree_alias(struct parser *P, const struct module *m, const struct alias *al)
{
	const struct shape *out = root_shape(m, m->entry);
	const struct shape *in = param_shape(m, m->entry, (int)al->param);
	const struct attr *a = NULL;

	for (int i = 0; i < m->nattr; i++)
		if (!strcmp(m->attrs[i].key, "input_output_alias"))
			a = &m->attrs[i];
	if (!out || !in || !a)
		return;
	out = shape_at(out, al->out, al->nout);
	in = shape_at(in, al->pidx, al->npidx);
	if (out && in && (shape_is_tuple(out) || shape_is_tuple(in)) &&
	    !shape_compatible(out, in))
		diag_error(P->ds, a->loc, "input_output_alias: an output, %s, "
			   "does not match the part of parameter %lld it "
			   "aliases, %s", shape_text(P->pool, out),
			   (long long)al->param, shape_text(P->pool, in));
}

void
sema_agree(struct parser *P, const struct module *m)
{
	for (int c = 0; c < m->ncomp; c++)
		for (int i = 0; i < m->comps[c].ninstr; i++)
			agree_instr(P, m, &m->comps[c],
				    &m->comps[c].instrs[i]);
	for (int c = 0; c < m->ncomp; c++)
		agree_pairs(P, &m->comps[c]);
	for (int i = 0; i < m->nalias; i++)
		if (m->aliases[i].param >= 0 &&
		    m->aliases[i].param < m->comps[m->entry].nparam)
			agree_alias(P, m, &m->aliases[i]);
}

/* The parser's actions: they build the IR as parser.y reduces each rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/frontend.h"

struct loc
span_loc(struct parser *P, struct span s)
{
	return lex_loc(P->ls, s.first_off);
}

void
too_deep(struct parser *P, struct span loc)
{
	diag_error(P->ds, span_loc(P, loc),
		   "brackets nested too deeply (memory exhausted)");
	P->syntax_errors++;
	P->aborted = 1;
}

/* A name token without its leading '%', copied into the pool. */
const char *
tok_name(struct parser *P, struct tok t)
{
	const char *s = P->src + t.off;
	size_t n = t.len;

	if (n && *s == '%') {
		s++;
		n--;
	}
	return pool_strndup(P->pool, s, n);
}

void
act_module(struct parser *P, struct tok name, struct span loc)
{
	struct hlofile *f = P->file;

	P->mod = VEC_PUSH(P->pool, f->mods, f->nmod, f->cap);
	P->mod->name = tok_name(P, name);
	P->mod->loc = span_loc(P, loc);
	P->mod->entry = -1;
	P->comp = NULL;
}

void
act_module_attr(struct parser *P, struct attr *a)
{
	struct module *m = P->mod;
	struct attrs l = {m->nattr, m->nattr, m->attrs};

	*VEC_PUSH(P->pool, l.v, l.n, l.cap) = *a;
	m->attrs = l.v;
	m->nattr = l.n;
}

void
act_comp(struct parser *P, int entry, struct tok name, struct span loc)
{
	struct module *m = P->mod;

	P->comp = VEC_PUSH(P->pool, m->comps, m->ncomp, m->cap);
	P->comp->name = tok_name(P, name);
	P->comp->loc = span_loc(P, loc);
	P->comp->is_entry = entry;
	P->comp->root = -1;
	P->nroot = 0;
}

/* The result shape its signature gives the computation being parsed. */
void
act_comp_result(struct parser *P, const struct shape *result, struct span loc)
{
	struct shape *r;

	if (!result)
		return;
	r = pool_alloc(P->pool, sizeof *r);	/* result is in P->tmp */
	*r = *result;
	P->comp->result = r;
	P->comp->result_loc = span_loc(P, loc);
}

/* A zeroed instruction at the end of the computation being parsed.  They
 * gather in a buffer of a pool of their own, which comp_finish copies to
 * the pool at its exact size: growing them in the IR's pool would leave
 * every old copy behind until the end of the run. */
static struct instr *
new_instr(struct parser *P)
{
	struct comp *c = P->comp;
	struct instr *in;

	if (c->ninstr == P->ibuf_cap)
		P->ibuf = vec_grow(P->ibuf_pool, P->ibuf, &P->ibuf_cap,
				   sizeof *in);
	in = &P->ibuf[c->ninstr++];
	memset(in, 0, sizeof *in);
	return in;
}

void
comp_finish(struct parser *P)
{
	struct comp *c = P->comp;
	size_t n = sizeof(struct instr) * (size_t)c->ninstr;

	c->instrs = pool_alloc(P->pool, n ? n : 1);
	if (n)
		memcpy(c->instrs, P->ibuf, n);
	c->cap = c->ninstr;
	if (c->root < 0)
		c->root = c->ninstr - 1;	/* XLA: no ROOT, last is root */
	P->comp = NULL;
}

/* A list of attributes, copied out of the scratch pool. */
static struct attr *
keep_attrs(struct parser *P, const struct attrs *l)
{
	struct attr *v;

	if (!l->n)
		return NULL;
	v = pool_alloc(P->pool, sizeof *v * (size_t)l->n);
	memcpy(v, l->v, sizeof *v * (size_t)l->n);
	return v;
}

/* Between instructions nothing points into the scratch pool, so it is
 * emptied once it holds more than a couple of blocks; it keeps one, whose
 * pages are backed already. */
static void
trim_tmp(struct parser *P)
{
	if (pool_bytes(P->tmp) >= TMP_LIMIT)
		pool_reset(P->tmp);
}

void
act_comp_end(struct parser *P, struct attrs *attrs)
{
	struct comp *c = P->comp;

	if (!c)
		return;
	c->nattr = attrs->n;
	c->attrs = keep_attrs(P, attrs);
	comp_finish(P);
}

struct attr *
act_attr(struct parser *P, struct tok key, struct span kloc, struct span v)
{
	struct attr *a = pool_alloc(P->tmp, sizeof *a);

	a->key = tok_name(P, key);
	a->val = P->src + v.first_off;
	a->vlen = (int)(v.last_off - v.first_off);
	a->loc = span_loc(P, kloc);
	return a;
}

/* The opcode spelled s (n bytes): a known one, or X-start, X-update,
 * X-done around a known X (XLA's ParseOpcode): then *wrapped is X.  The
 * collectives and copies with async opcodes of their own are not wrapped. */
static const struct opinfo *
lookup_opcode(const char *s, size_t n, const struct opinfo **wrapped)
{
	static const char *const sfx[] = {"-start", "-update", "-done"};
	static const char *const async[] = {"async-start", "async-update",
					    "async-done"};
	static const char *const own[] = {"all-gather", "all-reduce",
					  "collective-permute", "copy",
					  "recv", "send"};
	const struct opinfo *op = opcode_lookup(s, n);

	*wrapped = NULL;
	for (int k = 0; !op && k < 3; k++) {
		size_t l = strlen(sfx[k]);

		if (n <= l || memcmp(s + n - l, sfx[k], l))
			continue;
		*wrapped = opcode_lookup(s, n - l);
		for (size_t i = 0; *wrapped && i < sizeof own / sizeof *own;
		     i++)
			if (!strcmp((*wrapped)->name, own[i]))
				*wrapped = NULL;
		if (*wrapped)
			op = opcode_lookup(async[k], strlen(async[k]));
	}
	return op;
}

/* An instruction named name at the end of the computation being parsed;
 * shape NULL when the text leaves it to be inferred. */
static struct instr *
add_instr(struct parser *P, const char *name, struct span nloc,
	  struct shape *shape, const char *ocs, size_t olen,
	  struct span oploc, struct opnds *ops, struct span args,
	  struct attrs *attrs)
{
	struct instr *in = new_instr(P);

	in->name = name;
	in->loc = span_loc(P, nloc);
	if (shape)
		in->shape = *shape;
	in->no_shape = !shape;
	in->op = lookup_opcode(ocs, olen, &in->wrapped);
	if (!in->op)
		diag_error(P->ds, span_loc(P, oploc), "unknown opcode '%.*s'",
			   (int)(olen > 40 ? 40 : olen), ocs);
	in->nops = ops->n;
	in->ops = pool_alloc(P->pool, sizeof(int) * (size_t)(ops->n + 1));
	in->oploc = pool_alloc(P->pool,
			       sizeof(struct loc) * (size_t)(ops->n + 1));
	in->opname = pool_alloc(P->pool, sizeof(char *) * (size_t)(ops->n + 1));
	for (int i = 0; i < ops->n; i++) {
		in->ops[i] = -1;
		in->opname[i] = ops->v[i].name;
		in->oploc[i] = ops->v[i].loc;
	}
	/* The text between the parentheses: a constant's literal. */
	in->literal = P->src + args.first_off + 1;
	in->literal_len = (int)(args.last_off - args.first_off - 2);
	in->param = -1;
	in->index = -1;
	in->nattr = attrs->n;
	in->attrs = keep_attrs(P, attrs);
	return in;
}

void
act_instr(struct parser *P, int root, struct tok name, struct span nloc,
	  struct shape *shape, struct tok opc, struct span oploc,
	  struct opnds *ops, struct span args, struct attrs *attrs)
{
	struct comp *c = P->comp;
	struct instr *in = add_instr(P, tok_name(P, name), nloc, shape,
				     P->src + opc.off, opc.len, oploc, ops,
				     args, attrs);

	in->is_root = root;
	if (root) {
		if (P->nroot++)
			diag_error(P->ds, span_loc(P, nloc),
				   "second ROOT in computation '%s' (the first "
				   "is at %d:%d)", c->name, P->rootloc.line,
				   P->rootloc.col);
		else
			P->rootloc = span_loc(P, nloc);
		c->root = c->ninstr - 1;
	}
	trim_tmp(P);
}

/* A name for an instruction the text does not name: XLA calls nested ones
 * "<opcode>.anon"; a number keeps them apart. */
static const char *
anon_name(struct parser *P, const char *what, size_t n)
{
	return pool_printf(P->pool, "%.*s.anon.%d", (int)n, what, ++P->nanon);
}

/* An instruction nested in an operand list: it is added before the
 * instruction whose operand it is, and that operand names it. */
struct opnd
act_nested(struct parser *P, struct shape *shape, struct tok opc,
	   struct span oploc, struct opnds *ops, struct span args)
{
	struct attrs none = {0};
	const char *ocs = P->src + opc.off;
	struct instr *in = add_instr(P, anon_name(P, ocs, opc.len), oploc,
				     shape, ocs, opc.len, oploc, ops, args,
				     &none);
	struct opnd o = {in->name, in->loc};

	return o;
}

/* An operand named name; name#i#j is get-tuple-element i of name, then j
 * of that, each an instruction of its own whose shape sema infers. */
struct opnd
act_operand(struct parser *P, struct tok name, struct span loc,
	    struct ints *idx)
{
	struct opnd o = {tok_name(P, name), span_loc(P, loc)};

	for (int k = 0; idx && k < idx->n; k++) {
		struct attr *a = pool_alloc(P->tmp, sizeof *a);
		struct attrs attrs = {1, 1, a};
		struct opnds ops = {1, 1, &o};
		struct instr *in;

		a->key = "index";
		a->val = pool_printf(P->pool, "%lld", (long long)idx->v[k]);
		a->vlen = (int)strlen(a->val);
		a->loc = o.loc;
		in = add_instr(P, anon_name(P, "get-tuple-element", 17), loc,
			       NULL, "get-tuple-element", 17, loc, &ops, loc,
			       &attrs);
		in->literal_len = 0;
		o.name = in->name;
	}
	return o;
}

/* b(shape): a buffer (XLA's ShapeUtil::MakeValidatedBufferShape): an
 * array that copy insertion must never copy. */
struct shape *
act_buffer(struct parser *P, struct tok b, struct span loc,
	   struct shape *inner)
{
	if (b.len != 1 || P->src[b.off] != 'b')
		diag_error(P->ds, span_loc(P, loc), "unexpected '(' after '%.*s': "
			   "a shape is a type with dimensions, a tuple, or "
			   "b(array shape)", (int)(b.len > 40 ? 40 : b.len),
			   P->src + b.off);
	else if (shape_is_tuple(inner))
		diag_error(P->ds, span_loc(P, loc), "a buffer shape b(...) holds "
			   "an array, not a tuple");
	inner->is_buffer = 1;
	return inner;
}

/* Ops whose results come from outside the module, run on one device:
 * collectives with one participant (the others, where a shape says there
 * are several, holding the same data), async pairs, and deterministic stubs
 * (custom-calls, infeed, rng) that read every operand and fill every output
 * from a hash of what they read, so that a clobbered operand shows. */
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/arrays.h"
#include "tests/oracle/contract.h"

/* ---- hashing what an op reads, filling what it writes ------------------- */

static uint64_t
fnv(uint64_t h, const unsigned char *p, int64_t n)
{
	for (int64_t k = 0; k < n; k++)
		h = (h ^ p[k]) * 1099511628211u;
	return h;
}

static uint64_t
mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Every array byte of every operand, the op's name and `salt`. */
static uint64_t
hash_operands(struct op *o, const char *name, uint64_t salt)
{
	uint64_t h = fnv(1469598103934665603u ^ salt,
			 (const unsigned char *)name, (int64_t)strlen(name));

	for (int k = 0; k < o->in->nops; k++)
		for (int j = 0; j < shape_nodes(o->as[k]); j++) {
			const struct shape *s = node_shape(o->as[k], j);

			if (!shape_is_tuple(s)) {
				h = fnv(h, o->arg[k][j], node_bytes(s));
				interp_work(o->st, elems(s));
			}
		}
	return h;
}

/* Array `s` at p: values as the parameters get them (floats in [-1, 1],
 * small integers), from seed h. */
static void
fill_array(struct op *o, const struct shape *s, unsigned char *p, uint64_t h)
{
	int64_t n = elems(s);

	for (int64_t i = 0; i < n; i++) {
		uint64_t r = mix(&h);
		union num v;

		memset(&v, 0, sizeof v);
		switch (num_kind(s->type)) {
		case NK_F: v.f = (double)(r >> 11) * 0x1p-52 - 1; break;
		case NK_C:
			v.c.re = (double)(r >> 40) * 0x1p-23 - 1;
			v.c.im = (double)(r & 0xffffff) * 0x1p-23 - 1;
			break;
		case NK_S: v.s = (int64_t)(r % 12) - 2; break;
		case NK_U: v.u = r % 10; break;
		default: v.u = r >> 63; break;
		}
		num_put(s->type, p, i, v);
	}
	interp_work(o->st, n);
}

/* Is output node j an operand's, forwarded (send {0}, recv-done {0})? */
static int
forwards(struct op *o, int j)
{
	int k, n;

	return contract_forward(o->in, (const struct shape *const *)o->as, j,
				&k, &n);
}

static void
fill_outputs(struct op *o, uint64_t h)
{
	const struct shape *s = &o->in->shape;

	for (int j = 0; j < shape_nodes(s); j++)
		if (!shape_is_tuple(node_shape(s, j)) && !forwards(o, j))
			fill_array(o, node_shape(s, j), o->out[j],
				   h + (uint64_t)j * 0x632be59bd9b4e019u);
}

/* A stub: the outputs from the operands and the op's name. */
static void
stub(struct op *o)
{
	const struct attr *a = instr_attr(o->in, "custom_call_target");
	char name[256];

	snprintf(name, sizeof name, "%s%.*s", o->in->op->name,
		 a ? a->vlen > 200 ? 200 : a->vlen : 0, a ? a->val : "");
	interp_stub(o->st, o->in);
	fill_outputs(o, hash_operands(o, name, 0));
}

/* A stub for data from outside (infeed, rng): also by the instruction's
 * name and how many times it ran, the same in every schedule. */
static void
outside(struct op *o)
{
	uint64_t salt = (uint64_t)interp_runs(o->st, o->c, o->i) *
			0x2545f4914f6cdd1du;

	interp_stub(o->st, o->in);
	fill_outputs(o, hash_operands(o, o->in->name, salt));
}

/* ---- custom-calls ------------------------------------------------------- */

static int
target_is(const struct attr *a, const char *t)
{
	return a && (size_t)a->vlen == strlen(t) + 2 &&
	       !memcmp(a->val + 1, t, strlen(t));
}

/* custom-call targets that only pass their operand on (one device). */
int
array_identity_call(const struct instr *in)
{
	static const char *const targets[] = {
		"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
		"annotate_device_placement", "xla.sdy.FuncResultSharding",
		"MoveToHost", "MoveToDevice", "LayoutConstraint",
	};
	const struct attr *a = instr_attr(in, "custom_call_target");

	for (size_t k = 0; a && k < sizeof targets / sizeof targets[0]; k++)
		if (target_is(a, targets[k]))
			return in->nops == 1 && !shape_is_tuple(&in->shape);
	return 0;
}

int
array_call_aliases(const struct instr *in)
{
	return instr_attr(in, "output_to_operand_aliasing") != NULL;
}

static void
custom_call(struct op *o)
{
	if (array_identity_call(o->in) &&
	    shape_bytes(&o->in->shape) == shape_bytes(o->as[0])) {
		memmove(o->out[0], o->arg[0][0],
			(size_t)shape_bytes(o->as[0]));
		return;
	}
	stub(o);
}

static void
zero_id(struct op *o)
{
	union num z = {.u = 0};

	num_put(o->in->shape.type, o->out[0], 0, z);
}

static void
nothing(struct op *o)
{
	(void)o;
}

/* ---- collectives -------------------------------------------------------- */

/* Copies the arrays of tree src (shape s) into dst, node by node. */
static void
copy_tree(struct op *o, unsigned char **dst, unsigned char **src,
	  const struct shape *s, const struct shape *ds)
{
	if (shape_nodes(s) != shape_nodes(ds))
		interp_fail(o->st, INTERP_SKIP, "'%s': %s of this form",
			    o->in->name, o->in->op->name);
	for (int j = 0; j < shape_nodes(s); j++) {
		const struct shape *a = node_shape(s, j);
		const struct shape *b = node_shape(ds, j);

		if (shape_is_tuple(a) != shape_is_tuple(b) ||
		    (!shape_is_tuple(a) && node_bytes(a) != node_bytes(b)))
			interp_fail(o->st, INTERP_SKIP, "'%s': %s of this form",
				    o->in->name, o->in->op->name);
		if (!shape_is_tuple(a) && dst[j] != src[j])
			memmove(dst[j], src[j], (size_t)node_bytes(a));
	}
	interp_work(o->st, shape_elements(s) > 0 ? 1 : 0);
}

/* Output array k (of out, shaped os) of a collective over the operands:
 * its nodes. */
static unsigned char **
out_array(struct op *o, unsigned char **out, const struct shape *os, int k,
	  const struct shape **s)
{
	if (!shape_is_tuple(os)) {
		*s = os;
		return out;
	}
	if (k >= os->nelem || shape_is_tuple(&os->elems[k]))
		interp_fail(o->st, INTERP_SKIP, "'%s': %s of this form",
			    o->in->name, o->in->op->name);
	*s = &os->elems[k];
	return out + shape_child(os, k);
}

/* out[idx] = in[idx mod mod[]] (NULL: in's dims): all-gather (every
 * participant holds the same data), a shard's first block (reduce-scatter),
 * the first chunks (all-to-all). */
static void
tile(struct op *o, unsigned char *dst, const struct shape *ds,
     const unsigned char *src, const struct shape *ss, const int64_t *mod)
{
	int64_t idx[MAXRANK] = {0}, st[MAXRANK], i = 0;
	int es = num_size(ds->type);

	if (ds->rank != ss->rank || ds->type != ss->type || ds->rank > MAXRANK)
		interp_fail(o->st, INTERP_SKIP, "'%s': %s of this form",
			    o->in->name, o->in->op->name);
	strides(ss, st);
	if (elems(ds) == 0 || elems(ss) == 0)
		return;
	do {
		int64_t si = 0;

		for (int d = 0; d < ds->rank; d++)
			si += idx[d] % (mod ? mod : ss->dims)[d] * st[d];
		copy_elem(dst, i++, src, si, es);
	} while (next_index(idx, ds->dims, ds->rank));
	interp_work(o->st, i);
}

/* all-reduce, all-gather, reduce-scatter, all-to-all, collective-
 * broadcast on participant 0 of groups that hold the same data:
 * all-reduce is the operand, all-gather tiles it, reduce-scatter keeps
 * the first shard, all-to-all receives chunk 0 of every participant. */
static void
collective_into(struct op *o, unsigned char **out, const struct shape *os)
{
	for (int k = 0; k < o->in->nops; k++) {
		const struct shape *s, *as = o->as[k];
		unsigned char **dst = out_array(o, out, os, k, &s);

		if (shape_is_tuple(as))
			interp_fail(o->st, INTERP_SKIP, "'%s': %s of a tuple",
				    o->in->name, o->in->op->name);
		if (shape_bytes(s) == shape_bytes(as) && s->type == as->type) {
			if (dst[0] != o->arg[k][0])
				memmove(dst[0], o->arg[k][0],
					(size_t)shape_bytes(as));
			interp_work(o->st, elems(as));
		} else {
			tile(o, dst[0], s, o->arg[k][0], as, NULL);
		}
	}
}

static void
collective(struct op *o)
{
	collective_into(o, o->out, &o->in->shape);
}

/* Participants per group: replica_groups={{0,1},{2,3}} or [G,S]<=[N];
 * 1 when it does not say ({}). */
static int64_t
group_size(struct op *o)
{
	const struct attr *a = instr_attr(o->in, "replica_groups");
	int64_t n = 0;

	if (!a || a->vlen < 2)
		return 1;
	if (a->val[0] == '[') {
		for (int k = 1; k < a->vlen && a->val[k] != ']'; k++)
			if (a->val[k] == ',')
				n = 0;
			else if (a->val[k] >= '0' && a->val[k] <= '9')
				n = n * 10 + (a->val[k] - '0');
		return n > 0 ? n : 1;
	}
	for (int k = 2; a->val[0] == '{' && a->val[1] == '{' && k < a->vlen &&
	     a->val[k] != '}'; k++)
		n += a->val[k] == ',';
	return a->val[0] == '{' && a->val[1] == '{' ? n + 1 : 1;
}

/* all-to-all of groups of k that hold the same data: participant 0 gets
 * chunk 0 of the split dimension from each (array form), or operand 0
 * from each (tuple form). */
static void
all_to_all(struct op *o)
{
	const struct shape *os = &o->in->shape, *s = o->as[0];
	int64_t d, k = group_size(o), dims[MAXRANK];

	if (shape_is_tuple(os)) {
		for (int j = 0; j < os->nelem; j++)
			copy_tree(o, o->out + shape_child(os, j), o->arg[0],
				  s, &os->elems[j]);
		return;
	}
	if (attr_ints(o, "dimensions", &d, 1) != 1 || d >= s->rank ||
	    s->rank > MAXRANK || k < 1 || s->dims[d] % k)
		bad_attr(o, "dimensions");
	memcpy(dims, s->dims, sizeof(int64_t) * (size_t)s->rank);
	dims[d] /= k;
	tile(o, o->out[0], os, o->arg[0][0], s, dims);
}

/* Does a pair of source_target_pairs={{s,t},...} send to device 0? */
static int
receives(struct op *o)
{
	int64_t v[2 * 1024];
	int n = attr_ints(o, "source_target_pairs", v, 2 * 1024);

	for (int k = 1; k < n; k += 2)
		if (v[k] == 0)
			return 1;
	return 0;
}

/* collective-permute: the operand from a source, or zeros when no pair
 * sends to this device (as XLA does). */
static void
permute_into(struct op *o, unsigned char **out, const struct shape *os)
{
	if (receives(o)) {
		collective_into(o, out, os);
		return;
	}
	for (int j = 0; j < shape_nodes(os); j++)
		if (!shape_is_tuple(node_shape(os, j)))
			memset(out[j], 0,
			       (size_t)node_bytes(node_shape(os, j)));
	interp_work(o->st, elems(os) > 0 ? elems(os) : 1);
}

/* An in-place collective-permute (input, output buffer, offsets): its
 * result is operand 1 with what arrives written over it.  On participant
 * 0 of groups that hold the same data, the input's first bytes land at
 * the start of each array: the offsets are not read, since what the run
 * checks is where the bytes live (XLA: the result is operand 1's
 * buffer, so a plan that gives it bytes of its own reads poison). */
static int
permutes_over(const struct op *o)
{
	return o->in->nops == 4 && instr_attr(o->in, "slice_sizes");
}

static void
permute_over(struct op *o, unsigned char **out, const struct shape *os)
{
	const struct shape *is = o->as[0];

	copy_tree(o, out, o->arg[1], o->as[1], os);
	if (!receives(o))
		return;
	for (int j = 0; j < shape_nodes(os) && j < shape_nodes(is); j++) {
		const struct shape *a = node_shape(os, j), *b = node_shape(is, j);
		int64_t n;

		if (shape_is_tuple(a) || shape_is_tuple(b))
			continue;
		n = node_bytes(a) < node_bytes(b) ? node_bytes(a) :
						    node_bytes(b);
		if (out[j] != o->arg[0][j])
			memmove(out[j], o->arg[0][j], (size_t)n);
	}
}

static void
permute(struct op *o)
{
	if (permutes_over(o))
		permute_over(o, o->out, &o->in->shape);
	else
		permute_into(o, o->out, &o->in->shape);
}

/* ragged-all-to-all (input, output, input_offsets, send_sizes,
 * output_offsets, recv_sizes): its result is operand 1 with what arrives
 * written over it (alias_info.cc pairs operand 1 with the output).  On
 * participant 0 of groups that hold the same data, the first half of the
 * output takes the input's first bytes and the rest keeps operand 1's:
 * the offsets and sizes are not read, since what the run checks is where
 * the bytes live (a plan that gives the result bytes of its own reads
 * poison in the second half). */
static void
ragged_all_to_all(struct op *o)
{
	const struct shape *os = &o->in->shape, *is = o->as[0];
	int64_t n;

	if (o->in->nops != 6 || shape_is_tuple(os) || shape_is_tuple(is))
		interp_fail(o->st, INTERP_SKIP, "'%s': %s of this form",
			    o->in->name, o->in->op->name);
	copy_tree(o, o->out, o->arg[1], o->as[1], os);
	n = node_bytes(os) < node_bytes(is) ? node_bytes(os) : node_bytes(is);
	if (o->out[0] != o->arg[0][0])
		memmove(o->out[0], o->arg[0][0], (size_t)(n / 2));
}

/* ---- async pairs -------------------------------------------------------- */

/* Zeros every array of elements from..nelem-1 of tuple s at out. */
static void
zero_from(unsigned char **out, const struct shape *s, int from)
{
	for (int e = from; e < s->nelem; e++) {
		int at = shape_child(s, e);

		for (int j = 0; j < shape_nodes(&s->elems[e]); j++) {
			const struct shape *ns = node_shape(&s->elems[e], j);

			if (!shape_is_tuple(ns))
				memset(out[at + j], 0, (size_t)node_bytes(ns));
		}
	}
}

/* Element 0 of a start's tuple: its operands (one, or a tuple of them).
 * Where XLA forwards them (contract.c) they are the operands' own bytes:
 * nothing is copied, so a plan that puts them elsewhere shows. */
static void
keep_operands(struct op *o)
{
	const struct shape *s = &o->in->shape, *e0 = &s->elems[0];
	unsigned char **dst = o->out + shape_child(s, 0);

	for (int j = 0; j < shape_nodes(e0); j++)
		if (!shape_is_tuple(node_shape(e0, j)) &&
		    forwards(o, shape_child(s, 0) + j))
			return;

	if (permutes_over(o) && !strcmp(o->in->op->name,
					"collective-permute-start")) {
		copy_tree(o, dst, o->arg[0], o->as[0], e0);	/* its input */
		return;
	}
	if (o->in->nops == 1 && !(shape_is_tuple(e0) &&
				  !shape_is_tuple(o->as[0]))) {
		copy_tree(o, dst, o->arg[0], o->as[0], e0);
		return;
	}
	if (!shape_is_tuple(e0) || e0->nelem != o->in->nops)
		interp_fail(o->st, INTERP_SKIP, "'%s': %s of this form",
			    o->in->name, o->in->op->name);
	for (int k = 0; k < o->in->nops; k++)
		copy_tree(o, dst + shape_child(e0, k), o->arg[k], o->as[k],
			  &e0->elems[k]);
}

/* A start's tuple: (operands, result, context...). */
static const struct shape *
start_shape(struct op *o)
{
	const struct shape *s = &o->in->shape;

	if (!shape_is_tuple(s) || s->nelem < 2)
		interp_fail(o->st, INTERP_SKIP, "'%s': %s of this form",
			    o->in->name, o->in->op->name);
	return s;
}

/* Does async computation c take n operands and give what s holds?  Else
 * its chain binds them, or its result, late. */
static int
binds_all(const struct module *m, int c, int n, const struct shape *s)
{
	const struct comp *d = &m->comps[c];

	return d->nparam == n && d->root >= 0 &&
	       shape_nodes(&d->instrs[d->root].shape) == shape_nodes(s) &&
	       !(shape_is_tuple(s) && !s->nelem);
}

/* async-start: runs the wrapped computation now (unless its chain binds
 * operands or the result late: then the update that binds the result);
 * the done's operands must stay intact until it (interp.c checks). */
static void
async_start(struct op *o)
{
	const struct shape *s = start_shape(o);
	int c = called_comp(o->m, o->in, "calls");
	unsigned char **r;

	if (c < 0 && o->in->ncall == 1)
		c = o->in->calls[0];
	if (c < 0)
		bad_attr(o, "calls");
	if (!binds_all(o->m, c, o->in->nops, &s->elems[1])) {
		if (o->in->nops)
			keep_operands(o);
		zero_from(o->out, s, 2);
		return;
	}
	keep_operands(o);
	r = interp_kernel(o->st, c, o->arg);
	copy_tree(o, o->out + shape_child(s, 1), r,
		  &o->m->comps[c].instrs[o->m->comps[c].root].shape,
		  &s->elems[1]);
	zero_from(o->out, s, 2);
}

/* all-gather-start, collective-permute-start: (operands, results,
 * context...). */
static void
collective_start(struct op *o)
{
	const struct shape *s = start_shape(o);
	int permutes = !strcmp(o->in->op->name, "collective-permute-start");

	keep_operands(o);
	if (permutes && permutes_over(o))
		permute_over(o, o->out + shape_child(s, 1), &s->elems[1]);
	else if (permutes)
		permute_into(o, o->out + shape_child(s, 1), &s->elems[1]);
	else
		collective_into(o, o->out + shape_child(s, 1), &s->elems[1]);
	zero_from(o->out, s, 2);
}

/* async-update: its operand, as it is; a done: element 1 of its operand
 * (the result), or the operand itself (all-reduce-done). */
static void
async_pass(struct op *o)
{
	copy_tree(o, o->out, o->arg[0], o->as[0], &o->in->shape);
}

/* The computation an async chain runs: its start's. */
static int
chain_comp(struct op *o)
{
	const struct comp *cp = &o->m->comps[o->c];
	const struct instr *st = o->in;

	for (int n = 0; n <= cp->ninstr && st->op &&
			st->op->op == OP_ASYNC_UPDATE && st->nops >= 1; n++)
		st = &cp->instrs[st->ops[0]];
	if (!st->op || st->op->op != OP_ASYNC_START || st->ncall < 1)
		interp_fail(o->st, INTERP_SKIP, "'%s': async chain of this form",
			    o->in->name);
	return st->calls[0];
}

/* Copies element e of the update's tuple at node `at` from src (shape
 * from) when shapes agree and src is bound; 0 when not. */
static int
take(struct op *o, int at, const struct shape *e, unsigned char **src,
     const struct shape *from)
{
	if (!from || !shape_equal(e, from) ||
	    (shape_is_tuple(from) && !from->nelem))
		return 0;
	copy_tree(o, o->out + at, src, from, e);
	return 1;
}

/* An async-update that binds late (XLA's UpdateAsyncUpdateValueSet):
 * {0, e} is what the chain bound (operand 0's {0, e}, then its operands
 * 1, 2, ...), {1} operand 0's when bound there, else the computation's
 * result, run now on the operands bound; contexts operand 0's. */
static void
async_update_late(struct op *o)
{
	const struct shape *s = &o->in->shape, *q = o->as[0];
	const struct shape *e0 = &s->elems[0], *q0 = &q->elems[0];
	int np = q0->nelem, c = chain_comp(o), n = e0->nelem;
	unsigned char ***args;

	for (int e = 0; e < n; e++) {
		int k = e - np + 1, at = shape_child(s, 0) + shape_child(e0, e);

		if (e < np)
			take(o, at, &e0->elems[e], o->arg[0] + shape_child(q, 0) +
			     shape_child(q0, e), &q0->elems[e]);
		else if (k < o->in->nops)
			take(o, at, &e0->elems[e], o->arg[k], o->as[k]);
	}
	for (int e = 2; e < s->nelem; e++)
		if (e >= q->nelem || !take(o, shape_child(s, e), &s->elems[e],
					   o->arg[0] + shape_child(q, e),
					   &q->elems[e]))
			zero_from(o->out, s, e);
	if (take(o, shape_child(s, 1), &s->elems[1], o->arg[0] +
		 shape_child(q, 1), &q->elems[1]) ||
	    !binds_all(o->m, c, n, &s->elems[1]))
		return;
	args = interp_alloc(o->st, sizeof(void *) * (size_t)(n + 1));
	for (int e = 0; e < n; e++)	/* where the op reads each: its
					   operands (one in place: at {1}) */
		args[e] = e < np ? o->arg[0] + shape_child(q, 0) +
				   shape_child(q0, e) : o->arg[e - np + 1];
	copy_tree(o, o->out + shape_child(s, 1), interp_kernel(o->st, c, args),
		  &o->m->comps[c].instrs[o->m->comps[c].root].shape,
		  &s->elems[1]);
	interp_release(o->st, args);
}

static void
async_update(struct op *o)
{
	const struct shape *s = &o->in->shape, *q = o->as[0];

	if (o->in->nops > 1 || !shape_equal(s, q)) {
		if (!shape_is_tuple(s) || s->nelem < 2 || !shape_is_tuple(q) ||
		    q->nelem < 2 || !shape_is_tuple(&s->elems[0]) ||
		    !shape_is_tuple(&q->elems[0]))
			interp_fail(o->st, INTERP_SKIP, "'%s': async-update "
				    "of this form", o->in->name);
		async_update_late(o);
		return;
	}
	async_pass(o);
}

static void
async_done(struct op *o)
{
	const struct shape *a = o->as[0];

	if (shape_is_tuple(a) && a->nelem >= 2 &&
	    shape_nodes(&a->elems[1]) == shape_nodes(&o->in->shape))
		copy_tree(o, o->out, o->arg[0] + shape_child(a, 1),
			  &a->elems[1], &o->in->shape);
	else
		async_pass(o);
}

/* ---- small ops ---------------------------------------------------------- */

static void
get_dimension_size(struct op *o)
{
	int64_t d;
	union num v;

	need_ints(o, "dimensions", &d, 1, 0);
	if (d >= o->as[0]->rank)
		bad_attr(o, "dimensions");
	v.s = o->as[0]->dims[d];
	num_put(o->in->shape.type, o->out[0], 0,
		num_convert(DT_S64, o->in->shape.type, v));
}

static void
first_operand(struct op *o)
{
	copy_tree(o, o->out, o->arg[0], o->as[0], &o->in->shape);
}

/* real, imag: a part of a complex number (of a real one: itself, 0). */
static void
part(struct op *o)
{
	int64_t n = elems(&o->in->shape);
	int dt = o->as[0]->type, im = !strcmp(o->in->op->name, "imag");

	for (int64_t i = 0; i < n; i++) {
		union num v = num_get(dt, o->arg[0][0], i), r;

		memset(&r, 0, sizeof r);
		if (num_kind(dt) == NK_C)
			r.f = im ? v.c.im : v.c.re;
		else
			r.f = im ? 0 : v.f;
		num_put(o->in->shape.type, o->out[0], i, r);
	}
	interp_work(o->st, n);
}

static void
make_complex(struct op *o)
{
	int64_t n = elems(&o->in->shape);
	int64_t sa = elems(o->as[0]) != 1, sb = elems(o->as[1]) != 1;

	for (int64_t i = 0; i < n; i++) {
		union num r;

		r.c.re = num_get(o->as[0]->type, o->arg[0][0], i * sa).f;
		r.c.im = num_get(o->as[1]->type, o->arg[1][0], i * sb).f;
		num_put(o->in->shape.type, o->out[0], i, r);
	}
	interp_work(o->st, n);
}

const struct kernel stub_kernels[] = {
	{"custom-call", custom_call, 1}, {"partition-id", zero_id, 1},
	{"replica-id", zero_id, 1}, {"after-all", nothing, 1},
	{"all-reduce", collective, 1}, {"all-reduce-start", collective, 1},
	{"all-reduce-done", async_done, 1}, {"all-gather", collective, 1},
	{"all-gather-start", collective_start, 1},
	{"all-gather-done", async_done, 1},
	{"reduce-scatter", collective, 1}, {"all-to-all", all_to_all, 1},
	{"collective-broadcast", collective, 1},
	{"collective-permute", permute, 1},
	{"ragged-all-to-all", ragged_all_to_all, 0},
	{"collective-permute-start", collective_start, 1},
	{"collective-permute-done", async_done, 1},
	{"async-start", async_start, 1}, {"async-update", async_update, 1},
	{"async-done", async_done, 1},
	{"infeed", outside, 1}, {"recv", outside, 1},
	{"rng", outside, 1}, {"rng-get-and-update-state", outside, 1},
	{"rng-bit-generator", stub, 1}, {"outfeed", stub, 1},
	{"send", stub, 1}, {"send-done", stub, 1}, {"recv-done", stub, 1},
	{"cholesky", stub, 1},
	{"triangular-solve", stub, 1}, {"stochastic-convert", stub, 1},
	{"get-dimension-size", get_dimension_size, 1},
	{"set-dimension-size", first_operand, 1},
	{"real", part, 1}, {"imag", part, 1}, {"complex", make_complex, 1},
};
const int stub_nkernels = sizeof stub_kernels / sizeof stub_kernels[0];

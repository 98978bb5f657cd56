/* XLA's HloVerifier checks that the frontend makes after names resolve:
 * operands agree with their opcode, dimension numbers are in range,
 * attributes are ones the opcode takes, the entry layout fits the entry's
 * parameters (xla/service/hlo_verifier.cc, xla/hlo/parser/hlo_parser.cc).
 * Shapes that values share (tuple, get-tuple-element, while, call,
 * conditional, in-place ops) are agree.c's. */
#include <string.h>

#include "frontend/frontend_internal.h"

/* ---- attributes each opcode takes ------------------------------------- */

/* Every instruction takes these (hlo_parser.cc ParseInstructionRhs). */
static const char shared_attrs[] =
	" sharding frontend_attributes statistics parameter_replication "
	"control-predecessors origin metadata backend_config ";

/* The attributes of each opcode beyond the shared ones, as CreateInstruction
 * declares them; cholesky and triangular-solve take their options' fields.
 * An opcode not listed is not checked. */
static const struct opattrs {
	const char *op, *attrs;
} opattrs[] = {
	{"abs", ""}, {"acos", "result_accuracy"}, {"acosh", "result_accuracy"},
	{"add", ""}, {"add-dependency", ""}, {"after-all", ""},
	{"all-gather", "replica_groups channel_id dimensions constrain_layout "
		       "use_global_device_ids"},
	{"all-gather-done", ""},
	{"all-gather-start", "replica_groups channel_id dimensions "
			     "constrain_layout use_global_device_ids"},
	{"all-reduce", "to_apply replica_groups channel_id constrain_layout "
		       "use_global_device_ids mode"},
	{"all-reduce-done", ""},
	{"all-reduce-start", "to_apply replica_groups channel_id "
			     "constrain_layout use_global_device_ids mode"},
	{"all-to-all", "replica_groups channel_id dimensions "
		       "constrain_layout"},
	{"and", ""}, {"asin", "result_accuracy"}, {"asinh", "result_accuracy"},
	{"async-done", "calls async_execution_thread"},
	{"async-start", "calls async_execution_thread "
			"output_to_operand_aliasing"},
	{"async-update", "calls async_execution_thread"}, {"atan2", ""},
	{"atanh", "result_accuracy"},
	{"batch-norm-grad", "epsilon feature_index"},
	{"batch-norm-inference", "epsilon feature_index"},
	{"batch-norm-training", "epsilon feature_index"}, {"bitcast", ""},
	{"bitcast-convert", ""}, {"broadcast", "dimensions"},
	{"call", "to_apply is_composite"}, {"cbrt", "result_accuracy"},
	{"ceil", ""}, {"cholesky", "lower"}, {"clamp", ""}, {"clz", ""},
	{"collective-broadcast", "has_dynamic_root replica_groups channel_id"},
	{"collective-permute", "source_target_pairs channel_id slice_sizes"},
	{"collective-permute-done", ""},
	{"collective-permute-start", "source_target_pairs channel_id "
				     "slice_sizes"},
	{"compare", "direction type"}, {"complex", ""},
	{"concatenate", "dimensions"},
	{"conditional", "true_computation false_computation "
			"branch_computations"},
	{"constant", ""}, {"convert", ""},
	{"convolution", "window dim_labels feature_group_count "
			"batch_group_count convolution_kind operand_precision "
			"algorithm sparsity_config"},
	{"copy", ""}, {"copy-done", ""},
	{"copy-start", "cross_program_prefetch_index"},
	{"cosh", "result_accuracy"}, {"cosine", "result_accuracy"},
	{"custom-call", "custom_call_target window dim_labels "
			"feature_group_count batch_group_count "
			"operand_layout_constraints "
			"custom_call_has_side_effect to_apply "
			"called_computations output_to_operand_aliasing "
			"padding_type literal operand_precision schedule "
			"api_version"},
	{"divide", ""}, {"domain", "domain"},
	{"dot", "lhs_contracting_dims rhs_contracting_dims lhs_batch_dims "
		"rhs_batch_dims operand_precision algorithm"},
	{"dynamic-reshape", ""}, {"dynamic-slice", "dynamic_slice_sizes"},
	{"dynamic-update-slice", ""}, {"erf", "result_accuracy"},
	{"exponential", "result_accuracy"},
	{"exponential-minus-one", "result_accuracy"},
	{"fft", "fft_type fft_length"}, {"floor", ""},
	{"fusion", "calls kind output_to_operand_aliasing"},
	{"gather", "offset_dims collapsed_slice_dims start_index_map "
		   "index_vector_dim slice_sizes indices_are_sorted "
		   "operand_batching_dims start_indices_batching_dims"},
	{"get-dimension-size", "dimensions"}, {"get-tuple-element", "index"},
	{"imag", ""}, {"infeed", "infeed_config"}, {"iota", "iota_dimension"},
	{"is-finite", ""}, {"log", "result_accuracy"},
	{"log-plus-one", "result_accuracy"}, {"logistic", "result_accuracy"},
	{"map", "to_apply dimensions"}, {"maximum", ""}, {"minimum", ""},
	{"multiply", ""}, {"negate", ""}, {"not", ""}, {"opt-barrier", ""},
	{"or", ""}, {"outfeed", "outfeed_config outfeed_shape"},
	{"pad", "padding"}, {"parameter", ""}, {"partition-id", ""},
	{"popcnt", ""}, {"power", ""},
	{"ragged-all-to-all", "replica_groups channel_id dimensions"},
	{"ragged-dot", "lhs_contracting_dims rhs_contracting_dims "
		       "lhs_batch_dims rhs_batch_dims lhs_ragged_dims "
		       "rhs_group_dims operand_precision"},
	{"real", ""}, {"recv", "channel_id is_host_transfer"},
	{"recv-done", "channel_id is_host_transfer"},
	{"reduce", "to_apply dimensions"},
	{"reduce-precision", "exponent_bits mantissa_bits"},
	{"reduce-scatter", "to_apply replica_groups channel_id "
			   "constrain_layout use_global_device_ids mode "
			   "dimensions"},
	{"reduce-window", "window to_apply"}, {"remainder", ""},
	{"replica-id", ""}, {"reshape", "inferred_dimension"},
	{"reverse", "dimensions"}, {"rng", "distribution"},
	{"rng-bit-generator", "algorithm"},
	{"rng-get-and-update-state", "delta"}, {"round-nearest-afz", ""},
	{"round-nearest-even", ""}, {"rsqrt", "result_accuracy"},
	{"scan", "to_apply dimensions num_carries is_reverse is_associative"},
	{"scatter", "update_window_dims inserted_window_dims "
		    "scatter_dims_to_operand_dims index_vector_dim to_apply "
		    "indices_are_sorted unique_indices input_batching_dims "
		    "scatter_indices_batching_dims"},
	{"select", ""}, {"select-and-scatter", "select scatter window"},
	{"send", "channel_id is_host_transfer"},
	{"send-done", "channel_id is_host_transfer"},
	{"set-dimension-size", "dimensions"}, {"shift-left", ""},
	{"shift-right-arithmetic", ""}, {"shift-right-logical", ""},
	{"sign", ""}, {"sine", "result_accuracy"}, {"sinh", "result_accuracy"},
	{"slice", "slice"}, {"sort", "dimensions is_stable to_apply"},
	{"sqrt", "result_accuracy"}, {"stochastic-convert", ""},
	{"subtract", ""}, {"tan", "result_accuracy"},
	{"tanh", "result_accuracy"}, {"topk", "k largest is_stable"},
	{"transpose", "dimensions"},
	{"triangular-solve", "left_side lower unit_diagonal transpose_a"},
	{"tuple", ""}, {"while", "condition body"}, {"xor", ""},
};

static const struct opattrs *
find_opattrs(const char *op, size_t n)
{
	size_t lo = 0, hi = sizeof opattrs / sizeof opattrs[0];

	/* The table is in strcmp order (test_opattrs_sorted checks it). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *k = opattrs[mid].op;
		int c = strncmp(k, op, n);

		if (!c && k[n])
			c = 1;	/* k is longer: it follows op */
		if (!c)
			return &opattrs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *
opattrs_op(size_t i)
{
	return i < sizeof opattrs / sizeof opattrs[0] ? opattrs[i].op : NULL;
}

/* Whether the space-separated list has the word key. */
static int
has_word(const char *list, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = strstr(list, key); p; p = strstr(p + 1, key))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

int
attr_of_every_instr(const char *key)
{
	return has_word(shared_attrs, key);
}

/* "a, b and c" for the words of list, in the pool; NULL for none. */
static const char *
word_list(struct pool *pool, const char *list)
{
	const char *p = list, *last = NULL;
	char *r = NULL;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (n) {
			if (last)
				r = pool_printf(pool, "%s%s%s", r ? r : "",
						r ? ", " : "", last);
			last = pool_strndup(pool, p, n);
		}
		p += n + (p[n] == ' ');
	}
	return r ? pool_printf(pool, "%s and %s", r, last) : last;
}

/* XLA's parser: "unexpected attribute" and "attribute already exists". */
static void
check_attrs(struct parser *P, const struct instr *in)
{
	const struct opattrs *t = find_opattrs(in->op->name,
					       strlen(in->op->name));
	const char *ok;

	for (int i = 0; i < in->nattr; i++) {
		const struct attr *a = &in->attrs[i];

		for (int j = 0; j < i; j++)
			if (!strcmp(in->attrs[j].key, a->key)) {
				diag_error(P->ds, a->loc, "attribute %s is "
					   "given twice", a->key);
				break;
			}
		if (!t || has_word(shared_attrs, a->key) ||
		    has_word(t->attrs, a->key))
			continue;
		ok = word_list(P->pool, t->attrs);
		diag_error(P->ds, a->loc, "unexpected attribute %s: %s takes "
			   "%s%s the attributes of every instruction", a->key,
			   in->op->name, ok ? ok : "only", ok ? ", and" : "");
	}
}

/* ---- shapes ----------------------------------------------------------- */

static const struct shape *
operand_shape(const struct comp *c, const struct instr *in, int k)
{
	return &c->instrs[in->ops[k]].shape;
}

/* Whether the written shape s agrees with the inferred one, precision
 * aside; a dot's and a convolution's element type is the text's (XLA's
 * verifier passes it as preferred_element_type). */
static int
agrees(const struct instr *in, const struct shape *s,
       const struct shape *inferred)
{
	struct shape t = *inferred;

	if (in->op->op == OP_DOT || !strcmp(in->op->name, "convolution") ||
	    same_element_type(t.type, s->type))
		t.type = s->type;
	return shape_compatible(s, &t);
}

/* Opcodes whose result shape agree.c compares, or that hloplan checks by
 * their own rule (broadcast: the verifier's HandleBroadcast). */
static int
checked_elsewhere(int op)
{
	return op == OP_TUPLE || op == OP_GTE || op == OP_WHILE ||
	       op == OP_CALL || op == OP_CONDITIONAL || op == OP_OPT_BARRIER ||
	       op == OP_DUS || op == OP_BROADCAST;
}

static void
check_inferred(struct parser *P, const struct module *m, const struct comp *c,
	       const struct instr *in)
{
	struct shape want;

	if (checked_elsewhere(in->op->op) ||
	    (!shape_is_tuple(&in->shape) && shape_is_dynamic(&in->shape)) ||
	    infer_shape(P, m, c, in, &want) != 1 ||
	    agrees(in, &in->shape, &want))
		return;
	diag_error(P->ds, in->loc, "%s '%s': its shape, %s, is not the %s "
		   "that its operands give", in->op->name, in->name,
		   shape_text(P->pool, &in->shape), shape_text(P->pool, &want));
}

/* The numbers of list attribute key, or -1 when absent or not a list. */
static int
list_attr(struct parser *P, const struct instr *in, const char *key,
	  int64_t **v)
{
	const struct attr *a = instr_attr(in, key);
	const char *p;
	int n;

	if (!a)
		return -1;
	p = a->val;
	n = read_index(P->pool, &p, a->val + a->vlen, v);
	return p == a->val + a->vlen ? n : -1;
}

/* HandleBroadcast: operand dimension i is dimension dimensions[i] of the
 * result, of the same element type.  An operand dimension of size 1 may
 * grow, as MHLO's broadcast_in_dim lets it (the corpus's hlo_to_mhlo
 * tests have such), though XLA's verifier does not. */
static void
check_broadcast(struct parser *P, const struct comp *c,
		const struct instr *in)
{
	const struct shape *s = operand_shape(c, in, 0), *r = &in->shape;
	int64_t *v = NULL;
	int n = list_attr(P, in, "dimensions", &v);

	if (shape_is_tuple(s) || shape_is_tuple(r))
		return;
	if (n < 0 && s->rank == 0)
		n = 0;
	if (!same_element_type(s->type, r->type))
		diag_error(P->ds, in->loc, "broadcast '%s': its operand is %s, "
			   "its result %s", in->name, dtype_name(s->type),
			   dtype_name(r->type));
	if (n != s->rank) {
		diag_error(P->ds, in->loc, "broadcast '%s': dimensions={...} "
			   "needs one entry for each of the %d dimensions of "
			   "its operand", in->name, s->rank);
		return;
	}
	for (int i = 0; i < n; i++)
		if (v[i] < 0 || v[i] >= r->rank ||
		    (r->dims[v[i]] != s->dims[i] && s->dims[i] != 1)) {
			diag_error(P->ds, in->loc, "broadcast '%s': operand "
				   "dimension %d, of size %lld, is not "
				   "dimension %lld of %s", in->name, i,
				   (long long)s->dims[i], (long long)v[i],
				   shape_text(P->pool, r));
			return;
		}
}

/* HandleIota: an array of rank >= 1, iota_dimension in range. */
static void
check_iota(struct parser *P, const struct instr *in)
{
	const struct attr *a = instr_attr(in, "iota_dimension");
	const char *p = a ? a->val : NULL;
	int64_t d;

	if (shape_is_tuple(&in->shape))
		return;
	if (!a || !read_int(&p, a->val + a->vlen, &d) ||
	    p != a->val + a->vlen)
		diag_error(P->ds, in->loc, "iota '%s' needs iota_dimension=N",
			   in->name);
	else if (d < 0 || d >= in->shape.rank)
		diag_error(P->ds, a->loc, "iota_dimension=%lld is out of range "
			   "for %s", (long long)d,
			   shape_text(P->pool, &in->shape));
}

/* HandleReshape, HandleConvert: the element type, or the dimensions, of
 * the result are the operand's; a reshape keeps the element count. */
static void
check_reshape(struct parser *P, const struct comp *c, const struct instr *in)
{
	const struct shape *s = operand_shape(c, in, 0), *r = &in->shape;
	int ok;

	if (shape_is_tuple(s) || shape_is_tuple(r) || shape_is_dynamic(s) ||
	    shape_is_dynamic(r))
		return;
	if (in->op->op == OP_RESHAPE)
		ok = same_element_type(s->type, r->type) &&
		     shape_elements(s) == shape_elements(r);
	else
		ok = s->rank == r->rank &&
		     !memcmp(s->dims, r->dims,
			     sizeof(int64_t) * (size_t)s->rank);
	if (!ok)
		diag_error(P->ds, in->loc, "%s '%s': its shape, %s, does not "
			   "fit its operand, %s", in->op->name, in->name,
			   shape_text(P->pool, r), shape_text(P->pool, s));
}

/* One "[start:limit]" or "[start:limit:stride]" of slice={...}. */
static int
read_range(const char **p, const char *end, int64_t r[3])
{
	r[2] = 1;
	return skip_to(p, end, '[') && read_int(p, end, &r[0]) &&
	       skip_to(p, end, ':') && read_int(p, end, &r[1]) &&
	       (!skip_to(p, end, ':') || read_int(p, end, &r[2])) &&
	       skip_to(p, end, ']');
}

/* Dimension i of a slice of s over range r, or -1 when r does not fit. */
static int64_t
sliced(const struct shape *s, int i, const int64_t r[3])
{
	if (r[0] < 0 || r[0] > r[1] || r[1] > s->dims[i] || r[2] <= 0)
		return -1;
	return (r[1] - r[0] + r[2] - 1) / r[2];
}

/* HandleSlice (InferSliceShape): a range per operand dimension, within
 * it; the result has the ranges' sizes and the operand's element type. */
static void
check_slice(struct parser *P, const struct comp *c, const struct instr *in)
{
	const struct shape *s = operand_shape(c, in, 0), *r = &in->shape;
	const struct attr *a = instr_attr(in, "slice");
	const char *p = a ? a->val : NULL, *end = a ? a->val + a->vlen : NULL;
	int64_t range[3];
	int i = 0, ok;

	if (!a || shape_is_tuple(s) || shape_is_tuple(r) ||
	    shape_is_dynamic(s) || shape_is_dynamic(r))
		return;
	ok = skip_to(&p, end, '{') && same_element_type(s->type, r->type) &&
	     r->rank == s->rank;
	for (; ok && i < s->rank; i++)
		ok = (!i || skip_to(&p, end, ',')) &&
		     read_range(&p, end, range) &&
		     sliced(s, i, range) == r->dims[i];
	if (ok && skip_to(&p, end, '}') && p == end)
		return;
	diag_error(P->ds, in->loc, "slice '%s': its shape, %s, is not a "
		   "slice=%.*s of its operand, %s", in->name,
		   shape_text(P->pool, r), a->vlen > 60 ? 60 : a->vlen, a->val,
		   shape_text(P->pool, s));
}

/* HandleDynamicSlice: the operand's element type and rank, each
 * dimension its dynamic_slice_sizes entry (InferDynamicSliceShape). */
static void
check_dynamic_slice(struct parser *P, const struct comp *c,
		    const struct instr *in)
{
	const struct shape *s = operand_shape(c, in, 0), *r = &in->shape;
	int64_t *v = NULL;
	int n = list_attr(P, in, "dynamic_slice_sizes", &v), ok;

	if (n < 0 || shape_is_tuple(s) || shape_is_tuple(r) ||
	    shape_is_dynamic(s) || shape_is_dynamic(r))
		return;
	ok = same_element_type(s->type, r->type) && r->rank == s->rank &&
	     n == s->rank;
	for (int i = 0; ok && i < n; i++)
		ok = v[i] == r->dims[i] && v[i] >= 0 && v[i] <= s->dims[i];
	if (!ok)
		diag_error(P->ds, in->loc, "dynamic-slice '%s': its shape, %s, "
			   "is not a slice of dynamic_slice_sizes of its "
			   "operand, %s", in->name, shape_text(P->pool, r),
			   shape_text(P->pool, s));
}

/* Whether s names an element type that was reported unknown. */
static int
has_invalid(const struct shape *s)
{
	for (int i = 0; i < s->nelem; i++)
		if (has_invalid(&s->elems[i]))
			return 1;
	return s->type == DT_INVALID;
}

static void
check_instr(struct parser *P, const struct module *m, const struct comp *c,
	    const struct instr *in)
{
	if (!in->op)
		return;
	check_attrs(P, in);
	if (has_invalid(&in->shape))
		return;		/* reported: unknown element type */
	for (int k = 0; k < in->nops; k++)
		if (in->ops[k] < 0 ||
		    has_invalid(&c->instrs[in->ops[k]].shape))
			return;	/* reported: undefined, or unknown type */
	check_inferred(P, m, c, in);
	if (in->op->op == OP_BROADCAST && in->nops == 1)
		check_broadcast(P, c, in);
	else if (in->op->op == OP_IOTA)
		check_iota(P, in);
	else if (in->op->op == OP_SLICE && in->nops == 1)
		check_slice(P, c, in);
	else if (in->op->op == OP_DYNAMIC_SLICE && in->nops >= 1)
		check_dynamic_slice(P, c, in);
	else if ((in->op->op == OP_RESHAPE || in->op->op == OP_CONVERT) &&
		 in->nops == 1)
		check_reshape(P, c, in);
	else if (in->op->op == OP_INFEED && (!shape_is_tuple(&in->shape) ||
					     in->shape.nelem == 0))
		diag_error(P->ds, in->loc, "infeed '%s' must have a non-empty "
			   "tuple shape (data, token), not %s", in->name,
			   shape_text(P->pool, &in->shape));
}

/* HloParser's ParseComputation: the "-> shape" of a signature is
 * compatible with the root's shape (layouts aside). */
static void
check_result(struct parser *P, const struct comp *c)
{
	const struct shape *r;

	if (!c->result || c->root < 0)
		return;
	r = &c->instrs[c->root].shape;
	if (has_invalid(r) || has_invalid(c->result) ||
	    shape_compatible(r, c->result))
		return;
	diag_error(P->ds, c->result_loc, "the shape of computation '%s', %s, "
		   "is not compatible with that of its root '%s', %s", c->name,
		   shape_text(P->pool, c->result), c->instrs[c->root].name,
		   shape_text(P->pool, r));
}

/* ---- the entry layout ------------------------------------------------- */

/* VerifyEntryComputationLayout: as many parameters as the entry has, each
 * of its parameter's element type and dimensions, and so the result. */
void
check_entry_layout(struct parser *P, const struct module *m,
		   const struct attr *a, const struct shape *params,
		   const struct shape *result)
{
	const struct comp *e = &m->comps[m->entry];
	const struct shape *s;

	if (params->nelem != e->nparam) {
		diag_error(P->ds, a->loc, "entry_computation_layout lists %d "
			   "parameter%s; the entry has %d", params->nelem,
			   params->nelem == 1 ? "" : "s", e->nparam);
		return;
	}
	for (int i = 0; i < e->nparam; i++) {
		if (e->params[i] < 0)
			continue;
		s = &e->instrs[e->params[i]].shape;
		if (!shape_compatible(s, &params->elems[i]))
			diag_error(P->ds, a->loc, "entry_computation_layout: "
				   "parameter %d is %s, not %s", i,
				   shape_text(P->pool, &params->elems[i]),
				   shape_text(P->pool, s));
	}
	s = e->root >= 0 ? &e->instrs[e->root].shape : NULL;
	if (s && !shape_compatible(s, result))
		diag_error(P->ds, a->loc, "entry_computation_layout: the "
			   "result is %s, not %s", shape_text(P->pool, result),
			   shape_text(P->pool, s));
}

void
sema_check(struct parser *P, const struct module *m)
{
	for (int c = 0; c < m->ncomp; c++) {
		for (int i = 0; i < m->comps[c].ninstr; i++)
			check_instr(P, m, &m->comps[c],
				    &m->comps[c].instrs[i]);
		check_result(P, &m->comps[c]);
	}
}

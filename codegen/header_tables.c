/* The plan header's tables after the buffers' (header.c writes those): the
 * positions and operands, values, bindings, copies, loops, slot uses and
 * constants of one plan, and the helpers both files use.  A row is what a
 * runtime needs; names point into the step text header.c writes first. */
#include <assert.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/header_internal.h"
#include "ir/ir.h"
#include "passes/passes.h"

/* s as a C string literal; '?' escaped so that no trigraph forms. */
static void
put_cstring_as(FILE *out, const char *s, const char *end)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c == '?')
			codegen_printf(out, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			codegen_printf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
	codegen_printf(out, "%s\"", end);
}

void
hdr_cstring(FILE *out, const char *s)
{
	put_cstring_as(out, s, "");
}

/* The same with a NUL of its own, ending one of a string table's names. */
void
hdr_cstring_nul(FILE *out, const char *s)
{
	put_cstring_as(out, s, "\\0");
}

/* codegen_shape_text, once for a run of positions that share a laid-out
 * shape (16,384 outputs of one shape in a wide tuple). */
static const char *
hdr_text_of(struct hdr *h, const struct shape *s)
{
	if (!s || s != h->last) {
		h->last = s;
		h->last_text = codegen_shape_text(h->pool, s);
	}
	return h->last_text;
}

int
hdr_slot_uses(const struct plan *p)
{
	int n = 0;

	for (int k = 0; k < p->npos; k++)
		n += p->pos[k].slot >= 0 && p->pos[k].defines;
	return n;
}

/* Numbers n a line: a compiler pays little for an int, a reader does
 * not need a line each. */
void
hdr_ints(FILE *out, const int *v, int n, int per_line)
{
	for (int k = 0; k < n; k++)
		codegen_printf(out, "%s%d,", k % per_line ? "" : "\n\t", v[k]);
	fputc('\n', out);
}

/* Parameter or output k of the bindings, and its name. */
const struct plan_pos *
hdr_io_pos(const struct hdr *h, int k)
{
	return &h->p->pos[k < h->b->npar ? h->b->par[k] :
					   h->b->out[k - h->b->npar]];
}

/* The array's own bytes, as the caller holds it: laid out (tiles count),
 * without the alignment the plan pads a buffer to. */
int64_t
hdr_exact_bytes(const struct hdr *h, const struct plan_pos *q)
{
	struct options o;
	int64_t n;

	if (!q->shape)
		return q->size;
	options_default(&o);
	o.target = h->p->target;
	o.align = h->p->align;
	n = target_bytes(&o, q->shape);
	return n < 0 || n > q->size ? q->size : n;
}

/* The step text holds q's instruction name: step q->step's name is
 * "computation/instruction".  Then q's name is written as a pointer into
 * it, and a name is written once however many tables give it. */
static int
name_in_steps(const struct hdr *h, const struct plan_pos *q)
{
	const char *s, *c = q->comp_name, *n = q->name;
	size_t lc;

	if (!h->p->steps || !c || !n || q->step < 0 || q->step >= h->p->ntime)
		return 0;
	s = h->p->steps[q->step];
	lc = strlen(c);
	return !strncmp(s, c, lc) && s[lc] == '/' && !strcmp(s + lc + 1, n);
}

/* q's instruction name, as a pointer into the step text or a literal. */
static void
put_instr_name(struct hdr *h, const struct plan_pos *q)
{
	int at;

	if (!name_in_steps(h, q)) {
		hdr_cstring(h->out, q->name ? q->name : "");
		return;
	}
	at = h->at[q->step];
	codegen_printf(h->out, "%s_T(%d,%d)", h->text_pre, at / STEP_CHUNK,
		at % STEP_CHUNK);
}

/* Buffer i's name: its first value's instruction when that is its name. */
void
hdr_buffer_name(struct hdr *h, int i)
{
	const struct buffer *b = &h->p->bufs[i];
	const struct plan_pos *q = NULL;

	if (h->b->count[i] > 0)
		q = &h->p->pos[h->b->val[h->b->first[i]]];
	if (q && q->name && !strcmp(q->name, b->name) && name_in_steps(h, q))
		put_instr_name(h, q);
	else
		hdr_cstring(h->out, b->name);
}

int
hdr_pos_kind(const struct plan_pos *q)
{
	return q->copied ? 2 : q->defines ? 1 : 0;
}

/* P_positions[], in schedule order, and P_step_first_position[]: where a
 * kernel of step t finds each node of its result, and so each operand.
 * Colocation keeps a value at its host's offset 0, so no position lies
 * inside a buffer today; the field says so rather than assume it. */
static void
put_positions(struct hdr *h)
{
	const struct plan *p = h->p;
	FILE *out = h->out;
	int *first = pool_alloc(h->pool, ((size_t)p->ntime + 2) *
				sizeof *first);
	int32_t t = 0;

	if (h->rows_of) {	/* the same rows: one table */
		codegen_printf(out, "\n#define %s_positions %s_positions\n"
			"#define %s_step_first_position "
			"%s_step_first_position\n", h->pre, h->rows_of,
			h->pre, h->rows_of);
		return;
	}
	codegen_printf(out,
		"\nstatic const struct hloplan_plan_position %s_positions"
		"[%s%s] HLOPLAN_UNUSED = {\n\t/* buffer, offset, slot, index, "
		"defines */", h->pre, p->npos ? h->pre : "1",
		p->npos ? "_NUM_POSITIONS" : "");
	if (!p->npos)
		fputs("\n\t{-1, 0, -1, 0, 0},", out);
	for (int k = 0; k < p->npos; k++) {
		const struct plan_pos *q = &p->pos[k];

		/* in schedule order: t is one past the last step seen */
		assert(q->step >= t - 1 && q->step < p->ntime);
		while (t <= q->step)
			first[t++] = k;
		codegen_printf(out, "%s{%d,0,%d,%d,%d},", k % 16 ? "" : "\n\t",
			q->buf, q->slot, h->ix[k], hdr_pos_kind(q));
	}
	while (t <= p->ntime)
		first[t++] = p->npos;
	fputs("\n};\n", out);
	if (h->pos_of) {	/* the same steps: one table, for size */
		codegen_printf(out, "#define %s_step_first_position "
			"%s_step_first_position\n", h->pre, h->pos_of);
		return;
	}
	codegen_printf(out, "static const int %s_step_first_position"
		"[%s_NUM_STEPS + 1] HLOPLAN_UNUSED = {", h->pre, h->pre);
	hdr_ints(out, first, p->ntime + 1, 32);
	fputs("};\n", out);
}

/* P_operands[] and P_step_first_operand[]: each step's operands in order,
 * each the position of its producer's root node (the operand's other nodes
 * follow it in P_positions[], their indices of depth > 0).  A runtime
 * binds every operand from the positions: no aliasing rule of its own. */
static void
put_operands(struct hdr *h)
{
	const struct plan *p = h->p;
	int n = p->opnd_first ? p->nopnd : 0;
	FILE *out = h->out;

	if (h->pos_of) {	/* the same operands: one table each */
		codegen_printf(out, "\n#define %s_operands %s_operands\n"
			"#define %s_step_first_operand %s_step_first_operand\n",
			h->pre, h->pos_of, h->pre, h->pos_of);
		return;
	}
	codegen_printf(out,
		"\nstatic const int %s_operands[%s%s] HLOPLAN_UNUSED = {",
		h->pre, n ? h->pre : "1", n ? "_NUM_OPERANDS" : "");
	if (n)
		hdr_ints(out, p->opnd, n, 32);
	else
		fputs("-1\n", out);
	codegen_printf(out, "};\nstatic const int %s_step_first_operand"
		"[%s_NUM_STEPS + 1] HLOPLAN_UNUSED = {", h->pre, h->pre);
	if (p->opnd_first) {
		hdr_ints(out, p->opnd_first, p->ntime + 1, 32);
	} else {
		for (int32_t t = 0; t <= p->ntime; t++)
			codegen_printf(out, "%s0,", t % 16 ? " " : "\n\t");
		fputc('\n', out);
	}
	fputs("};\n", out);
}

/* The positions that write each buffer (XLA's assigned values), grouped
 * by buffer; P_buffers[] gives each buffer's range. */
static void
put_values(struct hdr *h)
{
	if (h->values_of) {
		codegen_printf(h->out, "\n#define %s_values %s_values\n",
			h->pre, h->values_of);
		return;
	}
	codegen_printf(h->out,
		"\nstatic const int %s_values[%s%s] HLOPLAN_UNUSED "
		"= {", h->pre, h->b->nval ? h->pre : "1",
		h->b->nval ? "_NUM_VALUES" : "");
	if (h->b->nval)
		hdr_ints(h->out, h->b->val, h->b->nval, 32);
	else
		fputs("-1\n", h->out);
	fputs("};\n", h->out);
}

/* A row of a small table: each field named (HLOPLAN_FIELD). */
static void
field(FILE *out, const char *f)
{
	codegen_printf(out, "HLOPLAN_FIELD(%s) ", f);
}

/* A row's index field: P_ix + at, the entries of a shape index (P_ix
 * itself, the empty one's, at 0). */
static void
put_index_ptr(FILE *out, const char *pre, int at)
{
	if (at)
		codegen_printf(out, "%s_ix+%d", pre, at);
	else
		codegen_printf(out, "%s_ix", pre);
}

static void
put_io_row(struct hdr *h, int k)
{
	const struct plan_pos *q = hdr_io_pos(h, k);
	const struct buffer *b = &h->p->bufs[q->buf];
	const char *pre = h->pre;
	FILE *out = h->out;
	int pos = k < h->b->npar ? h->b->par[k] : h->b->out[k - h->b->npar];

	codegen_printf(out, "\t{%d,%d,", k < h->b->npar ? q->param : -1,
		q->depth);
	put_index_ptr(out, pre, h->ix[pos] + (q->depth > 0));
	codegen_printf(out, ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",", q->buf,
		b->in_arena ? b->offset : -1, q->size, hdr_exact_bytes(h, q));
	hdr_cstring(out, hdr_text_of(h, q->shape));
	codegen_printf(out, ",%d,%d},\n", pos, k < h->b->npar &&
		!shape_is_tuple(q->shape) ? q->survives : -1);
}

/* Opens table P_<name>[]: "static const struct hloplan_plan_<type>
 * P_<name>[P<count>]", or of one placeholder row when it has no rows (C
 * has no empty initializer); fields, a comment naming a row's fields, when
 * it has rows and they are positional. */
static void
open_table(struct hdr *h, const char *type, const char *name, int n,
	   const char *count, const char *placeholder, const char *fields)
{
	codegen_printf(h->out,
		"\nstatic const struct hloplan_plan_%s %s_%s[%s%s]"
		" HLOPLAN_UNUSED = {\n", type, h->pre, name, n ? h->pre : "1",
		n ? count : "");
	if (!n)
		codegen_printf(h->out,
			"\t/* no %s: a placeholder */\n\t%s,\n", name,
			placeholder);
	else if (fields)
		codegen_printf(h->out, "\t/* %s */\n", fields);
}

/* P_params[] and P_outputs[]: every binding, a row each. */
static void
put_io_tables(struct hdr *h)
{
	const char *pre = h->pre, *what[] = {"params", "outputs"};
	const char *count[] = {"_NUM_PARAMS", "_NUM_OUTPUTS"};
	int from[] = {0, h->b->npar}, to[] = {h->b->npar,
					       h->b->npar + h->b->nout};
	FILE *out = h->out;

	for (int t = 0; t < 2; t++) {
		open_table(h, "binding", what[t], to[t] - from[t], count[t],
			   pool_printf(h->pool, "{-1, 0, %s_ix, -1, -1, 0, 0, "
				       "\"\", -1, -1}", pre),
			   "parameter, depth, index, buffer, offset, size, "
			   "bytes, shape, position, survives");
		for (int k = from[t]; k < to[t]; k++)
			put_io_row(h, k);
		fputs("};\n", out);
	}
}

/* The copies the runtime makes where two values that must share a buffer
 * are live at once: P_copies[], in the order to run them. */
static void
put_copies(struct hdr *h)
{
	FILE *out = h->out;

	open_table(h, "copy", "copies", h->p->ncopy, "_NUM_COPIES",
		   "{-1, -1, 0, 0, 0, -1}", "src, dst, step, after, bytes, loop");
	for (int k = 0; k < h->p->ncopy; k++) {
		const struct plan_copy *c = &h->p->copies[k];

		codegen_printf(out, "\t{%d,%d,%" PRId32 ",%d,%" PRId64 ",%d},\n",
			c->src, c->dst, c->step, c->after, c->bytes, c->loop);
	}
	fputs("};\n", out);
}

/* The while loops, for a runtime that runs the schedule itself:
 * P_loops[], as each closes (inner before outer). */
static void
put_loops(struct hdr *h)
{
	FILE *out = h->out;

	open_table(h, "loop", "loops", h->p->nloop, "_NUM_LOOPS",
		   "{-1, -1, -1, -1, -1, \"\"}", NULL);
	for (int k = 0; k < h->p->nloop; k++) {
		const struct plan_loop *l = &h->p->loops[k];

		fputs("\t{", out);
		field(out, "first");
		codegen_printf(out, "%" PRId32 ", ", l->first);
		field(out, "cond_last");
		codegen_printf(out, "%" PRId32 ", ", l->cond_last);
		field(out, "step");
		codegen_printf(out, "%" PRId32 ", ", l->step);
		field(out, "parent");
		codegen_printf(out, "%d, ", l->parent);
		field(out, "trips");
		codegen_printf(out, "%" PRId64 ", ", l->trips);
		field(out, "trips_from");
		codegen_printf(out, "\"%s\"},\n", l->trips_from);
	}
	fputs("};\n", out);
}

static void
put_constant_row(struct hdr *h, const struct plan_const *k)
{
	const struct plan_pos *q = &h->p->pos[k->pos];
	FILE *out = h->out;

	codegen_printf(out, "\t{%d,", k->buf);
	hdr_cstring(out, q->comp_name ? q->comp_name : "");
	fputc(',', out);
	put_instr_name(h, q);
	codegen_printf(out, ",%d,", q->depth);
	put_index_ptr(out, h->pre, h->ix[k->pos] + (q->depth > 0));
	codegen_printf(out, ",%" PRId64 ",%" PRId64 ",%d},\n", k->offset,
		k->bytes, k->known);
}

/* n bytes in decimal between braces, 24 a line: a line a write, not a
 * printf a byte (which was a quarter of a 50 MB module's header). */
static void
put_bytes(FILE *out, const unsigned char *d, int64_t n)
{
	char line[3 + 24 * 4 + 1];

	fputc('{', out);
	for (int64_t i = 0; i < n; i += 24) {
		char *q = line;

		if (i) {
			*q++ = ',';
			*q++ = '\n';
			*q++ = '\t';
		}
		for (int64_t j = i; j < n && j < i + 24; j++) {
			unsigned v = d[j];

			if (j > i)
				*q++ = ',';
			if (v >= 100)
				*q++ = (char)('0' + v / 100);
			if (v >= 10)
				*q++ = (char)('0' + v / 10 % 10);
			*q++ = (char)('0' + v % 10);
		}
		fwrite(line, 1, (size_t)(q - line), out);
	}
	fputs(n ? "}" : "0}", out);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Where the parts of the constants' bytes start: 0 and each known
 * constant's offset, sorted, each once, then const_bytes; returns the
 * number of parts. */
static int
const_parts(struct hdr *h, int64_t **at)
{
	const struct plan *p = h->p;
	int64_t *v = pool_alloc(h->pool, sizeof *v * (size_t)(p->nconst + 2));
	int n = 0, m = 0;

	v[n++] = 0;
	for (int i = 0; i < p->nconst; i++)
		if (p->consts[i].offset > 0 &&
		    p->consts[i].offset < p->const_bytes)
			v[n++] = p->consts[i].offset;
	qsort(v, (size_t)n, sizeof *v, cmp_i64);
	for (int i = 0; i < n; i++)
		if (!m || v[i] != v[m - 1])
			v[m++] = v[i];
	v[m] = p->const_bytes;
	*at = v;
	return m;
}

/* The constants' bytes as parts laid end to end, one from each constant's
 * offset to the next's: each part's trailing zeros (the padding of its
 * laid-out size, most of the bytes) are left to the initializer, which
 * fills them in, so the header carries what the HLO wrote. */
static void
put_const_parts(struct hdr *h)
{
	const char *pre = h->pre;
	FILE *out = h->out;
	int64_t *at;
	int n = const_parts(h, &at);

	fputs("static const struct {\n", out);
	for (int k = 0; k < n; k++)
		codegen_printf(out, "\tunsigned char p%d[%" PRId64 "];\n", k,
			at[k + 1] - at[k]);
	codegen_printf(out, "} %s_const_data HLOPLAN_UNUSED = {\n", pre);
	for (int k = 0; k < n; k++) {
		const unsigned char *d = h->p->const_data + at[k];
		int64_t len = at[k + 1] - at[k];

		while (len > 0 && !d[len - 1])
			len--;
		fputc('\t', out);
		put_bytes(out, d, len);
		fputs(",\n", out);
	}
	codegen_printf(out, "};\n#define %s_CONST_DATA ((const unsigned char *)"
		"&%s_const_data)\n/* The parts lie end to end: no padding "
		"*/\nstruct %s_const_checks {\n\tunsigned %s_const_packed : "
		"sizeof %s_const_data == %s_CONST_BYTES ? 1 : -1;\n};\n", pre,
		pre, pre, pre, pre, pre);
}

/* The constants' bytes, laid out as their buffers are. */
static void
put_const_data(struct hdr *h)
{
	const char *pre = h->pre;
	FILE *out = h->out;

	codegen_printf(out,
		"\n#define %s_CONST_IN_ARENA 0\t/* constants live in no "
		"arena: each one's buffer is memory of the runtime's own */\n",
		pre);
	codegen_printf(out, "#define %s_CONST_EMBEDDED %d\t/* 1: %s_CONST_DATA "
		"points to the bytes */\n", pre,
		!h->blob && h->p->const_bytes, pre);
	if (h->blob) {
		codegen_printf(out, "#define %s_CONST_FILE ", pre);
		hdr_cstring(out, h->blob);
		codegen_printf(out,
			"\n#define %s_CONST_BASE %" PRId64 "\n", pre,
			h->blob_base);
		return;
	}
	if (h->cdata_of)
		codegen_printf(out, "#define %s_CONST_DATA %s_CONST_DATA\t"
			"/* the same bytes */\n", pre, h->cdata_of);
	else if (h->p->const_bytes)
		put_const_parts(h);
}

/* Each constant's bytes: a runtime copies P_CONST_DATA[offset ..] (or the
 * blob's bytes at P_CONST_BASE + offset) into its buffer, where the plan
 * puts it, before the first step. */
static void
put_constants(struct hdr *h)
{
	const char *pre = h->pre;
	FILE *out = h->out;

	open_table(h, "constant", "constants", h->p->nconst, "_NUM_CONSTANTS",
		   pool_printf(h->pool, "{-1, \"\", \"\", 0, %s_ix, 0, 0, 0}",
			       pre),
		   "buffer, computation, instruction, depth, index, offset, "
		   "bytes, known");
	for (int i = 0; i < h->p->nconst; i++)
		put_constant_row(h, &h->p->consts[i]);
	fputs("};\n", out);
	put_const_data(h);
}

/* The iterations of an unrolled loop share one slotted buffer: which slot
 * each fetch writes (at HLOPLAN_SLOT_OFFSET(buffer, slot)). */
static void
put_slot_uses(struct hdr *h)
{
	FILE *out = h->out;
	int n = hdr_slot_uses(h->p);

	if (!n)
		return;
	codegen_printf(out,
		"\nstatic const struct hloplan_plan_slot_use %s_slot_uses"
		"[%s_NUM_SLOT_USES] HLOPLAN_UNUSED = {\n", h->pre, h->pre);
	for (int k = 0; k < h->p->npos; k++) {
		const struct plan_pos *q = &h->p->pos[k];

		if (q->slot < 0 || !q->defines)
			continue;
		fputs("\t{", out);
		field(out, "buffer");
		codegen_printf(out, "%s_%s, ", h->buf_pre, h->name[q->buf]);
		field(out, "instr");
		put_instr_name(h, q);
		fputs(", ", out);
		field(out, "slot");
		codegen_printf(out, "%d},\n", q->slot);
	}
	fputs("};\n", out);
}

void
hdr_tables(struct hdr *h)
{
	put_positions(h);
	put_operands(h);
	put_values(h);
	put_io_tables(h);
	put_copies(h);
	put_loops(h);
	put_slot_uses(h);
	put_constants(h);
}

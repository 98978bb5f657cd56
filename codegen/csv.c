/* The plan as CSV, one row per buffer of every plan, XLA's columns first so
 * that tools reading XLA's buffer-assignment CSV (BufferAssignment::
 * BufferInfoString) read this one too; the columns are listed below.  The
 * plans follow one another, each row naming its plan: buffer ids start at
 * 0 in each. */
#include <inttypes.h>

#include "codegen/codegen.h"

/* The columns, as XLA has them, then ours:
 *   buffer_id        the buffer's index in its plan (the header's P_BUF_*)
 *   buffer_name      its HLO name, always quoted, '"' doubled (RFC 4180)
 *   offset           its offset in its memory space's arena; -1 when it is
 *                    not in one (constants, or --io-out-of-arena)
 *   size             bytes reserved: padded to the target's tile, and
 *                    slots * stride when double-buffered
 *   definition_time  the first step it is live (inclusive)
 *   end_time         one past the last step it is live (exclusive, as in
 *                    XLA; our intervals are closed, so this is end + 1)
 * XLA's num_uses, use_times and use_names are left out: a plan does not
 * keep uses.  Then:
 *   unpadded_size    bytes of its largest value before padding
 *   memory_space     n of S(n)
 *   slots, stride    double buffering: k slots stride bytes apart, or 1, 0
 *   class            temp, or param, output, const, table joined by '+'
 *   plan             the plan's header prefix (HLOPLAN_GPU), as the
 *                    JSON's prefix: one per plan, where module and target
 *                    may repeat (a file of two modules of one name)
 *   module, target   the plan's HLO module name, gpu or tpu
 *   dtype, shape     the value it is named after, as laid out: element
 *                    type ("tuple" for a tuple), and shape as HLO text
 *   parameter, param_index, output_index
 *                    when it holds an entry parameter's node or an
 *                    output's: parameter(N)'s N and the shape index
 *                    ("{}", "{0,1}"); else empty
 *   values           where each value it holds is defined: its step
 *                    and shape index, "12{0}", joined by ';' (the step's
 *                    name is the JSON's schedule step and the header's
 *                    P_STEP_NAME: a name is written once, not per value) */
static const char columns[] =
	"buffer_id,buffer_name,offset,size,definition_time,end_time,"
	"unpadded_size,memory_space,slots,stride,class,plan,module,target,"
	"dtype,shape,parameter,param_index,output_index,values\n";

/* s inside a quoted field: '"' doubled (RFC 4180). */
static void
put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
}

static void
put_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	put_escaped(out, s);
	fputc('"', out);
}

/* dtype,shape,parameter,param_index,output_index,values */
static void
put_bindings(FILE *out, struct pool *pool, const struct plan *p,
	     const struct bindings *bd, int id)
{
	const struct shape *s = p->bufs[id].shape;

	codegen_printf(out, ",%s,", codegen_dtype(s));
	put_quoted(out, codegen_shape_text(pool, s));
	if (bd->bpar[id] >= 0) {
		const struct plan_pos *q = &p->pos[bd->par[bd->bpar[id]]];

		codegen_printf(out, ",%d,\"", q->param);
		codegen_index(out, q, "{}", ",", "");
		fputs("\",", out);
	} else {
		fputs(",,,", out);
	}
	if (bd->bout[id] >= 0) {
		fputc('"', out);
		codegen_index(out, &p->pos[bd->out[bd->bout[id]]], "{}", ",", "");
		fputc('"', out);
	}
	fputs(",\"", out);
	for (int v = bd->first[id]; v < bd->first[id] + bd->count[id]; v++) {
		const struct plan_pos *q = &p->pos[bd->val[v]];
		if (v > bd->first[id])
			fputc(';', out);
		codegen_printf(out, "%" PRId32, q->step);
		codegen_index(out, q, "{}", ",", "");
	}
	fputc('"', out);
}

static void
put_row(FILE *out, struct pool *pool, const struct plan *p,
	const char *prefix, const struct bindings *bd, int id)
{
	const struct buffer *b = &p->bufs[id];
	const char *cls[4];
	int n = codegen_classes(b->flags, cls);

	codegen_printf(out, "%d,", id);
	put_quoted(out, b->name);
	codegen_printf(out, ",%" PRId64 ",%" PRId64 ",%" PRId32 ",%" PRId64 ",%"
		PRId64 ",%d,%d,%" PRId64 ",", b->in_arena ? b->offset : -1,
		b->size, b->start, (int64_t)b->end + 1, b->bytes, b->space,
		b->slots > 1 ? b->slots : 1, b->slots > 1 ? b->stride : 0);
	for (int i = 0; i < n; i++)
		codegen_printf(out, "%s%s", i ? "+" : "", cls[i]);
	codegen_printf(out, ",%s,", prefix);
	put_quoted(out, p->module ? p->module : "");
	codegen_printf(out, ",%s", codegen_target(p->target));
	put_bindings(out, pool, p, bd, id);
	fputc('\n', out);
}

void
codegen_csv(FILE *out, const struct plan_set *s)
{
	fputs(columns, out);
	for (int i = 0; i < s->nplan; i++) {
		struct pool *pool = pool_new();
		struct bindings bd;

		codegen_bindings(pool, &s->plans[i], &bd);
		for (int b = 0; b < s->plans[i].nbuf; b++)
			put_row(out, pool, &s->plans[i],
				s->prefixes ? s->prefixes[i] : "", &bd, b);
		pool_free(pool);
	}
}

/* Prints the IR back as HLO text: the --dump=ir view, the round trip the
 * tests check (print, re-parse, print again: identical), and shapes in
 * messages. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

static void
print_layout(FILE *out, const struct shape *s)
{
	int items = s->ntile || s->tail_pad || s->elem_bits || s->space ||
		    s->meta_bytes;

	if (!s->has_layout && !items)
		return;
	fputc('{', out);
	for (int i = 0; s->has_layout && i < s->rank; i++)
		fprintf(out, "%s%d", i ? "," : "", s->m2m[i]);
	if (items)
		fputc(':', out);
	for (int t = 0; t < s->ntile; t++) {
		fputs(t ? "(" : "T(", out);
		for (int i = 0; i < s->tiles[t].n; i++) {
			int64_t d = s->tiles[t].d[i];

			if (i)
				fputc(',', out);
			if (d < 0)
				fputc('*', out);
			else
				fprintf(out, "%lld", (long long)d);
		}
		fputc(')', out);
	}
	if (s->tail_pad)	/* in the order of xla/layout.cc's Print */
		fprintf(out, "L(%lld)", (long long)s->tail_pad);
	if (s->elem_bits)
		fprintf(out, "E(%d)", s->elem_bits);
	if (s->space)
		fprintf(out, "S(%d)", s->space);
	if (s->meta_bytes)
		fprintf(out, "M(%lld)", (long long)s->meta_bytes);
	fputc('}', out);
}

void
ir_print_shape(FILE *out, const struct shape *s)
{
	if (shape_is_tuple(s)) {
		fputc('(', out);
		for (int i = 0; i < s->nelem; i++) {
			if (i)
				fputs(", ", out);
			ir_print_shape(out, &s->elems[i]);
		}
		fputc(')', out);
		return;
	}
	if (s->is_buffer)
		fputs("b(", out);
	fprintf(out, "%s[", dtype_name(s->type));
	for (int i = 0; i < s->rank; i++) {
		int dyn = s->dyn ? s->dyn[i] : DIM_STATIC;

		if (i)
			fputc(',', out);
		if (dyn == DIM_UNKNOWN)
			fputc('?', out);
		else
			fprintf(out, "%s%lld", dyn == DIM_BOUNDED ? "<=" : "",
				(long long)s->dims[i]);
	}
	fputc(']', out);
	print_layout(out, s);
	if (s->is_buffer)
		fputc(')', out);
}

const char *
shape_text(struct pool *pool, const struct shape *s)
{
	const char *t = ir_shape_string(pool, s);

	return strlen(t) > 120 ? pool_printf(pool, "%.117s...", t) : t;
}

const char *
ir_shape_string(struct pool *pool, const struct shape *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const char *r;

	if (!m)
		abort();	/* out of memory, as pool_alloc does */
	ir_print_shape(m, s);
	if (fclose(m) != 0 || !buf)
		abort();
	r = pool_strdup(pool, buf);
	free(buf);
	return r;
}

/* Attribute values are written as they were read, NUL bytes in strings
 * and all (which "%.*s" would stop at). */
static void
print_attrs(FILE *out, const struct attr *a, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(out, ", %s=", a[i].key);
		fwrite(a[i].val, 1, (size_t)a[i].vlen, out);
	}
}

/* An instruction's attributes, those that name computations written from
 * the computations it calls (a flattened module calls clones). */
static void
print_instr_attrs(FILE *out, const struct module *m, const struct instr *in)
{
	for (int i = 0; i < in->nattr; i++) {
		const struct attr *a = &in->attrs[i];
		int n = 0, first = -1;

		for (int j = 0; j < in->ncall; j++)
			if (in->callkey[j] == a->key && !n++)
				first = j;
		if (!n || (n == 1 && a->val[0] != '{')) {
			if (n == 1)
				fprintf(out, ", %s=%%%s", a->key,
					m->comps[in->calls[first]].name);
			else
				print_attrs(out, a, 1);
			continue;
		}
		fprintf(out, ", %s={", a->key);
		for (int j = first, k = 0; j < in->ncall; j++)
			if (in->callkey[j] == a->key)
				fprintf(out, "%s%%%s", k++ ? ", " : "",
					m->comps[in->calls[j]].name);
		fputc('}', out);
	}
}

static void
print_instr(FILE *out, const struct module *m, const struct comp *c,
	    const struct instr *in)
{
	fprintf(out, "  %s%%%s = ", in->is_root ? "ROOT " : "", in->name);
	ir_print_shape(out, &in->shape);
	fprintf(out, " %s(", in->op ? in->op->name : "?");
	if (in->op && (in->op->op == OP_CONSTANT ||
		       in->op->op == OP_PARAMETER)) {
		fwrite(in->literal, 1, (size_t)in->literal_len, out);
	} else {
		for (int k = 0; k < in->nops; k++)
			fprintf(out, "%s%%%s", k ? ", " : "",
				in->ops[k] >= 0 ? c->instrs[in->ops[k]].name
						: in->opname[k]);
	}
	fputc(')', out);
	print_instr_attrs(out, m, in);
	fputc('\n', out);
}

/* s as a C string literal, as absl::CEscape writes it. */
static void
print_cstring(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 32 || c == 127)
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* The stack-frame tables, as XLA's HloModule::PrintStackFrameIndex prints
 * them (a frame's parent one more than its id). */
static void
print_frames(FILE *out, const struct frames *f)
{
	if (!f->nfile && !f->nfunc && !f->nloc && !f->nframe)
		return;
	fputs("\nFileNames\n", out);
	for (int i = 0; i < f->nfile; i++) {
		fprintf(out, "%d ", i + 1);
		print_cstring(out, f->files[i]);
		fputc('\n', out);
	}
	fputs("\nFunctionNames\n", out);
	for (int i = 0; i < f->nfunc; i++) {
		fprintf(out, "%d ", i + 1);
		print_cstring(out, f->funcs[i]);
		fputc('\n', out);
	}
	fputs("\nFileLocations\n", out);
	for (int i = 0; i < f->nloc; i++)
		fprintf(out, "%d {file_name_id=%d function_name_id=%d line=%d "
			"end_line=%d column=%d end_column=%d}\n", i + 1,
			f->locs[i].file, f->locs[i].func, f->locs[i].line,
			f->locs[i].end_line, f->locs[i].col,
			f->locs[i].end_col);
	fputs("\nStackFrames\n", out);
	for (int i = 0; i < f->nframe; i++)
		fprintf(out, "%d {file_location_id=%d parent_frame_id=%d}\n",
			i + 1, f->frames[i].loc, f->frames[i].parent + 1);
}

static void
print_module(FILE *out, const struct module *m, const int *const *order,
	     int scheduled)
{
	fprintf(out, "HloModule %s", m->name);
	for (int i = 0; i < m->nattr; i++)
		if (!scheduled || strcmp(m->attrs[i].key, "is_scheduled"))
			print_attrs(out, &m->attrs[i], 1);
	if (scheduled)
		fputs(", is_scheduled=true", out);
	fputc('\n', out);
	print_frames(out, &m->frames);
	for (int i = 0; i < m->ncomp; i++) {
		const struct comp *c = &m->comps[i];

		fprintf(out, "\n%s%%%s {\n", c->is_entry ? "ENTRY " : "",
			c->name);
		for (int k = 0; k < c->ninstr; k++)
			print_instr(out, m, c, &c->instrs[order && order[i] ?
							order[i][k] : k]);
		fputc('}', out);
		print_attrs(out, c->attrs, c->nattr);
		fputc('\n', out);
	}
}

void
ir_print_module(FILE *out, const struct module *m)
{
	print_module(out, m, NULL, 0);
}

void
ir_print_module_order(FILE *out, const struct module *m,
		      const int *const *order)
{
	print_module(out, m, order, 1);
}

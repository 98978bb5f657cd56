/* The --stats figures of each plan (buffers, padding, schedule, copies,
 * slots, arena against its lower bound) and the time per stage with the
 * total they add up to, as text lines prefixed with the plan's prefix, or
 * as JSON (--stats-json). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"

struct figures {
	int64_t bytes, padded;	/* in arenas: unpadded, reserved */
	int slotted;		/* double-buffered buffers */
	int64_t extra;		/* bytes their other slots add */
	int ncopy_iter;		/* copies made in every loop iteration */
	int64_t copied_run;	/* bytes the other copies move, per run */
	int64_t copied_iter;	/* bytes copied per iteration of each loop,
				   summed over loops */
};

static struct figures
count(const struct plan *pl)
{
	struct figures f = {0};

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (!x->in_arena)
			continue;
		f.padded += x->slots > 1 ? x->stride : x->size;
		f.bytes += x->bytes;
		if (x->slots > 1) {
			f.slotted++;
			f.extra += x->size - x->stride;
		}
	}
	for (int k = 0; k < pl->ncopy; k++) {
		const struct plan_copy *c = &pl->copies[k];

		if (c->loop >= 0) {
			f.ncopy_iter++;
			f.copied_iter += c->bytes;
		} else {
			f.copied_run += c->bytes;
		}
	}
	return f;
}

static double
ratio(int64_t a, int64_t b)
{
	return b ? (double)a / (double)b : 1.0;
}

/* What makes the arena's peak, as an over-capacity error reports it (the
 * largest buffers live there), under the arena's line. */
static void
put_peak_text(FILE *out, const struct plan *pl, const struct arena *a,
	      const char *prefix)
{
	size_t n = strlen(prefix);
	char *lead = malloc(n + 5);

	if (!lead)
		abort();	/* out of memory, as in the pool */
	memcpy(lead, prefix, n);
	memcpy(lead + n, ":   ", 5);
	peak_report(out, pl, a->peak, lead);
	free(lead);
}

static void
put_plan(FILE *out, const struct plan *pl, const char *prefix)
{
	struct figures f = count(pl);

	fprintf(out, "%s: module %s, %d buffers, %d steps; buffer bytes "
		"%lld, padded %lld (+%.1f%%)\n", prefix, pl->module, pl->nbuf,
		pl->ntime, (long long)f.bytes, (long long)f.padded,
		f.bytes ? 100.0 * (double)(f.padded - f.bytes) /
			  (double)f.bytes : 0.0);
	fprintf(out, "%s:   schedule: %s order, peak %lld bytes (text "
		"order: %lld)\n", prefix, pl->sched.name ? pl->sched.name :
		"text", (long long)pl->sched.peak,
		(long long)pl->sched.peak_text);
	if (pl->ncopy)
		fprintf(out, "%s:   copies: %d (values that must share a "
			"buffer but are live at once): %d once per run, %lld "
			"bytes; %d in every loop iteration, %lld bytes per "
			"iteration\n", prefix, pl->ncopy,
			pl->ncopy - f.ncopy_iter, (long long)f.copied_run,
			f.ncopy_iter, (long long)f.copied_iter);
	if (pl->nalias)
		fprintf(out, "%s:   input_output_alias: %d of %d kept%s\n",
			prefix, pl->nalias_kept, pl->nalias,
			pl->nalias_kept < pl->nalias ? " (a may-alias whose "
			"output and parameter are live at once is not: that "
			"output has a buffer of its own)" : "");
	if (f.slotted)
		fprintf(out, "%s:   double-buffered: %d buffers, %lld more "
			"bytes reserved in their slots\n", prefix, f.slotted,
			(long long)f.extra);
	for (int a = 0; a < pl->narena; a++) {
		const struct arena *x = &pl->arenas[a];

		fprintf(out, "%s:   arena S(%d): %lld bytes; peak of live "
			"bytes %lld (the bound of this plan's buffers and "
			"schedule, not of every plan), arena/peak %.4f\n",
			prefix, x->space, (long long)x->size,
			(long long)x->lower, ratio(x->size, x->lower));
		put_peak_text(out, pl, x, prefix);
	}
}

/* S(0)'s arena, or NULL. */
static const struct arena *
device_arena(const struct plan *pl)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == 0)
			return &pl->arenas[a];
	return NULL;
}

/* --allocators: the lower bound and the plan's arena of S(0), then per
 * allocator its peaks and fragmentation (reserved / lower bound - 1). */
static void
put_allocators(FILE *out, const struct plan *pl, const char *prefix,
	       int timed)
{
	const struct arena *a = device_arena(pl);
	int64_t lower = a ? a->lower : 0, size = a ? a->size : 0;
	if (!pl->nalloc)
		return;
	fprintf(out, "%s:   allocators: %d buffers of S(0) replayed; lower "
		"bound %lld, plan %lld (fragmentation %.2f%%)\n", prefix,
		pl->alloc_buffers, (long long)lower, (long long)size,
		100.0 * (ratio(size, lower) - 1));
	for (int k = 0; k < pl->nalloc; k++) {
		const struct alloc_run *x = &pl->allocs[k];

		fprintf(out, "%s:     %-16s reserved %lld (fragmentation "
			"%.2f%%), allocated %lld", prefix, x->name,
			(long long)x->peak_reserved,
			100.0 * (ratio(x->peak_reserved, lower) - 1),
			(long long)x->peak_allocated);
		if (x->region)
			fprintf(out, ", region %lld", (long long)x->region);
		if (x->exceeded >= 0)
			fprintf(out, ", capacity %s", x->exceeded ?
				"EXCEEDED" : "holds");
		if (timed)
			fprintf(out, "; replay %.2f ms", x->ms);
		fputc('\n', out);
	}
}

void
codegen_allocators(FILE *out, const struct plan_set *s)
{
	for (int i = 0; i < s->nplan; i++)
		put_allocators(out, &s->plans[i], s->prefixes[i], 0);
}

/* The time of the replays against the planning's (the stages from
 * flatten to verify), when there were replays. */
static void
put_replay_share(FILE *out, const struct plan_set *s, const double *ms,
		 const char *const *stages, int nstage)
{
	double replay = 0, plan = 0;
	int in = 0;

	for (int i = 0; i < s->nplan; i++)
		for (int k = 0; k < s->plans[i].nalloc; k++)
			replay += s->plans[i].allocs[k].ms;
	if (replay <= 0)
		return;
	for (int k = 0; k < nstage; k++) {
		in |= !strcmp(stages[k], "flatten");
		if (in)
			plan += ms[k];
		if (!strcmp(stages[k], "verify"))
			break;
	}
	fprintf(out, "hloplan: allocator replays %.2f ms, %.1f%% of "
		"planning (flatten to verify: %.2f ms)\n", replay,
		plan > 0 ? 100.0 * replay / plan : 0.0, plan);
}

/* XLA's assignment of the module beside the plan: its allocations by
 * kind, its temporary allocation against the most of it live at once, and
 * this plan's total (arenas and constants) against XLA's. */
static void
put_xla(FILE *out, const struct plan *p, const char *prefix,
	const struct xla_assignment *x)
{
	int64_t t = codegen_total(p);

	fprintf(out, "%s:   XLA's assignment: %" PRId64 " bytes in %d "
		"allocations: parameters %" PRId64 ", outputs %" PRId64
		", constants %" PRId64 ", thread-local %" PRId64
		", temporaries %" PRId64 "\n", prefix, x->total, x->nalloc,
		x->params, x->outputs, x->constants, x->thread_local,
		x->temps);
	fprintf(out, "%s:   XLA's temporary allocation %" PRId64 " bytes, at "
		"most %" PRId64 " of them live at once: %" PRId64 " unused "
		"at its peak\n", prefix, x->temp_size, x->temp_peak,
		x->temp_size - x->temp_peak);
	fprintf(out, "%s:   this plan %" PRId64 " bytes (arenas and "
		"constants): %" PRId64 " %s than XLA's, ratio %.4f\n", prefix,
		t, t <= x->total ? x->total - t : t - x->total,
		t <= x->total ? "fewer" : "more",
		x->total ? (double)t / (double)x->total : 1.0);
}

void
codegen_stats(FILE *out, const struct plan_set *s, const double *ms,
	      const char *const *stages, int nstage, double total)
{
	for (int i = 0; i < s->nplan; i++) {
		put_plan(out, &s->plans[i], s->prefixes[i]);
		put_allocators(out, &s->plans[i], s->prefixes[i], 1);
		if (s->xla)
			put_xla(out, &s->plans[i], s->prefixes[i], s->xla);
	}
	put_replay_share(out, s, ms, stages, nstage);
	fputs("hloplan: time", out);
	for (int k = 0; k < nstage; k++)
		fprintf(out, " %s %.2f ms%s", stages[k], ms[k],
			k + 1 < nstage ? "," : ";");
	fprintf(out, " total %.2f ms\n", total);
}

/* A listed buffer of an arena's peak: the buffer, then the value it
 * holds there and where that comes from (each source key when known). */
static void
put_listed_json(FILE *out, const struct plan *pl, const struct peak_buf *e)
{
	const struct buffer *b = &pl->bufs[e->buf];
	const char *cls[4];
	int n = codegen_classes(b->flags, cls);

	fprintf(out, "        {\"buffer\": %d, \"name\": ", e->buf);
	codegen_json_string(out, b->name);
	fputs(", \"class\": [", out);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s\"%s\"", i ? ", " : "", cls[i]);
	fprintf(out, "], \"size\": %" PRId64 ", \"bytes\": %" PRId64
		", \"slots\": %d, \"shape\": ", b->size, b->bytes,
		b->slots > 1 ? b->slots : 1);
	codegen_json_string(out, e->shape);
	if (e->tile)
		fprintf(out, ", \"default_tile\": \"%s\"", e->tile);
	fputs(", \"instruction\": ", out);
	codegen_json_string(out, e->instr);
	fprintf(out, ", \"opcode\": \"%s\", \"computation\": ", e->opcode);
	codegen_json_string(out, e->comp);
	if (e->element)
		fprintf(out, ", \"element\": \"%s\"", e->element);
	codegen_json_source(out, e->src_file, e->src_line, e->op_name);
	fputc('}', out);
}

/* "peak": the step where the arena's buffers take the most bytes, how many
 * are live there and their bytes, the largest of them, and the others'
 * count and bytes; null when nothing is ever live. */
static void
put_peak_json(FILE *out, const struct plan *pl, const struct peak *k)
{
	if (!k || k->step < 0) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"step\": %d, \"instruction\": ", k->step);
	codegen_json_string(out, k->instr);
	fputs(", \"computation\": ", out);
	codegen_json_string(out, k->comp);
	fprintf(out, ", \"live\": %d, \"bytes\": %" PRId64 ", \"more\": %d"
		", \"more_bytes\": %" PRId64 ",\n       \"largest\": [",
		k->nlive, k->bytes, k->nlive - k->nlisted, k->rest);
	for (int i = 0; i < k->nlisted; i++) {
		fputs(i ? ",\n" : "\n", out);
		put_listed_json(out, pl, &k->listed[i]);
	}
	fputs("]}", out);
}

static void
put_plan_json(FILE *out, const struct plan *pl, const char *prefix, int last)
{
	struct figures f = count(pl);

	fprintf(out, "    {\"prefix\": \"%s\", \"module\": ", prefix);
	codegen_json_string(out, pl->module ? pl->module : "");
	fprintf(out, ", \"target\": \"%s\", \"buffers\": %d, \"steps\": %d, "
		"\"bytes\": %" PRId64 ", \"padded\": %" PRId64
		", \"schedule\": \"%s\", \"peak\": %" PRId64
		", \"peak_text\": %" PRId64 ", \"copies\": %d, "
		"\"copies_per_iteration\": %d, \"bytes_copied_per_run\": %"
		PRId64 ", \"bytes_copied_per_iteration\": %" PRId64 ", "
		"\"aliases\": %d, \"aliases_kept\": %d, "
		"\"double_buffered\": %d, \"slot_bytes\": %" PRId64
		",\n     \"arenas\": [", codegen_target(pl->target), pl->nbuf,
		pl->ntime, f.bytes, f.padded,
		pl->sched.name ? pl->sched.name : "text", pl->sched.peak,
		pl->sched.peak_text, pl->ncopy, f.ncopy_iter, f.copied_run,
		f.copied_iter, pl->nalias, pl->nalias_kept, f.slotted,
		f.extra);
	for (int a = 0; a < pl->narena; a++) {
		const struct arena *x = &pl->arenas[a];

		fprintf(out, "%s\n      {\"space\": %d, \"size\": %" PRId64
			", \"lower_bound\": %" PRId64 ", \"ratio\": %.4f, "
			"\"peak\": ", a ? "," : "", x->space, x->size, x->lower,
			ratio(x->size, x->lower));
		put_peak_json(out, pl, x->peak);
		fputc('}', out);
	}
	fprintf(out, "]}%s\n", last ? "" : ",");
}

void
codegen_stats_json(FILE *out, const struct plan_set *s, const double *ms,
		   const char *const *stages, int nstage, double total)
{
	fputs("{\n  \"schema\": \"hloplan.stats\",\n  \"version\": 3,\n"
	      "  \"plans\": [\n", out);
	for (int i = 0; i < s->nplan; i++)
		put_plan_json(out, &s->plans[i], s->prefixes[i],
			      i + 1 == s->nplan);
	fputs("  ],\n  \"time_ms\": {", out);
	for (int k = 0; k < nstage; k++)
		fprintf(out, "%s\"%s\": %.3f", k ? ", " : "", stages[k], ms[k]);
	fprintf(out, ", \"total\": %.3f}\n}\n", total);
}

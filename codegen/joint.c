/* The joint plan written out: the shared arena and arrays as macros and a
 * table per target, then every program's plan by the one-module writers,
 * each under its own prefix; compile-time checks that each program binds
 * each array at the array's offset in an arena of the joint size. */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/joint.h"

/* s upper-cased, each run of other characters one '_' (as the header's
 * names are made). */
static void
put_upper(FILE *out, const char *s)
{
	int sep = 0;

	for (; *s; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9')) {
			if (sep)
				fputc('_', out);
			sep = 0;
			fputc(c >= 'a' && c <= 'z' ? c - 32 : c, out);
		} else {
			sep = 1;
		}
	}
}

static const char *
tname(int target)
{
	return target == TARGET_TPU ? "TPU" : "GPU";
}

/* PREFIX_JOINT_GPU */
static void
put_jprefix(FILE *out, const struct joint_out *j, const struct joint_plan *jp)
{
	fprintf(out, "%s_JOINT_%s", j->prefix, tname(jp->target));
}

static void
put_index(FILE *out, const struct jindex *x, const char *lead,
	  const char *sep)
{
	for (int i = 0; i < x->depth; i++)
		fprintf(out, "%s%lld", i ? sep : lead, (long long)x->i[i]);
}

static void
put_arrays(FILE *out, const struct joint_out *j, const struct joint_plan *jp)
{
	static const char *const what[] = {"OFFSET", "SIZE", "BYTES"};

	for (int a = 0; a < jp->narray; a++) {
		const int64_t v[] = {jp->offset[a], jp->size[a], jp->bytes[a]};

		for (int w = 0; w < 3; w++) {
			fputs("#define ", out);
			put_jprefix(out, j, jp);
			fputs("_SHARED_", out);
			put_upper(out, j->d->arr[a].name);
			fprintf(out, "_%s %lld\n", what[w], (long long)v[w]);
		}
	}
	fputs("static const struct {\n\tconst char *name;\n\tlong long "
	      "offset, size, bytes;\n} ", out);
	put_jprefix(out, j, jp);
	fprintf(out, "_shared[%d] = {\n", jp->narray ? jp->narray : 1);
	for (int a = 0; a < jp->narray; a++)
		fprintf(out, "\t{\"%s\", %lld, %lld, %lld},\n",
			j->d->arr[a].name, (long long)jp->offset[a],
			(long long)jp->size[a], (long long)jp->bytes[a]);
	if (!jp->narray)
		fputs("\t{\"\", 0, 0, 0},\n", out);
	fputs("};\n", out);
}

static void
put_target(FILE *out, const struct joint_out *j, const struct joint_plan *jp)
{
	const char *names[] = {"ARENA_SIZE", "ARENA_ALIGN", "LOWER_BOUND",
			       "NUM_PROGRAMS", "NUM_SHARED"};
	const int64_t v[] = {jp->arena, jp->plans[0].align, jp->lower,
			     jp->nprog, jp->narray};

	fprintf(out, "\n/* Target %s: the arena every program binds, and "
		"the shared arrays in it. */\n", jp->target == TARGET_TPU ?
		"tpu" : "gpu");
	for (int k = 0; k < 5; k++) {
		fputs("#define ", out);
		put_jprefix(out, j, jp);
		fprintf(out, "_%s %lld\n", names[k], (long long)v[k]);
	}
	for (int k = 0; k < jp->nprog; k++) {
		fputs("#define ", out);
		put_jprefix(out, j, jp);
		fputs("_PROGRAM_", out);
		put_upper(out, j->d->prog[k].name);
		fprintf(out, " %d /* prefix %s */\n", k, jp->prefixes[k]);
	}
	put_arrays(out, j, jp);
}

/* typedef char X[(cond) ? 1 : -1]: a C89-to-C++ compile-time check. */
static void
check_line(FILE *out, const struct joint_out *j, const struct joint_plan *jp,
	   int k, int a, const char *what, const struct jindex *x,
	   int64_t param)
{
	fputs("typedef char ", out);
	put_jprefix(out, j, jp);
	fprintf(out, "_check_%d_%d_%s[(%s_%s", k, a, what, jp->prefixes[k],
		what);
	if (param >= 0)
		fprintf(out, "_%lld", (long long)param);
	put_index(out, x, "_", "_");
	fputs("_OFFSET == ", out);
	put_jprefix(out, j, jp);
	fputs("_SHARED_", out);
	put_upper(out, j->d->arr[a].name);
	fputs("_OFFSET) ? 1 : -1];\n", out);
}

static void
put_checks(FILE *out, const struct joint_out *j, const struct joint_plan *jp)
{
	fprintf(out, "\n/* Each program binds the arena of the joint size, "
		"and each shared array at its offset (%s). */\n",
		jp->target == TARGET_TPU ? "tpu" : "gpu");
	for (int k = 0; k < jp->nprog; k++) {
		fputs("typedef char ", out);
		put_jprefix(out, j, jp);
		fprintf(out, "_check_%d_arena[(%s_ARENA_SIZE == ", k,
			jp->prefixes[k]);
		put_jprefix(out, j, jp);
		fputs("_ARENA_SIZE) ? 1 : -1];\n", out);
	}
	for (int a = 0; a < jp->narray; a++)
		for (int u = 0; u < j->d->arr[a].nuse; u++) {
			const struct joint_use *x = &j->d->arr[a].use[u];

			if (x->param >= 0)
				check_line(out, j, jp, x->prog, a, "PARAM",
					   &x->pidx, x->param);
			if (x->out)
				check_line(out, j, jp, x->prog, a, "OUTPUT",
					   &x->oidx, -1);
		}
}

/* The plans of every target, program by program, and their prefixes. */
static int
all_plans(const struct joint_out *j, struct plan **plans,
	  const char ***prefixes)
{
	int n = 0, np = j->nplan ? j->jp[0].nprog : 0;

	*plans = calloc((size_t)(j->nplan * np + 1), sizeof **plans);
	*prefixes = calloc((size_t)(j->nplan * np + 1), sizeof **prefixes);
	if (!*plans || !*prefixes)
		abort();
	for (int k = 0; k < np; k++)
		for (int t = 0; t < j->nplan; t++) {
			(*plans)[n] = j->jp[t].plans[k];
			(*prefixes)[n++] = j->jp[t].prefixes[k];
		}
	return n;
}

void
codegen_joint_header(FILE *out, const struct joint_out *j)
{
	struct header_opts ho = {0};
	struct plan *plans;
	const char **prefixes;
	int n = all_plans(j, &plans, &prefixes);
	char guard[256];

	snprintf(guard, sizeof guard, "%s_JOINT_PLAN_H", j->prefix);
	fprintf(out, "/* Generated by hloplan from %s: a joint plan of %d "
		"programs that share one arena (doc/joint.md).  Bind any "
		"program's plan, P = its prefix, to the same arena: the shared "
		"arrays keep their bytes between calls. */\n", j->source,
		j->nplan ? j->jp[0].nprog : 0);
	fprintf(out, "#ifndef %s\n#define %s\n", guard, guard);
	for (int t = 0; t < j->nplan; t++)
		put_target(out, j, &j->jp[t]);
	fputc('\n', out);
	snprintf(guard, sizeof guard, "%s_JOINT_PROGRAMS_H", j->prefix);
	ho.guard = guard;
	ho.source = j->source;
	codegen_header(out, plans, (const char *const *)prefixes, n, &ho);
	for (int t = 0; t < j->nplan; t++)
		put_checks(out, j, &j->jp[t]);
	fprintf(out, "\n#endif /* %s_JOINT_PLAN_H */\n", j->prefix);
	free(plans);
	free(prefixes);
}

/* ---- JSON ---------------------------------------------------------------- */

static void
json_use(FILE *out, const struct joint_out *j, const struct joint_use *u)
{
	fputs("{\"program\": ", out);
	codegen_json_string(out, j->d->prog[u->prog].name);
	if (u->param >= 0) {
		fprintf(out, ", \"param\": %lld, \"param_index\": [",
			(long long)u->param);
		put_index(out, &u->pidx, "", ", ");
		fputc(']', out);
	}
	if (u->out) {
		fputs(", \"output_index\": [", out);
		put_index(out, &u->oidx, "", ", ");
		fputc(']', out);
	}
	fputc('}', out);
}

static void
json_target(FILE *out, const struct joint_out *j, const struct joint_plan *jp)
{
	fprintf(out, "    {\"target\": \"%s\", \"arena\": %lld, \"align\": "
		"%lld, \"lower_bound\": %lld, \"shared_bytes\": %lld, "
		"\"simple_bound\": %lld, \"separate_sum\": %lld, "
		"\"executorch\": %lld,\n     \"shared\": [", jp->target ==
		TARGET_TPU ? "tpu" : "gpu", (long long)jp->arena,
		(long long)jp->plans[0].align, (long long)jp->lower,
		(long long)jp->persistent, (long long)jp->simple_bound,
		(long long)jp->sum_alone,
		(long long)(jp->persistent + jp->max_own_alone));
	for (int a = 0; a < jp->narray; a++) {
		fprintf(out, "%s\n      {\"name\": ", a ? "," : "");
		codegen_json_string(out, j->d->arr[a].name);
		fprintf(out, ", \"offset\": %lld, \"size\": %lld, \"bytes\": "
			"%lld, \"uses\": [", (long long)jp->offset[a],
			(long long)jp->size[a], (long long)jp->bytes[a]);
		for (int u = 0; u < j->d->arr[a].nuse; u++) {
			fputs(u ? ", " : "", out);
			json_use(out, j, &j->d->arr[a].use[u]);
		}
		fputs("]}", out);
	}
	fputs("],\n     \"programs\": [", out);
	for (int k = 0; k < jp->nprog; k++) {
		fprintf(out, "%s\n      {\"name\": ", k ? "," : "");
		codegen_json_string(out, j->d->prog[k].name);
		fputs(", \"prefix\": ", out);
		codegen_json_string(out, jp->prefixes[k]);
		fprintf(out, ", \"alone\": %lld, \"own_alone\": %lld, "
			"\"own_peak\": %lld}", (long long)jp->alone[k],
			(long long)jp->own_alone[k], (long long)jp->own_peak[k]);
	}
	fputs("]}", out);
}

void
codegen_joint_json(FILE *out, const struct joint_out *j)
{
	struct plan *plans;
	const char **prefixes;
	int n = all_plans(j, &plans, &prefixes);
	struct plan_set set = {plans, prefixes, n, j->source, NULL};

	fputs("{\"schema\": \"hloplan.joint\", \"version\": 1, \"source\": ",
	      out);
	codegen_json_string(out, j->source);
	fputs(",\n  \"programs\": [", out);
	for (int k = 0; k < j->d->nprog; k++) {
		fputs(k ? ", " : "", out);
		codegen_json_string(out, j->d->prog[k].name);
	}
	fputs("],\n  \"calls\": [", out);
	for (int c = 0; c < j->d->ncall; c++) {
		fputs(c ? ", " : "", out);
		codegen_json_string(out, j->d->prog[j->d->call[c]].name);
	}
	fputs("],\n  \"targets\": [\n", out);
	for (int t = 0; t < j->nplan; t++) {
		json_target(out, j, &j->jp[t]);
		fputs(t + 1 < j->nplan ? ",\n" : "\n", out);
	}
	fputs("  ],\n  \"plans\": ", out);
	codegen_json(out, &set);
	fputs("}\n", out);
	free(plans);
	free(prefixes);
}

/* ---- --stats ------------------------------------------------------------- */

static double
ratio(int64_t a, int64_t b)
{
	return b > 0 ? (double)a / (double)b : 1.0;
}

void
codegen_joint_stats(FILE *out, const struct joint_out *j)
{
	for (int t = 0; t < j->nplan; t++) {
		const struct joint_plan *jp = &j->jp[t];
		int64_t et = jp->persistent + jp->max_own_alone;
		char p[128];

		snprintf(p, sizeof p, "%s_JOINT_%s", j->prefix,
			 tname(jp->target));
		fprintf(out, "%s: arena %lld bytes; lower bound %lld, "
			"arena/bound %.4f; %d shared arrays, %lld bytes\n", p,
			(long long)jp->arena, (long long)jp->lower,
			ratio(jp->arena, jp->lower), jp->narray,
			(long long)jp->persistent);
		fprintf(out, "%s:   separate plans, summed %lld (%.4f); "
			"ExecuTorch's layout %lld (%.4f: shared %lld + the "
			"largest temporaries %lld); shared + largest own peak "
			"%lld\n", p, (long long)jp->sum_alone,
			ratio(jp->sum_alone, jp->lower), (long long)et,
			ratio(et, jp->lower), (long long)jp->persistent,
			(long long)jp->max_own_alone,
			(long long)jp->simple_bound);
		for (int k = 0; k < jp->nprog; k++)
			fprintf(out, "%s:   program %s (%s): alone %lld, its "
				"own buffers alone %lld, own peak %lld\n", p,
				j->d->prog[k].name, jp->prefixes[k],
				(long long)jp->alone[k],
				(long long)jp->own_alone[k],
				(long long)jp->own_peak[k]);
		for (int a = 0; a < j->nalloc; a++)
			fprintf(out, "%s:   the calls under %s: %lld reserved "
				"(%.4f)\n", p, j->alloc_names[a],
				(long long)j->alloc[t][a],
				ratio(j->alloc[t][a], jp->lower));
	}
}

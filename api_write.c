/* The outputs of a result: each format through the driver's writers, the
 * depfile, and whole files (output.c), timed for --stats. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>

#include "api.h"

/* Adds to a stage's time: bookkeeping beside the plan, kept even in a
 * result the caller holds as const. */
static void
add_time(const struct hloplan_result *r, int stage, double t0)
{
	((struct hloplan_result *)r)->st.ms[stage] += stats_now() - t0;
}

/* The plan's outputs are timed as the codegen stage of --stats; the
 * statistics are not (their figures end where they begin). */
int
hloplan_write(const struct hloplan_result *r, int format, FILE *out,
	      const char *name)
{
	double t0 = stats_now();
	int ret;

	if (!r || r->status != HLOPLAN_OK || !out) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;	/* what a failed write sets is what is reported */
	ret = write_plans(&r->run, format, out, name);
	if (format != HLOPLAN_FORMAT_STATS &&
	    format != HLOPLAN_FORMAT_STATS_JSON &&
	    format != HLOPLAN_FORMAT_ALLOCATORS)
		add_time(r, ST_CODEGEN, t0);
	return ret;
}

/* A path in a Make rule: '$' doubled, '#' and spaces after a backslash,
 * and the backslashes before a space doubled (GCC's mkdeps.c). */
static void
put_make_path(FILE *out, const char *s)
{
	int slashes = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t') {
			for (; slashes > 0; slashes--)
				fputc('\\', out);
			fputc('\\', out);
		} else if (*s == '#') {
			fputc('\\', out);
		} else if (*s == '$') {
			fputc('$', out);
		}
		slashes = *s == '\\' ? slashes + 1 : 0;
		fputc(*s, out);
	}
}

int
hloplan_write_depfile(const struct hloplan_result *r, FILE *out,
		      const char *const *targets, const int *quoted,
		      int ntarget)
{
	double t0 = stats_now();

	if (!r || !out || ntarget < 1 || !targets) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	for (int i = 0; i < ntarget; i++) {
		if (i)
			fputc(' ', out);
		if (quoted && quoted[i])
			put_make_path(out, targets[i]);
		else
			fputs(targets[i], out);
	}
	fputc(':', out);
	if (r->dep) {
		fputc(' ', out);
		put_make_path(out, r->dep);
	}
	fputc('\n', out);
	add_time(r, ST_CODEGEN, t0);
	if (ferror(out)) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

struct hloplan_output *
hloplan_output_open_timed(const char *path, const struct hloplan_result *r)
{
	double t0 = stats_now();
	struct hloplan_output *o = hloplan_output_open(path);

	if (o && r) {
		output_time_into(o, &((struct hloplan_result *)r)->st.ms[
					    ST_WRITE]);
		add_time(r, ST_WRITE, t0);
	}
	return o;
}

/* One output file, written whole or not at all (output.c): its opening and
 * commit timed as the write stage, its bytes as codegen. */
int
hloplan_write_file(const struct hloplan_result *r, int format,
		   const char *path)
{
	struct hloplan_output *o = hloplan_output_open_timed(path, r);

	if (!o)
		return -1;
	if (hloplan_write(r, format, hloplan_output_stream(o), path) < 0) {
		hloplan_output_abort(o);
		return -1;
	}
	return hloplan_output_commit(o);
}

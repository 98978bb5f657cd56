/* The hloplan command line: a thin layer over the library (include/hloplan.h)
 * that reads flags, plans, writes every output or none, and prints the
 * diagnostics.  Exit status: 0 ok, 1 bad input, 2 usage or I/O error. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hloplan.h"
#include "dumps/survey.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };
enum { MAXCAP = 16 };

/* The files a run writes, in the order a depfile's default target is
 * picked from; OUT_HEADER is -o. */
enum {
	OUT_HEADER, OUT_JSON, OUT_CSV, OUT_SVG, OUT_CONSTANTS, OUT_STATS_JSON,
	OUT_DEP, NOUT
};

struct cli {
	const char *input;	/* the first of inputs */
	const char **inputs;	/* malloc'd */
	int ninput;
	int survey;		/* several inputs, or a directory: a table */
	int target_given;	/* --target: a dump's file name does not set it */
	const char *xla;	/* --xla-assignment FILE */
	const char *out[NOUT];	/* NULL: not written */
	int stats;
	int intervals;		/* --intervals: the input is a packing problem */
	int md;			/* -MD: a depfile beside the output */
	char *depname;		/* its derived name, malloc'd */
	int ntarget;		/* -MT and -MQ, malloc'd */
	const char **targets;
	int *quoted;
	const char **names;	/* --double-buffer, malloc'd */
	struct hloplan_capacity cap[MAXCAP];
	struct hloplan_options opt;
};

static void
usage(FILE *out)
{
	fputs("usage: hloplan [options] FILE.hlo\n"
	      "       hloplan [options] DIR|FILE... (a table: see XLA dumps)\n"
	      "Plans the buffers of an HLO module; FILE may be '-' for "
	      "standard input.\n"
	      "Outputs (each written whole or not at all, and left alone "
	      "when unchanged):\n"
	      "  -o FILE            the C header ('-': stdout; the default "
	      "when no\n"
	      "                     other output is asked for)\n"
	      "  --json FILE        the whole plan as JSON\n"
	      "  --csv FILE         one row per buffer, XLA's columns first\n"
	      "  --svg FILE         a memory timeline per arena\n"
	      "  --constants FILE   the constants' bytes as laid out in their "
	      "buffers, each\n"
	      "                     plan's from a multiple of 64; the header "
	      "names FILE\n"
	      "                     instead of holding the bytes\n"
	      "  --stats            figures, the buffers live at each arena's peak and\n"
	      "                     time per stage, on stderr\n"
	      "  --allocators       replay the buffers of S(0) through XLA's "
	      "BFC, PyTorch's\n"
	      "                     caching allocator, first and best fit: "
	      "their peaks on\n"
	      "                     stderr, in --json, --svg and --stats\n"
	      "  --stats-json FILE  the same figures as JSON\n"
	      "  --programs DECL    several programs in one arena, sharing the "
	      "arrays DECL\n"
	      "                     names (doc/joint.md); no FILE\n"
	      "  --intervals        FILE is a packing problem in minimalloc's "
	      "CSV\n"
	      "                     (id,lower,upper,size[,alignment][,offset];"
	      "\n"
	      "                     an empty offset leaves that buffer to the "
	      "packer);\n"
	      "                     -o gets the rows with an offset column\n"
	      "  --dump STAGE       print a stage instead of the header: ir, "
	      "schedule,\n"
	      "                     hlo (in the chosen order), values, plan; "
	      "each plan's\n"
	      "                     part after a line '== STAGE PREFIX (module "
	      "M, target T)'\n"
	      "XLA dumps (--xla_dump_to):\n"
	      "  DIR, or FILE...    plan each module (each "
	      "*after_optimizations.txt of\n"
	      "                     DIR) and print a table to -o: XLA's "
	      "allocations,\n"
	      "                     read from the *-buffer-assignment.txt "
	      "beside the\n"
	      "                     module, against the plan; a name with "
	      "_gpu_ or _tpu_\n"
	      "                     before after_optimizations sets the "
	      "target\n"
	      "  --xla-assignment FILE  XLA's buffer assignment of the module, "
	      "in --stats,\n"
	      "                     --json and --svg beside the plan\n"
	      "                     (found beside a dump's module without "
	      "it)\n"
	      "Depfiles, as GCC writes them:\n"
	      "  -MD                write one beside the output: plan.h -> "
	      "plan.d\n"
	      "  -MF FILE           write it to FILE\n"
	      "  -MT TARGET         its target (repeatable; default: the "
	      "output)\n"
	      "  -MQ TARGET         the same, with Make's special characters "
	      "quoted\n"
	      "Planning:\n"
	      "  --target T         gpu, tpu, or all (default: both plans in "
	      "one header)\n"
	      "  --align N          offset alignment in bytes (default 256)\n"
	      "  --tpu-tile RxC     TPU tile for untiled arrays of rank >= 2 "
	      "(default 8x128)\n"
	      "  --no-reuse         no elementwise reuse of dying operands\n"
	      "  --reuse-params     an entry parameter's space may be "
	      "reused after its\n"
	      "                     last read (default: every parameter not "
	      "donated by\n"
	      "                     input_output_alias survives the call)\n"
	      "  --io-out-of-arena  keep entry parameters and outputs out of "
	      "the arena\n"
	      "                     (their bindings: _OFFSET -1)\n"
	      "  --capacity S:B     memory space S holds at most B bytes "
	      "(e.g. 1:16MiB)\n"
	      "  --no-double-buffer no slots for streamed buffers\n"
	      "  --double-buffer NAME  give the buffer of instruction NAME "
	      "slots\n"
	      "  --slots K          slots per streamed buffer (default 2)\n"
	      "  --schedule S       auto (default: reorder unless "
	      "is_scheduled), text, mem\n"
	      "  --effort N         packer work budget in steps\n"
	      "  --threads N        threads for the schedule trials and "
	      "the packer (default 0:\n"
	      "                     one per processor; the plan is the same "
	      "for every N)\n"
	      "  --prefix NAME      macro prefix: NAME_GPU_*, NAME_TPU_* "
	      "(default HLOPLAN)\n"
	      "  --help, --version\n"
	      "A long option's value may also follow '='; sizes take K, M, G "
	      "or KiB, MiB, GiB.\n", out);
}

static int
bad_value(const char *opt, const char *v, const char *why)
{
	fprintf(stderr, "hloplan: %s%s%s: %s\n", opt, v ? "=" : "",
		v ? v : "", why);
	return 1;
}

/* A number with an optional suffix: K, M, G (powers of 1000) or KiB,
 * MiB, GiB (powers of 1024). */
static int
parse_size(const char *s, int64_t *v)
{
	static const struct {
		const char *suffix;
		int64_t scale;
	} units[] = {
		{"", 1}, {"K", 1000}, {"M", 1000000}, {"G", 1000000000},
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	};
	char *end;
	unsigned long long n;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || n > INT64_MAX)
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(end, units[i].suffix)) {
			if ((int64_t)n > INT64_MAX / units[i].scale)
				return -1;
			*v = (int64_t)n * units[i].scale;
			return 0;
		}
	return -1;
}

/* ---- one setter per option ---------------------------------------------- */

static int
set_target(struct cli *c, const char *o, const char *v)
{
	if (!strcmp(v, "gpu"))
		c->opt.targets = HLOPLAN_TARGET_GPU;
	else if (!strcmp(v, "tpu"))
		c->opt.targets = HLOPLAN_TARGET_TPU;
	else if (!strcmp(v, "all"))
		c->opt.targets = HLOPLAN_TARGET_ALL;
	else
		return bad_value(o, v, "expected gpu, tpu or all");
	c->target_given = 1;
	return 0;
}

static int
set_xla(struct cli *c, const char *o, const char *v)
{
	if (!*v)
		return bad_value(o, NULL, "needs a file name");
	c->xla = v;
	return 0;
}

static int
set_align(struct cli *c, const char *o, const char *v)
{
	int64_t n;

	if (parse_size(v, &n) || n < 1 || n > (1 << 30) || (n & (n - 1)))
		return bad_value(o, v, "expected a power of two from 1 to "
				 "2^30");
	c->opt.align = n;
	return 0;
}

static int
set_tile(struct cli *c, const char *o, const char *v)
{
	int64_t r, n;

	if (sscanf(v, "%" SCNd64 "x%" SCNd64, &r, &n) != 2 || r < 1 || n < 1 ||
	    r > 4096 || n > 4096)
		return bad_value(o, v, "expected RxC, e.g. 8x128");
	c->opt.tpu_tile[0] = (int)r;
	c->opt.tpu_tile[1] = (int)n;
	return 0;
}

/* --capacity=SPACE:BYTES */
static int
set_capacity(struct cli *c, const char *o, const char *v)
{
	char *end;
	long space;

	errno = 0;
	space = strtol(v, &end, 10);
	if (errno || end == v || *end != ':' || space < 0 || space > 1 << 20)
		return bad_value(o, v, "expected SPACE:BYTES, e.g. 1:16MiB");
	if (c->opt.ncapacity == MAXCAP)
		return bad_value(o, v, "too many capacities");
	if (parse_size(end + 1, &c->cap[c->opt.ncapacity].bytes))
		return bad_value(o, v, "expected a size in bytes, e.g. 16MiB");
	c->cap[c->opt.ncapacity++].space = (int)space;
	c->opt.capacities = c->cap;
	return 0;
}

static int
set_double_buffer(struct cli *c, const char *o, const char *v)
{
	size_t n = (size_t)c->opt.ndouble_buffer + 1;
	const char **names = realloc(c->names, sizeof *names * n);

	if (!names)
		return bad_value(o, v, "out of memory");
	c->names = names;
	if (!*v)
		return bad_value(o, v, "expected an instruction name");
	c->names[c->opt.ndouble_buffer++] = v;
	c->opt.double_buffer = c->names;
	return 0;
}

static int
set_slots(struct cli *c, const char *o, const char *v)
{
	int64_t n;

	if (parse_size(v, &n) || n < 2 || n > 64)
		return bad_value(o, v, "expected a number from 2 to 64");
	c->opt.slots = (int)n;
	return 0;
}

static int
set_effort(struct cli *c, const char *o, const char *v)
{
	int64_t n;

	if (parse_size(v, &n) || n > (int64_t)1 << 40 || n > LONG_MAX)
		return bad_value(o, v, "expected a number of steps");
	c->opt.effort = (long)n;
	return 0;
}

static int
set_threads(struct cli *c, const char *o, const char *v)
{
	int64_t n;

	if (parse_size(v, &n) || n > HLOPLAN_THREADS_MAX)
		return bad_value(o, v, "expected a number from 0 to 64");
	c->opt.threads = (int)n;
	return 0;
}

static int
set_schedule(struct cli *c, const char *o, const char *v)
{
	if (!strcmp(v, "auto"))
		c->opt.schedule = HLOPLAN_SCHEDULE_AUTO;
	else if (!strcmp(v, "text"))
		c->opt.schedule = HLOPLAN_SCHEDULE_TEXT;
	else if (!strcmp(v, "mem"))
		c->opt.schedule = HLOPLAN_SCHEDULE_MEM;
	else
		return bad_value(o, v, "expected auto, text or mem");
	return 0;
}

static int
set_prefix(struct cli *c, const char *o, const char *v)
{
	for (const char *s = v; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (s > v && *s >= '0' && *s <= '9')))
			return bad_value(o, v, "expected an upper-case C "
					 "identifier");
	if (!*v)
		return bad_value(o, v, "expected a name");
	c->opt.prefix = v;
	return 0;
}

static int
set_dump(struct cli *c, const char *o, const char *v)
{
	if (strcmp(v, "ir") && strcmp(v, "schedule") && strcmp(v, "hlo") &&
	    strcmp(v, "values") && strcmp(v, "plan"))
		return bad_value(o, v, "expected ir, schedule, hlo, values or "
				 "plan");
	c->opt.dump = v;
	return 0;
}

static int
set_switch(struct cli *c, const char *o, const char *v)
{
	(void)v;
	if (!strcmp(o, "--no-reuse"))
		c->opt.no_reuse = 1;
	else if (!strcmp(o, "--io-out-of-arena"))
		c->opt.io_out_of_arena = 1;
	else if (!strcmp(o, "--reuse-params"))
		c->opt.reuse_params = 1;
	else if (!strcmp(o, "--no-double-buffer"))
		c->opt.no_double_buffer = 1;
	else if (!strcmp(o, "--intervals"))
		c->intervals = 1;
	else if (!strcmp(o, "--allocators"))
		c->opt.allocators = 1;
	else
		c->stats = 1;
	return 0;
}

/* Long options: a setter, or the output a FILE value names (out >= 0). */
static const struct flag {
	const char *name;
	int arg;		/* takes a value */
	int (*set)(struct cli *c, const char *o, const char *v);
	int out;
} flags[] = {
	{"--target", 1, set_target, -1},
	{"--align", 1, set_align, -1},
	{"--tpu-tile", 1, set_tile, -1},
	{"--no-reuse", 0, set_switch, -1},
	{"--io-out-of-arena", 0, set_switch, -1},
	{"--reuse-params", 0, set_switch, -1},
	{"--capacity", 1, set_capacity, -1},
	{"--no-double-buffer", 0, set_switch, -1},
	{"--double-buffer", 1, set_double_buffer, -1},
	{"--slots", 1, set_slots, -1},
	{"--schedule", 1, set_schedule, -1},
	{"--effort", 1, set_effort, -1},
	{"--threads", 1, set_threads, -1},
	{"--prefix", 1, set_prefix, -1},
	{"--stats", 0, set_switch, -1},
	{"--allocators", 0, set_switch, -1},
	{"--intervals", 0, set_switch, -1},
	{"--dump", 1, set_dump, -1},
	{"--xla-assignment", 1, set_xla, -1},
	{"--json", 1, NULL, OUT_JSON},
	{"--csv", 1, NULL, OUT_CSV},
	{"--svg", 1, NULL, OUT_SVG},
	{"--constants", 1, NULL, OUT_CONSTANTS},
	{"--stats-json", 1, NULL, OUT_STATS_JSON},
};

/* ---- argv --------------------------------------------------------------- */

/* --name, --name=VALUE, or --name VALUE for an option that takes one. */
static int
parse_long(int argc, char **argv, int *i, struct cli *c)
{
	const char *a = argv[*i], *eq = strchr(a, '='), *v = NULL;
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	const struct flag *f = NULL;

	for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
		if (strlen(flags[k].name) == n && !strncmp(a, flags[k].name, n))
			f = &flags[k];
	if (!f) {
		fprintf(stderr, "hloplan: unknown option '%s'\n", a);
		return 1;
	}
	if (f->arg && !(v = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL))
		return bad_value(f->name, NULL, "needs a value");
	if (!f->arg && eq)
		return bad_value(f->name, NULL, "takes no value");
	if (f->out >= 0 && !*v)
		return bad_value(f->name, NULL, "needs a file name");
	if (f->out >= 0)
		c->out[f->out] = v;
	return f->set ? f->set(c, f->name, v) : 0;
}

static int
add_target(struct cli *c, const char *t, int quoted)
{
	const char **ts = realloc(c->targets, sizeof *ts *
						 (size_t)(c->ntarget + 1));
	int *qs;

	if (ts)
		c->targets = ts;
	qs = ts ? realloc(c->quoted, sizeof *qs * (size_t)(c->ntarget + 1)) :
		  NULL;
	if (!qs)
		return bad_value("-MT", NULL, "out of memory");
	c->quoted = qs;
	c->targets[c->ntarget] = t;
	c->quoted[c->ntarget++] = quoted;
	return 0;
}

/* -o FILE, -MD, -MF FILE, -MT TARGET, -MQ TARGET; a value may be joined
 * (-oFILE, -MFFILE) as GCC allows. */
static int
parse_short(int argc, char **argv, int *i, struct cli *c)
{
	const char *a = argv[*i], *v;
	size_t n = !strncmp(a, "-o", 2) ? 2 : 3;

	if (!strcmp(a, "-MD")) {
		c->md = 1;
		return 0;
	}
	if (strncmp(a, "-o", 2) && strncmp(a, "-MF", 3) &&
	    strncmp(a, "-MT", 3) && strncmp(a, "-MQ", 3)) {
		fprintf(stderr, "hloplan: unknown option '%s'\n", a);
		return 1;
	}
	v = a[n] ? a + n : *i + 1 < argc ? argv[++*i] : NULL;
	if (!v || !*v) {
		fprintf(stderr, "hloplan: %.*s needs a %s\n", (int)n, a,
			n == 2 || a[2] == 'F' ? "file name" : "target");
		return 1;
	}
	if (n == 2)
		c->out[OUT_HEADER] = v;
	else if (a[2] == 'F')
		c->out[OUT_DEP] = v;
	else
		return add_target(c, v, a[2] == 'Q');
	return 0;
}

/* The first output written to a file, the depfile's default target. */
static const char *
primary_output(const struct cli *c)
{
	for (int k = OUT_HEADER; k < OUT_DEP; k++)
		if (c->out[k] && strcmp(c->out[k], "-"))
			return c->out[k];
	return NULL;
}

/* path with its suffix replaced by .d, as GCC's -MD names it. */
static char *
dep_name(const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t n = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) :
							strlen(path);
	char *s = malloc(n + 3);

	if (s)
		snprintf(s, n + 3, "%.*s.d", (int)n, path);
	return s;
}

/* The depfile's name and targets, when one is asked for. */
static int
settle_depfile(struct cli *c)
{
	const char *primary = primary_output(c);

	if (!c->md && !c->out[OUT_DEP])
		return 0;
	if (!c->out[OUT_DEP] && !primary) {
		fputs("hloplan: -MD needs -o FILE or -MF FILE\n", stderr);
		return 1;
	}
	if (!c->out[OUT_DEP] && !(c->out[OUT_DEP] = c->depname =
				  dep_name(primary)))
		return bad_value("-MD", NULL, "out of memory");
	if (c->ntarget)
		return 0;
	if (!primary) {
		fputs("hloplan: a depfile needs -o FILE or -MT TARGET\n",
		      stderr);
		return 1;
	}
	return add_target(c, primary, 1);
}

/* Several inputs, or a directory: a table on -o (stdout by default) and
 * nothing else. */
static int
settle_survey(struct cli *c)
{
	for (int k = OUT_JSON; k < NOUT; k++)
		if (c->out[k] || c->md) {
			fputs("hloplan: with several inputs or a directory, "
			      "hloplan prints a table (-o); drop the other "
			      "outputs\n", stderr);
			return 1;
		}
	if (c->opt.dump || c->intervals || c->xla) {
		fprintf(stderr, "hloplan: with several inputs or a directory, "
			"drop %s (XLA's assignment is read from beside each "
			"module)\n", c->opt.dump ? "--dump" : c->intervals ?
			"--intervals" : "--xla-assignment");
		return 1;
	}
	if (c->stats || c->opt.allocators || c->opt.prefix || c->ntarget) {
		fprintf(stderr, "hloplan: with several inputs or a directory, "
			"hloplan prints a table, to which %s does not apply; "
			"drop it\n", c->stats ? "--stats" : c->opt.allocators ?
			"--allocators" : c->opt.prefix ? "--prefix" :
			"-MT or -MQ");
		return 1;
	}
	if (!c->out[OUT_HEADER])
		c->out[OUT_HEADER] = "-";
	return 0;
}

/* The outputs that show XLA's assignment beside the plan. */
static int
shows_xla(const struct cli *c)
{
	return c->stats || c->out[OUT_JSON] || c->out[OUT_SVG];
}

/* Checks what the flags say together; the header goes to stdout when no
 * output is named. */
static int
settle(struct cli *c)
{
	int named = 0;

	if (!c->input) {
		usage(stderr);
		return 1;
	}
	c->survey = c->ninput > 1 || survey_is_dir(c->input);
	if (c->survey)
		return settle_survey(c);
	if (c->xla && (c->intervals || !shows_xla(c))) {
		fputs(c->intervals ? "hloplan: --xla-assignment compares an "
		      "HLO module's plan; drop --intervals\n" :
		      "hloplan: --xla-assignment reports in --stats, --json "
		      "and --svg; add one\n", stderr);
		return 1;
	}
	for (int k = OUT_JSON; k < OUT_DEP; k++)
		named |= c->out[k] != NULL;
	if (c->opt.dump && named) {
		fputs("hloplan: --dump prints instead of the outputs; drop "
		      "--json, --csv, --svg, --constants or --stats-json\n",
		      stderr);
		return 1;
	}
	if (c->out[OUT_CONSTANTS] && !strcmp(c->out[OUT_CONSTANTS], "-"))
		return bad_value("--constants", "-", "expected a file, which "
				 "the header names");
	c->opt.constants = c->out[OUT_CONSTANTS];
	if (!c->out[OUT_HEADER] && !named)
		c->out[OUT_HEADER] = "-";
	return settle_depfile(c);
}

/* Parses argv into c; returns -1 to exit 0 (help, version), 1 on a usage
 * error, 0 to go on. */
static int
parse_args(int argc, char **argv, struct cli *c)
{
	int r = 0, dashdash = 0;

	for (int i = 1; i < argc && !r; i++) {
		const char *a = argv[i];

		if (!dashdash && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			usage(stdout);
			return -1;
		} else if (!dashdash && !strcmp(a, "--version")) {
			printf("hloplan %s\n", hloplan_version());
			return -1;
		} else if (!dashdash && !strcmp(a, "--")) {
			dashdash = 1;
		} else if (!dashdash && !strncmp(a, "--", 2)) {
			r = parse_long(argc, argv, &i, c);
		} else if (!dashdash && a[0] == '-' && a[1]) {
			r = parse_short(argc, argv, &i, c);
		} else {
			const char **v = realloc(c->inputs, sizeof *v *
					       (size_t)(c->ninput + 1));

			if (!v)
				return bad_value("FILE", a, "out of memory");
			c->inputs = v;
			c->inputs[c->ninput++] = a;
			c->input = c->inputs[0];
		}
	}
	return r ? r : settle(c);
}

/* ---- the run ------------------------------------------------------------ */

static int
write_one(const struct cli *c, const struct hloplan_result *r, int k,
	  FILE *f)
{
	static const int format[] = {
		HLOPLAN_FORMAT_HEADER, HLOPLAN_FORMAT_JSON, HLOPLAN_FORMAT_CSV,
		HLOPLAN_FORMAT_SVG, HLOPLAN_FORMAT_CONSTANTS,
		HLOPLAN_FORMAT_STATS_JSON,
	};

	if (k == OUT_DEP)
		return hloplan_write_depfile(r, f, c->targets, c->quoted,
					     c->ntarget);
	return hloplan_write(r, format[k], f, c->out[k]);
}

static int
io_error(const char *path)
{
	fprintf(stderr, "hloplan: cannot write %s%s%s: %s\n",
		strcmp(path, "-") ? "'" : "", strcmp(path, "-") ? path :
		"standard output", strcmp(path, "-") ? "'" : "",
		strerror(errno));
	return EXIT_USAGE;
}

/* Opens, writes and flushes every output, then commits them all; on a
 * failure, none that is not committed yet is.  A flush before any commit:
 * an output's buffer may hold all of it, and a write that fails must fail
 * before the first output is renamed into place.  dump, when set, is the
 * -o output. */
static int
write_outputs(const struct cli *c, const struct hloplan_result *r,
	      struct hloplan_output *dump)
{
	struct hloplan_output *o[NOUT] = {dump};
	int k, bad = -1;

	for (k = 0; k < NOUT && bad < 0; k++) {
		if (!c->out[k] || (k == OUT_HEADER && dump))
			continue;
		if (!(o[k] = hloplan_output_open_timed(c->out[k], r)) ||
		    write_one(c, r, k, hloplan_output_stream(o[k])) < 0 ||
		    hloplan_output_flush(o[k]) < 0)
			bad = k;
	}
	bad = hloplan_output_finish(o, NOUT, bad);
	return bad < 0 ? 0 : io_error(c->out[bad]);
}

/* --intervals: pack a raw problem (minimalloc's CSV) into -o, a CSV with
 * an offset column, written atomically like every output. */
static int
run_intervals(struct cli *c)
{
	struct hloplan_output *o = hloplan_output_open(c->out[OUT_HEADER]);
	struct hloplan_pack_stats st = {0};
	int r;

	if (!o)
		return io_error(c->out[OUT_HEADER]);
	r = hloplan_pack_csv(c->input, &c->opt, hloplan_output_stream(o),
			     stderr, &st);
	if (r != HLOPLAN_OK) {
		hloplan_output_abort(o);
		return r == HLOPLAN_ERR_INPUT ? EXIT_INPUT : EXIT_USAGE;
	}
	if (hloplan_output_commit(o))
		return io_error(c->out[OUT_HEADER]);
	if (c->stats && st.bound > st.lower)
		fprintf(stderr, "hloplan: %d buffers, lower bound %" PRId64
			", aligned bound %" PRId64 ", height %" PRId64
			", ratio %.4f (%.4f of the aligned bound), packing "
			"%.1f ms\n", st.buffers, st.lower, st.bound, st.height,
			(double)st.height / (double)st.lower,
			(double)st.height / (double)st.bound, st.ms);
	else if (c->stats)
		fprintf(stderr, "hloplan: %d buffers, lower bound %" PRId64
			", height %" PRId64 ", ratio %.4f, packing %.1f ms\n",
			st.buffers, st.lower, st.height,
			st.lower ? (double)st.height / (double)st.lower : 1.0,
			st.ms);
	return 0;
}

/* The table over several inputs or a directory, written whole to -o. */
static int
run_survey(struct cli *c)
{
	struct hloplan_output *o = hloplan_output_open(c->out[OUT_HEADER]);
	int code;

	if (!o)
		return io_error(c->out[OUT_HEADER]);
	code = survey_run(c->inputs, c->ninput, &c->opt, c->target_given,
			  hloplan_output_stream(o), stderr);
	if (code < 0) {			/* no module: no table */
		hloplan_output_abort(o);
		return code == -2 ? EXIT_USAGE : EXIT_INPUT;
	}
	if (hloplan_output_flush(o) < 0) {
		hloplan_output_abort(o);
		return io_error(c->out[OUT_HEADER]);
	}
	if (hloplan_output_commit(o) < 0)
		return io_error(c->out[OUT_HEADER]);
	return code > 1 ? EXIT_USAGE : code ? EXIT_INPUT : 0;
}

/* XLA's assignment for --stats, --json and --svg: the file named, or the
 * one a dump wrote beside the module; read before planning, so that a bad
 * one leaves no output.  Returns -1 (none), 0 (read into x) or an exit
 * code. */
static int
xla_read(const struct cli *c, struct hloplan_xla *x)
{
	char *beside = c->xla || !shows_xla(c) ? NULL :
		       survey_beside(c->input);
	const char *path = c->xla ? c->xla : beside;
	char why[4096];
	int s;

	if (!path)
		return -1;
	s = hloplan_read_xla_assignment(path, x, why, sizeof why);
	if (s != HLOPLAN_OK)
		fprintf(stderr, "%s\n", why);
	free(beside);
	return s == HLOPLAN_OK ? 0 : s == HLOPLAN_ERR_IO ? EXIT_USAGE :
							EXIT_INPUT;
}

static int
run(struct cli *c)
{
	struct hloplan_output *dump = NULL;
	struct hloplan_result *r;
	char *text = NULL;	/* a dump, kept in memory while planning: no */
	size_t len = 0;		/* file beside the output until it is whole */
	FILE *mem = NULL;
	int code = 0;

	struct hloplan_xla x;
	int xla = xla_read(c, &x);

	if (xla > 0)
		return xla;
	c->opt.xla = xla ? NULL : &x;
	if (c->opt.dump && !(mem = open_memstream(&text, &len)))
		return io_error(c->out[OUT_HEADER]);
	c->opt.dump_file = mem;
	if (!c->target_given && survey_target(c->input))
		c->opt.targets = survey_target(c->input);
	r = hloplan_plan_file(c->input, &c->opt);
	if (mem && fclose(mem) != 0)
		code = io_error(c->out[OUT_HEADER]);
	if (!code && hloplan_status(r) != HLOPLAN_OK) {
		hloplan_write_diags(r, stderr);
		code = hloplan_status(r) == HLOPLAN_ERR_INPUT ? EXIT_INPUT :
								EXIT_USAGE;
	} else if (!code && mem) {
		if (!(dump = hloplan_output_open(c->out[OUT_HEADER])) ||
		    fwrite(text, 1, len, hloplan_output_stream(dump)) != len) {
			hloplan_output_abort(dump);
			code = io_error(c->out[OUT_HEADER]);
		}
	}
	if (!code)
		code = write_outputs(c, r, dump);
	if (!code && c->stats)
		hloplan_write(r, HLOPLAN_FORMAT_STATS, stderr, NULL);
	else if (!code && c->opt.allocators)
		hloplan_write(r, HLOPLAN_FORMAT_ALLOCATORS, stderr, NULL);
	free(text);
	hloplan_free(r);
	return code;
}

/* SIGINT, SIGTERM: no temporary stays beside an output; then the signal
 * ends the process as it would have. */
static void
on_signal(int sig)
{
	hloplan_output_remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main_programs(int argc, char **argv);	/* main_joint.c */

int
main(int argc, char **argv)
{
	struct cli c = {0};
	int code;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--programs", 10))
			return main_programs(argc, argv);
	code = parse_args(argc, argv, &c);

	if (!code)
		code = c.survey ? run_survey(&c) : c.intervals ?
		       run_intervals(&c) : run(&c);
	else
		code = code < 0 ? 0 : EXIT_USAGE;
	free(c.depname);
	free(c.targets);
	free(c.quoted);
	free(c.names);
	free(c.inputs);
	return code;
}

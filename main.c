/* The hloplan command line: a thin layer over the library.  Exit status: 0
 * ok, 1 bad input, 2 usage or I/O error. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "driver.h"
#include "frontend/frontend.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

struct cli {
	const char *input;
	const char *output;
	const char *dump;	/* a stage to print instead of the plan */
	const char *prefix;	/* macro prefix; default HLOPLAN */
	int targets;		/* 1 << TARGET_GPU | 1 << TARGET_TPU */
	int stats;
	const char **names;	/* --double-buffer=NAME, malloc'd */
	struct options opt;
};

static void
usage(FILE *out)
{
	fputs("usage: hloplan [options] FILE.hlo\n"
	      "  -o FILE          write the plan header to FILE ('-': stdout)\n"
	      "  --target=T       gpu, tpu, or all (default: both plans in "
	      "one header)\n"
	      "  --align=N        offset alignment in bytes (default 256)\n"
	      "  --tpu-tile=RxC   TPU tile for untiled layouts (default 8x128)\n"
	      "  --no-reuse       no elementwise reuse of dying operands\n"
	      "  --io-out-of-arena  keep entry parameters and outputs out of "
	      "the arena\n"
	      "  --capacity=S:B   memory space S holds at most B bytes "
	      "(e.g. 1:16MiB)\n"
	      "  --no-double-buffer  no slots for streamed buffers\n"
	      "  --double-buffer=NAME  give the buffer of instruction NAME "
	      "slots\n"
	      "  --slots=K        slots per streamed buffer (default 2)\n"
	      "  --effort=N       packer work budget in steps\n"
	      "  --prefix=NAME    macro prefix (default HLOPLAN)\n"
	      "  --stats          print arena, lower bound and times to "
	      "stderr\n"
	      "  --schedule=S     auto (default: reorder unless is_scheduled),"
	      " text, mem\n"
	      "  --dump=STAGE     print a stage instead of the plan: ir, "
	      "schedule,\n"
	      "                   hlo (in the chosen order), values, plan\n"
	      "  --help           show this help\n"
	      "  --version        show the version\n"
	      "FILE may be '-' for standard input.\n", out);
}

static int
bad_value(const char *opt, const char *why)
{
	fprintf(stderr, "hloplan: %s: %s\n", opt, why);
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

/* --capacity=SPACE:BYTES */
static int
parse_capacity(const char *a, const char *v, struct options *o)
{
	char *end;
	long space;

	errno = 0;
	space = strtol(v, &end, 10);
	if (errno || end == v || *end != ':' || space < 0 || space > 1 << 20)
		return bad_value(a, "expected SPACE:BYTES, e.g. 1:16MiB");
	if (o->ncap == (int)(sizeof o->cap / sizeof o->cap[0]))
		return bad_value(a, "too many capacities");
	if (parse_size(end + 1, &o->cap[o->ncap].bytes))
		return bad_value(a, "expected a size in bytes, e.g. 16MiB");
	o->cap[o->ncap++].space = (int)space;
	return 0;
}


/* One --name or --name=value option. */
static int
parse_long(const char *a, struct cli *c)
{
	const char *v = strchr(a, '=');
	int64_t n, r;

	v = v ? v + 1 : "";
	if (!strcmp(a, "--no-reuse"))
		c->opt.reuse = 0;
	else if (!strcmp(a, "--io-out-of-arena"))
		c->opt.io_in_arena = 0;
	else if (!strcmp(a, "--stats"))
		c->stats = 1;
	else if (!strcmp(a, "--no-double-buffer"))
		c->opt.double_buffer = 0;
	else if (!strncmp(a, "--double-buffer=", 16)) {
		const char **names = realloc(c->names, sizeof(char *) *
						       (size_t)(c->opt.nname + 1));

		if (!names || !*v)
			return bad_value(a, "expected an instruction name");
		c->names = names;
		c->names[c->opt.nname++] = v;
		c->opt.names = c->names;
	} else if (!strncmp(a, "--slots=", 8)) {
		if (parse_size(v, &n) || n < 2 || n > 64)
			return bad_value(a, "expected a number from 2 to 64");
		c->opt.slots = (int)n;
	}
	else if (!strncmp(a, "--target=", 9)) {
		if (!strcmp(v, "gpu"))
			c->targets = 1 << TARGET_GPU;
		else if (!strcmp(v, "tpu"))
			c->targets = 1 << TARGET_TPU;
		else if (!strcmp(v, "all"))
			c->targets = 1 << TARGET_GPU | 1 << TARGET_TPU;
		else
			return bad_value(a, "expected gpu, tpu or all");
	} else if (!strncmp(a, "--align=", 8)) {
		if (parse_size(v, &n) || n < 1 || n > (1 << 30) || (n & (n - 1)))
			return bad_value(a, "expected a power of two from 1 "
					 "to 2^30");
		c->opt.align = n;
	} else if (!strncmp(a, "--tpu-tile=", 11)) {
		if (sscanf(v, "%" SCNd64 "x%" SCNd64, &r, &n) != 2 || r < 1 ||
		    n < 1 || r > 4096 || n > 4096)
			return bad_value(a, "expected RxC, e.g. 8x128");
		c->opt.tpu_tile[0] = (int)r;
		c->opt.tpu_tile[1] = (int)n;
	} else if (!strncmp(a, "--capacity=", 11)) {
		return parse_capacity(a, v, &c->opt);
	} else if (!strncmp(a, "--effort=", 9)) {
		if (parse_size(v, &n) || n > (int64_t)1 << 40)
			return bad_value(a, "expected a number of steps");
		c->opt.effort = (long)n;
	} else if (!strncmp(a, "--schedule=", 11)) {
		if (!strcmp(v, "auto"))
			c->opt.schedule = SCHED_AUTO;
		else if (!strcmp(v, "text"))
			c->opt.schedule = SCHED_TEXT;
		else if (!strcmp(v, "mem"))
			c->opt.schedule = SCHED_MEM;
		else
			return bad_value(a, "expected auto, text or mem");
	} else if (!strncmp(a, "--prefix=", 9)) {
		for (const char *s = v; *s; s++)
			if (!((*s >= 'A' && *s <= 'Z') || *s == '_' ||
			      (s > v && *s >= '0' && *s <= '9')))
				return bad_value(a, "expected an upper-case "
						 "C identifier");
		if (!*v)
			return bad_value(a, "expected a name");
		c->prefix = v;
	} else if (!strncmp(a, "--dump=", 7)) {
		if (strcmp(v, "ir") && strcmp(v, "schedule") &&
		    strcmp(v, "hlo") && strcmp(v, "values") &&
		    strcmp(v, "plan"))
			return bad_value(a, "expected ir, schedule, hlo, values "
					 "or plan");
		c->dump = v;
	} else {
		fprintf(stderr, "hloplan: unknown option '%s'\n", a);
		return 1;
	}
	return 0;
}

/* Parses argv into c; returns -1 to exit 0 (help, version), 1 on a usage
 * error, 0 to go on. */
static int
parse_args(int argc, char **argv, struct cli *c)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(a, "--version")) {
			printf("hloplan %s\n", HLOPLAN_VERSION);
			return -1;
		} else if (!strcmp(a, "-o")) {
			if (++i >= argc) {
				fputs("hloplan: -o needs a file name\n", stderr);
				return 1;
			}
			c->output = argv[i];
		} else if (!strncmp(a, "--", 2) && a[2]) {
			if (parse_long(a, c))
				return 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hloplan: unknown option '%s'\n", a);
			return 1;
		} else if (c->input) {
			fprintf(stderr, "hloplan: more than one input file\n");
			return 1;
		} else {
			c->input = a;
		}
	}
	if (!c->input) {
		usage(stderr);
		return 1;
	}
	return 0;
}

/* Reads a whole file (or stdin for "-"); NULL with errno on failure. */
static char *
read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0, r;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

/* Output goes to a temporary file renamed into place, so that a failed run
 * never leaves a partial or stale file behind. */
struct out {
	const char *path;
	char tmp[4096];
	FILE *f;
};

static int
out_open(struct out *o, const char *path)
{
	int fd;

	o->path = path;
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (snprintf(o->tmp, sizeof o->tmp, "%s.tmpXXXXXX", path) >=
	    (int)sizeof o->tmp)
		return -1;
	if ((fd = mkstemp(o->tmp)) < 0)
		return -1;
	if (!(o->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

/* Closes and renames into place (ok), or removes the temporary. */
static int
out_close(struct out *o, int ok)
{
	int err;

	if (o->f == stdout)
		return fflush(stdout) || ferror(stdout) ? -1 : 0;
	err = ferror(o->f);
	err |= fclose(o->f);
	if (!ok || err || rename(o->tmp, o->path)) {
		unlink(o->tmp);
		return ok ? -1 : 0;
	}
	return 0;
}

/* An upper-case C identifier made from s (for guards and prefixes). */
static char *
upper_ident(struct pool *pool, const char *s)
{
	char *r = pool_strdup(pool, *s >= '0' && *s <= '9' ? "_" : "");

	r = pool_printf(pool, "%s%s", r, s);
	for (char *q = r; *q; q++)
		*q = (*q >= 'a' && *q <= 'z') ? (char)(*q - 32) :
		     ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')) ?
		     *q : '_';
	return r;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* PREFIX_GPU, or PREFIX_<MODULE>_GPU when a file holds several modules
 * (with _<index> when two share a name). */
static const char *
plan_prefix(struct pool *pool, const struct cli *c, const struct hlofile *f,
	    int mod, int target)
{
	const char *t = target == TARGET_GPU ? "GPU" : "TPU";
	const char *base = c->prefix ? c->prefix : "HLOPLAN";
	int dup = 0;

	if (f->nmod == 1)
		return pool_printf(pool, "%s_%s", base, t);
	for (int i = 0; i < f->nmod; i++)
		dup |= i != mod && !strcmp(f->mods[i].name, f->mods[mod].name);
	if (dup)
		return pool_printf(pool, "%s_%s_%d_%s", base,
				   upper_ident(pool, f->mods[mod].name), mod, t);
	return pool_printf(pool, "%s_%s_%s", base,
			   upper_ident(pool, f->mods[mod].name), t);
}

static void
print_stats(const struct plan *pl, const char *prefix)
{
	int64_t padded = 0, bytes = 0, extra = 0;
	int slotted = 0;

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (!x->in_arena)
			continue;
		padded += x->slots > 1 ? x->stride : x->size;
		bytes += x->bytes;
		if (x->slots > 1) {
			slotted++;
			extra += x->size - x->stride;
		}
	}
	fprintf(stderr, "%s: module %s, %d buffers, %d steps; buffer bytes "
		"%lld, padded %lld (+%.1f%%)\n", prefix, pl->module, pl->nbuf,
		pl->ntime, (long long)bytes, (long long)padded,
		bytes ? 100.0 * (double)(padded - bytes) / (double)bytes : 0.0);
	fprintf(stderr, "%s:   schedule: %s order, peak %lld bytes (text "
		"order: %lld)\n", prefix, pl->sched.name,
		(long long)pl->sched.peak, (long long)pl->sched.peak_text);
	if (pl->ncopy)
		fprintf(stderr, "%s:   copies: %d (values that must share a "
			"buffer but are live at once)\n", prefix, pl->ncopy);
	if (slotted)
		fprintf(stderr, "%s:   double-buffered: %d buffers, %lld more "
			"bytes reserved in their slots\n", prefix, slotted,
			(long long)extra);
	for (int a = 0; a < pl->narena; a++) {
		const struct arena *x = &pl->arenas[a];

		fprintf(stderr, "%s:   arena S(%d): %lld bytes, lower bound "
			"%lld, ratio %.4f\n", prefix, x->space,
			(long long)x->size, (long long)x->lower,
			x->lower ? (double)x->size / (double)x->lower : 1.0);
	}
}

static void
print_times(const struct stats *st)
{
	fputs("hloplan: time", stderr);
	for (int k = 0; k < NSTAGE; k++)
		fprintf(stderr, " %s %.2f ms%s", stage_names[k], st->ms[k],
			k + 1 < NSTAGE ? "," : "\n");
}

/* Plans every module for every target; -1 on bad input. */
static int
plan_all(struct pool *pool, struct diags *ds, const struct cli *c,
	 const struct hlofile *f, struct driver_opts *d, struct plan **plans,
	 const char ***prefixes, int *nplan)
{
	int n = 0;

	*plans = pool_alloc(pool, sizeof **plans * (size_t)(2 * f->nmod + 1));
	*prefixes = pool_alloc(pool, sizeof **prefixes *
					     (size_t)(2 * f->nmod + 1));
	for (int i = 0; i < f->nmod; i++)
		for (int t = TARGET_GPU; t <= TARGET_TPU; t++) {
			struct options o = c->opt;

			if (!(c->targets & (1 << t)))
				continue;
			o.target = t;
			if (plan_module(pool, ds, &f->mods[i], &o, d,
					&(*plans)[n]) < 0)
				return -1;
			(*prefixes)[n++] = plan_prefix(pool, c, f, i, t);
		}
	*nplan = n;
	return 0;
}

/* Writes the header (or the dump) through a temporary file. */
static int
run(struct pool *pool, struct diags *ds, const struct cli *c,
    const struct hlofile *f, struct out *out, struct stats *st)
{
	struct driver_opts d = {c->dump, out->f, c->stats ? st : NULL};
	struct header_opts ho = {0};
	struct plan *plans;
	const char **prefixes;
	int nplan;

	if (c->dump && !strcmp(c->dump, "ir")) {
		for (int i = 0; i < f->nmod; i++)
			ir_print_module(out->f, &f->mods[i]);
		return 0;
	}
	if (plan_all(pool, ds, c, f, &d, &plans, &prefixes, &nplan) < 0)
		return -1;
	if (c->stats)
		for (int i = 0; i < nplan; i++)
			print_stats(&plans[i], prefixes[i]);
	if (c->dump)
		return 0;
	ho.source = strcmp(c->input, "-") ? base_name(c->input) : "<stdin>";
	ho.guard = c->output && strcmp(c->output, "-") ?
		   upper_ident(pool, base_name(c->output)) : "HLOPLAN_PLAN_H";
	codegen_header(out->f, plans, prefixes, nplan, &ho);
	return 0;
}

int
main(int argc, char **argv)
{
	struct cli cli = {0};
	struct pool *pool;
	struct diags ds = {0};
	struct stats st = {0};
	struct hlofile *f;
	struct out out = {0};
	char *text;
	size_t len;
	int r;

	options_default(&cli.opt);
	cli.targets = 1 << TARGET_GPU | 1 << TARGET_TPU;
	if ((r = parse_args(argc, argv, &cli)))
		return r < 0 ? 0 : EXIT_USAGE;
	if (!(text = read_all(cli.input, &len))) {
		fprintf(stderr, "hloplan: cannot read '%s': %s\n", cli.input,
			strerror(errno));
		return EXIT_USAGE;
	}
	pool = pool_new();
	ds.pool = pool;
	ds.file = strcmp(cli.input, "-") ? cli.input : "<stdin>";
	ds.src = text;
	ds.srclen = len;
	f = frontend_parse(pool, text, len, &ds);
	if (ds.n) {
		diag_print(&ds, stderr);
		return EXIT_INPUT;
	}
	if (out_open(&out, cli.output) < 0) {
		fprintf(stderr, "hloplan: cannot write '%s': %s\n", cli.output,
			strerror(errno));
		return EXIT_USAGE;
	}
	r = run(pool, &ds, &cli, f, &out, &st);
	if (r < 0 || ds.n) {
		out_close(&out, 0);
		diag_print(&ds, stderr);
		return EXIT_INPUT;
	}
	if (cli.stats)
		print_times(&st);
	if (out_close(&out, 1) < 0) {
		fprintf(stderr, "hloplan: cannot write '%s': %s\n",
			cli.output ? cli.output : "-", strerror(errno));
		return EXIT_USAGE;
	}
	pool_free(pool);
	free(text);
	free(cli.names);
	return 0;
}

/* The hloplan command line: a thin layer over the library.  Exit status: 0
 * ok, 1 bad input, 2 usage or I/O error. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontend/frontend.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

struct cli {
	const char *input;
	const char *output;
	const char *dump;	/* "ir" prints the parsed module as HLO */
};

static void
usage(FILE *out)
{
	fputs("usage: hloplan [options] FILE.hlo\n"
	      "  -o FILE        write the plan to FILE ('-' for stdout)\n"
	      "  --dump=ir      print the parsed module back as HLO text\n"
	      "  --help         show this help\n"
	      "  --version      show the version\n"
	      "FILE may be '-' for standard input.\n", out);
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
		} else if (!strncmp(a, "--dump=", 7)) {
			c->dump = a + 7;
			if (strcmp(c->dump, "ir")) {
				fprintf(stderr, "hloplan: unknown dump '%s' "
					"(known: ir)\n", c->dump);
				return 1;
			}
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

int
main(int argc, char **argv)
{
	struct cli cli = {0};
	struct pool *pool;
	struct diags ds = {0};
	struct hlofile *f;
	struct out out = {0};
	char *text;
	size_t len;
	int r = parse_args(argc, argv, &cli);

	if (r)
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
	for (int i = 0; i < f->nmod; i++)
		ir_print_module(out.f, &f->mods[i]);
	if (out_close(&out, 1) < 0) {
		fprintf(stderr, "hloplan: cannot write '%s': %s\n",
			cli.output ? cli.output : "-", strerror(errno));
		return EXIT_USAGE;
	}
	pool_free(pool);
	free(text);
	return 0;
}

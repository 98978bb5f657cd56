/* hloplan --programs DECL: several programs planned into one arena (issue
 * 41; doc/joint.md).  A thin layer over driver_joint.h: options, then every
 * output written whole or not at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/joint.h"
#include "driver_joint.h"
#include "hloplan.h"

enum { J_HEADER, J_JSON, J_NOUT };

struct jcli {
	const char *decl;
	const char *out[J_NOUT];
	int stats;
	struct joint_opts jo;
	struct options o;
};

static int
usage_error(const char *fmt, const char *a)
{
	fputs("hloplan: ", stderr);
	fprintf(stderr, fmt, a);
	fputs("\nusage: hloplan --programs DECL [-o FILE] [--json FILE] "
	      "[--stats] [--allocators] [--target gpu|tpu|all] [--prefix "
	      "NAME]\n", stderr);
	return 2;
}

/* The value of option argv[*i] (after '=' or the next argument). */
static const char *
value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (strcmp(argv[*i], name))
		return NULL;
	return *i + 1 < argc ? argv[++*i] : "";
}

static int
set_target(struct jcli *c, const char *v)
{
	if (!strcmp(v, "gpu"))
		c->jo.targets = 1 << TARGET_GPU;
	else if (!strcmp(v, "tpu"))
		c->jo.targets = 1 << TARGET_TPU;
	else if (!strcmp(v, "all"))
		c->jo.targets = 1 << TARGET_GPU | 1 << TARGET_TPU;
	else
		return usage_error("--target: expected gpu, tpu or all, not "
				   "'%s'", v);
	return 0;
}

static int
parse(int argc, char **argv, struct jcli *c)
{
	const char *v;

	for (int i = 1; i < argc; i++) {
		if ((v = value(argc, argv, &i, "--programs")))
			c->decl = v;
		else if ((v = value(argc, argv, &i, "-o")))
			c->out[J_HEADER] = v;
		else if ((v = value(argc, argv, &i, "--json")))
			c->out[J_JSON] = v;
		else if ((v = value(argc, argv, &i, "--prefix")))
			c->jo.prefix = v;
		else if ((v = value(argc, argv, &i, "--target"))) {
			if (set_target(c, v))
				return 2;
		} else if (!strcmp(argv[i], "--stats"))
			c->stats = 1;
		else if (!strcmp(argv[i], "--allocators"))
			c->jo.allocators = 1;
		else
			return usage_error("'%s' is not an option of "
					   "--programs", argv[i]);
	}
	if (!c->decl || !*c->decl)
		return usage_error("--programs: expected a declaration%s", "");
	for (int k = 0; k < J_NOUT; k++)
		if (c->out[k] && !*c->out[k])
			return usage_error("expected a file after %s",
					   k ? "--json" : "-o");
	if (!c->out[J_HEADER] && !c->out[J_JSON])
		c->out[J_HEADER] = "-";
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void
write_one(FILE *f, int k, const struct joint_out *j)
{
	if (k == J_HEADER)
		codegen_joint_header(f, j);
	else
		codegen_joint_json(f, j);
}

/* Every output flushed before any is committed; on a failure none is. */
static int
write_all(const struct jcli *c, const struct joint_out *j)
{
	struct hloplan_output *o[J_NOUT] = {0};
	int bad = -1, k;

	for (k = 0; k < J_NOUT && bad < 0; k++) {
		if (!c->out[k])
			continue;
		if (!(o[k] = hloplan_output_open(c->out[k])))
			bad = k;
		else if (write_one(hloplan_output_stream(o[k]), k, j),
			 hloplan_output_flush(o[k]) < 0)
			bad = k;
	}
	bad = hloplan_output_finish(o, J_NOUT, bad);
	if (bad < 0)
		return 0;
	fprintf(stderr, "hloplan: cannot write '%s': %s\n", c->out[bad],
		strerror(errno));
	return 2;
}

static void
fill_out(struct joint_out *j, const struct jcli *c, const struct joint_run *r)
{
	j->d = &r->decl;
	j->jp = r->jp;
	j->nplan = r->nplan;
	j->prefix = c->jo.prefix ? c->jo.prefix : "HLOPLAN";
	j->source = base_name(c->decl);
	j->nalloc = r->nalloc;
	for (int t = 0; t < r->nplan; t++)
		for (int a = 0; a < r->nalloc; a++) {
			j->alloc[t][a] = r->allocs[t][a].reserved;
			j->alloc_names[a] = r->allocs[t][a].name;
		}
}

int
main_programs(int argc, char **argv)
{
	struct jcli c = {0};
	struct joint_run r = {0};
	struct joint_out j = {0};
	int code;

	c.jo.targets = 1 << TARGET_GPU | 1 << TARGET_TPU;
	options_default(&c.o);
	if ((code = parse(argc, argv, &c)))
		return code;
	plan_programs(&r, c.decl, &c.o, &c.jo);
	joint_print_diags(&r, stderr);
	if (!r.status) {
		fill_out(&j, &c, &r);
		if (c.stats)
			codegen_joint_stats(stderr, &j);
		code = write_all(&c, &j);
	} else {
		code = r.status;
	}
	pool_free(r.pool);
	return code;
}

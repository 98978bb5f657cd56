/* Prints the plans of a module through the library API as tab-separated
 * lines (plan, arenas, buffers, copies), which test_json.sh compares with
 * what jq reads back from the JSON.  usage: plan_tsv FILE.hlo [gpu|tpu] */
#include <stdio.h>
#include <string.h>

#include "hloplan.h"

static const char *
target(int t)
{
	return t == HLOPLAN_TARGET_GPU ? "gpu" : "tpu";
}

static void
print_plan(const struct hloplan_plan *p)
{
	const char *t = target(p->target);

	printf("plan\t%s\t%s\t%s\t%lld\t%d\n", p->module, t, p->prefix,
	       (long long)p->align, (int)p->nstep);
	for (int i = 0; i < p->narena; i++)
		printf("arena\t%s\t%d\t%lld\t%lld\n", t, p->arenas[i].space,
		       (long long)p->arenas[i].size,
		       (long long)p->arenas[i].lower_bound);
	for (int i = 0; i < p->nbuffer; i++) {
		const struct hloplan_buffer *b = &p->buffers[i];

		printf("buf\t%s\t%d\t%s\t%lld\t%lld\t%lld\t%d\t%d\t%d\t%d\t%d\t"
		       "%lld\t%d\n", t, i, b->name, (long long)b->offset,
		       (long long)b->size, (long long)b->bytes, (int)b->start,
		       (int)b->end, b->space, b->flags, b->slots,
		       (long long)b->stride, b->in_arena);
	}
	for (int i = 0; i < p->ncopy; i++) {
		const struct hloplan_copy *c = &p->copies[i];

		printf("copy\t%s\t%d\t%d\t%d\t%d\t%lld\n", t, c->src, c->dst,
		       (int)c->step, c->after, (long long)c->bytes);
	}
}

int
main(int argc, char **argv)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	int code = 0;

	if (argc < 2 || argc > 3) {
		fputs("usage: plan_tsv FILE.hlo [gpu|tpu]\n", stderr);
		return 2;
	}
	if (argc == 3)
		o.targets = !strcmp(argv[2], "gpu") ? HLOPLAN_TARGET_GPU :
			    HLOPLAN_TARGET_TPU;
	r = hloplan_plan_file(argv[1], &o);
	if (hloplan_status(r) != HLOPLAN_OK) {
		hloplan_write_diags(r, stderr);
		code = 1;
	}
	for (int i = 0; i < hloplan_nplan(r); i++)
		print_plan(hloplan_get_plan(r, i));
	hloplan_free(r);
	return code;
}

/* Prints the plans of a module through the library API as tab-separated
 * lines (plan, arenas, buffers, their values and bindings, positions,
 * copies), which test_json.sh compares with what jq reads back from the
 * JSON.  usage: plan_tsv FILE.hlo [gpu|tpu] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hloplan.h"

static const char *
target(int t)
{
	return t == HLOPLAN_TARGET_GPU ? "gpu" : "tpu";
}

static void
print_index(const struct hloplan_position *q)
{
	putchar('\t');
	for (int d = 0; d < q->depth; d++)
		printf("%s%d", d ? "," : "", q->index[d]);
}

/* Each buffer's values in schedule order; its entry parameter (the lowest
 * number, then the first node) and its output, as the JSON gives them. */
static void
print_values(const struct hloplan_plan *p, const char *t)
{
	int *par = malloc(sizeof(int) * ((size_t)p->nbuffer + 1));
	int *out = malloc(sizeof(int) * ((size_t)p->nbuffer + 1));

	for (int i = 0; i < p->nbuffer; i++) {
		par[i] = out[i] = -1;
		for (int k = 0; k < p->nposition; k++) {
			const struct hloplan_position *q = &p->positions[k];

			if (q->buffer != i)
				continue;
			if (q->defines) {
				printf("val\t%s\t%d\t%s\t%s", t, i,
				       q->computation, q->instruction);
				print_index(q);
				putchar('\n');
			}
			if (q->parameter >= 0 && strncmp(q->shape, "token", 5) &&
			    (par[i] < 0 ||
			     q->parameter < p->positions[par[i]].parameter))
				par[i] = k;
			if (q->output && strncmp(q->shape, "token", 5) &&
			    out[i] < 0)
				out[i] = k;
		}
		if (par[i] >= 0) {
			printf("param\t%s\t%d\t%d", t, i,
			       p->positions[par[i]].parameter);
			print_index(&p->positions[par[i]]);
			putchar('\n');
		}
		if (out[i] >= 0) {
			printf("output\t%s\t%d", t, i);
			print_index(&p->positions[out[i]]);
			putchar('\n');
		}
	}
	free(par);
	free(out);
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
	print_values(p, t);
	for (int i = 0; i < p->nposition; i++) {
		const struct hloplan_position *q = &p->positions[i];

		printf("pos\t%s\t%s\t%s", t, q->computation, q->instruction);
		print_index(q);
		printf("\t%d\t%d\t%d\t%d\t%d\t%lld\n", q->buffer, q->slot,
		       q->defines, q->parameter, q->output,
		       (long long)q->size);
	}
	for (int i = 0; i < p->ncopy; i++) {
		const struct hloplan_copy *c = &p->copies[i];

		printf("copy\t%s\t%d\t%d\t%d\t%d\t%lld\t%d\n", t, c->src,
		       c->dst, (int)c->step, c->after, (long long)c->bytes,
		       c->loop);
	}
	for (int i = 0; i < p->nloop; i++) {
		const struct hloplan_loop *l = &p->loops[i];

		printf("loop\t%s\t%d\t%d\t%d\t%d\t%lld\t%s\n", t,
		       (int)l->first, (int)l->cond_last, (int)l->step,
		       l->parent, (long long)l->trips, l->trips_from);
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

/* A tool that embeds hloplan: plans the model at run time through the
 * library (hloplan.h) and checks that the plan agrees, buffer by buffer,
 * with the header generated at build time; prints OK. */
#include <stdio.h>
#include <string.h>

#include <hloplan.h>

#include "mlp_plan.h"

static int
agrees(const struct hloplan_plan *p)
{
	int ok = p->narena == 1 && p->nbuffer == HLOPLAN_GPU_NUM_BUFFERS &&
		 p->arenas[0].size == HLOPLAN_GPU_ARENA_SIZE;

	for (int i = 0; ok && i < p->nbuffer; i++) {
		const struct hloplan_buffer *b = &p->buffers[i];
		const struct hloplan_plan_buffer *h = &HLOPLAN_GPU_buffers[i];

		ok = !strcmp(b->name, h->name) && b->offset == h->offset &&
		     b->size == h->size && b->start == h->start &&
		     b->end == h->end;
	}
	return ok;
}

int
main(int argc, char **argv)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	int ok;

	o.targets = HLOPLAN_TARGET_GPU;
	r = hloplan_plan_file(argc > 1 ? argv[1] : MODEL, &o);
	if (hloplan_status(r) != HLOPLAN_OK) {
		hloplan_write_diags(r, stderr);
		hloplan_free(r);
		return 1;
	}
	ok = agrees(hloplan_get_plan(r, 0));
	printf("%s: hloplan %s planned %s into %lld bytes\n", ok ? "OK" :
	       "MISMATCH", hloplan_version(), hloplan_get_plan(r, 0)->module,
	       (long long)hloplan_get_plan(r, 0)->arenas[0].size);
	hloplan_free(r);
	return !ok;
}

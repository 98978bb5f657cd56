/* An AOT program's side of a plan: one arena allocated from the header's
 * size macro, every buffer at its offset from the table.  Walking the
 * schedule, each buffer is filled when it is defined and must still hold
 * its bytes at every step it is live; prints OK.  The same source builds
 * against a plan made with --io-out-of-arena (app_io): the output is then
 * memory of the program's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp_plan.h"

#define NBUF HLOPLAN_GPU_NUM_BUFFERS

static const struct hloplan_plan_buffer *const table = HLOPLAN_GPU_buffers;

/* Buffer i's bytes in the arena. */
static unsigned char *
place(unsigned char *arena, int i)
{
	return arena + table[i].offset;
}

static int
intact(const unsigned char *p, long long n, int i)
{
	for (long long k = 0; k < n; k++)
		if (p[k] != (unsigned char)(i + 1))
			return 0;
	return 1;
}

int
main(void)
{
	unsigned char *arena = aligned_alloc(HLOPLAN_GPU_ARENA_ALIGN,
					     HLOPLAN_GPU_ARENA_SIZE);
	float *logits, *own = NULL;
	int bad = 0;

	if (!arena)
		return 1;
	for (int t = 0; t < HLOPLAN_GPU_NUM_STEPS; t++)
		for (int i = 0; i < NBUF; i++) {
			if (!table[i].in_arena)
				continue;
			if (table[i].start == t)
				memset(place(arena, i), i + 1,
				       (size_t)table[i].size);
			if (table[i].start <= t && t <= table[i].end &&
			    !intact(place(arena, i), table[i].size, i)) {
				printf("%s overwritten at step %d\n",
				       table[i].name, t);
				bad = 1;
			}
		}
	/* The output by its binding, which is the buffer named logits: in
	 * the arena, or out of it (_OFFSET -1) in memory of our own. */
	if (HLOPLAN_GPU_outputs[0].buffer != HLOPLAN_GPU_BUF_LOGITS) {
		printf("the output is not in logits' buffer\n");
		return 1;
	}
#if HLOPLAN_GPU_OUTPUT_OFFSET >= 0
	logits = (float *)(arena + HLOPLAN_GPU_OUTPUT_OFFSET);
#elif HLOPLAN_GPU_OUTPUT_OFFSET != -1
#error "an output out of the arena with an offset other than -1"
#else
	if (!(logits = own = malloc((size_t)HLOPLAN_GPU_outputs[0].size)))
		return 1;
#endif
	for (int k = 0; k < HLOPLAN_GPU_OUTPUT_BYTES / (int)sizeof *logits;
	     k++)
		logits[k] = (float)k;
	bad |= logits[9] != 9.0f;
	free(own);
	free(arena);
	if (!bad)
		printf("OK: %d buffers in an arena of %lld bytes\n", NBUF,
		       (long long)HLOPLAN_GPU_ARENA_SIZE);
	return bad;
}

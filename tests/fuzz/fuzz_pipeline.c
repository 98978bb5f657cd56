/* Fuzz target: bytes -> parse -> plan for GPU and TPU -> verify -> header,
 * JSON, CSV and SVG in memory, through the library API as the CLI runs it.
 * A plan that fails verification is a finding; so is output that differs
 * when the same bytes are planned again. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hloplan.h"
#include "tests/fuzz/fuzz.h"

enum { EFFORT = 100000 };	/* packer steps: keeps runs short */

/* KNOWN FAILURES of the passes, each with its input in tests/robust/known/,
 * kept out of the findings so that the fuzzer looks for new ones; remove a
 * line when its bug is fixed.  copy_padded_size.hlo: a copy sized by its
 * source's TPU padding overruns its destination. */
static const char *const known[] = {
	"a buffer is not live there or too small",
};

static int
is_known(const char *msg)
{
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strstr(msg, known[i]))
			return 1;
	return 0;
}

/* fuzz_context: the options as the CLI takes them. */
static void
describe(uint32_t h, const struct hloplan_options *o)
{
	static const char *const sched[] = {"auto", "text", "mem"};
	static char flags[256];

	snprintf(flags, sizeof flags, "FUZZ_OPTIONS=%u: --effort=%d%s%s%s "
		 "--schedule=%s --align=%d --tpu-tile=%dx128", (unsigned)h,
		 EFFORT, o->no_reuse ? " --no-reuse" : "",
		 o->io_out_of_arena ? " --io-out-of-arena" : "",
		 o->no_double_buffer ? " --no-double-buffer" : "",
		 sched[o->schedule], (int)o->align, o->tpu_tile[0]);
	fuzz_context = flags;
}

/* Options picked by a hash of the input, so that one input always runs
 * the same way and the fuzzer explores all of them; the environment's
 * FUZZ_OPTIONS fixes them, to minimise an input. */
static void
pick_options(const uint8_t *data, size_t size, struct hloplan_options *o)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	if (getenv("FUZZ_OPTIONS"))
		h = (uint32_t)strtoul(getenv("FUZZ_OPTIONS"), NULL, 0);
	memset(o, 0, sizeof *o);
	o->effort = EFFORT;
	o->no_reuse = h & 1;
	o->io_out_of_arena = (h & 2) != 0;
	o->no_double_buffer = (h & 4) != 0;
	o->schedule = (int)(h >> 3 & 3) % 3;
	o->align = h & 32 ? 64 : 256;
	o->tpu_tile[0] = h & 64 ? 2 : 8;
	o->tpu_tile[1] = 128;
	describe(h, o);
}

/* The diagnostics, rendered into memory: no internal error among them. */
static void
check_diags(const struct hloplan_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m || hloplan_write_diags(r, m) | fclose(m))
		fuzz_fail("writing the diagnostics into memory failed");
	for (int i = 0; i < hloplan_ndiag(r); i++) {
		const char *msg = hloplan_get_diag(r, i)->message;

		if (strncmp(msg, "internal error", 14) || is_known(msg))
			continue;
		fuzz_show("diagnostics", buf, len);
		fuzz_fail("an internal error");
	}
	free(buf);
}

/* Every output of a planned result, one after the other, in memory. */
static char *
outputs(const struct hloplan_result *r, size_t *len)
{
	static const int formats[] = {
		HLOPLAN_FORMAT_HEADER, HLOPLAN_FORMAT_JSON, HLOPLAN_FORMAT_CSV,
		HLOPLAN_FORMAT_SVG,
	};
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	int bad = !m;

	for (size_t k = 0; !bad && k < sizeof formats / sizeof formats[0]; k++)
		bad = hloplan_write(r, formats[k], m, "fuzz.h") < 0;
	if (bad | (m && fclose(m)))
		fuzz_fail("writing an output into memory failed");
	return buf;
}

/* The outputs of the input planned once, or NULL when it is rejected. */
static char *
plan(const uint8_t *data, size_t size, const struct hloplan_options *o,
     size_t *len)
{
	struct hloplan_result *r;
	char *out = NULL;

	r = hloplan_plan_string((const char *)data, size, "fuzz.hlo", o);
	check_diags(r);
	if (hloplan_status(r) == HLOPLAN_OK)
		out = outputs(r, len);
	else if (hloplan_status(r) != HLOPLAN_ERR_INPUT)
		fuzz_fail("a status other than OK or bad input");
	hloplan_free(r);
	return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hloplan_options o;
	size_t len, len2;
	char *out, *out2;

	pick_options(data, size, &o);
	if (!(out = plan(data, size, &o, &len)))
		return 0;
	out2 = plan(data, size, &o, &len2);
	if (!out2 || len != len2 || memcmp(out, out2, len))
		fuzz_fail("the same input gave two different outputs");
	free(out);
	free(out2);
	return 0;
}

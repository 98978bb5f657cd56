/* Fuzz target: bytes -> the reader of XLA's buffer-assignment files
 * (dumps/xla_assignment.c, --xla-assignment and dump directories).  A
 * file it takes must add up: the kinds sum to the total, the temporary
 * allocation is one of the temporaries; one it refuses says where. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dumps/xla_assignment.h"
#include "tests/fuzz/fuzz.h"

/* The figures of a file read hold together. */
static void
check(const struct xla_assignment *x)
{
	if (x->nalloc < 1)
		fuzz_fail("a file read without an allocation");
	if (x->params < 0 || x->outputs < 0 || x->constants < 0 ||
	    x->thread_local < 0 || x->temps < 0 ||
	    x->params + x->outputs + x->constants + x->thread_local +
	    x->temps != x->total)
		fuzz_fail("the kinds do not add up to the total");
	if (x->temp_size < 0 || x->temp_size > x->temps || x->temp_peak < 0 ||
	    x->temp_peak > x->temp_size)
		fuzz_fail("the temporary allocation is not one of the "
			  "temporaries");
	if (x->ranged < 0 || x->unranged < 0)
		fuzz_fail("a negative count of values");
}

/* A refusal is "LINE:1: error: ..." or " error: ...". */
static void
check_message(const char *err)
{
	const char *p = err;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p > err && !strncmp(p, ":1: error: ", 11))
		return;
	if (p == err && !strncmp(err, " error: ", 8))
		return;
	fprintf(stderr, "message: '%s'\n", err);
	fuzz_fail("a refusal without its line");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xla_assignment x, again;
	char err[512] = "", err2[512] = "";
	int r = xla_assignment_read((const char *)data, size, &x, err,
				    sizeof err);

	if (r == 0)
		check(&x);
	else
		check_message(err);
	if (xla_assignment_read((const char *)data, size, &again, err2,
				sizeof err2) != r ||
	    (r == 0 && memcmp(&x, &again, sizeof x)) ||
	    (r && strcmp(err, err2)))
		fuzz_fail("two reads of one file differ");
	return 0;
}

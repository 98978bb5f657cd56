/* Fuzz target: bytes -> parse.  Diagnostics are rendered (caret code and
 * all); a module that parses is printed, parsed again and printed again,
 * and the two prints must agree (the --dump=ir round trip). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "tests/fuzz/fuzz.h"

/* Every module of f printed into a malloc'd string. */
static char *
print_file(const struct hlofile *f, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m)
		abort();
	for (int i = 0; i < f->nmod; i++)
		ir_print_module(m, &f->mods[i]);
	if (fclose(m))
		abort();
	return buf;
}

/* The printed text parses without a word and prints the same again. */
static void
round_trip(const char *text, size_t len)
{
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = "printed.hlo", .src = text,
			   .srclen = len};
	struct hlofile *f = frontend_parse(pool, text, len, &ds);
	size_t len2;
	char *again;

	if (ds.n) {
		fuzz_show("printed", text, len);
		diag_print(&ds, stderr);
		fuzz_fail("the printed module does not parse");
	}
	again = print_file(f, &len2);
	if (len2 != len || memcmp(again, text, len)) {
		fuzz_show("first print", text, len);
		fuzz_show("second print", again, len2);
		fuzz_fail("printing is not stable across a round trip");
	}
	free(again);
	pool_free(pool);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pool *pool = pool_new();
	struct diags ds = {.pool = pool, .file = "fuzz.hlo",
			   .src = (const char *)data, .srclen = size};
	struct hlofile *f;

	f = frontend_parse(pool, (const char *)data, size, &ds);
	fuzz_diags(&ds);
	if (!ds.n) {
		size_t len;
		char *text = print_file(f, &len);

		round_trip(text, len);
		free(text);
	}
	pool_free(pool);
	return 0;
}

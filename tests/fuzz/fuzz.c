/* Helpers of the fuzz targets: diagnostics rendered into memory and
 * checked, and a loud abort when a property breaks. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

void
fuzz_show(const char *title, const char *text, size_t len)
{
	fprintf(stderr, "---- %s (%zu bytes)\n", title, len);
	fwrite(text, 1, len > 4000 ? 4000 : len, stderr);
	fputs(len > 4000 ? "\n[...]\n----\n" : "\n----\n", stderr);
}

const char *fuzz_context;

_Noreturn void
fuzz_fail(const char *why)
{
	if (fuzz_context)
		fprintf(stderr, "fuzz: with %s\n", fuzz_context);
	fprintf(stderr, "fuzz: %s\n", why);
	abort();
}

void
fuzz_diags(const struct diags *ds)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		abort();
	diag_print(ds, m);
	if (fclose(m))
		abort();
	for (int i = 0; i < ds->n; i++) {
		const struct diag *d = &ds->d[i];

		if (d->loc.line < 0 || d->loc.col < 0 ||
		    (d->loc.line > 0) != (d->loc.col > 0) || !d->msg[0]) {
			fuzz_show("diagnostics", buf, len);
			fuzz_fail("a diagnostic without a proper place");
		}
		if (!strncmp(d->msg, "internal error", 14)) {
			fuzz_show("diagnostics", buf, len);
			fuzz_fail("an internal error");
		}
	}
	free(buf);
}

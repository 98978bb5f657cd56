/* What the fuzz targets share (fuzz.c): rendering diagnostics as the CLI
 * does, and failing loudly with the evidence when a property breaks. */
#ifndef HLOPLAN_FUZZ_H
#define HLOPLAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A note printed with any failure, e.g. the options in CLI form. */
extern const char *fuzz_context;

/* Prints the diagnostics into memory (the caret code runs) and checks
 * that each is file:line:col or file-level, and not an internal error. */
void fuzz_diags(const struct diags *ds);
/* Shows a text on stderr under a title, for a failure's report. */
void fuzz_show(const char *title, const char *text, size_t len);
/* Reports a broken property and aborts, so the fuzzer keeps the input. */
_Noreturn void fuzz_fail(const char *why);

#endif

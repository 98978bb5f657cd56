/* XLA dumps in, answers out: hloplan's plan of each module beside XLA's
 * own buffer assignment of it, for the CLI (main.c). */
#ifndef HLOPLAN_SURVEY_H
#define HLOPLAN_SURVEY_H

#include <stdio.h>

#include "hloplan.h"

/* The target a dump's file name states ("..._gpu_after_optimizations.txt":
 * HLOPLAN_TARGET_GPU), or 0. */
int survey_target(const char *path);

/* The buffer-assignment file XLA's dump writes beside the module at path
 * ("X.txt" -> "X-buffer-assignment.txt"), malloc'd, when it exists; else
 * NULL. */
char *survey_beside(const char *path);

/* Is path a directory? */
int survey_is_dir(const char *path);

/* Plans every input (a directory: each "*after_optimizations.txt" in it,
 * by name) and writes a table to out, one row per module: XLA's
 * allocations (when its buffer assignment lies beside the module), the
 * plan's bytes, what it saves; then a summary.  The target follows each
 * file's name unless target_given.  A module whose XLA assignment is
 * cut short or does not add up has "error" in its row, and the message on
 * err.  Returns 0; 1 when a module or an assignment is bad input, 2 when a
 * file or directory cannot be read (the table is whole either way); with
 * no module at all, nothing is written to out and it returns -1, or -2
 * when a directory could not be read. */
int survey_run(const char *const *inputs, int n,
	       const struct hloplan_options *o, int target_given, FILE *out,
	       FILE *err);

#endif

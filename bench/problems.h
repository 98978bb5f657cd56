/* Packing problems for pack_bench: read from minimalloc's CSV, random, or
 * traces from the intervals corpus laid end to end in time; and a
 * writer of any of them as minimalloc's CSV, for hloplan --intervals. */
#ifndef HLOPLAN_BENCH_PROBLEMS_H
#define HLOPLAN_BENCH_PROBLEMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/boxes.h"

/* Every function filling a struct boxes mallocs bx->b; free(bx->b). */

/* The problem in a minimalloc CSV file.  Returns 0, or -1 with a message in
 * err (a parse error's messages also go to stderr). */
int problem_read(const char *path, struct boxes *bx, char *err,
		 size_t errlen);

/* n trace-like boxes: one born per step, most short-lived, some long; sizes
 * log-uniform from 256 B to 4 MiB, aligned to 256. */
void problem_random(struct boxes *bx, int n, uint64_t seed);

/* The traces a tiled problem is made of: real model traces (somas_resnet50,
 * iopddl_G_1), or those and minimalloc's adversarially tight A-K. */
enum tiled_mix { TILED_REAL, TILED_HARD };

/* 0 when every trace of mix is under dir; otherwise -1 and the first
 * missing path in err. */
int problem_traces_present(const char *dir, enum tiled_mix mix, char *err,
			   size_t errlen);

/* n boxes from copies of the traces of mix under dir, the trace of each
 * copy picked by seed, each copy starting in the last quarter or so of the
 * one before; ids 0..n-1.  Returns 0, or -1 with a message in err. */
int problem_tiled(struct boxes *bx, int n, const char *dir,
		  enum tiled_mix mix, uint64_t seed, char *err, size_t errlen);

/* k copies of the problem in the CSV at path, one after another in time,
 * none overlapping the next (as issue 20's "35 time-shifted copies of
 * iopddl_S_1"); ids 0..; returns 0, or -1 with a message in err. */
int problem_copies(struct boxes *bx, const char *path, int k, char *err,
		   size_t errlen);

/* bx as id,lower,upper,size[,alignment] rows, half-open [lower, upper), the
 * alignment column only when some box has one.  Returns 0, or -1 on a
 * write error. */
int problem_write(FILE *out, const struct boxes *bx);

#endif

/* A trial of hloplan's plans by the oracle: each module of a text planned
 * for several targets and options, each plan run inside its arena and
 * compared with the reference run (oracle and oracle_gen share it). */
#ifndef HLOPLAN_ORACLE_TRIAL_H
#define HLOPLAN_ORACLE_TRIAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* MUTATE_CONTRACT: each node XLA's kernel contract ties to an operand's
 * buffer moved to a buffer of its own (contract_tied). */
enum { MUTATE_NONE, MUTATE_ONE, MUTATE_ALL, MUTATE_CONTRACT };

/* Exit statuses, as ctest reads them: TRIAL_DIFF only for a plan that
 * differs and that verify accepted (a wrong plan written); TRIAL_REFUSED
 * when verify refused a plan (whether or not the oracle sees it differ). */
enum {
	TRIAL_SAME = 0, TRIAL_DIFF = 1, TRIAL_ERROR = 2, TRIAL_REFUSED = 3,
	TRIAL_SKIP = 77
};

struct trial {
	const char *file;	/* shown in messages */
	uint64_t seed;
	int64_t max_bytes;	/* skip plans needing more; 0: no limit */
	int64_t budget;		/* element operations per run; 0: default */
	int mutate;		/* MUTATE_*: break the first plan on purpose */
	int quiet;		/* print only differences and errors */
	int fill_elided;	/* run elided constants with random data */
	int data_only;		/* compare data only: no overlap check */
	int print;		/* print the reference run's result */
	int trace;		/* trace every run on stderr */
	int contract;		/* run every plan as rebuilt from the JSON
				   hloplan writes (--from-json), not from
				   the library's struct plan */
	int identity;		/* --identity: each plan, from its JSON, run
				   by value identity (1), and beside the
				   data run, which must agree (2) */
	int64_t trips;		/* --trips: loops of unknown trip count */
	const char *json_dir;	/* --json-dir: where those files are kept
				   (and read from when they exist) */
	FILE *out;
	int ran, skipped, differed, failed;	/* modules, counted */
	int refused;		/* plans verify refused */
	int wrong;		/* plans that differ, which verify accepted */
	char why[512];		/* the last skip's or difference's reason */
};

/* Tries every module of the text; returns a TRIAL_* status. */
int trial_file(struct trial *t, const char *text, size_t len);

#endif

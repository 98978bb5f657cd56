/* A small JSON reader (the oracle's contract mode reads hloplan's --json
 * back with it), and the plan rebuilt from that file alone. */
#ifndef HLOPLAN_ORACLE_JSONREAD_H
#define HLOPLAN_ORACLE_JSONREAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "passes/plan.h"

enum { JV_NONE, JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	int kind;		/* JV_*; JV_NONE: a key json_get did not find */
	int64_t num;		/* JV_NUM, JV_BOOL (0 or 1) */
	const char *str;	/* JV_STR */
	int n;			/* JV_ARR, JV_OBJ: items */
	struct jv *items;
	const char **keys;	/* JV_OBJ */
};

/* Parses text into v (in pool): 0, or -1 with why. */
int json_read(struct pool *pool, const char *text, size_t len, struct jv *v,
	      char *why, size_t n);
/* The member key of object o, or a JV_NONE value. */
const struct jv *json_get(const struct jv *o, const char *key);

/* fromjson.c: plan `which` of hloplan's JSON file f rebuilt as a struct
 * plan of module m (positions found by computation and instruction name
 * and shape index): buffers, arenas, positions, copies, loops, constants
 * and the schedule's names, nothing from the library's own plan.  0, or -1
 * with why. */
int plan_from_json(struct pool *pool, const struct module *m, FILE *f,
		   int which, struct plan *pl, char *why, size_t n);
/* ... plan `which` of a JSON file already read (root). */
int plan_from_jv(struct pool *pool, const struct module *m,
		 const struct jv *root, int which, struct plan *pl, char *why,
		 size_t n);

#endif

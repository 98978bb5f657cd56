/* The raw packing problem: boxes of a size over a closed time interval, to be
 * placed at offsets in a strip so that no two boxes whose intervals intersect
 * share a byte.  The HLO path builds one per arena; --intervals mode reads one
 * from google/minimalloc's CSV.  Passes fill in the offsets. */
#ifndef HLOPLAN_BOXES_H
#define HLOPLAN_BOXES_H

#include <stdint.h>

struct box {
	int64_t start, end;	/* closed interval [start, end] of time steps */
	int64_t size;		/* bytes, > 0 */
	int64_t align;		/* offset must be a multiple; 1 if none */
	int64_t pin;		/* fixed offset, or -1 when the packer chooses */
	int64_t offset;		/* result */
	int64_t id;		/* caller's id, kept in output order */
};

struct boxes {
	int n;
	struct box *b;
	int64_t height;		/* result: the strip height used */
	int64_t lower;		/* result: peak of live bytes (lower bound) */
};

#endif

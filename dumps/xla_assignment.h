/* XLA's buffer assignment as its dump prints it (`*-buffer-assignment.txt`
 * beside `*_after_optimizations.txt`): its allocations summed by kind, and
 * how much of its temporary allocation is live at once by XLA's own live
 * ranges (the BufferLiveRange section). */
#ifndef HLOPLAN_XLA_ASSIGNMENT_H
#define HLOPLAN_XLA_ASSIGNMENT_H

#include <stddef.h>
#include <stdint.h>

struct xla_assignment {
	int nalloc;		/* allocations read */
	int64_t total;		/* the sum of their sizes */
	int64_t params;		/* "parameter N" (donated ones too) */
	int64_t outputs;	/* "output shape is", "maybe-live-out" */
	int64_t constants;	/* "constant" */
	int64_t thread_local;	/* "thread-local" */
	int64_t temps;		/* "preallocated-temp" and any other kind */
	int64_t temp_size;	/* the largest preallocated-temp allocation */
	int64_t temp_peak;	/* the most of it live at one time: values
				   that share bytes count once */
	int ranged;		/* its values that have a live range */
	int unranged;		/* ... and that have none */
};

/* Reads len bytes of that text into x.  Returns 0, or -1 when it is not
 * such a file, is cut short, or its figures do not add up, with the
 * message in err as "LINE:1: error: ..." (" error: ..." for none), for
 * the caller to put the file's name before. */
int xla_assignment_read(const char *text, size_t len,
			struct xla_assignment *x, char *err, size_t errlen);

#endif

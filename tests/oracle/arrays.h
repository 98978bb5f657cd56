/* The array kernels' shared helpers (arrays.c) and the kernel tables of
 * the files that hold more of them: gather.c (gather, scatter), window.c
 * (reduce-window, select-and-scatter, convolution), stubs.c (collectives,
 * async ops, custom-calls and other ops run as deterministic stubs), extra.c
 * (batch norms, topk). */
#ifndef HLOPLAN_ORACLE_ARRAYS_H
#define HLOPLAN_ORACLE_ARRAYS_H

#include "tests/oracle/exec.h"

enum { MAXRANK = 16 };

struct kernel {
	const char *name;
	void (*run)(struct op *o);
	int tuple;		/* may give a tuple */
};

extern const struct kernel gather_kernels[], window_kernels[],
	stub_kernels[], extra_kernels[];
extern const int gather_nkernels, window_nkernels, stub_nkernels,
	extra_nkernels;

/* Attributes: a failure to read one skips the module. */
_Noreturn void bad_attr(struct op *o, const char *key);
const char *attr_text(struct op *o, const char *key, char *buf, size_t n);
int attr_ints(struct op *o, const char *key, int64_t *v, int max);
int need_ints(struct op *o, const char *key, int64_t *v, int want,
	      int optional);

/* Row-major indices. */
int next_index(int64_t *idx, const int64_t *dims, int rank);
void strides(const struct shape *s, int64_t *st);
int64_t elems(const struct shape *s);
void copy_elem(unsigned char *dst, int64_t di, const unsigned char *src,
	       int64_t si, int es);

/* The computation to_apply= names. */
int to_apply(struct op *o);
/* A reducer that is one binary op of its two parameters: its EW_* op,
 * and whether they come swapped; -1 otherwise. */
int simple_reducer(const struct comp *c, int dt, int *swapped);

/* A combiner of n arrays (a reduce's, a scatter's): acc[k] =
 * f(acc[k], x[k]) for k < n, through to_apply, or fast when simple. */
struct combiner {
	struct op *o;
	int n, comp, fast, swapped, dt;
	unsigned char *node[2 * MAXRANK];
	unsigned char **args[2 * MAXRANK];
};

void combiner_init(struct op *o, struct combiner *C, int comp, int n,
		   const int *types);
/* acc[k] (element ai of array acc[k]) = f(acc, x) (element xi of x[k]) */
void combine(struct combiner *C, unsigned char **acc, int64_t ai,
	     unsigned char **x, int64_t xi);

#endif

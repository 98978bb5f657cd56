/* Shape inference's shared parts: what one inference reads and fills,
 * and the helpers of infer_util.c that infer.c (the opcodes) and
 * infer_window.c (windows and convolution) use. */
#ifndef HLOPLAN_FRONTEND_INFER_INTERNAL_H
#define HLOPLAN_FRONTEND_INFER_INTERNAL_H

#include <stdint.h>

/* What one inference needs: where to report, what to read and fill. */
struct inf {
	struct parser *P;
	const struct module *m;
	const struct comp *c;
	const struct instr *in;
	struct shape *out;
};

int inf_is_float(int t);
int inf_is_complex(int t);
int inf_is_int(int t);
int inf_is_signed(int t);
int inf_wider(int a, int b);
const struct shape *inf_operand(const struct inf *x, int k);
int inf_is_array(const struct shape *s);
int inf_same_dims(const struct shape *a, const struct shape *b);
int64_t *inf_array_of(struct pool *pool, struct shape *o, int type, int rank);
int64_t *inf_make_array(const struct inf *x, int type, int rank);
int inf_like(const struct inf *x, const struct shape *s, int t);
void inf_merge_bounded(const struct inf *x, const struct shape *s);
int inf_same(const struct inf *x, const struct shape *s);
const char *inf_text(const struct inf *x, const struct shape *s);
int inf_fail(const struct inf *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* -1 */
int inf_need_array(const struct inf *x, int k);
int inf_attr_list(const struct inf *x, const char *key, int required,
		  int64_t **v);
int inf_dims_ok(const struct inf *x, const char *key, const int64_t *v,
		int n, int rank);
int inf_listed(const int64_t *v, int n, int64_t d);
const struct shape *inf_callee_root(const struct inf *x, const char *key);
int inf_inputs_ok(const struct inf *x, int n);

/* infer_window.c: reduce-window and convolution. */
int infer_reduce_window(const struct inf *x);
int infer_convolution(const struct inf *x);

#endif

/* One arena that owns everything: the IR, a problem read from text, the
 * messages; freed at once.  Arrays grow inside it. */
#ifndef HLOPLAN_POOL_H
#define HLOPLAN_POOL_H

#include <stddef.h>

struct pool;

struct pool *pool_new(void);
void pool_free(struct pool *p);
void pool_reset(struct pool *p);	/* empty, keeping a block's pages */
void pool_adopt(struct pool *p, struct pool *from);	/* from's blocks
							   become p's */
void *pool_alloc(struct pool *p, size_t n);	/* zeroed; aborts when out */
char *pool_strndup(struct pool *p, const char *s, size_t n);
char *pool_strdup(struct pool *p, const char *s);
char *pool_printf(struct pool *p, const char *fmt, ...);
size_t pool_bytes(const struct pool *p);	/* bytes held, for benchmarks */

/* A growable array living in a pool: call vec_push(p, &arr, &n, &cap, sz). */
void *vec_grow(struct pool *p, void *arr, int *cap, size_t elem);
/* Room for n elements in one allocation, where the count is known or
 * estimated ahead: doubling from 8 copies and clears twice the bytes. */
void *vec_reserve(struct pool *p, void *arr, int *cap, int n, size_t elem);
#define VEC_PUSH(pool, arr, n, cap)                                           \
	(((n) >= (cap) ? (void)((arr) = vec_grow((pool), (arr), &(cap),       \
					      sizeof *(arr)))          \
		       : (void)0),                                            \
	 &(arr)[(n)++])

#endif

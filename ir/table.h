/* The one hash table: keys to ints (>= 0), open addressing with linear
 * probing.  Keys are strings, 64-bit numbers, or the caller's own, which
 * it hashes and compares.  There is no iteration: no order of the table's
 * can reach an output. */
#ifndef HLOPLAN_TABLE_H
#define HLOPLAN_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct pool;

struct table_slot {
	union {
		uint64_t h;	/* the 64-bit key, or the caller's hash */
		const char *s;	/* a string key, not copied */
	} k;
	uint32_t len;		/* a string key's bytes */
	int val;		/* the value + 1; 0: an empty slot */
};

struct table {
	struct pool *pool;	/* owns the slots; NULL: malloc'd */
	size_t cap, n;		/* cap a power of two, at least twice n */
	int strings;		/* the keys are strings */
	struct table_slot *slot;
};

/* An empty table with room for n keys (it grows past them), its slots in
 * pool, or malloc'd when pool is NULL (then table_free frees them). */
void table_init(struct table *t, struct pool *pool, size_t n);
void table_free(struct table *t);

/* Each lookup returns the value stored under the key, or -1 when there is
 * none; then, when add >= 0, it stores add under the key. */

/* The len bytes at s (not copied: they must outlive the table). */
int table_str(struct table *t, const char *s, size_t len, int add);
/* A 64-bit number. */
int table_u64(struct table *t, uint64_t key, int add);
/* A key of the caller's: h its hash; same(ctx, v) whether the key stored
 * with value v is the one looked up. */
int table_key(struct table *t, uint64_t h,
	      int (*same)(const void *ctx, int v), const void *ctx, int add);

/* A string's hash, as table_str computes it. */
uint64_t table_hash(const char *s, size_t len);

#endif

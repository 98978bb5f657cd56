/* The one hash table (ir/table.h): linear probing over a power-of-two
 * array of slots, grown to keep it under half full. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/pool.h"
#include "ir/table.h"

static struct table_slot *
slots(struct pool *pool, size_t cap)
{
	struct table_slot *s;

	if (pool)
		return pool_alloc(pool, cap * sizeof *s);
	s = calloc(cap, sizeof *s);
	if (!s) {
		fputs("hloplan: out of memory\n", stderr);
		abort();
	}
	return s;
}

void
table_init(struct table *t, struct pool *pool, size_t n)
{
	t->pool = pool;
	t->cap = 16;
	while (t->cap < 2 * n)
		t->cap *= 2;
	t->n = 0;
	t->strings = 0;
	t->slot = slots(pool, t->cap);
}

void
table_free(struct table *t)
{
	if (!t->pool)
		free(t->slot);
	t->slot = NULL;
	t->cap = t->n = 0;
}

/* Eight bytes a step (names run to tens of bytes): a multiply and a shift
 * fold each word in; home() mixes the last. */
uint64_t
table_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	return h ^ w;
}

/* The first slot to probe for hash h: MurmurHash3's finaliser, so that
 * every bit of h moves it. */
static size_t
home(const struct table *t, uint64_t h)
{
	h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdu;
	h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53u;
	return (size_t)(h ^ (h >> 33)) & (t->cap - 1);
}

static size_t
home_of(const struct table *t, const struct table_slot *e)
{
	return home(t, t->strings ? table_hash(e->k.s, e->len) : e->k.h);
}

static void
grow(struct table *t)
{
	struct table old = *t;

	t->cap *= 2;
	t->slot = slots(t->pool, t->cap);
	for (size_t i = 0; i < old.cap; i++) {
		size_t j;

		if (!old.slot[i].val)
			continue;
		for (j = home_of(t, &old.slot[i]); t->slot[j].val;
		     j = (j + 1) & (t->cap - 1))
			;
		t->slot[j] = old.slot[i];
	}
	if (!t->pool)
		free(old.slot);
}

/* Stores add (>= 0) in e, an empty slot; returns -1, the lookup's
 * answer. */
static inline int
put(struct table *t, struct table_slot *e, int add)
{
	if (add < 0)
		return -1;
	e->val = add + 1;
	if (2 * ++t->n > t->cap)
		grow(t);
	return -1;
}

int
table_str(struct table *t, const char *s, size_t len, int add)
{
	struct table_slot *e;
	size_t i;

	assert(len < UINT32_MAX && (t->strings || !t->n));
	t->strings = 1;
	for (i = home(t, table_hash(s, len)); (e = &t->slot[i])->val;
	     i = (i + 1) & (t->cap - 1))
		if (e->len == len && !memcmp(e->k.s, s, len))
			return e->val - 1;
	e->k.s = s;
	e->len = (uint32_t)len;
	return put(t, e, add);
}

int
table_u64(struct table *t, uint64_t key, int add)
{
	struct table_slot *e;
	size_t i;

	assert(!t->strings);
	for (i = home(t, key); (e = &t->slot[i])->val;
	     i = (i + 1) & (t->cap - 1))
		if (e->k.h == key)
			return e->val - 1;
	e->k.h = key;
	return put(t, e, add);
}

int
table_key(struct table *t, uint64_t h,
	  int (*same)(const void *ctx, int v), const void *ctx, int add)
{
	struct table_slot *e;
	size_t i;

	assert(!t->strings);
	for (i = home(t, h); (e = &t->slot[i])->val;
	     i = (i + 1) & (t->cap - 1))
		if (e->k.h == h && same(ctx, e->val - 1))
			return e->val - 1;
	e->k.h = h;
	return put(t, e, add);
}

/* One pool owns the IR: allocations are bumped out of large blocks and freed
 * all at once (QBE's pool, Lua's single allocation seam). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

enum { BLOCK = 1 << 20 };

struct block {
	struct block *next;
	size_t used, cap;
	int zeroed;		/* calloc's: what it hands out is zero */
	max_align_t data[];
};

struct pool {
	struct block *head;
	size_t bytes;
};

static void
oom(void)
{
	fputs("hloplan: out of memory\n", stderr);
	abort();
}

struct pool *
pool_new(void)
{
	struct pool *p = calloc(1, sizeof *p);

	if (!p)
		oom();
	return p;
}

void
pool_free(struct pool *p)
{
	struct block *b, *next;

	if (!p)
		return;
	for (b = p->head; b; b = next) {
		next = b->next;
		free(b);
	}
	free(p);
}

/* A big request's block comes from calloc, which for a large one maps
 * pages the kernel has zeroed and touches none of them (memset of big
 * arrays was a quarter of a run on L02); a shared block from malloc, its
 * bytes cleared as they are handed out, so that a pool that lives briefly
 * (a schedule trial) pays for what it uses, not for a megabyte. */
static struct block *
block_new(struct pool *p, size_t cap, int big)
{
	struct block *b = big ? calloc(1, sizeof *b + cap) :
				malloc(sizeof *b + cap);

	if (!b)
		oom();
	b->used = 0;
	b->cap = cap;
	b->zeroed = big;
	p->bytes += sizeof *b + cap;
	return b;
}

void *
pool_alloc(struct pool *p, size_t n)
{
	struct block *b = p->head;
	size_t a = sizeof(max_align_t);
	void *r;

	n = (n + a - 1) / a * a;
	if (n > BLOCK / 4) {
		/* A big request gets a block of its own behind the head. */
		b = block_new(p, n, 1);
		if (p->head) {
			b->next = p->head->next;
			p->head->next = b;
		} else {
			b->next = NULL;
			p->head = b;
		}
	} else if (!b || b->cap - b->used < n) {
		b = block_new(p, BLOCK, 0);
		b->next = p->head;
		p->head = b;
	}
	r = (char *)b->data + b->used;
	b->used += n;
	if (!b->zeroed)
		memset(r, 0, n);
	return r;
}

char *
pool_strndup(struct pool *p, const char *s, size_t n)
{
	char *r = pool_alloc(p, n + 1);

	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

char *
pool_strdup(struct pool *p, const char *s)
{
	return pool_strndup(p, s, strlen(s));
}

char *
pool_printf(struct pool *p, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	r = pool_alloc(p, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(r, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return r;
}

size_t
pool_bytes(const struct pool *p)
{
	return p->bytes;
}

void *
vec_grow(struct pool *p, void *arr, int *cap, size_t elem)
{
	int ncap = *cap ? *cap * 2 : 8;
	void *r;

	if (*cap > (1 << 29))
		oom();
	r = pool_alloc(p, (size_t)ncap * elem);
	if (arr)
		memcpy(r, arr, (size_t)*cap * elem);
	*cap = ncap;
	return r;
}

/* One pool owns the IR: allocations are bumped out of large blocks and freed
 * all at once (QBE's pool, Lua's single allocation seam). */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ir/ir.h"

/* Blocks of 1 MiB; once a pool holds 4 of them, blocks of 8 MiB mapped in
 * huge pages.  A page's first touch was a third of a large run (a fault a
 * 4 KiB page, 8 us on a virtual machine); a huge page is one fault for
 * 512 of them, and comes zeroed. */
enum { BLOCK = 1 << 20, HUGE = 2 << 20, BIG_BLOCK = 8 << 20 };

struct block {
	struct block *next;
	size_t used, cap;
	int zeroed;		/* calloc's or mmap's: what it hands out is
				   zero */
	size_t mapped;		/* bytes mapped for it, or 0: malloc's */
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
		if (b->mapped)
			munmap(b, b->mapped);
		else
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
	b->mapped = 0;
	p->bytes += sizeof *b + cap;
	return b;
}

/* A block of at least cap bytes in huge pages where the system has them
 * (madvise: a hint), on a boundary of one; NULL when mmap fails. */
static struct block *
block_map(struct pool *p, size_t cap)
{
	size_t len = (sizeof(struct block) + cap + HUGE - 1) / HUGE * HUGE;
	char *m = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t head;
	struct block *b;

	if (m == MAP_FAILED)
		return NULL;
	head = (HUGE - (uintptr_t)m % HUGE) % HUGE;
	if (head)
		munmap(m, head);
	munmap(m + head + len, HUGE - head);
	b = (struct block *)(m + head);
#ifdef MADV_HUGEPAGE
	madvise(b, len, MADV_HUGEPAGE);
#endif
	b->used = 0;
	b->cap = len - sizeof *b;
	b->zeroed = 1;
	b->mapped = len;
	p->bytes += len;
	return b;
}

/* A block for requests of n bytes: its own when big, else a shared one. */
static struct block *
block_for(struct pool *p, size_t n, int own)
{
	struct block *b = NULL;

	if (own && n >= HUGE)
		b = block_map(p, n);
	else if (!own && p->bytes >= 4 * BLOCK)
		b = block_map(p, BIG_BLOCK);
	return b ? b : block_new(p, own ? n : BLOCK, own);
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
		b = block_for(p, n, 1);
		if (p->head) {
			b->next = p->head->next;
			p->head->next = b;
		} else {
			b->next = NULL;
			p->head = b;
		}
	} else if (!b || b->cap - b->used < n) {
		b = block_for(p, n, 0);
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

void *
vec_reserve(struct pool *p, void *arr, int *cap, int n, size_t elem)
{
	void *r;

	if (n <= *cap)
		return arr;
	r = pool_alloc(p, (size_t)n * elem);
	if (arr)
		memcpy(r, arr, (size_t)*cap * elem);
	*cap = n;
	return r;
}

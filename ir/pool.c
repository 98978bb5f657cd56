/* One pool owns the IR: allocations are bumped out of large blocks and freed
 * all at once (QBE's pool, Lua's single allocation seam). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "ir/pool.h"

/* Where a page's first touch is a fault of 10-25 us (these machines: 16 MiB
 * touched took 45-100 ms in 4 KiB pages, 1-2 ms in huge pages), a huge page
 * costs as much as the faults of some 40 KiB: past one small block, a pool
 * takes huge pages. */
enum {
	BLOCK = 64 << 10,	/* a shared block, while the pool is small */
	HUGE = 2 << 20,		/* a huge page: 512 faults become one */
	HUGE_AFTER = 64 << 10,	/* pool bytes from which blocks are huge */
	SPARE_MAX = 64		/* huge pages kept for reuse once freed */
};

struct block {
	struct block *next;
	size_t used, cap;
	size_t mapped;		/* bytes of its own mapping; 0: malloc'd */
	int zeroed;		/* what it hands out is zero */
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

/* Freed huge pages kept, backed, for the next pool: the kernel zeroes
 * each huge page it hands out (a third of a run on L14, where the
 * schedule's trials and the header each take fresh ones), so a page used
 * again costs only the memset of what is handed out of it. */
static struct {
	pthread_mutex_t lock;
	int n;
	struct block *b[SPARE_MAX];
} spare = {PTHREAD_MUTEX_INITIALIZER, 0, {0}};

/* A spare huge page, or NULL. */
static struct block *
spare_take(void)
{
	struct block *b = NULL;

	pthread_mutex_lock(&spare.lock);
	if (spare.n > 0)
		b = spare.b[--spare.n];
	pthread_mutex_unlock(&spare.lock);
	return b;
}

/* Keeps b, a huge page of its own mapping, if there is room. */
static int
spare_put(struct block *b)
{
	int kept = 0;

	pthread_mutex_lock(&spare.lock);
	if (spare.n < SPARE_MAX) {
		spare.b[spare.n++] = b;
		kept = 1;
	}
	pthread_mutex_unlock(&spare.lock);
	return kept;
}

/* A first touch of a page costs a fault, and on the machines we run on a
 * fault costs more than the memset that causes it: on L02 the frontend spent
 * half its time in them.  So a block of a huge page or more is a mapping of
 * its own, aligned to 2 MiB and advised to use huge pages, which the kernel
 * hands out zeroed: one fault per 2 MiB.  NULL where there are none. */
static struct block *
map_huge(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	size_t len = (bytes + 4095) / 4096 * 4096, head;
	char *m = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *r;

	if (m == MAP_FAILED)
		return NULL;
	r = (char *)(((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	head = (size_t)(r - m);
	if (head)
		munmap(m, head);
	munmap(r + len, HUGE - head);
	madvise(r, len, MADV_HUGEPAGE);	/* advice: no error matters */
	((struct block *)(void *)r)->mapped = len;
	return (struct block *)(void *)r;
#else
	(void)bytes;
	return NULL;
#endif
}

/* A block of cap bytes.  A big request's block, and every block once the
 * pool is large, is mapped as above; a big one that cannot be comes from
 * calloc, which for a large one maps pages the kernel has zeroed and
 * touches none of them (memset of big arrays was a quarter of a run on
 * L02).  A small pool's shared block comes from malloc, its bytes cleared
 * as they are handed out, so that a pool that lives briefly pays for what
 * it uses, not for a huge page. */
static struct block *
block_new(struct pool *p, size_t cap, int big)
{
	size_t bytes = sizeof(struct block) + cap;
	struct block *b = NULL;

	if (bytes == HUGE && (b = spare_take())) {
		b->used = 0;
		b->cap = cap;
		b->zeroed = 0;
		p->bytes += bytes;
		return b;
	}
	if (bytes >= HUGE)
		b = map_huge(bytes);
	if (b)
		big = 1;
	else if ((b = big ? calloc(1, bytes) : malloc(bytes)))
		b->mapped = 0;
	else
		oom();
	b->used = 0;
	b->cap = cap;
	b->zeroed = big;
	p->bytes += bytes;
	return b;
}

static void
block_free(struct block *b)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (b->mapped) {
		if (b->mapped != HUGE || !spare_put(b))
			munmap(b, b->mapped);
		return;
	}
#endif
	free(b);
}

void
pool_free(struct pool *p)
{
	struct block *b, *next;

	if (!p)
		return;
	for (b = p->head; b; b = next) {
		next = b->next;
		block_free(b);
	}
	free(p);
}

/* Empties the pool but keeps its newest block, whose pages are backed
 * already: a scratch pool emptied again and again faults them in once. */
void
pool_reset(struct pool *p)
{
	struct block *b = p->head, *o, *next;

	if (!b)
		return;
	for (o = b->next; o; o = next) {
		next = o->next;
		block_free(o);
	}
	b->next = NULL;
	b->used = 0;
	b->zeroed = 0;
	p->bytes = sizeof *b + b->cap;
}

void
pool_adopt(struct pool *p, struct pool *from)
{
	struct block *b = from->head;

	if (b) {
		while (b->next)
			b = b->next;
		if (p->head) {	/* behind p's head: p keeps bumping it */
			b->next = p->head->next;
			p->head->next = from->head;
		} else {
			p->head = from->head;
		}
		p->bytes += from->bytes;
	}
	free(from);
}

void *
pool_alloc(struct pool *p, size_t n)
{
	struct block *b = p->head;
	size_t a = sizeof(max_align_t);
	void *r;

	int huge = p->bytes >= HUGE_AFTER;
	size_t shared = huge ? HUGE - sizeof *b : BLOCK;

	n = (n + a - 1) / a * a;
	if (n > (huge ? shared : shared / 4)) {
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
		/* A large pool's blocks are huge pages, already backed as a
		 * whole: a request of up to one takes a fresh one rather than
		 * a block of its own of small pages. */
		b = block_new(p, shared, 0);
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

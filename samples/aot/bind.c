/* An AOT runtime's side of a plan, bound from the header alone: each entry
 * parameter by number and shape index (P_params[]), each output by index
 * (P_outputs[]).  Arguments are written where the plan puts them, checked
 * to stay inside their buffers and clear of each other, and results read
 * where it says; constants' bytes are copied into their buffers.  Then the
 * model is planned again through the library, and every binding, value
 * and constant byte of the header is checked against that plan.  Prints a line per binding, then OK.
 *
 * Built for any header: -DPLAN_HEADER='"plan.h"' -DPLAN_PREFIX=HLOPLAN_TPU
 * -DPLAN_TARGET=HLOPLAN_TARGET_TPU; run as `bind MODEL.hlo`. */
#define _DEFAULT_SOURCE	/* MAP_ANONYMOUS, MAP_NORESERVE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__)
#include <sys/mman.h>
#endif

#include <hloplan.h>

#ifndef PLAN_HEADER
#define PLAN_HEADER "mlp_plan.h"
#endif
#ifndef PLAN_PREFIX
#define PLAN_PREFIX HLOPLAN_GPU
#endif
#ifndef PLAN_INDEX	/* which of the library's plans of MODEL: a module's */
#define PLAN_INDEX 0
#endif
#ifndef PLAN_TARGET
#define PLAN_TARGET HLOPLAN_TARGET_GPU
#endif
#include PLAN_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define P(x) CAT(PLAN_PREFIX, x)

enum { MAX_SPACE = 64, EDGE = 64 };

typedef struct hloplan_plan_binding binding;

static const binding *
binding_at(int k)
{
	return k < P(_NUM_PARAMS) ? &P(_params)[k] :
				    &P(_outputs)[k - P(_NUM_PARAMS)];
}

static int
nbinding(void)
{
	/* A table with no row holds a placeholder, buffer -1. */
	return (P(_params)[0].buffer >= 0 ? P(_NUM_PARAMS) : 0) +
	       (P(_outputs)[0].buffer >= 0 ? P(_NUM_OUTPUTS) : 0);
}

/* ---- the runtime: memory from the header, arguments in, results out ---- */

struct memory {
	unsigned char *arena[MAX_SPACE];	/* one per memory space */
	long long size[MAX_SPACE];
	unsigned char **own;	/* by buffer: memory of one not in an arena */
};

/* Zeroed memory that is only paid for where it is touched: an LLM's arena
 * can be larger than this host's memory, and only the edges of each
 * argument are written here. */
static unsigned char *
reserve(long long n)
{
#if defined(__unix__)
	void *p = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#else
	return calloc(1, (size_t)n);
#endif
}

static void
release(unsigned char *p, long long n)
{
#if defined(__unix__)
	if (p)
		munmap(p, (size_t)n);
#else
	(void)n;
	free(p);
#endif
}

static int
alloc_arenas(struct memory *m)
{
	long long end[MAX_SPACE] = {0};

	for (int i = 0; i < P(_NUM_BUFFERS); i++) {
		const struct hloplan_plan_buffer *b = &P(_buffers)[i];

		if (b->space < 0 || b->space >= MAX_SPACE)
			return printf("buffer %s: space %d\n", b->name,
				      b->space), 0;
		if (b->in_arena && b->offset + b->size > end[b->space])
			end[b->space] = b->offset + b->size;
	}
	if (end[0] > P(_ARENA_SIZE))
		return printf("S(0) needs %lld bytes, over P_ARENA_SIZE\n",
			      end[0]), 0;
	for (int s = 0; s < MAX_SPACE; s++) {
		m->size[s] = end[s];
		if (end[s] && !(m->arena[s] = reserve(end[s])))
			return printf("no memory for S(%d): %lld bytes\n", s,
				      end[s]), 0;
	}
	m->own = calloc((size_t)P(_NUM_BUFFERS) + 1, sizeof *m->own);
	return m->own != NULL;
}

/* Where a binding's bytes are: in its space's arena, or in memory of the
 * buffer's own when the plan keeps it out of the arenas. */
static unsigned char *
place(struct memory *m, const binding *x)
{
	const struct hloplan_plan_buffer *b = &P(_buffers)[x->buffer];

	if (x->offset >= 0)
		return m->arena[b->space] + x->offset;
	if (!m->own[x->buffer])
		m->own[x->buffer] = reserve(b->size + 1);
	return m->own[x->buffer];
}

static void
put_binding(FILE *out, const binding *x)
{
	if (x->parameter >= 0)
		fprintf(out, "param %d {", x->parameter);
	else
		fputs("output {", out);
	for (int d = 0; d < x->depth; d++)
		fprintf(out, "%s%d", d ? "," : "", x->index[d]);
	fprintf(out, "} buffer %d offset %lld size %lld %s\n", x->buffer,
		x->offset, x->size, x->shape);
}

/* Inside its buffer, where the buffer's row says. */
static int
fits(const binding *x)
{
	const struct hloplan_plan_buffer *b;

	if (x->buffer < 0 || x->buffer >= P(_NUM_BUFFERS))
		return 0;
	b = &P(_buffers)[x->buffer];
	return x->offset == b->offset && x->size <= b->size &&
	       x->offset == (b->in_arena ? b->offset : -1);
}

/* Two arguments (or two results) are live at once: never one memory. */
static int
apart(const binding *x, const binding *y)
{
	const struct hloplan_plan_buffer *a = &P(_buffers)[x->buffer];
	const struct hloplan_plan_buffer *b = &P(_buffers)[y->buffer];

	if (x->buffer == y->buffer)
		return 0;
	if (x->offset < 0 || y->offset < 0 || a->space != b->space)
		return 1;
	return x->offset + x->size <= y->offset ||
	       y->offset + y->size <= x->offset;
}

/* The first and last EDGE bytes of a binding (all of a small one): what
 * is written and read back, so that an overlap shows in the data too. */
static long long
edge_at(const binding *x, long long i)
{
	return i < EDGE || x->size <= 2 * EDGE ? i : x->size - 2 * EDGE + i;
}

static long long
edge_count(const binding *x)
{
	return x->size < 2 * EDGE ? x->size : 2 * EDGE;
}

/* Binds every argument and result; each argument gets its own byte
 * pattern, which must survive the others' being written. */
static int
bind_all(struct memory *m)
{
	int n = nbinding(), ok = 1;

	for (int k = 0; k < n; k++) {
		const binding *x = binding_at(k);

		put_binding(stdout, x);
		if (!fits(x))
			ok = !printf("  not inside its buffer\n");
		for (int j = 0; ok && j < k; j++)
			if ((x->parameter < 0) == (binding_at(j)->parameter < 0)
			    && !apart(x, binding_at(j)))
				ok = !printf("  overlaps another binding\n");
		for (long long i = 0; ok && x->parameter >= 0 &&
				      i < edge_count(x); i++)
			place(m, x)[edge_at(x, i)] = (unsigned char)(k + 1);
	}
	for (int k = 0; ok && k < n && binding_at(k)->parameter >= 0; k++) {
		const binding *x = binding_at(k);

		for (long long i = 0; i < edge_count(x); i++)
			if (place(m, x)[edge_at(x, i)] != (unsigned char)(k + 1))
				return !printf("argument %d overwritten\n", k);
	}
	return ok;
}

/* Each constant's bytes copied into its buffer, where the plan puts it
 * (its own memory, for a constant kept out of the arenas), as a runtime
 * does before the first step; then read back. */
static int
place_constants(struct memory *m)
{
	for (int i = 0; i < P(_NUM_CONSTANTS); i++) {
		const struct hloplan_plan_constant *k = &P(_constants)[i];
		const struct hloplan_plan_buffer *b;
		binding x;
		unsigned char *at;

		if (k->buffer < 0 || k->buffer >= P(_NUM_BUFFERS) ||
		    (k->known ? k->offset < 0 ||
				k->offset + k->bytes > P(_CONST_BYTES)
			      : k->offset != -1))
			return !printf("constant %s: out of range\n",
				       k->instruction);
		b = &P(_buffers)[k->buffer];
		if (k->bytes > b->size)
			return !printf("constant %s: %lld bytes in %lld\n",
				       k->instruction, k->bytes, b->size);
		memset(&x, 0, sizeof x);
		x.buffer = k->buffer;
		x.offset = b->in_arena ? b->offset : -1;
		at = place(m, &x);
#if P(_CONST_EMBEDDED)
		if (k->known)
			memcpy(at, P(_CONST_DATA) + k->offset,
			       (size_t)k->bytes);
#endif
		(void)at;
	}
	return 1;
}

/* ---- the check against the plan the library makes ---------------------- */

static int
same_index(const int *a, int na, const int *b, int nb)
{
	return na == nb && (na == 0 || !memcmp(a, b, sizeof *a * (size_t)na));
}

/* The header's binding of a parameter (as_output 0) or output position,
 * or NULL. */
static const binding *
find_binding(const struct hloplan_position *q, int as_output)
{
	for (int k = 0; k < nbinding(); k++) {
		const binding *x = binding_at(k);

		if (x->parameter == (as_output ? -1 : q->parameter) &&
		    same_index(x->index, x->depth, q->index, q->depth))
			return x;
	}
	return NULL;
}

static int
check_binding(const struct hloplan_plan *p, const struct hloplan_position *q,
	      int as_output)
{
	const binding *x = find_binding(q, as_output);

	if (!x)
		return !printf("%s/%s: no binding in the header\n",
			       q->computation, q->instruction);
	if (x->buffer != q->buffer || x->size != q->size ||
	    x->offset != p->buffers[q->buffer].offset ||
	    strcmp(x->shape, q->shape) != 0)
		return !printf("%s/%s: the header says buffer %d offset %lld "
			       "size %lld %s; the plan, buffer %d offset %lld "
			       "size %lld %s\n", q->computation, q->instruction,
			       x->buffer, x->offset, x->size, x->shape,
			       q->buffer, (long long)p->buffers[q->buffer].offset,
			       (long long)q->size, q->shape);
	return 1;
}

/* Whether step t's computation and instruction are q's. */
static int
names_step(int t, const struct hloplan_position *q)
{
	return !strcmp(P(_STEP_COMPUTATION)(t), q->computation) &&
	       !strcmp(P(_STEP_NAME)(t), q->instruction);
}

/* Whether step t is "computation/instruction" name. */
static int
step_is(int t, const char *name)
{
	const char *c = P(_STEP_COMPUTATION)(t);
	size_t n = strlen(c);

	return !strncmp(name, c, n) && name[n] == '/' &&
	       !strcmp(name + n + 1, P(_STEP_NAME)(t));
}

/* Every position, in the header as in the plan: buffer, slot, shape
 * index and whether its step writes it; and each buffer's values, the
 * positions that write it, in schedule order. */
static int
check_values(const struct hloplan_plan *p)
{
	int *seen = calloc((size_t)p->nbuffer + 1, sizeof *seen), ok = 1;
	int nval = 0, t = 0;

	if (p->nposition != P(_NUM_POSITIONS))
		ok = !printf("the plan has %d positions, the header %d\n",
			     p->nposition, P(_NUM_POSITIONS));
	for (int k = 0; ok && k < p->nposition; k++) {
		const struct hloplan_position *q = &p->positions[k];
		const struct hloplan_plan_position *h = &P(_positions)[k];
		const struct hloplan_plan_buffer *b = &P(_buffers)[q->buffer];
		const int *ix = &P(_ix)[h->index];

		while (t + 1 < P(_NUM_STEPS) &&
		       P(_step_first_position)[t + 1] <= k)
			t++;	/* the step whose positions hold k */
		if (!names_step(t, q) || h->buffer != q->buffer || h->slot != q->slot ||
		    h->offset != 0 || (h->defines != 0) != (q->defines != 0) ||
		    !same_index(ix + 1, ix[0], q->index, q->depth) ||
		    k < P(_step_first_position)[0] ||
		    k >= P(_step_first_position)[P(_NUM_STEPS)])
			ok = !printf("%s/%s: its position %d differs\n",
				     q->computation, q->instruction, k);
		if (!ok || !q->defines)
			continue;
		nval++;
		if (seen[q->buffer] >= b->num_values ||
		    P(_values)[b->first_value + seen[q->buffer]++] != k)
			ok = !printf("%s/%s: not buffer %s's next value\n",
				     q->computation, q->instruction, b->name);
		else if (seen[q->buffer] == 1 && (b->shape < 0 ||
			 b->shape >= P(_NUM_SHAPES) ||
			 strcmp(P(_shapes)[b->shape].text, q->shape) != 0))
			ok = !printf("buffer %s: the header's shape is not its "
				     "first value's, %s\n", b->name, q->shape);
	}
	if (ok && nval != P(_NUM_VALUES))
		ok = !printf("the plan has %d values, the header %d\n", nval,
			     P(_NUM_VALUES));
	free(seen);
	return ok;
}

/* The header's names of the steps are the plan's. */
static int
check_steps(const struct hloplan_plan *p)
{
	if (p->nstep != P(_NUM_STEPS))
		return !printf("the plan has %d steps, the header %d\n",
			       (int)p->nstep, P(_NUM_STEPS));
	for (int t = 0; p->steps && t < p->nstep; t++)
		if (!step_is(t, p->steps[t]))
			return !printf("step %d: the header says %s, the plan "
				       "%s\n", t, P(_STEP_NAME)(t),
				       p->steps[t]);
	return 1;
}

/* The header's constant bytes are the plan's. */
static int
check_const_data(const struct hloplan_plan *p)
{
	if (p->const_bytes != P(_CONST_BYTES))
		return !printf("the plan has %lld bytes of constants, the "
			       "header %lld\n", (long long)p->const_bytes,
			       (long long)P(_CONST_BYTES));
#if P(_CONST_EMBEDDED)
	if (memcmp(p->const_data, P(_CONST_DATA), (size_t)p->const_bytes))
		return !printf("the constants' bytes differ\n");
#endif
	return 1;
}

static int
check_plan(const struct hloplan_plan *p)
{
	int n = 0, ok = p->nbuffer == P(_NUM_BUFFERS);

	if (!ok)
		return !printf("the plan has %d buffers, the header %d\n",
			       p->nbuffer, P(_NUM_BUFFERS));
	for (int k = 0; ok && k < p->nposition; k++) {
		const struct hloplan_position *q = &p->positions[k];
		int is_token = !strncmp(q->shape, "token[", 6);

		if ((q->parameter < 0 && !q->output) || is_token)
			continue;
		n += (q->parameter >= 0) + q->output;
		if (q->parameter >= 0)
			ok = check_binding(p, q, 0);
		if (ok && q->output)
			ok = check_binding(p, q, 1);
	}
	if (ok && n != nbinding())
		ok = !printf("the plan has %d bindings, the header %d\n", n,
			     nbinding());
	return ok && check_steps(p) && check_values(p) && check_const_data(p);
}

int
main(int argc, char **argv)
{
	struct hloplan_options o = {0};
	struct hloplan_result *r;
	struct memory m = {{0}, {0}, NULL};
	int ok;

	if (!alloc_arenas(&m))
		return 1;
	ok = bind_all(&m) && place_constants(&m);
	o.targets = PLAN_TARGET;
	r = hloplan_plan_file(argc > 1 ? argv[1] : MODEL, &o);
	if (hloplan_status(r) != HLOPLAN_OK) {
		hloplan_write_diags(r, stderr);
		hloplan_free(r);
		return 1;
	}
	ok = ok && check_plan(hloplan_get_plan(r, PLAN_INDEX));
	printf("%s: %d parameters and %d outputs bound, %d values of %d "
	       "buffers and %d constants as the plan says\n",
	       ok ? "OK" : "MISMATCH", P(_NUM_PARAMS), P(_NUM_OUTPUTS),
	       P(_NUM_VALUES), P(_NUM_BUFFERS), P(_NUM_CONSTANTS));
	hloplan_free(r);
	for (int s = 0; s < MAX_SPACE; s++)
		release(m.arena[s], m.size[s]);
	for (int i = 0; m.own && i < P(_NUM_BUFFERS); i++)
		release(m.own[i], P(_buffers)[i].size + 1);
	free(m.own);
	return !ok;
}

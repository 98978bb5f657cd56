/* oracle_calls DECL: proves a joint plan (issue 41) by running its call
 * sequence.  The reference runs each call with every value apart, carrying
 * the shared arrays from call to call; the planned run runs every call in
 * one arena, whose bytes outside the shared arrays are poisoned between
 * calls, with the arrays left where the plan put them.  Each call's results
 * and the arrays after it must be the reference's, bit for bit.  Exit 0
 * same, 1 different, 2 error; --break swaps two arrays in one program and
 * exits 0 only when the difference is seen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_joint.h"
#include "tests/oracle/interp.h"

enum { POISON = 0xA5 };

/* The state carried between calls: each shared array's bytes. */
struct carry {
	const struct joint_decl *d;
	const struct joint_plan *jp;
	int prog;		/* the program being run */
	int planned;		/* 1: the arena holds the arrays */
	unsigned char **state;	/* per array: its bytes, the reference's */
};

static int
nodes(const struct shape *s)
{
	int n = 1;

	for (int e = 0; e < s->nelem; e++)
		n += nodes(&s->elems[e]);
	return n;
}

/* The preorder node of shape index x in s. */
static int
node_of(const struct shape *s, const struct jindex *x)
{
	int node = 0;

	for (int d = 0; d < x->depth; d++) {
		node++;
		for (int e = 0; e < x->i[d]; e++)
			node += nodes(&s->elems[e]);
		s = &s->elems[x->i[d]];
	}
	return node;
}

/* Which array a program's parameter node is, or -1. */
static int
array_of_param(const struct carry *c, int k, int node)
{
	const struct module *m = c->d->prog[c->prog].m;
	const struct comp *e = &m->comps[m->entry];

	for (int a = 0; a < c->d->narray; a++)
		for (int u = 0; u < c->d->arr[a].nuse; u++) {
			const struct joint_use *x = &c->d->arr[a].use[u];

			if (x->prog == c->prog && x->param == k &&
			    node_of(&e->instrs[e->params[k]].shape,
				    &x->pidx) == node)
				return a;
		}
	return -1;
}

static int
fill_param(void *ctx, int k, int node, unsigned char *p, int64_t bytes)
{
	struct carry *c = ctx;
	int a = array_of_param(c, k, node);

	if (a < 0)
		return 0;
	if (!c->planned)
		memcpy(p, c->state[a], (size_t)bytes);
	return 1;
}

static void
index_path(char *buf, size_t n, const struct jindex *x)
{
	size_t k = (size_t)snprintf(buf, n, "{");

	for (int i = 0; i < x->depth && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "",
				      (long long)x->i[i]);
	snprintf(buf + k, n - k, "}");
}

/* The reference's new state: what the program writes, from its outputs. */
static void
take_outputs(struct carry *c, const struct outputs *out)
{
	char path[64];

	for (int a = 0; a < c->d->narray; a++)
		for (int u = 0; u < c->d->arr[a].nuse; u++) {
			const struct joint_use *x = &c->d->arr[a].use[u];

			if (x->prog != c->prog || !x->out)
				continue;
			index_path(path, sizeof path, &x->oidx);
			for (int l = 0; l < out->n; l++)
				if (!strcmp(out->leaf[l].path, path))
					memcpy(c->state[a], out->leaf[l].data,
					       (size_t)out->leaf[l].bytes);
		}
}

/* Poisons the arena but the arrays' bytes. */
static void
poison(const struct joint_plan *jp, unsigned char *arena)
{
	int64_t at = 0;

	while (at < jp->arena) {
		int64_t next = jp->arena, skip = -1;

		for (int a = 0; a < jp->narray; a++) {
			if (jp->offset[a] <= at &&
			    at < jp->offset[a] + jp->size[a])
				skip = jp->offset[a] + jp->size[a];
			else if (jp->offset[a] > at && jp->offset[a] < next)
				next = jp->offset[a];
		}
		if (skip >= 0) {
			at = skip;
			continue;
		}
		memset(arena + at, POISON, (size_t)(next - at));
		at = next;
	}
}

/* The arrays in the arena hold the reference's state. */
static int
check_state(const struct carry *c, const unsigned char *arena, int call)
{
	for (int a = 0; a < c->d->narray; a++)
		if (memcmp(arena + c->jp->offset[a], c->state[a],
			   (size_t)c->jp->bytes[a])) {
			printf("DIFFERS: after call %d (%s), shared array '%s' "
			       "is not the reference's\n", call,
			       c->d->prog[c->prog].name, c->d->arr[a].name);
			return 1;
		}
	return 0;
}

static int
run_call(struct carry *c, unsigned char *arena, int call, uint64_t seed)
{
	const struct module *m = c->d->prog[c->prog].m;
	const struct plan *pl = &c->jp->plans[c->prog];
	struct interp_opts o = {.seed = seed, .branch = -1, .param =
				fill_param, .param_ctx = c};
	struct outputs ref, got;
	char msg[512];
	int st, diff;

	o.mode = INTERP_REF;
	c->planned = 0;
	if ((st = interp_run(m, pl, &o, &ref, msg, sizeof msg))) {
		printf("error: the reference run of call %d: %s\n", call, msg);
		return 2;
	}
	take_outputs(c, &ref);
	o.mode = INTERP_PLANNED;
	o.arena0 = arena;
	o.params_survive = 1;
	c->planned = 1;
	poison(c->jp, arena);
	if ((st = interp_run(m, pl, &o, &got, msg, sizeof msg))) {
		printf("DIFFERS: call %d (%s): %s\n", call,
		       c->d->prog[c->prog].name, msg);
		interp_free(&ref);
		return st == INTERP_DIFF ? 1 : 2;
	}
	diff = interp_compare(&ref, &got, msg, sizeof msg);
	if (diff)
		printf("DIFFERS: call %d (%s): %s\n", call,
		       c->d->prog[c->prog].name, msg);
	interp_free(&ref);
	interp_free(&got);
	return diff ? 1 : check_state(c, arena, call);
}

/* Random initial state, and the arena holding it. */
static void
init_state(struct carry *c, unsigned char *arena, uint64_t seed)
{
	for (int a = 0; a < c->d->narray; a++) {
		c->state[a] = calloc((size_t)c->jp->bytes[a] + 1, 1);
		if (!c->state[a])
			abort();
		for (int64_t i = 0; i + 4 <= c->jp->bytes[a]; i += 4) {
			uint64_t z = (seed += 0x9e3779b97f4a7c15u);
			float f;

			z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9u;
			f = (float)(z >> 40) * 0x1p-24f - 0.5f;
			memcpy(c->state[a] + i, &f, 4);
		}
		memcpy(arena + c->jp->offset[a], c->state[a],
		       (size_t)c->jp->bytes[a]);
	}
}

/* Swaps the first two arrays of the last program called that binds two. */
static int
break_plan(const struct joint_decl *d, struct joint_plan *jp)
{
	for (int k = d->nprog - 1; k >= 0; k--) {
		int a0 = -1, a1 = -1;

		for (int a = 0; a < d->narray; a++)
			if (jp->buf[k][a] >= 0 && jp->size[a] == jp->size[0])
				a0 < 0 ? (a0 = a) : a1 < 0 ? (a1 = a) : 0;
		if (a1 >= 0) {
			struct buffer *b0 = &jp->plans[k].bufs[jp->buf[k][a0]];
			struct buffer *b1 = &jp->plans[k].bufs[jp->buf[k][a1]];
			int64_t t = b0->offset;

			b0->offset = b1->offset;
			b1->offset = t;
			return 0;
		}
	}
	return -1;
}

static int
run_target(const struct joint_decl *d, struct joint_plan *jp, int brk)
{
	unsigned char *arena = malloc((size_t)jp->arena + 1);
	struct carry c = {d, jp, 0, 0, calloc((size_t)d->narray + 1,
					      sizeof(unsigned char *))};
	int ncall = d->ncall ? d->ncall : d->nprog, r = 0;

	if (!arena || !c.state)
		abort();
	if (brk && break_plan(d, jp))
		return 2;
	init_state(&c, arena, 7);
	for (int k = 0; k < ncall && !r; k++) {
		c.prog = d->ncall ? d->call[k] : k;
		r = run_call(&c, arena, k, 1000 + (uint64_t)k);
	}
	if (!r)
		printf("%s: %d calls the same as the reference\n",
		       jp->target == TARGET_TPU ? "tpu" : "gpu", ncall);
	for (int a = 0; a < d->narray; a++)
		free(c.state[a]);
	free(c.state);
	free(arena);
	return r;
}

int
main(int argc, char **argv)
{
	struct joint_run r = {0};
	struct joint_opts jo = {1 << TARGET_GPU | 1 << TARGET_TPU, NULL, 0};
	struct options o;
	int brk = argc == 3 && !strcmp(argv[1], "--break"), worst = 0;

	if (argc != 2 + brk) {
		fputs("usage: oracle_calls [--break] DECL\n", stderr);
		return 2;
	}
	options_default(&o);
	plan_programs(&r, argv[1 + brk], &o, &jo);
	joint_print_diags(&r, stderr);
	for (int t = 0; !r.status && t < r.nplan; t++) {
		int s = run_target(&r.decl, &r.jp[t], brk);

		worst = s > worst ? s : worst;
	}
	pool_free(r.pool);
	if (r.status)
		return 2;
	if (brk)
		return worst == 1 ? 0 : 1;
	return worst;
}

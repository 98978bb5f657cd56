/* oracle_gen: random valid HLO modules (DAGs of elementwise ops, broadcasts,
 * reshapes, slices, concatenates, pads, dots, reductions, dynamic slices,
 * tuples, while loops, conditionals, calls, fusions, async pairs,
 * input_output_alias), built to reach every family of plans the planner
 * has got wrong (F_*: tagged in each module, switchable), each planned,
 * verified and run by the oracle.  Fixed seeds: seed k makes the same
 * module on every machine.  Exit 1 for a wrong plan written (the oracle
 * sees it differ, verify accepted it) or an error, and with
 * --require-planned for a plan verify refused; else 0. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/oracle/trial.h"

enum { MAXVAL = 512, MAXELEM = 4096, MAXDEPTH = 2, MAXOUT = 8 };
enum { T_F32, T_S32, T_BF16, T_PRED };

static const char *const tname[] = {"f32", "s32", "bf16", "pred"};

struct buf {
	char *p;
	size_t n, cap;
};

static void
bput(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!b->p) {
		b->p = calloc(1, b->cap = 4096);
		if (!b->p)
			exit(2);
	}
	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (k >= 0 && b->n + (size_t)k < b->cap)
			break;
		b->cap = 2 * b->cap + (size_t)k + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			fputs("oracle_gen: out of memory\n", stderr);
			exit(2);
		}
	}
	b->n += (size_t)k;
}

/* An array shape: type and up to three dimensions. */
enum { GS_MAXRANK = 4 };

struct gs {
	int type, rank;		/* rank <= GS_MAXRANK */
	int d[GS_MAXRANK];
};

struct val {
	char name[24];
	struct gs s;
	int used;		/* an operand of something */
	int inits;		/* in so many loops' init tuples */
	char op[24];		/* the opcode that made it */
};

/* A computation being written: its instructions and the arrays it has. */
struct scope {
	struct buf text;
	struct val v[MAXVAL];
	int n;
	int depth;		/* 0: the entry */
	int tail;		/* the array the last line made, or -1 */
	int counter;		/* a loop body's s32 counter, or -1 */
	int nstate;		/* its state's arrays, after the counter */
};

struct gen;
typedef int opfn(struct gen *g, struct scope *sc);

/* Families of modules that the planner has got wrong, each made on
 * purpose by a generator or a choice in one, each tagged in the module
 * (a comment line, and the name in every message) and each switchable:
 * --avoid NAME steers away from it (the first five) or never makes it. */
enum {
	F_INIT,		/* one value in several loops' state, read after */
	F_ROOT,		/* a loop's next state taken over in place */
	F_ALIAS,	/* input_output_alias of a non-elementwise output,
			   must-alias, an output also read elsewhere */
	F_BITCAST,	/* a bitcast changing the TPU's padding */
	F_BRANCH,	/* a branch returning its parameter */
	F_BRANCH_OPS,	/* branches taking different operands, returning
			   them or parts of tuple operands */
	F_BRANCH_PAIR,	/* two branches returning their two operands */
	F_BRANCH_SWAP,	/* branches returning a tuple's elements swapped */
	F_ALIAS_SWAP,	/* outputs aliasing each other's parameter */
	F_COPY_START,	/* copy-start/copy-done around other work */
	F_COLLECTIVE,	/* async collectives (one participant), async-start */
	F_DUS_FUSION,	/* a fusion whose root updates its parameter 0 */
	F_ROTATE,	/* loop state rotated or swapped, updated in place */
	F_CALLS,	/* one computation called from 3-70 sites */
	F_CALLS_CAP,	/* call sites past flatten.c's budget */
	F_SLOTS,	/* a double-buffered fetch carried or copied */
	F_TUPLE_CALL,	/* a tuple custom-call writing one element in place
			   over an operand (output_to_operand_aliasing) */
	F_ASYNC_COLL,	/* async collectives in flight together, work
			   between starts and dones */
	F_LOOP_FUSION,	/* a loop's next state a kLoop fusion of the state
			   element, another reader before or after it */
	F_ASYNC_COND,	/* an async call of a conditional whose branch
			   forwards its parameter */
	F_MUST_ALIAS,	/* an output that must alias a parameter */
	NFAM
};

static const char *const fam_names[NFAM] = {
	"init", "root", "alias", "bitcast", "branch", "branch-operands",
	"branch-pair", "branch-swap", "alias-swap", "copy-start",
	"collective", "dus-fusion", "rotate", "calls", "calls-cap", "slots",
	"tuple-call", "async-collectives", "loop-fusion", "async-cond",
	"must-alias",
};

#define BIT(f) (1u << (f))

/* A computation called from many sites: its name, parameters, result. */
struct callee {
	char name[32];
	struct gs arg[2], res;
	int nargs;
};

/* An entry output asked for: array v of the entry, aliasing parameter
 * `param` (-1: none). */
struct out {
	int v, param, must;
};

struct gen {
	uint64_t rng;
	unsigned safe;		/* BIT(F_*): families avoided */
	unsigned fams;		/* BIT(F_*): families made */
	struct buf comps;	/* computations the entry calls, in order */
	int id;
	int reducers;		/* bit per type: its add/max made */
	int was_used;		/* what any() picked was read already */
	int scheduled;		/* is_scheduled=true: the text order runs */
	opfn *inject;		/* to run first in the next body or branch */
	struct callee shared;	/* F_CALLS */
	int in_shared;		/* writing its body: no calls of it */
	int capped;		/* F_CALLS_CAP made */
	int nparam;		/* the entry's parameters */
	unsigned aliased;	/* bit per parameter: an output aliases it */
	struct out outs[MAXOUT];	/* entry outputs asked for */
	int nout;
};

static uint64_t
rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static int
pick(struct gen *g, int n)
{
	return n > 0 ? (int)(rnd(g) % (uint64_t)n) : 0;
}

static int
chance(struct gen *g, int percent)
{
	return pick(g, 100) < percent;
}

static int
avoids(const struct gen *g, int f)
{
	return g->safe >> f & 1;
}

static void
tag(struct gen *g, int f)
{
	g->fams |= BIT(f);
}

/* Family f, when it is not avoided: tagged as made, 1; else 0. */
static int
makes(struct gen *g, int f)
{
	if (avoids(g, f))
		return 0;
	tag(g, f);
	return 1;
}

static int64_t
count(const struct gs *s)
{
	int64_t n = 1;

	for (int k = 0; k < s->rank; k++)
		n *= s->d[k];
	return n;
}

static const char *
shape_text(const struct gs *s, char *buf)
{
	int k = sprintf(buf, "%s[", tname[s->type]);

	for (int j = 0; j < s->rank; j++)
		k += sprintf(buf + k, "%s%d", j ? "," : "", s->d[j]);
	sprintf(buf + k, "]");
	return buf;
}

static int
same_shape(const struct gs *a, const struct gs *b)
{
	if (a->type != b->type || a->rank != b->rank)
		return 0;
	for (int k = 0; k < a->rank; k++)
		if (a->d[k] != b->d[k])
			return 0;
	return 1;
}

static int
elementwise(const char *op)
{
	static const char *const ops[] = {
		"negate", "abs", "tanh", "sine", "cosine", "floor", "copy",
		"exponential", "round-nearest-even", "sign", "not", "add",
		"subtract", "multiply", "maximum", "minimum", "select",
		"compare", "convert",
	};

	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (!strcmp(op, ops[k]))
			return 1;
	return 0;
}

/* A new instruction `name = shape op(...)`; the text after the shape is
 * printf'd; the array joins the scope. */
static const char *
emit(struct gen *g, struct scope *sc, const struct gs *s, const char *fmt,
     ...)
{
	struct val *v = &sc->v[sc->n < MAXVAL ? sc->n++ : MAXVAL - 1];
	char sh[64], line[1024];
	va_list ap;

	snprintf(v->name, sizeof v->name, "v%d", ++g->id);
	v->s = *s;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	snprintf(v->op, sizeof v->op, "%.*s", (int)strcspn(line, "("), line);
	sc->tail = (int)(v - sc->v);
	bput(&sc->text, "  %s = %s %s\n", v->name, shape_text(s, sh), line);
	return v->name;
}

/* An array of the scope whose line the caller writes: its name. */
static const char *
new_val(struct gen *g, struct scope *sc, const struct gs *s, const char *op,
	char *name)
{
	struct val *v = &sc->v[sc->n < MAXVAL ? sc->n++ : MAXVAL - 1];

	snprintf(v->name, sizeof v->name, "v%d", ++g->id);
	v->s = *s;
	v->used = 0;
	v->inits = 0;
	snprintf(v->op, sizeof v->op, "%s", op);
	sc->tail = -1;
	return strcpy(name, v->name);
}

/* A copy that only its one user reads: it leaves the scope. */
static const char *
private_copy(struct gen *g, struct scope *sc, const struct val *v)
{
	static char name[24];

	snprintf(name, sizeof name, "%s", emit(g, sc, &v->s, "copy(%s)",
					       v->name));
	sc->n--;
	return name;
}

static struct gs
scalar(int type)
{
	struct gs s = {type, 0, {0}};

	return s;
}

static struct gs
random_shape(struct gen *g, int type)
{
	struct gs s = {type, 1 + pick(g, 3), {0}};

	for (int k = 0; k < s.rank; k++)
		s.d[k] = 1 + pick(g, k == 0 ? 6 : 8);
	return s;
}

/* A random array of the scope, of a type in mask (bit per T_*). */
static const struct val *
any(struct gen *g, struct scope *sc, int mask)
{
	int idx[MAXVAL], n = 0;

	for (int k = 0; k < sc->n; k++)
		if (mask >> sc->v[k].s.type & 1)
			idx[n++] = k;
	if (!n)
		return NULL;
	n = idx[pick(g, n)];
	g->was_used = sc->v[n].used;
	sc->v[n].used = 1;
	return &sc->v[n];
}

static const char *
constant(struct gen *g, struct scope *sc, int type)
{
	struct gs s = scalar(type);

	switch (type) {
	case T_PRED: return emit(g, sc, &s, "constant(%s)",
				 chance(g, 50) ? "true" : "false");
	case T_S32: return emit(g, sc, &s, "constant(%d)", pick(g, 7) - 2);
	default: return emit(g, sc, &s, "constant(%g)",
			     (double)(pick(g, 17) - 8) / 4);
	}
}

/* A new array of shape s: a broadcast constant. */
static const char *
fresh(struct gen *g, struct scope *sc, const struct gs *s)
{
	const char *c = constant(g, sc, s->type);

	if (s->rank == 0)
		return c;
	return emit(g, sc, s, "broadcast(%s), dimensions={}", c);
}

/* An array of shape s: one of the scope's, or a new one; *was_used (when
 * not NULL) says whether something already reads it. */
static const char *
pick_shape(struct gen *g, struct scope *sc, const struct gs *s,
	   int *was_used)
{
	int idx[MAXVAL], n = 0;

	if (was_used)
		*was_used = 0;
	for (int k = 0; k < sc->n; k++)
		if (same_shape(&sc->v[k].s, s))
			idx[n++] = k;
	if (!n || !chance(g, 80))
		return fresh(g, sc, s);
	n = idx[pick(g, n)];
	if (was_used)
		*was_used = sc->v[n].used;
	sc->v[n].used = 1;
	return sc->v[n].name;
}

static const char *
of_shape(struct gen *g, struct scope *sc, const struct gs *s)
{
	return pick_shape(g, sc, s, NULL);
}

/* ---- ops ---------------------------------------------------------------- */

static int
op_unary(struct gen *g, struct scope *sc)
{
	static const char *const fops[] = {
		"negate", "abs", "tanh", "sine", "cosine", "floor", "copy",
		"exponential", "round-nearest-even", "sign",
	};
	static const char *const iops[] = {"negate", "abs", "copy", "not"};
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32 | 1 << T_BF16);

	if (!v)
		return -1;
	if (v->s.type == T_S32)
		emit(g, sc, &v->s, "%s(%s)", iops[pick(g, 4)], v->name);
	else
		emit(g, sc, &v->s, "%s(%s)", fops[pick(g, 10)], v->name);
	return 0;
}

static int
op_binary(struct gen *g, struct scope *sc)
{
	static const char *const ops[] = {
		"add", "subtract", "multiply", "maximum", "minimum", "add",
	};
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32 | 1 << T_BF16);
	struct val a;
	const char *w;

	if (!v)
		return -1;
	a = *v;
	w = of_shape(g, sc, &a.s);
	if (chance(g, 50))
		emit(g, sc, &a.s, "%s(%s, %s)", ops[pick(g, 6)], a.name, w);
	else
		emit(g, sc, &a.s, "%s(%s, %s)", ops[pick(g, 6)], w, a.name);
	return 0;
}

static int
op_select(struct gen *g, struct scope *sc)
{
	static const char *const dirs[] = {"LT", "GT", "LE", "GE", "EQ", "NE"};
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	struct gs p;
	struct val a;
	const char *w, *c;

	if (!v)
		return -1;
	a = *v;
	w = of_shape(g, sc, &a.s);
	p = a.s;
	p.type = T_PRED;
	c = emit(g, sc, &p, "compare(%s, %s), direction=%s", a.name, w,
		 dirs[pick(g, 6)]);
	emit(g, sc, &a.s, "select(%s, %s, %s)", c, a.name, w);
	return 0;
}

static int
op_convert(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32 | 1 << T_BF16);
	struct gs s;

	if (!v)
		return -1;
	s = v->s;
	s.type = v->s.type == T_F32 ? (chance(g, 50) ? T_S32 : T_BF16) : T_F32;
	emit(g, sc, &s, "convert(%s)", v->name);
	return 0;
}

static int
op_broadcast(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 15);
	struct gs s;
	int at, dims[4], k = 0;
	char list[32] = "";

	if (!v || v->s.rank >= 3 || count(&v->s) * 4 > MAXELEM)
		return -1;
	s = v->s;
	at = pick(g, s.rank + 1);
	for (int j = s.rank; j > at; j--)
		s.d[j] = s.d[j - 1];
	s.d[at] = 2 + pick(g, 3);
	s.rank++;
	for (int j = 0; j < s.rank; j++)
		if (j != at)
			dims[k++] = j;
	for (int j = 0; j < k; j++)
		sprintf(list + strlen(list), "%s%d", j ? "," : "", dims[j]);
	emit(g, sc, &s, "broadcast(%s), dimensions={%s}", v->name, list);
	return 0;
}

/* Elements after the TPU's default tiling (8, 128; 128 for rank < 2). */
static int64_t
tpu_count(const struct gs *s)
{
	int64_t n = 1;

	if (s->rank < 2)
		return (count(s) + 127) / 128 * 128;
	for (int k = 0; k < s->rank - 2; k++)
		n *= s->d[k];
	return n * ((s->d[s->rank - 2] + 7) / 8 * 8) *
	       ((s->d[s->rank - 1] + 127) / 128 * 128);
}

/* A reshape (or bitcast) to another factorization of the same count;
 * avoiding F_BITCAST, a bitcast keeps the TPU's padded size. */
static int
op_reshape(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 15);
	struct gs s;
	int64_t n;
	int cast;

	if (!v)
		return -1;
	s = v->s;
	n = count(&s);
	s.rank = 0;
	for (int64_t f = 2; f <= n && s.rank < 2; f++)
		if (n % f == 0 && chance(g, 40)) {
			s.d[s.rank++] = (int)f;
			n /= f;
			f = 1;
		}
	s.d[s.rank++] = (int)n;
	cast = chance(g, 25);
	if (cast && tpu_count(&s) != tpu_count(&v->s))
		cast = makes(g, F_BITCAST);
	emit(g, sc, &s, "%s(%s)", cast ? "bitcast" : "reshape", v->name);
	return 0;
}

static int
op_transpose(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 15);
	int perm[4] = {0, 1, 2, 3};
	char list[32] = "";
	struct gs s;

	if (!v || v->s.rank < 2)
		return -1;
	s = v->s;
	for (int k = s.rank - 1; k > 0; k--) {
		int j = pick(g, k + 1), t = perm[k];

		perm[k] = perm[j];
		perm[j] = t;
	}
	for (int k = 0; k < s.rank; k++) {
		s.d[k] = v->s.d[perm[k]];
		sprintf(list + strlen(list), "%s%d", k ? "," : "", perm[k]);
	}
	emit(g, sc, &s, "transpose(%s), dimensions={%s}", v->name, list);
	return 0;
}

static int
op_slice(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 15);
	char list[128] = "";
	struct gs s;

	if (!v || v->s.rank == 0)
		return -1;
	s = v->s;
	for (int k = 0; k < s.rank; k++) {
		int a = pick(g, s.d[k]), b = a + 1 + pick(g, s.d[k] - a);
		int st = 1 + pick(g, 2);

		s.d[k] = (b - a + st - 1) / st;
		sprintf(list + strlen(list), "%s[%d:%d:%d]", k ? ", " : "", a,
			b, st);
	}
	emit(g, sc, &s, "slice(%s), slice={%s}", v->name, list);
	return 0;
}

static int
op_concatenate(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 15);
	struct val a;
	int d;

	if (!v || v->s.rank == 0 || count(&v->s) * 2 > MAXELEM)
		return -1;
	a = *v;
	d = pick(g, a.s.rank);
	a.s.d[d] *= 2;
	emit(g, sc, &a.s, "concatenate(%s, %s), dimensions={%d}", v->name,
	     of_shape(g, sc, &v->s), d);
	return 0;
}

static int
op_pad(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	char cfg[128] = "";
	const char *c;
	struct val a;

	if (!v || v->s.rank == 0 || count(&v->s) * 8 > MAXELEM)
		return -1;
	a = *v;
	c = constant(g, sc, a.s.type);
	for (int k = 0; k < a.s.rank; k++) {
		int lo = pick(g, 3) - (a.s.d[k] > 2), hi = pick(g, 3);
		int in = pick(g, 2);

		a.s.d[k] += lo + hi + in * (a.s.d[k] - 1);
		sprintf(cfg + strlen(cfg), "%s%d_%d_%d", k ? "x" : "", lo, hi,
			in);
	}
	emit(g, sc, &a.s, "pad(%s, %s), padding=%s", a.name, c, cfg);
	return 0;
}

static int
op_dot(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32);
	const char *w;
	struct gs s;

	if (!v || v->s.rank < 2 || v->s.rank > 3)
		return -1;
	s = v->s;
	w = of_shape(g, sc, &v->s);
	if (s.rank == 2) {
		s.d[1] = s.d[0];
		emit(g, sc, &s, "dot(%s, %s), lhs_contracting_dims={1}, "
		     "rhs_contracting_dims={1}", v->name, w);
	} else {
		s.d[2] = s.d[1];
		emit(g, sc, &s, "dot(%s, %s), lhs_batch_dims={0}, "
		     "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
		     "rhs_contracting_dims={2}", v->name, w);
	}
	return 0;
}

/* The reducers %add_T and %max_T, written once. */
static const char *
reducer(struct gen *g, int type, int max)
{
	static char name[32];
	int bit = 1 << (2 * type + max);

	snprintf(name, sizeof name, "%s_%s", max ? "max" : "add", tname[type]);
	if (!(g->reducers & bit)) {
		g->reducers |= bit;
		bput(&g->comps, "%%%s (a: %s[], b: %s[]) -> %s[] {\n"
		     "  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n"
		     "  ROOT r = %s[] %s(a, b)\n}\n\n", name, tname[type],
		     tname[type], tname[type], tname[type], tname[type],
		     tname[type], max ? "maximum" : "add");
	}
	return name;
}

static int
op_reduce(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	char list[32] = "", red[32];
	const char *init;
	struct gs s;
	struct val a;
	int max = chance(g, 30);

	if (!v || v->s.rank == 0)
		return -1;
	a = *v;
	s = scalar(a.s.type);
	init = constant(g, sc, a.s.type);
	for (int k = 0, n = 0; k < a.s.rank; k++) {
		if (chance(g, 50) || (k == a.s.rank - 1 && n == 0)) {
			sprintf(list + strlen(list), "%s%d", n++ ? "," : "", k);
			continue;
		}
		s.d[s.rank++] = a.s.d[k];
	}
	snprintf(red, sizeof red, "%s", reducer(g, a.s.type, max));
	emit(g, sc, &s, "reduce(%s, %s), dimensions={%s}, to_apply=%%%s",
	     a.name, init, list, red);
	return 0;
}

static int
op_iota(struct gen *g, struct scope *sc)
{
	struct gs s = random_shape(g, chance(g, 50) ? T_S32 : T_F32);

	emit(g, sc, &s, "iota(), iota_dimension=%d", pick(g, s.rank));
	return 0;
}

/* Start indices: the loop counter, a constant, or an s32 scalar. */
static void
indices(struct gen *g, struct scope *sc, int rank, char *list)
{
	list[0] = 0;
	for (int k = 0; k < rank; k++) {
		const char *x;

		if (sc->counter >= 0 && chance(g, 60))
			x = sc->v[sc->counter].name;
		else
			x = constant(g, sc, T_S32);
		sprintf(list + strlen(list), ", %s", x);
	}
}

static int
op_dynamic_slice(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32 | 1 << T_BF16);
	char idx[256], sizes[32] = "";
	struct val a;
	struct gs s;

	if (!v || v->s.rank == 0)
		return -1;
	a = *v;
	s = a.s;
	for (int k = 0; k < s.rank; k++) {
		s.d[k] = 1 + pick(g, s.d[k]);
		sprintf(sizes + strlen(sizes), "%s%d", k ? "," : "", s.d[k]);
	}
	indices(g, sc, s.rank, idx);
	emit(g, sc, &s, "dynamic-slice(%s%s), dynamic_slice_sizes={%s}",
	     a.name, idx, sizes);
	return 0;
}

static int
op_dus(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	char idx[256];
	struct val a;
	struct gs u;
	const char *upd;

	if (!v || v->s.rank == 0)
		return -1;
	a = *v;
	u = a.s;
	for (int k = 0; k < u.rank; k++)
		u.d[k] = 1 + pick(g, u.d[k]);
	upd = of_shape(g, sc, &u);
	indices(g, sc, u.rank, idx);
	emit(g, sc, &a.s, "dynamic-update-slice(%s, %s%s)", a.name, upd, idx);
	return 0;
}

/* A tuple of two or three arrays, and get-tuple-elements of it. */
static int
op_tuple(struct gen *g, struct scope *sc)
{
	struct val e[3];
	char tn[24], types[256] = "", ops[128] = "", sh[64];
	int n = 2 + pick(g, 2);

	for (int k = 0; k < n; k++) {
		const struct val *v = any(g, sc, 15);

		if (!v)
			return -1;
		e[k] = *v;
		sprintf(types + strlen(types), "%s%s", k ? ", " : "",
			shape_text(&v->s, sh));
		sprintf(ops + strlen(ops), "%s%s", k ? ", " : "", v->name);
	}
	snprintf(tn, sizeof tn, "t%d", ++g->id);
	bput(&sc->text, "  %s = (%s) tuple(%s)\n", tn, types, ops);
	sc->tail = -1;
	for (int k = 0; k < n; k++)
		if (chance(g, 70))
			emit(g, sc, &e[k].s, "get-tuple-element(%s), index=%d",
			     tn, k);
	return 0;
}

static void body_ops(struct gen *g, struct scope *sc, int n);

/* Runs the generator waiting for the next body (g->inject) in d. */
static void
run_inject(struct gen *g, struct scope *d)
{
	opfn *fn = g->inject;

	g->inject = NULL;
	if (fn)
		fn(g, d);
}

/* A parameter list "(p: shape)" and the callee's first lines. */
static void
begin_callee(struct gen *g, struct scope *d, const char *name,
	     const struct val *args, int n, int depth)
{
	char sh[64];

	memset(d, 0, sizeof *d);
	d->depth = depth;
	d->counter = -1;
	d->tail = -1;
	bput(&d->text, "%%%s {\n", name);
	for (int k = 0; k < n; k++) {
		struct val *p = &d->v[d->n++];

		snprintf(p->name, sizeof p->name, "p%d", ++g->id);
		p->s = args[k].s;
		bput(&d->text, "  %s = %s parameter(%d)\n", p->name,
		     shape_text(&p->s, sh), k);
	}
}

/* The callee's ROOT: an array of shape s, often its last instruction
 * (then without the ROOT mark, as XLA allows), or a copy (`fresh`);
 * the text goes to comps.  1 when the ROOT is not a copy. */
static int
end_callee(struct gen *g, struct scope *d, const struct gs *s, int fresh)
{
	const char *r = of_shape(g, d, s);
	char sh[64];
	int kept = 0;

	if (!fresh && d->tail >= 0 && r == d->v[d->tail].name &&
	    chance(g, 70)) {
		bput(&d->text, "}\n\n");
		kept = 1;
	} else {
		bput(&d->text, "  ROOT %s.r = %s copy(%s)\n}\n\n", r,
		     shape_text(s, sh), r);
	}
	bput(&g->comps, "%s", d->text.p);
	free(d->text.p);
	return kept;
}

static int
op_call(struct gen *g, struct scope *sc)
{
	struct val args[2];
	struct scope *d;
	char name[32];
	int n = 1 + pick(g, 2);
	struct gs r;

	if (sc->depth >= MAXDEPTH)
		return -1;
	for (int k = 0; k < n; k++) {
		const struct val *v = any(g, sc, 15);

		if (!v)
			return -1;
		args[k] = *v;
	}
	r = args[pick(g, n)].s;
	snprintf(name, sizeof name, "callee%d", ++g->id);
	d = calloc(1, sizeof *d);
	begin_callee(g, d, name, args, n, sc->depth + 1);
	body_ops(g, d, 2 + pick(g, 4));
	end_callee(g, d, &r, 0);
	free(d);
	for (int sites = 1 + chance(g, 30); sites > 0; sites--)
		emit(g, sc, &r, "call(%s%s%s), to_apply=%%%s", args[0].name,
		     n > 1 ? ", " : "", n > 1 ? args[1].name : "", name);
	return 0;
}

/* A loop fusion: elementwise ops of one or two arrays of one shape, in a
 * computation that gets no buffers (it runs as one kernel). */
static int
op_fusion(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	struct val args[2];
	struct scope *d;
	char name[32];
	int n = 1 + chance(g, 50);

	if (!v)
		return -1;
	args[0] = *v;
	args[1] = *v;
	snprintf(args[1].name, sizeof args[1].name, "%s",
		 of_shape(g, sc, &v->s));
	snprintf(name, sizeof name, "fused%d", ++g->id);
	d = calloc(1, sizeof *d);
	begin_callee(g, d, name, args, n, MAXDEPTH);
	for (int k = 0, m = 1 + pick(g, 3); k < m; k++)
		if (chance(g, 50))
			op_unary(g, d);
		else
			op_binary(g, d);
	end_callee(g, d, &args[0].s, 0);
	free(d);
	emit(g, sc, &args[0].s, "fusion(%s%s%s), kind=kLoop, calls=%%%s",
	     args[0].name, n > 1 ? ", " : "", n > 1 ? args[1].name : "",
	     name);
	return 0;
}

/* A conditional on a predicate (two branches) or an s32 index (three). */
static int
op_conditional(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 15);
	struct val a;
	char names[3][32], pv[24], list[128] = "";
	int nb = chance(g, 40) ? 3 : 2;
	const struct val *x = any(g, sc, 1 << T_F32);
	struct gs ps = scalar(nb == 3 ? T_S32 : T_PRED);

	if (!v || !x || sc->depth >= MAXDEPTH)
		return -1;
	a = *v;
	snprintf(pv, sizeof pv, "%s", nb == 3 ? constant(g, sc, T_S32) :
		 emit(g, sc, &ps, "constant(%s)", chance(g, 50) ? "true" :
		      "false"));
	for (int b = 0; b < nb; b++) {
		struct scope *d = calloc(1, sizeof *d);

		snprintf(names[b], sizeof names[b], "branch%d", ++g->id);
		begin_callee(g, d, names[b], &a, 1, sc->depth + 1);
		run_inject(g, d);
		body_ops(g, d, 1 + pick(g, 4));
		if (end_callee(g, d, &a.s, avoids(g, F_BRANCH)))
			tag(g, F_BRANCH);
		free(d);
		sprintf(list + strlen(list), "%s%%%s", b ? ", " : "", names[b]);
	}
	if (nb == 2)
		emit(g, sc, &a.s, "conditional(%s, %s, %s), true_computation="
		     "%%%s, false_computation=%%%s", pv, a.name, a.name,
		     names[0], names[1]);
	else
		emit(g, sc, &a.s, "conditional(%s, %s, %s, %s), "
		     "branch_computations={%s}", pv, a.name, a.name, a.name,
		     list);
	return 0;
}

/* ---- while loops -------------------------------------------------------- */

struct loop;
typedef void nextfn(struct gen *g, struct scope *d, const struct loop *L,
		    int first, char (*names)[24]);

struct loop {
	struct val st[4];	/* the carried arrays (names: the init) */
	int n;
	char tuple[256];	/* the state's tuple shape */
	int trips;
	nextfn *next;		/* makes the body's next state */
	int kind;		/* a choice of next's */
};

static void
loop_cond(struct gen *g, const struct loop *L, const char *name)
{
	bput(&g->comps, "%%%s (s: %s) -> pred[] {\n  s = %s parameter(0)\n"
	     "  i = s32[] get-tuple-element(s), index=0\n"
	     "  n = s32[] constant(%d)\n"
	     "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n", name,
	     L->tuple, L->tuple, L->trips);
}

/* The opcode that made the array named r ("" for a parameter). */
static const char *
made_by(const struct scope *sc, const char *r)
{
	for (int k = 0; k < sc->n; k++)
		if (!strcmp(sc->v[k].name, r))
			return sc->v[k].op;
	return "";
}

/* State element k's next value (shape s) in body d: as drawn, maybe a
 * dynamic-update-slice at the counter; avoiding its families, a copy
 * when it is read in the body, is another element, or moves one. */
static const char *
next_state(struct gen *g, struct scope *d, const struct loop *L, int k,
	   int first, char (*names)[24])
{
	const struct gs *s = &L->st[k].s;
	int used = d->v[first + k].used;
	const char *r = chance(g, 20) ? d->v[first + k].name :
			pick_shape(g, d, s, &used);

	if (chance(g, 25) && s->rank > 0) {
		struct gs u = *s;
		char idx[256];

		u.d[0] = 1;
		indices(g, d, s->rank, idx);
		r = emit(g, d, s, "dynamic-update-slice(%s, %s%s)",
			 d->v[first + k].name, of_shape(g, d, &u), idx);
		used = 0;
	}
	for (int j = 0; j < k; j++)	/* twice in the ROOT */
		used |= !strcmp(names[j], r);
	for (int j = 0; j < L->n; j++)	/* a rotation */
		used |= j != k && r == d->v[first + j].name;
	used |= r != d->v[first + k].name &&
		(!strcmp(made_by(d, r), "get-tuple-element") ||
		 !strcmp(made_by(d, r), "bitcast") ||
		 !strcmp(made_by(d, r), "dynamic-slice"));
	if (used && !makes(g, F_ROOT)) {
		struct val rv = {.s = *s};

		snprintf(rv.name, sizeof rv.name, "%s", r);
		r = private_copy(g, d, &rv);
	}
	snprintf(names[k], sizeof names[k], "%s", r);
	return names[k];
}

/* The random body's next state: ops, then each element as drawn
 * (next_state). */
static void
random_next(struct gen *g, struct scope *d, const struct loop *L, int first,
	    char (*names)[24])
{
	body_ops(g, d, 2 + pick(g, 6));
	for (int k = 0; k < L->n; k++)
		next_state(g, d, L, k, first, names);
}

/* The body: the counter and state elements as get-tuple-elements, a
 * generator's pattern when one is waiting (g->inject), the next state
 * as L->next makes it, the counter plus one. */
static void
loop_body(struct gen *g, const struct loop *L, const char *name, int depth)
{
	struct scope *d = calloc(1, sizeof *d);
	char root[256] = "", names[4][24];
	int first;

	d->depth = depth;
	bput(&d->text, "%%%s {\n  s = %s parameter(0)\n", name, L->tuple);
	d->counter = d->n;
	emit(g, d, &(struct gs){T_S32, 0, {0}}, "get-tuple-element(s), "
	     "index=0");
	first = d->n;
	d->nstate = L->n;
	for (int k = 0; k < L->n; k++)
		emit(g, d, &L->st[k].s, "get-tuple-element(s), index=%d",
		     k + 1);
	run_inject(g, d);
	L->next(g, d, L, first, names);
	bput(&d->text, "  one = s32[] constant(1)\n"
	     "  i1 = s32[] add(%s, one)\n", d->v[d->counter].name);
	d->v[d->counter].used = 1;
	for (int k = 0; k < L->n; k++)
		sprintf(root + strlen(root), ", %s", names[k]);
	bput(&d->text, "  ROOT t = %s tuple(i1%s)\n}\n\n", L->tuple, root);
	bput(&g->comps, "%s", d->text.p);
	free(d->text.p);
	free(d);
}

/* Loop L over the init arrays L->st (their names), its cond and body
 * written; the state's elements read after it, each with chance
 * `percent`; the while's name. */
static const char *
write_loop(struct gen *g, struct scope *sc, struct loop *L, int percent,
	   char *tn)
{
	char cond[32], body[32], sh[64];
	const char *zero;

	sprintf(L->tuple, "(s32[]");
	for (int k = 0; k < L->n; k++)
		sprintf(L->tuple + strlen(L->tuple), ", %s",
			shape_text(&L->st[k].s, sh));
	strcat(L->tuple, ")");
	snprintf(cond, sizeof cond, "cond%d", ++g->id);
	snprintf(body, sizeof body, "body%d", ++g->id);
	loop_cond(g, L, cond);
	loop_body(g, L, body, sc->depth + 1);
	zero = emit(g, sc, &(struct gs){T_S32, 0, {0}}, "constant(%d)",
		    pick(g, 2));
	snprintf(tn, 24, "w%d", ++g->id);
	bput(&sc->text, "  %s.init = %s tuple(%s", tn, L->tuple, zero);
	for (int k = 0; k < L->n; k++)
		bput(&sc->text, ", %s", L->st[k].name);
	bput(&sc->text, ")\n  %s = %s while(%s.init), condition=%%%s, "
	     "body=%%%s\n", tn, L->tuple, tn, cond, body);
	sc->tail = -1;
	for (int k = 0; k < L->n; k++)
		if (chance(g, percent))
			emit(g, sc, &L->st[k].s, "get-tuple-element(%s), "
			     "index=%d", tn, k + 1);
	return tn;
}

/* An array for a loop's init tuple: itself, which may be in several
 * loops' state or read elsewhere too (tagged when seen so far), or a
 * copy that only the loop reads. */
static const char *
shared_init(struct gen *g, struct scope *sc, const struct val *v)
{
	struct val *w = (struct val *)v;

	if (avoids(g, F_INIT))
		return private_copy(g, sc, w);
	if (g->was_used || w->inits)
		tag(g, F_INIT);
	w->inits++;
	return w->name;
}

static int
op_while(struct gen *g, struct scope *sc)
{
	struct loop L = {.n = 1 + pick(g, 3), .trips = 1 + pick(g, 4),
			 .next = random_next};
	char tn[24];

	if (sc->depth >= MAXDEPTH)
		return -1;
	for (int k = 0; k < L.n; k++) {
		const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);

		if (!v)
			return -1;
		L.st[k] = *v;
		snprintf(L.st[k].name, sizeof L.st[k].name, "%s",
			 shared_init(g, sc, v));
	}
	write_loop(g, sc, &L, 80, tn);
	return 0;
}

/* An entry output asked for by a generator: value v of the entry, maybe
 * aliasing parameter p. */
static void
force_out(struct gen *g, struct scope *sc, int v, int p, int must)
{
	struct out *o = &g->outs[g->nout < MAXOUT ? g->nout++ : MAXOUT - 1];

	o->v = v;
	o->param = p;
	o->must = must;
	sc->v[v].used = 1;
	if (p >= 0)
		g->aliased |= 1 << p;
}

/* ---- input_output_alias of non-elementwise outputs ------------------- */

/* Operand of x's shape for a binary op: one of the scope's, or fresh. */
static const char *
other(struct gen *g, struct scope *sc, const struct val *x)
{
	return of_shape(g, sc, &x->s);
}

/* Slice of [a, b) on dimension 0 and all of the others, as text. */
static void
slice_dim0(const struct gs *s, int a, int b, char *list)
{
	sprintf(list, "[%d:%d]", a, b);
	for (int k = 1; k < s->rank; k++)
		sprintf(list + strlen(list), ", [0:%d]", s->d[k]);
}

/* slice(concatenate(x, o) or (o, x)) back to x's shape. */
static void
slice_of_concat(struct gen *g, struct scope *sc, const struct val *x)
{
	const char *o = other(g, sc, x), *c;
	struct gs b = x->s;
	int at = chance(g, 50);
	char list[128];

	b.d[0] *= 2;
	c = emit(g, sc, &b, "concatenate(%s, %s), dimensions={0}",
		 at ? o : x->name, at ? x->name : o);
	slice_dim0(&x->s, at * x->s.d[0], (at + 1) * x->s.d[0], list);
	emit(g, sc, &x->s, "slice(%s), slice={%s}", c, list);
}

/* reduce(broadcast(x) to [2, ...]) over dimension 0. */
static void
reduce_of_broadcast(struct gen *g, struct scope *sc, const struct val *x)
{
	const char *init = constant(g, sc, x->s.type), *c;
	struct gs b = x->s;
	char red[32];

	b.rank = x->s.rank + 1;
	b.d[0] = 2;
	for (int j = 0; j < x->s.rank; j++)
		b.d[j + 1] = x->s.d[j];
	c = emit(g, sc, &b, "broadcast(%s), dimensions={%s}", x->name,
		 x->s.rank == 1 ? "1" : "1,2");
	snprintf(red, sizeof red, "%s", reducer(g, x->s.type, 0));
	emit(g, sc, &x->s, "reduce(%s, %s), dimensions={0}, to_apply=%%%s",
	     c, init, red);
}

/* A non-elementwise op of x's shape reading x (a slice of a concatenate,
 * a reduce of a broadcast, a dot, a transpose, a dynamic-update-slice, a
 * reverse); its index in the scope. */
static int
reading_op(struct gen *g, struct scope *sc, const struct val *x)
{
	const struct val xv = *x;
	const struct gs *s = &xv.s;
	int r = s->rank, k = pick(g, 6), num = s->type == T_F32 ||
					      s->type == T_S32;
	char idx[256];

	if (k == 0 && r >= 2 && s->d[r - 1] == s->d[r - 2]) {
		emit(g, sc, s, "transpose(%s), dimensions={%s}", xv.name,
		     r == 2 ? "1,0" : "0,2,1");
	} else if (k == 1 && s->type == T_F32 && r == 2 &&
		   s->d[0] == s->d[1]) {
		emit(g, sc, s, "dot(%s, %s), lhs_contracting_dims={1}, "
		     "rhs_contracting_dims={0}", xv.name, other(g, sc, &xv));
	} else if (k == 2) {
		slice_of_concat(g, sc, &xv);
	} else if (k == 3 && r < 3 && num) {
		reduce_of_broadcast(g, sc, &xv);
	} else if (k == 4 && num) {
		indices(g, sc, r, idx);
		emit(g, sc, s, "dynamic-update-slice(%s, %s%s)", xv.name,
		     fresh(g, sc, &(struct gs){s->type, r, {1, 1, 1, 1}}),
		     idx);
	} else {
		emit(g, sc, s, "reverse(%s), dimensions={0}", xv.name);
	}
	return sc->tail;
}

/* An entry output that aliases parameter p and is a non-elementwise op
 * reading p; sometimes also read by a later op, or output twice. */
static int
alias_reading(struct gen *g, struct scope *sc, int p)
{
	int v = reading_op(g, sc, &sc->v[p]);
	const struct val w = sc->v[v];

	force_out(g, sc, v, p, chance(g, 50));
	if (chance(g, 30))
		emit(g, sc, &w.s, "negate(%s)", w.name);
	else if (chance(g, 20))
		emit(g, sc, &w.s, "add(%s, %s)", w.name, sc->v[p].name);
	else if (chance(g, 20))
		force_out(g, sc, v, -1, 0);
	return 0;
}

/* f(x) for a swapped output: x itself, or an op of it. */
static int
swap_source(struct gen *g, struct scope *sc, int x)
{
	const struct val v = sc->v[x];

	switch (pick(g, 4)) {
	case 0: return x;
	case 1: emit(g, sc, &v.s, "copy(%s)", v.name); break;
	case 2: emit(g, sc, &v.s, "reverse(%s), dimensions={0}", v.name);
		break;
	default:
		if (v.s.type == T_PRED)
			return x;
		emit(g, sc, &v.s, "negate(%s)", v.name);
		break;
	}
	return sc->tail;
}

/* Outputs p' = f(x_q) aliasing p and q' = f(x_p) aliasing q. */
static int
alias_swap(struct gen *g, struct scope *sc, int p, int q)
{
	int a = swap_source(g, sc, q), b = swap_source(g, sc, p);

	force_out(g, sc, a, p, chance(g, 60));
	force_out(g, sc, b, q, chance(g, 60));
	return 0;
}

/* input_output_alias of non-elementwise entry outputs (F_ALIAS), or of
 * two parameters' outputs swapped (F_ALIAS_SWAP). */
static int
op_io_alias(struct gen *g, struct scope *sc)
{
	int open[8], n = 0;

	if (sc->depth > 0 || g->nout + 2 > MAXOUT)
		return -1;
	for (int p = 0; p < g->nparam; p++)
		if (!(g->aliased >> p & 1))
			open[n++] = p;
	if (n == 0)
		return -1;
	for (int j = 0; j < n; j++)
		for (int k = j + 1; k < n; k++)
			if (same_shape(&sc->v[open[j]].s, &sc->v[open[k]].s) &&
			    chance(g, 70) && makes(g, F_ALIAS_SWAP))
				return alias_swap(g, sc, open[j], open[k]);
	if (!makes(g, F_ALIAS))
		return -1;
	return alias_reading(g, sc, open[pick(g, n)]);
}

/* ---- conditionals whose branches take operands of their own ---------- */

static const char *
tuple_text(const struct gs *e, int n, char *buf)
{
	char sh[64];
	int k = sprintf(buf, "(");

	for (int j = 0; j < n; j++)
		k += sprintf(buf + k, "%s%s", j ? ", " : "",
			     shape_text(&e[j], sh));
	sprintf(buf + k, ")");
	return buf;
}

/* A tuple of arrays a[0..n) in scope sc (not an array of the scope). */
static const char *
make_tuple(struct gen *g, struct scope *sc, const struct val *a, int n,
	   char *name)
{
	struct gs e[4];
	char types[256], ops[128] = "";

	for (int k = 0; k < n; k++) {
		e[k] = a[k].s;
		sprintf(ops + strlen(ops), "%s%s", k ? ", " : "", a[k].name);
	}
	sprintf(name, "t%d", ++g->id);
	bput(&sc->text, "  %s = %s tuple(%s)\n", name, tuple_text(e, n, types),
	     ops);
	sc->tail = -1;
	return name;
}

/* The branch index: a pred for two branches, an s32 for more. */
static const char *
branch_index(struct gen *g, struct scope *sc, int nb, char *name)
{
	struct gs ps = scalar(T_PRED);

	snprintf(name, 24, "%s", nb > 2 ? constant(g, sc, T_S32) :
		 emit(g, sc, &ps, "constant(%s)", chance(g, 50) ? "true" :
		      "false"));
	return name;
}

/* The conditional's line: result `shape`, operands ops[0..nb). */
static void
conditional_line(struct scope *sc, const char *name, const char *shape,
		 const char *pv, char (*ops)[24], char (*br)[32], int nb)
{
	bput(&sc->text, "  %s = %s conditional(%s", name, shape, pv);
	for (int b = 0; b < nb; b++)
		bput(&sc->text, ", %s", ops[b]);
	if (nb == 2) {
		bput(&sc->text, "), true_computation=%%%s, false_computation="
		     "%%%s\n", br[0], br[1]);
		return;
	}
	bput(&sc->text, "), branch_computations={");
	for (int b = 0; b < nb; b++)
		bput(&sc->text, "%s%%%s", b ? ", " : "", br[b]);
	bput(&sc->text, "}\n");
}

/* A branch returning its parameter (of `shape`) unchanged. */
static void
identity_branch(struct gen *g, const char *name, const char *shape)
{
	bput(&g->comps, "%%%s {\n  ROOT p = %s parameter(0)\n}\n\n", name,
	     shape);
}

/* A branch taking the tuple e[0..n) and returning element k. */
static void
part_branch(struct gen *g, const char *name, const struct gs *e, int n,
	    int k)
{
	char tt[256], sh[64];

	bput(&g->comps, "%%%s {\n  p = %s parameter(0)\n  ROOT e = %s "
	     "get-tuple-element(p), index=%d\n}\n\n", name,
	     tuple_text(e, n, tt), shape_text(&e[k], sh), k);
}

/* A branch computing an array of shape r from its parameter: an array
 * (n = 0, shape e[0]) or the tuple e[0..n), whose elements it reads. */
static void
computed_branch(struct gen *g, const char *name, const struct gs *e, int n,
		const struct gs *r, int depth)
{
	struct scope *d = calloc(1, sizeof *d);
	struct val a = {.s = e[0]};
	char tt[256];

	begin_callee(g, d, name, &a, !n, depth);
	if (n) {
		bput(&d->text, "  p = %s parameter(0)\n", tuple_text(e, n, tt));
		for (int k = 0; k < n; k++)
			emit(g, d, &e[k], "get-tuple-element(p), index=%d", k);
	}
	body_ops(g, d, 1 + pick(g, 3));
	if (end_callee(g, d, r, avoids(g, F_BRANCH)))
		tag(g, F_BRANCH);
	free(d);
}

/* Two arrays of one shape, distinct when the scope has them: at the top,
 * often two entry parameters. */
static int
two_of_shape(struct gen *g, struct scope *sc, struct val *a, struct val *b)
{
	const struct val *v = any(g, sc, 15);

	if (!v)
		return -1;
	*a = *v;
	for (int k = 0; k < sc->n; k++)
		if (sc->depth == 0 && k < g->nparam && chance(g, 40) &&
		    k != (int)(v - sc->v) && same_shape(&sc->v[k].s, &a->s)) {
			*b = sc->v[k];
			return 0;
		}
	*b = *a;
	snprintf(b->name, sizeof b->name, "%s", of_shape(g, sc, &a->s));
	return 0;
}

/* conditional(p, a, b) whose two branches return their operands. */
static int
branch_pair(struct gen *g, struct scope *sc)
{
	char ops[2][24], br[2][32], pv[24], sh[64], name[24];
	struct val a, b;

	if (two_of_shape(g, sc, &a, &b) < 0)
		return -1;
	snprintf(ops[0], 24, "%s", a.name);
	snprintf(ops[1], 24, "%s", b.name);
	shape_text(&a.s, sh);
	for (int k = 0; k < 2; k++) {
		snprintf(br[k], 32, "branch%d", ++g->id);
		identity_branch(g, br[k], sh);
	}
	branch_index(g, sc, 2, pv);
	conditional_line(sc, new_val(g, sc, &a.s, "conditional", name), sh,
			 pv, ops, br, 2);
	return 0;
}

/* Branch b's operand for a result of shape r: an array of shape r, or a
 * tuple holding one (e[0..*n), its index *k); its name goes to op. */
static void
branch_operand(struct gen *g, struct scope *sc, const struct gs *r,
	       struct gs *e, int *n, int *k, char *op)
{
	struct val t[2];
	const struct val *o = any(g, sc, 15);

	*n = 0;
	*k = 0;
	snprintf(t[0].name, 24, "%s", of_shape(g, sc, r));
	t[0].s = *r;
	e[0] = *r;
	if (!o || chance(g, 40)) {
		snprintf(op, 24, "%s", t[0].name);
		return;
	}
	t[1] = *o;
	*k = pick(g, 2);
	if (*k)
		t[1] = t[0], t[0] = *o;
	*n = 2;
	e[0] = t[0].s;
	e[1] = t[1].s;
	make_tuple(g, sc, t, 2, op);
}

/* A conditional of 2 or 3 branches, each taking an operand of its own
 * (an array, or a tuple) and returning it, a part of it, or something
 * computed; an array operand is sometimes read again after. */
static int
branch_ops(struct gen *g, struct scope *sc)
{
	char ops[3][24], br[3][32], pv[24], sh[64], name[24];
	int nb = chance(g, 40) ? 3 : 2, n[3], k;
	const struct val *v = any(g, sc, 15);
	/* e: each branch's operand, filled by branch_operand; zeroed, as
	 * gcc -O3 cannot see that part_branch reads only what it filled. */
	struct gs r, e[2] = {{0}};

	if (!v)
		return -1;
	r = v->s;
	for (int b = 0; b < nb; b++) {
		branch_operand(g, sc, &r, e, &n[b], &k, ops[b]);
		snprintf(br[b], 32, "branch%d", ++g->id);
		if (!n[b] && chance(g, 40) && makes(g, F_BRANCH))
			identity_branch(g, br[b], shape_text(&r, sh));
		else if (n[b] && chance(g, 60))
			part_branch(g, br[b], e, n[b], k);
		else
			computed_branch(g, br[b], e, n[b], &r, sc->depth + 1);
	}
	branch_index(g, sc, nb, pv);
	conditional_line(sc, new_val(g, sc, &r, "conditional", name),
			 shape_text(&r, sh), pv, ops, br, nb);
	k = pick(g, nb);
	if (chance(g, 30) && !n[k])
		emit(g, sc, &r, "copy(%s)", ops[k]);
	return 0;
}

/* A branch over a pair (tuple tt of two arrays of shape sh): 0 returns
 * it unchanged, 1 rebuilt, 2 with its elements swapped. */
static void
pair_branch(struct gen *g, const char *name, const char *tt, const char *sh,
	    int mode)
{
	if (mode == 0) {
		identity_branch(g, name, tt);
		return;
	}
	bput(&g->comps, "%%%s {\n  p = %s parameter(0)\n"
	     "  a = %s get-tuple-element(p), index=0\n"
	     "  b = %s get-tuple-element(p), index=1\n"
	     "  ROOT t = %s tuple(%s)\n}\n\n", name, tt, sh, sh, tt,
	     mode == 1 ? "a, b" : "b, a");
}

/* A conditional over pairs (x, y) of one shape, the same pair for both
 * branches or (y, x) for one: one branch returns its pair as it is, the
 * other swapped. */
static int
branch_swap(struct gen *g, struct scope *sc)
{
	struct val a[2], t[2];
	struct gs e[2];
	char ops[2][24], br[2][32], pv[24], tt[256], name[24], sh[64];
	int swapper = pick(g, 2);

	if (two_of_shape(g, sc, &a[0], &a[1]) < 0)
		return -1;
	e[0] = e[1] = a[0].s;
	tuple_text(e, 2, tt);
	shape_text(&e[0], sh);
	make_tuple(g, sc, a, 2, ops[0]);
	t[0] = a[1];
	t[1] = a[0];
	if (chance(g, 50))
		make_tuple(g, sc, t, 2, ops[1]);
	else
		strcpy(ops[1], ops[0]);
	for (int b = 0; b < 2; b++) {
		snprintf(br[b], 32, "branch%d", ++g->id);
		pair_branch(g, br[b], tt, sh, b == swapper ? 2 : pick(g, 2));
	}
	branch_index(g, sc, 2, pv);
	snprintf(name, sizeof name, "c%d", ++g->id);
	conditional_line(sc, name, tt, pv, ops, br, 2);
	sc->tail = -1;
	for (int k = 0; k < 2; k++)
		emit(g, sc, &e[k], "get-tuple-element(%s), index=%d", name, k);
	return 0;
}

/* Conditionals whose branches take operands of their own (F_BRANCH_OPS),
 * return their two operands (F_BRANCH_PAIR) or swap a pair
 * (F_BRANCH_SWAP). */
static int
op_branches(struct gen *g, struct scope *sc)
{
	int k = pick(g, 3);

	if (sc->depth >= MAXDEPTH)
		return -1;
	if (k == 0 && makes(g, F_BRANCH_PAIR))
		return branch_pair(g, sc);
	if (k == 1 && makes(g, F_BRANCH_SWAP))
		return branch_swap(g, sc);
	if (k == 2 && makes(g, F_BRANCH_OPS))
		return branch_ops(g, sc);
	return -1;
}

/* ---- async pairs -------------------------------------------------------- */

/* The operand of an async pair: an array of the scope, or one made just
 * before (so that it dies at the start, unless read after the done). */
static struct val
async_operand(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	struct val x = {.s = {T_F32, 1, {4}}};

	if (!v)
		snprintf(x.name, sizeof x.name, "%s", fresh(g, sc, &x.s));
	else
		x = *v;
	if (chance(g, 50)) {
		snprintf(x.name, sizeof x.name, "%s", emit(g, sc, &x.s,
			 "negate(%s)", x.name));
		sc->v[sc->tail].used = 1;
	}
	return x;
}

/* Work between a start and its done: arrays of the operand's shape that
 * could take its storage, and a few random ops. */
static void
async_work(struct gen *g, struct scope *sc, const struct val *x)
{
	for (int k = 0, n = 1 + pick(g, 3); k < n; k++)
		if (chance(g, 50))
			emit(g, sc, &x->s, "add(%s, %s)",
			     of_shape(g, sc, &x->s), of_shape(g, sc, &x->s));
		else
			fresh(g, sc, &x->s);
	body_ops(g, sc, pick(g, 3));
}

/* The start's line, for a collective or async-start of kind k. */
static void
collective_start(struct gen *g, struct scope *sc, int k, const struct val *x,
		 const char *name)
{
	char sh[64], callee[32];

	shape_text(&x->s, sh);
	switch (k) {
	case 0:
		bput(&sc->text, "  %s = %s all-reduce-start(%s), "
		     "replica_groups={{0}}, to_apply=%%%s\n", name, sh, x->name,
		     reducer(g, x->s.type, chance(g, 30)));
		break;
	case 1:
		bput(&sc->text, "  %s = (%s, %s) all-gather-start(%s), "
		     "replica_groups={{0}}, dimensions={0}\n", name, sh, sh,
		     x->name);
		break;
	case 2:
		bput(&sc->text, "  %s = (%s, %s, u32[], u32[]) "
		     "collective-permute-start(%s), source_target_pairs="
		     "{{0,0}}\n", name, sh, sh, x->name);
		break;
	default:
		snprintf(callee, sizeof callee, "async%d", ++g->id);
		bput(&g->comps, "%%%s {\n  p = %s parameter(0)\n  ROOT r = %s "
		     "negate(p)\n}\n\n", callee, sh, sh);
		bput(&sc->text, "  %s = ((%s), %s, s32[]) async-start(%s), "
		     "calls=%%%s\n", name, sh, sh, x->name, callee);
		break;
	}
}

/* copy-start/copy-done (F_COPY_START), or an async collective with one
 * participant or an async-start (F_COLLECTIVE), around other work; the
 * operand is sometimes read after the done. */
static int
op_async(struct gen *g, struct scope *sc)
{
	static const char *const dones[] = {
		"all-reduce-done", "all-gather-done",
		"collective-permute-done", "async-done", "copy-done",
	};
	int k = chance(g, 60) ? pick(g, 4) : 4;
	char name[24], sh[64];
	struct val x;

	if (!makes(g, k == 4 ? F_COPY_START : F_COLLECTIVE))
		return -1;
	x = async_operand(g, sc);
	snprintf(name, sizeof name, "s%d", ++g->id);
	if (k == 4)
		bput(&sc->text, "  %s = (%s, %s, u32[]) copy-start(%s)\n", name,
		     shape_text(&x.s, sh), sh, x.name);
	else
		collective_start(g, sc, k, &x, name);
	sc->tail = -1;
	async_work(g, sc, &x);
	emit(g, sc, &x.s, "%s(%s)", dones[k], name);
	if (chance(g, 25))
		emit(g, sc, &x.s, "copy(%s)", x.name);
	g->scheduled |= chance(g, 30);
	return 0;
}

/* ---- loops: in-place fusions, rotations, shared inits, fetches ------- */

/* A state array of the loop body sc (of a type in mask), or NULL. */
static const struct val *
state_elem(struct gen *g, struct scope *sc, int mask)
{
	struct val *v;

	if (sc->counter < 0 || !sc->nstate)
		return NULL;
	v = &sc->v[sc->counter + 1 + pick(g, sc->nstate)];
	if (!(mask >> v->s.type & 1) || v->s.rank == 0)
		return NULL;
	v->used = 1;
	return v;
}

/* The array of the scope named `name`. */
static struct val *
find_val(struct scope *sc, const char *name)
{
	for (int k = sc->n - 1; k >= 0; k--)
		if (!strcmp(sc->v[k].name, name))
			return &sc->v[k];
	return NULL;
}

/* An index computed at run time, or the counter in a loop body. */
static const char *
run_time_index(struct gen *g, struct scope *sc)
{
	const char *a, *b;

	if (sc->counter >= 0 && chance(g, 80))
		return sc->v[sc->counter].name;
	a = constant(g, sc, T_S32);
	b = constant(g, sc, T_S32);
	return emit(g, sc, &(struct gs){T_S32, 0, {0}}, "add(%s, %s)", a, b);
}

/* ", z, z" (z: the s32 zero's name) for the dimensions after the first;
 * the sizes of shape u. */
static void
dims_after_first(const struct gs *u, const char *z, char *zs, char *sizes)
{
	zs[0] = 0;
	sprintf(sizes, "%d", u->d[0]);
	for (int k = 1; k < u->rank; k++) {
		sprintf(zs + strlen(zs), ", %s", z);
		sprintf(sizes + strlen(sizes), ",%d", u->d[k]);
	}
}

/* An s32 zero of the scope, for indices. */
static const char *
zero(struct gen *g, struct scope *sc, char *name)
{
	snprintf(name, 24, "%s", emit(g, sc, &(struct gs){T_S32, 0, {0}},
				      "constant(0)"));
	return name;
}

/* %name (p0: S, p1: U, p2: s32[]) whose ROOT is dynamic-update-slice(p0,
 * u, p2, 0...): u is f(p1), or p0's own slice there plus p1 (read,
 * modify, write back). */
static void
dus_fused(struct gen *g, const char *name, const struct gs *s,
	  const struct gs *u)
{
	char ss[64], us[64], zs[32], sizes[32];

	dims_after_first(u, "z", zs, sizes);
	bput(&g->comps, "%%%s {\n  p0 = %s parameter(0)\n  p1 = %s "
	     "parameter(1)\n  p2 = s32[] parameter(2)\n  z = s32[] "
	     "constant(0)\n", name, shape_text(s, ss), shape_text(u, us));
	if (chance(g, 40))
		bput(&g->comps, "  q = %s dynamic-slice(p0, p2%s), "
		     "dynamic_slice_sizes={%s}\n  u = %s add(q, p1)\n", us, zs,
		     sizes, us);
	else
		bput(&g->comps, "  u = %s negate(p1)\n", us);
	bput(&g->comps, "  ROOT d = %s dynamic-update-slice(p0, u, p2%s)\n}"
	     "\n\n", ss, zs);
}

/* %name (p0: S, p1: U, p2: s32[1,1]): ROOT scatter(p0, p2, f(p1))
 * adding the update U (S with 1 on dimension 0) at row p2. */
static void
scatter_fused(struct gen *g, const char *name, const struct gs *s,
	      const struct gs *u)
{
	char ss[64], us[64], win[16] = "";
	char red[32];

	snprintf(red, sizeof red, "%s", reducer(g, s->type, 0));
	for (int k = 1; k < s->rank; k++)
		sprintf(win + strlen(win), "%s%d", k > 1 ? "," : "", k);
	shape_text(s, ss);
	bput(&g->comps, "%%%s {\n  p0 = %s parameter(0)\n  p1 = %s "
	     "parameter(1)\n  p2 = s32[1,1] parameter(2)\n  q = %s "
	     "negate(p1)\n"
	     "  ROOT d = %s scatter(p0, p2, q), update_window_dims={%s}, "
	     "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
	     "index_vector_dim=1, to_apply=%%%s\n}\n\n", name, ss,
	     shape_text(u, us), us, ss, win, red);
}

/* A loop fusion whose ROOT updates its parameter 0 in place at an index
 * (dynamic-update-slice or scatter; in a loop body the counter, the
 * operand often the state); the operand is sometimes read after. */
static int
dus_fusion(struct gen *g, struct scope *sc)
{
	int mask = 1 << T_F32 | 1 << T_S32, scatter = chance(g, 35);
	const struct val *v = state_elem(g, sc, mask);
	char name[32], upd[24], idx[24];
	const char *r;
	struct val x;
	struct gs u;

	if (!v || chance(g, 20))
		v = any(g, sc, mask);
	if (!v || v->s.rank == 0)
		return -1;
	x = *v;
	u = x.s;
	u.d[0] = scatter ? 1 : 1 + pick(g, u.d[0]);
	snprintf(upd, sizeof upd, "%s", of_shape(g, sc, &u));
	snprintf(idx, sizeof idx, "%s", run_time_index(g, sc));
	snprintf(name, sizeof name, "fused%d", ++g->id);
	if (scatter) {
		snprintf(idx, sizeof idx, "%s", emit(g, sc, &(struct gs){T_S32,
			 2, {1, 1}}, "reshape(%s)", idx));
		scatter_fused(g, name, &x.s, &u);
	} else {
		dus_fused(g, name, &x.s, &u);
	}
	r = emit(g, sc, &x.s, "fusion(%s, %s, %s), kind=kLoop, calls=%%%s",
		 x.name, upd, idx, name);
	if (chance(g, 50))
		emit(g, sc, &x.s, "add(%s, %s)", x.name, r);
	return 0;
}

/* Runs generator fn in the body of a new random loop; -1 if none. */
static int
in_loop(struct gen *g, struct scope *sc, opfn *fn)
{
	if (sc->depth >= MAXDEPTH)
		return -1;
	g->inject = fn;
	if (op_while(g, sc) == 0 && !g->inject)
		return 0;
	g->inject = NULL;
	return -1;
}

/* F_DUS_FUSION: in a new loop's body, or here. */
static int
op_dus_fusion(struct gen *g, struct scope *sc)
{
	if (!makes(g, F_DUS_FUSION))
		return -1;
	if (sc->counter < 0 && chance(g, 40) && in_loop(g, sc, dus_fusion) == 0)
		return 0;
	return dus_fusion(g, sc);
}

/* x updated in place at the counter: dynamic-update-slice(x, u, i...)
 * where u is a slice of y at the counter. */
static const char *
update_at_counter(struct gen *g, struct scope *d, const struct val *x,
		  const struct val *y)
{
	struct gs u = x->s;
	char idx[256], sizes[32], zs[32], un[24];

	u.d[0] = 1;
	dims_after_first(&u, "", zs, sizes);
	indices(g, d, u.rank, idx);
	snprintf(un, sizeof un, "%s", emit(g, d, &u, "dynamic-slice(%s%s), "
		 "dynamic_slice_sizes={%s}", y->name, idx, sizes));
	indices(g, d, u.rank, idx);
	return emit(g, d, &x->s, "dynamic-update-slice(%s, %s%s)", x->name,
		    un, idx);
}

/* f(a, b) for the scan carry: an op of the two, or either updated in
 * place at the counter from the other. */
static const char *
carry_op(struct gen *g, struct scope *d, const struct val *a,
	 const struct val *b)
{
	switch (pick(g, 4)) {
	case 0: return emit(g, d, &a->s, "add(%s, %s)", a->name, b->name);
	case 1: return emit(g, d, &a->s, "multiply(%s, %s)", b->name,
			    a->name);
	case 2: return update_at_counter(g, d, a, b);
	default: return update_at_counter(g, d, b, a);
	}
}

/* The rotating body (L->kind): 0 the scan carry (x0, .., xn) -> (x1, ..,
 * xn, f(x0, x1)); 1 a rotation (x1, .., xn, x0), one element maybe
 * updated in place first; 2 a swap with one side updated. */
static void
rotate_next(struct gen *g, struct scope *d, const struct loop *L, int first,
	    char (*names)[24])
{
	const struct val *x = &d->v[first];
	int n = L->n;

	body_ops(g, d, pick(g, 3));
	for (int k = 0; k + 1 < n; k++)
		snprintf(names[k], 24, "%s", x[k + 1].name);
	if (L->kind == 0) {
		snprintf(names[n - 1], 24, "%s", carry_op(g, d, &x[0], &x[1]));
		return;
	}
	snprintf(names[n - 1], 24, "%s", x[0].name);
	if (chance(g, 50)) {
		int k = pick(g, n);
		const char *u = update_at_counter(g, d, &x[k], &x[(k + 1) % n]);

		snprintf(names[(k + n - 1) % n], 24, "%s", u);
	}
}

/* Init arrays for loop L: n of shape s, the first v; distinct unless
 * F_INIT is made (shared_init). */
static void
same_shape_init(struct gen *g, struct scope *sc, struct loop *L,
		const struct val *v)
{
	L->st[0] = *v;
	for (int k = 1; k < L->n; k++) {
		struct val *w = find_val(sc, of_shape(g, sc, &v->s));

		L->st[k] = *w;
		snprintf(L->st[k].name, 24, "%s", shared_init(g, sc, w));
	}
}

/* F_ROTATE: a loop whose state of one shape rotates (the carry of every
 * JAX scan, rotations of 3 and 4, swaps), with in-place updates at the
 * counter. */
static int
op_rotate(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	struct loop L = {.trips = 1 + pick(g, 4), .next = rotate_next,
			 .kind = pick(g, 3)};
	char tn[24];

	if (!v || v->s.rank == 0 || sc->depth >= MAXDEPTH ||
	    !makes(g, F_ROTATE))
		return -1;
	L.n = L.kind == 2 ? 2 : 2 + pick(g, 3);
	same_shape_init(g, sc, &L, v);
	write_loop(g, sc, &L, 80, tn);
	return 0;
}

/* The in-place body: each element updated at the counter (from an
 * element of its shape), or by an elementwise op of itself. */
static void
update_next(struct gen *g, struct scope *d, const struct loop *L, int first,
	    char (*names)[24])
{
	for (int k = 0; k < L->n; k++) {
		const struct val *x = &d->v[first + k];
		const struct val *y = &d->v[first + pick(g, L->n)];

		if (!same_shape(&x->s, &y->s))
			y = x;
		if (x->s.rank > 0 && chance(g, 60))
			snprintf(names[k], 24, "%s", update_at_counter(g, d, x,
				 y));
		else
			snprintf(names[k], 24, "%s", emit(g, d, &x->s,
				 "add(%s, %s)", x->name, x->name));
	}
}

/* F_INIT: one array in the init tuples of two or three loops (sometimes
 * twice in one), each updating its state in place; read after them. */
static int
op_shared_init(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	struct val x;
	char tn[24];

	if (!v || sc->depth >= MAXDEPTH || !makes(g, F_INIT))
		return -1;
	x = *v;
	for (int k = 0, n = 2 + chance(g, 30); k < n; k++) {
		struct loop L = {.n = 1 + chance(g, 40),
				 .trips = 1 + pick(g, 3), .next = update_next};

		L.st[0] = x;
		if (L.n > 1)
			L.st[1] = chance(g, 40) ? x : *any(g, sc, 1 << T_F32 |
							   1 << T_S32);
		write_loop(g, sc, &L, 70, tn);
	}
	emit(g, sc, &x.s, chance(g, 50) ? "negate(%s)" : "copy(%s)", x.name);
	return 0;
}

/* Elements 2.. of the streaming body: x + B (read before the fetch or
 * after it), x + f, or f itself (mode 2). */
static void
slots_others(struct gen *g, struct scope *d, const struct loop *L,
	     int first, const char *f, int mode, char (*names)[24])
{
	const struct val *b = &d->v[first + 1];

	for (int k = 2; k < L->n; k++)
		snprintf(names[k], 24, "%s", mode == 2 ? f : emit(g, d, &b->s,
			 "add(%s, %s)", d->v[first + k].name,
			 !f[0] || chance(g, 70) ? b->name : f));
}

/* The streaming body: a fetch f = dynamic-slice(A, i, 0...) of state A
 * at the counter (which hloplan double-buffers) carried in the state as
 * B as it is or through a copy; other elements add B, often before the
 * fetch (so that f may take B's buffer in place), or f; A sometimes
 * updated at the counter. */
static void
slots_next(struct gen *g, struct scope *d, const struct loop *L, int first,
	   char (*names)[24])
{
	const struct val *a = &d->v[first], *b = &d->v[first + 1];
	char idx[256], sizes[32], zs[32], f[24] = "", z[24];
	int mode = pick(g, 3), early = mode != 2 && chance(g, 50);

	if (early)
		slots_others(g, d, L, first, f, mode, names);
	dims_after_first(&b->s, zero(g, d, z), zs, sizes);
	snprintf(f, sizeof f, "%s", emit(g, d, &b->s, "dynamic-slice(%s, %s%s"
		 "), dynamic_slice_sizes={%s}", a->name,
		 d->v[d->counter].name, zs, sizes));
	body_ops(g, d, pick(g, 3));
	snprintf(names[0], 24, "%s", a->name);
	if (chance(g, 30)) {
		indices(g, d, a->s.rank, idx);
		snprintf(names[0], 24, "%s", emit(g, d, &a->s,
			 "dynamic-update-slice(%s, %s%s)", a->name,
			 emit(g, d, &b->s, "negate(%s)", f), idx));
	}
	snprintf(names[1], 24, "%s", mode == 1 ? emit(g, d, &b->s, "copy(%s)",
		 f) : f);
	if (!early)
		slots_others(g, d, L, first, f, mode, names);
}

/* A dynamic-slice's shape from a: 1 on dimension 0, the rest whole. */
static struct gs
fetch_shape(const struct gs *a)
{
	struct gs b = *a;

	b.d[0] = 1;
	return b;
}

/* Fetches of one source at run-time indices outside any loop (hloplan
 * streams them through slots), each also a copy's source: an explicit
 * copy, a loop's init, or an output. */
static int
unrolled_fetches(struct gen *g, struct scope *sc, const struct val *a)
{
	struct gs b = fetch_shape(&a->s);
	char zs[32], sizes[32], z[24];

	dims_after_first(&b, zero(g, sc, z), zs, sizes);
	for (int k = 0, n = 2 + pick(g, 3); k < n; k++) {
		const char *idx = run_time_index(g, sc), *f;
		struct loop L = {.n = 1, .trips = 1 + pick(g, 3),
				 .next = random_next};
		char tn[24];

		f = emit(g, sc, &b, "dynamic-slice(%s, %s%s), "
			 "dynamic_slice_sizes={%s}", a->name, idx, zs, sizes);
		L.st[0] = sc->v[sc->tail];
		if (chance(g, 40) && sc->depth < MAXDEPTH)
			write_loop(g, sc, &L, 100, tn);
		else if (chance(g, 50))
			emit(g, sc, &b, "copy(%s)", f);
	}
	return 0;
}

/* The elements of a literal of shape s from dimension k, into b.  The
 * rank's bound is stated, so that the compiler sees d[k] inside it. */
static void
literal_dims(struct gen *g, struct buf *b, const struct gs *s, int k)
{
	bput(b, "{");
	for (int j = 0; j < s->d[k]; j++) {
		if (j)
			bput(b, ", ");
		if (k + 1 < s->rank && k + 1 < GS_MAXRANK)
			literal_dims(g, b, s, k + 1);
		else
			bput(b, "%d", pick(g, 5) - 2);
	}
	bput(b, "}");
}

/* A constant array of shape s (a literal: its own constant buffer, as
 * the state's initial value of a JAX scan often is). */
static const char *
literal(struct gen *g, struct scope *sc, const struct gs *s)
{
	struct buf b = {0};
	static char name[24];

	literal_dims(g, &b, s, 0);
	snprintf(name, sizeof name, "%s", emit(g, sc, s, "constant(%s)",
					       b.p));
	free(b.p);
	return name;
}

/* F_SLOTS: a loop streaming a state array through a double-buffered
 * fetch that is also carried or copied, or unrolled fetches. */
static int
op_slots(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	struct loop L = {.n = 2 + chance(g, 80), .trips = 2 + pick(g, 3),
			 .next = slots_next};
	struct gs b;
	char tn[24];

	if (!v || v->s.rank == 0 || !makes(g, F_SLOTS))
		return -1;
	if (sc->counter >= 0 || sc->depth >= MAXDEPTH || chance(g, 30))
		return unrolled_fetches(g, sc, v);
	L.st[0] = *v;
	b = fetch_shape(&v->s);
	for (int k = 1; k < L.n; k++) {
		if (chance(g, 60) && count(&b) <= 64) {
			literal(g, sc, &b);
			L.st[k] = sc->v[--sc->n];	/* the loop's alone */
			continue;
		}
		L.st[k] = *find_val(sc, of_shape(g, sc, &b));
		snprintf(L.st[k].name, 24, "%s", shared_init(g, sc,
			 find_val(sc, L.st[k].name)));
	}
	write_loop(g, sc, &L, 50, tn);
	return 0;
}

/* ---- calls from many sites --------------------------------------------- */

/* The module's shared callee (a leaf), made at its first call site. */
static void
make_shared(struct gen *g, struct scope *sc)
{
	struct callee *c = &g->shared;
	struct val args[2] = {{.s = {T_F32, 1, {4}}}, {.s = {T_F32, 1, {4}}}};
	struct scope *d = calloc(1, sizeof *d);

	c->nargs = 1 + pick(g, 2);
	for (int k = 0; k < c->nargs; k++) {
		const struct val *v = any(g, sc, 15);

		if (v)
			args[k] = *v;
		c->arg[k] = args[k].s;
	}
	c->res = args[pick(g, c->nargs)].s;
	snprintf(c->name, sizeof c->name, "shared%d", ++g->id);
	begin_callee(g, d, c->name, args, c->nargs, MAXDEPTH);
	body_ops(g, d, 1 + pick(g, 4));
	end_callee(g, d, &c->res, 0);
	free(d);
}

/* n call sites of the shared callee, taking arrays of the scope (often
 * an earlier site's result). */
static void
call_sites(struct gen *g, struct scope *sc, int n)
{
	const struct callee *c = &g->shared;

	for (int k = 0; k < n; k++) {
		char a[2][24];

		for (int j = 0; j < c->nargs; j++)
			snprintf(a[j], 24, "%s", of_shape(g, sc, &c->arg[j]));
		emit(g, sc, &c->res, "call(%s%s%s), to_apply=%%%s", a[0],
		     c->nargs > 1 ? ", " : "", c->nargs > 1 ? a[1] : "",
		     c->name);
	}
}

/* Runs generator fn first in a branch of a new conditional; -1 if none. */
static int
in_branch(struct gen *g, struct scope *sc, opfn *fn)
{
	if (sc->depth >= MAXDEPTH)
		return -1;
	g->inject = fn;
	if (op_conditional(g, sc) == 0 && !g->inject)
		return 0;
	g->inject = NULL;
	return -1;
}

/* F_CALLS: one computation called from 3-70 sites of the module, some in
 * loop bodies and branches (flatten.c clones it for each). */
static int
op_calls(struct gen *g, struct scope *sc)
{
	int n = 1 + pick(g, 3);

	if (g->in_shared || !makes(g, F_CALLS))
		return -1;
	if (!g->shared.name[0]) {
		g->in_shared = 1;
		make_shared(g, sc);
		g->in_shared = 0;
		n = chance(g, 25) ? 10 + pick(g, 61) : 3 + pick(g, 5);
	}
	call_sites(g, sc, n);
	if (sc->counter < 0 && chance(g, 30))
		in_loop(g, sc, op_calls);
	else if (chance(g, 20))
		in_branch(g, sc, op_calls);
	return 0;
}

/* %name (p: s): a few elementwise ops that keep values bounded. */
static void
leaf_callee(struct gen *g, const char *name, const char *sh)
{
	bput(&g->comps, "%%%s {\n  p = %s parameter(0)\n  k = f32[] "
	     "constant(0.5)\n  kb = %s broadcast(k), dimensions={}\n"
	     "  a = %s negate(p)\n  b = %s maximum(a, kb)\n  c = %s "
	     "minimum(b, p)\n  d = %s sine(c)\n  ROOT e = %s add(d, kb)\n}"
	     "\n\n", name, sh, sh, sh, sh, sh, sh, sh);
}

/* F_CALLS_CAP: %outer calls %inner from k2 sites and the entry calls
 * %outer from k1, so that k1 k2 |inner| cloned instructions pass
 * flatten.c's budget (4 times the module's, plus 10000): the later sites
 * share one computation.  Rare: such a module runs 20 times longer. */
static int
op_calls_cap(struct gen *g, struct scope *sc)
{
	struct gs s = {T_F32, 1, {1 + pick(g, 4)}};
	int k1 = 38 + pick(g, 11), k2 = 38 + pick(g, 11);
	char sh[64], inner[32], outer[32], prev[24] = "p";

	if (sc->depth > 0 || g->capped || !chance(g, 25) ||
	    !makes(g, F_CALLS_CAP))
		return -1;
	g->capped = 1;
	shape_text(&s, sh);
	snprintf(inner, sizeof inner, "inner%d", ++g->id);
	snprintf(outer, sizeof outer, "outer%d", ++g->id);
	leaf_callee(g, inner, sh);
	bput(&g->comps, "%%%s {\n  p = %s parameter(0)\n", outer, sh);
	for (int k = 0; k < k2; k++) {
		bput(&g->comps, "  c%d = %s call(%s), to_apply=%%%s\n", k, sh,
		     chance(g, 80) ? prev : "p", inner);
		snprintf(prev, sizeof prev, "c%d", k);
	}
	bput(&g->comps, "  ROOT r = %s add(%s, p)\n}\n\n", sh, prev);
	snprintf(prev, sizeof prev, "%s", of_shape(g, sc, &s));
	for (int k = 0; k < k1; k++)
		snprintf(prev, sizeof prev, "%s", emit(g, sc, &s, "call(%s), "
			 "to_apply=%%%s", prev, outer));
	return 0;
}

/* ---- XLA's kernel contract (issue 29) -------------------------------- */

/* F_TUPLE_CALL: (x, s8[64]) or (s8[64], x) custom-call(a, b, c), one
 * element written over operand k (cuBLAS gemm with bias); the operand
 * dies there or is read after. */
static int
op_tuple_call(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32);
	char tn[24], sh[64], list[128] = "", a[3][24];
	int n = 1 + pick(g, 3), k = pick(g, n), e = pick(g, 2);
	struct val x;

	if (!v || v->s.rank == 0 || !makes(g, F_TUPLE_CALL))
		return -1;
	x = *v;
	for (int j = 0; j < n; j++)
		snprintf(a[j], 24, "%s", j == k ? x.name :
			 of_shape(g, sc, &x.s));
	if (chance(g, 50))	/* an operand that dies at the call */
		snprintf(a[k], 24, "%s", emit(g, sc, &x.s, "negate(%s)",
					      x.name));
	for (int j = 0; j < n; j++)
		sprintf(list + strlen(list), "%s%s", j ? ", " : "", a[j]);
	shape_text(&x.s, sh);
	snprintf(tn, sizeof tn, "g%d", ++g->id);
	bput(&sc->text, "  %s = (%s%s%s) custom-call(%s), custom_call_target="
	     "\"__cublas$gemm\", output_to_operand_aliasing={{%d}: (%d, "
	     "{})}\n", tn, e ? "s8[64], " : "", sh, e ? "" : ", s8[64]", list,
	     e, k);
	sc->tail = -1;
	emit(g, sc, &x.s, "get-tuple-element(%s), index=%d", tn, e);
	if (chance(g, 30))
		emit(g, sc, &x.s, "add(%s, %s)", a[k], x.name);
	return 0;
}

/* F_ASYNC_COLL: one to three async collectives in flight at once, work
 * between them, their dones in any order; operands sometimes read
 * after. */
static int
op_async_collectives(struct gen *g, struct scope *sc)
{
	static const char *const dones[] = {
		"all-reduce-done", "all-gather-done", "collective-permute-done",
	};
	char names[3][24];
	struct val x[3];
	int kind[3], n = 1 + pick(g, 3), first = pick(g, 3);

	if (!makes(g, F_ASYNC_COLL))
		return -1;
	for (int j = 0; j < n; j++) {
		x[j] = async_operand(g, sc);
		kind[j] = pick(g, 3);
		snprintf(names[j], 24, "s%d", ++g->id);
		collective_start(g, sc, kind[j], &x[j], names[j]);
		sc->tail = -1;
		if (chance(g, 50))
			async_work(g, sc, &x[j]);
	}
	async_work(g, sc, &x[0]);
	for (int m = 0; m < n; m++) {
		int j = (first + m) % n;

		emit(g, sc, &x[j].s, "%s(%s)", dones[kind[j]], names[j]);
		if (chance(g, 30))
			emit(g, sc, &x[j].s, "negate(%s)", x[j].name);
		if (chance(g, 30))
			body_ops(g, sc, 1);
	}
	g->scheduled |= chance(g, 40);
	return 0;
}

/* %name (p0: s, p1: s): elementwise ops of its parameters (so that its
 * output may take p0's buffer), or now and then a reverse (so that it may
 * not). */
static void
ew_fused(struct gen *g, const char *name, const struct gs *s)
{
	static const char *const fops[] = {"negate", "sine", "tanh", "abs"};
	static const char *const bops[] = {"add", "multiply", "maximum",
					   "subtract"};
	char sh[64], prev[16] = "p0";

	shape_text(s, sh);
	bput(&g->comps, "%%%s {\n  p0 = %s parameter(0)\n  p1 = %s "
	     "parameter(1)\n", name, sh, sh);
	for (int k = 0, n = 1 + pick(g, 3); k < n; k++) {
		if (chance(g, 50) && s->type == T_F32)
			bput(&g->comps, "  e%d = %s %s(%s)\n", k, sh,
			     fops[pick(g, 4)], prev);
		else
			bput(&g->comps, "  e%d = %s %s(%s, %s)\n", k, sh,
			     bops[pick(g, 4)], prev, chance(g, 50) ? "p1" :
			     "p0");
		snprintf(prev, sizeof prev, "e%d", k);
	}
	if (chance(g, 15))
		bput(&g->comps, "  ROOT r = %s reverse(%s), dimensions={0}\n}"
		     "\n\n", sh, prev);
	else
		bput(&g->comps, "  ROOT r = %s add(%s, p1)\n}\n\n", sh, prev);
}

/* The loop-fusion body (F_LOOP_FUSION): each state element's next value
 * a kLoop fusion of its get-tuple-element (XLA updates it in place),
 * sometimes with another reader of it: before the fusion by
 * control-predecessors (L->kind 1), or after it in the text (kind 2),
 * its value carried into the next element. */
static void
fusion_next(struct gen *g, struct scope *d, const struct loop *L, int first,
	    char (*names)[24])
{
	int n = L->n;

	body_ops(g, d, pick(g, 3));
	for (int k = 0; k < n; k++)
		snprintf(names[k], 24, "%s", d->v[first + k].name);
	for (int k = 0; k < n; k++) {
		struct val x = d->v[first + k], y = d->v[first + (k + 1) % n];
		char fn[32], r[24] = "", ctl[48] = "";
		int kind = chance(g, 70) ? L->kind : 0;

		snprintf(fn, sizeof fn, "fused%d", ++g->id);
		ew_fused(g, fn, &x.s);
		if (kind == 1) {
			snprintf(r, 24, "%s", emit(g, d, &x.s, "negate(%s)",
						   x.name));
			snprintf(ctl, sizeof ctl, ", control-predecessors={%s}",
				 r);
		}
		snprintf(names[k], 24, "%s", emit(g, d, &x.s, "fusion(%s, %s),"
			 " kind=kLoop, calls=%%%s%s", x.name, chance(g, 60) ?
			 y.name : x.name, fn, ctl));
		if (kind == 2)
			snprintf(r, 24, "%s", emit(g, d, &x.s, "negate(%s)",
						   x.name));
		if (r[0] && n > 1 && k + 1 < n)
			snprintf(names[k + 1], 24, "%s", emit(g, d, &x.s,
				 "add(%s, %s)", y.name, r));
		if (r[0] && n > 1 && k + 1 < n)
			k++;
	}
}

/* F_LOOP_FUSION: a loop over one to three arrays of one shape, each
 * updated by a kLoop fusion of its state element. */
static int
op_loop_fusion(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	struct loop L = {.n = 1 + pick(g, 3), .trips = 1 + pick(g, 4),
			 .next = fusion_next, .kind = pick(g, 3)};
	char tn[24];

	if (!v || v->s.rank == 0 || sc->depth >= MAXDEPTH ||
	    !makes(g, F_LOOP_FUSION))
		return -1;
	same_shape_init(g, sc, &L, v);
	write_loop(g, sc, &L, 80, tn);
	g->scheduled |= chance(g, 30);
	return 0;
}

/* F_ASYNC_COND: call-start/call-done (or async-start/-done) of a
 * computation whose root is a conditional, one branch forwarding its
 * parameter; work between; the operand sometimes read after. */
static int
op_async_cond(struct gen *g, struct scope *sc)
{
	const struct val *v = any(g, sc, 1 << T_F32 | 1 << T_S32);
	char sh[64], b[2][32], callee[32], pv[24], name[24];
	struct gs ps = scalar(T_PRED);
	int fwd = pick(g, 2), call = pick(g, 2);
	struct val x;

	if (!v || !makes(g, F_ASYNC_COND))
		return -1;
	x = *v;
	shape_text(&x.s, sh);
	for (int k = 0; k < 2; k++)
		snprintf(b[k], 32, "abranch%d", ++g->id);
	snprintf(callee, sizeof callee, "acallee%d", ++g->id);
	identity_branch(g, b[fwd], sh);
	bput(&g->comps, "%%%s {\n  p = %s parameter(0)\n  ROOT n = %s "
	     "%s(p)\n}\n\n", b[!fwd], sh, sh, x.s.type == T_F32 ? "sine" :
	     "negate");
	bput(&g->comps, "%%%s {\n  x = %s parameter(0)\n  c = pred[] "
	     "parameter(1)\n  ROOT r = %s conditional(c, x, x), "
	     "true_computation=%%%s, false_computation=%%%s\n}\n\n", callee,
	     sh, sh, b[0], b[1]);
	snprintf(pv, sizeof pv, "%s", emit(g, sc, &ps, "constant(%s)",
					   chance(g, 50) ? "true" : "false"));
	snprintf(name, sizeof name, "s%d", ++g->id);
	if (call)
		bput(&sc->text, "  %s = ((%s, pred[]), %s, s32[]) call-start(%s, "
		     "%s), to_apply=%%%s\n", name, sh, sh, x.name, pv, callee);
	else
		bput(&sc->text, "  %s = ((%s, pred[]), %s, s32[]) async-start("
		     "%s, %s), calls=%%%s\n", name, sh, sh, x.name, pv, callee);
	sc->tail = -1;
	async_work(g, sc, &x);
	emit(g, sc, &x.s, "%s(%s)", call ? "call-done" : "async-done", name);
	if (chance(g, 30))
		emit(g, sc, &x.s, "negate(%s)", x.name);
	return 0;
}

/* A loop that updates x in place (each iteration at the counter, or by
 * an elementwise op): its result's scope index. */
static int
updated_in_loop(struct gen *g, struct scope *sc, const struct val *x)
{
	struct loop L = {.n = 1, .trips = 1 + pick(g, 3),
			 .next = update_next};
	char tn[24];

	L.st[0] = *x;
	write_loop(g, sc, &L, 100, tn);
	return sc->tail;
}

/* F_MUST_ALIAS: an entry output that must alias parameter p
 * (input_output_alias must-alias): an elementwise op of it, an op reading
 * it otherwise, an update of it in place, or a loop updating it in place;
 * p sometimes read after. */
static int
op_must_alias(struct gen *g, struct scope *sc)
{
	int open[8], n = 0, p, v;
	struct val x;
	char idx[256];

	if (sc->depth > 0 || g->nout + 2 > MAXOUT)
		return -1;
	for (int q = 0; q < g->nparam; q++)
		if (!(g->aliased >> q & 1))
			open[n++] = q;
	if (n == 0 || !makes(g, F_MUST_ALIAS))
		return -1;
	p = open[pick(g, n)];
	x = sc->v[p];
	switch (pick(g, 4)) {
	case 0:
		emit(g, sc, &x.s, "add(%s, %s)", x.name, other(g, sc, &x));
		v = sc->tail;
		break;
	case 1:
		v = reading_op(g, sc, &x);
		break;
	case 2:
		v = updated_in_loop(g, sc, &x);
		break;
	default:
		indices(g, sc, x.s.rank, idx);
		emit(g, sc, &x.s, "dynamic-update-slice(%s, %s%s)", x.name,
		     fresh(g, sc, &(struct gs){x.s.type, x.s.rank,
					       {1, 1, 1, 1}}), idx);
		v = sc->tail;
		break;
	}
	force_out(g, sc, v, p, 1);
	if (chance(g, 30))
		emit(g, sc, &x.s, "negate(%s)", x.name);
	return 0;
}

/* ---- computations ------------------------------------------------------- */

static const struct {
	opfn *fn;
	int weight;
} ops[] = {
	{op_unary, 10}, {op_binary, 16}, {op_select, 4}, {op_convert, 3},
	{op_broadcast, 5}, {op_reshape, 5}, {op_transpose, 4},
	{op_slice, 5}, {op_concatenate, 3}, {op_pad, 3}, {op_dot, 4},
	{op_reduce, 4}, {op_iota, 2}, {op_dynamic_slice, 3}, {op_dus, 3},
	{op_tuple, 3}, {op_call, 2}, {op_conditional, 2}, {op_while, 3},
	{op_fusion, 2}, {op_io_alias, 2}, {op_branches, 3}, {op_async, 3},
	{op_dus_fusion, 2}, {op_rotate, 2}, {op_shared_init, 2},
	{op_slots, 2}, {op_calls, 2}, {op_calls_cap, 1},
	{op_tuple_call, 2}, {op_async_collectives, 2}, {op_loop_fusion, 2},
	{op_async_cond, 2}, {op_must_alias, 2},
};

static void
body_ops(struct gen *g, struct scope *sc, int n)
{
	int total = 0;

	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		total += ops[k].weight;
	for (int made = 0, tries = 0; made < n && tries < 20 * n; tries++) {
		int w = pick(g, total);
		size_t k = 0;

		while (w >= ops[k].weight)
			w -= ops[k++].weight;
		if (sc->n < MAXVAL - 16 && ops[k].fn(g, sc) == 0)
			made++;
	}
}

/* Alias entry output k (array v) with a free parameter of its shape,
 * sometimes; a non-elementwise output or must-alias is F_ALIAS. */
static void
maybe_alias(struct gen *g, struct scope *sc, int nparam, int k,
	    const struct val *v, struct buf *alias)
{
	int ew = elementwise(v->op), must;

	for (int p = 0; p < nparam; p++) {
		if ((g->aliased >> p & 1) || !same_shape(&v->s, &sc->v[p].s) ||
		    (!ew && avoids(g, F_ALIAS)) || !chance(g, 30))
			continue;
		/* not over a bitcast: one that changes the TPU's padding
		 * (F_BITCAST) is no bitcast under XLA's layout-sensitive
		 * verifier there, and a must-alias cannot be held across
		 * it (issue 38: the output's bytes are its operand's) */
		must = chance(g, 50) && !avoids(g, F_ALIAS) &&
		       strcmp(v->op, "bitcast");
		if (!ew || must)
			tag(g, F_ALIAS);
		g->aliased |= 1 << p;
		bput(alias, "%s{%d}: (%d, {}, %s)", alias->n ? ", " : "", k, p,
		     must ? "must-alias" : "may-alias");
		return;
	}
}

/* The result: the outputs generators asked for, then the arrays nothing
 * uses (so that every value counts), at most eight, or a random one;
 * some alias a parameter of their shape (input_output_alias). */
static void
entry_root(struct gen *g, struct scope *sc, int nparam, struct buf *alias)
{
	char types[2048] = "", ops[1024] = "", sh[64];
	int out[MAXOUT + 9], n = 0;

	for (int k = 0; k < g->nout; k++) {
		const struct out *o = &g->outs[k];

		out[n++] = o->v;
		if (o->param >= 0)
			bput(alias, "%s{%d}: (%d, {}, %s)", alias->n ? ", " :
			     "", k, o->param, o->must ? "must-alias" :
			     "may-alias");
	}
	for (int k = sc->n - 1, m = 0; k >= nparam && m < 8; k--)
		if (!sc->v[k].used && sc->v[k].s.rank > 0)
			out[n++] = k, m++;
	if (n == 0 || chance(g, 10))
		out[n++] = pick(g, sc->n);
	for (int k = 0; k < n; k++) {
		const struct val *v = &sc->v[out[k]];

		sprintf(types + strlen(types), "%s%s", k ? ", " : "",
			shape_text(&v->s, sh));
		sprintf(ops + strlen(ops), "%s%s", k ? ", " : "", v->name);
		if (k >= g->nout)
			maybe_alias(g, sc, nparam, k, v, alias);
	}
	bput(&sc->text, "  ROOT out = (%s) tuple(%s)\n}\n", types, ops);
}

/* The entry's parameters: random shapes, some repeating an earlier one
 * (so that outputs can alias each other's parameter). */
static int
entry_params(struct gen *g, struct scope *e)
{
	int np = 1 + pick(g, 3);
	char sh[64];

	for (int k = 0; k < np; k++) {
		struct val *p = &e->v[e->n++];

		p->s = random_shape(g, chance(g, 20) ? T_S32 : T_F32);
		if (k > 0 && chance(g, 25))
			p->s = e->v[pick(g, k)].s;
		snprintf(p->name, sizeof p->name, "x%d", k);
		bput(&e->text, "  %s = %s parameter(%d)\n", p->name,
		     shape_text(&p->s, sh), k);
	}
	return np;
}

/* "// families: a b" for the families made, or "". */
static void
fam_list(unsigned fams, char *list, size_t size)
{
	size_t k = 0;

	list[0] = 0;
	for (int f = 0; f < NFAM; f++)
		if (fams >> f & 1)
			k += (size_t)snprintf(list + k, size - k, "%s%s",
					      k ? "," : "", fam_names[f]);
}

/* Module `seed` as text; *fams gets the families it holds. */
static char *
gen_module(uint64_t seed, unsigned safe, unsigned *fams)
{
	struct gen g = {.rng = seed * 0x2545f4914f6cdd1du + 1, .safe = safe};
	struct scope *e = calloc(1, sizeof *e);
	struct buf mod = {0}, alias = {0};
	char list[512];
	int np;

	e->counter = -1;
	bput(&alias, "%s", "");
	bput(&g.comps, "%s", "");
	bput(&e->text, "ENTRY %%main {\n");
	g.nparam = np = entry_params(&g, e);
	body_ops(&g, e, 4 + pick(&g, 12));
	entry_root(&g, e, np, &alias);
	fam_list(g.fams, list, sizeof list);
	bput(&mod, "// families: %s\n", g.fams ? list : "none");
	bput(&mod, "HloModule gen%llu", (unsigned long long)seed);
	if (g.scheduled)
		bput(&mod, ", is_scheduled=true");
	if (alias.n)
		bput(&mod, ", input_output_alias={ %s }", alias.p);
	bput(&mod, "\n\n%s%s", g.comps.p, e->text.p);
	free(alias.p);
	free(g.comps.p);
	free(e->text.p);
	free(e);
	*fams = g.fams;
	return mod.p;
}

/* The bits of a family's name, or of "all"; 0 if none. */
static unsigned
fam_bits(const char *name)
{
	if (!strcmp(name, "all"))
		return BIT(NFAM) - 1;
	for (int k = 0; k < NFAM; k++)
		if (!strcmp(fam_names[k], name))
			return BIT(k);
	return 0;
}

/* ---- the driver --------------------------------------------------------- */

static void
keep(const char *dir, uint64_t seed, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/oracle_gen_%llu.hlo", dir,
		 (unsigned long long)seed);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	fprintf(stderr, "oracle_gen: kept %s\n", path);
}

struct args {
	uint64_t seed, n;
	const char *dir;	/* where failing modules are kept (--keep);
				   NULL: nowhere */
	int print, require_planned;
	int contract;		/* --from-json: plans read back from JSON */
	int identity;		/* --identity: each plan also by value
				   identity, which must agree */
	unsigned safe;
};

static void
usage(void)
{
	fputs("usage: oracle_gen [--count N] [--seed S] [--keep DIR] "
	      "[--print]\n"
	      "  [--avoid FAMILY] [--allow FAMILY] [--require-planned]\n"
	      "  [--from-json] [--identity]\n"
	      "FAMILY: all, or",
	      stderr);
	for (int k = 0; k < NFAM; k++)
		fprintf(stderr, " %s", fam_names[k]);
	fputs("\n", stderr);
}

static int
parse_args(int argc, char **argv, struct args *a)
{
	for (int k = 1; k < argc; k++) {
		const char *f = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;

		if (!strcmp(f, "--count") && v)
			a->n = strtoull(argv[++k], NULL, 0);
		else if (!strcmp(f, "--seed") && v)
			a->seed = strtoull(argv[++k], NULL, 0);
		else if (!strcmp(f, "--keep") && v)
			a->dir = argv[++k];
		else if (!strcmp(f, "--print"))
			a->print = 1;
		else if (!strcmp(f, "--allow") && v && fam_bits(v))
			a->safe &= ~fam_bits(argv[++k]);
		else if (!strcmp(f, "--avoid") && v && fam_bits(v))
			a->safe |= fam_bits(argv[++k]);
		else if (!strcmp(f, "--require-planned"))
			a->require_planned = 1;
		else if (!strcmp(f, "--from-json"))
			a->contract = 1;
		else if (!strcmp(f, "--identity"))
			a->identity = 2;
		else {
			usage();
			return -1;
		}
	}
	return 0;
}

/* Modules and verdicts, in all and per family (and for the modules of
 * that family alone). */
struct tally {
	int made[NFAM], differ[NFAM], refused[NFAM], seen[NFAM], wrong[NFAM];
	int alone[NFAM], alone_differ[NFAM];
	int n, same, refused_all, seen_all, wrong_all, skipped, errors;
};

/* Module verdict r (a TRIAL_*); seen: the oracle saw a plan differ. */
static void
count_result(struct tally *y, unsigned fams, int r, int seen)
{
	int refused = r == TRIAL_REFUSED, wrong = r == TRIAL_DIFF;
	int differ = wrong || (refused && seen);

	y->n++;
	y->same += r == TRIAL_SAME;
	y->refused_all += refused;
	y->seen_all += refused && seen;
	y->wrong_all += wrong;
	y->skipped += r == TRIAL_SKIP;
	y->errors += r == TRIAL_ERROR;
	for (int f = 0; f < NFAM; f++) {
		if (!(fams >> f & 1))
			continue;
		y->made[f]++;
		y->differ[f] += differ;
		y->refused[f] += refused;
		y->seen[f] += refused && seen;
		y->wrong[f] += wrong;
		y->alone[f] += fams == BIT(f);
		y->alone_differ[f] += fams == BIT(f) && differ;
	}
}

static void
print_tally(const struct tally *y, const struct args *a)
{
	printf("oracle_gen: %-15s %7s %7s %7s %7s %7s %7s\n", "family",
	       "modules", "differ", "refused", "(differ)", "WRONG",
	       "alone");
	for (int f = 0; f < NFAM; f++)
		printf("  %-15s %7d %7d %7d %7d %7d %4d/%d%s\n",
		       fam_names[f], y->made[f], y->differ[f], y->refused[f],
		       y->seen[f], y->wrong[f], y->alone_differ[f],
		       y->alone[f], a->safe >> f & 1 ? "  avoided" : "");
	printf("oracle_gen: seeds %llu..%llu (differ: the oracle sees a plan "
	       "differ; alone: of the modules of no other family)\n",
	       (unsigned long long)a->seed,
	       (unsigned long long)(a->seed + a->n - 1));
	printf("%d modules: %d same, %d refused by verify (%d of them the "
	       "oracle also sees differ), %d WRONG (differ, accepted), %d "
	       "skipped, %d errors\n", y->n, y->same, y->refused_all,
	       y->seen_all, y->wrong_all, y->skipped, y->errors);
}

/* Plans module s, runs it; the name in messages carries its families. */
static int
run_one(const struct args *a, uint64_t s, struct tally *y)
{
	unsigned fams;
	char *text = gen_module(s, a->safe, &fams);
	char name[600], list[512];
	struct trial t = {.seed = s, .quiet = 1, .out = stdout,
			  .contract = a->contract, .identity = a->identity};
	int r;

	fam_list(fams, list, sizeof list);
	snprintf(name, sizeof name, "gen%llu[%s]", (unsigned long long)s,
		 list);
	t.file = name;
	if (a->print) {
		fputs(text, stdout);
		free(text);
		return TRIAL_SAME;
	}
	r = trial_file(&t, text, strlen(text));
	if (a->dir && r != TRIAL_SAME && r != TRIAL_SKIP)
		keep(a->dir, s, text);
	count_result(y, fams, r, t.differed > 0);
	free(text);
	return r;
}

int
main(int argc, char **argv)
{
	struct args a = {.seed = 1, .n = 1000, .dir = NULL};
	struct tally y = {0};

	if (parse_args(argc, argv, &a) < 0)
		return 2;
	for (uint64_t s = a.seed; s < a.seed + a.n; s++)
		run_one(&a, s, &y);
	if (a.print)
		return 0;
	print_tally(&y, &a);
	if (y.wrong_all || y.errors)
		return 1;
	return a.require_planned && y.refused_all ? 1 : 0;
}

/* The joint plan checked from the declaration, the modules and the plans'
 * data alone: one arena size; each shared array inside it, aligned, apart
 * from the others, and bound at its offset by every program that names it;
 * reads and writes as input_output_alias allows; and no other buffer of a
 * program over an array's bytes while the array must keep them: all the
 * call when the program reads it or leaves it alone, until its first write
 * when the program only writes it.  Within a call verify_plan holds. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "checker/verify_joint.h"

static int
fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return 1;
}

static int
index_is(const struct plan_pos *q, const struct jindex *x)
{
	if (q->depth != x->depth)
		return 0;
	for (int i = 0; i < x->depth; i++)
		if (q->index[i] != x->i[i])
			return 0;
	return 1;
}

/* Does program m's input_output_alias donate u's parameter node into its
 * output node (want_out), or at all (!want_out)? */
static int
donates(const struct module *m, const struct joint_use *u, int want_out)
{
	for (int k = 0; k < m->nalias; k++) {
		const struct alias *al = &m->aliases[k];
		int same = al->param == u->param && al->npidx == u->pidx.depth;

		for (int i = 0; same && i < al->npidx; i++)
			same = al->pidx[i] == u->pidx.i[i];
		if (same && want_out) {
			same = al->nout == u->oidx.depth;
			for (int i = 0; same && i < al->nout; i++)
				same = al->out[i] == u->oidx.i[i];
		}
		if (same)
			return 1;
	}
	return 0;
}

static int64_t
arena0(const struct plan *pl)
{
	for (int a = 0; a < pl->narena; a++)
		if (pl->arenas[a].space == 0)
			return pl->arenas[a].size;
	return -1;
}

static int
check_arrays(const struct joint_decl *d, const struct joint_plan *jp,
	     char *err, size_t n)
{
	int64_t al = jp->plans[0].align;

	for (int k = 0; k < jp->nprog; k++)
		if (arena0(&jp->plans[k]) != jp->arena)
			return fail(err, n, "program '%s': its arena is not "
				    "the joint one", d->prog[k].name);
	for (int a = 0; a < jp->narray; a++) {
		if (jp->offset[a] < 0 || jp->offset[a] % al ||
		    jp->offset[a] + jp->size[a] > jp->arena)
			return fail(err, n, "shared array '%s' is not aligned "
				    "inside the arena", d->arr[a].name);
		for (int b = 0; b < a; b++)
			if (jp->size[a] && jp->size[b] &&
			    jp->offset[a] < jp->offset[b] + jp->size[b] &&
			    jp->offset[b] < jp->offset[a] + jp->size[a])
				return fail(err, n, "shared arrays '%s' and "
					    "'%s' share bytes",
					    d->arr[a].name, d->arr[b].name);
	}
	return 0;
}

/* Marks in hold[] the buffers that bind u's nodes; each must sit at the
 * array's offset, no larger than it, and a parameter only read must
 * survive the call. */
static int
check_binding(const struct joint_decl *d, const struct joint_plan *jp, int a,
	      const struct joint_use *u, char *hold, char *err, size_t n)
{
	const struct plan *pl = &jp->plans[u->prog];
	int found = 0;

	for (int k = 0; k < pl->npos; k++) {
		const struct plan_pos *q = &pl->pos[k];
		const struct buffer *b = &pl->bufs[q->buf];
		int is_param = u->param >= 0 && q->param == u->param &&
			       index_is(q, &u->pidx);
		int is_out = u->out && q->output && index_is(q, &u->oidx);

		if (!is_param && !is_out)
			continue;
		found |= is_param ? 1 : 2;
		if (!b->in_arena || b->space != 0 ||
		    b->offset != jp->offset[a] || b->size > jp->size[a])
			return fail(err, n, "program '%s' binds shared array "
				    "'%s' in buffer '%s', not at its offset",
				    d->prog[u->prog].name, d->arr[a].name,
				    b->name);
		if (is_param && !u->out && !q->survives)
			return fail(err, n, "program '%s' reads shared array "
				    "'%s' but its parameter does not survive "
				    "the call", d->prog[u->prog].name,
				    d->arr[a].name);
		hold[q->buf] = 1;
	}
	if (found != (u->param >= 0) + 2 * u->out)
		return fail(err, n, "program '%s' has no node for shared array "
			    "'%s'", d->prog[u->prog].name, d->arr[a].name);
	return 0;
}

/* Reads and writes as the module's input_output_alias says. */
static int
check_alias(const struct joint_decl *d, const struct joint_use *u,
	    const char *name, char *err, size_t n)
{
	const struct module *m = d->prog[u->prog].m;

	if (u->param >= 0 && u->out && !donates(m, u, 1))
		return fail(err, n, "program '%s' writes shared array '%s' "
			    "without donating it", d->prog[u->prog].name,
			    name);
	if (u->param >= 0 && !u->out && donates(m, u, 0))
		return fail(err, n, "program '%s' donates shared array '%s' "
			    "and does not write it back",
			    d->prog[u->prog].name, name);
	return 0;
}

/* From when program k's other buffers must keep off array a's bytes:
 * 0 (the whole call), or the first step that writes its holders. */
static int32_t
kept_from(const struct plan *pl, const struct joint_use *u, const char *hold)
{
	int32_t first = pl->ntime;

	if (!u || u->param >= 0)
		return 0;
	for (int k = 0; k < pl->npos; k++)
		if (hold[pl->pos[k].buf] && pl->pos[k].step < first)
			first = pl->pos[k].step;
	return first;
}

static int
check_clear(const struct joint_decl *d, const struct joint_plan *jp, int k,
	    int a, const char *hold, int32_t from, char *err, size_t n)
{
	const struct plan *pl = &jp->plans[k];
	int64_t lo = jp->offset[a], hi = lo + jp->size[a];

	for (int b = 0; b < pl->nbuf; b++) {
		const struct buffer *x = &pl->bufs[b];

		if (hold[b] || !x->in_arena || x->space != 0 || !x->size ||
		    x->offset >= hi || x->offset + x->size <= lo)
			continue;
		if (x->end >= from)
			return fail(err, n, "program '%s': buffer '%s' lies "
				    "over shared array '%s' while the array "
				    "must keep its bytes", d->prog[k].name,
				    x->name, d->arr[a].name);
	}
	return 0;
}

static int
check_program(const struct joint_decl *d, const struct joint_plan *jp, int k,
	      char *hold, char *err, size_t n)
{
	const struct plan *pl = &jp->plans[k];

	for (int a = 0; a < jp->narray; a++) {
		const struct joint_use *u = NULL;

		for (int b = 0; b < pl->nbuf; b++)
			hold[b] = 0;
		for (int i = 0; i < d->arr[a].nuse; i++)
			if (d->arr[a].use[i].prog == k)
				u = &d->arr[a].use[i];
		if (u && (check_binding(d, jp, a, u, hold, err, n) ||
			  check_alias(d, u, d->arr[a].name, err, n)))
			return 1;
		if (check_clear(d, jp, k, a, hold, kept_from(pl, u, hold),
				err, n))
			return 1;
	}
	return 0;
}

int
verify_joint(const struct joint_decl *d, const struct joint_plan *jp,
	     char *err, size_t errlen)
{
	int bad = check_arrays(d, jp, err, errlen);

	for (int k = 0; k < jp->nprog && !bad; k++) {
		char hold[1];
		char *h = jp->plans[k].nbuf ? NULL : hold;
		size_t nb = (size_t)jp->plans[k].nbuf;

		if (!h && !(h = calloc(nb, 1))) {
			snprintf(err, errlen, "out of memory");
			return 1;
		}
		bad = check_program(d, jp, k, h, err, errlen);
		if (h != hold)
			free(h);
	}
	return bad;
}

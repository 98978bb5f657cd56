/* The declaration of programs that share one arena (--programs; the format
 * is doc/joint.md): a hand-written reader of a line-based text, then the
 * checks that need the programs' modules.  Errors are file:line:col. */
#include <stdlib.h>
#include <string.h>

#include "ir/joint.h"

/* One line's tokens: words, numbers, '{', '}', ','. */
struct lexer {
	const char *s, *end;	/* the rest of the line */
	const char *line0;	/* the line's first byte */
	int line;
	struct pool *pool;
	struct diags *ds;
	int bad;
};

struct tok {
	const char *s;
	size_t n;
	struct loc loc;
};

static int
is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
	       c == '/' || c == '+';
}

/* The next token, or n == 0 at the end of the line (or a comment). */
static struct tok
next(struct lexer *lx)
{
	struct tok t = {0};

	while (lx->s < lx->end && (*lx->s == ' ' || *lx->s == '\t' ||
				   *lx->s == '\r'))
		lx->s++;
	t.s = lx->s;
	t.loc.line = lx->line;
	t.loc.col = (int)(lx->s - lx->line0) + 1;
	if (lx->s == lx->end || *lx->s == '#')
		return t;
	if (*lx->s == '{' || *lx->s == '}' || *lx->s == ',') {
		lx->s++;
		t.n = 1;
		return t;
	}
	while (lx->s < lx->end && is_word(*lx->s))
		lx->s++;
	t.n = (size_t)(lx->s - t.s);
	if (!t.n)
		lx->s++, t.n = 1;	/* a stray byte: its own token */
	return t;
}

static struct tok
peek(struct lexer *lx)
{
	const char *s = lx->s;
	struct tok t = next(lx);

	lx->s = s;
	return t;
}

static int
is(struct tok t, const char *w)
{
	return t.n == strlen(w) && !memcmp(t.s, w, t.n);
}

static int
error_at(struct lexer *lx, struct tok t, const char *what)
{
	if (t.n)
		diag_error(lx->ds, t.loc, "expected %s, found '%.*s'", what,
			   (int)t.n, t.s);
	else
		diag_error(lx->ds, t.loc, "expected %s at the end of the line",
			   what);
	lx->bad = 1;
	return -1;
}

static int
is_name(struct tok t)
{
	if (!t.n || !is_word(t.s[0]) || (t.s[0] >= '0' && t.s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < t.n; i++)
		if (t.s[i] == '/' || t.s[i] == '+')
			return 0;
	return 1;
}

/* A number of at most 9 digits, or -1 (with an error). */
static int64_t
number(struct lexer *lx, struct tok t)
{
	int64_t v = 0;

	if (!t.n || t.n > 9) {
		error_at(lx, t, "a number");
		return -1;
	}
	for (size_t i = 0; i < t.n; i++) {
		if (t.s[i] < '0' || t.s[i] > '9') {
			error_at(lx, t, "a number");
			return -1;
		}
		v = v * 10 + (t.s[i] - '0');
	}
	return v;
}

/* IDX := '{' [N {',' N}] '}' */
static int
index_list(struct lexer *lx, struct jindex *x)
{
	struct tok t = next(lx);

	x->depth = 0;
	if (is(peek(lx), "}"))
		return next(lx), 0;
	do {
		t = next(lx);
		if (x->depth == JOINT_MAX_DEPTH) {
			diag_error(lx->ds, t.loc, "a shape index deeper than "
				   "%d", JOINT_MAX_DEPTH);
			return lx->bad = 1, -1;
		}
		if ((x->i[x->depth++] = number(lx, t)) < 0)
			return -1;
		t = next(lx);
	} while (is(t, ","));
	if (!is(t, "}")) {
		error_at(lx, t, "',' or '}'");
		return -1;
	}
	return 0;
}

static int
find_prog(const struct joint_decl *d, struct tok t)
{
	for (int k = 0; k < d->nprog; k++)
		if (strlen(d->prog[k].name) == t.n &&
		    !memcmp(d->prog[k].name, t.s, t.n))
			return k;
	return -1;
}

static int
unknown_prog(struct lexer *lx, struct tok t)
{
	diag_error(lx->ds, t.loc, "no program named '%.*s' (declare it "
		   "first: 'program %.*s FILE')", (int)t.n, t.s, (int)t.n,
		   t.s);
	lx->bad = 1;
	return -1;
}

/* program NAME FILE */
static int
program_line(struct lexer *lx, struct joint_decl *d)
{
	struct tok name = next(lx), file, end;
	struct joint_prog *p;
	int k;

	if (!is_name(name))
		return error_at(lx, name, "a program's name");
	if ((k = find_prog(d, name)) >= 0) {
		diag_error(lx->ds, name.loc, "program '%.*s' declared twice "
			   "(first at line %d)", (int)name.n, name.s,
			   d->prog[k].loc.line);
		lx->bad = 1;
		return -1;
	}
	file = next(lx);
	if (!file.n || file.s[0] == '{' || file.s[0] == '}' ||
	    file.s[0] == ',')
		return error_at(lx, file, "the program's HLO file");
	if ((end = next(lx)).n)
		return error_at(lx, end, "the end of the line");
	p = VEC_PUSH(lx->pool, d->prog, d->nprog, d->capprog);
	p->name = pool_strndup(lx->pool, name.s, name.n);
	p->path = pool_strndup(lx->pool, file.s, file.n);
	p->loc = name.loc;
	return 0;
}

/* USE := PROG [param N [IDX]] [out [IDX]] */
static int
use(struct lexer *lx, struct joint_decl *d, struct joint_array *a)
{
	struct tok t = next(lx);
	struct joint_use u = {.param = -1};

	if (!is_name(t))
		return error_at(lx, t, "a program's name"), -1;
	if ((u.prog = find_prog(d, t)) < 0)
		return unknown_prog(lx, t);
	u.loc = t.loc;
	for (int k = 0; k < a->nuse; k++)
		if (a->use[k].prog == u.prog) {
			diag_error(lx->ds, t.loc, "program '%.*s' named twice "
				   "for shared array '%s' (one use: 'param N "
				   "out{I}' when it reads and writes it)",
				   (int)t.n, t.s, a->name);
			return lx->bad = 1, -1;
		}
	t = next(lx);
	if (is(t, "param")) {
		u.ploc = t.loc;
		if ((u.param = number(lx, next(lx))) < 0)
			return -1;
		if (is(peek(lx), "{") && index_list(lx, &u.pidx))
			return -1;
		t = next(lx);
	}
	if (is(t, "out")) {
		u.oloc = t.loc;
		u.out = 1;
		if (is(peek(lx), "{") && index_list(lx, &u.oidx))
			return -1;
		t = next(lx);
	}
	if (u.param < 0 && !u.out)
		return error_at(lx, t, "'param N' or 'out'"), -1;
	if (t.n && !is(t, ","))
		return error_at(lx, t, "',' or the end of the line"), -1;
	*VEC_PUSH(lx->pool, a->use, a->nuse, a->cap) = u;
	return t.n ? 1 : 0;
}

/* shared NAME USE {',' USE} */
static int
shared_line(struct lexer *lx, struct joint_decl *d)
{
	struct tok name = next(lx);
	struct joint_array *a;
	int r;

	if (!is_name(name))
		return error_at(lx, name, "a shared array's name");
	for (int k = 0; k < d->narray; k++)
		if (strlen(d->arr[k].name) == name.n &&
		    !memcmp(d->arr[k].name, name.s, name.n)) {
			diag_error(lx->ds, name.loc, "shared array '%.*s' "
				   "declared twice (first at line %d)",
				   (int)name.n, name.s, d->arr[k].loc.line);
			lx->bad = 1;
			return -1;
		}
	a = VEC_PUSH(lx->pool, d->arr, d->narray, d->caparray);
	a->name = pool_strndup(lx->pool, name.s, name.n);
	a->loc = name.loc;
	while ((r = use(lx, d, a)) > 0)
		;
	return r;
}

/* calls PROG {PROG} */
static int
calls_line(struct lexer *lx, struct joint_decl *d, struct tok kw)
{
	struct tok t;
	int k;

	if (d->ncall) {
		diag_error(lx->ds, kw.loc, "a second 'calls' line (first at "
			   "line %d)", d->calls_loc.line);
		lx->bad = 1;
		return -1;
	}
	d->calls_loc = kw.loc;
	while ((t = next(lx)).n) {
		if (!is_name(t))
			return error_at(lx, t, "a program's name");
		if ((k = find_prog(d, t)) < 0) {
			return unknown_prog(lx, t);
		}
		*VEC_PUSH(lx->pool, d->call, d->ncall, d->capcall) = k;
	}
	if (!d->ncall)
		return error_at(lx, t, "a program's name");
	return 0;
}

static void
line(struct lexer *lx, struct joint_decl *d)
{
	struct tok kw = next(lx);

	if (!kw.n)
		return;
	if (is(kw, "program"))
		(void)program_line(lx, d);
	else if (is(kw, "shared"))
		(void)shared_line(lx, d);
	else if (is(kw, "calls"))
		(void)calls_line(lx, d, kw);
	else
		(void)error_at(lx, kw, "'program', 'shared' or 'calls'");
}

int
joint_read(struct pool *pool, struct diags *ds, const char *text,
	   size_t len, struct joint_decl *d)
{
	struct lexer lx = {.pool = pool, .ds = ds};
	const char *s = text, *end = text + len, *nl;

	memset(d, 0, sizeof *d);
	if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	for (lx.line = 1; s < end; lx.line++, s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (memchr(s, 0, (size_t)(nl - s))) {
			diag_error(ds, (struct loc){lx.line, 1}, "a NUL byte: "
				   "the declaration is text");
			return -1;
		}
		lx.s = lx.line0 = s;
		lx.end = nl;
		line(&lx, d);
	}
	if (!lx.bad && !d->nprog) {
		diag_error(ds, (struct loc){1, 1}, "no program declared "
			   "('program NAME FILE')");
		lx.bad = 1;
	}
	return lx.bad ? -1 : 0;
}

/* ---- the declaration against the modules -------------------------------- */

static const char *
index_text(struct pool *pool, const struct jindex *x)
{
	char buf[JOINT_MAX_DEPTH * 12 + 3];
	size_t k = 0;

	buf[k++] = '{';
	for (int i = 0; i < x->depth; i++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld",
				      i ? "," : "", (long long)x->i[i]);
	buf[k++] = '}';
	buf[k] = 0;
	return pool_strdup(pool, buf);
}

/* The array a use's parameter node holds, or NULL with an error. */
static const struct shape *
param_shape(struct diags *ds, const struct joint_decl *d,
	    const struct joint_use *u)
{
	const struct module *m = d->prog[u->prog].m;
	const struct comp *e = &m->comps[m->entry];
	const struct shape *s;

	if (u->param >= e->nparam) {
		diag_error(ds, u->ploc, "program '%s' has no parameter %lld "
			   "(it has %d)", d->prog[u->prog].name,
			   (long long)u->param, e->nparam);
		return NULL;
	}
	s = shape_at(&e->instrs[e->params[u->param]].shape, u->pidx.i,
		     u->pidx.depth);
	if (!s || shape_is_tuple(s)) {
		diag_error(ds, u->ploc, "parameter %lld of program '%s' has "
			   "%s at %s", (long long)u->param,
			   d->prog[u->prog].name, s ? "a tuple, not an array,"
			   : "no element", index_text(ds->pool, &u->pidx));
		return NULL;
	}
	return s;
}

static const struct shape *
out_shape(struct diags *ds, const struct joint_decl *d,
	  const struct joint_use *u)
{
	const struct module *m = d->prog[u->prog].m;
	const struct comp *e = &m->comps[m->entry];
	const struct shape *s = shape_at(&e->instrs[e->root].shape, u->oidx.i,
					 u->oidx.depth);

	if (!s || shape_is_tuple(s)) {
		diag_error(ds, u->oloc, "program '%s' has %s at output %s",
			   d->prog[u->prog].name, s ? "a tuple, not an array,"
			   : "no array", index_text(ds->pool, &u->oidx));
		return NULL;
	}
	return s;
}

/* The input_output_alias entry that donates u's parameter node, or NULL. */
static const struct alias *
donation(const struct module *m, const struct joint_use *u)
{
	for (int k = 0; k < m->nalias; k++)
		if (m->aliases[k].param == u->param &&
		    jindex_is(&u->pidx, m->aliases[k].pidx,
			      m->aliases[k].npidx))
			return &m->aliases[k];
	return NULL;
}

/* Reads and writes agree with input_output_alias. */
static int
check_donation(struct diags *ds, const struct joint_decl *d,
	       const struct joint_array *a, const struct joint_use *u)
{
	const struct module *m = d->prog[u->prog].m;
	const struct alias *al = u->param >= 0 ? donation(m, u) : NULL;
	const char *pn = d->prog[u->prog].name;

	if (u->param >= 0 && u->out &&
	    (!al || !jindex_is(&u->oidx, al->out, al->nout))) {
		diag_error(ds, u->oloc, "program '%s' writes shared array "
			   "'%s' (output %s) but does not donate it: "
			   "input_output_alias has no %s: (%lld, %s)", pn,
			   a->name, index_text(ds->pool, &u->oidx),
			   index_text(ds->pool, &u->oidx), (long long)u->param,
			   index_text(ds->pool, &u->pidx));
		return -1;
	}
	if (al && !u->out) {
		struct jindex o = {.depth = al->nout};

		memcpy(o.i, al->out, sizeof *o.i * (size_t)(al->nout <
			JOINT_MAX_DEPTH ? al->nout : JOINT_MAX_DEPTH));
		diag_error(ds, u->ploc, "program '%s' donates parameter %lld "
			   "(input_output_alias) and so overwrites shared "
			   "array '%s', which the declaration does not say it "
			   "writes back: add 'out%s'", pn, (long long)u->param,
			   a->name, index_text(ds->pool, &o));
		return -1;
	}
	return 0;
}

/* A use's node is not another array's (nor this one's twice). */
static int
check_unique(struct diags *ds, const struct joint_decl *d, int ai, int ui)
{
	const struct joint_use *u = &d->arr[ai].use[ui];

	for (int b = 0; b < ai; b++)
		for (int k = 0; k < d->arr[b].nuse; k++) {
			const struct joint_use *v = &d->arr[b].use[k];

			if (v->prog != u->prog)
				continue;
			if (u->param >= 0 && v->param == u->param &&
			    jindex_is(&v->pidx, u->pidx.i, u->pidx.depth)) {
				diag_error(ds, u->ploc, "parameter %lld of "
					   "program '%s' is shared array '%s' "
					   "already", (long long)u->param,
					   d->prog[u->prog].name,
					   d->arr[b].name);
				return -1;
			}
			if (u->out && v->out &&
			    jindex_is(&v->oidx, u->oidx.i, u->oidx.depth)) {
				diag_error(ds, u->oloc, "output %s of program "
					   "'%s' is shared array '%s' already",
					   index_text(ds->pool, &u->oidx),
					   d->prog[u->prog].name,
					   d->arr[b].name);
				return -1;
			}
		}
	return 0;
}

/* Every use's node has the array's one shape and layout. */
static int
check_shape(struct diags *ds, const struct joint_decl *d,
	    struct joint_array *a, const struct joint_use *u,
	    const struct shape *s, struct loc at, const char *what)
{
	if (!a->shape) {
		a->shape = s;
		return 0;
	}
	if (shape_equal(a->shape, s) && a->shape->ntile == s->ntile)
		return 0;
	diag_error(ds, at, "shared array '%s' is %s at %s of program '%s', "
		   "but %s where first named (an array keeps one shape and "
		   "layout)", a->name, ir_shape_string(ds->pool, s), what,
		   d->prog[u->prog].name, ir_shape_string(ds->pool, a->shape));
	return -1;
}

static int
check_use(struct diags *ds, const struct joint_decl *d, int ai, int ui)
{
	struct joint_array *a = &d->arr[ai];
	const struct joint_use *u = &a->use[ui];
	const struct shape *s;
	char what[64];

	if (u->param >= 0) {
		if (!(s = param_shape(ds, d, u)))
			return -1;
		snprintf(what, sizeof what, "parameter %lld",
			 (long long)u->param);
		if (check_shape(ds, d, a, u, s, u->ploc, what))
			return -1;
	}
	if (u->out) {
		if (!(s = out_shape(ds, d, u)))
			return -1;
		snprintf(what, sizeof what, "output %s",
			 index_text(ds->pool, &u->oidx));
		if (check_shape(ds, d, a, u, s, u->oloc, what))
			return -1;
	}
	if (check_donation(ds, d, a, u))
		return -1;
	return check_unique(ds, d, ai, ui);
}

int
joint_check(struct diags *ds, struct joint_decl *d)
{
	int bad = 0;

	for (int a = 0; a < d->narray; a++)
		for (int u = 0; u < d->arr[a].nuse; u++)
			bad |= check_use(ds, d, a, u) < 0;
	return bad ? -1 : 0;
}

/* The run of the scanner and the parser over a text: hlo first, and
 * hlolac where hlo gives up.  No check that needs the whole module here
 * (sema.c); frontend.c runs both. */
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/frontend.h"
#define YYSTYPE union hloval
#define YYLTYPE struct span
#include "lexer.h"

/* The instruction buffer at a line per instruction, as XLA writes them,
 * when that is a large buffer: growing it by doubling copied it and
 * touched twice its size (L09: one computation of 16,828 instructions).
 * A large reservation is a mapping of its own, touched only as it fills;
 * a small one would be a block whose pages fault one by one, and growing
 * a small buffer costs little.  Lines need not hold instructions, so the
 * reservation stops at IBUF_MAX_RESERVE bytes (a file of blank lines must
 * not ask for hundreds of GiB); the buffer still grows past it. */
static void
reserve_ibuf(struct parser *P, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t n = 1, most = IBUF_MAX_RESERVE / sizeof *P->ibuf;

	while (n < most && p < end &&
	       (p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	if (n * sizeof *P->ibuf >= IBUF_RESERVE)
		P->ibuf = vec_reserve(P->ibuf_pool, NULL, &P->ibuf_cap,
				      (int)n, sizeof *P->ibuf);
}
/* One run of a parser over the text, from a fresh scanner: hlo (fast)
 * or hlolac. */
static void
run_parser(struct parser *P, struct lexstate *ls, struct loc at, int fast)
{
	const char *text = ls->src;
	size_t len = ls->len;

	memset(ls, 0, sizeof *ls);
	ls->ds = P->ds;
	ls->src = text;
	ls->len = len;
	ls->cur_line = at.line;
	ls->col0 = at.col;
	ls->after_rbracket = (size_t)-1;
	P->ls = ls;
	P->fast = fast;
	P->depth = BASE_DEPTH;
	if (hlo_lex_init_extra(ls, &P->scanner))
		abort();	/* out of memory */
	lex_begin(P->scanner, fast);
	if (fast)
		hloparse(P);
	else
		hlolacparse(P);
	hlo_lex_destroy(P->scanner);
	P->scanner = NULL;
	if (P->comp)
		comp_finish(P);	/* cut short by an error */
}

/* Forgets what a parse that gave up made: its modules, its messages. */
static void
restart(struct parser *P, struct lexstate *ls, int first)
{
	P->file->nmod = P->file->cap = 0;
	P->file->mods = NULL;
	P->ds->n = first;
	P->mod = NULL;
	P->comp = NULL;
	P->nroot = 0;
	P->syntax_errors = 0;
	P->too_deep = 0;
	P->nanon = 0;
	P->deep_pending = P->aborted = P->gave_up = 0;
	pool_reset(P->tmp);
	ls->errors = 0;
}

/* Parses text whose first byte is at line:col of the file.  hlo parses
 * it; where it gives up, at the first error, hlolac parses it again and
 * reports each error. */
struct hlofile *
syntax_parse(struct pool *pool, const char *text, size_t len,
	     struct diags *ds, struct loc at, int *clean)
{
	struct hlofile *f = pool_alloc(pool, sizeof *f);
	struct lexstate ls = {0};
	struct parser P = {0};
	int first = ds->n;

	*clean = 0;
	f->pool = pool;
	if (len > FRONTEND_MAX_INPUT) {	/* before reading any of it */
		diag_error(ds, (struct loc){0, 0}, "input larger than 1 GiB");
		return f;
	}
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		text += 3;	/* a byte-order mark: columns count after */
		len -= 3;
	}
	if (foreign_format(text, len, ds))
		return f;
	ls.src = text;
	ls.len = len;
	P.file = f;
	P.ds = ds;
	P.pool = pool;
	P.tmp = pool_new();
	P.ibuf_pool = pool_new();
	reserve_ibuf(&P, text, len);
	P.src = text;
	run_parser(&P, &ls, at, 1);
	if (P.gave_up || P.aborted || ls.errors) {
		restart(&P, &ls, first);
		run_parser(&P, &ls, at, 0);
	}
	pool_free(P.ibuf_pool);
	pool_free(P.tmp);
	*clean = P.syntax_errors == 0 && ls.errors == 0;
	return f;
}

struct hlofile *
frontend_parse_at(struct pool *pool, const char *text, size_t len,
		  struct diags *ds, struct loc at)
{
	int clean;

	return syntax_parse(pool, text, len, ds, at, &clean);
}

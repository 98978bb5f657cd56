/* The frontend: the syntax (syntax.c), then the checks that need the
 * whole module (sema.c), and the messages in the order of the text. */
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_internal.h"
#include "frontend/frontend.h"

static int
cmp_diag(const void *a, const void *b)
{
	const struct diag *x = *(const struct diag *const *)a;
	const struct diag *y = *(const struct diag *const *)b;

	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	if (x->loc.col != y->loc.col)
		return x->loc.col < y->loc.col ? -1 : 1;
	return (x > y) - (x < y);	/* stable: the order of reporting */
}

/* Puts the diagnostics from index `from` on in the order of the text: the
 * checks after parsing report in their own order. */
static void
sort_diags(struct pool *pool, struct diags *ds, int from)
{
	size_t n = (size_t)(ds->n - from);
	struct diag **p, *sorted;

	if (ds->n - from < 2)
		return;
	p = pool_alloc(pool, sizeof *p * n);
	sorted = pool_alloc(pool, sizeof *sorted * n);
	for (size_t i = 0; i < n; i++)
		p[i] = &ds->d[(size_t)from + i];
	qsort(p, n, sizeof *p, cmp_diag);
	for (size_t i = 0; i < n; i++)
		sorted[i] = *p[i];
	memcpy(&ds->d[from], sorted, sizeof *sorted * n);
}

struct hlofile *
frontend_parse(struct pool *pool, const char *text, size_t len,
	       struct diags *ds)
{
	int first = ds->n, clean;
	struct hlofile *f = syntax_parse(pool, text, len, ds,
					 (struct loc){1, 1}, &clean);

	/* Name checks need the whole tree; unknown types and opcodes do not
	 * stop them, so that every such error in a file is reported. */
	if (clean)
		for (int i = 0; i < f->nmod; i++)
			sema_module(pool, ds, &f->mods[i]);
	sort_diags(pool, ds, first);
	return f;
}

/* The facts' store: values and their union-find in struct prog, and the
 * nodes of a shape, used by every pass that follows values.  Called by
 * rules.c, values.c, sets.c and the rest, and calling none of them. */
#include <string.h>

#include "passes/passes.h"

int
shape_nodes(const struct shape *s)
{
	int n = 1;

	for (int i = 0; i < s->nelem; i++)
		n += shape_nodes(&s->elems[i]);
	return n;
}

/* The node of element i of a tuple shape, counted from the tuple's node. */
int
shape_child(const struct shape *s, int i)
{
	int n = 1;

	for (int k = 0; k < i; k++)
		n += shape_nodes(&s->elems[k]);
	return n;
}

int
prog_find(struct prog *p, int v)
{
	struct value *x = p->values;

	while (x[v].parent != v) {
		x[v].parent = x[x[v].parent].parent;
		v = x[v].parent;
	}
	return v;
}

void
prog_union(struct prog *p, int a, int b)
{
	a = prog_find(p, a);
	b = prog_find(p, b);
	if (a == b)
		return;
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	p->values[b].parent = a;	/* the earlier value names it */
}

int
prog_val(const struct prog *p, int c, int i, int node)
{
	return p->nodeval[p->nodebase[c][i] + node];
}

int
called_comp(const struct module *m, const struct instr *in, const char *key)
{
	(void)m;
	for (int j = 0; j < in->ncall; j++)
		if (!strcmp(in->callkey[j], key))
			return in->calls[j];
	return -1;
}

int
prog_new_value(struct prog *p, int c, int i, int node, const struct shape *s,
	       int flags)
{
	struct value *v = VEC_PUSH(p->pool, p->values, p->nval, p->valcap);

	v->comp = c;
	v->instr = i;
	v->node = node;
	v->shape = s;
	v->flags = flags | (shape_is_tuple(s) ? BUF_TABLE : 0);
	v->parent = p->nval - 1;
	v->tail = -1;
	return p->nval - 1;
}

/* gather and scatter, as XLA's operation semantics define them (with
 * batching dimensions): gather clamps its start indices into the operand
 * (a slice of size 0 gathers zeros, as XLA's GatherSimplifier folds it);
 * scatter drops an update window that does not fit, and in the plan's run
 * writes only its updates into the output, which already holds operand 0. */
#include <string.h>

#include "passes/passes.h"
#include "tests/oracle/arrays.h"

/* The dimension numbers shared by both: what the index vectors hold and
 * how windows lie in the operand. */
struct dnums {
	int64_t map[MAXRANK];		/* start_index_map, or
					   scatter_dims_to_operand_dims */
	int64_t win[MAXRANK];		/* offset_dims, or
					   update_window_dims */
	int64_t gone[MAXRANK];		/* collapsed_slice_dims,
					   inserted_window_dims */
	int64_t obatch[MAXRANK], ibatch[MAXRANK];
	int nmap, nwin, ngone, nbatch;
	int64_t ivd;			/* index_vector_dim */
	int wdim[MAXRANK];		/* operand dims the window walks */
};

static int
has(const int64_t *v, int n, int64_t x)
{
	for (int k = 0; k < n; k++)
		if (v[k] == x)
			return 1;
	return 0;
}

/* Reads the attributes; the operand dims of the window in order. */
static void
read_dnums(struct op *o, struct dnums *D, const char *const *keys,
	   const struct shape *os, const struct shape *is)
{
	D->nmap = need_ints(o, keys[0], D->map, -1, 1);
	D->nwin = need_ints(o, keys[1], D->win, -1, 1);
	D->ngone = need_ints(o, keys[2], D->gone, -1, 1);
	D->nbatch = need_ints(o, keys[3], D->obatch, -1, 1);
	if (need_ints(o, keys[4], D->ibatch, -1, 1) != D->nbatch)
		bad_attr(o, keys[4]);
	if (attr_ints(o, "index_vector_dim", &D->ivd, 1) != 1 ||
	    D->ivd > is->rank || D->ivd < 0)
		bad_attr(o, "index_vector_dim");
	for (int d = 0, n = 0; d < os->rank; d++)
		if (!has(D->gone, D->ngone, d) &&
		    !has(D->obatch, D->nbatch, d)) {
			if (n == MAXRANK)
				bad_attr(o, keys[1]);
			D->wdim[n++] = d;
		}
	for (int k = 0; k < D->nmap; k++)
		if (D->map[k] >= os->rank)
			bad_attr(o, keys[0]);
	if (D->nwin + D->ngone + D->nbatch != os->rank)
		bad_attr(o, keys[1]);
}

/* The start in the operand of the window at batch position g (indices
 * of the index array without index_vector_dim): st[d] per operand dim. */
static void
window_start(struct op *o, const struct dnums *D, const struct shape *is,
	     const unsigned char *ip, const int64_t *g, int64_t *st,
	     int rank)
{
	int64_t ist[MAXRANK], base = 0, vstride;
	int n = 0;

	strides(is, ist);
	vstride = D->ivd < is->rank ? ist[D->ivd] : 0;
	memset(st, 0, sizeof(int64_t) * (size_t)rank);
	for (int d = 0; d < is->rank; d++)
		if (d != D->ivd)
			base += g[n++] * ist[d];
	for (int k = 0; k < D->nmap; k++) {
		union num v = num_get(is->type, ip, base + k * vstride);

		st[D->map[k]] = num_kind(is->type) == NK_S ? v.s :
				(int64_t)(v.u >> 1 >> 62 ? INT64_MAX : v.u);
	}
	for (int k = 0; k < D->nbatch; k++) {
		int pos = 0;

		for (int d = 0; d < D->ibatch[k] && d < is->rank; d++)
			pos += d != D->ivd;
		st[D->obatch[k]] = g[pos];
	}
	(void)o;
}

/* ---- gather ------------------------------------------------------------- */

static const char *const gather_keys[] = {
	"start_index_map", "offset_dims", "collapsed_slice_dims",
	"operand_batching_dims", "start_indices_batching_dims",
};

static void
gather(struct op *o)
{
	const struct shape *os = &o->in->shape, *src = o->as[0],
			   *is = o->as[1];
	struct dnums D;
	int64_t size[MAXRANK], idx[MAXRANK] = {0}, g[MAXRANK], st[MAXRANK];
	int64_t sst[MAXRANK], i = 0;
	int es = num_size(os->type);

	read_dnums(o, &D, gather_keys, src, is);
	need_ints(o, "slice_sizes", size, src->rank, 0);
	strides(src, sst);
	if (elems(os) == 0)
		return;
	for (int d = 0; d < src->rank; d++)
		if (size[d] == 0) {	/* XLA's GatherSimplifier: zeros */
			memset(o->out[0], 0, (size_t)shape_bytes(os));
			return;
		}
	do {
		int64_t at = 0;
		int n = 0;

		for (int d = 0; d < os->rank; d++)
			if (!has(D.win, D.nwin, d))
				g[n++] = idx[d];
		window_start(o, &D, is, o->arg[1][0], g, st, src->rank);
		for (int d = 0; d < src->rank; d++) {
			int64_t hi = src->dims[d] - size[d];

			st[d] = st[d] < 0 ? 0 : st[d] > hi ? hi : st[d];
		}
		for (int k = 0; k < D.nwin; k++)
			st[D.wdim[k]] += idx[D.win[k]];
		for (int d = 0; d < src->rank; d++)
			at += st[d] * sst[d];
		copy_elem(o->out[0], i++, o->arg[0][0], at, es);
	} while (next_index(idx, os->dims, os->rank));
	interp_work(o->st, i);
}

/* ---- scatter ------------------------------------------------------------ */

static const char *const scatter_keys[] = {
	"scatter_dims_to_operand_dims", "update_window_dims",
	"inserted_window_dims", "input_batching_dims",
	"scatter_indices_batching_dims",
};

/* Operand k's array in the output; in the reference run (or out of
 * place) the output starts as a copy of the operand. */
static unsigned char *
scatter_out(struct op *o, int k, int n)
{
	unsigned char *out = o->out[n == 1 ? 0 : 1 + k];

	if ((!o->in_place || n > 1) && out != o->arg[k][0])
		memmove(out, o->arg[k][0], (size_t)shape_bytes(o->as[k]));
	return out;
}

/* Does the window at st (sizes from the update's window dims) fit? */
static int
window_fits(const struct dnums *D, const struct shape *src,
	    const struct shape *us, const int64_t *st)
{
	for (int d = 0; d < src->rank; d++) {
		int64_t size = 1;

		for (int k = 0; k < D->nwin; k++)
			if (D->wdim[k] == d)
				size = us->dims[D->win[k]];
		if (st[d] < 0 || st[d] > src->dims[d] - size)
			return 0;
	}
	return 1;
}

static void
scatter_check(struct op *o, int n)
{
	if (n < 1 || n > MAXRANK || o->in->nops != 2 * n + 1 ||
	    (n > 1 && (!shape_is_tuple(&o->in->shape) ||
		       o->in->shape.nelem != n)))
		interp_fail(o->st, INTERP_SKIP, "'%s': scatter of this form",
			    o->in->name);
	for (int k = 0; k < 2 * n + 1; k++)
		if (shape_is_tuple(o->as[k]))
			interp_fail(o->st, INTERP_SKIP, "'%s': scatter of "
				    "this form", o->in->name);
}

static void
scatter(struct op *o)
{
	int n = (o->in->nops - 1) / 2, types[MAXRANK];
	const struct shape *src = o->as[0], *is, *us;
	struct dnums D;
	struct combiner C;
	unsigned char *acc[MAXRANK], *upd[MAXRANK];
	int64_t idx[MAXRANK] = {0}, g[MAXRANK], st[MAXRANK], sst[MAXRANK];
	int64_t i = 0;

	scatter_check(o, n);
	is = o->as[n];
	us = o->as[n + 1];
	read_dnums(o, &D, scatter_keys, src, is);
	for (int k = 0; k < n; k++) {
		types[k] = o->as[k]->type;
		acc[k] = scatter_out(o, k, n);
		upd[k] = o->arg[n + 1 + k][0];
	}
	combiner_init(o, &C, to_apply(o), n, types);
	strides(src, sst);
	if (elems(us) > 0)
		do {
			int64_t at = 0;
			int m = 0;

			for (int d = 0; d < us->rank; d++)
				if (!has(D.win, D.nwin, d))
					g[m++] = idx[d];
			window_start(o, &D, is, o->arg[n][0], g, st,
				     src->rank);
			if (window_fits(&D, src, us, st)) {
				for (int k = 0; k < D.nwin; k++)
					st[D.wdim[k]] += idx[D.win[k]];
				for (int d = 0; d < src->rank; d++)
					at += st[d] * sst[d];
				combine(&C, acc, at, upd, i);
			}
			i++;
		} while (next_index(idx, us->dims, us->rank));
	interp_work(o->st, i + 1);
}

const struct kernel gather_kernels[] = {
	{"gather", gather, 0}, {"scatter", scatter, 1},
};
const int gather_nkernels = sizeof gather_kernels / sizeof gather_kernels[0];

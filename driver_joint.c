/* Several programs, one arena, at a glance: the declaration read, each
 * module parsed and checked against it, each program planned alone, then
 * the joint plan, every program's plan verified again and the joint plan
 * checked apart (issue 41; doc/joint.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "allocators/allocators.h"
#include "checker/verify.h"
#include "checker/verify_joint.h"
#include "driver.h"
#include "driver_joint.h"
#include "frontend/frontend.h"

static struct diags *
new_diags(struct joint_run *r, const char *file, const char *src, size_t len)
{
	struct diags *ds = pool_alloc(r->pool, sizeof *ds);

	ds->pool = r->pool;
	ds->file = file;
	ds->src = src;
	ds->srclen = len;
	*VEC_PUSH(r->pool, r->diags, r->ndiag, r->capdiag) = ds;
	return ds;
}

/* A whole file into the pool, or NULL (r->status 2, and an error at loc
 * in ds when there is one). */
static char *
read_file(struct joint_run *r, const char *path, size_t *len,
	  struct diags *ds, struct loc loc)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, k;
	char *buf, *nb;

	if (!f)
		goto fail;
	buf = pool_alloc(r->pool, cap + 1);
	while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n > FRONTEND_MAX_INPUT)
			break;
		if (n == cap) {
			nb = pool_alloc(r->pool, 2 * cap + 1);
			memcpy(nb, buf, n);
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		fclose(f);
		goto fail;
	}
	fclose(f);
	*len = n;
	return buf;
fail:
	r->status = 2;
	if (ds)
		diag_error(ds, loc, "cannot read '%s': %s", path,
			   strerror(errno));
	else
		r->io_error = pool_printf(r->pool, "cannot read '%s': %s",
					  path, strerror(errno));
	return NULL;
}

/* A program's file, beside the declaration unless absolute. */
static const char *
beside(struct pool *pool, const char *decl, const char *path)
{
	const char *slash = strrchr(decl, '/');

	if (path[0] == '/' || !slash)
		return path;
	return pool_printf(pool, "%.*s/%s", (int)(slash - decl + 1), decl,
			   path);
}

static int
parse_programs(struct joint_run *r, const char *decl, struct diags *dd)
{
	struct joint_decl *d = &r->decl;
	int bad = 0;

	for (int k = 0; k < d->nprog; k++) {
		const char *path = beside(r->pool, decl, d->prog[k].path);
		size_t len;
		char *text = read_file(r, path, &len, dd, d->prog[k].loc);
		struct hlofile *f;
		struct diags *ds;

		if (!text)
			return -1;
		ds = new_diags(r, path, text, len);
		f = frontend_parse(r->pool, text, len, ds);
		if (ds->n) {
			bad = 1;
			continue;
		}
		if (f->nmod != 1) {
			diag_error(dd, d->prog[k].loc, "'%s' holds %d modules; "
				   "a program is one", d->prog[k].path,
				   f->nmod);
			bad = 1;
			continue;
		}
		d->prog[k].m = &f->mods[0];
	}
	return bad ? -1 : joint_check(dd, d);
}

/* PREFIX_PROGRAM_GPU */
static const char *
prefix_of(struct pool *pool, const char *prefix, const char *prog, int t)
{
	char *s = pool_printf(pool, "%s_%s_%s", prefix, prog,
			      t == TARGET_GPU ? "GPU" : "TPU");

	for (char *q = s; *q; q++)
		*q = (*q >= 'a' && *q <= 'z') ? (char)(*q - 32) :
		     ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')) ?
		     *q : '_';
	return s;
}

static int
plan_target(struct joint_run *r, struct joint_plan *jp, struct options o,
	    const struct joint_opts *jo, struct diags *dd)
{
	const struct joint_decl *d = &r->decl;
	char err[512];

	o.io_in_arena = 1;
	o.reuse_params = 0;
	jp->nprog = d->nprog;
	jp->plans = pool_alloc(r->pool, sizeof *jp->plans *
			       (size_t)(d->nprog + 1));
	jp->prefixes = pool_alloc(r->pool, sizeof(char *) *
				  (size_t)(d->nprog + 1));
	for (int k = 0; k < d->nprog; k++) {
		jp->prefixes[k] = prefix_of(r->pool, jo->prefix ? jo->prefix :
					    "HLOPLAN", d->prog[k].name,
					    o.target);
		if (plan_module(r->pool, r->diags[1 + k], d->prog[k].m, &o,
				NULL, &jp->plans[k]) < 0)
			return -1;
	}
	if (plan_joint(r->pool, dd, d, &o, jp))
		return -1;
	for (int k = 0; k < d->nprog; k++)
		if (verify_plan(d->prog[k].m, &o, &jp->plans[k], err,
				sizeof err)) {
			diag_error(r->diags[1 + k], d->prog[k].m->loc,
				   "internal error: the joint plan of program "
				   "'%s' fails verification: %s",
				   d->prog[k].name, err);
			return -1;
		}
	if (verify_joint(d, jp, err, sizeof err)) {
		diag_error(dd, (struct loc){1, 1}, "internal error: the joint "
			   "plan fails its check: %s", err);
		return -1;
	}
	return 0;
}

/* The call sequence (each program once when none is declared) replayed
 * through each allocator model: the arrays from the start to the end, each
 * call's own buffers of S(0) over its steps. */
static void
replay_calls(struct joint_run *r, int t)
{
	const struct joint_decl *d = &r->decl;
	const struct joint_plan *jp = &r->jp[t];
	int ncall = d->ncall ? d->ncall : d->nprog, n = 0, cap = jp->narray;
	int64_t at = 0;
	struct alloc_req *req;
	struct alloc_run run;

	for (int c = 0; c < ncall; c++)
		cap += jp->plans[d->ncall ? d->call[c] : c].nbuf;
	req = pool_alloc(r->pool, sizeof *req * (size_t)(cap + 1));
	for (int a = 0; a < jp->narray; a++, n++)
		req[n] = (struct alloc_req){jp->size[a], 0, 0, n};
	for (int c = 0; c < ncall; c++) {
		int k = d->ncall ? d->call[c] : c;
		const struct plan *pl = &jp->plans[k];

		for (int b = 0; b < pl->nbuf; b++) {
			const struct buffer *x = &pl->bufs[b];
			int mine = 1;

			for (int a = 0; a < jp->narray; a++)
				mine &= jp->buf[k][a] != b;
			if (!mine || !x->in_arena || x->space != 0)
				continue;
			req[n] = (struct alloc_req){x->size,
				(int32_t)(at + x->start),
				(int32_t)(at + x->end), n};
			n++;
		}
		at += pl->ntime;
	}
	for (int a = 0; a < jp->narray; a++)
		req[a].end = (int32_t)(at > 0 ? at - 1 : 0);
	for (int k = 0; k < NALLOC; k++) {
		alloc_replay(r->pool, k, req, n, -1, &run);
		r->allocs[t][k] = (struct joint_alloc){alloc_name(k),
						       run.peak_reserved};
	}
	r->nalloc = NALLOC;
}

void
plan_programs(struct joint_run *r, const char *decl, const struct options *o,
	      const struct joint_opts *jo)
{
	size_t len;
	char *text;
	struct diags *dd;

	r->pool = pool_new();
	if (!(text = read_file(r, decl, &len, NULL, (struct loc){0, 0})))
		return;
	dd = new_diags(r, decl, text, len);
	if (joint_read(r->pool, dd, text, len, &r->decl) ||
	    parse_programs(r, decl, dd)) {
		r->status = r->status ? r->status : 1;
		return;
	}
	for (int t = TARGET_GPU; t <= TARGET_TPU; t++) {
		struct options ot = *o;
		struct joint_plan *jp = &r->jp[r->nplan];

		if (!(jo->targets & (1 << t)))
			continue;
		ot.target = t;
		jp->target = t;
		if (plan_target(r, jp, ot, jo, dd)) {
			r->status = 1;
			return;
		}
		if (jo->allocators)
			replay_calls(r, r->nplan);
		r->nplan++;
	}
}

void
joint_print_diags(const struct joint_run *r, FILE *out)
{
	for (int k = 0; k < r->ndiag; k++)
		diag_print(r->diags[k], out);
	if (r->io_error)
		fprintf(out, "hloplan: %s\n", r->io_error);
}

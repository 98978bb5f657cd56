/* The plans as the public structs of include/hloplan.h (hloplan_get_plan):
 * buffers, arenas, copies, loops, positions and allocator replays, copied
 * into the result's pool on the first call. */
#include "api.h"
#include "codegen/codegen.h"

static void
export_buffer(struct hloplan_buffer *d, const struct buffer *b)
{
	d->name = b->name;
	d->flags = b->flags;
	d->space = b->space;
	d->in_arena = b->in_arena;
	d->offset = b->in_arena ? b->offset : -1;
	d->size = b->size;
	d->bytes = b->bytes;
	d->start = b->start;
	d->end = b->end;
	d->slots = b->slots > 1 ? b->slots : 1;
	d->stride = b->slots > 1 ? b->stride : 0;
}

static struct hloplan_position *
export_positions(struct pool *pool, const struct plan *p)
{
	struct hloplan_position *d =
		pool_alloc(pool, sizeof *d * (size_t)(p->npos + 1));

	for (int k = 0; k < p->npos; k++) {
		const struct plan_pos *q = &p->pos[k];

		d[k] = (struct hloplan_position){
			q->comp_name, q->name, q->depth, q->index, q->buf,
			q->defines || q->copied, q->slot, q->param, q->output,
			q->size, codegen_shape_text(pool, q->shape)};
	}
	return d;
}

static void
export_arrays(struct pool *pool, struct hloplan_plan *d, const struct plan *p)
{
	struct hloplan_buffer *bufs;
	struct hloplan_arena *arenas;
	struct hloplan_copy *copies;
	struct hloplan_loop *loops;

	bufs = pool_alloc(pool, sizeof *bufs * (size_t)(p->nbuf + 1));
	for (int i = 0; i < p->nbuf; i++)
		export_buffer(&bufs[i], &p->bufs[i]);
	arenas = pool_alloc(pool, sizeof *arenas * (size_t)(p->narena + 1));
	for (int i = 0; i < p->narena; i++)
		arenas[i] = (struct hloplan_arena){
			p->arenas[i].space, p->arenas[i].size,
			p->arenas[i].lower, p->arenas[i].nbuf};
	copies = pool_alloc(pool, sizeof *copies * (size_t)(p->ncopy + 1));
	for (int i = 0; i < p->ncopy; i++)
		copies[i] = (struct hloplan_copy){
			p->copies[i].src, p->copies[i].dst, p->copies[i].step,
			p->copies[i].after, p->copies[i].bytes,
			p->copies[i].loop};
	loops = pool_alloc(pool, sizeof *loops * (size_t)(p->nloop + 1));
	for (int i = 0; i < p->nloop; i++)
		loops[i] = (struct hloplan_loop){
			p->loops[i].first, p->loops[i].cond_last,
			p->loops[i].step, p->loops[i].parent,
			p->loops[i].trips, p->loops[i].trips_from};
	d->loops = loops;
	d->nloop = p->nloop;
	d->buffers = bufs;
	d->nbuffer = p->nbuf;
	d->arenas = arenas;
	d->narena = p->narena;
	d->copies = copies;
	d->ncopy = p->ncopy;
	d->positions = export_positions(pool, p);
	d->nposition = p->npos;
}

static void
export_allocators(struct pool *pool, struct hloplan_plan *d,
		  const struct plan *p)
{
	struct hloplan_allocator *a =
		pool_alloc(pool, sizeof *a * (size_t)(p->nalloc + 1));

	for (int k = 0; k < p->nalloc; k++) {
		const struct alloc_run *x = &p->allocs[k];

		a[k] = (struct hloplan_allocator){
			x->name, x->peak_reserved, x->peak_allocated,
			x->region, x->exceeded};
	}
	d->nallocator = p->nalloc;
	d->allocators = p->nalloc ? a : NULL;
	d->allocator_buffers = p->alloc_buffers;
}

void
export_plans(struct hloplan_result *r)
{
	r->pub = pool_alloc(r->pool, sizeof *r->pub *
					     (size_t)(r->run.set.nplan + 1));
	for (int i = 0; i < r->run.set.nplan; i++) {
		const struct plan *p = &r->run.plans[i];
		struct hloplan_plan *d = &r->pub[i];

		d->module = p->module;
		d->target = p->target == TARGET_GPU ? HLOPLAN_TARGET_GPU :
						      HLOPLAN_TARGET_TPU;
		d->prefix = r->run.prefixes[i];
		d->align = p->align;
		d->nstep = p->ntime;
		d->steps = p->steps;
		d->schedule = p->sched.name ? p->sched.name : "text";
		d->peak = p->sched.peak;
		d->peak_text = p->sched.peak_text;
		d->const_bytes = p->const_bytes;
		d->const_data = p->const_bytes ? p->const_data : NULL;
		d->const_base = codegen_constants_base(&r->run.set, i);
		export_arrays(r->pool, d, p);
		export_allocators(r->pool, d, p);
	}
}

/* The checker's symbolic run, shared by its two files: verify_run.c (the
 * run: reads, writes, copies, loops, branches, kernels) and verify_setup.c
 * (what it runs over: the plan's positions, steps, buffers and copies
 * indexed, the entry's parameters written and its result read). */
#ifndef HLOPLAN_VERIFY_RUN_H
#define HLOPLAN_VERIFY_RUN_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "checker/verify_internal.h"
#include "checker/verify.h"
#include "ir/ir.h"
#include "ir/table.h"

enum { TAG_VALUE, TAG_TABLE, TAG_POISON };

/* What a tag stands for: a value written by position pos at a step and
 * iteration, a tuple index table (its contents depend on its shape only),
 * or bytes clobbered by a loop or a branch (pos: the while or
 * conditional, why: how). */
struct tag {
	int64_t bytes;		/* a value's: as written (a reader checks no
				   more: beyond them a wider layout pads) */
	uint32_t parent;	/* a loop state element's: the value it
				   starts as (0: none) */
	int pos;
	int32_t step, iter;
	uint8_t kind;
	uint8_t why;		/* a poison's: an index in whys[] */
};


enum { WHY_NONE, WHY_LOOP, WHY_BRANCH, WHY_STATE, WHY_RESULT };

struct vr {
	const struct module *m;
	const struct options *o;
	const struct plan *pl;
	int **posbase;		/* [c][i]: first position; NULL: a kernel's */
	int **stepof;		/* [c][i]: its step */
	int **order;		/* [c]: instructions by step */
	int *norder;
	int nstep;
	int *comp_of_pos, *instr_of_pos;	/* per position */
	const struct shape **nshape;	/* per position: the node's shape */
	int *nsub;		/* per position: the nodes of its subtree */
	int64_t *nbytes;	/* per position: bytes read and written */
	uint32_t *cur;		/* per position: the tag it holds now */
	int *region;		/* per buffer */
	int *slotcomp;		/* per slotted buffer: where it is made */
	int *readonly;		/* per buffer: 1 constant, 2 caller's param */
	int *cfirst, *cidx;	/* step t's copies: cidx[cfirst[t] ..] */
	int *entry_of;		/* per copy: the while position it enters */
	int64_t *iter_of;	/* per computation: its loop's iteration */
	int64_t iters[256];	/* the loops running, innermost last */
	int depth;
	int *kslots;		/* per computation: the most slots of a
				   buffer whose values it makes, or 0 */
	int nest;		/* branches and loops whose writes count */
	int32_t now;		/* the step running */
	struct tag *tags;
	uint32_t ntag, captag;
	struct table tabs;	/* shape_hash to its table's tag */
	struct vm_piece *tmp;	/* a loop's or branch's writes, merged */
	size_t captmp;
	struct vmap *mem;
	struct verify_span *span;	/* per tag, when asked for: where it
					   was written, when, its last read */
	int64_t clock;		/* reads and writes so far */
	int path, npath, cappath;	/* the branch run now, and each
					   one's parent (spans only) */
	int *parent;
	char *err;
	size_t errlen;
	jmp_buf jb;
	void **live;		/* what vr_alloc gave and vr_free did not
				   take back: freed at the end, failed or not */
	int nlive, caplive;
};

/* verify_run.c: its allocator, failure, tags and reads and writes, for the
 * setting up. */
/* Who reads or writes, named only when a message needs it: the
 * instruction at a position, the caller (WHO_RESULT), plan copy k
 * (WHO_COPY(k)); WHO_NONE writes where nothing else may. */
enum { WHO = 320, WHO_NONE = -1, WHO_RESULT = -2, WHO_ENDS = 1 << 30,
       WHO_KEPT = WHO_ENDS - 1 };
#define WHO_COPY(k) (-3 - (k))
#define WHO_END(c) (WHO_ENDS + (c))	/* computation c's end */

int vr_callee(const struct instr *in, const char *key);
void vr_define(struct vr *v, int pos, int who);
int vr_fill_nodes(const struct shape *s, const struct shape **out, int *nsub,
	   int *node);
void vr_need_all(struct vr *v, int base, int who);
void vr_need(struct vr *v, int pos, int who);
uint32_t vr_new_tag(struct vr *v, int kind, int pos, int why);
int vr_nodes_of(const struct shape *s);
int vr_opcode(const struct instr *in);
void vr_pos_name(const struct vr *v, int pos, char *buf, size_t n);
void *vr_alloc(struct vr *v, size_t n);
void vr_free(struct vr *v, void *p);
_Noreturn void vr_fail(struct vr *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* verify_run.c: running computations and the copies at a step, for the
 * kernels; verify_kernels.c: an instruction or a computation run. */
int vr_ends_with(const char *s, const char *tail);
void vr_forward_tree(struct vr *v, int dst, int src, int n, int who);
void vr_need_at(struct vr *v, int pos, uint64_t a, uint32_t t, int who);
const char *vr_opname(const struct instr *in);
int vr_root_pos(struct vr *v, int d, int who);
void vr_run_call(struct vr *v, int c, int i, int who);
void vr_run_conditional(struct vr *v, int c, int i, int who);
void vr_run_while(struct vr *v, int c, int i, int who);
void vr_step_copies(struct vr *v, int32_t t, int after);
uint64_t vr_where(const struct vr *v, int pos);
void vr_run_comp(struct vr *v, int c, const int *args);
_Noreturn void vr_failw(struct vr *v, int who, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* verify_setup.c */
void vr_setup(struct vr *v);
void vr_write_params(struct vr *v);
void vr_read_result(struct vr *v);
void vr_read_kept_params(struct vr *v);

#endif

/* The checker's private header, shared by its files (verify.c, verify_run.c,
 * verify_map.c, verify_size.c, verify_xla.c) and by nothing it checks. */
#ifndef HLOPLAN_VERIFY_INTERNAL_H
#define HLOPLAN_VERIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* ---- verify_map.c: which value's bytes each byte holds -------------------
 * An interval map from addresses to tags (a treap of disjoint segments);
 * an address is a region (an arena, or a buffer out of the arenas) in the
 * bits above VM_REGION_SHIFT and an offset below.  Tag 0 is "never
 * written".  Every assignment is journaled with what it replaced, so that
 * a branch can be undone and a loop can tell what it wrote. */
enum { VM_REGION_SHIFT = 42 };
#define VM_MAX_OFFSET (UINT64_C(1) << VM_REGION_SHIFT)

struct vm_piece {
	uint64_t lo, hi;	/* [lo, hi) */
	uint32_t tag;
};

struct vmap;

struct vmap *vm_new(void);
void vm_free(struct vmap *m);
/* Bytes [lo, hi) hold tag from now on (0: forget them). */
void vm_assign(struct vmap *m, uint64_t lo, uint64_t hi, uint32_t tag);
/* Calls fn for each piece of [lo, hi) in order, gaps as tag 0; stops and
 * returns fn's value when it is not 0. */
int vm_visit(const struct vmap *m, uint64_t lo, uint64_t hi,
	     int (*fn)(void *arg, const struct vm_piece *p), void *arg);
/* The journal: its length now, the pieces since mark (each assignment's
 * range, tagged VM_WRITTEN, then the pieces it replaced), undoing back to
 * mark, and dropping it all (nothing will be undone). */
#define VM_WRITTEN UINT32_MAX
size_t vm_mark(const struct vmap *m);
const struct vm_piece *vm_journal(const struct vmap *m, size_t mark,
				  size_t *n);
void vm_undo(struct vmap *m, size_t mark);
void vm_forget(struct vmap *m);
/* The assignments since mark stay, but as if nothing had been written:
 * no undo or clobber sees them (a new name for the same bytes). */
void vm_forget_since(struct vmap *m, size_t mark);

/* ---- verify_size.c: the bytes a shape needs ----------------------------- */

struct module;
struct options;
struct shape;

/* The bytes XLA lays a shape out in for o's target (README "Sizes"), before
 * alignment; -1 on overflow. */
int64_t vs_bytes(const struct options *o, const struct shape *s);
int vs_nodes(const struct shape *s);	/* s and every subshape */
/* The shape entry_computation_layout gives the entry's output at preorder
 * node `node`, when it is an array like s (type, dimensions) and does not
 * lay it out in fewer bytes with other tiles; else NULL. */
const struct shape *vs_result(const struct module *m, const struct options *o,
			      int node, const struct shape *s);

/* ---- verify_xla.c: XLA's kernel contract ---------------------------------
 * May output node `node` of in lie exactly over node `knode` of operand k,
 * which it reads: XLA runs the kernel in place there, or lets it take the
 * operand over (elementwise ops aside, which the caller checks)? */
struct comp;
struct instr;
int vx_permute_node(const struct instr *in, int knode);
int vx_over(const struct module *m, const struct comp *c,
	    const struct instr *in, int k, int knode, int node);

/* ---- verify_run.c: the plan run symbolically ---------------------------- */

struct plan;

/* Runs the module inside the plan with a tag for data: every value's bytes
 * intact from its write to each of its reads.  0, or 1 with a message. */
int verify_values(const struct module *m, const struct options *o,
		  const struct plan *pl, char *err, size_t errlen);

#endif

/* The constants blob (--constants): the bytes of every plan's constants as
 * laid out in their buffers (plan.const_data, filled by the passes), plan
 * after plan, each plan's part starting at a multiple of 64 and padded with
 * zeros to the next.  The header finds a constant at its plan's base
 * (codegen_constants_base) plus its offset in const_data. */
#include "codegen/codegen.h"

enum { BLOB_ALIGN = 64 };

static int64_t
part_size(const struct plan *p)
{
	return (p->const_bytes + BLOB_ALIGN - 1) / BLOB_ALIGN * BLOB_ALIGN;
}

int64_t
codegen_constants_base(const struct plan_set *s, int plan)
{
	int64_t at = 0;

	for (int i = 0; i < plan && i < s->nplan; i++)
		at += part_size(&s->plans[i]);
	return at;
}

void
codegen_constants(FILE *out, const struct plan_set *s)
{
	static const unsigned char zeros[BLOB_ALIGN];

	for (int i = 0; i < s->nplan; i++) {
		const struct plan *p = &s->plans[i];

		if (p->const_bytes > 0)
			fwrite(p->const_data, 1, (size_t)p->const_bytes, out);
		fwrite(zeros, 1, (size_t)(part_size(p) - p->const_bytes), out);
	}
}

/* The shape indices of a joint declaration (ir/joint.h). */
#include "ir/joint.h"

int
jindex_is(const struct jindex *j, const int64_t *a, int na)
{
	if (na != j->depth)
		return 0;
	for (int i = 0; i < na; i++)
		if (a[i] != j->i[i])
			return 0;
	return 1;
}

/* Small readers of attribute text, and which attributes name called
 * computations: asked by the checks, the inference and the desugaring. */
#include <ctype.h>
#include <string.h>

#include "frontend/frontend_internal.h"

int
read_int(const char **p, const char *end, int64_t *v)
{
	const char *s = *p;
	int neg = 0;

	*v = 0;
	while (s < end && isspace((unsigned char)*s))
		s++;
	if (s < end && *s == '-')
		neg = 1, s++;
	if (s >= end || !isdigit((unsigned char)*s))
		return 0;
	while (s < end && isdigit((unsigned char)*s)) {
		if (*v > INT64_MAX / 10 - 1)
			return 0;
		*v = *v * 10 + (*s++ - '0');
	}
	if (neg)
		*v = -*v;
	*p = s;
	return 1;
}

int
skip_to(const char **p, const char *end, char c)
{
	while (*p < end && isspace((unsigned char)**p))
		(*p)++;
	if (*p < end && **p == c) {
		(*p)++;
		return 1;
	}
	return 0;
}

int
read_index(struct pool *pool, const char **p, const char *end, int64_t **out)
{
	int64_t v, *arr = NULL;
	int n = 0, cap = 0;

	if (!skip_to(p, end, '{'))
		return -1;
	if (skip_to(p, end, '}')) {
		*out = NULL;
		return 0;
	}
	do {
		if (!read_int(p, end, &v))
			return -1;
		*VEC_PUSH(pool, arr, n, cap) = v;
	} while (skip_to(p, end, ','));
	if (!skip_to(p, end, '}'))
		return -1;
	*out = arr;
	return n;
}

int
call_attr(const char *k)
{
	static const char *const one[] = {
		"to_apply", "calls", "body", "condition", "true_computation",
		"false_computation", "select", "scatter", "comparator",
	};

	/* A first byte compared before each call: this is asked of every
	 * attribute. */
	if ((k[0] == 'b' && !strcmp(k, "branch_computations")) ||
	    (k[0] == 'c' && !strcmp(k, "called_computations")))
		return CALL_LIST;
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
		if (k[0] == one[i][0] && !strcmp(k, one[i]))
			return CALL_ONE;
	return 0;
}

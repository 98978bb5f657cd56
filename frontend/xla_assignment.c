/* XLA's buffer-assignment text, line by line (BufferAssignment::ToString
 * and HloLiveRange::ToString in XLA's buffer_assignment.cc): an
 * "allocation N: size S, <kinds>:" line opens an allocation, its values
 * follow as " value: <id name @n> (size=S,offset=O): shape", and
 * "  BufferLiveRange:" lists "    name{index}:start-end" per value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/xla_assignment.h"

struct xval {
	const char *name;	/* into the text */
	size_t len;
	int alloc;
	int64_t size, offset;
	int32_t start, end;	/* -1: no live range */
};

struct xrange {
	const char *name;
	size_t len;
	int32_t start, end;
};

struct reader {
	struct xval *v;
	int nv, capv;
	struct xrange *r;
	int nr, capr;
	int temp_alloc;
};

static int
grow(void **p, int *cap, int n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, size * (size_t)(*cap ? *cap * 2 : 256));
	if (!q)
		return -1;
	*p = q;
	*cap = *cap ? *cap * 2 : 256;
	return 0;
}

static int
starts(const char *s, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - s) >= n && !memcmp(s, prefix, n);
}

/* Does [s, end) hold word w? */
static int
has(const char *s, const char *end, const char *w)
{
	size_t n = strlen(w);

	for (; (size_t)(end - s) >= n; s++)
		if (!memcmp(s, w, n))
			return 1;
	return 0;
}

static int64_t
number(const char *s, const char *end, const char **after)
{
	int64_t v = 0;

	while (s < end && *s >= '0' && *s <= '9' && v < INT64_MAX / 10)
		v = v * 10 + (*s++ - '0');
	*after = s;
	return v;
}

/* "allocation N: size S, <kinds>:": its kind summed; returns N. */
static int
allocation(struct reader *rd, struct xla_assignment *x, const char *s,
	   const char *end)
{
	const char *p;
	int id = (int)number(s + strlen("allocation "), end, &p);
	int64_t size;

	if (!starts(p, end, ": size "))
		return id;
	size = number(p + strlen(": size "), end, &p);
	x->nalloc++;
	x->total += size;
	if (has(p, end, ", parameter "))
		x->params += size;
	else if (has(p, end, "preallocated-temp")) {
		x->temps += size;
		if (size > x->temp_size) {
			x->temp_size = size;
			rd->temp_alloc = id;
		}
	} else if (has(p, end, "constant"))
		x->constants += size;
	else if (has(p, end, "thread-local"))
		x->thread_local += size;
	else if (has(p, end, "output shape is") ||
		 has(p, end, "maybe-live-out"))
		x->outputs += size;
	else
		x->temps += size;
	return id;
}

/* " value: <id name @n> (size=S,offset=O): ..." of allocation alloc. */
static int
value(struct reader *rd, int alloc, const char *s, const char *end)
{
	const char *p = s + strlen(" value: <"), *name;
	struct xval *v;

	number(p, end, &p);
	if (p >= end || *p != ' ')
		return 0;
	name = ++p;
	while (p < end && *p != ' ')
		p++;
	if (grow((void **)&rd->v, &rd->capv, rd->nv, sizeof *rd->v))
		return -1;
	v = &rd->v[rd->nv];
	v->name = name;
	v->len = (size_t)(p - name);
	v->alloc = alloc;
	v->start = v->end = -1;
	while (p < end && *p != '(')
		p++;
	if (!starts(p, end, "(size="))
		return 0;
	v->size = number(p + strlen("(size="), end, &p);
	if (!starts(p, end, ",offset="))
		return 0;
	v->offset = number(p + strlen(",offset="), end, &p);
	rd->nv++;
	return 0;
}

/* "    name:start-end" */
static int
range(struct reader *rd, const char *s, const char *end)
{
	const char *colon = NULL, *p;
	struct xrange *r;

	for (p = s; p < end; p++)
		if (*p == ':')
			colon = p;
	if (!colon || colon == s)
		return 0;
	if (grow((void **)&rd->r, &rd->capr, rd->nr, sizeof *rd->r))
		return -1;
	r = &rd->r[rd->nr];
	r->name = s;
	r->len = (size_t)(colon - s);
	r->start = (int32_t)number(colon + 1, end, &p);
	if (p >= end || *p != '-')
		return 0;
	r->end = (int32_t)number(p + 1, end, &p);
	rd->nr++;
	return 0;
}

/* Names compare as the live ranges write them: an array value's "name" is
 * "name{}" there. */
static int
cmp_name(const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = memcmp(a, b, n);

	return c ? c : (an > bn) - (an < bn);
}

static int
cmp_range(const void *a, const void *b)
{
	const struct xrange *x = a, *y = b;

	return cmp_name(x->name, x->len, y->name, y->len);
}

static const struct xrange *
find_range(const struct reader *rd, const struct xval *v)
{
	char key[512];
	size_t n = v->len;
	int lo = 0, hi = rd->nr - 1;

	if (n + 3 > sizeof key)
		return NULL;
	memcpy(key, v->name, n);
	if (!memchr(v->name, '{', n)) {
		memcpy(key + n, "{}", 2);
		n += 2;
	}
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = cmp_name(rd->r[mid].name, rd->r[mid].len, key, n);

		if (!c)
			return &rd->r[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

struct event {
	int32_t t;
	int add;		/* 0: ends (before what starts then), 1 */
	int v;
};

static int
cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	if (x->add != y->add)
		return x->add - y->add;
	return (x->v > y->v) - (x->v < y->v);
}

static int
cmp_offset(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int
offset_index(const int64_t *offs, int n, int64_t o)
{
	int lo = 0, hi = n - 1;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (offs[mid] < o)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The largest size among the n active at one offset. */
static int64_t
largest(const int64_t *a, int n)
{
	int64_t m = 0;

	for (int k = 0; k < n; k++)
		if (a[k] > m)
			m = a[k];
	return m;
}

/* The peak of the temporary allocation: at each time, each offset holds
 * the largest value live there (aliases and in-place values share it). */
static int
temp_peak(struct reader *rd, struct xla_assignment *x)
{
	int n = 0, no = 0, ne = 0;
	struct event *ev = NULL;
	int64_t *offs = NULL, *slot = NULL, live = 0;
	int *base = NULL, *cnt = NULL, r = -1;

	for (int k = 0; k < rd->nv; k++)
		n += rd->v[k].alloc == rd->temp_alloc;
	ev = malloc(sizeof *ev * (size_t)(2 * n + 1));
	offs = malloc(sizeof *offs * (size_t)(n + 1));
	slot = malloc(sizeof *slot * (size_t)(n + 1));
	base = calloc((size_t)(n + 2), sizeof *base);
	cnt = calloc((size_t)(n + 1), sizeof *cnt);
	if (!ev || !offs || !slot || !base || !cnt)
		goto out;
	qsort(rd->r, (size_t)rd->nr, sizeof *rd->r, cmp_range);
	for (int k = 0; k < rd->nv; k++) {
		struct xval *v = &rd->v[k];
		const struct xrange *rg;

		if (v->alloc != rd->temp_alloc)
			continue;
		if (!(rg = find_range(rd, v)) || v->size <= 0) {
			x->unranged += !rg;
			continue;
		}
		x->ranged++;
		v->start = rg->start;
		v->end = rg->end;
		offs[no++] = v->offset;
		ev[ne++] = (struct event){v->start, 1, k};
		ev[ne++] = (struct event){v->end + 1, 0, k};
	}
	qsort(offs, (size_t)no, sizeof *offs, cmp_offset);
	for (int k = 0; k < ne; k += 2)
		base[offset_index(offs, no, rd->v[ev[k].v].offset) + 1]++;
	for (int k = 0; k < no; k++)
		base[k + 1] += base[k];
	qsort(ev, (size_t)ne, sizeof *ev, cmp_event);
	for (int k = 0; k < ne;) {
		int32_t t = ev[k].t;

		for (; k < ne && ev[k].t == t; k++) {
			const struct xval *v = &rd->v[ev[k].v];
			int o = offset_index(offs, no, v->offset);
			int64_t *a = slot + base[o];

			live -= largest(a, cnt[o]);
			if (ev[k].add) {
				a[cnt[o]++] = v->size;
			} else {
				for (int j = 0; j < cnt[o]; j++)
					if (a[j] == v->size) {
						a[j] = a[--cnt[o]];
						break;
					}
			}
			live += largest(a, cnt[o]);
		}
		if (live > x->temp_peak)
			x->temp_peak = live;
	}
	r = 0;
out:
	free(ev);
	free(offs);
	free(slot);
	free(base);
	free(cnt);
	return r;
}

int
xla_assignment_read(const char *text, size_t len, struct xla_assignment *x,
		    char *err, size_t errlen)
{
	struct reader rd = {.temp_alloc = -1};
	const char *s = text, *end = text + len;
	int alloc = -1, ranges = 0, r = 0;

	memset(x, 0, sizeof *x);
	while (s < end && !r) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		if (!e)
			e = end;
		if (ranges && !starts(s, e, "    "))
			ranges = 0;
		if (starts(s, e, "allocation ")) {
			alloc = allocation(&rd, x, s, e);
		} else if (alloc >= 0 && starts(s, e, " value: <")) {
			r = value(&rd, alloc, s, e);
		} else if (starts(s, e, "  BufferLiveRange:")) {
			ranges = 1;
		} else if (ranges) {
			r = range(&rd, s + 4, e);
		}
		s = e + 1;
	}
	if (!r && rd.temp_alloc >= 0)
		r = temp_peak(&rd, x);
	free(rd.v);
	free(rd.r);
	if (r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!x->nalloc) {
		snprintf(err, errlen, "no 'allocation N: size S' line: not "
			 "XLA's buffer assignment");
		return -1;
	}
	return 0;
}

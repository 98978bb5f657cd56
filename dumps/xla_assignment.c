/* XLA's buffer-assignment text, line by line (BufferAssignment::ToString,
 * ValuesToString and HloLiveRange::ToString in XLA's buffer_assignment.cc
 * and hlo_live_range.cc): "BufferAssignment:", then an "allocation N: size
 * S, <kinds>:" line per allocation, numbered from 0, its values following
 * as " value: <id name @n> (size=S,offset=O): shape"; "Total bytes used: T"
 * (the sum of the sizes), "Used values:", "HloLiveRange (max M):" whose
 * "  BufferLiveRange:" lists "    name{index}:start-end" per value, and
 * "  Live ranges at N (peak):".  Read strictly: a file cut short, or one
 * whose figures do not add up, is an error at its line, never a total. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dumps/xla_assignment.h"

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
	int64_t alloc_size;	/* the allocation being read */
	int32_t max_time;	/* HloLiveRange's "max M" */
	int line;		/* of the line being read, from 1 */
	char *err;		/* the message, "LINE: ..." */
	size_t errlen;
};

/* Records the error at the current line (none: 0); returns -1. */
static int
bad(struct reader *rd, const char *msg)
{
	if (rd->line > 0)
		snprintf(rd->err, rd->errlen, "%d:1: error: %s", rd->line, msg);
	else
		snprintf(rd->err, rd->errlen, " error: %s", msg);
	return -1;
}

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

/* A decimal number at s, or -1 (none, or past INT64_MAX); *after is
 * where it ends. */
static int64_t
number(const char *s, const char *end, const char **after)
{
	int64_t v = 0;
	const char *p = s;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - (*p - '0')) / 10)
			v = -2;
		if (v >= 0)
			v = v * 10 + (*p - '0');
	}
	*after = p;
	return p == s || v < 0 ? -1 : v;
}

/* "allocation N: size S, <kinds>:", the allocations numbered from 0: its
 * kind summed. */
static int
allocation(struct reader *rd, struct xla_assignment *x, const char *s,
	   const char *end)
{
	const char *p;
	int64_t id = number(s + strlen("allocation "), end, &p), size;

	if (id != x->nalloc)
		return bad(rd, "expected 'allocation N: size S, ...:' "
			   "numbered from 0 in order");
	if (!starts(p, end, ": size ") ||
	    (size = number(p + strlen(": size "), end, &p)) < 0 ||
	    end[-1] != ':')
		return bad(rd, "expected 'allocation N: size S, ...:'");
	if (x->total > INT64_MAX - size)
		return bad(rd, "allocations past 2^63 bytes");
	rd->alloc_size = size;
	x->nalloc++;
	x->total += size;
	if (has(p, end, ", parameter "))
		x->params += size;
	else if (has(p, end, "preallocated-temp")) {
		x->temps += size;
		if (size > x->temp_size || rd->temp_alloc < 0) {
			x->temp_size = size;
			rd->temp_alloc = (int)id;
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
	return 0;
}

/* " value: <id name @n> (size=S,offset=O): ..." of allocation alloc,
 * inside it. */
static int
value(struct reader *rd, int alloc, const char *s, const char *end)
{
	const char *p = s + strlen(" value: <"), *name;
	struct xval *v;
	int64_t size, offset;

	if (number(p, end, &p) < 0 || p >= end || *p != ' ')
		return bad(rd, "expected ' value: <ID NAME @N> "
			   "(size=S,offset=O): SHAPE'");
	name = ++p;
	while (p < end && *p != ' ')
		p++;
	if (grow((void **)&rd->v, &rd->capv, rd->nv, sizeof *rd->v))
		return bad(rd, "out of memory");
	v = &rd->v[rd->nv];
	v->name = name;
	v->len = (size_t)(p - name);
	v->alloc = alloc;
	v->start = v->end = -1;
	while (p < end && !starts(p, end, "> (size="))	/* past " (phi)" */
		p++;
	p += p < end;
	if (!starts(p, end, " (size=") ||
	    (size = number(p + strlen(" (size="), end, &p)) < 0 ||
	    !starts(p, end, ",offset=") ||
	    (offset = number(p + strlen(",offset="), end, &p)) < 0 ||
	    !starts(p, end, "):"))
		return bad(rd, "expected ' value: <ID NAME @N> "
			   "(size=S,offset=O): SHAPE'");
	if (offset > rd->alloc_size || size > rd->alloc_size - offset)
		return bad(rd, "a value past the end of its allocation");
	v->size = size;
	v->offset = offset;
	rd->nv++;
	return 0;
}

/* "    name:start-end", 0 <= start <= end <= max. */
static int
range(struct reader *rd, const char *s, const char *end)
{
	const char *colon = NULL, *p;
	struct xrange *r;
	int64_t a, b;

	for (p = s; p < end; p++)
		if (*p == ':')
			colon = p;
	if (!colon || colon == s || (a = number(colon + 1, end, &p)) < 0 ||
	    p >= end || *p != '-' || (b = number(p + 1, end, &p)) < 0 ||
	    p != end)
		return bad(rd, "expected '    NAME:START-END'");
	if (a > b || b > rd->max_time)
		return bad(rd, "a live range outside 0 to the 'max' of "
			   "'HloLiveRange (max M):'");
	if (grow((void **)&rd->r, &rd->capr, rd->nr, sizeof *rd->r))
		return bad(rd, "out of memory");
	r = &rd->r[rd->nr++];
	r->name = s;
	r->len = (size_t)(colon - s);
	r->start = (int32_t)a;
	r->end = (int32_t)b;
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
	if (rd->nr)	/* no range: rd->r is NULL, which qsort may not take */
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
			if (live > x->temp_size) {
				r = -2;	/* values live at once overlap */
				goto out;
			}
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

/* The parts of the file, in their order; each line is read by the part
 * it is in. */
enum part {
	P_HEAD, P_ALLOC, P_TOTAL, P_USED, P_VALUES, P_SEQUENCE, P_RANGES,
	P_PEAK
};

/* "Total bytes used: T (...)": the sum of the allocations. */
static int
total_line(struct reader *rd, const struct xla_assignment *x, const char *s,
	   const char *end)
{
	const char *p;
	int64_t t;

	if (!starts(s, end, "Total bytes used: "))
		return bad(rd, "expected 'Total bytes used: N' after the "
			   "allocations");
	t = number(s + strlen("Total bytes used: "), end, &p);
	if (t != x->total) {
		char msg[160];

		snprintf(msg, sizeof msg, "the allocations add up to %" PRId64
			 " bytes, not the %" PRId64 " of 'Total bytes used'",
			 x->total, t);
		return bad(rd, msg);
	}
	return 0;
}

/* "HloLiveRange (max M):" */
static int
live_range_line(struct reader *rd, const char *s, const char *end)
{
	const char *p;
	int64_t m = number(s + strlen("HloLiveRange (max "), end, &p);

	if (m < 0 || m > INT32_MAX - 1 || !starts(p, end, "):"))
		return bad(rd, "expected 'HloLiveRange (max M):'");
	rd->max_time = (int32_t)m;
	return 0;
}

/* One line, in part *pt; moves on to the next part where it starts. */
static int
line(struct reader *rd, struct xla_assignment *x, enum part *pt,
     const char *s, const char *e)
{
	switch (*pt) {
	case P_HEAD:
		*pt = P_ALLOC;
		return starts(s, e, "BufferAssignment:") && e - s == 17 ? 0 :
		       bad(rd, "expected 'BufferAssignment:': not XLA's "
			   "buffer assignment");
	case P_ALLOC:
		if (starts(s, e, "allocation "))
			return allocation(rd, x, s, e);
		if (x->nalloc && starts(s, e, " value: <"))
			return value(rd, x->nalloc - 1, s, e);
		if (x->nalloc && (starts(s, e, " reused by ") ||
				  starts(s, e, "  value: <")))
			return 0;	/* values listed above too */
		if (s == e && x->nalloc) {
			*pt = P_TOTAL;
			return 0;
		}
		return bad(rd, x->nalloc ? "expected an allocation or one "
			   "of its values" : "expected 'allocation 0: size "
			   "S, ...:'");
	case P_TOTAL:
		*pt = P_USED;
		return total_line(rd, x, s, e);
	case P_USED:
		if (s == e)
			return 0;
		*pt = P_VALUES;
		return starts(s, e, "Used values:") && e - s == 12 ? 0 :
		       bad(rd, "expected 'Used values:'");
	case P_VALUES:
		if (!starts(s, e, "HloLiveRange (max "))
			return 0;
		*pt = P_SEQUENCE;
		return live_range_line(rd, s, e);
	case P_SEQUENCE:
		if (starts(s, e, "  BufferLiveRange:") && e - s == 18)
			*pt = P_RANGES;
		else if (!starts(s, e, "  InstructionSequence:") &&
			 !starts(s, e, "    "))
			return bad(rd, "expected '  BufferLiveRange:'");
		return 0;
	case P_RANGES:
		if (starts(s, e, "    "))
			return range(rd, s + 4, e);
		*pt = P_PEAK;
		return starts(s, e, "  Live ranges at ") ? 0 :
		       bad(rd, "expected '  Live ranges at N (peak):'");
	case P_PEAK:
		return 0;
	}
	return 0;
}

/* Where the text stops before its last part: what it lacks. */
static const char *
missing(enum part pt)
{
	switch (pt) {
	case P_HEAD:
		return "empty: not XLA's buffer assignment";
	case P_ALLOC:
	case P_TOTAL:
		return "ends before its 'Total bytes used' line: cut short";
	case P_USED:
		return "ends before its 'Used values:': cut short";
	case P_VALUES:
	case P_SEQUENCE:
		return "ends before its live ranges ('HloLiveRange', "
		       "'BufferLiveRange:'): cut short";
	case P_RANGES:
		return "ends before its 'Live ranges at N (peak):' line: "
		       "cut short";
	case P_PEAK:
		break;
	}
	return NULL;
}

/* Reads every line; 0, or -1 with the message in rd->err. */
static int
read_lines(struct reader *rd, struct xla_assignment *x, const char *text,
	   size_t len)
{
	const char *s = text, *end = text + len;
	enum part pt = P_HEAD;

	for (rd->line = 1; s < end; rd->line++) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		if (!e)
			return bad(rd, "ends within a line: cut short");
		if (line(rd, x, &pt, s, e))
			return -1;
		s = e + 1;
	}
	if (len && pt == P_HEAD)
		pt = P_ALLOC;
	rd->line -= rd->line > 1;
	return missing(pt) ? bad(rd, missing(pt)) : 0;
}

int
xla_assignment_read(const char *text, size_t len, struct xla_assignment *x,
		    char *err, size_t errlen)
{
	struct reader rd = {.temp_alloc = -1, .err = err, .errlen = errlen};
	int r;

	memset(x, 0, sizeof *x);
	r = read_lines(&rd, x, text, len);
	if (!r && rd.temp_alloc >= 0 && (r = temp_peak(&rd, x))) {
		rd.line = 0;
		r = bad(&rd, r == -2 ? "values live at once overlap in the "
			"temporary allocation (by its live ranges)" :
			"out of memory");
	}
	free(rd.v);
	free(rd.r);
	return r;
}

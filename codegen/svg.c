/* The plan as an SVG memory timeline: a panel per arena of each plan, one box
 * per buffer (x: its live steps, y: its bytes in the arena), padding hatched,
 * slots of one buffer in one colour, and under it the live bytes per step
 * with the peak, the lower bound and the arena size marked. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "ir/ir.h"

enum {
	WIDTH = 1100,		/* the picture */
	LEFT = 84,		/* room for the offset labels */
	RIGHT = 24,
	HEAD = 58,		/* the heading and the legend */
	XLA_LINE = 18,		/* XLA's assignment below them, when given */
	TITLE = 58,		/* a panel's two title lines */
	BOXES = 320,		/* the box plot's height */
	GAP = 16,		/* between box plot and curve */
	CURVE = 90,		/* the live-bytes strip */
	AXIS = 34,		/* step labels and space after a panel */
	PANEL = TITLE + BOXES + GAP + CURVE + AXIS,
	PLOT = WIDTH - LEFT - RIGHT,
};

struct panel {
	FILE *out;
	const struct plan *p;
	const struct arena *a;
	double sx;		/* pixels per step */
	double top, bot;	/* box plot: y of ymax and of 0 */
	double ctop, cbot;	/* curve strip: the same */
	double ymax;		/* bytes at the top of both */
};

/* ---- numbers and text --------------------------------------------------- */

static double
xpos(const struct panel *pn, double step)
{
	return LEFT + step * pn->sx;
}

static double
ybox(const struct panel *pn, double bytes)
{
	return pn->bot - bytes * (pn->bot - pn->top) / pn->ymax;
}

static double
ycurve(const struct panel *pn, double bytes)
{
	return pn->cbot - bytes * (pn->cbot - pn->ctop) / pn->ymax;
}

/* 1234567 as "1,234,567". */
static void
put_count(FILE *out, int64_t v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%" PRId64, v < 0 ? -v : v);

	if (v < 0)
		fputc('-', out);
	for (int i = 0; i < n; i++) {
		fputc(buf[i], out);
		if (i + 1 < n && (n - i - 1) % 3 == 0)
			fputc(',', out);
	}
}

/* Bytes in binary units: "512 B", "1.5 KiB", "96 MiB". */
static void
put_bytes(FILE *out, double v)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int k = 0;

	while (k < 4 && v >= 1024) {
		v /= 1024;
		k++;
	}
	if (v == (double)(int64_t)v)
		fprintf(out, "%" PRId64 " %s", (int64_t)v, unit[k]);
	else
		fprintf(out, "%.1f %s", v, unit[k]);
}

/* At most n bytes of s in XML: markup escaped, bytes outside printable
 * ASCII as '?'. */
static void
put_textn(FILE *out, const char *s, size_t n)
{
	for (; *s && n; s++, n--) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else
			fputc(c >= 0x20 && c < 0x7f ? c : '?', out);
	}
}

static void
put_text(FILE *out, const char *s)
{
	put_textn(out, s, SIZE_MAX);
}

/* A step of 1, 2 or 5 times a power of ten that cuts span into at most n
 * parts (for steps). */
static double
step_ticks(double span, int n)
{
	double unit = 1;

	while (unit * 5 * n < span)
		unit *= 10;
	if (unit * n >= span)
		return unit;
	return unit * 2 * n >= span ? unit * 2 : unit * 5;
}

/* The least power of two that cuts span into at most n parts (for bytes,
 * so that the labels come out round in KiB, MiB, GiB). */
static double
byte_ticks(double span, int n)
{
	double unit = 1;

	while (unit * n < span)
		unit *= 2;
	return unit;
}

/* ---- colours ------------------------------------------------------------ */

/* FNV-1a, then MurmurHash3's finaliser, so that names one letter apart
 * get far-apart hues. */
static uint32_t
hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

/* One channel of HSL to RGB (CSS Color 3's hue-to-rgb). */
static double
channel(double p, double q, double t)
{
	if (t < 0)
		t += 1;
	if (t > 1)
		t -= 1;
	if (t < 1.0 / 6)
		return p + (q - p) * 6 * t;
	if (t < 0.5)
		return q;
	if (t < 2.0 / 3)
		return p + (q - p) * (2.0 / 3 - t) * 6;
	return p;
}

/* A colour for a name: its hue from the hash, at a fixed saturation and
 * lightness (darker for the outline), as #rrggbb. */
static void
put_colour(FILE *out, const char *name, int dark)
{
	double h = (double)(hash(name) % 360) / 360, s = 0.55;
	double l = dark ? 0.35 : 0.70;
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;

	fprintf(out, "#%02x%02x%02x",
		(int)(channel(p, q, h + 1.0 / 3) * 255 + 0.5),
		(int)(channel(p, q, h) * 255 + 0.5),
		(int)(channel(p, q, h - 1.0 / 3) * 255 + 0.5));
}

/* ---- the box plot ------------------------------------------------------- */

static void
put_rect(FILE *out, double x, double y, double w, double h, const char *rest)
{
	fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		"height=\"%.2f\" %s/>\n", x, y, w, h < 0.5 ? 0.5 : h, rest);
}

/* The hover text: name, class, where it comes from (when known), bytes,
 * interval. */
static void
put_title(const struct panel *pn, const struct buffer *b)
{
	const char *cls[4];
	int n = codegen_classes(b->flags, cls);
	FILE *out = pn->out;
	char where[512];

	fputs("<title>", out);
	put_text(out, b->name);
	fputs(" (", out);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "+" : "", cls[i]);
	fputs(")", out);
	src_where(where, sizeof where, b->src_file, b->src_line, b->op_name);
	if (where[0]) {
		fputs("\n", out);
		put_text(out, where);
	}
	fputs("\nsize ", out);
	put_count(out, b->size);
	fputs(" bytes, unpadded ", out);
	put_count(out, b->bytes);
	fputs(", offset ", out);
	put_count(out, b->offset);
	fprintf(out, "\nlive [%" PRId32 ", %" PRId32 "]", b->start, b->end);
	if (b->slots > 1) {
		fprintf(out, ", %d slots of ", b->slots);
		put_count(out, b->stride);
	}
	fputs("</title>\n", out);
}

/* The padding of the part [lo, lo + used) of [lo, hi): hatched. */
static void
put_padding(const struct panel *pn, double x, double w, int64_t lo,
	    int64_t used, int64_t hi)
{
	if (hi - lo <= used)
		return;
	put_rect(pn->out, x, ybox(pn, (double)hi), w,
		 ybox(pn, (double)(lo + used)) - ybox(pn, (double)hi),
		 "fill=\"url(#hatch)\"");
}

/* Its name inside the box when it fits. */
static void
put_label(const struct panel *pn, const struct buffer *b, double x, double w,
	  double y, double h)
{
	int fit = (int)((w - 6) / 6);

	if (h < 13 || fit < 4)
		return;
	fprintf(pn->out, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" "
		"fill=\"#222\">", x + 3, y + 11);
	if (strlen(b->name) > (size_t)fit) {
		put_textn(pn->out, b->name, (size_t)fit - 2);
		fputs("..", pn->out);
	} else {
		put_text(pn->out, b->name);
	}
	fputs("</text>\n", pn->out);
}

static void
put_box(const struct panel *pn, const struct buffer *b)
{
	double x = xpos(pn, b->start), w = xpos(pn, b->end + 1.0) - x;
	double y = ybox(pn, (double)(b->offset + b->size));
	double h = ybox(pn, (double)b->offset) - y;
	int k = b->slots > 1 ? b->slots : 1;
	int64_t stride = b->slots > 1 ? b->stride : b->size;
	FILE *out = pn->out;

	fputs("<g>", out);
	put_title(pn, b);
	fputs("<rect", out);
	fprintf(out, " x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
		"fill=\"", x, y, w, h < 0.5 ? 0.5 : h);
	put_colour(out, b->name, 0);
	fputs("\" stroke=\"", out);
	put_colour(out, b->name, 1);
	fputs("\" stroke-width=\"0.6\"/>\n", out);
	for (int j = 0; j < k; j++)
		put_padding(pn, x, w, b->offset + j * stride, b->bytes,
			    b->offset + (j + 1) * stride);
	put_padding(pn, x, w, b->offset + k * stride, 0, b->offset + b->size);
	for (int j = 1; j < k; j++)
		fprintf(out, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" "
			"y2=\"%.2f\" stroke=\"#333\" "
			"stroke-dasharray=\"3,2\"/>\n",
			x, x + w, ybox(pn, (double)(b->offset + j * stride)),
			ybox(pn, (double)(b->offset + j * stride)));
	put_label(pn, b, x, w, y, h);
	fputs("</g>\n", out);
}

/* ---- axes and marks ----------------------------------------------------- */

static void
put_hline(const struct panel *pn, double y, const char *style)
{
	fprintf(pn->out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" "
		"%s/>\n", LEFT, LEFT + PLOT, y, y, style);
}

static void
put_offset_axis(const struct panel *pn)
{
	double step = byte_ticks(pn->ymax, 6);
	FILE *out = pn->out;

	for (double v = 0; v <= pn->ymax + 0.5; v += step) {
		put_hline(pn, ybox(pn, v), "stroke=\"#e4e4e4\"");
		fprintf(out, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">",
			LEFT - 6, ybox(pn, v) + 4);
		put_bytes(out, v);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text transform=\"translate(14,%.2f) rotate(-90)\" "
		"text-anchor=\"middle\" fill=\"#555\">offset</text>\n",
		(pn->top + pn->bot) / 2);
}

static void
put_step_axis(const struct panel *pn)
{
	int32_t n = pn->p->ntime;
	double step = step_ticks(n, 12);
	FILE *out = pn->out;

	for (double t = 0; t <= n; t += step) {
		fprintf(out, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.2f\" "
			"y2=\"%.2f\" stroke=\"#eeeeee\"/>\n", xpos(pn, t),
			xpos(pn, t), pn->top, pn->cbot);
		fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" "
			"text-anchor=\"middle\">%.0f</text>\n", xpos(pn, t),
			pn->cbot + 14, t);
	}
	fprintf(out, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\" "
		"fill=\"#555\">step</text>\n", LEFT + PLOT, pn->cbot + 28);
}

/* A labelled horizontal mark across the box plot, the label just above it
 * at the left or the right end, haloed so that boxes do not hide it. */
static void
put_mark(const struct panel *pn, double y, const char *what, int64_t v,
	 const char *style, int left)
{
	put_hline(pn, y, style);
	fprintf(pn->out, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"%s\" "
		"font-weight=\"bold\" fill=\"%s\" stroke=\"#ffffff\" "
		"stroke-width=\"3\" paint-order=\"stroke\">%s ",
		left ? LEFT + 2 : LEFT + PLOT - 2, y - 4,
		left ? "start" : "end", left ? "#333" : "#c0392b", what);
	put_count(pn->out, v);
	fputs(" bytes</text>\n", pn->out);
}

/* ---- the live-bytes curve ----------------------------------------------- */

/* live[t]: bytes of the arena's buffers live at step t (n + 1 entries). */
static int64_t *
live_bytes(const struct panel *pn)
{
	const struct plan *p = pn->p;
	int64_t *live = calloc((size_t)p->ntime + 2, sizeof *live);

	if (!live)
		return NULL;
	for (int i = 0; i < p->nbuf; i++) {
		const struct buffer *b = &p->bufs[i];

		if (!b->in_arena || b->space != pn->a->space ||
		    b->start < 0 || b->end >= p->ntime || b->start > b->end)
			continue;
		live[b->start] += b->size;
		live[b->end + 1] -= b->size;
	}
	for (int32_t t = 1; t <= p->ntime; t++)
		live[t] += live[t - 1];
	return live;
}

/* The live bytes as a filled step curve, one corner per change. */
static void
put_curve_path(const struct panel *pn, const int64_t *live)
{
	int32_t n = pn->p->ntime;
	FILE *out = pn->out;

	fprintf(out, "<path fill=\"#cfe0f5\" stroke=\"#2f6db5\" "
		"stroke-width=\"1.2\" d=\"M%.2f %.2f", xpos(pn, 0), pn->cbot);
	for (int32_t t = 0; t < n; t++) {
		if (t > 0 && live[t] == live[t - 1])
			continue;
		fprintf(out, " L%.2f %.2f", xpos(pn, t),
			ycurve(pn, t ? (double)live[t - 1] : 0));
		fprintf(out, " L%.2f %.2f", xpos(pn, t),
			ycurve(pn, (double)live[t]));
	}
	fprintf(out, " L%.2f %.2f L%.2f %.2f Z\"/>\n", xpos(pn, n),
		ycurve(pn, n ? (double)live[n - 1] : 0), xpos(pn, n), pn->cbot);
}

static void
put_peak(const struct panel *pn, const int64_t *live)
{
	int32_t n = pn->p->ntime, at = 0;
	double x, y;

	for (int32_t t = 1; t < n; t++)
		if (live[t] > live[at])
			at = t;
	if (!n)
		return;
	x = xpos(pn, at + 0.5);
	y = ycurve(pn, (double)live[at]);
	fprintf(pn->out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" "
		"fill=\"#2f6db5\"/>\n<text x=\"%.2f\" y=\"%.2f\" "
		"text-anchor=\"%s\" fill=\"#2f6db5\" stroke=\"#ffffff\" "
		"stroke-width=\"3\" paint-order=\"stroke\">peak ", x, y,
		x + (x < LEFT + PLOT / 2 ? 6 : -6), y + 14,
		x < LEFT + PLOT / 2 ? "start" : "end");
	put_count(pn->out, live[at]);
	fprintf(pn->out, " at step %" PRId32 "</text>\n", at);
}

static void
put_curve(const struct panel *pn)
{
	int64_t *live = live_bytes(pn);

	fprintf(pn->out, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" "
		"height=\"%.2f\" fill=\"none\" stroke=\"#999\"/>\n", LEFT,
		pn->ctop, PLOT, pn->cbot - pn->ctop);
	fprintf(pn->out, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\" "
		"fill=\"#555\">live</text>\n", LEFT - 6, pn->cbot);
	if (live) {
		put_curve_path(pn, live);
		put_peak(pn, live);
	}
	free(live);
	put_hline(pn, ycurve(pn, (double)pn->a->lower),
		  "stroke=\"#c0392b\" stroke-dasharray=\"6,3\"");
}

/* ---- panels ------------------------------------------------------------- */

static void
put_panel_title(const struct panel *pn, const char *prefix, double y0)
{
	const struct arena *a = pn->a;
	FILE *out = pn->out;
	int outside = 0;

	for (int i = 0; i < pn->p->nbuf; i++)
		outside += !pn->p->bufs[i].in_arena;
	fprintf(out, "<text x=\"%d\" y=\"%.2f\" font-size=\"14\" "
		"font-weight=\"bold\">", LEFT, y0 + 18);
	put_text(out, pn->p->module ? pn->p->module : "");
	fprintf(out, " \xc2\xb7 %s \xc2\xb7 S(%d) \xc2\xb7 ",
		codegen_target(pn->p->target), a->space);
	put_text(out, prefix);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"%.2f\" fill=\"#444\">"
		"arena ", LEFT, y0 + 34);
	put_count(out, a->size);
	fputs(" bytes, lower bound ", out);
	put_count(out, a->lower);
	fprintf(out, ", ratio %.4f; %d buffers in it, %d outside arenas; "
		"%" PRId32 " steps, %s order</text>\n",
		a->lower ? (double)a->size / (double)a->lower : 1.0, a->nbuf,
		outside, pn->p->ntime,
		pn->p->sched.name ? pn->p->sched.name : "text");
}

/* The bytes at the top of a panel: the arena or its bound; with
 * --allocators, for S(0), the most any allocator reserved, so that the
 * plan's panel and the allocators' share one scale. */
static double
panel_ymax(const struct plan *p, const struct arena *a)
{
	int64_t top = a->size > a->lower ? a->size : a->lower;

	for (int k = 0; a->space == 0 && k < p->nalloc; k++)
		if (p->allocs[k].peak_reserved > top)
			top = p->allocs[k].peak_reserved;
	return top < 1 ? 1 : (double)top;
}

static void
panel_frame(struct panel *pn, double y0)
{
	pn->sx = (double)PLOT / (pn->p->ntime > 0 ? pn->p->ntime : 1);
	pn->top = y0 + TITLE;
	pn->bot = pn->top + BOXES;
	pn->ctop = pn->bot + GAP;
	pn->cbot = pn->ctop + CURVE;
	pn->ymax = panel_ymax(pn->p, pn->a);
}

static void
put_panel(FILE *out, const struct plan *p, const char *prefix,
	  const struct arena *a, double y0)
{
	struct panel pn = {out, p, a, 0, 0, 0, 0, 0, 0};

	panel_frame(&pn, y0);
	put_panel_title(&pn, prefix, y0);
	put_offset_axis(&pn);
	put_step_axis(&pn);
	for (int i = 0; i < p->nbuf; i++)
		if (p->bufs[i].in_arena && p->bufs[i].space == a->space)
			put_box(&pn, &p->bufs[i]);
	fprintf(out, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#999\"/>\n", LEFT, pn.top, PLOT, BOXES);
	put_mark(&pn, ybox(&pn, (double)a->lower), "lower bound", a->lower,
		 "stroke=\"#c0392b\" stroke-width=\"1.5\" "
		 "stroke-dasharray=\"6,3\"", 0);
	put_mark(&pn, ybox(&pn, (double)a->size), "arena", a->size,
		 "stroke=\"#333\" stroke-width=\"1.5\"", 1);
	put_curve(&pn);
}

/* ---- --allocators: a panel per allocator ------------------------------ */

static void
put_alloc_title(const struct panel *pn, const struct alloc_run *x,
		const char *prefix, double y0)
{
	FILE *out = pn->out;
	int64_t lower = pn->a->lower;

	fprintf(out, "<text x=\"%d\" y=\"%.2f\" font-size=\"14\" "
		"font-weight=\"bold\">", LEFT, y0 + 18);
	put_text(out, pn->p->module ? pn->p->module : "");
	fprintf(out, " \xc2\xb7 %s \xc2\xb7 S(0) \xc2\xb7 ",
		codegen_target(pn->p->target));
	put_text(out, prefix);
	fprintf(out, " \xc2\xb7 allocator %s</text>\n<text x=\"%d\" "
		"y=\"%.2f\" fill=\"#444\">reserved ", x->name, LEFT, y0 + 34);
	put_count(out, x->peak_reserved);
	fprintf(out, " bytes (%.4f of the lower bound), allocated at most ",
		lower ? (double)x->peak_reserved / (double)lower : 1.0);
	put_count(out, x->peak_allocated);
	fprintf(out, "; %d reservations; free bytes of them shaded"
		"</text>\n", x->npiece);
}

/* Reserved memory from the step it was taken to the end, shaded: what no
 * block covers shows as a hole. */
static void
put_pieces(const struct panel *pn, const struct alloc_run *x)
{
	for (int i = 0; i < x->npiece; i++) {
		const struct alloc_piece *c = &x->piece[i];
		double y = ybox(pn, (double)(c->at + c->size));

		put_rect(pn->out, xpos(pn, c->step), y,
			 xpos(pn, pn->p->ntime) - xpos(pn, c->step),
			 ybox(pn, (double)c->at) - y,
			 "fill=\"#d9d9d9\" stroke=\"#9a9a9a\" "
			 "stroke-width=\"0.5\"");
	}
}

static void
put_chunk(const struct panel *pn, const struct alloc_place *q)
{
	const struct buffer *b = &pn->p->bufs[q->buf];
	double x = xpos(pn, b->start), w = xpos(pn, b->end + 1.0) - x;
	double y = ybox(pn, (double)(q->at + q->size));
	FILE *out = pn->out;

	fputs("<rect", out);
	fprintf(out, " x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		"height=\"%.2f\" fill=\"", x, y, w,
		ybox(pn, (double)q->at) - y < 0.5 ? 0.5 :
		ybox(pn, (double)q->at) - y);
	put_colour(out, b->name, 0);
	fputs("\" stroke=\"", out);
	put_colour(out, b->name, 1);
	fputs("\" stroke-width=\"0.4\"><title>", out);
	put_text(out, b->name);
	fputs(": block ", out);
	put_count(out, q->size);
	fputs(" bytes at ", out);
	put_count(out, q->at);
	fputs("</title></rect>\n", out);
}

static void
put_alloc_panel(FILE *out, const struct plan *p, const char *prefix,
		const struct arena *a, const struct alloc_run *x, double y0)
{
	struct panel pn = {out, p, a, 0, 0, 0, 0, 0, 0};

	panel_frame(&pn, y0);
	put_alloc_title(&pn, x, prefix, y0);
	put_offset_axis(&pn);
	put_step_axis(&pn);
	put_pieces(&pn, x);
	for (int i = 0; i < x->nplace; i++)
		put_chunk(&pn, &x->place[i]);
	fprintf(out, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#999\"/>\n", LEFT, pn.top, PLOT, BOXES);
	put_mark(&pn, ybox(&pn, (double)a->lower), "lower bound", a->lower,
		 "stroke=\"#c0392b\" stroke-width=\"1.5\" "
		 "stroke-dasharray=\"6,3\"", 0);
	put_mark(&pn, ybox(&pn, (double)x->peak_reserved), "peak reserved",
		 x->peak_reserved, "stroke=\"#333\" stroke-width=\"1.5\"", 1);
	put_curve(&pn);
}

/* A plan's panels: one per arena, and after S(0)'s one per allocator. */
static int
plan_panels(const struct plan *p)
{
	int n = p->narena;

	for (int a = 0; a < p->narena; a++)
		n += p->arenas[a].space == 0 ? p->nalloc : 0;
	return n;
}

static int
count_panels(const struct plan_set *s)
{
	int n = 0;

	for (int i = 0; i < s->nplan; i++)
		n += plan_panels(&s->plans[i]);
	return n;
}

/* XLA's assignment beside the plans, right of the title: its total, its
 * temporary allocation against the most of it live at once, and each
 * plan's total (arenas and constants) against it. */
static void
put_xla(FILE *out, const struct plan_set *s)
{
	const struct xla_assignment *x = s->xla;

	fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#444\">XLA's "
		"assignment ", LEFT, HEAD + 8);
	put_count(out, x->total);
	fputs(" bytes (temporaries ", out);
	put_count(out, x->temp_size);
	fputs(", at most ", out);
	put_count(out, x->temp_peak);
	fputs(" live)", out);
	for (int i = 0; i < s->nplan; i++) {
		int64_t t = codegen_total(&s->plans[i]);

		fprintf(out, "; %s ", codegen_target(s->plans[i].target));
		put_count(out, t);
		fprintf(out, ", ratio %.4f", x->total ? (double)t /
			(double)x->total : 1.0);
	}
	fputs("</text>\n", out);
}

static void
put_head(FILE *out, const struct plan_set *s, int height)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<title>hloplan memory timeline: ", WIDTH, height, WIDTH,
		height);
	put_text(out, s->source ? s->source : "");
	fputs("</title>\n<defs><pattern id=\"hatch\" width=\"5\" "
	      "height=\"5\" patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><rect width=\"5\" "
	      "height=\"5\" fill=\"#ffffff\" fill-opacity=\"0.45\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"#333\" "
	      "stroke-width=\"1.6\"/></pattern></defs>\n<rect width=\"100%\" "
	      "height=\"100%\" fill=\"#ffffff\"/>\n", out);
	fprintf(out, "<text x=\"%d\" y=\"24\" font-size=\"16\" "
		"font-weight=\"bold\">", LEFT);
	put_text(out, s->source ? s->source : "");
	fputs(": buffer plan</text>\n", out);
}

/* Each key: a swatch (a box, or a line for the lower bound) and a label. */
static void
put_legend(FILE *out)
{
	static const struct {
		int x, line;
		const char *style, *label;
	} keys[] = {
		{0, 0, "fill=\"#9cc3a0\" stroke=\"#3d6b42\"",
		 "a buffer's bytes over its live steps"},
		{230, 0, "fill=\"url(#hatch)\" stroke=\"#333\"", "padding"},
		{320, 1, "stroke=\"#c0392b\" stroke-dasharray=\"6,3\"",
		 "lower bound: peak of live bytes"},
		{560, 0, "fill=\"#cfe0f5\" stroke=\"#2f6db5\"",
		 "live bytes per step"},
		{710, 0, "fill=\"#e3a48f\" stroke=\"#7a3b27\"",
		 "slots of one buffer"},
		{710, 1, "stroke=\"#333\" stroke-dasharray=\"3,2\"", ""},
	};

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		int x = LEFT + keys[i].x;

		if (keys[i].line)
			fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"41\" "
				"y2=\"41\" %s/>\n", x, x + 16, keys[i].style);
		else
			fprintf(out, "<rect x=\"%d\" y=\"36\" width=\"16\" "
				"height=\"10\" %s/>\n", x, keys[i].style);
		if (*keys[i].label)
			fprintf(out, "<text x=\"%d\" y=\"45\">%s</text>\n",
				x + 20, keys[i].label);
	}
}

void
codegen_svg(FILE *out, const struct plan_set *s)
{
	int npanel = count_panels(s), k = 0;
	int head = HEAD + (s->xla ? XLA_LINE : 0);
	int height = head + (npanel ? npanel : 1) * PANEL;

	put_head(out, s, height);
	put_legend(out);
	if (s->xla)
		put_xla(out, s);
	for (int i = 0; i < s->nplan; i++) {
		const struct plan *p = &s->plans[i];

		for (int a = 0; a < p->narena; a++) {
			put_panel(out, p, s->prefixes[i], &p->arenas[a],
				  head + (double)k++ * PANEL);
			for (int x = 0; p->arenas[a].space == 0 &&
					x < p->nalloc; x++)
				put_alloc_panel(out, p, s->prefixes[i],
						&p->arenas[a], &p->allocs[x],
						head + (double)k++ * PANEL);
		}
	}
	if (!npanel)
		fprintf(out, "<text x=\"%d\" y=\"%d\">no buffers in an arena"
			"</text>\n", LEFT, head + 20);
	fputs("</svg>\n", out);
}

/* The x/y plot (svg_plot): series styles, axes, lines, steps, markers, error bars, point
 * labels, legend and percentile marker lanes. The shared pieces (buffer, ticks, primitives)
 * are in svg.c, the bars in svg_bars.c. */
#include "out/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/svg_priv.h"
#include "util.h"

/* ---- styles ------------------------------------------------------------------------------ */

/* Okabe & Ito (2008), without the yellow that vanishes on white; black last. */
const char *const svg_colors[SVG_NCOLORS] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                             "#E69F00", "#56B4E9", "#000000"};
static const char *const dashes[SVG_NDASHES] = {"", "7 3", "2 2.5", "9 3 2 3", "4 4", "13 3 2 3 2 3"};

void svg_style(struct svg_series *s, int i)
{
	/* no two of the first 12 share dash and marker; the first 6 differ in both */
	s->color = i % SVG_NCOLORS;
	s->dash = i % SVG_NDASHES;
	s->marker = (i + i / SVG_NDASHES) % SVG_NMARKERS;
}

static const char *color_of(int c)
{
	return svg_colors[(c < 0 ? 0 : c) % SVG_NCOLORS];
}

static void marker(struct sbuf *b, int kind, double x, double y, double s, const char *color, bool hollow)
{
	const char *fill = hollow ? "none" : color;   /* rings show what they mark */
	switch (kind) {
	case SVG_M_NONE: return;
	case SVG_M_CIRCLE:
		sb_puts(b, "<circle cx=\"");
		sb_num(b, x);
		sb_puts(b, "\" cy=\"");
		sb_num(b, y);
		sb_puts(b, "\" r=\"");
		sb_num(b, s);
		sb_puts(b, "\"");
		break;
	case SVG_M_SQUARE:
		sb_puts(b, "<rect x=\"");
		sb_num(b, x - 0.9 * s);
		sb_puts(b, "\" y=\"");
		sb_num(b, y - 0.9 * s);
		sb_puts(b, "\" width=\"");
		sb_num(b, 1.8 * s);
		sb_puts(b, "\" height=\"");
		sb_num(b, 1.8 * s);
		sb_puts(b, "\"");
		break;
	case SVG_M_CROSS:
		sb_puts(b, "<path d=\"M");
		sb_num(b, x - s);
		sb_puts(b, " ");
		sb_num(b, y - s);
		sb_puts(b, "L");
		sb_num(b, x + s);
		sb_puts(b, " ");
		sb_num(b, y + s);
		sb_puts(b, "M");
		sb_num(b, x - s);
		sb_puts(b, " ");
		sb_num(b, y + s);
		sb_puts(b, "L");
		sb_num(b, x + s);
		sb_puts(b, " ");
		sb_num(b, y - s);
		sb_printf(b, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>", color);
		return;
	default: {
		/* polygons: triangle, diamond, triangle down */
		double px[4], py[4];
		int n = 3;
		if (kind == SVG_M_TRIANGLE) {
			px[0] = x, py[0] = y - 1.3 * s, px[1] = x + 1.2 * s, py[1] = y + 0.9 * s, px[2] = x - 1.2 * s,
			py[2] = y + 0.9 * s;
		} else if (kind == SVG_M_TRIANGLE_DOWN) {
			px[0] = x, py[0] = y + 1.3 * s, px[1] = x + 1.2 * s, py[1] = y - 0.9 * s, px[2] = x - 1.2 * s,
			py[2] = y - 0.9 * s;
		} else {
			n = 4;
			px[0] = x, py[0] = y - 1.35 * s, px[1] = x + 1.35 * s, py[1] = y, px[2] = x, py[2] = y + 1.35 * s,
			px[3] = x - 1.35 * s, py[3] = y;
		}
		sb_puts(b, "<path d=\"");
		for (int i = 0; i < n; i++) {
			sb_puts(b, i ? "L" : "M");
			sb_num(b, px[i]);
			sb_puts(b, " ");
			sb_num(b, py[i]);
		}
		sb_puts(b, "Z\"");
	}
	}
	sb_printf(b, " fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>", fill, color, hollow ? "1.6" : "1");
}

/* ---- x/y plot ---------------------------------------------------------------------------- */

#define NOTE_FONT 10.5
#define LANE_H 14.0
#define LEGEND_MAX_CHARS 44

static bool is_log(enum svg_scale k)
{
	return k == SVG_LOG || k == SVG_SPECTRUM;
}

static void range_add(double *lo, double *hi, double v, enum svg_scale k)
{
	if (!isfinite(v) || (is_log(k) && !(v > 0)))
		return;
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

static void data_range(const struct svg_plot *p, bool xaxis, double *lo, double *hi)
{
	const struct svg_axis *ax = xaxis ? &p->x : &p->y;
	*lo = INFINITY;
	*hi = -INFINITY;
	if (ax->lo < ax->hi) {
		*lo = ax->lo;
		*hi = ax->hi;
		return;
	}
	for (int i = 0; i < p->ns; i++) {
		const struct svg_series *s = &p->s[i];
		for (int j = 0; j < s->n; j++) {
			const struct svg_point *q = &s->p[j];
			if (xaxis) {
				range_add(lo, hi, q->x, ax->scale);
				if (s->draw & SVG_STEP)
					range_add(lo, hi, q->xhi, ax->scale);
				if (s->draw & SVG_ERRBARS_X) {
					range_add(lo, hi, q->xlo, ax->scale);
					range_add(lo, hi, q->xhi, ax->scale);
				}
			} else {
				range_add(lo, hi, q->y, ax->scale);
				if (s->draw & SVG_ERRBARS_Y) {
					range_add(lo, hi, q->ylo, ax->scale);
					range_add(lo, hi, q->yhi, ax->scale);
				}
			}
		}
		if (xaxis)
			for (int m = 0; m < s->nmarks; m++)
				range_add(lo, hi, s->mark_x[m], ax->scale);
	}
	if (ax->zero && !is_log(ax->scale))
		range_add(lo, hi, 0, ax->scale);
}

/* Ticks and the final data range of an axis; pixels spans the axis length. */
static int axis_ticks(const struct svg_plot *p, bool xaxis, double pixels, struct scale *sc, struct svg_tick *t)
{
	const struct svg_axis *ax = xaxis ? &p->x : &p->y;
	double lo, hi;
	int n = 0;
	data_range(p, xaxis, &lo, &hi);
	sc->kind = ax->scale;
	switch (ax->scale) {
	case SVG_CATEGORY:
		for (int i = 0; i < ax->ncat && n < SVG_MAX_TICKS; i++, n++) {
			t[n].v = i;
			t[n].major = true;
			svg_truncate_utf8(t[n].label, sizeof(t[n].label), ax->cats[i], 20);
		}
		lo = -0.5;
		hi = (ax->ncat > 0 ? ax->ncat : 1) - 0.5;
		break;
	case SVG_SPECTRUM: {
		static const char *const names[] = {"0%", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"};
		static const double at[] = {1, 2, 10, 100, 1e3, 1e4, 1e5, 1e6};
		lo = 1;
		hi = !(hi > 0) || hi < 1e4 ? 1e4 : pow(10, ceil(log10(hi) - 1e-9));
		if (hi > 1e6)
			hi = 1e6;
		for (int i = 0; i < 8 && at[i] <= hi * (1 + 1e-9); i++, n++) {
			t[n].v = at[i];
			t[n].major = true;
			snprintf(t[n].label, sizeof(t[n].label), "%s", names[i]);
		}
		break;
	}
	case SVG_LOG:
		if (!(lo <= hi)) {
			lo = 1;
			hi = 10;
		}
		n = svg_ticks_log(&lo, &hi, ax->unit, t, SVG_MAX_TICKS);
		break;
	case SVG_LINEAR:
		if (!(lo <= hi)) {
			lo = 0;
			hi = 1;
		}
		n = svg_ticks_linear(&lo, &hi, xaxis ? (int)(pixels / 90) : (int)(pixels / 55), ax->unit, t, SVG_MAX_TICKS);
		break;
	}
	sc->lo = lo;
	sc->hi = hi;
	return n;
}

struct rect {
	double x0, y0, x1, y1;
};

static bool rect_hits(const struct rect *a, const struct rect *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

struct layout {
	double ml, mt, pw, ph;  /* plot area: x from ml, y from mt */
	struct scale sx, sy;
	const char *id;
};

static double X(const struct layout *l, double v) { return smap(&l->sx, v); }
static double Y(const struct layout *l, double v) { return smap(&l->sy, v); }

static double msize(const struct svg_series *s)
{
	return s->marker_size > 0 ? s->marker_size : 3.5;
}

static void series_stroke(struct sbuf *b, const struct svg_series *s)
{
	sb_printf(b, " fill=\"none\" stroke=\"%s\" stroke-width=\"", color_of(s->color));
	sb_num(b, s->width > 0 ? s->width : 1.8);
	sb_puts(b, "\"");
	if (dashes[s->dash % SVG_NDASHES][0])
		sb_printf(b, " stroke-dasharray=\"%s\"", dashes[s->dash % SVG_NDASHES]);
	sb_puts(b, " stroke-linejoin=\"round\"");
}

static void draw_lines(struct sbuf *b, const struct layout *l, const struct svg_series *s)
{
	if (s->n == 0)
		return;
	double base = l->mt + l->ph;
	sb_puts(b, "<path d=\"");
	if (s->draw & SVG_STEP) {
		bool open = false;
		double prev_hi = NAN;
		for (int j = 0; j < s->n; j++) {
			const struct svg_point *q = &s->p[j];
			bool joined = open && fabs(q->x - prev_hi) <= 1e-9 * fabs(q->x);
			if (!joined) {
				if (open) {
					sb_puts(b, "V");
					sb_num(b, base);
				}
				sb_puts(b, "M");
				sb_num(b, X(l, q->x));
				sb_puts(b, " ");
				sb_num(b, base);
			}
			sb_puts(b, "V");
			sb_num(b, Y(l, q->y));
			sb_puts(b, "H");
			sb_num(b, X(l, q->xhi));
			open = true;
			prev_hi = q->xhi;
		}
		sb_puts(b, "V");
		sb_num(b, base);
	} else {
		bool pen = false;
		for (int j = 0; j < s->n; j++) {
			const struct svg_point *q = &s->p[j];
			if (!isfinite(q->x) || !isfinite(q->y)) {
				pen = false;
				continue;
			}
			sb_puts(b, pen ? "L" : "M");
			sb_num(b, X(l, q->x));
			sb_puts(b, " ");
			sb_num(b, Y(l, q->y));
			pen = true;
		}
	}
	sb_puts(b, "\"");
	series_stroke(b, s);
	sb_puts(b, "/>");
}

static void draw_errbars(struct sbuf *b, const struct layout *l, const struct svg_series *s)
{
	char attrs[96];
	snprintf(attrs, sizeof(attrs), "stroke=\"%s\" stroke-width=\"1.3\"", color_of(s->color));
	for (int j = 0; j < s->n; j++) {
		const struct svg_point *q = &s->p[j];
		double x = X(l, q->x), y = Y(l, q->y);
		if ((s->draw & SVG_ERRBARS_Y) && isfinite(q->ylo) && isfinite(q->yhi)) {
			double y0 = Y(l, q->ylo), y1 = Y(l, q->yhi);
			svg_line(b, x, y0, x, y1, attrs);
			svg_line(b, x - 4, y0, x + 4, y0, attrs);
			svg_line(b, x - 4, y1, x + 4, y1, attrs);
		}
		if ((s->draw & SVG_ERRBARS_X) && isfinite(q->xlo) && isfinite(q->xhi)) {
			double x0 = X(l, q->xlo), x1 = X(l, q->xhi);
			svg_line(b, x0, y, x1, y, attrs);
			svg_line(b, x0, y - 4, x0, y + 4, attrs);
			svg_line(b, x1, y - 4, x1, y + 4, attrs);
		}
	}
}

static bool draws_marker(const struct svg_series *s, const struct svg_point *q)
{
	return (s->draw & SVG_MARKERS) || ((s->draw & SVG_MARKERS_SOME) && q->marker);
}

/* where a point's marker goes: a histogram bin's centre, else the point */
static double point_x(const struct layout *l, const struct svg_series *s, const struct svg_point *q)
{
	return s->draw & SVG_STEP ? (X(l, q->x) + X(l, q->xhi)) / 2 : X(l, q->x);
}

static void draw_markers(struct sbuf *b, const struct layout *l, const struct svg_series *s)
{
	for (int j = 0; j < s->n; j++) {
		const struct svg_point *q = &s->p[j];
		if (draws_marker(s, q) && isfinite(q->x) && isfinite(q->y))
			marker(b, s->marker, point_x(l, s, q), Y(l, q->y), msize(s), color_of(s->color), s->hollow);
	}
}

/* Point labels: the first of eight places around the point that stays inside the plot and
 * clear of every marker and earlier label; none fits: the label is left out. */
static void draw_point_labels(struct sbuf *b, const struct layout *l, const struct svg_plot *p, struct rect *obst,
                              int nobst, int cap)
{
	const struct rect area = {l->ml, l->mt, l->ml + l->pw, l->mt + l->ph};
	for (int i = 0; i < p->ns; i++) {
		const struct svg_series *s = &p->s[i];
		if (!(s->draw & SVG_LABELS))
			continue;
		for (int j = 0; j < s->n; j++) {
			const struct svg_point *q = &s->p[j];
			if (!q->label || !q->label[0] || !isfinite(q->x) || !isfinite(q->y))
				continue;
			double x = X(l, q->x), y = Y(l, q->y), w = svg_text_width(q->label, NOTE_FONT), h = NOTE_FONT;
			/* right, left, above, below, the diagonals; then the same twice as far (big markers) */
			static const double dx[] = {7, -7, 0, 0, 6, 6, -6, -6};
			static const double dy[] = {0, 0, -9, 9, -8, 8, -8, 8};
			for (int k = 0; k < 16; k++) {
				struct rect r;
				double f = k < 8 ? 1 : 2.2, ddx = dx[k % 8] * f, ddy = dy[k % 8] * f;
				r.x0 = ddx > 0 ? x + ddx : ddx < 0 ? x + ddx - w : x - w / 2;
				double cy = y + ddy;
				r.y0 = ddy < 0 ? cy - h : ddy > 0 ? cy : cy - h / 2;
				r.x1 = r.x0 + w;
				r.y1 = r.y0 + h;
				if (r.x0 < area.x0 || r.x1 > area.x1 || r.y0 < area.y0 || r.y1 > area.y1)
					continue;
				bool clash = false;
				for (int o = 0; o < nobst && !clash; o++)
					clash = rect_hits(&r, &obst[o]);
				if (clash)
					continue;
				svg_text(b, r.x0, r.y1 - 2, "font-size=\"10.5\" fill=\"#222\"", q->label);
				if (nobst < cap)
					obst[nobst++] = r;
				break;
			}
		}
	}
}

static void legend_sample(struct sbuf *b, const struct svg_series *s, double x, double y)
{
	bool has_line = (s->draw & (SVG_LINE | SVG_STEP)) != 0;
	if (has_line) {
		sb_puts(b, "<path d=\"M");
		sb_num(b, x);
		sb_puts(b, " ");
		sb_num(b, y);
		sb_puts(b, "H");
		sb_num(b, x + 28);
		sb_puts(b, "\"");
		series_stroke(b, s);
		sb_puts(b, "/>");
	}
	if (s->draw & SVG_ERRBARS_Y) {
		char attrs[96];
		snprintf(attrs, sizeof(attrs), "stroke=\"%s\" stroke-width=\"1.3\"", color_of(s->color));
		svg_line(b, x + 14, y - 6, x + 14, y + 6, attrs);
	}
	if ((s->draw & (SVG_MARKERS | SVG_MARKERS_SOME)) || s->nmarks)
		marker(b, s->marker, x + 14, y, msize(s), color_of(s->color), s->hollow);
}

static double legend_width(const struct svg_plot *p)
{
	double w = p->legend_title ? svg_text_width(p->legend_title, LEGEND_FONT) : 0;
	for (int i = 0; i < p->ns; i++) {
		if (p->s[i].legend_hidden)
			continue;
		char name[160];
		svg_truncate_utf8(name, sizeof(name), p->s[i].name ? p->s[i].name : "", LEGEND_MAX_CHARS);
		w = fmax(w, 36 + svg_text_width(name, LEGEND_FONT));
		if (p->s[i].note)
			w = fmax(w, 36 + svg_text_width(p->s[i].note, NOTE_FONT));
	}
	return w;
}

static double legend_height(const struct svg_plot *p)
{
	double h = p->legend_title ? 20 : 0;
	for (int i = 0; i < p->ns; i++)
		if (!p->s[i].legend_hidden)
			h += p->s[i].note ? 32 : 20;
	return h;
}

static void draw_legend(struct sbuf *b, const struct svg_plot *p, double x, double y)
{
	if (p->legend_title) {
		svg_text(b, x, y + 12, "font-weight=\"bold\"", p->legend_title);
		y += 20;
	}
	for (int i = 0; i < p->ns; i++) {
		const struct svg_series *s = &p->s[i];
		if (s->legend_hidden)
			continue;
		char name[160];
		svg_truncate_utf8(name, sizeof(name), s->name ? s->name : "", LEGEND_MAX_CHARS);
		legend_sample(b, s, x, y + 8);
		svg_text(b, x + 36, y + 12, "", name);
		if (s->note)
			svg_text(b, x + 36, y + 25, "font-size=\"10.5\" fill=\"#555\"", s->note);
		y += s->note ? 32 : 20;
	}
}

/* The percentile marks of one series on its lane above the plot. Marks closer than a glyph
 * share one label ("p99.9/max"); a label goes right of its marks, else left of them, where it
 * covers no other mark and no earlier label, else it is left out (the legend has the values). */
static void draw_lane(struct sbuf *b, const struct layout *l, const struct svg_series *s, double y)
{
	svg_line(b, l->ml, y, l->ml + l->pw, y, "stroke=\"#e4e4e4\" stroke-width=\"1\"");
	double gx[SVG_MAX_MARKS];
	int idx[SVG_MAX_MARKS], n = 0;
	for (int m = 0; m < s->nmarks; m++) {
		double v = s->mark_x[m];
		if (!isfinite(v) || v < l->sx.lo * (1 - 1e-9) || v > l->sx.hi * (1 + 1e-9))
			continue;
		gx[n] = X(l, v);
		idx[n++] = m;
		marker(b, s->marker, gx[n - 1], y, 3, color_of(s->color), s->hollow);
	}
	struct rect placed[SVG_MAX_MARKS];
	int np = 0;
	for (int g0 = 0, g1; g0 < n; g0 = g1 + 1) {
		char lab[96] = "";
		size_t len = 0;
		for (g1 = g0; g1 + 1 < n && gx[g1 + 1] - gx[g0] < 7; g1++)
			;
		for (int k = g0; k <= g1; k++) {
			const char *t = s->mark_label[idx[k]];
			if (t && t[0] && len < sizeof(lab))
				len += (size_t)snprintf(lab + len, sizeof(lab) - len, "%s%s", len ? "/" : "", t);
		}
		if (!lab[0])
			continue;
		double w = svg_text_width(lab, 10);
		for (int side = 0; side < 2; side++) {
			struct rect r = {side ? gx[g0] - 5 - w : gx[g1] + 5, y - 5, 0, y + 5};
			r.x1 = r.x0 + w;
			bool ok = r.x0 >= l->ml - 4 && r.x1 <= l->ml + l->pw + 4;
			for (int o = 0; o < n && ok; o++) {
				struct rect gl = {gx[o] - 4, y - 4, gx[o] + 4, y + 4};
				ok = (o >= g0 && o <= g1) || !rect_hits(&r, &gl);
			}
			for (int o = 0; o < np && ok; o++)
				ok = !rect_hits(&r, &placed[o]);
			if (!ok)
				continue;
			svg_text(b, r.x0, y + 3.5, "font-size=\"10\" fill=\"#333\"", lab);
			placed[np++] = r;
			break;
		}
	}
}

void svg_plot(struct sbuf *b, const struct svg_plot *p)
{
	struct layout l = {0};
	l.id = p->id;
	l.pw = p->width > 0 ? p->width : 560;
	l.ph = p->height > 0 ? p->height : 300;
	struct svg_tick xt[SVG_MAX_TICKS], yt[SVG_MAX_TICKS];
	int nxt = axis_ticks(p, true, l.pw, &l.sx, xt), nyt = axis_ticks(p, false, l.ph, &l.sy, yt);

	int lanes = 0;
	for (int i = 0; i < p->ns; i++)
		lanes += p->s[i].nmarks > 0;
	double ylabw = 0;
	for (int i = 0; i < nyt; i++)
		ylabw = fmax(ylabw, svg_text_width(yt[i].label, TICK_FONT));
	l.ml = 26 + ylabw + 8;
	l.mt = 34 + lanes * LANE_H + (lanes ? 6 : 0);
	double mb = 8 + 16 + 22 + (p->footnote ? 16 : 0) + 6;
	double lw = legend_width(p), lh = legend_height(p);
	double W = l.ml + l.pw + 24 + lw + 12, H = fmax(l.mt + l.ph + mb, l.mt + lh + 12);
	l.sx.p0 = l.ml;
	l.sx.p1 = l.ml + l.pw;
	l.sy.p0 = l.mt + l.ph;
	l.sy.p1 = l.mt;

	svg_open(b, p->id, p->title, p->desc, W, H);
	sb_printf(b, "<defs><clipPath id=\"%s-clip\"><rect x=\"", p->id);
	sb_num(b, l.ml - 6);
	sb_puts(b, "\" y=\"");
	sb_num(b, l.mt - 6);
	sb_puts(b, "\" width=\"");
	sb_num(b, l.pw + 12);
	sb_puts(b, "\" height=\"");
	sb_num(b, l.ph + 12);
	sb_puts(b, "\"/></clipPath></defs>\n");

	/* grid, ticks and tick labels */
	double pos[SVG_MAX_TICKS] = {0}, ext[SVG_MAX_TICKS] = {0};
	for (int i = 0; i < nxt; i++) {
		pos[i] = X(&l, xt[i].v);
		ext[i] = svg_text_width(xt[i].label, TICK_FONT);
	}
	svg_thin_labels(xt, pos, ext, nxt, 8);
	sb_puts(b, "<g class=\"grid\">");
	for (int i = 0; i < nxt; i++)
		if (p->x.scale != SVG_CATEGORY)
			svg_line(b, pos[i], l.mt, pos[i], l.mt + l.ph,
			     xt[i].major ? "stroke=\"#e2e2e2\" stroke-width=\"1\"" : "stroke=\"#f2f2f2\" stroke-width=\"1\"");
	double ypos[SVG_MAX_TICKS] = {0}, yext[SVG_MAX_TICKS] = {0};
	for (int i = 0; i < nyt; i++) {
		ypos[i] = Y(&l, yt[i].v);
		yext[i] = TICK_FONT;
	}
	svg_thin_labels(yt, ypos, yext, nyt, 4);
	for (int i = 0; i < nyt; i++)
		svg_line(b, l.ml, ypos[i], l.ml + l.pw, ypos[i],
		     yt[i].major ? "stroke=\"#e2e2e2\" stroke-width=\"1\"" : "stroke=\"#f2f2f2\" stroke-width=\"1\"");
	sb_puts(b, "</g>\n<g class=\"axes\" font-size=\"11\" fill=\"#333\">");
	svg_line(b, l.ml, l.mt + l.ph, l.ml + l.pw, l.mt + l.ph, "stroke=\"#555\" stroke-width=\"1\"");
	svg_line(b, l.ml, l.mt, l.ml, l.mt + l.ph, "stroke=\"#555\" stroke-width=\"1\"");
	for (int i = 0; i < nxt; i++) {
		svg_line(b, pos[i], l.mt + l.ph, pos[i], l.mt + l.ph + (xt[i].label[0] ? 5 : 3), "stroke=\"#555\"");
		if (xt[i].label[0])
			svg_text(b, pos[i], l.mt + l.ph + 17, "text-anchor=\"middle\"", xt[i].label);
	}
	for (int i = 0; i < nyt; i++) {
		svg_line(b, l.ml - (yt[i].label[0] ? 5 : 3), ypos[i], l.ml, ypos[i], "stroke=\"#555\"");
		if (yt[i].label[0])
			svg_text(b, l.ml - 7, ypos[i] + 4, "text-anchor=\"end\"", yt[i].label);
	}
	sb_puts(b, "</g>\n");
	svg_text(b, l.ml + l.pw / 2, l.mt + l.ph + 38, "text-anchor=\"middle\"", p->x.label ? p->x.label : "");
	sb_puts(b, "<text transform=\"translate(14,");
	sb_num(b, l.mt + l.ph / 2);
	sb_puts(b, ") rotate(-90)\" text-anchor=\"middle\">");
	sb_esc(b, p->y.label ? p->y.label : "");
	sb_puts(b, "</text>\n");
	if (p->footnote)
		svg_text(b, l.ml, l.mt + l.ph + 56, "font-size=\"10.5\" fill=\"#555\"", p->footnote);

	/* percentile lanes, and their dotted guides through the plot when few series */
	int lane = 0;
	for (int i = 0; i < p->ns; i++) {
		const struct svg_series *s = &p->s[i];
		if (!s->nmarks)
			continue;
		draw_lane(b, &l, s, 34 + lane * LANE_H + LANE_H / 2);
		lane++;
		if (lanes <= 3) {
			char attrs[128];
			snprintf(attrs, sizeof(attrs), "stroke=\"%s\" stroke-width=\"1\" stroke-dasharray=\"1 3\"", color_of(s->color));
			for (int m = 0; m < s->nmarks; m++)
				if (s->mark_x[m] >= l.sx.lo && s->mark_x[m] <= l.sx.hi)
					svg_line(b, X(&l, s->mark_x[m]), l.mt, X(&l, s->mark_x[m]), l.mt + l.ph, attrs);
		}
	}
	sb_puts(b, "\n");

	/* data */
	bool any = false;
	sb_printf(b, "<g clip-path=\"url(#%s-clip)\">\n", p->id);
	for (int i = 0; i < p->ns; i++) {
		const struct svg_series *s = &p->s[i];
		any |= s->n > 0;
		if (s->draw & (SVG_LINE | SVG_STEP))
			draw_lines(b, &l, s);
		if (s->draw & (SVG_ERRBARS_X | SVG_ERRBARS_Y))
			draw_errbars(b, &l, s);
		draw_markers(b, &l, s);
		sb_puts(b, "\n");
	}
	sb_puts(b, "</g>\n");
	if (!any)
		svg_text(b, l.ml + l.pw / 2, l.mt + l.ph / 2, "text-anchor=\"middle\" fill=\"#777\"", "no data");

	/* point labels avoid every marker */
	int cap = 64;
	for (int i = 0; i < p->ns; i++)
		cap += p->s[i].n;
	struct rect *obst = xcalloc((size_t)cap, sizeof(*obst));
	int nobst = 0;
	for (int i = 0; i < p->ns; i++)
		for (int j = 0; j < p->s[i].n; j++) {
			const struct svg_point *q = &p->s[i].p[j];
			if (!draws_marker(&p->s[i], q) || !isfinite(q->x) || !isfinite(q->y))
				continue;
			double x = point_x(&l, &p->s[i], q), y = Y(&l, q->y), r = msize(&p->s[i]) * 1.4;
			obst[nobst++] = (struct rect){x - r, y - r, x + r, y + r};
		}
	draw_point_labels(b, &l, p, obst, nobst, cap);
	free(obst);

	draw_legend(b, p, l.ml + l.pw + 24, l.mt);
	sb_puts(b, "\n</svg>\n");
}

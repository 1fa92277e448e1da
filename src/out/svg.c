#include "out/svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- text buffer ------------------------------------------------------------------------- */

static void sb_reserve(struct sbuf *b, size_t more)
{
	ARRAY_GROW(b->s, b->len + more + 1, b->cap);
}

void sb_puts(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);
	sb_reserve(b, n);
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	sb_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_esc(struct sbuf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_puts(b, "&amp;"); break;
		case '<': sb_puts(b, "&lt;"); break;
		case '>': sb_puts(b, "&gt;"); break;
		case '"': sb_puts(b, "&quot;"); break;
		case '\'': sb_puts(b, "&#39;"); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') {
				sb_puts(b, "?");
			} else {
				char c[2] = {*s, 0};
				sb_puts(b, c);
			}
		}
	}
}

void sb_num(struct sbuf *b, double v)
{
	if (!isfinite(v))
		v = 0;
	long long t = llround(v * 10);
	if (t == 0) {
		sb_puts(b, "0");
		return;
	}
	const char *sign = t < 0 ? "-" : "";
	long long a = t < 0 ? -t : t;
	if (a % 10)
		sb_printf(b, "%s%lld.%lld", sign, a / 10, a % 10);
	else
		sb_printf(b, "%s%lld", sign, a / 10);
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ---- values and ticks -------------------------------------------------------------------- */

/* "%.6f" without trailing zeros: 0.300000 -> 0.3, 2.000000 -> 2 */
static void trim_num(char *buf, size_t len, double v)
{
	if (fabs(v) < 1e-12)
		v = 0;
	snprintf(buf, len, "%.6f", v);
	char *dot = strchr(buf, '.');
	if (!dot)
		return;
	char *end = buf + strlen(buf) - 1;
	while (end > dot && *end == '0')
		*end-- = 0;
	if (end == dot)
		*end = 0;
	if (strcmp(buf, "-0") == 0)
		strcpy(buf, "0");
}

static const struct {
	double div;
	const char *name;
} ns_units[] = {{1, "ns"}, {1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};

static int ns_unit_for(double v)
{
	double a = fabs(v);
	int u = 0;
	while (u < 3 && a >= ns_units[u + 1].div * (1 - 1e-9))
		u++;
	return u;
}

static void format_in(char *buf, size_t len, double v, enum svg_unit unit, int ns_unit)
{
	char num[64];
	switch (unit) {
	case SVG_UNIT_NS:
		trim_num(num, sizeof(num), v / ns_units[ns_unit].div);
		snprintf(buf, len, "%s%s", num, strcmp(num, "0") ? ns_units[ns_unit].name : "");
		return;
	case SVG_UNIT_PERCENT:
		trim_num(num, sizeof(num), v);
		snprintf(buf, len, "%s%%", num);
		return;
	case SVG_UNIT_NONE: {
		static const char *const sfx[] = {"", "k", "M", "G", "T"};
		int k = 0;   /* plain below 10000, then 12k, 1.5M */
		if (fabs(v) >= 1e4)
			while (k < 4 && fabs(v) >= pow(1e3, k + 1))
				k++;
		trim_num(num, sizeof(num), v / pow(1e3, k));
		snprintf(buf, len, "%s%s", num, sfx[k]);
		return;
	}
	}
	snprintf(buf, len, "?");
}

void svg_format_value(char *buf, size_t len, double v, enum svg_unit unit)
{
	format_in(buf, len, v, unit, ns_unit_for(v));
}

int svg_ticks_linear(double *lo, double *hi, int target, enum svg_unit unit, struct svg_tick *t, int max)
{
	double a = *lo, b = *hi;
	if (!isfinite(a) || !isfinite(b)) {
		a = 0;
		b = 1;
	}
	if (!(b > a)) {
		double d = a == 0 ? 1 : fabs(a) * 0.1;
		a -= a == 0 ? 0 : d;
		b += d;
	}
	if (target < 2)
		target = 2;
	double rough = (b - a) / target, mag = pow(10, floor(log10(rough))), norm = rough / mag;
	double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
	double first = floor(a / step + 1e-9) * step, last = ceil(b / step - 1e-9) * step;
	int n = (int)llround((last - first) / step) + 1;
	if (n > max)
		n = max;
	double big = fmax(fabs(first), fabs(first + (n - 1) * step));
	int nu = ns_unit_for(big);
	for (int i = 0; i < n; i++) {
		double v = first + i * step;
		if (fabs(v) < step * 1e-9)
			v = 0;
		t[i].v = v;
		t[i].major = true;
		format_in(t[i].label, sizeof(t[i].label), v, unit, nu);
	}
	*lo = first;
	*hi = first + (n - 1) * step;
	return n;
}

int svg_ticks_log(double *lo, double *hi, enum svg_unit unit, struct svg_tick *t, int max)
{
	if (!(*lo > 0) || !isfinite(*lo))
		*lo = 1;
	if (!(*hi > *lo) || !isfinite(*hi))
		*hi = *lo * 10;
	int d0 = (int)floor(log10(*lo) + 1e-9), d1 = (int)ceil(log10(*hi) - 1e-9);
	if (d1 <= d0)
		d1 = d0 + 1;
	bool minor = d1 - d0 <= 7, label25 = d1 - d0 < 3;
	int n = 0;
	for (int d = d0; d <= d1 && n < max; d++)
		for (int m = 1; m <= (d < d1 ? 9 : 1) && n < max; m++) {
			if (m > 1 && !minor)
				continue;
			double v = m * pow(10, d);
			t[n].v = v;
			t[n].major = m == 1;
			if (m == 1 || (label25 && (m == 2 || m == 5)))
				svg_format_value(t[n].label, sizeof(t[n].label), v, unit);
			else
				t[n].label[0] = 0;
			n++;
		}
	*lo = pow(10, d0);
	*hi = pow(10, d1);
	return n;
}

static bool labels_overlap(const struct svg_tick *t, const double *pos, const double *ext, int n, double gap)
{
	int prev = -1;
	for (int i = 0; i < n; i++) {
		if (!t[i].label[0])
			continue;
		if (prev >= 0 && fabs(pos[i] - pos[prev]) < (ext[i] + ext[prev]) / 2 + gap)
			return true;
		prev = i;
	}
	return false;
}

int svg_thin_labels(struct svg_tick *t, const double *pos, const double *extent, int n, double gap)
{
	if (labels_overlap(t, pos, extent, n, gap)) {
		for (int i = 0; i < n; i++)
			if (!t[i].major)
				t[i].label[0] = 0;
		/* every k-th labelled major tick; keep a copy of the labels to retry with a larger k */
		char saved[SVG_MAX_TICKS][32];
		int m = n < SVG_MAX_TICKS ? n : SVG_MAX_TICKS;
		for (int i = 0; i < m; i++)
			memcpy(saved[i], t[i].label, sizeof(saved[i]));
		for (int k = 2; k <= m && labels_overlap(t, pos, extent, m, gap); k++) {
			int j = 0;
			for (int i = 0; i < m; i++) {
				memcpy(t[i].label, saved[i], sizeof(saved[i]));
				if (!t[i].label[0])
					continue;
				if (j++ % k)
					t[i].label[0] = 0;
			}
		}
	}
	int kept = 0;
	for (int i = 0; i < n; i++)
		kept += t[i].label[0] != 0;
	return kept;
}

double svg_text_width(const char *s, double size)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n * 0.6 * size;
}

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

static void line(struct sbuf *b, double x1, double y1, double x2, double y2, const char *attrs)
{
	sb_puts(b, "<line x1=\"");
	sb_num(b, x1);
	sb_puts(b, "\" y1=\"");
	sb_num(b, y1);
	sb_puts(b, "\" x2=\"");
	sb_num(b, x2);
	sb_puts(b, "\" y2=\"");
	sb_num(b, y2);
	sb_printf(b, "\" %s/>", attrs);
}

/* <text x y attrs>escaped</text> */
static void text(struct sbuf *b, double x, double y, const char *attrs, const char *s)
{
	sb_puts(b, "<text x=\"");
	sb_num(b, x);
	sb_puts(b, "\" y=\"");
	sb_num(b, y);
	sb_printf(b, "\"%s%s>", attrs[0] ? " " : "", attrs);
	sb_esc(b, s);
	sb_puts(b, "</text>");
}

/* Cuts s to at most max code points, ending in "…" when cut. */
static void truncate_utf8(char *dst, size_t cap, const char *s, int max)
{
	int n = 0;
	size_t i = 0, last = 0;
	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) == 0x80)
			continue;
		if (n == max - 1)
			last = i;
		if (n == max)
			break;
		n++;
	}
	if (!s[i]) {
		snprintf(dst, cap, "%s", s);
		return;
	}
	snprintf(dst, cap, "%.*s…", (int)last, s);
}

/* ---- x/y plot ---------------------------------------------------------------------------- */

#define FONT "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
#define TICK_FONT 11.0
#define LEGEND_FONT 12.0
#define NOTE_FONT 10.5
#define LANE_H 14.0
#define LEGEND_MAX_CHARS 44

struct scale {
	enum svg_scale kind;
	double lo, hi;     /* data values at the two ends */
	double p0, p1;     /* pixels at lo and hi */
};

static double smap(const struct scale *s, double v)
{
	double f;
	if (s->kind == SVG_LOG || s->kind == SVG_SPECTRUM) {
		if (!(v > 0))
			v = s->lo;
		f = (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
	} else {
		f = (v - s->lo) / (s->hi - s->lo);
	}
	if (!isfinite(f))
		f = 0;
	return s->p0 + f * (s->p1 - s->p0);
}

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
			truncate_utf8(t[n].label, sizeof(t[n].label), ax->cats[i], 20);
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
			line(b, x, y0, x, y1, attrs);
			line(b, x - 4, y0, x + 4, y0, attrs);
			line(b, x - 4, y1, x + 4, y1, attrs);
		}
		if ((s->draw & SVG_ERRBARS_X) && isfinite(q->xlo) && isfinite(q->xhi)) {
			double x0 = X(l, q->xlo), x1 = X(l, q->xhi);
			line(b, x0, y, x1, y, attrs);
			line(b, x0, y - 4, x0, y + 4, attrs);
			line(b, x1, y - 4, x1, y + 4, attrs);
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
				text(b, r.x0, r.y1 - 2, "font-size=\"10.5\" fill=\"#222\"", q->label);
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
		line(b, x + 14, y - 6, x + 14, y + 6, attrs);
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
		truncate_utf8(name, sizeof(name), p->s[i].name ? p->s[i].name : "", LEGEND_MAX_CHARS);
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
		text(b, x, y + 12, "font-weight=\"bold\"", p->legend_title);
		y += 20;
	}
	for (int i = 0; i < p->ns; i++) {
		const struct svg_series *s = &p->s[i];
		if (s->legend_hidden)
			continue;
		char name[160];
		truncate_utf8(name, sizeof(name), s->name ? s->name : "", LEGEND_MAX_CHARS);
		legend_sample(b, s, x, y + 8);
		text(b, x + 36, y + 12, "", name);
		if (s->note)
			text(b, x + 36, y + 25, "font-size=\"10.5\" fill=\"#555\"", s->note);
		y += s->note ? 32 : 20;
	}
}

/* The percentile marks of one series on its lane above the plot. Marks closer than a glyph
 * share one label ("p99.9/max"); a label goes right of its marks, else left of them, where it
 * covers no other mark and no earlier label, else it is left out (the legend has the values). */
static void draw_lane(struct sbuf *b, const struct layout *l, const struct svg_series *s, double y)
{
	line(b, l->ml, y, l->ml + l->pw, y, "stroke=\"#e4e4e4\" stroke-width=\"1\"");
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
			text(b, r.x0, y + 3.5, "font-size=\"10\" fill=\"#333\"", lab);
			placed[np++] = r;
			break;
		}
	}
}

static void svg_open(struct sbuf *b, const char *id, const char *title, const char *desc, double w, double h)
{
	sb_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" width=\"", id);
	sb_num(b, w);
	sb_puts(b, "\" height=\"");
	sb_num(b, h);
	sb_puts(b, "\" viewBox=\"0 0 ");
	sb_num(b, w);
	sb_puts(b, " ");
	sb_num(b, h);
	sb_printf(b, "\" role=\"img\" aria-labelledby=\"%s-title %s-desc\" font-family=\"%s\" font-size=\"12\">\n", id, id,
	          FONT);
	sb_printf(b, "<title id=\"%s-title\">", id);
	sb_esc(b, title);
	sb_printf(b, "</title>\n<desc id=\"%s-desc\">", id);
	sb_esc(b, desc ? desc : title);
	sb_puts(b, "</desc>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	text(b, 10, 20, "font-size=\"14\" font-weight=\"bold\"", title);
	sb_puts(b, "\n");
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
			line(b, pos[i], l.mt, pos[i], l.mt + l.ph,
			     xt[i].major ? "stroke=\"#e2e2e2\" stroke-width=\"1\"" : "stroke=\"#f2f2f2\" stroke-width=\"1\"");
	double ypos[SVG_MAX_TICKS] = {0}, yext[SVG_MAX_TICKS] = {0};
	for (int i = 0; i < nyt; i++) {
		ypos[i] = Y(&l, yt[i].v);
		yext[i] = TICK_FONT;
	}
	svg_thin_labels(yt, ypos, yext, nyt, 4);
	for (int i = 0; i < nyt; i++)
		line(b, l.ml, ypos[i], l.ml + l.pw, ypos[i],
		     yt[i].major ? "stroke=\"#e2e2e2\" stroke-width=\"1\"" : "stroke=\"#f2f2f2\" stroke-width=\"1\"");
	sb_puts(b, "</g>\n<g class=\"axes\" font-size=\"11\" fill=\"#333\">");
	line(b, l.ml, l.mt + l.ph, l.ml + l.pw, l.mt + l.ph, "stroke=\"#555\" stroke-width=\"1\"");
	line(b, l.ml, l.mt, l.ml, l.mt + l.ph, "stroke=\"#555\" stroke-width=\"1\"");
	for (int i = 0; i < nxt; i++) {
		line(b, pos[i], l.mt + l.ph, pos[i], l.mt + l.ph + (xt[i].label[0] ? 5 : 3), "stroke=\"#555\"");
		if (xt[i].label[0])
			text(b, pos[i], l.mt + l.ph + 17, "text-anchor=\"middle\"", xt[i].label);
	}
	for (int i = 0; i < nyt; i++) {
		line(b, l.ml - (yt[i].label[0] ? 5 : 3), ypos[i], l.ml, ypos[i], "stroke=\"#555\"");
		if (yt[i].label[0])
			text(b, l.ml - 7, ypos[i] + 4, "text-anchor=\"end\"", yt[i].label);
	}
	sb_puts(b, "</g>\n");
	text(b, l.ml + l.pw / 2, l.mt + l.ph + 38, "text-anchor=\"middle\"", p->x.label ? p->x.label : "");
	sb_puts(b, "<text transform=\"translate(14,");
	sb_num(b, l.mt + l.ph / 2);
	sb_puts(b, ") rotate(-90)\" text-anchor=\"middle\">");
	sb_esc(b, p->y.label ? p->y.label : "");
	sb_puts(b, "</text>\n");
	if (p->footnote)
		text(b, l.ml, l.mt + l.ph + 56, "font-size=\"10.5\" fill=\"#555\"", p->footnote);

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
					line(b, X(&l, s->mark_x[m]), l.mt, X(&l, s->mark_x[m]), l.mt + l.ph, attrs);
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
		text(b, l.ml + l.pw / 2, l.mt + l.ph / 2, "text-anchor=\"middle\" fill=\"#777\"", "no data");

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

/* ---- bars -------------------------------------------------------------------------------- */

static void bar_fill(struct sbuf *b, const char *id, int part)
{
	if (part == 0)
		sb_printf(b, "fill=\"%s\"", svg_colors[0]);
	else
		sb_printf(b, "fill=\"url(#%s-fill%d)\"", id, part);
}

void svg_bars(struct sbuf *b, const struct svg_bars *g)
{
	double bw = g->width > 0 ? g->width : 480, rowh = 22;
	double labw = 0;
	char lab[160];
	for (int r = 0; r < g->nrows; r++) {
		truncate_utf8(lab, sizeof(lab), g->rows[r], 36);
		labw = fmax(labw, svg_text_width(lab, LEGEND_FONT));
	}
	double hi = 0;
	for (int r = 0; r < g->nrows; r++) {
		double sum = 0;
		for (int k = 0; k < g->nparts; k++)
			sum += fmax(0, g->values[r * g->nparts + k]);
		hi = fmax(hi, sum);
	}
	double lo = 0;
	struct svg_tick t[SVG_MAX_TICKS];
	int nt = svg_ticks_linear(&lo, &hi, (int)(bw / 90), g->unit, t, SVG_MAX_TICKS);
	struct scale sx = {SVG_LINEAR, lo, hi, 0, 0};
	double ml = 10 + labw + 10, mt = 40, ph = rowh * (g->nrows > 0 ? g->nrows : 1);
	sx.p0 = ml;
	sx.p1 = ml + bw;

	double lw = 0;
	for (int k = 0; k < g->nparts; k++)
		lw = fmax(lw, 30 + svg_text_width(g->parts[k], LEGEND_FONT));
	double W = ml + bw + 24 + lw + 12, H = fmax(mt + ph + 8 + 16 + 22 + (g->footnote ? 16 : 0) + 6, mt + 20.0 * g->nparts + 12);
	svg_open(b, g->id, g->title, g->desc, W, H);
	sb_puts(b, "<defs>");
	for (int k = 1; k < g->nparts && k < SVG_MAX_STACK; k++) {
		/* hatched (k odd) or dotted fills: distinct without colour */
		const char *c = svg_colors[k % SVG_NCOLORS];
		sb_printf(b, "<pattern id=\"%s-fill%d\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\"%s>", g->id, k,
		          k % 2 ? " patternTransform=\"rotate(45)\"" : "");
		sb_puts(b, "<rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>");
		if (k % 2)
			sb_printf(b, "<rect width=\"3\" height=\"6\" fill=\"%s\"/>", c);
		else
			sb_printf(b, "<circle cx=\"3\" cy=\"3\" r=\"1.6\" fill=\"%s\"/>", c);
		sb_puts(b, "</pattern>");
	}
	sb_puts(b, "</defs>\n<g class=\"grid\">");
	double pos[SVG_MAX_TICKS] = {0}, ext[SVG_MAX_TICKS] = {0};
	for (int i = 0; i < nt; i++) {
		pos[i] = smap(&sx, t[i].v);
		ext[i] = svg_text_width(t[i].label, TICK_FONT);
		line(b, pos[i], mt, pos[i], mt + ph, "stroke=\"#e2e2e2\" stroke-width=\"1\"");
	}
	svg_thin_labels(t, pos, ext, nt, 8);
	sb_puts(b, "</g>\n<g class=\"axes\" font-size=\"11\" fill=\"#333\">");
	line(b, ml, mt + ph, ml + bw, mt + ph, "stroke=\"#555\" stroke-width=\"1\"");
	line(b, ml, mt, ml, mt + ph, "stroke=\"#555\" stroke-width=\"1\"");
	for (int i = 0; i < nt; i++) {
		line(b, pos[i], mt + ph, pos[i], mt + ph + 5, "stroke=\"#555\"");
		if (t[i].label[0])
			text(b, pos[i], mt + ph + 17, "text-anchor=\"middle\"", t[i].label);
	}
	sb_puts(b, "</g>\n");
	text(b, ml + bw / 2, mt + ph + 38, "text-anchor=\"middle\"", g->xlabel ? g->xlabel : "");
	if (g->footnote)
		text(b, ml, mt + ph + 56, "font-size=\"10.5\" fill=\"#555\"", g->footnote);
	for (int r = 0; r < g->nrows; r++) {
		double y = mt + r * rowh;
		truncate_utf8(lab, sizeof(lab), g->rows[r], 36);
		text(b, ml - 8, y + rowh / 2 + 4, "text-anchor=\"end\"", lab);
		double x = 0;
		for (int k = 0; k < g->nparts && k < SVG_MAX_STACK; k++) {
			double v = fmax(0, g->values[r * g->nparts + k]);
			if (v <= 0)
				continue;
			double x0 = smap(&sx, x), x1 = smap(&sx, x + v);
			sb_puts(b, "<rect x=\"");
			sb_num(b, x0);
			sb_puts(b, "\" y=\"");
			sb_num(b, y + 4);
			sb_puts(b, "\" width=\"");
			sb_num(b, fmax(x1 - x0, 0.5));
			sb_puts(b, "\" height=\"");
			sb_num(b, rowh - 8);
			sb_puts(b, "\" ");
			bar_fill(b, g->id, k);
			sb_printf(b, " stroke=\"%s\" stroke-width=\"1\"/>", svg_colors[k % SVG_NCOLORS]);
			x += v;
		}
		sb_puts(b, "\n");
	}
	double lx = ml + bw + 24, ly = mt;
	for (int k = 0; k < g->nparts && k < SVG_MAX_STACK; k++) {
		sb_puts(b, "<rect x=\"");
		sb_num(b, lx);
		sb_puts(b, "\" y=\"");
		sb_num(b, ly + 2);
		sb_puts(b, "\" width=\"20\" height=\"12\" ");
		bar_fill(b, g->id, k);
		sb_printf(b, " stroke=\"%s\" stroke-width=\"1\"/>", svg_colors[k % SVG_NCOLORS]);
		text(b, lx + 28, ly + 12, "", g->parts[k]);
		ly += 20;
	}
	sb_puts(b, "\n</svg>\n");
}

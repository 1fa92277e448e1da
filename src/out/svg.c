/* What every chart shares: the text buffer, value formatting and "nice" ticks, and the
 * drawing primitives (svg_priv.h). The charts themselves: svg_plot.c, svg_bars.c. */
#include "out/svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/svg_priv.h"
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

/* ---- drawing primitives ------------------------------------------------------------------ */

#define FONT "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"

void svg_line(struct sbuf *b, double x1, double y1, double x2, double y2, const char *attrs)
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

void svg_text(struct sbuf *b, double x, double y, const char *attrs, const char *s)
{
	sb_puts(b, "<text x=\"");
	sb_num(b, x);
	sb_puts(b, "\" y=\"");
	sb_num(b, y);
	sb_printf(b, "\"%s%s>", attrs[0] ? " " : "", attrs);
	sb_esc(b, s);
	sb_puts(b, "</text>");
}

void svg_truncate_utf8(char *dst, size_t cap, const char *s, int max)
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

void svg_open(struct sbuf *b, const char *id, const char *title, const char *desc, double w, double h)
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
	svg_text(b, 10, 20, "font-size=\"14\" font-weight=\"bold\"", title);
	sb_puts(b, "\n");
}

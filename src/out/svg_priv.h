/* What svg.c shares with the two chart kinds, svg_plot.c (x/y plots) and svg_bars.c (bars).
 * Not for other modules: they use svg.h. */
#ifndef IRT_OUT_SVG_PRIV_H
#define IRT_OUT_SVG_PRIV_H

#include <math.h>

#include "out/svg.h"

#define TICK_FONT 11.0
#define LEGEND_FONT 12.0

struct scale {
	enum svg_scale kind;
	double lo, hi;     /* data values at the two ends */
	double p0, p1;     /* pixels at lo and hi */
};

/* The pixel of data value v; non-positive values sit at the low end of a log scale. */
static inline double smap(const struct scale *s, double v)
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

/* <line x1 y1 x2 y2 attrs/> */
void svg_line(struct sbuf *b, double x1, double y1, double x2, double y2, const char *attrs);
/* <text x y attrs>escaped</text> */
void svg_text(struct sbuf *b, double x, double y, const char *attrs, const char *s);
/* Cuts s to at most max code points, ending in "…" when cut. */
void svg_truncate_utf8(char *dst, size_t cap, const char *s, int max);
/* The <svg> element of a w x h chart, its title and description (accessibility) and the
 * title drawn at the top left; the caller closes it with </svg>. */
void svg_open(struct sbuf *b, const char *id, const char *title, const char *desc, double w, double h);

#endif

/* Deterministic SVG charts: a growable text buffer, "nice" axis ticks, and one generic x/y
 * plot (lines, steps, markers, error bars, point labels, percentile marker lanes) plus
 * horizontal stacked bars. Output depends only on the input: no clocks, no locale, fixed
 * coordinate formatting (one decimal), so golden files can compare it byte for byte.
 *
 * Readability rules the renderer enforces: axes carry labels and units on their ticks, the
 * legend sits outside the plot area, tick labels are thinned until they do not overlap, point
 * labels that would overlap are dropped, and series differ by colour (Okabe-Ito palette),
 * dash pattern and marker shape, so they stay apart in grayscale and for colour-blind readers. */
#ifndef IRT_OUT_SVG_H
#define IRT_OUT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- text buffer ------------------------------------------------------------------------- */

struct sbuf {
	char *s;    /* always NUL-terminated once anything was added */
	size_t len, cap;
};
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s with &, <, >, " and ' escaped (valid in XML/HTML text and attribute values). */
void sb_esc(struct sbuf *b, const char *s);
/* Appends v rounded to one decimal, "12" or "12.5" (never "-0"). */
void sb_num(struct sbuf *b, double v);
void sb_free(struct sbuf *b);

/* ---- ticks ------------------------------------------------------------------------------- */

enum svg_unit {
	SVG_UNIT_NONE,     /* plain numbers, 12k / 3.4M above 10000 */
	SVG_UNIT_NS,       /* durations: 1ns 10µs 2.5ms 1s */
	SVG_UNIT_PERCENT,  /* values are percent: 0.1% 50% */
};
enum svg_scale {
	SVG_LINEAR,
	SVG_LOG,           /* decades labelled; 2 and 5 multiples too when few decades */
	SVG_SPECTRUM,      /* log of 1/(1-p): ticks 50% 90% 99% 99.9% ... */
	SVG_CATEGORY,      /* x only: values are category indexes 0..ncat-1 */
};

#define SVG_MAX_TICKS 64
struct svg_tick {
	double v;
	char label[32];     /* "" = unlabelled minor tick */
	bool major;
};
/* Nice linear ticks covering [lo, hi] with about `target` steps of 1, 2 or 5 x 10^k; the
 * range is widened to the outer ticks (*lo, *hi updated). Returns the tick count. */
int svg_ticks_linear(double *lo, double *hi, int target, enum svg_unit unit, struct svg_tick *t, int max);
/* Log ticks: the range is widened to whole decades; every decade is a labelled major tick,
 * 2..9 multiples are minor ticks, labelled at 2 and 5 when the range has fewer than 3 decades.
 * lo and hi must be > 0. */
int svg_ticks_log(double *lo, double *hi, enum svg_unit unit, struct svg_tick *t, int max);
/* Formats v in unit with the given number of decimals (-1: shortest exact form for ticks). */
void svg_format_value(char *buf, size_t len, double v, enum svg_unit unit);
/* Keeps labels of ticks at pixel positions pos[] (ascending) that do not overlap: each label
 * needs extent[i] pixels centred on pos[i] plus a gap. Minor labels go first, then every 2nd,
 * 3rd... major label is kept. Cleared labels become "". Returns the number still labelled. */
int svg_thin_labels(struct svg_tick *t, const double *pos, const double *extent, int n, double gap);
/* Estimated width in pixels of text at a font size (UTF-8 code points x 0.6 x size). */
double svg_text_width(const char *s, double size);

/* ---- x/y plot ---------------------------------------------------------------------------- */

enum { SVG_NCOLORS = 7, SVG_NDASHES = 6, SVG_NMARKERS = 6 };
extern const char *const svg_colors[SVG_NCOLORS];
enum svg_marker { SVG_M_NONE = -1, SVG_M_CIRCLE, SVG_M_SQUARE, SVG_M_TRIANGLE, SVG_M_DIAMOND, SVG_M_TRIANGLE_DOWN, SVG_M_CROSS };

struct svg_point {
	double x, y;
	double ylo, yhi;    /* error bar (draw & SVG_ERRBARS_Y) */
	double xlo, xhi;    /* error bar (draw & SVG_ERRBARS_X) */
	bool marker;        /* with SVG_MARKERS_SOME: draw a marker here */
	const char *label;  /* with SVG_LABELS: text placed next to the point where it fits */
};

enum {
	SVG_LINE = 1 << 0,        /* straight segments through the points */
	SVG_STEP = 1 << 1,        /* histogram outline: point i is the bin [x, xhi] at height y */
	SVG_MARKERS = 1 << 2,     /* a marker at every point */
	SVG_MARKERS_SOME = 1 << 3,/* a marker at points with .marker set */
	SVG_ERRBARS_Y = 1 << 4,
	SVG_ERRBARS_X = 1 << 5,
	SVG_LABELS = 1 << 6,
};

#define SVG_MAX_MARKS 8
struct svg_series {
	const char *name;         /* legend text (truncated to 44 characters) */
	const char *note;         /* optional second legend line, e.g. "p99 1.2ms" */
	unsigned draw;            /* SVG_* flags */
	int color, dash, marker;  /* indexes; svg_style() sets all three from a series number */
	bool hollow;              /* markers outlined only (rings over other markers) */
	double marker_size;       /* radius-like size in px; 0 = 3.5 */
	double width;             /* line width; 0 = 1.8 */
	const struct svg_point *p;
	int n;
	/* percentile marks, drawn in a lane of their own above the plot area */
	double mark_x[SVG_MAX_MARKS];
	const char *mark_label[SVG_MAX_MARKS];
	int nmarks;
	bool legend_hidden;       /* an overlay that needs no legend entry */
};
/* The distinct look of series number i: up to 12 series, no two share dash and marker. */
void svg_style(struct svg_series *s, int i);

struct svg_axis {
	const char *label;        /* "wake-up latency" (the unit shows on the ticks) */
	enum svg_scale scale;
	enum svg_unit unit;
	double lo, hi;            /* data range; lo >= hi: taken from the series */
	bool zero;                /* linear: include 0 */
	const char *const *cats;  /* SVG_CATEGORY labels */
	int ncat;
};

struct svg_plot {
	const char *id;           /* unique among the charts of one HTML page; prefixes inner ids */
	const char *title;
	const char *desc;         /* one sentence for <desc> (screen readers) */
	struct svg_axis x, y;
	const struct svg_series *s;
	int ns;
	int width, height;        /* plot area in px; 0 = 560 x 300 */
	const char *legend_title; /* optional */
	const char *footnote;     /* optional line under the x axis label */
};
/* Appends a complete <svg> element (no XML declaration) to out. */
void svg_plot(struct sbuf *out, const struct svg_plot *p);

/* ---- horizontal stacked bars ------------------------------------------------------------- */

#define SVG_MAX_STACK 4
struct svg_bars {
	const char *id, *title, *desc;
	const char *xlabel;               /* "CPU time" */
	enum svg_unit unit;
	const char *const *rows;          /* row labels, top to bottom */
	int nrows;
	const char *const *parts;         /* legend names of the stacked parts */
	int nparts;
	const double *values;             /* nrows x nparts, row-major; < 0 = unknown (drawn as 0) */
	int width;                        /* bar area in px; 0 = 480 */
	const char *footnote;
};
void svg_bars(struct sbuf *out, const struct svg_bars *b);

#endif

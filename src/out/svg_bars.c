/* Horizontal stacked bars (svg_bars), on the pieces shared with the x/y plot (svg.c). */
#include "out/svg.h"

#include <math.h>

#include "out/svg_priv.h"

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
		svg_truncate_utf8(lab, sizeof(lab), g->rows[r], 36);
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
		svg_line(b, pos[i], mt, pos[i], mt + ph, "stroke=\"#e2e2e2\" stroke-width=\"1\"");
	}
	svg_thin_labels(t, pos, ext, nt, 8);
	sb_puts(b, "</g>\n<g class=\"axes\" font-size=\"11\" fill=\"#333\">");
	svg_line(b, ml, mt + ph, ml + bw, mt + ph, "stroke=\"#555\" stroke-width=\"1\"");
	svg_line(b, ml, mt, ml, mt + ph, "stroke=\"#555\" stroke-width=\"1\"");
	for (int i = 0; i < nt; i++) {
		svg_line(b, pos[i], mt + ph, pos[i], mt + ph + 5, "stroke=\"#555\"");
		if (t[i].label[0])
			svg_text(b, pos[i], mt + ph + 17, "text-anchor=\"middle\"", t[i].label);
	}
	sb_puts(b, "</g>\n");
	svg_text(b, ml + bw / 2, mt + ph + 38, "text-anchor=\"middle\"", g->xlabel ? g->xlabel : "");
	if (g->footnote)
		svg_text(b, ml, mt + ph + 56, "font-size=\"10.5\" fill=\"#555\"", g->footnote);
	for (int r = 0; r < g->nrows; r++) {
		double y = mt + r * rowh;
		svg_truncate_utf8(lab, sizeof(lab), g->rows[r], 36);
		svg_text(b, ml - 8, y + rowh / 2 + 4, "text-anchor=\"end\"", lab);
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
		svg_text(b, lx + 28, ly + 12, "", g->parts[k]);
		ly += 20;
	}
	sb_puts(b, "\n</svg>\n");
}

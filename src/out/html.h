/* The HTML report: one self-contained file (inline CSS and SVG, no scripts, nothing fetched). */
#ifndef IRT_OUT_HTML_H
#define IRT_OUT_HTML_H

#include <stdbool.h>

#include "err.h"
#include "out/report.h"
#include "out/svg.h"

/* Renders the whole document into out. */
int report_html_render(const struct report_in *in, struct sbuf *out, struct err *e);
/* Renders and writes it to path atomically ("-" = stdout); no partial file on failure. */
int report_html(const struct report_in *in, const char *path, struct err *e);

/* The "Why late" section (out/explain_html.c): results with an explain section only. */
bool html_has_explain(const struct report_in *in);
void html_explain_section(struct sbuf *out, const struct report_in *in);
/* The "Simulation" section (out/sim_html.c): results of irt sim only. */
void html_sim_section(struct sbuf *out, const struct report_in *in);
/* irt report DIR on a directory of machines: fleet verdicts with a forest plot per setting, and
 * a table with one row per machine. Written atomically ("-" = stdout). */
struct fleet;
int report_fleet_html(const struct fleet *f, const char *path, struct err *e);

#endif

/* The OpenMetrics / Prometheus text exposition of a result: per-thread wake-up latency and
 * response time histograms as _bucket{le="..."} series (seconds, cumulative), their exact
 * quantiles, counts of overruns and missed deadlines, and an info line naming the machine.
 * The output is valid OpenMetrics 1.0 and, since it uses only gauges and histograms, also the
 * Prometheus 0.0.4 text format node_exporter's textfile collector reads. */
#ifndef IRT_OUT_OPENMETRICS_H
#define IRT_OUT_OPENMETRICS_H

#include <stdio.h>

#include "result.h"

/* Upper bounds (ns) of the exported buckets: 1-2-5 steps from 1us to 10s, then +Inf. Fixed, so
 * series from different runs and machines aggregate. A bucket of the result's histogram counts
 * toward le=B when its lower edge is <= B (within its 0.2 % resolution of B). */
extern const long long openmetrics_bounds_ns[];
extern const int openmetrics_nbounds;

/* Writes the exposition of r, ending with "# EOF". */
void openmetrics_render(FILE *f, const struct result *r);
/* One exposition of several results (a sweep's cells): every series gets cell="cells[i]". */
void openmetrics_render_cells(FILE *f, const struct result *const *rs, const char *const *cells, int n);
/* The same as openmetrics_render without the final "# EOF", for writers that add families of their own. */
void openmetrics_render_body(FILE *f, const struct result *r);

#endif

/* The summary of a sweep, schema "irt-sweep/1" (written by `irt sweep` as DIR/sweep.json,
 * rendered by `irt report`). One cell per combination of knob settings and load, with the
 * statistics of its repetitions and its verdict against the baseline cell:
 *
 * {"schema":"irt-sweep/1", "metric":"wake_p99", "baseline":"c0", "knobs":["cpu.cfs_period_us"],
 *  "cells":[{"id":"c0", "settings":{"KNOB":"VALUE"}, "load":"cpu:threads=2",
 *            "repetitions":["c0/r0.json"], "metrics":{"wake_p99":{"median":N,"lo":N,"hi":N}},
 *            "ratio":{"median":R,"lo":R,"hi":R}, "verdict":"better"}],
 *  "pareto":["c1"], "recommendation":"c1"}
 *
 * The reader is tolerant of what it does not use (unknown keys; missing load, ratio, verdict,
 * pareto, recommendation, knobs, repetitions) and strict about what it uses (types, unique cell
 * ids, references to cells, lo <= median <= hi). */
#ifndef IRT_SWEEP_SUMMARY_H
#define IRT_SWEEP_SUMMARY_H

#include <stdbool.h>

#include "err.h"
#include "opt.h"
#include "result.h"

#define SWEEP_SCHEMA "irt-sweep/1"

struct sweep_stat {
	double median, lo, hi;   /* a 95 % confidence interval around the median */
};

struct sweep_metric {
	char *name;              /* "wake_p99" (ns), "throughput", ... */
	struct sweep_stat s;
};

struct sweep_cell {
	char *id;
	struct kvlist settings;  /* knob = value */
	char *load;              /* "" when none */
	struct strlist reps;     /* result files, relative to the summary's directory */
	struct sweep_metric *metrics;
	int nmetrics;
	bool has_ratio;
	struct sweep_stat ratio; /* metric of this cell / metric of the baseline */
	char *verdict;           /* "" when none */
	bool pareto;             /* listed in "pareto" */
};

struct sweep_summary {
	char *path;              /* the file it was read from */
	char *metric;            /* the metric the verdicts use */
	char *baseline;          /* cell id or "" */
	char *recommendation;    /* cell id or "" */
	struct strlist knobs;    /* from "knobs", else the settings keys in order of appearance */
	struct sweep_cell *cells;
	int ncells;
	bool has_pareto;         /* the file listed a Pareto front */
};

/* Reads path into s (zeroed first). Errors are EXIT_USAGE "PATH: $.cells[2].metrics.x.lo:
 * what (hint)"; on failure s is left empty. */
int sweep_summary_read(struct sweep_summary *s, const char *path, struct err *e);
void sweep_summary_free(struct sweep_summary *s);

const struct sweep_cell *sweep_cell_find(const struct sweep_summary *s, const char *id);
/* The statistics of metric in cell c, or NULL. */
const struct sweep_stat *sweep_cell_metric(const struct sweep_cell *c, const char *metric);
/* True when metric is a duration in ns (wake_*, resp_*, *_ns), which decides units and scales. */
bool sweep_metric_is_ns(const char *metric);

#endif

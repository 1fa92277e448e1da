/* irt compare: group saved results into cells (identical settings = repetitions of one cell),
 * summarise every metric per cell, compare each cell with the baseline, recommend.
 *
 * One struct, several printers: compare_results() computes a struct compare; the text table,
 * compare.json, the CSV rows and the sweep summary (sweep.c) are all rendered from it. */
#ifndef IRT_COMPARE_H
#define IRT_COMPARE_H

#include <stdio.h>

#include "config.h"
#include "err.h"
#include "result.h"
#include "stats.h"

#define COMPARE_ALL_THREADS (-1)   /* compare_row.thread: all probe threads merged */

/* A cell: the results that are repetitions of one setting. */
struct compare_cell {
	char id[16];          /* "A", "B", ... */
	char name[96];        /* the identity entries in which the cells differ: "probe0.slice=1ms" */
	int *runs;            /* indices into the results compared, in their order */
	int nruns;
};

/* One metric of one subject (a probe thread, all of them merged, or a load) in one cell. */
struct compare_row {
	int thread;           /* index into threads, COMPARE_ALL_THREADS; unused for loads */
	int load;             /* index into loads for a throughput row, else -1 */
	const char *metric;   /* "wake-p99", ..., "throughput" */
	char label[96];       /* the metric as the table names it: "wake-up p99", "hog loops/s" */
	bool first;           /* first row of its metric in its table (the label is printed) */
	int cell;
	int runs;
	uint64_t samples;     /* fewest samples behind one run's value */
	struct ci summary;    /* median over repetitions and its CI */
	struct comparison cmp;/* against the baseline; verdict VERDICT_NONE for the baseline */
};

struct compare {
	const struct result *results;   /* borrowed from the caller, as are paths */
	const char *const *paths;
	int nresults;
	struct stats_params params;
	struct compare_cell *cells;
	int ncells, base;
	char **threads;       /* probe thread names over all results, the baseline's first */
	int nthreads;
	char **loads;         /* load names, the baseline's first */
	int nloads;
	struct compare_row *rows;   /* thread blocks (all merged first when several), then loads */
	int nrows, rows_cap;
	bool any_single;      /* some comparison was between single runs */
	struct strlist conditions;  /* "conditions differ: PM QoS held at 0 µs in A, not held in B" */

	/* the recommendation (when ncells > 1) */
	int metric;           /* enum rank_metric: what the recommendation minimises */
	double min_throughput;/* fraction of the baseline's throughput a candidate keeps */
	bool have_thr, have_lat;
	double *lat, *thr;    /* per cell: the metric's median; lowest throughput ratio over loads */
	int best;             /* the lowest qualifying cell, -1 when none */
	bool better;          /* best is not the baseline and its verdict is "better": recommended */
	struct comparison best_cmp;
	bool *pareto;         /* per cell, NULL when there is no front (no throughput) */
};

/* `irt compare FILE...` */
int cmd_compare(int argc, char **argv);

/* The comparison of n results already read (paths[i] names results[i]; both must outlive c),
 * bootstrapped with seed. Returns 0, or -1 with e set (bad --baseline: EXIT_USAGE). */
int compare_results(const struct result *results, const char *const *paths, int n,
                    const struct report_cfg *cfg, uint64_t seed, struct compare *c, struct err *e);
void compare_free(struct compare *c);

/* The id ("wake-p99"), the table label ("wake-up p99") and whether lower is better of metric
 * `rank` (enum rank_metric). */
const char *compare_metric_id(int rank);

/* Printers. The text table to out; the JSON (schema irt-compare/1) to path and the rows as
 * CSV to path ("-" = stdout). Return 0, or -1 with e set (EXIT_RUNTIME: cannot write). */
void compare_print(const struct compare *c, FILE *out);
int compare_write_json(const struct compare *c, const char *path, struct err *e);
int compare_write_csv(const struct compare *c, const char *path, struct err *e);

/* Result settings that differ between repetitions of one cell and so never split cells. */
bool compare_ignored_setting(const char *key);

#endif

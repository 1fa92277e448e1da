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
#define COMPARE_NAME_LEN 96

/* A cell: the results that are repetitions of one setting. */
struct compare_cell {
	char id[16];          /* "A", "B", ... */
	char name[COMPARE_NAME_LEN];   /* the identity entries in which the cells differ: "probe0.slice=1ms" */
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
	bool exact;           /* this cell and the baseline are deterministic simulations: compared by value */
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
	bool runq;            /* every result is watch --all's: its wake- metrics are run-queue waits */
	struct compare_row *rows;   /* thread blocks (all merged first when several), then loads */
	int nrows, rows_cap;
	bool any_single;      /* some comparison was between single runs */
	bool any_exact;       /* some comparison was between deterministic simulations (exact values) */
	bool any_seeded;      /* some side was a simulation with random draws (repeat over --sim-seed) */
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
/* The name irt compare gives the cell of each of rs[0..n-1] (names[i] for rs[i]): what tells the
 * cells apart, "fill=10ms" (irt report labels a simulated sweep's cells so). */
void compare_cell_names(const struct result *const *rs, int n, char (*names)[COMPARE_NAME_LEN]);
/* The letter of the k-th cell (in order of first run): A, B, ... Z, C27, ... */
void compare_cell_letter(int k, char *buf, size_t len);

/* Printers. The text table to out; the JSON (schema irt-compare/1) to path and the rows as
 * CSV to path ("-" = stdout). Return 0, or -1 with e set (EXIT_RUNTIME: cannot write). */
void compare_print(const struct compare *c, FILE *out);
int compare_write_json(const struct compare *c, const char *path, struct err *e);
int compare_write_csv(const struct compare *c, const char *path, struct err *e);

/* --expect on a comparison (compare_fleet.c): a cell's median of METRIC, METRIC.ratio against
 * the baseline, or the verdict of --metric. A cell is named by its id, its name or, when alias
 * is not NULL, alias[cell] (a sweep's c0, c1 ...); unnamed, every cell (but the baseline, for
 * ratios and verdicts) must meet it. */
struct expect;
struct expect_outcome;
void compare_expect(const struct expect *x, const struct compare *c, const char *const *alias, struct expect_outcome *out);

/* ---- fleets (compare_fleet.c): DIR/<machine>/ holding each machine's results (irt fleet) ---- */

struct fleet_machine {
	char name[256];            /* the directory name: the machine */
	struct result_env env;     /* of its first result, with the machine_id its results carry */
	int id_from;               /* the result env.machine_id is from (-1: none has one) */
	bool mixed;                /* its results name more than one hostname */
	bool sweep;                /* it is a sweep's directory (plan.json), not a machine's */
	struct result *results;
	char **paths;
	int n;
	struct compare c;          /* its own comparison: per-machine verdicts */
	bool have_compare;
	int *cell_of;              /* fleet cell of each of its cells (matched by name) */
};

/* A setting over the fleet; cell 0 is the baseline. */
struct fleet_cell {
	char id[4];
	char name[96];
	int machines, better, worse;   /* machines that compared it; with verdict better / worse */
	struct ci pooled;          /* geometric mean of the per-machine ratios, t interval over machines */
	enum verdict verdict;
	char why[128];
};

struct fleet {
	char dir[512];
	struct fleet_machine *m;
	int nm;
	struct fleet_cell *cells;
	int ncells, base;
	int metric;                /* enum rank_metric judged */
	struct strlist conditions; /* conditions that differ between the machines (cond_diff.h) */
};

/* A directory given to irt compare or irt report is opened once, by sweep_dir_open (sweep_runs.h),
 * and its fd dfd passed to these three; dir names it in messages.
 * True when dfd holds machine directories with results (and is not one sweep's directory). */
bool compare_is_fleet(int dfd);
/* The result files directly in dfd as "dir/NAME" (sorted), when it is no sweep's directory: irt
 * fleet's sim shards write their cells there. Their number; -1 (e set) when a result there is
 * a symbolic link or no regular file: refused, as irt report refuses it, not passed over. */
int compare_dir_files(int dfd, const char *dir, struct strlist *out, struct err *e);
/* Reads every DIR/<machine>/ (DIR is dfd; results up to three levels down: run files, sweep
 * directories), compares each machine's results on their own, matches cells by name across
 * machines and gives each setting its fleet verdict. DIR is read by sweep_runs.h's one rule
 * (any owner, no symbolic link followed: one where a machine directory, a directory of results
 * or a result could be is refused). A machine counts once: a directory whose results carry two machine_ids,
 * two directories of one machine_id, and one run in two directories are refused (EXIT_USAGE). */
int fleet_read(struct fleet *f, int dfd, const char *dir, const struct report_cfg *cfg, uint64_t seed, struct err *e);
void fleet_free(struct fleet *f);
/* The --metric row of fleet cell fcell on machine `machine`, or NULL when it lacks the cell. */
const struct compare_row *fleet_row(const struct fleet *f, int machine, int fcell);
void fleet_print(const struct fleet *f, FILE *out);
/* "1.234 [1.100, 1.400]", "1.234" without bounds, "-" without an estimate */
const char *compare_ci_text(const struct ci *ci, char *buf, size_t len);
int fleet_write_json(const struct fleet *f, const char *path, struct err *e);   /* irt-fleet/1 */
struct expect_set;
/* irt compare DIR: prints, writes --json, judges --expect. Returns 0, EXIT_UNMET or -1. */
int compare_fleet_cmd(int dfd, const char *dir, const struct report_cfg *cfg, const struct global_cfg *g,
                      struct expect_set *gate, struct err *e);
void fleet_expect(const struct expect *x, const struct fleet *f, struct expect_outcome *out);

/* Result settings that differ between repetitions of one cell and so never split cells. */
bool compare_ignored_setting(const char *key);

#endif

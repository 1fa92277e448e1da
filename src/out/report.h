/* Reports of results and sweeps: what `irt report` and the default check render.
 *
 * A caller fills a struct report_in with results (from files or in memory), optionally a sweep
 * summary and per-thread CPU accounting, then calls report_html() (out/html.h), report_text()
 * or report_svg_dir(). The renderers read, never measure, and their output depends only on
 * the input (golden tests compare it byte for byte). */
#ifndef IRT_OUT_REPORT_H
#define IRT_OUT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "hist.h"
#include "result.h"
#include "sweep_summary.h"

/* One thread's CPU accounting over a run, for the accounting bars. */
struct report_acct {
	const char *source;      /* label of the result it belongs to; may be NULL */
	const char *thread, *role;
	int64_t used_ns;         /* on a CPU */
	int64_t waited_ns;       /* runnable on a runqueue without a CPU; -1 = unknown */
	int64_t wall_ns;         /* the window the two cover; 0 = unknown */
	bool exited;             /* the thread exited in the window: used and waited unknown */
};

struct report_in {
	const struct result *const *rs;
	int n;
	const char *const *labels;       /* per result ("idle", "a.json"...); NULL: "result 1", ... */
	const struct sweep_summary *sw;  /* NULL: no sweep */
	const int *cell_of;              /* per result: its sweep cell index, -1 none; NULL: none */
	const char *metric;              /* sweep metric to chart; NULL: the summary's own */
	const struct report_acct *acct;  /* NULL: every result's own accounting (result.acct) */
	int nacct;
	const char *title;               /* NULL: "irt report" */
};

/* The accounting rows to show: in->acct when given, else the rows of every result (source =
 * its label). Returns the count; *rows is malloc'ed (free() it), NULL when none. */
int report_acct_rows(const struct report_in *in, struct report_acct **rows);

/* ---- series: one per thread name and sweep cell (repetitions merged), else per thread ------ */

struct report_series {
	char label[128];
	char note[160];          /* cell settings and load, "" otherwise */
	char role[16];
	int result;              /* first result it came from */
	int thread;              /* and its thread index there */
	int cell;                /* sweep cell index or -1 */
	int merged;              /* number of result threads merged into it */
	struct hist *wake, *resp;
	uint64_t overruns, met, missed;
};
int report_series_build(const struct report_in *in, struct report_series **out, int *n);

/* How the series' wake histograms are named. watch --all's (every series from a result with a
 * runq section) hold every wait for a CPU, after a preemption too (docs/watch.md): no wake-ups. */
struct report_words {
	bool runq;            /* watch --all's waits: no response time either */
	const char *what;     /* "wake-up latency", "run-queue latency" */
	const char *What;     /* the same, capitalised for a title */
	const char *plural;   /* "wake-up latencies", "run-queue waits" */
	const char *span;     /* "release to running", "wake-up or preemption to running" */
	const char *metric;   /* before p50, p99, max: "wake-up", "run-queue wait" */
};
const struct report_words *report_wake_words(const struct report_in *in, const struct report_series *s, int ns);
void report_series_free(struct report_series *s, int n);

/* The sweep metric the charts use (in->metric or the summary's); checks it exists in at least
 * one cell: else EXIT_USAGE "--metric: 'x' is not a metric of SWEEP (metrics: a, b)". */
int report_metric(const struct report_in *in, const char **metric, struct err *e);

/* ---- charts ------------------------------------------------------------------------------ */

#define REPORT_MAX_SERIES 12  /* series per chart; more are listed in tables only */

struct report_chart {
	char id[64];             /* "wake-hist": HTML id and --svg file name */
	char title[160];
	char section[16];        /* "latency", "spectrum", "sweep", "accounting" */
	const char *how;         /* how to read it, one paragraph */
	char note[160];          /* "showing 12 of 30 series" or "" */
	char *svg;               /* the <svg> element */
};
/* Every chart the input supports, in report order. */
int report_charts(const struct report_in *in, const struct report_series *s, int ns, struct report_chart **out,
                  int *n, struct err *e);
void report_charts_free(struct report_chart *c, int n);

/* ---- outputs ----------------------------------------------------------------------------- */

/* The terminal report: percentile tables, an ASCII percentile spectrum, the sweep's verdicts,
 * CPU accounting, environment and command lines. */
int report_text(FILE *f, const struct report_in *in, struct err *e);
/* Each chart as DIR/ID.svg (standalone, with XML declaration); DIR is created if missing.
 * Every file is written atomically. */
int report_svg_dir(const struct report_in *in, const char *dir, struct err *e);

/* Helpers shared by the renderers. */
const char *report_label(const struct report_in *in, int i, char *buf, size_t len);
/* The results' measurement conditions: each(ctx, i, summary) for the first result with each
 * distinct, non-empty cond_summary (later ones alike are not named), then the conditions
 * that differ between the results appended to diff (cond_differences). */
void report_conditions(const struct report_in *in, void (*each)(void *ctx, int i, const char *summary), void *ctx,
                       struct strlist *diff);
/* "1.23ms", "87.4µs" (micro true) or "87.4us" */
char *report_ns(char *buf, size_t len, int64_t ns, bool micro);
/* "period 1ms, fifo 80, burn 200us" from a thread's settings */
void report_thread_desc(const struct result_thread *t, char *buf, size_t len);
/* A simulated thread's own figures (irt sim's table and the reports' simulation tables), "-"
 * where it has none: share of its CPU, used and spent time, switches, deadlines met, one-shot
 * completion ("not done"), timer windows with enough activations ("19/20"). */
struct report_sim_figs {
	char share[16], used[32], spent[32], switches[24], met[16], done[32], timer[48];
};
void report_sim_figs(const struct result_thread *t, struct report_sim_figs *f);
/* The simulated thread named name in r, NULL when it has none. */
const struct result_thread *report_sim_thread(const struct result *r, const char *name);
/* The pivot of a simulated sweep (out/sim_pivot.c): when the cells' swept values (as the file
 * wrote them) vary in two keys or more, the first varying key down, the second across, one
 * group per combination of the others; per thread the figure it is judged by. */
enum pivot_fig { PIVOT_DONE, PIVOT_WINDOWS, PIVOT_RESP, PIVOT_SHARE };
struct sim_pivot {
	char down[64], across[64];   /* the swept keys of rows and columns */
	struct strlist rows, cols;   /* their values, in cell order */
	struct strlist groups;       /* "vm.quota=40%" per combination of the other varying keys; "" when two vary */
	int *at;                     /* result index at [group][row][col], -1: no such cell given */
	struct strlist threads;      /* simulated threads, in result order */
	enum pivot_fig *figs;        /* per thread */
	char why[192];               /* no pivot although cells were swept: why ("" otherwise) */
};
struct sim_pivot_cell {
	char text[48];               /* the figure, "–" where the cell is missing */
	char share[16];              /* the thread's share beside another figure, "" */
	bool best;                   /* the best of its matrix (ties all), only where the cells differ */
	bool worst;                  /* a one-shot not done */
};
/* 1 and p filled when the results form such a grid (sim_pivot_free() it), else 0 (p->why). */
int sim_pivot_build(const struct report_in *in, struct sim_pivot *p);
void sim_pivot_free(struct sim_pivot *p);
/* "completion (boot time), lower is better" */
const char *sim_pivot_fig_name(enum pivot_fig f);
/* Thread t's matrix in group g: rows x cols cells into out; returns how many are marked best. */
int sim_pivot_matrix(const struct sim_pivot *p, const struct report_in *in, int t, int g, struct sim_pivot_cell *out);
/* Does any result hold simulated threads (irt sim)? */
bool report_has_sim(const struct report_in *in);
/* "a=1, b=2; load cpu:threads=2" */
void report_cell_desc(const struct sweep_cell *c, char *buf, size_t len);

#endif

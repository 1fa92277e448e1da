/* Text renderers of a result: the summary table, the seed script's format, cyclictest's
 * histogram format, and CSV. They read results and never measure. */
#ifndef IRT_OUT_TEXT_H
#define IRT_OUT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "result.h"

/* Per thread: samples, min, p50, p90, p99, p99.9, p99.99, max, overruns, deadlines met %,
 * one table for wake-up latency and one for response time. */
void out_summary(FILE *f, const struct result *r);
/* Exactly the seed script's lines: "0.201:  201", keys '%01.3f' seconds of the real sleep
 * (period + wake-up latency), sorted as strings as Perl's sort does. A "# NAME" line heads
 * each thread's block when there are several. */
void out_seed(FILE *f, const struct result *r);
/* --stop-above: "stopped: probe0's wake-up at +1.234s was 812us late (--stop-above 500us)" into
 * buf (no newline), as irt probe/run and irt report print it; false (buf untouched) when no
 * wake-up ended r. */
bool out_stopped_line(char *buf, size_t len, const struct result *r);
/* cyclictest -h BUCKETS output: one row per microsecond, one column per thread, then the
 * Total/Min/Avg/Max/Overflows lines. sum (cyclictest -H): with several threads, one more
 * column, all threads summed, in the rows and the Total, Max and Overflows lines. */
void out_cyclictest(FILE *f, const struct result *r, int buckets, bool sum);
/* irt run's extra sections, from the record: the lateness split (--attribute), the loads and
 * their throughput, the per-thread CPU accounting and the system context. Each is printed
 * only when present. */
void out_run_sections(FILE *f, const struct result *r);
/* --explain: what delayed the tail wake-ups, from the start of a line (nothing when r has no
 * explain section). */
void out_explain(FILE *f, const struct result *r);
/* One row per thread and metric; written atomically. */
int out_csv(const struct result *r, const char *path, struct err *e);

/* The heading of the latency (resp false) or response table: a watch (watched threads) has
 * no release, its times start at sched_waking (docs/explain.md); watch --all (runq) times
 * every task's waits, after a wake-up or a preemption (docs/watch.md). */
const char *out_table_title(bool resp, bool watch, bool runq);

/* The period of a result thread, from its settings (0 if absent). */
int64_t out_thread_period(const struct result_thread *t);

#endif

/* irt watch: real applications' threads (--pid, --comm, --cgroup) measured from the kernel's
 * scheduler events. A run (run.c) with a watch selection measures these threads instead of
 * probes, so `irt watch`, `irt watch --load ...` and `irt sweep ... --comm NAME` share the
 * loads, placement, conditions and knobs of runs and sweeps. */
#ifndef IRT_WATCH_H
#define IRT_WATCH_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "linux/acct.h"
#include "result.h"

struct watch;

/* Did the options select threads to watch? */
bool watch_selected(const struct watch_cfg *c);
/* The selection as given must be usable now (processes exist, names fit, the cgroup is one):
 * EXIT_USAGE with one line otherwise. */
int watch_check(const struct watch_cfg *c, struct err *e);
/* Selects the threads and sets up tracing (trace_open; stop signals blocked). -1 with e set
 * when tracing is unavailable (not root, no tracefs) or the selection no longer holds. */
int watch_open(struct watch **w, const struct watch_cfg *c, const struct explain_cfg *x, struct err *e);
/* Starts tracing (trace_run: its reader thread), after the loads have started. */
int watch_trace(struct watch *w, struct err *e);
/* The measuring window, [start, end] on CLOCK_MONOTONIC (the accounting's, run.c): the
 * wake-ups recorded are those that began in it. */
void watch_window(struct watch *w, int64_t start, int64_t end);
/* The watched processes (--pid) for the window's CPU accounting, role "watch". */
void watch_snap(const struct watch *w, struct acct_snap *s);
/* Closes the window and stops tracing (while loads still run: their cgroups and policies). */
void watch_stop(struct watch *w, struct err *run_err);
/* A thread per watched thread that woke in the window, the window's times, the selection and
 * the causes of the tail into r; frees w. w NULL (never started) does nothing. When none woke,
 * empty gets why (one line, no "irt: "), also said on stderr unless empty_fails (the caller's). */
int watch_finish(struct watch *w, struct result *r, char *empty, size_t len, struct err *e);

/* --all (watch_all.c): the waits of every task in d that began in [start, end], but those
 * of the tids in exclude, as threads "all tasks", per CPU and the worst tasks, and r->runq. */
struct trace_data;
void watch_all_fill(struct result *r, const struct trace_data *d, const struct watch_cfg *c, int64_t start,
                    int64_t end, const int32_t *exclude, int nexclude);

#endif

/* The result record: everything one irt invocation measured (or simulated), in one schema
 * ("irt-result/1", docs/result-schema.md). Written as JSON with jansson, atomically; read
 * back losslessly. Renderers and statistics read this struct; only producers fill it. */
#ifndef IRT_RESULT_H
#define IRT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "hist.h"

#define RESULT_SCHEMA "irt-result/1"

/* An ordered list of name = value strings; values are in the form the CLI accepts.
 * A zeroed kvlist is empty and valid. Allocation failure aborts (as strlist_add). */
struct kv {
	char *key, *value;
};
struct kvlist {
	struct kv *v;
	int n, cap;
};
void kvlist_set(struct kvlist *l, const char *key, const char *value);  /* replaces or appends */
const char *kvlist_get(const struct kvlist *l, const char *key);
void kvlist_free(struct kvlist *l);
void kvlist_copy(struct kvlist *dst, const struct kvlist *src);  /* dst is overwritten, not freed */

struct result_env {
	char hostname[128];
	char kernel[128];          /* uname -r */
	char kernel_version[256];  /* uname -v */
	char machine[32];          /* uname -m */
	char machine_id[33];       /* SHA-256 of "irt:" + /etc/machine-id, first 32 hex digits; "" unknown */
	char cpu_model[128];
	int online_cpus;
	char clocksource[64];
	char preemption[64];       /* "full", "voluntary", "dynamic (full)", ... ; "" = unreadable */
	int hz;                    /* 0 = unreadable */
	bool root;
};

/* One probe thread (real or simulated). */
struct result_thread {
	char name[64];
	char role[16];             /* "probe" (later: "load", "sim") */
	struct kvlist settings;    /* its effective settings, e.g. period=200ms policy=fifo */
	int64_t tid;
	struct hist wake;          /* wake-up latency: actual wake - intended release */
	struct hist resp;          /* response time: work done - intended release */
	uint64_t samples;
	uint64_t overruns;         /* periods that had already passed at wake-up */
	uint64_t skipped;          /* --overrun skip: releases passed over, never measured */
	int64_t past_window_ns;    /* how long after its window (its -D/-n releases' periods) its last
	                            * job ended, when more than a period: it fell behind; else 0 */
	int64_t phase_ns;          /* its releases' offset from the probes' common grid (start + n periods):
	                            * threads spread over the period, --aligned-offset; 0 aligned */
	/* --stop-above: this thread's wake-up ended the run; 0 on every other thread */
	int64_t stop_wake_ns;      /* its lateness */
	int64_t stop_at_ns;        /* its release, after the window's start (as explain's worst[].at_ns) */
	int64_t stop_above_ns;     /* the threshold it crossed */
	uint64_t deadlines_met, deadlines_missed;
	int64_t timer_slack_ns;    /* as read back after all policy changes; -1 = unknown */
	int64_t burn_ns_per_kloop; /* CPU burn calibration: ns per 1000 loop iterations, 0 = none */
	/* --attribute: each wake-up's lateness split into runqueue wait and the rest */
	bool attributed;
	struct hist attr_runq;     /* run_delay growth across the sleep (waiting for a CPU) */
	struct hist attr_other;    /* lateness - runqueue wait - backlog (timer, IRQ, wake-up path) */
	struct hist attr_backlog;  /* its own previous job still running after the release (count 0:
	                            * a file of an irt before it, whose attr_other includes it) */

	/* ---- simulator (irt sim, role "sim"); all zero for real probes ---- */
	int64_t sim_cpu;             /* simulated CPU it was pinned to */
	int64_t sim_share_ppm;       /* CPU share: spent / simulated duration, parts per million */
	int64_t sim_used_ns;         /* time the thread itself executed */
	int64_t sim_spent_ns;        /* time charged to its share (used + context-switch cost) */
	uint64_t sim_switches;       /* times it was switched in (context switches to it) */
	int64_t sim_completion_ns;   /* oneshot: start to completion ("boot time"); -1 not completed
	                                within the duration; 0 not a oneshot thread */
	uint64_t sim_windows;        /* timer: full windows (super periods) simulated */
	uint64_t sim_windows_ok;     /* timer: windows with >= the activations it needs */
	int64_t sim_activations_min; /* timer: fewest activations in a full window; -1 not a timer */
};

/* A background load of `irt run` and what it got done. */
struct result_load {
	char name[64];
	char type[16];
	char spec[512];            /* as given: TYPE[:key=value,...] */
	struct kvlist settings;    /* every effective parameter */
	uint64_t ops, bytes, errors;
	int64_t elapsed_ns;
	double ops_per_s, bytes_per_s;
	char ops_unit[32];         /* what one operation is: "loops", "messages" ... */
	char bytes_unit[32];       /* "" when the type moves no bytes */
	char end[16];              /* "stopped", "deadline", "failed" */
	char failure[256];         /* why it failed; "" */
};

/* One row of the per-thread CPU accounting table (docs/accounting.md). -1 = unknown. */
struct result_acct {
	char name[64];             /* the thread's comm, control characters escaped */
	char role[32];             /* "probe", "load cpu", "irt" ... */
	char kind[16];             /* "thread", or "children" (reaped short-lived processes) */
	int64_t pid, tid;
	int64_t wall_ns, used_ns, waited_ns, carry_ns;
	int64_t timeslices, vol_switches, invol_switches, migrations;
	bool exited;               /* gone before the window's end: figures unknown (-1), wall 0 */
	double cpu_pct;            /* used / window, % of one CPU */
	double run_pct;            /* used / (window x CPUs), share of the machine */
};

struct result_cgroup_stat {
	char path[512];
	int64_t nr_periods, nr_throttled, throttled_ns;
	int64_t usage_ns;          /* -1 unknown */
};

/* The system around a run's measuring window. Percentages -1 = unavailable here. */
struct result_context {
	bool present;
	int64_t wall_ns;
	double steal_pct;
	int64_t ctxt;              /* context switches in the window, -1 unknown */
	double ctxt_per_s;
	double psi_some_pct, psi_full_pct;   /* share of the window some/all tasks stalled on CPU */
	double load1, load5, load15;         /* at the end; -1 unknown */
	struct result_cgroup_stat *cgroups;  /* throttling of the cgroups holding probes and loads */
	int ncgroups;
	bool noisy;
	char noisy_why[256];
};

/* Where probes and loads ran (irt run --placement). */
struct result_placement {
	char mode[16];             /* "same", "split", "session"; "" = not a run */
	char probe_cgroup[512];    /* cpu controller cgroup paths */
	char load_cgroup[512];
	char probe_autogroup[64];  /* /proc/<pid>/autogroup, "" unreadable */
	char load_autogroup[64];
};

/* --explain / irt watch: why tail wake-ups were late (src/explain.h, docs/explain.md). */
enum explain_cat {
	EXC_TIMER,        /* release -> sched_waking (timer, IRQ entry) and the wake-up path */
	EXC_IDLE_EXIT,    /* the CPU coming out of idle */
	EXC_TASK,         /* other tasks that ran on its CPU meanwhile */
	EXC_IRQ,          /* hard IRQs on its CPU */
	EXC_SOFTIRQ,      /* softirqs on its CPU */
	EXC_MIGRATION,    /* the wake-up path when it moved the thread to another CPU */
	EXC_THROTTLE,     /* runnable while its CPU idled longer than an idle exit (bandwidth) */
	EXC_SELF,         /* the thread itself: backlog of its previous work, return to user */
	EXC_UNEXPLAINED,  /* no events cover it */
	EXC_N
};

struct result_blocker {
	char kind[12];             /* "task", "cgroup", "irq", "softirq" */
	char name[64];             /* comm, cgroup path, IRQ name, softirq name */
	int64_t id;                /* pid, irq number, vector; -1 for a cgroup */
	char cgroup[160];          /* tasks: cpu controller cgroup, "" unknown */
	char policy[32];           /* tasks: "fifo 50", "other nice 0" */
	int64_t total_ns;          /* summed over the explained tail samples */
	int64_t samples;           /* tail samples it delayed */
	double share;              /* total_ns / the explained tail's total lateness */
};

#define EXPLAIN_MAX_PARTS 12
struct result_explain_part {
	int cat;                   /* enum explain_cat */
	char name[64];             /* task comm / IRQ name / softirq name, "" for plain categories */
	int64_t id;                /* pid / irq / vector, -1 */
	int64_t ns;
};
struct result_explain_sample {
	int thread;                /* index into threads */
	int64_t at_ns;             /* release, from the measurement window's start (as stop_at_ns) */
	int64_t lateness_ns;
	int cpu;                   /* where it ran at last, -1 unknown */
	int migrations;            /* CPU changes between release and running */
	struct result_explain_part parts[EXPLAIN_MAX_PARTS];  /* largest first; the rest summed into the last */
	int nparts;
};

struct result_explain {
	bool present;
	char source[16];           /* "tracefs", or "none" (then reason says why; --attribute instead) */
	char reason[256];
	int64_t threshold_ns;
	int64_t trace_start_ns;    /* CLOCK_MONOTONIC at the start of tracing */
	int64_t origin_ns;         /* CLOCK_MONOTONIC at the measurement window's start, where worst[].at_ns
	                            * counts from (0: a file of an earlier version, from trace_start_ns) */
	int64_t tail_samples;      /* samples at or over the threshold */
	int64_t explained;         /* of those, rebuilt from events */
	int64_t lost_samples;      /* of those, not explained because events were lost around them */
	int64_t late_ns;           /* total lateness of the explained samples */
	int64_t migrations;        /* CPU changes of the explained samples between release and running */
	int64_t cat_ns[EXC_N];     /* its split by category; sums to late_ns */
	struct result_blocker *blockers;  /* top tasks, cgroups, IRQs/softirqs, each by total_ns */
	int nblockers;
	struct result_explain_sample *worst;  /* the worst explained samples' timelines */
	int nworst;
	uint64_t events, events_lost;
	double events_per_s;
	int64_t buffer_bytes, memory_bytes;
};
const char *result_explain_category(int cat);   /* "timer", "idle_exit", ... */
/* The legend of a blocker policy "?" (explain_format_policy's unknown), or NULL when none has it. */
const char *result_explain_policy_note(const struct result_explain *x);
struct result_blocker *result_add_blocker(struct result_explain *x);
struct result;
/* A note when tasks of lower priority than the (all fifo/rr) probes are among the blockers: how
 * the kernel's preemption model (env.preemption) let them run first. false when none. */
bool result_explain_preempt_note(const struct result *r, char *buf, size_t len);
struct result_explain_sample *result_add_worst(struct result_explain *x);

/* irt watch --all (src/runq.h, docs/watch.md): how the waits of every task were counted. The
 * threads hold the histograms: "all tasks" (role watch), per CPU (role watch-cpu), the worst
 * tasks (role watch-task); the all-task count is the tasks' counts + other + dropped. */
struct result_runq {
	bool present;
	int64_t woken, preempted;   /* recorded waits by how they began */
	int64_t tasks;              /* tasks in the table at the end */
	int64_t table;              /* its size */
	int64_t other;              /* waits of tasks in the table but not among the threads */
	int64_t dropped;            /* waits of tasks not in the table (never taken, or replaced) */
	int64_t evicted;            /* tasks replaced in the table by worse ones */
	int64_t excluded;           /* waits of irt's own threads, not recorded */
	int64_t lost;               /* waits across lost events, not recorded */
	int64_t untimed;            /* waits not timed: too many tasks waited at once */
	int64_t events, events_lost;
	int64_t memory_bytes;       /* irt's copy of the events */
	char top_by[8];             /* "p99", "max", "total": how the worst tasks were chosen */
	char top_of[8];             /* "thread", "process" (runqlat -P): what a task of the table is */
};
/* The integer fields of struct result_runq by their JSON names (writer and reader). */
struct result_runq_field {
	const char *name;
	size_t offset;
};
extern const struct result_runq_field result_runq_fields[];

struct result {
	char schema[32];
	char tool_version[32];
	char command[16];          /* "probe", "run", "sim", ... */
	char *cmdline;             /* the exact command line, shell-quoted */
	int64_t start_realtime_ns, end_realtime_ns;  /* CLOCK_REALTIME */
	int64_t duration_ns;       /* CLOCK_MONOTONIC, start to end of measuring */
	bool interrupted;          /* stopped early by a signal */
	char memory_lock[16];      /* probes: how their memory was kept resident, one of
	                              result_memory_locks; "" = not recorded (sim, older files) */
	struct result_env env;
	struct kvlist settings;    /* global settings of the invocation */
	struct result_thread *threads;
	int nthreads;
	/* irt run: optional sections, written only when present */
	struct result_load *loads;
	int nloads;
	struct result_acct *acct;
	int nacct;
	struct result_context context;
	struct result_placement placement;
	/* real runs: the measurement conditions (linux/conditions.h; docs/result-schema.md),
	 * read before the run, and what changed during it ("BEFORE -> AFTER"); both empty in
	 * simulated results and in results of irt before 0.2 */
	struct kvlist conditions;
	struct kvlist conditions_changed;
	struct result_explain explain;   /* --explain, irt watch */
	struct result_runq runq;         /* irt watch --all */
};

/* The values of memory_lock, in the order of enum probe_lock (linux/probe.h); NULL-ended. */
extern const char *const result_memory_locks[];

/* Appends a zeroed load / accounting row and returns it. */
struct result_load *result_add_load(struct result *r);
/* Appends a thread initialised as result_init's (irt watch: one per watched thread that woke). */
struct result_thread *result_add_thread(struct result *r);
struct result_acct *result_add_acct(struct result *r);
struct result_cgroup_stat *result_add_cgroup_stat(struct result *r);

/* Zeroes r, then sets schema, tool_version and command and allocates nthreads threads
 * (zeroed, histograms initialised, role "probe", timer_slack_ns -1). */
int result_init(struct result *r, const char *command, int nthreads, struct err *e);
/* Frees what r owns and zeroes it; safe on a zeroed or already freed record. */
void result_free(struct result *r);
/* Did the thread skip the releases it passed (--overrun skip), so that it has a `skipped`
 * count and a tail not comparable to catching up? */
bool result_thread_skips(const struct result_thread *t);
/* --stop-above: the thread whose wake-up ended the run, or NULL when none did. */
const struct result_thread *result_stopper(const struct result *r);
/* An irt sim sweep cell's swept keys and values as the workload file wrote them ("vm.quota" =
 * "40%", where the settings hold the resolved "400ms"), from its "sweep-cell" setting; empty
 * for other results. out is overwritten; kvlist_free() it. */
void result_sweep_cell(const struct result *r, struct kvlist *out);

/* Do a and b hold the same run (one file given twice, or a copy)? The same host, command line,
 * start and end, settings, and the same samples in every thread: two runs of one machine, or of
 * two machines, never share all of them (results without start times, synthetic ones, do
 * only when their samples are equal too). */
bool result_same_run(const struct result *a, const struct result *b);

/* Summary percentiles written into the record and printed in tables. */
extern const double result_percentiles[];          /* 50, 90, 99, 99.9, 99.99 */
extern const char *const result_percentile_names[]; /* "p50", "p90", "p99", "p99.9", "p99.99" */
extern const int result_npercentiles;

/* Writes r as JSON to path atomically: PATH.tmp.PID in the same directory, fsync, rename,
 * fsync of the directory. "-" = stdout. On failure nothing is left behind and e says
 * "PATH: what (errno text)", EXIT_RUNTIME. */
int result_write(const struct result *r, const char *path, struct err *e);
/* Reads a result file ("-" = stdin) into r (r need not be initialised; on failure r is left
 * zeroed). Any syntax, schema or consistency error is an EXIT_USAGE error naming the file and
 * the JSON path of the bad field: "FILE: $.threads[2].wake.count: expected ...". Unknown keys
 * are ignored (forward compatibility); derived fields (summaries, *_utc) are not read. */
int result_read(struct result *r, const char *path, struct err *e);
/* The same from an open stream; path names it in errors. */
int result_read_stream(struct result *r, FILE *f, const char *path, struct err *e);
/* What irt's record of schema is when it is not a result ("irt noise's record"), else NULL:
 * readers of results name it, and skip it in a directory of results. */
const char *result_other_schema(const char *schema);
/* Is the JSON in f such a record (a directory's other files: a sweep's plan.json and
 * compare.json, irt knobs -o, irt noise -o)? Reads f: rewind it to read it as a result. */
bool result_stream_other(FILE *f);

/* "2026-12-02T10:00:00.123456789Z" (UTC, always 9 fraction digits) for CLOCK_REALTIME ns. */
char *result_format_utc(char *buf, size_t len, int64_t realtime_ns);

#endif

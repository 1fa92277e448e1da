/* Per-thread CPU accounting and the system context of a run window, from /proc and /sys.
 * Method, sources, resolution and limits of every number: docs/accounting.md.
 *
 * Use: snapshot the threads (acct_snap_*) and the system (acct_sys_snap) at the start and the
 * end of the window, then acct_table_build / acct_sys_delta turn two snapshots into rows and a
 * window summary, and acct_noise_eval decides whether the window was "noisy".
 * Every /proc and /sys path is prefixed with $IRT_SYSROOT when it is set (tests use a fake tree).
 * Times are int64_t ns; -1 in an int64_t counter means "not available here". */
#ifndef IRT_ACCT_H
#define IRT_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "err.h"


/* ---- one thread ---------------------------------------------------------------------- */

/* Which sources a snapshot could read (bits of acct_thread.have). */
enum {
	ACCT_HAVE_SCHEDSTAT = 1u << 0, /* run_ns, delay_ns, timeslices */
	ACCT_HAVE_STAT = 1u << 1,      /* utime, stime, cpu, policy, nice, start, state */
	ACCT_HAVE_STATUS = 1u << 2,    /* voluntary / involuntary switches */
	ACCT_HAVE_SCHED = 1u << 3,     /* migrations */
};

#define ACCT_ROLE_LEN 32

/* One reading of one thread's counters. */
struct acct_thread {
	int32_t pid, tid;
	char comm[64];             /* control characters escaped ("\x1b"): another user names their threads */
	char role[ACCT_ROLE_LEN];  /* set by the caller: "probe", "load cpu", "irt" ... */
	unsigned have;             /* ACCT_HAVE_* */
	int64_t read_begin_ns;     /* CLOCK_MONOTONIC just before / just after the files were read */
	int64_t read_end_ns;
	int64_t start_boot_ns;     /* thread start as the kernel reports it (CLOCK_BOOTTIME, USER_HZ
				    * ticks): with pid and tid, the thread's identity */
	int64_t start_ns;          /* the same on CLOCK_MONOTONIC (for window arithmetic) */
	char state;                /* R S D ... from stat; '?' unknown */
	/* schedstat (CONFIG_SCHED_INFO): exact ns, updated at ticks and context switches */
	int64_t run_ns;            /* time on a CPU */
	int64_t delay_ns;          /* time runnable on a runqueue, waiting for a CPU */
	int64_t timeslices;        /* number of times it got a CPU */
	/* stat: clock-tick (USER_HZ) resolution */
	int64_t utime_ns, stime_ns;
	int64_t cutime_ns, cstime_ns; /* reaped children of the whole process (process-wide) */
	int cpu;                   /* CPU it last ran on, -1 unknown */
	int policy;                /* SCHED_*, -1 unknown */
	int rt_priority;
	int nice;
	/* status */
	int64_t vol_switches, invol_switches;
	/* sched (CONFIG_SCHED_DEBUG) */
	int64_t migrations;
};

/* Reads the counters of thread tid of process pid. Error (EXIT_RUNTIME) when the thread does
 * not exist or neither schedstat nor stat is readable; each other missing source only clears
 * its `have` bit and leaves its fields at -1. role may be NULL. */
int acct_snap_thread(pid_t pid, pid_t tid, const char *role, struct acct_thread *out, struct err *e);

/* Opens /proc/<pid>/task/<tid>/schedstat read-only (tid 0: the calling thread, via
 * /proc/thread-self). Returns the fd or -1 (errno set). */
int acct_open_schedstat(pid_t pid, pid_t tid);
/* The run_delay (ns the thread waited runnable on a runqueue, cumulative) from an open
 * schedstat fd: one pread, no allocation, async-signal-safe. -1 on error. */
int64_t acct_run_delay(int fd);

/* --attribute: splits one wake-up's lateness (ns) into three parts that add up to it:
 * - backlog: the probe's own previous job still running after this release (prev_late: its
 *   completion − this release; ≤ 0 none), capped at the lateness: neither the scheduler's
 *   nor an IRQ's doing;
 * - runq: runqueue wait, the thread's run_delay delta across the sleep (read before sleeping,
 *   after that completion, and after waking), capped at what the backlog leaves; a negative
 *   or unknown (-1) reading gives 0;
 * - rest: what remains (timer, interrupts, the wake-up path, steal). */
void acct_split_lateness(int64_t lateness, int64_t prev_late, int64_t delay_before, int64_t delay_after,
			 int64_t *backlog, int64_t *runq, int64_t *rest);

/* ---- sets of threads ------------------------------------------------------------------ */

struct acct_snap {
	int64_t begin_ns, end_ns;  /* CLOCK_MONOTONIC: first read began, last read ended */
	struct acct_thread *t;
	int n, cap;
};

void acct_snap_init(struct acct_snap *s);
void acct_snap_free(struct acct_snap *s);
/* Each appends snapshots to s. A thread that vanishes while being listed or read is skipped
 * (it exited); a missing process is an error only for acct_snap_add_thread. */
int acct_snap_add_thread(struct acct_snap *s, pid_t pid, pid_t tid, const char *role, struct err *e);
int acct_snap_add_process(struct acct_snap *s, pid_t pid, const char *role, struct err *e);
int acct_snap_add_pids(struct acct_snap *s, const pid_t *pids, int n, const char *role, struct err *e);
/* Every process whose process group is pgrp (all its threads). */
int acct_snap_add_pgrp(struct acct_snap *s, pid_t pgrp, const char *role, struct err *e);

/* Widens s's span [begin_ns, end_ns] to cover [begin, end]: what else the caller read for
 * this edge of the window (the system's counters, the listing of a process group). */
void acct_snap_span(struct acct_snap *s, int64_t begin, int64_t end);

/* Appends a snapshot taken elsewhere, e.g. by a probe thread of itself just before it
 * returns (its /proc entry disappears when it exits, before any join). */
int acct_snap_append(struct acct_snap *s, const struct acct_thread *t, struct err *e);

/* Thread ids of process pid (from /proc/<pid>/task), ascending. *tids is malloc'ed. */
int acct_list_threads(pid_t pid, pid_t **tids, int *n, struct err *e);
/* Process ids whose process group is pgrp (scans /proc/<pid>/stat), ascending. */
int acct_list_pgrp(pid_t pgrp, pid_t **pids, int *n, struct err *e);

/* ---- rows: the delta of two snapshots ------------------------------------------------- */

enum acct_row_kind {
	ACCT_ROW_THREAD,   /* one thread */
	ACCT_ROW_REAPED,   /* children a process reaped inside the window (cutime + cstime) */
};

struct acct_row {
	enum acct_row_kind kind;
	int32_t pid, tid;
	char name[64];             /* acct_thread's comm */
	char role[ACCT_ROLE_LEN];
	bool started;        /* not in the first snapshot: counted from its start */
	bool exited;         /* not in the second snapshot: its counters died with it, so used,
			      * waited and the counts are unknown (-1) and wall is 0 */
	int64_t wall_ns;     /* the window (a started thread: from its start); 0 exited */
	int64_t used_ns;     /* on a CPU (schedstat; else utime + stime); -1 unknown (exited) */
	int64_t waited_ns;   /* runnable on a runqueue without a CPU (-1: unknown) */
	int64_t carry_ns;    /* accounted at the window's edges beyond wall and removed, see docs */
	int64_t utime_ns, stime_ns;     /* tick-sampled split of the CPU time */
	int64_t timeslices;  /* -1 unknown */
	int64_t vol_switches, invol_switches, migrations; /* -1 unknown */
	int cpu, policy, nice;          /* at the end (or start, if exited) */
	double cpu_pct;      /* used / window wall, % of one CPU */
	double run_pct;      /* used / (window wall x CPUs), % of the machine over the window */
};

struct acct_table {
	int64_t wall_ns;     /* window: second snapshot's end - first snapshot's begin (their spans
			      * hold every read of their edge) */
	int ncpus;
	struct acct_row *rows;
	int n;
	int64_t used_ns, waited_ns;     /* sums over rows (unknowns count 0) */
	double cpu_pct, run_pct;        /* sums over rows */
};

/* Builds one row per thread seen in a or b (matched by pid, tid and start time) plus one
 * ACCT_ROW_REAPED row per process whose reaped-children time grew. Guarantees, by
 * construction: wall = window for a thread seen at both edges (from its start for a started
 * one), 0 <= used, 0 <= waited, used + waited <= wall per row, and the sum of used <= window
 * x ncpus (edge excess goes to carry_ns, see docs); an exited thread's row is marked, with
 * unknown (-1) figures. ncpus <= 0: the online CPU count. */
int acct_table_build(struct acct_table *t, const struct acct_snap *a, const struct acct_snap *b,
		     int ncpus, struct err *e);
void acct_table_free(struct acct_table *t);
/* "thread  role  used  waited  cpu%  run%  switches (vol/invol)  slices  migr" */
void acct_table_print(FILE *f, const struct acct_table *t);

/* ---- system context of a window ------------------------------------------------------- */

/* One /proc/stat cpu line converted to ns (guest time is already inside user and nice). */
struct acct_cputimes {
	int cpu;   /* -1 for the aggregate "cpu" line */
	int64_t user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
};

struct acct_psi_line {
	bool present;
	double avg10, avg60, avg300;  /* % of time, kernel's running averages */
	int64_t total_ns;             /* cumulative stall time */
};

struct acct_cgroup {
	char path[256];       /* as given (without the sysroot) */
	bool present;         /* cpu.stat was readable */
	int version;          /* 1 or 2 (by the field names in cpu.stat); 0 unknown */
	int64_t nr_periods, nr_throttled;
	int64_t throttled_ns; /* v1 throttled_time (ns), v2 throttled_usec x 1000 */
	int64_t usage_ns;     /* v2 usage_usec, v1 cpuacct.usage next to it if any; -1 unknown */
};

struct acct_sys {
	int64_t at_ns;        /* CLOCK_MONOTONIC */
	struct acct_psi_line psi_some, psi_full;
	bool have_stat;
	struct acct_cputimes total;
	struct acct_cputimes *percpu;
	int npercpu;
	int64_t ctxt;         /* context switches since boot; -1 unknown */
	int64_t procs_running;
	bool have_loadavg;
	double load1, load5, load15;
	int64_t sched_runnable, sched_threads; /* "2/88" in /proc/loadavg */
	struct acct_cgroup *cg;
	int ncg;
};

/* Reads PSI, /proc/stat, /proc/loadavg and cpu.stat of each cgroup directory (absolute paths,
 * e.g. "/sys/fs/cgroup/cpu/irt/probes"). Missing sources are recorded as absent, not errors. */
int acct_sys_snap(struct acct_sys *s, const char *const *cgroups, int ncg, struct err *e);
void acct_sys_free(struct acct_sys *s);

struct acct_cgroup_delta {
	char path[256];
	bool present;
	int64_t nr_periods, nr_throttled, throttled_ns;
	int64_t usage_ns;     /* -1 unknown */
};

struct acct_sys_delta {
	int64_t wall_ns;
	/* /proc/stat deltas over the window, all CPUs together */
	bool have_stat;
	struct acct_cputimes cpu;   /* deltas, ns */
	int64_t cpu_total_ns;       /* sum of all states (without guest), i.e. ~ wall x CPUs */
	int64_t busy_ns;            /* user + nice + system + irq + softirq */
	double steal_pct;           /* steal / cpu_total_ns */
	struct acct_cputimes *percpu;
	int npercpu;
	int64_t ctxt;               /* -1 unknown */
	double ctxt_per_s;
	/* PSI: stall share of the window from the totals, and the kernel's 10 s average at end */
	bool have_psi_some, have_psi_full;
	int64_t psi_some_ns, psi_full_ns;
	double psi_some_pct, psi_full_pct;
	double psi_some_avg10, psi_full_avg10;
	/* load average at the end (it is a 1/5/15 min decaying average, not a window figure) */
	bool have_loadavg;
	double load1, load5, load15;
	struct acct_cgroup_delta *cg;
	int ncg;
};

/* b must be later than a; cgroups are matched by path. */
int acct_sys_delta(struct acct_sys_delta *d, const struct acct_sys *a, const struct acct_sys *b,
		   struct err *e);
void acct_sys_delta_free(struct acct_sys_delta *d);
void acct_sys_delta_print(FILE *f, const struct acct_sys_delta *d);

/* ---- noise ----------------------------------------------------------------------------- */

/* Thresholds (percent); reasons in docs/accounting.md. */
#define ACCT_NOISY_STEAL_PCT 2.0    /* steal time of all CPU time in the window */
#define ACCT_NOISY_PSI_PCT 10.0     /* PSI cpu some share of the window, when no irt load runs */
#define ACCT_NOISY_FOREIGN_PCT 10.0 /* busy CPU time not used by accounted threads, of capacity */

enum {
	ACCT_NOISE_STEAL = 1u << 0,
	ACCT_NOISE_PSI = 1u << 1,
	ACCT_NOISE_FOREIGN = 1u << 2,
};

struct acct_noise {
	unsigned flags;       /* ACCT_NOISE_*; 0 = not noisy */
	double steal_pct;     /* the figures compared, -1 when unknown */
	double psi_some_pct;
	double foreign_pct;
	char why[256];        /* "steal 3.1% > 2%; ..." or "" */
};

/* loads_running: irt ran background loads in the window (PSI is then expected, not noise).
 * accounted_used_ns: CPU used by every thread irt accounted (its table's used_ns, including irt
 * itself), -1 if unknown (the foreign check is then skipped). */
void acct_noise_eval(struct acct_noise *n, const struct acct_sys_delta *d, bool loads_running,
		     int64_t accounted_used_ns);

/* ---- cgroups --------------------------------------------------------------------------- */

/* The directory of the cgroup that holds pid's CPU controller (v1 hierarchy with "cpu", else
 * the v2 one), found with /proc/<pid>/cgroup and /proc/self/mountinfo. The returned path has
 * no sysroot prefix. *version is set to 1 or 2. */
int acct_cgroup_of(pid_t pid, char *dir, size_t len, int *version, struct err *e);

#endif

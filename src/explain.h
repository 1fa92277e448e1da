/* Why was it late? Each tail wake-up rebuilt from scheduler events (sched_waking, sched_wakeup,
 * sched_switch, sched_migrate_task, irq and softirq entry/exit) and split into what held it:
 * the timer, idle exit, each other task that ran on its CPU, IRQs, softirqs, migration,
 * throttling, the thread itself; the rest is shown as unexplained, never hidden.
 *
 * This room is pure: linux/trace.c collects the events into a struct trace_data, the probe
 * (or irt watch) supplies the samples, explain_analyse() fills the result's explain section.
 * Unit tests feed it synthetic events. docs/explain.md describes the method. */
#ifndef IRT_EXPLAIN_H
#define IRT_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

enum tev_type {
	TEV_SWITCH,        /* a = prev pid, b = next pid, prio = next prio, flag = prev still runnable */
	TEV_WAKING,        /* a = pid (recorded on the waking CPU) */
	TEV_WAKEUP,        /* a = pid, b = target CPU */
	TEV_MIGRATE,       /* a = pid, b = dest CPU, prio = orig CPU */
	TEV_IRQ_ENTRY,     /* a = irq */
	TEV_IRQ_EXIT,      /* a = irq */
	TEV_SOFTIRQ_ENTRY, /* a = vector */
	TEV_SOFTIRQ_EXIT,  /* a = vector */
	TEV_VECTOR_ENTRY,  /* a = x86 vector index (trace_vector_name) - irt noise only */
	TEV_VECTOR_EXIT,   /* a = the same */
	TEV_NMI,           /* recorded at the end of an NMI handler: b = its duration, ns - irt noise only */
};

/* One event, compact: 24 bytes (ctx fills what was padding). ts on CLOCK_MONOTONIC (the instance's "mono" trace clock). */
struct tev {
	int64_t ts;
	int32_t a, b;
	int16_t prio;
	uint8_t type, flag;
	int32_t ctx;               /* the task it was recorded in (common_pid: 0 idle), -1 unknown */
};

/* What is known of a task that ran (from sched_switch, /proc at the end of tracing). */
struct ttask {
	int32_t pid;
	int32_t tgid;              /* its process; watch --all only, 0 = exited before irt looked */
	int16_t prio;              /* kernel prio at its last switch-in: <100 real-time, 100..139 nice+120 */
	char comm[64];             /* control characters escaped ("\x1b"): err_escape */
	char policy[16];           /* "other", "fifo", ... "" = exited before irt looked */
	char cgroup[160];          /* cpu controller cgroup, "" = unknown */
};

struct tcpu {
	struct tev *ev;            /* in time order */
	size_t n, cap;
	int64_t *loss;             /* pairs [from, to): events were lost between these times */
	size_t nloss, loss_cap;
	int32_t cur;               /* the task the events say runs now, when cur_known */
	bool cur_known;
	int64_t cur_ts;            /* the last event seen in it */
	size_t *inferred;          /* indexes of switches put in for ones the kernel did not record */
	size_t ninferred, inferred_cap;
};

struct trace_data {
	int ncpu;
	struct tcpu *cpu;
	struct ttask *tasks;       /* sorted by pid after trace_stop (explain_task finds them) */
	size_t ntasks, tasks_cap;
	char (*irq_names)[32];     /* by irq number, "" unknown */
	int nirq;
	int64_t start_ns, end_ns;  /* tracing window */
	uint64_t events;           /* events read */
	uint64_t lost;             /* overruns + drops the kernel counted, + events over irt's memory cap */
	int64_t buffer_bytes;      /* kernel ring buffers (all CPUs) */
	int64_t memory_bytes;      /* irt's own copy of the events */
	char missing[160];         /* trace_opts.vectors: the events this kernel lacks, "" none */
};

/* Adds an event to CPU cpu's list (growing it), and loss windows. trace_data_seen notes an
 * event that is not kept, in the task ctx: both put in a switch the kernel did not record. */
void trace_data_add(struct trace_data *d, int cpu, const struct tev *ev);
void trace_data_seen(struct trace_data *d, int cpu, int64_t ts, int32_t ctx);
/* After the last event: times the inferred switches by the wake-ups from other CPUs (kept as
 * TEV_WAKEUP of any pid); returns how many switches were inferred. */
size_t trace_data_finish(struct trace_data *d);
void trace_data_add_loss(struct trace_data *d, int cpu, int64_t from, int64_t to);
/* pid's entry, created zeroed (with pid set) when new; keeps the table unsorted until
 * trace_data_sort_tasks. */
struct ttask *trace_data_task(struct trace_data *d, int32_t pid);
void trace_data_sort_tasks(struct trace_data *d);
const struct ttask *explain_task(const struct trace_data *d, int32_t pid);
void trace_data_set_irq_name(struct trace_data *d, int irq, const char *name);
void trace_data_free(struct trace_data *d);

/* One wake-up to explain: thread index in the result, its tid, the intended release (or the
 * sched_waking for irt watch) and when it was measured running, both CLOCK_MONOTONIC ns. */
struct explain_sample {
	int thread;
	int32_t tid;
	int64_t release, woke;
};

/* Idle on a CPU while the thread waited there: up to this long it counts as the CPU coming
 * out of idle, longer as throttling (the thread's group had no runtime left, so its CPU idled). */
#define EXPLAIN_IDLE_EXIT_MAX_NS 200000

/* Explains every sample whose lateness (woke - release) is at least threshold (<= 0: the p99
 * of the samples' lateness), fills r->explain (result.h): categories, top blockers by task,
 * cgroup and IRQ, the worst samples' timelines, event and loss counts. */
void explain_analyse(const struct trace_data *d, const struct explain_sample *s, size_t n, int64_t threshold,
                     int64_t origin, struct result *r);

/* irt watch: a thread's wake-ups from its own events: sched_waking, then the switch-in that
 * follows (running), then the switch-out after which it sleeps again (done; -1 when the trace
 * ends first). Returns how many, in a new array. */
struct wakeup {
	int64_t waking, running, done;
};
size_t explain_wakeups(const struct trace_data *d, int32_t tid, struct wakeup **out);

/* Were events lost on any CPU between from and to (d's loss windows)? */
bool explain_lost_around(const struct trace_data *d, int64_t from, int64_t to);

/* Name of a softirq vector ("TIMER", "NET_RX", ...). */
const char *explain_softirq_name(int vec);
/* The category names used in the record ("timer", "idle_exit", "task", ...). */
const char *explain_category_name(int cat);
/* "fifo 50" / "other nice 0" from a policy name and kernel prio. */
void explain_format_policy(char *buf, size_t len, const char *policy, int prio);

#endif

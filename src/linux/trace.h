/* Scheduler events through tracefs, in a tracing instance of irt's own (instances/irt-PID):
 * sched_switch, sched_waking, sched_wakeup, sched_migrate_task, irq_handler_entry/exit,
 * softirq_entry/exit (watch --all: sched_switch, sched_waking, sched_wakeup, sched_wakeup_new),
 * on the "mono" trace clock (CLOCK_MONOTONIC, as the probe's clock).
 *
 * Journaled like knobs: before mounting tracefs (when it is not mounted) or creating the
 * instance, journal.c records a "tracefs" entry; its undo removes the instance and, when no
 * live irt uses the mount any more and an irt made it, unmounts. So a SIGKILLed irt leaves
 * its instance and mount to the next irt command or `irt restore`.
 *
 * The mount is shared between concurrent irts (each with its own instance): a mount irt made
 * carries a marker instance, instances/irt-mount; whoever removes the last live irt-PID
 * instance removes the marker and unmounts. flock on /sys/kernel serialises this.
 *
 * Events are read by a thread (comm "irt:trace") from each CPU's trace_pipe_raw, parsed with
 * libtraceevent (kbuffer + event formats), and kept compactly in a struct trace_data. */
#ifndef IRT_LINUX_TRACE_H
#define IRT_LINUX_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "explain.h"

struct trace;

/* Which tasks' own wake-up events (waking, wakeup, migrate) to keep; sched_switch, IRQ and
 * softirq events are kept for all. tids are added with trace_watch_tid (any thread, any time);
 * comms match the event's comm (irt watch --comm). */
struct trace_opts {
	const char *who;          /* names the notes: "--explain" when NULL, "watch" */
	int64_t buffer_kb;        /* per-CPU ring buffer */
	int64_t memory_cap;       /* bytes of events irt keeps; beyond, events count as lost */
	const char *const *comms; /* NULL-terminated, or NULL */
	bool all;                 /* irt watch --all: every task's sched_waking kept, sched_wakeup_new
	                           * as a TEV_WAKING; no IRQ, softirq or migration events (what runq.c
	                           * needs, not --explain) */
	/* irt noise: also the x86 vectors (irq_vectors:*_entry/_exit: the local timer, IPIs,
	 * irq_work) and nmi:nmi_handler, where the kernel has them (trace_data.missing names the
	 * ones it lacks) */
	bool vectors;
};

/* Mounts tracefs if needed and creates the instance (both journaled), enables the events
 * and starts the reader. Returns -1 with e set when tracing is unavailable here (not root,
 * no tracefs, an event missing): callers fall back to --attribute and say so. */
int trace_start(struct trace **t, const struct trace_opts *o, struct err *e);
/* trace_start in two steps: trace_open does all of it but turn tracing on and start the
 * reader thread, which trace_run does. In between irt has no thread of the trace's, so it may
 * fork loads (load_start). After trace_open, trace_stop ends it, whether it ran or not. */
int trace_open(struct trace **t, const struct trace_opts *o, struct err *e);
int trace_run(struct trace *t, struct err *e);
void trace_watch_tid(struct trace *t, int32_t tid);
/* True when tid was watched (by trace_watch_tid or a matching comm). */
bool trace_watched(const struct trace *t, int32_t tid);
/* Every tid watched so far (irt watch --comm finds them in the events). */
int trace_watched_tids(const struct trace *t, int32_t *out, int max);
/* Stops tracing, drains the buffers, counts lost events, resolves the policy and cgroup of
 * the tasks seen (while they still live), removes the instance (and the mount, if last) and
 * moves the events to out. t is freed. */
int trace_stop(struct trace *t, struct trace_data *out, struct err *e);

/* journal.c's undo of a "tracefs" entry (async-signal-safe: system calls only): removes the
 * instance directory inst (a full path) and, when it is the last irt instance of a mount irt
 * made, the marker and the mount. Returns 0 or an errno. */
int trace_undo(const char *inst);
/* The name of a TEV_VECTOR_* event's vector ("local_timer"), "?" when out of range. */
const char *trace_vector_name(int idx);
/* The name of a sched_getscheduler() value ("other", "fifo", ...; SCHED_RESET_ON_FORK ignored),
 * NULL when unknown or negative. */
const char *trace_policy_name(int policy);

/* --explain around a probe session (probe, run, sweep, check):
 *   explain_begin    before the probes start: starts tracing; when it cannot (not root, no
 *                    tracefs), says so on stderr, sets *attribute (the schedstat split
 *                    instead) and records the reason in r->explain;
 *   explain_collect  after probe_done, before probe_finish and before loads stop: the samples,
 *                    the events, the tasks' policies and cgroups; removes the instance;
 *   explain_finish   analyses into r->explain;   explain_abort  on failure paths. */
struct explain_cfg;
struct probe_session;
struct explain_run {
	const struct explain_cfg *cfg;
	struct trace *t;
	bool active;
	struct trace_data data;
	struct explain_sample *samples;
	size_t nsamples;
	int64_t origin;            /* the measurement window's start (probe_window_start) */
};
/* irt's copy of the events at most (24 bytes each); beyond it they count as lost */
#define EXPLAIN_MEMORY_CAP ((int64_t)256 << 20)
int explain_begin(struct explain_run *x, const struct explain_cfg *c, bool *attribute, struct result *r);
void explain_collect(struct explain_run *x, const struct probe_session *s, struct err *run_err);
void explain_finish(struct explain_run *x, struct result *r);
void explain_abort(struct explain_run *x);

/* Where tracefs is (or would be) mounted. */
#define TRACE_MOUNT "/sys/kernel/tracing"

#endif

/* The periodic probe: threads that wake at absolute deadlines on CLOCK_MONOTONIC, do their
 * per-iteration work (memory touch, calibrated CPU burn) and record wake-up latency and
 * response time from the intended release, open loop. */
#ifndef IRT_LINUX_PROBE_H
#define IRT_LINUX_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "result.h"

struct probe_session;
struct trace;

struct probe_opts {
	int64_t warmup_ns;    /* releases before start + warmup are not recorded */
	bool mlock;           /* mlockall + prefault (cleared by --no-mlock of any definition) */
	uint64_t seed;        /* random touch order */
	bool attribute;       /* split each lateness into runqueue wait and the rest */
	struct trace *trace;  /* --explain: threads register their tids with it and log each sample */
};

/* --explain: samples logged per thread at most (24 bytes each); later ones go unexplained. */
#define PROBE_LOG_MAX ((size_t)1 << 22)

struct acct_snap;

/* Calibrated CPU work: ns per 1000 iterations of the burn loop (measured once per process). */
int64_t probe_calibrate_burn(void);
/* Executes `loops` iterations of the burn loop. */
void probe_burn_loops(uint64_t loops);

/* Refuses working sets (--touch x --threads, summed) that cannot be held: more than 75 % of
 * MemAvailable (EXIT_USAGE: there is no swap to fall back on, the OOM killer would end the
 * run), or, with mlock and without CAP_IPC_LOCK, more than RLIMIT_MEMLOCK (EXIT_RUNTIME, with
 * what to do). Called before anything starts. */
int probe_check_memory(const struct probe_cfg *cfgs, int n, bool mlock, struct err *e);

/* Creates and sets up every thread of every definition (policy, affinity, slack, memory);
 * any refusal is an error naming the setting and errno, and no thread starts measuring.
 * r must have been result_init'ed with probe_thread_count() threads; the session records into
 * r->threads. */
int probe_thread_count(const struct probe_cfg *cfgs, int n);
int probe_start(struct probe_session **s, const struct probe_cfg *cfgs, int n, const struct probe_opts *o,
                struct result *r, struct err *e);
/* True when every thread has finished. */
bool probe_done(const struct probe_session *s);
/* Asks every thread to stop after its current iteration (interrupting its sleep). */
void probe_stop(struct probe_session *s);
/* One-line progress for a live status display. */
void probe_status(const struct probe_session *s, char *buf, size_t len);
/* Adds each probe thread's own accounting snapshots, taken by the thread just before its
 * first release and just after its last iteration, to a (begin) and b (end). Call after
 * probe_done() and before probe_finish(). */
int probe_acct(const struct probe_session *s, struct acct_snap *a, struct acct_snap *b, struct err *e);
/* --explain: every logged sample of every thread (release, wake-up), in a new array. Call
 * after probe_done() and before probe_finish(). */
struct explain_sample;
size_t probe_samples(const struct probe_session *s, struct explain_sample **out);
/* Joins the threads and completes the record (times, counts, slack). Returns -1 when a thread
 * failed at run time (e.g. the real-time guard), with the reason in e; what was measured
 * stays in r. */
int probe_finish(struct probe_session *s, struct result *r, struct err *e);

#endif

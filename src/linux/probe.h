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

/* How a probe session keeps its memory resident, so page faults are not measured. Recorded in
 * results as memory_lock (result_memory_locks[], docs/result-schema.md) under these names: */
enum probe_lock {
	PROBE_LOCK_ALL,          /* "all": mlockall(MCL_CURRENT|MCL_FUTURE), with CAP_IPC_LOCK or
	                            an unlimited RLIMIT_MEMLOCK (root) */
	PROBE_LOCK_WORKING_SET,  /* "working-set": within RLIMIT_MEMLOCK, each probe thread's stack,
	                            working set and histograms; released when the session ends */
	PROBE_LOCK_NONE,         /* "none": --no-mlock */
	PROBE_LOCK_NONE_RLIMIT,  /* "none-rlimit": RLIMIT_MEMLOCK is below what the probe threads
	                            need locked; measured unlocked, and irt says so once */
};

struct probe_opts {
	int64_t warmup_ns;    /* releases before start + warmup are not recorded */
	bool mlock;           /* lock memory (cleared by --no-mlock of any definition) */
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
 * run). Called before anything starts. (RLIMIT_MEMLOCK refuses nothing: probe_start locks
 * what fits, or measures unlocked and says so; enum probe_lock.) */
int probe_check_memory(const struct probe_cfg *cfgs, int n, struct err *e);

/* The locking probe_start would choose for these definitions, and with working-set locking
 * the bytes it would lock (*need) and RLIMIT_MEMLOCK (*limit); both -1 otherwise. */
enum probe_lock probe_lock_choose(const struct probe_cfg *cfgs, int n, const struct probe_opts *o, int64_t *need,
                                  int64_t *limit);

/* Creates and sets up every thread of every definition (policy, affinity, slack, memory);
 * any refusal is an error naming the setting and errno, and no thread starts measuring.
 * r must have been result_init'ed with probe_thread_count() threads; the session records into
 * r->threads and sets r->memory_lock. Memory is locked as probe_lock_choose says; what the
 * session locked is unlocked by probe_finish (or a failed probe_start), so one process can
 * run any number of sessions one after another within RLIMIT_MEMLOCK. */
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
/* Where the measurement window starts (CLOCK_MONOTONIC ns: the common start plus the warm-up);
 * the origin of the times a result names (--stop-above's, --explain's worst wake-ups). */
int64_t probe_window_start(const struct probe_session *s);
/* --explain: every logged sample of every thread (release, wake-up), in a new array. Call
 * after probe_done() and before probe_finish(). */
struct explain_sample;
size_t probe_samples(const struct probe_session *s, struct explain_sample **out);
/* Joins the threads and completes the record (times, counts, slack). Returns -1 when a thread
 * failed at run time (e.g. the real-time guard), with the reason in e; what was measured
 * stays in r. */
int probe_finish(struct probe_session *s, struct result *r, struct err *e);

#endif

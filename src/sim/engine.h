/* The simulator's engine: virtual time in ns, an indexed binary heap of events, threads that
 * are blocked, ready or running, CPUs that each run their own policy instance over the threads
 * pinned to them. Deterministic: the same specs and seed give the same schedule, bit for bit.
 *
 * At one instant t the engine does, per CPU: (a) the running thread's burst ends (its next
 * job starts at once if already released, else it blocks: unready + update), (b) wake-ups in
 * thread order: ready_check, and update at once if it outdates the head, (c) the granted
 * quantum expires: update. Every update is charged the time since the previous one. */
#ifndef IRT_SIM_ENGINE_H
#define IRT_SIM_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "result.h"

#define SIM_JOBS 100   /* thread type of schedsim imports (not a user choice) */

/* One schedsim job row (jschlatow/schedsim TSV): released at `at`, or every `period`, or when
 * event `event_in` fires; needs `runtime`; restarts `restart` after completing; raises
 * `event_out` when it completes. */
struct sim_job {
	int64_t at;            /* -1: not a timed row */
	int64_t period;        /* 0: not periodic */
	int event_in;          /* -1: none */
	int64_t runtime;
	int64_t restart;       /* 0: none */
	int event_out;         /* -1: none */
	int seq;               /* its place among all rows of the file */
	int line;              /* its line in the file (for messages) */
	int64_t weight, prio;  /* its own weight and priority (schedsim's policies read them per job) */
};

struct sim_thread_spec {
	char name[64];
	struct sim_thread_cfg cfg;   /* validated, quota_ns resolved, deadline defaulted */
	struct sim_job *jobs;        /* type SIM_JOBS */
	int njobs;
};

/* Called after every decision: CPU, time, the new head's index (-1 idle), its quantum. */
typedef void (*sim_trace_fn)(void *ctx, int cpu, int64_t t, int head, int64_t quantum);

struct sim_totals {
	uint64_t decisions;     /* policy updates, all CPUs */
	uint64_t events;        /* events taken from the queue */
	int64_t simulated_ns;
	int64_t end_ns;         /* where the last run ended (the duration, or earlier by the end rule
	                           or a stop) */
	bool interrupted;       /* sim_stop ended a run before its end */
};

/* Set (irt sim, on a stop signal) to end every running simulation at the simulated instant it
 * has reached: its result is then that of a run that ended there. The loops look at it rarely,
 * when simulated time passes a boundary they compare with anyway (the end's): sim_watch. */
extern atomic_bool sim_stop;

/* Where the next look at sim_stop goes: a step of simulated time, adapted at each look so that
 * about 2^20 events or decisions pass between two (some ms of a loop), however dense the
 * schedule; at most `max` (the model's units: 1 s) in a sparse one. */
struct sim_watch {
	int64_t step, max;
	uint64_t events;        /* at the last look */
};
/* At a look at time now with `events` so far: the time of the next (saturated). */
int64_t sim_watch_next(struct sim_watch *w, int64_t now, uint64_t events);

/* Runs the simulation of cfg->duration and fills out[i] (nthreads entries, zeroed by the
 * caller, histograms initialised) for threads[i]. Returns 0, or -1 with e set for an
 * impossible configuration (policy admission) — the caller validated everything else. */
int engine_run(const struct sim_cfg *cfg, const struct sim_thread_spec *threads, int nthreads,
               struct result_thread *out, struct sim_totals *tot, sim_trace_fn trace, void *trace_ctx,
               struct err *e);

struct policy_ops;
/* The same with a policy of the caller's (cfg->policy is not read): bench/hwquota-vs-genode runs
 * Genode's own scheduler, and a copy of hwquota's ops, through the generic loop with it. Only
 * &policy_hwquota itself gets hwquota's own loop. */
int engine_run_ops(const struct policy_ops *ops, const struct sim_cfg *cfg, const struct sim_thread_spec *threads,
                   int nthreads, struct result_thread *out, struct sim_totals *tot, sim_trace_fn trace,
                   void *trace_ctx, struct err *e);

/* The seedable generator every random choice of the simulator uses (splitmix64). */
static inline uint64_t sim_rand(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}
/* The generator state of thread i: each thread draws from its own stream, so a thread's
 * random choices do not depend on what other threads do. */
static inline uint64_t sim_thread_rng(int64_t seed, int i)
{
	uint64_t s = (uint64_t)seed * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)(i + 1) * UINT64_C(0xd1b54a32d192ed03);
	sim_rand(&s);
	return s;
}
/* Uniform in [0, n) without modulo bias worth mentioning for n << 2^64. */
static inline int64_t sim_rand_below(uint64_t *s, int64_t n)
{
	return n <= 0 ? 0 : (int64_t)(sim_rand(s) % (uint64_t)n);
}

#endif

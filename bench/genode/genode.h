/* Genode base-hw's own CPU scheduler of mid-2015 (Kernel::Cpu_scheduler, compiled from the
 * checkout in $GENODE by glue.cc) behind a C interface, for bench/hwquota-vs-genode. Times are
 * Genode's `unsigned` ticks; the bench passes nanoseconds, as irt's hwquota counts them. */
#ifndef IRT_BENCH_GENODE_H
#define IRT_BENCH_GENODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_sched;
struct gs_share;

/* Genode's priority bands (kernel/configuration.h: a compile-time constant, 4 in 2015) */
int gs_priorities(void);
const char *gs_compiler(void);   /* g++'s __VERSION__ */

struct gs_sched *gs_new(unsigned super_period, unsigned fill);
void gs_free(struct gs_sched *g);   /* and every share created on it */
/* insert(): a share of band prio claiming quota; owner is what gs_head returns for it */
struct gs_share *gs_create(struct gs_sched *g, int prio, unsigned quota, void *owner);
void gs_destroy(struct gs_sched *g, struct gs_share *s);
void gs_ready(struct gs_sched *g, struct gs_share *s);
void gs_unready(struct gs_sched *g, struct gs_share *s);
bool gs_ready_check(struct gs_sched *g, struct gs_share *s);
void gs_yield(struct gs_sched *g);
void gs_quota(struct gs_sched *g, struct gs_share *s, unsigned quota);
void gs_update(struct gs_sched *g, unsigned consumed);
void *gs_head(const struct gs_sched *g);          /* its owner; NULL: idle */
unsigned gs_head_quota(const struct gs_sched *g); /* min(head's quota, residual) */
unsigned gs_time(const struct gs_sched *g);       /* super period - residual */
/* update, then head and head_quota: one call per decision, like hwquota's decide */
void *gs_decide(struct gs_sched *g, unsigned consumed, unsigned *quantum);

/* ---- replay: the scheduler calls an engine run made, without the engine ---- */

enum gs_op { GS_CREATE, GS_DESTROY, GS_READY, GS_UNREADY, GS_READY_CHECK, GS_YIELD, GS_QUOTA, GS_UPDATE };

struct gs_rec {
	uint8_t op;        /* enum gs_op */
	uint16_t thread;   /* its index (create, destroy, ready, unready, ready_check, quota) */
	uint32_t arg;      /* update: consumed; quota: the new quota; ready_check: the answer */
};

/* A decision's mark in the replays' running hash: both replays compute it the same way from
 * the head's thread index (-1: idle) and the quantum, so equal hashes mean equal schedules. */
static inline uint64_t gs_hash(uint64_t h, int head, uint64_t quantum)
{
	return (h ^ ((uint64_t)(uint32_t)(head + 1) << 32 | quantum)) * UINT64_C(0x100000001b3);
}

/* Replays log[0..n) against a new Cpu_scheduler (threads[i]: band and quota of thread i) in
 * one loop of direct calls; returns the hash over every update's head and quantum. */
uint64_t gs_replay(const struct gs_rec *log, size_t n, const int *prio, const unsigned *quota, int nthreads,
                   unsigned super_period, unsigned fill);

#ifdef __cplusplus
}
#endif

#endif

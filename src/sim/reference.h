/* A deliberately naive reference simulator, for property tests and the benchmark: time
 * advances tick by tick, every thread and CPU is looked at on every tick, and the policies
 * hwquota and rr are re-implemented with plain arrays straight from their specification
 * (bvt and fair too, for the property tests of their ops).
 * On workloads whose times are multiples of the tick it must produce exactly the schedule and
 * the metrics of the event engine (engine.c) with the real policies. It supports the thread
 * types periodic, cpu-bound, io, oneshot and timer, fixed or uniform work and blocking. */
#ifndef IRT_SIM_REFERENCE_H
#define IRT_SIM_REFERENCE_H

#include "sim/engine.h"
#include "sim/policy.h"

extern const struct policy_ops ref_policy_hwquota, ref_policy_rr, ref_policy_bvt, ref_policy_fair;

/* ops NULL: the real policy of cfg->policy. Fails (EXIT_USAGE) for unsupported thread types
 * or times that are not multiples of tick. */
int ref_run(const struct sim_cfg *cfg, const struct sim_thread_spec *threads, int n, int64_t tick,
            const struct policy_ops *ops, struct result_thread *out, struct sim_totals *tot, sim_trace_fn trace,
            void *trace_ctx, struct err *e);

#endif

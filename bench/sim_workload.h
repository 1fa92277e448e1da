/* bench/sim's workload (8 periodic threads, 2 cpu-bound, one CPU, 60 s simulated, super period
 * 100 ms, fill 1 ms), shared by bench/sim and bench/hwquota-vs-genode so both run the same one. */
#ifndef IRT_BENCH_SIM_WORKLOAD_H
#define IRT_BENCH_SIM_WORKLOAD_H

#include "sim/engine.h"
#include "util.h"

#define SIM_BENCH_THREADS 10

/* Fills sim (for policy, an index into sim_policies[]) and t[0..SIM_BENCH_THREADS); returns
 * the number of threads. */
int sim_bench_workload(struct sim_cfg *sim, struct sim_thread_spec *t, int policy);

/* CPU time of this thread, in seconds: on a machine shared with other work, "per second on one
 * core" means per second of CPU this thread got, not of wall clock. */
static inline double bench_cpu_s(void)
{
	return (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
}

#endif

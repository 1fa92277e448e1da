/* irt noise's spinners: one thread per CPU, pinned, reading CLOCK_MONOTONIC in a tight loop for
 * `runtime` of every `period` and sleeping the rest (never spinning without bound, whatever its
 * policy); every gap between two reads longer than `threshold` is recorded (noise.h). */
#ifndef IRT_LINUX_NOISE_SPIN_H
#define IRT_LINUX_NOISE_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "noise.h"

struct noise_spin_cfg {
	int64_t runtime, period, duration, threshold;   /* ns; runtime < period */
	int policy;                /* enum probe_policy: POL_OTHER, POL_FIFO or POL_RR */
	int64_t prio;              /* fifo/rr priority */
	bool keep_gaps;            /* keep each gap's times (for attribution) */
	bool mlock;                /* keep the spinners' memory resident (not --no-mlock) */
};

/* Gaps kept per CPU at most (16 bytes each); beyond, they count as lost to attribution. */
#define NOISE_MAX_GAPS ((size_t)1 << 20)

/* Runs a spinner on cpus[i].cpu for each of the n CPUs until the duration ends or a stop signal
 * (SIGINT, SIGTERM, SIGHUP: *interrupted set) arrives; the stop signals must be blocked
 * (sig_block_stop). Fills runtime, noise, events, gaps (and the gap list) of each. -1 with e
 * set when a thread could not be set up (pinning, policy). *memory_lock: how memory was kept
 * resident, one of result_memory_locks (as the probe's: all, working-set, none, none-rlimit). */
int noise_spin_run(struct noise_cpu *cpus, int n, const struct noise_spin_cfg *c, bool *interrupted,
                   const char **memory_lock, struct err *e);

#endif

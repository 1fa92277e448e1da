/* The conditions manifest: what power management and the machine do to latency, read before
 * and after every real run (PM QoS, cpuidle, cpufreq, SMT, kernel command line, hypervisor
 * and steal, THP, IRQ affinity, kernel config hash, RT throttling), plus the PM QoS hold
 * itself. Keys and values: docs/result-schema.md ("conditions"). Every path is prefixed by
 * $IRT_SYSROOT when set (tests use fake trees). */
#ifndef IRT_LINUX_CONDITIONS_H
#define IRT_LINUX_CONDITIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "result.h"

/* PM QoS value meaning "no request": what /dev/cpu_dma_latency reads when nobody holds it. */
#define PMQOS_NONE_US INT64_C(2000000000)

/* The PM QoS latency irt holds for a run, from the SCOPE_COND options of a (--pm-qos): -1 for
 * none, else microseconds. Bad values: EXIT_USAGE naming the option or job-file line. */
int conditions_pm_qos_arg(const struct opt_args *a, int64_t *us, struct err *e);
/* Takes the hold for a run when us >= 0 and records it in r's settings ("pm-qos"); the
 * manifest then says "held at N µs". */
int conditions_hold(int64_t us, struct result *r, struct err *e);

/* Holds the CPU latency PM QoS request at us microseconds: opens /dev/cpu_dma_latency and
 * keeps the descriptor open. The open descriptor IS the request, so a crash (even kill -9)
 * releases it; nothing is journaled. A second call replaces the value. EXIT_RUNTIME errors
 * say why (needs root, no device). */
int pmqos_hold(int64_t us, struct err *e);
/* Closes the descriptor: the request ends. Harmless when nothing is held. */
void pmqos_release(void);
/* The value this process holds, or -1. */
int64_t pmqos_held(void);
/* The current system-wide target: the minimum over every holder (PMQOS_NONE_US: none). */
int pmqos_read_system(int64_t *us, struct err *e);

/* A reading of the manifest around one run. */
struct conditions {
	struct kvlist before;
	char cpus[256];              /* the probe CPUs, "" = every online CPU */
	bool have_stat;
	uint64_t steal0, total0;     /* /proc/stat jiffies at the start */
	char clocksource0[64];
};

/* Reads the manifest now (before the run); cpus names the probe CPUs ("" or NULL = all). */
void conditions_begin(struct conditions *c, const char *cpus);
/* Reads it again, writes the manifest (as read before) with the steal time over the run into
 * r->conditions and what changed meanwhile into r->conditions_changed ("BEFORE -> AFTER").
 * Frees c. */
void conditions_end(struct conditions *c, struct result *r);

/* The online CPUs' ids (CPU_DIR/online; sysconf fallback), at least one; max entries. */
int conditions_online_cpus(int *ids, int max);
/* The CPUs the probes may use, for the IRQ summary: their --cpus lists joined, "" when any
 * probe may run anywhere. */
void conditions_probe_cpus(const struct probe_cfg *cfgs, int n, char *out, size_t len);

/* Parts, exposed for tests. */
/* Every manifest entry except steal, read now, appended to kv. */
void conditions_capture(struct kvlist *kv, const char *cpus);
/* Values per CPU grouped into "cpu0-3: A; cpu4: B", or "all CPUs: A" when they agree (n > 0). */
char *conditions_group(const int *cpu, char *const *value, int n);
/* The kernel command-line words that shape latency, "(none that matter)" when none. */
void conditions_cmdline_flags(const char *cmdline, char *out, size_t len);

#endif

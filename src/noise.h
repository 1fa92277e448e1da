/* irt noise: OS and hardware noise as rtla osnoise/hwnoise measure it, in user space. A thread
 * pinned to each CPU reads CLOCK_MONOTONIC in a tight loop for --runtime of every --period; a
 * gap between two reads longer than --threshold is one noise event (linux/noise.c records them).
 *
 * This room is pure: it attributes the gaps to the kernel events inside them (IRQs, x86 vectors,
 * softirqs, NMIs, other threads; none at all: the hardware or the host) from a struct
 * trace_data, keeps the per-CPU summary and writes the irt-noise/1 JSON record. Unit tests feed
 * it synthetic events. docs/noise.md describes the method and its limits. */
#ifndef IRT_NOISE_H
#define IRT_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "explain.h"
#include "hist.h"
#include "result.h"

#define NOISE_SCHEMA "irt-noise/1"

/* One gap: the clock reads before and after it (CLOCK_MONOTONIC ns, the trace's clock too). */
struct noise_gap {
	int64_t start, end;
};

/* What a gap's time went to. A gap's time is split into these; the parts add up to the gap. */
enum noise_cause {
	NOISE_NMI,        /* nmi:nmi_handler */
	NOISE_IRQ,        /* device IRQ handlers and x86 vectors (local timer, IPIs, irq_work) */
	NOISE_SOFTIRQ,    /* softirq handlers */
	NOISE_THREAD,     /* another task ran: the spinner was switched out */
	NOISE_KERNEL,     /* kernel time around those events (entry, exit, scheduling) */
	NOISE_HW,         /* a gap with no kernel event at all: the hardware (SMI) or the host */
	NOISE_LOST,       /* events were lost around the gap: not attributed */
	NOISE_NCAUSE
};
const char *noise_cause_name(int cause);

/* Who, within a cause: an IRQ by name, a softirq by vector, a thread by comm and pid. */
struct noise_source {
	int cause;
	char name[64];
	int64_t id;                /* irq number, vector, pid; -1 */
	int64_t ns;                /* summed time inside gaps */
	uint64_t gaps;             /* gaps it took part in */
};

struct noise_causes {
	int64_t ns[NOISE_NCAUSE];
	uint64_t gaps[NOISE_NCAUSE];   /* gaps in which the cause took some time */
	struct noise_source *src;
	size_t nsrc, src_cap;
};

/* One CPU's measurement. */
struct noise_cpu {
	int cpu;
	int32_t tid;               /* the spinner */
	int64_t runtime_ns;        /* time spent spinning (sum of the duty-cycle windows) */
	uint64_t windows;          /* duty-cycle windows spun (at most one per period) */
	int64_t excluded_ns;       /* of the runtime, irt's own bookkeeping (growing the gap list) */
	int64_t noise_ns;          /* sum of the gaps above the threshold */
	uint64_t events;           /* gaps above the threshold */
	struct hist gaps;          /* their lengths */
	int64_t steal_ns;          /* /proc/stat steal over the run, -1 unknown */
	struct noise_gap *gap;     /* the gaps kept for attribution (--explain) */
	size_t ngap, gap_cap;
	uint64_t gaps_dropped;     /* not kept: over the memory cap (counted as lost) */
	int64_t dropped_ns;        /* their time */
	bool attributed;
	struct noise_causes causes;
};

/* Attributes each gap of CPU cpu (spinner tid) to the events of d inside it and adds them to
 * out. Boundaries are the gap's two reads; at the first the spinner ran in user space. Time in
 * an NMI counts as NMI, else in an IRQ or vector handler as irq, else in a softirq as softirq,
 * else while another task ran as thread, else as kernel; a gap holding none of these events is
 * hardware/host as a whole, one overlapping a window of lost events is lost as a whole. */
void noise_attribute(const struct trace_data *d, int cpu, int32_t tid, const struct noise_gap *gaps, size_t n,
                     struct noise_causes *out);
void noise_causes_free(struct noise_causes *c);
/* out's sources sorted by time, largest first */
void noise_sort_sources(struct noise_causes *c);

/* The whole record. */
struct noise_result {
	char *cmdline;
	int64_t start_realtime_ns, end_realtime_ns, duration_ns;
	bool interrupted;
	struct result_env env;
	struct kvlist settings;
	struct noise_cpu *cpus;
	int ncpus;
	/* --explain */
	bool explain;
	char explain_source[16];   /* "tracefs", or "none" (then reason) */
	char explain_reason[256];
	uint64_t trace_events, trace_lost;
	char vectors_note[160];    /* events the kernel lacks (timer ticks then count as hardware/host) */
};
void noise_result_free(struct noise_result *r);
/* % of the runtime left to the spinner: 100 * (runtime - noise) / runtime (100 when no runtime) */
double noise_available_pct(const struct noise_cpu *c);
/* The most a spinner with this duty cycle (runtime of every period) spins in any interval of
 * window ns: under fifo/rr, the kernel throttles it when that reaches sched_rt_runtime_us of
 * every sched_rt_period_us. */
int64_t noise_max_spin(int64_t runtime, int64_t period, int64_t window);
/* The osnoise-like summary on stdout, then the causes when attributed. */
void noise_print(FILE *f, const struct noise_result *r);
int noise_write_json(const struct noise_result *r, const char *path, struct err *e);

#endif

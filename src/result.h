/* The result record: everything one irt invocation measured (or simulated), in one schema
 * ("irt-result/1", docs/result-schema.md). Written as JSON with jansson, atomically; read
 * back losslessly. Renderers and statistics read this struct; only producers fill it. */
#ifndef IRT_RESULT_H
#define IRT_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "hist.h"

#define RESULT_SCHEMA "irt-result/1"

/* An ordered list of name = value strings; values are in the form the CLI accepts. */
struct kv {
	char *key, *value;
};
struct kvlist {
	struct kv *v;
	int n, cap;
};
void kvlist_set(struct kvlist *l, const char *key, const char *value);  /* replaces or appends */
const char *kvlist_get(const struct kvlist *l, const char *key);
void kvlist_free(struct kvlist *l);
void kvlist_copy(struct kvlist *dst, const struct kvlist *src);

struct result_env {
	char hostname[128];
	char kernel[128];          /* uname -r */
	char kernel_version[256];  /* uname -v */
	char machine[32];          /* uname -m */
	char cpu_model[128];
	int online_cpus;
	char clocksource[64];
	char preemption[64];       /* "full", "voluntary", "dynamic (full)", ... ; "" = unreadable */
	int hz;                    /* 0 = unreadable */
	bool root;
};

/* One probe thread (real or simulated). */
struct result_thread {
	char name[64];
	char role[16];             /* "probe" (later: "load", "sim") */
	struct kvlist settings;    /* its effective settings, e.g. period=200ms policy=fifo */
	int64_t tid;
	struct hist wake;          /* wake-up latency: actual wake - intended release */
	struct hist resp;          /* response time: work done - intended release */
	uint64_t samples;
	uint64_t overruns;         /* periods that had already passed at wake-up */
	uint64_t deadlines_met, deadlines_missed;
	int64_t timer_slack_ns;    /* as read back after all policy changes; -1 = unknown */
	int64_t burn_ns_per_kloop; /* CPU burn calibration: ns per 1000 loop iterations, 0 = none */

	/* ---- simulator (irt sim, role "sim"); all zero for real probes ---- */
	int64_t sim_cpu;             /* simulated CPU it was pinned to */
	int64_t sim_share_ppm;       /* CPU share: spent / simulated duration, parts per million */
	int64_t sim_used_ns;         /* time the thread itself executed */
	int64_t sim_spent_ns;        /* time charged to its share (used + context-switch cost) */
	uint64_t sim_switches;       /* times it was switched in (context switches to it) */
	int64_t sim_completion_ns;   /* oneshot: start to completion ("boot time"); -1 not completed
	                                within the duration; 0 not a oneshot thread */
	uint64_t sim_windows;        /* timer: full windows (super periods) simulated */
	uint64_t sim_windows_ok;     /* timer: windows with >= the activations it needs */
	int64_t sim_activations_min; /* timer: fewest activations in a full window; -1 not a timer */
};

struct result {
	char schema[32];
	char tool_version[32];
	char command[16];          /* "probe", "run", "sim", ... */
	char *cmdline;             /* the exact command line, shell-quoted */
	int64_t start_realtime_ns, end_realtime_ns;  /* CLOCK_REALTIME */
	int64_t duration_ns;       /* CLOCK_MONOTONIC, start to end of measuring */
	bool interrupted;          /* stopped early by a signal */
	struct result_env env;
	struct kvlist settings;    /* global settings of the invocation */
	struct result_thread *threads;
	int nthreads;
};

/* Allocates the threads array (zeroed, histograms initialised). */
int result_init(struct result *r, const char *command, int nthreads, struct err *e);
void result_free(struct result *r);

/* Summary percentiles written into the record and printed in tables. */
extern const double result_percentiles[];  /* 50, 90, 99, 99.9, 99.99 */
extern const int result_npercentiles;

/* Writes r as JSON to path atomically (path.tmp.PID then rename). "-" = stdout. */
int result_write(const struct result *r, const char *path, struct err *e);
/* Reads a result file; any schema or consistency error is an EXIT_USAGE error naming the
 * file and the JSON path of the bad field. */
int result_read(struct result *r, const char *path, struct err *e);

#endif

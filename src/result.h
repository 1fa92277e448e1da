/* The result record: everything one irt invocation measured (or simulated), in one schema
 * ("irt-result/1", docs/result-schema.md). Written as JSON with jansson, atomically; read
 * back losslessly. Renderers and statistics read this struct; only producers fill it. */
#ifndef IRT_RESULT_H
#define IRT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "hist.h"

#define RESULT_SCHEMA "irt-result/1"

/* An ordered list of name = value strings; values are in the form the CLI accepts.
 * A zeroed kvlist is empty and valid. Allocation failure aborts (as strlist_add). */
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
void kvlist_copy(struct kvlist *dst, const struct kvlist *src);  /* dst is overwritten, not freed */

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

/* Zeroes r, then sets schema, tool_version and command and allocates nthreads threads
 * (zeroed, histograms initialised, role "probe", timer_slack_ns -1). */
int result_init(struct result *r, const char *command, int nthreads, struct err *e);
/* Frees what r owns and zeroes it; safe on a zeroed or already freed record. */
void result_free(struct result *r);

/* Summary percentiles written into the record and printed in tables. */
extern const double result_percentiles[];          /* 50, 90, 99, 99.9, 99.99 */
extern const char *const result_percentile_names[]; /* "p50", "p90", "p99", "p99.9", "p99.99" */
extern const int result_npercentiles;

/* Writes r as JSON to path atomically: PATH.tmp.PID in the same directory, fsync, rename,
 * fsync of the directory. "-" = stdout. On failure nothing is left behind and e says
 * "PATH: what (errno text)", EXIT_RUNTIME. */
int result_write(const struct result *r, const char *path, struct err *e);
/* Reads a result file ("-" = stdin) into r (r need not be initialised; on failure r is left
 * zeroed). Any syntax, schema or consistency error is an EXIT_USAGE error naming the file and
 * the JSON path of the bad field: "FILE: $.threads[2].wake.count: expected ...". Unknown keys
 * are ignored (forward compatibility); derived fields (summaries, *_utc) are not read. */
int result_read(struct result *r, const char *path, struct err *e);

/* "2026-12-02T10:00:00.123456789Z" (UTC, always 9 fraction digits) for CLOCK_REALTIME ns. */
char *result_format_utc(char *buf, size_t len, int64_t realtime_ns);

#endif

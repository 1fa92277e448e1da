/* Workload files for `irt sim`: INI ([sim], [thread NAME], [sweep]) or a jschlatow/schedsim
 * TSV scenario (directly, or imported by [sim] import = FILE). Values are parsed by the
 * option table (opt_set), so units behave exactly as on the command line. Every error names
 * file:line and exits 2. */
#ifndef IRT_SIM_WORKLOAD_H
#define IRT_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "err.h"
#include "opt.h"
#include "sim/engine.h"

struct wl_key {              /* a key as written, for errors and the result's settings */
	char key[32];
	char value[OPT_STRLEN];
	int line;                /* 0: given on the command line, as `where` (--fill, --like) */
	char where[40];
};

struct wl_thread {
	struct sim_thread_spec spec;   /* name, cfg (resolved per cell), schedsim jobs */
	struct sim_thread_cfg raw;     /* as parsed, before resolution */
	int line;                      /* of its [thread NAME] header (or TSV row) */
	struct wl_key *keys;
	int nkeys;
};

struct wl_axis {             /* [sweep] key = v1, v2, ... */
	char key[64];            /* "fill" or "THREAD.quota" */
	int thread;              /* -1: a [sim] key */
	const struct opt *opt;
	char **values;
	int n;
	int line;
	bool fixed;              /* overridden on the command line: not a dimension any more */
};

struct workload {
	char path[512];
	struct sim_cfg sim;            /* [sim], defaults applied */
	struct wl_key *keys;           /* [sim] keys as written */
	int nkeys;
	char import[OPT_STRLEN];       /* [sim] import = schedsim TSV */
	struct wl_thread *threads;
	int nthreads;
	struct wl_axis *axes;
	int naxes;
	char **events;                 /* schedsim event names */
	int nevents;
	int nrows;                     /* schedsim rows, all threads (sim_job.seq counts them) */
};

/* "super_period" -> "super-period" */
void sim_key_normalize(const char *key, char *out, size_t len);
/* The option row of a workload key within one scope (SCOPE_SIM or SCOPE_SIM_THREAD); the key
 * may be the row's name or, for rows named "sim-NAME" / "thread-NAME", the bare NAME. */
const struct opt *sim_opt_find(unsigned scope, const char *key);
/* The key a row is written as in workload files: "sim-policy" -> "policy". */
const char *sim_key_name(const struct opt *o);

/* Parses a workload (INI, or TSV when the file name ends in .tsv); then apply any overrides
 * and call workload_check before running it. */
int workload_load(const char *path, struct workload *w, struct err *e);
/* The same with the command line's --import FILE (opened as given) in place of the file's
 * import = (NULL: the file's, relative to it). */
int workload_load_import(const char *path, const char *import, struct workload *w, struct err *e);
/* Adds the threads of schedsim TSV `file`; a failure to open it is prefixed with `where`. */
int workload_import(struct workload *w, const char *file, const char *where, struct err *e);
/* The same from an open stream (path names it, and says TSV or INI; an import is opened
 * relative to it). The fuzz target feeds it memory. */
int workload_load_stream(FILE *f, const char *path, struct workload *w, struct err *e);
void workload_free(struct workload *w);
/* Checks keys against the policies and resolves every cell (after overrides). */
int workload_check(const struct workload *w, struct err *e);

/* Number of sweep cells (1 without [sweep]). */
long workload_cells(const struct workload *w);
/* The [sim] config and resolved thread specs of cell i: threads[] must hold w->nthreads. The
 * `where` of each swept value is its [sweep] line. Errors (e.g. claims over the super period
 * for this cell's values) name the file and line. */
int workload_cell(const struct workload *w, long cell, struct sim_cfg *sim, struct sim_thread_spec *threads,
                  struct err *e);
/* Where [sim] key was given, for errors: "FILE:LINE: key", or the option ("--sim-shard"). */
const char *workload_key_where(const struct workload *w, const char *key, char *buf, size_t len);
/* Applies "key=value" overrides of [sim] keys (the command line); a [sweep] of the same key
 * is dropped (the value is fixed). import is applied by workload_load_import. */
int workload_override(struct workload *w, const struct opt *o, const char *value, const char *where, struct err *e);
/* Sets [thread NAME] key = value (adding the thread if new), as a workload file would. */
int workload_thread_set(struct workload *w, const char *thread, const char *key, const char *value, const char *where,
                        struct err *e);
/* A workload like the measured run in result file `path` (irt run, or a sweep cell): its probes
 * as periodic threads with their period, deadline and measured CPU time per wake-up, its cpu
 * loads as CPU-bound threads (or periodic at their duty cycle), the cgroup quota/period it
 * applied as cfsbw bandwidth of the confined group, on as many CPUs as the run used
 * (src/sim/like.c, docs/sim.md). */
int workload_like(const char *path, struct workload *w, struct err *e);
/* Describes cell i's swept values: "super-period=100ms fill=1ms" ("" without a sweep). */
void workload_cell_label(const struct workload *w, long cell, char *buf, size_t len);

#endif

/* Background load generators (docs/loads.md): controlled, bounded loads whose throughput is
 * measured, each in its own processes, started and reaped by irt, never outliving it.
 *
 * A spec "TYPE[:key=value,...]" (e.g. "cpu:threads=2,nice=5", "mem:size=256M,mode=rw") is
 * parsed by load_parse. load_start forks a supervisor process (own process group, or own
 * session) that forks the load's worker process (own process group); the supervisor kills and
 * reaps the workers and all their descendants at the hard deadline, on load_stop, or when irt
 * dies (parent-death signal), and only then exits. Counters live in shared memory, so they
 * survive a load killed from outside.
 *
 * Call load_start from the thread that will call load_stop and that lives as long as the
 * loads (the main thread): the parent-death signal fires when the forking thread exits.
 * Start loads before creating other threads if you can (fork copies only the caller). */
#ifndef IRT_LOAD_H
#define IRT_LOAD_H

#include <sched.h>  /* cpu_set_t (the Makefile defines _GNU_SOURCE) */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "err.h"

#define LOAD_TEXTLEN 512   /* spec text, cmd= command */
#define LOAD_PATHLEN 256   /* dir=, cgroup procs path */
#define LOAD_MAX_TASKS 512 /* worker threads/processes per load */
#define LOAD_MAX_RUNNING 64 /* loads started and not yet stopped, per irt process */

enum load_policy { LOAD_POL_OTHER, LOAD_POL_BATCH, LOAD_POL_IDLE, LOAD_POL_FIFO, LOAD_POL_RR };
enum load_mem_mode { LOAD_MEM_READ, LOAD_MEM_WRITE, LOAD_MEM_RW };
enum load_pipe_tasks { LOAD_TASKS_PROCESS, LOAD_TASKS_THREAD };

struct load_type;

/* A parsed load. load_parse fills every parameter with its effective value (defaults
 * included), so load_settings can report exactly what ran. */
struct load_spec {
	char text[LOAD_TEXTLEN];       /* the spec as given */
	char name[64];                 /* label in results; load_parse sets the type name */
	const struct load_type *type;
	uint64_t given;                /* bit per key (index in the key list) the user set */
	/* common keys */
	int64_t nice;                  /* nice= */
	int policy;                    /* policy=, enum load_policy */
	int64_t prio;                  /* prio= (fifo, rr) */
	char cpus_text[64];            /* cpus= as given; "" = no affinity set */
	cpu_set_t cpus;
	char user[64];                 /* user= as given; "" = irt's own credentials */
	uid_t uid;                     /* user= resolved (root irt only) */
	gid_t gid;
	bool as_self;                  /* user= names an unprivileged irt's own user: nothing to change */
	/* type keys (docs/loads.md lists which type reads which) */
	int64_t workers;               /* threads= (cpu, mem, io), procs= (fork), jobs= (compile) */
	int64_t load_milli;            /* cpu load-avg= in thousandths; 0 = not given */
	int64_t duty_ppm;              /* cpu duty= */
	int64_t period_ns;             /* cpu period= */
	int64_t size;                  /* mem buffer / io file per worker / compile object bytes */
	int mode;                      /* mem mode=, enum load_mem_mode */
	int64_t stride;                /* mem stride= */
	int64_t groups, fds, msg;      /* pipe groups=, fds=, msg= */
	bool socket;                   /* pipe socket= */
	int tasks;                     /* pipe tasks=, enum load_pipe_tasks */
	bool exec;                     /* fork exec= */
	int64_t bs;                    /* io bs= */
	bool drop;                     /* io drop= */
	char dir[LOAD_PATHLEN];        /* io, compile dir= */
	int64_t unit_ns;               /* compile unit= */
	char cmd[LOAD_TEXTLEN];        /* cmd cmd= */
	int64_t delay_ns;              /* cmd delay= */
	/* placement, set by the caller, not by spec keys */
	bool session;                  /* setsid: own session, hence own autogroup */
	char cgroup_procs[LOAD_PATHLEN]; /* "" or a cgroup.procs / tasks file to join */
};

/* Parses "TYPE[:key=value,...]". `cmd=` takes the rest of the spec, commas included.
 * Errors (EXIT_USAGE, one line): "load 'SPEC': <what is wrong> (<what is accepted>)". */
int load_parse(const char *spec, struct load_spec *out, struct err *e);
/* Placement: run the load in its own session (setsid, so its own autogroup)... */
void load_set_session(struct load_spec *s, bool own_session);
/* ...and/or move it into a cgroup: the supervisor writes its pid into procs_path (a v1
 * "cgroup.procs"/"tasks" or a v2 "cgroup.procs" file) before any worker exists. "" = none. */
int load_set_cgroup(struct load_spec *s, const char *procs_path, struct err *e);
/* Calls fn(key, value) for every effective setting, values in the form load_parse reads. */
void load_settings(const struct load_spec *s, void (*fn)(void *ctx, const char *key,
		   const char *value), void *ctx);
/* What one operation is for this type ("loops", "messages"...), and what bytes count. */
const char *load_type_name(const struct load_spec *s);   /* "cpu", "mem" ... */
const char *load_ops_unit(const struct load_spec *s);
const char *load_bytes_unit(const struct load_spec *s);  /* NULL: the type moves no bytes */
/* Every type and key, for help text. */
void load_print_help(FILE *f);

/* One worker thread or process of a running load, for per-thread accounting. */
struct load_task {
	pid_t pid, tid;                /* thread-group id and thread id (equal for a process) */
	char role[16];                 /* "cpu", "sender", "receiver", "job", "cmd", ... */
	uint64_t ops, bytes;           /* this task's counters so far */
};

struct load_counters {
	uint64_t ops, bytes, errors;
	int64_t t_ns;                  /* CLOCK_MONOTONIC when read */
};

enum load_end { LOAD_END_NONE, LOAD_END_STOPPED, LOAD_END_DEADLINE, LOAD_END_FAILED };

struct load_result {
	uint64_t ops, bytes, errors;   /* errors: failed operations (cmd non-zero exits, EIO...) */
	int64_t elapsed_ns;            /* from all workers running to their stop */
	double ops_per_s, bytes_per_s;
	int end;                       /* enum load_end */
	char failure[256];             /* why the load failed; "" if it did not */
};

struct load_shm;

struct load {
	struct load_spec spec;
	pid_t pid;                     /* supervisor; its pid is its process group (and session) */
	pid_t worker_pid;              /* worker process: leader of the load's process group;
	                                * reaped children's CPU shows in its /proc stat cutime */
	char autogroup[64];            /* /proc/<worker>/autogroup at start; "" if unavailable */
	int64_t start_ns, deadline_ns; /* CLOCK_MONOTONIC: all workers running; hard deadline */
	struct load_result result;     /* filled by load_stop */
	/* private */
	struct load_shm *shm;
	int pidfd, reg;
	bool reaped;
	int wstatus;
};

/* Starts the load; returns once all its workers run (or fails, EXIT_RUNTIME; refusals for
 * sizes the machine cannot hold: EXIT_USAGE). The load ends by itself at hard_deadline_ns
 * (CLOCK_MONOTONIC) at the latest. */
int load_start(struct load *l, const struct load_spec *s, int64_t hard_deadline_ns, struct err *e);
/* Copies up to max worker tasks into out; returns how many the load has (0 after stop). */
int load_tasks(const struct load *l, struct load_task *out, int max);
/* Current counters, e.g. at the start and end of a measuring window (see load_rate). */
void load_sample(const struct load *l, struct load_counters *c);
void load_rate(const struct load_counters *a, const struct load_counters *b,
	       double *ops_per_s, double *bytes_per_s);
/* Waits until the load has ended by itself (deadline, failure) or until until_ns. Returns 1
 * if it ended (then load_stop only collects), 0 if still running. */
int load_wait(struct load *l, int64_t until_ns);
/* Stops the load, waits until every process of it is gone, fills l->result. Returns -1 with
 * e set (EXIT_RUNTIME) if the load failed or was killed from outside; l->result is filled
 * either way. Idempotent. */
int load_stop(struct load *l, struct err *e);
/* Async-signal-safe: kills the workers of every running load and tells each supervisor to
 * clean up. For a fatal-signal handler; call load_stop afterwards if you go on. */
void load_stop_all_on_signal(void);

#endif

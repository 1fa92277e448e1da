/* Internals shared by the load framework (load.c: irt's side, load_parse.c: specs,
 * load_run.c: the supervisor and worker process) and the load types (load_types.c).
 * Not for other modules: they use load.h. */
#ifndef IRT_LOAD_IMPL_H
#define IRT_LOAD_IMPL_H

#include <stdatomic.h>
#include <stddef.h>

#include "load.h"
#include "opt.h"

/* Spec keys are options (struct opt, SCOPE_LOAD) with LOAD_KEY(field) naming their field in
 * struct load_spec. The key lists are the single truth for parsing, defaults, load_settings,
 * help and error messages. OPT_STRING keys are directory paths; OPT_CPUS keys also fill
 * load_spec.cpus. */
#define LOAD_KEY(field) .scope = SCOPE_LOAD, .offset = offsetof(struct load_spec, field)

/* Worker slots and counters in memory shared between irt, the supervisor and the workers. */
enum { SLOT_FREE, SLOT_STARTING, SLOT_RUNNING, SLOT_FAILED };

struct load_slot {
	_Alignas(64) _Atomic uint64_t ops;   /* one cache line per worker: no false sharing */
	_Atomic uint64_t bytes;
	_Atomic int32_t state;
	_Atomic int32_t pid, tid;
	char role[16];
};

struct load_shm {
	_Atomic int32_t wpid;          /* worker process = the load's process group; 0 once killed */
	_Atomic int32_t ntasks;
	_Atomic int64_t start_ns, end_ns;
	_Atomic int32_t end_reason;    /* enum load_end */
	_Atomic int32_t stop_requested; /* irt killed the workers itself */
	_Atomic uint64_t errors;
	_Atomic int32_t failed;        /* 0, 1 = message being written, 2 = message complete */
	_Atomic int32_t fail_code;     /* EXIT_RUNTIME or EXIT_USAGE */
	char error[256];
	char tmpdir[LOAD_PATHLEN + 32]; /* set while a temporary directory exists */
	struct load_slot slot[LOAD_MAX_TASKS];
};

/* What a type's code sees inside the worker process. */
struct load_ctx {
	const struct load_spec *s;
	struct load_shm *shm;
	int ready_fd;                  /* irt's readiness pipe; worker processes close it */
	pid_t wpid;
	void *priv;                    /* the type's own state */
};

/* A load type: one entry in load_types[] (load_types.c). */
struct load_type {
	const char *name;
	const char *summary;
	const struct opt *keys;        /* the type's keys, {0}-terminated; common keys apply too */
	const char *ops_unit;          /* what one counted operation is */
	const char *bytes_unit;        /* what bytes count; NULL = none */
	/* After parsing: derived values and cross-key checks (EXIT_USAGE, message without the
	 * "load 'SPEC': " prefix). May be NULL. */
	int (*finish)(struct load_spec *s, struct err *e);
	/* In irt before forking: refuse what this machine cannot hold. May be NULL. */
	int (*check_room)(const struct load_spec *s, struct err *e);
	/* In the worker process: create the workers (load_spawn_*). -1 after load_fail. */
	int (*start)(struct load_ctx *c);
	/* Optional, in the worker process's main thread: called after start, on SIGCHLD
	 * (child_exited) and at the time it returned last; returns the next time to be called
	 * (INT64_MAX: only on SIGCHLD). Without tick, any worker process exiting fails the load. */
	int64_t (*tick)(struct load_ctx *c, int64_t now, bool child_exited);
	/* The key a bare count sets, TYPE:N (cpu:2 is cpu:threads=2, as stress-ng and hackbench
	 * users type it); NULL: the type has no natural count. */
	const char *count_key;
};

extern const struct load_type load_types[];
extern const int load_ntypes;
extern const struct opt load_common_keys[];

/* policy= names, in the order of enum load_policy (load_parse.c). */
extern const char *const load_policy_names[];
static inline bool load_policy_is_rt(int policy)
{
	return policy == LOAD_POL_FIFO || policy == LOAD_POL_RR;
}

/* In irt's child after fork (load_start): becomes the load's supervisor, which forks the
 * worker process, ends the load at the deadline or when told, and exits (load_run.c). */
_Noreturn void load_supervisor_main(struct load_shm *sh, const struct load_spec *s, int ready_fd,
				    pid_t irt, int64_t deadline);

/* Helpers for the types (all in the worker process). */
typedef void (*load_worker_fn)(struct load_ctx *c, int slot, void *arg);
/* A worker thread / process in a new slot; it applies nice/policy to itself, then runs fn.
 * Returns the slot, or -1 after load_fail. */
int load_spawn_thread(struct load_ctx *c, const char *role, load_worker_fn fn, void *arg);
int load_spawn_process(struct load_ctx *c, const char *role, load_worker_fn fn, void *arg);
/* A slot whose task the type manages itself (cmd); state RUNNING. */
int load_add_slot(struct load_ctx *c, const char *role, pid_t pid);
static inline void load_count(struct load_ctx *c, int slot, uint64_t ops, uint64_t bytes)
{
	atomic_fetch_add_explicit(&c->shm->slot[slot].ops, ops, memory_order_relaxed);
	if (bytes)
		atomic_fetch_add_explicit(&c->shm->slot[slot].bytes, bytes, memory_order_relaxed);
}
static inline void load_count_error(struct load_ctx *c)
{
	atomic_fetch_add_explicit(&c->shm->errors, 1, memory_order_relaxed);
}
/* Did the user give this key (not just its default)? */
bool load_key_given(const struct load_spec *s, const char *name);
/* Records the load's failure (the first one wins), tells the worker process's main thread
 * (which then ends the load) and returns -1. */
int load_fail(struct load_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Applies the spec's policy, priority and nice to the calling thread. */
int load_apply_sched(const struct load_spec *s, char *why, size_t len);
/* Makes a temporary directory in s->dir, opens n unnamed files in it (O_TMPFILE, or created
 * and unlinked at once), and removes the directory again: nothing can be left on disk. */
int load_open_tmpfiles(struct load_ctx *c, int n, int *fds);
void load_sleep_until(int64_t t);  /* absolute CLOCK_MONOTONIC */
long load_online_cpus(void);

#endif

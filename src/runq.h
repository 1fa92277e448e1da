/* irt watch --all: the run-queue latency of every task on the system (as bcc's runqlat), from
 * the scheduler events linux/trace.c keeps. A wait starts at a task's sched_waking (woken; a
 * new task's sched_wakeup_new is kept as one), or at the sched_switch that leaves it runnable
 * (preempted), and ends at its next switch-in.
 *
 * Pure and bounded: one histogram of all tasks, optionally one per CPU, and a table of at most
 * `table` tasks with a histogram each (not one per task ever seen: a fork-heavy system has
 * millions). When the table is full, a task not in it takes the place of the kept task whose
 * worst wait is the shortest, if its own wait is longer; the replaced task's waits and those
 * of tasks not taken are counted as dropped (they stay in the all-task histogram), so that
 *   all.count == sum of the table's counts + dropped.
 * With process_of (runqlat -P) the table's entries are processes, each its threads' waits.
 * Unit tests feed it synthetic events (tests/unit/test_runq.c). docs/watch.md. */
#ifndef IRT_RUNQ_H
#define IRT_RUNQ_H

#include <stdbool.h>
#include <stdint.h>

#include "explain.h"
#include "hist.h"

#define RUNQ_TABLE 1024       /* tasks with a histogram each */
#define RUNQ_PENDING 65536    /* tasks waiting at once; beyond, a wait is not timed (counted) */

struct runq_task {
	int32_t tid;              /* or, by process (runq.process_of), the process's pid */
	struct hist h;            /* 143 KB of address space, pages touched only where waits land */
};

/* tid -> value, open addressing with linear probing and deletion, fixed capacity */
struct runq_map {
	int32_t *key;             /* tid + 1, 0 empty */
	int64_t *val;
	uint32_t cap, n, max;
};

enum runq_rank { RUNQ_BY_P99, RUNQ_BY_MAX, RUNQ_BY_TOTAL };   /* total: the waits summed */

struct runq {
	int64_t start, end;       /* a wait that began in [start, end] is recorded */
	struct hist all;
	struct hist *cpu;         /* per CPU (where it ended), NULL unless asked */
	int ncpu;
	struct runq_task **slot;
	int nslots, table;
	int weakest;              /* cached slot with the shortest worst wait, -1 stale */
	struct runq_map index;    /* tid -> slot */
	struct runq_map pending;  /* tid -> start of its wait, << 1 | preempted */
	const int32_t *exclude;   /* tids not recorded (irt's own threads) */
	const struct trace_data *losses;
	int nexclude;
	/* runqlat -P: the table is by process, a thread's waits recorded under process_of(ctx, tid)
	 * (<= 0, not known: the thread counts as a process of its own). NULL: by thread. */
	int32_t (*process_of)(const void *ctx, int32_t tid);
	const void *process_ctx;
	uint64_t woken, preempted;      /* recorded waits by how they began */
	uint64_t dropped;               /* recorded waits not in the table */
	uint64_t evicted;               /* tasks replaced in the table */
	uint64_t excluded;              /* waits of excluded tids, not recorded */
	uint64_t lost;                  /* waits across lost events, not recorded */
	uint64_t untimed;               /* waits not timed: RUNQ_PENDING tasks waited already */
};

/* table: tasks with a histogram (>= 1); ncpu > 0: a histogram per CPU too. */
void runq_init(struct runq *q, int table, int ncpu, int64_t start, int64_t end);
void runq_free(struct runq *q);
/* One event, in time order over all CPUs (cpu: where it was recorded). A wait across one of
 * the loss windows of q->losses (runq_feed sets it; NULL: none) is not recorded, but counted. */
void runq_event(struct runq *q, int cpu, const struct tev *ev);
/* One wait of tid that ended on cpu (runq_event's recording step). */
void runq_record(struct runq *q, int32_t tid, int cpu, int64_t ns, bool preempted);
/* Every event of d, merged in time order across CPUs; waits across d's loss windows are lost. */
void runq_feed(struct runq *q, const struct trace_data *d);
/* The n worst tasks of the table (by p99, max or total; ties: more waits first), worst first, into out;
 * returns how many. */
int runq_top(const struct runq *q, enum runq_rank by, const struct runq_task **out, int n);

#endif

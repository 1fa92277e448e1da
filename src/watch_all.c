/* irt watch --all: every task's run-queue waits (runq.c) into the result record: a thread
 * "all tasks" (role watch, so compare and report read it as any watch), one per CPU with
 * --by-cpu (role watch-cpu) and the --top worst tasks (role watch-task), with the counts of
 * what the bounded table left out in r->runq. docs/watch.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "explain.h"
#include "linux/sysfile.h"
#include "opt.h"
#include "runq.h"
#include "util.h"
#include "watch.h"

static struct result_thread *add(struct result *r, const char *role, int64_t tid, const struct hist *h)
{
	struct result_thread *t = result_add_thread(r);
	snprintf(t->role, sizeof(t->role), "%s", role);
	t->tid = tid;
	t->wake = *h;
	t->samples = h->count;
	return t;
}

/* --top-of process: a thread's process, as irt saw it while the thread lived (0: it did not) */
static int32_t process_of(const void *ctx, int32_t tid)
{
	const struct ttask *k = explain_task(ctx, tid);
	return k ? k->tgid : 0;
}

/* A row's name, COMM[ID]: the comm the events have for ID (for a process, its main thread's),
 * else /proc's while it lives (a process whose main thread did not run), escaped as trace.c's */
static void row_name(char *name, size_t len, const struct trace_data *d, int32_t id)
{
	const struct ttask *k = explain_task(d, id);
	char comm[64] = "?", raw[32];
	if (k && k->comm[0])
		snprintf(comm, sizeof(comm), "%s", k->comm);
	else if (sys_task_status(id, "Name", raw, sizeof(raw)))
		err_escape(comm, sizeof(comm), raw);
	snprintf(name, len, "%.48s[%d]", comm, (int)id);
}

void watch_all_fill(struct result *r, const struct trace_data *d, const struct watch_cfg *c, int64_t start,
                    int64_t end, const int32_t *exclude, int nexclude)
{
	struct runq *q = xcalloc(1, sizeof(*q));
	runq_init(q, RUNQ_TABLE, c->by_cpu ? d->ncpu : 0, start, end);
	q->exclude = exclude;
	q->nexclude = nexclude;
	if (c->top_of) {
		q->process_of = process_of;
		q->process_ctx = d;
	}
	runq_feed(q, d);
	if (q->all.count) {
		struct result_thread *t = add(r, "watch", 0, &q->all);
		snprintf(t->name, sizeof(t->name), "all tasks");
		kvlist_set(&t->settings, "all", "1");
	}
	for (int i = 0; q->all.count && i < q->ncpu; i++)
		if (q->cpu[i].count)
			snprintf(add(r, "watch-cpu", i, &q->cpu[i])->name, sizeof(r->threads->name), "cpu%d", i);
	const struct runq_task **top = xcalloc((size_t)c->top + 1, sizeof(*top));
	int n = runq_top(q, (enum runq_rank)c->top_by, top, (int)c->top);
	uint64_t shown = 0;
	for (int i = 0; i < n; i++) {
		struct result_thread *t = add(r, "watch-task", top[i]->tid, &top[i]->h);
		row_name(t->name, sizeof(t->name), d, top[i]->tid);
		/* its process, while it lives (a thread's tid is not its process's pid) */
		char pid[32];
		if (c->top_of)
			snprintf(pid, sizeof(pid), "%d", (int)top[i]->tid);
		if (c->top_of || sys_task_status(top[i]->tid, "Tgid", pid, sizeof(pid)))
			kvlist_set(&t->settings, "pid", pid);
		shown += top[i]->h.count;
	}
	free(top);
	struct result_runq *o = &r->runq;
	*o = (struct result_runq){.present = true, .woken = (int64_t)q->woken, .preempted = (int64_t)q->preempted,
	                          .tasks = q->nslots, .table = q->table,
	                          .other = (int64_t)(q->all.count - q->dropped - shown), .dropped = (int64_t)q->dropped,
	                          .evicted = (int64_t)q->evicted, .excluded = (int64_t)q->excluded,
	                          .lost = (int64_t)q->lost, .untimed = (int64_t)q->untimed, .events = (int64_t)d->events,
	                          .events_lost = (int64_t)d->lost, .memory_bytes = d->memory_bytes};
	snprintf(o->top_by, sizeof(o->top_by), "%s", opt_find("top-by")->choices[c->top_by]);
	snprintf(o->top_of, sizeof(o->top_of), "%s", opt_find("top-of")->choices[c->top_of]);
	if (d->lost)
		fprintf(stderr, "irt: note: watch: %llu scheduler events lost (ring-buffer overruns or irt's memory cap; "
		        "--explain-buffer enlarges the buffer): %llu waits across them not recorded\n",
		        (unsigned long long)d->lost, (unsigned long long)q->lost);
	runq_free(q);
	free(q);
}

/* irt watch: real applications' threads, selected by pid, command name or cgroup, measured
 * from the kernel's scheduler events alone: every wake-up's latency (sched_waking -> running)
 * and response (-> it sleeps again), in the same result record as probes, with the same
 * --explain causes of the tail. The window, loads, placement and knobs around it are a run's
 * (run.c, sweep.c): here is what is watched and how it is recorded. */
#include "watch.h"

#include "cmd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "explain.h"
#include "jobfile.h"
#include "linux/env.h"
#include "linux/signals.h"
#include "linux/trace.h"
#include "run.h"
#include "trust.h"
#include "units.h"
#include "util.h"

#define MAX_TIDS 1024

struct selection {
	int32_t tids[MAX_TIDS];
	int ntids;
	char *comms[65];   /* NULL-terminated; point into comm_buf */
	char comm_buf[OPT_STRLEN];
};

static void add_tid(struct selection *s, int32_t tid)
{
	for (int i = 0; i < s->ntids; i++)
		if (s->tids[i] == tid)
			return;
	if (s->ntids < MAX_TIDS)
		s->tids[s->ntids++] = tid;
}

/* Every thread of process pid. */
static int add_process(struct selection *s, const char *word, struct err *e)
{
	char *end;
	errno = 0;
	long pid = strtol(word, &end, 10);
	if (!*word || *end || errno || pid <= 0 || pid > (1L << 22))
		return err_set(e, EXIT_USAGE, "--pid: '%s' is not a process id (a comma list of positive numbers)", word);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return err_set(e, EXIT_USAGE, "--pid: no process %ld (%s)", pid, strerror(errno));
	struct dirent *de;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			add_tid(s, (int32_t)atoi(de->d_name));
	closedir(d);
	return 0;
}

/* The threads in a cgroup directory: cgroup.threads (v2) or tasks (v1). */
static int add_cgroup(struct selection *s, const char *dir, struct err *e)
{
	static const char *const names[] = {"cgroup.threads", "tasks"};
	char path[OPT_STRLEN + 32];
	/* a regular file, as cgroupfs has: a FIFO or a link another user put in a directory given
	 * here would hang root irt or make it read another file */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
	for (int i = 0; i < 2 && dfd >= 0 && fd < 0 && !e->code; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fd = trust_openat(dfd, names[i], path, O_RDONLY, TRUST_READ_ANY, e);
	}
	int saved = errno;
	if (dfd >= 0)
		close(dfd);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f && fd >= 0)
		close(fd);
	if (!f && !e->code)
		return err_set(e, EXIT_USAGE, "--cgroup: '%s' is not a cgroup directory (no cgroup.threads or tasks file: %s)",
		               dir, strerror(fd >= 0 ? errno : saved));
	if (!f)
		return -1;
	long tid;
	while (fscanf(f, "%ld", &tid) == 1)
		add_tid(s, (int32_t)tid);
	fclose(f);
	return 0;
}

static int select_threads(const struct watch_cfg *w, struct selection *s, struct err *e)
{
	memset(s, 0, sizeof(*s));
	if (w->all && (w->pid[0] || w->comm[0] || w->cgroup[0]))
		return err_set(e, EXIT_USAGE, "--all: watches every task; --pid, --comm and --cgroup select some "
		               "(give one or the other)");
	if (w->all)
		return 0;
	if (!w->pid[0] && !w->comm[0] && !w->cgroup[0])
		return err_set(e, EXIT_USAGE, "watch: which threads? give --pid PID,..., --comm NAME,..., --cgroup DIR "
		               "or --all");
	char pids[OPT_STRLEN];
	snprintf(pids, sizeof(pids), "%s", w->pid);
	for (char *save = NULL, *p = strtok_r(pids, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (add_process(s, p, e))
			return -1;
	if (w->cgroup[0] && add_cgroup(s, w->cgroup, e))
		return -1;
	snprintf(s->comm_buf, sizeof(s->comm_buf), "%s", w->comm);
	int n = 0;
	for (char *save = NULL, *p = strtok_r(s->comm_buf, ",", &save); p && n < 64; p = strtok_r(NULL, ",", &save)) {
		if (strlen(p) > 15)
			return err_set(e, EXIT_USAGE, "--comm: '%s' is longer than a command name can be (15 characters)", p);
		s->comms[n++] = p;
	}
	if (w->comm[0] && !n)
		return err_set(e, EXIT_USAGE, "--comm: no name in '%s' (a comma list of command names)", w->comm);
	return 0;
}

bool watch_selected(const struct watch_cfg *c)
{
	return c->pid[0] || c->comm[0] || c->cgroup[0] || c->all;
}

int watch_check(const struct watch_cfg *c, struct err *e)
{
	struct selection *s = xmalloc(sizeof(*s));
	int rc = select_threads(c, s, e);
	free(s);
	return rc;
}

struct watch {
	struct watch_cfg cfg;
	const struct explain_cfg *xc;
	struct selection sel;
	struct trace *t;
	struct trace_data data;
	int32_t tids[MAX_TIDS];    /* every thread watched by the end; --all: irt's own */
	int ntids;
	bool window, stopped;
	int64_t start, start_rt, end;   /* the window (watch_window): CLOCK_MONOTONIC, and its start on CLOCK_REALTIME */
};

int watch_open(struct watch **wp, const struct watch_cfg *c, const struct explain_cfg *x, struct err *e)
{
	/* said here, not by trace_open, whose refusal names --explain (not given to watch) */
	if (geteuid() != 0)
		return err_set(e, EXIT_RUNTIME, "watch: irt watch needs root (it reads the scheduler's events through "
			       "tracefs; run it as root, or use irt probe or irt run)");
	struct watch *w = xcalloc(1, sizeof(*w));
	w->cfg = *c;
	w->xc = x;
	if (select_threads(c, &w->sel, e)) {
		free(w);
		return -1;
	}
	struct trace_opts o = {.who = "watch", .buffer_kb = x->buffer / 1024, .memory_cap = EXPLAIN_MEMORY_CAP,
	                       .comms = w->sel.comms[0] ? (const char *const *)w->sel.comms : NULL, .all = c->all};
	if (trace_open(&w->t, &o, e)) {
		err_prefix(e, "watch");
		free(w);
		return -1;
	}
	for (int i = 0; i < w->sel.ntids; i++)
		trace_watch_tid(w->t, w->sel.tids[i]);
	*wp = w;
	return 0;
}

int watch_trace(struct watch *w, struct err *e)
{
	if (trace_run(w->t, e)) {
		err_prefix(e, "watch");
		return -1;
	}
	return 0;
}

void watch_window(struct watch *w, int64_t start, int64_t end)
{
	w->window = true;
	w->start = start;
	w->end = end;
	w->start_rt = clock_ns(CLOCK_REALTIME) - (clock_ns(CLOCK_MONOTONIC) - start);
}

void watch_snap(const struct watch *w, struct acct_snap *s)
{
	struct err ignore = {0};
	char pids[OPT_STRLEN];
	snprintf(pids, sizeof(pids), "%s", w->cfg.pid);
	for (char *save = NULL, *p = strtok_r(pids, ",", &save); p; p = strtok_r(NULL, ",", &save))
		acct_snap_add_process(s, (pid_t)atoi(p), "watch", &ignore);
}

static int own_threads(int32_t *tids, int max)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	while (d && (de = readdir(d)) && n < max)
		if (isdigit((unsigned char)de->d_name[0]))
			tids[n++] = (int32_t)atoi(de->d_name);
	if (d)
		closedir(d);
	return n;
}

void watch_stop(struct watch *w, struct err *run_err)
{
	if (!w || w->stopped)
		return;
	w->stopped = true;
	/* --all: irt's threads, its trace reader among them, while they live */
	w->ntids = w->cfg.all ? own_threads(w->tids, MAX_TIDS) : trace_watched_tids(w->t, w->tids, MAX_TIDS);
	struct err e = {0};
	if (trace_stop(w->t, &w->data, &e) && !run_err->code)
		*run_err = e;
	w->t = NULL;
}

/* One result thread per watched thread that woke up in the window at least once. */
static void fill(struct result *r, const struct watch *w, struct explain_sample **samples, size_t *nsamples)
{
	size_t total = 0;
	struct wakeup *wu[MAX_TIDS] = {0};
	size_t nwu[MAX_TIDS] = {0};
	for (int i = 0; i < w->ntids; i++) {
		struct wakeup *all;
		size_t n = explain_wakeups(&w->data, w->tids[i], &all);
		/* outside the window (before it, loads were warming up): not recorded */
		for (size_t j = 0; j < n; j++)
			if (all[j].waking >= w->start && all[j].waking <= w->end)
				all[nwu[i]++] = all[j];
		wu[i] = all;
		total += nwu[i];
	}
	*samples = xcalloc(total ? total : 1, sizeof(**samples));
	*nsamples = 0;
	for (int i = 0; i < w->ntids; i++) {
		if (!nwu[i])
			continue;
		int k = r->nthreads;
		struct result_thread *t = result_add_thread(r);
		const struct ttask *task = explain_task(&w->data, w->tids[i]);
		snprintf(t->name, sizeof(t->name), "%s", task && task->comm[0] ? task->comm : "?");
		snprintf(t->role, sizeof(t->role), "watch");
		t->tid = w->tids[i];
		if (w->cfg.pid[0])
			kvlist_set(&t->settings, "pid", w->cfg.pid);
		if (w->cfg.comm[0])
			kvlist_set(&t->settings, "comm", w->cfg.comm);
		if (w->cfg.cgroup[0])
			kvlist_set(&t->settings, "cgroup", w->cfg.cgroup);
		for (size_t j = 0; j < nwu[i]; j++) {
			const struct wakeup *u = &wu[i][j];
			hist_record(&t->wake, u->running - u->waking);
			/* response: until it sleeps again; a wake-up still running at the end has none */
			if (u->done >= 0)
				hist_record(&t->resp, u->done - u->waking);
			t->samples++;
			(*samples)[(*nsamples)++] = (struct explain_sample){k, w->tids[i], u->waking, u->running};
		}
	}
	for (int i = 0; i < w->ntids; i++)
		free(wu[i]);
}

/* Why a window recorded nothing: no selected thread ran at all, or they all slept (or ran)
 * through it. The latter is right, not a failure to trace: a wake-up is what is measured.
 * (--all: no task waited, or the events were all lost.) */
static void say_empty(const struct watch *w, char *buf, size_t len)
{
	char d[32];
	units_human_duration(d, sizeof(d), w->end - w->start);
	if (w->cfg.all)
		snprintf(buf, len, "watch: no task waited for a CPU in %s (every event lost?)", d);
	else if (!w->ntids)
		snprintf(buf, len, "watch: no selected thread woke up in %s: no thread named %s ran", d, w->cfg.comm);
	else
		snprintf(buf, len, "watch: no selected thread woke up in %s: %s %d selected thread%s slept (or ran) "
		         "through the whole window, so there is no wake-up latency to record (watch longer with "
		         "--watch-for, or a thread that wakes)", d, w->ntids == 1 ? "the" : "all", w->ntids,
		         w->ntids == 1 ? "" : "s");
}

int watch_finish(struct watch *w, struct result *r, char *empty, size_t len, struct err *e)
{
	if (!w)
		return 0;
	struct err ignore = {0};
	watch_stop(w, &ignore);
	char buf[64];
	kvlist_set(&r->settings, "watch-for", units_format_duration(buf, sizeof(buf), w->cfg.duration));
	/* what was watched identifies the run (compare): thread names may come and go */
	if (w->cfg.pid[0])
		kvlist_set(&r->settings, "watch.pid", w->cfg.pid);
	if (w->cfg.comm[0])
		kvlist_set(&r->settings, "watch.comm", w->cfg.comm);
	if (w->cfg.cgroup[0])
		kvlist_set(&r->settings, "watch.cgroup", w->cfg.cgroup);
	if (w->cfg.all)
		kvlist_set(&r->settings, "watch.all", "1");
	if (w->cfg.all && w->cfg.include_irt)
		kvlist_set(&r->settings, "watch.include-irt", "1");
	if (w->window) {
		struct explain_sample *samples = NULL;
		size_t nsamples = 0;
		if (w->cfg.all)   /* irt's own threads (w->tids) left out unless asked */
			watch_all_fill(r, &w->data, &w->cfg, w->start, w->end, w->tids, w->cfg.include_irt ? 0 : w->ntids);
		else
			fill(r, w, &samples, &nsamples);
		r->start_realtime_ns = w->start_rt;
		r->end_realtime_ns = w->start_rt + (w->end - w->start);
		r->duration_ns = w->end - w->start;
		if (!r->nthreads) {
			say_empty(w, empty, len);
			if (!w->cfg.empty_fails)
				fprintf(stderr, "irt: %s\n", empty);
		}
		if (w->xc->explain)   /* the events are traced anyway; their blockers only when asked (not --all) */
			explain_analyse(&w->data, samples, nsamples, w->xc->threshold, w->start, r);
		free(samples);
	}
	trace_data_free(&w->data);
	free(w);
	return e->code ? -1 : 0;
}

/* irt watch: a run of the watched threads, beside the loads it is given (none: alone). */
int cmd_watch(int argc, char **argv)
{
	struct err e = {0}, run_err = {0};
	struct opt_args a = {0};
	struct job job = {0};
	struct run run;
	struct result r = {0};
	bool interrupted = false;
	int rc = EXIT_OK;

	memset(&run, 0, sizeof(run));
	if (opt_parse(argc, argv, SCOPE_GLOBAL | SCOPE_RUN | SCOPE_COND | SCOPE_EXPLAIN | SCOPE_WATCH, &a, &e) ||
	    cli_no_extra_args(&a, 0, "watch", &e) || run_configure(&run, &a, &job, &e))
		goto out;
	run.wc.empty_fails = true;
	if (!watch_selected(&run.wc)) {
		watch_check(&run.wc, &e);   /* says which options select */
		goto out;
	}
	sig_block_stop();
	if (run_execute(&run, &r, &interrupted, &run_err, &e))
		goto out;
	r.cmdline = cli_cmdline(argc, argv);
	if (run_err.code)
		err_print(&run_err);
	/* nothing recorded is a failure, not an empty result (a sweep cell keeps its empty run) */
	if (!r.nthreads && !interrupted) {
		err_set(&e, EXIT_RUNTIME, "%s; nothing written", run.watch_empty);
		goto out;
	}
	if (cli_output(&r, &run.g, &e))
		goto out;
	if (interrupted)
		run_say_interrupted(&run, &r);
	rc = interrupted ? EXIT_INTERRUPTED : run_err.code ? run_err.code : EXIT_OK;
out:
	if (e.code)
		rc = err_print(&e);
	result_free(&r);
	run_free(&run);
	opt_args_free(&a);
	return rc;
}

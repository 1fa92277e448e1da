/* irt watch: real applications' threads, selected by pid, command name or cgroup, measured
 * from the kernel's scheduler events alone: every wake-up's latency (sched_waking -> running)
 * and response (-> it sleeps again), in the same result record as probes, with the same
 * --explain causes of the tail. Alone, for --watch-for. */
#include "cmd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "explain.h"
#include "linux/env.h"
#include "linux/signals.h"
#include "linux/trace.h"
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
	char path[OPT_STRLEN + 32];
	snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(path, sizeof(path), "%s/tasks", dir);
		f = fopen(path, "re");
	}
	if (!f)
		return err_set(e, EXIT_USAGE, "--cgroup: '%s' is not a cgroup directory (no cgroup.threads or tasks file: %s)",
		               dir, strerror(errno));
	long tid;
	while (fscanf(f, "%ld", &tid) == 1)
		add_tid(s, (int32_t)tid);
	fclose(f);
	return 0;
}

static int select_threads(const struct watch_cfg *w, struct selection *s, struct err *e)
{
	memset(s, 0, sizeof(*s));
	if (!w->pid[0] && !w->comm[0] && !w->cgroup[0])
		return err_set(e, EXIT_USAGE, "watch: which threads? give --pid PID,..., --comm NAME,... or --cgroup DIR");
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

static int watch_cfg_from(const struct opt_args *a, struct watch_cfg *w, struct err *e)
{
	for (int i = 0; i < a->n; i++)
		if ((a->items[i].opt->scope & SCOPE_WATCH) && opt_set(a->items[i].opt, w, a->items[i].value, a->items[i].where, e))
			return -1;
	return 0;
}

/* One result thread per watched thread that woke up at least once. */
static int fill(struct result *r, const struct trace_data *d, const int32_t *tids, int ntids, const struct watch_cfg *w,
                struct explain_sample **samples, size_t *nsamples, struct err *e)
{
	struct wakeup *wu[MAX_TIDS] = {0};
	size_t nwu[MAX_TIDS] = {0};
	int nthreads = 0;
	for (int i = 0; i < ntids; i++) {
		nwu[i] = explain_wakeups(d, tids[i], &wu[i]);
		nthreads += nwu[i] > 0;
	}
	int rc = result_init(r, "watch", nthreads, e);
	size_t total = 0;
	for (int i = 0; i < ntids; i++)
		total += nwu[i];
	*samples = xcalloc(total ? total : 1, sizeof(**samples));
	*nsamples = 0;
	int k = 0;
	for (int i = 0; i < ntids && rc == 0; i++) {
		if (!nwu[i])
			continue;
		struct result_thread *t = &r->threads[k];
		const struct ttask *task = explain_task(d, tids[i]);
		snprintf(t->name, sizeof(t->name), "%s", task && task->comm[0] ? task->comm : "?");
		snprintf(t->role, sizeof(t->role), "watch");
		t->tid = tids[i];
		if (w->pid[0])
			kvlist_set(&t->settings, "pid", w->pid);
		if (w->comm[0])
			kvlist_set(&t->settings, "comm", w->comm);
		if (w->cgroup[0])
			kvlist_set(&t->settings, "cgroup", w->cgroup);
		for (size_t j = 0; j < nwu[i]; j++) {
			const struct wakeup *u = &wu[i][j];
			hist_record(&t->wake, u->running - u->waking);
			/* response: until it sleeps again; a wake-up still running at the end has none */
			if (u->done >= 0)
				hist_record(&t->resp, u->done - u->waking);
			t->samples++;
			(*samples)[(*nsamples)++] = (struct explain_sample){k, tids[i], u->waking, u->running};
		}
		k++;
	}
	for (int i = 0; i < ntids; i++)
		free(wu[i]);
	return rc;
}

int cmd_watch(int argc, char **argv)
{
	struct err e = {0};
	struct opt_args a;
	struct global_cfg g;
	struct explain_cfg xc;
	struct watch_cfg wc;
	struct selection sel;
	struct result r = {0};
	struct trace_data d = {0};
	struct explain_sample *samples = NULL;
	size_t nsamples = 0;
	bool interrupted = false;
	int rc = EXIT_OK;

	memset(&wc, 0, sizeof(wc));
	opt_defaults(SCOPE_EXPLAIN, &xc);
	opt_defaults(SCOPE_WATCH, &wc);
	if (opt_parse(argc, argv, SCOPE_GLOBAL | SCOPE_EXPLAIN | SCOPE_WATCH, &a, &e) ||
	    cli_no_extra_args(&a, 0, "watch", &e) || cli_globals(&a, &g, &e) || cli_check_outputs(&g, &e) ||
	    cli_explain(&a, &xc, &e) || watch_cfg_from(&a, &wc, &e) || select_threads(&wc, &sel, &e)) {
		opt_args_free(&a);
		return err_print(&e);
	}
	opt_args_free(&a);

	struct trace *t;
	struct trace_opts o = {.buffer_kb = xc.buffer / 1024, .memory_cap = EXPLAIN_MEMORY_CAP,
	                       .comms = sel.comms[0] ? (const char *const *)sel.comms : NULL};
	sig_block_stop();
	if (trace_start(&t, &o, &e)) {
		err_prefix(&e, "watch");
		return err_print(&e);
	}
	for (int i = 0; i < sel.ntids; i++)
		trace_watch_tid(t, sel.tids[i]);
	int64_t start_rt = clock_ns(CLOCK_REALTIME), start = clock_ns(CLOCK_MONOTONIC), until = start + wc.duration;
	for (int64_t now = start; now < until; now = clock_ns(CLOCK_MONOTONIC))
		if (sig_wait_stop(until - now < 100000000 ? until - now : 100000000)) {
			interrupted = true;
			break;
		}
	int32_t tids[MAX_TIDS];
	int ntids = trace_watched_tids(t, tids, MAX_TIDS);
	int64_t end = clock_ns(CLOCK_MONOTONIC);
	struct err run_err = {0};
	if (trace_stop(t, &d, &run_err))
		err_print(&run_err);
	if (fill(&r, &d, tids, ntids, &wc, &samples, &nsamples, &e))
		goto out;
	env_capture(&r.env);
	r.cmdline = cli_cmdline(argc, argv);
	r.start_realtime_ns = start_rt;
	r.end_realtime_ns = start_rt + (end - start);
	r.duration_ns = end - start;
	r.interrupted = interrupted;
	char buf[64];
	kvlist_set(&r.settings, "watch-for", units_format_duration(buf, sizeof(buf), wc.duration));
	if (!r.nthreads)
		fprintf(stderr, "irt: watch: no selected thread woke up in %s (is it running, and does it sleep?)\n",
		        units_human_duration(buf, sizeof(buf), end - start));
	explain_analyse(&d, samples, nsamples, xc.threshold, &r);
	if (cli_output(&r, &g, &e))
		goto out;
	rc = interrupted ? EXIT_INTERRUPTED : run_err.code ? run_err.code : EXIT_OK;
out:
	if (e.code)
		rc = err_print(&e);
	free(samples);
	trace_data_free(&d);
	result_free(&r);
	return rc;
}

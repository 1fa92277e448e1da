/* irt monitor: a low-duty probe that runs for weeks, as OSADL's QA farm runs cyclictest, and
 * exposes what it measured to Prometheus through node_exporter's textfile collector.
 *
 * Why a textfile and not an HTTP /metrics port: irt often runs as root with real-time
 * priority, and a listening socket in such a process is attack surface for no gain;
 * node_exporter already serves HTTP (with its TLS and auth configuration) on every machine
 * that is scraped, and it reads *.prom files from a directory. The file is replaced atomically
 * (write_atomic), so a scrape sees the previous interval or this one, never half of one, and
 * scrapes never wake irt: between intervals it only sleeps.
 *
 * Each interval is one probe session (the same code as irt probe); its histograms are added to
 * the totals since the monitor started, which is what Prometheus histograms are (cumulative
 * counters): rate() and histogram_quantile() give any window's latency. */
#include "cmd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"
#include "linux/env.h"
#include "linux/probe.h"
#include "linux/signals.h"
#include "out/openmetrics.h"
#include "probe_cfg.h"
#include "units.h"
#include "trust.h"
#include "util.h"

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void add_session(struct result *total, const struct result *r)
{
	for (int i = 0; i < total->nthreads && i < r->nthreads; i++) {
		struct result_thread *t = &total->threads[i];
		const struct result_thread *s = &r->threads[i];
		hist_merge(&t->wake, &s->wake);
		hist_merge(&t->resp, &s->resp);
		t->samples += s->samples;
		t->overruns += s->overruns;
		t->skipped += s->skipped;
		t->deadlines_met += s->deadlines_met;
		t->deadlines_missed += s->deadlines_missed;
		if (!t->name[0]) {
			memcpy(t->name, s->name, sizeof(t->name));
			memcpy(t->role, s->role, sizeof(t->role));
			kvlist_copy(&t->settings, &s->settings);
			t->timer_slack_ns = s->timer_slack_ns;
		}
	}
	total->duration_ns += r->duration_ns;
	total->end_realtime_ns = r->end_realtime_ns;
	memcpy(total->memory_lock, r->memory_lock, sizeof(total->memory_lock));   /* each session's locking is alike */
}

/* The textfile: the totals, then the monitor's own cost, so its overhead is watched too. */
static int write_textfile(const char *path, const struct result *total, int64_t intervals, double cpu, double wall,
                          struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = xmemstream(&buf, &len);
	openmetrics_render_body(m, total);
	/* all three only grow while the monitor runs: counters, their samples named _total */
	fprintf(m, "# TYPE irt_monitor_intervals counter\n# HELP irt_monitor_intervals Probe sessions since the monitor "
	           "started.\nirt_monitor_intervals_total %lld\n", (long long)intervals);
	fprintf(m, "# TYPE irt_monitor_cpu_seconds counter\n# UNIT irt_monitor_cpu_seconds seconds\n# HELP "
	           "irt_monitor_cpu_seconds CPU time irt monitor itself used (user + system, all threads).\n"
	           "irt_monitor_cpu_seconds_total %.6f\n", cpu);
	fprintf(m, "# TYPE irt_monitor_wall_seconds counter\n# UNIT irt_monitor_wall_seconds seconds\n# HELP "
	           "irt_monitor_wall_seconds Time since the monitor started.\nirt_monitor_wall_seconds_total %.6f\n", wall);
	fprintf(m, "# TYPE irt_monitor_last_write_timestamp_seconds gauge\n# UNIT irt_monitor_last_write_timestamp_seconds "
	           "seconds\n# HELP irt_monitor_last_write_timestamp_seconds When this file was written (Unix time).\n"
	           "irt_monitor_last_write_timestamp_seconds %.3f\n# EOF\n", (double)clock_ns(CLOCK_REALTIME) / 1e9);
	fclose(m);
	int rc = write_atomic(path, buf, len, e);
	free(buf);
	return rc;
}

int cmd_monitor(int argc, char **argv)
{
	struct err e = {0};
	struct opt_args a;
	struct global_cfg g;
	struct monitor_cfg mc;
	struct probe_cfg *cfgs = NULL;
	int ncfgs = 0, rc = EXIT_OK;
	bool mlock, interrupted = false;
	struct result total = {0};

	memset(&mc, 0, sizeof(mc));
	opt_defaults(SCOPE_MONITOR, &mc);
	if (opt_parse(argc, argv, SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_MONITOR, &a, &e) || cli_no_extra_args(&a, 0, "monitor", &e) ||
	    cli_globals(&a, &g, &e))
		goto fail_args;
	for (int i = 0; i < a.n; i++) {
		const struct opt *o = a.items[i].opt;
		if ((o->scope & SCOPE_MONITOR) && opt_set(o, &mc, a.items[i].value, a.items[i].where, &e))
			goto fail_args;
	}   /* the options it refuses and its --format values: its entry in main.c's command table */
	if (cli_check_output("--textfile", mc.textfile, &e))
		goto fail_args;
	/* every session lasts one interval */
	char interval[32];
	units_format_duration(interval, sizeof(interval), mc.interval);
	struct opt_item it = {.opt = opt_find("duration"), .value = interval, .segment = 0};
	snprintf(it.where, sizeof(it.where), "--interval");
	struct opt_args with = a;
	with.items = xcalloc((size_t)a.n + 1, sizeof(*with.items));
	with.items[0] = it;
	memcpy(with.items + 1, a.items, sizeof(*a.items) * (size_t)a.n);
	with.n = a.n + 1;
	rc = probe_cfgs_from_args(&with, &cfgs, &ncfgs, &mlock, &e);
	free(with.items);
	if (rc)
		goto fail_args;
	opt_args_free(&a);

	int nthreads = probe_thread_count(cfgs, ncfgs);
	if (result_init(&total, "monitor", nthreads, &e))
		goto out;
	total.cmdline = cli_cmdline(argc, argv);
	env_capture(&total.env);
	total.start_realtime_ns = clock_ns(CLOCK_REALTIME);

	sig_block_stop();
	int64_t t0 = mono_ns();
	double cpu0 = cpu_seconds();
	int64_t intervals = 0;
	fprintf(stderr, "irt monitor: %d probe thread%s, metrics to %s every %s%s\n", nthreads, nthreads == 1 ? "" : "s",
	        mc.textfile, interval, mc.run_for ? "" : " until SIGINT/SIGTERM");
	while (!interrupted && (!mc.run_for || mono_ns() - t0 < mc.run_for)) {
		struct result r = {0};
		struct probe_session *s;
		struct probe_opts po = {.mlock = mlock, .seed = (uint64_t)g.seed + (uint64_t)intervals};
		int64_t left = mc.run_for ? mc.run_for - (mono_ns() - t0) : mc.interval;
		for (int i = 0; i < ncfgs && left < mc.interval; i++)   /* the last session ends with --for */
			cfgs[i].duration = left > cfgs[i].period ? left : cfgs[i].period;
		if (result_init(&r, "monitor", nthreads, &e) || probe_start(&s, cfgs, ncfgs, &po, &r, &e)) {
			result_free(&r);
			goto out;
		}
		struct global_cfg quiet = g;
		quiet.quiet = true;
		probe_run_session(s, &quiet, &interrupted);
		struct err run_err = {0};
		if (probe_finish(s, &r, &run_err)) {
			result_free(&r);
			e = run_err;
			goto out;
		}
		add_session(&total, &r);
		result_free(&r);
		intervals++;
		if (write_textfile(mc.textfile, &total, intervals, cpu_seconds() - cpu0, (double)(mono_ns() - t0) / 1e9, &e))
			goto out;
		if (g.format == FORMAT_OPENMETRICS)
			openmetrics_render(stdout, &total);
		fflush(stdout);
		if (ferror(stdout))   /* its reader is gone (SIGPIPE is ignored; --textfile - too): no one to monitor for */
			break;
	}
	double cpu = cpu_seconds() - cpu0, wall = (double)(mono_ns() - t0) / 1e9;
	fprintf(stderr, "irt monitor: %lld interval%s in %.1f s; its own CPU time %.3f s (%.3f %% of one CPU)\n",
	        (long long)intervals, intervals == 1 ? "" : "s", wall, cpu, wall > 0 ? 100 * cpu / wall : 0);
out:
	result_free(&total);
	free(cfgs);
	return e.code ? err_print(&e) : rc;
fail_args:
	opt_args_free(&a);
	free(cfgs);
	return err_print(&e);
}

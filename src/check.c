/* The default check (`irt` with no arguments, `make demo`): in about 30 s, what a CPU load does
 * to an interactive task on this machine, and what one better-suited setting does about it.
 * Three runs of the x persona (every 10 ms, 1 ms of work, 1 MiB touched): idle; under a CPU
 * load of twice the CPU count with the default policy; under the same load with SCHED_FIFO
 * (root) or a short EEVDF slice (anyone). Where PM QoS can be held (root), a fourth idle run
 * with it the other way round shows whether idle states shape the figures. Prints a verdict
 * and writes irt-report.html. */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "linux/conditions.h"
#include "linux/knob.h"
#include "linux/signals.h"
#include "out/html.h"
#include "out/report.h"
#include "run.h"
#include "stats.h"
#include "units.h"
#include "util.h"

#define REPORT_PATH "irt-report.html"   /* unless -o FILE */

struct phase {
	const char *label;
	const char *what;
	bool loaded, better;
	bool pm_flip;   /* the fourth line: idle with PM QoS the other way round (held at 0, or not) */
};

static const struct phase phases[] = {
	{"idle", "idle", false, false, false},
	{"loaded", "under load, default policy", true, false, false},
	{"loaded+setting", "under load, better setting", true, true, false},
	{"idle+pmqos", NULL, false, false, true},   /* what: set by cmd_check */
};
#define NPHASES ((int)(sizeof(phases) / sizeof(phases[0])))

/* One phase through the same code as `irt run`. pm_qos: the --pm-qos value for it. */
/* --explain and --explain-threshold of irt check, passed on to every phase */
static const char *explain_argv[3];
/* the check's command line as the user gave it: each part's result records it, with what
 * that part measured as a comment (the parts' own arguments are no command irt accepts) */
static char *user_cmdline;

static int run_phase(const struct phase *ph, const char *load, const char *const *setting, const char *pm_qos,
                     struct result *r, bool *interrupted, struct err *e)
{
	const char *argv[32];
	int argc = 0;
	argv[argc++] = "check";
	const char *base[] = {"--persona", "x", "-D", "6s", "--warmup", "1s", "-q", "--name", ph->label};
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		argv[argc++] = base[i];
	if (ph->loaded) {
		argv[argc++] = "--load";
		argv[argc++] = load;
	}
	for (int i = 0; ph->better && setting[i]; i++)
		argv[argc++] = setting[i];
	argv[argc++] = "--pm-qos";
	argv[argc++] = pm_qos;
	for (int i = 0; explain_argv[i]; i++)
		argv[argc++] = explain_argv[i];
	argv[argc] = NULL;

	struct opt_args cli = {0}, all = {0};
	struct job job;
	struct run run;
	struct err run_err = {0};
	int rc = run_collect_args(argc, (char **)argv, SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN | SCOPE_COND | SCOPE_EXPLAIN, "check", &cli,
	                          &job, NULL, &all, e);
	if (!rc)
		rc = run_configure(&run, &all, &job, e);
	if (!rc) {
		run.quiet_status = true;
		rc = run_execute(&run, r, interrupted, &run_err, e);
		run_free(&run);
	}
	if (!rc) {
		const char *what[32];   /* the part's settings: its arguments but check, -q, --name */
		int nw = 0;
		for (int i = 1; i < argc; i++)
			if (strcmp(argv[i], "-q") && strcmp(argv[i], "--name") && argv[i] != ph->label)
				what[nw++] = argv[i];
		char *part = cli_cmdline(nw, (char **)what);
		size_t len = strlen(user_cmdline) + strlen(part) + 64;
		r->cmdline = xmalloc(len);
		snprintf(r->cmdline, len, "%s   # part %s: %s", user_cmdline, ph->label, part);
		free(part);
		if (run_err.code)
			err_print(&run_err);
	}
	free(all.items);
	opt_args_free(&cli);
	jobfile_free(&job);
	return rc;
}

static int64_t p99(const struct result *r)
{
	return r->nthreads ? hist_percentile(&r->threads[0].wake, 99) : 0;
}

enum verdict check_effect(int64_t loaded, int64_t with)
{
	/* one run each, too few samples for the statistics' single-run verdict at p99: a ratio
	 * beyond CHECK_CLEAR_RATIO either way is called a difference, anything closer is not */
	if ((double)with * CHECK_CLEAR_RATIO < (double)loaded)
		return VERDICT_BETTER;
	if ((double)with > (double)loaded * CHECK_CLEAR_RATIO)
		return VERDICT_WORSE;
	return VERDICT_SAME;
}

int check_noisy(const struct result *rs, int n)
{
	for (int i = 0; i < n; i++)
		if (rs[i].context.noisy)
			return i;
	return -1;
}

/* The fourth line: what holding PM QoS (or not) changes about idle wake-ups, measured. Idle
 * runs on a busy machine say nothing about idle states: then no verdict. */
static void pm_qos_note(const struct result *plain, const struct result *held, const char *held_at)
{
	int64_t a = hist_percentile(&plain->threads[0].wake, 50), b = hist_percentile(&held->threads[0].wake, 50);
	char x[32], y[32];
	const char *drv = kvlist_get(&plain->conditions, "cpuidle.driver");
	units_human_duration(x, sizeof(x), a);
	units_human_duration(y, sizeof(y), b);
	printf("PM QoS: idle wake-up p50 %s without a hold, %s held at %s", x, y, held_at);
	if (plain->context.noisy || held->context.noisy) {
		printf(": the machine was busy, so this says nothing about idle states (repeat when it is quiet).\n");
		return;
	}
	bool shapes = b > 0 && (double)a / (double)b > 1.2;
	printf(": %s.\n", shapes ? "idle-state exit shapes the idle figures here" : "no clear effect of idle states here");
	if (shapes)
		printf("        (cpuidle %s) irt holds nothing unless asked (--pm-qos), as an interactive application runs;\n"
		       "        --pm-qos 0 measures as cyclictest does by default.\n", drv && drv[0] ? drv : "?");
}

/* --explain: the loaded phase's top blockers in one line (the report has the rest) */
static void explain_line(const struct result *r)
{
	const struct result_explain *x = &r->explain;
	if (!x->present)
		return;
	if (strcmp(x->source, "tracefs")) {
		printf("Why late: not traced (%s).\n", x->reason);
		return;
	}
	char a[32], b[32];
	printf("Why late under load (wake-ups >= %s):", units_human_duration(a, sizeof(a), x->threshold_ns));
	int shown = 0;
	for (int i = 0; i < x->nblockers && shown < 3; i++) {
		const struct result_blocker *bl = &x->blockers[i];
		if (!strcmp(bl->kind, "cgroup"))
			continue;
		printf("%s %s %s (%s) %.0f%% of the tail, %s", shown ? ";" : "", bl->kind, bl->name, bl->policy[0] ? bl->policy : "-",
		       100.0 * bl->share, units_human_duration(b, sizeof(b), bl->total_ns));
		shown++;
	}
	if (x->events_lost)
		printf("; %llu events lost", (unsigned long long)x->events_lost);
	printf("%s\n", shown ? "" : " nothing explained");
}

int cmd_check(int argc, char **argv)
{
	struct err e = {0};
	struct opt_args args;
	int64_t held_us;
	/* only --pm-qos, --explain, -o (the report, as for irt report) and -q: the command table
	 * (main.c) refuses anything else rather than run 20 s ignoring it */
	struct explain_cfg xc;
	struct global_cfg g;
	opt_defaults(SCOPE_EXPLAIN, &xc);
	if (opt_parse(argc, argv, opt_find_command("check")->scopes, &args, &e) || cli_no_extra_args(&args, 0, "check", &e))
		goto bad_args;
	/* the report's place is checked before anything is measured (it used to fail after 20 s) */
	if (cli_globals(&args, &g, &e) || conditions_pm_qos_arg(&args, &held_us, &e) || cli_explain(&args, &xc, &e) ||
	    cli_check_report_output("check", g.json[0] ? "-o" : "-o " REPORT_PATH " (the default)",
	                            g.json[0] ? g.json : REPORT_PATH, &e))
		goto bad_args;
	if (!strcmp(g.json, "-")) {   /* stdout carries the verdict */
		err_set(&e, EXIT_USAGE, "-o: '-' is not a place for the check's report (give a file name)");
		goto bad_args;
	}
	opt_args_free(&args);
	user_cmdline = cli_cmdline(argc, argv);
	const char *report_path = g.json[0] ? g.json : REPORT_PATH;
	static char threshold[64];
	int nx = 0;
	if (xc.explain) {
		explain_argv[nx++] = "--explain";
		if (xc.threshold > 0) {
			snprintf(threshold, sizeof(threshold), "--explain-threshold=%lldns", (long long)xc.threshold);
			explain_argv[nx++] = threshold;
		}
	}
	explain_argv[nx] = NULL;
	char user_pm[32] = "none";
	if (held_us >= 0)
		snprintf(user_pm, sizeof(user_pm), "%lldus", (long long)held_us);
	/* the fourth line needs to hold PM QoS (root): with a hold given, idle without it */
	struct err why = {0};
	struct knob_ctx kc;
	memset(&kc, 0, sizeof(kc));
	bool can_flip = knob_available(knob_find("pm.dma_latency"), &kc, &why) == 0;
	const char *flip_pm = held_us >= 0 ? "none" : "0";
	char flip_what[64];
	snprintf(flip_what, sizeof(flip_what), held_us >= 0 ? "idle, PM QoS not held" : "idle, PM QoS held at 0us");
	int nphases = can_flip ? NPHASES : NPHASES - 1;
	struct result rs[NPHASES];
	int done = 0, rc = EXIT_OK;
	bool interrupted = false;
	memset(rs, 0, sizeof(rs));

	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char load[64];
	snprintf(load, sizeof(load), "cpu:threads=%ld", 2 * (ncpu > 0 ? ncpu : 1));
	/* root can give the interactive task a real-time policy; anyone can ask EEVDF for a
	 * shorter slice, which gives its wake-ups earlier virtual deadlines */
	static const char *const fifo[] = {"--policy", "fifo", "--prio", "50", NULL};
	static const char *const slice[] = {"--slice", "1ms", NULL};
	struct err no_rt = {0};   /* root, CAP_SYS_NICE or RLIMIT_RTPRIO 50; why not, said below */
	bool rt = knob_thread_permitted(POL_FIFO, 50, 0, &no_rt) == 0;
	const char *const *setting = rt ? fifo : slice;
	const char *setting_name = rt ? "SCHED_FIFO priority 50" : "an EEVDF slice of 1 ms (--slice 1ms)";

	printf("irt default check: an interactive task (persona x: every 10 ms, 1 ms of CPU, 1 MiB touched)\n"
	       "idle, then beside %s (2 per CPU), then with %s%s; about %d s.\n\n", load, setting_name,
	       !can_flip ? "" : held_us >= 0 ? ", then idle without the PM QoS hold" : ", then idle with PM QoS held at 0us",
	       can_flip ? 28 : 21);
	fflush(stdout);
	sig_block_stop();
	for (int i = 0; i < nphases && !interrupted; i++) {
		const char *what = phases[i].pm_flip ? flip_what : phases[i].what;
		if (!g.quiet)   /* the check's live status, which -q leaves out as other commands' */
			fprintf(stderr, "  %d/%d %s...\n", i + 1, nphases, what);
		if (run_phase(&phases[i], load, setting, phases[i].pm_flip ? flip_pm : user_pm, &rs[i], &interrupted, &e))
			goto out;
		done = i + 1;
	}
	int complete = interrupted ? done - 1 : done;   /* the interrupted part is shown, marked */

	printf("%-28s %10s %10s %10s %10s %9s\n", "", "wake p50", "wake p99", "wake max", "resp p99", "met %");
	for (int i = 0; i < done; i++) {
		const struct result_thread *t = &rs[i].threads[0];
		char a[32], b[32], c[32], d[32];
		uint64_t dl = t->deadlines_met + t->deadlines_missed;
		printf("%-28s %10s %10s %10s %10s %9.2f%s\n", phases[i].pm_flip ? flip_what : phases[i].what,
		       units_human_duration(a, sizeof(a), hist_percentile(&t->wake, 50)),
		       units_human_duration(b, sizeof(b), p99(&rs[i])),
		       units_human_duration(c, sizeof(c), t->wake.count ? t->wake.max : 0),
		       units_human_duration(d, sizeof(d), hist_percentile(&t->resp, 99)),
		       dl ? 100.0 * (double)t->deadlines_met / (double)dl : 0.0, i < complete ? "" : "  (interrupted)");
	}
	if (done >= NPHASES - 1) {
		char a[32], b[32], c[32];
		units_human_duration(a, sizeof(a), p99(&rs[0]));
		units_human_duration(b, sizeof(b), p99(&rs[1]));
		units_human_duration(c, sizeof(c), p99(&rs[2]));
		const char *verb = p99(&rs[1]) > p99(&rs[0]) ? "grows" : p99(&rs[1]) < p99(&rs[0]) ? "goes" : "stays";
		printf("\nUnder load your interactive p99 wake-up latency %s from %s to %s; ", verb, a, b);
		switch (check_effect(p99(&rs[1]), p99(&rs[2]))) {
		case VERDICT_BETTER: printf("%s brings it down to %s.\n", setting_name, c); break;
		case VERDICT_WORSE: printf("%s makes it worse: %s.\n", setting_name, c); break;
		default: printf("%s makes no clear difference (%s).\n", setting_name, c); break;
		}
		int noisy = check_noisy(rs, done);
		if (noisy >= 0)
			printf("Note: the machine was busy with other work (%s: %s); repeat before trusting small differences.\n",
			       phases[noisy].pm_flip ? flip_what : phases[noisy].what, rs[noisy].context.noisy_why);
		if (done == NPHASES)
			pm_qos_note(held_us >= 0 ? &rs[3] : &rs[0], held_us >= 0 ? &rs[0] : &rs[3],
			            held_us >= 0 ? user_pm : "0us");
		else if (!can_flip)
			printf("PM QoS: %s; whether idle states shape these figures needs a hold to measure (%s).\n",
			       held_us >= 0 ? "held" : "not held", why.msg);
		if (!rt)
			printf("SCHED_FIFO: not measured (%s); the better setting is an EEVDF slice instead.\n", no_rt.msg);
		explain_line(&rs[1]);
		printf("One run each: for decisions, repeat and compare (irt sweep, irt compare).\n");
	}

	const struct result *ptrs[NPHASES];
	const char *labels[NPHASES];
	for (int i = 0; i < done; i++) {
		ptrs[i] = &rs[i];
		labels[i] = phases[i].label;
	}
	struct report_in in = {.rs = ptrs, .n = done, .labels = labels, .title = "irt default check"};
	if (done && report_html(&in, report_path, &e))
		goto out;
	if (done && strcmp(report_path, "-"))
		printf("Report: %s (histograms, percentile spectra, CPU accounting).\n", report_path);
	if (interrupted) {
		char x[16], y[16];
		snprintf(x, sizeof(x), "%d", complete);
		snprintf(y, sizeof(y), "%d parts", nphases);
		cli_interrupted(x, y, done > 0);   /* the report holds the parts done */
	}
	rc = interrupted ? EXIT_INTERRUPTED : EXIT_OK;
out:
	if (e.code)
		rc = err_print(&e);
	for (int i = 0; i < NPHASES; i++)
		result_free(&rs[i]);
	free(user_cmdline);
	return rc;
bad_args:
	opt_args_free(&args);
	return err_print(&e);
}

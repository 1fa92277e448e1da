/* irt: command dispatch only. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "sweep.h"
#include "cmd_knobs.h"
#include "fleet.h"
#include "linux/journal.h"
#include "linux/load.h"
#include "linux/sysfile.h"
#include "opt.h"
#include "probe_cfg.h"
#include "sim/sim.h"
#include "util.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct command_info commands[] = {
	{"probe", "irt probe [OPTIONS] [--name NAME [OPTIONS]]...",
	 "periodic wake-ups to absolute deadlines: wake-up latency and response time histograms",
	 SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_COND | SCOPE_GATE | SCOPE_EXPLAIN, cmd_probe, NULL, NULL, NULL},
	{"run", "irt run [JOB.ini] [OPTIONS] [--load TYPE[:K=V,...]]... [--name NAME [OPTIONS]]...",
	 "probe threads under background loads irt starts and reaps, with per-thread CPU accounting",
	 SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN | SCOPE_COND | SCOPE_GATE | SCOPE_EXPLAIN, cmd_run, NULL, NULL, NULL},
	{"sweep", "irt sweep [JOB.ini] [OPTIONS] --sweep KEY=V1,V2,... [--pid PID,... | --comm NAME,... | --cgroup DIR | --all] | irt sweep --resume DIR",
	 "the same run (probes, or a watch of applications' threads) under every combination of knob/option values, repeated in shuffled rounds, with verdicts",
	 SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN | SCOPE_SWEEP | SCOPE_REPORT | SCOPE_KNOB | SCOPE_COND | SCOPE_GATE | SCOPE_EXPLAIN | SCOPE_WATCH, cmd_sweep,
	 /* it writes sweep.json and compare.json into its directory (irt compare DIR --json/--csv,
	  * irt report DIR --svg give the rest) and holds knobs for each run */
	 (const char *const[]){"json", "csv", "hist-buckets", "hist-sum", "svg", "hold", "stop-above", NULL},
	 (const char *const[]){"table", "none", NULL}, NULL},
	{"compare", "irt compare [OPTIONS] RESULT.json... | irt compare [OPTIONS] SWEEP-DIR|FLEET-DIR",
	 "are the differences between saved results real? medians, 95% CIs, ratios vs a baseline, verdicts",
	 SCOPE_GLOBAL | SCOPE_REPORT | SCOPE_GATE, cmd_compare, (const char *const[]){"hist-buckets", "hist-sum", NULL},
	 (const char *const[]){"table", "none", NULL}, NULL},
	{"report", "irt report RESULT|DIR|FLEET-DIR ... [-o report.html] [--svg DIR] [--format text|html|none]",
	 "HTML, SVG and text reports of results and sweeps: histograms, percentile spectra, verdicts",
	 SCOPE_GLOBAL | SCOPE_REPORT, cmd_report, (const char *const[]){"csv", "hist-buckets", "hist-sum", NULL},   /* the HTML report is -o FILE */
	 (const char *const[]){"table", "text", "html", "none", NULL}, NULL},   /* table: the text report */
	{"watch", "irt watch (--pid PID,... | --comm NAME,... | --cgroup DIR | --all [--by-cpu] [--top N]) [--watch-for DURATION] [--load TYPE[:K=V,...]]... [OPTIONS]",
	 "real applications' threads, alone or beside irt's loads: wake-up latency and response histograms from scheduler events, and why the tail was late; "
	 "or with --all every task's run-queue latency, as runqlat (root)",
	 SCOPE_GLOBAL | SCOPE_RUN | SCOPE_COND | SCOPE_EXPLAIN | SCOPE_WATCH, cmd_watch,
	 (const char *const[]){"attribute", NULL}, NULL, NULL},   /* the split of a probe's lateness */
	CMD_KNOBS_INFO,
	CMD_RESTORE_INFO,
	{"check", "irt check [--pm-qos none|LATENCY] [--explain] [-o REPORT.html] [-q]", "the default check (also irt with no arguments or with only its options): interactive latency idle, under load, and with a better setting; writes irt-report.html (or -o FILE)",
	 SCOPE_GLOBAL | SCOPE_COND | SCOPE_EXPLAIN, cmd_check,
	 /* its output is the verdict and the HTML report (-o); -q leaves out the progress lines */
	 (const char *const[]){"format", "csv", "seed", "hist-buckets", "hist-sum", NULL}, NULL, NULL},
	{"sim", "irt sim WORKLOAD [OPTIONS] | irt sim --like RESULT.json [OPTIONS] | irt sim --step FILE",
	 "simulate scheduling policies (base-hw quota, CFS bandwidth, EDF, EEVDF, BVT) on a workload, same metrics as probes",
	 SCOPE_GLOBAL | SCOPE_SIM | SCOPE_SIM_THREAD | SCOPE_GATE, cmd_sim, NULL, NULL, NULL},
	{"fleet", "irt fleet slurm|parallel DIR [OPTIONS] -- probe|run|sweep|sim ARGS...",
	 "run a measurement on every node of a Slurm job array or over GNU parallel --sshlogin hosts, into DIR/<machine>/",
	 SCOPE_FLEET, cmd_fleet, NULL, NULL, NULL},
	{"monitor", "irt monitor [OPTIONS] [--textfile FILE] [--interval DURATION]",
	 "low-duty continuous probe for production latency monitoring: a node_exporter textfile, replaced every interval",
	 SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_MONITOR, cmd_monitor,
	 /* it measures in sessions of --interval, for --for, into --textfile */
	 (const char *const[]){"json", "csv", "hist-buckets", "hist-sum", "count", "duration", "stop-above", NULL},
	 (const char *const[]){"none", "openmetrics", NULL}, NULL},
	{"noise", "irt noise [--cpus LIST] [--runtime DURATION] [--period DURATION] [--threshold DURATION] [-D DURATION] [--explain] [OPTIONS]",
	 "OS and hardware noise per CPU, as rtla osnoise: a pinned spinner reading the clock, every gap above --threshold "
	 "counted; the host's steal time; with --explain (root) each gap attributed to IRQs, softirqs, NMIs, threads, or "
	 "none: hardware or host",
	 SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_NOISE | SCOPE_EXPLAIN, cmd_noise,
	 /* of the probe rows it takes only period, duration, policy, prio, cpus, no-mlock */
	 (const char *const[]){"csv", "seed", "hist-buckets", "hist-sum", "name", "persona", "count", "deadline", "relative",
	                       "overrun", "slack", "touch", "touch-pattern", "burn", "threads", "nice", "slice",
	                       "dl-runtime", "dl-deadline", "dl-period", "rt-guard", "stop-above", "per-cpu", "aligned", "aligned-offset",
	                       "inject-stall", "explain-threshold", NULL},
	 (const char *const[]){"table", "none", NULL},
	 (const char *const[]){"period=1s", "duration=10s", NULL}},
	{"help", "irt help [COMMAND | personas | loads | --man]", "this help; topics: a command, personas, loads; 'irt help --man' prints the man page", 0, cmd_help, NULL, NULL, NULL},
	{"version", "irt version", "print the version", 0, cmd_version, NULL, NULL, NULL},
};
static const int ncommands = sizeof(commands) / sizeof(commands[0]);


static int cmd_version(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "irt: version: unexpected argument (irt version takes none)\n");
		return 2;
	}
	printf("irt %s\n", IRT_VERSION_STRING);
	return 0;
}

static void help_personas(FILE *f)
{
	fprintf(f, "personas (--persona NAME; explicit options override their values):\n");
	for (int i = 1; personas[i].name; i++) {
		fprintf(f, "  %-8s %s\n          ", personas[i].name, personas[i].summary);
		for (const char *const *s = personas[i].settings; *s; s++)
			fprintf(f, " --%s", *s);
		fprintf(f, "\n");
	}
}

/* Help topics that are not commands (option help and the man page point to them). */
static const struct {
	const char *name;
	void (*print)(FILE *f);
} topics[] = {
	{"personas", help_personas},
	{"loads", load_print_help},
};
static const int ntopics = sizeof(topics) / sizeof(topics[0]);

static int cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "irt: help: one topic at a time (irt help [COMMAND | personas | loads | --man])\n");
		return 2;
	}
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		opt_print_help(stdout, commands, ncommands, NULL);
		return 0;
	}
	if (strcmp(argv[1], "--man") == 0) {
		opt_print_man(stdout, commands, ncommands);
		return 0;
	}
	for (int i = 0; i < ntopics; i++)
		if (strcmp(argv[1], topics[i].name) == 0) {
			topics[i].print(stdout);
			return 0;
		}
	const struct command_info *c = opt_find_command(argv[1]);
	if (!c) {
		struct err e = {0};
		err_set(&e, EXIT_USAGE, "help: unknown command or topic '%s' (topics: personas, loads; see irt help)",
		        argv[1]);
		return err_print(&e);
	}
	opt_print_help(stdout, commands, ncommands, c);
	return 0;
}

/* 1 when the command line asks for help; -1 (said on stderr) for "-h N": cyclictest's
 * histogram option, which must not print help and exit 0 in a script that wanted a histogram */
static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			const char *v = i + 1 < argc ? argv[i + 1] : "";
			if (v[0] && strspn(v, "0123456789") == strlen(v)) {
				fprintf(stderr, "irt: %s: takes no value, got '%s' (-h is help; cyclictest's -h N histogram is "
				        "--format cyclictest --hist-buckets N)\n", argv[i], v);
				return -1;
			}
			return 1;
		}
	return 0;
}

/* A stdout that could not be written (its reader gone: EPIPE, or a full disk: ENOSPC) is said
 * once, after the command saved its files and restored the tunables, with the errno of the
 * write that failed (stdout_track): exit 1 unless the command failed already. */
static int stdout_status(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	int err = stdout_errno();
	fprintf(stderr, "irt: standard output: write failed (%s): only what irt printed is lost (output files are "
	        "saved)\n", err ? strerror(err) : "its reader closed it, or a full disk");
	return rc ? rc : EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
	static char *check_argv[] = {"irt", "check", NULL};
	/* a reader that closes the pipe (irt ... | head) must not kill irt before it saves its
	 * files and restores the tunables: writes fail with EPIPE instead (stdout_status) */
	signal(SIGPIPE, SIG_IGN);
	stdout_track();   /* else stdout_status could not say why a write failed */
	opt_register_commands(commands, ncommands);
	if (argc < 2) {   /* no command: the default check */
		argc = 2;
		argv = check_argv;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return wants_help(argc, argv) < 0 ? EXIT_USAGE : stdout_status(cmd_help(1, argv + 1));
	if (strcmp(argv[1], "--version") == 0)
		return stdout_status(cmd_version(1, argv + 1));
	/* the command's own argv starts at its name; options with no command are the default
	 * check's, and argv[0] (irt's name, which no command reads) becomes its name */
	int cargc = argc - 1;
	char **cargv = argv + 1;
	if (argv[1][0] == '-' && argv[1][1]) {
		argv[0] = "check";
		cargc = argc;
		cargv = argv;
	}
	const struct command_info *c = opt_find_command(cargv[0]);
	if (!c) {   /* through struct err: the word is quoted escaped, on one line */
		char names[256];
		size_t n = 0;
		names[0] = 0;
		for (int i = 0; i < ncommands && n < sizeof(names); i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "", commands[i].name);
		struct err e = {0};
		err_set(&e, EXIT_USAGE, "unknown command '%s' (commands: %s; see irt help)", cargv[0], names);
		return err_print(&e);
	}
	int help = c->run != cmd_help ? wants_help(cargc, cargv) : 0;
	if (help < 0)
		return EXIT_USAGE;
	if (help) {   /* every command, options or not */
		opt_print_help(stdout, commands, ncommands, c);
		return stdout_status(0);
	}
	/* Tunables a crashed irt left changed are put back before anything else (irt restore
	 * does it itself, saying what it did). Failing that is a warning for the command; a
	 * state directory or journal root must not trust refuses every command. */
	struct err e = {0};
	if (sys_root_check(&e))
		return err_print(&e);
	if (c->run != cmd_restore && journal_recover(&e)) {
		if (e.code == EXIT_USAGE)
			return err_print(&e);
		fprintf(stderr, "irt: warning: %s\n", e.msg);
	}
	return stdout_status(c->run(cargc, cargv));
}

#include "opt.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runq.h"
#include "sim/policy.h"
#include "units.h"
#include "util.h"

#define US NSEC_PER_USEC
#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC
#define KIB (INT64_C(1) << 10)
#define MIB (INT64_C(1) << 20)
#define GIB (INT64_C(1) << 30)

static const char *const format_choices[] = {"table", "seed", "cyclictest", "none", "text", "html", "openmetrics", NULL};
const char *opt_format_name(int format)
{
	return format_choices[format];
}

static const char *const policy_choices[] = {"other", "batch", "idle", "fifo", "rr", "deadline", NULL};
static const char *const pattern_choices[] = {"seq", "random", NULL};
static const char *const overrun_choices[] = {"catch-up", "skip", NULL};
static const char *const placement_choices[] = {"same", "split", "session", NULL};
static const char *const persona_choices[] = {"none", "audio", "video", "x", "gaming", NULL};
/* order = enum rank_metric (config.h) */
static const char *const rank_metric_choices[] = {"wake-p50", "wake-p99", "wake-p99.9", "wake-max",
                                                   "resp-p50", "resp-p99", "resp-p99.9", "resp-max", NULL};

#define G(field) .scope = SCOPE_GLOBAL, .offset = offsetof(struct global_cfg, field)
#define P(field) .scope = SCOPE_PROBE, .offset = offsetof(struct probe_cfg, field)
#define R(field) .scope = SCOPE_RUN, .offset = offsetof(struct run_cfg, field)
#define REP(field) .scope = SCOPE_REPORT, .offset = offsetof(struct report_cfg, field)
#define SW(field) .scope = SCOPE_SWEEP, .offset = offsetof(struct sweep_cfg, field)
static const char *const top_by_choices[] = {"p99", "max", "total", NULL};   /* order = enum runq_rank */
static const char *const top_of_choices[] = {"thread", "process", NULL};    /* watch_cfg.top_of */
static const char *const cgroup_of_choices[] = {"probes", "loads", NULL};
static const char *const cgroup_under_choices[] = {"root", "self", NULL};

#define K(field) .scope = SCOPE_KNOB, .offset = offsetof(struct knob_cfg, field)
#define X(field) .scope = SCOPE_EXPLAIN, .offset = offsetof(struct explain_cfg, field)
#define W(field) .scope = SCOPE_WATCH, .offset = offsetof(struct watch_cfg, field)
#define GATE(field) .scope = SCOPE_GATE, .offset = offsetof(struct gate_cfg, field)
#define FL(field) .scope = SCOPE_FLEET, .offset = offsetof(struct fleet_cfg, field)
#define MON(field) .scope = SCOPE_MONITOR, .offset = offsetof(struct monitor_cfg, field)
#define C(field) .scope = SCOPE_COND, .offset = offsetof(struct cond_cfg, field)
#define N(field) .scope = SCOPE_NOISE, .offset = offsetof(struct noise_cfg, field)

#define S(field) .scope = SCOPE_SIM, .offset = offsetof(struct sim_cfg, field)
#define T(field) .scope = SCOPE_SIM_THREAD, .offset = offsetof(struct sim_thread_cfg, field)
static const char *const sim_type_choices[] = {"periodic", "sporadic", "cpu-bound", "io", "oneshot", "timer", NULL};
static const char *const sim_dist_choices[] = {"fixed", "uniform", "exponential", NULL};
static const char *const sim_end_choices[] = {"auto", "idle", "duration", NULL};   /* enum sim_end */
static const char *const sim_groups_choices[] = {"flat", "nested", NULL};           /* enum sim_groups */

/* THE option table. Order within a scope is the order of `irt help`. */
const struct opt opt_table[] = {
	/* ---- output and invocation (every command) ---- */
	{.name = "format", .short_name = 'f', .type = OPT_ENUM, G(format), .def = "table",
	 .choices = format_choices, .arg = "FORMAT",
	 .help = "output on stdout: table (summary), seed (the seed script's lines), cyclictest (its -h histogram), none, "
	         "text (the text report: tables and a percentile spectrum), html (the HTML report), "
	         "openmetrics (Prometheus/OpenMetrics text: histograms as _bucket{le=...} series)"},
	{.name = "json", .short_name = 'o', .type = OPT_STRING, G(json), .arg = "FILE",
	 .help = "write the result record as JSON (schema irt-result/1); irt knobs: the tunables (schema irt-knobs/1); "
	         "irt noise: its record (schema irt-noise/1); "
	         "irt report and irt check: write the HTML report to FILE (a FILE named *.json is refused); "
	         "'-' is standard output (with -f none where a --format prints there too)"},
	{.name = "csv", .type = OPT_STRING, G(csv), .arg = "FILE",
	 .help = "write the summary rows as CSV ('-': standard output, with -f none)"},
	{.name = "quiet", .short_name = 'q', .type = OPT_FLAG, G(quiet),
	 .help = "no live status line (irt check: no progress lines on stderr)"},
	{.name = "seed", .type = OPT_INT, G(seed), .def = "1", .min = 0, .max = INT64_MAX, .arg = "N",
	 .help = "random seed (random touch pattern, shuffles); recorded in the result"},
	{.name = "hist-buckets", .type = OPT_INT, G(hist_buckets), .def = "1000",
	 .min = 1, .max = 1000000, .arg = "N",
	 .help = "--format cyclictest: number of 1 us histogram rows (cyclictest -h N); refused with another --format"},
	{.name = "hist-sum", .type = OPT_FLAG, G(hist_sum),
	 .help = "--format cyclictest: with several threads, a last column of all threads summed, and in the "
	         "Total, Max and Overflows lines (cyclictest -H/--histofall); refused with another --format"},

	/* ---- probe threads (irt probe, irt run, [probe NAME] sections) ---- */
	{.name = "name", .type = OPT_STRING, P(name), .arg = "NAME", .printable = true,
	 .help = "start a new probe definition; options before the first --name apply to all, after it to this probe "
	         "only (-D and -n too: irt notes when the probes end up measuring for different times)"},
	{.name = "persona", .type = OPT_ENUM, P(persona), .def = "none",
	 .choices = persona_choices, .arg = "PERSONA",
	 .help = "interactive task to imitate: audio, video, x, gaming (see irt help personas); explicit options override it"},
	{.name = "period", .short_name = 'i', .type = OPT_DURATION, P(period), .def = "10ms",
	 .min = US, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "wake-up period (interval); irt noise: the duty cycle's period"},
	{.name = "count", .short_name = 'n', .type = OPT_INT, P(count), .def = "0",
	 .min = 0, .max = INT64_C(1) << 40, .arg = "N",
	 .help = "number of wake-ups per thread (0: run for --duration; with --duration too, whichever ends first)"},
	{.name = "duration", .short_name = 'D', .type = OPT_DURATION, P(duration), .def = "0",
	 .min = 0, .max = 7 * 24 * 3600 * SEC, .arg = "DURATION",
	 .help = "how long to measure (0: 10s unless --count is given; with --count too, whichever ends first)"},
	{.name = "deadline", .type = OPT_DURATION, P(deadline), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "response-time deadline per wake-up (0: the period)"},
	{.name = "relative", .type = OPT_FLAG, P(relative),
	 .help = "sleep relative to the last wake-up as the seed script did (drifts; for comparison only)"},
	{.name = "overrun", .type = OPT_ENUM, P(overrun), .def = "catch-up", .choices = overrun_choices, .arg = "RULE",
	 .help = "releases a late probe has already passed: catch-up (run and measure each, back to back: every "
	         "frame counts) or skip (as cyclictest: go on with the first release still ahead; the passed ones "
	         "are counted as skipped, not measured)"},
	{.name = "slack", .type = OPT_DURATION, P(slack), .def = "1ns",
	 .min = 1, .max = SEC, .arg = "DURATION",
	 .help = "timer slack of the probe thread (PR_SET_TIMERSLACK)"},
	{.name = "no-mlock", .type = OPT_FLAG, P(no_mlock), .help = "do not mlockall and prefault memory"},
	{.name = "touch", .type = OPT_SIZE, P(touch), .def = "0", .min = 0, .max = 64 * GIB, .arg = "SIZE",
	 .help = "working set touched once per wake-up, every cache line"},
	{.name = "touch-pattern", .type = OPT_ENUM, P(touch_pattern), .def = "seq",
	 .choices = pattern_choices, .arg = "PATTERN",
	 .help = "order of the touched cache lines: seq or random"},
	{.name = "burn", .type = OPT_DURATION, P(burn), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "calibrated CPU work per wake-up"},
	{.name = "threads", .short_name = 't', .type = OPT_INT, P(threads), .def = "1",
	 .min = 1, .max = 1024, .arg = "N",
	 .help = "probe threads of this definition"},
	{.name = "policy", .short_name = 'p', .type = OPT_ENUM, P(policy), .def = "other",
	 .choices = policy_choices, .arg = "POLICY",
	 .help = "scheduling policy: other, batch, idle, fifo, rr, deadline (irt noise: other, fifo, rr)"},
	{.name = "prio", .type = OPT_INT, P(prio), .def = "0", .min = 0, .max = 99, .arg = "N",
	 .help = "real-time priority for fifo/rr (0: 80)"},
	{.name = "nice", .type = OPT_INT, P(nice), .def = "0", .min = -20, .max = 19, .arg = "N",
	 .help = "nice value for other/batch/idle"},
	{.name = "slice", .type = OPT_DURATION, P(slice), .def = "0",
	 .min = 0, .max = 100 * MS, .arg = "DURATION",
	 .help = "EEVDF custom slice for other/batch (sched_attr.sched_runtime; 0: kernel default, else 100us..100ms)"},
	{.name = "dl-runtime", .type = OPT_DURATION, P(dl_runtime), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "SCHED_DEADLINE runtime (0: burn + 20% + 100us, rounded up)"},
	{.name = "dl-deadline", .type = OPT_DURATION, P(dl_deadline), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "SCHED_DEADLINE relative deadline (0: the period)"},
	{.name = "dl-period", .type = OPT_DURATION, P(dl_period), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "SCHED_DEADLINE period (0: the period)"},
	{.name = "rt-guard", .type = OPT_DURATION, P(rt_guard), .def = "1s",
	 .min = MS, .max = 60 * SEC, .arg = "DURATION",
	 .help = "stop a fifo/rr/deadline probe that has gone this long without sleeping, so it never spins without bound"},
	{.name = "stop-above", .type = OPT_DURATION, P(stop_above), .min = 1, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "end the measurement of every probe at the first recorded wake-up of this definition's threads later "
	         "than DURATION (as cyclictest -b); the result is saved, names the wake-up, and irt exits with status 4"},
	{.name = "cpus", .type = OPT_CPUS, P(cpus), .arg = "LIST",
	 .help = "CPUs the probe threads may run on, e.g. 1 or 0-3,6; irt noise: one spinner on each, irt's other "
	         "threads kept off them"},
	{.name = "per-cpu", .type = OPT_FLAG, P(per_cpu),
	 .help = "one probe thread per CPU of --cpus (without --cpus: every CPU irt may run on), each pinned to its CPU, "
	         "as cyclictest -S; sets --threads"},
	{.name = "aligned", .type = OPT_FLAG, P(aligned),
	 .help = "release this definition's threads together, one period after the common start of all probes, "
	         "instead of spread evenly over the period (as cyclictest -A)"},
	{.name = "aligned-offset", .type = OPT_DURATION, P(aligned_offset), .def = "0", .min = 0, .max = 3600 * SEC,
	 .arg = "DURATION",
	 .help = "--aligned, thread k (counting every probe's threads, from 0) released k x DURATION after the others' "
	         "common release (as cyclictest -A USEC); not 0, it implies --aligned"},
	{.name = "inject-stall", .type = OPT_STRING, P(inject_stall), .arg = "ITER:DURATION",
	 .help = "testing: busy-stall DURATION inside wake-up ITER (or the first after it that --overrun skip measures), to check open-loop accounting"},

	/* ---- irt sweep ---- */
	{.name = "sweep", .type = OPT_LIST, SW(sweep), .arg = "KEY=V1,V2,...",
	 .help = "vary a knob (irt knobs) or a probe/run option over these values, repeatable; use | between values that contain commas; each value once"},
	{.name = "repeat", .type = OPT_INT, SW(repeat), .def = "5", .min = 1, .max = 1000, .arg = "N",
	 .help = "repetitions of every cell, interleaved in shuffled rounds"},
	{.name = "dir", .short_name = 'd', .type = OPT_STRING, SW(dir), .arg = "DIR",
	 .help = "directory for the results: one file per cell and repetition, plan.json, compare.json, sweep.json (default sweep-DATE-TIME)"},
	{.name = "resume", .type = OPT_STRING, SW(resume), .arg = "DIR",
	 .help = "continue an interrupted sweep without redoing finished runs"},
	{.name = "until-decided", .type = OPT_FLAG, SW(until_decided),
	 .help = "after the --repeat rounds, add shuffled rounds of the undecided cells until every cell has a verdict against the baseline (better, worse, equivalent with --margin), --max-repeat or --budget; valid under this peeking (alpha spending)"},
	{.name = "budget", .type = OPT_DURATION, SW(budget), .def = "0", .min = 0, .max = 366 * 24 * 3600 * SEC,
	 .arg = "TIME", .help = "--until-decided: start no run after this much time (0: no limit; counted from this start, also on --resume)"},
	{.name = "max-repeat", .type = OPT_INT, SW(max_repeat), .def = "20", .min = 1, .max = 1000, .arg = "N",
	 .help = "--until-decided: at most this many repetitions of a cell (the alpha of every look is planned against it)"},
	{.name = "shard", .type = OPT_STRING, SW(shard), .arg = "I/N",
	 .help = "run only shard I of N of the cells (every Nth, from the Ith): shards into one --dir on a shared file "
	         "system make the whole sweep, summarised by the last shard to finish (docs/fleet.md)"},

	/* ---- CI gates (probe, run, sweep, compare, sim): docs/fleet.md ---- */
	{.name = "expect", .type = OPT_LIST, GATE(expect), .arg = "EXPR",
	 .help = "[THREAD:|CELL:]METRIC OP VALUE, repeatable, e.g. 'wake.p99<=1ms', 'met>=99.9%', 'B:verdict!=worse', "
	         "for irt sim also 'vm:completion<=30s', 'ui:share>=10%'; an unmet one exits with status 4 (results are "
	         "still saved)"},
	{.name = "junit", .type = OPT_STRING, GATE(junit), .arg = "FILE",
	 .help = "write the --expect outcomes as JUnit XML for CI systems (one test case each)"},

	/* ---- irt fleet: Slurm job arrays and GNU parallel (src/fleet.c) ---- */
	{.name = "dry-run", .type = OPT_FLAG, FL(dry_run),
	 .help = "write the script into DIR and print it; do not submit or run it"},
	{.name = "tasks", .type = OPT_INT, FL(tasks), .def = "0", .min = 0, .max = 100000, .arg = "N",
	 .help = "Slurm array tasks (0: one per --nodelist node, else 1); for sim: the number of shards"},
	{.name = "nodelist", .type = OPT_STRING, FL(nodelist), .arg = "NODES",
	 .help = "Slurm: run the tasks on these nodes only (node[01-04] syntax; the partition's other nodes are excluded)"},
	{.name = "constraint", .type = OPT_STRING, FL(constraint), .arg = "FEATURES",
	 .help = "Slurm: node features every task's node must have (sbatch --constraint)"},
	{.name = "partition", .type = OPT_STRING, FL(partition), .arg = "NAME", .help = "Slurm: the partition (sbatch --partition)"},
	{.name = "slurm-arg", .type = OPT_LIST, FL(slurm_args), .arg = "OPTION",
	 .help = "Slurm: one more sbatch option for the script, repeatable, e.g. --time=1:00:00"},
	{.name = "wait", .type = OPT_FLAG, FL(wait),
	 .help = "Slurm: wait until every array task has finished (sbatch --wait); exit 4 when a task only missed an --expect, 1 when one failed"},
	{.name = "sshlogin", .short_name = 'S', .type = OPT_LIST, FL(sshlogin), .arg = "HOSTS",
	 .help = "GNU parallel: the hosts (parallel --sshlogin; ':' is this host), repeatable"},

	/* ---- irt monitor (src/monitor.c) ---- */
	{.name = "textfile", .type = OPT_STRING, MON(textfile), .def = "/var/lib/prometheus/node-exporter/irt.prom",
	 .arg = "FILE", .help = "node_exporter textfile collector file, replaced atomically every --interval"},
	{.name = "interval", .type = OPT_DURATION, MON(interval), .def = "15s", .min = 100 * MS, .max = 24 * 3600 * SEC,
	 .arg = "DURATION", .help = "how often the metrics file is written (each interval is one probe session)"},
	{.name = "for", .type = OPT_DURATION, MON(run_for), .def = "0", .min = 0, .max = 365LL * 24 * 3600 * SEC,
	 .arg = "DURATION", .help = "stop after this long (0: until SIGINT or SIGTERM)"},

	/* ---- irt run: background loads and accounting ---- */
	{.name = "load", .short_name = 'l', .type = OPT_LIST, R(loads), .arg = "TYPE[:K=V,...]",
	 .help = "background load, repeatable: cpu, mem, pipe, fork, io, compile, cmd; TYPE:N sets its count, cpu:2 is cpu:threads=2 (see irt help loads)"},
	{.name = "warmup", .short_name = 'w', .type = OPT_DURATION, R(warmup), .def = "1s",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "run loads and probes this long before recording (a watch without loads: 0 unless given)"},
	{.name = "placement", .type = OPT_ENUM, R(placement), .def = "same",
	 .choices = placement_choices, .arg = "WHERE",
	 .help = "same: all in irt's cgroup; split: an irt cgroup each for probes and loads; session: loads in their own session (autogroup)"},
	{.name = "attribute", .type = OPT_FLAG, R(attribute),
	 .help = "split each wake-up's lateness into runqueue wait, backlog (its own previous job still running) and the rest "
	         "(three more histograms)"},

	/* ---- why was it late (docs/explain.md) ---- */
	{.name = "explain", .type = OPT_FLAG, X(explain),
	 .help = "explain every tail wake-up from the kernel's scheduler events (tracefs, root): the tasks that ran instead, "
	         "IRQs, softirqs, migration, throttling, idle exit; without tracing, says why and splits as --attribute; "
	         "irt noise: what each gap was (IRQs, softirqs, NMIs, threads, hardware or host)"},
	{.name = "explain-threshold", .type = OPT_DURATION, X(threshold), .def = "0", .min = 0, .max = 3600 * SEC,
	 .arg = "DURATION", .help = "--explain: explain wake-ups at least this late (0: the run's p99)"},
	{.name = "explain-buffer", .type = OPT_SIZE, X(buffer), .def = "4M", .min = 64 * KIB, .max = 1 * GIB,
	 .arg = "SIZE", .help = "--explain: kernel ring buffer per CPU (events lost to overruns are counted and reported)"},

	/* ---- irt watch ---- */
	{.name = "pid", .type = OPT_STRING, W(pid), .arg = "PID,...",
	 .help = "watch every thread of these processes (irt sweep: the runs watch them instead of running probes)"},
	{.name = "comm", .type = OPT_STRING, W(comm), .arg = "NAME,...",
	 .help = "watch threads with these command names (as in ps -L -o comm), also ones that start later"},
	{.name = "cgroup", .type = OPT_STRING, W(cgroup), .arg = "DIR",
	 .help = "watch the threads in this cgroup directory (its cgroup.threads or tasks file)"},
	{.name = "all", .type = OPT_FLAG, W(all),
	 .help = "watch every task on the system (as bcc's runqlat): the run-queue latency of each wake-up and each "
	         "preemption, in one histogram and a table of the worst tasks (docs/watch.md)"},
	{.name = "by-cpu", .type = OPT_FLAG, W(by_cpu),
	 .help = "--all: a histogram per CPU as well, by the CPU the task ran on (runqlat -C)"},
	{.name = "top", .type = OPT_INT, W(top), .def = "10", .min = 0, .max = RUNQ_TABLE, .arg = "N",
	 .help = "--all: the N tasks with the worst latency in the table and the result (runqlat -L)"},
	{.name = "top-by", .type = OPT_ENUM, W(top_by), .def = "p99", .choices = top_by_choices, .arg = "METRIC",
	 .help = "--all: what makes a task worst: p99, max or total (its waits summed)"},
	{.name = "top-of", .type = OPT_ENUM, W(top_of), .def = "thread", .choices = top_of_choices, .arg = "WHAT",
	 .help = "--all: the table's tasks are threads, or processes with their threads' waits together (runqlat -P)"},
	{.name = "include-irt", .type = OPT_FLAG, W(include_irt),
	 .help = "--all: irt's own threads too (left out by default)"},
	{.name = "watch-for", .type = OPT_DURATION, W(duration), .def = "10s", .min = 10 * MS, .max = 24 * 3600 * SEC,
	 .arg = "DURATION", .help = "how long to watch (after --warmup when there are loads; in a sweep, every run)"},

	/* ---- comparisons (irt compare; stats helper, docs/statistics.md) ---- */
	{.name = "baseline", .type = OPT_STRING, REP(baseline), .arg = "FILE|CELL",
	 .help = "the cell the others are compared with: one of its result files, or its letter or name (default: the first cell)"},
	{.name = "metric", .type = OPT_ENUM, REP(metric), .def = "resp-p99",
	 .choices = rank_metric_choices, .arg = "METRIC",
	 .help = "latency metric the recommendation minimises: wake-|resp- p50, p99, p99.9 or max; "
	         "irt report: the sweep metric charted (default there: the sweep summary's own)"},
	{.name = "resamples", .type = OPT_INT, REP(resamples), .def = "2000",
	 .min = 100, .max = 1000000, .arg = "N",
	 .help = "bootstrap resamples per confidence interval"},
	{.name = "min-throughput", .type = OPT_PERCENT, REP(min_throughput), .def = "90%",
	 .min = 0, .max = 1000000, .arg = "PERCENT",
	 .help = "a recommended cell keeps at least this share of the baseline's load throughput"},
	{.name = "single-run-floor", .type = OPT_PERCENT, REP(single_run_floor), .def = "0%",
	 .min = 0, .max = 100000000, .arg = "PERCENT",
	 .help = "give verdicts between single runs that differ by more than this (0%: never; runs of one setting can differ more)"},
	{.name = "margin", .type = OPT_PERCENT, REP(margin), .def = "0%", .min = 0, .max = 990000, .arg = "PERCENT",
	 .help = "verdict \"equivalent (within \u00b1PERCENT)\" when the difference is shown to lie within it (two one-sided tests; 0%: never)"},
	/* ---- tunables (irt knobs; how irt sweep applies knobs) — src/linux/knob.c ---- */
	{.name = "apply", .type = OPT_LIST, K(apply), .arg = "KNOB=VALUE",
	 .help = "irt knobs: set a knob (repeatable), hold it for --hold, then restore it"},
	{.name = "hold", .type = OPT_DURATION, K(hold), .def = "0",
	 .min = 0, .max = 7 * 24 * 3600 * SEC, .arg = "DURATION",
	 .help = "with --apply: how long to keep the settings (0: until SIGINT/SIGTERM/SIGHUP)"},
	{.name = "allow-rt-unthrottled", .type = OPT_FLAG, K(allow_rt_unthrottled),
	 .help = "permit kernel.sched_rt_runtime_us=-1 (realtime tasks may then starve the system)"},
	{.name = "cgroup-of", .type = OPT_ENUM, K(cgroup_of), .def = "probes",
	 .choices = cgroup_of_choices, .arg = "WHO",
	 .help = "which of irt's tasks the cgroup.* knobs confine: probes or loads"},
	{.name = "cgroup-under", .type = OPT_ENUM, K(cgroup_under), .def = "root",
	 .choices = cgroup_under_choices, .arg = "WHERE",
	 .help = "create irt's cgroup under the cpu hierarchy's root or under irt's own cgroup (self)"},

	/* ---- measurement conditions (irt probe, run, sweep, check; src/linux/conditions.c) ---- */
	{.name = "pm-qos", .type = OPT_STRING, C(pm_qos), .def = "none", .arg = "none|LATENCY",
	 .help = "hold the CPU latency PM QoS request (/dev/cpu_dma_latency, root) at this latency, e.g. 0 as cyclictest "
	         "does, for the run; none: measure what an interactive application meets (cpuidle as configured)"},

	/* ---- irt noise (src/cmd_noise.c, docs/noise.md); --period, --duration, --policy, --prio and
	 * --cpus are the probe rows (their defaults for irt noise: its entry in main.c) ---- */
	{.name = "runtime", .type = OPT_DURATION, N(runtime), .def = "0", .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "irt noise: spin this long of every --period and sleep the rest, as osnoise's runtime (0: 90% of the "
	         "period; it must be shorter than the period)"},
	{.name = "threshold", .type = OPT_DURATION, N(threshold), .def = "1us", .min = 1, .max = SEC, .arg = "DURATION",
	 .help = "irt noise: a gap between two clock reads longer than this is one noise event (as osnoise's threshold)"},

	/* ---- irt report (report.c): its output file is -o/--json, its stdout --format, and its
	 * sweep metric the --metric above (default: the sweep summary's own) ---- */
	{.name = "svg", .type = OPT_STRING, REP(svg), .arg = "DIR",
	 .help = "irt report: also write every chart as a standalone SVG file DIR/CHART.svg (DIR is created)"},

	/* ---- simulator (irt sim, src/sim/) ----
	 * [sim] section keys, then [thread NAME] keys. Names are unique in the table: where a
	 * natural name is taken (policy, period, ...) the row is "sim-NAME" / "thread-NAME" and
	 * workload files, step scripts and `irt sim --NAME` accept the bare NAME ("_" reads as "-"). */
	{.name = "sim-policy", .type = OPT_ENUM, S(policy), .def = "hwquota",
	 .choices = sim_policy_names, .arg = "POLICY",
	 .help = "simulated scheduler: hwquota, rr, cfsbw, edf, fair, bvt; schedsim's own: schedsim-rr, "
	         "schedsim-stride, schedsim-base-hw, schedsim-bvt, schedsim-bvt-nowarp, schedsim-bvt-sculpt "
	         "(see docs/sim.md) (key: policy)"},
	{.name = "sim-duration", .type = OPT_DURATION, S(duration), .def = "10s",
	 .min = US, .max = 7 * 24 * 3600 * SEC, .arg = "DURATION",
	 .help = "simulated time; with end = idle the most it runs (schedsim's max_time) (key: duration)"},
	{.name = "sim-end", .type = OPT_ENUM, S(end), .def = "auto", .choices = sim_end_choices, .arg = "RULE",
	 .help = "when a run ends: idle = schedsim's rule (the first instant nothing is ready once the "
	         "scenario's last timed row has arrived), duration = after the duration; auto: idle for .tsv "
	         "files, duration otherwise (key: end)"},
	{.name = "sim-seed", .type = OPT_INT, S(seed), .def = "1", .min = 0, .max = INT64_MAX, .arg = "N",
	 .help = "seed of the simulation's random numbers (same seed, same result) (key: seed)"},
	{.name = "sim-cpus", .type = OPT_INT, S(cpus), .def = "1", .min = 1, .max = 1024, .arg = "N",
	 .help = "simulated CPUs, each with its own scheduler; threads are pinned (cpu =) (key: cpus)"},
	{.name = "cs-cost", .type = OPT_DURATION, S(cs_cost), .def = "0",
	 .min = 0, .max = SEC, .arg = "DURATION",
	 .help = "context-switch cost: charged to the incoming thread's share, not executed by it"},
	{.name = "super-period", .type = OPT_DURATION, S(super_period), .def = "1s",
	 .min = 1, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "hwquota: super period, the time quotas are claims on"},
	{.name = "fill", .type = OPT_DURATION, S(fill), .def = "10ms",
	 .min = 1, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "hwquota: round-robin time slice of best-effort (fill) execution, also the idle quantum"},
	{.name = "priorities", .type = OPT_INT, S(priorities), .def = "4", .min = 1, .max = 64, .arg = "N",
	 .help = "hwquota: priority bands 0 (lowest) .. N-1"},
	{.name = "sim-slice", .type = OPT_DURATION, S(slice), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "time slice (0: policy default): rr 100ms, cfsbw 3ms, edf non-deadline threads 10ms, fair base slice 3ms, bvt allowance C 10ms (key: slice)"},
	{.name = "sim-tick", .type = OPT_DURATION, S(tick), .def = "0",
	 .min = 0, .max = SEC, .arg = "DURATION",
	 .help = "cfsbw: the scheduler tick (Linux: 1/HZ; irt sim --like sets it from the run's HZ). A thread "
	         "keeps the CPU for its whole slice, and the slice's end is noticed at the next tick, as Linux's "
	         "EEVDF does (RUN_TO_PARITY, no HRTICK); a wake-up preempts at once only a thread past its slice; a "
	         "group's spent bandwidth pool is noticed at the tick too, and the overrun paid back from later refills. "
	         "0: no tick, a slice ends exactly and a wake-up may preempt at any time (key: tick)"},
	{.name = "sim-groups", .type = OPT_ENUM, S(groups), .def = "flat", .choices = sim_groups_choices, .arg = "FAIRNESS",
	 .help = "cfsbw: flat weighs every thread; nested schedules each group as one entity beside the others, "
	         "as Linux schedules a cgroup (irt sim --like sets nested) (key: groups)"},

	{.name = "max-work", .type = OPT_INT, S(max_work), .def = "1000000000", .min = 1, .max = INT64_MAX,
	 .arg = "N",
	 .help = "refuse a workload whose estimated work is above N scheduler decisions (threads x duration / "
	         "period, plus busy time / the shortest slice or fill, summed over the [sweep] cells); command line "
	         "only: a workload cannot raise its own cap"},
	{.name = "like", .type = OPT_STRING, S(like), .arg = "RESULT.json",
	 .help = "irt sim --like RESULT.json: simulate (cfsbw) a workload like a measured irt run: its probes "
	         "(period, deadline, measured CPU per wake-up), cpu loads and cgroup quota/period, on the CPUs "
	         "it used; instead of a workload file; command line only"},
	{.name = "sim-shard", .type = OPT_STRING, S(shard), .arg = "I/N",
	 .help = "simulate only shard I of N of the [sweep] cells (every Nth, from the Ith); the cells keep their "
	         "numbers, so the shards' files together are the whole sweep's (key: shard)"},
	{.name = "import", .type = OPT_STRING, S(import), .arg = "FILE",
	 .help = "threads from a jschlatow/schedsim TSV scenario (thread start runtime weight [priority restart event])"},

	{.name = "type", .type = OPT_ENUM, T(type), .def = "cpu-bound",
	 .choices = sim_type_choices, .arg = "TYPE",
	 .help = "behaviour: periodic, sporadic, cpu-bound, io (run/block), oneshot (total work), timer (k activations per window)"},
	{.name = "cpu", .type = OPT_INT, T(cpu), .def = "0", .min = 0, .max = 1023, .arg = "N",
	 .help = "the simulated CPU the thread is pinned to"},
	{.name = "start", .type = OPT_DURATION, T(start), .def = "0",
	 .min = 0, .max = 7 * 24 * 3600 * SEC, .arg = "DURATION",
	 .help = "first release (start) time"},
	{.name = "thread-period", .type = OPT_DURATION, T(period), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "release period (periodic; timer: 0 = window / (activations + 1)); minimum inter-arrival time (sporadic)"},
	{.name = "jitter", .type = OPT_DURATION, T(jitter), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "sporadic: extra inter-arrival time, uniform in [0, jitter]"},
	{.name = "exec", .type = OPT_DURATION, T(exec), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "work per release (periodic, sporadic, timer) or per burst (io, oneshot); the mean for exponential"},
	{.name = "exec-max", .type = OPT_DURATION, T(exec_max), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "upper bound of uniform work"},
	{.name = "exec-dist", .type = OPT_ENUM, T(exec_dist), .def = "fixed",
	 .choices = sim_dist_choices, .arg = "DIST",
	 .help = "distribution of work per release: fixed, uniform (exec..exec-max), exponential (mean exec)"},
	{.name = "thread-deadline", .type = OPT_DURATION, T(deadline), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "relative deadline of each release (0: the period)"},
	{.name = "block", .type = OPT_DURATION, T(block), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "io, oneshot: blocked time after each burst"},
	{.name = "block-max", .type = OPT_DURATION, T(block_max), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "upper bound of a uniformly random blocked time (0: always block)"},
	{.name = "work", .type = OPT_DURATION, T(work), .def = "0",
	 .min = 0, .max = 7 * 24 * 3600 * SEC, .arg = "DURATION",
	 .help = "oneshot: total work; its completion time is reported (a boot time)"},
	{.name = "activations", .type = OPT_INT, T(activations), .def = "0",
	 .min = 0, .max = 1000000, .arg = "N",
	 .help = "timer: activations it needs per window"},
	{.name = "window", .type = OPT_DURATION, T(window), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "timer: counting window (0: the super period)"},
	{.name = "yield-every", .type = OPT_DURATION, T(yield_every), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "cpu-bound: yield after this much work (0: never)"},
	{.name = "thread-prio", .type = OPT_INT, T(prio), .def = "0", .min = 0, .max = 99, .arg = "N",
	 .help = "priority: hwquota band, rr priority (higher runs first)"},
	{.name = "quota", .type = OPT_STRING, T(quota), .arg = "TIME|PERCENT",
	 .help = "hwquota: claim per super period, as time (100ms) or share of it (10%); none: best effort"},
	{.name = "weight", .type = OPT_INT, T(weight), .def = "1024", .min = 1, .max = 1000000, .arg = "N",
	 .help = "cfsbw, fair, bvt: weight (1024 = nice 0)"},
	{.name = "thread-slice", .type = OPT_DURATION, T(slice), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "fair: this thread's request size, like sched_attr.sched_runtime (0: the [sim] slice)"},
	{.name = "warp", .type = OPT_DURATION, T(warp), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "bvt: virtual time borrowed while warped"},
	{.name = "warp-limit", .type = OPT_DURATION, T(warp_limit), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "bvt: longest run while warped (0: unlimited)"},
	{.name = "unwarp", .type = OPT_DURATION, T(unwarp), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "bvt: least time between warps"},
	{.name = "thread-dl-runtime", .type = OPT_DURATION, T(dl_runtime), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "edf: budget per period (0: not a deadline thread)"},
	{.name = "thread-dl-deadline", .type = OPT_DURATION, T(dl_deadline), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "edf: relative deadline (0: dl-period)"},
	{.name = "thread-dl-period", .type = OPT_DURATION, T(dl_period), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "edf: period (0: period)"},
	{.name = "group", .type = OPT_STRING, T(group), .arg = "NAME",
	 .help = "cfsbw: bandwidth group (default: the thread alone)"},
	{.name = "cfs-quota", .type = OPT_DURATION, T(cfs_quota), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "cfsbw: the group's runtime per cfs-period (0: unlimited)"},
	{.name = "cfs-period", .type = OPT_DURATION, T(cfs_period), .def = "100ms",
	 .min = MS, .max = SEC, .arg = "DURATION",
	 .help = "cfsbw: the group's bandwidth period"},
	{.name = "cfs-burst", .type = OPT_DURATION, T(cfs_burst), .def = "0",
	 .min = 0, .max = 3600 * SEC, .arg = "DURATION",
	 .help = "cfsbw: unused runtime the group may carry into later periods"},
};
const int opt_count = sizeof(opt_table) / sizeof(opt_table[0]);

/* ---------------------------------------------------------------------------------------- */

void strlist_add(struct strlist *l, const char *s)
{
	char **v = xrealloc(l->v, sizeof(*v) * (size_t)(l->n + 1));
	l->v = v;
	l->v[l->n] = xstrdup(s);
	l->n++;
}

void strlist_free(struct strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const struct opt *opt_find(const char *name)
{
	for (int i = 0; i < opt_count; i++)
		if (strcmp(opt_table[i].name, name) == 0)
			return &opt_table[i];
	return NULL;
}

const struct opt *opt_find_short(char c)
{
	for (int i = 0; i < opt_count; i++)
		if (c && opt_table[i].short_name == c)
			return &opt_table[i];
	return NULL;
}

static void format_range_value(const struct opt *o, int64_t v, char *buf, size_t len)
{
	switch (o->type) {
	case OPT_DURATION: units_format_duration(buf, len, v); break;
	case OPT_SIZE: units_format_size(buf, len, v); break;
	case OPT_PERCENT: units_format_percent(buf, len, v); break;
	case OPT_DECIMAL: snprintf(buf, len, "%g", v / 1000.0); break;
	default: snprintf(buf, len, "%" PRId64, v); break;
	}
}

const char *opt_accepts(const struct opt *o, char *buf, size_t len)
{
	char lo[32], hi[32];
	const char *form = "";
	switch (o->type) {
	case OPT_DURATION: form = "a duration: number with ns, us, ms, s, min or h, e.g. 200ms or 0.2s"; break;
	case OPT_SIZE: form = "a size: bytes or a number with K, M, G (KiB, MiB, GiB), e.g. 8M"; break;
	case OPT_INT: form = "a whole number"; break;
	case OPT_PERCENT: form = "a percentage like 50% or 12.5%"; break;
	case OPT_FLAG: form = "1, 0, true, false, yes or no"; break;
	case OPT_STRING: form = "text"; break;
	case OPT_LIST: form = "text (repeatable)"; break;
	case OPT_CPUS: form = "a CPU list like 0, 0-3 or 0,2-3"; break;
	case OPT_DECIMAL: form = "a number like 13 or 2.5"; break;
	case OPT_REST: form = "text, commas included"; break;
	case OPT_ENUM: {
		size_t n = (size_t)snprintf(buf, len, "one of");
		for (int i = 0; o->choices[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s %s", i ? "," : "", o->choices[i]);
		return buf;
	}
	}
	if (opt_ranged(o) && o->type != OPT_FLAG && o->type != OPT_STRING) {
		format_range_value(o, o->min, lo, sizeof(lo));
		format_range_value(o, o->max, hi, sizeof(hi));
		snprintf(buf, len, "%s, from %s to %s", form, lo, hi);
	} else {
		snprintf(buf, len, "%s", form);
	}
	return buf;
}

static int parse_flag(const char *v, bool *out)
{
	static const char *const yes[] = {"1", "true", "yes", "on", NULL};
	static const char *const no[] = {"0", "false", "no", "off", NULL};
	for (int i = 0; yes[i]; i++)
		if (strcasecmp(v, yes[i]) == 0)
			return *out = true, 0;
	for (int i = 0; no[i]; i++)
		if (strcasecmp(v, no[i]) == 0)
			return *out = false, 0;
	return -1;
}

/* "13", "2.5": a non-negative decimal number in thousandths */
static int parse_decimal_milli(const char *v, int64_t *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(d) || d < 0 || d > 1e12)
		return -1;
	*out = llround(d * 1000.0);
	return 0;
}

int opt_set(const struct opt *o, void *base, const char *value, const char *where, struct err *e)
{
	char *field = (char *)base + o->offset;
	char acc[256];
	int64_t v = 0;
	int bad = 0;

	if (!value && o->type != OPT_FLAG)
		return err_set(e, EXIT_USAGE, "%s: missing value (expected %s)", where, opt_accepts(o, acc, sizeof(acc)));
	switch (o->type) {
	case OPT_DURATION: bad = units_parse_duration(value, &v); break;
	case OPT_SIZE: bad = units_parse_size(value, &v); break;
	case OPT_INT: bad = units_parse_int(value, &v); break;
	case OPT_PERCENT: bad = units_parse_percent(value, &v); break;
	case OPT_DECIMAL: bad = parse_decimal_milli(value, &v); break;
	case OPT_FLAG: {
		bool b = true;
		if (value && parse_flag(value, &b))
			return err_set(e, EXIT_USAGE, "%s: '%s' is not a yes/no value (expected %s)", where, value,
			               opt_accepts(o, acc, sizeof(acc)));
		*(bool *)field = b;
		return 0;
	}
	case OPT_ENUM:
		for (int i = 0; o->choices[i]; i++)
			if (strcmp(o->choices[i], value) == 0) {
				*(int *)field = i;
				return 0;
			}
		/* cyclictest's -p is the priority: its users type -p 90 */
		if (o->choices == policy_choices && value[0] && strspn(value, "0123456789") == strlen(value))
			return err_set(e, EXIT_USAGE, "%s: unknown value '%s' (expected %s; a real-time priority is "
			               "-p fifo --prio %s)", where, value, opt_accepts(o, acc, sizeof(acc)), value);
		return err_set(e, EXIT_USAGE, "%s: unknown value '%s' (expected %s)", where, value,
		               opt_accepts(o, acc, sizeof(acc)));
	case OPT_CPUS:
		if (cpulist_parse(value, NULL) && errno == ERANGE)
			return err_set(e, EXIT_USAGE, "%s: '%s' names a CPU above %d, the most a CPU list holds (expected %s)",
			               where, value, CPU_SETSIZE - 1, opt_accepts(o, acc, sizeof(acc)));
		if (cpulist_parse(value, NULL))
			return err_set(e, EXIT_USAGE, "%s: '%s' is not a CPU list (expected %s)", where, value,
			               opt_accepts(o, acc, sizeof(acc)));
		/* fall through */
	case OPT_STRING:
	case OPT_REST: {
		size_t size = o->size ? o->size : OPT_STRLEN;
		if (strlen(value) >= size)
			return err_set(e, EXIT_USAGE, "%s: value is longer than %zu characters", where, size - 1);
		if (o->printable && err_has_control(value))
			return err_set(e, EXIT_USAGE, "%s: '%s' holds a control character (expected printable text)",
			               where, value);
		strcpy(field, value);
		return 0;
	}
	case OPT_LIST:
		strlist_add((struct strlist *)field, value);
		return 0;
	}
	if (bad)
		return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected %s)", where, value,
		               opt_accepts(o, acc, sizeof(acc)));
	if (opt_ranged(o) && (v < o->min || v > o->max))
		return err_set(e, EXIT_USAGE, "%s: '%s' is out of range (expected %s)", where, value,
		               opt_accepts(o, acc, sizeof(acc)));
	*(int64_t *)field = v;
	return 0;
}

void opt_command_defaults(const struct command_info *c, unsigned scope, void *base)
{
	opt_defaults(scope, base);
	for (const char *const *d = c ? c->defaults : NULL; d && *d; d++) {
		char name[64];
		const char *eq = strchr(*d, '=');
		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - *d) : 0, *d);
		const struct opt *o = opt_find(name);
		struct err e = {0};
		if (!eq || !o || (o->scope & scope && opt_set(o, base, eq + 1, name, &e))) {
			fprintf(stderr, "irt: internal error: default '%s' of irt %s\n", *d, c->name);
			abort();
		}
	}
}

void opt_defaults(unsigned scope, void *base)
{
	for (int i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		if (!(o->scope & scope) || !o->def)
			continue;
		struct err e = {0};
		if (opt_set(o, base, o->def, o->name, &e)) {
			/* a bad default is a programming error; the unit tests catch it */
			fprintf(stderr, "irt: internal error: default of --%s: %s\n", o->name, e.msg);
			abort();
		}
	}
}

char *opt_format(const struct opt *o, const void *base, char *buf, size_t len)
{
	const char *field = (const char *)base + o->offset;
	switch (o->type) {
	case OPT_DURATION: return units_format_duration(buf, len, *(const int64_t *)field);
	case OPT_SIZE: return units_format_size(buf, len, *(const int64_t *)field);
	case OPT_PERCENT: return units_format_percent(buf, len, *(const int64_t *)field);
	case OPT_INT: snprintf(buf, len, "%" PRId64, *(const int64_t *)field); return buf;
	case OPT_DECIMAL: snprintf(buf, len, "%g", *(const int64_t *)field / 1000.0); return buf;
	case OPT_FLAG: snprintf(buf, len, "%s", *(const bool *)field ? "1" : "0"); return buf;
	case OPT_ENUM: snprintf(buf, len, "%s", o->choices[*(const int *)field]); return buf;
	case OPT_STRING:
	case OPT_REST:
	case OPT_CPUS: snprintf(buf, len, "%s", field); return buf;
	case OPT_LIST: {
		const struct strlist *l = (const struct strlist *)field;
		size_t n = 0;
		buf[0] = 0;
		for (int i = 0; i < l->n && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ";" : "", l->v[i]);
		return buf;
	}
	}
	buf[0] = 0;
	return buf;
}

/* ---------------------------------------------------------------------------------------- */

static void add_item(struct opt_args *a, const struct opt *o, const char *value, int segment, const char *where,
                     int arg, int nargs)
{
	a->items = xreallocarray(a->items, (size_t)(a->n + 1), sizeof(*a->items));
	struct opt_item *it = &a->items[a->n++];
	*it = (struct opt_item){.opt = o, .value = value, .segment = segment, .arg = arg, .nargs = nargs};
	snprintf(it->where, sizeof(it->where), "%s", where);
}

static const char *thread_key(const struct opt *o);

static bool in_list(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

/* o is one of command c's options: in its scopes and not among those it refuses */
static bool cmd_accepts(const struct command_info *c, unsigned scopes, const struct opt *o)
{
	return o && (o->scope & scopes) && !(c && in_list(c->without, o->name));
}

static int not_an_option(const char *where, const char *cmd, struct err *e)
{
	return err_set(e, EXIT_USAGE, "%s: not an option of 'irt %s' (see irt help %s)", where, cmd, cmd);
}

/* "a, b, c": a command's --format values, for its help and its refusals */
static char *join_list(char *buf, size_t len, const char *const *list)
{
	buf[0] = 0;
	for (const char *const *v = list; *v; v++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", v == list ? "" : ", ", *v);
	return buf;
}

int opt_command_takes(const struct command_info *c, const struct opt *o, const char *value, const char *where,
                      struct err *e)
{
	if (!c)
		return 0;
	if (in_list(c->without, o->name))
		return not_an_option(where, c->name, e);
	if (c->formats && strcmp(o->name, "format") == 0 && value && !in_list(c->formats, value)) {
		char acc[128];
		return err_set(e, EXIT_USAGE, "%s: irt %s writes no '%s' (it accepts %s)", where, c->name, value,
		               join_list(acc, sizeof(acc), c->formats));
	}
	return 0;
}

static int unknown_option(const char *arg, unsigned scopes, const struct command_info *c, const char *cmd,
                          struct err *e)
{
	const char *name = arg + (arg[1] == '-' ? 2 : 1);
	char buf[128];
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(name, "="), name);
	const struct opt *o = arg[1] == '-' ? opt_find(buf) : opt_find_short(buf[0]);
	if (o && (o->scope & SCOPE_SIM_THREAD) && (scopes & SCOPE_SIM))
		return err_set(e, EXIT_USAGE, "%s: not an option of 'irt %s': %s is a [thread NAME] key of the workload file "
		               "(see irt help %s)", arg, cmd, thread_key(o), cmd);
	if (o && !cmd_accepts(c, scopes, o))
		return not_an_option(arg, cmd, e);
	return err_set(e, EXIT_USAGE, "%s: unknown option (see irt help %s)", arg, cmd);
}

int opt_parse(int argc, char **argv, unsigned scopes, struct opt_args *a, struct err *e)
{
	return opt_parse_for(opt_find_command(argc > 0 ? argv[0] : ""), argc, argv, scopes, a, e);
}

int opt_parse_for(const struct command_info *c, int argc, char **argv, unsigned scopes, struct opt_args *a,
                  struct err *e)
{
	memset(a, 0, sizeof(*a));
	a->segments = 1;
	a->pos = xcalloc((size_t)argc + 1, sizeof(char *));
	const char *cmd = argc > 0 ? argv[0] : "";
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		char *arg = argv[i];
		if (options_done || arg[0] != '-' || arg[1] == 0) {
			a->pos[a->npos++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			options_done = true;
			continue;
		}
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			a->help = true;
			continue;
		}
		const struct opt *o;
		const char *value = NULL;
		char where[64];
		int first = i;
		if (arg[1] == '-') {
			char name[64];
			const char *eq = strchr(arg + 2, '=');
			size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
			if (len >= sizeof(name))
				return unknown_option(arg, scopes, c, cmd, e);
			memcpy(name, arg + 2, len);
			name[len] = 0;
			o = opt_find(name);
			if (!cmd_accepts(c, scopes, o))
				return unknown_option(arg, scopes, c, cmd, e);
			snprintf(where, sizeof(where), "--%s", o->name);
			if (eq) {
				if (o->type == OPT_FLAG)
					return err_set(e, EXIT_USAGE, "%s: takes no value (got '%s')", where, eq + 1);
				value = eq + 1;
			}
		} else {
			o = opt_find_short(arg[1]);
			if (!cmd_accepts(c, scopes, o))
				return unknown_option(arg, scopes, c, cmd, e);
			snprintf(where, sizeof(where), "-%c", o->short_name);
			if (o->type == OPT_FLAG) {
				if (arg[2])
					return err_set(e, EXIT_USAGE, "%s: takes no value (got '%s')", where, arg);
			} else if (arg[2]) {
				value = arg + 2;
			}
		}
		if (o->type != OPT_FLAG && !value) {
			if (i + 1 >= argc) {
				char acc[256];
				return err_set(e, EXIT_USAGE, "%s: missing value (expected %s)", where,
				               opt_accepts(o, acc, sizeof(acc)));
			}
			value = argv[++i];
		}
		if (opt_command_takes(c, o, value, where, e))
			return -1;
		if (strcmp(o->name, "name") == 0 && (o->scope & SCOPE_PROBE))
			a->segments++;
		add_item(a, o, value, (o->scope & SCOPE_PROBE) ? a->segments - 1 : 0, where, first, i - first + 1);
	}
	return 0;
}

void opt_args_free(struct opt_args *a)
{
	free(a->items);
	free(a->pos);
	memset(a, 0, sizeof(*a));
}

static const struct command_info *commands;
static int ncommands;

void opt_register_commands(const struct command_info *cmds, int ncmds)
{
	commands = cmds;
	ncommands = ncmds;
}

const struct command_info *opt_find_command(const char *name)
{
	for (int i = 0; i < ncommands; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int opt_check_command(int argc, char **argv, struct err *e)
{
	const struct command_info *c = argc > 0 ? opt_find_command(argv[0]) : NULL;
	if (!c)
		return err_set(e, EXIT_USAGE, "unknown command '%s' (see irt help)", argc > 0 ? argv[0] : "");
	struct opt_args a;
	int rc = opt_parse(argc, argv, c->scopes, &a, e);
	for (int i = 0; rc == 0 && i < a.n; i++) {
		const struct opt *o = a.items[i].opt;
		if (o->type == OPT_LIST)
			continue;
		/* a zeroed stand-in for the scope's config, as far as this field reaches */
		char *scratch = xcalloc(1, o->offset + (o->size ? o->size : OPT_STRLEN) + sizeof(int64_t));
		rc = opt_set(o, scratch, a.items[i].value, a.items[i].where, e);
		free(scratch);
	}
	opt_args_free(&a);
	return rc;
}

/* ---------------------------------------------------------------------------------------- */

static const char *scope_title(unsigned scope)
{
	switch (scope) {
	case SCOPE_GLOBAL: return "Output";
	case SCOPE_PROBE: return "Probe threads";
	case SCOPE_RUN: return "Runs and loads";
	case SCOPE_SWEEP: return "Sweeps";
	case SCOPE_SIM: return "Simulation ([sim] section)";
	case SCOPE_SIM_THREAD: return "Simulated threads ([thread NAME] keys of a workload file, not options)";
	case SCOPE_REPORT: return "Reports and comparisons";
	case SCOPE_KNOB: return "Tunables";
	case SCOPE_EXPLAIN: return "Why was it late (--explain)";
	case SCOPE_WATCH: return "Watching applications (irt watch, irt sweep)";
	case SCOPE_GATE: return "CI gates";
	case SCOPE_FLEET: return "Fleets (irt fleet)";
	case SCOPE_MONITOR: return "Monitoring (irt monitor)";
	case SCOPE_COND: return "Measurement conditions";
	case SCOPE_NOISE: return "OS and hardware noise (irt noise)";
	}
	return "Options";
}

/* [thread NAME] rows are workload-file keys, not options: "period = DURATION" */
static const char *thread_key(const struct opt *o)
{
	if (!(o->scope & SCOPE_SIM_THREAD))
		return NULL;
	return strncmp(o->name, "thread-", 7) == 0 ? o->name + 7 : o->name;
}

static void opt_signature(const struct opt *o, char *buf, size_t len)
{
	if (thread_key(o))
		snprintf(buf, len, "    %s = %s", thread_key(o), o->arg ? o->arg : "VALUE");
	else if (o->short_name)
		snprintf(buf, len, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(buf, len, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static void opt_default_note(const struct opt *o, char *buf, size_t len)
{
	buf[0] = 0;
	if (o->def && o->type != OPT_FLAG)
		snprintf(buf, len, " [default: %s]", o->def);
}

void opt_print_help(FILE *f, const struct command_info *cmds, int ncmds, const struct command_info *c)
{
	if (!c) {
		fprintf(f, "irt %s — what a CPU scheduler and its tunables do to interactive tasks\n\n", IRT_VERSION_STRING);
		fprintf(f, "usage: irt [COMMAND] [OPTIONS]   (no command: the default check)\n\ncommands:\n");
		for (int i = 0; i < ncmds; i++)
			fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
		fprintf(f, "\n'irt help COMMAND' lists a command's options; 'irt help loads' the load types and their keys;\n"
		           "'irt help personas' the personas; 'man irt' (docs/irt.1) has them all.\n"
		           "Units: durations 200ms 0.2s 1min, sizes 64K 8M 1GiB, percentages 50%%.\n"
		           "Exit status: 0 ok, 1 runtime failure or a missing privilege (the line says which: \"needs root\"),\n"
		           "2 bad usage or input, 3 interrupted (results saved),\n"
		           "4 an --expect was not met or a --stop-above crossed (results saved; git bisect run reads it as bad:\n"
		           "docs/fleet.md).\n");
		return;
	}
	fprintf(f, "usage: %s\n%s\n", c->usage, c->summary);
	for (unsigned scope = 1; scope <= SCOPE_LAST; scope <<= 1) {
		if (!(c->scopes & scope))
			continue;
		fprintf(f, "\n%s:\n", scope_title(scope));
		for (int i = 0; i < opt_count; i++) {
			const struct opt *o = &opt_table[i];
			if (!(o->scope & scope) || in_list(c->without, o->name))
				continue;
			char sig[80], def[80], help[256];
			opt_signature(o, sig, sizeof(sig));
			opt_default_note(o, def, sizeof(def));
			for (const char *const *d = c->defaults; d && *d; d++)   /* its own default */
				if (strncmp(*d, o->name, strlen(o->name)) == 0 && (*d)[strlen(o->name)] == '=')
					snprintf(def, sizeof(def), " [default: %s]", *d + strlen(o->name) + 1);
			const char *text = o->help;
			if (c->formats && strcmp(o->name, "format") == 0) {   /* only the outputs it writes */
				char list[200];
				snprintf(help, sizeof(help), "output on stdout: %s", join_list(list, sizeof(list), c->formats));
				if (!in_list(c->formats, o->def)) {   /* its default prints what the first does */
					snprintf(def, sizeof(def), " [default: %s]", c->formats[0]);
				}
				text = help;
			}
			if (strlen(sig) > 28)
				fprintf(f, "  %s\n  %-28s %s%s\n", sig, "", text, def);
			else
				fprintf(f, "  %-28s %s%s\n", sig, text, def);
		}
	}
}

/* roff needs '-' escaped and lines starting with '.' or '\'' protected */
static void roff(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

void opt_print_man(FILE *f, const struct command_info *cmds, int ncmds)
{
	fprintf(f, ".\\\" Generated by 'irt help --man' from the option table (src/opt.c). Do not edit.\n");
	fprintf(f, ".TH IRT 1 \"\" \"irt %s\" \"User Commands\"\n", IRT_VERSION_STRING);
	fprintf(f, ".SH NAME\nirt \\- measure what a CPU scheduler and its tunables do to interactive tasks\n");
	fprintf(f, ".SH SYNOPSIS\n");
	for (int i = 0; i < ncmds; i++) {
		fprintf(f, ".B ");
		roff(f, cmds[i].usage);
		fprintf(f, "\n.br\n");
	}
	fprintf(f, ".SH DESCRIPTION\n"
	           "irt wakes probe threads periodically to absolute deadlines and records, in nanosecond\n"
	           "histograms, how late each wake-up was and how long the work after it took, alone or\n"
	           "under loads it generates, under scheduler settings it applies and restores; it also\n"
	           "simulates scheduling policies with the same metrics. Without a command it runs the\n"
	           "default check.\n");
	fprintf(f, ".SH COMMANDS\n");
	for (int i = 0; i < ncmds; i++) {
		fprintf(f, ".TP\n.B %s\n", cmds[i].name);
		roff(f, cmds[i].summary);
		for (const char *const *d = cmds[i].defaults; d && *d; d++) {   /* its own defaults */
			fprintf(f, "%s", d == cmds[i].defaults ? "; its defaults: " : ", ");
			roff(f, *d);
		}
		fprintf(f, "\n");
	}
	for (unsigned scope = 1; scope <= SCOPE_LAST; scope <<= 1) {
		bool any = false;
		for (int i = 0; i < opt_count; i++)
			any |= (opt_table[i].scope & scope) != 0;
		if (!any)
			continue;
		fprintf(f, ".SH OPTIONS: ");
		roff(f, scope_title(scope));
		fprintf(f, "\n");
		for (int i = 0; i < opt_count; i++) {
			const struct opt *o = &opt_table[i];
			if (!(o->scope & scope))
				continue;
			char def[80], acc[256];
			fprintf(f, ".TP\n.B ");
			if (thread_key(o)) {
				roff(f, thread_key(o));
				fprintf(f, " =");
			} else {
				if (o->short_name)
					fprintf(f, "\\-%c, ", o->short_name);
				fprintf(f, "\\-\\-");
				roff(f, o->name);
			}
			if (o->arg)
				fprintf(f, " \\fI%s\\fR", o->arg);
			fprintf(f, "\n");
			roff(f, o->help);
			opt_default_note(o, def, sizeof(def));
			roff(f, def);
			fprintf(f, ". Accepts ");
			roff(f, opt_accepts(o, acc, sizeof(acc)));
			fprintf(f, ".\n");
		}
	}
	fprintf(f, ".SH UNITS\nDurations: ns, us, ms, s, min, h, with decimals (0.2s). Sizes: bytes or K, M, G, T\n"
	           "(KiB, MiB, GiB, TiB; all binary). Percentages: 50%% or a fraction 0.5.\n");
	fprintf(f, ".SH EXIT STATUS\n0 success; 1 runtime failure, or a privilege missing (the message says what needs\n"
	           "root and what to do instead), whether found before anything runs or during the run;\n"
	           "2 bad usage or bad input (the message names the\n"
	           "option or file:line); 3 interrupted by a signal (results so far were printed and saved);\n"
	           "4 an \\-\\-expect was not met, or a wake-up crossed \\-\\-stop\\-above (results were saved).\n"
	           "For git bisect run, which reads 0 as good, 125 as skip and 1 to 127 otherwise as bad, see\n"
	           "docs/fleet.md.\n");
	fprintf(f, ".SH ENVIRONMENT\n.TP\n.B IRT_STATE_DIR\nwhere the tunables journal is kept (default /var/lib/irt).\n"
	           ".TP\n.B IRT_SYSROOT\nprefix for /proc and /sys paths (testing).\n");
	fprintf(f, ".SH SEE ALSO\ncyclictest(8), hackbench(8), sched(7)\n");
}

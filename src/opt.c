#include "opt.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sim/policy.h"
#include "units.h"

#define NS(x) ((int64_t)(x))
#define US NSEC_PER_USEC
#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC
#define KIB (INT64_C(1) << 10)
#define MIB (INT64_C(1) << 20)
#define GIB (INT64_C(1) << 30)
#define UNCHECKED 1, 0   /* min > max: no range check */

static const char *const format_choices[] = {"table", "seed", "cyclictest", "none", "text", "html", NULL};
static const char *const policy_choices[] = {"other", "batch", "idle", "fifo", "rr", "deadline", NULL};
static const char *const pattern_choices[] = {"seq", "random", NULL};
static const char *const placement_choices[] = {"same", "split", "session", NULL};
static const char *const persona_choices[] = {"none", "audio", "video", "x", "gaming", NULL};
/* order = enum rank_metric (config.h) */
static const char *const rank_metric_choices[] = {"wake-p50", "wake-p99", "wake-p99.9", "wake-max",
                                                   "resp-p50", "resp-p99", "resp-p99.9", "resp-max", NULL};

#define G(field) SCOPE_GLOBAL, offsetof(struct global_cfg, field)
#define P(field) SCOPE_PROBE, offsetof(struct probe_cfg, field)
#define R(field) SCOPE_RUN, offsetof(struct run_cfg, field)
#define REP(field) SCOPE_REPORT, offsetof(struct report_cfg, field)
#define SW(field) SCOPE_SWEEP, offsetof(struct sweep_cfg, field)
static const char *const cgroup_of_choices[] = {"probes", "loads", NULL};
static const char *const cgroup_under_choices[] = {"root", "self", NULL};

#define G(field) SCOPE_GLOBAL, offsetof(struct global_cfg, field)
#define P(field) SCOPE_PROBE, offsetof(struct probe_cfg, field)
#define K(field) SCOPE_KNOB, offsetof(struct knob_cfg, field)

#define S(field) SCOPE_SIM, offsetof(struct sim_cfg, field)
#define T(field) SCOPE_SIM_THREAD, offsetof(struct sim_thread_cfg, field)
static const char *const sim_type_choices[] = {"periodic", "sporadic", "cpu-bound", "io", "oneshot", "timer", NULL};
static const char *const sim_dist_choices[] = {"fixed", "uniform", "exponential", NULL};

/* THE option table. Order within a scope is the order of `irt help`. */
const struct opt opt_table[] = {
	/* ---- output and invocation (every command) ---- */
	{"format", 'f', OPT_ENUM, G(format), "table", UNCHECKED, format_choices, "FORMAT",
	 "output on stdout: table (summary), seed (the seed script's lines), cyclictest (its -h histogram), none, "
	 "text (the text report: tables and a percentile spectrum), html (the HTML report)"},
	{"json", 'o', OPT_STRING, G(json), NULL, UNCHECKED, NULL, "FILE",
	 "write the result record as JSON (schema irt-result/1); irt report: write the HTML report to FILE"},
	{"csv", 0, OPT_STRING, G(csv), NULL, UNCHECKED, NULL, "FILE", "write the summary rows as CSV"},
	{"quiet", 'q', OPT_FLAG, G(quiet), NULL, UNCHECKED, NULL, NULL, "no live status line"},
	{"seed", 0, OPT_INT, G(seed), "1", 0, INT64_MAX, NULL, "N", "random seed (random touch pattern, shuffles); recorded in the result"},
	{"hist-buckets", 0, OPT_INT, G(hist_buckets), "1000", 1, 1000000, NULL, "N",
	 "--format cyclictest: number of 1 us histogram rows (cyclictest -h N)"},

	/* ---- probe threads (irt probe, irt run, [probe NAME] sections) ---- */
	{"name", 0, OPT_STRING, P(name), NULL, UNCHECKED, NULL, "NAME",
	 "start a new probe definition; options before the first --name apply to all"},
	{"persona", 0, OPT_ENUM, P(persona), "none", UNCHECKED, persona_choices, "PERSONA",
	 "interactive task to imitate: audio, video, x, gaming (see irt help personas); explicit options override it"},
	{"period", 'i', OPT_DURATION, P(period), "10ms", US, 3600 * SEC, NULL, "DURATION", "wake-up period (interval)"},
	{"count", 'n', OPT_INT, P(count), "0", 0, INT64_C(1) << 40, NULL, "N", "number of wake-ups per thread (0: run for --duration)"},
	{"duration", 'D', OPT_DURATION, P(duration), "0", 0, 7 * 24 * 3600 * SEC, NULL, "DURATION",
	 "how long to measure (0: 10s unless --count is given)"},
	{"deadline", 0, OPT_DURATION, P(deadline), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "response-time deadline per wake-up (0: the period)"},
	{"relative", 0, OPT_FLAG, P(relative), NULL, UNCHECKED, NULL, NULL,
	 "sleep relative to the last wake-up as the seed script did (drifts; for comparison only)"},
	{"slack", 0, OPT_DURATION, P(slack), "1ns", 1, SEC, NULL, "DURATION", "timer slack of the probe thread (PR_SET_TIMERSLACK)"},
	{"no-mlock", 0, OPT_FLAG, P(no_mlock), NULL, UNCHECKED, NULL, NULL, "do not mlockall and prefault memory"},
	{"touch", 0, OPT_SIZE, P(touch), "0", 0, 64 * GIB, NULL, "SIZE", "working set touched once per wake-up, every cache line"},
	{"touch-pattern", 0, OPT_ENUM, P(touch_pattern), "seq", UNCHECKED, pattern_choices, "PATTERN",
	 "order of the touched cache lines: seq or random"},
	{"burn", 0, OPT_DURATION, P(burn), "0", 0, 3600 * SEC, NULL, "DURATION", "calibrated CPU work per wake-up"},
	{"threads", 't', OPT_INT, P(threads), "1", 1, 1024, NULL, "N", "probe threads of this definition"},
	{"policy", 'p', OPT_ENUM, P(policy), "other", UNCHECKED, policy_choices, "POLICY",
	 "scheduling policy: other, batch, idle, fifo, rr, deadline"},
	{"prio", 0, OPT_INT, P(prio), "0", 0, 99, NULL, "N", "real-time priority for fifo/rr (0: 80)"},
	{"nice", 0, OPT_INT, P(nice), "0", -20, 19, NULL, "N", "nice value for other/batch/idle"},
	{"slice", 0, OPT_DURATION, P(slice), "0", 0, 100 * MS, NULL, "DURATION",
	 "EEVDF custom slice for other/batch (sched_attr.sched_runtime; 0: kernel default, else 100us..100ms)"},
	{"dl-runtime", 0, OPT_DURATION, P(dl_runtime), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "SCHED_DEADLINE runtime (0: burn + 20% + 100us, rounded up)"},
	{"dl-deadline", 0, OPT_DURATION, P(dl_deadline), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "SCHED_DEADLINE relative deadline (0: the period)"},
	{"dl-period", 0, OPT_DURATION, P(dl_period), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "SCHED_DEADLINE period (0: the period)"},
	{"rt-guard", 0, OPT_DURATION, P(rt_guard), "1s", MS, 60 * SEC, NULL, "DURATION",
	 "stop a fifo/rr/deadline probe that has gone this long without sleeping, so it never spins without bound"},
	{"cpus", 0, OPT_CPUS, P(cpus), NULL, UNCHECKED, NULL, "LIST", "CPUs the probe threads may run on, e.g. 1 or 0-3,6"},
	{"inject-stall", 0, OPT_STRING, P(inject_stall), NULL, UNCHECKED, NULL, "ITER:DURATION",
	 "testing: busy-stall DURATION inside wake-up ITER, to check open-loop accounting"},

	/* ---- irt sweep ---- */
	{"sweep", 0, OPT_LIST, SW(sweep), NULL, UNCHECKED, NULL, "KEY=V1,V2,...",
	 "vary a knob (irt knobs) or a probe/run option over these values, repeatable; use | between values that contain commas"},
	{"repeat", 0, OPT_INT, SW(repeat), "5", 1, 1000, NULL, "N", "repetitions of every cell, interleaved in shuffled rounds"},
	{"dir", 'd', OPT_STRING, SW(dir), NULL, UNCHECKED, NULL, "DIR",
	 "directory for the results: one file per cell and repetition, plan.json, compare.json, sweep.json (default sweep-DATE-TIME)"},
	{"resume", 0, OPT_STRING, SW(resume), NULL, UNCHECKED, NULL, "DIR", "continue an interrupted sweep without redoing finished runs"},

	/* ---- irt run: background loads and accounting ---- */
	{"load", 'l', OPT_LIST, R(loads), NULL, UNCHECKED, NULL, "TYPE[:K=V,...]",
	 "background load, repeatable: cpu, mem, pipe, fork, io, compile, cmd (see irt help loads)"},
	{"warmup", 'w', OPT_DURATION, R(warmup), "1s", 0, 3600 * SEC, NULL, "DURATION",
	 "run loads and probes this long before recording"},
	{"placement", 0, OPT_ENUM, R(placement), "same", UNCHECKED, placement_choices, "WHERE",
	 "same: all in irt's cgroup; split: an irt cgroup each for probes and loads; session: loads in their own session (autogroup)"},
	{"attribute", 0, OPT_FLAG, R(attribute), NULL, UNCHECKED, NULL, NULL,
	 "split each wake-up's lateness into runqueue wait and the rest (two more histograms)"},

	/* ---- comparisons (irt compare; stats helper, docs/statistics.md) ---- */
	{"baseline", 0, OPT_STRING, REP(baseline), NULL, UNCHECKED, NULL, "FILE|CELL",
	 "the cell the others are compared with: one of its result files, or its letter or name (default: the first cell)"},
	{"metric", 0, OPT_ENUM, REP(metric), "resp-p99", UNCHECKED, rank_metric_choices, "METRIC",
	 "latency metric the recommendation minimises: wake-|resp- p50, p99, p99.9 or max; "
	 "irt report: the sweep metric charted (default there: the sweep summary's own)"},
	{"resamples", 0, OPT_INT, REP(resamples), "2000", 100, 1000000, NULL, "N", "bootstrap resamples per confidence interval"},
	{"min-throughput", 0, OPT_PERCENT, REP(min_throughput), "90%", 0, 1000000, NULL, "PERCENT",
	 "a recommended cell keeps at least this share of the baseline's load throughput"},
	{"single-run-floor", 0, OPT_PERCENT, REP(single_run_floor), "0%", 0, 100000000, NULL, "PERCENT",
	 "give verdicts between single runs that differ by more than this (0%: never; runs of one setting can differ more)"},
	/* ---- tunables (irt knobs; how irt sweep applies knobs) — src/linux/knob.c ---- */
	{"apply", 0, OPT_LIST, K(apply), NULL, UNCHECKED, NULL, "KNOB=VALUE",
	 "irt knobs: set a knob (repeatable), hold it for --hold, then restore it"},
	{"hold", 0, OPT_DURATION, K(hold), "0", 0, 7 * 24 * 3600 * SEC, NULL, "DURATION",
	 "with --apply: how long to keep the settings (0: until SIGINT/SIGTERM/SIGHUP)"},
	{"allow-rt-unthrottled", 0, OPT_FLAG, K(allow_rt_unthrottled), NULL, UNCHECKED, NULL, NULL,
	 "permit kernel.sched_rt_runtime_us=-1 (realtime tasks may then starve the system)"},
	{"cgroup-of", 0, OPT_ENUM, K(cgroup_of), "probes", UNCHECKED, cgroup_of_choices, "WHO",
	 "which of irt's tasks the cgroup.* knobs confine: probes or loads"},
	{"cgroup-under", 0, OPT_ENUM, K(cgroup_under), "root", UNCHECKED, cgroup_under_choices, "WHERE",
	 "create irt's cgroup under the cpu hierarchy's root or under irt's own cgroup (self)"},

	/* ---- irt report (report.c): its output file is -o/--json, its stdout --format, and its
	 * sweep metric the --metric above (default: the sweep summary's own) ---- */
	{"svg", 0, OPT_STRING, REP(svg), NULL, UNCHECKED, NULL, "DIR",
	 "irt report: also write every chart as a standalone SVG file DIR/CHART.svg (DIR is created)"},

	/* ---- simulator (irt sim, src/sim/; owner: sim branch) ----
	 * [sim] section keys, then [thread NAME] keys. Names are unique in the table: where a
	 * natural name is taken (policy, period, ...) the row is "sim-NAME" / "thread-NAME" and
	 * workload files, step scripts and `irt sim --NAME` accept the bare NAME ("_" reads as "-"). */
	{"sim-policy", 0, OPT_ENUM, S(policy), "hwquota", UNCHECKED, sim_policy_names, "POLICY",
	 "simulated scheduler: hwquota, rr, cfsbw, edf, fair, bvt (see docs/sim.md) (key: policy)"},
	{"sim-duration", 0, OPT_DURATION, S(duration), "10s", US, 7 * 24 * 3600 * SEC, NULL, "DURATION", "simulated time (key: duration)"},
	{"sim-seed", 0, OPT_INT, S(seed), "1", 0, INT64_MAX, NULL, "N", "seed of the simulation's random numbers (same seed, same result) (key: seed)"},
	{"sim-cpus", 0, OPT_INT, S(cpus), "1", 1, 1024, NULL, "N", "simulated CPUs, each with its own scheduler; threads are pinned (cpu =) (key: cpus)"},
	{"cs-cost", 0, OPT_DURATION, S(cs_cost), "0", 0, SEC, NULL, "DURATION",
	 "context-switch cost: charged to the incoming thread's share, not executed by it"},
	{"super-period", 0, OPT_DURATION, S(super_period), "1s", 1, 3600 * SEC, NULL, "DURATION",
	 "hwquota: super period, the time quotas are claims on"},
	{"fill", 0, OPT_DURATION, S(fill), "10ms", 1, 3600 * SEC, NULL, "DURATION",
	 "hwquota: round-robin time slice of best-effort (fill) execution, also the idle quantum"},
	{"priorities", 0, OPT_INT, S(priorities), "4", 1, 64, NULL, "N", "hwquota: priority bands 0 (lowest) .. N-1"},
	{"sim-slice", 0, OPT_DURATION, S(slice), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "time slice (0: policy default): rr 100ms, cfsbw 3ms, edf non-deadline threads 10ms, fair base slice 3ms, bvt allowance C 10ms (key: slice)"},

	{"import", 0, OPT_STRING, S(import), NULL, UNCHECKED, NULL, "FILE",
	 "threads from a jschlatow/schedsim TSV scenario (thread start runtime weight [priority restart event])"},

	{"type", 0, OPT_ENUM, T(type), "cpu-bound", UNCHECKED, sim_type_choices, "TYPE",
	 "behaviour: periodic, sporadic, cpu-bound, io (run/block), oneshot (total work), timer (k activations per window)"},
	{"cpu", 0, OPT_INT, T(cpu), "0", 0, 1023, NULL, "N", "the simulated CPU the thread is pinned to"},
	{"start", 0, OPT_DURATION, T(start), "0", 0, 7 * 24 * 3600 * SEC, NULL, "DURATION", "first release (start) time"},
	{"thread-period", 0, OPT_DURATION, T(period), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "release period (periodic; timer: 0 = window / (activations + 1)); minimum inter-arrival time (sporadic) (key: period)"},
	{"jitter", 0, OPT_DURATION, T(jitter), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "sporadic: extra inter-arrival time, uniform in [0, jitter]"},
	{"exec", 0, OPT_DURATION, T(exec), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "work per release (periodic, sporadic, timer) or per burst (io, oneshot); the mean for exponential"},
	{"exec-max", 0, OPT_DURATION, T(exec_max), "0", 0, 3600 * SEC, NULL, "DURATION", "upper bound of uniform work"},
	{"exec-dist", 0, OPT_ENUM, T(exec_dist), "fixed", UNCHECKED, sim_dist_choices, "DIST",
	 "distribution of work per release: fixed, uniform (exec..exec-max), exponential (mean exec)"},
	{"thread-deadline", 0, OPT_DURATION, T(deadline), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "relative deadline of each release (0: the period) (key: deadline)"},
	{"block", 0, OPT_DURATION, T(block), "0", 0, 3600 * SEC, NULL, "DURATION", "io, oneshot: blocked time after each burst"},
	{"block-max", 0, OPT_DURATION, T(block_max), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "upper bound of a uniformly random blocked time (0: always block)"},
	{"work", 0, OPT_DURATION, T(work), "0", 0, 7 * 24 * 3600 * SEC, NULL, "DURATION",
	 "oneshot: total work; its completion time is reported (a boot time)"},
	{"activations", 0, OPT_INT, T(activations), "0", 0, 1000000, NULL, "N", "timer: activations it needs per window"},
	{"window", 0, OPT_DURATION, T(window), "0", 0, 3600 * SEC, NULL, "DURATION", "timer: counting window (0: the super period)"},
	{"yield-every", 0, OPT_DURATION, T(yield_every), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "cpu-bound: yield after this much work (0: never)"},
	{"thread-prio", 0, OPT_INT, T(prio), "0", 0, 99, NULL, "N", "priority: hwquota band, rr priority (higher runs first) (key: prio)"},
	{"quota", 0, OPT_STRING, T(quota), NULL, UNCHECKED, NULL, "TIME|PERCENT",
	 "hwquota: claim per super period, as time (100ms) or share of it (10%); none: best effort"},
	{"weight", 0, OPT_INT, T(weight), "1024", 1, 1000000, NULL, "N", "cfsbw, fair, bvt: weight (1024 = nice 0)"},
	{"thread-slice", 0, OPT_DURATION, T(slice), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "fair: this thread's request size, like sched_attr.sched_runtime (0: the [sim] slice) (key: slice)"},
	{"warp", 0, OPT_DURATION, T(warp), "0", 0, 3600 * SEC, NULL, "DURATION", "bvt: virtual time borrowed while warped"},
	{"warp-limit", 0, OPT_DURATION, T(warp_limit), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "bvt: longest run while warped (0: unlimited)"},
	{"unwarp", 0, OPT_DURATION, T(unwarp), "0", 0, 3600 * SEC, NULL, "DURATION", "bvt: least time between warps"},
	{"thread-dl-runtime", 0, OPT_DURATION, T(dl_runtime), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "edf: budget per period (0: not a deadline thread) (key: dl-runtime)"},
	{"thread-dl-deadline", 0, OPT_DURATION, T(dl_deadline), "0", 0, 3600 * SEC, NULL, "DURATION", "edf: relative deadline (0: dl-period) (key: dl-deadline)"},
	{"thread-dl-period", 0, OPT_DURATION, T(dl_period), "0", 0, 3600 * SEC, NULL, "DURATION", "edf: period (0: period) (key: dl-period)"},
	{"group", 0, OPT_STRING, T(group), NULL, UNCHECKED, NULL, "NAME", "cfsbw: bandwidth group (default: the thread alone)"},
	{"cfs-quota", 0, OPT_DURATION, T(cfs_quota), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "cfsbw: the group's runtime per cfs-period (0: unlimited)"},
	{"cfs-period", 0, OPT_DURATION, T(cfs_period), "100ms", MS, SEC, NULL, "DURATION", "cfsbw: the group's bandwidth period"},
	{"cfs-burst", 0, OPT_DURATION, T(cfs_burst), "0", 0, 3600 * SEC, NULL, "DURATION",
	 "cfsbw: unused runtime the group may carry into later periods"},
};
const int opt_count = sizeof(opt_table) / sizeof(opt_table[0]);

/* ---------------------------------------------------------------------------------------- */

void strlist_add(struct strlist *l, const char *s)
{
	char **v = realloc(l->v, sizeof(*v) * (size_t)(l->n + 1));
	if (!v)
		abort();
	l->v = v;
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		abort();
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

void strlist_copy(struct strlist *dst, const struct strlist *src)
{
	memset(dst, 0, sizeof(*dst));
	for (int i = 0; i < src->n; i++)
		strlist_add(dst, src->v[i]);
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
	case OPT_ENUM: {
		size_t n = (size_t)snprintf(buf, len, "one of");
		for (int i = 0; o->choices[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s %s", i ? "," : "", o->choices[i]);
		return buf;
	}
	}
	if (o->min <= o->max && o->type != OPT_FLAG && o->type != OPT_STRING) {
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

/* "0-3,6": each number < 4096, ranges ascending */
static int valid_cpu_list(const char *s)
{
	if (!*s)
		return -1;
	while (*s) {
		char *end;
		if (!isdigit((unsigned char)*s))
			return -1;
		long a = strtol(s, &end, 10), b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			b = strtol(s, &end, 10);
			s = end;
		}
		if (a < 0 || b < a || b >= 4096)
			return -1;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
	}
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
		return err_set(e, EXIT_USAGE, "%s: unknown value '%s' (expected %s)", where, value,
		               opt_accepts(o, acc, sizeof(acc)));
	case OPT_CPUS:
		if (valid_cpu_list(value))
			return err_set(e, EXIT_USAGE, "%s: '%s' is not a CPU list (expected %s)", where, value,
			               opt_accepts(o, acc, sizeof(acc)));
		/* fall through */
	case OPT_STRING:
		if (strlen(value) >= OPT_STRLEN)
			return err_set(e, EXIT_USAGE, "%s: value is longer than %d characters", where, OPT_STRLEN - 1);
		strcpy(field, value);
		return 0;
	case OPT_LIST:
		strlist_add((struct strlist *)field, value);
		return 0;
	}
	if (bad)
		return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected %s)", where, value,
		               opt_accepts(o, acc, sizeof(acc)));
	if (o->min <= o->max && (v < o->min || v > o->max))
		return err_set(e, EXIT_USAGE, "%s: '%s' is out of range (expected %s)", where, value,
		               opt_accepts(o, acc, sizeof(acc)));
	*(int64_t *)field = v;
	return 0;
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
	case OPT_FLAG: snprintf(buf, len, "%s", *(const bool *)field ? "1" : "0"); return buf;
	case OPT_ENUM: snprintf(buf, len, "%s", o->choices[*(const int *)field]); return buf;
	case OPT_STRING:
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

static void add_item(struct opt_args *a, const struct opt *o, const char *value, int segment, const char *where)
{
	struct opt_item *items = realloc(a->items, sizeof(*items) * (size_t)(a->n + 1));
	if (!items)
		abort();
	a->items = items;
	struct opt_item *it = &a->items[a->n++];
	it->opt = o;
	it->value = value;
	it->segment = segment;
	snprintf(it->where, sizeof(it->where), "%s", where);
}

static int unknown_option(const char *arg, unsigned scopes, const char *cmd, struct err *e)
{
	const char *name = arg + (arg[1] == '-' ? 2 : 1);
	char buf[128];
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(name, "="), name);
	const struct opt *o = arg[1] == '-' ? opt_find(buf) : opt_find_short(buf[0]);
	if (o && !(o->scope & scopes))
		return err_set(e, EXIT_USAGE, "%s: not an option of 'irt %s' (see irt help %s)", arg, cmd, cmd);
	return err_set(e, EXIT_USAGE, "%s: unknown option (see irt help %s)", arg, cmd);
}

int opt_parse(int argc, char **argv, unsigned scopes, struct opt_args *a, struct err *e)
{
	memset(a, 0, sizeof(*a));
	a->segments = 1;
	a->pos = calloc((size_t)argc + 1, sizeof(char *));
	if (!a->pos)
		abort();
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
		if (arg[1] == '-') {
			char name[64];
			const char *eq = strchr(arg + 2, '=');
			size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
			if (len >= sizeof(name))
				return unknown_option(arg, scopes, cmd, e);
			memcpy(name, arg + 2, len);
			name[len] = 0;
			o = opt_find(name);
			if (!o || !(o->scope & scopes))
				return unknown_option(arg, scopes, cmd, e);
			snprintf(where, sizeof(where), "--%s", o->name);
			if (eq) {
				if (o->type == OPT_FLAG)
					return err_set(e, EXIT_USAGE, "%s: takes no value (got '%s')", where, eq + 1);
				value = eq + 1;
			}
		} else {
			o = opt_find_short(arg[1]);
			if (!o || !(o->scope & scopes))
				return unknown_option(arg, scopes, cmd, e);
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
		if (strcmp(o->name, "name") == 0 && (o->scope & SCOPE_PROBE))
			a->segments++;
		add_item(a, o, value, (o->scope & SCOPE_PROBE) ? a->segments - 1 : 0, where);
	}
	return 0;
}

void opt_args_free(struct opt_args *a)
{
	free(a->items);
	free(a->pos);
	memset(a, 0, sizeof(*a));
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
	case SCOPE_SIM_THREAD: return "Simulated threads ([thread NAME] sections)";
	case SCOPE_REPORT: return "Reports and comparisons";
	case SCOPE_KNOB: return "Tunables";
	}
	return "Options";
}

static void opt_signature(const struct opt *o, char *buf, size_t len)
{
	if (o->short_name)
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
		           "Exit status: 0 ok, 1 runtime failure, 2 bad usage or input, 3 interrupted (results saved).\n");
		return;
	}
	fprintf(f, "usage: %s\n%s\n", c->usage, c->summary);
	for (unsigned scope = 1; scope <= SCOPE_KNOB; scope <<= 1) {
		if (!(c->scopes & scope))
			continue;
		fprintf(f, "\n%s:\n", scope_title(scope));
		for (int i = 0; i < opt_count; i++) {
			const struct opt *o = &opt_table[i];
			if (!(o->scope & scope))
				continue;
			char sig[80], def[80];
			opt_signature(o, sig, sizeof(sig));
			opt_default_note(o, def, sizeof(def));
			if (strlen(sig) > 28)
				fprintf(f, "  %s\n  %-28s %s%s\n", sig, "", o->help, def);
			else
				fprintf(f, "  %-28s %s%s\n", sig, o->help, def);
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
		fprintf(f, "\n");
	}
	for (unsigned scope = 1; scope <= SCOPE_KNOB; scope <<= 1) {
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
			if (o->short_name)
				fprintf(f, "\\-%c, ", o->short_name);
			fprintf(f, "\\-\\-");
			roff(f, o->name);
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
	fprintf(f, ".SH EXIT STATUS\n0 success; 1 runtime failure; 2 bad usage or bad input (the message names the\n"
	           "option or file:line); 3 interrupted by a signal (results so far were printed and saved).\n");
	fprintf(f, ".SH ENVIRONMENT\n.TP\n.B IRT_STATE_DIR\nwhere the tunables journal is kept (default /var/lib/irt).\n"
	           ".TP\n.B IRT_SYSROOT\nprefix for /proc and /sys paths (testing).\n");
	fprintf(f, ".SH SEE ALSO\ncyclictest(8), hackbench(8), sched(7)\n");
}

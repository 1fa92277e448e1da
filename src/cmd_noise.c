/* irt noise: OS and hardware noise per CPU, as rtla osnoise/hwnoise and sysjitter measure it,
 * from user space (this kernel has no osnoise tracer): spinners (linux/noise_spin.c), the host's
 * steal time per CPU (/proc/stat), and with --explain each gap attributed to the kernel events
 * inside it (tracefs, root; noise.c). docs/noise.md. */
#include "cmd.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "linux/acct.h"
#include "linux/env.h"
#include "linux/noise_spin.h"
#include "linux/sched.h"
#include "linux/signals.h"
#include "linux/sysfile.h"
#include "linux/trace.h"
#include "noise.h"
#include "units.h"
#include "util.h"

/* The options: its own (runtime, threshold), the probe rows it shares, --explain. */
struct noise_args {
	struct global_cfg g;
	struct noise_cfg nc;
	struct probe_cfg pc;
	struct explain_cfg x;
};

/* May this process use the real-time policy at prio (root, CAP_SYS_NICE or RLIMIT_RTPRIO)?
 * Tried on the calling thread and put back at once, so that a refusal is one line before
 * anything starts. */
static bool rt_allowed(int policy, int prio)
{
	struct sched_param old, sp = {.sched_priority = prio};
	int was = sched_getscheduler(0);
	if (was < 0 || sched_getparam(0, &old) || sched_setscheduler(0, policy, &sp))
		return false;
	sched_setscheduler(0, was, &old);
	return true;
}

static int parse(int argc, char **argv, struct noise_args *na, struct err *e)
{
	const struct command_info *c = opt_find_command(argv[0]);
	struct opt_args a;
	memset(na, 0, sizeof(*na));
	opt_command_defaults(c, SCOPE_NOISE, &na->nc);
	opt_command_defaults(c, SCOPE_PROBE, &na->pc);
	opt_command_defaults(c, SCOPE_EXPLAIN, &na->x);
	int rc = opt_parse(argc, argv, c ? c->scopes : 0, &a, e);
	if (!rc)
		rc = cli_no_extra_args(&a, 0, "noise", e) || cli_globals(&a, &na->g, e) || cli_explain(&a, &na->x, e);
	for (int i = 0; !rc && i < a.n; i++) {
		const struct opt_item *it = &a.items[i];
		if (it->opt->scope & SCOPE_NOISE)
			rc = opt_set(it->opt, &na->nc, it->value, it->where, e);
		else if (it->opt->scope & SCOPE_PROBE)
			rc = opt_set(it->opt, &na->pc, it->value, it->where, e);
	}
	opt_args_free(&a);
	if (rc)
		return -1;
	char p[32], r[32];
	struct probe_cfg *pc = &na->pc;
	if (pc->policy != POL_OTHER && pc->policy != POL_FIFO && pc->policy != POL_RR)
		return err_set(e, EXIT_USAGE, "--policy %s: irt noise spins with other, fifo or rr",
		               opt_find("policy")->choices[pc->policy]);
	if (pc->policy == POL_OTHER && pc->prio)   /* as irt probe: a priority other would drop */
		return err_set(e, EXIT_USAGE, "--prio %lld: applies only to --policy fifo or rr (irt noise spins with other "
		               "as an ordinary thread)", (long long)pc->prio);
	if (pc->duration == 0)
		pc->duration = 10 * NSEC_PER_SEC;
	if (na->nc.runtime == 0)
		na->nc.runtime = pc->period / 10 * 9;
	if (na->nc.runtime >= pc->period)   /* the project's rule: never spin without bound */
		return err_set(e, EXIT_USAGE, "--runtime %s: must be shorter than --period %s (the spinner sleeps the rest)",
		               units_format_duration(r, sizeof(r), na->nc.runtime),
		               units_format_duration(p, sizeof(p), pc->period));
	if (na->nc.threshold >= na->nc.runtime)
		return err_set(e, EXIT_USAGE, "--threshold %s: must be shorter than --runtime %s",
		               units_format_duration(p, sizeof(p), na->nc.threshold),
		               units_format_duration(r, sizeof(r), na->nc.runtime));
	if (pc->policy != POL_OTHER) {
		if (pc->prio == 0)
			pc->prio = 80;
		if (!rt_allowed(pc->policy == POL_FIFO ? SCHED_FIFO : SCHED_RR, (int)pc->prio))
			return err_set(e, EXIT_RUNTIME, "--policy %s --prio %lld: %s; unprivileged, leave --policy out (other)",
			               opt_find("policy")->choices[pc->policy], (long long)pc->prio, irt_sched_perm_hint(1));
	}
	return cli_check_outputs(&na->g, e);
}

/* fifo/rr: a duty cycle that reaches the kernel's real-time share is throttled, and the spinner
 * counts the throttled time (the rest of the kernel's period) as one gap: the kernel's limit,
 * not the CPU's noise. Said in one line; measured as asked. */
static void rt_share_note(const struct noise_args *na)
{
	int64_t rt, per;
	int errnum;
	struct err e = {0};
	if (na->pc.policy == POL_OTHER || sys_read_int("/proc/sys/kernel/sched_rt_runtime_us", &rt, &errnum, &e) ||
	    sys_read_int("/proc/sys/kernel/sched_rt_period_us", &per, &errnum, &e) || rt < 0 || per <= 0)
		return;
	if (noise_max_spin(na->nc.runtime, na->pc.period, per * NSEC_PER_USEC) < rt * NSEC_PER_USEC)
		return;
	char r[32], p[32];
	fprintf(stderr, "irt: note: --runtime %s of every --period %s reaches the kernel's real-time share "
	        "(sched_rt_runtime_us %lld of %lld): throttled time shows as gaps; a shorter --runtime avoids it\n",
	        units_format_duration(r, sizeof(r), na->nc.runtime), units_format_duration(p, sizeof(p), na->pc.period),
	        (long long)rt, (long long)per);
}

/* The CPUs to spin on: --cpus, else every CPU irt may run on. */
static int cpu_list(const struct probe_cfg *pc, int **out, struct err *e)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (pc->cpus[0] && irt_parse_cpus("--cpus", pc->cpus, &set, e))
		return -1;
	if (!pc->cpus[0] && sched_getaffinity(0, sizeof(set), &set))
		return err_set(e, EXIT_RUNTIME, "noise: cannot read the CPUs irt may run on: %s", strerror(errno));
	int n = 0;
	*out = xcalloc((size_t)CPU_COUNT(&set) + 1, sizeof(**out));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			(*out)[n++] = c;
	return n;
}

static void settings(const struct noise_args *na, struct kvlist *kv)
{
	static const char *const shared[] = {"period", "duration", "policy", "prio", "cpus", NULL};
	static const char *const own[] = {"runtime", "threshold", NULL};
	char buf[OPT_STRLEN];
	for (const char *const *s = shared; *s; s++)
		kvlist_set(kv, *s, opt_format(opt_find(*s), &na->pc, buf, sizeof(buf)));
	for (const char *const *s = own; *s; s++)
		kvlist_set(kv, *s, opt_format(opt_find(*s), &na->nc, buf, sizeof(buf)));
	kvlist_set(kv, "explain", na->x.explain ? "1" : "0");
	kvlist_set(kv, "no-mlock", na->pc.no_mlock ? "1" : "0");
}

/* /proc/stat steal of each CPU over the run (-1 where unknown). */
static void steal(struct noise_result *r, const struct acct_sys *a, const struct acct_sys *b)
{
	struct acct_sys_delta d;
	struct err e = {0};
	for (int i = 0; i < r->ncpus; i++)
		r->cpus[i].steal_ns = -1;
	if (acct_sys_delta(&d, a, b, &e))
		return;
	for (int i = 0; i < r->ncpus; i++)
		for (int k = 0; k < d.npercpu; k++)
			if (d.percpu[k].cpu == r->cpus[i].cpu)
				r->cpus[i].steal_ns = d.percpu[k].steal;
	acct_sys_delta_free(&d);
}

/* irt's own threads are noise where they run: this one wakes every 100 ms (SIGINT, the end), the
 * trace reader (--explain) at every page of events. Kept off the measured CPUs when irt may run on
 * another (as oslat's -C), before the reader starts so that it inherits the mask; the spinners pin
 * themselves. Every CPU measured: left where they are (docs/noise.md). True when *old is to be
 * put back. */
static bool keep_off_measured(const struct noise_result *r, cpu_set_t *old)
{
	if (sched_getaffinity(0, sizeof(*old), old))
		return false;
	cpu_set_t rest = *old;
	for (int i = 0; i < r->ncpus; i++)
		CPU_CLR(r->cpus[i].cpu, &rest);
	return CPU_COUNT(&rest) > 0 && !sched_setaffinity(0, sizeof(rest), &rest);
}

static void attribute(struct noise_result *r, const struct trace_data *d)
{
	r->trace_events = d->events;
	r->trace_lost = d->lost;
	snprintf(r->vectors_note, sizeof(r->vectors_note), "%s", d->missing);
	for (int i = 0; i < r->ncpus; i++) {
		struct noise_cpu *c = &r->cpus[i];
		noise_attribute(d, c->cpu, c->tid, c->gap, c->ngap, &c->causes);
		c->causes.ns[NOISE_LOST] += c->dropped_ns;   /* gaps over the cap of kept gaps */
		c->causes.gaps[NOISE_LOST] += c->gaps_dropped;
		noise_sort_sources(&c->causes);
		c->attributed = true;
	}
}

int cmd_noise(int argc, char **argv)
{
	struct err e = {0};
	struct noise_args na;
	struct noise_result r = {0};
	int *cpus = NULL, rc = EXIT_OK;
	struct trace *t = NULL;
	struct acct_sys s0 = {0}, s1 = {0};
	bool interrupted = false;

	if (parse(argc, argv, &na, &e))
		return err_print(&e);
	rt_share_note(&na);
	int n = cpu_list(&na.pc, &cpus, &e);
	if (n < 0)
		return err_print(&e);
	r.ncpus = n;
	r.cpus = xcalloc((size_t)n, sizeof(*r.cpus));
	for (int i = 0; i < n; i++) {
		r.cpus[i].cpu = cpus[i];
		hist_init(&r.cpus[i].gaps);
	}
	free(cpus);
	r.cmdline = cli_cmdline(argc, argv);
	settings(&na, &r.settings);
	env_capture(&r.env);
	sig_block_stop();
	cpu_set_t old_mask;
	bool moved = keep_off_measured(&r, &old_mask);
	if (na.x.explain) {
		r.explain = true;
		struct trace_opts o = {.who = "irt noise --explain", .buffer_kb = na.x.buffer / 1024,
		                       .memory_cap = EXPLAIN_MEMORY_CAP, .vectors = true};
		struct err te = {0};
		if (trace_start(&t, &o, &te)) {
			fprintf(stderr, "irt: %s; the gaps are measured but not attributed\n", te.msg);
			snprintf(r.explain_source, sizeof(r.explain_source), "none");
			snprintf(r.explain_reason, sizeof(r.explain_reason), "%.255s", te.msg);
			t = NULL;
		} else {
			snprintf(r.explain_source, sizeof(r.explain_source), "tracefs");
		}
	}
	struct noise_spin_cfg sc = {.runtime = na.nc.runtime, .period = na.pc.period, .duration = na.pc.duration,
	                            .threshold = na.nc.threshold, .policy = na.pc.policy, .prio = na.pc.prio,
	                            .keep_gaps = t != NULL, .mlock = !na.pc.no_mlock};
	const char *locked = "none";
	struct err se = {0};   /* /proc/stat unreadable: steal unknown, not a failure */
	acct_sys_snap(&s0, NULL, 0, &se);
	r.start_realtime_ns = clock_ns(CLOCK_REALTIME);
	int64_t t0 = mono_ns();
	rc = noise_spin_run(r.cpus, n, &sc, &interrupted, &locked, &e);
	kvlist_set(&r.settings, "memory_lock", locked);
	r.duration_ns = mono_ns() - t0;
	r.end_realtime_ns = clock_ns(CLOCK_REALTIME);
	acct_sys_snap(&s1, NULL, 0, &se);
	steal(&r, &s0, &s1);
	acct_sys_free(&s0);
	acct_sys_free(&s1);
	if (t) {
		struct trace_data d;
		struct err te = {0};
		if (trace_stop(t, &d, &te) && !rc)   /* the instance could not be removed: irt restore retries */
			fprintf(stderr, "irt: warning: %s\n", te.msg);
		if (!rc)
			attribute(&r, &d);
		trace_data_free(&d);
	}
	if (moved)
		sched_setaffinity(0, sizeof(old_mask), &old_mask);
	if (rc) {
		noise_result_free(&r);
		return err_print(&e);
	}
	r.interrupted = interrupted;
	if (na.g.format != FORMAT_NONE)
		noise_print(stdout, &r);
	if (na.g.json[0] && noise_write_json(&r, na.g.json, &e)) {
		noise_result_free(&r);
		return err_print(&e);
	}
	if (interrupted) {
		char a[32], b[32];
		cli_interrupted(units_human_duration(a, sizeof(a), r.duration_ns),
		                units_human_duration(b, sizeof(b), na.pc.duration), na.g.json[0] != 0);
		rc = EXIT_INTERRUPTED;
	}
	noise_result_free(&r);
	return rc;
}

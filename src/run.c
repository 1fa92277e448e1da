/* irt run: probe threads together with background loads it starts, bounds and reaps, with
 * per-thread CPU accounting and the system context of the measuring window. */
#include "run.h"

#include "linux/trace.h"

#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "expect.h"
#include "jobfile.h"
#include "linux/acct.h"
#include "linux/cgroup.h"
#include "linux/conditions.h"
#include "linux/env.h"
#include "linux/load.h"
#include "linux/probe.h"
#include "linux/signals.h"
#include "probe_cfg.h"
#include "units.h"
#include "util.h"
#include "watch.h"

/* Loads get this long past the planned end before their own hard deadline kills them. */
#define LOAD_GRACE_NS (5 * NSEC_PER_SEC)

/* Job file first, then the command line: later items win, CLI --name adds definitions. */
int run_collect_args(int argc, char **argv, unsigned scopes, const char *cmd, struct opt_args *cli, struct job *job,
                     char **job_text, struct opt_args *all, struct err *e)
{
	memset(job, 0, sizeof(*job));
	if (opt_parse(argc, argv, scopes, cli, e) || cli_no_extra_args(cli, 1, cmd, e))
		return -1;
	if (cli->npos == 1 && job_text) {
		/* a text that parses holds no NUL byte: strlen is its length */
		size_t len = *job_text ? strlen(*job_text) : 0;
		if (!*job_text && !(*job_text = jobfile_read(cli->pos[0], &len, e)))
			return -1;
		if (jobfile_parse_text(*job_text, len, cli->pos[0], cmd, scopes, job, e))
			return -1;
	} else if (cli->npos == 1 && jobfile_parse(cli->pos[0], cmd, scopes, job, e)) {
		return -1;
	}
	memset(all, 0, sizeof(*all));
	int job_segments = job->args.segments ? job->args.segments : 1;   /* 0: no job file */
	int shift = job_segments - 1;
	/* the command line adjusts the job: its probe options before any --name also go to the
	 * end of every [probe NAME] section, so they win there too */
	all->items = xcalloc((size_t)(job->args.n + cli->n * job_segments) + 1, sizeof(*all->items));
	for (int i = 0; i < job->args.n; i++)
		all->items[all->n++] = job->args.items[i];
	for (int i = 0; i < cli->n; i++) {
		struct opt_item it = cli->items[i];
		if (it.segment > 0)
			it.segment += shift;
		all->items[all->n++] = it;
		for (int seg = 1; it.segment == 0 && (it.opt->scope & SCOPE_PROBE) && seg < job_segments; seg++) {
			all->items[all->n] = it;
			all->items[all->n++].segment = seg;
		}
	}
	all->segments = job_segments + cli->segments - 1;
	return 0;
}

/* The options of --all alone, named: a watch option added later is not one of them by default */
static bool watch_all_option(const struct opt *o)
{
	static const char *const only_all[] = {"by-cpu", "top", "top-by", "top-of", "include-irt", NULL};
	for (const char *const *n = only_all; *n; n++)
		if (strcmp(o->name, *n) == 0)
			return true;
	return false;
}

/* A watch measures the selected threads: options that shape probes have nothing to act on. */
static int check_watch(const struct run *run, const struct opt_args *all, struct err *e)
{
	for (int i = 0; i < all->n; i++) {
		const struct opt *o = all->items[i].opt;
		if (o->scope & SCOPE_PROBE)
			return err_set(e, EXIT_USAGE, "%s: a probe option; with --pid, --comm or --cgroup irt watches those "
			               "threads instead of running probes (give one or the other)", all->items[i].where);
		if (strcmp(o->name, "attribute") == 0)
			return err_set(e, EXIT_USAGE, "%s: splits a probe's lateness; a watched thread's latency "
			               "(sched_waking -> running) is its runqueue wait already", all->items[i].where);
		if (run->wc.all && strcmp(o->name, "explain") == 0)
			return err_set(e, EXIT_USAGE, "%s: not with --all (it keeps the IRQ and migration events of the threads "
			               "it explains; --all times every task's wait from scheduler switches alone): watch "
			               "a task of --all's table with --pid or --comm --explain", all->items[i].where);
		if (!run->wc.all && watch_all_option(o))
			return err_set(e, EXIT_USAGE, "%s: shapes what --all records of every task; without --all irt watches "
			               "the threads of --pid, --comm or --cgroup (give --all)", all->items[i].where);
	}
	return watch_check(&run->wc, e);
}

int run_configure(struct run *run, const struct opt_args *all, const struct job *job, struct err *e)
{
	memset(run, 0, sizeof(*run));
	acct_snap_init(&run->a);
	acct_snap_init(&run->b);
	if (cli_globals(all, &run->g, e) || cli_check_outputs(&run->g, e))
		return -1;
	opt_defaults(SCOPE_RUN, &run->rc);
	opt_defaults(SCOPE_EXPLAIN, &run->xc);
	opt_defaults(SCOPE_WATCH, &run->wc);
	bool warmup_given = false, watch_given = false;
	for (int i = 0; i < all->n; i++) {
		const struct opt *o = all->items[i].opt;
		void *base = (o->scope & SCOPE_RUN) ? (void *)&run->rc : (o->scope & SCOPE_EXPLAIN) ? (void *)&run->xc
		             : (o->scope & SCOPE_WATCH) ? (void *)&run->wc : NULL;
		if (base && opt_set(o, base, all->items[i].value, all->items[i].where, e))
			return -1;
		warmup_given |= strcmp(o->name, "warmup") == 0;
		watch_given |= (o->scope & SCOPE_WATCH) != 0;
	}
	run->watching = watch_selected(&run->wc);
	if (watch_given && !run->watching)
		return watch_check(&run->wc, e);   /* --watch-for alone: which threads? */
	if (run->watching ? check_watch(run, all, e) : probe_cfgs_from_args(all, &run->cfgs, &run->ncfgs, &run->mlock, e))
		return -1;
	if (conditions_pm_qos_arg(all, &run->pm_qos_us, e))
		return -1;
	run->nloads = job->nloads + run->rc.loads.n;
	run->specs = xcalloc((size_t)run->nloads + 1, sizeof(*run->specs));
	run->loads = xcalloc((size_t)run->nloads + 1, sizeof(*run->loads));
	for (int i = 0; i < run->nloads; i++) {
		bool from_job = i < job->nloads;
		const char *spec = from_job ? job->loads[i].spec : run->rc.loads.v[i - job->nloads];
		if (load_parse(spec, &run->specs[i], e)) {
			err_prefix(e, "%s", from_job ? job->loads[i].where : "--load");
			return -1;
		}
		if (from_job)
			snprintf(run->specs[i].name, sizeof(run->specs[i].name), "%s", job->loads[i].name);
		for (int k = 0; k < i; k++)
			if (strcmp(run->specs[k].name, run->specs[i].name) == 0) {   /* "cpu", "cpu2" ... */
				char base[64];
				snprintf(base, sizeof(base), "%s", run->specs[i].name);
				snprintf(run->specs[i].name, sizeof(run->specs[i].name), "%.50s%d", base, i + 1);
			}
	}
	if (run->rc.placement == PLACE_SESSION)
		for (int i = 0; i < run->nloads; i++)
			load_set_session(&run->specs[i], true);
	if (run->watching && !run->nloads && !warmup_given)
		run->rc.warmup = 0;   /* nothing of irt's to warm up: the watch starts at once */
	return 0;
}

bool run_has_rt(const struct run *run, bool loads)
{
	if (!loads) {
		for (int i = 0; i < run->ncfgs; i++)
			if (run->cfgs[i].policy == POL_FIFO || run->cfgs[i].policy == POL_RR)
				return true;
		return false;
	}
	for (int i = 0; i < run->nloads; i++)
		if (run->specs[i].policy == LOAD_POL_FIFO || run->specs[i].policy == LOAD_POL_RR)
			return true;
	return false;
}

int run_grant_rt_budget(const struct cgroup *cg, const char *share, struct err *e)
{
	char path[CG_PATHLEN + 32];
	snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", cg->path);
	if (cg->h->version != CG_V1 || access(path, F_OK) != 0)
		return 0;
	return cgroup_set(cg, "cpu.rt_runtime_us", share, e);
}

static int grant_rt_budget(struct run *run, struct err *e)
{
	bool rt_probes = run_has_rt(run, false), rt_loads = run_has_rt(run, true);
	const char *share = rt_probes && rt_loads ? "450000" : "900000";   /* of the default 950000 */
	if (rt_probes && run_grant_rt_budget(&run->cg_probe, share, e))
		return -1;
	if (rt_loads && run_grant_rt_budget(&run->cg_load, share, e))
		return -1;
	return 0;
}

/* split: an irt cgroup for the probes (irt itself moves there, so its threads start inside)
 * and one for the loads; both journaled, so even a killed irt's cgroups are removed. */
static int place(struct run *run, struct result *r, struct err *e)
{
	struct result_placement *p = &r->placement;
	snprintf(p->mode, sizeof(p->mode), "%s", opt_find("placement")->choices[run->rc.placement]);
	if (run->rc.placement == PLACE_SPLIT) {
		if (cgroup_detect(&run->hier, e))
			return -1;
		if (run->hier.version == CG_NONE)
			return err_set(e, EXIT_RUNTIME, "--placement split: no cgroup cpu controller here (%s); use same or session",
			               run->hier.why);
		/* a missing privilege is exit 1 (docs/hardening.md), as for --policy fifo and a sweep's
		 * cell: the same command works as root, so it is not bad input */
		if (cgroup_can_create(&run->hier, CG_AT_SELF, e))
			goto refused;
		/* a watch has no probes: its threads stay where they are, only the loads move */
		if (!run->watching) {
			if (cgroup_create(&run->cg_probe, &run->hier, "probes", CG_AT_SELF, e))
				goto refused;
			run->have_cg_probe = true;
		}
		if (cgroup_create(&run->cg_load, &run->hier, "loads", CG_AT_SELF, e))
			goto refused;
		run->have_cg_load = true;
		if (grant_rt_budget(run, e))
			return -1;
		if (run->have_cg_probe && cgroup_move(&run->cg_probe, getpid(), false, e))
			goto refused;
		char procs[CG_PATHLEN + 32];
		snprintf(procs, sizeof(procs), "%s/%s", run->cg_load.path, cgroup_procs_file(&run->hier, false));
		for (int i = 0; i < run->nloads; i++)
			if (load_set_cgroup(&run->specs[i], procs, e))
				return -1;
		if (run->have_cg_probe)
			snprintf(p->probe_cgroup, sizeof(p->probe_cgroup), "%s", run->cg_probe.path);
		snprintf(p->load_cgroup, sizeof(p->load_cgroup), "%s", run->cg_load.path);
	} else {
		int ver;
		char dir[256];
		struct err ignore = {0};
		if (acct_cgroup_of(getpid(), dir, sizeof(dir), &ver, &ignore) == 0) {
			if (!run->watching)
				snprintf(p->probe_cgroup, sizeof(p->probe_cgroup), "%s", dir);
			if (run->rc.placement == PLACE_SAME)
				snprintf(p->load_cgroup, sizeof(p->load_cgroup), "%s", dir);
		}
	}
	return 0;
refused:
	if (e->code && (errno == EACCES || errno == EPERM || geteuid() != 0)) {
		/* e says why (needs root ...) once; this says what for and what works instead */
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		snprintf(e->msg, sizeof(e->msg), "--placement split: %.400s; use --placement same or session", why);
	}
	return -1;
}

/* A cgroup of ours that vanished during the run: the placement did not hold. */
static void check_still_there(const struct cgroup *cg, struct err *run_err)
{
	if (access(cg->path, F_OK) != 0 && errno == ENOENT)
		err_set(run_err, EXIT_RUNTIME, "--placement split: cgroup %s was removed from outside irt during the run "
		        "(the placement did not hold; what was measured is kept)", cg->path);
}

static void unplace(struct run *run, struct err *run_err)
{
	struct err ignore = {0};
	if (run->have_cg_probe)
		check_still_there(&run->cg_probe, run_err);
	if (run->have_cg_load)
		check_still_there(&run->cg_load, run_err);
	if (run->have_cg_probe) {
		/* back to where we came from before removing our cgroup */
		char parent_procs[CG_PATHLEN + 32];
		snprintf(parent_procs, sizeof(parent_procs), "%s/%s", run->cg_probe.parent, cgroup_procs_file(&run->hier, false));
		FILE *f = fopen(parent_procs, "w");
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
		cgroup_remove(&run->cg_probe, &ignore);
	}
	if (run->have_cg_load)
		cgroup_remove(&run->cg_load, &ignore);
}

static int64_t planned_length(const struct run *run)
{
	int64_t longest = run->watching ? run->wc.duration : 0;
	for (int i = 0; i < run->ncfgs; i++) {
		int64_t len = probe_cfg_iterations(&run->cfgs[i]) * run->cfgs[i].period + 2 * run->cfgs[i].period;
		if (len > longest)
			longest = len;
	}
	return run->rc.warmup + longest;
}

static int start_loads(struct run *run, struct err *e)
{
	int64_t deadline = mono_ns() + planned_length(run) + LOAD_GRACE_NS;
	for (int i = 0; i < run->nloads; i++) {
		if (load_start(&run->loads[i], &run->specs[i], deadline, e)) {
			err_prefix(e, "load %s", run->specs[i].name);
			return -1;
		}
		run->started++;
	}
	return 0;
}

/* One edge of the measuring window: loads' tasks, irt's main thread, system counters. The
 * window runs from the first read of the first edge to the last read of the second, so every
 * figure of the accounting lies inside the window its header names. */
static void snapshot(struct run *run, struct acct_snap *s, struct acct_sys *sys, struct load_counters *c)
{
	int64_t begin = mono_ns();
	struct err ignore = {0};
	const char *cgs[2];
	int ncg = 0;
	if (run->have_cg_probe)
		cgs[ncg++] = run->cg_probe.path;
	if (run->have_cg_load)
		cgs[ncg++] = run->cg_load.path;
	acct_snap_add_thread(s, getpid(), getpid(), "irt", &ignore);
	if (run->watch)
		watch_snap(run->watch, s);
	for (int i = 0; i < run->started; i++) {
		char role[ACCT_ROLE_LEN];
		snprintf(role, sizeof(role), "load %.26s", run->specs[i].name);
		acct_snap_add_pgrp(s, run->loads[i].worker_pid, role, &ignore);
		load_sample(&run->loads[i], &c[i]);
	}
	acct_sys_snap(sys, cgs, ncg, &ignore);
	acct_snap_span(s, begin, mono_ns());
}

static void fill_loads(struct run *run, struct result *r)
{
	for (int i = 0; i < run->started; i++) {
		struct load *l = &run->loads[i];
		struct result_load *rl = result_add_load(r);
		snprintf(rl->name, sizeof(rl->name), "%s", l->spec.name);
		snprintf(rl->type, sizeof(rl->type), "%s", load_type_name(&l->spec));
		snprintf(rl->spec, sizeof(rl->spec), "%s", l->spec.text);
		load_settings(&l->spec, (void (*)(void *, const char *, const char *))kvlist_set, &rl->settings);
		snprintf(rl->ops_unit, sizeof(rl->ops_unit), "%s", load_ops_unit(&l->spec));
		const char *bu = load_bytes_unit(&l->spec);
		snprintf(rl->bytes_unit, sizeof(rl->bytes_unit), "%s", bu ? bu : "");
		if (run->have_a && run->have_b) {
			/* throughput over the measuring window, not over the warm-up */
			rl->ops = run->cb[i].ops - run->ca[i].ops;
			rl->bytes = run->cb[i].bytes - run->ca[i].bytes;
			rl->errors = run->cb[i].errors - run->ca[i].errors;
			rl->elapsed_ns = run->cb[i].t_ns - run->ca[i].t_ns;
			load_rate(&run->ca[i], &run->cb[i], &rl->ops_per_s, &rl->bytes_per_s);
		}
		static const char *const ends[] = {"running", "stopped", "deadline", "failed"};
		snprintf(rl->end, sizeof(rl->end), "%s", ends[l->result.end]);
		snprintf(rl->failure, sizeof(rl->failure), "%s", l->result.failure);
	}
}

static void fill_accounting(struct run *run, struct result *r)
{
	struct err ignore = {0};
	struct acct_table t;
	if (acct_table_build(&t, &run->a, &run->b, r->env.online_cpus, &ignore) == 0) {
		for (int i = 0; i < t.n; i++) {
			const struct acct_row *row = &t.rows[i];
			struct result_acct *a = result_add_acct(r);
			snprintf(a->name, sizeof(a->name), "%s", row->name);
			snprintf(a->role, sizeof(a->role), "%s", row->role);
			snprintf(a->kind, sizeof(a->kind), "%s", row->kind == ACCT_ROW_THREAD ? "thread" : "children");
			a->pid = row->pid;
			a->tid = row->tid;
			a->wall_ns = row->wall_ns;
			a->used_ns = row->used_ns;
			a->waited_ns = row->waited_ns;
			a->carry_ns = row->carry_ns;
			a->timeslices = row->timeslices;
			a->vol_switches = row->vol_switches;
			a->invol_switches = row->invol_switches;
			a->migrations = row->migrations;
			a->exited = row->exited;
			a->cpu_pct = row->cpu_pct;
			a->run_pct = row->run_pct;
		}
		struct acct_sys_delta d;
		if (acct_sys_delta(&d, &run->sa, &run->sb, &ignore) == 0) {
			struct result_context *c = &r->context;
			struct acct_noise n;
			acct_noise_eval(&n, &d, run->started > 0, t.used_ns);
			c->present = true;
			c->wall_ns = t.wall_ns;   /* the rows' window (the system's reads lie inside it) */
			c->steal_pct = d.have_stat ? d.steal_pct : -1;
			c->ctxt = d.ctxt;
			c->ctxt_per_s = d.ctxt >= 0 ? d.ctxt_per_s : -1;
			c->psi_some_pct = d.have_psi_some ? d.psi_some_pct : -1;
			c->psi_full_pct = d.have_psi_full ? d.psi_full_pct : -1;
			c->load1 = d.have_loadavg ? d.load1 : -1;
			c->load5 = d.have_loadavg ? d.load5 : -1;
			c->load15 = d.have_loadavg ? d.load15 : -1;
			for (int i = 0; i < d.ncg; i++) {
				struct result_cgroup_stat *g = result_add_cgroup_stat(r);
				snprintf(g->path, sizeof(g->path), "%s", d.cg[i].path);
				g->nr_periods = d.cg[i].nr_periods;
				g->nr_throttled = d.cg[i].nr_throttled;
				g->throttled_ns = d.cg[i].throttled_ns;
				g->usage_ns = d.cg[i].usage_ns;
			}
			c->noisy = n.flags != 0;
			snprintf(c->noisy_why, sizeof(c->noisy_why), "%s", n.why);
			acct_sys_delta_free(&d);
		}
		acct_table_free(&t);
	}
}

static void record_autogroups(struct run *run, struct result *r)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)getpid());
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			snprintf(r->placement.probe_autogroup, sizeof(r->placement.probe_autogroup), "%.*s",
			         (int)strcspn(buf, "\n"), buf);
		fclose(f);
	}
	if (run->started)
		snprintf(r->placement.load_autogroup, sizeof(r->placement.load_autogroup), "%s", run->loads[0].autogroup);
}

void run_free(struct run *run)
{
	acct_snap_free(&run->a);
	acct_snap_free(&run->b);
	if (run->have_a)
		acct_sys_free(&run->sa);
	if (run->have_b)
		acct_sys_free(&run->sb);
	free(run->ca);
	free(run->cb);
	free(run->cfgs);
	free(run->specs);
	free(run->loads);
	strlist_free(&run->rc.loads);
	memset(run, 0, sizeof(*run));
}

/* Sleeps until CLOCK_MONOTONIC `until`; true when a stop signal came first. */
static bool wait_until(int64_t until)
{
	for (int64_t now = mono_ns(); now < until; now = mono_ns())
		if (sig_wait_stop(until - now < 100000000 ? until - now : 100000000))
			return true;
	return false;
}

/* The probes from start to end, the window's snapshots while they run; explain's events are
 * collected while the loads still run (their cgroups and policies). */
static int measure_probes(struct run *run, struct result *r, struct explain_run *xr, bool *interrupted,
                          struct err *run_err, struct err *e)
{
	struct probe_session *s = NULL;
	struct probe_opts po = {.mlock = run->mlock, .seed = (uint64_t)run->g.seed, .warmup_ns = run->rc.warmup,
	                        .attribute = run->rc.attribute};
	explain_begin(xr, &run->xc, &po.attribute, r);
	po.trace = xr->t;
	if (probe_start(&s, run->cfgs, run->ncfgs, &po, r, e))
		return -1;
	int64_t window_start = mono_ns() + run->rc.warmup;
	bool live = cli_live_status(&run->g) && !run->quiet_status;
	int64_t drawn = 0;
	while (!probe_done(s)) {
		/* the first edge when the warm-up ends, the second as the probes end (the last probe
		 * thread wakes this wait: SIG_LOOK), whether at their planned end, later (behind) or
		 * sooner (--stop-above): else the window holds time neither measured nor warm-up */
		int64_t wait = run->have_a ? 100000000 : window_start - mono_ns();
		if (wait > 100000000)
			wait = 100000000;
		if (wait < 0)
			wait = 0;
		if (sig_wait_stop(wait)) {
			*interrupted = true;
			probe_stop(s);
		}
		if (!run->have_a && mono_ns() >= window_start) {
			snapshot(run, &run->a, &run->sa, run->ca);
			run->have_a = true;
		}
		if (live && mono_ns() - drawn >= 10000000) {   /* not at every 2 ms look */
			char line[512];
			probe_status(s, line, sizeof(line));
			cli_status_line(line);
			drawn = mono_ns();
		}
		if (*interrupted)
			probe_stop(s);
	}
	if (live)
		cli_status_line(NULL);
	if (run->have_a) {
		snapshot(run, &run->b, &run->sb, run->cb);   /* before the loads stop */
		run->have_b = true;
		struct err ignore = {0};
		probe_acct(s, &run->a, &run->b, &ignore);
	}
	explain_collect(xr, s, run_err);
	probe_finish(s, r, run_err);
	return 0;
}

/* The watched threads (tracing since before the loads started): after the warm-up, a window of
 * --watch-for between the accounting snapshots. */
static void measure_watch(struct run *run, bool *interrupted)
{
	if (wait_until(mono_ns() + run->rc.warmup)) {
		*interrupted = true;
		return;
	}
	snapshot(run, &run->a, &run->sa, run->ca);
	run->have_a = true;
	*interrupted = wait_until(mono_ns() + run->wc.duration);
	snapshot(run, &run->b, &run->sb, run->cb);
	run->have_b = true;
	/* its wake-ups are counted over the accounting's window, the one its header names */
	watch_window(run->watch, run->a.begin_ns, run->b.end_ns);
}

int run_execute(struct run *run, struct result *r, bool *interrupted, struct err *run_err, struct err *e)
{
	struct explain_run xr = {0};
	*interrupted = false;
	if (result_init(r, run->watching ? "watch" : "run", run->watching ? 0 : probe_thread_count(run->cfgs, run->ncfgs), e))
		return -1;
	env_capture(&r->env);
	char buf[64];
	snprintf(buf, sizeof(buf), "%lld", (long long)run->g.seed);
	kvlist_set(&r->settings, "seed", buf);
	kvlist_set(&r->settings, "warmup", units_format_duration(buf, sizeof(buf), run->rc.warmup));
	kvlist_set(&r->settings, "placement", opt_find("placement")->choices[run->rc.placement]);

	if (conditions_hold(run->pm_qos_us, r, e))
		return -1;
	struct conditions cond;
	char cpus[256];
	conditions_probe_cpus(run->cfgs, run->ncfgs, cpus, sizeof(cpus));
	conditions_begin(&cond, cpus);
	/* a watch that cannot trace (not root) starts nothing; its trace runs (with its reader
	 * thread) once the loads run, since loads are forked while irt has one thread */
	if (run->watching && watch_open(&run->watch, &run->wc, &run->xc, e))
		goto stop;
	if (place(run, r, e) || start_loads(run, e))
		goto stop;
	if (run->watching && watch_trace(run->watch, e))
		goto stop;
	record_autogroups(run, r);
	run->ca = xcalloc((size_t)run->nloads + 1, sizeof(*run->ca));
	run->cb = xcalloc((size_t)run->nloads + 1, sizeof(*run->cb));
	if (run->watching)
		measure_watch(run, interrupted);
	else if (measure_probes(run, r, &xr, interrupted, run_err, e))
		goto stop;
stop:
	watch_stop(run->watch, run_err);   /* while the loads still run, as explain_collect */
	conditions_end(&cond, r);   /* before the loads stop: the conditions the probes met */
	for (int i = 0; i < run->started; i++) {
		struct err le = {0};
		if (load_stop(&run->loads[i], &le) && !*interrupted && !run_err->code)
			*run_err = le;   /* reported; what was measured is kept */
	}
	fill_loads(run, r);
	if (run->have_b)
		fill_accounting(run, r);
	unplace(run, run_err);
	if (run->watching)
		watch_finish(run->watch, r, run->watch_empty, sizeof(run->watch_empty), e);
	run->watch = NULL;
	if (e->code)
		explain_abort(&xr);
	else
		explain_finish(&xr, r);
	if (run->pm_qos_us >= 0)
		pmqos_release();   /* only the hold taken here; a sweep's pm.dma_latency knob is its own */
	r->interrupted = *interrupted;
	return e->code ? -1 : 0;
}

void run_say_interrupted(const struct run *run, const struct result *r)
{
	char a[32], b[32];
	cli_interrupted(units_human_duration(a, sizeof(a), r->duration_ns),
	                units_human_duration(b, sizeof(b), run->watching ? run->wc.duration
	                                                                : probe_cfgs_planned_ns(run->cfgs, run->ncfgs)),
	                cli_saves(&run->g));
}

int cmd_run(int argc, char **argv)
{
	struct err e = {0}, run_err = {0};
	struct opt_args cli = {0}, all = {0};
	struct job job;
	struct run run;
	struct result r = {0};
	int rc = EXIT_OK;
	bool interrupted = false;

	memset(&run, 0, sizeof(run));
	struct expect_set gate = {0};
	if (run_collect_args(argc, argv, SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN | SCOPE_COND | SCOPE_GATE | SCOPE_EXPLAIN, "run", &cli, &job, NULL, &all, &e) ||
	    expect_set_from_args(&gate, &cli, "run", &e) || run_configure(&run, &all, &job, &e))
		goto out;
	probe_cfgs_note_times(run.cfgs, run.ncfgs);
	sig_block_stop();
	if (run_execute(&run, &r, &interrupted, &run_err, &e))
		goto out;
	r.cmdline = cli_cmdline(argc, argv);
	if (cli.npos)
		kvlist_set(&r.settings, "job", cli.pos[0]);
	if (run_err.code)
		err_print(&run_err);
	if (cli_output(&r, &run.g, &e))
		goto out;
	if (interrupted)
		run_say_interrupted(&run, &r);
	rc = interrupted ? EXIT_INTERRUPTED : run_err.code ? run_err.code : EXIT_OK;
	int gated = expect_set_result(&gate, &r, &e);
	if (rc == EXIT_OK && gated > 0)
		rc = gated;
	if (rc == EXIT_OK && result_stopper(&r))   /* --stop-above: a crossing is "bad" as an unmet --expect */
		rc = EXIT_UNMET;
out:
	if (e.code)
		rc = err_print(&e);
	result_free(&r);
	expect_set_free(&gate);
	run_free(&run);
	free(all.items);
	opt_args_free(&cli);
	jobfile_free(&job);
	return rc;
}

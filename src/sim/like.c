/* irt sim --like RESULT.json: a cfsbw workload like a measured irt run (docs/sim.md, "A
 * workload like a measured run"). Predict with it, then measure (bench/sim-vs-real). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "sim/policy.h"
#include "sim/workload.h"
#include "units.h"
#include "util.h"

struct like {
	struct workload *w;
	const char *path;
	struct err *e;
	cpu_set_t used;      /* CPUs the run's probes and loads were allowed on */
	int all_cpus;        /* a probe or load without a CPU list */
};

static int set(struct like *l, const char *thread, const char *key, const char *value)
{
	char where[600];
	snprintf(where, sizeof(where), "%s: %s.%s", l->path, thread, key);
	return workload_thread_set(l->w, thread, key, value, where, l->e);
}

static int set_ns(struct like *l, const char *thread, const char *key, int64_t ns)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lldns", (long long)ns);
	return set(l, thread, key, buf);
}

static void note_cpus(struct like *l, const char *list)
{
	cpu_set_t s;
	if (!list || !*list || cpulist_parse(list, &s)) {
		l->all_cpus = 1;
		return;
	}
	CPU_OR(&l->used, &l->used, &s);
}

/* the measured CPU time per wake-up of probe thread t: its accounting row's used time over its
 * samples (the calibrated burn alone does not know what the machine made of it) */
static int64_t probe_exec(const struct result *r, const struct result_thread *t)
{
	for (int i = 0; i < r->nacct; i++)
		if (strcmp(r->acct[i].role, "probe") == 0 && strcmp(r->acct[i].name, t->name) == 0 &&
		    r->acct[i].used_ns > 0 && t->samples > 0)
			return r->acct[i].used_ns / (int64_t)t->samples;
	int64_t burn = 0;
	const char *b = kvlist_get(&t->settings, "burn");
	if (b)
		units_parse_duration(b, &burn);
	return burn;
}

/* Linux's sched_prio_to_weight[]: the CFS weight of nice -20 .. 19 */
static const int nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
	3906,  3121,  2501,  1991,  1586,  1277,  1024,  820,   655,   526,   423,   335,  272,  215,
	172,   137,   110,   87,    70,    56,    45,    36,    29,    23,    18,    15,
};

/* The probe's scheduling as cfsbw weight: nice as Linux weighs it, SCHED_IDLE as weight 3.
 * Real-time and deadline classes cannot be expressed: noted in *rt for one warning. */
static int probe_class(struct like *l, const struct result_thread *t, char *rt, size_t len)
{
	const char *pol = kvlist_get(&t->settings, "policy"), *nice = kvlist_get(&t->settings, "nice");
	const char *prio = kvlist_get(&t->settings, "prio");
	int n = nice ? atoi(nice) : 0;
	char wt[16];
	if (pol && (strcmp(pol, "fifo") == 0 || strcmp(pol, "rr") == 0 || strcmp(pol, "deadline") == 0)) {
		size_t at = strlen(rt);
		snprintf(rt + at, len - at, "%s%s (%s%s%s)", at ? ", " : "", t->name, pol,
		         strcmp(pol, "deadline") && prio ? " " : "", strcmp(pol, "deadline") && prio ? prio : "");
		return 0;
	}
	if (pol && strcmp(pol, "idle") == 0)
		snprintf(wt, sizeof(wt), "3");
	else if (n != 0 && n >= -20 && n <= 19)
		snprintf(wt, sizeof(wt), "%d", nice_weight[n + 20]);
	else
		return 0;
	return set(l, t->name, "weight", wt);
}

int workload_like(const char *path, struct workload *w, struct err *e)
{
	char rt[512] = "";
	struct result r;
	struct like l = {.w = w, .path = path, .e = e};
	memset(w, 0, sizeof(*w));
	snprintf(w->path, sizeof(w->path), "%s", path);
	opt_defaults(SCOPE_SIM, &w->sim);
	CPU_ZERO(&l.used);
	if (result_read(&r, path, e))
		return -1;
	int rc = -1;
	if (strcmp(r.command, "run") != 0) {
		err_set(e, EXIT_USAGE, "%s: --like needs a result of irt run (or a sweep cell), not of irt %s", path, r.command);
		goto out;
	}
	/* the cgroup bandwidth the run applied, and whom it confined (irt-PID-loads or -probes) */
	const char *quota = kvlist_get(&r.settings, "knob.cgroup.quota");
	const char *period = kvlist_get(&r.settings, "knob.cgroup.period");
	int64_t q = 0, p = 100 * 1000000LL;
	if (quota && strcmp(quota, "max") && units_parse_duration(quota, &q)) {
		err_set(e, EXIT_USAGE, "%s: knob.cgroup.quota '%s' is not a duration", path, quota);
		goto out;
	}
	if (period && units_parse_duration(period, &p)) {
		err_set(e, EXIT_USAGE, "%s: knob.cgroup.period '%s' is not a duration", path, period);
		goto out;
	}
	bool loads_confined = false;
	for (int i = 0; i < r.nloads; i++) {
		const char *cg = kvlist_get(&r.loads[i].settings, "cgroup");
		loads_confined |= cg && strstr(cg, "-loads/") != NULL;
	}
	int nprobes = 0;
	for (int i = 0; i < r.nthreads; i++) {
		const struct result_thread *t = &r.threads[i];
		if (strcmp(t->role, "probe") != 0)
			continue;
		const char *per = kvlist_get(&t->settings, "period"), *dl = kvlist_get(&t->settings, "deadline");
		if (!per) {
			err_set(e, EXIT_USAGE, "%s: probe %s has no period in its settings", path, t->name);
			goto out;
		}
		if (set(&l, t->name, "type", "periodic") || set(&l, t->name, "period", per) ||
		    (dl && set(&l, t->name, "deadline", dl)) || set_ns(&l, t->name, "exec", probe_exec(&r, t)) ||
		    probe_class(&l, t, rt, sizeof(rt)))
			goto out;
		if (q > 0 && !loads_confined &&
		    (set(&l, t->name, "group", "probes") || set_ns(&l, t->name, "cfs-quota", q) ||
		     set_ns(&l, t->name, "cfs-period", p)))
			goto out;
		note_cpus(&l, kvlist_get(&t->settings, "cpus"));
		nprobes++;
	}
	int nthreads = 0;
	for (int i = 0; i < r.nloads; i++)
		if (strcmp(r.loads[i].type, "cpu") == 0) {
			const char *n = kvlist_get(&r.loads[i].settings, "threads");
			nthreads += n ? atoi(n) : 1;
		}
	for (int i = 0; i < r.nloads; i++) {
		const struct result_load *ld = &r.loads[i];
		if (strcmp(ld->type, "cpu") != 0) {
			err_set(e, EXIT_USAGE, "%s: load %s is of type %s; --like models cpu loads only", path, ld->name, ld->type);
			goto out;
		}
		const char *n = kvlist_get(&ld->settings, "threads"), *duty = kvlist_get(&ld->settings, "duty");
		const char *dper = kvlist_get(&ld->settings, "period");
		int64_t d = 1000000;   /* ppm */
		if (duty && units_parse_percent(duty, &d))
			d = 1000000;
		for (int j = 0; j < (n ? atoi(n) : 1); j++) {
			char name[96], wt[32];
			/* "cpu-load-1": thread 1 of load cpu (no dot: [sweep] THREAD.key). Not "cpu1", which
			 * reads as the CPU it is on (threads are spread over the CPUs after the probes) */
			snprintf(name, sizeof(name), "%s-load-%d", ld->name, j);
			for (int t = 0; t < r.nthreads; t++)
				if (strcmp(r.threads[t].name, name) == 0) {
					err_set(e, EXIT_USAGE, "%s: probe %s has the name --like gives thread %d of load %s (load "
					        "threads are named LOAD-load-N: a probe needs another name)", path, name, j, ld->name);
					goto out;
				}
			/* CFS weighs irt's loads cgroup like one task of the probes' group: split its
			 * weight over the threads (cfsbw's fairness is flat over threads) */
			snprintf(wt, sizeof(wt), "%d", loads_confined && nthreads > 1 ? 1024 / nthreads : 1024);
			if (d < 1000000 && dper) {
				int64_t dp;
				if (units_parse_duration(dper, &dp)) {
					err_set(e, EXIT_USAGE, "%s: load %s: period '%s' is not a duration", path, ld->name, dper);
					goto out;
				}
				if (set(&l, name, "type", "periodic") || set(&l, name, "period", dper) ||
				    set_ns(&l, name, "exec", dp * d / 1000000))
					goto out;
			} else if (set(&l, name, "type", "cpu-bound")) {
				goto out;
			}
			if (set(&l, name, "weight", wt))
				goto out;
			if (q > 0 && loads_confined &&
			    (set(&l, name, "group", "loads") || set_ns(&l, name, "cfs-quota", q) || set_ns(&l, name, "cfs-period", p)))
				goto out;
			note_cpus(&l, kvlist_get(&ld->settings, "cpus"));
		}
	}
	if (nprobes == 0) {
		err_set(e, EXIT_USAGE, "%s: no probe threads to simulate", path);
		goto out;
	}
	/* CPUs: the ones the run was confined to, threads spread over them round robin (the
	 * simulator does not migrate); unconfined: every CPU of the measuring machine */
	int ncpu = l.all_cpus ? (r.env.online_cpus > 0 ? r.env.online_cpus : 1) : CPU_COUNT(&l.used);
	char buf[32];
	snprintf(buf, sizeof(buf), "%d", ncpu > 0 ? ncpu : 1);
	if (workload_override(w, sim_opt_find(SCOPE_SIM, "policy"), "cfsbw", "--like", e) ||
	    workload_override(w, sim_opt_find(SCOPE_SIM, "cpus"), buf, "--like", e))
		goto out;
	/* the measuring kernel's tick: when EEVDF notices that a slice has ended */
	snprintf(buf, sizeof(buf), "%lldns", r.env.hz > 0 ? 1000000000LL / r.env.hz : 0LL);
	if ((r.env.hz > 0 && workload_override(w, sim_opt_find(SCOPE_SIM, "tick"), buf, "--like", e)) ||
	    workload_override(w, sim_opt_find(SCOPE_SIM, "groups"), "nested", "--like", e))
		goto out;
	/* as long as the measuring window: the probes' wake-ups times their period */
	int64_t dur = 0;
	for (int i = 0; i < r.nthreads; i++) {
		int64_t per = 0;
		const char *ps = kvlist_get(&r.threads[i].settings, "period");
		if (strcmp(r.threads[i].role, "probe") == 0 && ps && !units_parse_duration(ps, &per) &&
		    per * (int64_t)r.threads[i].samples > dur)
			dur = per * (int64_t)r.threads[i].samples;
	}
	if (dur <= 0)
		dur = r.duration_ns;
	snprintf(buf, sizeof(buf), "%lldns", (long long)dur);
	if (dur > 0 && workload_override(w, sim_opt_find(SCOPE_SIM, "duration"), buf, "--like", e))
		goto out;
	for (int i = 0; i < w->nthreads && ncpu > 1; i++) {
		snprintf(buf, sizeof(buf), "%d", i % ncpu);
		if (set(&l, w->threads[i].spec.name, "cpu", buf))
			goto out;
	}
	if (rt[0])   /* after every check: a refused workload needs no warning */
		fprintf(stderr, "irt: warning: %s: %s ran in a real-time or deadline class, which --like's cfsbw cannot "
		        "express: simulated as normal threads (weight 1024), so their waits are overestimated\n", path, rt);
	rc = 0;
out:
	result_free(&r);
	return rc;
}

/* bench/hwquota-vs-genode (`make bench-genode GENODE=/path/to/genode`): irt's hwquota beside the
 * code it reproduces, Genode base-hw's own Kernel::Cpu_scheduler of mid-2015, compiled from a
 * Genode checkout (bench/genode/). Same process, same thread, same pinning, same -O2; times are
 * this thread's CPU time, best of REPS runs, the conditions interleaved. On bench/sim's 10
 * threads and on bench/schedsim/stress_mix.tsv (schedsim's end rule):
 *   a  irt hwquota as users get it (the engine's own hwquota loop)
 *   b  irt hwquota through the engine's generic ops loop (a copy of its ops)
 *   c  Genode's scheduler through the same generic loop (bench/genode/policy_genode.c)
 *   d  the schedulers alone: run b's calls, recorded, replayed in a tight loop against irt's
 *      hwq functions and against Genode's Cpu_scheduler
 * and checks that they schedule alike: at every decision of the replay the same head and
 * quantum, and identical per-thread results of a, b and c. Exit 1 on any divergence.
 *     hwquota-vs-genode [--only sim|stress] [REPS]   (REPS 1: for callgrind, see docs/hw-quota.md) */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genode/genode.h"
#include "genode/policy_genode.h"
#include "opt.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/policy_hwquota.h"
#include "sim/workload.h"
#include "sim_workload.h"

#define STRESS "bench/schedsim/stress_mix.tsv"
#define STRESS_SECONDS "60s"   /* as bench/sim's default */

static void die(const char *what, const struct err *e)
{
	fprintf(stderr, "hwquota-vs-genode: %s: %s\n", what, e->msg);
	exit(1);
}

struct load {
	const char *name;
	struct sim_cfg sim;
	struct sim_thread_spec *t;
	int n;
	struct workload w;   /* the stress file's: t's job rows live in it */
};

static int hwquota_index(void)
{
	for (int i = 0; i < sim_npolicies; i++)
		if (sim_policies[i] == &policy_hwquota)
			return i;
	abort();
}

static void load_sim(struct load *L)
{
	L->name = "bench/sim's 10 threads, 60 s";
	L->t = calloc(SIM_BENCH_THREADS, sizeof(*L->t));
	L->n = sim_bench_workload(&L->sim, L->t, hwquota_index());
}

static void load_stress(struct load *L)
{
	struct err e = {0};
	L->name = STRESS ", 60 s, schedsim's end rule";
	if (workload_load(STRESS, &L->w, &e) ||
	    workload_override(&L->w, sim_opt_find(SCOPE_SIM, "policy"), "hwquota", "policy", &e) ||
	    workload_override(&L->w, sim_opt_find(SCOPE_SIM, "duration"), STRESS_SECONDS, "duration", &e) ||
	    workload_check(&L->w, &e))
		die(STRESS, &e);
	L->n = L->w.nthreads;
	L->t = calloc((size_t)L->n, sizeof(*L->t));
	if (workload_cell(&L->w, 0, &L->sim, L->t, &e))
		die(STRESS, &e);
	if (L->sim.end != SIM_END_IDLE) {
		fprintf(stderr, "hwquota-vs-genode: %s does not end by schedsim's rule\n", STRESS);
		exit(1);
	}
}

/* ---- the engine's runs ---- */

struct outcome {
	struct result_thread *o;
	struct sim_totals tot;
};

static void outcome_reset(struct outcome *r, int n)
{
	if (!r->o)
		r->o = malloc((size_t)n * sizeof(*r->o));
	memset(r->o, 0, (size_t)n * sizeof(*r->o));
	for (int i = 0; i < n; i++) {
		hist_init(&r->o[i].wake);
		hist_init(&r->o[i].resp);
	}
	memset(&r->tot, 0, sizeof(r->tot));
}

static struct policy_ops hwq_copy;   /* policy_hwquota at another address: the generic loop */

/* r reset by the caller, outside the time measured */
static void engine(const struct load *L, const struct policy_ops *ops, struct outcome *r)
{
	struct err e = {0};
	if (engine_run_ops(ops, &L->sim, L->t, L->n, r->o, &r->tot, NULL, NULL, &e))
		die(L->name, &e);
}

/* One function per condition, so that callgrind's --toggle-collect can count each alone (each
 * returns a result read after the run: the run is a call, not a tail jump callgrind would miss). */
#define RUN_FN(name, ops) \
	static __attribute__((noinline)) uint64_t name(const struct load *L, struct outcome *r) \
	{ \
		engine(L, ops, r); \
		return r->tot.decisions; \
	}
RUN_FN(run_own_loop, &policy_hwquota)
RUN_FN(run_generic_irt, &hwq_copy)
RUN_FN(run_generic_genode, &policy_genode)
#undef RUN_FN

/* ---- recording b's scheduler calls: hwquota's ops, each call logged first ---- */

static struct gs_rec *rec;
static size_t rec_n, rec_cap;

static void log_call(int op, const struct sthread *t, int64_t arg)
{
	if (arg < 0 || arg > UINT32_MAX) {
		fprintf(stderr, "hwquota-vs-genode: a call's argument %lld does not fit Genode's unsigned\n", (long long)arg);
		exit(1);
	}
	if (rec_n == rec_cap) {
		rec_cap = rec_cap ? 2 * rec_cap : 1 << 16;
		rec = realloc(rec, rec_cap * sizeof(*rec));
	}
	rec[rec_n++] = (struct gs_rec){.op = (uint8_t)op, .thread = t ? (uint16_t)t->id : 0, .arg = (uint32_t)arg};
}

static void r_create(struct policy *p, struct sthread *t) { log_call(GS_CREATE, t, 0); policy_hwquota.create(p, t); }
static void r_destroy(struct policy *p, struct sthread *t) { log_call(GS_DESTROY, t, 0); policy_hwquota.destroy(p, t); }
static void r_ready(struct policy *p, struct sthread *t) { log_call(GS_READY, t, 0); policy_hwquota.ready(p, t); }
static void r_unready(struct policy *p, struct sthread *t) { log_call(GS_UNREADY, t, 0); policy_hwquota.unready(p, t); }
static void r_yield(struct policy *p) { log_call(GS_YIELD, NULL, 0); policy_hwquota.yield(p); }
static void r_quota(struct policy *p, struct sthread *t, int64_t q) { log_call(GS_QUOTA, t, q); policy_hwquota.quota(p, t, q); }
static void r_update(struct policy *p, int64_t c) { log_call(GS_UPDATE, NULL, c); policy_hwquota.update(p, c); }

static bool r_ready_check(struct policy *p, struct sthread *t)
{
	bool y = policy_hwquota.ready_check(p, t);
	log_call(GS_READY_CHECK, t, y);   /* the answer, for the check */
	return y;
}

static struct sthread *r_decide(struct policy *p, int64_t c, int64_t *quantum)
{
	log_call(GS_UPDATE, NULL, c);
	return policy_hwquota.decide(p, c, quantum);
}

static void record(const struct load *L, struct outcome *r)
{
	struct policy_ops ops = policy_hwquota;
	ops.create = r_create;
	ops.destroy = r_destroy;
	ops.ready = r_ready;
	ops.unready = r_unready;
	ops.ready_check = r_ready_check;
	ops.yield = r_yield;
	ops.quota = r_quota;
	ops.update = r_update;
	ops.decide = r_decide;
	rec_n = 0;
	outcome_reset(r, L->n);
	engine(L, &ops, r);
}

/* ---- the replays ---- */

/* The calls as irt's engine makes them to hwquota: its inline functions (policy_hwquota.h),
 * the rare ones through its ops. decide trims as Genode's update does (within = false). */
static __attribute__((noinline)) uint64_t replay_irt(const struct load *L, const struct gs_rec *log, size_t n,
                                                     struct sthread *st)
{
	struct policy p;
	struct err e = {0};
	if (policy_init(&p, &policy_hwquota, &L->sim, &e))
		die(L->name, &e);
	uint64_t h = 0;
	for (const struct gs_rec *r = log, *end = log + n; r < end; r++) {
		struct sthread *x = &st[r->thread];
		switch (r->op) {
		case GS_UPDATE: {
			int64_t q;
			struct sthread *hd = hwq_decide_inline(&p, r->arg, &q, false);
			h = gs_hash(h, hd ? hd->id : -1, (uint64_t)q);
			break;
		}
		case GS_READY_CHECK: hwq_ready_check_inline(&p, x); break;
		case GS_UNREADY: hwq_unready_inline(&p, x); break;
		case GS_READY: hwq_make_ready(p.st, HWQ_SHARE(x)); break;
		case GS_YIELD: policy_hwquota.yield(&p); break;
		case GS_CREATE: policy_hwquota.create(&p, x); break;
		case GS_DESTROY: policy_hwquota.destroy(&p, x); break;
		case GS_QUOTA: policy_hwquota.quota(&p, x, r->arg); break;
		}
	}
	policy_fini(&p);
	return h;
}

struct replay_args {
	struct sthread *st;
	int *prio;
	unsigned *quota;
};

static void replay_setup(const struct load *L, struct replay_args *a)
{
	a->st = calloc((size_t)L->n, sizeof(*a->st));
	a->prio = calloc((size_t)L->n, sizeof(*a->prio));
	a->quota = calloc((size_t)L->n, sizeof(*a->quota));
	for (int i = 0; i < L->n; i++) {
		a->st[i] = (struct sthread){.name = L->t[i].name, .id = i, .cfg = &L->t[i].cfg};
		a->prio[i] = (int)L->t[i].cfg.prio;
		a->quota[i] = (unsigned)L->t[i].cfg.quota_ns;   /* checked by log_call's create */
	}
}

/* ---- fidelity ---- */

static const char *const op_name[] = {"create", "destroy", "ready", "unready", "ready_check", "yield", "quota", "update"};

/* The calls leading up to call k, to tell which rule a divergence comes from. */
static void print_calls(const struct replay_args *a, size_t k)
{
	for (size_t j = k > 8 ? k - 8 : 0; j <= k; j++)
		printf("    call %zu: %s %s %u\n", j, op_name[rec[j].op],
		       rec[j].op == GS_UPDATE || rec[j].op == GS_YIELD ? "" : a->st[rec[j].thread].name, rec[j].arg);
}

/* Both schedulers step by step through the log: every ready_check's answer (also against the
 * engine's in run b) and after every update the head, quantum and time must agree. */
static bool lockstep(const struct load *L, const struct replay_args *a, uint64_t *decisions, uint64_t *checks)
{
	struct policy p;
	struct err e = {0};
	if (policy_init(&p, &policy_hwquota, &L->sim, &e))
		die(L->name, &e);
	struct gs_sched *g = gs_new((unsigned)L->sim.super_period, (unsigned)L->sim.fill);
	struct gs_share **gsh = calloc((size_t)L->n, sizeof(*gsh));
	bool ok = true;
	*decisions = *checks = 0;
	for (size_t k = 0; k < rec_n && ok; k++) {
		const struct gs_rec *r = &rec[k];
		struct sthread *x = &a->st[r->thread];
		switch (r->op) {
		case GS_CREATE:
			policy_hwquota.create(&p, x);
			gsh[r->thread] = gs_create(g, a->prio[r->thread], a->quota[r->thread], x);
			break;
		case GS_DESTROY: policy_hwquota.destroy(&p, x); gs_destroy(g, gsh[r->thread]); break;
		case GS_READY: policy_hwquota.ready(&p, x); gs_ready(g, gsh[r->thread]); break;
		case GS_UNREADY: policy_hwquota.unready(&p, x); gs_unready(g, gsh[r->thread]); break;
		case GS_YIELD: policy_hwquota.yield(&p); gs_yield(g); break;
		case GS_QUOTA: policy_hwquota.quota(&p, x, r->arg); gs_quota(g, gsh[r->thread], r->arg); break;
		case GS_READY_CHECK: {
			bool i = policy_hwquota.ready_check(&p, x), gy = gs_ready_check(g, gsh[r->thread]);
			++*checks;
			if (i != gy || i != (r->arg != 0)) {
				printf("  DIVERGENCE at call %zu (after decision %llu): ready_check(%s): irt %d, Genode %d, engine's run b %d\n",
				       k, (unsigned long long)*decisions, x->name, i, gy, (int)r->arg);
				print_calls(a, k);
				ok = false;
			}
			break;
		}
		case GS_UPDATE: {
			++*decisions;
			int64_t iq;
			unsigned gq;
			struct sthread *ih = policy_hwquota.decide(&p, r->arg, &iq), *gh = gs_decide(g, r->arg, &gq);
			int64_t it = policy_hwquota.time(&p), gt = gs_time(g);
			if (ih != gh || iq != (int64_t)gq || it != gt) {
				printf("  DIVERGENCE at decision %llu (call %zu, update(%u)): irt head %s quantum %lld time %lld, "
				       "Genode head %s quantum %u time %lld\n",
				       (unsigned long long)*decisions, k, r->arg, ih ? ih->name : "idle", (long long)iq, (long long)it,
				       gh ? gh->name : "idle", gq, (long long)gt);
				print_calls(a, k);
				ok = false;
			}
			break;
		}
		}
	}
	free(gsh);
	gs_free(g);
	policy_fini(&p);
	return ok;
}

/* Per-thread results and totals of two engine runs: the first field that differs, by name. */
static bool same_results(const struct load *L, const char *what, const struct outcome *x, const struct outcome *y)
{
#define FIELD(f) { #f, offsetof(struct result_thread, f) }
	static const struct { const char *name; size_t off; } f64[] = {
		FIELD(sim_used_ns), FIELD(sim_spent_ns), FIELD(sim_switches), FIELD(samples), FIELD(overruns),
		FIELD(deadlines_met), FIELD(deadlines_missed), FIELD(wake.count), FIELD(wake.sum), FIELD(wake.max),
		FIELD(resp.count), FIELD(resp.sum), FIELD(resp.max),
	};
#undef FIELD
	if (x->tot.decisions != y->tot.decisions || x->tot.events != y->tot.events || x->tot.end_ns != y->tot.end_ns) {
		printf("  DIVERGENCE %s: decisions %llu/%llu, events %llu/%llu, end %lld/%lld ns\n", what,
		       (unsigned long long)x->tot.decisions, (unsigned long long)y->tot.decisions,
		       (unsigned long long)x->tot.events, (unsigned long long)y->tot.events, (long long)x->tot.end_ns,
		       (long long)y->tot.end_ns);
		return false;
	}
	for (int i = 0; i < L->n; i++) {
		for (size_t k = 0; k < sizeof(f64) / sizeof(f64[0]); k++) {
			int64_t u, v;
			memcpy(&u, (const char *)&x->o[i] + f64[k].off, sizeof(u));
			memcpy(&v, (const char *)&y->o[i] + f64[k].off, sizeof(v));
			if (u != v) {
				printf("  DIVERGENCE %s: thread %s: %s %lld/%lld\n", what, L->t[i].name, f64[k].name, (long long)u,
				       (long long)v);
				return false;
			}
		}
		if (memcmp(&x->o[i], &y->o[i], sizeof(x->o[i])) != 0) {   /* histograms' buckets and the rest */
			printf("  DIVERGENCE %s: thread %s: the results differ beyond the summary fields\n", what, L->t[i].name);
			return false;
		}
	}
	return true;
}

/* ---- the bench ---- */

enum { A, B, C, D_IRT, D_GENODE, NCOND };
static const char *const cond_name[NCOND] = {
	"a  irt hwquota, its own loop", "b  irt hwquota, generic ops loop", "c  Genode, generic ops loop",
	"d  irt hwq functions, replay", "d  Genode Cpu_scheduler, replay",
};

static bool bench(const struct load *L, int reps)
{
	struct outcome out[3] = {{0}}, recorded = {0};
	struct replay_args ra;
	record(L, &recorded);
	replay_setup(L, &ra);
	uint64_t rd = 0;
	for (size_t k = 0; k < rec_n; k++)
		rd += rec[k].op == GS_UPDATE;

	double best[NCOND];
	uint64_t hash[2] = {0, 0};
	for (int rep = 0; rep < reps; rep++) {
		for (int c = 0; c < NCOND; c++) {   /* interleaved: each condition once per round */
			if (c < 3)
				outcome_reset(&out[c], L->n);
			double t0 = bench_cpu_s();
			switch (c) {
			case A: run_own_loop(L, &out[A]); break;
			case B: run_generic_irt(L, &out[B]); break;
			case C: run_generic_genode(L, &out[C]); break;
			case D_IRT: hash[0] = replay_irt(L, rec, rec_n, ra.st); break;
			case D_GENODE:
				hash[1] = gs_replay(rec, rec_n, ra.prio, ra.quota, L->n, (unsigned)L->sim.super_period,
				                    (unsigned)L->sim.fill);
				break;
			}
			double dt = bench_cpu_s() - t0;
			if (rep == 0 || dt < best[c])
				best[c] = dt;
		}
	}
	uint64_t dec[NCOND] = {out[A].tot.decisions, out[B].tot.decisions, out[C].tot.decisions, rd, rd};
	printf("\n%s (%d threads; super period %lld ms, fill %lld ms, %lld bands)\n", L->name, L->n,
	       (long long)(L->sim.super_period / 1000000), (long long)(L->sim.fill / 1000000), (long long)L->sim.priorities);
	printf("  %-34s %10s %10s %14s\n", "condition", "decisions", "cpu", "decisions/s");
	double rate[NCOND];
	for (int c = 0; c < NCOND; c++) {
		rate[c] = (double)dec[c] / best[c];
		printf("  %-34s %10llu %8.3fms %13.2fM\n", cond_name[c], (unsigned long long)dec[c], best[c] * 1e3, rate[c] / 1e6);
	}
	printf("  ratios (irt's rate / Genode's, > 1: irt faster): a/c %.2f  b/c %.2f  d(irt)/d(Genode) %.2f\n",
	       rate[A] / rate[C], rate[B] / rate[C], rate[D_IRT] / rate[D_GENODE]);

	uint64_t decisions, checks;
	bool ok = lockstep(L, &ra, &decisions, &checks);
	ok = same_results(L, "a against c", &out[A], &out[C]) && ok;
	ok = same_results(L, "a against b", &out[A], &out[B]) && ok;
	ok = same_results(L, "a against b's recording run", &out[A], &recorded) && ok;
	if (hash[0] != hash[1]) {
		printf("  DIVERGENCE: the timed replays' schedules differ (hash %016llx, %016llx)\n",
		       (unsigned long long)hash[0], (unsigned long long)hash[1]);
		ok = false;
	}
	if (ok)
		printf("  fidelity: identical; %llu decisions of the same head, quantum and time, %llu ready_check answers "
		       "alike (and as in run b), per-thread results of a, b and c identical\n",
		       (unsigned long long)decisions, (unsigned long long)checks);
	for (int c = 0; c < 3; c++)
		free(out[c].o);
	free(recorded.o);
	free(ra.st);
	free(ra.prio);
	free(ra.quota);
	return ok;
}

static void conditions(int reps)
{
	cpu_set_t set;
	char cpus[256] = "?";
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		size_t k = 0;
		cpus[0] = 0;
		for (int i = 0; i < CPU_SETSIZE && k + 8 < sizeof(cpus); i++)
			if (CPU_ISSET(i, &set))
				k += (size_t)snprintf(cpus + k, sizeof(cpus) - k, "%s%d", k ? "," : "", i);
	}
	printf("bench/hwquota-vs-genode: irt's hwquota beside Genode base-hw's own scheduler (Kernel::Cpu_scheduler, 2015)\n");
	printf("conditions: one process and thread, CPUs allowed %s (pin with taskset), this thread's CPU time, best of %d\n"
	       "  rounds of all five conditions interleaved\n", cpus, reps);
	printf("  irt:    gcc %s, %s\n  Genode: g++ %s, %s\n", __VERSION__, BENCH_CFLAGS, gs_compiler(), BENCH_CXXFLAGS);
	printf("  Genode checkout: %s (cpu_scheduler.cc blob %s; 6552d47e60's is %s)\n", GENODE_DIR, GENODE_BLOB,
	       "3d27302ce2018156ea6ff1ded11ca3aba89caf2a");
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	int reps = 50;
	if (argc >= 3 && strcmp(argv[1], "--only") == 0) {
		only = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc > 2 || (argc == 2 && (reps = atoi(argv[1])) < 1) ||
	    (only && strcmp(only, "sim") != 0 && strcmp(only, "stress") != 0)) {
		fprintf(stderr, "usage: hwquota-vs-genode [--only sim|stress] [REPS >= 1]\n");
		return 2;
	}
	hwq_copy = policy_hwquota;
	conditions(reps);
	bool ok = true;
	struct load L = {0};
	if (!only || strcmp(only, "sim") == 0) {
		load_sim(&L);
		ok = bench(&L, reps) && ok;
		free(L.t);
	}
	if (!only || strcmp(only, "stress") == 0) {
		memset(&L, 0, sizeof(L));
		load_stress(&L);
		ok = bench(&L, reps) && ok;
		free(L.t);
		workload_free(&L.w);
	}
	return ok ? 0 : 1;
}

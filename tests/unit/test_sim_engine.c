/* The simulator's engine: property tests against the naive tick-by-tick reference (identical
 * schedules and metrics for hwquota, rr, bvt and fair on random small workloads), determinism,
 * and exact outcomes of simple workloads worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "opt.h"
#include "result.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/reference.h"

/* ---------------------------------------------------------------- helpers */

struct trace {
	int64_t *v;   /* cpu, t, head, quantum, ... */
	size_t n, cap;
};

static void record(void *ctx, int cpu, int64_t t, int head, int64_t q)
{
	struct trace *tr = ctx;
	if (tr->n + 4 > tr->cap) {
		tr->cap = tr->cap ? 2 * tr->cap : 1024;
		tr->v = realloc(tr->v, sizeof(int64_t) * tr->cap);
	}
	tr->v[tr->n++] = cpu;
	tr->v[tr->n++] = t;
	tr->v[tr->n++] = head;
	tr->v[tr->n++] = q;
}

static struct result_thread *new_out(int n)
{
	struct result_thread *o = calloc((size_t)n, sizeof(*o));
	for (int i = 0; i < n; i++) {
		hist_init(&o[i].wake);
		hist_init(&o[i].resp);
	}
	return o;
}

static void base_sim(struct sim_cfg *s, const char *policy)
{
	memset(s, 0, sizeof(*s));
	opt_defaults(SCOPE_SIM, s);
	for (int i = 0; i < sim_npolicies; i++)
		if (strcmp(sim_policies[i]->name, policy) == 0)
			s->policy = i;
}

static void base_thread(struct sim_thread_spec *t, const char *name, int type)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	opt_defaults(SCOPE_SIM_THREAD, &t->cfg);
	t->cfg.type = type;
}

static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + sim_rand_below(s, hi - lo + 1);
}

/* bvt's and fair's parameters of one thread (drawn only for them: the other policies'
 * workloads stay as they were) */
static void random_policy_thread(uint64_t *rs, const char *policy, struct sim_thread_cfg *c)
{
	if (strcmp(policy, "bvt") == 0) {
		c->weight = rnd(rs, 1, 3000);
		c->warp = rnd(rs, 0, 1) ? rnd(rs, 1, 60) : 0;
		c->warp_limit = rnd(rs, 0, 1) ? rnd(rs, 1, 40) : 0;
		c->unwarp = rnd(rs, 0, 1) ? rnd(rs, 1, 40) : 0;
	} else if (strcmp(policy, "fair") == 0) {
		c->weight = rnd(rs, 1, 3000);
		c->slice = rnd(rs, 0, 1) ? rnd(rs, 1, 30) : 0;
	}
}

/* A random small workload whose times are whole ticks (1 ns). */
static int random_workload(uint64_t *rs, struct sim_cfg *sim, struct sim_thread_spec *t, const char *policy)
{
	bool hwquota = strcmp(policy, "hwquota") == 0;
	base_sim(sim, policy);
	sim->cpus = rnd(rs, 1, 2);
	sim->duration = rnd(rs, 1500, 4000);
	sim->seed = rnd(rs, 1, 1000);
	sim->cs_cost = rnd(rs, 0, 3) == 0 ? rnd(rs, 1, 3) : 0;
	sim->super_period = rnd(rs, 40, 300);
	sim->fill = rnd(rs, 1, 30);
	sim->priorities = rnd(rs, 1, 4);
	sim->slice = rnd(rs, 1, 30);
	int n = (int)rnd(rs, 1, 6);
	int64_t claimed[2] = {0, 0};
	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "t%d", i & 7);
		int type = (int[]){SIM_PERIODIC, SIM_CPU_BOUND, SIM_IO, SIM_ONESHOT, SIM_TIMER}[rnd(rs, 0, 4)];
		base_thread(&t[i], name, type);
		struct sim_thread_cfg *c = &t[i].cfg;
		c->cpu = rnd(rs, 0, sim->cpus - 1);
		c->start = rnd(rs, 0, 3) ? rnd(rs, 0, 200) : 0;
		c->period = rnd(rs, 5, 120);
		c->exec = rnd(rs, 1, 25);
		if (rnd(rs, 0, 2) == 0) {
			c->exec_dist = DIST_UNIFORM;
			c->exec_max = c->exec + rnd(rs, 0, 20);
		}
		c->block = rnd(rs, 0, 40);
		c->block_max = rnd(rs, 0, 1) ? c->block + rnd(rs, 0, 30) : 0;
		c->work = rnd(rs, 1, 800);
		c->yield_every = rnd(rs, 0, 2) == 0 ? rnd(rs, 1, 20) : 0;
		c->activations = rnd(rs, 1, 8);
		c->window = rnd(rs, 20, 300);
		c->prio = hwquota ? rnd(rs, 0, sim->priorities - 1) : rnd(rs, 0, 3);
		int64_t room = sim->super_period - claimed[c->cpu];
		c->quota_ns = hwquota && room > 0 && rnd(rs, 0, 1) ? rnd(rs, 1, room) : 0;
		claimed[c->cpu] += c->quota_ns;
		if (type == SIM_PERIODIC || type == SIM_TIMER)
			c->deadline = rnd(rs, 0, 1) ? c->period : rnd(rs, 1, 2 * c->period);
		if (type == SIM_IO && rnd(rs, 0, 1))
			c->deadline = rnd(rs, 5, 80);
		random_policy_thread(rs, policy, c);
	}
	return n;
}

static void compare_outs(const struct result_thread *a, const struct result_thread *b, int n, const char *what,
                         unsigned long iter)
{
	for (int i = 0; i < n; i++) {
		const struct result_thread *x = &a[i], *y = &b[i];
#define SAME(f)                                                                                              \
	if (x->f != y->f)                                                                                        \
		fail_msg("%s (iteration %lu): thread %d: " #f " %lld vs %lld", what, iter, i, (long long)x->f,         \
		         (long long)y->f);
		SAME(sim_used_ns)
		SAME(sim_spent_ns)
		SAME(sim_switches)
		SAME(sim_share_ppm)
		SAME(sim_completion_ns)
		SAME(sim_windows)
		SAME(sim_windows_ok)
		SAME(sim_activations_min)
		SAME(samples)
		SAME(overruns)
		SAME(deadlines_met)
		SAME(deadlines_missed)
		SAME(wake.count)
		SAME(wake.sum)
		SAME(wake.max)
		SAME(resp.count)
		SAME(resp.sum)
		SAME(resp.max)
#undef SAME
	}
}

/* Decisions per CPU must be the same sequence (CPUs are independent, so how decisions of
 * different CPUs at the same instant interleave does not matter). */
static void compare_traces(const struct trace *a, const struct trace *b, const char *what, unsigned long iter)
{
	for (int64_t cpu = 0; cpu < 2; cpu++) {
		size_t i = 0, j = 0, k = 0;
		for (;;) {
			while (i < a->n && a->v[i] != cpu)
				i += 4;
			while (j < b->n && b->v[j] != cpu)
				j += 4;
			if (i >= a->n || j >= b->n)
				break;
			if (memcmp(&a->v[i], &b->v[j], 4 * sizeof(int64_t)) != 0)
				fail_msg("%s (iteration %lu): cpu %lld decision %zu differs: t=%lld head %lld q %lld vs t=%lld head %lld q %lld",
				         what, iter, (long long)cpu, k, (long long)a->v[i + 1], (long long)a->v[i + 2],
				         (long long)a->v[i + 3], (long long)b->v[j + 1], (long long)b->v[j + 2], (long long)b->v[j + 3]);
			i += 4;
			j += 4;
			k++;
		}
		if ((i < a->n) != (j < b->n))
			fail_msg("%s (iteration %lu): cpu %lld: different numbers of decisions", what, iter, (long long)cpu);
	}
}

/* ---------------------------------------------------------------- property: engine = reference */

static void engine_equals_reference(const char *policy, const struct policy_ops *naive, uint64_t rs, int iterations)
{
	struct sim_thread_spec t[8];
	for (int it = 0; it < iterations; it++) {
		struct sim_cfg sim;
		int n = random_workload(&rs, &sim, t, policy);
		struct trace te = {0}, tr = {0}, tm = {0};
		struct result_thread *oe = new_out(n), *or = new_out(n), *om = new_out(n);
		struct err e = {0};
		assert_int_equal(engine_run(&sim, t, n, oe, NULL, record, &te, &e), 0);
		assert_int_equal(ref_run(&sim, t, n, 1, naive, or, NULL, record, &tr, &e), 0);
		/* the reference loop with the real policy: tells engine bugs from policy bugs */
		assert_int_equal(ref_run(&sim, t, n, 1, NULL, om, NULL, record, &tm, &e), 0);
		compare_traces(&tm, &tr, "real policy vs naive policy (reference loop)", (unsigned long)it);
		compare_traces(&te, &tr, "engine vs reference", (unsigned long)it);
		compare_outs(oe, or, n, "engine vs reference", (unsigned long)it);
		/* without a trace hwquota on one CPU has its own copy of the loop: the same outcome,
		 * histograms included */
		struct result_thread *of = new_out(n);
		assert_int_equal(engine_run(&sim, t, n, of, NULL, NULL, NULL, &e), 0);
		compare_outs(of, oe, n, "engine without trace vs with", (unsigned long)it);
		for (int i = 0; i < n; i++)
			if (memcmp(&of[i].wake, &oe[i].wake, sizeof(of[i].wake)) || memcmp(&of[i].resp, &oe[i].resp, sizeof(of[i].resp)))
				fail_msg("engine without trace vs with (iteration %d): thread %d: histograms differ", it, i);
		free(of);
		assert_true(te.n > 0);
		free(te.v);
		free(tr.v);
		free(tm.v);
		free(oe);
		free(or);
		free(om);
	}
}

static void test_hwquota_matches_reference(void **state)
{
	(void)state;
	engine_equals_reference("hwquota", &ref_policy_hwquota, 42, 400);
}

static void test_rr_matches_reference(void **state)
{
	(void)state;
	engine_equals_reference("rr", &ref_policy_rr, 4242, 400);
}

static void test_bvt_matches_reference(void **state)
{
	(void)state;
	engine_equals_reference("bvt", &ref_policy_bvt, 424242, 400);
}

static void test_fair_matches_reference(void **state)
{
	(void)state;
	engine_equals_reference("fair", &ref_policy_fair, 4242424, 400);
}


/* ---------------------------------------------------------------- property: policy = naive policy
 * Random op sequences (create, destroy, ready, unready, ready-check, yield, quota, update) drive
 * the real and the naive array-based policy side by side; after every op both must report the
 * same head, quantum and time, and ready-check the same answer. */

static void ops_equal_naive(const struct policy_ops *real, const struct policy_ops *naive, bool decide, int N,
                            int iterations, int steps)
{
	uint64_t rs = 99;
	enum { NMAX = 80 };
	assert_true(N <= NMAX);
	for (int it = 0; it < iterations; it++) {
		struct sim_cfg cfg;
		base_sim(&cfg, real->name);
		cfg.super_period = rnd(&rs, 20, 200);
		cfg.fill = rnd(&rs, 1, 40);
		cfg.priorities = rnd(&rs, 1, 4);
		cfg.slice = rnd(&rs, 1, 40);
		struct sim_thread_cfg tc[NMAX];
		struct sthread a[NMAX], b[NMAX];
		bool exists[NMAX] = {0}, ready[NMAX] = {0};
		for (int i = 0; i < N; i++) {
			memset(&tc[i], 0, sizeof(tc[i]));
			opt_defaults(SCOPE_SIM_THREAD, &tc[i]);
			tc[i].prio = rnd(&rs, 0, cfg.priorities - 1);
			tc[i].quota_ns = rnd(&rs, 0, 1) ? rnd(&rs, 1, cfg.super_period / 2) : 0;
			random_policy_thread(&rs, real->name, &tc[i]);
			a[i] = (struct sthread){.name = "x", .id = i, .cfg = &tc[i]};
			b[i] = a[i];
		}
		struct policy pa, pb;
		struct err e = {0};
		assert_int_equal(policy_init(&pa, real, &cfg, &e), 0);
		assert_int_equal(policy_init(&pb, naive, &cfg, &e), 0);
		int64_t now = 0;
		for (int step = 0; step < steps; step++) {
			int i = (int)rnd(&rs, 0, N - 1), op = (int)rnd(&rs, 0, 9);
			struct sthread *ha = policy_head(&pa);
			pa.now = pb.now = now;
			if (!exists[i]) {
				policy_create(&pa, &a[i]);
				policy_create(&pb, &b[i]);
				exists[i] = true;
			} else if (op == 0 && ha != &a[i]) {
				policy_destroy(&pa, &a[i]);
				policy_destroy(&pb, &b[i]);
				exists[i] = ready[i] = false;
			} else if (op <= 2 && !ready[i]) {
				if (op == 1) {
					policy_ready(&pa, &a[i]);
					policy_ready(&pb, &b[i]);
				} else if (policy_ready_check(&pa, &a[i]) != policy_ready_check(&pb, &b[i])) {
					fail_msg("%s iteration %d step %d: ready-check differs", real->name, it, step);
				}
				ready[i] = true;
			} else if (op <= 3 && ready[i]) {
				policy_unready(&pa, &a[i]);
				policy_unready(&pb, &b[i]);
				ready[i] = false;
			} else if (op == 4) {
				policy_yield(&pa);
				policy_yield(&pb);
			} else if (op == 5 && real->quota) {
				int64_t q = rnd(&rs, 0, 2) ? rnd(&rs, 1, cfg.super_period / 2) : 0;
				real->quota(&pa, &a[i], q);
				naive->quota(&pb, &b[i], q);
			} else {
				int64_t c = rnd(&rs, 0, 60);
				now += c;
				pa.now = pb.now = now;
				policy_update(&pb, c);
				if (decide) {   /* the engine's call: update, head and quantum in one */
					int64_t q;
					struct sthread *h = policy_decide(&pa, c, &q), *hb = policy_head(&pb);
					if ((h ? h->id : -1) != (hb ? hb->id : -1) || q != policy_quantum(&pb))
						fail_msg("%s iteration %d step %d: decide gives head %d quantum %lld, the naive one %d %lld",
						         real->name, it, step, h ? h->id : -1, (long long)q, hb ? hb->id : -1,
						         (long long)policy_quantum(&pb));
				} else {
					policy_update(&pa, c);
				}
			}
			struct sthread *x = policy_head(&pa), *y = policy_head(&pb);
			int hx = x ? x->id : -1, hy = y ? y->id : -1;
			if (hx != hy || policy_quantum(&pa) != policy_quantum(&pb) || real->time(&pa) != naive->time(&pb))
				fail_msg("%s iteration %d step %d: head %d/%d quantum %lld/%lld time %lld/%lld", real->name, it, step, hx, hy,
				         (long long)policy_quantum(&pa), (long long)policy_quantum(&pb), (long long)real->time(&pa),
				         (long long)naive->time(&pb));
		}
		for (int i = 0; i < N; i++)
			if (exists[i]) {
				policy_destroy(&pa, &a[i]);
				policy_destroy(&pb, &b[i]);
			}
		policy_fini(&pa);
		policy_fini(&pb);
	}
}

static void test_policy_ops_match_naive(void **state)
{
	(void)state;
	ops_equal_naive(&policy_hwquota, &ref_policy_hwquota, false, 6, 300, 300);
	ops_equal_naive(&policy_rr, &ref_policy_rr, false, 6, 300, 300);
	ops_equal_naive(&policy_bvt, &ref_policy_bvt, false, 6, 300, 300);
	ops_equal_naive(&policy_bvt, &ref_policy_bvt, true, 6, 300, 300);
	ops_equal_naive(&policy_fair, &ref_policy_fair, false, 6, 300, 300);
	/* bvt and fair choose over a bit per thread up to 64 threads, over all of them beyond */
	ops_equal_naive(&policy_bvt, &ref_policy_bvt, true, 70, 20, 3000);
	ops_equal_naive(&policy_fair, &ref_policy_fair, false, 70, 20, 3000);
}

/* ---------------------------------------------------------------- determinism */

static void run_all_policies(uint64_t seed, struct trace *out)
{
	struct sim_thread_spec t[4];
	struct sim_cfg sim;
	base_sim(&sim, "hwquota");
	for (int p = 0; p < sim_npolicies; p++) {
		if (sim_policies[p]->schedsim)
			continue;   /* schedsim's model runs TSV rows only (test_sim_schedsim.c) */
		sim.policy = p;
		sim.duration = 200000000;
		sim.seed = (int64_t)seed;
		base_thread(&t[0], "a", SIM_SPORADIC);
		t[0].cfg.period = 3000000;
		t[0].cfg.jitter = 2000000;
		t[0].cfg.exec = 500000;
		t[0].cfg.exec_dist = DIST_EXPONENTIAL;
		t[0].cfg.deadline = 3000000;
		t[0].cfg.dl_runtime = 1000000;
		t[0].cfg.dl_period = 3000000;
		base_thread(&t[1], "b", SIM_IO);
		t[1].cfg.exec = 1000000;
		t[1].cfg.exec_max = 4000000;
		t[1].cfg.exec_dist = DIST_UNIFORM;
		t[1].cfg.block = 100000;
		t[1].cfg.block_max = 5000000;
		base_thread(&t[2], "c", SIM_CPU_BOUND);
		base_thread(&t[3], "d", SIM_CPU_BOUND);
		t[3].cfg.weight = 3000;
		struct result_thread *o = new_out(4);
		struct err e = {0};
		assert_int_equal(engine_run(&sim, t, 4, o, NULL, record, out, &e), 0);
		free(o);
	}
}

static void test_deterministic(void **state)
{
	(void)state;
	struct trace a = {0}, b = {0}, c = {0};
	run_all_policies(7, &a);
	run_all_policies(7, &b);
	run_all_policies(8, &c);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.v, b.v, a.n * sizeof(int64_t));
	assert_true(a.n != c.n || memcmp(a.v, c.v, a.n * sizeof(int64_t)) != 0);
	free(a.v);
	free(b.v);
	free(c.v);
}

/* ---------------------------------------------------------------- exact small outcomes */

#define MS 1000000LL

static void test_periodic_alone(void **state)
{
	(void)state;
	for (int p = 0; p < sim_npolicies; p++) {
		struct sim_cfg sim;
		struct sim_thread_spec t;
		if (sim_policies[p]->schedsim)
			continue;   /* schedsim's model runs TSV rows only (test_sim_schedsim.c) */
		base_sim(&sim, sim_policies[p]->name);
		sim.duration = 1000 * MS;
		base_thread(&t, "p", SIM_PERIODIC);
		t.cfg.period = 10 * MS;
		t.cfg.exec = 2 * MS;
		t.cfg.deadline = 10 * MS;
		t.cfg.dl_runtime = 3 * MS;
		t.cfg.dl_period = 10 * MS;
		struct result_thread *o = new_out(1);
		struct err e = {0};
		assert_int_equal(engine_run(&sim, &t, 1, o, NULL, NULL, NULL, &e), 0);
		assert_int_equal(o->samples, 100);
		assert_int_equal(o->wake.max, 0);
		assert_int_equal(o->resp.min, 2 * MS);
		assert_int_equal(o->resp.max, 2 * MS);
		assert_int_equal(o->deadlines_met, 100);
		assert_int_equal(o->deadlines_missed, 0);
		assert_int_equal(o->sim_used_ns, 200 * MS);
		assert_int_equal(o->sim_share_ppm, 200000);
		free(o);
	}
}

/* hwquota counters as in Genode's cpu_quota test: A claims 10 %, B 80 %, C none. The 10 %
 * nobody claims is filled round robin by all three: 10/3 % each. */
static void test_hwquota_counters(void **state)
{
	(void)state;
	struct sim_cfg sim;
	struct sim_thread_spec t[3];
	base_sim(&sim, "hwquota");
	sim.duration = 30000 * MS;
	const char *names[] = {"a", "b", "c"};
	int64_t quota[] = {100 * MS, 800 * MS, 0};
	for (int i = 0; i < 3; i++) {
		base_thread(&t[i], names[i], SIM_CPU_BOUND);
		t[i].cfg.quota_ns = quota[i];
		t[i].cfg.prio = 1;
	}
	struct result_thread *o = new_out(3);
	struct err e = {0};
	assert_int_equal(engine_run(&sim, t, 3, o, NULL, NULL, NULL, &e), 0);
	double want[] = {10 + 10.0 / 3, 80 + 10.0 / 3, 10.0 / 3};
	for (int i = 0; i < 3; i++) {
		double got = (double)o[i].sim_share_ppm / 10000.0;
		if (got < want[i] - 0.1 || got > want[i] + 0.1)
			fail_msg("%s: share %.3f%%, want %.3f%%", names[i], got, want[i]);
	}
	/* a and b are switched in 4 times per super period (once for the claim, the rest as
	 * fills). The three wake-ups at 0 make a head for 0 ns before b's claim preempts it:
	 * no switch (a counted 121) */
	assert_int_equal(o[0].sim_switches, 4 * 30);
	assert_int_equal(o[1].sim_switches, 4 * 30);
	free(o);
}

/* Context-switch cost: charged to the incoming thread's share, never executed. */
static void test_cs_cost(void **state)
{
	(void)state;
	struct sim_cfg sim;
	struct sim_thread_spec t[2];
	base_sim(&sim, "rr");
	sim.duration = 1000 * MS;
	sim.slice = 10 * MS;
	sim.cs_cost = 1 * MS;
	base_thread(&t[0], "a", SIM_CPU_BOUND);
	base_thread(&t[1], "b", SIM_CPU_BOUND);
	struct result_thread *o = new_out(2);
	struct err e = {0};
	assert_int_equal(engine_run(&sim, t, 2, o, NULL, NULL, NULL, &e), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(o[i].sim_switches, 50);
		assert_int_equal(o[i].sim_spent_ns, 500 * MS);
		assert_int_equal(o[i].sim_spent_ns - o[i].sim_used_ns, 50 * MS);
	}
	free(o);
}

/* n threads under `policy` for `ms`; their results (the caller frees them). */
static struct result_thread *run_for(const char *policy, const struct sim_thread_spec *t, int n, int64_t ms)
{
	struct sim_cfg sim;
	base_sim(&sim, policy);
	sim.duration = ms * MS;
	struct result_thread *o = new_out(n);
	struct err e = {0};
	assert_int_equal(engine_run(&sim, t, n, o, NULL, NULL, NULL, &e), 0);
	return o;
}

/* Wake-ups at one instant are one scheduling event: a head chosen and replaced at the same
 * instant never ran and counts no switch. edf: a (4 ms every 20 ms) and b (3 ms every 10 ms)
 * wake at 0, a first on the idle CPU, then b with the earlier deadline: b runs 0-3, a 3-7,
 * b 10-13, so one switch per job: a 5, b 10 in 100 ms (a counted 10: its 0-ns heads at 0,
 * 20, ...). */
static void test_simultaneous_wakeups(void **state)
{
	(void)state;
	struct sim_thread_spec t[2];
	const char *names[] = {"a", "b"};
	int64_t period[] = {20 * MS, 10 * MS}, exec[] = {4 * MS, 3 * MS};
	for (int i = 0; i < 2; i++) {
		base_thread(&t[i], names[i], SIM_PERIODIC);
		t[i].cfg.period = period[i];
		t[i].cfg.exec = exec[i];
		t[i].cfg.dl_runtime = exec[i];
		t[i].cfg.dl_deadline = t[i].cfg.dl_period = period[i];
	}
	struct result_thread *o = run_for("edf", t, 2, 100);
	assert_int_equal(o[0].sim_switches, 5);
	assert_int_equal(o[1].sim_switches, 10);
	assert_int_equal(o[0].wake.max, 3 * MS);
	free(o);
}

/* cfsbw: a thread whose job ends as its group's pool runs dry sleeps while throttled. The
 * refill comes on time (Linux's period timer), also while the CPU idles: woken before the
 * refill it runs at the refill, woken after it at once. An idle CPU used to keep its unlimited
 * quantum and a stale pool, and the thread never ran again. */
static void test_cfsbw_throttled_sleeper(void **state)
{
	(void)state;
	struct sim_thread_spec t;
	/* 20 ms bursts, 30 ms asleep, 20 ms per 100 ms: bursts at 0, 100, ..., 900 */
	base_thread(&t, "a", SIM_IO);
	t.cfg.exec = 20 * MS;
	t.cfg.block = 30 * MS;
	t.cfg.cfs_quota = 20 * MS;
	t.cfg.cfs_period = 100 * MS;
	struct result_thread *o = run_for("cfsbw", &t, 1, 1000);
	assert_int_equal(o->sim_used_ns, 200 * MS);
	assert_int_equal(o->samples, 10);
	assert_int_equal(o->wake.max, 50 * MS);
	assert_int_equal(o->resp.max, 70 * MS);
	free(o);
	/* 50 ms every 300 ms, 20 ms per 100 ms with a 20 ms burst: the second job ends at 420
	 * with the pool empty; the third (600) gets the 40 ms saved up and ends at 710 */
	base_thread(&t, "a", SIM_PERIODIC);
	t.cfg.period = 300 * MS;
	t.cfg.exec = 50 * MS;
	t.cfg.cfs_quota = 20 * MS;
	t.cfg.cfs_period = 100 * MS;
	t.cfg.cfs_burst = 20 * MS;
	o = run_for("cfsbw", &t, 1, 1000);
	assert_int_equal(o->samples, 3);
	assert_int_equal(o->sim_used_ns, 190 * MS);
	assert_int_equal(o->resp.min, 110 * MS);
	free(o);
}

/* cfsbw: two equal hogs in a group of 50 ms per 100 ms beside a third hog. After each refill
 * the group comes back as one entity, its threads' lead on each other kept, so the one behind
 * runs first and both get 25 ms per period; placed one by one they tied every period and
 * thread order gave a the odd slice (a 260 ms, b 240 ms in 1 s), flat or nested. */
static void test_cfsbw_refill_keeps_lead(void **state)
{
	(void)state;
	struct sim_thread_spec t[3];
	const char *names[] = {"a", "b", "c"};
	for (int i = 0; i < 3; i++)
		base_thread(&t[i], names[i], SIM_CPU_BOUND);
	snprintf(t[0].cfg.group, sizeof(t[0].cfg.group), "g");
	snprintf(t[1].cfg.group, sizeof(t[1].cfg.group), "g");
	t[0].cfg.cfs_quota = 50 * MS;
	t[0].cfg.cfs_period = 100 * MS;
	for (int nested = 0; nested < 2; nested++) {
		struct sim_cfg sim;
		base_sim(&sim, "cfsbw");
		sim.duration = 1000 * MS;
		sim.groups = nested ? SIM_GROUPS_NESTED : SIM_GROUPS_FLAT;
		struct result_thread *o = new_out(3);
		struct err e = {0};
		assert_int_equal(engine_run(&sim, t, 3, o, NULL, NULL, NULL, &e), 0);
		if (o[0].sim_used_ns - o[1].sim_used_ns > 3 * MS || o[1].sim_used_ns - o[0].sim_used_ns > 3 * MS)
			fail_msg("groups %s: a %lld ms, b %lld ms", nested ? "nested" : "flat",
			         (long long)(o[0].sim_used_ns / MS), (long long)(o[1].sim_used_ns / MS));
		free(o);
	}
}

/* edf: thread a with a server (runtime, deadline, period in ms) beside a background hog, for
 * `ms`; the two threads' results (the caller frees them). */
static struct result_thread *edf_server_beside_hog(const struct sim_thread_spec *a, int64_t r, int64_t d,
                                                   int64_t p, int64_t ms)
{
	struct sim_thread_spec t[2];
	t[0] = *a;
	t[0].cfg.dl_runtime = r * MS;
	t[0].cfg.dl_deadline = d * MS;
	t[0].cfg.dl_period = p * MS;
	base_thread(&t[1], "bg", SIM_CPU_BOUND);
	return run_for("edf", t, 2, ms);
}

/* Wake-up latency is the first execution of a job, also of one that follows its thread's
 * previous job at once: edf, 5 ms of work every 20 ms on a server of 3 ms per 20 ms (deadline
 * 10 ms) beside a background hog. The server runs [20k, 20k + 3); job k starts when 5k ms of
 * service are done: at 0, 22, 61, 100 (job 3's predecessor ends at 83 with the budget), 122,
 * 161; job 6's predecessor ends at 183, and it never runs before the end at 200. */
static void test_backlog_wake(void **state)
{
	(void)state;
	struct sim_thread_spec a;
	base_thread(&a, "a", SIM_PERIODIC);
	a.cfg.period = 20 * MS;
	a.cfg.exec = 5 * MS;
	a.cfg.deadline = 20 * MS;
	struct result_thread *o = edf_server_beside_hog(&a, 3, 10, 20, 200);
	assert_int_equal(o[0].samples, 6);
	assert_int_equal(o[0].wake.count, 6);
	assert_int_equal(o[0].wake.max, 61 * MS);
	assert_int_equal(o[0].wake.sum, (0 + 2 + 21 + 40 + 42 + 61) * MS);
	assert_int_equal(o[0].resp.max, 83 * MS);
	assert_int_equal(o[0].sim_used_ns, 30 * MS);
	free(o);
}

/* A job that ends exactly at its thread's next release is no overrun (docs/result-schema.md:
 * work ended after the next release); the next job starts at once all the same. */
static void test_exact_fit_no_overrun(void **state)
{
	(void)state;
	struct sim_thread_spec t;
	base_thread(&t, "p", SIM_PERIODIC);
	t.cfg.period = 10 * MS;
	t.cfg.exec = 10 * MS;
	t.cfg.deadline = 10 * MS;
	struct result_thread *o = run_for("rr", &t, 1, 100);
	assert_int_equal(o->samples, 10);   /* the tenth ends at the end, 100 ms: done (test_run_end) */
	assert_int_equal(o->overruns, 0);
	assert_int_equal(o->deadlines_met, 10);
	assert_int_equal(o->deadlines_missed, 0);
	assert_int_equal(o->wake.max, 0);
	assert_int_equal(o->sim_used_ns, 100 * MS);
	free(o);
}

/* The run's last instant: a job finishing at the end has finished (its deadline, at the end,
 * met), a one-shot finishing then has its boot time; a job unfinished at a deadline equal to
 * the end has missed it (it needs time after it). 100 ms alone. */
static void test_run_end(void **state)
{
	(void)state;
	struct sim_thread_spec t[1];
	base_thread(&t[0], "boot", SIM_ONESHOT);
	t[0].cfg.work = 60 * MS;
	t[0].cfg.start = 40 * MS;
	struct result_thread *o = run_for("rr", t, 1, 100);
	assert_int_equal(o->sim_completion_ns, 60 * MS);
	assert_int_equal(o->samples, 1);
	free(o);
	/* p: 110 ms of work due at 100 ms */
	base_thread(&t[0], "p", SIM_PERIODIC);
	t[0].cfg.period = t[0].cfg.deadline = 100 * MS;
	t[0].cfg.exec = 110 * MS;
	o = run_for("rr", t, 1, 100);
	assert_int_equal(o->samples, 0);
	assert_int_equal(o->deadlines_met, 0);
	assert_int_equal(o->deadlines_missed, 1);
	free(o);
	/* 100 ms of work by 100 ms: met */
	t[0].cfg.exec = 100 * MS;
	o = run_for("rr", t, 1, 100);
	assert_int_equal(o->deadlines_met, 1);
	assert_int_equal(o->deadlines_missed, 0);
	free(o);
}

/* edf: a server that spends its whole budget (2 ms per 10 ms) in each 2 ms burst and sleeps
 * 3 ms wakes throttled; its replenishment at the next period preempts the background hog, as
 * Linux's timer does (the hog's 10 ms slice used to run on first): every burst after the first
 * starts 5 ms after its wake-up and ends 7 ms after it. */
static void test_edf_throttled_wake(void **state)
{
	(void)state;
	struct sim_thread_spec a;
	base_thread(&a, "a", SIM_IO);
	a.cfg.exec = 2 * MS;
	a.cfg.block = 3 * MS;
	struct result_thread *o = edf_server_beside_hog(&a, 2, 10, 10, 100);
	assert_int_equal(o[0].samples, 10);
	assert_int_equal(o[0].wake.max, 5 * MS);
	assert_int_equal(o[0].resp.max, 7 * MS);
	assert_int_equal(o[0].sim_used_ns, 20 * MS);
	free(o);
}

static void test_oneshot_and_cpus(void **state)
{
	(void)state;
	struct sim_cfg sim;
	struct sim_thread_spec t[3];
	base_sim(&sim, "hwquota");
	sim.cpus = 2;
	sim.duration = 10000 * MS;
	base_thread(&t[0], "boot", SIM_ONESHOT);
	t[0].cfg.work = 3000 * MS;
	t[0].cfg.exec = 20 * MS;
	t[0].cfg.block = 5 * MS;
	t[0].cfg.start = 100 * MS;
	base_thread(&t[1], "hog", SIM_CPU_BOUND);
	base_thread(&t[2], "alone", SIM_CPU_BOUND);
	t[2].cfg.cpu = 1;
	struct result_thread *o = new_out(3);
	struct err e = {0};
	assert_int_equal(engine_run(&sim, t, 3, o, NULL, NULL, NULL, &e), 0);
	/* boot and hog share CPU 0 in 10 ms fills; boot blocks 5 ms after every 20 ms */
	assert_true(o[0].sim_completion_ns > 3000 * MS);
	assert_int_equal(o[0].sim_used_ns, 3000 * MS);
	assert_int_equal(o[0].samples, 150);
	assert_int_equal(o[2].sim_share_ppm, 1000000);
	assert_int_equal(o[0].sim_spent_ns + o[1].sim_spent_ns, 10000 * MS - 0);
	free(o);
}

/* A timer with 20 activations per second needs 19: every window ok; starved by a
 * higher-priority hog under rr it fails every window. */
static void test_timer_windows(void **state)
{
	(void)state;
	struct sim_cfg sim;
	struct sim_thread_spec t[2];
	base_sim(&sim, "rr");
	sim.duration = 5000 * MS;
	base_thread(&t[0], "timer", SIM_TIMER);
	t[0].cfg.period = 50 * MS;
	t[0].cfg.exec = 1 * MS;
	t[0].cfg.activations = 19;
	t[0].cfg.window = 1000 * MS;
	t[0].cfg.deadline = 50 * MS;
	t[0].cfg.prio = 2;
	base_thread(&t[1], "hog", SIM_CPU_BOUND);
	t[1].cfg.prio = 1;
	struct result_thread *o = new_out(2);
	struct err e = {0};
	assert_int_equal(engine_run(&sim, t, 2, o, NULL, NULL, NULL, &e), 0);
	assert_int_equal(o[0].sim_windows, 5);
	assert_int_equal(o[0].sim_windows_ok, 5);
	assert_int_equal(o[0].sim_activations_min, 20);
	free(o);
	t[1].cfg.prio = 3;
	o = new_out(2);
	assert_int_equal(engine_run(&sim, t, 2, o, NULL, NULL, NULL, &e), 0);
	assert_int_equal(o[0].sim_windows, 5);
	assert_int_equal(o[0].sim_windows_ok, 0);
	assert_int_equal(o[0].sim_activations_min, 0);
	assert_int_equal(o[0].deadlines_missed, 100);
	free(o);
}

static void test_admission(void **state)
{
	(void)state;
	struct sim_cfg sim;
	struct sim_thread_spec t[2];
	base_sim(&sim, "hwquota");
	base_thread(&t[0], "a", SIM_CPU_BOUND);
	base_thread(&t[1], "b", SIM_CPU_BOUND);
	t[0].cfg.quota_ns = 600 * MS;
	t[1].cfg.quota_ns = 500 * MS;
	struct result_thread *o = new_out(2);
	struct err e = {0};
	assert_int_equal(engine_run(&sim, t, 2, o, NULL, NULL, NULL, &e), -1);
	assert_int_equal(e.code, 2);
	assert_non_null(strstr(e.msg, "claims sum to 1100ms"));
	base_sim(&sim, "edf");
	t[0].cfg.dl_runtime = 6 * MS;
	t[0].cfg.dl_period = 10 * MS;
	t[1].cfg.dl_runtime = 5 * MS;
	t[1].cfg.dl_period = 10 * MS;
	err_clear(&e);
	assert_int_equal(engine_run(&sim, t, 2, o, NULL, NULL, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "110.0%"));
	free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hwquota_matches_reference),
		cmocka_unit_test(test_rr_matches_reference),
		cmocka_unit_test(test_bvt_matches_reference),
		cmocka_unit_test(test_fair_matches_reference),
		cmocka_unit_test(test_policy_ops_match_naive),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_periodic_alone),
		cmocka_unit_test(test_hwquota_counters),
		cmocka_unit_test(test_cs_cost),
		cmocka_unit_test(test_simultaneous_wakeups),
		cmocka_unit_test(test_cfsbw_throttled_sleeper),
		cmocka_unit_test(test_cfsbw_refill_keeps_lead),
		cmocka_unit_test(test_backlog_wake),
		cmocka_unit_test(test_exact_fit_no_overrun),
		cmocka_unit_test(test_run_end),
		cmocka_unit_test(test_edf_throttled_wake),
		cmocka_unit_test(test_oneshot_and_cpus),
		cmocka_unit_test(test_timer_windows),
		cmocka_unit_test(test_admission),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

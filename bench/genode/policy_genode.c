/* Genode's own scheduler (genode.h) behind irt's ops table, so that irt's engine runs it through
 * its generic loop on any workload: the peer of hwquota in bench/hwquota-vs-genode. irt's
 * nanoseconds are Genode's ticks; Genode counts them in 32-bit `unsigned`, so a super period,
 * fill, quota or consumed time above UINT32_MAX ns (4.29 s) is refused, never wrapped. */
#include <stdio.h>
#include <stdlib.h>

#include "genode/genode.h"
#include "genode/policy_genode.h"
#include "sim/policy.h"

static const char *const sim_keys[] = {"super-period", "fill", "priorities", NULL};
static const char *const thread_keys[] = {"prio", "quota", NULL};

static unsigned ticks(int64_t ns)
{
	if (ns < 0 || ns > UINT32_MAX) {   /* the engine never asks this of hwquota's workloads */
		fprintf(stderr, "genode: %lld ns does not fit Genode's unsigned ticks\n", (long long)ns);
		exit(1);
	}
	return (unsigned)ns;
}

static int g_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	if (cfg->super_period <= 0 || cfg->super_period > UINT32_MAX || cfg->fill <= 0 || cfg->fill > UINT32_MAX)
		return err_set(e, EXIT_USAGE, "genode: super-period and fill must be 1 ns .. 4.29 s (Genode's unsigned)");
	if (cfg->priorities != gs_priorities())
		return err_set(e, EXIT_USAGE, "genode: Genode's kernel has %d priority bands (kernel/configuration.h), the workload %lld",
		               gs_priorities(), (long long)cfg->priorities);
	p->st = gs_new((unsigned)cfg->super_period, (unsigned)cfg->fill);
	return 0;
}

static void g_fini(struct policy *p)
{
	gs_free(p->st);
	p->st = NULL;
}

static int g_admit(const struct sim_cfg *cfg, struct sthread *const *ts, int n, struct err *e)
{
	return policy_hwquota.admit(cfg, ts, n, e);   /* the same rules: bands, claims <= super period */
}

static void g_create(struct policy *p, struct sthread *t)
{
	t->ps = gs_create(p->st, (int)t->cfg->prio, ticks(t->cfg->quota_ns), t);
}

static void g_destroy(struct policy *p, struct sthread *t) { gs_destroy(p->st, t->ps); }
static void g_ready(struct policy *p, struct sthread *t) { gs_ready(p->st, t->ps); }
static void g_unready(struct policy *p, struct sthread *t) { gs_unready(p->st, t->ps); }
static bool g_ready_check(struct policy *p, struct sthread *t) { return gs_ready_check(p->st, t->ps); }
static void g_yield(struct policy *p) { gs_yield(p->st); }
static void g_quota(struct policy *p, struct sthread *t, int64_t q) { gs_quota(p->st, t->ps, ticks(q)); }
static void g_update(struct policy *p, int64_t c) { gs_update(p->st, ticks(c)); }
static struct sthread *g_head(const struct policy *p) { return gs_head(p->st); }
static int64_t g_quantum(const struct policy *p) { return gs_head_quota(p->st); }
static int64_t g_time(const struct policy *p) { return gs_time(p->st); }

static struct sthread *g_decide(struct policy *p, int64_t c, int64_t *quantum)
{
	unsigned q;
	struct sthread *h = gs_decide(p->st, ticks(c), &q);
	*quantum = q;
	return h;
}

const struct policy_ops policy_genode = {
	.name = "genode",
	.summary = "Genode base-hw's own Kernel::Cpu_scheduler (2015), compiled from $GENODE",
	.sim_keys = sim_keys,
	.thread_keys = thread_keys,
	.init = g_init,
	.fini = g_fini,
	.admit = g_admit,
	.create = g_create,
	.destroy = g_destroy,
	.ready = g_ready,
	.unready = g_unready,
	.ready_check = g_ready_check,
	.yield = g_yield,
	.quota = g_quota,
	.update = g_update,
	.head = g_head,
	.quantum = g_quantum,
	.time = g_time,
	.decide = g_decide,
};

/* hwquota: Genode base-hw's quota scheduler ("claims and fills") as of mid-2015, decision for
 * decision, quirks included. The specification is docs/hw-quota.md; the comments below use
 * its names and the numbers of its update steps. Times are whatever unit the caller uses. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "sim/policy_hwquota.h"
#include "units.h"
#include "util.h"

static const char *const sim_keys[] = {"super-period", "fill", "priorities", NULL};
static const char *const thread_keys[] = {"prio", "quota", NULL};

static int hwq_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	if (cfg->super_period <= 0 || cfg->fill <= 0 || cfg->priorities < 1 || cfg->priorities > 64)
		return err_set(e, EXIT_USAGE, "hwquota: super-period and fill must be > 0 and priorities 1..64");
	struct hwq *h = xcalloc(1, sizeof(*h));
	h->Q = cfg->super_period;
	h->F = cfg->fill;
	h->P = (int)cfg->priorities;
	h->residual = h->Q;
	h->R = xcalloc((size_t)h->P, sizeof(*h->R));   /* sentinels: claim 0 */
	for (int i = 0; i < h->P; i++)
		dlist_init(HWQ_BAND(h, i));
	dlist_init(&h->CL);
	dlist_init(&h->FL);
	h->head = NULL;         /* idle, head_q = F, not a claim */
	h->head_q = h->F;
	p->st = h;
	return 0;
}

static void hwq_fini(struct policy *p)
{
	struct hwq *h = p->st;
	if (!h)
		return;
	free(h->R);
	free(h);
	p->st = NULL;
}

static int hwq_admit(const struct sim_cfg *cfg, struct sthread *const *ts, int n, struct err *e)
{
	int64_t sum = 0;
	char a[32], b[32];
	for (int i = 0; i < n; i++) {
		const struct sim_thread_cfg *c = ts[i]->cfg;
		if (c->prio < 0 || c->prio >= cfg->priorities)
			return err_set(e, EXIT_USAGE, "thread %s: prio %" PRId64 " is not a band of hwquota (0..%" PRId64 ", see priorities)",
			               ts[i]->name, c->prio, cfg->priorities - 1);
		if (c->quota_ns < 0)
			return err_set(e, EXIT_USAGE, "thread %s: negative quota", ts[i]->name);
		sum += c->quota_ns;
	}
	if (sum > cfg->super_period)
		return err_set(e, EXIT_USAGE, "claims sum to %s, more than the super period %s (lower the quotas)",
		               units_format_duration(a, sizeof(a), sum),
		               units_format_duration(b, sizeof(b), cfg->super_period));
	return 0;
}

static void hwq_create(struct policy *p, struct sthread *t)
{
	struct hwq *h = p->st;
	/* t->ps set before create: zeroed storage the caller keeps for the share (the engine's
	 * thread record, see engine.c); else it is allocated here and freed by destroy */
	struct hwq_share *s = t->ps;
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->owned = true;
	}
	s->t = t;
	s->prio = (int)t->cfg->prio;
	s->band = HWQ_BAND(h, s->prio);
	s->bit = UINT64_C(1) << s->prio;
	s->quota = t->cfg->quota_ns;
	t->ps = s;
	if (s->quota > 0) {
		s->claim = s->quota;
		dlist_push_tail(&h->CL, &s->cl_node);
		s->in_claims = true;
	}
}

static void hwq_destroy(struct policy *p, struct sthread *t)
{
	struct hwq *h = p->st;
	struct hwq_share *s = HWQ_SHARE(t);
	if (s->ready)
		dlist_remove(&s->fill_node);
	if (s->in_claims) {
		dlist_remove(&s->cl_node);
		if (s->ready)
			dlist_remove(&s->claim_node);
		hwq_refresh(h, s->band, s->bit);
	}
	if (s->owned)
		free(s);
	t->ps = NULL;
}

static void hwq_ready(struct policy *p, struct sthread *t)
{
	hwq_make_ready(p->st, HWQ_SHARE(t));
}

static void hwq_unready(struct policy *p, struct sthread *t)
{
	hwq_unready_inline(p, t);
}

static bool hwq_ready_check(struct policy *p, struct sthread *t)
{
	return hwq_ready_check_inline(p, t);
}

static void hwq_yield(struct policy *p)
{
	struct hwq *h = p->st;
	h->yield_pending = true;
}

static void hwq_quota(struct policy *p, struct sthread *t, int64_t q)
{
	struct hwq *h = p->st;
	struct hwq_share *s = HWQ_SHARE(t);
	if (s->quota > 0 && q > 0) {                  /* adaption: never raised */
		if (s->claim > q)
			s->claim = q;
	} else if (s->quota > 0) {                    /* revocation: claim stays stale */
		dlist_remove(&s->cl_node);
		if (s->ready)
			dlist_remove(&s->claim_node);
		s->in_claims = false;
	} else if (q > 0) {                           /* introduction: claim not reset */
		dlist_push_tail(&h->CL, &s->cl_node);
		if (s->ready)
			dlist_push_tail(s->band, &s->claim_node);
		s->in_claims = true;
	}
	s->quota = q;
	hwq_refresh(h, s->band, s->bit);
}

static void hwq_update(struct policy *p, int64_t c)
{
	hwq_update_inline(p->st, c, false, true);
}

static struct sthread *hwq_decide(struct policy *p, int64_t c, int64_t *quantum)
{
	return hwq_decide_inline(p, c, quantum, false);
}

static struct sthread *hwq_head(const struct policy *p)
{
	const struct hwq *h = p->st;
	return h->head ? h->head->t : NULL;
}

static int64_t hwq_quantum(const struct policy *p)
{
	const struct hwq *h = p->st;
	return h->head_q < h->residual ? h->head_q : h->residual;
}

static int64_t hwq_time(const struct policy *p)
{
	const struct hwq *h = p->st;
	return h->Q - h->residual;
}

const struct policy_ops policy_hwquota = {
	.name = "hwquota",
	.summary = "Genode base-hw quota scheduler (2015): claims per super period by priority, round-robin fills",
	.sim_keys = sim_keys,
	.thread_keys = thread_keys,
	.init = hwq_init,
	.fini = hwq_fini,
	.admit = hwq_admit,
	.create = hwq_create,
	.destroy = hwq_destroy,
	.ready = hwq_ready,
	.unready = hwq_unready,
	.ready_check = hwq_ready_check,
	.yield = hwq_yield,
	.quota = hwq_quota,
	.update = hwq_update,
	.head = hwq_head,
	.quantum = hwq_quantum,
	.time = hwq_time,
	.decide = hwq_decide,
};

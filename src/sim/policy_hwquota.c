/* hwquota: Genode base-hw's quota scheduler ("claims and fills") as of mid-2015, decision for
 * decision, quirks included. The specification is docs/hw-quota.md; the comments below use
 * its names and the numbers of its update steps. Times are whatever unit the caller uses. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "units.h"
#include "util.h"

struct share {
	struct sthread *t;
	int prio;
	int64_t quota, claim, fill;
	bool ready;
	bool in_claims;           /* in R[prio] (ready) or U[prio] (not ready) */
	struct dnode claim_node;  /* in R[prio] or U[prio] */
	struct dnode fill_node;   /* in FL while ready */
};

struct hwq {
	int64_t Q, F;             /* super period, fill slice (= idle quantum) */
	int P;                    /* priority bands 0..P-1 */
	int64_t residual;         /* time left in this super period */
	struct dnode *R, *U;      /* per band: ready claims (ordered), unready claims */
	struct dnode FL;          /* round-robin fill list: every ready share */
	uint64_t live;            /* bit b: R[b]'s first share has claim > 0 (bands < 64) */
	struct share *head;       /* NULL: idle */
	int64_t head_q;           /* quantum granted when chosen */
	bool head_claims, yield_pending;
};

#define SHARE(s) ((struct share *)(s)->ps)
#define CLAIM_OF(n) DCONTAINER(n, struct share, claim_node)
#define FILL_OF(n) DCONTAINER(n, struct share, fill_node)

/* Keeps `live` right for band b after any change to R[b] or to a claim in it; choosing is
 * then one bit scan instead of a walk over the bands (the rule itself is unchanged). */
static inline void refresh(struct hwq *h, int b)
{
	struct dnode *n = dlist_first(&h->R[b]);
	if (n && CLAIM_OF(n)->claim > 0)
		h->live |= UINT64_C(1) << b;
	else
		h->live &= ~(UINT64_C(1) << b);
}

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
	h->R = xcalloc((size_t)h->P, sizeof(*h->R));
	h->U = xcalloc((size_t)h->P, sizeof(*h->U));
	for (int i = 0; i < h->P; i++) {
		dlist_init(&h->R[i]);
		dlist_init(&h->U[i]);
	}
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
	free(h->U);
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
	struct share *s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->prio = (int)t->cfg->prio;
	s->quota = t->cfg->quota_ns;
	t->ps = s;
	if (s->quota > 0) {
		s->claim = s->quota;
		dlist_push_tail(&h->U[s->prio], &s->claim_node);
		s->in_claims = true;
	}
}

static void hwq_destroy(struct policy *p, struct sthread *t)
{
	struct hwq *h = p->st;
	struct share *s = SHARE(t);
	if (s->ready)
		dlist_remove(&s->fill_node);
	if (s->in_claims) {
		dlist_remove(&s->claim_node);
		refresh(h, s->prio);
	}
	free(s);
	t->ps = NULL;
}

static inline __attribute__((always_inline)) void make_ready(struct hwq *h, struct share *s)
{
	s->ready = true;
	s->fill = h->F;                            /* fresh slice on every ready */
	dlist_push_tail(&h->FL, &s->fill_node);
	if (s->quota > 0) {
		dlist_remove(&s->claim_node);          /* out of U[prio] */
		if (s->claim > 0)
			dlist_push_head(&h->R[s->prio], &s->claim_node);
		else
			dlist_push_tail(&h->R[s->prio], &s->claim_node);
		refresh(h, s->prio);
	}
}

static void hwq_ready(struct policy *p, struct sthread *t)
{
	make_ready(p->st, SHARE(t));
}

static void hwq_unready(struct policy *p, struct sthread *t)
{
	struct hwq *h = p->st;
	struct share *s = SHARE(t);
	s->ready = false;
	dlist_remove(&s->fill_node);
	if (s->quota > 0) {
		dlist_remove(&s->claim_node);
		dlist_push_tail(&h->U[s->prio], &s->claim_node);
		refresh(h, s->prio);
	}
}

static bool hwq_ready_check(struct policy *p, struct sthread *t)
{
	struct hwq *h = p->st;
	struct share *s = SHARE(t);
	make_ready(h, s);
	if (s->claim == 0)
		return h->head == NULL;
	if (!h->head_claims)
		return true;
	if (s->prio != h->head->prio)
		return s->prio > h->head->prio;
	return s != h->head;
}

static void hwq_yield(struct policy *p)
{
	struct hwq *h = p->st;
	h->yield_pending = true;
}

static void hwq_quota(struct policy *p, struct sthread *t, int64_t q)
{
	struct hwq *h = p->st;
	struct share *s = SHARE(t);
	if (s->quota > 0 && q > 0) {                  /* adaption: never raised */
		if (s->claim > q)
			s->claim = q;
	} else if (s->quota > 0) {                    /* revocation: claim stays stale */
		dlist_remove(&s->claim_node);
		s->in_claims = false;
	} else if (q > 0) {                           /* introduction: claim not reset */
		dlist_push_tail(s->ready ? &h->R[s->prio] : &h->U[s->prio], &s->claim_node);
		s->in_claims = true;
	}
	s->quota = q;
	refresh(h, s->prio);
}

static void new_super_period(struct hwq *h)
{
	h->residual = h->Q;
	for (int p = 0; p < h->P; p++) {
		for (struct dnode *n = h->R[p].next; n != &h->R[p]; n = n->next)
			CLAIM_OF(n)->claim = CLAIM_OF(n)->quota;
		for (struct dnode *n = h->U[p].next; n != &h->U[p]; n = n->next)
			CLAIM_OF(n)->claim = CLAIM_OF(n)->quota;
		refresh(h, p);
	}
}

static inline __attribute__((always_inline)) void update(struct hwq *h, int64_t c)
{
	struct share *hd = h->head;

	/* 1. trim, 2. remainder */
	int64_t t = c < h->head_q ? c : h->head_q;
	if (t > h->residual)
		t = h->residual;
	int64_t r;
	if (h->yield_pending) {
		r = 0;
		h->yield_pending = false;
	} else {
		r = h->head_q - t;
	}

	/* 3. charge the old head */
	if (h->head_claims) {
		if (hd->quota > 0) {
			hd->claim = r < hd->quota ? r : hd->quota;
			if (hd->claim == 0 && hd->ready) {
				dlist_remove(&hd->claim_node);
				dlist_push_tail(&h->R[hd->prio], &hd->claim_node);
			}
			refresh(h, hd->prio);
		}
	} else if (hd && h->FL.next == &hd->fill_node) {
		if (r > 0) {
			hd->fill = r;
		} else {
			hd->fill = h->F;
			dlist_remove(&hd->fill_node);
			dlist_push_tail(&h->FL, &hd->fill_node);
		}
	}

	/* 4. advance the super period */
	if (h->residual > t)
		h->residual -= t;
	else
		new_super_period(h);

	/* 5. choose: the highest band whose first claim has claim > 0 (only the first counts) */
	if (h->live) {
		int b = 63 - __builtin_clzll(h->live);
		h->head = CLAIM_OF(h->R[b].next);
		h->head_q = h->head->claim;
		h->head_claims = true;
		return;
	}
	h->head_claims = false;
	struct dnode *f = dlist_first(&h->FL);
	if (f) {
		h->head = FILL_OF(f);
		h->head_q = h->head->fill;
	} else {
		h->head = NULL;
		h->head_q = h->F;
	}
}

static void hwq_update(struct policy *p, int64_t c)
{
	update(p->st, c);
}

static struct sthread *hwq_decide(struct policy *p, int64_t c, int64_t *quantum)
{
	struct hwq *h = p->st;
	update(h, c);
	*quantum = h->head_q < h->residual ? h->head_q : h->residual;
	return h->head ? h->head->t : NULL;
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

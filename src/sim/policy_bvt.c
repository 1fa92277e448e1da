/* bvt: borrowed virtual time (Duda & Cheriton 1999), the kind of scheduler Genode moved to.
 *
 * Each thread's actual virtual time A advances by consumed * 1024 / weight. A thread with
 * warp W > 0 is warped from each wake-up: its effective virtual time is E = A - W, else E = A.
 * The ready thread with the smallest E runs (ties: thread order). It may run until its E
 * exceeds the next smallest E by the context-switch allowance C (`slice`, in real time scaled
 * by its weight), or until the warp-limit L of warped running is used up (then it unwarps). A
 * thread that unwarped, by the limit or by blocking, may warp again only `unwarp` U later. A
 * waking thread's A is raised to the scheduler virtual time (smallest A of the ready threads)
 * so sleeping earns no credit, and it preempts when its E is below the running one's. */
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "units.h"
#include "util.h"

struct bt {
	struct sthread *t;
	int64_t w, A, arem;
	int64_t W, L, U;
	bool warped, ready;
	int64_t warp_used, warp_again;   /* warped run so far; earliest time to warp again */
};

struct bvt {
	int64_t C;
	struct bt **q;
	int n, cap;
	struct bt *head;
	int64_t last;
	bool yield_pending;
};

static const char *const sim_keys[] = {"slice", NULL};
static const char *const thread_keys[] = {"weight", "warp", "warp-limit", "unwarp", NULL};

#define BT(s) ((struct bt *)(s)->ps)

static int bvt_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct bvt *b = xcalloc(1, sizeof(*b));
	b->C = cfg->slice > 0 ? cfg->slice : 10 * NSEC_PER_MSEC;
	p->st = b;
	return 0;
}

static void bvt_fini(struct policy *p)
{
	struct bvt *b = p->st;
	if (!b)
		return;
	free(b->q);
	free(b);
	p->st = NULL;
}

static inline int64_t E(const struct bt *s)
{
	return s->warped ? s->A - s->W : s->A;
}

/* E of s now, including what the head ran since the last update. */
static int64_t E_now(const struct bvt *b, const struct bt *s, int64_t now)
{
	if (s != b->head)
		return E(s);
	return E(s) + ((now - b->last) * 1024 + s->arem) / s->w;
}

/* Scheduler virtual time: smallest A among ready threads; INT64_MIN when none. */
static int64_t svt(const struct bvt *b, const struct bt *skip)
{
	int64_t m = INT64_MAX;
	for (int i = 0; i < b->n; i++)
		if (b->q[i] != skip && b->q[i]->ready && b->q[i]->A < m)
			m = b->q[i]->A;
	return m == INT64_MAX ? INT64_MIN : m;
}

static void bvt_create(struct policy *p, struct sthread *t)
{
	struct bvt *b = p->st;
	struct bt *s = xcalloc(1, sizeof(*s));
	const struct sim_thread_cfg *x = t->cfg;
	s->t = t;
	s->w = x->weight > 0 ? x->weight : 1024;
	s->W = x->warp;
	s->L = x->warp_limit;
	s->U = x->unwarp;
	int64_t v = svt(b, NULL);
	s->A = v == INT64_MIN ? 0 : v;
	t->ps = s;
	ARRAY_GROW(b->q, b->n + 1, b->cap);
	b->q[b->n++] = s;
}

static void bvt_destroy(struct policy *p, struct sthread *t)
{
	struct bvt *b = p->st;
	struct bt *s = BT(t);
	for (int i = 0; i < b->n; i++)
		if (b->q[i] == s) {
			memmove(&b->q[i], &b->q[i + 1], sizeof(*b->q) * (size_t)(b->n - i - 1));
			b->n--;
			break;
		}
	if (b->head == s)
		b->head = NULL;
	free(s);
	t->ps = NULL;
}

static void bvt_ready(struct policy *p, struct sthread *t)
{
	struct bvt *b = p->st;
	struct bt *s = BT(t);
	int64_t v = svt(b, s);
	if (v != INT64_MIN && s->A < v)
		s->A = v;
	s->ready = true;
	if (s->W > 0 && p->now >= s->warp_again) {
		s->warped = true;
		s->warp_used = 0;
	}
}

static void unwarp(struct bt *s, int64_t now)
{
	if (!s->warped)
		return;
	s->warped = false;
	s->warp_again = now + s->U;
}

static void bvt_unready(struct policy *p, struct sthread *t)
{
	struct bt *s = BT(t);
	s->ready = false;
	unwarp(s, p->now);
}

static bool bvt_ready_check(struct policy *p, struct sthread *t)
{
	struct bvt *b = p->st;
	struct bt *s = BT(t);
	bvt_ready(p, t);
	if (!b->head)
		return true;
	return E(s) < E_now(b, b->head, p->now);
}

static void bvt_yield(struct policy *p)
{
	((struct bvt *)p->st)->yield_pending = true;
}

static void bvt_update(struct policy *p, int64_t c)
{
	struct bvt *b = p->st;
	struct bt *h = b->head;
	int64_t now = p->now;
	if (h) {
		int64_t x = c * 1024 + h->arem;
		h->A += x / h->w;
		h->arem = x % h->w;
		if (h->warped) {
			h->warp_used += c;
			if (h->L > 0 && h->warp_used >= h->L)
				unwarp(h, now);
		}
		if (b->yield_pending)   /* give up one allowance of virtual time */
			h->A += b->C * 1024 / h->w;
	}
	b->yield_pending = false;
	b->last = now;
	struct bt *best = NULL;
	for (int i = 0; i < b->n; i++) {
		struct bt *s = b->q[i];
		if (s->ready && (!best || E(s) < E(best) || (E(s) == E(best) && s->t->id < best->t->id)))
			best = s;
	}
	b->head = best;
}

static struct sthread *bvt_head(const struct policy *p)
{
	const struct bvt *b = p->st;
	return b->head ? b->head->t : NULL;
}

static int64_t bvt_quantum(const struct policy *p)
{
	const struct bvt *b = p->st;
	const struct bt *h = b->head;
	if (!h)
		return INT64_MAX;
	int64_t q = INT64_MAX;
	const struct bt *next = NULL;
	for (int i = 0; i < b->n; i++) {
		const struct bt *s = b->q[i];
		if (s != h && s->ready && (!next || E(s) < E(next)))
			next = s;
	}
	if (next) {
		/* run until E(h) > E(next) + C*1024/w: real time (E(next) - E(h)) * w / 1024 + C */
		int64_t d = E(next) - E(h);
		q = d * h->w / 1024 + b->C;
	}
	if (h->warped && h->L > 0 && h->L - h->warp_used < q)
		q = h->L - h->warp_used;
	return q < 1 ? 1 : q;
}

static int64_t bvt_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops policy_bvt = {
	.name = "bvt",
	.summary = "borrowed virtual time: smallest effective virtual time runs, warp for latency, allowance C",
	.sim_keys = sim_keys,
	.thread_keys = thread_keys,
	.init = bvt_init,
	.fini = bvt_fini,
	.create = bvt_create,
	.destroy = bvt_destroy,
	.ready = bvt_ready,
	.unready = bvt_unready,
	.ready_check = bvt_ready_check,
	.yield = bvt_yield,
	.update = bvt_update,
	.head = bvt_head,
	.quantum = bvt_quantum,
	.time = bvt_time,
};

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

/* The threads are kept in id order (ties go to the smaller id) with a dense array of keys
 * beside them and a bit per ready thread, so that each choice is one pass with no branch on
 * which thread wins (that is data), not a walk over the threads' records: the engine's decision
 * (update, head and quantum) is one pass over the ready threads' bits, a wake-up's scheduler
 * virtual time one over the keys. A thread not ready has keys INT64_MAX, which never win: a
 * ready one's stay far below (virtual time grows by at most 1024 per ns, and a run lasts at most
 * 7 days, 2^60 ns). src/sim/reference.c keeps the plain version, which
 * tests/unit/test_sim_engine.c checks this one against, op by op and run by run. */
struct bt {
	struct sthread *t;
	int slot;                        /* in b->q and b->key */
	int64_t w, A, arem;
	int64_t W, L, U;
	bool warped, ready;
	int64_t warp_used, warp_again;   /* warped run so far; earliest time to warp again */
};

struct bvt {
	int64_t C;
	struct bt **q;                   /* every thread, by id */
	struct bkey { int64_t e, a; } *key;   /* E and A of q[i] if ready, else INT64_MAX */
	int n, cap, keycap;
	uint64_t ready;                  /* bit i: q[i] is ready (with at most 64 threads) */
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
	free(b->key);
	free(b);
	p->st = NULL;
}

static inline int64_t E(const struct bt *s)
{
	return s->warped ? s->A - s->W : s->A;
}

/* after any change to s's A, warp or readiness */
static inline void rekey(struct bvt *b, const struct bt *s)
{
	b->key[s->slot] = s->ready ? (struct bkey){E(s), s->A} : (struct bkey){INT64_MAX, INT64_MAX};
	b->ready = slot_bit(b->ready, s->slot, s->ready);
}

/* after the slots were renumbered (a thread created or destroyed) */
static void rebits(struct bvt *b)
{
	b->ready = 0;
	for (int k = 0; k < b->n; k++)
		b->ready = slot_bit(b->ready, k, b->q[k]->ready);
}

/* E of s now, including what the head ran since the last update. */
static int64_t E_now(const struct bvt *b, const struct bt *s, int64_t now)
{
	if (s != b->head)
		return E(s);
	return E(s) + ((now - b->last) * 1024 + s->arem) / s->w;
}

/* Scheduler virtual time: smallest A among ready threads but the one in slot skip (-1:
 * none); INT64_MIN when there is none. */
static int64_t svt(const struct bvt *b, int skip)
{
	int64_t m = INT64_MAX;
	for (int i = 0; i < b->n; i++) {
		int64_t a = i == skip ? INT64_MAX : b->key[i].a;
		m = a < m ? a : m;
	}
	return m == INT64_MAX ? INT64_MIN : m;
}

/* first_two's step: the key e of slot i */
static inline void two_smallest(int64_t e, int i, int64_t *e1, int64_t *e2, int *i1)
{
	int64_t later = e < *e1 ? *e1 : e;   /* the larger of e and e1: the second's candidate */
	*e2 = later < *e2 ? later : *e2;
	*i1 = e < *e1 ? i : *i1;
	*e1 = e < *e1 ? e : *e1;
}

/* The ready threads' smallest E (first: its slot, -1 if none is ready) and the smallest E of the
 * others (*next_e, INT64_MAX if none), in slot order: over the ready threads' bits, or with
 * more than 64 threads over all keys */
static inline int first_two(const struct bvt *b, int64_t *next_e)
{
	int64_t e1 = INT64_MAX, e2 = INT64_MAX;
	int i1 = -1;
	if (b->n <= 64)
		for (uint64_t m = b->ready; m; m &= m - 1) {
			int i = __builtin_ctzll(m);
			two_smallest(b->key[i].e, i, &e1, &e2, &i1);
		}
	else
		for (int i = 0; i < b->n; i++)
			two_smallest(b->key[i].e, i, &e1, &e2, &i1);
	*next_e = e2;
	return i1;
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
	int64_t v = svt(b, -1);
	s->A = v == INT64_MIN ? 0 : v;
	t->ps = s;
	ARRAY_GROW(b->q, b->n + 1, b->cap);
	ARRAY_GROW(b->key, b->n + 1, b->keycap);
	int i = b->n;   /* by id: the engine and step scripts create in id order, tests need not */
	while (i > 0 && b->q[i - 1]->t->id > t->id)
		i--;
	memmove(&b->q[i + 1], &b->q[i], sizeof(*b->q) * (size_t)(b->n - i));
	memmove(&b->key[i + 1], &b->key[i], sizeof(*b->key) * (size_t)(b->n - i));
	b->q[i] = s;
	b->n++;
	for (int k = i; k < b->n; k++)
		b->q[k]->slot = k;
	rebits(b);
	rekey(b, s);
}

static void bvt_destroy(struct policy *p, struct sthread *t)
{
	struct bvt *b = p->st;
	struct bt *s = BT(t);
	int i = s->slot;
	ARRAY_REMOVE(b->q, i, b->n);
	ARRAY_REMOVE(b->key, i, b->n);
	b->n--;
	for (int k = i; k < b->n; k++)
		b->q[k]->slot = k;
	rebits(b);
	if (b->head == s)
		b->head = NULL;
	free(s);
	t->ps = NULL;
}

static void bvt_ready(struct policy *p, struct sthread *t)
{
	struct bvt *b = p->st;
	struct bt *s = BT(t);
	int64_t v = svt(b, s->slot);   /* (a thread not ready has no A in the keys anyway) */
	if (v != INT64_MIN && s->A < v)
		s->A = v;
	s->ready = true;
	if (s->W > 0 && p->now >= s->warp_again) {
		s->warped = true;
		s->warp_used = 0;
	}
	rekey(b, s);
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
	rekey(p->st, s);
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

/* update's charge of the head, before the choice */
static inline void charge(struct bvt *b, int64_t c, int64_t now)
{
	struct bt *h = b->head;
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
		rekey(b, h);
	}
	b->yield_pending = false;
	b->last = now;
}

/* the head's quantum, next_e being the smallest E of the other ready threads */
static inline int64_t quantum_of(const struct bvt *b, int64_t next_e)
{
	const struct bt *h = b->head;
	if (!h)
		return INT64_MAX;
	int64_t q = INT64_MAX;
	if (next_e != INT64_MAX)   /* run until E(h) > E(next) + C*1024/w: real time (E(next) - E(h)) * w / 1024 + C */
		q = (next_e - E(h)) * h->w / 1024 + b->C;
	if (h->warped && h->L > 0 && h->L - h->warp_used < q)
		q = h->L - h->warp_used;
	return q < 1 ? 1 : q;
}

/* the engine's every decision: update, head and quantum from one pass (first_two) */
static struct sthread *bvt_decide(struct policy *p, int64_t c, int64_t *quantum)
{
	struct bvt *b = p->st;
	charge(b, c, p->now);
	int64_t next_e;
	int i = first_two(b, &next_e);
	b->head = i >= 0 ? b->q[i] : NULL;
	*quantum = quantum_of(b, next_e);
	return b->head ? b->head->t : NULL;
}

static void bvt_update(struct policy *p, int64_t c)
{
	int64_t q;
	bvt_decide(p, c, &q);
}

static struct sthread *bvt_head(const struct policy *p)
{
	const struct bvt *b = p->st;
	return b->head ? b->head->t : NULL;
}

static int64_t bvt_quantum(const struct policy *p)
{
	const struct bvt *b = p->st;
	if (!b->head)
		return INT64_MAX;
	int64_t m = INT64_MAX;   /* the smallest E of the ready threads but the head */
	for (int i = 0; i < b->n; i++) {
		int64_t e = i == b->head->slot ? INT64_MAX : b->key[i].e;
		m = e < m ? e : m;
	}
	return quantum_of(b, m);
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
	.decide = bvt_decide,
};

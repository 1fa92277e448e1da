/* fair: EEVDF-like virtual deadlines with a base slice (Linux 6.6+ fair class, simplified).
 *
 * Each thread has a vruntime v advancing by consumed * 1024 / weight and a virtual deadline
 * vd = v + slice * 1024 / weight set when its request starts; a request is the thread's own
 * `slice` ([thread] slice, as Linux's sched_attr.sched_runtime) or the base slice. The queue's virtual
 * time V is the weight-averaged v of the ready threads. Eligible are threads with v <= V
 * (lag >= 0); the eligible one with the earliest vd runs until it reaches vd, then it starts
 * a new request. A wake-up preempts when the woken thread is eligible and its vd is earlier
 * than the running thread's. Lag (V - v) is kept across sleeps, limited to two slices, and
 * restored on wake-up with Linux's correction for the thread's own weight joining V:
 * v = V - lag * (W + w) / W. Negative lag is paid off while asleep, as Linux's delayed dequeue
 * does: a sleeper that was ahead wakes at max(its old v, V). */
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "units.h"
#include "util.h"

/* V is kept as a running sum, not summed over the threads at every call: sum_rest is the sum
 * of v * w over the ready threads but the head, W the total weight of the ready ones, and the
 * head's v_now (which moves with time) is added when V is asked for. Each choice is one pass
 * over the ready threads' bits (up to 64 threads; over all keys beyond) and their keys (v and
 * vd side by side), in creation order, with selects, not branches (which thread wins is data).
 * A thread not ready has keys INT64_MAX, which never win. src/sim/reference.c keeps the plain
 * version, which tests/unit/test_sim_engine.c checks this one against, op by op and run by
 * run. */
struct ft {
	struct sthread *t;
	int slot;          /* in f->q and f->key */
	int64_t w, slice, v, vrem, vd, lag;
	int64_t v_sleep;   /* v when it blocked */
	bool ready;
};

struct fair {
	int64_t slice;
	struct ft **q;                     /* every thread, in creation order */
	struct fkey { int64_t v, vd; } *key;   /* of q[i] if ready, else INT64_MAX */
	int n, cap, keycap;
	uint64_t ready;                    /* bit i: q[i] is ready (with at most 64 threads) */
	__int128 sum_rest;                 /* v * w over the ready threads but the head */
	int64_t W;                         /* w over the ready threads */
	struct ft *head;
	int64_t last;       /* time of the last update */
	int64_t vlast;      /* V when it was last defined (queue not empty) */
	bool yield_pending;
};

static const char *const sim_keys[] = {"slice", NULL};
static const char *const thread_keys[] = {"weight", "slice", NULL};

#define FT(s) ((struct ft *)(s)->ps)

static int fair_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct fair *f = xcalloc(1, sizeof(*f));
	f->slice = cfg->slice > 0 ? cfg->slice : 3 * NSEC_PER_MSEC;
	p->st = f;
	return 0;
}

static void fair_fini(struct policy *p)
{
	struct fair *f = p->st;
	if (!f)
		return;
	free(f->q);
	free(f->key);
	free(f);
	p->st = NULL;
}

static inline int64_t slice_v(const struct fair *f, const struct ft *s)
{
	return (s->slice > 0 ? s->slice : f->slice) * 1024 / s->w;
}

/* after any change to s's v, vd or readiness */
static inline void rekey(struct fair *f, const struct ft *s)
{
	f->key[s->slot] = s->ready ? (struct fkey){s->v, s->vd} : (struct fkey){INT64_MAX, INT64_MAX};
	f->ready = slot_bit(f->ready, s->slot, s->ready);
}

/* after the slots were renumbered (a thread created or destroyed) */
static void rebits(struct fair *f)
{
	f->ready = 0;
	for (int k = 0; k < f->n; k++)
		f->ready = slot_bit(f->ready, k, f->q[k]->ready);
}

/* s's part of sum_rest: taken out before its v, readiness or headship changes, put back after */
static inline void sum_out(struct fair *f, const struct ft *s)
{
	if (s && s->ready && s != f->head)
		f->sum_rest -= (__int128)s->v * s->w;
}

static inline void sum_in(struct fair *f, const struct ft *s)
{
	if (s && s->ready && s != f->head)
		f->sum_rest += (__int128)s->v * s->w;
}

static void set_ready(struct fair *f, struct ft *s, bool ready)
{
	sum_out(f, s);
	f->W += (ready - s->ready) * s->w;
	s->ready = ready;
	sum_in(f, s);
	rekey(f, s);
}

static void set_head(struct fair *f, struct ft *h)
{
	struct ft *old = f->head;
	f->head = NULL;
	sum_in(f, old);
	sum_out(f, h);
	f->head = h;
}

/* v of s now, including what the head ran since the last update. */
static int64_t v_now(const struct fair *f, const struct ft *s, int64_t now)
{
	if (s != f->head)
		return s->v;
	return s->v + ((now - f->last) * 1024 + s->vrem) / s->w;
}

/* V: weight-averaged v of the ready threads (floor), or the last V when none is ready;
 * *load gets their total weight. */
static int64_t avg_v_load(struct fair *f, int64_t now, int64_t *load)
{
	*load = f->W;
	if (f->W == 0)
		return f->vlast;
	__int128 sum = f->sum_rest;
	if (f->head && f->head->ready)
		sum += (__int128)v_now(f, f->head, now) * f->head->w;
	__int128 a = sum / f->W;
	if (sum < 0 && a * f->W != sum)
		a--;
	f->vlast = (int64_t)a;
	return f->vlast;
}

static int64_t avg_v(struct fair *f, int64_t now)
{
	int64_t load;
	return avg_v_load(f, now, &load);
}

static void fair_create(struct policy *p, struct sthread *t)
{
	struct fair *f = p->st;
	struct ft *s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->w = t->cfg->weight > 0 ? t->cfg->weight : 1024;
	s->slice = t->cfg->slice;
	t->ps = s;
	s->v = avg_v(f, p->now);
	s->vd = s->v + slice_v(f, s);
	ARRAY_GROW(f->q, f->n + 1, f->cap);
	ARRAY_GROW(f->key, f->n + 1, f->keycap);
	s->slot = f->n;
	f->q[f->n++] = s;
	rebits(f);
	rekey(f, s);
}

static void fair_destroy(struct policy *p, struct sthread *t)
{
	struct fair *f = p->st;
	struct ft *s = FT(t);
	set_ready(f, s, false);
	if (f->head == s)
		set_head(f, NULL);
	int i = s->slot;
	ARRAY_REMOVE(f->q, i, f->n);
	ARRAY_REMOVE(f->key, i, f->n);
	f->n--;
	for (int k = i; k < f->n; k++)
		f->q[k]->slot = k;
	rebits(f);
	free(s);
	t->ps = NULL;
}

static void fair_ready(struct policy *p, struct sthread *t)
{
	struct fair *f = p->st;
	struct ft *s = FT(t);
	int64_t W;
	int64_t V = avg_v_load(f, p->now, &W);
	int64_t lag = s->lag;
	if (lag < 0) {
		s->v = s->v_sleep > V ? s->v_sleep : V;
	} else {
		if (W > 0)
			lag = (int64_t)((__int128)lag * (W + s->w) / W);
		s->v = V - lag;
	}
	s->vrem = 0;
	s->vd = s->v + slice_v(f, s);
	set_ready(f, s, true);   /* not ready until now: its v joins sum_rest here */
}

static void fair_unready(struct policy *p, struct sthread *t)
{
	struct fair *f = p->st;
	struct ft *s = FT(t);
	int64_t V = avg_v(f, p->now);
	int64_t lim = 2 * slice_v(f, s);
	s->v_sleep = v_now(f, s, p->now);
	s->lag = V - s->v_sleep;
	if (s->lag > lim)
		s->lag = lim;
	if (s->lag < -lim)
		s->lag = -lim;
	set_ready(f, s, false);
}

static bool fair_ready_check(struct policy *p, struct sthread *t)
{
	struct fair *f = p->st;
	struct ft *s = FT(t);
	fair_ready(p, t);
	if (!f->head)
		return true;
	int64_t V = avg_v(f, p->now);
	return s->v <= V && s->vd < f->head->vd;
}

static void fair_yield(struct policy *p)
{
	((struct fair *)p->st)->yield_pending = true;
}

/* update's choice: the first ready thread of the earliest vd among those with v <= V, in slot
 * order. There is one whenever a thread is ready: V is the floor of the weighted mean of the
 * ready threads' v, which the least of them, an integer, does not exceed. */
static inline void consider(int *best, int64_t *best_vd, const struct fair *f, int k, int64_t V)
{
	int64_t vd = f->key[k].vd;
	bool eligible = f->key[k].v <= V && vd < *best_vd;
	*best = eligible ? k : *best;
	*best_vd = eligible ? vd : *best_vd;
}

static void fair_update(struct policy *p, int64_t c)
{
	struct fair *f = p->st;
	struct ft *h = f->head;
	if (h) {   /* the head's v is not in sum_rest: nothing to take out */
		int64_t x = c * 1024 + h->vrem;
		h->v += x / h->w;
		h->vrem = x % h->w;
		if (f->yield_pending)
			h->vd += slice_v(f, h);      /* as Linux: a yield pushes the deadline */
		if (h->v >= h->vd)
			h->vd = h->v + slice_v(f, h);  /* request done: the next one */
		rekey(f, h);
	}
	f->yield_pending = false;
	f->last = p->now;
	set_head(f, NULL);
	int64_t V = avg_v(f, p->now);
	int best = -1;
	int64_t best_vd = INT64_MAX;
	if (f->n <= 64)
		for (uint64_t m = f->ready; m; m &= m - 1)
			consider(&best, &best_vd, f, __builtin_ctzll(m), V);
	else
		for (int i = 0; i < f->n; i++)
			consider(&best, &best_vd, f, i, V);
	set_head(f, best >= 0 ? f->q[best] : NULL);
}

static struct sthread *fair_head(const struct policy *p)
{
	const struct fair *f = p->st;
	return f->head ? f->head->t : NULL;
}

static int64_t fair_quantum(const struct policy *p)
{
	const struct fair *f = p->st;
	const struct ft *h = f->head;
	if (!h)
		return INT64_MAX;
	/* real time until v reaches vd: ceil(((vd - v) * w - vrem) / 1024) */
	int64_t need = (h->vd - h->v) * h->w - h->vrem;
	int64_t q = (need + 1023) / 1024;
	return q < 1 ? 1 : q;
}

static int64_t fair_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops policy_fair = {
	.name = "fair",
	.summary = "EEVDF-like: eligible thread with the earliest virtual deadline, requests of one base slice",
	.sim_keys = sim_keys,
	.thread_keys = thread_keys,
	.init = fair_init,
	.fini = fair_fini,
	.create = fair_create,
	.destroy = fair_destroy,
	.ready = fair_ready,
	.unready = fair_unready,
	.ready_check = fair_ready_check,
	.yield = fair_yield,
	.update = fair_update,
	.head = fair_head,
	.quantum = fair_quantum,
	.time = fair_time,
};

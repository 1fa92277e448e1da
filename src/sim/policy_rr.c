/* rr: fixed-priority round robin (SCHED_RR-like). The highest priority with a ready thread
 * runs; within a priority, threads take turns of `slice`. A wake-up preempts only a lower
 * priority; a preempted thread stays first of its priority and keeps the rest of its slice.
 * A thread gets a fresh slice when it becomes ready and when its slice is used up (then it
 * goes to the tail); yield sends it to the tail with a fresh slice. */
#include <inttypes.h>
#include <stdlib.h>

#include "sim/policy.h"
#include "units.h"
#include "util.h"

#define RR_PRIOS 100

struct rrt {
	struct sthread *t;
	int prio;
	int64_t left;          /* slice left */
	bool ready;
	struct dnode node;     /* in q[prio] while ready */
};

struct rr {
	int64_t slice;
	struct dnode q[RR_PRIOS];
	int nready[RR_PRIOS];
	uint64_t busy[2];      /* bit i: q[i] is not empty */
	struct rrt *head;
	bool yield_pending;
};

static const char *const sim_keys[] = {"slice", NULL};
static const char *const thread_keys[] = {"prio", NULL};

#define RRT(s) ((struct rrt *)(s)->ps)

static void rr_dequeue(struct rr *r, struct rrt *s);

static int rr_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct rr *r = xcalloc(1, sizeof(*r));
	r->slice = cfg->slice > 0 ? cfg->slice : 100 * NSEC_PER_MSEC;
	for (int i = 0; i < RR_PRIOS; i++)
		dlist_init(&r->q[i]);
	p->st = r;
	return 0;
}

static void rr_fini(struct policy *p)
{
	free(p->st);
	p->st = NULL;
}

static int rr_admit(const struct sim_cfg *cfg, struct sthread *const *ts, int n, struct err *e)
{
	(void)cfg;
	for (int i = 0; i < n; i++)
		if (ts[i]->cfg->prio < 0 || ts[i]->cfg->prio >= RR_PRIOS)
			return err_set(e, EXIT_USAGE, "thread %s: rr priority %" PRId64 " is not in 0..%d", ts[i]->name,
			               ts[i]->cfg->prio, RR_PRIOS - 1);
	return 0;
}

static void rr_create(struct policy *p, struct sthread *t)
{
	struct rr *r = p->st;
	struct rrt *s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->prio = (int)t->cfg->prio;
	s->left = r->slice;
	t->ps = s;
}

static void rr_destroy(struct policy *p, struct sthread *t)
{
	struct rr *r = p->st;
	struct rrt *s = RRT(t);
	if (s->ready)
		rr_dequeue(r, s);
	free(s);
	t->ps = NULL;
}

static void rr_ready(struct policy *p, struct sthread *t)
{
	struct rr *r = p->st;
	struct rrt *s = RRT(t);
	s->ready = true;
	s->left = r->slice;
	dlist_push_tail(&r->q[s->prio], &s->node);
	if (r->nready[s->prio]++ == 0)
		r->busy[s->prio / 64] |= UINT64_C(1) << (s->prio % 64);
}

static void rr_dequeue(struct rr *r, struct rrt *s)
{
	dlist_remove(&s->node);
	if (--r->nready[s->prio] == 0)
		r->busy[s->prio / 64] &= ~(UINT64_C(1) << (s->prio % 64));
}

static void rr_unready(struct policy *p, struct sthread *t)
{
	struct rr *r = p->st;
	struct rrt *s = RRT(t);
	s->ready = false;
	rr_dequeue(r, s);
}

static bool rr_ready_check(struct policy *p, struct sthread *t)
{
	struct rr *r = p->st;
	rr_ready(p, t);
	return !r->head || RRT(t)->prio > r->head->prio;
}

static void rr_yield(struct policy *p)
{
	((struct rr *)p->st)->yield_pending = true;
}

static void rr_update(struct policy *p, int64_t c)
{
	struct rr *r = p->st;
	struct rrt *h = r->head;
	if (h) {
		h->left -= c;
		if (r->yield_pending || h->left <= 0) {
			h->left = r->slice;
			if (h->ready) {
				dlist_remove(&h->node);
				dlist_push_tail(&r->q[h->prio], &h->node);
			}
		}
	}
	r->yield_pending = false;
	r->head = NULL;
	for (int w = 1; w >= 0; w--)
		if (r->busy[w]) {
			int i = w * 64 + 63 - __builtin_clzll(r->busy[w]);
			r->head = DCONTAINER(r->q[i].next, struct rrt, node);
			break;
		}
}

static struct sthread *rr_head(const struct policy *p)
{
	const struct rr *r = p->st;
	return r->head ? r->head->t : NULL;
}

static int64_t rr_quantum(const struct policy *p)
{
	const struct rr *r = p->st;
	return r->head ? r->head->left : INT64_MAX;
}

static int64_t rr_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops policy_rr = {
	.name = "rr",
	.summary = "fixed-priority round robin (SCHED_RR): highest priority first, equal priorities take turns of slice",
	.sim_keys = sim_keys,
	.thread_keys = thread_keys,
	.init = rr_init,
	.fini = rr_fini,
	.admit = rr_admit,
	.create = rr_create,
	.destroy = rr_destroy,
	.ready = rr_ready,
	.unready = rr_unready,
	.ready_check = rr_ready_check,
	.yield = rr_yield,
	.update = rr_update,
	.head = rr_head,
	.quantum = rr_quantum,
	.time = rr_time,
};

/* cfsbw: CFS-style weighted fair sharing with CFS bandwidth control (Linux sched-bwc).
 *
 * Fairness: every ready thread has a virtual runtime advancing by consumed * 1024 / weight;
 * the smallest runs, for a `slice` (fresh at each pick) unless a wake-up preempts it: a woken
 * thread whose vruntime is more than slice/3 (scaled by its weight) behind the running one's
 * preempts. Woken threads are placed no further than slice/2 behind the queue's minimum
 * vruntime (sleeper credit), new ones at the minimum. Fairness is flat over threads.
 *
 * Bandwidth: threads naming the same `group` share its runtime pool. With cfs-quota > 0 the
 * pool starts at quota and is refilled at every multiple of cfs-period (time 0 aligned):
 * runtime = min(runtime + quota, quota + burst), so unused runtime up to `burst` carries over.
 * A group whose pool is empty is throttled: its threads do not run until the refill, when it
 * comes back as one woken entity (place_group). The running thread's quantum ends at the
 * latest when its pool or period ends, so charging is exact; each CPU has its own pools (a
 * group spanning CPUs gets its quota on each).
 *
 * Tick (`tick` > 0, Linux's 1/HZ): as Linux 6.6+ EEVDF does with RUN_TO_PARITY and without
 * HRTICK, a thread picked to run keeps the CPU for its whole slice: a wake-up preempts at
 * once only a thread that has used its slice up, and the slice's end is noticed at the next
 * tick (time 0 aligned), so the running thread overruns it until then. A wake-up during the
 * slice waits for that tick. A group's spent pool is noticed the same way, at the next tick or
 * at a wake-up on its CPU (Linux accounts bandwidth in update_curr): the group overruns its
 * quota until then and pays it back from the next refills. Blocking and refills act at once.
 *
 * Groups (`groups`): flat weighs every thread; nested schedules each group as one entity of
 * weight 1024 beside the others (a thread without a group is a group of its own), as Linux
 * schedules a cgroup: the group with the smallest group vruntime runs its thread with the
 * smallest vruntime; a group that becomes ready is placed no further than slice/2 behind the
 * groups' minimum, and a wake-up in another group than the running thread's compares groups. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "units.h"
#include "util.h"

struct grp {
	char name[OPT_STRLEN];
	int64_t vr;                /* groups = nested: the group's vruntime (weight 1024) */
	int64_t quota, period, burst;
	int64_t runtime, next_refill;
	bool unthrottled;          /* refilled from empty in this update */
};

struct ct {
	struct sthread *t;
	struct grp *g;
	int64_t w, vr, vrem, left;
	bool ready;
};

struct cfs {
	int64_t slice, gran, tick;
	struct ct **v;
	int n, cap;
	struct grp **gs;
	int ng, gcap;
	struct ct *head;
	int64_t last, min_vr;
	bool nested;               /* groups = nested */
	int64_t gmin_vr;           /* nested: the smallest vruntime of the groups that can run */
	bool yield_pending, resched;
};

static const char *const sim_keys[] = {"slice", "tick", "groups", NULL};
static const char *const thread_keys[] = {"weight", "group", "cfs-quota", "cfs-period", "cfs-burst", NULL};

#define CT(s) ((struct ct *)(s)->ps)

static int cfs_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct cfs *c = xcalloc(1, sizeof(*c));
	c->slice = cfg->slice > 0 ? cfg->slice : 3 * NSEC_PER_MSEC;
	c->gran = c->slice / 3;
	c->tick = cfg->tick;
	c->nested = cfg->groups == SIM_GROUPS_NESTED;
	p->st = c;
	return 0;
}

static void cfs_fini(struct policy *p)
{
	struct cfs *c = p->st;
	if (!c)
		return;
	for (int i = 0; i < c->ng; i++)
		free(c->gs[i]);
	free(c->gs);
	free(c->v);
	free(c);
	p->st = NULL;
}

static const char *group_name(const struct sthread *t)
{
	return t->cfg->group[0] ? t->cfg->group : t->name;
}

static int cfs_admit(const struct sim_cfg *cfg, struct sthread *const *ts, int n, struct err *e)
{
	(void)cfg;
	char a[32], b[32];
	for (int i = 0; i < n; i++) {
		const struct sim_thread_cfg *x = ts[i]->cfg;
		if (x->cfs_quota > 0 && x->cfs_period <= 0)
			return err_set(e, EXIT_USAGE, "thread %s: cfs-quota needs a cfs-period > 0", ts[i]->name);
		if (x->cfs_burst > x->cfs_quota)
			return err_set(e, EXIT_USAGE, "thread %s: cfs-burst %s is more than cfs-quota %s (sched-bwc allows burst <= quota)",
			               ts[i]->name, units_format_duration(a, sizeof(a), x->cfs_burst),
			               units_format_duration(b, sizeof(b), x->cfs_quota));
		for (int j = 0; j < i; j++) {
			const struct sim_thread_cfg *y = ts[j]->cfg;
			if (strcmp(group_name(ts[i]), group_name(ts[j])) || x->cfs_quota == 0 || y->cfs_quota == 0)
				continue;
			if (x->cfs_quota != y->cfs_quota || x->cfs_period != y->cfs_period || x->cfs_burst != y->cfs_burst)
				return err_set(e, EXIT_USAGE, "group %s: threads %s and %s set different bandwidth (cfs-quota, cfs-period, cfs-burst: "
				                              "give it on one thread of the group, or the same on each)",
				               group_name(ts[i]), ts[j]->name, ts[i]->name);
		}
	}
	return 0;
}

static struct grp *group_get(struct cfs *c, const struct sthread *t, int64_t now)
{
	const char *name = group_name(t);
	struct grp *g = NULL;
	for (int i = 0; i < c->ng; i++)
		if (strcmp(c->gs[i]->name, name) == 0)
			g = c->gs[i];
	if (!g) {
		ARRAY_GROW(c->gs, c->ng + 1, c->gcap);
		g = xcalloc(1, sizeof(*g));
		snprintf(g->name, sizeof(g->name), "%s", name);
		c->gs[c->ng++] = g;
	}
	const struct sim_thread_cfg *x = t->cfg;
	if (x->cfs_quota > 0 && g->quota == 0) {   /* the first member that sets bandwidth */
		g->quota = x->cfs_quota;
		g->period = x->cfs_period;
		g->burst = x->cfs_burst;
		g->runtime = g->quota;
		g->next_refill = (now / g->period + 1) * g->period;
	}
	return g;
}

static inline bool throttled(const struct grp *g)
{
	return g->quota > 0 && g->runtime <= 0;
}

static void cfs_create(struct policy *p, struct sthread *t)
{
	struct cfs *c = p->st;
	struct ct *s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->w = t->cfg->weight > 0 ? t->cfg->weight : 1024;
	s->g = group_get(c, t, p->now);
	s->vr = c->min_vr;
	s->left = c->slice;
	t->ps = s;
	ARRAY_GROW(c->v, c->n + 1, c->cap);
	c->v[c->n++] = s;
}

static void cfs_destroy(struct policy *p, struct sthread *t)
{
	struct cfs *c = p->st;
	struct ct *s = CT(t);
	for (int i = 0; i < c->n; i++)
		if (c->v[i] == s) {
			ARRAY_REMOVE(c->v, i, c->n);
			c->n--;
			break;
		}
	if (c->head == s)
		c->head = NULL;
	free(s);
	t->ps = NULL;
}

/* A thread (and, nested, its group) that becomes ready again: at most slice/2 behind the
 * queue's minimum (sleeper credit); a no-op for a group already running. */
static void place(struct cfs *c, struct ct *s)
{
	if (s->vr < c->min_vr - c->slice / 2)
		s->vr = c->min_vr - c->slice / 2;
	if (c->nested && s->g->vr < c->gmin_vr - c->slice / 2)
		s->g->vr = c->gmin_vr - c->slice / 2;
}

/* An unthrottled group comes back as one woken entity (Linux's unthrottle_cfs_rq enqueues the
 * group's entity as a wake-up): its ready threads are shifted together, so that the foremost
 * is placed as a woken thread and the others keep their lead on it (in Linux they never left
 * the group's own queue). Placing each alone made equal threads equal after every refill, so
 * thread order broke the tie and the first got the odd slice every period. */
static void place_group(struct cfs *c, const struct grp *g)
{
	struct ct *first = NULL;
	for (int i = 0; i < c->n; i++)
		if (c->v[i]->ready && c->v[i]->g == g && (!first || c->v[i]->vr < first->vr))
			first = c->v[i];
	if (!first)
		return;
	int64_t was = first->vr;
	place(c, first);
	for (int i = 0; i < c->n; i++)
		if (c->v[i]->ready && c->v[i]->g == g && c->v[i] != first)
			c->v[i]->vr += first->vr - was;
}

static void cfs_ready(struct policy *p, struct sthread *t)
{
	struct ct *s = CT(t);
	place(p->st, s);
	s->ready = true;
}

static void cfs_unready(struct policy *p, struct sthread *t)
{
	(void)p;
	CT(t)->ready = false;
}

/* The head's vruntime including what it ran since the last update. */
static int64_t head_vr_now(const struct cfs *c, int64_t now)
{
	const struct ct *h = c->head;
	return h->vr + ((now - c->last) * 1024 + h->vrem) / h->w;
}

/* g's pool after the refills due by now (k of them; 0: none due yet), without applying them:
 * refill() applies it at the next update. */
static int64_t pool_at(const struct grp *g, int64_t now, int64_t *k)
{
	*k = 0;
	if (g->quota == 0 || now < g->next_refill)
		return g->runtime;
	*k = (now - g->next_refill) / g->period + 1;
	int64_t cap = g->quota + g->burst;
	int64_t r = *k > cap / g->quota + 1 ? cap : g->runtime + *k * g->quota;
	return r > cap ? cap : r;
}

static bool cfs_ready_check(struct policy *p, struct sthread *t)
{
	struct cfs *c = p->st;
	struct ct *s = CT(t);
	cfs_ready(p, t);
	/* An idle CPU has not updated since it went idle (its quantum is unlimited when nothing
	 * ready is throttled): decide now, so that a refill due by now counts and a throttled
	 * thread's refill bounds the idle quantum. */
	if (!c->head)
		return c->resched = true;
	int64_t k;
	if (s->g->quota > 0 && pool_at(s->g, p->now, &k) <= 0)
		return false;   /* throttled as of now (Linux's period timer refills on time) */
	const struct grp *hg = c->head->g;
	int64_t ran = p->now - c->last;   /* by the head since the last update */
	if (c->tick && hg->quota > 0 && hg->runtime - ran <= 0)
		return c->resched = true;   /* the wake-up's accounting throttles the running group */
	if (c->tick && c->head->left - ran > 0)
		return false;   /* the running thread's slice is protected: its end, at a tick, decides */
	if (c->nested && s->g != hg)   /* entities of the root: groups, weight 1024 */
		return c->resched = hg->vr + ran - s->g->vr > c->gran;
	if (head_vr_now(c, p->now) - s->vr > c->gran * 1024 / s->w)
		return c->resched = true;
	return false;
}

static void cfs_yield(struct policy *p)
{
	((struct cfs *)p->st)->yield_pending = true;
}

static void refill(struct cfs *c, int64_t now)
{
	for (int i = 0; i < c->ng; i++) {
		struct grp *g = c->gs[i];
		int64_t k;
		int64_t r = pool_at(g, now, &k);
		if (k == 0)
			continue;
		bool was = throttled(g);
		g->runtime = r;
		g->next_refill += k * g->period;
		g->unthrottled = was && !throttled(g);
	}
}

static void cfs_update(struct policy *p, int64_t cons)
{
	struct cfs *c = p->st;
	struct ct *h = c->head;
	int64_t now = p->now;
	if (h) {
		int64_t x = cons * 1024 + h->vrem;
		h->vr += x / h->w;
		h->vrem = x % h->w;
		h->left -= cons;
		h->g->vr += cons;
		if (h->g->quota > 0)
			h->g->runtime -= cons;
	}
	refill(c, now);
	for (int i = 0; i < c->ng; i++) {
		if (c->gs[i]->unthrottled)
			place_group(c, c->gs[i]);
		c->gs[i]->unthrottled = false;
	}
	bool yielded = c->yield_pending && h;
	if (yielded) {   /* to the back of the queue */
		for (int i = 0; i < c->n; i++)
			if (c->v[i] != h && c->v[i]->ready && c->v[i]->vr > h->vr)
				h->vr = c->v[i]->vr;
		h->left = 0;
	}
	bool keep = h && h->ready && !throttled(h->g) && h->left > 0 && !c->resched && !yielded;
	if (!keep) {
		struct ct *best = NULL;
		for (int i = 0; i < c->n; i++) {
			struct ct *s = c->v[i];
			if (!s->ready || throttled(s->g))
				continue;
			if (c->nested && best && s->g != best->g) {   /* first the group */
				if (s->g->vr < best->g->vr || (s->g->vr == best->g->vr && s->t->id < best->t->id))
					best = s;
				continue;
			}
			if (!best || s->vr < best->vr || (s->vr == best->vr && s->t->id < best->t->id))
				best = s;
		}
		c->head = best;
		if (best)
			best->left = c->slice;
	}
	int64_t m = INT64_MAX, gm = INT64_MAX;   /* throttled threads are out of the queue */
	for (int i = 0; i < c->n; i++) {
		const struct ct *s = c->v[i];
		if (!s->ready || throttled(s->g))
			continue;
		m = s->vr < m ? s->vr : m;
		gm = s->g->vr < gm ? s->g->vr : gm;
	}
	if (m != INT64_MAX && m > c->min_vr)
		c->min_vr = m;
	if (c->nested && gm != INT64_MAX && gm > c->gmin_vr)
		c->gmin_vr = gm;
	c->resched = c->yield_pending = false;
	c->last = now;
}

static struct sthread *cfs_head(const struct policy *p)
{
	const struct cfs *c = p->st;
	return c->head ? c->head->t : NULL;
}

/* How long until something due in d is noticed: at once without a tick, else at the first
 * tick at or after it (a due time already passed: the next tick). */
static int64_t noticed(const struct cfs *c, int64_t now, int64_t d)
{
	if (!c->tick)
		return d;
	int64_t at = now + (d > 0 ? d : 0);
	return (at + c->tick - 1) / c->tick * c->tick - now;
}

static int64_t cfs_quantum(const struct policy *p)
{
	const struct cfs *c = p->st;
	int64_t now = p->now, q = INT64_MAX;
	if (c->head) {
		const struct grp *g = c->head->g;
		q = noticed(c, now, c->head->left);   /* the slice's end */
		if (g->quota > 0) {
			int64_t r = noticed(c, now, g->runtime);   /* the pool's end */
			if (r < q)
				q = r;
			if (g->next_refill - now < q)
				q = g->next_refill - now;
		}
	}
	for (int i = 0; i < c->n; i++) {   /* wake up for a throttled group's refill */
		const struct ct *s = c->v[i];
		if (s->ready && throttled(s->g) && s->g->next_refill - now < q)
			q = s->g->next_refill - now;
	}
	return q < 1 ? 1 : q;
}

static int64_t cfs_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops policy_cfsbw = {
	.name = "cfsbw",
	.summary = "CFS-style weighted fair sharing with per-group bandwidth control (quota/period/burst, Linux sched-bwc)",
	.sim_keys = sim_keys,
	.thread_keys = thread_keys,
	.init = cfs_init,
	.fini = cfs_fini,
	.admit = cfs_admit,
	.create = cfs_create,
	.destroy = cfs_destroy,
	.ready = cfs_ready,
	.unready = cfs_unready,
	.ready_check = cfs_ready_check,
	.yield = cfs_yield,
	.update = cfs_update,
	.head = cfs_head,
	.quantum = cfs_quantum,
	.time = cfs_time,
};

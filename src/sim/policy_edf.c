/* edf: SCHED_DEADLINE — earliest deadline first over constant bandwidth servers, as Linux
 * implements them (hard CBS).
 *
 * A thread with dl-runtime R > 0 has a server (R, D = dl-deadline, P = dl-period) with a
 * budget `runtime` and an absolute `deadline`. Among ready, unthrottled servers the earliest
 * deadline runs (ties: thread order); its budget is charged what it consumes. An empty budget
 * throttles it until the next period of its server (deadline - D + P); then the budget is
 * replenished (deadline += P, runtime += R, until runtime > 0; if the deadline is in the past,
 * deadline = now + D, runtime = R). On wake-up the CBS rule applies: a past deadline, or a
 * budget that cannot be consumed by the deadline at the reserved rate (runtime * D >
 * (deadline - now) * R), gets a fresh deadline = now + D and runtime = R; with D < P, as
 * Linux since 4.13, a server woken past its deadline but before its next period is throttled
 * until then, and an overflowing budget keeps the deadline with runtime (deadline - now) * R / D
 * (the revised wake-up rule). A woken server preempts a later deadline; one woken throttled
 * ends the running thread's quantum at its replenishment. yield gives up the rest of the
 * budget (throttled until the next period). Threads without dl-runtime run round robin
 * (slice) when no server is runnable. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "units.h"
#include "util.h"

struct dt {
	struct sthread *t;
	bool dl;                 /* has a server */
	int64_t R, D, P;
	uint64_t density;        /* R/D in units of 2^-BW_SHIFT, as Linux's dl_density: taken once */
	int64_t runtime, deadline;
	bool throttled, fresh, ready;
	uint64_t seq;            /* when it was last queued with its deadline: ties go first come */
	int64_t left;            /* background slice */
	struct dnode node;       /* background queue */
};

struct edf {
	int64_t slice;
	struct dt **v;
	int n, cap;
	struct dnode bg;
	struct dt *head;
	bool yield_pending;
	uint64_t seq;            /* servers queued so far */
};

static const char *const sim_keys[] = {"slice", NULL};
static const char *const thread_keys[] = {"dl-runtime", "dl-deadline", "dl-period", NULL};

#define DT(s) ((struct dt *)(s)->ps)
#define BW_SHIFT 20              /* Linux's fixed point for bandwidths and densities */

static int edf_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct edf *d = xcalloc(1, sizeof(*d));
	d->slice = cfg->slice > 0 ? cfg->slice : 10 * NSEC_PER_MSEC;
	dlist_init(&d->bg);
	p->st = d;
	return 0;
}

static void edf_fini(struct policy *p)
{
	struct edf *d = p->st;
	if (!d)
		return;
	free(d->v);
	free(d);
	p->st = NULL;
}

static int edf_admit(const struct sim_cfg *cfg, struct sthread *const *ts, int n, struct err *e)
{
	(void)cfg;
	double u = 0;
	char a[32], b[32], c[32];
	for (int i = 0; i < n; i++) {
		const struct sim_thread_cfg *x = ts[i]->cfg;
		if (x->dl_runtime == 0)
			continue;
		int64_t P = x->dl_period, D = x->dl_deadline ? x->dl_deadline : x->dl_period;
		if (P <= 0)
			return err_set(e, EXIT_USAGE, "thread %s: dl-runtime needs a dl-period (or a period)", ts[i]->name);
		if (!(x->dl_runtime <= D && D <= P))
			return err_set(e, EXIT_USAGE, "thread %s: needs dl-runtime <= dl-deadline <= dl-period (have %s, %s, %s)",
			               ts[i]->name, units_format_duration(a, sizeof(a), x->dl_runtime),
			               units_format_duration(b, sizeof(b), D), units_format_duration(c, sizeof(c), P));
		u += (double)x->dl_runtime / (double)P;
	}
	if (u > 1.0 + 1e-12)
		return err_set(e, EXIT_USAGE, "deadline servers reserve %.1f%% of the CPU, more than 100%% (admission control rejects it)",
		               u * 100);
	return 0;
}

static void edf_create(struct policy *p, struct sthread *t)
{
	struct edf *d = p->st;
	struct dt *s = xcalloc(1, sizeof(*s));
	const struct sim_thread_cfg *x = t->cfg;
	s->t = t;
	s->dl = x->dl_runtime > 0;
	s->R = x->dl_runtime;
	s->P = x->dl_period;
	s->D = x->dl_deadline ? x->dl_deadline : x->dl_period;
	if (s->D > 0)
		s->density = (uint64_t)(((unsigned __int128)s->R << BW_SHIFT) / (uint64_t)s->D);
	s->fresh = true;
	s->left = d->slice;
	t->ps = s;
	ARRAY_GROW(d->v, d->n + 1, d->cap);
	d->v[d->n++] = s;
}

static void edf_destroy(struct policy *p, struct sthread *t)
{
	struct edf *d = p->st;
	struct dt *s = DT(t);
	if (!s->dl && s->ready)
		dlist_remove(&s->node);
	for (int i = 0; i < d->n; i++)
		if (d->v[i] == s) {
			ARRAY_REMOVE(d->v, i, d->n);
			d->n--;
			break;
		}
	if (d->head == s)
		d->head = NULL;
	free(s);
	t->ps = NULL;
}

static void replenish(struct dt *s, int64_t now)
{
	while (s->runtime <= 0) {
		s->deadline += s->P;
		s->runtime += s->R;
	}
	if (s->deadline < now) {
		s->deadline = now + s->D;
		s->runtime = s->R;
	}
	s->throttled = false;
}

static inline int64_t next_period(const struct dt *s)
{
	return s->deadline - s->D + s->P;
}

static void edf_ready(struct policy *p, struct sthread *t)
{
	struct edf *d = p->st;
	struct dt *s = DT(t);
	int64_t now = p->now;
	s->ready = true;
	if (!s->dl) {
		s->left = d->slice;
		dlist_push_tail(&d->bg, &s->node);
		return;
	}
	if (s->throttled) {
		if (now >= next_period(s))
			replenish(s, now);
		else
			return;     /* stays throttled until its next period */
	}
	if (!s->fresh && s->deadline < now && now < next_period(s)) {
		/* past its deadline, before its next period (D < P): throttled until that period, as
		 * Linux's dl_check_constrained_dl does */
		if (s->runtime > 0)
			s->runtime = 0;
		s->throttled = true;
		return;
	}
	if (s->fresh || s->deadline < now ||
	    (__int128)s->runtime * s->D > (__int128)(s->deadline - now) * s->R) {
		if (!s->fresh && s->D != s->P && s->deadline >= now) {
			/* D < P: Linux's revised wake-up rule keeps the deadline and cuts the budget to
			 * the server's density over the time left (update_dl_revised_wakeup, fixed point
			 * as there) */
			s->runtime = (int64_t)(((unsigned __int128)s->density * (uint64_t)(s->deadline - now)) >> BW_SHIFT);
			if (s->runtime <= 0) {   /* nothing left to run: throttled until the next period */
				s->throttled = true;
				return;
			}
		} else {
			s->deadline = now + s->D;
			s->runtime = s->R;
			s->fresh = false;
		}
	}
	s->seq = ++d->seq;
}

static void edf_unready(struct policy *p, struct sthread *t)
{
	struct dt *s = DT(t);
	(void)p;
	s->ready = false;
	if (!s->dl)
		dlist_remove(&s->node);
}

static inline bool runnable_dl(const struct dt *s)
{
	return s->dl && s->ready && !s->throttled;
}

static inline bool earlier(const struct dt *a, const struct dt *b)
{
	/* equal deadlines in the order they were queued, as Linux's rb-tree keeps them */
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static bool edf_ready_check(struct policy *p, struct sthread *t)
{
	struct edf *d = p->st;
	struct dt *s = DT(t);
	edf_ready(p, t);
	if (!d->head)
		return true;
	if (s->dl && s->throttled)
		return true;   /* no preemption, but the head's quantum must end at its replenishment
		                * (Linux arms the server's timer): the update keeps the head */
	if (!runnable_dl(s))
		return false;
	/* strictly earlier, as Linux's dl_entity_preempt: an equal deadline does not preempt */
	return !d->head->dl || s->deadline < d->head->deadline;
}

static void edf_yield(struct policy *p)
{
	((struct edf *)p->st)->yield_pending = true;
}

static void edf_update(struct policy *p, int64_t c)
{
	struct edf *d = p->st;
	struct dt *h = d->head;
	int64_t now = p->now;
	if (h && h->dl) {
		h->runtime -= c;
		if (d->yield_pending)
			h->runtime = 0;
		if (h->runtime <= 0)
			h->throttled = true;
	} else if (h) {
		h->left -= c;
		if (d->yield_pending || h->left <= 0) {
			h->left = d->slice;
			if (h->ready) {
				dlist_remove(&h->node);
				dlist_push_tail(&d->bg, &h->node);
			}
		}
	}
	d->yield_pending = false;
	struct dt *best = NULL;
	for (int i = 0; i < d->n; i++) {
		struct dt *s = d->v[i];
		if (s->dl && s->throttled && now >= next_period(s)) {
			replenish(s, now);
			s->seq = ++d->seq;
		}
		if (runnable_dl(s) && (!best || earlier(s, best)))
			best = s;
	}
	if (!best && !dlist_empty(&d->bg))
		best = DCONTAINER(d->bg.next, struct dt, node);
	d->head = best;
}

static struct sthread *edf_head(const struct policy *p)
{
	const struct edf *d = p->st;
	return d->head ? d->head->t : NULL;
}

static int64_t edf_quantum(const struct policy *p)
{
	const struct edf *d = p->st;
	int64_t q = INT64_MAX;
	if (d->head)
		q = d->head->dl ? d->head->runtime : d->head->left;
	for (int i = 0; i < d->n; i++) {   /* a throttled server's next period may preempt */
		const struct dt *s = d->v[i];
		if (s->dl && s->ready && s->throttled && next_period(s) - p->now < q)
			q = next_period(s) - p->now;
	}
	return q < 1 ? 1 : q;
}

static int64_t edf_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops policy_edf = {
	.name = "edf",
	.summary = "SCHED_DEADLINE: earliest deadline first over constant bandwidth servers (runtime/deadline/period)",
	.sim_keys = sim_keys,
	.thread_keys = thread_keys,
	.init = edf_init,
	.fini = edf_fini,
	.admit = edf_admit,
	.create = edf_create,
	.destroy = edf_destroy,
	.ready = edf_ready,
	.unready = edf_unready,
	.ready_check = edf_ready_check,
	.yield = edf_yield,
	.update = edf_update,
	.head = edf_head,
	.quantum = edf_quantum,
	.time = edf_time,
};

/* The discrete-event engine: see engine.h for the model and docs/sim.md for the metrics. */
#include "sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "sim/policy_hwquota.h"
#include "sim/schedsim.h"
#include "util.h"

enum tstate { T_BLOCKED, T_READY, T_DONE };

struct thr {
	struct sthread st;            /* what the policy sees */
	struct hwq_share hwq;         /* hwquota's share of it (st.ps), here so that hwquota's loop
	                                 goes between the two without loading a pointer */
	const struct sim_thread_spec *spec;
	const struct sim_thread_cfg *c;
	struct result_thread *out;
	int64_t used, spent;          /* hot counters, copied to out at the end: out is large */
	struct hist_summary wake, resp;   /* out's histograms' summaries, the same (only their
	                                     counts are recorded in out) */
	uint64_t switches, samples, met, missed;
	int idx, cpu;
	enum tstate state;
	/* the current job (burst) */
	int64_t rel;                  /* its release */
	int64_t work;                 /* work left in it */
	int64_t dl;                   /* absolute deadline; 0: none */
	bool started;                 /* has run since its release */
	/* releases */
	int64_t next_rel;             /* periodic, sporadic, timer: the next release */
	int64_t oneshot_left;         /* oneshot: total work left after the current burst */
	uint64_t rng;
	/* timer windows */
	int64_t win, win_idx, win_count;
	/* schedsim rows: spec->jobs and spec->njobs, here because every arrival reads them */
	const struct sim_job *jobs;
	int nrows;
	struct row_state {
		int64_t next;             /* its next arrival (INT64_MAX: none) */
		int64_t extra;            /* runtime owed by the releases it skipped */
	} *row;
	const struct sim_job *job;    /* the current job's row (a thread of one row: always its) */
	struct row_state *job_state;
	int64_t one_period;           /* > 0: its only row is periodic, of this period (kept here: its
	                                 arrival reads it without going through jobs); while it is
	                                 ready, the row's next arrival (release + period) stays
	                                 queued, as a periodic thread's next release does (see
	                                 handle_wake) */
};

struct cpu {
	struct policy pol;
	struct thr *head;             /* NULL: idle */
	int64_t last_upd;             /* time of the last update */
	int64_t run_from;             /* the head's progress is accounted up to here (>= end of
	                                 its context switch) */
	int64_t armed;                /* its event time in the queue (several CPUs; one: see ckey) */
	int64_t expires;              /* last_upd + the quantum granted then (INT64_MAX: never) */
	struct thr *ran;              /* the thread that ran up to the instant of the last update
	                                 (NULL: idle), and its run_from then: a head that holds the
	                                 CPU for 0 ns (several wake-ups at one instant) is no switch */
	int64_t ran_from;
};

struct heap {
	uint64_t *hk;                 /* heap: hk[n] = UINT64_MAX; tree: see FLAT_MAX */
	int *pos;
	int n;                        /* heap: entries queued */
	bool tree;                    /* few entries: a tournament tree */
	const uint64_t *first;        /* the smallest key: hk[0] (heap) or hk[1] (tree) */
};

struct eng {
	const struct sim_cfg *cfg;
	int64_t end, cs;
	int64_t check_at;             /* <= end: the loop's end test is at >= check_at (stop_due) */
	struct sim_watch watch;
	bool stopped;                 /* sim_stop ended the run at `end` */
	struct thr *t;
	int nt;
	struct cpu *c;
	int nc;
	struct heap tq, cq;           /* thread wake-ups, CPU events */
	sim_trace_fn trace;
	void *tctx;
	struct sim_totals *tot;
	uint64_t ckey;                /* one CPU: its event as a queue key (time << ENT_BITS | ENT_MASK,
	                                 at most the end's: none before the end); no thread's key is
	                                 above it at the same time, so threads come first */
	int nready;                   /* threads in T_READY, all CPUs (the end rule; not in hwquota's
	                                 loop, whose CPU is idle exactly when none is: it always runs
	                                 a ready share, by claim or fill) */
	int64_t last_row;             /* the end rule: when the scenario's last timed row arrives */
	/* schedsim rows waiting on event e: ev_rows[ev_start[e] .. ev_start[e + 1]), by thread */
	int *ev_start;
	struct ev_row { int thread, row; } *ev_rows;
};

/* ---------------------------------------------------------------- event queues
 * Two queues of packed keys (time << ENT_BITS | index): one for thread wake-ups, one for CPU
 * events, so one integer compare orders by time, then index. At equal times thread events
 * come first (see engine.h). Only events before the end are queued. A queue of up to
 * FLAT_MAX entries is a tournament tree: entry x's key is leaf hk[FLAT_MAX + x] (UINT64_MAX:
 * none), every node above holds the smaller of its two children, hk[1] the smallest of all;
 * a change recomputes the four nodes above its leaf without a branch, where a heap's sift
 * follows a path that is data no predictor learns. More entries get an indexed binary
 * min-heap. */

#define ENT_BITS 13
#define ENT_MASK ((UINT64_C(1) << ENT_BITS) - 1)
#define SIM_MAX_ENTITIES ((int)ENT_MASK)

static void sift_up(struct heap *q, int i, uint64_t k)
{
	while (i > 0) {
		int p = (i - 1) / 2;
		if (q->hk[p] <= k)
			break;
		q->hk[i] = q->hk[p];
		q->pos[q->hk[i] & ENT_MASK] = i;
		i = p;
	}
	q->hk[i] = k;
	q->pos[k & ENT_MASK] = i;
}

static void sift_down(struct heap *q, int i, uint64_t k)
{
	for (;;) {
		int l = 2 * i + 1;
		if (l >= q->n)
			break;
		int m = l + (q->hk[l + 1] < q->hk[l]);   /* hk[n] is UINT64_MAX: no bound check, no branch */
		if (q->hk[m] >= k)
			break;
		q->hk[i] = q->hk[m];
		q->pos[q->hk[i] & ENT_MASK] = i;
		i = m;
	}
	q->hk[i] = k;
	q->pos[k & ENT_MASK] = i;
}

/* Sets when entry x needs attention next; at or after the end (INT64_MAX: never) it leaves
 * the queue. */
#define FLAT_MAX 16   /* a power of two */

static void heap_move(struct heap *q, int64_t end, int x, int64_t at)
{
	int i = q->pos[x];
	if (at >= end) {
		if (i < 0)
			return;
		q->pos[x] = -1;
		uint64_t last = q->hk[--q->n];
		q->hk[q->n] = UINT64_MAX;
		if (i < q->n) {
			if (i > 0 && q->hk[(i - 1) / 2] > last)
				sift_up(q, i, last);
			else
				sift_down(q, i, last);
		}
		return;
	}
	uint64_t k = (uint64_t)at << ENT_BITS | (uint64_t)x;
	if (i < 0) {
		q->hk[q->n + 1] = UINT64_MAX;
		sift_up(q, q->n++, k);
	}
	else if (k < q->hk[i])
		sift_up(q, i, k);
	else if (k > q->hk[i])
		sift_down(q, i, k);
}

IRT_HOT_INLINE void heap_set(struct heap *q, int64_t end, int x, int64_t at)
{
	if (!q->tree) {
		heap_move(q, end, x, at);
		return;
	}
	uint64_t k = at >= end ? UINT64_MAX : (uint64_t)at << ENT_BITS | (uint64_t)x;
	unsigned i = FLAT_MAX + (unsigned)x;
	if (q->hk[i] == k)
		return;
	q->hk[i] = k;
	uint64_t m = k;   /* the new value of node i; its parent takes the smaller of m and its sibling */
#define TREE_UP() do { uint64_t sib = q->hk[i ^ 1]; m = sib < m ? sib : m; i /= 2; q->hk[i] = m; } while (0)
	TREE_UP();   /* log2(FLAT_MAX) levels */
	TREE_UP();
	TREE_UP();
	TREE_UP();
#undef TREE_UP
}

IRT_HOT_INLINE void set_event(struct eng *g, int thread, int64_t at)
{
	heap_set(&g->tq, g->end, thread, at);
}

/* CPU events: with one CPU its armed time is the whole queue (the common case, kept cheap);
 * with several, a heap orders them. */
static inline void set_cpu_event(struct eng *g, const struct cpu *c, int64_t at)
{
	if (g->nc > 1)
		heap_set(&g->cq, g->end, (int)(c - g->c), at);
}

static int heap_init(struct heap *q, int n)
{
	q->hk = xcalloc((size_t)n + 2, sizeof(uint64_t));   /* + the sentinel after the last */
	q->hk[0] = UINT64_MAX;
	q->pos = xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		q->pos[i] = -1;
	q->first = &q->hk[0];
	if (n <= FLAT_MAX) {
		q->tree = true;
		free(q->hk);
		q->hk = xmalloc(2 * FLAT_MAX * sizeof(uint64_t));
		for (int i = 0; i < 2 * FLAT_MAX; i++)
			q->hk[i] = UINT64_MAX;
		q->first = &q->hk[1];
	}
	return 0;
}

static void heap_free(struct heap *q)
{
	free(q->hk);
	free(q->pos);
}

#define HOT IRT_HOT_INLINE

static inline int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;   /* a >= 0, b > 0 */
}

/* ---------------------------------------------------------------- stop requests */

atomic_bool sim_stop;

#define WATCH_EVENTS (UINT64_C(1) << 20)

int64_t sim_watch_next(struct sim_watch *w, int64_t now, uint64_t events)
{
	uint64_t d = events - w->events;
	w->events = events;
	if (d < WATCH_EVENTS / 2)
		w->step = w->step > w->max / 2 ? w->max : w->step * 2;
	else if (d > WATCH_EVENTS * 2)
		w->step = (int64_t)((unsigned __int128)w->step * WATCH_EVENTS / d);
	w->step = w->step < 1 ? 1 : w->step;
	return sat_add(now, w->step);
}

/* The loop reached check_at (at < end there; at >= end: its end): true to end the run, at `at`
 * when sim_stop is set, as if the duration ended there. Out of line: once per ~2^20 events. */
static __attribute__((noinline, cold)) bool stop_due(struct eng *g, int64_t at, uint64_t events)
{
	if (at >= g->end)
		return true;
	if (atomic_load_explicit(&sim_stop, memory_order_relaxed)) {
		g->end = at;
		g->stopped = true;
		return true;
	}
	int64_t next = sim_watch_next(&g->watch, at, events);
	g->check_at = next < g->end ? next : g->end;
	return false;
}

/* ---------------------------------------------------------------- random work */

static int64_t draw(uint64_t *rng, int dist, int64_t lo, int64_t hi)
{
	switch (dist) {
	case DIST_UNIFORM:
		return hi > lo ? lo + sim_rand_below(rng, hi - lo + 1) : lo;
	case DIST_EXPONENTIAL: {
		double u = ((double)(sim_rand(rng) >> 11) + 0.5) / 9007199254740992.0;   /* (0,1) */
		double v = -log(u) * (double)lo;
		int64_t x = v > 9e18 ? INT64_MAX / 4 : (int64_t)(v + 0.5);
		return x < 1 ? 1 : x;
	}
	default:
		return lo;
	}
}

HOT int64_t draw_exec(struct thr *t)
{
	if (t->c->exec_dist == DIST_FIXED)   /* the common case, without a call */
		return t->c->exec;
	return draw(&t->rng, t->c->exec_dist, t->c->exec, t->c->exec_max);
}

static int64_t draw_block(struct thr *t)
{
	if (t->c->block_max > t->c->block)
		return t->c->block + sim_rand_below(&t->rng, t->c->block_max - t->c->block + 1);
	return t->c->block;
}

/* ---------------------------------------------------------------- scheduling */

/* The policy's calls: through the ops table, or, when hwq (a constant in each copy of the
 * event loop) says this is hwquota's own loop, its code inlined (no indirect calls, no ops
 * loads on every decision). That loop runs one CPU without a trace, and hwquota does not
 * read p->now: those tests and stores are left out there. */
HOT struct thr *pol_decide(bool hwq, bool yields, struct policy *p, int64_t c, int64_t *q)
{
	if (hwq) {
		p->decisions++;
		/* every update at or before its expiry */
		struct hwq_share *s = hwq_decide_share(p->st, c, q, true, yields);
		return s ? DCONTAINER(s, struct thr, hwq) : NULL;
	}
	struct sthread *h = policy_decide(p, c, q);
	return h ? DCONTAINER(h, struct thr, st) : NULL;
}

HOT void pol_unready(bool hwq, struct policy *p, struct thr *t)
{
	if (hwq)
		hwq_unready_share(p->st, &t->hwq);
	else
		policy_unready(p, &t->st);
}

HOT bool pol_ready_check(bool hwq, struct policy *p, struct thr *t)
{
	return hwq ? hwq_ready_check_share(p->st, &t->hwq) : policy_ready_check(p, &t->st);
}

HOT void arm_cpu(struct eng *g, struct cpu *c, bool hwq)
{
	int64_t at = c->expires;
	if (c->head) {
		int64_t done = c->run_from + c->head->work;   /* work <= INT64_MAX/4, times < 2^50 */
		at = done < at ? done : at;
	}
	if (hwq || g->nc == 1) {   /* its armed time is the whole queue */
		g->ckey = (uint64_t)(at < g->end ? at : g->end) << ENT_BITS | ENT_MASK;
	} else if (at != c->armed) {
		c->armed = at;
		set_cpu_event(g, c, at);
	}
}

/* update(elapsed) at t: charge, choose, grant. */
HOT void reschedule(struct eng *g, struct cpu *c, int64_t t, bool hwq, bool yields)
{
	int64_t elapsed = t - c->last_upd;
	struct thr *old = c->head;
	if (old)
		old->spent += elapsed;
	if (!hwq)
		c->pol.now = t;
	int64_t q;
	struct thr *nh = pol_decide(hwq, yields, &c->pol, elapsed, &q);
	if (!hwq && q < 1)
		q = 1;   /* a policy never grants nothing; guard the engine against looping (hwquota
		          * grants a claim > 0, a fill > 0 or the fill slice, and the residual > 0) */
	/* A switch is a head other than the thread that ran into this instant (c->ran): heads
	 * chosen and replaced at one instant never ran, so they count no switch and cost none
	 * (a kernel takes simultaneous wake-ups in one entry). The current head is counted iff it
	 * is not c->ran; a head replaced at its own instant gives its count back. Selects rather
	 * than branches where the data decides: a new head's progress starts after the switch
	 * cost, the thread that ran goes on; run_from means nothing while idle. */
	if (t > c->last_upd) {   /* old ran (or idled) since last_upd */
		c->ran = old;
		c->ran_from = c->run_from < t ? t : c->run_from;
	}
	struct thr *ran = c->ran;
	if (nh != old) {
		if (old && old != ran)
			old->switches--;
		if (nh && nh != ran)
			nh->switches++;
	}
	c->run_from = nh == ran ? c->ran_from : t + g->cs;
	c->head = nh;
	c->last_upd = t;
	c->expires = hwq ? t + q : sat_add(t, q);   /* hwquota's quantum is at most the super period (<= 1 h) */
	if (!hwq && g->trace)   /* hwquota's own loop runs without a trace */
		g->trace(g->tctx, (int)(c - g->c), t, nh ? nh->idx : -1, q);
}

/* Accounts the head's progress up to t; true when its burst is done at t. */
HOT bool settle(struct cpu *c, int64_t t)
{
	struct thr *h = c->head;
	if (!h)
		return false;
	if (t > c->run_from) {
		int64_t d = t - c->run_from;
		if (!h->started) {
			h->started = true;
			hist_record_into(&h->wake, h->out->wake.counts, c->run_from - h->rel);
		}
		h->work -= d;
		h->used += d;
		c->run_from = t;
	}
	return h->work == 0;
}

static void timer_count(struct eng *g, struct thr *t, int64_t at)
{
	(void)g;
	int64_t k = at / t->win;
	while (t->win_idx < k) {    /* close the windows before k */
		struct result_thread *o = t->out;
		o->sim_windows++;
		if (t->win_count >= t->c->activations)
			o->sim_windows_ok++;
		if (o->sim_activations_min < 0 || t->win_count < o->sim_activations_min)
			o->sim_activations_min = t->win_count;
		t->win_idx++;
		t->win_count = 0;
	}
	t->win_count++;
}

/* The current job is done at `at`: its response time and deadline (a schedsim row's job needs
 * no more; the others' job_done() does). */
HOT void job_record(struct thr *t, int64_t at)
{
	struct result_thread *o = t->out;
	hist_record_into(&t->resp, o->resp.counts, at - t->rel);
	t->samples++;
	if (t->dl > 0) {
		if (at <= t->dl)
			t->met++;
		else
			t->missed++;
	}
}

HOT void job_done(struct eng *g, struct thr *t, int64_t at)
{
	job_record(t, at);
	if (t->c->type == SIM_TIMER)
		timer_count(g, t, at);
}

/* A new job released at rel with absolute deadline dl (0: none). Its wake-up latency is taken
 * when it first executes (settle), also when it follows the thread's previous job at once: the
 * policy may run another thread at that very instant (a quantum or budget ending with the job). */
HOT void start_job_dl(struct thr *t, int64_t rel, int64_t work, int64_t dl)
{
	t->rel = rel;
	t->work = work;
	t->dl = dl;
	t->started = false;
}

/* The same with the thread's relative deadline. */
HOT void start_job(struct thr *t, int64_t rel, int64_t work)
{
	start_job_dl(t, rel, work, t->c->deadline > 0 ? rel + t->c->deadline : 0);
}

static int64_t next_sporadic(struct thr *t, int64_t from)
{
	return from + t->c->period + (t->c->jitter > 0 ? sim_rand_below(&t->rng, t->c->jitter + 1) : 0);
}

HOT int64_t rows_next(const struct thr *t)
{
	if (t->nrows == 1)   /* most threads of a scenario have one row */
		return t->row[0].next;
	int64_t m = INT64_MAX;
	for (int r = 0; r < t->nrows; r++)
		if (t->row[r].next < m)
			m = t->row[r].next;
	return m;
}

#define QUEUED (-1)   /* block()'s wake-up: the thread's next release is queued already */

/* `count`: keep the ready count, which only the end rule reads (hwquota's loop without it
 * leaves it out) */
HOT void block(struct eng *g, struct cpu *c, struct thr *t, int64_t now, int64_t wake, bool hwq, bool count, bool yields)
{
	t->state = T_BLOCKED;
	if (count)
		g->nready--;
	if (!hwq)   /* hwquota does not read its clock */
		c->pol.now = now;
	pol_unready(hwq, &c->pol, t);
	reschedule(g, c, now, hwq, yields);
	if (wake != QUEUED)
		set_event(g, t->idx, wake);
}

/* Event ev fires at `at`: the rows waiting on it arrive then. Only their threads' next
 * arrival moves: every other thread's queued one is its rows_next() already. */
HOT void raise_event(struct eng *g, int ev, int64_t at)
{
	const struct ev_row *r = &g->ev_rows[g->ev_start[ev]], *end = &g->ev_rows[g->ev_start[ev + 1]];
	while (r < end) {
		struct thr *u = &g->t[r->thread];
		for (; r < end && &g->t[r->thread] == u; r++) {
			u->row[r->row].next = at;
			u->row[r->row].extra = 0;
		}
		set_event(g, u->idx, rows_next(u));
	}
}

/* A periodic, timer or sporadic thread's job is done. While it is ready its next release is
 * queued (handle_wake); after an overrun that release has come and gone, so the one after it
 * is queued here. */
HOT void periodic_done(struct eng *g, struct cpu *c, struct thr *h, int64_t t, bool hwq, bool count)
{
	job_done(g, h, t);
	if (h->next_rel <= t) {
		/* a job ending at the next release is not late: completions come before wake-ups */
		h->out->overruns += h->next_rel < t;
		int64_t rel = h->next_rel;
		h->next_rel = h->c->type == SIM_SPORADIC ? next_sporadic(h, rel) : rel + h->c->period;
		start_job(h, rel, draw_exec(h));
		set_event(g, h->idx, h->next_rel);
	} else {
		block(g, c, h, t, QUEUED, hwq, count, true);
	}
}

/* A schedsim job is done: its row's next arrival (a periodic row skips the releases it missed
 * and owes their runtime; a restarting row restarts), the event it raises. */
HOT void row_done(struct eng *g, struct cpu *c, struct thr *h, int64_t t, bool hwq, bool count, bool yields)
{
	job_record(h, t);
	const struct sim_job *j = h->job;
	struct row_state *w = h->job_state;
	int64_t was = w->next;
	if (j->period > 0) {
		/* queued on arrival and still ahead (a thread of one periodic row without overrun:
		 * rows_arrive, handle_wake): nothing missed, nothing owed. Else schedsim skips the
		 * missed activations and owes their runtime. */
		if (was == INT64_MAX)
			w->next = ss_next_period(h->rel, j->period, t, j->runtime, &w->extra);
	} else if (j->restart > 0) {
		w->next = t + j->restart;
	}
	if (j->event_out >= 0)
		raise_event(g, j->event_out, t);   /* queues what it changes */
	/* a thread of rows has rows_next() queued (see handle_wake): if this row's next arrival
	 * stayed (a periodic row without overrun: set on arrival), so did that */
	block(g, c, h, t, w->next == was ? QUEUED : rows_next(h), hwq, count, yields);
}

/* The head's burst ended at t: record it and go on (next job, block, yield, exit). */
HOT void complete_k(struct eng *g, struct cpu *c, int64_t t, bool hwq, bool count, bool jobs, bool rows)
{
	struct thr *h = c->head;
	const struct sim_thread_cfg *k = h->c;
	if (rows) {   /* every thread is one of schedsim rows */
		row_done(g, c, h, t, hwq, count, false);   /* no thread of rows yields */
		return;
	}
	/* the common cases without the switch's table */
	if (__builtin_expect(k->type == SIM_PERIODIC, 1)) {
		periodic_done(g, c, h, t, hwq, count);
		return;
	}
	if (jobs && k->type == SIM_JOBS) {   /* a copy of the loop without schedsim rows leaves it out */
		row_done(g, c, h, t, hwq, count, true);
		return;
	}
	switch (k->type) {
	case SIM_PERIODIC:
	case SIM_TIMER:
	case SIM_SPORADIC:
		periodic_done(g, c, h, t, hwq, count);
		break;
	case SIM_IO: {
		job_done(g, h, t);
		int64_t b = draw_block(h);
		if (b == 0)
			start_job(h, t, draw_exec(h));
		else
			block(g, c, h, t, t + b, hwq, count, true);
		break;
	}
	case SIM_ONESHOT: {
		job_done(g, h, t);
		if (h->oneshot_left == 0) {
			h->out->sim_completion_ns = t - k->start;
			block(g, c, h, t, INT64_MAX, hwq, count, true);
			h->state = T_DONE;
			c->pol.now = t;
			policy_destroy(&c->pol, &h->st);
			break;
		}
		int64_t b = draw_block(h);
		int64_t w = k->exec > 0 && k->exec < h->oneshot_left ? k->exec : h->oneshot_left;
		h->oneshot_left -= w;
		if (b == 0)
			start_job(h, t, w);
		else {
			block(g, c, h, t, t + b, hwq, count, true);
			h->work = w;   /* the next burst, released when it wakes */
		}
		break;
	}
	case SIM_CPU_BOUND:
		/* a yield point: the work goes on, the rest of the quantum is given up */
		h->work = k->yield_every;
		c->pol.now = t;
		policy_yield(&c->pol);
		reschedule(g, c, t, hwq, true);
		break;
	case SIM_JOBS:   /* above */
		break;
	}
}

static void complete_any(struct eng *g, struct cpu *c, int64_t t) { complete_k(g, c, t, false, true, true, false); }

/* The head's burst ended at t: inline in hwquota's loop, one call in the others (not a copy
 * in each of their callers) */
HOT void complete(struct eng *g, struct cpu *c, int64_t t, bool hwq, bool count, bool jobs, bool rows)
{
	if (hwq)
		complete_k(g, c, t, true, count, jobs, rows);
	else
		complete_any(g, c, t);
}

HOT void handle_cpu(struct eng *g, struct cpu *c, int64_t t, bool hwq, bool count, bool jobs, bool rows)
{
	bool done = settle(c, t);
	if (done)
		complete(g, c, t, hwq, count, jobs, rows);
	if ((!rows || !done) && c->expires <= t)   /* a row's job end blocks: a quantum from t */
		reschedule(g, c, t, hwq, !rows);
	arm_cpu(g, c, hwq);
}

/* Schedsim rows of t arrive at now (those whose next arrival is now): the first starts a job if
 * t is blocked, schedsim drops the others. True when t wakes. */
HOT bool rows_arrive(struct eng *g, struct thr *t, int64_t now)
{
	if (t->one_period > 0) {   /* most arrivals: that row's, and t is blocked (handle_wake
	                              took the ready case), so its job starts */
		struct row_state *w = &t->row[0];
		int64_t next = now + t->one_period;   /* also the job's deadline */
		start_job_dl(t, now, t->jobs[0].runtime + w->extra, next);
		w->extra = 0;
		w->next = next;   /* queued now: complete() keeps it unless the job ends after it */
		set_event(g, t->idx, next);
		return true;
	}
	bool wake = false;
	for (int r = 0; r < t->nrows; r++) {
		struct row_state *w = &t->row[r];
		if (w->next != now)
			continue;
		w->next = INT64_MAX;
		if (t->state != T_BLOCKED || wake) {
			t->out->overruns++;     /* schedsim drops a job of a busy thread */
			continue;
		}
		const struct sim_job *j = &t->jobs[r];
		t->job = j;
		t->job_state = w;
		start_job_dl(t, now, j->runtime + w->extra, j->period > 0 ? now + j->period : 0);
		w->extra = 0;
		wake = true;
	}
	set_event(g, t->idx, rows_next(t));
	return wake;
}

/* Thread x's release time has come (it is blocked), or a schedsim row arrives. `rows`: every
 * thread is one of schedsim rows (no other type's code). */
HOT void handle_wake(struct eng *g, struct thr *t, int64_t now, bool hwq, bool count, bool jobs, bool rows)
{
	struct cpu *c = hwq ? g->c : &g->c[t->cpu];
	if (__builtin_expect(t->state == T_READY, 0) &&
	    (rows ? t->one_period > 0 : t->c->type != SIM_JOBS || (jobs && t->one_period > 0))) {
		/* a periodic thread's next release (queued while it is ready, below) came while
		 * its job still runs: complete() starts that job; nothing happens now. A thread of
		 * one periodic row: schedsim had no arrival queued then (complete() works out the
		 * next one, skipping the missed ones): nothing happens either; the row's next
		 * arrival is none until then, as queued. */
		set_event(g, t->idx, INT64_MAX);
		if (t->one_period > 0)
			t->row[0].next = INT64_MAX;
		return;
	}
	/* A burst ending now completes first. hwquota's loop settles the head only then or before
	 * a switch (below), else at its next CPU event: settling twice gives the same sums, the
	 * head's done time (run_from + work) does not move, so the CPU stays armed as it was. */
	bool changed = !hwq;
	if (!hwq || (int64_t)(g->ckey >> ENT_BITS) <= now) {   /* its event is due (ckey: one CPU) */
		if (settle(c, now))
			complete(g, c, now, hwq, count, jobs, rows);
		changed = true;
	}
	const struct sim_thread_cfg *k = t->c;
	bool wake = false;

	switch (rows ? SIM_JOBS : __builtin_expect(k->type, SIM_PERIODIC)) {   /* the common case first */
	case SIM_PERIODIC:
	case SIM_TIMER:
		start_job(t, now, draw_exec(t));
		t->next_rel = now + k->period;
		wake = true;
		break;
	case SIM_SPORADIC:
		start_job(t, now, draw_exec(t));
		t->next_rel = next_sporadic(t, now);
		wake = true;
		break;
	case SIM_IO:
		start_job(t, now, draw_exec(t));
		wake = true;
		break;
	case SIM_CPU_BOUND:
		/* no jobs: no latency samples, no deadlines */
		start_job(t, now, k->yield_every > 0 ? k->yield_every : INT64_MAX / 4);
		t->started = true;
		t->dl = 0;
		wake = true;
		break;
	case SIM_ONESHOT: {
		int64_t w = t->work;
		if (now == k->start && t->oneshot_left < 0) {    /* the job begins */
			t->oneshot_left = k->work;
			w = k->exec > 0 && k->exec < k->work ? k->exec : k->work;
			t->oneshot_left -= w;
		}
		start_job(t, now, w);
		wake = true;
		break;
	}
	case SIM_JOBS:
		wake = jobs && rows_arrive(g, t, now);
		break;
	}
	if (wake) {
		t->state = T_READY;
		if (count)
			g->nready++;
		/* periodic threads keep their next release queued while ready (where block() puts
		 * it anyway: one heap move per job instead of a removal and an insertion); the
		 * others wait for block() */
		if (rows)
			;   /* rows_arrive() queued the next arrival */
		else if (k->type == SIM_PERIODIC || k->type == SIM_TIMER || k->type == SIM_SPORADIC)
			set_event(g, t->idx, t->next_rel);
		else if (k->type != SIM_JOBS)
			set_event(g, t->idx, INT64_MAX);
		if (!hwq)
			c->pol.now = now;
		if (pol_ready_check(hwq, &c->pol, t)) {
			if (hwq)
				settle(c, now);   /* the head's progress, before it may be switched */
			reschedule(g, c, now, hwq, !rows);
			changed = true;
		}
	}
	if (changed)
		arm_cpu(g, c, hwq);
}

/* The event loop. Inlined per case (one CPU or several, schedsim's end rule or not, hwquota's
 * own, schedsim rows or not) so that each copy tests none of these in every iteration. */
HOT int run_events(struct eng *g, const struct policy_ops *ops, bool one_cpu, bool idle_rule, bool hwq,
                   bool jobs, bool rows, uint64_t *nevents, struct err *e)
{
	uint64_t events = 0, mark = 0;   /* mark: events when time last advanced */
	int64_t last_at = -1;
	bool count = !hwq;   /* the ready count, for the end rule (nready) */
	int rc = 0;
	for (;;) {
		/* the earlier of the two queues' first events, threads first at equal times (an
		 * empty heap's first key is UINT64_MAX, whose time is past any end, as is ckey's
		 * "none before the end") */
		uint64_t ct = one_cpu ? g->ckey : *g->cq.first;
		uint64_t tk = *g->tq.first;
		bool thread = one_cpu ? tk <= ct : tk >> ENT_BITS <= ct >> ENT_BITS;
		uint64_t top = thread ? tk : ct;
		int64_t at = (int64_t)(top >> ENT_BITS);
		bool none_ready = hwq ? !g->c->head : g->nready == 0;
		if (idle_rule && none_ready && at > last_at && last_at >= g->last_row) {   /* none_ready first: rarely */
			g->end = last_at;
			break;
		}
		if (at >= g->check_at && stop_due(g, at, events))   /* the end, or a stop request */
			break;
		int x = (int)(top & ENT_MASK);
		events++;
		/* a policy that never lets time advance; not hwquota, which grants at least 1 (a
		 * release's next one is a period > 0 later, a block's wake-up a block > 0 later) */
		if (!hwq) {
			mark = at == last_at ? mark : events;
			if (events - mark > 10000000) {
				rc = err_set(e, EXIT_RUNTIME, "simulation stuck at %lld ns (policy %s grants no time)",
				             (long long)at, ops->name);
				break;
			}
		}
		last_at = at;
		if (thread)
			handle_wake(g, &g->t[x], at, hwq, count, jobs, rows);
		else
			handle_cpu(g, &g->c[one_cpu ? 0 : x], at, hwq, count, jobs, rows);
	}
	*nevents = events;
	return rc;
}

/* Each copy of the loop is a function of its own, so that gcc lays out and allocates registers
 * for each alone (inlined together into engine_run, a change to one moved the others' code). */
#define LOOP_COPY(name, one_cpu, idle_rule, hwq, jobs, rows) \
	static __attribute__((noinline)) int name(struct eng *g, const struct policy_ops *ops, uint64_t *n, struct err *e) \
	{ \
		return run_events(g, ops, one_cpu, idle_rule, hwq, jobs, rows, n, e); \
	}
LOOP_COPY(run_hwq, true, false, true, false, false)   /* without schedsim rows: none of their code */
LOOP_COPY(run_hwq_jobs, true, false, true, true, false)
LOOP_COPY(run_hwq_idle, true, true, true, true, false)
LOOP_COPY(run_hwq_rows, true, true, true, true, true)   /* a schedsim scenario alone: only rows' code */
LOOP_COPY(run_one, true, false, false, true, false)
LOOP_COPY(run_one_idle, true, true, false, true, false)
LOOP_COPY(run_many, false, false, false, true, false)
LOOP_COPY(run_many_idle, false, true, false, true, false)
#undef LOOP_COPY

/* ---------------------------------------------------------------- run */

/* The head's burst ended exactly at the end: the run covers its last instant's completions,
 * so the job has finished, as at any other instant (response, deadline, overrun, timer
 * activation, boot time); what would start at that instant (a release, the next job, a
 * decision) is past the run. As schedsim's end rule, which ends after the instant's events. */
static void done_at_end(struct eng *g, struct thr *h, int64_t end)
{
	const struct sim_thread_cfg *k = h->c;
	if (k->type == SIM_CPU_BOUND)
		return;   /* a yield point, no job */
	job_done(g, h, end);
	h->dl = 0;    /* met or missed: not again as unfinished */
	if (k->type == SIM_PERIODIC || k->type == SIM_TIMER || k->type == SIM_SPORADIC)
		h->out->overruns += h->next_rel < end;
	if (k->type == SIM_ONESHOT && h->oneshot_left == 0)
		h->out->sim_completion_ns = end - k->start;
}

static void finish(struct eng *g)
{
	int64_t end = g->end;
	for (int i = 0; i < g->nc; i++) {
		struct cpu *c = &g->c[i];
		if (settle(c, end))
			done_at_end(g, c->head, end);
		if (c->head)
			c->head->spent += end - c->last_upd;
	}
	for (int i = 0; i < g->nt; i++) {
		struct thr *t = &g->t[i];
		struct result_thread *o = t->out;
		const struct sim_thread_cfg *k = t->c;
		hist_summary_store(&o->wake, &t->wake);
		hist_summary_store(&o->resp, &t->resp);
		o->sim_used_ns = t->used;
		o->sim_spent_ns = t->spent;
		o->sim_switches = t->switches;
		o->samples = t->samples;
		o->deadlines_met = t->met;
		o->deadlines_missed = t->missed;
		/* released, unfinished jobs whose deadline has passed were missed */
		if (t->state == T_READY && t->dl > 0 && t->dl <= end)
			o->deadlines_missed++;
		if (t->state == T_READY && (k->type == SIM_PERIODIC || k->type == SIM_TIMER || k->type == SIM_SPORADIC)) {
			while (t->next_rel < end) {
				if (k->deadline > 0 && t->next_rel + k->deadline <= end)
					o->deadlines_missed++;
				t->next_rel = k->type == SIM_SPORADIC ? next_sporadic(t, t->next_rel) : t->next_rel + k->period;
			}
		}
		if (k->type == SIM_TIMER) {
			int64_t full = end / t->win;
			if (t->win_idx < full) {
				timer_count(g, t, full * t->win);  /* closes windows < full ... */
				t->win_count--;                    /* ... without counting an activation */
			}
		}
		if (k->type == SIM_ONESHOT && !o->sim_completion_ns)   /* not done, neither before nor at the end */
			o->sim_completion_ns = -1;
		o->sim_share_ppm = end > 0 ? (int64_t)((__int128)o->sim_spent_ns * 1000000 / end) : 0;
	}
}

int engine_run(const struct sim_cfg *cfg, const struct sim_thread_spec *specs, int n, struct result_thread *out,
               struct sim_totals *tot, sim_trace_fn trace, void *trace_ctx, struct err *e)
{
	return engine_run_ops(sim_policies[cfg->policy], cfg, specs, n, out, tot, trace, trace_ctx, e);
}

int engine_run_ops(const struct policy_ops *ops, const struct sim_cfg *cfg, const struct sim_thread_spec *specs, int n,
                   struct result_thread *out, struct sim_totals *tot, sim_trace_fn trace, void *trace_ctx, struct err *e)
{
	struct eng g = {.cfg = cfg, .end = cfg->duration, .cs = cfg->cs_cost, .nt = n, .nc = (int)cfg->cpus,
	                .trace = trace, .tctx = trace_ctx, .tot = tot};
	if (ops->schedsim) {   /* schedsim's own job-level model */
		int64_t end = 0;
		int r = ssim_run(ops->schedsim, cfg, specs, n, out, NULL, tot, &end, e);
		if (tot)
			tot->end_ns = end;
		return r;
	}
	int rc = 0, ents = n + g.nc;
	g.t = xcalloc((size_t)(n ? n : 1), sizeof(*g.t));
	g.c = xcalloc((size_t)g.nc, sizeof(*g.c));
	heap_init(&g.tq, n);
	heap_init(&g.cq, g.nc);
	struct sthread **list = xcalloc((size_t)(n ? n : 1), sizeof(*list));
	if (ents > SIM_MAX_ENTITIES || g.end >= INT64_C(1) << (63 - ENT_BITS)) {
		rc = err_set(e, EXIT_USAGE, "at most %d threads and CPUs and %lld s can be simulated", SIM_MAX_ENTITIES - 1,
		             (long long)((INT64_C(1) << (63 - ENT_BITS)) / 1000000000));
		goto out;
	}

	for (int i = 0; i < n; i++) {
		struct thr *t = &g.t[i];
		t->spec = &specs[i];
		t->c = &specs[i].cfg;
		t->out = &out[i];
		hist_summary_load(&t->wake, &out[i].wake);
		hist_summary_load(&t->resp, &out[i].resp);
		t->idx = i;
		t->cpu = (int)t->c->cpu;
		t->st.name = specs[i].name;
		t->st.id = i;
		t->st.cfg = t->c;
		t->state = T_BLOCKED;
		t->oneshot_left = -1;
		t->rng = sim_thread_rng(cfg->seed, i);
		t->win = t->c->window > 0 ? t->c->window : cfg->super_period;
		out[i].sim_cpu = t->cpu;
		out[i].sim_activations_min = -1;
		if (t->cpu < 0 || t->cpu >= g.nc) {
			rc = err_set(e, EXIT_USAGE, "thread %s: cpu %d does not exist (cpus = %d)", t->st.name, t->cpu, g.nc);
			goto out;
		}
		if (t->c->type == SIM_JOBS) {
			t->jobs = specs[i].jobs;
			t->nrows = specs[i].njobs;
			t->row = xcalloc((size_t)specs[i].njobs, sizeof(*t->row));
			for (int r = 0; r < specs[i].njobs; r++) {
				const struct sim_job *j = &specs[i].jobs[r];
				t->row[r].next = j->event_in >= 0 ? INT64_MAX : j->period > 0 ? 0 : j->at;
			}
			t->one_period = specs[i].njobs == 1 ? specs[i].jobs[0].period : 0;
			t->job = &t->jobs[0];
			t->job_state = &t->row[0];
		}
	}
	for (int ci = 0; ci < g.nc; ci++) {
		int m = 0;
		for (int i = 0; i < n; i++)
			if (g.t[i].cpu == ci)
				list[m++] = &g.t[i].st;
		if (ops->admit && ops->admit(cfg, list, m, e)) {
			if (g.nc > 1)
				err_prefix(e, "cpu %d", ci);
			rc = -1;
			goto out;
		}
	}
	for (int ci = 0; ci < g.nc; ci++) {
		struct cpu *c = &g.c[ci];
		if (policy_init(&c->pol, ops, cfg, e)) {
			rc = -1;
			for (int k = 0; k < ci; k++)
				policy_fini(&g.c[k].pol);
			goto out;
		}
		c->head = c->ran = NULL;
		c->armed = -1;
		int64_t q = policy_quantum(&c->pol);
		c->expires = q < 1 ? 1 : q;
	}
	for (int i = 0; i < n; i++) {
		struct thr *t = &g.t[i];
		g.c[t->cpu].pol.now = 0;
		if (ops == &policy_hwquota)
			t->st.ps = &t->hwq;   /* the share's storage (see hwq_create) */
		policy_create(&g.c[t->cpu].pol, &t->st);
		set_event(&g, i, t->c->type == SIM_JOBS ? rows_next(t) : t->c->start);
	}
	for (int ci = 0; ci < g.nc; ci++)
		arm_cpu(&g, &g.c[ci], false);

	/* who waits on which event, in thread and row order */
	int nev = 0, nrows = 0;
	for (int i = 0; i < n; i++)
		for (int r = 0; specs[i].cfg.type == SIM_JOBS && r < specs[i].njobs; r++) {
			const struct sim_job *j = &specs[i].jobs[r];
			nev = j->event_in >= nev ? j->event_in + 1 : nev;
			nev = j->event_out >= nev ? j->event_out + 1 : nev;
			nrows += j->event_in >= 0;
		}
	g.ev_start = xcalloc((size_t)nev + 2, sizeof(int));
	g.ev_rows = xcalloc((size_t)nrows + 1, sizeof(*g.ev_rows));
	for (int ev = 0, k = 0; ev < nev; ev++) {
		g.ev_start[ev] = k;
		for (int i = 0; i < n; i++)
			for (int r = 0; specs[i].cfg.type == SIM_JOBS && r < specs[i].njobs; r++)
				if (specs[i].jobs[r].event_in == ev)
					g.ev_rows[k++] = (struct ev_row){i, r};
		g.ev_start[ev + 1] = k;
	}

	/* schedsim's end rule: the first instant with nothing ready once the last timed row has
	 * arrived (checked when all events of an instant are done) */
	bool idle_rule = cfg->end == SIM_END_IDLE;
	for (int i = 0; i < n; i++) {
		/* a [thread]'s first release is a timed row too: none ends the run before it */
		if (specs[i].cfg.type != SIM_JOBS && specs[i].cfg.start > g.last_row)
			g.last_row = specs[i].cfg.start;
		for (int r = 0; specs[i].cfg.type == SIM_JOBS && r < specs[i].njobs; r++) {
			const struct sim_job *j = &specs[i].jobs[r];
			int64_t a = j->event_in >= 0 ? -1 : j->period > 0 ? 0 : j->at;
			g.last_row = a > g.last_row ? a : g.last_row;
		}
	}
	uint64_t events = 0;
	g.watch = (struct sim_watch){.step = 1000000, .max = 1000000000};   /* 1 ms, at most 1 s */
	g.check_at = g.watch.step < g.end ? g.watch.step : g.end;
	bool jobs = false, rows = true;
	for (int i = 0; i < n; i++) {
		jobs |= specs[i].cfg.type == SIM_JOBS;
		rows &= specs[i].cfg.type == SIM_JOBS;
	}
	if (ops == &policy_hwquota && g.nc == 1 && !trace)   /* the common case of the common policy */
		rc = idle_rule ? (rows ? run_hwq_rows : run_hwq_idle)(&g, ops, &events, e)
		     : jobs ? run_hwq_jobs(&g, ops, &events, e) : run_hwq(&g, ops, &events, e);
	else if (g.nc == 1)
		rc = idle_rule ? run_one_idle(&g, ops, &events, e) : run_one(&g, ops, &events, e);
	else
		rc = idle_rule ? run_many_idle(&g, ops, &events, e) : run_many(&g, ops, &events, e);
	finish(&g);
	if (tot) {
		tot->events += events;
		tot->simulated_ns += g.end;
		tot->end_ns = g.end;
		tot->interrupted |= g.stopped;
		for (int ci = 0; ci < g.nc; ci++)
			tot->decisions += g.c[ci].pol.decisions;
	}
	for (int i = 0; i < n; i++)
		if (g.t[i].state != T_DONE)
			policy_destroy(&g.c[g.t[i].cpu].pol, &g.t[i].st);
	for (int ci = 0; ci < g.nc; ci++)
		policy_fini(&g.c[ci].pol);
out:
	for (int i = 0; i < n; i++) {
		free(g.t[i].row);
	}
	free(list);
	free(g.ev_start);
	free(g.ev_rows);
	free(g.t);
	free(g.c);
	heap_free(&g.tq);
	heap_free(&g.cq);
	return rc;
}

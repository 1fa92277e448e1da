/* schedsim-base-hw: schedsim's BaseHw, its approximation of Genode's base-hw quota scheduler.
 * weight is the quota in percent of a 1 s super period for threads of priority > 0 (priority
 * 0: no quota). The super period restarts at the first decision at or after its end, and
 * only the threads with a pending job then get a fresh quota; a thread without a quota entry
 * gets a full one when it starts a job. The chosen job stays in the queue: the first of the
 * highest priority among jobs with quota left (priority 0 once it is used up). New jobs go to
 * the head; a job that used its quota up exactly goes to the head once, then (quota 0) to the
 * tail at every decision. With quota it may run until its quota, the next arrival or the end
 * of the super period; without, for 10 ms at most, also cut by those two. */
#include <stddef.h>
#include <stdlib.h>

#include "sim/policy.h"
#include "sim/schedsim_loop.h"

#define SUPERPERIOD 1000000
#define LEVELS 100   /* priorities 0..99 (the TSV reader's range) */

/* The pending queue is schedsim's one list, kept as one list per hw_prio (circular, behind
 * a sentinel) in list order: a job joins at the head or the tail of the whole list, so also
 * of its level's. The choice is then the first job of the highest non-empty level, no walk,
 * kept up to date as jobs join and leave (best): a choice found from the bits at each decision
 * waited on the queue's last stores, then on a bit scan and a load, on the way from one
 * decision to the next. hw_seq keeps the whole list's order for the super period's restart,
 * which changes every queued job's level. */
struct basehw {
	int64_t round_end;                 /* of the super period */
	int64_t head_seq, tail_seq;        /* the last hw_seq given at the head / the tail */
	uint64_t nonempty[2];              /* bit l: level l has jobs */
	struct ss_job *best;               /* the first job of the highest level, &none if empty */
	struct ss_link level[LEVELS];
};

static struct ss_job *job_of(struct ss_link *l)
{
	return (struct ss_job *)((char *)l - offsetof(struct ss_job, hw_link));
}

/* the choice of an empty queue: below every level, so that any job joining is above it */
static struct ss_job none = {.hw_prio = -1};

/* the same found from the bits */
SS_INLINE struct ss_job *hw_first(struct basehw *b)
{
	uint64_t hi = b->nonempty[1], lo = b->nonempty[0];
	if (!(hi | lo))
		return &none;
	int l = hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(lo);
	return job_of(b->level[l].next);
}

/* j joins its level's list (at the head: the whole list's head; else its tail) */
SS_INLINE void hw_put(struct basehw *b, struct ss_job *j, bool at_head)
{
	int l = (int)j->hw_prio;
	struct ss_link *p = at_head ? &b->level[l] : b->level[l].prev, *n = p->next;
	j->hw_link.prev = p;
	j->hw_link.next = n;
	p->next = n->prev = &j->hw_link;
	j->hw_seq = at_head ? --b->head_seq : ++b->tail_seq;
	b->nonempty[l >> 6] |= 1ull << (l & 63);
	/* j is the new choice where it heads a level at or above the choice's (at the tail: only
	 * above it, a level that was empty) */
	struct ss_job *c = b->best;
	b->best = (at_head ? j->hw_prio >= c->hw_prio : j->hw_prio > c->hw_prio) ? j : c;
}

/* j leaves its level's list */
SS_INLINE void hw_unlink(struct basehw *b, struct ss_job *j)
{
	struct ss_link *p = j->hw_link.prev, *n = j->hw_link.next;
	p->next = n;
	n->prev = p;
	int l = (int)j->hw_prio;
	b->nonempty[l >> 6] &= ~((uint64_t)(p == n) << (l & 63));   /* p == n: the sentinel alone */
	/* the choice heads its level (p is the sentinel): the next job there follows it, unless
	 * the level is now empty */
	if (b->best == j)
		b->best = p == n ? hw_first(b) : job_of(n);
}

SS_INLINE void hw_pq_add(struct ss *s, struct ss_job *j, bool at_head)
{
	hw_put(s->ps, j, at_head);
	ss_pq_joined(s, j);
}

/* list.remove: a thread has one job queued at most, so the job itself */
SS_INLINE void hw_pq_remove(struct ss *s, struct ss_job *j)
{
	hw_unlink(s->ps, j);
	ss_pq_left(s, j);
}

static int by_seq(const void *a, const void *b)
{
	int64_t x = (*(struct ss_job *const *)a)->hw_seq, y = (*(struct ss_job *const *)b)->hw_seq;
	return (x > y) - (x < y);
}

/* The queued jobs into s->pq in list order, the levels emptied (the counts stay) */
static void hw_flatten(struct ss *s)
{
	struct basehw *b = s->ps;
	s->npq = 0;
	for (int l = 0; l < LEVELS; l++) {
		struct ss_link *h = &b->level[l];
		for (struct ss_link *k = h->next; k != h; k = k->next) {
			ss_pq_room(s);
			s->pq[s->npq++] = job_of(k);
		}
		h->next = h->prev = h;
	}
	b->nonempty[0] = b->nonempty[1] = 0;
	b->best = &none;
	if (s->npq > 1)   /* once a super period; pq may be NULL while empty */
		qsort(s->pq, (size_t)s->npq, sizeof(*s->pq), by_seq);
}

static int64_t full_quota(const struct ss_job *j)
{
	return j->prio > 0 ? SUPERPERIOD / 100 * j->weight : 0;
}

/* The priority choose_job sees, and the level whose list holds the job: the job's while its
 * thread has quota left, else 0; set when the job joins the queue (the thread has no other job
 * queued), and when its quota runs out just as it moves (hw_reinsert). */
SS_INLINE void hw_see_quota(struct ss_job *j)
{
	j->hw_prio = (int64_t)(j->t->quota > 0) * j->prio;   /* no branch */
}

static void start_round(struct ss *s)
{
	struct basehw *b = s->ps;
	b->round_end = s->time + SUPERPERIOD;
	for (int i = 0; i < s->nth; i++)
		s->th[i].has_quota = false;
	hw_flatten(s);
	for (int i = 0; i < s->npq; i++) {
		struct ss_job *j = s->pq[i];
		struct ss_thread *t = j->t;
		t->quota = full_quota(j);
		t->has_quota = true;
		hw_see_quota(j);
		hw_put(b, j, false);
	}
}

SS_INLINE void hw_update(struct ss *s, struct ss_job *j, int64_t executed)
{
	ss_base_update_job(s, j, executed);
	struct ss_thread *t = j->t;
	if (t->quota > 0) {
		/* schedsim raises "Quota overuse" if executed > quota: slices never allow it */
		t->quota -= executed;
		if (t->quota == 0)
			j->one_time_boost = true;   /* and level 0: hw_reinsert, unless it finished */
	}
}

SS_INLINE void hw_start(struct ss *s, struct ss_job *j, struct ss_job *signalling)
{
	(void)signalling;
	struct ss_thread *t = j->t;
	if (!t->has_quota) {
		t->quota = full_quota(j);
		t->has_quota = true;
	}
	hw_see_quota(j);
	ss_base_start_job(s, &ss_base_hw, j);
}

SS_INLINE struct ss_job *hw_choose(struct ss *s)
{
	struct basehw *b = s->ps;
	if (s->time >= b->round_end)
		start_round(s);
#ifdef __SANITIZE_ADDRESS__   /* the asan build checks the kept choice at every decision */
	if (b->best != hw_first(b))
		abort();
#endif
	return b->best;   /* base-hw keeps the job in the queue */
}

SS_INLINE void hw_insert(struct ss *s, struct ss_job *j)
{
	hw_pq_add(s, j, true);
}

SS_INLINE void hw_finish(struct ss *s, struct ss_job *j)
{
	hw_pq_remove(s, j);
	ss_base_finish_job(s, &ss_base_hw, j);
}

SS_INLINE void hw_reinsert(struct ss *s, struct ss_job *j)
{
	/* a move: the queue's counts stay */
	if (j->one_time_boost) {
		hw_unlink(s->ps, j);
		j->one_time_boost = false;
		j->hw_prio = 0;
		hw_put(s->ps, j, true);
	} else if (j->t->quota == 0) {
		hw_unlink(s->ps, j);
		hw_put(s->ps, j, false);
	}
}

SS_INLINE int64_t hw_slice(struct ss *s, struct ss_job *j)
{
	struct basehw *b = s->ps;
	/* the smallest of the quota (else the 10 ms slice), the time until the next arrival and
	 * until the super period's end, which is finite: SS_INF - time does not overflow */
	int64_t q = j->t->quota;
	int64_t cap = q > 0 ? q : SS_TIME_SLICE;
	return ss_min(cap, ss_min(ss_next_preemption(s), b->round_end) - s->time);
}

static void hw_run(struct ss *s);

const struct ss_policy ss_base_hw = {
	.name = "base-hw",
	.state_size = sizeof(struct basehw),
	.max_prio = LEVELS - 1,
	.start_job = hw_start,
	.insert_job = hw_insert,
	.update_job = hw_update,
	.finish_job = hw_finish,
	.choose_job = hw_choose,
	.reinsert_job = hw_reinsert,
	.time_slice = hw_slice,
	.run = hw_run,
};

static void hw_run(struct ss *s)
{
	struct basehw *b = s->ps;
	b->round_end = SUPERPERIOD;
	b->best = &none;
	for (int l = 0; l < LEVELS; l++)
		b->level[l].next = b->level[l].prev = &b->level[l];
	ss_execute(s, &ss_base_hw);
	hw_flatten(s);   /* ssim_run frees the jobs left in s->pq */
}

static const char *const no_sim_keys[] = {NULL};
static const char *const row_keys[] = {"weight", "prio", NULL};

const struct policy_ops policy_schedsim_base_hw = {
	.name = "schedsim-base-hw",
	.summary = "schedsim's BaseHw: weight = quota % of a 1 s super period for priority > 0; highest priority with quota left, else 10 ms round robin",
	.sim_keys = no_sim_keys,
	.thread_keys = row_keys,
	.schedsim = &ss_base_hw,
};

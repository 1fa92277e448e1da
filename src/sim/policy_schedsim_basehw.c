/* schedsim-base-hw: schedsim's BaseHw, its approximation of Genode's base-hw quota scheduler.
 * weight is the quota in percent of a 1 s super period for threads of priority > 0 (priority
 * 0: no quota). The super period restarts at the first decision at or after its end, and
 * only the threads with a pending job then get a fresh quota; a thread without a quota entry
 * gets a full one when it starts a job. The chosen job stays in the queue: the first of the
 * highest priority among jobs with quota left (priority 0 once it is used up). New jobs go to
 * the head; a job that used its quota up exactly goes to the head once, then (quota 0) to the
 * tail at every decision. With quota it may run until its quota, the next arrival or the end
 * of the super period; without, for 10 ms at most, also cut by those two. */
#include "sim/policy.h"
#include "sim/schedsim_loop.h"

#define SUPERPERIOD 1000000

struct basehw {
	int64_t last_superperiod;
};

static int64_t full_quota(const struct ss_job *j)
{
	return j->prio > 0 ? SUPERPERIOD / 100 * j->weight : 0;
}

/* The priority choose_job sees: the job's while its thread has quota left, else 0; kept in
 * the job whenever the quota changes (the thread has no other job queued), so that the walk of
 * every decision reads it without going through the thread. */
SS_INLINE void hw_see_quota(struct ss *s, struct ss_job *j)
{
	j->hw_prio = (int64_t)(s->th[j->thread].quota > 0) * j->prio;   /* no branch */
}

static void start_round(struct ss *s)
{
	struct basehw *b = s->ps;
	b->last_superperiod = s->time;
	for (int i = 0; i < s->nth; i++)
		s->th[i].has_quota = false;
	for (int i = 0; i < s->npq; i++) {
		struct ss_thread *t = &s->th[s->pq[i]->thread];
		t->quota = full_quota(s->pq[i]);
		t->has_quota = true;
		hw_see_quota(s, s->pq[i]);
	}
}

SS_INLINE void hw_update(struct ss *s, struct ss_job *j, int64_t executed)
{
	ss_base_update_job(s, j, executed);
	struct ss_thread *t = &s->th[j->thread];
	if (t->quota > 0) {
		/* schedsim raises "Quota overuse" if executed > quota: slices never allow it */
		t->quota -= executed;
		if (t->quota == 0)
			j->one_time_boost = true;
		hw_see_quota(s, j);
	}
}

SS_INLINE void hw_start(struct ss *s, struct ss_job *j, struct ss_job *signalling)
{
	(void)signalling;
	struct ss_thread *t = &s->th[j->thread];
	if (!t->has_quota) {
		t->quota = full_quota(j);
		t->has_quota = true;
	}
	hw_see_quota(s, j);
	ss_base_start_job(s, &ss_base_hw, j);
}

SS_INLINE struct ss_job *hw_choose(struct ss *s)
{
	struct basehw *b = s->ps;
	if (s->time >= b->last_superperiod + SUPERPERIOD)
		start_round(s);
	int best = 0;
	int64_t bp = -1;
	for (int i = 0; i < s->npq; i++) {
		int64_t p = s->pq[i]->hw_prio;
		bool gt = p > bp;   /* selects, not a branch */
		bp = gt ? p : bp;
		best = gt ? i : best;
	}
	return s->pq[best];   /* base-hw keeps the job in the queue */
}

SS_INLINE void hw_insert(struct ss *s, struct ss_job *j)
{
	ss_pq_insert(s, 0, j);
}

SS_INLINE void hw_finish(struct ss *s, struct ss_job *j)
{
	ss_pq_remove(s, j);
	ss_base_finish_job(s, &ss_base_hw, j);
}

SS_INLINE void hw_reinsert(struct ss *s, struct ss_job *j)
{
	if (j->one_time_boost) {
		ss_pq_remove(s, j);
		j->one_time_boost = false;
		ss_pq_insert(s, 0, j);
	} else if (s->th[j->thread].quota == 0) {
		ss_pq_remove(s, j);
		ss_pq_append(s, j);
	}
}

SS_INLINE int64_t hw_slice(struct ss *s, struct ss_job *j)
{
	struct basehw *b = s->ps;
	int64_t left = b->last_superperiod + SUPERPERIOD - s->time;
	int64_t until = ss_time_until(s, ss_next_preemption(s));
	int64_t q = s->th[j->thread].quota;
	if (q > 0)
		return ss_min(ss_min(until, q), left);
	return ss_min(ss_min(SS_TIME_SLICE, until), left);
}

static void hw_run(struct ss *s);

const struct ss_policy ss_base_hw = {
	.name = "base-hw",
	.state_size = sizeof(struct basehw),
	.max_prio = -1,
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
	ss_execute(s, &ss_base_hw);
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

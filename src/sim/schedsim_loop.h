/* schedsim's event loop (Scheduler.execute/schedule) and the base methods it calls, for the
 * policy files (and schedsim.c). Each policy runs its own copy of the loop (ss_execute with
 * its table, a constant there): its hooks become direct calls the compiler inlines, and a NULL
 * hook's base behaviour costs no test. Everything a policy's copy calls on every decision or
 * job is here or in schedsim.h, inline: a call into another file would not be inlined. */
#ifndef IRT_SIM_SCHEDSIM_LOOP_H
#define IRT_SIM_SCHEDSIM_LOOP_H

#include <stdlib.h>

#include "sim/schedsim.h"
#include "util.h"

/* for the loop's pieces and the policies' hooks: gcc kept the larger hooks as calls */
#define SS_INLINE IRT_HOT_INLINE
#define SS_US 1000   /* ns per us: the model counts whole microseconds */

/* ---------------------------------------------------------------- jobs */

/* A job's memory; the caller sets the fields */
SS_INLINE struct ss_job *ss_job_alloc(struct ss *s)
{
	struct ss_job *j = s->free;
	if (j)
		s->free = j->free_next;
	else
		j = xmalloc(sizeof(*j));
	return j;
}

SS_INLINE void ss_job_free(struct ss *s, struct ss_job *j)
{
	j->free_next = s->free;
	s->free = j;
}

/* A job's per-run attributes, fresh (a new job, a restarted one); finish is set when it
 * completes, the cached values when it is queued (ss_vt_cache) */
SS_INLINE void ss_job_fresh(struct ss_job *j, int64_t arrival, int64_t executed)
{
	j->arrival = arrival;
	j->executed = executed;
	j->started = j->pending = j->has_warp = j->warped = j->one_time_boost = false;
	j->warp = j->warp_limit = j->warp_time = 0;
}

/* field by field: for a compound literal gcc cleared all of the job first (rep stos) */
SS_INLINE struct ss_job *ss_job_from_row(struct ss *s, const struct ss_row *r, int64_t arrival)
{
	struct ss_job *j = ss_job_alloc(s);
	j->thread = r->thread;
	j->t = &s->th[r->thread];
	j->exec = r->job->runtime / SS_US;
	j->period = r->job->period / SS_US;
	j->restart = r->job->restart / SS_US;
	j->weight = r->weight;
	j->weight_inv = r->weight_inv;
	j->prio = r->prio;
	j->event_out = r->job->event_out;
	ss_job_fresh(j, arrival, 0);
	return j;
}

/* out of the loop (schedsim.c): the reader, the idle step, the growth of the queues */
struct ss_job *ss_take_next_job(struct ss *);
void ss_idle(struct ss *, int64_t until);
void ss_rq_grow(struct ss *);
void ss_resp_grow(struct ss_thread *);
bool ss_stop_due(struct ss *);

/* ---------------------------------------------------------------- base methods */

SS_INLINE void ss_start_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j, struct ss_job *signalling);

SS_INLINE bool ss_thread_busy(const struct ss *s, const struct ss_thread *t)
{
	return t->queued > 0 || (s->current && s->current->t == t);
}

/* the start up to its insertion into the queue; false: dropped (and freed) */
SS_INLINE bool ss_admit_job(struct ss *s, struct ss_job *j)
{
	struct ss_thread *t = j->t;
	if (ss_thread_busy(s, t)) {   /* schedsim: "Unable to schedule thread ..." */
		t->dropped++;
		ss_job_free(s, j);
		return false;
	}
	t->arrival = j->arrival;
	ss_trace(t, j->arrival);
	return true;
}

SS_INLINE void ss_insert_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	if (pol->insert_job)
		pol->insert_job(s, j);
	else
		ss_pq_append(s, j);
}

/* false: dropped (and freed) */
SS_INLINE bool ss_base_start_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	if (!ss_admit_job(s, j))
		return false;
	ss_insert_job(s, pol, j);
	return true;
}

/* Job.restart, in place: the next job of a periodic or restarting row takes over the completed
 * one (the row's fields carried over, the per-run attributes fresh). false: it has none. */
SS_INLINE bool ss_restart(struct ss_job *j, int64_t completion)
{
	if (j->period > 0) {
		int64_t extra, a = ss_next_period(j->arrival, j->period, completion, j->exec, &extra);
		ss_job_fresh(j, a, -extra);   /* missed activations: their runtime is owed */
		return true;
	}
	if (j->restart > 0) {
		ss_job_fresh(j, completion + j->restart, 0);
		return true;
	}
	return false;
}

/* j is done with (restarted or freed) here: the loop drops it as current right after */
SS_INLINE void ss_base_finish_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	struct ss_thread *t = j->t;
	ss_trace(t, j->finish);
	if (__builtin_expect(t->nresp == t->cap, 0))
		ss_resp_grow(t);
	t->resp[t->nresp++] = j->finish - t->arrival;
	if (t->start - t->arrival > t->lat_max)
		t->lat_max = t->start - t->arrival;
	/* rows waiting on its event start now, signalled by j */
	if (j->event_out >= 0)
		for (int k = 0; k < s->nwaiting[j->event_out]; k++) {
			const struct ss_row *r = &s->rows[s->waiting[j->event_out][k]];
			ss_start_job(s, pol, ss_job_from_row(s, r, j->finish), j);
		}
	if (!ss_restart(j, j->finish)) {
		ss_job_free(s, j);
		return;
	}
	/* append, then a stable sort by arrival: after every job arriving no later (counted, not
	 * walked to: see ss_q_open; unsigned, arrivals being >= 0, a compare and an add with carry) */
	if (__builtin_expect(s->rq_off + s->nrq + 1 + SS_PQ_BLOCK > s->caprq, 0))
		ss_rq_grow(s);
	int i = 0;
	for (int k = 0; k < s->nrq; k++)
		i += (uint64_t)s->rq[k]->arrival <= (uint64_t)j->arrival;
	ss_q_open(s->rq, s->nrq, i);
	s->rq[i] = j;
	s->nrq++;
	s->next_arrival = j->arrival < s->next_arrival ? j->arrival : s->next_arrival;
}

/* ---------------------------------------------------------------- stride's virtual times */

/* the scheduler's virtual time: _min_vt over the queue and the current job, 0 without either */
SS_INLINE int64_t ss_svt(struct ss *s)
{
	if (s->npq == 0 && !s->current)
		return 0;
	if (s->pq_min_stale) {
		int64_t m = SS_INF;
		for (int i = 0; i < s->npq; i++) {
			int64_t v = s->pq[i]->avt_c;   /* pending: as queued (ss_vt_cache) */
			m = v < m ? v : m;
		}
		s->pq_min_avt = m;
		s->pq_min_stale = false;
	}
	int64_t best = s->pq_min_avt;
	struct ss_job *c = s->current;
	if (c && !c->pending) {
		int64_t v = ss_vt_of(s, c->thread);
		best = v < best ? v : best;
	}
	return best;
}

/* Stride.start_job up to its insertion (bvt sets its warp first, then both cache the job's
 * values and insert it: the sorted queue needs them); false: dropped (and freed) */
SS_INLINE bool ss_stride_start_job(struct ss *s, struct ss_job *j)
{
	int64_t vt = ss_thread_vt(s, j->thread, 0);
	int64_t min_vt = ss_svt(s);
	s->vt[j->thread] = min_vt > vt ? min_vt : vt;   /* a select: it is data */
	return ss_admit_job(s, j);
}

/* schedsim's list order, for the sorted queues: Stride.insert_job puts a new job before any
 * job that has run and before jobs not started of lower or equal weight, which q_rank compares
 * (ss_pq_new_before); the preempted job is appended (ss_pq_sorted_append), its values cached
 * here. */
SS_INLINE void ss_rank_new(struct ss_job *j)
{
	j->q_rank = -j->weight;
}

SS_INLINE void ss_rank_preempted(struct ss *s, struct ss_job *j)
{
	ss_vt_cache(s, j);
	j->q_rank = INT64_MAX;
}

SS_INLINE void ss_sorted_insert_job(struct ss *s, struct ss_job *j)
{
	ss_rank_new(j);
	ss_pq_sorted_insert(s, j);
}

SS_INLINE void ss_sorted_reinsert_job(struct ss *s, struct ss_job *j)
{
	ss_rank_preempted(s, j);
	ss_pq_sorted_append(s, j);
}

/* ---------------------------------------------------------------- bvt's pieces (bvt, -sculpt) */

SS_INLINE void ss_bvt_update_job(struct ss *s, struct ss_job *j, int64_t executed)
{
	if (j->warped)
		j->warp_time += executed;
	ss_stride_update_job(s, j, executed);
}

/* A job warps from its start; a job started by another's completion event warps at least as
 * much as that one and inherits the rest of its warp limit; none while its thread's unwarp
 * time lasts. */
SS_INLINE void ss_bvt_start_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j, struct ss_job *sig)
{
	struct ss_bvt *b = s->ps;
	/* schedsim warps a dropped job too, to no effect: it is gone (freed) here */
	int64_t prio = j->prio;
	bool kept = ss_stride_start_job(s, j);
	int64_t warp = b->warp[prio], limit = b->warp_limit[prio];
	int lvl = (int)prio;   /* warp = b->warp[lvl] */
	if (sig && sig->has_warp) {
		int64_t sp = sig->prio;
		if (b->warp[sp] > warp) {
			warp = b->warp[sp];
			lvl = (int)sp;
		}
		if (limit == 0)
			limit = b->warp_limit[sp] - sig->warp_time;
		else if (b->warp_limit[sp] > 0)
			limit = ss_min(b->warp_limit[sp] - sig->warp_time, limit);
	}
	if (warp > 0 && kept) {
		j->warp_lvl = lvl;
		j->has_warp = j->warped = true;
		j->warp_limit = limit;
		j->warp = warp;
		j->warp_time = 0;
		struct ss_thread *t = j->t;
		if (t->has_unwarp && t->unwarp_end > s->time) {
			j->warped = false;
			j->warp = 0;
			j->warp_limit = 0;
		}
	}
	if (kept) {
		ss_vt_cache(s, j);
		ss_insert_job(s, pol, j);
	}
}

SS_INLINE void ss_bvt_finish_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	if (j->warped)
		ss_bvt_unwarp(s, j);
	ss_base_finish_job(s, pol, j);
}

/* BVT.time_slice(j, in_jobs): `in` selects in_jobs among the pending jobs; their smallest
 * effective vt is next_evt when choose_job found it on its walk (have_next) */
SS_INLINE int64_t ss_bvt_slice_among(struct ss *s, struct ss_job *j, ss_in_fn in)
{
	struct ss_bvt *b = s->ps;
	bool known = b->have_next;
	b->have_next = false;
	if (s->npq == 0)
		return ss_time_until(s, ss_next_preemption(s));
	int64_t next_vt = known ? b->next_evt : ss_min_vt(s, ss_bvt_evt, in, j, NULL);
	int64_t min_vt = j->evt_c;   /* j was just taken from the queue: its values as queued */
	int64_t ahead = next_vt == SS_INF ? SS_INF : (next_vt - min_vt) * j->weight + b->c;
	return ss_min(ss_min(ahead, ss_time_until(s, ss_next_preemption(s))), ss_bvt_warp_time_left(j));
}

/* ---------------------------------------------------------------- the loop */

/* the hooks, or the base behaviour where a policy has none */
SS_INLINE void ss_start_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j, struct ss_job *signalling)
{
	if (pol->start_job)
		pol->start_job(s, j, signalling);
	else
		ss_base_start_job(s, pol, j);
}

SS_INLINE bool ss_try_finish_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	int64_t executed = ss_min(s->time - s->last_time, ss_runtime_left(j));
	if (pol->update_job)
		pol->update_job(s, j, executed);
	else
		ss_base_update_job(s, j, executed);
	if (ss_runtime_left(j) == 0) {
		j->finish = s->last_time + executed;
		if (pol->finish_job)
			pol->finish_job(s, j);
		else
			ss_base_finish_job(s, pol, j);
		s->last_time = s->time;
		return true;
	}
	s->last_time = s->time;
	return false;
}

SS_INLINE void ss_take_ready_jobs(struct ss *s, const struct ss_policy *pol)
{
	if (s->next_arrival > s->time)   /* most decisions: one compare */
		return;
	while (s->nrq && s->rq[0]->arrival <= s->time) {
		struct ss_job *j = s->rq[0];
		s->nrq--;
		s->rq++;
		s->rq_off++;
		ss_start_job(s, pol, j, NULL);
	}
	while (s->next_job && s->next_job->arrival <= s->time)
		ss_start_job(s, pol, ss_take_next_job(s), NULL);
	ss_arrivals_changed(s);
}

/* Scheduler.schedule: false when nothing is left to do. */
SS_INLINE bool ss_schedule(struct ss *s, const struct ss_policy *pol)
{
	if (s->current && ss_try_finish_job(s, pol, s->current))
		s->current = NULL;   /* restarted or freed */
	ss_take_ready_jobs(s, pol);
	struct ss_job *cur = s->current;
	if (cur) {
		if (pol->reinsert_job)
			pol->reinsert_job(s, cur);
		else
			ss_pq_append(s, cur);
	}
	if (s->npq) {
		struct ss_job *j = pol->choose_job(s);
		if (j != cur)
			j->t->switches++;
		s->current = j;
		s->decisions++;
		int64_t slice = pol->time_slice ? pol->time_slice(s, j) : SS_TIME_SLICE;
		s->time += ss_min(slice, ss_runtime_left(j));
		return true;
	}
	if (s->next_job && s->next_job->arrival > s->time) {   /* Scheduler.idle() */
		ss_idle(s, ss_next_preemption(s));
		return true;
	}
	if (s->until_duration && s->nrq) {   /* irt's fixed duration: re-released jobs go on */
		ss_idle(s, ss_next_preemption(s));
		return true;
	}
	return false;
}

/* Scheduler.execute, for the policy pol (each policy's `run`: ss_execute(s, &its_table)) */
SS_INLINE void ss_execute(struct ss *s, const struct ss_policy *pol)
{
	ss_take_next_job(s);
	if (s->next_job)
		s->time = s->next_job->arrival;
	while (ss_schedule(s, pol))
		if (s->time > s->check_at && ss_stop_due(s))   /* past max_time, or a stop request */
			break;
}

#endif

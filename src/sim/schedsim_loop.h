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

#define SS_INLINE static inline __attribute__((always_inline))
#define SS_US 1000   /* ns per us: the model counts whole microseconds */

/* ---------------------------------------------------------------- jobs */

/* A job's memory; the caller sets every field (one compound literal: stores, no memset call) */
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

SS_INLINE struct ss_job *ss_job_from_row(struct ss *s, const struct ss_row *r, int64_t arrival)
{
	struct ss_job *j = ss_job_alloc(s);
	*j = (struct ss_job){.thread = r->thread, .arrival = arrival, .exec = r->job->runtime / SS_US,
	                     .period = r->job->period / SS_US, .restart = r->job->restart / SS_US,
	                     .weight = r->weight, .prio = r->prio, .event_out = r->job->event_out};
	return j;
}

/* out of the loop (schedsim.c): the reader, the idle step, the growth of the queues */
struct ss_job *ss_take_next_job(struct ss *);
void ss_idle(struct ss *, int64_t until);
void ss_rq_grow(struct ss *);
void ss_resp_grow(struct ss_thread *);

/* ---------------------------------------------------------------- base methods */

SS_INLINE void ss_start_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j, struct ss_job *signalling);

SS_INLINE bool ss_thread_busy(const struct ss *s, int thread)
{
	return s->th[thread].queued > 0 || (s->current && s->current->thread == thread);
}

/* false: dropped (and freed) */
SS_INLINE bool ss_base_start_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	struct ss_thread *t = &s->th[j->thread];
	if (ss_thread_busy(s, j->thread)) {   /* schedsim: "Unable to schedule thread ..." */
		t->dropped++;
		ss_job_free(s, j);
		return false;
	}
	t->arrival = j->arrival;
	ss_trace(t, j->arrival);
	if (pol->insert_job)
		pol->insert_job(s, j);
	else
		ss_pq_append(s, j);
	return true;
}

/* Job.restart: the next job of a periodic or restarting row, or NULL */
SS_INLINE struct ss_job *ss_restart_of(struct ss *s, const struct ss_job *j, int64_t completion)
{
	int64_t arrival, executed = 0;
	if (j->period > 0) {
		int64_t a = j->arrival + j->period, extra = 0;
		while (a < completion) {
			a += j->period;
			extra += j->exec;
		}
		arrival = a;
		executed = -extra;   /* missed activations: their runtime is owed */
	} else if (j->restart > 0) {
		arrival = completion + j->restart;
	} else {
		return NULL;
	}
	/* the row's fields carried over; the per-run attributes (started, warp, boost) fresh */
	struct ss_job *n = ss_job_alloc(s);
	*n = (struct ss_job){.thread = j->thread, .arrival = arrival, .exec = j->exec, .executed = executed,
	                     .finish = j->finish, .period = j->period, .restart = j->restart, .weight = j->weight,
	                     .prio = j->prio, .event_out = j->event_out};
	return n;
}

SS_INLINE void ss_base_finish_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	struct ss_thread *t = &s->th[j->thread];
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
	struct ss_job *n = ss_restart_of(s, j, j->finish);
	if (n) {   /* append, then a stable sort by arrival: after every job arriving no later */
		if (__builtin_expect(s->rq_off + s->nrq == s->caprq, 0))
			ss_rq_grow(s);
		int i = s->nrq;
		for (; i > 0 && s->rq[i - 1]->arrival > n->arrival; i--)   /* a few: no memmove */
			s->rq[i] = s->rq[i - 1];
		s->rq[i] = n;
		s->nrq++;
	}
}

/* ---------------------------------------------------------------- stride's virtual times */

/* the scheduler's virtual time: _min_vt over the queue and the current job, 0 without either */
SS_INLINE int64_t ss_svt(struct ss *s)
{
	if (s->npq == 0 && !s->current)
		return 0;
	int64_t best = SS_INF;
	for (int i = 0; i < s->npq; i++) {
		int64_t v = s->pq[i]->avt_c;   /* pending: as queued (ss_vt_cache) */
		best = v < best ? v : best;
	}
	struct ss_job *c = s->current;
	if (c && !c->pending) {
		int64_t v = ss_thread_vt(s, c->thread, 0);
		best = v < best ? v : best;
	}
	return best;
}

/* Stride.start_job without its cache of the job's values (bvt sets its warp first) */
SS_INLINE bool ss_stride_start_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	int64_t vt = ss_thread_vt(s, j->thread, 0);
	int64_t min_vt = ss_svt(s);
	if (min_vt > vt)
		ss_thread_vt(s, j->thread, min_vt - vt);
	return ss_base_start_job(s, pol, j);
}

/* new jobs enter before any job that has run and before not-started jobs of lower or equal
 * weight */
SS_INLINE void ss_stride_insert_job(struct ss *s, struct ss_job *j)
{
	for (int i = 0; i < s->npq; i++)
		if (s->pq[i]->started || j->weight >= s->pq[i]->weight) {
			ss_pq_insert(s, i, j);
			return;
		}
	ss_pq_append(s, j);
}

SS_INLINE void ss_stride_reinsert_job(struct ss *s, struct ss_job *j)
{
	ss_vt_cache(s, j);
	ss_pq_append(s, j);
}

/* ---------------------------------------------------------------- bvt's pieces (bvt, -sculpt) */

SS_INLINE void ss_bvt_update_job(struct ss *s, struct ss_job *j, int64_t executed)
{
	if (j->has_warp && j->warped)
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
	int thread = j->thread;
	bool kept = ss_stride_start_job(s, pol, j);
	int64_t warp = b->warp[prio], limit = b->warp_limit[prio];
	if (sig && sig->has_warp) {
		int64_t sp = sig->prio;
		warp = b->warp[sp] > warp ? b->warp[sp] : warp;
		if (limit == 0)
			limit = b->warp_limit[sp] - sig->warp_time;
		else if (b->warp_limit[sp] > 0)
			limit = ss_min(b->warp_limit[sp] - sig->warp_time, limit);
	}
	if (warp > 0 && kept) {
		j->has_warp = j->warped = true;
		j->warp_limit = limit;
		j->warp = warp;
		j->warp_time = 0;
		struct ss_thread *t = &s->th[thread];
		if (t->has_unwarp && t->unwarp_end > s->time) {
			j->warped = false;
			j->warp = 0;
			j->warp_limit = 0;
		}
	}
	if (kept)
		ss_vt_cache(s, j);
}

SS_INLINE void ss_bvt_finish_job(struct ss *s, const struct ss_policy *pol, struct ss_job *j)
{
	if (j->has_warp && j->warped)
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
	while (s->nrq && s->rq[0]->arrival <= s->time) {
		struct ss_job *j = s->rq[0];
		s->nrq--;
		s->rq++;
		s->rq_off++;
		ss_start_job(s, pol, j, NULL);
	}
	while (s->next_job && s->next_job->arrival <= s->time)
		ss_start_job(s, pol, ss_take_next_job(s), NULL);
}

/* Scheduler.schedule: false when nothing is left to do. */
SS_INLINE bool ss_schedule(struct ss *s, const struct ss_policy *pol)
{
	struct ss_job *done = NULL;
	if (s->current && ss_try_finish_job(s, pol, s->current)) {
		done = s->current;
		s->current = NULL;
	}
	ss_take_ready_jobs(s, pol);
	if (done && !done->pending)
		ss_job_free(s, done);
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
			s->th[j->thread].switches++;
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
		if (s->time > s->max_time)
			break;
}

#endif

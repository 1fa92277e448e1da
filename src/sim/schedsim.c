/* schedsim's job-level model: the loop of Scheduler.execute/schedule, the reader, the base
 * methods and the metrics, written from jschlatow/schedsim's behaviour (see schedsim.h). */
#include "sim/schedsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "util.h"

#define US 1000

static void *grow(void *p, int64_t *cap, int64_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = array_next_cap((size_t)*cap, (size_t)need);
	p = xreallocarray(p, c, size);
	*cap = (int64_t)c;
	return p;
}

static void *grow_int(void *p, int *cap, int need, size_t size)
{
	int64_t c = *cap;
	p = grow(p, &c, need, size);
	*cap = (int)c;
	return p;
}

/* ---------------------------------------------------------------- jobs */

/* A job's memory; the caller sets every field (one compound literal: stores, no memset call) */
static struct ss_job *job_alloc(struct ss *s)
{
	struct ss_job *j = s->free;
	if (j)
		s->free = j->free_next;
	else
		j = xmalloc(sizeof(*j));
	return j;
}

static void job_free(struct ss *s, struct ss_job *j)
{
	j->free_next = s->free;
	s->free = j;
}

static struct ss_job *job_from_row(struct ss *s, const struct ss_row *r, int64_t arrival)
{
	struct ss_job *j = job_alloc(s);
	*j = (struct ss_job){.thread = r->thread, .arrival = arrival, .exec = r->job->runtime / US,
	                     .period = r->job->period / US, .restart = r->job->restart / US,
	                     .weight = r->weight, .prio = r->prio, .event_out = r->job->event_out};
	return j;
}

/* ---------------------------------------------------------------- the pending queue */

void ss_pq_grow(struct ss *s)
{
	/* the jobs move to the front, with room for as many again after them (grown if need be):
	 * a move every so many insertions, not at every one */
	if (s->pq_off <= s->npq)
		s->pq_base = grow_int(s->pq_base, &s->cappq, 2 * s->npq + 1, sizeof(*s->pq_base));
	memmove(s->pq_base, s->pq_base + s->pq_off, sizeof(*s->pq) * (size_t)s->npq);
	s->pq_off = 0;
	s->pq = s->pq_base;
}

void ss_pq_remove(struct ss *s, struct ss_job *j)
{
	for (int i = 0; i < s->npq; i++)
		if (s->pq[i]->thread == j->thread) {   /* list.remove compares by thread */
			ss_pq_pop(s, i);
			return;
		}
}

/* ---------------------------------------------------------------- time */

/* ---------------------------------------------------------------- base methods */

static bool thread_busy(const struct ss *s, int thread)
{
	return s->th[thread].queued > 0 || (s->current && s->current->thread == thread);
}

bool ss_base_start_job(struct ss *s, struct ss_job *j)
{
	struct ss_thread *t = &s->th[j->thread];
	if (thread_busy(s, j->thread)) {   /* schedsim: "Unable to schedule thread ..." */
		t->dropped++;
		job_free(s, j);
		return false;
	}
	t->arrival = j->arrival;
	ss_trace(t, j->arrival);
	if (s->pol->insert_job)
		s->pol->insert_job(s, j);
	else
		ss_pq_append(s, j);
	return true;
}

static void start_job(struct ss *s, struct ss_job *j, struct ss_job *signalling)
{
	if (s->pol->start_job)
		s->pol->start_job(s, j, signalling);
	else
		ss_base_start_job(s, j);
}

static void update_job(struct ss *s, struct ss_job *j, int64_t executed)
{
	if (s->pol->update_job)
		s->pol->update_job(s, j, executed);
	else
		ss_base_update_job(s, j, executed);
}

/* Job.restart: the next job of a periodic or restarting row, or NULL */
static struct ss_job *restart_of(struct ss *s, const struct ss_job *j, int64_t completion)
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
	struct ss_job *n = job_alloc(s);
	*n = (struct ss_job){.thread = j->thread, .arrival = arrival, .exec = j->exec, .executed = executed,
	                     .finish = j->finish, .period = j->period, .restart = j->restart, .weight = j->weight,
	                     .prio = j->prio, .event_out = j->event_out};
	return n;
}

void ss_base_finish_job(struct ss *s, struct ss_job *j)
{
	struct ss_thread *t = &s->th[j->thread];
	ss_trace(t, j->finish);
	if (t->nresp == t->cap)
		t->resp = grow(t->resp, &t->cap, t->nresp + 1, sizeof(*t->resp));
	t->resp[t->nresp++] = j->finish - t->arrival;
	if (t->start - t->arrival > t->lat_max)
		t->lat_max = t->start - t->arrival;
	/* rows waiting on its event start now, signalled by j */
	if (j->event_out >= 0)
		for (int k = 0; k < s->nwaiting[j->event_out]; k++) {
			const struct ss_row *r = &s->rows[s->waiting[j->event_out][k]];
			start_job(s, job_from_row(s, r, j->finish), j);
		}
	struct ss_job *n = restart_of(s, j, j->finish);
	if (n) {   /* append, then a stable sort by arrival: after every job arriving no later */
		if (s->rq_off + s->nrq == s->caprq) {   /* no room after the last: move the jobs to the
			                                          * front (room for as many again) or grow */
			if (s->rq_off <= s->nrq)
				s->rq_base = grow_int(s->rq_base, &s->caprq, 2 * s->nrq + 1, sizeof(*s->rq_base));
			memmove(s->rq_base, s->rq_base + s->rq_off, sizeof(*s->rq) * (size_t)s->nrq);
			s->rq_off = 0;
			s->rq = s->rq_base;
		}
		int i = s->nrq;
		for (; i > 0 && s->rq[i - 1]->arrival > n->arrival; i--)   /* a few: no memmove */
			s->rq[i] = s->rq[i - 1];
		s->rq[i] = n;
		s->nrq++;
	}
}

/* ---------------------------------------------------------------- the reader */

/* Takes the read-ahead timed row's job and reads on: rows waiting on an event are
 * registered as they are read, up to the next timed row. */
static struct ss_job *take_next_job(struct ss *s)
{
	struct ss_job *j = s->next_job;
	s->next_job = NULL;
	while (s->rpos < s->nrows) {
		const struct ss_row *r = &s->rows[s->rpos++];
		if (r->job->event_in >= 0) {
			int ev = r->job->event_in;
			s->waiting[ev] = xrealloc(s->waiting[ev], sizeof(int) * (size_t)(s->nwaiting[ev] + 1));
			s->waiting[ev][s->nwaiting[ev]++] = (int)(r - s->rows);
			continue;
		}
		s->next_job = job_from_row(s, r, r->job->period > 0 ? 0 : r->job->at / US);
		break;
	}
	return j;
}

static void take_ready_jobs(struct ss *s)
{
	while (s->nrq && s->rq[0]->arrival <= s->time) {
		struct ss_job *j = s->rq[0];
		s->nrq--;
		s->rq++;
		s->rq_off++;
		start_job(s, j, NULL);
	}
	while (s->next_job && s->next_job->arrival <= s->time)
		start_job(s, take_next_job(s), NULL);
}

/* ---------------------------------------------------------------- one decision */

static bool try_finish_job(struct ss *s, struct ss_job *j)
{
	int64_t executed = ss_min(s->time - s->last_time, ss_runtime_left(j));
	update_job(s, j, executed);
	if (ss_runtime_left(j) == 0) {
		j->finish = s->last_time + executed;
		if (s->pol->finish_job)
			s->pol->finish_job(s, j);
		else
			ss_base_finish_job(s, j);
		s->last_time = s->time;
		return true;
	}
	s->last_time = s->time;
	return false;
}

static void do_idle(struct ss *s, int64_t until)
{
	if (s->nidle == s->capidle)
		s->idle = grow(s->idle, &s->capidle, s->nidle + 1, sizeof(*s->idle));
	s->idle[s->nidle++] = (struct ss_span){s->time, until};
	s->current = NULL;
	s->time = until;
	s->last_time = until;
}

/* Scheduler.schedule: false when nothing is left to do. */
static bool schedule(struct ss *s)
{
	struct ss_job *done = NULL;
	if (s->current && try_finish_job(s, s->current)) {
		done = s->current;
		s->current = NULL;
	}
	take_ready_jobs(s);
	if (done && !done->pending)
		job_free(s, done);
	struct ss_job *cur = s->current;
	if (cur) {
		if (s->pol->reinsert_job)
			s->pol->reinsert_job(s, cur);
		else
			ss_pq_append(s, cur);
	}
	if (s->npq) {
		struct ss_job *j = s->pol->choose_job(s);
		if (j != cur)
			s->th[j->thread].switches++;
		s->current = j;
		s->decisions++;
		int64_t slice = s->pol->time_slice ? s->pol->time_slice(s, j) : SS_TIME_SLICE;
		s->time += ss_min(slice, ss_runtime_left(j));
		return true;
	}
	if (s->next_job && s->next_job->arrival > s->time) {   /* Scheduler.idle() */
		do_idle(s, ss_next_preemption(s));
		return true;
	}
	if (s->until_duration && s->nrq) {   /* irt's fixed duration: re-released jobs go on */
		do_idle(s, ss_next_preemption(s));
		return true;
	}
	return false;
}

/* ---------------------------------------------------------------- metrics */

/* The k-th smallest of v[0..n) (0-based), moving smaller ones before it and larger ones
 * after it (quickselect, median of three): the median without sorting every response. */
static int64_t select_kth(int64_t *v, int64_t n, int64_t k)
{
	int64_t lo = 0, hi = n - 1;
	while (hi > lo) {
		int64_t mid = lo + (hi - lo) / 2;
		int64_t a = v[lo], b = v[mid], c = v[hi];
		int64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		int64_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t x = v[i];
				v[i++] = v[j];
				v[j--] = x;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* np.median of the responses (truncated as schedsim's "%d" prints it) */
static int64_t median(int64_t *v, int64_t n)
{
	int64_t upper = select_kth(v, n, n / 2);
	if (n % 2)
		return upper;
	int64_t lower = v[0];   /* the largest of the n/2 smaller ones */
	for (int64_t i = 1; i < n / 2; i++)
		lower = v[i] > lower ? v[i] : lower;
	return (lower + upper) / 2;
}

/* schedsim's cpu_shares: executed time over [first arrival, last trace entry), less every
 * idle interval that overlaps that span (as a whole, as pandas' Interval.overlaps finds). */
static double share_of(const struct ss *s, const struct ss_thread *t, const int64_t *idle_sum)
{
	if (!t->ran)
		return NAN;   /* schedsim: KeyError */
	int64_t a = t->first, b = t->last, total = b - a;
	/* idle intervals are disjoint and in order: those overlapping [a, b) are a range */
	int64_t lo = 0, hi = s->nidle;
	while (lo < hi) {   /* first with to > a */
		int64_t m = (lo + hi) / 2;
		if (s->idle[m].to > a)
			hi = m;
		else
			lo = m + 1;
	}
	int64_t first = lo;
	lo = first, hi = s->nidle;
	while (lo < hi) {   /* first with from >= b */
		int64_t m = (lo + hi) / 2;
		if (s->idle[m].from >= b)
			hi = m;
		else
			lo = m + 1;
	}
	total -= idle_sum[lo] - idle_sum[first];
	if (total == 0)
		return NAN;   /* schedsim: ZeroDivisionError */
	return (double)t->cpu / (double)total;
}

static void summarise(struct ss *s, struct ss_summary *sum, struct result_thread *out, int64_t end)
{
	int64_t *idle_sum = xcalloc((size_t)s->nidle + 1, sizeof(int64_t));
	for (int64_t i = 0; i < s->nidle; i++)
		idle_sum[i + 1] = idle_sum[i] + s->idle[i].to - s->idle[i].from;
	for (int i = 0; i < s->nth; i++) {
		struct ss_thread *t = &s->th[i];
		struct ss_summary m = {.jobs = t->nresp, .dropped = (int64_t)t->dropped, .share = NAN};
		struct result_thread *o = &out[i];
		if (t->nresp) {
			int64_t sum_r = 0, mn = INT64_MAX, mx = INT64_MIN;
			for (int64_t k = 0; k < t->nresp; k++) {
				sum_r += t->resp[k];
				mn = t->resp[k] < mn ? t->resp[k] : mn;
				mx = t->resp[k] > mx ? t->resp[k] : mx;
				hist_record(&o->resp, t->resp[k] * US);
			}
			m.resp_min = mn;
			m.resp_max = mx;
			m.resp_mean = (int64_t)((double)sum_r / (double)t->nresp);   /* "%d" % np.mean */
			m.resp_median = median(t->resp, t->nresp);
			m.lat_max = t->lat_max;
		}
		if (t->traced)
			m.share = share_of(s, t, idle_sum);
		if (sum)
			sum[i] = m;
		o->samples = (uint64_t)t->nresp;
		o->overruns = t->dropped;
		o->sim_used_ns = t->cpu * US;
		o->sim_spent_ns = t->cpu * US;
		o->sim_switches = t->switches;
		o->sim_share_ppm = !isnan(m.share) ? (int64_t)(m.share * 1e6 + 0.5) : 0;
		(void)end;
	}
	free(idle_sum);
}

/* ---------------------------------------------------------------- run */

int ssim_run(const struct ss_policy *pol, const struct sim_cfg *cfg, const struct sim_thread_spec *specs, int n,
             struct result_thread *out, struct ss_summary *sum, struct sim_totals *tot, int64_t *end_ns,
             struct err *e)
{
	struct ss s = {.pol = pol, .nth = n, .max_time = cfg->duration / US, .until_duration = cfg->end == SIM_END_DURATION};
	int nrows = 0, nev = 0;
	for (int i = 0; i < n; i++) {
		if (specs[i].cfg.type != SIM_JOBS)
			return err_set(e, EXIT_USAGE, "thread %s: policy schedsim-%s runs schedsim scenarios (TSV rows) only",
			               specs[i].name, pol->name);
		nrows += specs[i].njobs;
		for (int r = 0; r < specs[i].njobs; r++) {
			const struct sim_job *j = &specs[i].jobs[r];
			if (j->runtime < US || (j->period > 0 && j->period < US))
				return err_set(e, EXIT_USAGE, "thread %s: schedsim counts whole microseconds: runtime and period must be at least 1us",
				               specs[i].name);
			if (pol->max_prio >= 0 && j->prio > pol->max_prio)
				return err_set(e, EXIT_USAGE, "thread %s: priority %lld, but schedsim's %s knows priorities 0..%d",
				               specs[i].name, (long long)j->prio, pol->name, pol->max_prio);
			if (j->event_in >= nev)
				nev = j->event_in + 1;
			if (j->event_out >= nev)
				nev = j->event_out + 1;
		}
	}
	struct ss_row *rows = xcalloc((size_t)nrows + 1, sizeof(*rows));
	s.th = xcalloc((size_t)n + 1, sizeof(*s.th));
	s.vt = xcalloc((size_t)n + 1, sizeof(*s.vt));
	for (int i = 0; i < n; i++)
		s.vt[i] = -1;
	s.waiting = xcalloc((size_t)nev + 1, sizeof(*s.waiting));
	s.nwaiting = xcalloc((size_t)nev + 1, sizeof(*s.nwaiting));
	s.ps = xcalloc(1, pol->state_size ? pol->state_size : 1);
	s.nevents = nev;
	/* the rows in file order */
	for (int i = 0; i < n; i++) {
		s.th[i].name = specs[i].name;
		for (int r = 0; r < specs[i].njobs; r++) {
			const struct sim_job *j = &specs[i].jobs[r];
			rows[j->seq] = (struct ss_row){.thread = i, .job = j, .weight = j->weight, .prio = j->prio};
		}
	}
	s.rows = rows;
	s.nrows = nrows;
	if (pol->init)
		pol->init(&s);

	/* Scheduler.execute */
	take_next_job(&s);
	if (s.next_job)
		s.time = s.next_job->arrival;
	while (schedule(&s))
		if (s.time > s.max_time)
			break;

	summarise(&s, sum, out, s.time);
	if (end_ns)
		*end_ns = s.time * US;
	if (tot) {
		tot->decisions += s.decisions;
		tot->events += s.decisions;
		tot->simulated_ns += s.time * US;
	}
	/* free */
	if (s.current && !s.current->pending)
		job_free(&s, s.current);
	for (int i = 0; i < s.npq; i++)
		job_free(&s, s.pq[i]);
	for (int i = 0; i < s.nrq; i++)
		job_free(&s, s.rq[i]);
	if (s.next_job)
		job_free(&s, s.next_job);
	while (s.free) {
		struct ss_job *j = s.free;
		s.free = j->free_next;
		free(j);
	}
	for (int i = 0; i < n; i++)
		free(s.th[i].resp);
	for (int i = 0; i < nev; i++)
		free(s.waiting[i]);
	free(s.waiting);
	free(s.nwaiting);
	free(s.pq_base);
	free(s.rq_base);
	free(s.idle);
	free(s.ps);
	free(s.th);
	free(s.vt);
	free(rows);
	return 0;
}

/* schedsim's job-level model: the reader, the idle step, the metrics and the run, written
 * from jschlatow/schedsim's behaviour (see schedsim.h); the loop and the base methods are in
 * schedsim_loop.h, run by each policy's own copy. */
#include "sim/schedsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/policy.h"
#include "sim/schedsim_loop.h"
#include "util.h"

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

/* ---------------------------------------------------------------- the queues' growth (rare) */

void ss_pq_grow(struct ss *s)
{
	/* grown if need be: a move every so many insertions, not at every one */
	s->pq_base = grow_int(s->pq_base, &s->cappq, 2 * SS_PQ_FRONT + 2 * s->npq + 2 + SS_PQ_BLOCK, sizeof(*s->pq_base));
	memmove(s->pq_base + SS_PQ_FRONT, s->pq_base + s->pq_off, sizeof(*s->pq) * (size_t)s->npq);
	s->pq_off = SS_PQ_FRONT;
	s->pq = s->pq_base + SS_PQ_FRONT;
}

void ss_rq_grow(struct ss *s)
{
	/* no room after the last (and the block ss_q_open moves): move the jobs to the front, with
	 * room for as many again and twice the block, grown if need be */
	s->rq_base = grow_int(s->rq_base, &s->caprq, 2 * s->nrq + 1 + 2 * SS_PQ_BLOCK, sizeof(*s->rq_base));
	memmove(s->rq_base, s->rq_base + s->rq_off, sizeof(*s->rq) * (size_t)s->nrq);
	s->rq_off = 0;
	s->rq = s->rq_base;
}

void ss_resp_grow(struct ss_thread *t)
{
	t->resp = grow(t->resp, &t->cap, t->nresp + 1, sizeof(*t->resp));
}

/* ---------------------------------------------------------------- the reader, idling */

/* Takes the read-ahead timed row's job and reads on: rows waiting on an event are
 * registered as they are read, up to the next timed row. */
struct ss_job *ss_take_next_job(struct ss *s)
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
		s->next_job = ss_job_from_row(s, r, r->job->period > 0 ? 0 : r->job->at / SS_US);
		break;
	}
	ss_arrivals_changed(s);
	return j;
}

/* Scheduler.idle(): nothing to run until `until` */
void ss_idle(struct ss *s, int64_t until)
{
	if (s->nidle == s->capidle)
		s->idle = grow(s->idle, &s->capidle, s->nidle + 1, sizeof(*s->idle));
	s->idle[s->nidle++] = (struct ss_span){s->time, until};
	s->current = NULL;
	s->time = until;
	s->last_time = until;
}

/* The loop passed check_at (<= max_time): true to end the run, past max_time or at a stop
 * request (sim_stop), where the last decision took it. Out of line: once per ~2^20 decisions. */
__attribute__((cold)) bool ss_stop_due(struct ss *s)
{
	if (s->time > s->max_time)
		return true;
	if (atomic_load_explicit(&sim_stop, memory_order_relaxed))
		return s->interrupted = true;
	s->check_at = ss_min(s->max_time, sim_watch_next(&s->watch, s->time, s->decisions));
	return false;
}

/* ---------------------------------------------------------------- metrics */

/* The k-th smallest of v[0..n) (0-based), all of them within [lo, hi], and in *below (if
 * not NULL) the (k-1)-th (k > 0): the values are counted into buckets of equal width (one per
 * SEL_PER_BUCKET values, from 16 to 1024, chosen again each round), then those of the k-th's
 * bucket move to the front (over the others: v is overwritten) and are counted again, until a
 * bucket is one value wide. Quickselect's comparisons, which the predictor missed, took 4-8 %
 * of a run. Four counters per bucket, used in turn, so that runs of equal values do not wait
 * on each other's increments. A bucket per value cost more to clear and to walk than the
 * larger next round it saves (rr: 16 KB cleared per thread). */
#define SEL_BITS_MAX 10
#define SEL_PER_BUCKET 16
static int64_t select_kth(int64_t *v, int64_t n, int64_t k, int64_t lo, int64_t hi, int64_t *below)
{
	uint32_t c[4][1 << SEL_BITS_MAX];
	bool want_below = below && k > 0;
	for (;;) {
		int bits = 4;
		while (bits < SEL_BITS_MAX && ((int64_t)SEL_PER_BUCKET << bits) < n)
			bits++;
		int s = 0;   /* bucket width 2^s */
		while ((uint64_t)(hi - lo) >> s >> bits)
			s++;
		int64_t nb = ((hi - lo) >> s) + 1, i = 0;
		for (int q = 0; q < 4; q++)
			memset(c[q], 0, sizeof(c[q][0]) * (size_t)nb);
		for (; i + 4 <= n; i += 4) {
			c[0][(v[i] - lo) >> s]++;
			c[1][(v[i + 1] - lo) >> s]++;
			c[2][(v[i + 2] - lo) >> s]++;
			c[3][(v[i + 3] - lo) >> s]++;
		}
		for (; i < n; i++)
			c[0][(v[i] - lo) >> s]++;
		int64_t b = 0, last = -1;   /* the k-th's bucket, the last non-empty one before it */
		for (;; b++) {
			int64_t m = (int64_t)c[0][b] + c[1][b] + c[2][b] + c[3][b];
			if (m > k)
				break;
			k -= m;
			last = m ? b : last;
		}
		if (want_below && k == 0) {   /* the (k-1)-th: the largest in bucket last */
			want_below = false;
			int64_t x = INT64_MIN;
			for (i = 0; i < n; i++)
				x = (v[i] - lo) >> s == last && v[i] > x ? v[i] : x;
			*below = x;
		}
		if (s == 0) {
			if (want_below)
				*below = lo + b;
			return lo + b;
		}
		int64_t m = 0;
		lo += b << s;
#pragma GCC unroll 4   /* the loop's own count and branch were a third of its instructions */
		for (i = 0; i < n; i++) {   /* bucket b's values move to the front, over the others */
			int64_t x = v[i];
			v[m] = x;
			m += (uint64_t)(x - lo) < (uint64_t)1 << s;
		}
		n = m;
		hi = ss_min(hi, lo + ((int64_t)1 << s) - 1);
	}
}

int64_t ss_median(int64_t *v, int64_t n, int64_t lo, int64_t hi)
{
	int64_t lower = 0, upper = select_kth(v, n, n / 2, lo, hi, n % 2 ? NULL : &lower);
	return n % 2 ? upper : (lower + upper) / 2;
}

/* hist_index(r * 1000) for 1 <= r < RESP_FAST_MAX, in range whatever r, without a branch:
 * from the double's bits alone (hist_index_d as above group 0, exact from 512 on), masked to
 * 2^14 slots (r * 1000 < 2^40 needs no more). ss_record_responses checks the range after its
 * pass: a compare per value cost more. */
#define RESP_FAST_MAX (((int64_t)1 << 40) / SS_US)
_Static_assert(1 << 14 <= HIST_LEN, "resp_index's mask");
static inline unsigned resp_index(int64_t r)
{
	return hist_index_d(HIST_SUB_COUNT, (double)(r * SS_US)) & ((1 << 14) - 1);
}

struct ss_resp_span ss_record_responses(struct hist *h, const int64_t *r, size_t n)
{
	struct ss_resp_span s = {INT64_MAX, INT64_MIN, 0};
	if (n && h->count == 0) {
		/* One pass for the counts, the least, the greatest, the sum and the squares' sum in
		 * integers (no chain of floating-point adds), in pairs: one compare orders a pair, so
		 * that the running least and greatest wait on one compare per two values. */
		uint64_t any = 0, sq = 0;
		size_t k = 0;
		for (; k + 2 <= n; k += 2) {
			int64_t a = r[k], b = r[k + 1];
			h->counts[resp_index(a)]++;
			h->counts[resp_index(b)]++;
			int64_t lo = a < b ? a : b, hi = a < b ? b : a;
			s.min = lo < s.min ? lo : s.min;
			s.max = hi > s.max ? hi : s.max;
			s.sum += a + b;
			any |= (uint64_t)(a | b);
			sq += (uint64_t)a * (uint64_t)a + (uint64_t)b * (uint64_t)b;
		}
		if (k < n) {
			int64_t a = r[k];
			h->counts[resp_index(a)]++;
			s.min = a < s.min ? a : s.min;
			s.max = a > s.max ? a : s.max;
			s.sum += a;
			any |= (uint64_t)a;
			sq += (uint64_t)a * (uint64_t)a;
		}
		if (s.min >= 1 && any < (uint64_t)RESP_FAST_MAX) {   /* so is every r[k] */
			h->count = n;
			h->min = s.min * SS_US;
			h->max = s.max * SS_US;
			h->sum = (int64_t)((uint64_t)s.sum * SS_US);
			/* hist_record's serial sum of squares, exactly: with every x = r[k] * 1000 a
			 * multiple of 2^z, every x^2 and every partial sum of them is a multiple of 2^2z
			 * up to the total, so if total / 2^2z < 2^53 they are all doubles and no add
			 * rounds. sq, r's squares' sum, did not wrap if max^2 * n < 2^64 (max < 2^31). */
			unsigned __int128 total = (unsigned __int128)sq * (SS_US * SS_US);
			int z = __builtin_ctzll(any) + 3;   /* 1000 = 2^3 * 125 */
			bool wrapped = (unsigned __int128)((uint64_t)s.max * (uint64_t)s.max) * n >> 64;
			if (!wrapped && total >> 2 * z >> 53 == 0) {
				h->sumsq = (double)total;
			} else {
				double d = 0;
				for (k = 0; k < n; k++)
					d += (double)(r[k] * SS_US) * (double)(r[k] * SS_US);
				h->sumsq = d;
			}
			return s;
		}
		for (k = 0; k < n; k++)   /* undone, to record one by one */
			h->counts[resp_index(r[k])]--;
		s = (struct ss_resp_span){INT64_MAX, INT64_MIN, 0};
	}
	for (size_t k = 0; k < n; k++) {
		s.min = r[k] < s.min ? r[k] : s.min;
		s.max = r[k] > s.max ? r[k] : s.max;
		s.sum += r[k];
		hist_record(h, r[k] * SS_US);
	}
	return s;
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
			struct ss_resp_span r = ss_record_responses(&o->resp, t->resp, (size_t)t->nresp);
			m.resp_min = r.min;
			m.resp_max = r.max;
			m.resp_mean = (int64_t)((double)r.sum / (double)t->nresp);   /* "%d" % np.mean */
			m.resp_median = ss_median(t->resp, t->nresp, r.min, r.max);
			m.lat_max = t->lat_max;
		}
		if (t->traced)
			m.share = share_of(s, t, idle_sum);
		if (sum)
			sum[i] = m;
		o->samples = (uint64_t)t->nresp;
		o->overruns = t->dropped;
		o->sim_used_ns = t->cpu * SS_US;
		o->sim_spent_ns = t->cpu * SS_US;
		o->sim_switches = t->switches;
		/* the result's share is the schema's (spent / the run's duration); schedsim's own share
		 * (over the thread's span less idle time) is the table's */
		o->sim_share_ppm = end > 0 ? (int64_t)((__int128)t->cpu * 1000000 / end) : 0;
		o->sim_activations_min = -1;   /* no timer threads */
	}
	free(idle_sum);
}

/* ---------------------------------------------------------------- run */

/* Room for the responses each thread will likely record (the jobs its rows release in
 * max_time; a row waiting on an event, as many as its signallers), at most RESERVE_MAX:
 * growing copies them, at every doubling (1-3 % of a run). */
#define RESERVE_MAX 65536
static void reserve_responses(struct ss *s)
{
	int64_t *est = xcalloc((size_t)s->nrows + 1, sizeof(*est)), *signals = xcalloc((size_t)s->nevents + 1, sizeof(*signals));
	for (int i = 0; i < s->nrows; i++) {
		const struct sim_job *j = s->rows[i].job;
		int64_t period = j->period > 0 ? j->period / SS_US : j->restart > 0 ? (j->restart + j->runtime) / SS_US : 0;
		est[i] = period > 0 ? ss_min(s->max_time / period + 1, RESERVE_MAX) : 1;
		if (j->event_out >= 0)
			signals[j->event_out] += est[i];
	}
	int64_t *per_thread = xcalloc((size_t)s->nth + 1, sizeof(*per_thread));
	for (int i = 0; i < s->nrows; i++) {
		const struct sim_job *j = s->rows[i].job;
		int t = s->rows[i].thread;
		per_thread[t] += j->event_in >= 0 ? signals[j->event_in] : est[i];
	}
	for (int t = 0; t < s->nth; t++) {
		s->th[t].cap = ss_min(per_thread[t], RESERVE_MAX);
		s->th[t].resp = s->th[t].cap ? xmalloc(sizeof(*s->th[t].resp) * (size_t)s->th[t].cap) : NULL;
	}
	free(per_thread);
	free(signals);
	free(est);
}

int ssim_setup(struct ss *out_s, const struct ss_policy *pol, const struct sim_cfg *cfg,
               const struct sim_thread_spec *specs, int n, struct err *e)
{
	struct ss s = {.nth = n, .pq_min_avt = SS_INF, .max_time = cfg->duration / SS_US, .until_duration = cfg->end == SIM_END_DURATION};
	int nrows = 0, nev = 0;
	for (int i = 0; i < n; i++) {
		if (specs[i].cfg.type != SIM_JOBS)
			return err_set(e, EXIT_USAGE, "thread %s: policy schedsim-%s runs schedsim scenarios (TSV rows) only",
			               specs[i].name, pol->name);
		nrows += specs[i].njobs;
		for (int r = 0; r < specs[i].njobs; r++) {
			const struct sim_job *j = &specs[i].jobs[r];
			if (j->runtime < SS_US || (j->period > 0 && j->period < SS_US))
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
			rows[j->seq] = (struct ss_row){.thread = i, .job = j, .weight = j->weight, .prio = j->prio,
			                             .weight_inv = ss_div_inv(j->weight)};
			s.pq_wide |= j->weight < 1 || j->weight > SS_KEY_WEIGHT_MAX;   /* see ss_pq_key */
		}
	}
	s.watch = (struct sim_watch){.step = 1000, .max = 1000000};   /* us: 1 ms, at most 1 s */
	s.check_at = ss_min(s.max_time, s.watch.step);
	s.rows = rows;
	s.nrows = nrows;
	reserve_responses(&s);
	if (pol->init)
		pol->init(&s);
	*out_s = s;
	return 0;
}

void ssim_finish(struct ss *s, struct ss_summary *sum, struct result_thread *out, struct sim_totals *tot,
                 int64_t *end_ns)
{
	summarise(s, sum, out, s->time);
	if (end_ns)
		*end_ns = s->time * SS_US;
	if (tot) {
		tot->decisions += s->decisions;
		tot->events += s->decisions;
		tot->simulated_ns += s->time * SS_US;
		tot->interrupted |= s->interrupted;
	}
	/* free */
	if (s->current && !s->current->pending)
		ss_job_free(s, s->current);
	for (int i = 0; i < s->npq; i++)
		ss_job_free(s, s->pq[i]);
	for (int i = 0; i < s->nrq; i++)
		ss_job_free(s, s->rq[i]);
	if (s->next_job)
		ss_job_free(s, s->next_job);
	while (s->free) {
		struct ss_job *j = s->free;
		s->free = j->free_next;
		free(j);
	}
	for (int i = 0; i < s->nth; i++)
		free(s->th[i].resp);
	for (int i = 0; i < s->nevents; i++)
		free(s->waiting[i]);
	free(s->waiting);
	free(s->nwaiting);
	free(s->pq_base);
	free(s->rq_base);
	free(s->idle);
	free(s->ps);
	free(s->th);
	free(s->vt);
	free((void *)s->rows);
}

int ssim_run(const struct ss_policy *pol, const struct sim_cfg *cfg, const struct sim_thread_spec *specs, int n,
             struct result_thread *out, struct ss_summary *sum, struct sim_totals *tot, int64_t *end_ns,
             struct err *e)
{
	struct ss s;
	if (ssim_setup(&s, pol, cfg, specs, n, e))
		return -1;
	pol->run(&s);   /* Scheduler.execute */
	ssim_finish(&s, sum, out, tot, end_ns);
	return 0;
}

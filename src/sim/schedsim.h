/* schedsim's job-level model (jschlatow/schedsim, its Scheduler.execute loop), for the
 * policies that reproduce schedsim's numbers: schedsim-rr, -stride, -base-hw, -bvt,
 * -bvt-nowarp and -bvt-sculpt (docs/sim.md, "schedsim's policies").
 *
 * This is a different model from the kernel-style engine (engine.c): time is integer
 * microseconds; a decision is made only when the granted slice ends (the slice is cut short
 * by the job's own end, and by arrivals only where the policy's time_slice says so); jobs
 * that arrived meanwhile are taken at that decision, in schedsim's order (completion events
 * first, then re-released jobs by arrival, then the file's rows in file order); a job whose
 * thread still has one is dropped. The run ends at the first decision with nothing ready
 * once the file's last timed row has arrived (schedsim's end rule), or after the first
 * decision past the duration.
 *
 * A policy is a `struct ss_policy`: the hooks are schedsim's overridable methods, NULL
 * meaning the base behaviour (ss_base_*), which an override may call like `super`; `run` is
 * the policy's own copy of the loop with those hooks inlined (schedsim_loop.h). */
#ifndef IRT_SIM_SCHEDSIM_H
#define IRT_SIM_SCHEDSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "hot.h"
#include "result.h"
#include "sim/engine.h"

#define SS_INF INT64_MAX      /* schedsim's float('inf') */
#define SS_TIME_SLICE 10000   /* schedsim's default slice: 10 ms */

struct ss_job {
	int thread;
	int warp_lvl;                      /* bvt: warp = the bvt table's warp[warp_lvl] (while warped) */
	struct ss_thread *t;               /* &ss->th[thread]: one load where an index costs four */
	int64_t arrival, exec, executed;   /* executed < 0: runtime owed for skipped periods */
	union {
		int64_t finish;                /* its completion time */
		struct ss_job *free_next;      /* while it is free (then it has none) */
	};
	int64_t period, restart, weight, prio;
	uint64_t weight_inv;               /* ss_div_inv(weight) */
	int event_out;                     /* -1: none */
	bool started;                      /* schedsim's `started` attribute */
	bool pending;                      /* in the pending queue */
	bool has_warp, warped;             /* bvt: the `warped` attribute exists / is true (only
	                                    * set with has_warp: warped alone says both) */
	bool one_time_boost;               /* base-hw */
	int64_t hw_prio;                   /* base-hw: hw_see_quota */
	int64_t warp, warp_limit, warp_time;
	/* stride and bvt, while pending: the thread's virtual time, the job's warp and its
	 * effective virtual time, taken when it entered the queue (ss_vt_cache). Neither changes
	 * while it waits: only the running job's thread advances, a start moves only an idle
	 * thread's time, and a warp ends only by running. The walks of every decision read these
	 * instead of the thread's time and the warp's state. */
	int64_t avt_c, warp_c, evt_c;
	int64_t q_rank;                    /* stride and bvt (-sculpt): ss_pq_new_before */
	uint64_t q_key;                    /* stride and bvt: evt_c and q_rank in one (ss_pq_key) */
	/* base-hw, while pending: its place in the list of its hw_prio and in schedsim's list
	 * order (hw_seq: smaller is nearer the head) */
	struct ss_link { struct ss_link *next, *prev; } hw_link;
	int64_t hw_seq;
};

struct ss_thread {
	const char *name;
	/* per-thread policy state (schedsim's dicts keyed by thread name) */
	bool has_quota, has_unwarp;        /* (virtual times: ss->vt) */
	int64_t quota, unwarp_end;
	/* the latency trace, reduced: schedsim keeps arrival, start, completion per job */
	bool traced;
	int64_t first, last;               /* first and last value appended */
	int64_t arrival, start;            /* of the job in progress */
	int64_t *resp;                     /* completion - arrival of each completed job */
	int64_t nresp, cap;
	int64_t lat_max;                   /* start - arrival, completed jobs only */
	int64_t cpu;                       /* executed time */
	bool ran;
	int queued;                        /* its jobs in the pending queue (0 or 1) */
	uint64_t dropped, switches;
};

struct ss_row {                        /* one TSV row, in file order */
	int thread;
	const struct sim_job *job;
	int64_t weight, prio;
	uint64_t weight_inv;               /* ss_div_inv(weight) */
};

struct ss;

struct ss_policy {
	const char *name;                  /* schedsim's own name: "rr", "base-hw" */
	size_t state_size;                 /* of ss->ps, zeroed */
	int max_prio;                      /* priorities it can index (bvt: 3); -1 any */
	void (*init)(struct ss *);
	void (*start_job)(struct ss *, struct ss_job *j, struct ss_job *signalling);
	void (*insert_job)(struct ss *, struct ss_job *j);
	void (*update_job)(struct ss *, struct ss_job *j, int64_t executed);
	void (*finish_job)(struct ss *, struct ss_job *j);
	struct ss_job *(*choose_job)(struct ss *);
	void (*reinsert_job)(struct ss *, struct ss_job *j);
	int64_t (*time_slice)(struct ss *, struct ss_job *j);
	void (*run)(struct ss *);          /* ss_execute(s, &the policy) */
};

struct ss {
	void *ps;                          /* policy state */
	int64_t time, last_time, max_time;
	int64_t check_at;                  /* <= max_time: the loop's end test (ss_stop_due) */
	struct sim_watch watch;
	bool interrupted;                  /* sim_stop ended the run */
	bool until_duration;               /* run on while re-released jobs remain */
	struct ss_thread *th;
	int nth;
	int64_t *vt;                       /* per thread: stride's virtual time, -1: none yet (a dense
	                                    * array: every decision reads it for every pending job) */
	struct ss_job *current;
	struct ss_job **pq;                /* the pending queue: pq_base + pq_off */
	int npq, cappq, pq_off;            /* cappq: of pq_base */
	struct ss_job **pq_base;
	/* stride and bvt: the smallest avt_c in the queue (SS_INF: none), unless stale (a job
	 * that had it was taken: ss_svt walks the queue then) */
	int64_t pq_min_avt;
	bool pq_min_stale;
	bool pq_wide;                      /* a queued job's q_key could not hold its order (ss_pq_key) */
	struct ss_job **rq;                /* restarted jobs, by arrival (stable): rq_base + rq_off
	                                    * (taking the first moves the start, not the rest) */
	int nrq, caprq, rq_off;            /* caprq: of rq_base */
	struct ss_job **rq_base;
	const struct ss_row *rows;         /* the reader */
	int nrows, rpos;
	struct ss_job *next_job;           /* next timed row, read ahead */
	int64_t next_arrival;              /* the earlier of next_job's and rq[0]'s, SS_INF: none
	                                    * (ss_arrivals_changed after either changes) */
	int **waiting;                     /* per event: rows waiting on it, in reading order */
	int *nwaiting;
	int nevents;
	struct ss_span { int64_t from, to; } *idle;   /* idle intervals, in time order */
	int64_t nidle, capidle;
	struct ss_job *free;
	uint64_t decisions;
};

/* the latency trace, reduced to its first and last value */
static inline void ss_trace(struct ss_thread *t, int64_t v)
{
	if (!t->traced) {
		t->traced = true;
		t->first = v;
	}
	t->last = v;
}

/* Base behaviours (schedsim's Scheduler methods): update here, start and finish (which call
 * the policy's hooks) in schedsim_loop.h. */
static inline void ss_base_update_job(struct ss *s, struct ss_job *j, int64_t executed)
{
	struct ss_thread *t = j->t;
	if (!j->started) {   /* schedsim: executed <= 0 and not started; only the first update
	                      * sets started, so a job not started has executed <= 0 */
		j->started = true;
		t->start = s->last_time;
		ss_trace(t, s->last_time);
	}
	j->executed += executed;
	t->cpu += executed;
	t->ran = true;
}

/* The pending queue, a Python list. It holds a dozen jobs or so: an insertion or removal
 * moves the shorter side (the front by moving the start, so taking the first job, as rr
 * does, moves nothing), in plain loops (a memmove call costs more than it moves, its size
 * dispatch mispredicts); only growing leaves the inline path. SS_NO_MEMMOVE hides the index
 * from gcc, which would otherwise turn the loops back into memmove calls. */
#define SS_NO_MEMMOVE(k) __asm__("" : "+r"(k))
/* moves the jobs to pq_base + SS_PQ_FRONT, with room for SS_PQ_FRONT and as many again after
 * them, and for the block ss_pq_open moves: bvt-sculpt inserts at both ends, stride and bvt
 * take their first job and insert anywhere */
#define SS_PQ_FRONT 32
void ss_pq_grow(struct ss *);
static inline void ss_pq_room(struct ss *s)
{
	if (__builtin_expect(s->pq_off + s->npq + 1 > s->cappq, 0))
		ss_pq_grow(s);
}
/* the jobs from i on move one right (a hole at i) or, from i + 1 on, one left (over i) */
static inline void ss_q_tail_right(struct ss_job **q, int n, int i)
{
	for (int k = n; k > i; k--) {
		SS_NO_MEMMOVE(k);
		q[k] = q[k - 1];
	}
}
static inline void ss_pq_tail_right(struct ss *s, int i)
{
	ss_q_tail_right(s->pq, s->npq, i);
}
static inline void ss_pq_tail_left(struct ss *s, int i)
{
	for (int k = i; k < s->npq - 1; k++) {
		SS_NO_MEMMOVE(k);
		s->pq[k] = s->pq[k + 1];
	}
}
/* j has joined the queue / fills the hole at i / has left the queue */
static inline void ss_pq_joined(struct ss *s, struct ss_job *j)
{
	s->npq++;
	j->pending = true;
	j->t->queued++;
}
static inline void ss_pq_placed(struct ss *s, int i, struct ss_job *j)
{
	s->pq[i] = j;
	ss_pq_joined(s, j);
}
static inline struct ss_job *ss_pq_left(struct ss *s, struct ss_job *j)
{
	s->npq--;
	j->pending = false;
	j->t->queued--;
	return j;
}
/* q[i..n) moves one right (a hole at i), for the sorted queues (stride's and bvt's pending
 * jobs, the restarted jobs), whose insertions land anywhere: a loop's end there would be data
 * the predictor misses. A fixed block of SS_PQ_BLOCK slots moves instead, a few vector moves
 * (the queue keeps room for it after its last job), a loop only where more move. */
#define SS_PQ_BLOCK 8
struct ss_pq_block { struct ss_job *j[SS_PQ_BLOCK]; };
static inline void ss_q_open(struct ss_job **q, int n, int i)
{
	if (__builtin_expect(n - i > SS_PQ_BLOCK, 0)) {
		ss_q_tail_right(q, n, i);
		return;
	}
	struct ss_pq_block b;   /* slots past the last job move too: harmless */
	__builtin_memcpy(&b, q + i, sizeof(b));
	__builtin_memcpy(q + i + 1, &b, sizeof(b));
}
static inline void ss_pq_open(struct ss *s, int i)
{
	if (__builtin_expect(s->pq_off + s->npq + 1 + SS_PQ_BLOCK > s->cappq, 0))
		ss_pq_grow(s);
	ss_q_open(s->pq, s->npq, i);
}
static inline void ss_pq_insert(struct ss *s, int i, struct ss_job *j)
{
	if (2 * i < s->npq && s->pq_off > 0) {   /* the front moves one left */
		s->pq_off--;
		s->pq--;
		for (int k = 0; k < i; k++) {
			SS_NO_MEMMOVE(k);
			s->pq[k] = s->pq[k + 1];
		}
	} else {
		ss_pq_room(s);
		ss_pq_tail_right(s, i);
	}
	ss_pq_placed(s, i, j);
}
/* (stride and bvt take their jobs with ss_vt_pop or ss_vt_taken, which keep pq_min_avt right) */
static inline struct ss_job *ss_pq_pop(struct ss *s, int i)
{
	struct ss_job *j = s->pq[i];
	if (2 * i < s->npq) {   /* the front moves one right */
		for (int k = i; k > 0; k--) {
			SS_NO_MEMMOVE(k);
			s->pq[k] = s->pq[k - 1];
		}
		s->pq++;
		s->pq_off++;
	} else {
		ss_pq_tail_left(s, i);
	}
	return ss_pq_left(s, j);
}
static inline void ss_pq_remove(struct ss *s, struct ss_job *j)
{
	for (int i = 0; i < s->npq; i++)
		if (s->pq[i]->thread == j->thread) {   /* list.remove compares by thread */
			ss_pq_pop(s, i);
			return;
		}
}
static inline void ss_pq_append(struct ss *s, struct ss_job *j) { ss_pq_insert(s, s->npq, j); }

static inline void ss_arrivals_changed(struct ss *s)
{
	int64_t t = SS_INF;
	if (s->next_job)
		t = s->next_job->arrival;
	if (s->nrq && s->rq[0]->arrival < t)
		t = s->rq[0]->arrival;
	s->next_arrival = t;
}
static inline int64_t ss_next_preemption(const struct ss *s)
{
	return s->next_arrival;
}
static inline int64_t ss_time_until(const struct ss *s, int64_t t)
{
	return t == SS_INF ? SS_INF : t - s->time;
}
static inline int64_t ss_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t ss_runtime_left(const struct ss_job *j)
{
	return j->exec - j->executed > 0 ? j->exec - j->executed : 0;
}

/* Stride's virtual times, shared with bvt (policy_schedsim_stride.c). */
static inline int64_t ss_ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
/* The same by a multiply: a 64-bit divide sits on the chain from one decision to the next
 * (executed -> virtual time -> the queue's order -> the next job), a multiply waits less.
 * inv = 2^64 / b rounded up (Lemire's fastdiv): for n and b below 2^32, n / b is the high half
 * of n * inv. ceil(a / b) is (a + b - 1) / b rounded down for every a; where that n or b does
 * not fit (inv 0: b < 2 or b >= 2^32), it divides. */
static inline uint64_t ss_div_inv(int64_t b)
{
	return b >= 2 && b < ((int64_t)1 << 32) ? UINT64_MAX / (uint64_t)b + 1 : 0;
}
static inline int64_t ss_ceil_div_inv(int64_t a, int64_t b, uint64_t inv)
{
	uint64_t n = (uint64_t)a + (uint64_t)b - 1;
	if (__builtin_expect(n < ((uint64_t)1 << 32) && inv, 1))
		return (int64_t)(((unsigned __int128)n * inv) >> 64);
	return ss_ceil_div(a, b);
}
/* A periodic row's next arrival after its job that arrived at `arrival` ends at `end`: the
 * first arrival + k * period (k >= 1) at or after end. The ones before it are skipped and
 * their runtime is owed (*owed). Counted, not looped over: the loop's end was often
 * mispredicted. For schedsim's model and for the engine's schedsim rows. */
static inline int64_t ss_next_period(int64_t arrival, int64_t period, int64_t end, int64_t runtime, int64_t *owed)
{
	int64_t a = arrival + period;
	int64_t k = a < end ? (end - a + period - 1) / period : 0;
	*owed = k * runtime;
	return a + k * period;
}
void ss_thread_first_vt(struct ss *, int thread);   /* a new thread starts at svt */
static inline int64_t ss_thread_vt(struct ss *s, int thread, int64_t increment)
{
	if (__builtin_expect(s->vt[thread] < 0, 0))   /* virtual times are >= 0 */
		ss_thread_first_vt(s, thread);
	if (increment > 0)
		s->vt[thread] += increment;
	return s->vt[thread];
}
/* the virtual time of a thread whose job was started: the start (ss_stride_start_job) looked
 * at it first, so it has one */
static inline int64_t ss_vt_of(const struct ss *s, int thread)
{
	return s->vt[thread];
}
static inline void ss_stride_update_job(struct ss *s, struct ss_job *j, int64_t executed)
{
	ss_base_update_job(s, j, executed);
	int64_t increment = ss_ceil_div_inv(executed, j->weight, j->weight_inv);
	s->vt[j->thread] += increment > 0 ? increment : 0;
}
/* schedsim's _min_vt: the smallest vt(j) over the pending jobs accepted by `in` (NULL: all)
 * and the current job, and the pending index of the first job that has it. Always inlined:
 * every caller passes constant vt and in, which then inline too (it runs for every
 * decision, often twice, over every pending job). */
typedef int64_t (*ss_vt_fn)(struct ss *, struct ss_job *);
typedef bool (*ss_in_fn)(const struct ss *, const struct ss_job *cand, const struct ss_job *ref);
IRT_HOT_INLINE int64_t ss_min_vt(struct ss *s, ss_vt_fn vt, ss_in_fn in,
                                                               const struct ss_job *ref, int *index)
{
	/* np.min / np.argmin over the pending jobs (inf where not in in_jobs) and then the
	 * current job if it is in in_jobs (NULL: all). in_jobs lists are taken from the queue,
	 * so a current job outside the queue is only in "all"; one inside the queue is a later
	 * duplicate that cannot change the result. */
	int64_t best = SS_INF;   /* the first job's value (inf or not) counts from here on */
	int bi = 0;
	for (int i = 0; i < s->npq; i++) {
		struct ss_job *j = s->pq[i];
		int64_t v = !in || in(s, j, ref) ? vt(s, j) : SS_INF;
		bool lt = v < best;   /* selects, not a branch: which job wins is data */
		best = lt ? v : best;
		bi = lt ? i : bi;
	}
	struct ss_job *c = s->current;
	if (c && !c->pending && !in) {
		int64_t v = vt(s, c);
		if (s->npq == 0 || v < best) {
			best = v;
			bi = s->npq;
		}
	}
	if (index)
		*index = bi;
	return best;
}

/* bvt's pieces, shared with bvt-sculpt (here, schedsim_loop.h and policy_schedsim_bvt.c). */
struct ss_bvt {
	int64_t c;                         /* context-switch allowance */
	int64_t warp[4], warp_limit[4], unwarp_time[4];
	int64_t group_vt[2], group_slice;  /* sculpt: low latency, desktop */
	int group_n[2];                    /* sculpt: the groups' pending jobs */
	int group_warps[2][4];             /* sculpt: of those, the warped ones per warp_lvl */
	unsigned group_wmask[2];           /* sculpt: bit l: group_warps[g][l] > 0 */
	bool have_next;                    /* choose_job found time_slice's smallest effective vt */
	int64_t next_evt;                  /* among in_jobs (the chosen job's rivals): next_evt */
};
void ss_bvt_setup(struct ss *, bool warp);
/* the job's warp ends (for good), and its thread may not warp for unwarp_time */
static inline void ss_bvt_unwarp(struct ss *s, struct ss_job *j)
{
	struct ss_bvt *b = s->ps;
	j->warped = false;
	j->warp = 0;
	struct ss_thread *t = j->t;
	t->has_unwarp = true;
	t->unwarp_end = s->time + b->unwarp_time[j->prio];
}
static inline int64_t ss_bvt_warp_time_left(const struct ss_job *j)
{
	if (!j->warped || j->warp_limit == 0)
		return SS_INF;
	return j->warp_time < j->warp_limit ? j->warp_limit - j->warp_time : 0;
}
/* the job's warp; unwarps it (for good) once its warped running time reached the limit */
static inline int64_t ss_bvt_warp_value(struct ss *s, struct ss_job *j)
{
	if (!j->warped)
		return 0;
	if (ss_bvt_warp_time_left(j) == 0)
		ss_bvt_unwarp(s, j);
	return j->warp;
}
/* the effective virtual time */
static inline int64_t ss_bvt_evt(struct ss *s, struct ss_job *j)
{
	int64_t avt = ss_vt_of(s, j->thread);
	int64_t warp = ss_bvt_warp_value(s, j);
	return warp ? avt - warp : avt;
}

/* Takes the values a pending job's walks read (see avt_c): whenever stride or bvt queue a job,
 * after its warp is set. A warp found at its limit ends here, at the same instant as the first
 * walk over the job would have ended it (both happen in the decision that queued the job). */
static inline void ss_vt_cache(struct ss *s, struct ss_job *j)
{
	int64_t avt = ss_vt_of(s, j->thread);
	int64_t w = ss_bvt_warp_value(s, j);
	j->avt_c = avt;
	j->warp_c = w;
	j->evt_c = w ? avt - w : avt;
	s->pq_min_avt = avt < s->pq_min_avt ? avt : s->pq_min_avt;
}
/* j, cached, was taken from the queue: pq_min_avt may have been its */
static inline struct ss_job *ss_vt_taken(struct ss *s, struct ss_job *j)
{
	if (j->avt_c == s->pq_min_avt)
		s->pq_min_stale = true;
	return j;
}
/* takes the i-th pending job of stride or bvt */
static inline struct ss_job *ss_vt_pop(struct ss *s, int i)
{
	return ss_vt_taken(s, ss_pq_pop(s, i));
}
/* Stride and bvt keep their queue sorted by evt_c (avt_c for stride), jobs of equal evt_c in
 * schedsim's list order: so the job schedsim's argmin picks (the first with the smallest) is
 * the first, and the next smallest is the second's (bvt-sculpt: per group). No walk over the
 * queue per decision, one count over it per insertion instead (ss_pq_sorted_insert). The list
 * order needs no record of its own: among jobs of equal evt_c, a new job goes before every
 * job that has run and every one not started of lower or equal weight (then its q_rank is no
 * larger, ss_rank_new), the preempted job after all of them (ss_pq_sorted_append), and the
 * others keep their order. */
static inline bool ss_pq_new_before(const struct ss_job *j, const struct ss_job *x)   /* j new */
{
	/* & and |, not && and ||: no branch (the result is data) */
	return (j->evt_c < x->evt_c) | ((j->evt_c == x->evt_c) & (j->q_rank <= x->q_rank));
}
/* evt_c and q_rank in one number that orders as the pair: evt_c above SS_KEY_RANK_BITS bits
 * that order q_rank (2^20 - weight for a new job, all ones for the preempted one), the sign
 * bit flipped so that it compares unsigned (a compare and an add with carry per queued job).
 * Where the pair does not fit (|evt_c| >= 2^41, 25 days of virtual microseconds; a weight
 * outside 1..2^20, ssim_run) the queue counts with the pair from then on (pq_wide). */
#define SS_KEY_RANK_BITS 21
#define SS_KEY_EVT_LIM ((int64_t)1 << (62 - SS_KEY_RANK_BITS))
#define SS_KEY_WEIGHT_MAX ((int64_t)1 << 20)
static inline void ss_pq_key(struct ss *s, struct ss_job *j, uint64_t rank_place)
{
	s->pq_wide |= (uint64_t)(j->evt_c + SS_KEY_EVT_LIM) >= 2 * (uint64_t)SS_KEY_EVT_LIM;
	j->q_key = ((uint64_t)j->evt_c << SS_KEY_RANK_BITS ^ (uint64_t)1 << 63) + rank_place;
}
/* Where a job goes is counted over the whole queue, not found by a walk stopping there (its
 * place is near uniform: the predictor missed the walk's end at every insertion); the jobs
 * after it move one right as a block (ss_pq_open). */
static inline void ss_pq_sorted_put(struct ss *s, int i, struct ss_job *j)
{
	ss_pq_open(s, i);
	ss_pq_placed(s, i, j);
}
static inline void ss_pq_sorted_insert(struct ss *s, struct ss_job *j)
{
	ss_pq_key(s, j, (uint64_t)(SS_KEY_WEIGHT_MAX - j->weight));   /* q_rank: -weight */
	int i = 0;   /* the jobs j does not go before: a prefix */
	if (__builtin_expect(!s->pq_wide, 1))
		for (int k = 0; k < s->npq; k++)
			i += s->pq[k]->q_key < j->q_key;
	else
		for (int k = 0; k < s->npq; k++)
			i += !ss_pq_new_before(j, s->pq[k]);
	ss_pq_sorted_put(s, i, j);
}
/* the same for the preempted job: its place is after every job of evt_c up to its own (its
 * q_key's rank place is the largest) */
static inline void ss_pq_sorted_append(struct ss *s, struct ss_job *j)
{
	ss_pq_key(s, j, ((uint64_t)1 << SS_KEY_RANK_BITS) - 1);   /* q_rank: INT64_MAX */
	int i = 0;
	if (__builtin_expect(!s->pq_wide, 1))
		for (int k = 0; k < s->npq; k++)
			i += s->pq[k]->q_key <= j->q_key;
	else
		for (int k = 0; k < s->npq; k++)
			i += s->pq[k]->evt_c <= j->evt_c;
	ss_pq_sorted_put(s, i, j);
}
/* the smallest evt_c after the first job's (SS_INF: none) */
static inline int64_t ss_pq_second(const struct ss *s)
{
	return s->npq > 1 ? s->pq[1]->evt_c : SS_INF;
}
/* takes the first job of stride, or of bvt without warps (evt_c = avt_c): the second's avt_c
 * is the queue's smallest from now on */
static inline struct ss_job *ss_vt_pop_first(struct ss *s)
{
	s->pq_min_avt = ss_pq_second(s);
	s->pq_min_stale = false;
	return ss_pq_pop(s, 0);
}

extern const struct ss_policy ss_rr, ss_stride, ss_base_hw, ss_bvt, ss_bvt_nowarp, ss_bvt_sculpt;

/* Per-thread summary in schedsim's terms (integer us, as its schedule.py prints them). */
struct ss_summary {
	int64_t jobs, resp_min, resp_mean, resp_median, resp_max, lat_max;
	double share;                      /* NaN: schedsim cannot compute it (never ran) */
	int64_t dropped;
};

/* np.median of v[0..n) (n > 0), all within [lo, hi], truncated as schedsim's "%d" prints it;
 * v is overwritten */
int64_t ss_median(int64_t *v, int64_t n, int64_t lo, int64_t hi);

/* Records the responses r[0..n) (us) into h as hist_record(h, r[k] * 1000) of each in turn
 * would (the same counts and summary, sumsq to the bit) and returns their least, greatest and
 * sum (INT64_MAX, INT64_MIN, 0 for none): in one pass where h is empty. */
struct ss_resp_span {
	int64_t min, max, sum;
};
struct ss_resp_span ss_record_responses(struct hist *h, const int64_t *r, size_t n);

/* Runs threads[] (all schedsim rows) under the model; fills out[] like engine_run (times in
 * ns) and sum[] (may be NULL). end_ns: where the run ended. */
int ssim_run(const struct ss_policy *pol, const struct sim_cfg *cfg, const struct sim_thread_spec *threads, int n,
             struct result_thread *out, struct ss_summary *sum, struct sim_totals *tot, int64_t *end_ns,
             struct err *e);
/* ssim_run's three steps, for bench/sim, which times the loop (schedsim's execute()) apart from
 * the setup and the summary: ssim_setup fills *s (0, or -1 with e set for a scenario the model
 * cannot run), pol->run(s) runs it, ssim_finish summarises and frees it. */
int ssim_setup(struct ss *s, const struct ss_policy *pol, const struct sim_cfg *cfg,
               const struct sim_thread_spec *threads, int n, struct err *e);
void ssim_finish(struct ss *s, struct ss_summary *sum, struct result_thread *out, struct sim_totals *tot,
                 int64_t *end_ns);

#endif

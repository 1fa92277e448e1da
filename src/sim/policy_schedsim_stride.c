/* schedsim-stride: schedsim's Stride. Each thread has a virtual time advanced by
 * ceil(executed / weight); the job with the smallest one runs for a fixed 10 ms slice
 * (arrivals wait for its end). A thread starting a job behind the scheduler's virtual time
 * (the smallest of the pending and running jobs, 0 when there are none) is moved up to it; a
 * new thread starts there. New jobs enter the queue before any job that has run and before
 * not-started jobs of lower or equal weight. */
#include "sim/policy.h"
#include "sim/schedsim_loop.h"

/* a pending job's avt as taken when it was queued (ss_vt_cache), the running one's now */
static int64_t cached_avt(struct ss *s, struct ss_job *j)
{
	return j->pending ? j->avt_c : ss_vt_of(s, j->thread);
}

/* a new thread starts at the scheduler's virtual time (rare: out of line) */
void ss_thread_first_vt(struct ss *s, int thread)
{
	s->vt[thread] = ss_svt(s);
}

SS_INLINE void stride_update(struct ss *s, struct ss_job *j, int64_t executed)
{
	ss_stride_update_job(s, j, executed);
}

SS_INLINE void stride_start(struct ss *s, struct ss_job *j, struct ss_job *signalling)
{
	(void)signalling;
	if (ss_stride_start_job(s, j)) {
		ss_vt_cache(s, j);
		ss_insert_job(s, &ss_stride, j);
	}
}

SS_INLINE struct ss_job *stride_choose(struct ss *s)
{
	int i;
	if (s->current && !s->current->pending) {   /* not so in schedule(); the general way */
		ss_min_vt(s, cached_avt, NULL, NULL, &i);
		return ss_vt_pop(s, i);
	}
	return ss_vt_pop_first(s);   /* the sorted queue's first */
}

static void stride_run(struct ss *s);

const struct ss_policy ss_stride = {
	.name = "stride",
	.max_prio = -1,
	.start_job = stride_start,
	.insert_job = ss_sorted_insert_job,
	.update_job = stride_update,
	.choose_job = stride_choose,
	.reinsert_job = ss_sorted_reinsert_job,
	.run = stride_run,
};

static void stride_run(struct ss *s)
{
	ss_execute(s, &ss_stride);
}

static const char *const no_sim_keys[] = {NULL};
static const char *const row_keys[] = {"weight", "prio", NULL};

const struct policy_ops policy_schedsim_stride = {
	.name = "schedsim-stride",
	.summary = "schedsim's Stride: smallest virtual time (executed / weight) runs for 10 ms",
	.sim_keys = no_sim_keys,
	.thread_keys = row_keys,
	.schedsim = &ss_stride,
};

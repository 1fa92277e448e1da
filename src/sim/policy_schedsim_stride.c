/* schedsim-stride: schedsim's Stride. Each thread has a virtual time advanced by
 * ceil(executed / weight); the job with the smallest one runs for a fixed 10 ms slice
 * (arrivals wait for its end). A thread starting a job behind the scheduler's virtual time
 * (the smallest of the pending and running jobs, 0 when there are none) is moved up to it; a
 * new thread starts there. New jobs enter the queue before any job that has run and before
 * not-started jobs of lower or equal weight. */
#include "sim/policy.h"
#include "sim/schedsim.h"

/* a pending job's avt as taken when it was queued (ss_vt_cache), the running one's now */
static int64_t cached_avt(struct ss *s, struct ss_job *j)
{
	return j->pending ? j->avt_c : ss_thread_vt(s, j->thread, 0);
}

int64_t ss_svt(struct ss *s)
{
	if (s->npq == 0 && !s->current)
		return 0;
	int64_t best = SS_INF;   /* _min_vt's value: the smallest over the queue and the current job */
	for (int i = 0; i < s->npq; i++) {
		int64_t v = s->pq[i]->avt_c;
		best = v < best ? v : best;
	}
	struct ss_job *c = s->current;
	if (c && !c->pending) {
		int64_t v = ss_thread_vt(s, c->thread, 0);
		best = v < best ? v : best;
	}
	return best;
}

void ss_thread_first_vt(struct ss *s, int thread)
{
	s->vt[thread] = ss_svt(s);
}

static void stride_update(struct ss *s, struct ss_job *j, int64_t executed)
{
	ss_stride_update_job(s, j, executed);
}

bool ss_stride_start_job(struct ss *s, struct ss_job *j)
{
	int64_t vt = ss_thread_vt(s, j->thread, 0);
	int64_t min_vt = ss_svt(s);
	if (min_vt > vt)
		ss_thread_vt(s, j->thread, min_vt - vt);
	return ss_base_start_job(s, j);   /* bvt sets the warp, then the cache; stride_start the cache */
}

void ss_stride_reinsert_job(struct ss *s, struct ss_job *j)
{
	ss_vt_cache(s, j);
	ss_pq_append(s, j);
}

void ss_stride_insert_job(struct ss *s, struct ss_job *j)
{
	for (int i = 0; i < s->npq; i++)
		if (s->pq[i]->started || j->weight >= s->pq[i]->weight) {
			ss_pq_insert(s, i, j);
			return;
		}
	ss_pq_append(s, j);
}

static void stride_start(struct ss *s, struct ss_job *j, struct ss_job *signalling)
{
	(void)signalling;
	if (ss_stride_start_job(s, j))
		ss_vt_cache(s, j);
}

static struct ss_job *stride_choose(struct ss *s)
{
	int i;
	ss_min_vt(s, cached_avt, NULL, NULL, &i);
	return ss_pq_pop(s, i);
}

const struct ss_policy ss_stride = {
	.name = "stride",
	.max_prio = -1,
	.start_job = stride_start,
	.insert_job = ss_stride_insert_job,
	.update_job = stride_update,
	.choose_job = stride_choose,
	.reinsert_job = ss_stride_reinsert_job,
};

static const char *const no_sim_keys[] = {NULL};
static const char *const row_keys[] = {"weight", "prio", NULL};

const struct policy_ops policy_schedsim_stride = {
	.name = "schedsim-stride",
	.summary = "schedsim's Stride: smallest virtual time (executed / weight) runs for 10 ms",
	.sim_keys = no_sim_keys,
	.thread_keys = row_keys,
	.schedsim = &ss_stride,
};

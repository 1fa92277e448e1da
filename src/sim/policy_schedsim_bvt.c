/* schedsim-bvt and schedsim-bvt-nowarp: schedsim's BVT (Duda and Cheriton), on top of its
 * stride virtual times. The effective virtual time is the thread's virtual time minus the
 * job's warp while it is warped. Priorities 0..3 give warp 0, 5 ms, 1 s, 2 s with warp limits
 * 0 (none), 50, 20, 20 ms (nowarp: no warp at all). A job warps from its start; a job started
 * by another's completion event warps at least as much as that one and inherits the rest of
 * its warp limit. A job unwarps when it completes or when its warped running time reaches the
 * limit (found when its effective time is next looked at). The job with the smallest
 * effective time runs until it is C = 10 ms ahead (in its weighted time) of the next one,
 * until the next arrival or until its warp limit. */
#include "sim/policy.h"
#include "sim/schedsim_loop.h"

static const int64_t warp_on[4] = {0, 5000, 1000000, 2000000};
static const int64_t warp_limit_on[4] = {0, 50000, 20000, 20000};

void ss_bvt_setup(struct ss *s, bool warp)
{
	struct ss_bvt *b = s->ps;
	b->c = 10000;
	for (int p = 0; p < 4; p++) {
		b->warp[p] = warp ? warp_on[p] : 0;
		b->warp_limit[p] = warp ? warp_limit_on[p] : 0;
		b->unwarp_time[p] = 0;
	}
}

static void bvt_init(struct ss *s)
{
	ss_bvt_setup(s, true);
}

static void bvt_init_nowarp(struct ss *s)
{
	ss_bvt_setup(s, false);
}

/* _min_vt over the pending jobs (the current one is back among them): the sorted queue's
 * first, and the second's evt_c is what time_slice's _min_vt over in_jobs (the rest) finds
 * right after, nothing having changed in between (evt's one side effect, the unwarp at the
 * limit, was done when the job was queued: ss_vt_cache). */
SS_INLINE struct ss_job *bvt_pick(struct ss *s, bool warps)
{
	struct ss_bvt *b = s->ps;
	if (s->current && !s->current->pending) {   /* not so in schedule(); the general way */
		int i;
		ss_min_vt(s, ss_bvt_evt, NULL, NULL, &i);
		return ss_vt_pop(s, i);
	}
	b->have_next = true;
	b->next_evt = ss_pq_second(s);
	return warps ? ss_vt_pop(s, 0) : ss_vt_pop_first(s);
}

SS_INLINE struct ss_job *bvt_choose(struct ss *s)
{
	return bvt_pick(s, true);
}

/* bvt-nowarp's: no job ever warps (its init), so evt_c is avt_c */
SS_INLINE struct ss_job *nowarp_choose(struct ss *s)
{
	return bvt_pick(s, false);
}

static bool not_ref(const struct ss *s, const struct ss_job *cand, const struct ss_job *ref)
{
	(void)s;
	return cand != ref;
}

SS_INLINE int64_t bvt_slice(struct ss *s, struct ss_job *j)
{
	return ss_bvt_slice_among(s, j, not_ref);
}

/* bvt and bvt-nowarp share these hooks */
SS_INLINE void bvt_start(struct ss *s, struct ss_job *j, struct ss_job *sig)
{
	ss_bvt_start_job(s, &ss_bvt, j, sig);
}

SS_INLINE void bvt_finish(struct ss *s, struct ss_job *j)
{
	ss_bvt_finish_job(s, &ss_bvt, j);
}

static void bvt_run(struct ss *s);
static void nowarp_run(struct ss *s);

const struct ss_policy ss_bvt = {
	.name = "bvt",
	.state_size = sizeof(struct ss_bvt),
	.max_prio = 3,
	.init = bvt_init,
	.start_job = bvt_start,
	.insert_job = ss_sorted_insert_job,
	.update_job = ss_bvt_update_job,
	.finish_job = bvt_finish,
	.choose_job = bvt_choose,
	.reinsert_job = ss_sorted_reinsert_job,
	.time_slice = bvt_slice,
	.run = bvt_run,
};

const struct ss_policy ss_bvt_nowarp = {
	.name = "bvt-nowarp",
	.state_size = sizeof(struct ss_bvt),
	.max_prio = 3,
	.init = bvt_init_nowarp,
	.start_job = bvt_start,
	.insert_job = ss_sorted_insert_job,
	.update_job = ss_bvt_update_job,
	.finish_job = bvt_finish,
	.choose_job = nowarp_choose,
	.reinsert_job = ss_sorted_reinsert_job,
	.time_slice = bvt_slice,
	.run = nowarp_run,
};

static void bvt_run(struct ss *s)
{
	ss_execute(s, &ss_bvt);
}

static void nowarp_run(struct ss *s)
{
	ss_execute(s, &ss_bvt_nowarp);
}

static const char *const no_sim_keys[] = {NULL};
static const char *const row_keys[] = {"weight", "prio", NULL};

const struct policy_ops policy_schedsim_bvt = {
	.name = "schedsim-bvt",
	.summary = "schedsim's BVT: stride virtual times minus warp by priority (0, 5 ms, 1 s, 2 s; limits -, 50, 20, 20 ms), C = 10 ms",
	.sim_keys = no_sim_keys,
	.thread_keys = row_keys,
	.schedsim = &ss_bvt,
};

const struct policy_ops policy_schedsim_bvt_nowarp = {
	.name = "schedsim-bvt-nowarp",
	.summary = "schedsim's BVT without warp",
	.sim_keys = no_sim_keys,
	.thread_keys = row_keys,
	.schedsim = &ss_bvt_nowarp,
};

/* schedsim-rr: schedsim's RoundRobin. Priorities and weights play no part: the pending queue
 * is served from its head for fixed 10 ms slices; new jobs and the preempted one join its
 * tail (new ones first, as they are taken before the preempted job is put back); arrivals
 * wait for the end of the running slice. */
#include "sim/policy.h"
#include "sim/schedsim_loop.h"

SS_INLINE struct ss_job *rr_choose(struct ss *s)
{
	return ss_pq_pop(s, 0);
}

static void rr_run(struct ss *s);

const struct ss_policy ss_rr = {
	.name = "rr",
	.max_prio = -1,
	.choose_job = rr_choose,
	.run = rr_run,
};

static void rr_run(struct ss *s)
{
	ss_execute(s, &ss_rr);
}

static const char *const no_sim_keys[] = {NULL};
static const char *const row_keys[] = {"weight", "prio", NULL};

const struct policy_ops policy_schedsim_rr = {
	.name = "schedsim-rr",
	.summary = "schedsim's RoundRobin: 10 ms slices in queue order, priorities and weights ignored, arrivals wait for the slice's end",
	.sim_keys = no_sim_keys,
	.thread_keys = row_keys,
	.schedsim = &ss_rr,
};

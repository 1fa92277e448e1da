/* schedsim-bvt-sculpt: schedsim's BVTSculpt, a two-level BVT for Sculpt OS. Priorities 2 and 3
 * form the low-latency group (group weight 2), priority 1 the desktop group (weight 1),
 * priority 0 the background, served only when both groups are empty. The group with the
 * smaller effective group time (group virtual time, advanced by ceil(executed / group
 * weight), minus the largest warp among its jobs) is chosen, then its job with the smallest
 * effective virtual time; its slice also ends C ahead of the other group. A group that
 * becomes non-empty takes the other group's virtual time. Warps per priority 0..3: 0, 5, 15,
 * 30 ms, limits 0, 50, 20, 15 ms. Slices are compared within the job's own group. */
#include "sim/policy.h"
#include "sim/schedsim_loop.h"

enum { LL, DT };
enum { LL_WEIGHT = 2, DT_WEIGHT = 1 };   /* the groups' weights: constants, so no division */

static int group_of(int64_t prio)
{
	return prio >= 2 ? LL : prio == 1 ? DT : -1;
}

static void sculpt_init(struct ss *s)
{
	static const int64_t warp[4] = {0, 5000, 15000, 30000}, limit[4] = {0, 50000, 20000, 15000};
	struct ss_bvt *b = s->ps;
	ss_bvt_setup(s, true);
	for (int p = 0; p < 4; p++) {   /* warps grow with p (group_warp) */
		b->warp[p] = warp[p];
		b->warp_limit[p] = limit[p];
	}
}

SS_INLINE void sculpt_start(struct ss *s, struct ss_job *j, struct ss_job *sig)
{
	struct ss_bvt *b = s->ps;
	if (b->group_n[LL] == 0 && j->prio >= 2)
		b->group_vt[LL] = b->group_vt[DT];
	else if (b->group_n[DT] == 0 && j->prio == 1)
		b->group_vt[DT] = b->group_vt[LL];
	ss_bvt_start_job(s, &ss_bvt_sculpt, j, sig);
}

/* Sculpt's queue is sorted as stride's and bvt's (ss_pq_new_before) within each group, the
 * groups one after the other: low latency from 0, desktop from group_n[LL], background from
 * group_n[LL] + group_n[DT]. So a group's first job is the one its _min_vt picks and its
 * second's evt_c the smallest of the chosen job's rivals. group_n and group_warps follow every
 * job in and out (a choice would otherwise walk the queue for the groups' sizes and largest
 * warps). */
SS_INLINE int group_start(const struct ss_bvt *b, int g)
{
	return g == LL ? 0 : g == DT ? b->group_n[LL] : b->group_n[LL] + b->group_n[DT];
}

SS_INLINE int group_size(const struct ss *s, const struct ss_bvt *b, int g)
{
	return g >= 0 ? b->group_n[g] : s->npq - b->group_n[LL] - b->group_n[DT];
}

/* the largest warp among the group's jobs (as queued): the highest level that has any, as
 * sculpt's warps grow with the level (sculpt_init) and level 0's is 0 */
SS_INLINE int64_t group_warp(const struct ss_bvt *b, int g)
{
	return b->warp[31 - __builtin_clz(b->group_wmask[g] | 1u)];
}

/* a job of group g and warp level l comes (+1) or goes (-1) */
SS_INLINE void group_count(struct ss_bvt *b, int g, int l, int d)
{
	int n = b->group_warps[g][l] += d;
	b->group_wmask[g] = (b->group_wmask[g] & ~(1u << l)) | (unsigned)(n > 0) << l;
}

/* j (ranked, its values cached) enters its group at its place */
SS_INLINE void sculpt_place(struct ss *s, struct ss_job *j, bool preempted)
{
	struct ss_bvt *b = s->ps;
	int g = group_of(j->prio), i = group_start(b, g), end = i + group_size(s, b, g);
	while (i < end && (preempted ? s->pq[i]->evt_c <= j->evt_c : !ss_pq_new_before(j, s->pq[i])))
		i++;
	ss_pq_insert(s, i, j);
	if (g >= 0) {
		b->group_n[g]++;
		if (j->warp_c > 0)
			group_count(b, g, j->warp_lvl, 1);
	}
}

SS_INLINE void sculpt_insert(struct ss *s, struct ss_job *j)
{
	ss_rank_new(j);
	sculpt_place(s, j, false);
}

SS_INLINE void sculpt_reinsert(struct ss *s, struct ss_job *j)
{
	ss_rank_preempted(s, j);
	sculpt_place(s, j, true);
}

SS_INLINE void sculpt_finish(struct ss *s, struct ss_job *j)
{
	ss_bvt_finish_job(s, &ss_bvt_sculpt, j);
}

SS_INLINE void sculpt_update(struct ss *s, struct ss_job *j, int64_t executed)
{
	struct ss_bvt *b = s->ps;
	ss_bvt_update_job(s, j, executed);
	int g = group_of(j->prio);
	if (g >= 0)
		b->group_vt[g] += g == LL ? ss_ceil_div(executed, LL_WEIGHT) : ss_ceil_div(executed, DT_WEIGHT);
}

SS_INLINE struct ss_job *sculpt_choose(struct ss *s)
{
	struct ss_bvt *b = s->ps;
	int g = -1;   /* background: served only when both groups are empty */
	b->group_slice = SS_INF;
	if (b->group_n[LL] && b->group_n[DT]) {
		int64_t evt_ll = b->group_vt[LL] - group_warp(b, LL), evt_dt = b->group_vt[DT] - group_warp(b, DT);
		if (evt_ll <= evt_dt) {
			g = LL;
			b->group_slice = (evt_dt - evt_ll) * LL_WEIGHT + b->c;
		} else {
			g = DT;
			b->group_slice = (evt_ll - evt_dt) * DT_WEIGHT + b->c;
		}
	} else if (b->group_n[LL]) {
		g = LL;
	} else if (b->group_n[DT]) {
		g = DT;
	}
	int first = group_start(b, g);
	b->have_next = true;
	b->next_evt = group_size(s, b, g) > 1 ? s->pq[first + 1]->evt_c : SS_INF;
	struct ss_job *j = ss_vt_pop(s, first);
	if (g >= 0) {
		b->group_n[g]--;
		if (j->warp_c > 0)
			group_count(b, g, j->warp_lvl, -1);
	}
	return j;
}

/* in_jobs of BVTSculpt.time_slice: the other pending jobs of j's own group (priority 0 and 1
 * by their own priority, 2 and 3 together) */
static bool same_group(const struct ss *s, const struct ss_job *c, const struct ss_job *ref)
{
	(void)s;
	if (c == ref)
		return false;
	return ref->prio >= 2 ? c->prio >= 2 : c->prio == ref->prio;
}

SS_INLINE int64_t sculpt_slice(struct ss *s, struct ss_job *j)
{
	struct ss_bvt *b = s->ps;
	return ss_min(ss_bvt_slice_among(s, j, same_group), b->group_slice);
}

static void sculpt_run(struct ss *s);

const struct ss_policy ss_bvt_sculpt = {
	.name = "bvt-sculpt",
	.state_size = sizeof(struct ss_bvt),
	.max_prio = 3,
	.init = sculpt_init,
	.start_job = sculpt_start,
	.insert_job = sculpt_insert,
	.update_job = sculpt_update,
	.finish_job = sculpt_finish,
	.choose_job = sculpt_choose,
	.reinsert_job = sculpt_reinsert,
	.time_slice = sculpt_slice,
	.run = sculpt_run,
};

static void sculpt_run(struct ss *s)
{
	ss_execute(s, &ss_bvt_sculpt);
}

static const char *const no_sim_keys[] = {NULL};
static const char *const row_keys[] = {"weight", "prio", NULL};

const struct policy_ops policy_schedsim_bvt_sculpt = {
	.name = "schedsim-bvt-sculpt",
	.summary = "schedsim's BVTSculpt: two-level BVT, low-latency (prio 2-3) and desktop (prio 1) groups over background (0)",
	.sim_keys = no_sim_keys,
	.thread_keys = row_keys,
	.schedsim = &ss_bvt_sculpt,
};

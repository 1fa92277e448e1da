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
	for (int p = 0; p < 4; p++) {
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

/* group_n: set by each choice's walk, then counting the jobs queued until the next (a start
 * would otherwise walk the queue for it) */
SS_INLINE void count_in(struct ss *s, const struct ss_job *j)
{
	struct ss_bvt *b = s->ps;
	b->group_n[LL] += j->prio >= 2;
	b->group_n[DT] += j->prio == 1;
}

SS_INLINE void sculpt_insert(struct ss *s, struct ss_job *j)
{
	count_in(s, j);
	ss_stride_insert_at(s, j);
}

SS_INLINE void sculpt_reinsert(struct ss *s, struct ss_job *j)
{
	count_in(s, j);
	ss_stride_reinsert_job(s, j);
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

static bool in_group_bg(const struct ss *s, const struct ss_job *c, const struct ss_job *ref)
{
	(void)s, (void)ref;
	return group_of(c->prio) < 0;
}

/* The groups' sizes and largest warps, and in the same walk each group's smallest effective
 * vt (its first job with it) and the smallest of its other jobs: _min_vt over the chosen group
 * and time_slice's over the chosen job's rivals in it, with the same values (a job's warp is
 * looked at, and unwarped at its limit, in this walk either way). Background jobs are looked
 * at only when both groups are empty, as schedsim does. */
struct group_min {
	int n, first;
	int64_t warp, best, next;
};

/* Every job is seen by both groups, `in` saying whether it belongs (an outsider counts as
 * warp 0 and evt inf, which change nothing): fewer branches than a test of each job's group,
 * which is data the predictor cannot learn. */
static void group_see(struct group_min *g, bool in, const struct ss_job *j, int k)
{
	int64_t w = in ? j->warp_c : 0, evt = in ? j->evt_c : SS_INF;   /* as queued (ss_vt_cache) */
	g->warp = w > g->warp ? w : g->warp;   /* warps are >= 0 */
	bool lt = evt < g->best;   /* best and next start at inf */
	int64_t hi = lt ? g->best : evt;
	g->next = hi < g->next ? hi : g->next;
	g->best = lt ? evt : g->best;
	g->first = lt ? k : g->first;
	g->n += in;
}

SS_INLINE struct ss_job *sculpt_choose(struct ss *s)
{
	struct ss_bvt *b = s->ps;
	struct group_min ll = {.best = SS_INF, .next = SS_INF}, dt = {.best = SS_INF, .next = SS_INF};
	int i;
	for (int k = 0; k < s->npq; k++) {
		const struct ss_job *j = s->pq[k];
		group_see(&ll, j->prio >= 2, j, k);
		group_see(&dt, j->prio == 1, j, k);
	}
	b->group_slice = SS_INF;
	const struct group_min *chosen = NULL;
	if (ll.n && dt.n) {
		int64_t evt_ll = b->group_vt[LL] - ll.warp, evt_dt = b->group_vt[DT] - dt.warp;
		if (evt_ll <= evt_dt) {
			chosen = &ll;
			b->group_slice = (evt_dt - evt_ll) * LL_WEIGHT + b->c;
		} else {
			chosen = &dt;
			b->group_slice = (evt_ll - evt_dt) * DT_WEIGHT + b->c;
		}
	} else if (ll.n) {
		chosen = &ll;
	} else if (dt.n) {
		chosen = &dt;
	}
	b->group_n[LL] = ll.n - (chosen == &ll);   /* the chosen job leaves the queue */
	b->group_n[DT] = dt.n - (chosen == &dt);
	if (!chosen) {
		ss_min_vt(s, ss_bvt_evt, in_group_bg, NULL, &i);
		return ss_vt_pop(s, i);
	}
	b->have_next = true;
	b->next_evt = chosen->next;
	return ss_vt_pop(s, chosen->first);
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

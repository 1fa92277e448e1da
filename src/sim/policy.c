/* The table of simulated scheduling policies: adding one is a policy_*.c file and a line here
 * (and its name in sim_policy_names, which the option table offers as choices). */
#include "sim/policy.h"

#include <string.h>

const struct policy_ops *const sim_policies[] = {
	&policy_hwquota,
	&policy_rr,
	&policy_cfsbw,
	&policy_edf,
	&policy_fair,
	&policy_bvt,
	&policy_schedsim_rr,
	&policy_schedsim_stride,
	&policy_schedsim_base_hw,
	&policy_schedsim_bvt,
	&policy_schedsim_bvt_nowarp,
	&policy_schedsim_bvt_sculpt,
};
const int sim_npolicies = sizeof(sim_policies) / sizeof(sim_policies[0]);

/* Same order as sim_policies; sim_cfg.policy indexes both. */
const char *const sim_policy_names[] = {"hwquota", "rr", "cfsbw", "edf", "fair", "bvt", "schedsim-rr",
                                        "schedsim-stride", "schedsim-base-hw", "schedsim-bvt",
                                        "schedsim-bvt-nowarp", "schedsim-bvt-sculpt", NULL};

const struct policy_ops *policy_find(const char *name)
{
	for (int i = 0; i < sim_npolicies; i++)
		if (strcmp(sim_policies[i]->name, name) == 0)
			return sim_policies[i];
	return NULL;
}

bool policy_reads(const char *const *keys, const char *key)
{
	for (int i = 0; keys && keys[i]; i++)
		if (strcmp(keys[i], key) == 0)
			return true;
	return false;
}

int policy_init(struct policy *p, const struct policy_ops *ops, const struct sim_cfg *cfg, struct err *e)
{
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	return ops->init(p, cfg, e);
}

void policy_fini(struct policy *p)
{
	if (p->ops && p->ops->fini)
		p->ops->fini(p);
	p->ops = NULL;
}

/* bench/sim's workload, shared with bench/hwquota-vs-genode: see sim_workload.h. */
#include "sim_workload.h"

#include <stdio.h>
#include <string.h>

#include "opt.h"

#define MS 1000000LL
#define US 1000LL

int sim_bench_workload(struct sim_cfg *sim, struct sim_thread_spec *t, int policy)
{
	memset(sim, 0, sizeof(*sim));
	opt_defaults(SCOPE_SIM, sim);
	sim->policy = policy;
	sim->duration = 60000 * MS;
	sim->super_period = 100 * MS;
	sim->fill = 1 * MS;
	sim->slice = 2 * MS;
	/* 8 periodic threads: 1..8 ms work every 10..80 ms-ish (about 60 % of the CPU), some with
	 * quota and priority, all with EDF servers; 2 cpu-bound hogs take the rest */
	static const int64_t period[8] = {5, 7, 10, 16, 20, 33, 50, 100};
	static const int64_t exec[8] = {500, 600, 900, 1500, 1200, 2600, 3000, 5000};
	for (int i = 0; i < 10; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		opt_defaults(SCOPE_SIM_THREAD, &t[i].cfg);
		struct sim_thread_cfg *c = &t[i].cfg;
		if (i < 8) {
			snprintf(t[i].name, sizeof(t[i].name), "periodic%d", i);
			c->type = SIM_PERIODIC;
			c->period = period[i] * MS;
			c->exec = exec[i] * US;
			c->deadline = c->period;
			c->prio = i % 4;
			c->quota_ns = i % 2 ? 0 : (int64_t)((double)exec[i] * US * (100.0 / (double)period[i]));
			c->dl_runtime = exec[i] * US + 100 * US;
			c->dl_period = c->period;
			c->weight = 1024 + 256 * i;
			c->warp = i % 3 ? 2 * MS : 0;
		} else {
			snprintf(t[i].name, sizeof(t[i].name), "hog%d", i - 8);
			c->type = SIM_CPU_BOUND;
			c->weight = 1024;
		}
	}
	return 10;
}

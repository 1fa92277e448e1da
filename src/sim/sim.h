/* irt sim: the simulator command (docs/sim.md). */
#ifndef IRT_SIM_SIM_H
#define IRT_SIM_SIM_H

#include <stdio.h>

#include "config.h"
#include "err.h"
#include "expect.h"
#include "opt.h"
#include "result.h"
#include "sim/engine.h"
#include "sim/workload.h"

/* `irt sim WORKLOAD [OPTIONS]` and `irt sim --step FILE`; argv[0] is "sim". */
int cmd_sim(int argc, char **argv);

/* irt sim's command line, read and checked as far as it can be without simulating: options,
 * the workload (or --like) with the command line's keys, every cell, outputs, gates and shard;
 * the errors are cmd_sim's. cmd_sim runs what it gives; irt fleet checks a sim task with it
 * before it submits one. */
struct sim_setup {
	const char *step;          /* --step FILE: nothing else was read (step_run runs it) */
	struct opt_args a;
	struct global_cfg g;
	struct workload w;
	struct expect_set gate;
	int shard, shards;
	char **argv;               /* the command line without --like (what the option parser reads) */
	int argc;
};
int sim_setup(int argc, char **argv, struct sim_setup *s, struct err *e);
void sim_setup_free(struct sim_setup *s);   /* also after a failed sim_setup */

struct ss_summary;

/* Runs cell `cell` of w into r (initialised here; the caller frees it with result_free).
 * r->duration_ns is where the run ended. For schedsim's policies *sum (if sum is not NULL)
 * gets schedsim's per-thread numbers (the caller frees it); NULL otherwise. */
int sim_run_cell(const struct workload *w, long cell, struct result *r, struct sim_totals *tot,
                 struct ss_summary **sum, struct err *e);

/* schedsim's numbers per thread: jobs, response min/mean/median/max, max latency (integer
 * us), share, dropped jobs. */
void sim_print_schedsim_table(FILE *f, const struct result *r, const struct ss_summary *m);

/* The per-thread table: thread, policy, share, used, spent, switches, wake p50/p99/max,
 * resp p99, deadlines met, completion, timer windows ok. */
void sim_print_table(FILE *f, const struct result *r);

#endif

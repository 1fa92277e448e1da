/* irt sim: the simulator command (docs/sim.md). */
#ifndef IRT_SIM_SIM_H
#define IRT_SIM_SIM_H

#include <stdio.h>

#include "config.h"
#include "err.h"
#include "result.h"
#include "sim/engine.h"
#include "sim/workload.h"

/* `irt sim WORKLOAD [OPTIONS]` and `irt sim --step FILE`; argv[0] is "sim". */
int cmd_sim(int argc, char **argv);

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

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

/* Runs cell `cell` of w into r (initialised here; the caller frees it with result_free). */
int sim_run_cell(const struct workload *w, long cell, struct result *r, struct sim_totals *tot, struct err *e);

/* The per-thread table: thread, policy, share, used, spent, switches, wake p50/p99/max,
 * resp p99, deadlines met, completion, timer windows ok. */
void sim_print_table(FILE *f, const struct result *r);

#endif

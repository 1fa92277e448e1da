/* irt sweep: every combination of knob and option values, repeated in shuffled rounds. */
#ifndef IRT_SWEEP_H
#define IRT_SWEEP_H

int cmd_sweep(int argc, char **argv);

#include "err.h"

/* The sweep's plan and every cell's probe definitions, checked as irt sweep checks them, but
 * nothing about this machine (knob values against its kernel, privileges, cgroups, memory):
 * irt fleet checks here what its nodes will run. argv[0] is "sweep". */
int sweep_check_plan(int argc, char **argv, struct err *e);

#endif

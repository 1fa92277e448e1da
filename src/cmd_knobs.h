/* irt knobs: list the tunables (or set some for a while); irt restore: undo what a crashed
 * irt left changed. */
#ifndef IRT_CMD_KNOBS_H
#define IRT_CMD_KNOBS_H

#include "opt.h"

int cmd_knobs(int argc, char **argv);
int cmd_restore(int argc, char **argv);

/* Rows for the command table in main.c. */
#define CMD_KNOBS_INFO                                                                              \
	{"knobs", "irt knobs [--json FILE] [--apply KNOB=VALUE ... [--hold DURATION]]",                \
	 "list the tunables, their values here and why some are unavailable; --apply sets some for a " \
	 "while, then restores them",                                                                 \
	 SCOPE_GLOBAL | SCOPE_KNOB, cmd_knobs,                                                        \
	 (const char *const[]){"csv", "seed", "hist-buckets", "hist-sum", NULL},                      \
	 (const char *const[]){"table", "none", NULL}, NULL}
#define CMD_RESTORE_INFO                                                                            \
	{"restore", "irt restore", "put back every tunable a crashed irt left changed, remove its cgroups", \
	 0, cmd_restore, NULL, NULL, NULL}

#endif

/* Command entry points; main.c dispatches to these. argv[0] is the command name. */
#ifndef IRT_CMD_H
#define IRT_CMD_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "opt.h"
#include "result.h"
#include "stats.h"

struct probe_session;

int cmd_probe(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);   /* the default check: irt with no arguments */
/* The check's verdict on its setting: p99 under load with it vs without (VERDICT_BETTER,
 * _WORSE or _SAME: within a factor CHECK_CLEAR_RATIO either way); the first of n results
 * taken on a busy machine, or -1. */
#define CHECK_CLEAR_RATIO 1.2
enum verdict check_effect(int64_t loaded, int64_t with);
int check_noisy(const struct result *rs, int n);
int cmd_watch(int argc, char **argv);   /* real applications' threads, from scheduler events */
int cmd_monitor(int argc, char **argv); /* src/monitor.c */
int cmd_noise(int argc, char **argv);   /* src/cmd_noise.c: OS and hardware noise */

/* Shared by the commands that run probes (probe, run, the default check). */
int probe_cfgs_from_args(const struct opt_args *a, struct probe_cfg **cfgs, int *n, bool *mlock, struct err *e);
void probe_cfgs_note_times(const struct probe_cfg *cfgs, int n);
int probe_run_session(struct probe_session *s, const struct global_cfg *g, bool *interrupted);

#endif

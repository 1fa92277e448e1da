/* Probe definitions: from parsed options (CLI segments or job-file sections) to validated
 * struct probe_cfg, with personas applied first and explicit options on top. Pure: no
 * system calls, so it is tested without root. */
#ifndef IRT_PROBE_CFG_H
#define IRT_PROBE_CFG_H

#include "config.h"
#include "err.h"
#include "opt.h"
#include "result.h"

struct persona_info {
	const char *name;
	const char *summary;         /* what it imitates, for help and docs */
	const char *const *settings; /* "option=value" pairs, NULL-terminated */
};
extern const struct persona_info personas[];  /* indexed by enum persona */

/* Builds one probe_cfg per segment of a (segment 0 = options for all). With only segment 0,
 * there is one definition. Each cfg: defaults, then the persona named by the last --persona
 * of its options, then every explicit option in order. Names default to "probe<N>". */
int probe_cfgs_build(const struct opt_args *a, struct probe_cfg **out, int *n, struct err *e);

/* Cross-option checks and derived defaults (count from duration, deadline = period, prio 80
 * for fifo/rr, SCHED_DEADLINE parameters). `where` prefixes messages ("--name audio"). */
int probe_cfg_finish(struct probe_cfg *c, struct err *e);

/* probe_cfgs_build and probe_cfg_finish on each, the definitions freed: the checks that need
 * no machine (irt fleet checks the command its nodes will run with them). */
int probe_cfgs_check(const struct opt_args *a, struct err *e);

/* The effective settings in CLI form, for the result record. */
/* --per-cpu: the CPU of thread j, the j-th CPU of --cpus (or of the process's affinity); -1 if
 * there is none */
int probe_cfg_cpu_of(const struct probe_cfg *c, int j);
void probe_cfg_settings(const struct probe_cfg *c, struct kvlist *out);

/* Total wake-ups of one thread of c (count, or duration / period). */
int64_t probe_cfg_iterations(const struct probe_cfg *c);
int64_t probe_cfgs_planned_ns(const struct probe_cfg *cfgs, int n);   /* the longest definition's iterations x period */

/* Whether some probe measures shorter than the longest by a period or more (ns[i]: its time,
 * period[i]: its period): the probes measure for different times. */
bool probe_times_differ(const int64_t *ns, const int64_t *period, int n);
/* True when the definitions' --duration differ and so do their measuring times; buf then
 * names each: "ui 10s, bg 2s". */
bool probe_cfgs_times(const struct probe_cfg *cfgs, int n, char *buf, size_t len);

bool probe_policy_is_rt(int policy);

#endif

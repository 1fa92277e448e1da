/* Thin wrappers over the kernel's scheduling interfaces that glibc lacks (sched_setattr) and
 * helpers that turn a refusal into a message naming the setting and errno. */
#ifndef IRT_LINUX_SCHED_H
#define IRT_LINUX_SCHED_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

struct irt_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;   /* SCHED_DEADLINE runtime, or the EEVDF slice for fair tasks */
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min, sched_util_max;
};

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

int irt_sched_setattr(pid_t tid, const struct irt_sched_attr *attr);
pid_t irt_gettid(void);
/* Parses a CPU list (cpulist_parse, util.h) into set; -1 with one EXIT_USAGE line, "WHERE: ...",
 * if it is malformed or names a CPU this machine does not have (where: "--cpus", a load's key). */
int irt_parse_cpus(const char *where, const char *list, cpu_set_t *set, struct err *e);
/* Hint for EPERM/EACCES on a scheduling change: what privilege is missing. */
const char *irt_sched_perm_hint(int policy_is_rt);

#endif

#include "linux/sched.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

int irt_sched_setattr(pid_t tid, const struct irt_sched_attr *attr)
{
	return (int)syscall(SYS_sched_setattr, tid, attr, 0u);
}

pid_t irt_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int irt_parse_cpus(const char *where, const char *list, cpu_set_t *set, struct err *e)
{
	long present = sysconf(_SC_NPROCESSORS_CONF);
	if (cpulist_parse(list, set))
		return err_set(e, EXIT_USAGE, "%s: '%s' is not a CPU list (expected e.g. 0, 0-3 or 0,2-3)", where, list);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set) && c >= present)
			return err_set(e, EXIT_USAGE, "%s: CPU %d does not exist here (this machine has CPUs 0-%ld)",
			               where, c, present - 1);
	return 0;
}

const char *irt_sched_perm_hint(int rt)
{
	if (geteuid() == 0)
		return rt ? "the kernel refused it even for root: check RT/DEADLINE admission limits and CPU affinity"
		          : "the kernel refused it even for root";
	return rt ? "needs root or CAP_SYS_NICE, or a raised RLIMIT_RTPRIO (ulimit -r)"
	          : "lowering nice needs root or CAP_SYS_NICE, or a raised RLIMIT_NICE";
}

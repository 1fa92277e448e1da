#include "linux/sched.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int irt_sched_setattr(pid_t tid, const struct irt_sched_attr *attr)
{
	return (int)syscall(SYS_sched_setattr, tid, attr, 0u);
}

pid_t irt_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int irt_parse_cpus(const char *list, void *set, size_t setsize, struct err *e)
{
	cpu_set_t *cs = set;
	long online = sysconf(_SC_NPROCESSORS_CONF);
	CPU_ZERO_S(setsize, cs);
	const char *s = list;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s)
			return err_set(e, EXIT_USAGE, "--cpus: '%s' is not a CPU list (expected e.g. 0, 0-3 or 0,2-3)", list);
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		for (long c = a; c <= b; c++) {
			if (c >= online || (size_t)c >= setsize * 8)
				return err_set(e, EXIT_USAGE, "--cpus: CPU %ld does not exist here (this machine has CPUs 0-%ld)",
				               c, online - 1);
			CPU_SET_S((size_t)c, setsize, cs);
		}
		if (*s == ',')
			s++;
	}
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

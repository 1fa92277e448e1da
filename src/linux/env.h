/* Environment capture: what the result record says about the machine a run measured. */
#ifndef IRT_LINUX_ENV_H
#define IRT_LINUX_ENV_H

#include <stddef.h>

#include "result.h"

/* Fills env from the running system. Never fails: what cannot be read stays "" or 0
 * (preemption "", hz 0 = unreadable). Every file path is prefixed by $IRT_SYSROOT when set
 * (tests use a fake tree): /etc/machine-id, /proc/sys/kernel/{hostname,osrelease,version,arch} (uname(2) as
 * fallback), /proc/cpuinfo, /sys/devices/system/cpu/online (sysconf fallback),
 * /sys/devices/system/clocksource/clocksource0/current_clocksource,
 * /sys/kernel/debug/sched/preempt, /proc/config.gz, /boot/config-RELEASE, /proc/cmdline. */
void env_capture(struct result_env *env);

/* The machine identity recorded for fleets: the first 32 hex digits of SHA-256("irt:" + id)
 * of /etc/machine-id's content (trimmed), so results name the machine without revealing the id. */
void env_machine_id(const char *id, char *out, size_t len);
/* A hash of the kernel's config (/proc/config.gz, else /boot/config-RELEASE):
 * "crc32 1a2b3c4d of 250123 bytes (/proc/config.gz)", or "unreadable: why". */
void env_config_hash(char *out, size_t len);

/* Parts, exposed for tests. */
int env_parse_cpu_list(const char *s);  /* "0-3,6" -> 5; -1 when malformed */
/* The preemption model from a kernel config's text (lines "CONFIG_X=y"), with the boot
 * command line (for preempt=) and writes it to out: "rt", "full", "voluntary", "none",
 * "lazy", or "dynamic (MODE)"; "" when the config says nothing. Returns CONFIG_HZ or 0. */
int env_from_config(const char *config, const char *cmdline, char *out, size_t len);

#endif

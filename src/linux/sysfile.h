/* Reading and writing the kernel's one-value files (/proc/sys, sysfs, cgroupfs, debugfs).
 * Every path is prefixed with $IRT_SYSROOT when it is set (sysroot_path, util.h), so tests run
 * against a fake tree built in a temporary directory. */
#ifndef IRT_LINUX_SYSFILE_H
#define IRT_LINUX_SYSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Called once at start: as root, $IRT_SYSROOT (a fake tree for tests) is honoured only when it
 * is a directory root may trust (trust.h); otherwise EXIT_USAGE. On a terminal, root is told
 * that irt works on the fake tree. */
int sys_root_check(struct err *e);
bool sys_exists(const char *path);

/* Reads a whole small file into buf (NUL-terminated, trailing whitespace removed). On error
 * sets e to "cannot read PATH: <strerror> (<hint>)" with errno kept in *errnum if not NULL. */
int sys_read(const char *path, char *buf, size_t len, int *errnum, struct err *e);
/* Writes value (one write(2), as `echo value > path` would) to an existing file. */
int sys_write(const char *path, const char *value, int *errnum, struct err *e);
/* Reads a file holding one integer. */
int sys_read_int(const char *path, int64_t *v, int *errnum, struct err *e);

/* MemAvailable of <sysroot>/proc/meminfo in bytes; -1 when unknown. */
int64_t sys_mem_available(void);
/* Does irt hold this capability (CAP_* bit number) in its effective set? */
bool sys_has_cap(int bit);
#define CAP_IPC_LOCK_BIT 14   /* mlock beyond RLIMIT_MEMLOCK (linux/capability.h) */
/* The value of a field of irt's own /proc/self/status ("Threads", "VmLck", "CapEff"), as
 * text without the name and the blanks after its colon; false when absent or unreadable. */
bool sys_self_status(const char *field, char *val, size_t len);
/* The same of task tid's /proc/TID/status (a thread's too; tid <= 0: irt's own). */
bool sys_task_status(int tid, const char *field, char *val, size_t len);

/* What to tell a user after errno on a kernel file: "needs root (or CAP_...)" for
 * EACCES/EPERM, "locked down" for EPERM as root on debugfs, ... Never NULL. */
const char *sys_errno_hint(int errnum, const char *path);

#endif

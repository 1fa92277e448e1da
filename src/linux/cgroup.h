/* The cgroup cpu controller: find it (v1 or v2), create irt's own cgroups, move tasks into
 * them, read their throttling statistics, and remove them again. Every path carries the
 * $IRT_SYSROOT prefix (sysfile.h). Creating a cgroup is journaled first (journal.h), so a
 * crashed irt's cgroups are removed by the next irt command. */
#ifndef IRT_LINUX_CGROUP_H
#define IRT_LINUX_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"

#define CG_PATHLEN 512

enum cg_version { CG_NONE = 0, CG_V1 = 1, CG_V2 = 2 };

struct cg_hier {
	enum cg_version version;
	char mount[CG_PATHLEN]; /* sysroot + mount point of the hierarchy holding "cpu" */
	char self[CG_PATHLEN];  /* the caller's cgroup inside it: "/" or "/user.slice/..." */
	/* The hierarchy is a plain directory (a test tree), not cgroupfs: mkdir and rmdir then
	 * create and delete the interface files the kernel would provide. */
	bool emulated;
	char why[256];          /* CG_NONE: why no cpu controller was found */
};

/* Finds the cpu controller from /proc/self/mountinfo (falling back to the usual mount
 * points) and the caller's cgroup from /proc/self/cgroup. No controller is not an error:
 * version is CG_NONE and why says what was looked for. */
int cgroup_detect(struct cg_hier *h, struct err *e);

/* File names of the controller, per version. */
const char *cgroup_procs_file(const struct cg_hier *h, bool thread);

enum cg_parent { CG_AT_ROOT, CG_AT_SELF };

struct cgroup {
	const struct cg_hier *h;
	char path[CG_PATHLEN];   /* full path of the directory */
	char parent[CG_PATHLEN];
};

/* Creates <parent>/irt-<pid>-<role>: under the hierarchy's root or the caller's own cgroup.
 * On v2 enables +cpu in the parent's cgroup.subtree_control if needed (journaled: undone
 * with -cpu). The cgroup is journaled before mkdir. An existing directory of that name (a
 * leftover of this same pid) is reused. */
int cgroup_create(struct cgroup *cg, const struct cg_hier *h, const char *role,
		  enum cg_parent where, struct err *e);
/* The directory cgroup_create makes its cgroup in; -1 when too long for len. */
int cgroup_parent_path(const struct cg_hier *h, enum cg_parent where, char *buf, size_t len);
/* Could cgroup_create make a cgroup there (the parent writable by this user)? Checked before
 * the journal is locked, so a missing privilege is named as such. */
int cgroup_can_create(const struct cg_hier *h, enum cg_parent where, struct err *why);
/* Moves a process (thread false: all its threads) or one thread into cg. On v2 a single
 * thread needs a threaded cgroup; the kernel refuses otherwise and the error says so. */
int cgroup_move(const struct cgroup *cg, pid_t id, bool thread, struct err *e);
/* Writes one interface file of cg ("cpu.max", "50000 100000"). Not journaled: the file
 * disappears with the cgroup. */
int cgroup_set(const struct cgroup *cg, const char *file, const char *value, struct err *e);
int cgroup_get(const struct cgroup *cg, const char *file, char *buf, size_t len, struct err *e);

/* cpu.stat with v1/v2 names unified; -1 = not provided by this version. */
struct cg_stat {
	int64_t nr_periods, nr_throttled, throttled_ns, nr_bursts, burst_ns, usage_ns;
};
int cgroup_stat_read(const char *dir, struct cg_stat *st, struct err *e);

/* Moves the tasks still in cg to its parent, then removes it. Done when it is already gone. */
int cgroup_remove(struct cgroup *cg, struct err *e);

/* The same for a bare directory, async-signal-safe (open/read/write/rmdir/unlink/nanosleep
 * only) so the journal can call it from a signal handler. procs names the tasks file of
 * the version ("tasks" or "cgroup.procs"). Returns 0 or an errno value. */
int cgroup_remove_dir(const char *dir, const char *procs, bool emulated);

#endif

#include "linux/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "linux/journal.h"
#include "linux/sysfile.h"
#include "trust.h"
#include "util.h"

#define CGROUP_SUPER_MAGIC_V1 0x27e0eb
#define CGROUP2_SUPER_MAGIC_V2 0x63677270

/* Is token a member of the list (separated by any of seps)? */
static bool has_token(const char *list, const char *token, const char *seps)
{
	size_t tl = strlen(token);
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, seps);
		if (n == tl && strncmp(p, token, tl) == 0)
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
}

static bool is_cgroupfs(const char *path)
{
	struct statfs sf;
	if (statfs(path, &sf))
		return false;
	return sf.f_type == CGROUP_SUPER_MAGIC_V1 || sf.f_type == CGROUP2_SUPER_MAGIC_V2;
}

static bool v2_has_cpu(const char *mount)
{
	char p[CG_PATHLEN + 32], buf[512];
	snprintf(p, sizeof(p), "%s/cgroup.controllers", mount);
	return sys_read(p, buf, sizeof(buf), NULL, NULL) == 0 && has_token(buf, "cpu", " ");
}

/* Sets h from a mount point (already sysroot-prefixed) and the mount's root inside the
 * hierarchy. */
static void found(struct cg_hier *h, enum cg_version v, const char *mount, const char *mroot)
{
	h->version = v;
	snprintf(h->mount, sizeof(h->mount), "%s", mount);
	h->emulated = !is_cgroupfs(mount);
	(void)mroot;
}

static int from_mountinfo(struct cg_hier *h, char *mroot, size_t mrlen)
{
	char path[CG_PATHLEN], line[4096];
	if (sysroot_path(path, sizeof(path), "/proc/self/mountinfo"))
		return -1;
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char v2mount[CG_PATHLEN] = "", v2root[CG_PATHLEN] = "";
	int rc = -1;
	while (fgets(line, sizeof(line), f)) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
		char *f_root = NULL, *f_mnt = NULL, *fstype = NULL, *super = NULL, *save = NULL;
		int i = 0;
		bool dash = false;
		for (char *t = strtok_r(line, " \n", &save); t; t = strtok_r(NULL, " \n", &save), i++) {
			if (i == 3)
				f_root = t;
			else if (i == 4)
				f_mnt = t;
			else if (!dash && i > 5 && strcmp(t, "-") == 0) {
				dash = true;
				fstype = strtok_r(NULL, " \n", &save);
				strtok_r(NULL, " \n", &save); /* source */
				super = strtok_r(NULL, " \n", &save);
				break;
			}
		}
		if (!f_root || !f_mnt || !fstype)
			continue;
		unescape(f_mnt);
		unescape(f_root);
		char full[CG_PATHLEN];
		if (snprintf(full, sizeof(full), "%s%s", sysroot(), f_mnt) >= (int)sizeof(full))
			continue;
		if (strcmp(fstype, "cgroup") == 0 && super && has_token(super, "cpu", ",")) {
			found(h, CG_V1, full, f_root);
			snprintf(mroot, mrlen, "%s", f_root);
			rc = 0;
			break;
		}
		if (strcmp(fstype, "cgroup2") == 0 && !v2mount[0] && v2_has_cpu(full)) {
			snprintf(v2mount, sizeof(v2mount), "%s", full);
			snprintf(v2root, sizeof(v2root), "%s", f_root);
		}
	}
	fclose(f);
	if (rc && v2mount[0]) {
		found(h, CG_V2, v2mount, v2root);
		snprintf(mroot, mrlen, "%s", v2root);
		rc = 0;
	}
	return rc;
}

static int from_usual_places(struct cg_hier *h)
{
	static const char *const v1[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct",
					 "/sys/fs/cgroup/cpuacct,cpu"};
	static const char *const v2[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
	char p[CG_PATHLEN], f[CG_PATHLEN + 32];
	for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++) {
		if (sysroot_path(p, sizeof(p), "%s", v1[i]))
			continue;
		snprintf(f, sizeof(f), "%s/cpu.cfs_period_us", p);
		if (sys_exists(f)) {
			found(h, CG_V1, p, "/");
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(v2) / sizeof(v2[0]); i++) {
		if (sysroot_path(p, sizeof(p), "%s", v2[i]) == 0 && v2_has_cpu(p)) {
			found(h, CG_V2, p, "/");
			return 0;
		}
	}
	return -1;
}

/* The caller's cgroup in the hierarchy found: the "cpu" line (v1) or the "0::" line (v2). */
static void find_self(struct cg_hier *h, const char *mroot)
{
	char path[CG_PATHLEN], line[4096];
	snprintf(h->self, sizeof(h->self), "/");
	if (sysroot_path(path, sizeof(path), "/proc/self/cgroup"))
		return;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		const char *ctrls = c1 + 1, *cg = c2 + 1;
		bool match = h->version == CG_V1 ? has_token(ctrls, "cpu", ",")
						 : (strncmp(line, "0", 1) == 0 && !*ctrls);
		if (!match)
			continue;
		/* Inside a container the mount shows only a subtree: strip its root. */
		size_t rl = strlen(mroot);
		if (rl > 1 && strncmp(cg, mroot, rl) == 0 && (cg[rl] == '/' || !cg[rl]))
			cg += rl;
		snprintf(h->self, sizeof(h->self), "%s", *cg ? cg : "/");
		break;
	}
	fclose(f);
}

int cgroup_detect(struct cg_hier *h, struct err *e)
{
	char mroot[CG_PATHLEN] = "/";
	memset(h, 0, sizeof(*h));
	if (from_mountinfo(h, mroot, sizeof(mroot)) && from_usual_places(h)) {
		h->version = CG_NONE;
		snprintf(h->why, sizeof(h->why),
			 "no cgroup hierarchy with the cpu controller (neither a v1 \"cpu\" mount nor "
			 "\"cpu\" in a cgroup2 cgroup.controllers)");
		return 0;
	}
	find_self(h, mroot);
	(void)e;
	return 0;
}

const char *cgroup_procs_file(const struct cg_hier *h, bool thread)
{
	if (!thread)
		return "cgroup.procs";
	return h->version == CG_V1 ? "tasks" : "cgroup.threads";
}

/* What the kernel creates in a new cpu cgroup, for the emulated (test) tree. */
struct emu_file {
	const char *name, *v1, *v2;
};
static const struct emu_file emu_files[] = {
	{"cgroup.procs", "", ""},
	{"cgroup.threads", NULL, ""},
	{"cgroup.type", NULL, "domain"},
	{"cgroup.subtree_control", NULL, ""},
	{"cgroup.controllers", NULL, "cpu"},
	{"tasks", "", NULL},
	{"cpu.cfs_quota_us", "-1", NULL},
	{"cpu.cfs_period_us", "100000", NULL},
	{"cpu.cfs_burst_us", "0", NULL},
	{"cpu.shares", "1024", NULL},
	{"cpu.max", NULL, "max 100000"},
	{"cpu.max.burst", NULL, "0"},
	{"cpu.weight", NULL, "100"},
	{"cpu.idle", "0", "0"},
	{"cpu.rt_runtime_us", "0", NULL},
	{"cpu.rt_period_us", "1000000", NULL},
	{"cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\nnr_bursts 0\nburst_time 0\n",
	 "usage_usec 0\nuser_usec 0\nsystem_usec 0\nnr_periods 0\nnr_throttled 0\n"
	 "throttled_usec 0\nnr_bursts 0\nburst_usec 0\n"},
};

static int emulate_mkdir(const char *dir, enum cg_version v, struct err *e)
{
	char p[CG_PATHLEN + 64];
	for (size_t i = 0; i < sizeof(emu_files) / sizeof(emu_files[0]); i++) {
		const char *val = v == CG_V1 ? emu_files[i].v1 : emu_files[i].v2;
		if (!val)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, emu_files[i].name);
		/* a new directory of ours: every file is new, never one planted or linked */
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val)) {
			if (fd >= 0)
				close(fd);
			return err_set(e, EXIT_RUNTIME, "cgroup: cannot create %s: %s (emulated tree)", p,
				       strerror(errno));
		}
		close(fd);
	}
	return 0;
}

static int ensure_cpu_in_subtree(const struct cg_hier *h, const char *parent, struct err *e)
{
	char p[CG_PATHLEN + 64], buf[512];
	snprintf(p, sizeof(p), "%s/cgroup.controllers", parent);
	if (sys_read(p, buf, sizeof(buf), NULL, e))
		return -1;
	if (!has_token(buf, "cpu", " "))
		return err_set(e, EXIT_RUNTIME,
			       "cgroup: the cpu controller is not available in %s (enable +cpu in the "
			       "cgroup.subtree_control of its parent, or use the hierarchy root)", parent);
	snprintf(p, sizeof(p), "%s/cgroup.subtree_control", parent);
	if (sys_read(p, buf, sizeof(buf), NULL, e))
		return -1;
	if (has_token(buf, "cpu", " "))
		return 0;
	if (journal_note_write("cgroup.subtree_control", p, "-cpu", e))
		return -1;
	if (sys_write(p, "+cpu", NULL, e)) {
		err_prefix(e, "cgroup");
		return -1;
	}
	(void)h;
	return 0;
}

int cgroup_parent_path(const struct cg_hier *h, enum cg_parent where, char *buf, size_t len)
{
	const char *rel = where == CG_AT_SELF && strcmp(h->self, "/") ? h->self : "";
	return snprintf(buf, len, "%s%s", h->mount, rel) >= (int)len ? -1 : 0;
}

int cgroup_can_create(const struct cg_hier *h, enum cg_parent where, struct err *why)
{
	if (h->version == CG_NONE)
		return err_set(why, EXIT_RUNTIME, "%s", h->why);
	char parent[CG_PATHLEN * 2];
	cgroup_parent_path(h, where, parent, sizeof(parent));
	if (access(parent, W_OK))
		return err_set(why, EXIT_RUNTIME, "cannot create a cgroup in %s (%s)", parent,
			       sys_errno_hint(errno, parent));
	return 0;
}

/* An existing cgroup at irt's name must be its own: where another user may make cgroups (a
 * subtree delegated to them, --cgroup-under self), one they made under irt-PID-ROLE would get
 * root's tasks and knob values. -1 with e set when it is someone else's. */
static int foreign_cgroup(const char *path, struct err *e)
{
	struct stat st;
	char why[96] = "";
	if (lstat(path, &st) ? errno == ENOENT : trust_stat_ok(&st, why, sizeof(why)))
		return 0;
	return err_set(e, EXIT_USAGE, "cgroup: %s exists already, %s (irt uses only a cgroup of its own; remove it)",
	               path, why[0] ? why : strerror(errno));
}

int cgroup_create(struct cgroup *cg, const struct cg_hier *h, const char *role,
		  enum cg_parent where, struct err *e)
{
	memset(cg, 0, sizeof(*cg));
	cg->h = h;
	if (h->version == CG_NONE)
		return err_set(e, EXIT_RUNTIME, "cgroup: %s", h->why);
	if (cgroup_parent_path(h, where, cg->parent, sizeof(cg->parent)) ||
	    snprintf(cg->path, sizeof(cg->path), "%s/irt-%d-%s", cg->parent, (int)getpid(), role) >=
		    (int)sizeof(cg->path))
		return err_set(e, EXIT_RUNTIME, "cgroup: path too long under %s", cg->parent);
	if (h->version == CG_V2 && ensure_cpu_in_subtree(h, cg->parent, e))
		return -1;
	if (foreign_cgroup(cg->path, e) ||   /* before the journal would remove it as irt's */
	    journal_note_cgroup(cg->path, cgroup_procs_file(h, h->version == CG_V1), h->emulated, e))
		return -1;
	/* The kernel's cgroupfs holds only cgroups; in a fake tree an existing name could be
	 * anything (a link elsewhere), so there irt only ever uses a directory it just made. */
	bool made = mkdir(cg->path, 0755) == 0;
	if (!made && (errno != EEXIST || h->emulated)) {
		int saved = errno;
		return err_set(e, EXIT_RUNTIME, "cgroup: cannot create %s: %s (%s)", cg->path,
			       strerror(saved), saved == EEXIST ? "it exists already in the fake tree; remove it"
							       : sys_errno_hint(saved, cg->path));
	}
	if (!made && foreign_cgroup(cg->path, e))   /* made since it looked */
		return -1;
	if (h->emulated && emulate_mkdir(cg->path, h->version, e))
		return -1;
	return 0;
}

int cgroup_move(const struct cgroup *cg, pid_t id, bool thread, struct err *e)
{
	char p[CG_PATHLEN + 32], v[32];
	int errnum = 0;
	snprintf(p, sizeof(p), "%s/%s", cg->path, cgroup_procs_file(cg->h, thread));
	snprintf(v, sizeof(v), "%d", (int)id);
	if (sys_write(p, v, &errnum, NULL) == 0)
		return 0;
	const char *hint = sys_errno_hint(errnum, p);
	if (errnum == EINVAL && cg->h->version == CG_V1)
		hint = "a realtime task needs cpu.rt_runtime_us > 0 in the cgroup (CONFIG_RT_GROUP_SCHED): "
		       "set cgroup.rt_runtime";
	else if (errnum == EOPNOTSUPP && thread)
		hint = "cgroup v2 moves single threads only into threaded cgroups; move the process";
	else if (errnum == ESRCH)
		hint = "no such task";
	return err_set(e, EXIT_RUNTIME, "cgroup: cannot move %s %d into %s: %s (%s)",
		       thread ? "thread" : "process", (int)id, cg->path, strerror(errnum), hint);
}

int cgroup_set(const struct cgroup *cg, const char *file, const char *value, struct err *e)
{
	char p[CG_PATHLEN + 64];
	snprintf(p, sizeof(p), "%s/%s", cg->path, file);
	return sys_write(p, value, NULL, e);
}

int cgroup_get(const struct cgroup *cg, const char *file, char *buf, size_t len, struct err *e)
{
	char p[CG_PATHLEN + 64];
	snprintf(p, sizeof(p), "%s/%s", cg->path, file);
	return sys_read(p, buf, len, NULL, e);
}

int cgroup_stat_read(const char *dir, struct cg_stat *st, struct err *e)
{
	char p[CG_PATHLEN + 32], buf[2048];
	snprintf(p, sizeof(p), "%s/cpu.stat", dir);
	if (sys_read(p, buf, sizeof(buf), NULL, e))
		return -1;
	*st = (struct cg_stat){-1, -1, -1, -1, -1, -1};
	static const struct {
		const char *key;
		size_t off;
		int64_t scale;
	} map[] = {
		{"nr_periods", offsetof(struct cg_stat, nr_periods), 1},
		{"nr_throttled", offsetof(struct cg_stat, nr_throttled), 1},
		{"throttled_time", offsetof(struct cg_stat, throttled_ns), 1},   /* v1: ns */
		{"throttled_usec", offsetof(struct cg_stat, throttled_ns), 1000},/* v2: us */
		{"nr_bursts", offsetof(struct cg_stat, nr_bursts), 1},
		{"burst_time", offsetof(struct cg_stat, burst_ns), 1},
		{"burst_usec", offsetof(struct cg_stat, burst_ns), 1000},
		{"usage_usec", offsetof(struct cg_stat, usage_ns), 1000},
	};
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		long long val;
		if (sscanf(line, "%63s %lld", key, &val) != 2)
			continue;
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (strcmp(key, map[i].key) == 0)
				*(int64_t *)((char *)st + map[i].off) = val * map[i].scale;
	}
	return 0;
}

/* --- removal, async-signal-safe --- */

static size_t cat3(char *dst, size_t len, const char *a, const char *b, const char *c)
{
	size_t n = 0;
	for (const char *s = a; s && *s && n + 1 < len; s++)
		dst[n++] = *s;
	for (const char *s = b; s && *s && n + 1 < len; s++)
		dst[n++] = *s;
	for (const char *s = c; s && *s && n + 1 < len; s++)
		dst[n++] = *s;
	dst[n] = 0;
	return n;
}

/* Writes every id in dir/procs to parent/procs, one write per id as the kernel wants.
 * Returns how many ids were seen. */
static int move_tasks_up(const char *dir, const char *parent, const char *procs, bool emulated)
{
	char from[CG_PATHLEN + 32], to[CG_PATHLEN + 32], buf[4096], id[24];
	cat3(from, sizeof(from), dir, "/", procs);
	cat3(to, sizeof(to), parent, "/", procs);
	int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return 0;
	int out = open(to, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (emulated ? O_APPEND : 0));
	int seen = 0;
	size_t idn = 0;
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i <= n; i++) {
			char c = i < n ? buf[i] : ' ';
			if (c >= '0' && c <= '9') {
				if (idn + 2 < sizeof(id))
					id[idn++] = c;
				continue;
			}
			if (i == n)
				break; /* an id may continue in the next chunk */
			if (idn && out >= 0) {
				id[idn++] = '\n';
				if (write(out, id, idn) < 0) {
					/* the task exited meanwhile: nothing to move */
				}
				seen++;
			}
			idn = 0;
		}
	}
	if (idn && out >= 0) {
		id[idn++] = '\n';
		if (write(out, id, idn) < 0) {
		}
		seen++;
	}
	close(in);
	if (out >= 0)
		close(out);
	if (emulated) {
		/* the kernel empties the list as tasks move; the test tree has to be told */
		int fd = open(from, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	return seen;
}

int cgroup_remove_dir(const char *dir, const char *procs, bool emulated)
{
	char parent[CG_PATHLEN];
	size_t n = cat3(parent, sizeof(parent), dir, NULL, NULL);
	while (n > 0 && parent[n - 1] != '/')
		n--;
	if (n <= 1)
		return EINVAL;
	parent[n - 1] = 0;

	int err = 0;
	for (int attempt = 0; attempt < 100; attempt++) {
		if (access(dir, F_OK) != 0)
			return 0;
		move_tasks_up(dir, parent, procs, emulated);
		if (emulated) {
			char p[CG_PATHLEN + 64];
			for (size_t i = 0; i < sizeof(emu_files) / sizeof(emu_files[0]); i++) {
				cat3(p, sizeof(p), dir, "/", emu_files[i].name);
				unlink(p);
			}
		}
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		err = errno;
		if (err != EBUSY)
			return err;
		/* tasks still moving or exiting */
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return err;
}

int cgroup_remove(struct cgroup *cg, struct err *e)
{
	if (!cg->path[0])
		return 0;
	int rc = cgroup_remove_dir(cg->path, cgroup_procs_file(cg->h, cg->h->version == CG_V1),
				   cg->h->emulated);
	if (rc)
		return err_set(e, EXIT_RUNTIME, "cgroup: cannot remove %s: %s (%s)", cg->path,
			       strerror(rc), sys_errno_hint(rc, cg->path));
	cg->path[0] = 0;
	return 0;
}

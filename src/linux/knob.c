/* The knob registry (knob.h): value syntax, the system, cgroup and thread knobs, the table and
 * the API. The power management and SMT knobs are in knob_power.c. */
#include "linux/knob_priv.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "linux/conditions.h"
#include "linux/journal.h"
#include "linux/sysfile.h"
#include "opt.h"
#include "units.h"
#include "util.h"

#define US NSEC_PER_USEC
#define MS NSEC_PER_MSEC
#define SEC NSEC_PER_SEC

/* ------------------------------------------------------------------ values */

bool knob_bare_int(const char *s, int64_t *v)
{
	return units_parse_int(s, v) == 0;
}

static const char *accepts(const struct knob *k, char *buf, size_t len)
{
	char lo[32], hi[32];
	switch (k->type) {
	case KT_BOOL:
		snprintf(buf, len, "0 or 1");
		break;
	case KT_INT:
		snprintf(buf, len, "a whole number from %" PRId64 " to %" PRId64, k->min, k->max);
		break;
	case KT_DURATION:
		units_format_duration(lo, sizeof(lo), k->min);
		units_format_duration(hi, sizeof(hi), k->max);
		snprintf(buf, len, "a duration from %s to %s, or a bare number of %s%s", lo, hi, k->unit,
			 k->unlimited ? ", or max" : "");
		break;
	case KT_CHOICE:
		snprintf(buf, len, "a name");
		break;
	}
	return buf;
}

int knob_parse_value(const struct knob *k, const char *value, int64_t *v, struct err *e)
{
	char acc[160];
	if (k->scope == KNOB_THREAD) {
		/* The probe's option is the single truth for per-thread values. */
		const struct opt *o = opt_find(k->file);
		struct probe_cfg scratch;
		memset(&scratch, 0, sizeof(scratch));
		if (!o || opt_set(o, &scratch, value, k->name, e))
			return -1;
		const char *field = (const char *)&scratch + o->offset;
		*v = o->type == OPT_ENUM ? *(const int *)field : *(const int64_t *)field;
		return 0;
	}
	if (k->unlimited && (strcmp(value, "max") == 0 || strcmp(value, "-1") == 0)) {
		*v = -1;
		return 0;
	}
	int64_t x;
	switch (k->type) {
	case KT_BOOL:
		if (strcmp(value, "0") && strcmp(value, "1"))
			return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected 0 or 1)", k->name, value);
		*v = value[0] == '1';
		return 0;
	case KT_INT:
		if (!knob_bare_int(value, &x))
			return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected %s)", k->name, value,
				       accepts(k, acc, sizeof(acc)));
		break;
	case KT_DURATION:
		if (knob_bare_int(value, &x)) {
			if (x > INT64_MAX / k->scale || x < -(INT64_MAX / k->scale))
				return err_set(e, EXIT_USAGE, "%s: '%s' is out of range (expected %s)", k->name,
					       value, accepts(k, acc, sizeof(acc)));
			x *= k->scale;
		} else if (units_parse_duration(value, &x)) {
			return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected %s)", k->name, value,
				       accepts(k, acc, sizeof(acc)));
		} else if (x % k->scale) {
			return err_set(e, EXIT_USAGE, "%s: '%s' is not a whole number of %s (the kernel keeps %s)",
				       k->name, value, k->unit, k->unit);
		}
		break;
	default:
		return err_set(e, EXIT_USAGE, "%s: cannot parse '%s'", k->name, value);
	}
	if (x < k->min || x > k->max)
		return err_set(e, EXIT_USAGE, "%s: '%s' is out of range (expected %s)", k->name, value,
			       accepts(k, acc, sizeof(acc)));
	*v = x;
	return 0;
}

char *knob_format_value(const struct knob *k, int64_t v, char *buf, size_t len)
{
	if (k->scope == KNOB_THREAD) {
		const struct opt *o = opt_find(k->file);
		struct probe_cfg scratch;
		memset(&scratch, 0, sizeof(scratch));
		char *field = (char *)&scratch + o->offset;
		if (o->type == OPT_ENUM)
			*(int *)field = (int)v;
		else
			*(int64_t *)field = v;
		return opt_format(o, &scratch, buf, len);
	}
	if (v == -1 && k->unlimited)
		snprintf(buf, len, "max");
	else if (k->type == KT_DURATION)
		units_format_duration(buf, len, v);
	else
		snprintf(buf, len, "%" PRId64, v);
	return buf;
}

/* The number a kernel file holds for a base-unit value. */
static void native(const struct knob *k, int64_t v, bool v2, char *buf, size_t len)
{
	if (v == -1 && k->unlimited)
		snprintf(buf, len, "%s", v2 ? "max" : "-1");
	else
		snprintf(buf, len, "%" PRId64, k->type == KT_DURATION ? v / k->scale : v);
}

/* A kernel file's number (or "max") in base units, formatted. */
static int from_native(const struct knob *k, const char *s, char *buf, size_t len, struct err *e)
{
	int64_t x;
	if (strcmp(s, "max") == 0 && k->unlimited)
		x = -1;
	else if (!knob_bare_int(s, &x))
		return err_set(e, EXIT_RUNTIME, "%s: unexpected value '%s' in the kernel file", k->name, s);
	else if (!(x == -1 && k->unlimited) && k->type == KT_DURATION)
		x *= k->scale;
	knob_format_value(k, x, buf, len);
	return 0;
}

/* ------------------------------------------------------------------ privileges */

#define CAP_SYS_NICE_BIT 23

/* fifo/rr at prio: CAP_SYS_NICE, or RLIMIT_RTPRIO up to it */
static bool may_rt(int64_t prio)
{
	struct rlimit rl;
	return sys_has_cap(CAP_SYS_NICE_BIT) ||
	       (getrlimit(RLIMIT_RTPRIO, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || (int64_t)rl.rlim_cur >= prio));
}

/* nice below 0: CAP_SYS_NICE, or RLIMIT_NICE at least 20 - nice */
static bool may_nice(int64_t nice)
{
	struct rlimit rl;
	return nice >= 0 || sys_has_cap(CAP_SYS_NICE_BIT) ||
	       (getrlimit(RLIMIT_NICE, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || (int64_t)rl.rlim_cur >= 20 - nice));
}

int knob_thread_permitted(int policy, int64_t prio, int64_t nice, struct err *e)
{
	if ((policy == POL_FIFO || policy == POL_RR) && !may_rt(prio))
		return err_set(e, EXIT_RUNTIME, "--policy %s --prio %lld needs root (or CAP_SYS_NICE, or RLIMIT_RTPRIO %lld: "
		               "ulimit -r)", policy == POL_FIFO ? "fifo" : "rr", (long long)prio, (long long)prio);
	if (policy == POL_DEADLINE && !sys_has_cap(CAP_SYS_NICE_BIT))
		return err_set(e, EXIT_RUNTIME, "--policy deadline needs root (or CAP_SYS_NICE)");
	/* nice matters only to the fair policies (the kernel checks it only for them) */
	if (policy != POL_FIFO && policy != POL_RR && policy != POL_DEADLINE && !may_nice(nice))
		return err_set(e, EXIT_RUNTIME, "--nice %lld needs root (or CAP_SYS_NICE, or RLIMIT_NICE %lld: ulimit -e)",
		               (long long)nice, 20 - (long long)nice);
	return 0;
}

/* ------------------------------------------------------------------ system knobs */

int knob_sys_path(const struct knob *k, char *buf, size_t len)
{
	return sysroot_path(buf, len, "%s", k->file);
}

/* Can irt read and write path? */
int knob_check_file(const struct knob *k, const char *path, struct err *why)
{
	char buf[VALLEN];
	int errnum = 0;
	if (!sys_exists(path))
		return err_set(why, EXIT_RUNTIME, "%s is not present on this kernel", path);
	if (sys_read(path, buf, sizeof(buf), &errnum, NULL))
		return err_set(why, EXIT_RUNTIME, "reading %s fails: %s (%s)", path, strerror(errnum),
			       sys_errno_hint(errnum, path));
	if (access(path, W_OK))
		return err_set(why, EXIT_RUNTIME, "%s is not writable (%s)", path,
			       sys_errno_hint(errno, path));
	(void)k;
	return 0;
}

static int sysctl_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	char path[CG_PATHLEN];
	knob_sys_path(k, path, sizeof(path));
	(void)c;
	return knob_check_file(k, path, why);
}

static int file_read(const struct knob *k, const char *path, char *buf, size_t len, struct err *e)
{
	char raw[VALLEN];
	if (sys_read(path, raw, sizeof(raw), NULL, e))
		return -1;
	return from_native(k, raw, buf, len, e);
}

static int sysctl_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	char path[CG_PATHLEN];
	knob_sys_path(k, path, sizeof(path));
	(void)c;
	return file_read(k, path, buf, len, e);
}

static int plain_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	int64_t v;
	(void)c;
	return knob_parse_value(k, value, &v, e);
}

/* The other half of the RT pair when a setting's turn comes: what an earlier setting of the
 * command writes, else the file; false when it cannot be read (the kernel will say). */
static bool rt_other(struct knob_ctx *c, bool want_period, int64_t *ns)
{
	char path[CG_PATHLEN];
	int64_t us;
	if (want_period ? c->rt_period.set : c->rt_runtime.set) {
		*ns = want_period ? c->rt_period.ns : c->rt_runtime.ns;
		return true;
	}
	if (sysroot_path(path, sizeof(path), want_period ? "/proc/sys/kernel/sched_rt_period_us"
							  : "/proc/sys/kernel/sched_rt_runtime_us") ||
	    sys_read_int(path, &us, NULL, NULL))
		return false;
	*ns = us < 0 ? -1 : us * US;
	return true;
}

/* The kernel's to_ratio(): a realtime share of the CPU in units of 2^-20 (unlimited: all of it). */
static uint64_t rt_share(int64_t runtime_ns, int64_t period_ns)
{
	if (runtime_ns < 0)
		return 1ull << 20;
	return period_ns > 0 ? ((uint64_t)runtime_ns << 20) / (uint64_t)period_ns : 0;
}

/* With RT group scheduling (a v1 cpu hierarchy whose root has cpu.rt_runtime_us) the kernel
 * refuses a global realtime share below any cpu cgroup's, and the root group's is the largest
 * (tg_rt_schedulable: EINVAL). irt writes no cgroup it did not create, so it says which file
 * to lower, before anything changes. */
static int rt_group_check(const struct knob *k, struct knob_ctx *c, const char *value, int64_t runtime,
			  int64_t period, struct err *e)
{
	char rp[CG_PATHLEN + 32], pp[CG_PATHLEN + 32], a[32], b[32], gr[32], gp[32];
	int64_t grt, gper;
	if (c->hier.version != CG_V1 || runtime < 0 || period <= 0)
		return 0;
	snprintf(rp, sizeof(rp), "%s/cpu.rt_runtime_us", c->hier.mount);
	snprintf(pp, sizeof(pp), "%s/cpu.rt_period_us", c->hier.mount);
	if (sys_read_int(rp, &grt, NULL, NULL) || sys_read_int(pp, &gper, NULL, NULL) || gper <= 0 ||
	    rt_share(runtime, period) >= rt_share(grt < 0 ? -1 : grt * US, gper * US))
		return 0;
	return err_set(e, EXIT_USAGE,
		       "%s: '%s' gives realtime tasks %s of every %s, less than the root cpu cgroup's %s of %s "
		       "(%s): with RT group scheduling the kernel refuses that; lower that file first (irt "
		       "changes no cgroup it did not create)",
		       k->name, value, units_format_duration(a, sizeof(a), runtime),
		       units_format_duration(b, sizeof(b), period),
		       grt < 0 ? "max" : units_format_duration(gr, sizeof(gr), grt * US),
		       units_format_duration(gp, sizeof(gp), gper * US), rp);
}

static int rt_runtime_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	int64_t v, period;
	if (knob_parse_value(k, value, &v, e))
		return -1;
	if (v == -1 && !c->allow_rt_unthrottled)
		return err_set(e, EXIT_USAGE,
			       "%s: '%s' turns RT throttling off, so a runaway realtime task can starve the "
			       "system for good; irt does not do that on its own (pass --allow-rt-unthrottled)",
			       k->name, value);
	if (v == -1 || !rt_other(c, true, &period))   /* one read of the other sysctl */
		return 0;
	if (v > period) {
		char p[32];
		return err_set(e, EXIT_USAGE, "%s: '%s' exceeds kernel.sched_rt_period_us (%s)", k->name, value,
			       units_format_duration(p, sizeof(p), period));
	}
	return rt_group_check(k, c, value, v, period, e);
}

/* The kernel refuses a period below the runtime (EINVAL): said before anything changes. */
static int rt_period_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	int64_t v, runtime;
	if (knob_parse_value(k, value, &v, e))
		return -1;
	if (!rt_other(c, false, &runtime))   /* one read of the other sysctl */
		return 0;
	if (runtime != -1 && v < runtime) {
		char r[32];
		return err_set(e, EXIT_USAGE, "%s: '%s' is below kernel.sched_rt_runtime_us (%s; lower the runtime "
			       "first)", k->name, value,
			       units_format_duration(r, sizeof(r), runtime));
	}
	return rt_group_check(k, c, value, runtime, v, e);
}

void knob_plan(const struct knob *k, struct knob_ctx *c, const char *value)
{
	int64_t v;
	bool runtime = strcmp(k->name, "kernel.sched_rt_runtime_us") == 0;
	if ((runtime || strcmp(k->name, "kernel.sched_rt_period_us") == 0) && knob_parse_value(k, value, &v, NULL) == 0) {
		if (runtime)
			c->rt_runtime.set = true, c->rt_runtime.ns = v;
		else
			c->rt_period.set = true, c->rt_period.ns = v;
	}
}

void knob_plan_done(struct knob_ctx *c)
{
	c->rt_runtime.set = c->rt_period.set = false;
}

/* Journals the original of path, then writes the new value. */
int knob_write_journaled(const struct knob *k, const char *path, const char *val, struct err *e)
{
	char orig[VALLEN];
	int errnum = 0;
	if (sys_read(path, orig, sizeof(orig), NULL, e) || journal_note_write(k->name, path, orig, e))
		return -1;
	if (sys_write(path, val, &errnum, NULL) == 0)
		return 0;
	journal_write_failed(path);
	const char *hint = sys_errno_hint(errnum, path);
	if (errnum == EINVAL && strstr(path, "sched_rt_"))
		hint = "the runtime must not exceed the period, must leave room for the bandwidth "
		       "reserved by SCHED_DEADLINE tasks, and with RT group scheduling must give no "
		       "cpu cgroup's cpu.rt_runtime_us a larger share";
	else if (errnum == EINVAL && strstr(path, "fair_server"))
		hint = "the runtime must not exceed the server's period";
	return err_set(e, EXIT_RUNTIME, "%s: cannot write '%s' to %s: %s (%s)", k->name, val, path,
		       strerror(errnum), hint);
}

static int sysctl_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff,
			size_t len, struct err *e)
{
	char path[CG_PATHLEN], val[VALLEN];
	int64_t v;
	if (knob_parse_value(k, value, &v, e))
		return -1;
	native(k, v, false, val, sizeof(val));
	knob_sys_path(k, path, sizeof(path));
	if (knob_write_journaled(k, path, val, e))
		return -1;
	return eff ? sysctl_read(k, c, eff, len, e) : 0;
}

static const struct knob_ops sysctl_ops = {
	.available = sysctl_available, .read = sysctl_read,
	.validate = plain_validate, .apply = sysctl_apply,
};
static const struct knob_ops rt_runtime_ops = {
	.available = sysctl_available, .read = sysctl_read,
	.validate = rt_runtime_validate, .apply = sysctl_apply,
};

static const struct knob_ops rt_period_ops = {
	.available = sysctl_available, .read = sysctl_read,
	.validate = rt_period_validate, .apply = sysctl_apply,
};

/* debugfs: the same files, but the tree may be unmounted or locked down. */
static int debugfs_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	char dbg[CG_PATHLEN], sched[CG_PATHLEN], path[CG_PATHLEN];
	sysroot_path(dbg, sizeof(dbg), "/sys/kernel/debug");
	sysroot_path(sched, sizeof(sched), "/sys/kernel/debug/sched");
	knob_sys_path(k, path, sizeof(path));
	if (!sys_exists(sched)) {
		DIR *d = opendir(dbg);
		int entries = 0;
		struct dirent *de;
		while (d && (de = readdir(d)))
			entries += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
		if (d)
			closedir(d);
		if (!d && (errno == EACCES || errno == EPERM))
			return err_set(why, EXIT_RUNTIME, "%s: %s", dbg, sys_errno_hint(errno, dbg));
		if (!entries)
			return err_set(why, EXIT_RUNTIME,
				       "debugfs is not mounted at %s (mount -t debugfs none %s)", dbg, dbg);
		return err_set(why, EXIT_RUNTIME, "debugfs has no sched/ (kernel without CONFIG_SCHED_DEBUG?)");
	}
	(void)c;
	return knob_check_file(k, path, why);
}

static const struct knob_ops debugfs_ops = {
	.available = debugfs_available, .read = sysctl_read,
	.validate = plain_validate, .apply = sysctl_apply,
};

/* ".../cpu10/runtime" after ".../cpu9/runtime": stable journals and messages */
static int by_cpu_number(const void *a, const void *b)
{
	const char *pa = strstr((const char *)a, "/fair_server/cpu"), *pb = strstr((const char *)b, "/fair_server/cpu");
	long x = pa ? strtol(pa + 16, NULL, 10) : 0, y = pb ? strtol(pb + 16, NULL, 10) : 0;
	return (x > y) - (x < y);
}

/* sched/fair_server/cpuN/runtime: one file per CPU, all set alike. */
static int fair_server_files(const struct knob *k, char (*paths)[CG_PATHLEN], int max, struct err *e)
{
	char dir[CG_PATHLEN];
	sysroot_path(dir, sizeof(dir), "%s", k->file);
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, EXIT_RUNTIME, "cannot list %s: %s (%s)", dir, strerror(errno),
			       sys_errno_hint(errno, dir));
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "cpu", 3) != 0)
			continue;
		if (snprintf(paths[n], CG_PATHLEN, "%s/%s/runtime", dir, de->d_name) < CG_PATHLEN)
			n++;
	}
	closedir(d);
	qsort(paths, (size_t)n, sizeof(paths[0]), by_cpu_number);
	if (!n)
		return err_set(e, EXIT_RUNTIME, "no cpu*/runtime in %s", dir);
	return n;
}

static int fair_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	char sched[CG_PATHLEN];
	sysroot_path(sched, sizeof(sched), "/sys/kernel/debug/sched");
	if (!sys_exists(sched))
		return debugfs_available(k, c, why);
	static char paths[MAX_CPUS][CG_PATHLEN];
	int n = fair_server_files(k, paths, MAX_CPUS, why);
	return n < 0 ? -1 : knob_check_file(k, paths[0], why);
}

int knob_read_per_cpu(const struct knob *k, char (*paths)[CG_PATHLEN], int n, bool native, char *buf, size_t len,
                      struct err *e)
{
	char first[VALLEN], other[VALLEN];
	if (native ? file_read(k, paths[0], first, sizeof(first), e) : sys_read(paths[0], first, sizeof(first), NULL, e))
		return -1;
	for (int i = 1; i < n; i++) {
		if (native ? file_read(k, paths[i], other, sizeof(other), e) : sys_read(paths[i], other, sizeof(other), NULL, e))
			return -1;
		if (strcmp(first, other)) {
			snprintf(buf, len, "%s (cpu-dependent)", first);
			return 0;
		}
	}
	snprintf(buf, len, "%s", first);
	return 0;
}

static int fair_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	int n = fair_server_files(k, paths, MAX_CPUS, e);
	(void)c;
	return n < 0 ? -1 : knob_read_per_cpu(k, paths, n, true, buf, len, e);
}

static int fair_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff,
		      size_t len, struct err *e)
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	char val[VALLEN];
	int64_t v;
	if (knob_parse_value(k, value, &v, e))
		return -1;
	native(k, v, false, val, sizeof(val));
	int n = fair_server_files(k, paths, MAX_CPUS, e);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (knob_write_journaled(k, paths[i], val, e))
			return -1;
	return eff ? fair_read(k, c, eff, len, e) : 0;
}

/* <sysroot>/sys/kernel/debug/sched/fair_server/cpuN/runtime */
static bool fair_owns(const struct knob *k, const char *path)
{
	char dir[CG_PATHLEN];
	sysroot_path(dir, sizeof(dir), "%s/cpu", k->file);
	size_t n = strlen(dir);
	if (strncmp(path, dir, n))
		return false;
	const char *c = path + n;
	if (*c < '0' || *c > '9')
		return false;
	while (*c >= '0' && *c <= '9')
		c++;
	return strcmp(c, "/runtime") == 0;
}

static const struct knob_ops fair_ops = {
	.available = fair_available, .read = fair_read,
	.validate = plain_validate, .apply = fair_apply, .owns = fair_owns,
};

/* ------------------------------------------------------------------ cgroup knobs */

static const char *cg_file(const struct knob *k, const struct knob_ctx *c)
{
	return c->hier.version == CG_V2 ? k->file_v2 : c->hier.version == CG_V1 ? k->file : NULL;
}

/* weight is v2's spelling of v1's shares, on another scale */
static int no_such_file(const struct knob *k, const struct knob_ctx *c, struct err *e)
{
	const char *alt = strcmp(k->name, "cgroup.weight") == 0   ? "cgroup.shares"
			  : strcmp(k->name, "cgroup.shares") == 0 ? "cgroup.weight"
								  : NULL;
	return err_set(e, EXIT_RUNTIME, "cgroup v%d has no %s file%s%s%s", (int)c->hier.version,
		       c->hier.version == CG_V1 ? k->file_v2 : k->file, alt ? " (use " : "", alt ? alt : "",
		       alt ? ")" : "");
}

static int cg_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	if (c->hier.version == CG_NONE)
		return err_set(why, EXIT_RUNTIME, "%s", c->hier.why);
	if (!cg_file(k, c))
		return no_such_file(k, c, why);
	if (strcmp(k->name, "cgroup.rt_runtime") == 0) {
		char rt[CG_PATHLEN + 32];
		snprintf(rt, sizeof(rt), "%s/cpu.rt_runtime_us", c->hier.mount);
		if (!sys_exists(rt))
			return err_set(why, EXIT_RUNTIME, "the kernel has no RT group scheduling "
				       "(CONFIG_RT_GROUP_SCHED): realtime tasks join cgroups freely");
	}
	return cgroup_can_create(&c->hier, c->cg_parent, why);
}

/* The kernel's value in a new cgroup. */
static const char *cg_default(const struct knob *k, const struct knob_ctx *c)
{
	if (strcmp(k->name, "cgroup.quota") == 0)
		return "max";
	if (strcmp(k->name, "cgroup.period") == 0)
		return "100ms";
	if (strcmp(k->name, "cgroup.weight") == 0)
		return "100";
	if (strcmp(k->name, "cgroup.shares") == 0)
		return "1024";
	if (strcmp(k->name, "cgroup.rt_runtime") == 0)
		return "0ns";
	(void)c;
	return "0";
}

/* Field `field` of a space-separated kernel file value. */
static int nth_field(const char *s, int field, char *out, size_t len)
{
	for (int i = 0; i < field; i++) {
		s += strcspn(s, " ");
		s += strspn(s, " ");
	}
	size_t n = strcspn(s, " ");
	if (!n || n >= len)
		return -1;
	memcpy(out, s, n);
	out[n] = 0;
	return 0;
}

static int cg_read_dir(const struct knob *k, const struct knob_ctx *c, const char *dir, char *buf,
		       size_t len, struct err *e)
{
	char path[CG_PATHLEN + 32], raw[VALLEN], f[VALLEN];
	snprintf(path, sizeof(path), "%s/%s", dir, cg_file(k, c));
	if (sys_read(path, raw, sizeof(raw), NULL, e))
		return -1;
	if (nth_field(raw, c->hier.version == CG_V2 ? k->field : 0, f, sizeof(f)))
		return err_set(e, EXIT_RUNTIME, "%s: unexpected content '%s'", path, raw);
	return from_native(k, f, buf, len, e);
}

/* irt's cgroup if it exists; else the cgroup irt runs in, if it has the file (the v2 root
 * has none); else the kernel's default for a new cgroup, which irt's own starts with. */
static int cg_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	if (c->hier.version == CG_NONE)
		return err_set(e, EXIT_RUNTIME, "%s", c->hier.why);
	if (!cg_file(k, c))
		return no_such_file(k, c, e);
	if (c->cg.path[0])
		return cg_read_dir(k, c, c->cg.path, buf, len, e);
	/* a new cgroup's RT budget is 0 whatever the cgroup irt runs in has (950ms in the root) */
	if (strcmp(k->name, "cgroup.rt_runtime") == 0) {
		snprintf(buf, len, "%s", cg_default(k, c));
		return 0;
	}
	char self[CG_PATHLEN * 2], path[CG_PATHLEN * 3];
	snprintf(self, sizeof(self), "%s%s", c->hier.mount, strcmp(c->hier.self, "/") ? c->hier.self : "");
	snprintf(path, sizeof(path), "%s/%s", self, cg_file(k, c));
	if (sys_exists(path))
		return cg_read_dir(k, c, self, buf, len, e);
	snprintf(buf, len, "%s", cg_default(k, c));
	return 0;
}

static int cg_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff,
		    size_t len, struct err *e)
{
	char val[VALLEN], cur[VALLEN], q[VALLEN / 2], num[VALLEN / 2];
	int64_t v;
	bool v2 = c->hier.version == CG_V2;
	if (knob_parse_value(k, value, &v, e) || knob_cgroup_ensure(c, e))
		return -1;
	native(k, v, v2, num, sizeof(num));
	snprintf(val, sizeof(val), "%s", num);
	if (v2 && k->field == 1) {
		/* cpu.max is "QUOTA PERIOD": a period is written with the quota it keeps */
		if (cgroup_get(&c->cg, k->file_v2, cur, sizeof(cur), e))
			return -1;
		if (nth_field(cur, 0, q, sizeof(q)))
			return err_set(e, EXIT_RUNTIME, "%s/%s: unexpected content '%s'", c->cg.path, k->file_v2, cur);
		snprintf(val, sizeof(val), "%s %s", q, num);
	}
	int errnum = 0;
	char path[CG_PATHLEN + 32];
	snprintf(path, sizeof(path), "%s/%s", c->cg.path, cg_file(k, c));
	if (sys_write(path, val, &errnum, NULL)) {
		const char *hint = sys_errno_hint(errnum, path);
		if (errnum == EINVAL && strcmp(k->name, "cgroup.burst") == 0)
			hint = "the burst must not exceed the quota";
		else if (errnum == EINVAL && strcmp(k->name, "cgroup.rt_runtime") == 0)
			hint = "an RT budget must fit, as a share of its period, in the parent cgroup's "
			       "cpu.rt_runtime_us beside its other children's";
		else if (errnum == EINVAL)
			hint = "the kernel rejected it: quota at least 1ms, period 1ms..1s, burst <= quota";
		return err_set(e, EXIT_RUNTIME, "%s: cannot write '%s' to %s: %s (%s)", k->name, val, path,
			       strerror(errnum), hint);
	}
	return eff ? cg_read_dir(k, c, c->cg.path, eff, len, e) : 0;
}

static const struct knob_ops cg_ops = {
	.available = cg_available, .read = cg_read,
	.validate = plain_validate, .apply = cg_apply,
};

/* A v1 cgroup's realtime budget (runtime, period) in ns: false when dir has none. */
static bool rt_budget(const char *dir, int64_t *runtime, int64_t *period)
{
	char p[CG_PATHLEN * 2 + 32];
	int64_t r, q;
	snprintf(p, sizeof(p), "%s/cpu.rt_runtime_us", dir);
	if (sys_read_int(p, &r, NULL, NULL))
		return false;
	snprintf(p, sizeof(p), "%s/cpu.rt_period_us", dir);
	if (sys_read_int(p, &q, NULL, NULL) || q <= 0)
		return false;
	*runtime = r < 0 ? -1 : r * US;
	*period = q * US;
	return true;
}

/* The share the children of parent hold but `mine` (irt's cgroup, whose budget a setting
 * replaces; "" before it exists), as the kernel sums them. */
static uint64_t rt_children_share(const char *parent, const char *mine)
{
	char dir[CG_PATHLEN * 2];
	uint64_t sum = 0;
	int64_t r, q;
	DIR *d = opendir(parent);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    snprintf(dir, sizeof(dir), "%s/%s", parent, de->d_name) >= (int)sizeof(dir))
			continue;
		if (strcmp(dir, mine) && rt_budget(dir, &r, &q))   /* a file has no budget: skipped */
			sum += rt_share(r, q);
	}
	if (d)
		closedir(d);
	return sum;
}

/* With RT group scheduling the kernel refuses a cgroup's budget whose share of its period,
 * added to its siblings', exceeds the parent's, or exceeds the global one (tg_rt_schedulable:
 * EINVAL when irt writes it, after the command started). Said before anything runs, with
 * the largest budget the parent leaves. */
static int rt_cg_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	char parent[CG_PATHLEN * 2], mx[32], per[32], pr[32], pp[32], sib[32];
	int64_t v, prt, pper, grt, gper, own;
	if (knob_parse_value(k, value, &v, e))
		return -1;
	if (c->hier.version != CG_V1)
		return 0;
	if (c->cg.path[0])
		snprintf(parent, sizeof(parent), "%s", c->cg.parent);
	else
		cgroup_parent_path(&c->hier, c->cg_parent, parent, sizeof(parent));
	/* none: no RT group scheduling (cg_available says so), or unreadable (the kernel will say) */
	if (!rt_budget(parent, &prt, &pper) || !rt_other(c, true, &gper) || !rt_other(c, false, &grt))
		return 0;
	int64_t period = gper;   /* a new cgroup's: the global one (the kernel's def_rt_bandwidth) */
	if (c->cg.path[0] && !rt_budget(c->cg.path, &own, &period))
		return 0;
	uint64_t others = rt_children_share(parent, c->cg.path), pshare = rt_share(prt, pper);
	uint64_t avail = pshare > others ? pshare - others : 0;
	if (avail > rt_share(grt, gper))
		avail = rt_share(grt, gper);
	if (v <= period && rt_share(v, period) <= avail)
		return 0;
	/* the largest runtime whose to_ratio() stays within avail, in whole µs as the file holds it */
	int64_t max = (int64_t)((((avail + 1) * (uint64_t)period - 1) >> 20) / US * US);
	if (max > period)
		max = period;
	return err_set(e, EXIT_USAGE,
		       "%s: '%s' is more realtime budget than the parent cgroup leaves: at most %s of every %s "
		       "(%s has %s of every %s, its other cgroups take %s of it; with RT group scheduling the "
		       "kernel refuses more)",
		       k->name, value, units_format_duration(mx, sizeof(mx), max),
		       units_format_duration(per, sizeof(per), period), parent,
		       prt < 0 ? "max" : units_format_duration(pr, sizeof(pr), prt),
		       units_format_duration(pp, sizeof(pp), pper),
		       units_format_duration(sib, sizeof(sib), (int64_t)((double)others * (double)pper / (1 << 20))));
}

static const struct knob_ops rt_cg_ops = {
	.available = cg_available, .read = cg_read,
	.validate = rt_cg_validate, .apply = cg_apply,
};

/* ------------------------------------------------------------------ thread knobs */

/* struct sched_attr of sched_getattr(2); glibc does not declare it everywhere. */
struct irt_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}

static int thread_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	(void)c;
	if (strcmp(k->name, "slice") == 0 && !kernel_at_least(6, 12)) {
		struct utsname u;
		uname(&u);
		return err_set(why, EXIT_RUNTIME, "custom EEVDF slices need Linux 6.12 or later (this is %s)",
			       u.release);
	}
	if (strncmp(k->name, "dl-", 3) == 0 && !sys_has_cap(CAP_SYS_NICE_BIT))
		return err_set(why, EXIT_RUNTIME, "SCHED_DEADLINE needs root (or CAP_SYS_NICE)");
	if (strcmp(k->name, "prio") == 0 && !may_rt(1))
		return err_set(why, EXIT_RUNTIME, "fifo/rr priorities need root (or CAP_SYS_NICE, or RLIMIT_RTPRIO)");
	return 0;
}

static int thread_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	struct irt_sched_attr a;
	(void)c;
	memset(&a, 0, sizeof(a));
	if (strcmp(k->name, "slack") == 0) {
		int s = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
		if (s < 0)
			return err_set(e, EXIT_RUNTIME, "%s: PR_GET_TIMERSLACK: %s", k->name, strerror(errno));
		return knob_format_value(k, s, buf, len), 0;
	}
	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0))
		return err_set(e, EXIT_RUNTIME, "%s: sched_getattr: %s", k->name, strerror(errno));
	int64_t v = 0;
	if (strcmp(k->name, "policy") == 0) {
		static const int map[] = {0 /* OTHER */, 3 /* BATCH */, 5 /* IDLE */, 1 /* FIFO */,
					  2 /* RR */, 6 /* DEADLINE */};
		v = -1;
		for (int i = 0; i < 6; i++)
			if ((uint32_t)map[i] == a.sched_policy)
				v = i;
		if (v < 0)
			return snprintf(buf, len, "policy %u", a.sched_policy), 0;
	} else if (strcmp(k->name, "prio") == 0) {
		v = a.sched_priority;
	} else if (strcmp(k->name, "nice") == 0) {
		v = a.sched_nice;
	} else if (strcmp(k->name, "slice") == 0) {
		v = a.sched_policy == 6 ? 0 : (int64_t)a.sched_runtime;
	} else if (strcmp(k->name, "dl-runtime") == 0) {
		v = a.sched_policy == 6 ? (int64_t)a.sched_runtime : 0;
	} else if (strcmp(k->name, "dl-deadline") == 0) {
		v = (int64_t)a.sched_deadline;
	} else if (strcmp(k->name, "dl-period") == 0) {
		v = (int64_t)a.sched_period;
	}
	/* The option's range may not hold what the kernel reports (a slice outside it). */
	if (k->type == KT_DURATION)
		units_format_duration(buf, len, v);
	else
		knob_format_value(k, v, buf, len);
	return 0;
}

static int thread_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	int64_t v;
	(void)c;
	if (knob_parse_value(k, value, &v, e))
		return -1;
	if (strcmp(k->name, "policy") == 0) {
		if ((v == POL_FIFO || v == POL_RR) && !may_rt(1))
			return err_set(e, EXIT_RUNTIME, "%s: %s needs root (or CAP_SYS_NICE, or RLIMIT_RTPRIO)",
				       k->name, value);
		if (v == POL_DEADLINE && !sys_has_cap(CAP_SYS_NICE_BIT))
			return err_set(e, EXIT_RUNTIME, "%s: %s needs root (or CAP_SYS_NICE)", k->name, value);
	}
	if (strcmp(k->name, "nice") == 0 && !may_nice(v))
		return err_set(e, EXIT_RUNTIME, "%s: %s needs root (or CAP_SYS_NICE, or RLIMIT_NICE)", k->name, value);
	return 0;
}

static int thread_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff,
			size_t len, struct err *e)
{
	if (!c->probe)
		return err_set(e, EXIT_USAGE, "%s: a per-thread setting: the probe applies it to itself (use "
			       "--%s with irt probe, run or sweep)", k->name, k->file);
	const struct opt *o = opt_find(k->file);
	if (opt_set(o, c->probe, value, k->name, e))
		return -1;
	if (eff)
		opt_format(o, c->probe, eff, len);
	return 0;
}

static const struct knob_ops thread_ops = {
	.available = thread_available, .read = thread_read,
	.validate = thread_validate, .apply = thread_apply,
};

/* ------------------------------------------------------------------ the table */

#define SYSCTL(n, unit, help, type, scale, min, max, unl, ops) \
	{"kernel." n, unit, help, KNOB_SYSTEM, type, scale, min, max, unl, "/proc/sys/kernel/" n, NULL, 0, ops}
#define DEBUGFS(n, file, unit, help, min, max, ops) \
	{n, unit, help, KNOB_SYSTEM, KT_DURATION, 1, min, max, false, "/sys/kernel/debug/sched/" file, NULL, 0, ops}
#define CGROUP_OPS(n, unit, help, type, scale, min, max, unl, v1, v2, field, ops) \
	{"cgroup." n, unit, help, KNOB_CGROUP, type, scale, min, max, unl, v1, v2, field, ops}
#define CGROUP(n, unit, help, type, scale, min, max, unl, v1, v2, field) \
	CGROUP_OPS(n, unit, help, type, scale, min, max, unl, v1, v2, field, &cg_ops)
#define THREAD(n, type, help) {n, "", help, KNOB_THREAD, type, 1, 0, 0, false, n, NULL, 0, &thread_ops}

const struct knob knob_table[] = {
	/* ---- system-wide: /proc/sys ---- */
	SYSCTL("sched_rr_timeslice_ms", "ms", "time slice of SCHED_RR tasks (the kernel rounds it to jiffies)",
	       KT_DURATION, MS, MS, INT32_MAX * MS, false, &sysctl_ops),
	SYSCTL("sched_rt_runtime_us", "us",
	       "CPU time realtime tasks may use per sched_rt_period_us (-1 = unthrottled: refused without "
	       "--allow-rt-unthrottled)",
	       KT_DURATION, US, 0, INT32_MAX * US, true, &rt_runtime_ops),
	SYSCTL("sched_rt_period_us", "us", "period of the realtime throttling budget", KT_DURATION, US, US,
	       INT32_MAX * US, false, &rt_period_ops),
	SYSCTL("sched_autogroup_enabled", "", "group tasks by session (setsid) for fair scheduling", KT_BOOL,
	       1, 0, 1, false, &sysctl_ops),
	/* ---- system-wide: debugfs, where writable ---- */
	DEBUGFS("sched.base_slice_ns", "base_slice_ns", "ns", "EEVDF base slice of normal tasks", 100 * US,
		SEC, &debugfs_ops),
	DEBUGFS("sched.migration_cost_ns", "migration_cost_ns", "ns",
		"a task that ran this recently is cache-hot: load balancing avoids moving it", 0, SEC,
		&debugfs_ops),
	DEBUGFS("sched.fair_server_runtime_ns", "fair_server", "ns",
		"runtime per period of the deadline server that keeps normal tasks alive under RT load "
		"(every CPU)",
		0, SEC, &fair_ops),
	/* ---- irt's own cgroup (holding the probes or the loads) ---- */
	CGROUP("quota", "us", "CPU time the cgroup may use per period (max = unlimited)", KT_DURATION, US,
	       MS, INT32_MAX * US, true, "cpu.cfs_quota_us", "cpu.max", 0),
	CGROUP("period", "us", "bandwidth period of the cgroup", KT_DURATION, US, MS, SEC, false,
	       "cpu.cfs_period_us", "cpu.max", 1),
	CGROUP("burst", "us", "unused quota the cgroup may carry into the next period", KT_DURATION, US, 0,
	       INT32_MAX * US, false, "cpu.cfs_burst_us", "cpu.max.burst", 0),
	CGROUP("weight", "", "relative CPU share of the cgroup (v2; default 100)", KT_INT, 1, 1, 10000, false,
	       NULL, "cpu.weight", 0),
	CGROUP("shares", "", "relative CPU share of the cgroup (v1; default 1024)", KT_INT, 1, 2, 262144,
	       false, "cpu.shares", NULL, 0),
	CGROUP("idle", "", "1 = the cgroup's tasks run only when nothing else wants the CPU", KT_BOOL, 1, 0,
	       1, false, "cpu.idle", "cpu.idle", 0),
	CGROUP_OPS("rt_runtime", "us",
		   "realtime budget of the cgroup per rt period (v1 with CONFIG_RT_GROUP_SCHED: realtime "
		   "tasks can join the cgroup only when it is > 0)",
		   KT_DURATION, US, 0, SEC, false, "cpu.rt_runtime_us", NULL, 0, &rt_cg_ops),
	/* ---- per probe thread: applied by the probe itself, named as its options ---- */
	THREAD("policy", KT_CHOICE, "scheduling policy of the probe threads"),
	THREAD("prio", KT_INT, "realtime priority for fifo/rr"),
	THREAD("nice", KT_INT, "nice value for other/batch/idle"),
	THREAD("slice", KT_DURATION, "EEVDF custom slice (sched_attr.sched_runtime of a normal task)"),
	THREAD("dl-runtime", KT_DURATION, "SCHED_DEADLINE runtime"),
	THREAD("dl-deadline", KT_DURATION, "SCHED_DEADLINE relative deadline"),
	THREAD("dl-period", KT_DURATION, "SCHED_DEADLINE period"),
	THREAD("slack", KT_DURATION, "timer slack (PR_SET_TIMERSLACK)"),
	/* ---- power management and SMT (system-wide; see docs/knobs.md) ---- */
	{"pm.dma_latency", "us",
	 "hold the CPU latency PM QoS request at this many us for the run (none = no hold; 0 keeps CPUs out of "
	 "deep idle states); the open /dev/cpu_dma_latency is the hold, so a crash releases it",
	 KNOB_SYSTEM, KT_DURATION, US, 0, 2000000000LL * US, false, "/dev/cpu_dma_latency", NULL, 0, &knob_pm_ops},
	{"cpuidle.max_state", "", "deepest cpuidle state allowed on every CPU (number or name); deeper states are disabled",
	 KNOB_SYSTEM, KT_CHOICE, 1, 0, 0, false, "/sys/devices/system/cpu/cpuN/cpuidle/stateM/disable", NULL, 0,
	 &knob_idle_ops},
	{"cpuidle.disable", "", "disable one cpuidle state (number or name) on every CPU; none = enable every state",
	 KNOB_SYSTEM, KT_CHOICE, 1, 0, 0, false, "/sys/devices/system/cpu/cpuN/cpuidle/stateM/disable", NULL, 0,
	 &knob_idle_ops},
	{"cpufreq.governor", "", "cpufreq governor of every CPU (performance, powersave, schedutil, ...)", KNOB_SYSTEM,
	 KT_CHOICE, 1, 0, 0, false, "cpufreq/scaling_governor", NULL, 0, &knob_freq_ops},
	{"cpufreq.min_freq", "kHz", "lowest frequency the governor may pick on every CPU, in kHz", KNOB_SYSTEM, KT_INT, 1,
	 0, INT32_MAX, false, "cpufreq/scaling_min_freq", NULL, 0, &knob_freq_ops},
	{"smt", "", "simultaneous multithreading: on or off (off takes the sibling CPUs offline)", KNOB_SYSTEM,
	 KT_CHOICE, 1, 0, 0, false, "/sys/devices/system/cpu/smt/control", NULL, 0, &knob_smt_ops},
};
const int knob_count = sizeof(knob_table) / sizeof(knob_table[0]);

/* ------------------------------------------------------------------ API */

const struct knob *knob_find(const char *name)
{
	for (int i = 0; i < knob_count; i++)
		if (strcmp(knob_table[i].name, name) == 0)
			return &knob_table[i];
	return NULL;
}

const char *knob_scope_name(enum knob_scope s)
{
	return s == KNOB_THREAD ? "thread" : s == KNOB_CGROUP ? "cgroup" : "system";
}

int knob_ctx_init(struct knob_ctx *c, struct err *e)
{
	memset(c, 0, sizeof(*c));
	c->cgroup_of = KNOB_CG_PROBES;
	c->cg_parent = CG_AT_ROOT;
	return cgroup_detect(&c->hier, e);
}

int knob_parse_setting(const char *s, const struct knob **k, char *value, size_t len, struct err *e)
{
	const char *eq = strchr(s, '=');
	char name[64];
	if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name))
		return err_set(e, EXIT_USAGE, "'%s' is not a setting (expected KNOB=VALUE; irt knobs lists them)", s);
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = 0;
	*k = knob_find(name);
	if (!*k)
		return err_set(e, EXIT_USAGE, "%s: unknown knob (irt knobs lists them)", name);
	if (strlen(eq + 1) >= len || !eq[1])
		return err_set(e, EXIT_USAGE, "%s: missing or too long value", name);
	snprintf(value, len, "%s", eq + 1);
	return 0;
}

int knob_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	return k->ops->validate(k, c, value, e);
}

int knob_require(const struct knob *k, struct knob_ctx *c, struct err *e)
{
	struct err why = {0};
	if (k->ops->available(k, c, &why))
		return err_set(e, EXIT_RUNTIME, "%s: unavailable here: %s", k->name, why.msg);
	return 0;
}

int knob_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *effective,
	       size_t len, struct err *e)
{
	if (knob_validate(k, c, value, e) || knob_require(k, c, e))
		return -1;
	if (k->ops->apply(k, c, value, effective, len, e)) {
		if (e && !strncmp(e->msg, k->name, strlen(k->name)))
			return -1;
		err_prefix(e, "%s", k->name);
		return -1;
	}
	return 0;
}

int knob_cgroup_ensure(struct knob_ctx *c, struct err *e)
{
	if (c->cg.path[0])
		return 0;
	return cgroup_create(&c->cg, &c->hier, c->cgroup_of == KNOB_CG_LOADS ? "loads" : "probes",
			     c->cg_parent, e);
}

const struct cgroup *knob_cgroup(const struct knob_ctx *c)
{
	return c->cg.path[0] ? &c->cg : NULL;
}

bool knob_journal_ok(const char *label, const char *path, const char *value, char *why, size_t len)
{
	const struct knob *k = knob_find(label);
	if (!k || k->scope != KNOB_SYSTEM)
		return snprintf(why, len, "'%s' is not a system-wide knob (irt knobs lists them)", label), false;
	char mine[CG_PATHLEN];
	bool owned = k->ops->owns ? k->ops->owns(k, path)
				  : knob_sys_path(k, mine, sizeof(mine)) == 0 && strcmp(path, mine) == 0;
	if (!owned)
		return snprintf(why, len, "not a file of %s", k->name), false;
	int64_t x;
	/* KT_CHOICE system knobs hold names (a governor, "on"/"off") or 0/1 (idle states) */
	bool form = k->type == KT_BOOL     ? strcmp(value, "0") == 0 || strcmp(value, "1") == 0
		    : k->type == KT_CHOICE ? *value && strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(value)
					   : knob_bare_int(value, &x) || (k->unlimited && strcmp(value, "max") == 0);
	if (!form)
		return snprintf(why, len, "'%.40s' is not a value of %s", value, k->name), false;
	return true;
}

const char *knob_journal_value(const char *label, const char *raw, char *buf, size_t len)
{
	const struct knob *k = knob_find(label);
	/* a cpuidle knob is undone file by file: a state's disable flag, not the knob's value */
	if (k && k->ops == &knob_idle_ops)
		return NULL;
	/* a duration's file number in irt's units, as the apply line and the listing give it */
	if (!k || k->scope != KNOB_SYSTEM || k->type != KT_DURATION || from_native(k, raw, buf, len, NULL))
		return raw;
	return buf;
}

int knob_restore_all(struct knob_ctx *c, struct err *e)
{
	c->cg.path[0] = 0;
	pmqos_release();   /* a pm.dma_latency hold: nothing journaled, the descriptor is the hold */
	if (!journal_active())
		return 0;
	return journal_restore(NULL, NULL, e);
}

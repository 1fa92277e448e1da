/* The power management and SMT knobs (pm.dma_latency, cpuidle.*, cpufreq.*, smt): system
 * knobs that act on every online CPU. Their entries are in knob_table (knob.c). */
#include "linux/knob_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/conditions.h"
#include "linux/sysfile.h"
#include "units.h"
#include "util.h"

#define US NSEC_PER_USEC


/* pm.dma_latency: the PM QoS hold. The open descriptor is the request (conditions.h), so
 * nothing is journaled: a crash releases it with the process. */
static int pm_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	char path[CG_PATHLEN];
	(void)k;
	(void)c;
	sysroot_path(path, sizeof(path), "/dev/cpu_dma_latency");
	if (!sys_exists(path))
		return err_set(why, EXIT_RUNTIME, "%s is not present (kernel without CPU latency PM QoS)", path);
	if (access(path, W_OK))
		return err_set(why, EXIT_RUNTIME, "%s: holding PM QoS needs root", path);
	return 0;
}

static int pm_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	int64_t us;
	(void)c;
	if (pmqos_read_system(&us, e))
		return -1;
	if (us >= PMQOS_NONE_US)
		snprintf(buf, len, "none");
	else
		knob_format_value(k, us * US, buf, len);
	return 0;
}

static int pm_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	int64_t v;
	(void)c;
	if (strcmp(value, "none") == 0)
		return 0;
	if (knob_parse_value(k, value, &v, NULL) == 0)
		return 0;
	char lo[32], hi[32];
	return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected none, or a duration from %s to %s, or a bare "
		       "number of us, e.g. 0 or 20us)", k->name, value, units_format_duration(lo, sizeof(lo), k->min),
		       units_format_duration(hi, sizeof(hi), k->max));
}

static int pm_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff, size_t len,
		    struct err *e)
{
	int64_t v;
	(void)c;
	if (strcmp(value, "none") == 0) {
		pmqos_release();
		if (eff)
			snprintf(eff, len, "none");
		return 0;
	}
	if (knob_parse_value(k, value, &v, e) || pmqos_hold(v / US, e))
		return -1;
	if (eff)   /* what irt holds: the system-wide value may be lower (another holder) */
		knob_format_value(k, v, eff, len);
	return 0;
}

/* nothing to journal: the open descriptor is the hold */
static bool owns_nothing(const struct knob *k, const char *path)
{
	(void)k;
	(void)path;
	return false;
}

const struct knob_ops knob_pm_ops = {
	.available = pm_available, .read = pm_read, .validate = pm_validate, .apply = pm_apply, .owns = owns_nothing,
};

/* Skips "<digits>" at *p; false when there are none. */
static bool skip_number(const char **p)
{
	const char *s = *p;
	while (**p >= '0' && **p <= '9')
		(*p)++;
	return *p > s;
}

/* Is path <sysroot>/sys/devices/system/cpu/cpu<N>/<rest>, where rest may hold one "%d" (a
 * state number)? */
static bool per_cpu_path(const char *path, const char *rest)
{
	char dir[CG_PATHLEN];
	sysroot_path(dir, sizeof(dir), "/sys/devices/system/cpu/cpu");
	size_t n = strlen(dir);
	if (strncmp(path, dir, n))
		return false;
	const char *p = path + n;
	if (!skip_number(&p) || *p++ != '/')
		return false;
	const char *num = strstr(rest, "%d");
	if (!num)
		return strcmp(p, rest) == 0;
	size_t pre = (size_t)(num - rest);
	if (strncmp(p, rest, pre))
		return false;
	p += pre;
	return skip_number(&p) && strcmp(p, num + 2) == 0;
}

#define MAX_IDLE_STATES 16

/* One file per online CPU: CPU_DIR/cpuN/<fmt with the state number>; returns the count. */
static int per_cpu_files(const char *file, char (*paths)[CG_PATHLEN], int max)
{
	static int ids[MAX_CPUS];
	int n = conditions_online_cpus(ids, MAX_CPUS), m = 0;
	for (int i = 0; i < n && m < max; i++)
		if (sysroot_path(paths[m], CG_PATHLEN, "/sys/devices/system/cpu/cpu%d/%s", ids[i], file) == 0 &&
		    sys_exists(paths[m]))
			m++;
	return m;
}

/* cpuidle state names of cpu0-or-first-CPU, in order; returns the count */
static int idle_state_names(char names[MAX_IDLE_STATES][64])
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	int n = 0;
	for (int s = 0; s < MAX_IDLE_STATES; s++) {
		char file[64];
		snprintf(file, sizeof(file), "cpuidle/state%d/name", s);
		if (per_cpu_files(file, paths, 1) < 1 || sys_read(paths[0], names[s], 64, NULL, NULL))
			break;
		n++;
	}
	return n;
}

static int idle_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	char dir[CG_PATHLEN], drv[VALLEN];
	sysroot_path(dir, sizeof(dir), "/sys/devices/system/cpu/cpuidle");
	if (!sys_exists(dir))
		return err_set(why, EXIT_RUNTIME, "no %s (kernel without CONFIG_CPU_IDLE)", dir);
	if (per_cpu_files("cpuidle/state0/disable", paths, MAX_CPUS) < 1) {
		char cur[CG_PATHLEN];
		sysroot_path(cur, sizeof(cur), "/sys/devices/system/cpu/cpuidle/current_driver");
		if (sys_read(cur, drv, sizeof(drv), NULL, NULL) == 0 && strcmp(drv, "none") == 0)
			return err_set(why, EXIT_RUNTIME, "no cpuidle driver is loaded (current_driver is none)");
		return err_set(why, EXIT_RUNTIME, "the CPUs have no cpuidle states with a disable file");
	}
	return knob_check_file(k, paths[0], why) ? -1 : ((void)c, 0);
}

/* For each CPU the disable flag of each state: "max_state" reads the deepest enabled state,
 * "disable" the states disabled everywhere. */
static int idle_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	static int ids[MAX_CPUS];
	char names[MAX_IDLE_STATES][64], p[CG_PATHLEN], v[16];
	int ns = idle_state_names(names), deepest_first = -2;
	bool dependent = false, everywhere[MAX_IDLE_STATES];
	(void)c;
	if (ns == 0)
		return err_set(e, EXIT_RUNTIME, "%s: no cpuidle states", k->name);
	for (int s = 0; s < ns; s++)
		everywhere[s] = true;
	int ncpu = conditions_online_cpus(ids, MAX_CPUS);
	for (int i = 0; i < ncpu; i++) {
		int deepest = -1;
		for (int s = 0; s < ns; s++) {
			sysroot_path(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable", ids[i], s);
			if (sys_read(p, v, sizeof(v), NULL, e))
				return -1;
			if (strcmp(v, "0") == 0) {
				deepest = s;
				everywhere[s] = false;
			}
		}
		if (deepest_first == -2)
			deepest_first = deepest;
		else if (deepest != deepest_first)
			dependent = true;
	}
	if (strcmp(k->name, "cpuidle.max_state") == 0) {
		snprintf(buf, len, "%d%s", deepest_first, dependent ? " (cpu-dependent)" : "");
		return 0;
	}
	buf[0] = 0;
	for (int s = 0; s < ns; s++)
		if (everywhere[s])
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "|" : "", names[s]);
	if (!buf[0])
		snprintf(buf, len, "none");
	return 0;
}

/* the state index a name or number means; -1 for none */
static int idle_state_index(const struct knob *k, const char *value, int *idx, struct err *e)
{
	char names[MAX_IDLE_STATES][64], list[MAX_IDLE_STATES * 66] = "";
	int ns = idle_state_names(names);
	int64_t v;
	if (strcmp(value, "none") == 0)
		return *idx = -1, 0;
	for (int s = 0; s < ns; s++) {
		if (strcmp(value, names[s]) == 0)
			return *idx = s, 0;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", %s", names[s]);
	}
	if (knob_bare_int(value, &v) && v >= 0 && (v < ns || ns == 0))
		return *idx = (int)v, 0;
	return err_set(e, EXIT_USAGE, "%s: '%s' is not a cpuidle state here (expected none, a state number 0..%d, "
		       "or a name: %s)", k->name, value, ns - 1, ns ? list + 2 : "no states");
}

static int idle_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	int idx;
	(void)c;
	if (strcmp(k->name, "cpuidle.max_state") == 0 && strcmp(value, "none") == 0)
		return err_set(e, EXIT_USAGE, "%s: 'none' is not valid (expected a state number or name: the "
			       "deepest state allowed)", k->name);
	return idle_state_index(k, value, &idx, e);
}

static int idle_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff, size_t len,
		      struct err *e)
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	char names[MAX_IDLE_STATES][64], cur[16];
	int idx, ns = idle_state_names(names);
	if (idle_state_index(k, value, &idx, e))
		return -1;
	bool max = strcmp(k->name, "cpuidle.max_state") == 0;
	for (int s = 0; s < ns; s++) {
		char file[64];
		snprintf(file, sizeof(file), "cpuidle/state%d/disable", s);
		int n = per_cpu_files(file, paths, MAX_CPUS);
		/* max_state: deeper states off, the rest on; disable: that one off, none: all on */
		const char *want = max ? (s > idx ? "1" : "0") : idx < 0 ? "0" : s == idx ? "1" : NULL;
		for (int i = 0; want && i < n; i++) {
			if (sys_read(paths[i], cur, sizeof(cur), NULL, e))
				return -1;
			if (strcmp(cur, want) && knob_write_journaled(k, paths[i], want, e))
				return -1;
		}
	}
	return eff ? idle_read(k, c, eff, len, e) : 0;
}

static bool idle_owns(const struct knob *k, const char *path)
{
	(void)k;
	return per_cpu_path(path, "cpuidle/state%d/disable");
}

const struct knob_ops knob_idle_ops = {
	.available = idle_available, .read = idle_read, .validate = idle_validate, .apply = idle_apply,
	.owns = idle_owns,
};

/* cpufreq.governor, cpufreq.min_freq: the same file in every CPU's cpufreq directory. */
static int freq_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	char dir[CG_PATHLEN];
	(void)c;
	if (per_cpu_files(k->file, paths, MAX_CPUS) < 1) {
		sysroot_path(dir, sizeof(dir), "/sys/devices/system/cpu/cpu0/cpufreq");
		return err_set(why, EXIT_RUNTIME, "no %s (no frequency scaling exposed here: a VM, or a kernel "
			       "without CONFIG_CPU_FREQ)", dir);
	}
	return knob_check_file(k, paths[0], why);
}

static int freq_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	(void)c;
	int n = per_cpu_files(k->file, paths, MAX_CPUS);
	if (n < 1)
		return err_set(e, EXIT_RUNTIME, "%s: no cpufreq here", k->name);
	return knob_read_per_cpu(k, paths, n, false, buf, len, e);
}

/* the first CPU's file next to k->file, e.g. scaling_available_governors */
static int freq_sibling(const char *name, char *buf, size_t len)
{
	static char paths[1][CG_PATHLEN];
	char file[96];
	snprintf(file, sizeof(file), "cpufreq/%s", name);
	return per_cpu_files(file, paths, 1) < 1 ? -1 : sys_read(paths[0], buf, len, NULL, NULL);
}

static int freq_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	char avail[1024];
	(void)c;
	if (k->type == KT_INT) {
		int64_t v, lo, hi;
		if (knob_parse_value(k, value, &v, e))
			return -1;
		if (freq_sibling("cpuinfo_min_freq", avail, sizeof(avail)) == 0 && knob_bare_int(avail, &lo) &&
		    freq_sibling("cpuinfo_max_freq", avail, sizeof(avail)) == 0 && knob_bare_int(avail, &hi) &&
		    (v < lo || v > hi))
			return err_set(e, EXIT_USAGE, "%s: '%s' is outside this CPU's range (%" PRId64 " to %" PRId64 " kHz)",
				       k->name, value, lo, hi);
		return 0;
	}
	if (!*value || strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(value))
		return err_set(e, EXIT_USAGE, "%s: '%s' is not a governor name (e.g. performance, powersave, schedutil)",
			       k->name, value);
	if (freq_sibling("scaling_available_governors", avail, sizeof(avail)) == 0) {
		for (char *w = strtok(avail, " "); w; w = strtok(NULL, " "))
			if (strcmp(w, value) == 0)
				return 0;
		freq_sibling("scaling_available_governors", avail, sizeof(avail));
		return err_set(e, EXIT_USAGE, "%s: '%s' is not available here (expected one of: %s)", k->name, value, avail);
	}
	return 0;
}

static int freq_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff, size_t len,
		      struct err *e)
{
	static char paths[MAX_CPUS][CG_PATHLEN];
	char cur[VALLEN];
	if (freq_validate(k, c, value, e))
		return -1;
	int n = per_cpu_files(k->file, paths, MAX_CPUS);
	for (int i = 0; i < n; i++) {
		if (sys_read(paths[i], cur, sizeof(cur), NULL, e))
			return -1;
		if (strcmp(cur, value) && knob_write_journaled(k, paths[i], value, e))
			return -1;
	}
	return eff ? freq_read(k, c, eff, len, e) : 0;
}

static bool freq_owns(const struct knob *k, const char *path)
{
	return per_cpu_path(path, k->file);
}

const struct knob_ops knob_freq_ops = {
	.available = freq_available, .read = freq_read, .validate = freq_validate, .apply = freq_apply,
	.owns = freq_owns,
};

/* smt: /sys/devices/system/cpu/smt/control, "on" or "off" */
static int smt_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	char path[CG_PATHLEN], v[VALLEN];
	(void)c;
	knob_sys_path(k, path, sizeof(path));
	if (!sys_exists(path))
		return err_set(why, EXIT_RUNTIME, "no %s (kernel without CONFIG_HOTPLUG_SMT)", path);
	if (sys_read(path, v, sizeof(v), NULL, why))
		return -1;
	if (strcmp(v, "notsupported") == 0)
		return err_set(why, EXIT_RUNTIME, "SMT is not supported by these CPUs (%s: notsupported)", path);
	if (strcmp(v, "notimplemented") == 0)
		return err_set(why, EXIT_RUNTIME, "the kernel offers no SMT control on this architecture (%s: notimplemented)",
		               path);
	if (strcmp(v, "forceoff") == 0)
		return err_set(why, EXIT_RUNTIME, "SMT is forced off (nosmt=force on the kernel command line)");
	return knob_check_file(k, path, why);
}

static int smt_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	char path[CG_PATHLEN];
	(void)c;
	knob_sys_path(k, path, sizeof(path));
	return sys_read(path, buf, len, NULL, e);
}

static int smt_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e)
{
	(void)c;
	if (strcmp(value, "on") && strcmp(value, "off"))
		return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected on or off)", k->name, value);
	return 0;
}

static int smt_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *eff, size_t len,
		     struct err *e)
{
	char path[CG_PATHLEN], cur[VALLEN];
	if (smt_validate(k, c, value, e))
		return -1;
	knob_sys_path(k, path, sizeof(path));
	if (sys_read(path, cur, sizeof(cur), NULL, e))
		return -1;
	if (strcmp(cur, value) && knob_write_journaled(k, path, value, e))
		return -1;
	return eff ? smt_read(k, c, eff, len, e) : 0;
}

const struct knob_ops knob_smt_ops = {
	.available = smt_available, .read = smt_read, .validate = smt_validate, .apply = smt_apply,
};

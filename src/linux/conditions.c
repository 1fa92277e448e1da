/* The conditions manifest and the PM QoS hold (conditions.h). Each entry is one string for
 * people and for `irt compare`; an entry that cannot be read says why ("unreadable: ..." or
 * "unavailable: ..."), never a guess. */
#include "linux/conditions.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "linux/env.h"
#include "units.h"
#include "util.h"
#include "linux/sysfile.h"

#define MAXCPU CPU_SETSIZE
#define VAL 512
#define CPU_DIR "/sys/devices/system/cpu"

/* ------------------------------------------------------------------ PM QoS */

static int pm_fd = -1;
static int64_t pm_value = -1;

int pmqos_hold(int64_t us, struct err *e)
{
	char path[512];
	if (us < 0 || us > PMQOS_NONE_US)
		return err_set(e, EXIT_USAGE, "PM QoS: %" PRId64 " us is out of range (0 to %" PRId64 ")", us,
		               PMQOS_NONE_US);
	sysroot_path(path, sizeof(path), "/dev/cpu_dma_latency");
	if (pm_fd < 0) {
		/* CLOEXEC: a command a load execs must not keep the request alive after irt */
		pm_fd = open(path, O_WRONLY | O_CLOEXEC);
		if (pm_fd < 0) {
			int saved = errno;
			return err_set(e, EXIT_RUNTIME, "PM QoS: cannot open %s: %s (%s)", path, strerror(saved),
			               saved == EACCES || saved == EPERM ? "holding PM QoS needs root"
			               : saved == ENOENT ? "the kernel has no CPU latency PM QoS device"
			                                 : sys_errno_hint(saved, path));
		}
	}
	int32_t v = (int32_t)us;   /* the device takes a binary s32 (or a hex string) */
	if (write(pm_fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		int saved = errno;
		pmqos_release();
		return err_set(e, EXIT_RUNTIME, "PM QoS: cannot write %" PRId64 " to %s: %s", us, path, strerror(saved));
	}
	pm_value = us;
	return 0;
}

int conditions_pm_qos_arg(const struct opt_args *a, int64_t *us, struct err *e)
{
	struct cond_cfg cc;
	const char *where = "--pm-qos";
	memset(&cc, 0, sizeof(cc));
	opt_defaults(SCOPE_COND, &cc);
	for (int i = 0; i < a->n; i++)
		if (a->items[i].opt->scope == SCOPE_COND) {
			if (opt_set(a->items[i].opt, &cc, a->items[i].value, a->items[i].where, e))
				return -1;
			where = a->items[i].where;
		}
	*us = -1;
	if (strcmp(cc.pm_qos, "none") == 0)
		return 0;
	int64_t v;
	char *end;
	errno = 0;
	long long bare = strtoll(cc.pm_qos, &end, 10);
	if (cc.pm_qos[0] >= '0' && cc.pm_qos[0] <= '9' && !*end && !errno)
		v = (int64_t)bare * NSEC_PER_USEC;
	else if (units_parse_duration(cc.pm_qos, &v))
		v = -1;
	if (v < 0 || v % NSEC_PER_USEC || v / NSEC_PER_USEC > PMQOS_NONE_US)
		return err_set(e, EXIT_USAGE, "%s: '%s' is not valid (expected none, or a latency in whole microseconds "
		               "from 0 to 2000s: a bare number of us or a duration, e.g. 0 or 20us)", where, cc.pm_qos);
	*us = v / NSEC_PER_USEC;
	return 0;
}

int conditions_hold(int64_t us, struct result *r, struct err *e)
{
	if (us < 0)
		return 0;
	if (pmqos_hold(us, e))
		return err_prefix(e, "--pm-qos"), -1;
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRId64 "us", us);
	kvlist_set(&r->settings, "pm-qos", buf);
	return 0;
}

void pmqos_release(void)
{
	if (pm_fd >= 0)
		close(pm_fd);
	pm_fd = -1;
	pm_value = -1;
}

int64_t pmqos_held(void)
{
	return pm_value;
}

int pmqos_read_system(int64_t *us, struct err *e)
{
	char path[512];
	sysroot_path(path, sizeof(path), "/dev/cpu_dma_latency");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int32_t v;
	ssize_t n = -1;
	int saved = 0;
	if (fd >= 0) {
		n = read(fd, &v, sizeof(v));
		saved = errno;
		close(fd);
	} else {
		saved = errno;
	}
	if (n != (ssize_t)sizeof(v))
		return err_set(e, EXIT_RUNTIME, "cannot read %s: %s (%s)", path, n < 0 ? strerror(saved) : "short read",
		               saved == EACCES || saved == EPERM ? "needs root" : sys_errno_hint(saved, path));
	*us = v;
	return 0;
}

/* ------------------------------------------------------------------ helpers */

/* Where readings go: into the manifest (before the run), or, after it, compared with the
 * manifest as read before: only what changed is kept (no allocation otherwise, so the end of a
 * long run does not grow memory). */
struct sink {
	struct kvlist *kv;            /* before the run */
	const struct kvlist *before;  /* after the run: compare with this ... */
	struct kvlist *changed;       /* ... and note differences here as "BEFORE -> AFTER" */
};

static void emit(struct sink *s, const char *key, const char *value)
{
	if (!s->before) {
		kvlist_set(s->kv, key, value);
		return;
	}
	const char *b = kvlist_get(s->before, key);
	if (b && strcmp(b, value) && strcmp(key, "cpufreq.cur_khz")) {   /* cur moves by itself */
		char *line = xmalloc(strlen(b) + strlen(value) + 5);
		sprintf(line, "%s -> %s", b, value);
		kvlist_set(s->changed, key, line);
		free(line);
	}
}

static void put(struct sink *kv, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(struct sink *kv, const char *key, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit(kv, key, buf);
}

/* Reads a sysroot-relative file; on failure writes "unreadable: why" into buf and returns -1. */
static int rd(const char *rel, char *buf, size_t len)
{
	char path[1024];
	struct err e = {0};
	int errnum = 0;
	sysroot_path(path, sizeof(path), "%s", rel);
	if (sys_read(path, buf, len, &errnum, &e) == 0)
		return 0;
	snprintf(buf, len, "unreadable: %s", e.msg);
	return -1;
}

static bool present(const char *rel)
{
	char path[1024];
	sysroot_path(path, sizeof(path), "%s", rel);
	return sys_exists(path);
}

static void strappend(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void strappend(char *dst, size_t len, const char *fmt, ...)
{
	size_t n = strlen(dst);
	if (n + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst + n, len - n, fmt, ap);
	va_end(ap);
}

/* "cpu0-2,5" from sorted ids */
static void cpu_list_text(const int *ids, int n, char *out, size_t len)
{
	out[0] = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && ids[j + 1] == ids[j] + 1)
			j++;
		if (j > i)
			strappend(out, len, "%s%d-%d", out[0] ? "," : "", ids[i], ids[j]);
		else
			strappend(out, len, "%s%d", out[0] ? "," : "", ids[i]);
		i = j + 1;
	}
}

char *conditions_group(const int *cpu, char *const *value, int n)
{
	size_t cap = 64;
	for (int i = 0; i < n; i++)
		cap += strlen(value[i]) + 32;
	char *out = xcalloc(1, cap);
	int *ids = xcalloc((size_t)n + 1, sizeof(int));
	bool *done = xcalloc((size_t)n + 1, sizeof(bool));
	bool all = true;
	for (int i = 1; i < n; i++)
		all &= strcmp(value[i], value[0]) == 0;
	if (n > 0 && all) {
		snprintf(out, cap, "%s%s", n > 1 ? "all CPUs: " : "", value[0]);
		if (n == 1)
			snprintf(out, cap, "cpu%d: %s", cpu[0], value[0]);
	} else {
		for (int i = 0; i < n; i++) {
			if (done[i])
				continue;
			int m = 0;
			for (int j = i; j < n; j++)
				if (!done[j] && strcmp(value[j], value[i]) == 0) {
					ids[m++] = cpu[j];
					done[j] = true;
				}
			char list[1024];
			cpu_list_text(ids, m, list, sizeof(list));
			strappend(out, cap, "%scpu%s: %s", out[0] ? "; " : "", list, value[i]);
		}
	}
	free(ids);
	free(done);
	return out;
}

/* the CPUs of a list, in order, into ids; -1 when malformed */
static int cpu_ids(const char *list, int *ids, int max)
{
	cpu_set_t set;
	if (cpulist_parse(list, &set))
		return -1;
	int n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			ids[n++] = c;
	return n;
}

int conditions_online_cpus(int *ids, int max)
{
	char buf[VAL];
	int n = rd(CPU_DIR "/online", buf, sizeof(buf)) == 0 ? cpu_ids(buf, ids, max) : -1;
	if (n <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 && c < max ? (int)c : 1;
		for (int i = 0; i < n; i++)
			ids[i] = i;
	}
	return n;
}

void conditions_probe_cpus(const struct probe_cfg *cfgs, int n, char *out, size_t len)
{
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		if (!cfgs[i].cpus[0]) {
			out[0] = 0;
			return;
		}
		strappend(out, len, "%s%s", out[0] ? "," : "", cfgs[i].cpus);
	}
}

static void free_values(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* One value per online CPU from CPU_DIR/cpuN/<file>, grouped. */
static void per_cpu(struct sink *kv, const char *key, const int *cpus, int n, const char *file)
{
	char **v = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		char rel[256], buf[VAL];
		snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/%s", cpus[i], file);
		rd(rel, buf, sizeof(buf));
		v[i] = xstrdup(buf);
	}
	char *g = conditions_group(cpus, v, n);
	emit(kv, key, g);
	free(g);
	free_values(v, n);
}

/* ------------------------------------------------------------------ the entries */

static void pm_qos(struct sink *kv)
{
	int64_t held = pmqos_held(), sys;
	struct err e = {0};
	if (held >= 0)
		put(kv, "pm_qos", "held at %" PRId64 " µs", held);
	else
		put(kv, "pm_qos", "not held");
	if (pmqos_read_system(&sys, &e))
		put(kv, "pm_qos.system", "unreadable: %s", e.msg);
	else if (sys >= PMQOS_NONE_US)
		put(kv, "pm_qos.system", "no request (%" PRId64 " µs)", sys);
	else
		put(kv, "pm_qos.system", "%" PRId64 " µs", sys);
}

/* "POLL (exit 0 µs), C1 (exit 2 µs, disabled)" for one CPU */
static void idle_states(int cpu, char *out, size_t len)
{
	char dir[256], buf[VAL];
	out[0] = 0;
	for (int s = 0; s < 64; s++) {
		snprintf(dir, sizeof(dir), CPU_DIR "/cpu%d/cpuidle/state%d", cpu, s);
		if (!present(dir))
			break;
		char name[128], lat[64], dis[64], rel[320];
		snprintf(rel, sizeof(rel), "%s/name", dir);
		if (rd(rel, name, sizeof(name)))
			snprintf(name, sizeof(name), "state%d", s);
		snprintf(rel, sizeof(rel), "%s/latency", dir);
		if (rd(rel, lat, sizeof(lat)))
			snprintf(lat, sizeof(lat), "?");
		snprintf(rel, sizeof(rel), "%s/disable", dir);
		if (rd(rel, dis, sizeof(dis)))
			snprintf(dis, sizeof(dis), "?");
		snprintf(buf, sizeof(buf), "%s (exit %s µs%s)", name, lat,
		         strcmp(dis, "0") == 0 ? "" : strcmp(dis, "1") == 0 ? ", disabled" : ", disable unreadable");
		strappend(out, len, "%s%s", out[0] ? ", " : "", buf);
	}
	if (!out[0]) {
		snprintf(dir, sizeof(dir), CPU_DIR "/cpu%d/cpuidle", cpu);
		snprintf(out, len, "%s", present(dir) ? "no states" : "unavailable: no cpuidle directory");
	}
}

static void cpuidle(struct sink *kv, const int *cpus, int n)
{
	char buf[VAL];
	if (!present(CPU_DIR "/cpuidle")) {
		const char *why = "unavailable: no " CPU_DIR "/cpuidle (kernel without CONFIG_CPU_IDLE)";
		emit(kv, "cpuidle.driver", why);
		emit(kv, "cpuidle.governor", why);
		emit(kv, "cpuidle.states", why);
		return;
	}
	rd(CPU_DIR "/cpuidle/current_driver", buf, sizeof(buf));
	emit(kv, "cpuidle.driver", buf);
	if (rd(CPU_DIR "/cpuidle/current_governor", buf, sizeof(buf)))
		rd(CPU_DIR "/cpuidle/current_governor_ro", buf, sizeof(buf));
	emit(kv, "cpuidle.governor", buf);
	char **v = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		char st[2048];
		idle_states(cpus[i], st, sizeof(st));
		v[i] = xstrdup(st);
	}
	char *g = conditions_group(cpus, v, n);
	emit(kv, "cpuidle.states", g);
	free(g);
	free_values(v, n);
}

static void cpufreq(struct sink *kv, const int *cpus, int n)
{
	static const struct {
		const char *key, *file;
	} f[] = {{"cpufreq.driver", "cpufreq/scaling_driver"},
	         {"cpufreq.governor", "cpufreq/scaling_governor"},
	         {"cpufreq.min_khz", "cpufreq/scaling_min_freq"},
	         {"cpufreq.max_khz", "cpufreq/scaling_max_freq"},
	         {"cpufreq.cur_khz", "cpufreq/scaling_cur_freq"}};
	char rel[256], buf[VAL];
	snprintf(rel, sizeof(rel), CPU_DIR "/cpu%d/cpufreq", cpus[0]);
	bool have = present(rel);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (have)
			per_cpu(kv, f[i].key, cpus, n, f[i].file);
		else
			emit(kv, f[i].key, "unavailable: no " CPU_DIR "/cpuN/cpufreq (no frequency scaling "
			                         "exposed: a VM, or a kernel without CONFIG_CPU_FREQ)");
	}
	if (present(CPU_DIR "/cpufreq/boost")) {
		rd(CPU_DIR "/cpufreq/boost", buf, sizeof(buf));
		put(kv, "cpufreq.boost", "%s", strcmp(buf, "1") == 0 ? "on" : strcmp(buf, "0") == 0 ? "off" : buf);
	} else if (present(CPU_DIR "/intel_pstate/no_turbo")) {
		rd(CPU_DIR "/intel_pstate/no_turbo", buf, sizeof(buf));
		put(kv, "cpufreq.boost", "%s", strcmp(buf, "0") == 0 ? "on (intel_pstate no_turbo=0)"
		                               : strcmp(buf, "1") == 0 ? "off (intel_pstate no_turbo=1)" : buf);
	} else {
		emit(kv, "cpufreq.boost", "unavailable: neither " CPU_DIR "/cpufreq/boost nor intel_pstate/no_turbo");
	}
}

static void smt(struct sink *kv)
{
	char ctl[VAL], act[VAL];
	if (!present(CPU_DIR "/smt/control")) {
		emit(kv, "smt", "unavailable: no " CPU_DIR "/smt/control (kernel without CONFIG_HOTPLUG_SMT)");
		return;
	}
	rd(CPU_DIR "/smt/control", ctl, sizeof(ctl));
	if (rd(CPU_DIR "/smt/active", act, sizeof(act)) == 0)
		put(kv, "smt", "%s (active %s)", ctl, act);
	else
		put(kv, "smt", "%s", ctl);
}

void conditions_cmdline_flags(const char *cmdline, char *out, size_t len)
{
	static const char *const keys[] = {"isolcpus", "nohz_full", "rcu_nocbs", "preempt", "idle",
	                                   "intel_idle.max_cstate", "processor.max_cstate", "mitigations",
	                                   "threadirqs", "nosmt", "cpuidle.off", "nohz", "irqaffinity", NULL};
	out[0] = 0;
	for (const char *p = cmdline; *p;) {
		p += strspn(p, " \t\n");
		size_t wl = strcspn(p, " \t\n");
		size_t kl = strcspn(p, "= \t\n");
		for (int i = 0; wl && keys[i]; i++)
			if (strlen(keys[i]) == kl && strncmp(p, keys[i], kl) == 0)
				strappend(out, len, "%s%.*s", out[0] ? " " : "", (int)wl, p);
		p += wl;
	}
	if (!out[0])
		snprintf(out, len, "(none that matter)");
}

static void cmdline(struct sink *kv)
{
	char buf[4096], flags[2048];
	if (rd("/proc/cmdline", buf, sizeof(buf))) {
		emit(kv, "cmdline", buf);
		return;
	}
	conditions_cmdline_flags(buf, flags, sizeof(flags));
	emit(kv, "cmdline", flags);
}

static void hypervisor(struct sink *kv)
{
	char buf[VAL];
	if (present("/sys/hypervisor/type") && rd("/sys/hypervisor/type", buf, sizeof(buf)) == 0 && buf[0]) {
		put(kv, "hypervisor", "%s", buf);
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	if (!sysroot()[0]) {   /* the real machine: ask the CPU */
		unsigned a, b, c, d;
		if (__get_cpuid(1, &a, &b, &c, &d) && !(c & (1u << 31))) {
			emit(kv, "hypervisor", "none");
			return;
		}
		char sig[13] = "";
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		static const char *const names[][2] = {{"KVMKVMKVM", "KVM"}, {"Microsoft Hv", "Hyper-V"},
		                                       {"VMwareVMware", "VMware"}, {"XenVMMXenVMM", "Xen"},
		                                       {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"ACRNACRNACRN", "ACRN"},
		                                       {"bhyve bhyve ", "bhyve"}, {" lrpepyh  vr", "Parallels"}};
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(sig, names[i][0]) == 0) {
				emit(kv, "hypervisor", names[i][1]);
				return;
			}
		for (int i = 0; i < 12; i++)
			if (sig[i] && (sig[i] < 32 || sig[i] > 126))
				sig[i] = '?';
		put(kv, "hypervisor", "yes (signature '%s')", sig);
		return;
	}
#endif
	/* elsewhere (and in fake trees): the flag the kernel shows in /proc/cpuinfo */
	char path[512];
	sysroot_path(path, sizeof(path), "/proc/cpuinfo");
	FILE *f = fopen(path, "re");
	if (!f) {
		put(kv, "hypervisor", "unreadable: %s: %s", path, strerror(errno));
		return;
	}
	char line[4096];
	bool flags = false, hv = false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "flags", 5) == 0) {
			flags = true;
			hv |= strstr(line, " hypervisor") != NULL;
		}
	fclose(f);
	emit(kv, "hypervisor", hv ? "yes (type unknown)" : flags ? "none" : "unknown (no CPU flags in /proc/cpuinfo)");
}

/* "[always] madvise never" -> "always" */
static void bracketed(char *s)
{
	char *o = strchr(s, '['), *c = o ? strchr(o, ']') : NULL;
	if (o && c) {
		memmove(s, o + 1, (size_t)(c - o - 1));
		s[c - o - 1] = 0;
	}
}

static void thp(struct sink *kv)
{
	char en[VAL], df[VAL];
	if (rd("/sys/kernel/mm/transparent_hugepage/enabled", en, sizeof(en))) {
		emit(kv, "thp", en);
		return;
	}
	bracketed(en);
	if (rd("/sys/kernel/mm/transparent_hugepage/defrag", df, sizeof(df)) == 0) {
		bracketed(df);
		put(kv, "thp", "%s (defrag %s)", en, df);
	} else {
		put(kv, "thp", "%s", en);
	}
}

/* How many IRQs may be delivered to the probe CPUs (effective affinity where the kernel shows it). */
static void irq_affinity(struct sink *kv, const char *cpus, const int *online, int nonline)
{
	cpu_set_t probe, irq;
	CPU_ZERO(&probe);
	if (!cpus || !*cpus || cpulist_parse(cpus, &probe))
		for (int i = 0; i < nonline; i++)
			CPU_SET(online[i], &probe);
	int ids[CPU_SETSIZE], n = 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &probe))
			ids[n++] = c;
	char list[1024];
	cpu_list_text(ids, n, list, sizeof(list));
	char dir[512];
	sysroot_path(dir, sizeof(dir), "/proc/irq");
	DIR *d = opendir(dir);
	if (!d) {
		put(kv, "irq_affinity", "unreadable: %s: %s", dir, strerror(errno));
		return;
	}
	int total = 0, hit = 0, unreadable = 0;
	bool effective = false;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end)
			continue;
		char rel[320], buf[VAL];
		total++;
		snprintf(rel, sizeof(rel), "/proc/irq/%s/effective_affinity_list", de->d_name);
		bool eff = present(rel);
		if (!eff)
			snprintf(rel, sizeof(rel), "/proc/irq/%s/smp_affinity_list", de->d_name);
		if (rd(rel, buf, sizeof(buf)) || cpulist_parse(buf, &irq)) {
			unreadable++;
			continue;
		}
		effective |= eff;
		CPU_AND(&irq, &irq, &probe);
		hit += CPU_COUNT(&irq) > 0;
	}
	closedir(d);
	if (!total) {
		put(kv, "irq_affinity", "unreadable: no IRQs listed in %s", dir);
		return;
	}
	put(kv, "irq_affinity", "%d of %d IRQs %s CPUs %s%s", hit, total,
	    effective ? "delivered to the probe" : "may go to the probe", list,
	    unreadable ? " (some affinities unreadable: needs root)" : "");
}

static void rt_throttling(struct sink *kv)
{
	char rt[VAL], per[VAL];
	if (rd("/proc/sys/kernel/sched_rt_runtime_us", rt, sizeof(rt))) {
		emit(kv, "rt_throttling", rt);
		return;
	}
	if (strcmp(rt, "-1") == 0) {
		emit(kv, "rt_throttling", "off (sched_rt_runtime_us = -1)");
		return;
	}
	if (rd("/proc/sys/kernel/sched_rt_period_us", per, sizeof(per)))
		put(kv, "rt_throttling", "%s µs per period (period %s)", rt, per);
	else
		put(kv, "rt_throttling", "%s µs of every %s µs", rt, per);
}

static void config_hash(struct sink *kv)
{
	char hash[128];
	env_config_hash(hash, sizeof(hash));
	emit(kv, "kernel.config_hash", hash);
}

/* again: the reading after the run, which skips what cannot change while the kernel runs
 * (command line, hypervisor, the config: reading and unpacking it costs ~100 KiB at the end) */
static void capture(struct sink *kv, const char *cpus, bool again)
{
	static int online[MAXCPU];
	int n = conditions_online_cpus(online, MAXCPU);
	pm_qos(kv);
	cpuidle(kv, online, n);
	cpufreq(kv, online, n);
	smt(kv);
	if (!again) {
		cmdline(kv);
		hypervisor(kv);
	}
	thp(kv);
	irq_affinity(kv, cpus, online, n);
	rt_throttling(kv);
	if (!again)
		config_hash(kv);
}

void conditions_capture(struct kvlist *kv, const char *cpus)
{
	struct sink sk = {.kv = kv};
	capture(&sk, cpus, false);
}

/* ------------------------------------------------------------------ around a run */

static bool stat_jiffies(uint64_t *steal, uint64_t *total)
{
	char path[512], line[512];
	sysroot_path(path, sizeof(path), "/proc/stat");
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = false;
	if (fgets(line, sizeof(line), f) && strncmp(line, "cpu ", 4) == 0) {
		unsigned long long v[10] = {0};
		int got = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		                 &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
		if (got >= 8) {
			*steal = v[7];
			*total = 0;
			for (int i = 0; i < 8; i++)   /* guest time is already in user */
				*total += v[i];
			ok = true;
		}
	}
	fclose(f);
	return ok;
}

static void clocksource(char *out, size_t len)
{
	if (rd("/sys/devices/system/clocksource/clocksource0/current_clocksource", out, len))
		out[0] = 0;
}

void conditions_begin(struct conditions *c, const char *cpus)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->cpus, sizeof(c->cpus), "%s", cpus ? cpus : "");
	conditions_capture(&c->before, c->cpus);
	c->have_stat = stat_jiffies(&c->steal0, &c->total0);
	clocksource(c->clocksource0, sizeof(c->clocksource0));
}

void conditions_end(struct conditions *c, struct result *r)
{
	kvlist_free(&r->conditions);
	kvlist_free(&r->conditions_changed);
	struct sink after = {.before = &c->before, .changed = &r->conditions_changed};
	capture(&after, c->cpus, true);
	r->conditions = c->before;   /* handed over, not copied */
	memset(&c->before, 0, sizeof(c->before));
	uint64_t steal1, total1;
	struct sink into = {.kv = &r->conditions}, changes = {.kv = &r->conditions_changed};
	if (c->have_stat && stat_jiffies(&steal1, &total1) && total1 > c->total0)
		put(&into, "steal", "%.2f%% of CPU time during the run",
		    100.0 * (double)(steal1 - c->steal0) / (double)(total1 - c->total0));
	else
		put(&into, "steal", "unreadable: no usable cpu line in %s/proc/stat", sysroot());
	char cs[64];
	clocksource(cs, sizeof(cs));
	if (strcmp(cs, c->clocksource0))
		put(&changes, "clocksource", "%s -> %s", c->clocksource0[0] ? c->clocksource0 : "?", cs[0] ? cs : "?");
}

/* linux/conditions.c and the power-management knobs of linux/knob.c against fake /proc, /sys
 * and /dev trees under $IRT_SYSROOT: what this VM lacks (cpufreq, SMT control, disabled idle
 * states on some CPUs, isolcpus) comes from here; the real machine is tested in
 * tests/cli/test_conditions.sh. */
#include "testutil.h"

#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "linux/conditions.h"
#include "linux/journal.h"
#include "linux/knob.h"

static char root[64], state[96];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s%s", root, rel);
	for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *get(const char *rel)
{
	static char buf[256];
	char p[512];
	snprintf(p, sizeof(p), "%s%s", root, rel);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static void rm_rel(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s%s", root, rel);
	nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put_pmqos(int32_t v)
{
	char p[512];
	put("/dev/cpu_dma_latency", "");
	snprintf(p, sizeof(p), "%s/dev/cpu_dma_latency", root);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(&v, sizeof(v), 1, f), 1);
	fclose(f);
}

#define CPU "/sys/devices/system/cpu"

/* A 4-CPU bare-metal-like machine with everything this VM lacks. */
static void full_tree(void)
{
	put(CPU "/online", "0-3\n");
	put(CPU "/cpuidle/current_driver", "intel_idle\n");
	put(CPU "/cpuidle/current_governor", "menu\n");
	static const char *const names[] = {"POLL", "C1", "C6"}, *const lat[] = {"0", "2", "133"};
	for (int c = 0; c < 4; c++) {
		char p[256], f[64];
		for (int s = 0; s < 3; s++) {
			snprintf(p, sizeof(p), CPU "/cpu%d/cpuidle/state%d/name", c, s);
			put(p, names[s]);
			snprintf(p, sizeof(p), CPU "/cpu%d/cpuidle/state%d/latency", c, s);
			put(p, lat[s]);
			snprintf(p, sizeof(p), CPU "/cpu%d/cpuidle/state%d/disable", c, s);
			put(p, c == 3 && s == 2 ? "1\n" : "0\n");
		}
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/scaling_driver", c);
		put(p, "intel_pstate\n");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/scaling_governor", c);
		put(p, "powersave\n");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/scaling_available_governors", c);
		put(p, "performance powersave\n");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/scaling_min_freq", c);
		put(p, "800000\n");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/scaling_max_freq", c);
		put(p, "4000000\n");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/cpuinfo_min_freq", c);
		put(p, "800000\n");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/cpuinfo_max_freq", c);
		put(p, "4000000\n");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/scaling_cur_freq", c);
		snprintf(f, sizeof(f), "%d\n", c < 2 ? 3900000 : 800000);
		put(p, f);
	}
	put(CPU "/intel_pstate/no_turbo", "1\n");
	put(CPU "/smt/control", "on\n");
	put(CPU "/smt/active", "1\n");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet isolcpus=2-3 nohz_full=2-3 idle=poll threadirqs "
	                     "preemptx=1 mitigations=off\n");
	put("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor lahf_lm\n");
	put("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	put("/sys/kernel/mm/transparent_hugepage/defrag", "always defer [defer+madvise] madvise never\n");
	put("/proc/irq/0/effective_affinity_list", "0\n");
	put("/proc/irq/1/effective_affinity_list", "2\n");
	put("/proc/irq/8/effective_affinity_list", "1-3\n");
	put("/proc/irq/9/effective_affinity_list", "1\n");
	put("/proc/irq/default_smp_affinity", "f\n");
	put("/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	put("/proc/sys/kernel/sched_rt_period_us", "1000000\n");
	put("/proc/sys/kernel/osrelease", "6.99.0-fake\n");
	put("/proc/stat", "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 2 3\n");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
	put("/boot/config-6.99.0-fake", "CONFIG_HZ=1000\n");
	put_pmqos(20);
}

static int setup(void **ctx)
{
	(void)ctx;
	snprintf(root, sizeof(root), "/tmp/irt-cond-test.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(state, sizeof(state), "%s/state", root);
	setenv("IRT_SYSROOT", root, 1);
	setenv("IRT_STATE_DIR", state, 1);
	full_tree();
	return 0;
}

static int teardown(void **ctx)
{
	struct err e = {0};
	(void)ctx;
	pmqos_release();
	journal_end(&e);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("IRT_SYSROOT");
	unsetenv("IRT_STATE_DIR");
	return 0;
}

static void expect(const struct kvlist *kv, const char *key, const char *want)
{
	const char *v = kvlist_get(kv, key);
	if (!v)
		fail_msg("manifest lacks %s", key);
	if (strcmp(v, want))
		fail_msg("%s: '%s', expected '%s'", key, v, want);
}

static void expect_part(const struct kvlist *kv, const char *key, const char *part)
{
	const char *v = kvlist_get(kv, key);
	if (!v)
		fail_msg("manifest lacks %s", key);
	if (!strstr(v, part))
		fail_msg("%s: '%s' lacks '%s'", key, v, part);
}

/* Every entry from a full fake tree, per-CPU values grouped. */
static void test_manifest_full(void **ctx)
{
	(void)ctx;
	struct kvlist kv = {0};
	conditions_capture(&kv, "2-3");
	expect(&kv, "pm_qos", "not held");
	expect(&kv, "pm_qos.system", "20 µs");
	expect(&kv, "cpuidle.driver", "intel_idle");
	expect(&kv, "cpuidle.governor", "menu");
	expect(&kv, "cpuidle.states", "cpu0-2: POLL (exit 0 µs), C1 (exit 2 µs), C6 (exit 133 µs); "
	                              "cpu3: POLL (exit 0 µs), C1 (exit 2 µs), C6 (exit 133 µs, disabled)");
	expect(&kv, "cpufreq.driver", "all CPUs: intel_pstate");
	expect(&kv, "cpufreq.governor", "all CPUs: powersave");
	expect(&kv, "cpufreq.min_khz", "all CPUs: 800000");
	expect(&kv, "cpufreq.max_khz", "all CPUs: 4000000");
	expect(&kv, "cpufreq.cur_khz", "cpu0-1: 3900000; cpu2-3: 800000");
	expect(&kv, "cpufreq.boost", "off (intel_pstate no_turbo=1)");
	expect(&kv, "smt", "on (active 1)");
	expect(&kv, "cmdline", "isolcpus=2-3 nohz_full=2-3 idle=poll threadirqs mitigations=off");
	expect(&kv, "hypervisor", "yes (type unknown)");
	expect(&kv, "thp", "always (defrag defer+madvise)");
	expect(&kv, "irq_affinity", "2 of 4 IRQs delivered to the probe CPUs 2-3");
	expect(&kv, "rt_throttling", "off (sched_rt_runtime_us = -1)");
	unsigned long crc = crc32(0L, (const Bytef *)"CONFIG_HZ=1000\n", 15);
	char want[64];
	snprintf(want, sizeof(want), "crc32 %08lx of 15 bytes", crc);
	expect(&kv, "kernel.config_hash", want);
	kvlist_free(&kv);

	/* without --cpus: every online CPU; boost from cpufreq/boost when present */
	put(CPU "/cpufreq/boost", "1\n");
	put("/sys/hypervisor/type", "xen\n");
	conditions_capture(&kv, "");
	expect(&kv, "irq_affinity", "4 of 4 IRQs delivered to the probe CPUs 0-3");
	expect(&kv, "cpufreq.boost", "on");
	expect(&kv, "hypervisor", "xen");
	kvlist_free(&kv);
}

/* What this VM lacks says why; nothing is guessed. */
static void test_manifest_missing(void **ctx)
{
	(void)ctx;
	for (int c = 0; c < 4; c++) {
		char p[128];
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq", c);
		rm_rel(p);
	}
	rm_rel(CPU "/intel_pstate");
	rm_rel(CPU "/smt");
	rm_rel(CPU "/cpuidle");
	rm_rel("/dev/cpu_dma_latency");
	rm_rel("/proc/irq");
	rm_rel("/boot");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet\n");
	put("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme sse2\n");
	put(CPU "/smt/control", "notsupported\n");
	struct kvlist kv = {0};
	conditions_capture(&kv, NULL);
	expect_part(&kv, "pm_qos.system", "unreadable: cannot read ");
	expect_part(&kv, "pm_qos.system", "/dev/cpu_dma_latency: No such file or directory");
	expect_part(&kv, "cpuidle.driver", "unavailable: no ");
	expect_part(&kv, "cpuidle.states", "CONFIG_CPU_IDLE");
	expect_part(&kv, "cpufreq.governor", "unavailable: no " CPU "/cpuN/cpufreq");
	expect_part(&kv, "cpufreq.cur_khz", "a VM, or a kernel without CONFIG_CPU_FREQ");
	expect_part(&kv, "cpufreq.boost", "unavailable: neither");
	expect(&kv, "smt", "notsupported");
	expect(&kv, "cmdline", "(none that matter)");
	expect(&kv, "hypervisor", "none");
	expect_part(&kv, "irq_affinity", "unreadable: ");
	expect_part(&kv, "kernel.config_hash", "unreadable: neither /proc/config.gz nor /boot/config-6.99.0-fake");
	/* and every key is still there: a reader can rely on the set */
	static const char *const keys[] = {"pm_qos", "pm_qos.system", "cpuidle.driver", "cpuidle.governor",
	                                   "cpuidle.states", "cpufreq.driver", "cpufreq.governor", "cpufreq.min_khz",
	                                   "cpufreq.max_khz", "cpufreq.cur_khz", "cpufreq.boost", "smt", "cmdline",
	                                   "hypervisor", "thp", "irq_affinity", "rt_throttling", "kernel.config_hash"};
	assert_int_equal(kv.n, (int)(sizeof(keys) / sizeof(keys[0])));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_string_equal(kv.v[i].key, keys[i]);
	kvlist_free(&kv);
}

/* Read before and after: what changed meanwhile is listed, steal is over the run. */
static void test_begin_end(void **ctx)
{
	(void)ctx;
	struct conditions c;
	struct result r = {0};
	struct err e = {0};
	assert_int_equal(result_init(&r, "probe", 1, &e), 0);
	conditions_begin(&c, "2-3");
	put(CPU "/cpu1/cpuidle/state2/disable", "1\n");   /* someone disables C6 on cpu1 */
	put(CPU "/cpu0/cpufreq/scaling_cur_freq", "1200000\n");   /* moves by itself: not a change */
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
	put_pmqos(0);
	put("/proc/stat", "cpu  150 0 150 1600 0 0 0 100 0 0\n");
	conditions_end(&c, &r);
	expect(&r.conditions, "pm_qos.system", "20 µs");   /* as read before */
	expect(&r.conditions, "steal", "10.00% of CPU time during the run");
	expect(&r.conditions_changed, "pm_qos.system", "20 µs -> 0 µs");
	expect_part(&r.conditions_changed, "cpuidle.states", " -> cpu0,2: POLL");
	expect(&r.conditions_changed, "clocksource", "tsc -> hpet");
	assert_null(kvlist_get(&r.conditions_changed, "cpufreq.cur_khz"));
	assert_int_equal(r.conditions_changed.n, 3);
	result_free(&r);
}

static void test_group_and_cmdline(void **ctx)
{
	(void)ctx;
	int cpus[] = {0, 1, 2, 4, 5, 7};
	char *v1[] = {"a", "a", "a", "a", "a", "a"}, *v2[] = {"a", "b", "a", "a", "b", "c"};
	char *g = conditions_group(cpus, v1, 6);
	assert_string_equal(g, "all CPUs: a");
	free(g);
	g = conditions_group(cpus, v2, 6);
	assert_string_equal(g, "cpu0,2,4: a; cpu1,5: b; cpu7: c");
	free(g);
	g = conditions_group(cpus + 3, v1, 1);
	assert_string_equal(g, "cpu4: a");
	free(g);
	char out[256];
	conditions_cmdline_flags("ro preempt=full rcu_nocbs=1 nohz=off intel_idle.max_cstate=1 "
	                         "processor.max_cstate=1 idlex=1 isolcpus", out, sizeof(out));
	assert_string_equal(out, "preempt=full rcu_nocbs=1 nohz=off intel_idle.max_cstate=1 processor.max_cstate=1 isolcpus");
	conditions_cmdline_flags("", out, sizeof(out));
	assert_string_equal(out, "(none that matter)");
}

/* The hold writes the value as the binary s32 the device takes and shows in the manifest. */
static void test_pmqos_hold(void **ctx)
{
	(void)ctx;
	struct err e = {0};
	struct kvlist kv = {0};
	put_pmqos(2000000000);
	assert_int_equal(pmqos_held(), -1);
	assert_int_equal(pmqos_hold(0, &e), 0);
	assert_int_equal(pmqos_held(), 0);
	int64_t v = -1;
	assert_int_equal(pmqos_read_system(&v, &e), 0);
	assert_int_equal(v, 0);
	conditions_capture(&kv, NULL);
	expect(&kv, "pm_qos", "held at 0 µs");
	expect(&kv, "pm_qos.system", "0 µs");
	kvlist_free(&kv);
	pmqos_release();
	assert_int_equal(pmqos_held(), -1);
	assert_int_equal(pmqos_hold(-1, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	rm_rel("/dev/cpu_dma_latency");
	memset(&e, 0, sizeof(e));
	assert_int_equal(pmqos_hold(0, &e), -1);
	assert_int_equal(e.code, EXIT_RUNTIME);
	assert_non_null(strstr(e.msg, "no CPU latency PM QoS device"));
}

/* ---- knobs ---- */

static struct knob_ctx kc;

static void apply_ok(const char *name, const char *value, const char *want)
{
	struct err e = {0};
	char eff[128];
	const struct knob *k = knob_find(name);
	assert_non_null(k);
	if (knob_apply(k, &kc, value, eff, sizeof(eff), &e))
		fail_msg("%s=%s: %s", name, value, e.msg);
	assert_string_equal(eff, want);
}

static void apply_fails(const char *name, const char *value, int code, const char *part)
{
	struct err e = {0};
	const struct knob *k = knob_find(name);
	assert_non_null(k);
	assert_int_equal(knob_apply(k, &kc, value, NULL, 0, &e), -1);
	assert_int_equal(e.code, code);
	if (!strstr(e.msg, part))
		fail_msg("%s=%s: '%s' lacks '%s'", name, value, e.msg, part);
}

static void unavailable(const char *name, const char *part)
{
	struct err why = {0};
	assert_int_equal(knob_available(knob_find(name), &kc, &why), -1);
	if (!strstr(why.msg, part))
		fail_msg("%s: '%s' lacks '%s'", name, why.msg, part);
}

static void restore(void)
{
	struct err e = {0};
	if (knob_restore_all(&kc, &e))
		fail_msg("restore: %s", e.msg);
}

/* cpuidle: journaled per CPU and state before the write, restored exactly. */
static void test_knob_cpuidle(void **ctx)
{
	(void)ctx;
	memset(&kc, 0, sizeof(kc));
	char buf[64];
	struct err e = {0};
	assert_int_equal(knob_read(knob_find("cpuidle.max_state"), &kc, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "2 (cpu-dependent)");
	apply_ok("cpuidle.max_state", "C1", "1");
	for (int c = 0; c < 4; c++) {
		char p[128];
		snprintf(p, sizeof(p), CPU "/cpu%d/cpuidle/state2/disable", c);
		assert_string_equal(get(p), "1");
		snprintf(p, sizeof(p), CPU "/cpu%d/cpuidle/state1/disable", c);
		assert_string_equal(get(p), "0");
	}
	assert_int_equal(knob_read(knob_find("cpuidle.disable"), &kc, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "C6");
	restore();
	assert_string_equal(get(CPU "/cpu0/cpuidle/state2/disable"), "0");
	assert_string_equal(get(CPU "/cpu3/cpuidle/state2/disable"), "1");   /* as it was */
	apply_ok("cpuidle.disable", "0", "POLL");
	assert_string_equal(get(CPU "/cpu2/cpuidle/state0/disable"), "1");
	restore();
	assert_string_equal(get(CPU "/cpu2/cpuidle/state0/disable"), "0");
	apply_ok("cpuidle.disable", "none", "none");
	assert_string_equal(get(CPU "/cpu3/cpuidle/state2/disable"), "0");
	restore();
	assert_string_equal(get(CPU "/cpu3/cpuidle/state2/disable"), "1");
	apply_fails("cpuidle.disable", "C9", EXIT_USAGE, "expected none, a state number 0..2, or a name: POLL, C1, C6");
	apply_fails("cpuidle.max_state", "none", EXIT_USAGE, "the deepest state allowed");
	apply_fails("cpuidle.max_state", "7", EXIT_USAGE, "not a cpuidle state here");
	rm_rel(CPU "/cpuidle");
	unavailable("cpuidle.max_state", "CONFIG_CPU_IDLE");
}

static void test_knob_cpufreq_smt(void **ctx)
{
	(void)ctx;
	memset(&kc, 0, sizeof(kc));
	apply_ok("cpufreq.governor", "performance", "performance");
	apply_ok("cpufreq.min_freq", "2000000", "2000000");
	assert_string_equal(get(CPU "/cpu3/cpufreq/scaling_governor"), "performance");
	assert_string_equal(get(CPU "/cpu3/cpufreq/scaling_min_freq"), "2000000");
	apply_ok("smt", "off", "off");
	restore();
	assert_string_equal(get(CPU "/cpu3/cpufreq/scaling_governor"), "powersave");
	assert_string_equal(get(CPU "/cpu0/cpufreq/scaling_min_freq"), "800000");
	assert_string_equal(get(CPU "/smt/control"), "on");
	apply_fails("cpufreq.governor", "ondemand", EXIT_USAGE, "expected one of: performance powersave");
	apply_fails("cpufreq.min_freq", "100", EXIT_USAGE, "outside this CPU's range (800000 to 4000000 kHz)");
	apply_fails("smt", "1", EXIT_USAGE, "expected on or off");
	put(CPU "/smt/control", "notsupported\n");
	unavailable("smt", "SMT is not supported by these CPUs");
	for (int c = 0; c < 4; c++) {
		char p[128];
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq", c);
		rm_rel(p);
	}
	unavailable("cpufreq.governor", "no frequency scaling exposed here");
	unavailable("cpufreq.min_freq", "no frequency scaling exposed here");
}

/* Journal entries a crashed irt left are replayed only onto these knobs' own files. */
static void test_knob_journal_ok(void **ctx)
{
	(void)ctx;
	char p[512], why[256];
	snprintf(p, sizeof(p), "%s" CPU "/cpu3/cpuidle/state2/disable", root);
	assert_true(knob_journal_ok("cpuidle.max_state", p, "1", why, sizeof(why)));
	assert_true(knob_journal_ok("cpuidle.disable", p, "0", why, sizeof(why)));
	/* the restore line shows a state file's flag as the file's, not as the knob's value
	 * ("cpuidle.max_state = 0" would read as "only state 0 allowed") */
	assert_null(knob_journal_value("cpuidle.max_state", "0", why, sizeof(why)));
	assert_null(knob_journal_value("cpuidle.disable", "1", why, sizeof(why)));
	assert_string_equal(knob_journal_value("kernel.sched_rt_runtime_us", "950000", why, sizeof(why)), "950ms");
	assert_false(knob_journal_ok("cpufreq.governor", p, "0", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s" CPU "/cpu12/cpufreq/scaling_governor", root);
	assert_true(knob_journal_ok("cpufreq.governor", p, "powersave", why, sizeof(why)));
	assert_false(knob_journal_ok("cpufreq.governor", p, "../x", why, sizeof(why)));
	assert_false(knob_journal_ok("cpufreq.min_freq", p, "800000", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s" CPU "/cpu1/cpufreq/scaling_min_freq", root);
	assert_true(knob_journal_ok("cpufreq.min_freq", p, "800000", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s" CPU "/cpux/cpufreq/scaling_min_freq", root);
	assert_false(knob_journal_ok("cpufreq.min_freq", p, "800000", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s" CPU "/smt/control", root);
	assert_true(knob_journal_ok("smt", p, "on", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s/dev/cpu_dma_latency", root);
	assert_false(knob_journal_ok("pm.dma_latency", p, "0", why, sizeof(why)));
}

static void test_knob_pm(void **ctx)
{
	(void)ctx;
	memset(&kc, 0, sizeof(kc));
	char buf[64];
	struct err e = {0};
	put_pmqos(2000000000);
	assert_int_equal(knob_read(knob_find("pm.dma_latency"), &kc, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "none");
	apply_ok("pm.dma_latency", "20us", "20us");
	assert_int_equal(pmqos_held(), 20);
	restore();   /* the hold ends with the descriptor */
	assert_int_equal(pmqos_held(), -1);
	apply_ok("pm.dma_latency", "0", "0ns");
	apply_ok("pm.dma_latency", "none", "none");
	assert_int_equal(pmqos_held(), -1);
	apply_fails("pm.dma_latency", "soon", EXIT_USAGE, "expected none, or a duration");
	rm_rel("/dev/cpu_dma_latency");
	unavailable("pm.dma_latency", "kernel without CPU latency PM QoS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_manifest_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_manifest_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_and_cmdline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pmqos_hold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_knob_cpuidle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_knob_cpufreq_smt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_knob_pm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_knob_journal_ok, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

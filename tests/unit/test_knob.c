/* The knob registry, the cgroup helper and the crash journal against fake /proc, /sys and
 * cgroup trees (IRT_SYSROOT) in a temporary directory, in cgroup v1 and v2 layouts. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "linux/cgroup.h"
#include "linux/journal.h"
#include "linux/knob.h"
#include "linux/sysfile.h"
#include "opt.h"

static char root[256];   /* the fake system */
static char state[300];  /* IRT_STATE_DIR */

/* ------------------------------------------------------------------ fake trees */

static void put(const char *rel, const char *content)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* Contents of a fake file, trailing newline removed; "" when missing. */
static const char *get(const char *rel)
{
	static char buf[4096];
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	buf[0] = 0;
	FILE *f = fopen(p, "r");
	if (!f)
		return "<missing>";
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	return buf;
}

static bool exists(const char *rel)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return access(p, F_OK) == 0;
}

static const char *journal_text(void)
{
	static char buf[8192];
	char p[400];
	snprintf(p, sizeof(p), "%s/journal", state);
	buf[0] = 0;
	FILE *f = fopen(p, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static void common_tree(void)
{
	put("proc/sys/kernel/sched_rr_timeslice_ms", "100\n");
	put("proc/sys/kernel/sched_rt_runtime_us", "950000\n");
	put("proc/sys/kernel/sched_rt_period_us", "1000000\n");
	put("proc/sys/kernel/sched_autogroup_enabled", "1\n");
}

static void v1_tree(void)
{
	common_tree();
	put("proc/self/mountinfo",
	    "25 1 0:23 / /sys rw - sysfs sysfs rw\n"
	    "30 25 0:27 / /sys/fs/cgroup/cpu rw,nosuid shared:9 - cgroup cgroup rw,cpu\n"
	    "31 25 0:28 / /sys/fs/cgroup/cpuacct rw shared:10 - cgroup cgroup rw,cpuacct\n"
	    "32 25 0:29 / /sys/fs/cgroup/unified rw shared:11 - cgroup2 cgroup2 rw\n");
	put("proc/self/cgroup", "2:cpuacct:/\n1:cpu:/\n0::/\n");
	put("sys/fs/cgroup/cpu/cgroup.procs", "1\n");
	put("sys/fs/cgroup/cpu/tasks", "1\n");
	put("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
	put("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
	put("sys/fs/cgroup/cpu/cpu.cfs_burst_us", "0\n");
	put("sys/fs/cgroup/cpu/cpu.shares", "1024\n");
	put("sys/fs/cgroup/cpu/cpu.idle", "0\n");
	put("sys/fs/cgroup/cpu/cpu.rt_runtime_us", "950000\n");
	put("sys/fs/cgroup/unified/cgroup.controllers", "\n");
	put("sys/kernel/debug/sched/base_slice_ns", "3000000\n");
	put("sys/kernel/debug/sched/migration_cost_ns", "500000\n");
	put("sys/kernel/debug/sched/fair_server/cpu0/runtime", "50000000\n");
	put("sys/kernel/debug/sched/fair_server/cpu1/runtime", "50000000\n");
}

static void v2_tree(void)
{
	common_tree();
	put("proc/self/mountinfo", "30 25 0:27 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n");
	put("proc/self/cgroup", "0::/user.slice/session-1.scope\n");
	put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
	put("sys/fs/cgroup/cgroup.subtree_control", "memory pids\n");
	put("sys/fs/cgroup/cgroup.procs", "1\n");
	put("sys/fs/cgroup/user.slice/cgroup.controllers", "cpu memory pids\n");
	put("sys/fs/cgroup/user.slice/cgroup.subtree_control", "cpu memory pids\n");
	put("sys/fs/cgroup/user.slice/session-1.scope/cgroup.controllers", "cpu memory pids\n");
	put("sys/fs/cgroup/user.slice/session-1.scope/cgroup.subtree_control", "cpu\n");
	put("sys/fs/cgroup/user.slice/session-1.scope/cgroup.procs", "4242\n");
	put("sys/fs/cgroup/user.slice/session-1.scope/cpu.max", "max 100000\n");
	/* debugfs mount point without debugfs mounted */
	char p[400];
	snprintf(p, sizeof(p), "%s/sys/kernel/debug", root);
	mkdir(p, 0755);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static int setup(void **ctx)
{
	(void)ctx;
	snprintf(root, sizeof(root), "/tmp/irt-knob-test.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(state, sizeof(state), "%s/state", root);
	setenv("IRT_SYSROOT", root, 1);
	setenv("IRT_STATE_DIR", state, 1);
	return 0;
}

static int teardown(void **ctx)
{
	struct err e = {0};
	(void)ctx;
	journal_end(&e);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("IRT_SYSROOT");
	return 0;
}

static struct knob_ctx kctx;

static void init_ctx(void)
{
	struct err e = {0};
	assert_int_equal(knob_ctx_init(&kctx, &e), 0);
}

static void apply_ok(const char *name, const char *value, const char *want_effective)
{
	struct err e = {0};
	char eff[128];
	const struct knob *k = knob_find(name);
	assert_non_null(k);
	if (knob_apply(k, &kctx, value, eff, sizeof(eff), &e))
		fail_msg("%s=%s: %s", name, value, e.msg);
	assert_string_equal(eff, want_effective);
}

static void apply_fails(const char *name, const char *value, int code, const char *msg_part)
{
	struct err e = {0};
	const struct knob *k = knob_find(name);
	assert_non_null(k);
	assert_int_equal(knob_apply(k, &kctx, value, NULL, 0, &e), -1);
	assert_int_equal(e.code, code);
	if (!strstr(e.msg, msg_part))
		fail_msg("%s=%s: '%s' lacks '%s'", name, value, e.msg, msg_part);
}

static void restore_ok(void)
{
	struct err e = {0};
	if (knob_restore_all(&kctx, &e))
		fail_msg("restore: %s", e.msg);
	assert_null(journal_text());
}

/* ------------------------------------------------------------------ detection */

static void test_detect_v1(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	char want[512];
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/cpu", root);
	assert_int_equal(kctx.hier.version, CG_V1);
	assert_string_equal(kctx.hier.mount, want);
	assert_string_equal(kctx.hier.self, "/");
	assert_true(kctx.hier.emulated);
}

static void test_detect_v2(void **ctx)
{
	(void)ctx;
	v2_tree();
	init_ctx();
	char want[512];
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup", root);
	assert_int_equal(kctx.hier.version, CG_V2);
	assert_string_equal(kctx.hier.mount, want);
	assert_string_equal(kctx.hier.self, "/user.slice/session-1.scope");
}

/* Without mountinfo the usual mount points are tried. */
static void test_detect_fallback(void **ctx)
{
	(void)ctx;
	v1_tree();
	char p[512];
	snprintf(p, sizeof(p), "%s/proc/self/mountinfo", root);
	unlink(p);
	init_ctx();
	assert_int_equal(kctx.hier.version, CG_V1);
}

/* A cgroup2 mount without the cpu controller and no v1 cpu: cgroup knobs say why not. */
static void test_detect_none(void **ctx)
{
	(void)ctx;
	common_tree();
	put("proc/self/mountinfo", "32 25 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
	put("sys/fs/cgroup/unified/cgroup.controllers", "memory pids\n");
	init_ctx();
	assert_int_equal(kctx.hier.version, CG_NONE);
	struct err why = {0};
	assert_int_equal(knob_available(knob_find("cgroup.quota"), &kctx, &why), -1);
	assert_non_null(strstr(why.msg, "no cgroup hierarchy with the cpu controller"));
	apply_fails("cgroup.quota", "10ms", EXIT_RUNTIME, "unavailable here");
	assert_null(journal_text());
}

/* ------------------------------------------------------------------ values */

static void test_values(void **ctx)
{
	(void)ctx;
	struct err e = {0};
	int64_t v;
	char buf[64];
	const struct knob *rr = knob_find("kernel.sched_rr_timeslice_ms");
	const struct knob *q = knob_find("cgroup.quota");
	assert_int_equal(knob_parse_value(rr, "10", &v, &e), 0); /* bare: the file's unit */
	assert_int_equal(v, 10000000);
	assert_int_equal(knob_parse_value(rr, "0.5s", &v, &e), 0);
	assert_string_equal(knob_format_value(rr, v, buf, sizeof(buf)), "500ms");
	assert_int_equal(knob_parse_value(rr, "4500us", &v, &e), -1); /* not whole ms */
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "not a whole number of ms"));
	err_clear(&e);
	assert_int_equal(knob_parse_value(rr, "0", &v, &e), -1); /* below 1ms */
	assert_non_null(strstr(e.msg, "out of range"));
	err_clear(&e);
	assert_int_equal(knob_parse_value(rr, "fast", &v, &e), -1);
	assert_non_null(strstr(e.msg, "expected a duration from 1ms"));
	err_clear(&e);
	assert_int_equal(knob_parse_value(q, "max", &v, &e), 0);
	assert_int_equal(v, -1);
	assert_string_equal(knob_format_value(q, v, buf, sizeof(buf)), "max");
	assert_int_equal(knob_parse_value(rr, "max", &v, &e), -1); /* no "max" for it */
	err_clear(&e);
	const struct knob *ag = knob_find("kernel.sched_autogroup_enabled");
	assert_int_equal(knob_parse_value(ag, "2", &v, &e), -1);
	assert_int_equal(knob_parse_value(knob_find("cgroup.shares"), "1", &v, &e), -1);
	assert_null(knob_find("kernel.bogus"));

	const struct knob *k;
	char val[64];
	err_clear(&e);
	assert_int_equal(knob_parse_setting("cgroup.period=10ms", &k, val, sizeof(val), &e), 0);
	assert_ptr_equal(k, knob_find("cgroup.period"));
	assert_string_equal(val, "10ms");
	assert_int_equal(knob_parse_setting("nope=1", &k, val, sizeof(val), &e), -1);
	assert_non_null(strstr(e.msg, "nope: unknown knob"));
	err_clear(&e);
	assert_int_equal(knob_parse_setting("cgroup.period", &k, val, sizeof(val), &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
}

/* ------------------------------------------------------------------ system knobs */

static void test_sysctl_apply_restore(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	apply_ok("kernel.sched_rr_timeslice_ms", "10ms", "10ms");
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "10");
	/* the journal holds the original, not the new value */
	assert_non_null(strstr(journal_text(), "write\t"));
	assert_non_null(strstr(journal_text(), "/proc/sys/kernel/sched_rr_timeslice_ms\t100\t"));
	apply_ok("kernel.sched_rr_timeslice_ms", "20", "20ms");
	apply_ok("kernel.sched_rt_period_us", "2s", "2s");
	assert_string_equal(get("proc/sys/kernel/sched_rt_period_us"), "2000000");
	apply_ok("kernel.sched_rt_runtime_us", "1500ms", "1500ms");
	assert_string_equal(get("proc/sys/kernel/sched_rt_runtime_us"), "1500000");
	apply_ok("kernel.sched_autogroup_enabled", "0", "0");
	/* the second change of a path keeps the first original */
	const char *j = journal_text();
	const char *first = strstr(j, "sched_rr_timeslice_ms\t");
	assert_non_null(first);
	assert_null(strstr(first + 1, "sched_rr_timeslice_ms\t"));
	restore_ok();
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "100");
	assert_string_equal(get("proc/sys/kernel/sched_rt_period_us"), "1000000");
	assert_string_equal(get("proc/sys/kernel/sched_rt_runtime_us"), "950000");
	assert_string_equal(get("proc/sys/kernel/sched_autogroup_enabled"), "1");
}

/* irt never turns RT throttling off unless told to. */
static void test_rt_unthrottled_refused(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	apply_fails("kernel.sched_rt_runtime_us", "-1", EXIT_USAGE, "--allow-rt-unthrottled");
	apply_fails("kernel.sched_rt_runtime_us", "max", EXIT_USAGE, "--allow-rt-unthrottled");
	assert_string_equal(get("proc/sys/kernel/sched_rt_runtime_us"), "950000");
	assert_null(journal_text());
	apply_fails("kernel.sched_rt_runtime_us", "2s", EXIT_USAGE, "exceeds kernel.sched_rt_period_us (1s)");
	kctx.allow_rt_unthrottled = true;
	apply_ok("kernel.sched_rt_runtime_us", "-1", "max");
	assert_string_equal(get("proc/sys/kernel/sched_rt_runtime_us"), "-1");
	restore_ok();
	assert_string_equal(get("proc/sys/kernel/sched_rt_runtime_us"), "950000");
}

/* With RT group scheduling the kernel refuses a global RT share below the root cpu cgroup's
 * (EINVAL): refused first with the file to lower, nothing changed; once it is lower, allowed. */
static void test_rt_below_root_group_refused(void **ctx)
{
	(void)ctx;
	v1_tree();
	put("sys/fs/cgroup/cpu/cpu.rt_period_us", "1000000\n");
	init_ctx();
	apply_fails("kernel.sched_rt_runtime_us", "500ms", EXIT_USAGE,
		    "'500ms' gives realtime tasks 500ms of every 1s, less than the root cpu cgroup's 950ms of 1s");
	apply_fails("kernel.sched_rt_period_us", "2s", EXIT_USAGE, "/sys/fs/cgroup/cpu/cpu.rt_runtime_us): with RT group");
	assert_string_equal(get("proc/sys/kernel/sched_rt_runtime_us"), "950000");
	assert_string_equal(get("proc/sys/kernel/sched_rt_period_us"), "1000000");
	assert_null(journal_text());
	apply_ok("kernel.sched_rt_runtime_us", "990ms", "990ms");   /* a larger share is fine */
	put("sys/fs/cgroup/cpu/cpu.rt_runtime_us", "400000\n");
	apply_ok("kernel.sched_rt_runtime_us", "500ms", "500ms");
	restore_ok();
	assert_string_equal(get("proc/sys/kernel/sched_rt_runtime_us"), "950000");
}

static void test_debugfs_apply_restore(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	struct err why = {0};
	assert_int_equal(knob_available(knob_find("sched.base_slice_ns"), &kctx, &why), 0);
	apply_ok("sched.base_slice_ns", "1ms", "1ms");
	assert_string_equal(get("sys/kernel/debug/sched/base_slice_ns"), "1000000");
	apply_ok("sched.migration_cost_ns", "0", "0ns");
	apply_ok("sched.fair_server_runtime_ns", "25ms", "25ms");
	assert_string_equal(get("sys/kernel/debug/sched/fair_server/cpu0/runtime"), "25000000");
	assert_string_equal(get("sys/kernel/debug/sched/fair_server/cpu1/runtime"), "25000000");
	restore_ok();
	assert_string_equal(get("sys/kernel/debug/sched/base_slice_ns"), "3000000");
	assert_string_equal(get("sys/kernel/debug/sched/migration_cost_ns"), "500000");
	assert_string_equal(get("sys/kernel/debug/sched/fair_server/cpu0/runtime"), "50000000");
	assert_string_equal(get("sys/kernel/debug/sched/fair_server/cpu1/runtime"), "50000000");
}

static void test_debugfs_unmounted(void **ctx)
{
	(void)ctx;
	v2_tree();
	init_ctx();
	const char *names[] = {"sched.base_slice_ns", "sched.migration_cost_ns", "sched.fair_server_runtime_ns"};
	for (int i = 0; i < 3; i++) {
		struct err why = {0};
		char buf[64];
		assert_int_equal(knob_available(knob_find(names[i]), &kctx, &why), -1);
		assert_non_null(strstr(why.msg, "debugfs is not mounted"));
		assert_int_equal(knob_read(knob_find(names[i]), &kctx, buf, sizeof(buf), &why), -1);
		apply_fails(names[i], "1ms", EXIT_RUNTIME, "unavailable here: debugfs is not mounted");
	}
	assert_null(journal_text());
}

/* The journal entry is on disk before the write is tried: a write that fails still leaves
 * the original recorded. /dev/full reads as an empty value and refuses every write. */
static void test_journal_before_write(void **ctx)
{
	(void)ctx;
	v1_tree();
	char p[512];
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/sched_autogroup_enabled", root);
	unlink(p);
	assert_int_equal(symlink("/dev/full", p), 0);
	init_ctx();
	struct err e = {0};
	char eff[64];
	assert_int_equal(knob_apply(knob_find("kernel.sched_autogroup_enabled"), &kctx, "0", eff, sizeof(eff), &e), -1);
	assert_non_null(strstr(e.msg, "No space left on device"));
	assert_non_null(journal_text());
	assert_non_null(strstr(journal_text(), "/proc/sys/kernel/sched_autogroup_enabled\t\t"));
	/* the failed write changed nothing: restore leaves the file alone and reports nothing */
	unlink(p);
	put("proc/sys/kernel/sched_autogroup_enabled", "1\n");
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct journal_report r = {0};
	assert_int_equal(journal_restore(f, &r, &e), 0);
	fclose(f);
	assert_string_equal(out, "");
	assert_int_equal(r.settings, 0);
	free(out);
	assert_null(journal_text());
	assert_string_equal(get("proc/sys/kernel/sched_autogroup_enabled"), "1");
}

/* ------------------------------------------------------------------ cgroup knobs */

static void test_cgroup_v1_apply_restore(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	char dir[128];
	snprintf(dir, sizeof(dir), "sys/fs/cgroup/cpu/irt-%d-probes", (int)getpid());
	char buf[64];
	struct err e = {0};
	assert_int_equal(knob_read(knob_find("cgroup.quota"), &kctx, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "max"); /* irt's own cgroup (the root) */
	/* but not the root's RT budget (950ms): a new cgroup starts with none */
	assert_int_equal(knob_read(knob_find("cgroup.rt_runtime"), &kctx, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "0ns");
	assert_null(knob_cgroup(&kctx));
	apply_ok("cgroup.quota", "50ms", "50ms");
	assert_non_null(knob_cgroup(&kctx));
	assert_true(exists(dir));
	assert_non_null(strstr(journal_text(), "fakecgroup\t"));
	char f[256];
	snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", dir);
	assert_string_equal(get(f), "50000");
	apply_ok("cgroup.period", "10ms", "10ms");
	snprintf(f, sizeof(f), "%s/cpu.cfs_period_us", dir);
	assert_string_equal(get(f), "10000");
	apply_ok("cgroup.burst", "5ms", "5ms");
	apply_ok("cgroup.shares", "512", "512");
	apply_ok("cgroup.idle", "1", "1");
	apply_ok("cgroup.quota", "max", "max");
	snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", dir);
	assert_string_equal(get(f), "-1");
	apply_ok("cgroup.rt_runtime", "500ms", "500ms");
	snprintf(f, sizeof(f), "%s/cpu.rt_runtime_us", dir);
	assert_string_equal(get(f), "500000");
	apply_fails("cgroup.weight", "100", EXIT_RUNTIME, "cgroup v1 has no cpu.weight file (use cgroup.shares)");
	apply_fails("cgroup.period", "2s", EXIT_USAGE, "out of range");
	/* the root's own files were never touched */
	assert_string_equal(get("sys/fs/cgroup/cpu/cpu.cfs_quota_us"), "-1");
	restore_ok();
	assert_false(exists(dir));
	assert_null(knob_cgroup(&kctx));

	/* the loads' cgroup instead */
	kctx.cgroup_of = KNOB_CG_LOADS;
	apply_ok("cgroup.shares", "2", "2");
	snprintf(dir, sizeof(dir), "sys/fs/cgroup/cpu/irt-%d-loads", (int)getpid());
	assert_true(exists(dir));
	restore_ok();
	assert_false(exists(dir));
}

static void test_cgroup_v2_apply_restore(void **ctx)
{
	(void)ctx;
	v2_tree();
	init_ctx();
	char dir[128], f[256];
	snprintf(dir, sizeof(dir), "sys/fs/cgroup/irt-%d-probes", (int)getpid());
	apply_ok("cgroup.quota", "50ms", "50ms");
	/* the root's subtree_control lacked cpu: enabled, and journaled to be disabled again */
	assert_string_equal(get("sys/fs/cgroup/cgroup.subtree_control"), "+cpu");
	assert_non_null(strstr(journal_text(), "cgroup.subtree_control\t-cpu"));
	snprintf(f, sizeof(f), "%s/cpu.max", dir);
	assert_string_equal(get(f), "50000");
	apply_ok("cgroup.period", "10ms", "10ms");
	assert_string_equal(get(f), "50000 10000"); /* the period keeps the quota */
	apply_ok("cgroup.quota", "max", "max");
	assert_string_equal(get(f), "max");
	apply_ok("cgroup.burst", "1ms", "1ms");
	snprintf(f, sizeof(f), "%s/cpu.max.burst", dir);
	assert_string_equal(get(f), "1000");
	apply_ok("cgroup.weight", "200", "200");
	snprintf(f, sizeof(f), "%s/cpu.weight", dir);
	assert_string_equal(get(f), "200");
	apply_ok("cgroup.idle", "1", "1");
	apply_fails("cgroup.shares", "100", EXIT_RUNTIME, "cgroup v2 has no cpu.shares file (use cgroup.weight)");
	apply_fails("cgroup.rt_runtime", "1ms", EXIT_RUNTIME, "cgroup v2 has no cpu.rt_runtime_us file");
	restore_ok();
	assert_false(exists(dir));
	assert_string_equal(get("sys/fs/cgroup/cgroup.subtree_control"), "-cpu");
}

/* Under irt's own cgroup, whose subtree_control already has cpu: nothing else changes. */
static void test_cgroup_v2_under_self(void **ctx)
{
	(void)ctx;
	v2_tree();
	init_ctx();
	kctx.cg_parent = CG_AT_SELF;
	char buf[64];
	struct err e = {0};
	assert_int_equal(knob_read(knob_find("cgroup.quota"), &kctx, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "max");
	assert_int_equal(knob_read(knob_find("cgroup.weight"), &kctx, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "100"); /* no such file in irt's cgroup: a new cgroup's default */
	apply_ok("cgroup.weight", "50", "50");
	char dir[160];
	snprintf(dir, sizeof(dir), "sys/fs/cgroup/user.slice/session-1.scope/irt-%d-probes", (int)getpid());
	assert_true(exists(dir));
	assert_null(strstr(journal_text(), "subtree_control"));
	restore_ok();
	assert_false(exists(dir));
	assert_string_equal(get("sys/fs/cgroup/cgroup.subtree_control"), "memory pids");
}

static void test_cgroup_move_stat_remove(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	struct err e = {0};
	assert_int_equal(knob_cgroup_ensure(&kctx, &e), 0);
	const struct cgroup *cg = knob_cgroup(&kctx);
	assert_non_null(cg);
	assert_int_equal(cgroup_move(cg, 31337, true, &e), 0);
	char rel[160];
	snprintf(rel, sizeof(rel), "sys/fs/cgroup/cpu/irt-%d-probes/tasks", (int)getpid());
	assert_string_equal(get(rel), "31337");
	put("sys/fs/cgroup/cpu/tasks", "");

	/* v1 names */
	snprintf(rel, sizeof(rel), "sys/fs/cgroup/cpu/irt-%d-probes/cpu.stat", (int)getpid());
	put(rel, "nr_periods 10\nnr_throttled 4\nthrottled_time 123456789\nnr_bursts 1\nburst_time 5000\n");
	struct cg_stat st;
	assert_int_equal(cgroup_stat_read(cg->path, &st, &e), 0);
	assert_int_equal(st.nr_periods, 10);
	assert_int_equal(st.nr_throttled, 4);
	assert_int_equal(st.throttled_ns, 123456789);
	assert_int_equal(st.nr_bursts, 1);
	assert_int_equal(st.burst_ns, 5000);
	assert_int_equal(st.usage_ns, -1);
	/* v2 names, in microseconds */
	put(rel, "usage_usec 77\nuser_usec 70\nsystem_usec 7\nnr_periods 3\nnr_throttled 2\nthrottled_usec 1500\n"
		 "nr_bursts 0\nburst_usec 0\n");
	assert_int_equal(cgroup_stat_read(cg->path, &st, &e), 0);
	assert_int_equal(st.throttled_ns, 1500000);
	assert_int_equal(st.usage_ns, 77000);
	assert_int_equal(st.nr_throttled, 2);

	/* removal hands leftover tasks back to the parent first */
	struct cgroup copy = *cg;
	assert_int_equal(cgroup_remove(&copy, &e), 0);
	assert_string_equal(get("sys/fs/cgroup/cpu/tasks"), "31337");
	snprintf(rel, sizeof(rel), "sys/fs/cgroup/cpu/irt-%d-probes", (int)getpid());
	assert_false(exists(rel));
	assert_int_equal(cgroup_remove(&copy, &e), 0); /* gone already: done */
	restore_ok(); /* the journal's entry for it is satisfied too */
}

/* ------------------------------------------------------------------ thread knobs */

static void test_thread_knobs(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	struct err e = {0};
	char buf[64];
	assert_int_equal(knob_read(knob_find("policy"), &kctx, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "other");
	assert_int_equal(knob_read(knob_find("slack"), &kctx, buf, sizeof(buf), &e), 0);
	assert_int_equal(knob_validate(knob_find("policy"), &kctx, "warp", &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "unknown value 'warp'"));
	err_clear(&e);
	assert_int_equal(knob_validate(knob_find("nice"), &kctx, "20", &e), -1);
	err_clear(&e);
	assert_int_equal(knob_validate(knob_find("slice"), &kctx, "200ms", &e), -1);
	err_clear(&e);
	assert_int_equal(knob_validate(knob_find("prio"), &kctx, "50", &e), 0);

	/* no probe config: refused, nothing changes */
	apply_fails("policy", "batch", EXIT_USAGE, "the probe applies it to itself");
	struct probe_cfg pc;
	memset(&pc, 0, sizeof(pc));
	opt_defaults(SCOPE_PROBE, &pc);
	kctx.probe = &pc;
	if (geteuid() == 0)
		apply_ok("policy", "fifo", "fifo");
	else
		apply_ok("policy", "batch", "batch");
	apply_ok("nice", "5", "5");
	apply_ok("slice", "3ms", "3ms");
	apply_ok("slack", "100us", "100us");
	if (geteuid() == 0)
		apply_ok("dl-runtime", "2ms", "2ms");
	else   /* SCHED_DEADLINE needs root: refused, saying so, and the probe keeps its value */
		apply_fails("dl-runtime", "2ms", EXIT_RUNTIME, "needs root");
	assert_int_equal(pc.policy, geteuid() == 0 ? POL_FIFO : POL_BATCH);
	assert_int_equal(pc.nice, 5);
	assert_int_equal(pc.slice, 3000000);
	assert_int_equal(pc.slack, 100000);
	assert_int_equal(pc.dl_runtime, geteuid() == 0 ? 2000000 : 0);
	assert_null(journal_text()); /* no system change */
}

/* ------------------------------------------------------------------ crashes, signals, locks */

/* A child changes a sysctl and creates a cgroup, then dies by SIGKILL; recovery in the
 * next "irt" (here: this process) restores both. */
static void test_crash_recovery(void **ctx)
{
	(void)ctx;
	v1_tree();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		init_ctx();
		struct err e = {0};
		if (knob_apply(knob_find("kernel.sched_rr_timeslice_ms"), &kctx, "4ms", NULL, 0, &e) ||
		    knob_apply(knob_find("cgroup.quota"), &kctx, "10ms", NULL, 0, &e))
			_exit(1);
		raise(SIGKILL);
		_exit(2);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	char dir[128];
	snprintf(dir, sizeof(dir), "sys/fs/cgroup/cpu/irt-%d-probes", (int)pid);
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "4");
	assert_true(exists(dir));
	char head[32];
	snprintf(head, sizeof(head), "pid\t%d\n", (int)pid);
	assert_non_null(strstr(journal_text(), head));

	struct err e = {0};
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2); /* "irt: restored 1 setting left changed by a crashed irt" */
	int rc = journal_recover(&e);
	dup2(saved, 2);
	close(devnull);
	close(saved);
	assert_int_equal(rc, 0);
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "100");
	assert_false(exists(dir));
	assert_null(journal_text());
	assert_false(journal_active()); /* recover releases the lock */
	assert_int_equal(journal_recover(&e), 0); /* nothing left: a no-op */
}

/* Without handlers of its own, a command killed by SIGTERM restores through the journal's
 * handler and still dies by the signal. */
static void test_signal_restores(void **ctx)
{
	(void)ctx;
	v1_tree();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		init_ctx();
		struct err e = {0};
		if (knob_apply(knob_find("kernel.sched_autogroup_enabled"), &kctx, "0", NULL, 0, &e) ||
		    knob_apply(knob_find("cgroup.idle"), &kctx, "1", NULL, 0, &e))
			_exit(1);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2); /* the handler's one-line note */
		raise(SIGTERM);
		_exit(2);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_string_equal(get("proc/sys/kernel/sched_autogroup_enabled"), "1");
	char dir[128];
	snprintf(dir, sizeof(dir), "sys/fs/cgroup/cpu/irt-%d-probes", (int)pid);
	assert_false(exists(dir));
	assert_null(journal_text());
}

/* A forked child (a load) inherits neither the lock nor the duty to restore. */
static void test_child_does_not_restore(void **ctx)
{
	(void)ctx;
	v1_tree();
	init_ctx();
	apply_ok("kernel.sched_rr_timeslice_ms", "30", "30ms");
	pid_t pid = fork();
	if (pid == 0)
		exit(0); /* runs atexit handlers: must not restore the parent's settings */
	int status;
	waitpid(pid, &status, 0);
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "30");
	assert_non_null(journal_text());
	restore_ok();
}

static void test_lock_refuses_second(void **ctx)
{
	(void)ctx;
	v1_tree();
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	if (pid == 0) {
		init_ctx();
		struct err e = {0};
		if (knob_apply(knob_find("kernel.sched_rr_timeslice_ms"), &kctx, "8", NULL, 0, &e))
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		alarm(20); /* never outlive a failed test */
		pause();
		_exit(0);
	}
	char x;
	assert_int_equal(read(ready[0], &x, 1), 1);
	struct err e = {0};
	assert_int_equal(journal_begin(&e), -1);
	char want[128];
	snprintf(want, sizeof(want), "another irt (pid %d) is changing tunables", (int)pid);
	if (!strstr(e.msg, want))
		fail_msg("'%s' lacks '%s'", e.msg, want);
	assert_int_equal(e.code, EXIT_RUNTIME);
	/* a command that changes nothing leaves a live irt's journal alone */
	err_clear(&e);
	assert_int_equal(journal_recover(&e), 0);
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "8");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* now the lock is free; beginning restores what the dead one left */
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	int rc = journal_begin(&e);
	dup2(saved, 2);
	close(devnull);
	close(saved);
	assert_int_equal(rc, 0);
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "100");
	assert_int_equal(journal_end(&e), 0);
	close(ready[0]);
	close(ready[1]);
}

/* A last line without its newline was being written when irt died: its change was never
 * made, so it is ignored; the complete lines are undone. */
static void test_torn_journal_line(void **ctx)
{
	(void)ctx;
	v1_tree();
	put("proc/sys/kernel/sched_rr_timeslice_ms", "7\n");
	put("proc/sys/kernel/sched_autogroup_enabled", "0\n");
	char j[2048];
	snprintf(j, sizeof(j),
		 "pid\t99999\nwrite\t%s/proc/sys/kernel/sched_rr_timeslice_ms\t100\tkernel.sched_rr_timeslice_ms\n"
		 "write\t%s/proc/sys/kernel/sched_autogroup_enabled\t1\tkernel.sched_aut",
		 root, root);
	put("state/journal", j);
	struct err e = {0};
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	int rc = journal_recover(&e);
	dup2(saved, 2);
	close(devnull);
	close(saved);
	if (rc)
		fail_msg("%s", e.msg);
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "100");
	assert_string_equal(get("proc/sys/kernel/sched_autogroup_enabled"), "0");
	assert_null(journal_text());
}

/* An entry that cannot be undone stays in the journal and is reported; once possible, the
 * next recovery finishes the job. */
static void test_partial_failure_kept(void **ctx)
{
	(void)ctx;
	v1_tree();
	char j[2048];
	snprintf(j, sizeof(j),
		 "pid\t99998\nwrite\t%s/proc/sys/kernel/sched_autogroup_enabled\t0\tkernel.sched_autogroup_enabled\n"
		 "write\t%s/proc/sys/kernel/sched_rr_timeslice_ms\t100\tkernel.sched_rr_timeslice_ms\n",
		 root, root);
	put("state/journal", j);
	put("proc/sys/kernel/sched_rr_timeslice_ms", "9\n");
	char gone[512];
	snprintf(gone, sizeof(gone), "%s/proc/sys/kernel/sched_autogroup_enabled", root);
	unlink(gone);
	struct err e = {0};
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	int rc = journal_recover(&e);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "/proc/sys/kernel/sched_autogroup_enabled"));
	assert_non_null(strstr(e.msg, "1 of 2 left"));
	assert_string_equal(get("proc/sys/kernel/sched_rr_timeslice_ms"), "100");
	assert_non_null(journal_text());
	put("proc/sys/kernel/sched_autogroup_enabled", "1\n");
	err_clear(&e);
	rc = journal_recover(&e);
	dup2(saved, 2);
	close(devnull);
	close(saved);
	assert_int_equal(rc, 0);
	assert_string_equal(get("proc/sys/kernel/sched_autogroup_enabled"), "0");
	assert_null(journal_text());
}

/* What restore may write back: a knob's own file, with a value of the knob's form. */
static void test_journal_entries_checked(void **ctx)
{
	(void)ctx;
	char p[600], why[200];
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/sched_rr_timeslice_ms", root);
	assert_true(knob_journal_ok("kernel.sched_rr_timeslice_ms", p, "100", why, sizeof(why)));
	assert_false(knob_journal_ok("kernel.sched_rr_timeslice_ms", p, "|/bin/sh", why, sizeof(why)));
	assert_non_null(strstr(why, "is not a value of kernel.sched_rr_timeslice_ms"));
	assert_false(knob_journal_ok("kernel.core_pattern", p, "100", why, sizeof(why)));
	assert_non_null(strstr(why, "not a system-wide knob"));
	assert_false(knob_journal_ok("cgroup.quota", p, "100", why, sizeof(why)));   /* not SYSTEM */
	assert_false(knob_journal_ok("kernel.sched_rr_timeslice_ms", "/etc/passwd", "100", why, sizeof(why)));
	assert_non_null(strstr(why, "not a file of kernel.sched_rr_timeslice_ms"));
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/sched_rt_runtime_us", root);
	assert_true(knob_journal_ok("kernel.sched_rt_runtime_us", p, "-1", why, sizeof(why)));   /* unlimited */
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/sched_autogroup_enabled", root);
	assert_true(knob_journal_ok("kernel.sched_autogroup_enabled", p, "1", why, sizeof(why)));
	assert_false(knob_journal_ok("kernel.sched_autogroup_enabled", p, "2", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s/sys/kernel/debug/sched/fair_server/cpu12/runtime", root);
	assert_true(knob_journal_ok("sched.fair_server_runtime_ns", p, "50000000", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s/sys/kernel/debug/sched/fair_server/cpu1x/runtime", root);
	assert_false(knob_journal_ok("sched.fair_server_runtime_ns", p, "50000000", why, sizeof(why)));
	snprintf(p, sizeof(p), "%s/sys/kernel/debug/sched/fair_server/cpu1/../../../../../etc/x", root);
	assert_false(knob_journal_ok("sched.fair_server_runtime_ns", p, "1", why, sizeof(why)));
}

static void test_errno_hints(void **ctx)
{
	(void)ctx;
	/* EPERM on debugfs as root is the locked-down kernel of platform-notes.md */
	if (geteuid() == 0)
		assert_non_null(strstr(sys_errno_hint(EPERM, "/sys/kernel/debug/sched/base_slice_ns"), "locked down"));
	pid_t pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && setresuid(65534, 65534, 65534))
			_exit(3);
		_exit(strstr(sys_errno_hint(EACCES, "/proc/sys/kernel/x"), "needs root (or CAP_SYS_ADMIN)") &&
				      strstr(sys_errno_hint(EPERM, "/sys/fs/cgroup/cpu/x"), "needs root")
			      ? 0
			      : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* /proc/self/status fields against what /proc says otherwise */
static void test_self_status(void **ctx)
{
	(void)ctx;
	char v[64], comm[32] = "";
	int tasks = 0;
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));)
		tasks += de->d_name[0] != '.';
	closedir(d);
	assert_true(sys_self_status("Threads", v, sizeof(v)));
	assert_int_equal(atoi(v), tasks);
	FILE *f = fopen("/proc/self/comm", "re");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	assert_true(sys_self_status("Name", v, sizeof(v)));   /* the tab after the colon is not kept */
	assert_string_equal(v, comm);
	assert_false(sys_self_status("Thread", v, sizeof(v)));   /* a field's name, not its start */
	assert_false(sys_self_status("NoSuchField", v, sizeof(v)));
	assert_true(sys_self_status("CapEff", v, sizeof(v)));
	unsigned long long caps = strtoull(v, NULL, 16);
	for (int bit = 0; bit < 41; bit++)
		assert_int_equal(sys_has_cap(bit), (caps >> bit) & 1);
	assert_true(sys_self_status("Name", v, 3));   /* cut to fit */
	assert_int_equal(strlen(v), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_status),
		cmocka_unit_test_setup_teardown(test_detect_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detect_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detect_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detect_none, setup, teardown),
		cmocka_unit_test(test_values),
		cmocka_unit_test_setup_teardown(test_sysctl_apply_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rt_unthrottled_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rt_below_root_group_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debugfs_apply_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debugfs_unmounted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_before_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_v1_apply_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_v2_apply_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_v2_under_self, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_move_stat_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_knobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_recovery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_does_not_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_refuses_second, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_journal_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_failure_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_entries_checked, setup, teardown),
		cmocka_unit_test(test_errno_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

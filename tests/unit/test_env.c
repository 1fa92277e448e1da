/* linux/env.c against fake /proc and /sys trees under $IRT_SYSROOT. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "linux/env.h"

static char root[] = "/tmp/irt-test-env.XXXXXX";

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

static void put_gz(const char *rel, const char *text)
{
	char p[512];
	put(rel, "");   /* makes the directories */
	snprintf(p, sizeof(p), "%s%s", root, rel);
	gzFile gz = gzopen(p, "wb");
	assert_non_null(gz);
	assert_int_equal(gzputs(gz, text), (int)strlen(text));
	assert_int_equal(gzclose(gz), Z_OK);
}

static void del(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s%s", root, rel);
	unlink(p);
}

static const char x86_cpuinfo[] =
	"processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
	"model name\t: AMD EPYC 7713 64-Core Processor\ncpu MHz\t\t: 2445.402\n\n"
	"processor\t: 1\nmodel name\t: AMD EPYC 7713 64-Core Processor\n";

/* a full fake system; each test removes what it wants missing */
static int setup(void **state)
{
	if (!mkdtemp(root))
		return -1;
	put("/proc/sys/kernel/hostname", "fakehost\n");
	put("/etc/machine-id", "4a3f0c2bd1e84b7c9e2a55f1a0b6c7d8\n");
	put("/proc/sys/kernel/osrelease", "6.99.0-fake\n");
	put("/proc/sys/kernel/version", "#7 SMP PREEMPT_RT Thu Jan  1 00:00:00 UTC 2026\n");
	put("/proc/sys/kernel/arch", "riscv64\n");
	put("/proc/cpuinfo", x86_cpuinfo);
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet\n");
	put("/sys/devices/system/cpu/online", "0-3,6,8-9\n");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
	put("/sys/kernel/debug/sched/preempt", "none voluntary (full) lazy\n");
	put_gz("/proc/config.gz", "#\n# Automatically generated file; DO NOT EDIT.\n"
	                          "CONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT is not set\n"
	                          "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n");
	setenv("IRT_SYSROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	unsetenv("IRT_SYSROOT");
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_full_tree(void **state)
{
	struct result_env env;
	env_capture(&env);
	assert_string_equal(env.hostname, "fakehost");
	assert_string_equal(env.kernel, "6.99.0-fake");
	assert_string_equal(env.kernel_version, "#7 SMP PREEMPT_RT Thu Jan  1 00:00:00 UTC 2026");
	assert_string_equal(env.machine, "riscv64");
	assert_string_equal(env.cpu_model, "AMD EPYC 7713 64-Core Processor");
	/* python3: hashlib.sha256(b"irt:" + id).hexdigest()[:32] */
	assert_string_equal(env.machine_id, "27bbb0f83ae5d1be40c3efa76aebc6ea");
	assert_int_equal(env.online_cpus, 7);
	assert_string_equal(env.clocksource, "hpet");
	assert_string_equal(env.preemption, "dynamic (full)");   /* debugfs wins */
	assert_int_equal(env.hz, 1000);                          /* from the gzipped config */
	assert_int_equal(env.root, geteuid() == 0);
}

static void test_machine_id(void **state)
{
	char out[33];
	env_machine_id("", out, sizeof(out));
	assert_string_equal(out, "d2320a08b3ac075c49eaec4e6b291cce");
	struct result_env env;
	del("/etc/machine-id");   /* no machine-id (a container): unknown, not a made-up value */
	env_capture(&env);
	assert_string_equal(env.machine_id, "");
	put("/etc/machine-id", "4a3f0c2bd1e84b7c9e2a55f1a0b6c7d8\n");
}

static void test_preemption_fallbacks(void **state)
{
	struct result_env env;
	/* debugfs unreadable: the gzipped config */
	del("/sys/kernel/debug/sched/preempt");
	env_capture(&env);
	assert_string_equal(env.preemption, "voluntary");
	assert_int_equal(env.hz, 1000);

	/* no /proc/config.gz: /boot/config-RELEASE (plain text), dynamic, mode from the cmdline */
	del("/proc/config.gz");
	put("/boot/config-6.99.0-fake", "CONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPT_DYNAMIC=y\nCONFIG_HZ=250\n");
	put("/proc/cmdline", "root=/dev/vda1 preempt=lazy quiet\n");
	env_capture(&env);
	assert_string_equal(env.preemption, "dynamic (lazy)");
	assert_int_equal(env.hz, 250);
	/* without preempt= the build default */
	put("/proc/cmdline", "root=/dev/vda1 quiet\n");
	env_capture(&env);
	assert_string_equal(env.preemption, "dynamic (none)");

	/* a gzipped /boot config is read as well */
	del("/boot/config-6.99.0-fake");
	put_gz("/boot/config-6.99.0-fake", "CONFIG_PREEMPT=y\nCONFIG_HZ=300\n");
	env_capture(&env);
	assert_string_equal(env.preemption, "full");
	assert_int_equal(env.hz, 300);

	/* no config: uname -v words; HZ unknown */
	del("/boot/config-6.99.0-fake");
	env_capture(&env);
	assert_string_equal(env.preemption, "rt");
	assert_int_equal(env.hz, 0);
	put("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Mon Dec  1 2025\n");
	put("/proc/cmdline", "preempt=voluntary\n");
	env_capture(&env);
	assert_string_equal(env.preemption, "dynamic (voluntary)");
	del("/proc/cmdline");
	env_capture(&env);
	assert_string_equal(env.preemption, "dynamic");
	put("/proc/sys/kernel/version", "#1 SMP PREEMPT Mon Dec  1 2025\n");
	env_capture(&env);
	assert_string_equal(env.preemption, "full");
	put("/proc/sys/kernel/version", "#1 SMP Mon Dec  1 2025\n");   /* none or voluntary: unknown */
	env_capture(&env);
	assert_string_equal(env.preemption, "");

	/* restore for the other tests */
	put("/sys/kernel/debug/sched/preempt", "none voluntary (full) lazy\n");
	put("/proc/sys/kernel/version", "#7 SMP PREEMPT_RT Thu Jan  1 00:00:00 UTC 2026\n");
	put("/proc/cmdline", "quiet\n");
	put_gz("/proc/config.gz", "CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_HZ=1000\n");
}

static void test_debugfs_forms(void **state)
{
	struct result_env env;
	put("/sys/kernel/debug/sched/preempt", "(none) voluntary full lazy\n");
	env_capture(&env);
	assert_string_equal(env.preemption, "dynamic (none)");
	put("/sys/kernel/debug/sched/preempt", "none voluntary full\n");   /* no mark: fall back */
	env_capture(&env);
	assert_string_equal(env.preemption, "voluntary");
	put("/sys/kernel/debug/sched/preempt", "none voluntary (full) lazy\n");
}

static void test_cpu_models(void **state)
{
	struct result_env env;
	static const struct {
		const char *cpuinfo, *model;
	} cases[] = {
		{"processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n"
		 "CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n", "implementer 0x41 part 0xd0c"},
		{"processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc\nmmu\t\t: sv39\nuarch\t\t: sifive,u74-mc\n",
		 "sifive,u74-mc"},
		{"processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\nclock\t\t: 2200.000000MHz\n",
		 "POWER9 (raw), altivec supported"},
		{"Processor\t: ARMv7 Processor rev 4 (v7l)\nHardware\t: BCM2835\n", "ARMv7 Processor rev 4 (v7l)"},
		{"system type\t\t: MT7621\ncpu model\t\t: MIPS 1004Kc V2.15\n", "MIPS 1004Kc V2.15"},
		/* "cpu family" is not "cpu", and an empty model name is no model */
		{"processor\t: 0\ncpu family\t: 6\nmodel name\t:\n", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put("/proc/cpuinfo", cases[i].cpuinfo);
		env_capture(&env);
		assert_string_equal(env.cpu_model, cases[i].model);
	}
	del("/proc/cpuinfo");
	env_capture(&env);
	assert_string_equal(env.cpu_model, "");
	put("/proc/cpuinfo", x86_cpuinfo);
}

static void test_missing_files_fall_back(void **state)
{
	struct result_env env;
	del("/sys/devices/system/cpu/online");
	del("/sys/devices/system/clocksource/clocksource0/current_clocksource");
	del("/proc/sys/kernel/hostname");
	env_capture(&env);
	assert_int_equal(env.online_cpus, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_string_equal(env.clocksource, "");
	char host[256];
	gethostname(host, sizeof(host));
	assert_string_equal(env.hostname, host);   /* uname(2) */
	put("/sys/devices/system/cpu/online", "garbage\n");
	env_capture(&env);
	assert_int_equal(env.online_cpus, (int)sysconf(_SC_NPROCESSORS_ONLN));
	put("/sys/devices/system/cpu/online", "0-3,6,8-9\n");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
	put("/proc/sys/kernel/hostname", "fakehost\n");
}

static void test_cpu_list(void **state)
{
	assert_int_equal(env_parse_cpu_list("0"), 1);
	assert_int_equal(env_parse_cpu_list("0-1"), 2);
	assert_int_equal(env_parse_cpu_list("0-1\n"), 2);
	assert_int_equal(env_parse_cpu_list("0-3,6,8-9"), 7);
	assert_int_equal(env_parse_cpu_list("5"), 1);
	assert_int_equal(env_parse_cpu_list("0-127"), 128);
	assert_int_equal(env_parse_cpu_list(""), -1);
	assert_int_equal(env_parse_cpu_list("x"), -1);
	assert_int_equal(env_parse_cpu_list("3-1"), -1);
	assert_int_equal(env_parse_cpu_list("0-"), -1);
	assert_int_equal(env_parse_cpu_list("0,,1"), -1);
	assert_int_equal(env_parse_cpu_list("-1"), -1);
	assert_int_equal(env_parse_cpu_list("0;1"), -1);
}

static void test_from_config(void **state)
{
	char out[64];
	static const struct {
		const char *config, *cmdline, *preemption;
		int hz;
	} cases[] = {
		{"CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT_DYNAMIC=y\nCONFIG_HZ=1000\n", "", "rt", 1000},
		{"CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT=y\n", "", "dynamic (full)", 0},
		{"CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_VOLUNTARY=y\n", "a preempt=none b", "dynamic (none)", 0},
		{"CONFIG_PREEMPT_DYNAMIC=y\n", "", "dynamic", 0},
		{"CONFIG_PREEMPT_LAZY=y\nCONFIG_PREEMPT_DYNAMIC=y\n", "", "dynamic (lazy)", 0},
		{"CONFIG_PREEMPT=y\nCONFIG_HZ=100\n", "preempt=none", "full", 100},   /* not dynamic: cmdline moot */
		{"# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n", "", "voluntary", 0},
		{"CONFIG_PREEMPT_NONE=y\nCONFIG_HZ=250", "", "none", 250},   /* no final newline */
		{"CONFIG_PREEMPT_COUNT=y\nCONFIG_PREEMPTION=y\nCONFIG_PREEMPT_NOTIFIERS=y\n", "", "", 0},
		{"CONFIG_PREEMPT=m\nCONFIG_HZ=abc\n", "", "", 0},
		{"XCONFIG_PREEMPT=y\n CONFIG_HZ=250\n", "", "", 0},   /* only at a line start */
		{"", "", "", 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int hz = env_from_config(cases[i].config, cases[i].cmdline, out, sizeof(out));
		if (strcmp(out, cases[i].preemption) != 0 || hz != cases[i].hz)
			fail_msg("case %zu: got '%s' HZ %d, want '%s' HZ %d", i, out, hz, cases[i].preemption, cases[i].hz);
	}
}

/* the real machine: no sysroot, everything that is always there is there */
static void test_real_system(void **state)
{
	struct result_env env;
	unsetenv("IRT_SYSROOT");
	env_capture(&env);
	setenv("IRT_SYSROOT", root, 1);
	assert_true(env.hostname[0] && env.kernel[0] && env.kernel_version[0] && env.machine[0]);
	assert_true(env.online_cpus >= 1);
	assert_int_equal(env.online_cpus, (int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(env.root, geteuid() == 0);
	assert_true(env.hz >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_tree),
		cmocka_unit_test(test_machine_id),
		cmocka_unit_test(test_preemption_fallbacks),
		cmocka_unit_test(test_debugfs_forms),
		cmocka_unit_test(test_cpu_models),
		cmocka_unit_test(test_missing_files_fall_back),
		cmocka_unit_test(test_cpu_list),
		cmocka_unit_test(test_from_config),
		cmocka_unit_test(test_real_system),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

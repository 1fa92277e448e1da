/* Bounds (docs/hardening.md): the working set a probe may touch, against a fake
 * /proc/meminfo and RLIMIT_MEMLOCK; and irt's memory staying flat while the per-sample path
 * (the histograms of a result thread) records 10 million samples. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "linux/probe.h"
#include "opt.h"
#include "result.h"

static char root[64];

static void fake_meminfo(long long kb)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "MemTotal:       99999999 kB\nMemFree:        1 kB\nMemAvailable:   %lld kB\nBuffers: 0 kB\n", kb);
	fclose(f);
	setenv("IRT_SYSROOT", root, 1);
}

static struct probe_cfg cfg(const char *touch, int threads, const char *pattern)
{
	struct probe_cfg c;
	memset(&c, 0, sizeof(c));
	opt_defaults(SCOPE_PROBE, &c);
	struct err e = {0};
	assert_int_equal(opt_set(opt_find("touch"), &c, touch, "--touch", &e), 0);
	assert_int_equal(opt_set(opt_find("touch-pattern"), &c, pattern, "--touch-pattern", &e), 0);
	c.threads = threads;
	return c;
}

static void test_touch_vs_available_memory(void **state)
{
	(void)state;
	struct err e = {0};
	fake_meminfo(4 * 1024 * 1024);   /* 4 GiB available: 3 GiB may be touched */
	struct probe_cfg c[2] = {cfg("1G", 3, "seq"), cfg("0", 1, "seq")};
	assert_int_equal(probe_check_memory(c, 2, false, &e), 0);
	c[1] = cfg("1M", 1, "seq");      /* one MiB more: over */
	assert_int_equal(probe_check_memory(c, 2, false, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "--touch: working sets of 3073MiB in all would exceed 75% of the available memory, 4GiB"));
	/* the random pattern's visiting order counts too: 4 bytes per 64-byte line */
	struct err e2 = {0};
	struct probe_cfg r = cfg("3G", 1, "random");
	assert_int_equal(probe_check_memory(&r, 1, false, &e2), -1);
	struct err e3 = {0};
	r = cfg("2800M", 1, "random");   /* 2800 MiB + 175 MiB of order fits */
	assert_int_equal(probe_check_memory(&r, 1, false, &e3), 0);
	/* no MemAvailable line: no refusal (older kernels, other systems) */
	fake_meminfo(-1);
	char path[128];
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	FILE *f = fopen(path, "w");
	fputs("MemTotal: 1 kB\n", f);
	fclose(f);
	struct err e4 = {0};
	r = cfg("64G", 1, "seq");
	assert_int_equal(probe_check_memory(&r, 1, false, &e4), 0);
	unsetenv("IRT_SYSROOT");
}

static bool has_ipc_lock(void)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "CapEff:", 7) == 0)
			yes = (strtoull(line + 7, NULL, 16) >> 14) & 1;
	if (f)
		fclose(f);
	return yes;
}

static void test_touch_vs_memlock_limit(void **state)
{
	(void)state;
	if (has_ipc_lock()) {
		print_message("skipped: CAP_IPC_LOCK (root) lifts RLIMIT_MEMLOCK\n");
		return;
	}
	fake_meminfo(64LL * 1024 * 1024);
	struct rlimit old, low = {8 << 20, 8 << 20};
	getrlimit(RLIMIT_MEMLOCK, &old);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < low.rlim_max)
		low.rlim_cur = low.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &low), 0);
	struct err e = {0};
	struct probe_cfg c = cfg("64M", 1, "seq");
	assert_int_equal(probe_check_memory(&c, 1, true, &e), -1);
	assert_int_equal(e.code, EXIT_RUNTIME);
	assert_non_null(strstr(e.msg, "exceeds RLIMIT_MEMLOCK"));
	assert_non_null(strstr(e.msg, "--no-mlock"));
	struct err e2 = {0};
	assert_int_equal(probe_check_memory(&c, 1, false, &e2), 0);   /* --no-mlock: no limit */
	unsetenv("IRT_SYSROOT");
}

static long rss_kib(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* What a probe thread does per sample, 10 million times: wake-up and response histograms,
 * counts. Values span the whole range (and beyond it), so every bucket group is touched
 * before the first RSS reading. (Not all of them huge: hist.sum is an int64_t, which 10
 * million samples near the top bucket, each over two hours, would overflow.) */
static void test_ten_million_samples_flat_rss(void **state)
{
	(void)state;
	struct result r;
	struct err e = {0};
	assert_int_equal(result_init(&r, "probe", 1, &e), 0);
	struct result_thread *t = &r.threads[0];
	uint64_t seed = 42;
	long before = 0;
	const long n = 10 * 1000 * 1000;
	for (long i = 0; i < n; i++) {
		/* up to 1 s, and one in a thousand anywhere up to beyond the top bucket */
		uint64_t x = rnd_next(&seed);
		int64_t wake = (x & 1023) == 0 ? (int64_t)((x >> 20) % (2 * (uint64_t)HIST_MAX_VALUE)) : (int64_t)((x >> 10) % 1000000000);
		hist_record(&t->wake, wake);
		hist_record(&t->resp, wake + 1000);
		t->samples++;
		t->deadlines_met += wake < 1000000;
		if (i == 1000000)
			before = rss_kib();
	}
	long after = rss_kib();
	print_message("VmRSS after 1M samples %ld KiB, after 10M %ld KiB\n", before, after);
	assert_int_equal(t->wake.count, (uint64_t)n);
	assert_true(before > 0 && after - before <= 64);
	result_free(&r);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/irt-bounds.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_touch_vs_available_memory),
		cmocka_unit_test(test_touch_vs_memlock_limit),
		cmocka_unit_test(test_ten_million_samples_flat_rss),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}

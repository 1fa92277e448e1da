/* Bounds (docs/hardening.md): the working set a probe may touch, against a fake
 * /proc/meminfo; what a probe session locks within RLIMIT_MEMLOCK, and that it releases it; and irt's memory staying flat while the per-sample path
 * (the histograms of a result thread) records 10 million samples. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "linux/probe.h"
#include "opt.h"
#include "result.h"

static char root[64];

#ifdef __SANITIZE_ADDRESS__
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

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
	assert_int_equal(probe_check_memory(c, 2, &e), 0);
	c[1] = cfg("1M", 1, "seq");      /* one MiB more: over */
	assert_int_equal(probe_check_memory(c, 2, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "--touch: working sets of 3.00GiB in all would exceed 75% of the available memory, 4.00GiB"));
	/* the random pattern's visiting order counts too: 4 bytes per 64-byte line */
	struct err e2 = {0};
	struct probe_cfg r = cfg("3G", 1, "random");
	assert_int_equal(probe_check_memory(&r, 1, &e2), -1);
	struct err e3 = {0};
	r = cfg("2800M", 1, "random");   /* 2800 MiB + 175 MiB of order fits */
	assert_int_equal(probe_check_memory(&r, 1, &e3), 0);
	/* no MemAvailable line: no refusal (older kernels, other systems) */
	fake_meminfo(-1);
	char path[128];
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	FILE *f = fopen(path, "w");
	fputs("MemTotal: 1 kB\n", f);
	fclose(f);
	struct err e4 = {0};
	r = cfg("64G", 1, "seq");
	assert_int_equal(probe_check_memory(&r, 1, &e4), 0);
	unsetenv("IRT_SYSROOT");
}

/* CAP_IPC_LOCK in the effective set on or off (it stays permitted, so it can come back):
 * root's tests see what an ordinary user's irt decides. */
static void set_ipc_lock(bool on)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	assert_int_equal(syscall(SYS_capget, &h, d), 0);
	if (on)
		d[0].effective |= d[0].permitted & (1u << CAP_IPC_LOCK);
	else
		d[0].effective &= ~(1u << CAP_IPC_LOCK);
	assert_int_equal(syscall(SYS_capset, &h, d), 0);
}

static long vmlck_kib(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Sets the soft RLIMIT_MEMLOCK (the hard one stays, so it can be raised again); false when the
 * hard limit is lower. */
static bool memlock_soft(rlim_t bytes)
{
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && (bytes == RLIM_INFINITY || rl.rlim_max < bytes))
		return false;
	rl.rlim_cur = bytes;
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	return true;
}

/* The locking a probe session chooses: everything with no limit, the probe threads' memory
 * within RLIMIT_MEMLOCK, nothing (and said) below what they need, nothing with --no-mlock. */
static void test_lock_choice(void **state)
{
	(void)state;
	struct rlimit old;
	getrlimit(RLIMIT_MEMLOCK, &old);
	set_ipc_lock(false);
	if (!memlock_soft(8 << 20)) {
		set_ipc_lock(true);
		skip();   /* the hard limit is below the 8 MiB default: cannot set it up here */
	}
	struct probe_opts lock = {.mlock = true}, nolock = {.mlock = false};
	int64_t need, limit;
	struct probe_cfg one = cfg("1M", 1, "seq"), three = cfg("1M", 3, "random"), big = cfg("64M", 1, "seq");
	assert_int_equal(probe_lock_choose(&one, 1, &lock, &need, &limit), PROBE_LOCK_WORKING_SET);
	assert_int_equal(limit, 8 << 20);
	assert_true(need > (1 << 20) + (256 << 10) && need < (3 << 20));   /* working set, stack, records */
	assert_int_equal(probe_lock_choose(&three, 1, &lock, &need, &limit), PROBE_LOCK_WORKING_SET);
	assert_true(need > 3 * ((1 << 20) + (256 << 10)) + 3 * (1 << 20) / 16 && need < (8 << 20));
	assert_int_equal(probe_lock_choose(&big, 1, &lock, &need, &limit), PROBE_LOCK_NONE_RLIMIT);
	assert_true(need > (64 << 20));
	assert_int_equal(probe_lock_choose(&big, 1, &nolock, &need, &limit), PROBE_LOCK_NONE);
	assert_int_equal(need, -1);
	/* 64 KiB (older systems): not even a stack fits */
	struct probe_cfg none = cfg("0", 1, "seq");
	assert_true(memlock_soft(64 << 10));
	assert_int_equal(probe_lock_choose(&none, 1, &lock, &need, &limit), PROBE_LOCK_NONE_RLIMIT);
	assert_int_equal(limit, 64 << 10);
	/* no limit, or the capability that lifts it: everything (mlockall) */
	if (memlock_soft(RLIM_INFINITY))
		assert_int_equal(probe_lock_choose(&big, 1, &lock, &need, &limit), PROBE_LOCK_ALL);
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &old), 0);
	set_ipc_lock(true);
	if (geteuid() == 0)
		assert_int_equal(probe_lock_choose(&big, 1, &lock, &need, &limit), PROBE_LOCK_ALL);
}

/* Sessions one after another in one process, as irt check and sweeps run them, within the
 * default 8 MiB: each locks its probe threads' memory and releases it when it ends. With
 * mlockall the whole process (libraries, earlier results) was locked, and the default
 * check's third run no longer fit. */
static void test_sessions_release_what_they_lock(void **state)
{
	(void)state;
	struct rlimit old;
	getrlimit(RLIMIT_MEMLOCK, &old);
	set_ipc_lock(false);
	if (!memlock_soft(8 << 20)) {
		set_ipc_lock(true);
		skip();
	}
	long base = vmlck_kib();
	struct probe_cfg c[2] = {cfg("2M", 1, "random"), cfg("1M", 2, "seq")};
	struct err e = {0};
	for (int d = 0; d < 2; d++) {
		assert_int_equal(opt_set(opt_find("period"), &c[d], "1ms", "--period", &e), 0);
		assert_int_equal(opt_set(opt_find("count"), &c[d], "5", "--count", &e), 0);
		snprintf(c[d].name, sizeof(c[d].name), "p%d", d);
	}
	struct result rs[4];   /* kept, as irt check keeps each run's result */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(result_init(&rs[i], "probe", 3, &e), 0);
		struct probe_session *s;
		struct probe_opts o = {.mlock = true, .seed = 1};
		assert_int_equal(probe_start(&s, c, 2, &o, &rs[i], &e), 0);
		long during = vmlck_kib();
		while (!probe_done(s))
			usleep(1000);
		assert_int_equal(probe_finish(s, &rs[i], &e), 0);
		assert_string_equal(rs[i].memory_lock, "working-set");
		assert_int_equal(rs[i].threads[0].samples, 5);
		/* the working sets (4 MiB and the order) were locked, and released at the end
		 * (ASan's mlock interceptors do nothing: there only the release is seen) */
		if (!UNDER_ASAN)
			assert_true(during - base > 4 * 1024);
		assert_int_equal(vmlck_kib(), base);
	}
	for (int i = 0; i < 4; i++)
		result_free(&rs[i]);
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &old), 0);
	set_ipc_lock(true);
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
		cmocka_unit_test(test_lock_choice),
		cmocka_unit_test(test_sessions_release_what_they_lock),
		cmocka_unit_test(test_ten_million_samples_flat_rss),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}

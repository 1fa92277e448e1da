/* Accounting: parsing against a fake /proc tree ($IRT_SYSROOT), real snapshots of this test's
 * own threads, the table's consistency guarantees, system context deltas and the noise flag. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "linux/acct.h"

/* ---- fake sysroot ---------------------------------------------------------------------- */

static char root[256];

static void mkdirs(const char *path)
{
	char tmp[1024];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
}

static void put(const char *rel, const char *content)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	mkdirs(path);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int fake_setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/irt-acct-test.XXXXXX");
	assert_non_null(mkdtemp(root));
	setenv("IRT_SYSROOT", root, 1);
	return 0;
}

static int fake_teardown(void **state)
{
	char cmd[300];
	unsetenv("IRT_SYSROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* A full 52-field stat line: utime 30, stime 12 ticks, cutime 5, cstime 2, nice -5, start
 * 1000 ticks, processor 1, rt_priority 0, policy 0. comm holds spaces and parentheses. */
#define STAT_FULL                                                                          \
	"100 (we (ird) ) x) R 1 100 100 0 -1 4194560 10 0 0 0 30 12 5 2 25 -5 3 0 1000 "     \
	"1000000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0\n"

static void test_parse_thread(void **state)
{
	put("/proc/100/task/100/schedstat", "5000000 2000000 7\n");
	put("/proc/100/task/100/stat", STAT_FULL);
	put("/proc/100/task/100/status",
	    "Name:\tweird\nState:\tR\nvoluntary_ctxt_switches:\t41\nnonvoluntary_ctxt_switches:\t3\n");
	put("/proc/100/task/100/sched",
	    "weird (100, #threads: 1)\n---------\nse.exec_start   :   1.0\n"
	    "se.nr_migrations                             :                    9\n");
	struct acct_thread t;
	struct err e = {0};
	assert_int_equal(acct_snap_thread(100, 100, "probe", &t, &e), 0);
	assert_int_equal(t.have, ACCT_HAVE_SCHEDSTAT | ACCT_HAVE_STAT | ACCT_HAVE_STATUS | ACCT_HAVE_SCHED);
	assert_string_equal(t.comm, "we (ird) ) x");
	assert_string_equal(t.role, "probe");
	assert_int_equal(t.run_ns, 5000000);
	assert_int_equal(t.delay_ns, 2000000);
	assert_int_equal(t.timeslices, 7);
	long hz = sysconf(_SC_CLK_TCK);
	int64_t tick = 1000000000LL / hz;
	assert_int_equal(t.utime_ns, 30 * tick);
	assert_int_equal(t.stime_ns, 12 * tick);
	assert_int_equal(t.cutime_ns, 5 * tick);
	assert_int_equal(t.cstime_ns, 2 * tick);
	assert_int_equal(t.nice, -5);
	assert_int_equal(t.start_boot_ns, 1000 * tick);
	assert_int_equal(t.state, 'R');
	assert_int_equal(t.cpu, 1);
	assert_int_equal(t.policy, 0);
	assert_int_equal(t.vol_switches, 41);
	assert_int_equal(t.invol_switches, 3);
	assert_int_equal(t.migrations, 9);
	assert_true(t.read_begin_ns <= t.read_end_ns);
}

static void test_parse_missing_and_odd(void **state)
{
	struct acct_thread t;
	struct err e = {0};
	/* stat only, old kernel: no processor/policy fields; status without the switch lines;
	 * sched without se.nr_migrations (the CONFIG_SCHEDSTATS=off case is still fine, but
	 * CONFIG_SCHED_DEBUG=n has no file at all). */
	put("/proc/100/task/101/stat", "101 (old) S 1 100 100 0 -1 0 0 0 0 0 7 1 0 0 20 0 1 0 500\n");
	put("/proc/100/task/101/status", "Name:\told\n");
	put("/proc/100/task/101/sched", "old (101, #threads: 2)\nse.exec_start : 1.0\n");
	assert_int_equal(acct_snap_thread(100, 101, NULL, &t, &e), 0);
	assert_int_equal(t.have, ACCT_HAVE_STAT);
	assert_int_equal(t.run_ns, -1);
	assert_int_equal(t.delay_ns, -1);
	assert_int_equal(t.cpu, -1);
	assert_int_equal(t.policy, -1);
	assert_int_equal(t.vol_switches, -1);
	assert_int_equal(t.migrations, -1);
	assert_string_equal(t.role, "");

	/* schedstat garbage but stat fine: schedstat is dropped, not misread */
	put("/proc/100/task/102/schedstat", "12 abc\n");
	put("/proc/100/task/102/stat", "102 (x) S 1 100 100 0 -1 0 0 0 0 0 7 1 0 0 20 0 1 0 500\n");
	assert_int_equal(acct_snap_thread(100, 102, NULL, &t, &e), 0);
	assert_int_equal(t.have, ACCT_HAVE_STAT);

	/* schedstat alone (stat truncated: too few fields) */
	put("/proc/100/task/103/schedstat", "1 2 3 4 5\n");
	put("/proc/100/task/103/stat", "103 (short) S 1 100\n");
	assert_int_equal(acct_snap_thread(100, 103, NULL, &t, &e), 0);
	assert_int_equal(t.have, ACCT_HAVE_SCHEDSTAT);
	assert_int_equal(t.delay_ns, 2);
	assert_int_equal(t.start_ns, -1);

	/* neither readable: an error that says why */
	put("/proc/100/task/104/schedstat", "\n");
	put("/proc/100/task/104/stat", "garbage without parens\n");
	assert_int_equal(acct_snap_thread(100, 104, NULL, &t, &e), -1);
	assert_int_equal(e.code, EXIT_RUNTIME);
	assert_non_null(strstr(e.msg, "unexpected format"));
	err_clear(&e);

	/* a thread that does not exist */
	assert_int_equal(acct_snap_thread(100, 999, NULL, &t, &e), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(e.msg, "thread 999 of process 100: not found"));
}

static void test_run_delay_fake(void **state)
{
	put("/proc/7/task/8/schedstat", "123 456789 10\n");
	put("/proc/7/task/9/schedstat", "123\n");
	int fd = acct_open_schedstat(7, 8);
	assert_true(fd >= 0);
	assert_int_equal(acct_run_delay(fd), 456789);
	assert_int_equal(acct_run_delay(fd), 456789);  /* pread at 0: repeatable */
	close(fd);
	fd = acct_open_schedstat(7, 9);
	assert_true(fd >= 0);
	assert_int_equal(acct_run_delay(fd), -1);
	close(fd);
	assert_int_equal(acct_run_delay(-1), -1);
	assert_int_equal(acct_open_schedstat(7, 10), -1);
}

static void test_enumerate_fake(void **state)
{
	put("/proc/200/task/200/stat", "200 (a) S 1 200 200 0 -1 0 0 0 0 0 1 1 0 0 20 0 2 0 500\n");
	put("/proc/200/task/201/stat", "201 (a) S 1 200 200 0 -1 0 0 0 0 0 1 1 0 0 20 0 2 0 500\n");
	put("/proc/200/task/notanumber", "");
	put("/proc/200/stat", "200 (a) S 1 200 200 0 -1 0 0 0 0 0 1 1 0 0 20 0 2 0 500\n");
	put("/proc/210/stat", "210 (b (c)) S 200 200 200 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 500\n");
	put("/proc/210/task/210/stat", "210 (b (c)) S 200 200 200 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 500\n");
	put("/proc/220/stat", "220 (other) S 1 220 220 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 500\n");
	put("/proc/230/stat", "230 (zombie) Z\n");  /* odd: skipped */
	put("/proc/self/stat", "");

	pid_t *v;
	int n;
	struct err e = {0};
	assert_int_equal(acct_list_threads(200, &v, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0], 200);
	assert_int_equal(v[1], 201);
	free(v);
	assert_int_equal(acct_list_threads(999, &v, &n, &e), -1);
	assert_non_null(strstr(e.msg, "process 999: not found"));
	err_clear(&e);

	assert_int_equal(acct_list_pgrp(200, &v, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0], 200);
	assert_int_equal(v[1], 210);
	free(v);
	assert_int_equal(acct_list_pgrp(4242, &v, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_null(v);

	struct acct_snap s;
	acct_snap_init(&s);
	assert_int_equal(acct_snap_add_pgrp(&s, 200, "load cpu", &e), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.t[2].tid, 210);
	assert_string_equal(s.t[2].comm, "b (c)");
	assert_string_equal(s.t[2].role, "load cpu");
	/* a process in the list that has gone is skipped, not an error */
	pid_t pids[] = {999, 220};
	assert_int_equal(acct_snap_add_pids(&s, pids, 2, "x", &e), 0);
	assert_int_equal(s.n, 3);  /* 220 has no task dir either: skipped */
	assert_int_equal(acct_snap_add_process(&s, 999, "x", &e), -1);
	acct_snap_free(&s);
}

/* ---- table on synthetic snapshots ------------------------------------------------------ */

static const struct acct_row *row_of(const struct acct_table *t, pid_t tid)
{
	for (int i = 0; i < t->n; i++)
		if (t->rows[i].kind == ACCT_ROW_THREAD && t->rows[i].tid == tid)
			return &t->rows[i];
	fail_msg("no row for tid %d", tid);
	return NULL;
}

static struct acct_thread mk(int pid, int tid, int64_t begin, int64_t end, int64_t run, int64_t delay,
			     char state)
{
	struct acct_thread t = {
		.pid = pid, .tid = tid, .read_begin_ns = begin, .read_end_ns = end, .start_ns = 0,
		.start_boot_ns = 0,
		.state = state, .run_ns = run, .delay_ns = delay, .timeslices = run / 1000,
		.utime_ns = run, .stime_ns = 0, .cutime_ns = 0, .cstime_ns = 0,
		.cpu = 0, .policy = 0, .vol_switches = 1, .invol_switches = 2, .migrations = 0,
		.have = ACCT_HAVE_SCHEDSTAT | ACCT_HAVE_STAT | ACCT_HAVE_STATUS | ACCT_HAVE_SCHED,
	};
	snprintf(t.comm, sizeof(t.comm), "t%d", tid);
	snprintf(t.role, sizeof(t.role), "r%d", pid);
	return t;
}

static void snap_of(struct acct_snap *s, struct acct_thread *t, int n)
{
	acct_snap_init(s);
	s->t = t;
	s->n = s->cap = n;
	s->begin_ns = t[0].read_begin_ns;
	s->end_ns = t[0].read_end_ns;
	for (int i = 0; i < n; i++) {
		if (t[i].read_begin_ns < s->begin_ns)
			s->begin_ns = t[i].read_begin_ns;
		if (t[i].read_end_ns > s->end_ns)
			s->end_ns = t[i].read_end_ns;
	}
}

static void test_table_rows(void **state)
{
	const int64_t ms = 1000000;
	struct acct_thread a[3] = {
		mk(1, 1, 0, 10, 5 * ms, 1 * ms, 'S'),
		mk(1, 2, 0, 10, 0, 0, 'R'),
		mk(1, 3, 0, 10, 7 * ms, 0, 'S'),  /* exits */
	};
	struct acct_thread b[3] = {
		mk(1, 1, 1000 * ms, 1000 * ms + 10, 405 * ms, 101 * ms, 'S'),
		mk(1, 2, 1000 * ms, 1000 * ms + 10, 1003 * ms, 500 * ms, 'R'), /* lag: too much */
		mk(1, 4, 1000 * ms, 1000 * ms + 10, 50 * ms, 5 * ms, 'S'),      /* started */
	};
	b[2].start_ns = 600 * ms;
	b[0].vol_switches = 11;
	struct acct_snap sa, sb;
	snap_of(&sa, a, 3);
	snap_of(&sb, b, 3);
	struct acct_table t;
	struct err e = {0};
	assert_int_equal(acct_table_build(&t, &sa, &sb, 2, &e), 0);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.wall_ns, 1000 * ms + 10);
	/* thread 1: plain delta */
	assert_int_equal(t.rows[0].used_ns, 400 * ms);
	assert_int_equal(t.rows[0].waited_ns, 100 * ms);
	assert_int_equal(t.rows[0].vol_switches, 10);
	assert_int_equal(t.rows[0].invol_switches, 0);
	assert_int_equal(t.rows[0].carry_ns, 0);
	assert_string_equal(t.rows[0].role, "r1");
	assert_true(t.rows[0].cpu_pct > 39.99 && t.rows[0].cpu_pct < 40.01);
	assert_true(t.rows[0].run_pct > 19.99 && t.rows[0].run_pct < 20.01);
	/* thread 2: used clamped to wall, waited to 0, all excess in carry */
	assert_int_equal(t.rows[1].used_ns, t.rows[1].wall_ns);
	assert_int_equal(t.rows[1].waited_ns, 0);
	assert_int_equal(t.rows[1].used_ns + t.rows[1].carry_ns, 1503 * ms);
	/* thread 4 started at 600 ms: wall from its start */
	assert_true(t.rows[2].started);
	assert_int_equal(t.rows[2].wall_ns, 400 * ms + 10);
	assert_int_equal(t.rows[2].used_ns, 50 * ms);
	/* thread 3 exited: known, but its figures died with it: unknown, not 0 */
	assert_true(t.rows[3].exited);
	assert_int_equal(t.rows[3].tid, 3);
	assert_int_equal(t.rows[3].used_ns, -1);
	assert_int_equal(t.used_ns, 400 * ms + 1000 * ms + 10 + 50 * ms);

	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	acct_table_print(f, &t);
	fclose(f);
	const char *want =
		"thread                   role              used    waited    cpu%    run%    switches v/i   slices   migr\n"
		"t1/1                     r1               400ms     100ms    40.0    20.0            10/0   400000      0\n"
		"t2/2                     r1               1.00s       0ns   100.0    50.0             0/0  1003000      0\n"
		"t4/4                     r1              50.0ms    5.00ms     5.0     2.5             1/2    50000      0\n"
		"t3/3 (exited)            r1                   -         -       -       -             -/-        -      -\n"
		"total                                     1.45s     105ms   145.0    72.5   (window 1.00s, 2 CPUs)\n";
	assert_string_equal(out, want);
	free(out);
	acct_table_free(&t);
}

/* The window a table names is every row's. Reading one edge takes time, so a thread may be
 * read late at the first edge and early at the second: its wall is still the window (it was
 * its own reads' span, shorter than the header's), and the system's counters read around the
 * threads (acct_snap_span) belong to the window too. A thread that exited is marked, its figures
 * unknown: it showed as a row of zeros. */
static void test_table_window(void **state)
{
	const int64_t ms = 1000000;
	struct acct_thread a[3] = {
		mk(1, 1, 0, 10, 0, 0, 'S'),
		mk(1, 2, 300 * ms, 300 * ms + 10, 0, 0, 'R'),  /* read late */
		mk(1, 3, 0, 10, 5 * ms, 1 * ms, 'S'),          /* exits */
	};
	struct acct_thread b[2] = {
		mk(1, 1, 1000 * ms, 1000 * ms + 10, 100 * ms, 0, 'S'),
		mk(1, 2, 700 * ms, 700 * ms + 10, 600 * ms, 200 * ms, 'R'),  /* read early */
	};
	struct acct_snap sa, sb;
	snap_of(&sa, a, 3);
	snap_of(&sb, b, 2);
	acct_snap_span(&sa, -50 * ms, 20);                 /* the system, read before the threads */
	acct_snap_span(&sb, 1000 * ms, 1100 * ms);         /* and after them */
	struct acct_table t;
	struct err e = {0};
	assert_int_equal(acct_table_build(&t, &sa, &sb, 2, &e), 0);
	assert_int_equal(t.wall_ns, 1150 * ms);
	assert_int_equal(t.n, 3);
	for (int i = 0; i < t.n; i++) {
		const struct acct_row *r = &t.rows[i];
		if (r->exited)
			continue;
		assert_int_equal(r->wall_ns, t.wall_ns);
		assert_true(r->used_ns + r->waited_ns <= r->wall_ns);
	}
	const struct acct_row *late = row_of(&t, 2), *gone = row_of(&t, 3);
	assert_int_equal(late->used_ns, 600 * ms);
	assert_int_equal(late->waited_ns, 200 * ms);
	assert_true(gone->exited);
	assert_int_equal(gone->wall_ns, 0);
	assert_int_equal(gone->used_ns, -1);
	assert_int_equal(gone->waited_ns, -1);
	assert_int_equal(gone->vol_switches, -1);
	assert_int_equal(gone->timeslices, -1);
	assert_true(gone->cpu_pct == 0 && gone->run_pct == 0);
	assert_int_equal(t.used_ns, 700 * ms);   /* the unknown is not summed */
	assert_int_equal(t.waited_ns, 200 * ms);
	acct_table_free(&t);
}

static void test_table_recycled_tid_and_reaped(void **state)
{
	const int64_t ms = 1000000;
	struct acct_thread a[1] = {mk(5, 5, 0, 10, 5 * ms, 0, 'S')};
	struct acct_thread b[2] = {
		mk(5, 5, 100 * ms, 100 * ms + 10, 6 * ms, 0, 'S'),
		mk(6, 6, 100 * ms, 100 * ms + 10, 3 * ms, 0, 'S'),
	};
	a[0].cutime_ns = 10 * ms;
	b[0].cutime_ns = 30 * ms;
	b[0].cstime_ns = 5 * ms;
	struct acct_snap sa, sb;
	snap_of(&sa, a, 1);
	snap_of(&sb, b, 2);
	struct acct_table t;
	struct err e = {0};
	assert_int_equal(acct_table_build(&t, &sa, &sb, 1, &e), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.rows[0].used_ns, 1 * ms);
	assert_int_equal(t.rows[2].kind, ACCT_ROW_REAPED);
	assert_int_equal(t.rows[2].pid, 5);
	assert_int_equal(t.rows[2].used_ns, 25 * ms);
	assert_int_equal(t.rows[2].waited_ns, -1);
	acct_table_free(&t);

	/* same tid, other start time: the first thread exited and a new one took its id */
	b[0].start_ns = b[0].start_boot_ns = 50 * ms;
	b[0].cutime_ns = b[0].cstime_ns = 0;
	assert_int_equal(acct_table_build(&t, &sa, &sb, 1, &e), 0);
	assert_int_equal(t.n, 3);
	assert_true(t.rows[0].started);
	assert_int_equal(t.rows[0].used_ns, 6 * ms);
	assert_true(t.rows[2].exited);
	acct_table_free(&t);
}

/* Random snapshots: whatever the counters say, the guarantees hold and nothing is lost
 * (used + carry equals the raw delta for threads seen twice). */
static void test_table_properties(void **state)
{
	srand(12345);
	for (int round = 0; round < 500; round++) {
		int n = 1 + rand() % 6, ncpus = 1 + rand() % 4;
		struct acct_thread a[6], b[6];
		int64_t wall = 10 + rand() % 1000000;
		for (int i = 0; i < n; i++) {
			int64_t r0 = rand() % 1000000, d0 = rand() % 1000000;
			a[i] = mk(1, i + 1, rand() % 3, 5, r0, d0, rand() % 2 ? 'R' : 'S');
			b[i] = mk(1, i + 1, wall, wall + rand() % 3, r0 + rand() % (2 * wall), d0 + rand() % wall,
				  'S');
			if (rand() % 5 == 0)
				b[i].run_ns = r0 / 2;  /* counter went backwards: never negative */
		}
		struct acct_snap sa, sb;
		snap_of(&sa, a, n);
		snap_of(&sb, b, n);
		struct acct_table t;
		struct err e = {0};
		assert_int_equal(acct_table_build(&t, &sa, &sb, ncpus, &e), 0);
		int64_t sum = 0;
		for (int i = 0; i < t.n; i++) {
			const struct acct_row *r = &t.rows[i];
			assert_true(r->used_ns >= 0);
			assert_true(r->waited_ns >= 0);
			assert_true(r->used_ns + r->waited_ns <= r->wall_ns);
			assert_true(r->wall_ns <= t.wall_ns);
			int64_t raw_used = b[i].run_ns > a[i].run_ns ? b[i].run_ns - a[i].run_ns : 0;
			int64_t raw_wait = b[i].delay_ns > a[i].delay_ns ? b[i].delay_ns - a[i].delay_ns : 0;
			assert_int_equal(r->used_ns + r->waited_ns + r->carry_ns, raw_used + raw_wait);
			sum += r->used_ns;
		}
		assert_true(sum <= t.wall_ns * ncpus);
		assert_true(t.run_pct <= 100.0 + 1e-9);
		assert_true(t.cpu_pct <= 100.0 * ncpus + 1e-9);
		acct_table_free(&t);
	}
}

/* ---- real threads -------------------------------------------------------------------- */

struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	int phase;   /* 0 wait, 1 go, 2 exit */
	int ready, done;
};

struct worker {
	struct gate *g;
	pid_t tid;
	int64_t burn_ns;     /* CPU time to burn after "go" */
	int64_t burned_ns;   /* thread CPU clock across the burn */
	int cpu;             /* pin to this CPU, -1 = no */
};

static int64_t cpu_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void gate_wait(struct gate *g, int phase)
{
	pthread_mutex_lock(&g->m);
	while (g->phase < phase)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_set(struct gate *g, int phase)
{
	pthread_mutex_lock(&g->m);
	g->phase = phase;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

static void gate_count(struct gate *g, int *counter)
{
	pthread_mutex_lock(&g->m);
	(*counter)++;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

static void gate_until(struct gate *g, int *counter, int n)
{
	pthread_mutex_lock(&g->m);
	while (*counter < n)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static volatile uint64_t sink;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	w->tid = (pid_t)syscall(SYS_gettid);
	if (w->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	gate_count(w->g, &w->g->ready);
	gate_wait(w->g, 1);
	int64_t t0 = cpu_clock();
	while (cpu_clock() - t0 < w->burn_ns)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
	w->burned_ns = cpu_clock() - t0;
	struct timespec nap = {0, 1000000};  /* one voluntary switch inside the window, for sure */
	nanosleep(&nap, NULL);
	gate_count(w->g, &w->g->done);
	gate_wait(w->g, 2);
	return NULL;
}

/* Starts n workers, snapshots the process, lets them burn, snapshots again, lets them go. */
static void run_workers(struct worker *w, int n, struct acct_table *t)
{
	struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
	pthread_t th[8];
	for (int i = 0; i < n; i++) {
		w[i].g = &g;
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	gate_until(&g, &g.ready, n);
	struct acct_snap a, b;
	struct err e = {0};
	acct_snap_init(&a);
	acct_snap_init(&b);
	assert_int_equal(acct_snap_add_process(&a, getpid(), "test", &e), 0);
	gate_set(&g, 1);
	gate_until(&g, &g.done, n);
	assert_int_equal(acct_snap_add_process(&b, getpid(), "test", &e), 0);
	gate_set(&g, 2);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(acct_table_build(t, &a, &b, 0, &e), 0);
	acct_snap_free(&a);
	acct_snap_free(&b);
}

static void check_consistent(const struct acct_table *t)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (int i = 0; i < t->n; i++) {
		const struct acct_row *r = &t->rows[i];
		assert_true(r->used_ns >= 0);
		assert_true(r->used_ns + (r->waited_ns > 0 ? r->waited_ns : 0) <= r->wall_ns);
	}
	assert_true(t->cpu_pct <= 100.0 * (double)ncpus + 1e-9);
	assert_true(t->run_pct <= 100.0 + 1e-9);
}

static void test_real_burner(void **state)
{
	const int64_t ms = 1000000;
	struct worker w[2] = {{.burn_ns = 50 * ms, .cpu = -1}, {.burn_ns = 0, .cpu = -1}};
	struct acct_table t;
	run_workers(w, 2, &t);
	check_consistent(&t);
	const struct acct_row *burner = row_of(&t, w[0].tid), *idle = row_of(&t, w[1].tid);
	/* Both sleep at both snapshots, so schedstat is exact: it holds the burn and only the few
	 * us of waking and locking around it. */
	assert_true(burner->used_ns >= w[0].burned_ns);
	assert_true(burner->used_ns <= w[0].burned_ns + 10 * ms);
	assert_true(burner->cpu_pct > 0);
	assert_true(idle->used_ns < 10 * ms);
	assert_true(burner->vol_switches >= 1);  /* its nap */
	assert_true(idle->vol_switches >= 1);
	assert_true(burner->timeslices >= 1);
	assert_false(burner->started || burner->exited);
	assert_string_equal(burner->role, "test");
	if (burner->migrations < 0)
		print_message("note: no se.nr_migrations here\n");
	acct_table_free(&t);
}

struct self_snap {
	int64_t burn_ns;
	struct acct_thread end;
	int rc;
	pid_t tid;
};

static void *self_snapper(void *arg)
{
	struct self_snap *x = arg;
	x->tid = (pid_t)syscall(SYS_gettid);
	int64_t t0 = cpu_clock();
	while (cpu_clock() - t0 < x->burn_ns)
		sink++;
	x->rc = acct_snap_thread(getpid(), x->tid, "probe", &x->end, NULL);
	return NULL;
}

/* A thread that snapshots itself last thing: after it has exited and been joined its row is
 * still complete, when the snapshot is appended. */
static void test_real_self_snapshot(void **state)
{
	struct self_snap x = {.burn_ns = 20000000};
	struct acct_snap a, b;
	struct err e = {0};
	acct_snap_init(&a);
	acct_snap_init(&b);
	assert_int_equal(acct_snap_add_thread(&a, getpid(), (pid_t)syscall(SYS_gettid), "main", &e), 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, self_snapper, &x), 0);
	pthread_join(th, NULL);
	assert_int_equal(x.rc, 0);
	assert_int_equal(acct_snap_add_thread(&b, getpid(), (pid_t)syscall(SYS_gettid), "main", &e), 0);
	assert_int_equal(acct_snap_append(&b, &x.end, &e), 0);
	assert_int_equal(b.n, 2);
	assert_true(b.end_ns >= x.end.read_end_ns);
	struct acct_table t;
	assert_int_equal(acct_table_build(&t, &a, &b, 0, &e), 0);
	check_consistent(&t);
	const struct acct_row *r = row_of(&t, x.tid);
	assert_true(r->started);
	assert_true(r->used_ns >= x.burn_ns);
	assert_string_equal(r->role, "probe");
	acct_table_free(&t);
	acct_snap_free(&a);
	acct_snap_free(&b);
}

static void test_real_runqueue_wait(void **state)
{
	/* Three burners pinned to one CPU must wait for each other. */
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	int cpu = 0;
	while (!CPU_ISSET(cpu, &set))
		cpu++;
	const int64_t ms = 1000000;
	struct worker w[3];
	for (int i = 0; i < 3; i++)
		w[i] = (struct worker){.burn_ns = 15 * ms, .cpu = cpu};
	struct acct_table t;
	run_workers(w, 3, &t);
	check_consistent(&t);
	int64_t waited = 0;
	for (int i = 0; i < 3; i++) {
		const struct acct_row *r = row_of(&t, w[i].tid);
		assert_true(r->used_ns >= w[i].burned_ns);
		waited += r->waited_ns;
	}
	assert_true(waited > 0);
	acct_table_free(&t);
}

static void test_real_run_delay_fd(void **state)
{
	int fd = acct_open_schedstat(0, 0);
	assert_true(fd >= 0);
	int64_t d1 = acct_run_delay(fd);
	struct acct_thread t;
	struct err e = {0};
	assert_int_equal(acct_snap_thread(getpid(), (pid_t)syscall(SYS_gettid), NULL, &t, &e), 0);
	int64_t d2 = acct_run_delay(fd);
	assert_true(d1 >= 0);
	assert_true(d1 <= t.delay_ns);
	assert_true(t.delay_ns <= d2);
	close(fd);
}

static void test_split_lateness(void **state)
{
	int64_t b, q, r;
	acct_split_lateness(100, -5, 1000, 1060, &b, &q, &r);  /* 60 of 100 ns waiting on the runqueue */
	assert_int_equal(b, 0);
	assert_int_equal(q, 60);
	assert_int_equal(r, 40);
	acct_split_lateness(100, 0, 1000, 1500, &b, &q, &r);   /* waited longer (preempted before the
								  sleep): capped at the lateness */
	assert_int_equal(q, 100);
	assert_int_equal(r, 0);
	acct_split_lateness(100, 0, -1, 1500, &b, &q, &r);     /* unreadable */
	assert_int_equal(q, 0);
	assert_int_equal(r, 100);
	acct_split_lateness(0, 0, 1000, 1500, &b, &q, &r);     /* on time */
	assert_int_equal(b + q + r, 0);
	acct_split_lateness(50, 0, 1000, 900, &b, &q, &r);     /* counter went backwards */
	assert_int_equal(q, 0);
	assert_int_equal(r, 50);
	/* the previous job ended 70 ns after this release: 70 backlog, then 20 waiting, 10 rest */
	acct_split_lateness(100, 70, 1000, 1020, &b, &q, &r);
	assert_int_equal(b, 70);
	assert_int_equal(q, 20);
	assert_int_equal(r, 10);
	/* ... and the runqueue wait is capped at what the backlog leaves */
	acct_split_lateness(100, 70, 1000, 1500, &b, &q, &r);
	assert_int_equal(b, 70);
	assert_int_equal(q, 30);
	assert_int_equal(r, 0);
	/* a backlog longer than the lateness (a clock read late) is capped at it */
	acct_split_lateness(100, 150, 1000, 1000, &b, &q, &r);
	assert_int_equal(b, 100);
	assert_int_equal(q + r, 0);
}

/* A probe starved by its own work, written as the probe loop runs it: period 1000 ns, each
 * job 1500 ns of work, woken 10 ns after the previous job ends (the loop does not sleep when
 * behind), 5 ns of it on the runqueue. Its growing lateness is backlog; the rest stays the few
 * ns of the wake-up path, and the three parts add up to the lateness. */
static void test_split_lateness_starved(void **state)
{
	const int64_t period = 1000, work = 1500, path = 10, waited = 5;
	int64_t release = 0, prev_done = 0, delay = 0;
	for (int i = 0; i < 50; i++, release += period) {
		int64_t woke = prev_done > release ? prev_done + path : release + path;
		int64_t b, q, r, lateness = woke - release;
		acct_split_lateness(lateness, prev_done - release, delay, delay + waited, &b, &q, &r);
		delay += waited;
		assert_int_equal(b + q + r, lateness);
		assert_int_equal(q, waited);
		assert_int_equal(r, path - waited);
		assert_int_equal(b, i == 0 ? 0 : prev_done - release);
		if (i > 1)
			assert_true(b > r + q);   /* the growing part is the backlog, not the rest */
		prev_done = woke + work;
	}
}

/* ---- system context ------------------------------------------------------------------- */

static void test_sys_fake(void **state)
{
	long hz = sysconf(_SC_CLK_TCK);
	int64_t tick = 1000000000LL / hz;
	put("/proc/pressure/cpu", "some avg10=1.50 avg60=0.50 avg300=0.10 total=1000\n"
				  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	put("/proc/stat", "cpu  100 0 50 1000 0 0 0 10 0 0\ncpu0 50 0 25 500 0 0 0 5 0 0\n"
			  "cpu1 50 0 25 500 0 0 0 5 0 0\nintr 1 2 3\nctxt 5000\nbtime 1\nprocs_running 3\n");
	put("/proc/loadavg", "1.00 0.50 0.25 3/88 1234\n");
	put("/sys/fs/cgroup/cpu/irt/cpu.stat", "nr_periods 10\nnr_throttled 2\nthrottled_time 5000000\n");
	put("/sys/fs/cgroup/unified/irt/cpu.stat",
	    "usage_usec 100\nuser_usec 50\nsystem_usec 50\nnr_periods 4\nnr_throttled 1\nthrottled_usec 300\n");
	const char *cgs[] = {"/sys/fs/cgroup/cpu/irt", "/sys/fs/cgroup/unified/irt", "/nope"};
	struct acct_sys a, b;
	struct err e = {0};
	assert_int_equal(acct_sys_snap(&a, cgs, 3, &e), 0);
	assert_true(a.psi_some.present);
	assert_true(a.psi_full.present);
	assert_int_equal(a.psi_some.total_ns, 1000000);
	assert_true(a.psi_some.avg10 > 1.49 && a.psi_some.avg10 < 1.51);
	assert_true(a.have_stat);
	assert_int_equal(a.npercpu, 2);
	assert_int_equal(a.total.user, 100 * tick);
	assert_int_equal(a.ctxt, 5000);
	assert_int_equal(a.procs_running, 3);
	assert_true(a.have_loadavg);
	assert_int_equal(a.sched_threads, 88);
	assert_int_equal(a.cg[0].version, 1);
	assert_int_equal(a.cg[0].throttled_ns, 5000000);
	assert_int_equal(a.cg[0].usage_ns, -1);
	assert_int_equal(a.cg[1].version, 2);
	assert_int_equal(a.cg[1].throttled_ns, 300000);
	assert_int_equal(a.cg[1].usage_ns, 100000);
	assert_false(a.cg[2].present);

	/* Later: PSI "full" line gone (pre-5.13 kernels), cpu1 went offline, cpu2 came, an old
	 * /proc/stat with 8 columns (no guest), iowait going backwards. */
	put("/proc/pressure/cpu", "some avg10=20.00 avg60=5.00 avg300=1.00 total=501000\n");
	put("/proc/stat", "cpu  200 0 100 1200 0 0 0 40\ncpu0 100 0 50 600 0 0 0 20\n"
			  "cpu2 1 0 0 1 0 0 0 0\nctxt 6000\n");
	put("/sys/fs/cgroup/cpu/irt/cpu.stat", "nr_periods 20\nnr_throttled 7\nthrottled_time 9000000\n");
	assert_int_equal(acct_sys_snap(&b, cgs, 3, &e), 0);
	b.at_ns = a.at_ns + 1000000000LL;  /* a 1 s window, for round numbers */
	assert_false(b.psi_full.present);
	struct acct_sys_delta d;
	assert_int_equal(acct_sys_delta(&d, &a, &b, &e), 0);
	assert_int_equal(d.wall_ns, 1000000000LL);
	assert_true(d.have_stat);
	assert_int_equal(d.cpu.steal, 30 * tick);
	assert_int_equal(d.busy_ns, 150 * tick);
	assert_int_equal(d.cpu_total_ns, 380 * tick);
	assert_true(d.steal_pct > 7.89 && d.steal_pct < 7.90);
	assert_int_equal(d.npercpu, 1);
	assert_int_equal(d.percpu[0].cpu, 0);
	assert_int_equal(d.percpu[0].user, 50 * tick);
	assert_int_equal(d.ctxt, 1000);
	assert_true(d.ctxt_per_s > 999.9 && d.ctxt_per_s < 1000.1);
	assert_true(d.have_psi_some);
	assert_false(d.have_psi_full);
	assert_int_equal(d.psi_some_ns, 500000000);
	assert_true(d.psi_some_pct > 49.99 && d.psi_some_pct < 50.01);
	assert_true(d.psi_some_avg10 > 19.9);
	assert_int_equal(d.ncg, 3);
	assert_true(d.cg[0].present);
	assert_int_equal(d.cg[0].nr_periods, 10);
	assert_int_equal(d.cg[0].nr_throttled, 5);
	assert_int_equal(d.cg[0].throttled_ns, 4000000);
	assert_int_equal(d.cg[1].nr_throttled, 0);
	assert_false(d.cg[2].present);

	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	acct_sys_delta_print(f, &d);
	fclose(f);
	assert_non_null(strstr(out, "steal 7.89%"));
	assert_non_null(strstr(out, "psi cpu some 50.0%"));
	assert_non_null(strstr(out, "cgroup /sys/fs/cgroup/cpu/irt: throttled 5 of 10 periods, 4.000 ms"));
	assert_non_null(strstr(out, "cgroup /nope: cpu.stat unreadable"));
	free(out);
	acct_sys_delta_free(&d);
	acct_sys_free(&a);
	acct_sys_free(&b);

	/* Nothing there at all (other sysroot): absent, not an error. */
	setenv("IRT_SYSROOT", "/nonexistent-irt-root", 1);
	assert_int_equal(acct_sys_snap(&a, NULL, 0, &e), 0);
	assert_false(a.have_stat || a.psi_some.present || a.have_loadavg);
	assert_int_equal(a.ctxt, -1);
	assert_int_equal(acct_sys_delta(&d, &a, &a, &e), 0);
	assert_int_equal(d.ctxt, -1);
	acct_sys_delta_free(&d);
	acct_sys_free(&a);
	setenv("IRT_SYSROOT", root, 1);
}

static void test_cgroup_of_fake(void **state)
{
	put("/proc/self/mountinfo",
	    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
	    "32 31 0:29 /outer /sys/fs/cgroup/cpu\\040x rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
	    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
	put("/proc/300/cgroup", "3:cpuset:/\n2:cpu,cpuacct:/outer/irt/probes\n0::/user.slice\n");
	put("/proc/301/cgroup", "0::/user.slice/irt\n");
	put("/proc/302/cgroup", "1:name=systemd:/\n");
	char dir[512];
	int ver = 0;
	struct err e = {0};
	assert_int_equal(acct_cgroup_of(300, dir, sizeof(dir), &ver, &e), 0);
	assert_string_equal(dir, "/sys/fs/cgroup/cpu x/irt/probes");
	assert_int_equal(ver, 1);
	assert_int_equal(acct_cgroup_of(301, dir, sizeof(dir), &ver, &e), 0);
	assert_string_equal(dir, "/sys/fs/cgroup/unified/user.slice/irt");
	assert_int_equal(ver, 2);
	assert_int_equal(acct_cgroup_of(302, dir, sizeof(dir), &ver, &e), -1);
	assert_non_null(strstr(e.msg, "no cpu cgroup"));
	err_clear(&e);
	assert_int_equal(acct_cgroup_of(303, dir, sizeof(dir), &ver, &e), -1);
}

static void test_sys_real(void **state)
{
	char dir[512];
	int ver = 0;
	struct err e = {0};
	const char *cgs[1] = {dir};
	int ncg = acct_cgroup_of(getpid(), dir, sizeof(dir), &ver, &e) == 0 ? 1 : 0;
	if (!ncg)
		print_message("note: %s\n", e.msg);
	struct acct_sys a, b;
	assert_int_equal(acct_sys_snap(&a, cgs, ncg, &e), 0);
	struct timespec ts = {0, 20000000};
	nanosleep(&ts, NULL);
	assert_int_equal(acct_sys_snap(&b, cgs, ncg, &e), 0);
	struct acct_sys_delta d;
	assert_int_equal(acct_sys_delta(&d, &a, &b, &e), 0);
	assert_true(d.have_stat);
	assert_true(d.wall_ns >= 20000000);
	assert_true(d.npercpu >= 1);
	assert_true(d.ctxt >= 0);
	assert_true(d.steal_pct >= 0 && d.steal_pct <= 100);
	if (ncg) {
		assert_true(d.cg[0].present);
		assert_true(d.cg[0].nr_throttled >= 0);
	}
	acct_sys_delta_free(&d);
	acct_sys_free(&a);
	acct_sys_free(&b);
}

/* ---- noise --------------------------------------------------------------------------- */

static struct acct_sys_delta synthetic(int64_t busy, int64_t idle, int64_t steal, double psi_pct)
{
	struct acct_sys_delta d = {0};
	d.wall_ns = 1000000000LL;
	d.have_stat = true;
	d.cpu.user = busy;
	d.cpu.idle = idle;
	d.cpu.steal = steal;
	d.busy_ns = busy;
	d.cpu_total_ns = busy + idle + steal;
	d.steal_pct = 100.0 * (double)steal / (double)d.cpu_total_ns;
	d.have_psi_some = true;
	d.psi_some_pct = psi_pct;
	return d;
}

static void test_noise(void **state)
{
	const int64_t s = 1000000000LL;
	struct acct_noise n;
	/* quiet: 1% steal, little pressure, all busy time is ours */
	struct acct_sys_delta d = synthetic(s / 2, s * 3 / 2 - s / 50, s / 50, 3.0);
	acct_noise_eval(&n, &d, false, s / 2);
	assert_int_equal(n.flags, 0);
	assert_string_equal(n.why, "");
	assert_true(n.foreign_pct == 0);

	/* steal just above 2% */
	d = synthetic(s / 2, s * 3 / 2 - s / 20, s / 20, 3.0);
	acct_noise_eval(&n, &d, true, s / 2);
	assert_int_equal(n.flags, ACCT_NOISE_STEAL);
	assert_non_null(strstr(n.why, "steal 2.5% of CPU time > 2%"));

	/* pressure without loads is noise, with loads it is expected */
	d = synthetic(s / 2, s * 3 / 2, 0, 25.0);
	acct_noise_eval(&n, &d, false, s / 2);
	assert_int_equal(n.flags, ACCT_NOISE_PSI);
	acct_noise_eval(&n, &d, true, s / 2);
	assert_int_equal(n.flags, 0);
	assert_true(n.psi_some_pct == 25.0);

	/* someone else used 0.4 of 2 CPUs (20% > 10%); unknown accounting skips the check */
	d = synthetic(s, s, 0, 0);
	acct_noise_eval(&n, &d, true, s * 6 / 10);
	assert_int_equal(n.flags, ACCT_NOISE_FOREIGN);
	assert_true(n.foreign_pct > 19.99 && n.foreign_pct < 20.01);
	acct_noise_eval(&n, &d, true, -1);
	assert_int_equal(n.flags, 0);
	assert_true(n.foreign_pct == -1);

	/* everything at once, reasons joined */
	d = synthetic(s, s / 2, s / 2, 50.0);
	acct_noise_eval(&n, &d, false, 0);
	assert_int_equal(n.flags, ACCT_NOISE_STEAL | ACCT_NOISE_PSI | ACCT_NOISE_FOREIGN);
	assert_non_null(strstr(n.why, "; "));

	/* no /proc/stat, no PSI: nothing can be judged, nothing flagged */
	struct acct_sys_delta none = {0};
	acct_noise_eval(&n, &none, false, 0);
	assert_int_equal(n.flags, 0);
	assert_true(n.steal_pct == -1 && n.psi_some_pct == -1 && n.foreign_pct == -1);
}

int main(void)
{
#define FAKE(t) cmocka_unit_test_setup_teardown(t, fake_setup, fake_teardown)
	const struct CMUnitTest tests[] = {
		/* parsers against a fake tree */
		FAKE(test_parse_thread),
		FAKE(test_parse_missing_and_odd),
		FAKE(test_run_delay_fake),
		FAKE(test_enumerate_fake),
		FAKE(test_sys_fake),
		FAKE(test_cgroup_of_fake),
		/* pure logic */
		cmocka_unit_test(test_table_rows),
		cmocka_unit_test(test_table_window),
		cmocka_unit_test(test_table_recycled_tid_and_reaped),
		cmocka_unit_test(test_table_properties),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_split_lateness),
		cmocka_unit_test(test_split_lateness_starved),
		/* this process's real threads and the real system */
		cmocka_unit_test(test_real_burner),
		cmocka_unit_test(test_real_runqueue_wait),
		cmocka_unit_test(test_real_self_snapshot),
		cmocka_unit_test(test_real_run_delay_fd),
		cmocka_unit_test(test_sys_real),
	};
	unsetenv("IRT_SYSROOT");
	return cmocka_run_group_tests_name("acct", tests, NULL, NULL);
}

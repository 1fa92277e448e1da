/* Cost of the accounting reads, as ratios against clock_gettime(CLOCK_MONOTONIC), the call a
 * probe already makes every iteration. acct_run_delay is what --attribute adds per iteration;
 * acct_snap_thread is what a snapshot costs per thread (twice per run). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linux/acct.h"

static int64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static volatile int64_t sink;
static int fd;
static pid_t pid, tid;

static void op_clock(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); sink += ts.tv_nsec; }
static void op_cputime(void) { struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); sink += ts.tv_nsec; }
static void op_run_delay(void) { sink += acct_run_delay(fd); }
static void op_snap(void)
{
	struct acct_thread t;
	if (acct_snap_thread(pid, tid, NULL, &t, NULL) == 0)
		sink += t.run_ns;
}

/* Median ns per call over 7 rounds of n calls. */
static double per_call(void (*op)(void), int n)
{
	double r[7];
	for (int k = 0; k < 7; k++) {
		int64_t t0 = now();
		for (int i = 0; i < n; i++)
			op();
		r[k] = (double)(now() - t0) / n;
	}
	qsort(r, 7, sizeof(r[0]), cmp);
	return r[3];
}

int main(void)
{
	pid = getpid();
	tid = (pid_t)syscall(SYS_gettid);
	fd = acct_open_schedstat(0, 0);
	if (fd < 0 || acct_run_delay(fd) < 0) {
		perror("bench/acct: /proc/thread-self/schedstat");
		return 1;
	}
	double base = per_call(op_clock, 200000);
	struct { const char *name; void (*op)(void); int n; } ops[] = {
		{"clock_gettime(CLOCK_MONOTONIC)", op_clock, 200000},
		{"clock_gettime(CLOCK_THREAD_CPUTIME_ID)", op_cputime, 200000},
		{"acct_run_delay(fd)  [--attribute, per iteration]", op_run_delay, 50000},
		{"acct_snap_thread()  [per thread, per snapshot]", op_snap, 2000},
	};
	printf("%-50s %12s %10s\n", "call", "ns/call", "x clock");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		double ns = per_call(ops[i].op, ops[i].n);
		printf("%-50s %12.0f %10.1f\n", ops[i].name, ns, ns / base);
	}
	close(fd);
	return 0;
}

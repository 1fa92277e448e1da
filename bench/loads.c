/* Throughput of each background load type alone, and for cpu loads how many threads were
 * runnable on average against the target (load-avg=N: ratio 1.00 is exact). Each spec runs for
 * SECONDS while the load's threads are sampled every 5 ms. Usage: loads SECONDS SPEC... */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux/load.h"
#include "units.h"

static int64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Threads of process pid in state R (running or on a runqueue). */
static int runnable(pid_t pid)
{
	char dir[64], path[384], buf[512];
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", dir, de->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		char *p = strrchr(buf, ')');
		n += p && p[1] && p[2] == 'R';
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: loads SECONDS SPEC...\n");
		return 2;
	}
	int64_t dur = (int64_t)(atof(argv[1]) * NSEC_PER_SEC);
	printf("%-36s %14s %-9s %10s %9s %s\n", "spec", "ops/s", "op", "MiB/s", "runnable", "ratio");
	for (int i = 2; i < argc; i++) {
		struct load_spec s;
		struct load l;
		struct err e = {0};
		if (load_parse(argv[i], &s, &e) || load_start(&l, &s, now() + dur + 10 * NSEC_PER_SEC, &e))
			return err_print(&e);
		long samples = 0, sum = 0;
		for (int64_t end = now() + dur; now() < end; samples++) {
			sum += runnable(l.worker_pid);
			usleep(5000);
		}
		if (load_stop(&l, &e))
			err_print(&e);
		double mean = samples ? (double)sum / samples : 0;
		char ratio[16] = "";
		if (s.load_milli)
			snprintf(ratio, sizeof(ratio), "%.2f", mean * 1000 / s.load_milli);
		printf("%-36s %14.0f %-9s %10.1f %9.2f %s\n", argv[i], l.result.ops_per_s, load_ops_unit(&s),
		       l.result.bytes_per_s / (1 << 20), mean, ratio);
	}
	return 0;
}

/* Simulator benchmark (`make bench-sim`): a mixed 10-thread workload on one simulated CPU
 * (8 periodic threads, 2 cpu-bound; 60 s simulated) under every policy. Prints scheduling
 * decisions per CPU second and simulated seconds per CPU second, and, for hwquota and rr,
 * the same for the naive tick-by-tick reference (1 us ticks) run in this invocation on the
 * same workload, with the ratio. Single-threaded; times are this thread's CPU time (the
 * machine may be shared); best of 30 runs, one for the reference.
 * bench/sim [--stress-seconds N] [--tsv | --workload FILE] POLICY [REPS]: one policy, best of REPS
 * runs (one: for callgrind), on the 10 threads, with --tsv (always for schedsim-*) on the stress
 * scenario, with --workload on FILE as it is (its own duration). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "result.h"
#include "sim/engine.h"
#include "sim/policy.h"
#include "sim/reference.h"
#include "sim/workload.h"
#include "sim_workload.h"

#define US 1000LL

struct measure {
	double wall;
	uint64_t decisions;
	int64_t simulated;
};

static struct measure run_reps(int policy, bool reference, int reps);

static struct measure run(int policy, bool reference)
{
	return run_reps(policy, reference, reference ? 1 : 30);
}

static struct measure run_one_policy(int policy, int reps)
{
	return run_reps(policy, false, reps);
}

static struct measure run_reps(int policy, bool reference, int reps)
{
	struct sim_cfg sim;
	struct sim_thread_spec t[SIM_BENCH_THREADS];
	int n = sim_bench_workload(&sim, t, policy);
	struct measure best = {0};
	for (int rep = 0; rep < reps; rep++) {
		struct result_thread *o = calloc((size_t)n, sizeof(*o));
		for (int i = 0; i < n; i++) {
			hist_init(&o[i].wake);
			hist_init(&o[i].resp);
		}
		struct sim_totals tot = {0};
		struct err e = {0};
		double t0 = bench_cpu_s();
		int rc = reference ? ref_run(&sim, t, n, 1 * US, NULL, o, &tot, NULL, NULL, &e)
		                   : engine_run(&sim, t, n, o, &tot, NULL, NULL, &e);
		double wall = bench_cpu_s() - t0;
		if (rc) {
			fprintf(stderr, "bench: %s\n", e.msg);
			exit(1);
		}
		if (rep == 0 || wall < best.wall)
			best = (struct measure){wall, tot.decisions, tot.simulated_ns};
		free(o);
	}
	return best;
}

/* ---- schedsim's stress scenario: irt (schedsim-* and its own policies) against schedsim's
 * execute() in this invocation ---- */

#define STRESS "bench/schedsim/stress_mix.tsv"

/* simulated seconds of the stress scenario on both sides (--stress-seconds; issue 14's own
 * table used 600) */
static long stress_seconds = 60;

/* POLICY on a workload file: the stress scenario for --stress-seconds, or (file) as it is */
static struct measure run_file(const char *file, const char *policy, int reps)
{
	struct workload w;
	struct err e = {0};
	struct sim_cfg sim;
	char dur[32];
	snprintf(dur, sizeof(dur), "%lds", stress_seconds);
	if (workload_load(file ? file : STRESS, &w, &e) ||
	    workload_override(&w, sim_opt_find(SCOPE_SIM, "policy"), policy, "policy", &e) ||
	    (!file && workload_override(&w, sim_opt_find(SCOPE_SIM, "duration"), dur, "duration", &e)) ||
	    workload_check(&w, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		exit(1);
	}
	struct sim_thread_spec *t = calloc((size_t)w.nthreads, sizeof(*t));
	if (!t || workload_cell(&w, 0, &sim, t, &e))
		exit(1);
	struct measure best = {0};
	for (int rep = 0; rep < reps; rep++) {
		struct result_thread *o = calloc((size_t)w.nthreads, sizeof(*o));
		for (int i = 0; i < w.nthreads; i++) {
			hist_init(&o[i].wake);
			hist_init(&o[i].resp);
		}
		struct sim_totals tot = {0};
		double t0 = bench_cpu_s();
		if (engine_run(&sim, t, w.nthreads, o, &tot, NULL, NULL, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			exit(1);
		}
		double wall = bench_cpu_s() - t0;
		if (rep == 0 || wall < best.wall)
			best = (struct measure){wall, tot.decisions, tot.simulated_ns};
		free(o);
	}
	free(t);
	workload_free(&w);
	return best;
}

static struct measure run_tsv(const char *policy, int reps)
{
	return run_file(NULL, policy, reps);
}

/* schedsim's execute() CPU time for its policy on the stress scenario (bench/schedsim_ref.py),
 * or -1 without a checkout in $SCHEDSIM */
static double schedsim_execute(const char *policy)
{
	const char *dir = getenv("SCHEDSIM");
	char cmd[1024], line[256];
	double cpu = -1;
	if (!dir || !*dir)
		return -1;
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 bench/schedsim_ref.py '%s' %s " STRESS " %ld000000", dir, policy,
	         stress_seconds);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		sscanf(line, "execute_cpu_s %lf", &cpu);
	pclose(p);
	return cpu;
}

static void stress(void)
{
	static const char *const pairs[][2] = {
		{"schedsim-rr", "rr"}, {"schedsim-stride", "stride"}, {"schedsim-base-hw", "base-hw"},
		{"schedsim-bvt", "bvt"}, {"schedsim-bvt-nowarp", "bvt-nowarp"}, {"schedsim-bvt-sculpt", "bvt-sculpt"},
		{"hwquota", "base-hw"}, {"rr", "rr"}, {"bvt", "bvt"},
	};
	double ref[6] = {0};
	printf("\n%s, %ld s simulated: irt (best of 30, CPU time of this thread) against schedsim's execute()\n"
	       "(CPU time of the Python process, best of 2, interleaved; $SCHEDSIM = %s). The last three rows\n"
	       "are irt's own policies, a different model: same scenario, not the same schedule.\n",
	       STRESS, stress_seconds, getenv("SCHEDSIM") ? getenv("SCHEDSIM") : "unset: no schedsim column");
	printf("%-20s %10s %9s %13s %12s %10s\n", "irt policy", "decisions", "cpu", "decisions/s", "schedsim", "ratio");
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct measure m = run_tsv(pairs[i][0], 30);
		double py = -1;
		int k = -1;
		for (int j = 0; j < 6; j++)
			if (strcmp(pairs[j][1], pairs[i][1]) == 0 && k < 0)
				k = j;
		if (ref[k] == 0) {   /* interleaved: irt, schedsim, irt, schedsim */
			for (int r = 0; r < 2; r++) {
				double x = schedsim_execute(pairs[i][1]);
				struct measure again = run_tsv(pairs[i][0], 30);
				if (again.wall < m.wall)
					m = again;
				if (x >= 0 && (py < 0 || x < py))
					py = x;
			}
			ref[k] = py;
		}
		py = ref[k];
		printf("%-20s %10llu %8.4fs %12.2fM", pairs[i][0], (unsigned long long)m.decisions, m.wall,
		       (double)m.decisions / m.wall / 1e6);
		if (py > 0)
			printf(" %10.3fs %9.0fx  (%s)\n", py, py / m.wall, pairs[i][1]);
		else
			printf(" %12s %10s\n", "-", "-");
	}
}

int main(int argc, char **argv)
{
	bool tsv = false;   /* --tsv: one policy of irt's own on the stress scenario, not the 10 threads */
	const char *file = NULL;   /* --workload FILE */
	for (;;) {
		if (argc >= 3 && strcmp(argv[1], "--stress-seconds") == 0) {   /* bench/sim --stress-seconds N [...] */
			stress_seconds = atol(argv[2]);
			if (stress_seconds < 1 || stress_seconds > 100000) {
				fprintf(stderr, "bench: --stress-seconds wants 1..100000\n");
				return 2;
			}
			argv += 2;
			argc -= 2;
		} else if (argc >= 2 && strcmp(argv[1], "--tsv") == 0) {
			tsv = true;
			argv++;
			argc--;
		} else if (argc >= 3 && strcmp(argv[1], "--workload") == 0) {
			file = argv[2];
			argv += 2;
			argc -= 2;
		} else {
			break;
		}
	}
	if (argc == 2 || argc == 3) {   /* one policy: bench/sim [--tsv | --workload FILE] POLICY [REPS] (once: for callgrind) */
		int p = -1, reps = argc == 3 ? atoi(argv[2]) : 1;
		for (int i = 0; i < sim_npolicies; i++)
			if (strcmp(sim_policies[i]->name, argv[1]) == 0)
				p = i;
		if (reps < 1)
			reps = 1;
		struct measure m = file ? run_file(file, argv[1], reps)
		                   : p >= 0 && !sim_policies[p]->schedsim && !tsv ? run_one_policy(p, reps) : run_tsv(argv[1], reps);
		printf("%s%s%s: %llu decisions in %.4fs (best of %d), %.2fM/s\n", argv[1], file || tsv ? " on " : "",
		       file ? file : tsv ? STRESS : "", (unsigned long long)m.decisions, m.wall, reps,
		       (double)m.decisions / m.wall / 1e6);
		return 0;
	}
	if (tsv || file) {
		fprintf(stderr, "bench: --tsv and --workload want a POLICY\n");
		return 2;
	}
	printf("irt sim benchmark: 8 periodic + 2 cpu-bound threads, 1 CPU, 60 s simulated, one core\n");
	printf("%-8s %12s %9s %14s %14s %16s %8s\n", "policy", "decisions", "cpu", "decisions/s", "sim s/cpu s",
	       "reference dec/s", "ratio");
	for (int p = 0; p < sim_npolicies; p++) {
		const char *name = sim_policies[p]->name;
		if (sim_policies[p]->schedsim)
			continue;   /* they run TSV scenarios: below */
		struct measure m = run(p, false);
		double dps = (double)m.decisions / m.wall;
		printf("%-8s %12llu %8.3fs %13.2fM %14.0f", name, (unsigned long long)m.decisions, m.wall, dps / 1e6,
		       (double)m.simulated / 1e9 / m.wall);
		if (strcmp(name, "hwquota") == 0 || strcmp(name, "rr") == 0) {
			struct measure r = run(p, true);
			double rdps = (double)r.decisions / r.wall;
			printf(" %15.2fM %7.0fx%s\n", rdps / 1e6, dps / rdps,
			       r.decisions == m.decisions ? "" : "  (decision counts differ!)");
		} else {
			printf(" %16s %8s\n", "-", "-");
		}
	}
	stress();
	return 0;
}

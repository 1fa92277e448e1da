/* Workload files: every error names file:line (exit 2), impossible configurations are refused
 * with the reason, units parse as on the command line, sweeps make the cartesian product, and
 * schedsim TSV scenarios import with their semantics (events, restarts, periodic backlog). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "result.h"
#include "sim/sim.h"
#include "sim/workload.h"

#define MS 1000000LL

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Loads and checks; returns the exit code and leaves the message in msg. */
static int try_load(const char *name, const char *text, struct workload *w, char *msg, size_t len)
{
	struct err e = {0};
	const char *path = write_file(name, text);
	int rc = workload_load(path, w, &e) || workload_check(w, &e);
	snprintf(msg, len, "%s", e.msg);
	return rc ? e.code : 0;
}

static void setup_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/irt-sim-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void cleanup_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

struct bad_case {
	const char *text;
	const char *want;   /* substring of the message, with the line */
};

static void test_errors(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
		{"[sim]\nfil = 10ms\n[thread a]\n", "w.ini:2: unknown [sim] key 'fil'"},
		{"[sim]\nfill = 10\n[thread a]\n", "w.ini:2: fill: '10' is not valid"},
		{"[sim]\nfill = 0ms\n[thread a]\n", "w.ini:2: fill: '0ms' is out of range"},
		{"[sim]\npolicy = cfs\n[thread a]\n", "w.ini:2: policy: unknown value 'cfs'"},
		{"[simulation]\n", "w.ini:1: unknown section [simulation]"},
		{"[thread a]\nperiod = 10ms\nperiod = 20ms\n", "w.ini:3: 'period' is given twice in [thread a] (first at line 2)"},
		{"[thread a]\n[thread a]\n", "w.ini:2: thread a is defined twice (first at line 1)"},
		{"[thread]\n", "w.ini:1: [thread] needs a name"},
		{"[thread a]\ntype = periodic\nexec = 1ms\n", "w.ini:1: thread a: a periodic thread needs period > 0"},
		{"[thread a]\ntype = periodic\nperiod = 10ms\n", "w.ini:1: thread a: needs exec > 0"},
		{"[thread a]\ntype = oneshot\n", "w.ini:1: thread a: a oneshot thread needs work > 0"},
		{"[thread a]\ntype = timer\nexec = 1ms\n", "thread a: a timer needs activations > 0"},
		{"[thread a]\nquota = 60%\n[thread b]\nquota = 50%\n", "w.ini:3: claims sum to 1100ms, more than the super period 1s"},
		{"[sim]\npolicy = cfsbw\n[thread a]\ngroup = g\ncfs-quota = 20ms\n[thread b]\ngroup = g\ncfs-quota = 30ms\n",
		 "w.ini:6: group g: threads a and b set different bandwidth"},
		{"[thread a]\nquota = 2s\n", "w.ini:2: thread a: quota 2s is more than the super period 1s"},
		{"[thread a]\nquota = lots\n", "w.ini:2: thread a: quota 'lots' is not a time"},
		{"[thread a]\nprio = 7\n", "w.ini:1: thread a: prio 7 is not a band of hwquota (0..3"},   /* it had no line */
		/* a value of one [sweep] cell makes the thread wrong: the cell and the super period are named */
		{"[sim]\nsuper-period = 100ms\n[thread a]\nquota = 50ms\n[sweep]\nsuper-period = 100ms, 20ms\n",
		 "w.ini:4: thread a: quota 50ms is more than the super period 20ms (in [sweep] cell super-period=20ms)"},
		{"[thread a]\ncpu = 1\n", "w.ini:2: thread a: cpu 1 does not exist (cpus = 1)"},
		{"[sim]\npolicy = rr\nfill = 1ms\n[thread a]\n", "w.ini:3: 'fill' is not a parameter of policy rr"},
		{"[sim]\npolicy = edf\n[thread a]\ndl-runtime = 6ms\ndl-period = 10ms\n[thread b]\ndl-runtime = 5ms\ndl-period = 10ms\n",
		 "deadline servers reserve 110.0% of the CPU"},
		{"[sim]\n[thread a]\n[sweep]\nfill = 1ms, 2x\n", "w.ini:4: fill: '2x' is not valid"},
		{"[thread a]\n[sweep]\nb.quota = 10%\n", "w.ini:3: [sweep] b.quota: no [thread b] above"},
		{"[thread a]\n[sweep]\nnope = 1\n", "w.ini:3: [sweep] 'nope' is not a [sim] key"},
		/* an empty item is a lost value (strtok ran "10ms,,1ms" as 2 cells, "10ms," as 1) */
		{"[thread a]\n[sweep]\nfill = 10ms,,1ms\n", "w.ini:3: [sweep] fill: an empty value in the list"},
		{"[thread a]\n[sweep]\nfill = 10ms,\n", "w.ini:3: [sweep] fill: an empty value in the list"},
		{"[thread a]\n[sweep]\nfill = 10ms, 10ms\n", "w.ini:3: [sweep] fill: '10ms' is in the list twice"},
		{"[thread a]\n[sweep]\nfill =\n", "w.ini:3: [sweep] fill: no values"},
		/* keys the behaviour never reads ran without a word: fixed work, no jitter */
		{"[thread a]\ntype = periodic\nperiod = 10ms\nexec = 1ms\nexec-max = 5ms\n",
		 "w.ini:5: thread a: exec-max is read only with exec-dist = uniform"},
		{"[thread a]\ntype = periodic\nperiod = 10ms\nexec = 1ms\njitter = 2ms\n",
		 "w.ini:5: thread a: jitter is read only by sporadic threads; this periodic thread ignores it"},
		{"[thread a]\nexec = 1ms\n", "w.ini:2: thread a: exec is read only by threads with jobs (not cpu-bound)"},
		{"[thread a]\ntype = oneshot\nwork = 1s\ndeadline = 5ms\n", "w.ini:4: thread a: deadline is read only by"},
		{"period = 1s\n", "w.ini:1: 'period' outside a section"},
		{"[sim]\nthis is not ini\n", "w.ini:2: not a [section] or key = value line"},
		{"[sim]\n", "no threads"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct workload w;
		char msg[512];
		int rc = try_load("w.ini", cases[i].text, &w, msg, sizeof(msg));
		if (rc != 2 || !strstr(msg, cases[i].want))
			fail_msg("case %zu: exit %d, message '%s', wanted exit 2 and '%s'", i, rc, msg, cases[i].want);
		workload_free(&w);
	}
}

static void test_units_and_defaults(void **state)
{
	(void)state;
	struct workload w;
	char msg[512];
	assert_int_equal(try_load("w.ini",
	                          "[sim]\nsuper_period = 200ms   # comment\nduration = 1.5s\n"
	                          "[thread a]\ntype = periodic\nperiod = 10ms\nexec = 250us\nquota = 12.5%\n"
	                          "[thread b]\nquota = 30ms\n[thread t]\ntype = timer\nactivations = 9\nexec = 1ms\n",
	                          &w, msg, sizeof(msg)),
	                 0);
	struct sim_cfg sim;
	struct sim_thread_spec t[3];
	struct err e = {0};
	assert_int_equal(workload_cell(&w, 0, &sim, t, &e), 0);
	assert_int_equal(sim.super_period, 200 * MS);
	assert_int_equal(sim.duration, 1500 * MS);
	assert_int_equal(t[0].cfg.quota_ns, 25 * MS);     /* 12.5 % of 200 ms */
	assert_int_equal(t[0].cfg.deadline, 10 * MS);     /* the period */
	assert_int_equal(t[0].cfg.exec, 250000);
	assert_int_equal(t[1].cfg.quota_ns, 30 * MS);
	assert_int_equal(t[1].cfg.type, SIM_CPU_BOUND);
	assert_int_equal(t[2].cfg.window, 200 * MS);      /* the super period */
	assert_int_equal(t[2].cfg.period, 20 * MS);       /* window / (activations + 1) */
	workload_free(&w);
}

static void test_sweep(void **state)
{
	(void)state;
	struct workload w;
	char msg[512], label[128];
	assert_int_equal(try_load("w.ini",
	                          "[sim]\nduration = 1s\n[thread a]\nquota = 10%\n[thread b]\n"
	                          "[sweep]\nsuper_period = 1s, 100ms\nfill = 10ms, 5ms, 1ms\na.quota = 10%, 20ms\n",
	                          &w, msg, sizeof(msg)),
	                 0);
	assert_int_equal(workload_cells(&w), 12);
	workload_cell_label(&w, 0, label, sizeof(label));
	assert_string_equal(label, "super-period=1s fill=10ms a.quota=10%");
	workload_cell_label(&w, 11, label, sizeof(label));
	assert_string_equal(label, "super-period=100ms fill=1ms a.quota=20ms");
	struct sim_cfg sim;
	struct sim_thread_spec t[2];
	struct err e = {0};
	assert_int_equal(workload_cell(&w, 6, &sim, t, &e), 0);   /* 100ms, 10ms, 10% */
	assert_int_equal(sim.super_period, 100 * MS);
	assert_int_equal(sim.fill, 10 * MS);
	assert_int_equal(t[0].cfg.quota_ns, 10 * MS);
	workload_free(&w);

	/* a cell whose values are impossible is refused before anything runs */
	assert_int_equal(try_load("w.ini", "[thread a]\nquota = 60%\n[thread b]\n[sweep]\nb.quota = 10%, 50%\n", &w, msg,
	                          sizeof(msg)),
	                 2);
	/* at the thread whose claim makes the sum too much (it had no line) */
	assert_non_null(strstr(msg, "w.ini:3: claims sum to 1100ms, more than the super period 1s (lower the quotas) "
	                            "(in [sweep] cell b.quota=50%)"));
	workload_free(&w);

	/* policy-specific keys are fine when some swept policy reads them */
	assert_int_equal(try_load("w.ini", "[sim]\nfill = 1ms\nslice = 2ms\n[thread a]\n[sweep]\npolicy = hwquota, rr\n", &w,
	                          msg, sizeof(msg)),
	                 0);
	workload_free(&w);

	/* so is exec-max where exec-dist is swept (its uniform cell reads it), and jitter where type is */
	assert_int_equal(try_load("w.ini",
	                          "[thread a]\ntype = periodic\nperiod = 10ms\nexec = 1ms\nexec-max = 2ms\njitter = 1ms\n"
	                          "[sweep]\na.exec-dist = fixed, uniform\na.type = periodic, sporadic\n",
	                          &w, msg, sizeof(msg)),
	                 0);
	workload_free(&w);
}

/* A schedsim scenario: rows of one thread are its jobs; 'every' is periodic; a completion's
 * event starts the jobs waiting for it; restart re-arrives after completion. */
static const char *const tsv =
	"# schedsim-format scenario\n"
	"thread\tstart\truntime\tweight\tpriority\trestart\tevent\n"
	"E\tevery 50ms\t10ms\t20\t1\n"
	"B\te1\t100ms\t10\t0\n"
	"A\t0s\t300ms\t10\t0\n"
	"A\t0.5s\t1s50ms\t10\t0\n"
	"C\t0.2s\t50ms\t10\t0\t\te1\n"
	"R\t0\t20ms\t10\t0\t80ms\n";

static void test_tsv(void **state)
{
	(void)state;
	struct workload w;
	char msg[512];
	const char *ini = "[sim]\npolicy = rr\nslice = 10ms\nduration = 3s\nimport = s.tsv\n";
	write_file("s.tsv", tsv);
	assert_int_equal(try_load("w.ini", ini, &w, msg, sizeof(msg)), 0);
	assert_int_equal(w.nthreads, 5);
	assert_string_equal(w.threads[0].spec.name, "E");
	assert_int_equal(w.threads[2].spec.njobs, 2);     /* A has two rows */
	assert_int_equal(w.threads[2].spec.jobs[1].at, 500 * MS);
	assert_int_equal(w.threads[2].spec.jobs[1].runtime, 1050 * MS);
	struct result r;
	struct err e = {0};
	assert_int_equal(sim_run_cell(&w, 0, &r, NULL, NULL, &e), 0);
	const struct result_thread *E = &r.threads[0], *B = &r.threads[1], *A = &r.threads[2], *C = &r.threads[3],
	                           *R = &r.threads[4];
	assert_int_equal(E->samples, 60);                  /* priority 1: never waits */
	assert_int_equal(E->wake.max, 0);
	assert_int_equal(E->deadlines_met, 60);
	assert_int_equal(C->samples, 1);
	assert_int_equal(B->samples, 1);                   /* started by C's event */
	assert_true(B->wake.count == 1);
	assert_int_equal(A->samples, 1);                   /* its 0.5 s job arrived while the */
	assert_int_equal(A->overruns, 1);                  /* first still ran: dropped */
	assert_true(R->samples >= 20);                     /* 20 ms + 80 ms pause, all along */
	assert_int_equal(R->resp.min, 20 * MS);
	result_free(&r);
	workload_free(&w);

	/* hwquota reads weight as the quota in percent when the priority is above 0 */
	write_file("s.tsv", tsv);
	assert_int_equal(try_load("w.ini", "[sim]\nimport = s.tsv\n", &w, msg, sizeof(msg)), 0);
	struct sim_cfg sim;
	struct sim_thread_spec t[5];
	assert_int_equal(workload_cell(&w, 0, &sim, t, &e), 0);
	assert_int_equal(t[0].cfg.quota_ns, 200 * MS);
	assert_int_equal(t[2].cfg.quota_ns, 0);
	workload_free(&w);

	/* the TSV alone works too, and its errors name the line */
	assert_int_equal(try_load("direct.tsv", tsv, &w, msg, sizeof(msg)), 0);
	workload_free(&w);
	assert_int_equal(try_load("bad.tsv", "thread\tstart\truntime\tweight\nX\t0s\tsoon\t1\n", &w, msg, sizeof(msg)), 2);
	assert_non_null(strstr(msg, "bad.tsv:2: runtime 'soon' is not a duration"));
	workload_free(&w);
	assert_int_equal(try_load("bad.tsv", "thread\tbegin\truntime\tweight\n", &w, msg, sizeof(msg)), 2);
	assert_non_null(strstr(msg, "bad.tsv:1: unknown column 'begin'"));
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_units_and_defaults),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_tsv),
	};
	setup_dir();
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	cleanup_dir();
	return rc;
}

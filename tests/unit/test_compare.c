/* irt compare on synthetic results built in memory: grouping into cells, baseline choice,
 * verdicts end to end, JSON shape, determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "config.h"
#include "opt.h"
#include "stats.h"

/* A run of one probe thread whose latencies are exponential with the given mean above a
 * 20 us floor; response = wake-up + 100 us; deadline 300 us. */
static void make_run(struct result *r, struct rng *g, const char *slice, const char *json,
                     double mean_ns, int samples, int nthreads)
{
	assert_int_equal(result_init(r, "probe", nthreads, NULL), 0);
	snprintf(r->env.hostname, sizeof(r->env.hostname), "host1");
	snprintf(r->env.kernel, sizeof(r->env.kernel), "6.18.0");
	kvlist_set(&r->settings, "json", json);   /* differs per run, ignored for grouping */
	for (int t = 0; t < nthreads; t++) {
		struct result_thread *th = &r->threads[t];
		snprintf(th->name, sizeof(th->name), "probe%d", t);
		snprintf(th->role, sizeof(th->role), "probe");
		kvlist_set(&th->settings, "period", "1ms");
		kvlist_set(&th->settings, "slice", slice);
		for (int i = 0; i < samples; i++) {
			int64_t w = 20000 + (int64_t)(-mean_ns * log(1.0 - rng_double(g)));
			hist_record(&th->wake, w);
			hist_record(&th->resp, w + 100000);
			if (w + 100000 <= 300000)
				th->deadlines_met++;
			else
				th->deadlines_missed++;
		}
		th->samples = (uint64_t)samples;
	}
}

static void defaults(struct report_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	opt_defaults(SCOPE_REPORT, cfg);
	cfg->resamples = 300;   /* fast tests; the default is 2000 */
}

static json_t *run_json(const struct result *runs, const char *const *paths, int n,
                        const struct report_cfg *cfg, FILE *out)
{
	char path[] = "/tmp/irt-test-compare.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct err e = {0};
	struct compare c;
	assert_int_equal(compare_results(runs, paths, n, cfg, 1, &c, &e), 0);
	if (out)
		compare_print(&c, out);
	assert_int_equal(compare_write_json(&c, path, &e), 0);
	compare_free(&c);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	unlink(path);
	assert_non_null(root);
	return root;
}

static const char *verdict_of(json_t *root, const char *thread, const char *metric, const char *cell)
{
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(root, "rows"), i, row)
	{
		if (strcmp(json_string_value(json_object_get(row, "thread")), thread) == 0 &&
		    strcmp(json_string_value(json_object_get(row, "metric")), metric) == 0 &&
		    strcmp(json_string_value(json_object_get(row, "cell")), cell) == 0)
			return json_string_value(json_object_get(row, "verdict"));
	}
	return NULL;
}

static void test_metric_choices_match(void **state)
{
	(void)state;
	const struct opt *o = opt_find("metric");
	assert_non_null(o);
	assert_true(o->scope == SCOPE_REPORT);
	struct report_cfg cfg;
	defaults(&cfg);
	assert_int_equal(cfg.metric, RANK_RESP_P99);
	assert_string_equal(o->choices[RANK_WAKE_P999], "wake-p99.9");
	assert_string_equal(o->choices[RANK_RESP_MAX], "resp-max");
	assert_null(o->choices[RANK_RESP_MAX + 1]);
	assert_true(cfg.min_throughput == 900000);
	assert_true(compare_ignored_setting("json") && !compare_ignored_setting("slice"));
}

static void test_cells_and_verdicts(void **state)
{
	(void)state;
	struct rng g;
	rng_seed(&g, 1);
	enum { N = 10 };
	struct result runs[N];
	const char *paths[N];
	char names[N][32];
	/* interleaved: base slice=0 mean 100 us; cell slice=1ms mean 50 us; 5 runs each */
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "r%d.json", i);
		paths[i] = names[i];
		bool fast = i % 2;
		make_run(&runs[i], &g, fast ? "1ms" : "0", names[i], fast ? 50e3 : 100e3, 2000, 1);
	}
	struct report_cfg cfg;
	defaults(&cfg);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_t *root = run_json(runs, paths, N, &cfg, out);
	fclose(out);
	fputs(text, stdout);

	json_t *cells = json_object_get(root, "cells");
	assert_int_equal(json_array_size(cells), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cells, 0), "name")),
	                    "probe0.slice=0");
	assert_string_equal(json_string_value(json_object_get(json_array_get(cells, 1), "name")),
	                    "probe0.slice=1ms");
	assert_int_equal(json_array_size(json_object_get(json_array_get(cells, 1), "files")), 5);
	assert_string_equal(json_string_value(json_object_get(root, "baseline")), "A");

	assert_string_equal(verdict_of(root, "probe0", "wake-p50", "A"), "baseline");
	assert_string_equal(verdict_of(root, "probe0", "wake-p50", "B"), "better");
	assert_string_equal(verdict_of(root, "probe0", "resp-p99", "B"), "better");
	assert_string_equal(verdict_of(root, "probe0", "deadline-met", "B"), "better");
	/* 5 runs of 2000 samples put 10 beyond p99.9 per cell: enough for the two-level test */
	assert_string_equal(verdict_of(root, "probe0", "wake-p99.9", "B"), "better");
	/* the maximum goes by the rank test: 5 against 5 runs can reach it */
	assert_string_equal(verdict_of(root, "probe0", "wake-max", "B"), "better");
	assert_null(verdict_of(root, "probe0", "throughput", "B"));   /* not recorded */
	json_t *rec = json_object_get(root, "recommendation");
	assert_string_equal(json_string_value(json_object_get(rec, "cell")), "B");
	assert_string_equal(json_string_value(json_object_get(rec, "metric")), "resp-p99");

	/* the text names cells, aligns columns and carries the verdicts */
	assert_non_null(strstr(text, "probe0.slice=1ms"));
	assert_non_null(strstr(text, "better (p="));
	assert_non_null(strstr(text, "recommendation"));
	json_decref(root);
	free(text);

	/* baseline by file, by letter, by name; the recommendation then keeps it */
	const char *want[] = {"r1.json", "B", "probe0.slice=1ms"};
	for (int k = 0; k < 3; k++) {
		snprintf(cfg.baseline, sizeof(cfg.baseline), "%s", want[k]);
		root = run_json(runs, paths, N, &cfg, NULL);
		assert_string_equal(json_string_value(json_object_get(root, "baseline")), "B");
		assert_string_equal(verdict_of(root, "probe0", "wake-p50", "A"), "worse");
		json_t *r = json_object_get(root, "recommendation");
		assert_string_equal(json_string_value(json_object_get(r, "cell")), "B");
		json_decref(root);
	}
	struct err e = {0};
	struct compare c;
	snprintf(cfg.baseline, sizeof(cfg.baseline), "nope");
	assert_int_equal(compare_results(runs, paths, N, &cfg, 1, &c, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "--baseline: 'nope'"));
	assert_non_null(strstr(e.msg, "A = probe0.slice=0"));

	/* identical settings, identical distributions: one cell; two cells of the same law differ
	 * in no verdict */
	for (int i = 0; i < N; i++)
		result_free(&runs[i]);
	for (int i = 0; i < N; i++)
		make_run(&runs[i], &g, i % 2 ? "1ms" : "0", names[i], 100e3, 2000, 1);
	defaults(&cfg);
	root = run_json(runs, paths, N, &cfg, NULL);
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(root, "rows"), i, row)
	{
		const char *v = json_string_value(json_object_get(row, "verdict"));
		assert_true(strcmp(v, "better") != 0 && strcmp(v, "worse") != 0);
	}
	json_decref(root);
	for (int k = 0; k < N; k++)
		result_free(&runs[k]);
}

static const json_t *row_of(json_t *root, const char *metric, const char *cell)
{
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(root, "rows"), i, row)
	{
		if (strcmp(json_string_value(json_object_get(row, "metric")), metric) == 0 &&
		    strcmp(json_string_value(json_object_get(row, "cell")), cell) == 0)
			return row;
	}
	return NULL;
}

/* A sweep compares every cell with the baseline: Holm's step-down keeps the family's false
 * verdicts at alpha. A cell whose difference passes p <= 0.05 alone (against the baseline
 * only: "worse") but not 0.05 / 9 is withheld beside 9 more cells, with the reason. The effect
 * is searched for, so the test does not hang on one seed's p. */
static void test_holm_sweep(void **state)
{
	(void)state;
	enum { RUNS = 5, CELLS = 11, N = RUNS * CELLS };
	struct rng g;
	rng_seed(&g, 3);
	struct result runs[N];
	const char *paths[N];
	char names[N][32], slices[CELLS][16];
	struct report_cfg cfg;
	defaults(&cfg);
	bool found = false;
	for (double effect = 1.02; effect < 1.3 && !found; effect += 0.01) {
		for (int i = 0; i < N; i++) {   /* cell 0 the baseline, cell 1 the effect, 2.. null */
			int cell = i / RUNS;
			snprintf(names[i], sizeof(names[i]), "r%d.json", i);
			snprintf(slices[cell], sizeof(slices[cell]), "%dms", cell);
			paths[i] = names[i];
			make_run(&runs[i], &g, slices[cell], names[i], cell == 1 ? 100e3 * effect : 100e3, 2000, 1);
		}
		json_t *two = run_json(runs, paths, 2 * RUNS, &cfg, NULL);   /* cells 0 and 1 alone */
		const json_t *r2 = row_of(two, "wake-p99", "B");
		double p = json_real_value(json_object_get(r2, "p"));
		if (strcmp(json_string_value(json_object_get(r2, "verdict")), "worse") == 0 && p > 0.05 / 9) {
			found = true;
			json_t *all = run_json(runs, paths, N, &cfg, NULL);
			const json_t *r = row_of(all, "wake-p99", "B");
			assert_true(json_real_value(json_object_get(r, "p")) == p);   /* the same test */
			assert_string_not_equal(json_string_value(json_object_get(r, "verdict")), "worse");
			assert_non_null(strstr(json_string_value(json_object_get(r, "why")), "Holm over 10 cells"));
			json_decref(all);
		}
		json_decref(two);
		for (int i = 0; i < N; i++)
			result_free(&runs[i]);
	}
	assert_true(found);
}

/* The same runs named in another order within their cells give the same rows: the bootstrap
 * draws runs by index, so a cell's runs are put in a canonical order first. */
static void test_file_order(void **state)
{
	(void)state;
	enum { N = 8 };
	struct rng g;
	rng_seed(&g, 5);
	struct result runs[N], perm[N];
	const char *paths[N], *ppaths[N];
	char names[N][32];
	for (int i = 0; i < N; i++) {   /* A: even, B: odd, 4 runs each */
		snprintf(names[i], sizeof(names[i]), "r%d.json", i);
		paths[i] = names[i];
		make_run(&runs[i], &g, i % 2 ? "1ms" : "0", names[i], i % 2 ? 90e3 : 100e3, 2000, 1);
	}
	for (int i = 0; i < N; i++) {   /* r0 first (A stays the baseline), then r7 ... r1 */
		int from = i ? N - i : 0;
		perm[i] = runs[from];
		ppaths[i] = paths[from];
	}
	struct report_cfg cfg;
	defaults(&cfg);
	json_t *a = run_json(runs, paths, N, &cfg, NULL), *b = run_json(perm, ppaths, N, &cfg, NULL);
	assert_true(json_equal(json_object_get(a, "rows"), json_object_get(b, "rows")));
	json_decref(a);
	json_decref(b);
	for (int i = 0; i < N; i++)
		result_free(&runs[i]);
}

static void test_single_runs_and_threads(void **state)
{
	(void)state;
	struct rng g;
	rng_seed(&g, 2);
	struct result runs[2];
	const char *paths[] = {"a.json", "b.json"};
	make_run(&runs[0], &g, "0", "a.json", 100e3, 20000, 2);
	make_run(&runs[1], &g, "1ms", "b.json", 150e3, 20000, 2);
	struct report_cfg cfg;
	defaults(&cfg);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_t *root = run_json(runs, paths, 2, &cfg, out);
	fclose(out);
	fputs(text, stdout);
	/* by default no verdicts between single runs, but the reason says what the runs show */
	assert_string_equal(verdict_of(root, "all", "wake-p50", "B"), "too few samples");
	assert_non_null(strstr(text, "too few samples (one run each; within-run: worse, p<0.0001)"));
	assert_non_null(strstr(text, "--single-run-floor"));
	json_decref(root);
	free(text);
	/* with a floor: verdicts */
	cfg.single_run_floor = 100000;
	out = open_memstream(&text, &len);
	root = run_json(runs, paths, 2, &cfg, out);
	fclose(out);
	/* two threads: an "all" block merging them, then one block per thread */
	assert_string_equal(verdict_of(root, "all", "wake-p50", "B"), "worse");
	assert_string_equal(verdict_of(root, "probe1", "wake-p99", "B"), "worse");
	assert_string_equal(verdict_of(root, "probe0", "wake-p99.9", "B"), "worse");
	assert_string_equal(verdict_of(root, "probe0", "wake-max", "B"), "too few samples");
	assert_non_null(strstr(text, "single runs"));
	assert_non_null(strstr(text, "all probe threads"));
	/* deterministic: the same input and seed give the same JSON */
	json_t *again = run_json(runs, paths, 2, &cfg, NULL);
	assert_true(json_equal(root, again));
	json_decref(again);
	json_decref(root);
	free(text);
	result_free(&runs[0]);
	result_free(&runs[1]);
}

/* Loads: throughput rows, the throughput condition of the recommendation, the Pareto front. */
static void test_loads_recommendation(void **state)
{
	(void)state;
	struct rng g;
	rng_seed(&g, 3);
	/* cell: latency mean, load ops/s. B is faster and keeps 95 % of the work, C is fastest
	 * but halves it, D is dominated by B. */
	const struct {
		const char *slice;
		double mean, ops;
	} cells[] = {{"0", 100e3, 1000}, {"1ms", 50e3, 950}, {"2ms", 30e3, 500}, {"3ms", 80e3, 700}};
	enum { REPS = 5, N = 4 * REPS };
	struct result runs[N];
	const char *paths[N];
	char names[N][32];
	for (int i = 0; i < N; i++) {
		int k = i % 4;
		snprintf(names[i], sizeof(names[i]), "c%d.%d.json", k, i / 4);
		paths[i] = names[i];
		make_run(&runs[i], &g, cells[k].slice, names[i], cells[k].mean, 2000, 1);
		struct result_load *l = result_add_load(&runs[i]);
		snprintf(l->name, sizeof(l->name), "cpu0");
		snprintf(l->type, sizeof(l->type), "cpu");
		snprintf(l->spec, sizeof(l->spec), "cpu");
		snprintf(l->ops_unit, sizeof(l->ops_unit), "loops");
		snprintf(l->end, sizeof(l->end), "stopped");
		l->ops_per_s = cells[k].ops * (1 + 0.01 * rng_normal(&g));
	}
	struct report_cfg cfg;
	defaults(&cfg);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_t *root = run_json(runs, paths, N, &cfg, out);
	fclose(out);
	fputs(text, stdout);
	size_t i;
	json_t *row, *c_thr = NULL;
	json_array_foreach(json_object_get(root, "rows"), i, row)
	{
		const char *load = json_string_value(json_object_get(row, "load"));
		const char *cell = json_string_value(json_object_get(row, "cell"));
		if (load && strcmp(cell, "C") == 0)
			c_thr = row;
	}
	assert_non_null(c_thr);
	assert_string_equal(json_string_value(json_object_get(c_thr, "verdict")), "worse");
	assert_true(fabs(json_real_value(json_object_get(c_thr, "ratio")) - 0.5) < 0.02);
	json_t *rec = json_object_get(root, "recommendation");
	assert_string_equal(json_string_value(json_object_get(rec, "cell")), "B");
	json_t *pareto = json_object_get(root, "pareto");
	assert_int_equal(json_array_size(pareto), 3);
	assert_string_equal(json_string_value(json_array_get(pareto, 0)), "A");
	assert_string_equal(json_string_value(json_array_get(pareto, 1)), "B");
	assert_string_equal(json_string_value(json_array_get(pareto, 2)), "C");
	assert_non_null(strstr(text, "cpu0 loops/s"));
	assert_non_null(strstr(text, "throughput in every load"));
	json_decref(root);
	free(text);

	/* asking for only 40 % of the throughput lets the fastest cell through */
	cfg.min_throughput = 400000;
	root = run_json(runs, paths, N, &cfg, NULL);
	rec = json_object_get(root, "recommendation");
	assert_string_equal(json_string_value(json_object_get(rec, "cell")), "C");
	json_decref(root);
	for (int k = 0; k < N; k++)
		result_free(&runs[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_choices_match),
		cmocka_unit_test(test_cells_and_verdicts),
		cmocka_unit_test(test_holm_sweep),
		cmocka_unit_test(test_file_order),
		cmocka_unit_test(test_single_runs_and_threads),
		cmocka_unit_test(test_loads_recommendation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

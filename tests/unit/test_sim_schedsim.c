/* schedsim's policies (schedsim-*) give schedsim's own numbers. The scenarios in
 * tests/sim/schedsim/ are irt's own (overrun: skipped periods with owed runtime, events,
 * restarts, a dropped row; bands: priorities, quotas, warps and a signalled job; gaps: weights,
 * idle gaps, rows out of order); the expected values below are what jschlatow/schedsim
 * (715c474, its schedule.py's numbers, default max_time 10 s) printed for them, per thread:
 * completed jobs, response min, mean, median, max, maximum scheduling latency (us; -1: no
 * completed job) and CPU share, and where its run ended. bench/schedsim-parity regenerates
 * them side by side. Also: the end rule for irt's own policies and --end duration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "hist.h"
#include "opt.h"
#include "result.h"
#include "sim/schedsim.h"
#include "sim/sim.h"
#include "sim/workload.h"

#define DIR "tests/sim/schedsim/"

struct want_thread {
	const char *name;
	int64_t jobs, min, mean, median, max, lat;
	const char *share;
};

struct want {
	const char *file, *policy;
	int64_t end_us;
	struct want_thread t[8];
};

static const struct want wants[] = {
	{"overrun.tsv", "schedsim-rr", 659000, {
		{"A", 3, 53000, 210000, 185000, 392000, 16000, "0.536810"},
		{"B", 37, 8000, 11972, 8000, 21000, 17000, "0.224583"},
		{"C", 1, 338000, 338000, 338000, 338000, 4000, "0.443787"},
		{"D", 1, 24000, 24000, 24000, 24000, 22000, "0.083333"},
		{"W", 3, 3000, 12333, 17000, 17000, 14000, "0.014950"},
		{NULL}}},
	{"overrun.tsv", "schedsim-stride", 1094000, {
		{"A", 4, 47000, 262500, 208000, 587000, 4000, "0.597976"},
		{"B", 70, 6000, 9714, 8000, 18000, 14000, "0.255941"},
		{"C", 1, 904000, 904000, 904000, 904000, 4000, "0.165929"},
		{"D", 1, 2000, 2000, 2000, 2000, 0, "1.000000"},
		{"W", 4, 3000, 3000, 3000, 3000, 0, "0.011505"},
		{NULL}}},
	{"overrun.tsv", "schedsim-base-hw", 791000, {
		{"A", 3, 45000, 256333, 180000, 544000, 4000, "0.414541"},
		{"B", 77, 1000, 4441, 4000, 34000, 30000, "0.385588"},
		{"C", 1, 563000, 563000, 563000, 563000, 39000, "0.266430"},
		{"D", 1, 2000, 2000, 2000, 2000, 0, "1.000000"},
		{"W", 3, 3000, 3000, 3000, 3000, 0, "0.012129"},
		{NULL}}},
	{"overrun.tsv", "schedsim-bvt", 1410000, {
		{"A", 5, 33000, 277560, 176000, 723000, 7000, "0.623664"},
		{"B", 92, 4000, 9391, 4000, 40330, 36330, "0.260993"},
		{"C", 1, 1189330, 1189330, 1189330, 1189330, 40000, "0.126121"},
		{"D", 1, 2000, 2000, 2000, 2000, 0, "1.000000"},
		{"W", 5, 3000, 3400, 3000, 5000, 0, "0.010925"},
		{NULL}}},
	{"overrun.tsv", "schedsim-bvt-nowarp", 2352000, {
		{"A", 6, 38000, 385083, 257250, 1045000, 8000, "0.703625"},
		{"B", 133, 4000, 11729, 9000, 28400, 24400, "0.226190"},
		{"C", 1, 942000, 942000, 942000, 942000, 0, "0.159236"},
		{"D", 1, 2000, 2000, 2000, 2000, 0, "1.000000"},
		{"W", 6, 3000, 5833, 3000, 14000, 0, "0.007792"},
		{NULL}}},
	{"overrun.tsv", "schedsim-bvt-sculpt", 10003000, {
		{"A", 8, 33000, 763875, 381000, 2696000, 2000, "1.149029"},
		{"B", 713, 4000, 8029, 4000, 47000, 43000, "0.285286"},
		{"C", 0, -1, -1, -1, -1, -1, "0.174757"},
		{"D", 1, 2000, 2000, 2000, 2000, 0, "1.000000"},
		{"W", 8, 3000, 3000, 3000, 3000, 0, "0.003905"},
		{NULL}}},
	{"bands.tsv", "schedsim-rr", 1198000, {
		{"H", 1, 1096000, 1096000, 1096000, 1096000, 21000, "0.364964"},
		{"H2", 1, 355000, 355000, 355000, 355000, 11000, "0.281690"},
		{"L", 20, 12000, 25000, 24000, 41000, 34000, "0.121528"},
		{"X", 6, 33000, 183166, 215000, 282000, 28000, "0.330551"},
		{"Y", 27, 4000, 24518, 26000, 42000, 38000, "0.091837"},
		{"Z", 27, 12000, 23111, 22000, 39000, 37000, "0.045997"},
		{NULL}}},
	{"bands.tsv", "schedsim-stride", 1198000, {
		{"H", 1, 995000, 995000, 995000, 995000, 0, "0.402010"},
		{"H2", 1, 528000, 528000, 528000, 528000, 9000, "0.189394"},
		{"L", 20, 7000, 13600, 12000, 27000, 20000, "0.121951"},
		{"X", 6, 45000, 189166, 182000, 329000, 10000, "0.350584"},
		{"Y", 27, 4000, 18518, 16000, 40000, 36000, "0.091993"},
		{"Z", 15, 2000, 53400, 63000, 94000, 92000, "0.025974"},
		{NULL}}},
	{"bands.tsv", "schedsim-base-hw", 1426000, {
		{"H", 1, 1426000, 1426000, 1426000, 1426000, 25000, "0.280505"},
		{"H2", 1, 244000, 244000, 244000, 244000, 0, "0.409836"},
		{"L", 24, 7000, 21333, 23000, 49000, 42000, "0.119573"},
		{"X", 45, 12000, 15577, 12000, 55000, 13000, "0.405063"},
		{"Y", 32, 4000, 9156, 4000, 16000, 12000, "0.091494"},
		{"Z", 27, 2000, 11703, 2000, 246000, 7000, "0.038989"},
		{NULL}}},
	{"bands.tsv", "schedsim-bvt", 1436000, {
		{"H", 1, 1436000, 1436000, 1436000, 1436000, 25000, "0.278552"},
		{"H2", 1, 845980, 845980, 845980, 845980, 1000, "0.118206"},
		{"L", 24, 19000, 23000, 25000, 25000, 18000, "0.119573"},
		{"X", 48, 12000, 12000, 12000, 12000, 0, "0.405063"},
		{"Y", 32, 4000, 10000, 10000, 16000, 12000, "0.091494"},
		{"Z", 32, 2000, 2000, 2000, 2000, 0, "0.046209"},
		{NULL}}},
	{"bands.tsv", "schedsim-bvt-nowarp", 1101000, {
		{"H", 1, 1001080, 1001080, 1001080, 1001080, 0, "0.399568"},
		{"H2", 1, 518660, 518660, 518660, 518660, 0, "0.192805"},
		{"L", 13, 7000, 45882, 47990, 91060, 20000, "0.122355"},
		{"X", 6, 47000, 175256, 181330, 293860, 10000, "0.316076"},
		{"Y", 11, 8000, 73480, 91470, 120660, 56860, "0.091324"},
		{"Z", 10, 2000, 6900, 2000, 51000, 49000, "0.018762"},
		{NULL}}},
	{"bands.tsv", "schedsim-bvt-sculpt", 1436000, {
		{"H", 1, 1436000, 1436000, 1436000, 1436000, 25000, "0.278552"},
		{"H2", 1, 280000, 280000, 280000, 280000, 1000, "0.357143"},
		{"L", 24, 19000, 22333, 23000, 25000, 18000, "0.119743"},
		{"X", 48, 12000, 12000, 12000, 12000, 0, "0.405063"},
		{"Y", 32, 4000, 10000, 10000, 16000, 12000, "0.091494"},
		{"Z", 32, 2000, 3375, 2000, 9000, 7000, "0.046076"},
		{NULL}}},
	{"gaps.tsv", "schedsim-rr", 375000, {
		{"P", 2, 40000, 47500, 47500, 55000, 0, "0.400000"},
		{"Q", 1, 85000, 85000, 85000, 85000, 10000, "0.588235"},
		{"R", 2, 15000, 40000, 40000, 65000, 10000, "0.300000"},
		{"S", 1, 355000, 355000, 355000, 355000, 320000, "0.107143"},
		{NULL}}},
	{"gaps.tsv", "schedsim-stride", 375000, {
		{"P", 2, 40000, 42500, 42500, 45000, 0, "0.400000"},
		{"Q", 1, 85000, 85000, 85000, 85000, 15000, "0.588235"},
		{"R", 2, 5000, 35000, 35000, 65000, 10000, "0.300000"},
		{"S", 1, 345000, 345000, 345000, 345000, 310000, "0.115385"},
		{NULL}}},
	{"gaps.tsv", "schedsim-base-hw", 375000, {
		{"P", 2, 40000, 57500, 57500, 75000, 15000, "0.400000"},
		{"Q", 1, 85000, 85000, 85000, 85000, 0, "0.588235"},
		{"R", 2, 5000, 35000, 35000, 65000, 10000, "0.300000"},
		{"S", 1, 345000, 345000, 345000, 345000, 310000, "0.115385"},
		{NULL}}},
	{"gaps.tsv", "schedsim-bvt", 375000, {
		{"P", 2, 40000, 46667, 46667, 53334, 0, "0.400000"},
		{"Q", 1, 85000, 85000, 85000, 85000, 15000, "0.588235"},
		{"R", 2, 5000, 35000, 35000, 65000, 10000, "0.300000"},
		{"S", 1, 345000, 345000, 345000, 345000, 310000, "0.115385"},
		{NULL}}},
	{"gaps.tsv", "schedsim-bvt-nowarp", 375000, {
		{"P", 2, 40000, 46667, 46667, 53334, 0, "0.400000"},
		{"Q", 1, 85000, 85000, 85000, 85000, 15000, "0.588235"},
		{"R", 2, 5000, 35000, 35000, 65000, 10000, "0.300000"},
		{"S", 1, 345000, 345000, 345000, 345000, 310000, "0.115385"},
		{NULL}}},
	{"gaps.tsv", "schedsim-bvt-sculpt", 375000, {
		{"P", 2, 40000, 46667, 46667, 53334, 0, "0.400000"},
		{"Q", 1, 85000, 85000, 85000, 85000, 15000, "0.588235"},
		{"R", 2, 5000, 35000, 35000, 65000, 10000, "0.300000"},
		{"S", 1, 345000, 345000, 345000, 345000, 310000, "0.115385"},
		{NULL}}},
};

static void load(struct workload *w, const char *file, const char *policy, const char *end)
{
	struct err e = {0};
	char path[256];
	snprintf(path, sizeof(path), DIR "%s", file);
	if (workload_load(path, w, &e) ||
	    (policy && workload_override(w, sim_opt_find(SCOPE_SIM, "policy"), policy, "--policy", &e)) ||
	    (end && workload_override(w, sim_opt_find(SCOPE_SIM, "end"), end, "--end", &e)) || workload_check(w, &e))
		fail_msg("%s: %s", file, e.msg);
}

static const struct result_thread *thread(const struct result *r, const char *name, int *index)
{
	for (int i = 0; i < r->nthreads; i++)
		if (strcmp(r->threads[i].name, name) == 0) {
			if (index)
				*index = i;
			return &r->threads[i];
		}
	fail_msg("no thread %s", name);
	return NULL;
}

static void test_schedsim_numbers(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(wants) / sizeof(wants[0]); k++) {
		const struct want *x = &wants[k];
		struct workload w;
		struct result r;
		struct ss_summary *m = NULL;
		struct err e = {0};
		load(&w, x->file, x->policy, NULL);
		if (sim_run_cell(&w, 0, &r, NULL, &m, &e))
			fail_msg("%s %s: %s", x->file, x->policy, e.msg);
		assert_non_null(m);
		if (r.duration_ns != x->end_us * 1000)
			fail_msg("%s %s: ended at %lld ns, schedsim at %lld us", x->file, x->policy, (long long)r.duration_ns,
			         (long long)x->end_us);
		int n = 0;
		for (const struct want_thread *t = x->t; t->name; t++, n++) {
			int i = 0;
			thread(&r, t->name, &i);
			char share[32];
			if (isnan(m[i].share))
				snprintf(share, sizeof(share), "-");
			else
				snprintf(share, sizeof(share), "%f", m[i].share);
			int64_t got[6] = {m[i].jobs, m[i].resp_min, m[i].resp_mean, m[i].resp_median, m[i].resp_max, m[i].lat_max};
			int64_t exp[6] = {t->jobs, t->min, t->mean, t->median, t->max, t->lat};
			if (m[i].jobs == 0)
				for (int c = 1; c < 6; c++)
					got[c] = -1;
			for (int c = 0; c < 6; c++)
				if (got[c] != exp[c])
					fail_msg("%s %s thread %s: column %d is %lld, schedsim has %lld", x->file, x->policy, t->name, c,
					         (long long)got[c], (long long)exp[c]);
			if (strcmp(share, t->share))
				fail_msg("%s %s thread %s: share %s, schedsim has %s", x->file, x->policy, t->name, share, t->share);
			/* the result record agrees with the summary */
			assert_int_equal(r.threads[i].samples, m[i].jobs);
			if (m[i].jobs) {
				assert_int_equal(r.threads[i].resp.min, m[i].resp_min * 1000);
				assert_int_equal(r.threads[i].resp.max, m[i].resp_max * 1000);
			}
		}
		assert_int_equal(n, r.nthreads);
		free(m);
		result_free(&r);
		workload_free(&w);
	}
}

/* --end duration: schedsim's model goes on with re-released jobs until the first decision past
 * the duration; irt's engine runs exactly the duration. The default for a TSV is the idle rule,
 * for irt's policies too: gaps.tsv is idle for good once R's 40 ms from 310 ms are done. */
static void test_end_rules(void **state)
{
	(void)state;
	struct workload w;
	struct result r;
	struct err e = {0};

	load(&w, "gaps.tsv", "schedsim-rr", "duration");
	assert_int_equal(sim_run_cell(&w, 0, &r, NULL, NULL, &e), 0);
	assert_true(r.duration_ns > 10000000000LL && r.duration_ns <= 10010000000LL);
	/* S's row comes after P's 300 ms row: it is read at 310 ms, its first job (released at 0)
	 * ends at 355 ms, the releases at 100..300 ms are skipped, then every 100 ms to 9.9 s */
	assert_int_equal(thread(&r, "S", NULL)->samples, 1 + 96);
	result_free(&r);
	workload_free(&w);

	load(&w, "gaps.tsv", "rr", NULL);
	assert_int_equal(sim_run_cell(&w, 0, &r, NULL, NULL, &e), 0);
	int64_t idle_end = r.duration_ns;
	assert_true(idle_end >= 350000000LL && idle_end < 1000000000LL);
	uint64_t s_jobs = thread(&r, "S", NULL)->samples;
	result_free(&r);
	workload_free(&w);

	load(&w, "gaps.tsv", "rr", "duration");
	assert_int_equal(sim_run_cell(&w, 0, &r, NULL, NULL, &e), 0);
	assert_int_equal(r.duration_ns, 10000000000LL);
	assert_true(thread(&r, "S", NULL)->samples > s_jobs);
	result_free(&r);
	workload_free(&w);
}

/* schedsim's bvt knows priorities 0..3 only (it would raise IndexError) */
static void test_bvt_priorities(void **state)
{
	(void)state;
	char path[] = "/tmp/irt-ss-test-XXXXXX.tsv";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("thread\tstart\truntime\tweight\tpriority\nA\t0s\t1ms\t1\t4\n", f);
	fclose(f);
	struct workload w;
	struct result r;
	struct err e = {0};
	assert_int_equal(workload_load(path, &w, &e), 0);
	assert_int_equal(workload_override(&w, sim_opt_find(SCOPE_SIM, "policy"), "schedsim-bvt", "--policy", &e), 0);
	assert_int_equal(workload_check(&w, &e), 0);
	assert_int_not_equal(sim_run_cell(&w, 0, &r, NULL, NULL, &e), 0);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "thread A: priority 4, but schedsim's bvt knows priorities 0..3"));
	result_free(&r);
	workload_free(&w);
	unlink(path);
}

/* Stride's virtual-time step by a multiply (ss_ceil_div_inv) gives ss_ceil_div's quotient:
 * exhaustively for small operands, at the edges of its fast path (a + b - 1 and b near 2^32)
 * and for random pairs over the whole range, negative executed times included. */
static void test_ceil_div_by_multiply(void **state)
{
	(void)state;
	for (int64_t b = 1; b <= 300; b++)
		for (int64_t a = -1000; a <= 5000; a++)
			assert_int_equal(ss_ceil_div_inv(a, b, ss_div_inv(b)), ss_ceil_div(a, b));
	const int64_t top = (int64_t)1 << 32;
	const int64_t bs[] = {2, 3, 7, 10, 641, 1000003, top - 1, top, top + 1, (int64_t)1 << 40};
	for (size_t i = 0; i < sizeof(bs) / sizeof(bs[0]); i++) {
		int64_t b = bs[i];
		for (int64_t d = -3; d <= 3; d++) {
			const int64_t as[] = {top - b + d, top + d, 2 * top + d, -b + d, INT64_C(1) << 50};
			for (size_t k = 0; k < sizeof(as) / sizeof(as[0]); k++)
				assert_int_equal(ss_ceil_div_inv(as[k], b, ss_div_inv(b)), ss_ceil_div(as[k], b));
		}
	}
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 2000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;   /* xorshift64 */
		int64_t b = (int64_t)((x >> 20) % (uint64_t)(2 * top)) + 1;
		int64_t a = (int64_t)(x % (uint64_t)(4 * top)) - top / 2;
		assert_int_equal(ss_ceil_div_inv(a, b, ss_div_inv(b)), ss_ceil_div(a, b));
	}
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* n values of one of several shapes: uniform over [lo, lo + span], a few distinct values,
 * runs of equal values, clustered around a point, multiples of 100 */
static void fill_values(int64_t *v, int64_t n, int shape, int64_t lo, int64_t span, uint64_t *x)
{
	for (int64_t i = 0; i < n; i++) {
		uint64_t u = xorshift(x);
		switch (shape) {
		case 0: v[i] = lo + (int64_t)(u % (uint64_t)(span + 1)); break;
		case 1: v[i] = lo + (int64_t)(u % 5) * (span / 4); break;
		case 2: v[i] = i && u % 4 ? v[i - 1] : lo + (int64_t)(u % (uint64_t)(span + 1)); break;
		case 3: v[i] = lo + span / 2 + (int64_t)(u % 33) - 16; break;
		default: v[i] = lo + (int64_t)(u % (uint64_t)(span / 100 + 1)) * 100; break;
		}
	}
}

/* ss_median (select_kth's bucket counts) against a sort, over sizes, shapes and ranges, each
 * with an odd and an even count */
static void test_median_against_sort(void **state)
{
	(void)state;
	uint64_t x = 0x2545f4914f6cdd1du;
	static const int64_t ns[] = {1, 2, 3, 4, 5, 16, 17, 100, 257, 1000, 1029, 4096, 12001};
	static const int64_t spans[] = {0, 1, 7, 100, 1023, 65536, 1000003, INT64_C(1) << 40};
	int64_t *v = malloc(sizeof(*v) * 12001), *w = malloc(sizeof(*w) * 12001);
	assert_non_null(v);
	assert_non_null(w);
	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (size_t b = 0; b < sizeof(spans) / sizeof(spans[0]); b++)
			for (int shape = 0; shape < 5; shape++) {
				int64_t n = ns[a], lo = (int64_t)(xorshift(&x) % 1000) - 500;
				fill_values(v, n, shape, lo, spans[b], &x);
				int64_t mn = INT64_MAX, mx = INT64_MIN;
				for (int64_t i = 0; i < n; i++) {
					mn = v[i] < mn ? v[i] : mn;
					mx = v[i] > mx ? v[i] : mx;
				}
				memcpy(w, v, sizeof(*v) * (size_t)n);
				qsort(w, (size_t)n, sizeof(*w), cmp_i64);
				int64_t want = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
				assert_int_equal(ss_median(v, n, mn, mx), want);
			}
	free(v);
	free(w);
}

/* ss_record_responses against hist_record of each response (times 1000) in turn: the same
 * counts and summary, the sum of squares to the bit, and the responses' least, greatest and
 * sum; through its exact integer sum of squares, its serial fallback (too large a total, a
 * sum that would wrap), the one-by-one path (values from 2^40 ns on, to clamp, zero, negative,
 * a histogram not empty) and odd and tiny counts. */
static void test_record_responses(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15u;
	static const int64_t ns[] = {0, 1, 2, 3, 4, 7, 600, 1029, 9001};
	static const int64_t spans[] = {0, 1, 50, 1000, 70000, 2000000, INT64_C(3000000000), INT64_C(5) << 32,
	                                HIST_MAX_VALUE / 1000 + 5};
	int64_t *v = malloc(sizeof(*v) * 9001);
	struct hist *got = malloc(sizeof(*got)), *want = malloc(sizeof(*want));
	assert_non_null(v);
	assert_non_null(got);
	assert_non_null(want);
	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
		for (size_t b = 0; b < sizeof(spans) / sizeof(spans[0]); b++)
			for (int shape = 0; shape < 5; shape++)
				for (int variant = 0; variant < 4; variant++) {
					int64_t n = ns[a];
					fill_values(v, n, shape, variant == 1 ? -3 : variant == 3 ? 0 : 1, spans[b], &x);
					if (spans[b] == 0 && shape == 0 && variant == 0)   /* squares' sum wraps */
						for (int64_t i = 0; i < n; i++)
							v[i] = INT64_C(1) << 29;
					hist_init(got);
					hist_init(want);
					if (variant == 2) {   /* not empty: one by one */
						hist_record(got, 12345);
						hist_record(want, 12345);
					}
					struct ss_resp_span r = ss_record_responses(got, v, (size_t)n);
					int64_t mn = INT64_MAX, mx = INT64_MIN, sum = 0;
					for (int64_t i = 0; i < n; i++) {
						mn = v[i] < mn ? v[i] : mn;
						mx = v[i] > mx ? v[i] : mx;
						sum += v[i];
						hist_record(want, v[i] * 1000);
					}
					assert_int_equal(r.min, mn);
					assert_int_equal(r.max, mx);
					assert_int_equal(r.sum, sum);
					assert_memory_equal(got->counts, want->counts, sizeof(got->counts));
					assert_int_equal(got->count, want->count);
					assert_int_equal(got->min, want->min);
					assert_int_equal(got->max, want->max);
					assert_int_equal(got->sum, want->sum);
					assert_int_equal(got->saturated, want->saturated);
					assert_memory_equal(&got->sumsq, &want->sumsq, sizeof(double));
				}
	free(v);
	free(got);
	free(want);
}

static int rnd(uint64_t *x, int n)
{
	return (int)(xorshift(x) % (uint64_t)n);
}

/* base-hw keeps its choice (the first job of the highest level) as jobs join and leave; the
 * asan build checks it against the one found from the level bits at every decision (hw_choose).
 * Random periodic, restarting and signalled rows at priorities 0..99 with quotas, over ten
 * super periods, both end rules. */
static void test_basehw_choice(void **state)
{
	(void)state;
	uint64_t x = 0x2545f4914f6cdd1du;
	for (int k = 0; k < 8; k++) {
		char path[] = "/tmp/irt-ss-basehw-XXXXXX.tsv";
		int fd = mkstemps(path, 4);
		assert_true(fd >= 0);
		FILE *f = fdopen(fd, "w");
		fputs("thread\tstart\truntime\tweight\tpriority\trestart\tevent\n", f);
		for (int i = 0; i < 40; i++) {
			int kind = rnd(&x, 10), w = 1 + rnd(&x, 30), p = rnd(&x, 100), rt = 50 + rnd(&x, 4000);
			int at = rnd(&x, 500), gap = 1 + rnd(&x, 100);
			if (kind < 6)
				fprintf(f, "T%d\tevery %dms\t%dus\t%d\t%d\t\t%s\n", i, rt / 1000 + gap, rt, w, p, i % 5 ? "" : "e");
			else if (kind < 7 && i > 5)
				fprintf(f, "T%d\te\t%dus\t%d\t%d\n", i, rt, w, p);
			else if (kind < 9)
				fprintf(f, "T%d\t%dms\t%dus\t%d\t%d\t%dms\n", i, at / 10, rt, w, p, gap / 3 + 1);
			else
				fprintf(f, "T%d\t%dms\t%ds\t%d\t%d\n", i, at, 1 + gap % 5, w, p);
		}
		fclose(f);
		for (int d = 0; d < 2; d++) {
			struct workload w;
			struct result r;
			struct err e = {0};
			assert_int_equal(workload_load(path, &w, &e), 0);
			assert_int_equal(workload_override(&w, sim_opt_find(SCOPE_SIM, "policy"), "schedsim-base-hw", "--policy", &e), 0);
			if (d)
				assert_int_equal(workload_override(&w, sim_opt_find(SCOPE_SIM, "end"), "duration", "--end", &e), 0);
			assert_int_equal(workload_check(&w, &e), 0);
			if (sim_run_cell(&w, 0, &r, NULL, NULL, &e))
				fail_msg("%s: %s", path, e.msg);
			result_free(&r);
			workload_free(&w);
		}
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedsim_numbers),
		cmocka_unit_test(test_end_rules),
		cmocka_unit_test(test_bvt_priorities),
		cmocka_unit_test(test_ceil_div_by_multiply),
		cmocka_unit_test(test_median_against_sort),
		cmocka_unit_test(test_record_responses),
		cmocka_unit_test(test_basehw_choice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

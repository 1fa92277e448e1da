/* hist.c against simple references: a sorted array for percentiles, direct sums for the
 * summary statistics, a plain scan of counts[] for iteration. */
#include "testutil.h"

#include <string.h>

#include "hist.h"

_Static_assert(sizeof(struct hist) <= 256 * 1024, "struct hist must fit in 256 KiB");

static struct hist *new_hist(void)
{
	struct hist *h = xcalloc(1, sizeof(*h));
	hist_init(h);
	return h;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The sample hist.h promises for percentile pp/10000 %: rank ceil(pp * n / 1e6), at least
 * 1, computed exactly in integers. */
static int64_t ref_percentile(const int64_t *sorted, size_t n, int64_t pp)
{
	unsigned __int128 num = (unsigned __int128)pp * n;
	uint64_t rank = (uint64_t)((num + 999999) / 1000000);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* Every percentile in the list plus random ones (4 decimals): within 0.1 % of the exact
 * sample of that rank and in the same bucket as it (so a rank off by one shows). */
static void check_percentiles(const struct hist *h, int64_t *v, size_t n, uint64_t *seed)
{
	static const int64_t fixed[] = {0, 1, 1000, 10000, 100000, 250000, 500000, 750000, 900000,
	                                990000, 999000, 999900, 999990, 999999, 1000000};
	qsort(v, n, sizeof(*v), cmp_i64);
	int64_t prev = -1;
	for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]) + 200; k++) {
		int64_t pp = k < sizeof(fixed) / sizeof(fixed[0]) ? fixed[k] : rnd_range(seed, 0, 1000000);
		int64_t got = hist_percentile(h, (double)pp / 10000.0);
		int64_t want = ref_percentile(v, n, pp);
		if (hist_index(got) != hist_index(want) || 1000 * llabs(got - want) > want) {
			print_error("n=%zu p=%.4f: hist %lld, exact %lld\n", n, (double)pp / 1e4, (long long)got,
			            (long long)want);
			fail();
		}
		assert_true(got >= v[0] && got <= v[n - 1]);
		if (k < sizeof(fixed) / sizeof(fixed[0])) {   /* the fixed list is ascending */
			assert_true(got >= prev);
			prev = got;
		}
	}
	assert_int_equal(hist_percentile(h, 0), v[0]);
	assert_int_equal(hist_percentile(h, 100), v[n - 1]);
	assert_int_equal(hist_percentile(h, -5), v[0]);
	assert_int_equal(hist_percentile(h, 250), v[n - 1]);
}

/* count, min, max, sum, mean, stddev against direct computation */
static void check_summary(const struct hist *h, const int64_t *v, size_t n)
{
	long double sum = 0, mean, m2 = 0;
	int64_t min = INT64_MAX, max = 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
	}
	mean = sum / n;
	for (size_t i = 0; i < n; i++)
		m2 += (v[i] - mean) * (v[i] - mean);
	double sd = n > 1 ? (double)sqrtl(m2 / (n - 1)) : 0.0;
	assert_int_equal(h->count, n);
	assert_int_equal(h->min, min);
	assert_int_equal(h->max, max);
	assert_true((long double)h->sum == sum);
	assert_true(fabs(hist_mean(h) - (double)mean) <= 1e-12 * (double)mean);
	/* sumsq is a double summed n times, so the variance may be off by up to n * eps * sumsq
	 * / (n - 1): large when all samples are nearly equal and large (all at 1 h: ~0.4 ms) */
	double var = hist_stddev(h) * hist_stddev(h), ref = sd * sd;
	double tol = 1e-9 * ref + (n > 1 ? 2.0 * (double)n * 0x1p-52 * h->sumsq / (double)(n - 1) : 0);
	if (fabs(var - ref) > tol) {
		print_error("n=%zu stddev hist %.6f direct %.6f\n", n, hist_stddev(h), sd);
		fail();
	}
}

/* iteration visits exactly the non-empty buckets, in order, with their counts */
static void check_iteration(const struct hist *h)
{
	size_t it = 0, seen = 0;
	unsigned expect = 0;
	uint64_t total = 0;
	struct hist_bucket b;
	while (hist_next(h, &it, &b)) {
		while (expect < HIST_LEN && h->counts[expect] == 0)
			expect++;
		assert_true(expect < HIST_LEN);
		assert_int_equal(b.lo, hist_bucket_lo(expect));
		assert_int_equal(b.hi, hist_bucket_hi(expect));
		assert_int_equal(b.count, h->counts[expect]);
		expect++;
		seen++;
		total += b.count;
	}
	while (expect < HIST_LEN)
		assert_int_equal(h->counts[expect++], 0);
	assert_int_equal(seen, hist_nonempty(h));
	assert_int_equal(total, h->count);
	assert_false(hist_next(h, &it, &b));   /* stays finished */
}

static void check_encode_roundtrip(const struct hist *h)
{
	size_t n = hist_nonempty(h);
	struct hist_pair *pairs = xcalloc(n, sizeof(*pairs));
	assert_int_equal(hist_encode(h, pairs, n), n);
	struct hist *d = new_hist();
	assert_int_equal(hist_decode(d, pairs, n, h->count, h->min, h->max, h->sum, h->sumsq, h->saturated), 0);
	assert_memory_equal(d, h, sizeof(*h));
	free(pairs);
	free(d);
}

static void check_all(int64_t *v, size_t n, uint64_t *seed)
{
	struct hist *h = new_hist();
	for (size_t i = 0; i < n; i++)
		hist_record(h, v[i]);
	check_summary(h, v, n);
	check_iteration(h);
	check_encode_roundtrip(h);
	check_percentiles(h, v, n, seed);
	free(h);
}

enum dist { UNIFORM, UNIFORM_WIDE, LOGNORMAL, BIMODAL, HEAVY_TAIL, NDIST };

static int64_t draw(enum dist d, uint64_t *s)
{
	double x = 0;
	switch (d) {
	case UNIFORM: return rnd_range(s, 0, 1000000);
	case UNIFORM_WIDE: return rnd_range(s, 0, HIST_MAX_VALUE);
	case LOGNORMAL: x = exp(log(20000.0) + 1.2 * rnd_normal(s)); break;
	case BIMODAL:   /* a fast path around 20 us and a slow one around 5 ms */
		x = rnd_unit(s) < 0.8 ? 20000 + 3000 * rnd_normal(s) : 5e6 + 1e6 * rnd_normal(s);
		break;
	case HEAVY_TAIL: x = 10000.0 / pow(1.0 - rnd_unit(s), 1.5); break;
	case NDIST: break;
	}
	if (x < 0)
		x = 0;
	if (x > (double)HIST_MAX_VALUE)
		x = (double)HIST_MAX_VALUE;
	return (int64_t)x;
}

static void test_random_distributions(void **state)
{
	static const size_t sizes[] = {1, 2, 3, 7, 100, 1000, 9999, 99999, 100000};
	uint64_t seed = 42;
	int64_t *v = xcalloc(100000, sizeof(*v));
	for (int d = 0; d < NDIST; d++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			for (size_t i = 0; i < sizes[k]; i++)
				v[i] = draw((enum dist)d, &seed);
			check_all(v, sizes[k], &seed);
		}
	free(v);
}

static void test_all_equal(void **state)
{
	uint64_t seed = 1;
	static const int64_t values[] = {0, 1, 1023, 1024, 12345, 3600 * INT64_C(1000000000), HIST_MAX_VALUE};
	int64_t *v = xcalloc(1000, sizeof(*v));
	for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
		for (int i = 0; i < 1000; i++)
			v[i] = values[k];
		check_all(v, 1000, &seed);
		/* clamping to [min, max] makes every percentile exact */
		struct hist *h = new_hist();
		hist_record_n(h, values[k], 1000);
		for (double p = 0; p <= 100; p += 0.5)
			assert_int_equal(hist_percentile(h, p), values[k]);
		assert_true(hist_stddev(h) <= sqrt(2000.0 * 0x1p-52) * (double)values[k]);
		free(h);
	}
	free(v);
}

static void test_single_outlier(void **state)
{
	uint64_t seed = 7;
	int64_t *v = xcalloc(10000, sizeof(*v));
	for (int i = 0; i < 9999; i++)
		v[i] = rnd_range(&seed, 15000, 25000);
	v[9999] = 3600 * INT64_C(1000000000);   /* one wake-up an hour late */
	check_all(v, 10000, &seed);
	struct hist *h = new_hist();
	for (int i = 0; i < 10000; i++)
		hist_record(h, v[i]);
	assert_int_equal(hist_percentile(h, 100), 3600 * INT64_C(1000000000));
	assert_true(hist_percentile(h, 99.99) <= 25025);   /* rank 9999 is still a normal sample (+0.1 %) */
	free(h);
	free(v);
}

static void test_rank_is_exact_ceiling(void **state)
{
	/* 99999 samples: 99994 of 1, then 5 of 1000. p = 99.995 % is rank ceil(99994.00005) =
	 * 99995, which is 1000; a rank computed with a loose float tolerance says 1. */
	struct hist *h = new_hist();
	hist_record_n(h, 1, 99994);
	hist_record_n(h, 1000, 5);
	assert_int_equal(hist_percentile(h, 99.995), 1000);
	assert_int_equal(hist_percentile(h, 99.994), 1);
	hist_init(h);
	/* 1000 samples 1..1000: p99.9 is rank 999 exactly although 99.9/100*1000 > 999 in binary */
	for (int i = 1; i <= 1000; i++)
		hist_record(h, i);
	assert_int_equal(hist_percentile(h, 99.9), 999);
	assert_int_equal(hist_percentile(h, 50), 500);
	assert_int_equal(hist_percentile(h, 0.1), 1);
	assert_int_equal(hist_percentile(h, 0.15), 2);
	free(h);
}

static void test_zero_and_max(void **state)
{
	uint64_t seed = 3;
	int64_t v[4] = {0, HIST_MAX_VALUE, 0, HIST_MAX_VALUE};
	check_all(v, 4, &seed);
	struct hist *h = new_hist();
	hist_record(h, 0);
	hist_record(h, HIST_MAX_VALUE);
	assert_int_equal(h->saturated, 0);
	assert_int_equal(h->min, 0);
	assert_int_equal(h->max, HIST_MAX_VALUE);
	assert_int_equal(h->counts[0], 1);
	assert_int_equal(h->counts[HIST_LEN - 1], 1);
	assert_int_equal(hist_percentile(h, 50), 0);
	int64_t top = hist_percentile(h, 51);   /* the midpoint of the last bucket */
	assert_int_equal(hist_index(top), HIST_LEN - 1);
	assert_true(1000 * (HIST_MAX_VALUE - top) <= HIST_MAX_VALUE);
	assert_int_equal(hist_percentile(h, 100), HIST_MAX_VALUE);
	free(h);
}

static void test_saturation_and_negative(void **state)
{
	struct hist *h = new_hist();
	hist_record(h, HIST_MAX_VALUE + 1);
	hist_record(h, INT64_MAX);
	hist_record(h, -5);
	hist_record(h, INT64_MIN);
	hist_record_n(h, INT64_MAX, 3);
	assert_int_equal(h->count, 7);
	assert_int_equal(h->saturated, 5);
	assert_int_equal(h->max, HIST_MAX_VALUE);
	assert_int_equal(h->min, 0);
	assert_int_equal(h->counts[HIST_LEN - 1], 5);
	assert_int_equal(h->counts[0], 2);
	assert_int_equal(h->sum, 5 * HIST_MAX_VALUE);
	assert_int_equal(hist_percentile(h, 100), HIST_MAX_VALUE);
	assert_int_equal(hist_percentile(h, 10), 0);
	check_encode_roundtrip(h);
	/* the maximum itself is not saturated */
	hist_init(h);
	hist_record(h, HIST_MAX_VALUE);
	assert_int_equal(h->saturated, 0);
	free(h);
}

static void test_bucket_edges(void **state)
{
	/* buckets tile [0, HIST_MAX_VALUE] without gaps, each at most 1/512 of its lower edge wide */
	int64_t prev_hi = -1;
	for (unsigned i = 0; i < HIST_LEN; i++) {
		int64_t lo = hist_bucket_lo(i), hi = hist_bucket_hi(i);
		assert_int_equal(lo, prev_hi + 1);
		assert_true(hi >= lo);
		assert_true(hi - lo + 1 == 1 || (hi - lo + 1) * 512 <= lo);
		assert_int_equal(hist_index(lo), i);
		assert_int_equal(hist_index(hi), i);
		int64_t mid = lo + (hi - lo) / 2;   /* what percentiles report: within 0.1 % of the bucket */
		/* the recorder's index from the value's double (hist_record_into) agrees at both edges
		 * and inside */
		assert_int_equal(hist_index_d(lo, (double)lo), i);
		assert_int_equal(hist_index_d(hi, (double)hi), i);
		assert_int_equal(hist_index_d(mid, (double)mid), i);
		assert_true(hi == lo || (1000 * (hi - mid) <= lo && mid - lo <= hi - mid));
		prev_hi = hi;
	}
	assert_int_equal(prev_hi, HIST_MAX_VALUE);
	assert_true(HIST_MAX_VALUE >= 3600 * INT64_C(1000000000));   /* at least one hour */

	/* record both edges of every bucket: references, iteration, encoding all agree */
	uint64_t seed = 11;
	int64_t *v = xcalloc(2 * HIST_LEN, sizeof(*v));
	for (unsigned i = 0; i < HIST_LEN; i++) {
		v[2 * i] = hist_bucket_lo(i);
		v[2 * i + 1] = hist_bucket_hi(i);
	}
	struct hist *h = new_hist();
	for (unsigned i = 0; i < 2 * HIST_LEN; i++)
		hist_record(h, v[i]);
	for (unsigned i = 0; i < HIST_LEN; i++)
		assert_int_equal(h->counts[i], 2);
	assert_int_equal(hist_nonempty(h), HIST_LEN);
	free(h);
	check_all(v, 2 * HIST_LEN, &seed);
	free(v);
}

static void test_merge_equals_record_all(void **state)
{
	uint64_t seed = 5;
	struct hist *all = new_hist(), *parts[3] = {new_hist(), new_hist(), new_hist()};
	struct hist *merged = new_hist();
	for (int i = 0; i < 30000; i++) {
		int64_t x = draw((enum dist)(i % NDIST), &seed);
		if (i % 1000 == 0)
			x = HIST_MAX_VALUE + 1 + i;   /* some saturate */
		hist_record(all, x);
		hist_record(parts[rnd_next(&seed) % 3], x);
	}
	hist_merge(merged, parts[0]);
	hist_merge(merged, parts[1]);
	struct hist *empty = new_hist();
	hist_merge(merged, empty);
	hist_merge(merged, parts[2]);
	assert_memory_equal(merged->counts, all->counts, sizeof(all->counts));
	assert_int_equal(merged->count, all->count);
	assert_int_equal(merged->min, all->min);
	assert_int_equal(merged->max, all->max);
	assert_int_equal(merged->sum, all->sum);
	assert_int_equal(merged->saturated, all->saturated);
	assert_int_equal(merged->saturated, 30);
	assert_true(fabs(merged->sumsq - all->sumsq) <= 1e-12 * all->sumsq);   /* order of additions */
	for (double p = 0; p <= 100; p += 0.25)
		assert_int_equal(hist_percentile(merged, p), hist_percentile(all, p));
	/* merging into an empty histogram copies it */
	hist_init(merged);
	hist_merge(merged, all);
	assert_memory_equal(merged, all, sizeof(*all));
	free(all);
	free(merged);
	free(empty);
	for (int i = 0; i < 3; i++)
		free(parts[i]);
}

static void test_record_n_equals_repeated(void **state)
{
	struct hist *a = new_hist(), *b = new_hist();
	static const int64_t vals[] = {0, 5, 1023, 1024, 99999, 123456789, HIST_MAX_VALUE, HIST_MAX_VALUE + 9, -3};
	for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
		hist_record_n(a, vals[k], 17);
		for (int i = 0; i < 17; i++)
			hist_record(b, vals[k]);
	}
	hist_record_n(a, 77, 0);   /* records nothing, not even min */
	assert_memory_equal(a->counts, b->counts, sizeof(a->counts));
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->sum, b->sum);
	assert_int_equal(a->saturated, b->saturated);
	assert_true(fabs(a->sumsq - b->sumsq) <= 1e-12 * b->sumsq);
	free(a);
	free(b);
}

static void test_empty(void **state)
{
	struct hist *h = new_hist();
	assert_int_equal(hist_percentile(h, 50), 0);
	assert_int_equal(hist_percentile(h, 0), 0);
	assert_true(hist_mean(h) == 0.0);
	assert_true(hist_stddev(h) == 0.0);
	assert_int_equal(hist_nonempty(h), 0);
	size_t it = 0;
	struct hist_bucket b;
	assert_false(hist_next(h, &it, &b));
	struct hist *d = new_hist();
	assert_int_equal(hist_decode(d, NULL, 0, 0, 0, 0, 0, 0, 0), 0);
	assert_memory_equal(d, h, sizeof(*h));
	hist_record(h, 5);
	assert_true(hist_stddev(h) == 0.0);   /* one sample: no spread */
	free(h);
	free(d);
}

static void test_encode_truncated_output(void **state)
{
	struct hist *h = new_hist();
	for (int i = 0; i < 10; i++)
		hist_record(h, i * 100000);
	struct hist_pair pairs[4];
	assert_int_equal(hist_encode(h, pairs, 4), 10);   /* returns the full count */
	assert_int_equal(pairs[0].value, 0);
	assert_int_equal(pairs[3].value, hist_bucket_lo(hist_index(300000)));
	free(h);
}

/* Valid encoding of {1000 x 3, 5000 x 2}; each case breaks one thing. */
static void test_decode_rejects(void **state)
{
	struct hist *h = new_hist(), *d = new_hist();
	hist_record_n(h, 1000, 3);
	hist_record_n(h, 5000, 2);
	struct hist_pair ok[2], p[3];
	assert_int_equal(hist_encode(h, ok, 2), 2);
	const int64_t sum = h->sum;
	const double sq = h->sumsq;
#define DEC(pairs, n, count, min, max, s, sat) hist_decode(d, pairs, n, count, min, max, s, sq, sat)
	assert_int_equal(DEC(ok, 2, 5, 1000, 5000, sum, 0), 0);
	assert_int_equal(DEC(ok, 2, 6, 1000, 5000, sum, 0), -1);      /* counts do not sum to count */
	assert_int_equal(DEC(ok, 2, 4, 1000, 5000, sum, 0), -1);
	assert_int_equal(DEC(ok, 2, 5, 999, 5000, sum, 0), -1);       /* min below the first bucket */
	assert_int_equal(DEC(ok, 2, 5, 1001, 5000, sum, 0), -1);      /* min in no bucket we have (1001 is its own) */
	assert_int_equal(DEC(ok, 2, 5, 1000, 6000, sum, 0), -1);      /* max above the last bucket */
	assert_int_equal(DEC(ok, 2, 5, 5000, 1000, sum, 0), -1);      /* max < min */
	assert_int_equal(DEC(ok, 2, 5, -1, 5000, sum, 0), -1);
	assert_int_equal(DEC(ok, 2, 5, 1000, 5000, sum, 6), -1);      /* saturated > count */
	assert_int_equal(DEC(ok, 2, 5, 1000, 5000, sum, 1), -1);      /* saturated but max < HIST_MAX_VALUE */
	assert_int_equal(DEC(ok, 2, 5, 1000, 5000, 5 * 5000 + 1, 0), -1);   /* sum above count * max */
	assert_int_equal(DEC(ok, 2, 5, 1000, 5000, 5 * 1000 - 1, 0), -1);   /* sum below count * min */
	assert_int_equal(DEC(ok, 0, 0, 0, 0, 1, 0), -1);              /* empty with a sum */
	assert_int_equal(DEC(ok, 1, 0, 0, 0, 0, 0), -1);              /* empty with buckets */
	p[0] = ok[1], p[1] = ok[0];
	assert_int_equal(DEC(p, 2, 5, 1000, 5000, sum, 0), -1);       /* unsorted */
	p[0] = ok[0], p[1] = ok[0], p[2] = ok[1];
	p[1].count = 0;
	assert_int_equal(DEC(p, 3, 5, 1000, 5000, sum, 0), -1);       /* duplicate (with zero count) */
	p[1] = ok[1];
	p[1].count = 0;
	p[0].count = 5;
	assert_int_equal(DEC(p, 2, 5, 1000, 1000, 5000, 0), -1);      /* zero count */
	p[0] = ok[0], p[1] = ok[1];
	p[1].value = 5001;   /* inside the bucket of 5000 but not its lower edge (width 4 there) */
	assert_int_equal(DEC(p, 2, 5, 1000, 5000, sum, 0), -1);
	p[1].value = -4;
	assert_int_equal(DEC(p, 2, 5, 1000, 5000, sum, 0), -1);
	p[1].value = HIST_MAX_VALUE + 1;
	assert_int_equal(DEC(p, 2, 5, 1000, 5000, sum, 0), -1);
	p[0].count = UINT64_MAX, p[1] = ok[1];   /* counts overflow to the right total */
	assert_int_equal(DEC(p, 2, 1, 1000, 5000, sum, 0), -1);
#undef DEC
	free(h);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_distributions),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_single_outlier),
		cmocka_unit_test(test_rank_is_exact_ceiling),
		cmocka_unit_test(test_zero_and_max),
		cmocka_unit_test(test_saturation_and_negative),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_merge_equals_record_all),
		cmocka_unit_test(test_record_n_equals_repeated),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_encode_truncated_output),
		cmocka_unit_test(test_decode_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

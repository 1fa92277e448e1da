/* Statistics: see stats.h and docs/statistics.md (which explains every threshold). Here the
 * general tools: random numbers, summaries, the bootstrap, rank tests, histogram replicates;
 * the rules that turn them into verdicts are in stats_verdict.c. */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_priv.h"

/* ---- random numbers ---- */

void rng_seed(struct rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t rng_u64(struct rng *r)
{
	uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

double rng_double(struct rng *r)
{
	return (double)(rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	uint64_t threshold = (0 - n) % n;   /* 2^64 mod n: reject the short last stretch */
	for (;;) {
		uint64_t x = rng_u64(r);
		if (x >= threshold)
			return x % n;
	}
}

double rng_normal(struct rng *r)
{
	double u1 = 1.0 - rng_double(r);    /* (0, 1] so the log is finite */
	double u2 = rng_double(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Marsaglia & Tsang (2000); shape < 1 via Gamma(shape + 1) * U^(1/shape). */
double rng_gamma(struct rng *r, double shape)
{
	if (shape < 1.0) {
		double u = 1.0 - rng_double(r);
		return rng_gamma(r, shape + 1.0) * pow(u, 1.0 / shape);
	}
	double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		double x = rng_normal(r), v = 1.0 + c * x;
		if (v <= 0.0)
			continue;
		v = v * v * v;
		double u = 1.0 - rng_double(r);
		if (u < 1.0 - 0.0331 * x * x * x * x)
			return d * v;
		if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v;
	}
}

double rng_beta(struct rng *r, double a, double b)
{
	double x = rng_gamma(r, a), y = rng_gamma(r, b);
	return x / (x + y);
}

/* Exact, O(log n): the i-th smallest of n uniforms is Beta(i, n + 1 - i); whether it lies
 * below p tells how many of the others can (Knuth, TAOCP 3.4.1). */
uint64_t rng_binomial(struct rng *r, uint64_t n, double p)
{
	uint64_t k = 0;
	if (!(p > 0.0))
		return 0;
	if (p >= 1.0)
		return n;
	while (n > 64) {
		uint64_t i = 1 + n / 2;
		double x = rng_beta(r, (double)i, (double)(n + 1 - i));
		if (x <= p) {
			k += i;
			n -= i;
			p = (p - x) / (1.0 - x);
		} else {
			n = i - 1;
			p = p / x;
		}
	}
	for (uint64_t j = 0; j < n; j++)
		k += rng_double(r) < p;
	return k;
}

/* ---- plain summaries ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_quantile_sorted(const double *s, int n, double q)
{
	if (n <= 0)
		return NAN;
	if (q <= 0.0)
		return s[0];
	if (q >= 1.0)
		return s[n - 1];
	double h = (n - 1) * q;
	int lo = (int)floor(h);
	double frac = h - lo;
	if (frac == 0.0 || lo + 1 >= n || s[lo] == s[lo + 1])
		return s[lo];
	return s[lo] + frac * (s[lo + 1] - s[lo]);
}

/* Puts the k-th smallest of v at v[k], smaller ones before it (Hoare's selection). */
static void select_kth(double *v, int n, int k)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

double stats_fn_median(double *v, int n, void *ctx)
{
	(void)ctx;
	if (n <= 0)
		return NAN;
	int k = (n - 1) / 2;
	select_kth(v, n, k);
	if (n % 2)
		return v[k];
	double up = v[k + 1];
	for (int i = k + 2; i < n; i++)
		if (v[i] < up)
			up = v[i];
	return v[k] + (up - v[k]) / 2.0;
}

double stats_median(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double *c = malloc(sizeof(*c) * (size_t)n);
	if (!c)
		return NAN;
	memcpy(c, v, sizeof(*c) * (size_t)n);
	double m = stats_fn_median(c, n, NULL);
	free(c);
	return m;
}

double stats_mean(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s / n;
}

double stats_stddev(const double *v, int n)
{
	if (n < 2)
		return n == 1 ? 0.0 : NAN;
	double m = stats_mean(v, n), s = 0;
	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (n - 1));
}

double stats_cv(const double *v, int n)
{
	double m = stats_mean(v, n), sd = stats_stddev(v, n);
	if (isnan(m) || isnan(sd))
		return NAN;
	if (sd == 0.0)
		return 0.0;
	return m == 0.0 ? INFINITY : sd / fabs(m);
}

/* ---- bootstrap ---- */

double stats_ratio(double num, double den)
{
	if (den == 0.0)
		return num == 0.0 ? 1.0 : INFINITY;
	return num / den;
}

double stats_resample(const double *v, int n, double *buf, stats_fn fn, void *ctx, struct rng *r)
{
	for (int i = 0; i < n; i++)
		buf[i] = v[rng_below(r, (uint64_t)n)];
	return fn(buf, n, ctx);
}

void stats_interval(double *reps, int nrep, double level, struct ci *out)
{
	qsort(reps, (size_t)nrep, sizeof(*reps), cmp_double);
	out->lo = stats_quantile_sorted(reps, nrep, (1.0 - level) / 2.0);
	out->hi = stats_quantile_sorted(reps, nrep, (1.0 + level) / 2.0);
	/* the estimate is not always one of the replicates' values (a single run's percentile as
	 * recorded vs ranks redrawn from its histogram; several threads merged) */
	stats_ci_hold(out);
}

void stats_ci_hold(struct ci *out)
{
	/* an interval is printed around its estimate, so it is widened to hold it
	 * (docs/statistics.md): the bootstrap's replicates, or a t interval of the runs' mean log
	 * around their median, need not reach it */
	if (!isnan(out->est)) {
		out->lo = fmin(out->lo, out->est);
		out->hi = fmax(out->hi, out->est);
	}
}

int stats_bootstrap_ci(const double *v, int n, stats_fn fn, void *ctx, int resamples,
                       double level, struct rng *r, struct ci *out)
{
	out->est = out->lo = out->hi = NAN;
	if (n <= 0 || resamples < 1)
		return -1;
	double *buf = malloc(sizeof(*buf) * (size_t)n);
	double *reps = malloc(sizeof(*reps) * (size_t)resamples);
	if (!buf || !reps) {
		free(buf);
		free(reps);
		return -1;
	}
	memcpy(buf, v, sizeof(*buf) * (size_t)n);
	out->est = fn(buf, n, ctx);
	for (int b = 0; b < resamples; b++)
		reps[b] = stats_resample(v, n, buf, fn, ctx, r);
	stats_interval(reps, resamples, level, out);
	free(buf);
	free(reps);
	return 0;
}

int stats_ratio_ci(const double *a, int na, const double *b, int nb, stats_fn fn, void *ctx,
                   int resamples, double level, struct rng *r, struct ci *out)
{
	out->est = out->lo = out->hi = NAN;
	if (na <= 0 || nb <= 0 || resamples < 1)
		return -1;
	int nmax = na > nb ? na : nb;
	double *buf = malloc(sizeof(*buf) * (size_t)nmax);
	double *reps = malloc(sizeof(*reps) * (size_t)resamples);
	if (!buf || !reps) {
		free(buf);
		free(reps);
		return -1;
	}
	memcpy(buf, a, sizeof(*buf) * (size_t)na);
	double sa = fn(buf, na, ctx);
	memcpy(buf, b, sizeof(*buf) * (size_t)nb);
	out->est = stats_ratio(fn(buf, nb, ctx), sa);
	for (int i = 0; i < resamples; i++) {
		double ra = stats_resample(a, na, buf, fn, ctx, r);
		double rb = stats_resample(b, nb, buf, fn, ctx, r);
		reps[i] = stats_ratio(rb, ra);
	}
	stats_interval(reps, resamples, level, out);
	free(buf);
	free(reps);
	return 0;
}

/* ---- rank tests ---- */

static double normal_two_sided(double z)
{
	return erfc(fabs(z) / M_SQRT2);
}

struct tagged {
	double v;
	int tag;   /* Mann-Whitney: 1 when from x; Holm: the test's index */
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

void stats_holm(const double *p, int n, double alpha, double *level)
{
	struct tagged *t = malloc(sizeof(*t) * (size_t)(n + 1));   /* tag: the test's index */
	int m = 0;
	for (int i = 0; i < n; i++) {
		level[i] = t ? alpha : alpha / n;   /* no memory: Bonferroni, never laxer */
		if (t && !isnan(p[i]))
			t[m++] = (struct tagged){ p[i], i };
	}
	if (!t)
		return;
	qsort(t, (size_t)m, sizeof(*t), cmp_tagged);
	double failed = 0;
	for (int k = 0; k < m; k++) {
		double l = failed > 0 ? failed : alpha / (m - k);
		if (failed == 0 && !(t[k].v <= l))
			failed = l;
		level[t[k].tag] = l;
	}
	free(t);
}

double stats_mw_min_p(int nx, int ny)
{
	if (nx <= 0 || ny <= 0)
		return 1.0;
	double c = 1.0;   /* C(nx + ny, nx), built up as a product of exact-ish ratios */
	int k = nx < ny ? nx : ny, n = nx + ny;
	for (int i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	double p = 2.0 / c;
	return p > 1.0 ? 1.0 : p;
}

/* Exact two-sided p of the doubled rank sum w of x (nx of n values with doubled midranks d)
 * under random assignment: dynamic programme over (values chosen, doubled rank sum). */
static double exact_rank_p(const int *d, int n, int nx, long w)
{
	long wmax = 0;
	for (int i = 0; i < n; i++)
		wmax += d[i];
	size_t cols = (size_t)wmax + 1;
	double *f = calloc((size_t)(nx + 1) * cols, sizeof(*f));
	if (!f)
		return NAN;
	f[0] = 1.0;
	for (int i = 0; i < n; i++) {
		int top = i + 1 < nx ? i + 1 : nx;
		for (int j = top; j >= 1; j--) {
			double *row = f + (size_t)j * cols, *prev = f + (size_t)(j - 1) * cols;
			for (long s = wmax; s >= d[i]; s--)
				row[s] += prev[s - d[i]];
		}
	}
	double total = 0, tail = 0;
	long ew = (long)nx * (n + 1);   /* expected doubled rank sum: nx * mean of d */
	long dev = labs(w - ew);
	double *row = f + (size_t)nx * cols;
	for (long s = 0; s <= wmax; s++) {
		total += row[s];
		if (labs(s - ew) >= dev)
			tail += row[s];
	}
	free(f);
	double p = tail / total;
	return p > 1.0 ? 1.0 : p;
}

void stats_mann_whitney(const double *x, int nx, const double *y, int ny, struct rank_test *t)
{
	memset(t, 0, sizeof(*t));
	t->p = 1.0;
	if (nx <= 0 || ny <= 0)
		return;
	int n = nx + ny;
	struct tagged *all = malloc(sizeof(*all) * (size_t)n);
	int *d = malloc(sizeof(*d) * (size_t)n);
	if (!all || !d) {
		free(all);
		free(d);
		t->p = NAN;
		return;
	}
	for (int i = 0; i < nx; i++)
		all[i] = (struct tagged){ x[i], 1 };
	for (int j = 0; j < ny; j++)
		all[nx + j] = (struct tagged){ y[j], 0 };
	qsort(all, (size_t)n, sizeof(*all), cmp_tagged);
	long w = 0;         /* doubled rank sum of x */
	double ties = 0;    /* sum of t^3 - t over tie groups */
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		int d2 = (i + 1) + (j + 1);    /* twice the midrank of positions i..j (1-based) */
		double tg = j - i + 1;
		ties += tg * tg * tg - tg;
		for (int k = i; k <= j; k++) {
			d[k] = d2;
			if (all[k].tag)
				w += d2;
		}
		i = j + 1;
	}
	t->u = w / 2.0 - nx * (nx + 1) / 2.0;
	if (n <= STATS_MW_EXACT_MAX) {
		t->exact = true;
		t->p = exact_rank_p(d, n, nx, w);
	} else {
		double mean = nx * (double)ny / 2.0;
		double var = nx * (double)ny / 12.0 * ((n + 1) - ties / ((double)n * (n - 1)));
		if (var > 0) {
			double dev = fabs(t->u - mean) - 0.5;
			t->z = (dev > 0 ? dev : 0) / sqrt(var) * (t->u < mean ? -1 : 1);
			t->p = normal_two_sided(t->z);
		}
	}
	free(all);
	free(d);
}

void stats_mann_whitney_grouped(const uint64_t *x, const uint64_t *y, int ngroups,
                                struct rank_test *t)
{
	memset(t, 0, sizeof(*t));
	t->p = 1.0;
	double nx = 0, ny = 0, ties = 0, u = 0, ybelow = 0;
	for (int g = 0; g < ngroups; g++) {
		double tg = (double)x[g] + (double)y[g];
		ties += tg * tg * tg - tg;
		u += (double)x[g] * (ybelow + 0.5 * (double)y[g]);
		ybelow += (double)y[g];
		nx += (double)x[g];
		ny += (double)y[g];
	}
	t->u = u;
	double n = nx + ny;
	if (nx == 0 || ny == 0)
		return;
	double var = nx * ny / 12.0 * ((n + 1) - ties / (n * (n - 1)));
	if (!(var > 0))
		return;
	t->z = (u - nx * ny / 2.0) / sqrt(var);
	t->p = normal_two_sided(t->z);
}

/* ---- histogram replicates ---- */

/* The buckets from min's to max's hold every sample (min and max are exact), so only they
 * are walked; a histogram whose min or max disagrees with its counts is walked whole. */
static void cdf_range(const struct hist *h, unsigned *from, unsigned *to)
{
	*from = 0;
	*to = HIST_LEN - 1;
	if (h->count == 0 || h->min < 0 || h->max < h->min || h->max > HIST_MAX_VALUE)
		return;
	unsigned a = hist_index(h->min), b = hist_index(h->max);
	uint64_t n = 0;
	for (unsigned i = a; i <= b; i++)
		n += h->counts[i];
	if (n == h->count)
		*from = a, *to = b;
}

int hist_cdf_init(struct hist_cdf *c, const struct hist *h)
{
	memset(c, 0, sizeof(*c));
	c->h = h;
	unsigned from, to;
	cdf_range(h, &from, &to);
	size_t n = 0;
	for (unsigned i = from; i <= to; i++)
		n += h->counts[i] != 0;
	c->lo = malloc(sizeof(*c->lo) * (n ? n : 1));
	c->hi = malloc(sizeof(*c->hi) * (n ? n : 1));
	c->cum = malloc(sizeof(*c->cum) * (n ? n : 1));
	if (!c->lo || !c->hi || !c->cum) {
		hist_cdf_free(c);
		return -1;
	}
	uint64_t cum = 0;
	for (unsigned i = from; i <= to && c->n < (int)n; i++) {
		if (!h->counts[i])
			continue;
		cum += h->counts[i];
		c->lo[c->n] = hist_bucket_lo(i);
		c->hi[c->n] = hist_bucket_hi(i);
		c->cum[c->n] = cum;
		c->n++;
	}
	return 0;
}

void hist_cdf_free(struct hist_cdf *c)
{
	free(c->lo);
	free(c->hi);
	free(c->cum);
	c->lo = c->hi = NULL;
	c->cum = NULL;
	c->n = 0;
}

int hist_cdf_rank_bucket(const struct hist_cdf *c, uint64_t rank)
{
	int lo = 0, hi = c->n - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (c->cum[mid] >= rank)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

double hist_cdf_rank_value(const struct hist_cdf *c, uint64_t rank)
{
	if (c->n == 0)
		return 0.0;
	int i = hist_cdf_rank_bucket(c, rank);
	int64_t v = c->lo[i] + (c->hi[i] - c->lo[i]) / 2;
	if (v < c->h->min)
		v = c->h->min;
	if (v > c->h->max)
		v = c->h->max;
	return (double)v;
}

uint64_t stats_pct_rank(double pct, uint64_t count)
{
	if (count == 0)
		return 0;
	/* the tolerance keeps 99.9 % of 3000 at rank 2997 despite 99.9 not being exact */
	double x = pct / 100.0 * (double)count;
	double r = ceil(x - 1e-9 * x);
	if (r < 1)
		return 1;
	if (r > (double)count)
		return count;
	return (uint64_t)r;
}

double hist_cdf_replicate(const struct hist_cdf *c, double pct, struct rng *r)
{
	uint64_t n = c->h->count;
	if (n == 0)
		return 0.0;
	uint64_t k = stats_pct_rank(pct, n);
	double u = rng_beta(r, (double)k, (double)(n - k + 1));
	double rank = ceil(u * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > (double)n)
		rank = (double)n;
	return hist_cdf_rank_value(c, (uint64_t)rank);
}

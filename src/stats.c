/* Statistics: see stats.h and docs/statistics.md (which explains every threshold). */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static double resample_stat(const double *v, int n, double *buf, stats_fn fn, void *ctx,
                            struct rng *r)
{
	for (int i = 0; i < n; i++)
		buf[i] = v[rng_below(r, (uint64_t)n)];
	return fn(buf, n, ctx);
}

static void interval(double *reps, int nrep, double level, struct ci *out)
{
	qsort(reps, (size_t)nrep, sizeof(*reps), cmp_double);
	out->lo = stats_quantile_sorted(reps, nrep, (1.0 - level) / 2.0);
	out->hi = stats_quantile_sorted(reps, nrep, (1.0 + level) / 2.0);
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
		reps[b] = resample_stat(v, n, buf, fn, ctx, r);
	interval(reps, resamples, level, out);
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
		double ra = resample_stat(a, na, buf, fn, ctx, r);
		double rb = resample_stat(b, nb, buf, fn, ctx, r);
		reps[i] = stats_ratio(rb, ra);
	}
	interval(reps, resamples, level, out);
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
	int from_x;
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_double(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
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
			if (all[k].from_x)
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

/* ---- metrics, sides, verdicts ---- */

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_NONE: return "baseline";
	case VERDICT_BETTER: return "better";
	case VERDICT_WORSE: return "worse";
	case VERDICT_SAME: return "no significant difference";
	case VERDICT_FEW: return "too few samples";
	case VERDICT_NOISY: return "too noisy";
	case VERDICT_EQUIVALENT: return "equivalent";
	}
	return "?";
}

void stats_params_default(struct stats_params *p)
{
	*p = (struct stats_params){
		.resamples = 2000,
		.seed = 1,
		.level = 0.95,
		.alpha = 0.05,
		.min_reps = 3,
		.min_tail = 10,
		.min_events = 100,
		.floor_reps = 0.01,
		.floor_single = 0,   /* withhold single-run verdicts */
		.max_ci_width = 0.5,
		.max_cv = 0.5,
		.margin = 0,   /* no equivalence verdicts unless asked */
		.within_resamples = 200,
	};
}

uint64_t stats_min_samples(const struct stats_params *p, double pct)
{
	if (pct >= 100.0)
		return UINT64_MAX;
	double need = p->min_tail * 100.0 / (100.0 - pct);
	return (uint64_t)ceil(need * (1 - 1e-9));   /* 99.9 is not exact in binary */
}

bool stats_single_run(const struct side *a, const struct side *b)
{
	return a->nreps == 1 && b->nreps == 1;
}

/* Do all of a side's runs carry the histogram of this percentile (two-level bootstrap)? */
static bool two_level(const struct metric *m, const struct side *s)
{
	if (m->kind != STAT_PERCENTILE || !s->hists || s->nreps < 2)
		return false;
	for (int i = 0; i < s->nreps; i++)
		if (!s->hists[i] || !s->hists[i]->count)
			return false;
	return true;
}

/* What a bootstrap draws from for one side: repetitions, a single run's distribution, or
 * both levels: runs, then the samples within each drawn run. */
struct source {
	const struct metric *m;
	const struct side *s;
	bool within;            /* resample within the single run */
	bool two_level;         /* resample runs, then within each drawn run */
	struct hist_cdf cdf;
	struct hist_cdf *cdfs;  /* two_level: per run */
	double *buf;
};

static int source_init(struct source *src, const struct metric *m, const struct side *s,
                       bool single)
{
	memset(src, 0, sizeof(*src));
	src->m = m;
	src->s = s;
	src->within = single && ((m->kind == STAT_PERCENTILE && s->hist && s->hist->count) ||
	                         (m->kind == STAT_PROPORTION && s->nsamples > 0));
	if (src->within && m->kind == STAT_PERCENTILE)
		return hist_cdf_init(&src->cdf, s->hist);
	src->buf = malloc(sizeof(*src->buf) * (size_t)(s->nreps > 0 ? s->nreps : 1));
	if (!src->buf)
		return -1;
	src->two_level = !single && two_level(m, s);
	if (src->two_level) {
		src->cdfs = calloc((size_t)s->nreps, sizeof(*src->cdfs));
		for (int i = 0; src->cdfs && i < s->nreps; i++)
			if (hist_cdf_init(&src->cdfs[i], s->hists[i]) < 0)
				return -1;
		if (!src->cdfs)
			return -1;
	}
	return 0;
}

static void source_free(struct source *src)
{
	hist_cdf_free(&src->cdf);
	for (int i = 0; src->cdfs && i < src->s->nreps; i++)
		hist_cdf_free(&src->cdfs[i]);
	free(src->cdfs);
	free(src->buf);
}

/* Can this source produce varying replicates (else its CI is undefined)? */
static bool source_resamples(const struct source *src)
{
	return src->within || src->s->nreps >= 2;
}

static double source_est(const struct source *src)
{
	if (src->within && src->m->kind == STAT_PROPORTION)
		return 100.0 * (double)src->s->hits / (double)src->s->nsamples;
	return stats_median(src->s->reps, src->s->nreps);
}

static double source_replicate(struct source *src, struct rng *r)
{
	const struct side *s = src->s;
	if (src->within && src->m->kind == STAT_PERCENTILE)
		return hist_cdf_replicate(&src->cdf, src->m->pct, r);
	if (src->within) {
		double p = (double)s->hits / (double)s->nsamples;
		return 100.0 * (double)rng_binomial(r, s->nsamples, p) / (double)s->nsamples;
	}
	if (src->two_level) {   /* runs with replacement, each drawn run's percentile redrawn */
		for (int i = 0; i < s->nreps; i++)
			src->buf[i] = hist_cdf_replicate(&src->cdfs[rng_below(r, (uint64_t)s->nreps)], src->m->pct, r);
		return stats_fn_median(src->buf, s->nreps, NULL);
	}
	return resample_stat(s->reps, s->nreps, src->buf, stats_fn_median, NULL, r);
}

void stats_summarize(const struct metric *m, const struct side *s, const struct stats_params *p,
                     struct ci *out)
{
	out->est = out->lo = out->hi = NAN;
	if (s->nreps < 1)
		return;
	struct source src;
	if (source_init(&src, m, s, s->nreps == 1) < 0)
		return;
	out->est = source_est(&src);
	double *reps = source_resamples(&src) ? malloc(sizeof(*reps) * (size_t)p->resamples) : NULL;
	if (reps) {
		struct rng r;
		rng_seed(&r, p->seed);
		for (int b = 0; b < p->resamples; b++)
			reps[b] = source_replicate(&src, &r);
		interval(reps, p->resamples, p->level, out);
		free(reps);
	}
	source_free(&src);
}

/* CI of the ratio cell / base; with miss != NULL also of the complements (100 - value), i.e.
 * of the miss rates behind a percentage of hits, from the same replicates. */
static void ratio_ci(struct source *a, struct source *b, const struct stats_params *p,
                     struct ci *out, struct ci *miss)
{
	double ea = source_est(a), eb = source_est(b);
	out->est = stats_ratio(eb, ea);
	out->lo = out->hi = NAN;
	if (miss) {
		miss->est = stats_ratio(100.0 - eb, 100.0 - ea);
		miss->lo = miss->hi = NAN;
	}
	if (!source_resamples(a) && !source_resamples(b))
		return;
	double *reps = malloc(sizeof(*reps) * (size_t)p->resamples * 2);
	if (!reps)
		return;
	double *mreps = reps + p->resamples;
	struct rng r;
	rng_seed(&r, p->seed);
	for (int i = 0; i < p->resamples; i++) {
		double ra = source_replicate(a, &r);
		double rb = source_replicate(b, &r);
		reps[i] = stats_ratio(rb, ra);
		mreps[i] = stats_ratio(100.0 - rb, 100.0 - ra);
	}
	interval(reps, p->resamples, p->level, out);
	if (miss)
		interval(mreps, p->resamples, p->level, miss);
	free(reps);
}

/* Single runs: Mood's quantile test, i.e. the rank test on "at or below the pooled
 * percentile" vs "above it"; for proportions the rank test on hit/miss. */
static double single_run_p(const struct metric *m, const struct side *a, const struct side *b)
{
	struct rank_test t;
	uint64_t x[2], y[2];
	if (m->kind == STAT_PROPORTION) {
		x[0] = a->nsamples - a->hits, x[1] = a->hits;
		y[0] = b->nsamples - b->hits, y[1] = b->hits;
	} else {
		const struct hist *ha = a->hist, *hb = b->hist;
		uint64_t rank = stats_pct_rank(m->pct, ha->count + hb->count), cum = 0;
		int thr = 0;
		for (thr = 0; thr < HIST_LEN; thr++) {
			cum += ha->counts[thr] + hb->counts[thr];
			if (cum >= rank)
				break;
		}
		x[0] = y[0] = 0;
		for (int i = 0; i <= thr && i < HIST_LEN; i++) {
			x[0] += ha->counts[i];
			y[0] += hb->counts[i];
		}
		x[1] = ha->count - x[0];
		y[1] = hb->count - y[0];
	}
	stats_mann_whitney_grouped(x, y, 2, &t);
	return t.p;
}

static const char *pct_label(double pct, char *buf, size_t len)
{
	snprintf(buf, len, "p%g", pct);
	return buf;
}

/* All samples of a side's runs (two-level sides). */
static double side_samples(const struct side *s)
{
	double n = 0;
	for (int i = 0; i < s->nreps; i++)
		n += (double)s->hists[i]->count;
	return n;
}

/* The withheld-for-too-few-samples rules; returns true (and fills why) when one applies. */
static bool too_few(const struct metric *m, const struct side *a, const struct side *b,
                    bool single, bool two, const struct stats_params *p, char *why, size_t len)
{
	char lab[32];
	uint64_t have = a->nsamples < b->nsamples ? a->nsamples : b->nsamples;
	if (!single) {
		int n = a->nreps < b->nreps ? a->nreps : b->nreps;
		if (n < p->min_reps) {
			snprintf(why, len, "%d vs %d runs, needs >= %d each", a->nreps, b->nreps,
			         p->min_reps);
			return true;
		}
		if (two) {   /* the Welch test of the two-level comparison: the tail of all runs */
			double tail = fmin(side_samples(a), side_samples(b)) * (1.0 - m->pct / 100.0);
			if (tail < p->min_tail * (1 - 1e-9)) {   /* 99.9 is not exact in binary */
				snprintf(why, len, "%s needs >= %.0f samples beyond it per cell, has %.1f",
				         pct_label(m->pct, lab, sizeof(lab)), p->min_tail, tail);
				return true;
			}
			return false;
		}
		if (stats_mw_min_p(a->nreps, b->nreps) > p->alpha) {
			snprintf(why, len, "%d vs %d runs cannot reach p <= %g", a->nreps, b->nreps,
			         p->alpha);
			return true;
		}
	}
	switch (m->kind) {
	case STAT_PERCENTILE: {
		uint64_t need = stats_min_samples(p, m->pct);
		if (single && (!a->hist || !b->hist)) {
			snprintf(why, len, "single runs without a histogram");
			return true;
		}
		if (have < need) {
			snprintf(why, len, "%s needs >= %llu samples/run, has %llu",
			         pct_label(m->pct, lab, sizeof(lab)), (unsigned long long)need,
			         (unsigned long long)have);
			return true;
		}
		return false;
	}
	case STAT_MAX:
		if (single) {
			snprintf(why, len, "one maximum per run: repeat runs");
			return true;
		}
		return false;
	case STAT_PROPORTION:
		if (have < p->min_events) {
			snprintf(why, len, "needs >= %llu events/run, has %llu",
			         (unsigned long long)p->min_events, (unsigned long long)have);
			return true;
		}
		return false;
	case STAT_VALUE:
		if (single) {
			snprintf(why, len, "one value per run: repeat runs");
			return true;
		}
		return false;
	}
	return false;
}

/* The verdict once enough data is there: a difference beyond the floor that the rank test
 * confirms; else "too noisy" when an effect could have hidden in the noise; else no
 * significant difference. miss: for proportions, the CI of the ratio of misses. */
static void decide(const struct metric *m, const struct stats_params *p, double floor,
                   bool single, const struct ci *miss, bool equivalent, struct comparison *out)
{
	const struct ci *r = &out->ratio;
	bool lower = r->hi < 1.0 - floor, higher = r->lo > 1.0 + floor;
	if (miss) {   /* the effect of a percentage of hits is the change of its misses */
		lower = miss->lo > 1.0 + floor;
		higher = miss->hi < 1.0 - floor;
	}
	char pv[24];
	if (out->p < 1e-4)
		snprintf(pv, sizeof(pv), "p<0.0001");
	else
		snprintf(pv, sizeof(pv), "p=%.2g", out->p);
	if ((lower || higher) && out->p <= p->alpha) {
		out->verdict = lower != m->higher_better ? VERDICT_BETTER : VERDICT_WORSE;
		if (miss)
			snprintf(out->why, sizeof(out->why), "misses x%.3g, %s", miss->est, pv);
		else
			snprintf(out->why, sizeof(out->why), "%s", pv);
		return;
	}
	if (equivalent) {
		out->verdict = VERDICT_EQUIVALENT;
		snprintf(out->why, sizeof(out->why), "within \u00b1%g %%", 100 * p->margin);
		return;
	}
	/* could an effect have been seen? For a percentage of hits, judged on its misses */
	const struct ci *w = miss ? miss : r;
	double width = w->est > 0 && isfinite(w->hi) && isfinite(w->lo) ? (w->hi - w->lo) / w->est
	                                                                 : INFINITY;
	if (w->lo == w->hi && isfinite(w->lo))
		width = 0;   /* e.g. no misses on either side in any resample */
	if (isnan(w->lo) || !(width <= p->max_ci_width)) {
		out->verdict = VERDICT_NOISY;
		if (isnan(w->lo))
			snprintf(out->why, sizeof(out->why), "no CI");
		else if (isinf(width) || isnan(width))
			snprintf(out->why, sizeof(out->why), "%sratio CI unbounded", miss ? "miss " : "");
		else
			snprintf(out->why, sizeof(out->why), "%sratio CI width %.0f%% > %.0f%%",
			         miss ? "miss " : "", 100 * width, 100 * p->max_ci_width);
		return;
	}
	double cv = single ? 0 : fmax(out->cv_base, out->cv_cell);
	if (cv > p->max_cv) {
		out->verdict = VERDICT_NOISY;
		snprintf(out->why, sizeof(out->why), "runs vary: CV %.0f%% > %.0f%%", 100 * cv,
		         100 * p->max_cv);
		return;
	}
	out->verdict = VERDICT_SAME;
	snprintf(out->why, sizeof(out->why), "%s", pv);
}

/* Welch's test on the per-run values in logs (misses for a percentage of hits), with the
 * within-run variance as a floor for two-level sides: for the two-level verdict, and for every
 * estimate of how many more runs would decide. */
static void welch_of(const struct metric *m, const struct side *a, const struct side *b, bool two,
                     const struct stats_params *p, struct welch *w)
{
	double *x = malloc(sizeof(double) * (size_t)(a->nreps + b->nreps + 1));
	if (!x) {
		stats_welch_log(NULL, 0, 0, NULL, 0, 0, w);
		return;
	}
	double *y = x + a->nreps;
	bool prop = m->kind == STAT_PROPORTION;
	for (int i = 0; i < a->nreps; i++)
		x[i] = prop ? 100.0 - a->reps[i] : a->reps[i];
	for (int i = 0; i < b->nreps; i++)
		y[i] = prop ? 100.0 - b->reps[i] : b->reps[i];
	double wa = two ? stats_within_var(a, m->pct, p->within_resamples, p->seed) : 0;
	double wb = two ? stats_within_var(b, m->pct, p->within_resamples, p->seed + 1) : 0;
	stats_welch_log(x, a->nreps, wa, y, b->nreps, wb, w);
	free(x);
}

/* A withheld verdict: how many more runs per cell would probably decide it, in the reason. */
static void estimate_more(const struct metric *m, const struct side *base, const struct side *cell,
                          bool two, const struct welch *w, const struct stats_params *p,
                          struct comparison *out)
{
	int n = base->nreps < cell->nreps ? base->nreps : cell->nreps;
	int need = n < p->min_reps ? p->min_reps - n : 0;
	if (two && m->kind == STAT_PERCENTILE) {   /* enough samples beyond the percentile per cell */
		double per_run = fmin(side_samples(base) / base->nreps, side_samples(cell) / cell->nreps);
		double tail = per_run * (1.0 - m->pct / 100.0);
		int runs = tail > 0 ? (int)ceil(p->min_tail / tail - 1e-9) : 0;
		if (runs > n + need)
			need = runs - n;
	}
	int k = 0;
	while (!two && stats_mw_min_p(base->nreps + need + k, cell->nreps + need + k) > p->alpha)
		k++;   /* the rank test must be able to reach alpha */
	need += k;
	int more = stats_more_runs(w, base->nreps, cell->nreps, p->floor_reps, p->margin, p->alpha);
	out->more_runs = more < 0 ? (need ? need : -1) : (more > need ? more : need);
	size_t len = strlen(out->why);
	if (len + 64 >= sizeof(out->why))
		return;
	if (out->more_runs > 0 && more >= 0)
		snprintf(out->why + len, sizeof(out->why) - len, "%s~%d more run%s per cell would probably decide",
		         len ? "; " : "", out->more_runs, out->more_runs == 1 ? "" : "s");
	else if (out->more_runs > 0)
		snprintf(out->why + len, sizeof(out->why) - len, "%sat least %d more run%s per cell", len ? "; " : "",
		         out->more_runs, out->more_runs == 1 ? "" : "s");
	else if (!isnan(w->d))
		snprintf(out->why + len, sizeof(out->why) - len, "%sno run count would probably decide: %s",
		         len ? "; " : "", p->margin > 0 ? "the difference is near the margin"
		                                         : "the difference is within the floor (see --margin)");
}

int stats_compare(const struct metric *m, const struct side *base, const struct side *cell,
                  const struct stats_params *p, struct comparison *out)
{
	memset(out, 0, sizeof(*out));
	out->ratio.est = out->ratio.lo = out->ratio.hi = NAN;
	out->p = out->cv_base = out->cv_cell = NAN;
	out->more_runs = -1;
	if (base->nreps < 1 || cell->nreps < 1) {
		out->verdict = VERDICT_FEW;
		snprintf(out->why, sizeof(out->why), "no values");
		return -1;
	}
	bool single = stats_single_run(base, cell);
	bool two = !single && two_level(m, base) && two_level(m, cell);
	out->two_level = two;
	struct source a, b;
	if (source_init(&a, m, base, single) < 0 || source_init(&b, m, cell, single) < 0) {
		source_free(&a);
		out->verdict = VERDICT_FEW;
		snprintf(out->why, sizeof(out->why), "out of memory");
		return -1;
	}
	struct ci miss;
	bool prop = m->kind == STAT_PROPORTION;
	ratio_ci(&a, &b, p, &out->ratio, prop ? &miss : NULL);
	bool few = too_few(m, base, cell, single, two, p, out->why, sizeof(out->why));
	struct welch w;
	stats_welch_log(NULL, 0, 0, NULL, 0, 0, &w);
	if (!single) {
		welch_of(m, base, cell, two, p, &w);
		if (two) {
			out->p = w.p;
		} else {
			struct rank_test t;
			stats_mann_whitney(cell->reps, cell->nreps, base->reps, base->nreps, &t);
			out->p = t.p;
		}
		out->cv_base = stats_cv(base->reps, base->nreps);
		out->cv_cell = stats_cv(cell->reps, cell->nreps);
	} else if (a.within && b.within) {
		out->p = single_run_p(m, base, cell);
	}
	source_free(&a);
	source_free(&b);
	if (few) {
		out->verdict = VERDICT_FEW;
		if (!single)
			estimate_more(m, base, cell, two, &w, p, out);
		return 0;
	}

	/* Single runs show nothing of how much runs of one setting differ, so by default their
	 * verdict is withheld, with what the runs themselves say (docs/statistics.md). */
	bool withhold = single && !(p->floor_single > 0);
	double floor = single ? (withhold ? 0 : p->floor_single) : p->floor_reps;
	/* equivalence: two one-sided tests; without the Welch test, the CI inside the margin */
	const struct ci *eq = prop ? &miss : &out->ratio;
	bool equivalent = p->margin > 0 && !withhold &&
	                  (two ? stats_tost(&w, p->margin, p->alpha)
	                       : eq->lo >= 1.0 - p->margin && eq->hi <= 1.0 + p->margin);
	decide(m, p, floor, single, prop ? &miss : NULL, equivalent, out);
	if (withhold) {
		char inner[sizeof(out->why)];
		snprintf(inner, sizeof(inner), "%s", out->why);
		snprintf(out->why, sizeof(out->why), "one run each; within-run: %s%s%.70s",
		         verdict_name(out->verdict), inner[0] ? ", " : "", inner);
		out->verdict = VERDICT_FEW;
	} else if (!single && out->verdict != VERDICT_BETTER && out->verdict != VERDICT_WORSE &&
	           out->verdict != VERDICT_EQUIVALENT) {
		estimate_more(m, base, cell, two, &w, p, out);
	}
	return 0;
}

/* ---- choosing ---- */

struct point {
	double lat, thr;
	int i;
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	if (x->lat != y->lat)
		return x->lat < y->lat ? -1 : 1;
	if (x->thr != y->thr)
		return x->thr > y->thr ? -1 : 1;
	return x->i - y->i;
}

int stats_pareto(const double *lat, const double *thr, int n, bool *front)
{
	struct point *pts = malloc(sizeof(*pts) * (size_t)(n > 0 ? n : 1));
	int m = 0, count = 0;
	if (!pts)
		return -1;
	for (int i = 0; i < n; i++) {
		front[i] = false;
		if (!isnan(lat[i]) && !isnan(thr[i]))
			pts[m++] = (struct point){ lat[i], thr[i], i };
	}
	qsort(pts, (size_t)m, sizeof(*pts), cmp_point);
	/* Sorted by latency then falling throughput, a point is dominated exactly when an earlier
	 * one has more throughput, or the same throughput at a lower latency. */
	double best_thr = -INFINITY, best_lat = 0;
	for (int k = 0; k < m; k++) {
		const struct point *q = &pts[k];
		bool dominated = best_thr > q->thr || (best_thr == q->thr && best_lat < q->lat);
		if (!dominated) {
			front[q->i] = true;
			count++;
		}
		if (q->thr > best_thr) {
			best_thr = q->thr;
			best_lat = q->lat;
		}
	}
	free(pts);
	return count;
}

int stats_recommend(const double *lat, const double *thr, int n, int base, double min_frac)
{
	int best = -1;
	for (int i = 0; i < n; i++) {
		if (isnan(lat[i]))
			continue;
		if (thr && !(thr[i] >= min_frac * thr[base]))
			continue;
		if (best < 0 || lat[i] < lat[best])
			best = i;
	}
	return best;
}

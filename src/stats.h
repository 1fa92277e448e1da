/* Statistics over repeated (or single) measurements: medians, confidence intervals (Student-t
 * by variance components for percentiles of repetitions, percentile bootstrap otherwise),
 * the Mann-Whitney rank test, verdicts that refuse to overclaim, the latency /
 * throughput Pareto front and a recommendation. Pure computation; every random choice comes
 * from an explicitly seeded splitmix64 generator, so the same input and seed give the same
 * output on every machine. The rules and thresholds are explained in docs/statistics.md. */
#ifndef IRT_STATS_H
#define IRT_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

/* ---- deterministic random numbers (splitmix64) ---- */
struct rng {
	uint64_t state;
};
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_u64(struct rng *r);
double rng_double(struct rng *r);                 /* uniform in [0, 1), 53 bits */
uint64_t rng_below(struct rng *r, uint64_t n);    /* uniform in [0, n), unbiased; n > 0 */
double rng_normal(struct rng *r);                 /* standard normal */
double rng_gamma(struct rng *r, double shape);    /* Gamma(shape, 1), shape > 0 */
double rng_beta(struct rng *r, double a, double b);
uint64_t rng_binomial(struct rng *r, uint64_t n, double p);

/* ---- plain summaries (NaN for n == 0) ---- */
/* Quantile q in [0,1] of sorted values, linear interpolation between order statistics
 * (Hyndman & Fan type 7, the default of R and numpy). */
double stats_quantile_sorted(const double *sorted, int n, double q);
double stats_median(const double *v, int n);      /* v is not modified */
double stats_mean(const double *v, int n);
double stats_stddev(const double *v, int n);      /* sample (n - 1) standard deviation */
double stats_cv(const double *v, int n);          /* stddev / mean; 0 for all-zero values */

/* ---- bootstrap ---- */
struct ci {
	double est;      /* the statistic on the data itself */
	double lo, hi;   /* the confidence interval; NaN when it cannot be computed */
};

/* A statistic of n values; it may reorder v. */
typedef double (*stats_fn)(double *v, int n, void *ctx);
double stats_fn_median(double *v, int n, void *ctx);

/* Percentile bootstrap: `resamples` resamples of v with replacement, the statistic of each,
 * and the (1-level)/2 and (1+level)/2 quantiles of those. Returns 0, -1 when n == 0 or
 * resamples < 1 (out->est and bounds NaN). */
int stats_bootstrap_ci(const double *v, int n, stats_fn fn, void *ctx, int resamples,
                       double level, struct rng *r, struct ci *out);
/* CI of fn(b) / fn(a), resampling a and b independently. 0/0 counts as 1, x/0 as +inf. */
int stats_ratio_ci(const double *a, int na, const double *b, int nb, stats_fn fn, void *ctx,
                   int resamples, double level, struct rng *r, struct ci *out);
double stats_ratio(double num, double den);

/* ---- rank tests ---- */
struct rank_test {
	double u;        /* Mann-Whitney U of x: pairs (i,j) with x_i > y_j, ties counting 1/2 */
	double z;        /* normal score of U (tie-corrected); 0 when exact or degenerate */
	double p;        /* two-sided p-value */
	bool exact;      /* p from the exact permutation distribution (ties handled) */
};
/* Mann-Whitney U test of x against y. Exact (permutation distribution of the rank sum, with
 * midranks for ties) when nx + ny <= STATS_MW_EXACT_MAX, otherwise the normal approximation
 * with tie correction and continuity correction. n == 0 on either side gives p = 1. */
#define STATS_MW_EXACT_MAX 60
void stats_mann_whitney(const double *x, int nx, const double *y, int ny, struct rank_test *t);
/* The same test on grouped data: x[g] and y[g] count the values in ordered group g (all
 * values of a group tie). Normal approximation with tie correction, no continuity correction
 * (meant for large counts: histogram buckets, met/missed events). */
void stats_mann_whitney_grouped(const uint64_t *x, const uint64_t *y, int ngroups,
                                struct rank_test *t);
/* Smallest two-sided p-value an exact rank test can give for samples of sizes nx and ny:
 * 2 / C(nx+ny, nx). Below this, no amount of effect can be significant. */
double stats_mw_min_p(int nx, int ny);

/* ---- single-run distributions: bootstrap replicates from a histogram ---- */
/* Precomputed cumulative counts of a histogram's non-empty buckets. */
struct hist_cdf {
	const struct hist *h;
	int n;                  /* non-empty buckets */
	int64_t *lo, *hi;       /* bucket edges */
	uint64_t *cum;          /* samples in buckets 0..i */
};
int hist_cdf_init(struct hist_cdf *c, const struct hist *h);   /* -1 on allocation failure */
void hist_cdf_free(struct hist_cdf *c);
/* Value (bucket midpoint clamped to [min, max]) of the sample of rank r (1-based). */
double hist_cdf_rank_value(const struct hist_cdf *c, uint64_t rank);
/* Index of the bucket holding the sample of rank r. */
int hist_cdf_rank_bucket(const struct hist_cdf *c, uint64_t rank);
/* Rank (1-based) whose value hist_percentile(h, pct) reports: ceil(pct/100 * count), >= 1. */
uint64_t stats_pct_rank(double pct, uint64_t count);
/* One bootstrap replicate of percentile pct: the percentile of count samples drawn with
 * replacement from the histogram, drawn exactly in O(log buckets) as the rank-r order
 * statistic of count uniforms, Beta(r, count - r + 1), mapped through the empirical CDF. */
double hist_cdf_replicate(const struct hist_cdf *c, double pct, struct rng *r);

/* ---- metrics, sides, verdicts ---- */
enum stat_kind {
	STAT_PERCENTILE,    /* a percentile of a latency histogram (pct) */
	STAT_MAX,           /* the largest sample of a run */
	STAT_PROPORTION,    /* percent of events that were hits (deadline-met %) */
	STAT_VALUE,         /* a plain number per run (throughput) */
};

struct metric {
	const char *name;   /* "wake p99" */
	enum stat_kind kind;
	double pct;         /* STAT_PERCENTILE: 0..100 */
	bool higher_better; /* throughput, deadline-met %; latency is lower-better */
};

/* One side of a comparison for one metric: the metric's value in each repetition, or for a
 * single run also the distribution that value came from, so it can be resampled. */
struct side {
	const double *reps; /* per-repetition values, NaN-free */
	int nreps;
	uint64_t nsamples;  /* fewest samples (or events) behind one repetition's value */
	const struct hist *hist;  /* single run, STAT_PERCENTILE: the histogram */
	uint64_t hits;      /* single run, STAT_PROPORTION: hits out of nsamples */
	const struct hist *const *hists; /* repetitions, STAT_PERCENTILE: each run's histogram (aligned
	                          * with reps), for their within-run variance; NULL when not all have one */
	bool exact;         /* a deterministic simulation's: the value is exact for the model (no
	                     * sampling, no run-to-run noise), so no CI and no test apply */
	bool seeded;        /* a simulation with random draws: its runs differ by --sim-seed only, the
	                     * repetitions that can help */
};

enum verdict {
	VERDICT_NONE,       /* not compared (the baseline itself) */
	VERDICT_BETTER,
	VERDICT_WORSE,
	VERDICT_SAME,       /* no significant difference */
	VERDICT_FEW,        /* withheld: too few samples */
	VERDICT_NOISY,      /* withheld: too noisy */
	VERDICT_EQUIVALENT, /* the difference lies within +-margin (TOST) */
};
const char *verdict_name(enum verdict v);   /* "better", "no significant difference", ... */

/* Every threshold, with its default (docs/statistics.md says why each value). */
struct stats_params {
	int resamples;           /* 2000 bootstrap resamples */
	uint64_t seed;           /* 1 */
	double level;            /* 0.95 confidence level */
	double alpha;            /* 0.05 rank-test significance level */
	int min_reps;            /* 3 repetitions per side at least */
	double min_tail;         /* 10 samples beyond a percentile in every run */
	uint64_t min_events;     /* 100 events per run for a proportion */
	double floor_reps;       /* 0.01: smaller relative effects are "no significant difference"
	                          * (for STAT_PROPORTION: relative change of the misses) */
	double floor_single;     /* 0 = no verdicts between two single runs (their run-to-run
	                          * variation is unknown); > 0: the floor for single runs */
	double max_ci_width;     /* 0.5: ratio CI wider than this (relative) is "too noisy" */
	double max_cv;           /* 0.5: repetitions varying more than this are "too noisy" */
	double margin;           /* 0 = off; 0.1: "equivalent" when the difference lies within +-10 % */
	int within_resamples;    /* 200 histogram replicates per run for its within-run variance */
};
void stats_params_default(struct stats_params *p);

/* Smallest sample count per run for which percentile pct is estimable: min_tail samples must
 * lie above it, ceil(min_tail / (1 - pct/100)). p50 -> 20, p99 -> 1000, p99.9 -> 10000. */
uint64_t stats_min_samples(const struct stats_params *p, double pct);

/* True when both sides are single runs (then the within-run distributions are resampled). */
bool stats_single_run(const struct side *a, const struct side *b);

/* Median over repetitions (or the single run's value) with its CI: for percentiles of
 * repetitions with histograms a t interval by variance components, else a bootstrap one. For
 * a single run the CI is over samples within the run; STAT_MAX and STAT_VALUE single runs and
 * exact sides get NaN bounds. */
void stats_summarize(const struct metric *m, const struct side *s, const struct stats_params *p,
                     struct ci *out);

struct comparison {
	struct ci ratio;        /* cell / baseline of the medians (single runs: of the values) */
	double p;               /* rank-test p-value; NaN when not computed */
	double cv_base, cv_cell;/* coefficient of variation of the repetitions; NaN single runs */
	enum verdict verdict;
	char why[192];           /* reason for a withheld verdict, e.g. "p99.9 needs >= 10000 samples per run, has 812" */
	bool two_level;          /* percentiles of repetitions: Welch's test and interval, within-run floor */
	int more_runs;           /* withheld: runs to add per cell that would probably decide it
	                          * (80 % power, planned pessimistically: stats_more_runs); -1 none */
};
/* Compares cell against base. Returns 0, or -1 when a side has no values (verdict FEW). Two
 * exact sides are compared by their values alone: better or worse when they differ at all, "no
 * significant difference" when equal; the why says so. */
int stats_compare(const struct metric *m, const struct side *base, const struct side *cell,
                  const struct stats_params *p, struct comparison *out);

/* ---- two-level statistics (stats_boot.c) ---- */
/* Student's t distribution: P(T <= t) with df degrees of freedom, and its quantile. */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);

/* Welch's test on the logs of per-run values, log(1 + v): the difference of the mean logs
 * (cell - base, so exp(d) is the ratio of geometric means), its standard error, whose
 * per-side variance is never taken below the mean within-run variance of the runs (w, from
 * their histograms; 0 when unknown), Welch-Satterthwaite degrees of freedom, two-sided p. */
struct welch {
	double d, se, df, p;
	double var_base, var_cell;   /* per-run variance of the logs used for each side */
};
void stats_welch_log(const double *base, int nb, double w_base, const double *cell, int nc,
                     double w_cell, struct welch *out);
/* Mean of the logs log(1 + v) of n runs and its standard error by variance components: a run's
 * log value varies by the between-run variance tau^2 plus its within-run sampling variance w
 * (stats_within_var), and the runs' sample variance s^2 estimates tau^2 + w already, so the
 * standard error is sqrt(max(s^2, w) / n): w is a floor, never added a second time. NaN for n < 2. */
void stats_log_mean(const double *v, int n, double w, double *mean, double *se);
/* The central level interval centre +- t se, t Student's with df degrees of freedom. */
void stats_t_interval(double centre, double se, double df, double level, double *lo, double *hi);
/* Mean within-run variance of log(1 + percentile pct) over a side's runs, from `resamples`
 * histogram replicates each; 0 without histograms. */
double stats_within_var(const struct side *s, double pct, int resamples, uint64_t seed);
/* Two one-sided tests at level alpha: true when the ratio of geometric means lies within
 * [1 - margin, 1 + margin]. */
bool stats_tost(const struct welch *w, double margin, double alpha);
/* Runs per cell to add so that the comparison would probably (80 % power) be decided: the
 * ratio's interval beyond 1 +- floor at alpha, or, with margin > 0 and the difference within
 * it, shown within it (TOST). Planned on a pessimistic but plausible truth, the difference at
 * its lower and the per-run variances at their upper 80 % confidence bounds, not on the runs'
 * own figures, which is what makes the advice hold in simulation (docs/statistics.md).
 * -1: nothing to go on, or a difference within the floor (or near the margin); -2: the runs
 * so far are too unsure of the difference for any number up to 10000 to promise 80 %. */
int stats_more_runs(const struct welch *w, int nb, int nc, double floor, double margin, double alpha);
/* The alpha of look k (1-based) of a sequential experiment whose looks happen at n[0] < n[1]
 * < ... runs per cell, at most n_max: linear alpha spending, alpha * n_k / n_max in total by
 * look k, so alpha * n[0] / n_max at the first and alpha * (n_k - n_(k-1)) / n_max after;
 * the looks together never spend more than alpha, however the data looked. */
double stats_look_alpha(double alpha, int n_prev, int n_now, int n_max);
/* Holm's step-down for n tests of one family (every cell against the baseline on one metric):
 * level[i] is what p[i] must not exceed so that the chance of any false rejection in the family
 * stays <= alpha. In ascending order of p the k-th (0-based) of the m finite p-values gets
 * alpha / (m - k) while every smaller one passed its own; from the first that fails, it and
 * all after it keep that failed level. A NaN p is no member: level alpha. */
void stats_holm(const double *p, int n, double alpha, double *level);

/* ---- choosing ---- */
/* Pareto front of (latency lower-better, throughput higher-better): front[i] = true when no
 * other point is at least as good in both and better in one. Points with a NaN are never on
 * it. Identical points are all on it. O(n log n). Returns the number of points on the front. */
int stats_pareto(const double *lat, const double *thr, int n, bool *front);
/* Index of the cell with the lowest latency among those whose throughput is at least
 * min_frac * thr[base] (all cells when thr is NULL); -1 when none qualifies. Ties go to the
 * lower index. NaN latencies never qualify. */
int stats_recommend(const double *lat, const double *thr, int n, int base, double min_frac);

#endif

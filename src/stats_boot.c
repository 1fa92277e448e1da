/* Two-level statistics for percentiles measured in several runs: Student's t, the t intervals
 * and Welch's test on per-run log values with the within-run variance as a floor (variance
 * components), equivalence (TOST), how many more runs would decide (planned on a pessimistic truth),
 * and the alpha of each look of a sequential sweep.
 * docs/statistics.md explains the rules and shows the simulations that validate them. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "stats.h"

/* ---- Student's t ---- */

/* Continued fraction of the regularized incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = fabs(c) < tiny ? tiny : c;
		double delta = d * c;
		h *= delta;
		if (fabs(delta - 1.0) < 1e-14)
			break;
	}
	return h;
}

/* I_x(a, b) */
static double beta_inc(double a, double b, double x)
{
	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	double tail = 0.5 * beta_inc(df / 2.0, 0.5, df / (df + t * t));   /* P(T > |t|) */
	return t > 0 ? 1.0 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -stats_t_quantile(1.0 - p, df);
	double lo = 0, hi = 1;
	while (stats_t_cdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- Welch's test on log values ---- */

static void log_moments(const double *v, int n, double *mean, double *var)
{
	double s = 0, ss = 0;
	for (int i = 0; i < n; i++)
		s += log1p(v[i]);
	*mean = s / n;
	for (int i = 0; i < n; i++) {
		double d = log1p(v[i]) - *mean;
		ss += d * d;
	}
	*var = n > 1 ? ss / (n - 1) : 0;
}

void stats_log_mean(const double *v, int n, double w, double *mean, double *se)
{
	double var;
	*mean = *se = NAN;
	if (n < 2)
		return;
	log_moments(v, n, mean, &var);
	*se = sqrt(fmax(var, w) / n);   /* tau^2 + w, tau^2 = max(0, s^2 - w): s^2 holds w already */
}

void stats_t_interval(double centre, double se, double df, double level, double *lo, double *hi)
{
	double t = stats_t_quantile(0.5 + level / 2, df);
	*lo = se > 0 ? centre - t * se : centre;
	*hi = se > 0 ? centre + t * se : centre;
}

void stats_welch_log(const double *base, int nb, double w_base, const double *cell, int nc,
                     double w_cell, struct welch *out)
{
	double mb, vb, mc, vc;
	out->d = out->se = out->df = out->p = out->var_base = out->var_cell = NAN;
	if (nb < 2 || nc < 2)
		return;
	log_moments(base, nb, &mb, &vb);
	log_moments(cell, nc, &mc, &vc);
	/* A run's value scatters at least by its own sampling noise, known precisely from its
	 * histogram: a spread of 3 runs that happens to come out smaller is not believed. */
	out->var_base = fmax(vb, w_base);
	out->var_cell = fmax(vc, w_cell);
	double sb = out->var_base / nb, sc = out->var_cell / nc;
	out->d = mc - mb;
	out->se = sqrt(sb + sc);
	if (out->se == 0) {
		out->df = nb + nc - 2;
		out->p = out->d == 0 ? 1.0 : 0.0;
		return;
	}
	out->df = (sb + sc) * (sb + sc) / (sb * sb / (nb - 1) + sc * sc / (nc - 1));
	out->p = 2.0 * (1.0 - stats_t_cdf(fabs(out->d) / out->se, out->df));
}

double stats_within_var(const struct side *s, double pct, int resamples, uint64_t seed)
{
	if (!s->hists || s->nreps < 1 || resamples < 2)
		return 0;
	double *v = malloc(sizeof(*v) * (size_t)resamples), sum = 0;
	if (!v)
		return 0;
	struct rng r;
	rng_seed(&r, seed ^ UINT64_C(0x77697468696e));
	for (int i = 0; i < s->nreps; i++) {
		struct hist_cdf c;
		if (!s->hists[i]->count || hist_cdf_init(&c, s->hists[i]) < 0)
			continue;
		for (int b = 0; b < resamples; b++)
			v[b] = log1p(hist_cdf_replicate(&c, pct, &r));
		double m = 0, ss = 0;
		for (int b = 0; b < resamples; b++)
			m += v[b];
		m /= resamples;
		for (int b = 0; b < resamples; b++)
			ss += (v[b] - m) * (v[b] - m);
		sum += ss / (resamples - 1);
		hist_cdf_free(&c);
	}
	free(v);
	return sum / s->nreps;
}

bool stats_tost(const struct welch *w, double margin, double alpha)
{
	if (!(margin > 0) || isnan(w->se) || !(margin < 1))
		return false;
	double t = stats_t_quantile(1.0 - alpha, w->df);
	return w->d - t * w->se > log(1.0 - margin) && w->d + t * w->se < log(1.0 + margin);
}

/* Standard normal quantile (bisection on erfc; cheap, and only needed for planning). */
static double normal_quantile(double p)
{
	double lo = -40, hi = 40;
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Power of the comparison after k more runs per cell, for all n + k runs as if drawn afresh,
 * planned on a pessimistic but plausible truth (docs/statistics.md, "advice"): the difference at
 * its lower 80 % confidence bound, |d| - t(0.8, df) se, and the per-run variances at their upper
 * 80 % bound, V df / chi2(0.2, df) (Wilson-Hilferty). Plugging the runs' d and variances in as
 * the truth was optimistic (the runs it asked for decided in 13-75 % of cases, not 80 %):
 * withheld comparisons are the ones whose d is least sure, a d that clears the bar by luck
 * overstates the effect, and 3 runs often understate their spread. It decides when the
 * final interval lies beyond the floor (or, equiv, within the margin, TOST). */
static double decide_prob(const struct welch *w, int nb, int nc, int k, bool equiv, double floor_gap,
                          double lo_equiv, double hi_equiv, double alpha)
{
	const double plan = 0.8;
	double z = normal_quantile(1 - plan), c = 1 - 2 / (9 * w->df) + z * sqrt(2 / (9 * w->df));
	double inflate = c > 0 ? 1 / (c * c * c) : INFINITY;   /* chi2(0.2, df) / df = c^3 */
	double mb = nb + k, mc = nc + k, sb = inflate * w->var_base / mb, sc = inflate * w->var_cell / mc;
	double se = sqrt(sb + sc), df = (sb + sc) * (sb + sc) / (sb * sb / (mb - 1) + sc * sc / (mc - 1));
	double bound = stats_t_quantile(plan, w->df) * w->se;
	if (!(se > 0) || !isfinite(se))
		return 0;
	if (!equiv)   /* the interval beyond the floor, on the side the runs point to */
		return stats_t_cdf((fabs(w->d) - bound - floor_gap) / se - stats_t_quantile(1 - alpha / 2, df), df);
	double t = stats_t_quantile(1 - alpha, df);   /* TOST: both one-sided bounds inside */
	double delta = fabs(w->d) + bound;   /* the truth at its bound away from 0: harder to show */
	double half = fmin(hi_equiv, -lo_equiv);
	return stats_t_cdf((half - delta) / se - t, df);
}

int stats_more_runs(const struct welch *w, int nb, int nc, double floor, double margin, double alpha)
{
	if (isnan(w->se) || isnan(w->d) || isnan(w->df) || nb < 2 || nc < 2)
		return -1;
	const double power = 0.8;
	double gap_diff = fabs(w->d) - log1p(floor);
	bool equiv = margin > 0 && margin < 1 && fabs(w->d) < fmin(log1p(margin), -log1p(-margin));
	if (!(gap_diff > 0) && !equiv)
		return -1;   /* within the floor: no difference to find; near the margin: none to show */
	for (int k = 1; k <= 10000; k += k < 100 ? 1 : k / 20)
		if (decide_prob(w, nb, nc, k, equiv, log1p(floor), log1p(-margin), log1p(margin), alpha) >= power)
			return k;
	return -2;
}

double stats_look_alpha(double alpha, int n_prev, int n_now, int n_max)
{
	if (n_max <= 0 || n_now <= n_prev)
		return 0;
	if (n_now > n_max)
		n_now = n_max;
	return alpha * (double)(n_now - n_prev) / n_max;
}

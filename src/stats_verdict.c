/* How irt compares two sides of a metric (stats_compare), summarizes one (stats_summarize) and
 * chooses among cells (Pareto front, recommendation): the rules docs/statistics.md explains,
 * on the tools of stats.c and stats_boot.c. */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_priv.h"

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

/* Do all of a side's runs carry the histogram of this percentile (two-level statistics: the
 * between-run spread with the within-run variance as its floor)? */
static bool two_level(const struct metric *m, const struct side *s)
{
	if (m->kind != STAT_PERCENTILE || !s->hists || s->nreps < 2)
		return false;
	for (int i = 0; i < s->nreps; i++)
		if (!s->hists[i] || !s->hists[i]->count)
			return false;
	return true;
}

/* What a bootstrap draws from for one side: repetitions, or a single run's distribution.
 * (Percentiles of repetitions get t intervals instead: log_t_summary, log_t_ratio.) */
struct source {
	const struct metric *m;
	const struct side *s;
	bool within;            /* resample within the single run */
	struct hist_cdf cdf;
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
	return src->buf ? 0 : -1;
}

static void source_free(struct source *src)
{
	hist_cdf_free(&src->cdf);
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
	return stats_resample(s->reps, s->nreps, src->buf, stats_fn_median, NULL, r);
}

/* Percentiles of repetitions: a t interval of the runs' mean log value, by variance components
 * (stats_log_mean: the runs' spread holds their within-run noise already; the within-run
 * variance only floors it), with n - 1 degrees of freedom, around the median of the runs.
 * A percentile bootstrap of 3 runs cannot reach beyond them (it covered about 90 % at 95 %), and
 * redrawing each resampled run's percentile added the within-run variance a second time
 * (over-wide where runs differ little). docs/statistics.md has the coverage before and after. */
static void log_t_summary(const struct metric *m, const struct side *s, const struct stats_params *p,
                          struct ci *out)
{
	double mean, se, lo, hi;
	stats_log_mean(s->reps, s->nreps, stats_within_var(s, m->pct, p->within_resamples, p->seed), &mean, &se);
	stats_t_interval(mean, se, s->nreps - 1, p->level, &lo, &hi);
	out->lo = expm1(lo);
	out->hi = expm1(hi);
	stats_ci_hold(out);
}

/* The ratio's interval of percentiles of repetitions: Welch's, exp(d +- t se) with its degrees
 * of freedom, so the interval and the test are one statement about the same difference. */
static void log_t_ratio(const struct welch *w, const struct stats_params *p, struct ci *out)
{
	double lo, hi;
	stats_t_interval(w->d, w->se, w->df, p->level, &lo, &hi);
	out->lo = exp(lo);
	out->hi = exp(hi);
	stats_ci_hold(out);
}

void stats_summarize(const struct metric *m, const struct side *s, const struct stats_params *p,
                     struct ci *out)
{
	out->est = out->lo = out->hi = NAN;
	if (s->nreps < 1)
		return;
	if (!s->exact && two_level(m, s)) {
		out->est = stats_median(s->reps, s->nreps);
		log_t_summary(m, s, p, out);
		return;
	}
	struct source src;
	if (source_init(&src, m, s, s->nreps == 1) < 0)
		return;
	out->est = source_est(&src);
	double *reps = source_resamples(&src) && !s->exact ? malloc(sizeof(*reps) * (size_t)p->resamples) : NULL;
	if (reps) {
		struct rng r;
		rng_seed(&r, p->seed);
		for (int b = 0; b < p->resamples; b++)
			reps[b] = source_replicate(&src, &r);
		stats_interval(reps, p->resamples, p->level, out);
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
	stats_interval(reps, p->resamples, p->level, out);
	if (miss)
		stats_interval(mreps, p->resamples, p->level, miss);
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

/* A simulation with random draws: its repetitions are seeds (a deterministic one gives the
 * same numbers again; measured runs are runs). */
static bool seeded(const struct side *a, const struct side *b)
{
	return a->seeded || b->seeded;
}

static const char *repeat_unit(const struct side *a, const struct side *b)
{
	return seeded(a, b) ? "seed" : "run";
}

static const char *repeat_what(const struct side *a, const struct side *b)
{
	return seeded(a, b) ? "with other --sim-seed values" : "runs";
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
			snprintf(why, len, "one maximum per run: repeat %s", repeat_what(a, b));
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
			snprintf(why, len, "one value per run: repeat %s", repeat_what(a, b));
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
	if (out->p <= p->alpha && floor > 0)   /* e.g. both 0 ns, with more samples above it on one side */
		snprintf(out->why, sizeof(out->why), "the samples around it shift (%s), the value by less than the %g %% floor",
		         pv, 100 * floor);
	else if (out->p <= p->alpha)   /* no floor (withheld single runs): "less than the 0 % floor" said nothing */
		snprintf(out->why, sizeof(out->why), "the samples around it shift (%s), the value's ratio CI holds 1", pv);
	else
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
	const char *unit = repeat_unit(base, cell);
	if (out->more_runs > 0 && more >= 0)
		snprintf(out->why + len, sizeof(out->why) - len, "%s~%d more %s%s per cell would probably decide",
		         len ? "; " : "", out->more_runs, unit, out->more_runs == 1 ? "" : "s");
	else if (out->more_runs > 0)
		snprintf(out->why + len, sizeof(out->why) - len, "%sat least %d more %s%s per cell", len ? "; " : "",
		         out->more_runs, unit, out->more_runs == 1 ? "" : "s");
	else if (more == -2)   /* beyond the floor, but too unsure to promise 80 % at any count */
		snprintf(out->why + len, sizeof(out->why) - len, "%sno run count would probably decide: the %ss so far are too unsure of the difference",
		         len ? "; " : "", unit);
	else if (!isnan(w->d))
		snprintf(out->why + len, sizeof(out->why) - len, "%sno run count would probably decide: %s",
		         len ? "; " : "", p->margin > 0 ? "the difference is near the margin"
		                                         : "the difference is within the floor (see --margin)");
}

/* Two deterministic simulations: the values are the model's exact figures, so any difference
 * is the model's (no noise to test against, no CI, no floor) and repeating changes nothing. */
static void exact_compare(const struct metric *m, const struct side *base, const struct side *cell,
                          const struct stats_params *p, struct comparison *out)
{
	double a = stats_median(base->reps, base->nreps), b = stats_median(cell->reps, cell->nreps);
	out->ratio.est = stats_ratio(b, a);
	/* a percentile is a histogram bucket's midpoint: within 1/1024 of the value, so two that
	 * differ by less than 1/512 may be one value */
	double res = m->kind == STAT_PERCENTILE ? fmax(a, b) / (1 << (HIST_SUB_BITS - 1)) : 0;
	if (fabs(a - b) <= res) {
		out->verdict = VERDICT_SAME;
		snprintf(out->why, sizeof(out->why), "deterministic simulation: %s", a == b ? "equal, exact values"
		                                                                      : "equal within the histogram's 0.2 %");
		return;
	}
	double r = out->ratio.est;
	if (p->margin > 0 && r >= 1.0 - p->margin && r <= 1.0 + p->margin) {   /* --margin: close enough */
		out->verdict = VERDICT_EQUIVALENT;
		snprintf(out->why, sizeof(out->why), "deterministic simulation: within \u00b1%g %%", 100 * p->margin);
		return;
	}
	out->verdict = (b < a) != m->higher_better ? VERDICT_BETTER : VERDICT_WORSE;
	snprintf(out->why, sizeof(out->why), "deterministic simulation: exact values, the model's difference");
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
	if (base->exact && cell->exact) {
		exact_compare(m, base, cell, p, out);
		return 0;
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
	if (two)   /* the t interval of Welch's difference, once the test has it (below) */
		out->ratio.est = stats_ratio(source_est(&b), source_est(&a));
	else
		ratio_ci(&a, &b, p, &out->ratio, prop ? &miss : NULL);
	bool few = too_few(m, base, cell, single, two, p, out->why, sizeof(out->why));
	struct welch w;
	stats_welch_log(NULL, 0, 0, NULL, 0, 0, &w);
	if (!single) {
		welch_of(m, base, cell, two, p, &w);
		if (two) {
			out->p = w.p;
			log_t_ratio(&w, p, &out->ratio);
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
		snprintf(out->why, sizeof(out->why), "one %s each; within-run: %s%s%.70s",
		         repeat_unit(base, cell), verdict_name(out->verdict), inner[0] ? ", " : "",
		         inner);
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

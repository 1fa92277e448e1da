/* Synthetic repeated measurements with known variance between and within runs, compared by
 * stats_compare() exactly as irt compare does: shared by tests/unit/test_stats_sim.c (small,
 * deterministic, in make check) and bench/stats_sim.c (the full tables of docs/statistics.md).
 *
 * A run: `samples` latencies exp(mu + b + sigma * N(0,1)) ns, where b ~ N(0, tau^2) is that
 * run's offset (the machine's state, shared by all its samples) and sigma the spread within
 * the run; mu = log(1 ms) + log(effect) for the compared cell. The metric is one percentile
 * of each run's histogram, as for a probe thread. With `tail` > 0 a share `tail` of the samples
 * is multiplied by a Pareto(1.5) factor >= 2 and the body's median is `median_ns`: the law of
 * bench/stats-trial (docs/statistics.md, "A trial on synthetic result files"), whose true
 * percentile synth_true_pct() computes. */
#ifndef IRT_STATS_SYNTH_H
#define IRT_STATS_SYNTH_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "stats.h"

struct synth {
	double tau;        /* between-run standard deviation of log latency */
	double sigma;      /* within-run standard deviation of log latency */
	int samples;       /* per run */
	double pct;        /* the percentile compared */
	double tail;       /* share of samples with a heavy (Pareto 1.5, >= 2x) tail factor; 0: none */
	double median_ns;  /* the body's median; 0: 1 ms */
};

#define SYNTH_TAIL_SHAPE 1.5
#define SYNTH_TAIL_MIN 2.0

static inline double synth_mu(const struct synth *s, double effect)
{
	return log((s->median_ns > 0 ? s->median_ns : 1e6) * effect);
}

/* P(X > x) of a run of the law at drift 0: the log-normal body's tail plus the heavy part's,
 * P(body * T > x) = E min(1, (TAIL_MIN body / x)^shape), integrated over the body's normal. */
static inline double synth_survival(const struct synth *s, double x)
{
	double mu = synth_mu(s, 1.0), z0 = (log(x) - mu) / s->sigma, heavy = 0;
	const int steps = 4000;
	for (int i = 0; i < steps; i++) {   /* midpoint rule over z in [-9, 9] */
		double z = -9.0 + 18.0 * (i + 0.5) / steps;
		double f = exp(SYNTH_TAIL_SHAPE * (log(SYNTH_TAIL_MIN) + mu + s->sigma * z - log(x)));
		heavy += (f < 1 ? f : 1) * exp(-0.5 * z * z) / sqrt(2 * M_PI) * (18.0 / steps);
	}
	return (1 - s->tail) * 0.5 * erfc(z0 / M_SQRT2) + s->tail * heavy;
}

/* bench/stats-trial's law: 2000 samples, body median 50 us, sigma 0.35, 2 % Pareto tail; p99. */
static inline struct synth synth_trial_law(double tau)
{
	return (struct synth){.tau = tau, .sigma = 0.35, .samples = 2000, .pct = 99, .tail = 0.02,
	                      .median_ns = 50000};
}

/* The true pct-th percentile of a run at drift 0, effect 1 (bisection on synth_survival). */
static inline double synth_true_pct(const struct synth *s)
{
	double lo = log(1.0), hi = log(1e15), want = 1 - s->pct / 100;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (synth_survival(s, exp(mid)) > want)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

/* One cell: runs histograms and their percentile values. */
struct synth_cell {
	struct hist *h;
	const struct hist **hp;
	double *v;
	int n, cap;
};

static inline void synth_cell_init(struct synth_cell *c, int cap)
{
	c->h = malloc(sizeof(*c->h) * (size_t)cap);
	c->hp = malloc(sizeof(*c->hp) * (size_t)cap);
	c->v = malloc(sizeof(*c->v) * (size_t)cap);
	if (!c->h || !c->hp || !c->v)
		abort();
	c->n = 0;
	c->cap = cap;
}

static inline void synth_cell_free(struct synth_cell *c)
{
	free(c->h);
	free(c->hp);
	free(c->v);
}

/* Adds one run of a cell whose latencies are `effect` times the baseline's. */
static inline void synth_run(struct rng *r, const struct synth *s, double effect, struct synth_cell *c)
{
	struct hist *h = &c->h[c->n];
	hist_init(h);
	double mu = synth_mu(s, effect) + s->tau * rng_normal(r);
	for (int i = 0; i < s->samples; i++) {
		double x = exp(mu + s->sigma * rng_normal(r));
		if (s->tail > 0 && rng_double(r) < s->tail)   /* classical Pareto by inversion */
			x *= SYNTH_TAIL_MIN * pow(1.0 - rng_double(r), -1.0 / SYNTH_TAIL_SHAPE);
		hist_record(h, (int64_t)x);
	}
	c->hp[c->n] = h;
	c->v[c->n] = (double)hist_percentile(h, s->pct);
	c->n++;
}

/* Adds k runs to each cell, interleaved as a sweep runs them: a of the baseline's law, b effect
 * times it. */
static inline void synth_add(struct rng *r, const struct synth *s, double effect, int k, struct synth_cell *a,
                             struct synth_cell *b)
{
	for (int i = 0; i < k; i++) {
		synth_run(r, s, 1.0, a);
		synth_run(r, s, effect, b);
	}
}

/* Two cells with room for cap runs, n of them drawn (synth_add). */
static inline void synth_pair(struct rng *r, const struct synth *s, double effect, int n, int cap,
                              struct synth_cell *a, struct synth_cell *b)
{
	synth_cell_init(a, cap);
	synth_cell_init(b, cap);
	synth_add(r, s, effect, n, a, b);
}

static inline struct side synth_side(const struct synth_cell *c)
{
	struct side sd = {.reps = c->v, .nreps = c->n, .nsamples = UINT64_MAX, .hists = c->hp};
	for (int i = 0; i < c->n; i++)
		if (c->h[i].count < sd.nsamples)
			sd.nsamples = c->h[i].count;
	return sd;
}

static inline enum verdict synth_verdict(const struct synth *s, const struct synth_cell *a,
                                         const struct synth_cell *b, const struct stats_params *p)
{
	struct metric m = {"p", STAT_PERCENTILE, s->pct, false};
	struct side sa = synth_side(a), sb = synth_side(b);
	struct comparison cmp;
	stats_compare(&m, &sa, &sb, p, &cmp);
	return cmp.verdict;
}

/* One comparison of n runs per cell, the second `effect` times the first. */
static inline enum verdict synth_fixed(struct rng *r, const struct synth *s, double effect, int n,
                                       const struct stats_params *p)
{
	struct synth_cell a, b;
	synth_pair(r, s, effect, n, n, &a, &b);
	enum verdict v = synth_verdict(s, &a, &b, p);
	synth_cell_free(&a);
	synth_cell_free(&b);
	return v;
}

/* A sequential comparison as irt sweep --until-decided runs it: n0 runs per cell, then one
 * more per cell and a look after each, until a verdict (better, worse or equivalent) or
 * n_max runs; each look tests at its share of alpha (stats_look_alpha). *runs gets the runs
 * per cell at the end. */
static inline enum verdict synth_sequential(struct rng *r, const struct synth *s, double effect, int n0,
                                            int n_max, const struct stats_params *p, int *runs)
{
	struct synth_cell a, b;
	synth_cell_init(&a, n_max);
	synth_cell_init(&b, n_max);
	enum verdict v = VERDICT_FEW;
	int prev = 0;
	for (int n = 1; n <= n_max; n++) {
		synth_run(r, s, 1.0, &a);
		synth_run(r, s, effect, &b);
		if (n < n0)
			continue;
		struct stats_params look = *p;
		look.alpha = stats_look_alpha(p->alpha, prev, n, n_max);
		prev = n;
		v = synth_verdict(s, &a, &b, &look);
		if (v == VERDICT_BETTER || v == VERDICT_WORSE || v == VERDICT_EQUIVALENT)
			break;
	}
	*runs = a.n;
	synth_cell_free(&a);
	synth_cell_free(&b);
	return v;
}

#endif

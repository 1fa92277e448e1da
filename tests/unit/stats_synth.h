/* Synthetic repeated measurements with known variance between and within runs, compared by
 * stats_compare() exactly as irt compare does: shared by tests/unit/test_stats_sim.c (small,
 * deterministic, in make check) and bench/stats_sim.c (the full tables of docs/statistics.md).
 *
 * A run: `samples` latencies exp(mu + b + sigma * N(0,1)) ns, where b ~ N(0, tau^2) is that
 * run's offset (the machine's state, shared by all its samples) and sigma the spread within
 * the run; mu = log(1 ms) + log(effect) for the compared cell. The metric is one percentile
 * of each run's histogram, as for a probe thread. */
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
};

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
	double mu = log(1e6 * effect) + s->tau * rng_normal(r);
	for (int i = 0; i < s->samples; i++)
		hist_record(h, (int64_t)exp(mu + s->sigma * rng_normal(r)));
	c->hp[c->n] = h;
	c->v[c->n] = (double)hist_percentile(h, s->pct);
	c->n++;
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
	synth_cell_init(&a, n);
	synth_cell_init(&b, n);
	for (int i = 0; i < n; i++) {   /* interleaved, as a sweep runs them */
		synth_run(r, s, 1.0, &a);
		synth_run(r, s, effect, &b);
	}
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

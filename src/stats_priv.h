/* What stats.c shares with stats_verdict.c. Not for other modules: they use stats.h. */
#ifndef IRT_STATS_PRIV_H
#define IRT_STATS_PRIV_H

#include "stats.h"

/* One bootstrap replicate: fn of n values drawn from v with replacement (into buf). */
double stats_resample(const double *v, int n, double *buf, stats_fn fn, void *ctx, struct rng *r);
/* Sorts the nrep replicates and sets out->lo and out->hi to their central level interval. */
void stats_interval(double *reps, int nrep, double level, struct ci *out);
/* Widens out->lo, out->hi to hold out->est: an interval is printed around its estimate. */
void stats_ci_hold(struct ci *out);

#endif

/* The simulations behind docs/statistics.md (`make bench-stats`): how often irt compare's
 * verdict rules say "better"/"worse" when two cells have the same law (false positives), how
 * often they detect a 1.1x, 1.5x and 2x effect (power) with 3, 5 and 10 runs per cell, the
 * same for sequential sweeps that look after every round (irt sweep --until-decided), and
 * how often --margin 10% finds identical cells equivalent. Synthetic runs with known variance
 * between and within runs (tests/unit/stats_synth.h); deterministic (seeded), so every
 * figure reproduces exactly. Usage: stats_sim [TRIALS [TABLE]] (default 1000 trials per
 * figure; TABLE: aa, power, equiv, seq or all, the default; or, not in all: cover (coverage of the
 * 95 % CIs, false positives and power on bench/stats-trial's heavy-tailed law) and advice (do
 * the "~N more runs" that a withheld verdict asks for decide?)). */
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/unit/stats_synth.h"

static const struct synth regimes[] = {
	{.tau = 0.0, .sigma = 0.5, .samples = 500, .pct = 99},    /* runs differ only by sampling */
	{.tau = 0.1, .sigma = 0.5, .samples = 500, .pct = 99},    /* between ~ within */
	{.tau = 0.3, .sigma = 0.5, .samples = 500, .pct = 99},    /* runs differ a lot */
	{.tau = 0.1, .sigma = 0.5, .samples = 2000, .pct = 50},
};
#define NREGIMES ((int)(sizeof(regimes) / sizeof(regimes[0])))
static const int run_counts[] = {3, 5, 10};
static const double effects[] = {1.1, 1.5, 2.0};

static double rate(int hits, int trials)
{
	return 100.0 * hits / trials;
}

static void regime_name(const struct synth *s, char *buf, size_t len)
{
	snprintf(buf, len, "p%g of %d samples, tau %.1f, sigma %.1f", s->pct, s->samples, s->tau, s->sigma);
}

/* False positives: better or worse between cells of one law. */
static void table_aa(int trials, const struct stats_params *p)
{
	char name[96];
	printf("A/A false positives (better or worse between cells of the same law), %% of trials\n");
	printf("%-40s %8s %8s %8s\n", "regime", "3 runs", "5 runs", "10 runs");
	for (int g = 0; g < NREGIMES; g++) {
		regime_name(&regimes[g], name, sizeof(name));
		printf("%-40s", name);
		for (int k = 0; k < 3; k++) {
			struct rng r;
			rng_seed(&r, 1000 + 10 * (uint64_t)g + (uint64_t)k);
			int fp = 0;
			for (int t = 0; t < trials; t++) {
				enum verdict v = synth_fixed(&r, &regimes[g], 1.0, run_counts[k], p);
				fp += v == VERDICT_BETTER || v == VERDICT_WORSE;
			}
			printf(" %7.1f%%", rate(fp, trials));
		}
		printf("\n");
	}
}

/* Power: a real effect found. */
static void table_power(int trials, const struct stats_params *p)
{
	char name[96];
	printf("\npower: the effect found (\"worse\"), %% of trials\n");
	printf("%-40s %6s %8s %8s %8s\n", "regime", "effect", "3 runs", "5 runs", "10 runs");
	for (int g = 0; g < NREGIMES; g++) {
		regime_name(&regimes[g], name, sizeof(name));
		for (int e = 0; e < 3; e++) {
			printf("%-40s %5.1fx", e == 0 ? name : "", effects[e]);
			for (int k = 0; k < 3; k++) {
				struct rng r;
				rng_seed(&r, 2000 + 100 * (uint64_t)g + 10 * (uint64_t)e + (uint64_t)k);
				int hit = 0;
				for (int t = 0; t < trials; t++)
					hit += synth_fixed(&r, &regimes[g], effects[e], run_counts[k], p) == VERDICT_WORSE;
				printf(" %7.1f%%", rate(hit, trials));
			}
			printf("\n");
		}
	}
}

/* Equivalence within 10 %: identical cells found equivalent. */
static void table_equiv(int trials, const struct stats_params *pm)
{
	char name[96];
	printf("\nequivalence, --margin 10%%: identical cells found \"equivalent\", %% of trials\n");
	printf("%-40s %8s %8s %8s\n", "regime", "3 runs", "5 runs", "10 runs");
	for (int g = 0; g < NREGIMES; g++) {
		regime_name(&regimes[g], name, sizeof(name));
		printf("%-40s", name);
		for (int k = 0; k < 3; k++) {
			struct rng r;
			rng_seed(&r, 3000 + 10 * (uint64_t)g + (uint64_t)k);
			int eq = 0;
			for (int t = 0; t < trials; t++)
				eq += synth_fixed(&r, &regimes[g], 1.0, run_counts[k], pm) == VERDICT_EQUIVALENT;
			printf(" %7.1f%%", rate(eq, trials));
		}
		printf("\n");
	}
}

/* Sequential: looks after every round, alpha spending. */
static void table_seq(int trials, const struct stats_params *pm)
{
	char name[96];
	printf("\nsequential (--until-decided: 3 runs per cell, then a look after every round, at most 10;\n"
	       "--margin 10%%): %% of trials with each outcome, mean runs per cell at the end\n");
	printf("%-40s %6s %8s %8s %8s %8s\n", "regime", "effect", "better", "worse", "equiv", "runs");
	const double seq_effects[] = {1.0, 1.1, 1.5, 2.0};
	for (int g = 0; g < NREGIMES; g++) {
		regime_name(&regimes[g], name, sizeof(name));
		for (int e = 0; e < 4; e++) {
			struct rng r;
			rng_seed(&r, 4000 + 10 * (uint64_t)g + (uint64_t)e);
			int better = 0, worse = 0, equiv = 0;
			long runs = 0;
			for (int t = 0; t < trials; t++) {
				int n;
				enum verdict v = synth_sequential(&r, &regimes[g], seq_effects[e], 3, 10, pm, &n);
				better += v == VERDICT_BETTER;
				worse += v == VERDICT_WORSE;
				equiv += v == VERDICT_EQUIVALENT;
				runs += n;
			}
			printf("%-40s %5.1fx %7.1f%% %7.1f%% %7.1f%% %8.1f\n", e == 0 ? name : "", seq_effects[e],
			       rate(better, trials), rate(worse, trials), rate(equiv, trials), (double)runs / trials);
		}
	}
}

/* 95 % interval of a share k/n (Wilson), in percent. */
static void share_ci(int k, int n, double *lo, double *hi)
{
	double z = 1.959964, p = (double)k / n, d = 1 + z * z / n;
	double c = (p + z * z / (2.0 * n)) / d, h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
	*lo = 100 * (c - h);
	*hi = 100 * (c + h);
}

/* Coverage of the printed 95 % CIs (the baseline's median p99, the ratio) against the truth,
 * with the verdicts of the same comparisons: false positives at 1.0x, power at 1.1x and 1.3x. */
static void table_cover(int trials, const struct stats_params *p)
{
	const int ns[] = {3, 5, 10, 30};
	const double taus[] = {0.1, 0.3}, effs[] = {1.0, 1.1, 1.3};
	printf("coverage of the 95 %% CIs of p99 (bench/stats-trial's law: 2000 samples, 2 %% Pareto tail),\n"
	       "%d trials per row; [95 %% interval of the share]; better/worse: %% of verdicts\n", trials);
	printf("| tau | effect | runs/side | median CI covers | ratio CI covers | better | worse |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (int g = 0; g < 2; g++)
		for (int e = 0; e < 3; e++)
			for (int k = 0; k < 4; k++) {
				struct synth s = synth_trial_law(taus[g]);
				double truth = synth_true_pct(&s), lo, hi, lo2, hi2;
				struct metric m = {"p99", STAT_PERCENTILE, 99, false};
				struct rng r;
				rng_seed(&r, 5000 + 100 * (uint64_t)g + 10 * (uint64_t)e + (uint64_t)k);
				int cm = 0, cr = 0, better = 0, worse = 0, n = ns[k], t;
				int tr = n >= 30 ? trials / 4 : trials;   /* the 30-run rows cost 10x */
				for (t = 0; t < tr; t++) {
					struct synth_cell a, b;
					synth_pair(&r, &s, effs[e], n, n, &a, &b);
					struct side sa = synth_side(&a), sb = synth_side(&b);
					struct ci ci;
					struct comparison c;
					stats_summarize(&m, &sa, p, &ci);
					stats_compare(&m, &sa, &sb, p, &c);
					cm += ci.lo <= truth && truth <= ci.hi;
					cr += c.ratio.lo <= effs[e] && effs[e] <= c.ratio.hi;
					better += c.verdict == VERDICT_BETTER;
					worse += c.verdict == VERDICT_WORSE;
					synth_cell_free(&a);
					synth_cell_free(&b);
				}
				share_ci(cm, tr, &lo, &hi);
				share_ci(cr, tr, &lo2, &hi2);
				printf("| %.1f | %.1fx | %d%s | %.1f %% [%.1f, %.1f] | %.1f %% [%.1f, %.1f] | %.1f %% | %.1f %% |\n",
				       taus[g], effs[e], n, tr < trials ? " *" : "", rate(cm, tr), lo, hi, rate(cr, tr), lo2, hi2,
				       rate(better, tr), rate(worse, tr));
			}
	struct synth law = synth_trial_law(0);
	printf("(* a quarter of the trials; true p99 %.0f ns)\n", synth_true_pct(&law));
}

/* A withheld verdict says "~N more runs per cell would probably decide" (80 %): add N runs to
 * each side from the same laws, compare again, count how often it decides. */
static void table_advice(int trials, const struct stats_params *p)
{
	const int ns[] = {3, 5, 10};
	const double taus[] = {0.1, 0.3}, effs[] = {1.1, 1.3};
	printf("\nadvice: comparisons withheld with \"~N more runs\" (N <= 200), then N more runs per cell,\n"
	       "%d trials per row (bench/stats-trial's law)\n", trials);
	printf("| tau | effect | runs/side | advised | decided after +N | median N |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int g = 0; g < 2; g++)
		for (int e = 0; e < 2; e++)
			for (int k = 0; k < 3; k++) {
				struct synth s = synth_trial_law(taus[g]);
				struct metric m = {"p99", STAT_PERCENTILE, 99, false};
				struct rng r;
				rng_seed(&r, 6000 + 100 * (uint64_t)g + 10 * (uint64_t)e + (uint64_t)k);
				int asked = 0, decided = 0, n = ns[k];
				double *advised = malloc(sizeof(double) * (size_t)trials);
				for (int t = 0; t < trials; t++) {
					struct synth_cell a, b;
					synth_pair(&r, &s, effs[e], n, n + 200, &a, &b);
					struct side sa = synth_side(&a), sb = synth_side(&b);
					struct comparison c;
					stats_compare(&m, &sa, &sb, p, &c);
					int more = c.more_runs;
					if (c.verdict != VERDICT_BETTER && c.verdict != VERDICT_WORSE && more >= 1 && more <= 200 &&
					    strstr(c.why, "would probably decide")) {
						advised[asked++] = more;
						synth_add(&r, &s, effs[e], more, &a, &b);
						sa = synth_side(&a);
						sb = synth_side(&b);
						stats_compare(&m, &sa, &sb, p, &c);
						decided += c.verdict == VERDICT_WORSE;
					}
					synth_cell_free(&a);
					synth_cell_free(&b);
				}
				double lo = 0, hi = 0;
				if (asked)
					share_ci(decided, asked, &lo, &hi);
				printf("| %.1f | %.1fx | %d | %d | %.1f %% [%.1f, %.1f] | %.0f |\n", taus[g], effs[e], n, asked,
				       asked ? rate(decided, asked) : 0.0, lo, hi, asked ? stats_median(advised, asked) : 0.0);
				free(advised);
			}
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 1000;
	const char *table = argc > 2 ? argv[2] : "all";
	bool all = strcmp(table, "all") == 0;
	if (trials < 1 || (!all && strcmp(table, "aa") && strcmp(table, "power") && strcmp(table, "equiv") &&
	                   strcmp(table, "seq") && strcmp(table, "cover") && strcmp(table, "advice"))) {
		fprintf(stderr, "usage: stats_sim [TRIALS [aa|power|equiv|seq|all|cover|advice]]\n");
		return 2;
	}
	struct stats_params p, pm;
	stats_params_default(&p);
	pm = p;
	pm.margin = 0.10;
	setvbuf(stdout, NULL, _IOLBF, 0);   /* tables appear as they are computed */
	clock_t t0 = clock();
	printf("stats_sim: %d trials per figure; default parameters (alpha %.2f, %d resamples, floor %.0f%%)\n\n",
	       trials, p.alpha, p.resamples, 100 * p.floor_reps);
	if (all || strcmp(table, "aa") == 0)
		table_aa(trials, &p);
	if (all || strcmp(table, "power") == 0)
		table_power(trials, &p);
	if (all || strcmp(table, "equiv") == 0)
		table_equiv(trials, &pm);
	if (all || strcmp(table, "seq") == 0)
		table_seq(trials, &pm);
	if (strcmp(table, "cover") == 0)
		table_cover(trials, &p);
	if (strcmp(table, "advice") == 0)
		table_advice(trials, &p);
	printf("\n(%.0f s of CPU)\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
	return 0;
}

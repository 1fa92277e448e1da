/* --expect EXPR: CI gates. An expectation names a metric, a comparison and a value,
 * "wake.p99<=1ms", optionally for one thread or cell only, "audio:resp.max<5ms". Commands
 * check every --expect after writing their results; any unmet one makes the command exit with
 * EXIT_UNMET (4), which `git bisect run` reads as "bad" (docs/fleet.md). */
#ifndef IRT_EXPECT_H
#define IRT_EXPECT_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "opt.h"
#include "result.h"

enum expect_op { EXPECT_LE, EXPECT_LT, EXPECT_GE, EXPECT_GT, EXPECT_EQ, EXPECT_NE };
enum expect_unit { EXPECT_NS, EXPECT_RATIO, EXPECT_COUNT, EXPECT_WORD };

struct expect {
	char text[160];          /* as given, for messages and JUnit test names */
	char subject[64];        /* thread (results) or cell (comparisons); "" = every one */
	char metric[32];         /* "wake.p99", "met", "verdict", "wake.p99.ratio" ... */
	enum expect_op op;
	enum expect_unit unit;
	double value;            /* ns, a fraction (met 99% = 0.99; ratios), or a count */
	char word[32];           /* EXPECT_WORD: the verdict compared with */
};

/* The outcome of one expectation. */
struct expect_outcome {
	bool met;
	bool judged;             /* false: nothing the expectation names was found (counts as unmet) */
	char detail[256];        /* "audio wake.p99 = 3.21ms" (the worst case), or why not judged */
};

/* Parses "[SUBJECT:]METRIC OP VALUE" (OP: <= < >= > == !=; spaces allowed). Metrics:
 * wake.|resp. min p50 p90 p99 p99.9 p99.99 max mean (durations: 1ms, 250us), met (share of
 * deadlines met: 99% or 0.99), overruns, missed, samples (counts); for comparisons also
 * METRIC.ratio (the cell's median / the baseline's) and verdict (== or != better, worse,
 * "no significant difference", "too noisy", "too few samples"); for simulations also share,
 * windows (shares of the duration, of timer windows met), completion, used, spent (durations)
 * and switches (a count). Bad: EXIT_USAGE naming it. */
int expect_parse(const char *s, struct expect *x, struct err *e);
/* Is m one of the simulator's metrics (share, completion, ...), which only irt sim's results hold? */
bool expect_sim_metric(const char *m);

/* One candidate value an expectation is judged on: a thread of a result, a cell of a comparison. */
struct expect_value {
	const char *who;         /* thread or cell name */
	double v;
	const char *word;        /* EXPECT_WORD */
};

/* Judges x over the values (every one must satisfy it); the detail names the worst. */
void expect_judge(const struct expect *x, const struct expect_value *vals, int n, struct expect_outcome *out);

/* Judges x against a result: every probe (or simulated) thread, or the one named. */
void expect_on_result(const struct expect *x, const struct result *r, struct expect_outcome *out);

/* The value of a latency or count metric of one thread; false when x->metric is not one. */
bool expect_thread_value(const struct expect *x, const struct result_thread *t, double *v);

/* Parsed --expect list and --junit file, as the commands that gate take them. */
struct expect_set {
	struct expect *v;
	int n;
	struct expect_outcome *out;
	const char *command;     /* "probe", ... for JUnit */
	char junit[OPT_STRLEN];
};

/* Parses every expression for `command`; probe, run and sim (results, no comparison) refuse
 * verdict and METRIC.ratio, every command but sim the simulator's metrics (EXIT_USAGE). */
int expect_set_parse(struct expect_set *s, const struct strlist *exprs, const char *junit, const char *command,
                     struct err *e);
void expect_set_free(struct expect_set *s);
/* Refuses (EXIT_USAGE) an expectation whose subject is none of the n thread names: a command
 * that knows its threads before it runs (irt sim) names a typo before any work. `in` says
 * whose threads they are (the workload file). */
int expect_set_subjects(const struct expect_set *s, const char *const *names, int n, const char *in, struct err *e);
/* The same from the SCOPE_GATE items of a parsed command line; checks --junit is writable. */
int expect_set_from_args(struct expect_set *s, const struct opt_args *a, const char *command, struct err *e);
/* Judges every expectation against r, prints unmet ones on stderr ("irt: expect: ..."),
 * writes --junit. Returns 0 when all are met, EXIT_UNMET when one is not, -1 with e set when
 * the JUnit file cannot be written. */
int expect_set_result(struct expect_set *s, const struct result *r, struct err *e);
/* After the outcomes are filled in by the caller (comparisons): the same reporting. */
int expect_set_finish(struct expect_set *s, double elapsed_s, struct err *e);

#endif

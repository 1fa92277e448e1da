/* The runs of a sweep and their comparison: what irt sweep writes into compare.json
 * (sweep_decide.c) and what irt compare SWEEPDIR shows (compare.c), computed in one place. */
#ifndef IRT_SWEEP_RUNS_H
#define IRT_SWEEP_RUNS_H

#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "config.h"
#include "err.h"
#include "expect.h"
#include "result.h"
#include "sweep_summary.h"

struct sweep_runs {
	struct result *runs;
	char **paths;
	int *cell_of, *rep_of;   /* the sweep cell (N of cN) and repetition of each run */
	int n, cap;
};

/* Adds a slot for one more run (zeroed; the caller fills runs[n], then n++ and the rest). */
void sweep_runs_grow(struct sweep_runs *rs);
void sweep_runs_free(struct sweep_runs *rs);

/* Reading a sweep's directory: the one rule of irt compare DIR and irt report DIR. Its files
 * may come from anyone and are parsed strictly (docs/hardening.md), so any owner and mode are
 * accepted; but nothing is reached through a symbolic link, '..' does not lead out of it, and
 * only a regular file with one link is read (trust.h, TRUST_READ_ANY), so a link or a FIFO
 * planted in it cannot make root read /etc/shadow or wait forever. */

/* Opens directory dir so: an fd, or -1 with e set (EXIT_USAGE). */
int sweep_dir_open(const char *dir, const char *what, struct err *e);

/* The names in directory fd dfd but . and .., sorted (strcmp: the same order everywhere);
 * 0, or -1 with errno. */
int sweep_dir_list(int dfd, struct strlist *names);

/* Opens rel inside directory fd dfd so ("extra.json", "c0/r1.json"), for reading; shown names
 * it in messages. NULL with e set (EXIT_USAGE for what is missing or refused). */
FILE *sweep_dir_fopen(int dfd, const char *rel, const char *shown, struct err *e);

/* A result file rel inside dfd, opened by sweep_dir_fopen and read (result_read_stream). */
int sweep_dir_read_result(struct result *r, int dfd, const char *rel, const char *shown, struct err *e);

/* Reads sweep.json in dfd (dir names it in messages: "DIR/sweep.json") into sum and the runs its
 * cells list into rs, each opened by sweep_dir_fopen. Returns 0, 1 when there is no sweep.json
 * (nothing read), or -1 with e set. rs and sum are the caller's to free in any case. */
int sweep_runs_read_at(struct sweep_runs *rs, int dfd, const char *dir, struct sweep_summary *sum, struct err *e);

/* irt compare DIR (dfd, opened by sweep_dir_open): sweep_runs_read_at; no sweep.json, or no
 * runs, is an error. Returns 0, or -1 with e set (EXIT_USAGE). */
int sweep_runs_read_dir(struct sweep_runs *rs, int dfd, const char *dir, struct sweep_summary *sum, struct err *e);

/* The comparison of the runs (compare_results) and the --expect outcomes in gate (NULL: none),
 * a cell named as compare names it or as the sweep does (c0, c1 ...). */
int sweep_runs_compare(const struct sweep_runs *rs, const struct report_cfg *cfg, uint64_t seed,
                       struct expect_set *gate, struct compare *c, struct err *e);

#endif

/* irt compare: group saved results into cells (identical settings = repetitions of one cell),
 * summarise every metric per cell, compare each cell with the baseline, recommend. */
#ifndef IRT_COMPARE_H
#define IRT_COMPARE_H

#include <stdio.h>

#include "config.h"
#include "err.h"
#include "result.h"

/* `irt compare FILE...` */
int cmd_compare(int argc, char **argv);

/* The comparison of n results already read (paths[i] names runs[i]). Prints the table to out
 * (NULL: nothing); writes the comparison as JSON to g->json and its rows as CSV to g->csv
 * (each "" = none, "-" = stdout); bootstraps with g->seed. Returns 0, or -1 with e set (bad
 * --baseline: EXIT_USAGE; unwritable output: EXIT_RUNTIME). */
int compare_results(const struct result *runs, const char *const *paths, int n,
                    const struct report_cfg *cfg, const struct global_cfg *g, FILE *out,
                    struct err *e);

/* Result settings that differ between repetitions of one cell and so never split cells. */
bool compare_ignored_setting(const char *key);

#endif

/* The runs of a sweep and their comparison: what irt sweep writes into compare.json
 * (sweep_decide.c) and what irt compare SWEEPDIR shows (compare.c), computed in one place. */
#ifndef IRT_SWEEP_RUNS_H
#define IRT_SWEEP_RUNS_H

#include <stdint.h>

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

/* irt compare DIR: reads DIR/sweep.json (into sum) and the runs its cells list, DIR/cN/rM.json,
 * each opened as trust.h says (no symbolic link followed, owned by the effective user or root,
 * writable by no one else: --resume's rule). Returns 0, or -1 with e set (EXIT_USAGE). */
int sweep_runs_read_dir(struct sweep_runs *rs, const char *dir, struct sweep_summary *sum, struct err *e);

/* The comparison of the runs (compare_results) and the --expect outcomes in gate (NULL: none),
 * a cell named as compare names it or as the sweep does (c0, c1 ...). */
int sweep_runs_compare(const struct sweep_runs *rs, const struct report_cfg *cfg, uint64_t seed,
                       struct expect_set *gate, struct compare *c, struct err *e);

#endif

/* What irt sweep's two parts share: sweep.c (the plan, the runs, the command) and
 * sweep_decide.c (comparison, summary, --until-decided). Not for other modules. */
#ifndef IRT_SWEEP_PRIV_H
#define IRT_SWEEP_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "expect.h"
#include "jobfile.h"
#include "linux/knob.h"
#include "opt.h"

#define MAX_VALUES 64

/* One varied key: a system or cgroup knob (applied per run), or an option (thread knobs
 * like policy and slice are probe options too) added to every probe definition. */
struct dim {
	char key[64];
	const struct knob *knob;   /* KNOB_SYSTEM / KNOB_CGROUP, else NULL */
	const struct opt *opt;     /* the option, when not a knob */
	char *values[MAX_VALUES];
	int nvalues;
	bool constant;             /* --apply: the same value in every cell, not a dimension */
};

struct plan {
	struct dim *dims;
	int ndims;
	int ncells, repeat;
	int (*order)[2];           /* (cell, repetition) in execution order */
	int nruns;
	uint64_t seed;
};

struct sweep {
	struct plan plan;
	struct opt_args all;        /* job + CLI items */
	struct job job;
	struct global_cfg g;
	struct sweep_cfg sc;
	struct report_cfg rep;
	struct knob_cfg kcfg;
	struct knob_ctx kc;
	bool has_cgroup_knobs;
	bool plan_only;                         /* sweep_check_plan: nothing about this machine */
	char self_procs[2 * CG_PATHLEN + 32];   /* irt's own cgroup, to return to and keep loads in */
	char *cmdline;                          /* the sweep's, for every run's record */
	char *job_text;                         /* the job file as first read; plan.json keeps it for --resume */
	/* --until-decided: per cell the verdict of the look that decided it (-1: undecided),
	 * the runs per cell then, and why the sweep stopped */
	int *decided, *decided_at;
	char (*why)[240];                       /* per cell, the last look's verdict and reason */
	double last_alpha;
	char stopped[160];
};

/* The value of dimension d in cell; "slice=1ms policy=fifo", what makes the cell. */
const char *sweep_cell_value(const struct plan *p, int cell, int d);
void sweep_cell_label(const struct plan *p, int cell, char *buf, size_t len);
/* DIR/cN/rM.json */
void sweep_run_path(const char *dir, int cell, int rep, char *buf, size_t len);
/* Writes root to path atomically, as the sweep's JSON files are written. */
int sweep_write_json(json_t *root, const char *path, struct err *e);
/* Runs (cell, rep) and saves its result. Returns 1 when interrupted, -1 on failure. */
int sweep_run_cell(struct sweep *sw, int cell, int rep, const char *dir, struct err *e);

/* sweep_decide.c: compares the runs of repetitions below reps, prints, checks --expect
 * (gate), writes compare.json and sweep.json. */
int sweep_summarize(struct sweep *sw, const char *dir, int reps, struct expect_set *gate, struct err *e);
/* --until-decided: rounds and looks until every cell is decided or the budget is spent;
 * returns the repetitions per cell, or -1. */
int sweep_until_decided(struct sweep *sw, const char *dir, int64_t t_start, bool *interrupted, struct err *e);
void sweep_print_decisions(const struct sweep *sw);

#endif

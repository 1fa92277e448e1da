/* One run: probe threads together with background loads, from parsed options to a complete
 * result record. `irt run` is one of these; `irt sweep` and the default check run many. A run
 * with a watch selection (--pid, --comm, --cgroup) measures those threads of real applications
 * instead of probes (watch.h): `irt watch`, and sweeps of a watch. */
#ifndef IRT_RUN_H
#define IRT_RUN_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "jobfile.h"
#include "linux/acct.h"
#include "linux/cgroup.h"
#include "linux/load.h"
#include "opt.h"
#include "result.h"

struct watch;

struct run {
	struct global_cfg g;
	struct run_cfg rc;
	struct explain_cfg xc;     /* --explain */
	struct watch_cfg wc;       /* --pid, --comm, --cgroup, --watch-for */
	bool watching;             /* a watch selection: no probes, the watched threads */
	struct watch *watch;       /* while watching */
	char watch_empty[400];     /* why no watched thread was recorded (watch_finish) */
	struct probe_cfg *cfgs;
	int ncfgs;
	bool mlock;
	bool quiet_status;         /* no live status line (a sweep draws its own) */
	struct load_spec *specs;   /* loads to start; callers may still set placement on them */
	struct load *loads;
	int nloads, started;
	struct cg_hier hier;
	struct cgroup cg_probe, cg_load;
	bool have_cg_probe, have_cg_load;
	/* the measuring window */
	struct acct_snap a, b;
	struct acct_sys sa, sb;
	struct load_counters *ca, *cb;
	bool have_a, have_b;
	int64_t pm_qos_us;         /* --pm-qos: hold PM QoS at this for the run; -1 = no hold */
};

/* job_text (when not NULL): the job file's text to parse, or, when *job_text is NULL, set to
 * the text read from the file (the caller frees it).
 * The command line (argv[0] the command word, at most one positional JOB.ini) and the job
 * file it names, merged into `all`: the job first, then the CLI, so CLI options win and CLI
 * --name definitions are added. all->items must be freed; cli and job with their functions. */
int run_collect_args(int argc, char **argv, unsigned scopes, const char *cmd, struct opt_args *cli, struct job *job,
                     char **job_text, struct opt_args *all, struct err *e);
/* Globals, run options, probe definitions (or a watch selection) and load specs from `all`
 * (+ the job's loads). Probe options together with a watch selection are refused. */
int run_configure(struct run *run, const struct opt_args *all, const struct job *job, struct err *e);
/* Places, starts the loads, runs the probes or watches the threads for --watch-for (stop
 * signals must be blocked: sig_block_stop), stops the loads and fills r. A failure while running (a probe's guard, a load killed from
 * outside) goes to run_err and what was measured stays in r; -1 only when nothing ran. */
int run_execute(struct run *run, struct result *r, bool *interrupted, struct err *run_err, struct err *e);
/* After an interrupted run's results are out: the stderr line saying how far it got */
void run_say_interrupted(const struct run *run, const struct result *r);
void run_free(struct run *run);

/* Real-time (fifo/rr) probes (loads false) or loads in this run? */
bool run_has_rt(const struct run *run, bool loads);
/* With RT group scheduling (cgroup v1 cpu.rt_runtime_us) a new cgroup may run no real-time
 * task at all: grants cg `share` us of RT runtime per period. No-op elsewhere. */
int run_grant_rt_budget(const struct cgroup *cg, const char *share, struct err *e);

#endif

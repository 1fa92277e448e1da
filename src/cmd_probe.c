/* irt probe: periodic wake-ups to absolute deadlines, alone (the seed's experiment). */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "expect.h"
#include "linux/conditions.h"
#include "linux/env.h"
#include "linux/probe.h"
#include "linux/signals.h"
#include "linux/trace.h"
#include "probe_cfg.h"
#include "units.h"

int probe_cfgs_from_args(const struct opt_args *a, struct probe_cfg **cfgs, int *n, bool *mlock, struct err *e)
{
	if (probe_cfgs_build(a, cfgs, n, e))
		return -1;
	*mlock = true;
	for (int i = 0; i < *n; i++) {
		if (probe_cfg_finish(&(*cfgs)[i], e)) {
			free(*cfgs);
			*cfgs = NULL;
			return -1;
		}
		if ((*cfgs)[i].no_mlock)
			*mlock = false;
	}
	if (probe_check_memory(*cfgs, *n, e)) {
		free(*cfgs);
		*cfgs = NULL;
		return -1;
	}
	return 0;
}

/* One stderr line before measuring when the probes measure for different times: a -D after a
 * --name is that probe's own (options before the first --name apply to all), which surprises
 * whoever meant it for the run (docs/probe.md, "How long"). */
void probe_cfgs_note_times(const struct probe_cfg *cfgs, int n)
{
	char times[1024];
	if (probe_cfgs_times(cfgs, n, times, sizeof(times)))
		fprintf(stderr, "irt: note: the probes measure for different times: %s (a --duration after a --name, "
		        "or in a [probe] section, is that probe's own; for one duration for all, give -D before the first "
		        "--name or duration in [global])\n", times);
}

/* Runs the probe session to its end or to a stop signal; draws the live status line. */
int probe_run_session(struct probe_session *s, const struct global_cfg *g, bool *interrupted)
{
	bool live = cli_live_status(g);
	int64_t tick = live ? 250 * 1000000LL : 100 * 1000000LL;
	while (!probe_done(s)) {
		if (sig_wait_stop(tick)) {
			*interrupted = true;
			probe_stop(s);
		}
		if (live) {
			char line[512];
			probe_status(s, line, sizeof(line));
			cli_status_line(line);
		}
		if (*interrupted)
			probe_stop(s);   /* again: a thread may have been between check and sleep */
	}
	if (live)
		cli_status_line(NULL);
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct err e = {0};
	struct opt_args a;
	struct global_cfg g;
	struct probe_cfg *cfgs = NULL;
	int ncfgs = 0, rc = EXIT_OK;
	bool mlock, interrupted = false;
	struct result r = {0};
	struct expect_set gate = {0};
	int64_t pm_qos;

	struct explain_cfg xc;
	opt_defaults(SCOPE_EXPLAIN, &xc);
	if (opt_parse(argc, argv, SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_COND | SCOPE_GATE | SCOPE_EXPLAIN, &a, &e) ||
	    cli_no_extra_args(&a, 0, "probe", &e) || cli_explain(&a, &xc, &e) || cli_globals(&a, &g, &e) ||
	    cli_check_outputs(&g, &e) || conditions_pm_qos_arg(&a, &pm_qos, &e) ||
	    expect_set_from_args(&gate, &a, "probe", &e) ||
	    probe_cfgs_from_args(&a, &cfgs, &ncfgs, &mlock, &e)) {
		opt_args_free(&a);
		expect_set_free(&gate);
		return err_print(&e);
	}
	opt_args_free(&a);
	probe_cfgs_note_times(cfgs, ncfgs);

	if (result_init(&r, "probe", probe_thread_count(cfgs, ncfgs), &e))
		goto out;
	r.cmdline = cli_cmdline(argc, argv);
	env_capture(&r.env);
	char seed[32];
	snprintf(seed, sizeof(seed), "%lld", (long long)g.seed);
	kvlist_set(&r.settings, "seed", seed);

	if (conditions_hold(pm_qos, &r, &e))
		goto out;
	sig_block_stop();
	struct conditions cond;
	char cpus[256];
	conditions_probe_cpus(cfgs, ncfgs, cpus, sizeof(cpus));
	conditions_begin(&cond, cpus);
	struct probe_opts po = {.mlock = mlock, .seed = (uint64_t)g.seed};
	struct explain_run xr;
	explain_begin(&xr, &xc, &po.attribute, &r);
	po.trace = xr.t;
	struct probe_session *s;
	if (probe_start(&s, cfgs, ncfgs, &po, &r, &e)) {
		explain_abort(&xr);
		conditions_end(&cond, &r);
		goto out;
	}
	probe_run_session(s, &g, &interrupted);
	struct err run_err = {0};
	explain_collect(&xr, s, &run_err);
	if (probe_finish(s, &r, &run_err))
		err_print(&run_err);   /* what was measured is still printed and saved */
	explain_finish(&xr, &r);
	conditions_end(&cond, &r);
	r.interrupted = interrupted;
	if (cli_output(&r, &g, &e))
		goto out;
	if (interrupted) {
		char done_s[32], of_s[32];
		cli_interrupted(units_human_duration(done_s, sizeof(done_s), r.duration_ns),
		                units_human_duration(of_s, sizeof(of_s), probe_cfgs_planned_ns(cfgs, ncfgs)),
		                cli_saves(&g));
	}
	rc = interrupted ? EXIT_INTERRUPTED : run_err.code ? run_err.code : EXIT_OK;
	int gated = expect_set_result(&gate, &r, &e);
	if (rc == EXIT_OK && gated > 0)
		rc = gated;
	if (rc == EXIT_OK && result_stopper(&r))   /* --stop-above: a crossing is "bad" as an unmet --expect */
		rc = EXIT_UNMET;
out:
	if (e.code)
		rc = err_print(&e);
	pmqos_release();
	result_free(&r);
	expect_set_free(&gate);
	free(cfgs);
	return rc;
}

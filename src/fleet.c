/* irt fleet: the same experiment on many machines through the engines fleets already run,
 * Slurm (a job array) and GNU parallel (--sshlogin lists). irt writes the script, submits or
 * runs it, and leaves scheduling to them; results land in DIR/<machine>/ and `irt compare DIR`
 * / `irt report DIR` merge them (compare_fleet.c). */
#include "fleet.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "expect.h"
#include "jobfile.h"
#include "linux/signals.h"
#include "opt.h"
#include "probe_cfg.h"
#include "run.h"
#include "sim/sim.h"
#include "sweep.h"
#include "sweep_runs.h"
#include "trust.h"
#include "util.h"

extern char **environ;

int shard_parse(const char *s, const char *where, int *index, int *count, struct err *e)
{
	*index = 0;
	*count = 1;
	if (!s || !s[0])
		return 0;
	char *end;
	errno = 0;
	long i = strtol(s, &end, 10);
	long n = 0;
	if (end != s && *end == '/' && end[1] >= '0' && end[1] <= '9') {
		const char *ns = end + 1;
		n = strtol(ns, &end, 10);
	}
	if (errno || *end || n < 1 || n > 100000 || i < 1 || i > n || s[0] < '0' || s[0] > '9')
		return err_set(e, EXIT_USAGE, "%s: '%s' is not a shard (expected I/N with 1 <= I <= N <= 100000, e.g. 2/8)", where, s);
	*index = (int)i - 1;
	*count = (int)n;
	return 0;
}

/* ---- the script ---- */

/* a POSIX sh word that stands for s exactly: '...' with every ' as '\'' */
static void sq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* --junit and --csv name one file, which every task would write (over the others', on a
 * shared file system): the extension of a task's own file, or NULL for other arguments. */
static const char *task_file_ext(const char *arg)
{
	if (strcmp(arg, "--junit") == 0 || strncmp(arg, "--junit=", 8) == 0)
		return "xml";
	if (strcmp(arg, "--csv") == 0 || strncmp(arg, "--csv=", 6) == 0)
		return "csv";
	return NULL;
}

/* The command one task runs, as sh text; `task` is the sh expression of the 1-based shard
 * number (sim) and `tag` the sh text naming this task's files. */
static void task_command(FILE *f, const struct fleet_job *j, const char *shard, const char *tag)
{
	if (j->backend == FLEET_PARALLEL)
		fputs("exec ", f);   /* parallel's joblog keeps every task's own status */
	sq(f, j->irt);
	fprintf(f, " %s", j->command);
	for (int i = 0; i < j->nargs; i++) {
		const char *ext = task_file_ext(j->args[i]);
		if (!ext) {
			fputc(' ', f);
			sq(f, j->args[i]);
			continue;
		}
		/* each task's next to its result; the FILE given is not used */
		fprintf(f, " %s ", strcmp(ext, "xml") ? "--csv" : "--junit");
		if (strcmp(j->command, "sim") == 0)
			fprintf(f, "\"$dir/sim-shard%s.%s\"", shard, ext);
		else
			fprintf(f, "\"$dir/$machine/%s-%s.%s\"", j->command, tag, ext);
		i += !strchr(j->args[i], '=');   /* the FILE of --junit FILE */
	}
	if (strcmp(j->command, "sim") == 0)
		fprintf(f, " --shard \"%s/%lld\" --json \"$dir/sim.json\"", shard, (long long)j->cfg->tasks);
	else if (strcmp(j->command, "sweep") == 0)
		fprintf(f, " --dir \"$dir/$machine/sweep-%s\"", tag);
	else
		fprintf(f, " --json \"$dir/$machine/%s-%s.json\"", j->command, tag);
	/* sbatch --wait exits with the array's highest task status: irt's 1-3 (failed, bad usage,
	 * interrupted) go above 4 (an --expect unmet), so 4 means every failing task only missed
	 * a gate, and CI (git bisect run) reads a fleet's 4 as a node's */
	if (j->backend == FLEET_SLURM)
		fputs(" || { rc=$?; [ \"$rc\" -ge 4 ] || rc=$((rc + 100)); exit \"$rc\"; }", f);
}

static void slurm_script(FILE *f, const struct fleet_job *j)
{
	const struct fleet_cfg *c = j->cfg;
	bool sim = strcmp(j->command, "sim") == 0;
	fprintf(f, "#!/bin/sh\n# Written by irt fleet slurm (irt %s), run %s. Submit with: sbatch FILE\n", IRT_VERSION_STRING,
	        j->run_id);
	if (sim)
		fprintf(f, "# Array task i simulates shard i+1 of %lld of the workload's cells into DIR/sim-cellNNN.json.\n",
		        (long long)c->tasks);
	else
		fprintf(f, "# Every array task runs the whole irt %s on a node of its own, allocated exclusively (a shared\n"
		           "# node measures its neighbours: docs/fleet.md), into DIR/<machine>/.\n", j->command);
	fprintf(f, "#SBATCH --job-name=irt-%s\n", j->command);
	fprintf(f, "#SBATCH --array=0-%lld\n", (long long)c->tasks - 1);
	fprintf(f, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
	if (!sim)
		fprintf(f, "#SBATCH --exclusive\n");
	fprintf(f, "#SBATCH --output=%s/slurm-%%A_%%a.out\n", j->dir);
	if (c->partition[0])
		fprintf(f, "#SBATCH --partition=%s\n", c->partition);
	if (c->constraint[0])
		fprintf(f, "#SBATCH --constraint=%s\n", c->constraint);
	if (j->exclude && j->exclude[0])
		fprintf(f, "#SBATCH --exclude=%s\n", j->exclude);   /* the nodes outside --nodelist */
	for (int i = 0; i < c->slurm_args.n; i++)
		fprintf(f, "#SBATCH %s\n", c->slurm_args.v[i]);
	fprintf(f, "set -eu\ndir=");
	sq(f, j->dir);
	fprintf(f, "\nmachine=$(uname -n)\n");
	if (!sim)
		fprintf(f, "mkdir -p -- \"$dir/$machine\"\n");
	task_command(f, j, "$((SLURM_ARRAY_TASK_ID + 1))", "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}");
	fputc('\n', f);
}

static void parallel_script(FILE *f, const struct fleet_job *j)
{
	const struct fleet_cfg *c = j->cfg;
	bool sim = strcmp(j->command, "sim") == 0;
	fprintf(f, "#!/bin/sh\n# Written by irt fleet parallel (irt %s), run %s. Run with: sh FILE\n", IRT_VERSION_STRING,
	        j->run_id);
	if (sim)
		fprintf(f, "# GNU parallel hands the %lld shards of the workload's cells to the hosts, one at a time each.\n",
		        (long long)c->tasks);
	else
		fprintf(f, "# GNU parallel runs the whole irt %s once on every host (--nonall), one irt per host; nothing\n"
		           "# else may run there while it measures (docs/fleet.md). Results: DIR/<machine>/ (a shared\n"
		           "# file system, as for Slurm).\n", j->command);
	/* the per-host command: its own little sh program, quoted as one word for parallel */
	char *body = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&body, &len);
	if (!m)
		xoom("a memory stream");
	fputs("dir=", m);
	sq(m, j->dir);
	fputs("; machine=$(uname -n); ", m);
	if (!sim)
		fputs("mkdir -p -- \"$dir/$machine\" && ", m);
	char tag[96];
	snprintf(tag, sizeof(tag), "%s-$$", j->run_id);
	task_command(m, j, "{}", tag);
	fclose(m);
	fputs("set -eu\nexec parallel --halt never --tag --joblog ", f);
	char log[PATH_MAX + 64];
	snprintf(log, sizeof(log), "%s/fleet-%s-%s.joblog", j->dir, j->command, j->run_id);
	sq(f, log);
	if (sim)
		fputs(" --jobs 1", f);   /* per host: shards one after another on each */
	else
		fputs(" --nonall", f);
	for (int i = 0; i < c->sshlogin.n; i++) {
		fputs(" --sshlogin ", f);
		sq(f, c->sshlogin.v[i]);
	}
	fputs(" \\\n  ", f);
	sq(f, body);
	if (sim) {
		fputs(" \\\n  :::", f);
		for (long long i = 1; i <= c->tasks; i++)
			fprintf(f, " %lld", i);
	}
	fputc('\n', f);
	free(body);
}

void fleet_script(FILE *f, const struct fleet_job *j)
{
	if (j->backend == FLEET_SLURM)
		slurm_script(f, j);
	else
		parallel_script(f, j);
}

/* ---- running the engines ---- */

/* Runs argv with stdout into out (if not NULL, up to len) and returns its exit status, or -1
 * when it could not be started (errno), -2 when root may not run it (e set: trust_program). */
static int spawn(char *const argv[], char *out, size_t len, struct err *e)
{
	char prog[PATH_MAX];
	if (out)
		out[0] = 0;
	/* by the path trust_program checked, not execvp's own PATH walk (sudo -E keeps a user's) */
	if (trust_program(argv[0], prog, sizeof(prog), e))
		return e->code == EXIT_USAGE ? (err_prefix(e, "fleet"), -2) : (err_clear(e), errno = ENOENT, -1);
	/* what it runs in turn by PATH (sh: parallel, uname; sbatch's job) is root's too */
	trust_path_env();
	int pfd[2] = {-1, -1};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (out) {
		if (pipe2(pfd, O_CLOEXEC))
			return -1;
		posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	}
	posix_spawnattr_t at;   /* irt ignores SIGPIPE (main.c); the engines get the default back */
	sigset_t pipe_sig;
	posix_spawnattr_init(&at);
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &pipe_sig);
	sigset_t none;   /* irt fleet blocks the stop signals while it waits; the engines take them */
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	pid_t pid;
	int rc = posix_spawn(&pid, prog, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (out) {
		close(pfd[1]);
		size_t n = 0;
		ssize_t got;
		while (rc == 0 && (got = read(pfd[0], out + n, len - 1 - n)) > 0 && n + (size_t)got < len - 1)
			n += (size_t)got;
		out[n] = 0;
		close(pfd[0]);
	}
	if (rc) {
		errno = rc;
		return -1;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Lines of text as a NULL-terminated vector pointing into text (which is modified). */
static int split_lines(char *text, char **v, int max)
{
	int n = 0;
	for (char *save = NULL, *t = strtok_r(text, "\n", &save); t && n < max; t = strtok_r(NULL, "\n", &save))
		v[n++] = t;
	return n;
}

/* --nodelist for an array: Slurm would give every task all listed nodes, so the tasks are
 * kept on them by excluding the partition's other nodes instead (sinfo lists them). */
static int nodes_outside(const struct fleet_cfg *c, char *out, size_t len, int *nlisted, struct err *e)
{
	static char listed[65536], all[65536];
	static char *lv[4096], *av[4096];
	char *hn[] = {"scontrol", "show", "hostnames", (char *)c->nodelist, NULL};
	int st = spawn(hn, listed, sizeof(listed), e);
	if (st == -2)
		return -1;
	if (st != 0)
		return err_set(e, EXIT_RUNTIME, "--nodelist: 'scontrol show hostnames' failed (is Slurm's client installed and "
		               "configured here?)");
	char part[OPT_STRLEN + 4];
	snprintf(part, sizeof(part), "-p%s", c->partition);
	char *si[] = {"sinfo", "-h", "-N", "-o", "%N", c->partition[0] ? part : NULL, NULL};
	st = spawn(si, all, sizeof(all), e);
	if (st == -2)
		return -1;
	if (st != 0)
		return err_set(e, EXIT_RUNTIME, "--nodelist: sinfo failed (is slurmctld reachable?)");
	int nl = split_lines(listed, lv, 4096), na = split_lines(all, av, 4096);
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < na; i++) {
		bool skip = false;
		for (int k = 0; k < nl && !skip; k++)
			skip = strcmp(lv[k], av[i]) == 0;
		for (int k = 0; k < i && !skip; k++)   /* sinfo -N lists a node once per partition */
			skip = strcmp(av[k], av[i]) == 0;
		if (!skip)
			n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "," : "", av[i]);
	}
	if (n >= len)
		return err_set(e, EXIT_USAGE, "--nodelist: too many other nodes to exclude (use --partition or --constraint)");
	*nlisted = nl;
	return 0;
}

/* ---- the command ---- */

/* GNU parallel's exit status counts failed tasks; its --joblog (DIR/NAME) has each task's own:
 * the tasks that failed (*failed), and those of them whose irt exited 4 (*unmet: an --expect
 * not met). -1 when it cannot be read. */
static int joblog_statuses(const char *dir, const char *name, int *failed, int *unmet)
{
	struct err e = {0};
	*failed = *unmet = 0;
	int dfd = trust_open_dir(dir, "DIR", TRUST_READ_ANY, &e);
	int fd = dfd < 0 ? -1 : trust_openat(dfd, name, name, O_RDONLY, TRUST_READ_ANY, &e);
	if (dfd >= 0)
		close(dfd);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	bool header = true;
	while (getline(&line, &cap, f) > 0) {
		/* Seq Host Starttime JobRuntime Send Receive Exitval Signal Command, tab-separated */
		char *field = line;
		long v[8] = {0};
		for (int k = 0; k < 8 && field; k++) {
			v[k] = strtol(field, NULL, 10);
			field = strchr(field, '\t');
			field = field ? field + 1 : NULL;
		}
		if (header) {
			header = false;
			continue;
		}
		if (v[6] || v[7]) {
			(*failed)++;
			*unmet += v[6] == EXIT_UNMET && !v[7];
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* "probe-ID" SEP: the start of the names of a run's results (task_command's tag) */
static const char *prefix(char *buf, size_t len, const char *command, const char *id, const char *sep)
{
	snprintf(buf, len, "%s-%s%s", command, id, sep);
	return buf;
}

/* --stop-above: how many of this run's saved results, DIR/<machine>/PREFIX*.json ("probe-ID-" or
 * "probe-JOBID_"), a wake-up ended; their tasks exited 4 with no --expect unmet. Files that
 * cannot be read are passed over: only the message depends on them. */
static int stopped_results(const char *dir, const char *prefix)
{
	struct err e = {0};
	int dfd = trust_open_dir(dir, "DIR", TRUST_READ_ANY, &e), n = 0;
	struct strlist machines = {0};
	if (dfd < 0 || sweep_dir_list(dfd, &machines))
		machines.n = 0;
	for (int i = 0; i < machines.n; i++) {
		struct strlist names = {0};
		int m = machines.v[i][0] == '.' ? -1 : openat(dfd, machines.v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (m < 0 || sweep_dir_list(m, &names))
			names.n = 0;
		for (int k = 0; k < names.n; k++) {
			size_t l = strlen(names.v[k]);
			if (strncmp(names.v[k], prefix, strlen(prefix)) || l < 5 || strcmp(names.v[k] + l - 5, ".json"))
				continue;
			struct result r = {0};
			char shown[PATH_MAX];
			snprintf(shown, sizeof(shown), "%s/%s/%s", dir, machines.v[i], names.v[k]);
			err_clear(&e);
			if (sweep_dir_read_result(&r, m, names.v[k], shown, &e) == 0)
				n += result_stopper(&r) != NULL;
			result_free(&r);
		}
		strlist_free(&names);
		if (m >= 0)
			close(m);
	}
	strlist_free(&machines);
	if (dfd >= 0)
		close(dfd);
	return n;
}

static bool has_text(const char *s, const char *bad)
{
	return strpbrk(s, bad) != NULL;
}

static int check_args(const struct fleet_job *j, struct err *e)
{
	static const char *const fixed[] = {"--json", "-o", "--dir", "-d", "--resume", "--shard", NULL};
	for (int i = 0; i < j->nargs; i++)
		for (int k = 0; fixed[k]; k++) {
			size_t l = strlen(fixed[k]);
			if (strncmp(j->args[i], fixed[k], l) == 0 && (j->args[i][l] == 0 || j->args[i][l] == '=' || l == 2))
				return err_set(e, EXIT_USAGE, "fleet: %s: irt fleet chooses where results go (DIR/<machine>/) and "
				               "the shards; leave it out", fixed[k]);
		}
	const struct fleet_cfg *c = j->cfg;
	const char *vals[] = {c->partition, c->constraint, c->nodelist};
	for (int i = 0; i < 3; i++)
		if (has_text(vals[i], "\n\r"))
			return err_set(e, EXIT_USAGE, "fleet: a Slurm option holds a line break");
	for (int i = 0; i < c->slurm_args.n; i++)
		if (has_text(c->slurm_args.v[i], "\n\r") || c->slurm_args.v[i][0] != '-')
			return err_set(e, EXIT_USAGE, "--slurm-arg: '%s' is not one sbatch option (expected e.g. --time=2:00:00)",
			               c->slurm_args.v[i]);
	if (has_text(j->dir, "\n\r%"))
		return err_set(e, EXIT_USAGE, "fleet: DIR '%s' holds a line break or %% (Slurm reads %% in paths)", j->dir);
	return 0;
}

/* A sim task as the nodes will read it (sim_setup: its options against the workload's keys,
 * every cell), and one shard of the workload's cells per task. */
static int check_sim(int argc, char **argv, int64_t tasks, struct err *e)
{
	struct sim_setup s;
	int rc = sim_setup(argc, argv, &s, e);
	if (!rc && s.step)
		rc = err_set(e, EXIT_USAGE, "fleet: sim --step runs a step script here, not on a fleet (irt sim --step FILE)");
	else if (!rc && tasks > workload_cells(&s.w))
		rc = err_set(e, EXIT_USAGE, "--tasks: %lld shards, but the workload has only %ld cell%s (at most one task per "
		             "cell)", (long long)tasks, workload_cells(&s.w), workload_cells(&s.w) == 1 ? "" : "s");
	sim_setup_free(&s);
	return rc;
}

static int make_dir(const char *dir, char *abs, size_t len, struct err *e)
{
	int fd = trust_open_dir(dir, "irt fleet DIR", TRUST_CREATE, e);
	if (fd < 0)
		return -1;
	close(fd);
	char buf[PATH_MAX];
	if (!realpath(dir, buf))
		return err_set(e, EXIT_RUNTIME, "fleet: %s: %s", dir, strerror(errno));
	if (strlen(buf) >= len)
		return err_set(e, EXIT_USAGE, "fleet: %s: path too long", dir);
	snprintf(abs, len, "%s", buf);
	return 0;
}

static int usage(struct err *e, const char *what)
{
	return err_set(e, EXIT_USAGE, "fleet: %s (usage: irt fleet slurm|parallel DIR [OPTIONS] -- probe|run|sweep|sim "
	               "ARGS...)", what);
}

/* The command's --expect, as it will parse them on every node (probe and run refuse a verdict:
 * a node's result is no comparison; irt compare DIR compares the nodes). */
static int check_expect(int argc, char **argv, struct err *e)
{
	struct opt_args a;
	struct strlist exprs = {0};
	struct expect_set s;
	if (opt_parse(argc, argv, opt_find_command(argv[0])->scopes, &a, e))
		return -1;
	for (int i = 0; i < a.n; i++)
		if (strcmp(a.items[i].opt->name, "expect") == 0)
			strlist_add(&exprs, a.items[i].value);
	int rc = expect_set_parse(&s, &exprs, NULL, argv[0], e);
	expect_set_free(&s);
	strlist_free(&exprs);
	opt_args_free(&a);
	return rc;
}

/* The probe definitions a probe or run task builds, checked as it checks them
 * (probe_cfg_finish: --nice beside --policy fifo, --slice beside deadline, ...), which
 * opt_check_command, taking each value alone, lets through; a run's job file is read here as
 * on the nodes. A sweep's plan and cells: sweep_check_plan. */
static int check_probes(int argc, char **argv, struct err *e)
{
	struct opt_args cli = {0}, all = {0};
	struct job job = {0};
	unsigned scopes = opt_find_command(argv[0])->scopes;
	bool probe = strcmp(argv[0], "probe") == 0;   /* no job file: its options are all */
	int rc = probe ? opt_parse(argc, argv, scopes, &cli, e) || cli_no_extra_args(&cli, 0, "probe", e)
	               : run_collect_args(argc, argv, scopes, argv[0], &cli, &job, NULL, &all, e);
	if (!rc)
		rc = probe_cfgs_check(probe ? &cli : &all, e);
	free(all.items);
	opt_args_free(&cli);
	jobfile_free(&job);
	return rc;
}

int cmd_fleet(int argc, char **argv)
{
	struct err e = {0};
	struct fleet_cfg cfg;
	struct opt_args a = {0};
	memset(&cfg, 0, sizeof(cfg));
	opt_defaults(SCOPE_FLEET, &cfg);
	int dash = 1;
	while (dash < argc && strcmp(argv[dash], "--"))
		dash++;
	char exclude[8192] = "", dir[PATH_MAX], irt[PATH_MAX], script[PATH_MAX + 64], run_id[32];
	char *buf = NULL;
	size_t len = 0;
	int rc = 0;
	if (opt_parse(dash, argv, SCOPE_FLEET, &a, &e))
		goto out;
	for (int i = 0; i < a.n; i++)
		if (opt_set(a.items[i].opt, &cfg, a.items[i].value, a.items[i].where, &e))
			goto out;
	if (a.npos != 2 || (strcmp(a.pos[0], "slurm") && strcmp(a.pos[0], "parallel"))) {
		usage(&e, a.npos < 2 ? "missing the engine or DIR" : a.npos > 2 ? "one DIR" : "the engine is slurm or parallel");
		goto out;
	}
	if (dash + 1 >= argc) {
		usage(&e, "no command after --");
		goto out;
	}
	const char *command = argv[dash + 1];
	if (strcmp(command, "probe") && strcmp(command, "run") && strcmp(command, "sweep") && strcmp(command, "sim")) {
		err_set(&e, EXIT_USAGE, "fleet: '%s' cannot run on a fleet (expected probe, run, sweep or sim)", command);
		goto out;
	}
	struct fleet_job j = {
		.backend = strcmp(a.pos[0], "slurm") == 0 ? FLEET_SLURM : FLEET_PARALLEL,
		.dir = a.pos[1],
		.command = command,
		.args = argv + dash + 2,
		.nargs = argc - dash - 2,
		.cfg = &cfg,
		.exclude = exclude,
		.run_id = run_id,
	};
	if (check_args(&j, &e))
		goto out;
	/* the job runs it on every node: refuse here what would fail there, in its own words */
	if (strcmp(command, "sim") ? opt_check_command(argc - dash - 1, argv + dash + 1, &e) ||
	                                     check_expect(argc - dash - 1, argv + dash + 1, &e) ||
	                                     (strcmp(command, "sweep") ? check_probes(argc - dash - 1, argv + dash + 1, &e)
	                                                               : sweep_check_plan(argc - dash - 1, argv + dash + 1, &e))
	                           : check_sim(argc - dash - 1, argv + dash + 1, cfg.tasks ? cfg.tasks : 1, &e))
		goto out;
	if (j.backend == FLEET_PARALLEL) {
		if (cfg.sshlogin.n == 0) {
			err_set(&e, EXIT_USAGE, "fleet parallel: no --sshlogin (expected e.g. --sshlogin host1,host2; ':' is this host)");
			goto out;
		}
		if (cfg.nodelist[0] || cfg.constraint[0] || cfg.partition[0] || cfg.slurm_args.n) {
			err_set(&e, EXIT_USAGE, "fleet parallel: --nodelist, --constraint, --partition and --slurm-arg are Slurm's "
			        "(GNU parallel runs on the --sshlogin hosts)");
			goto out;
		}
		if (strcmp(command, "sim") && cfg.tasks) {
			err_set(&e, EXIT_USAGE, "--tasks: irt fleet parallel runs irt %s once on every --sshlogin host", command);
			goto out;
		}
	} else if (cfg.sshlogin.n) {
		err_set(&e, EXIT_USAGE, "--sshlogin: GNU parallel's (irt fleet parallel), not Slurm's");
		goto out;
	}
	if (make_dir(j.dir, dir, sizeof(dir), &e))
		goto out;
	j.dir = dir;
	ssize_t il = readlink("/proc/self/exe", irt, sizeof(irt) - 1);
	if (il <= 0) {
		err_set(&e, EXIT_RUNTIME, "fleet: cannot find its own binary (/proc/self/exe: %s)", strerror(errno));
		goto out;
	}
	irt[il] = 0;
	j.irt = irt;
	time_t now = time(NULL);
	strftime(run_id, sizeof(run_id), "%Y%m%d-%H%M%S", gmtime(&now));
	if (j.backend == FLEET_SLURM && cfg.nodelist[0]) {
		int nlisted = 0;
		if (nodes_outside(&cfg, exclude, sizeof(exclude), &nlisted, &e))
			goto out;
		if (cfg.tasks == 0 && strcmp(command, "sim"))
			cfg.tasks = nlisted;   /* one task per listed node */
	}
	if (cfg.tasks == 0)
		cfg.tasks = 1;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		xoom("a memory stream");
	fleet_script(m, &j);
	fclose(m);
	snprintf(script, sizeof(script), "%s/fleet-%s-%s.%s", dir, command, run_id, j.backend == FLEET_SLURM ? "sbatch" : "sh");
	char engine[PATH_MAX];   /* refused before anything is written or submitted; spawn checks again */
	if (!cfg.dry_run && trust_program(j.backend == FLEET_SLURM ? "sbatch" : "parallel", engine, sizeof(engine), &e) &&
	    e.code == EXIT_USAGE) {
		err_prefix(&e, "fleet");
		goto out;
	}
	err_clear(&e);
	if (write_atomic(script, buf, len, &e))
		goto out;
	if (cfg.dry_run) {
		fwrite(buf, 1, len, stdout);
		fprintf(stderr, "irt fleet: wrote %s (--dry-run: not %s)\n", script, j.backend == FLEET_SLURM ? "submitted" : "run");
		goto out;
	}
	int st, stopped;
	char pre[sizeof(run_id) + 300];
	/* a stop signal (Ctrl-C reaches the engine too) ends irt fleet after the engine, exit 3 */
	sig_block_stop();
	if (j.backend == FLEET_SLURM) {
		char jobid[256];
		char *sb[] = {"sbatch", "--parsable", cfg.wait ? "--wait" : script, cfg.wait ? script : NULL, NULL};
		fprintf(stderr, "irt fleet: submitting %s (%lld array task%s)%s\n", script, (long long)cfg.tasks,
		        cfg.tasks == 1 ? "" : "s", cfg.wait ? (cfg.tasks == 1 ? ", waiting for it" : ", waiting for them") : "");
		st = spawn(sb, jobid, sizeof(jobid), &e);
		jobid[strcspn(jobid, "\n;")] = 0;
		int stop = sig_poll_stop();
		if (st == -2)
			;   /* e says which sbatch root would not run */
		else if (stop && jobid[0])
			err_set(&e, EXIT_INTERRUPTED, "fleet: interrupted while job %s ran (squeue -j %s shows what still runs of "
			        "it, scancel %s stops it)", jobid, jobid, jobid);
		else if (stop)
			err_set(&e, EXIT_INTERRUPTED, "fleet: interrupted before sbatch gave a job id (squeue shows whether %s was "
			        "submitted)", script);
		else if (st < 0)
			err_set(&e, EXIT_RUNTIME, "fleet: cannot run sbatch: %s (apt-get install slurm-client)", strerror(errno));
		else if (st != 0 && !jobid[0])
			err_set(&e, EXIT_RUNTIME, "fleet: sbatch refused %s (exit %d; its message is above)", script, st);
		else if (st == EXIT_UNMET && (stopped = stopped_results(dir, prefix(pre, sizeof(pre), command, jobid, "_"))))
			err_set(&e, EXIT_UNMET, "fleet: job %s: a task exited 4: %d result(s) ended at a --stop-above crossing "
			        "(any other task's --expect was not met; see %s/slurm-%s_*.out)", jobid, stopped, dir, jobid);
		else if (st == EXIT_UNMET)
			err_set(&e, EXIT_UNMET, "fleet: job %s: a task's --expect was not met (exit 4; see %s/slurm-%s_*.out)", jobid,
			        dir, jobid);
		else if (st > 100 && st < 100 + EXIT_UNMET)   /* the script's irt 1-3, moved above 4 */
			err_set(&e, EXIT_RUNTIME, "fleet: job %s: a task failed (irt exit %d, the task's %d; see %s/slurm-%s_*.out)",
			        jobid, st - 100, st, dir, jobid);
		else if (st != 0)
			err_set(&e, EXIT_RUNTIME, "fleet: job %s: a task failed (exit %d; see %s/slurm-%s_*.out)", jobid, st, dir,
			        jobid);
		else
			printf("%s\n", jobid);
	} else {
		char *sh[] = {"sh", script, NULL}, log[64 + sizeof(run_id)];
		int failed, unmet;
		fprintf(stderr, "irt fleet: running %s\n", script);
		/* sh runs parallel by PATH: one of another user's is refused as sbatch is */
		char parallel[PATH_MAX];
		st = trust_program("parallel", parallel, sizeof(parallel), &e) && e.code == EXIT_USAGE
		     ? (err_prefix(&e, "fleet"), -2)
		     : (err_clear(&e), spawn(sh, NULL, 0, &e));
		snprintf(log, sizeof(log), "fleet-%s-%s.joblog", command, run_id);
		if (st == -2)
			;   /* e says which program root would not run */
		else if (sig_poll_stop())
			err_set(&e, EXIT_INTERRUPTED, "fleet: interrupted: GNU parallel stopped the tasks (what they saved is in "
			        "%s/)", dir);
		else if (st > 0 && st != 127 && joblog_statuses(dir, log, &failed, &unmet) == 0 && failed && unmet == failed) {
			stopped = stopped_results(dir, prefix(pre, sizeof(pre), command, run_id, "-"));
			stopped = stopped < failed ? stopped : failed;
			if (stopped == failed)
				err_set(&e, EXIT_UNMET, "fleet: %d task(s) ended at a --stop-above crossing (exit 4; their output is "
				        "above)", failed);
			else if (stopped)
				err_set(&e, EXIT_UNMET, "fleet: %d task(s) exited 4: %d ended at a --stop-above crossing, %d did not "
				        "meet an --expect (their output is above)", failed, stopped, failed - stopped);
			else
				err_set(&e, EXIT_UNMET, "fleet: %d task(s) did not meet an --expect (exit 4; their output is above)",
				        failed);
		}
		else if (st < 0)
			err_set(&e, EXIT_RUNTIME, "fleet: cannot run sh: %s", strerror(errno));
		else if (st == 127)
			err_set(&e, EXIT_RUNTIME, "fleet: GNU parallel is missing (apt-get install parallel)");
		else if (st != 0)
			err_set(&e, EXIT_RUNTIME, "fleet: %d task(s) failed (GNU parallel exit %d; their output is above)",
			        st > 100 ? 100 : st, st);
	}
	if (!e.code || e.code == EXIT_UNMET)   /* results are written whatever the gates say */
		fprintf(stderr, "irt fleet: results in %s%s (irt compare %s; irt report %s -o fleet.html)\n", dir,
		        strcmp(command, "sim") ? "/<machine>/" : "/sim-cellNNN.json", dir, dir);
out:
	free(buf);
	opt_args_free(&a);
	strlist_free(&cfg.slurm_args);
	strlist_free(&cfg.sshlogin);
	return e.code ? err_print(&e) : rc;
}

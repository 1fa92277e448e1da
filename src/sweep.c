/* irt sweep: the same experiment (probes, or a watch of applications' threads: watch.h) under
 * every combination of knob and option values, each repeated, in shuffled interleaved rounds;
 * knobs applied (journaled) and restored around every run; results to a directory; statistics
 * and verdicts at the end (irt compare, in sweep_decide.c). */
#include "sweep.h"
#include "sweep_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "trust.h"
#include "cmd.h"
#include "compare.h"
#include "expect.h"
#include "fleet.h"
#include "linux/conditions.h"
#include "linux/cgroup.h"
#include "linux/journal.h"
#include "linux/knob.h"
#include "linux/signals.h"
#include "probe_cfg.h"
#include "run.h"
#include "stats.h"
#include "units.h"
#include "util.h"

#define MAX_CELLS 4096

static int dim_value(const struct plan *p, int cell, int d)
{
	for (int i = p->ndims - 1; i > d; i--)
		cell /= p->dims[i].nvalues;
	return cell % p->dims[d].nvalues;
}

const char *sweep_cell_value(const struct plan *p, int cell, int d)
{
	return p->dims[d].values[dim_value(p, cell, d)];
}

/* "slice=1ms policy=fifo": what makes the cell, for labels and progress */
void sweep_cell_label(const struct plan *p, int cell, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int d = 0; d < p->ndims && n < len; d++)
		if (!p->dims[d].constant)
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", p->dims[d].key, sweep_cell_value(p, cell, d));
}

static void free_plan(struct plan *p)
{
	for (int d = 0; d < p->ndims; d++)
		for (int v = 0; v < p->dims[d].nvalues; v++)
			free(p->dims[d].values[v]);
	free(p->dims);
	free(p->order);
	memset(p, 0, sizeof(*p));
}

/* Two values of a dimension that make the same cell: equal text, or a knob's equal value
 * (950ms and 950000 of kernel.sched_rt_runtime_us). */
static bool same_value(const struct dim *d, const char *a, const char *b)
{
	int64_t x, y;
	if (strcmp(a, b) == 0)
		return true;
	return d->knob && knob_parse_value(d->knob, a, &x, NULL) == 0 && knob_parse_value(d->knob, b, &y, NULL) == 0 &&
	       x == y;
}

/* "KEY=V1,V2" (or V1|V2 when values hold commas) into a dimension, every value checked. */
static int add_dim(struct plan *p, const char *line, bool constant, const char *where, struct knob_ctx *kc,
                   struct err *e)
{
	const char *eq = strchr(line, '=');
	if (!eq || eq == line || !eq[1])
		return err_set(e, EXIT_USAGE, "%s: '%s' is not KEY=V1,V2,... (a knob from irt knobs or an option name)", where,
		               line);
	p->dims = xrealloc(p->dims, sizeof(*p->dims) * (size_t)(p->ndims + 1));
	struct dim *d = &p->dims[p->ndims];
	memset(d, 0, sizeof(*d));
	snprintf(d->key, sizeof(d->key), "%.*s", (int)(eq - line), line);
	d->constant = constant;
	for (int i = 0; i < p->ndims; i++)
		if (strcmp(p->dims[i].key, d->key) == 0)
			return err_set(e, EXIT_USAGE, "%s: '%s' is varied twice (give all its values in one list)", where, d->key);
	const struct knob *k = knob_find(d->key);
	if (k && k->scope != KNOB_THREAD) {
		d->knob = k;
	} else {
		d->opt = opt_find(k ? k->file : d->key);
		if (!d->opt || !(d->opt->scope & (SCOPE_PROBE | SCOPE_RUN | SCOPE_COND)) || strcmp(d->opt->name, "name") == 0)
			return err_set(e, EXIT_USAGE, "%s: '%s' is neither a knob (irt knobs) nor a probe or run option", where,
			               d->key);
	}
	p->ndims++;
	char *vals = xstrdup(eq + 1);
	const char *sep = strchr(vals, '|') ? "|" : ",";
	int rc = 0;
	/* strsep, not strtok: "0,,5" and "0,5," hold an empty item (a lost value), not 2 values */
	for (char *rest = vals, *v; !rc && (v = strsep(&rest, sep));) {
		while (*v == ' ')
			v++;
		if (!*v) {
			rc = err_set(e, EXIT_USAGE, "%s: %s: an empty value in the list (expected values separated by "
			             "single %s)", where, d->key, *sep == ',' ? "commas" : "'|'");
			break;
		}
		for (int j = 0; j < d->nvalues && !rc; j++)
			if (same_value(d, d->values[j], v))
				rc = err_set(e, EXIT_USAGE, "%s: %s: '%s' is in the list twice (%s%s%seach value once: it "
				             "makes one cell)", where, d->key, v, strcmp(v, d->values[j]) ? "as '" : "",
				             strcmp(v, d->values[j]) ? d->values[j] : "", strcmp(v, d->values[j]) ? "'; " : "");
		if (rc)
			break;
		if (d->nvalues == MAX_VALUES) {
			rc = err_set(e, EXIT_USAGE, "%s: more than %d values for '%s'", where, MAX_VALUES, d->key);
			break;
		}
		char w[300];
		snprintf(w, sizeof(w), "%s: %s", where, d->key);
		if (d->knob) {
			if (kc && (rc = knob_validate(d->knob, kc, v, e)))   /* kc NULL: not against this machine */
				err_prefix(e, "%s", where);
		} else if (!(d->opt->type == OPT_LIST && strcmp(v, "none") == 0)) {
			/* check it as the option parser would, in a scratch config */
			union {
				struct probe_cfg p;
				struct run_cfg r;
				struct cond_cfg c;
			} scratch;
			memset(&scratch, 0, sizeof(scratch));
			rc = opt_set(d->opt, &scratch, v, w, e);
			if (!rc && d->opt->scope == SCOPE_COND) {   /* --pm-qos: the value's form */
				struct opt_item it = {.opt = d->opt, .value = v};
				struct opt_args one = {.items = &it, .n = 1};
				int64_t us;
				snprintf(it.where, sizeof(it.where), "%s", w);
				rc = conditions_pm_qos_arg(&one, &us, e);
			}
			if (d->opt->type == OPT_LIST)
				strlist_free((struct strlist *)((char *)&scratch + d->opt->offset));
		}
		d->values[d->nvalues++] = xstrdup(v);
	}
	free(vals);
	if (!rc && d->nvalues == 0)
		rc = err_set(e, EXIT_USAGE, "%s: no values for '%s'", where, d->key);
	if (!rc && constant && d->nvalues != 1)
		rc = err_set(e, EXIT_USAGE, "%s: --apply takes one value per knob", where);
	return rc;
}

/* Every round runs each cell once, in a new random order: cells interleave evenly over
 * time, so a machine that drifts affects all cells alike. */
static void make_order(struct plan *p)
{
	struct rng r;
	rng_seed(&r, p->seed);
	p->nruns = p->ncells * p->repeat;
	p->order = xcalloc((size_t)p->nruns, sizeof(*p->order));
	int *perm = xcalloc((size_t)p->ncells, sizeof(int));
	for (int rep = 0, k = 0; rep < p->repeat; rep++) {
		for (int c = 0; c < p->ncells; c++)
			perm[c] = c;
		for (int c = p->ncells - 1; c > 0; c--) {
			int j = (int)rng_below(&r, (uint64_t)c + 1);
			int t = perm[c];
			perm[c] = perm[j];
			perm[j] = t;
		}
		for (int c = 0; c < p->ncells; c++, k++) {
			p->order[k][0] = perm[c];
			p->order[k][1] = rep;
		}
	}
	free(perm);
}

void sweep_run_path(const char *dir, int cell, int rep, char *buf, size_t len)
{
	snprintf(buf, len, "%s/c%d/r%d.json", dir, cell, rep);
}

/* ---- the plan file: what a resume needs to continue exactly ---- */

int sweep_write_json(json_t *root, const char *path, struct err *e)
{
	return write_atomic_json(path, root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17), e);
}

/* The plan as JSON. --shard is left out of its command line: every shard of a sweep writes
 * the same plan, and --resume runs what is left of the whole sweep. */
static json_t *plan_json(const struct plan *p, int argc, char **argv, const char *job_text)
{
	json_t *root = json_object(), *jargv = json_array(), *dims = json_array(), *order = json_array();
	json_object_set_new(root, "schema", json_string("irt-sweep-plan/1"));
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--shard") == 0 && i + 1 < argc) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--shard=", 8) == 0)
			continue;
		json_array_append_new(jargv, json_string(argv[i]));
	}
	json_object_set_new(root, "argv", jargv);
	if (job_text)   /* what --resume replays: the job file may have changed or gone since */
		json_object_set_new(root, "job", json_string(job_text));
	json_object_set_new(root, "seed", json_integer((json_int_t)p->seed));
	json_object_set_new(root, "repeat", json_integer(p->repeat));
	for (int d = 0; d < p->ndims; d++) {
		json_t *o = json_object(), *vals = json_array();
		json_object_set_new(o, "key", json_string(p->dims[d].key));
		for (int v = 0; v < p->dims[d].nvalues; v++)
			json_array_append_new(vals, json_string(p->dims[d].values[v]));
		json_object_set_new(o, "values", vals);
		json_array_append_new(dims, o);
	}
	json_object_set_new(root, "dims", dims);
	for (int i = 0; i < p->nruns; i++)
		json_array_append_new(order, json_pack("[ii]", p->order[i][0], p->order[i][1]));
	json_object_set_new(root, "order", order);
	return root;
}

/* A shard may find the directory made by another shard: fine when its plan is ours (or not
 * written yet); anything else is another sweep's directory. */
static bool plan_is_ours(const struct plan *p, int argc, char **argv, const char *job_text, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	json_t *have = json_load_file(path, 0, NULL);
	if (!have)
		return access(path, F_OK) != 0;
	json_t *want = plan_json(p, argc, argv, job_text);
	/* the plan itself; the command lines may differ in outputs (--junit FILE, --expect) */
	json_object_del(have, "argv");
	json_object_del(want, "argv");
	bool same = json_equal(have, want);
	json_decref(have);
	json_decref(want);
	return same;
}

static int write_plan(const struct plan *p, int argc, char **argv, const char *job_text, const char *dir,
                      struct err *e)
{
	json_t *root = plan_json(p, argc, argv, job_text);
	char path[4096];
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	int rc = sweep_write_json(root, path, e);
	json_decref(root);
	return rc;
}

/* A sweep directory is code: plan.json holds the command line a resume runs, loads included.
 * So it must be one root may trust (trust.h): owned by the effective user or root, writable by
 * no one else, reached without a symbolic link. Returns an fd of it or -1 with e set. */
static int open_resume_dir(const char *dir, struct err *e)
{
	int fd = trust_open_dir(dir, "--resume", 0, e);
	if (fd < 0 && !e->code)
		err_set(e, EXIT_USAGE, "--resume %s: cannot read %s/plan.json (%s; give the directory of an earlier sweep)",
			dir, dir, strerror(errno));
	return fd;
}

/* --resume DIR: the original command line, re-parsed, must give the same plan; *job_text gets
 * the job file's text as the first start read it (NULL when none, or an older plan). */
static int read_plan_argv(const char *dir, char ***argv, int *argc, char **job_text, struct err *e)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	int dfd = open_resume_dir(dir, e);
	if (dfd < 0)
		return -1;
	int fd = trust_openat(dfd, "plan.json", path, O_RDONLY, 0, e);
	int saved = errno;
	close(dfd);
	if (fd < 0)
		return e->code ? -1 : err_set(e, EXIT_USAGE, "--resume %s: cannot read %s (%s)", dir, path, strerror(saved));
	json_error_t je;
	json_t *root = json_loadfd(fd, 0, &je);
	close(fd);
	if (!root)
		return err_set(e, EXIT_USAGE, "--resume %s: cannot read %s (%s)", dir, path, je.text);
	json_t *a = json_object_get(root, "argv");
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, "irt-sweep-plan/1") || !json_is_array(a) || json_array_size(a) < 1) {
		json_decref(root);
		return err_set(e, EXIT_USAGE, "--resume %s: %s is not an irt sweep plan (irt-sweep-plan/1)", dir, path);
	}
	*argc = (int)json_array_size(a);
	*argv = xcalloc((size_t)*argc + 1, sizeof(char *));
	for (int i = 0; i < *argc; i++) {
		const char *s = json_string_value(json_array_get(a, (size_t)i));
		(*argv)[i] = xstrdup(s ? s : "");
	}
	const char *job = json_string_value(json_object_get(root, "job"));
	*job_text = job ? xstrdup(job) : NULL;
	json_decref(root);
	return 0;
}

/* Options a resume accepts beside --resume: they change only what is printed or written,
 * or when to stop (--budget, counted from this start); anything else would change what is
 * measured, and plan.json fixes that. --seed orders the runs, so it is not one of them. */
static bool resume_extra_ok(const struct opt *o)
{
	if (o->scope == SCOPE_GATE || strcmp(o->name, "budget") == 0)
		return true;
	return o->scope == SCOPE_GLOBAL && strcmp(o->name, "seed") != 0;
}

/* The option scopes of irt sweep */
#define SWEEP_SCOPES                                                                                           \
	(SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN | SCOPE_SWEEP | SCOPE_REPORT | SCOPE_KNOB | SCOPE_COND | SCOPE_GATE | \
	 SCOPE_EXPLAIN | SCOPE_WATCH)

/* Finds --resume DIR / --resume=DIR in argv (*dir points into argv, NULL if absent) and
 * refuses, when it is there, a job file or any option resume_extra_ok does not accept. A
 * command line that does not parse is left to configure, which says why. */
static int find_resume(int argc, char **argv, const char **dir, struct err *e)
{
	*dir = NULL;
	struct opt_args a;
	struct err ignored = {0};
	if (opt_parse(argc, argv, SWEEP_SCOPES, &a, &ignored)) {
		opt_args_free(&a);
		return 0;
	}
	for (int i = 0; i < a.n; i++)
		if (strcmp(a.items[i].opt->name, "resume") == 0)
			*dir = a.items[i].value;
	const char *other = NULL;   /* the first thing given that would change the plan */
	for (int i = 0; *dir && !other && i < a.n; i++)
		if (strcmp(a.items[i].opt->name, "resume") && !resume_extra_ok(a.items[i].opt))
			other = a.items[i].where;
	if (*dir && !other && a.npos)
		other = a.pos[0];   /* a job file */
	if (other)
		err_set(e, EXIT_USAGE, "--resume replays %s/plan.json; %s cannot change it (accepted beside it: -q, "
		        "--format, --expect, --junit, --budget)", *dir, other);
	opt_args_free(&a);
	return other ? -1 : 0;
}

/* A plan.json of an irt before 2026-12-04 may replay --json, --csv, --hist-buckets or a --format
 * other than table or none: irt sweep took them then and did nothing with them. Every option
 * irt sweep refuses now is left out of the replay, saying so; the rest is replayed as written. */
static void plan_drop_refused(int *argc, char **argv, const char *dir)
{
	struct opt_args a;
	struct err ignored = {0};
	if (opt_parse_for(NULL, *argc, argv, SWEEP_SCOPES, &a, &ignored)) {
		opt_args_free(&a);
		return;   /* configure says what is wrong */
	}
	const struct command_info *c = opt_find_command("sweep");
	bool *drop = xcalloc((size_t)*argc + 1, sizeof(bool));
	char said[512] = "";
	for (int i = 0; i < a.n; i++) {
		const struct opt_item *it = &a.items[i];
		if (!opt_command_takes(c, it->opt, it->value, it->where, &ignored))
			continue;
		for (int k = it->arg; k < it->arg + it->nargs; k++)
			drop[k] = true;
		snprintf(said + strlen(said), sizeof(said) - strlen(said), "%s%s", said[0] ? ", " : "", it->where);
	}
	opt_args_free(&a);
	int n = 0;
	for (int i = 0; i < *argc; i++) {
		if (drop[i])
			free(argv[i]);
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	if (n < *argc)
		fprintf(stderr, "irt sweep: --resume %s: left out %s of its plan.json (an older irt sweep took them and "
		        "did nothing with them; refused now)\n", dir, said);
	*argc = n;
	free(drop);
}

/* ---- one run of one cell ---- */

/* The run's options: everything given, then the cell's option values at the end of every
 * probe definition, so they win over job-file sections. */
static void cell_args(const struct sweep *sw, int cell, struct opt_args *a)
{
	const struct plan *p = &sw->plan;
	int extra = 0;
	for (int d = 0; d < p->ndims; d++)
		extra += p->dims[d].opt ? sw->all.segments : 0;
	*a = sw->all;
	a->items = xcalloc((size_t)(sw->all.n + extra) + 1, sizeof(*a->items));
	memcpy(a->items, sw->all.items, sizeof(*a->items) * (size_t)sw->all.n);
	a->n = sw->all.n;
	for (int d = 0; d < p->ndims; d++) {
		const struct dim *dm = &p->dims[d];
		if (!dm->opt)
			continue;
		const char *v = sweep_cell_value(p, cell, d);
		if (dm->opt->type == OPT_LIST && strcmp(v, "none") == 0)
			continue;
		int segs = (dm->opt->scope & SCOPE_PROBE) ? sw->all.segments : 1;
		for (int s = 0; s < segs; s++) {
			struct opt_item *it = &a->items[a->n++];
			it->opt = dm->opt;
			it->value = v;
			it->segment = s;
			snprintf(it->where, sizeof(it->where), "--sweep %s", dm->key);
		}
	}
}

static int apply_knobs(struct sweep *sw, int cell, struct run *run, struct kvlist *applied, struct err *e)
{
	const struct plan *p = &sw->plan;
	if (sw->has_cgroup_knobs && knob_cgroup_ensure(&sw->kc, e))
		return -1;
	for (int d = 0; d < p->ndims; d++) {
		const struct dim *dm = &p->dims[d];
		if (!dm->knob)
			continue;
		char eff[128] = "";
		if (knob_apply(dm->knob, &sw->kc, sweep_cell_value(p, cell, d), eff, sizeof(eff), e))
			return -1;
		char key[96];
		snprintf(key, sizeof(key), "knob.%s", dm->key);
		kvlist_set(applied, key, eff[0] ? eff : sweep_cell_value(p, cell, d));
	}
	const struct cgroup *cg = knob_cgroup(&sw->kc);
	if (!cg)
		return 0;
	bool rt_knob = false;
	for (int d = 0; d < p->ndims; d++)
		rt_knob |= p->dims[d].knob && strcmp(p->dims[d].knob->name, "cgroup.rt_runtime") == 0;
	if (!rt_knob && run_has_rt(run, sw->kc.cgroup_of == KNOB_CG_LOADS) && run_grant_rt_budget(cg, "900000", e))
		return -1;   /* else its real-time tasks could not run at all */
	char procs[CG_PATHLEN + 32];
	snprintf(procs, sizeof(procs), "%s/%s", cg->path, cgroup_procs_file(&sw->kc.hier, false));
	if (sw->kc.cgroup_of == KNOB_CG_PROBES) {
		/* irt (and so its probe threads) in the knob's cgroup; loads stay where irt was */
		if (cgroup_move(cg, getpid(), false, e))
			return -1;
		for (int i = 0; i < run->nloads; i++)
			if (load_set_cgroup(&run->specs[i], sw->self_procs, e))
				return -1;
	} else {
		for (int i = 0; i < run->nloads; i++)
			if (load_set_cgroup(&run->specs[i], procs, e))
				return -1;
	}
	return 0;
}

/* DIR/cN, made now or by an earlier run of this sweep: a directory of ours, never a link. */
static int cell_dir(const char *path, struct err *e)
{
	struct stat st;
	char why[96] = "";
	if (mkdir(path, 0755) && errno != EEXIST)
		return err_set(e, EXIT_RUNTIME, "%s: cannot create it: %s", path, strerror(errno));
	if (lstat(path, &st))
		return err_set(e, EXIT_RUNTIME, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode) || !trust_stat_ok(&st, why, sizeof(why)))
		return err_set(e, EXIT_USAGE, "%s: %s (irt writes results only into cell directories it made; remove it)",
			       path, S_ISLNK(st.st_mode) ? "a symbolic link" : !S_ISDIR(st.st_mode) ? "not a directory" : why);
	return 0;
}

static void back_home(struct sweep *sw)
{
	FILE *f = sw->self_procs[0] ? fopen(sw->self_procs, "w") : NULL;
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

/* Runs (cell, rep) and saves its result. Returns 1 when interrupted, -1 on failure. */
int sweep_run_cell(struct sweep *sw, int cell, int rep, const char *dir, struct err *e)
{
	struct opt_args a;
	struct run run;
	struct result r = {0};
	struct err run_err = {0};
	bool interrupted = false;
	int rc = -1;
	cell_args(sw, cell, &a);
	if (run_configure(&run, &a, &sw->job, e))
		goto out;
	run.quiet_status = true;
	if (sw->has_cgroup_knobs && run.rc.placement == PLACE_SPLIT) {
		err_set(e, EXIT_USAGE, "--placement split and cgroup knobs do not go together (the knob's cgroup is the placement)");
		goto out;
	}
	/* the record of this run: which cell, which repetition, what was varied */
	struct kvlist applied = {0};   /* knob = effective value, for the record */
	if (apply_knobs(sw, cell, &run, &applied, e) || run_execute(&run, &r, &interrupted, &run_err, e)) {
		kvlist_free(&applied);
		goto restore;
	}
	char buf[64];
	snprintf(buf, sizeof(buf), "c%d", cell);
	kvlist_set(&r.settings, "cell", buf);
	snprintf(buf, sizeof(buf), "%d", rep);
	kvlist_set(&r.settings, "repetition", buf);
	for (int d = 0; d < sw->plan.ndims; d++)
		if (!sw->plan.dims[d].knob)
			kvlist_set(&r.settings, sw->plan.dims[d].key, sweep_cell_value(&sw->plan, cell, d));
	for (int i = 0; i < applied.n; i++)
		kvlist_set(&r.settings, applied.v[i].key, applied.v[i].value);
	kvlist_free(&applied);
	size_t cl = strlen(sw->cmdline) + 64;
	r.cmdline = xmalloc(cl);
	snprintf(r.cmdline, cl, "%s  # cell c%d, repetition %d", sw->cmdline, cell, rep);
	if (run_err.code)
		err_print(&run_err);
	if (interrupted) {
		rc = 1;   /* an interrupted run is not kept: --resume redoes it */
		goto restore;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/c%d", dir, cell);
	if (cell_dir(path, e)) {
		rc = -1;
		goto restore;
	}
	sweep_run_path(dir, cell, rep, path, sizeof(path));
	rc = result_write(&r, path, e) ? -1 : 0;
restore:
	{
		struct err re = {0};
		if (knob_restore_all(&sw->kc, &re) && !e->code)
			*e = re;
		if (sw->has_cgroup_knobs)
			back_home(sw);
	}
out:
	result_free(&r);
	run_free(&run);
	free(a.items);
	return e->code ? -1 : rc;
}

/* ---- the command ---- */

/* A sweep of watch --all (docs/watch.md) has waits, no response time: the recommendation and
 * --until-decided go by the waits' p99 unless --metric (the command line's or a [sweep]
 * line's) names another wake- metric; a resp- one would leave every cell without it. */
static int all_metric(struct sweep *sw, struct err *e)
{
	const char *given = NULL;
	for (int i = 0; i < sw->all.n; i++)
		if (strcmp(sw->all.items[i].opt->name, "metric") == 0)
			given = sw->all.items[i].value;
	for (int i = 0; i < sw->job.sweep.n; i++)
		if (strncmp(sw->job.sweep.v[i], "metric=", 7) == 0 && !given)
			given = sw->job.sweep.v[i] + 7;
	if (!given)
		sw->rep.metric = RANK_WAKE_P99;
	else if (sw->rep.metric >= RANK_RESP_P50)
		return err_set(e, EXIT_USAGE, "--metric %s: watch --all records waits for a CPU, no response time (use "
		               "wake-p50, wake-p99, wake-p99.9 or wake-max)", given);
	return 0;
}

static int configure(struct sweep *sw, int argc, char **argv, struct opt_args *cli, struct err *e)
{
	unsigned scopes = SWEEP_SCOPES;
	/* the options it refuses (--json, --csv, --hist-buckets, --svg, --hold, a --format other
	 * than table or none) are its command_info's (main.c): refused as it parses, job files'
	 * keys by run_collect_args and [sweep] lines below, and left out of its help */
	if (run_collect_args(argc, argv, scopes, "sweep", cli, &sw->job, &sw->job_text, &sw->all, e) || cli_globals(&sw->all, &sw->g, e))
		return -1;
	opt_defaults(SCOPE_SWEEP, &sw->sc);
	opt_defaults(SCOPE_REPORT, &sw->rep);
	opt_defaults(SCOPE_KNOB, &sw->kcfg);
	/* [sweep] lines: sweep/report options by name, everything else a dimension */
	struct strlist dims = {0}, dims_where = {0};
	bool bad = false;
	for (int i = 0; i < sw->job.sweep.n && !bad; i++) {
		const char *line = sw->job.sweep.v[i];
		char key[64];
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(line, "="), line);
		const struct opt *o = opt_find(key);
		if (o && (o->scope & (SCOPE_SWEEP | SCOPE_REPORT | SCOPE_KNOB)) && strcmp(key, "sweep") && strcmp(key, "apply")) {
			char where[400];
			snprintf(where, sizeof(where), "%s: %s", sw->job.sweep_where.v[i], key);
			void *base = (o->scope & SCOPE_SWEEP) ? (void *)&sw->sc : (o->scope & SCOPE_REPORT) ? (void *)&sw->rep
			                                                                                       : (void *)&sw->kcfg;
			bad = opt_command_takes(opt_find_command("sweep"), o, NULL, where, e) ||
			      opt_set(o, base, line + strlen(key) + 1, sw->job.sweep_where.v[i], e);
		} else {
			strlist_add(&dims, line);
			strlist_add(&dims_where, sw->job.sweep_where.v[i]);
		}
	}
	if (bad) {
		strlist_free(&dims);
		strlist_free(&dims_where);
		return -1;
	}
	for (int i = 0; i < sw->all.n; i++) {
		const struct opt_item *it = &sw->all.items[i];
		void *base = (it->opt->scope & SCOPE_SWEEP) ? (void *)&sw->sc : (it->opt->scope & SCOPE_REPORT) ? (void *)&sw->rep
		             : (it->opt->scope & SCOPE_KNOB) ? (void *)&sw->kcfg : NULL;
		if (base && opt_set(it->opt, base, it->value, it->where, e))
			return -1;
	}
	if (knob_ctx_init(&sw->kc, e)) {
		if (!sw->plan_only)
			return -1;
		*e = (struct err){0};   /* this machine's cgroups are not the nodes' */
	}
	sw->kc.cgroup_of = sw->kcfg.cgroup_of;
	sw->kc.cg_parent = sw->kcfg.cgroup_under;
	sw->kc.allow_rt_unthrottled = sw->kcfg.allow_rt_unthrottled;
	struct plan *p = &sw->plan;
	int rc = 0;
	struct knob_ctx *kc = sw->plan_only ? NULL : &sw->kc;
	for (int i = 0; i < dims.n && !rc; i++)
		rc = add_dim(p, dims.v[i], false, dims_where.v[i], kc, e);
	for (int i = 0; i < sw->sc.sweep.n && !rc; i++)
		rc = add_dim(p, sw->sc.sweep.v[i], false, "--sweep", kc, e);
	for (int i = 0; i < sw->kcfg.apply.n && !rc; i++)
		rc = add_dim(p, sw->kcfg.apply.v[i], true, "--apply", kc, e);
	strlist_free(&dims);
	/* one way to hold PM QoS: the option, or the knob */
	bool pm_knob = false, pm_opt = false;
	for (int d = 0; d < p->ndims; d++) {
		pm_knob |= p->dims[d].knob && strcmp(p->dims[d].knob->name, "pm.dma_latency") == 0;
		pm_opt |= p->dims[d].opt && p->dims[d].opt->scope == SCOPE_COND;
	}
	for (int i = 0; i < sw->all.n; i++)
		pm_opt |= sw->all.items[i].opt->scope == SCOPE_COND;
	if (!rc && pm_knob && pm_opt)
		rc = err_set(e, EXIT_USAGE, "--pm-qos and the knob pm.dma_latency both hold PM QoS (use one of them)");
	strlist_free(&dims_where);
	if (rc)
		return -1;
	if (p->ndims == 0)
		return err_set(e, EXIT_USAGE, "sweep: nothing to vary (give --sweep KEY=V1,V2 or a [sweep] section)");
	p->ncells = 1;
	for (int d = 0; d < p->ndims; d++) {
		p->ncells *= p->dims[d].nvalues;
		if (p->ncells > MAX_CELLS)
			return err_set(e, EXIT_USAGE, "sweep: more than %d cells; vary fewer values at once", MAX_CELLS);
		sw->has_cgroup_knobs |= p->dims[d].knob && p->dims[d].knob->scope == KNOB_CGROUP;
	}
	p->repeat = (int)sw->sc.repeat;
	for (int i = 0; i < sw->all.n; i++) {
		const char *name = sw->all.items[i].opt->name;
		if (!sw->sc.until_decided && (strcmp(name, "budget") == 0 || strcmp(name, "max-repeat") == 0))
			return err_set(e, EXIT_USAGE, "--%s: only with --until-decided (it bounds the added rounds)", name);
	}
	if (sw->sc.until_decided && sw->sc.max_repeat < sw->sc.repeat)
		return err_set(e, EXIT_USAGE, "--max-repeat %lld: below --repeat %lld (the rounds the sweep starts with)",
		               (long long)sw->sc.max_repeat, (long long)sw->sc.repeat);
	p->seed = (uint64_t)sw->g.seed;
	make_order(p);
	/* every cell's options must make a valid run before anything is changed */
	bool all = false;   /* the cells watch --all (a flag no --sweep varies: all of them or none) */
	for (int k = 0; k < p->ncells; k++) {
		struct opt_args a;
		bool watching = false;
		cell_args(sw, k, &a);
		if (sw->plan_only) {   /* its probe definitions; nothing about this machine */
			rc = probe_cfgs_check(&a, e);
		} else {
			struct run run;
			rc = run_configure(&run, &a, &sw->job, e);
			watching = run.watching;
			all |= run.watching && run.wc.all;
			/* and the privileges it needs, as knobs below: a normal user's sweep of policy=fifo,
			 * nice=-5 or placement=split stops now, not at that cell with a partial directory */
			for (int i = 0; !rc && i < run.ncfgs; i++)
				if (knob_thread_permitted(run.cfgs[i].policy, run.cfgs[i].prio, run.cfgs[i].nice, e))
					rc = -1;
			if (!rc && run.rc.placement == PLACE_SPLIT && cgroup_can_create(&sw->kc.hier, CG_AT_SELF, e)) {
				err_prefix(e, "--placement split");
				rc = -1;
			}
			if (!rc && k == 0)   /* once: the cells share their probe definitions' layout */
				probe_cfgs_note_times(run.cfgs, run.ncfgs);
			run_free(&run);
		}
		free(a.items);
		if (rc) {
			char label[512];
			sweep_cell_label(p, k, label, sizeof(label));
			err_prefix(e, "cell %s", label);
			return -1;
		}
		if (watching && sw->has_cgroup_knobs && sw->kc.cgroup_of == KNOB_CG_PROBES)
			return err_set(e, EXIT_USAGE, "cgroup knobs with --pid, --comm, --cgroup or --all: the knob's cgroup would "
			               "hold irt, not the watched threads (use --cgroup-of loads to limit irt's loads)");
	}
	if (all && all_metric(sw, e))
		return -1;
	if (sw->plan_only)
		return 0;
	/* and every knob must be changeable here (privileges, kernel), before anything is made */
	for (int d = 0; d < p->ndims; d++)
		if (p->dims[d].knob && knob_require(p->dims[d].knob, &sw->kc, e))
			return -1;
	/* so must a PM QoS hold asked for with --pm-qos (given, or a value of a dimension) */
	bool hold = false;
	for (int i = 0; i < sw->all.n; i++)
		hold |= sw->all.items[i].opt->scope == SCOPE_COND && strcmp(sw->all.items[i].value, "none") != 0;
	for (int d = 0; d < p->ndims; d++)
		for (int v = 0; p->dims[d].opt && p->dims[d].opt->scope == SCOPE_COND && v < p->dims[d].nvalues; v++)
			hold |= strcmp(p->dims[d].values[v], "none") != 0;
	struct err why = {0};
	if (hold && knob_available(knob_find("pm.dma_latency"), &sw->kc, &why))
		return err_set(e, EXIT_RUNTIME, "--pm-qos: unavailable here: %s", why.msg);
	if (sw->kc.hier.version != CG_NONE) {
		snprintf(sw->self_procs, sizeof(sw->self_procs), "%s%s/%s", sw->kc.hier.mount,
		         strcmp(sw->kc.hier.self, "/") ? sw->kc.hier.self : "", cgroup_procs_file(&sw->kc.hier, false));
	}
	return 0;
}

/* --baseline names a cell of the plan, checked before anything runs (irt compare would check
 * it only after every run): compare's letter (its cells are the plan's, in order), the
 * sweep's cN or label ("nice=5", compare's name of it too; an older compare's name holds
 * "cell=cN") or one of its run files. It becomes the cell's first run file, the form compare resolves exactly. */
static int sweep_baseline(struct sweep *sw, const char *dir, struct err *e)
{
	const struct plan *p = &sw->plan;
	const char *want = sw->rep.baseline;
	if (!want[0])
		return 0;
	int reps = (int)(sw->sc.until_decided ? sw->sc.max_repeat : sw->sc.repeat);
	for (int k = 0; k < p->ncells; k++) {
		char id[16], cn[32], label[512], path[4096];
		compare_cell_letter(k, id, sizeof(id));
		snprintf(cn, sizeof(cn), "c%d", k);
		sweep_cell_label(p, k, label, sizeof(label));
		bool hit = strcmp(want, id) == 0 || strcmp(want, cn) == 0 || strcmp(want, label) == 0;
		snprintf(cn, sizeof(cn), "cell=c%d", k);
		for (const char *w = want; !hit && (w = strstr(w, cn)); w += strlen(cn))
			hit = (w == want || w[-1] == ' ') && (!w[strlen(cn)] || w[strlen(cn)] == ' ');
		for (int r = 0; !hit && r < reps; r++) {
			sweep_run_path(dir, k, r, path, sizeof(path));
			hit = strcmp(want, path) == 0;
		}
		if (hit) {
			sweep_run_path(dir, k, 0, sw->rep.baseline, sizeof(sw->rep.baseline));
			return 0;
		}
	}
	char first[512], last[512];
	sweep_cell_label(p, 0, first, sizeof(first));
	sweep_cell_label(p, p->ncells - 1, last, sizeof(last));
	return err_set(e, EXIT_USAGE, "--baseline: '%s' is not a cell of this sweep (a letter A.., c0..c%d, or a cell as "
	               "'%s' ... '%s')", want, p->ncells - 1, first, last);
}

static void eta(char *buf, size_t len, int64_t ns)
{
	char b[32];
	units_human_duration(b, sizeof(b), ns);
	snprintf(buf, len, "%s", b);
}

/* What configure and the sweep allocated, and the command line's parsed options. */
static void sweep_free(struct sweep *sw, struct opt_args *cli)
{
	free(sw->decided);
	free(sw->decided_at);
	free(sw->why);
	free_plan(&sw->plan);
	free(sw->cmdline);
	free(sw->job_text);
	free(sw->all.items);
	opt_args_free(cli);
	jobfile_free(&sw->job);
	strlist_free(&sw->sc.sweep);
	strlist_free(&sw->kcfg.apply);
}

int sweep_check_plan(int argc, char **argv, struct err *e)
{
	struct sweep sw;
	struct opt_args cli = {0};
	memset(&sw, 0, sizeof(sw));
	sw.plan_only = true;
	int rc = configure(&sw, argc, argv, &cli, e);
	sweep_free(&sw, &cli);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct err e = {0};
	struct sweep sw;
	struct opt_args cli = {0};
	char **rargv = NULL;
	int rargc = 0, plan_argc = 0, rc = EXIT_OK;
	struct expect_set gate = {0};
	memset(&sw, 0, sizeof(sw));

	/* --resume DIR: re-run the original command line, plus only options that change no
	 * measurement (resume_extra_ok) */
	const char *resume = NULL;
	if (find_resume(argc, argv, &resume, &e))
		return err_print(&e);
	if (resume) {
		if (read_plan_argv(resume, &rargv, &rargc, &sw.job_text, &e))
			return err_print(&e);
		plan_drop_refused(&rargc, rargv, resume);
		plan_argc = rargc;
		rargv = xrealloc(rargv, ((size_t)rargc + (size_t)argc + 1) * sizeof(char *));
		for (int i = 1; i < argc; i++) {
			if (argv[i] == resume || strncmp(argv[i], "--resume", 8) == 0)
				continue;   /* --resume DIR, --resume=DIR */
			rargv[rargc++] = xstrdup(argv[i]);
		}
		rargv[rargc] = NULL;
	}
	int pargc = rargv ? rargc : argc;
	char **pargv = rargv ? rargv : argv;
	if (configure(&sw, pargc, pargv, &cli, &e) || expect_set_from_args(&gate, &cli, "sweep", &e))
		goto out;
	if (rargv) {
		/* a resumed run records the sweep's command line and the resume's, not a mix of both */
		char *plan_cl = cli_cmdline(plan_argc, rargv), *now = cli_cmdline(argc, argv);
		size_t n = strlen(plan_cl) + strlen(now) + 16;
		sw.cmdline = xmalloc(n);
		snprintf(sw.cmdline, n, "%s  # resumed: %s", plan_cl, now);
		free(plan_cl);
		free(now);
	} else {
		sw.cmdline = cli_cmdline(pargc, pargv);
	}
	if (rargv)
		snprintf(sw.sc.resume, sizeof(sw.sc.resume), "%s", resume);
	char dir[OPT_STRLEN];
	if (sw.sc.resume[0]) {
		snprintf(dir, sizeof(dir), "%s", sw.sc.resume);
	} else if (sw.sc.dir[0]) {
		snprintf(dir, sizeof(dir), "%s", sw.sc.dir);
	} else {
		time_t now = time(NULL);
		strftime(dir, sizeof(dir), "sweep-%Y%m%d-%H%M%S", localtime(&now));
	}
	struct plan *p = &sw.plan;
	if (strlen(dir) > 200) {
		err_set(&e, EXIT_USAGE, "--dir: '%s' is longer than 200 characters", dir);
		goto out;
	}
	if (sweep_baseline(&sw, dir, &e))
		goto out;
	/* a sweep of knobs takes the journal lock now: refused (another irt changing tunables, or
	 * no privilege) before the results directory is made; a sweep of options needs none */
	bool knobs = false;
	for (int d = 0; d < p->ndims; d++)
		knobs |= p->dims[d].knob != NULL;
	int shard, shards;
	if (shard_parse(sw.sc.shard, "--shard", &shard, &shards, &e))
		goto out;
	if (sw.sc.until_decided && shards > 1) {
		err_set(&e, EXIT_USAGE, "--until-decided: not with --shard (every look needs the runs of all cells)");
		goto out;
	}
	if (shards > p->ncells) {
		err_set(&e, EXIT_USAGE, "--shard %s: the sweep has only %d cells (at most that many shards)", sw.sc.shard, p->ncells);
		goto out;
	}
	if (sw.sc.resume[0]) {
		/* the directory, then every cN an earlier run made: refused before anything runs */
		int fd = open_resume_dir(dir, &e);
		if (fd < 0)
			goto out;
		close(fd);
		for (int c = 0; c < p->ncells; c++) {
			char path[4096];
			struct stat st;
			snprintf(path, sizeof(path), "%s/c%d", dir, c);
			if (lstat(path, &st) == 0 && cell_dir(path, &e))
				goto out;
		}
	}
	if (knobs && journal_begin(&e))
		goto out;
	if (!sw.sc.resume[0]) {
		/* 0755: no one else may plant a cN link or a plan in it */
		bool made = mkdir(dir, 0755) == 0;
		if (!made && errno == EEXIST && shards == 1) {
			err_set(&e, EXIT_USAGE, "--dir %s: exists already (choose a new directory, or --resume it)", dir);
			goto out;
		} else if (!made && errno != EEXIST) {
			err_set(&e, EXIT_USAGE, "--dir %s: cannot create or write it: %s", dir, strerror(errno));
			goto out;
		}
		/* ours to trust, and so is the way to it, as --resume wants it: the runs are written by
		 * its path, and another user who may rename things in a directory on the way could swap
		 * DIR for a link to a directory of root's once it is made */
		int fd = trust_open_dir(dir, "--dir", 0, &e);
		if (fd < 0) {
			if (!e.code)
				err_set(&e, EXIT_USAGE, "--dir %s: cannot create or write it: %s", dir, strerror(errno));
			if (made)
				rmdir(dir);
			goto out;
		}
		close(fd);
		/* another shard of this sweep made it: join it if it holds our plan */
		if (!made && !plan_is_ours(p, pargc, pargv, sw.job_text, dir)) {
			err_set(&e, EXIT_USAGE, "--dir %s: holds another sweep (shards of one sweep share a directory only "
			        "with the same options)", dir);
			goto out;
		}
		if (access(dir, W_OK)) {
			err_set(&e, EXIT_USAGE, "--dir %s: cannot create or write it: %s", dir, strerror(errno));
			goto out;
		}
		if (write_plan(p, pargc, pargv, sw.job_text, dir, &e))
			goto out;
	}
	sig_block_stop();

	int todo = 0, done_before = 0;
	for (int i = 0; i < p->nruns; i++) {
		char path[4096];
		if (!shard_has(p->order[i][0], shard, shards))
			continue;
		sweep_run_path(dir, p->order[i][0], p->order[i][1], path, sizeof(path));
		if (access(path, F_OK) == 0)
			done_before++;
		else
			todo++;
	}
	if (shards > 1)
		fprintf(stderr, "irt sweep: shard %d/%d: %d of %d cells x %d repetitions into %s%s\n", shard + 1, shards,
		        (todo + done_before) / p->repeat, p->ncells, p->repeat, dir, done_before ? " (resuming)" : "");
	else
		fprintf(stderr, "irt sweep: %d cell%s x %d repetition%s = %d run%s into %s%s\n", p->ncells, p->ncells == 1 ? "" : "s",
		        p->repeat, p->repeat == 1 ? "" : "s", p->nruns, p->nruns == 1 ? "" : "s", dir, done_before ? " (resuming)" : "");
	bool live = cli_live_status(&sw.g);
	int64_t t_start = mono_ns();
	int ran = 0;
	bool interrupted = false;
	for (int i = 0; i < p->nruns && !interrupted; i++) {
		int cell = p->order[i][0], rep = p->order[i][1];
		char path[4096], label[512];
		sweep_run_path(dir, cell, rep, path, sizeof(path));
		if (!shard_has(cell, shard, shards) || access(path, F_OK) == 0)
			continue;   /* another shard's, or finished before the interruption */
		sweep_cell_label(p, cell, label, sizeof(label));
		if (live) {
			char line[768], left[32] = "?";
			if (ran)
				eta(left, sizeof(left), (mono_ns() - t_start) / ran * (todo - ran));
			snprintf(line, sizeof(line), "[%d/%d] c%d %s rep %d/%d, ETA %s", done_before + ran + 1, p->nruns, cell,
			         label, rep + 1, p->repeat, left);
			cli_status_line(line);
		}
		int r = sweep_run_cell(&sw, cell, rep, dir, &e);
		if (r < 0)
			goto out;
		if (r > 0 || sig_poll_stop())
			interrupted = true;
		else
			ran++;
	}
	if (live)
		cli_status_line(NULL);
	/* the resume suggested: the directory's real path, which --resume accepts from anywhere
	 * (it refuses '..', which --dir allows) */
	char again[PATH_MAX];
	if (!realpath(dir, again))
		snprintf(again, sizeof(again), "%s", dir);
	if (interrupted) {
		fprintf(stderr, "irt sweep: interrupted after %d of %d runs; continue with: irt sweep --resume %s\n",
		        done_before + ran, p->nruns, again);
		rc = EXIT_INTERRUPTED;
	}
	int missing = 0;
	for (int i = 0; i < p->nruns; i++) {
		char path[4096];
		sweep_run_path(dir, p->order[i][0], p->order[i][1], path, sizeof(path));
		missing += access(path, F_OK) != 0;
	}
	if (shards > 1 && missing && !interrupted) {
		/* the shard that completes the sweep summarises it; the others only ran their cells */
		fprintf(stderr, "irt sweep: shard %d/%d done; %d of %d runs in %s, the summary comes with the last shard\n",
		        shard + 1, shards, p->nruns - missing, p->nruns, dir);
		goto out;
	}
	int reps = p->repeat;
	if (sw.sc.until_decided && !interrupted) {
		reps = sweep_until_decided(&sw, dir, t_start, &interrupted, &e);
		if (reps < 0)
			goto out;
		sw.rep.look_alpha = sw.last_alpha;   /* the table: at the last look's alpha */
		if (interrupted) {
			fprintf(stderr, "irt sweep: interrupted; continue with: irt sweep --resume %s\n", again);
			rc = EXIT_INTERRUPTED;
		}
	}
	if (sweep_summarize(&sw, dir, reps, &gate, &e))
		goto out;
	if (sw.decided && !interrupted) {
		if (sw.g.format != FORMAT_NONE)
			sweep_print_decisions(&sw);
		fprintf(stderr, "irt sweep: until decided: stopped: %s\n", sw.stopped);
	}
	if (gate.n || gate.junit[0]) {
		int gated = expect_set_finish(&gate, (double)(mono_ns() - t_start) / 1e9, &e);
		if (gated > 0 && rc == EXIT_OK)
			rc = gated;
	}
	if (!interrupted)
		fprintf(stderr, "irt sweep: results in %s (sweep.json, compare.json; irt report %s -o report.html)\n", dir, dir);
out:
	{
		struct err je = {0};
		if (journal_active() && journal_end(&je) && !e.code)
			e = je;
	}
	if (e.code)
		rc = err_print(&e);
	expect_set_free(&gate);
	sweep_free(&sw, &cli);
	for (int i = 0; i < rargc; i++)
		free(rargv[i]);
	free(rargv);
	return rc;
}

/* Comparisons beyond one directory of results: --expect on a comparison, and fleets, a
 * directory of machines (DIR/<machine>/...), with per-machine verdicts and a fleet verdict. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cond_diff.h"
#include "expect.h"
#include "util.h"

/* "wake.p99" -> "wake-p99", "met" -> "deadline-met"; NULL when compare has no such metric */
static const char *compare_metric_of(const char *m, char *buf, size_t len)
{
	if (strcmp(m, "met") == 0)
		return "deadline-met";
	snprintf(buf, len, "%s", m);
	size_t l = strlen(buf);
	if (l > 6 && strcmp(buf + l - 6, ".ratio") == 0)
		buf[l - 6] = 0;
	char *dot = strchr(buf, '.');
	if (!dot || (strncmp(buf, "wake.", 5) && strncmp(buf, "resp.", 5)))
		return NULL;
	*dot = '-';
	return buf;
}

static bool names_cell(const struct compare *c, int k, const char *const *alias, const char *who)
{
	return strcmp(c->cells[k].id, who) == 0 || strcmp(c->cells[k].name, who) == 0 || (alias && strcmp(alias[k], who) == 0);
}

void compare_expect(const struct expect *x, const struct compare *c, const char *const *alias, struct expect_outcome *out)
{
	char buf[40];
	bool verdict = x->unit == EXPECT_WORD, ratio = strstr(x->metric, ".ratio") != NULL;
	const char *metric = verdict ? compare_metric_id(c->metric) : compare_metric_of(x->metric, buf, sizeof(buf));
	int thread = c->nthreads > 1 ? COMPARE_ALL_THREADS : 0;
	struct expect_value *vals = xcalloc((size_t)c->ncells + 1, sizeof(*vals));
	int n = 0;
	for (int i = 0; metric && i < c->nrows; i++) {
		const struct compare_row *r = &c->rows[i];
		if (r->load >= 0 || r->thread != thread || strcmp(r->metric, metric))
			continue;
		if ((verdict || ratio) && r->cell == c->base)
			continue;   /* the baseline is not compared with itself */
		struct expect_value *v = &vals[n];
		v->who = alias ? alias[r->cell] : c->cells[r->cell].id;
		if (x->subject[0] && names_cell(c, r->cell, alias, x->subject))
			v->who = x->subject;
		if (verdict)
			v->word = verdict_name(r->cmp.verdict);
		else if (ratio)
			v->v = r->cmp.ratio.est;
		else
			v->v = strcmp(metric, "deadline-met") == 0 ? r->summary.est / 100 : r->summary.est;
		if (!isnan(v->v))
			n++;
	}
	expect_judge(x, vals, n, out);
	if (!metric)
		snprintf(out->detail, sizeof(out->detail), "%s: irt compare has no such metric (wake.|resp. p50, p99, p99.9, max; "
		         "met; their .ratio; verdict)", x->metric);
	free(vals);
}

/* ---------------------------------------------------------------- fleets */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep_runs.h"
#include "trust.h"
#include "units.h"

#define FLEET_DEPTH 3   /* DIR/<machine>/sweep-X/cN/rK.json */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* irt's files beside results that are not results */
static bool not_a_result(const char *name)
{
	return name[0] == '.' || !ends_with(name, ".json") || strcmp(name, "plan.json") == 0 ||
	       strcmp(name, "compare.json") == 0 || strcmp(name, "sweep.json") == 0 || strncmp(name, "fleet", 5) == 0;
}


/* irt's record that is no result (irt noise -o, irt knobs -o) by its schema, as report DIR
 * passes over it; one that cannot be opened stays a result, for the reader to name the fault */
static bool other_record(int dfd, const char *name, const char *shown)
{
	struct err e = {0};
	FILE *f = sweep_dir_fopen(dfd, name, shown, &e);
	bool other = f && result_stream_other(f);
	if (f)
		fclose(f);
	return other;
}

static int refuse_link(struct err *e, const char *shown)
{
	return err_set(e, EXIT_USAGE, "%s is a symbolic link (irt does not follow links in a fleet's directory; put "
	               "the machine's directory or results themselves there)", shown);
}

/* Result files below directory fd dfd (shown names it: "DIR/m1"), as "DIR/m1/..." paths, sorted,
 * depth-first. Nothing is reached through a symbolic link: with e, a link where a result or a
 * directory of results could be, or a result that is no regular file, is refused (-1, e set);
 * without, it is passed over. */
static int find_results_at(int dfd, const char *shown, int depth, struct strlist *out, struct err *e)
{
	struct strlist names = {0};
	if (sweep_dir_list(dfd, &names))
		return e ? err_set(e, EXIT_USAGE, "%s: cannot read the directory (%s)", shown, strerror(errno)) : 0;
	int rc = 0;
	for (int i = 0; i < names.n && !rc; i++) {
		const char *name = names.v[i];
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", shown, name);
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISLNK(st.st_mode) && name[0] != '.' && (depth > 1 || !not_a_result(name))) {
			if (e)
				rc = refuse_link(e, path);
		} else if (S_ISDIR(st.st_mode) && depth > 1) {
			int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				rc = find_results_at(sub, path, depth - 1, out, e);
				close(sub);
			} else if (e) {   /* replaced since fstatat looked */
				rc = errno == ELOOP ? refuse_link(e, path)
				                    : err_set(e, EXIT_USAGE, "%s: cannot open (%s)", path, strerror(errno));
			}
		} else if (S_ISREG(st.st_mode) && !not_a_result(name)) {
			if (!other_record(dfd, name, path))
				strlist_add(out, path);
		} else if (e && !S_ISDIR(st.st_mode) && !not_a_result(name)) {   /* a FIFO would block */
			rc = err_set(e, EXIT_USAGE, "%s: not a regular file (irt reads only a regular file with one name here)", path);
		}
	}
	strlist_free(&names);
	return rc;
}

/* Does directory fd dfd hold a file named so (of any kind)? */
static bool has_file(int dfd, const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* sweep.json or plan.json: one sweep's directory, not a fleet's nor a directory of results */
static bool is_sweep_dir(int dfd)
{
	return has_file(dfd, "sweep.json") || has_file(dfd, "plan.json");
}

bool compare_is_fleet(int dfd)
{
	/* only a look, at names: fleet_read says what it refuses, so a machine directory that is a
	 * link counts here (the link is refused, not "no fleet") */
	struct strlist names = {0};
	bool any = false;
	if (!is_sweep_dir(dfd) && sweep_dir_list(dfd, &names) == 0)
		for (int i = 0; i < names.n && !any; i++) {
			if (names.v[i][0] == '.')
				continue;
			int m = openat(dfd, names.v[i], O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
			if (m < 0)
				continue;
			struct strlist found = {0};
			find_results_at(m, names.v[i], FLEET_DEPTH, &found, NULL);
			any = found.n > 0;
			strlist_free(&found);
			close(m);
		}
	strlist_free(&names);
	return any;
}

int compare_dir_files(int dfd, const char *dir, struct strlist *out, struct err *e)
{
	if (is_sweep_dir(dfd))   /* a sweep's directory: its cells are read from sweep.json */
		return 0;
	return find_results_at(dfd, dir, 1, out, e) ? -1 : out->n;
}

/* The row a fleet judges by: --metric, first thread block (all threads merged when several). */
static const struct compare_row *judged_row(const struct compare *c, int cell)
{
	const char *metric = compare_metric_id(c->metric);
	int thread = c->nthreads > 1 ? COMPARE_ALL_THREADS : 0;
	for (int i = 0; i < c->nrows; i++) {
		const struct compare_row *r = &c->rows[i];
		if (r->cell == cell && r->load < 0 && r->thread == thread && strcmp(r->metric, metric) == 0)
			return r;
	}
	return NULL;
}

const struct compare_row *fleet_row(const struct fleet *f, int machine, int fcell)
{
	const struct fleet_machine *m = &f->m[machine];
	for (int k = 0; k < m->c.ncells; k++)
		if (m->cell_of[k] == fcell)
			return judged_row(&m->c, k);
	return NULL;
}

/* Two-sided 97.5 % quantile of Student's t with df degrees of freedom. */
static double t975(int df)
{
	static const double t[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
	                           2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
	                           2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
	if (df <= 30)
		return t[df];
	const double z = 1.959964;   /* beyond the table: Cornish-Fisher, within 0.001 */
	return z + (z * z * z + z) / (4.0 * df);
}

/* The fleet verdict of a cell: machines are blocks (each measured the baseline and the cell),
 * so the effect is judged on the per-machine log ratios: their mean is the pooled effect (a
 * geometric mean of ratios), and a t interval over machines is its CI. Machine-to-machine
 * spread widens it, as it should: a setting that helps one machine and hurts another is not
 * "better" for the fleet. */
static void fleet_verdict(struct fleet *f, int fc, const struct stats_params *sp)
{
	struct fleet_cell *cell = &f->cells[fc];
	double *lr = xcalloc((size_t)f->nm + 1, sizeof(double));
	int n = 0, few = 0;
	for (int m = 0; m < f->nm; m++) {
		const struct compare_row *r = fleet_row(f, m, fc);
		if (!r || !isfinite(r->cmp.ratio.est) || r->cmp.ratio.est <= 0)
			continue;
		cell->machines++;
		cell->better += r->cmp.verdict == VERDICT_BETTER;
		cell->worse += r->cmp.verdict == VERDICT_WORSE;
		/* too few samples propagates: a machine that cannot judge the setting itself (one
		 * run each, say) adds no evidence, and its ratio's spread is unknown */
		if (r->cmp.verdict == VERDICT_FEW)
			few++;
		else
			lr[n++] = log(r->cmp.ratio.est);
	}
	cell->pooled.est = cell->pooled.lo = cell->pooled.hi = NAN;
	if (cell->machines == 0) {
		cell->verdict = VERDICT_FEW;
		snprintf(cell->why, sizeof(cell->why), "no machine compared it with the baseline");
	} else if (n < 2 && few) {
		cell->verdict = VERDICT_FEW;
		snprintf(cell->why, sizeof(cell->why), "%d of %d machines have too few samples to judge it themselves "
		         "(a CI over machines needs two or more that can)", few, cell->machines);
	} else {
		double mean = stats_mean(lr, n);
		cell->pooled.est = exp(mean);
		if (n >= 2) {
			double half = t975(n - 1) * stats_stddev(lr, n) / sqrt((double)n);
			cell->pooled.lo = exp(mean - half);
			cell->pooled.hi = exp(mean + half);
		}
		if (n < 2) {
			cell->verdict = VERDICT_FEW;
			snprintf(cell->why, sizeof(cell->why), "one machine is not a fleet (a CI over machines needs two or more)");
		} else if (fabs(mean) < log1p(sp->floor_reps)) {
			cell->verdict = VERDICT_SAME;
		} else if (cell->pooled.hi < 1) {
			/* a small effect no machine's runs show alone can show over machines: that is
			 * what pooling is for, and t(n-1) keeps two or three machines' intervals wide */
			cell->verdict = VERDICT_BETTER;   /* --metric is a latency: lower is better */
		} else if (cell->pooled.lo > 1) {
			cell->verdict = VERDICT_WORSE;
		} else {
			cell->verdict = VERDICT_SAME;
		}
		if (few && !cell->why[0])
			snprintf(cell->why, sizeof(cell->why), "pooled over the %d machines that can judge it; %d have too few "
			         "samples", n, few);
	}
	free(lr);
}

void fleet_free(struct fleet *f)
{
	for (int i = 0; i < f->nm; i++) {
		struct fleet_machine *m = &f->m[i];
		if (m->have_compare)
			compare_free(&m->c);
		for (int k = 0; k < m->n; k++) {
			result_free(&m->results[k]);
			free(m->paths[k]);
		}
		free(m->results);
		free(m->paths);
		free(m->cell_of);
	}
	free(f->m);
	free(f->cells);
	strlist_free(&f->conditions);
	memset(f, 0, sizeof(*f));
}

static int fleet_cell_index(struct fleet *f, const char *name)
{
	for (int i = 0; i < f->ncells; i++)
		if (strcmp(f->cells[i].name, name) == 0)
			return i;
	f->cells = xreallocarray(f->cells, (size_t)f->ncells + 1, sizeof(*f->cells));
	memset(&f->cells[f->ncells], 0, sizeof(f->cells[0]));
	snprintf(f->cells[f->ncells].name, sizeof(f->cells[0].name), "%s", name);
	snprintf(f->cells[f->ncells].id, sizeof(f->cells[0].id), "%c", f->ncells < 26 ? 'A' + f->ncells : '?');
	return f->ncells++;
}

/* One machine per directory: results of two machine_ids in one would make its own verdicts
 * compare machines, not settings. A result without one (irt before it) goes with any. */
static int machine_identity(struct fleet_machine *m, struct err *e)
{
	m->env = m->results[0].env;
	m->id_from = -1;
	for (int k = 0; k < m->n; k++) {
		const struct result_env *env = &m->results[k].env;
		if (strcmp(env->hostname, m->env.hostname))
			m->mixed = true;   /* a host renamed between runs, say: noted, not refused */
		if (!env->machine_id[0])
			continue;
		if (m->id_from < 0) {
			m->id_from = k;
			snprintf(m->env.machine_id, sizeof(m->env.machine_id), "%s", env->machine_id);
		} else if (strcmp(env->machine_id, m->env.machine_id)) {
			return err_set(e, EXIT_USAGE, "%s: machine_id %s is not %s's (%s): a machine's directory holds one "
			               "machine's results (move the other machine's into a directory of its own)", m->paths[k],
			               env->machine_id, m->paths[m->id_from], m->env.machine_id);
		}
	}
	return 0;
}

/* Reads the results of machine directory `name` in fleet directory fd dfd; 1 when it holds none. */
static int read_machine(struct fleet *f, int dfd, const char *name, struct err *e)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 1;
	if (S_ISLNK(st.st_mode))
		return refuse_link(e, path);
	if (!S_ISDIR(st.st_mode))
		return 1;   /* the job's script and Slurm's output files */
	int mfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (mfd < 0)
		return errno == ELOOP ? refuse_link(e, path) : err_set(e, EXIT_USAGE, "%s: cannot open (%s)", path, strerror(errno));
	struct strlist files = {0};
	int rc = find_results_at(mfd, path, FLEET_DEPTH, &files, e);
	if (!rc && files.n == 0)
		rc = 1;
	if (rc) {
		strlist_free(&files);
		close(mfd);
		return rc;
	}
	f->m = xreallocarray(f->m, (size_t)f->nm + 1, sizeof(*f->m));
	struct fleet_machine *m = &f->m[f->nm++];
	memset(m, 0, sizeof(*m));
	err_escape(m->name, sizeof(m->name), name);   /* the directory's name is its maker's */
	m->sweep = is_sweep_dir(mfd);
	m->results = xcalloc((size_t)files.n, sizeof(*m->results));
	m->paths = xcalloc((size_t)files.n, sizeof(*m->paths));
	for (int k = 0; k < files.n && !rc; k++) {
		rc = sweep_dir_read_result(&m->results[k], mfd, files.v[k] + strlen(path) + 1, files.v[k], e);
		if (!rc) {
			m->paths[m->n++] = files.v[k];
			files.v[k] = NULL;
		}
	}
	strlist_free(&files);
	close(mfd);
	return rc ? -1 : machine_identity(m, e);
}

/* A run as result_same_run compares it first: equal runs sort next to each other */
struct run_ref {
	const struct result *r;
	int m, k;
};

static int run_key_cmp(const struct result *a, const struct result *b)
{
	int64_t x[3] = {a->start_realtime_ns, a->end_realtime_ns, a->nthreads ? a->threads[0].wake.sum : 0};
	int64_t y[3] = {b->start_realtime_ns, b->end_realtime_ns, b->nthreads ? b->threads[0].wake.sum : 0};
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return strcmp(a->env.hostname, b->env.hostname);
}

static int cmp_run_ref(const void *pa, const void *pb)
{
	const struct run_ref *a = pa, *b = pb;
	int c = run_key_cmp(a->r, b->r);
	return c ? c : a->m != b->m ? a->m - b->m : a->k - b->k;
}

/* A machine counted twice narrows the CI over machines: two directories of one machine_id, or
 * one run in two directories (a copied directory of results that carry no machine_id, written
 * by irt before it, or a result copied into another machine's directory). */
static int machines_once(const struct fleet *f, struct err *e)
{
	for (int i = 0; i < f->nm; i++)
		for (int j = i + 1; j < f->nm && f->m[i].id_from >= 0; j++)
			if (f->m[j].id_from >= 0 && strcmp(f->m[i].env.machine_id, f->m[j].env.machine_id) == 0 && f->m[i].sweep &&
			    f->m[j].sweep)   /* DIR/<machine>/ of irt fleet, whose tasks each wrote a sweep there */
				return err_set(e, EXIT_USAGE, "%s: %s and %s are sweeps of one machine (the same machine_id in %s and "
				               "%s), not machines: compare their runs together (irt compare %s/*/c*/r*.json), or "
				               "the fleet directory above it", f->dir, f->m[i].name, f->m[j].name,
				               f->m[i].paths[f->m[i].id_from], f->m[j].paths[f->m[j].id_from], f->dir);
			else if (f->m[j].id_from >= 0 && strcmp(f->m[i].env.machine_id, f->m[j].env.machine_id) == 0)
				return err_set(e, EXIT_USAGE, "%s: machines %s and %s are one machine (the same machine_id in %s and "
				               "%s): keep one of them, or put their results in one directory", f->dir, f->m[i].name,
				               f->m[j].name, f->m[i].paths[f->m[i].id_from], f->m[j].paths[f->m[j].id_from]);
	int n = 0, rc = 0;
	for (int i = 0; i < f->nm; i++)
		n += f->m[i].n;
	struct run_ref *refs = xcalloc((size_t)n + 1, sizeof(*refs));
	n = 0;
	for (int i = 0; i < f->nm; i++)
		for (int k = 0; k < f->m[i].n; k++)
			refs[n++] = (struct run_ref){&f->m[i].results[k], i, k};
	qsort(refs, (size_t)n, sizeof(*refs), cmp_run_ref);
	for (int i = 0; i < n && !rc; i++)
		for (int j = i + 1; j < n && !rc && run_key_cmp(refs[i].r, refs[j].r) == 0; j++) {
			const struct fleet_machine *a = &f->m[refs[i].m], *b = &f->m[refs[j].m];
			if (a != b && result_same_run(refs[i].r, refs[j].r))
				rc = err_set(e, EXIT_USAGE, "%s and %s hold the same run (host, start, command line and samples): "
				             "machines %s and %s would count it twice; keep one copy", a->paths[refs[i].k],
				             b->paths[refs[j].k], a->name, b->name);
		}
	free(refs);
	return rc;
}

int fleet_read(struct fleet *f, int dfd, const char *dir, const struct report_cfg *cfg, uint64_t seed, struct err *e)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "%s", dir);
	f->metric = cfg->metric;
	struct strlist names = {0};
	int rc = sweep_dir_list(dfd, &names) ? err_set(e, EXIT_USAGE, "%s: cannot read the directory (%s)", dir, strerror(errno)) : 0;
	for (int i = 0; i < names.n && rc >= 0; i++) {
		if (names.v[i][0] == '.' || (rc = read_machine(f, dfd, names.v[i], e)) != 0)
			continue;
		struct fleet_machine *m = &f->m[f->nm - 1];
		rc = compare_results(m->results, (const char *const *)m->paths, m->n, cfg, seed, &m->c, e);
		if (rc) {
			err_prefix(e, "%s/%s", dir, m->name);
			break;
		}
		m->have_compare = true;
		m->cell_of = xcalloc((size_t)m->c.ncells + 1, sizeof(int));
		/* the baseline first, so fleet cell 0 is every machine's baseline */
		m->cell_of[m->c.base] = fleet_cell_index(f, m->c.cells[m->c.base].name);
		for (int k = 0; k < m->c.ncells; k++)
			if (k != m->c.base)
				m->cell_of[k] = fleet_cell_index(f, m->c.cells[k].name);
	}
	strlist_free(&names);
	if (rc >= 0 && f->nm == 0)
		rc = err_set(e, EXIT_USAGE, "%s: no machine directories with results in it (expected DIR/<machine>/*.json)", dir);
	else if (rc >= 0)
		rc = machines_once(f, e);
	if (rc < 0) {
		fleet_free(f);
		return -1;
	}
	f->base = 0;
	for (int i = 0; i < f->nm; i++)
		if (f->m[i].cell_of[f->m[i].c.base] != 0)
			return err_set(e, EXIT_USAGE, "%s: machine %s has another baseline than %s (give --baseline by name)", dir,
			               f->m[i].name, f->m[0].name), fleet_free(f), -1;
	struct stats_params sp;
	stats_params_default(&sp);
	for (int c = 1; c < f->ncells; c++)
		fleet_verdict(f, c, &sp);
	/* the measurement conditions of the machines (each machine's first result): where they
	 * differ, they may explain why the machines disagree */
	const struct result **rs = xcalloc((size_t)f->nm, sizeof(*rs));
	const char **labels = xcalloc((size_t)f->nm, sizeof(*labels));
	for (int m = 0; m < f->nm; m++) {
		rs[m] = &f->m[m].results[0];
		labels[m] = f->m[m].name;
	}
	cond_differences(rs, labels, f->nm, false, &f->conditions);
	free(rs);
	free(labels);
	/* and within a machine, as its own irt compare says them: its verdicts may be about them */
	for (int m = 0; m < f->nm; m++)
		for (int i = 0; i < f->m[m].c.conditions.n; i++) {
			char *line = xmalloc(strlen(f->m[m].name) + strlen(f->m[m].c.conditions.v[i]) + 3);
			sprintf(line, "%s: %s", f->m[m].name, f->m[m].c.conditions.v[i]);
			strlist_add(&f->conditions, line);
			free(line);
		}
	return 0;
}

/* ---- printers ---- */

static const char *fmt_metric(const struct fleet *f, double v, char *buf, size_t len)
{
	if (!isfinite(v))
		return "-";
	return units_human_duration(buf, len, (int64_t)llround(v));
}

const char *compare_ci_text(const struct ci *ci, char *buf, size_t len)
{
	if (!isfinite(ci->est))
		snprintf(buf, len, "-");
	else if (isfinite(ci->lo) && isfinite(ci->hi))
		snprintf(buf, len, "%.3f [%.3f, %.3f]", ci->est, ci->lo, ci->hi);
	else
		snprintf(buf, len, "%.3f", ci->est);
	return buf;
}

void fleet_print(const struct fleet *f, FILE *out)
{
	char a[32], b[32], r[64], nb[256];
	fprintf(out, "fleet %s: %d machine%s; metric %s; baseline %s (%s)\n\n", f->dir, f->nm, f->nm == 1 ? "" : "s",
	        compare_metric_id(f->metric), f->cells[0].id, f->cells[0].name[0] ? f->cells[0].name : "the only setting");
	fprintf(out, "%-16s %-4s %4s %10s %10s  %-26s %s\n", "machine", "cell", "runs", "baseline", "median",
	        "ratio [95% CI]", "verdict");
	for (int m = 0; m < f->nm; m++) {
		const struct fleet_machine *fm = &f->m[m];
		for (int c = 0; c < f->ncells; c++) {
			const struct compare_row *row = fleet_row(f, m, c), *base = fleet_row(f, m, 0);
			if (!row)
				continue;
			fprintf(out, "%s %-4s %4d %10s %10s  %-26s %s\n", text_fit(nb, sizeof(nb), fm->name, 16, TEXT_LEFT),
			        f->cells[c].id, row->runs,
			        base ? fmt_metric(f, base->summary.est, a, sizeof(a)) : "-", fmt_metric(f, row->summary.est, b, sizeof(b)),
			        c == 0 ? "" : compare_ci_text(&row->cmp.ratio, r, sizeof(r)), c == 0 ? "baseline" : verdict_name(row->cmp.verdict));
		}
		if (fm->mixed)
			fprintf(out, "%-16s note: its results name more than one hostname (one machine renamed, or results of several machines without a machine_id)\n", "");
	}
	for (int c = 1; c < f->ncells; c++) {
		const struct fleet_cell *fc = &f->cells[c];
		fprintf(out, "\nfleet verdict, %s (%s): better on %d of %d machines, worse on %d; pooled ratio %s "
		        "(machines as blocks): %s%s%s\n", fc->id, fc->name, fc->better, fc->machines, fc->worse,
		        compare_ci_text(&fc->pooled, r, sizeof(r)), verdict_name(fc->verdict), fc->why[0] ? ": " : "", fc->why);
	}
	for (int i = 0; i < f->conditions.n; i++)
		fprintf(out, "%s%s\n", i ? "" : "\n", f->conditions.v[i]);
	if (f->ncells == 1)
		fprintf(out, "\none setting on every machine: nothing to compare (a sweep per machine, or runs of two settings, "
		             "give verdicts)\n");
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jci(const struct ci *ci)
{
	return json_pack("{s:o,s:o,s:o}", "est", jnum(ci->est), "lo", jnum(ci->lo), "hi", jnum(ci->hi));
}

int fleet_write_json(const struct fleet *f, const char *path, struct err *e)
{
	json_t *root = json_object(), *machines = json_array(), *cells = json_array();
	json_object_set_new(root, "schema", json_string("irt-fleet/1"));
	json_object_set_new(root, "metric", json_string(compare_metric_id(f->metric)));
	for (int c = 0; c < f->ncells; c++) {
		const struct fleet_cell *fc = &f->cells[c];
		json_t *o = json_pack("{s:s,s:s}", "id", fc->id, "name", fc->name);
		if (c > 0) {
			json_object_set_new(o, "machines", json_integer(fc->machines));
			json_object_set_new(o, "better", json_integer(fc->better));
			json_object_set_new(o, "worse", json_integer(fc->worse));
			json_object_set_new(o, "pooled_ratio", jci(&fc->pooled));
			json_object_set_new(o, "verdict", json_string(verdict_name(fc->verdict)));
			json_object_set_new(o, "why", json_string(fc->why));
		}
		json_array_append_new(cells, o);
	}
	for (int m = 0; m < f->nm; m++) {
		const struct fleet_machine *fm = &f->m[m];
		json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:b}", "name", fm->name, "hostname", fm->env.hostname,
		                      "machine_id", fm->env.machine_id, "cpu_model", fm->env.cpu_model, "kernel",
		                      fm->env.kernel, "results", fm->n, "mixed", fm->mixed);
		json_t *mc = json_array();
		for (int c = 0; c < f->ncells; c++) {
			const struct compare_row *row = fleet_row(f, m, c);
			if (!row)
				continue;
			json_array_append_new(mc, json_pack("{s:s,s:i,s:o,s:o,s:s}", "cell", f->cells[c].id, "runs", row->runs,
			                                    "median", jnum(row->summary.est), "ratio",
			                                    c ? jci(&row->cmp.ratio) : json_null(), "verdict",
			                                    c ? verdict_name(row->cmp.verdict) : "baseline"));
		}
		json_object_set_new(o, "cells", mc);
		json_array_append_new(machines, o);
	}
	json_object_set_new(root, "cells", cells);
	json_object_set_new(root, "machines", machines);
	json_t *cond = json_array();
	for (int i = 0; i < f->conditions.n; i++)
		json_array_append_new(cond, json_string(f->conditions.v[i]));
	json_object_set_new(root, "conditions", cond);
	int rc = write_atomic_json(path, root, JSON_INDENT(2) | JSON_PRESERVE_ORDER, e);
	json_decref(root);
	return rc;
}

int compare_fleet_cmd(int dfd, const char *dir, const struct report_cfg *cfg, const struct global_cfg *g,
                      struct expect_set *gate, struct err *e)
{
	struct fleet f;
	if (fleet_read(&f, dfd, dir, cfg, (uint64_t)g->seed, e))
		return -1;
	if (g->format == FORMAT_TABLE)
		fleet_print(&f, stdout);
	int rc = 0;
	if (g->json[0] && fleet_write_json(&f, g->json, e))
		rc = -1;
	for (int i = 0; i < gate->n && !rc; i++)
		fleet_expect(&gate->v[i], &f, &gate->out[i]);
	if (!rc)
		rc = expect_set_finish(gate, 0, e);
	fleet_free(&f);
	return rc < 0 ? -1 : rc;
}

/* --expect on a fleet: verdict (the fleet verdict), METRIC.ratio (the pooled ratio); other
 * metrics are judged on every machine's median; subjects are cells (id or name) or machines. */
void fleet_expect(const struct expect *x, const struct fleet *f, struct expect_outcome *out)
{
	bool verdict = x->unit == EXPECT_WORD, ratio = strstr(x->metric, ".ratio") != NULL;
	struct expect_value *vals = xcalloc((size_t)(f->ncells * (f->nm + 1)) + 1, sizeof(*vals));
	char (*who)[200] = xcalloc((size_t)(f->ncells * (f->nm + 1)) + 1, sizeof(*who));
	int n = 0;
	if (verdict || ratio) {
		char buf[40];
		const char *m = compare_metric_of(x->metric, buf, sizeof(buf));
		for (int c = 1; c < f->ncells; c++) {
			const struct fleet_cell *fc = &f->cells[c];
			if (ratio && (!m || strcmp(m, compare_metric_id(f->metric)))) {
				snprintf(out->detail, sizeof(out->detail), "%s: a fleet pools --metric (%s) only; give --metric for "
				         "another", x->metric, compare_metric_id(f->metric));
				free(vals);
				free(who);
				out->met = out->judged = false;
				return;
			}
			snprintf(who[n], sizeof(who[n]), "%s", x->subject[0] && strcmp(x->subject, fc->name) == 0 ? fc->name : fc->id);
			vals[n].who = who[n];
			vals[n].word = verdict_name(fc->verdict);
			vals[n].v = fc->pooled.est;
			n++;
		}
	} else {
		for (int m = 0; m < f->nm; m++) {
			struct expect_outcome o;
			struct expect xm = *x;
			if (x->subject[0] && strcmp(x->subject, f->m[m].name) == 0)
				xm.subject[0] = 0;
			else if (x->subject[0])
				continue;
			compare_expect(&xm, &f->m[m].c, NULL, &o);
			if (!o.judged)
				continue;
			snprintf(who[n], sizeof(who[n]), "%.199s", x->subject[0] ? x->subject : f->m[m].name);
			vals[n].who = who[n];
			/* a machine counts as its worst case: met or not */
			vals[n].word = o.met ? "met" : "unmet";
			n++;
			snprintf(out->detail, sizeof(out->detail), "%.60s: %.190s", f->m[m].name, o.detail);
			if (!o.met)
				break;
		}
		struct expect w = {.unit = EXPECT_WORD, .op = EXPECT_EQ};
		snprintf(w.word, sizeof(w.word), "met");
		snprintf(w.metric, sizeof(w.metric), "%s", x->metric);
		char detail[256];
		snprintf(detail, sizeof(detail), "%s", out->detail);
		expect_judge(&w, vals, n, out);
		if (out->judged)
			snprintf(out->detail, sizeof(out->detail), "%s", detail);
		free(vals);
		free(who);
		return;
	}
	expect_judge(x, vals, n, out);
	free(vals);
	free(who);
}

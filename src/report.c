/* irt report RESULT|DIR ...: the HTML, SVG and text reports of saved results and sweeps.
 *
 * Inputs are result files (irt-result/1) and directories: every *.json in a directory is a
 * result, except sweep.json, a sweep summary (irt-sweep/1) whose cells name their repetition
 * files relative to the directory. Any bad input stops the report before anything is written
 * (one line "irt: FILE: what", exit 2); files are written atomically. */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "out/html.h"
#include "out/report.h"
#include "sweep_runs.h"
#include "sweep_summary.h"
#include "util.h"

struct inputs {
	struct result **rs;
	char **labels;       /* shown in legends and tables */
	char **real;         /* realpath, to load each file once */
	char **path;         /* as loaded */
	int *cell_of;
	int n, cap;
	struct sweep_summary sw;
	bool has_sw;
};

static void inputs_free(struct inputs *in)
{
	for (int i = 0; i < in->n; i++) {
		result_free(in->rs[i]);
		free(in->rs[i]);
		free(in->labels[i]);
		free(in->real[i]);
		free(in->path[i]);
	}
	free(in->path);
	free(in->rs);
	free(in->labels);
	free(in->real);
	free(in->cell_of);
	if (in->has_sw)
		sweep_summary_free(&in->sw);
	memset(in, 0, sizeof(*in));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* "dir/c0/r1.json" -> "c0/r1" when rel is "c0/r1.json" */
static char *label_of(const char *rel)
{
	char *l = err_escape_dup(rel);   /* file names are anyone's: no control character in a label */
	if (ends_with(l, ".json"))
		l[strlen(l) - 5] = 0;
	return l;
}

/* Was the file at real (its realpath) loaded before? Then it is now in cell, if one. */
static bool loaded(struct inputs *in, const char *real, int cell)
{
	for (int i = 0; i < in->n; i++)
		if (strcmp(in->real[i], real) == 0) {
			if (cell >= 0)
				in->cell_of[i] = cell;
			return true;
		}
	return false;
}

/* Takes result r (read already), loaded from path, known by real. */
static void keep(struct inputs *in, struct result *r, const char *real, const char *path, const char *label, int cell)
{
	if (in->n == in->cap) {   /* five arrays, one capacity */
		size_t cap = array_next_cap((size_t)in->cap, (size_t)in->n + 1);
		in->rs = xreallocarray(in->rs, cap, sizeof(*in->rs));
		in->labels = xreallocarray(in->labels, cap, sizeof(*in->labels));
		in->real = xreallocarray(in->real, cap, sizeof(*in->real));
		in->cell_of = xreallocarray(in->cell_of, cap, sizeof(*in->cell_of));
		in->path = xreallocarray(in->path, cap, sizeof(*in->path));
		in->cap = (int)cap;
	}
	int i = in->n++;
	in->rs[i] = r;
	in->labels[i] = label_of(label);
	in->real[i] = xstrdup(real);
	in->path[i] = xstrdup(path);
	in->cell_of[i] = cell;
}

/* The realpath of a file, only to load each file once; else path itself (a file in a directory
 * irt read without following links, sweep_dir_fopen; a pipe, `<(cmd)`, whose /dev/fd/N leads
 * to no path). */
static const char *real_of(const char *path, char *real)
{
	return realpath(path, real) ? real : path;
}

/* Loads a result file named on the command line unless it was loaded before. */
static int add_result(struct inputs *in, const char *path, const char *label, struct err *e)
{
	char real[PATH_MAX];
	const char *rp = real_of(path, real);
	if (loaded(in, rp, -1))
		return 0;
	struct result *r = xcalloc(1, sizeof(*r));
	if (result_read(r, path, e)) {   /* a missing file: "cannot open", as realpath would have said */
		free(r);
		return -1;
	}
	keep(in, r, rp, path, label, -1);
	return 0;
}

/* The sweep in directory fd dfd (dir names it): sweep.json and its runs, read as irt compare
 * DIR reads them (sweep_runs_read_at: no link followed, regular files only, any owner). 1 when
 * there is no sweep.json. */
static int add_sweep(struct inputs *in, int dfd, const char *dir, struct err *e)
{
	char shown[PATH_MAX], real[PATH_MAX];
	size_t n = strlen(dir);
	snprintf(shown, sizeof(shown), "%s%ssweep.json", dir, n && dir[n - 1] != '/' ? "/" : "");
	struct stat st;
	if (fstatat(dfd, "sweep.json", &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
		return 1;
	if (in->has_sw)
		return err_set(e, EXIT_USAGE, "%s: a second sweep summary (one sweep per report; the first is %s)", shown,
		               in->sw.path);
	struct sweep_runs rs;
	int rc = sweep_runs_read_at(&rs, dfd, dir, &in->sw, e);
	in->has_sw = rc == 0;
	if (rc) {
		sweep_summary_free(&in->sw);
		sweep_runs_free(&rs);
		return rc;
	}
	/* the runs in the order the summary lists them: cell c's repetitions */
	for (int c = 0, i = 0; c < in->sw.ncells; c++)
		for (int k = 0; k < in->sw.cells[c].reps.n; k++, i++) {
			const char *rp = real_of(rs.paths[i], real);
			if (loaded(in, rp, c))
				continue;
			struct result *r = xmalloc(sizeof(*r));
			*r = rs.runs[i];
			memset(&rs.runs[i], 0, sizeof(rs.runs[i]));
			keep(in, r, rp, rs.paths[i], in->sw.cells[c].reps.v[k], c);
		}
	sweep_runs_free(&rs);
	return 0;
}

/* DIR/sweep.json named on the command line: the sweep of DIR. */
static int add_sweep_file(struct inputs *in, const char *path, struct err *e)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%.*s", (int)(base_name(path) - path), path);
	int dfd = sweep_dir_open(dir[0] ? dir : ".", "irt report", e);
	if (dfd < 0)
		return -1;
	int rc = add_sweep(in, dfd, dir, e);
	close(dfd);
	return rc > 0 ? err_set(e, EXIT_USAGE, "%s: cannot open (%s)", path, strerror(ENOENT)) : rc;
}

/* A result file in directory fd dfd, read as the sweep's runs are (sweep_dir_fopen). */
static int add_result_at(struct inputs *in, int dfd, const char *name, const char *path, struct err *e)
{
	char real[PATH_MAX];
	const char *rp = real_of(path, real);
	if (loaded(in, rp, -1))
		return 0;
	FILE *f = sweep_dir_fopen(dfd, name, path, e);
	if (!f)
		return -1;
	int rc = 0;
	if (!result_stream_other(f)) {
		struct result *r = xcalloc(1, sizeof(*r));
		rewind(f);
		if ((rc = result_read_stream(r, f, path, e)))
			free(r);
		else
			keep(in, r, rp, path, name, -1);
	}
	fclose(f);
	return rc;
}

/* Every *.json directly in dir (directory fd dfd, opened by sweep_dir_open): sweep.json's
 * sweep, then the other results, read by the rule of a sweep's (sweep_runs.h). */
static int add_dir(struct inputs *in, int dfd, const char *dir, struct err *e)
{
	struct strlist all = {0}, names = {0};
	if (sweep_dir_list(dfd, &all))
		return err_set(e, EXIT_USAGE, "%s: cannot read the directory (%s)", dir, strerror(errno));
	struct stat st;
	for (int i = 0; i < all.n; i++)   /* a directory named *.json is no file of results */
		if (ends_with(all.v[i], ".json") && all.v[i][0] != '.' &&
		    !(fstatat(dfd, all.v[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)))
			strlist_add(&names, all.v[i]);
	strlist_free(&all);
	int before = in->n;
	int rc = add_sweep(in, dfd, dir, e);
	bool sweep = rc == 0;
	rc = rc > 0 ? 0 : rc;
	char path[PATH_MAX * 2];
	for (int i = 0; i < names.n && !rc; i++) {
		if (strcmp(names.v[i], "sweep.json") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names.v[i]);
		rc = add_result_at(in, dfd, names.v[i], path, e);
	}
	if (!rc && in->n == before && !sweep)
		rc = err_set(e, EXIT_USAGE, "%s: no result files (*.json) in it (give result files or a directory holding them)", dir);
	strlist_free(&names);
	return rc;
}

/* Labels must tell results apart: where two are equal, the paths as loaded are used. */
static void distinct_labels(struct inputs *in)
{
	for (int i = 0; i < in->n; i++)
		for (int j = i + 1; j < in->n; j++)
			if (strcmp(in->labels[i], in->labels[j]) == 0) {
				free(in->labels[i]);
				free(in->labels[j]);
				in->labels[i] = label_of(in->path[i]);
				in->labels[j] = label_of(in->path[j]);
			}
}

/* Cells of a simulated sweep given as files (irt sim --json FILE writes FILE-cellNNN.json) are
 * labelled as irt compare names them, by the swept values that tell them apart ("fill=10ms"),
 * not by file name; a cell's second run (another --sim-seed) adds its file. */
static void cell_labels(struct inputs *in)
{
	if (in->has_sw || in->n < 2)
		return;
	for (int i = 0; i < in->n; i++)
		if (!kvlist_get(&in->rs[i]->settings, "sweep-cell"))
			return;
	char (*names)[COMPARE_NAME_LEN] = xcalloc((size_t)in->n, sizeof(*names));
	compare_cell_names((const struct result *const *)in->rs, in->n, names);
	for (int i = 0; i < in->n; i++) {
		bool twin = false;
		for (int j = 0; j < in->n && !twin; j++)
			twin = j != i && strcmp(names[i], names[j]) == 0;
		char l[COMPARE_NAME_LEN + PATH_MAX];
		snprintf(l, sizeof(l), twin ? "%s (%s)" : "%s", names[i], in->labels[i]);
		free(in->labels[i]);
		in->labels[i] = xstrdup(l);
	}
	free(names);
}

/* The inputs; dfd, when not -1, is the one input's directory, already open. */
static int collect(struct inputs *in, char **args, int n, int dfd, struct err *e)
{
	for (int a = 0; a < n; a++) {
		struct stat st;
		bool in_stdin = strcmp(args[a], "-") == 0;   /* standard input, as irt compare reads it */
		if (!in_stdin && stat(args[a], &st))
			return err_set(e, EXIT_USAGE, "%s: cannot open (%s)", args[a], strerror(errno));
		int rc;
		if (in_stdin) {
			rc = add_result(in, args[a], args[a], e);
		} else if (S_ISDIR(st.st_mode)) {
			int d = dfd >= 0 ? dfd : sweep_dir_open(args[a], "irt report", e);
			rc = d < 0 ? -1 : add_dir(in, d, args[a], e);
			if (d >= 0 && d != dfd)
				close(d);
		} else if (strcmp(base_name(args[a]), "sweep.json") == 0) {
			rc = add_sweep_file(in, args[a], e);
		} else {
			rc = add_result(in, args[a], base_name(args[a]), e);
		}
		if (rc)
			return -1;
	}
	distinct_labels(in);
	cell_labels(in);
	return 0;
}

/* The sweep's name of a --metric choice: "wake-p99" is "wake_p99" there (or as given). */
static const char *sweep_metric_name(const struct sweep_summary *sw, const char *choice, char *buf, size_t len)
{
	snprintf(buf, len, "%s", choice);
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	for (int i = 0; i < sw->ncells; i++)
		if (sweep_cell_metric(&sw->cells[i], choice))
			return choice;
	return buf;
}

int cmd_report(int argc, char **argv)
{
	struct err e = {0};
	struct opt_args a;
	struct global_cfg g;
	struct report_cfg rc;
	struct inputs in = {0};
	const struct opt *metric_opt = NULL;

	memset(&rc, 0, sizeof(rc));
	opt_defaults(SCOPE_REPORT, &rc);
	if (opt_parse(argc, argv, SCOPE_GLOBAL | SCOPE_REPORT, &a, &e) || cli_globals(&a, &g, &e))
		goto fail_args;
	for (int i = 0; i < a.n; i++) {
		const struct opt *o = a.items[i].opt;
		if (!(o->scope & SCOPE_REPORT))
			continue;
		if (strcmp(o->name, "svg") && strcmp(o->name, "metric")) {
			err_set(&e, EXIT_USAGE, "%s: an option of irt compare, not of irt report", a.items[i].where);
			goto fail_args;
		}
		if (opt_set(o, &rc, a.items[i].value, a.items[i].where, &e))
			goto fail_args;
		if (!strcmp(o->name, "metric"))
			metric_opt = o;
	}
	if (a.npos == 0) {
		err_set(&e, EXIT_USAGE, "report: no input (usage: irt report RESULT|DIR ... [-o report.html])");
		goto fail_args;
	}
	struct stat svg_st;
	if (rc.svg[0] && lstat(rc.svg, &svg_st) == 0 && !S_ISDIR(svg_st.st_mode)) {   /* a link is not followed */
		err_set(&e, EXIT_USAGE, "--svg: '%s' is %s (expected a directory for the charts, made if missing)", rc.svg,
		        S_ISLNK(svg_st.st_mode) ? "a symbolic link" : "not a directory");
		goto fail_args;
	}
	if ((g.json[0] && cli_check_report_output("report", "-o", g.json, &e)) || (rc.svg[0] && cli_check_parent("--svg", rc.svg, &e)))
		goto fail_args;
	/* one directory: opened once, and told apart by what it holds (compare.h) */
	int dfd = -1;
	struct stat st;
	if (a.npos == 1 && stat(a.pos[0], &st) == 0 && S_ISDIR(st.st_mode) &&
	    (dfd = sweep_dir_open(a.pos[0], "irt report", &e)) < 0)
		goto fail_args;
	if (dfd >= 0 && compare_is_fleet(dfd)) {   /* a directory of machines (irt fleet) */
		struct fleet f;
		const char *html = g.json[0] ? g.json : g.format == FORMAT_HTML ? "-" : NULL;
		int frc = fleet_read(&f, dfd, a.pos[0], &rc, (uint64_t)g.seed, &e);
		close(dfd);
		if (frc)
			goto fail_args;
		if (html && report_fleet_html(&f, html, &e)) {
			fleet_free(&f);
			goto fail_args;
		}
		if (g.format == FORMAT_TABLE || g.format == FORMAT_TEXT)
			fleet_print(&f, stdout);
		fleet_free(&f);
		opt_args_free(&a);
		return EXIT_OK;
	}
	int crc = collect(&in, a.pos, a.npos, dfd, &e);
	if (dfd >= 0)
		close(dfd);
	if (crc)
		goto fail_args;
	opt_args_free(&a);

	/* --metric names a latency metric; without it the sweep summary's own metric is charted */
	char metric[64] = "", mbuf[64];
	if (metric_opt && !in.has_sw) {
		err_set(&e, EXIT_USAGE, "--metric: only applies to a sweep (give a directory holding sweep.json)");
		goto fail;
	}
	if (metric_opt)
		snprintf(metric, sizeof(metric), "%s", sweep_metric_name(&in.sw, metric_opt->choices[rc.metric], mbuf,
		                                                         sizeof(mbuf)));
	struct report_in ri = {
		.rs = (const struct result *const *)in.rs,
		.n = in.n,
		.labels = (const char *const *)in.labels,
		.sw = in.has_sw ? &in.sw : NULL,
		.cell_of = in.cell_of,
		.metric = metric[0] ? metric : NULL,
	};
	const char *m;
	if (report_metric(&ri, &m, &e))
		goto fail;
	/* files first: a failure leaves stdout clean of a half report */
	const char *html = g.json[0] ? g.json : g.format == FORMAT_HTML ? "-" : NULL;
	if (html && report_html(&ri, html, &e))
		goto fail;
	if (rc.svg[0] && report_svg_dir(&ri, rc.svg, &e))
		goto fail;
	if ((g.format == FORMAT_TABLE || g.format == FORMAT_TEXT) && report_text(stdout, &ri, &e))
		goto fail;
	inputs_free(&in);
	return EXIT_OK;

fail_args:
	opt_args_free(&a);
fail:
	inputs_free(&in);
	return err_print(&e);
}

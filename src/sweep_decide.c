/* After the runs of irt sweep: the comparison of every cell's results (irt compare), the
 * summary sweep.json (irt-sweep/1) and, with --until-decided, the sequential looks that add
 * rounds until every cell has a verdict (docs/statistics.md). The plan and the runs: sweep.c. */
#include "sweep_priv.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "expect.h"
#include "linux/signals.h"
#include "stats.h"
#include "sweep_runs.h"
#include "units.h"
#include "util.h"

/* ---- summary ---- */

/* A statistic as the summary stores it: without an interval (one run), a point. */
static json_t *summary_stat(const struct ci *ci)
{
	double lo = ci->lo, hi = ci->hi;
	if (!isfinite(lo) || !isfinite(hi) || lo > ci->est || hi < ci->est)
		lo = hi = ci->est;
	return json_pack("{sfsfsf}", "median", ci->est, "lo", lo, "hi", hi);
}

/* "wake-p99" -> "wake_p99", the summary's metric names */
static void summary_metric_name(const char *id, char *buf, size_t len)
{
	snprintf(buf, len, "%s", id);
	for (char *q = buf; *q; q++)
		if (*q == '-')
			*q = '_';
}

/* A swept load is the summary's load column, not one of its knobs. */
static bool is_load_dim(const struct dim *d)
{
	return d->opt && strcmp(d->opt->name, "load") == 0;
}

/* One summary cell from the comparison's cell k (sweep cell `cell`): the latency rows of the
 * first thread block ("all" when several) and the first load's throughput; the ratio and
 * verdict of the sweep's metric. */
static json_t *summary_cell(const struct sweep *sw, const struct compare *c, int k, int cell, const int *rep_of)
{
	const struct plan *p = &sw->plan;
	json_t *o = json_object(), *set = json_object(), *reps = json_array(), *metrics = json_object();
	char id[16], metric[64], name[64];
	summary_metric_name(compare_metric_id(sw->rep.metric), metric, sizeof(metric));
	snprintf(id, sizeof(id), "c%d", cell);
	json_object_set_new(o, "id", json_string(id));
	for (int d = 0; d < p->ndims; d++)
		if (!p->dims[d].constant && !is_load_dim(&p->dims[d]))
			json_object_set_new(set, p->dims[d].key, json_string(sweep_cell_value(p, cell, d)));
	json_object_set_new(o, "settings", set);
	/* the loads its runs ran (as given: --load, [load] sections, a swept load), "" for none */
	char load[1024] = "";
	const struct result *first = &c->results[c->cells[k].runs[0]];
	for (int l = 0, n = 0; l < first->nloads && n < (int)sizeof(load); l++)
		n += snprintf(load + n, sizeof(load) - (size_t)n, "%s%s", n ? " + " : "", first->loads[l].spec);
	json_object_set_new(o, "load", json_string(load));
	for (int j = 0; j < c->cells[k].nruns; j++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "c%d/r%d.json", cell, rep_of[c->cells[k].runs[j]]);
		json_array_append_new(reps, json_string(rel));
	}
	json_object_set_new(o, "repetitions", reps);
	int first_thread = c->nthreads > 1 ? COMPARE_ALL_THREADS : 0;
	for (int i = 0; i < c->nrows; i++) {
		const struct compare_row *row = &c->rows[i];
		if (row->cell != k || (row->load < 0 && row->thread != first_thread) || !isfinite(row->summary.est))
			continue;
		summary_metric_name(row->metric, name, sizeof(name));
		if (json_object_get(metrics, name))
			continue;   /* several loads: the first */
		json_object_set_new(metrics, name, summary_stat(&row->summary));
		if (strcmp(name, metric) == 0) {
			if (isfinite(row->cmp.ratio.est))
				json_object_set_new(o, "ratio", summary_stat(&row->cmp.ratio));
			json_object_set_new(o, "verdict", json_string(verdict_name(row->cmp.verdict)));
			if (sw->decided && sw->decided[cell] >= 0)   /* the look that decided it is the verdict */
				json_object_set_new(o, "verdict", json_string(verdict_name((enum verdict)sw->decided[cell])));
		}
	}
	json_object_set_new(o, "metrics", metrics);
	return o;
}

/* sweep.json (irt-sweep/1, rendered by irt report) from the comparison of the sweep's runs;
 * cell_of[i] and rep_of[i] say which cell and repetition result i is. */
static int write_summary(const struct sweep *sw, const struct compare *c, const int *cell_of, const int *rep_of,
                         const char *dir, struct err *e)
{
	const struct plan *p = &sw->plan;
	/* compare names cells itself (A, B, ...): ours are the cells of their runs */
	int *cmp_cell = xmalloc(sizeof(int) * (size_t)p->ncells);
	for (int k = 0; k < p->ncells; k++)
		cmp_cell[k] = -1;
	for (int k = 0; k < c->ncells; k++)
		cmp_cell[cell_of[c->cells[k].runs[0]]] = k;
	char metric[64], id[16];
	summary_metric_name(compare_metric_id(sw->rep.metric), metric, sizeof(metric));
	json_t *root = json_object(), *knobs = json_array(), *cells = json_array(), *pareto = json_array();
	json_object_set_new(root, "schema", json_string("irt-sweep/1"));
	json_object_set_new(root, "metric", json_string(metric));
	for (int d = 0; d < p->ndims; d++)
		if (!p->dims[d].constant && !is_load_dim(&p->dims[d]))
			json_array_append_new(knobs, json_string(p->dims[d].key));
	json_object_set_new(root, "knobs", knobs);
	for (int k = 0; k < p->ncells; k++)
		if (cmp_cell[k] >= 0)   /* else no finished run */
			json_array_append_new(cells, summary_cell(sw, c, cmp_cell[k], k, rep_of));
	snprintf(id, sizeof(id), "c%d", cell_of[c->cells[c->base].runs[0]]);
	json_object_set_new(root, "baseline", json_string(id));
	json_object_set_new(root, "cells", cells);
	for (int k = 0; k < c->ncells && c->pareto; k++)
		if (c->pareto[k]) {
			snprintf(id, sizeof(id), "c%d", cell_of[c->cells[k].runs[0]]);
			json_array_append_new(pareto, json_string(id));
		}
	json_object_set_new(root, "pareto", pareto);
	if (c->ncells > 1) {
		snprintf(id, sizeof(id), "c%d", cell_of[c->cells[c->better ? c->best : c->base].runs[0]]);
		json_object_set_new(root, "recommendation", json_string(id));
	}
	if (sw->decided) {   /* --until-decided: why it stopped, and when each cell was decided */
		json_t *u = json_object(), *at = json_object();
		json_object_set_new(u, "stopped", json_string(sw->stopped));
		for (int k = 0; k < p->ncells; k++)
			if (sw->decided[k] >= 0) {
				snprintf(id, sizeof(id), "c%d", k);
				json_object_set_new(at, id, json_integer(sw->decided_at[k]));
			}
		json_object_set_new(u, "decided_at_runs", at);
		json_object_set_new(root, "until_decided", u);
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	int rc = sweep_write_json(root, path, e);
	json_decref(root);
	free(cmp_cell);
	return rc;
}

/* The finished runs of repetitions below `reps`, every cell: results, paths, cell, repetition. */
static int runset_load(const struct sweep *sw, const char *dir, int reps, struct sweep_runs *rs, struct err *e)
{
	const struct plan *p = &sw->plan;
	memset(rs, 0, sizeof(*rs));
	for (int k = 0; k < p->ncells; k++)
		for (int rep = 0; rep < reps; rep++) {
			char path[4096];
			sweep_run_path(dir, k, rep, path, sizeof(path));
			if (access(path, F_OK))
				continue;
			sweep_runs_grow(rs);
			if (result_read(&rs->runs[rs->n], path, e))
				return -1;
			rs->cell_of[rs->n] = k;
			rs->rep_of[rs->n] = rep;
			rs->paths[rs->n++] = xstrdup(path);
		}
	return 0;
}

int sweep_summarize(struct sweep *sw, const char *dir, int reps, struct expect_set *gate, struct err *e)
{
	struct sweep_runs rs = {0};
	int rc = 0;
	if (runset_load(sw, dir, reps, &rs, e)) {
		rc = -1;
		goto out;
	}
	int *cell_of = rs.cell_of, *rep_of = rs.rep_of;
	if (rs.n == 0)
		goto out;
	struct compare c;
	if (sweep_runs_compare(&rs, &sw->rep, (uint64_t)sw->g.seed, gate, &c, e)) {
		rc = -1;
		goto out;
	}
	if (sw->g.format != FORMAT_NONE) {
		printf("\n");
		compare_print(&c, stdout);
	}
	char path[4096];
	snprintf(path, sizeof(path), "%.200s/compare.json", dir);
	if (compare_write_json(&c, path, e) || write_summary(sw, &c, cell_of, rep_of, dir, e))
		rc = -1;
	compare_free(&c);
out:
	sweep_runs_free(&rs);
	return rc;
}

/* ---- --until-decided: rounds until every cell has a verdict (docs/statistics.md) ---- */

/* One look: the comparison of the runs of repetitions below `reps`, at this look's alpha;
 * every undecided cell whose --metric verdict against the baseline is better, worse or
 * equivalent is decided now. *base gets the baseline's sweep cell. */
static int look(struct sweep *sw, const char *dir, int reps, double alpha, int *base, struct err *e)
{
	struct sweep_runs rs = {0};
	struct compare c;
	struct report_cfg cfg = sw->rep;
	cfg.look_alpha = alpha;
	if (runset_load(sw, dir, reps, &rs, e) || sweep_runs_compare(&rs, &cfg, (uint64_t)sw->g.seed, NULL, &c, e)) {
		sweep_runs_free(&rs);
		return -1;
	}
	*base = rs.cell_of[c.cells[c.base].runs[0]];
	const char *metric = compare_metric_id(sw->rep.metric);
	int first = c.nthreads > 1 ? COMPARE_ALL_THREADS : 0;
	for (int i = 0; i < c.nrows; i++) {
		const struct compare_row *row = &c.rows[i];
		int cell = rs.cell_of[c.cells[row->cell].runs[0]];
		enum verdict v = row->cmp.verdict;
		if (row->load >= 0 || row->thread != first || strcmp(row->metric, metric) || sw->decided[cell] >= 0 ||
		    row->cell == c.base)
			continue;
		if (v == VERDICT_BETTER || v == VERDICT_WORSE || v == VERDICT_EQUIVALENT) {
			sw->decided[cell] = (int)v;
			sw->decided_at[cell] = row->runs;
		}
		snprintf(sw->why[cell], sizeof(sw->why[cell]), "%s%s%s%s", verdict_name(v), row->cmp.why[0] ? " (" : "",
		         row->cmp.why, row->cmp.why[0] ? ")" : "");
	}
	compare_free(&c);
	sweep_runs_free(&rs);
	return 0;
}

/* After the planned rounds: a look, then a shuffled round of the baseline and the undecided
 * cells, until none is left, --max-repeat or --budget. Each look spends its share of alpha
 * (stats_look_alpha), so the looks together keep the false-positive rate. Everything is
 * derived from the result files, so --resume continues where it stopped. Returns the
 * repetitions per cell reached, -1 on error; *interrupted on a signal. */
int sweep_until_decided(struct sweep *sw, const char *dir, int64_t t_start, bool *interrupted, struct err *e)
{
	const struct plan *p = &sw->plan;
	int n_max = (int)sw->sc.max_repeat, prev = 0, n, base = 0, runs_done = 0;
	double alpha = 0.05;
	int64_t run_ns = 0;
	sw->decided = xcalloc((size_t)p->ncells, sizeof(int));
	sw->decided_at = xcalloc((size_t)p->ncells, sizeof(int));
	sw->why = xcalloc((size_t)p->ncells, sizeof(*sw->why));
	for (int k = 0; k < p->ncells; k++)
		sw->decided[k] = -1;
	int *round = xcalloc((size_t)p->ncells, sizeof(int));
	char budget[32];
	units_human_duration(budget, sizeof(budget), sw->sc.budget);
	for (n = p->repeat;; n++) {
		sw->last_alpha = stats_look_alpha(alpha, prev, n, n_max);
		if (look(sw, dir, n, sw->last_alpha, &base, e))
			break;
		prev = n;
		int left = 0;
		for (int k = 0; k < p->ncells; k++)
			left += k != base && sw->decided[k] < 0;
		fprintf(stderr, "irt sweep: look at %d runs per cell: %d of %d cells decided\n", n, p->ncells - 1 - left,
		        p->ncells - 1);
		if (left == 0) {
			snprintf(sw->stopped, sizeof(sw->stopped), "every cell has a verdict against the baseline");
			break;
		}
		if (n >= n_max) {
			snprintf(sw->stopped, sizeof(sw->stopped), "--max-repeat %d reached with %d cell%s undecided", n_max,
			         left, left == 1 ? "" : "s");
			break;
		}
		/* the next round: the baseline and the undecided cells, shuffled */
		int m = 0;
		for (int k = 0; k < p->ncells; k++)
			if (k == base || sw->decided[k] < 0)
				round[m++] = k;
		struct rng r;
		rng_seed(&r, p->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(n + 1)));
		for (int i = m - 1; i > 0; i--) {
			int j = (int)rng_below(&r, (uint64_t)i + 1), t = round[i];
			round[i] = round[j];
			round[j] = t;
		}
		for (int i = 0; i < m && !sw->stopped[0]; i++) {
			char path[4096];
			sweep_run_path(dir, round[i], n, path, sizeof(path));
			if (access(path, F_OK) == 0)
				continue;   /* done before an interruption */
			int64_t spent = mono_ns() - t_start;
			if (sw->sc.budget > 0 && spent + (runs_done ? run_ns / runs_done : 0) > sw->sc.budget) {
				snprintf(sw->stopped, sizeof(sw->stopped), "the budget (%s) is spent with %d cell%s undecided",
				         budget, left, left == 1 ? "" : "s");
				break;
			}
			int64_t t0 = mono_ns();
			int rc = sweep_run_cell(sw, round[i], n, dir, e);
			if (rc < 0) {
				free(round);
				return -1;
			}
			if (rc > 0 || sig_poll_stop()) {
				*interrupted = true;
				free(round);
				return n + 1;
			}
			run_ns += mono_ns() - t0;
			runs_done++;
		}
		if (sw->stopped[0]) {
			n++;   /* the runs of the unfinished round count too */
			break;
		}
	}
	free(round);
	return e->code ? -1 : n;
}

/* Why it stopped, and per cell the verdict and when it came, or why it is still open. */
void sweep_print_decisions(const struct sweep *sw)
{
	const struct plan *p = &sw->plan;
	printf("\nuntil decided (--metric %s; each look at its share of alpha 0.05): stopped: %s\n",
	       compare_metric_id(sw->rep.metric), sw->stopped);
	for (int k = 0; k < p->ncells; k++) {
		char label[512];
		sweep_cell_label(p, k, label, sizeof(label));
		if (sw->decided[k] >= 0)
			printf("  c%d %s: %s at %d runs per cell\n", k, label, verdict_name((enum verdict)sw->decided[k]),
			       sw->decided_at[k]);
		else if (sw->why[k][0])
			printf("  c%d %s: undecided: %s\n", k, label, sw->why[k]);
		else
			printf("  c%d %s: the baseline\n", k, label);
	}
}

/* The simulation pivot: a sweep's cells as matrices, one swept key down and another across,
 * one matrix per simulated thread showing the figure that thread is judged by, the best cell
 * marked. It is how a super period and fill slice are chosen from data (docs/sim.md): a
 * one-shot's completion (boot time), a timer's windows with enough activations, a periodic
 * thread's response p99, a best-effort thread's share. Both reports render this model. */
#include "out/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int index_of(const struct strlist *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return i;
	return -1;
}

static int add_unique(struct strlist *l, const char *s)
{
	int i = index_of(l, s);
	if (i < 0) {
		strlist_add(l, s);
		i = l->n - 1;
	}
	return i;
}

/* The thread named name among r's simulated threads, NULL when it has none. */
const struct result_thread *report_sim_thread(const struct result *r, const char *name)
{
	for (int t = 0; t < r->nthreads; t++)
		if (strcmp(r->threads[t].role, "sim") == 0 && strcmp(r->threads[t].name, name) == 0)
			return &r->threads[t];
	return NULL;
}

/* The figure a thread is judged by: what docs/sim.md's examples decide on. */
static enum pivot_fig figure_of(const struct report_in *in, const char *name)
{
	enum pivot_fig f = PIVOT_SHARE;
	for (int i = 0; i < in->n; i++) {
		const struct result_thread *t = report_sim_thread(in->rs[i], name);
		if (!t)
			continue;
		if (t->sim_completion_ns)
			return PIVOT_DONE;
		if (t->sim_windows || t->sim_activations_min >= 0)
			f = PIVOT_WINDOWS;
		else if (t->resp.count && f == PIVOT_SHARE)
			f = PIVOT_RESP;
	}
	return f;
}

const char *sim_pivot_fig_name(enum pivot_fig f)
{
	static const char *const names[] = {
		[PIVOT_DONE] = "completion (boot time), lower is better",
		[PIVOT_WINDOWS] = "timer windows with enough activations, more is better",
		[PIVOT_RESP] = "response p99, lower is better",
		[PIVOT_SHARE] = "CPU share, more is better for it",
	};
	return names[f];
}

/* Each result's swept keys and values as written; false when a result is no sweep cell. */
static bool cells_of(const struct report_in *in, struct kvlist *cells)
{
	for (int i = 0; i < in->n; i++) {
		result_sweep_cell(in->rs[i], &cells[i]);
		if (!cells[i].n)
			return false;
	}
	return true;
}

/* "k=v k2=v2" of the keys of cell c that are not the two axes */
static void group_label(const struct kvlist *c, const struct strlist *vary, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int k = 2; k < vary->n && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", vary->v[k], kvlist_get(c, vary->v[k]));
}

int sim_pivot_build(const struct report_in *in, struct sim_pivot *p)
{
	memset(p, 0, sizeof(*p));
	if (in->n < 2 || !report_has_sim(in))
		return 0;
	struct kvlist *cells = xcalloc((size_t)in->n, sizeof(*cells));
	struct strlist vary = {0};   /* swept keys whose value differs between the results, in sweep order */
	int ok = cells_of(in, cells);
	for (int i = 1; ok && i < in->n; i++)
		for (int k = 0; k < cells[i].n || k < cells[0].n; k++)
			if (cells[i].n != cells[0].n || strcmp(cells[i].v[k].key, cells[0].v[k].key)) {
				snprintf(p->why, sizeof(p->why), "%s is not a cell of the sweep of %s",
				         kvlist_get(&in->rs[i]->settings, "sweep-cell"), kvlist_get(&in->rs[0]->settings, "sweep-cell"));
				ok = 0;
				break;
			}
	for (int k = 0; ok && k < cells[0].n; k++)   /* in sweep order: the first key varies slowest */
		for (int i = 1; i < in->n; i++)
			if (strcmp(cells[i].v[k].value, cells[0].v[k].value)) {
				strlist_add(&vary, cells[0].v[k].key);
				break;
			}
	if (ok && vary.n < 2)
		ok = 0;   /* one swept key: the table across the results is the matrix */
	if (ok) {
		snprintf(p->down, sizeof(p->down), "%s", vary.v[0]);
		snprintf(p->across, sizeof(p->across), "%s", vary.v[1]);
		char g[256];
		int(*idx)[3] = xcalloc((size_t)in->n, sizeof(*idx));   /* each result's group, row, column */
		for (int i = 0; i < in->n; i++) {
			group_label(&cells[i], &vary, g, sizeof(g));
			idx[i][0] = add_unique(&p->groups, g);
			idx[i][1] = add_unique(&p->rows, kvlist_get(&cells[i], p->down));
			idx[i][2] = add_unique(&p->cols, kvlist_get(&cells[i], p->across));
		}
		size_t nat = (size_t)p->groups.n * (size_t)p->rows.n * (size_t)p->cols.n;
		p->at = xmalloc(nat * sizeof(int));
		for (size_t k = 0; k < nat; k++)
			p->at[k] = -1;
		for (int i = 0; i < in->n && ok; i++) {
			int *slot = &p->at[((size_t)idx[i][0] * (size_t)p->rows.n + (size_t)idx[i][1]) * (size_t)p->cols.n +
			                   (size_t)idx[i][2]];
			if (*slot >= 0) {   /* another seed of a cell, or a cell given twice */
				char a[32], b[32];
				snprintf(p->why, sizeof(p->why), "%s and %s are the same cell (another seed?): one value per cell needed",
				         report_label(in, *slot, a, sizeof(a)), report_label(in, i, b, sizeof(b)));
				ok = 0;
			}
			*slot = i;
		}
		free(idx);
		for (int i = 0; i < in->n && ok; i++)
			for (int t = 0; t < in->rs[i]->nthreads; t++)
				if (strcmp(in->rs[i]->threads[t].role, "sim") == 0)
					add_unique(&p->threads, in->rs[i]->threads[t].name);
		p->figs = xcalloc((size_t)p->threads.n + 1, sizeof(*p->figs));
		for (int t = 0; t < p->threads.n; t++)
			p->figs[t] = figure_of(in, p->threads.v[t]);
	}
	for (int i = 0; i < in->n; i++)
		kvlist_free(&cells[i]);
	free(cells);
	strlist_free(&vary);
	if (!ok) {
		char why[sizeof(p->why)];
		memcpy(why, p->why, sizeof(why));
		sim_pivot_free(p);
		memcpy(p->why, why, sizeof(why));
	}
	return ok;
}

void sim_pivot_free(struct sim_pivot *p)
{
	strlist_free(&p->rows);
	strlist_free(&p->cols);
	strlist_free(&p->groups);
	strlist_free(&p->threads);
	free(p->at);
	free(p->figs);
	memset(p, 0, sizeof(*p));
}

/* A cell's value of thread t's figure (and its share beside any other figure: what the rest
 * cost) into c, and its score (lower is better; NAN: none). */
static double score(const struct result_thread *th, enum pivot_fig f, struct sim_pivot_cell *c)
{
	struct report_sim_figs g;
	report_sim_figs(th, &g);
	char *text = c->text;
	size_t len = sizeof(c->text);
	if (f != PIVOT_SHARE)
		snprintf(c->share, sizeof(c->share), "%s", g.share);
	switch (f) {
	case PIVOT_DONE:
		snprintf(text, len, "%s", g.done);
		return th->sim_completion_ns > 0 ? (double)th->sim_completion_ns : INFINITY;
	case PIVOT_WINDOWS:
		snprintf(text, len, "%s", g.timer);
		return th->sim_windows ? -(double)th->sim_windows_ok / (double)th->sim_windows : NAN;
	case PIVOT_RESP:
		if (!th->resp.count)
			return snprintf(text, len, "-"), NAN;
		report_ns(text, len, hist_percentile(&th->resp, 99), false);
		return (double)hist_percentile(&th->resp, 99);
	case PIVOT_SHARE:
		break;
	}
	snprintf(text, len, "%s", g.share);
	return -round((double)th->sim_share_ppm / 100.0);   /* as shown (0.01 %): equal-looking shares tie */
}

int sim_pivot_matrix(const struct sim_pivot *p, const struct report_in *in, int t, int g, struct sim_pivot_cell *out)
{
	int n = p->rows.n * p->cols.n, present = 0, best = 0;
	double lo = NAN, hi = NAN;
	double *sc = xcalloc((size_t)n, sizeof(double));
	for (int k = 0; k < n; k++) {
		struct sim_pivot_cell *c = &out[k];
		memset(c, 0, sizeof(*c));
		sc[k] = NAN;
		int i = p->at[(size_t)g * (size_t)n + (size_t)k];
		const struct result_thread *th = i >= 0 ? report_sim_thread(in->rs[i], p->threads.v[t]) : NULL;
		if (!th) {
			snprintf(c->text, sizeof(c->text), "–");
			continue;
		}
		sc[k] = score(th, p->figs[t], c);
		c->worst = th->sim_completion_ns < 0 && p->figs[t] == PIVOT_DONE;
		if (isnan(sc[k]))
			continue;
		present++;
		lo = isnan(lo) || sc[k] < lo ? sc[k] : lo;
		hi = isnan(hi) || sc[k] > hi ? sc[k] : hi;
	}
	/* the best are marked only where the cells differ: a figure equal everywhere decides nothing */
	for (int k = 0; k < n && present > 1 && lo < hi; k++)
		if (sc[k] == lo && isfinite(lo)) {
			out[k].best = true;
			best++;
		}
	free(sc);
	return best;
}

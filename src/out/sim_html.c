/* The HTML report's "Simulation" section (irt sim results only): what a simulated schedule gave
 * each thread — CPU share, used and spent time, switches, deadlines, a one-shot's completion
 * (boot time), a timer's windows with enough activations. First, for a sweep of two keys or more,
 * a matrix per thread (out/sim_pivot.c), then one table over the cells, then each cell's own table. Reports of
 * measured results are unchanged. */
#include "out/html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/svg.h"
#include "util.h"

static bool is_sim(const struct result_thread *t)
{
	return strcmp(t->role, "sim") == 0;
}

static bool has(const struct strlist *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

static void td(struct sbuf *b, const char *s)
{
	sb_puts(b, strcmp(s, "not done") == 0 ? "<td class=\"n worse\">" : "<td class=\"n\">");
	sb_esc(b, s);
	sb_puts(b, "</td>");
}

/* One row per result, one column per thread's share, then completions and timer windows. */
static void across(struct sbuf *b, const struct report_in *in)
{
	struct strlist names = {0}, done = {0}, timer = {0};
	for (int i = 0; i < in->n; i++)
		for (int t = 0; t < in->rs[i]->nthreads; t++) {
			const struct result_thread *th = &in->rs[i]->threads[t];
			if (!is_sim(th) || has(&names, th->name))
				continue;
			strlist_add(&names, th->name);
		}
	for (int k = 0; k < names.n; k++)
		for (int i = 0; i < in->n; i++) {
			const struct result_thread *th = report_sim_thread(in->rs[i], names.v[k]);
			if (th && th->sim_completion_ns && !has(&done, names.v[k]))
				strlist_add(&done, names.v[k]);
			if (th && (th->sim_windows || th->sim_activations_min >= 0) && !has(&timer, names.v[k]))
				strlist_add(&timer, names.v[k]);
		}
	sb_puts(b, "<h3>Across the results</h3>\n<table class=\"sim\">\n<tr><th>result</th>");
	for (int k = 0; k < names.n; k++) {
		sb_puts(b, "<th>");
		sb_esc(b, names.v[k]);
		sb_puts(b, " share</th>");
	}
	for (int k = 0; k < done.n; k++) {
		sb_puts(b, "<th>");
		sb_esc(b, done.v[k]);
		sb_puts(b, " completion</th>");
	}
	for (int k = 0; k < timer.n; k++) {
		sb_puts(b, "<th>");
		sb_esc(b, timer.v[k]);
		sb_puts(b, " windows ok</th>");
	}
	sb_puts(b, "</tr>\n");
	for (int i = 0; i < in->n; i++) {
		char lab[32];
		sb_puts(b, "<tr><td>");
		sb_esc(b, report_label(in, i, lab, sizeof(lab)));
		sb_puts(b, "</td>");
		const struct strlist *cols[] = {&names, &done, &timer};
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < cols[c]->n; k++) {
				const struct result_thread *th = report_sim_thread(in->rs[i], cols[c]->v[k]);
				struct report_sim_figs f;
				if (th)
					report_sim_figs(th, &f);
				td(b, !th ? "–" : c == 0 ? f.share : c == 1 ? f.done : f.timer);
			}
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</table>\n");
	strlist_free(&names);
	strlist_free(&done);
	strlist_free(&timer);
}

/* The pivot: per group of the other swept keys, per thread a matrix of the figure it is judged
 * by, one key down and the other across, the best cell marked. */
static void pivot(struct sbuf *b, const struct report_in *in)
{
	struct sim_pivot p;
	if (!sim_pivot_build(in, &p)) {
		if (p.why[0]) {
			sb_puts(b, "<p class=\"muted\">No matrix of the swept keys: ");
			sb_esc(b, p.why);
			sb_puts(b, ".</p>\n");
		}
		return;
	}
	struct sim_pivot_cell *m = xcalloc((size_t)(p.rows.n * p.cols.n), sizeof(*m));
	sb_puts(b, "<h3 id=\"sim-pivot\">");
	sb_esc(b, p.down);
	sb_puts(b, " × ");
	sb_esc(b, p.across);
	sb_puts(b, "</h3>\n<p>Each thread by the figure it is judged by: a one-shot by its completion (boot "
	           "time), a timer by its windows with enough activations, a periodic thread by its response p99, "
	           "the others by their CPU share; the share of the others in small type. ");
	sb_esc(b, p.down);
	sb_puts(b, " down, ");
	sb_esc(b, p.across);
	sb_puts(b, " across; <span class=\"better\">★</span> marks the best cell of each matrix (ties all), none where "
	           "every cell is equal.");
	if (p.groups.n > 1)
		sb_puts(b, " One set of matrices per value of the other swept keys.");
	sb_puts(b, "</p>\n");
	for (int g = 0; g < p.groups.n; g++) {
		if (p.groups.v[g][0]) {
			sb_puts(b, "<h4>");
			sb_esc(b, p.groups.v[g]);
			sb_puts(b, "</h4>\n");
		}
		sb_puts(b, "<div class=\"pivots\">\n");
		for (int t = 0; t < p.threads.n; t++) {
			sim_pivot_matrix(&p, in, t, g, m);
			sb_puts(b, "<table class=\"sim pivot\"><caption><b>");
			sb_esc(b, p.threads.v[t]);
			sb_puts(b, "</b>: ");
			sb_esc(b, sim_pivot_fig_name(p.figs[t]));
			sb_puts(b, "</caption>\n<tr><th>");
			sb_esc(b, p.down);
			sb_puts(b, " \\ ");
			sb_esc(b, p.across);
			sb_puts(b, "</th>");
			for (int c = 0; c < p.cols.n; c++) {
				sb_puts(b, "<th>");
				sb_esc(b, p.cols.v[c]);
				sb_puts(b, "</th>");
			}
			sb_puts(b, "</tr>\n");
			for (int r = 0; r < p.rows.n; r++) {
				sb_puts(b, "<tr><th>");
				sb_esc(b, p.rows.v[r]);
				sb_puts(b, "</th>");
				for (int c = 0; c < p.cols.n; c++) {
					const struct sim_pivot_cell *x = &m[r * p.cols.n + c];
					sb_puts(b, x->best ? "<td class=\"n best\">" : x->worst ? "<td class=\"n worse\">" : "<td class=\"n\">");
					sb_esc(b, x->text);
					if (x->best)
						sb_puts(b, " <span class=\"better\" title=\"best\">★</span>");
					if (x->share[0]) {
						sb_puts(b, "<br><small class=\"muted\">share ");
						sb_esc(b, x->share);
						sb_puts(b, "</small>");
					}
					sb_puts(b, "</td>");
				}
				sb_puts(b, "</tr>\n");
			}
			sb_puts(b, "</table>\n");
		}
		sb_puts(b, "</div>\n");
	}
	free(m);
	sim_pivot_free(&p);
}

static void one_result(struct sbuf *b, const struct report_in *in, int i)
{
	char lab[32];
	sb_puts(b, "<h3>");
	sb_esc(b, report_label(in, i, lab, sizeof(lab)));
	sb_puts(b, "</h3>\n<table class=\"sim\">\n<tr><th>thread</th><th>what ran</th><th>share</th><th>used</th>"
	           "<th>spent</th><th>switches</th><th>deadlines met</th><th>completion</th><th>timer windows ok</th>"
	           "</tr>\n");
	for (int t = 0; t < in->rs[i]->nthreads; t++) {
		const struct result_thread *th = &in->rs[i]->threads[t];
		if (!is_sim(th))
			continue;
		struct report_sim_figs f;
		char desc[256];
		report_sim_figs(th, &f);
		report_thread_desc(th, desc, sizeof(desc));
		sb_puts(b, "<tr><td>");
		sb_esc(b, th->name);
		sb_puts(b, "</td><td>");
		sb_esc(b, desc);
		sb_puts(b, "</td>");
		const char *v[] = {f.share, f.used, f.spent, f.switches, f.met, f.done, f.timer};
		for (int k = 0; k < 7; k++)
			td(b, v[k]);
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</table>\n");
}

void html_sim_section(struct sbuf *b, const struct report_in *in)
{
	if (!report_has_sim(in))
		return;
	sb_puts(b, "<section id=\"simulation\">\n<h2>Simulation</h2>\n<p>What the simulated schedule gave each thread: "
	           "share = time charged / simulated duration of its CPU; spent = used + context-switch cost; "
	           "completion = a one-shot's start to done (boot time); timer windows ok = super periods with "
	           "the activations it needs. The same workload and seed give the same "
	           "figures: they are exact for the model, not samples.</p>\n");
	if (in->n > 1) {
		pivot(b, in);
		across(b, in);
	}
	for (int i = 0; i < in->n; i++)
		one_result(b, in, i);
	sb_puts(b, "</section>\n");
}

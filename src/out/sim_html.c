/* The HTML report's "Simulation" section (irt sim results only): what a simulated schedule gave
 * each thread — CPU share, used and spent time, switches, deadlines, a one-shot's completion
 * (boot time), a timer's windows with enough activations. First one table over the cells (a
 * sweep's super period x fill grid reads across it), then each cell's own table. Reports of
 * measured results are unchanged. */
#include "out/html.h"

#include <stdio.h>
#include <string.h>

#include "out/svg.h"
#include "util.h"

static bool is_sim(const struct result_thread *t)
{
	return strcmp(t->role, "sim") == 0;
}

/* The result's thread named name, NULL when it has none. */
static const struct result_thread *thread_named(const struct result *r, const char *name)
{
	for (int t = 0; t < r->nthreads; t++)
		if (is_sim(&r->threads[t]) && strcmp(r->threads[t].name, name) == 0)
			return &r->threads[t];
	return NULL;
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
			const struct result_thread *th = thread_named(in->rs[i], names.v[k]);
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
				const struct result_thread *th = thread_named(in->rs[i], cols[c]->v[k]);
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
	if (in->n > 1)
		across(b, in);
	for (int i = 0; i < in->n; i++)
		one_result(b, in, i);
	sb_puts(b, "</section>\n");
}

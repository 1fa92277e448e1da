/* The HTML report: inline CSS and SVG, no scripts, nothing fetched; readable when printed. */
#include "out/html.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "cond_diff.h"
#include "out/text.h"
#include "trust.h"
#include "units.h"
#include "util.h"

static const char css[] =
	"body{font-family:\"DejaVu Sans\",\"Liberation Sans\",Arial,Helvetica,sans-serif;color:#222;background:#fff;"
	"margin:0 auto;padding:0 1.5em 3em;max-width:1200px;line-height:1.45}\n"
	"h1{font-size:1.6em;margin:1em 0 .2em}h2{font-size:1.25em;margin:2em 0 .6em;border-bottom:1px solid #ccc;"
	"padding-bottom:.2em}h3{font-size:1.05em;margin:1.4em 0 .4em}\n"
	".sub{color:#555;margin:0 0 1em}nav{margin:1em 0;font-size:.95em}nav a{margin-right:1em}\n"
	"a{color:#0060a0}figure{margin:1em 0 2em}figure svg{max-width:100%;height:auto;display:block}\n"
	"figcaption{color:#333;font-size:.92em;max-width:60em;margin-top:.4em}\n"
	"table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em;display:block;overflow-x:auto;max-width:100%}"
	"th,td{border:1px solid #d0d0d0;padding:.25em .6em;vertical-align:top}"
	"th{background:#f2f2f2;text-align:left}td.what{min-width:16em;max-width:30em}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"tr.base td{background:#f6f6f6}tr.rec td{background:#eef6ee}\n"
	".better{color:#006b4e;font-weight:bold}.worse{color:#a33a00;font-weight:bold}.muted{color:#666}\n"
	".badge{display:inline-block;font-size:.78em;border:1px solid #888;border-radius:3px;padding:0 .3em;"
	"margin-left:.3em;color:#333}\n"
	".callout{border-left:4px solid #009E73;background:#f3faf7;padding:.6em 1em;margin:1em 0;max-width:60em}\n"
	"pre{background:#f6f6f6;border:1px solid #ddd;padding:.5em .8em;white-space:pre-wrap;word-break:break-all;"
	"font-size:.88em}\n"
	".pivots{display:flex;flex-wrap:wrap;gap:0 1.5em}table.pivot caption{text-align:left;font-size:.95em;"
	"padding-bottom:.2em}table.pivot td.best{background:#eef6ee}\n"
	"@media print{nav{display:none}figure{break-inside:avoid}}\n";

static void esc(struct sbuf *b, const char *s)
{
	sb_esc(b, s);
}

static void td_ns(struct sbuf *b, int64_t ns)
{
	char d[48];
	sb_printf(b, "<td class=\"n\">%s</td>", report_ns(d, sizeof(d), ns, true));
}

static void td_text(struct sbuf *b, const char *s)
{
	sb_puts(b, "<td>");
	esc(b, s);
	sb_puts(b, "</td>");
}

/* ---- percentile tables ------------------------------------------------------------------- */

static void pct_table(struct sbuf *b, const struct report_in *in, const struct report_series *s, int ns, bool resp,
                      const struct report_words *words)
{
	if (resp)
		sb_puts(b, "<h3>Response time (release to work done)</h3>\n");
	else
		sb_printf(b, "<h3>%s (%s)</h3>\n", words->What, words->span);
	sb_puts(b, "<table>\n<tr><th>series</th><th>what ran</th><th>samples</th><th>min</th>");
	for (int p = 0; p < result_npercentiles; p++)
		sb_printf(b, "<th>%s</th>", result_percentile_names[p]);
	sb_puts(b, "<th>max</th><th>mean</th><th>overruns</th><th>deadlines met</th></tr>\n");
	for (int i = 0; i < ns; i++) {
		const struct hist *h = resp ? s[i].resp : s[i].wake;
		char desc[256];
		report_thread_desc(&in->rs[s[i].result]->threads[s[i].thread], desc, sizeof(desc));
		sb_puts(b, "<tr>");
		td_text(b, s[i].label);
		sb_puts(b, "<td class=\"what\">");
		esc(b, desc);
		if (s[i].note[0]) {
			sb_puts(b, "<br><span class=\"muted\">");
			esc(b, s[i].note);
			sb_puts(b, "</span>");
		}
		if (s[i].merged > 1)
			sb_printf(b, "<br><span class=\"muted\">%d threads/repetitions merged</span>", s[i].merged);
		sb_printf(b, "</td><td class=\"n\">%" PRIu64 "</td>", h->count);
		if (!h->count) {
			sb_printf(b, "<td colspan=\"%d\" class=\"muted\">no samples</td>", result_npercentiles + 3);
		} else {
			td_ns(b, h->min);
			for (int p = 0; p < result_npercentiles; p++)
				td_ns(b, hist_percentile(h, result_percentiles[p]));
			td_ns(b, h->max);
			td_ns(b, llround(hist_mean(h)));
		}
		sb_printf(b, "<td class=\"n\">%" PRIu64 "</td>", s[i].overruns);
		uint64_t dl = s[i].met + s[i].missed;
		if (dl)
			sb_printf(b, "<td class=\"n\">%.2f %%</td>", 100.0 * (double)s[i].met / (double)dl);
		else
			sb_puts(b, "<td class=\"n\">–</td>");
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</table>\n");
}

/* h's percentile p (100: its max), or a dash without samples (0ns would read as measured) */
static void td_pct(struct sbuf *b, const struct hist *h, double p)
{
	if (!h->count)
		sb_puts(b, "<td class=\"n muted\">–</td>");
	else
		td_ns(b, p >= 100 ? h->max : hist_percentile(h, p));
}

/* The few numbers most readers want, one row per series. */
static void glance_table(struct sbuf *b, const struct report_series *s, int ns, const struct report_words *words)
{
	const char *w = words->metric;
	sb_printf(b, "<table>\n<tr><th>series</th><th>samples</th><th>%s p50</th><th>%s p99</th>"
	             "<th>%s max</th><th>response p99</th><th>deadlines met</th></tr>\n", w, w, w);
	for (int i = 0; i < ns; i++) {
		sb_puts(b, "<tr>");
		td_text(b, s[i].label);
		sb_printf(b, "<td class=\"n\">%" PRIu64 "</td>", s[i].wake->count);
		td_pct(b, s[i].wake, 50);
		td_pct(b, s[i].wake, 99);
		td_pct(b, s[i].wake, 100);
		td_pct(b, s[i].resp, 99);
		uint64_t dl = s[i].met + s[i].missed;
		if (dl)
			sb_printf(b, "<td class=\"n\">%.2f %%</td>", 100.0 * (double)s[i].met / (double)dl);
		else
			sb_puts(b, "<td class=\"n\">–</td>");
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</table>\n");
}

/* ---- sweep ------------------------------------------------------------------------------- */

static void stat_text(char *buf, size_t len, const struct sweep_stat *st, bool ns, bool ratio)
{
	if (ratio) {
		snprintf(buf, len, "%.3f [%.3f – %.3f]", st->median, st->lo, st->hi);
	} else if (ns) {
		char a[32], l[32], h[32];
		snprintf(buf, len, "%s [%s – %s]", report_ns(a, sizeof(a), llround(st->median), true),
		         report_ns(l, sizeof(l), llround(st->lo), true), report_ns(h, sizeof(h), llround(st->hi), true));
	} else {
		snprintf(buf, len, "%.4g [%.4g – %.4g]", st->median, st->lo, st->hi);
	}
}

static const char *verdict_class(const char *v)
{
	if (strcmp(v, "better") == 0)
		return "better";
	if (strcmp(v, "worse") == 0)
		return "worse";
	return "muted";
}

static void verdict_table(struct sbuf *b, const struct sweep_summary *sw, const char *metric)
{
	const char *tp = NULL;
	for (int i = 0; i < sw->ncells && !tp; i++)
		if (sweep_cell_metric(&sw->cells[i], "throughput"))
			tp = "throughput";
	bool ns = sweep_metric_is_ns(metric);
	sb_puts(b, "<h3>Verdicts</h3>\n<table>\n<tr><th>cell</th>");
	for (int k = 0; k < sw->knobs.n; k++) {
		sb_puts(b, "<th>");
		esc(b, sw->knobs.v[k]);
		sb_puts(b, "</th>");
	}
	sb_puts(b, "<th>load</th><th>");
	esc(b, metric);
	sb_puts(b, " median [95% CI]</th>");
	if (tp)
		sb_puts(b, "<th>throughput median [95% CI]</th>");
	sb_puts(b, "<th>");
	esc(b, sw->metric);   /* ratios and verdicts are the summary's, whatever --metric charts */
	sb_puts(b, " ratio to baseline [95% CI]</th><th>verdict</th></tr>\n");
	for (int i = 0; i < sw->ncells; i++) {
		const struct sweep_cell *c = &sw->cells[i];
		bool base = strcmp(c->id, sw->baseline) == 0, rec = strcmp(c->id, sw->recommendation) == 0;
		sb_printf(b, "<tr%s><td>", rec ? " class=\"rec\"" : base ? " class=\"base\"" : "");
		esc(b, c->id);
		if (base)
			sb_puts(b, "<span class=\"badge\">baseline</span>");
		if (rec)
			sb_puts(b, "<span class=\"badge\">recommended</span>");
		if (c->pareto)
			sb_puts(b, "<span class=\"badge\">Pareto</span>");
		sb_puts(b, "</td>");
		for (int k = 0; k < sw->knobs.n; k++) {
			const char *v = kvlist_get(&c->settings, sw->knobs.v[k]);
			td_text(b, v ? v : "–");
		}
		td_text(b, c->load[0] ? c->load : "–");
		char buf[160];
		const struct sweep_stat *st = sweep_cell_metric(c, metric);
		if (st)
			stat_text(buf, sizeof(buf), st, ns, false);
		sb_printf(b, "<td class=\"n\">%s</td>", st ? buf : "–");
		if (tp) {
			st = sweep_cell_metric(c, tp);
			if (st)
				stat_text(buf, sizeof(buf), st, false, false);
			sb_printf(b, "<td class=\"n\">%s</td>", st ? buf : "–");
		}
		if (c->has_ratio)
			stat_text(buf, sizeof(buf), &c->ratio, false, true);
		sb_printf(b, "<td class=\"n\">%s</td><td class=\"%s\">", c->has_ratio ? buf : "–", verdict_class(c->verdict));
		esc(b, c->verdict[0] ? c->verdict : base ? "(baseline)" : "–");
		sb_puts(b, "</td></tr>\n");
	}
	sb_puts(b, "</table>\n");
}

static void recommendation(struct sbuf *b, const struct sweep_summary *sw, const char *metric)
{
	const struct sweep_cell *rec = sweep_cell_find(sw, sw->recommendation), *base = sweep_cell_find(sw, sw->baseline);
	char desc[512], buf[160];
	sb_puts(b, "<div class=\"callout\">");
	if (!rec) {
		sb_puts(b, "No recommendation: the sweep summary names none (no cell was shown to be better).");
	} else {
		report_cell_desc(rec, desc, sizeof(desc));
		sb_puts(b, "<b>Recommended:</b> cell ");
		esc(b, rec->id);
		sb_puts(b, " (");
		esc(b, desc[0] ? desc : "no settings");
		sb_puts(b, ")");
		const struct sweep_stat *st = sweep_cell_metric(rec, metric);
		if (st) {
			stat_text(buf, sizeof(buf), st, sweep_metric_is_ns(metric), false);
			sb_puts(b, ": ");
			esc(b, metric);
			sb_printf(b, " %s", buf);
		}
		const struct sweep_stat *bs = base ? sweep_cell_metric(base, metric) : NULL;
		if (bs && base != rec) {
			stat_text(buf, sizeof(buf), bs, sweep_metric_is_ns(metric), false);
			sb_puts(b, ", against ");
			esc(b, base->id);
			sb_printf(b, " (baseline) %s", buf);
		}
		if (rec->has_ratio) {
			stat_text(buf, sizeof(buf), &rec->ratio, false, true);
			sb_printf(b, "; ratio %s", buf);
		}
		if (rec->verdict[0]) {
			sb_puts(b, ", verdict: ");
			esc(b, rec->verdict);
		}
		sb_puts(b, ".");
	}
	sb_puts(b, "</div>\n");
}

/* ---- accounting, environment, commands --------------------------------------------------- */

static void acct_table(struct sbuf *b, const struct report_acct *acct, int nacct)
{
	sb_puts(b, "<table>\n<tr><th>result</th><th>thread</th><th>role</th><th>used</th><th>waited</th>"
	           "<th>used % of wall</th><th>waited % of wall</th></tr>\n");
	for (int i = 0; i < nacct; i++) {
		const struct report_acct *a = &acct[i];
		sb_puts(b, "<tr>");
		td_text(b, a->source ? a->source : "–");
		td_text(b, a->thread ? a->thread : "?");
		td_text(b, a->role ? a->role : "?");
		if (a->exited)   /* its counters died with it */
			sb_puts(b, "<td class=\"n muted\">exited</td>");
		else
			td_ns(b, a->used_ns);
		if (a->waited_ns >= 0)
			td_ns(b, a->waited_ns);
		else
			sb_puts(b, "<td class=\"n muted\">unknown</td>");
		if (a->wall_ns > 0) {
			sb_printf(b, "<td class=\"n\">%.1f %%</td>", 100.0 * (double)a->used_ns / (double)a->wall_ns);
			if (a->waited_ns >= 0)
				sb_printf(b, "<td class=\"n\">%.1f %%</td>", 100.0 * (double)a->waited_ns / (double)a->wall_ns);
			else
				sb_puts(b, "<td class=\"n\">–</td>");
		} else {
			sb_puts(b, "<td class=\"n\">–</td><td class=\"n\">–</td>");
		}
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</table>\n");
}

/* Background loads of `irt run` and their throughput. */
static bool any_loads(const struct report_in *in)
{
	for (int i = 0; i < in->n; i++)
		if (in->rs[i]->nloads)
			return true;
	return false;
}

static void loads_table(struct sbuf *b, const struct report_in *in)
{
	sb_puts(b, "<table>\n<tr><th>result</th><th>load</th><th>spec</th><th>throughput</th><th>bytes/s</th>"
	           "<th>ended</th></tr>\n");
	for (int i = 0; i < in->n; i++)
		for (int k = 0; k < in->rs[i]->nloads; k++) {
			const struct result_load *l = &in->rs[i]->loads[k];
			char lab[64];
			sb_puts(b, "<tr>");
			td_text(b, report_label(in, i, lab, sizeof(lab)));
			td_text(b, l->name);
			td_text(b, l->spec);
			sb_printf(b, "<td class=\"n\">%.4g ", l->ops_per_s);
			esc(b, l->ops_unit[0] ? l->ops_unit : "ops");
			sb_puts(b, "/s</td>");
			if (l->bytes_unit[0])
				sb_printf(b, "<td class=\"n\">%.4g</td>", l->bytes_per_s);
			else
				sb_puts(b, "<td class=\"n\">–</td>");
			sb_puts(b, "<td>");
			esc(b, l->end);
			if (l->failure[0]) {
				sb_puts(b, ": ");
				esc(b, l->failure);
			}
			sb_puts(b, "</td></tr>\n");
		}
	sb_puts(b, "</table>\n");
}

/* Runs irt run flagged as disturbed (steal, pressure): say so where the numbers are read. */
static void noisy_notes(struct sbuf *b, const struct report_in *in)
{
	for (int i = 0; i < in->n; i++) {
		const struct result_context *c = &in->rs[i]->context;
		if (!c->present || !c->noisy)
			continue;
		char lab[64];
		sb_puts(b, "<p class=\"worse\">Noisy run: ");
		esc(b, report_label(in, i, lab, sizeof(lab)));
		sb_puts(b, " (");
		esc(b, c->noisy_why);
		sb_puts(b, ").</p>\n");
	}
}

/* --stop-above: a result a wake-up ended early says so where its numbers are read. */
static void stopped_notes(struct sbuf *b, const struct report_in *in)
{
	for (int i = 0; i < in->n; i++) {
		char line[256], lab[64];
		if (!out_stopped_line(line, sizeof(line), in->rs[i]))
			continue;
		sb_puts(b, "<p class=\"worse\">");
		if (in->n > 1) {
			esc(b, report_label(in, i, lab, sizeof(lab)));
			sb_puts(b, ": ");
		}
		esc(b, line);
		sb_puts(b, "</p>\n");
	}
}

static bool same_env(const struct result_env *a, const struct result_env *b)
{
	return !strcmp(a->hostname, b->hostname) && !strcmp(a->kernel, b->kernel) &&
	       !strcmp(a->kernel_version, b->kernel_version) && !strcmp(a->machine, b->machine) &&
	       !strcmp(a->cpu_model, b->cpu_model) && a->online_cpus == b->online_cpus &&
	       !strcmp(a->clocksource, b->clocksource) && !strcmp(a->preemption, b->preemption) && a->hz == b->hz &&
	       a->root == b->root;
}

/* Lists up to 8 result labels of the results i with group[i] == g. */
static void label_list(struct sbuf *b, const struct report_in *in, const int *group, int g)
{
	int shown = 0, total = 0;
	char lab[64];
	for (int i = 0; i < in->n; i++) {
		if (group[i] != g)
			continue;
		if (shown < 8) {
			if (shown)
				sb_puts(b, ", ");
			esc(b, report_label(in, i, lab, sizeof(lab)));
			shown++;
		}
		total++;
	}
	if (total > shown)
		sb_printf(b, " and %d more", total - shown);
}

struct conditions_html {
	struct sbuf *b;
	const struct report_in *in;
	bool any;
};

static void condition_item(void *ctx, int i, const char *summary)
{
	struct conditions_html *c = ctx;
	char lab[64];
	sb_puts(c->b, c->any ? "" : "<p>Measurement conditions:</p>\n<ul>\n");
	c->any = true;
	sb_puts(c->b, "<li>");
	esc(c->b, report_label(c->in, i, lab, sizeof(lab)));
	sb_puts(c->b, i + 1 < c->in->n ? " and others alike: " : ": ");
	esc(c->b, summary);
	sb_puts(c->b, "</li>\n");
}

/* The measurement conditions of each result (summarised), and those that differ. */
static void conditions_part(struct sbuf *b, const struct report_in *in)
{
	struct conditions_html c = {.b = b, .in = in};
	struct strlist diff = {0};
	report_conditions(in, condition_item, &c, &diff);
	if (c.any)
		sb_puts(b, "</ul>\n");
	for (int i = 0; i < diff.n; i++) {
		sb_puts(b, "<p class=\"worse\">");
		esc(b, diff.v[i]);
		sb_puts(b, "</p>\n");
	}
	strlist_free(&diff);
}

#define SIMULATED (-2)   /* env_section's group of simulated results */

static void env_section(struct sbuf *b, const struct report_in *in)
{
	int *group = xcalloc((size_t)in->n + 1, sizeof(*group)), *first = xcalloc((size_t)in->n + 1, sizeof(*first));
	int ng = 0;
	bool simulated = false;
	for (int i = 0; i < in->n; i++) {
		group[i] = -1;
		if (strcmp(in->rs[i]->command, "sim") == 0) {   /* no machine: not a column of empty cells */
			group[i] = SIMULATED;
			simulated = true;
			continue;
		}
		for (int g = 0; g < ng && group[i] < 0; g++)
			if (same_env(&in->rs[first[g]]->env, &in->rs[i]->env))
				group[i] = g;
		if (group[i] < 0) {
			first[ng] = i;
			group[i] = ng++;
		}
	}
	if (simulated) {
		sb_puts(b, "<p>Simulated by <code>irt sim</code>, no machine measured: ");
		label_list(b, in, group, SIMULATED);
		sb_puts(b, ".</p>\n");
	}
	if (!ng) {
		free(group);
		free(first);
		return;
	}
	sb_puts(b, "<table>\n<tr><th></th>");
	for (int g = 0; g < ng; g++) {
		sb_puts(b, "<th>");
		if (ng > 1)
			label_list(b, in, group, g);
		else
			sb_puts(b, "every result");
		sb_puts(b, "</th>");
	}
	sb_puts(b, "</tr>\n");
	static const char *const rows[] = {"host",    "machine",         "CPU model",   "online CPUs", "kernel",
	                                   "version", "preemption model", "HZ",          "clocksource", "run as root"};
	for (int r = 0; r < 10; r++) {
		sb_printf(b, "<tr><th>%s</th>", rows[r]);
		for (int g = 0; g < ng; g++) {
			const struct result_env *e = &in->rs[first[g]]->env;
			char num[32];
			const char *v = "";
			switch (r) {
			case 0: v = e->hostname; break;
			case 1: v = e->machine; break;
			case 2: v = e->cpu_model; break;
			case 3: snprintf(num, sizeof(num), "%d", e->online_cpus), v = num; break;
			case 4: v = e->kernel; break;
			case 5: v = e->kernel_version; break;
			case 6: v = e->preemption[0] ? e->preemption : "unknown"; break;
			case 7:
				if (e->hz)
					snprintf(num, sizeof(num), "%d", e->hz), v = num;
				else
					v = "unknown";
				break;
			case 8: v = e->clocksource; break;
			case 9: v = e->root ? "yes" : "no"; break;
			}
			td_text(b, v);
		}
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</table>\n");
	free(group);
	free(first);
	conditions_part(b, in);
}

static void commands_section(struct sbuf *b, const struct report_in *in)
{
	int *group = xcalloc((size_t)in->n + 1, sizeof(*group)), *first = xcalloc((size_t)in->n + 1, sizeof(*first));
	int ng = 0;
	for (int i = 0; i < in->n; i++) {
		const char *c = in->rs[i]->cmdline ? in->rs[i]->cmdline : "";
		group[i] = -1;
		for (int g = 0; g < ng && group[i] < 0; g++)
			if (strcmp(in->rs[first[g]]->cmdline ? in->rs[first[g]]->cmdline : "", c) == 0)
				group[i] = g;
		if (group[i] < 0) {
			first[ng] = i;
			group[i] = ng++;
		}
	}
	for (int g = 0; g < ng; g++) {
		const struct result *r = in->rs[first[g]];
		sb_puts(b, "<p>");
		label_list(b, in, group, g);
		sb_puts(b, " <span class=\"muted\">(irt ");
		esc(b, r->tool_version);
		sb_puts(b, ")</span></p>\n<pre>irt ");
		esc(b, r->cmdline ? r->cmdline : "");
		sb_puts(b, "</pre>\n");
	}
	sb_puts(b, "<table>\n<tr><th>result</th><th>command</th><th>start (UTC)</th><th>duration</th>"
	           "<th>threads</th><th>complete</th></tr>\n");
	int shown = in->n < 60 ? in->n : 60;
	for (int i = 0; i < shown; i++) {
		const struct result *r = in->rs[i];
		char lab[64], utc[48];
		sb_puts(b, "<tr>");
		td_text(b, report_label(in, i, lab, sizeof(lab)));
		td_text(b, r->command);
		td_text(b, result_format_utc(utc, sizeof(utc), r->start_realtime_ns));
		td_ns(b, r->duration_ns);
		sb_printf(b, "<td class=\"n\">%d</td>", r->nthreads);
		td_text(b, r->interrupted ? "no: interrupted" : "yes");
		sb_puts(b, "</tr>\n");
	}
	sb_puts(b, "</table>\n");
	if (in->n > shown)
		sb_printf(b, "<p class=\"muted\">and %d more results.</p>\n", in->n - shown);
	free(group);
	free(first);
}

/* ---- document ---------------------------------------------------------------------------- */

static void figures(struct sbuf *b, const struct report_chart *c, int nc, const char *section)
{
	for (int i = 0; i < nc; i++) {
		if (strcmp(c[i].section, section))
			continue;
		sb_printf(b, "<figure id=\"fig-%s\">\n", c[i].id);
		sb_puts(b, c[i].svg);
		sb_puts(b, "<figcaption><b>How to read it.</b> ");
		esc(b, c[i].how);
		if (c[i].note[0]) {
			sb_puts(b, " <i>");
			esc(b, c[i].note);
			sb_puts(b, ".</i>");
		}
		sb_puts(b, "</figcaption>\n</figure>\n");
	}
}

static bool has_section(const struct report_chart *c, int nc, const char *section)
{
	for (int i = 0; i < nc; i++)
		if (!strcmp(c[i].section, section))
			return true;
	return false;
}

int report_html_render(const struct report_in *in, struct sbuf *b, struct err *e)
{
	struct report_series *s;
	struct report_chart *c = NULL;
	int ns, nc = 0;
	const char *metric = NULL;
	report_series_build(in, &s, &ns);
	const struct report_words *words = report_wake_words(in, s, ns);
	if (report_metric(in, &metric, e) || report_charts(in, s, ns, &c, &nc, e)) {
		report_series_free(s, ns);
		return -1;
	}
	struct report_acct *acct;
	int nacct = report_acct_rows(in, &acct);
	const char *title = in->title ? in->title : "irt report";
	sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	esc(b, title);
	sb_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	esc(b, title);
	sb_printf(b, "</h1>\n<p class=\"sub\">%d result%s", in->n, in->n == 1 ? "" : "s");
	if (in->sw)
		sb_printf(b, ", a sweep of %d cell%s", in->sw->ncells, in->sw->ncells == 1 ? "" : "s");
	if (in->n && strcmp(in->rs[0]->command, "sim") == 0) {   /* no machine to name */
		sb_puts(b, ", simulated by irt sim");
	} else if (in->n) {
		sb_puts(b, " from ");
		esc(b, in->rs[0]->env.hostname);
		sb_puts(b, " (");
		esc(b, in->rs[0]->env.kernel);
		sb_printf(b, ", %d CPUs)", in->rs[0]->env.online_cpus);
	}
	sb_printf(b, "; rendered by irt %s.</p>\n<nav>", IRT_VERSION_STRING);
	static const struct {
		const char *id, *name;
	} secs[] = {{"summary", "Summary"},       {"simulation", "Simulation"},   {"latency", "Histograms"},
	            {"spectrum", "Percentile spectrum"},
	            {"sweep", "Sweep"},           {"percentiles", "Percentiles"}, {"accounting", "CPU accounting"},
	            {"loads", "Loads"}, {"explain", "Why late"}, {"environment", "Environment"},
	            {"commands", "Command lines"}};
	for (int i = 0; i < (int)(sizeof(secs) / sizeof(secs[0])); i++) {
		if ((!strcmp(secs[i].id, "sweep") && !in->sw) || (!strcmp(secs[i].id, "explain") && !html_has_explain(in)) ||
		    (!strcmp(secs[i].id, "simulation") && !report_has_sim(in)) || (!strcmp(secs[i].id, "accounting") && !nacct) ||
		    (!strcmp(secs[i].id, "percentiles") && !ns) || (!strcmp(secs[i].id, "loads") && !any_loads(in)) ||
		    ((!strcmp(secs[i].id, "latency") || !strcmp(secs[i].id, "spectrum")) && !has_section(c, nc, secs[i].id)))
			continue;
		sb_printf(b, "<a href=\"#%s\">%s</a>", secs[i].id, secs[i].name);
	}
	sb_puts(b, "</nav>\n");

	sb_puts(b, "<section id=\"summary\">\n<h2>Summary</h2>\n");
	if (in->sw && metric)
		recommendation(b, in->sw, metric);
	noisy_notes(b, in);
	stopped_notes(b, in);
	if (ns)
		glance_table(b, s, ns, words);
	else
		sb_puts(b, "<p>No thread in these results recorded latency samples.</p>\n");
	sb_puts(b, "</section>\n");
	html_sim_section(b, in);
	if (has_section(c, nc, "latency")) {
		sb_puts(b, "<section id=\"latency\">\n<h2>Latency histograms</h2>\n");
		figures(b, c, nc, "latency");
		sb_puts(b, "</section>\n");
	}
	if (has_section(c, nc, "spectrum")) {
		sb_puts(b, "<section id=\"spectrum\">\n<h2>Percentile spectrum</h2>\n");
		figures(b, c, nc, "spectrum");
		sb_puts(b, "</section>\n");
	}
	if (in->sw && metric) {
		sb_puts(b, "<section id=\"sweep\">\n<h2>Sweep</h2>\n<p>Metric: <b>");
		esc(b, metric);
		sb_puts(b, "</b>; baseline: ");
		esc(b, in->sw->baseline[0] ? in->sw->baseline : "none");
		sb_puts(b, "; summary read from ");
		esc(b, in->sw->path);
		sb_puts(b, ".</p>\n");
		figures(b, c, nc, "sweep");
		verdict_table(b, in->sw, metric);
		sb_puts(b, "</section>\n");
	}
	if (ns) {
		sb_puts(b, "<section id=\"percentiles\">\n<h2>Percentiles</h2>\n");
		pct_table(b, in, s, ns, false, words);
		pct_table(b, in, s, ns, true, words);
		sb_puts(b, "</section>\n");
	}
	if (nacct) {
		sb_puts(b, "<section id=\"accounting\">\n<h2>CPU accounting</h2>\n");
		figures(b, c, nc, "accounting");
		acct_table(b, acct, nacct);
		sb_puts(b, "</section>\n");
	}
	if (any_loads(in)) {
		sb_puts(b, "<section id=\"loads\">\n<h2>Background loads</h2>\n");
		loads_table(b, in);
		sb_puts(b, "</section>\n");
	}
	html_explain_section(b, in);
	if (in->n) {
		sb_puts(b, "<section id=\"environment\">\n<h2>Environment</h2>\n");
		env_section(b, in);
		sb_puts(b, "</section>\n<section id=\"commands\">\n<h2>Command lines</h2>\n");
		commands_section(b, in);
		sb_puts(b, "</section>\n");
	}
	sb_puts(b, "</body>\n</html>\n");
	report_charts_free(c, nc);
	report_series_free(s, ns);
	free(acct);
	return 0;
}

int report_html(const struct report_in *in, const char *path, struct err *e)
{
	struct sbuf b = {0};
	int rc = report_html_render(in, &b, e);
	if (!rc)
		rc = write_atomic(path, b.s, b.len, e);
	sb_free(&b);
	return rc;
}

/* ---- fleets: irt report DIR on a directory of machines (compare.h, struct fleet) ---------- */

/* A forest plot of one setting: each machine's ratio with its CI, the pooled ratio below. */
static void fleet_forest(struct sbuf *b, const struct fleet *f, int fc)
{
	const int row = 22, left = 170, width = 420, top = 24;
	double lo = 1, hi = 1;
	for (int m = 0; m < f->nm; m++) {
		const struct compare_row *r = fleet_row(f, m, fc);
		const double v[] = {r ? r->cmp.ratio.lo : NAN, r ? r->cmp.ratio.hi : NAN, r ? r->cmp.ratio.est : NAN};
		for (int i = 0; i < 3; i++)
			if (isfinite(v[i]) && v[i] > 0) {
				lo = fmin(lo, v[i]);
				hi = fmax(hi, v[i]);
			}
	}
	const struct ci *p = &f->cells[fc].pooled;
	if (isfinite(p->lo))
		lo = fmin(lo, p->lo), hi = fmax(hi, p->hi);
	lo = log(lo * 0.95), hi = log(hi * 1.05);
#define X(v) (left + (log(v) - lo) / (hi - lo) * width)
	int h = top + row * (f->nm + 2) + 20;
	sb_printf(b, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	          "role=\"img\" font-family=\"DejaVu Sans,Arial,sans-serif\" font-size=\"12\">", left + width + 40, h,
	          left + width + 40, h);
	sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>", X(1.0),
	          top - 10, X(1.0), h - 20);
	sb_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1 (no change)</text>", X(1.0), h - 6);
	for (int m = 0; m <= f->nm; m++) {
		const struct ci *c = NULL;
		const char *name = m < f->nm ? f->m[m].name : "pooled (machines as blocks)";
		if (m < f->nm) {
			const struct compare_row *r = fleet_row(f, m, fc);
			c = r ? &r->cmp.ratio : NULL;
		} else {
			c = p;
		}
		int y = top + row * (m + (m == f->nm));
		sb_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 4);
		esc(b, name);
		sb_puts(b, "</text>");
		if (!c || !isfinite(c->est) || c->est <= 0)
			continue;
		if (isfinite(c->lo) && isfinite(c->hi) && c->lo > 0)
			sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#0060a0\" stroke-width=\"2\"/>",
			          X(c->lo), y, X(c->hi), y);
		if (m < f->nm)
			sb_printf(b, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"#0060a0\"/>", X(c->est), y);
		else
			sb_printf(b, "<path d=\"M%.1f %dl7 -6l7 6l-7 6z\" fill=\"#009E73\"/>", X(c->est) - 7, y);
	}
#undef X
	sb_puts(b, "</svg><figcaption>");
	esc(b, f->cells[fc].name);
	sb_puts(b, " against the baseline, per machine: the ratio of medians of ");
	esc(b, compare_metric_id(f->metric));
	sb_puts(b, " with its 95 % CI (log scale; left of 1 is better). The pooled ratio is the geometric mean over machines "
	           "with a t interval that treats each machine as a block.</figcaption></figure>\n");
}

int report_fleet_html(const struct fleet *f, const char *path, struct err *e)
{
	struct sbuf b = {0};
	char buf[96], r[96];
	sb_printf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>irt fleet report: ");
	esc(&b, f->dir);
	sb_printf(&b, "</title><style>%s</style></head><body>\n<h1>irt fleet report</h1>\n<p class=\"sub\">", css);
	esc(&b, f->dir);
	sb_printf(&b, ": %d machine%s, metric %s, baseline %s (", f->nm, f->nm == 1 ? "" : "s", compare_metric_id(f->metric),
	          f->cells[0].id);
	esc(&b, f->cells[0].name[0] ? f->cells[0].name : "the only setting");
	sb_puts(&b, ")</p>\n");
	if (f->ncells > 1) {
		sb_puts(&b, "<h2 id=\"fleet\">Fleet verdicts</h2>\n<table><tr><th>cell</th><th>setting</th><th>machines</th>"
		            "<th>better on</th><th>worse on</th><th>pooled ratio [95% CI]</th><th>fleet verdict</th></tr>\n");
		for (int c = 1; c < f->ncells; c++) {
			const struct fleet_cell *fc = &f->cells[c];
			compare_ci_text(&fc->pooled, r, sizeof(r));
			sb_printf(&b, "<tr><td>%s</td>", fc->id);
			td_text(&b, fc->name);
			sb_printf(&b, "<td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%s</td>"
			          "<td class=\"%s\">%s", fc->machines, fc->better, fc->worse, r, verdict_class(verdict_name(fc->verdict)),
			          verdict_name(fc->verdict));
			if (fc->why[0]) {
				sb_puts(&b, " <span class=\"muted\">(");
				esc(&b, fc->why);
				sb_puts(&b, ")</span>");
			}
			sb_puts(&b, "</td></tr>\n");
		}
		sb_puts(&b, "</table>\n");
		for (int c = 1; c < f->ncells; c++)
			fleet_forest(&b, f, c);
	}
	sb_puts(&b, "<h2 id=\"machines\">Machines</h2>\n");
	for (int i = 0; i < f->conditions.n; i++) {
		sb_puts(&b, i ? "<br>" : "<p class=\"callout\">");
		esc(&b, f->conditions.v[i]);
		sb_puts(&b, i + 1 == f->conditions.n ? "</p>\n" : "");
	}
	sb_puts(&b, "<table class=\"machines\"><tr><th>machine</th><th>hostname</th>"
	            "<th>machine id</th><th>CPU</th><th>kernel</th><th>conditions</th><th>results</th><th>baseline median</th>");
	for (int c = 1; c < f->ncells; c++)
		sb_printf(&b, "<th>%s median</th><th>%s ratio [95%% CI]</th><th>%s verdict</th>", f->cells[c].id, f->cells[c].id,
		          f->cells[c].id);
	sb_puts(&b, "</tr>\n");
	for (int m = 0; m < f->nm; m++) {
		const struct fleet_machine *fm = &f->m[m];
		sb_puts(&b, "<tr class=\"machine\">");
		td_text(&b, fm->name);
		td_text(&b, fm->env.hostname);
		snprintf(buf, sizeof(buf), "%.12s", fm->env.machine_id);
		td_text(&b, buf[0] ? buf : "-");
		td_text(&b, fm->env.cpu_model);
		td_text(&b, fm->env.kernel);
		char cond[512];
		cond_summary(&fm->results[0], cond, sizeof(cond));
		td_text(&b, cond[0] ? cond : "-");
		sb_printf(&b, "<td class=\"n\">%d%s</td>", fm->n, fm->mixed ? " <span class=\"badge\">mixed hostnames</span>" : "");
		for (int c = 0; c < f->ncells; c++) {
			const struct compare_row *row = fleet_row(f, m, c);
			if (!row) {
				sb_puts(&b, c ? "<td>-</td><td>-</td><td>-</td>" : "<td>-</td>");
				continue;
			}
			td_ns(&b, (int64_t)llround(row->summary.est));
			if (c == 0)
				continue;
			compare_ci_text(&row->cmp.ratio, r, sizeof(r));
			sb_printf(&b, "<td class=\"n\">%s</td><td class=\"%s\">%s</td>", r, verdict_class(verdict_name(row->cmp.verdict)),
			          verdict_name(row->cmp.verdict));
		}
		sb_puts(&b, "</tr>\n");
	}
	sb_puts(&b, "</table>\n<p class=\"muted\">Each machine's results are compared on their own (irt compare), so "
	            "every verdict above is within one machine; the fleet verdict pools them. Measurement nodes must run "
	            "nothing else: a shared node measures its neighbours.</p>\n</body></html>\n");
	int rc = write_atomic(path, b.s, b.len, e);
	sb_free(&b);
	return rc;
}

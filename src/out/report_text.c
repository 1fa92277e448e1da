/* The terminal report: tables and a small ASCII percentile spectrum, 100 columns at most. */
#include "out/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out/text.h"
#include "util.h"

#define SPEC_W 56
#define SPEC_LX0 0.30103 /* log10(2): p50 */
#define SPEC_LX1 4.0     /* log10(10^4): p99.99 */

static int label_width(const struct report_series *s, int ns)
{
	int w = 6;
	for (int i = 0; i < ns; i++) {
		int l = text_width(s[i].label);
		w = l > w ? l : w;
	}
	return w > 64 ? 64 : w;   /* a sweep cell's "super-period=100ms fill=10ms vm.quota=40%/timer" whole */
}

/* h's percentile p (0: its min, 100: its max), or "-" without samples (0ns would read as
 * measured) */
static const char *text_pct(char *buf, size_t len, const struct hist *h, double p)
{
	if (!h->count)
		return "-";
	return report_ns(buf, len, p <= 0 ? h->min : p >= 100 ? h->max : hist_percentile(h, p), false);
}

static void pct_table(FILE *f, const struct report_series *s, int ns, bool resp, bool runq)
{
	int w = label_width(s, ns);
	bool watch = ns > 0;   /* every series a watched thread's (watch --all: also a CPU's, a task's) */
	for (int i = 0; i < ns; i++)
		watch &= strncmp(s[i].role, "watch", 5) == 0;
	fprintf(f, "%s\n", out_table_title(resp, watch, runq));
	fprintf(f, "%-*s %9s %8s", w, "series", "samples", "min");
	for (int p = 0; p < result_npercentiles; p++)
		fprintf(f, " %8s", result_percentile_names[p]);
	fprintf(f, " %8s %8s %8s\n", "max", "overruns", "met %");
	for (int i = 0; i < ns; i++) {
		const struct hist *h = resp ? s[i].resp : s[i].wake;
		char d[32], lb[256];
		fprintf(f, "%s %9" PRIu64 " %8s", text_fit(lb, sizeof(lb), s[i].label, w, TEXT_LEFT | TEXT_CUT), h->count,
		        text_pct(d, sizeof(d), h, 0));
		for (int p = 0; p < result_npercentiles; p++)
			fprintf(f, " %8s", text_pct(d, sizeof(d), h, result_percentiles[p]));
		uint64_t dl = s[i].met + s[i].missed;
		char met[16] = "-";
		if (dl)
			snprintf(met, sizeof(met), "%.2f", 100.0 * (double)s[i].met / (double)dl);
		fprintf(f, " %8s %8" PRIu64 " %8s\n", text_pct(d, sizeof(d), h, 100), s[i].overruns, met);
	}
}

static double lat_at(const struct hist *h, double lx)
{
	double x = pow(10, lx), v = (double)hist_percentile(h, 100.0 * (1.0 - 1.0 / x));
	return v < 1 ? 1 : v;
}

/* The spectrum's letter of series i: a-z, then A-Z; 0 past 52 (listed, not drawn). */
#define SPEC_SERIES 52
static char letter(int i)
{
	return i < 26 ? (char)('a' + i) : i < SPEC_SERIES ? (char)('A' + i - 26) : 0;
}

/* Rows are log latency (2 or 3 per decade), columns log 1/(1-p) from p50 to p99.99. */
static void spectrum(FILE *f, const struct report_series *s, int ns, const struct report_words *words)
{
	int n = ns < SPEC_SERIES ? ns : SPEC_SERIES;
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < n; i++) {
		if (s[i].wake->count < 2)
			continue;
		lo = fmin(lo, lat_at(s[i].wake, SPEC_LX0));
		hi = fmax(hi, (double)(s[i].wake->max < 1 ? 1 : s[i].wake->max));
	}
	if (!(hi > 0))
		return;
	int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi) + 1e-9);
	if (d1 <= d0)
		d1 = d0 + 1;
	int per = d1 - d0 <= 4 ? 3 : d1 - d0 <= 7 ? 2 : 1, rows = (d1 - d0) * per;
	char (*grid)[SPEC_W + 1] = xcalloc((size_t)rows, sizeof(*grid));
	for (int r = 0; r < rows; r++) {
		memset(grid[r], ' ', SPEC_W);
		grid[r][SPEC_W] = 0;
	}
	for (int i = 0; i < n; i++) {
		const struct hist *h = s[i].wake;
		for (int c = 0; c < SPEC_W && h->count >= 2; c++) {
			double lx = SPEC_LX0 + c * (SPEC_LX1 - SPEC_LX0) / (SPEC_W - 1);
			if (pow(10, lx) > (double)h->count * (1 + 1e-9))
				break;   /* beyond the last sample */
			int r = (int)floor((log10(lat_at(h, lx)) - d0) * per);
			r = r < 0 ? 0 : r >= rows ? rows - 1 : r;
			char *cell = &grid[rows - 1 - r][c];
			*cell = *cell == ' ' || *cell == letter(i) ? letter(i) : '*';
		}
	}
	fprintf(f, "percentile spectrum of %s (log scales; letters are series, * several)\n", words->what);
	for (int r = 0; r < rows; r++) {
		int from_bottom = rows - 1 - r;
		char lab[16] = "";
		if (from_bottom % per == 0) {
			int64_t v = 1;
			for (int k = 0; k < d0 + from_bottom / per; k++)
				v *= 10;
			report_ns(lab, sizeof(lab), v, false);
			char *dot = strstr(lab, ".0");   /* decades: "1ms", not "1.00ms" */
			if (dot) {
				char *unit = dot;
				while (*unit == '.' || *unit == '0')
					unit++;
				memmove(dot, unit, strlen(unit) + 1);
			}
		}
		fprintf(f, "%8s |%s\n", lab, grid[r]);
	}
	char axis[SPEC_W + 1], names[SPEC_W + 16];
	memset(axis, '-', SPEC_W);
	axis[SPEC_W] = 0;
	memset(names, ' ', sizeof(names) - 1);
	names[sizeof(names) - 1] = 0;
	static const char *const pn[] = {"50%", "90%", "99%", "99.9%", "99.99%"};
	static const double px[] = {SPEC_LX0, 1, 2, 3, 4};
	for (int k = 0; k < 5; k++) {
		int c = (int)lround((px[k] - SPEC_LX0) / (SPEC_LX1 - SPEC_LX0) * (SPEC_W - 1));
		if (k)   /* the 50 % tick is the corner */
			axis[c] = '+';
		int at = c - (int)strlen(pn[k]) / 2;
		at = at < 0 ? 0 : at;
		memcpy(names + at, pn[k], strlen(pn[k]));
	}
	size_t end = strlen(names);
	while (end && names[end - 1] == ' ')
		names[--end] = 0;
	fprintf(f, "%8s +%s\n%8s %s\n", "", axis, "", names);
	free(grid);
}

static void series_list(FILE *f, const struct report_in *in, const struct report_series *s, int ns)
{
	fprintf(f, "series\n");
	for (int i = 0; i < ns; i++) {
		char desc[256];
		report_thread_desc(&in->rs[s[i].result]->threads[s[i].thread], desc, sizeof(desc));
		if (letter(i))
			fprintf(f, "  [%c] %s: %s", letter(i), s[i].label, desc[0] ? desc : "-");
		else
			fprintf(f, "      %s: %s", s[i].label, desc[0] ? desc : "-");
		if (s[i].note[0])
			fprintf(f, "; %s", s[i].note);
		if (s[i].merged > 1)
			fprintf(f, " (%d threads/repetitions merged)", s[i].merged);
		fprintf(f, "\n");
	}
}

/* What the simulated schedule gave each thread, per result (irt sim's own table). */
static void sim_tables(FILE *f, const struct report_in *in)
{
	if (!report_has_sim(in))
		return;
	fprintf(f, "simulated threads (exact for the model: the same workload and seed give the same figures)\n");
	for (int i = 0; i < in->n; i++) {
		char lab[32], nb[256];
		if (in->n > 1 || in->labels)   /* one unnamed result: no "result 1" line */
			fprintf(f, "%s\n", report_label(in, i, lab, sizeof(lab)));
		fprintf(f, "  %-12s %7s %9s %9s %8s %7s %11s %9s\n", "thread", "share", "used", "spent", "switches", "dl met",
		        "completion", "timer ok");
		for (int t = 0; t < in->rs[i]->nthreads; t++) {
			const struct result_thread *th = &in->rs[i]->threads[t];
			if (strcmp(th->role, "sim"))
				continue;
			struct report_sim_figs g;
			report_sim_figs(th, &g);
			fprintf(f, "  %s %7s %9s %9s %8s %7s %11s %9s\n", text_fit(nb, sizeof(nb), th->name, 12, TEXT_LEFT),
			        g.share, g.used, g.spent, g.switches, g.met, g.done, g.timer);
		}
	}
	fprintf(f, "\n");
}

/* A sweep of two keys or more as matrices (out/sim_pivot.c): per value of the other swept keys,
 * per thread the figure it is judged by, one key down and the other across, '*' the best. */
static void sim_pivot_text(FILE *f, const struct report_in *in)
{
	struct sim_pivot p;
	if (!sim_pivot_build(in, &p)) {
		if (p.why[0])
			fprintf(f, "no matrix of the swept keys: %s\n\n", p.why);
		return;
	}
	int n = p.rows.n * p.cols.n;
	struct sim_pivot_cell *m = xcalloc((size_t)n, sizeof(*m));
	char corner[160], lb[256];
	snprintf(corner, sizeof(corner), "%s\\%s", p.down, p.across);
	int w0 = text_width(corner), w = 8;
	for (int r = 0; r < p.rows.n; r++)
		w0 = text_width(p.rows.v[r]) > w0 ? text_width(p.rows.v[r]) : w0;
	for (int c = 0; c < p.cols.n; c++)
		w = text_width(p.cols.v[c]) > w ? text_width(p.cols.v[c]) : w;
	w0 = w0 > 40 ? 40 : w0;
	w = w > 24 ? 24 : w;
	fprintf(f, "%s x %s: each thread by the figure it is judged by, %s down, %s across, * the best of a matrix "
	           "(none where all are equal)\n", p.down, p.across, p.down, p.across);
	for (int g = 0; g < p.groups.n; g++) {
		if (p.groups.v[g][0])
			fprintf(f, "%s\n", p.groups.v[g]);
		for (int t = 0; t < p.threads.n; t++) {
			sim_pivot_matrix(&p, in, t, g, m);
			int wt = w;   /* as wide as its widest figure too: "1200/1200" must not lose a digit */
			for (int k = 0; k < n; k++)
				wt = text_width(m[k].text) > wt ? text_width(m[k].text) : wt;
			fprintf(f, "  %s: %s\n    %s", p.threads.v[t], sim_pivot_fig_name(p.figs[t]),
			        text_fit(lb, sizeof(lb), corner, w0, TEXT_LEFT | TEXT_CUT));
			for (int c = 0; c < p.cols.n; c++)
				fprintf(f, " %s ", text_fit(lb, sizeof(lb), p.cols.v[c], wt, TEXT_RIGHT | TEXT_CUT));
			fprintf(f, "\n");
			for (int r = 0; r < p.rows.n; r++) {
				fprintf(f, "    %s", text_fit(lb, sizeof(lb), p.rows.v[r], w0, TEXT_LEFT | TEXT_CUT));
				for (int c = 0; c < p.cols.n; c++) {
					const struct sim_pivot_cell *x = &m[r * p.cols.n + c];
					fprintf(f, " %s%s", text_fit(lb, sizeof(lb), x->text, wt, TEXT_RIGHT), x->best ? "*" : " ");
				}
				fprintf(f, "\n");
			}
		}
	}
	fprintf(f, "\n");
	free(m);
	sim_pivot_free(&p);
}

static void stat_str(char *buf, size_t len, const struct sweep_stat *st, bool ns)
{
	if (ns) {
		char a[32], l[32], h[32];
		snprintf(buf, len, "%s [%s, %s]", report_ns(a, sizeof(a), llround(st->median), false),
		         report_ns(l, sizeof(l), llround(st->lo), false), report_ns(h, sizeof(h), llround(st->hi), false));
	} else {
		snprintf(buf, len, "%.4g [%.4g, %.4g]", st->median, st->lo, st->hi);
	}
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static void sweep(FILE *f, const struct sweep_summary *sw, const char *metric)
{
	bool ns = sweep_metric_is_ns(metric);
	fprintf(f, "sweep %s: metric %s, baseline %s\n", sw->path, metric, sw->baseline[0] ? sw->baseline : "none");
	int nk = sw->knobs.n < 8 ? sw->knobs.n : 8;   /* wider tables would not fit a terminal */
	int idw = 4, kw[8], loadw = 4, mw = imax((int)strlen(metric), 8);
	char tb[512];   /* a cell padded to its column */
	for (int k = 0; k < nk; k++)
		kw[k] = text_width(sw->knobs.v[k]);
	for (int i = 0; i < sw->ncells; i++) {
		const struct sweep_cell *c = &sw->cells[i];
		idw = imax(idw, text_width(c->id));
		loadw = imax(loadw, text_width(c->load));
		for (int k = 0; k < nk; k++) {
			const char *v = kvlist_get(&c->settings, sw->knobs.v[k]);
			kw[k] = imax(kw[k], v ? text_width(v) : 1);
		}
		char m[96];
		const struct sweep_stat *st = sweep_cell_metric(c, metric);
		if (st) {
			stat_str(m, sizeof(m), st, ns);
			mw = imax(mw, (int)strlen(m));
		}
	}
	loadw = loadw > 24 ? 24 : loadw;
	fprintf(f, "%-*s", idw, "cell");
	for (int k = 0; k < nk; k++)
		fprintf(f, "  %s", text_fit(tb, sizeof(tb), sw->knobs.v[k], kw[k], TEXT_LEFT));
	char rh[96];   /* ratios and verdicts are the summary's, whatever --metric charts */
	snprintf(rh, sizeof(rh), "ratio (%s)", sw->metric);
	fprintf(f, "  %-*s  %-*s  %-22s  %s\n", loadw, "load", mw, metric, rh, "verdict");
	for (int i = 0; i < sw->ncells; i++) {
		const struct sweep_cell *c = &sw->cells[i];
		char m[96] = "-", r[96] = "-";
		const struct sweep_stat *st = sweep_cell_metric(c, metric);
		if (st)
			stat_str(m, sizeof(m), st, ns);
		if (c->has_ratio)
			snprintf(r, sizeof(r), "%.3f [%.3f, %.3f]", c->ratio.median, c->ratio.lo, c->ratio.hi);
		bool base = !strcmp(c->id, sw->baseline), rec = !strcmp(c->id, sw->recommendation);
		fprintf(f, "%s", text_fit(tb, sizeof(tb), c->id, idw, TEXT_LEFT));
		for (int k = 0; k < nk; k++) {
			const char *v = kvlist_get(&c->settings, sw->knobs.v[k]);
			fprintf(f, "  %s", text_fit(tb, sizeof(tb), v ? v : "-", kw[k], TEXT_LEFT));
		}
		fprintf(f, "  %s  %-*s  %-22s  %s%s%s\n",
		        text_fit(tb, sizeof(tb), c->load[0] ? c->load : "-", loadw, TEXT_LEFT | TEXT_CUT), mw, m, r,
		        c->verdict[0] ? c->verdict : base ? "baseline" : "-", rec ? " (recommended)" : "",
		        c->pareto ? " (Pareto)" : "");
	}
	const struct sweep_cell *rec = sweep_cell_find(sw, sw->recommendation);
	if (rec) {
		char d[512];
		report_cell_desc(rec, d, sizeof(d));
		fprintf(f, "recommended: %s (%s)\n", rec->id, d);
	} else {
		fprintf(f, "recommended: none\n");
	}
}

static void acct(FILE *f, const struct report_acct *rows, int nacct)
{
	fprintf(f, "CPU accounting\n%-24s %-16s %-8s %10s %10s %8s\n", "result", "thread", "role", "used", "waited", "used %");
	for (int i = 0; i < nacct; i++) {
		const struct report_acct *a = &rows[i];
		char u[32], w[32] = "unknown", pct[16] = "-";
		if (a->waited_ns >= 0)
			report_ns(w, sizeof(w), a->waited_ns, false);
		if (a->wall_ns > 0)
			snprintf(pct, sizeof(pct), "%.1f", 100.0 * (double)a->used_ns / (double)a->wall_ns);
		char sb[128], tb[128], rb[64];
		if (a->exited)   /* its counters died with it */
			snprintf(w, sizeof(w), "-");
		fprintf(f, "%s %s %s %10s %10s %8s\n", text_fit(sb, sizeof(sb), a->source ? a->source : "-", 24, TEXT_CUT),
		        text_fit(tb, sizeof(tb), a->thread ? a->thread : "?", 16, TEXT_CUT),
		        text_fit(rb, sizeof(rb), a->role ? a->role : "?", 8, TEXT_CUT),
		        a->exited ? "exited" : report_ns(u, sizeof(u), a->used_ns, false), w, pct);
	}
}

static void loads(FILE *f, const struct report_in *in)
{
	bool any = false;
	for (int i = 0; i < in->n; i++)
		for (int k = 0; k < in->rs[i]->nloads; k++) {
			const struct result_load *l = &in->rs[i]->loads[k];
			char lab[64];
			if (!any)
				fprintf(f, "loads\n");
			any = true;
			fprintf(f, "  %s: %s (%s): %.4g %s/s, %s%s%s\n", report_label(in, i, lab, sizeof(lab)), l->name, l->spec,
			        l->ops_per_s, l->ops_unit[0] ? l->ops_unit : "ops", l->end, l->failure[0] ? ": " : "", l->failure);
		}
	for (int i = 0; i < in->n; i++)
		if (in->rs[i]->context.present && in->rs[i]->context.noisy) {
			char lab[64];
			fprintf(f, "noisy run: %s (%s)\n", report_label(in, i, lab, sizeof(lab)), in->rs[i]->context.noisy_why);
			any = true;
		}
	if (any)
		fprintf(f, "\n");
}

/* --stop-above: each result a wake-up ended, named as irt probe/run named it */
static void stopped_lines(FILE *f, const struct report_in *in)
{
	for (int i = 0; i < in->n; i++) {
		char line[256], lab[64];
		if (!out_stopped_line(line, sizeof(line), in->rs[i]))
			continue;
		if (in->n > 1)
			fprintf(f, "%s: ", report_label(in, i, lab, sizeof(lab)));
		fprintf(f, "%s\n", line);
	}
}

/* --explain: what delayed each result's tail wake-ups, as irt run printed it (the HTML
 * report's "Why late") */
static void explain_sections(FILE *f, const struct report_in *in)
{
	bool any = false;
	for (int i = 0; i < in->n; i++) {
		if (!in->rs[i]->explain.present)
			continue;
		char lab[64];
		if (any)
			fprintf(f, "\n");
		if (in->n > 1)
			fprintf(f, "%s: ", report_label(in, i, lab, sizeof(lab)));
		out_explain(f, in->rs[i]);
		any = true;
	}
	if (any)
		fprintf(f, "\n");
}

struct conditions_text {
	FILE *f;
	const struct report_in *in;
};

static void condition_line(void *ctx, int i, const char *summary)
{
	struct conditions_text *c = ctx;
	char lab[64];
	fprintf(c->f, "  conditions (%s%s): %s\n", report_label(c->in, i, lab, sizeof(lab)),
	        i + 1 < c->in->n ? " and others alike" : "", summary);
}

/* Each distinct conditions summary once, then the conditions that differ between results. */
static void conditions_lines(FILE *f, const struct report_in *in)
{
	struct conditions_text c = {.f = f, .in = in};
	struct strlist diff = {0};
	report_conditions(in, condition_line, &c, &diff);
	for (int i = 0; i < diff.n; i++)
		fprintf(f, "  %s\n", diff.v[i]);
	strlist_free(&diff);
}

static void env_and_commands(FILE *f, const struct report_in *in)
{
	fprintf(f, "environment\n");
	bool simulated = false;
	for (int i = 0; i < in->n; i++) {
		const struct result_env *e = &in->rs[i]->env;
		if (strcmp(in->rs[i]->command, "sim") == 0) {   /* no machine: not a line of empty fields */
			if (!simulated)
				fprintf(f, "  simulated by irt sim: no machine measured\n");
			simulated = true;
			continue;
		}
		bool seen = false;
		for (int j = 0; j < i && !seen; j++) {
			const struct result_env *o = &in->rs[j]->env;
			seen = !strcmp(e->hostname, o->hostname) && !strcmp(e->kernel, o->kernel) &&
			       !strcmp(e->cpu_model, o->cpu_model) && e->online_cpus == o->online_cpus &&
			       !strcmp(e->preemption, o->preemption) && e->hz == o->hz && !strcmp(e->clocksource, o->clocksource);
		}
		if (!seen)
			fprintf(f, "  %s: %s %s, %d CPUs, Linux %s, preemption %s, HZ %d, clocksource %s\n", e->hostname,
			        e->machine, e->cpu_model, e->online_cpus, e->kernel, e->preemption[0] ? e->preemption : "unknown",
			        e->hz, e->clocksource);
	}
	conditions_lines(f, in);
	fprintf(f, "command lines\n");
	for (int i = 0; i < in->n; i++) {
		const char *c = in->rs[i]->cmdline ? in->rs[i]->cmdline : "";
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(c, in->rs[j]->cmdline ? in->rs[j]->cmdline : "");
		if (seen)
			continue;
		int same = 0;
		for (int j = i; j < in->n; j++)
			same += !strcmp(c, in->rs[j]->cmdline ? in->rs[j]->cmdline : "");
		char lab[64];
		fprintf(f, "  irt %s  (%s%s)\n", c, report_label(in, i, lab, sizeof(lab)), same > 1 ? " and others" : "");
	}
}

int report_text(FILE *f, const struct report_in *in, struct err *e)
{
	const char *metric = NULL;
	if (report_metric(in, &metric, e))
		return -1;
	struct report_series *s;
	int ns;
	report_series_build(in, &s, &ns);
	fprintf(f, "%s: %d result%s", in->title ? in->title : "irt report", in->n, in->n == 1 ? "" : "s");
	if (in->sw)
		fprintf(f, ", a sweep of %d cells", in->sw->ncells);
	fprintf(f, "\n\n");
	const struct report_words *words = report_wake_words(in, s, ns);
	bool runq = words->runq;
	if (ns) {
		pct_table(f, s, ns, false, runq);
		fprintf(f, "\n");
		if (!runq) {
			pct_table(f, s, ns, true, false);
			fprintf(f, "\n");
		}
		spectrum(f, s, ns, words);
		series_list(f, in, s, ns);
		stopped_lines(f, in);
		fprintf(f, "\n");
	}
	sim_pivot_text(f, in);
	sim_tables(f, in);
	if (in->sw && metric) {
		sweep(f, in->sw, metric);
		fprintf(f, "\n");
	}
	struct report_acct *rows;
	int nacct = report_acct_rows(in, &rows);
	if (nacct) {
		acct(f, rows, nacct);
		fprintf(f, "\n");
	}
	free(rows);
	loads(f, in);
	explain_sections(f, in);
	if (in->n)
		env_and_commands(f, in);
	report_series_free(s, ns);
	fflush(f);   /* f is stdout: a failed write is said once, by main's stdout_status */
	return 0;
}

/* The report's charts, built from series, the sweep summary and accounting rows. */
#include "out/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "out/svg.h"
#include "trust.h"
#include "units.h"
#include "util.h"

#define BINS_PER_DECADE 10
#define MAX_BINS 160
#define MAX_SPECTRUM_POINTS 160

static const char how_hist[] =
	"Each line is one thread or cell: the share of its samples whose latency fell into each bin "
	"(10 bins per decade). Both axes are logarithmic, so a tail ten times rarer sits one decade "
	"lower and a latency ten times longer one decade further right. The rows above the plot mark "
	"each line's median (p50), p99, p99.9 and maximum; the legend gives their values.";
static const char how_spectrum[] =
	"The latency at each percentile: left is the typical wake-up, right the rare bad one. The x "
	"axis is 1/(1-p) on a log scale, so 90 %, 99 %, 99.9 % and 99.99 % are equally spaced. A line "
	"ends where its samples end (a percentile needs about 1/(1-p) samples; the last point is the "
	"maximum). Lower is better; a line that rises steeply to the right has a heavy tail.";
static const char how_knob[] =
	"The sweep's metric (median over the repetitions) for each value of one knob; the bars are the "
	"95 % confidence interval. One line per load and combination of the other knobs. Overlapping "
	"bars mean the data cannot tell the values apart.";
static const char how_pareto[] =
	"Each cell's latency metric against its throughput (medians, bars: 95 % confidence intervals). "
	"Lower latency and higher throughput are better, so the best trade-offs lie towards the bottom "
	"right; the dashed line joins the Pareto front, the cells no other cell beats on both. The ring "
	"marks the recommendation, the square the baseline.";
static const char how_acct[] =
	"Where each thread's time went: solid, on a CPU (used); hatched, runnable but waiting for a CPU "
	"(waited). A probe that waits long relative to what it uses is being delayed by the scheduler.";

static void add_chart(struct report_chart **v, int *n, const char *id, const char *title, const char *section,
                      const char *how, struct sbuf *svg, const char *note)
{
	*v = xreallocarray(*v, (size_t)(*n + 1), sizeof(**v));
	struct report_chart *c = &(*v)[(*n)++];
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "%s", id);
	snprintf(c->title, sizeof(c->title), "%s", title);
	snprintf(c->section, sizeof(c->section), "%s", section);
	snprintf(c->note, sizeof(c->note), "%s", note ? note : "");
	c->how = how;
	c->svg = svg->s;   /* ownership moves to the chart */
	memset(svg, 0, sizeof(*svg));
}

void report_charts_free(struct report_chart *c, int n)
{
	for (int i = 0; i < n; i++)
		free(c[i].svg);
	free(c);
}

/* Up to REPORT_MAX_SERIES series in their order; with more, the baseline, the recommendation
 * and the Pareto cells are kept first. */
static int pick_series(const struct report_in *in, const struct report_series *s, int ns, int *idx)
{
	bool *take = xcalloc((size_t)ns + 1, sizeof(*take));
	int k = 0;
	if (ns > REPORT_MAX_SERIES && in->sw) {
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < ns && k < REPORT_MAX_SERIES; i++) {
				if (take[i] || s[i].cell < 0)
					continue;
				const struct sweep_cell *c = &in->sw->cells[s[i].cell];
				bool want = pass == 0 ? strcmp(c->id, in->sw->baseline) == 0 || strcmp(c->id, in->sw->recommendation) == 0
				                      : c->pareto;
				if (want) {
					take[i] = true;
					k++;
				}
			}
	}
	for (int i = 0; i < ns && k < REPORT_MAX_SERIES; i++)
		if (!take[i]) {
			take[i] = true;
			k++;
		}
	int n = 0;
	for (int i = 0; i < ns; i++)
		if (take[i])
			idx[n++] = i;
	free(take);
	return n;
}

static double at_least_1ns(double v)
{
	return v < 1 ? 1 : v;
}

/* ---- histograms -------------------------------------------------------------------------- */

static void hist_chart(struct report_chart **v, int *nv, const struct report_series *s, const int *idx, int np,
                       int ns, bool resp, const struct report_words *words)
{
	struct svg_series ser[REPORT_MAX_SERIES];
	struct svg_point *pts[REPORT_MAX_SERIES];
	char notes[REPORT_MAX_SERIES][128];
	static const double pct[] = {50, 99, 99.9, 100};
	static const char *const pname[] = {"p50", "p99", "p99.9", "max"};
	bool any = false;
	double ylo = 100;
	memset(ser, 0, sizeof(ser));
	for (int j = 0; j < np; j++) {
		const struct hist *h = resp ? s[idx[j]].resp : s[idx[j]].wake;
		svg_style(&ser[j], j);
		ser[j].name = s[idx[j]].label;
		ser[j].draw = SVG_STEP;
		pts[j] = xcalloc(MAX_BINS, sizeof(struct svg_point));
		ser[j].p = pts[j];
		if (!h->count) {
			ser[j].note = "no samples";
			continue;
		}
		any = true;
		double share[MAX_BINS] = {0};
		size_t it = 0;
		struct hist_bucket b;
		while (hist_next(h, &it, &b)) {
			double mid = at_least_1ns((double)(b.lo + b.hi) / 2);
			int k = (int)floor(log10(mid) * BINS_PER_DECADE + 1e-9);
			k = k < 0 ? 0 : k >= MAX_BINS ? MAX_BINS - 1 : k;
			share[k] += 100.0 * (double)b.count / (double)h->count;
		}
		int peak = 0;
		for (int k = 0; k < MAX_BINS; k++)
			if (share[k] > 0) {
				if (share[k] > pts[j][peak].y)
					peak = ser[j].n;
				pts[j][ser[j].n++] = (struct svg_point){.x = pow(10, (double)k / BINS_PER_DECADE),
				                                        .xhi = pow(10, (double)(k + 1) / BINS_PER_DECADE),
				                                        .y = share[k]};
				ylo = fmin(ylo, share[k]);
			}
		pts[j][peak].marker = true;   /* one marker per line, at its mode, names it without colour */
		ser[j].draw |= SVG_MARKERS_SOME;
		size_t nn = 0;
		for (int m = 0; m < 4; m++) {
			int64_t val = hist_percentile(h, pct[m]);
			ser[j].mark_x[m] = at_least_1ns((double)val);
			ser[j].mark_label[m] = pname[m];
			char d[32];
			report_ns(d, sizeof(d), val, true);
			if (m != 2)   /* p99.9 shows on the plot; the legend keeps three numbers */
				nn += (size_t)snprintf(notes[j] + nn, sizeof(notes[j]) - nn, "%s%s %s", nn ? " · " : "", pname[m], d);
		}
		ser[j].nmarks = 4;
		ser[j].note = notes[j];
	}
	if (any) {
		const char *what = resp ? "response time" : words->what;
		char title[96], xl[96], note[96] = "", desc[160];
		snprintf(title, sizeof(title), "%s histogram", resp ? "Response time" : words->What);
		snprintf(desc, sizeof(desc), "Histogram of %s (%s), log-log axes, with percentile marks",
		         resp ? "response times" : words->plural, resp ? "release to work done" : words->span);
		snprintf(xl, sizeof(xl), "%s (log scale)", what);
		if (ns > np)
			snprintf(note, sizeof(note), "showing %d of %d series; the tables list all", np, ns);
		struct svg_plot p = {
			.id = resp ? "resp-hist" : "wake-hist",
			.title = title,
			.desc = desc,
			.x = {.label = xl, .scale = SVG_LOG, .unit = SVG_UNIT_NS},
			/* from half the rarest bin, so single samples stand clear of the axis */
			.y = {.label = "share of samples per bin (log scale)", .scale = SVG_LOG, .unit = SVG_UNIT_PERCENT,
			      .lo = ylo / 2, .hi = 100},
			.s = ser,
			.ns = np,
			.footnote = note[0] ? note : "bins: 10 per decade; marks above the plot: p50, p99, p99.9, max",
		};
		struct sbuf b = {0};
		svg_plot(&b, &p);
		add_chart(v, nv, p.id, title, "latency", how_hist, &b, note);
	}
	for (int j = 0; j < np; j++)
		free(pts[j]);
}

/* ---- percentile spectrum ----------------------------------------------------------------- */

static int spectrum_points(const struct hist *h, struct svg_point *p)
{
	double count = (double)h->count, last = 0;
	int n = 0;
	for (int j = 0; n < MAX_SPECTRUM_POINTS - 2 && j <= 120; j++) {
		double x = j % 20 == 0 ? pow(10, (double)(j / 20)) : pow(10, j / 20.0);
		if (last < 2 && x > 2 && count >= 2)   /* p50 is a labelled tick: give it a point */
			p[n++] = (struct svg_point){.x = 2, .y = at_least_1ns((double)hist_percentile(h, 50)), .marker = true};
		if (x > count)
			break;
		p[n++] = (struct svg_point){.x = x,
		                            .y = at_least_1ns((double)hist_percentile(h, 100.0 * (1.0 - 1.0 / x))),
		                            .marker = j > 0 && j % 20 == 0};
		last = x;
	}
	if (count > 1 && (n == 0 || p[n - 1].x < count))   /* the last sample: the maximum */
		p[n++] = (struct svg_point){.x = count, .y = at_least_1ns((double)h->max)};
	return n;
}

static void spectrum_chart(struct report_chart **v, int *nv, const struct report_series *s, const int *idx, int np,
                           int ns, bool resp, const struct report_words *words)
{
	struct svg_series ser[REPORT_MAX_SERIES];
	struct svg_point *pts[REPORT_MAX_SERIES];
	char notes[REPORT_MAX_SERIES][200];
	bool any = false;
	memset(ser, 0, sizeof(ser));
	for (int j = 0; j < np; j++) {
		const struct hist *h = resp ? s[idx[j]].resp : s[idx[j]].wake;
		svg_style(&ser[j], j);
		ser[j].name = s[idx[j]].label;
		ser[j].draw = SVG_LINE | SVG_MARKERS_SOME;
		pts[j] = xcalloc(MAX_SPECTRUM_POINTS, sizeof(struct svg_point));
		ser[j].p = pts[j];
		ser[j].n = h->count ? spectrum_points(h, pts[j]) : 0;
		any |= ser[j].n > 0;
		if (s[idx[j]].note[0])
			snprintf(notes[j], sizeof(notes[j]), "%s", s[idx[j]].note);
		else
			snprintf(notes[j], sizeof(notes[j]), "%llu samples", (unsigned long long)h->count);
		ser[j].note = notes[j];
	}
	if (any) {
		char title[96], yl[96], note[96] = "";
		snprintf(title, sizeof(title), "%s percentile spectrum", resp ? "Response time" : words->What);
		snprintf(yl, sizeof(yl), "%s (log scale)", resp ? "response time" : words->what);
		if (ns > np)
			snprintf(note, sizeof(note), "showing %d of %d series; the tables list all", np, ns);
		struct svg_plot p = {
			.id = resp ? "resp-spectrum" : "wake-spectrum",
			.title = title,
			.desc = "Latency at each percentile; x axis 1/(1-p) on a log scale, y axis latency on a log scale",
			.x = {.label = "percentile (log scale of 1/(1-p))", .scale = SVG_SPECTRUM},
			.y = {.label = yl, .scale = SVG_LOG, .unit = SVG_UNIT_NS},
			.s = ser,
			.ns = np,
			.footnote = note[0] ? note : "markers at 50, 90, 99, 99.9, 99.99 %; a line ends at its maximum",
		};
		struct sbuf b = {0};
		svg_plot(&b, &p);
		add_chart(v, nv, p.id, title, "spectrum", how_spectrum, &b, note);
	}
	for (int j = 0; j < np; j++)
		free(pts[j]);
}

/* ---- sweeps ------------------------------------------------------------------------------ */

/* Value order along a knob axis: numeric when every value is a number or a duration. */
struct kval {
	const char *s;
	double key;
};

static int cmp_kval(const void *a, const void *b)
{
	const struct kval *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key ? 1 : 0;
}

static int knob_values(const struct sweep_summary *sw, const char *knob, struct kval *vals)
{
	int n = 0;
	for (int i = 0; i < sw->ncells; i++) {
		const char *val = kvlist_get(&sw->cells[i].settings, knob);
		if (!val)
			continue;
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(vals[k].s, val) == 0;
		if (!seen) {
			vals[n].s = val;
			vals[n].key = n;
			n++;
		}
	}
	bool numeric = true, durations = true;
	for (int k = 0; k < n; k++) {
		char *end;
		double d = strtod(vals[k].s, &end);
		numeric &= end != vals[k].s && !*end && isfinite(d);
		int64_t ns;
		durations &= units_parse_duration(vals[k].s, &ns) == 0;
	}
	if (numeric || durations) {
		for (int k = 0; k < n; k++) {
			int64_t ns = 0;
			if (numeric)
				vals[k].key = strtod(vals[k].s, NULL);
			else if (units_parse_duration(vals[k].s, &ns) == 0)
				vals[k].key = (double)ns;
		}
		qsort(vals, (size_t)n, sizeof(*vals), cmp_kval);
	}
	return n;
}

/* The identity of a cell apart from one knob: its load and the other knobs' values. */
static void other_key(const struct sweep_summary *sw, const struct sweep_cell *c, const char *knob, char *buf,
                      size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", c->load);
	for (int k = 0; k < sw->knobs.n && n < len; k++) {
		if (strcmp(sw->knobs.v[k], knob) == 0)
			continue;
		const char *val = kvlist_get(&c->settings, sw->knobs.v[k]);
		if (val)
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? ", " : "", sw->knobs.v[k], val);
	}
}

static bool use_log(double lo, double hi, bool ns)
{
	return ns && lo > 0 && hi / lo > 30;
}

static void knob_chart(struct report_chart **v, int *nv, const struct sweep_summary *sw, const char *metric, int knob_i)
{
	const char *knob = sw->knobs.v[knob_i];
	int nc = sw->ncells;
	struct kval *vals = xcalloc((size_t)nc + 1, sizeof(*vals));
	char (*keys)[200] = xcalloc((size_t)nc + 1, sizeof(*keys));
	struct svg_point *pts = xcalloc((size_t)nc + 1, sizeof(*pts));
	const char **cats = xcalloc((size_t)nc + 1, sizeof(*cats));
	int nval = knob_values(sw, knob, vals), nkeys = 0;
	bool ns = sweep_metric_is_ns(metric);
	double lo = INFINITY, hi = 0;
	if (nval >= 2) {
		for (int i = 0; i < nc; i++) {
			char k[200];
			if (!kvlist_get(&sw->cells[i].settings, knob) || !sweep_cell_metric(&sw->cells[i], metric))
				continue;
			other_key(sw, &sw->cells[i], knob, k, sizeof(k));
			bool seen = false;
			for (int j = 0; j < nkeys && !seen; j++)
				seen = strcmp(keys[j], k) == 0;
			if (!seen)
				memcpy(keys[nkeys++], k, sizeof(k));
		}
	}
	if (nval < 2 || nkeys == 0)
		goto out;
	int nser = nkeys < REPORT_MAX_SERIES ? nkeys : REPORT_MAX_SERIES;
	struct svg_series ser[REPORT_MAX_SERIES];
	memset(ser, 0, sizeof(ser));
	int used = 0;
	double spacing = nser > 1 ? fmin(0.12, 0.6 / nser) : 0;
	for (int j = 0; j < nser; j++) {
		svg_style(&ser[j], j);
		ser[j].name = keys[j][0] ? keys[j] : metric;
		ser[j].draw = SVG_LINE | SVG_MARKERS | SVG_ERRBARS_Y;
		ser[j].width = 1.4;
		ser[j].p = pts + used;
		for (int x = 0; x < nval; x++)
			for (int i = 0; i < nc; i++) {
				const struct sweep_cell *c = &sw->cells[i];
				const char *val = kvlist_get(&c->settings, knob);
				const struct sweep_stat *st = sweep_cell_metric(c, metric);
				char k[200];
				if (!val || !st || strcmp(val, vals[x].s))
					continue;
				other_key(sw, c, knob, k, sizeof(k));
				if (strcmp(k, keys[j]))
					continue;
				pts[used++] = (struct svg_point){.x = x + (j - (nser - 1) / 2.0) * spacing,
				                                 .y = st->median, .ylo = st->lo, .yhi = st->hi};
				ser[j].n++;
				lo = fmin(lo, st->lo);
				hi = fmax(hi, st->hi);
			}
	}
	for (int x = 0; x < nval; x++)
		cats[x] = vals[x].s;
	char title[160], id[64], yl[96], note[96] = "";
	snprintf(title, sizeof(title), "%s by %s", metric, knob);
	size_t n = (size_t)snprintf(id, sizeof(id), "knob-%d-", knob_i + 1);
	for (const char *c = knob; *c && n + 1 < sizeof(id); c++)
		id[n++] = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ? *c : (*c >= 'A' && *c <= 'Z') ? (char)(*c + 32) : '-';
	id[n] = 0;
	snprintf(yl, sizeof(yl), "%s (median, 95%% CI)%s", metric, use_log(lo, hi, ns) ? ", log scale" : "");
	if (nkeys > nser)
		snprintf(note, sizeof(note), "showing %d of %d lines; the verdict table lists every cell", nser, nkeys);
	struct svg_plot p = {
		.id = id,
		.title = title,
		.desc = "The sweep metric with its confidence interval for each value of one knob, one line per load",
		.x = {.label = knob, .scale = SVG_CATEGORY, .cats = cats, .ncat = nval},
		.y = {.label = yl, .scale = use_log(lo, hi, ns) ? SVG_LOG : SVG_LINEAR, .unit = ns ? SVG_UNIT_NS : SVG_UNIT_NONE,
		      .zero = true},
		.s = ser,
		.ns = nser,
		.legend_title = "load, other knobs",
		.footnote = note[0] ? note : NULL,
	};
	struct sbuf b = {0};
	svg_plot(&b, &p);
	add_chart(v, nv, id, title, "sweep", how_knob, &b, note);
out:
	free(vals);
	free(keys);
	free(pts);
	free(cats);
}

static const char *throughput_metric(const struct sweep_summary *sw)
{
	for (int i = 0; i < sw->ncells; i++)
		for (int m = 0; m < sw->cells[i].nmetrics; m++)
			if (strcmp(sw->cells[i].metrics[m].name, "throughput") == 0)
				return "throughput";
	for (int i = 0; i < sw->ncells; i++)
		for (int m = 0; m < sw->cells[i].nmetrics; m++)
			if (strncmp(sw->cells[i].metrics[m].name, "throughput", 10) == 0)
				return sw->cells[i].metrics[m].name;
	return NULL;
}

/* On the front: no other cell has latency <= and throughput >= with one strictly better. */
static bool pareto_of(const struct sweep_summary *sw, const char *lat, const char *tp, int i)
{
	if (sw->has_pareto)
		return sw->cells[i].pareto;
	const struct sweep_stat *a = sweep_cell_metric(&sw->cells[i], lat), *at = sweep_cell_metric(&sw->cells[i], tp);
	for (int j = 0; j < sw->ncells; j++) {
		const struct sweep_stat *b = sweep_cell_metric(&sw->cells[j], lat), *bt = sweep_cell_metric(&sw->cells[j], tp);
		if (j == i || !b || !bt)
			continue;
		if (b->median <= a->median && bt->median >= at->median && (b->median < a->median || bt->median > at->median))
			return false;
	}
	return true;
}

static int cmp_x(const void *a, const void *b)
{
	const struct svg_point *x = a, *y = b;
	return x->x < y->x ? -1 : x->x > y->x ? 1 : 0;
}

static void pareto_chart(struct report_chart **v, int *nv, const struct sweep_summary *sw, const char *metric)
{
	const char *tp = throughput_metric(sw);
	if (!tp || strcmp(tp, metric) == 0)
		return;
	int nc = sw->ncells;
	struct svg_point *all = xcalloc((size_t)nc + 1, sizeof(*all)), *front = xcalloc((size_t)nc + 1, sizeof(*front));
	struct svg_point base = {0}, rec = {0};
	int n = 0, nf = 0, nb = 0, nr = 0;
	bool ns = sweep_metric_is_ns(metric);
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < nc; i++) {
		const struct sweep_cell *c = &sw->cells[i];
		const struct sweep_stat *l = sweep_cell_metric(c, metric), *t = sweep_cell_metric(c, tp);
		if (!l || !t)
			continue;
		struct svg_point q = {.x = t->median, .xlo = t->lo, .xhi = t->hi, .y = l->median, .ylo = l->lo, .yhi = l->hi,
		                      .label = c->id};
		all[n++] = q;
		lo = fmin(lo, l->lo);
		hi = fmax(hi, l->hi);
		if (pareto_of(sw, metric, tp, i))
			front[nf++] = q;
		if (strcmp(c->id, sw->baseline) == 0)
			base = q, nb = 1;
		if (strcmp(c->id, sw->recommendation) == 0)
			rec = q, nr = 1;
	}
	if (n == 0)
		goto out;
	qsort(front, (size_t)nf, sizeof(*front), cmp_x);
	struct svg_series ser[4];
	memset(ser, 0, sizeof(ser));
	ser[0] = (struct svg_series){.name = "Pareto front", .draw = SVG_LINE, .color = 2, .dash = 1, .marker = SVG_M_NONE,
	                             .width = 2, .p = front, .n = nf};
	ser[1] = (struct svg_series){.name = "cell (median, 95% CI)", .draw = SVG_MARKERS | SVG_ERRBARS_X | SVG_ERRBARS_Y | SVG_LABELS,
	                             .color = 0, .marker = SVG_M_CIRCLE, .p = all, .n = n};
	ser[2] = (struct svg_series){.name = "baseline", .draw = SVG_MARKERS, .color = 6, .marker = SVG_M_SQUARE,
	                             .hollow = true, .marker_size = 6.5, .p = &base, .n = nb, .legend_hidden = !nb};
	ser[3] = (struct svg_series){.name = "recommended", .draw = SVG_MARKERS, .color = 1, .marker = SVG_M_CIRCLE,
	                             .hollow = true, .marker_size = 9, .p = &rec, .n = nr, .legend_hidden = !nr};
	char title[160], yl[96], xl[96];
	snprintf(title, sizeof(title), "%s against %s", metric, tp);
	snprintf(yl, sizeof(yl), "%s (lower is better%s)", metric, use_log(lo, hi, ns) ? ", log scale" : "");
	snprintf(xl, sizeof(xl), "%s (median; higher is better)", tp);
	struct svg_plot p = {
		.id = "sweep-pareto",
		.title = title,
		.desc = "Latency metric against throughput per cell, with the Pareto front and the recommendation",
		.x = {.label = xl, .scale = SVG_LINEAR, .unit = SVG_UNIT_NONE},
		.y = {.label = yl, .scale = use_log(lo, hi, ns) ? SVG_LOG : SVG_LINEAR, .unit = ns ? SVG_UNIT_NS : SVG_UNIT_NONE,
		      .zero = true},
		.s = ser,
		.ns = 4,
		.footnote = sw->has_pareto ? "front as listed in the sweep summary" : "front computed from the medians",
	};
	struct sbuf b = {0};
	svg_plot(&b, &p);
	add_chart(v, nv, p.id, title, "sweep", how_pareto, &b, NULL);
out:
	free(all);
	free(front);
}

/* ---- accounting -------------------------------------------------------------------------- */

#define MAX_ACCT_ROWS 40

static void acct_chart(struct report_chart **v, int *nv, const struct report_in *in)
{
	struct report_acct *acct;
	int nacct = report_acct_rows(in, &acct);
	int n = nacct < MAX_ACCT_ROWS ? nacct : MAX_ACCT_ROWS;
	if (n == 0)
		return;
	char (*labels)[160] = xcalloc((size_t)n, sizeof(*labels));
	const char **rows = xcalloc((size_t)n, sizeof(*rows));
	double *vals = xcalloc((size_t)n * 2, sizeof(*vals));
	bool sources = false, unknown = false;
	for (int i = 1; i < nacct; i++)
		sources |= acct[i].source && acct[0].source && strcmp(acct[i].source, acct[0].source);
	for (int i = 0; i < n; i++) {
		const struct report_acct *a = &acct[i];
		if (sources && a->source)
			snprintf(labels[i], sizeof(labels[i]), "%s: %s (%s)", a->source, a->thread ? a->thread : "?",
			         a->role ? a->role : "?");
		else
			snprintf(labels[i], sizeof(labels[i]), "%s (%s)", a->thread ? a->thread : "?", a->role ? a->role : "?");
		rows[i] = labels[i];
		vals[2 * i] = (double)a->used_ns;
		vals[2 * i + 1] = (double)a->waited_ns;
		unknown |= a->waited_ns < 0;
	}
	static const char *const parts[] = {"used (on a CPU)", "waited (runnable, no CPU)"};
	char note[128] = "";
	if (nacct > n)
		snprintf(note, sizeof(note), "showing %d of %d threads; the table lists all", n, nacct);
	else if (unknown)
		snprintf(note, sizeof(note), "waiting time unknown for some threads (drawn as none)");
	struct svg_bars g = {
		.id = "cpu-accounting",
		.title = "CPU accounting per thread",
		.desc = "Per thread: CPU time used and time spent runnable waiting for a CPU",
		.xlabel = "CPU time",
		.unit = SVG_UNIT_NS,
		.rows = rows,
		.nrows = n,
		.parts = parts,
		.nparts = 2,
		.values = vals,
		.footnote = note[0] ? note : NULL,
	};
	struct sbuf b = {0};
	svg_bars(&b, &g);
	add_chart(v, nv, g.id, g.title, "accounting", how_acct, &b, note);
	free(labels);
	free(rows);
	free(vals);
	free(acct);
}

int report_charts(const struct report_in *in, const struct report_series *s, int ns, struct report_chart **out, int *n,
                  struct err *e)
{
	const char *metric = NULL;
	if (report_metric(in, &metric, e))
		return -1;
	struct report_chart *v = NULL;
	int nv = 0, idx[REPORT_MAX_SERIES];
	int np = pick_series(in, s, ns, idx);
	const struct report_words *words = report_wake_words(in, s, ns);
	hist_chart(&v, &nv, s, idx, np, ns, false, words);
	hist_chart(&v, &nv, s, idx, np, ns, true, words);
	spectrum_chart(&v, &nv, s, idx, np, ns, false, words);
	spectrum_chart(&v, &nv, s, idx, np, ns, true, words);
	if (in->sw && metric) {
		for (int k = 0; k < in->sw->knobs.n; k++)
			knob_chart(&v, &nv, in->sw, metric, k);
		pareto_chart(&v, &nv, in->sw, metric);
	}
	acct_chart(&v, &nv, in);
	*out = v;
	*n = nv;
	return 0;
}

int report_svg_dir(const struct report_in *in, const char *dir, struct err *e)
{
	struct report_series *s;
	struct report_chart *c = NULL;
	int ns, nc = 0, rc = -1;
	report_series_build(in, &s, &ns);
	if (report_charts(in, s, ns, &c, &nc, e))
		goto out;
	bool made;
	int dfd = output_dir_open(dir, "--svg", &made, e);   /* a link planted at DIR is not followed */
	if (dfd < 0)
		goto out;
	char path[4096], name[256];
	int written = 0;
	for (; written < nc; written++) {
		struct sbuf b = {0};
		snprintf(name, sizeof(name), "%s.svg", c[written].id);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		sb_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
		sb_puts(&b, c[written].svg);
		int bad = write_atomic_at(dfd, name, path, b.s, b.len, e);
		sb_free(&b);
		if (bad)
			break;
	}
	if (written < nc) {   /* all charts or none (e.g. a full disk): nothing half done is left */
		for (int i = 0; i < written; i++) {
			snprintf(name, sizeof(name), "%s.svg", c[i].id);
			unlinkat(dfd, name, 0);
		}
		if (made)
			output_dir_remove(dir, dfd);
		close(dfd);
		goto out;
	}
	close(dfd);
	rc = 0;
out:
	report_charts_free(c, nc);
	report_series_free(s, ns);
	return rc;
}

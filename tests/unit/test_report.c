/* Reports: golden files of every chart and the text report from fixed hand-built results,
 * no overlapping text with 12 series, series and labels, the sweep summary reader's errors,
 * atomic writes. Goldens live in tests/golden; `make golden` (IRT_UPDATE_GOLDEN=1) rewrites
 * them deliberately. Run from the top of the tree (the test runner does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out/html.h"
#include "out/report.h"
#include "trust.h"
#include "out/svg.h"
#include "out/text.h"
#include "sweep_summary.h"

#define SWEEP_FIXTURE "tests/data/report/sweep.json"

/* ---- fixed inputs ------------------------------------------------------------------------ */

static uint64_t rng;
static double unif(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A body around typ ns and, with probability tail, a long tail up to tailmax (arithmetic only,
 * so the same on every machine). */
static int64_t draw(int64_t typ, double tail, int64_t tailmax)
{
	if (unif() < tail)
		return 2 * typ + (int64_t)(unif() * unif() * (double)tailmax);
	return (int64_t)((double)typ * (0.6 + 0.8 * unif()));
}

static void env(struct result *r)
{
	strcpy(r->env.hostname, "testhost");
	strcpy(r->env.kernel, "6.18.0-test");
	strcpy(r->env.kernel_version, "#1 SMP PREEMPT_DYNAMIC");
	strcpy(r->env.machine, "x86_64");
	strcpy(r->env.cpu_model, "Test CPU <model> & co");
	r->env.online_cpus = 2;
	strcpy(r->env.clocksource, "tsc");
	strcpy(r->env.preemption, "dynamic (full)");
	r->env.hz = 250;
	r->env.root = true;
}

/* nthreads probe threads with samples each; typ/tail shape the latencies */
static struct result *make_result(const char *cmdline, int nthreads, const char *const *names, int samples, int64_t typ,
                                  double tail, int64_t tailmax, uint64_t seed)
{
	struct result *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(result_init(r, "probe", nthreads, NULL), 0);
	r->cmdline = strdup(cmdline);
	r->start_realtime_ns = 1796207065000000000 + (int64_t)seed * 1000000000;
	r->end_realtime_ns = r->start_realtime_ns + 2 * 1000000000LL;
	r->duration_ns = 2 * 1000000000LL;
	env(r);
	rng = seed * 0x9E3779B97F4A7C15ull + 1;
	for (int t = 0; t < nthreads; t++) {
		struct result_thread *th = &r->threads[t];
		snprintf(th->name, sizeof(th->name), "%s", names[t]);
		kvlist_set(&th->settings, "period", t == 2 ? "16ms" : "1ms");
		kvlist_set(&th->settings, "policy", t == 1 ? "fifo" : "other");
		kvlist_set(&th->settings, "prio", t == 1 ? "80" : "0");
		kvlist_set(&th->settings, "burn", t == 0 ? "50us" : "0ns");
		for (int i = 0; i < samples; i++) {
			int64_t w = draw(typ * (t + 1), tail, tailmax);
			hist_record(&th->wake, w);
			hist_record(&th->resp, w + 50000 + (int64_t)(unif() * 20000));
		}
		th->samples = (uint64_t)samples;
		th->overruns = (uint64_t)(samples * tail / 4);
		th->deadlines_missed = th->overruns;
		th->deadlines_met = (uint64_t)samples - th->overruns;
	}
	return r;
}

struct fixture {
	struct result *rs[16];
	const char *labels[16];
	int cell_of[16];
	int n;
	struct sweep_summary sw;
	struct report_acct acct[4];
	struct report_in in;
};

static void fixture_free(struct fixture *f)
{
	for (int i = 0; i < f->n; i++) {
		result_free(f->rs[i]);
		free(f->rs[i]);
	}
	sweep_summary_free(&f->sw);
}

/* idle: one audio thread; loaded: audio, video, x; a sweep; accounting of four threads */
static void fixture_golden(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	static const char *const one[] = {"audio"}, *const three[] = {"audio", "video", "x"};
	f->rs[0] = make_result("probe --persona audio -n 20000 -o idle.json", 1, one, 20000, 8000, 0.01, 200000, 1);
	f->rs[1] = make_result("run --persona audio --load cpu:threads=4 -o loaded.json", 3, three, 5000, 30000, 0.05,
	                       4000000, 2);
	f->labels[0] = "idle";
	f->labels[1] = "loaded";
	f->cell_of[0] = f->cell_of[1] = -1;
	f->n = 2;
	assert_int_equal(sweep_summary_read(&f->sw, SWEEP_FIXTURE, NULL), 0);
	f->acct[0] = (struct report_acct){"loaded", "audio", "probe", 12000000, 3000000, 2000000000, false};
	f->acct[1] = (struct report_acct){"loaded", "video", "probe", 40000000, 9000000, 2000000000, false};
	f->acct[2] = (struct report_acct){"loaded", "hog0", "load", 980000000, 610000000, 2000000000, false};
	f->acct[3] = (struct report_acct){"loaded", "hog1", "load", 950000000, -1, 2000000000, false};
	f->in = (struct report_in){.rs = (const struct result *const *)f->rs, .n = f->n, .labels = f->labels,
	                           .sw = &f->sw, .cell_of = f->cell_of, .acct = f->acct, .nacct = 4};
}

/* twelve results of one thread each, with long names: the crowded case */
static void fixture_twelve(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	static const char *const name[] = {"interactive-probe-thread"};
	static const char *const labels[12] = {"baseline-idle", "cfs-period-10ms", "cfs-period-100ms", "quota-50pct",
	                                       "quota-25pct", "rr-timeslice-4ms", "rr-timeslice-100ms", "autogroup-off",
	                                       "autogroup-on", "slice-1ms", "slice-3ms", "nice-minus-10-under-heavy-load"};
	for (int i = 0; i < 12; i++) {
		f->rs[i] = make_result("probe -n 3000", 1, name, 3000, 5000 + 4000 * i, 0.002 * (i + 1), 300000 * (i + 1),
		                       (uint64_t)i + 10);
		f->labels[i] = labels[i];
		f->cell_of[i] = -1;
	}
	f->n = 12;
	assert_int_equal(sweep_summary_read(&f->sw, SWEEP_FIXTURE, NULL), 0);
	f->in = (struct report_in){.rs = (const struct result *const *)f->rs, .n = 12, .labels = f->labels, .sw = &f->sw,
	                           .cell_of = f->cell_of};
}

/* ---- goldens ----------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct sbuf b = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_printf(&b, "%.*s", (int)n, buf);
	fclose(f);
	*len = b.len;
	return b.s ? b.s : strdup("");
}

static int golden_failures;

static void check_golden(const char *name, const char *data, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/golden/%s", name);
	if (getenv("IRT_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
		printf("updated %s\n", path);
		return;
	}
	size_t glen = 0;
	char *g = slurp(path, &glen);
	if (!g) {
		printf("missing golden file %s (run 'make golden' to create it)\n", path);
		golden_failures++;
		return;
	}
	if (glen != len || memcmp(g, data, len) != 0) {
		char actual[256];
		snprintf(actual, sizeof(actual), "/tmp/irt-golden-actual-%s", name);
		FILE *f = fopen(actual, "wb");
		if (f) {
			fwrite(data, 1, len, f);
			fclose(f);
		}
		size_t i = 0, line = 1;
		while (i < len && i < glen && data[i] == g[i])
			line += data[i++] == '\n';
		printf("golden %s differs from line %zu (actual output in %s; 'make golden' accepts it)\n", path, line, actual);
		golden_failures++;
	}
	free(g);
}

static void test_golden_charts(void **state)
{
	(void)state;
	struct fixture f;
	fixture_golden(&f);
	struct report_series *s;
	struct report_chart *c;
	int ns, nc;
	assert_int_equal(report_series_build(&f.in, &s, &ns), 0);
	assert_int_equal(report_charts(&f.in, s, ns, &c, &nc, NULL), 0);
	/* histograms, spectra, two knob charts, the Pareto chart, accounting */
	const char *want[] = {"wake-hist", "resp-hist", "wake-spectrum", "resp-spectrum", "knob-1-cpu-cfs-period-us",
	                      "knob-2-cpu-cfs-quota-us", "sweep-pareto", "cpu-accounting"};
	assert_int_equal(nc, 8);
	golden_failures = 0;
	for (int i = 0; i < nc; i++) {
		assert_string_equal(c[i].id, want[i]);
		char name[96];
		snprintf(name, sizeof(name), "%s.svg", c[i].id);
		check_golden(name, c[i].svg, strlen(c[i].svg));
	}
	report_charts_free(c, nc);
	report_series_free(s, ns);

	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_int_equal(report_text(m, &f.in, NULL), 0);
	fclose(m);
	check_golden("report.txt", text, len);
	free(text);
	fixture_free(&f);
	assert_int_equal(golden_failures, 0);
}

/* ---- --format cyclictest --hist-sum (cyclictest -H) ------------------------------------------ */

static char *cyclictest_text(const struct result *r, int buckets, bool sum)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	out_cyclictest(m, r, buckets, sum);
	fclose(m);
	return text;
}

/* three threads, a tail past the 100 rows (overflows): the summed column in the rows, Total,
 * Max and Overflows, none in Min and Avg, as cyclictest -H prints them; none for one thread */
static void test_golden_cyclictest_sum(void **state)
{
	(void)state;
	static const char *const three[] = {"a", "b", "c"}, *const one[] = {"a"};
	struct result *r = make_result("probe -t 3 --format cyclictest --hist-sum", 3, three, 400, 20000, 0.05, 300000, 7);
	char *with = cyclictest_text(r, 100, true), *without = cyclictest_text(r, 100, false);
	golden_failures = 0;
	check_golden("cyclictest-hist-sum.txt", with, strlen(with));
	check_golden("cyclictest.txt", without, strlen(without));
	assert_int_equal(golden_failures, 0);
	free(with);
	free(without);
	result_free(r);
	free(r);
	r = make_result("probe --format cyclictest --hist-sum", 1, one, 400, 20000, 0.05, 300000, 7);
	with = cyclictest_text(r, 100, true);
	without = cyclictest_text(r, 100, false);
	assert_string_equal(with, without);
	free(with);
	free(without);
	result_free(r);
	free(r);
}

/* ---- the simulation pivot ------------------------------------------------------------------ */

/* A simulated sweep's cell: "sweep-cell" as irt sim writes it; a one-shot vm (completion), a
 * timer (windows), a periodic ui (response), a best-effort hog (share). */
static struct result *sim_cell(const char *cell, int64_t done, uint64_t wok, int64_t resp, int64_t hog_ppm)
{
	static const char *const names[] = {"vm", "timer", "ui", "hog"};
	struct result *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_int_equal(result_init(r, "sim", 4, NULL), 0);
	kvlist_set(&r->settings, "sweep-cell", cell);
	for (int t = 0; t < 4; t++) {
		struct result_thread *th = &r->threads[t];
		snprintf(th->name, sizeof(th->name), "%s", names[t]);
		snprintf(th->role, sizeof(th->role), "sim");
		th->sim_activations_min = -1;
		th->sim_share_ppm = 100000;
	}
	r->threads[0].sim_completion_ns = done;
	r->threads[1].sim_windows = 20;
	r->threads[1].sim_windows_ok = wok;
	r->threads[1].sim_activations_min = 19;
	hist_record(&r->threads[2].resp, resp);
	r->threads[3].sim_share_ppm = hog_ppm;
	return r;
}

/* The text report's matrices (from their heading to the blank line after them). */
static char *pivot_text(const struct report_in *in)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_int_equal(report_text(m, in, NULL), 0);
	fclose(m);
	char *a = strstr(text, "super-period x fill"), *b = a ? strstr(a, "\n\n") : NULL;
	char *out = a && b ? strndup(a, (size_t)(b - a + 1)) : strdup("");
	free(text);
	return out;
}

static void test_sim_pivot(void **state)
{
	(void)state;
	/* 2 x 2 x 2: super period down, fill across, one set of matrices per vm.quota; the cell
	 * super-period=100ms fill=1ms vm.quota=0 is missing (a sharded sweep) */
	struct result *rs[] = {
		sim_cell("super-period=1s fill=10ms vm.quota=40%", 24000000000, 20, 30000000, 300000),
		sim_cell("super-period=1s fill=10ms vm.quota=0", -1, 20, 30000000, 320000),
		sim_cell("super-period=1s fill=1ms vm.quota=40%", 18900000000, 19, 3300000, 270000),
		sim_cell("super-period=1s fill=1ms vm.quota=0", 40400000000, 20, 3300000, 270000),
		sim_cell("super-period=100ms fill=10ms vm.quota=40%", 24300000000, 20, 23000000, 300000),
		sim_cell("super-period=100ms fill=10ms vm.quota=0", -1, 20, 33000000, 290000),
		sim_cell("super-period=100ms fill=1ms vm.quota=40%", 20000000000, 20, 3300000, 300000),
	};
	const char *labels[] = {"a", "b", "c", "d", "e", "f", "g"};
	struct report_in in = {.rs = (const struct result *const *)rs, .n = 7, .labels = labels};
	struct sim_pivot p;
	assert_int_equal(sim_pivot_build(&in, &p), 1);
	assert_string_equal(p.down, "super-period");
	assert_string_equal(p.across, "fill");
	assert_int_equal(p.groups.n, 2);
	assert_string_equal(p.groups.v[0], "vm.quota=40%");
	assert_int_equal(p.figs[0], PIVOT_DONE);
	assert_int_equal(p.figs[1], PIVOT_WINDOWS);
	assert_int_equal(p.figs[2], PIVOT_RESP);
	assert_int_equal(p.figs[3], PIVOT_SHARE);
	struct sim_pivot_cell m[4];
	assert_int_equal(sim_pivot_matrix(&p, &in, 0, 0, m), 1);   /* vm, quota 40 %: 1s/1ms boots first */
	assert_true(m[1].best && !m[0].best && !m[2].best && !m[3].best);
	assert_int_equal(sim_pivot_matrix(&p, &in, 0, 1, m), 1);   /* without quota: not done is worst, missing is no cell */
	assert_true(m[0].worst && m[1].best);
	assert_string_equal(m[3].text, "–");
	assert_int_equal(sim_pivot_matrix(&p, &in, 3, 0, m), 3);   /* the hog's share: ties all marked */
	sim_pivot_free(&p);
	char *t = pivot_text(&in);
	golden_failures = 0;
	check_golden("sim_pivot.txt", t, strlen(t));
	assert_int_equal(golden_failures, 0);
	free(t);

	/* the same cell twice (another seed): no matrix, and why */
	struct result *twice[] = {rs[0], rs[0], rs[2], rs[4]};
	in.rs = (const struct result *const *)twice;
	in.n = 4;
	assert_int_equal(sim_pivot_build(&in, &p), 0);
	assert_non_null(strstr(p.why, "a and b are the same cell"));
	/* one swept key varies: the table across the results is enough, no matrix and no note */
	struct result *one[] = {rs[0], rs[2]};
	in.rs = (const struct result *const *)one;
	in.n = 2;
	assert_int_equal(sim_pivot_build(&in, &p), 0);
	assert_string_equal(p.why, "");
	for (int i = 0; i < 7; i++) {
		result_free(rs[i]);
		free(rs[i]);
	}
}

static void test_output_is_deterministic(void **state)
{
	(void)state;
	struct fixture f;
	fixture_golden(&f);
	struct sbuf a = {0}, b = {0};
	assert_int_equal(report_html_render(&f.in, &a, NULL), 0);
	fixture_free(&f);
	fixture_golden(&f);
	assert_int_equal(report_html_render(&f.in, &b, NULL), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.s, b.s, a.len);
	/* self-contained: no scripts, nothing fetched */
	assert_null(strstr(a.s, "<script"));
	assert_null(strstr(a.s, "http://www.w3.org/2000/svg\" href"));
	assert_null(strstr(a.s, "src="));
	assert_null(strstr(a.s, "https:"));
	assert_null(strstr(a.s, "<link"));
	assert_non_null(strstr(a.s, "Test CPU &lt;model&gt; &amp; co"));   /* escaped */
	assert_non_null(strstr(a.s, "<td class=\"better\">better</td>"));
	for (const char *id = "wake-hist\0resp-hist\0wake-spectrum\0resp-spectrum\0sweep-pareto\0cpu-accounting\0"; *id;
	     id += strlen(id) + 1) {
		char needle[160];
		snprintf(needle, sizeof(needle), "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\"", id);
		assert_non_null(strstr(a.s, needle));
	}
	sb_free(&a);
	sb_free(&b);
	fixture_free(&f);
}

/* ---- no overlapping text ----------------------------------------------------------------- */

struct box {
	double x0, y0, x1, y1;
	char text[64];
};

/* The boxes of the unrotated <text> elements (same width estimate as the renderer). */
static int text_boxes(const char *svg, struct box *out, int max, double *w, double *h)
{
	int n = 0;
	assert_int_equal(sscanf(strstr(svg, "width=\""), "width=\"%lf\" height=\"%lf\"", w, h), 2);
	for (const char *p = strstr(svg, "<text x=\""); p && n < max; p = strstr(p + 1, "<text x=\"")) {
		double x, y, fs = 12;
		assert_int_equal(sscanf(p, "<text x=\"%lf\" y=\"%lf\"", &x, &y), 2);
		const char *gt = strchr(p, '>'), *end = strstr(p, "</text>");
		char attrs[256];
		snprintf(attrs, sizeof(attrs), "%.*s", (int)(gt - p), p);
		const char *a = strstr(attrs, "font-size=\"");
		if (a)
			fs = atof(a + 11);
		if (strstr(attrs, "font-size=\"14\""))
			fs = 14;
		/* content, entities as one character */
		char t[256];
		int k = 0;
		for (const char *c = gt + 1; c < end && k < 250; c++) {
			if (*c == '&')
				c = strchr(c, ';');
			t[k++] = *c == ';' ? 'x' : *c;
		}
		t[k] = 0;
		double tw = svg_text_width(t, fs), x0 = x;
		if (strstr(attrs, "text-anchor=\"middle\""))
			x0 = x - tw / 2;
		else if (strstr(attrs, "text-anchor=\"end\""))
			x0 = x - tw;
		out[n] = (struct box){x0, y - 0.75 * fs, x0 + tw, y + 0.2 * fs, {0}};
		snprintf(out[n].text, sizeof(out[n].text), "%.60s", t);
		n++;
	}
	return n;
}

/* "" when no two texts overlap and all stay inside the picture, else what is wrong */
static const char *overlap(const char *svg)
{
	static struct box b[2000];
	static char msg[256];
	double w, h;
	int n = text_boxes(svg, b, 2000, &w, &h);
	msg[0] = 0;
	for (int i = 0; i < n && !msg[0]; i++) {
		if (b[i].x0 < -0.5 || b[i].x1 > w + 0.5 || b[i].y0 < -0.5 || b[i].y1 > h + 0.5)
			snprintf(msg, sizeof(msg), "'%s' leaves the picture", b[i].text);
		for (int j = 0; j < i && !msg[0]; j++)
			if (b[i].x0 < b[j].x1 - 0.5 && b[j].x0 < b[i].x1 - 0.5 && b[i].y0 < b[j].y1 - 0.5 && b[j].y0 < b[i].y1 - 0.5)
				snprintf(msg, sizeof(msg), "'%s' overlaps '%s'", b[i].text, b[j].text);
	}
	return msg;
}

static void assert_no_overlap(const char *id, const char *svg)
{
	const char *m = overlap(svg);
	if (m[0])
		fail_msg("%s: %s", id, m);
}

static void test_overlap_check_finds_overlaps(void **state)
{
	(void)state;
	const char *ok = "<svg width=\"200\" height=\"100\"><text x=\"10\" y=\"20\">abc</text>"
	                 "<text x=\"10\" y=\"40\">abc</text></svg>";
	const char *close = "<svg width=\"200\" height=\"100\"><text x=\"10\" y=\"20\">abcdef</text>"
	                    "<text x=\"40\" y=\"25\" text-anchor=\"middle\">x</text></svg>";
	const char *out = "<svg width=\"200\" height=\"100\"><text x=\"190\" y=\"20\">abcdef</text></svg>";
	assert_string_equal(overlap(ok), "");
	assert_string_equal(overlap(close), "'x' overlaps 'abcdef'");
	assert_string_equal(overlap(out), "'abcdef' leaves the picture");
}

static void test_twelve_series_no_overlapping_text(void **state)
{
	(void)state;
	struct fixture f;
	fixture_twelve(&f);
	struct report_series *s;
	struct report_chart *c;
	int ns, nc;
	report_series_build(&f.in, &s, &ns);
	assert_int_equal(ns, 12);
	assert_int_equal(report_charts(&f.in, s, ns, &c, &nc, NULL), 0);
	for (int i = 0; i < nc; i++)
		assert_no_overlap(c[i].id, c[i].svg);
	/* every series is in the legend, in its own entry */
	const char *hist = c[0].svg;
	for (int i = 0; i < 12; i++)
		assert_non_null(strstr(hist, f.labels[i]) ? strstr(hist, f.labels[i]) : strstr(hist, "nice-minus-10-under"));
	report_charts_free(c, nc);
	report_series_free(s, ns);
	fixture_free(&f);

	fixture_golden(&f);
	report_series_build(&f.in, &s, &ns);
	assert_int_equal(report_charts(&f.in, s, ns, &c, &nc, NULL), 0);
	for (int i = 0; i < nc; i++)
		assert_no_overlap(c[i].id, c[i].svg);
	report_charts_free(c, nc);
	report_series_free(s, ns);
	fixture_free(&f);
}

static void test_more_series_than_a_chart_shows(void **state)
{
	(void)state;
	struct fixture f;
	fixture_twelve(&f);
	/* 12 results + one with two threads = 14 series */
	static const char *const two[] = {"a", "b"};
	f.rs[12] = make_result("probe", 2, two, 100, 1000, 0, 1, 99);
	f.labels[12] = "extra";
	f.cell_of[12] = -1;
	f.in.n = f.n = 13;
	struct report_series *s;
	struct report_chart *c;
	int ns, nc;
	report_series_build(&f.in, &s, &ns);
	assert_int_equal(ns, 14);
	assert_string_equal(s[12].label, "extra/a");
	assert_int_equal(report_charts(&f.in, s, ns, &c, &nc, NULL), 0);
	assert_string_equal(c[0].note, "showing 12 of 14 series; the tables list all");
	assert_null(strstr(c[0].svg, "extra/a"));
	report_charts_free(c, nc);
	report_series_free(s, ns);
	fixture_free(&f);
}

/* ---- series ------------------------------------------------------------------------------ */

static void test_series_labels_and_merging(void **state)
{
	(void)state;
	struct fixture f;
	fixture_golden(&f);
	struct report_series *s;
	int ns;
	report_series_build(&f.in, &s, &ns);
	assert_int_equal(ns, 4);
	assert_string_equal(s[0].label, "idle");
	assert_string_equal(s[1].label, "loaded/audio");
	assert_string_equal(s[3].label, "loaded/x");
	report_series_free(s, ns);

	/* one result: thread names alone */
	f.in.n = 1;
	f.in.sw = NULL;
	report_series_build(&f.in, &s, &ns);
	assert_int_equal(ns, 1);
	assert_string_equal(s[0].label, "audio");
	report_series_free(s, ns);

	/* both results as repetitions of cell c0: threads of the same name merge */
	f.in.n = 2;
	f.in.sw = &f.sw;
	f.cell_of[0] = f.cell_of[1] = 0;
	report_series_build(&f.in, &s, &ns);
	assert_int_equal(ns, 3);
	assert_string_equal(s[0].label, "c0/audio");
	assert_int_equal(s[0].merged, 2);
	assert_int_equal(s[0].wake->count, 25000);
	assert_string_equal(s[0].note, "cpu.cfs_period_us=10000, cpu.cfs_quota_us=-1; load cpu:threads=2");
	report_series_free(s, ns);

	/* equal labels are told apart */
	f.cell_of[0] = f.cell_of[1] = -1;
	f.labels[1] = "idle";
	report_series_build(&f.in, &s, &ns);
	assert_string_equal(s[0].label, "idle");
	assert_string_equal(s[1].label, "idle/audio");
	report_series_free(s, ns);
	fixture_free(&f);
}

static void test_metric_choice(void **state)
{
	(void)state;
	struct fixture f;
	fixture_golden(&f);
	const char *m;
	struct err e = {0};
	assert_int_equal(report_metric(&f.in, &m, &e), 0);
	assert_string_equal(m, "wake_p99");
	f.in.metric = "throughput";
	assert_int_equal(report_metric(&f.in, &m, &e), 0);
	assert_string_equal(m, "throughput");
	f.in.metric = "resp_p99";
	assert_int_equal(report_metric(&f.in, &m, &e), 0);
	f.in.metric = "resp_p50";
	assert_int_equal(report_metric(&f.in, &m, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_string_equal(e.msg, "--metric: 'resp_p50' is not a metric of tests/data/report/sweep.json (metrics: "
	                           "wake_p99, throughput, resp_p99)");
	err_clear(&e);
	f.in.sw = NULL;
	assert_int_equal(report_metric(&f.in, &m, &e), -1);
	assert_non_null(strstr(e.msg, "only applies to a sweep"));
	fixture_free(&f);
	assert_true(sweep_metric_is_ns("wake_p99") && sweep_metric_is_ns("resp_max") && sweep_metric_is_ns("x_ns"));
	assert_false(sweep_metric_is_ns("throughput") || sweep_metric_is_ns("wake_met_pct"));
}

/* ---- sweep summary reader ---------------------------------------------------------------- */

static int read_text(const char *json, struct sweep_summary *s, struct err *e)
{
	char path[] = "/tmp/irt-sweep-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	err_clear(e);
	int rc = sweep_summary_read(s, path, e);
	unlink(path);
	return rc;
}

static void test_sweep_reader(void **state)
{
	(void)state;
	struct sweep_summary s;
	struct err e = {0};
	/* minimal and tolerant: unknown keys, no load, ratio, verdict, pareto, knobs */
	assert_int_equal(read_text("{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"future\":1,\"cells\":[{\"id\":\"a\","
	                           "\"settings\":{\"k\":\"1\",\"n\":2},\"metrics\":{\"m\":{\"median\":2,\"lo\":1,\"hi\":3,"
	                           "\"extra\":0}}}]}",
	                           &s, &e),
	                 0);
	assert_int_equal(s.ncells, 1);
	assert_string_equal(s.cells[0].load, "");
	assert_false(s.cells[0].has_ratio);
	assert_int_equal(s.knobs.n, 2);
	assert_string_equal(s.knobs.v[1], "n");
	assert_string_equal(kvlist_get(&s.cells[0].settings, "n"), "2");
	assert_true(sweep_cell_metric(&s.cells[0], "m")->hi == 3);
	sweep_summary_free(&s);

	struct {
		const char *json, *want;
	} bad[] = {
		{"{\"schema\":", "not valid JSON"},
		{"[]", "$: expected an object"},
		{"{\"schema\":\"irt-result/1\"}", "$.schema: 'irt-result/1' is not irt-sweep/1"},
		{"{\"schema\":\"irt-sweep/1\",\"cells\":[]}", "$.metric: missing (required by irt-sweep/1)"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[]}", "$.cells: expected a non-empty array"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[{\"metrics\":{}}]}", "$.cells[0].id: missing"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[{\"id\":\"a\"}]}", "$.cells[0].metrics: missing"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[{\"id\":\"a\",\"metrics\":{}},{\"id\":\"a\","
		 "\"metrics\":{}}]}",
		 "$.cells[1].id: 'a' is used by two cells"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[{\"id\":\"a\",\"metrics\":{\"m\":{\"median\":1,"
		 "\"lo\":2,\"hi\":3}}}]}",
		 "$.cells[0].metrics.m: lo <= median <= hi does not hold"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[{\"id\":\"a\",\"metrics\":{\"m\":{\"median\":\"1\","
		 "\"lo\":0,\"hi\":3}}}]}",
		 "$.cells[0].metrics.m: \"median\" is not a finite number"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"baseline\":\"zz\",\"cells\":[{\"id\":\"a\",\"metrics\":{}}]}",
		 "$.baseline: 'zz' is not the id of a cell"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"pareto\":[\"a\",\"q\"],\"cells\":[{\"id\":\"a\","
		 "\"metrics\":{}}]}",
		 "$.pareto[1]: 'q' is not the id of a cell"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[{\"id\":\"a\",\"metrics\":{},\"repetitions\":[3]}]}",
		 "$.cells[0].repetitions[0]: expected a file name"},
		{"{\"schema\":\"irt-sweep/1\",\"metric\":\"m\",\"cells\":[{\"id\":\"a\",\"metrics\":{},\"settings\":{\"k\":[]}}]}",
		 "$.cells[0].settings.k: expected a string value"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(read_text(bad[i].json, &s, &e), -1);
		assert_int_equal(e.code, EXIT_USAGE);
		if (!strstr(e.msg, bad[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, e.msg, bad[i].want);
		assert_int_equal(s.ncells, 0);   /* left empty */
	}
	err_clear(&e);
	assert_int_equal(sweep_summary_read(&s, "/nonexistent/sweep.json", &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
}

/* ---- writes ------------------------------------------------------------------------------ */

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_atomic_writes(void **state)
{
	(void)state;
	char dir[] = "/tmp/irt-report-test-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256], sub[128];
	struct err e = {0};
	snprintf(path, sizeof(path), "%s/r.html", dir);
	assert_int_equal(write_atomic(path, "abc", 3, &e), 0);
	size_t len;
	char *got = slurp(path, &len);
	assert_string_equal(got, "abc");
	free(got);
	/* a directory is refused, not renamed over: a usage error, and no temporary file is left */
	snprintf(sub, sizeof(sub), "%s/d", dir);
	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(write_atomic(sub, "abc", 3, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "it is a directory"));
	assert_int_equal(count_entries(dir), 2);
	err_clear(&e);
	/* what is at an output name: replaced (0), written into (1, a device), or refused (-1); the
	 * device is the system's /dev/null, only looked at (tests/cli/test_security.sh writes into a
	 * private one) */
	const char *why = "";
	char fifo[160], link[160], dangling[160];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(dangling, sizeof(dangling), "%s/dangling", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(output_target(AT_FDCWD, path, &why), 0);   /* r.html, a regular file */
	assert_int_equal(output_target(AT_FDCWD, dangling, &why), 0);   /* nothing there yet */
	assert_int_equal(output_target(AT_FDCWD, "/dev/null", &why), 1);
	assert_int_equal(output_target(AT_FDCWD, sub, &why), -1);
	assert_string_equal(why, "a directory");
	assert_int_equal(output_target(AT_FDCWD, fifo, &why), -1);
	assert_string_equal(why, "a pipe");
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(output_target(AT_FDCWD, link, &why), 0);   /* to a file: replaced */
	assert_int_equal(symlink("/nonexistent-irt", dangling), 0);
	assert_int_equal(output_target(AT_FDCWD, dangling, &why), 0);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("/dev/null", link), 0);
	assert_int_equal(output_target(AT_FDCWD, link, &why), -1);
	assert_string_equal(why, "a symbolic link to a device or a pipe");
	assert_int_equal(write_atomic(fifo, "abc", 3, &e), -1);   /* refused, not renamed over */
	assert_int_equal(e.code, EXIT_USAGE);
	struct stat st;
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	err_clear(&e);
	unlink(link);
	unlink(dangling);
	unlink(fifo);
	assert_int_equal(count_entries(dir), 2);
	snprintf(path, sizeof(path), "%s/none/r.html", dir);
	assert_int_equal(write_atomic(path, "abc", 3, &e), -1);
	assert_non_null(strstr(e.msg, "none/r.html: cannot write"));

	/* the SVG directory: one standalone file per chart */
	struct fixture f;
	fixture_golden(&f);
	snprintf(sub, sizeof(sub), "%s/svg", dir);
	err_clear(&e);
	assert_int_equal(report_svg_dir(&f.in, sub, &e), 0);
	assert_int_equal(count_entries(sub), 8);
	snprintf(path, sizeof(path), "%s/wake-hist.svg", sub);
	got = slurp(path, &len);
	assert_true(strncmp(got, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 49) == 0);
	free(got);
	fixture_free(&f);
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_charts),
		cmocka_unit_test(test_sim_pivot),
		cmocka_unit_test(test_golden_cyclictest_sum),
		cmocka_unit_test(test_output_is_deterministic),
		cmocka_unit_test(test_overlap_check_finds_overlaps),
		cmocka_unit_test(test_twelve_series_no_overlapping_text),
		cmocka_unit_test(test_more_series_than_a_chart_shows),
		cmocka_unit_test(test_series_labels_and_merging),
		cmocka_unit_test(test_metric_choice),
		cmocka_unit_test(test_sweep_reader),
		cmocka_unit_test(test_atomic_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

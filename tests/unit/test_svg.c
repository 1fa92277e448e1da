/* SVG primitives: nice ticks, label thinning, value formats, escaping, number formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/svg.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double unif(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static bool is_125(double step)
{
	double m = step / pow(10, floor(log10(step) + 1e-9));
	return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6 || fabs(m - 10) < 1e-6;
}

static void test_linear_ticks_are_nice_and_cover(void **state)
{
	(void)state;
	struct svg_tick t[SVG_MAX_TICKS];
	for (int i = 0; i < 2000; i++) {
		double mag = pow(10, floor(unif() * 16) - 6);
		double lo = (unif() - 0.3) * mag, hi = lo + unif() * mag + 1e-9 * mag;
		double a = lo, b = hi;
		int target = 3 + (int)(unif() * 8);
		int n = svg_ticks_linear(&a, &b, target, SVG_UNIT_NONE, t, SVG_MAX_TICKS);
		assert_true(n >= 2);
		assert_true(n <= 3 * target + 2);
		assert_true(a <= lo + 1e-9 * mag && b >= hi - 1e-9 * mag);
		assert_true(fabs(t[0].v - a) <= 1e-9 * mag && fabs(t[n - 1].v - b) <= 1e-9 * mag);
		double step = t[1].v - t[0].v;
		assert_true(is_125(step));
		for (int k = 1; k < n; k++)
			assert_true(fabs(t[k].v - t[k - 1].v - step) < 1e-6 * step);
		for (int k = 0; k < n; k++)
			assert_true(t[k].label[0]);
	}
}

static void test_linear_ticks_share_one_unit(void **state)
{
	(void)state;
	struct svg_tick t[SVG_MAX_TICKS];
	double lo = 0, hi = 1.2e6;   /* 0 .. 1.2 ms */
	int n = svg_ticks_linear(&lo, &hi, 6, SVG_UNIT_NS, t, SVG_MAX_TICKS);
	assert_int_equal(n, 7);
	assert_string_equal(t[0].label, "0");
	assert_string_equal(t[1].label, "0.2ms");
	assert_string_equal(t[5].label, "1ms");
	assert_string_equal(t[6].label, "1.2ms");
}

static void test_log_ticks_label_decades(void **state)
{
	(void)state;
	struct svg_tick t[SVG_MAX_TICKS];
	double lo = 3500, hi = 2.2e7;   /* 3.5 µs .. 22 ms */
	int n = svg_ticks_log(&lo, &hi, SVG_UNIT_NS, t, SVG_MAX_TICKS);
	assert_true(lo == 1000 && hi == 1e8);
	const char *want[] = {"1µs", "10µs", "100µs", "1ms", "10ms", "100ms"};
	int d = 0;
	for (int k = 0; k < n; k++) {
		if (t[k].major)
			assert_string_equal(t[k].label, want[d++]);
		else
			assert_string_equal(t[k].label, "");   /* 5 decades: no 2 and 5 labels */
	}
	assert_int_equal(d, 6);

	lo = 20e3, hi = 80e3;   /* within one decade: 2 and 5 multiples labelled too */
	n = svg_ticks_log(&lo, &hi, SVG_UNIT_NS, t, SVG_MAX_TICKS);
	int labelled = 0;
	for (int k = 0; k < n; k++)
		labelled += t[k].label[0] != 0;
	assert_int_equal(labelled, 4);   /* 10µs 20µs 50µs 100µs */
	assert_string_equal(t[1].label, "20µs");
	assert_string_equal(t[4].label, "50µs");
}

static void test_log_ticks_random_ranges(void **state)
{
	(void)state;
	struct svg_tick t[SVG_MAX_TICKS];
	for (int i = 0; i < 2000; i++) {
		double lo0 = pow(10, unif() * 12 - 3), hi0 = lo0 * pow(10, unif() * 10);
		double lo = lo0, hi = hi0;
		int n = svg_ticks_log(&lo, &hi, SVG_UNIT_PERCENT, t, SVG_MAX_TICKS);
		assert_true(n >= 2 && n <= SVG_MAX_TICKS);
		assert_true(lo <= lo0 * (1 + 1e-9) && hi >= hi0 * (1 - 1e-9));
		assert_true(t[0].v == lo && t[n - 1].v == hi);
		for (int k = 1; k < n; k++)
			assert_true(t[k].v > t[k - 1].v);
		for (int k = 0; k < n; k++)
			if (t[k].major)
				assert_true(t[k].label[0] && fabs(log10(t[k].v) - round(log10(t[k].v))) < 1e-9);
	}
}

static void test_thinning_leaves_no_overlap(void **state)
{
	(void)state;
	for (int i = 0; i < 3000; i++) {
		struct svg_tick t[SVG_MAX_TICKS];
		double pos[SVG_MAX_TICKS], ext[SVG_MAX_TICKS];
		int n = 2 + (int)(unif() * 40);
		double gap = unif() * 30, x = 0;
		for (int k = 0; k < n; k++) {
			x += 1 + unif() * 40;
			pos[k] = x;
			ext[k] = 5 + unif() * 60;
			t[k].major = unif() < 0.5 || k == 0;
			snprintf(t[k].label, sizeof(t[k].label), "L%d", k);
		}
		int kept = svg_thin_labels(t, pos, ext, n, 6);
		(void)gap;
		assert_true(kept >= 1);
		int prev = -1;
		for (int k = 0; k < n; k++) {
			if (!t[k].label[0])
				continue;
			if (prev >= 0)
				assert_true(pos[k] - pos[prev] >= (ext[k] + ext[prev]) / 2 + 6 - 1e-9);
			prev = k;
		}
	}
}

static void test_thinning_keeps_what_fits(void **state)
{
	(void)state;
	struct svg_tick t[4] = {{1, "a", true}, {2, "b", false}, {3, "c", true}, {4, "d", true}};
	double pos[4] = {0, 100, 200, 300}, ext[4] = {10, 10, 10, 10};
	assert_int_equal(svg_thin_labels(t, pos, ext, 4, 4), 4);
	/* crowded: the minor label goes first */
	double pos2[4] = {0, 12, 30, 50};
	assert_int_equal(svg_thin_labels(t, pos2, ext, 4, 4), 3);
	assert_string_equal(t[1].label, "");
}

static void test_value_formats(void **state)
{
	(void)state;
	char b[32];
	struct {
		double v;
		enum svg_unit u;
		const char *want;
	} cases[] = {
		{0, SVG_UNIT_NS, "0"},          {1, SVG_UNIT_NS, "1ns"},          {999, SVG_UNIT_NS, "999ns"},
		{1000, SVG_UNIT_NS, "1µs"},     {2500, SVG_UNIT_NS, "2.5µs"},     {1e5, SVG_UNIT_NS, "100µs"},
		{2e6, SVG_UNIT_NS, "2ms"},      {1e9, SVG_UNIT_NS, "1s"},         {120e9, SVG_UNIT_NS, "120s"},
		{0.001, SVG_UNIT_PERCENT, "0.001%"}, {50, SVG_UNIT_PERCENT, "50%"}, {12000, SVG_UNIT_NONE, "12k"},
		{1500000, SVG_UNIT_NONE, "1.5M"}, {9999, SVG_UNIT_NONE, "9999"}, {-0.0000001, SVG_UNIT_NONE, "0"},
		{0.3000000000004, SVG_UNIT_NONE, "0.3"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		svg_format_value(b, sizeof(b), cases[i].v, cases[i].u);
		assert_string_equal(b, cases[i].want);
	}
}

static void test_sbuf_escape_and_numbers(void **state)
{
	(void)state;
	struct sbuf b = {0};
	sb_esc(&b, "a<b & \"c\" 'd'>\x01");
	assert_string_equal(b.s, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;?");
	sb_free(&b);
	double v[] = {0, -0.04, 0.05, 1.25, -1.25, 12, 123456.78, NAN};
	const char *want = "0 0 0.1 1.3 -1.3 12 123456.8 0 ";
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sb_num(&b, v[i]);
		sb_puts(&b, " ");
	}
	assert_string_equal(b.s, want);
	sb_free(&b);
	for (int i = 0; i < 5000; i++)   /* growth */
		sb_printf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 10000);
	sb_free(&b);
}

static void test_styles_differ_without_colour(void **state)
{
	(void)state;
	for (int i = 0; i < 12; i++)
		for (int j = 0; j < i; j++) {
			struct svg_series a = {0}, c = {0};
			svg_style(&a, i);
			svg_style(&c, j);
			assert_true(a.dash != c.dash || a.marker != c.marker);
		}
}

static void test_plot_is_deterministic_and_escaped(void **state)
{
	(void)state;
	struct svg_point p[3] = {{.x = 1, .y = 5}, {.x = 2, .y = 7}, {.x = 3, .y = 6}};
	struct svg_series s = {.name = "<x&y>", .draw = SVG_LINE | SVG_MARKERS, .p = p, .n = 3};
	struct svg_plot pl = {.id = "t", .title = "T \"1\"", .x = {.label = "x", .scale = SVG_LINEAR},
	                      .y = {.label = "y", .scale = SVG_LINEAR}, .s = &s, .ns = 1};
	struct sbuf a = {0}, b = {0};
	svg_plot(&a, &pl);
	svg_plot(&b, &pl);
	assert_string_equal(a.s, b.s);
	assert_non_null(strstr(a.s, "&lt;x&amp;y&gt;"));
	assert_null(strstr(a.s, "<x&y>"));
	assert_non_null(strstr(a.s, "T &quot;1&quot;"));
	assert_true(strncmp(a.s, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
	assert_true(strcmp(a.s + a.len - 7, "</svg>\n") == 0);
	sb_free(&a);
	sb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear_ticks_are_nice_and_cover),
		cmocka_unit_test(test_linear_ticks_share_one_unit),
		cmocka_unit_test(test_log_ticks_label_decades),
		cmocka_unit_test(test_log_ticks_random_ranges),
		cmocka_unit_test(test_thinning_leaves_no_overlap),
		cmocka_unit_test(test_thinning_keeps_what_fits),
		cmocka_unit_test(test_value_formats),
		cmocka_unit_test(test_sbuf_escape_and_numbers),
		cmocka_unit_test(test_styles_differ_without_colour),
		cmocka_unit_test(test_plot_is_deterministic_and_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

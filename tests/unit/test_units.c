/* units.c: every unit, exact decimals, overflow, garbage, whitespace, and format/parse round
 * trips on random values. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "units.h"

#define SEC NSEC_PER_SEC

static int64_t dur(const char *s)
{
	int64_t v = -777;
	if (units_parse_duration(s, &v))
		fail_msg("duration '%s' rejected", s);
	return v;
}

static int64_t size(const char *s)
{
	int64_t v = -777;
	if (units_parse_size(s, &v))
		fail_msg("size '%s' rejected", s);
	return v;
}

static int64_t pct(const char *s)
{
	int64_t v = -777;
	if (units_parse_percent(s, &v))
		fail_msg("percentage '%s' rejected", s);
	return v;
}

static int64_t integer(const char *s)
{
	int64_t v = -777;
	if (units_parse_int(s, &v))
		fail_msg("integer '%s' rejected", s);
	return v;
}

/* a rejected value leaves the output alone */
#define REJECT(fn, s)                                                                            \
	do {                                                                                     \
		int64_t v_ = -777;                                                               \
		if (fn(s, &v_) != -1)                                                            \
			fail_msg(#fn "('%s') accepted: %lld", (const char *)(s), (long long)v_);  \
		assert_int_equal(v_, -777);                                                      \
	} while (0)

static void test_duration_units(void **state)
{
	assert_int_equal(dur("5ns"), 5);
	assert_int_equal(dur("5us"), 5000);
	assert_int_equal(dur("5ms"), 5000000);
	assert_int_equal(dur("5s"), 5 * SEC);
	assert_int_equal(dur("5min"), 300 * SEC);
	assert_int_equal(dur("5h"), 18000 * SEC);
	assert_int_equal(dur("0ns"), 0);
	assert_int_equal(dur("0s"), 0);
	assert_int_equal(dur("007ms"), 7000000);
	assert_int_equal(dur("+5ms"), 5000000);
	/* zero needs no unit (the option table's "0" defaults rely on it) */
	assert_int_equal(dur("0"), 0);
	assert_int_equal(dur("0.0"), 0);
	assert_int_equal(dur("000"), 0);
	assert_int_equal(dur(" 0 "), 0);
}

static void test_duration_decimals(void **state)
{
	assert_int_equal(dur("0.2s"), 200000000);   /* exactly, not 199999999 */
	assert_int_equal(dur("0.1s"), 100000000);
	assert_int_equal(dur("0.3s"), 300000000);
	assert_int_equal(dur("0.7ms"), 700000);
	assert_int_equal(dur("1.5min"), 90 * SEC);
	assert_int_equal(dur("0.5h"), 1800 * SEC);
	assert_int_equal(dur("2.5us"), 2500);
	assert_int_equal(dur("0.000000001s"), 1);
	assert_int_equal(dur("1.000000001s"), SEC + 1);
	assert_int_equal(dur(".5s"), SEC / 2);
	assert_int_equal(dur("5.s"), 5 * SEC);
	assert_int_equal(dur("0.001ms"), 1000);
	assert_int_equal(dur("0.000001ms"), 1);
	/* below 1 ns: rounded to the nearest ns, halves up */
	assert_int_equal(dur("1.4ns"), 1);
	assert_int_equal(dur("1.5ns"), 2);
	assert_int_equal(dur("0.0000000005s"), 1);
	assert_int_equal(dur("0.0000000004s"), 0);
	/* more fraction digits than an int64 holds are cut after 18, not an error */
	assert_int_equal(dur("1.0000000000000000000000001s"), SEC);
	assert_int_equal(dur("0.333333333333333333333s"), 333333333);
	/* every 1-3 decimal value of ms and s exactly */
	for (int i = 0; i < 1000; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%d.%03ds", i / 100, i % 1000);
		assert_int_equal(dur(buf), (int64_t)(i / 100) * SEC + (int64_t)(i % 1000) * 1000000);
		snprintf(buf, sizeof(buf), "0.%dms", i);
		int digits = i < 10 ? 1 : i < 100 ? 2 : 3;
		int64_t scale = digits == 1 ? 100000 : digits == 2 ? 10000 : 1000;
		assert_int_equal(dur(buf), i * scale);
	}
}

static void test_duration_limits(void **state)
{
	assert_int_equal(dur("9223372036854775807ns"), INT64_MAX);
	REJECT(units_parse_duration, "9223372036854775808ns");
	assert_int_equal(dur("2562047h"), INT64_C(2562047) * 3600 * SEC);
	REJECT(units_parse_duration, "2562048h");
	REJECT(units_parse_duration, "9223372036.854775808s");
	assert_int_equal(dur("9223372036.854775807s"), INT64_MAX);
	REJECT(units_parse_duration, "99999999999999999999999999s");
	REJECT(units_parse_duration, "18446744073709551616ns");
	REJECT(units_parse_duration, "153722867280912931min");
}

static void test_duration_garbage(void **state)
{
	static const char *const bad[] = {
		"", " ", "5", "5.5", "0.1", "-0", "1", "ms", "s", ".", ".s", "-", "-5ms", "-0ns", "--5ms", "5 ms", "5ms5",
		"5msx", "5MS", "5S", "5m", "5M", "5sec", "5mins", "5 s", "5..5s", "5.5.5s", "5e3ms",
		"0x10ms", "five ms", "5,5ms", "5µs", "∞s", "nan s", "inf", "5ns\x01", "+-5ms",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		REJECT(units_parse_duration, bad[i]);
	REJECT(units_parse_duration, NULL);
}

static void test_whitespace(void **state)
{
	/* surrounding whitespace is ignored for every type; inside a value it is not */
	assert_int_equal(dur(" 5ms"), 5000000);
	assert_int_equal(dur("5ms "), 5000000);
	assert_int_equal(dur("\t5ms\n"), 5000000);
	assert_int_equal(size(" 8M "), 8 << 20);
	assert_int_equal(pct(" 50% "), 500000);
	assert_int_equal(pct("0.5\n"), 500000);
	assert_int_equal(integer(" 12 "), 12);
	assert_int_equal(integer("\t-3\n"), -3);
	REJECT(units_parse_size, "8 M");
	REJECT(units_parse_percent, "50 %");
	REJECT(units_parse_int, "1 2");
	REJECT(units_parse_int, "- 1");
	REJECT(units_parse_int, "  ");
}

static void test_size_units(void **state)
{
	assert_int_equal(size("4096"), 4096);
	assert_int_equal(size("4096B"), 4096);
	assert_int_equal(size("0"), 0);
	assert_int_equal(size("64K"), 65536);
	assert_int_equal(size("64k"), 65536);
	assert_int_equal(size("8M"), 8 << 20);
	assert_int_equal(size("1G"), 1 << 30);
	assert_int_equal(size("1T"), INT64_C(1) << 40);
	assert_int_equal(size("4KiB"), 4096);
	assert_int_equal(size("2MiB"), 2 << 20);
	assert_int_equal(size("1GiB"), 1 << 30);
	assert_int_equal(size("1TiB"), INT64_C(1) << 40);
	assert_int_equal(size("1KB"), 1024);   /* binary, as documented */
	assert_int_equal(size("1MB"), 1 << 20);
	assert_int_equal(size("1GB"), 1 << 30);
	assert_int_equal(size("1.5K"), 1536);
	assert_int_equal(size("0.5M"), 512 << 10);
	assert_int_equal(size("0.25G"), 256 << 20);
	assert_int_equal(size("9223372036854775807"), INT64_MAX);
	assert_int_equal(size("8388607T"), INT64_C(8388607) << 40);
	REJECT(units_parse_size, "8388608T");
	REJECT(units_parse_size, "9223372036854775808");
	REJECT(units_parse_size, "8589934592G");
	static const char *const bad[] = {"", "M", "8X", "8 M", "-8M", "8MM", "8Mi", "8mib", "8b", "0x10",
	                                  "8e3", "1,5K", ".", "K8"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		REJECT(units_parse_size, bad[i]);
	REJECT(units_parse_size, NULL);
}

static void test_percent(void **state)
{
	assert_int_equal(pct("50%"), 500000);
	assert_int_equal(pct("12.5%"), 125000);
	assert_int_equal(pct("100%"), 1000000);
	assert_int_equal(pct("0%"), 0);
	assert_int_equal(pct("0.0001%"), 1);
	assert_int_equal(pct("0.5"), 500000);   /* a fraction */
	assert_int_equal(pct("1"), 1000000);
	assert_int_equal(pct("0.125"), 125000);
	assert_int_equal(pct("250%"), 2500000);
	static const char *const bad[] = {"", "%", "-5%", "50%%", "50 %", "50 percent", "50pct", "x%", "5e1%"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		REJECT(units_parse_percent, bad[i]);
	REJECT(units_parse_percent, NULL);
	REJECT(units_parse_percent, "922337203685477.5808%");
	assert_int_equal(pct("922337203685477.5807%"), INT64_MAX);
}

static void test_int(void **state)
{
	assert_int_equal(integer("12"), 12);
	assert_int_equal(integer("-5"), -5);
	assert_int_equal(integer("+5"), 5);
	assert_int_equal(integer("0"), 0);
	assert_int_equal(integer("007"), 7);
	assert_int_equal(integer("9223372036854775807"), INT64_MAX);
	assert_int_equal(integer("-9223372036854775808"), INT64_MIN);
	static const char *const bad[] = {"", "9223372036854775808", "-9223372036854775809", "0x10", "1e3",
	                                  "12abc", "1.0", "one", "-", "+", "1_000"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		REJECT(units_parse_int, bad[i]);
	REJECT(units_parse_int, NULL);
}

static void test_format_fixed(void **state)
{
	char b[64];
	assert_string_equal(units_format_duration(b, sizeof(b), 200000000), "200ms");
	assert_string_equal(units_format_duration(b, sizeof(b), 1500), "1500ns");
	assert_string_equal(units_format_duration(b, sizeof(b), 0), "0ns");
	assert_string_equal(units_format_duration(b, sizeof(b), 1), "1ns");
	assert_string_equal(units_format_duration(b, sizeof(b), 1000), "1us");
	assert_string_equal(units_format_duration(b, sizeof(b), 60 * SEC), "1min");
	assert_string_equal(units_format_duration(b, sizeof(b), 90 * SEC), "90s");
	assert_string_equal(units_format_duration(b, sizeof(b), 3600 * SEC), "1h");
	assert_string_equal(units_format_duration(b, sizeof(b), 5400 * SEC), "90min");
	assert_string_equal(units_format_duration(b, sizeof(b), INT64_MAX), "9223372036854775807ns");
	assert_string_equal(units_format_size(b, sizeof(b), 8 << 20), "8MiB");
	assert_string_equal(units_format_size(b, sizeof(b), 1000), "1000B");
	assert_string_equal(units_format_size(b, sizeof(b), 0), "0B");
	assert_string_equal(units_format_size(b, sizeof(b), 1536), "1536B");
	assert_string_equal(units_format_size(b, sizeof(b), 3 << 10), "3KiB");
	assert_string_equal(units_format_size(b, sizeof(b), INT64_C(5) << 40), "5TiB");
	assert_string_equal(units_format_percent(b, sizeof(b), 500000), "50%");
	assert_string_equal(units_format_percent(b, sizeof(b), 125000), "12.5%");
	assert_string_equal(units_format_percent(b, sizeof(b), 1), "0.0001%");
	assert_string_equal(units_format_percent(b, sizeof(b), 0), "0%");
	assert_string_equal(units_format_percent(b, sizeof(b), 1000000), "100%");
	assert_string_equal(units_format_percent(b, sizeof(b), 123456), "12.3456%");
	assert_string_equal(units_format_percent(b, sizeof(b), 100), "0.01%");
}

static void test_format_roundtrip(void **state)
{
	uint64_t seed = 99;
	static const int64_t mults[] = {1, 1000, 1000000, SEC, 60 * SEC, 3600 * SEC, 1024, 1 << 20, 1 << 30};
	char b[64];
	for (int i = 0; i < 200000; i++) {
		int64_t x;
		switch (i % 3) {
		case 0: x = (int64_t)(rnd_next(&seed) >> (1 + rnd_next(&seed) % 63)); break;   /* any magnitude */
		case 1: x = rnd_range(&seed, 0, 100000) * mults[rnd_next(&seed) % 9]; break;    /* round values */
		default: x = INT64_MAX - rnd_range(&seed, 0, 1000); break;
		}
		int64_t y = -1;
		assert_int_equal(units_parse_duration(units_format_duration(b, sizeof(b), x), &y), 0);
		if (y != x)
			fail_msg("duration %lld -> '%s' -> %lld", (long long)x, b, (long long)y);
		assert_int_equal(units_parse_size(units_format_size(b, sizeof(b), x), &y), 0);
		if (y != x)
			fail_msg("size %lld -> '%s' -> %lld", (long long)x, b, (long long)y);
		assert_int_equal(units_parse_percent(units_format_percent(b, sizeof(b), x), &y), 0);
		if (y != x)
			fail_msg("percent %lld -> '%s' -> %lld", (long long)x, b, (long long)y);
	}
}

static void test_human(void **state)
{
	char b[64];
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = {
		{0, "0ns"}, {12, "12ns"}, {999, "999ns"}, {1000, "1.00us"}, {1234, "1.23us"},
		{87400, "87.4us"}, {123456789, "123ms"}, {1234567, "1.23ms"}, {3600 * SEC, "1.00h"},
		{90 * SEC, "1.50min"}, {-5000, "-5.00us"},
		/* three significant digits even when rounding carries into the next decade or unit */
		{9999, "10.0us"}, {99960, "100us"}, {999999, "1.00ms"}, {999500, "1.00ms"},
		{999499, "999us"}, {59999999999, "1.00min"}, {-999999, "-1.00ms"}, {5000 * 3600 * SEC, "5000h"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_human_duration(b, sizeof(b), cases[i].ns);
		if (strcmp(b, cases[i].text) != 0)
			fail_msg("%lld ns: '%s', want '%s'", (long long)cases[i].ns, b, cases[i].text);
	}
}

/* measured sizes in messages: "23.0GiB", not "24168492KiB"; "2.00GiB", not "2049.8MiB" */
static void test_human_size(void **state)
{
	(void)state;
	char b[64];
	static const struct {
		int64_t bytes;
		const char *text;
	} cases[] = {
		{0, "0B"}, {512, "512B"}, {999, "999B"}, {1024, "1.00KiB"}, {24168492LL * 1024, "23.0GiB"},
		{(int64_t)(2049.8 * (1 << 20)), "2.00GiB"}, {1258291, "1.20MiB"}, {100LL << 20, "100MiB"},
		{(1LL << 20) - 1, "1.00MiB"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		units_human_size(b, sizeof(b), cases[i].bytes);
		if (strcmp(b, cases[i].text) != 0)
			fail_msg("%lld bytes: '%s', want '%s'", (long long)cases[i].bytes, b, cases[i].text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_decimals),
		cmocka_unit_test(test_duration_limits),
		cmocka_unit_test(test_duration_garbage),
		cmocka_unit_test(test_whitespace),
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_format_fixed),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_human),
		cmocka_unit_test(test_human_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

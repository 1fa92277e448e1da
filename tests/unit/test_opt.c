/* opt.c: the option table's integrity, opt_set per type with its error messages, and
 * opt_parse's command-line forms. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "opt.h"
#include "units.h"

/* ---- the table ------------------------------------------------------------------------------ */

static size_t field_size(const struct opt *o)
{
	switch (o->type) {
	case OPT_DURATION:
	case OPT_SIZE:
	case OPT_INT:
	case OPT_PERCENT:
	case OPT_DECIMAL: return sizeof(int64_t);
	case OPT_ENUM: return sizeof(int);
	case OPT_FLAG: return sizeof(bool);
	case OPT_STRING:
	case OPT_REST:
	case OPT_CPUS: return o->size ? o->size : OPT_STRLEN;
	case OPT_LIST: return sizeof(struct strlist);
	}
	return 0;
}

static void test_table_integrity(void **state)
{
	assert_true(opt_count > 0);
	for (int i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		assert_non_null(o->name);
		assert_true(o->help && o->help[0]);
		assert_null(strchr(o->help, '\n'));
		assert_true((o->scope & (o->scope - 1)) == 0 && o->scope != 0);   /* exactly one scope */
		assert_true(o->type == OPT_FLAG ? o->arg == NULL : o->arg != NULL);
		if (o->type == OPT_ENUM)
			assert_true(o->choices && o->choices[0]);
		assert_ptr_equal(opt_find(o->name), o);
		if (o->short_name)
			assert_ptr_equal(opt_find_short(o->short_name), o);
		for (const char *c = o->name; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-');
		for (int j = 0; j < i; j++) {
			assert_string_not_equal(opt_table[j].name, o->name);
			assert_true(!o->short_name || opt_table[j].short_name != o->short_name);
		}
		/* the field lies inside its scope's struct */
		size_t end = o->offset + field_size(o);
		if (o->scope == SCOPE_GLOBAL)
			assert_true(end <= sizeof(struct global_cfg));
		if (o->scope == SCOPE_PROBE)
			assert_true(end <= sizeof(struct probe_cfg));
	}
	assert_null(opt_find("no-such-option"));
	assert_null(opt_find_short(0));
	assert_null(opt_find_short('Z'));
}

/* Every default parses, lies in its range, and formats to a value that parses back the same. */
static void test_defaults(void **state)
{
	static _Alignas(16) char a[1 << 16], b[1 << 16];
	for (int i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		if (!o->def)
			continue;
		struct err e = {0};
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		assert_true(o->offset + field_size(o) <= sizeof(a));
		if (opt_set(o, a, o->def, o->name, &e))
			fail_msg("default of --%s: %s", o->name, e.msg);
		char f1[512], f2[512];
		opt_format(o, a, f1, sizeof(f1));
		if (opt_set(o, b, f1, o->name, &e))
			fail_msg("--%s: formatted default '%s' does not parse: %s", o->name, f1, e.msg);
		opt_format(o, b, f2, sizeof(f2));
		assert_string_equal(f1, f2);
		if (o->type != OPT_LIST)
			assert_memory_equal(a + o->offset, b + o->offset, field_size(o));
		else {
			strlist_free((struct strlist *)(a + o->offset));
			strlist_free((struct strlist *)(b + o->offset));
		}
	}
	struct probe_cfg p = {0};
	struct global_cfg g = {0};
	opt_defaults(SCOPE_PROBE, &p);
	opt_defaults(SCOPE_GLOBAL, &g);
	assert_int_equal(p.period, 10 * NSEC_PER_MSEC);
	assert_int_equal(p.slack, 1);
	assert_int_equal(p.threads, 1);
	assert_int_equal(p.policy, POL_OTHER);
	assert_int_equal(p.touch_pattern, TOUCH_SEQ);
	assert_int_equal(g.format, FORMAT_TABLE);
	assert_int_equal(g.seed, 1);
	assert_string_equal(g.json, "");
}

/* ---- opt_set per type ----------------------------------------------------------------------- */

struct tcfg {
	int64_t d, s, i, p;
	int e;
	bool f;
	char str[OPT_STRLEN];
	char cpus[OPT_STRLEN];
	struct strlist l;
};
static const char *const colors[] = {"red", "green", "blue", NULL};
#define T(field) .scope = SCOPE_GLOBAL, .offset = offsetof(struct tcfg, field)
static const struct opt rows[] = {
	{.name = "dur", .short_name = 'd', .type = OPT_DURATION, T(d), .def = "10ms",
	 .min = 1000, .max = 3600 * NSEC_PER_SEC, .arg = "DURATION",
	 .help = "a duration"},
	{.name = "size", .type = OPT_SIZE, T(s), .def = "4K",
	 .min = 0, .max = INT64_C(1) << 30, .arg = "SIZE",
	 .help = "a size"},
	{.name = "int", .type = OPT_INT, T(i), .def = "3", .min = -5, .max = 5, .arg = "N", .help = "an int"},
	{.name = "pct", .type = OPT_PERCENT, T(p), .def = "50%", .min = 0, .max = 1000000, .arg = "PCT",
	 .help = "a percentage"},
	{.name = "color", .type = OPT_ENUM, T(e), .def = "red", .choices = colors, .arg = "COLOR",
	 .help = "an enum"},
	{.name = "flag", .type = OPT_FLAG, T(f), .help = "a flag"},
	{.name = "str", .type = OPT_STRING, T(str), .arg = "TEXT", .help = "a string"},
	{.name = "cpus", .type = OPT_CPUS, T(cpus), .arg = "LIST", .help = "cpus"},
	{.name = "list", .type = OPT_LIST, T(l), .arg = "ITEM", .help = "a list"},
	{.name = "free", .type = OPT_INT, T(i), .arg = "N", .help = "an unchecked int"},
};
enum { R_DUR, R_SIZE, R_INT, R_PCT, R_ENUM, R_FLAG, R_STR, R_CPUS, R_LIST, R_FREE };

static struct tcfg cfg;

static void set_ok(int row, const char *value)
{
	struct err e = {0};
	if (opt_set(&rows[row], &cfg, value, "--x", &e))
		fail_msg("--%s '%s' rejected: %s", rows[row].name, value ? value : "(null)", e.msg);
}

/* The error is one line naming the option (where), the value, and the accepted form. */
static void set_bad(int row, const char *value, const char *form)
{
	struct err e = {0};
	char where[64];
	snprintf(where, sizeof(where), "--%s", rows[row].name);
	struct tcfg before = cfg;
	if (opt_set(&rows[row], &cfg, value, where, &e) == 0)
		fail_msg("--%s '%s' accepted", rows[row].name, value ? value : "(null)");
	assert_int_equal(e.code, EXIT_USAGE);
	assert_null(strchr(e.msg, '\n'));
	assert_true(strncmp(e.msg, where, strlen(where)) == 0 && e.msg[strlen(where)] == ':');
	char quoted[300];
	snprintf(quoted, sizeof(quoted), "'%s'", value ? value : "");
	if (value && strlen(value) < 100 && !strstr(e.msg, quoted))
		fail_msg("message '%s' does not name the value %s", e.msg, quoted);
	if (!strstr(e.msg, form))
		fail_msg("message '%s' lacks the accepted form '%s'", e.msg, form);
	assert_memory_equal(&before, &cfg, offsetof(struct tcfg, l));   /* unchanged */
}

static void test_set_duration(void **state)
{
	memset(&cfg, 0, sizeof(cfg));
	set_ok(R_DUR, "0.2s");
	assert_int_equal(cfg.d, 200000000);
	set_ok(R_DUR, "1us");   /* the minimum */
	assert_int_equal(cfg.d, 1000);
	set_ok(R_DUR, "1h");    /* the maximum */
	const char *form = "expected a duration: number with ns, us, ms, s, min or h, e.g. 200ms or 0.2s, from 1us to 1h";
	set_bad(R_DUR, "abc", form);
	set_bad(R_DUR, "5", form);
	set_bad(R_DUR, "", form);
	set_bad(R_DUR, "-5ms", form);
	set_bad(R_DUR, "999ns", "is out of range");
	set_bad(R_DUR, "999ns", form);
	set_bad(R_DUR, "3601s", form);
	set_bad(R_DUR, "99999999999999999999s", form);
	set_bad(R_DUR, NULL, "missing value");
}

static void test_set_numbers(void **state)
{
	memset(&cfg, 0, sizeof(cfg));
	set_ok(R_SIZE, "8M");
	assert_int_equal(cfg.s, 8 << 20);
	set_bad(R_SIZE, "8X", "expected a size: bytes or a number with K, M, G (KiB, MiB, GiB), e.g. 8M, from 0B to 1GiB");
	set_bad(R_SIZE, "2G", "out of range");
	set_ok(R_INT, "-5");
	assert_int_equal(cfg.i, -5);
	set_ok(R_INT, " 5 ");
	assert_int_equal(cfg.i, 5);
	set_bad(R_INT, "6", "expected a whole number, from -5 to 5");
	set_bad(R_INT, "-6", "out of range");
	set_bad(R_INT, "1.5", "is not valid (expected a whole number");
	set_bad(R_INT, "0x1", "a whole number");
	set_ok(R_FREE, "-9223372036854775808");   /* unchecked range */
	assert_int_equal(cfg.i, INT64_MIN);
	set_bad(R_FREE, "9223372036854775808", "expected a whole number)");
	set_ok(R_PCT, "12.5%");
	assert_int_equal(cfg.p, 125000);
	set_ok(R_PCT, "0.25");
	assert_int_equal(cfg.p, 250000);
	set_bad(R_PCT, "101%", "expected a percentage like 50% or 12.5%, from 0% to 100%");
	set_bad(R_PCT, "50", "out of range");   /* a fraction: 5000 % */
	set_bad(R_PCT, "half", "a percentage");
}

static void test_set_others(void **state)
{
	memset(&cfg, 0, sizeof(cfg));
	set_ok(R_ENUM, "blue");
	assert_int_equal(cfg.e, 2);
	set_bad(R_ENUM, "Blue", "unknown value 'Blue' (expected one of red, green, blue)");
	set_bad(R_ENUM, "", "one of red, green, blue");
	set_ok(R_FLAG, NULL);   /* the CLI form: no value */
	assert_true(cfg.f);
	static const char *const no[] = {"0", "false", "no", "off", "NO"}, *const yes[] = {"1", "true", "yes", "on", "True"};
	for (int i = 0; i < 5; i++) {
		set_ok(R_FLAG, no[i]);
		assert_false(cfg.f);
		set_ok(R_FLAG, yes[i]);
		assert_true(cfg.f);
	}
	set_bad(R_FLAG, "maybe", "expected 1, 0, true, false, yes or no");
	set_ok(R_STR, "hello world");
	assert_string_equal(cfg.str, "hello world");
	set_ok(R_STR, "");
	assert_string_equal(cfg.str, "");
	char longv[OPT_STRLEN + 1];
	memset(longv, 'x', OPT_STRLEN);
	longv[OPT_STRLEN] = 0;
	set_bad(R_STR, longv, "longer than 255 characters");
	longv[OPT_STRLEN - 1] = 0;
	set_ok(R_STR, longv);
	static const char *const good_cpus[] = {"0", "0-3", "0,2-3", "1,3,5-7", "1023"};
	for (int i = 0; i < 5; i++) {
		set_ok(R_CPUS, good_cpus[i]);
		assert_string_equal(cfg.cpus, good_cpus[i]);
	}
	static const char *const bad_cpus[] = {"", "a", "3-1", "0,", ",0", "0-", "-1", "1-0", "0--1", "0 1", "0;1"};
	for (int i = 0; i < 11; i++)
		set_bad(R_CPUS, bad_cpus[i], "expected a CPU list like 0, 0-3 or 0,2-3");
	set_bad(R_CPUS, "1024", "names a CPU above 1023, the most a CPU list holds");   /* CPU_SETSIZE */
	set_bad(R_CPUS, "0-4096", "names a CPU above 1023, the most a CPU list holds");
	set_ok(R_LIST, "a=1");
	set_ok(R_LIST, "b=2");
	char buf[64];
	assert_string_equal(opt_format(&rows[R_LIST], &cfg, buf, sizeof(buf)), "a=1;b=2");
	strlist_free(&cfg.l);
}

static void test_format_roundtrip(void **state)
{
	uint64_t seed = 5;
	char buf[128];
	for (int k = 0; k < 20000; k++) {
		int row = (int)(rnd_next(&seed) % 4);   /* dur, size, int, pct */
		const struct opt *o = &rows[row];
		int64_t v = rnd_range(&seed, o->min, o->max);
		memset(&cfg, 0, sizeof(cfg));
		*(int64_t *)((char *)&cfg + o->offset) = v;
		opt_format(o, &cfg, buf, sizeof(buf));
		*(int64_t *)((char *)&cfg + o->offset) = ~v;
		set_ok(row, buf);
		assert_int_equal(*(int64_t *)((char *)&cfg + o->offset), v);
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.e = 1;
	assert_string_equal(opt_format(&rows[R_ENUM], &cfg, buf, sizeof(buf)), "green");
	assert_string_equal(opt_format(&rows[R_FLAG], &cfg, buf, sizeof(buf)), "0");
	assert_string_equal(opt_format(&rows[R_STR], &cfg, buf, sizeof(buf)), "");
}

/* ---- opt_parse ------------------------------------------------------------------------------ */

#define ARGV(...) ((char *[]){__VA_ARGS__})
#define ARGC(...) ((int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)))
#define PARSE(a, e, scopes, ...) opt_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), scopes, a, e)
#define PROBE_CMD (SCOPE_GLOBAL | SCOPE_PROBE)

static void assert_item(const struct opt_args *a, int i, const char *name, const char *value, int segment,
                        const char *where)
{
	assert_true(i < a->n);
	assert_string_equal(a->items[i].opt->name, name);
	if (value)
		assert_string_equal(a->items[i].value, value);
	else
		assert_null(a->items[i].value);
	assert_int_equal(a->items[i].segment, segment);
	assert_string_equal(a->items[i].where, where);
}

static void test_parse_forms(void **state)
{
	struct opt_args a;
	struct err e = {0};
	int rc = PARSE(&a, &e, PROBE_CMD, "probe", "--period=5ms", "--count", "10", "-i7ms", "-i", "8ms", "-q",
	               "--quiet", "pos1", "--nice", "-5", "--period=", "-", "--", "--period", "-q");
	if (rc)
		fail_msg("%s", e.msg);
	assert_int_equal(a.n, 8);
	assert_item(&a, 0, "period", "5ms", 0, "--period");
	assert_item(&a, 1, "count", "10", 0, "--count");
	assert_item(&a, 2, "period", "7ms", 0, "-i");
	assert_item(&a, 3, "period", "8ms", 0, "-i");
	assert_item(&a, 4, "quiet", NULL, 0, "-q");
	assert_item(&a, 5, "quiet", NULL, 0, "--quiet");
	assert_item(&a, 6, "nice", "-5", 0, "--nice");   /* a value may start with '-' */
	assert_item(&a, 7, "period", "", 0, "--period");  /* empty: opt_set will refuse it */
	assert_int_equal(a.npos, 4);
	assert_string_equal(a.pos[0], "pos1");
	assert_string_equal(a.pos[1], "-");
	assert_string_equal(a.pos[2], "--period");   /* after "--" */
	assert_string_equal(a.pos[3], "-q");
	assert_false(a.help);
	assert_int_equal(a.segments, 1);
	opt_args_free(&a);

	assert_int_equal(PARSE(&a, &e, PROBE_CMD, "probe", "-h"), 0);
	assert_true(a.help);
	opt_args_free(&a);
	assert_int_equal(PARSE(&a, &e, PROBE_CMD, "probe", "x", "--help", "y"), 0);
	assert_true(a.help);
	assert_int_equal(a.npos, 2);
	opt_args_free(&a);
	assert_int_equal(PARSE(&a, &e, PROBE_CMD, "probe"), 0);
	assert_int_equal(a.n + a.npos, 0);
	opt_args_free(&a);
}

static void test_parse_segments(void **state)
{
	struct opt_args a;
	struct err e = {0};
	assert_int_equal(PARSE(&a, &e, PROBE_CMD, "probe", "-i", "1ms", "--json", "o.json", "--name", "a", "--prio",
	                       "10", "--name", "b", "--policy", "fifo", "-q"),
	                 0);
	assert_int_equal(a.segments, 3);
	assert_item(&a, 0, "period", "1ms", 0, "-i");
	assert_item(&a, 1, "json", "o.json", 0, "--json");
	assert_item(&a, 2, "name", "a", 1, "--name");
	assert_item(&a, 3, "prio", "10", 1, "--prio");
	assert_item(&a, 4, "name", "b", 2, "--name");
	assert_item(&a, 5, "policy", "fifo", 2, "--policy");
	assert_item(&a, 6, "quiet", NULL, 0, "-q");   /* global options belong to no segment */
	opt_args_free(&a);
}

/* opt_parse errors: one line, starting with the option as typed */
static void parse_bad(const char *want_start, const char *want, unsigned scopes, int argc, char **argv)
{
	struct opt_args a;
	struct err e = {0};
	if (opt_parse(argc, argv, scopes, &a, &e) == 0)
		fail_msg("accepted; wanted '%s'", want);
	opt_args_free(&a);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_null(strchr(e.msg, '\n'));
	if (strncmp(e.msg, want_start, strlen(want_start)) != 0 || !strstr(e.msg, want))
		fail_msg("message '%s', wanted '%s...%s'", e.msg, want_start, want);
}
#define BAD(start, want, scopes, ...) parse_bad(start, want, scopes, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_parse_errors(void **state)
{
	BAD("--bogus", "unknown option (see irt help probe)", PROBE_CMD, "probe", "--bogus");
	BAD("--bogus=3", "unknown option", PROBE_CMD, "probe", "-i", "1ms", "--bogus=3");
	BAD("-Z", "unknown option", PROBE_CMD, "probe", "-Z");
	BAD("--per", "unknown option", PROBE_CMD, "probe", "--per", "5ms");   /* no prefix matching */
	BAD("--PERIOD", "unknown option", PROBE_CMD, "probe", "--PERIOD", "5ms");
	BAD("--period", "not an option of 'irt report'", SCOPE_GLOBAL, "report", "--period", "5ms");
	BAD("-i5ms", "not an option of 'irt report'", SCOPE_GLOBAL, "report", "-i5ms");
	BAD("--period=5ms", "not an option of 'irt report'", SCOPE_GLOBAL, "report", "--period=5ms");
	BAD("--period", "missing value (expected a duration", PROBE_CMD, "probe", "--period");
	BAD("-i", "missing value (expected a duration", PROBE_CMD, "probe", "-n", "5", "-i");
	BAD("--quiet", "takes no value (got '1')", PROBE_CMD, "probe", "--quiet=1");
	BAD("-q", "takes no value (got '-qx')", PROBE_CMD, "probe", "-qx");
	char longname[100] = "--";
	memset(longname + 2, 'a', 90);
	longname[92] = 0;
	BAD("--aaaa", "unknown option", PROBE_CMD, "probe", longname);
}

/* ---- help and man page ---------------------------------------------------------------------- */

static int run_nothing(int argc, char **argv)
{
	return 0;
}

static void test_help_and_man(void **state)
{
	static const char *const refused[] = {"csv", NULL}, *const formats[] = {"none", "openmetrics", NULL};
	static const struct command_info cmds[] = {
		{"probe", "irt probe [OPTIONS]", "periodic wake-ups", SCOPE_GLOBAL | SCOPE_PROBE, run_nothing, NULL, NULL, NULL},
		{"report", "irt report FILES", "render results", SCOPE_GLOBAL, run_nothing, NULL, NULL, NULL},
		{"mon", "irt mon", "a command that refuses some of its scopes' options", SCOPE_GLOBAL, run_nothing,
		 refused, formats, NULL},
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	opt_print_help(f, cmds, 2, &cmds[0]);
	fclose(f);
	for (int i = 0; i < opt_count; i++) {
		char sig[80];
		snprintf(sig, sizeof(sig), "--%s", opt_table[i].name);
		if (opt_table[i].scope & (SCOPE_GLOBAL | SCOPE_PROBE))
			assert_non_null(strstr(text, sig));
	}
	assert_non_null(strstr(text, "-i, --period DURATION"));
	assert_non_null(strstr(text, "[default: 10ms]"));
	free(text);

	/* what a command refuses is not in its help; only its --format values are */
	f = open_memstream(&text, &len);
	opt_print_help(f, cmds, 3, &cmds[2]);
	fclose(f);
	assert_null(strstr(text, "--csv"));
	assert_non_null(strstr(text, "--json"));
	assert_non_null(strstr(text, "output on stdout: none, openmetrics [default: none]"));
	free(text);

	f = open_memstream(&text, &len);
	opt_print_help(f, cmds, 2, NULL);
	fclose(f);
	assert_non_null(strstr(text, "probe"));
	assert_non_null(strstr(text, "report"));
	free(text);

	f = open_memstream(&text, &len);
	opt_print_man(f, cmds, 2);
	fclose(f);
	assert_non_null(strstr(text, ".TH IRT 1"));
	for (int i = 0; i < opt_count; i++) {
		/* [thread NAME] rows are workload keys ("period ="), the others options */
		bool key = opt_table[i].scope & SCOPE_SIM_THREAD;
		const char *name = opt_table[i].name;
		if (key && strncmp(name, "thread-", 7) == 0)
			name += 7;
		char sig[80];
		strcpy(sig, key ? ".B " : "\\-\\-");
		for (const char *c = name; *c; c++)
			strcat(sig, *c == '-' ? "\\-" : (char[]){*c, 0});
		if (key)
			strcat(sig, " =");
		if (!strstr(text, sig))
			fail_msg("man page lacks %s", sig);
	}
	/* every line starting with '.' is a macro request roff knows */
	for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (*line == '.')
			assert_true(strncmp(line, ".TH", 3) == 0 || strncmp(line, ".SH", 3) == 0 ||
			            strncmp(line, ".TP", 3) == 0 || strncmp(line, ".B", 2) == 0 ||
			            strncmp(line, ".br", 3) == 0 || strncmp(line, ".\\\"", 3) == 0);
	free(text);
}

/* A command's own defaults of shared options (irt noise: --period 1s): applied over the
 * table's, shown in its help; other commands keep the table's. */
static void test_command_defaults(void **state)
{
	static const char *const defs[] = {"period=1s", "duration=10s", NULL};
	static const struct command_info cmds[] = {
		{"spin", "irt spin", "its own period", SCOPE_PROBE, run_nothing, NULL, NULL, defs},
		{"probe", "irt probe", "the table's", SCOPE_PROBE, run_nothing, NULL, NULL, NULL},
	};
	struct probe_cfg p;
	memset(&p, 0, sizeof(p));
	opt_command_defaults(&cmds[0], SCOPE_PROBE, &p);
	assert_int_equal(p.period, NSEC_PER_SEC);
	assert_int_equal(p.duration, 10 * NSEC_PER_SEC);
	assert_int_equal(p.slack, 1);   /* the others: the table's */
	memset(&p, 0, sizeof(p));
	opt_command_defaults(&cmds[1], SCOPE_PROBE, &p);
	assert_int_equal(p.period, 10 * NSEC_PER_MSEC);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	opt_print_help(f, cmds, 2, &cmds[0]);
	opt_print_help(f, cmds, 2, &cmds[1]);
	fclose(f);
	char *second = strstr(text, "usage: irt probe");
	assert_non_null(second);
	assert_non_null(strstr(text, "the duty cycle's period [default: 1s]"));
	assert_true(strstr(text, "the duty cycle's period [default: 1s]") < second);
	assert_non_null(strstr(second, "the duty cycle's period [default: 10ms]"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_integrity),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_set_duration),
		cmocka_unit_test(test_set_numbers),
		cmocka_unit_test(test_set_others),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_segments),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_help_and_man),
		cmocka_unit_test(test_command_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

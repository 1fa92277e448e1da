/* Job files and probe definitions: sections, keys, file:line errors, persona precedence. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jobfile.h"
#include "probe_cfg.h"

static char path[64];

static void write_job(const char *text)
{
	strcpy(path, "/tmp/irt-test-job.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int parse(const char *text, struct job *job, struct err *e)
{
	write_job(text);
	int rc = jobfile_parse(path, NULL, SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN, job, e);
	unlink(path);
	return rc;
}

static void expect_error(const char *text, int line, const char *what)
{
	struct job job;
	struct err e = {0};
	assert_int_equal(parse(text, &job, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	char where[96];
	snprintf(where, sizeof(where), "%s:%d: ", path, line);
	if (strncmp(e.msg, where, strlen(where)) != 0 || !strstr(e.msg, what))
		fail_msg("got '%s', wanted '%s...%s'", e.msg, where, what);
	assert_null(strchr(e.msg, '\n'));
}

static void test_sections_and_segments(void **state)
{
	(void)state;
	struct job job;
	struct err e = {0};
	int rc = parse("; the seed's experiment\n"
	               "[global]\n"
	               "period = 200ms\n"
	               "count = 1000\n"
	               "format = seed\n"
	               "\n"
	               "[probe fast]\n"
	               "period = 1ms\n"
	               "policy = fifo\n"
	               "[probe plain]\n"
	               "[load hogs]\n"
	               "load = cpu:threads=2\n",
	               &job, &e);
	if (rc)
		fail_msg("%s", e.msg);
	assert_int_equal(job.args.segments, 3);
	assert_int_equal(job.nloads, 1);
	assert_string_equal(job.loads[0].name, "hogs");
	assert_string_equal(job.loads[0].spec, "cpu:threads=2");

	struct probe_cfg *cfgs;
	int n;
	assert_int_equal(probe_cfgs_build(&job.args, &cfgs, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(cfgs[0].name, "fast");
	assert_int_equal(cfgs[0].period, 1000000);   /* own section beats [global] */
	assert_int_equal(cfgs[0].policy, POL_FIFO);
	assert_int_equal(cfgs[0].count, 1000);       /* [global] applies to every probe */
	assert_string_equal(cfgs[1].name, "plain");  /* a section without keys still defines a probe */
	assert_int_equal(cfgs[1].period, 200000000);
	free(cfgs);
	jobfile_free(&job);
}

static void test_where_names_the_line(void **state)
{
	(void)state;
	struct job job;
	struct err e = {0};
	assert_int_equal(parse("[probe a]\n\nperiod = 3ms\n", &job, &e), 0);
	assert_int_equal(job.args.n, 2);   /* the implicit name, and period */
	assert_true(strstr(job.args.items[1].where, ":3") != NULL);
	jobfile_free(&job);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[global]\nperiod = 20xs\n", 2, "'20xs' is not valid (expected a duration");
	expect_error("[global]\nperiodd = 2ms\n", 2, "unknown key 'periodd' in [global]");
	expect_error("[probe x]\nformat = seed\n", 2, "unknown key 'format' in [probe x]");
	expect_error("[probes x]\nperiod = 1ms\n", 1, "unknown section [probes x]");
	expect_error("[probe]\n", 1, "unknown section [probe]");
	expect_error("period = 1ms\n", 1, "outside any section");
	expect_error("[global]\n\nthis is not ini\n", 3, "not an INI line");
	expect_error("[load hogs]\nthreads = 2\n", 2, "unknown key 'threads' in [load hogs]");
	expect_error("[load hogs]\n", 1, "has no 'load = TYPE");
	expect_error("[probe a]\nname = b\n", 2, "set by the section header");
	expect_error("[global]\npolicy = fast\n", 2, "unknown value 'fast'");

	/* nothing but comments or blank lines: refused, no line (runs nothing) */
	const char *empties[] = {"", "\n\n", "; a comment\n# another\n", "\xef\xbb\xbf\n"};
	for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
		struct job job;
		struct err e = {0};
		assert_int_equal(parse(empties[i], &job, &e), -1);
		assert_int_equal(e.code, EXIT_USAGE);
		assert_non_null(strstr(e.msg, ": no section (expected [global], [probe NAME], [load NAME]; to run the defaults"));
	}
	/* a section without keys is a job: the defaults, said explicitly */
	{
		struct job job;
		struct err e = {0};
		assert_int_equal(parse("[global]\n", &job, &e), 0);
		jobfile_free(&job);
	}
	/* a line longer than inih's buffer is refused at its own line, never split */
	char text[1024];
	char xs[300];
	memset(xs, 'x', sizeof(xs));
	snprintf(text, sizeof(text), "[global]\n; %.196s\nperiodd = 1ms\n", xs);   /* 198 characters: fits */
	expect_error(text, 3, "unknown key 'periodd'");
	snprintf(text, sizeof(text), "[global]\n\n; %.197sformat = seed\ncount = 3\n", xs);
	expect_error(text, 3, "line longer than 198 characters");
	snprintf(text, sizeof(text), "[global]\nperiod = 1ms ; %.250s", xs);   /* the last line, no newline */
	expect_error(text, 2, "line longer than 198 characters");
	expect_error("[global]\nperiod = 1ms\x01\n", 2, "control character \\x01");
	expect_error("[global]\n; caf\xe9\n", 2, "byte \\xe9 is not UTF-8");
	expect_error("[probe caf\xc3\xa9]\nperiod = x\n", 2, "'x' is not valid");   /* UTF-8 is fine */
	expect_error("[global]\r\nperiod = x\r\n", 2, "'x' is not valid");         /* so are CRLF lines */

	/* a NUL byte (a binary file): refused at its line, nothing parsed */
	static const char bin[] = "\x00\x01\xff\xfe garbage\n";
	static const char late[] = "[global]\nperiod = 1ms\n; x\x00y\ncount = 3\n";
	const struct { const char *data; size_t len; int line; } nuls[] = {{bin, sizeof(bin) - 1, 1}, {late, sizeof(late) - 1, 3}};
	for (size_t i = 0; i < sizeof(nuls) / sizeof(nuls[0]); i++) {
		struct job job;
		struct err e = {0};
		FILE *f = fmemopen((void *)nuls[i].data, nuls[i].len, "r");
		assert_non_null(f);
		assert_int_equal(jobfile_parse_stream(f, "bin.ini", NULL, SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN, &job, &e), -1);
		fclose(f);
		char want[64];
		snprintf(want, sizeof(want), "bin.ini:%d: a NUL byte (", nuls[i].line);
		if (strncmp(e.msg, want, strlen(want)) != 0)
			fail_msg("got '%s', wanted '%s...'", e.msg, want);
	}

	struct job job;
	struct err e = {0};
	assert_int_equal(jobfile_parse("/nonexistent/job.ini", NULL, SCOPE_GLOBAL | SCOPE_PROBE, &job, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "/nonexistent/job.ini: cannot read the job file"));
}

static void test_persona_precedence(void **state)
{
	(void)state;
	struct job job;
	struct err e = {0};
	/* the persona sets defaults; explicit options win wherever they appear */
	assert_int_equal(parse("[global]\nburn = 1ms\n[probe a]\npersona = audio\n[probe b]\npersona = video\nperiod = 20ms\n",
	                       &job, &e), 0);
	struct probe_cfg *cfgs;
	int n;
	assert_int_equal(probe_cfgs_build(&job.args, &cfgs, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cfgs[0].period, 50000000);   /* audio */
	assert_int_equal(cfgs[0].burn, 1000000);      /* [global] explicit beats the persona */
	assert_int_equal(cfgs[0].touch, 256 * 1024);
	assert_int_equal(cfgs[1].period, 20000000);
	assert_int_equal(cfgs[1].touch, 4 * 1024 * 1024);
	free(cfgs);
	jobfile_free(&job);
}

static void test_finish_rules(void **state)
{
	(void)state;
	struct probe_cfg c;
	struct err e = {0};
	memset(&c, 0, sizeof(c));
	opt_defaults(SCOPE_PROBE, &c);
	assert_int_equal(probe_cfg_finish(&c, &e), 0);
	assert_int_equal(c.duration, 10000000000LL);   /* 10 s by default */
	assert_int_equal(c.deadline, c.period);
	assert_int_equal(probe_cfg_iterations(&c), 1000);

	memset(&c, 0, sizeof(c));
	opt_defaults(SCOPE_PROBE, &c);
	c.policy = POL_RR;
	assert_int_equal(probe_cfg_finish(&c, &e), 0);
	assert_int_equal(c.prio, 80);

	memset(&c, 0, sizeof(c));
	opt_defaults(SCOPE_PROBE, &c);
	c.policy = POL_DEADLINE;
	c.period = 10000000;
	c.burn = 1000000;
	assert_int_equal(probe_cfg_finish(&c, &e), 0);
	assert_int_equal(c.dl_period, 10000000);
	assert_int_equal(c.dl_deadline, 10000000);
	assert_int_equal(c.dl_runtime, 1300000);   /* burn + 20 % + 100 us */

	memset(&c, 0, sizeof(c));
	opt_defaults(SCOPE_PROBE, &c);
	c.policy = POL_FIFO;
	c.period = 1000000;
	c.burn = 950000;   /* exactly 95 %: refused */
	assert_int_equal(probe_cfg_finish(&c, &e), -1);
	assert_non_null(strstr(e.msg, "below 95% of the period"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_and_segments),
		cmocka_unit_test(test_where_names_the_line),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_persona_precedence),
		cmocka_unit_test(test_finish_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

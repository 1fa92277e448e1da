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
	int rc = jobfile_parse(path, SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN, job, e);
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

	struct job job;
	struct err e = {0};
	assert_int_equal(jobfile_parse("/nonexistent/job.ini", SCOPE_GLOBAL | SCOPE_PROBE, &job, &e), -1);
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

/* Fleets (src/fleet.c) and CI gates (src/expect.c): shards partition the cells, the job
 * scripts pass every argument through the shell exactly, expectations parse and judge. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "expect.h"
#include "fleet.h"

static void test_shard_parse(void **state)
{
	struct err e = {0};
	int i, n;
	assert_int_equal(shard_parse("", "--shard", &i, &n, &e), 0);
	assert_int_equal(i, 0);
	assert_int_equal(n, 1);
	assert_int_equal(shard_parse("3/8", "--shard", &i, &n, &e), 0);
	assert_int_equal(i, 2);
	assert_int_equal(n, 8);
	assert_int_equal(shard_parse("100000/100000", "--shard", &i, &n, &e), 0);
	static const char *const bad[] = {"0/2", "3/2", "a/b", "1/", "/2", "1/2x", "-1/2", "1/100001", "1", " 1/2",
	                                  "1/-2", "99999999999999999999/2", NULL};
	for (int k = 0; bad[k]; k++) {
		err_clear(&e);
		assert_int_equal(shard_parse(bad[k], "--shard", &i, &n, &e), -1);
		assert_int_equal(e.code, EXIT_USAGE);
		assert_non_null(strstr(e.msg, "is not a shard"));
	}
}

/* Property: for every shard count, every cell is in exactly one shard, and the shards' sizes
 * differ by at most one (round robin). */
static void test_shards_partition(void **state)
{
	for (int n = 1; n <= 9; n++)
		for (long cells = 1; cells <= 40; cells++) {
			int size[9] = {0};
			for (long k = 0; k < cells; k++) {
				int owners = 0;
				for (int i = 0; i < n; i++)
					if (shard_has(k, i, n)) {
						owners++;
						size[i]++;
					}
				assert_int_equal(owners, 1);
			}
			for (int i = 0; i < n; i++)
				assert_true(size[i] == cells / n || size[i] == cells / n + 1);
		}
}

static void hex(const char *s, char *out)
{
	for (; *s; s++, out += 2)
		sprintf(out, "%02x", (unsigned char)*s);
	*out = 0;
}

/* The script's command line, run by sh, hands irt exactly the arguments it was given, however
 * they are quoted; the script's own additions point into DIR/<machine>/. */
static void test_script_quoting(void **state)
{
	char dir[] = "/tmp/irt-fleet-unit.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char echo[300], script[300], out[300], cmd[1200], line[2000], want[2000];
	snprintf(echo, sizeof(echo), "%s/echo args", dir);   /* a space in the binary's path too */
	FILE *f = fopen(echo, "w");
	assert_non_null(f);
	/* prints every argument in hex, one per line */
	fputs("#!/bin/sh\nfor a; do printf '%s' \"$a\" | od -An -tx1 | tr -d ' \\n'; echo; done\n", f);
	fclose(f);
	chmod(echo, 0755);
	char *args[] = {"--persona", "it's", "$HOME `id` \"q\" \\", "two\nlines", "--load", "cmd:run=a b;c", NULL};
	struct fleet_cfg cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.tasks = 2;
	char host[256] = "";
	FILE *u = popen("uname -n", "r");
	assert_non_null(fgets(host, sizeof(host), u));
	pclose(u);
	host[strcspn(host, "\n")] = 0;
	for (int backend = 0; backend < 2; backend++) {
		struct fleet_job j = {.backend = backend ? FLEET_PARALLEL : FLEET_SLURM, .dir = dir, .irt = echo,
		                      .command = "run", .args = args, .nargs = 6, .cfg = &cfg, .exclude = "",
		                      .run_id = "20261203-000000"};
		snprintf(script, sizeof(script), "%s/job.sh", dir);
		f = fopen(script, "w");
		assert_non_null(f);
		if (backend == 0) {
			fleet_script(f, &j);
		} else {
			/* the per-host command GNU parallel runs: the one quoted word after its options */
			char *buf = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&buf, &len);
			fleet_script(m, &j);
			fclose(m);
			char *start = strstr(buf, "\\\n  ");
			assert_non_null(start);
			fprintf(f, "eval %s\n", start + 4);
			free(buf);
		}
		fclose(f);
		snprintf(out, sizeof(out), "%s/out", dir);
		snprintf(cmd, sizeof(cmd), "SLURM_ARRAY_JOB_ID=7 SLURM_ARRAY_TASK_ID=1 sh '%s' > '%s'", script, out);
		assert_int_equal(system(cmd), 0);
		FILE *p = fopen(out, "r");
		assert_non_null(p);
		assert_non_null(fgets(line, sizeof(line), p));
		hex("run", want);
		assert_int_equal(strncmp(line, want, strlen(want)), 0);
		for (int i = 0; i < 6; i++) {   /* byte for byte */
			assert_non_null(fgets(line, sizeof(line), p));
			hex(args[i], want);
			strcat(want, "\n");
			assert_string_equal(line, want);
		}
		assert_non_null(fgets(line, sizeof(line), p));
		hex("--json", want);
		strcat(want, "\n");
		assert_string_equal(line, want);
		assert_non_null(fgets(line, sizeof(line), p));
		char path[600];
		if (backend == 0)
			snprintf(path, sizeof(path), "%s/%s/run-7_1.json", dir, host);
		else
			snprintf(path, sizeof(path), "%s/%s/run-20261203-000000-", dir, host);
		hex(path, want);
		assert_int_equal(strncmp(line, want, strlen(want)), 0);
		assert_null(fgets(line, sizeof(line), p));
		fclose(p);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_expect_parse(void **state)
{
	struct expect x;
	struct err e = {0};
	assert_int_equal(expect_parse("wake.p99<=1ms", &x, &e), 0);
	assert_string_equal(x.metric, "wake.p99");
	assert_int_equal(x.op, EXPECT_LE);
	assert_true(x.value == 1e6);
	assert_int_equal(expect_parse(" audio : resp.max < 250us ", &x, &e), 0);
	assert_string_equal(x.subject, "audio");
	assert_string_equal(x.metric, "resp.max");
	assert_int_equal(x.op, EXPECT_LT);
	assert_true(x.value == 250e3);
	assert_int_equal(expect_parse("met>=99.9%", &x, &e), 0);
	assert_true(fabs(x.value - 0.999) < 1e-12);
	assert_int_equal(expect_parse("B:verdict!=worse", &x, &e), 0);
	assert_int_equal(x.unit, EXPECT_WORD);
	assert_int_equal(x.op, EXPECT_NE);
	assert_string_equal(x.word, "worse");
	assert_int_equal(expect_parse("wake.p99.ratio<=1.05", &x, &e), 0);
	assert_int_equal(x.unit, EXPECT_RATIO);
	assert_int_equal(expect_parse("overruns==0", &x, &e), 0);
	assert_int_equal(x.unit, EXPECT_COUNT);
	static const char *const bad[] = {"wake.p99", "wake.p99=<1ms", "wake.p99<=5", "lag<1ms", "met>=101%",
	                                  "verdict<better", "verdict==faster", ":wake.p50<1ms", "wake.p99<=",
	                                  "samples>=-1", "resp.p99.ratio<=x", NULL};
	for (int i = 0; bad[i]; i++) {
		err_clear(&e);
		assert_int_equal(expect_parse(bad[i], &x, &e), -1);
		assert_int_equal(e.code, EXIT_USAGE);
	}
}

/* Judging: every value must hold; the detail names the worst (the first failing one, or when
 * all hold the closest to failing); a named subject judges only itself. */
static void test_expect_judge(void **state)
{
	struct expect x;
	struct err e = {0};
	struct expect_outcome o;
	struct expect_value v[] = {{"a", 100, NULL}, {"b", 900, NULL}, {"c", 300, NULL}};
	assert_int_equal(expect_parse("wake.p99<=1us", &x, &e), 0);
	expect_judge(&x, v, 3, &o);
	assert_true(o.met && o.judged);
	assert_non_null(strstr(o.detail, "b wake.p99 = "));
	assert_int_equal(expect_parse("wake.p99<500ns", &x, &e), 0);
	expect_judge(&x, v, 3, &o);
	assert_false(o.met);
	assert_non_null(strstr(o.detail, "b wake.p99"));
	assert_int_equal(expect_parse("c:wake.p99<500ns", &x, &e), 0);
	expect_judge(&x, v, 3, &o);
	assert_true(o.met);
	assert_int_equal(expect_parse("nobody:wake.p99<500ns", &x, &e), 0);
	expect_judge(&x, v, 3, &o);
	assert_false(o.met);
	assert_false(o.judged);   /* nothing to judge is unmet, never passed */
	expect_judge(&x, v, 0, &o);
	assert_false(o.met);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard_parse),
		cmocka_unit_test(test_shards_partition),
		cmocka_unit_test(test_script_quoting),
		cmocka_unit_test(test_expect_parse),
		cmocka_unit_test(test_expect_judge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

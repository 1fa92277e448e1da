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
	/* the simulator's metrics: shares, durations, a count */
	static const struct { const char *text; enum expect_unit unit; double value; } sim[] = {
		{"p:share>=10%", EXPECT_RATIO, 0.1},    {"timer:windows>=99%", EXPECT_RATIO, 0.99},
		{"vm:completion<=30s", EXPECT_NS, 30e9}, {"used<1s", EXPECT_NS, 1e9},
		{"spent>=2ms", EXPECT_NS, 2e6},          {"switches<100", EXPECT_COUNT, 100},
	};
	for (size_t i = 0; i < sizeof(sim) / sizeof(sim[0]); i++) {
		assert_int_equal(expect_parse(sim[i].text, &x, &e), 0);
		assert_int_equal(x.unit, sim[i].unit);
		assert_true(fabs(x.value - sim[i].value) < 1e-9);
	}
	assert_true(expect_sim_metric("completion") && !expect_sim_metric("met") && !expect_sim_metric("wake.p99"));
	static const char *const bad[] = {"wake.p99", "wake.p99=<1ms", "wake.p99<=5", "lag<1ms", "met>=101%",
	                                  "verdict<better", "verdict==faster", ":wake.p50<1ms", "wake.p99<=",
	                                  "samples>=-1", "resp.p99.ratio<=x", "share>=101%", "completion<=5",
	                                  "switches>=1.5", "windows>=x", "share.ratio<=1", NULL};
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

/* The simulator's metrics exist only in irt sim's results: every other command refuses them
 * before it runs, as probe and run refuse a comparison's verdict. */
static void test_expect_set_sim(void **state)
{
	struct strlist exprs = {0};
	strlist_add(&exprs, "wake.p99<=1ms");
	strlist_add(&exprs, "p:share>=10%");
	static const char *const others[] = {"probe", "run", "compare", "sweep", NULL};
	for (int i = 0; others[i]; i++) {
		struct expect_set s;
		struct err e = {0};
		assert_int_equal(expect_set_parse(&s, &exprs, NULL, others[i], &e), -1);
		assert_int_equal(e.code, EXIT_USAGE);
		assert_non_null(strstr(e.msg, "--expect 'p:share>=10%': share exists only in simulations (irt sim)"));
		expect_set_free(&s);
	}
	struct expect_set s;
	struct err e = {0};
	assert_int_equal(expect_set_parse(&s, &exprs, NULL, "sim", &e), 0);
	assert_int_equal(s.n, 2);
	/* a simulation knows its threads: a subject that is none of them is refused */
	const char *names[] = {"a", "p"};
	assert_int_equal(expect_set_subjects(&s, names, 2, "w.ini", &e), 0);
	assert_int_equal(expect_set_subjects(&s, names, 1, "w.ini", &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_string_equal(e.msg, "--expect 'p:share>=10%': no thread 'p' in w.ini (its threads: a)");
	expect_set_free(&s);
	strlist_free(&exprs);
}

/* Judging them on a simulated result: a oneshot thread not completed within the duration
 * never meets a completion bound; threads without the metric are passed over, and named. */
static void test_expect_sim_result(void **state)
{
	struct result r;
	struct err e = {0};
	assert_int_equal(result_init(&r, "sim", 3, &e), 0);
	static const char *const names[] = {"vm", "timer", "be"};
	for (int i = 0; i < 3; i++) {
		snprintf(r.threads[i].name, sizeof(r.threads[i].name), "%s", names[i]);
		snprintf(r.threads[i].role, sizeof(r.threads[i].role), "sim");
	}
	r.threads[0].sim_completion_ns = -1;   /* not completed */
	r.threads[1].sim_windows = 120;
	r.threads[1].sim_windows_ok = 119;
	r.threads[2].sim_share_ppm = 302250;
	r.threads[2].sim_switches = 7;
	struct expect x;
	struct expect_outcome o;
	assert_int_equal(expect_parse("completion<=1h", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_true(o.judged && !o.met);
	assert_string_equal(o.detail, "vm completion = not completed within the duration");
	assert_int_equal(expect_parse("completion>=1s", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_true(o.judged && o.met);
	r.threads[0].sim_completion_ns = 4000000000;
	assert_int_equal(expect_parse("vm:completion<5s", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_true(o.met);
	assert_int_equal(expect_parse("windows>=100%", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_false(o.met);
	assert_string_equal(o.detail, "timer windows = 99.167%");
	assert_int_equal(expect_parse("be:share>=30%", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_true(o.met);
	assert_string_equal(o.detail, "be share = 30.225%");
	assert_int_equal(expect_parse("be:switches<7", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_false(o.met);
	assert_int_equal(expect_parse("timer:completion<1s", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_false(o.judged);
	assert_non_null(strstr(o.detail, "timer has no completion time"));
	assert_int_equal(expect_parse("be:windows>=1%", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_non_null(strstr(o.detail, "be has no full timer windows"));
	/* a measured probe holds none of them */
	snprintf(r.threads[2].role, sizeof(r.threads[2].role), "probe");
	assert_int_equal(expect_parse("be:share>=0%", &x, &e), 0);
	expect_on_result(&x, &r, &o);
	assert_false(o.judged);
	result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard_parse),
		cmocka_unit_test(test_shards_partition),
		cmocka_unit_test(test_script_quoting),
		cmocka_unit_test(test_expect_parse),
		cmocka_unit_test(test_expect_judge),
		cmocka_unit_test(test_expect_set_sim),
		cmocka_unit_test(test_expect_sim_result),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

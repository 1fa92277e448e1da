/* result.c: JSON round trip (struct and bytes), the golden file, atomic writes, and strict
 * reading of damaged files. */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h"

#define NSEC_PER_SEC_TEST INT64_C(1000000000)

static char dir[] = "/tmp/irt-test-result.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[512];
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	return rmdir(dir);
}

static char *path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = xcalloc((size_t)n + 1, 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* names of the files in the test directory, sorted, joined by spaces */
static void listing(char *out, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	assert_true(n >= 0);
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

static json_t *fixed_tree(void);

/* ---- the fixed record behind the golden file ---------------------------------------------- */

static void build_fixed(struct result *r)
{
	struct err e = {0};
	assert_int_equal(result_init(r, "probe", 2, &e), 0);
	strcpy(r->tool_version, "0.0.0-golden");
	r->cmdline = strdup("irt probe -i 1ms -n 8 --threads 2 --json 'out file.json'");
	r->start_realtime_ns = INT64_C(1764670000123456789);
	r->end_realtime_ns = r->start_realtime_ns + 8001234;
	r->duration_ns = 8000017;
	r->interrupted = false;
	struct result_env *env = &r->env;
	strcpy(env->hostname, "golden");
	strcpy(env->kernel, "6.18.0-test");
	strcpy(env->kernel_version, "#1 SMP PREEMPT_DYNAMIC");
	strcpy(env->machine, "x86_64");
	strcpy(env->cpu_model, "Test CPU @ 1.00GHz");
	env->online_cpus = 2;
	strcpy(env->clocksource, "tsc");
	strcpy(env->preemption, "dynamic (full)");
	env->hz = 250;
	env->root = true;
	kvlist_set(&r->settings, "format", "table");
	kvlist_set(&r->settings, "seed", "1");
	/* the conditions manifest as linux/conditions.c writes it */
	static const char *const cond[][2] = {
		{"pm_qos", "held at 0 µs"},
		{"pm_qos.system", "0 µs"},
		{"cpuidle.driver", "haltpoll"},
		{"cpuidle.governor", "haltpoll"},
		{"cpuidle.states", "all CPUs: POLL (exit 0 µs), haltpoll idle (exit 1 µs)"},
		{"cpufreq.driver", "all CPUs: acpi-cpufreq"},
		{"cpufreq.governor", "cpu0: performance; cpu1: powersave"},
		{"cpufreq.min_khz", "all CPUs: 800000"},
		{"cpufreq.max_khz", "all CPUs: 3400000"},
		{"cpufreq.cur_khz", "cpu0: 3400000; cpu1: 800000"},
		{"cpufreq.boost", "on"},
		{"smt", "on (active 1)"},
		{"cmdline", "isolcpus=1 nohz_full=1 threadirqs"},
		{"hypervisor", "KVM"},
		{"thp", "madvise (defrag madvise)"},
		{"irq_affinity", "3 of 19 IRQs delivered to the probe CPUs 1"},
		{"rt_throttling", "950000 µs of every 1000000 µs"},
		{"kernel.config_hash", "crc32 0e6a8328 of 100956 bytes"},
		{"steal", "0.50% of CPU time during the run"},
	};
	for (size_t i = 0; i < sizeof(cond) / sizeof(cond[0]); i++)
		kvlist_set(&r->conditions, cond[i][0], cond[i][1]);
	kvlist_set(&r->conditions_changed, "pm_qos.system", "0 µs -> no request (2000000000 µs)");

	struct result_thread *t = &r->threads[0];
	strcpy(t->name, "probe0");
	t->tid = 1001;
	kvlist_set(&t->settings, "period", "1ms");
	kvlist_set(&t->settings, "count", "8");
	kvlist_set(&t->settings, "policy", "fifo");
	kvlist_set(&t->settings, "prio", "80");
	static const int64_t wake[] = {900, 1000, 1100, 2500, 15000, 16000, 1200000, 50};
	for (int i = 0; i < 8; i++) {
		hist_record(&t->wake, wake[i]);
		hist_record(&t->resp, wake[i] + 20000);
	}
	t->samples = 8;
	t->overruns = 1;
	t->deadlines_met = 7;
	t->deadlines_missed = 1;
	t->timer_slack_ns = 1;
	t->burn_ns_per_kloop = 0;

	t = &r->threads[1];
	strcpy(t->name, "probe1");
	t->tid = 1002;
	kvlist_set(&t->settings, "period", "1ms");
	hist_record(&t->wake, 7);
	hist_record(&t->wake, 123456);
	hist_record(&t->wake, HIST_MAX_VALUE + 5);   /* saturates */
	t->samples = 3;
	t->overruns = 2;
	t->burn_ns_per_kloop = 1234;
	/* resp stays empty; timer_slack_ns stays -1 (unknown) */
}

/* A larger record from random data: many buckets, awkward strings. */
static void build_random(struct result *r, uint64_t seed)
{
	struct err e = {0};
	assert_int_equal(result_init(r, "sim", 3, &e), 0);
	r->cmdline = strdup("irt sim \"quota.ini\" --name 'a\\b'\t\u00b5s");
	r->start_realtime_ns = -5;   /* before the epoch: the UTC string must still work */
	r->end_realtime_ns = (int64_t)(rnd_next(&seed) >> 2);
	r->duration_ns = INT64_MAX;
	r->interrupted = true;
	strcpy(r->env.cpu_model, "\"quoted\" \\ back\nslash \u00e9");
	r->env.online_cpus = 4096;
	for (int k = 0; k < 20; k++) {
		char key[32], val[32];
		snprintf(key, sizeof(key), "key%02d", 19 - k);   /* not sorted: order must survive */
		snprintf(val, sizeof(val), "%llu", (unsigned long long)rnd_next(&seed));
		kvlist_set(&r->settings, key, val);
	}
	kvlist_set(&r->settings, "", "empty key");
	for (int i = 0; i < r->nthreads; i++) {
		struct result_thread *t = &r->threads[i];
		snprintf(t->name, sizeof(t->name), "thread %d", i);
		strcpy(t->role, "sim");
		t->tid = -i;
		t->samples = rnd_next(&seed) >> 1;
		t->overruns = (uint64_t)INT64_MAX;
		t->deadlines_met = rnd_next(&seed) >> 40;
		t->deadlines_missed = rnd_next(&seed) >> 40;
		t->timer_slack_ns = 50000;
		t->burn_ns_per_kloop = 777;
		for (int k = 0; k < 5000 * i; k++) {
			double x = exp(log(20000.0) + 2.0 * rnd_normal(&seed));
			hist_record(&t->wake, (int64_t)x);
			hist_record_n(&t->resp, (int64_t)(x * 3), 1 + rnd_next(&seed) % 1000);
		}
		if (i == 2)
			hist_record_n(&t->wake, INT64_MAX, 3);
		if (i == 1) {   /* --attribute; fell behind and ran past its window */
			t->past_window_ns = 2500000000;
			t->attributed = true;
			for (int k = 0; k < 300; k++) {
				hist_record(&t->attr_runq, (int64_t)(rnd_next(&seed) % 100000));
				hist_record(&t->attr_other, (int64_t)(rnd_next(&seed) % 5000));
				hist_record(&t->attr_backlog, (int64_t)(rnd_next(&seed) % 3000000));
			}
		}
	}
	/* the optional sections of irt run */
	for (int k = 0; k < 2; k++) {
		struct result_load *l = result_add_load(r);
		snprintf(l->name, sizeof(l->name), "load%d", k);
		strcpy(l->type, k ? "pipe" : "cpu");
		strcpy(l->spec, k ? "pipe:size=4K" : "cpu");
		kvlist_set(&l->settings, "threads", "2");
		l->ops = rnd_next(&seed) >> 20;
		l->bytes = k ? rnd_next(&seed) >> 20 : 0;
		l->elapsed_ns = 10 * NSEC_PER_SEC_TEST;
		l->ops_per_s = (double)l->ops / 10.0 + 1.0 / 3.0;   /* not a short decimal */
		l->bytes_per_s = (double)l->bytes / 10.0;
		strcpy(l->ops_unit, k ? "messages" : "loops");
		strcpy(l->bytes_unit, k ? "bytes" : "");
		strcpy(l->end, "stopped");
	}
	for (int k = 0; k < 3; k++) {
		struct result_acct *a = result_add_acct(r);
		snprintf(a->name, sizeof(a->name), "thr%d", k);
		strcpy(a->role, k ? "load cpu" : "probe");
		strcpy(a->kind, "thread");
		a->pid = 100 + k;
		a->tid = k == 2 ? -1 : 200 + k;
		a->wall_ns = 10 * NSEC_PER_SEC_TEST;
		a->used_ns = (int64_t)(rnd_next(&seed) % (uint64_t)a->wall_ns);
		a->waited_ns = k == 2 ? -1 : 12345;
		a->carry_ns = -7;
		a->timeslices = 99;
		a->vol_switches = 5;
		a->invol_switches = -1;
		a->migrations = 3;
		a->cpu_pct = 100.0 * (double)a->used_ns / (double)a->wall_ns;
		a->run_pct = a->cpu_pct / 2;
	}
	struct result_acct *x = result_add_acct(r);   /* exited in the window: marked, figures unknown */
	*x = (struct result_acct){.name = "gone", .role = "watch", .kind = "thread", .pid = 300, .tid = 301,
	                          .used_ns = -1, .waited_ns = -1, .timeslices = -1, .vol_switches = -1,
	                          .invol_switches = -1, .migrations = -1, .exited = true};
	/* irt watch --all's counts */
	r->runq.present = true;
	for (const struct result_runq_field *f = result_runq_fields; f->name; f++)
		*(int64_t *)((char *)&r->runq + f->offset) = (int64_t)(rnd_next(&seed) >> 1);
	strcpy(r->runq.top_by, "total");
	strcpy(r->runq.top_of, "process");
	struct result_context *c = &r->context;
	c->present = true;
	c->wall_ns = 10 * NSEC_PER_SEC_TEST;
	c->steal_pct = 0.1;
	c->ctxt = 123456;
	c->ctxt_per_s = 12345.6;
	c->psi_some_pct = -1;
	c->psi_full_pct = -1;
	c->load1 = 2.5;
	c->load5 = 1.25;
	c->load15 = 0.7;
	struct result_cgroup_stat *g = result_add_cgroup_stat(r);
	strcpy(g->path, "/sys/fs/cgroup/cpu/irt/probes");
	g->nr_periods = 100;
	g->nr_throttled = 3;
	g->throttled_ns = 4500000;
	g->usage_ns = -1;
	c->noisy = true;
	strcpy(c->noisy_why, "steal 3.1% of CPU time > 2%");
	strcpy(r->placement.mode, "split");
	strcpy(r->placement.probe_cgroup, "/sys/fs/cgroup/cpu/irt/probes");
	strcpy(r->placement.load_cgroup, "/sys/fs/cgroup/cpu/irt/loads");
	strcpy(r->placement.probe_autogroup, "/autogroup-12 nice 0");
}

static void assert_hist_equal(const struct hist *a, const struct hist *b)
{
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->sum, b->sum);
	assert_true(a->sumsq == b->sumsq);   /* exact: 17 significant digits */
	assert_int_equal(a->saturated, b->saturated);
	for (unsigned i = 0; i < HIST_LEN; i++)
		if (a->counts[i] != b->counts[i]) {
			print_error("bucket %u: %llu != %llu\n", i, (unsigned long long)a->counts[i],
			            (unsigned long long)b->counts[i]);
			fail();
		}
}

static void assert_kv_equal(const struct kvlist *a, const struct kvlist *b)
{
	assert_int_equal(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		assert_string_equal(a->v[i].key, b->v[i].key);
		assert_string_equal(a->v[i].value, b->v[i].value);
	}
}

static void assert_result_equal(const struct result *a, const struct result *b)
{
	assert_string_equal(a->schema, b->schema);
	assert_string_equal(a->tool_version, b->tool_version);
	assert_string_equal(a->command, b->command);
	/* a reader keeps control characters escaped (text from files reaches terminals) */
	char want[1024];
	err_escape(want, sizeof(want), a->cmdline ? a->cmdline : "");
	assert_string_equal(want, b->cmdline ? b->cmdline : "");
	assert_int_equal(a->start_realtime_ns, b->start_realtime_ns);
	assert_int_equal(a->end_realtime_ns, b->end_realtime_ns);
	assert_int_equal(a->duration_ns, b->duration_ns);
	assert_int_equal(a->interrupted, b->interrupted);
	struct result_env env = a->env;   /* fixed arrays, zero padded; strings read escaped */
	char *const strs[] = {env.hostname, env.kernel, env.kernel_version, env.machine, env.cpu_model,
			      env.clocksource, env.preemption};
	const size_t caps[] = {sizeof(env.hostname), sizeof(env.kernel), sizeof(env.kernel_version),
			       sizeof(env.machine), sizeof(env.cpu_model), sizeof(env.clocksource),
			       sizeof(env.preemption)};
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		char tmp[256];
		err_escape(tmp, caps[i], strs[i]);
		memset(strs[i], 0, caps[i]);
		strcpy(strs[i], tmp);
	}
	assert_memory_equal(&env, &b->env, sizeof(env));
	assert_kv_equal(&a->settings, &b->settings);
	assert_kv_equal(&a->conditions, &b->conditions);
	assert_kv_equal(&a->conditions_changed, &b->conditions_changed);
	assert_int_equal(a->nthreads, b->nthreads);
	for (int i = 0; i < a->nthreads; i++) {
		const struct result_thread *x = &a->threads[i], *y = &b->threads[i];
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->role, y->role);
		assert_kv_equal(&x->settings, &y->settings);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->samples, y->samples);
		assert_int_equal(x->overruns, y->overruns);
		assert_int_equal(x->deadlines_met, y->deadlines_met);
		assert_int_equal(x->deadlines_missed, y->deadlines_missed);
		assert_int_equal(x->timer_slack_ns, y->timer_slack_ns);
		assert_int_equal(x->burn_ns_per_kloop, y->burn_ns_per_kloop);
		assert_int_equal(x->past_window_ns, y->past_window_ns);
		assert_hist_equal(&x->wake, &y->wake);
		assert_hist_equal(&x->resp, &y->resp);
		assert_int_equal(x->attributed, y->attributed);
		if (x->attributed) {
			assert_hist_equal(&x->attr_runq, &y->attr_runq);
			assert_hist_equal(&x->attr_other, &y->attr_other);
			assert_hist_equal(&x->attr_backlog, &y->attr_backlog);
		}
	}
	assert_int_equal(a->nloads, b->nloads);
	for (int i = 0; i < a->nloads; i++) {
		const struct result_load *x = &a->loads[i], *y = &b->loads[i];
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->type, y->type);
		assert_string_equal(x->spec, y->spec);
		assert_kv_equal(&x->settings, &y->settings);
		assert_int_equal(x->ops, y->ops);
		assert_int_equal(x->bytes, y->bytes);
		assert_int_equal(x->errors, y->errors);
		assert_int_equal(x->elapsed_ns, y->elapsed_ns);
		assert_true(x->ops_per_s == y->ops_per_s && x->bytes_per_s == y->bytes_per_s);
		assert_string_equal(x->ops_unit, y->ops_unit);
		assert_string_equal(x->bytes_unit, y->bytes_unit);
		assert_string_equal(x->end, y->end);
		assert_string_equal(x->failure, y->failure);
	}
	assert_int_equal(a->nacct, b->nacct);
	if (a->nacct)   /* fixed arrays and numbers only */
		assert_memory_equal(a->acct, b->acct, sizeof(*a->acct) * (size_t)a->nacct);
	const struct result_context *c = &a->context, *d = &b->context;
	assert_int_equal(c->present, d->present);
	assert_int_equal(c->wall_ns, d->wall_ns);
	assert_true(c->steal_pct == d->steal_pct && c->ctxt_per_s == d->ctxt_per_s);
	assert_true(c->psi_some_pct == d->psi_some_pct && c->psi_full_pct == d->psi_full_pct);
	assert_true(c->load1 == d->load1 && c->load5 == d->load5 && c->load15 == d->load15);
	assert_int_equal(c->ctxt, d->ctxt);
	assert_int_equal(c->noisy, d->noisy);
	assert_string_equal(c->noisy_why, d->noisy_why);
	assert_int_equal(c->ncgroups, d->ncgroups);
	if (c->ncgroups)
		assert_memory_equal(c->cgroups, d->cgroups, sizeof(*c->cgroups) * (size_t)c->ncgroups);
	assert_memory_equal(&a->placement, &b->placement, sizeof(a->placement));
	assert_int_equal(a->runq.present, b->runq.present);
	for (const struct result_runq_field *f = result_runq_fields; f->name; f++)
		assert_int_equal(*(const int64_t *)((const char *)&a->runq + f->offset),
		                 *(const int64_t *)((const char *)&b->runq + f->offset));
	assert_string_equal(a->runq.top_by, b->runq.top_by);
	assert_string_equal(a->runq.top_of, b->runq.top_of);
}

/* write -> read -> write: equal structs, byte-identical files. A record with control
 * characters (build_random's cmdline and cpu_model) reads back escaped, so its files are
 * compared one round later: read -> write is then a fixed point. */
static void roundtrip_files(struct result *r, bool escaped);
static void roundtrip(struct result *r)
{
	roundtrip_files(r, false);
}

static void roundtrip_files(struct result *r, bool escaped)
{
	char a[256], b[256];
	struct err e = {0};
	struct result back;
	path_in(a, sizeof(a), "a.json");
	path_in(b, sizeof(b), "b.json");
	if (result_write(r, a, &e))
		fail_msg("%s", e.msg);
	if (result_read(&back, a, &e))
		fail_msg("%s", e.msg);
	assert_result_equal(r, &back);
	if (escaped) {
		assert_int_equal(result_write(&back, a, &e), 0);
		result_free(&back);
		assert_int_equal(result_read(&back, a, &e), 0);
	}
	assert_int_equal(result_write(&back, b, &e), 0);
	size_t la, lb;
	char *ta = slurp(a, &la), *tb = slurp(b, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(ta, tb, la);
	free(ta);
	free(tb);
	result_free(&back);
	unlink(a);
	unlink(b);
}

static void test_roundtrip_fixed(void **state)
{
	struct result r;
	build_fixed(&r);
	roundtrip(&r);
	result_free(&r);
}

static void test_roundtrip_random(void **state)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct result r;
		build_random(&r, seed);
		roundtrip_files(&r, true);
		result_free(&r);
	}
}

/* Names and texts with control characters (a hostile result file) read back escaped, as
 * err.c shows them: report --format text and compare never print them raw. */
static void test_control_characters_escaped(void **state)
{
	struct result r, back;
	struct err e = {0};
	char p[256];
	build_fixed(&r);
	snprintf(r.threads[0].name, sizeof(r.threads[0].name), "a\x1b]0;x\x07" "b");
	kvlist_set(&r.settings, "k\x1b[2J", "v\n");
	path_in(p, sizeof(p), "ctl.json");
	assert_int_equal(result_write(&r, p, &e), 0);
	assert_int_equal(result_read(&back, p, &e), 0);
	assert_string_equal(back.threads[0].name, "a\\x1b]0;x\\x07b");
	const char *v = NULL;
	for (int i = 0; i < back.settings.n; i++)
		if (strcmp(back.settings.v[i].key, "k\\x1b[2J") == 0)
			v = back.settings.v[i].value;
	assert_non_null(v);
	assert_string_equal(v, "v\\n");
	unlink(p);
	result_free(&r);
	result_free(&back);
}

static void test_roundtrip_empty(void **state)
{
	struct result r;
	struct err e = {0};
	/* no threads (a watch whose threads never woke up: the one result that may have none), no cmdline */
	assert_int_equal(result_init(&r, "watch", 0, &e), 0);
	roundtrip(&r);
	result_free(&r);
	result_free(&r);   /* idempotent */
	/* any other result without threads is refused when read (compare printed "no values") */
	char a[256];
	struct result back;
	assert_int_equal(result_init(&r, "probe", 0, &e), 0);
	path_in(a, sizeof(a), "empty.json");
	assert_int_equal(result_write(&r, a, &e), 0);
	assert_int_equal(result_read(&back, a, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_non_null(strstr(e.msg, "$.threads: holds no threads"));
	unlink(a);
	result_free(&r);
}

/* The golden file pins the layout byte for byte. IRT_UPDATE_GOLDEN=1 rewrites it. */
static void test_golden(void **state)
{
	const char *top = getenv("IRT_TOP") ? getenv("IRT_TOP") : ".";
	char golden[512], out[256];
	snprintf(golden, sizeof(golden), "%s/tests/golden/result-minimal.json", top);
	struct result r;
	struct err e = {0};
	build_fixed(&r);
	if (getenv("IRT_UPDATE_GOLDEN"))
		assert_int_equal(result_write(&r, golden, &e), 0);
	assert_int_equal(result_write(&r, path_in(out, sizeof(out), "golden.json"), &e), 0);
	size_t lg, lo;
	char *want = slurp(golden, &lg), *got = slurp(out, &lo);
	if (!want)
		fail_msg("%s: missing (run from the source tree, or set IRT_TOP)", golden);
	if (lg != lo || memcmp(want, got, lg) != 0)
		fail_msg("%s differs from what result_write produces now (%s); if the change is intended, "
		         "update docs/result-schema.md and rerun with IRT_UPDATE_GOLDEN=1", golden, out);
	/* the golden file reads back to the same record */
	struct result back;
	assert_int_equal(result_read(&back, golden, &e), 0);
	assert_result_equal(&r, &back);
	result_free(&back);
	result_free(&r);
	free(want);
	free(got);
	unlink(out);
}

static void keys_documented(const json_t *j, const char *doc)
{
	const char *key;
	json_t *v;
	size_t i;
	if (json_is_object(j))
		json_object_foreach((json_t *)j, key, v) {
			char quoted[128];
			snprintf(quoted, sizeof(quoted), "`%s`", key);
			if (!strstr(doc, quoted))
				fail_msg("docs/result-schema.md does not describe the key %s", quoted);
			if (strcmp(key, "settings") != 0)   /* free-form: the option names */
				keys_documented(v, doc);
		}
	if (json_is_array(j))
		json_array_foreach(j, i, v)
			keys_documented(v, doc);
}

/* every key irt writes is described in docs/result-schema.md */
static void test_schema_documented(void **state)
{
	const char *top = getenv("IRT_TOP") ? getenv("IRT_TOP") : ".";
	char path[512];
	snprintf(path, sizeof(path), "%s/docs/result-schema.md", top);
	char *doc = slurp(path, NULL);
	if (!doc)
		fail_msg("%s: missing", path);
	assert_non_null(strstr(doc, "`" RESULT_SCHEMA "`"));
	json_t *j = fixed_tree();
	keys_documented(j, doc);
	json_decref(j);
	/* and the optional sections */
	char p[256];
	struct result r;
	struct err e = {0};
	build_random(&r, 1);
	assert_int_equal(result_write(&r, path_in(p, sizeof(p), "sections.json"), &e), 0);
	result_free(&r);
	json_error_t je;
	j = json_load_file(p, 0, &je);
	assert_non_null(j);
	keys_documented(j, doc);
	json_decref(j);
	unlink(p);
	free(doc);
}

static void test_stdout(void **state)
{
	char a[256], b[256];
	struct result r;
	struct err e = {0};
	build_fixed(&r);
	path_in(a, sizeof(a), "file.json");
	path_in(b, sizeof(b), "stdout.json");
	assert_int_equal(result_write(&r, a, &e), 0);
	fflush(stdout);
	int saved = dup(1);
	FILE *f = fopen(b, "w");
	assert_non_null(f);
	dup2(fileno(f), 1);
	int rc = result_write(&r, "-", &e);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	fclose(f);
	assert_int_equal(rc, 0);
	char *ta = slurp(a, NULL), *tb = slurp(b, NULL);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	unlink(a);
	unlink(b);
	result_free(&r);
}

/* ---- atomic writing ------------------------------------------------------------------------ */

static void test_atomic_replace(void **state)
{
	char p[256], names[1024];
	struct result r;
	struct err e = {0};
	build_fixed(&r);
	path_in(p, sizeof(p), "out.json");
	spit(p, "old content\n");
	assert_int_equal(result_write(&r, p, &e), 0);
	listing(names, sizeof(names));
	assert_string_equal(names, "out.json");   /* no temp file left */
	char *t = slurp(p, NULL);
	assert_non_null(strstr(t, "\"schema\": \"irt-result/1\""));
	free(t);
	/* a symbolic link planted under the old predictable temporary name is neither followed
	 * nor an obstacle: the temporary name is unpredictable and created with O_EXCL */
	char planted[300], victim[300];
	snprintf(planted, sizeof(planted), "%s.tmp.%ld", p, (long)getpid());
	path_in(victim, sizeof(victim), "victim");
	spit(victim, "victim\n");
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(result_write(&r, p, &e), 0);
	t = slurp(victim, NULL);
	assert_string_equal(t, "victim\n");
	free(t);
	unlink(planted);
	unlink(victim);
	listing(names, sizeof(names));
	assert_string_equal(names, "out.json");
	unlink(p);
	result_free(&r);
}

static void test_write_failures(void **state)
{
	char p[256], names[1024];
	struct result r;
	struct err e = {0};
	build_fixed(&r);

	/* the directory does not exist */
	path_in(p, sizeof(p), "no/such/dir/out.json");
	assert_int_equal(result_write(&r, p, &e), -1);
	assert_int_equal(e.code, EXIT_RUNTIME);
	assert_non_null(strstr(e.msg, p));
	assert_non_null(strstr(e.msg, strerror(ENOENT)));
	assert_null(strchr(e.msg, '\n'));

	/* an unwritable directory (root ignores permissions; /proc refuses new files even to root) */
	char ro[200];
	path_in(ro, sizeof(ro), "ro");
	assert_int_equal(mkdir(ro, 0555), 0);
	if (geteuid() == 0)
		snprintf(p, sizeof(p), "/proc/irt-test-%ld.json", (long)getpid());
	else
		snprintf(p, sizeof(p), "%s/out.json", ro);
	err_clear(&e);
	assert_int_equal(result_write(&r, p, &e), -1);
	assert_non_null(strstr(e.msg, p));
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(rmdir(ro), 0);

	/* the target is a directory: refused (a usage error) before any temporary file is made */
	path_in(p, sizeof(p), "adir");
	assert_int_equal(mkdir(p, 0755), 0);
	err_clear(&e);
	assert_int_equal(result_write(&r, p, &e), -1);
	assert_int_equal(e.code, EXIT_USAGE);
	char want[512];
	snprintf(want, sizeof(want), "%s: cannot write: it is a directory (expected a file name, '-' for standard output, or /dev/null)", p);
	assert_string_equal(e.msg, want);
	listing(names, sizeof(names));
	assert_string_equal(names, "adir");
	assert_int_equal(rmdir(p), 0);

	/* the disk fills up mid-write (a file size limit): the old file stays as it was */
	path_in(p, sizeof(p), "keep.json");
	spit(p, "precious\n");
	struct rlimit old, small = {100, 100};
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	err_clear(&e);
	int rc = result_write(&r, p, &e);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, prev);
	assert_int_equal(rc, -1);
	snprintf(want, sizeof(want), "%s: cannot write (%s)", p, strerror(EFBIG));
	assert_string_equal(e.msg, want);
	listing(names, sizeof(names));
	assert_string_equal(names, "keep.json");
	char *t = slurp(p, NULL);
	assert_string_equal(t, "precious\n");
	free(t);
	unlink(p);
	result_free(&r);
}

/* ---- strict reading ------------------------------------------------------------------------ */

/* The fixed record as a jansson tree, to damage one field at a time. */
static json_t *fixed_tree(void)
{
	char p[256];
	struct result r;
	struct err e = {0};
	build_fixed(&r);
	assert_int_equal(result_write(&r, path_in(p, sizeof(p), "tree.json"), &e), 0);
	result_free(&r);
	json_error_t je;
	json_t *j = json_load_file(p, 0, &je);
	assert_non_null(j);
	unlink(p);
	return j;
}

/* Reading text must fail with EXIT_USAGE and one line "FILE<...>: <want...>". */
static void expect_bad_text(const char *text, const char *want)
{
	char p[256];
	struct result r;
	struct err e = {0};
	path_in(p, sizeof(p), "bad.json");
	spit(p, text);
	if (result_read(&r, p, &e) == 0)
		fail_msg("accepted a file that should fail with '%s'", want);
	assert_int_equal(e.code, EXIT_USAGE);
	assert_true(strncmp(e.msg, p, strlen(p)) == 0);   /* names the file first */
	if (!strstr(e.msg, want))
		fail_msg("message '%s' lacks '%s'", e.msg, want);
	assert_null(strchr(e.msg, '\n'));
	assert_int_equal(r.nthreads, 0);   /* nothing half-read is left */
	assert_null(r.threads);
	assert_null(r.cmdline);
	unlink(p);
}

static void expect_bad_tree(json_t *j, const char *want)
{
	char *text = json_dumps(j, JSON_REAL_PRECISION(17));
	expect_bad_text(text, want);
	free(text);
	json_decref(j);
}

/* walks "threads[1].wake" style paths */
static json_t *at(json_t *j, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, ".")) {
		char *br = strchr(tok, '[');
		if (br)
			*br = 0;
		j = json_object_get(j, tok);
		while (br) {
			j = json_array_get(j, (size_t)atoi(br + 1));
			br = strchr(br + 1, '[');
		}
		assert_non_null(j);
	}
	return j;
}

#define SET(path, key, value)                                                                    \
	do {                                                                                     \
		json_t *j_ = fixed_tree();                                                       \
		json_t *o_ = *(path) ? at(j_, path) : j_, *v_ = (value);                         \
		if (v_)                                                                          \
			json_object_set_new(o_, key, v_);                                        \
		else                                                                             \
			json_object_del(o_, key);                                                \
		expect_bad_tree(j_, want);                                                       \
	} while (0)

static void test_bad_syntax(void **state)
{
	char p[256];
	struct result r;
	struct err e = {0};
	build_fixed(&r);
	assert_int_equal(result_write(&r, path_in(p, sizeof(p), "whole.json"), &e), 0);
	result_free(&r);
	size_t len;
	char *text = slurp(p, &len);
	text[len / 2] = 0;   /* truncated */
	expect_bad_text(text, "not valid JSON");
	free(text);
	unlink(p);
	expect_bad_text("", "not valid JSON");
	expect_bad_text("{\"schema\": \"irt-result/1\", \"schema\": \"irt-result/1\"}", "duplicate");
	expect_bad_text("[1, 2]", "$: expected an object");
	expect_bad_text("{}", "$.schema: missing");

	err_clear(&e);
	assert_int_equal(result_read(&r, path_in(p, sizeof(p), "absent.json"), &e), -1);
	assert_non_null(strstr(e.msg, "absent.json: cannot open"));
}

static void test_bad_fields(void **state)
{
	const char *want;
	want = "$.schema: 'irt-result/2' is not irt-result/1";
	SET("", "schema", json_string("irt-result/2"));
	want = "$.schema: expected a string";
	SET("", "schema", json_integer(1));
	want = "$.threads[1].wake.count: expected a non-negative integer";
	SET("threads[1].wake", "count", json_integer(-1));
	want = "$.threads[0].samples: expected a non-negative integer";
	SET("threads[0]", "samples", json_integer(-3));
	want = "$.threads[0].overruns: expected a non-negative integer";
	SET("threads[0]", "overruns", json_real(1.0));
	want = "$.threads[0].wake.count: 9 but the buckets sum to 8";
	SET("threads[0].wake", "count", json_integer(9));
	want = "$.env.hz: expected an integer from 0 to 2147483647";
	SET("env", "hz", json_string("250"));
	want = "$.env.online_cpus: expected an integer from 0";
	SET("env", "online_cpus", json_integer(-1));
	want = "$.env.hostname: longer than 127 characters";
	SET("env", "hostname", json_string("hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh"));
	want = "$.env.root: expected true or false";
	SET("env", "root", json_integer(1));
	want = "$.env: expected an object";
	SET("", "env", json_array());
	want = "$.settings.seed: expected a string";
	SET("settings", "seed", json_integer(1));
	want = "$.threads[1].settings: expected an object";
	SET("threads[1]", "settings", json_string("period=1ms"));
	want = "$.interrupted: expected true or false";
	SET("", "interrupted", json_null());
	want = "$.threads: expected an array";
	SET("", "threads", json_object());
	want = "$.threads[0].timer_slack_ns: expected an integer >= -1";
	SET("threads[0]", "timer_slack_ns", json_integer(-2));
	want = "$.end_ns: before start_ns";
	SET("", "end_ns", json_integer(0));
	want = "$.duration_ns: expected a non-negative integer";
	SET("", "duration_ns", json_integer(-1));
	want = "$.threads[0].wake.min: 1000 is not in the first bucket";
	SET("threads[0].wake", "min", json_integer(1000));
	want = "$.threads[0].wake.max: 1300000 is not in the last bucket";
	SET("threads[0].wake", "max", json_integer(1300000));
	want = "$.threads[0].wake.max: expected an integer from 0 to";
	SET("threads[0].wake", "max", json_integer(HIST_MAX_VALUE + 1));
	want = "$.threads[0].wake.sum: not between count*min and count*max";
	SET("threads[0].wake", "sum", json_integer(1));
	want = "$.threads[0].wake.sumsq: expected a non-negative number";
	SET("threads[0].wake", "sumsq", json_real(-1));
	want = "$.threads[0].wake.saturated: more than count";
	SET("threads[0].wake", "saturated", json_integer(9));
	want = "$.threads[0].wake.saturated: nonzero, so max must be";
	SET("threads[0].wake", "saturated", json_integer(1));
	want = "$.threads[1].resp: an empty histogram must have min, max, sum and sumsq 0";
	SET("threads[1].resp", "sum", json_integer(5));
	want = "$.threads[1].resp.buckets: missing";
	SET("threads[1].resp", "buckets", NULL);
	want = "$.threads[1].tid: missing";
	SET("threads[1]", "tid", NULL);
	want = "$.env.preemption: missing";
	SET("env", "preemption", NULL);

	/* damaged buckets */
	json_t *j;
	want = "$.threads[0].wake.buckets[1]: expected a positive count";
	j = fixed_tree();
	json_array_set_new(json_array_get(at(j, "threads[0].wake.buckets"), 1), 1, json_integer(0));
	expect_bad_tree(j, want);
	want = "$.threads[0].wake.buckets[1]: 1025 is not a bucket lower edge";
	j = fixed_tree();
	json_array_set_new(json_array_get(at(j, "threads[0].wake.buckets"), 1), 0, json_integer(1025));
	expect_bad_tree(j, want);
	want = "$.threads[0].wake.buckets[2]: buckets must be in ascending order";
	j = fixed_tree();
	json_array_set_new(json_array_get(at(j, "threads[0].wake.buckets"), 2), 0, json_integer(50));
	expect_bad_tree(j, want);
	want = "$.threads[0].wake.buckets[0]: expected [lower_edge, count]";
	j = fixed_tree();
	json_array_append_new(json_array_get(at(j, "threads[0].wake.buckets"), 0), json_integer(3));
	expect_bad_tree(j, want);
	want = "$.threads[0].resp.buckets[3]: expected [lower_edge, count]";
	j = fixed_tree();
	json_array_set_new(at(j, "threads[0].resp.buckets"), 3, json_string("x"));
	expect_bad_tree(j, want);
	want = "$.threads[1]: expected an object";
	j = fixed_tree();
	json_array_set_new(at(j, "threads"), 1, json_integer(3));
	expect_bad_tree(j, want);
}

/* Unknown keys anywhere are ignored; derived fields are recomputed, never read. */
static void test_forward_compatible(void **state)
{
	char p[256];
	json_t *j = fixed_tree();
	json_object_set_new(j, "schema_minor", json_integer(3));
	json_object_set_new(j, "future", json_pack("{s:[i,i]}", "x", 1, 2));
	json_object_set_new(at(j, "env"), "numa_nodes", json_integer(1));
	json_object_set_new(at(j, "threads[0]"), "cpu_time_ns", json_integer(5));
	json_object_set_new(at(j, "threads[0].wake"), "p999_ci", json_real(1.5));
	json_object_set_new(at(j, "threads[0].wake.summary"), "p50", json_integer(0));   /* wrong on purpose */
	json_object_set_new(j, "start_utc", json_string("not a date"));
	char *text = json_dumps(j, JSON_REAL_PRECISION(17));
	json_decref(j);
	spit(path_in(p, sizeof(p), "future.json"), text);
	free(text);

	struct result r, fixed;
	struct err e = {0};
	if (result_read(&r, p, &e))
		fail_msg("%s", e.msg);
	build_fixed(&fixed);
	assert_result_equal(&fixed, &r);
	/* and writing it again gives exactly the file irt writes (unknown keys are not kept) */
	char q[256], g[256];
	assert_int_equal(result_write(&r, path_in(q, sizeof(q), "again.json"), &e), 0);
	assert_int_equal(result_write(&fixed, path_in(g, sizeof(g), "fixed.json"), &e), 0);
	char *tq = slurp(q, NULL), *tg = slurp(g, NULL);
	assert_string_equal(tq, tg);
	free(tq);
	free(tg);
	unlink(p);
	unlink(q);
	unlink(g);
	result_free(&r);
	result_free(&fixed);
}

/* Results written before the conditions manifest existed are read (empty manifest); a
 * manifest present is checked like the rest. */
static void test_conditions_optional(void **state)
{
	char p[256];
	json_t *j = fixed_tree();
	json_object_del(j, "conditions");
	json_object_del(j, "conditions_changed");
	char *text = json_dumps(j, JSON_REAL_PRECISION(17));
	json_decref(j);
	spit(path_in(p, sizeof(p), "old.json"), text);
	free(text);
	struct result r;
	struct err e = {0};
	if (result_read(&r, p, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(r.conditions.n, 0);
	assert_int_equal(r.conditions_changed.n, 0);
	assert_int_equal(r.nthreads, 2);
	result_free(&r);
	unlink(p);

	j = fixed_tree();
	json_object_set_new(at(j, "conditions"), "smt", json_integer(1));
	expect_bad_tree(j, "$.conditions.smt: expected a string");
	j = fixed_tree();
	json_object_del(j, "conditions_changed");
	expect_bad_tree(j, "$.conditions_changed: missing");
}

/* ---- smaller pieces ------------------------------------------------------------------------ */

static void test_kvlist(void **state)
{
	struct kvlist l = {0}, c;
	assert_null(kvlist_get(&l, "a"));
	for (int i = 0; i < 50; i++) {
		char k[16], v[16];
		snprintf(k, sizeof(k), "k%d", 49 - i);
		snprintf(v, sizeof(v), "v%d", i);
		kvlist_set(&l, k, v);
	}
	kvlist_set(&l, "k10", "replaced");
	assert_int_equal(l.n, 50);
	assert_string_equal(l.v[0].key, "k49");   /* insertion order */
	assert_string_equal(l.v[39].key, "k10");
	assert_string_equal(kvlist_get(&l, "k10"), "replaced");
	assert_string_equal(kvlist_get(&l, "k0"), "v49");
	kvlist_copy(&c, &l);
	kvlist_set(&l, "k0", "changed");
	assert_string_equal(kvlist_get(&c, "k0"), "v49");   /* a deep copy */
	assert_int_equal(c.n, 50);
	assert_string_equal(c.v[49].key, "k0");
	kvlist_free(&l);
	kvlist_free(&c);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	kvlist_free(&l);
}

static void test_init(void **state)
{
	struct result r;
	struct err e = {0};
	assert_int_equal(result_init(&r, "probe", 3, &e), 0);
	assert_string_equal(r.schema, RESULT_SCHEMA);
	assert_string_equal(r.command, "probe");
	assert_true(r.tool_version[0] != 0);
	assert_int_equal(r.nthreads, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r.threads[i].wake.count, 0);
		assert_int_equal(r.threads[i].wake.min, INT64_MAX);   /* hist_init'ed */
		assert_int_equal(r.threads[i].resp.min, INT64_MAX);
		assert_int_equal(r.threads[i].timer_slack_ns, -1);
		assert_string_equal(r.threads[i].role, "probe");
	}
	result_free(&r);
	assert_int_equal(result_init(&r, "a-command-name-that-is-too-long", 1, &e), -1);
	assert_int_equal(e.code, EXIT_RUNTIME);
	result_free(&r);
	assert_int_equal(result_npercentiles, 5);
	assert_true(result_percentiles[3] == 99.9);
	assert_string_equal(result_percentile_names[4], "p99.99");
}

static void test_utc(void **state)
{
	char buf[64];
	assert_string_equal(result_format_utc(buf, sizeof(buf), 0), "1970-01-01T00:00:00.000000000Z");
	assert_string_equal(result_format_utc(buf, sizeof(buf), -1), "1969-12-31T23:59:59.999999999Z");
	assert_string_equal(result_format_utc(buf, sizeof(buf), INT64_C(1764670000123456789)),
	                    "2025-12-02T10:06:40.123456789Z");
	assert_string_equal(result_format_utc(buf, sizeof(buf), INT64_C(951782400) * 1000000000),
	                    "2000-02-29T00:00:00.000000000Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_fixed),
		cmocka_unit_test(test_roundtrip_random),
		cmocka_unit_test(test_roundtrip_empty),
		cmocka_unit_test(test_control_characters_escaped),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_schema_documented),
		cmocka_unit_test(test_stdout),
		cmocka_unit_test(test_atomic_replace),
		cmocka_unit_test(test_write_failures),
		cmocka_unit_test(test_bad_syntax),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_forward_compatible),
		cmocka_unit_test(test_conditions_optional),
		cmocka_unit_test(test_kvlist),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_utc),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

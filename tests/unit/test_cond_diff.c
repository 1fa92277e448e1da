/* cond_diff.c: which measurement conditions differ between results, and how it is said. */
#include "testutil.h"

#include <string.h>

#include "cond_diff.h"

static void mk(struct result *r, const char *pm, const char *thp, int hz)
{
	struct err e = {0};
	assert_int_equal(result_init(r, "probe", 1, &e), 0);
	strcpy(r->env.preemption, "dynamic (full)");
	strcpy(r->env.clocksource, "tsc");
	r->env.hz = hz;
	if (pm) {
		kvlist_set(&r->conditions, "pm_qos", pm);
		kvlist_set(&r->conditions, "pm_qos.system", strcmp(pm, "not held") ? "0 µs" : "no request (2000000000 µs)");
		kvlist_set(&r->conditions, "thp", thp);
		kvlist_set(&r->conditions, "cpufreq.cur_khz", pm);   /* moves by itself: never compared */
		kvlist_set(&r->conditions, "steal", thp);
	}
}

static int diff(struct result *rs, const char *const *labels, int n, struct strlist *out)
{
	const struct result *p[8];
	for (int i = 0; i < n; i++)
		p[i] = &rs[i];
	memset(out, 0, sizeof(*out));
	return cond_differences(p, labels, n, true, out);
}

static void test_pm_qos_line(void **state)
{
	struct result r[2];
	struct strlist l;
	const char *labels[] = {"A", "B"};
	mk(&r[0], "held at 0 µs", "madvise", 250);
	mk(&r[1], "not held", "madvise", 250);
	assert_int_equal(diff(r, labels, 2, &l), 2);
	assert_string_equal(l.v[0], "conditions differ: PM QoS held at 0 µs in A, not held in B");
	assert_string_equal(l.v[1], "conditions differ: system-wide PM QoS 0 µs in A, no request (2000000000 µs) in B");
	strlist_free(&l);
	/* alike: nothing */
	const char *same[] = {"A", "B"};
	result_free(&r[1]);
	mk(&r[1], "held at 0 µs", "madvise", 250);
	assert_int_equal(diff(r, same, 2, &l), 0);
	strlist_free(&l);
	result_free(&r[0]);
	result_free(&r[1]);
}

/* In a sweep the knob that varies PM QoS is the point, other differences are not. */
static void test_swept_not_flagged(void **state)
{
	struct result r[2];
	struct strlist l;
	const char *labels[] = {"A", "B"};
	mk(&r[0], "not held", "madvise", 250);
	mk(&r[1], "held at 0 µs", "always", 250);
	for (int i = 0; i < 2; i++)
		kvlist_set(&r[i].settings, "cell", i ? "c1" : "c0");
	kvlist_set(&r[0].settings, "knob.pm.dma_latency", "none");
	kvlist_set(&r[1].settings, "knob.pm.dma_latency", "0ns");
	assert_int_equal(diff(r, labels, 2, &l), 1);
	assert_string_equal(l.v[0], "conditions differ: transparent huge pages madvise in A, always in B");
	strlist_free(&l);
	/* the same option-swept */
	kvlist_set(&r[0].settings, "knob.pm.dma_latency", "0ns");
	kvlist_set(&r[0].settings, "pm-qos", "none");
	kvlist_set(&r[1].settings, "pm-qos", "0");
	assert_int_equal(diff(r, labels, 2, &l), 1);
	strlist_free(&l);
	/* machines, each with its sweep: the setting differs between machines, and so it is said */
	const struct result *p[2] = {&r[0], &r[1]};
	memset(&l, 0, sizeof(l));
	assert_int_equal(cond_differences(p, labels, 2, false, &l), 3);
	assert_string_equal(l.v[0], "conditions differ: PM QoS not held in A, held at 0 µs in B");
	strlist_free(&l);
	/* not a sweep (no "cell"): the setting differs, and so it is said */
	kvlist_free(&r[0].settings);
	kvlist_free(&r[1].settings);
	kvlist_set(&r[1].settings, "pm-qos", "0us");
	assert_int_equal(diff(r, labels, 2, &l), 3);
	assert_string_equal(l.v[0], "conditions differ: PM QoS not held in A, held at 0 µs in B");
	strlist_free(&l);
	result_free(&r[0]);
	result_free(&r[1]);
}

/* Older (or simulated) results have no manifest; env conditions still count; repetitions of
 * one cell that differ are named. */
static void test_env_old_and_within(void **state)
{
	struct result r[4];
	struct strlist l;
	const char *labels[] = {"A", "A", "B", "B"};
	mk(&r[0], NULL, NULL, 250);
	mk(&r[1], NULL, NULL, 250);
	mk(&r[2], "not held", "madvise", 1000);
	mk(&r[3], "held at 0 µs", "madvise", 1000);
	assert_int_equal(diff(r, labels, 4, &l), 3);
	assert_string_equal(l.v[0], "conditions differ: PM QoS not held in B, held at 0 µs in B (varies within B)");
	assert_string_equal(l.v[2], "conditions differ: HZ 250 in A, 1000 in B");
	strlist_free(&l);
	char s[512];
	cond_summary(&r[0], s, sizeof(s));
	assert_string_equal(s, "");
	kvlist_set(&r[3].conditions, "cpuidle.driver", "haltpoll");
	kvlist_set(&r[3].conditions, "cpuidle.governor", "menu");
	kvlist_set(&r[3].conditions_changed, "pm_qos.system", "0 µs -> 5 µs");
	cond_summary(&r[3], s, sizeof(s));
	assert_string_equal(s, "PM QoS held at 0 µs (system-wide: 0 µs); cpuidle haltpoll, governor menu; "
	                       "changed during the run: pm_qos.system");
	assert_string_equal(cond_label("pm_qos"), "PM QoS");
	assert_null(cond_label("steal"));
	for (int i = 0; i < 4; i++)
		result_free(&r[i]);
}

/* The probes' rule for passed releases samples different tails: named unless it is swept;
 * results from before --overrun caught up; simulated ones take no part. */
static void test_overrun_rule(void **state)
{
	struct result r[3];
	struct strlist l;
	const char *labels[] = {"A", "B", "C"};
	for (int i = 0; i < 3; i++)
		mk(&r[i], "not held", "madvise", 250);
	kvlist_set(&r[1].threads[0].settings, "overrun", "skip");
	strcpy(r[2].threads[0].role, "sim");
	kvlist_set(&r[2].threads[0].settings, "overrun", "skip");
	assert_int_equal(diff(r, labels, 3, &l), 1);
	assert_string_equal(l.v[0], "conditions differ: passed releases catch-up in A, skip in B");
	strlist_free(&l);
	kvlist_set(&r[0].threads[0].settings, "overrun", "skip");
	assert_int_equal(diff(r, labels, 2, &l), 0);
	strlist_free(&l);
	/* swept: the intended difference */
	kvlist_set(&r[0].threads[0].settings, "overrun", "catch-up");
	kvlist_set(&r[0].settings, "cell", "c0");
	kvlist_set(&r[1].settings, "cell", "c1");
	assert_int_equal(diff(r, labels, 2, &l), 0);
	strlist_free(&l);
	for (int i = 0; i < 3; i++)
		result_free(&r[i]);
}

/* How the probes' memory was kept resident (memory_lock): an unprivileged run measured
 * unlocked is named beside a locked one; results that do not record it take no part. */
static void test_memory_lock(void **state)
{
	struct result r[3];
	struct strlist l;
	const char *labels[] = {"A", "B", "C"};
	for (int i = 0; i < 3; i++)
		mk(&r[i], "not held", "madvise", 250);
	strcpy(r[0].memory_lock, "all");
	strcpy(r[1].memory_lock, "none-rlimit");
	assert_int_equal(diff(r, labels, 3, &l), 1);
	assert_string_equal(l.v[0], "conditions differ: memory lock all in A, none-rlimit in B");
	strlist_free(&l);
	strcpy(r[1].memory_lock, "all");
	assert_int_equal(diff(r, labels, 3, &l), 0);
	strlist_free(&l);
	for (int i = 0; i < 3; i++)
		result_free(&r[i]);
}

/* A value irt could not read (unprivileged: /dev/cpu_dma_latency) is unknown, not different:
 * said once as such, and not at all when every result's is unknown. */
static void test_unknown_not_different(void **state)
{
	struct result r[3];
	struct strlist l;
	const char *labels[] = {"A", "B", "C"};
	const char *unread = "unreadable: cannot read /dev/cpu_dma_latency: Permission denied (needs root)";
	for (int i = 0; i < 3; i++)
		mk(&r[i], "not held", "madvise", 250);
	kvlist_set(&r[0].conditions, "pm_qos.system", unread);
	assert_int_equal(diff(r, labels, 2, &l), 1);
	assert_string_equal(l.v[0], "conditions unknown: system-wide PM QoS unreadable: cannot read /dev/cpu_dma_latency: "
	                            "Permission denied (needs root) in A, no request (2000000000 µs) in B: the comparison "
	                            "cannot rule out a difference");
	strlist_free(&l);
	/* runs of one cell: the unknown one does not make it vary */
	const char *same[] = {"A", "A"};
	assert_int_equal(diff(r, same, 2, &l), 1);
	assert_non_null(strstr(l.v[0], "conditions unknown: system-wide PM QoS unreadable"));
	assert_null(strstr(l.v[0], "varies"));
	strlist_free(&l);
	/* unknown everywhere: nothing to say; HZ not recorded ("unknown") likewise */
	kvlist_set(&r[1].conditions, "pm_qos.system", unread);
	r[1].env.hz = 0;
	assert_int_equal(diff(r, labels, 2, &l), 1);
	assert_string_equal(l.v[0], "conditions unknown: HZ unknown in B, 250 in A: the comparison cannot rule out a difference");
	strlist_free(&l);
	/* two known values differ; the unknown one is named as such */
	kvlist_set(&r[2].conditions, "pm_qos.system", "0 µs");
	kvlist_set(&r[1].conditions, "pm_qos.system", "no request (2000000000 µs)");
	assert_int_equal(diff(r, labels, 3, &l), 2);
	assert_string_equal(l.v[0], "conditions differ: system-wide PM QoS no request (2000000000 µs) in B, 0 µs in C "
	                            "(unknown in A)");
	strlist_free(&l);
	for (int i = 0; i < 3; i++)
		result_free(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pm_qos_line),
		cmocka_unit_test(test_swept_not_flagged),
		cmocka_unit_test(test_memory_lock),
		cmocka_unit_test(test_env_old_and_within),
		cmocka_unit_test(test_overrun_rule),
		cmocka_unit_test(test_unknown_not_different),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

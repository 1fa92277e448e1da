/* The examples in examples/sim/ run and show what docs/sim.md says they show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "result.h"
#include "sim/sim.h"
#include "sim/workload.h"

#define S 1000000000LL

static void load(struct workload *w, const char *path)
{
	struct err e = {0};
	if (workload_load(path, w, &e) || workload_check(w, &e))
		fail_msg("%s", e.msg);
}

static long find_cell(const struct workload *w, const char *label)
{
	char buf[256];
	for (long i = 0; i < workload_cells(w); i++) {
		workload_cell_label(w, i, buf, sizeof(buf));
		if (strcmp(buf, label) == 0)
			return i;
	}
	fail_msg("no cell '%s'", label);
	return -1;
}

static void run_cell(const struct workload *w, long cell, struct result *r)
{
	struct err e = {0};
	if (sim_run_cell(w, cell, r, NULL, NULL, &e))
		fail_msg("%s", e.msg);
}

static const struct result_thread *thread(const struct result *r, const char *name)
{
	for (int i = 0; i < r->nthreads; i++)
		if (strcmp(r->threads[i].name, name) == 0)
			return &r->threads[i];
	fail_msg("no thread %s", name);
	return NULL;
}

static double share(const struct result *r, const char *name)
{
	return (double)thread(r, name)->sim_share_ppm / 10000.0;
}

/* Genode cpu_quota-style counters: claim + an equal part of the unclaimed 10 %, within 1 %. */
static void test_cpu_quota(void **state)
{
	(void)state;
	struct workload w;
	struct result r;
	load(&w, "examples/sim/cpu_quota.ini");
	run_cell(&w, 0, &r);
	const char *names[] = {"c10", "c80", "be"};
	double want[] = {10 + 10.0 / 3, 80 + 10.0 / 3, 10.0 / 3};
	for (int i = 0; i < 3; i++) {
		double got = share(&r, names[i]);
		if (got < want[i] * 0.99 || got > want[i] * 1.01)
			fail_msg("%s: %.3f%%, claim + fill arithmetic says %.3f%%", names[i], got, want[i]);
	}
	result_free(&r);
	workload_free(&w);
}

static int64_t boot(const struct workload *w, const char *label, bool *timer_ok)
{
	struct result r;
	run_cell(w, find_cell(w, label), &r);
	const struct result_thread *vm = thread(&r, "vm"), *timer = thread(&r, "timer");
	*timer_ok = timer->sim_windows > 0 && timer->sim_windows_ok == timer->sim_windows &&
	            timer->sim_activations_min >= 19;
	int64_t t = vm->sim_completion_ns < 0 ? INT64_MAX : vm->sim_completion_ns;
	result_free(&r);
	return t;
}

/* The seed's observations: applying the VM's quota shortens the boot a lot; a 100 ms super
 * period with a 1 ms slice boots faster than 1 s with 10 ms; the slice is what matters; the
 * timer driver, having quota, gets its 19 activations in every super period throughout. */
static void test_vm_boot(void **state)
{
	(void)state;
	struct workload w;
	bool ok[4];
	load(&w, "examples/sim/vm_boot.ini");
	assert_int_equal(workload_cells(&w), 8);
	int64_t slow = boot(&w, "super-period=1s fill=10ms vm.quota=40%", &ok[0]);
	int64_t noquota = boot(&w, "super-period=1s fill=10ms vm.quota=0", &ok[1]);
	int64_t fast = boot(&w, "super-period=100ms fill=1ms vm.quota=40%", &ok[2]);
	int64_t slice = boot(&w, "super-period=1s fill=1ms vm.quota=40%", &ok[3]);
	for (int i = 0; i < 4; i++)
		assert_true(ok[i]);
	assert_true(slow < 60 * S);
	assert_true(noquota == INT64_MAX || noquota > 2 * slow);
	assert_true(fast < slow);
	assert_true(slice < slow);
	workload_free(&w);
}

/* The protected interactive thread meets its deadlines under every policy (cfsbw: all but
 * one at the start, when every hog is still owed its first slice); the plain one
 * misses two in three under hwquota, rr and edf (it waits behind 10 ms slices); the hogs
 * share what is left equally (cfsbw: capped at 80 ms per 100 ms together). */
static void test_interactive(void **state)
{
	(void)state;
	struct workload w;
	load(&w, "examples/sim/interactive.ini");
	assert_int_equal(workload_cells(&w), 6);
	for (long c = 0; c < 6; c++) {
		struct result r;
		char label[64];
		run_cell(&w, c, &r);
		workload_cell_label(&w, c, label, sizeof(label));
		const struct result_thread *ui = thread(&r, "ui"), *plain = thread(&r, "plain");
		if (ui->deadlines_missed > (strstr(label, "cfsbw") ? 1u : 0u))
			fail_msg("%s: ui missed %llu deadlines", label, (unsigned long long)ui->deadlines_missed);
		assert_int_equal(ui->samples, 2000);
		bool starved = strstr(label, "hwquota") || strstr(label, "=rr") || strstr(label, "edf");
		double met = 100.0 * (double)plain->deadlines_met / (double)(plain->deadlines_met + plain->deadlines_missed);
		if (starved && met > 40)
			fail_msg("%s: plain met %.1f%% of its deadlines", label, met);
		if (!starved && met < 75)
			fail_msg("%s: plain met only %.1f%% of its deadlines", label, met);
		double h1 = share(&r, "hog1"), h2 = share(&r, "hog2"), h3 = share(&r, "hog3");
		if (h1 - h2 > 0.5 || h2 - h1 > 0.5 || h1 - h3 > 0.5 || h3 - h1 > 0.5)
			fail_msg("%s: hogs got %.2f %.2f %.2f%%", label, h1, h2, h3);
		if (strstr(label, "cfsbw") && (h1 + h2 + h3 < 79.5 || h1 + h2 + h3 > 80.5))
			fail_msg("%s: hogs got %.2f%% together, their group's bandwidth is 80%%", label, h1 + h2 + h3);
		result_free(&r);
	}
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_quota),
		cmocka_unit_test(test_vm_boot),
		cmocka_unit_test(test_interactive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

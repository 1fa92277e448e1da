/* A probe session's end wakes the thread waiting for it (sig_wait_stop, as irt probe and irt
 * run wait): what that thread does at the end (irt run's accounting snapshot) follows the
 * probes' last wake-up, not its next periodic look. The waits here are 60 s: woken by the
 * end, the session is over in milliseconds; not woken, each wait runs its whole 60 s, so the
 * 30 s bound tells the two apart on any machine. */
#include "testutil.h"

#include <string.h>
#include <unistd.h>

#include "config.h"
#include "linux/probe.h"
#include "linux/signals.h"
#include "opt.h"
#include "result.h"
#include "units.h"

#define WAIT_NS (60 * NSEC_PER_SEC)

static struct probe_cfg cfg(const char *period, const char *count)
{
	struct probe_cfg c;
	memset(&c, 0, sizeof(c));
	opt_defaults(SCOPE_PROBE, &c);
	struct err e = {0};
	assert_int_equal(opt_set(opt_find("period"), &c, period, "--period", &e), 0);
	assert_int_equal(opt_set(opt_find("count"), &c, count, "--count", &e), 0);
	snprintf(c.name, sizeof(c.name), "p");
	c.threads = 2;
	return c;
}

/* Runs a session of c to its end, waiting as irt does (or, look false, looking every ms);
 * returns how long that took. */
static int64_t run_to_end(const struct probe_cfg *c, struct result *r, bool look)
{
	struct err e = {0};
	assert_int_equal(result_init(r, "probe", 2, &e), 0);
	struct probe_session *s;
	struct probe_opts o = {.seed = 1};
	assert_int_equal(probe_start(&s, c, 1, &o, r, &e), 0);
	int64_t t = mono_ns();
	while (!probe_done(s)) {
		if (look)
			assert_int_equal(sig_wait_stop(WAIT_NS), 0);   /* the end is no stop signal */
		else
			usleep(1000);
	}
	t = mono_ns() - t;
	assert_int_equal(probe_finish(s, r, &e), 0);
	return t;
}

/* --stop-above: the first wake-up ends a session of 10 s; the end wakes the waiter */
static void test_stop_wakes_the_waiter(void **state)
{
	(void)state;
	struct probe_cfg c = cfg("2ms", "5000");
	c.stop_above = 1;
	struct result r;
	int64_t waited = run_to_end(&c, &r, true);
	assert_non_null(result_stopper(&r));
	assert_true(waited < WAIT_NS / 2);
	result_free(&r);
}

/* a session that runs to its count wakes it the same way */
static void test_end_wakes_the_waiter(void **state)
{
	(void)state;
	struct probe_cfg c = cfg("1ms", "300");
	struct result r;
	int64_t waited = run_to_end(&c, &r, true);
	assert_int_equal(r.threads[0].samples, 300);
	assert_true(waited < WAIT_NS / 2);
	result_free(&r);
}

/* a thread that does not block SIG_LOOK is never sent it (its default action ends the process) */
static void test_look_only_when_blocked(void **state)
{
	(void)state;
	assert_true(sig_look_blocked());
	sigset_t look, old;
	sigemptyset(&look);
	sigaddset(&look, SIG_LOOK);
	pthread_sigmask(SIG_UNBLOCK, &look, &old);
	assert_false(sig_look_blocked());
	struct probe_cfg c = cfg("1ms", "20");
	struct result r;
	run_to_end(&c, &r, false);   /* still here: nothing was sent */
	assert_int_equal(r.threads[0].samples, 20);
	result_free(&r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int main(void)
{
	sig_block_stop();   /* as irt probe and irt run do before a session */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_wakes_the_waiter),
		cmocka_unit_test(test_end_wakes_the_waiter),
		cmocka_unit_test(test_look_only_when_blocked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* check.c: the default check's verdict on its setting and its busy-machine note, fed numbers. */
#include "testutil.h"

#include <string.h>

#include "cmd.h"

static void test_effect(void **state)
{
	(void)state;
	assert_int_equal(check_effect(19300000, 3430000), VERDICT_BETTER);
	assert_int_equal(check_effect(19300000, 80400000), VERDICT_WORSE);   /* was "brings it to 80.4ms" */
	assert_int_equal(check_effect(8200000, 8210000), VERDICT_SAME);      /* was "brings it to 8.21ms" */
	assert_int_equal(check_effect(0, 0), VERDICT_SAME);
	assert_int_equal(check_effect(1000, 1000 * CHECK_CLEAR_RATIO), VERDICT_SAME);
}

static void test_noisy_any_run(void **state)
{
	(void)state;
	struct result rs[4];
	memset(rs, 0, sizeof(rs));
	assert_int_equal(check_noisy(rs, 4), -1);
	rs[2].context.noisy = true;   /* the better-setting run: the note used to look at runs 0 and 1 only */
	assert_int_equal(check_noisy(rs, 4), 2);
	assert_int_equal(check_noisy(rs, 2), -1);
	rs[3].context.noisy = true;
	assert_int_equal(check_noisy(rs, 4), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_effect),
		cmocka_unit_test(test_noisy_any_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

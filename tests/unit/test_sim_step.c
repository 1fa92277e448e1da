/* Golden step scripts: every tests/sim/step/NAME.step runs through the step interpreter and
 * its output, exit code and error message must equal NAME.out byte for byte. The expectations
 * written inside the scripts are checked by the interpreter itself (a failing one exits 1).
 * IRT_UPDATE_GOLDEN=1 rewrites the .out files (review the diff before committing). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/step.h"

#define DIR_STEP "tests/sim/step"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = 0;
	fclose(f);
	return s;
}

static char *run_script(const char *path)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	struct err e = {0};
	int rc = step_run(path, m, &e);
	fprintf(m, "exit: %d\n", rc);
	if (rc)
		fprintf(m, "error: %s\n", e.msg);
	fclose(m);
	return out;
}

static void test_golden(void **state)
{
	(void)state;
	DIR *d = opendir(DIR_STEP);
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	bool update = getenv("IRT_UPDATE_GOLDEN") != NULL;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".step") != 0)
			continue;
		char path[512], gold[512];
		snprintf(path, sizeof(path), "%s/%s", DIR_STEP, de->d_name);
		snprintf(gold, sizeof(gold), "%s/%.*s.out", DIR_STEP, (int)(l - 5), de->d_name);
		char *got = run_script(path);
		if (update) {
			FILE *f = fopen(gold, "w");
			fputs(got, f);
			fclose(f);
		}
		char *want = slurp(gold);
		if (!want || strcmp(got, want) != 0)
			fail_msg("%s: output differs from %s:\n%s", path, gold, got);
		/* a script named *_fails or bad_* must fail; every other one must pass */
		bool must_fail = strstr(de->d_name, "_fails") || strncmp(de->d_name, "bad_", 4) == 0 ||
		                 strstr(de->d_name, "destroy_head");
		if (must_fail != (strstr(got, "exit: 0\n") == NULL))
			fail_msg("%s: exit status not as its name says:\n%s", path, got);
		free(got);
		free(want);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct err e = {0};
	assert_int_equal(step_run(DIR_STEP "/no-such.step", stdout, &e), 2);
	assert_non_null(strstr(e.msg, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

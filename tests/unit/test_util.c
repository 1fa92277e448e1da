/* util.c: the CPU-list parser against a simple reference (property test), sysroot paths that
 * refuse to truncate, growable arrays, allocation failure as one line and an abort, and text
 * columns (display widths of UTF-8, padding and cutting by them), and a stdout that keeps why
 * its write failed. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- CPU lists ----------------------------------------------------------------------------- */

/* The rule written the slow, obvious way: split at ',', each item is digits or digits-digits,
 * first <= last < CPU_SETSIZE. */
static int ref_cpulist(const char *list, unsigned char *cpus)
{
	memset(cpus, 0, CPU_SETSIZE);
	char buf[512];
	if (strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	size_t n = strlen(buf);
	if (n == 0 || buf[n - 1] == ',')
		return -1;
	char *save = NULL;
	int items = 0;
	for (char *item = buf; ; item = NULL) {
		char *tok = strtok_r(item, ",", &save);
		if (!tok)
			break;
		items++;
		/* strtok_r swallows empty items: count commas instead, below */
		char *dash = strchr(tok, '-');
		if (dash)
			*dash = 0;
		const char *parts[2] = {tok, dash ? dash + 1 : tok};
		unsigned long v[2];
		for (int k = 0; k < 2; k++) {
			size_t len = strlen(parts[k]);
			if (len == 0 || strspn(parts[k], "0123456789") != len)
				return -1;
			v[k] = 0;
			for (size_t i = 0; i < len; i++) {
				v[k] = v[k] * 10 + (unsigned long)(parts[k][i] - '0');
				if (v[k] >= CPU_SETSIZE)
					return -1;
			}
		}
		if (v[0] > v[1])
			return -1;
		for (unsigned long c = v[0]; c <= v[1]; c++)
			cpus[c] = 1;
	}
	int commas = 0;
	for (const char *p = list; *p; p++)
		commas += *p == ',';
	return items == commas + 1 ? 0 : -1;
}

static void check_one(const char *list)
{
	unsigned char want[CPU_SETSIZE];
	cpu_set_t got;
	int r = ref_cpulist(list, want), c = cpulist_parse(list, &got);
	if (r != c)
		fail_msg("cpulist_parse(\"%s\") = %d, reference %d", list, c, r);
	assert_int_equal(cpulist_parse(list, NULL), c);   /* validating alone agrees */
	if (c == 0)
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (!CPU_ISSET(i, &got) != !want[i])
				fail_msg("cpulist_parse(\"%s\"): CPU %d differs", list, i);
}

static void test_cpulist_examples(void **state)
{
	static const char *const good[] = {"0", "0-3", "0,2-3", "1023", "0-1023", "5-5", "007", "3,1", "1,1"};
	static const char *const bad[] = {"", ",", "1,", ",1", "1,,2", "-1", "1-", "3-1", "1024", "0-1024",
	                                  "1 ", " 1", "a", "1-2-3", "99999999999999999999", "1;2", "0x1"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(cpulist_parse(good[i], NULL), 0);
		check_one(good[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cpulist_parse(bad[i], NULL), -1);
		check_one(bad[i]);
	}
	/* errno tells a CPU beyond a cpu_set_t from a malformed list */
	static const char *const range[] = {"1024", "0-1024", "1,99999999999999999999", "5-2000"};
	static const char *const form[] = {"", "3-1", "1,x", "x", "-"};
	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		errno = 0;
		assert_int_equal(cpulist_parse(range[i], NULL), -1);
		assert_int_equal(errno, ERANGE);
	}
	for (size_t i = 0; i < sizeof(form) / sizeof(form[0]); i++) {
		errno = 0;
		assert_int_equal(cpulist_parse(form[i], NULL), -1);
		assert_int_equal(errno, EINVAL);
	}
	cpu_set_t s;
	assert_int_equal(cpulist_parse("0,2-3,1023", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 4);
	assert_true(CPU_ISSET(0, &s) && CPU_ISSET(2, &s) && CPU_ISSET(3, &s) && CPU_ISSET(1023, &s));
}

/* Random strings over the list alphabet, biased towards well-formed lists. */
static void test_cpulist_property(void **state)
{
	uint64_t seed = 10;
	static const char alphabet[] = "0123456789,-x ";
	char buf[64];
	for (int k = 0; k < 200000; k++) {
		size_t n = 0;
		if (rnd_next(&seed) % 2) {
			int items = (int)rnd_range(&seed, 1, 5);
			for (int i = 0; i < items && n < sizeof(buf) - 24; i++) {
				long a = rnd_range(&seed, 0, 1100), b = a + rnd_range(&seed, -3, 40);
				n += (size_t)(rnd_next(&seed) % 3 ? snprintf(buf + n, sizeof(buf) - n, "%s%ld", i ? "," : "", a)
				                                  : snprintf(buf + n, sizeof(buf) - n, "%s%ld-%ld", i ? "," : "", a, b));
			}
			if (rnd_next(&seed) % 8 == 0 && n)   /* one random character replaced */
				buf[rnd_next(&seed) % n] = alphabet[rnd_next(&seed) % (sizeof(alphabet) - 1)];
		} else {
			n = (size_t)rnd_range(&seed, 0, 12);
			for (size_t i = 0; i < n; i++)
				buf[i] = alphabet[rnd_next(&seed) % (sizeof(alphabet) - 1)];
		}
		buf[n] = 0;
		check_one(buf);
	}
}

/* ---- sysroot paths ------------------------------------------------------------------------- */

static void test_sysroot_path(void **state)
{
	char buf[32];
	unsetenv("IRT_SYSROOT");
	assert_string_equal(sysroot(), "");
	assert_int_equal(sysroot_path(buf, sizeof(buf), "/proc/%d/stat", 12), 0);
	assert_string_equal(buf, "/proc/12/stat");

	setenv("IRT_SYSROOT", "/tmp/fake", 1);
	assert_int_equal(sysroot_path(buf, sizeof(buf), "/proc/meminfo"), 0);
	assert_string_equal(buf, "/tmp/fake/proc/meminfo");

	/* exactly fitting (31 characters + NUL) works; one more is refused, not cut */
	assert_int_equal(sysroot_path(buf, sizeof(buf), "/%s", "abcdefghijklmnopqrstu"), 0);
	assert_int_equal(strlen(buf), 31);
	errno = 0;
	assert_int_equal(sysroot_path(buf, sizeof(buf), "/%s", "abcdefghijklmnopqrstuv"), -1);
	assert_int_equal(errno, ENAMETOOLONG);

	/* a sysroot that alone does not fit */
	setenv("IRT_SYSROOT", "/a/very/long/sysroot/that/does/not/fit", 1);
	errno = 0;
	assert_int_equal(sysroot_path(buf, sizeof(buf), "/proc"), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	unsetenv("IRT_SYSROOT");
}

/* ---- arrays and allocation ----------------------------------------------------------------- */

static void test_array_grow(void **state)
{
	int *v = NULL, n = 0, cap = 0;
	for (int i = 0; i < 100000; i++) {
		ARRAY_GROW(v, n + 1, cap);
		assert_true(cap >= n + 1);
		v[n++] = i;
	}
	for (int i = 0; i < n; i++)
		assert_int_equal(v[i], i);
	assert_true(cap < 2 * n);   /* doubling, not one-by-one, and not wildly more */
	free(v);

	char **s = NULL;
	size_t ns = 0, scap = 0;
	ARRAY_GROW(s, 3, scap);   /* a size_t capacity, several at once */
	assert_true(scap >= 3);
	s[ns++] = xstrdup("a");
	ARRAY_GROW(s, ns + 0, scap);   /* no growth needed: nothing changes */
	assert_string_equal(s[0], "a");
	free(s[0]);
	free(s);

	assert_int_equal(array_next_cap(0, 1), 8);
	assert_int_equal(array_next_cap(8, 9), 16);
	assert_int_equal(array_next_cap(16, 100), 128);
}

static void test_alloc(void **state)
{
	int *z = xcalloc(100, sizeof(*z));
	for (int i = 0; i < 100; i++)
		assert_int_equal(z[i], 0);
	z = xreallocarray(z, 1000, sizeof(*z));
	z[999] = 7;
	free(z);
	free(xmalloc(0));   /* zero-size requests still return memory */
	char *d = xstrdup("hello");
	assert_string_equal(d, "hello");
	free(d);
}

/* Out of memory: exactly one line on stderr, then SIGABRT. */
static void test_out_of_memory(void **state)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		signal(SIGABRT, SIG_DFL);
		xreallocarray(NULL, SIZE_MAX / 2, 4);   /* overflows: refused before asking malloc */
		_exit(0);
	}
	close(fds[1]);
	char out[512];
	size_t n = 0;
	ssize_t got;
	while ((got = read(fds[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)got;
	out[n] = 0;
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_true(strncmp(out, "irt: out of memory (", 20) == 0);
	assert_non_null(strchr(out, '\n'));
	assert_int_equal(strchr(out, '\n')[1], 0);   /* one line */
}

static void test_clock(void **state)
{
	int64_t a = mono_ns(), b = clock_ns(CLOCK_MONOTONIC), c = mono_ns();
	assert_true(a > 0 && a <= b && b <= c);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t d = mono_ns();
	assert_true((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec <= d);
	assert_true(clock_ns(CLOCK_THREAD_CPUTIME_ID) > 0);
}

/* ---- text columns ---- */

/* Whether the C.UTF-8 locale exists (wide characters need it); without it they count one. */
static bool have_utf8(void)
{
	locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (l)
		freelocale(l);
	return l != (locale_t)0;
}

static void test_text_width(void **state)
{
	assert_int_equal(text_width(""), 0);
	assert_int_equal(text_width("probe-1"), 7);
	assert_int_equal(text_width("ünïcødé"), 7);   /* 11 bytes */
	/* invalid bytes one column each: a lone continuation, a cut 2-byte start, an overlong
	 * '/', a surrogate, a byte never in UTF-8 */
	assert_int_equal(text_width("a\x80" "b"), 3);
	assert_int_equal(text_width("\xc3"), 1);
	assert_int_equal(text_width("\xc0\xaf"), 2);
	assert_int_equal(text_width("\xed\xa0\x80"), 3);
	assert_int_equal(text_width("\xff\xfe"), 2);
	assert_int_equal(text_width("表"), have_utf8() ? 2 : 1);
	assert_int_equal(text_width("e\xcc\x81"), have_utf8() ? 1 : 2);        /* e + combining acute */
}

static void test_text_fit(void **state)
{
	char b[64];
	/* as %-*s and %*s for ASCII */
	assert_string_equal(text_fit(b, sizeof(b), "ab", 5, TEXT_LEFT), "ab   ");
	assert_string_equal(text_fit(b, sizeof(b), "ab", 5, TEXT_RIGHT), "   ab");
	assert_string_equal(text_fit(b, sizeof(b), "abcdef", 3, TEXT_LEFT), "abcdef");
	assert_string_equal(text_fit(b, sizeof(b), "abcdef", 3, TEXT_CUT), "abc");
	assert_string_equal(text_fit(b, sizeof(b), "abc", 0, TEXT_LEFT), "abc");
	/* padded by columns, not bytes: ünï (6 bytes, 3 columns) takes 5 columns with 2 spaces */
	assert_string_equal(text_fit(b, sizeof(b), "ünï", 5, TEXT_LEFT), "ünï  ");
	assert_int_equal(text_width(text_fit(b, sizeof(b), "ünï", 5, TEXT_RIGHT)), 5);
	/* cut between characters, never inside one */
	assert_string_equal(text_fit(b, sizeof(b), "üüü", 2, TEXT_CUT), "üü");
	if (have_utf8()) {
		/* 表示 is 4 columns: in 3, only 表 fits, and a space makes up the third column */
		assert_string_equal(text_fit(b, sizeof(b), "表示", 3, TEXT_CUT), "表 ");
		assert_string_equal(text_fit(b, sizeof(b), "表示", 6, TEXT_LEFT),
		                    "表示  ");
	}
	/* an invalid byte is one column and is kept as it is */
	assert_string_equal(text_fit(b, sizeof(b), "\xff", 3, TEXT_LEFT), "\xff  ");
	/* a small buffer ends at a whole character too (then padded as far as it goes) */
	char s[5];
	assert_string_equal(text_fit(s, sizeof(s), "aüü", 10, TEXT_LEFT), "aü ");
	assert_string_equal(text_fit(s, sizeof(s), "ab", 10, TEXT_LEFT), "ab  ");
}

/* ---- standard output ---------------------------------------------------------------------- */

/* A child with fd 1 on fd, stdout_track's stdout, printing text: exits 0 when it was written,
 * else with stdout_errno() (101 if that is 0) */
static int tracked_child(int fd, const char *text)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN);   /* as irt's main: a closed reader is EPIPE, not death */
		dup2(fd, 1);
		if (stdout_track())
			_exit(100);
		fputs(text, stdout);
		if (fflush(stdout) == 0 && !ferror(stdout))
			_exit(0);
		_exit(stdout_errno() ? stdout_errno() : 101);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_stdout_track(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(tracked_child(fds[1], "hello\n"), 0);
	close(fds[1]);
	char buf[16] = "";
	assert_int_equal(read(fds[0], buf, sizeof(buf) - 1), 6);
	assert_string_equal(buf, "hello\n");   /* written whole, through fd 1 */
	close(fds[0]);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);   /* the reader gone */
	assert_int_equal(tracked_child(fds[1], "hello\n"), EPIPE);
	close(fds[1]);
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (full < 0)
		skip();
	assert_int_equal(tracked_child(full, "x"), ENOSPC);
	close(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_examples),
		cmocka_unit_test(test_cpulist_property),
		cmocka_unit_test(test_sysroot_path),
		cmocka_unit_test(test_array_grow),
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_text_width),
		cmocka_unit_test(test_text_fit),
		cmocka_unit_test(test_stdout_track),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

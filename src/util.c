#include "util.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

/* ---- allocation ---- */

void xoom(const char *what)
{
	fprintf(stderr, "irt: out of memory (%s)\n", what);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		xoom("malloc");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		xoom("calloc");
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		xoom("realloc");
	return q;
}

FILE *xmemstream(char **buf, size_t *len)
{
	FILE *m = open_memstream(buf, len);
	if (!m)
		xoom("open_memstream");
	return m;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		xoom("array size overflows");
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		xoom("strdup");
	return d;
}

char *xstrdup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

/* ---- growable arrays ---- */

size_t array_next_cap(size_t cap, size_t need)
{
	size_t c = cap < 8 ? 8 : cap;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			xoom("array capacity overflows");
		c *= 2;
	}
	return c;
}

/* ---- sysroot paths ---- */

const char *sysroot(void)
{
	const char *r = getenv("IRT_SYSROOT");
	return r ? r : "";
}

int sysroot_path(char *buf, size_t len, const char *fmt, ...)
{
	int n = snprintf(buf, len, "%s", sysroot());
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - (size_t)n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* ---- CPU lists ---- */

/* A decimal CPU number at *s, advancing *s; -1 with errno EINVAL unless it starts with a
 * digit, ERANGE unless it is below CPU_SETSIZE. */
static long cpu_number(const char **s)
{
	if (**s < '0' || **s > '9')
		return errno = EINVAL, -1;
	long v = 0;
	for (; **s >= '0' && **s <= '9'; (*s)++)
		if ((v = v * 10 + (**s - '0')) >= CPU_SETSIZE)
			return errno = ERANGE, -1;
	return v;
}

int cpulist_parse(const char *list, cpu_set_t *set)
{
	cpu_set_t local;
	if (!set)
		set = &local;
	CPU_ZERO(set);
	const char *s = list;
	do {
		long a = cpu_number(&s), b = a;
		if (a < 0)
			return -1;
		if (*s == '-') {
			s++;
			if ((b = cpu_number(&s)) < 0)
				return -1;
			if (b < a)
				return errno = EINVAL, -1;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((size_t)c, set);
	} while (*s == ',' && *++s);   /* a trailing ',' reaches the check below as "" */
	if (*s || s[-1] == ',')
		return errno = EINVAL, -1;
	return 0;
}

/* ---- text columns ---- */

/* The next character of s: its length in bytes (1 for a byte that does not start valid
 * UTF-8: a stray continuation, overlong form, surrogate, beyond U+10FFFF, cut short) and its
 * code point in *cp (-1 for such a byte). */
static int utf8_next(const unsigned char *s, int32_t *cp)
{
	int n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
	        : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
	if (n == 0) {
		*cp = -1;
		return 1;
	}
	int32_t c = n == 1 ? s[0] : s[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {   /* includes the terminating NUL */
			*cp = -1;
			return 1;
		}
		c = c << 6 | (s[i] & 0x3f);
	}
	static const int32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000)) {
		*cp = -1;
		return 1;
	}
	*cp = c;
	return n;
}

/* wcwidth needs a UTF-8 LC_CTYPE, and irt never calls setlocale (its output must not follow
 * the user's locale): a private C.UTF-8, made current for the calling thread while measuring. */
static locale_t utf8_loc;

static void utf8_locale_open(void)
{
	utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static locale_t utf8_locale(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, utf8_locale_open);
	return utf8_loc;
}

static int char_width(int32_t cp, locale_t loc)
{
	if (cp < 0x80 || !loc)   /* without the locale: one column per character */
		return 1;
	int w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;   /* unprintable or unassigned: one, as an invalid byte */
}

int text_width(const char *s)
{
	locale_t loc = utf8_locale(), old = loc ? uselocale(loc) : (locale_t)0;
	int w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int32_t cp;
		p += utf8_next(p, &cp);
		w += cp < 0 ? 1 : char_width(cp, loc);
	}
	if (loc)
		uselocale(old);
	return w;
}

char *text_fit(char *buf, size_t len, const char *s, int width, int how)
{
	if (!len)
		return buf;
	locale_t loc = utf8_locale(), old = loc ? uselocale(loc) : (locale_t)0;
	/* the bytes of s to keep (whole characters) and their columns */
	size_t keep = 0;
	int w = 0;
	while (s[keep]) {
		int32_t cp;
		int n = utf8_next((const unsigned char *)s + keep, &cp);
		int cw = cp < 0 ? 1 : char_width(cp, loc);
		if (((how & TEXT_CUT) && w + cw > width) || keep + (size_t)n >= len)
			break;
		keep += (size_t)n;
		w += cw;
	}
	if (loc)
		uselocale(old);
	size_t pad = w < width ? (size_t)(width - w) : 0;
	if (keep + pad >= len)
		pad = len - 1 - keep;
	if (how & TEXT_RIGHT) {
		memset(buf, ' ', pad);
		memmove(buf + pad, s, keep);
	} else {
		memmove(buf, s, keep);
		memset(buf + keep, ' ', pad);
	}
	buf[keep + pad] = 0;
	return buf;
}

/* ---- standard output ---- */

static int stdout_first_errno;

/* stdio's write for stdout: all of buf to fd 1, or the bytes written before a write failed
 * (fewer than n: glibc then sets ferror), with that write's errno kept */
static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!stdout_first_errno)
				stdout_first_errno = w < 0 ? errno : EIO;
			break;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

int stdout_track(void)
{
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = stdout_write});
	if (!f)
		return -1;
	if (isatty(STDOUT_FILENO))   /* as stdio buffers a terminal: a line is shown when it is complete */
		setvbuf(f, NULL, _IOLBF, 0);
	stdout = f;
	return 0;
}

int stdout_errno(void)
{
	return stdout_first_errno;
}

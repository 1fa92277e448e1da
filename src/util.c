#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

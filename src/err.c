#include "err.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* Messages are one terminal line, but they quote what users and files gave, which may hold
 * newlines or escape sequences: those are shown escaped ("\n", "\x1b"). */
size_t err_escape(char *out, size_t cap, const char *in)
{
	size_t n = 0;
	if (!cap)
		return 0;
	for (const unsigned char *p = (const unsigned char *)in; *p && n + 1 < cap; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			out[n++] = (char)*p;
			continue;
		}
		char esc[5];
		snprintf(esc, sizeof(esc), *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : "\\x%02x", *p);
		size_t len = strlen(esc);
		if (n + len + 1 > cap)
			break;   /* no room for the escape: the text ends before it */
		memcpy(out + n, esc, len);
		n += len;
	}
	out[n] = 0;
	return n;
}

char *err_escape_dup(const char *s)
{
	size_t cap = 4 * strlen(s) + 1;
	char *d = xmalloc(cap);
	err_escape(d, cap, s);
	return d;
}

bool err_has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

static void one_line(char *msg, size_t cap)
{
	char out[sizeof(((struct err *)0)->msg)];
	if (!err_has_control(msg))
		return;
	size_t n = err_escape(out, cap < sizeof(out) ? cap : sizeof(out), msg);
	memcpy(msg, out, n + 1);
}

int err_vset(struct err *e, int code, const char *fmt, va_list ap)
{
	if (!e || e->code)
		return -1;
	e->code = code;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	one_line(e->msg, sizeof(e->msg));
	return -1;
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, code, fmt, ap);
	va_end(ap);
	return -1;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	char head[128], old[sizeof(e->msg)];
	va_list ap;
	if (!e || !e->code)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%.127s: %.380s", head, old);
	one_line(e->msg, sizeof(e->msg));
}

void err_clear(struct err *e)
{
	e->code = 0;
	e->msg[0] = 0;
}

int err_print(const struct err *e)
{
	fprintf(stderr, "irt: %s\n", e->msg);
	return e->code;
}

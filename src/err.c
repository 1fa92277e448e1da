#include "err.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Messages are one terminal line, but they quote what users and files gave, which may hold
 * newlines or escape sequences: those are shown escaped ("\n", "\x1b"). */
static void one_line(char *msg, size_t cap)
{
	char out[sizeof(((struct err *)0)->msg)];
	size_t n = 0;
	bool changed = false;
	for (const unsigned char *p = (const unsigned char *)msg; *p && n + 1 < sizeof(out) && n + 1 < cap; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			out[n++] = (char)*p;
			continue;
		}
		char esc[5];
		snprintf(esc, sizeof(esc), *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : "\\x%02x", *p);
		size_t len = strlen(esc);
		changed = true;
		if (n + len + 1 > sizeof(out) || n + len + 1 > cap)
			break;   /* no room for the escape: the message ends before it */
		memcpy(out + n, esc, len);
		n += len;
	}
	if (changed) {
		out[n] = 0;
		memcpy(msg, out, n + 1);
	}
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

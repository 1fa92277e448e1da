#include "err.h"

#include <stdio.h>
#include <string.h>

int err_vset(struct err *e, int code, const char *fmt, va_list ap)
{
	if (!e || e->code)
		return -1;
	e->code = code;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
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
	char head[256];
	va_list ap;
	if (!e || !e->code)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	/* "head: old", old truncated to fit (memmove: snprintf of two %s fails -Wformat-truncation) */
	size_t hl = strlen(head), ol = strlen(e->msg);
	if (hl + 2 + ol >= sizeof(e->msg))
		ol = sizeof(e->msg) - 1 - hl - 2;
	memmove(e->msg + hl + 2, e->msg, ol);
	memcpy(e->msg, head, hl);
	e->msg[hl] = ':';
	e->msg[hl + 1] = ' ';
	e->msg[hl + 2 + ol] = 0;
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

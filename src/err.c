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
	char head[128], old[sizeof(e->msg)];
	va_list ap;
	if (!e || !e->code)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%.127s: %.380s", head, old);
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

/* Error reporting: one line, "irt: <where>: <what> (<hint>)", and an exit status. */
#ifndef IRT_ERR_H
#define IRT_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,     /* something failed while running */
	EXIT_USAGE = 2,       /* bad option, bad input file */
	EXIT_INTERRUPTED = 3, /* stopped by a signal; results so far were saved */
	EXIT_UNMET = 4,       /* ran fine, but an --expect was not met (CI gates, git bisect run: "bad") */
};

struct err {
	int code;       /* one of the exit codes above; 0 = no error */
	char msg[512];  /* "<where>: <what> (<hint>)" without the "irt: " prefix */
};

/* Sets e (if not NULL and not already set) and returns -1, so callers can `return err_set(...)`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int err_vset(struct err *e, int code, const char *fmt, va_list ap);
/* Prefixes an existing message with "<where>: ". */
void err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void err_clear(struct err *e);
/* Copies in to out (cap bytes with the NUL) with control characters escaped as "\n", "\t",
 * "\x1b": text from users and files may reach a terminal only this way. Truncates before an
 * escape that does not fit. Returns the length written. */
size_t err_escape(char *out, size_t cap, const char *in);
/* err_escape into a new string (never NULL; out of memory aborts). */
char *err_escape_dup(const char *s);
/* Does s hold a control character (below 0x20, or 0x7f)? */
bool err_has_control(const char *s);
/* Prints "irt: <msg>" on stderr and returns e->code. */
int err_print(const struct err *e);

#endif

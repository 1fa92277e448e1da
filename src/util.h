/* The util layer: small helpers every module may use. It uses nothing of irt's (after
 * rt-tests' src/lib and jq's jv_mem_*), so any room of the house can include it.
 *
 *   allocation   xmalloc, xcalloc, xrealloc, xreallocarray, xstrdup: never NULL; out of
 *                memory prints one line ("irt: out of memory ...") and aborts
 *   arrays       ARRAY_GROW: room for n elements in a (pointer, capacity) pair, doubling
 *   clocks       clock_ns, mono_ns: a clock in int64_t nanoseconds
 *   sysroot      sysroot_path: "$IRT_SYSROOT" + path, refused (never truncated) if too long
 *   CPU lists    cpulist_parse: "0-3,6" into a cpu_set_t
 *   text columns text_width, text_fit: a string's width on a terminal, padded or cut to one
 *   stdout       stdout_track, stdout_errno: why standard output could not be written
 */
#ifndef IRT_UTIL_H
#define IRT_UTIL_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>    /* xmemstream */
#include <string.h>   /* ARRAY_REMOVE */
#include <time.h>

/* ---- allocation ---- */

/* Prints "irt: out of memory (<what>)" on stderr and aborts. */
_Noreturn void xoom(const char *what);
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* realloc to n * size bytes, refusing (as out of memory) a product that overflows */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
/* open_memstream(buf, len), out of memory when it fails */
FILE *xmemstream(char **buf, size_t *len);
/* xstrdup(s), or of "" when s is NULL (readers whose optional strings are NULL) */
char *xstrdup_or_empty(const char *s);

/* ---- growable arrays ---- */

/* The capacity to grow to so that `need` elements fit: double from at least 8. */
size_t array_next_cap(size_t cap, size_t need);
/* Makes room for n elements in p (any pointer type) whose allocated capacity, in elements,
 * is the lvalue cap (any integer type); elements beyond the old capacity are uninitialised. */
#define ARRAY_GROW(p, n, cap)                                                         \
	do {                                                                          \
		if ((size_t)(n) > (size_t)(cap)) {                                     \
			size_t array_cap_ = array_next_cap((size_t)(cap), (size_t)(n)); \
			(p) = xreallocarray((p), array_cap_, sizeof(*(p)));             \
			(cap) = array_cap_;                                            \
		}                                                                     \
	} while (0)

/* Removes element i of the n elements of p (any pointer type), moving the later ones down;
 * the caller lowers its count. */
#define ARRAY_REMOVE(p, i, n) memmove(&(p)[i], &(p)[(i) + 1], sizeof(*(p)) * (size_t)((n) - (i) - 1))

/* ---- clocks ---- */

/* The clock c in nanoseconds (inline: the probe reads it around every wake-up). */
static inline int64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
/* CLOCK_MONOTONIC in nanoseconds: irt's clock for every interval and deadline. */
static inline int64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* ---- sysroot paths ---- */

/* $IRT_SYSROOT (a fake /proc and /sys tree for tests), or "" on the real system. */
const char *sysroot(void);
/* Writes sysroot() followed by the formatted path into buf. Returns 0, or -1 with errno
 * ENAMETOOLONG when it does not fit: a path is never silently truncated. */
int sysroot_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- CPU lists ---- */

/* The one CPU-list rule: comma-separated CPUs "N" or ascending ranges "A-B" of decimal
 * numbers, nothing else (no spaces, no empty items), every CPU below CPU_SETSIZE (1024, the
 * size of a cpu_set_t). Whether the CPUs exist is the caller's business. Fills *set (may be
 * NULL to only validate); -1 with errno ERANGE if a CPU is CPU_SETSIZE or more, else EINVAL
 * if the list is malformed. */
int cpulist_parse(const char *list, cpu_set_t *set);

/* ---- text columns ---- */

/* The columns s takes on a terminal: UTF-8 decoded (names are bytes, often UTF-8: "表示" is 4
 * columns in 6 bytes), wide characters 2, combining marks 0, and 1 for each byte that is not
 * part of valid UTF-8 and for each other character. Every text table pads with this, never
 * with printf's byte counts. */
int text_width(const char *s);

enum { TEXT_LEFT = 0, TEXT_RIGHT = 1, TEXT_CUT = 2 };
/* s into buf (len bytes), padded with spaces to `width` columns: after it (TEXT_LEFT, as
 * "%-*s") or before it (TEXT_RIGHT, as "%*s"). A wider s is kept whole, unless TEXT_CUT:
 * then it ends after the last whole character that fits (as "%-*.*s", but never half a
 * character). A buf too small also ends at a whole character. Returns buf. */
char *text_fit(char *buf, size_t len, const char *s, int width, int how);

/* ---- standard output ---- */

/* Replaces stdout with a stream that writes to fd 1 as stdio does (line-buffered on a
 * terminal) but keeps the errno of the first write that failed: stdio sets only ferror(), and
 * errno has changed by the time anyone looks. Call it once, before anything is printed;
 * -1 (stdout unchanged) if the stream cannot be made. */
int stdout_track(void);
/* The errno of stdout's first failed write (EPIPE, ENOSPC), 0 if none failed or untracked. */
int stdout_errno(void);

#endif

/* Helpers shared by acct.c and acct_sys.c; not part of the accounting API. */
#ifndef IRT_ACCT_PRIV_H
#define IRT_ACCT_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Nanoseconds per USER_HZ clock tick, the unit of /proc/stat and /proc/<pid>/stat times. */
int64_t acct_tick_ns(void);
/* Reads a whole (small) file into buf, NUL-terminated; returns its length or -1 (errno set).
 * A file longer than len - 1 is truncated. */
ssize_t acct_slurp(const char *path, char *buf, size_t len);
/* Parses a non-negative decimal integer at *p, advancing *p; -1 when there is none. */
int64_t acct_parse_u(const char **p);

#endif

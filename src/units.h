/* Parsing and printing of the units users type: durations, sizes, percentages.
 * Inside irt, durations are int64_t nanoseconds and sizes int64_t bytes. */
#ifndef IRT_UNITS_H
#define IRT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_USEC 1000LL
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_SEC 1000000000LL

/* "200ms", "0.2s", "1.5min", "3h", "250us", "100ns"; a unit is required except for zero
 * ("0"). Rounded to the nearest ns; surrounding whitespace is ignored.
 * Returns 0, or -1 for a malformed value or overflow. Units: ns us ms s min h. */
int units_parse_duration(const char *s, int64_t *ns);
/* "8M", "64K", "1G", "4KiB", "2MiB", "1GiB", "4096", "4096B". K/M/G and KiB/MiB/GiB are both
 * binary (1024-based), as is customary for memory sizes. */
int units_parse_size(const char *s, int64_t *bytes);
/* "50%", "12.5%", or a fraction "0.5". Result in parts per million (50% = 500000). */
int units_parse_percent(const char *s, int64_t *ppm);
/* A plain integer "12", "-5". */
int units_parse_int(const char *s, int64_t *v);

/* Shortest exact form that units_parse_duration reads back to the same value:
 * 200000000 -> "200ms", 1500 -> "1500ns", 0 -> "0ns". */
char *units_format_duration(char *buf, size_t len, int64_t ns);
/* Human form with 3 significant digits for tables: "1.23ms", "87.4us", "12ns". */
char *units_human_duration(char *buf, size_t len, int64_t ns);
/* Exact form: 8388608 -> "8MiB", 1000 -> "1000B". */
char *units_format_size(char *buf, size_t len, int64_t bytes);
/* Human form with 3 significant digits for measured sizes: 24748535808 -> "23.0GiB",
 * 2149376819 -> "2.00GiB", 512 -> "512B"; a user's own value is printed exact (above). */
char *units_human_size(char *buf, size_t len, int64_t bytes);
/* 500000 -> "50%", 125000 -> "12.5%". */
char *units_format_percent(char *buf, size_t len, int64_t ppm);

#endif

#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	const char *name;
	int64_t mult;
};

static const struct unit duration_units[] = {
	{"ns", 1}, {"us", NSEC_PER_USEC}, {"ms", NSEC_PER_MSEC}, {"s", NSEC_PER_SEC},
	{"min", 60 * NSEC_PER_SEC}, {"h", 3600 * NSEC_PER_SEC}, {NULL, 0},
};

static const struct unit size_units[] = {
	{"", 1}, {"B", 1},
	{"K", 1LL << 10}, {"M", 1LL << 20}, {"G", 1LL << 30}, {"T", 1LL << 40},
	{"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30}, {"TiB", 1LL << 40},
	{"k", 1LL << 10}, {"KB", 1LL << 10}, {"MB", 1LL << 20}, {"GB", 1LL << 30},
	{NULL, 0},
};

/* Splits "12.5ms" into an exact decimal (integer part, fraction digits) and a suffix.
 * Exact arithmetic: "0.2s" must be 200000000 ns, not 199999999. */
struct decimal {
	uint64_t ip;        /* integer part */
	uint64_t frac;      /* fraction digits as integer */
	int fdigits;        /* number of fraction digits */
	const char *suffix;
};

static int parse_decimal(const char *s, struct decimal *d)
{
	memset(d, 0, sizeof(*d));
	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-')
		return -1;   /* no unit irt reads is negative */
	if (*s == '+')
		s++;
	int digits = 0;
	while (isdigit((unsigned char)*s)) {
		if (d->ip > (UINT64_MAX - 9) / 10)
			return -1;
		d->ip = d->ip * 10 + (uint64_t)(*s++ - '0');
		digits++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			if (d->fdigits < 18) {
				d->frac = d->frac * 10 + (uint64_t)(*s - '0');
				d->fdigits++;
			}
			s++;
			digits++;
		}
	}
	if (digits == 0)
		return -1;
	d->suffix = s;
	return 0;
}

/* value = decimal * mult, exactly, rounded to nearest; -1 on overflow */
static int scale(const struct decimal *d, int64_t mult, int64_t *out)
{
	__int128 v = (__int128)d->ip * mult;
	__int128 p10 = 1;
	for (int i = 0; i < d->fdigits; i++)
		p10 *= 10;
	v += ((__int128)d->frac * mult + p10 / 2) / p10;
	if (v > INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* length of the suffix without trailing whitespace (surrounding whitespace is ignored) */
static size_t suffix_len(const char *suf)
{
	size_t len = strlen(suf);
	while (len && isspace((unsigned char)suf[len - 1]))
		len--;
	return len;
}

static int parse_with(const char *s, const struct unit *units, bool need_unit, int64_t *out)
{
	struct decimal d;
	if (parse_decimal(s, &d))
		return -1;
	const char *suf = d.suffix;
	size_t len = suffix_len(suf);
	if (len == 0 && need_unit) {
		if (d.ip == 0 && d.frac == 0)
			return *out = 0, 0;   /* zero needs no unit: "--deadline 0" and the "0" defaults */
		return -1;
	}
	for (const struct unit *u = units; u->name; u++)
		if (strlen(u->name) == len && strncmp(u->name, suf, len) == 0)
			return scale(&d, u->mult, out);
	return -1;
}

int units_parse_duration(const char *s, int64_t *ns)
{
	return parse_with(s, duration_units, true, ns);
}

int units_parse_size(const char *s, int64_t *bytes)
{
	return parse_with(s, size_units, false, bytes);
}

int units_parse_percent(const char *s, int64_t *ppm)
{
	struct decimal d;
	if (parse_decimal(s, &d))
		return -1;
	const char *suf = d.suffix;
	size_t len = suffix_len(suf);
	if (len == 1 && *suf == '%')
		return scale(&d, 10000, ppm);
	if (len == 0)
		return scale(&d, 1000000, ppm);   /* a fraction: 0.5 = 50 % */
	return -1;
}

int units_parse_int(const char *s, int64_t *v)
{
	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && !((*s == '-' || *s == '+') && isdigit((unsigned char)s[1])))
		return -1;   /* strtoll would skip more whitespace, as in "- 1" */
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || suffix_len(end) != 0)   /* only whitespace may follow */
		return -1;
	*v = x;
	return 0;
}

char *units_format_duration(char *buf, size_t len, int64_t ns)
{
	static const struct unit order[] = {
		{"h", 3600 * NSEC_PER_SEC}, {"min", 60 * NSEC_PER_SEC}, {"s", NSEC_PER_SEC},
		{"ms", NSEC_PER_MSEC}, {"us", NSEC_PER_USEC}, {NULL, 0},
	};
	if (ns != 0)
		for (const struct unit *u = order; u->name; u++)
			if (ns % u->mult == 0) {
				snprintf(buf, len, "%" PRId64 "%s", ns / u->mult, u->name);
				return buf;
			}
	snprintf(buf, len, "%" PRId64 "ns", ns);
	return buf;
}

char *units_human_duration(char *buf, size_t len, int64_t ns)
{
	/* unit, its size, and when a rounded value belongs to the next unit */
	static const struct {
		const char *name;
		double mult, next;
	} u[] = {{"us", 1e3, 1000}, {"ms", 1e6, 1000}, {"s", 1e9, 60}, {"min", 60e9, 60}, {"h", 3600e9, 0}};
	double a = fabs((double)ns);
	if (a < 1e3) {
		snprintf(buf, len, "%" PRId64 "ns", ns);
		return buf;
	}
	int i = 0;
	while (i < 4 && a >= u[i + 1].mult)
		i++;
	/* 3 significant digits of the value as rounded: 9.999 is "10.0", 999.9us is "1.00ms" */
	for (;; i++) {
		double v = (double)ns / u[i].mult;
		snprintf(buf, len, "%.2f%s", v, u[i].name);
		if (fabs(strtod(buf, NULL)) >= 10)
			snprintf(buf, len, "%.1f%s", v, u[i].name);
		if (fabs(strtod(buf, NULL)) >= 100)
			snprintf(buf, len, "%.0f%s", v, u[i].name);
		if (!u[i].next || fabs(strtod(buf, NULL)) < u[i].next)
			return buf;
	}
}

char *units_format_size(char *buf, size_t len, int64_t bytes)
{
	static const struct unit order[] = {
		{"TiB", 1LL << 40}, {"GiB", 1LL << 30}, {"MiB", 1LL << 20}, {"KiB", 1LL << 10}, {NULL, 0},
	};
	if (bytes != 0)
		for (const struct unit *u = order; u->name; u++)
			if (bytes % u->mult == 0) {
				snprintf(buf, len, "%" PRId64 "%s", bytes / u->mult, u->name);
				return buf;
			}
	snprintf(buf, len, "%" PRId64 "B", bytes);
	return buf;
}

char *units_human_size(char *buf, size_t len, int64_t bytes)
{
	static const char *const name[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	int i = 0;
	/* 1023.9KiB would print as "1024KiB": move on once the rounded value reaches 1000 */
	while (i < 4 && fabs(v) >= 999.5) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%" PRId64 "B", bytes);
	else
		snprintf(buf, len, fabs(v) >= 99.95 ? "%.0f%s" : fabs(v) >= 9.995 ? "%.1f%s" : "%.2f%s", v, name[i]);
	return buf;
}

char *units_format_percent(char *buf, size_t len, int64_t ppm)
{
	/* ppm / 10000 = percent; print exactly with up to 4 decimals, trailing zeros removed */
	int64_t ip = ppm / 10000, fp = ppm % 10000;
	if (fp < 0)
		fp = -fp;
	if (fp == 0) {
		snprintf(buf, len, "%" PRId64 "%%", ip);
		return buf;
	}
	char frac[8];
	snprintf(frac, sizeof(frac), "%04" PRId64, fp);
	for (int i = 3; i > 0 && frac[i] == '0'; i--)
		frac[i] = 0;
	snprintf(buf, len, "%s%" PRId64 ".%s%%", ppm < 0 && ip == 0 ? "-" : "", ip, frac);
	return buf;
}

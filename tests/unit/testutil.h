/* Shared by the unit tests: cmocka headers, the util layer and a small deterministic random
 * generator. */
#ifndef IRT_TESTUTIL_H
#define IRT_TESTUTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util.h"   /* xcalloc and the other helpers */

/* splitmix64: deterministic, so a failure reproduces */
static inline uint64_t rnd_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double rnd_unit(uint64_t *s)
{
	return (double)(rnd_next(s) >> 11) * 0x1.0p-53;
}

/* uniform in [lo, hi] */
static inline int64_t rnd_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd_next(s) % (uint64_t)(hi - lo + 1));
}

/* standard normal (Box-Muller) */
static inline double rnd_normal(uint64_t *s)
{
	double u = rnd_unit(s), v = rnd_unit(s);
	return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

#endif

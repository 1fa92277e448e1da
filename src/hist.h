/* Log-linear latency histogram (HdrHistogram-like) over 0 ns .. HIST_MAX_VALUE.
 *
 * Values below 2^HIST_SUB_BITS are exact. Above, each power-of-two range is split into
 * 2^(HIST_SUB_BITS-1) equal buckets, so a bucket is at most 1/512 of its lower edge wide and
 * the bucket midpoint, which is what percentiles report, is within 1/1024 (< 0.1 %) of every
 * value in it. Fixed memory, no allocation, O(1) record. */
#ifndef IRT_HIST_H
#define IRT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hot.h"

#define HIST_SUB_BITS 10                         /* sub-bucket count 1024 */
#define HIST_SUB_COUNT (1 << HIST_SUB_BITS)
#define HIST_SUB_HALF (HIST_SUB_COUNT / 2)
#define HIST_TOP_BIT 43                          /* values < 2^43 ns (~2.44 h) are tracked */
#define HIST_MAX_VALUE ((INT64_C(1) << HIST_TOP_BIT) - 1)
/* bucket groups: group 0 holds [0, 1024) exactly; group g >= 1 holds [512<<g, 1024<<g) */
#define HIST_GROUPS (HIST_TOP_BIT - HIST_SUB_BITS + 1)
#define HIST_LEN (HIST_SUB_COUNT + (HIST_GROUPS - 1) * HIST_SUB_HALF)

struct hist {
	uint64_t count;
	int64_t min, max;   /* exact; min = INT64_MAX, max = 0 when empty */
	int64_t sum;        /* exact sum of recorded (clamped) values */
	double sumsq;       /* sum of squares, for stddev */
	uint64_t saturated; /* values above HIST_MAX_VALUE, recorded as HIST_MAX_VALUE */
	uint64_t counts[HIST_LEN];
};

void hist_init(struct hist *h);
/* hist_init for memory that is zero already (calloc): sets only min, so the 143 KB of counts
 * are not written and their pages stay unmapped until a value lands there (5000 simulated
 * threads: 2.8 GB resident otherwise). */
void hist_init_zeroed(struct hist *h);
/* Empties h as hist_init, but writes only the counts between its min and max buckets (a
 * reused histogram keeps its untouched pages unmapped). */
void hist_clear(struct hist *h);

IRT_HOT_INLINE unsigned hist_index(int64_t v)
{
	/* OR-ing in the sub-bucket mask gives values below 2^HIST_SUB_BITS shift 0, so they land
	 * in group 0 at index v: one formula, no branch. Above, shift = msb - (SUB_BITS - 1) is
	 * the group g and (u >> shift) is in [512, 1024). */
	uint64_t u = (uint64_t)v;
	unsigned msb = 63u ^ (unsigned)__builtin_clzll(u | (HIST_SUB_COUNT - 1));   /* = 63 - clz: bsr */
	unsigned shift = msb - (HIST_SUB_BITS - 1);
	return (unsigned)(shift * HIST_SUB_HALF + (u >> shift));
}

/* hist_index(v) from d = (double)v, which hist_record_into computes for the sum of squares
 * anyway (exact: v < 2^53): above group 0, d's exponent and its first 9 mantissa bits are the
 * group and the sub-bucket, so the index is d's bits shifted, less the exponent bias; fewer
 * instructions than the bit scan. */
IRT_HOT_INLINE unsigned hist_index_d(int64_t v, double d)
{
	uint64_t bits;
	__builtin_memcpy(&bits, &d, sizeof(bits));   /* no <string.h> in every includer */
	unsigned above = (unsigned)(bits >> (52 - (HIST_SUB_BITS - 1))) - (1023 + HIST_SUB_BITS - 2) * HIST_SUB_HALF;
	return v < HIST_SUB_COUNT ? (unsigned)v : above;
}

/* A histogram's summary fields without its counts, for a recorder that keeps them in a hot
 * record of its own: a struct hist is 143 KB, and between two samples its summary line can
 * leave the cache (the simulator, with two histograms per thread). */
struct hist_summary {
	uint64_t count;
	int64_t min, max, sum;
	double sumsq;
	uint64_t saturated;
};
/* Loads h's summary into s; stores s back into h (after recording with hist_record_into). */
void hist_summary_load(struct hist_summary *s, const struct hist *h);
void hist_summary_store(struct hist *h, const struct hist_summary *s);

/* Records one value (ns) into summary s (a struct hist or a struct hist_summary: a macro
 * over the fields both name alike, so both record by one body) and the count array cnt.
 * Negative values count as 0; values above HIST_MAX_VALUE saturate. ~20 instructions: one
 * unsigned compare covers both ranges, the index has no branch. */
#define hist_record_into(s, cnt, value) do { \
	int64_t v_ = (value); \
	if (__builtin_expect((uint64_t)v_ > (uint64_t)HIST_MAX_VALUE, 0)) {   /* rare */ \
		(s)->saturated += v_ >= 0; \
		v_ = v_ < 0 ? 0 : HIST_MAX_VALUE; \
	} \
	double d_ = (double)v_; \
	(cnt)[hist_index_d(v_, d_)]++; \
	(s)->count++; \
	(s)->sum += v_; \
	(s)->sumsq += d_ * d_; \
	if (v_ < (s)->min) \
		(s)->min = v_; \
	if (v_ > (s)->max) \
		(s)->max = v_; \
} while (0)

/* Records one value (ns) into h, as hist_record_into. */
IRT_HOT_INLINE void hist_record(struct hist *h, int64_t v)
{
	hist_record_into(h, h->counts, v);
}

/* Records n copies of v (used by decode and the simulator). */
void hist_record_n(struct hist *h, int64_t v, uint64_t n);
/* dst += src; equals recording everything src recorded into dst. */
void hist_merge(struct hist *dst, const struct hist *src);

double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);
/* The value at percentile p (0..100): the midpoint of the bucket holding the sample of rank
 * ceil(p/100 * count) (rank 1 for p = 0), clamped to [min, max]; 0 when empty.
 * p = 100 gives max exactly, p = 0 gives min exactly. */
int64_t hist_percentile(const struct hist *h, double p);

/* Bucket edges: values v with lo <= v <= hi land in bucket i. */
int64_t hist_bucket_lo(unsigned i);
int64_t hist_bucket_hi(unsigned i);

/* Iteration over non-empty buckets: `size_t it = 0; struct hist_bucket b;
 * while (hist_next(h, &it, &b)) ...` */
struct hist_bucket {
	int64_t lo, hi;   /* inclusive value range */
	uint64_t count;
};
bool hist_next(const struct hist *h, size_t *it, struct hist_bucket *b);

/* Sparse encoding: (bucket lower edge, count) pairs of the non-empty buckets plus the exact
 * summary fields. Decoding rebuilds an identical struct hist. */
struct hist_pair {
	int64_t value;  /* lower edge of the bucket */
	uint64_t count;
};
size_t hist_nonempty(const struct hist *h);
/* Writes at most max pairs; returns the number of non-empty buckets. */
size_t hist_encode(const struct hist *h, struct hist_pair *out, size_t max);
/* Rebuilds h from pairs and summary fields. Returns 0, or -1 when the pairs are inconsistent
 * (negative or out of range value, zero count, counts not summing to count, min/max outside
 * the recorded buckets, unsorted or duplicate buckets, saturated samples without max =
 * HIST_MAX_VALUE, sum outside [count*min, count*max], negative sumsq). */
int hist_decode(struct hist *h, const struct hist_pair *pairs, size_t n, uint64_t count,
                int64_t min, int64_t max, int64_t sum, double sumsq, uint64_t saturated);

#endif

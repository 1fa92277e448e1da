#include "hist.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INT64_MAX;
}

void hist_init_zeroed(struct hist *h)
{
	h->min = INT64_MAX;
}

void hist_clear(struct hist *h)
{
	if (h->count) {   /* every count lies between min's bucket and max's */
		unsigned lo = hist_index(h->min), hi = hist_index(h->max > HIST_MAX_VALUE ? HIST_MAX_VALUE : h->max);
		memset(&h->counts[lo], 0, (hi - lo + 1) * sizeof(h->counts[0]));
	}
	struct hist_summary empty = {.min = INT64_MAX};
	hist_summary_store(h, &empty);
}

void hist_summary_load(struct hist_summary *s, const struct hist *h)
{
	*s = (struct hist_summary){h->count, h->min, h->max, h->sum, h->sumsq, h->saturated};
}

void hist_summary_store(struct hist *h, const struct hist_summary *s)
{
	h->count = s->count;
	h->min = s->min;
	h->max = s->max;
	h->sum = s->sum;
	h->sumsq = s->sumsq;
	h->saturated = s->saturated;
}

int64_t hist_bucket_lo(unsigned i)
{
	if (i < HIST_SUB_COUNT)
		return i;
	unsigned g = i / HIST_SUB_HALF - 1;   /* group: index = g*HALF + sub, sub in [HALF, COUNT) */
	int64_t sub = (int64_t)(i - g * HIST_SUB_HALF);
	return sub << g;
}

int64_t hist_bucket_hi(unsigned i)
{
	if (i < HIST_SUB_COUNT)
		return i;
	unsigned g = i / HIST_SUB_HALF - 1;
	return hist_bucket_lo(i) + (INT64_C(1) << g) - 1;
}

void hist_record_n(struct hist *h, int64_t v, uint64_t n)
{
	if (n == 0)
		return;
	if (v < 0)
		v = 0;
	if (v > HIST_MAX_VALUE) {
		v = HIST_MAX_VALUE;
		h->saturated += n;
	}
	h->counts[hist_index(v)] += n;
	h->count += n;
	h->sum += v * (int64_t)n;
	h->sumsq += (double)v * (double)v * (double)n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (src->count == 0)
		return;
	for (unsigned i = 0; i < HIST_LEN; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	dst->saturated += src->saturated;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double hist_stddev(const struct hist *h)
{
	if (h->count < 2)
		return 0.0;
	double n = (double)h->count, mean = (double)h->sum / n;
	double var = (h->sumsq - n * mean * mean) / (n - 1);
	return var > 0 ? sqrt(var) : 0.0;
}

int64_t hist_percentile(const struct hist *h, double p)
{
	if (h->count == 0)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	/* rank of the sample: ceil(p/100 * count), at least 1. p is meant as a decimal (99.9 is
	 * not exact in binary, and 99.9/100*1000 > 999), so a p with up to 6 decimals is scaled to
	 * an integer and the ceiling taken exactly; a float tolerance would be too loose for large
	 * counts (99.995 % of 99999 samples is rank 99995, not 99994). */
	double scaled = p * 1e6, whole = nearbyint(scaled);
	uint64_t rank;
	if (fabs(scaled - whole) <= 1e-6)
		rank = (uint64_t)(((unsigned __int128)whole * h->count + 99999999) / 100000000);
	else
		rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank >= h->count)
		return h->max;   /* the last sample is known exactly */
	if (rank == 1)
		return h->min;   /* and so is the first */
	uint64_t seen = 0;
	for (unsigned i = 0; i < HIST_LEN; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			int64_t lo = hist_bucket_lo(i), hi = hist_bucket_hi(i);
			int64_t mid = lo + (hi - lo) / 2;
			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

bool hist_next(const struct hist *h, size_t *it, struct hist_bucket *b)
{
	for (size_t i = *it; i < HIST_LEN; i++) {
		if (h->counts[i]) {
			b->lo = hist_bucket_lo((unsigned)i);
			b->hi = hist_bucket_hi((unsigned)i);
			b->count = h->counts[i];
			*it = i + 1;
			return true;
		}
	}
	*it = HIST_LEN;
	return false;
}

size_t hist_nonempty(const struct hist *h)
{
	size_t n = 0;
	for (unsigned i = 0; i < HIST_LEN; i++)
		n += h->counts[i] != 0;
	return n;
}

size_t hist_encode(const struct hist *h, struct hist_pair *out, size_t max)
{
	size_t n = 0, it = 0;
	struct hist_bucket b;
	while (hist_next(h, &it, &b)) {
		if (n < max) {
			out[n].value = b.lo;
			out[n].count = b.count;
		}
		n++;
	}
	return n;
}

int hist_decode(struct hist *h, const struct hist_pair *pairs, size_t n, uint64_t count,
                int64_t min, int64_t max, int64_t sum, double sumsq, uint64_t saturated)
{
	hist_init(h);
	uint64_t total = 0;
	int prev = -1;
	for (size_t k = 0; k < n; k++) {
		int64_t v = pairs[k].value;
		if (v < 0 || v > HIST_MAX_VALUE || pairs[k].count == 0)
			return -1;
		unsigned i = hist_index(v);
		if (hist_bucket_lo(i) != v || (int)i <= prev)
			return -1;   /* not a bucket edge, or unsorted / duplicate */
		prev = (int)i;
		h->counts[i] = pairs[k].count;
		if (total + pairs[k].count < total)
			return -1;
		total += pairs[k].count;
	}
	if (total != count || saturated > count)
		return -1;
	if (count == 0) {
		if (n || sum || saturated)
			return -1;
		return 0;
	}
	if (min < 0 || max < min || max > HIST_MAX_VALUE)
		return -1;
	if (saturated && max != HIST_MAX_VALUE)
		return -1;   /* saturated samples were recorded as HIST_MAX_VALUE */
	if (sum < (__int128)count * min || sum > (__int128)count * max || !(sumsq >= 0) || isinf(sumsq))
		return -1;
	if (h->counts[hist_index(min)] == 0 || h->counts[hist_index(max)] == 0)
		return -1;
	if (hist_bucket_lo(hist_index(min)) != pairs[0].value ||
	    hist_bucket_lo(hist_index(max)) != pairs[n - 1].value)
		return -1;   /* min and max must lie in the first and last recorded buckets */
	h->count = count;
	h->min = min;
	h->max = max;
	h->sum = sum;
	h->sumsq = sumsq;
	h->saturated = saturated;
	return 0;
}

/* Cost of recording one sample: irt's hist_record against two peers doing the same job.
 *
 *   hist_bench time N        ns per record, best of 5 runs of N records, for every loop
 *   hist_bench loop NAME N   runs one loop once (for callgrind --toggle-collect=loop_NAME)
 *
 * Loops (each a noinline function so callgrind can count exactly its instructions):
 *   loop_hist    irt hist_record (src/hist.h)
 *   loop_hdr     an HdrHistogram-style recorder written here from its published algorithm:
 *                index from the leading-zero count, counts[i]++, total, min/max (with the same
 *                1024 sub-buckets as irt's, so both have the same resolution); it keeps no
 *                sum or sum of squares, irt does
 *   loop_append  the sorted-array approach's record step: store the value in a big array
 *   loop_empty   the loop itself: load the sample, nothing else (subtracted as baseline)
 * Samples come from a 64 Ki ring (fits in L2) of a realistic latency distribution: lognormal
 * around 20 us, plus 1 % of 1-20 ms stalls. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hist.h"

#define RING (1u << 16)
#define MASK (RING - 1)

static int64_t samples[RING];

static void make_samples(void)
{
	uint64_t s = 12345;
	for (unsigned i = 0; i < RING; i++) {
		/* splitmix64 -> two uniforms -> Box-Muller */
		double u[3];
		for (int k = 0; k < 3; k++) {
			uint64_t z = (s += 0x9e3779b97f4a7c15ull);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			u[k] = (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
		}
		double n = sqrt(-2.0 * log(1.0 - u[0])) * cos(6.283185307179586 * u[1]);
		double v = u[2] < 0.01 ? 1e6 + u[1] * 19e6 : exp(log(20000.0) + 0.5 * n);
		samples[i] = (int64_t)v;
	}
}

/* ---- an HdrHistogram-style recorder (same resolution as irt's: 1024 sub-buckets) ---------- */

#define HDR_SUB_BITS 10
#define HDR_SUB_COUNT (1 << HDR_SUB_BITS)
#define HDR_SUB_HALF_BITS (HDR_SUB_BITS - 1)
#define HDR_SUB_HALF (1 << HDR_SUB_HALF_BITS)
#define HDR_BUCKETS (HIST_TOP_BIT - HDR_SUB_BITS + 1)
#define HDR_LEN ((HDR_BUCKETS + 1) * HDR_SUB_HALF)

struct hdr {
	int64_t min, max;
	int64_t total;
	int64_t counts[HDR_LEN];
};

static inline int hdr_index(int64_t v)
{
	/* bucket: which power of two above the sub-bucket range; sub: position inside it */
	int bucket = 64 - __builtin_clzll((uint64_t)v | (HDR_SUB_COUNT - 1)) - HDR_SUB_BITS;
	int sub = (int)(v >> bucket);
	return ((bucket + 1) << HDR_SUB_HALF_BITS) + (sub - HDR_SUB_HALF);
}

static inline int hdr_record(struct hdr *h, int64_t v)
{
	if (v < 0)
		return 0;
	int i = hdr_index(v);
	if (i >= HDR_LEN)
		return 0;
	h->counts[i]++;
	h->total++;
	if (v < h->min && v != 0)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 1;
}

/* ---- the loops ------------------------------------------------------------------------------ */

__attribute__((noinline)) void loop_hist(struct hist *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hist_record(h, samples[i & MASK]);
}

__attribute__((noinline)) void loop_hdr(struct hdr *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hdr_record(h, samples[i & MASK]);
}

__attribute__((noinline)) void loop_append(int64_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = samples[i & MASK];
}

__attribute__((noinline)) void loop_empty(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t v = samples[i & MASK];
		__asm__ volatile("" : : "r"(v));   /* the load happens, nothing else */
	}
}

static struct hist hist;
static struct hdr hdr;
static int64_t *array;

static void hdr_init(struct hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INT64_MAX;
}

static int run(const char *name, size_t n)
{
	if (strcmp(name, "hist") == 0) {
		hist_init(&hist);
		loop_hist(&hist, n);
		return hist.count == n ? 0 : 1;
	}
	if (strcmp(name, "hdr") == 0) {
		hdr_init(&hdr);
		loop_hdr(&hdr, n);
		return hdr.total == (int64_t)n ? 0 : 1;
	}
	if (strcmp(name, "append") == 0) {
		loop_append(array, n);
		return 0;
	}
	if (strcmp(name, "empty") == 0) {
		loop_empty(n);
		return 0;
	}
	fprintf(stderr, "hist_bench: unknown loop '%s' (hist, hdr, append, empty)\n", name);
	return 2;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hist_bench time N | hist_bench loop hist|hdr|append|empty N\n");
		return 2;
	}
	make_samples();
	size_t n = (size_t)strtoull(argv[argc - 1], NULL, 10);
	if (n == 0)
		return 2;
	array = malloc(n * sizeof(*array));
	if (!array)
		return 1;
	memset(array, 0, n * sizeof(*array));   /* fault the pages in before timing */
	if (strcmp(argv[1], "loop") == 0 && argc == 4)
		return run(argv[2], n);
	if (strcmp(argv[1], "time") != 0)
		return 2;
	static const char *const names[] = {"hist", "hdr", "append", "empty"};
	for (int k = 0; k < 4; k++) {
		double best = 1e300;
		for (int rep = 0; rep < 5; rep++) {
			double t0 = now();
			if (run(names[k], n))
				return 1;
			double t = now() - t0;
			best = t < best ? t : best;
		}
		printf("%s %.3f\n", names[k], best / (double)n);
	}
	/* sanity: both histograms agree on what they recorded */
	int64_t p99 = hist_percentile(&hist, 99);
	if (hist.max != hdr.max || (uint64_t)hdr.total != hist.count || p99 <= 0)
		return 1;
	free(array);
	return 0;
}

#include "out/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "units.h"

int64_t out_thread_period(const struct result_thread *t)
{
	int64_t p = 0;
	const char *v = kvlist_get(&t->settings, "period");
	if (v && units_parse_duration(v, &p))
		p = 0;
	return p;
}

static void table(FILE *f, const struct result *r, int resp)
{
	static const char *const pct_names[] = {"p50", "p90", "p99", "p99.9", "p99.99"};
	int w = 6;
	for (int i = 0; i < r->nthreads; i++) {
		int l = (int)strlen(r->threads[i].name);
		if (l > w)
			w = l;
	}
	fprintf(f, "%s\n", resp ? "response time (release -> work done)" : "wake-up latency (release -> running)");
	fprintf(f, "%-*s %9s %8s", w, "thread", "samples", "min");
	for (int p = 0; p < result_npercentiles; p++)
		fprintf(f, " %8s", pct_names[p]);
	fprintf(f, " %8s %9s %8s\n", "max", "overruns", "met %");
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		const struct hist *h = resp ? &t->resp : &t->wake;
		char b[32];
		fprintf(f, "%-*s %9" PRIu64 " %8s", w, t->name, h->count,
		        units_human_duration(b, sizeof(b), h->count ? h->min : 0));
		for (int p = 0; p < result_npercentiles; p++)
			fprintf(f, " %8s", units_human_duration(b, sizeof(b), hist_percentile(h, result_percentiles[p])));
		uint64_t dl = t->deadlines_met + t->deadlines_missed;
		char met[16];
		if (dl)
			snprintf(met, sizeof(met), "%.2f", 100.0 * (double)t->deadlines_met / (double)dl);
		else
			snprintf(met, sizeof(met), "-");
		fprintf(f, " %8s %9" PRIu64 " %8s\n", units_human_duration(b, sizeof(b), h->max), t->overruns, met);
	}
}

void out_summary(FILE *f, const struct result *r)
{
	table(f, r, 0);
	fprintf(f, "\n");
	table(f, r, 1);
}

struct seed_key {
	char key[32];
	uint64_t count;
};

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct seed_key *)a)->key, ((const struct seed_key *)b)->key);
}

void out_seed(FILE *f, const struct result *r)
{
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		int64_t period = out_thread_period(t);
		size_t n = hist_nonempty(&t->wake), k = 0;
		struct seed_key *keys = calloc(n ? n : 1, sizeof(*keys));
		if (!keys)
			abort();
		size_t it = 0;
		struct hist_bucket b;
		while (hist_next(&t->wake, &it, &b)) {
			int64_t mid = b.lo + (b.hi - b.lo) / 2;
			if (mid > t->wake.max)
				mid = t->wake.max;
			if (mid < t->wake.min)
				mid = t->wake.min;
			snprintf(keys[k].key, sizeof(keys[k].key), "%01.3f", (double)(period + mid) / 1e9);
			keys[k++].count = b.count;
		}
		qsort(keys, k, sizeof(*keys), cmp_key);
		if (r->nthreads > 1)
			fprintf(f, "# %s\n", t->name);
		/* several buckets can round to one key: sum them */
		for (size_t j = 0; j < k;) {
			uint64_t c = 0;
			size_t m = j;
			for (; m < k && strcmp(keys[m].key, keys[j].key) == 0; m++)
				c += keys[m].count;
			fprintf(f, "%s:  %" PRIu64 "\n", keys[j].key, c);
			j = m;
		}
		free(keys);
	}
}

void out_cyclictest(FILE *f, const struct result *r, int buckets)
{
	int n = r->nthreads;
	uint64_t *rows = calloc((size_t)buckets * (size_t)(n ? n : 1), sizeof(*rows));
	uint64_t *over = calloc((size_t)(n ? n : 1), sizeof(*over));
	if (!rows || !over)
		abort();
	for (int i = 0; i < n; i++) {
		size_t it = 0;
		struct hist_bucket b;
		while (hist_next(&r->threads[i].wake, &it, &b)) {
			/* a bucket goes to the microsecond row of its midpoint (error < 0.1 %) */
			int64_t us = (b.lo + (b.hi - b.lo) / 2) / 1000;
			if (us >= buckets)
				over[i] += b.count;
			else
				rows[(size_t)us * (size_t)n + (size_t)i] += b.count;
		}
	}
	fprintf(f, "# Histogram\n");
	for (int u = 0; u < buckets; u++) {
		fprintf(f, "%06d", u);
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%06" PRIu64, i ? "\t" : " ", rows[(size_t)u * (size_t)n + (size_t)i]);
		fprintf(f, "\n");
	}
	fprintf(f, "# Total:");
	for (int i = 0; i < n; i++)
		fprintf(f, " %09" PRIu64, r->threads[i].wake.count - over[i]);
	fprintf(f, "\n# Min Latencies:");
	for (int i = 0; i < n; i++)
		fprintf(f, " %05" PRId64, r->threads[i].wake.count ? r->threads[i].wake.min / 1000 : 0);
	fprintf(f, "\n# Avg Latencies:");
	for (int i = 0; i < n; i++)
		fprintf(f, " %05" PRId64, (int64_t)(hist_mean(&r->threads[i].wake) / 1000.0));
	fprintf(f, "\n# Max Latencies:");
	for (int i = 0; i < n; i++)
		fprintf(f, " %05" PRId64, r->threads[i].wake.max / 1000);
	fprintf(f, "\n# Histogram Overflows:");
	for (int i = 0; i < n; i++)
		fprintf(f, " %05" PRIu64, over[i]);
	fprintf(f, "\n# Histogram Overflow at cycle number:\n");
	for (int i = 0; i < n; i++) {
		/* irt keeps no per-sample cycle numbers; say how many, as cyclictest does past its list */
		fprintf(f, "# Thread %d:", i);
		if (over[i])
			fprintf(f, " # %05" PRIu64 " others", over[i]);
		fprintf(f, "\n");
	}
	free(rows);
	free(over);
}

int out_csv(const struct result *r, const char *path, struct err *e)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return err_set(e, EXIT_RUNTIME, "%s: cannot write: %s", path, strerror(errno));
	fprintf(f, "thread,metric,samples,min_ns,p50_ns,p90_ns,p99_ns,p99.9_ns,p99.99_ns,max_ns,mean_ns,stddev_ns,"
	           "overruns,deadlines_met,deadlines_missed\n");
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		for (int m = 0; m < 2; m++) {
			const struct hist *h = m ? &t->resp : &t->wake;
			fputc('"', f);
			for (const char *c = t->name; *c; c++)
				fprintf(f, *c == '"' ? "\"\"" : "%c", *c);   /* CSV quoting */
			fprintf(f, "\",%s,%" PRIu64 ",%" PRId64, m ? "response" : "wakeup", h->count, h->count ? h->min : 0);
			for (int p = 0; p < result_npercentiles; p++)
				fprintf(f, ",%" PRId64, hist_percentile(h, result_percentiles[p]));
			fprintf(f, ",%" PRId64 ",%.1f,%.1f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", h->max, hist_mean(h),
			        hist_stddev(h), t->overruns, t->deadlines_met, t->deadlines_missed);
		}
	}
	int bad = ferror(f);
	bad |= fflush(f) != 0;
	bad |= fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path)) {
		int err = errno;
		unlink(tmp);
		return err_set(e, EXIT_RUNTIME, "%s: cannot write: %s", path, strerror(err));
	}
	return 0;
}

/* noise.c: irt noise's gaps attributed to the kernel events inside them, from synthetic event
 * lists (no root, no tracefs): hand-built gaps with known parts, and a property test against a
 * simple reference that walks every nanosecond of every gap over random traces. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "explain.h"
#include "linux/trace.h"
#include "noise.h"

#define TID 4242

static void ev(struct trace_data *d, int64_t ts, int type, int a, int b)
{
	struct tev e = {.ts = ts, .a = a, .b = b, .prio = 120, .type = (uint8_t)type, .ctx = -1};
	trace_data_add(d, 0, &e);
}

static void data_init(struct trace_data *d)
{
	memset(d, 0, sizeof(*d));
	d->ncpu = 1;
	d->cpu = xcalloc(1, sizeof(*d->cpu));
	d->end_ns = INT64_MAX / 2;
}

static const struct noise_source *source(const struct noise_causes *c, int cause, const char *name)
{
	for (size_t i = 0; i < c->nsrc; i++)
		if (c->src[i].cause == cause && strcmp(c->src[i].name, name) == 0)
			return &c->src[i];
	return NULL;
}

/* Known gaps: each cause's time and its named source. */
static void test_known_gaps(void **state)
{
	struct trace_data d;
	data_init(&d);
	trace_data_set_irq_name(&d, 5, "eth0");
	struct ttask *k = trace_data_task(&d, 77);
	snprintf(k->comm, sizeof(k->comm), "hog");
	trace_data_sort_tasks(&d);
	/* gap 1 [1000, 2000]: an IRQ 1100..1400 */
	ev(&d, 1100, TEV_IRQ_ENTRY, 5, 0);
	ev(&d, 1400, TEV_IRQ_EXIT, 5, 0);
	/* gap 2 [3000, 4000]: nothing: hardware or host */
	/* gap 3 [5000, 6000]: hog runs 5200..5800, a local timer tick 5300..5400 inside it, and an
	 * NMI of 50 ns ending at 5600; a softirq 5850..5900 after the switch back */
	ev(&d, 5200, TEV_SWITCH, TID, 77);
	ev(&d, 5300, TEV_VECTOR_ENTRY, 0, 0);
	ev(&d, 5400, TEV_VECTOR_EXIT, 0, 0);
	ev(&d, 5600, TEV_NMI, 0, 50);
	ev(&d, 5800, TEV_SWITCH, 77, TID);
	ev(&d, 5850, TEV_SOFTIRQ_ENTRY, 1, 0);
	ev(&d, 5900, TEV_SOFTIRQ_EXIT, 1, 0);
	/* gap 4 [7000, 7500]: events were lost in it */
	trace_data_add_loss(&d, 0, 7100, 7200);
	/* an IRQ between the gaps is nobody's */
	ev(&d, 8000, TEV_IRQ_ENTRY, 5, 0);
	ev(&d, 8100, TEV_IRQ_EXIT, 5, 0);
	struct noise_gap g[] = {{1000, 2000}, {3000, 4000}, {5000, 6000}, {7000, 7500}};
	struct noise_causes c = {0};
	noise_attribute(&d, 0, TID, g, 4, &c);
	assert_int_equal(c.ns[NOISE_IRQ], 300 + 100);
	assert_int_equal(c.gaps[NOISE_IRQ], 2);
	assert_int_equal(c.ns[NOISE_HW], 1000);
	assert_int_equal(c.gaps[NOISE_HW], 1);
	assert_int_equal(c.ns[NOISE_NMI], 50);
	assert_int_equal(c.ns[NOISE_THREAD], 600 - 100 - 50);
	assert_int_equal(c.ns[NOISE_SOFTIRQ], 50);
	assert_int_equal(c.ns[NOISE_LOST], 500);
	assert_int_equal(c.ns[NOISE_KERNEL], 700 + 400 - 50);
	int64_t sum = 0;
	for (int i = 0; i < NOISE_NCAUSE; i++)
		sum += c.ns[i];
	assert_int_equal(sum, 1000 + 1000 + 1000 + 500);
	const struct noise_source *s = source(&c, NOISE_THREAD, "hog");
	assert_non_null(s);
	assert_int_equal(s->id, 77);
	assert_int_equal(s->ns, 450);
	assert_non_null(source(&c, NOISE_IRQ, "eth0"));
	assert_int_equal(source(&c, NOISE_IRQ, "local_timer")->ns, 100);
	assert_int_equal(source(&c, NOISE_SOFTIRQ, "TIMER")->ns, 50);
	noise_sort_sources(&c);
	assert_int_equal(c.src[0].cause, NOISE_THREAD);   /* the largest first */
	noise_causes_free(&c);
	trace_data_free(&d);
}

/* The reference: each nanosecond of a gap, classified by every event at or before it. */
struct ref {
	int64_t ns[NOISE_NCAUSE];
	uint64_t gaps[NOISE_NCAUSE];
	int64_t thread_ns[4];    /* by pid 50..53 */
};

static bool counts(const struct tev *e)
{
	return e->type != TEV_WAKEUP && e->type != TEV_WAKING && e->type != TEV_MIGRATE;
}

static void ref_gap(const struct tev *evs, size_t n, const struct noise_gap *g, bool lost, struct ref *r)
{
	int64_t ns[NOISE_NCAUSE] = {0};
	size_t any = 0;
	for (size_t i = 0; i < n; i++)
		any += evs[i].ts >= g->start && evs[i].ts <= g->end && counts(&evs[i]);
	if (lost || !any) {
		ns[lost ? NOISE_LOST : NOISE_HW] = g->end - g->start;
	} else {
		for (int64_t t = g->start; t < g->end; t++) {
			int irq = 0, sirq = 0, nmi = 0;
			bool off = false;
			int32_t cur = -1;
			for (size_t i = 0; i < n; i++) {
				const struct tev *e = &evs[i];
				if (e->ts < g->start || e->ts > g->end || !counts(e))
					continue;
				if (e->type == TEV_NMI) {
					nmi += e->ts - e->b <= t && t < e->ts;
					continue;
				}
				if (e->ts > t)
					continue;
				if (e->type == TEV_SWITCH) {
					if (e->a == TID && e->b != TID)
						off = true, cur = e->b;
					else if (e->b == TID)
						off = false;
					else if (off)
						cur = e->b;
				} else if (e->type == TEV_IRQ_ENTRY || e->type == TEV_VECTOR_ENTRY) {
					irq++;
				} else if (e->type == TEV_IRQ_EXIT || e->type == TEV_VECTOR_EXIT) {
					irq -= irq > 0;
				} else if (e->type == TEV_SOFTIRQ_ENTRY) {
					sirq++;
				} else if (e->type == TEV_SOFTIRQ_EXIT) {
					sirq -= sirq > 0;
				}
			}
			int cause = nmi ? NOISE_NMI : irq ? NOISE_IRQ : sirq ? NOISE_SOFTIRQ : off ? NOISE_THREAD : NOISE_KERNEL;
			ns[cause]++;
			if (cause == NOISE_THREAD)
				r->thread_ns[cur - 50]++;
		}
	}
	for (int i = 0; i < NOISE_NCAUSE; i++) {
		r->ns[i] += ns[i];
		r->gaps[i] += ns[i] > 0;
	}
}

/* Property: over random traces, noise_attribute agrees with the reference, cause by cause and
 * thread by thread, and every gap's time is attributed once. */
static void test_against_reference(void **state)
{
	uint64_t seed = 7;
	static const int types[] = {TEV_SWITCH, TEV_IRQ_ENTRY, TEV_IRQ_EXIT, TEV_SOFTIRQ_ENTRY, TEV_SOFTIRQ_EXIT,
	                            TEV_VECTOR_ENTRY, TEV_VECTOR_EXIT, TEV_NMI, TEV_WAKEUP};
	for (int round = 0; round < 300; round++) {
		struct trace_data d;
		data_init(&d);
		for (int p = 50; p < 54; p++)
			snprintf(trace_data_task(&d, p)->comm, 16, "t%d", p);
		trace_data_sort_tasks(&d);
		struct noise_gap g[6];
		int ng = (int)rnd_range(&seed, 1, 6);
		int64_t at = 0;
		bool lost[6] = {0};
		for (int i = 0; i < ng; i++) {
			at += rnd_range(&seed, 0, 300);
			g[i].start = at;
			at += rnd_range(&seed, 1, 400);
			g[i].end = at;
			if (rnd_unit(&seed) < 0.1) {
				lost[i] = true;
				trace_data_add_loss(&d, 0, rnd_range(&seed, g[i].start, g[i].end), g[i].end + 5);
			}
			at += 10;   /* a loss window ends before the next gap */
		}
		int nev = (int)rnd_range(&seed, 0, 40);
		int64_t ts = 0;
		for (int i = 0; i < nev; i++) {
			ts += rnd_range(&seed, 0, at / (nev + 1) + 1);
			int type = types[rnd_range(&seed, 0, 8)];
			int a = (int)rnd_range(&seed, 0, 4), b = (int)rnd_range(&seed, 0, 60);
			if (type == TEV_SWITCH) {   /* the spinner or one of four threads on either side */
				a = rnd_unit(&seed) < 0.4 ? TID : 50 + (int)rnd_range(&seed, 0, 3);
				b = rnd_unit(&seed) < 0.4 ? TID : 50 + (int)rnd_range(&seed, 0, 3);
			}
			ev(&d, ts, type, a, b);
		}
		struct noise_causes c = {0};
		noise_attribute(&d, 0, TID, g, (size_t)ng, &c);
		struct ref r = {0};
		int64_t total = 0, sum = 0;
		for (int i = 0; i < ng; i++) {
			ref_gap(d.cpu[0].ev, d.cpu[0].n, &g[i], lost[i], &r);
			total += g[i].end - g[i].start;
		}
		for (int i = 0; i < NOISE_NCAUSE; i++) {
			if (c.ns[i] != r.ns[i] || c.gaps[i] != r.gaps[i])
				fail_msg("round %d: %s: %lld ns in %llu gaps, the reference %lld in %llu", round, noise_cause_name(i),
				         (long long)c.ns[i], (unsigned long long)c.gaps[i], (long long)r.ns[i],
				         (unsigned long long)r.gaps[i]);
			sum += c.ns[i];
		}
		assert_int_equal(sum, total);
		for (int p = 50; p < 54; p++) {
			char name[16];
			snprintf(name, sizeof(name), "t%d", p);
			const struct noise_source *s = source(&c, NOISE_THREAD, name);
			assert_int_equal(s ? s->ns : 0, r.thread_ns[p - 50]);
		}
		noise_causes_free(&c);
		trace_data_free(&d);
	}
}

/* The summary's share: 100% with no runtime, and runtime less noise otherwise. */
static void test_available(void **state)
{
	struct noise_cpu c = {.runtime_ns = 0};
	assert_true(noise_available_pct(&c) == 100.0);
	c.runtime_ns = 1000;
	c.noise_ns = 250;
	assert_true(noise_available_pct(&c) == 75.0);
}

/* The worst interval of the kernel's real-time period, against a brute force over its starts. */
static void test_max_spin(void **state)
{
	(void)state;
	assert_int_equal(noise_max_spin(950, 1000, 1000), 950);   /* at the kernel's default 95 % */
	assert_int_equal(noise_max_spin(900, 1000, 1000), 900);
	assert_int_equal(noise_max_spin(96, 100, 1000), 960);     /* a shorter period, the same share */
	assert_int_equal(noise_max_spin(9000, 10000, 1000), 1000); /* a longer one: a whole window spun */
	for (int64_t period = 1; period <= 40; period++)
		for (int64_t runtime = 1; runtime < period; runtime++)
			for (int64_t window = 1; window <= 50; window++) {
				int64_t best = 0;
				for (int64_t at = 0; at < period; at++) {
					int64_t spun = 0;
					for (int64_t t = at; t < at + window; t++)
						spun += t % period < runtime;
					best = spun > best ? spun : best;
				}
				assert_int_equal(noise_max_spin(runtime, period, window), best);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_gaps),
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_available),
		cmocka_unit_test(test_max_spin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

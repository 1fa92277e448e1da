/* runq.c (irt watch --all): every task's waits from synthetic scheduler events, against a
 * plain reference (an array of waits per task, no bound): counts, sums and extremes per task,
 * per CPU and for all; the bounded table's sum rule (all = table + dropped) and that it keeps
 * the worst tasks by max; by process (runqlat -P) against the reference's threads summed; tids
 * that collide in the hash maps; waits across lost events. */
#include "testutil.h"

#include <string.h>

#include "explain.h"
#include "runq.h"

#define NCPU 3
#define NTID 48
#define T0 1000000

/* tids that share a home slot in both maps (the hash keeps the low bits' order): the
 * deletions' backward shifts */
static int32_t tid_of(int i)
{
	return i % 2 ? (int32_t)(1 + (i / 2) * 131072) : (int32_t)(100 + i);
}

struct ref {
	int64_t pend[NTID];   /* start + 1, 0 none */
	bool pre[NTID];
	uint64_t count[NTID], cpu_count[NCPU], woken, preempted;
	int64_t sum[NTID], max[NTID], min[NTID];
};

static int idx_of(int32_t tid)
{
	for (int i = 0; i < NTID; i++)
		if (tid_of(i) == tid)
			return i;
	return -1;
}

static void ref_event(struct ref *r, int cpu, const struct tev *e, int64_t start, int64_t end, int32_t excluded)
{
	if (e->type == TEV_WAKING) {
		int i = idx_of(e->a);
		r->pend[i] = e->ts + 1;
		r->pre[i] = false;
		return;
	}
	int i = e->b > 0 ? idx_of(e->b) : -1;
	if (i >= 0 && r->pend[i]) {
		int64_t s = r->pend[i] - 1, w = e->ts - s;
		r->pend[i] = 0;
		if (s >= start && s <= end && e->b != excluded) {
			r->count[i]++;
			r->cpu_count[cpu]++;
			r->sum[i] += w;
			r->max[i] = w > r->max[i] ? w : r->max[i];
			r->min[i] = r->count[i] == 1 || w < r->min[i] ? w : r->min[i];
			if (r->pre[i])
				r->preempted++;
			else
				r->woken++;
		}
	}
	if (e->a > 0 && e->flag) {
		int k = idx_of(e->a);
		r->pend[k] = e->ts + 1;
		r->pre[k] = true;
	}
}

/* A random trace: per CPU a running task; wake-ups from any CPU, switches that leave the
 * previous task runnable or asleep. Times are distinct and increase across CPUs, so the
 * reference sees them in the order runq_feed merges them. Wait lengths vary by task so that
 * the worst are distinct. */
static void random_trace(struct trace_data *d, uint64_t *seed, int n)
{
	memset(d, 0, sizeof(*d));
	d->ncpu = NCPU;
	d->cpu = xcalloc(NCPU, sizeof(*d->cpu));
	int32_t cur[NCPU] = {0};
	int64_t ts = T0;
	for (int k = 0; k < n; k++) {
		int cpu = (int)rnd_range(seed, 0, NCPU - 1);
		int32_t tid = tid_of((int)rnd_range(seed, 0, NTID - 1));
		ts += rnd_range(seed, 1, 50) * (1 + (tid % 7));
		struct tev e = {.ts = ts, .ctx = -1};
		if (rnd_range(seed, 0, 2) == 0) {
			e.type = TEV_WAKING;
			e.a = tid;
		} else {
			e.type = TEV_SWITCH;
			e.a = cur[cpu];
			e.b = rnd_range(seed, 0, 9) == 0 ? 0 : tid;   /* sometimes idle */
			e.flag = (uint8_t)rnd_range(seed, 0, 1);
			cur[cpu] = e.b;
		}
		trace_data_add(d, cpu, &e);
	}
}

static void feed_ref(struct ref *r, const struct trace_data *d, int64_t start, int64_t end, int32_t excluded)
{
	memset(r, 0, sizeof(*r));
	size_t next[NCPU] = {0};
	for (;;) {   /* the reference merge: the smallest next time, by a scan */
		int best = -1;
		for (int c = 0; c < NCPU; c++)
			if (next[c] < d->cpu[c].n && (best < 0 || d->cpu[c].ev[next[c]].ts < d->cpu[best].ev[next[best]].ts))
				best = c;
		if (best < 0)
			return;
		ref_event(r, best, &d->cpu[best].ev[next[best]++], start, end, excluded);
	}
}

static const struct runq_task *kept(const struct runq *q, int32_t tid)
{
	for (int i = 0; i < q->nslots; i++)
		if (q->slot[i]->tid == tid)
			return q->slot[i];
	return NULL;
}

/* a table as large as the tasks: every figure equals the reference's */
static void test_against_reference(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		uint64_t s = seed;
		struct trace_data d;
		random_trace(&d, &s, 4000);
		int64_t start = T0 + (int64_t)(seed % 3) * 20000, end = start + 150000;
		int32_t excluded = tid_of((int)(seed % NTID));
		struct ref r;
		feed_ref(&r, &d, start, end, excluded);
		struct runq q;
		runq_init(&q, NTID, NCPU, start, end);
		q.exclude = &excluded;
		q.nexclude = 1;
		runq_feed(&q, &d);
		uint64_t total = 0;
		for (int i = 0; i < NTID; i++) {
			total += r.count[i];
			const struct runq_task *t = kept(&q, tid_of(i));
			assert_int_equal(t ? t->h.count : 0, r.count[i]);
			if (!r.count[i])
				continue;
			assert_int_equal(t->h.sum, r.sum[i]);
			assert_int_equal(t->h.max, r.max[i]);
			assert_int_equal(t->h.min, r.min[i]);
		}
		assert_true(total > 100);
		assert_int_equal(q.all.count, total);
		assert_int_equal(q.woken, r.woken);
		assert_int_equal(q.preempted, r.preempted);
		assert_int_equal(q.dropped, 0);
		assert_true(q.excluded > 0 || r.count[idx_of(excluded)] == 0);
		for (int c = 0; c < NCPU; c++)
			assert_int_equal(q.cpu[c].count, r.cpu_count[c]);
		runq_free(&q);
		trace_data_free(&d);
	}
}

static int by_max_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x < y) - (x > y);
}

/* a table smaller than the tasks: all = table + dropped, and the worst by max are kept whole
 * at their max (a task is replaced only by one whose wait is longer than its worst) */
static void test_bounded_table(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		uint64_t s = seed * 7919;
		struct trace_data d;
		random_trace(&d, &s, 4000);
		struct ref r;
		feed_ref(&r, &d, 0, INT64_MAX, -1);
		const int table = 5;
		struct runq q;
		runq_init(&q, table, 0, 0, INT64_MAX);
		runq_feed(&q, &d);
		uint64_t in_table = 0;
		for (int i = 0; i < q.nslots; i++)
			in_table += q.slot[i]->h.count;
		assert_true(q.nslots <= table);
		assert_int_equal(q.all.count, in_table + q.dropped);
		assert_true(q.dropped > 0);
		int64_t maxes[NTID];
		for (int i = 0; i < NTID; i++)
			maxes[i] = r.max[i];
		qsort(maxes, NTID, sizeof(*maxes), by_max_desc);
		const struct runq_task *top[3];
		int n = runq_top(&q, RUNQ_BY_MAX, top, 3);
		assert_int_equal(n, 3);
		for (int i = 0; i < n; i++)
			if (maxes[i] != maxes[i + 1])   /* ties may keep either */
				assert_int_equal(top[i]->h.max, maxes[i]);
		/* the ranking is worst first */
		n = runq_top(&q, RUNQ_BY_P99, top, 3);
		for (int i = 1; i < n; i++)
			assert_true(hist_percentile(&top[i - 1]->h, 99) >= hist_percentile(&top[i]->h, 99));
		runq_free(&q);
		trace_data_free(&d);
	}
}

/* runqlat -P: tasks 0..NTID-1 in processes of 4 threads each (pid 5000 + i / 4), but every
 * 5th task not known (0: a process of its own, under its tid) */
#define NPROC (NTID / 4 + NTID)
static int32_t proc_of(const void *ctx, int32_t tid)
{
	(void)ctx;
	int i = idx_of(tid);
	return i % 5 == 4 ? 0 : 5000 + i / 4;
}

/* the reference's threads summed into their processes: slot k of keys/count/sum/max/min */
struct ref_proc {
	int32_t key[NPROC];
	uint64_t count[NPROC];
	int64_t sum[NPROC], max[NPROC], min[NPROC];
	int n;
};

static void ref_processes(const struct ref *r, struct ref_proc *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < NTID; i++) {
		if (!r->count[i])
			continue;
		int32_t key = proc_of(NULL, tid_of(i)) ? proc_of(NULL, tid_of(i)) : tid_of(i);
		int k = 0;
		while (k < p->n && p->key[k] != key)
			k++;
		if (k == p->n) {
			p->key[p->n++] = key;
			p->min[k] = r->min[i];
		}
		p->count[k] += r->count[i];
		p->sum[k] += r->sum[i];
		p->max[k] = r->max[i] > p->max[k] ? r->max[i] : p->max[k];
		p->min[k] = r->min[i] < p->min[k] ? r->min[i] : p->min[k];
	}
}

/* by process: each process's histogram is its threads' waits together (the reference's per
 * thread figures summed); with a small table, all = table + dropped still and the ranking by
 * total (the waits summed) is worst first */
static void test_by_process(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		uint64_t s = seed * 104729;
		struct trace_data d;
		random_trace(&d, &s, 4000);
		struct ref r;
		feed_ref(&r, &d, 0, INT64_MAX, -1);
		struct ref_proc p;
		ref_processes(&r, &p);
		assert_true(p.n > 5);
		struct runq q;
		runq_init(&q, NPROC, 0, 0, INT64_MAX);
		q.process_of = proc_of;
		runq_feed(&q, &d);
		assert_int_equal(q.nslots, p.n);
		assert_int_equal(q.dropped, 0);
		for (int k = 0; k < p.n; k++) {
			const struct runq_task *t = kept(&q, p.key[k]);
			assert_non_null(t);
			assert_int_equal(t->h.count, p.count[k]);
			assert_int_equal(t->h.sum, p.sum[k]);
			assert_int_equal(t->h.max, p.max[k]);
			assert_int_equal(t->h.min, p.min[k]);
		}
		const struct runq_task *top[NPROC];
		int n = runq_top(&q, RUNQ_BY_TOTAL, top, NPROC);
		assert_int_equal(n, p.n);
		for (int i = 1; i < n; i++)
			assert_true(top[i - 1]->h.sum >= top[i]->h.sum);
		runq_free(&q);

		runq_init(&q, 3, 0, 0, INT64_MAX);
		q.process_of = proc_of;
		runq_feed(&q, &d);
		uint64_t in_table = 0;
		for (int i = 0; i < q.nslots; i++) {
			in_table += q.slot[i]->h.count;
			int k = 0;   /* a kept process is one of the reference's, none at a tid of a known thread */
			while (k < p.n && p.key[k] != q.slot[i]->tid)
				k++;
			assert_true(k < p.n);
		}
		assert_int_equal(q.nslots, 3);
		assert_int_equal(q.all.count, in_table + q.dropped);
		assert_true(q.dropped > 0);
		runq_free(&q);
		trace_data_free(&d);
	}
}

/* a wait across lost events is not timed (its switch-in may be among them), but counted */
static void test_lost_events(void **state)
{
	(void)state;
	struct trace_data d;
	memset(&d, 0, sizeof(d));
	d.ncpu = 2;
	d.cpu = xcalloc(2, sizeof(*d.cpu));
	struct tev e[] = {
		{.ts = 100, .type = TEV_WAKING, .a = 7, .ctx = -1},
		{.ts = 150, .type = TEV_SWITCH, .a = 0, .b = 7, .ctx = -1},          /* 50 */
		{.ts = 200, .type = TEV_SWITCH, .a = 7, .b = 8, .flag = 1, .ctx = -1}, /* 7 preempted */
		{.ts = 1000, .type = TEV_SWITCH, .a = 8, .b = 7, .ctx = -1},         /* across the loss */
		{.ts = 1100, .type = TEV_WAKING, .a = 9, .ctx = -1},
		{.ts = 1130, .type = TEV_SWITCH, .a = 7, .b = 9, .ctx = -1},         /* 30 */
	};
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		trace_data_add(&d, 0, &e[i]);
	trace_data_add_loss(&d, 1, 400, 500);
	struct runq q;
	runq_init(&q, 4, 2, 0, INT64_MAX);
	runq_feed(&q, &d);
	assert_int_equal(q.all.count, 2);
	assert_int_equal(q.all.sum, 80);
	assert_int_equal(q.lost, 1);
	assert_int_equal(q.woken, 2);
	assert_int_equal(q.preempted, 0);
	assert_int_equal(q.cpu[0].count, 2);
	runq_free(&q);
	trace_data_free(&d);
}

/* a switch irt put in at the wake-up that caused it (an idle CPU that recorded none) has the
 * wake-up's time: the wait starts first, whichever CPU's events are merged first */
static void test_same_time(void **state)
{
	(void)state;
	for (int first = 0; first < 2; first++) {
		struct trace_data d;
		memset(&d, 0, sizeof(d));
		d.ncpu = 2;
		d.cpu = xcalloc(2, sizeof(*d.cpu));
		struct tev sw = {.ts = 500, .type = TEV_SWITCH, .a = 0, .b = 9, .ctx = -1};
		struct tev wk = {.ts = 500, .type = TEV_WAKING, .a = 9, .ctx = -1};
		trace_data_add(&d, first, &sw);
		trace_data_add(&d, 1 - first, &wk);
		struct runq q;
		runq_init(&q, 4, 0, 0, INT64_MAX);
		runq_feed(&q, &d);
		assert_int_equal(q.all.count, 1);
		assert_int_equal(q.all.max, 0);
		runq_free(&q);
		trace_data_free(&d);
	}
}

/* hist_clear leaves what hist_init does */
static void test_hist_clear(void **state)
{
	(void)state;
	struct hist *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	hist_init(a);
	hist_init(b);
	uint64_t s = 3;
	for (int i = 0; i < 1000; i++)
		hist_record(a, rnd_range(&s, 0, 1000000000));
	hist_record(a, HIST_MAX_VALUE + 5);
	hist_clear(a);
	assert_memory_equal(a, b, sizeof(*a));
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_bounded_table),
		cmocka_unit_test(test_by_process),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_same_time),
		cmocka_unit_test(test_hist_clear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

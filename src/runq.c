#include "runq.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- tid -> value map ---- */

static void map_init(struct runq_map *m, uint32_t max)
{
	uint32_t cap = 16;
	while (cap < 2 * max)
		cap *= 2;
	*m = (struct runq_map){.key = xcalloc(cap, sizeof(*m->key)), .val = xcalloc(cap, sizeof(*m->val)),
	                       .cap = cap, .max = max};
}

static void map_free(struct runq_map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

static uint32_t home(const struct runq_map *m, int32_t key)
{
	return ((uint32_t)key * 2654435761u) & (m->cap - 1);
}

/* The slot holding tid, or the empty one where it would go. */
static uint32_t find(const struct runq_map *m, int32_t tid)
{
	uint32_t i = home(m, tid + 1);
	while (m->key[i] && m->key[i] != tid + 1)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int64_t *map_get(const struct runq_map *m, int32_t tid)
{
	uint32_t i = find(m, tid);
	return m->key[i] ? &m->val[i] : NULL;
}

/* false when tid is new and the map holds max already */
static bool map_put(struct runq_map *m, int32_t tid, int64_t v)
{
	uint32_t i = find(m, tid);
	if (!m->key[i]) {
		if (m->n >= m->max)
			return false;
		m->key[i] = tid + 1;
		m->n++;
	}
	m->val[i] = v;
	return true;
}

/* Removes tid; the entries after it move back, so that no lookup stops at the hole. */
static void map_del(struct runq_map *m, int32_t tid)
{
	uint32_t i = find(m, tid), mask = m->cap - 1;
	if (!m->key[i])
		return;
	for (uint32_t j = (i + 1) & mask; m->key[j]; j = (j + 1) & mask) {
		uint32_t k = home(m, m->key[j]);
		/* j's entry may fill the hole at i unless its home lies cyclically in (i, j] */
		bool stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
		if (!stays) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->key[i] = 0;
	m->n--;
}

/* ---- recording ---- */

void runq_init(struct runq *q, int table, int ncpu, int64_t start, int64_t end)
{
	memset(q, 0, sizeof(*q));
	q->start = start;
	q->end = end;
	q->table = table > 0 ? table : 1;
	hist_init(&q->all);
	if (ncpu > 0) {
		q->ncpu = ncpu;
		q->cpu = xcalloc((size_t)ncpu, sizeof(*q->cpu));
		for (int c = 0; c < ncpu; c++)
			hist_init_zeroed(&q->cpu[c]);
	}
	q->slot = xcalloc((size_t)q->table, sizeof(*q->slot));
	map_init(&q->index, (uint32_t)q->table);
	map_init(&q->pending, RUNQ_PENDING);
	q->weakest = -1;
}

void runq_free(struct runq *q)
{
	for (int i = 0; i < q->nslots; i++)
		free(q->slot[i]);
	free(q->slot);
	free(q->cpu);
	map_free(&q->index);
	map_free(&q->pending);
	memset(q, 0, sizeof(*q));
}

static bool excluded(const struct runq *q, int32_t tid)
{
	for (int i = 0; i < q->nexclude; i++)
		if (q->exclude[i] == tid)
			return true;
	return false;
}

/* The kept task whose worst wait is the shortest: the one a worse newcomer replaces. Cached
 * until that task records again, so a full table costs a scan only after a change. */
static int weakest(struct runq *q)
{
	if (q->weakest < 0) {
		q->weakest = 0;
		for (int i = 1; i < q->nslots; i++)
			if (q->slot[i]->h.max < q->slot[q->weakest]->h.max)
				q->weakest = i;
	}
	return q->weakest;
}

void runq_record(struct runq *q, int32_t tid, int cpu, int64_t ns, bool preempted)
{
	if (excluded(q, tid)) {
		q->excluded++;
		return;
	}
	hist_record(&q->all, ns);
	int32_t key = q->process_of ? q->process_of(q->process_ctx, tid) : tid;
	tid = key > 0 ? key : tid;
	if (q->cpu && cpu >= 0 && cpu < q->ncpu)
		hist_record(&q->cpu[cpu], ns);
	if (preempted)
		q->preempted++;
	else
		q->woken++;
	int64_t *at = map_get(&q->index, tid);
	int s;
	if (at) {
		s = (int)*at;
	} else if (q->nslots < q->table) {
		s = q->nslots++;
		q->slot[s] = xcalloc(1, sizeof(*q->slot[s]));   /* counts stay unmapped until used */
		hist_init_zeroed(&q->slot[s]->h);
		q->slot[s]->tid = tid;
		map_put(&q->index, tid, s);
		q->weakest = -1;
	} else {
		s = weakest(q);
		if (ns <= q->slot[s]->h.max) {
			q->dropped++;
			return;
		}
		q->dropped += q->slot[s]->h.count;
		q->evicted++;
		map_del(&q->index, q->slot[s]->tid);
		hist_clear(&q->slot[s]->h);
		q->slot[s]->tid = tid;
		map_put(&q->index, tid, s);
	}
	hist_record(&q->slot[s]->h, ns);
	if (s == q->weakest)
		q->weakest = -1;
}

static void wait_begin(struct runq *q, int32_t tid, int64_t ts, bool preempted)
{
	if (!map_put(&q->pending, tid, (int64_t)((uint64_t)ts << 1) | preempted))
		q->untimed++;
}

static void wait_end(struct runq *q, int32_t tid, int cpu, int64_t ts)
{
	int64_t *p = map_get(&q->pending, tid);
	if (!p)
		return;
	int64_t start = (int64_t)((uint64_t)*p >> 1);
	bool preempted = *p & 1;
	map_del(&q->pending, tid);
	if (start < q->start || start > q->end)
		return;   /* began outside the window */
	if (q->losses && explain_lost_around(q->losses, start, ts)) {
		q->lost++;   /* its switch-in may be among the lost: the wait would be too long */
		return;
	}
	runq_record(q, tid, cpu, ts - start, preempted);
}

void runq_event(struct runq *q, int cpu, const struct tev *ev)
{
	if (ev->type == TEV_WAKING && ev->a > 0) {
		wait_begin(q, ev->a, ev->ts, false);
	} else if (ev->type == TEV_SWITCH) {
		if (ev->b > 0)   /* 0: a CPU's idle task, never waiting */
			wait_end(q, ev->b, cpu, ev->ts);
		if (ev->a > 0 && ev->flag)   /* switched out still runnable: waits from here */
			wait_begin(q, ev->a, ev->ts, true);
	}
}

/* ---- merging the CPUs' events ---- */

struct head {
	int64_t ts;
	int later;   /* at one time a wait starts before one ends (a switch put in at its wake-up) */
	int cpu;
};

static bool before(const struct head *a, const struct head *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->later < b->later);
}

static struct head head_of(const struct tcpu *c, size_t i, int cpu)
{
	return (struct head){c->ev[i].ts, c->ev[i].type != TEV_WAKING, cpu};
}

static void sift_down(struct head *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;
		if (l < n && before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct head t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

void runq_feed(struct runq *q, const struct trace_data *d)
{
	q->losses = d;
	struct head *h = xcalloc((size_t)d->ncpu + 1, sizeof(*h));
	size_t *next = xcalloc((size_t)d->ncpu + 1, sizeof(*next));
	int n = 0;
	for (int c = 0; c < d->ncpu; c++)
		if (d->cpu[c].n)
			h[n++] = head_of(&d->cpu[c], 0, c);
	for (int i = n / 2 - 1; i >= 0; i--)
		sift_down(h, n, i);
	while (n) {
		int c = h[0].cpu;
		const struct tcpu *tc = &d->cpu[c];
		runq_event(q, c, &tc->ev[next[c]++]);
		if (next[c] < tc->n)
			h[0] = head_of(tc, next[c], c);
		else
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	free(h);
	free(next);
	q->losses = NULL;
}

/* ---- the worst tasks ---- */

struct ranked {
	const struct runq_task *t;
	int64_t key;
};

static int by_key(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	if (x->t->h.count != y->t->h.count)
		return x->t->h.count < y->t->h.count ? 1 : -1;
	return (x->t->tid > y->t->tid) - (x->t->tid < y->t->tid);
}

int runq_top(const struct runq *q, enum runq_rank by, const struct runq_task **out, int n)
{
	struct ranked *r = xcalloc((size_t)q->nslots + 1, sizeof(*r));
	for (int i = 0; i < q->nslots; i++)
		r[i] = (struct ranked){q->slot[i], by == RUNQ_BY_MAX     ? q->slot[i]->h.max
		                                   : by == RUNQ_BY_TOTAL ? q->slot[i]->h.sum
		                                                         : hist_percentile(&q->slot[i]->h, 99)};
	qsort(r, (size_t)q->nslots, sizeof(*r), by_key);
	int k = n < q->nslots ? n : q->nslots;
	for (int i = 0; i < k; i++)
		out[i] = r[i].t;
	free(r);
	return k;
}

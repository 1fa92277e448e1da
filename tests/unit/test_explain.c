/* explain.c: tail wake-ups split into their causes, from synthetic scheduler events (no root,
 * no tracefs): hand-built timelines with known parts, a property test (the parts of every
 * explained sample add up to its lateness, over random traces), lost events, irt watch's
 * wake-ups, and the explain section's JSON round trip. */
#include "testutil.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "explain.h"
#include "linux/trace.h"
#include "out/text.h"
#include "result.h"

/* an event whose recording task is not known (ctx -1): added as it is */
static void ev(struct trace_data *d, int cpu, int64_t ts, int type, int a, int b, int prio, int flag)
{
	struct tev e = {.ts = ts, .a = a, .b = b, .prio = (int16_t)prio, .type = (uint8_t)type, .flag = (uint8_t)flag, .ctx = -1};
	trace_data_add(d, cpu, &e);
}

/* an event recorded in task ctx (common_pid), as the kernel gives them */
static void evc(struct trace_data *d, int cpu, int64_t ts, int ctx, int type, int a, int b)
{
	struct tev e = {.ts = ts, .a = a, .b = b, .prio = 120, .type = (uint8_t)type, .ctx = ctx};
	trace_data_add(d, cpu, &e);
}

static void data_init(struct trace_data *d, int ncpu)
{
	memset(d, 0, sizeof(*d));
	d->ncpu = ncpu;
	d->cpu = xcalloc((size_t)ncpu, sizeof(*d->cpu));
	d->start_ns = 0;
	d->end_ns = 1000000;
}

static void task(struct trace_data *d, int pid, const char *comm, int prio, const char *policy, const char *cg)
{
	struct ttask *t = trace_data_task(d, pid);
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->prio = (int16_t)prio;
	snprintf(t->policy, sizeof(t->policy), "%s", policy);
	snprintf(t->cgroup, sizeof(t->cgroup), "%s", cg);
}

static int64_t part(const struct result_explain_sample *w, int cat, int64_t id)
{
	int64_t ns = 0;
	for (int i = 0; i < w->nparts; i++)
		if (w->parts[i].cat == cat && (id < 0 || w->parts[i].id == id))
			ns += w->parts[i].ns;
	return ns;
}

static const struct result_blocker *blocker(const struct result_explain *x, const char *kind, int64_t id)
{
	for (int i = 0; i < x->nblockers; i++)
		if (!strcmp(x->blockers[i].kind, kind) && x->blockers[i].id == id)
			return &x->blockers[i];
	return NULL;
}

/* probe tid 10 released at 1000 and woken at 4100 on d's tasks and events, analysed into r */
static void analyse_release_1000(struct trace_data *d, struct result *r)
{
	trace_data_sort_tasks(d);
	struct explain_sample s = {.thread = 0, .tid = 10, .release = 1000, .woke = 4100};
	memset(r, 0, sizeof(*r));
	assert_int_equal(result_init(r, "probe", 1, NULL), 0);
	explain_analyse(d, &s, 1, 1, 0, r);
}

/* CPU 0 runs a FIFO blocker (pid 100) when the probe (tid 10) is released: the timer wakes
 * the probe, which waits through the blocker, an IRQ and a NET_RX softirq. */
static void test_known_parts(void **state)
{
	struct trace_data d;
	data_init(&d, 1);
	task(&d, 10, "probe", 120, "other", "/irt");
	task(&d, 100, "blocker", 49, "fifo", "/blk");
	trace_data_set_irq_name(&d, 5, "eth0");
	ev(&d, 0, 0, TEV_SWITCH, 10, 100, 49, 0);          /* the probe sleeps, the blocker runs */
	ev(&d, 0, 1100, TEV_WAKING, 10, 0, 0, 0);
	ev(&d, 0, 1150, TEV_WAKEUP, 10, 0, 0, 0);
	ev(&d, 0, 2000, TEV_IRQ_ENTRY, 5, 0, 0, 0);
	ev(&d, 0, 2300, TEV_IRQ_EXIT, 5, 0, 0, 0);
	ev(&d, 0, 2300, TEV_SOFTIRQ_ENTRY, 3, 0, 0, 0);
	ev(&d, 0, 2500, TEV_SOFTIRQ_EXIT, 3, 0, 0, 0);
	ev(&d, 0, 4000, TEV_SWITCH, 100, 10, 120, 0);
	struct result r;
	analyse_release_1000(&d, &r);
	const struct result_explain *x = &r.explain;
	assert_int_equal(x->explained, 1);
	assert_int_equal(x->late_ns, 3100);
	const struct result_explain_sample *w = &x->worst[0];
	assert_int_equal(part(w, EXC_TIMER, -1), 150);       /* release -> waking -> wakeup */
	assert_int_equal(part(w, EXC_TASK, 100), 850 + 1500);
	assert_int_equal(part(w, EXC_IRQ, 5), 300);
	assert_int_equal(part(w, EXC_SOFTIRQ, 3), 200);
	assert_int_equal(part(w, EXC_SELF, -1), 100);        /* switch-in -> measured wake-up */
	assert_int_equal(w->cpu, 0);
	const struct result_blocker *b = blocker(x, "task", 100);
	assert_non_null(b);
	assert_string_equal(b->name, "blocker");
	assert_string_equal(b->policy, "fifo 50");
	assert_string_equal(b->cgroup, "/blk");
	assert_true(b->share > 0.757 && b->share < 0.759);    /* 2350 / 3100 */
	assert_string_equal(x->blockers[0].name, "blocker"); /* the top one */
	assert_non_null(blocker(x, "irq", 5));
	assert_string_equal(blocker(x, "irq", 5)->name, "eth0");
	assert_string_equal(blocker(x, "softirq", 3)->name, "NET_RX");
	int64_t sum = 0;
	for (int c = 0; c < EXC_N; c++)
		sum += x->cat_ns[c];
	assert_int_equal(sum, x->late_ns);
	result_free(&r);
	trace_data_free(&d);
}

/* An idle CPU: the wake-up starts with an idle exit; a long idle stretch while runnable is
 * throttling; moving to another CPU during the wake-up is migration. */
static void test_idle_throttle_migration(void **state)
{
	struct trace_data d;
	data_init(&d, 2);
	task(&d, 10, "probe", 120, "other", "/");
	ev(&d, 1, 0, TEV_SWITCH, 10, 0, 120, 0);             /* CPU 1 idles */
	ev(&d, 1, 1010, TEV_WAKING, 10, 0, 0, 0);
	ev(&d, 1, 1020, TEV_WAKEUP, 10, 1, 0, 0);
	ev(&d, 1, 1050, TEV_SWITCH, 0, 10, 120, 0);
	/* second sample: runnable from 3000, the CPU idles 1 ms (throttled), then runs it */
	ev(&d, 1, 2000, TEV_SWITCH, 10, 0, 120, 0);
	ev(&d, 0, 3000, TEV_WAKING, 10, 0, 0, 0);
	ev(&d, 0, 3020, TEV_MIGRATE, 10, 1, 0, 0);
	ev(&d, 0, 3050, TEV_WAKEUP, 10, 1, 0, 0);
	ev(&d, 1, 1003050, TEV_SWITCH, 0, 10, 120, 0);
	ev(&d, 0, 0, TEV_SWITCH, 0, 55, 120, 0);             /* CPU 0 busy with pid 55 */
	/* CPU 0's events must be in time order: rebuild them sorted */
	struct tcpu *c0 = &d.cpu[0];
	struct tev last = c0->ev[c0->n - 1];
	memmove(&c0->ev[1], &c0->ev[0], (c0->n - 1) * sizeof(*c0->ev));
	c0->ev[0] = last;
	trace_data_sort_tasks(&d);
	struct explain_sample s[2] = {{0, 10, 1000, 1060}, {0, 10, 2990, 1003060}};
	struct result r = {0};
	assert_int_equal(result_init(&r, "probe", 1, NULL), 0);
	explain_analyse(&d, s, 2, 1, 0, &r);
	const struct result_explain *x = &r.explain;
	assert_int_equal(x->explained, 2);
	const struct result_explain_sample *big = &x->worst[0], *small = &x->worst[1];
	assert_int_equal(small->lateness_ns, 60);
	assert_int_equal(part(small, EXC_IDLE_EXIT, -1), 10 + 30);   /* 1000 -> waking, wakeup -> switch-in */
	assert_int_equal(part(small, EXC_TIMER, -1), 10);            /* waking -> wakeup */
	assert_int_equal(part(small, EXC_SELF, -1), 10);
	assert_int_equal(big->migrations, 1);
	assert_int_equal(part(big, EXC_MIGRATION, -1), 30);          /* moved during the wake-up */
	assert_int_equal(part(big, EXC_THROTTLE, -1), 1000000);      /* runnable, CPU idle 1 ms */
	assert_int_equal(part(big, EXC_TIMER, -1), 10 + 20);         /* release -> waking (CPU 0 busy), path */
	assert_int_equal(x->migrations, 1);
	result_free(&r);
	trace_data_free(&d);
}

/* The kernel left out the switches out of idle (seen on this project's KVM guests, CPU 1):
 * the events that follow, recorded in the blocker's context, put them back. Sample 1: the
 * timer wakes the probe and the blocker on the idle CPU; the blocker runs first. Sample 2:
 * the blocker is woken from CPU 0 while CPU 1 idles; the probe wakes during its burst. */
static void test_missed_idle_switch(void **state)
{
	struct trace_data d;
	data_init(&d, 2);
	d.end_ns = 100000;
	task(&d, 10, "probe", 120, "other", "/");
	task(&d, 100, "blocker", 49, "fifo", "/");
	evc(&d, 1, 0, 10, TEV_SWITCH, 10, 0);          /* the probe sleeps: idle */
	evc(&d, 1, 1010, 0, TEV_WAKING, 10, 0);        /* the timer, in idle */
	evc(&d, 1, 1020, 0, TEV_WAKEUP, 10, 1);
	trace_data_seen(&d, 1, 1030, 0);               /* the blocker's wake-up (not kept) */
	/* [no switch idle -> blocker] */
	evc(&d, 1, 4000, 100, TEV_SWITCH, 100, 10);    /* the blocker's burst ends */
	evc(&d, 1, 4100, 10, TEV_SWITCH, 10, 0);       /* the probe sleeps */
	/* sample 2: CPU 0 wakes the blocker for CPU 1 at 20000; the probe's timer at 21000 */
	evc(&d, 0, 20000, 55, TEV_WAKEUP, 100, 1);
	/* [no switch idle -> blocker] */
	evc(&d, 1, 21000, 100, TEV_WAKING, 10, 0);     /* in the blocker's context */
	evc(&d, 1, 21010, 100, TEV_WAKEUP, 10, 1);
	evc(&d, 1, 23000, 100, TEV_SWITCH, 100, 10);
	assert_int_equal(trace_data_finish(&d), 2);
	/* the inferred switches: at the blocker's own wake-up, and at the remote one */
	const struct tcpu *c1 = &d.cpu[1];
	assert_int_equal(c1->ninferred, 2);
	assert_int_equal(c1->ev[c1->inferred[0]].ts, 1030);
	assert_int_equal(c1->ev[c1->inferred[0]].b, 100);
	assert_int_equal(c1->ev[c1->inferred[1]].ts, 20000);
	for (size_t i = 1; i < c1->n; i++)
		assert_true(c1->ev[i - 1].ts <= c1->ev[i].ts);
	trace_data_sort_tasks(&d);
	struct explain_sample s[2] = {{0, 10, 1000, 4010}, {0, 10, 20990, 23010}};
	struct result r = {0};
	assert_int_equal(result_init(&r, "probe", 1, NULL), 0);
	explain_analyse(&d, s, 2, 1, 0, &r);
	const struct result_explain *x = &r.explain;
	assert_int_equal(x->explained, 2);
	const struct result_explain_sample *w1 = &x->worst[0], *w2 = &x->worst[1];
	assert_int_equal(w1->lateness_ns, 3010);
	assert_int_equal(part(w1, EXC_IDLE_EXIT, -1), 10 + 10);   /* release -> waking; wakeup -> blocker's wake-up */
	assert_int_equal(part(w1, EXC_TIMER, -1), 10);
	assert_int_equal(part(w1, EXC_TASK, 100), 4000 - 1030);
	assert_int_equal(part(w1, EXC_THROTTLE, -1), 0);
	assert_int_equal(part(w1, EXC_SELF, -1), 10);
	/* sample 2: the CPU ran the blocker at the release, so the timer part is the busy CPU's */
	assert_int_equal(part(w2, EXC_IDLE_EXIT, -1), 0);
	assert_int_equal(part(w2, EXC_TASK, 100), 23000 - 21010);
	assert_int_equal(x->blockers[0].id, 100);
	result_free(&r);
	trace_data_free(&d);
	/* without the context (ctx -1) nothing is inferred: the old reading, idle throughout */
	data_init(&d, 1);
	ev(&d, 0, 0, TEV_SWITCH, 10, 0, 120, 0);
	ev(&d, 0, 4000, TEV_SWITCH, 100, 10, 120, 0);
	assert_int_equal(trace_data_finish(&d), 0);
	assert_int_equal(d.cpu[0].n, 2);
	trace_data_free(&d);
}

/* A wait behind more distinct tasks than a sample keeps parts for: the rest of the category
 * is one "(others)" part, and the parts still add up (this hung once: the overflow recursed). */
static void test_many_tasks(void **state)
{
	struct trace_data d;
	data_init(&d, 1);
	ev(&d, 0, 0, TEV_SWITCH, 10, 1000, 120, 0);
	ev(&d, 0, 100, TEV_WAKING, 10, 0, 0, 0);
	ev(&d, 0, 110, TEV_WAKEUP, 10, 0, 0, 0);
	for (int i = 1; i <= 400; i++)
		ev(&d, 0, 200 + i * 10, TEV_SWITCH, 1000 + i - 1, 1000 + i, 120, 0);
	ev(&d, 0, 5000, TEV_SWITCH, 1400, 10, 120, 0);
	trace_data_sort_tasks(&d);
	struct explain_sample s = {0, 10, 50, 5100};
	struct result r = {0};
	assert_int_equal(result_init(&r, "probe", 1, NULL), 0);
	explain_analyse(&d, &s, 1, 1, 0, &r);
	assert_int_equal(r.explain.explained, 1);
	assert_int_equal(r.explain.cat_ns[EXC_TASK], 5000 - 110);
	const struct result_explain_sample *w = &r.explain.worst[0];
	assert_true(w->nparts <= EXPLAIN_MAX_PARTS);
	int64_t sum = 0;
	for (int k = 0; k < w->nparts; k++) {
		sum += w->parts[k].ns;
		assert_true(w->parts[k].id >= -1);
	}
	assert_int_equal(sum, 5050);
	for (int i = 0; i < r.explain.nblockers; i++)
		assert_true(r.explain.blockers[i].id >= -1);
	result_free(&r);
	trace_data_free(&d);
}

/* Events lost around a sample: it is counted, never explained. */
static void test_lost(void **state)
{
	struct trace_data d;
	data_init(&d, 1);
	ev(&d, 0, 0, TEV_SWITCH, 10, 100, 120, 0);
	ev(&d, 0, 1100, TEV_WAKING, 10, 0, 0, 0);
	ev(&d, 0, 1150, TEV_WAKEUP, 10, 0, 0, 0);
	ev(&d, 0, 4000, TEV_SWITCH, 100, 10, 120, 0);
	trace_data_add_loss(&d, 0, 1500, 1600);
	d.lost = 7;
	struct explain_sample s = {0, 10, 1000, 4100};
	struct result r = {0};
	assert_int_equal(result_init(&r, "probe", 1, NULL), 0);
	explain_analyse(&d, &s, 1, 1, 0, &r);
	assert_int_equal(r.explain.tail_samples, 1);
	assert_int_equal(r.explain.lost_samples, 1);
	assert_int_equal(r.explain.explained, 0);
	assert_int_equal(r.explain.events_lost, 7);
	assert_int_equal(r.explain.nblockers, 0);
	result_free(&r);
	trace_data_free(&d);
}

/* Property: over random traces (any mix of switches, IRQs, softirqs, wake-ups and migrations
 * on two CPUs, consistent or not), every explained sample's parts add up to its lateness and
 * the categories to the total; shares never exceed 1. The reference is plain arithmetic. */
static void test_parts_add_up(void **state)
{
	uint64_t seed = 42;
	for (int round = 0; round < 200; round++) {
		struct trace_data d;
		data_init(&d, 2);
		int pids[] = {0, 10, 11, 100, 101, 102};
		for (int p = 1; p < 6; p++)
			task(&d, pids[p], "t", 100 + p, "other", "/");
		trace_data_sort_tasks(&d);
		for (int cpu = 0; cpu < 2; cpu++) {
			int64_t ts = 0;
			int n = 20 + (int)(rnd_next(&seed) % 200);
			for (int i = 0; i < n; i++) {
				ts += (int64_t)(rnd_next(&seed) % 5000);
				int type = (int)(rnd_next(&seed) % 8);
				int a = pids[rnd_next(&seed) % 6], b = pids[rnd_next(&seed) % 6];
				if (type == TEV_WAKEUP || type == TEV_MIGRATE)
					b = (int)(rnd_next(&seed) % 3) - (type == TEV_MIGRATE);   /* CPUs, some invalid */
				if (type >= TEV_IRQ_ENTRY)
					a = (int)(rnd_next(&seed) % 4);
				ev(&d, cpu, ts, type, a, b, 100, (int)(rnd_next(&seed) % 2));
			}
		}
		struct explain_sample s[30];
		for (int i = 0; i < 30; i++) {
			int64_t rel = (int64_t)(rnd_next(&seed) % 400000);
			s[i] = (struct explain_sample){0, 10 + (int)(rnd_next(&seed) % 2), rel,
			                               rel + 1 + (int64_t)(rnd_next(&seed) % 100000)};
		}
		struct result r = {0};
		assert_int_equal(result_init(&r, "probe", 1, NULL), 0);
		explain_analyse(&d, s, 30, (round % 2) ? 1 : 0, 0, &r);
		const struct result_explain *x = &r.explain;
		int64_t sum = 0;
		for (int c = 0; c < EXC_N; c++) {
			assert_true(x->cat_ns[c] >= 0);
			sum += x->cat_ns[c];
		}
		assert_int_equal(sum, x->late_ns);
		assert_int_equal(x->explained + x->lost_samples, x->tail_samples);
		for (int i = 0; i < x->nworst; i++) {
			int64_t ps = 0;
			for (int k = 0; k < x->worst[i].nparts; k++)
				ps += x->worst[i].parts[k].ns;
			assert_int_equal(ps, x->worst[i].lateness_ns);
		}
		for (int i = 0; i < x->nblockers; i++)
			assert_true(x->blockers[i].share >= 0 && x->blockers[i].share <= 1.0 + 1e-9);
		result_free(&r);
		trace_data_free(&d);
	}
}

/* The default threshold is the samples' p99: 1 of 100 samples is at least that late. */
static void test_default_threshold(void **state)
{
	struct trace_data d;
	data_init(&d, 1);
	struct explain_sample s[100];
	for (int i = 0; i < 100; i++)
		s[i] = (struct explain_sample){0, 10, i * 10000, i * 10000 + (i == 50 ? 5000 : 100 + i)};
	struct result r = {0};
	assert_int_equal(result_init(&r, "probe", 1, NULL), 0);
	explain_analyse(&d, s, 100, 0, 0, &r);
	assert_true(r.explain.threshold_ns > 190 && r.explain.threshold_ns <= 5000);
	assert_true(r.explain.tail_samples >= 1 && r.explain.tail_samples <= 2);
	result_free(&r);
	trace_data_free(&d);
}

/* irt watch: waking -> switch-in (latency) -> switch-out asleep (response). */
static void test_wakeups(void **state)
{
	struct trace_data d;
	data_init(&d, 1);
	ev(&d, 0, 0, TEV_SWITCH, 20, 0, 120, 0);
	ev(&d, 0, 1000, TEV_WAKING, 20, 0, 0, 0);
	ev(&d, 0, 1010, TEV_WAKEUP, 20, 0, 0, 0);
	ev(&d, 0, 1200, TEV_SWITCH, 0, 20, 120, 0);
	ev(&d, 0, 1700, TEV_SWITCH, 20, 30, 120, 1);   /* preempted: still working */
	ev(&d, 0, 1800, TEV_SWITCH, 30, 20, 120, 0);
	ev(&d, 0, 2500, TEV_SWITCH, 20, 0, 120, 0);    /* done: asleep */
	ev(&d, 0, 5000, TEV_WAKING, 20, 0, 0, 0);
	ev(&d, 0, 5010, TEV_WAKEUP, 20, 0, 0, 0);
	ev(&d, 0, 5020, TEV_SWITCH, 0, 20, 120, 0);    /* still running when the trace ends */
	struct wakeup *w;
	size_t n = explain_wakeups(&d, 20, &w);
	assert_int_equal(n, 2);
	assert_int_equal(w[0].waking, 1000);
	assert_int_equal(w[0].running, 1200);
	assert_int_equal(w[0].done, 2500);
	assert_int_equal(w[1].running, 5020);
	assert_int_equal(w[1].done, -1);
	free(w);
	trace_data_free(&d);
}

/* The explain section survives a JSON round trip exactly. */
static void test_json_round_trip(void **state)
{
	struct trace_data d;
	data_init(&d, 1);
	task(&d, 100, "blocker \"x\"", 49, "fifo", "/blk");
	ev(&d, 0, 0, TEV_SWITCH, 10, 100, 49, 0);
	ev(&d, 0, 1100, TEV_WAKING, 10, 0, 0, 0);
	ev(&d, 0, 1150, TEV_WAKEUP, 10, 0, 0, 0);
	ev(&d, 0, 4000, TEV_SWITCH, 100, 10, 120, 0);
	trace_data_sort_tasks(&d);
	d.events = 4;
	struct explain_sample s = {0, 10, 1000, 4100};
	struct result r = {0}, back = {0};
	char *text = NULL;
	size_t tlen = 0;
	assert_int_equal(result_init(&r, "probe", 1, NULL), 0);
	snprintf(r.threads[0].name, sizeof(r.threads[0].name), "p");
	explain_analyse(&d, &s, 1, 1, 0, &r);
	char path[] = "/tmp/irt-test-explain.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct err e = {0};
	assert_int_equal(result_write(&r, path, &e), 0);
	assert_int_equal(result_read(&back, path, &e), 0);
	unlink(path);
	/* one tail wake-up is singular in the summary ("1 wake-ups at least 21.3ms late") */
	FILE *m = open_memstream(&text, &tlen);
	out_explain(m, &back);
	fclose(m);
	assert_non_null(strstr(text, "why late (--explain): 1 wake-up at least "));
	free(text);
	const struct result_explain *a = &r.explain, *b = &back.explain;
	assert_true(b->present);
	assert_string_equal(a->source, b->source);
	assert_int_equal(a->late_ns, b->late_ns);
	assert_memory_equal(a->cat_ns, b->cat_ns, sizeof(a->cat_ns));
	assert_int_equal(a->nblockers, b->nblockers);
	assert_memory_equal(a->blockers, b->blockers, sizeof(*a->blockers) * (size_t)a->nblockers);
	assert_int_equal(a->nworst, b->nworst);
	assert_int_equal(a->worst[0].nparts, b->worst[0].nparts);
	for (int k = 0; k < a->worst[0].nparts; k++) {
		assert_int_equal(a->worst[0].parts[k].cat, b->worst[0].parts[k].cat);
		assert_int_equal(a->worst[0].parts[k].ns, b->worst[0].parts[k].ns);
		assert_string_equal(a->worst[0].parts[k].name, b->worst[0].parts[k].name);
	}
	result_free(&r);
	result_free(&back);
	trace_data_free(&d);
}

/* A policy with SCHED_RESET_ON_FORK (tokio's and systemd's threads) was shown as "normal". */
static void test_policy_names(void **state)
{
	(void)state;
	assert_string_equal(trace_policy_name(SCHED_OTHER), "other");
	assert_string_equal(trace_policy_name(SCHED_OTHER | SCHED_RESET_ON_FORK), "other");
	assert_string_equal(trace_policy_name(SCHED_FIFO | SCHED_RESET_ON_FORK), "fifo");
	assert_string_equal(trace_policy_name(SCHED_IDLE), "idle");
	assert_null(trace_policy_name(-1));
	assert_null(trace_policy_name(42));
}

/* A blocker that exited before irt looked up its policy (policy ""): shown as unknown, "?",
 * with what its traced prio says, and the summary says what "?" means. It was "normal nice 0",
 * a policy nobody looked up (SCHED_IDLE and SCHED_BATCH have nice prios too). */
static void test_exited_policy(void **state)
{
	(void)state;
	struct trace_data d;
	data_init(&d, 1);
	task(&d, 10, "probe", 120, "other", "/irt");
	task(&d, 100, "gone", 120, "", "");
	ev(&d, 0, 0, TEV_SWITCH, 10, 100, 120, 0);
	ev(&d, 0, 1100, TEV_WAKING, 10, 0, 0, 0);
	ev(&d, 0, 1150, TEV_WAKEUP, 10, 0, 0, 0);
	ev(&d, 0, 4000, TEV_SWITCH, 100, 10, 120, 0);
	struct result r;
	analyse_release_1000(&d, &r);
	snprintf(r.explain.source, sizeof(r.explain.source), "tracefs");
	const struct result_blocker *b = blocker(&r.explain, "task", 100);
	assert_non_null(b);
	assert_string_equal(b->policy, "? nice 0");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	out_explain(f, &r);
	fclose(f);
	assert_non_null(strstr(text, "? nice 0"));
	assert_null(strstr(text, "normal"));
	assert_non_null(strstr(text, "policy ?: not known (the task exited before irt looked it up"));
	free(text);
	result_free(&r);
	trace_data_free(&d);

	char buf[32];
	explain_format_policy(buf, sizeof(buf), "", 49);
	assert_string_equal(buf, "? rt 50");
	explain_format_policy(buf, sizeof(buf), "", -1);
	assert_string_equal(buf, "?");
	explain_format_policy(buf, sizeof(buf), "idle", 120);
	assert_string_equal(buf, "idle nice 0");
	explain_format_policy(buf, sizeof(buf), "fifo", 49);
	assert_string_equal(buf, "fifo 50");
	struct result_explain known = {.nblockers = 1, .blockers = &(struct result_blocker){.policy = "other nice 0"}};
	assert_null(result_explain_policy_note(&known));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_parts),        cmocka_unit_test(test_idle_throttle_migration),
		cmocka_unit_test(test_lost),               cmocka_unit_test(test_parts_add_up),
		cmocka_unit_test(test_many_tasks),         cmocka_unit_test(test_missed_idle_switch),
		cmocka_unit_test(test_default_threshold),  cmocka_unit_test(test_wakeups),
		cmocka_unit_test(test_json_round_trip),    cmocka_unit_test(test_policy_names),
		cmocka_unit_test(test_exited_policy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

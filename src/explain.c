#include "explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

/* ---- the event store ---- */

static void append(struct tcpu *c, const struct tev *ev)
{
	ARRAY_GROW(c->ev, c->n + 1, c->cap);
	c->ev[c->n++] = *ev;
}

/* Appends one event of CPU cpu (in time order). Some kernels do not record every sched_switch:
 * on this project's KVM guests the switch out of the idle task is never recorded on CPU 1.
 * Every event carries the task it was recorded in (ctx), so an event in a task other than the
 * one the last switch put on the CPU shows a switch that was missed; one is put in at the last
 * event seen in the old task (for idle: the interrupt or wake-up that ended it, the idle exit
 * itself takes microseconds). */
void trace_data_seen(struct trace_data *d, int cpu, int64_t ts, int32_t ctx)
{
	struct tcpu *c = &d->cpu[cpu];
	if (ctx < 0)
		return;
	if (c->cur_known && ctx != c->cur) {
		struct tev sw = {.ts = c->cur_ts, .type = TEV_SWITCH, .a = c->cur, .b = ctx, .prio = -1,
		                 .flag = c->cur != 0, .ctx = c->cur};
		append(c, &sw);
		ARRAY_GROW(c->inferred, c->ninferred + 1, c->inferred_cap);
		c->inferred[c->ninferred++] = c->n - 1;
	}
	c->cur = ctx;
	c->cur_known = true;
	c->cur_ts = ts;
}

void trace_data_add(struct trace_data *d, int cpu, const struct tev *ev)
{
	trace_data_seen(d, cpu, ev->ts, ev->ctx);
	append(&d->cpu[cpu], ev);
	if (ev->type == TEV_SWITCH && ev->ctx >= 0)
		d->cpu[cpu].cur = ev->b;
}

struct remote_wake {
	int32_t target, pid;
	int64_t ts;
};

static int by_target_pid_ts(const void *a, const void *b)
{
	const struct remote_wake *x = a, *y = b;
	if (x->target != y->target)
		return (x->target > y->target) - (x->target < y->target);
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* An inferred switch is put at the last event seen on its CPU in the old task; when the new
 * task was woken from another CPU (the idle CPU then saw no event of its own), the switch
 * came after that wake-up: it moves there, never past the event that showed it. */
size_t trace_data_finish(struct trace_data *d)
{
	struct remote_wake *w = NULL;
	size_t nw = 0, cap = 0, inferred = 0;
	for (int cpu = 0; cpu < d->ncpu; cpu++) {
		const struct tcpu *c = &d->cpu[cpu];
		inferred += c->ninferred;
		for (size_t i = 0; i < c->n; i++)
			if (c->ev[i].type == TEV_WAKEUP && c->ev[i].b != cpu) {
				ARRAY_GROW(w, nw + 1, cap);
				w[nw++] = (struct remote_wake){c->ev[i].b, c->ev[i].a, c->ev[i].ts};
			}
	}
	if (nw)
		qsort(w, nw, sizeof(*w), by_target_pid_ts);
	for (int cpu = 0; cpu < d->ncpu && nw; cpu++) {
		struct tcpu *c = &d->cpu[cpu];
		for (size_t k = 0; k < c->ninferred; k++) {
			struct tev *sw = &c->ev[c->inferred[k]];
			int64_t limit = c->inferred[k] + 1 < c->n ? c->ev[c->inferred[k] + 1].ts : INT64_MAX;
			/* the first wake-up of (cpu, pid) after limit, then the one before it */
			size_t lo = 0, hi = nw;
			struct remote_wake key = {cpu, sw->b, limit};
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (by_target_pid_ts(&w[mid], &key) <= 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo > 0 && w[lo - 1].target == cpu && w[lo - 1].pid == sw->b && w[lo - 1].ts > sw->ts)
				sw->ts = w[lo - 1].ts;
		}
	}
	free(w);
	return inferred;
}

void trace_data_add_loss(struct trace_data *d, int cpu, int64_t from, int64_t to)
{
	struct tcpu *c = &d->cpu[cpu];
	ARRAY_GROW(c->loss, c->nloss + 2, c->loss_cap);
	c->loss[c->nloss++] = from;
	c->loss[c->nloss++] = to;
}

struct ttask *trace_data_task(struct trace_data *d, int32_t pid)
{
	for (size_t i = d->ntasks; i-- > 0;)   /* recent ones last: cheap for a few hundred pids */
		if (d->tasks[i].pid == pid)
			return &d->tasks[i];
	ARRAY_GROW(d->tasks, d->ntasks + 1, d->tasks_cap);
	struct ttask *t = &d->tasks[d->ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->prio = -1;
	return t;
}

static int by_pid(const void *a, const void *b)
{
	const struct ttask *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

void trace_data_sort_tasks(struct trace_data *d)
{
	if (d->ntasks)
		qsort(d->tasks, d->ntasks, sizeof(*d->tasks), by_pid);
}

const struct ttask *explain_task(const struct trace_data *d, int32_t pid)
{
	struct ttask key = {.pid = pid};
	return d->ntasks ? bsearch(&key, d->tasks, d->ntasks, sizeof(key), by_pid) : NULL;
}

void trace_data_set_irq_name(struct trace_data *d, int irq, const char *name)
{
	if (irq < 0 || irq > 65535)
		return;
	if (irq >= d->nirq) {
		int n = irq + 16;
		d->irq_names = xreallocarray(d->irq_names, (size_t)n, sizeof(*d->irq_names));
		memset(d->irq_names[d->nirq], 0, (size_t)(n - d->nirq) * sizeof(*d->irq_names));
		d->nirq = n;
	}
	snprintf(d->irq_names[irq], sizeof(d->irq_names[irq]), "%s", name);
}

void trace_data_free(struct trace_data *d)
{
	for (int i = 0; i < d->ncpu; i++) {
		free(d->cpu[i].ev);
		free(d->cpu[i].loss);
		free(d->cpu[i].inferred);
	}
	free(d->cpu);
	free(d->tasks);
	free(d->irq_names);
	memset(d, 0, sizeof(*d));
}

/* ---- names ---- */

const char *explain_softirq_name(int vec)
{
	static const char *const names[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
	                                    "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};
	return vec >= 0 && vec < (int)(sizeof(names) / sizeof(names[0])) ? names[vec] : "?";
}

const char *explain_category_name(int cat)
{
	return result_explain_category(cat);
}

void explain_format_policy(char *buf, size_t len, const char *policy, int prio)
{
	/* "": never looked up (the task exited first): "?", then what the traced prio says. Not
	 * "normal": batch and idle share the nice range with other, PI boosts an rt prio */
	const char *pol = *policy ? policy : "?";
	if (prio >= 0 && prio < 100)
		snprintf(buf, len, "%s%s %d", pol, *policy ? "" : " rt", 99 - prio);
	else if (prio >= 100 && prio < 140)
		snprintf(buf, len, "%s nice %d", pol, prio - 120);
	else
		snprintf(buf, len, "%s", pol);
}

/* ---- a thread's own timeline ---- */

enum tstate { ST_UNKNOWN, ST_SLEEP, ST_WAKING, ST_QUEUED, ST_RUNNING };

struct change {
	int64_t ts;
	int state;      /* enum tstate after this change */
	int cpu;        /* where it is queued / running; for ST_WAKING the waking CPU */
	int order;      /* ties: waking < wakeup < migrate < switch */
};

struct timeline {
	int32_t tid;
	struct change *c;
	size_t n, cap;
};

static void tl_add(struct timeline *t, int64_t ts, int state, int cpu, int order)
{
	ARRAY_GROW(t->c, t->n + 1, t->cap);
	t->c[t->n++] = (struct change){ts, state, cpu, order};
}

static int by_time(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	if (x->ts != y->ts)
		return (x->ts > y->ts) - (x->ts < y->ts);
	return x->order - y->order;
}

/* Every event of tid, on every CPU, as state changes in time order. */
static void build_timeline(const struct trace_data *d, struct timeline *t)
{
	for (int cpu = 0; cpu < d->ncpu; cpu++) {
		const struct tcpu *c = &d->cpu[cpu];
		for (size_t i = 0; i < c->n; i++) {
			const struct tev *e = &c->ev[i];
			switch (e->type) {
			case TEV_WAKING:
				if (e->a == t->tid)
					tl_add(t, e->ts, ST_WAKING, cpu, 0);
				break;
			case TEV_WAKEUP:
				if (e->a == t->tid)
					tl_add(t, e->ts, ST_QUEUED, e->b, 1);
				break;
			case TEV_MIGRATE:
				if (e->a == t->tid)
					tl_add(t, e->ts, -1 /* keep state, move */, e->b, 2);
				break;
			case TEV_SWITCH:
				if (e->a == t->tid)
					tl_add(t, e->ts, e->flag ? ST_QUEUED : ST_SLEEP, cpu, 3);
				if (e->b == t->tid)
					tl_add(t, e->ts, ST_RUNNING, cpu, 4);
				break;
			default:
				break;
			}
		}
	}
	if (t->n)
		qsort(t->c, t->n, sizeof(*t->c), by_time);
	/* resolve migrations: they keep the state and change the CPU */
	int state = ST_UNKNOWN;
	for (size_t i = 0; i < t->n; i++) {
		if (t->c[i].state < 0)
			t->c[i].state = state == ST_UNKNOWN ? ST_SLEEP : state;
		state = t->c[i].state;
	}
}

size_t explain_wakeups(const struct trace_data *d, int32_t tid, struct wakeup **out)
{
	struct timeline t = {.tid = tid};
	build_timeline(d, &t);
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < t.n; i++) {
		if (t.c[i].state != ST_WAKING)
			continue;
		size_t k = i + 1;   /* the switch-in that follows (a second waking means this one was lost) */
		while (k < t.n && t.c[k].state != ST_RUNNING && t.c[k].state != ST_WAKING)
			k++;
		if (k >= t.n || t.c[k].state != ST_RUNNING)
			continue;
		int64_t done = -1;
		for (size_t j = k + 1; j < t.n; j++) {
			if (t.c[j].state == ST_SLEEP) {
				done = t.c[j].ts;
				break;
			}
			if (t.c[j].state == ST_WAKING)
				break;
		}
		ARRAY_GROW(*out, n + 1, cap);
		(*out)[n++] = (struct wakeup){t.c[i].ts, t.c[k].ts, done};
		i = k;
	}
	free(t.c);
	return n;
}

/* ---- accumulating one sample's parts ---- */

#define PARTS_MAX 256
struct part_acc {
	struct result_explain_part p[PARTS_MAX];
	int n;
	int migrations;
	int last_cpu;
};

static void add_part(struct part_acc *a, int cat, int64_t id, const char *name, int64_t ns)
{
	if (ns <= 0)
		return;
	for (int i = 0; i < a->n; i++)
		if (a->p[i].cat == cat && a->p[i].id == id) {
			a->p[i].ns += ns;
			return;
		}
	if (a->n >= PARTS_MAX - EXC_N && id != -2) {
		/* a long wait behind many short-lived tasks: the rest of this category in one part
		 * (the last EXC_N slots are kept for these) */
		add_part(a, cat, -2, "(others)", ns);
		return;
	}
	struct result_explain_part *p = &a->p[a->n++];
	p->cat = cat;
	p->id = id;
	p->ns = ns;
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
}

static size_t first_after(const struct tcpu *c, int64_t ts)
{
	size_t lo = 0, hi = c->n;   /* first index with ev.ts > ts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ev[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What CPU c was doing at time ts: the running task (-1 unknown), and whether inside a hard
 * IRQ or softirq (and which). Looks back to the last switch. */
struct cpu_ctx {
	int32_t task;
	int16_t prio;
	int irq, softirq;   /* -1 none */
};

static struct cpu_ctx ctx_at(const struct tcpu *c, size_t idx)
{
	struct cpu_ctx x = {.task = -1, .prio = -1, .irq = -1, .softirq = -1};
	bool irq_known = false, sirq_known = false;
	for (size_t i = idx; i-- > 0;) {
		const struct tev *e = &c->ev[i];
		if (!irq_known && (e->type == TEV_IRQ_ENTRY || e->type == TEV_IRQ_EXIT)) {
			irq_known = true;
			x.irq = e->type == TEV_IRQ_ENTRY ? e->a : -1;
		}
		if (!sirq_known && (e->type == TEV_SOFTIRQ_ENTRY || e->type == TEV_SOFTIRQ_EXIT)) {
			sirq_known = true;
			x.softirq = e->type == TEV_SOFTIRQ_ENTRY ? e->a : -1;
		}
		if (e->type == TEV_SWITCH) {
			x.task = e->b;
			x.prio = e->prio;
			break;   /* IRQ and softirq contexts do not span a switch */
		}
	}
	return x;
}

static const char *task_comm(const struct trace_data *d, int32_t pid)
{
	const struct ttask *t = explain_task(d, pid);
	return t ? t->comm : "?";
}

static const char *irq_name(const struct trace_data *d, int irq)
{
	return irq >= 0 && irq < d->nirq && d->irq_names[irq][0] ? d->irq_names[irq] : "?";
}

static void attribute_ctx(const struct trace_data *d, struct part_acc *a, const struct cpu_ctx *x, int32_t self,
                          int64_t ns, bool ends_with_switch_in)
{
	if (x->irq >= 0)
		add_part(a, EXC_IRQ, x->irq, irq_name(d, x->irq), ns);
	else if (x->softirq >= 0)
		add_part(a, EXC_SOFTIRQ, x->softirq, explain_softirq_name(x->softirq), ns);
	else if (x->task < 0)
		add_part(a, EXC_UNEXPLAINED, -1, "", ns);
	else if (x->task == 0)
		add_part(a, ns <= EXPLAIN_IDLE_EXIT_MAX_NS || !ends_with_switch_in ? EXC_IDLE_EXIT : EXC_THROTTLE, -1, "",
		         ns);
	else if (x->task == self)
		add_part(a, EXC_SELF, -1, "", ns);
	else
		add_part(a, EXC_TASK, x->task, task_comm(d, x->task), ns);
}

/* [from, to) while the thread waited on CPU cpu: what that CPU did. */
static void walk_cpu(const struct trace_data *d, struct part_acc *a, int cpu, int32_t self, int64_t from, int64_t to)
{
	if (cpu < 0 || cpu >= d->ncpu) {
		add_part(a, EXC_UNEXPLAINED, -1, "", to - from);
		return;
	}
	const struct tcpu *c = &d->cpu[cpu];
	size_t i = first_after(c, from);
	struct cpu_ctx x = ctx_at(c, i);
	int64_t t = from;
	for (; i < c->n && c->ev[i].ts < to; i++) {
		const struct tev *e = &c->ev[i];
		attribute_ctx(d, a, &x, self, e->ts - t, false);
		t = e->ts;
		switch (e->type) {
		case TEV_SWITCH:
			x.task = e->b;
			x.prio = e->prio;
			x.irq = x.softirq = -1;
			break;
		case TEV_IRQ_ENTRY:
			x.irq = e->a;
			break;
		case TEV_IRQ_EXIT:
			x.irq = -1;
			break;
		case TEV_SOFTIRQ_ENTRY:
			x.softirq = e->a;
			break;
		case TEV_SOFTIRQ_EXIT:
			x.softirq = -1;
			break;
		default:
			break;
		}
	}
	attribute_ctx(d, a, &x, self, to - t, true);
}

/* Was the CPU idle at ts? */
static bool idle_at(const struct trace_data *d, int cpu, int64_t ts)
{
	if (cpu < 0 || cpu >= d->ncpu)
		return false;
	const struct tcpu *c = &d->cpu[cpu];
	struct cpu_ctx x = ctx_at(c, first_after(c, ts));
	return x.task == 0;
}

bool explain_lost_around(const struct trace_data *d, int64_t from, int64_t to)
{
	for (int cpu = 0; cpu < d->ncpu; cpu++) {
		const struct tcpu *c = &d->cpu[cpu];
		for (size_t i = 0; i + 1 < c->nloss; i += 2)
			if (c->loss[i] < to && c->loss[i + 1] > from)
				return true;
	}
	return false;
}

/* Splits [release, woke) of one sample into parts. Returns false when its events are lost. */
static bool explain_one(const struct trace_data *d, const struct timeline *t, const struct explain_sample *s,
                        struct part_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->last_cpu = -1;
	/* the state at release needs the events just before it too */
	if (explain_lost_around(d, s->release - 100000000, s->woke))
		return false;
	size_t lo = 0, hi = t->n;   /* first change after release */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->c[mid].ts <= s->release)
			lo = mid + 1;
		else
			hi = mid;
	}
	int state = lo ? t->c[lo - 1].state : ST_UNKNOWN;
	int cpu = lo ? t->c[lo - 1].cpu : -1;
	int64_t from = s->release;
	bool waking_migrated = false;
	for (size_t i = lo;; i++) {
		bool last = i >= t->n || t->c[i].ts >= s->woke;
		int64_t to = last ? s->woke : t->c[i].ts;
		if (to > from) {
			switch (state) {
			case ST_SLEEP: {
				/* waiting for the timer: the next change is its sched_waking, on the CPU
				 * that took the timer interrupt; idle there means the wake-up began with
				 * an idle exit */
				int wcpu = !last && t->c[i].state == ST_WAKING ? t->c[i].cpu : cpu;
				add_part(a, idle_at(d, wcpu, from) ? EXC_IDLE_EXIT : EXC_TIMER, -1, "", to - from);
				break;
			}
			case ST_WAKING:
				/* sched_waking -> sched_wakeup: the wake-up path; moving the thread to
				 * another CPU on the way is the migration's cost */
				add_part(a, waking_migrated ? EXC_MIGRATION : EXC_TIMER, -1, "", to - from);
				break;
			case ST_QUEUED:
				/* whatever ran on the CPU it waited on, also one it was then moved from */
				walk_cpu(d, a, cpu, s->tid, from, to);
				break;
			case ST_RUNNING:
				add_part(a, EXC_SELF, -1, "", to - from);
				break;
			default:
				add_part(a, EXC_UNEXPLAINED, -1, "", to - from);
				break;
			}
		}
		if (last)
			break;
		if (t->c[i].order == 0)   /* a new sched_waking */
			waking_migrated = false;
		if (t->c[i].order == 2 && t->c[i].cpu != cpu) {
			a->migrations++;
			waking_migrated |= state == ST_WAKING;
		}
		state = t->c[i].state;
		cpu = t->c[i].cpu;
		if (state == ST_RUNNING)
			a->last_cpu = cpu;
		from = to;
	}
	return true;
}

/* ---- aggregation ---- */

struct agg {
	struct result_blocker *b;
	size_t *last;   /* the sample that last counted for it, + 1 */
	int n, cap;
};

/* The blocker (created when new); counts sample `sample` for it once. */
static struct result_blocker *agg_get(struct agg *g, const char *kind, int64_t id, const char *name, size_t sample)
{
	for (int i = 0; i < g->n; i++)
		if (g->b[i].id == id && strcmp(g->b[i].kind, kind) == 0 && (id >= 0 || strcmp(g->b[i].name, name) == 0)) {
			if (g->last[i] != sample + 1) {
				g->last[i] = sample + 1;
				g->b[i].samples++;
			}
			return &g->b[i];
		}
	if (g->n == g->cap) {   /* two arrays, one capacity */
		size_t cap = array_next_cap((size_t)g->cap, (size_t)g->n + 1);
		g->b = xreallocarray(g->b, cap, sizeof(*g->b));
		g->last = xreallocarray(g->last, cap, sizeof(*g->last));
		g->cap = (int)cap;
	}
	g->last[g->n] = 0;
	struct result_blocker *b = &g->b[g->n++];
	memset(b, 0, sizeof(*b));
	snprintf(b->kind, sizeof(b->kind), "%s", kind);
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->id = id;
	b->samples = 1;
	g->last[g->n - 1] = sample + 1;
	return b;
}

static int by_total(const void *a, const void *b)
{
	const struct result_blocker *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_part_ns(const void *a, const void *b)
{
	const struct result_explain_part *x = a, *y = b;
	return (x->ns < y->ns) - (x->ns > y->ns);
}

#define TOP_PER_KIND 10
#define WORST_SAMPLES 10

static void take_top(struct result_explain *x, struct agg *g, const char *kind, int64_t late)
{
	if (g->n)
		qsort(g->b, (size_t)g->n, sizeof(*g->b), by_total);
	int taken = 0;
	for (int i = 0; i < g->n && taken < TOP_PER_KIND; i++) {
		if (strcmp(g->b[i].kind, kind) != 0 && !(strcmp(kind, "irq") == 0 && strcmp(g->b[i].kind, "softirq") == 0))
			continue;
		struct result_blocker *b = result_add_blocker(x);
		*b = g->b[i];
		b->share = late > 0 ? (double)b->total_ns / (double)late : 0;
		taken++;
	}
}

static int64_t lateness_threshold(const struct explain_sample *s, size_t n)
{
	struct hist h;
	hist_init(&h);
	for (size_t i = 0; i < n; i++)
		hist_record(&h, s[i].woke - s[i].release);
	return n ? hist_percentile(&h, 99.0) : 0;
}

void explain_analyse(const struct trace_data *d, const struct explain_sample *s, size_t n, int64_t threshold,
                     int64_t origin, struct result *r)
{
	struct result_explain *x = &r->explain;
	x->present = true;
	snprintf(x->source, sizeof(x->source), "tracefs");
	x->threshold_ns = threshold > 0 ? threshold : lateness_threshold(s, n);
	/* --stop-above: the wake-up that ended the run is always explained, even below the cut
	 * asked for (the cut comes down to it, so the tail stays "at least threshold_ns late") */
	const struct result_thread *st = result_stopper(r);
	if (st && st->stop_wake_ns < x->threshold_ns)
		x->threshold_ns = st->stop_wake_ns;
	x->events = d->events;
	x->trace_start_ns = d->start_ns;
	x->origin_ns = origin;
	x->events_lost = d->lost;
	x->buffer_bytes = d->buffer_bytes;
	x->memory_bytes = d->memory_bytes;
	int64_t span = d->end_ns - d->start_ns;
	x->events_per_s = span > 0 ? (double)d->events * 1e9 / (double)span : 0;

	/* one timeline per distinct thread */
	struct timeline *tl = NULL;
	size_t ntl = 0;
	struct agg tasks = {0}, groups = {0}, irqs = {0};
	struct result_explain_sample *worst = xcalloc(WORST_SAMPLES + 1, sizeof(*worst));
	int nworst = 0;
	struct part_acc *a = xmalloc(sizeof(*a));
	for (size_t i = 0; i < n; i++) {
		int64_t late = s[i].woke - s[i].release;
		if (late < x->threshold_ns)
			continue;
		x->tail_samples++;
		struct timeline *t = NULL;
		for (size_t k = 0; k < ntl; k++)
			if (tl[k].tid == s[i].tid)
				t = &tl[k];
		if (!t) {
			tl = xreallocarray(tl, ntl + 1, sizeof(*tl));
			t = &tl[ntl++];
			memset(t, 0, sizeof(*t));
			t->tid = s[i].tid;
			build_timeline(d, t);
		}
		if (!explain_one(d, t, &s[i], a)) {
			x->lost_samples++;
			continue;
		}
		x->explained++;
		x->late_ns += late;
		for (int k = 0; k < a->n; k++) {
			const struct result_explain_part *p = &a->p[k];
			x->cat_ns[p->cat] += p->ns;
			struct result_blocker *b = NULL;
			if (p->id == -2)
				continue;   /* "(others)": counted in its category only */
			if (p->cat == EXC_TASK) {
				b = agg_get(&tasks, "task", p->id, p->name, i);
				const struct ttask *tt = explain_task(d, (int32_t)p->id);
				if (tt) {
					snprintf(b->cgroup, sizeof(b->cgroup), "%s", tt->cgroup);
					explain_format_policy(b->policy, sizeof(b->policy), tt->policy, tt->prio);
				}
				struct result_blocker *g = agg_get(&groups, "cgroup", -1, tt && *tt->cgroup ? tt->cgroup : "?", i);
				g->total_ns += p->ns;
			} else if (p->cat == EXC_IRQ) {
				b = agg_get(&irqs, "irq", p->id, p->name, i);
			} else if (p->cat == EXC_SOFTIRQ) {
				b = agg_get(&irqs, "softirq", p->id, p->name, i);
			}
			if (b)
				b->total_ns += p->ns;
		}
		/* keep the WORST_SAMPLES worst samples' timelines */
		struct result_explain_sample w = {.thread = s[i].thread, .at_ns = s[i].release - origin,
		                                  .lateness_ns = late, .cpu = a->last_cpu, .migrations = a->migrations};
		x->migrations += a->migrations;
		qsort(a->p, (size_t)a->n, sizeof(a->p[0]), by_part_ns);
		for (int k = 0; k < a->n; k++)
			if (a->p[k].id == -2)
				a->p[k].id = -1;
		for (int k = 0; k < a->n; k++) {
			if (k < EXPLAIN_MAX_PARTS - 1 || a->n == EXPLAIN_MAX_PARTS) {
				w.parts[w.nparts++] = a->p[k];
			} else {
				if (w.nparts == EXPLAIN_MAX_PARTS - 1) {
					struct result_explain_part *o = &w.parts[w.nparts++];
					memset(o, 0, sizeof(*o));
					o->cat = EXC_TASK;
					o->id = -1;
					snprintf(o->name, sizeof(o->name), "(others)");
				}
				w.parts[EXPLAIN_MAX_PARTS - 1].ns += a->p[k].ns;
			}
		}
		int pos = nworst;
		while (pos > 0 && worst[pos - 1].lateness_ns < late)
			pos--;
		if (pos < WORST_SAMPLES) {
			memmove(&worst[pos + 1], &worst[pos], (size_t)(nworst - pos) * sizeof(*worst));
			worst[pos] = w;
			if (nworst < WORST_SAMPLES)
				nworst++;
		}
	}
	take_top(x, &tasks, "task", x->late_ns);
	take_top(x, &groups, "cgroup", x->late_ns);
	take_top(x, &irqs, "irq", x->late_ns);
	x->worst = worst;
	x->nworst = nworst;
	for (size_t k = 0; k < ntl; k++)
		free(tl[k].c);
	free(tl);
	free(tasks.b);
	free(tasks.last);
	free(groups.b);
	free(groups.last);
	free(irqs.b);
	free(irqs.last);
	free(a);
}

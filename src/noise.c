/* irt noise's pure part: gaps attributed to kernel events, the summary, the JSON record. */
#include "noise.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "linux/trace.h"
#include "opt.h"
#include "result_json.h"
#include "units.h"
#include "util.h"

static const char *const cause_names[NOISE_NCAUSE] = {"nmi", "irq", "softirq", "thread", "kernel", "hw", "lost"};

const char *noise_cause_name(int cause)
{
	return cause >= 0 && cause < NOISE_NCAUSE ? cause_names[cause] : "?";
}

/* ---- attribution -------------------------------------------------------------------------- */

/* A point where the state inside a gap changes; NMIs give two (entry at ts - delta, exit). */
struct point {
	int64_t ts;
	size_t seq;                /* order among equal times: the events' own */
	const struct tev *ev;
	int nmi;                   /* +1 entry, -1 exit, 0 an ordinary event */
};

static int point_cmp(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool relevant(const struct tev *e)
{
	switch (e->type) {
	case TEV_SWITCH:
	case TEV_IRQ_ENTRY:
	case TEV_IRQ_EXIT:
	case TEV_SOFTIRQ_ENTRY:
	case TEV_SOFTIRQ_EXIT:
	case TEV_VECTOR_ENTRY:
	case TEV_VECTOR_EXIT:
	case TEV_NMI:
		return true;
	}
	return false;
}

/* One gap's parts, before they are added to the totals. */
struct part {
	int cause;
	int64_t id;
	const char *name;
	int64_t ns;
};
#define MAX_PARTS 32

static void add_part(struct part *p, int *np, int cause, int64_t id, const char *name, int64_t ns)
{
	if (ns <= 0)
		return;
	for (int i = 0; i < *np; i++)
		if (p[i].cause == cause && p[i].id == id && strcmp(p[i].name, name) == 0) {
			p[i].ns += ns;
			return;
		}
	if (*np == MAX_PARTS) {   /* a gap with this many sources: the rest under the last */
		p[MAX_PARTS - 1].ns += ns;
		return;
	}
	p[(*np)++] = (struct part){cause, id, name, ns};
}

static void add_source(struct noise_causes *c, const struct part *p)
{
	for (size_t i = 0; i < c->nsrc; i++) {
		struct noise_source *s = &c->src[i];
		if (s->cause == p->cause && s->id == p->id && strcmp(s->name, p->name) == 0) {
			s->ns += p->ns;
			s->gaps++;
			return;
		}
	}
	ARRAY_GROW(c->src, c->nsrc + 1, c->src_cap);
	struct noise_source *s = &c->src[c->nsrc++];
	memset(s, 0, sizeof(*s));
	s->cause = p->cause;
	s->id = p->id;
	snprintf(s->name, sizeof(s->name), "%s", p->name);
	s->ns = p->ns;
	s->gaps = 1;
}

static bool lost_in(const struct tcpu *c, int64_t from, int64_t to)
{
	for (size_t i = 0; i + 1 < c->nloss; i += 2)   /* [from, to) pairs */
		if (c->loss[i] <= to && c->loss[i + 1] > from)
			return true;
	return false;
}

static const char *irq_name(const struct trace_data *d, int irq)
{
	return irq >= 0 && irq < d->nirq && d->irq_names[irq][0] ? d->irq_names[irq] : "irq";
}

static const char *task_name(const struct trace_data *d, int32_t pid)
{
	const struct ttask *k = explain_task(d, pid);
	return k && k->comm[0] ? k->comm : "?";
}

/* The parts of one gap whose relevant events are pts[0..n) (sorted). */
static void split_gap(const struct trace_data *d, int32_t tid, const struct noise_gap *g, const struct point *pts,
                      size_t n, struct part *parts, int *np)
{
	int nmi = 0, irq = 0, sirq = 0;
	int64_t irq_id = -1, sirq_vec = -1;
	const char *irq_nm = "irq";
	bool off = false;
	int32_t cur = -1;
	int64_t at = g->start;
	for (size_t i = 0; i <= n; i++) {
		int64_t until = i < n ? pts[i].ts : g->end;
		int64_t ns = until - at;
		if (nmi > 0)
			add_part(parts, np, NOISE_NMI, -1, "nmi", ns);
		else if (irq > 0)
			add_part(parts, np, NOISE_IRQ, irq_id, irq_nm, ns);
		else if (sirq > 0)
			add_part(parts, np, NOISE_SOFTIRQ, sirq_vec, explain_softirq_name((int)sirq_vec), ns);
		else if (off)
			add_part(parts, np, NOISE_THREAD, cur, task_name(d, cur), ns);
		else
			add_part(parts, np, NOISE_KERNEL, -1, "", ns);
		at = until;
		if (i == n)
			break;
		const struct tev *e = pts[i].ev;
		if (pts[i].nmi) {
			nmi += pts[i].nmi;
			continue;
		}
		switch (e->type) {
		case TEV_SWITCH:
			if (e->a == tid && e->b != tid) {
				off = true;
				cur = e->b;
			} else if (e->b == tid) {
				off = false;
			} else if (off) {
				cur = e->b;
			}
			break;
		case TEV_IRQ_ENTRY:
		case TEV_VECTOR_ENTRY:
			irq++;
			irq_id = e->type == TEV_IRQ_ENTRY ? e->a : -1;
			irq_nm = e->type == TEV_IRQ_ENTRY ? irq_name(d, e->a) : trace_vector_name(e->a);
			break;
		case TEV_IRQ_EXIT:
		case TEV_VECTOR_EXIT:
			irq -= irq > 0;
			break;
		case TEV_SOFTIRQ_ENTRY:
			sirq++;
			sirq_vec = e->a;
			break;
		case TEV_SOFTIRQ_EXIT:
			sirq -= sirq > 0;
			break;
		}
	}
}

void noise_attribute(const struct trace_data *d, int cpu, int32_t tid, const struct noise_gap *gaps, size_t n,
                     struct noise_causes *out)
{
	if (cpu < 0 || cpu >= d->ncpu)
		return;
	const struct tcpu *c = &d->cpu[cpu];
	struct point *pts = NULL;
	size_t cap = 0, first = 0;
	for (size_t k = 0; k < n; k++) {
		const struct noise_gap *g = &gaps[k];
		struct part parts[MAX_PARTS];
		int np = 0;
		if (lost_in(c, g->start, g->end)) {
			add_part(parts, &np, NOISE_LOST, -1, "", g->end - g->start);
		} else {
			while (first < c->n && c->ev[first].ts < g->start)   /* gaps come in time order */
				first++;
			size_t m = 0;
			for (size_t i = first; i < c->n && c->ev[i].ts <= g->end; i++) {
				const struct tev *e = &c->ev[i];
				if (!relevant(e))
					continue;
				ARRAY_GROW(pts, m + 2, cap);
				if (e->type == TEV_NMI) {
					int64_t from = e->ts - e->b;
					pts[m++] = (struct point){from > g->start ? from : g->start, i, e, +1};
					pts[m++] = (struct point){e->ts, i, e, -1};
				} else {
					pts[m++] = (struct point){e->ts, i, e, 0};
				}
			}
			if (m == 0) {
				add_part(parts, &np, NOISE_HW, -1, "", g->end - g->start);
			} else {
				qsort(pts, m, sizeof(*pts), point_cmp);
				split_gap(d, tid, g, pts, m, parts, &np);
			}
		}
		bool in[NOISE_NCAUSE] = {0};
		for (int i = 0; i < np; i++) {
			out->ns[parts[i].cause] += parts[i].ns;
			in[parts[i].cause] = true;
			if (parts[i].cause <= NOISE_THREAD)   /* named sources */
				add_source(out, &parts[i]);
		}
		for (int i = 0; i < NOISE_NCAUSE; i++)
			out->gaps[i] += in[i];
	}
	free(pts);
}

static int source_cmp(const void *a, const void *b)
{
	const struct noise_source *x = a, *y = b;
	return x->ns != y->ns ? (x->ns > y->ns ? -1 : 1) : strcmp(x->name, y->name);
}

void noise_sort_sources(struct noise_causes *c)
{
	if (c->nsrc)
		qsort(c->src, c->nsrc, sizeof(*c->src), source_cmp);
}

void noise_causes_free(struct noise_causes *c)
{
	free(c->src);
	memset(c, 0, sizeof(*c));
}

void noise_result_free(struct noise_result *r)
{
	for (int i = 0; i < r->ncpus; i++) {
		free(r->cpus[i].gap);
		noise_causes_free(&r->cpus[i].causes);
	}
	free(r->cpus);
	free(r->cmdline);
	kvlist_free(&r->settings);
	memset(r, 0, sizeof(*r));
}

double noise_available_pct(const struct noise_cpu *c)
{
	if (c->runtime_ns <= 0)
		return 100.0;
	return 100.0 * (double)(c->runtime_ns - c->noise_ns) / (double)c->runtime_ns;
}

int64_t noise_max_spin(int64_t runtime, int64_t period, int64_t window)
{
	/* the worst window starts where a spin starts: whole periods, then the start of one more */
	int64_t whole = window / period, rest = window % period;
	return whole * runtime + (rest < runtime ? rest : runtime);
}

/* ---- output ------------------------------------------------------------------------------- */

static const char *dur(char *buf, size_t len, int64_t ns)
{
	return units_human_duration(buf, len, ns);
}

/* Up to `max` named sources of one cause: "local_timer 2380 (4.1ms), virtio0-input 20 (...)" */
static void print_sources(FILE *f, const struct noise_causes *c, int cause, int max)
{
	int shown = 0;
	for (size_t i = 0; i < c->nsrc && shown < max; i++) {
		const struct noise_source *s = &c->src[i];
		if (s->cause != cause)
			continue;
		char a[32];
		if (cause == NOISE_THREAD)
			fprintf(f, "%s%s %" PRId64 " (%" PRIu64 " gap%s, %s)", shown ? ", " : "", s->name, s->id, s->gaps,
			        s->gaps == 1 ? "" : "s", dur(a, sizeof(a), s->ns));
		else
			fprintf(f, "%s%s (%" PRIu64 " gap%s, %s)", shown ? ", " : "", s->name, s->gaps, s->gaps == 1 ? "" : "s",
			        dur(a, sizeof(a), s->ns));
		shown++;
	}
}

void noise_print(FILE *f, const struct noise_result *r)
{
	char a[32], b[32], c[32], d[32], s[32];
	fprintf(f, "%-5s %12s %12s %12s %12s %10s %12s %12s\n", "cpu", "runtime", "noise", "% available", "max noise",
	        "events", "gap p99", "steal");
	for (int i = 0; i < r->ncpus; i++) {
		const struct noise_cpu *n = &r->cpus[i];
		if (n->steal_ns >= 0)
			dur(s, sizeof(s), n->steal_ns);
		else
			snprintf(s, sizeof(s), "?");
		fprintf(f, "%-5d %12s %12s %12.5f %12s %10" PRIu64 " %12s %12s\n", n->cpu, dur(a, sizeof(a), n->runtime_ns),
		        dur(b, sizeof(b), n->noise_ns), noise_available_pct(n), dur(c, sizeof(c), n->gaps.count ? n->gaps.max : 0),
		        n->events, dur(d, sizeof(d), hist_percentile(&n->gaps, 99)), s);
	}
	if (!r->explain)
		return;
	if (strcmp(r->explain_source, "tracefs") != 0) {
		fprintf(f, "\ncauses: not attributed (%s)\n", r->explain_reason);
		return;
	}
	fprintf(f, "\n%-5s %-8s %10s %12s  %s\n", "cpu", "cause", "gaps", "time", "sources");
	for (int i = 0; i < r->ncpus; i++) {
		const struct noise_causes *k = &r->cpus[i].causes;
		for (int cause = 0; cause < NOISE_NCAUSE; cause++) {
			if (!k->gaps[cause])
				continue;
			fprintf(f, "%-5d %-8s %10" PRIu64 " %12s  ", r->cpus[i].cpu, cause_names[cause], k->gaps[cause],
			        dur(a, sizeof(a), k->ns[cause]));
			if (cause == NOISE_HW)
				fprintf(f, "hardware or host (no kernel event)");
			else if (cause == NOISE_KERNEL)
				fprintf(f, "kernel entry, exit and scheduling around the events");
			else if (cause == NOISE_LOST)
				fprintf(f, "events lost: not attributed");
			else
				print_sources(f, k, cause, 3);
			fprintf(f, "\n");
		}
	}
	if (r->vectors_note[0])
		fprintf(f, "note: this kernel has no %s event: what they would show counts as hw (docs/noise.md)\n",
		        r->vectors_note);
	if (r->trace_lost)
		fprintf(f, "note: %" PRIu64 " events were lost (--explain-buffer); gaps around them count as lost\n",
		        r->trace_lost);
}

static json_t *jint(int64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *causes_json(const struct noise_causes *c)
{
	json_t *o = json_object(), *src = json_array();
	for (int i = 0; i < NOISE_NCAUSE; i++) {
		json_t *k = json_object();
		json_object_set_new(k, "gaps", jint((int64_t)c->gaps[i]));
		json_object_set_new(k, "ns", jint(c->ns[i]));
		json_object_set_new(o, cause_names[i], k);
	}
	for (size_t i = 0; i < c->nsrc; i++) {
		const struct noise_source *s = &c->src[i];
		json_t *j = json_object();
		json_object_set_new(j, "cause", result_jstr(cause_names[s->cause]));
		json_object_set_new(j, "name", result_jstr(s->name));
		json_object_set_new(j, "id", jint(s->id));
		json_object_set_new(j, "gaps", jint((int64_t)s->gaps));
		json_object_set_new(j, "ns", jint(s->ns));
		json_array_append_new(src, j);
	}
	json_object_set_new(o, "sources", src);
	return o;
}

int noise_write_json(const struct noise_result *r, const char *path, struct err *e)
{
	json_t *o = result_head_json(NOISE_SCHEMA, IRT_VERSION_STRING, "noise", r->cmdline, r->start_realtime_ns,
	                             r->end_realtime_ns, r->duration_ns, r->interrupted);
	json_t *cpus = json_array();
	json_object_set_new(o, "env", result_env_json(&r->env));
	json_object_set_new(o, "settings", result_kv_json(&r->settings));
	for (int i = 0; i < r->ncpus; i++) {
		const struct noise_cpu *n = &r->cpus[i];
		json_t *j = json_object();
		json_object_set_new(j, "cpu", jint(n->cpu));
		json_object_set_new(j, "tid", jint(n->tid));
		json_object_set_new(j, "runtime_ns", jint(n->runtime_ns));
		json_object_set_new(j, "windows", jint((int64_t)n->windows));
		json_object_set_new(j, "excluded_ns", jint(n->excluded_ns));
		json_object_set_new(j, "noise_ns", jint(n->noise_ns));
		json_object_set_new(j, "available_pct", json_real(noise_available_pct(n)));
		json_object_set_new(j, "max_ns", jint(n->gaps.count ? n->gaps.max : 0));
		json_object_set_new(j, "events", jint((int64_t)n->events));
		json_object_set_new(j, "steal_ns", jint(n->steal_ns));
		json_object_set_new(j, "gaps", result_hist_json(&n->gaps));
		if (n->attributed)
			json_object_set_new(j, "causes", causes_json(&n->causes));
		json_array_append_new(cpus, j);
	}
	json_object_set_new(o, "cpus", cpus);
	if (r->explain) {
		json_t *x = json_object();
		json_object_set_new(x, "source", result_jstr(r->explain_source));
		json_object_set_new(x, "reason", result_jstr(r->explain_reason));
		json_object_set_new(x, "missing_events", result_jstr(r->vectors_note));
		json_object_set_new(x, "events", jint((int64_t)r->trace_events));
		json_object_set_new(x, "events_lost", jint((int64_t)r->trace_lost));
		json_object_set_new(o, "explain", x);
	}
	int rc = result_json_write(o, path, e);
	json_decref(o);
	return rc;
}

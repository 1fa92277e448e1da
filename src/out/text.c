#include "out/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cond_diff.h"
#include "probe_cfg.h"
#include "trust.h"
#include "units.h"
#include "util.h"

int64_t out_thread_period(const struct result_thread *t)
{
	int64_t p = 0;
	const char *v = kvlist_get(&t->settings, "period");
	if (v && units_parse_duration(v, &p))
		p = 0;
	return p;
}

/* The columns of the widest thread name, at least min. */
static int name_width(const struct result *r, int min)
{
	int w = min;
	for (int i = 0; i < r->nthreads; i++) {
		int l = text_width(r->threads[i].name);
		if (l > w)
			w = l;
	}
	return w;
}

const char *out_table_title(bool resp, bool watch, bool runq)
{
	if (runq && !resp)
		return "run-queue latency of every task (sched_waking or preemption -> running)";
	if (watch)
		return resp ? "response time (sched_waking -> switched out to sleep)" : "wake-up latency (sched_waking -> running)";
	return resp ? "response time (release -> work done)" : "wake-up latency (release -> running)";
}

static void table(FILE *f, const struct result *r, int resp)
{
	static const char *const pct_names[] = {"p50", "p90", "p99", "p99.9", "p99.99"};
	int w = name_width(r, 6);
	char nb[256];
	fprintf(f, "%s\n", out_table_title(resp, strcmp(r->command, "watch") == 0, r->runq.present));
	const char *rows = !r->runq.present ? "thread" : strcmp(r->runq.top_of, "process") == 0 ? "process" : "task";
	fprintf(f, "%s %9s %8s", text_fit(nb, sizeof(nb), rows, w, TEXT_LEFT), "samples", "min");
	for (int p = 0; p < result_npercentiles; p++)
		fprintf(f, " %8s", pct_names[p]);
	fprintf(f, " %8s %9s %8s\n", "max", "overruns", "met %");
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		const struct hist *h = resp ? &t->resp : &t->wake;
		char b[32];
		fprintf(f, "%s %9" PRIu64 " %8s", text_fit(nb, sizeof(nb), t->name, w, TEXT_LEFT), h->count,
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

/* Probes that measured for different times (their own --duration each): how long each did,
 * as the tables' sample counts alone do not say it. */
static void times_line(FILE *f, const struct result *r)
{
	int64_t *ns = xcalloc((size_t)r->nthreads * 2 + 1, sizeof(*ns)), *per = ns + r->nthreads;
	const char *first = NULL;
	bool durations_differ = false;
	int n = 0;
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		const char *d = kvlist_get(&t->settings, "duration");
		if (strcmp(t->role, "probe") != 0 || !d)
			continue;
		first = first ? first : d;
		durations_differ |= strcmp(d, first) != 0;
		per[n] = out_thread_period(t);
		ns[n] = (int64_t)(t->samples + t->skipped) * per[n];
		n++;
	}
	if (durations_differ && probe_times_differ(ns, per, n)) {
		fprintf(f, "probes measured for different times (a -D after a --name is that probe's own):");
		for (int i = 0, k = 0; i < r->nthreads; i++) {
			const struct result_thread *t = &r->threads[i];
			char b[32];
			if (strcmp(t->role, "probe") != 0 || !kvlist_get(&t->settings, "duration"))
				continue;
			fprintf(f, "%s %s %s (%" PRIu64 " wake-ups)", k ? "," : "", t->name,
			        units_human_duration(b, sizeof(b), ns[k]), t->samples + t->skipped);
			k++;
		}
		fprintf(f, "\n");
	}
	free(ns);
}

/* A probe that fell behind ran past its -D (or -n): how far, and why, since the run and its
 * loads lasted that much longer than asked (docs/probe.md "How long"). */
static void past_window_line(FILE *f, const struct result_thread *t, int64_t period)
{
	char past[32], asked[32];
	units_human_duration(past, sizeof(past), t->past_window_ns);
	units_human_duration(asked, sizeof(asked), (int64_t)(t->samples + t->skipped) * period);
	if (result_thread_skips(t))
		fprintf(f, "%s: ran %s past its -D/-n window of %s: its last wake-up came late and its work (--burn, "
		        "--touch) or the wait for a CPU outlasted the period\n", t->name, past, asked);
	else
		fprintf(f, "%s: ran %s past its -D/-n window of %s: it fell behind (late wake-ups, or work longer than "
		        "the period) and --overrun catch-up measures every release of the window, the missed ones after it, "
		        "back to back (--overrun skip keeps to the window)\n", t->name, past, asked);
}

/* --all: what the table holds of every task's waits, and what it left out */
static void runq_lines(FILE *f, const struct result *r)
{
	const struct result_runq *q = &r->runq;
	int64_t shown = 0, ntop = 0;
	for (int i = 0; i < r->nthreads; i++)
		if (strcmp(r->threads[i].role, "watch-task") == 0) {
			shown += (int64_t)r->threads[i].samples;
			ntop++;
		}
	/* --top-of process: the table's rows are processes, each its threads' waits together */
	const char *what = strcmp(q->top_of, "process") == 0 ? "process" : "task", *pl = *what == 'p' ? "es" : "s";
	fprintf(f, "every task: %" PRId64 " waits for a CPU (%" PRId64 " after a wake-up, %" PRId64 " after a preemption); ",
	        q->woken + q->preempted, q->woken, q->preempted);
	if (ntop)
		fprintf(f, "the %" PRId64 " worst %s%s by %s (%" PRId64 " waits) %s above, %" PRId64 " waits of the other %" PRId64
		        " %s%s kept", ntop, what, ntop == 1 ? "" : pl, q->top_by, shown, ntop == 1 ? "is" : "are", q->other,
		        q->tasks - ntop, what, pl);
	else   /* --top 0, or no task waited */
		fprintf(f, "no %s listed, %" PRId64 " waits of %" PRId64 " %s%s kept", what, q->other, q->tasks, what, pl);
	fprintf(f, ", %" PRId64 " dropped (table of %" PRId64 " %s%s: %" PRId64 " replaced by worse ones)\n", q->dropped,
	        q->table, what, pl, q->evicted);
	if (q->excluded)
		fprintf(f, "irt's own threads left out: %" PRId64 " waits (--include-irt keeps them)\n", q->excluded);
	if (q->events_lost || q->lost || q->untimed)
		fprintf(f, "LOST %" PRId64 " of %" PRId64 " scheduler events: %" PRId64 " waits across them not recorded; "
		        "%" PRId64 " waits not timed (too many tasks waiting at once)\n", q->events_lost, q->events + q->events_lost,
		        q->lost, q->untimed);
	else
		fprintf(f, "no scheduler event lost (%" PRId64 " read)\n", q->events);
}

void out_summary(FILE *f, const struct result *r)
{
	table(f, r, 0);
	if (r->runq.present) {   /* no response time: a task's waits, not its work */
		runq_lines(f, r);
		return;
	}
	fprintf(f, "\n");
	table(f, r, 1);
	times_line(f, r);
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		if (result_thread_skips(t))
			fprintf(f, "%s: --overrun skip: %" PRIu64 " release%s passed over after late wake-ups, not measured\n",
			        t->name, t->skipped, t->skipped == 1 ? "" : "s");
		/* a response is at least the work and the wait before it: when even the shortest
		 * outlasts the period, the probe never caught up with its releases */
		int64_t period = out_thread_period(t);
		if (period > 0 && t->resp.count && t->resp.min > period) {
			char a[32], b[32];
			fprintf(f, "%s: no release ended within its period (shortest response %s, period %s): the probe never "
			        "caught up, so these figures measure its backlog; its work (--burn, --touch) or the wait for "
			        "a CPU outlasts the period\n",
			        t->name, units_human_duration(a, sizeof(a), t->resp.min), units_human_duration(b, sizeof(b), period));
		}
		if (t->past_window_ns > 0)
			past_window_line(f, t, period);
	}
	char stopped[256];
	if (out_stopped_line(stopped, sizeof(stopped), r))
		fprintf(f, "%s\n", stopped);
}

bool out_stopped_line(char *buf, size_t len, const struct result *r)
{
	const struct result_thread *st = result_stopper(r);
	if (!st)
		return false;
	char late[32], above[32];
	snprintf(buf, len, "stopped: %s's wake-up at +%.3fs was %s late (--stop-above %s)", st->name,
	         (double)st->stop_at_ns / 1e9, units_human_duration(late, sizeof(late), st->stop_wake_ns),
	         units_human_duration(above, sizeof(above), st->stop_above_ns));
	return true;
}

static void attribution_table(FILE *f, const struct result *r)
{
	bool any = false;
	for (int i = 0; i < r->nthreads; i++)
		any |= r->threads[i].attributed;
	if (!any)
		return;
	fprintf(f, "\nlateness split (--attribute): runqueue wait | the rest (timer, IRQ, wake-up path) | backlog "
	           "(own previous job)\n");
	int w = name_width(r, 12);
	char nb[256];
	fprintf(f, "%s %9s %9s %9s   %9s %9s %9s   %11s %11s %11s\n", text_fit(nb, sizeof(nb), "thread", w, TEXT_LEFT),
	        "wait p50", "wait p99", "wait max", "rest p50", "rest p99", "rest max", "backlog p50", "backlog p99",
	        "backlog max");
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		if (!t->attributed)
			continue;
		char a[9][32];
		const struct hist *h[3] = {&t->attr_runq, &t->attr_other, &t->attr_backlog};
		for (int k = 0; k < 3; k++) {
			if (!h[k]->count) {   /* a file from before the backlog was split off: in the rest */
				for (int j = 0; j < 3; j++)
					snprintf(a[3 * k + j], 32, "-");
				continue;
			}
			units_human_duration(a[3 * k], 32, hist_percentile(h[k], 50));
			units_human_duration(a[3 * k + 1], 32, hist_percentile(h[k], 99));
			units_human_duration(a[3 * k + 2], 32, h[k]->max);
		}
		fprintf(f, "%s %9s %9s %9s   %9s %9s %9s   %11s %11s %11s\n", text_fit(nb, sizeof(nb), t->name, w, TEXT_LEFT),
		        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
	}
}

static void human_rate(char *buf, size_t len, double v, const char *unit)
{
	const char *p = "";
	if (v >= 1e9) {
		v /= 1e9;
		p = "G";
	} else if (v >= 1e6) {
		v /= 1e6;
		p = "M";
	} else if (v >= 1e3) {
		v /= 1e3;
		p = "k";
	}
	snprintf(buf, len, "%.3g %s%s/s", v, p, unit);
}

static void loads_table(FILE *f, const struct result *r)
{
	if (!r->nloads)
		return;
	fprintf(f, "\nloads (throughput over the measuring window)\n");
	char nb[256], sb[256];
	fprintf(f, "%-12s %-34s %16s %16s  %s\n", "load", "spec", "operations", "bytes", "end");
	for (int i = 0; i < r->nloads; i++) {
		const struct result_load *l = &r->loads[i];
		char ops[48], bytes[48];
		human_rate(ops, sizeof(ops), l->ops_per_s, l->ops_unit);
		if (l->bytes_unit[0])
			human_rate(bytes, sizeof(bytes), l->bytes_per_s, "B");
		else
			snprintf(bytes, sizeof(bytes), "-");
		fprintf(f, "%s %s %16s %16s  %s%s%s\n", text_fit(nb, sizeof(nb), l->name, 12, TEXT_LEFT),
		        text_fit(sb, sizeof(sb), l->spec, 34, TEXT_LEFT | TEXT_CUT), ops, bytes, l->end,
		        l->failure[0] ? ": " : "", l->failure);
	}
}

/* "name", "name (children)", "name (exited)" */
static void acct_name(char *buf, size_t len, const struct result_acct *a)
{
	snprintf(buf, len, "%s%s", a->name, strcmp(a->kind, "children") == 0 ? " (children)" : a->exited ? " (exited)" : "");
}

static void acct_rows(FILE *f, const struct result *r)
{
	if (!r->nacct)
		return;
	char win[32] = "";
	if (r->context.present)   /* the window every row covers (docs/accounting.md) */
		snprintf(win, sizeof(win), " (%s)", units_human_duration((char[32]){0}, 32, r->context.wall_ns));
	fprintf(f, "\nCPU accounting over the measuring window%s\n", win);
	/* as wide as the longest name and role, as the percentile tables (they were cut:
	 * "irt-load (childr", "load compi") */
	int nw = 16, rw = 10;
	char name[96], nb[256], rb[256];
	for (int i = 0; i < r->nacct; i++) {
		acct_name(name, sizeof(name), &r->acct[i]);
		int n = text_width(name), l = text_width(r->acct[i].role);
		nw = n > nw ? n : nw;
		rw = l > rw ? l : rw;
	}
	fprintf(f, "%s %s %9s %9s %8s %9s\n", text_fit(nb, sizeof(nb), "thread", nw, TEXT_LEFT),
	        text_fit(rb, sizeof(rb), "role", rw, TEXT_LEFT), "used", "waited", "share %", "switches");
	for (int i = 0; i < r->nacct; i++) {
		const struct result_acct *a = &r->acct[i];
		/* an exited thread's figures died with it: "-", not 0 (unknown elsewhere: "?") */
		const char *none = a->exited ? "-" : "?";
		char used[32], waited[32], sw[32], share[32];
		acct_name(name, sizeof(name), a);
		units_human_duration(used, sizeof(used), a->used_ns < 0 ? 0 : a->used_ns);
		snprintf(share, sizeof(share), "%.1f", a->cpu_pct);
		if (a->exited) {
			snprintf(used, sizeof(used), "-");
			snprintf(share, sizeof(share), "-");
		}
		if (a->waited_ns < 0)
			snprintf(waited, sizeof(waited), "%s", none);
		else
			units_human_duration(waited, sizeof(waited), a->waited_ns);
		if (a->vol_switches < 0 || a->invol_switches < 0)
			snprintf(sw, sizeof(sw), "%s", none);
		else
			snprintf(sw, sizeof(sw), "%" PRId64, a->vol_switches + a->invol_switches);
		fprintf(f, "%s %s %9s %9s %8s %9s\n", text_fit(nb, sizeof(nb), name, nw, TEXT_LEFT),
		        text_fit(rb, sizeof(rb), a->role, rw, TEXT_LEFT), used, waited, share, sw);
	}
}

static void context_line(FILE *f, const struct result *r)
{
	const struct result_context *c = &r->context;
	if (!c->present)
		return;
	fprintf(f, "\nsystem: steal %.2f%%", c->steal_pct < 0 ? 0 : c->steal_pct);
	if (c->psi_some_pct >= 0)
		fprintf(f, ", cpu pressure some %.1f%% full %.1f%%", c->psi_some_pct, c->psi_full_pct < 0 ? 0 : c->psi_full_pct);
	if (c->ctxt_per_s >= 0)
		fprintf(f, ", %.0f context switches/s", c->ctxt_per_s);
	if (c->load1 >= 0)
		fprintf(f, ", load %.2f", c->load1);
	fprintf(f, "\n");
	for (int i = 0; i < c->ncgroups; i++) {
		const struct result_cgroup_stat *g = &c->cgroups[i];
		char thr[32];
		fprintf(f, "cgroup %s: throttled %" PRId64 " of %" PRId64 " periods, %s\n", g->path, g->nr_throttled,
		        g->nr_periods, units_human_duration(thr, sizeof(thr), g->throttled_ns < 0 ? 0 : g->throttled_ns));
	}
	if (c->noisy)
		fprintf(f, "NOISY: %s — treat these numbers with care\n", c->noisy_why);
}

static void explain_part(char *buf, size_t len, const struct result_explain_part *p)
{
	char d[32];
	units_human_duration(d, sizeof(d), p->ns);
	if (p->cat == EXC_TASK && p->id >= 0)
		snprintf(buf, len, "%s (%lld) %s", p->name, (long long)p->id, d);
	else if (p->cat == EXC_IRQ || p->cat == EXC_SOFTIRQ)
		snprintf(buf, len, "%s %s %s", result_explain_category(p->cat), p->name, d);
	else if (p->name[0])
		snprintf(buf, len, "%s %s", p->name, d);
	else
		snprintf(buf, len, "%s %s", result_explain_category(p->cat), d);
}

/* s cut to at most max columns (as "%.40s", at a whole character), not padded */
static char *cut(char *buf, size_t len, const char *s, int max)
{
	int w = text_width(s);
	return text_fit(buf, len, s, w < max ? w : max, TEXT_CUT);
}

void out_explain(FILE *f, const struct result *r)
{
	const struct result_explain *x = &r->explain;
	if (!x->present)
		return;
	if (strcmp(x->source, "tracefs") != 0) {
		fprintf(f, "why late (--explain): not traced: %s; the --attribute split above instead\n", x->reason);
		return;
	}
	char a[32], b[32];
	fprintf(f, "why late (--explain): %lld wake-up%s at least %s late", (long long)x->tail_samples,
	        x->tail_samples == 1 ? "" : "s", units_human_duration(a, sizeof(a), x->threshold_ns));
	fprintf(f, "; %lld explained from %llu scheduler events", (long long)x->explained, (unsigned long long)x->events);
	if (x->events_lost || x->lost_samples)
		fprintf(f, "; LOST %llu events: %lld of those wake-ups are not explained", (unsigned long long)x->events_lost,
		        (long long)x->lost_samples);
	fprintf(f, "\n");
	if (!x->explained)
		return;
	fprintf(f, "where their %s went:", units_human_duration(a, sizeof(a), x->late_ns));
	for (int c = 0; c < EXC_N; c++)
		if (x->cat_ns[c])
			fprintf(f, " %s %.1f%%", result_explain_category(c), 100.0 * (double)x->cat_ns[c] / (double)x->late_ns);
	if (x->migrations)
		fprintf(f, "; %lld migrations", (long long)x->migrations);
	fprintf(f, "\n");
	fprintf(f, "%-28s %-8s %7s %9s %8s  %-16s %s\n", "top blockers", "kind", "share", "total", "samples", "policy",
	        "cgroup");
	for (int i = 0; i < x->nblockers; i++) {
		const struct result_blocker *bl = &x->blockers[i];
		char name[128], nb[256], pb[128];
		if (bl->id >= 0)
			snprintf(name, sizeof(name), "%s (%lld)", cut(nb, sizeof(nb), bl->name, 40), (long long)bl->id);
		else
			cut(name, sizeof(name), bl->name, 60);
		fprintf(f, "%s %-8s %6.1f%% %9s %8lld  %s %s\n", text_fit(nb, sizeof(nb), name, 28, TEXT_LEFT), bl->kind,
		        100.0 * bl->share, units_human_duration(b, sizeof(b), bl->total_ns), (long long)bl->samples,
		        text_fit(pb, sizeof(pb), bl->policy, 16, TEXT_LEFT), bl->cgroup);
	}
	if (result_explain_policy_note(x))
		fprintf(f, "%s\n", result_explain_policy_note(x));
	char note[512];
	if (result_explain_preempt_note(r, note, sizeof(note)))
		fprintf(f, "%s\n", note);
	for (int i = 0; i < x->nworst && i < 3; i++) {
		const struct result_explain_sample *w = &x->worst[i];
		/* +s from the window's start, as the stopped: line */
		fprintf(f, "%s wake-up: %s at +%.3fs, %s late", i ? "next" : "worst",
		        w->thread < r->nthreads ? r->threads[w->thread].name : "?", (double)w->at_ns / 1e9,
		        units_human_duration(b, sizeof(b), w->lateness_ns));
		if (w->cpu >= 0)
			fprintf(f, " (ran on CPU %d%s)", w->cpu, w->migrations ? ", migrated" : "");
		fprintf(f, ":");
		for (int k = 0; k < w->nparts; k++) {
			char p[128];
			explain_part(p, sizeof(p), &w->parts[k]);
			fprintf(f, "%s %s", k ? "," : "", p);
		}
		fprintf(f, "\n");
	}
}

void out_run_sections(FILE *f, const struct result *r)
{
	char cond[1024];
	cond_summary(r, cond, sizeof(cond));
	if (cond[0])   /* every real result: which PM QoS and idle states it was measured under */
		fprintf(f, "\nconditions: %s\n", cond);
	attribution_table(f, r);
	if (r->explain.present)
		fprintf(f, "\n");
	out_explain(f, r);
	loads_table(f, r);
	acct_rows(f, r);
	context_line(f, r);
	if (r->placement.mode[0]) {
		fprintf(f, "placement: %s", r->placement.mode);
		if (r->placement.probe_cgroup[0])
			fprintf(f, "; probes in cgroup %s", r->placement.probe_cgroup);
		if (r->placement.load_cgroup[0])
			fprintf(f, "; loads in cgroup %s", r->placement.load_cgroup);
		if (r->placement.load_autogroup[0])
			fprintf(f, "; load autogroup %s", r->placement.load_autogroup);
		if (strcmp(r->command, "watch") == 0)
			fprintf(f, "; watched threads left where they are");
		fprintf(f, "\n");
	}
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
		struct seed_key *keys = xcalloc(n ? n : 1, sizeof(*keys));
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

/* --explain's findings as comment lines, which readers of cyclictest's output skip: the format
 * has no place of its own for them, and dropping them would waste the trace the user asked for */
static void explain_comments(FILE *f, const struct result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = xmemstream(&buf, &len);
	out_explain(m, r);
	fclose(m);
	for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		fprintf(f, "# %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
	}
	free(buf);
}

void out_cyclictest(FILE *f, const struct result *r, int buckets, bool sum)
{
	int n = r->nthreads;
	sum = sum && n > 1;   /* as cyclictest -H: no column for one thread */
	uint64_t all_total = 0, all_over = 0;
	int64_t all_max = 0;
	uint64_t *rows = xcalloc((size_t)buckets * (size_t)(n ? n : 1), sizeof(*rows));
	uint64_t *over = xcalloc((size_t)(n ? n : 1), sizeof(*over));
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
	/* cyclictest's first line when it holds the PM QoS request (irt --pm-qos N) */
	long long held;
	const char *pm = kvlist_get(&r->conditions, "pm_qos");
	if (pm && sscanf(pm, "held at %lld", &held) == 1)
		fprintf(f, "# /dev/cpu_dma_latency set to %lldus\n", held);
	fprintf(f, "# Histogram\n");
	for (int u = 0; u < buckets; u++) {
		uint64_t row = 0;
		fprintf(f, "%06d", u);
		for (int i = 0; i < n; i++) {
			row += rows[(size_t)u * (size_t)n + (size_t)i];
			fprintf(f, "%s%06" PRIu64, i ? "\t" : " ", rows[(size_t)u * (size_t)n + (size_t)i]);
		}
		if (sum)
			fprintf(f, "\t%06" PRIu64, row);
		fprintf(f, "\n");
	}
	fprintf(f, "# Total:");
	for (int i = 0; i < n; i++) {
		all_total += r->threads[i].wake.count - over[i];
		fprintf(f, " %09" PRIu64, r->threads[i].wake.count - over[i]);
	}
	if (sum)
		fprintf(f, " %09" PRIu64, all_total);
	fprintf(f, "\n# Min Latencies:");
	for (int i = 0; i < n; i++)
		fprintf(f, " %05" PRId64, r->threads[i].wake.count ? r->threads[i].wake.min / 1000 : 0);
	fprintf(f, "\n# Avg Latencies:");
	for (int i = 0; i < n; i++)
		fprintf(f, " %05" PRId64, (int64_t)(hist_mean(&r->threads[i].wake) / 1000.0));
	fprintf(f, "\n# Max Latencies:");
	for (int i = 0; i < n; i++) {
		all_max = r->threads[i].wake.max > all_max ? r->threads[i].wake.max : all_max;
		fprintf(f, " %05" PRId64, r->threads[i].wake.max / 1000);
	}
	if (sum)   /* cyclictest sums no Min or Avg */
		fprintf(f, " %05" PRId64, all_max / 1000);
	fprintf(f, "\n# Histogram Overflows:");
	for (int i = 0; i < n; i++) {
		all_over += over[i];
		fprintf(f, " %05" PRIu64, over[i]);
	}
	if (sum)
		fprintf(f, " %05" PRIu64, all_over);
	fprintf(f, "\n# Histogram Overflow at cycle number:\n");
	for (int i = 0; i < n; i++) {
		/* irt keeps no per-sample cycle numbers; say how many, as cyclictest does past its list */
		fprintf(f, "# Thread %d:", i);
		if (over[i])
			fprintf(f, " # %05" PRIu64 " others", over[i]);
		fprintf(f, "\n");
	}
	/* cyclictest never measures a release it has passed; irt's default does (each back to back,
	 * barely late), so the rows and Min differ from cyclictest's where that happened: say so */
	uint64_t caught = 0;
	for (int i = 0; i < n; i++)
		if (!result_thread_skips(&r->threads[i]))
			caught += r->threads[i].overruns;
	if (caught)
		fprintf(f, "# irt: %" PRIu64 " overrun%s: the releases passed meanwhile were measured back to back "
		        "(--overrun catch-up); cyclictest skips them, as irt --overrun skip does\n", caught,
		        caught == 1 ? "" : "s");
	explain_comments(f, r);
	fprintf(f, "\n");   /* cyclictest ends its histogram with an empty line */
	free(rows);
	free(over);
}

int out_csv(const struct result *r, const char *path, struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
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
	bad |= fclose(f) != 0;
	int rc = bad ? err_set(e, EXIT_RUNTIME, "%s: cannot write: out of memory", path)
		     : write_atomic(path, buf, len, e);
	free(buf);
	return rc;
}

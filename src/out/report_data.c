/* The report's series (what latency charts and tables show), labels, and atomic file writes. */
#include "out/report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cond_diff.h"
#include "units.h"
#include "util.h"

const char *report_label(const struct report_in *in, int i, char *buf, size_t len)
{
	if (in->labels && in->labels[i])
		return in->labels[i];
	snprintf(buf, len, "result %d", i + 1);
	return buf;
}

void report_conditions(const struct report_in *in, void (*each)(void *ctx, int i, const char *summary), void *ctx,
                       struct strlist *diff)
{
	char cond[1024], other[1024];
	const struct result **rs = xcalloc((size_t)in->n + 1, sizeof(*rs));
	const char **labels = xcalloc((size_t)in->n + 1, sizeof(*labels));
	char (*labbuf)[64] = xcalloc((size_t)in->n + 1, sizeof(*labbuf));
	for (int i = 0; i < in->n; i++) {
		cond_summary(in->rs[i], cond, sizeof(cond));
		bool seen = !cond[0];
		for (int j = 0; j < i && !seen; j++) {
			cond_summary(in->rs[j], other, sizeof(other));
			seen = strcmp(cond, other) == 0;
		}
		if (!seen)
			each(ctx, i, cond);
		rs[i] = in->rs[i];
		labels[i] = report_label(in, i, labbuf[i], sizeof(labbuf[i]));
	}
	cond_differences(rs, labels, in->n, true, diff);
	free(rs);
	free(labels);
	free(labbuf);
}

char *report_ns(char *buf, size_t len, int64_t ns, bool micro)
{
	char tmp[48];
	units_human_duration(tmp, sizeof(tmp), ns);
	size_t n = strlen(tmp);
	if (micro && n > 2 && strcmp(tmp + n - 2, "us") == 0)
		snprintf(buf, len, "%.*sµs", (int)(n - 2), tmp);
	else
		snprintf(buf, len, "%s", tmp);
	return buf;
}

static bool zero_value(const char *v)
{
	return !v || !v[0] || strcmp(v, "0") == 0 || strcmp(v, "0ns") == 0 || strcmp(v, "0B") == 0 ||
	       strcmp(v, "none") == 0;
}

void report_thread_desc(const struct result_thread *t, char *buf, size_t len)
{
	static const char *const keys[] = {"persona", "period", "policy", "burn", "touch", NULL};
	size_t n = 0;
	buf[0] = 0;
	if (strcmp(t->role, "sim") == 0) {   /* a simulated thread: its workload keys (the policy is the run's) */
		for (int k = 0; k < t->settings.n && n < len; k++)
			if (strcmp(t->settings.v[k].key, "policy") && strcmp(t->settings.v[k].key, "cpu"))
				n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "", t->settings.v[k].key,
				                      t->settings.v[k].value);
		return;
	}
	for (int k = 0; keys[k] && n < len; k++) {
		const char *v = kvlist_get(&t->settings, keys[k]);
		if (zero_value(v))
			continue;
		if (strcmp(keys[k], "policy") == 0) {
			const char *prio = kvlist_get(&t->settings, "prio"), *nice = kvlist_get(&t->settings, "nice");
			bool rt = strcmp(v, "fifo") == 0 || strcmp(v, "rr") == 0;
			if (rt && !zero_value(prio))
				n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "", v, prio);
			else if (!rt && !zero_value(nice))
				n += (size_t)snprintf(buf + n, len - n, "%s%s nice %s", n ? ", " : "", v, nice);
			else
				n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", v);
		} else {
			n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "", keys[k], v);
		}
	}
	if (result_thread_skips(t) && n < len)   /* its tail is not comparable to catching up */
		n += (size_t)snprintf(buf + n, len - n, "%s--overrun skip: %" PRIu64 " releases skipped", n ? ", " : "",
		                      t->skipped);
	for (int k = 0; !n && k < t->settings.n && k < 3 && n < len; k++)   /* other producers */
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? ", " : "", t->settings.v[k].key, t->settings.v[k].value);
}

void report_sim_figs(const struct result_thread *t, struct report_sim_figs *f)
{
	snprintf(f->share, sizeof(f->share), "%.2f%%", (double)t->sim_share_ppm / 10000.0);
	units_human_duration(f->used, sizeof(f->used), t->sim_used_ns);
	units_human_duration(f->spent, sizeof(f->spent), t->sim_spent_ns);
	snprintf(f->switches, sizeof(f->switches), "%" PRIu64, t->sim_switches);
	uint64_t dl = t->deadlines_met + t->deadlines_missed;
	if (dl)
		snprintf(f->met, sizeof(f->met), "%.1f%%", 100.0 * (double)t->deadlines_met / (double)dl);
	else
		snprintf(f->met, sizeof(f->met), "-");
	if (t->sim_completion_ns > 0)
		units_human_duration(f->done, sizeof(f->done), t->sim_completion_ns);
	else
		snprintf(f->done, sizeof(f->done), "%s", t->sim_completion_ns < 0 ? "not done" : "-");
	if (t->sim_activations_min >= 0 || t->sim_windows)
		snprintf(f->timer, sizeof(f->timer), "%" PRIu64 "/%" PRIu64, t->sim_windows_ok, t->sim_windows);
	else
		snprintf(f->timer, sizeof(f->timer), "-");
}

bool report_has_sim(const struct report_in *in)
{
	for (int i = 0; i < in->n; i++)
		for (int t = 0; t < in->rs[i]->nthreads; t++)
			if (strcmp(in->rs[i]->threads[t].role, "sim") == 0)
				return true;
	return false;
}

void report_cell_desc(const struct sweep_cell *c, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int k = 0; k < c->settings.n && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", k ? ", " : "", c->settings.v[k].key, c->settings.v[k].value);
	if (c->load[0] && n < len)
		snprintf(buf + n, len - n, "%sload %s", n ? "; " : "", c->load);
}

int report_metric(const struct report_in *in, const char **metric, struct err *e)
{
	*metric = NULL;
	if (!in->sw) {
		if (in->metric)
			return err_set(e, EXIT_USAGE, "--metric: only applies to a sweep (give a directory holding sweep.json)");
		return 0;
	}
	const char *m = in->metric ? in->metric : in->sw->metric;
	for (int i = 0; i < in->sw->ncells; i++)
		if (sweep_cell_metric(&in->sw->cells[i], m)) {
			*metric = m;
			return 0;
		}
	char list[256] = "";
	size_t n = 0;
	const struct sweep_cell *c0 = &in->sw->cells[0];
	for (int k = 0; k < c0->nmetrics && n < sizeof(list); k++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", k ? ", " : "", c0->metrics[k].name);
	if (in->metric)
		return err_set(e, EXIT_USAGE, "--metric: '%s' is not a metric of %s (metrics: %s)", m, in->sw->path, list);
	return err_set(e, EXIT_USAGE, "%s: $.metric: '%s' is not a metric of any cell (metrics: %s)", in->sw->path, m, list);
}

int report_acct_rows(const struct report_in *in, struct report_acct **rows)
{
	int n = in->acct ? in->nacct : 0;
	if (!in->acct)
		for (int i = 0; i < in->n; i++)
			n += in->rs[i]->nacct;
	*rows = NULL;
	if (n == 0)
		return 0;
	struct report_acct *v = xcalloc((size_t)n, sizeof(*v));
	if (in->acct) {
		memcpy(v, in->acct, sizeof(*v) * (size_t)n);
	} else {
		int k = 0;
		for (int i = 0; i < in->n; i++)
			for (int j = 0; j < in->rs[i]->nacct; j++) {
				const struct result_acct *a = &in->rs[i]->acct[j];
				char lab[32];
				const char *l = report_label(in, i, lab, sizeof(lab));
				/* a generated "result N" label would dangle: such rows carry no source */
				v[k++] = (struct report_acct){.source = in->labels ? l : NULL, .thread = a->name, .role = a->role,
				                              .used_ns = a->used_ns < 0 ? 0 : a->used_ns, .waited_ns = a->waited_ns,
				                              .wall_ns = a->wall_ns < 0 ? 0 : a->wall_ns, .exited = a->exited};
			}
	}
	*rows = v;
	return n;
}

static struct hist *new_hist(void)
{
	struct hist *h = xmalloc(sizeof(*h));
	hist_init(h);
	return h;
}

static bool has_samples(const struct result_thread *t)
{
	return t->wake.count || t->resp.count;
}

/* Adds thread t of result i to the series keyed (cell, name) or (result, name). */
static void add_thread(struct report_series **v, int *n, int *cap, int i, int cell, const struct result *r, int ti)
{
	const struct result_thread *t = &r->threads[ti];
	struct report_series *s = NULL;
	for (int k = 0; k < *n && !s; k++) {
		struct report_series *c = &(*v)[k];
		bool same_group = cell >= 0 ? c->cell == cell : (c->cell < 0 && c->result == i);
		if (same_group && strcmp(c->label, t->name) == 0)
			s = c;
	}
	if (!s) {
		ARRAY_GROW(*v, *n + 1, *cap);
		s = &(*v)[(*n)++];
		memset(s, 0, sizeof(*s));
		snprintf(s->label, sizeof(s->label), "%s", t->name);   /* the key until labels are made */
		snprintf(s->role, sizeof(s->role), "%s", t->role);
		s->result = i;
		s->thread = ti;
		s->cell = cell;
		s->wake = new_hist();
		s->resp = new_hist();
	}
	hist_merge(s->wake, &t->wake);
	hist_merge(s->resp, &t->resp);
	s->overruns += t->overruns;
	s->met += t->deadlines_met;
	s->missed += t->deadlines_missed;
	s->merged++;
}

const struct report_words *report_wake_words(const struct report_in *in, const struct report_series *s, int ns)
{
	static const struct report_words wake = {false, "wake-up latency", "Wake-up latency", "wake-up latencies",
	                                         "release to running", "wake-up"};
	static const struct report_words runq = {true, "run-queue latency", "Run-queue latency", "run-queue waits",
	                                         "wake-up or preemption to running", "run-queue wait"};
	bool all = ns > 0;
	for (int i = 0; i < ns; i++)
		all &= in->rs[s[i].result]->runq.present;
	return all ? &runq : &wake;
}

int report_series_build(const struct report_in *in, struct report_series **out, int *n)
{
	struct report_series *v = NULL;
	int cnt = 0, cap = 0;
	int ncells = in->sw ? in->sw->ncells : 0;
	for (int c = 0; c < ncells; c++)
		for (int i = 0; i < in->n; i++)
			if (in->cell_of && in->cell_of[i] == c)
				for (int t = 0; t < in->rs[i]->nthreads; t++)
					if (has_samples(&in->rs[i]->threads[t]))
						add_thread(&v, &cnt, &cap, i, c, in->rs[i], t);
	int first_plain = cnt, plain_results = 0;
	for (int i = 0; i < in->n; i++) {
		if (in->cell_of && in->cell_of[i] >= 0 && in->cell_of[i] < ncells)
			continue;
		int before = cnt;
		for (int t = 0; t < in->rs[i]->nthreads; t++)
			if (has_samples(&in->rs[i]->threads[t]))
				add_thread(&v, &cnt, &cap, i, -1, in->rs[i], t);
		plain_results += cnt > before;
	}

	/* labels: cell id (+ /thread when a cell has several), result label (+ /thread) */
	for (int k = 0; k < cnt; k++) {
		struct report_series *s = &v[k];
		char name[64], lab[128];
		snprintf(name, sizeof(name), "%.63s", s->label);
		int siblings = 0;
		for (int j = 0; j < cnt; j++)
			siblings += s->cell >= 0 ? v[j].cell == s->cell : (v[j].cell < 0 && v[j].result == s->result);
		if (s->cell >= 0) {
			const struct sweep_cell *c = &in->sw->cells[s->cell];
			if (siblings > 1)
				snprintf(s->label, sizeof(s->label), "%.62s/%.62s", c->id, name);
			else
				snprintf(s->label, sizeof(s->label), "%.126s", c->id);
			report_cell_desc(c, s->note, sizeof(s->note));
		} else if (plain_results > 1 || first_plain > 0) {
			const char *l = report_label(in, s->result, lab, sizeof(lab));
			if (siblings > 1)
				snprintf(s->label, sizeof(s->label), "%.62s/%.62s", l, name);
			else
				snprintf(s->label, sizeof(s->label), "%.126s", l);
		}
	}
	/* distinct labels */
	for (int k = 0; k < cnt; k++) {
		int dup = 1;
		for (int j = 0; j < k; j++)
			dup += strcmp(v[j].label, v[k].label) == 0;
		if (dup > 1) {
			char l[128];
			snprintf(l, sizeof(l), "%.110s (%d)", v[k].label, dup);
			memcpy(v[k].label, l, sizeof(l));
		}
	}
	*out = v;
	*n = cnt;
	return 0;
}

void report_series_free(struct report_series *s, int n)
{
	for (int k = 0; k < n; k++) {
		free(s[k].wake);
		free(s[k].resp);
	}
	free(s);
}

/* ---- atomic writes ----------------------------------------------------------------------- */


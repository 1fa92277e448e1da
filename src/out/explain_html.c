/* The HTML report's "Why late" section (--explain, irt watch): where the tail's time went, per
 * result, as stacked bars, and the top blockers with their shares. Only results that carry an
 * explain section add anything, so reports of other results are unchanged. */
#include "out/html.h"

#include <stdio.h>
#include <string.h>

#include "out/svg.h"
#include "units.h"

/* The nine categories folded into the four parts a stacked bar can show. */
static const char *const parts[] = {"other tasks", "IRQ + softirq", "timer + idle exit", "rest"};
static int part_of(int cat)
{
	switch (cat) {
	case EXC_TASK: return 0;
	case EXC_IRQ:
	case EXC_SOFTIRQ: return 1;
	case EXC_TIMER:
	case EXC_IDLE_EXIT: return 2;
	default: return 3;   /* migration, throttle, the thread itself, unexplained */
	}
}

bool html_has_explain(const struct report_in *in)
{
	for (int i = 0; i < in->n; i++)
		if (in->rs[i]->explain.present)
			return true;
	return false;
}

static const char *label(const struct report_in *in, int i, char *buf, size_t len)
{
	if (in->labels)
		return in->labels[i];
	snprintf(buf, len, "result %d", i + 1);
	return buf;
}

void html_explain_section(struct sbuf *b, const struct report_in *in)
{
	if (!html_has_explain(in))
		return;
	sb_puts(b, "<section id=\"explain\">\n<h2>Why late</h2>\n"
	           "<p>Each wake-up at or over the threshold, rebuilt from the kernel's scheduler events "
	           "(sched_waking, sched_wakeup, sched_switch, sched_migrate_task, IRQ and softirq entry/exit) and "
	           "split into what held it; the parts add up to its lateness (docs/explain.md).</p>\n");
	const char *rows[64];
	char rowbuf[64][64];
	double values[64 * 4];
	int nrows = 0;
	for (int i = 0; i < in->n && nrows < 64; i++) {
		const struct result_explain *x = &in->rs[i]->explain;
		if (!x->present || strcmp(x->source, "tracefs") || !x->late_ns)
			continue;
		char lb[32];
		snprintf(rowbuf[nrows], sizeof(rowbuf[nrows]), "%.60s", label(in, i, lb, sizeof(lb)));
		rows[nrows] = rowbuf[nrows];
		for (int p = 0; p < 4; p++)
			values[nrows * 4 + p] = 0;
		for (int c = 0; c < EXC_N; c++)
			values[nrows * 4 + part_of(c)] += 100.0 * (double)x->cat_ns[c] / (double)x->late_ns;
		nrows++;
	}
	if (nrows) {
		sb_puts(b, "<figure>\n");
		struct svg_bars bars = {.id = "explain-where", .title = "Where the tail's time went",
		                        .desc = "Share of the explained tail wake-ups' total lateness, by cause",
		                        .xlabel = "share of the tail's lateness", .unit = SVG_UNIT_PERCENT, .rows = rows,
		                        .nrows = nrows, .parts = parts, .nparts = 4, .values = values,
		                        .footnote = "rest: migration, throttling, the thread itself, unexplained"};
		svg_bars(b, &bars);
		sb_puts(b, "<figcaption>Where the tail wake-ups' lateness went, per result: the tasks that ran on "
		           "their CPU instead, hard IRQs and softirqs, the timer and idle exit, and the rest.</figcaption>\n"
		           "</figure>\n");
	}
	for (int i = 0; i < in->n; i++) {
		const struct result_explain *x = &in->rs[i]->explain;
		if (!x->present)
			continue;
		char lb[32], a[32], d[32];
		sb_puts(b, "<h3>");
		sb_esc(b, label(in, i, lb, sizeof(lb)));
		sb_puts(b, "</h3>\n<p>");
		if (strcmp(x->source, "tracefs")) {
			sb_puts(b, "Not traced: ");
			sb_esc(b, x->reason);
			sb_puts(b, " (the runqueue/rest split of --attribute instead).</p>\n");
			continue;
		}
		sb_printf(b, "%lld wake-up%s at least %s late, %lld explained from %llu events", (long long)x->tail_samples,
		          x->tail_samples == 1 ? "" : "s", units_human_duration(a, sizeof(a), x->threshold_ns), (long long)x->explained,
		          (unsigned long long)x->events);
		if (x->events_lost || x->lost_samples)
			sb_printf(b, "; <b>%llu events lost</b>: %lld of those wake-ups are not explained",
			          (unsigned long long)x->events_lost, (long long)x->lost_samples);
		sb_puts(b, ".</p>\n");
		if (!x->nblockers)
			continue;
		sb_puts(b, "<table><tr><th>top blocker</th><th>kind</th><th>share</th><th>total</th><th>samples</th>"
		           "<th>policy</th><th>cgroup</th></tr>\n");
		for (int k = 0; k < x->nblockers; k++) {
			const struct result_blocker *bl = &x->blockers[k];
			sb_puts(b, "<tr><td>");
			sb_esc(b, bl->name);
			if (bl->id >= 0)
				sb_printf(b, " (%lld)", (long long)bl->id);
			sb_puts(b, "</td><td>");
			sb_esc(b, bl->kind);
			sb_printf(b, "</td><td class=\"n\">%.1f%%</td><td class=\"n\">%s</td><td class=\"n\">%lld</td><td>",
			          100.0 * bl->share, units_human_duration(d, sizeof(d), bl->total_ns), (long long)bl->samples);
			sb_esc(b, bl->policy);
			sb_puts(b, "</td><td>");
			sb_esc(b, bl->cgroup);
			sb_puts(b, "</td></tr>\n");
		}
		sb_puts(b, "</table>\n");
		if (result_explain_policy_note(x)) {
			sb_puts(b, "<p>");
			sb_esc(b, result_explain_policy_note(x));
			sb_puts(b, "</p>\n");
		}
		char note[512];
		if (result_explain_preempt_note(in->rs[i], note, sizeof(note))) {
			sb_puts(b, "<p>");
			sb_esc(b, note);
			sb_puts(b, "</p>\n");
		}
	}
	sb_puts(b, "</section>\n");
}

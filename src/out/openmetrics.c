/* OpenMetrics text format (https://openmetrics.io, the Prometheus exposition format). */
#include "out/openmetrics.h"

#include <inttypes.h>
#include <string.h>

#include "config.h"

const long long openmetrics_bounds_ns[] = {
	1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,          /* 1us .. 500us */
	1000000, 2000000, 5000000, 10000000, 20000000, 50000000, 100000000,     /* 1ms .. 100ms */
	200000000, 500000000, 1000000000, 2000000000, 5000000000, 10000000000,  /* 200ms .. 10s */
};
const int openmetrics_nbounds = sizeof(openmetrics_bounds_ns) / sizeof(openmetrics_bounds_ns[0]);

/* label values: backslash, double quote and newline escaped */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* The results of one exposition: one, or a sweep's cells (each series labelled with its cell). */
struct om_set {
	const struct result *const *rs;
	const char *const *cells;   /* NULL: one result, no cell label */
	int n;
};

static void cell_label(FILE *f, const struct om_set *s, int c, bool first)
{
	if (!s->cells)
		return;
	fputs(first ? "cell=\"" : ",cell=\"", f);
	label(f, s->cells[c]);
	fputc('"', f);
}

static void thread_labels(FILE *f, const struct om_set *s, int c, const struct result_thread *t)
{
	fputs("thread=\"", f);
	label(f, t->name);
	fputs("\",role=\"", f);
	label(f, t->role);
	fputc('"', f);
	cell_label(f, s, c, false);
}

static bool exported(const struct result_thread *t)
{
	return strcmp(t->role, "probe") == 0 || strcmp(t->role, "sim") == 0;
}

static void histogram(FILE *f, const struct om_set *set, const char *name, const char *help, bool wake)
{
	fprintf(f, "# TYPE %s histogram\n# UNIT %s seconds\n# HELP %s %s\n", name, name, name, help);
	for (int c = 0; c < set->n; c++)
		for (int i = 0; i < set->rs[c]->nthreads; i++) {
			const struct result_thread *t = &set->rs[c]->threads[i];
			const struct hist *h = wake ? &t->wake : &t->resp;
			if (!exported(t))
				continue;
			size_t it = 0;
			struct hist_bucket b;
			bool more = hist_next(h, &it, &b);
			uint64_t cum = 0;
			for (int k = 0; k < openmetrics_nbounds; k++) {
				while (more && b.lo <= openmetrics_bounds_ns[k]) {
					cum += b.count;
					more = hist_next(h, &it, &b);
				}
				fprintf(f, "%s_bucket{", name);
				thread_labels(f, set, c, t);
				fprintf(f, ",le=\"%.9g\"} %" PRIu64 "\n", (double)openmetrics_bounds_ns[k] / 1e9, cum);
			}
			fprintf(f, "%s_bucket{", name);
			thread_labels(f, set, c, t);
			fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n%s_count{", h->count, name);
			thread_labels(f, set, c, t);
			fprintf(f, "} %" PRIu64 "\n%s_sum{", h->count, name);
			thread_labels(f, set, c, t);
			fprintf(f, "} %.9f\n", (double)h->sum / 1e9);
		}
}

static void quantiles(FILE *f, const struct om_set *set, const char *name, const char *help, bool wake)
{
	fprintf(f, "# TYPE %s gauge\n# UNIT %s seconds\n# HELP %s %s\n", name, name, name, help);
	for (int c = 0; c < set->n; c++)
		for (int i = 0; i < set->rs[c]->nthreads; i++) {
			const struct result_thread *t = &set->rs[c]->threads[i];
			const struct hist *h = wake ? &t->wake : &t->resp;
			if (!exported(t) || !h->count)
				continue;
			for (int q = 0; q < result_npercentiles; q++) {
				fprintf(f, "%s{", name);
				thread_labels(f, set, c, t);
				fprintf(f, ",percentile=\"%s\"} %.9f\n", result_percentile_names[q],
				        (double)hist_percentile(h, result_percentiles[q]) / 1e9);
			}
			fprintf(f, "%s{", name);
			thread_labels(f, set, c, t);
			fprintf(f, ",percentile=\"max\"} %.9f\n", (double)h->max / 1e9);
		}
}

/* counts that only grow (over a run, or a monitor's sessions): OpenMetrics counters, whose
 * samples are named FAMILY_total */
static void counter(FILE *f, const struct om_set *set, const char *name, const char *help, size_t offset)
{
	fprintf(f, "# TYPE %s counter\n# HELP %s %s\n", name, name, help);
	for (int c = 0; c < set->n; c++)
		for (int i = 0; i < set->rs[c]->nthreads; i++) {
			const struct result_thread *t = &set->rs[c]->threads[i];
			if (!exported(t))
				continue;
			fprintf(f, "%s_total{", name);
			thread_labels(f, set, c, t);
			fprintf(f, "} %" PRIu64 "\n", *(const uint64_t *)((const char *)t + offset));
		}
}

static void render_set(FILE *f, const struct om_set *set)
{
	fprintf(f, "# TYPE irt_info gauge\n# HELP irt_info The machine and irt that produced these metrics.\n");
	for (int c = 0; c < set->n; c++) {
		const struct result *r = set->rs[c];
		const struct result_env *env = &r->env;
		fprintf(f, "irt_info{version=\"");
		label(f, r->tool_version);
		fprintf(f, "\",command=\"");
		label(f, r->command);
		fprintf(f, "\",hostname=\"");
		label(f, env->hostname);
		fprintf(f, "\",machine_id=\"");
		label(f, env->machine_id);
		fprintf(f, "\",kernel=\"");
		label(f, env->kernel);
		fprintf(f, "\",cpu_model=\"");
		label(f, env->cpu_model);
		fputc('"', f);
		if (r->memory_lock[0]) {   /* unlocked (none-rlimit) measures page faults a locked one does not */
			fprintf(f, ",memory_lock=\"");
			label(f, r->memory_lock);
			fputc('"', f);
		}
		cell_label(f, set, c, false);
		fprintf(f, "} 1\n");
	}
	histogram(f, set, "irt_wake_latency_seconds", "Wake-up latency: actual wake-up minus intended release.", true);
	histogram(f, set, "irt_response_time_seconds", "Response time: work done minus intended release.", false);
	quantiles(f, set, "irt_wake_latency_quantile_seconds", "Exact wake-up latency percentiles (percentile label: p50 .. p99.99, max).", true);
	quantiles(f, set, "irt_response_time_quantile_seconds", "Exact response time percentiles (percentile label: p50 .. p99.99, max).", false);
	counter(f, set, "irt_overruns", "Wake-ups whose work ended after the next release (a backlog).", offsetof(struct result_thread, overruns));
	counter(f, set, "irt_deadlines_missed", "Wake-ups whose work finished after the deadline.",
	        offsetof(struct result_thread, deadlines_missed));
	counter(f, set, "irt_deadlines_met", "Wake-ups whose work finished by the deadline.",
	        offsetof(struct result_thread, deadlines_met));
	fprintf(f, "# TYPE irt_duration_seconds gauge\n# HELP irt_duration_seconds Length of the measuring window.\n");
	for (int c = 0; c < set->n; c++) {
		fprintf(f, "irt_duration_seconds");
		if (set->cells) {
			fputc('{', f);
			cell_label(f, set, c, true);
			fputc('}', f);
		}
		fprintf(f, " %.9f\n", (double)set->rs[c]->duration_ns / 1e9);
	}
}

void openmetrics_render(FILE *f, const struct result *r)
{
	openmetrics_render_body(f, r);
	fprintf(f, "# EOF\n");
}

void openmetrics_render_body(FILE *f, const struct result *r)
{
	const struct result *one[1] = {r};
	struct om_set set = {.rs = one, .n = 1};
	render_set(f, &set);
}

void openmetrics_render_cells(FILE *f, const struct result *const *rs, const char *const *cells, int n)
{
	struct om_set set = {.rs = rs, .cells = cells, .n = n};
	render_set(f, &set);
	fprintf(f, "# EOF\n");
}

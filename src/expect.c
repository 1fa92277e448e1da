/* --expect: parse, judge, report (stderr and JUnit XML). */
#include "expect.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "out/junit.h"
#include "units.h"
#include "util.h"

static const char *const op_text[] = {"<=", "<", ">=", ">", "==", "!="};
static const char *const latency_stats[] = {"min", "p50", "p90", "p99", "p99.9", "p99.99", "max", "mean", NULL};
static const char *const verdict_words[] = {"better", "worse", "no significant difference", "too noisy",
                                            "too few samples", NULL};

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	size_t lead = strspn(s, " \t");
	memmove(s, s + lead, strlen(s + lead) + 1);
}

/* "wake.p99" -> true when it is a latency metric; stat is what follows the dot */
static bool latency_metric(const char *m, const char **stat)
{
	const char *dot = strchr(m, '.');
	if (!dot || (strncmp(m, "wake.", 5) && strncmp(m, "resp.", 5)))
		return false;
	for (int i = 0; latency_stats[i]; i++)
		if (strcmp(dot + 1, latency_stats[i]) == 0) {
			*stat = latency_stats[i];
			return true;
		}
	return false;
}

/* Metrics that are one number of a thread (not wake./resp. statistics), and their units.
 * The simulator's (sim = true) exist only in irt sim's results. */
static const struct {
	const char *name;
	enum expect_unit unit;
	bool sim;
} plain_metrics[] = {
	{"met", EXPECT_RATIO, false},      {"overruns", EXPECT_COUNT, false}, {"missed", EXPECT_COUNT, false},
	{"samples", EXPECT_COUNT, false},  {"share", EXPECT_RATIO, true},     {"windows", EXPECT_RATIO, true},
	{"completion", EXPECT_NS, true},   {"used", EXPECT_NS, true},         {"spent", EXPECT_NS, true},
	{"switches", EXPECT_COUNT, true},  {NULL, EXPECT_NS, false},
};
#define SIM_METRICS "share, windows (shares), completion, used, spent (durations), switches"

/* The unit of a plain metric; -1 when m is none */
static int plain_unit(const char *m)
{
	for (int i = 0; plain_metrics[i].name; i++)
		if (strcmp(m, plain_metrics[i].name) == 0)
			return (int)plain_metrics[i].unit;
	return -1;
}

bool expect_sim_metric(const char *m)
{
	for (int i = 0; plain_metrics[i].name; i++)
		if (strcmp(m, plain_metrics[i].name) == 0)
			return plain_metrics[i].sim;
	return false;
}

/* The value after the operator, in x->unit (a duration, a share, a count); s is the expression */
static int parse_value(struct expect *x, const char *s, const char *right, struct err *e)
{
	int64_t v = 0;
	switch (x->unit) {
	case EXPECT_NS:
		if (units_parse_duration(right, &v))
			return err_set(e, EXIT_USAGE, "--expect '%s': '%s' is not a duration (expected e.g. 1ms, 250us)", s, right);
		break;
	case EXPECT_RATIO:
		if (units_parse_percent(right, &v) || v > 1000000)
			return err_set(e, EXIT_USAGE, "--expect '%s': '%s' is not a share (expected e.g. 99.9%% or 0.999)", s, right);
		x->value = (double)v / 1e6;
		return 0;
	case EXPECT_COUNT:
		if (units_parse_int(right, &v) || v < 0)
			return err_set(e, EXIT_USAGE, "--expect '%s': '%s' is not a count (expected a whole number)", s, right);
		break;
	case EXPECT_WORD: break;
	}
	x->value = (double)v;
	return 0;
}

int expect_parse(const char *s, struct expect *x, struct err *e)
{
	memset(x, 0, sizeof(*x));
	if (strlen(s) >= sizeof(x->text))
		return err_set(e, EXIT_USAGE, "--expect: expression longer than %zu characters", sizeof(x->text) - 1);
	snprintf(x->text, sizeof(x->text), "%s", s);
	/* the operator: the last run of < > = ! (a cell's name, before the ':', may hold '=';
	 * metrics and values never hold any of them) */
	size_t at = strlen(s);
	while (at > 0 && !strchr("<>=!", s[at - 1]))
		at--;
	if (at == 0)
		return err_set(e, EXIT_USAGE, "--expect '%s': no comparison (expected METRIC OP VALUE, e.g. 'wake.p99<=1ms'; OP "
		               "one of <= < >= > == !=)", s);
	size_t op_end = at;
	while (at > 0 && strchr("<>=!", s[at - 1]) && op_end - at < 2)
		at--;
	if (at > 0 && strchr("<>=!", s[at - 1]))
		return err_set(e, EXIT_USAGE, "--expect '%s': unknown comparison (expected one of <= < >= > == !=)", s);
	int op = -1;
	size_t oplen = 0;
	for (int i = 0; i < 6; i++) {
		size_t l = strlen(op_text[i]);
		if (l == op_end - at && strncmp(s + at, op_text[i], l) == 0) {
			op = i;
			oplen = l;
		}
	}
	if (op < 0)
		return err_set(e, EXIT_USAGE, "--expect '%s': unknown comparison (expected one of <= < >= > == !=)", s);
	x->op = (enum expect_op)op;
	char left[128], right[128];
	snprintf(left, sizeof(left), "%.*s", (int)at, s);
	snprintf(right, sizeof(right), "%s", s + at + oplen);
	trim(left);
	trim(right);
	char *colon = strrchr(left, ':');   /* metrics hold no ':', cell names (loads) may */
	if (colon) {
		*colon = 0;
		snprintf(x->subject, sizeof(x->subject), "%.63s", left);
		trim(x->subject);
		memmove(left, colon + 1, strlen(colon + 1) + 1);
		trim(left);
		if (!x->subject[0])
			return err_set(e, EXIT_USAGE, "--expect '%s': empty name before ':' (expected THREAD:METRIC or CELL:METRIC)", s);
	}
	if (strlen(left) >= sizeof(x->metric))
		return err_set(e, EXIT_USAGE, "--expect '%s': unknown metric (see docs/fleet.md)", s);
	snprintf(x->metric, sizeof(x->metric), "%.31s", left);
	if (!right[0])
		return err_set(e, EXIT_USAGE, "--expect '%s': no value after %s", s, op_text[op]);

	const char *stat;
	char base[32];
	snprintf(base, sizeof(base), "%s", x->metric);
	size_t bl = strlen(base);
	bool ratio = bl > 6 && strcmp(base + bl - 6, ".ratio") == 0;
	if (ratio)
		base[bl - 6] = 0;
	int unit = plain_unit(x->metric);
	if (strcmp(x->metric, "verdict") == 0) {
		x->unit = EXPECT_WORD;
		if (x->op != EXPECT_EQ && x->op != EXPECT_NE)
			return err_set(e, EXIT_USAGE, "--expect '%s': a verdict is compared with == or != only", s);
		for (int i = 0; verdict_words[i]; i++)
			if (strcmp(right, verdict_words[i]) == 0)
				snprintf(x->word, sizeof(x->word), "%.31s", verdict_words[i]);
		if (!x->word[0])
			return err_set(e, EXIT_USAGE, "--expect '%s': unknown verdict '%s' (expected better, worse, no significant "
			               "difference, too noisy or too few samples)", s, right);
	} else if (ratio) {
		char *end;
		x->unit = EXPECT_RATIO;
		x->value = strtod(right, &end);
		if (!latency_metric(base, &stat) || end == right || *end || !isfinite(x->value) || x->value < 0)
			return err_set(e, EXIT_USAGE, "--expect '%s': expected LATENCY.ratio OP NUMBER, e.g. 'wake.p99.ratio<=1.05'", s);
	} else if (latency_metric(x->metric, &stat) || unit >= 0) {
		x->unit = unit >= 0 ? (enum expect_unit)unit : EXPECT_NS;
		return parse_value(x, s, right, e);
	} else {
		return err_set(e, EXIT_USAGE, "--expect '%s': unknown metric '%s' (expected wake.|resp. min, p50, p90, p99, "
		               "p99.9, p99.99, max or mean; met, overruns, missed, samples; METRIC.ratio, verdict; in "
		               "simulations %s)", s, x->metric, SIM_METRICS);
	}
	return 0;
}

static bool holds(const struct expect *x, double v, const char *word)
{
	if (x->unit == EXPECT_WORD) {
		bool same = word && strcmp(word, x->word) == 0;
		return x->op == EXPECT_EQ ? same : !same;
	}
	switch (x->op) {
	case EXPECT_LE: return v <= x->value;
	case EXPECT_LT: return v < x->value;
	case EXPECT_GE: return v >= x->value;
	case EXPECT_GT: return v > x->value;
	case EXPECT_EQ: return v == x->value;
	case EXPECT_NE: return v != x->value;
	}
	return false;
}

static void format_value(const struct expect *x, double v, const char *word, char *buf, size_t len)
{
	switch (x->unit) {
	case EXPECT_NS:
		if (isinf(v))   /* a oneshot thread that did not complete within the duration */
			snprintf(buf, len, "not completed within the duration");
		else
			units_human_duration(buf, len, (int64_t)llround(v));
		break;
	case EXPECT_RATIO:
		if (!strstr(x->metric, ".ratio"))   /* met, share, windows */
			snprintf(buf, len, "%.3f%%", v * 100);
		else
			snprintf(buf, len, "%.4g", v);
		break;
	case EXPECT_COUNT: snprintf(buf, len, "%.0f", v); break;
	case EXPECT_WORD: snprintf(buf, len, "%s", word ? word : "none"); break;
	}
}

void expect_judge(const struct expect *x, const struct expect_value *vals, int n, struct expect_outcome *out)
{
	memset(out, 0, sizeof(*out));
	int worst = -1;
	bool all = true;
	for (int i = 0; i < n; i++) {
		if (x->subject[0] && strcmp(x->subject, vals[i].who))
			continue;
		bool ok = holds(x, vals[i].v, vals[i].word);
		/* the worst: the first that fails, else the one closest to failing */
		if (worst < 0 || (!ok && all) ||
		    (ok == all && x->unit != EXPECT_WORD &&
		     ((x->op == EXPECT_LE || x->op == EXPECT_LT) ? vals[i].v > vals[worst].v
		                                                   : vals[i].v < vals[worst].v)))
			worst = i;
		all &= ok;
	}
	if (worst < 0) {
		snprintf(out->detail, sizeof(out->detail), "%s%s%s: nothing to judge (no such %s)", x->subject,
		         x->subject[0] ? " " : "", x->metric, x->subject[0] ? "thread or cell" : "metric in the result");
		return;
	}
	char val[64];
	format_value(x, vals[worst].v, vals[worst].word, val, sizeof(val));
	out->judged = true;
	out->met = all;
	snprintf(out->detail, sizeof(out->detail), "%s %s = %s", vals[worst].who, x->metric, val);
}

bool expect_thread_value(const struct expect *x, const struct result_thread *t, double *v)
{
	const char *stat;
	if (latency_metric(x->metric, &stat) && x->unit == EXPECT_NS) {
		const struct hist *h = x->metric[0] == 'w' ? &t->wake : &t->resp;
		if (h->count == 0)
			return false;
		if (strcmp(stat, "min") == 0)
			*v = (double)h->min;
		else if (strcmp(stat, "max") == 0)
			*v = (double)h->max;
		else if (strcmp(stat, "mean") == 0)
			*v = hist_mean(h);
		else
			*v = (double)hist_percentile(h, strtod(stat + 1, NULL));
		return true;
	}
	uint64_t dl = t->deadlines_met + t->deadlines_missed;
	if (strcmp(x->metric, "met") == 0 && dl) {
		*v = (double)t->deadlines_met / (double)dl;
		return true;
	}
	if (strcmp(x->metric, "overruns") == 0)
		return *v = (double)t->overruns, true;
	if (strcmp(x->metric, "missed") == 0)
		return *v = (double)t->deadlines_missed, true;
	if (strcmp(x->metric, "samples") == 0)
		return *v = (double)t->samples, true;
	if (strcmp(t->role, "sim"))
		return false;
	/* the simulator's; a thread not completed within the duration counts as never completing */
	if (strcmp(x->metric, "share") == 0)
		return *v = (double)t->sim_share_ppm / 1e6, true;
	if (strcmp(x->metric, "windows") == 0 && t->sim_windows)
		return *v = (double)t->sim_windows_ok / (double)t->sim_windows, true;
	if (strcmp(x->metric, "completion") == 0 && t->sim_completion_ns)
		return *v = t->sim_completion_ns < 0 ? INFINITY : (double)t->sim_completion_ns, true;
	if (strcmp(x->metric, "used") == 0)
		return *v = (double)t->sim_used_ns, true;
	if (strcmp(x->metric, "spent") == 0)
		return *v = (double)t->sim_spent_ns, true;
	if (strcmp(x->metric, "switches") == 0)
		return *v = (double)t->sim_switches, true;
	return false;
}

void expect_on_result(const struct expect *x, const struct result *r, struct expect_outcome *out)
{
	struct expect_value *vals = xcalloc((size_t)r->nthreads + 1, sizeof(*vals));
	int n = 0;
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		if (strcmp(t->role, "probe") && strcmp(t->role, "sim"))
			continue;
		if (expect_thread_value(x, t, &vals[n].v))
			vals[n++].who = t->name;
	}
	expect_judge(x, vals, n, out);
	if (!out->judged) {   /* the thread may exist without the metric: say so, not "no such thread" */
		const char *lacks = strcmp(x->metric, "met") == 0          ? "deadlines"
		                    : strcmp(x->metric, "completion") == 0 ? "completion time: only oneshot threads complete"
		                    : strcmp(x->metric, "windows") == 0    ? "full timer windows"
		                    : x->metric[0] == 'w'                  ? "wake-up samples"
		                                                           : "response samples";
		bool exists = !x->subject[0];
		for (int i = 0; i < r->nthreads && !exists; i++)
			exists = strcmp(r->threads[i].name, x->subject) == 0;
		if (exists && x->subject[0])
			snprintf(out->detail, sizeof(out->detail), "%s %s: nothing to judge (%s has no %s)", x->subject, x->metric,
			         x->subject, lacks);
		else if (exists)
			snprintf(out->detail, sizeof(out->detail), "%s: nothing to judge (no thread has %s)", x->metric, lacks);
	}
	free(vals);
}

int expect_set_parse(struct expect_set *s, const struct strlist *exprs, const char *junit, const char *command,
                     struct err *e)
{
	memset(s, 0, sizeof(*s));
	s->command = command;
	snprintf(s->junit, sizeof(s->junit), "%s", junit ? junit : "");
	s->v = xcalloc((size_t)exprs->n + 1, sizeof(*s->v));
	s->out = xcalloc((size_t)exprs->n + 1, sizeof(*s->out));
	/* probe, run and sim give results, never a comparison: a verdict or ratio could only be
	 * unmet after the whole run, so it is refused now */
	bool single = command && (!strcmp(command, "probe") || !strcmp(command, "run") || !strcmp(command, "sim"));
	for (int i = 0; i < exprs->n; i++) {
		struct expect *x = &s->v[s->n++];
		if (expect_parse(exprs->v[i], x, e))
			return -1;
		if (single && (x->unit == EXPECT_WORD || strstr(x->metric, ".ratio")))
			return err_set(e, EXIT_USAGE, "--expect '%s': %s exists only in comparisons (irt compare, irt sweep), not in "
			               "irt %s's results (expected wake.|resp. min, p50, p90, p99, p99.9, p99.99, max or mean; met, "
			               "overruns, missed, samples%s%s)", x->text, x->metric, command,
			               strcmp(command, "sim") ? "" : "; ", strcmp(command, "sim") ? "" : SIM_METRICS);
		/* the simulator's metrics: only irt sim's results hold them */
		if (expect_sim_metric(x->metric) && (!command || strcmp(command, "sim")))
			return err_set(e, EXIT_USAGE, "--expect '%s': %s exists only in simulations (irt sim), not in irt %s's %s "
			               "(expected %s)", x->text, x->metric, command ? command : "?", single ? "results" : "comparisons",
			               single ? "wake.|resp. min, p50, p90, p99, p99.9, p99.99, max or mean; met, overruns, missed, samples"
			                      : "wake.|resp. p50, p99, p99.9, max; met; their .ratio; verdict");
	}
	return 0;
}

int expect_set_subjects(const struct expect_set *s, const char *const *names, int n, const char *in, struct err *e)
{
	for (int i = 0; i < s->n; i++) {
		const struct expect *x = &s->v[i];
		bool found = !x->subject[0];
		for (int k = 0; k < n && !found; k++)
			found = strcmp(names[k], x->subject) == 0;
		if (found)
			continue;
		char list[300] = "";
		size_t at = 0;
		for (int k = 0; k < n && at < sizeof(list); k++)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", k ? ", " : "", names[k]);
		if (at >= sizeof(list))   /* too many to name: end with an ellipsis */
			memcpy(list + sizeof(list) - 5, " ...", 5);
		return err_set(e, EXIT_USAGE, "--expect '%s': no thread '%s' in %s (its threads: %s)", x->text, x->subject, in,
		               n ? list : "none");
	}
	return 0;
}

int expect_set_from_args(struct expect_set *s, const struct opt_args *a, const char *command, struct err *e)
{
	struct gate_cfg g;
	memset(&g, 0, sizeof(g));
	opt_defaults(SCOPE_GATE, &g);
	int rc = 0;
	for (int i = 0; i < a->n && !rc; i++)
		if (a->items[i].opt->scope & SCOPE_GATE)
			rc = opt_set(a->items[i].opt, &g, a->items[i].value, a->items[i].where, e);
	if (!rc)
		rc = expect_set_parse(s, &g.expect, g.junit, command, e);
	if (!rc && s->junit[0])
		rc = cli_check_output("--junit", s->junit, e);
	strlist_free(&g.expect);
	return rc;
}

void expect_set_free(struct expect_set *s)
{
	free(s->v);
	free(s->out);
	memset(s, 0, sizeof(*s));
}

int expect_set_finish(struct expect_set *s, double elapsed_s, struct err *e)
{
	int unmet = 0;
	for (int i = 0; i < s->n; i++)
		if (!s->out[i].met) {
			fprintf(stderr, "irt: expect: '%s' unmet: %s\n", s->v[i].text, s->out[i].detail);
			unmet++;
		}
	if (s->junit[0] && junit_write(s->junit, s->command, s->v, s->out, s->n, elapsed_s, e))
		return -1;
	return unmet ? EXIT_UNMET : 0;
}

int expect_set_result(struct expect_set *s, const struct result *r, struct err *e)
{
	for (int i = 0; i < s->n; i++)
		expect_on_result(&s->v[i], r, &s->out[i]);
	double elapsed = r->end_realtime_ns > r->start_realtime_ns ? (double)(r->end_realtime_ns - r->start_realtime_ns) / 1e9 : 0;
	return expect_set_finish(s, elapsed, e);
}

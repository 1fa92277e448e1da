/* The result record and its JSON form, schema "irt-result/1" (docs/result-schema.md).
 *
 * Writing: the record is turned into a jansson tree, then laid out by a small printer that
 * uses jansson for every scalar and every leaf array (so escaping and number formats are
 * jansson's) but keeps bucket lists on one line: objects are indented, arrays of numbers or of
 * number pairs are compact. Reals use 17 significant digits, so doubles read back exactly and
 * write -> read -> write is byte-identical.
 *
 * Reading: result_read.c. */
#include "result.h"
#include "result_json.h"

#include "trust.h"

#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opt.h"
#include "units.h"
#include "util.h"

const double result_percentiles[] = {50, 90, 99, 99.9, 99.99};
const char *const result_percentile_names[] = {"p50", "p90", "p99", "p99.9", "p99.99"};
const int result_npercentiles = sizeof(result_percentiles) / sizeof(result_percentiles[0]);

#define REAL_FLAGS JSON_REAL_PRECISION(17)

/* ---- kvlist ------------------------------------------------------------------------------ */

void kvlist_set(struct kvlist *l, const char *key, const char *value)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0) {
			char *v = xstrdup_or_empty(value);
			free(l->v[i].value);
			l->v[i].value = v;
			return;
		}
	ARRAY_GROW(l->v, l->n + 1, l->cap);
	l->v[l->n].key = xstrdup_or_empty(key);
	l->v[l->n].value = xstrdup_or_empty(value);
	l->n++;
}

const char *kvlist_get(const struct kvlist *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0)
			return l->v[i].value;
	return NULL;
}

void kvlist_free(struct kvlist *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void kvlist_copy(struct kvlist *dst, const struct kvlist *src)
{
	memset(dst, 0, sizeof(*dst));
	for (int i = 0; i < src->n; i++)
		kvlist_set(dst, src->v[i].key, src->v[i].value);
}

void result_sweep_cell(const struct result *r, struct kvlist *out)
{
	memset(out, 0, sizeof(*out));
	const char *s = kvlist_get(&r->settings, "sweep-cell");
	char key[128];
	while (s && *s) {
		const char *eq = strchr(s, '='), *end;
		if (!eq || (size_t)(eq - s) >= sizeof(key))
			return;
		/* the value runs to the next " KEY=" (a value itself has no '=') */
		for (end = eq + 1; *end; end++)
			if (*end == ' ' && strchr(end + 1, '=') && !memchr(end + 1, ' ', (size_t)(strchr(end + 1, '=') - end - 1)))
				break;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - s), s);
		char *v = xstrdup(eq + 1);
		v[end - eq - 1] = 0;
		kvlist_set(out, key, v);
		free(v);
		s = *end ? end + 1 : end;
	}
}

static bool kvlist_equal(const struct kvlist *a, const struct kvlist *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, b->v[i].key) || strcmp(a->v[i].value, b->v[i].value))
			return false;
	return true;
}

static bool hist_same(const struct hist *a, const struct hist *b)
{
	return a->count == b->count && a->min == b->min && a->max == b->max && a->sum == b->sum && a->sumsq == b->sumsq;
}

bool result_same_run(const struct result *a, const struct result *b)
{
	if (a->start_realtime_ns != b->start_realtime_ns || a->end_realtime_ns != b->end_realtime_ns ||
	    strcmp(a->env.hostname, b->env.hostname) || strcmp(a->cmdline ? a->cmdline : "", b->cmdline ? b->cmdline : "") ||
	    a->nthreads != b->nthreads || !kvlist_equal(&a->settings, &b->settings))
		return false;
	for (int i = 0; i < a->nthreads; i++) {
		const struct result_thread *x = &a->threads[i], *y = &b->threads[i];
		if (strcmp(x->name, y->name) || x->samples != y->samples || !kvlist_equal(&x->settings, &y->settings) ||
		    !hist_same(&x->wake, &y->wake) || !hist_same(&x->resp, &y->resp))
			return false;
	}
	return true;
}

/* ---- record ------------------------------------------------------------------------------ */

static int copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* t is zeroed (calloc, or memset when grown) */
static void thread_init(struct result_thread *t)
{
	strcpy(t->role, "probe");
	hist_init_zeroed(&t->wake);
	hist_init_zeroed(&t->resp);
	hist_init_zeroed(&t->attr_runq);
	hist_init_zeroed(&t->attr_other);
	hist_init_zeroed(&t->attr_backlog);
	t->timer_slack_ns = -1;
}

int result_init(struct result *r, const char *command, int nthreads, struct err *e)
{
	memset(r, 0, sizeof(*r));
	if (nthreads < 0 || copy_str(r->command, sizeof(r->command), command))
		return err_set(e, EXIT_RUNTIME, "result: bad command '%s' or thread count %d", command, nthreads);
	strcpy(r->schema, RESULT_SCHEMA);
	copy_str(r->tool_version, sizeof(r->tool_version), IRT_VERSION_STRING);
	if (nthreads) {
		r->threads = calloc((size_t)nthreads, sizeof(*r->threads));
		if (!r->threads)
			return err_set(e, EXIT_RUNTIME, "result: out of memory for %d threads", nthreads);
	}
	r->nthreads = nthreads;
	for (int i = 0; i < nthreads; i++)
		thread_init(&r->threads[i]);
	return 0;
}

static void *grow(void *arr, int *n, size_t size)
{
	char *a = xrealloc(arr, size * (size_t)(*n + 1));
	memset(a + size * (size_t)*n, 0, size);
	(*n)++;
	return a;
}

struct result_thread *result_add_thread(struct result *r)
{
	r->threads = grow(r->threads, &r->nthreads, sizeof(*r->threads));
	thread_init(&r->threads[r->nthreads - 1]);
	return &r->threads[r->nthreads - 1];
}

struct result_load *result_add_load(struct result *r)
{
	r->loads = grow(r->loads, &r->nloads, sizeof(*r->loads));
	return &r->loads[r->nloads - 1];
}

struct result_acct *result_add_acct(struct result *r)
{
	r->acct = grow(r->acct, &r->nacct, sizeof(*r->acct));
	return &r->acct[r->nacct - 1];
}

struct result_cgroup_stat *result_add_cgroup_stat(struct result *r)
{
	r->context.cgroups = grow(r->context.cgroups, &r->context.ncgroups, sizeof(*r->context.cgroups));
	return &r->context.cgroups[r->context.ncgroups - 1];
}

struct result_blocker *result_add_blocker(struct result_explain *x)
{
	x->blockers = grow(x->blockers, &x->nblockers, sizeof(*x->blockers));
	return &x->blockers[x->nblockers - 1];
}

struct result_explain_sample *result_add_worst(struct result_explain *x)
{
	x->worst = grow(x->worst, &x->nworst, sizeof(*x->worst));
	return &x->worst[x->nworst - 1];
}

static const char *const explain_cats[EXC_N] = {"timer", "idle_exit", "task", "irq", "softirq",
                                                "migration", "throttle", "self", "unexplained"};

const char *result_explain_category(int cat)
{
	return cat >= 0 && cat < EXC_N ? explain_cats[cat] : "?";
}

const char *result_explain_policy_note(const struct result_explain *x)
{
	for (int i = 0; i < x->nblockers; i++)
		if (x->blockers[i].policy[0] == '?')
			return "policy ?: not known (the task exited before irt looked it up, or came after the "
			       "most tasks irt looks up); after the ?, what the traced kernel priority says (rt N, nice N)";
	return NULL;
}

/* A blocker's policy string (explain_format_policy: "other nice 0", "fifo 50", "? rt 50") below
 * real-time priority prio; deadline and unparsable ones are not */
static bool policy_below(const char *policy, int prio)
{
	int n;
	if (strstr(policy, " nice "))
		return true;
	const char *sp = strrchr(policy, ' ');
	return sp && (strncmp(policy, "fifo ", 5) == 0 || strncmp(policy, "rr ", 3) == 0 || strncmp(policy, "? rt ", 5) == 0) &&
	       sscanf(sp + 1, "%d", &n) == 1 && n < prio;
}

bool result_explain_preempt_note(const struct result *r, char *buf, size_t len)
{
	const struct result_explain *x = &r->explain;
	int prio = 100;   /* the lowest priority of the probes; all must be fifo or rr */
	for (int i = 0; i < r->nthreads; i++) {
		const char *pol = kvlist_get(&r->threads[i].settings, "policy"), *p = kvlist_get(&r->threads[i].settings, "prio");
		if (!pol || (strcmp(pol, "fifo") && strcmp(pol, "rr")) || !p)
			return false;
		if (atoi(p) < prio)
			prio = atoi(p);
	}
	const struct result_blocker *low = NULL;
	for (int i = 0; i < x->nblockers && !low; i++)
		if (strcmp(x->blockers[i].kind, "task") == 0 && policy_below(x->blockers[i].policy, prio))
			low = &x->blockers[i];
	if (!r->nthreads || !low)
		return false;
	/* what lets a lower-priority task keep the CPU from a woken real-time one depends on the
	 * preemption model: without full preemption it keeps it until it leaves the kernel */
	const char *m = r->env.preemption;
	bool full = strstr(m, "full") || strstr(m, "lazy") || strcmp(m, "rt") == 0;
	snprintf(buf, len,
	         "note: lower-priority tasks (%s %lld, %s) ran while real-time probes (priority %d and up) waited: %s%s%s",
	         low->name, (long long)low->id, low->policy, prio, full ? "" : "the kernel's preemption model is ", full ? "" : *m ? m : "unknown",
	         full ? "they held the CPU with preemption or interrupts disabled (kernel code under a lock)"
	              : ", so a woken real-time task waits until the running task leaves the kernel or reaches a "
	                "preemption point (preempt=full or a PREEMPT_RT kernel bounds that)");
	return true;
}

void result_free(struct result *r)
{
	free(r->explain.blockers);
	free(r->explain.worst);
	for (int i = 0; i < r->nthreads; i++)
		kvlist_free(&r->threads[i].settings);
	free(r->threads);
	for (int i = 0; i < r->nloads; i++)
		kvlist_free(&r->loads[i].settings);
	free(r->loads);
	free(r->acct);
	free(r->context.cgroups);
	kvlist_free(&r->settings);
	kvlist_free(&r->conditions);
	kvlist_free(&r->conditions_changed);
	free(r->cmdline);
	memset(r, 0, sizeof(*r));
}

char *result_format_utc(char *buf, size_t len, int64_t ns)
{
	int64_t sec = ns / NSEC_PER_SEC, frac = ns % NSEC_PER_SEC;
	if (frac < 0) {
		frac += NSEC_PER_SEC;
		sec--;
	}
	time_t t = (time_t)sec;
	struct tm tm;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, len, "invalid");
		return buf;
	}
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64 "Z", tm.tm_year + 1900,
	         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	return buf;
}

/* ---- record -> JSON tree ----------------------------------------------------------------- */

/* jansson refuses invalid UTF-8; such bytes (from a hostname, say) become '?'. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s ? s : "");
	if (j)
		return j;
	char *c = xstrdup_or_empty(s);
	for (unsigned char *p = (unsigned char *)c; *p; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

static json_t *jint(int64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *jcount(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *kv_json(const struct kvlist *l)
{
	json_t *o = json_object();
	for (int i = 0; i < l->n; i++)
		json_object_set_new(o, l->v[i].key, jstr(l->v[i].value));
	return o;
}

static json_t *hist_json(const struct hist *h)
{
	json_t *o = json_object(), *sum = json_object(), *buckets = json_array();
	bool empty = h->count == 0;
	json_object_set_new(o, "count", jcount(h->count));
	json_object_set_new(o, "min", jint(empty ? 0 : h->min));
	json_object_set_new(o, "max", jint(empty ? 0 : h->max));
	json_object_set_new(o, "sum", jint(h->sum));
	json_object_set_new(o, "sumsq", json_real(isfinite(h->sumsq) ? h->sumsq : 0.0));
	json_object_set_new(o, "saturated", jcount(h->saturated));
	/* for people and tools; recomputed from the buckets, never read */
	for (int i = 0; i < result_npercentiles; i++)
		json_object_set_new(sum, result_percentile_names[i], jint(hist_percentile(h, result_percentiles[i])));
	json_object_set_new(sum, "max", jint(empty ? 0 : h->max));
	json_object_set_new(sum, "mean", jint(llround(hist_mean(h))));
	json_object_set_new(sum, "stddev", jint(llround(hist_stddev(h))));
	json_object_set_new(o, "summary", sum);
	size_t it = 0;
	struct hist_bucket b;
	while (hist_next(h, &it, &b)) {
		json_t *pair = json_array();
		json_array_append_new(pair, jint(b.lo));
		json_array_append_new(pair, jcount(b.count));
		json_array_append_new(buckets, pair);
	}
	json_object_set_new(o, "buckets", buckets);
	return o;
}

static json_t *env_json(const struct result_env *env)
{
	json_t *o = json_object();
	json_object_set_new(o, "hostname", jstr(env->hostname));
	json_object_set_new(o, "kernel", jstr(env->kernel));
	json_object_set_new(o, "kernel_version", jstr(env->kernel_version));
	json_object_set_new(o, "machine", jstr(env->machine));
	json_object_set_new(o, "machine_id", jstr(env->machine_id));
	json_object_set_new(o, "cpu_model", jstr(env->cpu_model));
	json_object_set_new(o, "online_cpus", jint(env->online_cpus));
	json_object_set_new(o, "clocksource", jstr(env->clocksource));
	json_object_set_new(o, "preemption", jstr(env->preemption));
	json_object_set_new(o, "hz", jint(env->hz));
	json_object_set_new(o, "root", json_boolean(env->root));
	return o;
}

const struct result_thread *result_stopper(const struct result *r)
{
	for (int i = 0; i < r->nthreads; i++)
		if (r->threads[i].stop_above_ns > 0)
			return &r->threads[i];
	return NULL;
}

bool result_thread_skips(const struct result_thread *t)
{
	const char *rule = kvlist_get(&t->settings, "overrun");
	return rule && strcmp(rule, "skip") == 0;
}

static json_t *thread_json(const struct result_thread *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", jstr(t->name));
	json_object_set_new(o, "role", jstr(t->role));
	json_object_set_new(o, "tid", jint(t->tid));
	json_object_set_new(o, "settings", kv_json(&t->settings));
	json_object_set_new(o, "samples", jcount(t->samples));
	json_object_set_new(o, "overruns", jcount(t->overruns));
	if (result_thread_skips(t))
		json_object_set_new(o, "skipped", jcount(t->skipped));
	if (t->past_window_ns > 0)
		json_object_set_new(o, "past_window_ns", jint(t->past_window_ns));
	if (t->phase_ns > 0)
		json_object_set_new(o, "phase_ns", jint(t->phase_ns));
	if (t->stop_above_ns > 0) {
		json_t *st = json_object();
		json_object_set_new(st, "wake_ns", jint(t->stop_wake_ns));
		json_object_set_new(st, "at_ns", jint(t->stop_at_ns));
		json_object_set_new(st, "above_ns", jint(t->stop_above_ns));
		json_object_set_new(o, "stopped", st);
	}
	json_object_set_new(o, "deadlines_met", jcount(t->deadlines_met));
	json_object_set_new(o, "deadlines_missed", jcount(t->deadlines_missed));
	json_object_set_new(o, "timer_slack_ns", jint(t->timer_slack_ns));
	json_object_set_new(o, "burn_ns_per_kloop", jint(t->burn_ns_per_kloop));
	json_object_set_new(o, "wake", hist_json(&t->wake));
	json_object_set_new(o, "resp", hist_json(&t->resp));
	if (strcmp(t->role, "sim") == 0) {
		json_t *sim = json_object();
		json_object_set_new(sim, "cpu", jint(t->sim_cpu));
		json_object_set_new(sim, "share_ppm", jint(t->sim_share_ppm));
		json_object_set_new(sim, "used_ns", jint(t->sim_used_ns));
		json_object_set_new(sim, "spent_ns", jint(t->sim_spent_ns));
		json_object_set_new(sim, "switches", jcount(t->sim_switches));
		json_object_set_new(sim, "completion_ns", jint(t->sim_completion_ns));
		json_object_set_new(sim, "windows", jcount(t->sim_windows));
		json_object_set_new(sim, "windows_ok", jcount(t->sim_windows_ok));
		json_object_set_new(sim, "activations_min", jint(t->sim_activations_min));
		json_object_set_new(o, "sim", sim);
	}
	if (t->attributed) {
		json_object_set_new(o, "attr_runq", hist_json(&t->attr_runq));
		json_object_set_new(o, "attr_other", hist_json(&t->attr_other));
		json_object_set_new(o, "attr_backlog", hist_json(&t->attr_backlog));
	}
	return o;
}

static json_t *load_json(const struct result_load *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", jstr(l->name));
	json_object_set_new(o, "type", jstr(l->type));
	json_object_set_new(o, "spec", jstr(l->spec));
	json_object_set_new(o, "settings", kv_json(&l->settings));
	json_object_set_new(o, "ops", jcount(l->ops));
	json_object_set_new(o, "bytes", jcount(l->bytes));
	json_object_set_new(o, "errors", jcount(l->errors));
	json_object_set_new(o, "elapsed_ns", jint(l->elapsed_ns));
	json_object_set_new(o, "ops_per_s", json_real(l->ops_per_s));
	json_object_set_new(o, "bytes_per_s", json_real(l->bytes_per_s));
	json_object_set_new(o, "ops_unit", jstr(l->ops_unit));
	json_object_set_new(o, "bytes_unit", jstr(l->bytes_unit));
	json_object_set_new(o, "end", jstr(l->end));
	json_object_set_new(o, "failure", jstr(l->failure));
	return o;
}

static json_t *acct_json(const struct result_acct *a)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", jstr(a->name));
	json_object_set_new(o, "role", jstr(a->role));
	json_object_set_new(o, "kind", jstr(a->kind));
	json_object_set_new(o, "pid", jint(a->pid));
	json_object_set_new(o, "tid", jint(a->tid));
	json_object_set_new(o, "wall_ns", jint(a->wall_ns));
	json_object_set_new(o, "used_ns", jint(a->used_ns));
	json_object_set_new(o, "waited_ns", jint(a->waited_ns));
	json_object_set_new(o, "carry_ns", jint(a->carry_ns));
	json_object_set_new(o, "timeslices", jint(a->timeslices));
	json_object_set_new(o, "vol_switches", jint(a->vol_switches));
	json_object_set_new(o, "invol_switches", jint(a->invol_switches));
	json_object_set_new(o, "migrations", jint(a->migrations));
	if (a->exited)   /* only then: other rows, and files of earlier versions, have no key */
		json_object_set_new(o, "exited", json_true());
	json_object_set_new(o, "cpu_pct", json_real(a->cpu_pct));
	json_object_set_new(o, "run_pct", json_real(a->run_pct));
	return o;
}

static json_t *context_json(const struct result_context *c)
{
	json_t *o = json_object(), *cgs = json_array();
	json_object_set_new(o, "wall_ns", jint(c->wall_ns));
	json_object_set_new(o, "steal_pct", json_real(c->steal_pct));
	json_object_set_new(o, "ctxt", jint(c->ctxt));
	json_object_set_new(o, "ctxt_per_s", json_real(c->ctxt_per_s));
	json_object_set_new(o, "psi_some_pct", json_real(c->psi_some_pct));
	json_object_set_new(o, "psi_full_pct", json_real(c->psi_full_pct));
	json_object_set_new(o, "load1", json_real(c->load1));
	json_object_set_new(o, "load5", json_real(c->load5));
	json_object_set_new(o, "load15", json_real(c->load15));
	for (int i = 0; i < c->ncgroups; i++) {
		const struct result_cgroup_stat *g = &c->cgroups[i];
		json_t *j = json_object();
		json_object_set_new(j, "path", jstr(g->path));
		json_object_set_new(j, "nr_periods", jint(g->nr_periods));
		json_object_set_new(j, "nr_throttled", jint(g->nr_throttled));
		json_object_set_new(j, "throttled_ns", jint(g->throttled_ns));
		json_object_set_new(j, "usage_ns", jint(g->usage_ns));
		json_array_append_new(cgs, j);
	}
	json_object_set_new(o, "cgroups", cgs);
	json_object_set_new(o, "noisy", json_boolean(c->noisy));
	json_object_set_new(o, "noisy_why", jstr(c->noisy_why));
	return o;
}

static json_t *placement_json(const struct result_placement *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "mode", jstr(p->mode));
	json_object_set_new(o, "probe_cgroup", jstr(p->probe_cgroup));
	json_object_set_new(o, "load_cgroup", jstr(p->load_cgroup));
	json_object_set_new(o, "probe_autogroup", jstr(p->probe_autogroup));
	json_object_set_new(o, "load_autogroup", jstr(p->load_autogroup));
	return o;
}

#define RQ(f) {#f, offsetof(struct result_runq, f)}
const struct result_runq_field result_runq_fields[] = {
	RQ(woken), RQ(preempted), RQ(tasks), RQ(table), RQ(other), RQ(dropped), RQ(evicted), RQ(excluded),
	RQ(lost), RQ(untimed), RQ(events), RQ(events_lost), RQ(memory_bytes), {NULL, 0}};

static json_t *runq_json(const struct result_runq *q)
{
	json_t *o = json_object();
	for (const struct result_runq_field *f = result_runq_fields; f->name; f++)
		json_object_set_new(o, f->name, jint(*(const int64_t *)((const char *)q + f->offset)));
	json_object_set_new(o, "top_by", jstr(q->top_by));
	json_object_set_new(o, "top_of", jstr(q->top_of));
	return o;
}

static json_t *explain_json(const struct result_explain *x)
{
	json_t *o = json_object(), *cats = json_object(), *bl = json_array(), *worst = json_array();
	json_object_set_new(o, "source", jstr(x->source));
	json_object_set_new(o, "reason", jstr(x->reason));
	json_object_set_new(o, "threshold_ns", jint(x->threshold_ns));
	json_object_set_new(o, "trace_start_ns", jint(x->trace_start_ns));
	if (x->origin_ns > 0)
		json_object_set_new(o, "origin_ns", jint(x->origin_ns));
	json_object_set_new(o, "tail_samples", jint(x->tail_samples));
	json_object_set_new(o, "explained", jint(x->explained));
	json_object_set_new(o, "lost_samples", jint(x->lost_samples));
	json_object_set_new(o, "late_ns", jint(x->late_ns));
	json_object_set_new(o, "migrations", jint(x->migrations));
	for (int c = 0; c < EXC_N; c++)
		json_object_set_new(cats, explain_cats[c], jint(x->cat_ns[c]));
	json_object_set_new(o, "categories", cats);
	for (int i = 0; i < x->nblockers; i++) {
		const struct result_blocker *b = &x->blockers[i];
		json_t *j = json_object();
		json_object_set_new(j, "kind", jstr(b->kind));
		json_object_set_new(j, "name", jstr(b->name));
		json_object_set_new(j, "id", jint(b->id));
		json_object_set_new(j, "cgroup", jstr(b->cgroup));
		json_object_set_new(j, "policy", jstr(b->policy));
		json_object_set_new(j, "total_ns", jint(b->total_ns));
		json_object_set_new(j, "samples", jint(b->samples));
		json_object_set_new(j, "share", json_real(b->share));
		json_array_append_new(bl, j);
	}
	json_object_set_new(o, "blockers", bl);
	for (int i = 0; i < x->nworst; i++) {
		const struct result_explain_sample *w = &x->worst[i];
		json_t *j = json_object(), *parts = json_array();
		json_object_set_new(j, "thread", jint(w->thread));
		json_object_set_new(j, "at_ns", jint(w->at_ns));
		json_object_set_new(j, "lateness_ns", jint(w->lateness_ns));
		json_object_set_new(j, "cpu", jint(w->cpu));
		json_object_set_new(j, "migrations", jint(w->migrations));
		for (int k = 0; k < w->nparts; k++) {
			const struct result_explain_part *pt = &w->parts[k];
			json_t *q = json_object();
			json_object_set_new(q, "category", jstr(result_explain_category(pt->cat)));
			json_object_set_new(q, "name", jstr(pt->name));
			json_object_set_new(q, "id", jint(pt->id));
			json_object_set_new(q, "ns", jint(pt->ns));
			json_array_append_new(parts, q);
		}
		json_object_set_new(j, "parts", parts);
		json_array_append_new(worst, j);
	}
	json_object_set_new(o, "worst", worst);
	json_object_set_new(o, "events", jcount(x->events));
	json_object_set_new(o, "events_lost", jcount(x->events_lost));
	json_object_set_new(o, "events_per_s", json_real(x->events_per_s));
	json_object_set_new(o, "buffer_bytes", jint(x->buffer_bytes));
	json_object_set_new(o, "memory_bytes", jint(x->memory_bytes));
	return o;
}

json_t *result_head_json(const char *schema, const char *tool_version, const char *command, const char *cmdline,
                         int64_t start_ns, int64_t end_ns, int64_t duration_ns, bool interrupted)
{
	char buf[64];
	json_t *o = json_object();
	json_object_set_new(o, "schema", jstr(schema));
	json_object_set_new(o, "tool_version", jstr(tool_version));
	json_object_set_new(o, "command", jstr(command));
	json_object_set_new(o, "cmdline", jstr(cmdline));
	json_object_set_new(o, "start_ns", jint(start_ns));
	json_object_set_new(o, "start_utc", jstr(result_format_utc(buf, sizeof(buf), start_ns)));
	json_object_set_new(o, "end_ns", jint(end_ns));
	json_object_set_new(o, "end_utc", jstr(result_format_utc(buf, sizeof(buf), end_ns)));
	json_object_set_new(o, "duration_ns", jint(duration_ns));
	json_object_set_new(o, "interrupted", json_boolean(interrupted));
	return o;
}

static json_t *result_json(const struct result *r)
{
	json_t *o = result_head_json(RESULT_SCHEMA, r->tool_version, r->command, r->cmdline, r->start_realtime_ns,
	                             r->end_realtime_ns, r->duration_ns, r->interrupted);
	json_t *threads = json_array();
	if (r->memory_lock[0])
		json_object_set_new(o, "memory_lock", jstr(r->memory_lock));
	json_object_set_new(o, "env", env_json(&r->env));
	json_object_set_new(o, "settings", kv_json(&r->settings));
	for (int i = 0; i < r->nthreads; i++)
		json_array_append_new(threads, thread_json(&r->threads[i]));
	json_object_set_new(o, "threads", threads);
	if (r->nloads) {
		json_t *a = json_array();
		for (int i = 0; i < r->nloads; i++)
			json_array_append_new(a, load_json(&r->loads[i]));
		json_object_set_new(o, "loads", a);
	}
	if (r->nacct) {
		json_t *a = json_array();
		for (int i = 0; i < r->nacct; i++)
			json_array_append_new(a, acct_json(&r->acct[i]));
		json_object_set_new(o, "accounting", a);
	}
	if (r->context.present)
		json_object_set_new(o, "context", context_json(&r->context));
	if (r->placement.mode[0])
		json_object_set_new(o, "placement", placement_json(&r->placement));
	if (r->conditions.n) {
		json_object_set_new(o, "conditions", kv_json(&r->conditions));
		json_object_set_new(o, "conditions_changed", kv_json(&r->conditions_changed));
	}
	if (r->explain.present)
		json_object_set_new(o, "explain", explain_json(&r->explain));
	if (r->runq.present)
		json_object_set_new(o, "runq", runq_json(&r->runq));
	return o;
}

/* ---- layout ------------------------------------------------------------------------------ */

static bool is_leaf_array(const json_t *a)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) {
		if (json_is_object(v))
			return false;
		if (json_is_array(v) && !is_leaf_array(v))
			return false;
	}
	return true;
}

static int put_jansson(FILE *f, const json_t *v)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | REAL_FLAGS);
	if (!s)
		return -1;
	fputs(s, f);
	free(s);
	return 0;
}

static int put_value(FILE *f, const json_t *v, int depth)
{
	if (json_is_object(v) && json_object_size(v) > 0) {
		const char *key;
		json_t *m;
		size_t k = 0, n = json_object_size(v);
		fputs("{\n", f);
		json_object_foreach((json_t *)v, key, m) {
			json_t *jk = jstr(key);
			fprintf(f, "%*s", 2 * (depth + 1), "");
			int bad = put_jansson(f, jk);
			json_decref(jk);
			fputs(": ", f);
			if (bad || put_value(f, m, depth + 1))
				return -1;
			fputs(++k < n ? ",\n" : "\n", f);
		}
		fprintf(f, "%*s}", 2 * depth, "");
		return 0;
	}
	if (json_is_array(v) && json_array_size(v) > 0 && !is_leaf_array(v)) {
		size_t i, n = json_array_size(v);
		json_t *m;
		fputs("[\n", f);
		json_array_foreach(v, i, m) {
			fprintf(f, "%*s", 2 * (depth + 1), "");
			if (put_value(f, m, depth + 1))
				return -1;
			fputs(i + 1 < n ? ",\n" : "\n", f);
		}
		fprintf(f, "%*s]", 2 * depth, "");
		return 0;
	}
	return put_jansson(f, v);
}

/* The whole document as text, ending in a newline. */
static char *json_text(const json_t *root, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	int bad = !root || put_value(f, root, 0);
	fputc('\n', f);
	if (fclose(f) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- atomic write ------------------------------------------------------------------------ */

int result_json_write(const json_t *root, const char *path, struct err *e)
{
	size_t len;
	char *text = json_text(root, &len);
	if (!text)
		return err_set(e, EXIT_RUNTIME, "%s: cannot encode the result as JSON (out of memory?)", path);
	int rc = write_atomic(path, text, len, e);
	free(text);
	return rc;
}

int result_write(const struct result *r, const char *path, struct err *e)
{
	json_t *root = result_json(r);
	int rc = result_json_write(root, path, e);
	json_decref(root);
	return rc;
}

/* ---- parts for other records (result_json.h) ---------------------------------------------- */

json_t *result_jstr(const char *s)
{
	return jstr(s);
}

json_t *result_hist_json(const struct hist *h)
{
	return hist_json(h);
}

json_t *result_env_json(const struct result_env *env)
{
	return env_json(env);
}

json_t *result_kv_json(const struct kvlist *l)
{
	return kv_json(l);
}

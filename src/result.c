/* The result record and its JSON form, schema "irt-result/1" (docs/result-schema.md).
 *
 * Writing: the record is turned into a jansson tree, then laid out by a small printer that
 * uses jansson for every scalar and every leaf array (so escaping and number formats are
 * jansson's) but keeps bucket lists on one line: objects are indented, arrays of numbers or of
 * number pairs are compact. Reals use 17 significant digits, so doubles read back exactly and
 * write -> read -> write is byte-identical.
 *
 * Reading is strict about everything the schema defines and ignores keys it does not know. */
#include "result.h"

#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- record ------------------------------------------------------------------------------ */

static int copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
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
	for (int i = 0; i < nthreads; i++) {
		struct result_thread *t = &r->threads[i];
		strcpy(t->role, "probe");
		hist_init(&t->wake);
		hist_init(&t->resp);
		hist_init(&t->attr_runq);
		hist_init(&t->attr_other);
		t->timer_slack_ns = -1;
	}
	return 0;
}

static void *grow(void *arr, int *n, size_t size)
{
	char *a = xrealloc(arr, size * (size_t)(*n + 1));
	memset(a + size * (size_t)*n, 0, size);
	(*n)++;
	return a;
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

static const char *const explain_cats[EXC_N] = {"timer", "idle_exit", "task", "irq", "softirq",
                                                "migration", "throttle", "self", "unexplained"};

const char *result_explain_category(int cat)
{
	return cat >= 0 && cat < EXC_N ? explain_cats[cat] : "?";
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

static json_t *thread_json(const struct result_thread *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", jstr(t->name));
	json_object_set_new(o, "role", jstr(t->role));
	json_object_set_new(o, "tid", jint(t->tid));
	json_object_set_new(o, "settings", kv_json(&t->settings));
	json_object_set_new(o, "samples", jcount(t->samples));
	json_object_set_new(o, "overruns", jcount(t->overruns));
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

static json_t *explain_json(const struct result_explain *x)
{
	json_t *o = json_object(), *cats = json_object(), *bl = json_array(), *worst = json_array();
	json_object_set_new(o, "source", jstr(x->source));
	json_object_set_new(o, "reason", jstr(x->reason));
	json_object_set_new(o, "threshold_ns", jint(x->threshold_ns));
	json_object_set_new(o, "trace_start_ns", jint(x->trace_start_ns));
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

static json_t *result_json(const struct result *r)
{
	char buf[64];
	json_t *o = json_object(), *threads = json_array();
	json_object_set_new(o, "schema", jstr(RESULT_SCHEMA));
	json_object_set_new(o, "tool_version", jstr(r->tool_version));
	json_object_set_new(o, "command", jstr(r->command));
	json_object_set_new(o, "cmdline", jstr(r->cmdline));
	json_object_set_new(o, "start_ns", jint(r->start_realtime_ns));
	json_object_set_new(o, "start_utc", jstr(result_format_utc(buf, sizeof(buf), r->start_realtime_ns)));
	json_object_set_new(o, "end_ns", jint(r->end_realtime_ns));
	json_object_set_new(o, "end_utc", jstr(result_format_utc(buf, sizeof(buf), r->end_realtime_ns)));
	json_object_set_new(o, "duration_ns", jint(r->duration_ns));
	json_object_set_new(o, "interrupted", json_boolean(r->interrupted));
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
static char *result_text(const struct result *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	json_t *root = result_json(r);
	int bad = !root || put_value(f, root, 0);
	fputc('\n', f);
	json_decref(root);
	if (fclose(f) || bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- atomic write ------------------------------------------------------------------------ */

int result_write(const struct result *r, const char *path, struct err *e)
{
	size_t len;
	char *text = result_text(r, &len);
	if (!text)
		return err_set(e, EXIT_RUNTIME, "%s: cannot encode the result as JSON (out of memory?)", path);
	int rc = write_atomic(path, text, len, e);
	free(text);
	return rc;
}

/* ---- strict reading ---------------------------------------------------------------------- */

struct rd {
	const char *file;
	struct err *e;
};

static int bad(struct rd *rd, const char *path, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(struct rd *rd, const char *path, const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (key)
		return err_set(rd->e, EXIT_USAGE, "%s: %s.%s: %s", rd->file, path, key, what);
	return err_set(rd->e, EXIT_USAGE, "%s: %s: %s", rd->file, path, what);
}

const char *const result_memory_locks[] = {"all", "working-set", "none", "none-rlimit", NULL};

static json_t *member(struct rd *rd, const char *path, const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		bad(rd, path, key, "missing (required by %s)", RESULT_SCHEMA);
	return v;
}

/* Text from a result file reaches terminals (report --format text, compare): the readers
 * below keep its control characters escaped ("\x1b", err_escape_dup), as irt's own messages
 * show them. */
static int get_str(struct rd *rd, const char *path, const json_t *obj, const char *key, char *dst, size_t cap)
{
	json_t *v = member(rd, path, obj, key);
	if (!v)
		return -1;
	if (!json_is_string(v))
		return bad(rd, path, key, "expected a string");
	const char *s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return bad(rd, path, key, "contains a NUL character");
	char *text = err_escape_dup(s);
	int rc = copy_str(dst, cap, text);
	free(text);
	if (rc)
		return bad(rd, path, key, "longer than %zu characters", cap - 1);
	return 0;
}

static int get_strdup(struct rd *rd, const char *path, const json_t *obj, const char *key, char **dst)
{
	json_t *v = member(rd, path, obj, key);
	if (!v)
		return -1;
	if (!json_is_string(v))
		return bad(rd, path, key, "expected a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return bad(rd, path, key, "contains a NUL character");
	*dst = err_escape_dup(json_string_value(v));
	return 0;
}

static int get_int(struct rd *rd, const char *path, const json_t *obj, const char *key, int64_t min,
                   int64_t max, int64_t *out)
{
	json_t *v = member(rd, path, obj, key);
	if (!v)
		return -1;
	int64_t x = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
	if (!json_is_integer(v) || x < min || x > max) {
		if (min == 0 && max == INT64_MAX)
			return bad(rd, path, key, "expected a non-negative integer");
		if (max == INT64_MAX)
			return bad(rd, path, key, "expected an integer >= %" PRId64, min);
		return bad(rd, path, key, "expected an integer from %" PRId64 " to %" PRId64, min, max);
	}
	*out = x;
	return 0;
}

static int get_count(struct rd *rd, const char *path, const json_t *obj, const char *key, uint64_t *out)
{
	int64_t x;
	if (get_int(rd, path, obj, key, 0, INT64_MAX, &x))
		return -1;
	*out = (uint64_t)x;
	return 0;
}

static int get_int32(struct rd *rd, const char *path, const json_t *obj, const char *key, int *out)
{
	int64_t x;
	if (get_int(rd, path, obj, key, 0, INT32_MAX, &x))
		return -1;
	*out = (int)x;
	return 0;
}

/* a number (integer or real) >= min */
static int get_real(struct rd *rd, const char *path, const json_t *obj, const char *key, double min, double *out)
{
	json_t *v = member(rd, path, obj, key);
	if (!v)
		return -1;
	double x = json_number_value(v);
	if (!json_is_number(v) || !isfinite(x) || x < min)
		return bad(rd, path, key, "expected a number >= %g", min);
	*out = x;
	return 0;
}

static int get_bool(struct rd *rd, const char *path, const json_t *obj, const char *key, bool *out)
{
	json_t *v = member(rd, path, obj, key);
	if (!v)
		return -1;
	if (!json_is_boolean(v))
		return bad(rd, path, key, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

static json_t *get_typed(struct rd *rd, const char *path, const json_t *obj, const char *key, json_type type)
{
	json_t *v = member(rd, path, obj, key);
	if (v && json_typeof(v) != type) {
		bad(rd, path, key, type == JSON_OBJECT ? "expected an object" : "expected an array");
		return NULL;
	}
	return v;
}

static int read_kv(struct rd *rd, const char *path, const json_t *obj, const char *key, struct kvlist *l)
{
	json_t *o = get_typed(rd, path, obj, key, JSON_OBJECT);
	if (!o)
		return -1;
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		char sub[256];
		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (!json_is_string(v))
			return bad(rd, sub, k, "expected a string");
		if (strlen(json_string_value(v)) != json_string_length(v))
			return bad(rd, sub, k, "contains a NUL character");
		char *ek = err_escape_dup(k), *ev = err_escape_dup(json_string_value(v));
		kvlist_set(l, ek, ev);
		free(ek);
		free(ev);
	}
	return 0;
}

static int read_env(struct rd *rd, const json_t *root, struct result_env *env)
{
	const char *p = "$.env";
	json_t *o = get_typed(rd, "$", root, "env", JSON_OBJECT);
	if (!o)
		return -1;
	if (get_str(rd, p, o, "hostname", env->hostname, sizeof(env->hostname)) ||
	    get_str(rd, p, o, "kernel", env->kernel, sizeof(env->kernel)) ||
	    get_str(rd, p, o, "kernel_version", env->kernel_version, sizeof(env->kernel_version)) ||
	    get_str(rd, p, o, "machine", env->machine, sizeof(env->machine)) ||
	    (json_object_get(o, "machine_id") &&   /* optional: older results lack it */
	     get_str(rd, p, o, "machine_id", env->machine_id, sizeof(env->machine_id))) ||
	    get_str(rd, p, o, "cpu_model", env->cpu_model, sizeof(env->cpu_model)) ||
	    get_int32(rd, p, o, "online_cpus", &env->online_cpus) ||
	    get_str(rd, p, o, "clocksource", env->clocksource, sizeof(env->clocksource)) ||
	    get_str(rd, p, o, "preemption", env->preemption, sizeof(env->preemption)) ||
	    get_int32(rd, p, o, "hz", &env->hz) ||
	    get_bool(rd, p, o, "root", &env->root))
		return -1;
	return 0;
}

/* sum of count values each in [min, max] lies in [count*min, count*max] */
static bool sum_plausible(uint64_t count, int64_t min, int64_t max, int64_t sum)
{
	__int128 lo = (__int128)count * min, hi = (__int128)count * max;
	return sum >= lo && sum <= hi;
}

static int read_hist(struct rd *rd, const char *parent, const json_t *obj, const char *key, struct hist *h)
{
	char p[160];
	snprintf(p, sizeof(p), "%s.%s", parent, key);
	json_t *o = get_typed(rd, parent, obj, key, JSON_OBJECT);
	if (!o)
		return -1;
	uint64_t count, saturated;
	int64_t min, max, sum;
	if (get_count(rd, p, o, "count", &count) || get_int(rd, p, o, "min", 0, HIST_MAX_VALUE, &min) ||
	    get_int(rd, p, o, "max", 0, HIST_MAX_VALUE, &max) || get_int(rd, p, o, "sum", 0, INT64_MAX, &sum) ||
	    get_count(rd, p, o, "saturated", &saturated))
		return -1;
	json_t *jsq = member(rd, p, o, "sumsq");
	if (!jsq)
		return -1;
	double sumsq = json_number_value(jsq);
	if (!json_is_number(jsq) || !isfinite(sumsq) || sumsq < 0)
		return bad(rd, p, "sumsq", "expected a non-negative number");
	json_t *arr = get_typed(rd, p, o, "buckets", JSON_ARRAY);
	if (!arr)
		return -1;

	size_t n = json_array_size(arr), i;
	struct hist_pair *pairs = calloc(n ? n : 1, sizeof(*pairs));
	if (!pairs)
		return err_set(rd->e, EXIT_RUNTIME, "%s: out of memory", rd->file);
	uint64_t total = 0;
	int64_t prev = -1;
	int rc = -1;
	json_t *pair;
	json_array_foreach(arr, i, pair) {
		char bp[192];
		snprintf(bp, sizeof(bp), "%s.buckets[%zu]", p, i);
		json_t *jv = json_array_get(pair, 0), *jc = json_array_get(pair, 1);
		if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(jv) || !json_is_integer(jc)) {
			bad(rd, bp, NULL, "expected [lower_edge, count], two integers");
			goto out;
		}
		int64_t v = (int64_t)json_integer_value(jv), c = (int64_t)json_integer_value(jc);
		if (v < 0 || v > HIST_MAX_VALUE || hist_bucket_lo(hist_index(v)) != v) {
			bad(rd, bp, NULL, "%" PRId64 " is not a bucket lower edge", v);
			goto out;
		}
		if (v <= prev) {
			bad(rd, bp, NULL, "buckets must be in ascending order without duplicates");
			goto out;
		}
		if (c <= 0) {
			bad(rd, bp, NULL, "expected a positive count");
			goto out;
		}
		if (total + (uint64_t)c < total || total + (uint64_t)c > INT64_MAX) {
			bad(rd, bp, NULL, "counts overflow");
			goto out;
		}
		total += (uint64_t)c;
		prev = v;
		pairs[i].value = v;
		pairs[i].count = (uint64_t)c;
	}
	if (total != count) {
		bad(rd, p, "count", "%" PRIu64 " but the buckets sum to %" PRIu64, count, total);
		goto out;
	}
	if (saturated > count) {
		bad(rd, p, "saturated", "more than count");
		goto out;
	}
	if (count == 0) {
		if (min || max || sum || sumsq != 0) {
			bad(rd, p, NULL, "an empty histogram must have min, max, sum and sumsq 0");
			goto out;
		}
	} else {
		if (hist_index(min) != hist_index(pairs[0].value)) {
			bad(rd, p, "min", "%" PRId64 " is not in the first bucket", min);
			goto out;
		}
		if (hist_index(max) != hist_index(pairs[n - 1].value) || max < min) {
			bad(rd, p, "max", "%" PRId64 " is not in the last bucket", max);
			goto out;
		}
		if (saturated && max != HIST_MAX_VALUE) {
			bad(rd, p, "saturated", "nonzero, so max must be %" PRId64, (int64_t)HIST_MAX_VALUE);
			goto out;
		}
		if (!sum_plausible(count, min, max, sum)) {
			bad(rd, p, "sum", "not between count*min and count*max");
			goto out;
		}
	}
	if (hist_decode(h, pairs, n, count, min, max, sum, sumsq, saturated)) {
		bad(rd, p, NULL, "inconsistent histogram");
		goto out;
	}
	rc = 0;
out:
	free(pairs);
	return rc;
}

static int read_thread(struct rd *rd, const json_t *o, const char *p, struct result_thread *t)
{
	if (!json_is_object(o))
		return bad(rd, p, NULL, "expected an object");
	if (get_str(rd, p, o, "name", t->name, sizeof(t->name)) ||
	    get_str(rd, p, o, "role", t->role, sizeof(t->role)) ||
	    get_int(rd, p, o, "tid", INT64_MIN, INT64_MAX, &t->tid) ||
	    read_kv(rd, p, o, "settings", &t->settings) ||
	    get_count(rd, p, o, "samples", &t->samples) ||
	    get_count(rd, p, o, "overruns", &t->overruns) ||
	    get_count(rd, p, o, "deadlines_met", &t->deadlines_met) ||
	    get_count(rd, p, o, "deadlines_missed", &t->deadlines_missed) ||
	    get_int(rd, p, o, "timer_slack_ns", -1, INT64_MAX, &t->timer_slack_ns) ||
	    get_int(rd, p, o, "burn_ns_per_kloop", 0, INT64_MAX, &t->burn_ns_per_kloop) ||
	    read_hist(rd, p, o, "wake", &t->wake) ||
	    read_hist(rd, p, o, "resp", &t->resp))
		return -1;
	json_t *sim = json_object_get(o, "sim");
	if (sim) {
		char sp[96];
		snprintf(sp, sizeof(sp), "%s.sim", p);
		if (!json_is_object(sim))
			return bad(rd, p, "sim", "expected an object");
		if (get_int(rd, sp, sim, "cpu", 0, INT32_MAX, &t->sim_cpu) ||
		    get_int(rd, sp, sim, "share_ppm", 0, INT64_MAX, &t->sim_share_ppm) ||
		    get_int(rd, sp, sim, "used_ns", 0, INT64_MAX, &t->sim_used_ns) ||
		    get_int(rd, sp, sim, "spent_ns", 0, INT64_MAX, &t->sim_spent_ns) ||
		    get_count(rd, sp, sim, "switches", &t->sim_switches) ||
		    get_int(rd, sp, sim, "completion_ns", -1, INT64_MAX, &t->sim_completion_ns) ||
		    get_count(rd, sp, sim, "windows", &t->sim_windows) ||
		    get_count(rd, sp, sim, "windows_ok", &t->sim_windows_ok) ||
		    get_int(rd, sp, sim, "activations_min", -1, INT64_MAX, &t->sim_activations_min))
			return -1;
		if (t->sim_windows_ok > t->sim_windows)
			return bad(rd, sp, "windows_ok", "more than windows");
	}
	t->attributed = json_object_get(o, "attr_runq") != NULL;
	if (t->attributed && (read_hist(rd, p, o, "attr_runq", &t->attr_runq) || read_hist(rd, p, o, "attr_other", &t->attr_other)))
		return -1;
	return 0;
}

static int read_load(struct rd *rd, const json_t *o, const char *p, struct result_load *l)
{
	int64_t elapsed;
	if (!json_is_object(o))
		return bad(rd, p, NULL, "expected an object");
	if (get_str(rd, p, o, "name", l->name, sizeof(l->name)) || get_str(rd, p, o, "type", l->type, sizeof(l->type)) ||
	    get_str(rd, p, o, "spec", l->spec, sizeof(l->spec)) || read_kv(rd, p, o, "settings", &l->settings) ||
	    get_count(rd, p, o, "ops", &l->ops) || get_count(rd, p, o, "bytes", &l->bytes) ||
	    get_count(rd, p, o, "errors", &l->errors) || get_int(rd, p, o, "elapsed_ns", 0, INT64_MAX, &elapsed) ||
	    get_real(rd, p, o, "ops_per_s", 0, &l->ops_per_s) || get_real(rd, p, o, "bytes_per_s", 0, &l->bytes_per_s) ||
	    get_str(rd, p, o, "ops_unit", l->ops_unit, sizeof(l->ops_unit)) ||
	    get_str(rd, p, o, "bytes_unit", l->bytes_unit, sizeof(l->bytes_unit)) ||
	    get_str(rd, p, o, "end", l->end, sizeof(l->end)) || get_str(rd, p, o, "failure", l->failure, sizeof(l->failure)))
		return -1;
	l->elapsed_ns = elapsed;
	return 0;
}

static int read_acct(struct rd *rd, const json_t *o, const char *p, struct result_acct *a)
{
	if (!json_is_object(o))
		return bad(rd, p, NULL, "expected an object");
	if (get_str(rd, p, o, "name", a->name, sizeof(a->name)) || get_str(rd, p, o, "role", a->role, sizeof(a->role)) ||
	    get_str(rd, p, o, "kind", a->kind, sizeof(a->kind)) || get_int(rd, p, o, "pid", -1, INT32_MAX, &a->pid) ||
	    get_int(rd, p, o, "tid", -1, INT32_MAX, &a->tid) || get_int(rd, p, o, "wall_ns", 0, INT64_MAX, &a->wall_ns) ||
	    get_int(rd, p, o, "used_ns", -1, INT64_MAX, &a->used_ns) ||
	    get_int(rd, p, o, "waited_ns", -1, INT64_MAX, &a->waited_ns) ||
	    get_int(rd, p, o, "carry_ns", INT64_MIN, INT64_MAX, &a->carry_ns) ||
	    get_int(rd, p, o, "timeslices", -1, INT64_MAX, &a->timeslices) ||
	    get_int(rd, p, o, "vol_switches", -1, INT64_MAX, &a->vol_switches) ||
	    get_int(rd, p, o, "invol_switches", -1, INT64_MAX, &a->invol_switches) ||
	    get_int(rd, p, o, "migrations", -1, INT64_MAX, &a->migrations) ||
	    get_real(rd, p, o, "cpu_pct", 0, &a->cpu_pct) || get_real(rd, p, o, "run_pct", 0, &a->run_pct))
		return -1;
	return 0;
}

static int read_context(struct rd *rd, const json_t *o, struct result *r)
{
	const char *p = "$.context";
	struct result_context *c = &r->context;
	if (!json_is_object(o))
		return bad(rd, p, NULL, "expected an object");
	if (get_int(rd, p, o, "wall_ns", 0, INT64_MAX, &c->wall_ns) || get_real(rd, p, o, "steal_pct", -1, &c->steal_pct) ||
	    get_int(rd, p, o, "ctxt", -1, INT64_MAX, &c->ctxt) || get_real(rd, p, o, "ctxt_per_s", -1, &c->ctxt_per_s) ||
	    get_real(rd, p, o, "psi_some_pct", -1, &c->psi_some_pct) ||
	    get_real(rd, p, o, "psi_full_pct", -1, &c->psi_full_pct) || get_real(rd, p, o, "load1", -1, &c->load1) ||
	    get_real(rd, p, o, "load5", -1, &c->load5) || get_real(rd, p, o, "load15", -1, &c->load15) ||
	    get_bool(rd, p, o, "noisy", &c->noisy) || get_str(rd, p, o, "noisy_why", c->noisy_why, sizeof(c->noisy_why)))
		return -1;
	json_t *cgs = get_typed(rd, p, o, "cgroups", JSON_ARRAY);
	if (!cgs)
		return -1;
	size_t i;
	json_t *g;
	json_array_foreach(cgs, i, g) {
		char gp[64];
		snprintf(gp, sizeof(gp), "$.context.cgroups[%zu]", i);
		struct result_cgroup_stat *s = result_add_cgroup_stat(r);
		if (!json_is_object(g))
			return bad(rd, gp, NULL, "expected an object");
		if (get_str(rd, gp, g, "path", s->path, sizeof(s->path)) ||
		    get_int(rd, gp, g, "nr_periods", -1, INT64_MAX, &s->nr_periods) ||
		    get_int(rd, gp, g, "nr_throttled", -1, INT64_MAX, &s->nr_throttled) ||
		    get_int(rd, gp, g, "throttled_ns", -1, INT64_MAX, &s->throttled_ns) ||
		    get_int(rd, gp, g, "usage_ns", -1, INT64_MAX, &s->usage_ns))
			return -1;
	}
	c->present = true;
	return 0;
}

static int read_placement(struct rd *rd, const json_t *o, struct result_placement *pl)
{
	const char *p = "$.placement";
	if (!json_is_object(o))
		return bad(rd, p, NULL, "expected an object");
	if (get_str(rd, p, o, "mode", pl->mode, sizeof(pl->mode)) ||
	    get_str(rd, p, o, "probe_cgroup", pl->probe_cgroup, sizeof(pl->probe_cgroup)) ||
	    get_str(rd, p, o, "load_cgroup", pl->load_cgroup, sizeof(pl->load_cgroup)) ||
	    get_str(rd, p, o, "probe_autogroup", pl->probe_autogroup, sizeof(pl->probe_autogroup)) ||
	    get_str(rd, p, o, "load_autogroup", pl->load_autogroup, sizeof(pl->load_autogroup)))
		return -1;
	if (!pl->mode[0])
		return bad(rd, p, "mode", "must not be empty");
	return 0;
}

static int category_of(const char *name)
{
	for (int c = 0; c < EXC_N; c++)
		if (strcmp(explain_cats[c], name) == 0)
			return c;
	return -1;
}

static int read_explain(struct rd *rd, const json_t *o, struct result *r)
{
	const char *p = "$.explain";
	struct result_explain *x = &r->explain;
	if (!json_is_object(o))
		return bad(rd, p, NULL, "expected an object");
	if (get_str(rd, p, o, "source", x->source, sizeof(x->source)) ||
	    get_str(rd, p, o, "reason", x->reason, sizeof(x->reason)) ||
	    get_int(rd, p, o, "threshold_ns", 0, INT64_MAX, &x->threshold_ns) ||
	    get_int(rd, p, o, "trace_start_ns", 0, INT64_MAX, &x->trace_start_ns) ||
	    get_int(rd, p, o, "tail_samples", 0, INT64_MAX, &x->tail_samples) ||
	    get_int(rd, p, o, "explained", 0, INT64_MAX, &x->explained) ||
	    get_int(rd, p, o, "lost_samples", 0, INT64_MAX, &x->lost_samples) ||
	    get_int(rd, p, o, "late_ns", 0, INT64_MAX, &x->late_ns) ||
	    get_int(rd, p, o, "migrations", 0, INT64_MAX, &x->migrations) || get_count(rd, p, o, "events", &x->events) ||
	    get_count(rd, p, o, "events_lost", &x->events_lost) ||
	    get_real(rd, p, o, "events_per_s", 0, &x->events_per_s) ||
	    get_int(rd, p, o, "buffer_bytes", 0, INT64_MAX, &x->buffer_bytes) ||
	    get_int(rd, p, o, "memory_bytes", 0, INT64_MAX, &x->memory_bytes))
		return -1;
	if (x->explained + x->lost_samples > x->tail_samples)
		return bad(rd, p, "explained", "explained + lost_samples exceed tail_samples");
	json_t *cats = get_typed(rd, p, o, "categories", JSON_OBJECT);
	if (!cats)
		return -1;
	for (int c = 0; c < EXC_N; c++)
		if (get_int(rd, "$.explain.categories", cats, explain_cats[c], 0, INT64_MAX, &x->cat_ns[c]))
			return -1;
	json_t *bl = get_typed(rd, p, o, "blockers", JSON_ARRAY), *worst = bl ? get_typed(rd, p, o, "worst", JSON_ARRAY) : NULL;
	if (!bl || !worst)
		return -1;
	size_t i, k;
	json_t *v, *q;
	json_array_foreach(bl, i, v) {
		char bp[64];
		snprintf(bp, sizeof(bp), "$.explain.blockers[%zu]", i);
		struct result_blocker *b = result_add_blocker(x);
		if (!json_is_object(v))
			return bad(rd, bp, NULL, "expected an object");
		if (get_str(rd, bp, v, "kind", b->kind, sizeof(b->kind)) || get_str(rd, bp, v, "name", b->name, sizeof(b->name)) ||
		    get_int(rd, bp, v, "id", -1, INT64_MAX, &b->id) ||
		    get_str(rd, bp, v, "cgroup", b->cgroup, sizeof(b->cgroup)) ||
		    get_str(rd, bp, v, "policy", b->policy, sizeof(b->policy)) ||
		    get_int(rd, bp, v, "total_ns", 0, INT64_MAX, &b->total_ns) ||
		    get_int(rd, bp, v, "samples", 0, INT64_MAX, &b->samples) || get_real(rd, bp, v, "share", 0, &b->share))
			return -1;
		if (strcmp(b->kind, "task") && strcmp(b->kind, "cgroup") && strcmp(b->kind, "irq") && strcmp(b->kind, "softirq"))
			return bad(rd, bp, "kind", "expected task, cgroup, irq or softirq");
	}
	json_array_foreach(worst, i, v) {
		char wp[64];
		snprintf(wp, sizeof(wp), "$.explain.worst[%zu]", i);
		if (!json_is_object(v))
			return bad(rd, wp, NULL, "expected an object");
		x->worst = grow(x->worst, &x->nworst, sizeof(*x->worst));
		struct result_explain_sample *w = &x->worst[x->nworst - 1];
		int64_t thread, cpu, migrations;
		if (get_int(rd, wp, v, "thread", 0, r->nthreads > 0 ? r->nthreads - 1 : 0, &thread) ||
		    get_int(rd, wp, v, "at_ns", INT64_MIN, INT64_MAX, &w->at_ns) ||
		    get_int(rd, wp, v, "lateness_ns", 0, INT64_MAX, &w->lateness_ns) ||
		    get_int(rd, wp, v, "cpu", -1, INT32_MAX, &cpu) ||
		    get_int(rd, wp, v, "migrations", 0, INT32_MAX, &migrations))
			return -1;
		w->migrations = (int)migrations;
		w->thread = (int)thread;
		w->cpu = (int)cpu;
		json_t *parts = get_typed(rd, wp, v, "parts", JSON_ARRAY);
		if (!parts)
			return -1;
		if (json_array_size(parts) > EXPLAIN_MAX_PARTS)
			return bad(rd, wp, "parts", "more than %d parts", EXPLAIN_MAX_PARTS);
		json_array_foreach(parts, k, q) {
			char pp[96], cat[16];
			snprintf(pp, sizeof(pp), "%s.parts[%zu]", wp, k);
			struct result_explain_part *pt = &w->parts[w->nparts++];
			if (!json_is_object(q))
				return bad(rd, pp, NULL, "expected an object");
			if (get_str(rd, pp, q, "category", cat, sizeof(cat)) || get_str(rd, pp, q, "name", pt->name, sizeof(pt->name)) ||
			    get_int(rd, pp, q, "id", -1, INT64_MAX, &pt->id) || get_int(rd, pp, q, "ns", 0, INT64_MAX, &pt->ns))
				return -1;
			if ((pt->cat = category_of(cat)) < 0)
				return bad(rd, pp, "category", "unknown category '%s'", cat);
		}
	}
	x->present = true;
	return 0;
}

/* The optional sections of irt run; each is checked strictly when present. */
static int read_run_sections(struct rd *rd, const json_t *root, struct result *r)
{
	json_t *v;
	size_t i;
	json_t *x;
	if ((v = json_object_get(root, "loads"))) {
		if (!json_is_array(v))
			return bad(rd, "$", "loads", "expected an array");
		json_array_foreach(v, i, x) {
			char p[64];
			snprintf(p, sizeof(p), "$.loads[%zu]", i);
			if (read_load(rd, x, p, result_add_load(r)))
				return -1;
		}
	}
	if ((v = json_object_get(root, "accounting"))) {
		if (!json_is_array(v))
			return bad(rd, "$", "accounting", "expected an array");
		json_array_foreach(v, i, x) {
			char p[64];
			snprintf(p, sizeof(p), "$.accounting[%zu]", i);
			if (read_acct(rd, x, p, result_add_acct(r)))
				return -1;
		}
	}
	if ((v = json_object_get(root, "context")) && read_context(rd, v, r))
		return -1;
	if ((v = json_object_get(root, "placement")) && read_placement(rd, v, &r->placement))
		return -1;
	/* results written before the manifest existed have neither */
	if (json_object_get(root, "conditions") &&
	    (read_kv(rd, "$", root, "conditions", &r->conditions) ||
	     read_kv(rd, "$", root, "conditions_changed", &r->conditions_changed)))
		return -1;
	if ((v = json_object_get(root, "explain")) && read_explain(rd, v, r))
		return -1;
	return 0;
}

static int read_root(struct rd *rd, const json_t *root, struct result *r)
{
	const char *p = "$";
	if (!json_is_object(root))
		return bad(rd, p, NULL, "expected an object");
	char schema[32], command[16];
	if (get_str(rd, p, root, "schema", schema, sizeof(schema)))
		return -1;
	if (strcmp(schema, RESULT_SCHEMA) != 0)
		return bad(rd, p, "schema", "'%s' is not %s (a newer irt may read it)", schema, RESULT_SCHEMA);
	if (get_str(rd, p, root, "command", command, sizeof(command)))
		return -1;
	json_t *threads = get_typed(rd, p, root, "threads", JSON_ARRAY);
	if (!threads)
		return -1;
	if (json_array_size(threads) > 1u << 20)
		return bad(rd, p, "threads", "too many threads");
	if (result_init(r, command, (int)json_array_size(threads), rd->e))
		return -1;
	if (get_str(rd, p, root, "tool_version", r->tool_version, sizeof(r->tool_version)) ||
	    get_strdup(rd, p, root, "cmdline", &r->cmdline) ||
	    get_int(rd, p, root, "start_ns", INT64_MIN, INT64_MAX, &r->start_realtime_ns) ||
	    get_int(rd, p, root, "end_ns", INT64_MIN, INT64_MAX, &r->end_realtime_ns) ||
	    get_int(rd, p, root, "duration_ns", 0, INT64_MAX, &r->duration_ns) ||
	    get_bool(rd, p, root, "interrupted", &r->interrupted) ||
	    read_env(rd, root, &r->env) ||
	    read_kv(rd, p, root, "settings", &r->settings))
		return -1;
	if (r->end_realtime_ns < r->start_realtime_ns)
		return bad(rd, p, "end_ns", "before start_ns");
	if (json_object_get(root, "memory_lock")) {   /* optional: probes of irt >= 0.1 */
		if (get_str(rd, p, root, "memory_lock", r->memory_lock, sizeof(r->memory_lock)))
			return -1;
		bool known = false;
		for (int i = 0; result_memory_locks[i]; i++)
			known = known || strcmp(r->memory_lock, result_memory_locks[i]) == 0;
		if (!known)
			return bad(rd, p, "memory_lock", "'%s' is not one of all, working-set, none, none-rlimit", r->memory_lock);
	}
	for (int i = 0; i < r->nthreads; i++) {
		char tp[64];
		snprintf(tp, sizeof(tp), "$.threads[%d]", i);
		if (read_thread(rd, json_array_get(threads, (size_t)i), tp, &r->threads[i]))
			return -1;
	}
	return read_run_sections(rd, root, r);
}

int result_read(struct result *r, const char *path, struct err *e)
{
	memset(r, 0, sizeof(*r));
	if (strcmp(path, "-") == 0)
		return result_read_stream(r, stdin, path, e);
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(e, errno == ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "%s: cannot open (%s)", path,
		               strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {   /* fopen opens directories */
		fclose(f);
		return err_set(e, EXIT_USAGE, "%s: is a directory (expected a result file)", path);
	}
	int rc = result_read_stream(r, f, path, e);
	fclose(f);
	return rc;
}

int result_read_stream(struct result *r, FILE *f, const char *path, struct err *e)
{
	memset(r, 0, sizeof(*r));
	json_error_t je;
	json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return err_set(e, EXIT_USAGE, "%s:%d:%d: not valid JSON (%s)", path, je.line, je.column, je.text);
	struct rd rd = {path, e};
	int rc = read_root(&rd, root, r);
	json_decref(root);
	if (rc)
		result_free(r);
	return rc;
}

/* Reading a result file, schema "irt-result/1" (docs/result-schema.md): strict about
 * everything the schema defines (types, ranges, histograms that add up), silent about keys it
 * does not know. The checks shared with other readers are in json_read.c; writing is in
 * result.c. */
#include "result.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "trust.h"
#include "util.h"

const char *const result_memory_locks[] = {"all", "working-set", "none", "none-rlimit", NULL};

static int read_kv(struct json_reader *rd, const char *path, const json_t *obj, const char *key, struct kvlist *l)
{
	json_t *o = json_read_typed(rd, path, obj, key, JSON_OBJECT);
	if (!o)
		return -1;
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		char sub[256];
		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (!json_is_string(v))
			return json_read_bad(rd, sub, k, "expected a string");
		if (strlen(json_string_value(v)) != json_string_length(v))
			return json_read_bad(rd, sub, k, "contains a NUL character");
		char *ek = err_escape_dup(k), *ev = err_escape_dup(json_string_value(v));
		kvlist_set(l, ek, ev);
		free(ek);
		free(ev);
	}
	return 0;
}

static int read_env(struct json_reader *rd, const json_t *root, struct result_env *env)
{
	const char *p = "$.env";
	json_t *o = json_read_typed(rd, "$", root, "env", JSON_OBJECT);
	if (!o)
		return -1;
	if (json_read_str(rd, p, o, "hostname", env->hostname, sizeof(env->hostname)) ||
	    json_read_str(rd, p, o, "kernel", env->kernel, sizeof(env->kernel)) ||
	    json_read_str(rd, p, o, "kernel_version", env->kernel_version, sizeof(env->kernel_version)) ||
	    json_read_str(rd, p, o, "machine", env->machine, sizeof(env->machine)) ||
	    (json_object_get(o, "machine_id") &&   /* optional: older results lack it */
	     json_read_str(rd, p, o, "machine_id", env->machine_id, sizeof(env->machine_id))) ||
	    json_read_str(rd, p, o, "cpu_model", env->cpu_model, sizeof(env->cpu_model)) ||
	    json_read_int32(rd, p, o, "online_cpus", &env->online_cpus) ||
	    json_read_str(rd, p, o, "clocksource", env->clocksource, sizeof(env->clocksource)) ||
	    json_read_str(rd, p, o, "preemption", env->preemption, sizeof(env->preemption)) ||
	    json_read_int32(rd, p, o, "hz", &env->hz) ||
	    json_read_bool(rd, p, o, "root", &env->root))
		return -1;
	return 0;
}

/* sum of count values each in [min, max] lies in [count*min, count*max] */
static bool sum_plausible(uint64_t count, int64_t min, int64_t max, int64_t sum)
{
	__int128 lo = (__int128)count * min, hi = (__int128)count * max;
	return sum >= lo && sum <= hi;
}

static int read_hist(struct json_reader *rd, const char *parent, const json_t *obj, const char *key, struct hist *h)
{
	char p[160];
	snprintf(p, sizeof(p), "%s.%s", parent, key);
	json_t *o = json_read_typed(rd, parent, obj, key, JSON_OBJECT);
	if (!o)
		return -1;
	uint64_t count, saturated;
	int64_t min, max, sum;
	if (json_read_count(rd, p, o, "count", &count) || json_read_int(rd, p, o, "min", 0, HIST_MAX_VALUE, &min) ||
	    json_read_int(rd, p, o, "max", 0, HIST_MAX_VALUE, &max) || json_read_int(rd, p, o, "sum", 0, INT64_MAX, &sum) ||
	    json_read_count(rd, p, o, "saturated", &saturated))
		return -1;
	json_t *jsq = json_read_member(rd, p, o, "sumsq");
	if (!jsq)
		return -1;
	double sumsq = json_number_value(jsq);
	if (!json_is_number(jsq) || !isfinite(sumsq) || sumsq < 0)
		return json_read_bad(rd, p, "sumsq", "expected a non-negative number");
	json_t *arr = json_read_typed(rd, p, o, "buckets", JSON_ARRAY);
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
			json_read_bad(rd, bp, NULL, "expected [lower_edge, count], two integers");
			goto out;
		}
		int64_t v = (int64_t)json_integer_value(jv), c = (int64_t)json_integer_value(jc);
		if (v < 0 || v > HIST_MAX_VALUE || hist_bucket_lo(hist_index(v)) != v) {
			json_read_bad(rd, bp, NULL, "%" PRId64 " is not a bucket lower edge", v);
			goto out;
		}
		if (v <= prev) {
			json_read_bad(rd, bp, NULL, "buckets must be in ascending order without duplicates");
			goto out;
		}
		if (c <= 0) {
			json_read_bad(rd, bp, NULL, "expected a positive count");
			goto out;
		}
		if (total + (uint64_t)c < total || total + (uint64_t)c > INT64_MAX) {
			json_read_bad(rd, bp, NULL, "counts overflow");
			goto out;
		}
		total += (uint64_t)c;
		prev = v;
		pairs[i].value = v;
		pairs[i].count = (uint64_t)c;
	}
	if (total != count) {
		json_read_bad(rd, p, "count", "%" PRIu64 " but the buckets sum to %" PRIu64, count, total);
		goto out;
	}
	if (saturated > count) {
		json_read_bad(rd, p, "saturated", "more than count");
		goto out;
	}
	if (count == 0) {
		if (min || max || sum || sumsq != 0) {
			json_read_bad(rd, p, NULL, "an empty histogram must have min, max, sum and sumsq 0");
			goto out;
		}
	} else {
		if (hist_index(min) != hist_index(pairs[0].value)) {
			json_read_bad(rd, p, "min", "%" PRId64 " is not in the first bucket", min);
			goto out;
		}
		if (hist_index(max) != hist_index(pairs[n - 1].value) || max < min) {
			json_read_bad(rd, p, "max", "%" PRId64 " is not in the last bucket", max);
			goto out;
		}
		if (saturated && max != HIST_MAX_VALUE) {
			json_read_bad(rd, p, "saturated", "nonzero, so max must be %" PRId64, (int64_t)HIST_MAX_VALUE);
			goto out;
		}
		if (!sum_plausible(count, min, max, sum)) {
			json_read_bad(rd, p, "sum", "not between count*min and count*max");
			goto out;
		}
	}
	if (hist_decode(h, pairs, n, count, min, max, sum, sumsq, saturated)) {
		json_read_bad(rd, p, NULL, "inconsistent histogram");
		goto out;
	}
	rc = 0;
out:
	free(pairs);
	return rc;
}

/* An optional object member `key` of o: *out is it (NULL: absent) and sp its path for messages;
 * -1 when it is there but not an object. */
static int optional_object(struct json_reader *rd, const json_t *o, const char *p, const char *key, char *sp,
                           size_t splen, json_t **out)
{
	*out = json_object_get(o, key);
	snprintf(sp, splen, "%s.%s", p, key);
	if (*out && !json_is_object(*out))
		return json_read_bad(rd, p, key, "expected an object");
	return 0;
}

static int read_thread(struct json_reader *rd, const json_t *o, const char *p, struct result_thread *t)
{
	char sp[96];
	json_t *sim, *st;
	if (!json_is_object(o))
		return json_read_bad(rd, p, NULL, "expected an object");
	if (json_read_str(rd, p, o, "name", t->name, sizeof(t->name)) ||
	    json_read_str(rd, p, o, "role", t->role, sizeof(t->role)) ||
	    json_read_int(rd, p, o, "tid", INT64_MIN, INT64_MAX, &t->tid) ||
	    read_kv(rd, p, o, "settings", &t->settings) ||
	    json_read_count(rd, p, o, "samples", &t->samples) ||
	    json_read_count(rd, p, o, "overruns", &t->overruns) ||
	    json_read_count(rd, p, o, "deadlines_met", &t->deadlines_met) ||
	    json_read_count(rd, p, o, "deadlines_missed", &t->deadlines_missed) ||
	    json_read_int(rd, p, o, "timer_slack_ns", -1, INT64_MAX, &t->timer_slack_ns) ||
	    json_read_int(rd, p, o, "burn_ns_per_kloop", 0, INT64_MAX, &t->burn_ns_per_kloop) ||
	    read_hist(rd, p, o, "wake", &t->wake) ||
	    read_hist(rd, p, o, "resp", &t->resp))
		return -1;
	if (optional_object(rd, o, p, "sim", sp, sizeof(sp), &sim))
		return -1;
	if (sim) {
		if (json_read_int(rd, sp, sim, "cpu", 0, INT32_MAX, &t->sim_cpu) ||
		    json_read_int(rd, sp, sim, "share_ppm", 0, INT64_MAX, &t->sim_share_ppm) ||
		    json_read_int(rd, sp, sim, "used_ns", 0, INT64_MAX, &t->sim_used_ns) ||
		    json_read_int(rd, sp, sim, "spent_ns", 0, INT64_MAX, &t->sim_spent_ns) ||
		    json_read_count(rd, sp, sim, "switches", &t->sim_switches) ||
		    json_read_int(rd, sp, sim, "completion_ns", -1, INT64_MAX, &t->sim_completion_ns) ||
		    json_read_count(rd, sp, sim, "windows", &t->sim_windows) ||
		    json_read_count(rd, sp, sim, "windows_ok", &t->sim_windows_ok) ||
		    json_read_int(rd, sp, sim, "activations_min", -1, INT64_MAX, &t->sim_activations_min))
			return -1;
		if (t->sim_windows_ok > t->sim_windows)
			return json_read_bad(rd, sp, "windows_ok", "more than windows");
	}
	if (json_object_get(o, "skipped") && json_read_count(rd, p, o, "skipped", &t->skipped))
		return -1;
	if (json_object_get(o, "past_window_ns") &&
	    json_read_int(rd, p, o, "past_window_ns", 1, INT64_MAX, &t->past_window_ns))
		return -1;
	if (json_object_get(o, "phase_ns") && json_read_int(rd, p, o, "phase_ns", 1, INT64_MAX, &t->phase_ns))
		return -1;
	if (optional_object(rd, o, p, "stopped", sp, sizeof(sp), &st))
		return -1;
	if (st) {
		if (json_read_int(rd, sp, st, "above_ns", 1, INT64_MAX, &t->stop_above_ns) ||
		    json_read_int(rd, sp, st, "wake_ns", 0, INT64_MAX, &t->stop_wake_ns) ||
		    json_read_int(rd, sp, st, "at_ns", 0, INT64_MAX, &t->stop_at_ns))
			return -1;
	}
	t->attributed = json_object_get(o, "attr_runq") != NULL;
	if (t->attributed && (read_hist(rd, p, o, "attr_runq", &t->attr_runq) || read_hist(rd, p, o, "attr_other", &t->attr_other)))
		return -1;
	if (t->attributed && json_object_get(o, "attr_backlog") &&   /* optional: older files lack it */
	    read_hist(rd, p, o, "attr_backlog", &t->attr_backlog))
		return -1;
	return 0;
}

static int read_load(struct json_reader *rd, const json_t *o, const char *p, struct result_load *l)
{
	int64_t elapsed;
	if (!json_is_object(o))
		return json_read_bad(rd, p, NULL, "expected an object");
	if (json_read_str(rd, p, o, "name", l->name, sizeof(l->name)) || json_read_str(rd, p, o, "type", l->type, sizeof(l->type)) ||
	    json_read_str(rd, p, o, "spec", l->spec, sizeof(l->spec)) || read_kv(rd, p, o, "settings", &l->settings) ||
	    json_read_count(rd, p, o, "ops", &l->ops) || json_read_count(rd, p, o, "bytes", &l->bytes) ||
	    json_read_count(rd, p, o, "errors", &l->errors) || json_read_int(rd, p, o, "elapsed_ns", 0, INT64_MAX, &elapsed) ||
	    json_read_real(rd, p, o, "ops_per_s", 0, &l->ops_per_s) || json_read_real(rd, p, o, "bytes_per_s", 0, &l->bytes_per_s) ||
	    json_read_str(rd, p, o, "ops_unit", l->ops_unit, sizeof(l->ops_unit)) ||
	    json_read_str(rd, p, o, "bytes_unit", l->bytes_unit, sizeof(l->bytes_unit)) ||
	    json_read_str(rd, p, o, "end", l->end, sizeof(l->end)) || json_read_str(rd, p, o, "failure", l->failure, sizeof(l->failure)))
		return -1;
	l->elapsed_ns = elapsed;
	return 0;
}

static int read_acct(struct json_reader *rd, const json_t *o, const char *p, struct result_acct *a)
{
	if (!json_is_object(o))
		return json_read_bad(rd, p, NULL, "expected an object");
	if (json_read_str(rd, p, o, "name", a->name, sizeof(a->name)) || json_read_str(rd, p, o, "role", a->role, sizeof(a->role)) ||
	    json_read_str(rd, p, o, "kind", a->kind, sizeof(a->kind)) || json_read_int(rd, p, o, "pid", -1, INT32_MAX, &a->pid) ||
	    json_read_int(rd, p, o, "tid", -1, INT32_MAX, &a->tid) || json_read_int(rd, p, o, "wall_ns", 0, INT64_MAX, &a->wall_ns) ||
	    json_read_int(rd, p, o, "used_ns", -1, INT64_MAX, &a->used_ns) ||
	    json_read_int(rd, p, o, "waited_ns", -1, INT64_MAX, &a->waited_ns) ||
	    json_read_int(rd, p, o, "carry_ns", INT64_MIN, INT64_MAX, &a->carry_ns) ||
	    json_read_int(rd, p, o, "timeslices", -1, INT64_MAX, &a->timeslices) ||
	    json_read_int(rd, p, o, "vol_switches", -1, INT64_MAX, &a->vol_switches) ||
	    json_read_int(rd, p, o, "invol_switches", -1, INT64_MAX, &a->invol_switches) ||
	    json_read_int(rd, p, o, "migrations", -1, INT64_MAX, &a->migrations) ||
	    json_read_real(rd, p, o, "cpu_pct", 0, &a->cpu_pct) || json_read_real(rd, p, o, "run_pct", 0, &a->run_pct))
		return -1;
	/* optional: written only for an exited thread, absent in files of earlier versions */
	if (json_object_get(o, "exited") && json_read_bool(rd, p, o, "exited", &a->exited))
		return -1;
	return 0;
}

static int read_context(struct json_reader *rd, const json_t *o, struct result *r)
{
	const char *p = "$.context";
	struct result_context *c = &r->context;
	if (!json_is_object(o))
		return json_read_bad(rd, p, NULL, "expected an object");
	if (json_read_int(rd, p, o, "wall_ns", 0, INT64_MAX, &c->wall_ns) || json_read_real(rd, p, o, "steal_pct", -1, &c->steal_pct) ||
	    json_read_int(rd, p, o, "ctxt", -1, INT64_MAX, &c->ctxt) || json_read_real(rd, p, o, "ctxt_per_s", -1, &c->ctxt_per_s) ||
	    json_read_real(rd, p, o, "psi_some_pct", -1, &c->psi_some_pct) ||
	    json_read_real(rd, p, o, "psi_full_pct", -1, &c->psi_full_pct) || json_read_real(rd, p, o, "load1", -1, &c->load1) ||
	    json_read_real(rd, p, o, "load5", -1, &c->load5) || json_read_real(rd, p, o, "load15", -1, &c->load15) ||
	    json_read_bool(rd, p, o, "noisy", &c->noisy) || json_read_str(rd, p, o, "noisy_why", c->noisy_why, sizeof(c->noisy_why)))
		return -1;
	json_t *cgs = json_read_typed(rd, p, o, "cgroups", JSON_ARRAY);
	if (!cgs)
		return -1;
	size_t i;
	json_t *g;
	json_array_foreach(cgs, i, g) {
		char gp[64];
		snprintf(gp, sizeof(gp), "$.context.cgroups[%zu]", i);
		struct result_cgroup_stat *s = result_add_cgroup_stat(r);
		if (!json_is_object(g))
			return json_read_bad(rd, gp, NULL, "expected an object");
		if (json_read_str(rd, gp, g, "path", s->path, sizeof(s->path)) ||
		    json_read_int(rd, gp, g, "nr_periods", -1, INT64_MAX, &s->nr_periods) ||
		    json_read_int(rd, gp, g, "nr_throttled", -1, INT64_MAX, &s->nr_throttled) ||
		    json_read_int(rd, gp, g, "throttled_ns", -1, INT64_MAX, &s->throttled_ns) ||
		    json_read_int(rd, gp, g, "usage_ns", -1, INT64_MAX, &s->usage_ns))
			return -1;
	}
	c->present = true;
	return 0;
}

static int read_placement(struct json_reader *rd, const json_t *o, struct result_placement *pl)
{
	const char *p = "$.placement";
	if (!json_is_object(o))
		return json_read_bad(rd, p, NULL, "expected an object");
	if (json_read_str(rd, p, o, "mode", pl->mode, sizeof(pl->mode)) ||
	    json_read_str(rd, p, o, "probe_cgroup", pl->probe_cgroup, sizeof(pl->probe_cgroup)) ||
	    json_read_str(rd, p, o, "load_cgroup", pl->load_cgroup, sizeof(pl->load_cgroup)) ||
	    json_read_str(rd, p, o, "probe_autogroup", pl->probe_autogroup, sizeof(pl->probe_autogroup)) ||
	    json_read_str(rd, p, o, "load_autogroup", pl->load_autogroup, sizeof(pl->load_autogroup)))
		return -1;
	if (!pl->mode[0])
		return json_read_bad(rd, p, "mode", "must not be empty");
	return 0;
}

static int category_of(const char *name)
{
	for (int c = 0; c < EXC_N; c++)
		if (strcmp(result_explain_category(c), name) == 0)
			return c;
	return -1;
}

static int read_explain(struct json_reader *rd, const json_t *o, struct result *r)
{
	const char *p = "$.explain";
	struct result_explain *x = &r->explain;
	if (!json_is_object(o))
		return json_read_bad(rd, p, NULL, "expected an object");
	if (json_read_str(rd, p, o, "source", x->source, sizeof(x->source)) ||
	    json_read_str(rd, p, o, "reason", x->reason, sizeof(x->reason)) ||
	    json_read_int(rd, p, o, "threshold_ns", 0, INT64_MAX, &x->threshold_ns) ||
	    json_read_int(rd, p, o, "trace_start_ns", 0, INT64_MAX, &x->trace_start_ns) ||
	    (json_object_get(o, "origin_ns") && json_read_int(rd, p, o, "origin_ns", 1, INT64_MAX, &x->origin_ns)) ||
	    json_read_int(rd, p, o, "tail_samples", 0, INT64_MAX, &x->tail_samples) ||
	    json_read_int(rd, p, o, "explained", 0, INT64_MAX, &x->explained) ||
	    json_read_int(rd, p, o, "lost_samples", 0, INT64_MAX, &x->lost_samples) ||
	    json_read_int(rd, p, o, "late_ns", 0, INT64_MAX, &x->late_ns) ||
	    json_read_int(rd, p, o, "migrations", 0, INT64_MAX, &x->migrations) || json_read_count(rd, p, o, "events", &x->events) ||
	    json_read_count(rd, p, o, "events_lost", &x->events_lost) ||
	    json_read_real(rd, p, o, "events_per_s", 0, &x->events_per_s) ||
	    json_read_int(rd, p, o, "buffer_bytes", 0, INT64_MAX, &x->buffer_bytes) ||
	    json_read_int(rd, p, o, "memory_bytes", 0, INT64_MAX, &x->memory_bytes))
		return -1;
	if (x->explained + x->lost_samples > x->tail_samples)
		return json_read_bad(rd, p, "explained", "explained + lost_samples exceed tail_samples");
	json_t *cats = json_read_typed(rd, p, o, "categories", JSON_OBJECT);
	if (!cats)
		return -1;
	for (int c = 0; c < EXC_N; c++)
		if (json_read_int(rd, "$.explain.categories", cats, result_explain_category(c), 0, INT64_MAX, &x->cat_ns[c]))
			return -1;
	json_t *bl = json_read_typed(rd, p, o, "blockers", JSON_ARRAY), *worst = bl ? json_read_typed(rd, p, o, "worst", JSON_ARRAY) : NULL;
	if (!bl || !worst)
		return -1;
	size_t i, k;
	json_t *v, *q;
	json_array_foreach(bl, i, v) {
		char bp[64];
		snprintf(bp, sizeof(bp), "$.explain.blockers[%zu]", i);
		struct result_blocker *b = result_add_blocker(x);
		if (!json_is_object(v))
			return json_read_bad(rd, bp, NULL, "expected an object");
		if (json_read_str(rd, bp, v, "kind", b->kind, sizeof(b->kind)) || json_read_str(rd, bp, v, "name", b->name, sizeof(b->name)) ||
		    json_read_int(rd, bp, v, "id", -1, INT64_MAX, &b->id) ||
		    json_read_str(rd, bp, v, "cgroup", b->cgroup, sizeof(b->cgroup)) ||
		    json_read_str(rd, bp, v, "policy", b->policy, sizeof(b->policy)) ||
		    json_read_int(rd, bp, v, "total_ns", 0, INT64_MAX, &b->total_ns) ||
		    json_read_int(rd, bp, v, "samples", 0, INT64_MAX, &b->samples) || json_read_real(rd, bp, v, "share", 0, &b->share))
			return -1;
		if (strcmp(b->kind, "task") && strcmp(b->kind, "cgroup") && strcmp(b->kind, "irq") && strcmp(b->kind, "softirq"))
			return json_read_bad(rd, bp, "kind", "expected task, cgroup, irq or softirq");
	}
	json_array_foreach(worst, i, v) {
		char wp[64];
		snprintf(wp, sizeof(wp), "$.explain.worst[%zu]", i);
		if (!json_is_object(v))
			return json_read_bad(rd, wp, NULL, "expected an object");
		struct result_explain_sample *w = result_add_worst(x);
		int64_t thread, cpu, migrations;
		if (json_read_int(rd, wp, v, "thread", 0, r->nthreads > 0 ? r->nthreads - 1 : 0, &thread) ||
		    json_read_int(rd, wp, v, "at_ns", INT64_MIN, INT64_MAX, &w->at_ns) ||
		    json_read_int(rd, wp, v, "lateness_ns", 0, INT64_MAX, &w->lateness_ns) ||
		    json_read_int(rd, wp, v, "cpu", -1, INT32_MAX, &cpu) ||
		    json_read_int(rd, wp, v, "migrations", 0, INT32_MAX, &migrations))
			return -1;
		w->migrations = (int)migrations;
		w->thread = (int)thread;
		w->cpu = (int)cpu;
		json_t *parts = json_read_typed(rd, wp, v, "parts", JSON_ARRAY);
		if (!parts)
			return -1;
		if (json_array_size(parts) > EXPLAIN_MAX_PARTS)
			return json_read_bad(rd, wp, "parts", "more than %d parts", EXPLAIN_MAX_PARTS);
		json_array_foreach(parts, k, q) {
			char pp[96], cat[16];
			snprintf(pp, sizeof(pp), "%s.parts[%zu]", wp, k);
			struct result_explain_part *pt = &w->parts[w->nparts++];
			if (!json_is_object(q))
				return json_read_bad(rd, pp, NULL, "expected an object");
			if (json_read_str(rd, pp, q, "category", cat, sizeof(cat)) || json_read_str(rd, pp, q, "name", pt->name, sizeof(pt->name)) ||
			    json_read_int(rd, pp, q, "id", -1, INT64_MAX, &pt->id) || json_read_int(rd, pp, q, "ns", 0, INT64_MAX, &pt->ns))
				return -1;
			if ((pt->cat = category_of(cat)) < 0)
				return json_read_bad(rd, pp, "category", "unknown category '%s'", cat);
		}
	}
	x->present = true;
	return 0;
}

static int read_runq(struct json_reader *rd, const json_t *o, struct result_runq *q)
{
	const char *p = "$.runq";
	if (!json_is_object(o))
		return json_read_bad(rd, p, NULL, "expected an object");
	for (const struct result_runq_field *f = result_runq_fields; f->name; f++)
		if (json_read_int(rd, p, o, f->name, 0, INT64_MAX, (int64_t *)((char *)q + f->offset)))
			return -1;
	if (json_read_str(rd, p, o, "top_by", q->top_by, sizeof(q->top_by)))
		return -1;
	snprintf(q->top_of, sizeof(q->top_of), "thread");   /* optional: results before --top-of lack it */
	if (json_object_get(o, "top_of") && json_read_str(rd, p, o, "top_of", q->top_of, sizeof(q->top_of)))
		return -1;
	q->present = true;
	return 0;
}

/* The optional sections of irt run; each is checked strictly when present. */
static int read_run_sections(struct json_reader *rd, const json_t *root, struct result *r)
{
	json_t *v;
	size_t i;
	json_t *x;
	if ((v = json_object_get(root, "loads"))) {
		if (!json_is_array(v))
			return json_read_bad(rd, "$", "loads", "expected an array");
		json_array_foreach(v, i, x) {
			char p[64];
			snprintf(p, sizeof(p), "$.loads[%zu]", i);
			if (read_load(rd, x, p, result_add_load(r)))
				return -1;
		}
	}
	if ((v = json_object_get(root, "accounting"))) {
		if (!json_is_array(v))
			return json_read_bad(rd, "$", "accounting", "expected an array");
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
	if ((v = json_object_get(root, "runq")) && read_runq(rd, v, &r->runq))
		return -1;
	return 0;
}

/* irt's records that are not results, by their schema: what each is (NULL: none of them) */
const char *result_other_schema(const char *schema)
{
	static const char *const other[][2] = {
		{"irt-noise/1", "irt noise's record"}, {"irt-knobs/1", "irt knobs' tunables"},
		{"irt-compare/1", "irt compare's comparison"}, {"irt-fleet/1", "irt compare's fleet comparison"},
		{"irt-sweep-plan/1", "a sweep's plan"}, {"irt-sweep/1", "a sweep's summary"},
	};
	for (size_t i = 0; schema && i < sizeof(other) / sizeof(other[0]); i++)
		if (strcmp(schema, other[i][0]) == 0)
			return other[i][1];
	return NULL;
}

bool result_stream_other(FILE *f)
{
	/* irt writes "schema" first: read from the head alone, as a directory of large results is
	 * looked over more than once (compare DIR); a file laid out otherwise is parsed whole */
	char head[256], schema[32];
	size_t n = fread(head, 1, sizeof(head) - 1, f);
	head[n] = 0;
	if (sscanf(head, " { \"schema\" : \"%31[^\"]\"", schema) == 1)
		return result_other_schema(schema) != NULL;
	rewind(f);
	json_t *root = json_loadf(f, 0, NULL);
	bool other = result_other_schema(json_string_value(json_object_get(root, "schema"))) != NULL;
	json_decref(root);
	return other;
}

static int read_root(struct json_reader *rd, const json_t *root, struct result *r)
{
	const char *p = "$";
	if (!json_is_object(root))
		return json_read_bad(rd, p, NULL, "expected an object");
	char schema[32], command[16];
	if (json_read_str(rd, p, root, "schema", schema, sizeof(schema)))
		return -1;
	const char *other = result_other_schema(schema);
	if (other)   /* irt's own file, but no result: say what it is, not "a newer irt" */
		return json_read_bad(rd, p, "schema", "'%s' is %s, not a result (%s)", schema, other, RESULT_SCHEMA);
	if (strcmp(schema, RESULT_SCHEMA) != 0)
		return json_read_bad(rd, p, "schema", "'%s' is not %s (a newer irt may read it)", schema, RESULT_SCHEMA);
	if (json_read_str(rd, p, root, "command", command, sizeof(command)))
		return -1;
	json_t *threads = json_read_typed(rd, p, root, "threads", JSON_ARRAY);
	if (!threads)
		return -1;
	if (json_array_size(threads) > 1u << 20)
		return json_read_bad(rd, p, "threads", "too many threads");
	/* only a watch may have none (no selected thread woke up); elsewhere every row of a
	 * comparison would say "no values" */
	if (!json_array_size(threads) && strcmp(command, "watch"))
		return json_read_bad(rd, p, "threads", "holds no threads (a %.15s result measures at least one)", command);
	if (result_init(r, command, (int)json_array_size(threads), rd->e))
		return -1;
	if (json_read_str(rd, p, root, "tool_version", r->tool_version, sizeof(r->tool_version)) ||
	    json_read_strdup(rd, p, root, "cmdline", &r->cmdline) ||
	    json_read_int(rd, p, root, "start_ns", INT64_MIN, INT64_MAX, &r->start_realtime_ns) ||
	    json_read_int(rd, p, root, "end_ns", INT64_MIN, INT64_MAX, &r->end_realtime_ns) ||
	    json_read_int(rd, p, root, "duration_ns", 0, INT64_MAX, &r->duration_ns) ||
	    json_read_bool(rd, p, root, "interrupted", &r->interrupted) ||
	    read_env(rd, root, &r->env) ||
	    read_kv(rd, p, root, "settings", &r->settings))
		return -1;
	if (r->end_realtime_ns < r->start_realtime_ns)
		return json_read_bad(rd, p, "end_ns", "before start_ns");
	if (json_object_get(root, "memory_lock")) {   /* optional: probes of irt >= 0.1 */
		if (json_read_str(rd, p, root, "memory_lock", r->memory_lock, sizeof(r->memory_lock)))
			return -1;
		bool known = false;
		for (int i = 0; result_memory_locks[i]; i++)
			known = known || strcmp(r->memory_lock, result_memory_locks[i]) == 0;
		if (!known)
			return json_read_bad(rd, p, "memory_lock", "'%s' is not one of all, working-set, none, none-rlimit", r->memory_lock);
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
	FILE *f = input_fopen(path, "result file", e);
	if (!f)
		return e && e->code ? -1
		                    : err_set(e, errno == ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "%s: cannot open (%s)", path,
		                              strerror(errno));
	int rc = result_read_stream(r, f, path, e);
	fclose(f);
	return rc;
}

int result_read_stream(struct result *r, FILE *f, const char *path, struct err *e)
{
	memset(r, 0, sizeof(*r));
	json_t *root = json_read_load(f, path, e);
	if (!root)
		return -1;
	struct json_reader rd = {path, RESULT_SCHEMA, e};
	int rc = read_root(&rd, root, r);
	json_decref(root);
	if (rc)
		result_free(r);
	return rc;
}

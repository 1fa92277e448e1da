/* Reading a sweep summary (irt-sweep/1, sweep_summary.h). The strict checks and their
 * messages are json_read.c's, shared with the result reader. */
#include "sweep_summary.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "trust.h"
#include "util.h"

/* A string member: required (missing is an error) or optional (missing gives def). Text
 * reaches terminals: control characters are kept escaped ("\x1b"). */
static int str_member(struct json_reader *rd, const char *where, const json_t *o, const char *key, bool required,
                      const char *def, char **out)
{
	json_t *v = json_object_get(o, key);
	if (!required && (!v || json_is_null(v))) {
		*out = xstrdup_or_empty(def);
		return 0;
	}
	if (!json_read_member(rd, where, o, key))
		return -1;
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
		return json_read_bad(rd, where, key, "expected a string");
	*out = err_escape_dup(json_string_value(v));
	return 0;
}

static int read_stat(struct json_reader *rd, const char *where, const json_t *o, struct sweep_stat *st)
{
	if (!json_is_object(o))
		return json_read_bad(rd, where, NULL, "expected an object {\"median\":N,\"lo\":N,\"hi\":N}");
	static const char *const keys[] = {"median", "lo", "hi"};
	double v[3];
	for (int i = 0; i < 3; i++) {
		json_t *j = json_object_get(o, keys[i]);
		if (!j)
			return json_read_bad(rd, where, NULL, "missing \"%s\" (a statistic needs median, lo and hi)", keys[i]);
		if (!json_is_number(j) || !isfinite(json_number_value(j)))
			return json_read_bad(rd, where, NULL, "\"%s\" is not a finite number", keys[i]);
		v[i] = json_number_value(j);
	}
	if (!(v[1] <= v[0] && v[0] <= v[2]))
		return json_read_bad(rd, where, NULL, "lo <= median <= hi does not hold (%g, %g, %g)", v[1], v[0], v[2]);
	st->median = v[0];
	st->lo = v[1];
	st->hi = v[2];
	return 0;
}

static int read_cell(struct json_reader *rd, const json_t *o, int idx, struct sweep_cell *c)
{
	char where[64], w[256];
	snprintf(where, sizeof(where), "$.cells[%d]", idx);
	if (!json_is_object(o))
		return json_read_bad(rd, where, NULL, "expected an object");
	if (str_member(rd, where, o, "id", true, NULL, &c->id) || str_member(rd, where, o, "load", false, "", &c->load) ||
	    str_member(rd, where, o, "verdict", false, "", &c->verdict))
		return -1;
	if (!c->id[0])
		return json_read_bad(rd, where, NULL, "empty \"id\"");
	json_t *set = json_object_get(o, "settings");
	if (set && !json_is_null(set)) {
		snprintf(w, sizeof(w), "%s.settings", where);
		if (!json_is_object(set))
			return json_read_bad(rd, w, NULL, "expected an object of knob names to values");
		const char *k;
		json_t *v;
		json_object_foreach(set, k, v) {
			char buf[64];
			char *ek = err_escape_dup(k), *ev = NULL;
			if (json_is_string(v)) {
				kvlist_set(&c->settings, ek, (ev = err_escape_dup(json_string_value(v))));
			} else if (json_is_integer(v)) {
				snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
				kvlist_set(&c->settings, ek, buf);
			} else {
				free(ek);
				snprintf(w, sizeof(w), "%s.settings.%s", where, k);
				return json_read_bad(rd, w, NULL, "expected a string value");
			}
			free(ek);
			free(ev);
		}
	}
	json_t *reps = json_object_get(o, "repetitions");
	if (reps && !json_is_null(reps)) {
		if (!json_is_array(reps))
			return json_read_bad(rd, where, NULL, "\"repetitions\" is not an array of file names");
		size_t i;
		json_t *v;
		json_array_foreach(reps, i, v) {
			if (!json_is_string(v) || !json_string_length(v)) {
				snprintf(w, sizeof(w), "%s.repetitions[%zu]", where, i);
				return json_read_bad(rd, w, NULL, "expected a file name");
			}
			strlist_add(&c->reps, json_string_value(v));
		}
	}
	json_t *m = json_read_member(rd, where, o, "metrics");
	if (!m)
		return -1;
	snprintf(w, sizeof(w), "%s.metrics", where);
	if (!json_is_object(m))
		return json_read_bad(rd, w, NULL, "expected an object of metric names to {median, lo, hi}");
	c->metrics = xcalloc(json_object_size(m) + 1, sizeof(*c->metrics));
	const char *k;
	json_t *v;
	json_object_foreach(m, k, v) {
		snprintf(w, sizeof(w), "%s.metrics.%s", where, k);
		struct sweep_metric *sm = &c->metrics[c->nmetrics];
		if (read_stat(rd, w, v, &sm->s))
			return -1;
		sm->name = xstrdup_or_empty(k);
		c->nmetrics++;
	}
	json_t *ratio = json_object_get(o, "ratio");
	if (ratio && !json_is_null(ratio)) {
		snprintf(w, sizeof(w), "%s.ratio", where);
		if (read_stat(rd, w, ratio, &c->ratio))
			return -1;
		c->has_ratio = true;
	}
	return 0;
}

static int cell_ref(struct json_reader *rd, const struct sweep_summary *s, const char *where, const char *id)
{
	if (id[0] && !sweep_cell_find(s, id))
		return json_read_bad(rd, where, NULL, "'%s' is not the id of a cell", id);
	return 0;
}

static int read_root(struct json_reader *rd, const json_t *root, struct sweep_summary *s)
{
	if (!json_is_object(root))
		return json_read_bad(rd, "$", NULL, "expected an object");
	char *schema = NULL;
	if (str_member(rd, "$", root, "schema", true, NULL, &schema))
		return -1;
	int wrong = strcmp(schema, SWEEP_SCHEMA) != 0;
	if (wrong)
		json_read_bad(rd, "$.schema", NULL, "'%s' is not %s (a newer irt may read it)", schema, SWEEP_SCHEMA);
	free(schema);
	if (wrong)
		return -1;
	if (str_member(rd, "$", root, "metric", true, NULL, &s->metric) ||
	    str_member(rd, "$", root, "baseline", false, "", &s->baseline) ||
	    str_member(rd, "$", root, "recommendation", false, "", &s->recommendation))
		return -1;
	json_t *cells = json_read_member(rd, "$", root, "cells");
	if (!cells)
		return -1;
	if (!json_is_array(cells) || json_array_size(cells) == 0)
		return json_read_bad(rd, "$.cells", NULL, "expected a non-empty array of cells");
	if (json_array_size(cells) > 100000)
		return json_read_bad(rd, "$.cells", NULL, "too many cells");
	s->cells = xcalloc(json_array_size(cells), sizeof(*s->cells));
	for (size_t i = 0; i < json_array_size(cells); i++) {
		if (read_cell(rd, json_array_get(cells, i), (int)i, &s->cells[i])) {
			s->ncells = (int)i + 1;   /* so free releases the partly read cell */
			return -1;
		}
		s->ncells = (int)i + 1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(s->cells[j].id, s->cells[i].id) == 0) {
				char w[64];
				snprintf(w, sizeof(w), "$.cells[%zu].id", i);
				return json_read_bad(rd, w, NULL, "'%s' is used by two cells (ids must be unique)", s->cells[i].id);
			}
	}
	if (cell_ref(rd, s, "$.baseline", s->baseline) || cell_ref(rd, s, "$.recommendation", s->recommendation))
		return -1;
	json_t *pareto = json_object_get(root, "pareto");
	if (pareto && !json_is_null(pareto)) {
		if (!json_is_array(pareto))
			return json_read_bad(rd, "$.pareto", NULL, "expected an array of cell ids");
		size_t i;
		json_t *v;
		json_array_foreach(pareto, i, v) {
			char w[64];
			snprintf(w, sizeof(w), "$.pareto[%zu]", i);
			if (!json_is_string(v))
				return json_read_bad(rd, w, NULL, "expected a cell id");
			char *id = err_escape_dup(json_string_value(v));   /* as the cells' ids were read */
			if (cell_ref(rd, s, w, id)) {
				free(id);
				return -1;
			}
			((struct sweep_cell *)sweep_cell_find(s, id))->pareto = true;
			free(id);
		}
		s->has_pareto = true;
	}
	json_t *knobs = json_object_get(root, "knobs");
	if (knobs && !json_is_null(knobs)) {
		if (!json_is_array(knobs))
			return json_read_bad(rd, "$.knobs", NULL, "expected an array of knob names");
		size_t i;
		json_t *v;
		json_array_foreach(knobs, i, v) {
			char w[64];
			snprintf(w, sizeof(w), "$.knobs[%zu]", i);
			if (!json_is_string(v))
				return json_read_bad(rd, w, NULL, "expected a knob name");
			char *name = err_escape_dup(json_string_value(v));
			strlist_add(&s->knobs, name);
			free(name);
		}
	} else {
		for (int i = 0; i < s->ncells; i++)
			for (int k = 0; k < s->cells[i].settings.n; k++) {
				const char *name = s->cells[i].settings.v[k].key;
				bool seen = false;
				for (int j = 0; j < s->knobs.n && !seen; j++)
					seen = strcmp(s->knobs.v[j], name) == 0;
				if (!seen)
					strlist_add(&s->knobs, name);
			}
	}
	return 0;
}

int sweep_summary_read(struct sweep_summary *s, const char *path, struct err *e)
{
	memset(s, 0, sizeof(*s));
	FILE *f = input_fopen(path, "sweep summary", e);
	if (!f)
		return e && e->code ? -1
		                    : err_set(e, errno == ENOENT ? EXIT_USAGE : EXIT_RUNTIME, "%s: cannot open (%s)", path,
		                              strerror(errno));
	int rc = sweep_summary_read_stream(s, f, path, e);
	fclose(f);
	return rc;
}

int sweep_summary_read_stream(struct sweep_summary *s, FILE *f, const char *path, struct err *e)
{
	memset(s, 0, sizeof(*s));
	json_t *root = json_read_load(f, path, e);
	if (!root)
		return -1;
	struct json_reader rd = {path, SWEEP_SCHEMA, e};
	s->path = xstrdup_or_empty(path);
	int rc = read_root(&rd, root, s);
	json_decref(root);
	if (rc)
		sweep_summary_free(s);
	return rc;
}

void sweep_summary_free(struct sweep_summary *s)
{
	for (int i = 0; i < s->ncells; i++) {
		struct sweep_cell *c = &s->cells[i];
		free(c->id);
		kvlist_free(&c->settings);
		free(c->load);
		strlist_free(&c->reps);
		for (int m = 0; m < c->nmetrics; m++)
			free(c->metrics[m].name);
		free(c->metrics);
		free(c->verdict);
	}
	free(s->cells);
	free(s->path);
	free(s->metric);
	free(s->baseline);
	free(s->recommendation);
	strlist_free(&s->knobs);
	memset(s, 0, sizeof(*s));
}

const struct sweep_cell *sweep_cell_find(const struct sweep_summary *s, const char *id)
{
	for (int i = 0; i < s->ncells; i++)
		if (s->cells[i].id && strcmp(s->cells[i].id, id) == 0)
			return &s->cells[i];
	return NULL;
}

const struct sweep_stat *sweep_cell_metric(const struct sweep_cell *c, const char *metric)
{
	for (int m = 0; m < c->nmetrics; m++)
		if (strcmp(c->metrics[m].name, metric) == 0)
			return &c->metrics[m].s;
	return NULL;
}

bool sweep_metric_is_ns(const char *m)
{
	size_t n = strlen(m);
	if (n > 3 && strcmp(m + n - 3, "_ns") == 0)
		return true;
	if (strncmp(m, "wake_", 5) && strncmp(m, "resp_", 5))
		return false;
	const char *r = m + 5;   /* wake_p99, resp_max, wake_mean ... but not wake_met_pct */
	return (r[0] == 'p' && r[1] >= '0' && r[1] <= '9') || !strcmp(r, "max") || !strcmp(r, "min") ||
	       !strcmp(r, "mean") || !strcmp(r, "median") || !strcmp(r, "stddev");
}

/* Workload files: INI via inih, schedsim TSV, [sweep] cells, validation with file:line. */
#include "sim/workload.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "sim/policy.h"
#include "textline.h"
#include "trust.h"
#include "units.h"
#include "util.h"

#define MAX_CELLS 100000

void sim_key_normalize(const char *key, char *out, size_t len)
{
	size_t i = 0;
	for (; key[i] && i + 1 < len; i++)
		out[i] = key[i] == '_' ? '-' : key[i];
	out[i] = 0;
}

/* Rows whose natural name another scope has are "sim-NAME" / "thread-NAME" in the table. */
static const char *scope_prefix(unsigned scope)
{
	return scope == SCOPE_SIM ? "sim-" : scope == SCOPE_SIM_THREAD ? "thread-" : "";
}

const struct opt *sim_opt_find(unsigned scope, const char *key)
{
	char k[64], p[80];
	sim_key_normalize(key, k, sizeof(k));
	snprintf(p, sizeof(p), "%s%s", scope_prefix(scope), k);
	for (int i = 0; i < opt_count; i++)
		if ((opt_table[i].scope & scope) && strcmp(opt_table[i].name, k) == 0)
			return &opt_table[i];
	for (int i = 0; i < opt_count; i++)
		if ((opt_table[i].scope & scope) && strcmp(opt_table[i].name, p) == 0)
			return &opt_table[i];
	return NULL;
}

const char *sim_key_name(const struct opt *o)
{
	const char *pre = scope_prefix(o->scope);
	size_t n = strlen(pre);
	return n && strncmp(o->name, pre, n) == 0 ? o->name + n : o->name;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

static void keys_add(struct wl_key **v, int *n, const char *key, const char *value, int line)
{
	*v = xrealloc(*v, sizeof(**v) * (size_t)(*n + 1));
	struct wl_key *k = &(*v)[(*n)++];
	memset(k, 0, sizeof(*k));
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->value, sizeof(k->value), "%s", value);
	k->line = line;
}

static const struct wl_key *keys_find(const struct wl_key *v, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].key, key) == 0)
			return &v[i];
	return NULL;
}

static int thread_find(const struct workload *w, const char *name)
{
	for (int i = 0; i < w->nthreads; i++)
		if (strcmp(w->threads[i].spec.name, name) == 0)
			return i;
	return -1;
}

static struct wl_thread *thread_add(struct workload *w, const char *name, int line)
{
	w->threads = xrealloc(w->threads, sizeof(*w->threads) * (size_t)(w->nthreads + 1));
	struct wl_thread *t = &w->threads[w->nthreads++];
	memset(t, 0, sizeof(*t));
	snprintf(t->spec.name, sizeof(t->spec.name), "%s", name);
	opt_defaults(SCOPE_SIM_THREAD, &t->raw);
	t->line = line;
	return t;
}

static void list_scope_keys(unsigned scope, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < opt_count && n < len; i++)
		if (opt_table[i].scope & scope)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", sim_key_name(&opt_table[i]));
}

/* ------------------------------------------------------------------ INI */

enum section { SEC_NONE, SEC_SIM, SEC_THREAD, SEC_SWEEP, SEC_BAD };

struct ini_ctx {
	struct workload *w;
	FILE *f;
	int line;
	enum section sec;
	int thread;                 /* current [thread NAME] */
	struct err *e;
};

static int ctx_err(struct ini_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctx_err(struct ini_ctx *c, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_set(c->e, EXIT_USAGE, "%s:%d: %s", c->w->path, c->line, msg);
	return 0;
}

/* Section headers are tracked here, where every line passes, so that a [thread NAME]
 * without keys still defines a thread, and so that errors know their line. */
static void on_section(struct ini_ctx *c, char *header)
{
	char *name = trim(header);
	c->thread = -1;
	if (strcmp(name, "sim") == 0) {
		c->sec = SEC_SIM;
	} else if (strcmp(name, "sweep") == 0) {
		c->sec = SEC_SWEEP;
	} else if (strncmp(name, "thread", 6) == 0 && (name[6] == 0 || isspace((unsigned char)name[6]))) {
		char *tn = trim(name + 6);
		c->sec = SEC_THREAD;
		if (!*tn) {
			ctx_err(c, "[thread] needs a name: [thread NAME]");
		} else if (strlen(tn) >= sizeof(((struct sim_thread_spec *)0)->name)) {
			ctx_err(c, "thread name '%s' is longer than 63 characters", tn);
		} else if (err_has_control(tn)) {
			ctx_err(c, "thread name '%s' holds a control character (expected printable text)", tn);
		} else if (strpbrk(tn, " \t.,=")) {
			ctx_err(c, "thread name '%s' may not contain blanks, '.', ',' or '='", tn);
		} else if (thread_find(c->w, tn) >= 0) {
			ctx_err(c, "thread %s is defined twice (first at line %d)", tn,
			        c->w->threads[thread_find(c->w, tn)].line);
		} else {
			thread_add(c->w, tn, c->line);
			c->thread = c->w->nthreads - 1;
		}
	} else {
		c->sec = SEC_BAD;
		ctx_err(c, "unknown section [%s] (expected [sim], [thread NAME] or [sweep])", name);
	}
}

/* Lines are whole or refused (textline.h): never split, no NUL or control characters. */
static char *wl_ini_reader(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	char why[96];
	int got = textline_read(c->f, str, num, why, sizeof(why));
	if (got == 0)
		return NULL;
	c->line++;
	if (got < 0) {
		ctx_err(c, "%s (a workload file is UTF-8 text: [section], key = value, ; comments)", why);
		return NULL;   /* stops inih; the error is in c->e */
	}
	char header[512];
	int h = textline_section(str, c->line, header, sizeof(header), why, sizeof(why));
	if (h < 0) {
		ctx_err(c, "%s", why);
		return NULL;
	}
	if (h > 0)
		on_section(c, header);
	return str;
}

/* "10ms   # comment" -> "10ms" (inih only knows ';' inline comments) */
static void strip_comment(char *v)
{
	for (char *p = v; *p; p++)
		if (*p == '#' && (p == v || isspace((unsigned char)p[-1]))) {
			*p = 0;
			break;
		}
	char *t = trim(v);
	memmove(v, t, strlen(t) + 1);
}

static int add_axis(struct ini_ctx *c, const char *key, char *values)
{
	struct workload *w = c->w;
	char k[64], name[64], full[140];
	const char *dot = strchr(key, '.');
	int thread = -1;
	const struct opt *o;
	if (dot) {
		snprintf(name, sizeof(name), "%.*s", (int)(dot - key), key);
		thread = thread_find(w, name);
		if (thread < 0)
			return ctx_err(c, "[sweep] %s: no [thread %s] above", key, name);
		o = sim_opt_find(SCOPE_SIM_THREAD, dot + 1);
		sim_key_normalize(dot + 1, k, sizeof(k));
		if (!o)
			return ctx_err(c, "[sweep] %s: '%s' is not a [thread] key", key, k);
		snprintf(full, sizeof(full), "%s.%s", name, k);
		if (strlen(full) >= sizeof(name))
			return ctx_err(c, "[sweep] %s: key too long", key);
		memcpy(name, full, strlen(full) + 1);
	} else {
		o = sim_opt_find(SCOPE_SIM, key);
		sim_key_normalize(key, name, sizeof(name));
		if (!o)
			return ctx_err(c, "[sweep] '%s' is not a [sim] key (or THREAD.key)", name);
		if (strcmp(o->name, "import") == 0)
			return ctx_err(c, "[sweep] cannot sweep over import");
		if (strcmp(o->name, "max-work") == 0)
			return ctx_err(c, "[sweep] max-work is a command-line option (a workload cannot raise its own cap)");
		if (strcmp(o->name, "like") == 0)
			return ctx_err(c, "[sweep] like is a command-line option (irt sim --like RESULT.json)");
	}
	for (int i = 0; i < w->naxes; i++)
		if (strcmp(w->axes[i].key, name) == 0)
			return ctx_err(c, "[sweep] %s is given twice (first at line %d)", name, w->axes[i].line);
	w->axes = xrealloc(w->axes, sizeof(*w->axes) * (size_t)(w->naxes + 1));
	struct wl_axis *a = &w->axes[w->naxes++];
	memset(a, 0, sizeof(*a));
	snprintf(a->key, sizeof(a->key), "%s", name);
	a->thread = thread;
	a->opt = o;
	a->line = c->line;
	char where[600];
	snprintf(where, sizeof(where), "%s:%d: %s", w->path, c->line, name);
	/* strsep, not strtok: "10ms,,1ms" and "10ms," have an empty item (a lost value), not 2 and 1 */
	for (char *rest = *trim(values) ? values : NULL, *tok; (tok = strsep(&rest, ","));) {
		char *v = trim(tok);
		if (!*v)
			return ctx_err(c, "[sweep] %s: an empty value in the list (expected values separated by single commas)",
			               name);
		for (int j = 0; j < a->n; j++)
			if (strcmp(a->values[j], v) == 0)
				return ctx_err(c, "[sweep] %s: '%s' is in the list twice (each value once: it makes one cell)", name, v);
		/* check the value now, with the option's own parser */
		if (strcmp(o->name, "quota") != 0) {
			char scratch[sizeof(struct sim_cfg) > sizeof(struct sim_thread_cfg) ? sizeof(struct sim_cfg)
			                                                                     : sizeof(struct sim_thread_cfg)];
			memset(scratch, 0, sizeof(scratch));
			if (opt_set(o, scratch, v, where, c->e))
				return 0;
		}
		a->values = xrealloc(a->values, sizeof(char *) * (size_t)(a->n + 1));
		a->values[a->n++] = xstrdup(v);
	}
	if (a->n == 0)
		return ctx_err(c, "[sweep] %s: no values (expected a comma-separated list)", name);
	return 1;
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *c = user;
	struct workload *w = c->w;
	char v[OPT_STRLEN * 4], k[64], where[600], keys[1200];
	(void)section;
	if (c->e->code)
		return 0;
	snprintf(v, sizeof(v), "%s", value);
	strip_comment(v);
	sim_key_normalize(name, k, sizeof(k));
	snprintf(where, sizeof(where), "%s:%d: %s", w->path, c->line, k);

	switch (c->sec) {
	case SEC_NONE:
		return ctx_err(c, "'%s' outside a section (start with [sim] or [thread NAME])", k);
	case SEC_BAD:
		return 0;
	case SEC_SWEEP:
		return add_axis(c, name, v);
	case SEC_SIM: {
		const struct opt *o = sim_opt_find(SCOPE_SIM, k);
		if (!o) {
			list_scope_keys(SCOPE_SIM, keys, sizeof(keys));
			return ctx_err(c, "unknown [sim] key '%s' (keys: %s)", k, keys);
		}
		if (strcmp(o->name, "max-work") == 0)
			return ctx_err(c, "max-work is a command-line option (a workload cannot raise its own cap: "
			               "irt sim FILE --max-work N)");
		if (strcmp(o->name, "like") == 0)
			return ctx_err(c, "like is a command-line option (irt sim --like RESULT.json)");
		const struct wl_key *dup = keys_find(w->keys, w->nkeys, sim_key_name(o));
		if (dup)
			return ctx_err(c, "'%s' is given twice in [sim] (first at line %d)", sim_key_name(o), dup->line);
		if (opt_set(o, &w->sim, v, where, c->e))
			return 0;
		keys_add(&w->keys, &w->nkeys, sim_key_name(o), v, c->line);
		return 1;
	}
	case SEC_THREAD: {
		if (c->thread < 0 || c->thread >= w->nthreads)
			return 0;   /* its header was bad */
		struct wl_thread *t = &w->threads[c->thread];
		const struct opt *o = sim_opt_find(SCOPE_SIM_THREAD, k);
		if (!o) {
			list_scope_keys(SCOPE_SIM_THREAD, keys, sizeof(keys));
			return ctx_err(c, "unknown [thread] key '%s' (keys: %s)", k, keys);
		}
		const struct wl_key *dup = keys_find(t->keys, t->nkeys, sim_key_name(o));
		if (dup)
			return ctx_err(c, "'%s' is given twice in [thread %s] (first at line %d)", sim_key_name(o), t->spec.name,
			               dup->line);
		if (opt_set(o, &t->raw, v, where, c->e))
			return 0;
		keys_add(&t->keys, &t->nkeys, sim_key_name(o), v, c->line);
		return 1;
	}
	}
	return 0;
}

static int load_ini(FILE *f, const char *path, struct workload *w, struct err *e)
{
	struct ini_ctx c = {.w = w, .f = f, .thread = -1, .e = e};
	int rc = ini_parse_stream(wl_ini_reader, &c, on_ini, &c);
	if (e->code)
		return -1;
	if (rc > 0)
		return err_set(e, EXIT_USAGE, "%s:%d: not a [section] or key = value line", path, rc);
	if (rc < 0)
		return err_set(e, EXIT_USAGE, "%s: cannot read", path);
	return 0;
}

/* ------------------------------------------------------------------ schedsim TSV */

/* pandas-Timedelta-like: "1s", "0.5s", "500ms", "1s50us", "0" */
static int tsv_duration(const char *s, int64_t *ns)
{
	int64_t total = 0;
	char part[64];
	if (strcmp(s, "0") == 0)
		return *ns = 0, 0;
	while (*s) {
		size_t n = 0;
		while ((isdigit((unsigned char)s[n]) || s[n] == '.') && n < 30)
			n++;
		size_t u = n;
		while (isalpha((unsigned char)s[u]) && u < 40)
			u++;
		if (n == 0 || u == n || u >= sizeof(part))
			return -1;
		snprintf(part, sizeof(part), "%.*s", (int)u, s);
		int64_t v;
		if (units_parse_duration(part, &v) || __builtin_add_overflow(total, v, &total))
			return -1;   /* not a duration, or the parts add up beyond int64 ns (292 years) */
		s += u;
	}
	*ns = total;
	return 0;
}

static int event_index(struct workload *w, const char *name)
{
	for (int i = 0; i < w->nevents; i++)
		if (strcmp(w->events[i], name) == 0)
			return i;
	w->events = xrealloc(w->events, sizeof(char *) * (size_t)(w->nevents + 1));
	w->events[w->nevents] = xstrdup(name);
	return w->nevents++;
}

/* The first row (by line) waiting on an event that no row which ever starts raises, or NULL:
 * such a row would never start, which is a typo far more often than an intent. An event is
 * live when a row that starts (at a time, periodically, or on a live event) raises it. */
static const struct sim_job *never_started(const struct workload *w)
{
	bool *live = xcalloc((size_t)w->nevents + 1, sizeof(bool));
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < w->nthreads; i++)
			for (int k = 0; k < w->threads[i].spec.njobs; k++) {
				const struct sim_job *j = &w->threads[i].spec.jobs[k];
				if ((j->event_in < 0 || live[j->event_in]) && j->event_out >= 0 && !live[j->event_out])
					live[j->event_out] = changed = true;
			}
	}
	const struct sim_job *first = NULL;
	for (int i = 0; i < w->nthreads; i++)
		for (int k = 0; k < w->threads[i].spec.njobs; k++) {
			const struct sim_job *j = &w->threads[i].spec.jobs[k];
			if (j->event_in >= 0 && !live[j->event_in] && (!first || j->line < first->line))
				first = j;
		}
	free(live);
	return first;
}

enum { COL_THREAD, COL_START, COL_RUNTIME, COL_WEIGHT, COL_PRIORITY, COL_RESTART, COL_EVENT, NCOLS };
static const char *const col_names[NCOLS] = {"thread", "start", "runtime", "weight", "priority", "restart", "event"};

static int load_tsv(FILE *f, const char *path, struct workload *w, struct err *e)
{
	char *buf = NULL;
	size_t cap = 0;
	int line = 0, col[16], ncol = 0, rc = 0;
	bool header = false;
	while (!rc && getline(&buf, &cap, f) >= 0) {
		line++;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		buf[strcspn(buf, "\r\n")] = 0;
		if (!*trim(buf))
			continue;
		char *field[16];
		int nf = 0;
		for (char *p = buf;; ) {
			char *tab = strchr(p, '\t');
			if (nf == 16) {
				rc = err_set(e, EXIT_USAGE, "%s:%d: more than 16 columns", path, line);
				break;
			}
			field[nf++] = p;
			if (!tab)
				break;
			*tab = 0;
			p = tab + 1;
		}
		if (rc)
			break;
		for (int i = 0; i < nf; i++)
			field[i] = trim(field[i]);
		if (!header) {
			int seen[NCOLS] = {0};
			for (int i = 0; i < nf; i++) {
				int k = -1;
				for (int j = 0; j < NCOLS; j++)
					if (strcmp(field[i], col_names[j]) == 0)
						k = j;
				if (k < 0) {
					rc = err_set(e, EXIT_USAGE, "%s:%d: unknown column '%s' (schedsim columns: thread start runtime weight [priority restart event], tab separated)",
					             path, line, field[i]);
					break;
				}
				if (seen[k]) {
					rc = err_set(e, EXIT_USAGE, "%s:%d: column '%s' twice (each column once)", path, line, field[i]);
					break;
				}
				col[ncol++] = k;
				seen[k] = 1;
			}
			if (!rc && !(seen[COL_THREAD] && seen[COL_START] && seen[COL_RUNTIME] && seen[COL_WEIGHT]))
				rc = err_set(e, EXIT_USAGE, "%s:%d: the header needs the columns thread, start, runtime and weight (tab separated)",
				             path, line);
			header = true;
			continue;
		}
		const char *v[NCOLS] = {0};
		for (int i = 0; i < nf && i < ncol; i++)
			v[col[i]] = field[i];
		if (nf > ncol) {
			rc = err_set(e, EXIT_USAGE, "%s:%d: %d fields but the header names %d columns", path, line, nf, ncol);
			break;
		}
		if (!v[COL_THREAD] || !*v[COL_THREAD] || !v[COL_START] || !*v[COL_START] || !v[COL_RUNTIME] ||
		    !v[COL_WEIGHT]) {
			rc = err_set(e, EXIT_USAGE, "%s:%d: thread, start, runtime and weight are required", path, line);
			break;
		}
		struct sim_job j = {.at = -1, .event_in = -1, .event_out = -1};
		if (tsv_duration(v[COL_RUNTIME], &j.runtime) || j.runtime <= 0) {
			rc = err_set(e, EXIT_USAGE, "%s:%d: runtime '%s' is not a duration > 0 (like 10ms or 1s50us)", path, line,
			             v[COL_RUNTIME]);
			break;
		}
		const char *st = v[COL_START];
		if (strncmp(st, "every", 5) == 0 && isspace((unsigned char)st[5])) {
			if (tsv_duration(trim((char *)st + 6), &j.period) || j.period <= 0) {
				rc = err_set(e, EXIT_USAGE, "%s:%d: start '%s': 'every' needs a period > 0", path, line, st);
				break;
			}
		} else if (isdigit((unsigned char)st[0])) {
			if (tsv_duration(st, &j.at)) {
				rc = err_set(e, EXIT_USAGE, "%s:%d: start '%s' is not a time (like 0.5s or 500ms)", path, line, st);
				break;
			}
		} else {
			j.event_in = event_index(w, st);
		}
		if (v[COL_RESTART] && *v[COL_RESTART] && tsv_duration(v[COL_RESTART], &j.restart)) {
			rc = err_set(e, EXIT_USAGE, "%s:%d: restart '%s' is not a duration", path, line, v[COL_RESTART]);
			break;
		}
		if (v[COL_EVENT] && *v[COL_EVENT])
			j.event_out = event_index(w, v[COL_EVENT]);
		char *end;
		double weight = strtod(v[COL_WEIGHT], &end);
		if (end == v[COL_WEIGHT] || *end || !(weight >= 1 && weight <= 1e6)) {   /* NaN too */
			rc = err_set(e, EXIT_USAGE, "%s:%d: weight '%s' is not a number from 1 to 1000000", path, line, v[COL_WEIGHT]);
			break;
		}
		int64_t prio = 0;
		if (v[COL_PRIORITY] && *v[COL_PRIORITY] && (units_parse_int(v[COL_PRIORITY], &prio) || prio < 0 || prio > 99)) {
			rc = err_set(e, EXIT_USAGE, "%s:%d: priority '%s' is not a whole number 0..99", path, line, v[COL_PRIORITY]);
			break;
		}
		int ti = thread_find(w, v[COL_THREAD]);
		struct wl_thread *t;
		if (ti < 0) {
			if (strlen(v[COL_THREAD]) >= sizeof(t->spec.name)) {
				rc = err_set(e, EXIT_USAGE, "%s:%d: thread name too long", path, line);
				break;
			}
			if (err_has_control(v[COL_THREAD])) {
				rc = err_set(e, EXIT_USAGE, "%s:%d: thread name '%s' holds a control character (expected printable text)",
				             path, line, v[COL_THREAD]);
				break;
			}
			t = thread_add(w, v[COL_THREAD], line);
			/* schedsim's conventions: weight is the weight; for base-hw it is the quota in
			 * percent of the super period when the priority is above 0 */
			t->raw.type = SIM_JOBS;
			t->raw.weight = (int64_t)weight;
			t->raw.prio = prio;
			if (prio > 0)
				snprintf(t->raw.quota, sizeof(t->raw.quota), "%s%%", v[COL_WEIGHT]);
		} else {
			t = &w->threads[ti];
			if (t->raw.type != SIM_JOBS) {
				rc = err_set(e, EXIT_USAGE, "%s:%d: thread %s is also defined in the INI file", path, line, t->spec.name);
				break;
			}
		}
		j.seq = w->nrows++;
		j.line = line;
		j.weight = (int64_t)weight;   /* schedsim: int(float(weight)) */
		j.prio = prio;
		t->spec.jobs = xrealloc(t->spec.jobs, sizeof(j) * (size_t)(t->spec.njobs + 1));
		t->spec.jobs[t->spec.njobs++] = j;
	}
	free(buf);
	if (!rc && !header)
		rc = err_set(e, EXIT_USAGE, "%s: empty (a schedsim scenario starts with the header: thread start runtime weight ...)", path);
	const struct sim_job *dead = rc ? NULL : never_started(w);
	if (dead)
		rc = err_set(e, EXIT_USAGE,
		             "%s:%d: start '%s' is not a time (like 0.5s), 'every PERIOD', or an event raised by a row that starts (event column)",
		             path, dead->line, w->events[dead->event_in]);
	return rc;
}

/* ------------------------------------------------------------------ checks and cells */

static bool is_tsv(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && strcmp(path + n - 4, ".tsv") == 0;
}

static int key_line(const struct wl_thread *t, const char *key)
{
	const struct wl_key *k = keys_find(t->keys, t->nkeys, key);
	return k ? k->line : t->line;
}

const char *workload_key_where(const struct workload *w, const char *key, char *buf, size_t len)
{
	const struct wl_key *k = keys_find(w->keys, w->nkeys, key);
	if (k && !k->line)
		snprintf(buf, len, "%s", k->where);
	else
		snprintf(buf, len, "%s:%d: %s", w->path, k ? k->line : 0, key);
	return buf;
}

/* Load-time check: every [sim] key given is read by some policy this workload runs. */
static int check_sim_keys(const struct workload *w, struct err *e)
{
	static const char *const common[] = {"policy", "duration", "end", "seed", "cpus", "import", "shard",
	                                     "max-work", "like", NULL};
	static const char *const engine[] = {"cs-cost", NULL};   /* the engine's, not schedsim's model */
	const struct policy_ops *run[16];
	int nrun = 0;
	run[nrun++] = sim_policies[w->sim.policy];
	int nfile = nrun;   /* run[nfile..]: the policies of a [sweep] the command line fixed */
	for (int fixed = 0; fixed < 2; fixed++) {
		for (int a = 0; a < w->naxes; a++)
			if (w->axes[a].thread < 0 && w->axes[a].fixed == fixed && strcmp(w->axes[a].opt->name, "sim-policy") == 0)
				for (int i = 0; i < w->axes[a].n && nrun < 16; i++)
					if (policy_find(w->axes[a].values[i]))
						run[nrun++] = policy_find(w->axes[a].values[i]);
		if (!fixed)
			nfile = nrun;
	}
	for (int i = 0; i < w->nkeys + w->naxes; i++) {
		const char *key = i < w->nkeys ? w->keys[i].key : w->axes[i - w->nkeys].key;
		int line = i < w->nkeys ? w->keys[i].line : w->axes[i - w->nkeys].line;
		const char *given = i < w->nkeys && !line ? w->keys[i].where : NULL;   /* on the command line */
		if (i >= w->nkeys && w->axes[i - w->nkeys].thread >= 0)
			continue;
		if (given && strcmp(given, "--like") == 0)
			continue;   /* --like's cfsbw keys (tick, groups): the user gave none of them */
		if (policy_reads(common, key))
			continue;
		bool read = false;
		/* a file's key may be for a policy of its [sweep] that the command line fixed away */
		for (int r = 0; r < (given ? nfile : nrun); r++)
			read |= policy_reads(run[r]->sim_keys, key) || (!run[r]->schedsim && policy_reads(engine, key));
		if (!read) {
			char names[200] = "";
			for (int r = 0; r < (given ? nfile : nrun); r++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", r ? ", " : "", run[r]->name);
			if (given)
				return err_set(e, EXIT_USAGE, "%s: not a parameter of policy %s (see docs/sim.md)", given, names);
			return err_set(e, EXIT_USAGE, "%s:%d: '%s' is not a parameter of policy %s (see docs/sim.md)", w->path, line,
			               key, names);
		}
	}
	return 0;
}

static int load_stream(FILE *f, const char *path, const char *import, struct workload *w, struct err *e);

static FILE *open_input(const char *path, struct err *e)
{
	FILE *f = input_fopen(path, "workload file", e);
	if (!f && !e->code)
		err_set(e, EXIT_USAGE, "%s: cannot open (%s)", path, strerror(errno));
	return f;
}

int workload_load(const char *path, struct workload *w, struct err *e)
{
	return workload_load_import(path, NULL, w, e);
}

int workload_load_import(const char *path, const char *import, struct workload *w, struct err *e)
{
	memset(w, 0, sizeof(*w));
	FILE *f = open_input(path, e);
	if (!f)
		return -1;
	int rc = load_stream(f, path, import, w, e);
	fclose(f);
	return rc;
}

int workload_import(struct workload *w, const char *file, const char *where, struct err *e)
{
	FILE *tf = open_input(file, e);
	if (!tf) {
		err_prefix(e, "%s", where);
		return -1;
	}
	snprintf(w->import, sizeof(w->import), "%s", file);   /* its rows' lines are this file's */
	int rc = load_tsv(tf, file, w, e);
	fclose(tf);
	return rc ? -1 : 0;
}

/* import: the command line's --import FILE, which replaces the file's import = (as any
 * --KEY VALUE replaces its [sim] key), or NULL */
static int load_stream(FILE *f, const char *path, const char *import, struct workload *w, struct err *e)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->path, sizeof(w->path), "%s", path);
	opt_defaults(SCOPE_SIM, &w->sim);
	int rc = is_tsv(path) ? load_tsv(f, path, w, e) : load_ini(f, path, w, e);
	if (rc)
		return -1;
	if (import) {
		if (workload_import(w, import, "--import", e))
			return -1;
	} else if (w->sim.import[0]) {
		char full[1024], where[600];
		const char *slash = strrchr(path, '/');
		if (w->sim.import[0] == '/' || !slash)
			snprintf(full, sizeof(full), "%s", w->sim.import);
		else
			snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - path), path, w->sim.import);
		if (workload_import(w, full, workload_key_where(w, "import", where, sizeof(where)), e))
			return -1;
	}
	if (w->nthreads == 0)
		return err_set(e, EXIT_USAGE, "%s: no threads (add [thread NAME] sections or import a schedsim TSV)", path);
	return 0;
}

int workload_load_stream(FILE *f, const char *path, struct workload *w, struct err *e)
{
	return load_stream(f, path, NULL, w, e);
}

/* The share of a CPU thread c keeps busy (at most 1), for the decisions its quanta force. */
static double thread_util(const struct sim_thread_spec *t, double d)
{
	const struct sim_thread_cfg *c = &t->cfg;
	double exec = (double)(c->exec_max > c->exec ? c->exec_max : c->exec);
	switch (c->type) {
	case SIM_CPU_BOUND: return 1;
	case SIM_ONESHOT: return d > 0 ? (double)c->work / d : 1;
	case SIM_IO: return exec + (double)c->block > 0 ? exec / (exec + (double)c->block) : 1;
	case SIM_JOBS: {
		double u = 0;
		for (int r = 0; r < t->njobs; r++) {
			const struct sim_job *j = &t->jobs[r];
			int64_t every = j->period > 0 ? j->period : j->restart > 0 ? j->restart + j->runtime : 0;
			u += every ? (double)j->runtime / (double)every : d > 0 ? (double)j->runtime / d : 1;
		}
		return u;
	}
	default: return c->period > 0 ? exec / (double)c->period : 1;
	}
}

/* The shortest quantum the cell's policy grants a running thread, and the setting that makes
 * it: while a CPU is busy, it forces a decision at least that often (0: none, schedsim's fixed
 * 10 ms slices are counted with their rows). */
static int64_t cell_quantum(const struct sim_cfg *sim, const struct sim_thread_spec *t, int n, const char **what)
{
	const struct policy_ops *ops = sim_policies[sim->policy];
	int64_t q = 0;
#define QMIN(v, name)                       \
	do {                                    \
		if ((v) > 0 && (!q || (v) < q)) { \
			q = (v);                        \
			*what = (name);                 \
		}                                   \
	} while (0)
	if (ops == &policy_hwquota) {
		QMIN(sim->fill, "fill");
		QMIN(sim->super_period, "super-period");
	} else if (ops == &policy_rr || ops == &policy_cfsbw || ops == &policy_edf || ops == &policy_fair ||
	           ops == &policy_bvt) {
		QMIN(sim->slice, "slice");
		if (ops == &policy_cfsbw)
			QMIN(sim->tick, "tick");
		for (int i = 0; i < n; i++) {
			if (ops == &policy_fair)
				QMIN(t[i].cfg.slice, "a thread's slice");
			if (ops == &policy_cfsbw && t[i].cfg.cfs_quota > 0)
				QMIN(t[i].cfg.cfs_period, "a thread's cfs-period");
			if (ops == &policy_edf && t[i].cfg.dl_runtime > 0)
				QMIN(t[i].cfg.dl_runtime, "a thread's dl-runtime");
		}
	}
#undef QMIN
	return q;
}

/* The work of one cell, in scheduler decisions: each thread's releases over the duration (a
 * thread without a period is counted once per millisecond or per yield, about as often as a
 * scheduler decides about it), plus, per CPU, its busy time over the policy's shortest
 * quantum (*quanta, naming the setting in *what). Doubles: the point is to catch 10^11, not
 * to count. */
static double cell_work(const struct sim_cfg *sim, const struct sim_thread_spec *t, int n, double *quanta,
                        const char **what)
{
	double work = 0, d = (double)sim->duration;
	int64_t q = cell_quantum(sim, t, n, what);
	double *busy = q ? xcalloc((size_t)sim->cpus, sizeof(*busy)) : NULL;
	for (int i = 0; i < n; i++) {
		const struct sim_thread_cfg *c = &t[i].cfg;
		double every = 1e6;   /* 1 ms */
		if (busy && c->cpu >= 0 && c->cpu < sim->cpus)
			busy[c->cpu] += thread_util(&t[i], d);
		if (c->type == SIM_JOBS) {   /* schedsim rows: periodic and restarting rows recur; with
		                                * end = idle the duration is the most a run takes */
			for (int r = 0; r < t[i].njobs; r++) {
				const struct sim_job *j = &t[i].jobs[r];
				if (j->period > 0)
					work += d / (double)j->period + 1;
				else if (j->restart > 0)
					work += d / (double)(j->restart + j->runtime) + 1;
				else   /* a long job is decided about like a CPU-bound thread: per ms */
					work += (double)(j->runtime < sim->duration ? j->runtime : sim->duration) / 1e6 + 1;
			}
			continue;
		}
		if ((c->type == SIM_PERIODIC || c->type == SIM_SPORADIC || c->type == SIM_TIMER) && c->period > 0)
			every = (double)c->period;
		else if (c->type == SIM_IO)
			every = (double)(c->exec + c->block) > 0 ? (double)(c->exec + c->block) : 1;
		else if (c->type == SIM_CPU_BOUND && c->yield_every > 0)
			every = (double)c->yield_every;
		work += d / every + 1;
	}
	for (int64_t cpu = 0; busy && cpu < sim->cpus; cpu++)
		*quanta += (busy[cpu] < 1 ? busy[cpu] : 1) * d / (double)q;
	free(busy);
	return work;
}

int workload_check(const struct workload *w, struct err *e)
{
	int rc = 0;
	if (check_sim_keys(w, e))
		return -1;
	if (workload_cells(w) > MAX_CELLS)
		return err_set(e, EXIT_USAGE, "%s: the [sweep] has %ld cells, more than %d", w->path, workload_cells(w), MAX_CELLS);
	/* every cell must be possible: resolve them all now, so errors come before any run */
	struct sim_thread_spec *tmp = xcalloc((size_t)w->nthreads, sizeof(*tmp));
	struct sim_cfg sim;
	long n = workload_cells(w);
	double work = 0, quanta = 0;
	const char *what = NULL;
	for (long i = 0; i < n && !rc; i++)
		if (!(rc = workload_cell(w, i, &sim, tmp, e)))
			work += cell_work(&sim, tmp, w->nthreads, &quanta, &what);
	free(tmp);
	if (!rc && work + quanta > (double)w->sim.max_work) {
		char d[32], sd[128];
		units_format_duration(d, sizeof(d), w->sim.duration);
		snprintf(sd, sizeof(sd), "%d thread%s, %s simulated, %ld cell%s", w->nthreads, w->nthreads == 1 ? "" : "s",
		         d, n, n == 1 ? "" : "s");
		if (quanta > work)   /* name the setting that makes it large */
			return err_set(e, EXIT_USAGE,
			               "%s: about %.2g scheduler decisions (%s) is more than --max-work %" PRId64 " allows, "
			               "mostly forced by the policy's shortest quantum (%s) while a CPU is busy (lengthen "
			               "it, shorten the duration or raise --max-work N)",
			               w->path, work + quanta, sd, w->sim.max_work, what);
		return err_set(e, EXIT_USAGE,
		               "%s: about %.2g thread activations (%s) is more than --max-work %" PRId64 " allows (raise "
		               "it with --max-work N, or shorten the duration or lengthen the periods)",
		               w->path, work + quanta, sd, w->sim.max_work);
	}
	return rc;
}

void workload_free(struct workload *w)
{
	for (int i = 0; i < w->nthreads; i++) {
		free(w->threads[i].keys);
		free(w->threads[i].spec.jobs);
	}
	free(w->threads);
	free(w->keys);
	for (int a = 0; a < w->naxes; a++) {
		for (int i = 0; i < w->axes[a].n; i++)
			free(w->axes[a].values[i]);
		free(w->axes[a].values);
	}
	free(w->axes);
	for (int i = 0; i < w->nevents; i++)
		free(w->events[i]);
	free(w->events);
	memset(w, 0, sizeof(*w));
}

long workload_cells(const struct workload *w)
{
	long n = 1;
	for (int a = 0; a < w->naxes; a++) {
		n *= w->axes[a].fixed ? 1 : w->axes[a].n;
		if (n > MAX_CELLS)
			return MAX_CELLS + 1;
	}
	return n;
}

/* The value index of axis a in cell i (the first axis varies slowest). */
static int axis_pick(const struct workload *w, long cell, int a)
{
	long div = 1;
	for (int b = a + 1; b < w->naxes; b++)
		div *= w->axes[b].fixed ? 1 : w->axes[b].n;
	return (int)((cell / div) % w->axes[a].n);
}

void workload_cell_label(const struct workload *w, long cell, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int a = 0; a < w->naxes && n < len; a++)
		if (!w->axes[a].fixed)
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", w->axes[a].key,
		                      w->axes[a].values[axis_pick(w, cell, a)]);
}

static int resolve_quota(const char *q, int64_t super_period, int64_t *ns)
{
	int64_t v;
	if (!q[0] || strcmp(q, "none") == 0)   /* none: best effort, as without the key */
		return *ns = 0, 0;
	if (strchr(q, '%') || (strchr(q, '.') && !strpbrk(q, "munsh"))) {
		if (units_parse_percent(q, &v))
			return -1;
		*ns = (int64_t)((__int128)v * super_period / 1000000);
		return 0;
	}
	if (strcmp(q, "0") == 0)
		return *ns = 0, 0;
	return units_parse_duration(q, ns);
}

/* Is THREAD.key (key as written in files) one of the [sweep] axes? */
static bool thread_key_swept(const struct workload *w, const struct wl_thread *t, const char *key)
{
	for (int a = 0; a < w->naxes; a++)
		if (w->axes[a].thread == (int)(t - w->threads) && strcmp(sim_key_name(w->axes[a].opt), key) == 0)
			return true;
	return false;
}

/* A key that the thread's behaviour never reads was silently ignored: exec-max without
 * exec-dist = uniform ran fixed work, jitter on a periodic thread ran no jitter. Not checked
 * where the behaviour (type, exec-dist) is itself swept: its other cells may read the key. */
static int unread_keys(const struct workload *w, const struct wl_thread *t, const struct sim_thread_cfg *c,
                       struct err *e)
{
	static const char *const types[] = {"periodic", "sporadic", "cpu-bound", "io", "oneshot", "timer"};
	if (c->type == SIM_JOBS || c->type < 0 || c->type > SIM_TIMER || thread_key_swept(w, t, "type"))
		return 0;
	bool jobs = c->type != SIM_CPU_BOUND && c->type != SIM_ONESHOT;   /* released work, drawn per job */
	const struct { const char *key; bool given, read; const char *who; } k[] = {
		{"jitter", c->jitter != 0, c->type == SIM_SPORADIC, "by sporadic threads"},
		{"activations", c->activations != 0, c->type == SIM_TIMER, "by timer threads"},
		{"window", c->window != 0, c->type == SIM_TIMER, "by timer threads"},
		{"work", c->work != 0, c->type == SIM_ONESHOT, "by oneshot threads"},
		{"yield-every", c->yield_every != 0, c->type == SIM_CPU_BOUND, "by cpu-bound threads"},
		{"block", c->block != 0, c->type == SIM_IO || c->type == SIM_ONESHOT, "by io and oneshot threads"},
		{"block-max", c->block_max != 0, c->type == SIM_IO || c->type == SIM_ONESHOT, "by io and oneshot threads"},
		{"exec", c->exec != 0, c->type != SIM_CPU_BOUND, "by threads with jobs (not cpu-bound)"},
		{"exec-dist", c->exec_dist != DIST_FIXED, jobs, "by periodic, sporadic, timer and io threads"},
		{"deadline", c->deadline != 0, jobs, "by periodic, sporadic, timer and io threads"},
		{"exec-max", c->exec_max != 0, jobs && (c->exec_dist == DIST_UNIFORM || thread_key_swept(w, t, "exec-dist")),
		 "with exec-dist = uniform (work uniform in exec..exec-max)"},
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (k[i].given && !k[i].read)
			return err_set(e, EXIT_USAGE, "%s:%d: thread %s: %s is read only %s; this %s thread ignores it (remove it)",
			               w->path, key_line(t, k[i].key), t->spec.name, k[i].key, k[i].who, types[c->type]), -1;
	return 0;
}

/* Prefixes e with thread i's file and line: its [thread] header, or for an imported thread its
 * first TSV row; a thread made by --like has no line. */
static void thread_where(const struct workload *w, int i, struct err *e)
{
	const char *file = w->threads[i].raw.type == SIM_JOBS && !is_tsv(w->path) && w->import[0] ? w->import : w->path;
	if (w->threads[i].line > 0)
		err_prefix(e, "%s:%d", file, w->threads[i].line);
	else
		err_prefix(e, "%s", file);
}

/* Says which [sweep] cell an error came from (a value of that cell may be its cause); -1. */
static int in_cell(const struct workload *w, long cell, struct err *e)
{
	char label[300];
	workload_cell_label(w, cell, label, sizeof(label));
	size_t n = strlen(e->msg);
	if (label[0] && n < sizeof(e->msg))
		snprintf(e->msg + n, sizeof(e->msg) - n, " (in [sweep] cell %s)", label);
	return -1;
}

static int thread_check(const struct workload *w, const struct wl_thread *t, const struct sim_cfg *sim,
                        struct sim_thread_cfg *c, int qline, struct err *e)
{
	const char *n = t->spec.name;
	char a[32];
	if (resolve_quota(c->quota, sim->super_period, &c->quota_ns))
		return err_set(e, EXIT_USAGE, "%s:%d: thread %s: quota '%s' is not a time (100ms), a share of the super period (10%%) or none",
		               w->path, qline, n, c->quota), -1;
	if (c->quota_ns > sim->super_period)
		return err_set(e, EXIT_USAGE, "%s:%d: thread %s: quota %s is more than the super period %s", w->path, qline, n,
		               units_format_duration(a, sizeof(a), c->quota_ns),
		               units_format_duration((char[32]){0}, 32, sim->super_period)), -1;
	if (c->cpu >= sim->cpus)
		return err_set(e, EXIT_USAGE, "%s:%d: thread %s: cpu %" PRId64 " does not exist (cpus = %" PRId64 ")", w->path,
		               key_line(t, "cpu"), n, c->cpu, sim->cpus), -1;
	if (c->type == SIM_TIMER && c->activations <= 0)
		return err_set(e, EXIT_USAGE, "%s:%d: thread %s: a timer needs activations > 0 (per window)", w->path,
		               key_line(t, "activations"), n), -1;
	if (c->type == SIM_TIMER && c->period == 0)   /* one spare activation per window */
		c->period = (c->window ? c->window : sim->super_period) / (c->activations + 1);
	switch (c->type) {
	case SIM_PERIODIC:
	case SIM_SPORADIC:
	case SIM_TIMER:
		if (c->period <= 0)
			return err_set(e, EXIT_USAGE, "%s:%d: thread %s: a %s thread needs period > 0", w->path, key_line(t, "period"),
			               n, c->type == SIM_TIMER ? "timer" : c->type == SIM_SPORADIC ? "sporadic" : "periodic"), -1;
		/* fall through */
	case SIM_IO:
		if (c->exec <= 0)
			return err_set(e, EXIT_USAGE, "%s:%d: thread %s: needs exec > 0 (the work per %s)", w->path, key_line(t, "exec"),
			               n, c->type == SIM_IO ? "burst" : "release"), -1;
		break;
	case SIM_ONESHOT:
		if (c->work <= 0)
			return err_set(e, EXIT_USAGE, "%s:%d: thread %s: a oneshot thread needs work > 0 (its total work)", w->path,
			               key_line(t, "work"), n), -1;
		break;
	default:
		break;
	}
	if (unread_keys(w, t, c, e))
		return -1;
	if (c->window == 0)
		c->window = sim->super_period;
	if (c->exec_dist == DIST_UNIFORM && c->exec_max < c->exec)
		return err_set(e, EXIT_USAGE, "%s:%d: thread %s: uniform work needs exec-max >= exec", w->path,
		               key_line(t, "exec-max"), n), -1;
	if (c->block_max && c->block_max < c->block)
		return err_set(e, EXIT_USAGE, "%s:%d: thread %s: block-max is below block", w->path, key_line(t, "block-max"), n), -1;
	if (c->deadline == 0 && (c->type == SIM_PERIODIC || c->type == SIM_SPORADIC || c->type == SIM_TIMER))
		c->deadline = c->period;
	if (c->type == SIM_CPU_BOUND || c->type == SIM_ONESHOT)
		c->deadline = 0;
	if (c->dl_period == 0)
		c->dl_period = c->period;
	return 0;
}

int workload_cell(const struct workload *w, long cell, struct sim_cfg *sim, struct sim_thread_spec *threads,
                  struct err *e)
{
	char where[600];
	*sim = w->sim;
	for (int a = 0; a < w->naxes; a++) {
		const struct wl_axis *x = &w->axes[a];
		if (x->thread >= 0 || x->fixed)
			continue;
		snprintf(where, sizeof(where), "%s:%d: %s", w->path, x->line, x->key);
		if (opt_set(x->opt, sim, x->values[axis_pick(w, cell, a)], where, e))
			return -1;
	}
	if (sim->duration <= 0)
		return err_set(e, EXIT_USAGE, "%s: duration must be > 0", w->path);
	if (sim->end == SIM_END_AUTO)
		sim->end = is_tsv(w->path) ? SIM_END_IDLE : SIM_END_DURATION;
	const struct policy_ops *ops = sim_policies[sim->policy];
	for (int i = 0; ops->schedsim && i < w->nthreads; i++)
		if (w->threads[i].raw.type != SIM_JOBS)
			return err_set(e, EXIT_USAGE, "%s:%d: thread %s: policy %s runs schedsim scenarios (TSV rows) only", w->path,
			               w->threads[i].line, w->threads[i].spec.name, ops->name);
	if (ops->schedsim && sim->cpus != 1)
		return err_set(e, EXIT_USAGE, "%s: policy %s simulates one CPU (cpus = 1)", w->path, ops->name);
	for (int i = 0; i < w->nthreads; i++) {
		const struct wl_thread *t = &w->threads[i];
		struct sim_thread_spec *s = &threads[i];
		*s = t->spec;
		s->cfg = t->raw;
		int qline = key_line(t, "quota");
		for (int a = 0; a < w->naxes; a++) {
			const struct wl_axis *x = &w->axes[a];
			if (x->thread != i)
				continue;
			snprintf(where, sizeof(where), "%s:%d: %s", w->path, x->line, x->key);
			if (opt_set(x->opt, &s->cfg, x->values[axis_pick(w, cell, a)], where, e))
				return -1;
			if (strcmp(x->opt->name, "quota") == 0)
				qline = x->line;
		}
		if (ops->schedsim)
			s->cfg.quota[0] = 0;   /* schedsim's policies read weight and priority per row */
		if (thread_check(w, t, sim, &s->cfg, qline, e))
			return in_cell(w, cell, e);
	}
	/* the policy's admission, per CPU (claims over the super period, EDF over 100 %, ...) */
	if (!ops->admit)
		return 0;
	struct sthread *st = xcalloc((size_t)w->nthreads, sizeof(*st));
	struct sthread **list = xcalloc((size_t)w->nthreads, sizeof(*list));
	int rc = 0;
	/* each thread alone first: what is wrong with one thread (a prio outside the bands) is
	 * named with its line */
	for (int i = 0; i < w->nthreads && !rc; i++) {
		st[i] = (struct sthread){.name = threads[i].name, .id = i, .cfg = &threads[i].cfg};
		list[0] = &st[i];
		if (ops->admit(sim, list, 1, e)) {
			thread_where(w, i, e);
			rc = in_cell(w, cell, e);
		}
	}
	for (int cpu = 0; cpu < sim->cpus && !rc; cpu++) {
		int m = 0;
		for (int i = 0; i < w->nthreads; i++)
			if (threads[i].cfg.cpu == cpu) {
				st[i].name = threads[i].name;
				st[i].id = i;
				st[i].cfg = &threads[i].cfg;
				list[m++] = &st[i];
			}
		if (ops->admit(sim, list, m, e)) {
			/* the set fails, each thread alone passed: name the thread (in file order) whose
			 * coming makes it fail (admission only gets stricter as threads are added) */
			int lo = 1, hi = m;
			while (lo < hi) {
				struct err scratch = {0};
				int mid = lo + (hi - lo) / 2;
				if (ops->admit(sim, list, mid, &scratch))
					hi = mid;
				else
					lo = mid + 1;
			}
			err_clear(e);
			ops->admit(sim, list, lo, e);
			if (sim->cpus > 1)
				err_prefix(e, "cpu %d", cpu);
			thread_where(w, list[lo - 1]->id, e);
			rc = in_cell(w, cell, e);
		}
	}
	free(st);
	free(list);
	return rc;
}

int workload_override(struct workload *w, const struct opt *o, const char *value, const char *where, struct err *e)
{
	if (opt_set(o, &w->sim, value, where, e))
		return -1;
	/* the command line wins over a [sweep] of the same key too: that dimension is fixed */
	for (int a = 0; a < w->naxes; a++)
		if (w->axes[a].thread < 0 && w->axes[a].opt == o)
			w->axes[a].fixed = true;
	if (strcmp(o->name, "max-work") == 0)
		return 0;   /* a bound on irt's work, not a key of the workload */
	struct wl_key *k = (struct wl_key *)keys_find(w->keys, w->nkeys, sim_key_name(o));
	if (!k) {
		keys_add(&w->keys, &w->nkeys, sim_key_name(o), value, 0);
		k = &w->keys[w->nkeys - 1];
	}
	snprintf(k->value, sizeof(k->value), "%s", value);
	k->line = 0;   /* errors about it name the option now */
	snprintf(k->where, sizeof(k->where), "%s", where);
	return 0;
}

int workload_thread_set(struct workload *w, const char *thread, const char *key, const char *value, const char *where,
                        struct err *e)
{
	int i = thread_find(w, thread);
	struct wl_thread *t = i >= 0 ? &w->threads[i] : thread_add(w, thread, 0);
	const struct opt *o = sim_opt_find(SCOPE_SIM_THREAD, key);
	if (!o)
		return err_set(e, EXIT_USAGE, "%s: unknown [thread] key '%s'", where, key);
	if (opt_set(o, &t->raw, value, where, e))
		return -1;
	keys_add(&t->keys, &t->nkeys, sim_key_name(o), value, 0);
	return 0;
}

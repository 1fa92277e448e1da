/* irt compare: saved results -> cells -> per-metric summaries, ratios, verdicts, advice.
 * The statistics are in stats*.c; this file groups, extracts, formats. docs/statistics.md
 * explains what the numbers mean. */
#include "compare.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "expect.h"
#include "cond_diff.h"
#include "trust.h"
#include "opt.h"
#include "stats.h"
#include "sweep_runs.h"
#include "units.h"
#include "util.h"

enum source { SRC_WAKE, SRC_RESP, SRC_DEADLINE, SRC_THROUGHPUT };

struct cmetric {
	const char *id;        /* name in JSON and in --metric */
	enum source src;
	struct metric m;       /* m.name labels table rows */
	const char *runq_name; /* the label of a wake- metric when every result is watch --all's */
};

/* The first 8 rows are the --metric choices, in the order of enum rank_metric. */
static const struct cmetric cmetrics[] = {
	{"wake-p50", SRC_WAKE, {"wake-up p50", STAT_PERCENTILE, 50, false}, "run-queue wait p50"},
	{"wake-p99", SRC_WAKE, {"wake-up p99", STAT_PERCENTILE, 99, false}, "run-queue wait p99"},
	{"wake-p99.9", SRC_WAKE, {"wake-up p99.9", STAT_PERCENTILE, 99.9, false}, "run-queue wait p99.9"},
	{"wake-max", SRC_WAKE, {"wake-up max", STAT_MAX, 100, false}, "run-queue wait max"},
	{"resp-p50", SRC_RESP, {"response p50", STAT_PERCENTILE, 50, false}, NULL},
	{"resp-p99", SRC_RESP, {"response p99", STAT_PERCENTILE, 99, false}, NULL},
	{"resp-p99.9", SRC_RESP, {"response p99.9", STAT_PERCENTILE, 99.9, false}, NULL},
	{"resp-max", SRC_RESP, {"response max", STAT_MAX, 100, false}, NULL},
	{"deadline-met", SRC_DEADLINE, {"deadline met", STAT_PROPORTION, 0, true}, NULL},
	{"throughput", SRC_THROUGHPUT, {"load throughput", STAT_VALUE, 0, true}, NULL},
};
#define NMETRICS ((int)(sizeof(cmetrics) / sizeof(cmetrics[0])))
#define THREAD_ALL COMPARE_ALL_THREADS

/* What a metric's rows are called: watch --all's "wake" histograms hold every wait for a CPU,
 * after a preemption too (docs/watch.md), so there they are not wake-ups. */
static const char *metric_label(const struct compare *r, const struct cmetric *cm)
{
	return r->runq && cm->runq_name ? cm->runq_name : cm->m.name;
}

bool compare_ignored_setting(const char *key)
{
	/* where output goes and how a repetition was seeded or numbered */
	static const char *const ignored[] = {"json", "csv", "format", "quiet", "seed",
	                                      "repetition", "resume", NULL};
	for (int i = 0; ignored[i]; i++)
		if (strcmp(key, ignored[i]) == 0)
			return true;
	return false;
}

/* Operations per second of the load named `name` in run r; NaN when it is absent or failed. */
static double load_throughput(const struct result *r, const char *name)
{
	for (int i = 0; i < r->nloads; i++)
		if (strcmp(r->loads[i].name, name) == 0)
			return strcmp(r->loads[i].end, "failed") == 0 ? NAN : r->loads[i].ops_per_s;
	return NAN;
}

/* What a result is to the statistics: measured (samples of a noisy machine), a deterministic
 * simulation (exact figures of the model), or one whose workload draws random numbers (runs
 * differ by --sim-seed). The draws (docs/sim.md, Randomness): exec-dist uniform or exponential,
 * block-max above block, a sporadic thread's jitter; each a [thread] key recorded when given. */
enum kind { KIND_MEASURED, KIND_EXACT, KIND_SEEDED };

static int64_t setting_ns(const struct result_thread *t, const char *key)
{
	int64_t v = 0;
	const char *s = kvlist_get(&t->settings, key);
	return s && units_parse_duration(s, &v) == 0 ? v : 0;
}

static enum kind result_kind(const struct result *r)
{
	if (strcmp(r->command, "sim"))
		return KIND_MEASURED;
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		const char *dist = kvlist_get(&t->settings, "exec-dist");
		if ((dist && strcmp(dist, "fixed")) || setting_ns(t, "jitter") > 0 ||
		    setting_ns(t, "block-max") > setting_ns(t, "block"))
			return KIND_SEEDED;
	}
	return KIND_EXACT;
}

/* ---- what one probe thread (or all of them merged) measured in one run ---- */

struct tview {
	const struct hist *wake, *resp;
	uint64_t met, missed;
};

struct merged {            /* all probe threads of one run together */
	struct hist wake, resp;
	uint64_t met, missed;
};

/* What makes results repetitions of one cell (private to grouping). */
struct cell_key {
	struct kvlist identity;
	char *key;
};

struct ctx {
	struct compare *r;
	struct cell_key *keys;     /* per cell */
	struct merged *merged;     /* per run, when there are several threads */
	enum kind *kind;           /* per run: measured, exact or seeded (result_kind) */
	bool one_each;             /* every run has one probe thread: match them whatever their names */
};

static bool is_probe(const struct result_thread *t)
{
	/* real probes, simulated threads and watched applications (irt watch): the same metrics */
	return t->role[0] == 0 || strcmp(t->role, "probe") == 0 || strcmp(t->role, "sim") == 0 ||
	       strcmp(t->role, "watch") == 0;
}

static const struct result_thread *find_thread(const struct result *r, const char *name)
{
	for (int i = 0; i < r->nthreads; i++)
		if (is_probe(&r->threads[i]) && strcmp(r->threads[i].name, name) == 0)
			return &r->threads[i];
	return NULL;
}

static int probe_count(const struct result *r)
{
	int n = 0;
	for (int i = 0; i < r->nthreads; i++)
		n += is_probe(&r->threads[i]);
	return n;
}

static const struct result_thread *only_thread(const struct result *r)
{
	for (int i = 0; i < r->nthreads; i++)
		if (is_probe(&r->threads[i]))
			return &r->threads[i];
	return NULL;
}

static bool view(const struct ctx *c, int run, int thread, struct tview *v)
{
	if (thread == THREAD_ALL) {
		const struct merged *m = &c->merged[run];
		*v = (struct tview){&m->wake, &m->resp, m->met, m->missed};
		return true;
	}
	const struct result_thread *t = c->one_each ? only_thread(&c->r->results[run])
	                                            : find_thread(&c->r->results[run], c->r->threads[thread]);
	if (!t)
		return false;
	*v = (struct tview){&t->wake, &t->resp, t->deadlines_met, t->deadlines_missed};
	return true;
}

/* ---- small helpers ---- */

struct sbuf {
	char *s;
	size_t n, cap;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->n + (size_t)len + 1 > b->cap) {
		b->cap = (b->n + (size_t)len + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	b->n += (size_t)len;
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* What makes a run a repetition of a cell: command, machine, kernel, settings, probe threads. */
static void run_identity(const struct result *r, struct kvlist *id)
{
	char k[160];
	memset(id, 0, sizeof(*id));
	kvlist_set(id, "command", r->command);
	kvlist_set(id, "host", r->env.hostname);
	kvlist_set(id, "kernel", r->env.kernel);
	for (int i = 0; i < r->settings.n; i++)
		if (!compare_ignored_setting(r->settings.v[i].key))
			kvlist_set(id, r->settings.v[i].key, r->settings.v[i].value);
	for (int l = 0; l < r->nloads; l++) {
		snprintf(k, sizeof(k), "load.%s", r->loads[l].name);
		kvlist_set(id, k, r->loads[l].spec);
	}
	for (int t = 0; t < r->nthreads; t++) {
		const struct result_thread *th = &r->threads[t];
		if (!is_probe(th))
			continue;
		if (strcmp(th->role, "watch") == 0) {
			/* watched threads come and go by name (one may not wake in a run): what was
			 * watched identifies the run, the same selection in every thread */
			for (int i = 0; i < th->settings.n; i++) {
				snprintf(k, sizeof(k), "watch.%s", th->settings.v[i].key);
				kvlist_set(id, k, th->settings.v[i].value);
			}
			continue;
		}
		snprintf(k, sizeof(k), "%s", th->name);
		kvlist_set(id, k, "probe");
		for (int i = 0; i < th->settings.n; i++) {
			snprintf(k, sizeof(k), "%s.%s", th->name, th->settings.v[i].key);
			kvlist_set(id, k, th->settings.v[i].value);
		}
	}
}

static char *identity_key(const struct kvlist *id)
{
	struct kv *v = xcalloc((size_t)id->n, sizeof(*v));
	memcpy(v, id->v, sizeof(*v) * (size_t)id->n);
	qsort(v, (size_t)id->n, sizeof(*v), cmp_kv);
	struct sbuf b = {0};
	sb_add(&b, "%s", "");
	for (int i = 0; i < id->n; i++)
		sb_add(&b, "%s=%s\n", v[i].key, v[i].value);
	free(v);
	return b.s;
}

/* A sweep's own label of a cell ("cell=c1" of irt sweep, "sweep-cell=nice=5 ..." of irt sim):
 * it always differs, but says less than the settings it stands for. */
static bool cell_label_key(const char *key)
{
	return strcmp(key, "cell") == 0 || strcmp(key, "sweep-cell") == 0;
}

/* The order in which name_cells considers identity keys: machine first, then the loads (what
 * ran beside the probes is what a reader looks for, before options like warmup or placement
 * that differ along with it), then the other settings, a sweep's label last. */
static int key_rank(const char *key)
{
	if (strcmp(key, "command") == 0 || strcmp(key, "host") == 0 || strcmp(key, "kernel") == 0)
		return 0;
	if (strncmp(key, "load.", 5) == 0 || strcmp(key, "load") == 0)   /* "load": a sweep's, as it names it */
		return 1;
	return cell_label_key(key) ? 3 : 2;
}

static bool same_value(const struct ctx *c, int a, int b, const char *key)
{
	const char *v = kvlist_get(&c->keys[a].identity, key), *w = kvlist_get(&c->keys[b].identity, key);
	return !v == !w && (!v || strcmp(v, w) == 0);
}

/* A cell's name: the identity entries that tell the cells apart ("-" = absent), an irt sim
 * sweep's swept keys in the form its file wrote them (vm.quota=40%, where the settings hold the
 * resolved 400ms: the cells are told apart by what ran, named by what the user wrote). An entry is
 * named only when it separates cells the entries before it do not, so what follows from a
 * setting is left out (probe0.nice after nice, a quota resolved from the super period); loads
 * come before other settings, a sweep's label of the cell last, for cells nothing else tells
 * apart. */
static void name_cells(struct ctx *c)
{
	int n = c->r->ncells;
	struct kvlist keys = {0};   /* union of identity keys, by key_rank, then in order of appearance */
	for (int pass = 0; pass < 4; pass++)
		for (int k = 0; k < n; k++)
			for (int j = 0; j < c->keys[k].identity.n; j++)
				if (key_rank(c->keys[k].identity.v[j].key) == pass)
					kvlist_set(&keys, c->keys[k].identity.v[j].key, "");
	bool *shown = xcalloc((size_t)keys.n + 1, sizeof(bool));
	int *cls = xcalloc((size_t)n, sizeof(int)), *next = xcalloc((size_t)n, sizeof(int)), nclass = 1;
	for (int j = 0; j < keys.n && nclass < n; j++) {
		int m = 0;   /* the classes of cells equal in every shown entry and this one */
		for (int i = 0; i < n; i++) {
			next[i] = -1;
			for (int o = 0; o < i && next[i] < 0; o++)
				if (cls[o] == cls[i] && same_value(c, o, i, keys.v[j].key))
					next[i] = next[o];
			if (next[i] < 0)
				next[i] = m++;
		}
		if (m > nclass) {
			shown[j] = true;
			nclass = m;
			memcpy(cls, next, sizeof(int) * (size_t)n);
		}
	}
	for (int i = 0; i < n; i++) {
		struct compare_cell *cl = &c->r->cells[i];
		struct sbuf b = {0};
		struct kvlist written;   /* a simulated sweep's values as its file wrote them ("40%") */
		result_sweep_cell(&c->r->results[cl->runs[0]], &written);
		sb_add(&b, "%s", "");
		for (int j = 0; j < keys.n; j++)
			if (shown[j]) {
				const char *v = kvlist_get(&written, keys.v[j].key);
				if (!v)
					v = kvlist_get(&c->keys[i].identity, keys.v[j].key);
				sb_add(&b, "%s%s=%s", b.n ? " " : "", keys.v[j].key, v ? v : "-");
			}
		kvlist_free(&written);
		snprintf(cl->name, sizeof(cl->name), "%s", b.n ? b.s : c->r->results[cl->runs[0]].command);
		if (b.n >= sizeof(cl->name))
			memcpy(cl->name + sizeof(cl->name) - 4, "...", 4);
		free(b.s);
	}
	free(shown);
	free(cls);
	free(next);
	kvlist_free(&keys);
}

void compare_cell_letter(int k, char *buf, size_t len)
{
	if (k < 26)
		snprintf(buf, len, "%c", 'A' + k);
	else
		snprintf(buf, len, "C%d", k + 1);
}

static void group_cells(struct ctx *c)
{
	c->r->cells = xcalloc((size_t)c->r->nresults, sizeof(*c->r->cells));
	c->keys = xcalloc((size_t)c->r->nresults, sizeof(*c->keys));
	for (int i = 0; i < c->r->nresults; i++) {
		struct kvlist id;
		run_identity(&c->r->results[i], &id);
		char *key = identity_key(&id);
		int k;
		for (k = 0; k < c->r->ncells; k++)
			if (strcmp(c->keys[k].key, key) == 0)
				break;
		struct compare_cell *cl = &c->r->cells[k];
		if (k == c->r->ncells) {
			c->r->ncells++;
			c->keys[k].key = key;
			c->keys[k].identity = id;
			cl->runs = xcalloc((size_t)c->r->nresults, sizeof(int));
			compare_cell_letter(k, cl->id, sizeof(cl->id));
		} else {
			free(key);
			kvlist_free(&id);
		}
		cl->runs[cl->nruns++] = i;
	}
	name_cells(c);
}

static void free_keys(struct ctx *c)
{
	for (int k = 0; k < c->r->ncells; k++) {
		free(c->keys[k].key);
		kvlist_free(&c->keys[k].identity);
	}
	free(c->keys);
	c->keys = NULL;
}

void compare_cell_names(const struct result *const *rs, int n, char (*names)[COMPARE_NAME_LEN])
{
	struct result *copy = xcalloc((size_t)n + 1, sizeof(*copy));
	for (int i = 0; i < n; i++)
		copy[i] = *rs[i];   /* shallow: grouping only reads them */
	struct compare r = {.results = copy, .nresults = n};
	struct ctx c = {.r = &r};
	group_cells(&c);
	free_keys(&c);
	for (int k = 0; k < r.ncells; k++)
		for (int j = 0; j < r.cells[k].nruns; j++)
			snprintf(names[r.cells[k].runs[j]], COMPARE_NAME_LEN, "%s", r.cells[k].name);
	compare_free(&r);
	free(copy);
}

static int choose_baseline(struct ctx *c, const char *want, struct err *e)
{
	c->r->base = 0;
	if (!want || !*want)
		return 0;
	for (int k = 0; k < c->r->ncells; k++) {
		const struct compare_cell *cl = &c->r->cells[k];
		if (strcmp(cl->id, want) == 0 || strcmp(cl->name, want) == 0)
			return c->r->base = k, 0;
		for (int j = 0; j < cl->nruns; j++)
			if (strcmp(c->r->paths[cl->runs[j]], want) == 0)
				return c->r->base = k, 0;
	}
	struct sbuf b = {0};
	for (int k = 0; k < c->r->ncells && k < 6; k++)
		sb_add(&b, "%s%s = %s", k ? ", " : "", c->r->cells[k].id, c->r->cells[k].name);
	err_set(e, EXIT_USAGE, "--baseline: '%s' is neither one of the files nor a cell (cells: %s%s)",
	        want, b.s, c->r->ncells > 6 ? ", ..." : "");
	free(b.s);
	return -1;
}

static void add_name(char ***names, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return;
	*names = xreallocarray(*names, (size_t)*n + 1, sizeof(char *));
	(*names)[(*n)++] = xstrdup(name);
}

/* Names of the probe threads and loads over all runs, the baseline's first. */
static void collect_threads(struct ctx *c)
{
	for (int pass = 0; pass < c->r->ncells; pass++) {
		const struct compare_cell *cl = &c->r->cells[(c->r->base + pass) % c->r->ncells];
		for (int j = 0; j < cl->nruns; j++) {
			const struct result *r = &c->r->results[cl->runs[j]];
			for (int l = 0; l < r->nloads; l++)
				add_name(&c->r->loads, &c->r->nloads, r->loads[l].name);
		}
	}
	c->r->threads = xcalloc((size_t)1, sizeof(char *));
	c->one_each = true;
	for (int i = 0; i < c->r->nresults; i++)
		c->one_each &= probe_count(&c->r->results[i]) == 1;
	if (c->one_each) {
		c->r->threads[0] = xstrdup(only_thread(&c->r->results[c->r->cells[c->r->base].runs[0]])->name);
		c->r->nthreads = 1;
		return;
	}
	for (int pass = 0; pass < c->r->ncells; pass++) {
		const struct compare_cell *cl = &c->r->cells[(c->r->base + pass) % c->r->ncells];
		for (int j = 0; j < cl->nruns; j++) {
			const struct result *r = &c->r->results[cl->runs[j]];
			for (int t = 0; t < r->nthreads; t++)
				if (is_probe(&r->threads[t]))
					add_name(&c->r->threads, &c->r->nthreads, r->threads[t].name);
		}
	}
	if (c->r->nthreads > 1) {
		c->merged = xcalloc((size_t)c->r->nresults, sizeof(*c->merged));
		for (int i = 0; i < c->r->nresults; i++) {
			struct merged *m = &c->merged[i];
			hist_init(&m->wake);
			hist_init(&m->resp);
			for (int t = 0; t < c->r->results[i].nthreads; t++) {
				const struct result_thread *th = &c->r->results[i].threads[t];
				if (!is_probe(th))
					continue;
				hist_merge(&m->wake, &th->wake);
				hist_merge(&m->resp, &th->resp);
				m->met += th->deadlines_met;
				m->missed += th->deadlines_missed;
			}
		}
	}
}

/* ---- one metric of one thread in one cell ---- */

struct column {
	double *v;
	const struct hist **hists;   /* per repetition, for the within-run variance */
	struct side side;
};

/* A cell's runs in a canonical order (by value; equal values by their histograms), so that
 * the bootstrap, which draws runs by index, gives the same CIs whatever order the files were
 * named in (`irt compare b.json a.json` as `a.json b.json`). */
struct rep {
	double v;
	const struct hist *h;
};

static int cmp_rep(const void *a, const void *b)
{
	const struct rep *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (!x->h || !y->h)
		return (x->h != NULL) - (y->h != NULL);
	if (x->h->count != y->h->count)
		return x->h->count < y->h->count ? -1 : 1;
	if (x->h->sum != y->h->sum)
		return x->h->sum < y->h->sum ? -1 : 1;
	return (x->h->max > y->h->max) - (x->h->max < y->h->max);
}

static void sort_reps(struct column *col)
{
	int n = col->side.nreps;
	struct rep *r = xcalloc((size_t)n + 1, sizeof(*r));
	for (int i = 0; i < n; i++)
		r[i] = (struct rep){ col->v[i], col->hists[i] };
	qsort(r, (size_t)n, sizeof(*r), cmp_rep);
	for (int i = 0; i < n; i++) {
		col->v[i] = r[i].v;
		col->hists[i] = r[i].h;
	}
	free(r);
}

/* thread: index into c->r->threads or THREAD_ALL; load >= 0: index into c->r->loads instead */
static void gather(const struct ctx *c, int cell, int thread, int load, const struct cmetric *cm,
                   struct column *col)
{
	const struct compare_cell *cl = &c->r->cells[cell];
	col->v = xcalloc((size_t)cl->nruns, sizeof(double));
	col->hists = xcalloc((size_t)cl->nruns, sizeof(*col->hists));
	struct side *s = &col->side;
	memset(s, 0, sizeof(*s));
	s->reps = col->v;
	s->nsamples = UINT64_MAX;
	s->exact = cl->nruns > 0;
	for (int j = 0; j < cl->nruns; j++) {
		int run = cl->runs[j];
		s->exact &= c->kind[run] == KIND_EXACT;
		s->seeded |= c->kind[run] == KIND_SEEDED;
		double v = NAN;
		uint64_t ns = 0, hits = 0;
		const struct hist *h = NULL;
		struct tview tv;
		if (cm->src == SRC_THROUGHPUT) {
			if (load >= 0)
				v = load_throughput(&c->r->results[run], c->r->loads[load]);
		} else if (view(c, run, thread, &tv)) {
			if (cm->src == SRC_DEADLINE) {
				ns = tv.met + tv.missed;
				hits = tv.met;
				v = ns ? 100.0 * (double)tv.met / (double)ns : NAN;
			} else {
				h = cm->src == SRC_WAKE ? tv.wake : tv.resp;
				ns = h->count;
				if (h->count)
					v = cm->m.kind == STAT_MAX ? (double)h->max
					                           : (double)hist_percentile(h, cm->m.pct);
			}
		}
		if (isnan(v))
			continue;
		col->hists[s->nreps] = h;
		col->v[s->nreps++] = v;
		if (ns < s->nsamples)
			s->nsamples = ns;
		s->hist = h;
		s->hits = hits;
	}
	if (s->nsamples == UINT64_MAX)
		s->nsamples = 0;
	sort_reps(col);
	if (s->nreps != 1) {   /* a single run's distribution is resampled as such */
		s->hist = NULL;
		s->hits = 0;
	}
	if (cm->m.kind == STAT_PERCENTILE && s->nreps > 1)   /* repetitions: runs, then within them */
		s->hists = col->hists;
}

/* ---- formatting ---- */

static void fmt_value(const struct cmetric *cm, double v, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	switch (cm->src) {
	case SRC_WAKE:
	case SRC_RESP:
		units_human_duration(buf, len, (int64_t)llround(v));
		return;
	case SRC_DEADLINE:
		snprintf(buf, len, "%.4g%%", v);
		return;
	case SRC_THROUGHPUT:
		snprintf(buf, len, "%.4g", v);
		return;
	}
}

static void fmt_ratio(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%.3g", v);
}

#define NCOL 8
struct table {
	char (*cell)[NCOL][256];
	int n, cap;
};

static void table_row(struct table *t, const char *const cols[NCOL])
{
	ARRAY_GROW(t->cell, t->n + 1, t->cap);
	for (int i = 0; i < NCOL; i++)   /* a long one is not cut mid-character */
		text_fit(t->cell[t->n][i], sizeof(t->cell[t->n][i]), cols[i] ? cols[i] : "", 0, TEXT_LEFT);
	t->n++;
}

static void table_print(const struct table *t, FILE *out)
{
	int w[NCOL] = {0};
	static const bool right[NCOL] = {false, false, true, true, false, true, false, false};
	for (int r = 0; r < t->n; r++)
		for (int i = 0; i < NCOL; i++) {
			int l = text_width(t->cell[r][i]);
			if (l > w[i])
				w[i] = l;
		}
	for (int r = 0; r < t->n; r++) {
		struct sbuf b = {0};
		char c[1024];   /* a cell (255 bytes) padded to its column */
		for (int i = 0; i < NCOL; i++) {
			if (i == NCOL - 1)
				sb_add(&b, "%s", t->cell[r][i]);
			else
				sb_add(&b, "%s  ", text_fit(c, sizeof(c), t->cell[r][i], w[i], right[i] ? TEXT_RIGHT : TEXT_LEFT));
		}
		while (b.n && b.s[b.n - 1] == ' ')
			b.s[--b.n] = 0;
		fprintf(out, "  %s\n", b.s);
		free(b.s);
	}
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jci(const struct ci *ci)
{
	json_t *a = json_array();
	json_array_append_new(a, jnum(ci->lo));
	json_array_append_new(a, jnum(ci->hi));
	return a;
}

static int write_json(json_t *root, const char *path, struct err *e)
{
	if (strcmp(path, "-") == 0) {
		json_dumpf(root, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		return 0;
	}
	return write_atomic_json(path, root, JSON_INDENT(2), e);
}

static void csv_field(FILE *f, json_t *v)
{
	if (json_is_string(v)) {
		const char *t = json_string_value(v);
		if (strpbrk(t, ",\"\n")) {
			fputc('"', f);
			for (; *t; t++) {
				if (*t == '"')
					fputc('"', f);
				fputc(*t, f);
			}
			fputc('"', f);
		} else {
			fputs(t, f);
		}
	} else if (json_is_integer(v)) {
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	} else if (json_is_real(v)) {
		fprintf(f, "%.17g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "true" : "false", f);
	}   /* null: empty */
}

/* ---- the comparison ---- */

/* What one operation of a load is ("loops"), from the first run that has it. */
static const char *load_unit(const struct compare *r, int load)
{
	for (int i = 0; i < r->nresults; i++)
		for (int l = 0; l < r->results[i].nloads; l++)
			if (strcmp(r->results[i].loads[l].name, r->loads[load]) == 0 && r->results[i].loads[l].ops_unit[0])
				return r->results[i].loads[l].ops_unit;
	return "ops";
}

static struct compare_row *add_row(struct compare *r)
{
	ARRAY_GROW(r->rows, r->nrows + 1, r->rows_cap);
	struct compare_row *row = &r->rows[r->nrows++];
	memset(row, 0, sizeof(*row));
	return row;
}

/* Every cell is compared with the baseline at alpha, so with many cells one would pass by
 * chance. Holm's step-down holds each metric's family (its rows from `first`: the cells against
 * the baseline) to alpha: a cell whose level falls below alpha is compared again at its level,
 * and a verdict that changes says why. Exact simulations have no test and are no members. */
static void holm_block(struct compare *r, int first, const struct cmetric *cm,
                       const struct column *cols)
{
	int n = r->nrows - first;
	double *p = xcalloc((size_t)n + 1, sizeof(double)), *level = xcalloc((size_t)n + 1, sizeof(double));
	int m = 0;
	for (int i = 0; i < n; i++) {
		const struct compare_row *row = &r->rows[first + i];
		p[i] = row->cell == r->base || row->exact ? NAN : row->cmp.p;
		m += !isnan(p[i]);
	}
	stats_holm(p, n, r->params.alpha, level);
	for (int i = 0; i < n; i++) {
		struct compare_row *row = &r->rows[first + i];
		if (!(level[i] < r->params.alpha))
			continue;
		enum verdict was = row->cmp.verdict;
		struct stats_params q = r->params;
		q.alpha = level[i];
		stats_compare(&cm->m, &cols[r->base].side, &cols[row->cell].side, &q, &row->cmp);
		if (row->cmp.verdict == was)
			continue;
		char why[sizeof(row->cmp.why)];
		snprintf(why, sizeof(why), "%s", row->cmp.why);
		snprintf(row->cmp.why, sizeof(row->cmp.why), "Holm over %d cells: p <= %.2g needed%s%.140s", m,
		         level[i], why[0] ? "; " : "", why);
	}
	free(p);
	free(level);
}

/* The rows of one subject: a probe thread's latency metrics (thread; load < 0), or a load's
 * throughput (load >= 0), every cell against the baseline, the baseline first. */
static void compare_block(struct ctx *c, int thread, int load)
{
	struct compare *r = c->r;
	for (int mi = 0; mi < NMETRICS; mi++) {
		const struct cmetric *cm = &cmetrics[mi];
		if ((cm->src == SRC_THROUGHPUT) != (load >= 0))
			continue;
		struct column *cols = xcalloc((size_t)r->ncells, sizeof(*cols));
		int any = 0, first = r->nrows;
		for (int k = 0; k < r->ncells; k++) {
			gather(c, k, thread, load, cm, &cols[k]);
			any += cols[k].side.nreps > 0;
		}
		for (int pass = 0; any && pass < r->ncells; pass++) {
			int k = (r->base + pass) % r->ncells;
			const struct side *s = &cols[k].side, *b = &cols[r->base].side;
			struct compare_row *row = add_row(r);
			row->thread = thread;
			row->load = load;
			row->metric = cm->id;
			snprintf(row->label, sizeof(row->label), "%s", metric_label(r, cm));
			if (load >= 0)
				snprintf(row->label, sizeof(row->label), "%.40s %.32s/s", r->loads[load], load_unit(r, load));
			row->first = pass == 0;
			row->cell = k;
			row->runs = s->nreps;
			row->samples = s->nsamples;
			stats_summarize(&cm->m, s, &r->params, &row->summary);
			row->exact = b->exact && s->exact;
			if (k == r->base) {
				row->cmp.verdict = VERDICT_NONE;
				row->cmp.ratio.est = row->cmp.ratio.lo = row->cmp.ratio.hi = row->cmp.p = NAN;
			} else {
				stats_compare(&cm->m, b, s, &r->params, &row->cmp);
				if (row->exact)
					r->any_exact = true;
				else if (stats_single_run(b, s))
					r->any_single = true;
				r->any_seeded |= b->seeded || s->seeded;
			}
		}
		if (any)
			holm_block(r, first, cm, cols);
		for (int k = 0; k < r->ncells; k++) {
			free(cols[k].v);
			free(cols[k].hists);
		}
		free(cols);
	}
}

/* The candidate: per cell the ranking metric (from the first thread block) and the lowest
 * throughput ratio to the baseline over all loads; the lowest qualifying cell, the front. */
static void recommend(struct compare *r, const struct report_cfg *cfg)
{
	const char *id = cmetrics[cfg->metric].id;
	int first = r->nthreads > 1 ? COMPARE_ALL_THREADS : 0;
	struct comparison *cmps = xcalloc((size_t)r->ncells, sizeof(*cmps));
	r->lat = xcalloc((size_t)r->ncells, sizeof(double));
	r->thr = xcalloc((size_t)r->ncells, sizeof(double));
	for (int k = 0; k < r->ncells; k++)
		r->lat[k] = r->thr[k] = NAN;
	for (int k = 0; k < r->ncells && r->nloads; k++)
		r->thr[k] = INFINITY;
	for (int i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];
		if (row->load < 0 && row->thread == first && strcmp(row->metric, id) == 0) {
			r->lat[row->cell] = row->summary.est;
			cmps[row->cell] = row->cmp;
		}
		if (row->load >= 0) {   /* NaN (load missing or failed) sticks */
			double x = row->cell == r->base ? 1.0 : row->cmp.ratio.est;
			if (isnan(x) || isnan(r->thr[row->cell]))
				r->thr[row->cell] = NAN;
			else if (x < r->thr[row->cell])
				r->thr[row->cell] = x;
		}
	}
	for (int k = 0; k < r->ncells; k++) {
		r->have_thr |= !isnan(r->thr[k]);
		r->have_lat |= !isnan(r->lat[k]);
	}
	r->min_throughput = (double)cfg->min_throughput / 1e6;
	r->best = stats_recommend(r->lat, r->have_thr ? r->thr : NULL, r->ncells, r->base, r->min_throughput);
	if (r->best >= 0)
		r->best_cmp = cmps[r->best];
	r->better = r->best >= 0 && r->best != r->base && r->best_cmp.verdict == VERDICT_BETTER;
	if (r->have_thr && r->have_lat) {
		r->pareto = xcalloc((size_t)r->ncells, sizeof(bool));
		stats_pareto(r->lat, r->thr, r->ncells, r->pareto);
	}
	free(cmps);
}

/* Conditions (PM QoS, idle states, ...) that differ between cells move latency by themselves:
 * the verdicts may be about them, not about what the cells vary. */
static void find_unlike_conditions(struct compare *r)
{
	const struct result **rs = xcalloc((size_t)r->nresults, sizeof(*rs));
	const char **labels = xcalloc((size_t)r->nresults, sizeof(*labels));
	int n = 0;
	for (int k = 0; k < r->ncells; k++)
		for (int j = 0; j < r->cells[k].nruns; j++) {
			rs[n] = &r->results[r->cells[k].runs[j]];
			labels[n++] = r->cells[k].id;
		}
	cond_differences(rs, labels, n, true, &r->conditions);
	free(rs);
	free(labels);
}

/* The same run given twice (the same file, or a copy: result_same_run)
 * is counted twice, which narrows every interval; said once per extra copy, not refused (comparing
 * a file with itself is a quick check of a result). */
static void warn_same_runs(const struct result *r, const char *const *paths, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (r[i].start_realtime_ns && result_same_run(&r[i], &r[j])) {
				char *a = err_escape_dup(paths[i]), *b = err_escape_dup(paths[j]);   /* names from a listing */
				fprintf(stderr, "irt: warning: %s and %s hold the same run: it counts twice\n", a, b);
				free(a);
				free(b);
				break;   /* one line per extra copy: a later twin pairs with j in turn */
			}
}

int compare_results(const struct result *results, const char *const *paths, int n,
                    const struct report_cfg *cfg, uint64_t seed, struct compare *r, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->results = results;
	r->paths = paths;
	r->nresults = n;
	r->best = -1;
	stats_params_default(&r->params);
	r->params.resamples = (int)cfg->resamples;
	r->params.seed = seed;
	r->params.floor_single = (double)cfg->single_run_floor / 1e6;
	r->params.margin = (double)cfg->margin / 1e6;
	if (cfg->look_alpha > 0)
		r->params.alpha = cfg->look_alpha;
	r->runq = n > 0;
	for (int i = 0; i < n; i++)
		r->runq &= results[i].runq.present;
	struct ctx c = {.r = r};
	group_cells(&c);
	free_keys(&c);
	if (choose_baseline(&c, cfg->baseline, e) < 0) {
		compare_free(r);
		return -1;
	}
	collect_threads(&c);
	find_unlike_conditions(r);
	c.kind = xcalloc((size_t)n + 1, sizeof(*c.kind));
	for (int i = 0; i < n; i++)
		c.kind[i] = result_kind(&results[i]);
	for (int th = r->nthreads > 1 ? COMPARE_ALL_THREADS : 0; th < r->nthreads; th++)
		compare_block(&c, th, -1);
	for (int l = 0; l < r->nloads; l++)
		compare_block(&c, 0, l);
	free(c.merged);
	free(c.kind);
	r->metric = cfg->metric;   /* set with one cell too: a fleet judges every machine by it */
	if (r->ncells > 1)
		recommend(r, cfg);
	return 0;
}

void compare_free(struct compare *r)
{
	for (int k = 0; k < r->ncells; k++)
		free(r->cells[k].runs);
	free(r->cells);
	for (int i = 0; i < r->nthreads; i++)
		free(r->threads[i]);
	free(r->threads);
	for (int i = 0; i < r->nloads; i++)
		free(r->loads[i]);
	free(r->loads);
	free(r->rows);
	free(r->lat);
	free(r->thr);
	free(r->pareto);
	strlist_free(&r->conditions);
	memset(r, 0, sizeof(*r));
}

const char *compare_metric_id(int rank)
{
	return cmetrics[rank].id;
}

/* ---- printers ---- */

static void print_rows(const struct compare *r, int thread, bool loads, FILE *out)
{
	struct table t = {0};
	const char *head[NCOL] = {loads ? "load" : "metric", "cell", "runs", "median", "95% CI", "ratio", "95% CI",
	                          "verdict"};
	table_row(&t, head);
	for (int i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];
		if (loads ? row->load < 0 : row->load >= 0 || row->thread != thread)
			continue;
		const struct cmetric *cm = &cmetrics[0];
		while (strcmp(cm->id, row->metric))
			cm++;
		char med[32], ci[80] = "", lo[32], hi[32], ratio[32] = "", rci[80] = "", verdict[240], runs[16];
		fmt_value(cm, row->summary.est, med, sizeof(med));
		fmt_value(cm, row->summary.lo, lo, sizeof(lo));
		fmt_value(cm, row->summary.hi, hi, sizeof(hi));
		if (!isnan(row->summary.lo))
			snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		snprintf(runs, sizeof(runs), "%d", row->runs);
		const struct comparison *cmp = &row->cmp;
		if (row->cell == r->base) {
			snprintf(verdict, sizeof(verdict), "baseline");
		} else {
			fmt_ratio(cmp->ratio.est, ratio, sizeof(ratio));
			fmt_ratio(cmp->ratio.lo, lo, sizeof(lo));
			fmt_ratio(cmp->ratio.hi, hi, sizeof(hi));
			if (!isnan(cmp->ratio.lo))
				snprintf(rci, sizeof(rci), "[%s, %s]", lo, hi);
			snprintf(verdict, sizeof(verdict), "%s%s%s%s", verdict_name(cmp->verdict), cmp->why[0] ? " (" : "",
			         cmp->why, cmp->why[0] ? ")" : "");
		}
		const char *cols[NCOL] = {row->first ? row->label : "", r->cells[row->cell].id, runs, med, ci, ratio, rci,
		                          verdict};
		table_row(&t, cols);
	}
	table_print(&t, out);
	free(t.cell);
}

static void print_recommendation(const struct compare *r, FILE *out)
{
	const char *name = metric_label(r, &cmetrics[r->metric]);
	char pct[32];
	units_format_percent(pct, sizeof(pct), (int64_t)llround(r->min_throughput * 1e6));
	const char *scope = r->nthreads > 1 ? " of all probe threads" : "";
	if (r->have_thr)
		fprintf(out, "\nrecommendation: lowest %s%s among cells keeping >= %s of the baseline's\n"
		             "throughput in every load\n", name, scope, pct);
	else
		fprintf(out, "\nrecommendation: lowest %s%s (no load throughput in these results:\n"
		             "no throughput condition, no Pareto front)\n", name, scope);
	int best = r->best;
	const struct compare_cell *bc = best >= 0 ? &r->cells[best] : NULL, *base = &r->cells[r->base];
	char ratio[32], lo[32], hi[32], ci[80] = "";
	if (bc && best != r->base) {
		fmt_ratio(r->best_cmp.ratio.est, ratio, sizeof(ratio));
		fmt_ratio(r->best_cmp.ratio.lo, lo, sizeof(lo));
		fmt_ratio(r->best_cmp.ratio.hi, hi, sizeof(hi));
		if (!isnan(r->best_cmp.ratio.lo) || !isnan(r->best_cmp.ratio.hi))   /* exact values have none */
			snprintf(ci, sizeof(ci), " [%s, %s]", lo, hi);
	}
	if (r->better && r->have_thr)
		fprintf(out, "  %s (%s): %sx the baseline%s, better; throughput %.3gx\n", bc->id, bc->name, ratio, ci,
		        r->thr[best]);
	else if (r->better)
		fprintf(out, "  %s (%s): %sx the baseline%s, better\n", bc->id, bc->name, ratio, ci);
	else if (bc && best != r->base)
		fprintf(out, "  keep the baseline %s: the lowest, %s (%s), is %sx%s: %s\n", base->id, bc->id, bc->name,
		        ratio, ci, verdict_name(r->best_cmp.verdict));
	else if (bc)
		fprintf(out, "  keep the baseline %s: no cell has a lower %s\n", base->id, name);
	else if (r->have_lat)
		fprintf(out, "  none: no cell with a %s keeps enough throughput\n", name);
	else
		fprintf(out, "  none: no cell has a %s\n", name);
	if (r->pareto) {
		fprintf(out, "Pareto front (%s vs lowest throughput ratio):", name);
		for (int k = 0; k < r->ncells; k++)
			if (r->pareto[k])
				fprintf(out, " %s", r->cells[k].id);
		fputc('\n', out);
	}
}

void compare_print(const struct compare *r, FILE *out)
{
	int n = r->nresults;
	fprintf(out, "%d result%s, %d cell%s, baseline %s\n", n, n == 1 ? "" : "s", r->ncells, r->ncells == 1 ? "" : "s",
	        r->cells[r->base].id);
	for (int k = 0; k < r->ncells; k++) {
		const struct compare_cell *cl = &r->cells[k];
		fprintf(out, "  %s  %s  (%d run%s:", cl->id, cl->name, cl->nruns, cl->nruns == 1 ? "" : "s");
		for (int j = 0; j < cl->nruns && j < 3; j++) {
			char *shown = err_escape_dup(r->paths[cl->runs[j]]);   /* another user names the files of a directory */
			fprintf(out, " %s", shown);
			free(shown);
		}
		fprintf(out, "%s)\n", cl->nruns > 3 ? " ..." : "");
	}
	for (int i = 0; i < r->conditions.n; i++)
		fprintf(out, "%s\n", r->conditions.v[i]);
	for (int th = r->nthreads > 1 ? COMPARE_ALL_THREADS : 0; th < r->nthreads; th++) {
		const char *name = th == COMPARE_ALL_THREADS ? "all probe threads" : r->threads[th];
		int rows = 0;
		for (int i = 0; i < r->nrows; i++)
			rows += r->rows[i].load < 0 && r->rows[i].thread == th;
		if (!rows) {   /* a simulated cpu-bound thread: its table was a header alone */
			fprintf(out, "\n%s: no wake-up samples in any result (a thread without releases), nothing to compare\n",
			        name);
			continue;
		}
		fprintf(out, "\n%s\n", name);
		print_rows(r, th, false, out);
	}
	if (r->nloads) {
		fprintf(out, "\nloads (operations per second)\n");
		print_rows(r, 0, true, out);
	}
	if (r->any_exact)
		fprintf(out, "\nsimulation: deterministic (the workload draws no random numbers), so its figures are exact\n"
		             "for the model: verdicts compare the values themselves (no CI, no test), a difference is the\n"
		             "model's, not noise, and repeating a run gives the same numbers.\n");
	if (r->any_single && r->any_seeded && !(r->params.floor_single > 0))
		fprintf(out, "\nsimulation with random draws (exec-dist, block-max, jitter): one seed per cell shows\n"
		             "nothing of how seeds differ, so no verdicts; repeat each cell with other --sim-seed values.\n");
	else if (r->any_single && !(r->params.floor_single > 0))
		fprintf(out, "\nsingle runs: the CIs cover the samples within each run, not how runs of one setting\n"
		             "differ, so no verdicts (repeat runs, or accept a floor with --single-run-floor).\n");
	else if (r->any_single)
		fprintf(out, "\nsingle runs: the CIs cover the samples within each run, not how runs of one setting\n"
		             "differ; verdicts need a difference beyond --single-run-floor %.0f%%.\n",
		        100 * r->params.floor_single);
	if (r->ncells > 1)
		print_recommendation(r, out);
}

/* A row as JSON; the CSV has the same fields. */
static json_t *row_json(const struct compare *r, const struct compare_row *row)
{
	json_t *o = json_object();
	if (row->load >= 0)
		json_object_set_new(o, "load", json_string(r->loads[row->load]));
	else
		json_object_set_new(o, "thread", json_string(row->thread == COMPARE_ALL_THREADS ? "all"
		                                                                                 : r->threads[row->thread]));
	json_object_set_new(o, "metric", json_string(row->metric));
	json_object_set_new(o, "cell", json_string(r->cells[row->cell].id));
	json_object_set_new(o, "runs", json_integer(row->runs));
	json_object_set_new(o, "samples", json_integer((json_int_t)row->samples));
	json_object_set_new(o, "median", jnum(row->summary.est));
	json_object_set_new(o, "ci", jci(&row->summary));
	json_object_set_new(o, "ratio", jnum(row->cmp.ratio.est));
	json_object_set_new(o, "ratio_ci", jci(&row->cmp.ratio));
	json_object_set_new(o, "p", jnum(row->cmp.p));
	json_object_set_new(o, "verdict", json_string(verdict_name(row->cmp.verdict)));
	json_object_set_new(o, "why", json_string(row->cmp.why));
	json_object_set_new(o, "more_runs", row->cmp.more_runs > 0 ? json_integer(row->cmp.more_runs) : json_null());
	json_object_set_new(o, "exact", json_boolean(row->exact));
	return o;
}

static json_t *recommendation_json(const struct compare *r)
{
	json_t *jr = json_object();
	json_object_set_new(jr, "metric", json_string(cmetrics[r->metric].id));
	json_object_set_new(jr, "min_throughput", json_real(r->min_throughput));
	json_object_set_new(jr, "cell", json_string(r->cells[r->better ? r->best : r->base].id));
	json_object_set_new(jr, "lowest", r->best >= 0 ? json_string(r->cells[r->best].id) : json_null());
	json_object_set_new(jr, "verdict", json_string(r->best >= 0 && r->best != r->base ? verdict_name(r->best_cmp.verdict)
	                                                                                 : "baseline"));
	json_t *jt = json_object();   /* per cell: lowest throughput ratio to the baseline over the loads */
	for (int k = 0; k < r->ncells && r->have_thr; k++)
		json_object_set_new(jt, r->cells[k].id, jnum(r->thr[k]));
	json_object_set_new(jr, "throughput_ratio", jt);
	return jr;
}

int compare_write_json(const struct compare *r, const char *path, struct err *e)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("irt-compare/1"));
	json_t *jp = json_object();
	json_object_set_new(jp, "resamples", json_integer(r->params.resamples));
	json_object_set_new(jp, "seed", json_integer((json_int_t)r->params.seed));
	json_object_set_new(jp, "level", json_real(r->params.level));
	json_object_set_new(jp, "alpha", json_real(r->params.alpha));
	json_object_set_new(root, "params", jp);
	json_object_set_new(root, "baseline", json_string(r->cells[r->base].id));
	json_t *jcells = json_array();
	for (int k = 0; k < r->ncells; k++) {
		const struct compare_cell *cl = &r->cells[k];
		json_t *o = json_object(), *files = json_array();
		json_object_set_new(o, "id", json_string(cl->id));
		json_object_set_new(o, "name", json_string(cl->name));
		for (int j = 0; j < cl->nruns; j++)
			json_array_append_new(files, json_string(r->paths[cl->runs[j]]));
		json_object_set_new(o, "files", files);
		json_array_append_new(jcells, o);
	}
	json_object_set_new(root, "cells", jcells);
	json_t *jcond = json_array();
	for (int i = 0; i < r->conditions.n; i++)
		json_array_append_new(jcond, json_string(r->conditions.v[i]));
	json_object_set_new(root, "conditions_differ", jcond);
	json_t *jrows = json_array();
	for (int i = 0; i < r->nrows; i++)
		json_array_append_new(jrows, row_json(r, &r->rows[i]));
	json_object_set_new(root, "rows", jrows);
	if (r->ncells > 1) {
		json_object_set_new(root, "recommendation", recommendation_json(r));
		json_t *front = json_array();
		for (int k = 0; k < r->ncells && r->pareto; k++)
			if (r->pareto[k])
				json_array_append_new(front, json_string(r->cells[k].id));
		json_object_set_new(root, "pareto", front);
	}
	int rc = write_json(root, path, e);
	json_decref(root);
	return rc;
}

/* One line per row of the comparison; the same fields as the JSON rows. */
int compare_write_csv(const struct compare *r, const char *path, struct err *e)
{
	static const char *const cols[] = {"thread", "load", "metric", "cell", "runs", "samples", "median", "ci",
	                                   "ratio", "ratio_ci", "p", "verdict", "why", "more_runs", "exact", NULL};
	char *buf = NULL;
	size_t len = 0;
	bool to_stdout = strcmp(path, "-") == 0;
	FILE *f = to_stdout ? stdout : open_memstream(&buf, &len);
	if (!f)
		return err_set(e, EXIT_RUNTIME, "%s: cannot write (%s)", path, strerror(errno));
	fputs("thread,load,metric,cell,runs,samples,median,ci_lo,ci_hi,ratio,ratio_lo,ratio_hi,p,verdict,why,more_runs,exact\n", f);
	for (int i = 0; i < r->nrows; i++) {
		json_t *row = row_json(r, &r->rows[i]);
		for (int c = 0; cols[c]; c++) {
			json_t *v = json_object_get(row, cols[c]);
			if (c)
				fputc(',', f);
			if (json_is_array(v)) {
				csv_field(f, json_array_get(v, 0));
				fputc(',', f);
				csv_field(f, json_array_get(v, 1));
			} else {
				csv_field(f, v);
			}
		}
		fputc('\n', f);
		json_decref(row);
	}
	if (to_stdout) {   /* a failed write is said once, by main's stdout_status */
		fflush(f);
		return 0;
	}
	bool bad = ferror(f) != 0;
	bad |= fclose(f) != 0;
	int rc = bad ? err_set(e, EXIT_RUNTIME, "%s: cannot write (out of memory)", path)
		     : write_atomic(path, buf, len, e);
	free(buf);
	return rc;
}

/* irt compare DIR of a sweep: its runs (as its sweep.json lists them, opened as trust.h says)
 * compared as the sweep compared them into compare.json: against its baseline cell and on its
 * --metric, unless --baseline (also a cN) or --metric say otherwise. */
static int compare_sweep_dir(int dfd, const char *dir, struct report_cfg *cfg, bool metric_given, uint64_t seed,
                             struct expect_set *gate, struct sweep_runs *rs, struct compare *c, struct err *e)
{
	struct sweep_summary sum;
	if (sweep_runs_read_dir(rs, dfd, dir, &sum, e)) {
		sweep_summary_free(&sum);
		return -1;
	}
	const char *want = cfg->baseline[0] ? cfg->baseline : sum.baseline;
	for (int i = 0; i < rs->n; i++) {
		char id[16];
		snprintf(id, sizeof(id), "c%d", rs->cell_of[i]);
		if (strcmp(want, id) == 0) {   /* the cell's first run: the form compare resolves exactly */
			snprintf(cfg->baseline, sizeof(cfg->baseline), "%s", rs->paths[i]);
			break;
		}
	}
	for (int m = 0; !metric_given && m <= RANK_RESP_MAX; m++) {   /* "wake_p99" in sweep.json */
		char name[32];
		snprintf(name, sizeof(name), "%s", cmetrics[m].id);
		for (char *q = name; *q; q++)
			*q = *q == '-' ? '_' : *q;
		if (strcmp(name, sum.metric) == 0)
			cfg->metric = m;
	}
	sweep_summary_free(&sum);
	return sweep_runs_compare(rs, cfg, seed, gate, c, e);
}

/* Result file path (dir/NAME) read through directory fd dfd, by sweep_runs.h's one rule. */
static int read_in_dir(struct result *r, int dfd, const char *dir, const char *path, struct err *e)
{
	return sweep_dir_read_result(r, dfd, path + strlen(dir) + 1, path, e);
}

int cmd_compare(int argc, char **argv)
{
	struct err e = {0};
	struct opt_args a;
	struct global_cfg g;
	struct report_cfg cfg = {0};
	opt_defaults(SCOPE_REPORT, &cfg);
	struct expect_set gate = {0};
	if (opt_parse(argc, argv, SCOPE_GLOBAL | SCOPE_REPORT | SCOPE_GATE, &a, &e) || cli_globals(&a, &g, &e) ||
	    expect_set_from_args(&gate, &a, "compare", &e)) {
		opt_args_free(&a);
		expect_set_free(&gate);
		return err_print(&e);
	}
	for (int i = 0; i < a.n; i++)
		if ((a.items[i].opt->scope & SCOPE_REPORT) &&
		    opt_set(a.items[i].opt, &cfg, a.items[i].value, a.items[i].where, &e)) {
			opt_args_free(&a);
			expect_set_free(&gate);
			return err_print(&e);
		}
	if (a.npos < 1)
		err_set(&e, EXIT_USAGE, "compare: no result files (usage: irt compare A.json B.json ...)");
	else if (cfg.svg[0])
		err_set(&e, EXIT_USAGE, "--svg: irt compare draws no charts (irt report does)");
	else
		cli_check_outputs(&g, &e);
	if (e.code) {
		opt_args_free(&a);
		expect_set_free(&gate);
		return err_print(&e);
	}
	/* one directory: opened once, as a sweep's is read (sweep_runs.h), and told apart by what
	 * it holds; refused as a whole (a link, say) before anything in it is */
	struct stat st;
	int dfd = -1;
	if (a.npos == 1 && stat(a.pos[0], &st) == 0 && S_ISDIR(st.st_mode))
		dfd = sweep_dir_open(a.pos[0], "irt compare", &e);
	if (dfd >= 0 && compare_is_fleet(dfd)) {   /* a directory of machines */
		int rc = compare_fleet_cmd(dfd, a.pos[0], &cfg, &g, &gate, &e);
		close(dfd);
		opt_args_free(&a);
		expect_set_free(&gate);
		return e.code ? err_print(&e) : rc;
	}
	int n = a.npos, nread = 0, rc = EXIT_OK, got = -1;
	char **pos = a.pos;
	struct strlist files = {0};
	struct sweep_runs sw = {0};
	struct compare c;
	bool dir = dfd >= 0;
	if (dir && compare_dir_files(dfd, a.pos[0], &files, &e) > 0) {   /* result files in it (a sim fleet's cells) */
		dir = false;
		pos = files.v;
		n = files.n;
	}
	struct result *runs = xcalloc((size_t)n, sizeof(*runs));
	if (e.code) {
		/* sweep_dir_open or compare_dir_files refused the directory */
	} else if (dir) {   /* a sweep's directory */
		bool metric = false;
		for (int i = 0; i < a.n; i++)
			metric |= strcmp(a.items[i].opt->name, "metric") == 0;
		got = compare_sweep_dir(dfd, a.pos[0], &cfg, metric, (uint64_t)g.seed, &gate, &sw, &c, &e);
	} else {
		while (nread < n && (dfd < 0 ? result_read(&runs[nread], pos[nread], &e)
		                             : read_in_dir(&runs[nread], dfd, a.pos[0], pos[nread], &e)) == 0)
			nread++;
		warn_same_runs(runs, (const char *const *)pos, nread);
		if (nread == n)
			got = compare_results(runs, (const char *const *)pos, n, &cfg, (uint64_t)g.seed, &c, &e);
		for (int i = 0; got == 0 && i < gate.n; i++)
			compare_expect(&gate.v[i], &c, NULL, &gate.out[i]);
	}
	if (got == 0) {
		if (g.format == FORMAT_TABLE)
			compare_print(&c, stdout);
		if (g.json[0])
			compare_write_json(&c, g.json, &e);
		if (!e.code && g.csv[0])
			compare_write_csv(&c, g.csv, &e);
		if (!e.code)
			rc = expect_set_finish(&gate, 0, &e);
		compare_free(&c);
	}
	sweep_runs_free(&sw);
	for (int i = 0; i < nread; i++)
		result_free(&runs[i]);
	free(runs);
	strlist_free(&files);
	if (dfd >= 0)
		close(dfd);
	opt_args_free(&a);
	expect_set_free(&gate);
	return e.code ? err_print(&e) : rc;
}

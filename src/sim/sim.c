/* irt sim: load a workload, run its cells (in parallel on all cores), print and record. */
#include "sim/sim.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "expect.h"
#include "fleet.h"
#include "linux/signals.h"
#include "opt.h"
#include "out/html.h"
#include "out/openmetrics.h"
#include "out/report.h"
#include "sim/policy.h"
#include "sim/schedsim.h"
#include "sim/step.h"
#include "units.h"
#include "util.h"

static void set_sim_settings(const struct workload *w, long cell, const struct sim_cfg *sim, struct result *r)
{
	char buf[OPT_STRLEN];
	const struct policy_ops *ops = sim_policies[sim->policy];
	static const char *const common[] = {"policy", "duration", "end", "seed", "cpus", "cs-cost", NULL};
	kvlist_set(&r->settings, "workload", w->path);
	for (int i = 0; common[i]; i++)
		kvlist_set(&r->settings, common[i], opt_format(sim_opt_find(SCOPE_SIM, common[i]), sim, buf, sizeof(buf)));
	for (int i = 0; ops->sim_keys[i]; i++)
		kvlist_set(&r->settings, ops->sim_keys[i], opt_format(sim_opt_find(SCOPE_SIM, ops->sim_keys[i]), sim, buf, sizeof(buf)));
	workload_cell_label(w, cell, buf, sizeof(buf));
	if (buf[0])   /* a [sweep] whose every key the command line fixed is no sweep */
		kvlist_set(&r->settings, "sweep-cell", buf);
}

static void set_thread_settings(const struct wl_thread *wt, const struct sim_thread_spec *s, const char *policy,
                                struct result_thread *t)
{
	char buf[OPT_STRLEN];
	static const char *const always[] = {"type", "cpu", NULL};
	kvlist_set(&t->settings, "policy", policy);
	for (int i = 0; always[i]; i++) {
		const struct opt *o = sim_opt_find(SCOPE_SIM_THREAD, always[i]);
		if (s->cfg.type == SIM_JOBS && strcmp(always[i], "type") == 0)
			kvlist_set(&t->settings, "type", "schedsim");
		else
			kvlist_set(&t->settings, always[i], opt_format(o, &s->cfg, buf, sizeof(buf)));
	}
	for (int i = 0; i < wt->nkeys; i++) {
		const struct opt *o = sim_opt_find(SCOPE_SIM_THREAD, wt->keys[i].key);
		kvlist_set(&t->settings, sim_key_name(o), opt_format(o, &s->cfg, buf, sizeof(buf)));
	}
	if (s->cfg.period > 0)
		kvlist_set(&t->settings, "period", units_format_duration(buf, sizeof(buf), s->cfg.period));
	if (s->cfg.deadline > 0)
		kvlist_set(&t->settings, "deadline", units_format_duration(buf, sizeof(buf), s->cfg.deadline));
	if (s->cfg.quota_ns > 0)
		kvlist_set(&t->settings, "quota", units_format_duration(buf, sizeof(buf), s->cfg.quota_ns));
	if (s->cfg.type == SIM_JOBS) {
		snprintf(buf, sizeof(buf), "%d", s->njobs);
		kvlist_set(&t->settings, "schedsim-rows", buf);
	}
}

int sim_run_cell(const struct workload *w, long cell, struct result *r, struct sim_totals *tot,
                 struct ss_summary **sum, struct err *e)
{
	struct sim_totals mine = {0};
	if (!tot)
		tot = &mine;
	if (sum)
		*sum = NULL;
	struct sim_cfg sim;
	struct sim_thread_spec *specs = xcalloc((size_t)w->nthreads, sizeof(*specs));
	int rc = workload_cell(w, cell, &sim, specs, e);
	if (!rc)
		rc = result_init(r, "sim", w->nthreads, e);
	if (!rc) {
		const char *pname = sim_policies[sim.policy]->name;
		r->duration_ns = sim.duration;
		set_sim_settings(w, cell, &sim, r);
		for (int i = 0; i < w->nthreads; i++) {
			struct result_thread *t = &r->threads[i];
			snprintf(t->name, sizeof(t->name), "%s", specs[i].name);
			snprintf(t->role, sizeof(t->role), "sim");
			t->tid = i;
			set_thread_settings(&w->threads[i], &specs[i], pname, t);
		}
		const struct ss_policy *ss = sim_policies[sim.policy]->schedsim;
		if (ss) {
			struct ss_summary *m = xcalloc((size_t)w->nthreads + 1, sizeof(*m));
			rc = ssim_run(ss, &sim, specs, w->nthreads, r->threads, m, tot, &tot->end_ns, e);
			if (sum && !rc)
				*sum = m;
			else
				free(m);
		} else {
			rc = engine_run(&sim, specs, w->nthreads, r->threads, tot, NULL, NULL, e);
		}
		if (rc)
			err_prefix(e, "%s", w->path);
		else {
			r->duration_ns = tot->end_ns;   /* the end rule or a stop may end it earlier */
			r->interrupted = tot->interrupted;
		}
	}
	free(specs);
	return rc;
}

/* ---------------------------------------------------------------- table */

static const char *dur(char *buf, size_t len, int64_t ns)
{
	return units_human_duration(buf, len, ns);
}

void sim_print_table(FILE *f, const struct result *r)
{
	char c[32], d[32], x[32], y[32], nb[256];
	fprintf(f, "%-12s %-8s %7s %9s %9s %8s %9s %9s %9s %9s %7s %11s %9s\n", "thread", "policy", "share", "used",
	        "spent", "switches", "wake p50", "wake p99", "wake max", "resp p99", "dl met", "completion", "timer ok");
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		const char *pol = kvlist_get(&t->settings, "policy");
		struct report_sim_figs g;
		report_sim_figs(t, &g);
		bool lat = t->wake.count > 0;
		fprintf(f, "%s %-8s %7s %9s %9s %8s %9s %9s %9s %9s %7s %11s %9s\n",
		        text_fit(nb, sizeof(nb), t->name, 12, TEXT_LEFT), pol ? pol : "?", g.share, g.used, g.spent,
		        g.switches, lat ? dur(c, sizeof(c), hist_percentile(&t->wake, 50)) : "-",
		        lat ? dur(d, sizeof(d), hist_percentile(&t->wake, 99)) : "-",
		        lat ? dur(x, sizeof(x), t->wake.max) : "-",
		        t->resp.count ? dur(y, sizeof(y), hist_percentile(&t->resp, 99)) : "-", g.met, g.done, g.timer);
	}
}

/* schedsim's numbers, as its schedule.py computes them (integer us; share as a fraction). */
void sim_print_schedsim_table(FILE *f, const struct result *r, const struct ss_summary *m)
{
	fprintf(f, "%-12s %-20s %6s %10s %10s %10s %10s %10s %9s %7s\n", "thread", "policy", "jobs", "resp min",
	        "resp mean", "resp med", "resp max", "lat max", "share", "dropped");
	for (int i = 0; i < r->nthreads; i++) {
		const struct result_thread *t = &r->threads[i];
		const char *pol = kvlist_get(&t->settings, "policy");
		char share[32], nb[256];
		text_fit(nb, sizeof(nb), t->name, 12, TEXT_LEFT);
		if (isnan(m[i].share))
			snprintf(share, sizeof(share), "-");
		else
			snprintf(share, sizeof(share), "%f", m[i].share);
		if (m[i].jobs == 0)
			fprintf(f, "%s %-20s %6d %10s %10s %10s %10s %10s %9s %7" PRId64 "\n", nb, pol ? pol : "?", 0, "-",
			        "-", "-", "-", "-", share, m[i].dropped);
		else
			fprintf(f, "%s %-20s %6" PRId64 " %10" PRId64 " %10" PRId64 " %10" PRId64 " %10" PRId64 " %10" PRId64
			           " %9s %7" PRId64 "\n",
			        nb, pol ? pol : "?", m[i].jobs, m[i].resp_min, m[i].resp_mean, m[i].resp_median, m[i].resp_max,
			        m[i].lat_max, share, m[i].dropped);
	}
}

static void print_header(FILE *f, const struct result *r, const struct sim_totals *tot)
{
	char buf[64];
	fprintf(f, "%s:", kvlist_get(&r->settings, "workload"));
	const char *cell = kvlist_get(&r->settings, "sweep-cell");
	if (cell)
		fprintf(f, " [%s]", cell);
	for (int i = 0; i < r->settings.n; i++) {
		const char *k = r->settings.v[i].key;
		if (strcmp(k, "workload") && strcmp(k, "sweep-cell") && strcmp(k, "seed"))
			fprintf(f, " %s=%s", k, r->settings.v[i].value);
	}
	fprintf(f, "; %s simulated%s, %" PRIu64 " decisions\n", units_human_duration(buf, sizeof(buf), r->duration_ns),
	        r->interrupted ? " (interrupted)" : "", tot->decisions);
}

/* ---------------------------------------------------------------- cells in parallel */

struct cell_out {
	char *text;                 /* the rendered table */
	size_t len;
	struct err e;
	int rc;
	bool ran;                   /* in this shard */
	bool interrupted;           /* ran, and a stop ended it early (its result says so) */
	int64_t reached, planned;   /* its simulated duration, and the one asked */
	struct expect_outcome *gate;   /* one per --expect */
	struct result *r;           /* kept for the sweep's one document (one_document) */
};

struct pool {
	const struct workload *w;
	const struct global_cfg *g;
	const struct expect_set *gate;
	int shard, shards;          /* --shard I/N: 0-based index and count */
	const char *cmdline;
	struct cell_out *outs;
	long ncells, next;
	int exited;                 /* workers that returned */
	pthread_mutex_t lock;
	pthread_cond_t exit_cv;     /* signalled as each worker returns */
};

/* Text, HTML and OpenMetrics are documents: a sweep prints one over all its cells, after them. */
static bool one_document(const struct pool *p)
{
	int f = p->g->format;
	return p->ncells > 1 && (f == FORMAT_TEXT || f == FORMAT_HTML || f == FORMAT_OPENMETRICS);
}

/* "out.json" -> "out-cell007.json" for sweeps */
static void cell_path(char *buf, size_t len, const char *path, long cell, long ncells)
{
	if (!path[0] || ncells == 1 || strcmp(path, "-") == 0) {
		snprintf(buf, len, "%s", path);
		return;
	}
	size_t n = strlen(path);
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		dot = path + n;
	snprintf(buf, len, "%.*s-cell%03ld%s", (int)(dot - path), path, cell, dot);
}

/* A sweep's files beside those of an earlier sweep with more cells: "irt report out-cell*.json"
 * would mix two workloads without a word. Cells are numbered over the whole sweep (shards write
 * their own), so a file numbered past the last cell can only be an earlier run's. */
static void warn_earlier_cells(const char *path, long ncells, const char *opt)
{
	char next[1100];
	if (!path[0] || ncells == 1 || strcmp(path, "-") == 0)
		return;
	cell_path(next, sizeof(next), path, ncells, ncells);
	if (access(next, F_OK) == 0)
		fprintf(stderr, "irt: warning: %s: %s is left from an earlier sweep with more cells (this one has %ld); "
		                "reports and comparisons of all the cells' files would mix them\n", opt, next, ncells);
}

static void run_one(struct pool *p, long cell)
{
	struct cell_out *o = &p->outs[cell];
	struct result r;
	struct sim_totals tot = {0};
	FILE *m = xmemstream(&o->text, &o->len);
	int64_t t0 = clock_ns(CLOCK_REALTIME);
	struct ss_summary *sum = NULL;
	o->rc = sim_run_cell(p->w, cell, &r, &tot, &sum, &o->e);
	int64_t t1 = clock_ns(CLOCK_REALTIME);
	if (!o->rc) {
		o->interrupted = r.interrupted;
		o->reached = r.duration_ns;
		const char *planned = kvlist_get(&r.settings, "duration");
		if (!planned || units_parse_duration(planned, &o->planned))
			o->planned = r.duration_ns;
		/* when the simulation ran; r.duration_ns is the simulated time */
		r.start_realtime_ns = t0;
		r.end_realtime_ns = t1;
		if (p->cmdline)
			r.cmdline = xstrdup(p->cmdline);
		struct global_cfg g = *p->g;
		cell_path(g.json, sizeof(g.json), p->g->json, cell, p->ncells);
		cell_path(g.csv, sizeof(g.csv), p->g->csv, cell, p->ncells);
		if (g.format == FORMAT_TABLE) {
			print_header(m, &r, &tot);
			if (sum)
				sim_print_schedsim_table(m, &r, sum);
			else
				sim_print_table(m, &r);
			g.format = FORMAT_NONE;
		}
		if (one_document(p))
			g.format = FORMAT_NONE;
		fflush(m);
		/* one cell's output at a time: other formats go to stdout in cell order */
		if (g.format != FORMAT_NONE || g.json[0] || g.csv[0]) {
			pthread_mutex_lock(&p->lock);
			o->rc = cli_output(&r, &g, &o->e);
			pthread_mutex_unlock(&p->lock);
		}
		for (int i = 0; i < p->gate->n; i++)
			expect_on_result(&p->gate->v[i], &r, &o->gate[i]);
	}
	fclose(m);
	free(sum);
	if (!o->rc && one_document(p)) {
		o->r = xmalloc(sizeof(r));
		*o->r = r;
	} else {
		result_free(&r);
	}
}

/* The sweep's one document over the cells that ran, each labelled with its swept values. */
static int print_document(struct pool *p, struct err *e)
{
	const struct result **rs = xcalloc((size_t)p->ncells, sizeof(*rs));
	char **labels = xcalloc((size_t)p->ncells, sizeof(*labels));
	int n = 0, rc = 0;
	for (long c = 0; c < p->ncells; c++) {
		if (!p->outs[c].r)
			continue;
		char buf[256];
		workload_cell_label(p->w, c, buf, sizeof(buf));
		rs[n] = p->outs[c].r;
		labels[n++] = xstrdup(buf);
	}
	struct report_in in = {.rs = rs, .n = n, .labels = (const char *const *)labels, .title = p->w->path};
	if (n && p->g->format == FORMAT_TEXT)
		rc = report_text(stdout, &in, e);
	else if (n && p->g->format == FORMAT_HTML)
		rc = report_html(&in, "-", e);
	else if (n)
		openmetrics_render_cells(stdout, rs, (const char *const *)labels, n);
	for (int i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(rs);
	return rc;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (p->next < p->ncells && !shard_has(p->next, p->shard, p->shards))
			p->next++;
		/* after a stop request no cell starts */
		long cell = p->next < p->ncells && !atomic_load(&sim_stop) ? p->next++ : -1;
		if (cell >= 0)
			p->outs[cell].ran = true;
		else {
			p->exited++;
			pthread_cond_signal(&p->exit_cv);
		}
		pthread_mutex_unlock(&p->lock);
		if (cell < 0)
			return NULL;
		run_one(p, cell);
	}
}

/* An expectation holds for a sweep when it holds in every cell of this shard. */
static void gate_cells(struct pool *p, struct expect_set *gate)
{
	for (int i = 0; i < gate->n; i++) {
		struct expect_outcome *o = &gate->out[i];
		memset(o, 0, sizeof(*o));
		o->met = true;
		bool any = false;
		for (long c = 0; c < p->ncells; c++) {
			const struct expect_outcome *co = p->outs[c].ran && !p->outs[c].rc ? &p->outs[c].gate[i] : NULL;
			if (!co || !co->judged)
				continue;
			char label[256] = "";
			if (p->ncells > 1)
				workload_cell_label(p->w, c, label, sizeof(label));
			if (!any || (!co->met && o->met)) {   /* the first cell, or the first that fails */
				if (label[0])
					snprintf(o->detail, sizeof(o->detail), "[%.100s] %.140s", label, co->detail);
				else
					snprintf(o->detail, sizeof(o->detail), "%.250s", co->detail);
			}
			any = true;
			o->met &= co->met;
		}
		o->judged = any;
		if (!any) {
			o->met = false;
			snprintf(o->detail, sizeof(o->detail), "%s", p->outs[0].gate ? p->outs[0].gate[i].detail : "nothing simulated");
		}
	}
}

/* The common line of an interrupted command: one cell's simulated time, or a sweep's cells. */
static void say_interrupted(const struct pool *p)
{
	char done[64], planned[64];
	long cells = 0, complete = 0, partial = 0;
	const struct cell_out *one = NULL;
	for (long c = 0; c < p->ncells; c++) {
		const struct cell_out *o = &p->outs[c];
		cells += shard_has(c, p->shard, p->shards);
		if (o->ran && !o->rc) {
			one = o;
			complete += !o->interrupted;
			partial += o->interrupted;
		}
	}
	if (cells == 1) {
		units_human_duration(done, sizeof(done), one ? one->reached : 0);
		units_human_duration(planned, sizeof(planned), one ? one->planned : p->w->sim.duration);
	} else {
		snprintf(done, sizeof(done), "%ld", complete);
		if (partial)
			snprintf(planned, sizeof(planned), "%ld cells (%ld more in part)", cells, partial);
		else
			snprintf(planned, sizeof(planned), "%ld cells", cells);
	}
	cli_interrupted(done, planned, cli_saves(p->g));
}

static int run_cells(const struct workload *w, const struct global_cfg *g, const char *cmdline, int shard, int shards,
                     struct expect_set *gate, struct err *e)
{
	long n = workload_cells(w);
	struct pool p = {.w = w, .g = g, .cmdline = cmdline, .ncells = n, .gate = gate, .shard = shard, .shards = shards};
	p.outs = xcalloc((size_t)n, sizeof(*p.outs));
	for (long i = 0; i < n; i++)
		p.outs[i].gate = xcalloc((size_t)gate->n + 1, sizeof(*p.outs[i].gate));
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.exit_cv, NULL);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int nw = (int)(cores < 1 ? 1 : cores > 64 ? 64 : cores);
	if (nw > n)
		nw = (int)n;
	if (g->format != FORMAT_TABLE && g->format != FORMAT_NONE && !one_document(&p))
		nw = 1;   /* formats printed by cli_output go to stdout in cell order */
	/* The cells run in workers while this thread waits for them or for a stop signal. A stop
	 * sets sim_stop: the running cells end at the simulated instant they reached (their
	 * results say interrupted) and are printed and saved as usual, no other cell starts. */
	atomic_store(&sim_stop, false);
	bool stopped = false;
	sig_block_stop();
	pthread_t tid[64];
	int started = 0;
	for (int i = 0; i < nw; i++)
		if (pthread_create(&tid[started], NULL, worker, &p) == 0)
			started++;
	if (!started)   /* no thread to wait beside: run them here, stop signals pending */
		worker(&p);
	/* wake at once when the workers are done, and every 20 ms to look for a stop signal */
	pthread_mutex_lock(&p.lock);
	while (started && p.exited < started && !stopped) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20 * 1000000L;
		if (until.tv_nsec >= 1000000000L)
			until.tv_sec++, until.tv_nsec -= 1000000000L;
		pthread_cond_timedwait(&p.exit_cv, &p.lock, &until);
		if (sig_poll_stop()) {
			atomic_store(&sim_stop, true);
			stopped = true;
		}
	}
	pthread_mutex_unlock(&p.lock);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.exit_cv);
	int rc = 0;
	warn_earlier_cells(g->json, n, "--json");
	warn_earlier_cells(g->csv, n, "--csv");
	gate_cells(&p, gate);
	for (long i = 0; i < n; i++) {
		free(p.outs[i].gate);
		if (p.outs[i].len) {
			if (i > 0)
				fputc('\n', stdout);
			fwrite(p.outs[i].text, 1, p.outs[i].len, stdout);
		}
		if (p.outs[i].rc && !rc) {
			*e = p.outs[i].e;
			rc = -1;
		}
		free(p.outs[i].text);
	}
	if (one_document(&p)) {
		if (print_document(&p, rc ? NULL : e) && !rc)
			rc = -1;
		for (long i = 0; i < n; i++)
			if (p.outs[i].r) {
				result_free(p.outs[i].r);
				free(p.outs[i].r);
			}
	}
	if (stopped)
		say_interrupted(&p);
	fflush(stdout);
	free(p.outs);
	return rc ? rc : stopped ? EXIT_INTERRUPTED : 0;
}

/* ---------------------------------------------------------------- the command */

/* irt sim --step FILE takes nothing else: name what came with it */
static int usage_step(struct err *e, const char *other)
{
	if (other)
		return err_set(e, EXIT_USAGE, "sim --step FILE: %s cannot go with --step (a step script takes no other "
		               "argument or option; see docs/sim.md)", other);
	return err_set(e, EXIT_USAGE, "sim --step FILE: expected exactly one step script (see docs/sim.md)");
}

void sim_setup_free(struct sim_setup *s)
{
	free(s->argv);
	workload_free(&s->w);
	opt_args_free(&s->a);
	expect_set_free(&s->gate);
	memset(s, 0, sizeof(*s));
}

/* A simulation knows its threads before it runs: an --expect naming another is a typo */
static int gate_threads(const struct sim_setup *s, struct err *e)
{
	const char **names = xcalloc((size_t)s->w.nthreads + 1, sizeof(*names));
	for (int i = 0; i < s->w.nthreads; i++)
		names[i] = s->w.threads[i].spec.name;
	int rc = expect_set_subjects(&s->gate, names, s->w.nthreads, s->w.path, e);
	free(names);
	return rc;
}

int sim_setup(int argc, char **argv, struct sim_setup *s, struct err *e)
{
	memset(s, 0, sizeof(*s));
	/* --like RESULT.json takes the place of the workload file */
	const char *like = NULL;
	char **args = s->argv = xcalloc((size_t)argc + 1, sizeof(char *));
	int nargs = 0;
	for (int i = 0; i < argc; i++) {
		if (i > 0 && (strcmp(argv[i], "--like") == 0 || strncmp(argv[i], "--like=", 7) == 0)) {
			like = argv[i][6] == '=' ? argv[i] + 7 : (i + 1 < argc ? argv[++i] : NULL);
			if (!like || !*like)
				return err_set(e, EXIT_USAGE, "--like: missing value (expected the JSON result of an irt run)");
			continue;
		}
		args[nargs++] = argv[i];
	}
	argc = s->argc = nargs;
	argv = args;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--step") == 0 || strncmp(argv[i], "--step=", 7) == 0) {
			const char *file = argv[i][6] == '=' ? argv[i] + 7 : (i + 1 < argc ? argv[i + 1] : NULL);
			int used = argv[i][6] == '=' ? 1 : 2;
			if (!file || argc != 1 + used || like) {
				const char *other = like ? "--like" : NULL;
				for (int k = 1; file && !other && k < argc; k++)
					if (k != i && k != i + used - 1)
						other = argv[k];
				return usage_step(e, other);
			}
			s->step = file;
			return 0;
		}
	}
	/* [sim] keys whose names the table also has in another scope (duration, policy, ...)
	 * are taken here, so every [sim] key can be overridden as --KEY VALUE */
	char **rest = xcalloc((size_t)argc + 1, sizeof(char *));
	struct { const struct opt *o; const char *v; char where[80]; } ov[64];
	int nrest = 0, nov = 0, rc = -1;
	for (int i = 0; i < argc; i++) {
		char name[64];
		const char *arg = argv[i];
		if (i == 0 || strncmp(arg, "--", 2) != 0 || !arg[2]) {
			rest[nrest++] = argv[i];
			if (arg[0] == '-' && arg[1] == '-' && !arg[2])   /* "--": the rest is positional */
				while (++i < argc)
					rest[nrest++] = argv[i];
			continue;
		}
		const char *eq = strchr(arg, '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - arg - 2 : (long)strlen(arg + 2)), arg + 2);
		const struct opt *any = opt_find(name), *sim = sim_opt_find(SCOPE_SIM, name);
		if (!sim || (any && (any->scope & (SCOPE_GLOBAL | SCOPE_SIM))) || nov == 64) {
			rest[nrest++] = argv[i];
			continue;
		}
		const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
		if (!v) {
			err_set(e, EXIT_USAGE, "--%s: missing value", name);
			goto out;
		}
		ov[nov].o = sim;
		ov[nov].v = v;
		snprintf(ov[nov].where, sizeof(ov[nov].where), "--%s", name);
		nov++;
	}
	struct opt_args *a = &s->a;
	struct workload *w = &s->w;
	if (opt_parse(nrest, rest, SCOPE_GLOBAL | SCOPE_SIM | SCOPE_GATE, a, e) || cli_globals(a, &s->g, e))
		goto out;
	if (a->npos != (like ? 0 : 1)) {
		err_set(e, EXIT_USAGE, "sim: %s (usage: irt sim WORKLOAD [OPTIONS], irt sim --like RESULT.json [OPTIONS] or irt sim --step FILE)",
		        like ? "--like takes the place of the workload file" : a->npos ? "one workload file at a time" : "missing the workload file");
		goto out;
	}
	const char *import = NULL;   /* --import FILE: in place of the file's import = */
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->items[i].opt->name, "import") == 0)
			import = a->items[i].value;
	if (like ? workload_like(like, w, e) || (import && workload_import(w, import, "--import", e))
	         : workload_load_import(a->pos[0], import, w, e))
		goto out;
	for (int i = 0; i < nov; i++)
		if (workload_override(w, ov[i].o, ov[i].v, ov[i].where, e))
			goto out;
	for (int i = 0; i < a->n; i++) {
		const struct opt_item *it = &a->items[i];
		if (it->opt->scope & SCOPE_SIM) {
			if (workload_override(w, it->opt, it->value, it->where, e))
				goto out;
		} else if (strcmp(it->opt->name, "seed") == 0) {   /* --seed N: the simulation's seed */
			if (workload_override(w, sim_opt_find(SCOPE_SIM, "seed"), it->value, it->where, e))
				goto out;
		}
	}
	char shard_where[600];
	workload_key_where(w, "shard", shard_where, sizeof(shard_where));
	if (workload_check(w, e) || cli_check_outputs(&s->g, e) || expect_set_from_args(&s->gate, a, "sim", e) ||
	    gate_threads(s, e) || shard_parse(w->sim.shard, shard_where, &s->shard, &s->shards, e))
		goto out;
	if (s->shards > workload_cells(w)) {
		err_set(e, EXIT_USAGE, "%s %s: the workload has only %ld cell%s (at most that many shards)", shard_where,
		        w->sim.shard, workload_cells(w), workload_cells(w) == 1 ? "" : "s");
		goto out;
	}
	rc = 0;
out:
	free(rest);
	return rc;
}

int cmd_sim(int argc, char **argv)
{
	struct err e = {0};
	struct sim_setup s;
	int rc = 0;
	if (sim_setup(argc, argv, &s, &e) == 0 && s.step) {
		step_run(s.step, stdout, &e);
	} else if (!e.code) {
		char *cmdline = cli_cmdline(argc, argv);   /* as given, --like too: it says what ran */
		int64_t t0 = mono_ns();
		int ran = run_cells(&s.w, &s.g, cmdline, s.shard, s.shards, &s.gate, &e);
		if (ran >= 0) {   /* an interrupted run's partial results are judged too, its exit is 3 */
			int gated = expect_set_finish(&s.gate, (double)(mono_ns() - t0) / 1e9, &e);
			rc = ran ? ran : gated;
		}
		free(cmdline);
	}
	sim_setup_free(&s);
	return e.code ? err_print(&e) : rc > 0 ? rc : 0;
}

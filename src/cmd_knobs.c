#include "cmd_knobs.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "trust.h"
#include "config.h"
#include "err.h"
#include "linux/conditions.h"
#include "linux/journal.h"
#include "linux/knob.h"
#include "linux/signals.h"
#include "linux/sysfile.h"
#include "opt.h"
#include "units.h"
#include "util.h"

#define VALLEN 128

static const struct command_info knobs_info = CMD_KNOBS_INFO;
static const struct command_info restore_info = CMD_RESTORE_INFO;

/* Parses the command line into the config structs of the accepted scopes. */
static int parse(int argc, char **argv, const struct command_info *ci, struct global_cfg *g,
		 struct knob_cfg *kc, struct err *e)
{
	struct opt_args a;
	memset(kc, 0, sizeof(*kc));
	opt_defaults(SCOPE_KNOB, kc);
	if (opt_parse(argc, argv, ci->scopes, &a, e)) {
		opt_args_free(&a);   /* opt_parse has allocated before it refused */
		return -1;
	}
	int rc = cli_no_extra_args(&a, 0, ci->name, e) || cli_globals(&a, g, e) ? -1 : 0;
	for (int i = 0; rc == 0 && i < a.n; i++) {
		const struct opt_item *it = &a.items[i];
		if (it->opt->scope == SCOPE_KNOB && opt_set(it->opt, kc, it->value, it->where, e))
			rc = -1;
	}
	opt_args_free(&a);
	return rc;
}

static void ctx_from_cfg(struct knob_ctx *c, const struct knob_cfg *kc)
{
	c->allow_rt_unthrottled = kc->allow_rt_unthrottled;
	c->cgroup_of = kc->cgroup_of;
	c->cg_parent = kc->cgroup_under == 1 ? CG_AT_SELF : CG_AT_ROOT;
}

/* ------------------------------------------------------------------ listing */

struct row {
	const struct knob *k;
	char value[VALLEN];
	bool available;
	char state[600];
};

static void where_note(const struct knob *k, const struct knob_ctx *c, char *buf, size_t len)
{
	if (k->scope == KNOB_THREAD)
		snprintf(buf, len, "probe option --%s", k->file);
	else if (k->scope == KNOB_CGROUP)
		snprintf(buf, len, "%s", c->hier.version == CG_V2 ? k->file_v2 : k->file);
	else
		snprintf(buf, len, "%s", k->file);
}

static void collect(struct knob_ctx *c, struct row *rows)
{
	for (int i = 0; i < knob_count; i++) {
		struct row *r = &rows[i];
		struct err why = {0}, rerr = {0};
		char where[256];
		r->k = &knob_table[i];
		r->available = knob_available(r->k, c, &why) == 0;
		if (knob_read(r->k, c, r->value, sizeof(r->value), &rerr))
			snprintf(r->value, sizeof(r->value), "-");
		where_note(r->k, c, where, sizeof(where));
		if (r->available)
			snprintf(r->state, sizeof(r->state), "available (%s)", where);
		else
			snprintf(r->state, sizeof(r->state), "unavailable: %s", why.msg);
	}
}

static void print_table(FILE *f, const struct knob_ctx *c, const struct row *rows)
{
	int wn = 4, wv = 5;
	for (int i = 0; i < knob_count; i++) {
		int n = (int)strlen(rows[i].k->name), v = (int)strlen(rows[i].value);
		wn = n > wn ? n : wn;
		wv = v > wv ? v : wv;
	}
	if (c->hier.version == CG_NONE)
		fprintf(f, "cpu controller: none (%s)\n", c->hier.why);
	else
		fprintf(f, "cpu controller: cgroup v%d at %s; irt runs in %s\n", (int)c->hier.version,
			c->hier.mount, c->hier.self);
	fprintf(f, "%-*s  %-6s  %-*s  %s\n", wn, "KNOB", "SCOPE", wv, "VALUE", "STATE");
	for (int i = 0; i < knob_count; i++)
		fprintf(f, "%-*s  %-6s  %-*s  %s\n", wn, rows[i].k->name, knob_scope_name(rows[i].k->scope), wv,
			rows[i].value, rows[i].state);
}

static int write_json(const char *path, const struct knob_ctx *c, const struct row *rows, struct err *e)
{
	json_t *root = json_object(), *list = json_array(), *cg = json_object();
	json_object_set_new(root, "schema", json_string("irt-knobs/1"));
	json_object_set_new(cg, "version", json_integer(c->hier.version));
	json_object_set_new(cg, "mount", c->hier.version ? json_string(c->hier.mount) : json_null());
	json_object_set_new(cg, "self", c->hier.version ? json_string(c->hier.self) : json_null());
	json_object_set_new(root, "cgroup", cg);
	for (int i = 0; i < knob_count; i++) {
		const struct row *r = &rows[i];
		json_t *o = json_object();
		char where[256];
		where_note(r->k, c, where, sizeof(where));
		json_object_set_new(o, "name", json_string(r->k->name));
		json_object_set_new(o, "scope", json_string(knob_scope_name(r->k->scope)));
		json_object_set_new(o, "unit", json_string(r->k->unit));
		json_object_set_new(o, "value", strcmp(r->value, "-") ? json_string(r->value) : json_null());
		json_object_set_new(o, "available", json_boolean(r->available));
		json_object_set_new(o, "reason", r->available ? json_null() : json_string(r->state + 13));
		json_object_set_new(o, "where", json_string(where));
		json_object_set_new(o, "help", json_string(r->k->help));
		json_array_append_new(list, o);
	}
	json_object_set_new(root, "knobs", list);
	/* atomically: a reader never sees half a file */
	int rc = write_atomic_json(path, root, JSON_INDENT(2) | JSON_PRESERVE_ORDER, e);
	json_decref(root);
	return rc;
}

/* ------------------------------------------------------------------ --apply */

/* Waits hold ns (0: forever) or until a stop signal; true when a signal ended it. */
static bool hold_for(int64_t hold)
{
	int64_t end_ns = mono_ns() + hold;
	for (;;) {
		int64_t left = hold ? end_ns - mono_ns() : 3600 * NSEC_PER_SEC;
		if (left <= 0)
			return false;
		if (sig_wait_stop(left))
			return true;
	}
}

static int apply_and_hold(struct knob_ctx *c, const struct knob_cfg *kc, struct err *e)
{
	int n = kc->apply.n;
	const struct knob *ks[64];
	char vals[64][VALLEN];
	if (n > 64)
		return err_set(e, EXIT_USAGE, "--apply: at most 64 settings");
	for (int i = 0; i < n; i++) {
		if (knob_parse_setting(kc->apply.v[i], &ks[i], vals[i], VALLEN, e))
			return err_prefix(e, "--apply"), -1;
		if (ks[i]->scope == KNOB_THREAD)
			return err_set(e, EXIT_USAGE, "--apply: %s is a per-thread setting the probe applies to "
				       "itself (use --%s with irt probe, run or sweep)", ks[i]->name, ks[i]->file);
		if (knob_validate(ks[i], c, vals[i], e))
			return err_prefix(e, "--apply"), -1;
		knob_plan(ks[i], c, vals[i]);   /* the later settings are checked after it */
	}
	knob_plan_done(c);   /* applying, each is checked again against what is there by then */
	/* what cannot be changed here says why before the journal lock is taken (or created) */
	for (int i = 0; i < n; i++)
		if (knob_require(ks[i], c, e))
			return -1;

	/* Stop signals are taken synchronously (signals.h), so the restore below runs in the
	 * main flow; one arriving while settings are applied is seen once they are all in. */
	sig_block_stop();
	if (journal_begin(e))
		return -1;

	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		char was[VALLEN], now[VALLEN];
		struct err ignore = {0};
		if (knob_read(ks[i], c, was, sizeof(was), &ignore))
			snprintf(was, sizeof(was), "?");
		rc = knob_apply(ks[i], c, vals[i], now, sizeof(now), e);
		/* the kernel may round (the RR slice to jiffies): say so */
		char asked[VALLEN];
		int64_t v;
		if (knob_parse_value(ks[i], vals[i], &v, NULL) == 0)
			knob_format_value(ks[i], v, asked, sizeof(asked));
		else
			snprintf(asked, sizeof(asked), "%.*s", (int)sizeof(asked) - 1, vals[i]);
		if (rc == 0)
			printf("%s = %s (was %s%s%s)\n", ks[i]->name, now, was,
			       strcmp(now, asked) ? "; asked for " : "", strcmp(now, asked) ? asked : "");
	}
	bool interrupted = sig_poll_stop() != 0;
	if (rc == 0 && !interrupted) {
		const struct cgroup *cg = knob_cgroup(c);
		char h[32];
		if (cg)
			printf("cgroup %s holds no task yet: move tasks in with  echo PID > %s/%s\n", cg->path,
			       cg->path, cgroup_procs_file(cg->h, false));
		if (kc->hold)
			printf("holding for %s; Ctrl-C restores now\n", units_format_duration(h, sizeof(h), kc->hold));
		else
			printf("holding until SIGINT, SIGTERM or SIGHUP\n");
		fflush(stdout);
		interrupted = hold_for(kc->hold) && kc->hold != 0;
	}
	if (pmqos_held() >= 0) {   /* pm.dma_latency: never journaled, the descriptor is the hold */
		pmqos_release();
		printf("released the PM QoS hold (pm.dma_latency)\n");
	}
	struct journal_report r = {0};
	struct err re = {0};
	if (journal_restore(stdout, &r, &re) && rc == 0) {
		*e = re;
		rc = -1;
	} else if (re.code) {
		err_print(&re);
	}
	struct err ee = {0};
	journal_end(&ee);
	if (rc)
		return -1;
	if (r.gone)
		return err_set(e, EXIT_RUNTIME, "knobs: %d cgroup%s removed from outside irt during the hold, so %s settings "
			       "did not hold (everything else is restored)", r.gone, r.gone > 1 ? "s were" : " was",
			       r.gone > 1 ? "their" : "its");
	if (interrupted)
		return err_set(e, EXIT_INTERRUPTED, "knobs: interrupted; every setting restored");
	return 0;
}

int cmd_knobs(int argc, char **argv)
{
	struct err e = {0};
	struct global_cfg g;
	struct knob_cfg kc;
	struct knob_ctx c;
	if (parse(argc, argv, &knobs_info, &g, &kc, &e))
		goto out;
	/* --csv and the other --format values are refused by the parser (CMD_KNOBS_INFO); check the
	 * --json file before anything changes */
	if (kc.apply.n && g.json[0])
		err_set(&e, EXIT_USAGE, "--json: irt knobs --apply writes no file (the listing without --apply does)");
	if (e.code || cli_check_outputs(&g, &e))
		goto out;
	if (knob_ctx_init(&c, &e))
		goto out;
	ctx_from_cfg(&c, &kc);
	if (kc.apply.n) {
		apply_and_hold(&c, &kc, &e);
		goto out;
	}
	if (kc.hold) {
		err_set(&e, EXIT_USAGE, "--hold: only with --apply");
		goto out;
	}
	struct row rows[64];
	collect(&c, rows);
	if (g.format != FORMAT_NONE)
		print_table(stdout, &c, rows);
	if (g.json[0])
		write_json(g.json, &c, rows, &e);
out:
	strlist_free(&kc.apply);
	return e.code ? err_print(&e) : EXIT_OK;
}

int cmd_restore(int argc, char **argv)
{
	struct err e = {0};
	struct global_cfg g;
	struct knob_cfg kc;
	int rc = parse(argc, argv, &restore_info, &g, &kc, &e);
	strlist_free(&kc.apply);
	if (rc == 0)
		journal_restore_leftovers(stdout, &e);
	return e.code ? err_print(&e) : EXIT_OK;
}

/* opt.c: the command-line parser over the whole option table, then what the commands do with
 * the parsed items: opt_set into each scope's config, the probe definitions with their cross
 * checks, load specs and knob settings. Input: argv words separated by newlines. A value that
 * opt_set accepted must format (opt_format) to text that opt_set accepts again, unchanged. */
#include "config.h"
#include "expect.h"
#include "fleet.h"
#include "fuzz.h"
#include "linux/knob.h"
#include "linux/load.h"
#include "opt.h"
#include "probe_cfg.h"

/* one config struct per scope of the table */
struct cfgs {
	struct global_cfg g;
	struct probe_cfg p;
	struct run_cfg r;
	struct sweep_cfg sw;
	struct sim_cfg sim;
	struct sim_thread_cfg st;
	struct report_cfg rep;
	struct knob_cfg k;
	struct explain_cfg x;
	struct watch_cfg w;
	struct cond_cfg cc;
	struct gate_cfg gate;
	struct fleet_cfg fleet;
	struct monitor_cfg mon;
};

static void *scratch_for(unsigned scope, struct cfgs *c)
{
	switch (scope) {
	case SCOPE_GLOBAL: return &c->g;
	case SCOPE_PROBE: return &c->p;
	case SCOPE_RUN: return &c->r;
	case SCOPE_SWEEP: return &c->sw;
	case SCOPE_SIM: return &c->sim;
	case SCOPE_SIM_THREAD: return &c->st;
	case SCOPE_REPORT: return &c->rep;
	case SCOPE_KNOB: return &c->k;
	case SCOPE_EXPLAIN: return &c->x;
	case SCOPE_WATCH: return &c->w;
	case SCOPE_COND: return &c->cc;
	case SCOPE_GATE: return &c->gate;
	case SCOPE_FLEET: return &c->fleet;
	case SCOPE_MONITOR: return &c->mon;
	}
	return NULL;
}

static void roundtrip(const struct opt *o, const void *cfg)
{
	if (o->type == OPT_LIST)
		return;
	char text[OPT_STRLEN + 64];
	opt_format(o, cfg, text, sizeof(text));
	static struct cfgs again;
	memset(&again, 0, sizeof(again));
	void *base = scratch_for(o->scope, &again);
	struct err e = {0};
	FUZZ_ASSERT(opt_set(o, base, text, "again", &e) == 0, "--%s: formatted '%s' is refused: %s", o->name, text, e.msg);
	char text2[OPT_STRLEN + 64];
	opt_format(o, base, text2, sizeof(text2));
	FUZZ_ASSERT(strcmp(text, text2) == 0, "--%s: '%s' reads back as '%s'", o->name, text, text2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *buf = fuzz_str(data, size);
	char *argv[256];
	int argc = 0;
	argv[argc++] = "run";
	for (char *p = buf; argc < 255;) {
		argv[argc++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	argv[argc] = NULL;

	struct opt_args a;
	struct err e = {0};
	unsigned all = SCOPE_GLOBAL | SCOPE_PROBE | SCOPE_RUN | SCOPE_SWEEP | SCOPE_SIM | SCOPE_SIM_THREAD | SCOPE_REPORT |
	               SCOPE_KNOB | SCOPE_COND | SCOPE_EXPLAIN | SCOPE_WATCH | SCOPE_GATE | SCOPE_FLEET | SCOPE_MONITOR;
	if (opt_parse(argc, argv, all, &a, &e) == 0) {
		static struct cfgs c;
		memset(&c, 0, sizeof(c));
		for (unsigned scope = 1; scope <= SCOPE_LAST; scope <<= 1)
			if (scratch_for(scope, &c))   /* SCOPE_LOAD's rows live in the load types */
				opt_defaults(scope, scratch_for(scope, &c));
		struct run_cfg *rc = &c.r;
		struct knob_cfg *kc = &c.k;
		for (int i = 0; i < a.n; i++) {
			const struct opt *o = a.items[i].opt;
			void *cfg = scratch_for(o->scope, &c);
			struct err e2 = {0};
			if (cfg && opt_set(o, cfg, a.items[i].value, a.items[i].where, &e2) == 0)
				roundtrip(o, cfg);
			else if (cfg)
				fuzz_check_err(&e2, EXIT_USAGE);
		}
		struct probe_cfg *cfgs = NULL;
		int n = 0;
		struct err e3 = {0};
		if (probe_cfgs_build(&a, &cfgs, &n, &e3) == 0) {
			for (int i = 0; i < n; i++) {
				struct err e4 = {0};
				if (probe_cfg_finish(&cfgs[i], &e4) == 0) {
					struct kvlist kv = {0};
					probe_cfg_settings(&cfgs[i], &kv);
					kvlist_free(&kv);
					FUZZ_ASSERT(probe_cfg_iterations(&cfgs[i]) > 0, "no iterations");
				} else {
					fuzz_check_err(&e4, EXIT_USAGE);
				}
			}
			free(cfgs);
		} else {
			fuzz_check_err(&e3, EXIT_USAGE);
		}
		for (int i = 0; i < rc->loads.n; i++) {
			struct load_spec ls;
			struct err e5 = {0};
			if (load_parse(rc->loads.v[i], &ls, &e5))
				fuzz_check_err(&e5, EXIT_USAGE);
		}
		for (int i = 0; i < kc->apply.n; i++) {
			const struct knob *kn;
			char value[128];
			struct err e6 = {0};
			if (knob_parse_setting(kc->apply.v[i], &kn, value, sizeof(value), &e6))
				fuzz_check_err(&e6, EXIT_USAGE);
		}
		for (int i = 0; i < c.gate.expect.n; i++) {   /* --expect: parsed, or refused with usage */
			struct expect x;
			struct err e7 = {0};
			if (expect_parse(c.gate.expect.v[i], &x, &e7))
				fuzz_check_err(&e7, EXIT_USAGE);
			else
				FUZZ_ASSERT(x.metric[0] && x.text[0], "'%s' parsed without a metric", c.gate.expect.v[i]);
		}
		const char *shards[] = {c.sw.shard, c.sim.shard};
		for (int i = 0; i < 2; i++) {   /* --shard: 0 <= index < count, or refused with usage */
			int idx, cnt;
			struct err e8 = {0};
			if (shard_parse(shards[i], "--shard", &idx, &cnt, &e8))
				fuzz_check_err(&e8, EXIT_USAGE);
			else
				FUZZ_ASSERT(idx >= 0 && idx < cnt, "shard %d of %d", idx, cnt);
		}
		for (int i = 0; i < opt_count; i++)   /* every OPT_LIST field of every scope */
			if (opt_table[i].type == OPT_LIST)
				strlist_free((struct strlist *)((char *)scratch_for(opt_table[i].scope, &c) + opt_table[i].offset));
	} else {
		fuzz_check_err(&e, EXIT_USAGE);
	}
	opt_args_free(&a);
	free(buf);
	return 0;
}

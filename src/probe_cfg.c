#include "probe_cfg.h"

#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "util.h"

/* Approximations of interbench's simulated interactive tasks: a fixed period with a CPU
 * share to deliver before the next period. Documented in docs/probe.md. */
static const char *const audio[] = {"period=50ms", "burn=2500us", "touch=256K", "deadline=50ms", NULL};
static const char *const video[] = {"period=16667us", "burn=6667us", "touch=4M", "deadline=16667us", NULL};
static const char *const xwin[] = {"period=10ms", "burn=1ms", "touch=1M", "touch-pattern=random", "deadline=10ms", NULL};
static const char *const gaming[] = {"period=16667us", "burn=10ms", "touch=16M", "deadline=16667us", NULL};
static const char *const none[] = {NULL};

const struct persona_info personas[] = {
	[PERSONA_NONE] = {"none", "no persona: plain wake-ups", none},
	[PERSONA_AUDIO] = {"audio", "audio playback: every 50 ms, 5 % CPU, 256 KiB buffer, done before the next period", audio},
	[PERSONA_VIDEO] = {"video", "video at 60 fps: every 16.7 ms, 40 % CPU, 4 MiB frame, done before the next frame", video},
	[PERSONA_X] = {"x", "desktop/X client: every 10 ms, 10 % CPU, 1 MiB touched at random", xwin},
	[PERSONA_GAMING] = {"gaming", "game at 60 fps: every 16.7 ms, 60 % CPU, 16 MiB touched", gaming},
	{NULL, NULL, NULL},
};

bool probe_policy_is_rt(int policy)
{
	return policy == POL_FIFO || policy == POL_RR || policy == POL_DEADLINE;
}

static int apply_persona(struct probe_cfg *c, int persona, struct err *e)
{
	for (const char *const *s = personas[persona].settings; *s; s++) {
		char key[64];
		const char *eq = strchr(*s, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *s), *s);
		const struct opt *o = opt_find(key);
		char where[96];
		snprintf(where, sizeof(where), "persona %s", personas[persona].name);
		if (!o || opt_set(o, c, eq + 1, where, e))
			return -1;
	}
	return 0;
}

int probe_cfgs_build(const struct opt_args *a, struct probe_cfg **out, int *n, struct err *e)
{
	int defs = a->segments > 1 ? a->segments - 1 : 1;
	struct probe_cfg *cfgs = xcalloc((size_t)defs, sizeof(*cfgs));
	for (int d = 0; d < defs; d++) {
		int seg = a->segments > 1 ? d + 1 : 0;
		struct probe_cfg *c = &cfgs[d];
		opt_defaults(SCOPE_PROBE, c);
		/* the persona first, whichever segment names it (the own segment wins) */
		for (int i = 0; i < a->n; i++) {
			const struct opt_item *it = &a->items[i];
			if ((it->segment == 0 || it->segment == seg) && (it->opt->scope & SCOPE_PROBE) &&
			    strcmp(it->opt->name, "persona") == 0 && opt_set(it->opt, c, it->value, it->where, e))
				goto fail;
		}
		int persona = c->persona;
		if (apply_persona(c, persona, e))
			goto fail;
		/* then the explicit options: segment 0 (all probes) before the own segment */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < a->n; i++) {
				const struct opt_item *it = &a->items[i];
				if (!(it->opt->scope & SCOPE_PROBE) || it->segment != (pass ? seg : 0))
					continue;
				if (pass == 0 && seg == 0)
					continue;  /* single definition: handled by pass 1 */
				if (opt_set(it->opt, c, it->value, it->where, e))
					goto fail;
			}
		if (!c->name[0]) {
			if (defs == 1 && persona != PERSONA_NONE)
				snprintf(c->name, sizeof(c->name), "%s", personas[persona].name);
			else
				snprintf(c->name, sizeof(c->name), "probe%d", d);
		}
		for (int k = 0; k < d; k++)
			if (strcmp(cfgs[k].name, c->name) == 0) {
				/* name where it was given: "--name a" or the job file's "job.ini:7" */
				const char *where = "--name";
				for (int i = 0; i < a->n; i++)
					if (a->items[i].segment == seg && strcmp(a->items[i].opt->name, "name") == 0)
						where = a->items[i].where;
				if (strncmp(where, "--", 2) == 0)
					err_set(e, EXIT_USAGE, "--name %s: the name is used twice (each probe definition needs its own)", c->name);
				else
					err_set(e, EXIT_USAGE, "%s: [probe %s]: the name is used twice (each probe definition needs its own)",
					        where, c->name);
				goto fail;
			}
	}
	*out = cfgs;
	*n = defs;
	return 0;
fail:
	free(cfgs);
	return -1;
}

int probe_cfgs_check(const struct opt_args *a, struct err *e)
{
	struct probe_cfg *cfgs = NULL;
	int n = 0;
	int rc = probe_cfgs_build(a, &cfgs, &n, e);
	for (int i = 0; !rc && i < n; i++)
		rc = probe_cfg_finish(&cfgs[i], e);
	free(cfgs);
	return rc;
}

int64_t probe_cfg_iterations(const struct probe_cfg *c)
{
	/* both given (a job file's or persona's count, the command line's -D): whichever ends first */
	int64_t n = c->duration / c->period;
	if (c->count > 0)
		return c->duration > 0 && n < c->count ? n : c->count;
	return n > 0 ? n : 1;
}

int64_t probe_cfgs_planned_ns(const struct probe_cfg *cfgs, int n)
{
	int64_t most = 0;
	for (int i = 0; i < n; i++) {
		int64_t ns = probe_cfg_iterations(&cfgs[i]) * cfgs[i].period;
		most = ns > most ? ns : most;
	}
	return most;
}

/* the CPUs --per-cpu spreads over: --cpus, else the process's affinity */
static int per_cpu_set(const struct probe_cfg *c, cpu_set_t *set)
{
	CPU_ZERO(set);
	return c->cpus[0] ? cpulist_parse(c->cpus, set) : sched_getaffinity(0, sizeof(*set), set);
}

int probe_cfg_finish(struct probe_cfg *c, struct err *e)
{
	char a[32], b[32];
	const char *who = c->name;

	if (c->count == 0 && c->duration == 0)
		c->duration = 10 * NSEC_PER_SEC;
	if ((c->count == 0 || c->duration > 0) && c->duration < c->period)
		return err_set(e, EXIT_USAGE, "%s: --duration %s is shorter than --period %s (measure at least one period)",
		               who, units_format_duration(a, sizeof(a), c->duration),
		               units_format_duration(b, sizeof(b), c->period));
	if (c->deadline == 0)
		c->deadline = c->period;
	if ((c->policy == POL_FIFO || c->policy == POL_RR)) {
		if (c->prio == 0)
			c->prio = 80;
	} else if (c->prio != 0) {
		return err_set(e, EXIT_USAGE, "%s: --prio %lld applies only to --policy fifo or rr (use --nice for %s)",
		               who, (long long)c->prio, opt_find("policy")->choices[c->policy]);
	}
	if (c->per_cpu) {   /* cyclictest -S: one thread per CPU; the count is the CPUs' */
		cpu_set_t set;
		if (per_cpu_set(c, &set))
			return err_set(e, EXIT_USAGE, "%s: --per-cpu: cannot read the CPUs irt may run on: %s", who, strerror(errno));
		int n = CPU_COUNT(&set);
		if (c->threads > 1 && c->threads != n)
			return err_set(e, EXIT_USAGE, "%s: --per-cpu runs one thread per CPU (%d here), not --threads %lld "
			               "(drop --threads)", who, n, (long long)c->threads);
		c->threads = n;
	}
	if (c->aligned_offset)
		c->aligned = true;
	if (c->aligned && c->relative)   /* a relative sleep has no grid to align; name what was typed */
		return err_set(e, EXIT_USAGE, "%s: %s needs the release grid; --relative sleeps from each wake-up "
		               "(drop one)", who, c->aligned_offset ? "--aligned-offset" : "--aligned");
	if (c->nice != 0 && probe_policy_is_rt(c->policy))
		return err_set(e, EXIT_USAGE, "%s: --nice applies only to --policy other, batch or idle", who);
	if (c->slice != 0) {
		if (c->policy != POL_OTHER && c->policy != POL_BATCH)
			return err_set(e, EXIT_USAGE, "%s: --slice applies only to --policy other or batch (EEVDF)", who);
		if (c->slice < 100 * NSEC_PER_USEC)
			return err_set(e, EXIT_USAGE, "%s: --slice %s is below the kernel's minimum 100us (expected 100us..100ms)",
			               who, units_format_duration(a, sizeof(a), c->slice));
	}
	bool dl_given = c->dl_runtime || c->dl_deadline || c->dl_period;
	if (dl_given && c->policy != POL_DEADLINE)
		return err_set(e, EXIT_USAGE, "%s: --dl-runtime/--dl-deadline/--dl-period need --policy deadline", who);
	if (c->policy == POL_DEADLINE) {
		if (!c->dl_period)
			c->dl_period = c->period;
		if (!c->dl_deadline)
			c->dl_deadline = c->dl_period;
		if (!c->dl_runtime) {
			int64_t r = c->burn + c->burn / 5 + 100 * NSEC_PER_USEC;
			c->dl_runtime = (r + 9999) / 10000 * 10000;  /* round up to 10 us */
		}
		if (c->dl_runtime < 1024 || !(c->dl_runtime <= c->dl_deadline && c->dl_deadline <= c->dl_period))
			return err_set(e, EXIT_USAGE, "%s: SCHED_DEADLINE needs 1us <= runtime <= deadline <= period "
			               "(got runtime %s, deadline %s, period %s)", who,
			               units_format_duration(a, sizeof(a), c->dl_runtime),
			               units_format_duration(b, sizeof(b), c->dl_deadline),
			               units_format_duration((char[32]){0}, 32, c->dl_period));
		if (c->dl_period != c->period)
			return err_set(e, EXIT_USAGE, "%s: --dl-period must equal --period (the probe wakes once per period)", who);
		if (c->burn >= c->dl_runtime)
			return err_set(e, EXIT_USAGE, "%s: --burn %s does not fit --dl-runtime %s (the runtime must cover the work)",
			               who, units_format_duration(a, sizeof(a), c->burn),
			               units_format_duration(b, sizeof(b), c->dl_runtime));
	}
	/* A real-time probe must sleep in every period, or it could monopolise a CPU. */
	if (probe_policy_is_rt(c->policy) && c->burn * 20 >= c->period * 19)
		return err_set(e, EXIT_USAGE, "%s: --burn %s does not fit --period %s for a real-time probe "
		               "(burn must stay below 95%% of the period)", who,
		               units_format_duration(a, sizeof(a), c->burn), units_format_duration(b, sizeof(b), c->period));
	if (c->inject_stall[0]) {
		long long iter;
		char dur[64];
		int64_t ns;
		if (sscanf(c->inject_stall, "%lld:%63s", &iter, dur) != 2 || iter < 0 || units_parse_duration(dur, &ns) ||
		    ns <= 0 || ns > 60 * NSEC_PER_SEC)
			return err_set(e, EXIT_USAGE, "--inject-stall: '%s' is not valid (expected ITER:DURATION, e.g. 5:20ms, "
			               "DURATION up to 60s)", c->inject_stall);
		if (probe_policy_is_rt(c->policy) && ns > NSEC_PER_SEC)
			return err_set(e, EXIT_USAGE, "--inject-stall: a real-time probe may stall at most 1s");
		c->stall_iter = iter;
		c->stall_ns = ns;
	}
	return 0;
}

int probe_cfg_cpu_of(const struct probe_cfg *c, int j)
{
	cpu_set_t set;
	if (per_cpu_set(c, &set))
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && j-- == 0)
			return cpu;
	return -1;
}

void probe_cfg_settings(const struct probe_cfg *c, struct kvlist *out)
{
	char buf[OPT_STRLEN];
	for (int i = 0; i < opt_count; i++) {
		const struct opt *o = &opt_table[i];
		if (!(o->scope & SCOPE_PROBE) || strcmp(o->name, "inject-stall") == 0)
			continue;
		opt_format(o, c, buf, sizeof(buf));
		if (o->type == OPT_STRING || o->type == OPT_CPUS) {
			if (!buf[0])
				continue;
		}
		/* recorded only when given: results from before --per-cpu (--stop-above, --aligned) stay
		 * repetitions of a cell */
		if (o->offset == offsetof(struct probe_cfg, per_cpu) && !c->per_cpu)
			continue;
		if ((o->offset == offsetof(struct probe_cfg, stop_above) && !c->stop_above) ||
		    (o->offset == offsetof(struct probe_cfg, aligned) && !c->aligned) ||
		    (o->offset == offsetof(struct probe_cfg, aligned_offset) && !c->aligned_offset))
			continue;
		kvlist_set(out, o->name, buf);
	}
	if (c->inject_stall[0])
		kvlist_set(out, "inject-stall", c->inject_stall);
}

bool probe_times_differ(const int64_t *ns, const int64_t *period, int n)
{
	int64_t most = 0;
	for (int i = 0; i < n; i++)
		most = ns[i] > most ? ns[i] : most;
	/* duration / period rounds down: a probe short of the longest by less than its own
	 * period measures the same time */
	for (int i = 0; i < n; i++)
		if (ns[i] + period[i] <= most)
			return true;
	return false;
}

bool probe_cfgs_times(const struct probe_cfg *cfgs, int n, char *buf, size_t len)
{
	buf[0] = 0;
	bool durations_differ = false;   /* counts alone differ as the user chose them: no surprise */
	int64_t *ns = xcalloc((size_t)n * 2 + 1, sizeof(*ns)), *per = ns + n;
	for (int i = 0; i < n; i++) {
		ns[i] = probe_cfg_iterations(&cfgs[i]) * cfgs[i].period;
		per[i] = cfgs[i].period;
		durations_differ |= cfgs[i].duration != cfgs[0].duration;
	}
	bool differ = durations_differ && probe_times_differ(ns, per, n);
	for (int i = 0, at = 0; differ && i < n && at < (int)len; i++) {
		char d[32];
		at += snprintf(buf + at, len - (size_t)at, "%s%s %s", i ? ", " : "", cfgs[i].name,
		               units_human_duration(d, sizeof(d), ns[i]));
	}
	free(ns);
	return differ;
}

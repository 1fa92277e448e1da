#include "cond_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Every condition compared, its name, and the result settings (knobs and options, as irt
 * sweep records them) that set it: when those differ in a sweep, so does the condition, on
 * purpose. */
static const struct {
	const char *key, *label;
	const char *set_by[3];
} conds[] = {
	{"pm_qos", "PM QoS", {"pm-qos", "knob.pm.dma_latency"}},
	{"pm_qos.system", "system-wide PM QoS", {"pm-qos", "knob.pm.dma_latency"}},
	{"cpuidle.driver", "cpuidle driver", {0}},
	{"cpuidle.governor", "cpuidle governor", {0}},
	{"cpuidle.states", "idle states", {"knob.cpuidle.max_state", "knob.cpuidle.disable"}},
	{"cpufreq.driver", "cpufreq driver", {0}},
	{"cpufreq.governor", "cpufreq governor", {"knob.cpufreq.governor"}},
	{"cpufreq.min_khz", "minimum frequency (kHz)", {"knob.cpufreq.min_freq"}},
	{"cpufreq.max_khz", "maximum frequency (kHz)", {0}},
	{"cpufreq.boost", "boost", {0}},
	{"smt", "SMT", {"knob.smt"}},
	{"cmdline", "kernel command line", {0}},
	{"hypervisor", "hypervisor", {0}},
	{"thp", "transparent huge pages", {0}},
	{"irq_affinity", "IRQ affinity", {"cpus"}},
	{"rt_throttling", "RT throttling", {"knob.kernel.sched_rt_runtime_us", "knob.kernel.sched_rt_period_us"}},
	{"kernel.config_hash", "kernel config", {0}},
	/* the probes' own rule, not the machine's: catch-up and skip sample different tails */
	{"probe.overrun", "passed releases", {"overrun"}},
	/* how the probes' memory was kept resident: unlocked (none-rlimit, an unprivileged
	 * RLIMIT_MEMLOCK too small) measures page faults a locked run does not */
	{"memory_lock", "memory lock", {"no-mlock"}},
	/* from env, for every result */
	{"env.preemption", "preemption model", {0}},
	{"env.hz", "HZ", {0}},
	{"env.clocksource", "clocksource", {0}},
};
#define NCONDS ((int)(sizeof(conds) / sizeof(conds[0])))

const char *cond_label(const char *key)
{
	for (int i = 0; i < NCONDS; i++)
		if (strcmp(conds[i].key, key) == 0)
			return conds[i].label;
	return NULL;
}

/* The condition's value in r; NULL when r has no manifest (or the key is not in it). */
static const char *value_of(const struct result *r, const char *key, char *buf, size_t len)
{
	if (strcmp(key, "env.preemption") == 0)
		return r->env.preemption[0] ? r->env.preemption : "unknown";
	if (strcmp(key, "env.hz") == 0) {
		if (!r->env.hz)
			return "unknown";
		snprintf(buf, len, "%d", r->env.hz);
		return buf;
	}
	if (strcmp(key, "env.clocksource") == 0)
		return r->env.clocksource[0] ? r->env.clocksource : "unknown";
	if (strcmp(key, "memory_lock") == 0)
		return r->memory_lock[0] ? r->memory_lock : NULL;   /* not recorded: sim, older irt */
	if (strcmp(key, "probe.overrun") == 0) {
		for (int t = 0; t < r->nthreads; t++)
			if (strcmp(r->threads[t].role, "probe") == 0) {
				const char *v = kvlist_get(&r->threads[t].settings, "overrun");
				snprintf(buf, len, "%s", v ? v : "catch-up");   /* irt before --overrun caught up */
				return buf;
			}
		return NULL;
	}
	return kvlist_get(&r->conditions, key);
}

/* Does setting `key` (a thread setting for "cpus": any probe's) differ between the results? */
static bool setting_differs(const struct result *const *rs, int n, const char *key)
{
	const char *first = NULL;
	bool have = false;
	for (int i = 0; i < n; i++) {
		const char *v = kvlist_get(&rs[i]->settings, key);
		for (int t = 0; !v && t < rs[i]->nthreads; t++)
			v = kvlist_get(&rs[i]->threads[t].settings, key);
		if (!have) {
			first = v;
			have = true;
		} else if ((!v) != (!first) || (v && strcmp(v, first))) {
			return true;
		}
	}
	return false;
}

struct group {
	const char *value;
	char labels[256];
};

/* A value irt could not read ("unreadable: WHY": /dev/cpu_dma_latency needs root) or did not
 * record is no value: it neither differs from nor matches another. */
static bool unknown(const char *v)
{
	return v && (strncmp(v, "unreadable", 10) == 0 || strcmp(v, "unknown") == 0);
}

/* The condition's known value in r (value_of), NULL for none or an unknown one. */
static const char *known_of(const struct result *r, const char *key, char *buf, size_t len)
{
	const char *v = value_of(r, key, buf, len);
	return unknown(v) ? NULL : v;
}

/* Adds rs[i]'s label to g, its value v's group, unless an earlier result with that label is in
 * it (the runs of one cell share it). */
static void group_add(struct group *g, const struct result *const *rs, const char *const *labels, int i,
                      const char *key, const char *v, char (*bufs)[32])
{
	for (int j = 0; j < i; j++) {
		const char *w = value_of(rs[j], key, bufs[j], sizeof(bufs[j]));
		if (w && strcmp(labels[j], labels[i]) == 0 && (unknown(v) ? unknown(w) : strcmp(w, v) == 0))
			return;
	}
	char *l = g->labels;
	snprintf(l + strlen(l), sizeof(g->labels) - strlen(l), "%s%s", l[0] ? " and " : "", labels[i]);
}

int cond_differences(const struct result *const *rs, const char *const *labels, int n, bool cells,
                     struct strlist *lines)
{
	bool sweep = cells && n > 0;
	for (int i = 0; i < n; i++)
		sweep &= kvlist_get(&rs[i]->settings, "cell") != NULL;
	struct group *g = xcalloc((size_t)n + 1, sizeof(*g));
	char (*bufs)[32] = xcalloc((size_t)n + 1, sizeof(*bufs));
	int added = 0;
	for (int c = 0; c < NCONDS; c++) {
		bool swept = false;
		for (int s = 0; sweep && s < 3 && conds[c].set_by[s]; s++)
			swept |= setting_differs(rs, n, conds[c].set_by[s]);
		if (swept)
			continue;
		int ng = 0;
		struct group unk = {0};   /* the results whose value is unknown, and the first one's */
		for (int i = 0; i < n; i++) {
			const char *v = value_of(rs[i], conds[c].key, bufs[i], sizeof(bufs[i]));
			if (!v)
				continue;
			if (unknown(v)) {
				if (!unk.value)
					unk.value = v;
				group_add(&unk, rs, labels, i, conds[c].key, v, bufs);
				continue;
			}
			int k = 0;
			while (k < ng && strcmp(g[k].value, v))
				k++;
			if (k == ng) {
				g[ng].value = v;
				g[ng++].labels[0] = 0;
			}
			group_add(&g[k], rs, labels, i, conds[c].key, v, bufs);
		}
		if (ng == 0 || ng + (unk.value != NULL) < 2)
			continue;
		/* repetitions of one cell measured under different conditions */
		char within[256] = "";
		for (int i = 0; ng > 1 && i < n; i++) {
			const char *v = known_of(rs[i], conds[c].key, bufs[i], sizeof(bufs[i]));
			bool varies = false, listed = false;
			for (int j = 0; v && j < i; j++) {
				const char *w = known_of(rs[j], conds[c].key, bufs[j], sizeof(bufs[j]));
				varies |= strcmp(labels[j], labels[i]) == 0 && w && strcmp(w, v) != 0;
			}
			for (const char *p = within; varies && *p && !listed; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
				listed = strncmp(p, labels[i], strlen(labels[i])) == 0 &&
				         (p[strlen(labels[i])] == ',' || !p[strlen(labels[i])]);
			if (varies && !listed)
				snprintf(within + strlen(within), sizeof(within) - strlen(within), "%s%s", within[0] ? ", " : "",
				         labels[i]);
		}
		size_t cap = 128 + strlen(within) + (unk.value ? strlen(unk.value) + strlen(unk.labels) : 0);
		for (int k = 0; k < ng; k++)
			cap += strlen(g[k].value) + strlen(g[k].labels) + 16;
		char *line = xmalloc(cap + strlen(conds[c].label));
		int len;
		if (ng < 2) {   /* one known value: only an unknown one might differ from it */
			len = sprintf(line, "conditions unknown: %s %s in %s, %s in %s: the comparison cannot rule out a "
			              "difference", conds[c].label, unk.value, unk.labels, g[0].value, g[0].labels);
		} else {
			len = sprintf(line, "conditions differ: %s ", conds[c].label);
			for (int k = 0; k < ng; k++)
				len += sprintf(line + len, "%s%s in %s", k ? ", " : "", g[k].value, g[k].labels);
			if (within[0])
				len += sprintf(line + len, " (varies within %s)", within);
			if (unk.value)
				sprintf(line + len, " (unknown in %s)", unk.labels);
		}
		strlist_add(lines, line);
		free(line);
		added++;
	}
	free(g);
	free(bufs);
	return added;
}

void cond_summary(const struct result *r, char *out, size_t len)
{
	const struct kvlist *c = &r->conditions;
	const char *pm = kvlist_get(c, "pm_qos"), *sys = kvlist_get(c, "pm_qos.system");
	const char *drv = kvlist_get(c, "cpuidle.driver"), *gov = kvlist_get(c, "cpuidle.governor");
	out[0] = 0;
	if (!c->n)
		return;
	size_t n = (size_t)snprintf(out, len, "PM QoS %s (system-wide: %s); cpuidle %s, governor %s", pm ? pm : "?",
	                            sys ? sys : "?", drv ? drv : "?", gov ? gov : "?");
	for (int i = 0; i < r->conditions_changed.n && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "; changed during the run: ",
		                      r->conditions_changed.v[i].key);
}

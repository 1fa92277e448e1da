/* The tunables registry: one table entry per knob, enough to show it, check a value, change
 * it and put it back. Three scopes:
 *   KNOB_THREAD  per-thread settings of the probe (policy, nice, slice...): no system change;
 *                "applying" one sets the probe's config, the probe applies it to itself;
 *   KNOB_CGROUP  CPU bandwidth/weight of irt's own cgroup (holding the probes or the loads);
 *                the cgroup is journaled and removed afterwards, its files vanish with it;
 *   KNOB_SYSTEM  sysctls and debugfs files: the original value is journaled (fsync) before
 *                the write and written back by knob_restore_all, on signals, or by the next
 *                irt after a crash (journal.h).
 * Values are strings: durations with a unit ("4ms") or a bare number in the knob's own unit
 * (the "_ms" of kernel.sched_rr_timeslice_ms), "max" where a limit can be lifted, integers,
 * 0/1, or a name (policy). See docs/knobs.md. */
#ifndef IRT_LINUX_KNOB_H
#define IRT_LINUX_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "linux/cgroup.h"

enum knob_scope { KNOB_THREAD, KNOB_CGROUP, KNOB_SYSTEM };
enum knob_type { KT_DURATION, KT_INT, KT_BOOL, KT_CHOICE };
/* Which of irt's tasks the cgroup knobs confine. */
enum knob_cgroup_of { KNOB_CG_PROBES, KNOB_CG_LOADS };

/* Everything a knob needs about where it runs. */
struct knob_ctx {
	struct cg_hier hier;
	int cgroup_of;              /* enum knob_cgroup_of: names the cgroup irt-<pid>-probes|loads */
	enum cg_parent cg_parent;   /* create it under the hierarchy root (default) or irt's cgroup */
	bool allow_rt_unthrottled;  /* permits kernel.sched_rt_runtime_us=-1 */
	struct probe_cfg *probe;    /* KNOB_THREAD knobs are applied to this config; NULL: refused */
	struct cgroup cg;           /* irt's cgroup once created (cg.path[0] != 0) */
	/* kernel.sched_rt_runtime_us and _period_us (ns, -1: unthrottled) an earlier setting of the same command
	 * writes first: each is checked against the other's value at its turn, as the kernel
	 * checks each write (knob_plan) */
	struct { bool set; int64_t ns; } rt_runtime, rt_period;
};

struct knob;
struct knob_ops {
	/* 0 if irt can change the knob here; else -1 and why->msg says why not. */
	int (*available)(const struct knob *, struct knob_ctx *, struct err *why);
	/* The current value, formatted as knob values are written ("100ms", "max", "1"). */
	int (*read)(const struct knob *, struct knob_ctx *, char *buf, size_t len, struct err *);
	/* Checks a value (syntax, range, safety); EXIT_USAGE errors. */
	int (*validate)(const struct knob *, struct knob_ctx *, const char *value, struct err *);
	/* Validates and applies; *effective (if not NULL) gets what the kernel made of it. */
	int (*apply)(const struct knob *, struct knob_ctx *, const char *value, char *effective,
		     size_t len, struct err *);
	/* Is path (sysroot included) one of the files this SYSTEM knob writes? NULL: exactly
	 * <sysroot><file>. Restore writes a journaled value back only to such a path. */
	bool (*owns)(const struct knob *, const char *path);
};

struct knob {
	const char *name;      /* "kernel.sched_rr_timeslice_ms", "cgroup.quota", "policy" */
	const char *unit;      /* unit of a bare number: "ms", "us", "ns", or "" */
	const char *help;      /* one line */
	enum knob_scope scope;
	enum knob_type type;
	int64_t scale;         /* KT_DURATION: ns per unit of the kernel file */
	int64_t min, max;      /* KT_DURATION: ns; KT_INT: plain */
	bool unlimited;        /* accepts "max" (-1 in the kernel file) */
	const char *file;      /* SYSTEM: path from / ; CGROUP: v1 file; THREAD: the probe option */
	const char *file_v2;   /* CGROUP: v2 file (NULL: not on v2) */
	int field;             /* CGROUP v2: which space-separated field of file_v2 ("cpu.max") */
	const struct knob_ops *ops;
};

extern const struct knob knob_table[];
extern const int knob_count;

const struct knob *knob_find(const char *name);
const char *knob_scope_name(enum knob_scope s);

/* Detects the cgroup hierarchy; defaults: probes' cgroup under the root, RT throttling kept. */
int knob_ctx_init(struct knob_ctx *c, struct err *e);

/* Splits "NAME=VALUE" and finds the knob (EXIT_USAGE "unknown knob" listing none). */
int knob_parse_setting(const char *s, const struct knob **k, char *value, size_t len, struct err *e);

static inline int knob_available(const struct knob *k, struct knob_ctx *c, struct err *why)
{
	return k->ops->available(k, c, why);
}
static inline int knob_read(const struct knob *k, struct knob_ctx *c, char *buf, size_t len, struct err *e)
{
	return k->ops->read(k, c, buf, len, e);
}
int knob_validate(const struct knob *k, struct knob_ctx *c, const char *value, struct err *e);
/* Notes a validated setting the command writes before its later ones are validated (the RT
 * runtime/period pair, knob_ctx); knob_plan_done forgets them before anything is applied. */
void knob_plan(const struct knob *k, struct knob_ctx *c, const char *value);
void knob_plan_done(struct knob_ctx *c);
/* knob_available as an error naming the knob: "KNOB: unavailable here: WHY" (EXIT_RUNTIME).
 * Commands call it before they take the journal lock, so the lock's privilege is never the
 * reason given for a knob that could not be changed anyway. */
int knob_require(const struct knob *k, struct knob_ctx *c, struct err *e);
/* Whether this process may give a thread this policy, prio and nice (enum probe_policy), as a
 * probe does: exit 1 and the privilege it needs, else 0. */
int knob_thread_permitted(int policy, int64_t prio, int64_t nice, struct err *e);
/* Checks availability, validates, journals (SYSTEM) or creates irt's cgroup (CGROUP), and
 * applies. Errors name the knob: "kernel.sched_rt_runtime_us: ...". */
int knob_apply(const struct knob *k, struct knob_ctx *c, const char *value, char *effective,
	       size_t len, struct err *e);

/* Creates irt's cgroup now if it does not exist (a sweep does this in every cell when any
 * cell sets a cgroup knob, so that all cells share the same placement). */
int knob_cgroup_ensure(struct knob_ctx *c, struct err *e);
/* irt's cgroup, or NULL when none exists: move the probes or loads into it (cgroup_move). */
const struct cgroup *knob_cgroup(const struct knob_ctx *c);

/* Undoes every SYSTEM change and removes irt's cgroup (journal_restore); the journal lock
 * stays held for the next cell. */
int knob_restore_all(struct knob_ctx *c, struct err *e);

/* May restore write `value` to `path` for the journal entry labelled `label`? Only when label
 * names a SYSTEM knob, path is one of its files and value has the form its kernel file holds
 * (an integer, -1 where unlimited, 0/1). Otherwise false with why filled. */
bool knob_journal_ok(const char *label, const char *path, const char *value, char *why, size_t len);

/* The value a journal entry labelled `label` writes back (`raw`, as its kernel file holds it),
 * formatted as the knob's values are shown ("950ms" for 950000 in an _us file): buf, or raw
 * itself when the knob has no unit (a name, 0/1, a plain number) or raw does not parse; NULL when
 * the file's value is not the knob's (cpuidle.*: one state's disable flag). */
const char *knob_journal_value(const char *label, const char *raw, char *buf, size_t len);

/* Parses a knob value into base units (ns for durations, -1 for "max"); EXIT_USAGE errors. */
int knob_parse_value(const struct knob *k, const char *value, int64_t *v, struct err *e);
/* Formats a base-unit value the way values are written. */
char *knob_format_value(const struct knob *k, int64_t v, char *buf, size_t len);

#endif

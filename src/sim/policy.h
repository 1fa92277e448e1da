/* Scheduling policies of the simulator behind one small ops table.
 *
 * The engine (or a step script) owns time and threads; a policy only orders the threads of
 * one CPU. The calls mirror a kernel scheduler's entries (docs/sim.md):
 *   create/destroy   a thread joins or leaves the CPU (not ready)
 *   ready/unready    it becomes runnable / blocks
 *   ready_check      ready() plus "does this wake-up outdate the current head?" (preemption)
 *   yield            the head gives up the rest of its quantum at the next update
 *   update(c)        the head consumed c since the last update: charge it and choose anew
 *   head/quantum     whom to run and for how long at most (INT64_MAX: no limit)
 * Only update chooses; every other call only changes the policy's lists. Before every call
 * the caller sets p->now, the current time in the same unit as c (ns in the engine, ticks in
 * step scripts, where time advances only by update). Adding a policy: one policy_*.c file
 * defining a `const struct policy_ops` and one line in sim_policies[] (policy.c). */
#ifndef IRT_SIM_POLICY_H
#define IRT_SIM_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "hot.h"

/* What a policy knows about a thread. The engine embeds it in its own thread record. */
struct sthread {
	const char *name;
	int id;                            /* unique per policy instance, stable for ties */
	const struct sim_thread_cfg *cfg;  /* parameters; cfg->quota_ns is the resolved quota */
	void *ps;                          /* the policy's per-thread state (create..destroy) */
};

struct policy {
	const struct policy_ops *ops;
	void *st;          /* the policy's state */
	int64_t now;       /* set by the caller before every call */
	uint64_t decisions;/* number of updates (counted by policy_update) */
};

struct ss_policy;

struct policy_ops {
	const char *name;                  /* "hwquota" */
	const char *summary;               /* one line for help and docs */
	const char *const *sim_keys;       /* [sim] keys it reads (NULL-terminated) */
	const char *const *thread_keys;    /* [thread] keys it reads */
	int (*init)(struct policy *, const struct sim_cfg *, struct err *);
	void (*fini)(struct policy *);
	/* Rejects impossible thread sets on one CPU (claims over the super period, EDF
	 * utilisation over 100 %, ...); NULL: anything goes. Messages name the thread. */
	int (*admit)(const struct sim_cfg *, struct sthread *const *threads, int n, struct err *);
	void (*create)(struct policy *, struct sthread *);
	void (*destroy)(struct policy *, struct sthread *);
	void (*ready)(struct policy *, struct sthread *);
	void (*unready)(struct policy *, struct sthread *);
	bool (*ready_check)(struct policy *, struct sthread *);
	void (*yield)(struct policy *);
	void (*quota)(struct policy *, struct sthread *, int64_t q);  /* NULL: no such op */
	void (*update)(struct policy *, int64_t consumed);
	struct sthread *(*head)(const struct policy *);   /* NULL: idle */
	int64_t (*quantum)(const struct policy *);        /* of the head; INT64_MAX: unlimited */
	int64_t (*time)(const struct policy *);           /* shown by step scripts as time= */
	/* Optional: update, then head and quantum, in one call (the engine's every decision;
	 * NULL: the three ops). */
	struct sthread *(*decide)(struct policy *, int64_t consumed, int64_t *quantum);
	/* schedsim's policies run schedsim's own job-level model (schedsim.h) instead of the
	 * engine: they set only this, the names and the keys; every op above is NULL. */
	const struct ss_policy *schedsim;
};

extern const struct policy_ops *const sim_policies[];
extern const int sim_npolicies;
extern const char *const sim_policy_names[];      /* for the option table's choices */

const struct policy_ops *policy_find(const char *name);
bool policy_reads(const char *const *keys, const char *key);

int policy_init(struct policy *p, const struct policy_ops *ops, const struct sim_cfg *cfg, struct err *e);
void policy_fini(struct policy *p);

/* Thin wrappers so callers read like the spec. */
static inline void policy_create(struct policy *p, struct sthread *s) { p->ops->create(p, s); }
static inline void policy_destroy(struct policy *p, struct sthread *s) { p->ops->destroy(p, s); }
static inline void policy_ready(struct policy *p, struct sthread *s) { p->ops->ready(p, s); }
static inline void policy_unready(struct policy *p, struct sthread *s) { p->ops->unready(p, s); }
static inline bool policy_ready_check(struct policy *p, struct sthread *s) { return p->ops->ready_check(p, s); }
static inline void policy_yield(struct policy *p) { p->ops->yield(p); }
static inline void policy_update(struct policy *p, int64_t c) { p->decisions++; p->ops->update(p, c); }
static inline struct sthread *policy_head(const struct policy *p) { return p->ops->head(p); }
static inline int64_t policy_quantum(const struct policy *p) { return p->ops->quantum(p); }
static inline struct sthread *policy_decide(struct policy *p, int64_t c, int64_t *quantum)
{
	if (p->ops->decide) {
		p->decisions++;
		return p->ops->decide(p, c, quantum);
	}
	policy_update(p, c);
	*quantum = policy_quantum(p);
	return policy_head(p);
}

extern const struct policy_ops policy_hwquota, policy_rr, policy_cfsbw, policy_edf, policy_fair,
	policy_bvt, policy_schedsim_rr, policy_schedsim_stride, policy_schedsim_base_hw, policy_schedsim_bvt,
	policy_schedsim_bvt_nowarp, policy_schedsim_bvt_sculpt;

/* ---- helpers shared by the policy files ---- */

/* Intrusive doubly linked list with a sentinel: O(1) insert at head/tail, remove, rotate. */
struct dnode {
	struct dnode *prev, *next;
};
static inline void dlist_init(struct dnode *l) { l->prev = l->next = l; }
static inline bool dlist_empty(const struct dnode *l) { return l->next == l; }
IRT_HOT_INLINE void dlist_insert_after(struct dnode *at, struct dnode *n)
{
	/* n's two links are stored apart (next's link between them may alias for all gcc knows):
	 * paired, gcc builds them in a vector register first, two instructions more */
	struct dnode *next = at->next;
	n->next = next;
	next->prev = n;
	n->prev = at;
	at->next = n;
}
IRT_HOT_INLINE void dlist_push_head(struct dnode *l, struct dnode *n) { dlist_insert_after(l, n); }
IRT_HOT_INLINE void dlist_push_tail(struct dnode *l, struct dnode *n) { dlist_insert_after(l->prev, n); }
IRT_HOT_INLINE void dlist_remove(struct dnode *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;   /* n's own links are left stale: nothing reads them before it is linked again */
}
IRT_HOT_INLINE struct dnode *dlist_first(const struct dnode *l) { return l->next == l ? NULL : l->next; }

#define DCONTAINER(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* The ready set of bvt and fair as a bit per slot (their threads' places in their arrays): bits
 * with slot's bit set to ready. Slots from 64 on have none: with more than 64 threads those
 * policies pass over every slot instead. */
static inline uint64_t slot_bit(uint64_t bits, int slot, bool ready)
{
	return slot < 64 ? (bits & ~(1ull << slot)) | (uint64_t)ready << slot : bits;
}

#endif

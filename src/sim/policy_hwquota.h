/* hwquota's state and the calls of every decision (docs/hw-quota.md; policy_hwquota.c has the
 * rest): inline here so that the engine's loop for hwquota calls them without the ops table
 * (engine.c). */
#ifndef IRT_SIM_POLICY_HWQUOTA_H
#define IRT_SIM_POLICY_HWQUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/policy.h"

struct hwq_share {
	struct sthread *t;
	int prio;
	struct dnode *band;       /* R[prio] and its bit in `live`, for ready, unready and every */
	uint64_t bit;             /* charge without index arithmetic */
	int64_t quota, claim, fill;
	bool ready;
	bool owned;               /* allocated by hwq_create (else the caller's storage, see there) */
	bool in_claims;           /* has a claim: in CL, and in R[prio] while ready */
	struct dnode claim_node;  /* in R[prio] while ready */
	struct dnode cl_node;     /* in CL */
	struct dnode fill_node;   /* in FL while ready */
};

struct hwq {
	int64_t Q, F;             /* super period, fill slice (= idle quantum) */
	int P;                    /* priority bands 0..P-1 */
	int64_t residual;         /* time left in this super period */
	struct hwq_share *R;      /* per band: ready claims (ordered) behind a sentinel share of claim
	                             0, which reads as "no claim" when the band is empty */
	struct dnode CL;          /* every claim, ready or not, for the super period's refill: the
	                             spec's unready lists U[prio] are its unready part (nothing reads
	                             their order, so no list of their own to move claims in and out) */
	struct dnode FL;          /* round-robin fill list: every ready share */
	uint64_t live;            /* bit b: R[b]'s first share has claim > 0 (bands < 64) */
	struct hwq_share *head;       /* NULL: idle */
	int64_t head_q;           /* quantum granted when chosen */
	bool head_claims, yield_pending;
};

#define HWQ_SHARE(s) ((struct hwq_share *)(s)->ps)
#define HWQ_CLAIM_OF(n) DCONTAINER(n, struct hwq_share, claim_node)
#define HWQ_FILL_OF(n) DCONTAINER(n, struct hwq_share, fill_node)
#define HWQ_BAND(h, b) (&(h)->R[b].claim_node)   /* the list R[b] */

/* Keeps `live` right for band b after any change to R[b] or to a claim in it; choosing is
 * then one bit scan instead of a walk over the bands (the rule itself is unchanged). An
 * empty band's first is its sentinel, of claim 0: no test for empty, no branch. */
IRT_HOT_INLINE void hwq_refresh(struct hwq *h, const struct dnode *band, uint64_t bit)
{
	uint64_t on = HWQ_CLAIM_OF(band->next)->claim > 0 ? bit : 0;
	h->live = (h->live & ~bit) | on;
}

IRT_HOT_INLINE void hwq_make_ready(struct hwq *h, struct hwq_share *s)
{
	s->ready = true;
	s->fill = h->F;                            /* fresh slice on every ready */
	dlist_push_tail(&h->FL, &s->fill_node);
	if (s->quota > 0) {
		if (s->claim > 0) {                    /* the band's first, with a claim: live */
			dlist_push_head(s->band, &s->claim_node);
			h->live |= s->bit;
		} else {                               /* last: the first (and `live`) stay as they were */
			dlist_push_tail(s->band, &s->claim_node);
		}
	}
}

static inline void hwq_new_super_period(struct hwq *h)
{
	h->residual = h->Q;
	for (struct dnode *n = h->CL.next; n != &h->CL; n = n->next) {
		struct hwq_share *s = DCONTAINER(n, struct hwq_share, cl_node);
		s->claim = s->quota;
	}
	for (int p = 0; p < h->P; p++)
		hwq_refresh(h, HWQ_BAND(h, p), UINT64_C(1) << p);
}

/* `within`: c is at most the quantum granted last (min of head quantum and residual), as in the
 * engine, whose every update comes at or before its expiry: trimming then changes nothing.
 * `yields`: a yield may be pending (false: no thread of the run ever yields, no test). */
IRT_HOT_INLINE void hwq_update_inline(struct hwq *h, int64_t c, bool within, bool yields)
{
	struct hwq_share *hd = h->head;

	/* 1. trim, 2. remainder */
	int64_t t = c;
	if (!within) {
		t = c < h->head_q ? c : h->head_q;
		if (t > h->residual)
			t = h->residual;
	}
	int64_t r;
	if (yields && h->yield_pending) {
		r = 0;
		h->yield_pending = false;
	} else {
		r = h->head_q - t;
	}

	/* 3. charge the old head */
	if (h->head_claims) {
		if (hd->quota > 0) {
			hd->claim = r < hd->quota ? r : hd->quota;
			if (hd->ready) {   /* not ready: not in R[prio], whose first and live bit stay */
				if (hd->claim == 0) {
					dlist_remove(&hd->claim_node);
					dlist_push_tail(hd->band, &hd->claim_node);
				}
				hwq_refresh(h, hd->band, hd->bit);
			}
		}
	} else if (hd && h->FL.next == &hd->fill_node) {
		if (r > 0) {
			hd->fill = r;
		} else {
			hd->fill = h->F;
			dlist_remove(&hd->fill_node);
			dlist_push_tail(&h->FL, &hd->fill_node);
		}
	}

	/* 4. advance the super period */
	if (h->residual > t)
		h->residual -= t;
	else
		hwq_new_super_period(h);

	/* 5. choose: the highest band whose first claim has claim > 0 (only the first counts) */
	struct hwq_share *nh = NULL;   /* set once, from locals: the caller reads them back */
	int64_t q = h->F;
	if (h->live) {
		int b = 63 - __builtin_clzll(h->live);
		nh = HWQ_CLAIM_OF(h->R[b].claim_node.next);
		q = nh->claim;
	} else if (h->FL.next != &h->FL) {
		nh = HWQ_FILL_OF(h->FL.next);
		q = nh->fill;
	}
	h->head_claims = h->live != 0;
	h->head = nh;
	h->head_q = q;
}

/* The calls of every decision on a share; the engine's loop for hwquota keeps each thread's
 * share in its own thread record and calls these directly (from a thread to its share and back
 * is then an offset, not a pointer loaded on the way to the next event). */
IRT_HOT_INLINE void hwq_unready_share(struct hwq *h, struct hwq_share *s)
{
	s->ready = false;
	dlist_remove(&s->fill_node);
	if (s->quota > 0) {   /* out of R[prio]; it stays in CL */
		dlist_remove(&s->claim_node);
		hwq_refresh(h, s->band, s->bit);
	}
}

IRT_HOT_INLINE bool hwq_ready_check_share(struct hwq *h, struct hwq_share *s)
{
	hwq_make_ready(h, s);
	if (s->claim == 0)
		return h->head == NULL;
	if (!h->head_claims)
		return true;
	if (s->prio != h->head->prio)
		return s->prio > h->head->prio;
	return s != h->head;
}

/* Update, then the new head's share (NULL: idle) and its quantum. */
IRT_HOT_INLINE struct hwq_share *hwq_decide_share(struct hwq *h, int64_t c, int64_t *quantum,
                                                                               bool within, bool yields)
{
	hwq_update_inline(h, c, within, yields);
	*quantum = h->head_q < h->residual ? h->head_q : h->residual;
	return h->head;
}

/* The same on a policy's threads. */
IRT_HOT_INLINE void hwq_unready_inline(struct policy *p, struct sthread *t)
{
	hwq_unready_share(p->st, HWQ_SHARE(t));
}

IRT_HOT_INLINE bool hwq_ready_check_inline(struct policy *p, struct sthread *t)
{
	return hwq_ready_check_share(p->st, HWQ_SHARE(t));
}

IRT_HOT_INLINE struct sthread *hwq_decide_inline(struct policy *p, int64_t c, int64_t *quantum,
                                                                              bool within)
{
	struct hwq_share *s = hwq_decide_share(p->st, c, quantum, within, true);
	return s ? s->t : NULL;
}

#endif

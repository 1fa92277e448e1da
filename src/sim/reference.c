/* Naive reference simulator and array-based hwquota, rr, bvt and fair (see reference.h).
 * Written for obviousness, not speed: nothing here is shared with engine.c or the real policies except
 * the interfaces and the random number generator. */
#include "sim/reference.h"

#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "util.h"

/* ================================================================ naive hwquota
 * Lists are arrays of share pointers; index 0 is the head of a list. */

struct nshare {
	struct sthread *t;
	int prio;
	int64_t quota, claim, fill;
	bool ready;
};

struct nlist {
	struct nshare **v;
	int n, cap;
};

static void nl_insert(struct nlist *l, int at, struct nshare *s)
{
	ARRAY_GROW(l->v, l->n + 1, l->cap);
	memmove(&l->v[at + 1], &l->v[at], sizeof(*l->v) * (size_t)(l->n - at));
	l->v[at] = s;
	l->n++;
}

static int nl_find(const struct nlist *l, const struct nshare *s)
{
	for (int i = 0; i < l->n; i++)
		if (l->v[i] == s)
			return i;
	return -1;
}

static bool nl_remove(struct nlist *l, const struct nshare *s)
{
	int i = nl_find(l, s);
	if (i < 0)
		return false;
	ARRAY_REMOVE(l->v, i, l->n);
	l->n--;
	return true;
}

struct nhwq {
	int64_t Q, F, residual, head_q;
	int P;
	struct nlist *R, *U, FL;
	struct nshare *head;   /* NULL: idle */
	bool head_claims, yield;
};

static int nh_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct nhwq *h = xcalloc(1, sizeof(*h));
	h->Q = h->residual = cfg->super_period;
	h->F = h->head_q = cfg->fill;
	h->P = (int)cfg->priorities;
	h->R = xcalloc((size_t)h->P, sizeof(struct nlist));
	h->U = xcalloc((size_t)h->P, sizeof(struct nlist));
	p->st = h;
	return 0;
}

static void nh_fini(struct policy *p)
{
	struct nhwq *h = p->st;
	for (int i = 0; i < h->P; i++) {
		free(h->R[i].v);
		free(h->U[i].v);
	}
	free(h->R);
	free(h->U);
	free(h->FL.v);
	free(h);
}

static void nh_create(struct policy *p, struct sthread *t)
{
	struct nhwq *h = p->st;
	struct nshare *s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->prio = (int)t->cfg->prio;
	s->quota = t->cfg->quota_ns;
	t->ps = s;
	if (s->quota > 0) {
		s->claim = s->quota;
		nl_insert(&h->U[s->prio], 0, s);
	}
}

static void nh_destroy(struct policy *p, struct sthread *t)
{
	struct nhwq *h = p->st;
	struct nshare *s = t->ps;
	nl_remove(&h->FL, s);
	nl_remove(&h->R[s->prio], s);
	nl_remove(&h->U[s->prio], s);
	free(s);
}

static void nh_ready(struct policy *p, struct sthread *t)
{
	struct nhwq *h = p->st;
	struct nshare *s = t->ps;
	s->ready = true;
	s->fill = h->F;
	nl_insert(&h->FL, h->FL.n, s);
	if (s->quota > 0) {
		nl_remove(&h->U[s->prio], s);
		nl_insert(&h->R[s->prio], s->claim > 0 ? 0 : h->R[s->prio].n, s);
	}
}

static void nh_unready(struct policy *p, struct sthread *t)
{
	struct nhwq *h = p->st;
	struct nshare *s = t->ps;
	s->ready = false;
	nl_remove(&h->FL, s);
	if (s->quota > 0) {
		nl_remove(&h->R[s->prio], s);
		nl_insert(&h->U[s->prio], h->U[s->prio].n, s);
	}
}

static bool nh_ready_check(struct policy *p, struct sthread *t)
{
	struct nhwq *h = p->st;
	struct nshare *s = t->ps;
	nh_ready(p, t);
	if (s->claim == 0)
		return h->head == NULL;
	if (!h->head_claims)
		return true;
	if (s->prio != h->head->prio)
		return s->prio > h->head->prio;
	return s != h->head;
}

static void nh_yield(struct policy *p)
{
	((struct nhwq *)p->st)->yield = true;
}

static void nh_quota(struct policy *p, struct sthread *t, int64_t q)
{
	struct nhwq *h = p->st;
	struct nshare *s = t->ps;
	if (s->quota > 0 && q > 0) {
		if (q < s->claim)
			s->claim = q;
	} else if (s->quota > 0) {
		nl_remove(&h->R[s->prio], s);
		nl_remove(&h->U[s->prio], s);
	} else if (q > 0) {
		struct nlist *l = s->ready ? &h->R[s->prio] : &h->U[s->prio];
		nl_insert(l, l->n, s);
	}
	s->quota = q;
}

static int64_t min3(int64_t a, int64_t b, int64_t c)
{
	int64_t m = a < b ? a : b;
	return m < c ? m : c;
}

static void nh_update(struct policy *p, int64_t c)
{
	struct nhwq *h = p->st;
	int64_t t = min3(c, h->head_q, h->residual);
	int64_t r = h->yield ? 0 : h->head_q - t;
	h->yield = false;
	struct nshare *hd = h->head;
	if (h->head_claims && hd->quota > 0) {
		hd->claim = r < hd->quota ? r : hd->quota;
		if (hd->claim == 0 && hd->ready && nl_remove(&h->R[hd->prio], hd))
			nl_insert(&h->R[hd->prio], h->R[hd->prio].n, hd);
	} else if (!h->head_claims && hd && h->FL.n > 0 && h->FL.v[0] == hd) {
		if (r > 0) {
			hd->fill = r;
		} else {
			hd->fill = h->F;
			nl_remove(&h->FL, hd);
			nl_insert(&h->FL, h->FL.n, hd);
		}
	}
	if (h->residual > t) {
		h->residual -= t;
	} else {
		h->residual = h->Q;
		for (int b = 0; b < h->P; b++) {
			for (int i = 0; i < h->R[b].n; i++)
				h->R[b].v[i]->claim = h->R[b].v[i]->quota;
			for (int i = 0; i < h->U[b].n; i++)
				h->U[b].v[i]->claim = h->U[b].v[i]->quota;
		}
	}
	for (int b = h->P - 1; b >= 0; b--)
		if (h->R[b].n > 0 && h->R[b].v[0]->claim > 0) {
			h->head = h->R[b].v[0];
			h->head_q = h->head->claim;
			h->head_claims = true;
			return;
		}
	h->head_claims = false;
	if (h->FL.n > 0) {
		h->head = h->FL.v[0];
		h->head_q = h->head->fill;
	} else {
		h->head = NULL;
		h->head_q = h->F;
	}
}

static struct sthread *nh_head(const struct policy *p)
{
	const struct nhwq *h = p->st;
	return h->head ? h->head->t : NULL;
}

static int64_t nh_quantum(const struct policy *p)
{
	const struct nhwq *h = p->st;
	return h->head_q < h->residual ? h->head_q : h->residual;
}

static int64_t nh_time(const struct policy *p)
{
	const struct nhwq *h = p->st;
	return h->Q - h->residual;
}

const struct policy_ops ref_policy_hwquota = {
	.name = "hwquota",
	.init = nh_init,
	.fini = nh_fini,
	.create = nh_create,
	.destroy = nh_destroy,
	.ready = nh_ready,
	.unready = nh_unready,
	.ready_check = nh_ready_check,
	.yield = nh_yield,
	.quota = nh_quota,
	.update = nh_update,
	.head = nh_head,
	.quantum = nh_quantum,
	.time = nh_time,
};

/* ================================================================ naive rr
 * One array of ready threads in arrival order; the head is the first of the highest priority. */

struct nrt {
	struct sthread *t;
	int prio;
	int64_t left;
};

struct nrr {
	int64_t slice;
	struct nrt **q;   /* ready threads in queue order (all priorities mixed) */
	int n, cap;
	struct nrt *head;
	bool yield;
};

static int nr_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct nrr *r = xcalloc(1, sizeof(*r));
	r->slice = cfg->slice > 0 ? cfg->slice : 100 * NSEC_PER_MSEC;
	p->st = r;
	return 0;
}

static void nr_fini(struct policy *p)
{
	struct nrr *r = p->st;
	free(r->q);
	free(r);
}

static int nr_index(const struct nrr *r, const struct nrt *s)
{
	for (int i = 0; i < r->n; i++)
		if (r->q[i] == s)
			return i;
	return -1;
}

static void nr_remove(struct nrr *r, const struct nrt *s)
{
	int i = nr_index(r, s);
	if (i < 0)
		return;
	ARRAY_REMOVE(r->q, i, r->n);
	r->n--;
}

static void nr_append(struct nrr *r, struct nrt *s)
{
	ARRAY_GROW(r->q, r->n + 1, r->cap);
	r->q[r->n++] = s;
}

static void nr_create(struct policy *p, struct sthread *t)
{
	struct nrr *r = p->st;
	struct nrt *s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->prio = (int)t->cfg->prio;
	s->left = r->slice;
	t->ps = s;
}

static void nr_destroy(struct policy *p, struct sthread *t)
{
	nr_remove(p->st, t->ps);
	free(t->ps);
}

static void nr_ready(struct policy *p, struct sthread *t)
{
	struct nrr *r = p->st;
	struct nrt *s = t->ps;
	s->left = r->slice;
	nr_append(r, s);
}

static void nr_unready(struct policy *p, struct sthread *t)
{
	nr_remove(p->st, t->ps);
}

static bool nr_ready_check(struct policy *p, struct sthread *t)
{
	struct nrr *r = p->st;
	nr_ready(p, t);
	return !r->head || ((struct nrt *)t->ps)->prio > r->head->prio;
}

static void nr_yield(struct policy *p)
{
	((struct nrr *)p->st)->yield = true;
}

static void nr_update(struct policy *p, int64_t c)
{
	struct nrr *r = p->st;
	struct nrt *h = r->head;
	if (h) {
		h->left -= c;
		if (r->yield || h->left <= 0) {
			h->left = r->slice;
			if (nr_index(r, h) >= 0) {   /* ready: to the tail */
				nr_remove(r, h);
				nr_append(r, h);
			}
		}
	}
	r->yield = false;
	r->head = NULL;
	for (int i = 0; i < r->n; i++)   /* first of the highest priority */
		if (!r->head || r->q[i]->prio > r->head->prio)
			r->head = r->q[i];
}

static struct sthread *nr_head(const struct policy *p)
{
	const struct nrr *r = p->st;
	return r->head ? r->head->t : NULL;
}

static int64_t nr_quantum(const struct policy *p)
{
	const struct nrr *r = p->st;
	return r->head ? r->head->left : INT64_MAX;
}

static int64_t nr_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops ref_policy_rr = {
	.name = "rr",
	.init = nr_init,
	.fini = nr_fini,
	.create = nr_create,
	.destroy = nr_destroy,
	.ready = nr_ready,
	.unready = nr_unready,
	.ready_check = nr_ready_check,
	.yield = nr_yield,
	.update = nr_update,
	.head = nr_head,
	.quantum = nr_quantum,
	.time = nr_time,
};

/* ================================================================ naive bvt
 * One array of all threads in creation order, scanned for every choice: the smallest
 * effective virtual time of the ready ones (ties: the smaller id), the next smallest for the
 * quantum, the smallest actual one for a waking thread. */

struct nbt {
	struct sthread *t;
	int64_t w, A, arem;
	int64_t W, L, U;
	bool warped, ready;
	int64_t warp_used, warp_again;   /* warped run so far; earliest time to warp again */
};

struct nbvt {
	int64_t C;
	struct nbt **q;
	int n, cap;
	struct nbt *head;
	int64_t last;
	bool yield_pending;
};

#define NBT(s) ((struct nbt *)(s)->ps)

static int nb_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct nbvt *b = xcalloc(1, sizeof(*b));
	b->C = cfg->slice > 0 ? cfg->slice : 10 * NSEC_PER_MSEC;
	p->st = b;
	return 0;
}

static void nb_fini(struct policy *p)
{
	struct nbvt *b = p->st;
	if (!b)
		return;
	free(b->q);
	free(b);
	p->st = NULL;
}

static inline int64_t nb_E(const struct nbt *s)
{
	return s->warped ? s->A - s->W : s->A;
}

/* E of s now, including what the head ran since the last update. */
static int64_t nb_E_now(const struct nbvt *b, const struct nbt *s, int64_t now)
{
	if (s != b->head)
		return nb_E(s);
	return nb_E(s) + ((now - b->last) * 1024 + s->arem) / s->w;
}

/* Scheduler virtual time: smallest A among ready threads; INT64_MIN when none. */
static int64_t nb_svt(const struct nbvt *b, const struct nbt *skip)
{
	int64_t m = INT64_MAX;
	for (int i = 0; i < b->n; i++)
		if (b->q[i] != skip && b->q[i]->ready && b->q[i]->A < m)
			m = b->q[i]->A;
	return m == INT64_MAX ? INT64_MIN : m;
}

static void nb_create(struct policy *p, struct sthread *t)
{
	struct nbvt *b = p->st;
	struct nbt *s = xcalloc(1, sizeof(*s));
	const struct sim_thread_cfg *x = t->cfg;
	s->t = t;
	s->w = x->weight > 0 ? x->weight : 1024;
	s->W = x->warp;
	s->L = x->warp_limit;
	s->U = x->unwarp;
	int64_t v = nb_svt(b, NULL);
	s->A = v == INT64_MIN ? 0 : v;
	t->ps = s;
	ARRAY_GROW(b->q, b->n + 1, b->cap);
	b->q[b->n++] = s;
}

static void nb_destroy(struct policy *p, struct sthread *t)
{
	struct nbvt *b = p->st;
	struct nbt *s = NBT(t);
	for (int i = 0; i < b->n; i++)
		if (b->q[i] == s) {
			ARRAY_REMOVE(b->q, i, b->n);
			b->n--;
			break;
		}
	if (b->head == s)
		b->head = NULL;
	free(s);
	t->ps = NULL;
}

static void nb_ready(struct policy *p, struct sthread *t)
{
	struct nbvt *b = p->st;
	struct nbt *s = NBT(t);
	int64_t v = nb_svt(b, s);
	if (v != INT64_MIN && s->A < v)
		s->A = v;
	s->ready = true;
	if (s->W > 0 && p->now >= s->warp_again) {
		s->warped = true;
		s->warp_used = 0;
	}
}

static void nb_unwarp(struct nbt *s, int64_t now)
{
	if (!s->warped)
		return;
	s->warped = false;
	s->warp_again = now + s->U;
}

static void nb_unready(struct policy *p, struct sthread *t)
{
	struct nbt *s = NBT(t);
	s->ready = false;
	nb_unwarp(s, p->now);
}

static bool nb_ready_check(struct policy *p, struct sthread *t)
{
	struct nbvt *b = p->st;
	struct nbt *s = NBT(t);
	nb_ready(p, t);
	if (!b->head)
		return true;
	return nb_E(s) < nb_E_now(b, b->head, p->now);
}

static void nb_yield(struct policy *p)
{
	((struct nbvt *)p->st)->yield_pending = true;
}

static void nb_update(struct policy *p, int64_t c)
{
	struct nbvt *b = p->st;
	struct nbt *h = b->head;
	int64_t now = p->now;
	if (h) {
		int64_t x = c * 1024 + h->arem;
		h->A += x / h->w;
		h->arem = x % h->w;
		if (h->warped) {
			h->warp_used += c;
			if (h->L > 0 && h->warp_used >= h->L)
				nb_unwarp(h, now);
		}
		if (b->yield_pending)   /* give up one allowance of virtual time */
			h->A += b->C * 1024 / h->w;
	}
	b->yield_pending = false;
	b->last = now;
	struct nbt *best = NULL;
	for (int i = 0; i < b->n; i++) {
		struct nbt *s = b->q[i];
		if (s->ready && (!best || nb_E(s) < nb_E(best) || (nb_E(s) == nb_E(best) && s->t->id < best->t->id)))
			best = s;
	}
	b->head = best;
}

static struct sthread *nb_head(const struct policy *p)
{
	const struct nbvt *b = p->st;
	return b->head ? b->head->t : NULL;
}

static int64_t nb_quantum(const struct policy *p)
{
	const struct nbvt *b = p->st;
	const struct nbt *h = b->head;
	if (!h)
		return INT64_MAX;
	int64_t q = INT64_MAX;
	const struct nbt *next = NULL;
	for (int i = 0; i < b->n; i++) {
		const struct nbt *s = b->q[i];
		if (s != h && s->ready && (!next || nb_E(s) < nb_E(next)))
			next = s;
	}
	if (next) {
		/* run until E(h) > E(next) + C*1024/w: real time (E(next) - E(h)) * w / 1024 + C */
		int64_t d = nb_E(next) - nb_E(h);
		q = d * h->w / 1024 + b->C;
	}
	if (h->warped && h->L > 0 && h->L - h->warp_used < q)
		q = h->L - h->warp_used;
	return q < 1 ? 1 : q;
}

static int64_t nb_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops ref_policy_bvt = {
	.name = "bvt",
	.init = nb_init,
	.fini = nb_fini,
	.create = nb_create,
	.destroy = nb_destroy,
	.ready = nb_ready,
	.unready = nb_unready,
	.ready_check = nb_ready_check,
	.yield = nb_yield,
	.update = nb_update,
	.head = nb_head,
	.quantum = nb_quantum,
	.time = nb_time,
};

/* ================================================================ naive fair
 * One array of all threads in creation order: the queue's virtual time V summed over the ready
 * ones at every call, every choice a walk over them. */

struct nft {
	struct sthread *t;
	int64_t w, slice, v, vrem, vd, lag;
	int64_t v_sleep;   /* v when it blocked */
	bool ready;
};

struct nfair {
	int64_t slice;
	struct nft **q;
	int n, cap;
	struct nft *head;
	int64_t last;       /* time of the last update */
	int64_t vlast;      /* V when it was last defined (queue not empty) */
	bool yield_pending;
};

#define NFT(s) ((struct nft *)(s)->ps)

static int nf_init(struct policy *p, const struct sim_cfg *cfg, struct err *e)
{
	(void)e;
	struct nfair *f = xcalloc(1, sizeof(*f));
	f->slice = cfg->slice > 0 ? cfg->slice : 3 * NSEC_PER_MSEC;
	p->st = f;
	return 0;
}

static void nf_fini(struct policy *p)
{
	struct nfair *f = p->st;
	if (!f)
		return;
	free(f->q);
	free(f);
	p->st = NULL;
}

static inline int64_t nf_slice_v(const struct nfair *f, const struct nft *s)
{
	return (s->slice > 0 ? s->slice : f->slice) * 1024 / s->w;
}

/* v of s now, including what the head ran since the last update. */
static int64_t nf_v_now(const struct nfair *f, const struct nft *s, int64_t now)
{
	if (s != f->head)
		return s->v;
	return s->v + ((now - f->last) * 1024 + s->vrem) / s->w;
}

/* V: weight-averaged v of the ready threads (floor), or the last V when none is ready;
 * *load gets their total weight. */
static int64_t nf_avg_v_load(struct nfair *f, int64_t now, int64_t *load)
{
	__int128 sum = 0;
	int64_t W = 0;
	for (int i = 0; i < f->n; i++) {
		const struct nft *s = f->q[i];
		if (!s->ready)
			continue;
		sum += (__int128)nf_v_now(f, s, now) * s->w;
		W += s->w;
	}
	*load = W;
	if (W == 0)
		return f->vlast;
	__int128 a = sum / W;
	if (sum < 0 && a * W != sum)
		a--;
	f->vlast = (int64_t)a;
	return f->vlast;
}

static int64_t nf_avg_v(struct nfair *f, int64_t now)
{
	int64_t load;
	return nf_avg_v_load(f, now, &load);
}

static void nf_create(struct policy *p, struct sthread *t)
{
	struct nfair *f = p->st;
	struct nft *s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->w = t->cfg->weight > 0 ? t->cfg->weight : 1024;
	s->slice = t->cfg->slice;
	t->ps = s;
	s->v = nf_avg_v(f, p->now);
	s->vd = s->v + nf_slice_v(f, s);
	ARRAY_GROW(f->q, f->n + 1, f->cap);
	f->q[f->n++] = s;
}

static void nf_destroy(struct policy *p, struct sthread *t)
{
	struct nfair *f = p->st;
	struct nft *s = NFT(t);
	for (int i = 0; i < f->n; i++)
		if (f->q[i] == s) {
			ARRAY_REMOVE(f->q, i, f->n);
			f->n--;
			break;
		}
	if (f->head == s)
		f->head = NULL;
	free(s);
	t->ps = NULL;
}

static void nf_ready(struct policy *p, struct sthread *t)
{
	struct nfair *f = p->st;
	struct nft *s = NFT(t);
	int64_t W;
	int64_t V = nf_avg_v_load(f, p->now, &W);
	int64_t lag = s->lag;
	if (lag < 0) {
		s->v = s->v_sleep > V ? s->v_sleep : V;
	} else {
		if (W > 0)
			lag = (int64_t)((__int128)lag * (W + s->w) / W);
		s->v = V - lag;
	}
	s->vrem = 0;
	s->vd = s->v + nf_slice_v(f, s);
	s->ready = true;
}

static void nf_unready(struct policy *p, struct sthread *t)
{
	struct nfair *f = p->st;
	struct nft *s = NFT(t);
	int64_t V = nf_avg_v(f, p->now);
	int64_t lim = 2 * nf_slice_v(f, s);
	s->v_sleep = nf_v_now(f, s, p->now);
	s->lag = V - s->v_sleep;
	if (s->lag > lim)
		s->lag = lim;
	if (s->lag < -lim)
		s->lag = -lim;
	s->ready = false;
}

static bool nf_ready_check(struct policy *p, struct sthread *t)
{
	struct nfair *f = p->st;
	struct nft *s = NFT(t);
	nf_ready(p, t);
	if (!f->head)
		return true;
	int64_t V = nf_avg_v(f, p->now);
	return s->v <= V && s->vd < f->head->vd;
}

static void nf_yield(struct policy *p)
{
	((struct nfair *)p->st)->yield_pending = true;
}

static void nf_update(struct policy *p, int64_t c)
{
	struct nfair *f = p->st;
	struct nft *h = f->head;
	if (h) {
		int64_t x = c * 1024 + h->vrem;
		h->v += x / h->w;
		h->vrem = x % h->w;
		if (f->yield_pending)
			h->vd += nf_slice_v(f, h);      /* as Linux: a yield pushes the deadline */
		if (h->v >= h->vd)
			h->vd = h->v + nf_slice_v(f, h);  /* request done: the next one */
	}
	f->yield_pending = false;
	f->last = p->now;
	f->head = NULL;
	int64_t V = nf_avg_v(f, p->now);
	struct nft *best = NULL, *any = NULL;
	for (int i = 0; i < f->n; i++) {
		struct nft *s = f->q[i];
		if (!s->ready)
			continue;
		if (!any || s->vd < any->vd)
			any = s;
		if (s->v <= V && (!best || s->vd < best->vd))
			best = s;
	}
	f->head = best ? best : any;
}

static struct sthread *nf_head(const struct policy *p)
{
	const struct nfair *f = p->st;
	return f->head ? f->head->t : NULL;
}

static int64_t nf_quantum(const struct policy *p)
{
	const struct nfair *f = p->st;
	const struct nft *h = f->head;
	if (!h)
		return INT64_MAX;
	/* real time until v reaches vd: ceil(((vd - v) * w - vrem) / 1024) */
	int64_t need = (h->vd - h->v) * h->w - h->vrem;
	int64_t q = (need + 1023) / 1024;
	return q < 1 ? 1 : q;
}

static int64_t nf_time(const struct policy *p)
{
	return p->now;
}

const struct policy_ops ref_policy_fair = {
	.name = "fair",
	.init = nf_init,
	.fini = nf_fini,
	.create = nf_create,
	.destroy = nf_destroy,
	.ready = nf_ready,
	.unready = nf_unready,
	.ready_check = nf_ready_check,
	.yield = nf_yield,
	.update = nf_update,
	.head = nf_head,
	.quantum = nf_quantum,
	.time = nf_time,
};

/* ================================================================ tick-by-tick engine */

enum { R_BLOCKED, R_READY, R_DONE };

struct rthr {
	struct sthread st;
	const struct sim_thread_cfg *c;
	struct result_thread *o;
	int state;
	int64_t wake_at;         /* when blocked */
	int64_t rel, work, dl, next_rel, left_total;
	bool started, begun;
	uint64_t rng;
	int64_t win_idx, win_count;
};

struct rcpu {
	struct policy pol;
	struct rthr *head;
	int64_t last_upd, quantum, run_from;
};

struct ref {
	const struct sim_cfg *cfg;
	struct rthr *t;
	int n;
	struct rcpu *c;
	sim_trace_fn trace;
	void *tctx;
};

static int64_t ref_uniform(uint64_t *rng, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	uint64_t span = (uint64_t)(hi - lo + 1);
	return lo + (int64_t)(sim_rand(rng) % span);
}

static int64_t ref_exec(struct rthr *t)
{
	return t->c->exec_dist == DIST_UNIFORM ? ref_uniform(&t->rng, t->c->exec, t->c->exec_max) : t->c->exec;
}

static int64_t ref_block(struct rthr *t)
{
	return t->c->block_max > t->c->block ? ref_uniform(&t->rng, t->c->block, t->c->block_max) : t->c->block;
}

static void ref_update(struct ref *g, struct rcpu *c, int64_t now)
{
	int64_t elapsed = now - c->last_upd;
	if (c->head)
		c->head->o->sim_spent_ns += elapsed;
	c->pol.now = now;
	c->pol.decisions++;
	c->pol.ops->update(&c->pol, elapsed);
	struct sthread *h = c->pol.ops->head(&c->pol);
	struct rthr *nh = NULL;
	for (int i = 0; i < g->n; i++)
		if (h == &g->t[i].st)
			nh = &g->t[i];
	int64_t q = c->pol.ops->quantum(&c->pol);
	if (q < 1)
		q = 1;
	c->head = nh;   /* a switch, if any, is counted once the instant is over (ref_run) */
	c->last_upd = now;
	c->quantum = q;
	if (g->trace)
		g->trace(g->tctx, (int)(c - g->c), now, nh ? nh->st.id : -1, q);
}

static void ref_block_thread(struct ref *g, struct rcpu *c, struct rthr *t, int64_t now, int64_t until)
{
	t->state = R_BLOCKED;
	t->wake_at = until;
	c->pol.now = now;
	c->pol.ops->unready(&c->pol, &t->st);
	ref_update(g, c, now);
}

static void ref_job_done(struct rthr *t, int64_t now)
{
	hist_record(&t->o->resp, now - t->rel);
	t->o->samples++;
	if (t->dl > 0) {
		if (now <= t->dl)
			t->o->deadlines_met++;
		else
			t->o->deadlines_missed++;
	}
	if (t->c->type == SIM_TIMER) {
		int64_t win = t->c->window, k = now / win;
		while (t->win_idx < k) {
			t->o->sim_windows++;
			if (t->win_count >= t->c->activations)
				t->o->sim_windows_ok++;
			if (t->o->sim_activations_min < 0 || t->win_count < t->o->sim_activations_min)
				t->o->sim_activations_min = t->win_count;
			t->win_idx++;
			t->win_count = 0;
		}
		t->win_count++;
	}
}

/* Its wake-up latency is taken at its first tick on the CPU, also right after the previous job. */
static void ref_new_job(struct rthr *t, int64_t rel, int64_t work)
{
	t->rel = rel;
	t->work = work;
	t->dl = t->c->deadline > 0 ? rel + t->c->deadline : 0;
	t->started = false;
}

/* (a) the running thread's burst is done at now */
static void ref_complete(struct ref *g, struct rcpu *c, int64_t now)
{
	struct rthr *h = c->head;
	const struct sim_thread_cfg *k = h->c;
	if (k->type == SIM_CPU_BOUND) {
		h->work = k->yield_every;
		c->pol.now = now;
		c->pol.ops->yield(&c->pol);
		ref_update(g, c, now);
		return;
	}
	ref_job_done(h, now);
	if (k->type == SIM_PERIODIC || k->type == SIM_TIMER) {
		if (h->next_rel <= now) {
			h->o->overruns += h->next_rel < now;
			int64_t rel = h->next_rel;
			h->next_rel += k->period;
			ref_new_job(h, rel, ref_exec(h));
		} else {
			ref_block_thread(g, c, h, now, h->next_rel);
		}
	} else if (k->type == SIM_IO) {
		int64_t b = ref_block(h);
		if (b == 0)
			ref_new_job(h, now, ref_exec(h));
		else
			ref_block_thread(g, c, h, now, now + b);
	} else if (k->type == SIM_ONESHOT) {
		if (h->left_total == 0) {
			h->o->sim_completion_ns = now - k->start;
			ref_block_thread(g, c, h, now, INT64_MAX);
			h->state = R_DONE;
			c->pol.ops->destroy(&c->pol, &h->st);
			return;
		}
		int64_t b = ref_block(h);
		int64_t w = k->exec > 0 && k->exec < h->left_total ? k->exec : h->left_total;
		h->left_total -= w;
		if (b == 0) {
			ref_new_job(h, now, w);
		} else {
			ref_block_thread(g, c, h, now, now + b);
			h->work = w;
		}
	}
}

/* (b) a blocked thread's wake-up time has come */
static void ref_wake(struct ref *g, struct rcpu *c, struct rthr *t, int64_t now)
{
	const struct sim_thread_cfg *k = t->c;
	switch (k->type) {
	case SIM_PERIODIC:
	case SIM_TIMER:
		ref_new_job(t, now, ref_exec(t));
		t->next_rel = now + k->period;
		break;
	case SIM_IO:
		ref_new_job(t, now, ref_exec(t));
		break;
	case SIM_CPU_BOUND:
		ref_new_job(t, now, k->yield_every > 0 ? k->yield_every : INT64_MAX / 4);
		t->started = true;
		t->dl = 0;
		break;
	case SIM_ONESHOT: {
		int64_t w = t->work;
		if (!t->begun) {
			t->begun = true;
			w = k->exec > 0 && k->exec < k->work ? k->exec : k->work;
			t->left_total = k->work - w;
		}
		ref_new_job(t, now, w);
		break;
	}
	}
	t->state = R_READY;
	c->pol.now = now;
	if (c->pol.ops->ready_check(&c->pol, &t->st))
		ref_update(g, c, now);
}

int ref_run(const struct sim_cfg *cfg, const struct sim_thread_spec *specs, int n, int64_t tick,
            const struct policy_ops *ops, struct result_thread *out, struct sim_totals *tot, sim_trace_fn trace,
            void *trace_ctx, struct err *e)
{
	if (!ops)
		ops = sim_policies[cfg->policy];
	int nc = (int)cfg->cpus;
	int64_t end = cfg->duration;
	for (int i = 0; i < n; i++) {
		const struct sim_thread_cfg *k = &specs[i].cfg;
		int64_t times[] = {k->start, k->period, k->exec, k->exec_max, k->block, k->block_max, k->work,
		                   k->yield_every, k->deadline, k->quota_ns};
		if (k->type != SIM_PERIODIC && k->type != SIM_CPU_BOUND && k->type != SIM_IO && k->type != SIM_ONESHOT &&
		    k->type != SIM_TIMER)
			return err_set(e, EXIT_USAGE, "reference: thread %s: type not supported", specs[i].name);
		if (k->exec_dist == DIST_EXPONENTIAL)
			return err_set(e, EXIT_USAGE, "reference: thread %s: exponential work not supported", specs[i].name);
		for (size_t j = 0; j < sizeof(times) / sizeof(times[0]); j++)
			if (times[j] % tick)
				return err_set(e, EXIT_USAGE, "reference: thread %s: times must be multiples of the tick", specs[i].name);
	}
	struct ref g = {.cfg = cfg, .n = n, .trace = trace, .tctx = trace_ctx};
	g.t = xcalloc((size_t)(n ? n : 1), sizeof(*g.t));
	g.c = xcalloc((size_t)nc, sizeof(*g.c));
	for (int ci = 0; ci < nc; ci++) {
		struct rcpu *c = &g.c[ci];
		c->pol.ops = ops;
		ops->init(&c->pol, cfg, e);
		c->quantum = ops->quantum(&c->pol);
		if (c->quantum < 1)
			c->quantum = 1;
	}
	for (int i = 0; i < n; i++) {
		struct rthr *t = &g.t[i];
		t->c = &specs[i].cfg;
		t->o = &out[i];
		t->st.name = specs[i].name;
		t->st.id = i;
		t->st.cfg = t->c;
		t->state = R_BLOCKED;
		t->wake_at = t->c->start;
		t->rng = sim_thread_rng(cfg->seed, i);
		out[i].sim_cpu = t->c->cpu;
		out[i].sim_activations_min = -1;
		g.c[t->c->cpu].pol.now = 0;
		ops->create(&g.c[t->c->cpu].pol, &t->st);
	}

	for (int64_t now = 0; now < end; now += tick) {
		for (int ci = 0; ci < nc; ci++) {
			struct rcpu *c = &g.c[ci];
			struct rthr *before = c->head;
			if (c->head && c->head->work == 0)
				ref_complete(&g, c, now);
			for (int i = 0; i < n; i++)
				if (g.t[i].c->cpu == ci && g.t[i].state == R_BLOCKED && g.t[i].wake_at == now)
					ref_wake(&g, c, &g.t[i], now);
			if (c->quantum != INT64_MAX && c->last_upd + c->quantum <= now)
				ref_update(&g, c, now);
			/* a switch is the head after the instant's events differing from the one before
			 * them: heads in between held the CPU for 0 ns */
			if (c->head && c->head != before) {
				c->head->o->sim_switches++;
				c->run_from = now + g.cfg->cs_cost;
			}
		}
		for (int ci = 0; ci < nc; ci++) {
			struct rcpu *c = &g.c[ci];
			struct rthr *h = c->head;
			if (!h || now < c->run_from)
				continue;
			if (!h->started) {
				h->started = true;
				hist_record(&h->o->wake, now - h->rel);
			}
			h->work -= tick;
			h->o->sim_used_ns += tick;
		}
	}

	for (int ci = 0; ci < nc; ci++)
		if (g.c[ci].head)
			g.c[ci].head->o->sim_spent_ns += end - g.c[ci].last_upd;
	for (int i = 0; i < n; i++) {
		struct rthr *t = &g.t[i];
		const struct sim_thread_cfg *k = t->c;
		if (t->state == R_READY && t->work == 0 && k->type != SIM_CPU_BOUND) {
			/* its last tick ended at the end: finished then, as at any instant */
			ref_job_done(t, end);
			t->dl = 0;
			if (k->type == SIM_PERIODIC || k->type == SIM_TIMER)
				t->o->overruns += t->next_rel < end;
			if (k->type == SIM_ONESHOT && t->left_total == 0)
				t->o->sim_completion_ns = end - k->start;
		}
		if (t->state == R_READY && t->dl > 0 && t->dl <= end)
			t->o->deadlines_missed++;
		if (t->state == R_READY && (k->type == SIM_PERIODIC || k->type == SIM_TIMER))
			for (int64_t r = t->next_rel; r < end; r += k->period)
				if (k->deadline > 0 && r + k->deadline <= end)
					t->o->deadlines_missed++;
		if (k->type == SIM_TIMER) {
			for (int64_t w = t->win_idx; w < end / k->window; w++) {
				t->o->sim_windows++;
				int64_t cnt = w == t->win_idx ? t->win_count : 0;
				if (cnt >= k->activations)
					t->o->sim_windows_ok++;
				if (t->o->sim_activations_min < 0 || cnt < t->o->sim_activations_min)
					t->o->sim_activations_min = cnt;
			}
		}
		if (k->type == SIM_ONESHOT && !t->o->sim_completion_ns)
			t->o->sim_completion_ns = -1;
		t->o->sim_share_ppm = (int64_t)((__int128)t->o->sim_spent_ns * 1000000 / end);
	}
	if (tot) {
		tot->simulated_ns += end;
		for (int ci = 0; ci < nc; ci++)
			tot->decisions += g.c[ci].pol.decisions;
	}
	for (int i = 0; i < n; i++)
		if (g.t[i].state != R_DONE)
			ops->destroy(&g.c[g.t[i].c->cpu].pol, &g.t[i].st);
	for (int ci = 0; ci < nc; ci++)
		ops->fini(&g.c[ci].pol);
	free(g.t);
	free(g.c);
	return 0;
}

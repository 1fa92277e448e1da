/* Genode's Kernel::Cpu_scheduler (2015) behind genode.h's C interface. Genode's sources are not
 * in irt's repository: the Makefile compiles them from $GENODE with the shims in shim/. */
#include <kernel/cpu_scheduler.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#include "genode.h"

using Kernel::Cpu_scheduler;
using Kernel::Cpu_share;

/* A share that knows whom it schedules (the engine's thread) and is freed with its scheduler:
 * Genode cannot remove the head (remove() spins), which the engine's teardown asks for. */
struct gs_share : Cpu_share {
	void *owner;
	gs_share *all_next;
	gs_share(int prio, unsigned quota, void *o, gs_share *n) : Cpu_share(prio, quota), owner(o), all_next(n) {}
};

struct gs_sched {
	gs_share idle;
	Cpu_scheduler s;
	gs_share *all;
	gs_sched(unsigned q, unsigned f) : idle(0, 0, nullptr, nullptr), s(&idle, q, f), all(nullptr) {}
};

extern "C" void gs_fail(const char *what, const char *file, int line)
{
	std::fprintf(stderr, "Genode's scheduler: %s (%s:%d)\n", what, file, line);
	std::abort();
}

int gs_priorities(void) { return Kernel::cpu_priorities; }
const char *gs_compiler(void) { return __VERSION__; }

struct gs_sched *gs_new(unsigned super_period, unsigned fill) { return new gs_sched(super_period, fill); }

void gs_free(struct gs_sched *g)
{
	for (gs_share *s = g->all, *n; s; s = n) {
		n = s->all_next;
		delete s;
	}
	delete g;
}

struct gs_share *gs_create(struct gs_sched *g, int prio, unsigned quota, void *owner)
{
	g->all = new gs_share(prio, quota, owner, g->all);
	g->s.insert(g->all);
	return g->all;
}

void gs_destroy(struct gs_sched *g, struct gs_share *s)
{
	if (g->s.head() != s)   /* the head only at the engine's teardown: see gs_share */
		g->s.remove(s);
}

void gs_ready(struct gs_sched *g, struct gs_share *s) { g->s.ready(s); }
void gs_unready(struct gs_sched *g, struct gs_share *s) { g->s.unready(s); }
bool gs_ready_check(struct gs_sched *g, struct gs_share *s) { return g->s.ready_check(s); }
void gs_yield(struct gs_sched *g) { g->s.yield(); }
void gs_quota(struct gs_sched *g, struct gs_share *s, unsigned quota) { g->s.quota(s, quota); }
void gs_update(struct gs_sched *g, unsigned consumed) { g->s.update(consumed); }
void *gs_head(const struct gs_sched *g) { return static_cast<gs_share *>(g->s.head())->owner; }
unsigned gs_head_quota(const struct gs_sched *g) { return g->s.head_quota(); }
unsigned gs_time(const struct gs_sched *g) { return g->s.quota() - g->s.residual(); }

void *gs_decide(struct gs_sched *g, unsigned consumed, unsigned *quantum)
{
	g->s.update(consumed);
	*quantum = g->s.head_quota();
	return static_cast<gs_share *>(g->s.head())->owner;
}

/* The scheduler's calls as Genode's kernel makes them: direct member calls into
 * cpu_scheduler.cc, no C interface in between. */
uint64_t gs_replay(const struct gs_rec *log, size_t n, const int *prio, const unsigned *quota, int nthreads,
                   unsigned super_period, unsigned fill)
{
	Cpu_share idle(0, 0);
	Cpu_scheduler s(&idle, super_period, fill);
	Cpu_share *sh = static_cast<Cpu_share *>(std::malloc(sizeof(Cpu_share) * (size_t)nthreads));
	uint64_t h = 0;
	for (const gs_rec *r = log, *end = log + n; r < end; r++) {
		Cpu_share *x = &sh[r->thread];
		switch (r->op) {
		case GS_UPDATE: {
			s.update(r->arg);
			Cpu_share *hd = s.head();
			h = gs_hash(h, hd == &idle ? -1 : (int)(hd - sh), s.head_quota());
			break;
		}
		case GS_READY_CHECK: s.ready_check(x); break;
		case GS_UNREADY: s.unready(x); break;
		case GS_READY: s.ready(x); break;
		case GS_YIELD: s.yield(); break;
		case GS_CREATE:
			s.insert(new (x) Cpu_share(prio[r->thread], quota[r->thread]));
			break;
		case GS_DESTROY:
			if (s.head() != x)
				s.remove(x);
			break;
		case GS_QUOTA: s.quota(x, r->arg); break;
		}
	}
	std::free(sh);
	return h;
}

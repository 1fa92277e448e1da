#include "linux/noise_spin.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "linux/probe.h"
#include "linux/sched.h"
#include "linux/signals.h"
#include "linux/sysfile.h"
#include "result.h"
#include "units.h"
#include "util.h"

struct spinner {
	struct noise_cpu *nc;
	const struct noise_spin_cfg *c;
	pthread_t th;
	atomic_int *ready;         /* spinners set up (or failed) */
	atomic_bool *go, *stop;
	const int64_t *end;        /* set by the main thread before the barrier releases */
	char failed[400];
};

/* Records the gap [prev, now]; true when it had to grow the gap list (irt's own time). */
static bool record(struct spinner *s, int64_t prev, int64_t now)
{
	struct noise_cpu *nc = s->nc;
	int64_t gap = now - prev;
	hist_record(&nc->gaps, gap);
	nc->noise_ns += gap;
	nc->events++;
	if (!s->c->keep_gaps)
		return false;
	if (nc->ngap >= NOISE_MAX_GAPS) {
		nc->gaps_dropped++;
		nc->dropped_ns += gap;
		return false;
	}
	size_t cap = nc->gap_cap;
	ARRAY_GROW(nc->gap, nc->ngap + 1, nc->gap_cap);
	nc->gap[nc->ngap++] = (struct noise_gap){prev, now};
	return nc->gap_cap != cap;
}

static int setup(struct spinner *s)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(s->nc->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return snprintf(s->failed, sizeof(s->failed), "cannot pin the spinner to CPU %d: %s", s->nc->cpu,
		                strerror(errno)), -1;
	if (s->c->policy == POL_FIFO || s->c->policy == POL_RR) {
		struct sched_param sp = {.sched_priority = (int)s->c->prio};
		if (sched_setscheduler(0, s->c->policy == POL_FIFO ? SCHED_FIFO : SCHED_RR, &sp))
			return snprintf(s->failed, sizeof(s->failed), "--policy %s --prio %lld: sched_setscheduler failed: %s (%s)",
			                s->c->policy == POL_FIFO ? "fifo" : "rr", (long long)s->c->prio, strerror(errno),
			                irt_sched_perm_hint(1)), -1;
	}
	return 0;
}

/* The loop: a gap is the time between two reads. Recording a gap is part of the next interval
 * (some ns, below any threshold; a preemption in it is noise as any other), except when the gap
 * list grows: that is irt's own, left out and counted as excluded. */
static void *spin_main(void *arg)
{
	struct spinner *s = arg;
	const struct noise_spin_cfg *c = s->c;
	char name[16];
	snprintf(name, sizeof(name), "irt:noise%d", s->nc->cpu);
	pthread_setname_np(pthread_self(), name);
	s->nc->tid = irt_gettid();
	if (c->keep_gaps) {   /* room for the first gaps, touched now rather than while spinning */
		ARRAY_GROW(s->nc->gap, 4096, s->nc->gap_cap);
		memset(s->nc->gap, 0, sizeof(*s->nc->gap) * s->nc->gap_cap);
	}
	int rc = setup(s);
	atomic_fetch_add(s->ready, 1);
	if (rc)
		return NULL;
	while (!atomic_load(s->go)) {   /* all start together, when the main thread has set the end */
		struct timespec w = {0, 100000};
		nanosleep(&w, NULL);
	}
	int64_t end = *s->end, cycle = mono_ns();
	struct noise_cpu *nc = s->nc;
	while (!atomic_load_explicit(s->stop, memory_order_relaxed)) {
		int64_t from = mono_ns();
		if (from >= end)
			break;
		int64_t until = cycle + c->runtime < end ? cycle + c->runtime : end;
		int64_t prev = from, now = from;
		nc->windows++;
		while (now < until && !atomic_load_explicit(s->stop, memory_order_relaxed)) {
			now = mono_ns();
			if (now - prev > c->threshold && record(s, prev, now)) {
				/* irt's own allocation is no noise: left out, the clock read again after it */
				int64_t after = mono_ns();
				nc->excluded_ns += after - now;
				now = after;
			}
			prev = now;
		}
		nc->runtime_ns += now - from;
		cycle += c->period;
		if (cycle >= end)
			break;
		/* the rest of the period in slices, so that SIGINT or an error ends a long period's
		 * sleep at once, not at the period's end (all spinners sleep then: no one measures) */
		for (int64_t t = mono_ns(); t < cycle && !atomic_load(s->stop); t = mono_ns()) {
			int64_t until_ns = t + NOISE_SLEEP_SLICE_NS < cycle ? t + NOISE_SLEEP_SLICE_NS : cycle;
			struct timespec ts = {.tv_sec = until_ns / NSEC_PER_SEC, .tv_nsec = until_ns % NSEC_PER_SEC};
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		if (mono_ns() > cycle + c->period)   /* woken late past a whole period: start afresh */
			cycle = mono_ns();
	}
	return NULL;
}

/* Keeps what the spinners touch resident, as irt probe and oslat (mlockall) do: a page fault
 * while spinning would be irt's own gap, counted as noise. Everything when the limit allows
 * (root, CAP_IPC_LOCK, unlimited RLIMIT_MEMLOCK); else the per-CPU records the spinners write
 * (their stacks are touched deeper during setup than while spinning); else a note, unlocked.
 * The probe's modes and names (result_memory_locks). */
static enum probe_lock lock_memory(struct noise_cpu *cpus, int n, bool want)
{
	struct rlimit rl;
	if (!want)
		return PROBE_LOCK_NONE;
	if ((sys_has_cap(CAP_IPC_LOCK_BIT) || (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur == RLIM_INFINITY)) &&
	    !mlockall(MCL_CURRENT | MCL_FUTURE))
		return PROBE_LOCK_ALL;
	if (!mlock(cpus, sizeof(*cpus) * (size_t)n))
		return PROBE_LOCK_WORKING_SET;
	fprintf(stderr, "irt: note: cannot lock the spinners' memory (%s): measuring without, so page faults may add "
	        "noise (raise ulimit -l or run as root; --no-mlock says this is intended)\n", strerror(errno));
	return PROBE_LOCK_NONE_RLIMIT;
}

static void unlock_memory(struct noise_cpu *cpus, int n, enum probe_lock how)
{
	if (how == PROBE_LOCK_ALL)
		munlockall();
	else if (how == PROBE_LOCK_WORKING_SET)
		munlock(cpus, sizeof(*cpus) * (size_t)n);
}

int noise_spin_run(struct noise_cpu *cpus, int n, const struct noise_spin_cfg *c, bool *interrupted,
                   const char **memory_lock, struct err *e)
{
	enum probe_lock locked = lock_memory(cpus, n, c->mlock);
	*memory_lock = result_memory_locks[locked];
	struct spinner *sp = xcalloc((size_t)n, sizeof(*sp));
	atomic_int ready = 0;
	atomic_bool go = false, stop = false;
	int64_t end = 0;
	int started = 0, rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		sp[i] = (struct spinner){.nc = &cpus[i], .c = c, .ready = &ready, .go = &go, .stop = &stop, .end = &end};
		int err = pthread_create(&sp[i].th, NULL, spin_main, &sp[i]);
		if (err)
			rc = err_set(e, EXIT_RUNTIME, "noise: cannot start a spinner thread: %s", strerror(err));
		else
			started++;
	}
	while (atomic_load(&ready) < started) {
		struct timespec w = {0, 1000000};
		nanosleep(&w, NULL);
	}
	for (int i = 0; i < started && !rc; i++)
		if (sp[i].failed[0])   /* a missing privilege is a runtime failure (exit 1), as everywhere in irt */
			rc = err_set(e, EXIT_RUNTIME, "noise: %s", sp[i].failed);
	if (rc)
		atomic_store(&stop, true);
	end = mono_ns() + c->duration;
	atomic_store(&go, true);
	while (!rc && !atomic_load(&stop)) {
		int64_t left = end - mono_ns();
		if (left <= 0)
			break;
		if (sig_wait_stop(left < 100 * NSEC_PER_MSEC ? left : 100 * NSEC_PER_MSEC)) {
			*interrupted = true;
			atomic_store(&stop, true);
		}
	}
	atomic_store(&stop, true);
	for (int i = 0; i < started; i++)
		pthread_join(sp[i].th, NULL);
	unlock_memory(cpus, n, locked);
	free(sp);
	return rc;
}

#include "linux/probe.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "linux/acct.h"
#include "linux/sched.h"
#include "linux/signals.h"
#include "linux/sysfile.h"
#include "linux/trace.h"
#include "probe_cfg.h"
#include "units.h"
#include "util.h"

#define CACHE_LINE 64
#define STACK_SIZE (512 * 1024)
#define STACK_PREFAULT (256 * 1024)
/* working-set locking: the top of a probe thread's stack, the prefaulted depth and what sits
 * above it (thread control block, TLS, thread_main's frames) */
#define STACK_LOCK (STACK_PREFAULT + 64 * 1024)
#define WAKE_SIGNAL SIGUSR2

struct probe_thread {
	struct probe_session *s;
	const struct probe_cfg *cfg;
	struct result_thread *rt;
	int index;                 /* within its definition */
	pthread_t th;
	bool started;
	int64_t phase;             /* offset of the first release from the common start */
	int64_t iterations;        /* including the warm-up */
	int64_t warmup_iters;      /* the first wake-ups, not recorded */
	int64_t stall_iter;        /* --inject-stall: the wake-up it comes at (INT64_MAX: none, or done) */
	uint8_t *touch;            /* working set */
	uint32_t *order;           /* cache-line visiting order (random pattern) */
	size_t lines;
	uint64_t burn_loops;
	int sched_fd;              /* --attribute: our schedstat, for run_delay */
	struct explain_sample *log;  /* --explain: every recorded sample's release and wake-up */
	size_t nlog, caplog;
	int thread_index;          /* in the result */
	void *stack_lo;            /* working-set locking: the part of its stack it locked */
	size_t stack_len;
	struct acct_thread snap_begin, snap_end;
	bool have_begin, have_snaps;   /* snap_begin taken (after the warm-up); both taken */
	_Atomic uint64_t done;     /* iterations completed, for the status line */
	int64_t ended;             /* when its loop ended (CLOCK_MONOTONIC ns; 0: it never ran) */
	_Atomic int64_t max_wake;
	int failed;                /* setup or run-time failure, message in msg */
	char msg[300];
};

struct probe_session {
	struct probe_thread *t;
	int n;
	struct probe_opts o;
	enum probe_lock lock;      /* how memory is kept resident (chosen by choose_lock) */
	struct result_thread *rts; /* the result's threads (working-set locking unlocks them) */
	pthread_mutex_t mu;        /* the start gate: threads set up, then wait for go */
	pthread_cond_t cv;
	int ready;
	bool go;
	int64_t t0;                /* common start (CLOCK_MONOTONIC ns) */
	atomic_bool stop;
	atomic_bool crossed;       /* --stop-above: a thread's wake-up has ended the run */
	_Atomic int running;
	pthread_t owner;           /* the thread that started the session, waiting for its end */
	bool wake_owner;           /* it blocks SIG_LOOK: the last thread to end wakes it */
	int64_t start_rt;
	int64_t warmup_ns;         /* measuring starts this long after t0 (run.c's accounting window too) */
};

static struct timespec to_ts(int64_t ns)
{
	return (struct timespec){.tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC};
}

/* ---- calibrated CPU work ---- */

__attribute__((noinline)) void probe_burn_loops(uint64_t loops)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (uint64_t i = 0; i < loops; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ __volatile__("" : "+r"(x));   /* keep the dependency chain */
	}
}

int64_t probe_calibrate_burn(void)
{
	static int64_t cached;
	if (cached)
		return cached;
	const uint64_t loops = 200000;
	int64_t best = INT64_MAX;
	probe_burn_loops(loops);  /* warm up */
	for (int i = 0; i < 7; i++) {
		/* thread CPU time: preemption during calibration does not count */
		int64_t a = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		probe_burn_loops(loops);
		int64_t b = clock_ns(CLOCK_THREAD_CPUTIME_ID) - a;
		if (b > 0 && b < best)
			best = b;
	}
	cached = best * 1000 / (int64_t)loops;
	if (cached < 1)
		cached = 1;
	return cached;
}

/* ---- per-iteration memory work ---- */

static void touch_all(struct probe_thread *t)
{
	if (!t->lines)
		return;
	uint8_t *p = t->touch;
	if (t->order) {
		for (size_t i = 0; i < t->lines; i++)
			p[(size_t)t->order[i] * CACHE_LINE]++;
	} else {
		for (size_t i = 0; i < t->lines; i++)
			p[i * CACHE_LINE]++;
	}
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int alloc_touch(struct probe_thread *t)
{
	size_t size = (size_t)t->cfg->touch;
	if (!size)
		return 0;
	t->lines = (size + CACHE_LINE - 1) / CACHE_LINE;
	t->touch = mmap(NULL, t->lines * CACHE_LINE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->touch == MAP_FAILED) {
		t->touch = NULL;
		return -1;
	}
	memset(t->touch, 1, t->lines * CACHE_LINE);   /* prefault */
	if (t->cfg->touch_pattern == TOUCH_RANDOM) {
		t->order = malloc(t->lines * sizeof(*t->order));
		if (!t->order)
			return -1;
		for (size_t i = 0; i < t->lines; i++)
			t->order[i] = (uint32_t)i;
		uint64_t seed = t->s->o.seed ^ ((uint64_t)t->index << 32) ^ (uint64_t)(uintptr_t)t->cfg;
		for (size_t i = t->lines - 1; i > 0; i--) {   /* Fisher-Yates */
			size_t j = (size_t)(splitmix64(&seed) % (i + 1));
			uint32_t tmp = t->order[i];
			t->order[i] = t->order[j];
			t->order[j] = tmp;
		}
	}
	return 0;
}

/* ---- thread setup: every refusal names the setting and errno ---- */

static int fail(struct probe_thread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct probe_thread *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	t->failed = 1;
	return -1;
}

static __attribute__((noinline)) void prefault_stack(void)
{
	volatile char buf[STACK_PREFAULT];
	for (size_t i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
}

#define MEMLOCK_HINT " (locked memory is limited by RLIMIT_MEMLOCK: run as root, raise ulimit -l, or pass --no-mlock)"

/* Working-set locking: the top STACK_LOCK bytes of the calling thread's stack, which hold
 * everything it uses while measuring (thread_main's frames, the prefaulted depth, its TLS). */
static int lock_stack(struct probe_thread *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &attr))
		return -1;
	int rc = pthread_attr_getstack(&attr, &addr, &size);
	pthread_attr_destroy(&attr);
	if (rc)
		return errno = rc, -1;
	size_t len = size < STACK_LOCK ? size : STACK_LOCK;
	char *lo = (char *)addr + size - len;
	if (mlock(lo, len))
		return -1;
	t->stack_lo = lo;
	t->stack_len = len;
	return 0;
}

static int setup_thread(struct probe_thread *t)
{
	const struct probe_cfg *c = t->cfg;
	const char *pol = opt_find("policy")->choices[c->policy];
	char a[32], b[32], d[32];

	if (c->per_cpu) {
		cpu_set_t set;
		int cpu = probe_cfg_cpu_of(c, t->index);
		CPU_ZERO(&set);
		if (cpu >= 0)
			CPU_SET(cpu, &set);
		if (cpu < 0 || sched_setaffinity(0, sizeof(set), &set))
			return fail(t, "%s: --per-cpu: cannot pin to CPU %d: %s", t->rt->name, cpu,
			            cpu < 0 ? "the CPUs irt may run on changed" : strerror(errno));
	} else if (c->cpus[0]) {
		cpu_set_t set;
		struct err e = {0};
		if (irt_parse_cpus("--cpus", c->cpus, &set, &e))
			return fail(t, "%s", e.msg);
		if (sched_setaffinity(0, sizeof(set), &set))
			return fail(t, "%s: --cpus %s: sched_setaffinity failed: %s", t->rt->name, c->cpus, strerror(errno));
	}

	struct irt_sched_attr attr = {.size = sizeof(attr)};
	switch (c->policy) {
	case POL_OTHER: attr.sched_policy = SCHED_OTHER; break;
	case POL_BATCH: attr.sched_policy = SCHED_BATCH; break;
	case POL_IDLE: attr.sched_policy = SCHED_IDLE; break;
	case POL_FIFO: attr.sched_policy = SCHED_FIFO; break;
	case POL_RR: attr.sched_policy = SCHED_RR; break;
	case POL_DEADLINE: attr.sched_policy = SCHED_DEADLINE; break;
	}
	attr.sched_nice = (int32_t)c->nice;
	if (c->policy == POL_FIFO || c->policy == POL_RR)
		attr.sched_priority = (uint32_t)c->prio;
	if (c->policy == POL_DEADLINE) {
		attr.sched_runtime = (uint64_t)c->dl_runtime;
		attr.sched_deadline = (uint64_t)c->dl_deadline;
		attr.sched_period = (uint64_t)c->dl_period;
	} else if (c->slice) {
		attr.sched_runtime = (uint64_t)c->slice;   /* EEVDF custom slice (Linux 6.12+) */
	}
	bool default_sched = c->policy == POL_OTHER && c->nice == 0 && c->slice == 0;
	if (!default_sched && irt_sched_setattr(0, &attr)) {
		int err = errno;
		if (c->policy == POL_DEADLINE)
			return fail(t, "%s: --policy deadline --dl-runtime %s --dl-deadline %s --dl-period %s: sched_setattr failed: %s (%s)",
			            t->rt->name, units_format_duration(a, sizeof(a), c->dl_runtime),
			            units_format_duration(b, sizeof(b), c->dl_deadline),
			            units_format_duration(d, sizeof(d), c->dl_period), strerror(err),
			            err == EBUSY ? "admission control: not enough deadline bandwidth left"
			            : err == EPERM && c->cpus[0] ? "needs root; deadline tasks also need the full CPU set, so drop --cpus"
			            : err == EPERM ? "needs root; deadline tasks also need the full CPU set, which irt's affinity "
			                             "or cpuset (taskset, cpuset.cpus) may not give it here"
			                           : irt_sched_perm_hint(1));
		if (c->slice && err == EINVAL)
			return fail(t, "%s: --slice %s: sched_setattr failed: %s (this kernel may not support custom slices; needs Linux 6.12+)",
			            t->rt->name, units_format_duration(a, sizeof(a), c->slice), strerror(err));
		if (c->policy == POL_FIFO || c->policy == POL_RR)
			return fail(t, "%s: --policy %s --prio %lld: sched_setattr failed: %s (%s)", t->rt->name, pol,
			            (long long)c->prio, strerror(err), irt_sched_perm_hint(1));
		return fail(t, "%s: --policy %s --nice %lld: sched_setattr failed: %s (%s)", t->rt->name, pol,
		            (long long)c->nice, strerror(err), irt_sched_perm_hint(0));
	}
	/* after the policy change: slack is reset by some policy changes */
	if (prctl(PR_SET_TIMERSLACK, (unsigned long)c->slack, 0, 0, 0))
		return fail(t, "%s: --slack %s: PR_SET_TIMERSLACK failed: %s", t->rt->name,
		            units_format_duration(a, sizeof(a), c->slack), strerror(errno));
	int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	t->rt->timer_slack_ns = slack >= 0 ? slack : -1;

	t->rt->tid = irt_gettid();
	char comm[16];   /* shows in top, ps and the accounting table */
	snprintf(comm, sizeof(comm), "%.15s", t->rt->name);
	pthread_setname_np(pthread_self(), comm);
	if (t->s->o.trace) {
		/* the log is allocated here, before measuring; capped, the rest goes unexplained */
		int64_t want = t->iterations - t->warmup_iters;
		t->caplog = want <= 0 ? 0 : (uint64_t)want > PROBE_LOG_MAX ? PROBE_LOG_MAX : (size_t)want;
		t->log = xcalloc(t->caplog ? t->caplog : 1, sizeof(*t->log));
		trace_watch_tid(t->s->o.trace, (int32_t)t->rt->tid);
	}
	if (t->s->o.attribute && (t->sched_fd = acct_open_schedstat(0, 0)) < 0)
		return fail(t, "%s: --attribute: cannot open /proc/thread-self/schedstat: %s (needs CONFIG_SCHED_INFO)",
		            t->rt->name, strerror(errno));
	prefault_stack();
	if (t->s->lock == PROBE_LOCK_WORKING_SET && lock_stack(t))
		return fail(t, "%s: cannot lock its stack: %s%s", t->rt->name, strerror(errno), MEMLOCK_HINT);
	if (alloc_touch(t))
		return fail(t, "%s: --touch %s: cannot allocate the working set: %s%s", t->rt->name,
		            units_format_size(a, sizeof(a), c->touch), strerror(errno),
		            t->s->o.mlock && (errno == EAGAIN || errno == ENOMEM) && !sys_has_cap(CAP_IPC_LOCK_BIT)
		                    ? MEMLOCK_HINT
		                    : "");
	if (t->s->lock == PROBE_LOCK_WORKING_SET && t->touch &&
	    (mlock(t->touch, t->lines * CACHE_LINE) || (t->order && mlock(t->order, t->lines * sizeof(*t->order)))))
		return fail(t, "%s: --touch %s: cannot lock the working set: %s%s", t->rt->name,
		            units_format_size(a, sizeof(a), c->touch), strerror(errno), MEMLOCK_HINT);

	/* a real-time probe must fit its work into the period: measure one touch pass */
	if (probe_policy_is_rt(c->policy) && t->lines) {
		int64_t t1 = mono_ns();
		touch_all(t);
		int64_t touch_ns = mono_ns() - t1;
		if ((c->burn + touch_ns) * 20 >= c->period * 19)
			return fail(t, "%s: --touch %s takes %s per pass, which with --burn %s does not fit --period %s "
			            "for a real-time probe (work must stay below 95%% of the period)", t->rt->name,
			            units_format_size(a, sizeof(a), c->touch), units_human_duration(b, sizeof(b), touch_ns),
			            units_format_duration(d, sizeof(d), c->burn),
			            units_format_duration((char[32]){0}, 32, c->period));
	}
	return 0;
}

/* ---- the measuring loop ---- */

/* Interrupts every thread's sleep but `self`'s, so each sees the stop after its current wake-up. */
static void wake_threads(struct probe_session *s, const struct probe_thread *self)
{
	for (int i = 0; i < s->n; i++)
		if (&s->t[i] != self && s->t[i].started && atomic_load(&s->running) > 0)
			pthread_kill(s->t[i].th, WAKE_SIGNAL);
}

/* --stop-above: the first recorded wake-up later than the threshold ends every probe; only the
 * first thread to cross names itself in the result. */
static void stop_if_above(struct probe_thread *t, int64_t release, int64_t wake)
{
	struct probe_session *s = t->s;
	if (!t->cfg->stop_above || wake <= t->cfg->stop_above || atomic_exchange(&s->crossed, true))
		return;
	t->rt->stop_wake_ns = wake;
	t->rt->stop_at_ns = release - probe_window_start(s);   /* as --explain's worst[].at_ns */
	t->rt->stop_above_ns = t->cfg->stop_above;
	atomic_store(&s->stop, true);
	wake_threads(s, t);
}

/* prev_done: when the previous job's work ended (0: none) */
static void record(struct probe_thread *t, int64_t i, int64_t release, int64_t woke, int64_t done, int64_t prev_done,
                   int64_t rd0, int64_t rd1)
{
	struct result_thread *rt = t->rt;
	int64_t wake = woke - release, resp = done - release;
	if (i < t->warmup_iters)
		return;
	if (t->sched_fd >= 0) {
		int64_t backlog, runq, rest;
		acct_split_lateness(wake, prev_done - release, rd0, rd1, &backlog, &runq, &rest);
		hist_record(&rt->attr_backlog, backlog);
		hist_record(&rt->attr_runq, runq);
		hist_record(&rt->attr_other, rest);
	}
	hist_record(&rt->wake, wake);
	hist_record(&rt->resp, resp);
	if (t->nlog < t->caplog)
		t->log[t->nlog++] = (struct explain_sample){t->thread_index, (int32_t)rt->tid, release, woke};
	rt->samples++;
	if (resp <= t->cfg->deadline)
		rt->deadlines_met++;
	else
		rt->deadlines_missed++;
	if (wake > atomic_load_explicit(&t->max_wake, memory_order_relaxed))
		atomic_store_explicit(&t->max_wake, wake, memory_order_relaxed);
	stop_if_above(t, release, wake);
}

static void do_work(struct probe_thread *t, int64_t i)
{
	/* at ITER, or at the first wake-up after it when --overrun skip passed over ITER (a late
	 * wake-up before it): the stall must happen for the test that injects it */
	if (i >= t->stall_iter) {   /* INT64_MAX: none, or done */
		int64_t until = mono_ns() + t->cfg->stall_ns;
		while (mono_ns() < until)
			;
		t->stall_iter = INT64_MAX;
	}
	touch_all(t);
	if (t->burn_loops)
		probe_burn_loops(t->burn_loops);
}

static void run_loop(struct probe_thread *t)
{
	const struct probe_cfg *c = t->cfg;
	struct probe_session *s = t->s;
	const bool rt = probe_policy_is_rt(c->policy);
	int64_t release = s->t0 + t->phase;
	int64_t last_sleep = mono_ns(), prev_done = 0;
	int64_t snap_at = t->warmup_iters;   /* INT64_MAX once taken: one compare per release */
	int64_t i = 0;

	for (; i < t->iterations && !atomic_load_explicit(&s->stop, memory_order_relaxed); i++) {
		int64_t woke, rd0 = -1, rd1 = -1;
		if (i >= snap_at) {   /* >=: --overrun skip may step over it */
			/* our accounting window opens with the first measured wake-up, as run.c's does
			 * after the warm-up: else the warm-up's CPU would count as the window's */
			struct err e = {0};
			t->have_begin = acct_snap_thread(getpid(), irt_gettid(), "probe", &t->snap_begin, &e) == 0;
			snap_at = INT64_MAX;
		}
		if (t->sched_fd >= 0)
			rd0 = acct_run_delay(t->sched_fd);   /* before sleeping: off the measured path */
		if (c->relative) {
			/* the seed's method: sleep one period from now; lateness vs that intent */
			int64_t start = mono_ns();
			struct timespec rel = to_ts(c->period);
			if (clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL) == EINTR)
				break;   /* only the stop signal interrupts */
			woke = mono_ns();
			release = start + c->period;
		} else {
			int64_t before = mono_ns();
			bool slept = before < release;
			if (slept) {
				struct timespec abs = to_ts(release);
				if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL) == EINTR)
					break;
			} else if (rt && before - last_sleep > c->rt_guard) {
				/* it would otherwise hold a CPU at real-time priority without end */
				fail(t, "%s: real-time probe fell %s behind without sleeping; stopped it so it cannot "
				     "monopolise a CPU (is the work longer than the period?)", t->rt->name,
				     units_human_duration((char[32]){0}, 32, before - release));
				break;
			}
			woke = mono_ns();
			if (slept)   /* it gave the CPU up until now: a late wake-up (steal) is not spinning */
				last_sleep = woke;
		}
		if (t->sched_fd >= 0)
			rd1 = acct_run_delay(t->sched_fd);   /* after the wake-up timestamp */
		do_work(t, i);
		int64_t done = mono_ns();
		record(t, i, release, woke, done, prev_done, rd0, rd1);
		prev_done = done;
		if (!c->relative) {
			release += c->period;   /* open loop: the grid never moves */
			if (done > release && i >= t->warmup_iters)
				t->rt->overruns++;
			/* cyclictest's rule: go on with the first release after the wake-up */
			while (c->overrun == OVERRUN_SKIP && release < woke && i + 1 < t->iterations) {
				release += c->period;
				if (++i >= t->warmup_iters)
					t->rt->skipped++;
			}
		}
		atomic_store_explicit(&t->done, (uint64_t)i + 1, memory_order_relaxed);
	}
	/* a probe that fell behind measures its releases after its window: how long, for the note
	 * under the results (within a period is the last job's ordinary end) */
	int64_t past = prev_done - (s->t0 + t->phase + t->iterations * c->period);
	if (!c->relative && i >= t->iterations && past > c->period)
		t->rt->past_window_ns = past;
}

static void *thread_main(void *arg)
{
	struct probe_thread *t = arg;
	struct probe_session *s = t->s;
	setup_thread(t);
	pthread_mutex_lock(&s->mu);
	s->ready++;
	pthread_cond_broadcast(&s->cv);
	while (!s->go)                      /* then t0 is set, or stop is */
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	if (!t->failed && !atomic_load(&t->s->stop)) {
		/* our own accounting window: the /proc entry is gone once the thread exits */
		struct err e = {0};
		run_loop(t);
		t->ended = mono_ns();
		t->have_snaps = t->have_begin && acct_snap_thread(getpid(), irt_gettid(), "probe", &t->snap_end, &e) == 0;
	}
	if (t->stack_len)   /* its own stack: nobody else can unlock it (glibc keeps it for reuse) */
		munlock(t->stack_lo, t->stack_len);
	/* the last one wakes irt's waiting thread, so that what it does at the end (run.c's
	 * accounting snapshot) follows the probes' end, not its next periodic look */
	if (atomic_fetch_sub(&s->running, 1) == 1 && s->wake_owner)
		sig_look(s->owner);
	return NULL;
}

static void wake_handler(int sig)
{
	(void)sig;   /* only interrupts clock_nanosleep */
}

int probe_thread_count(const struct probe_cfg *cfgs, int n)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += (int)cfgs[i].threads;
	return total;
}

static void free_session(struct probe_session *s)
{
	for (int i = 0; i < s->n; i++) {
		struct probe_thread *t = &s->t[i];
		if (t->touch)
			munmap(t->touch, t->lines * CACHE_LINE);   /* unlocks it too */
		if (t->order && s->lock == PROBE_LOCK_WORKING_SET)
			munlock(t->order, t->lines * sizeof(*t->order));   /* free() keeps the pages */
		free(t->order);
		free(t->log);
		if (t->sched_fd >= 0)
			close(t->sched_fd);
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->t);
	free(s);
}

int probe_check_memory(const struct probe_cfg *cfgs, int n, struct err *e)
{
	char a[32], b[32];
	int64_t total = 0;
	for (int d = 0; d < n; d++) {
		/* the lines, and for the random pattern their visiting order (4 bytes a line) */
		int64_t per = cfgs[d].touch + (cfgs[d].touch_pattern == TOUCH_RANDOM ? cfgs[d].touch / CACHE_LINE * 4 : 0);
		total += per * cfgs[d].threads;
	}
	if (!total)
		return 0;
	int64_t avail = sys_mem_available();
	if (avail >= 0 && total > avail / 4 * 3)
		return err_set(e, EXIT_USAGE, "--touch: working sets of %s in all would exceed 75%% of the available memory, "
		               "%s (a smaller --touch or fewer --threads)", units_human_size(a, sizeof(a), total),
		               units_human_size(b, sizeof(b), avail));
	return 0;
}

/* ---- keeping memory resident ---- */

/* n bytes as mlock counts them: whole pages, plus one for a range that does not start on a
 * page boundary */
static int64_t lock_bytes(int64_t n)
{
	int64_t page = sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page + page;
}

/* What this process has locked already (VmLck), 0 if unknown. */
static int64_t locked_now(void)
{
	char kib[64];
	return sys_self_status("VmLck", kib, sizeof(kib)) ? atoll(kib) * 1024 : 0;
}

enum probe_lock probe_lock_choose(const struct probe_cfg *cfgs, int n, const struct probe_opts *o, int64_t *need,
                                  int64_t *limit)
{
	*need = *limit = -1;
	if (!o->mlock)
		return PROBE_LOCK_NONE;
	struct rlimit rl;
	if (sys_has_cap(CAP_IPC_LOCK_BIT) || getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return PROBE_LOCK_ALL;   /* no limit: everything, code and libraries included */
	/* otherwise only what the measuring threads touch: mlockall would lock the whole process,
	 * libraries and every result kept so far (the default check's third run no longer fit
	 * the default 8 MiB) */
	int64_t nthreads = probe_thread_count(cfgs, n);
	int64_t total = lock_bytes((int64_t)sizeof(struct probe_session)) +
	                lock_bytes((int64_t)sizeof(struct probe_thread) * nthreads) +
	                lock_bytes((int64_t)sizeof(struct result_thread) * nthreads);
	for (int d = 0; d < n; d++) {
		int64_t lines = (cfgs[d].touch + CACHE_LINE - 1) / CACHE_LINE;
		int64_t per = STACK_LOCK;
		if (lines)
			per += lock_bytes(lines * CACHE_LINE);
		if (lines && cfgs[d].touch_pattern == TOUCH_RANDOM)
			per += lock_bytes(lines * (int64_t)sizeof(uint32_t));
		total += per * cfgs[d].threads;
	}
	*need = total;
	*limit = rl.rlim_cur > (rlim_t)INT64_MAX ? INT64_MAX : (int64_t)rl.rlim_cur;
	return total + locked_now() <= *limit ? PROBE_LOCK_WORKING_SET : PROBE_LOCK_NONE_RLIMIT;
}

/* Working-set locking, irt's side: the session and the records the threads write into. */
static int lock_session(struct probe_session *s)
{
	if (mlock(s, sizeof(*s)) || mlock(s->t, sizeof(*s->t) * (size_t)s->n) ||
	    mlock(s->rts, sizeof(*s->rts) * (size_t)s->n))
		return -1;
	return 0;
}

/* Releases what the session locked (the threads have unlocked their stacks). */
static void unlock_session(struct probe_session *s)
{
	if (s->lock == PROBE_LOCK_ALL) {
		munlockall();
	} else if (s->lock == PROBE_LOCK_WORKING_SET) {
		munlock(s->rts, sizeof(*s->rts) * (size_t)s->n);
		munlock(s->t, sizeof(*s->t) * (size_t)s->n);
		munlock(s, sizeof(*s));
	}
}

/* Once per process: irt check or a sweep would otherwise say it for every run. */
static void say_unlocked(int64_t need, int64_t limit)
{
	static bool said;
	char a[32], b[32];
	if (said)
		return;
	said = true;
	units_human_size(b, sizeof(b), need);
	fprintf(stderr, "irt: note: RLIMIT_MEMLOCK (ulimit -l) is %s, below the %s the probe threads need locked: "
	        "measuring without locking memory, so page faults may add latency (raise ulimit -l or run as root; "
	        "--no-mlock says this is intended)\n", units_format_size(a, sizeof(a), limit), b);
}

int probe_start(struct probe_session **out, const struct probe_cfg *cfgs, int n, const struct probe_opts *o,
                struct result *r, struct err *e)
{
	struct probe_session *s = xcalloc(1, sizeof(*s));
	s->o = *o;
	s->lock = PROBE_LOCK_NONE;   /* until probe_lock_choose */
	s->n = probe_thread_count(cfgs, n);
	s->t = xcalloc((size_t)s->n, sizeof(*s->t));
	for (int i = 0; i < s->n; i++)
		s->t[i].sched_fd = -1;
	if (r->nthreads != s->n) {
		free_session(s);
		return err_set(e, EXIT_RUNTIME, "probe: internal error: result has %d threads, want %d", r->nthreads, s->n);
	}

	int64_t ns_per_kloop = 0;
	for (int d = 0; d < n; d++) {
		cpu_set_t set;
		if (cfgs[d].cpus[0] && irt_parse_cpus("--cpus", cfgs[d].cpus, &set, e)) {
			free_session(s);   /* a CPU this machine lacks is bad input: refuse before starting */
			return -1;
		}
		if (cfgs[d].burn)
			ns_per_kloop = probe_calibrate_burn();
	}

	int64_t need, limit;
	s->lock = probe_lock_choose(cfgs, n, o, &need, &limit);
	s->rts = r->threads;
	snprintf(r->memory_lock, sizeof(r->memory_lock), "%s", result_memory_locks[s->lock]);
	if (s->lock == PROBE_LOCK_NONE_RLIMIT)
		say_unlocked(need, limit);
	if (s->lock == PROBE_LOCK_ALL && mlockall(MCL_CURRENT | MCL_FUTURE)) {
		int err = errno;
		s->lock = PROBE_LOCK_NONE;
		free_session(s);
		return err_set(e, EXIT_RUNTIME, "mlockall: %s (%s, or pass --no-mlock)", strerror(err),
		               geteuid() == 0 ? "lower the working set" : "needs root or a raised RLIMIT_MEMLOCK (ulimit -l)");
	}
	if (s->lock == PROBE_LOCK_WORKING_SET && lock_session(s)) {
		int err = errno;
		unlock_session(s);
		free_session(s);
		return err_set(e, EXIT_RUNTIME, "probe: cannot lock the probes' records: %s%s", strerror(err), MEMLOCK_HINT);
	}

	struct sigaction sa = {.sa_handler = wake_handler};   /* no SA_RESTART: sleeps return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(WAKE_SIGNAL, &sa, NULL);

	int k = 0;
	for (int d = 0; d < n; d++) {
		const struct probe_cfg *c = &cfgs[d];
		for (int j = 0; j < c->threads; j++, k++) {
			struct probe_thread *t = &s->t[k];
			t->s = s;
			t->cfg = c;
			t->index = j;
			t->rt = &r->threads[k];
			if (c->per_cpu)   /* named by the CPU it is pinned to, as cyclictest's per-CPU rows */
				snprintf(t->rt->name, sizeof(t->rt->name), "%.50s.cpu%d", c->name, probe_cfg_cpu_of(c, j));
			else if (c->threads > 1)
				snprintf(t->rt->name, sizeof(t->rt->name), "%.50s.%d", c->name, j);
			else
				snprintf(t->rt->name, sizeof(t->rt->name), "%.63s", c->name);
			snprintf(t->rt->role, sizeof(t->rt->role), "probe");
			probe_cfg_settings(c, &t->rt->settings);
			/* threads of one definition are spread evenly over the period; --aligned: released
			 * together (cyclictest -A), thread k of all offset k times --aligned-offset */
			t->phase = c->period + (c->aligned ? c->aligned_offset * k : c->period * j / c->threads);
			if (!c->relative)
				t->rt->phase_ns = t->phase - c->period;
			/* the warm-up comes on top: --count/--duration are what is recorded */
			t->warmup_iters = (o->warmup_ns + c->period - 1) / c->period;
			t->iterations = probe_cfg_iterations(c) + t->warmup_iters;
			t->stall_iter = c->stall_ns > 0 ? c->stall_iter : INT64_MAX;
			if (c->burn) {
				t->burn_loops = (uint64_t)(c->burn * 1000 / ns_per_kloop);
				t->rt->burn_ns_per_kloop = ns_per_kloop;
			}
			t->rt->timer_slack_ns = -1;
			t->rt->attributed = o->attribute;
			t->thread_index = (int)(t->rt - r->threads);
		}
	}

	s->owner = pthread_self();
	s->wake_owner = sig_look_blocked();
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	/* each thread sets its own scheduling: it starts as its creator's, then changes */
	int created = 0;
	for (int i = 0; i < s->n; i++) {
		int rc = pthread_create(&s->t[i].th, &attr, thread_main, &s->t[i]);
		if (rc) {
			err_set(e, EXIT_RUNTIME, "probe: cannot create thread %d of %d: %s", i + 1, s->n, strerror(rc));
			atomic_store(&s->stop, true);
			break;
		}
		s->t[i].started = true;
		created++;
	}
	pthread_attr_destroy(&attr);
	atomic_store(&s->running, created);

	pthread_mutex_lock(&s->mu);
	while (s->ready < created)
		pthread_cond_wait(&s->cv, &s->mu);
	for (int i = 0; i < created; i++)
		if (s->t[i].failed && !atomic_load(&s->stop)) {
			err_set(e, EXIT_RUNTIME, "%s", s->t[i].msg);
			atomic_store(&s->stop, true);
		}
	s->t0 = mono_ns();
	s->start_rt = clock_ns(CLOCK_REALTIME);
	s->warmup_ns = o->warmup_ns;
	s->go = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);

	if (atomic_load(&s->stop)) {
		for (int i = 0; i < created; i++)
			pthread_join(s->t[i].th, NULL);
		unlock_session(s);
		free_session(s);
		*out = NULL;
		return -1;
	}
	r->start_realtime_ns = s->start_rt;
	*out = s;
	return 0;
}

int64_t probe_window_start(const struct probe_session *s)
{
	return s->t0 + s->warmup_ns;
}

bool probe_done(const struct probe_session *s)
{
	return atomic_load(&((struct probe_session *)s)->running) == 0;
}

void probe_stop(struct probe_session *s)
{
	atomic_store(&s->stop, true);
	wake_threads(s, NULL);
}

void probe_status(const struct probe_session *s, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < s->n && n < len; i++) {
		const struct probe_thread *t = &s->t[i];
		char mx[32];
		uint64_t done = atomic_load_explicit(&((struct probe_thread *)t)->done, memory_order_relaxed);
		int64_t max = atomic_load_explicit(&((struct probe_thread *)t)->max_wake, memory_order_relaxed);
		n += (size_t)snprintf(buf + n, len - n, "%s%s %llu/%lld max %s", i ? " | " : "", t->rt->name,
		                      (unsigned long long)done, (long long)t->iterations,
		                      units_human_duration(mx, sizeof(mx), max));
	}
}

size_t probe_samples(const struct probe_session *s, struct explain_sample **out)
{
	size_t n = 0;
	for (int i = 0; i < s->n; i++)
		n += s->t[i].nlog;
	*out = xcalloc(n ? n : 1, sizeof(**out));
	n = 0;
	for (int i = 0; i < s->n; i++) {
		memcpy(*out + n, s->t[i].log, s->t[i].nlog * sizeof(**out));
		n += s->t[i].nlog;
	}
	return n;
}

int probe_acct(const struct probe_session *s, struct acct_snap *a, struct acct_snap *b, struct err *e)
{
	for (int i = 0; i < s->n; i++) {
		const struct probe_thread *t = &s->t[i];
		if (!t->have_snaps)
			continue;
		if (acct_snap_append(a, &t->snap_begin, e) || acct_snap_append(b, &t->snap_end, e))
			return -1;
	}
	return 0;
}

int probe_finish(struct probe_session *s, struct result *r, struct err *e)
{
	for (int i = 0; i < s->n; i++)
		if (s->t[i].started)
			pthread_join(s->t[i].th, NULL);
	/* the warm-up is not measuring time (docs/result-schema.md): the window starts after it,
	 * or is empty when the run ended within it; it ends with the last thread's loop, not when
	 * irt's next look at the threads (up to a status tick later) saw them done */
	int64_t end = 0;
	for (int i = 0; i < s->n; i++)
		end = s->t[i].ended > end ? s->t[i].ended : end;
	int64_t ran = (end ? end : mono_ns()) - s->t0;
	r->duration_ns = ran > s->warmup_ns ? ran - s->warmup_ns : 0;
	r->end_realtime_ns = s->start_rt + ran;
	r->start_realtime_ns = s->start_rt + (ran - r->duration_ns);
	int rc = 0;
	for (int i = 0; i < s->n; i++)
		if (s->t[i].failed && !rc)
			rc = err_set(e, EXIT_RUNTIME, "%s", s->t[i].msg);
	unlock_session(s);
	free_session(s);
	return rc;
}

/* Inside the load: the supervisor (irt's child) and the worker process it forks, and the
 * helpers the load types call there (load_impl.h). See load.c for the processes of one load
 * and how irt starts, bounds and stops them. */
#include "load_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "units.h"
#include "util.h"

#define BACKSTOP_NS (2 * NSEC_PER_SEC)    /* kernel kills a hung supervisor this after deadline */

/* ---------------------------------------------------------------- small helpers */

void load_sleep_until(int64_t t)
{
	struct timespec ts = {.tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

long load_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

static struct timespec ts_of(int64_t ns)
{
	if (ns < 0)
		ns = 0;
	return (struct timespec){.tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC};
}

/* In the order of load_policy_names (enum load_policy). */
static const int policy_values[] = {SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR};

/* ---------------------------------------------------------------- the workers */

/* The load's failure, in shared memory for irt: the first one only, not the deaths it then
 * causes. */
static void vrecord_failure(struct load_shm *sh, int code, const char *fmt, va_list ap)
{
	int32_t zero = 0;
	if (!atomic_compare_exchange_strong(&sh->failed, &zero, 1))
		return;
	vsnprintf(sh->error, sizeof(sh->error), fmt, ap);
	sh->fail_code = code;
	atomic_store(&sh->failed, 2);
}

static void record_failure(struct load_shm *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void record_failure(struct load_shm *sh, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vrecord_failure(sh, EXIT_RUNTIME, fmt, ap);
	va_end(ap);
}

int load_fail(struct load_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vrecord_failure(c->shm, EXIT_RUNTIME, fmt, ap);
	va_end(ap);
	if (c->wpid > 0)
		kill(c->wpid, SIGUSR1);   /* wakes the worker process's main thread */
	return -1;
}

int load_apply_sched(const struct load_spec *s, char *why, size_t len)
{
	struct sched_param sp = {.sched_priority = load_policy_is_rt(s->policy) ? (int)s->prio : 0};
	if (sched_setscheduler(0, policy_values[s->policy], &sp)) {
		snprintf(why, len, "cannot set policy=%s%s: %s", load_policy_names[s->policy],
			 errno == EPERM ? " (needs root or CAP_SYS_NICE, or RT runtime in this cgroup)" : "",
			 strerror(errno));
		return -1;
	}
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), (int)s->nice)) {
		int err = errno;
		snprintf(why, len, "cannot set nice=%lld%s: %s", (long long)s->nice,
			 err == EACCES || err == EPERM ? " (lowering nice needs root or CAP_SYS_NICE, or a raised RLIMIT_NICE)" : "",
			 strerror(err));
		return -1;
	}
	return 0;
}

/* In the load's worker process, before any load task exists: becomes the user= user. */
static int drop_to_user(const struct load_spec *s, char *why, size_t len)
{
	if (setgroups(0, NULL) || setgid(s->gid) || setuid(s->uid)) {
		snprintf(why, len, "cannot become user=%s: %s", s->user, strerror(errno));
		return -1;
	}
	if (getuid() != s->uid || geteuid() != s->uid || getgid() != s->gid || (s->uid != 0 && setuid(0) == 0)) {
		snprintf(why, len, "user=%s: credentials did not change as asked", s->user);
		return -1;
	}
	struct passwd *pw = getpwuid(s->uid);
	if (pw) {   /* what a command run as that user expects; the rest of irt's environment stays */
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	return 0;
}

static int alloc_slot(struct load_ctx *c, const char *role)
{
	int n = atomic_load(&c->shm->ntasks);
	if (n >= LOAD_MAX_TASKS)
		return load_fail(c, "more than %d workers", LOAD_MAX_TASKS);
	struct load_slot *sl = &c->shm->slot[n];
	snprintf(sl->role, sizeof(sl->role), "%s", role);
	atomic_store(&sl->state, SLOT_STARTING);
	atomic_store(&c->shm->ntasks, n + 1);
	return n;
}

int load_add_slot(struct load_ctx *c, const char *role, pid_t pid)
{
	int n = alloc_slot(c, role);
	if (n >= 0) {
		c->shm->slot[n].pid = pid;
		c->shm->slot[n].tid = pid;
		atomic_store(&c->shm->slot[n].state, SLOT_RUNNING);
	}
	return n;
}

/* Common start of every worker: identify, set policy, announce. */
static int worker_begin(struct load_ctx *c, int slot)
{
	char why[200], name[16];
	struct load_slot *sl = &c->shm->slot[slot];
	sl->pid = getpid();
	sl->tid = gettid();
	snprintf(name, sizeof(name), "irt:%s", sl->role);
	prctl(PR_SET_NAME, name);
	if (load_apply_sched(c->s, why, sizeof(why))) {
		load_fail(c, "%s", why);
		atomic_store(&sl->state, SLOT_FAILED);
		return -1;
	}
	atomic_store(&sl->state, SLOT_RUNNING);
	return 0;
}

struct trampoline {
	struct load_ctx *c;
	int slot;
	load_worker_fn fn;
	void *arg;
};

static void *thread_main(void *p)
{
	struct trampoline t = *(struct trampoline *)p;
	free(p);
	if (worker_begin(t.c, t.slot) == 0)
		t.fn(t.c, t.slot, t.arg);
	return NULL;
}

int load_spawn_thread(struct load_ctx *c, const char *role, load_worker_fn fn, void *arg)
{
	int slot = alloc_slot(c, role);
	if (slot < 0)
		return -1;
	struct trampoline *t = malloc(sizeof(*t));
	if (!t)
		return load_fail(c, "out of memory");
	*t = (struct trampoline){c, slot, fn, arg};
	pthread_attr_t attr;
	pthread_t th;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 512 * 1024);
	int rc = pthread_create(&th, &attr, thread_main, t);
	pthread_attr_destroy(&attr);
	if (rc) {
		free(t);
		return load_fail(c, "cannot create worker thread %d: %s", slot, strerror(rc));
	}
	return slot;
}

int load_spawn_process(struct load_ctx *c, const char *role, load_worker_fn fn, void *arg)
{
	int slot = alloc_slot(c, role);
	if (slot < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return load_fail(c, "cannot fork worker %d: %s", slot, strerror(errno));
	if (pid == 0) {
		sigset_t none;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != c->wpid)
			_exit(1);
		close(c->ready_fd);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (worker_begin(c, slot) == 0)
			fn(c, slot, arg);
		_exit(0);
	}
	c->shm->slot[slot].pid = pid;
	return slot;
}

int load_open_tmpfiles(struct load_ctx *c, int n, int *fds)
{
	char dir[LOAD_PATHLEN + 32], path[LOAD_PATHLEN + 64];
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	snprintf(dir, sizeof(dir), "%s/irt-load-XXXXXX", c->s->dir);
	if (!mkdtemp(dir))
		return load_fail(c, "cannot create a temporary directory in %s: %s", c->s->dir,
				 strerror(errno));
	snprintf(c->shm->tmpdir, sizeof(c->shm->tmpdir), "%s", dir);
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		fds[i] = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fds[i] < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
			/* no O_TMPFILE on this file system: a named file, unlinked at once */
			snprintf(path, sizeof(path), "%s/f%d", dir, i);
			fds[i] = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
			if (fds[i] >= 0)
				unlink(path);
		}
		if (fds[i] < 0)
			rc = load_fail(c, "cannot create a file in %s: %s", dir, strerror(errno));
	}
	if (rmdir(dir) && !rc)
		rc = load_fail(c, "cannot remove %s: %s", dir, strerror(errno));
	c->shm->tmpdir[0] = 0;
	return rc;
}

static int wait_started(struct load_ctx *c)
{
	int64_t until = mono_ns() + 10 * NSEC_PER_SEC;
	for (;;) {
		int n = atomic_load(&c->shm->ntasks), running = 0;
		for (int i = 0; i < n; i++) {
			int st = atomic_load(&c->shm->slot[i].state);
			if (st == SLOT_FAILED)
				return -1;
			running += st == SLOT_RUNNING;
		}
		if (running == n)
			return 0;
		if (mono_ns() > until)
			return load_fail(c, "only %d of %d workers started within 10 s", running, n);
		load_sleep_until(mono_ns() + NSEC_PER_MSEC);
	}
}

/* A worker process exited although the load was not told to stop: that is a failure. */
static void check_worker_processes(struct load_ctx *c)
{
	int n = atomic_load(&c->shm->ntasks), st;
	for (int i = 0; i < n; i++) {
		pid_t pid = c->shm->slot[i].pid;
		if (pid == c->wpid || pid <= 0)
			continue;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			if (WIFSIGNALED(st))
				load_fail(c, "%s worker (pid %d) was killed by signal %d", c->shm->slot[i].role,
					  (int)pid, WTERMSIG(st));
			else
				load_fail(c, "%s worker (pid %d) exited with status %d", c->shm->slot[i].role,
					  (int)pid, WEXITSTATUS(st));
			_exit(1);
		}
	}
}

static void signal_ready(int fd, char what)
{
	while (write(fd, &what, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

/* The worker process: the load's process group. */
static _Noreturn void worker_main(struct load_ctx *c, pid_t supervisor, const sigset_t *waitset)
{
	struct sched_param sp = {0};
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != supervisor)
		_exit(1);
	setpgid(0, 0);
	c->wpid = getpid();
	atomic_store(&c->shm->wpid, c->wpid);
	prctl(PR_SET_NAME, "irt-load");
	if (!load_policy_is_rt(c->s->policy))   /* else keep the supervisor's FIFO 99: RT workers must not */
		sched_setscheduler(0, SCHED_OTHER, &sp);   /* starve this thread (ready, cmd restarts) */
	signal(SIGPIPE, SIG_IGN);                  /* a peer gone shows as EPIPE, counted */
	if (c->s->cpus_text[0] && sched_setaffinity(0, sizeof(c->s->cpus), &c->s->cpus)) {
		load_fail(c, "cannot run on cpus=%s: %s", c->s->cpus_text, strerror(errno));
		signal_ready(c->ready_fd, 'F');
		_exit(1);
	}
	if (c->s->user[0] && !c->s->as_self) {
		char why[200];
		if (drop_to_user(c->s, why, sizeof(why))) {
			load_fail(c, "%s", why);
			signal_ready(c->ready_fd, 'F');
			_exit(1);
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);   /* a change of credentials cleared it */
		if (getppid() != supervisor)
			_exit(1);
	}
	if (c->s->type->start(c) || wait_started(c)) {
		signal_ready(c->ready_fd, 'F');
		_exit(1);
	}
	int64_t now = mono_ns(), next = INT64_MAX;
	atomic_store(&c->shm->start_ns, now);
	if (c->s->type->tick)
		next = c->s->type->tick(c, now, false);
	signal_ready(c->ready_fd, 'R');
	for (;;) {
		siginfo_t si;
		int sig;
		if (next == INT64_MAX) {
			sig = sigwaitinfo(waitset, &si);
		} else {
			struct timespec ts = ts_of(next - mono_ns());
			sig = sigtimedwait(waitset, &si, &ts);
		}
		if (sig == SIGCHLD) {
			if (c->s->type->tick)
				next = c->s->type->tick(c, mono_ns(), true);
			else
				check_worker_processes(c);
		} else if (sig < 0 && errno == EAGAIN && c->s->type->tick) {
			next = c->s->type->tick(c, mono_ns(), false);
		}
		if (atomic_load(&c->shm->failed))
			_exit(1);   /* the supervisor sees it and ends the load */
		if (sig > 0 && sig != SIGCHLD && sig != SIGUSR1)
			_exit(0);   /* told to end; the supervisor kills the group anyway */
	}
}

static void kill_children(void)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
}

/* Ends the load: kill the group and every descendant, reap all, exit. */
static _Noreturn void supervisor_end(struct load_shm *sh, int reason, const sigset_t *waitset)
{
	int32_t none = LOAD_END_NONE;
	int wst = 0;
	bool wdone = false;
	if (atomic_compare_exchange_strong(&sh->end_reason, &none, reason))
		atomic_store(&sh->end_ns, mono_ns());
	pid_t w = atomic_exchange(&sh->wpid, 0), wpid = w;
	int64_t until = mono_ns() + 2 * NSEC_PER_SEC;
	for (;;) {
		if (w > 0) {
			kill(-w, SIGKILL);
			kill(w, SIGKILL);
		}
		kill_children();   /* anything that left the group: orphans come to us, the subreaper */
		pid_t pid;
		int st;
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			if (pid == wpid) {
				wst = st;
				wdone = true;
				w = 0;   /* reaped: its pid may be recycled; survivors are our children */
			}
		if (pid < 0 || mono_ns() > until)
			break;
		struct timespec ts = ts_of(10 * NSEC_PER_MSEC);
		sigtimedwait(waitset, NULL, &ts);
	}
	/* irt would otherwise read the ready pipe's end as a death */
	if (reason == LOAD_END_DEADLINE && !atomic_load(&sh->start_ns))
		record_failure(sh, "its workers had not all started when its deadline came");
	if (wdone && reason == LOAD_END_FAILED && WIFSIGNALED(wst))
		record_failure(sh, "load process was killed by signal %d", WTERMSIG(wst));
	else if (wdone && reason == LOAD_END_FAILED)
		record_failure(sh, "load process exited with status %d", WEXITSTATUS(wst));
	_exit(atomic_load(&sh->failed) ? 1 : 0);
}

static void supervisor_fail(struct load_shm *sh, int ready_fd, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void supervisor_fail(struct load_shm *sh, int ready_fd, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vrecord_failure(sh, code, fmt, ap);   /* the first: nothing else has run yet */
	va_end(ap);
	signal_ready(ready_fd, 'F');
	_exit(1);
}

static void close_fds_except(int keep)
{
	if (keep > 3)
		close_range(3u, (unsigned)keep - 1, 0);
	close_range((unsigned)keep + 1, ~0u, 0);
}

/* The supervisor: child of irt. */
_Noreturn void load_supervisor_main(struct load_shm *sh, const struct load_spec *s, int ready_fd,
				    pid_t irt, int64_t deadline)
{
	sigset_t waitset;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL);   /* irt's handlers must not run here */
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGCHLD);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGINT);
	sigaddset(&waitset, SIGHUP);
	sigaddset(&waitset, SIGQUIT);
	sigaddset(&waitset, SIGUSR1);   /* a worker failed (load_fail) */
	sigprocmask(SIG_SETMASK, &waitset, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != irt)
		_exit(1);   /* irt already gone: start nothing */
	prctl(PR_SET_NAME, "irt-load-sup");
	close_fds_except(ready_fd);
	int null = open("/dev/null", O_RDONLY);
	if (null >= 0 && null != 0) {
		dup2(null, 0);
		close(null);
	}
	if (s->session ? setsid() < 0 : setpgid(0, 0) < 0)
		supervisor_fail(sh, ready_fd, EXIT_RUNTIME, "cannot start a new %s: %s",
				s->session ? "session" : "process group", strerror(errno));
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	/* backstop: the kernel kills a supervisor that somehow did not end at the deadline */
	timer_t backstop;
	struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGKILL};
	if (timer_create(CLOCK_MONOTONIC, &ev, &backstop) == 0) {
		int64_t at = deadline < INT64_MAX - BACKSTOP_NS ? deadline + BACKSTOP_NS : INT64_MAX;
		struct itimerspec its = {.it_value = ts_of(at)};
		timer_settime(backstop, TIMER_ABSTIME, &its, NULL);
	}
	if (s->cgroup_procs[0]) {
		char pid[24];
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		int fd = open(s->cgroup_procs, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, pid, (size_t)n) != n)
			supervisor_fail(sh, ready_fd, EXIT_RUNTIME, "cannot join cgroup %s: %s",
					s->cgroup_procs, strerror(errno));
		close(fd);
	}
	/* Loads are ordinary processes, whatever irt's own thread was set to: default policy,
	 * nice 0 (where permitted), the kernel's default 50 us timer slack (irt uses 1 ns). */
	struct sched_param sp = {0};
	sched_setscheduler(0, SCHED_OTHER, &sp);
	setpriority(PRIO_PROCESS, 0, 0);
	prctl(PR_SET_TIMERSLACK, 50000UL);
	if (load_policy_is_rt(s->policy)) {
		/* real-time workers must not starve the one process that bounds them */
		sp.sched_priority = sched_get_priority_max(SCHED_FIFO);
		sched_setscheduler(0, SCHED_FIFO, &sp);
	}

	struct load_ctx c = {.s = s, .shm = sh, .ready_fd = ready_fd};
	pid_t w = fork();
	if (w < 0)
		supervisor_fail(sh, ready_fd, EXIT_RUNTIME, "cannot fork: %s", strerror(errno));
	if (w == 0)
		worker_main(&c, getppid(), &waitset);
	atomic_store(&sh->wpid, w);
	close(ready_fd);

	for (;;) {
		int64_t now = mono_ns();
		if (now >= deadline)
			supervisor_end(sh, LOAD_END_DEADLINE, &waitset);
		struct timespec ts = ts_of(deadline - now);
		siginfo_t si;
		int sig = sigtimedwait(&waitset, &si, &ts);
		if (sig == SIGCHLD) {
			siginfo_t wi = {0};
			/* WNOWAIT: a zombie keeps its pid, so killing its group stays safe */
			if (waitid(P_PID, (id_t)w, &wi, WEXITED | WNOHANG | WNOWAIT) == 0 && wi.si_pid == w)
				supervisor_end(sh, atomic_load(&sh->stop_requested) ? LOAD_END_STOPPED
						   : LOAD_END_FAILED, &waitset);
		} else if (sig > 0) {
			supervisor_end(sh, LOAD_END_STOPPED, &waitset);
		}
	}
}

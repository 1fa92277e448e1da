/* Background loads, irt's side: starting a load, sampling it and stopping it, within the
 * lifecycle that keeps every load bounded. Specs are parsed in load_parse.c; the supervisor
 * and the worker process run the code in load_run.c, the load types that in load_types.c.
 *
 * Processes of one load:
 *   irt ──fork──► supervisor (own process group or session; child subreaper)
 *                   └─fork──► worker process (own process group = the load's group)
 *                               ├─ worker threads (cpu, mem, io, fork, compile)
 *                               └─ worker processes (pipe) / the command (cmd) / short-lived
 *                                  children (fork, compile) and whatever the command spawns
 * The supervisor sleeps until the hard deadline, a SIGTERM (load_stop) or its parent-death
 * signal (irt died), then kills the load's group, kills every descendant that escaped the
 * group (orphans are reparented to it, the subreaper), reaps them all and exits. When irt has
 * reaped the supervisor, nothing of the load is left. A kernel timer SIGKILLs the supervisor
 * shortly after the deadline should it ever hang, and the worker process dies with its parent
 * (PR_SET_PDEATHSIG SIGKILL). The supervisor's own parent-death signal is SIGTERM, not SIGKILL,
 * so that it can still clean up the descendants of a `cmd` load when irt is killed. */
#include "load_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/sysfile.h"
#include "units.h"
#include "util.h"

#define READY_TIMEOUT_MS 15000            /* workers must run by then */
#define STOP_GRACE_NS (3 * NSEC_PER_SEC)  /* supervisor cleanup before irt SIGKILLs it */

/* Running loads, for load_stop_all_on_signal: written only outside signal handlers, in an
 * order (shm before pid; pid cleared before the supervisor is reaped) that keeps every pid
 * the handler can see alive or a zombie, so it never signals a recycled pid. */
static struct {
	struct load_shm *volatile shm;
	volatile sig_atomic_t pid;
} registry[LOAD_MAX_RUNNING];

void load_stop_all_on_signal(void)
{
	int saved = errno;
	for (int i = 0; i < LOAD_MAX_RUNNING; i++) {
		pid_t pid = registry[i].pid;
		struct load_shm *sh = registry[i].shm;
		if (pid <= 0 || !sh)
			continue;
		pid_t w = atomic_load(&sh->wpid);
		atomic_store(&sh->stop_requested, 1);   /* the workers' death is no failure */
		kill(pid, SIGTERM);
		if (w > 0)
			kill(-w, SIGKILL);
		if (sh->tmpdir[0])
			rmdir(sh->tmpdir);
	}
	errno = saved;
}

static void read_autogroup(pid_t pid, char *buf, size_t len)
{
	char path[64];
	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* Reaps the supervisor once it has exited, or waits for that until until_ns. 1 = reaped. */
static int reap(struct load *l, int64_t until)
{
	for (;;) {
		if (l->reaped)
			return 1;
		siginfo_t si = {0};
		int rc = waitid(P_PID, (id_t)l->pid, &si, WEXITED | WNOHANG | WNOWAIT);
		if (rc == 0 && si.si_pid == l->pid) {
			registry[l->reg].pid = 0;   /* before reaping: the pid must not be recycled under it */
			while (waitpid(l->pid, &l->wstatus, 0) < 0 && errno == EINTR)
				;
			l->reaped = true;
			return 1;
		}
		if (rc < 0 && errno == ECHILD) {
			registry[l->reg].pid = 0;   /* reaped by someone else (a waitpid(-1) in irt?) */
			l->wstatus = 0;
			l->reaped = true;
			return 1;
		}
		int64_t now = mono_ns();
		if (now >= until)
			return 0;
		int64_t wait_ms = (until - now) / NSEC_PER_MSEC + 1;
		if (l->pidfd >= 0) {
			struct pollfd pfd = {.fd = l->pidfd, .events = POLLIN};
			poll(&pfd, 1, wait_ms > 100 ? 100 : (int)wait_ms);
		} else {
			load_sleep_until(now + (wait_ms > 2 ? 2 : wait_ms) * NSEC_PER_MSEC);
		}
	}
}

static void sum_counters(const struct load_shm *sh, struct load_counters *c)
{
	int n = atomic_load(&sh->ntasks);
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < n && i < LOAD_MAX_TASKS; i++) {
		c->ops += atomic_load_explicit(&sh->slot[i].ops, memory_order_relaxed);
		c->bytes += atomic_load_explicit(&sh->slot[i].bytes, memory_order_relaxed);
	}
	c->errors = atomic_load_explicit(&sh->errors, memory_order_relaxed);
}

/* irt's threads now; 1 when /proc cannot tell. */
static int own_threads(void)
{
	char n[32];
	return sys_self_status("Threads", n, sizeof(n)) ? atoi(n) : 1;
}

int load_start(struct load *l, const struct load_spec *s, int64_t hard_deadline_ns, struct err *e)
{
	int ready[2];
	memset(l, 0, sizeof(*l));
	l->spec = *s;
	l->pidfd = -1;
	l->reg = -1;
	l->deadline_ns = hard_deadline_ns;
	l->reaped = true;   /* nothing to reap yet */
	if (!s->type)
		return err_set(e, EXIT_USAGE, "load: no type (parse the spec with load_parse first)");
	if (hard_deadline_ns <= mono_ns())
		return err_set(e, EXIT_USAGE, "load '%s': its hard deadline has already passed", s->text);
	if (s->type->check_room && s->type->check_room(s, e)) {
		err_prefix(e, "load '%s'", s->text);
		return -1;
	}
	/* The supervisor and the workers run irt's code in a fork of irt: a lock another thread
	 * held at the fork (an allocator's) would stay held in them for good. A thread joined a
	 * moment ago is counted until the kernel has released it, after the join returned. */
	int threads = own_threads();
	for (int i = 0; threads > 1 && i < 100; i++) {
		load_sleep_until(mono_ns() + NSEC_PER_MSEC);
		threads = own_threads();
	}
	if (threads > 1)
		return err_set(e, EXIT_RUNTIME, "load '%s': irt has %d threads, and loads are started "
			       "while it has one (a bug in irt: start them before its other threads)",
			       s->text, threads);
	for (int i = 0; i < LOAD_MAX_RUNNING && l->reg < 0; i++)
		if (!registry[i].shm)
			l->reg = i;
	if (l->reg < 0)
		return err_set(e, EXIT_USAGE, "load '%s': more than %d loads at once", s->text,
			       LOAD_MAX_RUNNING);
	l->shm = mmap(NULL, sizeof(*l->shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->shm == MAP_FAILED) {
		l->shm = NULL;
		return err_set(e, EXIT_RUNTIME, "load '%s': cannot map shared memory: %s", s->text,
			       strerror(errno));
	}
	if (pipe2(ready, O_CLOEXEC)) {
		munmap(l->shm, sizeof(*l->shm));
		l->shm = NULL;
		return err_set(e, EXIT_RUNTIME, "load '%s': pipe: %s", s->text, strerror(errno));
	}
	registry[l->reg].shm = l->shm;
	pid_t irt = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int saved = errno;
		close(ready[0]);
		close(ready[1]);
		registry[l->reg].shm = NULL;
		munmap(l->shm, sizeof(*l->shm));
		l->shm = NULL;
		return err_set(e, EXIT_RUNTIME, "load '%s': cannot fork: %s", s->text, strerror(saved));
	}
	if (pid == 0) {
		close(ready[0]);
		load_supervisor_main(l->shm, &l->spec, ready[1], irt, hard_deadline_ns);
	}
	close(ready[1]);
	l->pid = pid;
	l->reaped = false;
	registry[l->reg].pid = pid;
	if (!s->session)
		setpgid(pid, pid);   /* at once, so load_stop_all_on_signal can reach the group */
	l->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	char what = 0;
	struct pollfd pfd = {.fd = ready[0], .events = POLLIN};
	int64_t until = mono_ns() + READY_TIMEOUT_MS * NSEC_PER_MSEC;
	while (mono_ns() < until) {
		int rc = poll(&pfd, 1, 100);
		if (rc > 0) {
			if (read(ready[0], &what, 1) != 1)
				what = 'E';   /* closed without a word: the supervisor died */
			break;
		}
		if (rc < 0 && errno != EINTR)
			break;
	}
	close(ready[0]);
	if (what != 'R') {
		if (load_stop(l, e) == 0)   /* no failure recorded: say what we saw */
			err_set(e, EXIT_RUNTIME, "load '%s': %s", s->text,
				what ? "the load process died while starting" : "workers did not start within 15 s");
		return -1;
	}
	l->worker_pid = atomic_load(&l->shm->wpid);
	l->start_ns = atomic_load(&l->shm->start_ns);
	read_autogroup(l->worker_pid, l->autogroup, sizeof(l->autogroup));
	return 0;
}

int load_tasks(const struct load *l, struct load_task *out, int max)
{
	if (!l->shm)
		return 0;
	int n = atomic_load(&l->shm->ntasks), k = 0;
	for (int i = 0; i < n && i < LOAD_MAX_TASKS; i++) {
		const struct load_slot *sl = &l->shm->slot[i];
		if (atomic_load(&sl->state) != SLOT_RUNNING)
			continue;
		if (k < max) {
			out[k].pid = sl->pid;
			out[k].tid = sl->tid;
			memcpy(out[k].role, sl->role, sizeof(out[k].role));
			out[k].role[sizeof(out[k].role) - 1] = 0;
			out[k].ops = atomic_load_explicit(&sl->ops, memory_order_relaxed);
			out[k].bytes = atomic_load_explicit(&sl->bytes, memory_order_relaxed);
		}
		k++;
	}
	return k;
}

void load_sample(const struct load *l, struct load_counters *c)
{
	if (l->shm) {
		sum_counters(l->shm, c);
	} else {
		memset(c, 0, sizeof(*c));
		c->ops = l->result.ops;
		c->bytes = l->result.bytes;
		c->errors = l->result.errors;
	}
	c->t_ns = mono_ns();
}

void load_rate(const struct load_counters *a, const struct load_counters *b, double *ops_per_s,
	       double *bytes_per_s)
{
	double dt = (double)(b->t_ns - a->t_ns) / NSEC_PER_SEC;
	*ops_per_s = dt > 0 ? (double)(b->ops - a->ops) / dt : 0;
	*bytes_per_s = dt > 0 ? (double)(b->bytes - a->bytes) / dt : 0;
}

int load_wait(struct load *l, int64_t until_ns)
{
	if (!l->shm)
		return 1;
	return reap(l, until_ns);
}

int load_stop(struct load *l, struct err *e)
{
	struct load_result *r = &l->result;
	if (!l->shm)
		return r->failure[0] ? err_set(e, EXIT_RUNTIME, "load '%s': %s", l->spec.text, r->failure) : 0;
	struct load_shm *sh = l->shm;
	int64_t stop_ns = mono_ns();
	if (!reap(l, stop_ns)) {
		kill(l->pid, SIGTERM);
		if (!reap(l, mono_ns() + STOP_GRACE_NS)) {
			pid_t w = atomic_load(&sh->wpid);
			if (w > 0)
				kill(-w, SIGKILL);
			kill(l->pid, SIGKILL);
			reap(l, INT64_MAX);
		}
	}
	registry[l->reg].pid = 0;

	struct load_counters c;
	sum_counters(sh, &c);
	memset(r, 0, sizeof(*r));
	r->ops = c.ops;
	r->bytes = c.bytes;
	r->errors = c.errors;
	int64_t start = atomic_load(&sh->start_ns), end = atomic_load(&sh->end_ns);
	if (!end)
		end = stop_ns;
	r->elapsed_ns = start && end > start ? end - start : 0;
	if (r->elapsed_ns > 0) {
		r->ops_per_s = (double)r->ops * NSEC_PER_SEC / (double)r->elapsed_ns;
		r->bytes_per_s = (double)r->bytes * NSEC_PER_SEC / (double)r->elapsed_ns;
	}
	r->end = atomic_load(&sh->end_reason);
	if (atomic_load(&sh->failed) == 2) {
		snprintf(r->failure, sizeof(r->failure), "%s", sh->error);
	} else if (WIFSIGNALED(l->wstatus)) {
		snprintf(r->failure, sizeof(r->failure), "its supervisor was killed by signal %d",
			 WTERMSIG(l->wstatus));
	} else if (WIFEXITED(l->wstatus) && WEXITSTATUS(l->wstatus)) {
		snprintf(r->failure, sizeof(r->failure), "its supervisor exited with status %d",
			 WEXITSTATUS(l->wstatus));
	}
	if (r->failure[0])
		r->end = LOAD_END_FAILED;
	int code = sh->fail_code ? sh->fail_code : EXIT_RUNTIME;
	if (sh->tmpdir[0])
		rmdir(sh->tmpdir);   /* only if killed between creating and removing it */
	registry[l->reg].shm = NULL;
	munmap(sh, sizeof(*sh));
	l->shm = NULL;
	if (l->pidfd >= 0)
		close(l->pidfd);
	l->pidfd = -1;
	if (r->failure[0])
		return err_set(e, code, "load '%s': %s", l->spec.text, r->failure);
	return 0;
}

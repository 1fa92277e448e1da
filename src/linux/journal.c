#include "linux/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/cgroup.h"
#include "linux/sysfile.h"
#include "linux/trace.h"

#define JMAX 512
#define JPATH 384
#define JVAL 128
#define JLABEL 64

enum jkind { J_WRITE, J_CGROUP, J_FAKE_CGROUP, J_TRACEFS };

struct jentry {
	enum jkind kind;
	char path[JPATH];
	char value[JVAL];   /* J_WRITE: what to write back; J_*CGROUP: the tasks file name */
	char label[JLABEL];
	int err;            /* errno of the last undo attempt, 0 = done */
	bool gone;          /* a cgroup that someone else removed before irt did */
};

/* Fixed storage: the signal handler reads it, so it never moves. Entries below `count`
 * are complete; count is published after an entry is written. */
static struct jentry entries[JMAX];
static atomic_int count;
static atomic_int restoring;
static volatile sig_atomic_t pending_signal;

static int lock_fd = -1;
static int journal_fd = -1;
static pid_t owner;                      /* the process that took the lock */
static char journal_path[JPATH + 16];    /* built at begin, used by the signal handler */
static char dir_path[JPATH];
static bool hooks_installed;

const char *journal_dir(void)
{
	const char *d = getenv("IRT_STATE_DIR");
	return d && *d ? d : "/var/lib/irt";
}

bool journal_active(void)
{
	return lock_fd >= 0 && owner == getpid();
}

static const char *privilege_hint(int errnum)
{
	return errnum == EACCES || errnum == EPERM || errnum == EROFS
		       ? "changing tunables needs root (or CAP_SYS_ADMIN/CAP_SYS_NICE); or set "
			 "IRT_STATE_DIR to a writable directory"
		       : "check the state directory";
}

static void fsync_dir(void)
{
	int fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int mkdir_p(const char *dir)
{
	char p[JPATH];
	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

static void set_paths(void)
{
	snprintf(dir_path, sizeof(dir_path), "%s", journal_dir());
	snprintf(journal_path, sizeof(journal_path), "%s/journal", dir_path);
}

/* --- undo, async-signal-safe --- */

static int undo_one(struct jentry *j)
{
	if (j->kind == J_WRITE) {
		int fd = open(j->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			return errno;
		size_t len = strlen(j->value);
		ssize_t n = write(fd, j->value, len);
		int err = n == (ssize_t)len ? 0 : n < 0 ? errno : EIO;
		close(fd);
		return err;
	}
	if (j->kind == J_TRACEFS)
		return trace_undo(j->path);
	j->gone = access(j->path, F_OK) != 0 && errno == ENOENT;
	return cgroup_remove_dir(j->path, j->value, j->kind == J_FAKE_CGROUP);
}

/* Undoes entries [0, n) newest first; returns the number that failed. */
static int undo_all(int n)
{
	int failed = 0;
	for (int i = n - 1; i >= 0; i--) {
		entries[i].err = undo_one(&entries[i]);
		failed += entries[i].err != 0;
	}
	return failed;
}

static void put_str(const char *s)
{
	if (write(2, s, strlen(s)) < 0) {
		/* nothing left to tell it to */
	}
}

int journal_restore_from_signal(void)
{
	if (getpid() != owner || atomic_exchange(&restoring, 1))
		return 0;
	int n = atomic_load(&count);
	int failed = undo_all(n);
	if (!failed) {
		unlink(journal_path);
		atomic_store(&count, 0);
	}
	if (n) {
		put_str(failed ? "irt: interrupted; some tunables could not be restored (run irt restore)\n"
			       : "irt: interrupted; tunables restored\n");
	}
	atomic_store(&restoring, 0);
	return failed;
}

static void on_signal(int sig)
{
	int saved = errno;
	if (getpid() == owner && atomic_load(&restoring)) {
		/* the main flow is undoing right now; it re-raises when done */
		pending_signal = sig;
		errno = saved;
		return;
	}
	journal_restore_from_signal();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

static void at_exit(void)
{
	if (getpid() != owner || atomic_load(&count) == 0)
		return;
	struct err e = {0};
	if (journal_restore(NULL, NULL, &e))
		err_print(&e);
}

static void install_hooks(void)
{
	if (hooks_installed)
		return;
	hooks_installed = true;
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue; /* the command handles it: it calls journal_restore itself */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
			sigaddset(&sa.sa_mask, sigs[k]);
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(at_exit);
}

/* --- the journal file --- */

/* Reads the journal into entries[] after `first`; returns the new count. A last line
 * without its newline was being written when irt died: its change was never made. */
static int load(int first, int *pid)
{
	FILE *f = fopen(journal_path, "re");
	int n = first;
	char line[JPATH + JVAL + JLABEL + 32];
	*pid = 0;
	if (!f)
		return n;
	while (fgets(line, sizeof(line), f) && n < JMAX) {
		size_t len = strlen(line);
		if (!len || line[len - 1] != '\n')
			break;
		line[len - 1] = 0;
		char *f1 = line, *f2 = strchr(f1, '\t'), *f3 = f2 ? strchr(f2 + 1, '\t') : NULL;
		char *f4 = f3 ? strchr(f3 + 1, '\t') : NULL;
		if (f2)
			*f2++ = 0;
		if (f3)
			*f3++ = 0;
		if (f4)
			*f4++ = 0;
		if (strcmp(f1, "pid") == 0 && f2) {
			if (!*pid)
				*pid = atoi(f2);
			continue;
		}
		if (!f2 || !f3)
			continue;
		struct jentry *j = &entries[n];
		if (strcmp(f1, "write") == 0)
			j->kind = J_WRITE;
		else if (strcmp(f1, "cgroup") == 0)
			j->kind = J_CGROUP;
		else if (strcmp(f1, "fakecgroup") == 0)
			j->kind = J_FAKE_CGROUP;
		else if (strcmp(f1, "tracefs") == 0)
			j->kind = J_TRACEFS;
		else
			continue;
		snprintf(j->path, sizeof(j->path), "%s", f2);
		snprintf(j->value, sizeof(j->value), "%s", f3);
		snprintf(j->label, sizeof(j->label), "%s", f4 ? f4 : "");
		j->err = 0;
		n++;
	}
	fclose(f);
	return n;
}

static int append(const char *line, struct err *e)
{
	size_t len = strlen(line);
	if (journal_fd < 0) {
		bool fresh = access(journal_path, F_OK) != 0;
		journal_fd = open(journal_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (journal_fd < 0)
			goto fail;
		char head[64];
		snprintf(head, sizeof(head), "pid\t%d\n", (int)getpid());
		if (write(journal_fd, head, strlen(head)) != (ssize_t)strlen(head) || fsync(journal_fd))
			goto fail;
		if (fresh)
			fsync_dir();
	}
	if (write(journal_fd, line, len) != (ssize_t)len || fsync(journal_fd))
		goto fail;
	return 0;
fail:;
	int saved = errno;
	return err_set(e, EXIT_RUNTIME, "journal: cannot write %s: %s (%s)", journal_path,
		       strerror(saved), privilege_hint(saved));
}

static bool usable(const char *s)
{
	return !strpbrk(s, "\t\n");
}

static int note(enum jkind kind, const char *label, const char *path, const char *value,
		struct err *e)
{
	if (journal_begin(e))
		return -1;
	int n = atomic_load(&count);
	for (int i = 0; i < n; i++)
		if (entries[i].kind == kind && strcmp(entries[i].path, path) == 0)
			return 0;
	if (n >= JMAX)
		return err_set(e, EXIT_RUNTIME, "journal: more than %d changes at once", JMAX);
	if (strlen(path) >= JPATH || strlen(value) >= JVAL || strlen(label) >= JLABEL ||
	    !usable(path) || !usable(value) || !usable(label))
		return err_set(e, EXIT_RUNTIME, "journal: cannot record '%s' for %s (too long or multi-line)",
			       value, path);
	static const char *const kinds[] = {"write", "cgroup", "fakecgroup", "tracefs"};
	char line[JPATH + JVAL + JLABEL + 32];
	snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\n", kinds[kind], path, value, label);

	/* The line is on disk before the entry is visible to the handler, and both before the
	 * caller changes anything. Signals wait while this thread appends. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = append(line, e);
	if (rc == 0) {
		struct jentry *j = &entries[n];
		j->kind = kind;
		snprintf(j->path, sizeof(j->path), "%s", path);
		snprintf(j->value, sizeof(j->value), "%s", value);
		snprintf(j->label, sizeof(j->label), "%s", label);
		j->err = 0;
		atomic_store(&count, n + 1);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int journal_note_write(const char *label, const char *path, const char *undo, struct err *e)
{
	return note(J_WRITE, label ? label : "", path, undo, e);
}

int journal_note_cgroup(const char *dir, const char *procs, bool emulated, struct err *e)
{
	return note(emulated ? J_FAKE_CGROUP : J_CGROUP, "cgroup", dir, procs, e);
}

int journal_note_tracefs(const char *instance, struct err *e)
{
	return note(J_TRACEFS, "tracefs", instance, "instance", e);
}

/* --- restore in the normal flow --- */

static void say(FILE *out, const struct jentry *j)
{
	if (!out)
		return;
	if (j->kind == J_TRACEFS)
		fprintf(out, "removed tracing instance %s (and tracefs, when irt had mounted it and no other irt uses it)\n",
			j->path);
	else if (j->kind != J_WRITE && j->gone)
		fprintf(out, "cgroup %s was gone already (removed from outside irt)\n", j->path);
	else if (j->kind != J_WRITE)
		fprintf(out, "removed cgroup %s\n", j->path);
	else if (j->label[0])
		fprintf(out, "restored %s = %s (%s)\n", j->label, j->value, j->path);
	else
		fprintf(out, "restored %s = %s\n", j->path, j->value);
}

/* Undoes entries[0, n), reports, and on full success forgets them and the file. */
static int restore_entries(int n, FILE *out, struct journal_report *r, struct err *e)
{
	struct journal_report local = {0};
	if (!r)
		r = &local;
	int pid = r->pid;
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	undo_all(n);
	const struct jentry *first_bad = NULL;
	for (int i = n - 1; i >= 0; i--) {
		const struct jentry *j = &entries[i];
		if (j->err) {
			r->failed++;
			if (!first_bad)
				first_bad = j;
			continue;
		}
		if (j->kind == J_WRITE)
			r->settings++;
		else if (j->kind == J_TRACEFS)
			r->traces++;
		else
			r->cgroups++;
		r->gone += j->gone;
		say(out, j);
	}
	if (first_bad) {
		const char *what = first_bad->kind == J_WRITE     ? "write back"
				   : first_bad->kind == J_TRACEFS ? "remove tracing instance"
								  : "remove cgroup";
		err_set(e, EXIT_RUNTIME, "journal: cannot %s %s%s%s: %s (%s; %d of %d left in %s, run irt restore)",
			what, first_bad->path, first_bad->kind == J_WRITE ? " = " : "",
			first_bad->kind == J_WRITE ? first_bad->value : "", strerror(first_bad->err),
			sys_errno_hint(first_bad->err, first_bad->path), r->failed, n, journal_path);
		return -1;
	}
	if (journal_fd >= 0) {
		close(journal_fd);
		journal_fd = -1;
	}
	unlink(journal_path);
	fsync_dir();
	atomic_store(&count, 0);
	return 0;
}

int journal_restore(FILE *out, struct journal_report *r, struct err *e)
{
	if (atomic_exchange(&restoring, 1))
		return 0;
	int rc = restore_entries(atomic_load(&count), out, r, e);
	atomic_store(&restoring, 0);
	if (pending_signal) {
		int sig = pending_signal;
		pending_signal = 0;
		raise(sig);
	}
	return rc;
}

static void unlock(void)
{
	if (lock_fd >= 0) {
		close(lock_fd); /* drops the fcntl lock */
		lock_fd = -1;
	}
	owner = 0;
}

int journal_end(struct err *e)
{
	if (!journal_active())
		return 0;
	int rc = journal_restore(NULL, NULL, e);
	/* What could not be undone stays in the file for irt restore or the next irt. */
	if (journal_fd >= 0) {
		close(journal_fd);
		journal_fd = -1;
	}
	atomic_store(&count, 0);
	unlock();
	return rc;
}

/* Tries to take the lock without waiting: 0 taken, 1 held by a live irt (pid in *holder),
 * -1 error (errno set). */
static int try_lock(int *holder)
{
	char p[JPATH + 16];
	snprintf(p, sizeof(p), "%s/lock", dir_path);
	int fd = open(p, O_RDWR | O_CLOEXEC | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(fd, F_SETLK, &fl)) {
		int saved = errno;
		if (saved != EAGAIN && saved != EACCES) {
			close(fd);
			errno = saved;
			return -1;
		}
		fl = (struct flock){.l_type = F_WRLCK, .l_whence = SEEK_SET};
		*holder = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? (int)fl.l_pid : 0;
		if (!*holder) {
			char buf[32] = "";
			ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
			*holder = n > 0 ? atoi(buf) : 0;
		}
		close(fd);
		return 1;
	}
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)len, 0) == len) {
		/* best effort: the lock itself is what counts */
	}
	lock_fd = fd;
	owner = getpid();
	return 0;
}

static int busy(int holder, struct err *e)
{
	return err_set(e, EXIT_RUNTIME,
		       "another irt (pid %d) is changing tunables; wait for it or run irt restore after it died",
		       holder);
}

/* With the lock held: undoes a leftover journal, if any, saying so. */
static int recover_locked(FILE *out, bool announce, struct journal_report *r, struct err *e)
{
	int pid = 0;
	int n = load(0, &pid);
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	atomic_store(&count, n);
	if (n == 0) {
		if (access(journal_path, F_OK) == 0) {
			unlink(journal_path); /* only a header: irt died before changing anything */
			fsync_dir();
		}
		return 0;
	}
	int rc = restore_entries(n, out, r, e);
	if (announce && r->traces > 0 && r->settings + r->cgroups == 0)
		fprintf(stderr, "irt: removed the tracing instance left by a crashed irt (pid %d)\n", pid);
	if (announce && r->settings + r->cgroups > 0) {
		fprintf(stderr, "irt: restored %d setting%s left changed by a crashed irt (pid %d)", r->settings,
			r->settings == 1 ? "" : "s", pid);
		if (r->cgroups)
			fprintf(stderr, " and removed %d cgroup%s", r->cgroups, r->cgroups == 1 ? "" : "s");
		fprintf(stderr, "\n");
	}
	return rc;
}

int journal_begin(struct err *e)
{
	if (journal_active())
		return 0;
	set_paths();
	if (mkdir_p(dir_path)) {
		int saved = errno;
		return err_set(e, EXIT_RUNTIME, "journal: cannot create %s: %s (%s)", dir_path,
			       strerror(saved), privilege_hint(saved));
	}
	int holder = 0, rc = try_lock(&holder);
	if (rc < 0) {
		int saved = errno;
		return err_set(e, EXIT_RUNTIME, "journal: cannot lock %s/lock: %s (%s)", dir_path,
			       strerror(saved), privilege_hint(saved));
	}
	if (rc > 0)
		return busy(holder, e);
	install_hooks();
	struct journal_report r;
	struct err why = {0};
	if (recover_locked(NULL, true, &r, &why)) {
		/* Keep the leftovers: they stay in the journal and are retried at our end. */
		fprintf(stderr, "irt: warning: %s\n", why.msg);
	}
	return 0;
}

int journal_recover(struct err *e)
{
	if (journal_active())
		return 0;
	set_paths();
	if (access(journal_path, F_OK) != 0)
		return 0;
	int holder = 0, rc = try_lock(&holder);
	if (rc > 0)
		return 0; /* a live irt: its journal is its own business */
	if (rc < 0) {
		int saved = errno, pid = 0;
		int n = load(0, &pid);
		return err_set(e, EXIT_RUNTIME,
			       "journal: a crashed irt (pid %d) left %d change%s in %s that could not be "
			       "undone: %s (%s; run irt restore as root)",
			       pid, n, n == 1 ? "" : "s", journal_path, strerror(saved), privilege_hint(saved));
	}
	struct journal_report r;
	rc = recover_locked(NULL, true, &r, e);
	unlock();
	return rc;
}

int journal_restore_leftovers(FILE *out, struct err *e)
{
	if (journal_active()) {
		struct journal_report r;
		return journal_restore(out, &r, e);
	}
	set_paths();
	if (access(journal_path, F_OK) != 0) {
		fprintf(out, "nothing to restore (no journal in %s)\n", dir_path);
		return 0;
	}
	int holder = 0, rc = try_lock(&holder);
	if (rc > 0)
		return err_set(e, EXIT_RUNTIME,
			       "restore: irt pid %d is running and holds the journal; it restores its own "
			       "changes when it ends (run irt restore after it died)", holder);
	if (rc < 0) {
		int saved = errno;
		return err_set(e, EXIT_RUNTIME, "restore: cannot lock %s/lock: %s (%s)", dir_path,
			       strerror(saved), privilege_hint(saved));
	}
	struct journal_report r;
	rc = recover_locked(out, false, &r, e);
	unlock();
	if (rc == 0) {
		if (r.traces)
			fprintf(out, "removed %d tracing instance%s left by irt pid %d\n", r.traces,
				r.traces == 1 ? "" : "s", r.pid);
		if (r.settings + r.cgroups)
			fprintf(out, "restored %d setting%s and removed %d cgroup%s left by irt pid %d\n",
				r.settings, r.settings == 1 ? "" : "s", r.cgroups, r.cgroups == 1 ? "" : "s",
				r.pid);
		else if (!r.traces)
			fprintf(out, "nothing to restore (the journal in %s was empty)\n", dir_path);
	}
	return rc;
}

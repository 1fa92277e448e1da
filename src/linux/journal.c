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
#include "linux/knob.h"
#include "linux/sysfile.h"
#include "linux/trace.h"
#include "trust.h"
#include "util.h"

#define JMAX 512
#define JPATH 384
#define JVAL 128
#define JLABEL 64
#define JDIR 255            /* longest IRT_STATE_DIR */

enum jkind { J_WRITE, J_CGROUP, J_FAKE_CGROUP, J_TRACEFS };

struct jentry {
	enum jkind kind;
	char path[JPATH];
	char value[JVAL];   /* J_WRITE: what to write back; J_*CGROUP: the tasks file name */
	char label[JLABEL];
	int err;            /* errno of the last undo attempt, 0 = done */
	bool gone;          /* a cgroup that someone else removed before irt did */
	bool unchanged;     /* J_WRITE whose write the kernel refused: nothing to undo or report */
};

/* Fixed storage: the signal handler reads it, so it never moves. Entries below `count`
 * are complete; count is published after an entry is written. */
static struct jentry entries[JMAX];
static atomic_int count;
static atomic_int restoring;
static volatile sig_atomic_t pending_signal;

static int lock_fd = -1;
static int machine_fd = -1;              /* MACHINE_LOCK, while lock_fd is held (journal_begin) */
static int journal_fd = -1;
static int dir_fd = -1;                  /* the state directory, opened as trusted */
static pid_t owner;                      /* the process that took the lock */
static char journal_path[JDIR + 16];     /* for messages */
static char dir_path[JDIR + 1];
static bool hooks_installed;
static int noted_new = -1;               /* the entry the last note added, -1: it added none */

/* Entries of the journal file that restore refused to act on (entry_allowed). */
static int ignored;
static char ignored_first[300];

const char *journal_dir(void)
{
	const char *d = getenv("IRT_STATE_DIR");
	return d && *d ? d : "/var/lib/irt";
}

bool journal_active(void)
{
	return lock_fd >= 0 && owner == getpid();
}

static bool denied(int errnum)
{
	return errnum == EACCES || errnum == EPERM || errnum == EROFS;
}

static const char *privilege_hint(int errnum)
{
	return denied(errnum) ? "changing tunables needs root (or CAP_SYS_ADMIN/CAP_SYS_NICE); or set "
				"IRT_STATE_DIR to a writable directory"
			      : "check the state directory";
}

/* A journal this user may not lock was left by a root irt: only root can undo it, and another
 * IRT_STATE_DIR would merely hide it. */
#define ROOT_LEFT_IT "a root irt left changes here to restore: run irt restore as root"

static void fsync_dir(void)
{
	if (dir_fd >= 0)
		fsync(dir_fd);
}

static void close_dir(void)
{
	if (dir_fd >= 0 && lock_fd < 0) {
		close(dir_fd);
		dir_fd = -1;
	}
}

/* Opens the state directory as a directory root may trust (trust.h): owned by the effective
 * user or root, writable by no one else, no symbolic link on the way. Returns 0; 1 when it
 * does not exist and !create; -1 with e set (EXIT_USAGE when it is not trustworthy). */
static int open_dir(bool create, struct err *e)
{
	const char *d = journal_dir();
	if (strlen(d) > JDIR)
		return err_set(e, EXIT_USAGE, "IRT_STATE_DIR: longer than %d characters (choose a shorter path)",
			       JDIR);
	/* relative, it would name another directory wherever irt runs next: a crash's leftovers
	 * would not be found */
	if (*d != '/')
		return err_set(e, EXIT_USAGE, "IRT_STATE_DIR: '%s' is not an absolute path (crash recovery must find "
			       "it from any directory; give an absolute path)", d);
	snprintf(dir_path, sizeof(dir_path), "%s", d);
	snprintf(journal_path, sizeof(journal_path), "%s/journal", dir_path);
	if (dir_fd >= 0)
		return 0;
	struct err why = {0};
	dir_fd = trust_open_dir(dir_path, getenv("IRT_STATE_DIR") && *getenv("IRT_STATE_DIR")
						  ? "IRT_STATE_DIR" : "state directory",
				create ? TRUST_CREATE : 0, &why);
	if (dir_fd >= 0)
		return 0;
	if (why.code) {
		*e = why;
		return -1;
	}
	int saved = errno;
	if (saved == ENOENT && !create)
		return 1;
	return err_set(e, EXIT_RUNTIME, "journal: cannot %s %s: %s (%s)", create ? "create" : "open", dir_path,
		       strerror(saved), privilege_hint(saved));
}

/* --- what restore may act on --- */

/* Absolute, and no empty, "." or ".." component: a path names what it seems to name. */
static bool clean_path(const char *p)
{
	size_t n = strlen(p);
	if (p[0] != '/' || err_has_control(p) || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		return false;
	return !(n >= 2 && strcmp(p + n - 2, "/.") == 0) && !(n >= 3 && strcmp(p + n - 3, "/..") == 0);
}

/* Is p "<mount>/..." (strictly below the mount)? Returns what follows the mount, or NULL. */
static const char *below(const char *p, const char *mount)
{
	size_t n = strlen(mount);
	return strncmp(p, mount, n) == 0 && p[n] == '/' && p[n + 1] ? p + n : NULL;
}

/* "irt-<pid>-<role>": the only cgroups irt creates (cgroup_create). */
static bool irt_cgroup_name(const char *name)
{
	if (strncmp(name, "irt-", 4))
		return false;
	const char *c = name + 4;
	if (*c < '1' || *c > '9')
		return false;
	while (*c >= '0' && *c <= '9')
		c++;
	if (*c++ != '-' || !*c)
		return false;
	for (; *c; c++)
		if (*c < 'a' || *c > 'z')
			return false;
	return true;
}

/* Restore writes only what irt itself could have journaled: a knob table file with a value of
 * the knob's form, "-cpu" to a cgroup.subtree_control under the cpu controller's mount, and
 * irt's own cgroups under that mount. Anything else (a planted or damaged journal) is refused
 * with why set, and is never written. */
static bool entry_allowed(const struct jentry *j, char *why, size_t len)
{
	static struct cg_hier h;
	static bool detected;
	if (!detected) {
		cgroup_detect(&h, NULL);
		detected = true;
	}
	if (!clean_path(j->path))
		return snprintf(why, len, "not a plain absolute path"), false;
	if (j->kind == J_WRITE && strcmp(j->label, "cgroup.subtree_control") == 0) {
		const char *rest = h.version == CG_V2 ? below(j->path, h.mount) : NULL;
		size_t n = rest ? strlen(rest) : 0;
		if (!rest || n < 23 || strcmp(rest + n - 23, "/cgroup.subtree_control"))
			return snprintf(why, len, "not a cgroup.subtree_control of the cpu controller's hierarchy"), false;
		if (strcmp(j->value, "-cpu"))
			return snprintf(why, len, "not the value irt writes there (-cpu)"), false;
		return true;
	}
	if (j->kind == J_WRITE)
		return knob_journal_ok(j->label, j->path, j->value, why, len);
	if (j->kind == J_TRACEFS) {   /* only irt's own instances: TRACE_MOUNT/instances/irt-PID */
		const char *rest = below(j->path, TRACE_MOUNT "/instances");
		if (!rest || strncmp(rest, "/irt-", 5) || !rest[5] || strspn(rest + 5, "0123456789") != strlen(rest + 5))
			return snprintf(why, len, "not a tracing instance irt creates (%s/instances/irt-PID)", TRACE_MOUNT), false;
		return strcmp(j->value, "instance") == 0 ? true : (snprintf(why, len, "not an instance entry"), false);
	}
	if (h.version == CG_NONE || !below(j->path, h.mount))
		return snprintf(why, len, "not under the cpu controller's mount"), false;
	if (!irt_cgroup_name(strrchr(j->path, '/') + 1))
		return snprintf(why, len, "not a cgroup irt creates (irt-PID-ROLE)"), false;
	if (strcmp(j->value, "cgroup.procs") && strcmp(j->value, "tasks") && strcmp(j->value, "cgroup.threads"))
		return snprintf(why, len, "'%s' is not a cgroup's task list", j->value), false;
	if ((j->kind == J_FAKE_CGROUP) != h.emulated)
		return snprintf(why, len, "%s", h.emulated ? "a real cgroup entry in a fake tree"
							   : "a fake-tree entry for a real cgroup file system"), false;
	return true;
}

/* --- undo, async-signal-safe --- */

static int undo_one(struct jentry *j)
{
	if (j->unchanged)
		return 0;
	if (j->kind == J_WRITE) {
		int fd = open(j->path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
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
		unlinkat(dir_fd, "journal", 0);
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

/* Reads the journal into entries[] after `first`; returns the new count, or -1 with e set when
 * the file is not one root may trust. A last line without its newline was being written when
 * irt died: its change was never made. Entries restore must not act on are counted in
 * `ignored`, never loaded. */
static int load(int first, int *pid, struct err *e)
{
	int n = first, lineno = 0;
	char line[JPATH + JVAL + JLABEL + 32];
	*pid = 0;
	ignored = 0;
	ignored_first[0] = 0;
	int fd = trust_openat(dir_fd, "journal", journal_path, O_RDONLY, 0, e);
	if (fd < 0)
		return errno == ENOENT ? n : -1;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return n;
	}
	while (fgets(line, sizeof(line), f) && n < JMAX) {
		size_t len = strlen(line);
		lineno++;
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
		char why[160];
		if (!entry_allowed(j, why, sizeof(why))) {
			if (!ignored++)
				snprintf(ignored_first, sizeof(ignored_first), "line %d: %.12s %.100s: %.160s", lineno, f1,
					 f2, why);
			continue;
		}
		n++;
	}
	fclose(f);
	return n;
}

static int append(const char *line, struct err *e)
{
	size_t len = strlen(line);
	if (journal_fd < 0) {
		struct stat st;
		bool fresh = fstatat(dir_fd, "journal", &st, AT_SYMLINK_NOFOLLOW) != 0;
		struct err why = {0};
		journal_fd = trust_openat(dir_fd, "journal", journal_path, O_WRONLY | O_APPEND | O_CREAT, 0, &why);
		if (journal_fd < 0 && why.code) {
			*e = why;
			return -1;
		}
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
	noted_new = -1;
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
		j->gone = j->unchanged = false;
		atomic_store(&count, n + 1);
		noted_new = n;
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

void journal_write_failed(const char *path)
{
	if (noted_new >= 0 && noted_new < atomic_load(&count) && entries[noted_new].kind == J_WRITE &&
	    strcmp(entries[noted_new].path, path) == 0)
		entries[noted_new].unchanged = true;
}

/* --- restore in the normal flow --- */

static void say(FILE *out, const struct jentry *j)
{
	char shown[JVAL];
	const char *v = j->kind == J_WRITE && j->label[0] ? knob_journal_value(j->label, j->value, shown, sizeof(shown)) : NULL;
	if (!out)
		return;
	if (j->kind == J_TRACEFS)
		fprintf(out, "removed tracing instance %s (and tracefs, when irt had mounted it and no other irt uses it)\n",
			j->path);
	else if (j->kind != J_WRITE && j->gone)
		fprintf(out, "cgroup %s was gone already (removed from outside irt)\n", j->path);
	else if (j->kind != J_WRITE)
		fprintf(out, "removed cgroup %s\n", j->path);
	else if (v)
		fprintf(out, "restored %s = %s (%s)\n", j->label, v, j->path);
	else if (j->label[0])   /* the file's own value: "restored .../state1/disable = 0 (cpuidle.max_state)" */
		fprintf(out, "restored %s = %s (%s)\n", j->path, j->value, j->label);
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
		if (j->unchanged)
			continue;
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
	unlinkat(dir_fd, "journal", 0);
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
	if (machine_fd >= 0) {
		close(machine_fd);
		machine_fd = -1;
	}
	owner = 0;
	close_dir();
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

/* Tries to take the lock on `name` in directory fd dfd without waiting, writing our pid into
 * it: 0 taken (*fd), 1 held by a live irt (pid in *holder), -1 error (errno set), -2 a lock
 * file root must not trust (e set). */
static int lock_at(int dfd, const char *name, const char *shown, int *fd_out, int *holder, struct err *e)
{
	struct err why = {0};
	int fd = trust_openat(dfd, name, shown, O_RDWR | O_CREAT, 0, &why);
	if (fd < 0 && why.code) {
		*e = why;
		return -2;
	}
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
	*fd_out = fd;
	return 0;
}

static int try_lock(int *holder, struct err *e)
{
	char p[JDIR + 16];
	snprintf(p, sizeof(p), "%s/lock", dir_path);
	int rc = lock_at(dir_fd, "lock", p, &lock_fd, holder, e);
	if (rc == 0)
		owner = getpid();
	return rc;
}

/* The state lock covers one state directory; root irts with different IRT_STATE_DIRs change
 * the same tunables, so root also locks MACHINE_LOCK while it may change real ones (not a
 * fake IRT_SYSROOT tree): else each would journal the other's value as the original. No /run:
 * nothing to lock there. Returns as try_lock. */
static int machine_lock(int *holder, struct err *e)
{
	if (geteuid() != 0 || sysroot()[0])
		return 0;
	struct err why = {0};
	int run = trust_open_dir(MACHINE_LOCK_DIR, MACHINE_LOCK_DIR, 0, &why);
	if (run < 0 && why.code) {
		*e = why;
		return -2;
	}
	if (run < 0)
		return errno == ENOENT ? 0 : -1;
	int rc = lock_at(run, MACHINE_LOCK_NAME, MACHINE_LOCK_DIR "/" MACHINE_LOCK_NAME, &machine_fd, holder, e);
	int saved = errno;
	close(run);
	errno = saved;
	return rc;
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
	int n = load(0, &pid, e);
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	if (n < 0)
		return -1;
	if (ignored)
		fprintf(stderr, "irt: warning: journal: ignored %d entr%s of %s that irt never writes (%s)\n",
			ignored, ignored == 1 ? "y" : "ies", journal_path, ignored_first);
	atomic_store(&count, n);
	if (n == 0) {
		struct stat st;
		if (fstatat(dir_fd, "journal", &st, AT_SYMLINK_NOFOLLOW) == 0) {
			unlinkat(dir_fd, "journal", 0); /* only a header: irt died before changing anything */
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

/* The lock could not be taken: rc from try_lock, errno for -1. */
static int lock_failed(int rc, const char *who, struct err *e)
{
	int saved = errno;
	close_dir();
	if (rc == -2)
		return -1;
	bool root_left = strcmp(who, "restore") == 0 && denied(saved);
	return err_set(e, EXIT_RUNTIME, "%s: cannot lock %s/lock: %s (%s)", who, dir_path, strerror(saved),
		       root_left ? ROOT_LEFT_IT : privilege_hint(saved));
}

int journal_begin(struct err *e)
{
	if (journal_active())
		return 0;
	if (open_dir(true, e))
		return -1;
	int holder = 0, rc = try_lock(&holder, e);
	if (rc < 0)
		return lock_failed(rc, "journal", e);
	if (rc > 0) {
		close_dir();
		return busy(holder, e);
	}
	if ((rc = machine_lock(&holder, e)) != 0) {
		int saved = errno;
		unlock();
		if (rc > 0)
			return busy(holder, e);
		if (rc == -2)
			return -1;
		return err_set(e, EXIT_RUNTIME, "journal: cannot lock %s/%s: %s (%s)", MACHINE_LOCK_DIR,
			       MACHINE_LOCK_NAME, strerror(saved), privilege_hint(saved));
	}
	install_hooks();
	struct journal_report r;
	struct err why = {0};
	if (recover_locked(NULL, true, &r, &why)) {
		if (why.code == EXIT_USAGE) {   /* a journal root must not trust: refuse */
			*e = why;
			unlock();
			return -1;
		}
		/* Keep the leftovers: they stay in the journal and are retried at our end. */
		fprintf(stderr, "irt: warning: %s\n", why.msg);
	}
	return 0;
}

int journal_recover(struct err *e)
{
	if (journal_active())
		return 0;
	int rc = open_dir(false, e);
	if (rc)
		return rc < 0 ? -1 : 0;
	struct stat st;
	if (fstatat(dir_fd, "journal", &st, AT_SYMLINK_NOFOLLOW) != 0) {
		close_dir();
		return 0;
	}
	int holder = 0;
	rc = try_lock(&holder, e);
	if (rc > 0) {
		close_dir();
		return 0; /* a live irt: its journal is its own business */
	}
	if (rc == -2)
		return lock_failed(rc, "journal", e);
	if (rc < 0) {
		int saved = errno, pid = 0;
		int n = load(0, &pid, e);
		close_dir();
		if (n < 0)
			return -1;
		return err_set(e, EXIT_RUNTIME,
			       "journal: a crashed irt (pid %d) left %d change%s in %s that could not be "
			       "undone: %s (%s)",
			       pid, n, n == 1 ? "" : "s", journal_path, strerror(saved),
			       denied(saved) ? ROOT_LEFT_IT : "check the state directory; run irt restore as root");
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
	int rc = open_dir(false, e);
	struct stat st;
	if (rc < 0)
		return -1;
	if (rc > 0 || fstatat(dir_fd, "journal", &st, AT_SYMLINK_NOFOLLOW) != 0) {
		close_dir();
		fprintf(out, "nothing to restore (no journal in %s)\n", dir_path);
		return 0;
	}
	int holder = 0;
	rc = try_lock(&holder, e);
	if (rc > 0) {
		close_dir();
		return err_set(e, EXIT_RUNTIME,
			       "restore: irt pid %d is running and holds the journal; it restores its own "
			       "changes when it ends (run irt restore after it died)", holder);
	}
	if (rc < 0)
		return lock_failed(rc, "restore", e);
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

/* The crash journal: before irt changes anything outside itself (a sysctl, a debugfs file, a
 * cgroup's subtree_control, a cgroup it creates) it writes how to undo that change to a
 * state file and fsyncs it. The undo list is replayed, newest first:
 *   - by journal_restore()/journal_end() in the normal flow (and at exit as a safety net),
 *   - from SIGINT/SIGTERM/SIGHUP when the command has not installed handlers of its own,
 *   - by journal_recover() at the start of the next irt command after a crash (kill -9),
 *   - by `irt restore`.
 * A POSIX record lock on <state>/lock (holding the pid) lets one irt at a time change
 * tunables. It is an fcntl lock, not flock, because fcntl locks are not inherited across
 * fork: a load child that outlives a killed irt cannot keep the dead irt's lock.
 *
 * State directory: $IRT_STATE_DIR, or /var/lib/irt. Files: journal, lock. Root also locks
 * MACHINE_LOCK_DIR/MACHINE_LOCK_NAME while it holds the journal for real tunables, so irts with
 * different state directories do not change them at once. */
#ifndef IRT_LINUX_JOURNAL_H
#define IRT_LINUX_JOURNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

#define MACHINE_LOCK_DIR "/run"
#define MACHINE_LOCK_NAME "irt.lock"

const char *journal_dir(void);

/* Takes the lock (EXIT_RUNTIME "another irt (pid P) is changing tunables; ..." when a live
 * irt holds it), restores what a crashed irt left (saying so on stderr), and installs the
 * SIGINT/SIGTERM/SIGHUP handlers where the disposition is still the default, and an atexit
 * restore. Idempotent. journal_note_*() call it on first use; call it early to be refused
 * before measuring anything. */
int journal_begin(struct err *e);
bool journal_active(void);

/* Records, durably, that writing `undo` to `path` undoes the change about to be made.
 * label names the setting in messages ("kernel.sched_rr_timeslice_ms"). Only the first
 * note of a path counts: it holds the original. */
int journal_note_write(const char *label, const char *path, const char *undo, struct err *e);
/* The write journal_note_write just noted for path failed (a sysctl takes all of a write or
 * none), so nothing changed: restore neither writes the original back nor reports it. Does
 * nothing when that note found the path journaled already (an earlier write changed it). The
 * file keeps the entry: after a crash, writing the original back is harmless. */
void journal_write_failed(const char *path);
/* Records a cgroup about to be created: undone by moving its tasks (listed in `procs`) to
 * the parent and removing the directory. */
int journal_note_cgroup(const char *dir, const char *procs, bool emulated, struct err *e);

/* Records a tracing instance (a full path under tracefs) about to be created, and maybe
 * tracefs about to be mounted: undone by trace_undo (linux/trace.h). */
int journal_note_tracefs(const char *instance, struct err *e);

struct journal_report {
	int settings;   /* files written back */
	int cgroups;    /* cgroups removed */
	int traces;     /* tracing instances removed */
	int gone;       /* of those, cgroups someone else had removed already */
	int failed;     /* entries that could not be undone (kept in the journal) */
	int pid;        /* the irt that made the changes (from the journal) */
};
/* Undoes everything noted so far, newest first; the lock stays held (a sweep calls this
 * between cells). On failures the journal file is kept (undoing twice is harmless), e tells
 * the first failure, and -1 is returned. If out is not NULL, says each undo there. */
int journal_restore(FILE *out, struct journal_report *r, struct err *e);
/* journal_restore, then releases the lock. */
int journal_end(struct err *e);

/* Called at the start of every irt command. If a journal exists and no live irt holds the
 * lock, the irt that wrote it died: undo it, say "irt: restored N settings left changed by
 * a crashed irt (pid P)" on stderr, release the lock. Returns -1 (e set) only when leftovers
 * could not be undone (e.g. not root): a command that changes no tunables may print e as a
 * warning and go on. */
int journal_recover(struct err *e);

/* `irt restore`: the same as journal_recover, but says what it did (or that there was
 * nothing) on out, and fails if a live irt holds the lock. */
int journal_restore_leftovers(FILE *out, struct err *e);

/* Async-signal-safe undo of everything noted, for a command's own signal handler that
 * wants to exit at once. Returns the number of entries that failed. Does nothing in a
 * forked child. */
int journal_restore_from_signal(void);

#endif

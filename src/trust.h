/* Files root may trust, and the one way irt writes an output file.
 *
 * irt often runs as root, and it reads state (the journal, a sweep's plan) and writes outputs in
 * directories other users may be able to write. The rule (docs/hardening.md, "threat model"):
 * root acts only on files and directories owned by itself (or by the effective user, when irt
 * is not root) that nobody else can write, reached without following a symbolic link another
 * user could have planted; and it creates files only with O_EXCL, never through a name someone
 * else could have prepared. */
#ifndef IRT_TRUST_H
#define IRT_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <jansson.h>

#include "err.h"

/* Is this owned by the effective user or root, and writable by no one else? Otherwise false
 * with why (if not NULL) filled: "owned by uid 65534", "writable by its group and others". */
bool trust_stat_ok(const struct stat *st, char *why, size_t len);

/* How trust_open_dir and trust_openat open things. */
enum {
	TRUST_CREATE = 1,      /* trust_open_dir: make a missing last component (mode 0755) */
	/* Only to read what anyone may have written (result files, sweep summaries: parsed
	 * strictly, docs/hardening.md): any owner and mode, and '..' in a path, are accepted; still
	 * no symbolic link is followed, and trust_openat takes only a regular file with one link */
	TRUST_READ_ANY = 2,
};

/* Opens directory `path` for keeping state: every component is opened without following a
 * symbolic link; each ancestor must be owned by root or the effective user and not writable
 * by others unless sticky (/tmp); the directory itself must pass trust_stat_ok (neither with
 * TRUST_READ_ANY). With TRUST_CREATE in `how` a missing last component is made (mode 0755).
 * `what` names the path in messages ("IRT_STATE_DIR"). Returns an O_DIRECTORY fd, or -1 with
 * errno: ENOENT when it does not exist and no TRUST_CREATE (e left alone), anything else with e
 * set (EXIT_USAGE when it is not trustworthy, EXIT_RUNTIME when it cannot be opened or made). */
int trust_open_dir(const char *path, const char *what, unsigned how, struct err *e);
/* The same from directory fd base (a relative path; AT_FDCWD: trust_open_dir), shown naming
 * base in messages ("DIR": "DIR/c0 is a symbolic link"). what NULL: a message names only the
 * component at fault. */
int trust_open_dirat(int base, const char *shown, const char *path, const char *what, unsigned how,
                     struct err *e);

/* Opens `name` in directory fd `dir` with O_NOFOLLOW|O_CLOEXEC added to flags (and O_NONBLOCK
 * while it looks, so that a FIFO cannot block it), and refuses it unless it is a regular file
 * with one link that passes trust_stat_ok (not checked with TRUST_READ_ANY in `how`). `shown`
 * is the path for messages. Returns the fd, or -1 with errno: ENOENT when missing (no O_CREAT;
 * e left alone), otherwise e set (EXIT_USAGE for an untrustworthy file, EXIT_RUNTIME for an
 * error). */
int trust_openat(int dir, const char *name, const char *shown, int flags, unsigned how, struct err *e);

/* What is at an output path (`name` in directory fd `dir`, or AT_FDCWD and the path), for
 * write_atomic: 0 nothing, a regular file, or a symbolic link to one or to nothing, which is
 * replaced, never followed; 1 a character device (/dev/null, a terminal), written into, as
 * replacing it would destroy it; -1 anything else, with *why ("a directory", "a pipe", ...):
 * irt neither replaces nor follows it. */
int output_target(int dir, const char *name, const char **why);

/* Writes len bytes to path so that a reader sees the old file or the whole new one, and never
 * through a name another user could have prepared: a new temporary file next to it is created
 * with O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, written, fsynced and renamed over
 * path (which replaces a symbolic link at path rather than following it); the directory is
 * fsynced. "-" writes to stdout, and a character device at path (/dev/null) is written into.
 * Anything else output_target refuses is an EXIT_USAGE error. On failure nothing is left behind
 * and e says "PATH: cannot write (<strerror>)". */
int write_atomic(const char *path, const void *data, size_t len, struct err *e);
/* json_dumps(root, flags), then write_atomic. */
int write_atomic_json(const char *path, const json_t *root, size_t flags, struct err *e);

#endif

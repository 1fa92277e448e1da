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
#include <stdio.h>
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
	 * strictly, docs/hardening.md): any owner and mode are accepted; still
	 * no symbolic link is followed, and trust_openat takes only a regular file with one link */
	TRUST_READ_ANY = 2,
};

/* Opens directory `path` for keeping state: every component is opened without following a
 * symbolic link; each ancestor must be owned by root or the effective user and not writable
 * by others unless sticky (/tmp), '..' included (each directory a name is looked up in); the
 * directory itself must pass trust_stat_ok (neither with TRUST_READ_ANY). With TRUST_CREATE in `how` a missing last component is made (mode 0755).
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

/* Opens a file named on the command line to read it (a result, a job file, a workload, a step
 * script): as given, whoever owns it, a link followed (the command line names what it means),
 * a pipe accepted (`<(cmd)`). Opened O_NONBLOCK and then made blocking, so that a FIFO no one
 * opens for writing within 2 s reads as empty (the reader's own "empty file" error) instead of
 * hanging in open(); a pipe with a writer reads normally. A directory, or a device other than
 * /dev/null (/dev/zero would be read forever), is refused: NULL, e set (EXIT_USAGE,
 * "PATH: is a directory (expected a WHAT)").
 * NULL with errno and e left alone when it cannot be opened: the caller words that. */
FILE *input_fopen(const char *path, const char *what, struct err *e);

/* What is at an output path (`name` in directory fd `dir`, or AT_FDCWD and the path), for
 * write_atomic: 0 nothing, a regular file, or a symbolic link to one or to nothing, which is
 * replaced, never followed; 1 a character device (/dev/null, a terminal), written into, as
 * replacing it would destroy it; -1 anything else, with *why ("a directory", "a pipe", ...):
 * irt neither replaces nor follows it. */
int output_target(int dir, const char *name, const char **why);

/* Creates a new file `base`.tmp.RANDOM in directory fd `dfd` (O_CREAT|O_EXCL|O_NOFOLLOW, 64
 * random bits, so no name another user planted is used or blocks it), its name in tmp (at least
 * 300 bytes): the fd, or -1 with errno. */
int tmp_create_at(int dfd, const char *base, char *tmp, size_t len, mode_t mode);

/* Writes len bytes to path so that a reader sees the old file or the whole new one, and never
 * through a name another user could have prepared: a new temporary file next to it is created
 * with O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, written, fsynced and renamed over
 * path (which replaces a symbolic link at path rather than following it); the directory is
 * fsynced. "-" writes to stdout, and a character device at path (/dev/null) is written into.
 * Anything else output_target refuses is an EXIT_USAGE error. On failure nothing is left behind
 * and e says "PATH: cannot write (<strerror>)". */
int write_atomic(const char *path, const void *data, size_t len, struct err *e);
/* write_atomic's work once the directory is open: `base` in directory fd `dfd`, `path` naming
 * it in messages. */
int write_atomic_at(int dfd, const char *base, const char *path, const void *data, size_t len, struct err *e);
/* The directory output `path` goes into, in dir ("." or "/" too), and *base its last component
 * (in path): 0, or -1 with errno (ENAMETOOLONG, EISDIR when the name is empty, "." or ".."). */
int output_split(const char *path, char *dir, size_t len, const char **base);
/* An O_DIRECTORY fd of output directory `dir`, opened as given (the command line names it), or
 * -1 with errno. As root, a symbolic link on the way is followed only if root owns it; why (len
 * bytes, emptied otherwise) then says which link was refused. With pin, irt checks the directory before it starts (cli_check_dir): the fd is
 * kept, and every later call for the same dir gets that directory, not what its name leads to by
 * then (in a directory another user may rename things in, a link to one of root's). */
int output_dir_fd(const char *dir, bool pin, char *why, size_t len);
/* An output directory (--svg DIR): made (0777 less the umask; *made says so) unless it exists,
 * and opened without following a link at its name, as output files are never followed: a link
 * there is refused (EXIT_USAGE). An O_DIRECTORY fd, or -1 with e set. */
int output_dir_open(const char *path, const char *what, bool *made, struct err *e);
/* Removes the empty directory output_dir_open made at path (dfd, still open), after a write
 * failed: in the directory it was made in (output_dir_fd: the one checked before irt started)
 * and only if that name still is the directory made, never by path, which another user who may
 * rename things on the way could have pointed at an empty directory of root's meanwhile. */
void output_dir_remove(const char *path, int dfd);
/* The program execvp would run for `name` (no '/'): the first executable regular file of that
 * name in a PATH directory, resolved with realpath into path. As root the file must pass
 * trust_stat_ok and its directory trust_open_dir (every ancestor root's, none writable by
 * others unless sticky), as root trusts only its own files: a program of another user's
 * found first is refused (EXIT_USAGE, naming it and why), not skipped, so that root never runs
 * something other than what the same PATH runs for anyone else. 0, or -1 with e set
 * (EXIT_RUNTIME and errno ENOENT when there is none). */
int trust_program(const char *name, char *path, size_t len, struct err *e);
/* As root, PATH without its directories trust_program would refuse a program in, so that what
 * a program root runs looks up in turn (sh running parallel, uname) is root's too; setenv. */
void trust_path_env(void);
/* json_dumps(root, flags), then write_atomic. */
int write_atomic_json(const char *path, const json_t *root, size_t flags, struct err *e);

#endif

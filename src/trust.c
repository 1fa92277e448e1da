#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

bool trust_stat_ok(const struct stat *st, char *why, size_t len)
{
	uid_t me = geteuid();
	const char *w = NULL;
	char owner[64];
	if (st->st_uid != me && st->st_uid != 0) {
		snprintf(owner, sizeof(owner), "owned by uid %u, not by %s", (unsigned)st->st_uid,
			 me == 0 ? "root" : "root or you");
		w = owner;
	} else if ((st->st_mode & S_IWGRP) && (st->st_mode & S_IWOTH)) {
		w = "writable by its group and by others";
	} else if (st->st_mode & S_IWGRP) {
		w = "writable by its group";
	} else if (st->st_mode & S_IWOTH) {
		w = "writable by others";
	}
	if (w && why)
		snprintf(why, len, "%s", w);
	return !w;
}

/* An ancestor may be writable by others only if it is sticky (/tmp): then they cannot rename
 * or remove what they do not own in it. */
static bool ancestor_ok(const struct stat *st, char *why, size_t len)
{
	struct stat s = *st;
	if (s.st_mode & S_ISVTX)
		s.st_mode &= ~(mode_t)(S_IWGRP | S_IWOTH);
	return trust_stat_ok(&s, why, len);
}

#define LINK_REFUSED "a symbolic link (irt never follows a link to its state, its plans or the runs it reads; remove it)"

static int untrusted(struct err *e, unsigned how, const char *what, const char *path, const char *problem)
{
	if (!what)   /* trust_open_dirat for a reader: the problem names the component */
		return err_set(e, EXIT_USAGE, "%s", problem);
	if (how & TRUST_READ_ANY)   /* no owner to blame: a link, not a directory, too long */
		return err_set(e, EXIT_USAGE, "%s %s: %s", what, path, problem);
	return err_set(e, EXIT_USAGE,
		       "%s %s: %s (irt keeps state and reads what it runs only where no other user can "
		       "write; use a directory owned by you or root, mode 0755 or stricter)",
		       what, path, problem);
}

int trust_open_dir(const char *path, const char *what, unsigned how, struct err *e)
{
	return trust_open_dirat(AT_FDCWD, "", path, what, how, e);
}

int trust_open_dirat(int base, const char *shown, const char *path, const char *what, unsigned how, struct err *e)
{
	bool any = how & TRUST_READ_ANY;
	char buf[4096], why[96], sofar[4096];
	struct stat st;
	if (!path[0] || strlen(path) >= sizeof(buf)) {
		untrusted(e, how, what, path, !path[0] ? "empty" : "too long");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	snprintf(sofar, sizeof(sofar), "%s", path[0] == '/' ? "/" : shown[0] ? shown : ".");
	int fd = openat(base, path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *save = NULL;
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		/* '..' too: it is looked up in a directory checked like any other, and the one it
		 * leads to is checked in turn, so a later walk of the path meets the same ones */
		why[0] = 0;
		if (!any && (fstat(fd, &st) || !ancestor_ok(&st, why, sizeof(why)))) {
			int saved = errno;
			close(fd);
			if (why[0] == 0) {
				errno = saved;
				return -1;
			}
			char where[4200];
			snprintf(where, sizeof(where), "%s (in %s)", why, sofar);
			untrusted(e, how, what, path, where);
			return -1;
		}
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && (how & TRUST_CREATE)) {
			if (mkdirat(fd, c, 0755) && errno != EEXIST) {
				int saved = errno;
				close(fd);
				errno = saved;
				return -1;
			}
			next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		int saved = errno;
		if (next < 0 && (saved == ELOOP || saved == ENOTDIR)) {
			bool link = fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
			close(fd);
			char where[4200];
			/* a reader's walk (no what) words it as trust_openat does a file in the same place */
			snprintf(where, sizeof(where), "%s%s%s%s", strcmp(sofar, "/") && strcmp(sofar, ".") ? sofar : "",
				 strcmp(sofar, "/") && strcmp(sofar, ".") ? "/" : "", c,
				 link ? (what ? " is a symbolic link (irt does not follow links here)" : " is " LINK_REFUSED)
				      : what ? " is not a directory" : ": not a directory");
			untrusted(e, how, what, path, where);
			return -1;
		}
		close(fd);
		if (next < 0) {
			errno = saved;
			return -1;
		}
		fd = next;
		size_t n = strlen(sofar);
		snprintf(sofar + n, sizeof(sofar) - n, "%s%s", n && sofar[n - 1] == '/' ? "" : "/", c);
	}
	why[0] = 0;
	if (!any && (fstat(fd, &st) || !trust_stat_ok(&st, why, sizeof(why)))) {
		int saved = errno;
		close(fd);
		if (!why[0]) {
			errno = saved;
			return -1;
		}
		untrusted(e, how, what, path, why);
		return -1;
	}
	return fd;
}

int trust_openat(int dir, const char *name, const char *shown, int flags, unsigned how, struct err *e)
{
	/* O_NONBLOCK: a FIFO planted under the name must not hang irt */
	int fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
	struct stat st;
	char why[96];
	if (fd < 0) {
		int saved = errno;
		if (saved == ELOOP && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			err_set(e, EXIT_USAGE, "%s is " LINK_REFUSED, shown);
			errno = ELOOP;
		}
		return -1;
	}
	const char *problem = NULL;
	if (fstat(fd, &st))
		problem = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		problem = "not a regular file";
	else if (st.st_nlink > 1)
		problem = "a file with more than one hard link";
	else if (!(how & TRUST_READ_ANY) && !trust_stat_ok(&st, why, sizeof(why)))
		problem = why;
	if (problem) {
		close(fd);
		if (how & TRUST_READ_ANY)
			err_set(e, EXIT_USAGE, "%s: %s (irt reads only a regular file with one name here)", shown, problem);
		else
			err_set(e, EXIT_USAGE, "%s: %s (root irt trusts only its own files that no one else can "
				"write; remove it)", shown, problem);
		errno = EPERM;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* ---- the atomic writer ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A name no other user can guess in advance: 64 random bits. */
static void random_suffix(char *buf, size_t len)
{
	uint64_t r = 0;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		static uint64_t counter;
		r = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^ ++counter;
	}
	snprintf(buf, len, "%016llx", (unsigned long long)r);
}

int tmp_create_at(int dfd, const char *base, char *tmp, size_t len, mode_t mode)
{
	char rnd[24];
	int fd = -1;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		random_suffix(rnd, sizeof(rnd));
		/* short enough for NAME_MAX whatever the name's length */
		snprintf(tmp, len, "%.200s.tmp.%s", base, rnd);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

/* How long a FIFO named as an input may wait for its writer to open it. */
#define INPUT_FIFO_WAIT_MS 2000

FILE *input_fopen(const char *path, const char *what, struct err *e)
{
	/* O_NONBLOCK: open() of a FIFO would wait for a writer; a reader without one sees EOF */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	FILE *f = NULL;
	int fl, saved;
	if (fstat(fd, &st))
		goto fail;
	/* /dev/null reads as the empty file it is, as outputs write into it */
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))) {
		err_set(e, EXIT_USAGE, "%s: is %s (expected a %s)", path, S_ISDIR(st.st_mode) ? "a directory" : "a device",
		        what);
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
		goto fail;
	}
	/* a named FIFO's writer may open it just after irt (`irt report p & cat r.json >p`): wait a
	 * little for one, never forever (poll sees neither data nor a hang-up until one came) */
	if (S_ISFIFO(st.st_mode))
		poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, INPUT_FIFO_WAIT_MS);
	/* blocking again: a pipe's writer may be slower than irt */
	if ((fl = fcntl(fd, F_GETFL)) >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 && (f = fdopen(fd, "r")))
		return f;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return NULL;
}

int output_target(int dir, const char *name, const char **why)
{
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;   /* nothing there, or nothing irt may look at: the write will say */
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISCHR(st.st_mode))
		return 1;
	bool link = S_ISLNK(st.st_mode);
	if (link && (fstatat(dir, name, &st, 0) || S_ISREG(st.st_mode)))
		return 0;   /* dangling, or to a file */
	*why = S_ISDIR(st.st_mode) ? "a directory"
	       : link              ? "a symbolic link to a device or a pipe"
	       : S_ISFIFO(st.st_mode) ? "a pipe"
	       : S_ISSOCK(st.st_mode) ? "a socket"
	                              : "a block device";
	return -1;
}

/* The bytes into the character device `name` (output_target said 1), checked again once open */
static int write_device(int dfd, const char *name, const char *path, const void *data, size_t len, struct err *e)
{
	int fd = openat(dfd, name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, EXIT_RUNTIME, "%s: cannot write (%s)", path, strerror(errno));
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode))   /* replaced since output_target looked */
		rc = err_set(e, EXIT_RUNTIME, "%s: cannot write (no longer a device)", path);
	else if (write_all(fd, data, len))
		rc = err_set(e, EXIT_RUNTIME, "%s: cannot write (%s)", path, strerror(errno));
	close(fd);
	return rc;
}

int output_split(const char *path, char *dir, size_t len, const char **base)
{
	const char *b = strrchr(path, '/');
	if (strlen(path) >= len) {
		dir[0] = 0;
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!b) {
		snprintf(dir, len, ".");
		b = path;
	} else {
		snprintf(dir, len, "%.*s", b == path ? 1 : (int)(b - path), path);
		b++;
	}
	*base = b;
	if (!*b || strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
		errno = EISDIR;
		return -1;
	}
	return 0;
}

/* The output directories irt checked before it started (output_dir_fd with pin), open: an
 * output written at the end of an hour's run goes where it was checked, even if another user
 * who may rename things on the way has put a link in its place since. */
static struct {
	char *dir;
	int fd;
} pins[16];
static int npins;

/* open(dir, O_RDONLY | O_DIRECTORY) for root, but a symbolic link on the way is followed only
 * if root owns it: another user's link (in /tmp, in their own directory) would choose the
 * directory root writes into. The kernel's fs.protected_symlinks guards only sticky directories,
 * and may be off. Each step is opened from the last (O_PATH), so nothing can be swapped between
 * the check and the use. -1 with errno; why names a refused link (else it stays empty). */
static int open_dir_root_links(const char *dir, char *why, size_t len)
{
	char walk[8192], name[NAME_MAX + 1], target[4096];
	if (strlen(dir) >= sizeof(walk)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(walk, sizeof(walk), "%s", dir);
	int fd = open(walk[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC), links = 0;
	const char *p = walk;
	while (fd >= 0) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		int next = -1, saved = ENAMETOOLONG;
		struct stat st;
		if (n <= NAME_MAX) {
			memcpy(name, p, n);
			name[n] = 0;
			next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
			saved = errno;
			if (next >= 0 && fstat(next, &st)) {
				saved = errno;
				close(next);
				next = -1;
			}
		}
		p += n;
		if (next < 0) {
			close(fd);
			errno = saved;
			return -1;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t t = readlinkat(next, "", target, sizeof(target) - 1);
			close(next);
			if (st.st_uid != 0) {
				snprintf(why, len, "'%.*s' is a symbolic link of uid %u (root irt follows only root's links "
				         "to an output; give the directory it points to)", (int)(p - walk), walk, (unsigned)st.st_uid);
				close(fd);
				errno = EPERM;
				return -1;
			}
			if (t < 0 || ++links > 40 || (size_t)t + strlen(p) + 1 >= sizeof(walk)) {
				close(fd);
				errno = t < 0 ? errno : links > 40 ? ELOOP : ENAMETOOLONG;
				return -1;
			}
			/* the link's text, then what followed it */
			size_t left = strlen(p) + 1;
			memmove(walk + t + 1, p, left);
			memcpy(walk, target, (size_t)t);
			walk[t] = '/';
			p = walk;
			if (target[0] == '/') {
				close(fd);
				fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			}
			continue;
		}
		close(fd);
		fd = next;
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			errno = ENOTDIR;
			return -1;
		}
	}
	if (fd < 0)
		return -1;
	int rd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), saved = errno;
	close(fd);
	errno = saved;
	return rd;
}

int output_dir_fd(const char *dir, bool pin, char *why, size_t len)
{
	why[0] = 0;
	for (int i = 0; i < npins; i++)
		if (strcmp(pins[i].dir, dir) == 0)
			return fcntl(pins[i].fd, F_DUPFD_CLOEXEC, 0);
	int fd = geteuid() == 0 ? open_dir_root_links(dir, why, len) : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && pin && npins < (int)(sizeof(pins) / sizeof(pins[0]))) {
		int kept = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (kept >= 0) {
			pins[npins].dir = strdup(dir);
			pins[npins].fd = kept;
			if (pins[npins].dir)
				npins++;
			else
				close(kept);
		}
	}
	return fd;
}

/* The directory output directory `path` goes in, open (output_dir_fd), and *base its name in
 * trimmed (4096 bytes): DIR/ names DIR. -1 with errno, why as output_dir_fd says. */
static int output_dir_parent(const char *path, char *trimmed, const char **base, char *why, size_t len)
{
	char dir[4096];
	snprintf(trimmed, 4096, "%s", path);
	for (size_t n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--)
		trimmed[n - 1] = 0;
	why[0] = 0;
	return output_split(trimmed, dir, sizeof(dir), base) ? -1 : output_dir_fd(dir, false, why, len);
}

int output_dir_open(const char *path, const char *what, bool *made, struct err *e)
{
	char trimmed[4096], why[4300];
	const char *base;
	int pfd = output_dir_parent(path, trimmed, &base, why, sizeof(why));
	if (pfd < 0) {
		if (why[0])
			err_set(e, EXIT_USAGE, "%s: cannot create directory '%s': %s", what, path, why);
		else
			err_set(e, EXIT_RUNTIME, "%s: cannot create directory '%s' (%s)", what, path, strerror(errno));
		return -1;
	}
	*made = mkdirat(pfd, base, 0777) == 0;
	int saved = errno;
	int fd = *made || saved == EEXIST ? openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd < 0) {
		struct stat st;
		if (*made || saved == EEXIST)
			saved = errno;
		bool link = fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
		if (link)
			err_set(e, EXIT_USAGE, "%s: '%s' is a symbolic link (irt never follows a link at an output's name; "
			        "remove it or give the directory it points to)", what, path);
		else
			err_set(e, EXIT_RUNTIME, "%s: cannot create directory '%s' (%s)", what, path, strerror(saved));
		if (*made)
			unlinkat(pfd, base, AT_REMOVEDIR);
	}
	close(pfd);
	return fd;
}

void output_dir_remove(const char *path, int dfd)
{
	char trimmed[4096], why[4300];
	const char *base;
	int saved = errno, pfd = output_dir_parent(path, trimmed, &base, why, sizeof(why));
	struct stat made, now;
	/* in the directory it was made in, and only while that name is still the directory made */
	if (pfd >= 0 && fstat(dfd, &made) == 0 && fstatat(pfd, base, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(now.st_mode) && now.st_dev == made.st_dev && now.st_ino == made.st_ino)
		unlinkat(pfd, base, AT_REMOVEDIR);
	if (pfd >= 0)
		close(pfd);
	errno = saved;
}

int write_atomic(const char *path, const void *data, size_t len, struct err *e)
{
	if (strcmp(path, "-") == 0) {
		/* a failed write leaves stdout's error set: main's stdout_status says it, once */
		fwrite(data, 1, len, stdout);
		fflush(stdout);
		return 0;
	}
	char dir[4096];
	const char *base;
	char why[4300] = "";
	int dfd = output_split(path, dir, sizeof(dir), &base) ? -1 : output_dir_fd(dir, false, why, sizeof(why));
	if (dfd < 0)
		return why[0] ? err_set(e, EXIT_USAGE, "%s: cannot write: %s", path, why)
		              : err_set(e, EXIT_RUNTIME, "%s: cannot write (%s)", path, strerror(errno));
	int rc = write_atomic_at(dfd, base, path, data, len, e);
	close(dfd);
	return rc;
}

int write_atomic_at(int dfd, const char *base, const char *path, const void *data, size_t len, struct err *e)
{
	const char *why = "";
	int target = output_target(dfd, base, &why);
	if (target)
		return target > 0 ? write_device(dfd, base, path, data, len, e)
		                  : err_set(e, EXIT_USAGE, "%s: cannot write: it is %s (expected a file name, '-' for standard output, or /dev/null)",
		                            path, why);
	char tmp[300];
	int fd = tmp_create_at(dfd, base, tmp, sizeof(tmp), 0666);
	if (fd < 0)
		return err_set(e, EXIT_RUNTIME, "%s: cannot write (%s)", path, strerror(errno));
	const char *what = "cannot write";
	int bad = write_all(fd, data, len);
	if (!bad && (bad = fsync(fd)))
		what = "cannot sync to disk";
	int saved = errno;
	if (close(fd) && !bad) {
		bad = -1;
		what = "cannot close";
		saved = errno;
	}
	if (!bad && renameat(dfd, tmp, dfd, base)) {
		bad = -1;
		what = "cannot rename the temporary file to it";
		saved = errno;
	}
	if (bad) {
		unlinkat(dfd, tmp, 0);
		return err_set(e, EXIT_RUNTIME, "%s: %s (%s)", path, what, strerror(saved));
	}
	fsync(dfd);
	return 0;
}

int write_atomic_json(const char *path, const json_t *root, size_t flags, struct err *e)
{
	char *text = json_dumps(root, flags);
	if (!text)
		return err_set(e, EXIT_RUNTIME, "%s: cannot encode JSON (out of memory?)", path);
	size_t len = strlen(text);
	/* the same bytes json_dump_file wrote (no newline at the end) */
	int rc = write_atomic(path, text, len, e);
	free(text);
	return rc;
}

/* Is real (a realpath) a file root may run (file) or a directory it may run programs from:
 * root's, and every directory above it? 0, or -1 with why filled. */
static int program_ok(const char *real, bool file, char *why, size_t len)
{
	char dir[PATH_MAX];
	const char *base = NULL;
	struct err e = {0};
	if (!file)
		snprintf(dir, sizeof(dir), "%s", real);
	else if (output_split(real, dir, sizeof(dir), &base))
		return snprintf(why, len, "%s", strerror(errno)), -1;
	int dfd = trust_open_dir(dir, NULL, 0, &e);
	if (dfd < 0)
		return snprintf(why, len, "directory %.200s: %.300s", dir, e.code ? e.msg : strerror(errno)), -1;
	struct stat st;
	int rc = base ? fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) : 0;
	if (rc)
		snprintf(why, len, "%s", strerror(errno));
	else if (base && !trust_stat_ok(&st, why, len))
		rc = -1;
	close(dfd);
	return rc;
}

/* The next entry of PATH list *p into dir (len bytes; "" for an empty entry, the current
 * directory), advancing *p: its length (dir is "" when it does not fit), or -1 at the end. */
static ssize_t path_next(const char **p, char *dir, size_t len)
{
	if (!*p)
		return -1;
	size_t n = strcspn(*p, ":");
	snprintf(dir, len, "%.*s", n < len ? (int)n : 0, *p);
	*p = (*p)[n] ? *p + n + 1 : NULL;
	return (ssize_t)n;
}

int trust_program(const char *name, char *path, size_t len, struct err *e)
{
	const char *p = getenv("PATH");
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";   /* execvp's default (confstr _CS_PATH and more) */
	char dir[PATH_MAX], cand[PATH_MAX], real[PATH_MAX], why[600];
	for (ssize_t n; (n = path_next(&p, dir, sizeof(dir))) >= 0;) {
		struct stat st;
		/* an empty entry is the current directory, as for execvp */
		if ((size_t)n < sizeof(dir) &&
		    snprintf(cand, sizeof(cand), "%s/%s", n ? dir : ".", name) < (int)sizeof(cand) &&
		    stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0 && realpath(cand, real)) {
			if (geteuid() == 0 && program_ok(real, true, why, sizeof(why))) {
				char *shown = err_escape_dup(real), *because = err_escape_dup(why);   /* any names */
				err_set(e, EXIT_USAGE,
					"%s: %s (found through PATH) is not root's to run: %s (as root irt runs only "
					"programs no other user can change; fix PATH or the owner)",
					name, shown, because);
				free(shown);
				free(because);
				return -1;
			}
			if (strlen(real) >= len)
				return errno = ENAMETOOLONG, err_set(e, EXIT_RUNTIME, "%s: %s", name, strerror(errno));
			memcpy(path, real, strlen(real) + 1);
			return 0;
		}
	}
	errno = ENOENT;
	return err_set(e, EXIT_RUNTIME, "%s: not found in PATH", name);
}

void trust_path_env(void)
{
	const char *p = getenv("PATH");
	if (geteuid() != 0 || !p)
		return;
	char *keep = xcalloc(strlen(p) + 1, 1), dir[PATH_MAX], real[PATH_MAX], why[600];
	size_t k = 0;
	for (ssize_t n; (n = path_next(&p, dir, sizeof(dir))) >= 0;)
		/* "" (the current directory) is dropped too */
		if (n && (size_t)n < sizeof(dir) && realpath(dir, real) && program_ok(real, false, why, sizeof(why)) == 0)
			k += (size_t)sprintf(keep + k, "%s%s", k ? ":" : "", dir);
	setenv("PATH", keep, 1);
	free(keep);
}

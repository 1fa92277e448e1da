#include "linux/sysfile.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust.h"
#include "util.h"

/* Every directory of the fake tree must be one no one else can write, as its root is: irt
 * reads and writes the tree's files by path, so a directory of another user's inside it would
 * let them put a link to a file of root's where a tunable is expected. Links are not followed
 * (the tree's owner made them); a tree of over 100000 entries is no fake tree. */
static char tree_bad[4300];
static long tree_entries;

static int tree_dir_ok(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	char why[96];
	if (type == FTW_D && !trust_stat_ok(st, why, sizeof(why))) {
		snprintf(tree_bad, sizeof(tree_bad), "its directory %s is %s", path, why);
		return 1;
	}
	if (++tree_entries > 100000) {
		snprintf(tree_bad, sizeof(tree_bad), "more than 100000 entries in it (a fake tree is small)");
		return 1;
	}
	return 0;
}

int sys_root_check(struct err *e)
{
	const char *r = sysroot();
	if (!*r || geteuid() != 0)
		return 0;
	int fd = trust_open_dir(r, "IRT_SYSROOT", 0, e);
	if (fd < 0)
		return e && e->code ? -1
				    : err_set(e, EXIT_USAGE, "IRT_SYSROOT %s: %s (it names a fake system tree for "
					      "tests; unset it)", r, strerror(errno));
	close(fd);
	tree_entries = 0;
	if (nftw(r, tree_dir_ok, 16, FTW_PHYS) == 1)
		return err_set(e, EXIT_USAGE, "IRT_SYSROOT %s: %s (irt keeps state and reads what it runs only where no "
		               "other user can write; use a tree of yours or root's, directories mode 0755 or stricter)",
		               r, tree_bad);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "irt: warning: IRT_SYSROOT=%s: root irt reads and writes this fake system "
			"tree, not the kernel's files (unset IRT_SYSROOT to work on this machine)\n", r);
	return 0;
}

bool sys_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static bool under(const char *path, const char *prefix)
{
	const char *root = sysroot();
	size_t rl = strlen(root);
	if (strncmp(path, root, rl) == 0)
		path += rl;
	return strncmp(path, prefix, strlen(prefix)) == 0;
}

const char *sys_errno_hint(int errnum, const char *path)
{
	bool root = geteuid() == 0;
	switch (errnum) {
	case EACCES:
	case EPERM:
		if (path && under(path, "/sys/kernel/debug"))
			return root ? "debugfs refuses even root here: the kernel is locked down"
				    : "needs root (debugfs is root-only)";
		if (path && under(path, "/proc/sys"))
			return root ? "refused by the kernel even for root (read-only /proc/sys in a container?)"
				    : "needs root (or CAP_SYS_ADMIN)";
		if (path && under(path, "/sys/fs/cgroup"))
			return root ? "refused by the kernel even for root (delegated or read-only cgroup tree?)"
				    : "needs root (or write access to the cgroup directory)";
		return root ? "refused even for root" : "needs root (or CAP_SYS_ADMIN/CAP_SYS_NICE)";
	case ENOENT:
		return "not present on this kernel";
	case EINVAL:
	case ERANGE:
		return "the kernel rejected the value";
	case EBUSY:
		return "in use";
	case EROFS:
		return "mounted read-only";
	default:
		return "unexpected error";
	}
}

int sys_read(const char *path, char *buf, size_t len, int *errnum, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;
	if (fd >= 0) {
		size_t got = 0;
		while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
			got += (size_t)n;
		if (n >= 0)
			n = (ssize_t)got;
		int saved = errno;
		close(fd);
		errno = saved;
	}
	if (n < 0) {
		int saved = errno;
		if (errnum)
			*errnum = saved;
		buf[0] = 0;
		return err_set(e, EXIT_RUNTIME, "cannot read %s: %s (%s)", path, strerror(saved),
			       sys_errno_hint(saved, path));
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = 0;
	if (errnum)
		*errnum = 0;
	return 0;
}

int sys_write(const char *path, const char *value, int *errnum, struct err *e)
{
	/* O_TRUNC matters only for the fake tree's regular files; kernel files ignore it, as
	 * they do for a shell's `>`. No O_CREAT: a missing kernel file is an error. */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(value);
	int rc = -1;
	if (fd >= 0) {
		ssize_t n = write(fd, value, len);
		rc = n == (ssize_t)len ? 0 : -1;
		if (n >= 0 && rc)
			errno = EIO;
		int saved = errno;
		if (close(fd) && rc == 0)
			rc = -1;
		else
			errno = saved;
	}
	if (rc) {
		int saved = errno;
		if (errnum)
			*errnum = saved;
		return err_set(e, EXIT_RUNTIME, "cannot write '%s' to %s: %s (%s)", value, path,
			       strerror(saved), sys_errno_hint(saved, path));
	}
	if (errnum)
		*errnum = 0;
	return 0;
}

int sys_read_int(const char *path, int64_t *v, int *errnum, struct err *e)
{
	char buf[64], *end;
	if (sys_read(path, buf, sizeof(buf), errnum, e))
		return -1;
	errno = 0;
	long long x = strtoll(buf, &end, 10);
	if (errno || end == buf || *end) {
		if (errnum)
			*errnum = EINVAL;
		return err_set(e, EXIT_RUNTIME, "%s: '%s' is not an integer (unexpected kernel file format)",
			       path, buf);
	}
	*v = x;
	return 0;
}

int64_t sys_mem_available(void)
{
	char path[512], line[128];
	long long kb = -1;
	if (sysroot_path(path, sizeof(path), "/proc/meminfo"))
		return -1;
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : (int64_t)kb * 1024;
}

bool sys_self_status(const char *field, char *val, size_t len)
{
	return sys_task_status(0, field, val, len);
}

bool sys_task_status(int tid, const char *field, char *val, size_t len)
{
	char line[256], path[64];
	size_t n = strlen(field);
	bool found = false;
	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/status", tid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			const char *v = line + n + 1 + strspn(line + n + 1, " \t");
			snprintf(val, len, "%.*s", (int)strcspn(v, "\n"), v);
			found = true;
		}
	fclose(f);
	return found;
}

bool sys_has_cap(int bit)
{
	char caps[64];
	if (!sys_self_status("CapEff", caps, sizeof(caps)))
		return geteuid() == 0;
	return (strtoull(caps, NULL, 16) >> bit) & 1;
}

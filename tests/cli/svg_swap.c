/* LD_PRELOAD library for test_faults.sh: the first rename of a chart (NAME.svg) into place
 * fails with ENOSPC, a disk full just then; before it fails, directory $IRT_SWAP_DIR is renamed
 * to $IRT_SWAP_DIR.old and a symbolic link to $IRT_SWAP_TO takes its place, as another user who
 * may rename things in its parent could do while root's irt report --svg runs. Deterministic:
 * the swap happens exactly between making the chart directory and cleaning it up. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	static int done;
	const char *dir = getenv("IRT_SWAP_DIR"), *to = getenv("IRT_SWAP_TO");
	size_t n = strlen(newpath);
	if (dir && to && !done && n > 4 && strcmp(newpath + n - 4, ".svg") == 0) {
		char old[4096];
		done = 1;
		snprintf(old, sizeof(old), "%s.old", dir);
		if (rename(dir, old) || symlink(to, dir))
			perror("svg_swap");
		errno = ENOSPC;
		return -1;
	}
	int (*real)(int, const char *, int, const char *) =
		(int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
	return real(olddirfd, oldpath, newdirfd, newpath);
}

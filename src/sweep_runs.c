/* A sweep's runs and their comparison (sweep_runs.h). */
#include "sweep_runs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust.h"
#include "util.h"

void sweep_runs_grow(struct sweep_runs *rs)
{
	if (rs->n < rs->cap)
		return;
	size_t cap = array_next_cap((size_t)rs->cap, (size_t)rs->n + 1);
	rs->runs = xreallocarray(rs->runs, cap, sizeof(*rs->runs));
	rs->paths = xreallocarray(rs->paths, cap, sizeof(*rs->paths));
	rs->cell_of = xreallocarray(rs->cell_of, cap, sizeof(*rs->cell_of));
	rs->rep_of = xreallocarray(rs->rep_of, cap, sizeof(*rs->rep_of));
	memset(&rs->runs[rs->n], 0, sizeof(*rs->runs) * (cap - (size_t)rs->n));
	rs->cap = (int)cap;
}

void sweep_runs_free(struct sweep_runs *rs)
{
	for (int i = 0; i < rs->n; i++) {
		result_free(&rs->runs[i]);
		free(rs->paths[i]);
	}
	free(rs->runs);
	free(rs->paths);
	free(rs->cell_of);
	free(rs->rep_of);
	memset(rs, 0, sizeof(*rs));
}

/* fd of a file opened by trust_openat, read by `read` as a stream named shown. */
static int read_fd(int fd, const char *shown, void *into,
                   int (*read)(void *into, FILE *f, const char *path, struct err *e), struct err *e)
{
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return err_set(e, EXIT_RUNTIME, "%s: cannot read (%s)", shown, strerror(errno));
	}
	int rc = read(into, f, shown, e);
	fclose(f);
	return rc;
}

static int read_summary(void *into, FILE *f, const char *path, struct err *e)
{
	return sweep_summary_read_stream(into, f, path, e);
}

static int read_result(void *into, FILE *f, const char *path, struct err *e)
{
	return result_read_stream(into, f, path, e);
}

/* DIR/CELL/FILE of a summary's repetition "CELL/FILE" (as irt sweep writes them: c0/r1.json),
 * each part opened without following a link and trusted as --resume trusts a cell. */
static int open_rep(int dfd, const char *rel, const char *shown, struct err *e)
{
	const char *slash = strchr(rel, '/');
	char cell[256];
	if (!slash || strchr(slash + 1, '/') || slash == rel || (size_t)(slash - rel) >= sizeof(cell) || !slash[1] ||
	    !strncmp(rel, "..", 2) || !strcmp(slash + 1, ".."))
		return err_set(e, EXIT_USAGE, "'%s' is not a file of the sweep directory (expected CELL/FILE, e.g. c0/r0.json)", rel);
	snprintf(cell, sizeof(cell), "%.*s", (int)(slash - rel), rel);
	int cfd = openat(dfd, cell, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char why[96] = "";
	if (cfd < 0 || fstat(cfd, &st) || !trust_stat_ok(&st, why, sizeof(why))) {
		int saved = errno;
		if (cfd >= 0)
			close(cfd);
		int len = (int)(strlen(shown) - strlen(slash));
		if (why[0])
			return err_set(e, EXIT_USAGE, "%.*s: %s (root irt trusts only its own files that no one else can write)",
			               len, shown, why);
		if (saved == ELOOP || saved == ENOTDIR)
			return err_set(e, EXIT_USAGE, "%.*s: a symbolic link or not a directory (irt does not follow links here)",
			               len, shown);
		return err_set(e, EXIT_USAGE, "%.*s: cannot open (%s)", len, shown, strerror(saved));
	}
	int fd = trust_openat(cfd, slash + 1, shown, O_RDONLY, e);
	int saved = errno;
	close(cfd);
	if (fd < 0 && !e->code)
		err_set(e, EXIT_USAGE, "%s: cannot open (%s)", shown, strerror(saved));
	return fd;
}

int sweep_runs_read_dir(struct sweep_runs *rs, const char *dir, struct sweep_summary *sum, struct err *e)
{
	memset(rs, 0, sizeof(*rs));
	memset(sum, 0, sizeof(*sum));
	char shown[4200];
	int dfd = trust_open_dir(dir, "irt compare", false, e);
	if (dfd < 0)
		return e->code ? -1 : err_set(e, EXIT_USAGE, "%s: cannot open (%s)", dir, strerror(errno));
	snprintf(shown, sizeof(shown), "%s/sweep.json", dir);
	int fd = trust_openat(dfd, "sweep.json", shown, O_RDONLY, e);
	if (fd < 0) {
		close(dfd);
		return e->code ? -1 : err_set(e, EXIT_USAGE, "%s: not a sweep directory (no sweep.json in it; expected result "
		                              "files, a sweep's directory or a fleet's directory of machines)", dir);
	}
	if (read_fd(fd, shown, sum, read_summary, e)) {
		close(dfd);
		return -1;
	}
	for (int c = 0; c < sum->ncells; c++)
		for (int k = 0; k < sum->cells[c].reps.n; k++) {
			const char *rel = sum->cells[c].reps.v[k];
			snprintf(shown, sizeof(shown), "%s/%s", dir, rel);
			int n, cell = c, rep = k;
			sweep_runs_grow(rs);
			fd = open_rep(dfd, rel, shown, e);
			if (fd < 0 || read_fd(fd, shown, &rs->runs[rs->n], read_result, e)) {
				err_prefix(e, "%s: $.cells[%d].repetitions[%d]", sum->path, c, k);
				close(dfd);
				return -1;
			}
			/* the sweep's numbers of the cell and the run (c3/r1.json), else their places */
			if (sscanf(sum->cells[c].id, "c%d%n", &cell, &n) != 1 || sum->cells[c].id[n])
				cell = c;
			if (sscanf(rel, "c%*d/r%d.json%n", &rep, &n) != 1 || rel[n])
				rep = k;
			rs->cell_of[rs->n] = cell;
			rs->rep_of[rs->n] = rep;
			rs->paths[rs->n++] = xstrdup(shown);
		}
	close(dfd);
	if (rs->n == 0)
		return err_set(e, EXIT_USAGE, "%s: no runs in it (its cells list no repetitions)", sum->path);
	return 0;
}

int sweep_runs_compare(const struct sweep_runs *rs, const struct report_cfg *cfg, uint64_t seed,
                       struct expect_set *gate, struct compare *c, struct err *e)
{
	if (compare_results(rs->runs, (const char *const *)rs->paths, rs->n, cfg, seed, c, e))
		return -1;
	/* --expect names cells as the sweep does (c0, c1 ...), or as compare does */
	char (*alias)[16] = xcalloc((size_t)c->ncells + 1, sizeof(*alias));
	const char **aliasp = xcalloc((size_t)c->ncells + 1, sizeof(*aliasp));
	for (int k = 0; k < c->ncells; k++) {
		snprintf(alias[k], sizeof(alias[k]), "c%d", c->cells[k].nruns ? rs->cell_of[c->cells[k].runs[0]] : k);
		aliasp[k] = alias[k];
	}
	for (int i = 0; gate && i < gate->n; i++)
		compare_expect(&gate->v[i], c, aliasp, &gate->out[i]);
	free(alias);
	free(aliasp);
	return 0;
}

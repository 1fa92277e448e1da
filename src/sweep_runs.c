/* A sweep's runs and their comparison (sweep_runs.h). */
#include "sweep_runs.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
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

/* "dir/rel" for messages ("rel" when dir is ""). */
static void join(char *buf, size_t len, const char *dir, const char *rel)
{
	size_t n = strlen(dir);
	snprintf(buf, len, "%s%s%s", dir, n && dir[n - 1] != '/' ? "/" : "", rel);
}

int sweep_dir_open(const char *dir, const char *what, struct err *e)
{
	int dfd = trust_open_dir(dir, what, TRUST_READ_ANY, e);
	if (dfd < 0 && !e->code)
		err_set(e, EXIT_USAGE, "%s: cannot open (%s)", dir, strerror(errno));
	return dfd;
}

/* Is rel a name inside the directory: relative, without a '..' component? */
static bool inside(const char *rel)
{
	if (!rel[0] || rel[0] == '/')
		return false;
	for (const char *p = rel; p; p = strchr(p, '/'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return false;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sweep_dir_list(int dfd, struct strlist *names)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		errno = saved;
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strlist_add(names, de->d_name);
	closedir(d);
	if (names->n)
		qsort(names->v, (size_t)names->n, sizeof(*names->v), cmp_str);
	return 0;
}

FILE *sweep_dir_fopen(int dfd, const char *rel, const char *shown, struct err *e)
{
	char dir[4096], base[4096];
	if (!inside(rel) || strlen(rel) >= sizeof(dir)) {
		err_set(e, EXIT_USAGE, "'%s' is not a file of the directory (expected a name inside it, e.g. c0/r0.json)", rel);
		return NULL;
	}
	const char *p = strrchr(rel, '/');
	bool walk = p != NULL;
	int fd;
	if (walk) {   /* the directories on the way, no link followed (trust.h); messages name them as shown does */
		size_t n = strlen(shown), r = strlen(rel);
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - rel), rel);
		snprintf(base, sizeof(base), "%.*s", n >= r ? (int)(n - r) : 0, shown);
		if (base[0] && base[strlen(base) - 1] == '/' && strlen(base) > 1)
			base[strlen(base) - 1] = 0;
		fd = trust_open_dirat(dfd, base, dir, NULL, TRUST_READ_ANY, e);
		p++;
	} else {
		fd = dup(dfd);
		p = rel;
	}
	if (fd < 0) {
		if (!e->code)   /* the file the summary names, missing with its directory */
			err_set(e, walk ? EXIT_USAGE : EXIT_RUNTIME, "%s: cannot open (%s)", shown, strerror(errno));
		return NULL;
	}
	int ffd = trust_openat(fd, p, shown, O_RDONLY, TRUST_READ_ANY, e);
	int saved = errno;
	close(fd);
	if (ffd < 0) {
		if (!e->code)
			err_set(e, EXIT_USAGE, "%s: cannot open (%s)", shown, strerror(saved));
		return NULL;
	}
	FILE *f = fdopen(ffd, "r");
	if (!f) {
		close(ffd);
		err_set(e, EXIT_RUNTIME, "%s: cannot read (%s)", shown, strerror(errno));
	}
	return f;
}

int sweep_dir_read_result(struct result *r, int dfd, const char *rel, const char *shown, struct err *e)
{
	FILE *f = sweep_dir_fopen(dfd, rel, shown, e);
	int rc = !f || result_read_stream(r, f, shown, e);
	if (f)
		fclose(f);
	return rc ? -1 : 0;
}

int sweep_runs_read_at(struct sweep_runs *rs, int dfd, const char *dir, struct sweep_summary *sum, struct err *e)
{
	memset(rs, 0, sizeof(*rs));
	memset(sum, 0, sizeof(*sum));
	char shown[4200];
	struct stat st;
	if (fstatat(dfd, "sweep.json", &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
		return 1;
	join(shown, sizeof(shown), dir, "sweep.json");
	FILE *f = sweep_dir_fopen(dfd, "sweep.json", shown, e);
	if (!f || sweep_summary_read_stream(sum, f, shown, e)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	for (int c = 0; c < sum->ncells; c++)
		for (int k = 0; k < sum->cells[c].reps.n; k++) {
			const char *rel = sum->cells[c].reps.v[k];
			join(shown, sizeof(shown), dir, rel);
			int n, cell = c, rep = k;
			sweep_runs_grow(rs);
			if (sweep_dir_read_result(&rs->runs[rs->n], dfd, rel, shown, e)) {
				err_prefix(e, "%s: $.cells[%d].repetitions[%d]", sum->path, c, k);
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
	return 0;
}

int sweep_runs_read_dir(struct sweep_runs *rs, int dfd, const char *dir, struct sweep_summary *sum, struct err *e)
{
	int rc = sweep_runs_read_at(rs, dfd, dir, sum, e);
	if (rc > 0)
		return err_set(e, EXIT_USAGE, "%s: not a sweep directory (no sweep.json in it; expected result "
		               "files, a sweep's directory or a fleet's directory of machines)", dir);
	if (rc == 0 && rs->n == 0)
		return err_set(e, EXIT_USAGE, "%s: no runs in it (its cells list no repetitions)", sum->path);
	return rc;
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

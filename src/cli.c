#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out/html.h"
#include "out/openmetrics.h"
#include "out/text.h"
#include "trust.h"
#include "util.h"

int cli_explain(const struct opt_args *a, struct explain_cfg *x, struct err *e)
{
	for (int i = 0; i < a->n; i++)
		if ((a->items[i].opt->scope & SCOPE_EXPLAIN) && opt_set(a->items[i].opt, x, a->items[i].value, a->items[i].where, e))
			return -1;
	return 0;
}

int cli_globals(const struct opt_args *a, struct global_cfg *g, struct err *e)
{
	const struct opt_item *hist = NULL;
	memset(g, 0, sizeof(*g));
	opt_defaults(SCOPE_GLOBAL, g);
	for (int i = 0; i < a->n; i++) {
		const struct opt_item *it = &a->items[i];
		if (!(it->opt->scope & SCOPE_GLOBAL))
			continue;
		/* an empty name would read as "not given": nothing written, silently */
		if (it->opt->offset == offsetof(struct global_cfg, json) || it->opt->offset == offsetof(struct global_cfg, csv))
			if (it->value && !it->value[0])
				return err_set(e, EXIT_USAGE, "%s: empty file name (expected a file name, '-' for standard output, "
				               "or /dev/null)", it->where);
		if (opt_set(it->opt, g, it->value, it->where, e))
			return -1;
		if (it->opt->offset == offsetof(struct global_cfg, hist_buckets) ||
		    it->opt->offset == offsetof(struct global_cfg, hist_sum))
			hist = it;
	}
	/* they shape only the cyclictest histogram: elsewhere they would be dropped without a word */
	if (hist && g->format != FORMAT_CYCLICTEST)
		return err_set(e, EXIT_USAGE, "%s: only with --format cyclictest (it shapes that histogram), not --format %s",
		               hist->where, opt_format_name(g->format));
	return 0;
}

int cli_no_extra_args(const struct opt_args *a, int allowed, const char *cmd, struct err *e)
{
	if (a->npos > allowed)
		return err_set(e, EXIT_USAGE, "%s: unexpected argument '%s' (see irt help %s)", cmd, a->pos[allowed], cmd);
	return 0;
}

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("-_./=:,%+@", *s)))
			return true;
	return false;
}

char *cli_cmdline(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) * 4 + 3;
	char *out = xmalloc(len), *p = out;
	for (int i = 0; i < argc; i++) {
		if (i)
			*p++ = ' ';
		if (!needs_quotes(argv[i])) {
			p = stpcpy(p, argv[i]);
			continue;
		}
		*p++ = '\'';
		for (const char *s = argv[i]; *s; s++) {
			if (*s == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = 0;
	return out;
}

int cli_output(const struct result *r, const struct global_cfg *g, struct err *e)
{
	int rc = 0;
	const struct result *one[1] = {r};
	struct report_in in = {.rs = one, .n = 1};
	switch (g->format) {
	case FORMAT_TABLE:
		out_summary(stdout, r);
		out_run_sections(stdout, r);
		break;
	case FORMAT_SEED: out_seed(stdout, r); break;
	case FORMAT_CYCLICTEST: out_cyclictest(stdout, r, (int)g->hist_buckets, g->hist_sum); break;
	case FORMAT_NONE: break;
	case FORMAT_TEXT: rc = report_text(stdout, &in, e); break;
	case FORMAT_HTML: rc = report_html(&in, "-", e); break;
	case FORMAT_OPENMETRICS: openmetrics_render(stdout, r); break;
	}
	fflush(stdout);
	/* these formats have no place for --explain's findings: say where they are, not drop them */
	bool shown = g->format != FORMAT_SEED && g->format != FORMAT_NONE && g->format != FORMAT_OPENMETRICS;
	if (r->explain.present && !shown && !g->json[0])
		fprintf(stderr, "irt: note: --explain: --format %s does not show its findings and no --json saves them "
		        "(--format table, text or cyclictest shows them)\n", opt_format_name(g->format));
	if (g->json[0] && result_write(r, g->json, rc ? NULL : e))
		rc = -1;
	if (g->csv[0] && out_csv(r, g->csv, rc ? NULL : e))
		rc = -1;
	return rc;
}

int cli_check_dir(const char *opt, const char *dir, struct err *e)
{
	struct stat st;   /* a file where the directory should be: access() would say EACCES to root */
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return err_set(e, EXIT_USAGE, "%s: cannot write into directory '%s': %s (choose a writable place)", opt, dir,
		               strerror(ENOTDIR));
	if (access(dir, W_OK | X_OK))
		return err_set(e, EXIT_USAGE, "%s: cannot write into directory '%s': %s (choose a writable place)", opt, dir,
		               strerror(errno));
	/* access() grants root everything, but a read-only or special file system still refuses:
	 * create (and remove) a file to be sure, before anything is measured */
	char test[300], why[4300];
	int dfd = output_dir_fd(dir, true, why, sizeof(why));   /* the outputs go into this one, whatever its name leads to later */
	int fd = dfd < 0 ? -1 : tmp_create_at(dfd, ".irt-write-test", test, sizeof(test), 0600);
	if (fd < 0) {
		int saved = errno;
		if (dfd >= 0)
			close(dfd);
		if (why[0])
			return err_set(e, EXIT_USAGE, "%s: cannot write into directory '%s': %s", opt, dir, why);
		return err_set(e, EXIT_USAGE, "%s: cannot write into directory '%s': %s (choose a writable place)", opt, dir,
		               strerror(saved));
	}
	close(fd);
	unlinkat(dfd, test, 0);   /* by the directory it was made in, whatever its name leads to now */
	close(dfd);
	return 0;
}

int cli_check_output(const char *opt, const char *path, struct err *e)
{
	if (!path[0] || strcmp(path, "-") == 0)
		return 0;
	const char *why = "";
	int target = output_target(AT_FDCWD, path, &why);
	if (target < 0)
		return err_set(e, EXIT_USAGE, "%s: '%s' is %s (expected a file name, '-' for standard output, or /dev/null)", opt,
		               path, why);
	return target > 0 ? 0 : cli_check_parent(opt, path, e);   /* a device: nothing is made beside it */
}

int cli_check_report_output(const char *cmd, const char *opt, const char *path, struct err *e)
{
	size_t n = strlen(path);
	if (n >= 5 && strcasecmp(path + n - 5, ".json") == 0) {
		char *shown = err_escape_dup(path);
		err_set(e, EXIT_USAGE, "-o/--json: '%s': irt %s writes its HTML report there, not JSON (name it .html; irt "
		        "probe, run and compare write JSON with --json FILE)", shown, cmd);
		free(shown);
		return -1;
	}
	return cli_check_output(opt, path, e);
}

int cli_check_parent(const char *opt, const char *path, struct err *e)
{
	char dir[4096];
	const char *base;
	output_split(path, dir, sizeof(dir), &base);   /* dir is set whatever the name (DIR/ for --svg) */
	return cli_check_dir(opt, dir, e);
}

/* path as its directory's real path and its own name: outputs replace that name (never follow
 * it), so two outputs collide exactly when these are equal ("x.out" and "./x.out") */
static void output_name(const char *path, char *buf, size_t len)
{
	char dir[4096], real[4096];
	const char *slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	snprintf(buf, len, "%s/%s", realpath(dir, real) ? real : dir, slash ? slash + 1 : path);
}

static bool same_file(const char *a, const char *b)
{
	char na[8300], nb[8300];
	if (!a[0] || !b[0] || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return false;
	output_name(a, na, sizeof(na));
	output_name(b, nb, sizeof(nb));
	return strcmp(na, nb) == 0;
}

int cli_check_outputs(const struct global_cfg *g, struct err *e)
{
	if (cli_check_output("--json", g->json, e) || cli_check_output("--csv", g->csv, e))
		return -1;
	if (same_file(g->json, g->csv) && output_target(AT_FDCWD, g->json, &(const char *){""}) == 0)
		return err_set(e, EXIT_USAGE, "--csv: '%s' is also the --json file (each output needs a file of its own)", g->csv);
	/* one stream, one format: the table before the JSON would make it unreadable to jq or irt report - */
	bool json_out = strcmp(g->json, "-") == 0, csv_out = strcmp(g->csv, "-") == 0;
	if (json_out && csv_out)
		return err_set(e, EXIT_USAGE, "--csv -: standard output is the --json file already (each output needs a "
		               "place of its own)");
	if ((json_out || csv_out) && g->format != FORMAT_NONE)
		return err_set(e, EXIT_USAGE, "%s -: standard output carries --format %s already (add -f none to write only "
		               "the %s there)", json_out ? "--json" : "--csv", opt_format_name(g->format),
		               json_out ? "JSON" : "CSV");
	return 0;
}

bool cli_live_status(const struct global_cfg *g)
{
	return !g->quiet && isatty(STDERR_FILENO);
}

void cli_status_line(const char *text)
{
	struct winsize ws;
	int cols = 80;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
		cols = ws.ws_col;
	if (text)
		fprintf(stderr, "\r\033[K%.*s", cols - 1, text);
	else
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

void cli_interrupted(const char *done, const char *planned, bool saved)
{
	fflush(stdout);
	fprintf(stderr, "irt: interrupted after %s of %s: the results so far are printed%s\n", done, planned,
	        saved ? " and saved" : " (no --json or --csv: not saved)");
}

bool cli_saves(const struct global_cfg *g)
{
	return g->json[0] || g->csv[0];
}

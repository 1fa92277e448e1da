#include "jobfile.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "textline.h"
#include "trust.h"
#include "util.h"

enum section { SEC_NONE, SEC_GLOBAL, SEC_PROBE, SEC_LOAD, SEC_SWEEP };

struct parse_state {
	const char *path;
	const struct command_info *cmd;   /* whose options the keys are (NULL: any command's) */
	unsigned scopes;
	struct job *job;
	struct err *e;
	FILE *f;
	int line;              /* line of the last line read: inih calls the handler after reading it */
	int sections;          /* section headers seen */
	enum section sec;
	char secname[128];     /* the current section header */
	int sec_first;         /* the current section's first item in job->args */
	int segment;
	/* scratch config structs: values are validated on their line */
	struct global_cfg g;
	struct probe_cfg p;
};

static int begin_section(struct parse_state *st, const char *section, const char *where);

/* inih reads through this, so we know every line's number, and we see section headers
 * ourselves: inih reports a section only with its first key, and [probe x] may have none.
 * Lines are whole or refused (textline.h): a line longer than inih's buffer would otherwise
 * come back in pieces, its tail parsed as a line of its own. */
static char *reader(char *buf, int size, void *stream)
{
	struct parse_state *st = stream;
	char why[96];
	int got = textline_read(st->f, buf, size, why, sizeof(why));
	if (got == 0)
		return NULL;
	st->line++;
	if (got < 0) {
		err_set(st->e, EXIT_USAGE, "%s:%d: %s (a job file is UTF-8 text: [section], key = value, ; comments)",
		        st->path, st->line, why);
		return NULL;   /* stops inih; the error is in st->e */
	}
	char section[128], where[300];
	snprintf(where, sizeof(where), "%s:%d", st->path, st->line);
	int h = textline_section(buf, st->line, section, sizeof(section), why, sizeof(why));
	if (h < 0) {
		err_set(st->e, EXIT_USAGE, "%s: %s", where, why);
		return NULL;
	}
	if (h > 0) {
		st->sections++;
		if (begin_section(st, section, where))
			return NULL;
	}
	return buf;
}

static char *keep(struct job *job, const char *s)
{
	char **v = xrealloc(job->values, sizeof(*v) * (size_t)(job->nvalues + 1));
	job->values = v;
	v[job->nvalues] = xstrdup(s);
	return v[job->nvalues++];
}

static void add_item(struct job *job, const struct opt *o, const char *value, int segment, const char *where)
{
	struct opt_args *a = &job->args;
	a->items = xreallocarray(a->items, (size_t)(a->n + 1), sizeof(*a->items));
	struct opt_item *it = &a->items[a->n++];
	*it = (struct opt_item){.opt = o, .value = value ? keep(job, value) : NULL, .segment = segment};
	snprintf(it->where, sizeof(it->where), "%s", where);
}

/* A new section header: classify it. */
static int begin_section(struct parse_state *st, const char *section, const char *where)
{
	char kind[32] = "", name[96] = "";
	int n = sscanf(section, "%31s %95[^\n]", kind, name);
	snprintf(st->secname, sizeof(st->secname), "%s", section);
	st->sec_first = st->job->args.n;
	if (strlen(name) >= sizeof(((struct job_load *)0)->name))
		return err_set(st->e, EXIT_USAGE, "%s: section name '%s' is too long (at most 63 characters)", where, name);
	if (n == 1 && strcmp(kind, "global") == 0) {
		st->sec = SEC_GLOBAL;
	} else if (n == 1 && strcmp(kind, "sweep") == 0 && (st->scopes & SCOPE_SWEEP)) {
		st->sec = SEC_SWEEP;
	} else if (n == 2 && strcmp(kind, "probe") == 0 && (st->scopes & SCOPE_PROBE)) {
		st->sec = SEC_PROBE;
		st->job->args.segments++;
		st->segment = st->job->args.segments - 1;
		add_item(st->job, opt_find("name"), name, st->segment, where);
	} else if (n == 2 && strcmp(kind, "load") == 0 && (st->scopes & SCOPE_RUN)) {
		st->sec = SEC_LOAD;
		st->job->loads = xreallocarray(st->job->loads, (size_t)(st->job->nloads + 1), sizeof(*st->job->loads));
		struct job_load *l = &st->job->loads[st->job->nloads++];
		memset(l, 0, sizeof(*l));
		snprintf(l->name, sizeof(l->name), "%.63s", name);
		snprintf(l->where, sizeof(l->where), "%s", where);
	} else {
		return err_set(st->e, EXIT_USAGE, "%s: unknown section [%s] (expected [global], [probe NAME]%s%s)", where,
		               section, (st->scopes & SCOPE_RUN) ? ", [load NAME]" : "",
		               (st->scopes & SCOPE_SWEEP) ? ", [sweep]" : "");
	}
	return 0;
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_state *st = user;
	char where[300];
	snprintf(where, sizeof(where), "%s:%d", st->path, st->line);
	if (st->sec == SEC_NONE)
		return err_set(st->e, EXIT_USAGE, "%s: '%s' is outside any section (start with [global] or [probe NAME])",
		               where, key), 0;
	if (st->sec == SEC_LOAD) {
		struct job_load *l = &st->job->loads[st->job->nloads - 1];
		if (strcmp(key, "load") != 0)
			return err_set(st->e, EXIT_USAGE, "%s: unknown key '%s' in [load %s] (expected load = TYPE[:key=value,...], "
			               "see irt help run)", where, key, l->name), 0;
		if (l->spec[0])
			return err_set(st->e, EXIT_USAGE, "%s: 'load' is given twice in [load %s] (first at %s; one load "
			               "per section)", where, l->name, l->where), 0;
		snprintf(l->spec, sizeof(l->spec), "%s", value);
		snprintf(l->where, sizeof(l->where), "%s", where);
		return 1;
	}
	if (st->sec == SEC_SWEEP) {
		char line[1024];
		snprintf(line, sizeof(line), "%s=%s", key, value);
		strlist_add(&st->job->sweep, line);
		strlist_add(&st->job->sweep_where, where);
		return 1;
	}
	const struct opt *o = opt_find(key);
	unsigned allowed = st->sec == SEC_PROBE ? SCOPE_PROBE : st->scopes & ~(unsigned)SCOPE_SWEEP;
	if (!o || !(o->scope & allowed)) {
		return err_set(st->e, EXIT_USAGE, "%s: unknown key '%s' in [%s] (expected an option name of irt help, "
		               "without the dashes)", where, key, st->secname), 0;
	}
	if (strcmp(key, "name") == 0)
		return err_set(st->e, EXIT_USAGE, "%s: 'name' is set by the section header [probe NAME]", where), 0;
	/* check the value now, so its error names this line */
	void *scratch = (o->scope & SCOPE_PROBE) ? (void *)&st->p : (o->scope & SCOPE_GLOBAL) ? (void *)&st->g : NULL;
	if (scratch && o->type != OPT_LIST && opt_set(o, scratch, value, where, st->e))
		return 0;
	/* the keys are the command line's options: what the command refuses there, it refuses
	 * here ("job.ini:3: json: not an option of 'irt sweep'") */
	char named[400];
	snprintf(named, sizeof(named), "%s: %s", where, o->name);
	if (opt_command_takes(st->cmd, o, value, named, st->e))
		return 0;
	/* given twice, the last value would win silently (a list option adds each) */
	for (int i = st->sec_first; o->type != OPT_LIST && i < st->job->args.n; i++)
		if (st->job->args.items[i].opt == o)
			return err_set(st->e, EXIT_USAGE, "%s: '%s' is given twice in [%s] (first at %s; give it once)", where,
			               key, st->secname, st->job->args.items[i].where), 0;
	add_item(st->job, o, value, st->sec == SEC_PROBE ? st->segment : 0, where);
	return 1;
}

static FILE *open_job(const char *path, struct err *e)
{
	FILE *f = input_fopen(path, "job file", e);
	if (!f && !e->code)
		err_set(e, EXIT_USAGE, "%s: cannot read the job file: %s", path, strerror(errno));
	return f;
}

int jobfile_parse(const char *path, const char *cmd, unsigned scopes, struct job *job, struct err *e)
{
	memset(job, 0, sizeof(*job));
	FILE *f = open_job(path, e);
	if (!f)
		return -1;
	int rc = jobfile_parse_stream(f, path, cmd, scopes, job, e);
	fclose(f);
	return rc;
}

#define JOB_TEXT_MAX (1 << 20)

char *jobfile_read(const char *path, size_t *len, struct err *e)
{
	FILE *f = open_job(path, e);
	if (!f)
		return NULL;
	char *text = xmalloc(JOB_TEXT_MAX + 1);
	size_t n = fread(text, 1, JOB_TEXT_MAX + 1, f);
	bool bad = ferror(f) != 0;
	fclose(f);
	if (bad || n > JOB_TEXT_MAX) {
		free(text);
		err_set(e, EXIT_USAGE, "%s: cannot read the job file: %s", path, bad ? strerror(EIO) : "larger than 1 MiB");
		return NULL;
	}
	text[n] = 0;
	*len = n;
	return text;
}

int jobfile_parse_text(const char *text, size_t len, const char *path, const char *cmd, unsigned scopes,
                       struct job *job, struct err *e)
{
	memset(job, 0, sizeof(*job));
	if (!len)   /* fmemopen refuses size 0; an empty line parses as the empty file does */
		text = "\n", len = 1;
	FILE *f = fmemopen((void *)text, len, "r");
	if (!f)
		return err_set(e, EXIT_RUNTIME, "%s: cannot read the job file: %s", path, strerror(errno));
	int rc = jobfile_parse_stream(f, path, cmd, scopes, job, e);
	fclose(f);
	return rc;
}

int jobfile_parse_stream(FILE *f, const char *path, const char *cmd, unsigned scopes, struct job *job, struct err *e)
{
	memset(job, 0, sizeof(*job));
	job->args.segments = 1;
	struct parse_state st = {.path = path, .cmd = cmd ? opt_find_command(cmd) : NULL, .scopes = scopes, .job = job,
	                         .e = e, .f = f};
	opt_defaults(SCOPE_GLOBAL, &st.g);
	opt_defaults(SCOPE_PROBE, &st.p);
	int rc = ini_parse_stream(reader, &st, handler, &st);
	if (!e->code && ferror(f))
		err_set(e, EXIT_USAGE, "%s:%d: cannot read the job file: %s", path, st.line + 1, strerror(errno));
	if (rc != 0 || e->code) {
		if (!e->code)   /* a syntax error inih found itself */
			err_set(e, EXIT_USAGE, "%s:%d: not an INI line (expected [section], key = value, or a ; or # comment)",
			        path, rc);
		jobfile_free(job);
		return -1;
	}
	if (!st.sections) {
		/* empty, or only comments: most likely the wrong file or a failed redirect; irt run
		 * without a job file is how to ask for the defaults */
		err_set(e, EXIT_USAGE, "%s: no section (expected [global], [probe NAME]%s%s; to run the defaults give no "
		        "job file)", path, (scopes & SCOPE_RUN) ? ", [load NAME]" : "", (scopes & SCOPE_SWEEP) ? ", [sweep]" : "");
		jobfile_free(job);
		return -1;
	}
	for (int i = 0; i < job->nloads; i++)
		if (!job->loads[i].spec[0]) {
			err_set(e, EXIT_USAGE, "%s: [load %s] has no 'load = TYPE[:key=value,...]' line", job->loads[i].where,
			        job->loads[i].name);
			jobfile_free(job);
			return -1;
		}
	job->args.pos = xcalloc(1, sizeof(char *));
	return 0;
}

void jobfile_free(struct job *job)
{
	opt_args_free(&job->args);
	for (int i = 0; i < job->nvalues; i++)
		free(job->values[i]);
	free(job->values);
	free(job->loads);
	strlist_free(&job->sweep);
	strlist_free(&job->sweep_where);
	memset(job, 0, sizeof(*job));
}

/* Job files (INI, read with inih): the same options as the command line, grouped in
 * sections. [global] holds options for the whole run (and probe options for every probe),
 * [probe NAME] one probe definition, [load NAME] one background load, [sweep] the values a
 * sweep varies. Keys are the option names of the one option table. */
#ifndef IRT_JOBFILE_H
#define IRT_JOBFILE_H

#include <stdio.h>

#include "err.h"
#include "opt.h"

struct job_load {
	char name[64];
	char spec[512];       /* "TYPE[:key=value,...]" as --load takes it */
	char where[300];      /* "job.ini:12" of the section header, for errors */
};

struct job {
	struct opt_args args;   /* like a command line: [probe NAME] sections are segments */
	struct job_load *loads;
	int nloads;
	struct strlist sweep;   /* [sweep] lines as "key=v1,v2,..." */
	struct strlist sweep_where; /* and where each is: "job.ini:12" */
	char **values;          /* owned copies of the option values args points into */
	int nvalues;
};

/* Parses path for command cmd ("run"; NULL: any command): `scopes` are the option scopes
 * [global] accepts (the command's), and a key the command refuses on its command line is
 * refused at its line ("job.ini:3: json: not an option of 'irt sweep'").
 * Errors: "FILE:LINE: what (accepted)", EXIT_USAGE. Values are checked here, so a bad value
 * is reported at its line. */
int jobfile_parse(const char *path, const char *cmd, unsigned scopes, struct job *job, struct err *e);
/* The same from an open stream; path names it in errors (jobfile_parse opens, then calls this;
 * the fuzz target feeds it memory). */
int jobfile_parse_stream(FILE *f, const char *path, const char *cmd, unsigned scopes, struct job *job,
                         struct err *e);
/* The job file's text and its *len bytes (at most 1 MiB; free it), NULL with e set; and the
 * parse of such a text (len bytes: a NUL byte in it is refused as in a file), path naming it in
 * errors: a sweep keeps the text in plan.json and --resume replays it. */
char *jobfile_read(const char *path, size_t *len, struct err *e);
int jobfile_parse_text(const char *text, size_t len, const char *path, const char *cmd, unsigned scopes,
                       struct job *job, struct err *e);
void jobfile_free(struct job *job);

#endif

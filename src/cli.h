/* What every command does the same way: globals from parsed options, the command line for
 * the record, writing the requested outputs. */
#ifndef IRT_CLI_H
#define IRT_CLI_H

#include "config.h"
#include "err.h"
#include "opt.h"
#include "result.h"

/* Defaults, then every SCOPE_GLOBAL item of a. */
int cli_globals(const struct opt_args *a, struct global_cfg *g, struct err *e);
/* The SCOPE_EXPLAIN options of a (over the defaults already in x). */
struct explain_cfg;
int cli_explain(const struct opt_args *a, struct explain_cfg *x, struct err *e);
/* Refuses positional arguments beyond `allowed`: "irt probe: unexpected argument 'x'". */
int cli_no_extra_args(const struct opt_args *a, int allowed, const char *cmd, struct err *e);
/* argv joined with shell quoting where needed (malloc'ed). */
char *cli_cmdline(int argc, char **argv);
/* Checks before measuring that --json/--csv can be written (directory exists, writable). */
/* The directory that will hold path must exist and be writable (path itself may be a dir). */
int cli_check_parent(const char *opt, const char *path, struct err *e);
int cli_check_outputs(const struct global_cfg *g, struct err *e);
/* The same for one output file named by option opt ("" and "-" pass; a directory is refused)... */
int cli_check_output(const char *opt, const char *path, struct err *e);
/* cli_check_output for -o/--json of irt check and irt report (cmd), which write an HTML report
 * there: a FILE named *.json is refused (whoever types --json x.json expects JSON; the option is
 * one, -o, so the message names both spellings) */
int cli_check_report_output(const char *cmd, const char *opt, const char *path, struct err *e);
/* ...and for a directory irt writes files into (it creates and removes a test file). */
int cli_check_dir(const char *opt, const char *dir, struct err *e);
/* Prints r on stdout in g->format and writes --json/--csv. */
int cli_output(const struct result *r, const struct global_cfg *g, struct err *e);
/* True when a live status line may be drawn (stderr is a terminal and not --quiet). */
bool cli_live_status(const struct global_cfg *g);
void cli_status_line(const char *text);   /* redraws the line; NULL clears it */
/* After an interrupted measurement's results are out: one stderr line saying so, "after
 * DONE of PLANNED" (durations, or parts of the check), and whether a file holds them */
void cli_interrupted(const char *done, const char *planned, bool saved);
/* Does g write the result to a file (--json or --csv)? */
bool cli_saves(const struct global_cfg *g);

#endif

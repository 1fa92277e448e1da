/* The one option table: CLI flags, job-file keys, `irt help`, the man page, defaults and
 * ranges all come from `opt_table` (opt.c). A row names a field in the config struct of its
 * scope; defaults are strings parsed by the same code as user input. */
#ifndef IRT_OPT_H
#define IRT_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

enum opt_type {
	OPT_DURATION,  /* int64_t ns */
	OPT_SIZE,      /* int64_t bytes */
	OPT_INT,       /* int64_t */
	OPT_PERCENT,   /* int64_t parts per million */
	OPT_ENUM,      /* int: index into choices */
	OPT_FLAG,      /* bool: takes no value on the CLI; job files accept 1/0/true/false/yes/no */
	OPT_STRING,    /* char[OPT_STRLEN] */
	OPT_CPUS,      /* char[OPT_STRLEN] holding a validated CPU list "0-3,6" */
	OPT_LIST,      /* struct strlist: repeatable, each occurrence appended */
	OPT_DECIMAL,   /* int64_t thousandths: "13", "2.5" (load keys) */
	OPT_REST,      /* char[size]: the rest of a load spec, commas included (load keys) */
};

/* Scopes: which config struct a row writes to. A command accepts a set of scopes. */
enum opt_scope {
	SCOPE_GLOBAL = 1u << 0, /* struct global_cfg: output and invocation-wide settings */
	SCOPE_PROBE = 1u << 1,  /* struct probe_cfg: one probe definition */
	SCOPE_RUN = 1u << 2,    /* struct run_cfg: irt run: loads, warm-up, placement */
	SCOPE_SWEEP = 1u << 3,  /* struct sweep_cfg */
	SCOPE_SIM = 1u << 4,    /* struct sim_cfg: [sim] section of workload files */
	SCOPE_SIM_THREAD = 1u << 5, /* struct sim_thread_cfg: [thread NAME] sections */
	SCOPE_REPORT = 1u << 6, /* struct report_cfg */
	SCOPE_KNOB = 1u << 7,   /* struct knob_cfg: irt knobs, and how sweeps apply knobs */
	SCOPE_LOAD = 1u << 8,   /* struct load_spec: keys of a --load spec; rows live in the load
	                         * types (src/linux/load*.c), not in opt_table */
	SCOPE_GATE = 1u << 9,   /* struct gate_cfg: --expect, --junit (CI gates) */
	SCOPE_FLEET = 1u << 10, /* struct fleet_cfg: irt fleet (Slurm, GNU parallel) */
	SCOPE_MONITOR = 1u << 11, /* struct monitor_cfg: irt monitor */
	SCOPE_EXPLAIN = 1u << 12, /* struct explain_cfg: --explain (probe, run, sweep, check, watch) */
	SCOPE_WATCH = 1u << 13,  /* struct watch_cfg: irt watch: which threads, how long */
	SCOPE_COND = 1u << 14,   /* struct cond_cfg: measurement conditions of probe, run, sweep, check */
	SCOPE_NOISE = 1u << 15,  /* struct noise_cfg: irt noise's duty cycle and threshold */
	SCOPE_LAST = SCOPE_NOISE,
};

#define OPT_STRLEN 256

struct strlist {
	char **v;
	int n;
};
void strlist_add(struct strlist *l, const char *s);
void strlist_free(struct strlist *l);

/* One option. Rows are written with designated initializers; a field left out is 0/NULL. */
struct opt {
	const char *name;           /* "period": --period on the CLI, period = in job files */
	char short_name;            /* 'i', or 0 */
	enum opt_type type;
	unsigned scope;             /* exactly one SCOPE_* bit */
	size_t offset;              /* offsetof() into the config struct of the scope */
	size_t size;                /* OPT_STRING, OPT_CPUS, OPT_REST: the char array's size
	                             * (0: OPT_STRLEN) */
	const char *def;            /* default as the user would type it; NULL = unset/zero */
	int64_t min, max;           /* range in the type's base unit; both 0: unchecked */
	const char *const *choices; /* OPT_ENUM: NULL-terminated */
	const char *arg;            /* placeholder in help: "DURATION", "N" ... */
	const char *help;           /* one line; the default and range are appended by help */
	bool printable;             /* OPT_STRING: refuse control characters (names shown on
	                             * terminals and in reports) */
};
/* Does o have a range to check? */
static inline bool opt_ranged(const struct opt *o)
{
	return o->min != 0 || o->max != 0;
}

extern const struct opt opt_table[];
extern const int opt_count;

const struct opt *opt_find(const char *name);   /* by long name; NULL if unknown */
const struct opt *opt_find_short(char c);

/* Parses value into the field of o inside base. `where` names the source for errors:
 * "--period" or "job.ini:12". Errors: "<where>: '<value>' <what> (<accepted form>)", EXIT_USAGE. */
int opt_set(const struct opt *o, void *base, const char *value, const char *where, struct err *e);
/* Applies every default of the scope to base (base must be zeroed first). */
void opt_defaults(unsigned scope, void *base);
/* opt_defaults, then command c's own defaults of that scope's options (command_info.defaults). */
struct command_info;
void opt_command_defaults(const struct command_info *c, unsigned scope, void *base);
/* Formats the field's current value in the form opt_set reads back; "" for an unset string. */
char *opt_format(const struct opt *o, const void *base, char *buf, size_t len);
/* The name --format gives an output format ("cyclictest"), from the option table. */
const char *opt_format_name(int format);
/* The accepted form of a type, for error messages and help: "a duration like 200ms or 0.2s". */
const char *opt_accepts(const struct opt *o, char *buf, size_t len);

/* A parsed command line: the options in order, each tagged with its probe segment, plus the
 * positional arguments. `--name NAME` (SCOPE_PROBE) starts a new segment; options before the
 * first --name form segment 0, which applies to every probe definition (as fio's globals). */
struct opt_item {
	const struct opt *opt;
	const char *value;   /* NULL for flags */
	int segment;
	char where[300];     /* "--period" or "job.ini:12" */
	int arg, nargs;      /* the words argv[arg..arg+nargs) that gave it (0, 0: not a command line's) */
};
struct opt_args {
	struct opt_item *items;
	int n;
	int segments;        /* 1 + number of --name options */
	char **pos;          /* positional arguments */
	int npos;
	bool help;
};
/* Parses argv (argv[0] is the command word) accepting options of the given scopes.
 * Accepts --opt VALUE, --opt=VALUE, -x VALUE, -xVALUE; "--" ends options. */
int opt_parse(int argc, char **argv, unsigned scopes, struct opt_args *a, struct err *e);
/* The same as command c would parse it: c's refused options and --format values are refused
 * (opt_parse takes c from argv[0]); c NULL: only the scopes limit what is accepted. */
struct command_info;
int opt_parse_for(const struct command_info *c, int argc, char **argv, unsigned scopes, struct opt_args *a,
                  struct err *e);
void opt_args_free(struct opt_args *a);

/* Commands (the table is in main.c); help and man page are generated from both tables. */
struct command_info {
	const char *name;     /* "probe" */
	const char *usage;    /* "irt probe [OPTIONS]" */
	const char *summary;  /* one line */
	unsigned scopes;      /* option scopes the command accepts */
	int (*run)(int argc, char **argv);  /* argv[0] is the command name */
	/* options of those scopes it refuses (they would do nothing there): NULL-terminated, or
	 * NULL; its help leaves them out */
	const char *const *without;
	const char *const *formats;   /* the --format values it honours (NULL-terminated), NULL: all */
	/* its own defaults of options it shares with other commands, "NAME=VALUE" (NULL-terminated),
	 * or NULL: its help shows them, opt_command_defaults applies them */
	const char *const *defaults;
};
/* The command table, registered by main() first: irt fleet checks the options of the command it
 * will run on every node against it. */
void opt_register_commands(const struct command_info *cmds, int ncmds);
const struct command_info *opt_find_command(const char *name);   /* NULL: unknown or none registered */
/* Does command c take option o with value (NULL for a flag; c NULL: yes)? 0, or -1 with e set,
 * where naming it: "<where>: not an option of 'irt C' (see irt help C)" for one c refuses,
 * "<where>: irt C writes no 'V' (it accepts A, B)" for a --format value it does not honour.
 * opt_parse checks the command line with it, job-file readers their keys. */
int opt_command_takes(const struct command_info *c, const struct opt *o, const char *value, const char *where,
                      struct err *e);
/* Parses argv (argv[0] is the command word) as that command would and checks every value with
 * opt_set, without running anything; the command's own messages. Repeatable (OPT_LIST) values
 * are taken as text here: the command checks what they mean. */
int opt_check_command(int argc, char **argv, struct err *e);
void opt_print_help(FILE *f, const struct command_info *cmds, int ncmds, const struct command_info *c);
void opt_print_man(FILE *f, const struct command_info *cmds, int ncmds);

#ifdef IRT_VERSION
#define IRT_VERSION_STRING IRT_VERSION
#else
#define IRT_VERSION_STRING "dev"
#endif

#endif

/* The config structs the option table (opt.c) writes into, one per scope. Fields are in base
 * units: durations int64_t ns, sizes int64_t bytes, percentages int64_t ppm. */
#ifndef IRT_CONFIG_H
#define IRT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "opt.h"

/* TEXT and HTML are the report renderers (out/report.h): irt report, and any result command */
enum output_format { FORMAT_TABLE, FORMAT_SEED, FORMAT_CYCLICTEST, FORMAT_NONE, FORMAT_TEXT, FORMAT_HTML };
enum probe_policy { POL_OTHER, POL_BATCH, POL_IDLE, POL_FIFO, POL_RR, POL_DEADLINE };
enum touch_pattern { TOUCH_SEQ, TOUCH_RANDOM };
enum persona { PERSONA_NONE, PERSONA_AUDIO, PERSONA_VIDEO, PERSONA_X, PERSONA_GAMING };

struct global_cfg {
	int format;                 /* enum output_format */
	char json[OPT_STRLEN];      /* --json FILE */
	char csv[OPT_STRLEN];       /* --csv FILE */
	bool quiet;                 /* no live status line */
	int64_t seed;               /* random seed (touch pattern, shuffles) */
	int64_t hist_buckets;       /* --format cyclictest: 1 us rows */
};

struct probe_cfg {
	char name[OPT_STRLEN];
	int persona;                /* enum persona */
	int64_t period, count, duration, deadline;
	bool relative;
	int64_t slack;
	bool no_mlock;
	int64_t touch;
	int touch_pattern;          /* enum touch_pattern */
	int64_t burn;
	int64_t threads;
	int policy;                 /* enum probe_policy */
	int64_t prio, nice, slice;
	int64_t dl_runtime, dl_deadline, dl_period;
	int64_t rt_guard;
	char cpus[OPT_STRLEN];
	char inject_stall[OPT_STRLEN]; /* testing: "ITER:DURATION" */
};

/* irt report (SCOPE_REPORT); its output file is the global -o/--json, its stdout --format */
struct report_cfg {
	char svg[OPT_STRLEN];       /* --svg DIR: every chart as a standalone SVG file */
	char metric[OPT_STRLEN];    /* --metric NAME: the sweep metric to chart */
};

#endif

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

enum placement { PLACE_SAME, PLACE_SPLIT, PLACE_SESSION };

struct run_cfg {
	struct strlist loads;       /* --load TYPE[:key=value,...], repeatable */
	int64_t warmup;             /* run loads (and probes, unrecorded) this long first */
	int placement;              /* enum placement */
	bool attribute;             /* split each lateness into runqueue wait and the rest */
};

/* ---- irt compare (stats helper): SCOPE_REPORT ---- */
/* Latency metrics the recommendation can rank by; same order as the choices of --metric
 * (opt.c) and the first rows of the metric table in compare.c. */
enum rank_metric {
	RANK_WAKE_P50, RANK_WAKE_P99, RANK_WAKE_P999, RANK_WAKE_MAX,
	RANK_RESP_P50, RANK_RESP_P99, RANK_RESP_P999, RANK_RESP_MAX,
};

struct report_cfg {
	char baseline[OPT_STRLEN];  /* --baseline FILE|CELL; "" = the first cell */
	int metric;                 /* enum rank_metric: what the recommendation minimises */
	int64_t resamples;          /* bootstrap resamples */
	int64_t min_throughput;     /* ppm of the baseline's throughput a recommendation keeps */
	int64_t single_run_floor;   /* ppm; 0 = no verdicts between single runs */
	char svg[OPT_STRLEN];       /* irt report --svg DIR: every chart as a standalone SVG file */
};

/* irt sweep: the values to vary and how often */
struct sweep_cfg {
	struct strlist sweep;       /* --sweep KEY=V1,V2,... (a knob or a probe/run option) */
	int64_t repeat;             /* repetitions of every cell */
	char dir[OPT_STRLEN];       /* where results go */
	char resume[OPT_STRLEN];    /* continue the sweep in this directory */
};

/* irt knobs (src/cmd_knobs.c) and the knob settings of sweeps (src/linux/knob.h) */
struct knob_cfg {
	struct strlist apply;       /* --apply KNOB=VALUE, repeatable */
	int64_t hold;               /* --hold: ns; 0 = until a signal */
	bool allow_rt_unthrottled;  /* permits kernel.sched_rt_runtime_us=-1 */
	int cgroup_of;              /* enum knob_cgroup_of: probes or loads */
	int cgroup_under;           /* enum cg_parent: root or self */
};

#endif

/* The config structs the option table (opt.c) writes into, one per scope. Fields are in base
 * units: durations int64_t ns, sizes int64_t bytes, percentages int64_t ppm. */
#ifndef IRT_CONFIG_H
#define IRT_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "opt.h"

/* TEXT and HTML are the report renderers (out/report.h): irt report, and any result command */
enum output_format { FORMAT_TABLE, FORMAT_SEED, FORMAT_CYCLICTEST, FORMAT_NONE, FORMAT_TEXT, FORMAT_HTML, FORMAT_OPENMETRICS };
enum probe_policy { POL_OTHER, POL_BATCH, POL_IDLE, POL_FIFO, POL_RR, POL_DEADLINE };
enum touch_pattern { TOUCH_SEQ, TOUCH_RANDOM };
enum overrun_rule { OVERRUN_CATCH_UP, OVERRUN_SKIP };
enum persona { PERSONA_NONE, PERSONA_AUDIO, PERSONA_VIDEO, PERSONA_X, PERSONA_GAMING };

struct global_cfg {
	int format;                 /* enum output_format */
	char json[OPT_STRLEN];      /* --json FILE */
	char csv[OPT_STRLEN];       /* --csv FILE */
	bool quiet;                 /* no live status line */
	int64_t seed;               /* random seed (touch pattern, shuffles) */
	int64_t hist_buckets;       /* --format cyclictest: 1 us rows */
	bool hist_sum;              /* --format cyclictest: a column summing the threads (cyclictest -H) */
};

struct probe_cfg {
	char name[OPT_STRLEN];
	int persona;                /* enum persona */
	int64_t period, count, duration, deadline;
	bool relative;
	int overrun;                /* enum overrun_rule */
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
	int64_t stop_above;         /* a recorded wake-up later than this ends every probe (0: none) */
	char cpus[OPT_STRLEN];
	bool per_cpu;               /* one thread per CPU of cpus (or of irt's affinity), each pinned */
	bool aligned;               /* its threads' releases at the common start, not spread over the period */
	int64_t aligned_offset;     /* --aligned: thread k's releases k times this after it (implies aligned) */
	char inject_stall[OPT_STRLEN]; /* testing: "ITER:DURATION" */
	int64_t stall_iter, stall_ns;  /* inject_stall as probe_cfg_finish parsed it (stall_ns 0: none) */
};

enum placement { PLACE_SAME, PLACE_SPLIT, PLACE_SESSION };

struct run_cfg {
	struct strlist loads;       /* --load TYPE[:key=value,...], repeatable */
	int64_t warmup;             /* run loads (and probes, unrecorded) this long first */
	int placement;              /* enum placement */
	bool attribute;             /* split each lateness into runqueue wait and the rest */
};

/* --explain: tail wake-ups explained from scheduler events (src/explain.h, docs/explain.md) */
struct explain_cfg {
	bool explain;
	int64_t threshold;          /* ns; 0 = the run's p99 */
	int64_t buffer;             /* bytes of kernel ring buffer per CPU */
};

/* irt watch: real applications' threads */
struct watch_cfg {
	char pid[OPT_STRLEN];       /* comma list of pids (every thread of each) */
	char comm[OPT_STRLEN];      /* comma list of command names */
	char cgroup[OPT_STRLEN];    /* a cgroup directory: the threads in it */
	int64_t duration;
	bool all;                   /* every task on the system (runq.c), not a selection */
	bool by_cpu;                /* --all: a histogram per CPU too */
	int64_t top;                /* --all: the worst tasks shown */
	int top_by;                 /* --all: enum runq_rank (p99, max, total) */
	int top_of;                 /* --all: the table by thread (0) or by process (1: runqlat -P) */
	bool include_irt;           /* --all: irt's own threads too */
	bool empty_fails;           /* not an option: irt watch fails when no thread woke up (a sweep cell does not) */
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
	int64_t margin;             /* ppm; > 0: "equivalent" when the difference lies within +-margin */
	double look_alpha;          /* not an option: the alpha of a sequential look (0: 0.05) */
	char svg[OPT_STRLEN];       /* irt report --svg DIR: every chart as a standalone SVG file */
};

/* irt sweep: the values to vary and how often */
struct sweep_cfg {
	struct strlist sweep;       /* --sweep KEY=V1,V2,... (a knob or a probe/run option) */
	int64_t repeat;             /* repetitions of every cell */
	char dir[OPT_STRLEN];       /* where results go */
	char resume[OPT_STRLEN];    /* continue the sweep in this directory */
	char shard[OPT_STRLEN];     /* "I/N": run only shard I of N of the cells (src/fleet.h) */
	bool until_decided;         /* add rounds until every cell has a verdict (docs/statistics.md) */
	int64_t budget;             /* ns; --until-decided starts no run beyond it; 0 = none */
	int64_t max_repeat;         /* --until-decided: at most this many repetitions of a cell */
};

/* irt knobs (src/cmd_knobs.c) and the knob settings of sweeps (src/linux/knob.h) */
struct knob_cfg {
	struct strlist apply;       /* --apply KNOB=VALUE, repeatable */
	int64_t hold;               /* --hold: ns; 0 = until a signal */
	bool allow_rt_unthrottled;  /* permits kernel.sched_rt_runtime_us=-1 */
	int cgroup_of;              /* enum knob_cgroup_of: probes or loads */
	int cgroup_under;           /* enum cg_parent: root or self */
};

/* Measurement conditions irt sets for probe, run, sweep and check (linux/conditions.h). */
struct cond_cfg {
	char pm_qos[OPT_STRLEN];    /* "none", or a latency in us ("0", "20us") to hold PM QoS at */
};

/* ---- simulator (irt sim, src/sim/): [sim] and [thread NAME] sections of workload files ---- */
enum sim_type { SIM_PERIODIC, SIM_SPORADIC, SIM_CPU_BOUND, SIM_IO, SIM_ONESHOT, SIM_TIMER };
enum sim_dist { DIST_FIXED, DIST_UNIFORM, DIST_EXPONENTIAL };
/* When a run ends: AUTO is IDLE for a .tsv workload, DURATION otherwise; IDLE is schedsim's
 * rule (the first instant nothing is ready once the scenario's last timed row has arrived, at
 * most the duration); DURATION runs for the duration. */
enum sim_end { SIM_END_AUTO, SIM_END_IDLE, SIM_END_DURATION };
enum sim_groups { SIM_GROUPS_FLAT, SIM_GROUPS_NESTED };

struct sim_cfg {
	int policy;                 /* index into sim_policies[] (src/sim/policy.c) */
	int64_t duration;           /* simulated time (with end = idle: at most) */
	int end;                    /* enum sim_end */
	int64_t seed;
	int64_t cpus;               /* simulated CPUs, each with its own policy instance */
	int64_t cs_cost;            /* context-switch cost, charged to the incoming thread */
	int64_t super_period, fill, priorities;  /* hwquota */
	int64_t slice;              /* rr, cfsbw, edf (background), fair (base slice), bvt (C) */
	int64_t tick;               /* cfsbw: scheduler tick (Linux: 1/HZ); 0 = none */
	int groups;                 /* cfsbw: enum sim_groups */
	char import[OPT_STRLEN];    /* a jschlatow/schedsim TSV whose rows become threads */
	char shard[OPT_STRLEN];     /* "I/N": simulate only shard I of N of the [sweep] cells */
	int64_t max_work;           /* command line only: cap on the estimated activations */
	char like[OPT_STRLEN];      /* command line only: a measured result to build the workload from */
};

struct sim_thread_cfg {
	int type;                   /* enum sim_type */
	int64_t cpu;                /* fixed affinity */
	int64_t start;              /* first release / start time */
	int64_t period;             /* periodic, timer; sporadic: minimum inter-arrival */
	int64_t jitter;             /* sporadic: extra inter-arrival, uniform in [0, jitter] */
	int64_t exec, exec_max;     /* work per job (io: per burst); exec_max for uniform */
	int exec_dist;              /* enum sim_dist */
	int64_t deadline;           /* relative; 0 = the period */
	int64_t block, block_max;   /* io, oneshot: blocked time after each burst */
	int64_t work;               /* oneshot: total work */
	int64_t activations;        /* timer: activations needed per window */
	int64_t window;             /* timer: window (0 = the super period) */
	int64_t yield_every;        /* cpu-bound: yield after this much work (0 = never) */
	int64_t prio;               /* hwquota band, rr priority */
	char quota[OPT_STRLEN];     /* hwquota: "100ms" or "10%" of the super period */
	int64_t quota_ns;           /* quota resolved (not an option row) */
	int64_t weight;             /* cfsbw, fair, bvt */
	int64_t slice;              /* fair: the thread's request size (0: the base slice) */
	int64_t warp, warp_limit, unwarp;        /* bvt */
	int64_t dl_runtime, dl_deadline, dl_period;  /* edf */
	char group[OPT_STRLEN];     /* cfsbw: bandwidth group (default: the thread itself) */
	int64_t cfs_quota, cfs_period, cfs_burst;    /* cfsbw: the group's bandwidth */
};

/* ---- CI gates (src/expect.h): probe, run, sweep, compare, sim ---- */
struct gate_cfg {
	struct strlist expect;      /* --expect EXPR, repeatable */
	char junit[OPT_STRLEN];     /* --junit FILE */
};

/* ---- irt fleet (src/fleet.c) ---- */
struct fleet_cfg {
	bool dry_run;
	int64_t tasks;              /* array tasks / sim shards; 0 = one per --nodelist node, else 1 */
	char nodelist[OPT_STRLEN];
	char constraint[OPT_STRLEN];
	char partition[OPT_STRLEN];
	struct strlist slurm_args;  /* more #SBATCH lines */
	bool wait;                  /* sbatch --wait */
	struct strlist sshlogin;    /* GNU parallel --sshlogin */
};

/* ---- irt noise (src/cmd_noise.c); its period, duration, policy, prio and cpus are probe options ---- */
struct noise_cfg {
	int64_t runtime;            /* ns spun of every period; 0 = 90% of the period */
	int64_t threshold;          /* ns: a longer gap between two clock reads is noise */
};
/* a spinner sleeps out the rest of its period in slices this long, looking for the stop between */
#define NOISE_SLEEP_SLICE_NS (50 * 1000 * 1000)

/* ---- irt monitor (src/monitor.c) ---- */
struct monitor_cfg {
	char textfile[OPT_STRLEN];  /* node_exporter textfile */
	int64_t interval;           /* ns between writes */
	int64_t run_for;            /* ns; 0 = until a signal */
};

#endif

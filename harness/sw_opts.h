/* sw_opts.h - the sweep's settings: command line, config file, and the
 * config text stored in results.db so that --resume replays the same sweep.
 *
 * Invariants:
 *  - Every setting has exactly one name, used alike on the command line
 *    ("--name value" or "--name=value"), in a config file ("name = value")
 *    and in the stored config text; sw_opts_to_config() writes every setting,
 *    so parsing its output gives back equal options.
 *  - Later settings override earlier ones: defaults, then --quick (which
 *    swaps in the quick plan's defaults), then a --config file, then the
 *    other command-line options, in order.
 *  - Lists (workloads, periods, modes, rates, clocks, combined cells, counters)
 *    replace, never append; "none" is the empty list.  The exceptions are
 *    --size and --env (repeatable): each adds to the earlier ones (a later
 *    setting of the same workload or variable replaces it), "none" clears.
 *  - --env only ever holds NAME=VALUE items whose NAME is one of the runtime
 *    settings the cells do not control (the rows of SGC_SETTINGS with an ENV
 *    rank, contracts/sgc_settings_table.h).
 *  - The time sampler's modes (time_modes): set by --time-modes, or by the
 *    default rule of a fresh sweep (sw_opts_default_time_modes), and then
 *    stored; 0 in a config stored before the setting and with --env
 *    SGC_TIME_MODE (the older form: one mode for the whole sweep, today's
 *    labels), which sw_opts_time_modes reads as that mode or signal.
 *    --time-modes with --env SGC_TIME_MODE, and thread with the cpu clock
 *    (the sampler thread samples the wall clock only), are refused.
 *  - Validation errors are bad input: a message naming the setting, exit 2.
 */
#ifndef SW_OPTS_H
#define SW_OPTS_H

#include <stdint.h>
#include "sgc_modes.h"

#define SW_MAX_LIST 64
/* The runtime's limits (docs/RUNTIME.md: SGC_TIME_HZ, SGC_ALLOC_PERIOD):
 * beyond them every run would fail, so the options refuse them. */
#define SW_MAX_TIME_HZ 100000
#define SW_MAX_PERIOD ((uint64_t)1 << 48)
/* deepstack's largest --depth (docs/WORKLOADS.md). */
#define SW_MAX_DEPTH 10000
/* The workload the depth cells belong to. */
#define SW_DEPTH_WORKLOAD "deepstack"

/* The designs a sweep can use (--design). */
typedef enum sw_design {
    SW_DESIGN_BLOCKED = 0, /* adjacent pairs of a cell and its baseline (default) */
    SW_DESIGN_INDEPENDENT, /* every cell once per round, shuffled */
    SW_DESIGN_INPROCESS,   /* independent schedule, every run alternates inside the process (sw_alt.h) */
} sw_design;

/* The design's name as written in configs and meta ("blocked", ...). */
const char *sw_design_name(sw_design d);
/* The design named s; returns -1 if s names none. */
int sw_design_parse(const char *s);

/* How the replicates of --replicates K share the sweep's time
 * (--replicate-order). */
typedef enum sw_reporder {
    SW_REPORDER_UNSET = 0,   /* not given: sequential (sw_opts_reporder) */
    SW_REPORDER_SEQUENTIAL,  /* replicate 0 whole, then replicate 1, ... */
    SW_REPORDER_INTERLEAVED, /* round p of every replicate, then round p + 1 */
} sw_reporder;

/* The order's name as written in configs and meta ("sequential", ...). */
const char *sw_reporder_name(sw_reporder r);
/* The order named s; returns -1 if s names none. */
int sw_reporder_parse(const char *s);

typedef struct sw_combined {
    uint64_t period; /* allocation sampling period, bytes (> 0) */
    unsigned hz;     /* time sampling rate (> 0) */
} sw_combined;

typedef struct sw_size_override {
    char *workload; /* workload name, or "*" for every workload */
    uint64_t size;  /* its --size; skips calibration */
} sw_size_override;

typedef struct sw_opts {
    int quick;                    /* the small smoke plan was asked for */
    char *workloads[SW_MAX_LIST]; /* chosen workloads; empty = from the list file */
    int n_workloads;
    char *list_file;               /* workload list, one name per line */
    char *bin_dir;                 /* where the workload programs are */
    uint64_t periods[SW_MAX_LIST]; /* allocation sampling periods, bytes */
    int n_periods;
    unsigned modes;                /* allocation sampling modes to run: bit m = sgc_sample_mode m */
    unsigned time_hz[SW_MAX_LIST]; /* time sampling rates */
    int n_time_hz;
    unsigned clocks;                   /* time sampling clocks to run: bit c = sgc_clock c */
    unsigned time_modes;               /* time sampler's modes: bit m = sgc_time_mode m; 0 = the older form (above) */
    sw_combined combined[SW_MAX_LIST]; /* alloc+time cells (fixed mode, wall clock) */
    int n_combined;
    unsigned depths[SW_MAX_LIST]; /* deepstack --depth values for the depth cells */
    int n_depths;
    uint64_t depth_period; /* allocation sampling period of the depth cells */
    unsigned depth_hz;     /* time sampling rate of the depth cells */
    int runs;              /* measured rounds */
    int warmup;            /* discarded warm-up rounds (>= 1 by default) */
    sw_design design;      /* how runs are scheduled (--design) */
    double halfwidth;      /* --halfwidth: adaptive rounds' target (0.02 = 2%); 0 = off */
    int max_runs;          /* --max-runs: measured rounds at most, adaptive ones included */
    double max_time;       /* --max-time: seconds of adaptive rounds at most per invocation; 0 = no limit */
    int replicates;        /* --replicates K: K replicates of the plan (own seeds, schedules, block orders) */
    sw_reporder reporder;  /* --replicate-order; read it through sw_opts_reporder() */
    char *sizes_from;      /* --sizes-from DIR: every calibration unit's size from the sweep in DIR, or NULL */
    uint64_t seed;         /* the sweep's seed (shuffles and SGC_SEED) */
    int seed_given;        /* seed was set explicitly */
    int cpu;               /* CPU the runs are pinned to; -1 = choose */
    char *out_root;        /* results root: the sweep goes to out_root/<id> */
    double timeout;        /* per-run timeout, seconds; 0 = automatic */
    double target;         /* calibration target, seconds */
    sw_size_override sizes[SW_MAX_LIST]; /* fixed sizes (no calibration) */
    int n_sizes;
    int keep_profiles;           /* keep profiles in <sweep>/profiles/ */
    char *counters[SW_MAX_LIST]; /* libpfm4 event names */
    int n_counters;
    char *tmp_dir;          /* where the runs' temporary files go */
    char *env[SW_MAX_LIST]; /* NAME=VALUE runtime settings for every run */
    int n_env;
    int backend_native;                      /* the timed part: runs measured natively (wall time, counters) */
    int backend_sim;                         /* the simulated part: runs counted under valgrind (docs/HARNESS.md) */
    double sim_target;                       /* calibration target of the simulated part, CPU seconds under valgrind */
    int sim_runs;                            /* runs per simulated cell (>= 2: determinism is checked) */
    int sim_jobs;                            /* simulated runs at once; 0 = one per CPU allowed */
    sw_size_override sim_sizes[SW_MAX_LIST]; /* fixed sizes of the simulated part */
    int n_sim_sizes;
    char *valgrind;       /* the valgrind program */
    int shard_k, shard_n; /* --shard K/N: this sweep runs the K-th of N parts of the plan; 0/0 = all of it */
    /* Not part of the stored config: how this invocation behaves. */
    char *resume_dir;  /* --resume DIR */
    int plan_only;     /* --plan: print the plan and exit */
    char *from_dir;    /* --from DIR: --plan estimates from the runs of the sweep in DIR */
    char *levels_from; /* --levels-from DIR: the in-process plan's processes and blocks from DIR (sw_plan.h) */
    int estimate;      /* --estimate: --plan estimates by calibrating now */
    int progress;      /* 1 = live line, 0 = plain lines, -1 = by terminal */
    char *config_text; /* the stored config (on --resume) */
} sw_opts;

/* Fills o with the full default plan. */
void sw_opts_defaults(sw_opts *o);
/* Frees every string the options own (o is left empty). */
void sw_opts_free(sw_opts *o);
/* Parses the command line into o (after defaults).  Prints --help and exits
 * 0 when asked; bad arguments exit 2. */
void sw_opts_parse_args(sw_opts *o, int argc, char **argv);
/* Applies the settings of a config text (file contents); origin names it in
 * error messages.  Returns 0, or exits 2 on bad input. */
void sw_opts_parse_config(sw_opts *o, const char *text, const char *origin);
/* The replicates' order in effect: the one given, else sequential. */
sw_reporder sw_opts_reporder(const sw_opts *o);
/* After a stored config is parsed: a replicated sweep's config without
 * replicate-order was written before the setting existed, when the
 * replicates were always interleaved. */
void sw_opts_stored_defaults(sw_opts *o);
/* Writes every stored setting as config text (heap string). */
char *sw_opts_to_config(const sw_opts *o);
/* The size fixed for a workload by --size, or 0 if it must be calibrated. */
uint64_t sw_opts_fixed_size(const sw_opts *o, const char *workload);
/* Exits 2 if a --size WORKLOAD=N names a workload that is not among
 * workloads (a typo would otherwise leave that workload calibrated). */
void sw_opts_check_sizes(const sw_opts *o, char *const *workloads, int n_workloads);
/* The size fixed for a workload's simulated cells by --sim-size, or 0. */
uint64_t sw_opts_fixed_sim_size(const sw_opts *o, const char *workload);
/* The time sampler's modes the plan makes its time cells in (bit m =
 * sgc_time_mode m): time_modes, else --env SGC_TIME_MODE's mode, else
 * signal.  Never 0. */
unsigned sw_opts_time_modes(const sw_opts *o);
/* 1 if the plan's modes come from the older form (time_modes 0): time
 * cells keep today's labels and --env passes SGC_TIME_MODE. */
int sw_opts_time_modes_legacy(const sw_opts *o);
/* The default rule of a fresh sweep without --time-modes or --env
 * SGC_TIME_MODE (docs/HARNESS.md, "The time sampler's mode"): thread when
 * the sweep may use cpus >= 2 CPUs (its affinity) and its time cells are all
 * on the wall clock, else signal.  Sets time_modes; *why (fresh) says why. */
void sw_opts_default_time_modes(sw_opts *o, int cpus, char **why);
/* "signal,thread": the names of the modes in bits (fresh). */
char *sw_opts_time_mode_list(unsigned bits);
/* Parses --shard's "K/N" (1 <= K <= N <= SW_SHARD_MAX; sw_shard.h splits the
 * plan by it, and reads it back from a shard's meta.shard); 0, or -1 if s is
 * not that. */
int sw_opts_parse_shard(const char *s, int *k, int *n);
#define SW_SHARD_MAX 4096
/* The value --env sets for name (e.g. "SGC_NURSERY"), or NULL. */
const char *sw_opts_env(const sw_opts *o, const char *name);
/* The name of the sweep's setting i (0, 1, ... in --help order; NULL past
 * the last); *stored says whether sw_opts_to_config writes it (the others,
 * such as plan and resume, only shape this invocation). */
const char *sw_opts_setting(int i, int *stored);
/* Prints the usage text. */
void sw_opts_usage(void *stream);

#endif /* SW_OPTS_H */

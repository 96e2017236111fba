/* sw_plan.h - the sweep's plan: its cells (workload x configuration) and
 * its schedule (which cell runs in which round, in which order).
 *
 * Invariants:
 *  - Each workload gets, in this order: one baseline cell; one alloc cell per
 *    (mode, period); one time cell per (clock, rate); one alloc+time cell per
 *    combined entry.  Cell labels are unique: "<workload>/<config>" with
 *    config "baseline", "alloc-fixed-4M", "alloc-poisson-4M", "time-1000Hz"
 *    (wall clock) or "time-cpu-1000Hz", "alloc-fixed-4M+time-1000Hz".
 *  - The time sampler's modes (sw_opts_time_modes): every time-sampling
 *    cell (time, alloc+time, the depth cells' time cells) is made once per
 *    mode, the modes in table order outermost, so a plan of one mode has
 *    the cells and ids of the plans before the axis.  The label names a
 *    mode other than the first ("time-1000Hz-thread",
 *    "alloc-fixed-4M+time-1000Hz-thread"); signal's keeps today's label, and
 *    so does every cell of the older form (sw_opts_time_modes_legacy).  The
 *    simulated part's time cells are signal's alone (its time model is the
 *    signal's); another system's command workload has its time cells once,
 *    with no mode ("": its own sampler).
 *  - When deepstack is among the workloads, it also gets, for each --depths
 *    value D in order, a baseline, an alloc cell (fixed, --depth-period) and
 *    a time cell (wall, --depth-hz), labelled "deepstack/d<D>/<config>",
 *    whose runs (calibration and --check included) get the extra workload
 *    arguments "--depth D".  Sizes are calibrated per (workload, args).
 *  - The schedule has warmup + runs rounds.  In the database the measured
 *    rounds are 1..runs and the warm-up rounds are 0, -1, -2, ... (the last
 *    warm-up round is 0), so "round >= 1" selects exactly the measured runs
 *    and (cell_id, round) stays unique.  Every round runs
 *    every cell exactly once, in a freshly shuffled order (Fisher-Yates) drawn
 *    from one generator seeded with the sweep's seed, so the same seed and
 *    cell count always give the same schedule.
 *  - seq (the position in the schedule) starts at 1 and has no gaps.
 *  - Designs (docs/HARNESS.md, "Designs"): SW_DESIGN_INDEPENDENT is the
 *    schedule above (sw_plan_schedule: every cell once per round, block 0).
 *    SW_DESIGN_BLOCKED (sw_plan_blocked, the default) runs blocks of two
 *    adjacent runs: for every cell that is not a baseline, a block of that
 *    cell and its own baseline (sw_plan_baseline_of); for every baseline, an
 *    A/A block of two runs of itself.  Every block occurs once per round;
 *    the blocks of a round are shuffled (Fisher-Yates) and run back to back,
 *    so every run of a cell has a run of its baseline as its neighbour.
 *    Within a block, one run has role 1 (the compared run: the cell's, or in
 *    an A/A block the one chosen to stand for the "cell") and the other role
 *    0 (the baseline); which of the two runs first is balanced per block over
 *    the measured rounds: exactly floor(runs/2) rounds run role 1 first,
 *    floor(runs/2) run it second, and with an odd number of runs the one left
 *    over is a coin flip; warm-up rounds flip a coin.  Block ids are 1, 2, 3
 *    ... in execution order; positions are 1 and 2.  The database round of
 *    both runs of a block is the block's round, so a baseline has one run per
 *    block it belongs to in every round.
 *  - SW_DESIGN_INPROCESS (in-process alternation) uses the independent
 *    schedule: its comparisons are inside each run (harness/sw_alt.h).
 *  - With the simulated backend, every cell but the depth cells is planned
 *    once more after all the native cells, labelled "<workload>/sim/<config>"
 *    with sim = 1; these run sim_runs times each, after the native schedule.
 */
#ifndef SW_PLAN_H
#define SW_PLAN_H

#include <stdint.h>
#include "sw_opts.h"

typedef struct sw_cell {
    int id;                 /* cell_id in results.db: 1 .. n in plan order */
    char *workload;         /* workload name */
    char *kind;             /* "baseline", "alloc", "time" or "alloc+time" */
    uint64_t alloc_period;  /* bytes; 0 = no allocation sampling */
    const char *alloc_mode; /* "fixed", "poisson" or "" */
    unsigned time_hz;       /* 0 = no time sampling */
    const char *time_clock; /* "wall", "cpu" or "" */
    const char *time_mode;  /* the time sampler's mode, "signal" or "thread"; "" without time sampling or for
                               another system's command workload */
    uint64_t size;          /* the workload's --size (0 until calibrated) */
    char *label;            /* unique, "<workload>/<config>" or "<workload>/d<D>/<config>" */
    char *args;             /* extra workload arguments ("--depth 16"), "" for none */
    unsigned depth;         /* the --depth of a depth cell, 0 for none */
    int sim;                /* a simulated cell (backend 'sim'): counted under valgrind */
} sw_cell;

typedef struct sw_slot {
    int seq;       /* 1-based position in the execution order */
    int cell;      /* index into the cell array (cell id - 1) */
    int round;     /* database round: <= 0 warm-up, 1..runs measured */
    int pass;      /* 0-based schedule round (warm-up rounds count too) */
    int block;     /* blocked design: block id (>= 1); 0 = not in a block */
    int pos;       /* position in the block: 1 or 2; 0 = not in a block */
    int role;      /* 1 = the compared run of its block, 0 = its baseline run */
    int replicate; /* --replicates K > 1: 0 .. K-1; -1 = a sweep of one replicate (stored as NULL) */
} sw_slot;

/* Builds the cells for the given workloads from the options.  Returns the
 * number of cells; *out receives a fresh array.  Sizes are left 0. */
int sw_plan_cells(const sw_opts *o, char *const *workloads, int n_workloads, sw_cell **out);
/* The whole schedule of a plan whose native cells come first: the native
 * cells' schedule in the sweep's design (sw_plan_build), then, for each simulated
 * cell in plan order, its runs 1..sim_runs (no warm-up, no shuffle: counts
 * do not drift).  Returns the number of slots.
 * With --replicates K > 1 the native part is K schedules, replicate r's
 * built with seed sw_plan_replicate_seed(seed, r) (its own shuffles and
 * block orders), in the order sw_opts_reporder(o) gives. Sequential (the
 * default): replicate 0's warm-up and measured rounds, then replicate 1's,
 * and so on, so replicates share as little of the sweep's time as they
 * can. Interleaved: every schedule round (warm-up rounds first) runs round
 * p of every replicate, the replicates in the order r = p, p + 1, ...
 * (mod K), so that each replicate is spread over the whole sweep and none
 * always goes first.  seq counts from 1 again, blocks
 * are renumbered 1, 2, ... in execution order, database rounds stay each
 * replicate's own; the simulated part runs once (replicate -1). */
int sw_plan_schedule_all(const sw_opts *o, const sw_cell *cells, int n_cells, sw_slot **out);
/* The seed of replicate r: the sweep's seed for r = 0 (a sweep of one
 * replicate is replicate 0's schedule), a splitmix64 mix of it for the others. */
uint64_t sw_plan_replicate_seed(uint64_t seed, int r);
/* Builds the schedule of warmup + runs rounds over n_cells cells.  Returns
 * the number of slots ((warmup + runs) * n_cells); *out receives them. */
int sw_plan_schedule(int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out);
/* The index of cell i's baseline: the baseline cell of the same workload
 * and depth (itself for a baseline); -1 if the plan has none. */
int sw_plan_baseline_of(const sw_cell *cells, int n_cells, int i);
/* The key of a cell's calibration unit in the calibration tables: its
 * workload, then its arguments if it has any ("deepstack --depth 16"),
 * "sim:" first for a simulated cell.  Fresh. */
char *sw_plan_unit_key(const sw_cell *c);
/* Builds the blocked schedule (see the invariants) of warmup + runs rounds.
 * Returns the number of slots: (warmup + runs) * 2 * (blocks per round),
 * with one block per cell that is not a baseline and one A/A block per
 * baseline; *out receives them.  A cell without a baseline is a usage error. */
int sw_plan_blocked(const sw_cell *cells, int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out);
/* The schedule of design d (blocked or independent; others are a usage
 * error). */
int sw_plan_build(sw_design d, const sw_cell *cells, int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out);
/* Runs of one round in a design (for plan summaries and time estimates). */
int sw_plan_runs_per_round(const sw_cell *cells, int n_cells, sw_design d);
/* The database round of schedule round pass (0-based): pass - warmup + 1. */
int sw_plan_db_round(int pass, int warmup);
/* The estimated duration of a plan's runs (sweep --plan): each run takes
 * its cell's per-run time plus the harness's overhead per run; the timed
 * part's runs one after another, the simulated part's jobs at once.  All in
 * nanoseconds, summed exactly. */
typedef struct sw_estimate {
    int timed_runs;       /* runs of the timed part with a per-run time */
    int64_t timed_run_ns; /* the sum of their per-run times */
    int64_t timed_ns;     /* timed_run_ns + timed_runs x overhead */
    int sim_runs;         /* the same for the simulated part */
    int64_t sim_run_ns;   /* the sum of their per-run times */
    int64_t sim_ns;       /* (sim_run_ns + sim_runs x sim overhead) / jobs */
    int unknown_runs;     /* runs whose cell has no per-run time: not counted above */
    int64_t round_ns;     /* the timed part's measured round 1 (an adaptive round costs at most this) */
} sw_estimate;
/* Estimates the slots of a schedule: run_ns[i] is one run of cell i (< 0:
 * unknown), overhead_ns and sim_overhead_ns the harness's time per run of
 * each part, jobs (>= 1) the simulated runs at once. */
void sw_plan_estimate(const sw_cell *cells, const sw_slot *slots, int n_slots, const int64_t *run_ns,
                      int64_t overhead_ns, int64_t sim_overhead_ns, int jobs, sw_estimate *e);
/* ---- The in-process plan's levels (--levels-from DIR, docs/HARNESS.md) ----
 * An in-process cell's interval is over its processes (Hartung-Knapp with a
 * t on P - 1 degrees of freedom, docs/STATISTICS.md "The process as a
 * level"): with P processes of b usable blocks each, its variance is about
 * (tau^2 + s^2 / b) / P, tau the between-process SD of the log-ratio and s
 * the SD of one block's.  Within a fixed CPU budget per cell, more
 * processes with fewer blocks each narrow it where tau dominates, and cost
 * the per-process fixed part (start-up and end outside the blocks, the
 * harness's time around the run, the blocks before a steady state) where
 * it does not.  The rule: the P (2 .. SW_LEVELS_MAX_PROCESSES, at least
 * SW_LEVELS_MIN_BLOCKS usable blocks each) whose predicted half-width
 * t_{P-1} sqrt((tau^2 + s^2 / b) / P), relative to the current plan's, has
 * the smallest median over the measured cells; ties to the fewer
 * processes. */
#define SW_LEVELS_MIN_BLOCKS 20    /* a process's own interval and its steady-state step need about 20 blocks */
#define SW_LEVELS_MAX_PROCESSES 64 /* rounds of the schedule: each is a warm-up-free pass over every cell */

typedef struct sw_level_cell {
    double tau;     /* between-process SD of the log-ratio (>= 0) */
    double s_block; /* SD of one block's log-ratio (> 0) */
} sw_level_cell;

/* The measured costs of one process, CPU seconds. */
typedef struct sw_level_costs {
    double block_s;   /* one complete block (c1 > 0) */
    double fixed_s;   /* per process outside its usable blocks (c0 >= 0): its CPU outside the
                       blocks, the blocks before a steady state, the harness's time around it */
    double harness_s; /* of fixed_s, the harness's time around a run (not in its --target) */
} sw_level_costs;

typedef struct sw_levels {
    int processes;     /* chosen P (--runs) */
    double blocks;     /* usable blocks per process at P */
    double target_s;   /* the --target that gives them: budget / P - harness_s */
    double now_blocks; /* usable blocks per process of the current plan */
    double median_rel; /* median over cells of the predicted half-width at P over the current plan's */
    double min_rel, max_rel;
    int n_cells; /* cells the choice rests on */
} sw_levels;

/* The two-sided 95% t quantile on df degrees of freedom (df >= 1). */
double sw_plan_t975(int df);
/* The predicted half-width (log scale) of a cell with P processes of b blocks. */
double sw_plan_level_halfwidth(const sw_level_cell *c, int processes, double blocks);
/* Chooses P and --target for cells[0..n-1] within the current plan's
 * budget per cell, now_processes x (now_target_s + harness_s).  Returns 0,
 * or -1 with *why (static text) when no choice can be made (no cell, a cost
 * not positive, or no P leaving SW_LEVELS_MIN_BLOCKS blocks a process). */
int sw_plan_levels_choose(const sw_level_cell *cells, int n, const sw_level_costs *k, int now_processes,
                          double now_target_s, sw_levels *out, const char **why);
/* Reads the components of the analysed in-process sweep in dir: per cell of
 * dir/inprocess.csv with two or more processes and a tau, tau and s_block
 * (s from the pooled interval, which treats the cell's kept blocks as
 * independent: sqrt(kept_blocks) x log(pooled_hi / pooled_lo) / (2 x
 * 1.959964)), and the costs from dir/results.db's measured ok runs (the
 * medians over runs of a complete block's CPU time, of the run's CPU time
 * outside its complete blocks and of the harness's overhead; plus the mean
 * dropped_blocks per process).  Returns the number of cells (*cells fresh),
 * or -1 with the reason in err. */
int sw_plan_levels_read(const char *dir, sw_level_cell **cells, sw_level_costs *k, char *err, size_t errlen);
/* --levels-from DIR (design inprocess): reads DIR, chooses, and sets
 * o->runs and o->target; returns the text meta 'levels' stores and --plan
 * prints (fresh).  Bad input is a usage error (exit 2). */
char *sw_plan_levels_apply(sw_opts *o, const char *dir);

/* What the plan holds, counted as meta 'plan' counts it: every cell and
 * every run, the simulated part's included (n_slots from
 * sw_plan_schedule_all). */
typedef struct sw_plan_count {
    int cells, native_cells, sim_cells;
    int runs, native_runs, sim_runs;
} sw_plan_count;
void sw_plan_counts(const sw_cell *cells, int n_cells, const sw_slot *slots, int n_slots, sw_plan_count *c);

/* The wall-clock line of --plan --estimate (docs/HARNESS.md, "The plan and
 * its estimated duration"): the estimate above it counts CPU time (each
 * run its calibrated CPU time), which a run pinned to a CPU that other work
 * shares takes longer to get.  factor[k] is the wall time of the part's
 * calibration probes over their CPU time (timed part k = 0, simulated
 * part 1; <= 0: no probes, the part's wall time not estimated), load the
 * load averages now (NULL: unknown).  "estimate: wall time ...\n", fresh. */
char *sw_plan_wall_line(const sw_estimate *e, const double factor[2], const double *load, int cpu);
/* Sum of wall over sum of CPU: the factor above; 0 when cpu_ns is not positive. */
double sw_plan_wall_factor(int64_t wall_ns, int64_t cpu_ns);

/* Frees a cell array. */
void sw_plan_free_cells(sw_cell *cells, int n);

#endif /* SW_PLAN_H */

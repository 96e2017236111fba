/* sw_plan.h - the sweep's plan: its cells (workload x configuration) and
 * its schedule (which cell runs in which round, in which order).
 *
 * Invariants:
 *  - Each workload gets, in this order: one baseline cell; one alloc cell per
 *    (mode, period); one time cell per (clock, rate); one alloc+time cell per
 *    combined entry.  Cell labels are unique: "<workload>/<config>" with
 *    config "baseline", "alloc-fixed-4M", "alloc-poisson-4M", "time-1000Hz"
 *    (wall clock) or "time-cpu-1000Hz", "alloc-fixed-4M+time-1000Hz".
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
 */
#ifndef SW_PLAN_H
#define SW_PLAN_H

#include <stdint.h>
#include "sw_opts.h"

typedef struct sw_cell {
    int id;               /* cell_id in results.db: 1 .. n in plan order */
    char *workload;       /* workload name */
    char *kind;           /* "baseline", "alloc", "time" or "alloc+time" */
    uint64_t alloc_period; /* bytes; 0 = no allocation sampling */
    const char *alloc_mode; /* "fixed", "poisson" or "" */
    unsigned time_hz;     /* 0 = no time sampling */
    const char *time_clock; /* "wall", "cpu" or "" */
    uint64_t size;        /* the workload's --size (0 until calibrated) */
    char *label;          /* unique, "<workload>/<config>" or "<workload>/d<D>/<config>" */
    char *args;           /* extra workload arguments ("--depth 16"), "" for none */
    unsigned depth;       /* the --depth of a depth cell, 0 for none */
} sw_cell;

typedef struct sw_slot {
    int seq;     /* 1-based position in the execution order */
    int cell;    /* index into the cell array (cell id - 1) */
    int round;   /* database round: <= 0 warm-up, 1..runs measured */
    int pass;    /* 0-based schedule round (warm-up rounds count too) */
} sw_slot;

/* Builds the cells for the given workloads from the options.  Returns the
 * number of cells; *out receives a fresh array.  Sizes are left 0. */
int sw_plan_cells(const sw_opts *o, char *const *workloads, int n_workloads, sw_cell **out);
/* Builds the schedule of warmup + runs rounds over n_cells cells.  Returns
 * the number of slots ((warmup + runs) * n_cells); *out receives them. */
int sw_plan_schedule(int n_cells, int warmup, int runs, uint64_t seed, sw_slot **out);
/* The database round of schedule round pass (0-based): pass - warmup + 1. */
int sw_plan_db_round(int pass, int warmup);
/* Frees a cell array. */
void sw_plan_free_cells(sw_cell *cells, int n);

#endif /* SW_PLAN_H */

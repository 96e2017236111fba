/* st_costfit.h - the sweep's per-sample costs by regression: one fit per workload, sampling kind and metric.
 *
 * Invariants:
 *  - One fit per (workload, kind, metric) with a matrix baseline (depth
 *    NaN) and at least one sampling cell of that kind: kind "alloc" fits
 *    the workload's alloc cells (any mode) on x = alloc_samples, kind
 *    "time" its time cells (any clock) on x = time_samples; the baseline's
 *    runs have x = 0.  Depth cells and alloc+time cells are left out.
 *    Where a workload's time cells have several time sampler's modes (sweep
 *    --time-modes signal,thread), one time fit per mode (by_mode 1), so
 *    each time sampler's per-sample cost is its own; otherwise one time fit
 *    of every time cell, time_mode their one mode (a cell without a mode
 *    counted as the signal's).
 *    Metrics: wall time (wall_ns), CPU time (user_ns + sys_ns, the same
 *    source for every run of the fit), and the "instructions" counter
 *    when every run of the fit has it.
 *  - The simulated part (an->sim, st_sim.h) is fitted by the same code on
 *    its ok runs: per workload with a simulated baseline, kind "alloc" its
 *    fixed-mode allocation cells, kind "time" its wall-clock time cells,
 *    metrics sim_instructions (sim::Ir) and sim_est_cycles
 *    (sim::est-cycles); such a fit has no st_result (baseline and cells are
 *    NULL).
 *  - Fits are ordered by workload, then kind (alloc, time), then time
 *    mode (one fit of all, else signal, thread), then metric
 *    (the order of st_fit_metric).
 *    A fit's cells are ordered by their median x; group 0 is the baseline,
 *    group k + 1 is cells[k] (residual[] uses the same numbering).
 *  - Seeds: opts.seed XOR fnv1a64("fit:" workload "/" kind "/" metric), kind
 *    "time-<mode>" for a fit of one mode among several, so
 *    a fit does not depend on the other fits or cells of the sweep.
 *  - A used run whose x or y is not a number is left out and counted
 *    (skipped), with a note.
 */
#ifndef ST_COSTFIT_H
#define ST_COSTFIT_H

#include "st_analysis.h"
#include "st_levels.h"
#include "st_regress.h"
#include "st_verdict.h"

/* The metrics fitted: of the timed cells (wall, cpu, instructions: the first
 * ST_FIT_NATIVE), and of the simulated part (sim_instructions and
 * sim_est_cycles: valgrind's exact counts, st_sim.h). */
typedef enum st_fit_metric {
    ST_FIT_WALL = 0,
    ST_FIT_CPU,
    ST_FIT_INSTR,
    ST_FIT_SIM_IR,
    ST_FIT_SIM_CYC,
    ST_FIT_NMETRICS
} st_fit_metric;
#define ST_FIT_NATIVE 3

typedef struct st_costfit {
    const char *workload;  /* owned by the sweep */
    const char *kind;      /* "alloc" or "time" (static) */
    const char *time_mode; /* a time fit's time sampler's mode, "signal" or "thread"; "" for alloc (static) */
    int by_mode;           /* 1: a time fit of one mode among several (the summary's "time (signal)") */
    st_fit_metric metric;
    const st_result *baseline; /* NULL for a fit of the simulated part */
    const st_result **cells;   /* the sampling cells in the fit, by median x (NULL: simulated) */
    size_t ncells;
    double *cell_x;        /* [ncells]: median samples per run */
    double *cell_y;        /* [ncells]: median y */
    st_reg_fit fit;        /* units of y (ns or instructions) per sample */
    size_t skipped;        /* used runs left out (x or y not a number) */
    st_reg_est norm;       /* 1 + cost * 1000 samples/s (time metrics; NaN for counts) */
    st_reg_est fixed_frac; /* fixed / base */
    double confidence;     /* of its intervals */
    /* The blocked design: the same fit on the pairs (each run minus the
     * adjacent baseline run of its block; the baseline's A/A blocks at x = 0):
     * the block's shared noise cancels in each pair. */
    int paired;       /* 1: pfit, pairs and pnorm are set */
    size_t pairs;     /* pairs in it */
    st_reg_fit pfit;  /* its cost is per sample; its fixed cost is the intercept minus the A/A pairs' median */
    st_reg_est pnorm; /* 1 + pfit cost * 1000 samples/s */
    /* A replicated sweep (st_replicates.h, st_reps_apply): fit.cost, norm,
     * pfit.cost and pnorm are then over the replicates (level replicates),
     * the other estimates stay the pooled fit's (over runs within cells). */
    double cost_se, pcost_se; /* the standard errors of fit.cost and pfit.cost at their level (the bootstrap's
                               * over runs within cells, st_reg_boot_se, or the combination's over replicates) */
    st_level level;           /* of cost, norm, pfit.cost, pnorm: ST_LEVEL_PROCESSES or ST_LEVEL_REPLICATES */
    size_t rep_k;             /* replicates combined into cost (0: none; the note gives its components) */
    int has_rep_diff;         /* a wall-time time fit: rep_diff is set */
    st_reg_est rep_diff;      /* alloc minus time per 1000 samples/s over replicates (st_costfit_norm_difference) */
    double rep_diff_se;       /* its standard error */
    char note[256];
} st_costfit;

typedef struct st_costfits {
    st_costfit *fits;
    size_t n;
} st_costfits;

/* Fits every (workload, kind, metric) of an; resamples and confidence
 * from opts. */
void st_costfits_compute(const st_analysis *an, const st_reg_opts *opts, st_costfits *out);
void st_costfits_free(st_costfits *f);

/* One fit of workload's (kind, metric) on only the cells whose period (alloc)
 * or rate (time) is among only[0..nonly-1]: the validation compares a sweep
 * with the D = 0 sweep's cells of the same settings.  Returns 1 and fills
 * out (free with st_costfit_free), or 0 if there is no such cell. */
int st_costfit_subset(const st_analysis *an, const char *workload, const char *kind, st_fit_metric metric,
                      const int64_t *only, size_t nonly, const st_reg_opts *opts, st_costfit *out);
void st_costfit_free(st_costfit *c);
/* Appends "; " and the formatted text to c's note (nothing once it is full). */
void st_costfit_note(st_costfit *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The fit of (workload, kind, metric), or NULL. */
const st_costfit *st_costfit_find(const st_costfits *f, const char *workload, const char *kind, st_fit_metric metric);
/* The same of one time mode (mode NULL: any, as st_costfit_find). */
const st_costfit *st_costfit_find_mode(const st_costfits *f, const char *workload, const char *kind, const char *mode,
                                       st_fit_metric metric);

/* Outputs (docs/STATISTICS.md): regress.csv and the summary.md section
 * (plotdata/regress.dat is a row of stats/st_plotdata.h, written by st_report.c). */
#include <stdio.h>
/* regress.csv's column verdict: on a wall-time row, the allocation-vs-time
 * verdict of the interval of the difference of the workload's two wall-time
 * fits' normalized overheads (st_costfit_norm_difference, st_norm_verdict
 * with margin), against the row's own time mode on a time row and the
 * first time fit on an alloc row; "na" on the other rows.  norm_diff,
 * norm_diff_lo, norm_diff_hi after it: that difference and its interval.
 * The last column, time_mode, is the fit's (st_costfit). */
void st_costfit_write_csv(FILE *f, const st_costfits *fits, double margin);
/* alloc minus time normalized overhead per 1000 samples/s of two wall-time
 * fits, with the percentile interval of the difference of their bootstrap
 * replicates paired by index (independent resamples; neither slope reads
 * the shared baseline). */
st_reg_est st_costfit_norm_difference(const st_costfit *a, const st_costfit *t);
/* Its standard error: over replicates the combination's, else the SD of the
 * difference of the two fits' bootstrap costs (st_reg_boot_se), per 1000
 * samples/s. */
double st_costfit_norm_difference_se(const st_costfit *a, const st_costfit *t);
/* That verdict for one workload (ST_NR_NA without both fits or intervals). */
st_normres st_costfit_verdict(const st_costfits *fits, const char *workload, double margin);
/* The same against the time fit of one mode (NULL: the first time fit). */
st_normres st_costfit_verdict_mode(const st_costfits *fits, const char *workload, const char *mode, double margin);
void st_costfit_write_md(FILE *f, const st_analysis *an);

/* "wall", "cpu", "instructions", "sim_instructions", "sim_est_cycles". */
const char *st_fit_metric_name(st_fit_metric m);

#endif

/* st_noise.h - what the runs say about the machine's noise: drift over the
 * sweep, bimodality of each baseline, autocorrelation of residuals in
 * execution order, episodes, and the recorded covariates (docs/STATISTICS.md,
 * "Noise").
 *
 * Invariants:
 *  - A run's residual is log(wall_ns) minus the median log(wall_ns) of its
 *    cell's used runs; residuals are ordered by runs.seq (execution order).
 *  - st_lag1 is sum_t (x_t - m)(x_t+1 - m) / sum_t (x_t - m)^2, m the mean;
 *    NaN below 3 values or with zero variance.
 *  - st_bimodality is the sample bimodality coefficient
 *    (G1^2 + 1) / (G2 + 3 (n-1)^2 / ((n-2)(n-3))), G1 and G2 the
 *    bias-corrected sample skewness and excess kurtosis; above 5/9 (a uniform
 *    distribution's value) it suggests two modes.  NaN below 4 values or
 *    with zero variance.
 *  - An episode is a maximal stretch of at least ST_NOISE_EPISODE_RUNS
 *    consecutive runs (execution order) whose residuals all exceed
 *    log(1 + ST_NOISE_EPISODE_SLOW).
 *  - Drift of a baseline: the median wall time of its last third of runs
 *    (execution order) over that of its first third.
 *  - Covariates that are absent are NaN and counted out; nothing is
 *    imputed.
 */
#ifndef ST_NOISE_H
#define ST_NOISE_H

#include "st_analysis.h"

#include <stddef.h>

#define ST_NOISE_EPISODE_RUNS 5
#define ST_NOISE_EPISODE_SLOW 0.10
#define ST_NOISE_MAX_EPISODES 8

typedef struct st_noise_baseline {
    const st_result *r; /* the baseline's result */
    size_t n;           /* its used runs */
    double drift;       /* last third / first third median wall time, NaN below 6 runs */
    double bimodality;  /* bimodality coefficient of its log wall times */
} st_noise_baseline;

typedef struct st_noise {
    size_t nruns;                  /* used runs with a residual */
    double lag1;                   /* lag-1 autocorrelation of the residuals in execution order */
    double resid_mad;              /* median absolute residual (log scale) */
    size_t episodes, episode_runs; /* episodes and the runs in them */
    int64_t ep_first[ST_NOISE_MAX_EPISODES], ep_last[ST_NOISE_MAX_EPISODES]; /* seq ranges of the first ones */
    size_t ncov;                                                             /* runs with every covariate */
    double steal_ms_med, steal_ms_max;                                       /* steal of the run's CPU per run, ms */
    double busy_share_med;                   /* other CPUs' busy time / the run's wall time, median */
    double nivcsw_med, nivcsw_max;           /* involuntary context switches per run */
    double load_min, load_max;               /* 1-minute load average at the runs' starts */
    double corr_steal, corr_busy, corr_load; /* Pearson r of residual with steal share, busy share, load */
    st_noise_baseline *baselines;            /* one per baseline result */
    size_t nbaselines;
} st_noise;

double st_lag1(const double *x, size_t n);
double st_bimodality(const double *x, size_t n);
/* Pearson correlation of x and y over the pairs where both are finite; NaN below 3 pairs. */
double st_pearson(const double *x, const double *y, size_t n);

void st_noise_compute(const st_analysis *an, st_noise *out);
void st_noise_free(st_noise *n);

#endif

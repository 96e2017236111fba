/* st_regress.h - per-sample cost by a robust regression of run time on samples taken.
 *
 * The model (docs/STATISTICS.md, "Per-sample cost by regression"): a run
 * that takes x samples lasts
 *     y = base + fixed * [sampling on] + cost * x + noise,
 * where base is the baseline's time, fixed the cost of turning sampling on
 * at all (set-up, profile file, heap layout) and cost the price of one
 * sample.  The runs come in groups (the cells of one workload and one
 * sampling kind, plus that workload's baseline).
 *
 * Invariants:
 *  - cost is the weighted Theil-Sen (Sievers-Scholz) slope: the weighted
 *    median of the pairwise slopes (y_j - y_i) / (x_j - x_i), weight
 *    |x_j - x_i|, over pairs of runs from different groups, both with
 *    sampling on.  It minimises sum |(y_j - y_i) - b (x_j - x_i)| over those
 *    pairs (Jaeckel's rank dispersion with Wilcoxon scores), so a single run
 *    moves it by a bounded amount however far it lies, and pairs of nearly
 *    equal x, whose slopes are mostly noise, count little.  Baseline runs
 *    are left out of the slope so the fixed cost cannot leak into it; with
 *    fewer than two sampling groups the baseline's pairs are used instead
 *    and fixed is undefined (why says so).
 *  - intercept = median over the sampling runs of y - cost * x; base =
 *    median of the baseline's y; fixed = intercept - base.
 *  - Residuals: per group, the median of y - intercept - cost * x (for the
 *    baseline: median y - intercept = -fixed).  A cost that is not linear
 *    in x shows as residuals that grow or change sign with x.
 *  - Intervals: percentile intervals from a bootstrap that resamples runs
 *    with replacement within each group (the design, i.e. which cells, is
 *    kept), n_g - 1 of a group's n_g runs (Rao-Wu rescaling, so the spread
 *    is not understated with few runs a cell), with gsl_rng_mt19937 seeded
 *    with opts.seed.
 *    Same inputs and seed, same outputs, bit for bit.
 *  - When an interval exists: as for every interval of the summary
 *    (st_boot.h), only when each group an estimate reads has at least
 *    ST_BOOT_MIN_RUNS (3) runs: cost and intercept read the sampling groups
 *    (and the baseline when the slope uses it), base the baseline, fixed all
 *    of them.  Otherwise its lo and hi are NaN and no_ci says why.  (A group
 *    of one run is drawn whole in every resample, so an interval over it
 *    would only show the spread of the other groups.)
 *  - Exact repeats: when every group's runs repeat exactly (the same x and
 *    y: the simulated part's counts), nothing is resampled and every
 *    interval is the estimate itself, as is every replicate of the cost.
 *    Resamples of identical runs differ only in multiplicities, which with
 *    groups of unequal size (a failed run) move the medians to other
 *    values of the data: intervals that excluded their own estimate.
 *  - Nothing is dropped: every run given is in the fit.  NaN values of x or
 *    y are refused by the caller (st_fit_runs counts them as not used).
 */
#ifndef ST_REGRESS_H
#define ST_REGRESS_H

#include <stddef.h>
#include <stdint.h>

/* The runs of one fit: x[i] samples, y[i] time (or any cost metric),
 * group[i] in 0 .. ngroups-1; baseline is the baseline's group or -1. */
typedef struct st_reg_data {
    size_t n;
    const double *x, *y;
    const size_t *group;
    size_t ngroups;
    long baseline;
} st_reg_data;

typedef struct st_reg_opts {
    size_t resamples;  /* B >= 100 */
    double confidence; /* in (0, 1) */
    uint64_t seed;
} st_reg_opts;

typedef struct st_reg_est {
    double est, lo, hi; /* estimate and percentile interval; NaN when undefined */
} st_reg_est;

typedef struct st_reg_fit {
    size_t n;               /* runs in the fit */
    size_t sampling_groups; /* groups with sampling on */
    int baseline_in_slope;  /* 1 if the slope had to use baseline pairs */
    st_reg_est cost;        /* per sample, units of y */
    st_reg_est intercept;   /* at x = 0, sampling on */
    st_reg_est base;        /* baseline median */
    st_reg_est fixed;       /* intercept - base */
    double *residual;       /* [ngroups]: median residual of each group, NaN if empty */
    double *boot_cost;      /* [resamples]: cost on each resample (NaN where undefined) */
    size_t resamples;
    const char *why;   /* static text when cost or fixed is undefined, else NULL */
    const char *no_ci; /* static text when an estimate has no interval (a group of fewer than 3 runs), else NULL */
} st_reg_fit;

/* Fits d and fills fit (free it with st_reg_fit_free).  Never fails
 * (allocation failure exits, st_util.h); an undefined estimate is NaN with
 * fit->why saying why. */
void st_reg_fit_runs(const st_reg_data *d, const st_reg_opts *opts, st_reg_fit *fit);

void st_reg_fit_free(st_reg_fit *fit);

/* The weighted Theil-Sen slope of the pairs of (x, y) among the n points
 * whose groups differ (group may be NULL: all pairs); skip_group's points
 * (-1: none) are left out.  NaN if every pair has equal x.  Exposed for
 * the tests. */
double st_reg_slope(size_t n, const double *x, const double *y, const size_t *group, long skip_group);

/* Percentile interval of the difference of two fits' costs, a - b, from
 * their bootstrap replicates paired by index (independent resamples of
 * independent data): the interval of the validation's recovered cost.  None
 * (NaN bounds) when either cost has no interval. */
st_reg_est st_reg_cost_difference(const st_reg_fit *a, const st_reg_fit *b, double confidence);

/* The bootstrap standard error of a's cost (of a's minus b's, paired by index
 * as above, when b is not NULL): the SD (n - 1) of the resamples' costs where
 * they are finite.  NaN below 2 such resamples. */
double st_reg_boot_se(const st_reg_fit *a, const st_reg_fit *b);

#endif

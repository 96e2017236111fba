/* st_paired.h - paired comparisons: one value per block (the log of a cell's
 * run time over its adjacent baseline run's), a location estimate over the
 * blocks, a one-sample bootstrap BCa interval, and the verdict with an
 * equivalence margin (docs/STATISTICS.md, "Paired comparisons").
 *
 * Invariants:
 *  - Estimators of a sample d[0..n-1]: ST_LOC_HL, the Hodges-Lehmann
 *    estimate (the median of the n(n+1)/2 Walsh averages (d_i + d_j) / 2,
 *    i <= j; the analysis's choice); ST_LOC_MEDIAN, the sample median;
 *    ST_LOC_MEAN, the arithmetic mean (of log-ratios: the log of the
 *    geometric mean ratio).  Medians are type-7 quantiles at 0.5 (the mean
 *    of the two middle values for even counts).
 *  - The one-sample bootstrap draws n blocks with replacement B times
 *    (gsl_rng_mt19937 seeded as st_bootstrap seeds it, the same draws
 *    gsl_rng_uniform_int(rng, n) in order) and evaluates the estimator on
 *    each resample.  The interval comes from st_boot_interval: BCa with
 *    z0 from the resamples and the jackknife acceleration
 *    a = sum U_i^3 / (6 (sum U_i^2)^1.5), U_i = (n - 1)(mean_j t_(j) - t_(i)),
 *    t_(i) the estimate without block i; the same fallbacks.  No interval
 *    with fewer than ST_BOOT_MIN_RUNS blocks or a non-finite value.  Same
 *    inputs and seed, same outputs, bit for bit.
 *  - Verdicts: "slower" when the interval's lower end is above 1, "faster"
 *    when its upper end is below 1 (the interval excludes 1, whatever its
 *    width); else "equivalent" (no effect above the margin M) when the whole
 *    interval lies within [1 - M, 1 + M]; else "not resolved".  No interval
 *    is "n/a".
 */
#ifndef ST_PAIRED_H
#define ST_PAIRED_H

#include "st_boot.h"

#include <stddef.h>

typedef enum st_loc { ST_LOC_HL = 0, ST_LOC_MEDIAN, ST_LOC_MEAN } st_loc;

typedef enum st_verdict {
    ST_V_NA = 0,     /* no interval */
    ST_V_SLOWER,     /* interval above 1 */
    ST_V_FASTER,     /* interval below 1 */
    ST_V_EQUIVALENT, /* interval within [1 - M, 1 + M]: no effect above M */
    ST_V_UNRESOLVED, /* none of the above */
} st_verdict;

/* The estimator loc of d[0..n-1] (n >= 1); NaN for n == 0. */
double st_loc_estimate(st_loc loc, const double *d, size_t n);

/* The Hodges-Lehmann estimate of d[0..n-1] (n >= 1). */
double st_hodges_lehmann(const double *d, size_t n);

/* One-sample bootstrap of the estimator over d[0..n-1]: out->est is the
 * estimate, [lo, hi] its interval, all on the scale of d.  Never fails. */
void st_paired_bootstrap(const double *d, size_t n, st_loc loc, const st_boot_opts *opts, st_interval *out);

/* The jackknife acceleration of the estimator on d (NaN if undefined). */
double st_paired_accel(st_loc loc, const double *d, size_t n);

/* The verdict of a ratio interval [lo, hi] with margin M (0.02 = 2%). */
st_verdict st_paired_verdict(const st_interval *ratio, double margin);

/* The verdict in words: "slower", "faster", "no effect above 2%", "not
 * resolved", "n/a" (buf holds the formatted margin). */
const char *st_verdict_text(st_verdict v, double margin, char *buf, size_t size);

/* Maps a log-scale interval to a ratio one: est, lo and hi through exp(). */
void st_interval_exp(st_interval *iv);

/* The adaptive rule (sweep --halfwidth): a cell gets more blocks while it
 * has fewer than min_blocks, or fewer than max_blocks and the half-width
 * (hi - lo) / 2 of its paired ratio's interval (exp of the HL interval of
 * its log-ratios) is above halfwidth (0.02 = 2%) or undefined. */
typedef struct st_adaptive {
    double halfwidth;  /* target half-width of the ratio interval */
    size_t min_blocks; /* never stop before (30 in the sweep) */
    size_t max_blocks; /* never go beyond */
} st_adaptive;

/* 1 if the cell with log-ratios d[0..n-1] needs more blocks; *iv (may be
 * NULL) receives the ratio interval it judged (none below min_blocks). */
int st_adaptive_more(const double *d, size_t n, const st_adaptive *rule, const st_boot_opts *opts, st_interval *iv);

/* Coverage of the rule by simulation: each experiment draws log-ratios
 * true_log + noise * e, e standard normal (heavy = 0) or Student t with 3
 * degrees of freedom scaled to unit variance (heavy = 1), one block at a
 * time from rule.min_blocks on, stops by st_adaptive_more, and checks
 * whether the final interval contains exp(true_log).  Deterministic for a
 * seed. */
typedef struct st_adaptive_sim {
    size_t experiments, covered, above, below; /* above: the interval lies above the truth */
    size_t at_max;                             /* experiments that stopped at max_blocks */
    double mean_blocks;                        /* blocks per experiment */
    double mean_halfwidth;
} st_adaptive_sim;

void st_adaptive_simulate(const st_adaptive *rule, double true_log, double noise, int heavy, size_t experiments,
                          size_t resamples, uint64_t seed, st_adaptive_sim *out);

#endif

/* st_levels.h - intervals at the level of processes and replicates: several
 * estimates of one quantity, each with its own standard error, combined by a
 * random-effects model (docs/STATISTICS.md, "Levels").
 *
 * Invariants:
 *  - Units (processes of an in-process cell, replicates of a sweep) are
 *    exchangeable draws: est_i = mu + u_i + e_i, u_i ~ (0, tau^2) the
 *    unit's own deviation, e_i ~ (0, se_i^2) its within-unit error.
 *  - Heterogeneity: Cochran's Q = sum w_i (est_i - fixed-effect mean)^2,
 *    w_i = 1 / se_i^2, with p = P(chi2_(k-1) > Q); I^2 = max(0, (Q - (k -
 *    1)) / Q).  tau^2 by Paule and Mandel: the tau^2 at which the
 *    generalized Q, sum (est_i - mu(tau^2))^2 / (se_i^2 + tau^2), equals its
 *    expectation k - 1 (0 when Q at 0 is below it), found by bisection
 *    (below).  DerSimonian and Laird's one-step moment estimate was the
 *    first choice; with within-unit errors much smaller than tau and
 *    uneven, it weighs the units by 1 / se_i^2 and missed a known tau of
 *    0.02 by 30% on tests/stats/mkreplicated.py's sweep, where Paule-Mandel
 *    weighs them by 1 / (se_i^2 + tau^2).
 *  - The interval: mu = sum w*_i est_i / sum w*_i, w*_i = 1 / (se_i^2 +
 *    tau^2); mu +- t_(k-1, 1 - alpha/2) * SE, SE^2 = max(q, 1) / sum w*_i,
 *    q = sum w*_i (est_i - mu)^2 / (k - 1): the Hartung-Knapp interval,
 *    never narrower than the plain random-effects one (SE^2 = 1 / sum w*_i),
 *    with a t reference (Knapp and Hartung 2003; Jackson et al. 2017).  Chosen by simulation
 *    (make bench-stats-levels): with 4 units it covers at least 95% for
 *    every tau, where the plain Hartung-Knapp interval, the two-stage
 *    bootstrap and a normal reference do not.
 *  - Without a standard error for every unit (a process with fewer than 3
 *    blocks, a degenerate interval), equal weights: mu = the mean, SE = the
 *    standard deviation over sqrt(k), t_(k-1); no heterogeneity statistic.
 *  - With tau^2 and its degrees of freedom given (a family's pooled
 *    component), equal weights: mu = the mean, SE = sqrt(sum (se_i^2 +
 *    tau^2)) / k, t_df, weighted = 0 (Cochran's Q still computed).
 *    Inverse-variance weights from SEs estimated from 12 blocks give the
 *    replicate whose SE came out smallest the most weight, and switching to
 *    them only where the pooled tau^2 is positive made the interval jump
 *    where an estimated tau^2 leaves 0 (results/reference: x0.54); equal
 *    weights covered at least as much as either on results/reference's
 *    resampled replicates and on every synthetic family
 *    (docs/STATISTICS.md, "Checking the replicates against each other";
 *    scripts/replicate-check.py --coverage).
 *  - The interval of an estimated tau^2 (Q-profile, Viechtbauer 2007): the
 *    tau^2 at which the generalized Q, sum (est_i - mu(tau^2))^2 / (se_i^2 +
 *    tau^2), equals the chi-square quantiles of k - 1 degrees of freedom at
 *    1 - alpha/2 and alpha/2 (0 where Q at 0 is already below), found by
 *    bisection to 1e-12 relative.  A family's: the sum of its cells'
 *    generalized Q against its degrees of freedom.
 *  - No interval below 2 units; the caller then keeps the one unit's own
 *    interval (at the level below).
 *  - A replicate's standard error of a Hodges-Lehmann estimate over its
 *    blocks (st_hl_kernel_se) is the estimator's asymptotic one, 1 /
 *    (sqrt(12 n) * integral f^2) (Lehmann 1975), with integral f^2 that of
 *    the Gaussian kernel density estimate fhat of the n blocks:
 *    (1 / n^2) sum_i sum_j phi_(h sqrt 2)(d_i - d_j), phi_s the normal
 *    density of SD s, the bandwidth h = 0.9 min(SD, IQR / 1.349) n^(-1/5)
 *    (Silverman's rule; the SD alone when the IQR is 0).  No resampling:
 *    the same blocks give the same SE whatever the seed.  Chosen by
 *    make bench-hl-se (tests/stats/hl_se_bench.c) on results/reference's
 *    blocks split at random into replicates of 12, where a right SE gives
 *    z's RMS over pairs of replicates 1: the kernel SE 0.973 (0.95-1.01 by
 *    family), the jackknife 1.013 (0.99-1.08); the bootstrap SE
 *    (st_hl_boot_se, below; the replicates' SE before) 0.790, the exact
 *    Walsh interval's width over 2 z 0.752 and the plain SE of the mean
 *    0.781 overstate the SD of a 12-block estimate on that heavy-tailed
 *    noise (docs/STATISTICS.md, "The standard error of a replicate").
 *    No value (NaN) below 3 blocks or with a non-finite block.
 *  - st_hl_boot_se, the bootstrap SE of the same estimate: the SD of the
 *    estimate over B resamples of the blocks (gsl_rng mt19937 seeded with
 *    the 32-bit fold of the seed, draws gsl_rng_uniform_int(rng, n) in
 *    order), times sqrt(n / (n - 1)) (the factor that makes the bootstrap
 *    SD of a mean its usual standard error s / sqrt(n)).
 */
#ifndef ST_LEVELS_H
#define ST_LEVELS_H

#include <stddef.h>
#include <stdint.h>

#include "st_boot.h"

/* The level an interval covers: what its resampling or its model treats
 * as independent. */
typedef enum st_level {
    ST_LEVEL_BLOCKS = 0, /* blocks (within one process, or pairs of adjacent runs of one sweep) */
    ST_LEVEL_PROCESSES,  /* processes (runs) of one sweep */
    ST_LEVEL_REPLICATES  /* replicates: independent sweeps, seeds, nodes or days */
} st_level;

/* "blocks", "processes", "replicates". */
const char *st_level_name(st_level l);

typedef struct st_re {
    size_t k;                /* units combined */
    double est;              /* mu (NaN without units) */
    double lo, hi;           /* the interval (NaN below 2 units) */
    double se, df;           /* its standard error and t degrees of freedom */
    double q, q_p, i2;       /* Cochran's Q, its p-value, I^2 (NaN when not computable) */
    double tau2;             /* the between-unit variance used (estimated, or given) */
    double tau2_lo, tau2_hi; /* estimated: its Q-profile interval (Viechtbauer 2007), NaN when given or not weighted */
    int weighted;            /* 1: inverse-variance weights, 0: equal weights (no SE for a unit, or a given tau^2) */
    const char *why;         /* static text when there is no interval or no heterogeneity statistic, else NULL */
} st_re;

/* Combines est[0..k-1] with standard errors se[] (NaN or 0: not known) at
 * the confidence level.  tau2 < 0: estimated from the units; else used as
 * given with df degrees of freedom. */
void st_re_combine(const double *est, const double *se, size_t k, double tau2, double df, double confidence,
                   st_re *out);

/* The pooled between-unit variance of a family of cells with different
 * means (Paule-Mandel over the family): cell[i] in 0..ncells-1 says whose
 * unit i is; the tau^2 at which the sum over the cells (those with at least
 * 2 units, every one with a standard error) of their generalized Q equals
 * *df = sum_c (k_c - 1) (0: nothing to pool, NaN returned). */
double st_re_family_tau2(const double *est, const double *se, const size_t *cell, size_t n, size_t ncells, double *df);

/* The Q-profile interval at confidence of that pooled variance into *lo, *hi
 * (NaN when nothing is pooled). */
void st_re_family_tau2_ci(const double *est, const double *se, const size_t *cell, size_t n, size_t ncells,
                          double confidence, double *lo, double *hi);

/* The standard error an interval implies: (f(hi) - f(lo)) / (2 z), z the
 * normal quantile of the interval's confidence, f = log when logscale.
 * NaN without an interval; 0 for a degenerate one. */
double st_interval_se(const st_interval *iv, int logscale, double confidence);

/* Resamples of a unit's bootstrap standard error (st_unpaired_se; also
 * st_hl_boot_se's callers), or analyze's --resamples when fewer. */
#define ST_LEVEL_SE_RESAMPLES 2000

/* The bootstrap standard error of the Hodges-Lehmann estimate of d[0..n-1]
 * (above) from `resamples` resamples with the given seed.  Same inputs, same
 * output, bit for bit. */
double st_hl_boot_se(const double *d, size_t n, size_t resamples, uint64_t seed);

/* The normal distribution's interquartile range in SDs, 2 Phi^-1(0.75). */
#define ST_HL_IQR_NORMAL 1.3489795003921634

/* The kernel standard error of the Hodges-Lehmann estimate of d[0..n-1]
 * (above): 1 / (sqrt(12 n) * integral fhat^2), fhat the Gaussian kernel
 * density estimate of the blocks with Silverman's bandwidth.  NaN below 3
 * blocks or with a non-finite block, 0 when every block is equal. */
double st_hl_kernel_se(const double *d, size_t n);

/* The two-sided p-value of mu = null under the interval's reference
 * distribution (t_df, standardized by se); NaN without an interval. */
double st_re_pvalue(const st_re *r, double null);

/* The interval of r at another confidence level (a family's simultaneous
 * level, 1 - alpha / m): the same centre, se and df. */
void st_re_at(const st_re *r, double confidence, double *lo, double *hi);

#endif

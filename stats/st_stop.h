/* st_stop.h - the stopping rule of the adaptive rounds (sweep --halfwidth)
 * and the interval it gives (docs/STATISTICS.md, "Adaptive rounds: the
 * two-stage rule").
 *
 * Stopping when an interval happens to be narrow enough makes it too narrow:
 * the sequential rule (st_adaptive_more, st_paired.h: one more block while
 * the half-width is above the target) covered 0.927 on normal noise from
 * 10 planned blocks, the two-stage rule 0.945, and on results/reference's
 * block differences 0.933 against 0.953 (docs/STATISTICS.md, "Adaptive
 * rounds: the two-stage rule").  The two-stage rule decides once, from
 * the planned blocks (the pilot), and scales the pilot's precision (Stein's
 * two-stage procedure, 1945):
 *
 * Invariants:
 *  - Pilot: a cell's first n0 blocks (those of the planned rounds, n0 =
 *    sweep --runs), in block order.  Its paired interval (st_walsh.h,
 *    st_paired_interval: the exact Walsh-average interval of the
 *    Hodges-Lehmann estimate of the per-block log-ratios, from 6 blocks at
 *    95%) is taken as it is; a bootstrap one (fewer blocks: the BCa) is
 *    expanded about its estimate by kappa = t_{n0-1}((1 + C) / 2) sqrt(n0 /
 *    (n0 - 1)) / z((1 + C) / 2), C its level: a bootstrap interval is about
 *    z times the plug-in standard error, Stein's procedure needs t_{n0-1}
 *    times the unbiased one (with the BCa pilot at n0 = 30 and no
 *    expansion the rule covered 0.932 on normal noise; kappa is 1.061
 *    there).  h0 = (hi - lo) / 2 of that interval as a ratio.
 *  - Target: N = n0 when h0 <= H (the target half-width); else
 *    N = ceil(n0 (h0 / H)^2), the blocks at which the pilot's precision
 *    reaches H, at most max_blocks; max_blocks when the pilot has no
 *    interval.  N depends on the pilot's width only, never on blocks after
 *    it, so no later block enters the decision.
 *  - Interval of a cell with n >= n0 blocks: the estimate t_n of all n
 *    blocks with the pilot's distances to its own estimate scaled by
 *    sqrt(n0 / n): [t_n - (t_0 - lo_0) s, t_n + (hi_0 - t_0) s], s =
 *    kappa sqrt(n0 / n) (kappa 1 for an exact pilot), on the scale the
 *    estimator works on (log-ratios: then exp); with n = n0 the pilot's
 *    interval (expanded when a bootstrap one).  Its half-width is at most H when n = N.  A pilot of fewer than
 *    ST_BOOT_MIN_RUNS blocks has no interval, so the rule ran to the
 *    maximum whatever the data said: the plain interval of all n blocks.  With normal noise its
 *    coverage is the pilot's interval's (the pilot's width and the
 *    estimate of all blocks are independent, and N depends on the width
 *    alone), whatever N the rule chose.  The method stays
 *    the pilot's (bca, percentile, degenerate); no pilot interval gives
 *    none.
 *  - Simulation (st_stop_simulate): per experiment, blocks are drawn one at
 *    a time from a source (i.i.d. normal, Student t3 scaled to unit
 *    variance, or a committed sweep's block differences, st_synth.h) plus
 *    the true log-ratio; the rule decides as in the sweep; the final
 *    interval is judged against exp(true log-ratio).  Deterministic for a
 *    seed.
 */
#ifndef ST_STOP_H
#define ST_STOP_H

#include "st_paired.h"
#include "st_synth.h"
#include "st_walsh.h"

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

typedef enum st_stop_rule {
    ST_STOP_SEQUENTIAL = 0,  /* one more block while the half-width is above H; plain interval (before) */
    ST_STOP_TWO_STAGE,       /* N from the pilot; the scaled pilot interval (the sweep's rule) */
    ST_STOP_TWO_STAGE_PLAIN, /* N from the pilot; the plain interval of all N blocks (for comparison) */
    ST_STOP_CONFIRM,         /* N from the pilot; the plain interval of N blocks after the pilot alone */
    ST_STOP_NRULES
} st_stop_rule;

/* "sequential", "two-stage", "two-stage-plain", "confirm". */
const char *st_stop_rule_name(st_stop_rule r);
/* The rule named s into *r: 0, or -1. */
int st_stop_rule_parse(const char *s, st_stop_rule *r);

typedef struct st_stop {
    st_stop_rule rule;
    double halfwidth;  /* H, a fraction of the ratio (0.02 = 2%) */
    size_t pilot;      /* n0 */
    size_t max_blocks; /* at most this many blocks in all (the confirmatory batch included) */
    double confidence; /* of the pilot's interval (0.95) */
} st_stop;

/* The pilot's expansion kappa = t_{n0-1}((1 + C) / 2) sqrt(n0 / (n0 - 1)) /
 * z((1 + C) / 2) (1 for n0 < 2). */
double st_stop_expansion(size_t n0, double confidence);

/* The blocks a cell needs by the two-stage rule from its pilot interval
 * (on the log scale, as st_paired_bootstrap gives it; method NONE: no
 * interval): n0, ceil(n0 (h0 / H)^2) or max_blocks, as above, never below
 * n0 nor above max_blocks. */
size_t st_stop_target(const st_interval *pilot, const st_stop *s);

/* The two-stage interval of the Hodges-Lehmann estimate of d[0..n-1]
 * (n >= n0; the first n0 the pilot), on d's scale. */
void st_stop_interval(const double *d, size_t n, size_t n0, const st_boot_opts *opts, st_interval *out);

/* Where the simulated blocks come from. */
typedef struct st_stop_source {
    int kind;                 /* 0 normal, 1 Student t3 (unit variance), 2 a committed sweep's blocks */
    double noise;             /* kinds 0, 1: the standard deviation of a block's log-ratio */
    const st_nsource *blocks; /* kind 2: the blocks (their wall residuals), drawn by a circular block bootstrap */
} st_stop_source;

typedef struct st_stop_sim {
    size_t experiments, covered, above, below; /* above: the interval lies above the truth */
    size_t none;                               /* no interval */
    size_t extended;                           /* experiments with more blocks than the pilot */
    size_t at_max;                             /* experiments that reached max_blocks */
    double mean_blocks;                        /* blocks per experiment, the pilot's included */
    double mean_halfwidth;                     /* of the ratio interval */
} st_stop_sim;

/* The coverage of rule s by simulation, experiments of true log-ratio
 * true_log, bootstrap resamples `resamples` at 95%. */
void st_stop_simulate(const st_stop *s, double true_log, const st_stop_source *src, size_t experiments,
                      size_t resamples, uint64_t seed, st_stop_sim *out);

#endif /* ST_STOP_H */

/* st_walsh.h - the exact confidence interval of the Hodges-Lehmann estimate
 * from its Walsh averages (Tukey; Hollander and Wolfe, "Nonparametric
 * Statistical Methods", section 3.3), the paired comparisons' interval
 * (docs/STATISTICS.md, "Paired comparisons").
 *
 * Invariants:
 *  - The M = n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j, sorted:
 *    W_(1) <= ... <= W_(M).  The estimate is their median (st_hodges_lehmann).
 *  - With T+ the Wilcoxon signed-rank statistic and t the smallest value
 *    with P0(T+ >= t) <= alpha / 2 (alpha = 1 - confidence) under its null
 *    distribution (every sign equally likely), C = M + 1 - t and the
 *    interval is [W_(C), W_(M + 1 - C)].  It covers the centre of any
 *    continuous distribution symmetric about it with probability at least
 *    1 - 2 P0(T+ >= t) >= confidence, whatever its tails, for independent
 *    blocks: exact, not asymptotic, and free of resampling noise.  A block's
 *    log-ratio in a balanced block order is such a variable (swapping the
 *    order of a block flips the sign of its noise).
 *  - The null distribution is counted exactly (probabilities by the
 *    recursion p_k(t) = (p_{k-1}(t) + p_{k-1}(t - k)) / 2) for n up to
 *    ST_WALSH_EXACT_MAX; beyond, t is the normal approximation with
 *    continuity correction, ceil(n (n + 1) / 4 + z sqrt(n (n + 1) (2n + 1)
 *    / 24) + 1/2).
 *  - No interval (method none, why says so) when n < 1, a value is not
 *    finite, or n is too small for the level (2^-n > alpha / 2: fewer than
 *    6 blocks at 95%); every Walsh average equal gives the degenerate
 *    interval [t, t].  Same inputs, same outputs, bit for bit.
 */
#ifndef ST_WALSH_H
#define ST_WALSH_H

#include "st_boot.h"

#include <stddef.h>

#define ST_WALSH_EXACT_MAX 400

/* The exact interval of the Hodges-Lehmann estimate of d[0..n-1] at the
 * given confidence, on d's scale, into out (method ST_CI_EXACT). */
void st_walsh_interval(const double *d, size_t n, double confidence, st_interval *out);

/* The paired comparisons' interval of the Hodges-Lehmann estimate of
 * d[0..n-1]: the exact Walsh-average interval at opts->confidence when n
 * reaches that level (6 blocks at 95%), else the one-sample BCa
 * (st_paired_bootstrap with opts), which covers less than its level with
 * so few blocks. */
void st_paired_interval(const double *d, size_t n, const st_boot_opts *opts, st_interval *out);

/* C of the interval above for n blocks (0 when the level cannot be
 * reached), and the achieved coverage 1 - 2 P0(T+ >= M + 1 - C) into
 * *achieved (may be NULL). */
size_t st_walsh_rank(size_t n, double confidence, double *achieved);

#endif /* ST_WALSH_H */

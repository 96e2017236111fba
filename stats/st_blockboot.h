/* st_blockboot.h - resampling a dependent series: the circular block
 * bootstrap and its block length by Politis and White's rule.
 *
 * The coverage benchmark (stats/st_covbench.h) builds synthetic series from
 * observed ones; a run's noise on this machine is correlated with its
 * neighbours' (lag-1 autocorrelation of the residuals 0.56-0.60 in
 * results/reference), so values are drawn in blocks of consecutive ones.
 *
 * Invariants:
 *  - Autocovariances are R(k) = (1/n) sum_{t=0}^{n-1-k} (x_t - m)(x_{t+k} - m),
 *    m the mean; autocorrelations rho(k) = R(k) / R(0) (0 when R(0) = 0).
 *  - Block length (Politis and White 2004, with the correction of Patton,
 *    Politis and White 2009): K = max(5, ceil(sqrt(log10 n))), threshold
 *    c sqrt(log10(n) / n) with c = 2, m_max = ceil(sqrt(n)) + K; m_hat is
 *    the smallest m in 1 .. m_max - K with |rho(m + k)| below the threshold
 *    for every k = 1 .. K, else the largest lag k <= m_max with |rho(k)| at
 *    or above it; M = min(2 m_hat, m_max).  With the flat-top
 *    window lambda(t) = 1 for |t| <= 1/2, 2 (1 - |t|) for 1/2 < |t| <= 1:
 *    G = 2 sum_{k=1}^{M} lambda(k/M) k R(k), g = R(0) + 2 sum_{k=1}^{M}
 *    lambda(k/M) R(k); the circular block bootstrap's optimal length is
 *    (2 G^2 / ((4/3) g^2))^(1/3) n^(1/3), the stationary bootstrap's mean
 *    length (2 G^2 / (2 g^2))^(1/3) n^(1/3), each at most
 *    ceil(min(3 sqrt(n), n / 3)); M = 0, G = 0 or g = 0 give 1.  The length
 *    used is the circular one rounded up (at least 1).
 *  - The circular block bootstrap of a series of n values with block length
 *    L draws blocks of L consecutive indices from a uniformly drawn start,
 *    wrapping from n - 1 to 0, until out_n indices are drawn (the last block
 *    cut short).  Every observed value is then equally likely at every
 *    position (no end effects), so the synthetic series' marginal
 *    distribution is exactly the observed values' empirical one.
 */
#ifndef ST_BLOCKBOOT_H
#define ST_BLOCKBOOT_H

#include <gsl/gsl_rng.h>
#include <stddef.h>

/* R(k) of x[0..n-1] (n >= 1, k < n). */
double st_acov(const double *x, size_t n, size_t k);

/* rho(1), NaN for n < 3 or a constant series. */
double st_acf1(const double *x, size_t n);

/* Excess kurtosis m4 / m2^2 - 3 (moments about the mean, divided by n),
 * NaN for n < 4 or a constant series. */
double st_excess_kurtosis(const double *x, size_t n);

typedef struct st_blocklen {
    size_t m_hat, M; /* the last significant lag and the window's width */
    double cb, sb;   /* optimal circular block length and stationary mean length */
    size_t length;   /* ceil(cb), at least 1: the length used */
} st_blocklen;

/* Politis and White's block length of x[0..n-1]; n < 4 gives length 1. */
void st_blocklen_pw(const double *x, size_t n, st_blocklen *out);

/* Circular block bootstrap: out[0..out_n-1] receive indices into a series
 * of n >= 1 values, in blocks of length L >= 1 (L is cut to n). */
void st_cbb_indices(gsl_rng *rng, size_t n, size_t L, size_t *out, size_t out_n);

#endif /* ST_BLOCKBOOT_H */

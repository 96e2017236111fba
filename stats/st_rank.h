/* st_rank.h - the Mann-Whitney U rank test (two-sided), exact or normal approximation.
 *
 * Invariants:
 *  - U is the statistic of the first sample x against y: the number of
 *    pairs (x_i, y_j) with x_i > y_j plus half the tied pairs, which equals
 *    R_x - n_x (n_x + 1) / 2 with mid-ranks.  0 <= U <= n_x n_y.
 *  - The p-value is exact (the null distribution of U, by the recursion
 *    P(u; m, n) = m/(m+n) P(u - n; m - 1, n) + n/(m+n) P(u; m, n - 1)) when
 *    there are no ties and n_x n_y <= ST_MW_EXACT_MAX; otherwise the normal
 *    approximation with tie and continuity correction.  Every value tied
 *    gives p = 1 (no evidence of a difference).
 *  - p is two-sided, 2 min(P(U <= u), P(U >= u)) capped at 1.
 */
#ifndef ST_RANK_H
#define ST_RANK_H

#include <stddef.h>

#define ST_MW_EXACT_MAX 2500

typedef struct st_mw {
    double u;  /* U of x against y */
    double p;  /* two-sided p-value; NaN if either sample is empty */
    int exact; /* 1: exact null distribution, 0: normal approximation */
} st_mw;

/* Mann-Whitney U of x[0..nx-1] against y[0..ny-1] (inputs not modified). */
st_mw st_mann_whitney(const double *x, size_t nx, const double *y, size_t ny);

/* Exact two-sided p-value of U = u for samples of sizes m and n without
 * ties (m n <= ST_MW_EXACT_MAX; larger inputs give NaN). */
double st_mw_exact_p(double u, size_t m, size_t n);

#endif

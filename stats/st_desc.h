/* st_desc.h - descriptive statistics of small samples: quantiles, median, MAD, Tukey fences.
 *
 * Invariants:
 *  - Quantiles are type 7 (R's and numpy's default, GSL's
 *    gsl_stats_quantile_from_sorted_data): for sorted x[0..n-1] and
 *    probability p, h = (n - 1) p and q = x[floor h] + frac(h) (x[floor h + 1]
 *    - x[floor h]).  The median is q(0.5), so for even n the mean of the two
 *    middle values.
 *  - MAD is the raw median absolute deviation from the median (no 1.4826
 *    consistency factor).
 *  - Outliers are values strictly outside the Tukey fences
 *    [Q1 - 1.5 IQR, Q3 + 1.5 IQR]; they are only counted.
 *  - No function here modifies its input unless its name says "sorted" and it
 *    is documented to sort; none allocates except st_describe's scratch.
 *  - An empty sample has every statistic NaN and n = 0; callers report the
 *    reason, so a NaN never reaches an output unexplained.
 */
#ifndef ST_DESC_H
#define ST_DESC_H

#include <stddef.h>

/* The summary of one sample. */
typedef struct st_desc {
    size_t n;        /* number of values (NaN inputs are skipped) */
    double median;   /* q(0.5) */
    double q1, q3;   /* q(0.25), q(0.75) */
    double mad;      /* median |x - median| */
    double min, max; /* extremes */
    size_t outliers; /* values outside the Tukey fences */
} st_desc;

/* Type-7 quantile of sorted[0..n-1] at probability p in [0, 1].  n must be
 * at least 1. */
double st_quantile_sorted(const double *sorted, size_t n, double p);

/* Sorts x[0..n-1] ascending in place (NaN must not occur). */
void st_sort(double *x, size_t n);

/* Median of x[0..n-1] without modifying x; NaN when n is 0.  Allocates a
 * scratch copy (aborts with a message if memory runs out). */
double st_median(const double *x, size_t n);

/* Fills *d from x[0..n-1], skipping NaN values; x is not modified. */
void st_describe(const double *x, size_t n, st_desc *d);

#endif

/* st_desc.c - descriptive statistics: type-7 quantiles, median, MAD, Tukey outliers. */
#include "st_desc.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double st_quantile_sorted(const double *sorted, size_t n, double p) {
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = h - (double)lo;
    /* Written as a + f (b - a) so that equal neighbours give exactly a. */
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void st_sort(double *x, size_t n) {
    /* Insertion sort for the run counts we see (tens), qsort beyond. */
    if (n > 64) {
        qsort(x, n, sizeof *x, cmp_double);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        while (j > 0 && x[j - 1] > v) {
            x[j] = x[j - 1];
            j--;
        }
        x[j] = v;
    }
}

double st_median(const double *x, size_t n) {
    if (n == 0)
        return NAN;
    double *tmp = ct_xmalloc(n * sizeof *tmp);
    memcpy(tmp, x, n * sizeof *tmp);
    st_sort(tmp, n);
    double m = st_quantile_sorted(tmp, n, 0.5);
    free(tmp);
    return m;
}

void st_describe(const double *x, size_t n, st_desc *d) {
    double *v = ct_xmalloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            v[k++] = x[i];
    d->n = k;
    d->outliers = 0;
    if (k == 0) {
        d->median = d->q1 = d->q3 = d->mad = d->min = d->max = NAN;
        free(v);
        return;
    }
    st_sort(v, k);
    d->median = st_quantile_sorted(v, k, 0.5);
    d->q1 = st_quantile_sorted(v, k, 0.25);
    d->q3 = st_quantile_sorted(v, k, 0.75);
    d->min = v[0];
    d->max = v[k - 1];
    double iqr = d->q3 - d->q1;
    double lo = d->q1 - 1.5 * iqr, hi = d->q3 + 1.5 * iqr;
    for (size_t i = 0; i < k; i++)
        if (v[i] < lo || v[i] > hi)
            d->outliers++;
    for (size_t i = 0; i < k; i++)
        v[i] = fabs(v[i] - d->median);
    st_sort(v, k);
    d->mad = st_quantile_sorted(v, k, 0.5);
    free(v);
}

/* st_walsh.c - the exact Walsh-average interval of the Hodges-Lehmann estimate (invariants: st_walsh.h). */
#include "st_walsh.h"
#include "st_paired.h"
#include "st_util.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

size_t st_walsh_rank(size_t n, double confidence, double *achieved) {
    double alpha = 1.0 - confidence;
    if (achieved)
        *achieved = NAN;
    if (n == 0)
        return 0;
    size_t M = n * (n + 1) / 2, t;
    double tail = 0.0;
    if (n <= ST_WALSH_EXACT_MAX) {
        /* P0(T+ = u): each rank k is in T+ with probability 1/2, independently. */
        double *p = ct_xcalloc(M + 1, sizeof *p);
        p[0] = 1.0;
        for (size_t k = 1; k <= n; k++) {
            size_t top = k * (k + 1) / 2;
            for (size_t u = top; u >= k; u--)
                p[u] = 0.5 * (p[u] + p[u - k]);
            for (size_t u = 0; u < k && u <= top; u++)
                p[u] *= 0.5;
        }
        /* The smallest t with P0(T+ >= t) <= alpha / 2. */
        t = M + 1;
        for (size_t u = M + 1; u-- > 0;) {
            if (tail + p[u] > alpha / 2)
                break;
            tail += p[u];
            t = u;
        }
        free(p);
        if (t == M + 1)
            return 0;
        if (achieved)
            *achieved = 1.0 - 2.0 * tail;
    } else {
        double dn = (double)n, z = gsl_cdf_ugaussian_Pinv(1.0 - alpha / 2);
        t = (size_t)ceil(dn * (dn + 1) / 4 + z * sqrt(dn * (dn + 1) * (2 * dn + 1) / 24) + 0.5);
        if (achieved)
            *achieved = confidence;
    }
    return M + 1 - t;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void st_walsh_interval(const double *d, size_t n, double confidence, st_interval *out) {
    *out = (st_interval){NAN, NAN, NAN, ST_CI_NONE, NULL, NAN, NAN};
    if (n == 0) {
        out->why = "no blocks";
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i])) {
            out->why = "a block's value is not finite: no interval";
            return;
        }
    out->est = st_hodges_lehmann(d, n);
    size_t C = st_walsh_rank(n, confidence, NULL);
    if (C == 0) {
        out->why = "too few blocks for an exact interval at this level (6 at 95%)";
        return;
    }
    size_t M = n * (n + 1) / 2, k = 0;
    double *w = ct_xmalloc(M * sizeof *w);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[k++] = 0.5 * (d[i] + d[j]);
    qsort(w, M, sizeof *w, cmp_double);
    out->lo = w[C - 1];
    out->hi = w[M - C];
    out->method = w[0] == w[M - 1] ? ST_CI_DEGENERATE : ST_CI_EXACT;
    free(w);
}

void st_paired_interval(const double *d, size_t n, const st_boot_opts *opts, st_interval *out) {
    if (n >= ST_BOOT_MIN_RUNS && st_walsh_rank(n, opts->confidence, NULL) == 0) {
        st_paired_bootstrap(d, n, ST_LOC_HL, opts, out);
        return;
    }
    st_walsh_interval(d, n, opts->confidence, out);
    if (n < ST_BOOT_MIN_RUNS && out->method == ST_CI_NONE && n)
        out->why = "fewer than 3 blocks: no interval";
}

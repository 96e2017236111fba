/* st_rank.c - Mann-Whitney U: mid-ranks, exact null distribution, normal approximation. */
#include "st_rank.h"
#include "st_util.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

typedef struct tagged {
    double v;
    int from_x;
} tagged;

static int cmp_tagged(const void *a, const void *b) {
    double x = ((const tagged *)a)->v, y = ((const tagged *)b)->v;
    return (x > y) - (x < y);
}

double st_mw_exact_p(double u, size_t m, size_t n) {
    if (m * n > ST_MW_EXACT_MAX || m == 0 || n == 0)
        return NAN;
    /* U's null distribution for (m, n) equals that for (n, m) (it is
     * symmetric about m n / 2), so keep the table's width n the smaller. */
    if (n > m) {
        size_t t = m;
        m = n;
        n = t;
    }
    size_t umax = m * n;
    /* cur[j][k]: P(U = k) for i values of x (the current row) and j of y.
     * Rows are built from i = 0 upwards; each row's j = 0 column is the
     * point mass at 0. */
    size_t w = umax + 1;
    double *prev = ct_xcalloc((n + 1) * w, sizeof *prev);
    double *cur = ct_xcalloc((n + 1) * w, sizeof *cur);
    for (size_t j = 0; j <= n; j++)
        prev[j * w] = 1.0; /* i = 0: U = 0 surely */
    for (size_t i = 1; i <= m; i++) {
        for (size_t k = 0; k < w; k++)
            cur[k] = 0.0;
        cur[0] = 1.0; /* j = 0 */
        for (size_t j = 1; j <= n; j++) {
            double px = (double)i / (double)(i + j), py = (double)j / (double)(i + j);
            double *c = cur + j * w, *left = cur + (j - 1) * w, *up = prev + j * w;
            /* The largest of the i + j values is an x (prob px): it beats all
             * j y's, U = j + U(i - 1, j); or a y (prob py): U = U(i, j - 1). */
            for (size_t k = 0; k <= i * j; k++) {
                double a = k >= j ? up[k - j] : 0.0;
                c[k] = px * a + py * left[k];
            }
            for (size_t k = i * j + 1; k < w; k++)
                c[k] = 0.0;
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    const double *dist = prev + n * w;
    /* u may be a half-integer only with ties, which this path excludes. */
    size_t uk = (size_t)llround(u);
    double le = 0.0, ge = 0.0;
    for (size_t k = 0; k <= umax; k++) {
        if (k <= uk)
            le += dist[k];
        if (k >= uk)
            ge += dist[k];
    }
    free(prev);
    free(cur);
    double p = 2.0 * (le < ge ? le : ge);
    return p > 1.0 ? 1.0 : p;
}

st_mw st_mann_whitney(const double *x, size_t nx, const double *y, size_t ny) {
    st_mw r = {NAN, NAN, 0};
    if (nx == 0 || ny == 0)
        return r;
    size_t N = nx + ny;
    tagged *all = ct_xmalloc(N * sizeof *all);
    for (size_t i = 0; i < nx; i++)
        all[i] = (tagged){x[i], 1};
    for (size_t j = 0; j < ny; j++)
        all[nx + j] = (tagged){y[j], 0};
    qsort(all, N, sizeof *all, cmp_tagged);
    double rx = 0.0, tie_term = 0.0;
    int ties = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i + 1;
        while (j < N && all[j].v == all[i].v)
            j++;
        double t = (double)(j - i);
        double midrank = ((double)i + 1.0 + (double)j) / 2.0; /* ranks i+1 .. j */
        for (size_t k = i; k < j; k++)
            if (all[k].from_x)
                rx += midrank;
        if (j - i > 1) {
            ties = 1;
            tie_term += t * t * t - t;
        }
        i = j;
    }
    free(all);
    double dnx = (double)nx, dny = (double)ny, dN = (double)N;
    r.u = rx - dnx * (dnx + 1.0) / 2.0;
    if (!ties && nx * ny <= ST_MW_EXACT_MAX) {
        r.exact = 1;
        r.p = st_mw_exact_p(r.u, nx, ny);
        return r;
    }
    double var = dnx * dny / 12.0 * ((dN + 1.0) - (N > 1 ? tie_term / (dN * (dN - 1.0)) : 0.0));
    if (!(var > 0.0)) {
        r.p = 1.0;
        return r;
    }
    double z = (fabs(r.u - dnx * dny / 2.0) - 0.5) / sqrt(var);
    if (z < 0.0)
        z = 0.0;
    r.p = 2.0 * gsl_cdf_ugaussian_Q(z);
    if (r.p > 1.0)
        r.p = 1.0;
    return r;
}

/* st_blockboot.c - autocovariances, Politis-White block length, circular block bootstrap. */
#include "st_blockboot.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>

static double mean_of(const double *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

static double acov_about(const double *x, size_t n, size_t k, double m) {
    if (k >= n)
        return 0.0;
    double s = 0.0;
    for (size_t t = 0; t + k < n; t++)
        s += (x[t] - m) * (x[t + k] - m);
    return s / (double)n;
}

double st_acov(const double *x, size_t n, size_t k) { return acov_about(x, n, k, mean_of(x, n)); }

double st_acf1(const double *x, size_t n) {
    if (n < 3)
        return NAN;
    double m = mean_of(x, n), r0 = acov_about(x, n, 0, m);
    return r0 > 0.0 ? acov_about(x, n, 1, m) / r0 : NAN;
}

double st_excess_kurtosis(const double *x, size_t n) {
    if (n < 4)
        return NAN;
    double m = mean_of(x, n), m2 = 0.0, m4 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (x[i] - m) * (x[i] - m);
        m2 += d;
        m4 += d * d;
    }
    m2 /= (double)n;
    m4 /= (double)n;
    return m2 > 0.0 ? m4 / (m2 * m2) - 3.0 : NAN;
}

/* The flat-top window of Politis and Romano. */
static double flat_top(double t) {
    t = fabs(t);
    return t <= 0.5 ? 1.0 : t <= 1.0 ? 2.0 * (1.0 - t) : 0.0;
}

void st_blocklen_pw(const double *x, size_t n, st_blocklen *out) {
    *out = (st_blocklen){0, 0, 1.0, 1.0, 1};
    if (n < 4)
        return;
    double dn = (double)n, m = mean_of(x, n);
    size_t K = (size_t)ceil(sqrt(log10(dn)));
    if (K < 5)
        K = 5;
    size_t m_max = (size_t)ceil(sqrt(dn)) + K;
    double *R = ct_xmalloc((m_max + 1) * sizeof *R);
    for (size_t k = 0; k <= m_max; k++)
        R[k] = acov_about(x, n, k, m);
    if (!(R[0] > 0.0)) {
        free(R);
        return;
    }
    double thr = 2.0 * sqrt(log10(dn) / dn);
    size_t m_hat = 0;
    int found = 0;
    for (size_t mm = 1; mm + K <= m_max && !found; mm++) {
        int quiet = 1;
        for (size_t k = 1; k <= K && quiet; k++)
            quiet = fabs(R[mm + k] / R[0]) < thr;
        if (quiet) {
            m_hat = mm;
            found = 1;
        }
    }
    if (!found)
        for (size_t k = 1; k <= m_max; k++)
            if (fabs(R[k] / R[0]) >= thr)
                m_hat = k;
    size_t M = 2 * m_hat < m_max ? 2 * m_hat : m_max;
    out->m_hat = m_hat;
    out->M = M;
    double G = 0.0, g = R[0];
    for (size_t k = 1; k <= M; k++) {
        double l = flat_top((double)k / (double)M);
        G += 2.0 * l * (double)k * R[k];
        g += 2.0 * l * R[k];
    }
    free(R);
    double bmax = ceil(fmin(3.0 * sqrt(dn), dn / 3.0));
    if (M == 0 || G == 0.0 || g == 0.0)
        return;
    double cb = cbrt(2.0 * G * G / (4.0 / 3.0 * g * g)) * cbrt(dn);
    double sb = cbrt(2.0 * G * G / (2.0 * g * g)) * cbrt(dn);
    out->cb = cb < bmax ? cb : bmax;
    out->sb = sb < bmax ? sb : bmax;
    out->length = (size_t)ceil(out->cb);
    if (out->length < 1)
        out->length = 1;
}

void st_cbb_indices(gsl_rng *rng, size_t n, size_t L, size_t *out, size_t out_n) {
    if (L > n)
        L = n;
    if (L < 1)
        L = 1;
    size_t k = 0;
    while (k < out_n) {
        size_t start = (size_t)gsl_rng_uniform_int(rng, (unsigned long)n);
        for (size_t j = 0; j < L && k < out_n; j++)
            out[k++] = (start + j) % n;
    }
}

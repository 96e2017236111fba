/* st_levels.c - random-effects combination of units (invariants: st_levels.h). */
#include "st_levels.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "st_boot.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *st_level_name(st_level l) {
    switch (l) {
    case ST_LEVEL_PROCESSES: return "processes";
    case ST_LEVEL_REPLICATES: return "replicates";
    default: return "blocks";
    }
}

static double tq(double confidence, double df) { return gsl_cdf_tdist_Pinv(1.0 - (1.0 - confidence) / 2.0, df); }

/* The generalized Q of the units of cell c (all units when cell is NULL) at tau2. */
static double qgen(const double *est, const double *se, const size_t *cell, size_t n, size_t c, double tau2) {
    double sw = 0, mu = 0;
    for (size_t i = 0; i < n; i++)
        if (!cell || cell[i] == c) {
            double w = 1.0 / (se[i] * se[i] + tau2);
            sw += w, mu += w * est[i];
        }
    mu /= sw;
    double q = 0;
    for (size_t i = 0; i < n; i++)
        if (!cell || cell[i] == c)
            q += (est[i] - mu) * (est[i] - mu) / (se[i] * se[i] + tau2);
    return q;
}

/* Sum of the generalized Q of the cells in use[] at tau2. */
static double qsum(const double *est, const double *se, const size_t *cell, size_t n, const int *use, size_t ncells,
                   double tau2) {
    if (!cell)
        return qgen(est, se, NULL, n, 0, tau2);
    double q = 0;
    for (size_t c = 0; c < ncells; c++)
        if (use[c])
            q += qgen(est, se, cell, n, c, tau2);
    return q;
}

/* The tau2 at which the (decreasing) summed generalized Q equals target; 0 when Q(0) is below it. */
static double qsolve(const double *est, const double *se, const size_t *cell, size_t n, const int *use, size_t ncells,
                     double target) {
    if (qsum(est, se, cell, n, use, ncells, 0) <= target)
        return 0;
    double hi = 1e-300; /* a start, then doubled twice until Q is below the target */
    for (size_t i = 0; i < n; i++)
        hi = fmax(hi, se[i] * se[i] + est[i] * est[i]);
    while (qsum(est, se, cell, n, use, ncells, hi) > target && hi < 1e300)
        hi *= 4;
    double lo = 0;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (qsum(est, se, cell, n, use, ncells, mid) > target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void st_re_combine(const double *est, const double *se, size_t k, double tau2, double df, double confidence,
                   st_re *out) {
    memset(out, 0, sizeof *out);
    out->k = k;
    out->est = out->lo = out->hi = out->se = out->df = NAN;
    out->q = out->q_p = out->i2 = out->tau2_lo = out->tau2_hi = NAN;
    out->tau2 = tau2 >= 0 ? tau2 : NAN;
    if (k == 0) {
        out->why = "no units";
        return;
    }
    if (k == 1) {
        out->est = est[0];
        out->why = "one unit: no interval at this level";
        return;
    }
    int weighted = 1;
    for (size_t i = 0; i < k; i++)
        if (!(se[i] > 0) || !isfinite(se[i]))
            weighted = 0;
    double kd = (double)k;
    if (!weighted) {
        double m = 0, ss = 0;
        for (size_t i = 0; i < k; i++)
            m += est[i];
        m /= kd;
        for (size_t i = 0; i < k; i++)
            ss += (est[i] - m) * (est[i] - m);
        out->est = m;
        out->se = sqrt(ss / (kd - 1) / kd);
        out->df = kd - 1;
        out->tau2 = NAN;
        double h = tq(confidence, out->df) * out->se;
        out->lo = m - h;
        out->hi = m + h;
        out->why = "a unit without a standard error: equal weights, no heterogeneity statistic";
        return;
    }
    out->weighted = 1;
    double s1 = 0, s2 = 0, fe = 0;
    for (size_t i = 0; i < k; i++) {
        double w = 1.0 / (se[i] * se[i]);
        s1 += w;
        s2 += w * w;
        fe += w * (est[i] - est[0]); /* about est[0]: equal estimates give Q exactly 0 */
    }
    fe = est[0] + fe / s1;
    double q = 0;
    for (size_t i = 0; i < k; i++)
        q += (est[i] - fe) * (est[i] - fe) / (se[i] * se[i]);
    out->q = q;
    out->q_p = gsl_cdf_chisq_Q(q, kd - 1);
    out->i2 = q > 0 ? fmax(0.0, (q - (kd - 1)) / q) : 0.0;
    int given = tau2 >= 0;
    out->tau2_lo = out->tau2_hi = NAN;
    if (!given) {
        /* Paule-Mandel: the generalized Q at tau2 equals its expectation k - 1. */
        tau2 = qsolve(est, se, NULL, k, NULL, 0, kd - 1);
        double a = 1.0 - confidence;
        out->tau2_lo = qsolve(est, se, NULL, k, NULL, 0, gsl_cdf_chisq_Pinv(1.0 - a / 2.0, kd - 1));
        out->tau2_hi = qsolve(est, se, NULL, k, NULL, 0, gsl_cdf_chisq_Pinv(a / 2.0, kd - 1));
    }
    out->tau2 = tau2;
    double sw = 0, mu = 0;
    for (size_t i = 0; i < k; i++) {
        double w = 1.0 / (se[i] * se[i] + tau2);
        sw += w;
        mu += w * est[i];
    }
    mu /= sw;
    out->est = mu;
    if (given) {
        /* A family's pooled SD: equal weights, each unit's variance se^2 + tau^2 (st_levels.h). */
        double m = 0, v = 0;
        for (size_t i = 0; i < k; i++)
            m += est[i], v += se[i] * se[i] + tau2;
        out->est = mu = m / kd;
        out->se = sqrt(v) / kd;
        out->df = df;
        out->weighted = 0;
    } else {
        double qh = 0;
        for (size_t i = 0; i < k; i++)
            qh += (est[i] - mu) * (est[i] - mu) / (se[i] * se[i] + tau2);
        qh /= kd - 1;
        out->se = sqrt(fmax(qh, 1.0) / sw);
        out->df = kd - 1;
    }
    if (!(out->df > 0)) {
        out->why = "no degrees of freedom for the between-unit variance";
        return;
    }
    double h = tq(confidence, out->df) * out->se;
    out->lo = mu - h;
    out->hi = mu + h;
}

/* The family's cells that take part (use[c]: at least 2 units, every one with
 * a finite estimate and a positive standard error) and its degrees of
 * freedom, the sum of k_c - 1 over them; use is fresh (the caller frees it). */
static double family_cells(const double *est, const double *se, const size_t *cell, size_t n, size_t ncells,
                           int **use_out) {
    int *use = ct_xcalloc(ncells ? ncells : 1, sizeof *use);
    double df = 0;
    for (size_t c = 0; c < ncells; c++) {
        size_t k = 0;
        int ok = 1;
        for (size_t i = 0; i < n; i++)
            if (cell[i] == c) {
                k++;
                ok &= se[i] > 0 && isfinite(se[i]) && isfinite(est[i]);
            }
        use[c] = k >= 2 && ok;
        df += use[c] ? (double)(k - 1) : 0;
    }
    *use_out = use;
    return df;
}

double st_re_family_tau2(const double *est, const double *se, const size_t *cell, size_t n, size_t ncells, double *df) {
    int *use;
    double sdf = family_cells(est, se, cell, n, ncells, &use);
    *df = sdf;
    /* Paule-Mandel over the family: the cells' summed generalized Q equals its degrees of freedom. */
    double t = sdf > 0 ? qsolve(est, se, cell, n, use, ncells, sdf) : NAN;
    free(use);
    return t;
}

double st_interval_se(const st_interval *iv, int logscale, double confidence) {
    if (iv->method == ST_CI_NONE || !isfinite(iv->lo) || !isfinite(iv->hi))
        return NAN;
    if (iv->method == ST_CI_DEGENERATE || iv->hi == iv->lo)
        return 0.0;
    double lo = iv->lo, hi = iv->hi;
    if (logscale) {
        if (!(lo > 0) || !(hi > 0))
            return NAN;
        lo = log(lo), hi = log(hi);
    }
    return (hi - lo) / (2.0 * gsl_cdf_ugaussian_Pinv(1.0 - (1.0 - confidence) / 2.0));
}

double st_re_pvalue(const st_re *r, double null) {
    if (!isfinite(r->lo) || !(r->se > 0) || !(r->df > 0))
        return NAN;
    return 2.0 * gsl_cdf_tdist_Q(fabs(r->est - null) / r->se, r->df);
}

void st_re_at(const st_re *r, double confidence, double *lo, double *hi) {
    if (!isfinite(r->lo) || !(r->df > 0)) {
        *lo = *hi = NAN;
        return;
    }
    double h = tq(confidence, r->df) * r->se;
    *lo = r->est - h;
    *hi = r->est + h;
}

void st_re_family_tau2_ci(const double *est, const double *se, const size_t *cell, size_t n, size_t ncells,
                          double confidence, double *lo, double *hi) {
    int *use;
    double df = family_cells(est, se, cell, n, ncells, &use);
    *lo = *hi = NAN;
    if (df > 0) {
        double a = 1.0 - confidence;
        *lo = qsolve(est, se, cell, n, use, ncells, gsl_cdf_chisq_Pinv(1.0 - a / 2.0, df));
        *hi = qsolve(est, se, cell, n, use, ncells, gsl_cdf_chisq_Pinv(a / 2.0, df));
    }
    free(use);
}

double st_hl_boot_se(const double *d, size_t n, size_t resamples, uint64_t seed) {
    if (n < 3 || resamples < 2)
        return NAN;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i]))
            return NAN;
    size_t m = n * (n + 1) / 2;
    double *x = ct_xmalloc(n * sizeof *x), *w = ct_xmalloc(m * sizeof *w);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    double mean = 0, m2 = 0; /* Welford */
    for (size_t b = 0; b < resamples; b++) {
        for (size_t i = 0; i < n; i++)
            x[i] = d[gsl_rng_uniform_int(rng, n)];
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = i; j < n; j++)
                w[k++] = 0.5 * (x[i] + x[j]);
        double t = st_quantile_select(w, m, 0.5);
        double delta = t - mean;
        mean += delta / (double)(b + 1);
        m2 += delta * (t - mean);
    }
    gsl_rng_free(rng);
    free(x), free(w);
    return sqrt(m2 / (double)(resamples - 1)) * sqrt((double)n / (double)(n - 1));
}

double st_hl_kernel_se(const double *d, size_t n) {
    if (n < 3)
        return NAN;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i]))
            return NAN;
    double *x = ct_xmalloc(n * sizeof *x);
    memcpy(x, d, n * sizeof *x);
    gsl_sort(x, 1, n);
    double sd = gsl_stats_sd(x, 1, n);
    double iqr =
        (gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75) - gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25)) /
        ST_HL_IQR_NORMAL;
    free(x);
    double s = iqr > 0 && iqr < sd ? iqr : sd;
    if (!(s > 0))
        return 0.0; /* every block equal: the estimate cannot vary */
    double h = 0.9 * s * pow((double)n, -0.2);
    /* integral of fhat^2 = (1 / n^2) sum_i sum_j phi_(h sqrt 2)(d_i - d_j):
     * the diagonal n times phi(0), each pair i < j twice. */
    double s2 = h * sqrt(2.0), sum = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double u = (d[i] - d[j]) / s2;
            sum += 2.0 * exp(-0.5 * u * u);
        }
    sum += (double)n;
    double f2 = sum / ((double)n * (double)n * s2 * sqrt(2.0 * 3.14159265358979323846));
    return 1.0 / (sqrt(12.0 * (double)n) * f2);
}

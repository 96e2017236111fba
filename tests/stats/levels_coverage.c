/* levels_coverage.c - make bench-stats-levels: which interval covers the
 * variation between processes, by simulation (docs/STATISTICS.md, "Levels").
 *
 * Each experiment draws k processes of m blocks: block log-ratio = u_p + e,
 * u_p ~ N(0, tau^2) the process's own deviation, e the block's noise
 * (standard normal, or Student t with 3 degrees of freedom scaled to unit
 * variance), times 0.01.  tau is given in units of the standard error of
 * one process's median, measured first by simulation.  The true ratio is 1
 * (log 0).  Intervals compared, each at 95%:
 *   pooled     every block pooled, one-sample BCa of the median (the
 *              previous in-process interval: it ignores the processes);
 *   two-stage  percentile interval of the pooled median over resamples that
 *              draw k processes with replacement, then each one's blocks;
 *   RE normal  random-effects mean of the processes' medians (their
 *              standard errors from their own BCa intervals, Paule-Mandel
 *              tau^2) with a normal reference;
 *   HK         the Hartung-Knapp interval (t on k - 1);
 *   HK >= RE   the Hartung-Knapp interval never narrower than the
 *              random-effects one with a t reference: analyze's choice.
 * Prints, per noise and tau, each interval's coverage and its median
 * half-width relative to the pooled one.
 * Usage: levels-coverage [experiments] [resamples] [processes] [blocks]
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_boot.h"
#include "st_desc.h"
#include "st_levels.h"

enum { M_POOLED, M_TWOSTAGE, M_RENORM, M_HK, M_HKMOD, NM };
static const char *const names[NM] = {"pooled", "two-stage", "RE normal", "HK", "HK >= RE"};

static double stat_median(const double *m1, const double *m0) {
    (void)m0;
    return m1[0];
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double noise(gsl_rng *r, int heavy) { return heavy ? gsl_ran_tdist(r, 3) / sqrt(3.0) : gsl_ran_ugaussian(r); }

int main(int argc, char **argv) {
    size_t N = argc > 1 ? strtoul(argv[1], NULL, 10) : 300, B = argc > 2 ? strtoul(argv[2], NULL, 10) : 500;
    size_t k = argc > 3 ? strtoul(argv[3], NULL, 10) : 4, m = argc > 4 ? strtoul(argv[4], NULL, 10) : 100;
    if (!N || B < 100 || k < 2 || m < 3) {
        fprintf(stderr,
                "usage: levels-coverage [experiments >= 1] [resamples >= 100] [processes >= 2] [blocks >= 3]\n");
        return 2;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 29);
    double *x = malloc(k * m * sizeof *x), *t = malloc(B * sizeof *t), *r = malloc(k * m * sizeof *r);
    double *hw = malloc(NM * N * sizeof *hw);
    const double taus[] = {0, 1, 2, 4};
    printf("k = %zu processes of m = %zu blocks, %zu experiments, %zu resamples; coverage (median half-width "
           "over the pooled one's)\n",
           k, m, N, B);
    for (int heavy = 0; heavy < 2; heavy++) {
        /* The standard error of one process's median, by simulation. */
        double s = 0, ss = 0;
        for (int i = 0; i < 2000; i++) {
            for (size_t j = 0; j < m; j++)
                r[j] = 0.01 * noise(rng, heavy);
            double med = st_median(r, m);
            s += med, ss += med * med;
        }
        double sem = sqrt(ss / 2000 - (s / 2000) * (s / 2000));
        for (size_t ti = 0; ti < sizeof taus / sizeof taus[0]; ti++) {
            size_t cover[NM] = {0};
            for (size_t e = 0; e < N; e++) {
                for (size_t p = 0; p < k; p++) {
                    double u = taus[ti] * sem * gsl_ran_ugaussian(rng);
                    for (size_t j = 0; j < m; j++)
                        x[p * m + j] = u + 0.01 * noise(rng, heavy);
                }
                double lo[NM], hi[NM];
                st_boot_opts o = {B, 0.95, 1000 + e};
                st_stat st = {stat_median, 0};
                st_sample all = {k * m, {x}};
                st_interval iv;
                st_bootstrap(&all, NULL, &st, 1, &o, &iv);
                lo[M_POOLED] = iv.lo, hi[M_POOLED] = iv.hi;
                for (size_t b = 0; b < B; b++) {
                    for (size_t p = 0; p < k; p++) {
                        size_t q = gsl_rng_uniform_int(rng, k);
                        for (size_t j = 0; j < m; j++)
                            r[p * m + j] = x[q * m + gsl_rng_uniform_int(rng, m)];
                    }
                    t[b] = st_median(r, k * m);
                }
                qsort(t, B, sizeof *t, cmp_d);
                lo[M_TWOSTAGE] = st_quantile_sorted(t, B, 0.025), hi[M_TWOSTAGE] = st_quantile_sorted(t, B, 0.975);
                double est[64], se[64];
                for (size_t p = 0; p < k && p < 64; p++) {
                    st_sample one = {m, {x + p * m}};
                    st_boot_opts po = {B, 0.95, 5000 + e * 64 + p};
                    st_bootstrap(&one, NULL, &st, 1, &po, &iv);
                    est[p] = iv.est;
                    se[p] = st_interval_se(&iv, 0, 0.95);
                }
                st_re re;
                st_re_combine(est, se, k, -1, 0, 0.95, &re);
                lo[M_HKMOD] = re.lo, hi[M_HKMOD] = re.hi;
                double sw = 0;
                for (size_t p = 0; p < k; p++)
                    sw += 1 / (se[p] * se[p] + re.tau2);
                double sre = sqrt(1 / sw), qh = pow(re.se, 2) * sw; /* max(q, 1) */
                double z = 1.959963984540054, tk = gsl_cdf_tdist_Pinv(0.975, (double)(k - 1));
                lo[M_RENORM] = re.est - z * sre, hi[M_RENORM] = re.est + z * sre;
                /* The plain Hartung-Knapp q (re.se carries max(q, 1)): recomputed. */
                double q = 0;
                for (size_t p = 0; p < k; p++)
                    q += (est[p] - re.est) * (est[p] - re.est) / (se[p] * se[p] + re.tau2);
                q /= (double)(k - 1);
                (void)qh;
                lo[M_HK] = re.est - tk * sqrt(q / sw), hi[M_HK] = re.est + tk * sqrt(q / sw);
                for (int mth = 0; mth < NM; mth++) {
                    cover[mth] += lo[mth] <= 0 && 0 <= hi[mth];
                    hw[mth * N + e] = (hi[mth] - lo[mth]) / 2;
                }
            }
            printf("%s noise, tau = %g se:", heavy ? "t3" : "normal", taus[ti]);
            double base = st_median(hw + M_POOLED * N, N);
            for (int mth = 0; mth < NM; mth++)
                printf("  %s %.3f (x%.2f)", names[mth], (double)cover[mth] / (double)N,
                       st_median(hw + mth * N, N) / base);
            printf("\n");
            fflush(stdout);
        }
    }
    free(x), free(t), free(r), free(hw);
    gsl_rng_free(rng);
    return 0;
}

/* test_levels.c - the levels of the intervals (st_levels.h), the changepoint
 * step (st_changepoint.h) and the bootstrap p-values (st_boot_p_greater).
 *
 * The random-effects values are pasted from tests/stats/levels_reference.py,
 * which computes them with SciPy (chi2.sf, t.ppf, t.sf) independently of the
 * C code; they agree to 1e-12 (relative).  PELT is checked against optimal
 * partitioning without pruning (an O(n^3) dynamic programme written here),
 * which must give the same changepoints on every series.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "st_analysis.h"
#include "st_boot.h"
#include "st_changepoint.h"
#include "st_levels.h"

static void near(double got, double want, const char *what) {
    if (isnan(want)) {
        cr_assert(isnan(got), "%s: %.17g, want NaN", what, got);
        return;
    }
    cr_assert(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want)), "%s: %.17g, want %.17g", what, got, want);
}

/* est lo hi se df q q_p i2 tau2 p0 lo99 hi99 from levels_reference.py */
static const double ref[5][12] = {
    /* heterogeneous */ {0.023285904648701266, -0.01576070652790321, 0.062332515825305745, 0.012269369984900205, 3.0,
                         408.9034582132565, 2.609461617108903e-88, 0.9926633048957111, 0.0005963442707173521,
                         0.1539515548065201, -0.048378372720665336, 0.09495018201806787},
    /* homogeneous */
    {0.00999912622765283, 0.00872593719946528, 0.011272315255840378, 0.0004585680537331734, 4.0, 0.08999866499552732,
     0.9990173972312566, 0.0, 0.0, 2.617298258864374e-05, 0.007887835403294978, 0.01211041705201068},
    /* given */
    {1.0200000000000002, 0.9854175106711829, 1.0545824893288176, 0.014624940645653535, 7.0, 6.049180327868863,
     0.04857772609501081, 0.6693766937669383, 0.0004, 3.275591634362981e-11, 0.9688202644857934, 1.0711797355142072},
    /* unweighted */
    {0.44999999999999996, 0.20505416766931062, 0.6949458323306893, 0.10408329997330663, 3.0, NAN, NAN, NAN, NAN,
     0.022807310269798504, -0.1579411158018562, 1.0579411158018561},
    /* given zero */
    {1.0200000000000002, 0.9987768478303766, 1.041223152169624, 0.008975274678557505, 7.0, 6.049180327868863,
     0.04857772609501081, 0.6693766937669383, 0.0, 1.0769018588307325e-12, 0.9885911761732554, 1.051408823826745},
};

static void check_case(int c, const double *est, const double *se, size_t k, double tau2, double df, double conf,
                       int weighted) {
    st_re r;
    st_re_combine(est, se, k, tau2, df, conf, &r);
    const char *names[12] = {"est", "lo", "hi", "se", "df", "q", "q_p", "i2", "tau2", "p0", "lo99", "hi99"};
    double lo99, hi99;
    st_re_at(&r, 0.99, &lo99, &hi99);
    double got[12] = {r.est, r.lo, r.hi, r.se, r.df, r.q, r.q_p, r.i2, r.tau2, st_re_pvalue(&r, 0.0), lo99, hi99};
    for (int i = 0; i < 12; i++)
        near(got[i], ref[c][i], names[i]);
    cr_assert_eq(r.weighted, weighted);
    cr_assert_eq(r.k, k);
}

Test(levels, heterogeneous_processes_against_scipy) {
    const double est[4] = {0.010, 0.012, 0.060, 0.011}, se[4] = {0.002, 0.0025, 0.002, 0.003};
    check_case(0, est, se, 4, -1, 0, 0.95, 1);
    st_re r;
    st_re_combine(est, se, 4, -1, 0, 0.95, &r);
    /* The Q-profile interval of tau^2 (SciPy's brentq on the generalized Q). */
    cr_assert(fabs(r.tau2_lo - 0.0001882717198787989) < 1e-10 * 0.0001882717198787989, "%.17g", r.tau2_lo);
    cr_assert(fabs(r.tau2_hi - 0.008349408393802335) < 1e-10 * 0.008349408393802335, "%.17g", r.tau2_hi);
    cr_assert(r.tau2_lo < r.tau2 && r.tau2 < r.tau2_hi);
}

/* q < 1: the interval is the DerSimonian-Laird one (SE^2 = 1 / sum w*), not narrower. */
Test(levels, homogeneous_never_narrower_than_dersimonian_laird) {
    const double est[5] = {0.0101, 0.0099, 0.0100, 0.0102, 0.0098}, se[5] = {0.001, 0.0012, 0.0009, 0.0011, 0.001};
    check_case(1, est, se, 5, -1, 0, 0.95, 1);
    double sw = 0;
    for (int i = 0; i < 5; i++)
        sw += 1 / (se[i] * se[i]);
    near(ref[1][3], sqrt(1 / sw), "the reference's se is the DerSimonian-Laird one");
}

/* A family's tau^2 given (0.0004): equal weights, the mean 1.02 with SE
 * sqrt(sum (se_i^2 + tau^2)) / 3, t on the given 7 degrees of freedom, not
 * the inverse-variance mean 1.01784. */
Test(levels, given_variance_and_degrees_of_freedom) {
    const double est[3] = {1.02, 1.05, 0.99}, se[3] = {0.01, 0.02, 0.015};
    check_case(2, est, se, 3, 0.0004, 7.0, 0.95, 0);
}

/* A family's tau^2 given as 0: the same equal weights (SE sqrt(sum
 * se_i^2) / 3); Cochran's Q still reported. */
Test(levels, given_zero_variance_gives_equal_weights) {
    const double est[3] = {1.02, 1.05, 0.99}, se[3] = {0.01, 0.02, 0.015};
    check_case(4, est, se, 3, 0.0, 7.0, 0.95, 0);
}

Test(levels, a_unit_without_standard_error_gives_equal_weights) {
    const double est[4] = {0.5, 0.7, 0.2, 0.4}, se[4] = {0.1, NAN, 0.1, 0.1};
    check_case(3, est, se, 4, -1, 0, 0.90, 0);
}

Test(levels, one_unit_has_no_interval_at_this_level) {
    const double est[1] = {0.3}, se[1] = {0.01};
    st_re r;
    st_re_combine(est, se, 1, -1, 0, 0.95, &r);
    cr_assert_eq(r.est, 0.3);
    cr_assert(isnan(r.lo) && isnan(r.hi) && isnan(r.q));
    cr_assert(r.why);
    st_re_combine(est, se, 0, -1, 0, 0.95, &r);
    cr_assert(isnan(r.est));
}

Test(levels, family_pooled_variance_against_scipy) {
    const double est[8] = {0.01, 0.03, 0.02, 0.05, 0.06, 0.04, 0.055, 1.0};
    const double se[8] = {0.005, 0.006, 0.005, 0.004, 0.005, 0.006, 0.004, 0.01};
    const size_t cell[8] = {0, 0, 0, 1, 1, 2, 2, 3};
    double df;
    double t2 = st_re_family_tau2(est, se, cell, 8, 4, &df);
    near(t2, 6.310061334562532e-05, "tau2");
    near(df, 4.0, "df: cell 3 has one unit");
    double lo, hi;
    st_re_family_tau2_ci(est, se, cell, 8, 4, 0.95, &lo, &hi);
    cr_assert(fabs(lo - 5.371354416827608e-06) < 1e-10 * 5.371354416827608e-06, "%.17g", lo);
    cr_assert(fabs(hi - 0.0007206196624122184) < 1e-10 * 0.0007206196624122184, "%.17g", hi);
}

Test(levels, interval_standard_error) {
    st_interval iv = {.est = 1.0, .lo = exp(-0.0196), .hi = exp(0.0196), .method = ST_CI_BCA};
    /* (0.0392 / 2) / 1.959963985 */
    cr_assert(fabs(st_interval_se(&iv, 1, 0.95) - 0.0196 / 1.959963984540054) < 1e-12);
    iv.method = ST_CI_DEGENERATE;
    cr_assert_eq(st_interval_se(&iv, 1, 0.95), 0.0);
    iv.method = ST_CI_NONE;
    cr_assert(isnan(st_interval_se(&iv, 0, 0.95)));
    cr_assert_str_eq(st_level_name(ST_LEVEL_PROCESSES), "processes");
    cr_assert_str_eq(st_level_name(ST_LEVEL_REPLICATES), "replicates");
    cr_assert_str_eq(st_level_name(ST_LEVEL_BLOCKS), "blocks");
}

/* ---- The changepoint step ------------------------------------------------------ */

/* A fixed pseudo-random sequence (64-bit LCG, Knuth's constants), standard
 * normal by Box-Muller. */
static uint64_t lcg = 12345;
static double unif(void) {
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(lcg >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif()); }

/* Optimal partitioning without pruning: the same objective, every split tried. */
static size_t brute(const double *z, size_t n, double beta, size_t *cp) {
    double *F = malloc((n + 1) * sizeof *F);
    size_t *last = malloc((n + 1) * sizeof *last);
    F[0] = -beta;
    for (size_t t = 1; t <= n; t++) {
        F[t] = INFINITY;
        for (size_t s = 0; s < t; s++) {
            double sum = 0, sq = 0;
            for (size_t i = s; i < t; i++)
                sum += z[i], sq += z[i] * z[i];
            double c = sq - sum * sum / (double)(t - s);
            if (c < 0)
                c = 0;
            if (F[s] + c + beta < F[t]) {
                F[t] = F[s] + c + beta;
                last[t] = s;
            }
        }
    }
    size_t k = 0;
    for (size_t t = n; t > 0; t = last[t])
        if (last[t])
            cp[k++] = last[t];
    for (size_t i = 0; i < k / 2; i++) {
        size_t x = cp[i];
        cp[i] = cp[k - 1 - i];
        cp[k - 1 - i] = x;
    }
    free(F), free(last);
    return k;
}

Test(changepoint, pelt_is_optimal_partitioning) {
    double z[120];
    size_t a[120], b[120];
    for (int rep = 0; rep < 40; rep++) {
        size_t n = 20 + (size_t)(rep * 2.5);
        /* Levels that move now and then, noise of unit variance. */
        double level = 0;
        for (size_t i = 0; i < n; i++) {
            if (unif() < 0.04)
                level += 3 * gauss();
            z[i] = level + gauss();
        }
        for (double beta = 2; beta <= 30; beta *= 2.5) {
            size_t ka = st_cp_pelt(z, n, beta, a), kb = brute(z, n, beta, b);
            cr_assert_eq(ka, kb, "series %d, beta %g: %zu changepoints, optimal partitioning %zu", rep, beta, ka, kb);
            for (size_t i = 0; i < ka; i++)
                cr_assert_eq(a[i], b[i], "series %d, beta %g: changepoint %zu", rep, beta, i);
        }
    }
}

/* A process whose first 20 of 100 blocks cost 5% more (a warm-up), noise
 * SD 1%: the steady state starts at block 20 exactly. */
Test(changepoint, known_warm_up_found_exactly) {
    double x[100];
    lcg = 777;
    for (int i = 0; i < 100; i++)
        x[i] = (i < 20 ? 0.05 : 0.0) + 0.01 * gauss();
    st_cp cp;
    st_cp_find(x, 100, &cp);
    cr_assert_eq(cp.steady, ST_STEADY_AFTER, "%s", st_steady_name(cp.steady));
    cr_assert_eq(cp.ncp, 1);
    cr_assert_eq(cp.cp[0], 20);
    cr_assert_eq(cp.start, 20);
    cr_assert_str_eq(st_steady_name(cp.steady), "steady after a warm-up");
}

/* The same noise without a warm-up: flat.  Heavy tails (one block in ten
 * 30% off, as a collection falling into one half does) do not make one. */
Test(changepoint, stationary_and_heavy_tailed_series_are_flat) {
    double x[100];
    lcg = 777;
    for (int i = 0; i < 100; i++)
        x[i] = 0.01 * gauss();
    st_cp cp;
    st_cp_find(x, 100, &cp);
    cr_assert_eq(cp.steady, ST_STEADY_FLAT);
    cr_assert_eq(cp.ncp, 0);
    cr_assert_eq(cp.start, 0);
    for (int i = 0; i < 100; i += 10)
        x[i] += 0.3;
    st_cp_find(x, 100, &cp);
    cr_assert_eq(cp.steady, ST_STEADY_FLAT, "%zu changepoints", cp.ncp);
}

/* A change in the last third of the run is a phase, not a warm-up: no steady state, nothing left out. */
Test(changepoint, late_change_is_no_steady_state) {
    double x[90];
    lcg = 99;
    for (int i = 0; i < 90; i++)
        x[i] = (i >= 70 ? 0.3 : 0.0) + 0.01 * gauss();
    st_cp cp;
    st_cp_find(x, 90, &cp);
    cr_assert_eq(cp.steady, ST_STEADY_NONE);
    cr_assert_eq(cp.ncp, 1);
    cr_assert_eq(cp.cp[0], 70);
    cr_assert_eq(cp.start, 0);
}

Test(changepoint, short_or_constant_series) {
    double x[7] = {1, 2, 3, 4, 5, 6, 7};
    st_cp cp;
    st_cp_find(x, 7, &cp);
    cr_assert_eq(cp.steady, ST_STEADY_UNTESTED);
    double y[10] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
    st_cp_find(y, 10, &cp); /* neighbours equal but once: scale 0 */
    cr_assert_eq(cp.steady, ST_STEADY_FLAT);
    cr_assert_eq(cp.scale, 0.0);
}

/* ---- p-values that invert the bootstrap interval --------------------------------- */

static double f_median(const double (*m)[ST_BOOT_MAX_METRICS]) { return m[0][0]; }

/* For a BCa interval of a median: p of "theta <= null" is below (1 - C) / 2
 * exactly when the interval at confidence C lies above null, at every C
 * and null tried (the same resamples, its seed). */
Test(bootp, inverts_the_bca_interval) {
    double v[25];
    lcg = 4242;
    for (int i = 0; i < 25; i++)
        v[i] = 1.0 + 0.05 * gauss() + (i % 7 == 0 ? 0.2 : 0);
    st_sample g = {25, {v}};
    st_kstat st = {f_median, 1u};
    st_boot_opts o = {4000, 0.95, 99};
    double *keep = malloc(4000 * sizeof *keep);
    st_interval iv;
    st_bootstrap_groups_keep(&g, 1, &st, 1, &o, &iv, keep);
    cr_assert_eq(iv.method, ST_CI_BCA);
    int checked = 0;
    for (double conf = 0.6; conf < 0.995; conf += 0.05) {
        st_boot_opts oc = o;
        oc.confidence = conf;
        st_interval ic;
        st_bootstrap_groups(&g, 1, &st, 1, &oc, &ic);
        for (double null = 0.95; null <= 1.08; null += 0.0013) {
            double p = st_boot_p_greater(keep, 4000, &iv, null);
            if (fabs(ic.lo - null) < 1e-9 || fabs(p - (1 - conf) / 2) < 1e-3)
                continue; /* on the edge: the quantile's interpolation decides */
            cr_assert_eq(p<(1 - conf) / 2, ic.lo> null, "conf %g null %g: p %g, lower end %g", conf, null, p, ic.lo);
            double q = 1 - st_boot_p_greater(keep, 4000, &iv, null);
            if (fabs(ic.hi - null) > 1e-9 && fabs(q - (1 - conf) / 2) > 1e-3)
                cr_assert_eq(q < (1 - conf) / 2, ic.hi < null, "conf %g null %g: p %g, upper end %g", conf, null, q,
                             ic.hi);
            checked++;
        }
    }
    cr_assert(checked > 500, "%d checked", checked);
    iv.method = ST_CI_NONE;
    cr_assert(isnan(st_boot_p_greater(keep, 4000, &iv, 1.0)));
    iv.method = ST_CI_DEGENERATE;
    iv.est = 1.01;
    cr_assert_eq(st_boot_p_greater(keep, 4000, &iv, 1.0), 0.0);
    cr_assert_eq(st_boot_p_greater(keep, 4000, &iv, 1.02), 1.0);
    free(keep);
}

/* st_hl_boot_se: the ideal bootstrap SE of the Hodges-Lehmann estimate of 5
 * values, by enumerating all 5^5 equally likely resamples (computed in
 * Python independently: SD 0.3054848721360825 over them, times sqrt(5 / 4)),
 * matched within 1% by 200000 resamples (their Monte Carlo error about
 * 0.16%); without the factor, or with the mean instead of the HL, it is off
 * by more than 10%. */
Test(levels, hl_boot_se_matches_the_ideal_bootstrap) {
    const double d[5] = {0.1, -0.3, 0.7, 0.2, 1.5};
    double se = st_hl_boot_se(d, 5, 200000, 42);
    cr_assert(fabs(se - 0.34154247009705596) <= 0.01 * 0.34154247009705596, "bootstrap SE %.6g, want 0.341542", se);
    cr_assert(st_hl_boot_se(d, 5, 200000, 42) == se, "same seed, same SE bit for bit");
    cr_assert(isnan(st_hl_boot_se(d, 2, 1000, 42)), "no SE below 3 blocks");
    const double bad[4] = {0.1, NAN, 0.2, 0.3};
    cr_assert(isnan(st_hl_boot_se(bad, 4, 1000, 42)), "no SE with a non-finite block");
}

/* st_hl_kernel_se against SciPy (tests/stats/levels_reference.py: the
 * integral of the squared Gaussian kernel density estimate by
 * gaussian_kde.integrate_kde), to 1e-12: ten blocks, eight whose IQR is 0
 * (the bandwidth from the SD) and three. */
Test(levels, hl_kernel_se_matches_scipy) {
    const double ten[10] = {0.013, -0.021, 0.044, 0.002, -0.008, 0.031, 0.017, -0.035, 0.026, 0.009};
    const double iqr0[8] = {0, 0, 0, 0, 0, 0, 0, 1.0};
    const double three[3] = {1, 2, 4};
    near(st_hl_kernel_se(ten, 10), 0.008527473798637063, "ten blocks");
    near(st_hl_kernel_se(iqr0, 8), 0.09712718863915606, "IQR 0");
    near(st_hl_kernel_se(three, 3), 0.8819251133729138, "three blocks");
}

/* Its invariants: no SE below 3 blocks or with a non-finite block, 0 when
 * every block is equal, the same under a shift, times a under a scaling by
 * a > 0, and the same whatever the blocks' order. */
Test(levels, hl_kernel_se_invariants) {
    const double d[6] = {0.5, -0.2, 0.9, 0.1, 0.3, -0.6};
    double base = st_hl_kernel_se(d, 6), x[6];
    cr_assert(base > 0);
    for (size_t i = 0; i < 6; i++)
        x[i] = 3.0 + d[i];
    cr_assert(fabs(st_hl_kernel_se(x, 6) - base) <= 1e-12 * base, "shift");
    for (size_t i = 0; i < 6; i++)
        x[i] = 2.5 * d[i];
    cr_assert(fabs(st_hl_kernel_se(x, 6) - 2.5 * base) <= 1e-12 * base, "scale");
    for (size_t i = 0; i < 6; i++)
        x[i] = d[5 - i];
    cr_assert(fabs(st_hl_kernel_se(x, 6) - base) <= 1e-15 * base, "order");
    cr_assert(isnan(st_hl_kernel_se(d, 2)), "no SE below 3 blocks");
    const double bad[4] = {0.1, NAN, 0.2, 0.3}, same[4] = {0.2, 0.2, 0.2, 0.2};
    cr_assert(isnan(st_hl_kernel_se(bad, 4)), "no SE with a non-finite block");
    cr_assert_eq(st_hl_kernel_se(same, 4), 0.0, "every block equal");
}

/* For many normal blocks the kernel SE approaches the Hodges-Lehmann
 * estimator's asymptotic SE, sqrt(pi / (3 n)) sigma (its efficiency 3 / pi
 * against the mean): 4000 standard normal draws (Box-Muller from a fixed
 * linear congruential sequence; SE 0.016055) within 1.5% of sqrt(pi / (3
 * n)) s, s their sample SD (0.015908; the bandwidth's bias is +0.9% here).
 * The mean's SE s / sqrt(n) is 2.3% below that, and a kernel SE without
 * the sqrt(12) 3.5 times above: both fail. */
Test(levels, hl_kernel_se_is_the_asymptotic_se_on_normal_blocks) {
    enum { N = 4000 };
    double *x = malloc(N * sizeof *x);
    uint64_t s = 12345;
    for (size_t i = 0; i < N; i += 2) {
        double u[2];
        for (int j = 0; j < 2; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            u[j] = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
        }
        double r = sqrt(-2 * log(u[0]));
        x[i] = r * cos(2 * 3.14159265358979323846 * u[1]);
        x[i + 1] = r * sin(2 * 3.14159265358979323846 * u[1]);
    }
    double mean = 0, ss = 0;
    for (size_t i = 0; i < N; i++)
        mean += x[i] / N;
    for (size_t i = 0; i < N; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    double se = st_hl_kernel_se(x, N), want = sqrt(3.14159265358979323846 / (3.0 * N)) * sqrt(ss / (N - 1));
    cr_assert(fabs(se - want) <= 0.015 * want, "kernel SE %.6g, want %.6g within 1.5%%", se, want);
    free(x);
}

/* st_unpaired_se: the ideal bootstrap SE of log(median of 4 cell runs /
 * median of 3 baseline runs) and of the per-sample cost (runs drawn whole:
 * wall and samples together), by enumerating all 4^4 x 3^3 equally likely
 * resamples (computed in Python independently: SD 0.03728673743727509 and
 * 0.00040716693411287303 us, times sqrt(3 / 2), the smaller group), matched
 * within 1.5% by 200000 resamples; NaN below 3 runs or without a metric. */
Test(levels, unpaired_se_matches_the_ideal_bootstrap) {
    double wall[4] = {100, 104, 97, 110}, samples[4] = {10, 12, 11, 9}, bwall[3] = {90, 95, 93};
    st_result r;
    memset(&r, 0, sizeof r);
    r.run_n = 4, r.base_n = 3;
    r.run_m[ST_M_WALL] = wall, r.run_m[ST_M_SAMPLES] = samples, r.base_m[0] = bwall;
    double se = st_unpaired_se(&r, ST_UP_OVERHEAD, 200000, 7);
    cr_assert(fabs(se - 0.045666740447227426) <= 0.015 * 0.045666740447227426, "overhead SE %.6g, want 0.0456667", se);
    cr_assert(st_unpaired_se(&r, ST_UP_OVERHEAD, 200000, 7) == se, "same seed, same SE bit for bit");
    double cs = st_unpaired_se(&r, ST_UP_COST, 200000, 7);
    cr_assert(fabs(cs - 0.0004986756143549782) <= 0.015 * 0.0004986756143549782, "cost SE %.6g, want 0.000498676", cs);
    cr_assert(isnan(st_unpaired_se(&r, ST_UP_CPU, 1000, 7)), "no CPU time kept: no SE");
    cr_assert(isnan(st_unpaired_se(&r, ST_UP_NORM, 1000, 7)), "no samples per second kept: no SE");
    r.base_n = 2;
    cr_assert(isnan(st_unpaired_se(&r, ST_UP_OVERHEAD, 1000, 7)), "no SE below 3 baseline runs");
}

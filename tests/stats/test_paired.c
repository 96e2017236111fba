/* test_paired.c - paired estimators, the one-sample BCa interval and the
 * verdicts against reference values.  The reference values were computed
 * independently with tests/stats/paired_reference.py (Python standard library
 * only: it sets Python's Mersenne Twister to GSL's mt19937 seeding, redoes
 * gsl_rng_uniform_int, the Hodges-Lehmann estimate, type-7 medians, the
 * jackknife and the BCa endpoints with statistics.NormalDist); its output is
 * pasted here. */
#include <criterion/criterion.h>
#include <math.h>

#include "st_paired.h"

static const double D[] = {0.031, -0.012, 0.054, 0.008, 0.017, -0.041, 0.026, 0.093, 0.002, 0.011, -0.006, 0.038};
#define ND (sizeof D / sizeof *D)

static void near(double got, double want, double tol, const char *what) {
    cr_assert(fabs(got - want) <= tol, "%s: got %.17g, want %.17g", what, got, want);
}

Test(paired, estimators_match_reference) {
    near(st_hodges_lehmann(D, ND), 0.016750000000000001, 1e-15, "HL");
    near(st_loc_estimate(ST_LOC_MEDIAN, D, ND), 0.014, 1e-15, "median");
    near(st_loc_estimate(ST_LOC_MEAN, D, ND), 0.018416666666666668, 1e-15, "mean");
    /* HL of three values: Walsh averages 1, 2, 3, 1.5, 2, 2.5 -> median 2. */
    const double three[] = {1, 2, 3};
    near(st_hodges_lehmann(three, 3), 2.0, 0, "HL of 1,2,3");
    /* An outlier moves the mean, barely the HL estimate. */
    const double out[] = {0, 0.01, 0.02, 0.03, 10};
    near(st_hodges_lehmann(out, 5), 0.02, 1e-15, "HL with outlier");
    near(st_loc_estimate(ST_LOC_MEAN, out, 5), 2.012, 1e-12, "mean with outlier");
}

Test(paired, jackknife_acceleration_matches_reference) {
    near(st_paired_accel(ST_LOC_HL, D, ND), 0.0035789355184616522, 1e-12, "accel HL");
    near(st_paired_accel(ST_LOC_MEAN, D, ND), 0.024011767686045255, 1e-12, "accel mean");
    near(st_paired_accel(ST_LOC_MEDIAN, D, ND), 0.0, 1e-12, "accel median");
}

Test(paired, one_sample_bca_matches_reference) {
    st_boot_opts o = {2000, 0.95, 12345};
    struct {
        st_loc loc;
        double est, lo, hi, z0;
    } want[] = {
        {ST_LOC_HL, 0.016750000000000001, 0.00024999999999999963, 0.036250000000000004, 0.016293804724859119},
        {ST_LOC_MEDIAN, 0.014, -0.002, 0.034500000000000003, 0.021934756200532184},
        {ST_LOC_MEAN, 0.018416666666666668, 0.0019764578752530732, 0.038372502984696917, -0.0056399435179026961},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        st_interval iv;
        st_paired_bootstrap(D, ND, want[k].loc, &o, &iv);
        cr_assert_eq(iv.method, ST_CI_BCA, "method %d", k);
        near(iv.est, want[k].est, 1e-15, "est");
        near(iv.lo, want[k].lo, 1e-12, "lo");
        near(iv.hi, want[k].hi, 1e-12, "hi");
        near(iv.z0, want[k].z0, 1e-9, "z0");
    }
}

Test(paired, too_few_blocks_or_bad_values_give_no_interval) {
    st_boot_opts o = {200, 0.95, 1};
    st_interval iv;
    st_paired_bootstrap(D, 2, ST_LOC_HL, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
    cr_assert_str_eq(iv.why, "fewer than 3 blocks: no interval");
    near(iv.est, 0.5 * (0.031 + -0.012), 1e-15, "HL of two");
    const double bad[] = {0.1, NAN, 0.2, 0.3};
    st_paired_bootstrap(bad, 4, ST_LOC_HL, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
    cr_assert(isnan(iv.est));
    const double same[] = {0.01, 0.01, 0.01, 0.01};
    st_paired_bootstrap(same, 4, ST_LOC_HL, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_DEGENERATE);
    near(iv.lo, 0.01, 0, "degenerate lo");
}

Test(paired, verdicts_with_margins) {
    char b[64];
    st_interval iv = {.method = ST_CI_BCA};
    struct {
        double lo, hi, margin;
        st_verdict v;
        const char *text;
    } cases[] = {
        {1.001, 1.3, 0.02, ST_V_SLOWER, "slower"},   /* excludes 1, wide */
        {1.001, 1.004, 0.02, ST_V_SLOWER, "slower"}, /* excludes 1, inside the margin */
        {0.90, 0.999, 0.02, ST_V_FASTER, "faster"},
        {0.985, 1.019, 0.02, ST_V_EQUIVALENT, "no effect above 2%"},
        {0.98, 1.02, 0.02, ST_V_EQUIVALENT, "no effect above 2%"}, /* ends on the margin */
        {0.979, 1.01, 0.02, ST_V_UNRESOLVED, "not resolved"},
        {0.99, 1.021, 0.02, ST_V_UNRESOLVED, "not resolved"},
        {0.99, 1.021, 0.05, ST_V_EQUIVALENT, "no effect above 5%"},
        {1.0, 1.0, 0.02, ST_V_EQUIVALENT, "no effect above 2%"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        iv.lo = cases[k].lo;
        iv.hi = cases[k].hi;
        st_verdict v = st_paired_verdict(&iv, cases[k].margin);
        cr_assert_eq(v, cases[k].v, "case %zu", k);
        cr_assert_str_eq(st_verdict_text(v, cases[k].margin, b, sizeof b), cases[k].text, "case %zu", k);
    }
    iv.method = ST_CI_NONE;
    cr_assert_eq(st_paired_verdict(&iv, 0.02), ST_V_NA);
}

/* The noise diagnostics against python3 (standard library) on the values below:
 * lag-1 autocorrelation, bimodality coefficient and Pearson correlation,
 * computed by the formulas of st_noise.h. */
#include "st_noise.h"

Test(noise, lag1_bimodality_pearson_match_reference) {
    const double x[] = {0.02, -0.01, 0.05, 0.04, 0.03, -0.02, -0.03, 0.01, 0.0, 0.06};
    const double y[] = {1, 3, 2, 5, 4, 6, 8, 7, 9, 10};
    near(st_lag1(x, 10), 0.11212121212121211, 1e-12, "lag1");
    near(st_bimodality(x, 10), 0.31854379977246866, 1e-12, "bimodality");
    near(st_pearson(x, y, 10), -0.12727272727272729, 1e-12, "pearson");
    /* Two well separated clusters are bimodal (> 5/9); too few values give NaN. */
    double two[40];
    for (int i = 0; i < 40; i++)
        two[i] = (i < 20 ? 1.0 : 2.0) + 0.001 * (i % 5);
    cr_assert_gt(st_bimodality(two, 40), 5.0 / 9.0);
    double one[40];
    for (int i = 0; i < 40; i++)
        one[i] = 1.0 + 0.001 * i * (i % 3); /* one skewed mode */
    cr_assert_lt(st_bimodality(one, 40), st_bimodality(two, 40));
    cr_assert(isnan(st_bimodality(x, 3)));
    cr_assert(isnan(st_lag1(x, 2)));
    /* A pair with a NaN is left out, not counted as 0. */
    const double xn[] = {1, 2, 3, NAN, 5}, yn[] = {2, 4, 6, 100, 10};
    near(st_pearson(xn, yn, 5), 1.0, 1e-12, "pearson without the NaN pair");
}

/* The adaptive rule: its stopping decisions on synthetic data, and the
 * coverage of its final interval by simulation (the rule stops on the data,
 * which could bias the interval; with a fixed seed the figures are exact). */
Test(adaptive, stops_by_minimum_halfwidth_and_maximum) {
    st_boot_opts o = {1000, 0.95, 7};
    st_adaptive rule = {0.02, 30, 100};
    double tight[100], wide[100];
    for (int i = 0; i < 100; i++) {
        tight[i] = 0.01 + 0.0001 * ((i * 7) % 11 - 5); /* spread +-0.05%: narrow from the start */
        wide[i] = 0.01 + 0.02 * ((i * 7) % 11 - 5);    /* spread +-10% */
    }
    st_interval iv;
    cr_assert_eq(st_adaptive_more(tight, 29, &rule, &o, &iv), 1, "below the minimum: more");
    cr_assert_eq(iv.method, ST_CI_NONE);
    cr_assert_eq(st_adaptive_more(tight, 30, &rule, &o, &iv), 0, "narrow at the minimum: stop");
    cr_assert((iv.hi - iv.lo) / 2 <= 0.02);
    cr_assert_eq(st_adaptive_more(wide, 30, &rule, &o, &iv), 1, "wide: more");
    cr_assert((iv.hi - iv.lo) / 2 > 0.02);
    cr_assert_eq(st_adaptive_more(wide, 100, &rule, &o, &iv), 0, "at the maximum: stop");
    rule.halfwidth = 0.5;
    cr_assert_eq(st_adaptive_more(wide, 30, &rule, &o, NULL), 0, "a looser target: stop");
}

Test(adaptive, coverage_of_the_stopping_rule_on_synthetic_data) {
    st_adaptive rule = {0.02, 10, 50};
    st_adaptive_sim s;
    /* Normal noise of sd 5% per block: the 2% target is reached at about 25
     * blocks, so the rule stops at many different n. */
    st_adaptive_simulate(&rule, log(1.01), 0.05, 0, 100, 300, 1, &s);
    cr_assert_eq(s.experiments, 100);
    cr_assert_eq(s.covered + s.above + s.below, 100);
    double cov = (double)s.covered / 100;
    cr_log_info("coverage %.2f, %zu above, %zu below, mean blocks %.1f, at max %zu, mean half-width %.4f", cov, s.above,
                s.below, s.mean_blocks, s.at_max, s.mean_halfwidth);
    cr_assert(cov >= 0.85 && cov <= 0.99, "coverage %.3f (%zu above, %zu below)", cov, s.above, s.below);
    cr_assert(s.mean_blocks > 15 && s.mean_blocks < 50, "mean blocks %g", s.mean_blocks);
    cr_assert_lt(s.at_max, 100);
    cr_assert_leq(s.mean_halfwidth, 0.021);
    /* The same seed gives the same figures. */
    st_adaptive_sim t;
    st_adaptive_simulate(&rule, log(1.01), 0.05, 0, 100, 300, 1, &t);
    cr_assert_eq(t.covered, s.covered);
    cr_assert_float_eq(t.mean_blocks, s.mean_blocks, 0);
}

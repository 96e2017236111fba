/* test_regress.c - the per-sample cost regression (st_regress) on synthetic data with known answers:
 * an exact line, a line plus noise with a known slope, outliers, the difference of two fits, and
 * the interval's coverage checked by simulation (a larger simulation is bench-stats-regress).
 */
#include "st_regress.h"
#include "regress_sim.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

/* The weighted Theil-Sen slope of the exact-repeats data below (its pairs
 * weighted by the groups' run counts 4, 3, 3, 5, 3). */
#define EXACT_REPEATS_COST 900.43876958792805

Test(regress, weighted_median_ignores_one_wild_point) {
    /* y = 2x for x = 1..9 and one point far off: the pairs among the nine
     * weigh sum (j - i) = 120, the pairs with the tenth 45 < 82.5. */
    double x[10], y[10];
    for (int i = 0; i < 10; i++)
        x[i] = i + 1, y[i] = 2 * (i + 1);
    y[9] = 1000;
    cr_assert_eq(st_reg_slope(10, x, y, NULL, -1), 2.0);
    y[9] = -1e12;
    cr_assert_eq(st_reg_slope(10, x, y, NULL, -1), 2.0);
}

Test(regress, weighted_median_splits_an_exact_half) {
    /* Pairs: slope 1 (weight 1, x 0->1), 3 (weight 1, x 1->2) and 2
     * (weight 2, x 0->2): total 4, weight 1 below 2 and 1 above, so the
     * weighted median is 2 itself. */
    double x[3] = {0, 1, 2}, y[3] = {0, 1, 4};
    cr_assert_eq(st_reg_slope(3, x, y, NULL, -1), 2.0);
    /* Two points: one slope. */
    cr_assert_eq(st_reg_slope(2, x, y, NULL, -1), 1.0);
    /* Equal x only: no slope. */
    double xs[3] = {5, 5, 5};
    cr_assert(isnan(st_reg_slope(3, xs, y, NULL, -1)));
    /* Slopes 1 and 3 with equal weights (groups keep 0->2 out): midpoint. */
    size_t g[3] = {0, 1, 0};
    double x2[3] = {0, 1, 2}, y2[3] = {0, 1, 4};
    cr_assert_eq(st_reg_slope(3, x2, y2, g, -1), 2.0);
}

Test(regress, exact_line_with_a_fixed_cost) {
    /* Baseline 1000 (x = 0); sampling cells on y = 1050 + 3x. */
    enum { G = 4, R = 5 };
    double xs[G] = {0, 100, 1000, 10000};
    double x[G * R], y[G * R];
    size_t g[G * R];
    for (int i = 0; i < G * R; i++) {
        g[i] = (size_t)(i / R);
        x[i] = xs[g[i]];
        y[i] = g[i] == 0 ? 1000 : 1050 + 3 * x[i];
    }
    st_reg_data d = {G * R, x, y, g, G, 0};
    st_reg_opts o = {200, 0.95, 1};
    st_reg_fit f;
    st_reg_fit_runs(&d, &o, &f);
    cr_assert_eq(f.cost.est, 3.0);
    cr_assert_eq(f.cost.lo, 3.0);
    cr_assert_eq(f.cost.hi, 3.0);
    cr_assert_eq(f.intercept.est, 1050.0);
    cr_assert_eq(f.base.est, 1000.0);
    cr_assert_eq(f.fixed.est, 50.0);
    cr_assert_eq(f.fixed.lo, 50.0);
    cr_assert_eq(f.sampling_groups, 3);
    cr_assert_eq(f.baseline_in_slope, 0);
    cr_assert_null(f.why);
    cr_assert_eq(f.residual[0], -50.0, "the baseline's residual is minus the fixed cost");
    for (int k = 1; k < G; k++)
        cr_assert_eq(f.residual[k], 0.0);
    st_reg_fit_free(&f);
}

Test(regress, exact_repeats_give_point_intervals_at_the_estimate) {
    /* Counts that repeat exactly (the simulated part), off a line, in
     * groups of unequal size (runs failed): baseline 4 runs, cells of 3, 3,
     * 5 and 3.  Resampling them only reweighted the values: the cost's
     * replicates were all 900.18..., its estimate 900.44..., outside. */
    static const double xs[5] = {0, 641, 1540, 1839, 2364};
    static const double ys[5] = {1000000, 1581475, 2391655, 2659891, 3132931};
    static const int runs[5] = {4, 3, 3, 5, 3};
    double x[18], y[18];
    size_t g[18], n = 0;
    for (size_t k = 0; k < 5; k++)
        for (int r = 0; r < runs[k]; r++)
            x[n] = xs[k], y[n] = ys[k], g[n++] = k;
    st_reg_data d = {n, x, y, g, 5, 0};
    st_reg_opts o = {200, 0.95, 7};
    st_reg_fit f;
    st_reg_fit_runs(&d, &o, &f);
    cr_assert_eq(f.cost.est, st_reg_slope(n, x, y, g, 0), "the estimate is the data's weighted Theil-Sen slope");
    cr_assert_float_eq(f.cost.est, EXACT_REPEATS_COST, 1e-9);
    cr_assert_null(f.no_ci);
    const st_reg_est *e[4] = {&f.cost, &f.intercept, &f.base, &f.fixed};
    for (int i = 0; i < 4; i++) {
        cr_assert(isfinite(e[i]->est));
        cr_assert_eq(e[i]->lo, e[i]->est, "estimate %d: %.17g, interval from %.17g", i, e[i]->est, e[i]->lo);
        cr_assert_eq(e[i]->hi, e[i]->est, "estimate %d: %.17g, interval to %.17g", i, e[i]->est, e[i]->hi);
    }
    cr_assert_eq(f.base.est, 1000000.0);
    for (size_t b = 0; b < f.resamples; b++)
        cr_assert_eq(f.boot_cost[b], f.cost.est);
    /* The difference from itself is exactly 0, a point. */
    st_reg_est diff = st_reg_cost_difference(&f, &f, 0.95);
    cr_assert_eq(diff.est, 0.0);
    cr_assert_eq(diff.lo, 0.0);
    cr_assert_eq(diff.hi, 0.0);
    st_reg_fit_free(&f);
    /* One run 5000 counts apart: resampled as before, the replicates vary. */
    y[17] += 5000;
    st_reg_fit_runs(&d, &o, &f);
    cr_assert_lt(f.cost.lo, f.cost.hi);
    st_reg_fit_free(&f);
}

Test(regress, no_interval_over_a_group_of_fewer_than_three_runs) {
    /* The rule of every interval of the summary (st_boot.h): each group an
     * estimate reads needs 3 runs.  Baseline 4 runs (varying), cells of 1
     * run each on y = 1050 + 3x: the cost and intercept read only the cells,
     * so they get no interval (before, the resamples drew each cell's one
     * run whole and the baseline's spread gave a point or a made-up one);
     * the base reads the baseline (4 runs): it keeps its interval. */
    double x[7] = {0, 0, 0, 0, 100, 1000, 10000}, y[7] = {998, 1000, 1002, 1004, 1350, 4050, 31050};
    size_t g[7] = {0, 0, 0, 0, 1, 2, 3};
    st_reg_data d = {7, x, y, g, 4, 0};
    st_reg_opts o = {200, 0.95, 3};
    st_reg_fit f;
    st_reg_fit_runs(&d, &o, &f);
    cr_assert_eq(f.cost.est, 3.0);
    cr_assert_eq(f.intercept.est, 1050.0);
    cr_assert_eq(f.base.est, 1001.0);
    cr_assert_eq(f.fixed.est, 49.0);
    cr_assert(isnan(f.cost.lo) && isnan(f.cost.hi), "cost [%g, %g]", f.cost.lo, f.cost.hi);
    cr_assert(isnan(f.intercept.lo) && isnan(f.intercept.hi));
    cr_assert(isnan(f.fixed.lo) && isnan(f.fixed.hi));
    cr_assert(isfinite(f.base.lo) && isfinite(f.base.hi) && f.base.lo <= 1001.0 && 1001.0 <= f.base.hi);
    cr_assert_str_eq(f.no_ci, "a sampling cell has fewer than 3 used runs: no interval");
    st_reg_est diff = st_reg_cost_difference(&f, &f, 0.95);
    cr_assert(diff.est == 0 && isnan(diff.lo) && isnan(diff.hi), "a fit without an interval gives its difference none");
    st_reg_fit_free(&f);
    /* Cells of 3 runs, baseline of 2: cost and intercept have intervals, base and fixed none. */
    double x2[11] = {0, 0, 100, 100, 100, 1000, 1000, 1000, 10000, 10000, 10000};
    double y2[11] = {1000, 1002, 1349, 1350, 1351, 4049, 4050, 4051, 31049, 31050, 31051};
    size_t g2[11] = {0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    st_reg_data d2 = {11, x2, y2, g2, 4, 0};
    st_reg_fit_runs(&d2, &o, &f);
    cr_assert(isfinite(f.cost.lo) && f.cost.lo <= f.cost.est && f.cost.est <= f.cost.hi);
    cr_assert(isnan(f.base.lo) && isnan(f.fixed.lo) && isnan(f.fixed.hi));
    cr_assert_str_eq(f.no_ci,
                     "the baseline has fewer than 3 used runs: no interval for the baseline and the fixed cost");
    st_reg_fit_free(&f);
}

Test(regress, one_sampling_cell_uses_the_baseline_and_says_so) {
    double x[4] = {0, 0, 10, 10}, y[4] = {100, 100, 130, 130};
    size_t g[4] = {0, 0, 1, 1};
    st_reg_data d = {4, x, y, g, 2, 0};
    st_reg_opts o = {100, 0.95, 1};
    st_reg_fit f;
    st_reg_fit_runs(&d, &o, &f);
    cr_assert_eq(f.cost.est, 3.0);
    cr_assert_eq(f.baseline_in_slope, 1);
    cr_assert(isnan(f.fixed.est));
    cr_assert_not_null(f.why);
    st_reg_fit_free(&f);
}

Test(regress, curvature_shows_in_the_residuals) {
    /* y = x^2 / 1000 over x = 1000 .. 4000: a line through it leaves the
     * middle cells below and the ends above (or the reverse). */
    enum { G = 5, R = 3 };
    double x[G * R], y[G * R];
    size_t g[G * R];
    for (int i = 0; i < G * R; i++) {
        g[i] = (size_t)(i / R);
        x[i] = g[i] == 0 ? 0 : 1000.0 * (double)g[i];
        y[i] = g[i] == 0 ? 0 : x[i] * x[i] / 1000;
    }
    st_reg_data d = {G * R, x, y, g, G, 0};
    st_reg_opts o = {100, 0.95, 1};
    st_reg_fit f;
    st_reg_fit_runs(&d, &o, &f);
    cr_assert(f.residual[1] > 0 && f.residual[4] >= 0 && (f.residual[2] < 0 || f.residual[3] < 0),
              "residuals %g %g %g %g", f.residual[1], f.residual[2], f.residual[3], f.residual[4]);
    st_reg_fit_free(&f);
}

Test(regress, line_plus_noise_and_outliers) {
    /* Slope 800 ns per sample, fixed 1 ms, noise sd 3 ms; then 10% of the
     * runs 50% slower (a load spike): the estimate stays within 5%, where
     * least squares is pulled far off. */
    regress_sim s;
    regress_sim_init(&s, REGRESS_SIM_NORMAL, 11);
    st_reg_fit f;
    st_reg_opts o = {1000, 0.95, 7};
    regress_sim_draw(&s);
    st_reg_fit_runs(&s.data, &o, &f);
    cr_assert(fabs(f.cost.est - s.cost) < 0.05 * s.cost, "cost %g, true %g", f.cost.est, s.cost);
    cr_assert(f.cost.lo <= s.cost && s.cost <= f.cost.hi, "[%g, %g] misses %g", f.cost.lo, f.cost.hi, s.cost);
    cr_assert(f.fixed.lo <= s.fixed && s.fixed <= f.fixed.hi, "fixed [%g, %g] misses %g", f.fixed.lo, f.fixed.hi,
              s.fixed);
    st_reg_fit_free(&f);

    regress_sim_init(&s, REGRESS_SIM_OUTLIERS, 12);
    regress_sim_draw(&s);
    st_reg_fit_runs(&s.data, &o, &f);
    double ols = regress_sim_ols_slope(&s);
    cr_assert(fabs(f.cost.est - s.cost) < 0.05 * s.cost, "cost %g, true %g", f.cost.est, s.cost);
    cr_assert(fabs(ols - s.cost) > 0.10 * s.cost,
              "least squares %g is not pulled off %g by the outliers: the "
              "test data does not test robustness",
              ols, s.cost);
    st_reg_fit_free(&f);
    regress_sim_free(&s);
}

Test(regress, difference_of_two_fits) {
    regress_sim a, b;
    regress_sim_init(&a, REGRESS_SIM_NORMAL, 21);
    regress_sim_init(&b, REGRESS_SIM_NORMAL, 22);
    b.cost += 10000; /* an injected 10 us per sample */
    regress_sim_draw(&a);
    regress_sim_draw(&b);
    st_reg_opts o = {1000, 0.95, 5};
    st_reg_fit fa, fb;
    st_reg_fit_runs(&a.data, &o, &fa);
    o.seed = 6;
    st_reg_fit_runs(&b.data, &o, &fb);
    st_reg_est dfr = st_reg_cost_difference(&fb, &fa, 0.95);
    cr_assert(dfr.lo <= 10000 && 10000 <= dfr.hi, "[%g, %g]", dfr.lo, dfr.hi);
    cr_assert(fabs(dfr.est - 10000) < 500, "%g", dfr.est);
    st_reg_fit_free(&fa);
    st_reg_fit_free(&fb);
    regress_sim_free(&a);
    regress_sim_free(&b);
}

Test(regress, coverage_by_simulation, .timeout = 120) {
    /* 200 data sets with normal noise: the 95% interval should contain the
     * true slope in about 95% of them; 200 draws put 95% coverage in
     * [0.91, 0.98] with probability 0.99. */
    double cov = regress_sim_coverage(REGRESS_SIM_NORMAL, 200, 400, 0.95, 31, NULL);
    cr_assert(cov >= 0.90 && cov <= 0.99, "coverage %.3f", cov);
}

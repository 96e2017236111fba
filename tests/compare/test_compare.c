/* test_compare.c - Criterion tests of the parts of compare that are not end to end:
 * the k-group bootstrap against the two-sample one, and Benjamini-Hochberg against
 * values adjusted by hand (q_(i) = min over j >= i of p_(j) m / j).
 */
#include "st_boot.h"
#include "st_compare.h"

#include <criterion/criterion.h>
#include <math.h>

static double ratio2(const double *m1, const double *m0) { return m1[0] / m0[0]; }
static double ratiok(const double (*m)[ST_BOOT_MAX_METRICS]) { return m[0][0] / m[1][0]; }

/* Groups drawn in the order given, as st_bootstrap draws the cell, then the
 * baseline: the same statistic gives the same interval, bit for bit. */
Test(kboot, two_groups_reproduce_st_bootstrap_exactly) {
    const double x[] = {10.2, 11.5, 9.8, 10.9, 12.4, 10.1, 11.0, 13.2, 10.6};
    const double y[] = {9.1, 9.7, 10.3, 8.8, 9.9, 9.4, 10.8};
    st_sample s1 = {9, {x}}, s0 = {7, {y}};
    st_stat st = {ratio2, 1};
    st_boot_opts o = {10000, 0.95, 12345};
    st_interval a, b;
    st_bootstrap(&s1, &s0, &st, 1, &o, &a);
    st_sample g[2] = {s1, s0};
    st_kstat ks = {ratiok, 3u};
    st_bootstrap_groups(g, 2, &ks, 1, &o, &b);
    cr_assert_eq(a.method, ST_CI_BCA);
    cr_assert_eq(b.method, ST_CI_BCA);
    cr_assert_eq(a.est, b.est);
    cr_assert_eq(a.lo, b.lo, "lo %.17g vs %.17g", a.lo, b.lo);
    cr_assert_eq(a.hi, b.hi, "hi %.17g vs %.17g", a.hi, b.hi);
    cr_assert_eq(a.z0, b.z0);
    cr_assert_eq(a.accel, b.accel);
}

static double uses_third(const double (*m)[ST_BOOT_MAX_METRICS]) { return m[0][0] - m[2][0]; }

Test(kboot, too_few_runs_in_a_group_read_gives_no_interval) {
    const double x[] = {1, 2, 3, 4}, z[] = {5, 6};
    st_sample g[3] = {{4, {x}}, {4, {x}}, {2, {z}}};
    st_kstat ks[2] = {{ratiok, 3u}, {uses_third, 5u}};
    st_boot_opts o = {1000, 0.95, 1};
    st_interval out[2];
    st_bootstrap_groups(g, 3, ks, 2, &o, out);
    cr_assert_neq(out[0].method, ST_CI_NONE); /* does not read the short group */
    cr_assert_eq(out[1].method, ST_CI_NONE);
    cr_assert_eq(out[1].est, 2.5 - 5.5);
    cr_assert_str_eq(out[1].why, "fewer than 3 runs in a group: no interval");
}

Test(bh, adjusted_values_by_hand) {
    const double p[] = {0.01, 0.04, 0.03, 0.005, NAN};
    double q[5];
    st_bh_adjust(p, 5, q);
    /* m = 4: 0.005 * 4/1 = 0.02, 0.01 * 4/2 = 0.02, 0.03 * 4/3 = 0.04, 0.04 * 4/4 = 0.04. */
    cr_assert_float_eq(q[3], 0.02, 1e-15);
    cr_assert_float_eq(q[0], 0.02, 1e-15);
    cr_assert_float_eq(q[2], 0.04, 1e-15);
    cr_assert_float_eq(q[1], 0.04, 1e-15);
    cr_assert(isnan(q[4]));
    /* Monotonicity binds: 0.02 * 3 = 0.06 > 0.021 * 3/2 = 0.0315. */
    const double p2[] = {0.9, 0.021, 0.02};
    st_bh_adjust(p2, 3, q);
    cr_assert_float_eq(q[2], 0.0315, 1e-15);
    cr_assert_float_eq(q[1], 0.0315, 1e-15);
    cr_assert_float_eq(q[0], 0.9, 1e-15);
    /* Capped at 1. */
    const double p3[] = {0.8, 0.9};
    st_bh_adjust(p3, 2, q);
    cr_assert_float_eq(q[0], 0.9, 1e-15);
    cr_assert_float_eq(q[1], 0.9, 1e-15);
}

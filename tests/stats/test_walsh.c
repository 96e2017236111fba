/* test_walsh.c - the exact Walsh-average interval of the Hodges-Lehmann estimate (stats/st_walsh.h)
 * against tests/stats/walsh_reference.py (Python standard library: the signed-rank null distribution
 * counted with integers, Hollander and Wolfe's C, the interval's order statistics). */
#include "st_walsh.h"

#include "covtest.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

Test(walsh, ranks_and_achieved_levels_match_the_integer_count) {
    struct {
        size_t n, C;
        double achieved;
    } want[] = {{6, 1, 0.96875},
                {7, 3, 0.953125},
                {10, 9, 0.951171875},
                {12, 14, 0.95751953125},
                {30, 138, 0.950289878994226},
                {100, 1956, 0.950076240395707}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double a;
        cr_assert_eq(st_walsh_rank(want[i].n, 0.95, &a), want[i].C, "n %zu", want[i].n);
        near(a, want[i].achieved, 1e-12, "achieved level");
    }
    double a;
    cr_assert_eq(st_walsh_rank(20, 0.90, &a), 61);
    near(a, 0.902692794799805, 1e-12, "90% at n = 20");
    cr_assert_eq(st_walsh_rank(5, 0.95, &a), 0, "5 blocks cannot reach 95%%");
    cr_assert(isnan(a));
    cr_assert_eq(st_walsh_rank(0, 0.95, NULL), 0);
    /* Beyond the exact count, the normal approximation continues it. */
    size_t exact = st_walsh_rank(ST_WALSH_EXACT_MAX, 0.95, NULL),
           approx = st_walsh_rank(ST_WALSH_EXACT_MAX + 1, 0.95, NULL);
    cr_assert(approx > exact && approx < exact + ST_WALSH_EXACT_MAX + 1, "%zu then %zu", exact, approx);
}

Test(walsh, interval_of_two_data_sets) {
    double d12[12] = {0.031, -0.012, 0.054, 0.008, 0.017, -0.041, 0.026, 0.093, 0.002, 0.011, -0.006, 0.038};
    st_interval iv;
    st_walsh_interval(d12, 12, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_EXACT);
    near(iv.est, 0.016750000000000001, 1e-15, "HL");
    near(iv.lo, -0.002, 1e-15, "lower");
    near(iv.hi, 0.040500000000000001, 1e-15, "upper");
    double x[30];
    unsigned long long s = 777;
    for (int i = 0; i < 30; i++) {
        s = (1103515245ull * s + 12345ull) % 2147483648ull;
        x[i] = (double)s / 2147483648.0 - 0.5;
    }
    st_walsh_interval(x, 30, 0.95, &iv);
    near(iv.est, -0.042172321584075689, 1e-14, "HL 30");
    near(iv.lo, -0.16573649295605719, 1e-14, "lower 30");
    near(iv.hi, 0.072092711459845304, 1e-14, "upper 30");
    st_walsh_interval(x, 5, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
    cr_assert(strstr(iv.why, "too few blocks"), "%s", iv.why);
    double same[8] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    st_walsh_interval(same, 8, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_DEGENERATE);
    cr_assert(iv.lo == 0.1 && iv.hi == 0.1);
    x[3] = NAN;
    st_walsh_interval(x, 30, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
}

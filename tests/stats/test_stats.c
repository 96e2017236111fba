/* test_stats.c - Criterion tests of the statistics module: estimators, rank test, bootstrap, analyze end to end.
 *
 * Reference values were computed independently with a throwaway python3
 * script (standard library only: statistics, fractions, random), never with
 * this code:
 *  - quantiles: a type-7 implementation, cross-checked with
 *    statistics.quantiles(x, n=4, method='inclusive');
 *  - Mann-Whitney: U by counting pairs (ties 1/2); exact p by counting the
 *    arrangements with Fraction-free integer recursion over (u, m, n) and
 *    dividing by C(m + n, m); the tie case by the normal approximation with
 *    tie and continuity correction, Phi from math.erf;
 *  - BCa: Python's random.Random resampling both groups with B = 400000
 *    (three seeds agreed to 3e-4 on the endpoints), z0 from
 *    statistics.NormalDist, jackknife acceleration by the two-sample formula
 *    of docs/STATISTICS.md.  The acceleration is deterministic and compared
 *    exactly; z0 and the endpoints carry Monte Carlo error at B = 10000,
 *    whose spread over 20 seeds was 0.04 (z0) and 0.004 (endpoints), so the
 *    tolerances are 0.06 and 0.008.
 */
#include "st_boot.h"
#include "st_desc.h"
#include "st_rank.h"
#include "st_fmt.h"
#include "../../contracts/ct_json.h"
#include "../../contracts/ct_out.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

/* ---- Fixed data ---------------------------------------------------------- */

static const double X[15] = {1.31, 1.18, 1.27, 1.45, 1.22, 1.39, 1.29, 1.35, 1.20, 1.52, 1.26, 1.33, 1.41, 1.24, 1.30};
static const double XB[15] = {1.36, 1.18, 1.27, 1.45, 1.22, 1.39, 1.29, 1.35, 1.20, 1.52, 1.26, 1.33, 1.41, 1.24, 1.30};
static const double Y[12] = {1.02, 0.97, 1.05, 1.00, 0.93, 1.08, 0.99, 1.03, 1.11, 0.96, 1.01, 1.04};
static const double X3[15] = {1.031, 1.047, 0.962, 1.104, 1.012, 0.988, 1.075, 1.059,
                              0.951, 1.083, 1.021, 1.066, 0.979, 1.093, 1.044};

#define EPS 1e-12

/* ---- Descriptive statistics ---------------------------------------------- */

Test(desc, quantiles_median_mad_against_reference) {
    st_desc d;
    st_describe(X, 15, &d);
    cr_assert_eq(d.n, 15);
    cr_assert_float_eq(d.median, 1.3, EPS);
    cr_assert_float_eq(d.q1, 1.25, EPS);
    cr_assert_float_eq(d.q3, 1.37, EPS);
    cr_assert_float_eq(d.mad, 0.06, EPS);
    cr_assert_float_eq(d.min, 1.18, EPS);
    cr_assert_float_eq(d.max, 1.52, EPS);
    cr_assert_eq(d.outliers, 0);
    st_describe(Y, 12, &d);
    cr_assert_float_eq(d.median, 1.015, EPS);
    cr_assert_float_eq(d.q1, 0.985, EPS);
    cr_assert_float_eq(d.q3, 1.0425, EPS);
    cr_assert_float_eq(d.mad, 0.03, EPS);
}

Test(desc, tukey_fences_count_outliers) {
    const double z[10] = {10, 11, 12, 11, 10, 12, 11, 30, -5, 11};
    st_desc d;
    st_describe(z, 10, &d);
    cr_assert_float_eq(d.median, 11.0, EPS);
    cr_assert_float_eq(d.q1, 10.25, EPS);
    cr_assert_float_eq(d.q3, 11.75, EPS);
    cr_assert_eq(d.outliers, 2); /* 30 and -5 */
    /* On the fence is not outside it: Q1 3.25, Q3 7.75, fences -3.5 and 14.5. */
    double f[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 14.5};
    st_describe(f, 10, &d);
    cr_assert_float_eq(d.q3 + 1.5 * (d.q3 - d.q1), 14.5, EPS);
    cr_assert_eq(d.outliers, 0);
    f[0] = -3.5;
    f[9] = 14.6;
    st_describe(f, 10, &d);
    cr_assert_eq(d.outliers, 1);
}

Test(desc, nan_skipped_and_empty_is_nan) {
    const double v[4] = {3, NAN, 1, 2};
    st_desc d;
    st_describe(v, 4, &d);
    cr_assert_eq(d.n, 3);
    cr_assert_float_eq(d.median, 2.0, EPS);
    st_describe(v, 0, &d);
    cr_assert_eq(d.n, 0);
    cr_assert(isnan(d.median) && isnan(d.mad));
    cr_assert(isnan(st_median(v, 0)));
    const double one = 7;
    cr_assert_float_eq(st_quantile_sorted(&one, 1, 0.25), 7.0, EPS);
}

Test(desc, quantile_select_equals_sorted_quantile) {
    /* Random arrays with many duplicates (values 0..9), several sizes and
     * probabilities: the selection must give the very same double. */
    unsigned x = 12345;
    double a[257], b[257];
    const double ps[7] = {0, 0.0125, 0.025, 0.3, 0.5, 0.975, 1};
    for (size_t n = 1; n <= 257; n += 16) {
        for (int rep = 0; rep < 4; rep++) {
            for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                a[i] = (double)((x >> 16) % (rep == 3 ? 1000 : 10));
            }
            memcpy(b, a, n * sizeof *a);
            st_sort(b, n);
            for (int k = 0; k < 7; k++) {
                double want = st_quantile_sorted(b, n, ps[k]);
                double got = st_quantile_select(a, n, ps[k]);
                cr_assert(got == want, "n %zu p %g: %g != %g", n, ps[k], got, want);
            }
        }
    }
}

/* ---- Mann-Whitney --------------------------------------------------------- */

Test(rank, exact_small) {
    const double a[3] = {3.1, 4.2, 5.3}, b[4] = {1.0, 2.0, 3.5, 4.0};
    st_mw r = st_mann_whitney(a, 3, b, 4);
    cr_assert_float_eq(r.u, 10.0, EPS);
    cr_assert_eq(r.exact, 1);
    cr_assert_float_eq(r.p, 8.0 / 35.0, 1e-12); /* 0.22857142857142856 */
}

Test(rank, exact_15_by_12) {
    st_mw r = st_mann_whitney(X3, 15, Y, 12);
    cr_assert_float_eq(r.u, 111.0, EPS);
    cr_assert_eq(r.exact, 1);
    cr_assert_float_eq(r.p, 0.32285706396623076, 1e-12);
    /* Swapping the samples gives U' = m n - U and the same p. */
    st_mw s = st_mann_whitney(Y, 12, X3, 15);
    cr_assert_float_eq(s.u, 180.0 - 111.0, EPS);
    cr_assert_float_eq(s.p, r.p, 1e-12);
}

Test(rank, ties_use_normal_approximation) {
    const double t1[8] = {1, 2, 2, 3, 3, 3, 4, 5}, t0[9] = {2, 3, 4, 4, 5, 5, 6, 6, 7};
    st_mw r = st_mann_whitney(t1, 8, t0, 9);
    cr_assert_float_eq(r.u, 13.5, EPS);
    cr_assert_eq(r.exact, 0);
    cr_assert_float_eq(r.p, 0.03175895714806387, 1e-12);
}

Test(rank, all_tied_and_empty) {
    const double a[4] = {5, 5, 5, 5};
    st_mw r = st_mann_whitney(a, 4, a, 3);
    cr_assert_float_eq(r.u, 6.0, EPS);
    cr_assert_float_eq(r.p, 1.0, EPS);
    r = st_mann_whitney(a, 0, a, 3);
    cr_assert(isnan(r.p));
}

/* ---- Bootstrap -------------------------------------------------------------- */

static double ratio(const double *m1, const double *m0) { return m1[0] / m0[0]; }
static double median1(const double *m1, const double *m0) {
    (void)m0;
    return m1[0];
}

Test(boot, bca_ratio_of_medians_against_reference) {
    st_sample s1 = {15, {XB}}, s0 = {12, {Y}};
    st_stat st = {ratio, 1};
    st_boot_opts o = {10000, 0.95, 20250616};
    st_interval iv;
    st_bootstrap(&s1, &s0, &st, 1, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_BCA, "method %s (%s)", st_ci_name(iv.method), iv.why ? iv.why : "");
    cr_assert_float_eq(iv.est, 1.2807881773399015, EPS);
    cr_assert_float_eq(iv.accel, 0.002617910842856513, 1e-12);
    cr_assert_float_eq(iv.z0, -0.1398, 0.06, "z0 %g", iv.z0);
    cr_assert_float_eq(iv.lo, 1.20976, 0.008, "lo %g", iv.lo);
    cr_assert_float_eq(iv.hi, 1.35714, 0.008, "hi %g", iv.hi);
}

Test(boot, same_seed_same_interval_other_seed_other_draws) {
    st_sample s1 = {15, {XB}}, s0 = {12, {Y}};
    st_stat st = {ratio, 1};
    st_boot_opts o = {2000, 0.9, 7};
    st_interval a, b, c;
    st_bootstrap(&s1, &s0, &st, 1, &o, &a);
    st_bootstrap(&s1, &s0, &st, 1, &o, &b);
    cr_assert(a.lo == b.lo && a.hi == b.hi && a.z0 == b.z0);
    o.seed = 8;
    st_bootstrap(&s1, &s0, &st, 1, &o, &c);
    cr_assert(c.z0 != a.z0, "another seed must give other resamples");
}

Test(boot, jackknife_all_equal_falls_back_to_percentile) {
    /* Every leave-one-out median is 1, so the acceleration is 0/0; the
     * resampled medians are 1 or 2 (2 with probability about 6%), so the
     * 2.5% and 97.5% percentiles are exactly 1 and 2. */
    const double v[7] = {1, 1, 1, 1, 1, 2, 2};
    st_sample s1 = {7, {v}};
    st_stat st = {median1, 0};
    st_boot_opts o = {10000, 0.95, 1};
    st_interval iv;
    st_bootstrap(&s1, NULL, &st, 1, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_PERCENTILE, "method %s", st_ci_name(iv.method));
    cr_assert(iv.why && strstr(iv.why, "jackknife"));
    cr_assert_float_eq(iv.lo, 1.0, EPS);
    cr_assert_float_eq(iv.hi, 2.0, EPS);
}

Test(boot, identical_values_are_degenerate) {
    const double v[5] = {3, 3, 3, 3, 3}, w[4] = {2, 2, 2, 2};
    st_sample s1 = {5, {v}}, s0 = {4, {w}};
    st_stat st = {ratio, 1};
    st_boot_opts o = {1000, 0.95, 1};
    st_interval iv;
    st_bootstrap(&s1, &s0, &st, 1, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_DEGENERATE);
    cr_assert_float_eq(iv.est, 1.5, EPS);
    cr_assert_float_eq(iv.lo, 1.5, EPS);
    cr_assert_float_eq(iv.hi, 1.5, EPS);
}

Test(boot, too_few_runs_or_undefined_gives_no_interval) {
    const double v[2] = {3, 4}, w[5] = {1, 2, 3, 4, 5}, z[5] = {0, 0, 0, 1, 2};
    st_stat st = {ratio, 1};
    st_boot_opts o = {1000, 0.95, 1};
    st_interval iv;
    st_sample few = {2, {v}}, five = {5, {w}}, zeros = {5, {z}};
    st_bootstrap(&few, &five, &st, 1, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
    cr_assert_float_eq(iv.est, 3.5 / 3.0, EPS);
    cr_assert(iv.why && strstr(iv.why, "fewer than 3 runs in the cell"));
    st_bootstrap(&five, &few, &st, 1, &o, &iv);
    cr_assert(iv.why && strstr(iv.why, "fewer than 3 runs in the baseline"));
    st_bootstrap(&five, NULL, &st, 1, &o, &iv);
    cr_assert(iv.why && strstr(iv.why, "no baseline runs"));
    cr_assert(isnan(iv.est));
    /* Baseline median 0: undefined on the data. */
    st_bootstrap(&five, &zeros, &st, 1, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
    cr_assert(isnan(iv.est) && iv.why && strstr(iv.why, "undefined on the data"));
    /* A metric that was not measured. */
    st_sample missing = {5, {NULL}};
    st_bootstrap(&missing, &five, &st, 1, &o, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
}

/* ---- The shared JSON string writer and the plain number form ---------------- */

static char *json_of(const char *in) {
    static char out[256];
    FILE *f = fmemopen(out, sizeof out, "w");
    cr_assert(f);
    ct_json_str(f, in);
    fclose(f);
    return out;
}

Test(contracts, json_string_escapes) {
    cr_assert_str_eq(json_of("a\"b\\c\nd\re\tf\x01g\x1fh"), "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001fh\"");
    cr_assert_str_eq(json_of(NULL), "\"\"");
    cr_assert_str_eq(json_of("caf\xc3\xa9 |;"), "\"caf\xc3\xa9 |;\"", "UTF-8 and other bytes pass through");
}

Test(fmt, plain_has_no_exponent) {
    char b[64];
    static const struct {
        double v;
        int digits;
        const char *want;
    } cases[] = {{4.8e-15, 2, "0"},          {-1.7e-14, 4, "0"},      {1.23e-5, 3, "0.000012"},
                 {-4.2e-05, 2, "-0.000042"}, {0.00037, 2, "0.00037"}, {1.5, 4, "1.5"},
                 {17234, 4, "17234"},        {9999.7, 4, "10000"},    {0.99999, 3, "1"},
                 {3.2e-06, 2, "0.000003"},   {2e15, 4, "2e+15"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        st_fmt_plain(b, sizeof b, cases[k].v, cases[k].digits);
        cr_assert_str_eq(b, cases[k].want, "%g with %d digits", cases[k].v, cases[k].digits);
    }
}

/* The atomic writer: a FIFO, a directory or a symbolic link in a target's place is refused
 * (status 2, left as it was, no temporary); a regular file is replaced whole. */
Test(contracts, atomic_writer_refuses_non_regular_targets) {
    char dir[] = "/tmp/ct-out-XXXXXX", p[4][256], err[512];
    cr_assert(mkdtemp(dir));
    const char *names[4] = {"fifo", "dir", "link", "file"};
    for (int k = 0; k < 4; k++)
        snprintf(p[k], sizeof p[k], "%s/%s", dir, names[k]);
    cr_assert_eq(mkfifo(p[0], 0600), 0);
    cr_assert_eq(mkdir(p[1], 0700), 0);
    cr_assert_eq(symlink(p[3], p[2]), 0);
    FILE *f = fopen(p[3], "w");
    cr_assert(f && fputs("old\n", f) >= 0 && fclose(f) == 0);
    static const char *const kind[3] = {"a FIFO", "a directory", "a symbolic link"};
    for (int k = 0; k < 3; k++) {
        ct_outs set = {0};
        int status = 0;
        cr_assert_null(ct_outs_open(&set, p[k], &status, err, sizeof err), "%s", p[k]);
        cr_assert_eq(status, 2, "%s", p[k]);
        cr_assert(strstr(err, kind[k]), "%s: %s", p[k], err);
        ct_outs_abort(&set);
    }
    struct stat st;
    cr_assert(lstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode));
    cr_assert(lstat(p[1], &st) == 0 && S_ISDIR(st.st_mode));
    cr_assert(lstat(p[2], &st) == 0 && S_ISLNK(st.st_mode));
    ct_outs set = {0};
    int status = 0;
    f = ct_outs_open(&set, p[3], &status, err, sizeof err);
    cr_assert(f, "%s", err);
    fputs("new\n", f);
    cr_assert_eq(ct_outs_commit(&set, err, sizeof err), 0, "%s", err);
    char line[16] = "";
    f = fopen(p[3], "r");
    cr_assert(f && fgets(line, sizeof line, f));
    fclose(f);
    cr_assert_str_eq(line, "new\n");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 4 && rm -rf %s", dir, dir);
    cr_assert_eq(system(cmd), 0, "a temporary was left in %s", dir);
}

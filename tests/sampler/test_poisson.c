/* test_poisson.c - statistics of poisson mode, with fixed seeds, and its
 * exact agreement with the reference model.
 *
 * Tolerances are five standard errors of the quantity tested, so a correct
 * implementation fails about once in 3.5 million runs (and never, with fixed
 * seeds), while the wrong implementations named next to each test are off by
 * many standard errors.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "fuzz_model.h"
#include "sgc_internal.h"
#include "sgc_sample.h"

static uint32_t tid;

static void start_runtime(const char *nursery) {
    setenv("SGC_NURSERY", nursery, 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_GC_STRESS");
    unsetenv("SGC_PROFILE");
    sgc_init();
    static const sgc_type t = {"test_bytes", 0, 0, SGC_VAR_BYTES};
    tid = sgc_type_register(&t);
}

/* Mean and variance of n gaps of mean p.  The geometric distribution on
 * {1, 2, ...} with mean p has variance p (p - 1).  Catches: a fixed period
 * (variance 0), an exponential rounded up (mean p + 1/2) or to nearest
 * (variance p^2 + 1/12), gaps allowed to be 0. */
static void check_gaps(uint64_t p, uint64_t seed, int n) {
    sgc_sample_rng rng;
    sgc__sample_rng_seed(&rng, seed);
    double sum = 0, sumsq = 0, lag = 0, prev = 0;
    for (int i = 0; i < n; i++) {
        uint64_t g = sgc__sample_poisson_gap(&rng, p);
        cr_assert_geq(g, 1);
        double x = (double)g;
        sum += x;
        sumsq += x * x;
        lag += (x - (double)p) * (prev - (double)p);
        prev = x;
    }
    double mean = sum / n, var = sumsq / n - mean * mean;
    double want_var = (double)p * ((double)p - 1);
    double se_mean = sqrt(want_var / n);
    cr_assert(fabs(mean - (double)p) <= 5 * se_mean, "P=%llu: mean gap %.4f, expected %llu +- %.4f",
              (unsigned long long)p, mean, (unsigned long long)p, 5 * se_mean);
    /* The variance of the sample variance of a geometric is below 10 var^2/n
     * for these p (kurtosis <= 9 + 1/(p(p-1))). */
    double se_var = sqrt(10.0 / n) * want_var + 1e-9;
    cr_assert(fabs(var - want_var) <= 5 * se_var, "P=%llu: gap variance %.3f, expected %.3f +- %.3f",
              (unsigned long long)p, var, want_var, 5 * se_var);
    /* Independent draws: lag-1 correlation within 5 / sqrt(n). */
    double r = lag / (n * want_var);
    cr_assert(fabs(r) <= 5 / sqrt((double)n) + 1e-9, "P=%llu: lag-1 correlation %.5f", (unsigned long long)p, r);
}

Test(poisson, gap_mean_and_variance) {
    check_gaps(2, 1, 1000000);
    check_gaps(4, 2, 1000000);
    check_gaps(1000, 3, 400000);
    check_gaps(65536, 4, 400000);
}

Test(poisson, period_one_samples_every_byte) {
    sgc_sample_rng rng;
    sgc__sample_rng_seed(&rng, 99);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(sgc__sample_poisson_gap(&rng, 1), 1);
}

/* The byte estimate samples x P is unbiased: objects from 8 bytes to 3 P,
 * large ones included.  Catches: one sample per object at most (the big ones
 * would be undercounted by a third), a sample point lost at every collection
 * or nursery boundary, a mean gap off by a few percent. */
Test(poisson, byte_estimate_is_unbiased) {
    start_runtime("256K");
    const uint64_t p = 4096;
    double ratio_sum = 0;
    const int seeds = 8;
    uint64_t lcg = 12345;
    for (int seed = 1; seed <= seeds; seed++) {
        sgc_stats st0, st1;
        sgc_sampling_start(p, SGC_SAMPLE_POISSON, (uint64_t)seed);
        sgc_get_stats(&st0);
        uint64_t bytes = 0;
        while (bytes < ((uint64_t)24 << 20)) {
            lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = lcg >> 33;
            size_t payload = (r & 7) == 0 ? (size_t)(r >> 3) % (3 * p) : (size_t)(r >> 3) % 200;
            sgc_alloc(tid, payload);
            bytes += SGC_FOOTPRINT(payload);
        }
        sgc_get_stats(&st1);
        cr_assert_eq(st1.sampled_bytes - st0.sampled_bytes, bytes);
        double est = (double)(st1.alloc_sample_points - st0.alloc_sample_points) * (double)p;
        ratio_sum += est / (double)bytes;
    }
    sgc_sampling_stop();
    double ratio = ratio_sum / seeds;
    /* About 6144 points per seed: relative standard error 1.28% per seed,
     * 0.45% over 8 seeds. */
    double se = 1.0 / sqrt(6144.0 * seeds);
    cr_assert(fabs(ratio - 1) <= 5 * se, "estimate / true bytes = %.5f, expected 1 +- %.5f", ratio, 5 * se);
}

/* The runtime and the model agree on every allocation of a long mixed run,
 * with collections, restarts and several seeds. */
Test(poisson, exact_against_the_model) {
    start_runtime("8K");
    model m;
    model_init(&m, NULL, NULL);
    uint64_t lcg = 777;
    for (int session = 0; session < 40; session++) {
        uint64_t p = (uint64_t[]){1, 7, 64, 1000, 5000, 20000, 100000}[session % 7];
        sgc_sampling_start(p, SGC_SAMPLE_POISSON, (uint64_t)session * 31);
        model_start(&m, p, SGC_SAMPLE_POISSON, (uint64_t)session * 31);
        for (int i = 0; i < 2000; i++) {
            lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = lcg >> 33;
            size_t payload = (r & 31) == 0 ? (size_t)(r >> 5) % 30000 : (size_t)(r >> 5) % 300;
            uint64_t before = sgc__stats.alloc_sample_points;
            sgc_alloc(tid, payload);
            uint64_t got = sgc__stats.alloc_sample_points - before;
            uint64_t want = model_alloc(&m, SGC_FOOTPRINT(payload), 0, 0);
            cr_assert_eq(got, want, "session %d allocation %d (P=%llu, %zu bytes)", session, i, (unsigned long long)p,
                         (size_t)SGC_FOOTPRINT(payload));
            if ((r & 511) == 1)
                sgc_collect_minor();
            if ((r & 2047) == 2)
                sgc_collect_major();
        }
    }
    model_free(&m);
}

Test(poisson, same_seed_same_samples) {
    start_runtime("64K");
    uint64_t runs[3][64];
    uint64_t seeds[3] = {42, 42, 43};
    for (int k = 0; k < 3; k++) {
        sgc_sampling_start(5000, SGC_SAMPLE_POISSON, seeds[k]);
        for (int i = 0; i < 64; i++) {
            uint64_t before = sgc__stats.alloc_sample_points;
            for (int j = 0; j < 100; j++)
                sgc_alloc(tid, 56);
            runs[k][i] = sgc__stats.alloc_sample_points - before;
        }
    }
    cr_assert_arr_eq(runs[0], runs[1], sizeof runs[0]);
    cr_assert_arr_neq(runs[0], runs[2], sizeof runs[0]);
}

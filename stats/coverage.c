/* coverage.c - build/bin/stats-coverage: simulated coverage of analyze's BCa overhead interval.
 *
 * Draws many synthetic experiments whose true overhead (ratio of the
 * population medians) is known, runs the same st_bootstrap analyze uses on
 * each, and prints how often the interval contains the truth.  A correct
 * 95% interval covers about 95% of the time (binomial standard error 0.7%
 * at 1000 experiments).  Noise models: lognormal (multiplicative, symmetric
 * on a log scale) and 1 + gamma(2) (right-skewed, like run times that
 * collect interference); in both the cell is the baseline scaled by the
 * true overhead, so the ratio of medians is exactly that factor.
 *
 * --adaptive H instead checks the adaptive rule of sweep --halfwidth H
 * (st_adaptive_simulate): per-block log-ratios log(overhead) + noise * e
 * (e normal, or Student t3 with --dist t3), at least --runs blocks, more
 * one at a time while the paired interval is wider than +-H, at most
 * --max-blocks; the coverage of the final interval, since stopping on the
 * data could bias it.
 */
#include "st_boot.h"
#include "st_paired.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ratio(const double *m1, const double *m0) { return m1[0] / m0[0]; }

static void usage(FILE *f) {
    fputs("usage: stats-coverage [--runs N] [--experiments K] [--resamples B] [--noise S] "
          "[--dist lognormal|gamma|t3] [--overhead F] [--adaptive H [--max-blocks N]]\n"
          "  defaults: 30 runs per group, 1000 experiments, 2000 resamples, noise 0.03,\n"
          "  lognormal, overhead 1.1; prints the coverage of the 95% BCa interval.\n"
          "  --adaptive H: the coverage of the paired interval under sweep --halfwidth H\n"
          "  (a fraction, 0.02 = 2%), from --runs blocks up to --max-blocks (default 200).\n",
          f);
}

int main(int argc, char **argv) {
    long runs = 30, experiments = 1000, resamples = 2000;
    double noise = 0.03, overhead = 1.1;
    int gamma = 0, t3 = 0;
    double adaptive = 0;
    long max_blocks = 200;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "stats-coverage: %s needs a value\n", o);
            return 2;
        }
        i++;
        char *end;
        if (strcmp(o, "--runs") == 0)
            runs = strtol(v, &end, 10);
        else if (strcmp(o, "--experiments") == 0)
            experiments = strtol(v, &end, 10);
        else if (strcmp(o, "--resamples") == 0)
            resamples = strtol(v, &end, 10);
        else if (strcmp(o, "--noise") == 0)
            noise = strtod(v, &end);
        else if (strcmp(o, "--overhead") == 0)
            overhead = strtod(v, &end);
        else if (strcmp(o, "--dist") == 0) {
            end = (char *)v + strlen(v);
            if (strcmp(v, "gamma") == 0)
                gamma = 1;
            else if (strcmp(v, "t3") == 0)
                t3 = 1;
            else if (strcmp(v, "lognormal"))
                end = (char *)v;
        } else if (strcmp(o, "--adaptive") == 0) {
            adaptive = strtod(v, &end);
            if (!(adaptive > 0 && adaptive < 1))
                end = (char *)v;
        } else if (strcmp(o, "--max-blocks") == 0) {
            max_blocks = strtol(v, &end, 10);
            if (max_blocks < 3)
                end = (char *)v;
        } else {
            fprintf(stderr, "stats-coverage: unknown option '%s'\n", o);
            usage(stderr);
            return 2;
        }
        if (*end || end == v || runs < 3 || experiments < 1 || resamples < 100 || !(noise > 0) || !(overhead > 0)) {
            fprintf(stderr, "stats-coverage: bad value '%s' for %s\n", v, o);
            return 2;
        }
    }
    if (adaptive > 0) {
        st_adaptive rule = {adaptive, (size_t)runs, (size_t)(max_blocks > runs ? max_blocks : runs)};
        st_adaptive_sim s;
        st_adaptive_simulate(&rule, log(overhead), noise, t3, (size_t)experiments, (size_t)resamples, 99, &s);
        printf("adaptive: target +-%g, blocks %ld..%ld, %s noise %g per block, ratio %g: coverage %.3f (%zu of %zu; "
               "interval above the truth %zu, below %zu), mean blocks %.1f, stopped at the maximum %zu, "
               "mean half-width %.4f\n",
               adaptive, runs, max_blocks, t3 ? "t3" : "normal", noise, overhead,
               (double)s.covered / (double)s.experiments, s.covered, s.experiments, s.above, s.below, s.mean_blocks,
               s.at_max, s.mean_halfwidth);
        return 0;
    }
    if (t3) {
        fprintf(stderr, "stats-coverage: --dist t3 is for --adaptive\n");
        return 2;
    }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 99);
    double *a = malloc((size_t)runs * sizeof *a), *b = malloc((size_t)runs * sizeof *b);
    long cover = 0, bca = 0, above = 0, below = 0;
    double width = 0;
    for (long k = 0; k < experiments; k++) {
        for (long i = 0; i < runs; i++) {
            double e1 = gamma ? 1 + gsl_ran_gamma(r, 2, noise) : exp(gsl_ran_gaussian(r, noise));
            double e0 = gamma ? 1 + gsl_ran_gamma(r, 2, noise) : exp(gsl_ran_gaussian(r, noise));
            a[i] = overhead * e1;
            b[i] = e0;
        }
        st_sample s1 = {(size_t)runs, {a}}, s0 = {(size_t)runs, {b}};
        st_stat st = {ratio, 1};
        st_boot_opts o = {(size_t)resamples, 0.95, (uint64_t)k + 1};
        st_interval iv;
        st_bootstrap(&s1, &s0, &st, 1, &o, &iv);
        bca += iv.method == ST_CI_BCA;
        if (iv.lo > overhead)
            above++;
        else if (iv.hi < overhead)
            below++;
        else
            cover++;
        width += iv.hi - iv.lo;
    }
    printf("runs %ld, %s noise %g, overhead %g: coverage %.3f (%ld of %ld; interval above the truth %ld, "
           "below %ld), BCa in %ld, mean width %.4f\n",
           runs, gamma ? "1+gamma(2)" : "lognormal", noise, overhead, (double)cover / (double)experiments, cover,
           experiments, above, below, bca, width / (double)experiments);
    free(a);
    free(b);
    gsl_rng_free(r);
    return 0;
}

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
 * --adaptive H instead checks a stopping rule of the adaptive rounds of
 * sweep --halfwidth H (st_stop.h): per-block log-ratios log(overhead) +
 * noise * e (e normal, or Student t3 with --dist t3), or log(overhead) plus
 * the block differences of a committed sweep's workloads (--noise-from
 * DIR: every workload in turn, st_synth.h); --runs pilot blocks, at most
 * --max-blocks; the coverage of the interval the rule reports (stopping on
 * the data can bias it) and the blocks it took, for the rule given by
 * --rule (two-stage: the sweep's; sequential: the one before it) or every
 * rule (--rule all).
 */
#include "st_boot.h"
#include "st_covbench.h"
#include "st_paired.h"
#include "st_stop.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ratio(const double *m1, const double *m0) { return m1[0] / m0[0]; }

static void usage(FILE *f) {
    fputs("usage: stats-coverage [--runs N] [--experiments K] [--resamples B] [--noise S] "
          "[--dist lognormal|gamma|t3] [--overhead F]\n"
          "                      [--adaptive H [--max-blocks N] [--rule R|all] [--noise-from DIR]]\n"
          "  defaults: 30 runs per group, 1000 experiments, 2000 resamples, noise 0.03,\n"
          "  lognormal, overhead 1.1; prints the coverage of the 95% BCa interval.\n"
          "  --adaptive H: the coverage of the paired interval under sweep --halfwidth H\n"
          "  (a fraction, 0.02 = 2%), --runs pilot blocks, at most --max-blocks (default 200);\n"
          "  --rule two-stage (the sweep's, default), sequential (the rule before it),\n"
          "  two-stage-plain, confirm, or all; normal or t3 noise, or --noise-from DIR: the\n"
          "  block differences of the blocked sweep in DIR, each workload in turn.\n",
          f);
}

static void print_rule(const char *what, const st_stop *st, const st_stop_sim *s) {
    size_t judged = s->experiments - s->none;
    double lo, hi;
    st_cov_binomial(s->covered, judged, 0.95, &lo, &hi);
    printf("  %-15s %s: coverage %.3f [%.3f, %.3f] (%zu of %zu; above the truth %zu, below %zu%s), mean blocks "
           "%.1f, extended %zu, at the maximum %zu, mean half-width %.4f\n",
           st_stop_rule_name(st->rule), what, judged ? (double)s->covered / (double)judged : NAN, lo, hi, s->covered,
           judged, s->above, s->below, s->none ? ", some without an interval" : "", s->mean_blocks, s->extended,
           s->at_max, s->mean_halfwidth);
}

/* --adaptive: the coverage and cost of the stopping rules (st_stop.h). */
static int adaptive_coverage(double H, size_t pilot, size_t max, st_stop_rule rule, int all_rules, double true_log,
                             double noise, int t3, const char *noise_from, size_t experiments, size_t resamples) {
    st_nsource *ns = NULL;
    st_ipsource *ips = NULL;
    size_t nns = 0, nips = 0;
    if (noise_from) {
        char err[1024];
        if (st_sources_load(noise_from, &ns, &nns, &ips, &nips, err, sizeof err)) {
            fprintf(stderr, "stats-coverage: %s\n", err);
            return 2;
        }
        st_ipsources_free(ips, nips);
        if (!nns) {
            fprintf(stderr,
                    "stats-coverage: %s: no blocks of two used runs (not a blocked sweep): no block "
                    "differences to draw\n",
                    noise_from);
            return 2;
        }
    }
    printf("adaptive: target +-%g, pilot %zu blocks, at most %zu, ratio %g, %zu experiments, %zu resamples\n", H, pilot,
           max, exp(true_log), experiments, resamples);
    for (int r = 0; r < ST_STOP_NRULES; r++) {
        if (!all_rules && r != (int)rule)
            continue;
        st_stop st = {(st_stop_rule)r, H, pilot, max, 0.95};
        if (!noise_from) {
            st_stop_source src = {t3, noise, NULL};
            st_stop_sim s;
            st_stop_simulate(&st, true_log, &src, experiments, resamples, 99, &s);
            char what[64];
            snprintf(what, sizeof what, "%s noise %g per block", t3 ? "t3" : "normal", noise);
            print_rule(what, &st, &s);
            continue;
        }
        /* Every workload's blocks in turn, the experiments shared out. */
        st_stop_sim all;
        memset(&all, 0, sizeof all);
        double blocks = 0, hw = 0;
        for (size_t i = 0; i < nns; i++) {
            size_t k = experiments / nns + (i < experiments % nns);
            if (!k)
                continue;
            st_stop_source src = {2, 0, &ns[i]};
            st_stop_sim s;
            st_stop_simulate(&st, true_log, &src, k, resamples, 99 + i, &s);
            char what[256];
            snprintf(what, sizeof what, "%s %s (block SD %.3f)", ns[i].sweep, ns[i].workload, ns[i].sd_diff);
            print_rule(what, &st, &s);
            all.experiments += s.experiments, all.covered += s.covered, all.above += s.above, all.below += s.below;
            all.none += s.none, all.extended += s.extended, all.at_max += s.at_max;
            blocks += s.mean_blocks * (double)s.experiments;
            hw += s.mean_halfwidth * (double)(s.experiments - s.none);
        }
        all.mean_blocks = blocks / (double)all.experiments;
        all.mean_halfwidth = hw / (double)(all.experiments - all.none);
        print_rule("every workload", &st, &all);
    }
    st_nsources_free(ns, nns);
    return 0;
}

int main(int argc, char **argv) {
    long runs = 30, experiments = 1000, resamples = 2000;
    double noise = 0.03, overhead = 1.1;
    int gamma = 0, t3 = 0;
    double adaptive = 0;
    long max_blocks = 200;
    int all_rules = 0;
    st_stop_rule rule = ST_STOP_TWO_STAGE;
    const char *noise_from = NULL;
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
        } else if (strcmp(o, "--rule") == 0) {
            end = (char *)v + strlen(v);
            if (strcmp(v, "all") == 0)
                all_rules = 1;
            else if (st_stop_rule_parse(v, &rule))
                end = (char *)v;
        } else if (strcmp(o, "--noise-from") == 0) {
            noise_from = v;
            end = (char *)v + strlen(v);
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
    if (adaptive > 0)
        return adaptive_coverage(adaptive, (size_t)runs, (size_t)(max_blocks > runs ? max_blocks : runs), rule,
                                 all_rules, log(overhead), noise, t3, noise_from, (size_t)experiments,
                                 (size_t)resamples);
    if (noise_from || all_rules || rule != ST_STOP_TWO_STAGE) {
        fprintf(stderr, "stats-coverage: --rule and --noise-from are for --adaptive\n");
        return 2;
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

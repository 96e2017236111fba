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

/* The command line's settings, with their defaults. */
typedef struct {
    long runs, experiments, resamples, max_blocks;
    double noise, overhead, adaptive;
    int gamma, t3, all_rules;
    st_stop_rule rule;
    const char *noise_from;
} cov_opts;

/* Reads the options into o; returns -1 to go on, else the exit status (0
 * after --help, 2 after a message for a bad option or value). */
static int parse_args(int argc, char **argv, cov_opts *o) {
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "stats-coverage: %s needs a value\n", opt);
            return 2;
        }
        i++;
        char *end;
        if (strcmp(opt, "--runs") == 0)
            o->runs = strtol(v, &end, 10);
        else if (strcmp(opt, "--experiments") == 0)
            o->experiments = strtol(v, &end, 10);
        else if (strcmp(opt, "--resamples") == 0)
            o->resamples = strtol(v, &end, 10);
        else if (strcmp(opt, "--noise") == 0)
            o->noise = strtod(v, &end);
        else if (strcmp(opt, "--overhead") == 0)
            o->overhead = strtod(v, &end);
        else if (strcmp(opt, "--dist") == 0) {
            end = (char *)v + strlen(v);
            if (strcmp(v, "gamma") == 0)
                o->gamma = 1;
            else if (strcmp(v, "t3") == 0)
                o->t3 = 1;
            else if (strcmp(v, "lognormal"))
                end = (char *)v;
        } else if (strcmp(opt, "--adaptive") == 0) {
            o->adaptive = strtod(v, &end);
            if (!(o->adaptive > 0 && o->adaptive < 1))
                end = (char *)v;
        } else if (strcmp(opt, "--rule") == 0) {
            end = (char *)v + strlen(v);
            if (strcmp(v, "all") == 0)
                o->all_rules = 1;
            else if (st_stop_rule_parse(v, &o->rule))
                end = (char *)v;
        } else if (strcmp(opt, "--noise-from") == 0) {
            o->noise_from = v;
            end = (char *)v + strlen(v);
        } else if (strcmp(opt, "--max-blocks") == 0) {
            o->max_blocks = strtol(v, &end, 10);
            if (o->max_blocks < 3)
                end = (char *)v;
        } else {
            fprintf(stderr, "stats-coverage: unknown option '%s'\n", opt);
            usage(stderr);
            return 2;
        }
        if (*end || end == v || o->runs < 3 || o->experiments < 1 || o->resamples < 100 || !(o->noise > 0) ||
            !(o->overhead > 0)) {
            fprintf(stderr, "stats-coverage: bad value '%s' for %s\n", v, opt);
            return 2;
        }
    }
    return -1;
}

/* The BCa overhead interval's coverage over o->experiments simulated
 * experiments (seed 99), printed as one line. */
static int bca_coverage(const cov_opts *o) {
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 99);
    double *a = malloc((size_t)o->runs * sizeof *a), *b = malloc((size_t)o->runs * sizeof *b);
    long cover = 0, bca = 0, above = 0, below = 0;
    double width = 0;
    for (long k = 0; k < o->experiments; k++) {
        for (long i = 0; i < o->runs; i++) {
            double e1 = o->gamma ? 1 + gsl_ran_gamma(r, 2, o->noise) : exp(gsl_ran_gaussian(r, o->noise));
            double e0 = o->gamma ? 1 + gsl_ran_gamma(r, 2, o->noise) : exp(gsl_ran_gaussian(r, o->noise));
            a[i] = o->overhead * e1;
            b[i] = e0;
        }
        st_sample s1 = {(size_t)o->runs, {a}}, s0 = {(size_t)o->runs, {b}};
        st_stat st = {ratio, 1};
        st_boot_opts bo = {(size_t)o->resamples, 0.95, (uint64_t)k + 1};
        st_interval iv;
        st_bootstrap(&s1, &s0, &st, 1, &bo, &iv);
        bca += iv.method == ST_CI_BCA;
        if (iv.lo > o->overhead)
            above++;
        else if (iv.hi < o->overhead)
            below++;
        else
            cover++;
        width += iv.hi - iv.lo;
    }
    printf("runs %ld, %s noise %g, overhead %g: coverage %.3f (%ld of %ld; interval above the truth %ld, "
           "below %ld), BCa in %ld, mean width %.4f\n",
           o->runs, o->gamma ? "1+gamma(2)" : "lognormal", o->noise, o->overhead,
           (double)cover / (double)o->experiments, cover, o->experiments, above, below, bca,
           width / (double)o->experiments);
    free(a);
    free(b);
    gsl_rng_free(r);
    return 0;
}

/* Options, then the adaptive rule's check (--adaptive) or the BCa coverage. */
int main(int argc, char **argv) {
    cov_opts opts = {.runs = 30,
                     .experiments = 1000,
                     .resamples = 2000,
                     .max_blocks = 200,
                     .noise = 0.03,
                     .overhead = 1.1,
                     .rule = ST_STOP_TWO_STAGE};
    cov_opts *o = &opts;
    int status = parse_args(argc, argv, o);
    if (status >= 0)
        return status;
    if (o->adaptive > 0)
        return adaptive_coverage(o->adaptive, (size_t)o->runs,
                                 (size_t)(o->max_blocks > o->runs ? o->max_blocks : o->runs), o->rule, o->all_rules,
                                 log(o->overhead), o->noise, o->t3, o->noise_from, (size_t)o->experiments,
                                 (size_t)o->resamples);
    if (o->noise_from || o->all_rules || o->rule != ST_STOP_TWO_STAGE) {
        fprintf(stderr, "stats-coverage: --rule and --noise-from are for --adaptive\n");
        return 2;
    }
    if (o->t3) {
        fprintf(stderr, "stats-coverage: --dist t3 is for --adaptive\n");
        return 2;
    }
    return bca_coverage(o);
}

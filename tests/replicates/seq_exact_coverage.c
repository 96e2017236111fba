/* seq_exact_coverage.c - the coverage of the exact Walsh-average interval on
 * cells that the old sequential rule extended (a benchmark: a figure to read,
 * not a pass/fail test; make bench-seq-exact-coverage).
 *
 * Sweeps whose adaptive rounds ran by the sequential rule (one more block
 * while the BCa interval of all the cell's blocks was wider than +-H; meta
 * without adaptive_rule) are read by analyze with the plain paired interval
 * of all their blocks, which is the exact one from the Walsh averages
 * (st_paired_interval) at 6 blocks or more.  stats-coverage --rule
 * sequential measures the BCa interval the rule judged; this measures the
 * one analyze prints for those sweeps: the same stopping (st_adaptive_more
 * on BCa, block by block, the pilot's role order balanced and the later
 * blocks' balanced as the sweep's adaptive rounds choose it), then
 * st_paired_interval of all n blocks.  The blocks are drawn as
 * stats-coverage --noise-from draws them: a circular block bootstrap of a
 * committed blocked sweep's block differences, each workload in turn. */
#include "st_blockboot.h"
#include "st_paired.h"
#include "st_synth.h"
#include "st_walsh.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
    fprintf(stderr, "usage: seq-exact-coverage --noise-from DIR [--halfwidth H] [--runs N] [--max-blocks N]\n"
                    "                          [--experiments K] [--resamples B] [--overhead F]\n"
                    "  defaults: H 0.02, 30 pilot blocks, at most 200, 900 experiments shared over the\n"
                    "  workloads, 1000 resamples, true ratio 1.1\n");
    exit(2);
}

/* The role order of block i (1: the compared run first), as the sweep's
 * adaptive rounds choose it: first in fewer than half so far. */
static int next_first(gsl_rng *rng, size_t firsts, size_t blocks) {
    if (2 * firsts < blocks)
        return 1;
    if (2 * firsts > blocks)
        return 0;
    return (int)gsl_rng_uniform_int(rng, 2);
}

typedef struct tally {
    size_t experiments, covered_exact, covered_bca, none, extended;
    double blocks, hw_exact;
} tally;

static void one_source(const st_nsource *src, double H, size_t n0, size_t max, double true_log, size_t experiments,
                       size_t resamples, uint64_t seed, tally *t) {
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)(seed & 0xffffffffu));
    double *d = malloc(max * sizeof *d);
    size_t *idx = malloc(max * sizeof *idx);
    int *first = malloc(n0 * sizeof *first);
    double truth = exp(true_log);
    for (size_t k = 0; k < experiments; k++) {
        st_boot_opts o = {resamples, 0.95, seed + k + 1};
        st_cbb_indices(rng, src->n, src->L, idx, max);
        for (size_t i = 0; i < n0; i++)
            first[i] = i < n0 / 2;
        if (n0 % 2)
            first[n0 - 1] = (int)gsl_rng_uniform_int(rng, 2);
        gsl_ran_shuffle(rng, first, n0, sizeof *first);
        size_t firsts = 0;
        for (size_t i = 0; i < max; i++) {
            int f = i < n0 ? first[i] : next_first(rng, firsts, i);
            firsts += (size_t)f;
            const st_nblock *b = &src->blocks[idx[i]];
            d[i] = true_log + (f ? b->wall[0] - b->wall[1] : b->wall[1] - b->wall[0]);
        }
        st_adaptive rule = {H, n0, max};
        st_interval bca, ex;
        size_t n = n0;
        while (st_adaptive_more(d, n, &rule, &o, &bca) && n < max)
            n++;
        st_paired_interval(d, n, &o, &ex);
        st_interval_exp(&ex);
        t->experiments++;
        t->extended += n > n0;
        t->blocks += (double)n;
        t->covered_bca += bca.method != ST_CI_NONE && bca.lo <= truth && truth <= bca.hi;
        if (ex.method == ST_CI_NONE || !isfinite(ex.lo) || !isfinite(ex.hi)) {
            t->none++;
            continue;
        }
        t->hw_exact += (ex.hi - ex.lo) / 2;
        t->covered_exact += ex.lo <= truth && truth <= ex.hi;
    }
    free(d), free(idx), free(first);
    gsl_rng_free(rng);
}

static void print_tally(const char *what, const tally *t) {
    size_t judged = t->experiments - t->none;
    printf("%s: exact %.3f (%zu of %zu), BCa it judged %.3f, blocks %.1f, extended %zu, exact half-width %.4f\n", what,
           judged ? (double)t->covered_exact / (double)judged : NAN, t->covered_exact, judged,
           t->experiments ? (double)t->covered_bca / (double)t->experiments : NAN,
           t->experiments ? t->blocks / (double)t->experiments : NAN, t->extended,
           judged ? t->hw_exact / (double)judged : NAN);
}

int main(int argc, char **argv) {
    const char *dir = NULL;
    double H = 0.02, overhead = 1.1;
    long n0 = 30, max = 200, experiments = 900, resamples = 1000;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!v)
            usage();
        if (!strcmp(o, "--noise-from"))
            dir = v;
        else if (!strcmp(o, "--halfwidth"))
            H = strtod(v, &end);
        else if (!strcmp(o, "--overhead"))
            overhead = strtod(v, &end);
        else if (!strcmp(o, "--runs"))
            n0 = strtol(v, &end, 10);
        else if (!strcmp(o, "--max-blocks"))
            max = strtol(v, &end, 10);
        else if (!strcmp(o, "--experiments"))
            experiments = strtol(v, &end, 10);
        else if (!strcmp(o, "--resamples"))
            resamples = strtol(v, &end, 10);
        else
            usage();
        if (end && *end) {
            fprintf(stderr, "seq-exact-coverage: %s %s: not a number\n", o, v);
            return 2;
        }
        i++;
    }
    if (!dir || H <= 0 || overhead <= 0 || n0 < 3 || max < n0 || experiments < 1 || resamples < 100) {
        fprintf(stderr, "seq-exact-coverage: give --noise-from DIR, H > 0, a ratio > 0, at least 3 pilot blocks, "
                        "--max-blocks >= --runs, 1 or more experiments, 100 or more resamples\n");
        return 2;
    }
    st_nsource *ns = NULL;
    st_ipsource *ips = NULL;
    size_t nns = 0, nips = 0;
    char err[1024];
    if (st_sources_load(dir, &ns, &nns, &ips, &nips, err, sizeof err)) {
        fprintf(stderr, "seq-exact-coverage: %s\n", err);
        return 2;
    }
    st_ipsources_free(ips, nips);
    if (!nns) {
        fprintf(stderr, "seq-exact-coverage: %s: no blocks of two used runs (not a blocked sweep)\n", dir);
        return 2;
    }
    printf("sequential rule (BCa judged), exact Walsh interval of all blocks reported: target +-%g, pilot %ld, at "
           "most %ld, ratio %g, %ld experiments, %ld resamples, noise from %s\n",
           H, n0, max, overhead, experiments, resamples, dir);
    tally all = {0};
    for (size_t i = 0; i < nns; i++) {
        size_t k = (size_t)experiments / nns + (i < (size_t)experiments % nns);
        if (!k)
            continue;
        tally t = {0};
        one_source(&ns[i], H, (size_t)n0, (size_t)max, log(overhead), k, (size_t)resamples, 99 + i, &t);
        char what[256];
        snprintf(what, sizeof what, "%s %s (block SD %.3f)", ns[i].sweep, ns[i].workload, ns[i].sd_diff);
        print_tally(what, &t);
        all.experiments += t.experiments, all.covered_exact += t.covered_exact, all.covered_bca += t.covered_bca;
        all.none += t.none, all.extended += t.extended, all.blocks += t.blocks, all.hw_exact += t.hw_exact;
    }
    print_tally("every workload", &all);
    st_nsources_free(ns, nns);
    return 0;
}

/* het_false_alarm.c - build/tests/inproc/het-false-alarm: how often the
 * in-process HET flag (st_inproc.h, heterogeneous: Cochran's Q over a cell's
 * processes, p < 0.05) fires on cells whose processes do not differ, under
 * this machine's noise (docs/STATISTICS.md, "Levels"; make bench-het).
 *
 * The noise: the in-process sources of the sweep directories given
 * (st_synth.h, st_sources_load: every process of a workload with at least
 * ST_SYNTH_MIN_BLOCKS complete blocks, its blocks in order).  Null ("A/A
 * like"): each source process's B segments divided by exp(m), m the median
 * of its per-block log-ratios, so that every process's population median
 * is the same (0) while its own tails, drift and autocorrelation stay.  A
 * synthetic cell draws P of those processes at random and N blocks of each
 * by the circular block bootstrap (st_synth_inproc, ratio 1), and is
 * estimated by the suite's own code (st_inproc_estimate, st_inproc_levels:
 * changepoints, each process's interval, the random-effects combination);
 * the flag fires when its Q test's p is below 0.05.  The same without the
 * centring ("observed") keeps the processes' own medians: what the flag
 * sees when processes do differ as they did in the sweep.  --iid: every
 * process's blocks drawn one at a time (block length 1), which keeps each
 * process's tails and removes its autocorrelation: whether the latter is
 * what makes the flag fire.
 *
 * Prints, per source and pooled, the firing rate with its exact (Clopper-
 * Pearson) 95% interval; a figure, not a pass/fail test: exit 0 when every
 * experiment ran, 2 for bad input.
 *
 * usage: het-false-alarm [--experiments K] [--procs P] [--blocks N] [--resamples B] [--seed S] [--iid] DIR...
 */
#include "st_synth.h"
#include "st_util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct het_opts {
    size_t experiments, procs, blocks, resamples;
    uint64_t seed;
    int iid; /* block length 1 for every process */
} het_opts;

/* Clopper-Pearson interval of k of n at 95%. */
static void exact_ci(size_t k, size_t n, double *lo, double *hi) {
    *lo = k ? gsl_cdf_beta_Pinv(0.025, (double)k, (double)(n - k + 1)) : 0.0;
    *hi = k < n ? gsl_cdf_beta_Pinv(0.975, (double)(k + 1), (double)(n - k)) : 1.0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n-1] (n >= 1), from a sorted copy. */
static double median_of(const double *v, size_t n) {
    double *c = ct_xmalloc(n * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

/* Source s with every process centred on its own median per-block
 * log-ratio (B segments' CPU divided by exp(median)): the null source.
 * The copy owns its blocks and ratios; free with free_centred. */
static void centred(const st_ipsource *s, int iid, st_ipsource *out) {
    *out = *s;
    out->p = ct_xmalloc(s->np * sizeof *out->p);
    for (size_t i = 0; i < s->np; i++) {
        const st_ipproc *q = &s->p[i];
        st_ipproc *c = &out->p[i];
        *c = *q;
        if (iid)
            c->L = 1;
        double m = median_of(q->r, q->n);
        c->b = ct_xmalloc(q->n * sizeof *c->b);
        c->r = ct_xmalloc(q->n * sizeof *c->r);
        memcpy(c->b, q->b, q->n * sizeof *c->b);
        for (size_t j = 0; j < q->n; j++) {
            c->r[j] = q->r[j] - m;
            for (int pos = 0; pos < 4; pos++)
                if (c->b[j].kind[pos] == 'B')
                    c->b[j].cpu[pos] /= exp(m);
        }
    }
}

static void free_centred(st_ipsource *c) {
    for (size_t i = 0; i < c->np; i++)
        free(c->p[i].b), free(c->p[i].r);
    free(c->p);
}

/* Experiments on source s: how many fired, and how many had a Q test. */
static void run_source(const st_ipsource *s, const het_opts *o, size_t *fired, size_t *tested) {
    *fired = *tested = 0;
    for (size_t k = 0; k < o->experiments; k++) {
        uint64_t seed =
            o->seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, s->workload), s->sweep) ^ (k * 0x9E3779B97F4A7C15ull);
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
        if (!rng)
            ct_out_of_memory();
        gsl_rng_set(rng, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
        st_seg *segs;
        size_t n;
        st_synth_inproc(s, o->procs, o->blocks, 1.0, rng, &segs, &n);
        st_boot_opts bo = {o->resamples, 0.95, seed ^ 1};
        st_inproc e;
        st_inproc_estimate(segs, n, &bo, &e);
        st_inproc_levels(&e, &bo, NULL, NULL);
        if (isfinite(e.re.q_p)) {
            (*tested)++;
            *fired += e.heterogeneous != 0;
        }
        st_inproc_free(&e);
        free(segs);
        gsl_rng_free(rng);
    }
}

static void row(const char *what, const char *sweep, const char *workload, size_t np, size_t fired, size_t tested) {
    double lo = NAN, hi = NAN;
    if (tested)
        exact_ci(fired, tested, &lo, &hi);
    printf("| %s | %s | %s | %zu | %zu of %zu | %.3f [%.3f, %.3f] |\n", what, sweep, workload, np, fired, tested,
           tested ? (double)fired / (double)tested : NAN, lo, hi);
}

static int parse_size(const char *v, size_t lo, size_t hi, size_t *out) {
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || x < lo || x > hi)
        return -1;
    *out = (size_t)x;
    return 0;
}

int main(int argc, char **argv) {
    het_opts o = {400, 4, 100, 1000, 20261202, 0};
    int first = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t v = 0;
        int bad = 0;
        if (a[0] != '-') {
            first = i;
            break;
        }
        if (!strcmp(a, "--iid")) {
            o.iid = 1;
            continue;
        }
        if (i + 1 >= argc)
            bad = 1;
        else if (!strcmp(a, "--experiments"))
            bad = parse_size(argv[++i], 1, 1000000, &o.experiments);
        else if (!strcmp(a, "--procs"))
            bad = parse_size(argv[++i], 2, 1000, &o.procs);
        else if (!strcmp(a, "--blocks"))
            bad = parse_size(argv[++i], 3, 100000, &o.blocks);
        else if (!strcmp(a, "--resamples"))
            bad = parse_size(argv[++i], 100, 1000000, &o.resamples);
        else if (!strcmp(a, "--seed"))
            bad = parse_size(argv[++i], 0, SIZE_MAX, &v), o.seed = v;
        else
            bad = 1;
        if (bad) {
            fprintf(stderr,
                    "het-false-alarm: %s: usage: het-false-alarm [--experiments K] [--procs P (2+)] [--blocks N (3+)] "
                    "[--resamples B] [--seed S] DIR...\n",
                    a);
            return 2;
        }
    }
    if (first >= argc) {
        fprintf(stderr, "het-false-alarm: give one or more in-process sweep directories\n");
        return 2;
    }
    printf("HET flag (p < 0.05) on synthetic in-process cells of %zu processes x %zu blocks, %zu experiments per "
           "source, %zu resamples, seed %llu%s:\n\n",
           o.procs, o.blocks, o.experiments, o.resamples, (unsigned long long)o.seed,
           o.iid ? ", blocks drawn one at a time (--iid)" : "");
    printf("| processes | sweep | workload | source processes | fired | rate [95%% CI] |\n|---|---|---|---|---|---|\n");
    size_t tot[2][2] = {{0, 0}, {0, 0}}, used = 0;
    for (int d = first; d < argc; d++) {
        st_nsource *ns = NULL;
        st_ipsource *ips = NULL;
        size_t nns = 0, nips = 0;
        char err[1024];
        if (st_sources_load(argv[d], &ns, &nns, &ips, &nips, err, sizeof err)) {
            fprintf(stderr, "het-false-alarm: %s\n", err);
            return 2;
        }
        for (size_t i = 0; i < nips; i++) {
            st_ipsource c;
            centred(&ips[i], o.iid, &c);
            size_t f, t;
            run_source(&c, &o, &f, &t);
            row("centred (null)", ips[i].sweep, ips[i].workload, ips[i].np, f, t);
            tot[0][0] += f, tot[0][1] += t;
            free_centred(&c);
            if (o.iid)
                for (size_t j = 0; j < ips[i].np; j++)
                    ips[i].p[j].L = 1;
            run_source(&ips[i], &o, &f, &t);
            row("observed", ips[i].sweep, ips[i].workload, ips[i].np, f, t);
            tot[1][0] += f, tot[1][1] += t;
            used++;
        }
        st_nsources_free(ns, nns);
        st_ipsources_free(ips, nips);
    }
    if (!used) {
        fprintf(stderr, "het-false-alarm: no in-process source in the directories given\n");
        return 2;
    }
    row("centred (null)", "all", "all", 0, tot[0][0], tot[0][1]);
    row("observed", "all", "all", 0, tot[1][0], tot[1][1]);
    return 0;
}

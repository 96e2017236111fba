/* coverage_bench.c - build/bin/coverage-bench: the coverage of every interval kind the suite prints,
 * under noise resampled from committed sweeps (st_covbench.h; docs/STATISTICS.md, "Coverage under this
 * machine's noise").
 *
 * For each sweep directory given: its noise sources (one per workload,
 * st_synth.h), then, for each size, the experiments of st_cov_blocked
 * (blocked sweeps) or st_cov_inproc (in-process sweeps), and a table of
 * coverage by kind and size with its exact binomial interval.  --csv FILE
 * also writes every figure, by source sweep and by workload.  Figures, not
 * pass or fail: the exit status is 0 when every experiment ran, 2 for bad
 * input.
 */
#include "st_covbench.h"
#include "st_inproc.h"
#include "st_noise.h"
#include "st_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 16

static void usage(FILE *f) {
    fputs("usage: coverage-bench [--experiments K] [--rounds N,N,...] [--procs P] [--blocks N,N,...]\n"
          "                      [--resamples B] [--fit-resamples B] [--seed N] [--no-compare] [--csv FILE]\n"
          "                      [--adaptive H [--max-blocks N]] DIR...\n"
          "  DIR: a sweep directory with results.db: blocked sweeps give the process-level kinds,\n"
          "  in-process sweeps (segment series) the in-process ratios.  Defaults: 1000 experiments per\n"
          "  sweep and size, rounds 10,30,60, 4 processes of 25,100 blocks, analyze's 10000 and 1000\n"
          "  resamples, seed 20261202, compare on.  --adaptive H: the rounds are the planned ones (the\n"
          "  pilot) and every cell gets the two-stage rule's blocks for +-H (a fraction), at most\n"
          "  --max-blocks (200); analyze gives the extended cells the two-stage intervals.\n",
          f);
}

static int parse_sizes(const char *v, size_t *out, size_t *n) {
    *n = 0;
    const char *p = v;
    while (*p) {
        char *end;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p || x < 3 || x > 100000 || *n == MAX_SIZES)
            return -1;
        out[(*n)++] = (size_t)x;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return *n ? 0 : -1;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void cell(FILE *f, const st_cov_tally *t, double conf) {
    if (!t->judged && !t->none) {
        fputs(" | ", f);
        return;
    }
    double lo, hi;
    st_cov_binomial(t->covered, t->judged, conf, &lo, &hi);
    fprintf(f, " | %.3f [%.3f, %.3f]", t->judged ? (double)t->covered / (double)t->judged : NAN, lo, hi);
    if (t->none)
        fprintf(f, " (%zu none)", t->none);
}

static void csv_row(FILE *f, const char *sweep, const char *workload, st_cov_kind k, const char *size,
                    const st_cov_tally *t) {
    double lo, hi;
    st_cov_binomial(t->covered, t->judged, 0.95, &lo, &hi);
    fprintf(f, "%s,%s,%s,%s,%zu,%zu,%zu,%zu,%zu,%.6f,%.6f,%.6f,%.6g\n", sweep, workload, st_cov_kind_name(k), size,
            t->judged, t->covered, t->above, t->below, t->none,
            t->judged ? (double)t->covered / (double)t->judged : NAN, lo, hi,
            t->judged ? t->width / (double)t->judged : NAN);
}

/* The command line: the simulation's options, the sizes, the CSV file, the sweeps. */
typedef struct bench_args {
    st_cov_opts o;
    size_t rounds[MAX_SIZES], nrounds, blocks[MAX_SIZES], nblocks, procs;
    const char *csv_path;
    const char *dirs[64];
    size_t ndirs;
} bench_args;

/* Parses argv into *b (defaults first): -1 to go on, else the status to exit
 * with (0 after --help, 2 for bad arguments, with the message on stderr). */
static int parse_args(int argc, char **argv, bench_args *b) {
    st_cov_opts d;
    st_cov_defaults(&d);
    *b = (bench_args){.o = d, .rounds = {10, 30, 60}, .nrounds = 3, .blocks = {25, 100}, .nblocks = 2, .procs = 4};
    st_cov_opts *o = &b->o;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        unsigned long long u;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-compare")) {
            o->compare = 0;
        } else if ((v = st_opt_value(argc, argv, &i, "--experiments"))) {
            if (st_opt_u64(v, 1, 10000000, &u)) {
                fprintf(stderr, "coverage-bench: --experiments '%s': give a number of experiments, 1 or more\n", v);
                return 2;
            }
            o->experiments = (size_t)u;
        } else if ((v = st_opt_value(argc, argv, &i, "--rounds"))) {
            if (parse_sizes(v, b->rounds, &b->nrounds)) {
                fprintf(stderr, "coverage-bench: --rounds '%s': give rounds as N,N,... each 3 or more\n", v);
                return 2;
            }
        } else if ((v = st_opt_value(argc, argv, &i, "--blocks"))) {
            if (parse_sizes(v, b->blocks, &b->nblocks)) {
                fprintf(stderr, "coverage-bench: --blocks '%s': give blocks per process as N,N,... each 3 or more\n",
                        v);
                return 2;
            }
        } else if ((v = st_opt_value(argc, argv, &i, "--procs"))) {
            if (st_opt_u64(v, 1, 1000, &u)) {
                fprintf(stderr, "coverage-bench: --procs '%s': give a number of processes from 1 to 1000\n", v);
                return 2;
            }
            b->procs = (size_t)u;
        } else if ((v = st_opt_value(argc, argv, &i, "--resamples"))) {
            if (st_opt_u64(v, 100, 1000000, &u)) {
                fprintf(stderr, "coverage-bench: --resamples '%s': give 100 to 1000000\n", v);
                return 2;
            }
            o->resamples = (size_t)u;
        } else if ((v = st_opt_value(argc, argv, &i, "--fit-resamples"))) {
            if (st_opt_u64(v, 100, 1000000, &u)) {
                fprintf(stderr, "coverage-bench: --fit-resamples '%s': give 100 to 1000000\n", v);
                return 2;
            }
            o->fit_resamples = (size_t)u;
        } else if ((v = st_opt_value(argc, argv, &i, "--seed"))) {
            if (st_opt_u64(v, 0, UINT64_MAX, &u)) {
                fprintf(stderr, "coverage-bench: --seed '%s': give a decimal 64-bit number\n", v);
                return 2;
            }
            o->seed = u;
        } else if ((v = st_opt_value(argc, argv, &i, "--adaptive"))) {
            if (st_opt_real(v, 0, 1, &o->adaptive)) {
                fprintf(stderr,
                        "coverage-bench: --adaptive '%s': give the target half-width as a fraction, e.g. "
                        "0.02\n",
                        v);
                return 2;
            }
        } else if ((v = st_opt_value(argc, argv, &i, "--max-blocks"))) {
            if (st_opt_u64(v, 3, 100000, &u)) {
                fprintf(stderr, "coverage-bench: --max-blocks '%s': give 3 to 100000 blocks\n", v);
                return 2;
            }
            o->max_blocks = (size_t)u;
        } else if ((v = st_opt_value(argc, argv, &i, "--csv"))) {
            if (!*v) {
                fprintf(stderr, "coverage-bench: --csv needs a file name\n");
                return 2;
            }
            b->csv_path = v;
        } else if (a[0] == '-') {
            fprintf(stderr, "coverage-bench: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (b->ndirs < sizeof b->dirs / sizeof *b->dirs) {
            b->dirs[b->ndirs++] = a;
        } else {
            fprintf(stderr, "coverage-bench: at most %zu sweep directories\n", sizeof b->dirs / sizeof *b->dirs);
            return 2;
        }
    }
    if (!b->ndirs) {
        fprintf(stderr, "coverage-bench: give at least one sweep directory\n");
        usage(stderr);
        return 2;
    }
    return -1;
}

/* The blocked noise sources of sweep dir: their description, then coverage at
 * every size of b->rounds (progress on stderr, the table on stdout, rows in
 * csv when it is not NULL). */
static void bench_blocked(const bench_args *b, const char *dir, const st_nsource *ns, size_t nns, FILE *csv) {
    const st_cov_opts *o = &b->o;
    size_t nrounds = b->nrounds;
    printf("Noise sources (blocked): workload, blocks, block length (level, difference), lag-1 autocorrelation "
           "of runs / levels / differences, excess kurtosis of runs / differences, SD of differences\n\n");
    for (size_t i = 0; i < nns; i++)
        printf("- %s: %zu blocks, L = %zu (%.1f, %.1f), acf1 %.2f / %.2f / %.2f, kurtosis %.1f / %.1f, sd %.3f\n",
               ns[i].workload, ns[i].n, ns[i].L, ns[i].len_level.cb, ns[i].len_diff.cb, ns[i].acf1_runs,
               ns[i].acf1_level, ns[i].acf1_diff, ns[i].kurt_runs, ns[i].kurt_diff, ns[i].sd_diff);
    st_cov_tally *tal = ct_xcalloc(nrounds * ST_COV_NKINDS, sizeof *tal);
    st_cov_tally *per = ct_xcalloc(nrounds * nns * ST_COV_NKINDS, sizeof *per);
    double *blocks_run = ct_xcalloc(nrounds, sizeof *blocks_run);
    for (size_t r = 0; r < nrounds; r++) {
        double ts = now_s();
        st_cov_blocked(ns, nns, b->rounds[r], o, tal + r * ST_COV_NKINDS, per + r * nns * ST_COV_NKINDS,
                       &blocks_run[r]);
        fprintf(stderr, "coverage-bench: %s, %zu rounds: %.0f s;", dir, b->rounds[r], now_s() - ts);
        /* Each size's counts as soon as they exist (a long run can be stopped). */
        for (int k = 0; k < ST_COV_NKINDS; k++)
            if (tal[r * ST_COV_NKINDS + (size_t)k].judged)
                fprintf(stderr, " %s %zu/%zu;", st_cov_kind_name((st_cov_kind)k),
                        tal[r * ST_COV_NKINDS + (size_t)k].covered, tal[r * ST_COV_NKINDS + (size_t)k].judged);
        fputc('\n', stderr);
    }
    if (o->adaptive > 0)
        printf("\nAdaptive rounds: the two-stage rule for +-%g%%, at most %zu blocks; columns: planned "
               "rounds (the pilot).\n",
               o->adaptive * 100, o->max_blocks);
    printf("\n| kind |");
    for (size_t r = 0; r < nrounds; r++)
        printf(o->adaptive > 0 ? " pilot %zu |" : " %zu blocks |", b->rounds[r]);
    printf("\n|---|");
    for (size_t r = 0; r < nrounds; r++)
        printf("---|");
    printf("\n");
    int compare = o->compare && !(o->adaptive > 0);
    for (int k = 0; k < ST_COV_NKINDS; k++) {
        if (st_cov_kind_inproc((st_cov_kind)k) || ((k >= ST_COV_CMP_PAIRED && k <= ST_COV_CMP_RATIO) && !compare))
            continue;
        printf("| %s", st_cov_kind_name((st_cov_kind)k));
        for (size_t r = 0; r < nrounds; r++)
            cell(stdout, &tal[r * ST_COV_NKINDS + (size_t)k], 0.95);
        printf(" |\n");
    }
    printf("| blocks per cell (mean)");
    for (size_t r = 0; r < nrounds; r++)
        printf(" | %.1f", blocks_run[r] / (double)o->experiments / ST_SYN_NCELLS);
    printf(" |\n");
    free(blocks_run);
    if (csv)
        for (size_t r = 0; r < nrounds; r++) {
            char size[32];
            snprintf(size, sizeof size, "%zu", b->rounds[r]);
            for (int k = 0; k < ST_COV_NKINDS; k++) {
                if (st_cov_kind_inproc((st_cov_kind)k))
                    continue;
                csv_row(csv, ns[0].sweep, "all", (st_cov_kind)k, size, &tal[r * ST_COV_NKINDS + (size_t)k]);
                for (size_t i = 0; i < nns; i++)
                    csv_row(csv, ns[i].sweep, ns[i].workload, (st_cov_kind)k, size,
                            &per[(r * nns + i) * ST_COV_NKINDS + (size_t)k]);
            }
        }
    free(tal), free(per);
}

/* How the processes' medians of source s go with their noise: the plain
 * mean of the medians (the processes-level truth), their inverse-variance
 * mean with each process's bootstrap SE of its median (st_inproc_proc_se,
 * 1000 resamples), and Pearson's r of median and SE.  A combination that
 * weighs processes by their SEs estimates the plain mean without bias only
 * when r is near 0. */
static void median_se_relation(const st_ipsource *s, double *ivw, double *r) {
    double *med = ct_xmalloc((s->np + 1) * sizeof *med), *se = ct_xmalloc((s->np + 1) * sizeof *se);
    double sw = 0, swm = 0;
    size_t k = 0;
    for (size_t i = 0; i < s->np; i++) {
        const st_ipproc *p = &s->p[i];
        double e[3];
        st_inproc_proc_se(p->r, p->r, p->n, 1, 1000, 0x5e ^ i, e, NULL);
        if (isfinite(e[0]) && e[0] > 0) {
            med[k] = st_median(p->r, p->n);
            se[k] = e[0];
            sw += 1.0 / (e[0] * e[0]), swm += med[k] / (e[0] * e[0]);
            k++;
        }
    }
    *ivw = sw > 0 ? swm / sw : NAN;
    *r = k >= 3 ? st_pearson(med, se, k) : NAN;
    free(med), free(se);
}

/* The in-process noise sources of sweep dir: their description, then coverage
 * at b->procs processes of every size of b->blocks (progress on stderr, the
 * table on stdout, rows in csv when it is not NULL). */
static void bench_inproc(const bench_args *b, const char *dir, const st_ipsource *ips, size_t nips, FILE *csv) {
    size_t nblocks = b->nblocks, procs = b->procs;
    printf("\nNoise sources (in-process): workload, processes, median block length, lag-1 autocorrelation "
           "(median over processes), excess kurtosis and SD of the pooled log-ratios, SD of the processes' "
           "medians, population median, the processes' medians' plain mean and inverse-variance mean, and "
           "Pearson's r of a process's median and its SE\n\n");
    for (size_t i = 0; i < nips; i++) {
        double ivw, r;
        median_se_relation(&ips[i], &ivw, &r);
        printf("- %s: %zu processes, L = %zu, acf1 %.2f, kurtosis %.1f, sd %.4f, sd of medians %.4f, "
               "median %+.5f, mean of medians %+.5f, inverse-variance mean %+.5f, r(median, SE) %+.2f\n",
               ips[i].workload, ips[i].np, ips[i].median_L, ips[i].acf1, ips[i].kurt, ips[i].sd, ips[i].sd_proc,
               ips[i].truth_log, ips[i].truth_proc_log, ivw, r);
    }
    st_cov_tally *tal = ct_xcalloc(nblocks * ST_COV_NKINDS, sizeof *tal);
    st_cov_tally *per = ct_xcalloc(nblocks * nips * ST_COV_NKINDS, sizeof *per);
    for (size_t r = 0; r < nblocks; r++) {
        double ts = now_s();
        st_cov_inproc(ips, nips, procs, b->blocks[r], &b->o, tal + r * ST_COV_NKINDS, per + r * nips * ST_COV_NKINDS);
        fprintf(stderr, "coverage-bench: %s, %zu x %zu blocks: %.0f s\n", dir, procs, b->blocks[r], now_s() - ts);
    }
    printf("\n| kind |");
    for (size_t r = 0; r < nblocks; r++)
        printf(" %zu x %zu blocks |", procs, b->blocks[r]);
    printf("\n|---|");
    for (size_t r = 0; r < nblocks; r++)
        printf("---|");
    const st_cov_kind kinds[3] = {ST_COV_INPROC_PROC, ST_COV_INPROC_EQUAL, ST_COV_INPROC};
    printf("\n");
    for (int q = 0; q < 3; q++) {
        printf("| %s", st_cov_kind_name(kinds[q]));
        for (size_t r = 0; r < nblocks; r++)
            cell(stdout, &tal[r * ST_COV_NKINDS + kinds[q]], 0.95);
        printf(" |\n");
    }
    if (csv)
        for (size_t r = 0; r < nblocks; r++)
            for (int q = 0; q < 3; q++) {
                char size[32];
                snprintf(size, sizeof size, "%zux%zu", procs, b->blocks[r]);
                csv_row(csv, ips[0].sweep, "all", kinds[q], size, &tal[r * ST_COV_NKINDS + kinds[q]]);
                for (size_t i = 0; i < nips; i++)
                    csv_row(csv, ips[i].sweep, ips[i].workload, kinds[q], size,
                            &per[(r * nips + i) * ST_COV_NKINDS + kinds[q]]);
            }
    free(tal), free(per);
}

int main(int argc, char **argv) {
    static bench_args b;
    int rc = parse_args(argc, argv, &b);
    if (rc >= 0)
        return rc;
    const st_cov_opts *o = &b.o;
    FILE *csv = NULL;
    if (b.csv_path && !(csv = fopen(b.csv_path, "w"))) {
        perror(b.csv_path);
        return 1;
    }
    if (csv)
        fputs("sweep,workload,kind,size,judged,covered,above,below,none,coverage,coverage_lo,coverage_hi,mean_width\n",
              csv);
    double t0 = now_s(), c0 = cpu_s();
    printf("# Coverage under this machine's noise\n\n%zu experiments per sweep and size, %zu resamples (fits %zu), "
           "%.0f%% intervals, seed %llu; truth: R = %g, rate %g/s, cost %g ns per sample, compare's B R = %g\n",
           o->experiments, o->resamples, o->fit_resamples, o->confidence * 100, (unsigned long long)o->seed,
           o->plan.ratio, o->plan.rate, o->plan.cost_ns, o->ratio_b);
    for (size_t d = 0; d < b.ndirs; d++) {
        st_nsource *ns;
        st_ipsource *ips;
        size_t nns, nips;
        char err[1024];
        if (st_sources_load(b.dirs[d], &ns, &nns, &ips, &nips, err, sizeof err)) {
            fprintf(stderr, "coverage-bench: %s\n", err);
            return 2;
        }
        printf("\n## %s\n\n", b.dirs[d]);
        if (nns)
            bench_blocked(&b, b.dirs[d], ns, nns, csv);
        if (nips)
            bench_inproc(&b, b.dirs[d], ips, nips, csv);
        st_nsources_free(ns, nns);
        st_ipsources_free(ips, nips);
        fflush(stdout);
    }
    printf("\nTime: %.0f s wall, %.0f s CPU\n", now_s() - t0, cpu_s() - c0);
    if (csv && fclose(csv)) {
        perror(b.csv_path);
        return 1;
    }
    return 0;
}

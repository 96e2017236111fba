/* hl_se_bench.c - make bench-hl-se: which standard error of a replicate's
 * Hodges-Lehmann estimate is right on a replicated sweep's own blocks
 * (docs/STATISTICS.md, "The standard error of a replicate").
 *
 * For every measured cell of a replicated sweep (sweep --replicates K,
 * K >= 2) with at least 3 blocks in each replicate: the blocks' log-ratios
 * of wall time (the compared run over its block's baseline run, both
 * used), per replicate.  Two sets of "replicates" are judged:
 *   actual  the sweep's own replicates;
 *   splits  the cell's blocks pooled and split at random into groups of the
 *           replicates' sizes, `splits` times: replicates with nothing
 *           between them but the blocks' own noise (tails, skew and all),
 *           so a right SE gives z's RMS 1 whatever that noise is.
 * For each pair of groups a, b and each candidate SE,
 *   z = (HL_a - HL_b) / sqrt(se_a^2 + se_b^2),
 * whose RMS should be 1, and the share of pairs with |HL_a - HL_b| <=
 * 1.959964 se_b (HL_a inside b's 95% interval) against its prediction
 * 2 Phi(1.959964 se_b / sqrt(se_a^2 + se_b^2)) - 1.  (For disjoint groups
 * drawn without replacement from a finite pool the variance of a difference
 * of means is S^2 (1 / n_a + 1 / n_b), S^2 the pool's variance, with no
 * finite-population factor: so the splits judge an SE against the right
 * target.)  Candidates:
 *   kernel     st_hl_kernel_se (analyze's);
 *   bootstrap  st_hl_boot_se with `resamples` resamples (analyze's before);
 *   jackknife  sqrt((n - 1) / n sum (HL_(-i) - mean)^2);
 *   walsh      the exact Walsh interval's width (95%) over 2 x 1.959964;
 *   mean       the plain SE of the mean, SD / sqrt(n).
 * Prints per family (st_rep_family) and overall: cells, pairs, and per
 * candidate z's RMS over the actual replicates, over the splits, and the
 * splits' share inside against its prediction.
 * Usage: hl-se-bench SWEEP_DIR [splits] [resamples] [seed]
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_db.h"
#include "st_levels.h"
#include "st_replicates.h"
#include "st_util.h"
#include "st_walsh.h"

enum { C_KERNEL, C_BOOT, C_JACK, C_WALSH, C_MEAN, NC };
static const char *const cname[NC] = {"kernel", "bootstrap", "jackknife", "walsh", "mean"};
static const double Z = 1.959963984540054;

typedef struct acc {
    double z2[2];    /* sum of z^2: actual, splits */
    size_t n[2];     /* pairs */
    double in, pred; /* splits: inside, predicted */
} acc;

typedef struct fam {
    char name[256];
    size_t cells;
    acc a[NC];
} fam;

static double hl(const double *x, size_t n, double *w) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[m++] = 0.5 * (x[i] + x[j]);
    return st_quantile_select(w, m, 0.5);
}

static double jackknife(const double *x, size_t n, double *w, double *tmp) {
    double *t = ct_xmalloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) {
        size_t m = 0;
        for (size_t j = 0; j < n; j++)
            if (j != i)
                tmp[m++] = x[j];
        t[i] = hl(tmp, n - 1, w);
    }
    double mean = gsl_stats_mean(t, 1, n), ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (t[i] - mean) * (t[i] - mean);
    free(t);
    return sqrt((double)(n - 1) / (double)n * ss);
}

static void candidates(const double *x, size_t n, size_t resamples, uint64_t seed, double *w, double *tmp,
                       double se[NC]) {
    se[C_KERNEL] = st_hl_kernel_se(x, n);
    se[C_BOOT] = st_hl_boot_se(x, n, resamples, seed);
    se[C_JACK] = jackknife(x, n, w, tmp);
    st_interval iv;
    st_walsh_interval(x, n, 0.95, &iv);
    se[C_WALSH] = iv.method == ST_CI_EXACT ? (iv.hi - iv.lo) / (2 * Z) : NAN;
    se[C_MEAN] = gsl_stats_sd(x, 1, n) / sqrt((double)n);
}

/* Adds the pairs of the k groups g[r] (n[r] blocks each) to the family's
 * accumulators (which = 0 actual, 1 splits). */
static void judge(double **g, const size_t *n, size_t k, size_t resamples, uint64_t seed, int which, fam *f, double *w,
                  double *tmp) {
    double t[64], se[64][NC];
    for (size_t r = 0; r < k; r++) {
        t[r] = hl(g[r], n[r], w);
        candidates(g[r], n[r], resamples, seed + r, w, tmp, se[r]);
    }
    for (size_t c = 0; c < NC; c++)
        for (size_t a = 0; a < k; a++)
            for (size_t b = 0; b < k; b++) {
                if (a == b || !(se[a][c] > 0) || !(se[b][c] > 0))
                    continue;
                double s = sqrt(se[a][c] * se[a][c] + se[b][c] * se[b][c]);
                if (a < b) {
                    double z = (t[a] - t[b]) / s;
                    f->a[c].z2[which] += z * z;
                    f->a[c].n[which]++;
                }
                if (which) {
                    f->a[c].in += fabs(t[a] - t[b]) <= Z * se[b][c];
                    f->a[c].pred += 2 * gsl_cdf_ugaussian_P(Z * se[b][c] / s) - 1;
                }
            }
}

static void print_row(const char *name, size_t cells, const acc *a) {
    printf("| %s | %zu | %zu |", name, cells, a[0].n[0]);
    for (size_t c = 0; c < NC; c++) {
        size_t ordered = 2 * a[c].n[1];
        printf(" %.3f | %.3f | %.1f%% / %.1f%% |", a[c].n[0] ? sqrt(a[c].z2[0] / (double)a[c].n[0]) : NAN,
               a[c].n[1] ? sqrt(a[c].z2[1] / (double)a[c].n[1]) : NAN, ordered ? 100 * a[c].in / (double)ordered : NAN,
               ordered ? 100 * a[c].pred / (double)ordered : NAN);
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: hl-se-bench SWEEP_DIR [splits >= 1] [resamples >= 100] [seed]\n");
        return 2;
    }
    size_t splits = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
    size_t resamples = argc > 3 ? strtoul(argv[3], NULL, 10) : ST_LEVEL_SE_RESAMPLES;
    uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 20261203;
    if (!splits || resamples < 100) {
        fprintf(stderr, "hl-se-bench: splits must be at least 1 and resamples at least 100\n");
        return 2;
    }
    st_sweep sw;
    char err[1024];
    if (st_sweep_load(argv[1], &sw, err, sizeof err)) {
        fprintf(stderr, "hl-se-bench: %s\n", err);
        return 2;
    }
    int *rep;
    size_t k;
    if (st_reps_load(argv[1], &sw, &rep, &k, err, sizeof err)) {
        fprintf(stderr, "hl-se-bench: %s\n", err);
        st_sweep_free(&sw);
        return 2;
    }
    if (k < 2 || k > 64) {
        fprintf(stderr, "hl-se-bench: %s has %zu replicate(s): the benchmark needs 2 to 64 (sweep --replicates K)\n",
                argv[1], k);
        free(rep);
        st_sweep_free(&sw);
        return 2;
    }
    /* Each block's used baseline run. */
    int64_t maxb = 0;
    for (size_t i = 0; i < sw.nruns; i++)
        if (sw.runs[i].block > maxb)
            maxb = sw.runs[i].block;
    double *base = ct_xmalloc((size_t)(maxb + 1) * sizeof *base);
    for (int64_t b = 0; b <= maxb; b++)
        base[b] = NAN;
    for (size_t i = 0; i < sw.nruns; i++)
        if (sw.runs[i].block > 0 && sw.runs[i].role == 0 && sw.runs[i].used)
            base[sw.runs[i].block] = sw.runs[i].wall_ns;

    fam *fams = ct_xmalloc((sw.ncells ? sw.ncells : 1) * sizeof *fams);
    size_t nf = 0;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)(seed & 0xffffffffu));
    size_t maxn = 0;
    for (size_t c = 0; c < sw.ncells; c++)
        maxn = sw.cells[c].nruns > maxn ? sw.cells[c].nruns : maxn;
    double *pool = ct_xmalloc((maxn + 1) * sizeof *pool), *perm = ct_xmalloc((maxn + 1) * sizeof *perm);
    double *w = ct_xmalloc(((maxn + 1) * (maxn + 2) / 2) * sizeof *w), *tmp = ct_xmalloc((maxn + 1) * sizeof *tmp);
    size_t *cnt = ct_xmalloc(k * sizeof *cnt), *off = ct_xmalloc(k * sizeof *off);
    double **g = ct_xmalloc(k * sizeof *g);
    for (size_t c = 0; c < sw.ncells; c++) {
        const st_cell *cell = &sw.cells[c];
        if (strcmp(cell->kind, "sim") == 0)
            continue;
        /* The cell's blocks, replicate by replicate (pool sorted by replicate). */
        memset(cnt, 0, k * sizeof *cnt);
        size_t n = 0;
        for (size_t r = 0; r < k; r++) {
            off[r] = n;
            for (size_t i = cell->first_run; i < cell->first_run + cell->nruns; i++) {
                const st_run *run = &sw.runs[i];
                if (rep[i] != (int)r || run->block <= 0 || run->role != 1 || !run->used || !(base[run->block] > 0))
                    continue;
                pool[n++] = log(run->wall_ns / base[run->block]);
                cnt[r]++;
            }
        }
        size_t ok = 1;
        for (size_t r = 0; r < k; r++)
            ok &= cnt[r] >= 3;
        if (!ok)
            continue;
        char fname[256];
        st_rep_family(cell, fname, sizeof fname);
        size_t f = 0;
        while (f < nf && strcmp(fams[f].name, fname))
            f++;
        if (f == nf) {
            memset(&fams[nf], 0, sizeof fams[nf]);
            snprintf(fams[nf].name, sizeof fams[nf].name, "%s", fname);
            nf++;
        }
        fams[f].cells++;
        for (size_t r = 0; r < k; r++)
            g[r] = pool + off[r];
        uint64_t cseed = seed ^ st_fnv1a64(ST_FNV_OFFSET, cell->label);
        judge(g, cnt, k, resamples, cseed, 0, &fams[f], w, tmp);
        for (size_t s = 0; s < splits; s++) {
            memcpy(perm, pool, n * sizeof *perm);
            gsl_ran_shuffle(rng, perm, n, sizeof *perm);
            for (size_t r = 0; r < k; r++)
                g[r] = perm + off[r];
            judge(g, cnt, k, resamples, cseed + 1000003 * (s + 1), 1, &fams[f], w, tmp);
        }
    }
    printf("hl-se-bench %s: %zu replicates, %zu random splits per cell, bootstrap SEs from %zu resamples, seed "
           "%llu.\nPer candidate SE: z's RMS over the actual replicates' pairs | over the splits' (1 when the SE "
           "is right) | the splits' share of estimates inside the other group's 95%% interval / predicted.\n\n",
           argv[1], k, splits, resamples, (unsigned long long)seed);
    printf("| family | cells | pairs |");
    for (size_t c = 0; c < NC; c++)
        printf(" %s: actual | %s: splits | %s: inside / predicted |", cname[c], cname[c], cname[c]);
    printf("\n|---|---|---|");
    for (size_t c = 0; c < NC; c++)
        printf("---|---|---|");
    printf("\n");
    fam all;
    memset(&all, 0, sizeof all);
    for (size_t f = 0; f < nf; f++) {
        print_row(fams[f].name, fams[f].cells, fams[f].a);
        all.cells += fams[f].cells;
        for (size_t c = 0; c < NC; c++) {
            for (int j = 0; j < 2; j++)
                all.a[c].z2[j] += fams[f].a[c].z2[j], all.a[c].n[j] += fams[f].a[c].n[j];
            all.a[c].in += fams[f].a[c].in, all.a[c].pred += fams[f].a[c].pred;
        }
    }
    print_row("all", all.cells, all.a);
    if (!nf)
        fprintf(stderr, "hl-se-bench: %s: no measured cell has 3 or more blocks in every replicate\n", argv[1]);
    gsl_rng_free(rng);
    free(pool), free(perm), free(w), free(tmp), free(cnt), free(off), free(g), free(fams), free(base), free(rep);
    st_sweep_free(&sw);
    return nf ? 0 : 2;
}

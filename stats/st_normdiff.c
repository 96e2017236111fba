/* st_normdiff.c - the allocation-vs-time difference of normalized overheads (invariants: st_normdiff.h). */
#include "st_normdiff.h"
#include "st_paired.h"
#include "st_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

st_normres st_diff_verdict(const st_interval *d, double margin) {
    if (d->method == ST_CI_NONE)
        return ST_NR_NA;
    return st_norm_verdict(d->lo, d->hi, margin);
}

/* HL(a) - HL(b) of n matched values, with scratch w (n(n+1)/2). */
static double hl_diff(const double *a, const double *b, size_t n, double *w) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[k++] = 0.5 * (a[i] + a[j]);
    double ha = st_quantile_select(w, k, 0.5);
    k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[k++] = 0.5 * (b[i] + b[j]);
    return ha - st_quantile_select(w, k, 0.5);
}

typedef struct jack {
    const double *a, *b;
    size_t n;
} jack;

/* Jackknife acceleration over matched rounds. */
static double accel_rounds(void *ctx) {
    const jack *j = ctx;
    size_t n = j->n;
    double *la = ct_xmalloc(n * sizeof *la), *lb = ct_xmalloc(n * sizeof *lb), *t = ct_xmalloc(n * sizeof *t);
    double *w = ct_xmalloc((n * (n + 1) / 2 + 1) * sizeof *w), mean = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        for (size_t x = 0; x < n; x++)
            if (x != i)
                la[k] = j->a[x], lb[k++] = j->b[x];
        t[i] = hl_diff(la, lb, n - 1, w);
        mean += t[i];
    }
    mean /= (double)n;
    double s2 = 0, s3 = 0, dn = (double)n;
    for (size_t i = 0; i < n; i++) {
        double u = (dn - 1) * (mean - t[i]);
        s2 += u * u, s3 += u * u * u;
    }
    free(la), free(lb), free(t), free(w);
    return s2 > 0 ? s3 / (6 * pow(s2, 1.5)) : NAN;
}

/* HL of each of two groups of blocks (the values of group g at
 * metric[0]), their difference bootstrapped with each group's blocks drawn
 * on their own; BCa with the two groups' jackknife. */
typedef struct hl2 {
    const st_sample *g;
} hl2;

static double accel_two_groups(void *ctx) {
    const st_sample *g = ((const hl2 *)ctx)->g;
    double s2 = 0, s3 = 0;
    for (int k = 0; k < 2; k++) {
        size_t n = g[k].n;
        double *loo = ct_xmalloc(n * sizeof *loo), *t = ct_xmalloc(n * sizeof *t), mean = 0;
        for (size_t i = 0; i < n; i++) {
            size_t m = 0;
            for (size_t x = 0; x < n; x++)
                if (x != i)
                    loo[m++] = g[k].metric[0][x];
            t[i] = st_hodges_lehmann(loo, n - 1);
            mean += t[i];
        }
        mean /= (double)n;
        double a2 = 0, a3 = 0, dn = (double)n;
        for (size_t i = 0; i < n; i++) {
            double u = (dn - 1) * (mean - t[i]);
            a2 += u * u, a3 += u * u * u;
        }
        s2 += a2 / (dn * dn), s3 += a3 / (dn * dn * dn);
        free(loo), free(t);
    }
    return s2 > 0 ? s3 / (6 * pow(s2, 1.5)) : NAN;
}

static void none(st_interval *iv, const char *why);

/* The standard deviation of the B resampled values t (before the interval
 * reorders them) times sqrt(m / (m - 1)): st_normdiff's se. */
static double boot_sd(const double *t, size_t B, size_t m) {
    if (B < 2 || m < 2)
        return NAN;
    double mean = 0, m2 = 0;
    for (size_t b = 0; b < B; b++) {
        double delta = t[b] - mean;
        mean += delta / (double)(b + 1);
        m2 += delta * (t[b] - mean);
    }
    return sqrt(m2 / (double)(B - 1)) * sqrt((double)m / (double)(m - 1));
}

static void diff_blocks(const st_sample *g, const st_boot_opts *opts, st_normdiff *out) {
    if (g[0].n < ST_BOOT_MIN_RUNS || g[1].n < ST_BOOT_MIN_RUNS) {
        none(&out->diff, "fewer than 3 blocks in a cell: no interval");
        return;
    }
    out->diff.est = st_hodges_lehmann(g[0].metric[0], g[0].n) - st_hodges_lehmann(g[1].metric[0], g[1].n);
    out->diff.z0 = out->diff.accel = NAN;
    out->diff.why = NULL;
    size_t B = opts->resamples, nmax = g[0].n > g[1].n ? g[0].n : g[1].n;
    double *tb = ct_xmalloc(B * sizeof *tb), *r = ct_xmalloc(nmax * sizeof *r);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((opts->seed ^ (opts->seed >> 32)) & 0xffffffffu));
    for (size_t b = 0; b < B; b++) {
        double h[2];
        for (int k = 0; k < 2; k++) {
            for (size_t i = 0; i < g[k].n; i++)
                r[i] = g[k].metric[0][gsl_rng_uniform_int(rng, g[k].n)];
            h[k] = st_hodges_lehmann(r, g[k].n);
        }
        tb[b] = h[0] - h[1];
    }
    gsl_rng_free(rng);
    out->se = boot_sd(tb, B, g[0].n < g[1].n ? g[0].n : g[1].n);
    hl2 ctx = {g};
    st_boot_interval(tb, B, opts->confidence, accel_two_groups, &ctx, &out->diff);
    free(tb), free(r);
}

static void none(st_interval *iv, const char *why) {
    *iv = (st_interval){.est = NAN, .lo = NAN, .hi = NAN, .method = ST_CI_NONE, .why = why, .z0 = NAN, .accel = NAN};
}

static void diff_paired(const st_result *a, const st_result *t, const st_boot_opts *opts, st_normdiff *out) {
    size_t n = 0;
    double *va = ct_xmalloc(a->npz * sizeof *va), *vt = ct_xmalloc(a->npz * sizeof *vt);
    for (size_t i = 0; i < a->npz; i++)
        for (size_t j = 0; j < t->npz; j++)
            if (a->pair_round[i] == t->pair_round[j]) {
                va[n] = a->pair_norm[i], vt[n++] = t->pair_norm[j];
                break;
            }
    out->paired = 1;
    out->rounds = n;
    out->level = ST_LEVEL_BLOCKS;
    if (n < ST_BOOT_MIN_RUNS) {
        /* No rounds in common (blocks not laid out in rounds): each cell's
         * blocks resampled on their own, which ignores what rounds share
         * (conservative when they share noise). */
        free(va), free(vt);
        out->rounds = 0;
        st_sample g[2];
        memset(g, 0, sizeof g);
        g[0].n = a->npz, g[0].metric[0] = a->pair_norm;
        g[1].n = t->npz, g[1].metric[0] = t->pair_norm;
        diff_blocks(g, opts, out);
        return;
    }
    double *w = ct_xmalloc((n * (n + 1) / 2 + 1) * sizeof *w);
    out->diff.est = hl_diff(va, vt, n, w);
    out->diff.z0 = out->diff.accel = NAN;
    out->diff.why = NULL;
    size_t B = opts->resamples;
    double *tb = ct_xmalloc(B * sizeof *tb), *ra = ct_xmalloc(n * sizeof *ra), *rt = ct_xmalloc(n * sizeof *rt);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((opts->seed ^ (opts->seed >> 32)) & 0xffffffffu));
    for (size_t b = 0; b < B; b++) {
        for (size_t i = 0; i < n; i++) {
            size_t k = gsl_rng_uniform_int(rng, n);
            ra[i] = va[k], rt[i] = vt[k];
        }
        tb[b] = hl_diff(ra, rt, n, w);
    }
    gsl_rng_free(rng);
    out->se = boot_sd(tb, B, n);
    jack j = {va, vt, n};
    st_boot_interval(tb, B, opts->confidence, accel_rounds, &j, &out->diff);
    free(tb), free(ra), free(rt), free(w), free(va), free(vt);
}

enum { G_WALL = 0, G_SPS = 1 };

static double f_diff(const double (*m)[ST_BOOT_MAX_METRICS]) {
    double na = 1.0 + (m[0][G_WALL] / m[2][G_WALL] - 1.0) * 1000.0 / m[0][G_SPS];
    double nt = 1.0 + (m[1][G_WALL] / m[2][G_WALL] - 1.0) * 1000.0 / m[1][G_SPS];
    return na - nt;
}

/* A cell's used runs as a bootstrap group: wall time and samples per second. */
static size_t group_of(const st_analysis *an, const st_result *r, double **wall, double **sps) {
    const st_sweep *sw = an->sweep;
    const st_cell *c = r->cell;
    const st_run **runs = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *runs);
    size_t n = st_used_runs(sw, c, runs);
    *wall = ct_xmalloc((n ? n : 1) * sizeof **wall);
    *sps = ct_xmalloc((n ? n : 1) * sizeof **sps);
    for (size_t i = 0; i < n; i++) {
        (*wall)[i] = runs[i]->wall_ns;
        (*sps)[i] = st_run_sps(r, runs[i], 2);
    }
    free(runs);
    return n;
}

static void diff_unpaired(const st_analysis *an, const st_result *a, const st_result *t, const st_boot_opts *opts,
                          st_normdiff *out) {
    out->paired = 0;
    out->level = ST_LEVEL_PROCESSES;
    const st_result *base = NULL;
    for (size_t i = 0; i < an->nresults; i++)
        if (an->results[i].cell == a->baseline)
            base = &an->results[i];
    if (!base || a->baseline != t->baseline) {
        none(&out->diff, "the two cells do not share a baseline");
        return;
    }
    double *w[3], *s[3];
    st_sample g[3];
    const st_result *rs[3] = {a, t, base};
    for (int k = 0; k < 3; k++) {
        g[k] = (st_sample){0};
        g[k].n = group_of(an, rs[k], &w[k], &s[k]);
        g[k].metric[G_WALL] = w[k];
        int finite = 1;
        for (size_t i = 0; i < g[k].n; i++)
            finite &= isfinite(s[k][i]) != 0;
        g[k].metric[G_SPS] = k < 2 && finite ? s[k] : NULL;
    }
    st_kstat st = {f_diff, 7u};
    double *keep = ct_xmalloc(opts->resamples * sizeof *keep);
    st_bootstrap_groups_keep(g, 3, &st, 1, opts, &out->diff, keep);
    size_t small = g[0].n < g[1].n ? g[0].n : g[1].n;
    small = g[2].n < small ? g[2].n : small;
    if (out->diff.method != ST_CI_NONE)
        out->se = boot_sd(keep, opts->resamples, small);
    free(keep);
    for (int k = 0; k < 3; k++)
        free(w[k]), free(s[k]);
}

/* The comparisons' keys (st_db.h, st_cell_in_key) in report order: per
 * workload, one per time sampler's mode among its time cells of the
 * period and rate matrix, in the table's order ("" and signal: the
 * workload itself), or the workload alone if it has none. */
static void make_keys(const st_analysis *an, st_normdiffs *ds) {
    ds->keys = ct_xcalloc(an->nresults ? 2 * an->nresults : 1, sizeof *ds->keys);
    ds->owned = ct_xcalloc(an->nresults ? 2 * an->nresults : 1, sizeof *ds->owned);
    for (size_t i = 0; i < an->nresults; i++) {
        const char *w = an->results[i].cell->workload;
        if (i && !strcmp(an->results[i - 1].cell->workload, w))
            continue;
        int plain = 0, other[SGC_NTIME_MODES] = {0};
        for (size_t j = i; j < an->nresults && !strcmp(an->results[j].cell->workload, w); j++) {
            const st_cell *c = an->results[j].cell;
            if (strcmp(c->kind, "time") || !isnan(c->depth))
                continue;
            int m = sgc_time_mode_parse(c->time_mode);
            if (m > 0)
                other[m] = 1;
            else
                plain = 1;
        }
        size_t first = ds->nkeys;
        if (plain)
            ds->keys[ds->nkeys++] = w;
        for (int m = 1; m < SGC_NTIME_MODES; m++)
            if (other[m]) {
                const char *mn = sgc_time_mode_name(m);
                char *k = ct_xmalloc(strlen(w) + strlen(mn) + 2);
                sprintf(k, "%s/%s", w, mn);
                ds->owned[ds->nowned++] = k;
                ds->keys[ds->nkeys++] = k;
            }
        if (ds->nkeys == first)
            ds->keys[ds->nkeys++] = w;
    }
}

size_t st_normdiff_keys(const st_analysis *an, const char ***w, size_t nw) {
    if (!an->normdiffs || !an->normdiffs->keys)
        return nw;
    *w = an->normdiffs->keys;
    return an->normdiffs->nkeys;
}

void st_analyze_normdiff(st_analysis *an, const st_analysis_opts *opts) {
    if (an->normdiffs) {
        st_normdiffs_free(an->normdiffs);
        free(an->normdiffs);
    }
    an->normdiffs = ct_xcalloc(1, sizeof *an->normdiffs);
    st_normdiffs *ds = an->normdiffs;
    make_keys(an, ds);
    ds->d = ct_xcalloc(ds->nkeys ? ds->nkeys : 1, sizeof *ds->d);
    for (size_t i = 0; i < ds->nkeys; i++) {
        const char *w = ds->keys[i];
        st_normdiff *d = &ds->d[ds->n++];
        d->workload = w;
        st_pick_normalized(an, w, &d->a, &d->t);
        none(&d->diff, "no allocation or no time cell with a normalized overhead");
        d->res = ST_NR_NA;
        d->se = NAN;
        if (!d->a || !d->t)
            continue;
        st_boot_opts bo = opts->boot;
        bo.seed = opts->boot.seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, w), "#normdiff");
        if (d->a->npz && d->t->npz)
            diff_paired(d->a, d->t, &bo, d);
        else
            diff_unpaired(an, d->a, d->t, &bo, d);
        d->res = st_diff_verdict(&d->diff, opts->margin);
    }
}

const st_normdiff *st_normdiff_find(const st_analysis *an, const char *workload) {
    for (size_t i = 0; an->normdiffs && i < an->normdiffs->n; i++)
        if (!strcmp(an->normdiffs->d[i].workload, workload))
            return &an->normdiffs->d[i];
    return NULL;
}

static int has_iv(const st_interval *iv) { return isfinite(iv->est) && iv->method != ST_CI_NONE; }

void st_normcmp_make(const st_analysis *an, const char *workload, st_normcmp *out) {
    memset(out, 0, sizeof *out);
    st_pick_normalized(an, workload, &out->a, &out->t);
    if (!out->a || !out->t)
        return;
    out->paired = has_iv(&out->a->paired_norm) && has_iv(&out->t->paired_norm);
    out->ai = out->paired ? &out->a->paired_norm : &out->a->norm;
    out->ti = out->paired ? &out->t->paired_norm : &out->t->norm;
    const st_normdiff *d = st_normdiff_find(an, workload);
    out->res = ST_NR_NA;
    if (d && d->a == out->a && d->t == out->t) {
        out->diff = &d->diff;
        out->level = d->level;
        out->res = d->res;
    }
}

const char *st_normcmp_basis(const st_normcmp *c) { return !c->diff ? "-" : c->paired ? "paired" : "unpaired"; }

const char *st_normcmp_word(const st_normcmp *c) { return st_normres_word(c->res); }

void st_normdiffs_free(st_normdiffs *d) {
    for (size_t i = 0; i < d->nowned; i++)
        free(d->owned[i]);
    free(d->owned);
    free(d->keys);
    free(d->d);
    memset(d, 0, sizeof *d);
}

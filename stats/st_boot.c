/* st_boot.c - two-sample bootstrap of statistics of medians; BCa and percentile intervals. */
#include "st_boot.h"
#include "st_desc.h"
#include "st_util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *st_ci_name(st_ci_method m) {
    switch (m) {
    case ST_CI_BCA: return "bca";
    case ST_CI_PERCENTILE: return "percentile";
    case ST_CI_DEGENERATE: return "degenerate";
    case ST_CI_EXACT: return "exact";
    case ST_CI_RANDOM: return "random-effects";
    default: return "none";
    }
}

/* A group prepared for resampling: per metric, the values sorted and the
 * run index at each sorted position. */
typedef struct prepared {
    size_t n;
    int have[ST_BOOT_MAX_METRICS];
    double *sorted[ST_BOOT_MAX_METRICS]; /* sorted[m][j] */
    size_t *perm[ST_BOOT_MAX_METRICS];   /* perm[m][j]: run at sorted position j */
    size_t *pos[ST_BOOT_MAX_METRICS];    /* pos[m][i]: sorted position of run i */
    double full[ST_BOOT_MAX_METRICS];    /* median of all runs */
} prepared;

static const double *sort_key;

static int cmp_index(const void *a, const void *b) {
    double x = sort_key[*(const size_t *)a], y = sort_key[*(const size_t *)b];
    if (x != y)
        return (x > y) - (x < y);
    /* Stable on ties so the order (and so the results) never depend on qsort. */
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return (i > j) - (i < j);
}

static void prepare(const st_sample *s, prepared *p) {
    memset(p, 0, sizeof *p);
    p->n = s ? s->n : 0;
    for (int m = 0; m < ST_BOOT_MAX_METRICS; m++) {
        p->full[m] = NAN;
        if (!s || !s->metric[m] || s->n == 0)
            continue;
        size_t n = s->n;
        p->have[m] = 1;
        p->sorted[m] = ct_xmalloc(n * sizeof(double));
        p->perm[m] = ct_xmalloc(n * sizeof(size_t));
        p->pos[m] = ct_xmalloc(n * sizeof(size_t));
        for (size_t i = 0; i < n; i++)
            p->perm[m][i] = i;
        sort_key = s->metric[m];
        qsort(p->perm[m], n, sizeof(size_t), cmp_index);
        for (size_t j = 0; j < n; j++) {
            p->sorted[m][j] = s->metric[m][p->perm[m][j]];
            p->pos[m][p->perm[m][j]] = j;
        }
        p->full[m] = st_quantile_sorted(p->sorted[m], n, 0.5);
    }
}

static void release(prepared *p) {
    for (int m = 0; m < ST_BOOT_MAX_METRICS; m++) {
        free(p->sorted[m]);
        free(p->perm[m]);
        free(p->pos[m]);
    }
}

/* The midpoint of two order statistics, in st_quantile_sorted's arithmetic. */
static inline double mid(double a, double b) { return a + 0.5 * (b - a); }

/* Median of the resample in which run i appears cnt[i] times (sum n). */
static inline double median_counts(const prepared *p, int m, const unsigned *cnt) {
    size_t n = p->n, klo = (n - 1) / 2, khi = n / 2, cum = 0;
    const double *v = p->sorted[m];
    const size_t *perm = p->perm[m];
    double lo = NAN;
    int have_lo = 0;
    for (size_t j = 0; j < n; j++) {
        cum += cnt[perm[j]];
        if (!have_lo && cum > klo) {
            lo = v[j];
            have_lo = 1;
        }
        if (cum > khi)
            return klo == khi ? lo : mid(lo, v[j]);
    }
    return NAN; /* unreachable: the counts sum to n */
}

/* Median of the group without run i. */
static inline double median_without(const prepared *p, int m, size_t i) {
    size_t n = p->n - 1, at = p->pos[m][i];
    size_t klo = (n - 1) / 2, khi = n / 2;
    const double *v = p->sorted[m];
    double lo = v[klo < at ? klo : klo + 1], hi = v[khi < at ? khi : khi + 1];
    return klo == khi ? lo : mid(lo, hi);
}

static void medians_full(const prepared *p, double *out) {
    for (int m = 0; m < ST_BOOT_MAX_METRICS; m++)
        out[m] = p->full[m];
}

static void medians_resample(const prepared *p, const unsigned *cnt, double *out) {
    for (int m = 0; m < ST_BOOT_MAX_METRICS; m++)
        out[m] = p->have[m] ? median_counts(p, m, cnt) : NAN;
}

static void medians_without(const prepared *p, size_t i, double *out) {
    for (int m = 0; m < ST_BOOT_MAX_METRICS; m++)
        out[m] = p->have[m] ? median_without(p, m, i) : NAN;
}

/* Rearranges a[0..n-1] so that a[k] holds the value a sorted array would
 * have there, everything before it is <= a[k] and everything after >= a[k]
 * (quickselect, median-of-three pivot).  O(n) on average: the intervals
 * need two order statistics of B values, not a full sort. */
static void select_kth(double *a, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        /* Order a[lo], a[mid], a[hi]; the median becomes the pivot. */
        if (a[mid] < a[lo]) {
            double t = a[mid];
            a[mid] = a[lo];
            a[lo] = t;
        }
        if (a[hi] < a[lo]) {
            double t = a[hi];
            a[hi] = a[lo];
            a[lo] = t;
        }
        if (a[hi] < a[mid]) {
            double t = a[hi];
            a[hi] = a[mid];
            a[mid] = t;
        }
        double pivot = a[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return; /* j < k < i: a[k] equals the pivot and is in place */
    }
}

double st_quantile_select(double *t, size_t n, double p) {
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1) {
        double m = t[0];
        for (size_t i = 1; i < n; i++)
            if (t[i] > m)
                m = t[i];
        return m;
    }
    select_kth(t, n, lo);
    double v = t[lo], w = t[lo + 1];
    for (size_t i = lo + 2; i < n; i++)
        if (t[i] < w)
            w = t[i];
    return v + (h - (double)lo) * (w - v);
}

/* Adds one group's jackknife moments to the acceleration's sums: t[0..n)
 * are the leave-one-out statistics and total their sum; *sum2 and *sum3
 * gain sum u^2 / n^2 and sum u^3 / n^3, u = (n - 1)(mean - t[i]). */
static void jack_moments(const double *t, size_t n, double total, double *sum2, double *sum3) {
    double dn = (double)n, mean = total / dn, s2 = 0.0, s3 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double u = (dn - 1.0) * (mean - t[i]);
        s2 += u * u;
        s3 += u * u * u;
    }
    *sum2 += s2 / (dn * dn);
    *sum3 += s3 / (dn * dn * dn);
}

/* Jackknife acceleration of one statistic; returns NAN when undefined
 * (some leave-one-out value not finite, or every one equal). */
static double acceleration(const st_stat *st, const prepared *p1, const prepared *p0) {
    double m1[ST_BOOT_MAX_METRICS], m0[ST_BOOT_MAX_METRICS];
    double sum2 = 0.0, sum3 = 0.0;
    for (int k = 0; k < 2; k++) {
        const prepared *g = k ? p0 : p1;
        if (k == 1 && !st->two_sample)
            break; /* a one-sample statistic's group-0 values are all equal */
        size_t n = g->n;
        double *t = ct_xmalloc(n * sizeof *t), total = 0.0;
        for (size_t i = 0; i < n; i++) {
            if (k == 0) {
                medians_without(p1, i, m1);
                medians_full(p0, m0);
            } else {
                medians_full(p1, m1);
                medians_without(p0, i, m0);
            }
            t[i] = st->fn(m1, m0);
            if (!isfinite(t[i])) {
                free(t);
                return NAN;
            }
            total += t[i];
        }
        jack_moments(t, n, total, &sum2, &sum3);
        free(t);
    }
    if (!(sum2 > 0.0))
        return NAN;
    return sum3 / (6.0 * pow(sum2, 1.5));
}

void st_boot_interval(double *t, size_t B, double confidence, double (*accel)(void *ctx), void *ctx, st_interval *out) {
    ST_ASSERT(B > 0 && t, "an interval from at least one resampled value");
    ST_ASSERT(confidence > 0 && confidence < 1, "the confidence level lies in (0, 1)");
    double est = out->est, alpha = 1.0 - confidence;
    double tmin = t[0], tmax = t[0];
    for (size_t b = 1; b < B; b++) {
        if (t[b] < tmin)
            tmin = t[b];
        if (t[b] > tmax)
            tmax = t[b];
    }
    if (tmin == tmax) {
        out->lo = out->hi = tmin;
        out->method = ST_CI_DEGENERATE;
        out->why = "every resample gave the same value";
        return;
    }
    size_t less = 0, equal = 0;
    for (size_t b = 0; b < B; b++) {
        less += t[b] < est;
        equal += t[b] == est;
    }
    double prop = ((double)less + 0.5 * (double)equal) / (double)B;
    const char *why = NULL;
    double alo = alpha / 2.0, ahi = 1.0 - alpha / 2.0;
    if (prop <= 0.0 || prop >= 1.0) {
        why = "BCa undefined: every resample on one side of the estimate";
    } else {
        double z0 = gsl_cdf_ugaussian_Pinv(prop);
        double a = accel(ctx);
        out->z0 = z0;
        out->accel = a;
        if (isnan(a)) {
            why = "BCa undefined: jackknife values all equal or not finite";
        } else {
            double zl = gsl_cdf_ugaussian_Pinv(alo), zh = gsl_cdf_ugaussian_Pinv(ahi);
            double dl = 1.0 - a * (z0 + zl), dh = 1.0 - a * (z0 + zh);
            if (dl <= 0.0 || dh <= 0.0) {
                why = "BCa undefined: acceleration too large for this confidence";
            } else {
                alo = gsl_cdf_ugaussian_P(z0 + (z0 + zl) / dl);
                ahi = gsl_cdf_ugaussian_P(z0 + (z0 + zh) / dh);
            }
        }
    }
    out->method = why ? ST_CI_PERCENTILE : ST_CI_BCA;
    out->why = why;
    out->lo = st_quantile_select(t, B, alo);
    out->hi = st_quantile_select(t, B, ahi);
}

double st_boot_p_greater(const double *t, size_t B, const st_interval *iv, double null) {
    if (iv->method == ST_CI_NONE || !B || !isfinite(null))
        return NAN;
    if (iv->method == ST_CI_DEGENERATE)
        return iv->est > null ? 0.0 : 1.0;
    size_t less = 0, equal = 0;
    for (size_t b = 0; b < B; b++) {
        less += t[b] < null;
        equal += t[b] == null;
    }
    double g = ((double)less + 0.5 * (double)equal) / (double)B, lo = 0.5 / (double)B;
    if (g < lo)
        g = lo;
    if (g > 1.0 - lo)
        g = 1.0 - lo;
    if (iv->method != ST_CI_BCA)
        return g;
    double z0 = iv->z0, a = iv->accel, v = gsl_cdf_ugaussian_Pinv(g) - z0;
    if (1.0 + a * v <= 0.0) /* beyond where the BCa map is monotone: the far end */
        return v < 0 ? 0.0 : 1.0;
    return gsl_cdf_ugaussian_P(v / (1.0 + a * v) - z0);
}

/* The two-sample statistic's acceleration, for st_boot_interval. */
typedef struct accel_ctx {
    const st_stat *st;
    const prepared *p1, *p0;
} accel_ctx;

static double accel_two(void *ctx) {
    const accel_ctx *a = ctx;
    return acceleration(a->st, a->p1, a->p0);
}

/* Fills out's interval from the resampled values t[0..B-1] (reordered here). */
static void interval(const st_stat *st, const prepared *p1, const prepared *p0, double *t, size_t B, double confidence,
                     st_interval *out) {
    accel_ctx a = {st, p1, p0};
    st_boot_interval(t, B, confidence, accel_two, &a, out);
}

void st_bootstrap(const st_sample *s1, const st_sample *s0, const st_stat *stats, size_t nstats,
                  const st_boot_opts *opts, st_interval *out) {
    ST_ASSERT(opts->resamples > 0, "a bootstrap draws at least one resample");
    ST_ASSERT(opts->confidence > 0.5 && opts->confidence < 1, "the confidence level lies in (0.5, 1)");
    ST_ASSERT(nstats > 0 && s1,
              "a bootstrap of at least one statistic of a cell (its baseline s0 may be NULL: one group)");
    prepared p1, p0;
    prepare(s1, &p1);
    prepare(s0, &p0);
    double m1[ST_BOOT_MAX_METRICS], m0[ST_BOOT_MAX_METRICS];
    medians_full(&p1, m1);
    medians_full(&p0, m0);

    int need_boot = 0;
    int *active = ct_xcalloc(nstats, sizeof *active);
    for (size_t s = 0; s < nstats; s++) {
        st_interval *o = &out[s];
        o->est = p1.n ? stats[s].fn(m1, m0) : NAN;
        if (!isfinite(o->est))
            o->est = NAN;
        o->lo = o->hi = o->z0 = o->accel = NAN;
        o->method = ST_CI_NONE;
        o->why = NULL;
        if (p1.n < ST_BOOT_MIN_RUNS)
            o->why = p1.n ? "fewer than 3 runs in the cell: no interval" : "no runs in the cell";
        else if (stats[s].two_sample && p0.n < ST_BOOT_MIN_RUNS)
            o->why = p0.n ? "fewer than 3 runs in the baseline: no interval" : "no baseline runs";
        else if (isnan(o->est))
            o->why = "undefined on the data";
        else {
            active[s] = 1;
            need_boot = 1;
        }
    }

    if (need_boot) {
        size_t B = opts->resamples;
        double *t = ct_xmalloc(nstats * B * sizeof *t);
        unsigned *c1 = ct_xcalloc(p1.n, sizeof *c1), *c0 = ct_xcalloc(p0.n ? p0.n : 1, sizeof *c0);
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
        if (!rng)
            ct_out_of_memory();
        gsl_rng_set(rng, (unsigned long)((opts->seed ^ (opts->seed >> 32)) & 0xffffffffu));
        for (size_t b = 0; b < B; b++) {
            memset(c1, 0, p1.n * sizeof *c1);
            for (size_t i = 0; i < p1.n; i++)
                c1[gsl_rng_uniform_int(rng, p1.n)]++;
            if (p0.n) {
                memset(c0, 0, p0.n * sizeof *c0);
                for (size_t i = 0; i < p0.n; i++)
                    c0[gsl_rng_uniform_int(rng, p0.n)]++;
            }
            medians_resample(&p1, c1, m1);
            medians_resample(&p0, c0, m0);
            for (size_t s = 0; s < nstats; s++)
                if (active[s])
                    t[s * B + b] = stats[s].fn(m1, m0);
        }
        gsl_rng_free(rng);
        free(c1);
        free(c0);
        for (size_t s = 0; s < nstats; s++) {
            if (!active[s])
                continue;
            double *ts = t + s * B;
            size_t bad = 0;
            for (size_t b = 0; b < B; b++)
                bad += !isfinite(ts[b]);
            if (bad) {
                out[s].why = "undefined on some resamples (a zero median): no interval";
                continue;
            }
            interval(&stats[s], &p1, &p0, ts, B, opts->confidence, &out[s]);
        }
        free(t);
    }
    free(active);
    release(&p1);
    release(&p0);
}

/* ---- k groups ---- */

typedef struct kaccel_ctx {
    const st_kstat *st;
    const prepared *p;
    size_t k;
} kaccel_ctx;

/* Jackknife acceleration of a k-group statistic over the groups it reads;
 * NAN when undefined. */
static double accel_groups(void *ctx) {
    const kaccel_ctx *a = ctx;
    double m[ST_BOOT_MAX_GROUPS][ST_BOOT_MAX_METRICS];
    double sum2 = 0.0, sum3 = 0.0;
    for (size_t g = 0; g < a->k; g++)
        medians_full(&a->p[g], m[g]);
    for (size_t g = 0; g < a->k; g++) {
        if (!(a->st->groups & (1u << g)))
            continue;
        size_t n = a->p[g].n;
        double *t = ct_xmalloc(n * sizeof *t), total = 0.0;
        for (size_t i = 0; i < n; i++) {
            medians_without(&a->p[g], i, m[g]);
            t[i] = a->st->fn((const double(*)[ST_BOOT_MAX_METRICS])m);
            if (!isfinite(t[i])) {
                free(t);
                return NAN;
            }
            total += t[i];
        }
        medians_full(&a->p[g], m[g]);
        jack_moments(t, n, total, &sum2, &sum3);
        free(t);
    }
    if (!(sum2 > 0.0))
        return NAN;
    return sum3 / (6.0 * pow(sum2, 1.5));
}

void st_bootstrap_groups(const st_sample *groups, size_t k, const st_kstat *stats, size_t nstats,
                         const st_boot_opts *opts, st_interval *out) {
    st_bootstrap_groups_keep(groups, k, stats, nstats, opts, out, NULL);
}

void st_bootstrap_groups_keep(const st_sample *groups, size_t k, const st_kstat *stats, size_t nstats,
                              const st_boot_opts *opts, st_interval *out, double *keep) {
    if (k < 1 || k > ST_BOOT_MAX_GROUPS)
        abort(); /* a programming error, not input */
    prepared p[ST_BOOT_MAX_GROUPS];
    double m[ST_BOOT_MAX_GROUPS][ST_BOOT_MAX_METRICS];
    for (size_t g = 0; g < k; g++) {
        prepare(&groups[g], &p[g]);
        medians_full(&p[g], m[g]);
    }
    int need_boot = 0;
    int *active = ct_xcalloc(nstats ? nstats : 1, sizeof *active);
    for (size_t s = 0; s < nstats; s++) {
        st_interval *o = &out[s];
        size_t fewest = SIZE_MAX;
        for (size_t g = 0; g < k; g++)
            if ((stats[s].groups & (1u << g)) && p[g].n < fewest)
                fewest = p[g].n;
        o->est = fewest && fewest != SIZE_MAX ? stats[s].fn((const double(*)[ST_BOOT_MAX_METRICS])m) : NAN;
        if (!isfinite(o->est))
            o->est = NAN;
        o->lo = o->hi = o->z0 = o->accel = NAN;
        o->method = ST_CI_NONE;
        o->why = NULL;
        if (fewest == 0 || fewest == SIZE_MAX)
            o->why = "a group without runs";
        else if (fewest < ST_BOOT_MIN_RUNS)
            o->why = "fewer than 3 runs in a group: no interval";
        else if (isnan(o->est))
            o->why = "undefined on the data";
        else {
            active[s] = 1;
            need_boot = 1;
        }
    }
    if (need_boot) {
        size_t B = opts->resamples;
        double *t = ct_xmalloc(nstats * B * sizeof *t);
        unsigned *c[ST_BOOT_MAX_GROUPS];
        for (size_t g = 0; g < k; g++)
            c[g] = ct_xcalloc(p[g].n ? p[g].n : 1, sizeof *c[g]);
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
        if (!rng)
            ct_out_of_memory();
        gsl_rng_set(rng, (unsigned long)((opts->seed ^ (opts->seed >> 32)) & 0xffffffffu));
        for (size_t b = 0; b < B; b++) {
            for (size_t g = 0; g < k; g++) {
                if (!p[g].n)
                    continue;
                memset(c[g], 0, p[g].n * sizeof *c[g]);
                for (size_t i = 0; i < p[g].n; i++)
                    c[g][gsl_rng_uniform_int(rng, p[g].n)]++;
                medians_resample(&p[g], c[g], m[g]);
            }
            for (size_t s = 0; s < nstats; s++)
                if (active[s])
                    t[s * B + b] = stats[s].fn((const double(*)[ST_BOOT_MAX_METRICS])m);
        }
        gsl_rng_free(rng);
        for (size_t g = 0; g < k; g++)
            free(c[g]);
        for (size_t s = 0; s < nstats; s++) {
            if (!active[s])
                continue;
            double *ts = t + s * B;
            size_t bad = 0;
            for (size_t b = 0; b < B; b++)
                bad += !isfinite(ts[b]);
            if (bad) {
                out[s].why = "undefined on some resamples (a zero median): no interval";
                continue;
            }
            if (keep)
                memcpy(keep + s * B, ts, B * sizeof *ts);
            kaccel_ctx a = {&stats[s], p, k};
            st_boot_interval(ts, B, opts->confidence, accel_groups, &a, &out[s]);
        }
        free(t);
    }
    free(active);
    for (size_t g = 0; g < k; g++)
        release(&p[g]);
}

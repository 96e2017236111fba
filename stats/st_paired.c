/* st_paired.c - per-block log-ratios: Hodges-Lehmann, median, mean; one-sample BCa; verdicts. */
#include "st_paired.h"
#include "st_util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Estimators on a scratch copy w (n values, reordered). */
static double median_of(double *w, size_t n) { return st_quantile_select(w, n, 0.5); }

static double hl_into(const double *d, size_t n, double *walsh) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            walsh[k++] = 0.5 * (d[i] + d[j]);
    return median_of(walsh, k);
}

/* The estimate of d with scratch space scratch (n(n+1)/2 values for HL, n otherwise). */
static double estimate(st_loc loc, const double *d, size_t n, double *scratch) {
    if (n == 0)
        return NAN;
    switch (loc) {
    case ST_LOC_HL: return hl_into(d, n, scratch);
    case ST_LOC_MEDIAN: memcpy(scratch, d, n * sizeof *d); return median_of(scratch, n);
    case ST_LOC_MEAN: {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += d[i];
        return s / (double)n;
    }
    }
    return NAN;
}

static size_t scratch_size(st_loc loc, size_t n) { return loc == ST_LOC_HL ? n * (n + 1) / 2 + 1 : n + 1; }

double st_loc_estimate(st_loc loc, const double *d, size_t n) {
    double *w = ct_xmalloc(scratch_size(loc, n) * sizeof *w);
    double v = estimate(loc, d, n, w);
    free(w);
    return v;
}

double st_hodges_lehmann(const double *d, size_t n) { return st_loc_estimate(ST_LOC_HL, d, n); }

double st_paired_accel(st_loc loc, const double *d, size_t n) {
    if (n < 2)
        return NAN;
    double *loo = ct_xmalloc(n * sizeof *loo), *t = ct_xmalloc(n * sizeof *t);
    double *w = ct_xmalloc(scratch_size(loc, n) * sizeof *w);
    double mean = 0.0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (j != i)
                loo[k++] = d[j];
        t[i] = estimate(loc, loo, n - 1, w);
        mean += t[i];
    }
    mean /= (double)n;
    double s2 = 0.0, s3 = 0.0, dn = (double)n;
    int finite = 1;
    for (size_t i = 0; i < n; i++) {
        finite &= isfinite(t[i]);
        double u = (dn - 1.0) * (mean - t[i]);
        s2 += u * u;
        s3 += u * u * u;
    }
    free(loo), free(t), free(w);
    if (!finite || !(s2 > 0.0))
        return NAN;
    return s3 / (6.0 * pow(s2, 1.5));
}

typedef struct accel_ctx {
    st_loc loc;
    const double *d;
    size_t n;
} accel_ctx;

static double accel_one(void *ctx) {
    const accel_ctx *a = ctx;
    return st_paired_accel(a->loc, a->d, a->n);
}

void st_paired_bootstrap(const double *d, size_t n, st_loc loc, const st_boot_opts *opts, st_interval *out) {
    out->est = n ? st_loc_estimate(loc, d, n) : NAN;
    out->lo = out->hi = out->z0 = out->accel = NAN;
    out->method = ST_CI_NONE;
    out->why = NULL;
    if (n < ST_BOOT_MIN_RUNS) {
        out->why = n ? "fewer than 3 blocks: no interval" : "no blocks";
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i])) {
            out->est = NAN;
            out->why = "a block's value is not finite: no interval";
            return;
        }
    size_t B = opts->resamples;
    double *t = ct_xmalloc(B * sizeof *t), *r = ct_xmalloc(n * sizeof *r);
    double *w = ct_xmalloc(scratch_size(loc, n) * sizeof *w);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((opts->seed ^ (opts->seed >> 32)) & 0xffffffffu));
    for (size_t b = 0; b < B; b++) {
        for (size_t i = 0; i < n; i++)
            r[i] = d[gsl_rng_uniform_int(rng, n)];
        t[b] = estimate(loc, r, n, w);
    }
    gsl_rng_free(rng);
    accel_ctx a = {loc, d, n};
    st_boot_interval(t, B, opts->confidence, accel_one, &a, out);
    free(t), free(r), free(w);
}

st_verdict st_paired_verdict(const st_interval *iv, double margin) {
    if (iv->method == ST_CI_NONE || !isfinite(iv->lo) || !isfinite(iv->hi))
        return ST_V_NA;
    if (iv->lo > 1.0)
        return ST_V_SLOWER;
    if (iv->hi < 1.0)
        return ST_V_FASTER;
    if (iv->lo >= 1.0 - margin && iv->hi <= 1.0 + margin)
        return ST_V_EQUIVALENT;
    return ST_V_UNRESOLVED;
}

const char *st_verdict_text(st_verdict v, double margin, char *buf, size_t size) {
    switch (v) {
    case ST_V_SLOWER: return "slower";
    case ST_V_FASTER: return "faster";
    case ST_V_EQUIVALENT: snprintf(buf, size, "no effect above %g%%", margin * 100); return buf;
    case ST_V_UNRESOLVED: return "not resolved";
    default: return "n/a";
    }
}

void st_interval_exp(st_interval *iv) {
    iv->est = exp(iv->est);
    iv->lo = exp(iv->lo);
    iv->hi = exp(iv->hi);
}

int st_adaptive_more(const double *d, size_t n, const st_adaptive *rule, const st_boot_opts *opts, st_interval *iv) {
    st_interval tmp;
    if (!iv)
        iv = &tmp;
    if (n < rule->min_blocks) {
        *iv = (st_interval){NAN, NAN, NAN, ST_CI_NONE, "fewer blocks than the minimum", NAN, NAN};
        return 1;
    }
    st_paired_bootstrap(d, n, ST_LOC_HL, opts, iv);
    st_interval_exp(iv);
    if (n >= rule->max_blocks)
        return 0;
    if (iv->method == ST_CI_NONE || !((iv->hi - iv->lo) / 2 <= rule->halfwidth))
        return 1;
    return 0;
}

void st_adaptive_simulate(const st_adaptive *rule, double true_log, double noise, int heavy, size_t experiments,
                          size_t resamples, uint64_t seed, st_adaptive_sim *out) {
    memset(out, 0, sizeof *out);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        ct_out_of_memory();
    gsl_rng_set(r, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    size_t cap = rule->max_blocks > rule->min_blocks ? rule->max_blocks : rule->min_blocks;
    double *d = ct_xmalloc((cap ? cap : 1) * sizeof *d);
    double truth = exp(true_log), blocks = 0, hw = 0;
    for (size_t k = 0; k < experiments; k++) {
        size_t n = 0;
        st_interval iv;
        st_boot_opts o = {resamples, 0.95, seed + k + 1};
        for (;;) {
            while (n < rule->min_blocks && n < cap)
                d[n++] = true_log + noise * (heavy ? gsl_ran_tdist(r, 3) / sqrt(3.0) : gsl_ran_gaussian(r, 1.0));
            if (!st_adaptive_more(d, n, rule, &o, &iv) || n >= cap)
                break;
            d[n++] = true_log + noise * (heavy ? gsl_ran_tdist(r, 3) / sqrt(3.0) : gsl_ran_gaussian(r, 1.0));
        }
        if (iv.method == ST_CI_NONE)
            st_adaptive_more(d, n, &(st_adaptive){rule->halfwidth, 0, n}, &o, &iv);
        out->experiments++;
        out->at_max += n >= rule->max_blocks;
        blocks += (double)n;
        hw += (iv.hi - iv.lo) / 2;
        if (iv.lo > truth)
            out->above++;
        else if (iv.hi < truth)
            out->below++;
        else
            out->covered++;
    }
    out->mean_blocks = experiments ? blocks / (double)experiments : NAN;
    out->mean_halfwidth = experiments ? hw / (double)experiments : NAN;
    free(d);
    gsl_rng_free(r);
}

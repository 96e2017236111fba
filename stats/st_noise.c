/* st_noise.c - drift, bimodality, autocorrelation, episodes and covariates of a sweep's runs. */
#include "st_noise.h"
#include "st_desc.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double st_lag1(const double *x, size_t n) {
    if (n < 3)
        return NAN;
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        den += (x[i] - m) * (x[i] - m);
        if (i + 1 < n)
            num += (x[i] - m) * (x[i + 1] - m);
    }
    return den > 0.0 ? num / den : NAN;
}

double st_bimodality(const double *x, size_t n) {
    if (n < 4)
        return NAN;
    double m = 0.0, dn = (double)n;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= dn;
    double m2 = 0.0, m3 = 0.0, m4 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - m;
        m2 += d * d;
        m3 += d * d * d;
        m4 += d * d * d * d;
    }
    m2 /= dn, m3 /= dn, m4 /= dn;
    if (!(m2 > 0.0))
        return NAN;
    double g1 = m3 / pow(m2, 1.5) * sqrt(dn * (dn - 1.0)) / (dn - 2.0);
    double g2 = ((dn + 1.0) * (m4 / (m2 * m2) - 3.0) + 6.0) * (dn - 1.0) / ((dn - 2.0) * (dn - 3.0));
    return (g1 * g1 + 1.0) / (g2 + 3.0 * (dn - 1.0) * (dn - 1.0) / ((dn - 2.0) * (dn - 3.0)));
}

double st_pearson(const double *x, const double *y, size_t n) {
    double sx = 0, sy = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i]))
            sx += x[i], sy += y[i], k++;
    if (k < 3)
        return NAN;
    double mx = sx / (double)k, my = sy / (double)k, sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

typedef struct rrun {
    const st_run *run;
    double resid;
} rrun;

static int cmp_seq(const void *a, const void *b) {
    int64_t x = ((const rrun *)a)->run->seq, y = ((const rrun *)b)->run->seq;
    return (x > y) - (x < y);
}

static int cmp_run_seq(const void *a, const void *b) {
    int64_t x = (*(const st_run *const *)a)->seq, y = (*(const st_run *const *)b)->seq;
    return (x > y) - (x < y);
}

static double median_copy(const double *v, size_t n) {
    if (!n)
        return NAN;
    double *w = ct_xmalloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    double m = st_median(w, n);
    free(w);
    return m;
}

void st_noise_compute(const st_analysis *an, st_noise *out) {
    const st_sweep *sw = an->sweep;
    memset(out, 0, sizeof *out);
    rrun *rr = ct_xmalloc((sw->nruns ? sw->nruns : 1) * sizeof *rr);
    double *lw = ct_xmalloc((sw->nruns ? sw->nruns : 1) * sizeof *lw);
    out->baselines = ct_xcalloc(an->nresults ? an->nresults : 1, sizeof *out->baselines);
    size_t n = 0;
    for (size_t k = 0; k < an->nresults; k++) {
        const st_result *r = &an->results[k];
        const st_cell *c = r->cell;
        size_t m = 0;
        const st_run **runs = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *runs);
        for (size_t i = 0; i < c->nruns; i++) {
            const st_run *run = &sw->runs[c->first_run + i];
            if (run->used && run->wall_ns > 0)
                runs[m] = run, lw[m++] = log(run->wall_ns);
        }
        double med = median_copy(lw, m);
        for (size_t i = 0; i < m; i++)
            rr[n++] = (rrun){runs[i], lw[i] - med};
        if (r->is_baseline) {
            st_noise_baseline *b = &out->baselines[out->nbaselines++];
            b->r = r;
            b->n = m;
            b->bimodality = st_bimodality(lw, m);
            b->drift = NAN;
            if (m >= 6) {
                qsort(runs, m, sizeof *runs, cmp_run_seq);
                size_t t = m / 3;
                double *a = ct_xmalloc(t * sizeof *a), *z = ct_xmalloc(t * sizeof *z);
                for (size_t i = 0; i < t; i++)
                    a[i] = runs[i]->wall_ns, z[i] = runs[m - t + i]->wall_ns;
                b->drift = st_median(z, t) / st_median(a, t);
                free(a), free(z);
            }
        }
        free(runs);
    }
    qsort(rr, n, sizeof *rr, cmp_seq);
    out->nruns = n;
    double *x = ct_xmalloc((n ? n : 1) * sizeof *x), *ab = ct_xmalloc((n ? n : 1) * sizeof *ab);
    for (size_t i = 0; i < n; i++)
        x[i] = rr[i].resid, ab[i] = fabs(rr[i].resid);
    out->lag1 = st_lag1(x, n);
    out->resid_mad = median_copy(ab, n);
    double slow = log(1.0 + ST_NOISE_EPISODE_SLOW);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && x[j] > slow)
            j++;
        if (j - i >= ST_NOISE_EPISODE_RUNS) {
            if (out->episodes < ST_NOISE_MAX_EPISODES) {
                out->ep_first[out->episodes] = rr[i].run->seq;
                out->ep_last[out->episodes] = rr[j - 1].run->seq;
            }
            out->episodes++;
            out->episode_runs += j - i;
        }
        i = j > i ? j : i + 1;
    }
    /* Covariates. */
    double *steal = ct_xmalloc((n ? n : 1) * sizeof *steal), *busy = ct_xmalloc((n ? n : 1) * sizeof *busy);
    double *load = ct_xmalloc((n ? n : 1) * sizeof *load), *iv = ct_xmalloc((n ? n : 1) * sizeof *iv);
    double *ss = ct_xmalloc((n ? n : 1) * sizeof *ss);
    size_t nc = 0;
    out->steal_ms_max = out->nivcsw_max = out->load_max = NAN;
    out->load_min = NAN;
    for (size_t i = 0; i < n; i++) {
        const st_run *r = rr[i].run;
        ss[i] = r->steal_ns / r->wall_ns;
        busy[i] = r->other_busy_ns / r->wall_ns;
        load[i] = r->loadavg1;
        if (isfinite(r->steal_ns) && isfinite(r->other_busy_ns) && isfinite(r->nivcsw) && isfinite(r->loadavg1)) {
            steal[nc] = r->steal_ns / 1e6;
            iv[nc] = r->nivcsw;
            if (!(out->steal_ms_max >= steal[nc]))
                out->steal_ms_max = steal[nc];
            if (!(out->nivcsw_max >= iv[nc]))
                out->nivcsw_max = iv[nc];
            if (!(out->load_max >= r->loadavg1))
                out->load_max = r->loadavg1;
            if (!(out->load_min <= r->loadavg1))
                out->load_min = r->loadavg1;
            nc++;
        }
    }
    out->ncov = nc;
    out->steal_ms_med = median_copy(steal, nc);
    out->nivcsw_med = median_copy(iv, nc);
    double *bs = ct_xmalloc((n ? n : 1) * sizeof *bs);
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(busy[i]))
            bs[nb++] = busy[i];
    out->busy_share_med = median_copy(bs, nb);
    out->corr_steal = st_pearson(x, ss, n);
    out->corr_busy = st_pearson(x, busy, n);
    out->corr_load = st_pearson(x, load, n);
    free(bs), free(steal), free(busy), free(load), free(iv), free(ss), free(x), free(ab), free(rr), free(lw);
}

void st_noise_free(st_noise *n) {
    free(n->baselines);
    memset(n, 0, sizeof *n);
}

/* st_changepoint.c - PELT on a robustly standardized series (invariants: st_changepoint.h). */
#include "st_changepoint.h"
#include "st_desc.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *st_steady_name(st_steady s) {
    switch (s) {
    case ST_STEADY_FLAT: return "flat";
    case ST_STEADY_AFTER: return "steady after a warm-up";
    case ST_STEADY_NONE: return "no steady state";
    default: return "untested";
    }
}

size_t st_cp_pelt(const double *z, size_t n, double beta, size_t *cp) {
    if (n == 0)
        return 0;
    /* Prefix sums make a segment's cost O(1): sum z^2 - (sum z)^2 / m. */
    double *S = ct_xmalloc((n + 1) * sizeof *S), *S2 = ct_xmalloc((n + 1) * sizeof *S2);
    double *F = ct_xmalloc((n + 1) * sizeof *F);
    size_t *last = ct_xmalloc((n + 1) * sizeof *last), *R = ct_xmalloc((n + 1) * sizeof *R);
    double *val = ct_xmalloc((n + 1) * sizeof *val);
    S[0] = S2[0] = 0;
    for (size_t i = 0; i < n; i++) {
        S[i + 1] = S[i] + z[i];
        S2[i + 1] = S2[i] + z[i] * z[i];
    }
    F[0] = -beta;
    last[0] = 0;
    size_t nr = 1;
    R[0] = 0;
    for (size_t t = 1; t <= n; t++) {
        double best = INFINITY;
        size_t arg = 0;
        for (size_t k = 0; k < nr; k++) {
            size_t s = R[k];
            double m = (double)(t - s), sum = S[t] - S[s];
            double c = S2[t] - S2[s] - sum * sum / m;
            if (c < 0)
                c = 0; /* rounding of a constant segment */
            val[k] = F[s] + c + beta;
            if (val[k] < best) { /* the first (earliest) minimiser wins ties */
                best = val[k];
                arg = s;
            }
        }
        F[t] = best;
        last[t] = arg;
        /* Pruning: a candidate whose cost so far, without the penalty of a
         * new changepoint, already exceeds the optimum can never win later. */
        size_t keep = 0;
        for (size_t k = 0; k < nr; k++)
            if (val[k] - beta <= F[t])
                R[keep++] = R[k];
        R[keep++] = t;
        nr = keep;
    }
    size_t ncp = 0;
    for (size_t t = n; t > 0; t = last[t])
        if (last[t] > 0)
            cp[ncp++] = last[t];
    for (size_t i = 0; i < ncp / 2; i++) { /* back to ascending order */
        size_t x = cp[i];
        cp[i] = cp[ncp - 1 - i];
        cp[ncp - 1 - i] = x;
    }
    free(S), free(S2), free(F), free(last), free(R), free(val);
    return ncp;
}

void st_cp_find(const double *x, size_t n, st_cp *out) {
    memset(out, 0, sizeof *out);
    out->n = n;
    out->scale = NAN;
    if (n < ST_CP_MIN) {
        out->steady = ST_STEADY_UNTESTED;
        return;
    }
    double *d = ct_xmalloc(n * sizeof *d);
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = x[i + 1] - x[i];
    double md = st_median(d, n - 1);
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = fabs(d[i] - md);
    double s = 1.4826 * st_median(d, n - 1) / sqrt(2.0);
    out->scale = s;
    out->steady = ST_STEADY_FLAT;
    if (!(s > 0) || !isfinite(s)) {
        free(d);
        return; /* neighbours equal: no level to tell apart */
    }
    /* Hampel filter: a block further than ST_CP_OUTLIER scales from the
     * median of its window (ST_CP_HALF blocks each side) is an outlier (a
     * collection falling into one half of the block) and stands in at that
     * median; a change of level is no outlier of its own window. */
    double *y = ct_xmalloc(n * sizeof *y), win[2 * ST_CP_HALF + 1];
    for (size_t i = 0; i < n; i++) {
        size_t a = i >= ST_CP_HALF ? i - ST_CP_HALF : 0, b = i + ST_CP_HALF + 1 < n ? i + ST_CP_HALF + 1 : n;
        memcpy(win, x + a, (b - a) * sizeof *x);
        double m = st_median(win, b - a);
        y[i] = fabs(x[i] - m) > ST_CP_OUTLIER * s ? m : x[i];
    }
    double my = st_median(y, n);
    double *z = ct_xmalloc(n * sizeof *z);
    for (size_t i = 0; i < n; i++)
        z[i] = (y[i] - my) / s;
    free(y);
    size_t *cp = ct_xmalloc(n * sizeof *cp);
    out->ncp = st_cp_pelt(z, n, ST_CP_PENALTY * log((double)n), cp);
    for (size_t i = 0; i < out->ncp && i < ST_CP_MAX; i++)
        out->cp[i] = cp[i];
    /* A warm-up ends at a changepoint in the first quarter of the series;
     * a changepoint later than that is a change of level inside the run
     * (a phase of the workload), after which no segment is the steady state. */
    if (out->ncp) {
        size_t last = cp[out->ncp - 1];
        if ((double)last <= (double)n / 4.0) {
            out->steady = ST_STEADY_AFTER;
            out->start = last;
        } else {
            out->steady = ST_STEADY_NONE;
        }
    }
    free(cp), free(z), free(d);
}

/* st_regress.c - weighted Theil-Sen fit of run time on samples taken, with a stratified bootstrap. */
#include "st_regress.h"
#include "st_boot.h"
#include "st_util.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Weighted median of v[0..n-1] with weights w (> 0), in O(n) on average:
 * the value at which the weight below and above are both at most half; on
 * an exact half split, the midpoint of the two values around it (the plain
 * median's rule for an even count).  Reorders v and w. */
static double weighted_median(double *v, double *w, size_t n) {
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += w[i];
    double half = total / 2, acc = 0, max_below = -INFINITY;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        /* Median of three as the pivot. */
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        double p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        /* Three-way partition: [lo, lt) < p, [lt, gt) == p, [gt, hi) > p. */
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < p) {
                double tv = v[i], tw = w[i];
                v[i] = v[lt], w[i] = w[lt];
                v[lt] = tv, w[lt] = tw;
                lt++, i++;
            } else if (v[i] > p) {
                gt--;
                double tv = v[i], tw = w[i];
                v[i] = v[gt], w[i] = w[gt];
                v[gt] = tv, w[gt] = tw;
            } else {
                i++;
            }
        }
        double wl = 0, we = 0, lmax = -INFINITY;
        for (size_t k = lo; k < lt; k++) {
            wl += w[k];
            if (v[k] > lmax)
                lmax = v[k];
        }
        for (size_t k = lt; k < gt; k++)
            we += w[k];
        if (acc + wl > half) {
            hi = lt;
            continue;
        }
        if (acc + wl == half) /* exactly half below p */
            return ((lt > lo ? lmax : max_below) + p) / 2;
        if (acc + wl + we > half)
            return p;
        if (acc + wl + we == half && gt < hi) { /* exactly half up to p */
            double gmin = v[gt];
            for (size_t k = gt; k < hi; k++)
                if (v[k] < gmin)
                    gmin = v[k];
            return (p + gmin) / 2;
        }
        if (acc + wl + we == half)
            return p;
        acc += wl + we;
        max_below = p;
        lo = gt;
    }
    return NAN; /* n == 0 */
}

/* Scratch space for pairs, grown as needed. */
typedef struct pairs {
    double *s, *w;
    size_t cap;
} pairs;

static double slope_into(pairs *pp, size_t n, const double *x, const double *y, const size_t *group, long skip) {
    size_t need = n * (n - (n > 0)) / 2;
    if (need > pp->cap) {
        pp->cap = need;
        pp->s = ct_xrealloc(pp->s, need * sizeof(double));
        pp->w = ct_xrealloc(pp->w, need * sizeof(double));
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (group && skip >= 0 && group[i] == (size_t)skip)
            continue;
        for (size_t j = i + 1; j < n; j++) {
            if (group && (group[j] == group[i] || (skip >= 0 && group[j] == (size_t)skip)))
                continue;
            double dx = x[j] - x[i];
            if (dx == 0)
                continue;
            pp->s[k] = (y[j] - y[i]) / dx;
            pp->w[k] = fabs(dx);
            k++;
        }
    }
    return k ? weighted_median(pp->s, pp->w, k) : NAN;
}

double st_reg_slope(size_t n, const double *x, const double *y, const size_t *group, long skip_group) {
    pairs pp = {0};
    double s = slope_into(&pp, n, x, y, group, skip_group);
    free(pp.s);
    free(pp.w);
    return s;
}

/* One fit on (x, y, group): cost, intercept, base, fixed, and (if res) the
 * residual medians.  tmp holds n doubles. */
typedef struct one {
    double cost, intercept, base, fixed;
} one;

static one fit_once(pairs *pp, size_t n, const double *x, const double *y, const size_t *group, size_t ngroups,
                    long baseline, int baseline_in_slope, double *tmp, double *res) {
    one o;
    o.cost = slope_into(pp, n, x, y, group, baseline_in_slope ? -1 : baseline);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (baseline < 0 || group[i] != (size_t)baseline)
            tmp[k++] = y[i] - o.cost * x[i];
    o.intercept = k ? st_quantile_select(tmp, k, 0.5) : NAN;
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (baseline >= 0 && group[i] == (size_t)baseline)
            tmp[k++] = y[i];
    o.base = k ? st_quantile_select(tmp, k, 0.5) : NAN;
    o.fixed = baseline_in_slope ? NAN : o.intercept - o.base;
    if (res) {
        for (size_t g = 0; g < ngroups; g++) {
            k = 0;
            for (size_t i = 0; i < n; i++)
                if (group[i] == g)
                    tmp[k++] = y[i] - o.intercept - o.cost * x[i];
            res[g] = k ? st_quantile_select(tmp, k, 0.5) : NAN;
        }
    }
    return o;
}

/* Percentile interval of the finite values among t[0..n-1]; NaN bounds if
 * any is not finite.  Reorders t. */
static void percentile(double *t, size_t n, double confidence, st_reg_est *e) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(t[i])) {
            e->lo = e->hi = NAN;
            return;
        }
    e->lo = st_quantile_select(t, n, (1 - confidence) / 2);
    e->hi = st_quantile_select(t, n, (1 + confidence) / 2);
}

/* Clears the intervals the groups' sizes do not allow: cost and intercept
 * (the sampling groups, and the baseline when the slope uses it), base (the
 * baseline), fixed (all of them). */
static void no_interval(st_reg_fit *fit, int cost_ci, int base_ci) {
    if (!cost_ci)
        fit->cost.lo = fit->cost.hi = fit->intercept.lo = fit->intercept.hi = NAN;
    if (!base_ci)
        fit->base.lo = fit->base.hi = NAN;
    if (!cost_ci || !base_ci)
        fit->fixed.lo = fit->fixed.hi = NAN;
}

/* Do the runs of every group repeat exactly (the same x and the same y)?
 * member[start[g] .. start[g + 1]) are group g's runs. */
static int exact_repeats(const st_reg_data *d, const size_t *start, const size_t *member) {
    for (size_t g = 0; g < d->ngroups; g++)
        for (size_t k = start[g] + 1; k < start[g + 1]; k++) {
            size_t i = member[k], first = member[start[g]];
            if (d->x[i] != d->x[first] || d->y[i] != d->y[first])
                return 0;
        }
    return 1;
}

/* Runs per group, and the sampling groups and the slope's reading of the
 * baseline into fit. */
static size_t *count_groups(const st_reg_data *d, st_reg_fit *fit) {
    size_t n = d->n, G = d->ngroups;
    size_t *count = ct_xcalloc(G ? G : 1, sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        count[d->group[i]]++;
    for (size_t g = 0; g < G; g++)
        if (count[g] && (long)g != d->baseline)
            fit->sampling_groups++;
    fit->baseline_in_slope = fit->sampling_groups < 2;
    if (fit->baseline_in_slope)
        fit->why = "fewer than two sampling cells: the slope uses the baseline and the fixed cost is not separable";
    return count;
}

/* Which estimates get an interval (*cost_ci, *base_ci), with fit->no_ci
 * saying why one does not. */
static void interval_rules(const st_reg_data *d, st_reg_fit *fit, const size_t *count, int *cost_ci, int *base_ci) {
    size_t G = d->ngroups;
    /* Which estimates get an interval: the rule of every interval of the
     * summary (st_boot.h), each group the estimate reads needs
     * ST_BOOT_MIN_RUNS runs.  A group of one run is always drawn whole, so an
     * interval over it would only show the other groups' spread. */
    size_t fewest_sampling = SIZE_MAX, nbase = d->baseline >= 0 && (size_t)d->baseline < G ? count[d->baseline] : 0;
    for (size_t g = 0; g < G; g++)
        if (count[g] && (long)g != d->baseline && count[g] < fewest_sampling)
            fewest_sampling = count[g];
    int slope_reads_base = fit->baseline_in_slope && nbase > 0;
    *cost_ci = fewest_sampling != SIZE_MAX && fewest_sampling >= ST_BOOT_MIN_RUNS &&
               (!slope_reads_base || nbase >= ST_BOOT_MIN_RUNS);
    *base_ci = nbase >= ST_BOOT_MIN_RUNS;
    if (fewest_sampling != SIZE_MAX && fewest_sampling < ST_BOOT_MIN_RUNS)
        fit->no_ci = "a sampling cell has fewer than 3 used runs: no interval";
    else if (nbase && nbase < ST_BOOT_MIN_RUNS)
        fit->no_ci = slope_reads_base ? "the baseline has fewer than 3 used runs: no interval"
                                      : "the baseline has fewer than 3 used runs: no interval for the baseline "
                                        "and the fixed cost";
}

/* Members of each group, for the stratified resampling: group g's runs are
 * member[start[g] .. start[g + 1]) (*startp, G + 1 entries). */
static size_t *group_members(const st_reg_data *d, const size_t *count, size_t **startp) {
    size_t n = d->n, G = d->ngroups;
    size_t *start = ct_xcalloc(G + 1, sizeof(size_t));
    for (size_t g = 0; g < G; g++)
        start[g + 1] = start[g] + count[g];
    size_t *member = ct_xmalloc((n ? n : 1) * sizeof(size_t));
    size_t *fill = ct_xcalloc(G ? G : 1, sizeof(size_t));
    for (size_t i = 0; i < n; i++)
        member[start[d->group[i]] + fill[d->group[i]]++] = i;
    free(fill);
    *startp = start;
    return member;
}

/* The B resamples (draw[g] runs of each group g, seed from opts->seed), each
 * fitted again, and the percentile intervals of the four estimates. */
static void boot_percentiles(const st_reg_data *d, const st_reg_opts *opts, st_reg_fit *fit, pairs *ppp, double *tmp,
                             const size_t *count, const size_t *start, const size_t *member, const size_t *draw) {
    size_t n = d->n, G = d->ngroups, B = opts->resamples;
    double *bi = ct_xmalloc(B * sizeof(double)), *bb = ct_xmalloc(B * sizeof(double)),
           *bf = ct_xmalloc(B * sizeof(double));
    double *rx = ct_xmalloc((n ? n : 1) * sizeof(double)), *ry = ct_xmalloc((n ? n : 1) * sizeof(double));
    size_t *rg = ct_xmalloc((n ? n : 1) * sizeof(size_t));
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((opts->seed >> 32) ^ (opts->seed & 0xffffffffu)));
    for (size_t b = 0; b < B; b++) {
        size_t k = 0;
        for (size_t g = 0; g < G; g++)
            for (size_t j = 0; j < draw[g]; j++) {
                size_t i = member[start[g] + gsl_rng_uniform_int(rng, count[g])];
                rx[k] = d->x[i], ry[k] = d->y[i], rg[k] = g;
                k++;
            }
        one r = fit_once(ppp, k, rx, ry, rg, G, d->baseline, fit->baseline_in_slope, tmp, NULL);
        fit->boot_cost[b] = r.cost, bi[b] = r.intercept, bb[b] = r.base, bf[b] = r.fixed;
    }
    double *t = ct_xmalloc(B * sizeof(double));
    memcpy(t, fit->boot_cost, B * sizeof(double));
    percentile(t, B, opts->confidence, &fit->cost);
    percentile(bi, B, opts->confidence, &fit->intercept);
    percentile(bb, B, opts->confidence, &fit->base);
    percentile(bf, B, opts->confidence, &fit->fixed);
    gsl_rng_free(rng);
    free(t), free(bi), free(bb), free(bf), free(rx), free(ry), free(rg);
}

/* The fit of cost per sample: group counts, interval rules, the point fit,
 * the group members, then the Rao-Wu bootstrap (or the estimate itself when
 * nothing varies). */
void st_reg_fit_runs(const st_reg_data *d, const st_reg_opts *opts, st_reg_fit *fit) {
    memset(fit, 0, sizeof *fit);
    size_t n = d->n, G = d->ngroups;
    fit->n = n;
    fit->residual = ct_xmalloc((G ? G : 1) * sizeof(double));
    size_t *count = count_groups(d, fit);
    int cost_ci, base_ci;
    interval_rules(d, fit, count, &cost_ci, &base_ci);

    pairs pp = {0};
    double *tmp = ct_xmalloc((n ? n : 1) * sizeof(double));
    one o = fit_once(&pp, n, d->x, d->y, d->group, G, d->baseline, fit->baseline_in_slope, tmp, fit->residual);
    fit->cost.est = o.cost;
    fit->intercept.est = o.intercept;
    fit->base.est = o.base;
    fit->fixed.est = o.fixed;
    if (isnan(o.cost))
        fit->why = "no two runs with different sample counts: no slope";

    size_t *start;
    size_t *member = group_members(d, count, &start);

    /* Each group draws n_g - 1 of its n_g runs (n_g if it has one): the
     * Rao-Wu rescaled bootstrap, whose variance for a mean is the unbiased
     * s^2 / n_g instead of the plain bootstrap's (n_g - 1) / n_g times it;
     * with ten runs a cell the plain one covered 93% for a nominal 95%
     * (tests/stats/regress_sim.h, make bench-stats-regress). */
    size_t *draw = ct_xcalloc(G ? G : 1, sizeof(size_t));
    for (size_t g = 0; g < G; g++)
        draw[g] = count[g] >= 2 ? count[g] - 1 : count[g];
    size_t B = opts->resamples;
    fit->resamples = B;
    fit->boot_cost = ct_xmalloc(B * sizeof(double));
    if (exact_repeats(d, start, member)) {
        /* Nothing varies: every resample holds the same values, only in
         * other multiplicities, which can move a (weighted) median from one
         * of the values to another (groups of unequal size) without any
         * variation behind it.  The interval is the estimate itself. */
        for (size_t b = 0; b < B; b++)
            fit->boot_cost[b] = o.cost;
        st_reg_est *e[4] = {&fit->cost, &fit->intercept, &fit->base, &fit->fixed};
        for (int i = 0; i < 4; i++)
            e[i]->lo = e[i]->hi = e[i]->est;
        no_interval(fit, cost_ci, base_ci);
        free(start), free(member), free(count), free(draw), free(tmp);
        free(pp.s), free(pp.w);
        return;
    }
    boot_percentiles(d, opts, fit, &pp, tmp, count, start, member, draw);
    no_interval(fit, cost_ci, base_ci);
    free(start), free(member), free(count), free(draw), free(tmp);
    free(pp.s), free(pp.w);
}

void st_reg_fit_free(st_reg_fit *fit) {
    free(fit->residual);
    free(fit->boot_cost);
    memset(fit, 0, sizeof *fit);
}

st_reg_est st_reg_cost_difference(const st_reg_fit *a, const st_reg_fit *b, double confidence) {
    st_reg_est e = {a->cost.est - b->cost.est, NAN, NAN};
    size_t B = a->resamples < b->resamples ? a->resamples : b->resamples;
    if (!B || isnan(a->cost.lo) || isnan(b->cost.lo))
        return e; /* a fit without an interval gives its difference none */
    double *t = ct_xmalloc(B * sizeof(double));
    for (size_t i = 0; i < B; i++)
        t[i] = a->boot_cost[i] - b->boot_cost[i];
    percentile(t, B, confidence, &e);
    free(t);
    return e;
}

double st_reg_boot_se(const st_reg_fit *a, const st_reg_fit *b) {
    size_t B = a->resamples, n = 0;
    if (b && b->resamples < B)
        B = b->resamples;
    double m = 0, m2 = 0;
    for (size_t i = 0; i < B; i++) {
        double v = a->boot_cost[i] - (b ? b->boot_cost[i] : 0.0);
        if (!isfinite(v))
            continue;
        n++; /* Welford */
        double d = v - m;
        m += d / (double)n;
        m2 += d * (v - m);
    }
    return n >= 2 ? sqrt(m2 / (double)(n - 1)) : NAN;
}

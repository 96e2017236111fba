/* st_stop.c - the two-stage rule of the adaptive rounds and its simulation (invariants: st_stop.h). */
#include "st_stop.h"
#include "st_blockboot.h"
#include "st_util.h"
#include "st_walsh.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The fewest blocks of a confirmatory batch (rule confirm). */
#define CONFIRM_MIN 10

static const char *const rule_names[ST_STOP_NRULES] = {"sequential", "two-stage", "two-stage-plain", "confirm"};

const char *st_stop_rule_name(st_stop_rule r) { return r < ST_STOP_NRULES ? rule_names[r] : "?"; }

int st_stop_rule_parse(const char *s, st_stop_rule *r) {
    for (int i = 0; i < ST_STOP_NRULES; i++)
        if (!strcmp(s, rule_names[i])) {
            *r = (st_stop_rule)i;
            return 0;
        }
    return -1;
}

/* Blocks needed for half-width H from a pilot of n0 blocks with half-width
 * h0, rounded up (a relative 1e-12 spared, so that 0.04 / 0.02 = 2 is 2). */
static double projected(double h0, double H, size_t n0) { return ceil((double)n0 * (h0 / H) * (h0 / H) * (1 - 1e-12)); }

double st_stop_expansion(size_t n0, double confidence) {
    if (n0 < 2)
        return 1.0;
    double p = (1 + confidence) / 2;
    return gsl_cdf_tdist_Pinv(p, (double)(n0 - 1)) * sqrt((double)n0 / (double)(n0 - 1)) / gsl_cdf_ugaussian_Pinv(p);
}

/* The expanded pilot interval as a ratio: its half-width. */
static double expanded_halfwidth(const st_interval *p, double kappa) {
    return (exp(p->est + kappa * (p->hi - p->est)) - exp(p->est - kappa * (p->est - p->lo))) / 2;
}

/* The pilot's expansion: 1 for an exact interval, kappa for a bootstrap one. */
static double pilot_kappa(const st_interval *pilot, size_t n0, double confidence) {
    return pilot->method == ST_CI_BCA || pilot->method == ST_CI_PERCENTILE ? st_stop_expansion(n0, confidence) : 1.0;
}

size_t st_stop_target(const st_interval *pilot, const st_stop *s) {
    size_t n0 = s->pilot, max = s->max_blocks > n0 ? s->max_blocks : n0;
    if (pilot->method == ST_CI_NONE || !isfinite(pilot->lo) || !isfinite(pilot->hi) || !isfinite(pilot->est))
        return max;
    double h0 = expanded_halfwidth(pilot, pilot_kappa(pilot, n0, s->confidence));
    if (h0 <= s->halfwidth)
        return n0;
    double n = projected(h0, s->halfwidth, n0);
    return n >= (double)max ? max : n <= (double)n0 ? n0 : (size_t)n;
}

void st_stop_interval(const double *d, size_t n, size_t n0, const st_boot_opts *opts, st_interval *out) {
    if (n0 < ST_BOOT_MIN_RUNS || n0 > n) {
        /* No pilot interval: the rule ran the maximum whatever the data, so the plain interval holds. */
        st_paired_interval(d, n, opts, out);
        return;
    }
    st_paired_interval(d, n0, opts, out);
    double kappa = pilot_kappa(out, n0, opts->confidence);
    if (out->method == ST_CI_NONE || (n == n0 && kappa == 1.0))
        return; /* an exact pilot not extended: its own interval, bit for bit */
    double s = kappa * sqrt((double)n0 / (double)n), t = st_hodges_lehmann(d, n);
    double below = out->est - out->lo, above = out->hi - out->est;
    out->est = t;
    out->lo = t - below * s;
    out->hi = t + above * s;
}

/* ---- simulation ---- */

/* The role order of the next block: 1 when the role-1 run goes first, as
 * the adaptive rounds choose it (first in fewer than half so far). */
static int next_first(gsl_rng *rng, size_t firsts, size_t blocks) {
    if (2 * firsts < blocks)
        return 1;
    if (2 * firsts > blocks)
        return 0;
    return (int)gsl_rng_uniform_int(rng, 2);
}

/* Fills d[0..n-1] with the blocks' noise: the pilot's n0 in a balanced
 * random order, the rest by the adaptive rounds' rule. */
static void draw_blocks(const st_stop_source *src, gsl_rng *rng, size_t n0, size_t n, double true_log, double *d,
                        size_t *idx) {
    if (src->kind == 2)
        st_cbb_indices(rng, src->blocks->n, src->blocks->L, idx, n);
    int *first = ct_xmalloc((n0 ? n0 : 1) * sizeof *first);
    for (size_t i = 0; i < n0; i++)
        first[i] = i < n0 / 2;
    if (n0 % 2)
        first[n0 - 1] = (int)gsl_rng_uniform_int(rng, 2);
    if (n0 > 1)
        gsl_ran_shuffle(rng, first, n0, sizeof *first);
    size_t firsts = 0;
    for (size_t i = 0; i < n; i++) {
        int f = i < n0 ? first[i] : next_first(rng, firsts, i);
        firsts += f;
        double e;
        if (src->kind == 0) {
            e = src->noise * gsl_ran_gaussian(rng, 1.0);
        } else if (src->kind == 1) {
            e = src->noise * gsl_ran_tdist(rng, 3) / sqrt(3.0);
        } else {
            const st_nblock *b = &src->blocks->blocks[idx[i]];
            /* log(role-1 / role-0): the second run's residual minus the first's when role 1 ran second. */
            e = f ? b->wall[0] - b->wall[1] : b->wall[1] - b->wall[0];
        }
        d[i] = true_log + e;
    }
    free(first);
}

void st_stop_simulate(const st_stop *s, double true_log, const st_stop_source *src, size_t experiments,
                      size_t resamples, uint64_t seed, st_stop_sim *out) {
    memset(out, 0, sizeof *out);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    size_t n0 = s->pilot, max = s->max_blocks > n0 ? s->max_blocks : n0;
    double *d = ct_xmalloc(max * sizeof *d);
    size_t *idx = ct_xmalloc(max * sizeof *idx);
    double truth = exp(true_log), blocks = 0, hw = 0;
    for (size_t k = 0; k < experiments; k++) {
        st_boot_opts o = {resamples, s->confidence, seed + k + 1};
        draw_blocks(src, rng, n0, max, true_log, d, idx);
        st_interval iv, pilot;
        size_t n = n0;
        if (s->rule == ST_STOP_SEQUENTIAL) {
            st_adaptive rule = {s->halfwidth, n0, max};
            while (st_adaptive_more(d, n, &rule, &o, &iv) && n < max)
                n++;
        } else {
            st_paired_interval(d, n0, &o, &pilot);
            size_t N = st_stop_target(&pilot, s);
            if (s->rule == ST_STOP_TWO_STAGE) {
                n = N;
                st_stop_interval(d, n, n0, &o, &iv);
                st_interval_exp(&iv);
            } else if (s->rule == ST_STOP_TWO_STAGE_PLAIN) {
                n = N;
                st_paired_interval(d, n, &o, &iv);
                st_interval_exp(&iv);
            } else {
                double h0 = expanded_halfwidth(&pilot, pilot_kappa(&pilot, n0, s->confidence)),
                       want = pilot.method == ST_CI_NONE ? (double)(max - n0) : projected(h0, s->halfwidth, n0);
                size_t m = want < CONFIRM_MIN ? CONFIRM_MIN : want > (double)(max - n0) ? max - n0 : (size_t)want;
                if (m > max - n0)
                    m = max - n0;
                n = n0 + m;
                st_paired_interval(d + n0, m, &o, &iv);
                st_interval_exp(&iv);
            }
        }
        out->experiments++;
        out->extended += n > n0;
        out->at_max += n >= max;
        blocks += (double)n;
        if (iv.method == ST_CI_NONE || !isfinite(iv.lo) || !isfinite(iv.hi)) {
            out->none++;
            continue;
        }
        hw += (iv.hi - iv.lo) / 2;
        if (iv.lo > truth)
            out->above++;
        else if (iv.hi < truth)
            out->below++;
        else
            out->covered++;
    }
    out->mean_blocks = experiments ? blocks / (double)experiments : NAN;
    size_t judged = out->experiments - out->none;
    out->mean_halfwidth = judged ? hw / (double)judged : NAN;
    free(d), free(idx);
    gsl_rng_free(rng);
}

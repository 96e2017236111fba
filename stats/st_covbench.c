/* st_covbench.c - the coverage benchmark's experiments (invariants: st_covbench.h). */
#include "st_covbench.h"
#include "st_analysis.h"
#include "st_analyze.h"
#include "st_compare.h"
#include "st_costfit.h"
#include "st_stop.h"
#include "st_util.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST__COV_NAME(id, name, what, where) [ST_COV_##id] = name,
static const char *const kind_names[ST_COV_NKINDS] = {ST_COV_KINDS(ST__COV_NAME)};
#undef ST__COV_NAME
#define ST__COV_WHAT(id, name, what, where) [ST_COV_##id] = what,
static const char *const kind_what[ST_COV_NKINDS] = {ST_COV_KINDS(ST__COV_WHAT)};
#undef ST__COV_WHAT
#define ST__COV_WHERE(id, name, what, where) [ST_COV_##id] = where,
static const char *const kind_where[ST_COV_NKINDS] = {ST_COV_KINDS(ST__COV_WHERE)};
#undef ST__COV_WHERE

const char *st_cov_kind_name(st_cov_kind k) { return kind_names[k]; }
const char *st_cov_kind_what(st_cov_kind k) { return kind_what[k]; }
const char *st_cov_kind_where(st_cov_kind k) { return kind_where[k]; }

void st_cov_defaults(st_cov_opts *o) {
    memset(o, 0, sizeof *o);
    o->experiments = 1000;
    o->resamples = 10000;
    o->fit_resamples = 1000;
    o->confidence = 0.95;
    o->seed = 20261202;
    o->plan = (st_synth_plan){30, 1.05, 1000.0, 1000.0, {0.01, 0.04, 0.16}, {0}, 0};
    o->ratio_b = 1.08;
    o->compare = 1;
    o->adaptive = 0;
    o->max_blocks = 200;
}

int st_cov_kind_inproc(st_cov_kind k) {
    return k == ST_COV_INPROC || k == ST_COV_INPROC_PROC || k == ST_COV_INPROC_EQUAL;
}

void st_cov_judge(st_cov_tally *t, double lo, double hi, int has_interval, double truth) {
    if (!has_interval || !isfinite(lo) || !isfinite(hi)) {
        t->none++;
        return;
    }
    t->judged++;
    if (lo > truth)
        t->above++;
    else if (hi < truth)
        t->below++;
    else
        t->covered++;
    t->width += (hi - lo) / (truth != 0 ? fabs(truth) : 1.0);
}

static void judge(st_cov_tally *t, const st_cov_iv *iv) { st_cov_judge(t, iv->lo, iv->hi, iv->has, iv->truth); }

/* The p at which the regularized incomplete beta I_p(a, b) equals q, by
 * bisection (GSL's inverse fails to converge at extreme parameters). */
static double beta_inverse(double q, double a, double b) {
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double mid = 0.5 * (lo + hi);
        if (gsl_cdf_beta_P(mid, a, b) < q)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

void st_cov_binomial(size_t k, size_t n, double conf, double *lo, double *hi) {
    if (n == 0) {
        *lo = *hi = NAN;
        return;
    }
    double a = 1.0 - conf, dk = (double)k, dn = (double)n;
    *lo = k == 0 ? 0.0 : k == n ? pow(a / 2, 1.0 / dn) : beta_inverse(a / 2, dk, dn - dk + 1);
    *hi = k == n ? 1.0 : k == 0 ? 1.0 - pow(a / 2, 1.0 / dn) : beta_inverse(1 - a / 2, dk + 1, dn - dk);
}

static uint64_t experiment_seed(uint64_t seed, const char *sweep, const char *workload, size_t rounds, size_t k) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s/%s/%zu/%zu", sweep, workload, rounds, k);
    return seed ^ st_fnv1a64(ST_FNV_OFFSET, buf);
}

static gsl_rng *rng_for(uint64_t seed) {
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        ct_out_of_memory();
    gsl_rng_set(r, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    return r;
}

static const st_result *result_of(const st_analysis *an, const st_sweep *sw, int cell) {
    for (size_t i = 0; i < an->nresults; i++)
        if (an->results[i].cell == &sw->cells[cell])
            return &an->results[i];
    return NULL;
}

static const st_cmp_cell *cmp_cell_of(const st_comparison *c, const char *label) {
    for (size_t i = 0; i < c->ncells; i++)
        if (!strcmp(c->cells[i].label, label))
            return &c->cells[i];
    return NULL;
}

static st_cov_iv from_interval(const st_interval *iv, double truth) {
    return (st_cov_iv){iv->method != ST_CI_NONE && isfinite(iv->lo) && isfinite(iv->hi), iv->est, iv->lo, iv->hi,
                       truth};
}

static st_cov_iv from_fit(const st_costfit *f, int fixed, double truth) {
    if (!f)
        return (st_cov_iv){0, NAN, NAN, NAN, truth};
    const st_reg_est *e = fixed ? &f->fit.fixed : &f->fit.cost;
    return (st_cov_iv){isfinite(e->lo) && isfinite(e->hi), e->est, e->lo, e->hi, truth};
}

/* The two-stage rule's extra blocks of every cell of a planned sweep, as
 * sw_adapt.c decides them: its pilot is the cell's blocks (for a baseline
 * its A/A blocks), log(role-1 wall / role-0 wall) in block order. */
static void two_stage_extra(const st_sweep *sw, const st_cov_opts *o, uint64_t seed, size_t rounds,
                            size_t extra[ST_SYN_NCELLS]) {
    double *d = ct_xmalloc((sw->nruns + 1) * sizeof *d);
    const st_run **partner = ct_xcalloc(sw->nruns + 2, sizeof *partner);
    for (size_t i = 0; i < sw->nruns; i++)
        if (sw->runs[i].role == 0 && sw->runs[i].block > 0 && (size_t)sw->runs[i].block <= sw->nruns + 1)
            partner[sw->runs[i].block] = &sw->runs[i];
    st_stop rule = {ST_STOP_TWO_STAGE, o->adaptive, rounds, o->max_blocks, 0.95};
    for (int c = 0; c < ST_SYN_NCELLS; c++) {
        const st_cell *x = &sw->cells[c];
        size_t n = 0;
        for (size_t j = 0; j < x->nruns; j++) {
            const st_run *t = &sw->runs[x->first_run + j];
            if (t->role == 1 && t->block > 0 && partner[t->block])
                d[n++] = log(t->wall_ns / partner[t->block]->wall_ns);
        }
        st_boot_opts bo = {2000, 0.95, seed ^ (uint64_t)(c + 1)};
        st_interval pilot;
        st_paired_interval(d, n, &bo, &pilot);
        extra[c] = st_stop_target(&pilot, &rule) - rounds;
    }
    free(d);
    free(partner);
}

size_t st_cov_experiment(const st_nsource *s, size_t rounds, const st_cov_opts *o, size_t k,
                         st_cov_iv out[ST_COV_NKINDS]) {
    st_synth_plan pa = o->plan, pb = o->plan;
    pa.rounds = pb.rounds = rounds;
    pb.ratio = o->ratio_b;
    memset(pa.extra, 0, sizeof pa.extra);
    memset(pb.extra, 0, sizeof pb.extra);
    pa.halfwidth = pb.halfwidth = 0;
    double R = pa.ratio, c = pa.cost_ns;
    for (int q = 0; q < ST_COV_NKINDS; q++)
        out[q] = (st_cov_iv){0, NAN, NAN, NAN, NAN};
    uint64_t seed = experiment_seed(o->seed, s->sweep, s->workload, rounds, k);
    gsl_rng *rng = rng_for(seed);
    st_sweep a, b;
    double samples[ST_SYN_NCELLS];
    st_synth_sweep(s, &pa, rng, &a, samples);
    int compare = o->compare;
    if (o->adaptive > 0) {
        /* The planned rounds decide; the same draws again, then the adaptive rounds. */
        two_stage_extra(&a, o, seed, rounds, pa.extra);
        pa.halfwidth = o->adaptive;
        st_sweep_free(&a);
        gsl_rng_free(rng);
        rng = rng_for(seed);
        st_synth_sweep(s, &pa, rng, &a, samples);
        compare = 0;
    }
    size_t blocks = 0;
    for (size_t i = 0; i < a.nruns; i++)
        blocks += a.runs[i].role == 1;
    st_analysis_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.boot = (st_boot_opts){o->resamples, o->confidence, seed ^ 1};
    ao.fit_resamples = o->fit_resamples;
    ao.margin = 0.02;
    st_analysis an;
    st_analyze(&a, &ao, &an);
    const st_result *rt = result_of(&an, &a, ST_SYN_TIME), *rb = result_of(&an, &a, ST_SYN_BASE);
    const st_result *ra = result_of(&an, &a, ST_SYN_ALLOC2);
    double norm_t = 1.0 + (R - 1.0) * 1000.0 / pa.rate;
    double m = s->wall0 * exp(s->med_wall), S = samples[ST_SYN_ALLOC2];
    double norm_a = 1.0 + 1000.0 * c * (m + c * S) / (m * 1e9);
    out[ST_COV_PAIRED] = from_interval(&rt->paired, R);
    out[ST_COV_PAIRED_CPU] = from_interval(&rt->paired_cpu, R);
    out[ST_COV_PAIRED_AA] = from_interval(&rb->paired, 1.0);
    out[ST_COV_UNPAIRED] = from_interval(&rt->overhead, R);
    out[ST_COV_UNPAIRED_CPU] = from_interval(&rt->cpu_overhead, R);
    out[ST_COV_AA] = from_interval(&rb->aa, 1.0);
    out[ST_COV_NORM_PAIRED] = from_interval(&rt->paired_norm, norm_t);
    out[ST_COV_NORM] = from_interval(&rt->norm, norm_t);
    out[ST_COV_NORM_ALLOC] = from_interval(&ra->norm, norm_a);
    out[ST_COV_COST_PAIRED] = from_interval(&ra->paired_cost, c / 1000.0);
    out[ST_COV_COST] = from_interval(&ra->cost, c / 1000.0);
    out[ST_COV_REG_COST] = from_fit(st_costfit_find(an.fits, "syn", "alloc", ST_FIT_WALL), 0, c);
    out[ST_COV_REG_COST_CPU] = from_fit(st_costfit_find(an.fits, "syn", "alloc", ST_FIT_CPU), 0, c);
    out[ST_COV_REG_FIXED] = from_fit(st_costfit_find(an.fits, "syn", "alloc", ST_FIT_WALL), 1, 0.0);
    if (compare) {
        st_synth_sweep(s, &pb, rng, &b, samples);
        st_compare_opts co;
        memset(&co, 0, sizeof co);
        co.boot = ao.boot;
        co.threshold = 0.02;
        co.gate = ST_GATE_OVERHEAD;
        co.time = ST_CMP_TIME_WALL;
        st_comparison cmp;
        st_compare(&a, &b, NULL, NULL, NULL, NULL, &co, &cmp);
        const st_cmp_cell *ct = cmp_cell_of(&cmp, a.cells[ST_SYN_TIME].label);
        out[ST_COV_CMP_PAIRED].truth = out[ST_COV_CMP_UNPAIRED].truth = o->ratio_b - R;
        out[ST_COV_CMP_RATIO].truth = o->ratio_b / R;
        if (ct && ct->paired == 1)
            out[ST_COV_CMP_PAIRED] = from_interval(&ct->doverhead, o->ratio_b - R);
        if (ct) {
            out[ST_COV_CMP_UNPAIRED] = from_interval(&ct->doverhead_unpaired, o->ratio_b - R);
            out[ST_COV_CMP_RATIO] = from_interval(&ct->ratio, o->ratio_b / R);
        }
        st_comparison_free(&cmp);
        st_sweep_free(&b);
    }
    st_analysis_free(&an);
    st_sweep_free(&a);
    gsl_rng_free(rng);
    return blocks;
}

static void add_tally(st_cov_tally *dst, const st_cov_tally *t) {
    dst->judged += t->judged;
    dst->covered += t->covered;
    dst->above += t->above;
    dst->below += t->below;
    dst->none += t->none;
    dst->width += t->width;
}

void st_cov_blocked(const st_nsource *src, size_t nsrc, size_t rounds, const st_cov_opts *o, st_cov_tally *tally,
                    st_cov_tally *per_source, double *blocks) {
    int compare = o->compare && !(o->adaptive > 0);
    for (size_t k = 0; k < o->experiments; k++) {
        size_t si = k % nsrc;
        st_cov_iv iv[ST_COV_NKINDS];
        size_t b = st_cov_experiment(&src[si], rounds, o, k, iv);
        if (blocks)
            *blocks += (double)b;
        for (int q = 0; q < ST_COV_NKINDS; q++) {
            if (st_cov_kind_inproc((st_cov_kind)q) || (!compare && q >= ST_COV_CMP_PAIRED && q <= ST_COV_CMP_RATIO))
                continue;
            st_cov_tally t;
            memset(&t, 0, sizeof t);
            judge(&t, &iv[q]);
            add_tally(&tally[q], &t);
            if (per_source)
                add_tally(&per_source[si * ST_COV_NKINDS + (size_t)q], &t);
        }
    }
}

/* The candidate rule: the processes' own estimates (exp of their median
 * log-ratios) combined with equal weights, the t interval on k - 1 degrees
 * of freedom (st_re_combine without SEs). */
static void equal_weights(const st_inproc *e, double confidence, st_interval *out) {
    double *est = ct_xmalloc((e->nprocs + 1) * sizeof *est), *se = ct_xmalloc((e->nprocs + 1) * sizeof *se);
    size_t k = 0;
    for (size_t i = 0; i < e->nprocs; i++)
        if (e->procs[i].ratio.est > 0 && isfinite(e->procs[i].ratio.est))
            est[k] = log(e->procs[i].ratio.est), se[k++] = NAN;
    st_re r;
    st_re_combine(est, se, k, -1, 0, confidence, &r);
    *out = e->lv_ratio;
    out->est = exp(r.est), out->lo = exp(r.lo), out->hi = exp(r.hi);
    out->method = isfinite(r.lo) && k == e->nprocs ? ST_CI_RANDOM : ST_CI_NONE;
    free(est), free(se);
}

void st_cov_inproc(const st_ipsource *src, size_t nsrc, size_t procs, size_t blocks, const st_cov_opts *o,
                   st_cov_tally *tally, st_cov_tally *per_source) {
    double R = o->plan.ratio;
    for (size_t k = 0; k < o->experiments; k++) {
        size_t si = k % nsrc;
        const st_ipsource *s = &src[si];
        uint64_t seed = experiment_seed(o->seed, s->sweep, s->workload, procs * 100000 + blocks, k);
        gsl_rng *rng = rng_for(seed);
        st_seg *segs;
        size_t n;
        st_synth_inproc(s, procs, blocks, R, rng, &segs, &n);
        st_boot_opts bo = {o->resamples, o->confidence, seed ^ 1};
        st_inproc e;
        st_inproc_estimate(segs, n, &bo, &e);
        st_inproc_levels(&e, &bo, NULL, NULL);
        const st_cov_kind kinds[3] = {ST_COV_INPROC, ST_COV_INPROC_PROC, ST_COV_INPROC_EQUAL};
        st_interval eq;
        equal_weights(&e, o->confidence, &eq);
        st_cov_iv iv[3] = {from_interval(&e.ratio, R * exp(s->truth_log)),
                           from_interval(&e.lv_ratio, R * exp(s->truth_proc_log)),
                           from_interval(&eq, R * exp(s->truth_proc_log))};
        for (int q = 0; q < 3; q++) {
            st_cov_tally t;
            memset(&t, 0, sizeof t);
            judge(&t, &iv[q]);
            add_tally(&tally[kinds[q]], &t);
            if (per_source)
                add_tally(&per_source[si * ST_COV_NKINDS + kinds[q]], &t);
        }
        st_inproc_free(&e);
        free(segs);
        gsl_rng_free(rng);
    }
}

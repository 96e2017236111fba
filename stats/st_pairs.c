/* st_pairs.c - the paired comparisons of a blocked sweep: every cell's runs
 * against the adjacent runs of its baseline, block by block. */
#include "st_analysis.h"
#include "st_stop.h"
#include "st_verdict.h"
#include "st_walsh.h"
#include "st_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void none(st_interval *iv, const char *why) { *iv = (st_interval){NAN, NAN, NAN, ST_CI_NONE, why, NAN, NAN}; }

static void add_note(st_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(st_result *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    st_note_add(r->note, sizeof r->note, fmt, ap);
    va_end(ap);
}

/* The interval of one per-block series (log scale when logs), as a ratio or
 * value: exact from its Walsh averages when there are enough blocks for
 * the level, else the one-sample BCa (st_walsh.h, st_paired_interval); with
 * pilot > 0 (a sweep with adaptive rounds by the two-stage rule, the cell's
 * first `pilot` blocks planned) the two-stage interval (st_stop.h). */
static void boot_series(const double *v, size_t n, size_t pilot, int logs, const st_boot_opts *bo, st_interval *out) {
    if (pilot)
        st_stop_interval(v, n, pilot, bo, out);
    else
        st_paired_interval(v, n, bo, out);
    if (logs)
        st_interval_exp(out);
}

/* partner[block] (*maxb + 1 entries, -1 where none): the index of each
 * block's used role-0 run; *maxb is the largest block number, 0 when the
 * sweep is not blocked. */
static long *block_partners(const st_sweep *sw, int64_t *maxb_out) {
    int64_t maxb = 0;
    for (size_t i = 0; i < sw->nruns; i++)
        if (sw->runs[i].block > maxb)
            maxb = sw->runs[i].block;
    long *partner = ct_xmalloc((size_t)(maxb + 1) * sizeof *partner);
    for (int64_t b = 0; b <= maxb; b++)
        partner[b] = -1;
    for (size_t i = 0; i < sw->nruns; i++) {
        const st_run *r = &sw->runs[i];
        if (r->block > 0 && r->role == 0 && r->used)
            partner[r->block] = (long)i;
    }
    *maxb_out = maxb;
    return partner;
}

/* Clears a result's paired fields and sets its intervals to none, with the
 * reason an unblocked sweep or a cell without pairs would give. */
static void paired_reset(st_result *res, int64_t maxb) {
    res->pairs = 0;
    free(res->pair_norm), free(res->pair_round), free(res->pair_log), free(res->pair_cpu), free(res->pair_cost);
    res->pair_norm = NULL, res->pair_round = NULL, res->pair_log = NULL, res->npz = 0;
    res->pair_cpu = NULL, res->pair_cost = NULL, res->paired_se = NAN;
    res->family_size = 0, res->sim_lo = res->sim_hi = NAN, res->family_verdict = ST_V_NA;
    res->pverdict = ST_V_NA;
    res->paired_floor = NAN;
    none(&res->paired, maxb ? "no blocks with both runs used" : "not a blocked sweep");
    none(&res->paired_cpu, res->paired.why);
    none(&res->paired_norm, res->paired.why);
    none(&res->paired_cost, res->paired.why);
}

/* The paired intervals of one cell from its n pairs' series (lw: log wall
 * ratio, lc: log CPU ratio, nz/cs: per-sample slowdown and cost, rounds), the
 * first `two` of them the two-stage rule's pilot; cpu_ok and rate_ok say
 * whether lc and nz/cs are usable. */
static void paired_intervals(st_result *res, const double *lw, const double *lc, const double *nz, const double *cs,
                             const int64_t *rounds, size_t n, size_t two, int cpu_ok, int rate_ok,
                             const st_boot_opts *bo, const st_analysis_opts *opts) {
    res->pair_log = ct_xmalloc(n * sizeof *res->pair_log);
    memcpy(res->pair_log, lw, n * sizeof *lw);
    boot_series(lw, n, two, 1, bo, &res->paired);
    res->paired_se = st_hl_kernel_se(lw, n); /* st_analysis.h, paired_se */
    if (cpu_ok) {
        boot_series(lc, n, two, 1, bo, &res->paired_cpu);
        res->pair_cpu = ct_xmalloc(n * sizeof *res->pair_cpu);
        memcpy(res->pair_cpu, lc, n * sizeof *lc);
    } else
        none(&res->paired_cpu, "CPU time missing for some runs");
    if (rate_ok && !res->is_baseline) {
        boot_series(nz, n, two, 0, bo, &res->paired_norm);
        res->paired_norm.est += 1.0;
        res->paired_norm.lo += 1.0;
        res->paired_norm.hi += 1.0;
        boot_series(cs, n, two, 0, bo, &res->paired_cost);
        /* Kept for the allocation-vs-time difference (st_normdiff.h). */
        res->pair_norm = ct_xmalloc(n * sizeof *res->pair_norm);
        res->pair_round = ct_xmalloc(n * sizeof *res->pair_round);
        res->pair_cost = ct_xmalloc(n * sizeof *res->pair_cost);
        for (size_t i = 0; i < n; i++)
            res->pair_norm[i] = 1.0 + nz[i], res->pair_round[i] = rounds[i], res->pair_cost[i] = cs[i];
        res->npz = n;
    } else {
        const char *why = res->is_baseline                            ? "a baseline takes no samples"
                          : (res->samples_alloc || res->samples_time) ? "no samples in some runs"
                                                                      : "the cell takes no samples";
        none(&res->paired_norm, why);
        none(&res->paired_cost, why);
    }
    res->pverdict = st_paired_verdict(&res->paired, opts->margin);
    if (res->is_baseline && res->paired.method != ST_CI_NONE) {
        double up = res->paired.hi - 1.0, down = 1.0 - res->paired.lo;
        res->paired_floor = up > down ? up : down;
    }
}

/* Pairs one cell's compared runs with their blocks' baselines, notes its
 * adaptive rounds, and bootstraps its paired intervals. */
static void paired_cell(st_analysis *an, const st_analysis_opts *opts, st_result *res, const long *partner) {
    const st_sweep *sw = an->sweep;
    const st_cell *c = res->cell;
    size_t n = 0, pilot = 0;
    res->adaptive_rounds = res->pilot_pairs = 0;
    double *lw = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *lw);
    double *lc = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *lc);
    double *nz = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *nz);
    double *cs = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *cs);
    int64_t *rounds = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *rounds);
    int cpu_ok = 1, rate_ok = res->samples_alloc || res->samples_time;
    for (size_t i = 0; i < c->nruns; i++) {
        const st_run *t = &sw->runs[c->first_run + i];
        int planned = !an->planned_rounds || t->round <= (int64_t)an->planned_rounds;
        if (t->block > 0 && t->role == 1 && !planned)
            res->adaptive_rounds++; /* a cell runs one block a round */
        if (!t->used || t->block <= 0 || t->role != 1 || partner[t->block] < 0)
            continue;
        pilot += planned;
        const st_run *b = &sw->runs[partner[t->block]];
        ST_ASSERT(b->block == t->block && b->role == 0 && b->used && b != t,
                  "a block pairs its compared run (role 1) with a used baseline run (role 0) of the same block");
        ST_ASSERT(n < c->nruns, "a cell has at most one pair per measured run");
        lw[n] = log(t->wall_ns / b->wall_ns);
        double ct = st_run_cpu(an, res, t), cb = st_run_cpu(an, res, b);
        lc[n] = log(ct / cb);
        cpu_ok &= isfinite(lc[n]);
        if (rate_ok) {
            double sps = st_run_sps(res, t, 2);
            double samples = (res->samples_alloc ? t->key[ST_K_alloc_samples] : 0) +
                             (res->samples_time ? t->key[ST_K_time_samples] : 0);
            nz[n] = (t->wall_ns / b->wall_ns - 1.0) * 1000.0 / sps;
            cs[n] = (t->wall_ns - b->wall_ns) / samples / 1000.0;
            rate_ok &= isfinite(nz[n]) && isfinite(cs[n]);
        }
        rounds[n] = t->round;
        n++;
    }
    res->pairs = n;
    res->pilot_pairs = an->planned_rounds ? pilot : 0;
    an->blocks += n;
    /* Runs are in round order, so the pilot's pairs come first. */
    size_t two = an->rule == ST_RULE_TWO_STAGE ? pilot : 0;
    if (res->adaptive_rounds && an->rule == ST_RULE_TWO_STAGE)
        add_note(res,
                 "extended by %zu adaptive rounds: paired intervals by the two-stage rule (the %zu planned "
                 "blocks' intervals expanded and scaled to the %zu blocks)",
                 res->adaptive_rounds, pilot, n);
    else if (res->adaptive_rounds)
        add_note(res,
                 "extended by %zu adaptive rounds of the sequential rule: its paired intervals cover less than "
                 "their level (docs/STATISTICS.md, \"Adaptive rounds: the two-stage rule\")",
                 res->adaptive_rounds);
    st_boot_opts bo = opts->boot;
    bo.seed = opts->boot.seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, c->label), "#paired");
    if (n)
        paired_intervals(res, lw, lc, nz, cs, rounds, n, two, cpu_ok, rate_ok, &bo, opts);
    free(lw), free(lc), free(nz), free(cs), free(rounds);
}

/* The paired analysis of every result: block partners, then each cell reset
 * and, in a blocked sweep, paired. */
void st_analyze_paired(st_analysis *an, const st_analysis_opts *opts) {
    const st_sweep *sw = an->sweep;
    an->margin = opts->margin;
    an->blocks = 0;
    int64_t maxb;
    long *partner = block_partners(sw, &maxb);
    for (size_t k = 0; k < an->nresults; k++) {
        st_result *res = &an->results[k];
        paired_reset(res, maxb);
        if (maxb)
            paired_cell(an, opts, res, partner);
    }
    free(partner);
}

/* The family of a paired result: "alloc <period>" or "time <rate>", "" for none. */
static void family_key(const st_result *r, char *b, size_t size) {
    const st_cell *c = r->cell;
    b[0] = 0;
    if (isfinite(c->depth) || r->paired.method == ST_CI_NONE)
        return;
    if (!strcmp(c->kind, "alloc") && st_cell_fixed(c))
        snprintf(b, size, "alloc %lld", (long long)c->alloc_period);
    else if (!strcmp(c->kind, "time") && !strcmp(c->time_clock, sgc_clock_name(SGC_CLOCK_WALL)))
        snprintf(b, size, "time %lld", (long long)c->time_hz);
}

void st_analyze_families(st_analysis *an, const st_analysis_opts *opts) {
    double alpha = 1.0 - opts->boot.confidence;
    char k[64], k2[64];
    for (size_t i = 0; i < an->nresults; i++) {
        st_result *r = &an->results[i];
        r->family_size = 0;
        r->sim_lo = r->sim_hi = NAN;
        r->family_verdict = ST_V_NA;
        family_key(r, k, sizeof k);
        if (!k[0])
            continue;
        for (size_t j = 0; j < an->nresults; j++) {
            family_key(&an->results[j], k2, sizeof k2);
            r->family_size += !strcmp(k, k2);
        }
    }
    for (size_t i = 0; i < an->nresults; i++) {
        st_result *r = &an->results[i];
        if (!r->family_size)
            continue;
        double conf = 1.0 - alpha / (double)r->family_size;
        if (r->paired.method == ST_CI_RANDOM) {
            double lo, hi;
            st_re_at(&r->paired_re, conf, &lo, &hi);
            r->sim_lo = exp(lo), r->sim_hi = exp(hi);
        } else if (r->family_size == 1 || !r->pair_log) {
            r->sim_lo = r->paired.lo, r->sim_hi = r->paired.hi;
        } else {
            /* The same resamples as the paired interval (its seed), read at the family's level. */
            st_boot_opts bo = opts->boot;
            bo.confidence = conf;
            bo.seed = opts->boot.seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, r->cell->label), "#paired");
            st_interval iv;
            boot_series(r->pair_log, r->pairs, an->rule == ST_RULE_TWO_STAGE ? r->pilot_pairs : 0, 1, &bo, &iv);
            r->sim_lo = iv.lo, r->sim_hi = iv.hi;
        }
        st_interval s = {.est = r->paired.est, .lo = r->sim_lo, .hi = r->sim_hi, .method = ST_CI_BCA};
        if (!isfinite(s.lo) || !isfinite(s.hi))
            s.method = ST_CI_NONE;
        r->family_verdict = st_paired_verdict(&s, opts->margin);
    }
    st_verdicts_apply(an, opts->margin);
}

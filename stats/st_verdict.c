/* st_verdict.c - the verdict rules of the statistics outputs (st_verdict.h). */
#include "st_verdict.h"

#include <math.h>
#include <string.h>

/* Cells of the period and rate matrix (depth cells are a separate experiment; st_report.c). */
static int is_kind(const st_result *r, const char *kind) {
    return strcmp(r->cell->kind, kind) == 0 && isnan(r->cell->depth);
}

void st_pick_normalized(const st_analysis *an, const char *workload, const st_result **alloc, const st_result **time) {
    double best_a = INFINITY, best_t = INFINITY;
    int fixed_a = 0; /* *alloc is a fixed-mode cell: a poisson cell is taken only without one */
    *alloc = *time = NULL;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (!st_cell_in_key(r->cell, workload) || !isfinite(r->norm.est) || !(r->sps.est > 0))
            continue;
        double d = fabs(log(r->sps.est / 1000.0));
        if (is_kind(r, "alloc")) {
            int fixed = st_cell_fixed(r->cell);
            if (fixed > fixed_a || (fixed == fixed_a && d < best_a)) {
                best_a = d;
                fixed_a = fixed;
                *alloc = r;
            }
        } else if (is_kind(r, "time") && d < best_t) {
            best_t = d;
            *time = r;
        }
    }
}

st_normres st_norm_verdict(double lo, double hi, double margin) {
    if (!isfinite(lo) || !isfinite(hi))
        return ST_NR_NA;
    if (hi < 0)
        return ST_NR_ALLOC;
    if (lo > 0)
        return ST_NR_TIME;
    if (lo >= -margin && hi <= margin)
        return ST_NR_EQUIVALENT;
    return ST_NR_UNRESOLVED;
}

const char *st_normres_word(st_normres r) {
    static const char *const words[] = {"na", "alloc_cheaper", "time_cheaper", "equivalent", "not_resolved"};
    return words[r];
}

static const st_result *baseline_result(const st_analysis *an, const st_result *r) {
    for (size_t i = 0; r->baseline && i < an->nresults; i++)
        if (an->results[i].cell == r->baseline)
            return &an->results[i];
    return NULL;
}

static int has_paired(const st_result *r) {
    return r->pairs && r->paired.method != ST_CI_NONE && isfinite(r->paired.lo) && isfinite(r->paired.hi);
}

st_verdict st_cell_verdict_of(const st_analysis *an, const st_result *r, double margin) {
    const st_result *base = baseline_result(an, r);
    int paired = has_paired(r);
    const st_interval *iv = paired ? &r->paired : &r->overhead;
    double floor = !base ? NAN : paired ? base->paired_floor : base->aa_floor;
    st_verdict v = st_paired_verdict(iv, margin);
    if ((v == ST_V_SLOWER || v == ST_V_FASTER) && isfinite(floor) && fabs(iv->est - 1.0) <= floor)
        v = ST_V_UNRESOLVED;
    return v;
}

void st_verdicts_apply(st_analysis *an, double margin) {
    for (size_t i = 0; i < an->nresults; i++) {
        st_result *r = &an->results[i];
        if (r->is_baseline)
            continue;
        st_verdict v = st_cell_verdict_of(an, r, margin);
        if (has_paired(r))
            r->pverdict = v;
        r->verdict = st_verdict_text(v, margin, r->verdict_text, sizeof r->verdict_text);
    }
}

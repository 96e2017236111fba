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
    *alloc = *time = NULL;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (!st_cell_in_key(r->cell, workload) || !isfinite(r->norm.est) || !(r->sps.est > 0))
            continue;
        double d = fabs(log(r->sps.est / 1000.0));
        if (is_kind(r, "alloc") && st_cell_fixed(r->cell) && d < best_a) {
            best_a = d;
            *alloc = r;
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


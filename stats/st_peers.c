/* st_peers.c - the peers report (st_peers.h). */
#define _GNU_SOURCE
#include "st_peers.h"
#include "st_desc.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *system_of(const st_sweep *sw, const char *workload) {
    char key[512];
    snprintf(key, sizeof key, "workload_system:%s", workload);
    const char *s = st_sweep_meta(sw, key);
    return s ? s : "freecheck";
}

static const char *site_of(const st_sweep *sw, const char *system) {
    char key[512];
    snprintf(key, sizeof key, "system_site:%s", system);
    const char *s = st_sweep_meta(sw, key);
    if (s)
        return s;
    return strcmp(system, "freecheck") ? "unknown" : "folded into the allocation limit";
}

/* The base workload: the name without "-<system>" (fresh). */
static char *base_of(const char *workload, const char *system) {
    size_t lw = strlen(workload), ls = strlen(system);
    if (lw > ls + 1 && workload[lw - ls - 1] == '-' && !strcmp(workload + lw - ls, system))
        return strndup(workload, lw - ls - 1);
    return st_xstrdup(workload);
}

static int in_matrix(const st_result *r) { return isnan(r->cell->depth); }

/* The alloc cells of a baseline, by period. */
static size_t alloc_cells(const st_analysis *an, const st_result *base, const st_result **out) {
    size_t n = 0;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (r->baseline == base->cell && !r->is_baseline && in_matrix(r) && !strcmp(r->cell->kind, "alloc"))
            out[n++] = r;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1]->cell->alloc_period > out[j]->cell->alloc_period; j--) {
            const st_result *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Do the used runs of these cells carry alloc_samples? */
static int counted(const st_analysis *an, const st_result *const *cells, size_t n) {
    const st_sweep *sw = an->sweep;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < cells[k]->cell->nruns; i++) {
            const st_run *run = &sw->runs[cells[k]->cell->first_run + i];
            if (run->used && isnan(run->key[ST_K_alloc_samples]))
                return 0;
        }
    return 1;
}

/* The figure's series of a cell: its system, or "<system>-<mode>" when the
 * workload was sampled in more than one mode (fresh). */
static char *series_of(const char *system, const st_result *const *cells, size_t nc, const st_result *c) {
    int modes = 0;
    for (size_t k = 0; k < nc; k++)
        modes |= strcmp(cells[k]->cell->alloc_mode, cells[0]->cell->alloc_mode) != 0;
    size_t n = strlen(system) + strlen(c->cell->alloc_mode) + 2;
    char *s = st_xmalloc(n);
    if (modes)
        snprintf(s, n, "%s-%s", system, c->cell->alloc_mode);
    else
        snprintf(s, n, "%s", system);
    return s;
}

static int row_order(const void *a, const void *b) {
    const st_peer_row *x = a, *y = b;
    int c = strcmp(x->base, y->base);
    if (c)
        return c;
    int fx = strcmp(x->system, "freecheck") != 0, fy = strcmp(y->system, "freecheck") != 0;
    if (fx != fy)
        return fx - fy;
    return strcmp(x->system, y->system);
}

static st_interval no_interval(void) {
    st_interval i;
    memset(&i, 0, sizeof i);
    i.est = i.lo = i.hi = NAN;
    i.method = ST_CI_NONE;
    i.why = "the period is not in the sweep";
    return i;
}

void st_peers_compute(const st_analysis *an, st_peers *out) {
    memset(out, 0, sizeof *out);
    const st_sweep *sw = an->sweep;
    out->rows = st_xcalloc(an->nresults ? an->nresults : 1, sizeof *out->rows);
    const st_result **cells = st_xmalloc((an->nresults ? an->nresults : 1) * sizeof *cells);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *base = &an->results[i];
        if (!base->is_baseline || !in_matrix(base))
            continue;
        int dup = 0;
        for (size_t j = 0; j < out->n; j++)
            dup |= !strcmp(out->rows[j].workload, base->cell->workload);
        if (dup)
            continue;
        size_t nc = alloc_cells(an, base, cells);
        if (!nc)
            continue;
        st_peer_row *r = &out->rows[out->n++];
        r->workload = base->cell->workload;
        r->system = system_of(sw, r->workload);
        r->site = site_of(sw, r->system);
        r->base = base_of(r->workload, r->system);
        r->baseline = base;
        r->cells = st_xmalloc(nc * sizeof *r->cells);
        r->series = st_xmalloc(nc * sizeof *r->series);
        r->ncells = nc;
        r->over_512k = r->over_4m = no_interval();
        for (size_t k = 0; k < nc; k++) {
            r->cells[k] = cells[k];
            r->series[k] = series_of(r->system, cells, nc, cells[k]);
            if (cells[k]->cell->alloc_period == 512 * 1024)
                r->over_512k = cells[k]->paired;
            if (cells[k]->cell->alloc_period == 4 * 1024 * 1024)
                r->over_4m = cells[k]->paired;
        }
        if (counted(an, cells, nc)) {
            r->samples = "counted";
            const st_costfit *w = an->fits ? st_costfit_find(an->fits, r->workload, "alloc", ST_FIT_WALL) : NULL;
            const st_costfit *c = an->fits ? st_costfit_find(an->fits, r->workload, "alloc", ST_FIT_CPU) : NULL;
            r->cost_wall = w ? w->fit.cost : (st_reg_est){NAN, NAN, NAN};
            r->cost_cpu = c ? c->fit.cost : (st_reg_est){NAN, NAN, NAN};
            if (w && w->fit.why)
                snprintf(r->note, sizeof r->note, "%s", w->fit.why);
        } else {
            /* bytes / period would be a guess, not a count: gperftools, for
             * one, takes no samples over a thread's first 16 MB or so. */
            r->samples = "not counted";
            r->cost_wall = r->cost_cpu = (st_reg_est){NAN, NAN, NAN};
            snprintf(r->note, sizeof r->note,
                     "%s keeps no count of its samples (its runs report no alloc_samples), so there is no "
                     "per-sample cost; its overheads are measured like the others'",
                     r->system);
        }
    }
    free(cells);
    qsort(out->rows, out->n, sizeof *out->rows, row_order);
}

int st_peers_several(const st_peers *p) {
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->rows[i].system, "freecheck"))
            return 1;
    return 0;
}

void st_peers_free(st_peers *p) {
    for (size_t i = 0; i < p->n; i++) {
        st_peer_row *r = &p->rows[i];
        for (size_t k = 0; k < r->ncells; k++)
            free(r->series[k]);
        free(r->series);
        free(r->cells);
        free((char *)r->base);
    }
    free(p->rows);
    memset(p, 0, sizeof *p);
}

/* ---- Outputs ---------------------------------------------------------------- */

static void csv_num(FILE *f, double v, const char *fmt) {
    fputc(',', f);
    if (isfinite(v))
        fprintf(f, fmt, v);
}

static void csv_text(FILE *f, const char *s) {
    fputc(',', f);
    st_csv_field(f, s);
}

void st_peers_write_csv(FILE *f, const st_peers *p) {
    fprintf(f, "base,system,workload,check_site,samples,cost_wall_ns,cost_wall_lo,cost_wall_hi,cost_cpu_ns,"
               "cost_cpu_lo,cost_cpu_hi,overhead_512K_pct,overhead_512K_lo,overhead_512K_hi,overhead_4M_pct,"
               "overhead_4M_lo,overhead_4M_hi,note\n");
    for (size_t i = 0; i < p->n; i++) {
        const st_peer_row *r = &p->rows[i];
        st_csv_field(f, r->base);
        csv_text(f, r->system);
        csv_text(f, r->workload);
        csv_text(f, r->site);
        csv_text(f, r->samples);
        const st_reg_est *e[2] = {&r->cost_wall, &r->cost_cpu};
        for (int k = 0; k < 2; k++) {
            csv_num(f, e[k]->est, "%.1f");
            csv_num(f, e[k]->lo, "%.1f");
            csv_num(f, e[k]->hi, "%.1f");
        }
        const st_interval *o[2] = {&r->over_512k, &r->over_4m};
        for (int k = 0; k < 2; k++) {
            csv_num(f, 100 * (o[k]->est - 1), "%.3f");
            csv_num(f, 100 * (o[k]->lo - 1), "%.3f");
            csv_num(f, 100 * (o[k]->hi - 1), "%.3f");
        }
        csv_text(f, r->note);
        fputc('\n', f);
    }
}

static void md_est(FILE *f, double est, double lo, double hi, double scale, const char *fmt) {
    char b[64];
    if (!isfinite(est)) {
        fputs(" n/a |", f);
        return;
    }
    fputc(' ', f);
    snprintf(b, sizeof b, fmt, est * scale);
    fputs(b, f);
    if (isfinite(lo) && isfinite(hi)) {
        fputs(" [", f);
        snprintf(b, sizeof b, fmt, lo * scale);
        fputs(b, f);
        fputs(", ", f);
        snprintf(b, sizeof b, fmt, hi * scale);
        fputs(b, f);
        fputs("]", f);
    }
    fputs(" |", f);
}

void st_peers_write_md(FILE *f, const st_analysis *an, const st_peers *p, double confidence) {
    const st_sweep *sw = an->sweep;
    fprintf(f, "# Allocation samplers side by side\n\n");
    fprintf(f,
            "Sweep %s. Per-sample cost: the regression of each run's time on its sample count over the periods "
            "(Theil-Sen, %.0f%% bootstrap intervals), wall and CPU time; overhead: the paired wall-time ratio of "
            "the cell's runs to their adjacent baseline runs, minus 1 (%.0f%% intervals). Load average at the "
            "start %s, at the end %s.\n\n",
            sw->dir, 100 * confidence, 100 * confidence, st_sweep_meta(sw, "loadavg_start") ?: "unknown",
            st_sweep_meta(sw, "loadavg_end") ?: "unknown");
    fprintf(f, "| workload | system | where the sample check lives | samples | ns per sample (wall) | ns per sample "
               "(CPU) | overhead at 512 KiB, %% | overhead at 4 MiB, %% |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < p->n; i++) {
        const st_peer_row *r = &p->rows[i];
        fprintf(f, "| %s | %s | %s | %s |", r->base, r->system, r->site, r->samples);
        if (strcmp(r->samples, "counted"))
            fputs(" none: no sample count | none: no sample count |", f);
        else {
            md_est(f, r->cost_wall.est, r->cost_wall.lo, r->cost_wall.hi, 1, "%.0f");
            md_est(f, r->cost_cpu.est, r->cost_cpu.lo, r->cost_cpu.hi, 1, "%.0f");
        }
        md_est(f, r->over_512k.est - 1, r->over_512k.lo - 1, r->over_512k.hi - 1, 100, "%.2f");
        md_est(f, r->over_4m.est - 1, r->over_4m.lo - 1, r->over_4m.hi - 1, 100, "%.2f");
        fputc('\n', f);
    }
    const char *skipped = st_sweep_meta(sw, "skipped");
    fprintf(f, "\nSystems not measured (their programs are not built or their packages are missing): %s.\n",
            skipped ? skipped : "none recorded");
    int any = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->rows[i].note[0]) {
            if (!any++)
                fprintf(f, "\nNotes:\n\n");
            fprintf(f, "- %s on %s: %s.\n", p->rows[i].base, p->rows[i].system, p->rows[i].note);
        }
}

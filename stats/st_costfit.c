/* st_costfit.c - per-sample cost fits of a sweep (invariants: st_costfit.h). */
#include "st_costfit.h"
#include "st_desc.h"
#include "st_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *st_fit_metric_name(st_fit_metric m) {
    switch (m) {
    case ST_FIT_WALL: return "wall";
    case ST_FIT_CPU: return "cpu";
    case ST_FIT_INSTR: return "instructions";
    default: return "?";
    }
}

static void fnote(st_costfit *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fnote(st_costfit *c, const char *fmt, ...) {
    size_t len = strlen(c->note);
    if (len + 3 >= sizeof c->note)
        return;
    if (len) {
        strcpy(c->note + len, "; ");
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->note + len, sizeof c->note - len, fmt, ap);
    va_end(ap);
}

static int in_matrix(const st_result *r) { return isnan(r->cell->depth); }

/* y of a run for a metric; NaN if missing. */
static double run_y(const st_sweep *sw, const st_run *run, st_fit_metric m, int instr_event) {
    switch (m) {
    case ST_FIT_WALL: return run->wall_ns;
    case ST_FIT_CPU: return run->user_ns + run->sys_ns;
    case ST_FIT_INSTR:
        if (instr_event < 0)
            return NAN;
        return sw->counter[(size_t)(run - sw->runs) * sw->nevents + (size_t)instr_event];
    default: return NAN;
    }
}

static int cmp_x(const void *a, const void *b) {
    const st_result *x = *(const st_result *const *)a, *y = *(const st_result *const *)b;
    int time = strcmp(x->cell->kind, "time") == 0;
    double u = time ? x->time_samples : x->alloc_samples, v = time ? y->time_samples : y->alloc_samples;
    if (u != v && !(isnan(u) && isnan(v))) {
        if (isnan(u))
            return 1;
        if (isnan(v))
            return -1;
        return u < v ? -1 : 1;
    }
    return strcmp(x->cell->label, y->cell->label);
}

/* One fit; returns 0 if there is nothing to fit (no sampling cell, or the
 * metric is missing on some run). */
/* Is the cell's setting (period of an alloc cell, rate of a time cell) in
 * the list?  A NULL list takes every cell. */
static int setting_wanted(const st_cell *c, const int64_t *only, size_t nonly) {
    if (!only)
        return 1;
    int64_t v = strcmp(c->kind, "time") == 0 ? c->time_hz : c->alloc_period;
    for (size_t i = 0; i < nonly; i++)
        if (only[i] == v)
            return 1;
    return 0;
}

static int fit_one(const st_analysis *an, const st_result *base, const char *kind, st_fit_metric m, int instr_event,
                   const st_reg_opts *opts, const int64_t *only, size_t nonly, st_costfit *out) {
    const st_sweep *sw = an->sweep;
    memset(out, 0, sizeof *out);
    int time = strcmp(kind, "time") == 0;
    st_key xkey = time ? ST_K_time_samples : ST_K_alloc_samples;
    out->workload = base->cell->workload;
    out->kind = time ? "time" : "alloc";
    out->metric = m;
    out->baseline = base;
    out->cells = st_xmalloc((an->nresults ? an->nresults : 1) * sizeof *out->cells);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (r->baseline == base->cell && !r->is_baseline && in_matrix(r) && strcmp(r->cell->kind, out->kind) == 0 &&
            r->runs && setting_wanted(r->cell, only, nonly))
            out->cells[out->ncells++] = r;
    }
    if (!out->ncells) {
        free(out->cells);
        return 0;
    }
    qsort(out->cells, out->ncells, sizeof *out->cells, cmp_x);

    size_t cap = base->cell->nruns;
    for (size_t k = 0; k < out->ncells; k++)
        cap += out->cells[k]->cell->nruns;
    double *x = st_xmalloc((cap ? cap : 1) * sizeof(double)), *y = st_xmalloc((cap ? cap : 1) * sizeof(double));
    size_t *g = st_xmalloc((cap ? cap : 1) * sizeof(size_t));
    size_t n = 0;
    for (size_t k = 0; k <= out->ncells; k++) {
        const st_cell *c = k == 0 ? base->cell : out->cells[k - 1]->cell;
        for (size_t i = 0; i < c->nruns; i++) {
            const st_run *run = &sw->runs[c->first_run + i];
            if (!run->used)
                continue;
            double xv = k == 0 ? 0.0 : run->key[xkey], yv = run_y(sw, run, m, instr_event);
            if (!isfinite(xv) || !isfinite(yv)) {
                if (m == ST_FIT_INSTR) { /* the counter is not there: no instruction fit */
                    free(x), free(y), free(g), free(out->cells);
                    return 0;
                }
                out->skipped++;
                continue;
            }
            x[n] = xv, y[n] = yv, g[n] = k;
            n++;
        }
    }
    out->cell_x = st_xmalloc(out->ncells * sizeof(double));
    out->cell_y = st_xmalloc(out->ncells * sizeof(double));
    double *tmp = st_xmalloc((n ? n : 1) * sizeof(double));
    for (size_t k = 0; k < out->ncells; k++) {
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (g[i] == k + 1)
                tmp[j++] = x[i];
        out->cell_x[k] = j ? st_median(tmp, j) : NAN;
        j = 0;
        for (size_t i = 0; i < n; i++)
            if (g[i] == k + 1)
                tmp[j++] = y[i];
        out->cell_y[k] = j ? st_median(tmp, j) : NAN;
    }
    free(tmp);

    st_reg_data d = {n, x, y, g, out->ncells + 1, 0};
    st_reg_opts o = *opts;
    char key[256];
    snprintf(key, sizeof key, "fit:%s/%s/%s", out->workload, out->kind, st_fit_metric_name(m));
    o.seed = opts->seed ^ st_fnv1a64(ST_FNV_OFFSET, key);
    st_reg_fit_runs(&d, &o, &out->fit);
    if (out->fit.why)
        fnote(out, "%s", out->fit.why);
    if (out->skipped)
        fnote(out, "%zu runs without a sample count or %s left out", out->skipped, st_fit_metric_name(m));
    size_t base_runs = 0;
    for (size_t i = 0; i < n; i++)
        base_runs += g[i] == 0;
    if (base_runs < 3)
        fnote(out, "the baseline has %zu used runs: no fixed cost", base_runs);
    /* Time metrics in ns: 1000 samples/s for one second cost 1000 * cost ns. */
    if (m != ST_FIT_INSTR) {
        out->norm.est = 1 + out->fit.cost.est * 1e-6;
        out->norm.lo = 1 + out->fit.cost.lo * 1e-6;
        out->norm.hi = 1 + out->fit.cost.hi * 1e-6;
    } else {
        out->norm.est = out->norm.lo = out->norm.hi = NAN;
    }
    double b = out->fit.base.est;
    out->fixed_frac.est = out->fit.fixed.est / b;
    out->fixed_frac.lo = out->fit.fixed.lo / b;
    out->fixed_frac.hi = out->fit.fixed.hi / b;
    free(x), free(y), free(g);
    return 1;
}

void st_costfits_compute(const st_analysis *an, const st_reg_opts *opts, st_costfits *out) {
    memset(out, 0, sizeof *out);
    const st_sweep *sw = an->sweep;
    int instr = -1;
    for (size_t e = 0; e < sw->nevents; e++)
        if (strcmp(sw->events[e], "instructions") == 0)
            instr = (int)e;
    size_t cap = 0;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *base = &an->results[i];
        if (!base->is_baseline || !in_matrix(base))
            continue;
        /* One matrix baseline per workload (the first in report order). */
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            if (an->results[j].is_baseline && in_matrix(&an->results[j]) &&
                strcmp(an->results[j].cell->workload, base->cell->workload) == 0)
                dup = 1;
        if (dup)
            continue;
        static const char *const kinds[2] = {"alloc", "time"};
        for (int k = 0; k < 2; k++)
            for (int m = 0; m < ST_FIT_NMETRICS; m++) {
                if (out->n == cap)
                    out->fits = st_xrealloc(out->fits, (cap = cap ? 2 * cap : 16) * sizeof *out->fits);
                if (fit_one(an, base, kinds[k], (st_fit_metric)m, instr, opts, NULL, 0, &out->fits[out->n]))
                    out->n++;
            }
    }
}

int st_costfit_subset(const st_analysis *an, const char *workload, const char *kind, st_fit_metric metric,
                      const int64_t *only, size_t nonly, const st_reg_opts *opts, st_costfit *out) {
    const st_sweep *sw = an->sweep;
    int instr = -1;
    for (size_t e = 0; e < sw->nevents; e++)
        if (strcmp(sw->events[e], "instructions") == 0)
            instr = (int)e;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *base = &an->results[i];
        if (base->is_baseline && in_matrix(base) && strcmp(base->cell->workload, workload) == 0)
            return fit_one(an, base, kind, metric, instr, opts, only, nonly, out);
    }
    return 0;
}

void st_costfit_free(st_costfit *c) {
    st_reg_fit_free(&c->fit);
    free(c->cells);
    free(c->cell_x);
    free(c->cell_y);
    memset(c, 0, sizeof *c);
}

void st_costfits_free(st_costfits *f) {
    for (size_t i = 0; i < f->n; i++) {
        st_reg_fit_free(&f->fits[i].fit);
        free(f->fits[i].cells);
        free(f->fits[i].cell_x);
        free(f->fits[i].cell_y);
    }
    free(f->fits);
    memset(f, 0, sizeof *f);
}

const st_costfit *st_costfit_find(const st_costfits *f, const char *workload, const char *kind, st_fit_metric metric) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->fits[i].workload, workload) == 0 && strcmp(f->fits[i].kind, kind) == 0 &&
            f->fits[i].metric == metric)
            return &f->fits[i];
    return NULL;
}

/* ---- Outputs ------------------------------------------------------------- */

/* Rotating buffers so one printf can take several formatted numbers. */
static char fbufs[16][64];
static int fnext;
static const char *fmt_num(double v, int digits, const char *missing) {
    if (!isfinite(v))
        return missing;
    char *b = fbufs[fnext = (fnext + 1) % 16];
    if (fabs(v) >= pow(10, digits) && fabs(v) < 1e15)
        snprintf(b, 64, "%.0f", v);
    else
        snprintf(b, 64, "%.*g", digits, v);
    return b;
}
static const char *fcsv(double v) { return fmt_num(v, 6, ""); }
static const char *fmd(double v, int digits) { return fmt_num(v, digits, "n/a"); }

static char ebufs[8][200];
static int enext;
static const char *est_md(st_reg_est e, double scale, int digits) {
    char *b = ebufs[enext = (enext + 1) % 8];
    if (!isfinite(e.est))
        return "n/a";
    char x[3][64];
    snprintf(x[0], 64, "%s", fmd(e.est * scale, digits));
    snprintf(x[1], 64, "%s", fmd(e.lo * scale, digits));
    snprintf(x[2], 64, "%s", fmd(e.hi * scale, digits));
    if (isfinite(e.lo))
        snprintf(b, 200, "%s [%s, %s]", x[0], x[1], x[2]);
    else
        snprintf(b, 200, "%s (no CI)", x[0]);
    return b;
}

static void text(FILE *f, const char *s, int csv) {
    for (; *s; s++)
        fputc(csv && *s == ',' ? ';' : (*s == '\n' || *s == '|') ? ' ' : *s, f);
}

void st_costfit_write_csv(FILE *f, const st_costfits *fits) {
    fputs("workload,kind,metric,unit,cells,runs,cost,cost_lo,cost_hi,intercept,intercept_lo,intercept_hi,"
          "base,fixed,fixed_lo,fixed_hi,fixed_frac,fixed_frac_lo,fixed_frac_hi,norm_overhead,norm_lo,norm_hi,"
          "max_abs_residual_frac,baseline_in_slope,note\n",
          f);
    for (size_t i = 0; i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        const st_reg_fit *r = &c->fit;
        double maxres = 0;
        for (size_t k = 1; k <= c->ncells; k++)
            if (isfinite(r->residual[k]) && fabs(r->residual[k]) > maxres)
                maxres = fabs(r->residual[k]);
        maxres /= r->base.est;
        fprintf(f, "%s,%s,%s,%s,%zu,%zu,", c->workload, c->kind, st_fit_metric_name(c->metric),
                c->metric == ST_FIT_INSTR ? "instructions" : "ns", c->ncells, r->n);
        fprintf(f, "%s,%s,%s,", fcsv(r->cost.est), fcsv(r->cost.lo), fcsv(r->cost.hi));
        fprintf(f, "%s,%s,%s,", fcsv(r->intercept.est), fcsv(r->intercept.lo), fcsv(r->intercept.hi));
        fprintf(f, "%s,%s,%s,%s,", fcsv(r->base.est), fcsv(r->fixed.est), fcsv(r->fixed.lo), fcsv(r->fixed.hi));
        fprintf(f, "%s,%s,%s,", fcsv(c->fixed_frac.est), fcsv(c->fixed_frac.lo), fcsv(c->fixed_frac.hi));
        fprintf(f, "%s,%s,%s,%s,%d,", fcsv(c->norm.est), fcsv(c->norm.lo), fcsv(c->norm.hi), fcsv(maxres),
                r->baseline_in_slope);
        text(f, c->note, 1);
        fputc('\n', f);
    }
}

void st_costfit_write_md(FILE *f, const st_analysis *an) {
    const st_costfits *fits = an->fits;
    fputs("### Per-sample cost by regression\n\n"
          "Wall time of every run of a workload's baseline and of its cells of one sampling kind, fitted against "
          "the samples the run took (weighted Theil-Sen, 95% bootstrap intervals over runs within cells; "
          "docs/STATISTICS.md). **cost**: wall time per sample; **per 1000/s**: the normalized overhead "
          "1 + cost x 1000/s derived from it; **fixed**: the fit's intercept minus the baseline's median, the "
          "cost of turning sampling on at all, kept out of the per-sample cost; **residuals**: each cell's "
          "median distance from the line, in % of the baseline, from fewest to most samples (a cost that is "
          "not linear in the samples shows here); **per-cell**: the range of the per-cell ratio costs the fit "
          "replaces.\n\n"
          "| workload | kind | cells | cost (us) | per 1000/s | fixed (ms) | fixed (%) | residuals (%) | per-cell "
          "costs (us) | CPU cost (us) |\n|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    int rows = 0;
    for (size_t i = 0; fits && i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        if (c->metric != ST_FIT_WALL)
            continue;
        rows++;
        const st_costfit *cpu = st_costfit_find(fits, c->workload, c->kind, ST_FIT_CPU);
        fprintf(f, "| %s | %s | %zu | %s | %s | %s | %s | ", c->workload, c->kind, c->ncells,
                est_md(c->fit.cost, 1e-3, 3), est_md(c->norm, 1, 4), est_md(c->fit.fixed, 1e-6, 3),
                est_md(c->fixed_frac, 100, 3));
        for (size_t k = 1; k <= c->ncells; k++)
            fprintf(f, "%s%s", k > 1 ? " " : "", fmd(c->fit.residual[k] / c->fit.base.est * 100, 2));
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < c->ncells; k++) {
            double v = c->cells[k]->cost.est;
            if (isfinite(v)) {
                if (v < lo)
                    lo = v;
                if (v > hi)
                    hi = v;
            }
        }
        if (isfinite(lo))
            fprintf(f, " | %s .. %s", fmd(lo, 3), fmd(hi, 3));
        else
            fputs(" | n/a", f);
        fprintf(f, " | %s |", cpu ? est_md(cpu->fit.cost, 1e-3, 3) : "n/a");
        if (c->note[0]) {
            fputs(" ", f);
            text(f, c->note, 0);
        }
        fputc('\n', f);
    }
    if (!rows)
        fputs("| n/a | no workload with a baseline and sampling cells | | | | | | | | |\n", f);
    fputc('\n', f);
    for (size_t i = 0; fits && i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        if (c->metric != ST_FIT_INSTR)
            continue;
        if (!rows++ || i == 0 || fits->fits[i - 1].metric != ST_FIT_INSTR)
            fputs("Instructions per sample (the `instructions` counter, same fit):\n\n", f);
        fprintf(f, "- %s %s: %s instructions per sample; fixed %s instructions\n", c->workload, c->kind,
                est_md(c->fit.cost, 1, 4), est_md(c->fit.fixed, 1, 4));
    }
}

/* st_costfit.c - per-sample cost fits of a sweep (invariants: st_costfit.h). */
#include "st_costfit.h"
#include "st_desc.h"
#include "st_fmt.h"
#include "st_verdict.h"
#include "st_sim.h"
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
    case ST_FIT_SIM_IR: return "sim_instructions";
    case ST_FIT_SIM_CYC: return "sim_est_cycles";
    default: return "?";
    }
}

void st_costfit_note(st_costfit *c, const char *fmt, ...) {
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

/* The regression of out's runs x, y in groups g (0 the baseline, k the
 * cell k - 1; ncells set): the cells' median x and y, the fit, its notes,
 * the normalized overhead (time metrics) and the fixed cost's fraction. */
static void fit_data(st_costfit *out, const double *x, const double *y, const size_t *g, size_t n,
                     const st_reg_opts *opts) {
    st_fit_metric m = out->metric;
    out->confidence = opts->confidence;
    out->cell_x = ct_xmalloc((out->ncells ? out->ncells : 1) * sizeof(double));
    out->cell_y = ct_xmalloc((out->ncells ? out->ncells : 1) * sizeof(double));
    double *tmp = ct_xmalloc((n ? n : 1) * sizeof(double));
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
    snprintf(key, sizeof key, "fit:%s/%s%s%s/%s", out->workload, out->kind, out->by_mode ? "-" : "",
             out->by_mode ? out->time_mode : "", st_fit_metric_name(m));
    o.seed = opts->seed ^ st_fnv1a64(ST_FNV_OFFSET, key);
    st_reg_fit_runs(&d, &o, &out->fit);
    out->cost_se = isfinite(out->fit.cost.lo) ? st_reg_boot_se(&out->fit, NULL) : NAN; /* no interval: none */
    if (out->fit.why)
        st_costfit_note(out, "%s", out->fit.why);
    if (out->fit.no_ci)
        st_costfit_note(out, "%s", out->fit.no_ci);
    if (out->skipped)
        st_costfit_note(out, "%zu runs without a sample count or %s left out", out->skipped, st_fit_metric_name(m));
    /* Time metrics in ns: 1000 samples/s for one second cost 1000 * cost ns. */
    if (m == ST_FIT_WALL || m == ST_FIT_CPU) {
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
}

/* The time sampler's mode a time cell belongs to in the fits: "thread" or
 * "signal" (its time_mode; a cell without one is the signal's). */
static const char *cell_mode(const st_cell *c) {
    return sgc_time_mode_parse(c->time_mode) > 0 ? sgc_time_mode_name(sgc_time_mode_parse(c->time_mode))
                                                 : sgc_time_mode_name(0);
}

/* Is the cell in a fit of the given mode (NULL or "": every time cell)? */
static int mode_wanted(const st_cell *c, const char *mode) {
    return !mode || !mode[0] || strcmp(c->kind, "time") || !strcmp(cell_mode(c), mode);
}

static int fit_one(const st_analysis *an, const st_result *base, const char *kind, const char *mode, st_fit_metric m,
                   int instr_event, const st_reg_opts *opts, const int64_t *only, size_t nonly, st_costfit *out) {
    const st_sweep *sw = an->sweep;
    memset(out, 0, sizeof *out);
    int time = strcmp(kind, "time") == 0;
    st_key xkey = time ? ST_K_time_samples : ST_K_alloc_samples;
    out->workload = base->cell->workload;
    out->kind = time ? "time" : "alloc";
    out->time_mode = time && mode ? mode : "";
    out->by_mode = time && mode != NULL;
    out->metric = m;
    out->level = ST_LEVEL_PROCESSES;
    out->baseline = base;
    out->cells = ct_xmalloc((an->nresults ? an->nresults : 1) * sizeof *out->cells);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (r->baseline == base->cell && !r->is_baseline && in_matrix(r) && strcmp(r->cell->kind, out->kind) == 0 &&
            r->runs && setting_wanted(r->cell, only, nonly) && mode_wanted(r->cell, out->time_mode))
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
    double *x = ct_xmalloc((cap ? cap : 1) * sizeof(double)), *y = ct_xmalloc((cap ? cap : 1) * sizeof(double));
    size_t *g = ct_xmalloc((cap ? cap : 1) * sizeof(size_t));
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
    fit_data(out, x, y, g, n, opts);
    /* The blocked design: the same fit on the pairs, each run minus the
     * adjacent baseline run of its block (A/A blocks for the baseline). */
    if (an->blocks) {
        int64_t maxb = 0;
        for (size_t i = 0; i < sw->nruns; i++)
            if (sw->runs[i].block > maxb)
                maxb = sw->runs[i].block;
        long *partner = ct_xmalloc((size_t)(maxb + 1) * sizeof *partner);
        for (int64_t b = 0; b <= maxb; b++)
            partner[b] = -1;
        for (size_t i = 0; i < sw->nruns; i++)
            if (sw->runs[i].block > 0 && sw->runs[i].role == 0 && sw->runs[i].used)
                partner[sw->runs[i].block] = (long)i;
        n = 0;
        for (size_t k = 0; k <= out->ncells; k++) {
            const st_cell *c = k == 0 ? base->cell : out->cells[k - 1]->cell;
            for (size_t i = 0; i < c->nruns; i++) {
                const st_run *run = &sw->runs[c->first_run + i];
                if (!run->used || run->block <= 0 || run->role != 1 || partner[run->block] < 0)
                    continue;
                const st_run *p = &sw->runs[partner[run->block]];
                double xv = k == 0 ? 0.0 : run->key[xkey];
                double yv = run_y(sw, run, m, instr_event) - run_y(sw, p, m, instr_event);
                if (!isfinite(xv) || !isfinite(yv))
                    continue;
                x[n] = xv, y[n] = yv, g[n] = k;
                n++;
            }
        }
        free(partner);
        if (n) {
            st_reg_data d = {n, x, y, g, out->ncells + 1, 0};
            st_reg_opts o = *opts;
            char key[256];
            snprintf(key, sizeof key, "fit:%s/%s%s%s/%s#paired", out->workload, out->kind, out->by_mode ? "-" : "",
                     out->by_mode ? out->time_mode : "", st_fit_metric_name(m));
            o.seed = opts->seed ^ st_fnv1a64(ST_FNV_OFFSET, key);
            st_reg_fit_runs(&d, &o, &out->pfit);
            out->pcost_se = isfinite(out->pfit.cost.lo) ? st_reg_boot_se(&out->pfit, NULL) : NAN;
            out->paired = 1;
            out->pairs = n;
            if (m == ST_FIT_WALL || m == ST_FIT_CPU) {
                out->pnorm.est = 1 + out->pfit.cost.est * 1e-6;
                out->pnorm.lo = 1 + out->pfit.cost.lo * 1e-6;
                out->pnorm.hi = 1 + out->pfit.cost.hi * 1e-6;
            } else {
                out->pnorm.est = out->pnorm.lo = out->pnorm.hi = NAN;
            }
        }
    }
    free(x), free(y), free(g);
    return 1;
}

/* A fit of the simulated part: workload w's cells of the kind against its
 * simulated baseline b, metric m (0 instructions, 1 estimated cycles of the
 * runs' counts).  Returns 0 when there is no such cell. */
static int fit_sim(const st_sim *sim, const st_simcell *b, const char *kind, st_fit_metric m, const st_reg_opts *opts,
                   st_costfit *out) {
    memset(out, 0, sizeof *out);
    int time = strcmp(kind, "time") == 0, v = m == ST_FIT_SIM_CYC;
    out->workload = b->workload;
    out->kind = time ? "time" : "alloc";
    out->time_mode = "";
    out->metric = m;
    out->level = ST_LEVEL_PROCESSES;
    const st_simcell **cells = ct_xmalloc((sim->ncells ? sim->ncells : 1) * sizeof *cells);
    size_t nc = 0, cap = b->nrun;
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        if (c->baseline != b || c == b || !c->nrun ||
            (time ? strcmp(c->kind, "time") || strcmp(c->time_clock, sgc_clock_name(SGC_CLOCK_WALL))
                  : strcmp(c->kind, "alloc") || strcmp(c->alloc_mode, sgc_alloc_mode_name(SGC_SAMPLE_FIXED))))
            continue;
        cells[nc++] = c;
        cap += c->nrun;
    }
    /* By median samples, as the timed fits' cells. */
    for (size_t a = 1; a < nc; a++)
        for (size_t k = a; k > 0 && (time ? cells[k - 1]->time_samples > cells[k]->time_samples
                                          : cells[k - 1]->alloc_samples > cells[k]->alloc_samples);
             k--) {
            const st_simcell *t = cells[k];
            cells[k] = cells[k - 1];
            cells[k - 1] = t;
        }
    out->ncells = nc;
    if (!nc || !b->nrun) {
        free(cells);
        return 0;
    }
    double *x = ct_xmalloc(cap * sizeof(double)), *y = ct_xmalloc(cap * sizeof(double));
    size_t *g = ct_xmalloc(cap * sizeof(size_t)), n = 0;
    for (size_t k = 0; k <= nc; k++) {
        const st_simcell *c = k ? cells[k - 1] : b;
        for (size_t i = 0; i < c->nrun; i++) {
            double xv = k ? (time ? c->run_time[i] : c->run_alloc[i]) : 0.0, yv = c->run_v[v][i];
            if (!isfinite(xv) || !isfinite(yv)) {
                out->skipped++;
                continue;
            }
            x[n] = xv, y[n] = yv, g[n++] = k;
        }
    }
    fit_data(out, x, y, g, n, opts);
    free(x), free(y), free(g), free(cells);
    return 1;
}

static int kind_order(const char *k) { return strcmp(k, "alloc") == 0 ? 0 : 1; }

static int cmp_fits(const void *a, const void *b) {
    const st_costfit *x = a, *y = b;
    int c = strcmp(x->workload, y->workload);
    if (c)
        return c;
    if (kind_order(x->kind) != kind_order(y->kind))
        return kind_order(x->kind) - kind_order(y->kind);
    int mx = x->by_mode ? sgc_time_mode_parse(x->time_mode) : -1;
    int my = y->by_mode ? sgc_time_mode_parse(y->time_mode) : -1;
    if (mx != my)
        return mx - my;
    return (int)x->metric - (int)y->metric;
}

/* The fits of the simulated part, appended to out (capacity *cap). */
static void fits_sim(const st_sim *sim, const st_reg_opts *opts, st_costfits *out, size_t *cap) {
    for (size_t i = 0; sim && i < sim->ncells; i++) {
        const st_simcell *b = &sim->cells[i];
        if (b->baseline != b)
            continue;
        static const char *const kinds[2] = {"alloc", "time"};
        for (int k = 0; k < 2; k++)
            for (int m = ST_FIT_SIM_IR; m <= ST_FIT_SIM_CYC; m++) {
                if (out->n == *cap)
                    out->fits = ct_xrealloc(out->fits, (*cap = *cap ? 2 * *cap : 16) * sizeof *out->fits);
                if (fit_sim(sim, b, kinds[k], (st_fit_metric)m, opts, &out->fits[out->n]))
                    out->n++;
            }
    }
}

/* The modes of base's workload's matrix time cells (cell_mode), in mode
 * order, into modes (room for SGC_NTIME_MODES); returns how many. */
static size_t time_modes(const st_analysis *an, const st_result *base, const char **modes) {
    int seen[SGC_NTIME_MODES] = {0};
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (r->baseline != base->cell || r->is_baseline || !in_matrix(r) || strcmp(r->cell->kind, "time"))
            continue;
        seen[sgc_time_mode_parse(cell_mode(r->cell))] = 1;
    }
    size_t n = 0;
    for (int m = 0; m < SGC_NTIME_MODES; m++)
        if (seen[m])
            modes[n++] = sgc_time_mode_name(m);
    return n;
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
        /* The fits: alloc, then time: one per mode where the time cells
         * have several, else one of them all (named by their one mode). */
        const char *modes[1 + SGC_NTIME_MODES] = {NULL};
        size_t nm = time_modes(an, base, modes + 1);
        for (size_t k = 0; k < 1 + (nm > 1 ? nm : 1); k++)
            for (int m = 0; m < ST_FIT_NATIVE; m++) {
                if (out->n == cap)
                    out->fits = ct_xrealloc(out->fits, (cap = cap ? 2 * cap : 16) * sizeof *out->fits);
                st_costfit *f = &out->fits[out->n];
                if (!fit_one(an, base, k ? "time" : "alloc", k && nm > 1 ? modes[k] : NULL, (st_fit_metric)m, instr,
                             opts, NULL, 0, f))
                    continue;
                if (k && nm == 1)
                    f->time_mode = modes[1];
                out->n++;
            }
    }
    fits_sim(an->sim, opts, out, &cap);
    if (out->n)
        qsort(out->fits, out->n, sizeof *out->fits, cmp_fits);
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
            return fit_one(an, base, kind, NULL, metric, instr, opts, only, nonly, out);
    }
    return 0;
}

void st_costfit_free(st_costfit *c) {
    st_reg_fit_free(&c->fit);
    if (c->paired)
        st_reg_fit_free(&c->pfit);
    free(c->cells);
    free(c->cell_x);
    free(c->cell_y);
    memset(c, 0, sizeof *c);
}

void st_costfits_free(st_costfits *f) {
    for (size_t i = 0; i < f->n; i++) {
        st_reg_fit_free(&f->fits[i].fit);
        if (f->fits[i].paired)
            st_reg_fit_free(&f->fits[i].pfit);
        free(f->fits[i].cells);
        free(f->fits[i].cell_x);
        free(f->fits[i].cell_y);
    }
    free(f->fits);
    memset(f, 0, sizeof *f);
}

const st_costfit *st_costfit_find_mode(const st_costfits *f, const char *workload, const char *kind, const char *mode,
                                       st_fit_metric metric) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->fits[i].workload, workload) == 0 && strcmp(f->fits[i].kind, kind) == 0 &&
            f->fits[i].metric == metric && (!mode || !strcmp(f->fits[i].time_mode, mode)))
            return &f->fits[i];
    return NULL;
}

const st_costfit *st_costfit_find(const st_costfits *f, const char *workload, const char *kind, st_fit_metric metric) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->fits[i].workload, workload) == 0 && strcmp(f->fits[i].kind, kind) == 0 &&
            f->fits[i].metric == metric)
            return &f->fits[i];
    return NULL;
}

/* ---- Outputs ------------------------------------------------------------- */

/* Rotating buffers so one printf can take several formatted numbers: CSV in
 * st_fmt_human's form, Markdown in st_fmt_plain's (st_fmt.h). */
static char fbufs[16][64];
static int fnext;
static const char *fmt_num(double v, int digits, const char *missing, int plain) {
    if (!isfinite(v))
        return missing;
    char *b = fbufs[fnext = (fnext + 1) % 16];
    (plain ? st_fmt_plain : st_fmt_human)(b, 64, v, digits);
    return b;
}
static const char *fcsv(double v) { return fmt_num(v, 6, "", 0); }
static const char *fmd(double v, int digits) { return fmt_num(v, digits, "n/a", 1); }

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

/* regress.csv's unit of a metric's cost (per sample) and intercept. */
static const char *unit_name(st_fit_metric m) {
    switch (m) {
    case ST_FIT_INSTR:
    case ST_FIT_SIM_IR: return "instructions";
    case ST_FIT_SIM_CYC: return "est_cycles";
    default: return "ns";
    }
}

st_normres st_costfit_verdict(const st_costfits *fits, const char *workload, double margin) {
    return st_costfit_verdict_mode(fits, workload, NULL, margin);
}

st_normres st_costfit_verdict_mode(const st_costfits *fits, const char *workload, const char *mode, double margin) {
    const st_costfit *a = st_costfit_find(fits, workload, "alloc", ST_FIT_WALL);
    const st_costfit *t = st_costfit_find_mode(fits, workload, "time", mode, ST_FIT_WALL);
    if (!a || !t)
        return ST_NR_NA;
    st_reg_est d = st_costfit_norm_difference(a, t);
    return st_norm_verdict(d.lo, d.hi, margin);
}

st_reg_est st_costfit_norm_difference(const st_costfit *a, const st_costfit *t) {
    if (t->has_rep_diff) /* over replicates (st_replicates.c) */
        return t->rep_diff;
    /* The fits' resamples are independent (their own seeds) and neither
     * slope reads the shared baseline, so the difference of replicates
     * paired by index is a bootstrap of the difference.  In the blocked
     * design, the fits on the pairs. */
    int paired = a->paired && t->paired && isfinite(a->pfit.cost.lo) && isfinite(t->pfit.cost.lo);
    st_reg_est d = st_reg_cost_difference(paired ? &a->pfit : &a->fit, paired ? &t->pfit : &t->fit, a->confidence);
    d.est *= 1e-6, d.lo *= 1e-6, d.hi *= 1e-6;
    return d;
}

double st_costfit_norm_difference_se(const st_costfit *a, const st_costfit *t) {
    if (t->has_rep_diff)
        return t->rep_diff_se;
    int paired = a->paired && t->paired && isfinite(a->pfit.cost.lo) && isfinite(t->pfit.cost.lo);
    if (!paired && (!isfinite(a->fit.cost.lo) || !isfinite(t->fit.cost.lo)))
        return NAN; /* as the difference: no interval, no SE */
    return st_reg_boot_se(paired ? &a->pfit : &a->fit, paired ? &t->pfit : &t->fit) * 1e-6;
}

void st_costfit_write_csv(FILE *f, const st_costfits *fits, double margin) {
    fputs("workload,kind,metric,unit,cells,runs,cost,cost_lo,cost_hi,intercept,intercept_lo,intercept_hi,"
          "base,fixed,fixed_lo,fixed_hi,fixed_frac,fixed_frac_lo,fixed_frac_hi,norm_overhead,norm_lo,norm_hi,"
          "max_abs_residual_frac,baseline_in_slope,note,verdict,norm_diff,norm_diff_lo,norm_diff_hi,"
          "paired_pairs,paired_cost,paired_cost_lo,paired_cost_hi,paired_fixed,paired_fixed_lo,paired_fixed_hi,"
          "paired_norm_overhead,paired_norm_lo,paired_norm_hi,time_mode,level,cost_se,paired_cost_se,norm_diff_se\n",
          f);
    for (size_t i = 0; i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        const st_reg_fit *r = &c->fit;
        double maxres = 0;
        for (size_t k = 1; k <= c->ncells; k++)
            if (isfinite(r->residual[k]) && fabs(r->residual[k]) > maxres)
                maxres = fabs(r->residual[k]);
        maxres /= r->base.est;
        fprintf(f, "%s,%s,%s,%s,%zu,%zu,", c->workload, c->kind, st_fit_metric_name(c->metric), unit_name(c->metric),
                c->ncells, r->n);
        fprintf(f, "%s,%s,%s,", fcsv(r->cost.est), fcsv(r->cost.lo), fcsv(r->cost.hi));
        fprintf(f, "%s,%s,%s,", fcsv(r->intercept.est), fcsv(r->intercept.lo), fcsv(r->intercept.hi));
        fprintf(f, "%s,%s,%s,%s,", fcsv(r->base.est), fcsv(r->fixed.est), fcsv(r->fixed.lo), fcsv(r->fixed.hi));
        fprintf(f, "%s,%s,%s,", fcsv(c->fixed_frac.est), fcsv(c->fixed_frac.lo), fcsv(c->fixed_frac.hi));
        fprintf(f, "%s,%s,%s,%s,%d,", fcsv(c->norm.est), fcsv(c->norm.lo), fcsv(c->norm.hi), fcsv(maxres),
                r->baseline_in_slope);
        text(f, c->note, 1);
        const char *mode = strcmp(c->kind, "time") ? NULL : c->time_mode; /* a time row: its own mode */
        fprintf(f, ",%s",
                st_normres_word(c->metric == ST_FIT_WALL ? st_costfit_verdict_mode(fits, c->workload, mode, margin)
                                                         : ST_NR_NA));
        const st_costfit *ta =
            c->metric == ST_FIT_WALL ? st_costfit_find(fits, c->workload, "alloc", ST_FIT_WALL) : NULL;
        const st_costfit *tt =
            c->metric == ST_FIT_WALL ? st_costfit_find_mode(fits, c->workload, "time", mode, ST_FIT_WALL) : NULL;
        st_reg_est d = {NAN, NAN, NAN};
        double dse = NAN;
        if (ta && tt) {
            d = st_costfit_norm_difference(ta, tt);
            dse = st_costfit_norm_difference_se(ta, tt);
        }
        fprintf(f, ",%s,%s,%s", fcsv(d.est), fcsv(d.lo), fcsv(d.hi));
        if (c->paired)
            fprintf(f, ",%zu,%s,%s,%s,%s,%s,%s,%s,%s,%s", c->pairs, fcsv(c->pfit.cost.est), fcsv(c->pfit.cost.lo),
                    fcsv(c->pfit.cost.hi), fcsv(c->pfit.fixed.est), fcsv(c->pfit.fixed.lo), fcsv(c->pfit.fixed.hi),
                    fcsv(c->pnorm.est), fcsv(c->pnorm.lo), fcsv(c->pnorm.hi));
        else
            fputs(",0,,,,,,,,,", f);
        fprintf(f, ",%s,%s,%s,%s,%s\n", c->time_mode, c->baseline ? st_level_name(c->level) : "", fcsv(c->cost_se),
                fcsv(c->paired ? c->pcost_se : NAN), fcsv(dse));
    }
}

/* "a, b" of the comparisons (one per workload and time fit, in fit order:
 * "gcbench" against a fit of every time cell or the signal's, "gcbench/thread"
 * against the sampler thread's) whose regression verdict is r, or "none". */
static void verdict_list(FILE *f, const st_costfits *fits, double margin, st_normres r) {
    int n = 0;
    for (size_t i = 0; i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        if (c->metric != ST_FIT_WALL || strcmp(c->kind, "time")) /* one per time fit; a verdict needs both */
            continue;
        if (st_costfit_verdict_mode(fits, c->workload, c->time_mode, margin) == r)
            fprintf(f, "%s%s%s%s", n++ ? ", " : "", c->workload,
                    c->by_mode && strcmp(c->time_mode, "signal") ? "/" : "",
                    c->by_mode && strcmp(c->time_mode, "signal") ? c->time_mode : "");
    }
    if (!n)
        fputs("none", f);
}

/* The counting line under the regression table: the allocation-vs-time verdict
 * from the wall-time fits' per 1000/s intervals. */
static void write_verdict_line(FILE *f, const st_costfits *fits, double margin) {
    size_t judged = 0, resolved = 0;
    int by_mode = 0;
    for (size_t i = 0; i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        if (c->metric != ST_FIT_WALL || strcmp(c->kind, "time"))
            continue;
        st_normres r = st_costfit_verdict_mode(fits, c->workload, c->time_mode, margin);
        by_mode |= c->by_mode;
        judged += r != ST_NR_NA;
        resolved += r == ST_NR_ALLOC || r == ST_NR_TIME || r == ST_NR_EQUIVALENT;
    }
    if (!judged)
        return;
    char m[32];
    snprintf(m, sizeof m, "%g%%", margin * 100);
    fprintf(f,
            "By the regressions (the difference of the alloc and time **per 1000/s** values above, alloc minus "
            "time, with the interval of the difference of the two fits' bootstrap replicates, judged like the "
            "allocation-vs-time table: cheaper when the interval excludes 0 on that side, equivalent within %s "
            "when it lies within +-%s%s): resolved on %zu of %zu %s: allocation cheaper: ",
            m, m,
            by_mode ? "; a time fit per time sampler's mode, each compared on its own, <workload>/thread the "
                      "sampler thread's"
                    : "",
            resolved, judged, by_mode ? "comparisons" : "workloads");
    verdict_list(f, fits, margin, ST_NR_ALLOC);
    fputs("; time cheaper: ", f);
    verdict_list(f, fits, margin, ST_NR_TIME);
    fprintf(f, "; equivalent within %s: ", m);
    verdict_list(f, fits, margin, ST_NR_EQUIVALENT);
    fputs("; not resolved: ", f);
    verdict_list(f, fits, margin, ST_NR_UNRESOLVED);
    fputs(".\n\n", f);
}

/* The simulated part's fits: exact counts, so intervals are usually a point. */
static void write_sim_md(FILE *f, const st_costfits *fits) {
    int rows = 0;
    for (size_t i = 0; fits && i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        if (c->metric != ST_FIT_SIM_IR)
            continue;
        if (!rows++)
            fputs("Simulated part (valgrind's exact counts, the same fit over the simulated runs; fixed-mode "
                  "allocation cells, wall-clock time cells): instructions and estimated cycles per sample, the "
                  "fixed cost of turning sampling on (the intercept minus the simulated baseline), and the "
                  "residuals in % of the baseline's instructions.\n\n"
                  "| workload | kind | cells | instructions / sample | fixed instructions | est. cycles / sample | "
                  "fixed est. cycles | residuals (%) | note |\n|---|---|---|---|---|---|---|---|---|\n",
                  f);
        const st_costfit *cyc = st_costfit_find(fits, c->workload, c->kind, ST_FIT_SIM_CYC);
        fprintf(f, "| %s | %s | %zu | %s | %s | %s | %s | ", c->workload, c->kind, c->ncells, est_md(c->fit.cost, 1, 4),
                est_md(c->fit.fixed, 1, 4), cyc ? est_md(cyc->fit.cost, 1, 4) : "n/a",
                cyc ? est_md(cyc->fit.fixed, 1, 4) : "n/a");
        for (size_t k = 1; k <= c->ncells; k++)
            fprintf(f, "%s%s", k > 1 ? " " : "", fmd(c->fit.residual[k] / c->fit.base.est * 100, 2));
        fputs(" | ", f);
        text(f, c->note, 0);
        fputs(" |\n", f);
    }
    if (rows)
        fputc('\n', f);
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
          "In a blocked sweep the same fit is also made on the **pairs** (each run minus the adjacent run of its "
          "baseline in the same block, the baseline's A/A blocks at 0 samples), where the noise a block's two runs "
          "share cancels: **pairs cost** and **pairs per 1000/s**; the verdict line below then uses them.\n\n",
          f);
    size_t reps = 0;
    for (size_t i = 0; fits && i < fits->n; i++)
        if (fits->fits[i].rep_k > reps)
            reps = fits->fits[i].rep_k;
    if (reps >= 2)
        fprintf(f,
                "This sweep holds %zu replicates: **cost**, **per 1000/s**, **CPU cost**, **pairs cost**, "
                "**pairs per 1000/s** and the verdict line are over the replicates (level `replicates`: each "
                "replicate fitted alone, its cost with its bootstrap SE, combined by the random-effects model with "
                "the between-replicate variance pooled over the workloads' fits of one kind, time sampler and "
                "metric; the note gives it and the replicates' RMS SE); **fixed**, **residuals** and **per-cell** "
                "are the fit of all the runs at once (over runs within cells).\n\n",
                reps);
    fputs("| workload | kind | cells | cost (us) | per 1000/s | fixed (ms) | fixed (%) | residuals (%) | per-cell "
          "costs (us) | CPU cost (us) | pairs cost (us) | pairs per 1000/s | note |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    int rows = 0;
    for (size_t i = 0; fits && i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        if (c->metric != ST_FIT_WALL)
            continue;
        rows++;
        const st_costfit *cpu = st_costfit_find_mode(fits, c->workload, c->kind, c->time_mode, ST_FIT_CPU);
        char kind[32];
        snprintf(kind, sizeof kind, c->by_mode ? "%s (%s)" : "%s", c->kind, c->time_mode);
        fprintf(f, "| %s | %s | %zu | %s | %s | %s | %s | ", c->workload, kind, c->ncells, est_md(c->fit.cost, 1e-3, 3),
                est_md(c->norm, 1, 4), est_md(c->fit.fixed, 1e-6, 3), est_md(c->fixed_frac, 100, 3));
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
        fprintf(f, " | %s | ", cpu ? est_md(cpu->fit.cost, 1e-3, 3) : "n/a");
        fprintf(f, "%s | %s | ", c->paired ? est_md(c->pfit.cost, 1e-3, 3) : "n/a",
                c->paired ? est_md(c->pnorm, 1, 4) : "n/a");
        text(f, c->note, 0);
        fputs(" |\n", f);
    }
    if (!rows)
        fputs("| n/a | no workload with a baseline and sampling cells | | | | | | | | | | | |\n", f);
    fputc('\n', f);
    if (fits)
        write_verdict_line(f, fits, an->margin);
    write_sim_md(f, fits);
    for (size_t i = 0; fits && i < fits->n; i++) {
        const st_costfit *c = &fits->fits[i];
        if (c->metric != ST_FIT_INSTR)
            continue;
        if (!rows++ || i == 0 || fits->fits[i - 1].metric != ST_FIT_INSTR)
            fputs("Instructions per sample (the `instructions` counter, same fit):\n\n", f);
        fprintf(f, "- %s %s%s%s%s: %s instructions per sample; fixed %s instructions\n", c->workload, c->kind,
                c->by_mode ? " (" : "", c->by_mode ? c->time_mode : "", c->by_mode ? ")" : "",
                est_md(c->fit.cost, 1, 4), est_md(c->fit.fixed, 1, 4));
    }
}

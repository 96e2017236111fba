/* st_peers.c - the peers report (st_peers.h). */
#define _GNU_SOURCE
#include "st_peers.h"
#include "st_desc.h"
#include "st_inproc.h"
#include "st_sim.h"
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
    return ct_xstrdup(workload);
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
    char *s = ct_xmalloc(n);
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

/* The in-process cells of a row's workload (see st_peers.h). */
static void find_inproc(const st_analysis *an, st_peer_row *r) {
    const st_inprocs *ip = an->inproc;
    for (size_t i = 0; ip && i < ip->n; i++) {
        const st_inproc_cell *x = &ip->cells[i];
        if (strcmp(x->workload, r->workload))
            continue;
        if (x->alloc_period == 0 && x->time_hz == 0)
            r->ip_aa = x;
        else if (!strcmp(x->kind, "alloc") && x->e.blocks.n && (!r->ip || x->alloc_period < r->ip->alloc_period))
            r->ip = x;
    }
}

/* Least squares of y on x over n points: slope *b and intercept *a; 0, or
 * -1 when x does not vary. */
static int least_squares(const double *x, const double *y, size_t n, double *b, double *a) {
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++)
        mx += x[i], my += y[i];
    if (!n)
        return -1;
    mx /= (double)n, my /= (double)n;
    for (size_t i = 0; i < n; i++)
        sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    if (!(sxx > 0))
        return -1;
    *b = sxy / sxx;
    *a = my - *b * mx;
    return 0;
}

/* The simulated part of a row (see st_peers.h). */
static void find_sim(const st_analysis *an, st_peer_row *r) {
    r->sim_ir = r->sim_cyc = r->sim_fixed_ir = r->sim_fixed_cyc = NAN;
    r->sim_ir_lo = r->sim_ir_hi = r->sim_spread = NAN;
    r->sim_exact = -1;
    const st_sim *sim = an->sim;
    if (!sim)
        return;
    const st_simcell *base = NULL;
    size_t n = 0, maxrun = 0, cells = 0;
    int counted = 1, exact = 1, repeated = 1;
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        if (strcmp(c->workload, r->workload) || !c->nrun)
            continue;
        int is_base = !strcmp(c->kind, "baseline"), is_alloc = !strcmp(c->kind, "alloc");
        if (!is_base && !is_alloc)
            continue;
        if (is_base)
            base = c;
        else
            cells++;
        n += c->nrun;
        if (c->nrun > maxrun)
            maxrun = c->nrun;
        repeated &= c->nrun >= 2;
        for (int m = 0; m < SW_SIM_N; m++)
            exact &= c->vmin[m] == c->vmax[m];
        if (isfinite(c->spread[SW_SIM_IR]) && !(c->spread[SW_SIM_IR] <= r->sim_spread))
            r->sim_spread = c->spread[SW_SIM_IR];
        for (size_t k = 0; is_alloc && k < c->nrun; k++)
            counted &= isfinite(c->run_alloc[k]);
    }
    r->sim_cells = cells;
    if (!cells || !base)
        return;
    r->sim_exact = repeated ? exact : -1;
    /* With one allocation cell the line goes through the baseline and that
     * cell: the fixed cost would read 0 and be counted in the slope. */
    if (!counted || cells < 2)
        return;
    double *x = ct_xmalloc(n * sizeof *x), *y[2] = {ct_xmalloc(n * sizeof(double)), ct_xmalloc(n * sizeof(double))};
    for (int pass = -1; pass < (int)maxrun; pass++) { /* -1: every run; k: each cell's k-th run alone */
        size_t m = 0;
        for (size_t i = 0; i < sim->ncells; i++) {
            const st_simcell *c = &sim->cells[i];
            if (strcmp(c->workload, r->workload) || (strcmp(c->kind, "baseline") && strcmp(c->kind, "alloc")))
                continue;
            for (size_t k = 0; k < c->nrun; k++)
                if (pass < 0 || (size_t)pass == k) {
                    x[m] = strcmp(c->kind, "baseline") ? c->run_alloc[k] : 0;
                    y[0][m] = c->run_v[0][k], y[1][m++] = c->run_v[1][k];
                }
        }
        double b, a, b2, a2;
        if (least_squares(x, y[0], m, &b, &a) || least_squares(x, y[1], m, &b2, &a2))
            continue;
        if (pass < 0) {
            r->sim_ir = b, r->sim_cyc = b2;
            r->sim_fixed_ir = a - base->v[SW_SIM_IR];
            r->sim_fixed_cyc = a2 - base->v[SW_SIM_CYCLES];
        } else {
            r->sim_ir_lo = isnan(r->sim_ir_lo) ? b : fmin(r->sim_ir_lo, b);
            r->sim_ir_hi = isnan(r->sim_ir_hi) ? b : fmax(r->sim_ir_hi, b);
        }
    }
    free(x), free(y[0]), free(y[1]);
}

/* The in-process design's runs alternate sampling on and off within one
 * process: a whole run's time is not a blocked-design process-level
 * measurement of its cell. */
static const char *const WHY_INPROCESS =
    "the sweep is of the in-process design (its runs alternate sampling within one "
    "process): the process level (the blocked design) was not run";
static const char *const WHY_SIM_ONLY = "the sweep has no timed runs of the workload (the simulated part alone): the "
                                        "process level was not run";

/* A row of a sweep whose process level was not run: no process-level values. */
static void no_process_level(st_peer_row *r, const char *why) {
    r->process_why = why;
    r->cost_wall = r->cost_cpu = (st_reg_est){NAN, NAN, NAN};
    r->over_32k = r->over_512k = r->over_4m = no_interval();
    if (why != WHY_INPROCESS)
        return;
    /* The note spoke of the process level (the fit's remark, "its overheads
     * are measured"): it says why there is none instead. */
    if (strcmp(r->samples, "counted"))
        snprintf(r->note, sizeof r->note, "%s keeps no count of its samples (its runs report no alloc_samples); %s",
                 r->system, why);
    else
        snprintf(r->note, sizeof r->note, "%s", why);
}

static int design_inprocess(const st_sweep *sw) {
    const char *d = st_sweep_meta(sw, "design");
    return d && !strcmp(d, "inprocess");
}

void st_peers_compute(const st_analysis *an, st_peers *out) {
    memset(out, 0, sizeof *out);
    const st_sweep *sw = an->sweep;
    out->rows = ct_xcalloc(an->nresults ? an->nresults : 1, sizeof *out->rows);
    const st_result **cells = ct_xmalloc((an->nresults ? an->nresults : 1) * sizeof *cells);
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
        r->cells = ct_xmalloc(nc * sizeof *r->cells);
        r->series = ct_xmalloc(nc * sizeof *r->series);
        r->ncells = nc;
        r->over_32k = r->over_512k = r->over_4m = no_interval();
        find_inproc(an, r);
        find_sim(an, r);
        for (size_t k = 0; k < nc; k++) {
            r->cells[k] = cells[k];
            r->series[k] = series_of(r->system, cells, nc, cells[k]);
            if (cells[k]->cell->alloc_period == 32 * 1024)
                r->over_32k = cells[k]->paired;
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
        if (design_inprocess(sw))
            no_process_level(r, WHY_INPROCESS);
    }
    free(cells);
    /* A workload with simulated cells and no timed ones (a sweep of the
     * simulated part alone, --backends sim): a row of its simulated part
     * and, from another sweep (peers-report --inprocess), its in-process
     * part; no process level. */
    for (size_t i = 0; an->sim && i < an->sim->ncells; i++) {
        const st_simcell *c = &an->sim->cells[i];
        if (strcmp(c->kind, "baseline") || !c->nrun)
            continue;
        int dup = 0;
        for (size_t j = 0; j < out->n; j++)
            dup |= !strcmp(out->rows[j].workload, c->workload);
        if (dup)
            continue;
        out->rows = ct_xrealloc(out->rows, (out->n + 1) * sizeof *out->rows);
        st_peer_row *r = &out->rows[out->n];
        memset(r, 0, sizeof *r);
        r->workload = c->workload;
        r->system = system_of(sw, r->workload);
        r->site = site_of(sw, r->system);
        no_process_level(r, WHY_SIM_ONLY);
        find_sim(an, r);
        if (!r->sim_cells)
            continue; /* no simulated allocation cell: nothing to report */
        r->base = base_of(r->workload, r->system);
        find_inproc(an, r);
        int counted_sim = 1;
        for (size_t k = 0; k < an->sim->ncells; k++) {
            const st_simcell *a = &an->sim->cells[k];
            for (size_t j = 0; !strcmp(a->workload, r->workload) && !strcmp(a->kind, "alloc") && j < a->nrun; j++)
                counted_sim &= isfinite(a->run_alloc[j]);
        }
        r->samples = counted_sim ? "counted" : "not counted";
        snprintf(r->note, sizeof r->note,
                 "the sweep has no timed runs of %s (the simulated part alone): no process-level cost or overheads",
                 r->workload);
        out->n++;
    }
    qsort(out->rows, out->n, sizeof *out->rows, row_order);
}

double st_peer_inproc_cost(const st_peer_row *r, int which) {
    if (!r->ip || r->ip->e.blocks.uncounted)
        return NAN;
    const st_interval *c = &r->ip->e.lv_cost_ns;
    if (which && c->method == ST_CI_NONE)
        return NAN;
    return which == 0 ? c->est : which == 1 ? c->lo : c->hi;
}

const char *st_peer_sim_repeat(const st_peer_row *r) {
    return r->sim_exact > 0 ? "exact" : r->sim_exact == 0 ? "not_exact" : "-";
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

/* ---- Implausible sample counts --------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The in-process estimate's cell of label, or NULL (a sweep without segment series). */
static const st_inproc_cell *inproc_cell(const st_analysis *an, const char *label) {
    for (size_t i = 0; an->inproc && i < an->inproc->n; i++)
        if (!strcmp(an->inproc->cells[i].label, label))
            return &an->inproc->cells[i];
    return NULL;
}

size_t st_peers_implausible(const st_analysis *an, st_implausible **out) {
    const st_sweep *sw = an->sweep;
    size_t n = 0;
    *out = ct_xcalloc(an->nresults ? an->nresults : 1, sizeof **out);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        if (r->is_baseline || c->alloc_period <= 0 || !c->nruns)
            continue;
        /* In the in-process design a run samples only in its B segments, so
         * its samples come from those segments' bytes, not from all it
         * allocated (at 32K, 42-44% of it for the peers whose B segments
         * are slowed by their sampling). */
        const st_inproc_cell *ip = inproc_cell(an, c->label);
        if (ip && isfinite(ip->sampled_bytes)) {
            double nm = r->alloc_samples, em = ip->sampled_bytes / (double)c->alloc_period;
            if (isfinite(nm) && em > 0 && (nm < em / 2 - 6 * sqrt(em) || nm > 2 * em + 6 * sqrt(em)))
                (*out)[n++] = (st_implausible){r, nm, em, 1};
            continue;
        }
        double *ns = ct_xmalloc(c->nruns * sizeof *ns), *es = ct_xmalloc(c->nruns * sizeof *es);
        size_t k = 0;
        for (size_t j = 0; j < c->nruns; j++) {
            const st_run *run = &sw->runs[c->first_run + j];
            double samples = run->key[ST_K_alloc_samples], bytes = run->key[ST_K_bytes_allocated];
            if (!run->used || !isfinite(samples) || !(bytes > 0))
                continue;
            ns[k] = samples;
            es[k++] = bytes / (double)c->alloc_period;
        }
        if (k) {
            qsort(ns, k, sizeof *ns, cmp_double);
            qsort(es, k, sizeof *es, cmp_double);
            double nm = k % 2 ? ns[k / 2] : (ns[k / 2 - 1] + ns[k / 2]) / 2;
            double em = k % 2 ? es[k / 2] : (es[k / 2 - 1] + es[k / 2]) / 2;
            if (nm < em / 2 - 6 * sqrt(em) || nm > 2 * em + 6 * sqrt(em))
                (*out)[n++] = (st_implausible){r, nm, em, 0};
        }
        free(ns), free(es);
    }
    return n;
}

/* What E's bytes are: all the run allocated, or its sampled segments'. */
static const char *what_bytes(const st_implausible *x) { return x->segments ? "the sampled segments' bytes" : "bytes"; }

/* "4000 times too few" / "2.5 times too many". */
static void how_far(char *b, size_t len, const st_implausible *x) {
    if (x->samples < x->expected)
        snprintf(b, len, x->samples > 0 ? "%.3g times too few" : "none of them", x->expected / x->samples);
    else
        snprintf(b, len, "%.3g times too many", x->samples / x->expected);
}

void st_peers_write_implausible_md(FILE *f, const st_analysis *an) {
    st_implausible *x;
    size_t n = st_peers_implausible(an, &x);
    if (n) {
        fprintf(f,
                "**Implausible sample counts: %zu allocation cells** took a number of samples per run far from "
                "what their bytes over the period give (outside E/2 - 6 sqrt(E) .. 2E + 6 sqrt(E), E = "
                "bytes_allocated / alloc_period, in the in-process design the bytes of a run's sampled "
                "segments / alloc_period; median over the cell's runs). A count that misses samples "
                "(node --heap-prof keeps only the samples of objects still live) makes every per-sample cost "
                "far too large; check what the system counts (docs/WORKLOADS.md, \"Measuring your own "
                "runtime\"):\n\n",
                n);
        for (size_t i = 0; i < n; i++) {
            char far[64];
            how_far(far, sizeof far, &x[i]);
            const char *sys = system_of(an->sweep, x[i].r->cell->workload);
            fprintf(f, "- %s (system %s): %.0f samples per run where %s / period is %.0f (%s)\n", x[i].r->cell->label,
                    sys, x[i].samples, what_bytes(&x[i]), x[i].expected, far);
        }
        fputc('\n', f);
    }
    free(x);
}

void st_peers_print_implausible(FILE *f, const st_analysis *an) {
    st_implausible *x;
    size_t n = st_peers_implausible(an, &x);
    for (size_t i = 0; i < n; i++) {
        char far[64];
        how_far(far, sizeof far, &x[i]);
        fprintf(f,
                "analyze: warning: %s (system %s): %.0f samples per run where %s / period is %.0f (%s): a count "
                "that misses samples makes the per-sample cost far too large (summary.md)\n",
                x[i].r->cell->label, system_of(an->sweep, x[i].r->cell->workload), x[i].samples, what_bytes(&x[i]),
                x[i].expected, far);
    }
    free(x);
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

/* An interval's three numbers as CSV fields (ratio - 1 as a percentage when pct). */
static void csv_iv(FILE *f, const st_interval *iv, int pct) {
    double k = pct ? 100 : 1, o = pct ? 1 : 0;
    csv_num(f, k * (iv->est - o), pct ? "%.3f" : "%.6g");
    csv_num(f, iv->method == ST_CI_NONE ? NAN : k * (iv->lo - o), pct ? "%.3f" : "%.6g");
    csv_num(f, iv->method == ST_CI_NONE ? NAN : k * (iv->hi - o), pct ? "%.3f" : "%.6g");
}

void st_peers_write_csv(FILE *f, const st_peers *p) {
    fprintf(f, "base,system,workload,check_site,samples,cost_wall_ns,cost_wall_lo,cost_wall_hi,cost_cpu_ns,"
               "cost_cpu_lo,cost_cpu_hi,overhead_512K_pct,overhead_512K_lo,overhead_512K_hi,overhead_4M_pct,"
               "overhead_4M_lo,overhead_4M_hi,note,overhead_32K_pct,overhead_32K_lo,overhead_32K_hi,inproc_period,"
               "inproc_blocks,inproc_runs,inproc_cpu_clock,inproc_samples,inproc_ratio,inproc_ratio_lo,"
               "inproc_ratio_hi,inproc_cost_ns,inproc_cost_lo,inproc_cost_hi,inproc_sps,inproc_aa_half_width_pct,"
               "sim_cells,sim_ir_per_sample,sim_ir_round_lo,sim_ir_round_hi,sim_cycles_per_sample,sim_fixed_ir,"
               "sim_fixed_cycles,sim_ir_spread_pct,sim_exact\n");
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
        csv_num(f, 100 * (r->over_32k.est - 1), "%.3f");
        csv_num(f, 100 * (r->over_32k.lo - 1), "%.3f");
        csv_num(f, 100 * (r->over_32k.hi - 1), "%.3f");
        const st_inproc_cell *x = r->ip;
        if (x) {
            fprintf(f, ",%lld,%zu,%zu", x->alloc_period, x->e.blocks.n, x->e.blocks.runs);
            csv_text(f, x->cpu_clock);
            csv_text(f, x->e.blocks.uncounted ? "not counted" : "counted");
            csv_iv(f, &x->e.lv_ratio, 0);
            csv_iv(f, &x->e.lv_cost_ns, 0);
            csv_num(f, x->e.sps, "%.1f");
        } else {
            fputs(",,,,,,,,,,,,", f); /* the 12 fields above */
        }
        const st_interval *aa = r->ip_aa ? &r->ip_aa->e.lv_ratio : NULL;
        csv_num(f, aa && aa->method != ST_CI_NONE ? (aa->hi - aa->lo) / 2 * 100 : NAN, "%.3f");
        fprintf(f, ",%zu", r->sim_cells);
        csv_num(f, r->sim_ir, "%.1f");
        csv_num(f, r->sim_ir_lo, "%.1f");
        csv_num(f, r->sim_ir_hi, "%.1f");
        csv_num(f, r->sim_cyc, "%.1f");
        csv_num(f, r->sim_fixed_ir, "%.0f");
        csv_num(f, r->sim_fixed_cyc, "%.0f");
        csv_num(f, 100 * r->sim_spread, "%.4f");
        fprintf(f, ",%s\n", r->sim_exact > 0 ? "exact" : r->sim_exact == 0 ? "not repeated" : "");
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

/* A count with thousands separators ("35,512"), or "n/a". */
static const char *grouped(double v, char *b, size_t len) {
    if (!isfinite(v)) {
        snprintf(b, len, "n/a");
        return b;
    }
    char raw[64];
    snprintf(raw, sizeof raw, "%.0f", fabs(v));
    size_t n = strlen(raw), k = 0;
    if (v < 0 && k + 1 < len)
        b[k++] = '-';
    for (size_t i = 0; i < n && k + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            b[k++] = ',';
        b[k++] = raw[i];
    }
    b[k] = '\0';
    return b;
}

static void md_iv(FILE *f, const st_interval *iv, const char *fmt) {
    char b[64];
    snprintf(b, sizeof b, fmt, iv->est);
    fputs(b, f);
    if (iv->method != ST_CI_NONE) {
        fputs(" [", f);
        snprintf(b, sizeof b, fmt, iv->lo);
        fputs(b, f);
        fputs(", ", f);
        snprintf(b, sizeof b, fmt, iv->hi);
        fputs(b, f);
        fputs("]", f);
    }
}

/* A period as the sweep's labels write it: 32K, 512K, 4M, or bytes. */
static void period_text(long long p, char *b, size_t len) {
    if (p >= (1 << 20) && p % (1 << 20) == 0)
        snprintf(b, len, "%lldM", p >> 20);
    else if (p >= 1024 && p % 1024 == 0)
        snprintf(b, len, "%lldK", p >> 10);
    else
        snprintf(b, len, "%lld", p);
}

/* The in-process column: cost per sample with its interval, at its period. */
static void md_inproc(FILE *f, const st_peer_row *r) {
    const st_inproc_cell *x = r->ip;
    char per[32];
    if (!x) {
        fputs(" n/a |", f);
        return;
    }
    period_text(x->alloc_period, per, sizeof per);
    fputc(' ', f);
    if (x->e.blocks.uncounted) {
        fputs("not counted (ratio ", f);
        md_iv(f, &x->e.lv_ratio, "%.3f");
        fputc(')', f);
    } else {
        md_iv(f, &x->e.lv_cost_ns, "%.0f");
    }
    fprintf(f, " at %s, %zu blocks, %s CPU |", per, x->e.blocks.n, x->cpu_clock[0] ? x->cpu_clock : "thread");
}

/* The simulated column: instructions per sample, its repeat spread. */
static void md_sim(FILE *f, const st_peer_row *r) {
    char b[32], b2[32], b3[32];
    if (!r->sim_cells) {
        fputs(" n/a |", f);
        return;
    }
    if (!isfinite(r->sim_ir)) {
        fputs(strcmp(r->samples, "counted") ? " not counted |" : " n/a |", f);
        return;
    }
    fprintf(f, " %s", grouped(r->sim_ir, b, sizeof b));
    if (r->sim_exact > 0)
        fputs(" (exact", f);
    else if (r->sim_exact == 0)
        fprintf(f, " (not exact: rounds %s to %s, runs %.2g%% apart", grouped(r->sim_ir_lo, b2, sizeof b2),
                grouped(r->sim_ir_hi, b3, sizeof b3), 100 * r->sim_spread);
    else
        fputs(" (one run per cell: repetition not checked", f);
    fprintf(f, "; fixed %s) |", grouped(r->sim_fixed_ir, b, sizeof b));
}

/* The process-level columns (per-sample cost, the three overheads): "not
 * measured" each when the row's process level was not run. */
static void md_process(FILE *f, const st_peer_row *r) {
    if (r->process_why) {
        fputs(" not measured | not measured | not measured | not measured |", f);
        return;
    }
    if (strcmp(r->samples, "counted"))
        fputs(" none: no sample count |", f);
    else
        md_est(f, r->cost_cpu.est, r->cost_cpu.lo, r->cost_cpu.hi, 1, "%.0f");
    md_est(f, r->over_32k.est - 1, r->over_32k.lo - 1, r->over_32k.hi - 1, 100, "%.2f");
    md_est(f, r->over_512k.est - 1, r->over_512k.lo - 1, r->over_512k.hi - 1, 100, "%.2f");
    md_est(f, r->over_4m.est - 1, r->over_4m.lo - 1, r->over_4m.hi - 1, 100, "%.2f");
}

void st_peers_write_md(FILE *f, const st_analysis *an, const st_peers *p, double confidence, const char *inproc_dir) {
    const st_sweep *sw = an->sweep;
    fprintf(f, "# Allocation samplers side by side\n\n");
    fprintf(f,
            "Sweep %s%s%s. Load average at the start %s, at the end %s. Each system runs the same work "
            "(freecheck's workload of the row's name, on its own runtime); the systems are grouped by the "
            "workload's name without its \"-<system>\" suffix.\n\n",
            sw->dir, an->inproc && an->inproc->n ? "; in-process estimates from " : "",
            an->inproc && an->inproc->n ? (inproc_dir ? inproc_dir : sw->dir) : "",
            st_sweep_meta(sw, "loadavg_start") ?: "unknown", st_sweep_meta(sw, "loadavg_end") ?: "unknown");
    fprintf(f,
            "- **In-process** (the in-process design, docs/STATISTICS.md \"In-process alternation\"): the "
            "per-sample cost in ns of CPU time from the segments of the row's allocation cell at its "
            "smallest period, with its %.0f%% interval at the cell's level (over its processes when it has "
            "several, docs/STATISTICS.md \"Levels\"), its period, "
            "blocks and CPU clock (the workload thread's, or the whole process's for a runtime with threads "
            "of its own), and the A/A floor (the baseline cell's half-width).\n"
            "- **Simulated** (the simulated part, docs/HARNESS.md): instructions per sample under valgrind's "
            "cachegrind, the slope of each run's instructions on its samples over the baseline and the "
            "allocation cells, the fixed cost (turning sampling on) apart; exact when every cell's runs "
            "repeated every count, otherwise the slope of each round's runs alone and how far apart the "
            "runs of one cell were (never called exact).\n"
            "- **Process level** (the blocked design): the per-sample cost by regression of each run's CPU "
            "time on its sample count over the periods (Theil-Sen, %.0f%% bootstrap interval over runs), "
            "and the overhead: the paired wall-time ratio of the cell's runs to their adjacent baseline "
            "runs, minus 1 (%.0f%% interval over pairs).\n\n",
            100 * confidence, 100 * confidence, 100 * confidence);
    fprintf(f, "| workload | system | where the sample check lives | samples | ns per sample, in-process (CPU) | "
               "in-process A/A half-width | instructions per sample (simulated) | ns per sample, process level "
               "(CPU) | overhead at 32 KiB, process level, %% | overhead at 512 KiB, process level, %% | overhead at 4 "
               "MiB, process level, %% |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < p->n; i++) {
        const st_peer_row *r = &p->rows[i];
        fprintf(f, "| %s | %s | %s | %s |", r->base, r->system, r->site, r->samples);
        /* A level no sweep of the report ran: its columns "not measured". */
        int no_ip = !an->inproc || !an->inproc->n, no_sim = !an->sim || !an->sim->ncells;
        if (no_ip)
            fputs(" not measured | not measured |", f);
        else {
            md_inproc(f, r);
            const st_interval *aa = r->ip_aa ? &r->ip_aa->e.lv_ratio : NULL;
            if (aa && aa->method != ST_CI_NONE)
                fprintf(f, " %.2f%% (%zu blocks) |", (aa->hi - aa->lo) / 2 * 100, r->ip_aa->e.blocks.n);
            else
                fputs(" n/a |", f);
        }
        if (no_sim)
            fputs(" not measured |", f);
        else
            md_sim(f, r);
        md_process(f, r);
        fputc('\n', f);
    }
    fputs("\n\"n/a\": that part was not run for the row (no in-process or simulated cells of its workload), or "
          "its estimate is not defined. \"not measured\": that level was not run at all (no segment series for "
          "the in-process columns, no simulated cells for the simulated one, no blocked-design runs of the row for "
          "the process-level ones, the note saying why), so the column has no estimate, and none is taken from the "
          "runs of another level. Wall-time per-sample costs: peers.csv.\n",
          f);
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

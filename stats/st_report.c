/* st_report.c - summary.csv, metrics.csv, summary.md and the plot data files of an analysis. */
#include "st_report.h"
#include "st_fmt.h"
#include "st_json.h"
#include "st_inproc.h"
#include "st_normdiff.h"
#include "st_peers.h"
#include "st_costfit.h"
#include "st_preport.h"
#include "st_plotdata.h"
#include "st_sim.h"
#include "st_util.h"
#include "../contracts/ct_out.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static double lo_of(const st_interval *iv) { return iv->method == ST_CI_NONE ? NAN : iv->lo; }
static double hi_of(const st_interval *iv) { return iv->method == ST_CI_NONE ? NAN : iv->hi; }

/* ---- Selection helpers ------------------------------------------------- */

/* Cells of the period and rate matrix.  Depth cells (deepstack run at several
 * --depth) are a separate experiment: they go to depth.dat and the
 * per-workload tables, never into the per-period and per-rate figures and
 * headlines, where they would stand as extra copies of one workload. */
static int in_matrix(const st_result *r) { return isnan(r->cell->depth); }
static int is_kind(const st_result *r, const char *kind) { return strcmp(r->cell->kind, kind) == 0 && in_matrix(r); }

/* The verdict for people ("allocation cheaper", "equivalent within 2%", ...). */
static const char *normcmp_text(const st_normcmp *c, double margin, char *b, size_t size) {
    switch (c->res) {
    case ST_NR_ALLOC: snprintf(b, size, "allocation cheaper"); break;
    case ST_NR_TIME: snprintf(b, size, "time cheaper"); break;
    case ST_NR_EQUIVALENT: snprintf(b, size, "equivalent within %g%%", margin * 100); break;
    case ST_NR_UNRESOLVED: snprintf(b, size, "not resolved"); break;
    default: snprintf(b, size, "n/a"); break;
    }
    return b;
}

/* The distinct workloads, in report order (results are sorted by workload). */
static size_t workloads(const st_analysis *an, const char ***out) {
    const char **w = ct_xmalloc((an->nresults ? an->nresults : 1) * sizeof *w);
    size_t n = 0;
    for (size_t i = 0; i < an->nresults; i++)
        if (n == 0 || strcmp(w[n - 1], an->results[i].cell->workload))
            w[n++] = an->results[i].cell->workload;
    *out = w;
    return n;
}

static const st_run *cell_run(const st_analysis *an, const st_cell *c, size_t i) {
    return &an->sweep->runs[c->first_run + i];
}

/* ---- Rows of fields (summary.csv, plot data) ---------------------------- */

/* One row being written: fields separated by sep; text through text() (which
 * keeps the separator out of it), a missing number as `missing`. */
typedef struct row_out {
    FILE *f;
    char sep;
    const char *missing;
    void (*text)(FILE *, const char *);
    int first;
} row_out;

static void out_sep(row_out *o) {
    if (!o->first)
        fputc(o->sep, o->f);
    o->first = 0;
}
static void out_text(row_out *o, const char *s) {
    out_sep(o);
    o->text(o->f, s);
}
static void out_INT(row_out *o, long long v) {
    out_sep(o);
    fprintf(o->f, "%lld", v);
}
static void out_num(row_out *o, double v, int digits) {
    out_sep(o);
    fputs(st_fmt_num(st_fmt_buf(), v, digits, o->missing), o->f);
}
/* For people and plots alike: st_fmt_human()'s form (whole numbers from 10^digits up). */
static void out_hum(row_out *o, double v, int digits) {
    out_sep(o);
    if (!isfinite(v)) {
        fputs(o->missing, o->f);
        return;
    }
    char *b = st_fmt_buf();
    st_fmt_human(b, ST_FMT_BUFLEN, v, digits);
    fputs(b, o->f);
}

/* ---- summary.csv ------------------------------------------------------- */

/* summary.csv's columns, one row per cell (docs/STATISTICS.md): the only
 * place a column's name, format and value are written; the header and every
 * row come from it.  COL(name, TYPE, value): TYPE TEXT (commas and line
 * breaks replaced), INT (an integer) or Gn (a number with n significant
 * digits, empty when missing); value is computed for the result r of cell
 * c, with the analysis an.  A new column goes at the end. */
#define ST_SUMMARY_COLUMNS(COL)                                                                                  \
    COL(workload, TEXT, c->workload)                                                                             \
    COL(label, TEXT, c->label)                                                                                   \
    COL(kind, TEXT, c->kind)                                                                                     \
    COL(alloc_mode, TEXT, c->alloc_mode)                                                                         \
    COL(alloc_period, INT, c->alloc_period)                                                                      \
    COL(time_hz, INT, c->time_hz)                                                                                \
    COL(time_clock, TEXT, c->time_clock)                                                                         \
    COL(size, INT, c->size)                                                                                      \
    COL(baseline, TEXT, r->baseline ? r->baseline->label : "")                                                   \
    COL(runs, INT, r->runs)                                                                                      \
    COL(runs_failed, INT, r->failed)                                                                             \
    COL(baseline_runs, INT, r->baseline_runs)                                                                    \
    COL(wall_median_ns, G12, r->wall.median)                                                                     \
    COL(wall_q1_ns, G12, r->wall.q1)                                                                             \
    COL(wall_q3_ns, G12, r->wall.q3)                                                                             \
    COL(wall_mad_ns, G12, r->wall.mad)                                                                           \
    COL(wall_outliers, INT, r->wall.outliers)                                                                    \
    COL(cpu_source, TEXT, r->cpu_task_clock ? "task-clock" : "user+sys")                                         \
    COL(cpu_median_ns, G12, r->cpu.median)                                                                       \
    COL(cpu_q1_ns, G12, r->cpu.q1)                                                                               \
    COL(cpu_q3_ns, G12, r->cpu.q3)                                                                               \
    COL(cpu_mad_ns, G12, r->cpu.mad)                                                                             \
    COL(cpu_outliers, INT, r->cpu.outliers)                                                                      \
    COL(overhead, G6, r->overhead.est)                                                                           \
    COL(overhead_lo, G6, lo_of(&r->overhead))                                                                    \
    COL(overhead_hi, G6, hi_of(&r->overhead))                                                                    \
    COL(overhead_ci, TEXT, st_ci_name(r->overhead.method))                                                       \
    COL(cpu_overhead, G6, r->cpu_overhead.est)                                                                   \
    COL(cpu_overhead_lo, G6, lo_of(&r->cpu_overhead))                                                            \
    COL(cpu_overhead_hi, G6, hi_of(&r->cpu_overhead))                                                            \
    COL(cpu_overhead_ci, TEXT, st_ci_name(r->cpu_overhead.method))                                               \
    COL(alloc_samples, G12, r->alloc_samples)                                                                    \
    COL(alloc_sample_points, G12, r->alloc_points)                                                               \
    COL(time_samples, G12, r->time_samples)                                                                      \
    COL(alloc_sps, G6, r->alloc_sps.est)                                                                         \
    COL(alloc_sps_lo, G6, lo_of(&r->alloc_sps))                                                                  \
    COL(alloc_sps_hi, G6, hi_of(&r->alloc_sps))                                                                  \
    COL(alloc_sps_ci, TEXT, st_ci_name(r->alloc_sps.method))                                                     \
    COL(time_sps, G6, r->time_sps.est)                                                                           \
    COL(time_sps_lo, G6, lo_of(&r->time_sps))                                                                    \
    COL(time_sps_hi, G6, hi_of(&r->time_sps))                                                                    \
    COL(time_sps_ci, TEXT, st_ci_name(r->time_sps.method))                                                       \
    COL(time_hz_achieved, G6, r->hz_achieved)                                                                    \
    COL(sps, G6, r->sps.est)                                                                                     \
    COL(norm_overhead, G6, r->norm.est)                                                                          \
    COL(norm_overhead_lo, G6, lo_of(&r->norm))                                                                   \
    COL(norm_overhead_hi, G6, hi_of(&r->norm))                                                                   \
    COL(norm_overhead_ci, TEXT, st_ci_name(r->norm.method))                                                      \
    COL(sample_cost_us, G6, r->cost.est)                                                                         \
    COL(sample_cost_us_lo, G6, lo_of(&r->cost))                                                                  \
    COL(sample_cost_us_hi, G6, hi_of(&r->cost))                                                                  \
    COL(sample_cost_ci, TEXT, st_ci_name(r->cost.method))                                                        \
    COL(mw_u, G10, r->mw.u)                                                                                      \
    COL(mw_p, G4, r->mw.p)                                                                                       \
    COL(mw_method, TEXT, isnan(r->mw.p) ? "" : r->mw.exact ? "exact" : "normal")                                 \
    COL(verdict, TEXT, r->verdict)                                                                               \
    COL(exact_checked, INT, r->exact_checked)                                                                    \
    COL(exact_mismatches, INT, r->exact_mismatches)                                                              \
    COL(samples_ratio, G8, r->samples_ratio)                                                                     \
    COL(bytes_allocated, G12, r->bytes_allocated)                                                                \
    COL(gc_ns, G12, r->gc_ns)                                                                                    \
    COL(aa_ratio, G6, r->is_baseline ? r->aa.est : NAN)                                                          \
    COL(aa_lo, G6, r->is_baseline ? lo_of(&r->aa) : NAN)                                                         \
    COL(aa_hi, G6, r->is_baseline ? hi_of(&r->aa) : NAN)                                                         \
    COL(aa_ci, TEXT, r->is_baseline ? st_ci_name(r->aa.method) : "")                                             \
    COL(aa_floor, G4, r->is_baseline ? r->aa_floor : NAN)                                                        \
    COL(depth, G10, c->depth)                                                                                    \
    COL(note, TEXT, r->note)                                                                                     \
    COL(pairs, INT, r->pairs)                                                                                    \
    COL(paired, G6, r->paired.est)                                                                               \
    COL(paired_lo, G6, lo_of(&r->paired))                                                                        \
    COL(paired_hi, G6, hi_of(&r->paired))                                                                        \
    COL(paired_ci, TEXT, st_ci_name(r->paired.method))                                                           \
    COL(paired_verdict, TEXT, r->is_baseline ? "" : st_verdict_text(r->pverdict, an->margin, v, sizeof v))       \
    COL(paired_cpu, G6, r->paired_cpu.est)                                                                       \
    COL(paired_cpu_lo, G6, lo_of(&r->paired_cpu))                                                                \
    COL(paired_cpu_hi, G6, hi_of(&r->paired_cpu))                                                                \
    COL(paired_norm, G6, r->paired_norm.est)                                                                     \
    COL(paired_norm_lo, G6, lo_of(&r->paired_norm))                                                              \
    COL(paired_norm_hi, G6, hi_of(&r->paired_norm))                                                              \
    COL(paired_cost_us, G6, r->paired_cost.est)                                                                  \
    COL(paired_cost_us_lo, G6, lo_of(&r->paired_cost))                                                           \
    COL(paired_cost_us_hi, G6, hi_of(&r->paired_cost))                                                           \
    COL(paired_floor, G4, r->paired_floor)                                                                       \
    COL(replicates, INT, r->replicates)                                                                          \
    COL(overhead_level, TEXT, r->is_baseline ? "" : st_level_name(r->overhead_level))                            \
    COL(paired_level, TEXT, r->pairs ? st_level_name(r->paired_level) : "")                                      \
    COL(rep_overhead_tau, G4, r->rep_overhead_tau)                                                               \
    COL(rep_overhead_tau_family, G4, r->rep_overhead_tau_family)                                                 \
    COL(rep_overhead_within, G4, r->rep_overhead_within)                                                         \
    COL(rep_paired_tau, G4, r->rep_paired_tau)                                                                   \
    COL(rep_paired_tau_family, G4, r->rep_paired_tau_family)                                                     \
    COL(rep_paired_within, G4, r->rep_paired_within)                                                             \
    COL(family_size, INT, r->family_size)                                                                        \
    COL(paired_sim_lo, G6, r->sim_lo)                                                                            \
    COL(paired_sim_hi, G6, r->sim_hi)                                                                            \
    COL(family_verdict, TEXT, r->family_size ? st_verdict_text(r->family_verdict, an->margin, v, sizeof v) : "") \
    COL(rep_overhead_tau_used, G4, r->rep_overhead_tau_used)                                                     \
    COL(rep_overhead_tau_lo, G4, r->rep_overhead_tau_lo)                                                         \
    COL(rep_overhead_tau_hi, G4, r->rep_overhead_tau_hi)                                                         \
    COL(rep_paired_tau_used, G4, r->rep_paired_tau_used)                                                         \
    COL(rep_paired_tau_lo, G4, r->rep_paired_tau_lo)                                                             \
    COL(rep_paired_tau_hi, G4, r->rep_paired_tau_hi)                                                             \
    COL(adaptive_rounds, INT, r->adaptive_rounds)                                                                \
    COL(paired_rule, TEXT, an->blocks ? st_paired_rule_name(an->rule) : "")                                      \
    COL(time_mode, TEXT, c->time_mode)                                                                           \
    COL(paired_se, G6, r->paired_se)

/* summary.csv's field types (the row writer is shared with the plot data). */
#define out_TEXT(o, v) out_text(o, v)
#define out_G4(o, v) out_num(o, v, 4)
#define out_G6(o, v) out_num(o, v, 6)
#define out_G8(o, v) out_num(o, v, 8)
#define out_G10(o, v) out_num(o, v, 10)
#define out_G12(o, v) out_num(o, v, 12)

static void write_summary_csv(FILE *f, const st_analysis *an, const st_report_opts *o) {
    fprintf(f, "# analyze seed=%llu resamples=%zu confidence=%g\n", (unsigned long long)o->seed, o->resamples,
            o->confidence);
#define HEADER(name, type, value) "," #name
    fprintf(f, "%s\n", ST_SUMMARY_COLUMNS(HEADER) + 1);
#undef HEADER
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        char v[64]; /* room for a column's text */
        row_out o = {f, ',', "", st_fmt_csv_text, 1};
#define FIELD(name, type, value) out_##type(&o, value);
        ST_SUMMARY_COLUMNS(FIELD)
#undef FIELD
        fputc('\n', f);
    }
}

/* ---- summary.json ------------------------------------------------------ */

/* The same table as summary.csv (ST_SUMMARY_COLUMNS), as JSON: a column is
 * a number unless its type is TEXT; numbers are written with summary.csv's
 * digits (null when missing), units come from st_json_unit. */
static void json_sep(FILE *f, int *first, const char *name) {
    fputs(*first ? "" : ", ", f);
    *first = 0;
    ct_json_str(f, name);
    fputs(": ", f);
}
static void json_TEXT(FILE *f, int *first, const char *name, const char *s) {
    json_sep(f, first, name);
    ct_json_str(f, s);
}
static void json_INT(FILE *f, int *first, const char *name, long long v) {
    json_sep(f, first, name);
    fprintf(f, "%lld", v);
}
static void json_num(FILE *f, int *first, const char *name, double v, int digits) {
    json_sep(f, first, name);
    const char *t = st_fmt_csv(v, digits);
    fputs(*t ? t : "null", f);
}
#define json_G4(f, first, name, v) json_num(f, first, name, v, 4)
#define json_G6(f, first, name, v) json_num(f, first, name, v, 6)
#define json_G8(f, first, name, v) json_num(f, first, name, v, 8)
#define json_G10(f, first, name, v) json_num(f, first, name, v, 10)
#define json_G12(f, first, name, v) json_num(f, first, name, v, 12)

static void write_summary_json(FILE *f, const st_analysis *an, const st_report_opts *o) {
    fprintf(f,
            "{\n  \"format\": \"freecheck-summary-1\",\n  \"seed\": %llu,\n  \"resamples\": %zu,\n"
            "  \"confidence\": %g,\n  \"columns\": [",
            (unsigned long long)o->seed, o->resamples, o->confidence);
    int col = 0;
#define COLUMN(name, type, value)                                                                      \
    {                                                                                                  \
        int text = strcmp(#type, "TEXT") == 0;                                                         \
        const char *unit = text ? NULL : st_json_unit(#name);                                          \
        fprintf(f, "%s\n    {\"name\": \"%s\", \"type\": \"%s\", \"unit\": ", col++ ? "," : "", #name, \
                text ? "text" : "number");                                                             \
        if (unit)                                                                                      \
            ct_json_str(f, unit);                                                                      \
        else                                                                                           \
            fputs("null", f);                                                                          \
        fputc('}', f);                                                                                 \
    }
    ST_SUMMARY_COLUMNS(COLUMN)
#undef COLUMN
    fputs("\n  ],\n  \"cells\": [", f);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        char v[64]; /* room for a column's text */
        int first = 1;
        fputs(i ? ",\n    {" : "\n    {", f);
#define FIELD(name, type, value) json_##type(f, &first, #name, value);
        ST_SUMMARY_COLUMNS(FIELD)
#undef FIELD
        fputc('}', f);
    }
    fputs(an->nresults ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* ---- metrics.csv ------------------------------------------------------- */

static void metric_row(FILE *f, const st_cell *c, const char *metric, const double *v, size_t n) {
    st_desc d;
    st_describe(v, n, &d);
    st_fmt_csv_text(f, c->workload);
    fputc(',', f);
    st_fmt_csv_text(f, c->label);
    fputc(',', f);
    st_fmt_csv_text(f, metric);
    fprintf(f, ",%zu,%s,%s,%s,%s,%s,%s,%zu\n", d.n, st_fmt_csv(d.median, 12), st_fmt_csv(d.q1, 12),
            st_fmt_csv(d.q3, 12), st_fmt_csv(d.mad, 12), st_fmt_csv(d.min, 12), st_fmt_csv(d.max, 12), d.outliers);
}

static void write_metrics_csv(FILE *f, const st_analysis *an) {
    const st_sweep *sw = an->sweep;
    fputs("workload,label,metric,n,median,q1,q3,mad,min,max,outliers\n", f);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_cell *c = an->results[i].cell;
        double *v = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *v);
        static const char *const names[5] = {"wall_ns", "user_ns", "sys_ns", "maxrss_kb", "gc_ns"};
        for (int m = 0; m < 5 + (int)sw->nevents; m++) {
            size_t n = 0;
            for (size_t k = 0; k < c->nruns; k++) {
                const st_run *run = cell_run(an, c, k);
                if (!run->used)
                    continue;
                double x;
                switch (m) {
                case 0: x = run->wall_ns; break;
                case 1: x = run->user_ns; break;
                case 2: x = run->sys_ns; break;
                case 3: x = run->maxrss_kb; break;
                case 4: x = run->key[ST_K_gc_ns]; break;
                default: x = sw->counter[(size_t)(run - sw->runs) * sw->nevents + (size_t)(m - 5)];
                }
                v[n++] = x;
            }
            metric_row(f, c, m < 5 ? names[m] : sw->events[m - 5], v, n);
        }
        free(v);
    }
    st_sim_write_metrics(f, an->sim);
}

/* ---- plot data --------------------------------------------------------- */

/* Starts the group of workload w in a .dat file: two blank lines between
 * workloads, one between sub-series of the same workload. */
typedef struct grouping {
    const char *workload; /* current group, NULL before the first row */
    char series[96];      /* current sub-series key */
} grouping;

static void group(FILE *f, grouping *g, const char *workload, const char *series) {
    if (g->workload && strcmp(g->workload, workload))
        fputs("\n\n", f);
    else if (g->workload && strcmp(g->series, series))
        fputc('\n', f);
    g->workload = workload;
    snprintf(g->series, sizeof g->series, "%s", series);
}

/* One row of a plot data file: what the column values of st_plotdata.h
 * are computed from. */
typedef struct st_pd_row {
    const st_analysis *an;
    const st_result *r;       /* the row's cell */
    const st_cell *c;         /* r->cell */
    const st_run *run;        /* per-run files: the run */
    size_t index;             /* per-workload files: the workload's index ... */
    const char *workload;     /* ... and name */
    const st_result *a, *t;   /* normalized.dat: the cells picked (or NULL) ... */
    const st_normcmp *cmp;    /* ... and their comparison */
    const st_inproc_cell *ip; /* inprocess.dat: the cell */
    const st_costfit *fit;    /* regress.dat: the fit ... */
    size_t k;                 /* ... and its cell (0: the baseline, k: cells[k - 1]) */
    const st_simcell *sc;     /* sim_*.dat: the simulated cell (or NULL) */
    double v;                 /* sim_normalized.dat: time sampling's modelled value */
    int64_t period;           /* sim_compare.dat: the period */
    const st_peer_row *peer;  /* peers.dat: the report's row ... */
    const char *series;       /* ... and the cell's line in figure 8 */
} st_pd_row;

/* peers.dat: a ratio as a percentage above 1. */
static double pct_of(double ratio) { return 100 * (ratio - 1); }

/* regress.dat: the cell's median samples and y, the line at its samples (the
 * baseline's median for the baseline), and the per-cell ratio cost (wall
 * time fits only; which: 0 estimate, 1 lower, 2 upper end). */
static double fit_x(const st_pd_row *x) { return x->k ? x->fit->cell_x[x->k - 1] : 0; }
static double fit_y(const st_pd_row *x) { return x->k ? x->fit->cell_y[x->k - 1] : x->fit->fit.base.est; }
static double fit_fitted(const st_pd_row *x) {
    const st_reg_fit *r = &x->fit->fit;
    return x->k ? r->intercept.est + r->cost.est * fit_x(x) : r->base.est;
}
static double fit_cell_cost(const st_pd_row *x, int which) {
    if (!x->k || x->fit->metric != ST_FIT_WALL)
        return NAN;
    const st_interval *pc = &x->fit->cells[x->k - 1]->cost;
    if (which && pc->method == ST_CI_NONE)
        return NAN;
    return which == 0 ? pc->est : which == 1 ? pc->lo : pc->hi;
}

/* inprocess.dat: the interval's half-width in % of the ratio (NaN without one). */
static double ip_half_width(const st_inproc_cell *c) {
    return c->e.lv_ratio.method == ST_CI_NONE ? NAN : (c->e.lv_ratio.hi - c->e.lv_ratio.lo) / 2 * 100;
}

/* inprocess.dat: the verdict at the margin ("no effect above 2%" becomes one word in the file). */
static const char *ip_verdict(const st_pd_row *x) {
    static char b[64];
    return st_verdict_text(st_paired_verdict(&x->ip->e.lv_ratio, x->an->margin), x->an->margin, b, sizeof b);
}

/* exactness.dat: bytes / period, with the period the run itself reported. */
static double exact_expected(const st_pd_row *x) {
    double P = x->run->key[ST_K_alloc_period];
    if (!(P > 0))
        P = (double)x->c->alloc_period;
    return P > 0 ? x->run->key[ST_K_sampled_bytes] / P : NAN;
}

/* exactness.dat: 1 if a fixed-mode run took exactly floor(expected) sample
 * points, 0 if not, NaN if that is not defined (poisson, values missing). */
static double exact_match(const st_pd_row *x) {
    double expected = exact_expected(x), pts = x->run->key[ST_K_alloc_sample_points];
    if (!st_cell_fixed(x->c) || !isfinite(expected) || !isfinite(pts))
        return NAN;
    return pts == floor(expected) ? 1.0 : 0.0;
}

/* depth.dat: the median samples per run of the samplers the cell turns on. */
static double depth_samples(const st_result *r) {
    return (r->samples_alloc ? r->alloc_samples : 0) + (r->samples_time ? r->time_samples : 0);
}

/* The plot data's field types (st_plotdata.h). */
#define out_WORD(o, v) out_text(o, v)
#define out_NUM1(o, v) out_num(o, v, 1)
#define out_NUM4(o, v) out_num(o, v, 4)
#define out_NUM6(o, v) out_num(o, v, 6)
#define out_HUM6(o, v) out_hum(o, v, 6)
#define out_NUM8(o, v) out_num(o, v, 8)
#define out_NUM10(o, v) out_num(o, v, 10)
#define out_NUM12(o, v) out_num(o, v, 12)
#define out_NUM15(o, v) out_num(o, v, 15)

/* Writes row x of file pf: its columns in table order. */
static void put_row(FILE *f, st_plotfile pf, const st_pd_row *x) {
    row_out o = {f, ' ', "NaN", st_fmt_dat_word, 1};
    switch (pf) {
#define PD_COL(name, type, value) out_##type(&o, value);
#define PD_FILE(name, what, cols) \
    case ST_PD_##name: cols break;
        ST_PLOTDATA_FILES(PD_FILE, PD_COL)
#undef PD_FILE
#undef PD_COL
    case ST_PD_NFILES: break;
    }
    fputc('\n', f);
}

static void write_workloads_dat(FILE *f, const char **w, size_t nw) {
    for (size_t i = 0; i < nw; i++)
        put_row(f, ST_PD_workloads, &(st_pd_row){.index = i, .workload = w[i]});
}

static void write_runs_dat(FILE *f, const st_analysis *an, int time) {
    grouping g = {0};
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        if (!is_kind(r, time ? "time" : "alloc"))
            continue;
        for (size_t k = 0; k < c->nruns; k++) {
            const st_run *run = cell_run(an, c, k);
            if (!run->used)
                continue;
            group(f, &g, c->workload, time ? c->time_clock : c->alloc_mode);
            put_row(f, time ? ST_PD_time_runs : ST_PD_alloc_runs, &(st_pd_row){.an = an, .r = r, .c = c, .run = run});
        }
    }
}

static void write_baseline_runs_dat(FILE *f, const st_analysis *an) {
    grouping g = {0};
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (!r->is_baseline || !in_matrix(r))
            continue;
        for (size_t k = 0; k < r->cell->nruns; k++) {
            const st_run *run = cell_run(an, r->cell, k);
            if (!run->used)
                continue;
            group(f, &g, r->cell->workload, r->cell->label);
            put_row(f, ST_PD_baseline_runs, &(st_pd_row){.an = an, .r = r, .c = r->cell, .run = run});
        }
    }
}

static void write_cells_dat(FILE *f, const st_analysis *an, int time) {
    grouping g = {0};
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        if (!is_kind(r, time ? "time" : "alloc"))
            continue;
        group(f, &g, c->workload, time ? c->time_clock : c->alloc_mode);
        put_row(f, time ? ST_PD_time_cells : ST_PD_alloc_cells, &(st_pd_row){.an = an, .r = r, .c = c});
    }
}

static void write_normalized_dat(FILE *f, const st_analysis *an, const char **w, size_t nw) {
    nw = st_normdiff_keys(an, &w, nw); /* one comparison per time sampler's mode */
    int first = 1;
    for (size_t i = 0; i < nw; i++) {
        st_normcmp cmp;
        st_normcmp_make(an, w[i], &cmp);
        if (!cmp.a && !cmp.t)
            continue;
        if (!first)
            fputs("\n\n", f);
        first = 0;
        put_row(f, ST_PD_normalized,
                &(st_pd_row){.an = an, .index = i, .workload = w[i], .a = cmp.a, .t = cmp.t, .cmp = &cmp});
    }
}

static void write_exactness_dat(FILE *f, const st_analysis *an) {
    grouping g = {0};
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        if (!r->samples_alloc)
            continue;
        for (size_t k = 0; k < c->nruns; k++) {
            const st_run *run = cell_run(an, c, k);
            if (!run->used)
                continue;
            group(f, &g, c->workload, c->alloc_mode);
            put_row(f, ST_PD_exactness, &(st_pd_row){.an = an, .r = r, .c = c, .run = run});
        }
    }
}

static int depth_row_wanted(const st_analysis *an, const st_result *r) {
    if (r->is_baseline || !(r->samples_alloc || r->samples_time))
        return 0;
    if (an->sweep->has_depth)
        return !isnan(r->cell->depth);
    return strncmp(r->cell->workload, "deepstack", 9) == 0;
}

typedef struct depth_ref {
    const st_result *r;
} depth_ref;

static int cmp_depth(const void *a, const void *b) {
    const st_cell *x = ((const depth_ref *)a)->r->cell, *y = ((const depth_ref *)b)->r->cell;
    int c = strcmp(x->workload, y->workload);
    if (c)
        return c;
    c = st_kind_rank(x->kind) - st_kind_rank(y->kind);
    if (c)
        return c;
    c = strcmp(x->alloc_mode, y->alloc_mode);
    if (c)
        return c;
    if (x->alloc_period != y->alloc_period)
        return x->alloc_period < y->alloc_period ? -1 : 1;
    if (x->time_hz != y->time_hz)
        return x->time_hz < y->time_hz ? -1 : 1;
    if (x->depth != y->depth && !(isnan(x->depth) || isnan(y->depth)))
        return x->depth < y->depth ? -1 : 1;
    return strcmp(x->label, y->label);
}

static void write_depth_dat(FILE *f, const st_analysis *an) {
    depth_ref *refs = ct_xmalloc((an->nresults ? an->nresults : 1) * sizeof *refs);
    size_t n = 0;
    for (size_t i = 0; i < an->nresults; i++)
        if (depth_row_wanted(an, &an->results[i]))
            refs[n++].r = &an->results[i];
    qsort(refs, n, sizeof *refs, cmp_depth);
    grouping g = {0};
    for (size_t i = 0; i < n; i++) {
        const st_result *r = refs[i].r;
        const st_cell *c = r->cell;
        char series[96];
        snprintf(series, sizeof series, "%s/%s/%lld/%lld", c->kind, c->alloc_mode, (long long)c->alloc_period,
                 (long long)c->time_hz);
        group(f, &g, c->workload, series);
        put_row(f, ST_PD_depth, &(st_pd_row){.an = an, .r = r, .c = c});
    }
    free(refs);
}

/* The in-process cells, grouped by workload in report order, cell order within. */
static void write_inprocess_dat(FILE *f, const st_analysis *an, const char **w, size_t nw) {
    grouping g = {0};
    size_t row = 0;
    for (size_t i = 0; i < nw && an->inproc; i++)
        for (size_t k = 0; k < an->inproc->n; k++) {
            const st_inproc_cell *c = &an->inproc->cells[k];
            if (strcmp(c->workload, w[i]))
                continue;
            group(f, &g, c->workload, c->workload);
            put_row(f, ST_PD_inprocess, &(st_pd_row){.an = an, .index = row++, .ip = c});
        }
}

/* One block per fit: the baseline's row, then one per cell; fits of one
 * workload separated by one blank line, workloads by two. */
static void write_regress_dat(FILE *f, const st_analysis *an) {
    const char *prev = NULL;
    for (size_t i = 0; an->fits && i < an->fits->n; i++) {
        const st_costfit *c = &an->fits->fits[i];
        if (prev && strcmp(prev, c->workload))
            fputs("\n\n", f);
        else if (prev)
            fputc('\n', f);
        prev = c->workload;
        for (size_t k = 0; k <= c->ncells; k++)
            put_row(f, ST_PD_regress, &(st_pd_row){.an = an, .fit = c, .k = k});
    }
}

/* The mode of workload w's simulated allocation cells in sim_alloc.dat:
 * fixed when it has such cells, else its first cell's (a peers sweep's
 * poisson), NULL without any. */
static const char *sim_alloc_mode(const st_sim *sim, const char *w) {
    const char *first = NULL, *fixed = sgc_alloc_mode_name(SGC_SAMPLE_FIXED);
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        if (strcmp(c->workload, w) || strcmp(c->kind, "alloc"))
            continue;
        if (!strcmp(c->alloc_mode, fixed))
            return fixed;
        if (!first)
            first = c->alloc_mode;
    }
    return first;
}

/* The simulated cells of one kind (alloc: a workload's fixed-mode cells, or
 * those of its one mode without any, see sim_alloc_mode; time: wall clock),
 * in cell order. */
static void write_sim_cells_dat(FILE *f, const st_analysis *an, int time) {
    const st_sim *sim = an->sim;
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        if (time ? strcmp(c->kind, "time") || strcmp(c->time_clock, sgc_clock_name(SGC_CLOCK_WALL))
                 : strcmp(c->kind, "alloc") || strcmp(c->alloc_mode, sim_alloc_mode(sim, c->workload)))
            continue;
        put_row(f, time ? ST_PD_sim_time : ST_PD_sim_alloc, &(st_pd_row){.an = an, .sc = c});
    }
}

static void write_sim_normalized_dat(FILE *f, const st_analysis *an) {
    const st_sim *sim = an->sim;
    for (size_t i = 0; i < sim->nfits; i++) {
        const char *w = sim->fits[i].workload;
        put_row(
            f, ST_PD_sim_normalized,
            &(st_pd_row){
                .an = an, .index = i, .workload = w, .sc = st_sim_pick_alloc(sim, w), .v = st_sim_time_norm(sim, w)});
    }
}

/* Instructions, estimated cycles and wall time side by side: the overhead of
 * each workload's allocation cells at 32K and 4M (fixed mode, or its own
 * without fixed-mode cells: sim_alloc_mode), the counts from
 * the simulated cells, the wall time (median and interval) from the native
 * ones when the sweep has them. */
static void write_sim_compare_dat(FILE *f, const st_analysis *an) {
    const st_sim *sim = an->sim;
    static const int64_t periods[2] = {32 << 10, 4 << 20};
    for (size_t i = 0; i < sim->nfits; i++) {
        const char *w = sim->fits[i].workload;
        const char *mode = sim_alloc_mode(sim, w);
        for (int p = 0; p < 2 && mode; p++) {
            const st_simcell *c = NULL;
            for (size_t k = 0; k < sim->ncells && !c; k++) {
                const st_simcell *x = &sim->cells[k];
                if (!strcmp(x->workload, w) && !strcmp(x->kind, "alloc") && !strcmp(x->alloc_mode, mode) &&
                    x->alloc_period == periods[p])
                    c = x;
            }
            const st_result *r = NULL;
            for (size_t k = 0; k < an->nresults && !r; k++) {
                const st_result *x = &an->results[k];
                if (is_kind(x, "alloc") && in_matrix(x) && !strcmp(x->cell->workload, w) &&
                    !strcmp(x->cell->alloc_mode, mode) && x->cell->alloc_period == periods[p])
                    r = x;
            }
            if (c || r)
                put_row(f, ST_PD_sim_compare,
                        &(st_pd_row){.an = an, .index = i, .workload = w, .sc = c, .r = r, .period = periods[p]});
        }
    }
}

/* The files every sweep gets, and those only a sweep of some kind has (a
 * sweep without them gets no file: figures.sh draws nothing from them). */
static int plotdata_wanted(st_plotfile pf, const st_analysis *an, const st_peers *peers) {
    switch (pf) {
    case ST_PD_peers: return st_peers_several(peers);
    case ST_PD_inprocess: return an->inproc && an->inproc->n;
    case ST_PD_regress: return an->fits != NULL;
    case ST_PD_sim_alloc:
    case ST_PD_sim_time:
    case ST_PD_sim_normalized:
    case ST_PD_sim_compare: return an->sim && an->sim->ncells;
    default: return 1;
    }
}

/* peers.dat's rows: per report row, each of its lines (series, in order of
 * first appearance) with its cells by period, so gnuplot draws one line. */
static void write_peers_rows(FILE *f, const st_analysis *an, const st_peers *p) {
    for (size_t i = 0; i < p->n; i++) {
        const st_peer_row *r = &p->rows[i];
        for (size_t j = 0; j < r->ncells; j++) {
            int first = 1;
            for (size_t k = 0; k < j; k++)
                first &= strcmp(r->series[k], r->series[j]) != 0;
            if (!first)
                continue;
            for (size_t k = j; k < r->ncells; k++)
                if (!strcmp(r->series[k], r->series[j]))
                    put_row(f, ST_PD_peers,
                            &(st_pd_row){
                                .an = an, .r = r->cells[k], .c = r->cells[k]->cell, .peer = r, .series = r->series[k]});
        }
    }
}

void st_write_peers_dat(FILE *f, const st_analysis *an, const st_peers *p) {
    fprintf(f, "%s\n", st_plotdata_header(ST_PD_peers));
    write_peers_rows(f, an, p);
}

/* Writes plotdata/<file>.dat: the header from st_plotdata.h, then the rows. */
static void write_plotdata(FILE *f, st_plotfile pf, const st_analysis *an, const char **w, size_t nw,
                           const st_peers *peers) {
    fprintf(f, "%s\n", st_plotdata_header(pf));
    switch (pf) {
    case ST_PD_peers: write_peers_rows(f, an, peers); break;
    case ST_PD_workloads: write_workloads_dat(f, w, nw); break;
    case ST_PD_alloc_runs: write_runs_dat(f, an, 0); break;
    case ST_PD_time_runs: write_runs_dat(f, an, 1); break;
    case ST_PD_baseline_runs: write_baseline_runs_dat(f, an); break;
    case ST_PD_alloc_cells: write_cells_dat(f, an, 0); break;
    case ST_PD_time_cells: write_cells_dat(f, an, 1); break;
    case ST_PD_normalized: write_normalized_dat(f, an, w, nw); break;
    case ST_PD_exactness: write_exactness_dat(f, an); break;
    case ST_PD_depth: write_depth_dat(f, an); break;
    case ST_PD_inprocess: write_inprocess_dat(f, an, w, nw); break;
    case ST_PD_regress: write_regress_dat(f, an); break;
    case ST_PD_sim_alloc: write_sim_cells_dat(f, an, 0); break;
    case ST_PD_sim_time: write_sim_cells_dat(f, an, 1); break;
    case ST_PD_sim_normalized: write_sim_normalized_dat(f, an); break;
    case ST_PD_sim_compare: write_sim_compare_dat(f, an); break;
    case ST_PD_NFILES: break;
    }
}

/* ---- summary.md -------------------------------------------------------- */

static const char *sweep_name(const char *dir) {
    static char name[256];
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t s = n;
    while (s > 0 && dir[s - 1] != '/')
        s--;
    snprintf(name, sizeof name, "%.*s", (int)(n - s), dir + s);
    /* results/latest is a link: name the sweep it points at. */
    char real[4096];
    if (realpath(dir, real)) {
        const char *b = strrchr(real, '/');
        snprintf(name, sizeof name, "%.255s", b ? b + 1 : real);
    }
    return name;
}

static const char *cell_title(const st_cell *c) {
    char *b = st_fmt_buf();
    if (strcmp(c->kind, "alloc") == 0)
        snprintf(b, ST_FMT_BUFLEN, "alloc %s %s", c->alloc_mode, st_fmt_period(c->alloc_period));
    else if (strcmp(c->kind, "time") == 0 && c->time_mode[0])
        snprintf(b, ST_FMT_BUFLEN, "time %s %s %lld Hz", c->time_mode, c->time_clock, (long long)c->time_hz);
    else if (strcmp(c->kind, "time") == 0)
        snprintf(b, ST_FMT_BUFLEN, "time %s %lld Hz", c->time_clock, (long long)c->time_hz);
    else if (strcmp(c->kind, "alloc+time") == 0)
        snprintf(b, ST_FMT_BUFLEN, "alloc %s %s + time %s%s%lld Hz", c->alloc_mode, st_fmt_period(c->alloc_period),
                 c->time_mode, c->time_mode[0] ? " " : "", (long long)c->time_hz);
    else
        snprintf(b, ST_FMT_BUFLEN, "%s", c->kind);
    if (!isnan(c->depth)) {
        size_t n = strlen(b);
        snprintf(b + n, ST_FMT_BUFLEN - n, " d%g", c->depth);
    }
    return b;
}

static void md_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    }
}

/* The allocation settings of headline 1: a mode and a period. */
typedef struct alloc_setting {
    const char *mode;
    int64_t period;
} alloc_setting;

/* Fixed mode first (its counts are exact), then the other modes by name; each by period. */
static int cmp_setting(const void *x, const void *y) {
    const alloc_setting *a = x, *b = y;
    int fa = !strcmp(a->mode, sgc_alloc_mode_name(SGC_SAMPLE_FIXED)),
        fb = !strcmp(b->mode, sgc_alloc_mode_name(SGC_SAMPLE_FIXED));
    if (fa != fb)
        return fb - fa;
    int c = strcmp(a->mode, b->mode);
    if (c)
        return c;
    return (a->period > b->period) - (a->period < b->period);
}

static int at_setting(const st_result *r, const alloc_setting *s) {
    return is_kind(r, "alloc") && !strcmp(r->cell->alloc_mode, s->mode) && r->cell->alloc_period == s->period;
}

static void write_headline_worst(FILE *f, const st_analysis *an, double conf) {
    fprintf(f, "### Worst workload per allocation mode and period\n\n");
    fprintf(f,
            "Overhead = median wall time with sampling / without, %g%% BCa interval "
            "(* = percentile fallback). For comparison, the paper (PyPy, 5 runs, no intervals) reports "
            "about 390%% overhead at 32K, at most 25%% at 4M and under 10%% at 32M. Each interval holds at "
            "its own level; for a claim about all k workloads at once, rerun with --confidence 1-%g/k "
            "(Bonferroni).\n\n",
            conf * 100, 1 - conf);
    fputs("| mode | period | worst workload | its overhead | largest upper bound, any workload |\n"
          "|---|---|---|---|---|\n",
          f);
    alloc_setting *set = ct_xmalloc((an->nresults ? an->nresults : 1) * sizeof *set);
    size_t np = 0;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (!is_kind(r, "alloc"))
            continue;
        alloc_setting x = {r->cell->alloc_mode, r->cell->alloc_period};
        size_t k = 0;
        while (k < np && cmp_setting(&set[k], &x))
            k++;
        if (k == np)
            set[np++] = x;
    }
    qsort(set, np, sizeof *set, cmp_setting);
    int rows = 0;
    for (size_t k = 0; k < np; k++) {
        const st_result *worst = NULL, *upper = NULL;
        for (size_t i = 0; i < an->nresults; i++) {
            const st_result *r = &an->results[i];
            if (!at_setting(r, &set[k]) || !isfinite(r->overhead.est))
                continue;
            if (!worst || r->overhead.est > worst->overhead.est)
                worst = r;
            if (r->overhead.method != ST_CI_NONE && (!upper || r->overhead.hi > upper->overhead.hi))
                upper = r;
        }
        if (!worst)
            continue;
        rows++;
        fprintf(f, "| %s | %s | %s | %s | ", set[k].mode, st_fmt_period(set[k].period), worst->cell->workload,
                st_fmt_ci(&worst->overhead, 4));
        if (upper)
            fprintf(f, "%s (%s): at most %+.1f%% |\n", st_fmt_md(upper->overhead.hi, 4), upper->cell->workload,
                    (upper->overhead.hi - 1) * 100);
        else
            fputs("n/a (no intervals) |\n", f);
    }
    if (!rows)
        fputs("| n/a | n/a | no allocation cell with a baseline | | |\n", f);
    fputc('\n', f);
    free(set);
}

/* "a, b, c" of the workloads whose comparison has one of the results in mask, or "none". */
static void norm_list(FILE *f, const st_normcmp *cmp, const char **w, size_t nw, unsigned mask) {
    int n = 0;
    for (size_t i = 0; i < nw; i++)
        if (mask & (1u << cmp[i].res))
            fprintf(f, "%s%s", n++ ? ", " : "", w[i]);
    if (!n)
        fputs("none", f);
}

static void write_headline_norm(FILE *f, const st_analysis *an, const char **w, size_t nw) {
    nw = st_normdiff_keys(an, &w, nw); /* one comparison per time sampler's mode */
    char m[32];
    snprintf(m, sizeof m, "%g%%", an->margin * 100);
    fprintf(f,
            "### Allocation vs time sampling: normalized overhead per 1000 samples/s\n\n"
            "`1 + (overhead - 1) * 1000 / samples_per_second`; for each sampler the cell whose rate is nearest "
            "1000 samples/s. Paired: each run against the adjacent run of its baseline, Hodges-Lehmann over the "
            "blocks with a one-sample BCa interval (blocked sweeps); unpaired: from the medians, two-sample "
            "bootstrap, beside it for comparison. The verdict is read from the interval of the **difference** "
            "(allocation minus time), estimated directly: in a blocked sweep from the two cells' blocks matched "
            "by round and resampled together by rounds (whatever a round's hour did to both stays in the "
            "difference), else from the runs of both cells and their shared baseline resampled together; over "
            "replicates in a replicated sweep. A sampler is cheaper when the difference's interval excludes 0 "
            "on its side; \"equivalent within %s\" when the interval lies within +-%s; otherwise \"not "
            "resolved\". Each verdict holds at its own level.\n\n"
            "| workload | allocation cell | samples/s | normalized, paired | unpaired | time cell | samples/s | "
            "normalized, paired | unpaired | difference, alloc - time [CI] (basis, level) | verdict |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n",
            m, m);
    st_normcmp *cmp = ct_xcalloc(nw ? nw : 1, sizeof *cmp);
    int rows = 0;
    for (size_t i = 0; i < nw; i++) {
        st_normcmp *c = &cmp[i];
        st_normcmp_make(an, w[i], c);
        if (!c->a && !c->t)
            continue;
        rows++;
        const st_result *a = c->a, *t = c->t;
        fprintf(f, "| %s | %s | %s | %s | %s | ", w[i], a ? cell_title(a->cell) : "n/a",
                a ? st_fmt_md(a->sps.est, 4) : "n/a", a ? st_fmt_ci(&a->paired_norm, 4) : "n/a",
                a ? st_fmt_ci(&a->norm, 4) : "n/a");
        fprintf(f, "%s | %s | %s | %s | ", t ? cell_title(t->cell) : "n/a", t ? st_fmt_md(t->sps.est, 4) : "n/a",
                t ? st_fmt_ci(&t->paired_norm, 4) : "n/a", t ? st_fmt_ci(&t->norm, 4) : "n/a");
        char v[64];
        if (c->diff)
            fprintf(f, "%s (%s, %s) | ", st_fmt_ci(c->diff, 4), st_normcmp_basis(c), st_level_name(c->level));
        else
            fputs("n/a | ", f);
        fprintf(f, "%s", normcmp_text(c, an->margin, v, sizeof v));
        fputs(" |\n", f);
    }
    if (!rows) {
        fputs("| n/a | no sampling cell with samples and a baseline | | | | | | | | | |\n\n", f);
        free(cmp);
        return;
    }
    size_t resolved = 0, judged = 0;
    for (size_t i = 0; i < nw; i++) {
        resolved += cmp[i].res == ST_NR_ALLOC || cmp[i].res == ST_NR_TIME || cmp[i].res == ST_NR_EQUIVALENT;
        judged += cmp[i].res != ST_NR_NA;
    }
    if (!judged) {
        fputs("\nNo workload has both an allocation and a time cell with an interval of the difference: no "
              "verdict.\n\n",
              f);
        free(cmp);
        return;
    }
    fprintf(f, "\nResolved on %zu of %zu workloads with an interval of the difference: allocation cheaper: ", resolved,
            judged);
    norm_list(f, cmp, w, nw, 1u << ST_NR_ALLOC);
    fputs("; time cheaper: ", f);
    norm_list(f, cmp, w, nw, 1u << ST_NR_TIME);
    fprintf(f, "; equivalent within %s: ", m);
    norm_list(f, cmp, w, nw, 1u << ST_NR_EQUIVALENT);
    fputs(". Not resolved: ", f);
    norm_list(f, cmp, w, nw, 1u << ST_NR_UNRESOLVED);
    fputs(".\n\n", f);
    free(cmp);
}

static void write_headline_aa(FILE *f, const st_analysis *an) {
    fputs("### A/A noise floor\n\n"
          "Each baseline's runs of odd rounds against those of even rounds, analysed like a cell. "
          "Overheads closer to 1 than the floor are below what this sweep resolves.\n\n"
          "| workload | runs odd/even | A/A ratio | floor (%) |\n|---|---|---|---|\n",
          f);
    int rows = 0;
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (!r->is_baseline)
            continue;
        rows++;
        /* Baselines of depth cells (deepstack at several --depth) are told
         * apart by their depth. */
        char name[160];
        if (isfinite(r->cell->depth))
            snprintf(name, sizeof name, "%s (depth %.0f)", r->cell->workload, r->cell->depth);
        else
            snprintf(name, sizeof name, "%s", r->cell->workload);
        fprintf(f, "| %s | %zu/%zu | %s | %s |\n", name, r->aa_odd, r->aa_even, st_fmt_ci(&r->aa, 4),
                isfinite(r->aa_floor) ? st_fmt_md(r->aa_floor * 100, 3) : "n/a");
    }
    if (!rows)
        fputs("| n/a | no baseline cells | | |\n", f);
    fputc('\n', f);
}

static void write_workload_table(FILE *f, const st_analysis *an, const char *w) {
    const st_result *base = NULL;
    for (size_t i = 0; i < an->nresults; i++)
        if (strcmp(an->results[i].cell->workload, w) == 0 && an->results[i].is_baseline && in_matrix(&an->results[i])) {
            base = &an->results[i];
            break;
        }
    fprintf(f, "### %s\n\n", w);
    if (base)
        fprintf(f, "Baseline: median %s ms (IQR %s-%s ms, MAD %s ms), %zu runs.\n\n",
                st_fmt_md(base->wall.median / 1e6, 4), st_fmt_md(base->wall.q1 / 1e6, 4),
                st_fmt_md(base->wall.q3 / 1e6, 4), st_fmt_md(base->wall.mad / 1e6, 3), base->runs);
    else
        fputs("No baseline cell: overheads are not available.\n\n", f);
    fputs("| cell | runs (failed) | wall ms median [IQR] | out. | overhead | CPU overhead | samples/s | "
          "normalized | us/sample | U test p | verdict | note |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_result *r = &an->results[i];
        if (strcmp(r->cell->workload, w))
            continue;
        fprintf(f, "| %s | %zu (%zu) | %s [%s, %s] | %zu | %s | %s | %s | %s | %s | %s | %s | ", cell_title(r->cell),
                r->runs, r->failed, st_fmt_md(r->wall.median / 1e6, 4), st_fmt_md(r->wall.q1 / 1e6, 4),
                st_fmt_md(r->wall.q3 / 1e6, 4), r->wall.outliers, r->is_baseline ? "1" : st_fmt_ci(&r->overhead, 4),
                r->is_baseline ? "1" : st_fmt_ci(&r->cpu_overhead, 4),
                (r->samples_alloc || r->samples_time) ? st_fmt_ci(&r->sps, 4) : "0", st_fmt_ci(&r->norm, 4),
                st_fmt_ci(&r->cost, 3), st_fmt_md(r->mw.p, 3), r->verdict);
        md_escape(f, r->note);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

/* Failed runs per cell, grouped by reason (the first 5 distinct reasons). */
static void write_failures(FILE *f, const st_analysis *an) {
    fputs("## Failed runs\n\nExcluded from every statistic; the reason is `runs.failure` in results.db.\n\n"
          "| cell | failed | reasons (count) |\n|---|---|---|\n",
          f);
    for (size_t i = 0; i < an->nresults; i++) {
        const st_cell *c = an->results[i].cell;
        if (!c->failed)
            continue;
        fputs("| ", f);
        md_escape(f, c->label);
        fprintf(f, " | %zu of %zu | ", c->failed, c->nruns);
        const char *seen[5];
        size_t count[5], nseen = 0, other = 0;
        for (size_t k = 0; k < c->nruns; k++) {
            const st_run *run = cell_run(an, c, k);
            if (run->used)
                continue;
            size_t j = 0;
            while (j < nseen && strcmp(seen[j], run->failure))
                j++;
            if (j < nseen)
                count[j]++;
            else if (nseen < 5) {
                seen[nseen] = run->failure;
                count[nseen++] = 1;
            } else
                other++;
        }
        for (size_t j = 0; j < nseen; j++) {
            if (j)
                fputs("; ", f);
            /* One line of the reason: output tails can hold newlines. */
            char line[160];
            snprintf(line, sizeof line, "%s", seen[j]);
            line[strcspn(line, "\r\n")] = 0;
            md_escape(f, line);
            fprintf(f, " (%zu)", count[j]);
        }
        if (other)
            fprintf(f, "; %zu more with other reasons", other);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

/* The summary's title and opening: the in-process design's warning, the
 * analysis settings and run counts, missing runs, the levels and an
 * incomplete sweep's status. */
static void md_intro(FILE *f, const st_analysis *an, const st_report_opts *o, const st_inprocs *ip, size_t nw) {
    const st_sweep *sw = an->sweep;
    fprintf(f, "# freecheck sweep %s: statistics\n\n", sweep_name(sw->dir));
    if (ip && ip->design_inprocess)
        fputs("> **Design inprocess.** Every run switched its cell's sampling on and off inside the process,\n"
              "> so the process-level (whole run) tables below compare runs that sampled about half of the\n"
              "> time: read the section \"In-process alternation (steady-state marginal cost)\" at the end.\n\n",
              f);
    fprintf(f,
            "Analysed by `build/bin/analyze` with seed %llu, %zu bootstrap resamples, %g%% confidence "
            "(method: docs/STATISTICS.md). %zu measured runs used, %zu failed (excluded, counted); "
            "%zu cells, %zu workloads.\n\n",
            (unsigned long long)o->seed, o->resamples, o->confidence * 100, an->used_runs, an->failed_runs,
            an->nresults, nw);
    size_t recorded = an->used_runs + an->failed_runs;
    if (sw->planned >= 0 && recorded < (size_t)sw->planned)
        fprintf(f,
                "**%zu of %ld planned measured runs are recorded** (%ld missing: the sweep was interrupted or "
                "is still running; `build/bin/sweep --resume DIR` finishes it).\n\n",
                recorded, sw->planned, sw->planned - (long)recorded);
    if (an->failed_runs)
        fprintf(f, "%zu measured runs failed: they are excluded and listed under \"Failed runs\" below.\n\n",
                an->failed_runs);
    st_write_levels_md(f, an);
    const char *status = st_sweep_meta(sw, "status");
    if (status && strcmp(status, "complete"))
        fprintf(f,
                "**This sweep is not complete (status `%s` in its metadata): the numbers cover the runs "
                "recorded so far.**\n\n",
                status);
}

/* The fixed mode's exactness check: the mismatching runs (at most 50 listed),
 * else how many runs were checked. */
static void md_exactness(FILE *f, const st_analysis *an) {
    if (an->nmismatches) {
        fprintf(f,
                "**EXACTNESS MISMATCH: %zu fixed-mode runs took a number of samples different from "
                "floor(sampled_bytes / period).** The sampling rule is broken:\n\n",
                an->nmismatches);
        for (size_t i = 0; i < an->nmismatches && i < 50; i++) {
            const st_mismatch *m = &an->mismatches[i];
            fprintf(f, "- %s round %lld (run %lld): %s sample points, expected %s\n", m->cell->label,
                    (long long)m->run->round, (long long)m->run->run_id, st_fmt_md(m->points, 15),
                    st_fmt_md(m->expected, 15));
        }
        if (an->nmismatches > 50)
            fprintf(f, "- ... and %zu more (summary.csv, exact_mismatches)\n", an->nmismatches - 50);
        fputc('\n', f);
    } else {
        size_t checked = 0;
        for (size_t i = 0; i < an->nresults; i++)
            checked += an->results[i].exact_checked;
        if (checked)
            fprintf(f,
                    "Exactness: all %zu fixed-mode allocation runs took exactly floor(sampled_bytes / period) "
                    "samples.\n\n",
                    checked);
    }
}

/* The headlines (cost fit, worst cell, normalized cost, A/A) after the floor
 * and implausibility warnings and the nothing-to-analyse notes. */
static void md_headlines(FILE *f, const st_analysis *an, const st_report_opts *o, const char **w, size_t nw) {
    const st_sweep *sw = an->sweep;
    st_write_floor_warning_md(f, an);
    st_peers_write_implausible_md(f, an);
    if (an->used_runs == 0 && an->failed_runs)
        fputs("**No measured run succeeded: there is nothing to analyse.** See the notes below and the "
              "failure column of results.db's runs table.\n\n",
              f);
    else if (an->used_runs == 0)
        fputs("**The sweep has no measured run (round 1 or later) yet: there is nothing to analyse.**\n\n", f);
    fputs("## Headlines\n\n", f);
    st_costfit_write_md(f, an);
    write_headline_worst(f, an, o->confidence);
    write_headline_norm(f, an, w, nw);
    write_headline_aa(f, an);
    if (!sw->has_depth) {
        int deep = 0;
        for (size_t i = 0; i < nw; i++)
            deep |= strncmp(w[i], "deepstack", 9) == 0;
        if (deep)
            fputs("Stack depth was not varied in this sweep (cells carry no depth): plotdata/depth.dat holds "
                  "the deepstack cells at their one depth, with depth NaN.\n\n",
                  f);
    }
}

/* The per-workload tables with their legend. */
static void md_workloads(FILE *f, const st_analysis *an, const char **w, size_t nw) {
    fputs("## Per workload\n\nIntervals are BCa at the confidence above (* = percentile fallback, see the note); "
          "\"no CI\" = fewer than 3 runs or undefined (see the note). Verdict (the cell's one verdict, "
          "the same in every table): read from the paired ratio's interval when the cell has one (blocked "
          "sweeps), else from the overhead's: slower/faster when it lies above/below 1, no effect above the "
          "margin when it lies within it, else not resolved; slower or faster only when the estimate lies "
          "farther from 1 than the baseline's A/A floor at the same level. The U test's p is shown beside "
          "it.\n\n",
          f);
    for (size_t i = 0; i < nw; i++)
        write_workload_table(f, an, w[i]);
}

/* The sweep's metadata table (values over 200 characters left to results.db). */
static void md_meta(FILE *f, const st_sweep *sw) {
    fputs("## Sweep metadata\n\n| key | value |\n|---|---|\n", f);
    for (size_t i = 0; i < sw->nmeta; i++) {
        if (strlen(sw->meta_value[i]) > 200)
            continue; /* the plan and other long values: see results.db */
        fputs("| ", f);
        md_escape(f, sw->meta_key[i]);
        fputs(" | ", f);
        for (const char *s = sw->meta_value[i]; *s; s++)
            fputc(*s == '\n' ? ' ' : *s, f);
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

/* summary.md: intro, exactness, headlines, paired tables, failures, per
 * workload, noise, simulated cells, metadata, nodes, in-process section. */
static void write_summary_md(FILE *f, const st_analysis *an, const st_report_opts *o) {
    const st_sweep *sw = an->sweep;
    const char **w;
    size_t nw = workloads(an, &w);
    const st_inprocs *ip = an->inproc && an->inproc->n ? an->inproc : NULL;
    md_intro(f, an, o, ip, nw);
    md_exactness(f, an);
    md_headlines(f, an, o, w, nw);
    st_write_paired_md(f, an, o->confidence);
    if (an->failed_runs)
        write_failures(f, an);
    md_workloads(f, an, w, nw);
    st_write_noise_md(f, an);
    st_sim_write_md(f, an->sim);
    if (sw->nmeta)
        md_meta(f, sw);
    if (o->nodes_md)
        fputs(o->nodes_md, f);
    if (ip)
        st_inproc_write_md(f, ip, an->margin);
    free(w);
}

/* ---- all outputs ------------------------------------------------------- */

int st_write_outputs(const st_analysis *an, const st_report_opts *opts, char *err, size_t errlen) {
    const char *dir = an->sweep->dir;
    size_t n = strlen(dir) + sizeof "/plotdata";
    char *pdir = ct_xmalloc(n);
    snprintf(pdir, n, "%s/plotdata", dir);
    int status = 0;
    struct stat ps;
    if (mkdir(pdir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", pdir, strerror(errno));
        free(pdir);
        return 1;
    }
    if (lstat(pdir, &ps) != 0 || !S_ISDIR(ps.st_mode)) {
        snprintf(err, errlen, "%s is not a directory: the plot data files go there (remove it, or move it away)", pdir);
        free(pdir);
        return 2;
    }
    const char **w;
    size_t nw = workloads(an, &w);
    /* Every file into a temporary first; all renamed at the end, or none. */
    ct_outs set = {0};
    FILE *f;
    int rc = 0;
    char path[4200];
#define OUT(d, name, call)                                                \
    do {                                                                  \
        snprintf(path, sizeof path, "%s/%s", d, name);                    \
        if (!rc && !(f = ct_outs_open(&set, path, &status, err, errlen))) \
            rc = 1;                                                       \
        if (!rc)                                                          \
            call;                                                         \
    } while (0)
    OUT(dir, "summary.csv", write_summary_csv(f, an, opts));
    OUT(dir, "summary.json", write_summary_json(f, an, opts));
    OUT(dir, "metrics.csv", write_metrics_csv(f, an));
    if (an->fits)
        OUT(dir, "regress.csv", st_costfit_write_csv(f, an->fits, an->margin));
    st_peers peers;
    st_peers_compute(an, &peers);
    for (int pf = 0; pf < ST_PD_NFILES && !rc; pf++) {
        if (!plotdata_wanted((st_plotfile)pf, an, &peers))
            continue;
        char name[64];
        snprintf(name, sizeof name, "%s.dat", st_plotdata_name((st_plotfile)pf));
        OUT(pdir, name, write_plotdata(f, (st_plotfile)pf, an, w, nw, &peers));
    }
    st_peers_free(&peers);
    if (an->sim && an->sim->ncells)
        OUT(dir, "sim.csv", st_sim_write_csv(f, an->sim));
    const st_inprocs *ip = an->inproc && an->inproc->n ? an->inproc : NULL;
    if (ip)
        OUT(dir, "inprocess.csv", st_inproc_write_csv(f, ip, an->margin));
    OUT(dir, "summary.md", write_summary_md(f, an, opts));
#undef OUT
    if (rc)
        ct_outs_abort(&set);
    else
        status = ct_outs_commit(&set, err, errlen);
    free(w);
    free(pdir);
    return status;
}

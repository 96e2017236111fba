/* st_sim.c - exact counts of the simulated cells: overheads, per-sample
 * costs, determinism, the time-sampling model. */
#include "st_sim.h"
#include "st_fmt.h"
#include "st_util.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SIM_NAME(id, name, cg, meaning) name,
static const char *const metric_names[SW_SIM_N] = {SW_SIM_METRICS(SIM_NAME)};
#undef SIM_NAME

static void note(st_simcell *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    st_note_add(c->note, sizeof c->note, fmt, ap);
    va_end(ap);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char *dup_text(sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    return ct_xstrdup(t ? (const char *)t : "");
}

double st_sim_time_model(double rate_hz, double user_instr, double baseline_instr, double native_s,
                         double delivery_ns) {
    if (!(rate_hz > 0) || !(user_instr >= 0) || !(baseline_instr > 0) || !(native_s > 0) || !(delivery_ns >= 0))
        return NAN;
    return 1 + rate_hz * (user_instr * native_s / baseline_instr + delivery_ns * 1e-9);
}

const st_simcell *st_sim_find(const st_sim *sim, const char *workload, const char *kind, int64_t period, int64_t hz) {
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        if (strcmp(c->workload, workload) || strcmp(c->kind, kind))
            continue;
        if (!strcmp(kind, "alloc") && (c->alloc_period != period || strcmp(c->alloc_mode, "fixed")))
            continue;
        if (!strcmp(kind, "time") && (c->time_hz != hz || strcmp(c->time_clock, "wall")))
            continue;
        return c;
    }
    return NULL;
}

/* Per-run values of one cell, collected while loading. */
typedef struct runvals {
    double v[SW_SIM_N];
    double alloc_samples, time_samples;
    double vclock; /* the stats record's virtual_clock_ns (NaN if it has none) */
    int ok;
} runvals;

static void summarize(st_simcell *c, runvals *r, size_t n) {
    double *tmp = ct_xmalloc((n ? n : 1) * sizeof *tmp);
    size_t ok = 0;
    for (size_t i = 0; i < n; i++)
        ok += r[i].ok;
    c->ok = ok;
    for (int m = 0; m < SW_SIM_N; m++) {
        size_t k = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++)
            if (r[i].ok) {
                tmp[k++] = r[i].v[m];
                lo = fmin(lo, r[i].v[m]);
                hi = fmax(hi, r[i].v[m]);
            }
        c->v[m] = median(tmp, k);
        c->vmin[m] = k ? lo : NAN;
        c->vmax[m] = k ? hi : NAN;
        c->spread[m] = k >= 2 ? (lo > 0 ? (hi - lo) / lo : hi > lo ? INFINITY : 0) : NAN;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].ok)
            tmp[k++] = r[i].alloc_samples;
    c->alloc_samples = median(tmp, k);
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].ok)
            tmp[k++] = r[i].time_samples;
    c->time_samples = median(tmp, k);
    free(tmp);
    c->nrun = 0;
    c->run_alloc = ct_xmalloc((ok ? ok : 1) * sizeof(double));
    c->run_time = ct_xmalloc((ok ? ok : 1) * sizeof(double));
    c->run_v[0] = ct_xmalloc((ok ? ok : 1) * sizeof(double));
    c->run_v[1] = ct_xmalloc((ok ? ok : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++)
        if (r[i].ok) {
            c->run_alloc[c->nrun] = r[i].alloc_samples;
            c->run_time[c->nrun] = r[i].time_samples;
            c->run_v[0][c->nrun] = r[i].v[SW_SIM_IR];
            c->run_v[1][c->nrun++] = r[i].v[SW_SIM_CYCLES];
        }
    /* Exact when every ok run recorded the virtual clock's times. */
    int vclock = ok > 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].ok && !(r[i].vclock > 0))
            vclock = 0;
    c->exact = -1;
    if (ok < 2) {
        c->deterministic = -1;
        note(c, ok ? "one ok run: determinism not checked" : "no ok run");
    } else if (c->time_hz) {
        c->deterministic = -1;
    } else if (vclock) {
        c->exact = 1;
        int differ = 0;
        for (int m = 0; m < SW_SIM_N; m++)
            differ += c->vmin[m] != c->vmax[m];
        c->deterministic = differ == 0;
        if (differ)
            note(c,
                 "NOT DETERMINISTIC: %d of the %d counts differ between repeated runs, which recorded the virtual "
                 "clock's times and must agree to the count (instructions %.17g to %.17g, estimated cycles %.17g to "
                 "%.17g)",
                 differ, SW_SIM_N, c->vmin[SW_SIM_IR], c->vmax[SW_SIM_IR], c->vmin[SW_SIM_CYCLES],
                 c->vmax[SW_SIM_CYCLES]);
    } else {
        c->exact = 0;
        c->deterministic = !(c->spread[SW_SIM_IR] > ST_SIM_TOLERANCE) && !(c->spread[SW_SIM_CYCLES] > ST_SIM_TOLERANCE);
        if (!c->deterministic)
            note(c,
                 "NOT DETERMINISTIC: repeated counts differ by %.4g%% (instructions) and %.4g%% (estimated cycles), "
                 "more than %.2g%%",
                 100 * c->spread[SW_SIM_IR], 100 * c->spread[SW_SIM_CYCLES], 100 * ST_SIM_TOLERANCE);
        else
            note(c,
                 "runs without the virtual clock (SGC_VIRTUAL_CLOCK): their times vary the counts, checked within "
                 "%.2g%%",
                 100 * ST_SIM_TOLERANCE);
    }
}

/* Reads the simulated cells (backend 'sim') into sim->cells; returns their
 * number, 0 for a sweep from before the simulated backend. */
static size_t load_cells(sqlite3 *db, st_sim *sim) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label "
                           "FROM cells WHERE backend = 'sim' ORDER BY cell_id",
                           -1, &st, NULL) != SQLITE_OK) {
        /* No backend column: a sweep from before the simulated backend. */
        return 0;
    }
    size_t cap = 16;
    sim->cells = ct_xcalloc(cap, sizeof *sim->cells);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (sim->ncells == cap) {
            sim->cells = ct_xrealloc(sim->cells, (cap *= 2) * sizeof *sim->cells);
            memset(sim->cells + sim->ncells, 0, (cap - sim->ncells) * sizeof *sim->cells);
        }
        st_simcell *c = &sim->cells[sim->ncells++];
        c->cell_id = sqlite3_column_int64(st, 0);
        c->workload = dup_text(st, 1);
        c->kind = dup_text(st, 2);
        c->alloc_period = sqlite3_column_int64(st, 3);
        c->alloc_mode = dup_text(st, 4);
        c->time_hz = sqlite3_column_int64(st, 5);
        c->time_clock = dup_text(st, 6);
        c->size = sqlite3_column_int64(st, 7);
        c->label = dup_text(st, 8);
    }
    sqlite3_finalize(st);
    return sim->ncells;
}

/* Each cell's runs with their sim:: counters and sample counts, summarized
 * into the cell; 2 with err filled when the runs cannot be read. */
static int load_runs(sqlite3 *db, st_sim *sim, char *err, size_t errlen) {
    sqlite3_stmt *st;
    sqlite3_stmt *rs;
    if (sqlite3_prepare_v2(db,
                           "SELECT r.run_id, r.status, r.failure, "
                           " (SELECT value FROM run_stats s WHERE s.run_id = r.run_id AND s.key = 'alloc_samples'),"
                           " (SELECT value FROM run_stats s WHERE s.run_id = r.run_id AND s.key = 'time_samples'),"
                           " (SELECT value FROM run_stats s WHERE s.run_id = r.run_id AND s.key = 'virtual_clock_ns') "
                           "FROM runs r WHERE r.cell_id = ? AND r.round > 0 ORDER BY r.round",
                           -1, &rs, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT event, scaled FROM run_counters WHERE run_id = ? AND event LIKE 'sim::%'", -1,
                           &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: reading the simulated runs: %s", "results.db", sqlite3_errmsg(db));
        return 2;
    }
    for (size_t i = 0; i < sim->ncells; i++) {
        st_simcell *c = &sim->cells[i];
        runvals *r = NULL;
        size_t n = 0;
        sqlite3_bind_int64(rs, 1, c->cell_id);
        while (sqlite3_step(rs) == SQLITE_ROW) {
            r = ct_xrealloc(r, (n + 1) * sizeof *r);
            runvals *x = &r[n++];
            for (int m = 0; m < SW_SIM_N; m++)
                x->v[m] = NAN;
            x->alloc_samples = sqlite3_column_type(rs, 3) == SQLITE_NULL ? NAN : sqlite3_column_double(rs, 3);
            x->time_samples = sqlite3_column_type(rs, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(rs, 4);
            x->vclock = sqlite3_column_type(rs, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(rs, 5);
            const unsigned char *status = sqlite3_column_text(rs, 1);
            int ok = status && !strcmp((const char *)status, "ok");
            if (!ok && !c->failure) {
                const unsigned char *why = sqlite3_column_text(rs, 2);
                c->failure = ct_xstrdup(why ? (const char *)why : "no reason recorded");
            }
            sqlite3_bind_int64(st, 1, sqlite3_column_int64(rs, 0));
            int have = 0;
            while (sqlite3_step(st) == SQLITE_ROW) {
                const char *ev = (const char *)sqlite3_column_text(st, 0);
                for (int m = 0; m < SW_SIM_N; m++)
                    if (ev && !strcmp(ev, metric_names[m])) {
                        x->v[m] = sqlite3_column_double(st, 1);
                        have++;
                    }
            }
            sqlite3_reset(st);
            x->ok = ok && have == SW_SIM_N;
        }
        sqlite3_reset(rs);
        c->runs = n;
        summarize(c, r, n);
        if (c->failure)
            note(c, "%zu of %zu runs failed: %.200s", n - c->ok, n, c->failure);
        free(r);
    }
    sqlite3_finalize(rs);
    sqlite3_finalize(st);
    return 0;
}

/* Native CPU time of each workload's baseline at the simulated size (NAN
 * where none was measured at that size). */
static void load_native(sqlite3 *db, st_sim *sim) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT size, cpu_ns FROM sim_native WHERE workload = ?", -1, &st, NULL) == SQLITE_OK) {
        for (size_t i = 0; i < sim->ncells; i++) {
            st_simcell *c = &sim->cells[i];
            char key[256];
            snprintf(key, sizeof key, "sim:%s", c->workload);
            sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
            c->native_s = NAN;
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == c->size)
                c->native_s = (double)sqlite3_column_int64(st, 1) / 1e9;
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    } else {
        for (size_t i = 0; i < sim->ncells; i++)
            sim->cells[i].native_s = NAN;
    }
}

/* The time sampler's delivery cost from meta, or the note saying why not. */
static void load_delivery(sqlite3 *db, st_sim *sim) {
    sqlite3_stmt *st;
    sim->delivery_ns = NAN;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'time_delivery_ns'", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            const char *v = (const char *)sqlite3_column_text(st, 0);
            char *end;
            double d = v ? strtod(v, &end) : NAN;
            if (v && end != v && !*end && d >= 0)
                sim->delivery_ns = d;
            else
                sim->delivery_note = ct_xstrdup(v ? v : "unknown");
        } else {
            sim->delivery_note = ct_xstrdup("not measured (no time_delivery_ns in meta)");
        }
        sqlite3_finalize(st);
    }
}

/* The simulated cells, their runs, native times and the delivery cost; 2
 * with err filled on an unreadable sweep. */
static int load(sqlite3 *db, st_sim *sim, char *err, size_t errlen) {
    if (!load_cells(db, sim))
        return 0;
    if (load_runs(db, sim, err, errlen))
        return 2;
    load_native(db, sim);
    load_delivery(db, sim);
    return 0;
}

static void analyse(st_sim *sim) {
    for (size_t i = 0; i < sim->ncells; i++) {
        st_simcell *c = &sim->cells[i];
        sim->runs += c->runs;
        sim->ok_runs += c->ok;
        sim->flagged += c->deterministic == 0;
        c->overhead_ir = c->overhead_cyc = c->per_sample_ir = c->per_sample_cyc = NAN;
        c->sps_native = c->norm_ir = c->norm_cyc = NAN;
        c->model_overhead = c->model_user_ns = c->model_kernel_ns = c->model_norm = NAN;
        for (size_t j = 0; j < sim->ncells && !c->baseline; j++) {
            const st_simcell *b = &sim->cells[j];
            if (!strcmp(b->kind, "baseline") && !strcmp(b->workload, c->workload) && b->size == c->size)
                c->baseline = b;
        }
        if (!c->baseline) {
            note(c, "no simulated baseline of %s at --size %lld: no overhead", c->workload, (long long)c->size);
            continue;
        }
        if (c->baseline == c)
            continue;
        const st_simcell *b = c->baseline;
        c->overhead_ir = c->v[SW_SIM_IR] / b->v[SW_SIM_IR];
        c->overhead_cyc = c->v[SW_SIM_CYCLES] / b->v[SW_SIM_CYCLES];
        int alloc = c->alloc_period > 0, time = c->time_hz > 0;
        double samples = (alloc ? c->alloc_samples : 0) + (time ? c->time_samples : 0);
        if (samples > 0) {
            c->per_sample_ir = (c->v[SW_SIM_IR] - b->v[SW_SIM_IR]) / samples;
            c->per_sample_cyc = (c->v[SW_SIM_CYCLES] - b->v[SW_SIM_CYCLES]) / samples;
        } else if (samples == 0) {
            note(c, "no samples taken: no per-sample cost");
        }
        if (!(c->native_s > 0))
            note(c, "no native time of the baseline at this size (sim_native): no rates");
        if (alloc && !time && c->native_s > 0) {
            c->sps_native = c->alloc_samples / c->native_s;
            if (c->sps_native > 0) {
                c->norm_ir = 1 + (c->overhead_ir - 1) * 1000 / c->sps_native;
                c->norm_cyc = 1 + (c->overhead_cyc - 1) * 1000 / c->sps_native;
            }
        }
        if (time && !alloc && c->native_s > 0 && c->time_samples > 0) {
            double ns_per_instr = c->native_s * 1e9 / b->v[SW_SIM_IR];
            c->model_user_ns = c->per_sample_ir * ns_per_instr;
            c->model_kernel_ns = sim->delivery_ns;
            c->model_overhead =
                st_sim_time_model((double)c->time_hz, c->per_sample_ir, b->v[SW_SIM_IR], c->native_s, sim->delivery_ns);
            c->model_norm = st_sim_time_model(1000, c->per_sample_ir, b->v[SW_SIM_IR], c->native_s, sim->delivery_ns);
            if (isnan(sim->delivery_ns))
                note(c, "the kernel's delivery cost was not measured: no modelled overhead");
        }
    }
    /* The workloads, in order of first appearance (their cost fits: st_costfit.h). */
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        size_t f = 0;
        while (f < sim->nfits && strcmp(sim->fits[f].workload, c->workload))
            f++;
        if (f < sim->nfits)
            continue;
        sim->fits = ct_xrealloc(sim->fits, (sim->nfits + 1) * sizeof *sim->fits);
        st_simfit *fit = &sim->fits[sim->nfits++];
        memset(fit, 0, sizeof *fit);
        fit->workload = c->workload;
    }
}

int st_sim_load(const char *dir, st_sim *sim, char *err, size_t errlen) {
    memset(sim, 0, sizeof *sim);
    sim->delivery_ns = NAN;
    size_t len = strlen(dir) + sizeof "/results.db";
    char *path = ct_xmalloc(len);
    snprintf(path, len, "%s/results.db", dir);
    sqlite3 *db = NULL;
    int rc = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        rc = 2;
    } else {
        sqlite3_busy_timeout(db, 10000);
        sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        rc = load(db, sim, err, errlen);
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (!rc)
            analyse(sim);
    }
    sqlite3_close(db);
    free(path);
    return rc;
}

void st_sim_free(st_sim *sim) {
    for (size_t i = 0; i < sim->ncells; i++) {
        st_simcell *c = &sim->cells[i];
        free(c->workload), free(c->kind), free(c->label), free(c->alloc_mode), free(c->time_clock);
        free(c->failure);
        free(c->run_alloc), free(c->run_time), free(c->run_v[0]), free(c->run_v[1]);
    }
    free(sim->cells);
    free(sim->fits);
    free(sim->delivery_note);
    memset(sim, 0, sizeof *sim);
}

/* ---- outputs --------------------------------------------------------------- */

/* %.*g or the missing word. */
static const char *fmt(char *buf, size_t size, double v, int digits, const char *missing) {
    if (isnan(v) || isinf(v))
        snprintf(buf, size, "%s", missing);
    else
        snprintf(buf, size, "%.*g", digits, v);
    return buf;
}

#define NB 16
static char bufs[NB][64];
static int nb;
static const char *csvv(double v, int digits) { return fmt(bufs[nb++ % NB], 64, v, digits, ""); }
/* For people: st_fmt_plain's form (no exponent), "n/a" when missing. */
static const char *mdv(double v, int digits) {
    char *b = bufs[nb++ % NB];
    if (isnan(v) || isinf(v))
        return "n/a";
    st_fmt_plain(b, 64, v, digits);
    return b;
}

/* A ratio as a signed percentage with enough digits for tiny effects. */
static const char *pct(double ratio) {
    char *b = bufs[nb++ % NB];
    if (isnan(ratio))
        return "n/a";
    double p = (ratio - 1) * 100;
    if (p == 0)
        snprintf(b, 64, "0%%");
    else if (fabs(p) >= 1)
        snprintf(b, 64, "%+.2f%%", p);
    else {
        st_fmt_plain(b + 1, 63, fabs(p), 2); /* no exponent */
        b[0] = p < 0 ? '-' : '+';
        strcat(b, "%");
    }
    return b;
}

static const char *cell_name(const st_simcell *c) {
    const char *slash = strstr(c->label, "/sim/");
    return slash ? slash + 5 : c->label;
}

void st_sim_write_md(FILE *f, const st_sim *sim) {
    if (!sim || !sim->ncells)
        return;
    fputs("## Simulated metrics: exact counts\n\n", f);
    fprintf(f,
            "Every simulated cell ran %s under valgrind's cachegrind (results.db: cells with backend `sim`); "
            "instructions (`sim::Ir`) and estimated cycles (`sim::est-cycles` = L1 hits + 5 x LL hits + 35 x RAM "
            "accesses) are counts, not samples of a noisy quantity, so no interval is given: the repeated runs of "
            "a cell without time sampling agree to the count (the runtime records the times of a virtual clock, "
            "SGC_VIRTUAL_CLOCK), which is checked below (runs without it: to within %.2g%%). %zu runs, %zu ok.\n\n",
            "at least twice", 100 * ST_SIM_TOLERANCE, sim->runs, sim->ok_runs);
    if (sim->flagged) {
        fprintf(f,
                "**NOT DETERMINISTIC: %zu simulated cells repeated with different counts (any difference with the "
                "virtual clock, more than %.2g%% without):**\n\n",
                sim->flagged, 100 * ST_SIM_TOLERANCE);
        for (size_t i = 0; i < sim->ncells; i++)
            if (sim->cells[i].deterministic == 0)
                fprintf(f, "- %s: %s\n", sim->cells[i].label, sim->cells[i].note);
        fputc('\n', f);
    } else {
        size_t exact = 0, within = 0;
        double worst = 0;
        for (size_t i = 0; i < sim->ncells; i++)
            if (sim->cells[i].deterministic == 1 && sim->cells[i].exact == 1) {
                exact++;
            } else if (sim->cells[i].deterministic == 1) {
                within++;
                worst = fmax(worst, fmax(sim->cells[i].spread[SW_SIM_IR], sim->cells[i].spread[SW_SIM_CYCLES]));
            }
        fprintf(f, "Determinism: of the %zu checked cells (those without time sampling), ", exact + within);
        if (exact)
            fprintf(f, "%zu repeated every count exactly%s", exact, within ? "; " : "");
        if (within)
            fprintf(f,
                    "%zu, whose runs recorded real times (no SGC_VIRTUAL_CLOCK), repeated within %.2g%% (largest "
                    "spread %.2g%% of instructions or estimated cycles)",
                    within, 100 * ST_SIM_TOLERANCE, 100 * worst);
        if (!exact && !within)
            fputs("none had two ok runs", f);
        fputs(".\n\n", f);
    }
    fputs("Per workload, the instructions and estimated cycles per allocation sample and per time sample, and "
          "the fixed cost of turning sampling on, are fitted like the timed cells' costs: see \"Per-sample cost "
          "by regression\" above (metrics sim_instructions and sim_est_cycles; regress.csv).\n",
          f);
    fputc('\n', f);
    if (isnan(sim->delivery_ns))
        fprintf(f, "Time sampling's modelled overhead is not available: the kernel's signal delivery cost was %s.\n\n",
                sim->delivery_note ? sim->delivery_note : "not measured");
    else
        fprintf(f,
                "Time cells are modelled: under valgrind a timer fires far more often per unit of work and the "
                "kernel's signal delivery is not counted. The **counted** part is the user-space instructions "
                "per time sample (handler and drain, from the counts and the sample count); the **measured** "
                "part is the kernel's delivery cost, %.0f ns per signal, measured natively by time-bench "
                "(meta `time_delivery_ns`). Modelled overhead at the native rate f: 1 + f x (instructions per "
                "sample x the baseline's native ns per instruction + delivery ns).\n\n",
                sim->delivery_ns);
    const char *w = NULL;
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        if (!w || strcmp(w, c->workload)) {
            if (w)
                fputc('\n', f);
            w = c->workload;
            fprintf(f, "### %s (simulated, --size %lld)\n\n", w, (long long)c->size);
            fputs("| cell | runs ok | instructions | est. cycles | overhead instr | overhead cycles | samples | "
                  "instr / sample | cycles / sample | samples/s native | normalized instr | normalized cycles | "
                  "modelled time overhead | spread | notes |\n"
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
                  f);
        }
        double samples = c->time_hz && !c->alloc_period   ? c->time_samples
                         : c->alloc_period && !c->time_hz ? c->alloc_samples
                                                          : c->alloc_samples + c->time_samples;
        double spread = fmax(c->spread[SW_SIM_IR], c->spread[SW_SIM_CYCLES]);
        fprintf(f, "| %s | %zu/%zu | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cell_name(c),
                c->ok, c->runs, mdv(c->v[SW_SIM_IR], 15), mdv(c->v[SW_SIM_CYCLES], 15), pct(c->overhead_ir),
                pct(c->overhead_cyc), c->baseline == c ? "0" : mdv(samples, 10), mdv(c->per_sample_ir, 5),
                mdv(c->per_sample_cyc, 5), mdv(c->sps_native, 4), pct(c->norm_ir), pct(c->norm_cyc),
                pct(c->model_overhead),
                isnan(spread) ? "n/a"
                : spread == 0 ? "0"
                              : mdv(100 * spread, 2),
                c->note[0] ? c->note : "");
    }
    fputs("\n\"spread\" is (max - min) / min of the repeated runs' counts, in percent (time cells: the sample "
          "count itself varies). \"normalized\" is 1 + (overhead - 1) x 1000 / (samples per native second), "
          "shown as a percentage above 1.\n\n",
          f);
}

void st_sim_write_csv(FILE *f, const st_sim *sim) {
    fputs("workload,label,kind,alloc_mode,alloc_period,time_clock,time_hz,size,runs,ok", f);
    for (int m = 0; m < SW_SIM_N; m++)
        fprintf(f, ",%s", metric_names[m] + 5);
    fputs(",spread_Ir,spread_est_cycles,deterministic,alloc_samples,time_samples,overhead_Ir,overhead_est_cycles,"
          "per_sample_Ir,per_sample_est_cycles,native_s,sps_native,normalized_Ir,normalized_est_cycles,"
          "model_user_ns,model_kernel_ns,model_overhead,model_normalized,note\n",
          f);
    for (size_t i = 0; i < (sim ? sim->ncells : 0); i++) {
        const st_simcell *c = &sim->cells[i];
        fprintf(f, "%s,%s,%s,%s,%lld,%s,%lld,%lld,%zu,%zu", c->workload, c->label, c->kind, c->alloc_mode,
                (long long)c->alloc_period, c->time_clock, (long long)c->time_hz, (long long)c->size, c->runs, c->ok);
        for (int m = 0; m < SW_SIM_N; m++)
            fprintf(f, ",%s", csvv(c->v[m], 17));
        fprintf(f, ",%s,%s,%s", csvv(c->spread[SW_SIM_IR], 6), csvv(c->spread[SW_SIM_CYCLES], 6),
                c->deterministic < 0 ? ""
                : c->deterministic   ? "1"
                                     : "0");
        fprintf(f, ",%s,%s,%s,%s,%s,%s,%s,%s", csvv(c->alloc_samples, 15), csvv(c->time_samples, 15),
                csvv(c->overhead_ir, 12), csvv(c->overhead_cyc, 12), csvv(c->per_sample_ir, 8),
                csvv(c->per_sample_cyc, 8), csvv(c->native_s, 6), csvv(c->sps_native, 6));
        fprintf(f, ",%s,%s,%s,%s,%s,%s,", csvv(c->norm_ir, 10), csvv(c->norm_cyc, 10), csvv(c->model_user_ns, 6),
                csvv(c->model_kernel_ns, 6), csvv(c->model_overhead, 8), csvv(c->model_norm, 8));
        if (c->note[0]) {
            fputc('"', f);
            for (const char *s = c->note; *s; s++) {
                if (*s == '"')
                    fputc('"', f);
                fputc(*s == '\n' ? ' ' : *s, f);
            }
            fputc('"', f);
        }
        fputc('\n', f);
    }
}

const st_simcell *st_sim_pick_alloc(const st_sim *sim, const char *w) {
    const st_simcell *best = NULL;
    for (size_t i = 0; i < sim->ncells; i++) {
        const st_simcell *c = &sim->cells[i];
        if (strcmp(c->workload, w) || strcmp(c->kind, "alloc") || strcmp(c->alloc_mode, "fixed") ||
            !(c->sps_native > 0))
            continue;
        if (!best || fabs(log(c->sps_native / 1000)) < fabs(log(best->sps_native / 1000)))
            best = c;
    }
    return best;
}

double st_sim_time_norm(const st_sim *sim, const char *w) {
    double tn = NAN;
    for (size_t j = 0; j < sim->ncells; j++) {
        const st_simcell *c = &sim->cells[j];
        if (!strcmp(c->workload, w) && !strcmp(c->kind, "time") && !isnan(c->model_norm)) {
            tn = c->model_norm; /* the same at every rate: per 1000 samples/s */
            if (c->time_hz == 1000)
                break;
        }
    }
    return tn;
}

void st_sim_write_metrics(FILE *f, const st_sim *sim) {
    for (size_t i = 0; i < (sim ? sim->ncells : 0); i++) {
        const st_simcell *c = &sim->cells[i];
        if (!c->ok)
            continue;
        for (int m = 0; m < SW_SIM_N; m++) {
            /* workload,label,metric,n,median,q1,q3,mad,min,max,outliers: the
             * median and the extremes (quartiles of two or three exact counts
             * would say nothing more). */
            fprintf(f, "%s,%s,%s,%zu,%s,,,,%s,%s,\n", c->workload, c->label, metric_names[m], c->ok, csvv(c->v[m], 17),
                    csvv(c->vmin[m], 17), csvv(c->vmax[m], 17));
        }
    }
}

/* st_replicates.c - replicates of a sweep and the intervals over them (invariants: st_replicates.h). */
#include "st_replicates.h"
#include "st_analyze.h"
#include "st_costfit.h"
#include "st_normdiff.h"
#include "st_util.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Which replicate a run belongs to ------------------------------------- */

typedef struct rkey {
    int64_t run_id;
    int64_t rep;
    char *node;
} rkey;

static int cmp_pair(const void *a, const void *b) {
    const rkey *x = a, *y = b;
    if (x->rep != y->rep)
        return x->rep < y->rep ? -1 : 1;
    return strcmp(x->node, y->node);
}

static int has_column(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_finalize(st);
    return 1;
}

int st_repmap_read(void *dbv, st_repmap *out, char *err, size_t errlen) {
    sqlite3 *db = dbv;
    memset(out, 0, sizeof *out);
    out->has_column = has_column(db, "SELECT replicate FROM runs LIMIT 0");
    int node = has_column(db, "SELECT node FROM runs LIMIT 0");
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT run_id, %s, %s FROM runs WHERE round > 0 ORDER BY run_id",
             out->has_column ? "ifnull(replicate, 0)" : "0", node ? "ifnull(node, 'unknown')" : "'unknown'");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "reading the runs' replicates: %s", sqlite3_errmsg(db));
        return -1;
    }
    rkey *keys = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap)
            keys = ct_xrealloc(keys, (cap = cap ? 2 * cap : 256) * sizeof *keys);
        const char *nd = (const char *)sqlite3_column_text(st, 2);
        keys[n++] = (rkey){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), ct_xstrdup(nd ? nd : "unknown")};
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "reading the runs' replicates: %s", sqlite3_errmsg(db));
        for (size_t i = 0; i < n; i++)
            free(keys[i].node);
        free(keys);
        return -1;
    }
    /* The distinct (replicate, node) pairs in order, and each run's index. */
    rkey *pairs = ct_xmalloc((n ? n : 1) * sizeof *pairs);
    if (n)
        memcpy(pairs, keys, n * sizeof *keys);
    qsort(pairs, n, sizeof *pairs, cmp_pair);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || cmp_pair(&pairs[k - 1], &pairs[i]))
            pairs[k++] = pairs[i];
    int reps = 0, nodes = 0;
    for (size_t i = 1; i < k; i++) {
        reps |= pairs[i].rep != pairs[0].rep;
        nodes |= strcmp(pairs[i].node, pairs[0].node) != 0;
    }
    out->k = k ? k : 1;
    out->name = ct_xcalloc(out->k, sizeof *out->name);
    for (size_t j = 0; j < k; j++) {
        char b[256];
        if (reps && nodes)
            snprintf(b, sizeof b, "replicate %lld, node %.200s", (long long)pairs[j].rep, pairs[j].node);
        else if (nodes)
            snprintf(b, sizeof b, "node %.200s", pairs[j].node);
        else
            snprintf(b, sizeof b, "replicate %lld", (long long)pairs[j].rep);
        out->name[j] = ct_xstrdup(b);
    }
    if (!k)
        out->name[0] = ct_xstrdup("replicate 0");
    out->n = n;
    out->run_id = ct_xmalloc((n ? n : 1) * sizeof *out->run_id);
    out->rep = ct_xmalloc((n ? n : 1) * sizeof *out->rep);
    for (size_t i = 0; i < n; i++) {
        size_t lo = 0, hi = k;
        while (lo + 1 < hi) { /* the pairs are sorted: binary search */
            size_t mid = (lo + hi) / 2;
            if (cmp_pair(&pairs[mid], &keys[i]) <= 0)
                lo = mid;
            else
                hi = mid;
        }
        out->run_id[i] = keys[i].run_id;
        out->rep[i] = (int)lo;
    }
    for (size_t i = 0; i < n; i++)
        free(keys[i].node);
    free(keys);
    free(pairs);
    return 0;
}

int st_repmap_of(const st_repmap *m, int64_t run_id) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->run_id[mid] < run_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->run_id[lo] == run_id ? m->rep[lo] : 0;
}

void st_repmap_free(st_repmap *m) {
    for (size_t j = 0; m->name && j < m->k; j++)
        free(m->name[j]);
    free(m->name);
    free(m->run_id);
    free(m->rep);
    memset(m, 0, sizeof *m);
}

int st_reps_load(const char *dir, const st_sweep *sw, int **rep, size_t *k, char *err, size_t errlen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return 2;
    }
    sqlite3_busy_timeout(db, 10000);
    st_repmap m;
    char why[512];
    if (st_repmap_read(db, &m, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", path, why);
        sqlite3_close(db);
        return 2;
    }
    sqlite3_close(db);
    *rep = ct_xmalloc((sw->nruns ? sw->nruns : 1) * sizeof **rep);
    for (size_t r = 0; r < sw->nruns; r++)
        (*rep)[r] = st_repmap_of(&m, sw->runs[r].run_id);
    *k = m.k;
    st_repmap_free(&m);
    return 0;
}

/* ---- Combining replicates ---------------------------------------------------- */

void st_rep_family(const st_cell *c, char *buf, size_t size) {
    snprintf(buf, size, "%s/%s", c->workload, strcmp(c->kind, "time") == 0 ? "time" : "other");
}

void st_rep_combine_cells(const double *est, const double *se, const size_t *cell, size_t n, size_t ncells,
                          const size_t *family, size_t nfamilies, double confidence, st_rep_comb *out) {
    /* Each family's pooled variance from its cells' units. */
    double *ftau = ct_xmalloc((nfamilies ? nfamilies : 1) * sizeof *ftau);
    double *fdf = ct_xmalloc((nfamilies ? nfamilies : 1) * sizeof *fdf);
    size_t *fcell = ct_xmalloc((n ? n : 1) * sizeof *fcell);
    double *fe = ct_xmalloc((n ? n : 1) * sizeof *fe), *fs = ct_xmalloc((n ? n : 1) * sizeof *fs);
    double *flo = ct_xmalloc((nfamilies ? nfamilies : 1) * sizeof *flo);
    double *fhi = ct_xmalloc((nfamilies ? nfamilies : 1) * sizeof *fhi);
    for (size_t f = 0; f < nfamilies; f++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (family[cell[i]] == f)
                fe[m] = est[i], fs[m] = se[i], fcell[m++] = cell[i];
        ftau[f] = st_re_family_tau2(fe, fs, fcell, m, ncells, &fdf[f]);
        st_re_family_tau2_ci(fe, fs, fcell, m, ncells, confidence, &flo[f], &fhi[f]);
    }
    double *ce = ct_xmalloc((n ? n : 1) * sizeof *ce), *cs = ct_xmalloc((n ? n : 1) * sizeof *cs);
    for (size_t c = 0; c < ncells; c++) {
        st_rep_comb *o = &out[c];
        memset(o, 0, sizeof *o);
        size_t k = 0;
        double ss = 0;
        size_t nse = 0;
        for (size_t i = 0; i < n; i++)
            if (cell[i] == c) {
                ce[k] = est[i], cs[k] = se[i];
                if (isfinite(se[i]))
                    ss += se[i] * se[i], nse++;
                k++;
            }
        o->k = k;
        o->within = nse ? sqrt(ss / (double)nse) : NAN;
        o->tau2_family = ftau[family[c]];
        o->df_family = fdf[family[c]];
        st_re own;
        st_re_combine(ce, cs, k, -1, 0, confidence, &own);
        o->tau2_cell = k >= 2 && own.weighted ? own.tau2 : NAN;
        if (k >= ST_REP_OWN || !isfinite(o->tau2_family) || !own.weighted) {
            o->re = own;
            o->own = 1;
            o->tau2_lo = own.tau2_lo, o->tau2_hi = own.tau2_hi;
        } else {
            o->tau2_lo = flo[family[c]], o->tau2_hi = fhi[family[c]];
            st_re_combine(ce, cs, k, o->tau2_family, o->df_family, confidence, &o->re);
            o->re.q = own.q, o->re.q_p = own.q_p, o->re.i2 = own.i2;
        }
    }
    free(ftau), free(fdf), free(flo), free(fhi), free(fcell), free(fe), free(fs), free(ce), free(cs);
}

/* ---- The analysis of each replicate ------------------------------------------ */

/* The sweep restricted to replicate j's runs: the same cells (copied, with
 * their run ranges), the runs copied (strings shared with sw). */
static void subsweep(const st_sweep *sw, const int *rep, int j, st_sweep *out) {
    *out = *sw;
    out->planned = -1;
    out->cells = ct_xmalloc((sw->ncells ? sw->ncells : 1) * sizeof *out->cells);
    out->runs = ct_xmalloc((sw->nruns ? sw->nruns : 1) * sizeof *out->runs);
    out->counter = sw->nevents ? ct_xmalloc((sw->nruns ? sw->nruns : 1) * sw->nevents * sizeof(double)) : NULL;
    out->nruns = 0;
    for (size_t c = 0; c < sw->ncells; c++) {
        st_cell *x = &out->cells[c];
        *x = sw->cells[c];
        x->first_run = out->nruns;
        x->nruns = x->used = x->failed = 0;
        for (size_t r = sw->cells[c].first_run; r < sw->cells[c].first_run + sw->cells[c].nruns; r++) {
            if (rep[r] != j)
                continue;
            out->runs[out->nruns] = sw->runs[r];
            if (sw->nevents)
                memcpy(&out->counter[out->nruns * sw->nevents], &sw->counter[r * sw->nevents],
                       sw->nevents * sizeof(double));
            out->nruns++;
            x->nruns++;
            if (sw->runs[r].used)
                x->used++;
            else
                x->failed++;
        }
    }
}

static void subsweep_free(st_sweep *s) {
    free(s->cells);
    free(s->runs);
    free(s->counter);
}

/* The statistics combined over replicates: the result's interval, and
 * whether it is a ratio (combined on the log scale) and a paired one. */
static const struct {
    size_t off;
    int logscale, paired;
} quantities[] = {{offsetof(st_result, overhead), 1, 0},    {offsetof(st_result, cpu_overhead), 1, 0},
                  {offsetof(st_result, norm), 0, 0},        {offsetof(st_result, cost), 0, 0},
                  {offsetof(st_result, paired), 1, 1},      {offsetof(st_result, paired_cpu), 1, 1},
                  {offsetof(st_result, paired_norm), 0, 1}, {offsetof(st_result, paired_cost), 0, 1}};
#define NQUANT (sizeof quantities / sizeof quantities[0])

static st_interval *quantity(st_result *r, size_t q) { return (st_interval *)((char *)r + quantities[q].off); }

static void rnote(st_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rnote(st_result *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    st_note_add(r->note, sizeof r->note, fmt, ap);
    va_end(ap);
}

/* Each result's replicates with used runs (r->replicates) and an->replicates
 * (the most, at least 1); returns the most (0 without used runs). */
static size_t count_replicates(st_analysis *an, const int *rep, size_t k) {
    size_t nc = an->nresults;
    /* Replicates per cell (with used runs); only a cell in two or more has
     * anything to combine (a sweep merged from shards runs each group on one
     * node). */
    size_t most = 0;
    int *seen = ct_xmalloc((k ? k : 1) * sizeof *seen);
    for (size_t i = 0; i < nc; i++) {
        st_result *r = &an->results[i];
        const st_cell *c = r->cell;
        memset(seen, 0, (k ? k : 1) * sizeof *seen);
        size_t reps = 0;
        for (size_t x = c->first_run; x < c->first_run + c->nruns; x++)
            if (an->sweep->runs[x].used && !seen[rep[x]]++)
                reps++;
        r->replicates = reps;
        if (reps > most)
            most = reps;
    }
    free(seen);
    an->replicates = most > 1 ? most : 1;
    return most;
}

/* Each cell's family index in family[] and the families' names in fname[]
 * (st_rep_family, in the order first met); returns how many families. */
static size_t cell_families(const st_analysis *an, size_t *family, char (*fname)[256]) {
    size_t nf = 0;
    for (size_t i = 0; i < an->nresults; i++) {
        char b[256];
        st_rep_family(an->results[i].cell, b, sizeof b);
        size_t f = 0;
        while (f < nf && strcmp(fname[f], b))
            f++;
        if (f == nf)
            snprintf(fname[nf++], sizeof fname[0], "%s", b);
        family[i] = f;
    }
    return nf;
}

/* Quantity q of r replaced by o's interval over replicates (o->k >= 2), its
 * level set to replicates, and for the overhead and the paired ratio the
 * between-replicate components kept and noted. */
static void apply_pooled(st_result *r, size_t q, const st_rep_comb *o) {
    st_interval *iv = quantity(r, q);
    int lg = quantities[q].logscale;
    iv->est = lg ? exp(o->re.est) : o->re.est;
    iv->lo = lg ? exp(o->re.lo) : o->re.lo;
    iv->hi = lg ? exp(o->re.hi) : o->re.hi;
    iv->z0 = iv->accel = NAN;
    iv->method = isfinite(o->re.lo) ? ST_CI_RANDOM : ST_CI_NONE;
    iv->why = isfinite(o->re.lo) ? NULL : "no interval over replicates";
    if (q == 4)
        r->paired_re = o->re, r->paired_se = o->re.se;
    if (quantities[q].paired)
        r->paired_level = ST_LEVEL_REPLICATES;
    else
        r->overhead_level = ST_LEVEL_REPLICATES;
    if (q == 0 || q == 4) {
        if (q) {
            r->rep_paired_tau = sqrt(o->tau2_cell);
            r->rep_paired_tau_family = sqrt(o->tau2_family);
            r->rep_paired_within = o->within;
            r->rep_paired_tau_used = sqrt(o->re.tau2);
            r->rep_paired_tau_lo = sqrt(o->tau2_lo), r->rep_paired_tau_hi = sqrt(o->tau2_hi);
        } else {
            r->rep_overhead_tau = sqrt(o->tau2_cell);
            r->rep_overhead_tau_family = sqrt(o->tau2_family);
            r->rep_overhead_within = o->within;
            r->rep_overhead_tau_used = sqrt(o->re.tau2);
            r->rep_overhead_tau_lo = sqrt(o->tau2_lo), r->rep_overhead_tau_hi = sqrt(o->tau2_hi);
        }
        char fb[256];
        st_rep_family(r->cell, fb, sizeof fb);
        rnote(r, "%s over %zu replicates: between-replicate SD %.3g%% (%s), within %.3g%%",
              q ? "paired ratio" : "overhead", o->k, 100 * sqrt(o->re.tau2), o->own ? "its own" : fb, 100 * o->within);
    }
}

/* The standard error of replicate result r's quantity q (interval iv),
 * from the replicate's own data, never from its interval's width: for the
 * four paired statistics the kernel SE of the Hodges-Lehmann estimate
 * over the replicate's blocks (st_hl_kernel_se; the paired ratio's is
 * paired_se, st_pairs.c), for the four unpaired ones the bootstrap SE of
 * the statistic of the medians over its runs and its baseline's
 * (st_unpaired_se); min(ST_LEVEL_SE_RESAMPLES, --resamples) resamples,
 * seed from the cell's label and the quantity.  NaN (the unit then has no
 * weight of its own: st_levels.h) without an interval or with too few
 * blocks or runs. */
static double unit_se(const st_result *r, size_t q, const st_interval *iv, const st_analysis_opts *opts) {
    static const char *const tag[4] = {"#rep-se-overhead", "#rep-se-cpu-overhead", "#rep-se-unorm", "#rep-se-ucost"};
    if (iv->method == ST_CI_NONE)
        return NAN;
    if (q == 4)
        return r->paired_se;
    if (q > 4) {
        const double *series = q == 5 ? r->pair_cpu : q == 6 ? r->pair_norm : r->pair_cost;
        return series ? st_hl_kernel_se(series, q == 5 ? r->pairs : r->npz) : NAN;
    }
    size_t b = opts->boot.resamples < ST_LEVEL_SE_RESAMPLES ? opts->boot.resamples : ST_LEVEL_SE_RESAMPLES;
    uint64_t seed = opts->boot.seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, r->cell->label), tag[q]);
    return st_unpaired_se(r, (st_unpaired_stat)q, b, seed);
}

/* Every quantity of every result that ran in two or more replicates pooled
 * from the k replicates' analyses sub[] (st_rep_combine_cells, the families
 * of cell_families). */
static void pool_quantities(st_analysis *an, st_analysis *sub, size_t k, const st_analysis_opts *opts) {
    size_t nc = an->nresults;
    size_t *family = ct_xmalloc((nc ? nc : 1) * sizeof *family);
    char(*fname)[256] = ct_xmalloc((nc ? nc : 1) * sizeof *fname);
    size_t nf = cell_families(an, family, fname);
    double *est = ct_xmalloc(nc * k * sizeof *est), *se = ct_xmalloc(nc * k * sizeof *se);
    size_t *cell = ct_xmalloc(nc * k * sizeof *cell);
    st_rep_comb *comb = ct_xmalloc((nc ? nc : 1) * sizeof *comb);
    double conf = opts->boot.confidence;
    for (size_t q = 0; q < NQUANT; q++) {
        size_t n = 0;
        for (size_t i = 0; i < nc; i++)
            for (size_t j = 0; j < k; j++) {
                const st_interval *iv = quantity(&sub[j].results[i], q);
                double e = iv->est;
                if (quantities[q].logscale)
                    e = e > 0 ? log(e) : NAN;
                if (!isfinite(e))
                    continue;
                est[n] = e;
                se[n] = unit_se(&sub[j].results[i], q, iv, opts);
                cell[n++] = i;
            }
        st_rep_combine_cells(est, se, cell, n, nc, family, nf, conf, comb);
        for (size_t i = 0; i < nc; i++)
            if (comb[i].k >= 2) /* else the cell ran in one replicate: its pooled interval is that replicate's */
                apply_pooled(&an->results[i], q, &comb[i]);
    }
    free(family), free(fname), free(est), free(se), free(cell), free(comb);
}

/* Verdicts and floors from the intervals over replicates. */
static void replicate_verdicts(st_analysis *an, const st_analysis_opts *opts) {
    for (size_t i = 0; i < an->nresults; i++) {
        st_result *r = &an->results[i];
        if (r->replicates < 2)
            continue;
        if (r->pairs) {
            r->pverdict = st_paired_verdict(&r->paired, opts->margin);
            if (r->is_baseline && r->paired.method != ST_CI_NONE) {
                double up = r->paired.hi - 1.0, down = 1.0 - r->paired.lo;
                r->paired_floor = up > down ? up : down;
            }
        }
    }
}

/* The allocation-vs-time differences over replicates, pooled over the
 * workloads: each replicate's differences (st_analyze_normdiff on sub[j] with
 * so), combined into an->normdiffs for every workload in two or more. */
static void pool_normdiffs(st_analysis *an, st_analysis *sub, size_t k, const st_analysis_opts *so,
                           const st_analysis_opts *opts) {
    if (!an->normdiffs || !an->normdiffs->n)
        return;
    double conf = opts->boot.confidence;
    st_normdiffs *ds = an->normdiffs;
    size_t nw = ds->n, n = 0;
    double *de = ct_xmalloc(nw * k * sizeof *de), *dse = ct_xmalloc(nw * k * sizeof *dse);
    size_t *dc = ct_xmalloc(nw * k * sizeof *dc), *df = ct_xcalloc(nw, sizeof *df);
    st_rep_comb *dcomb = ct_xmalloc(nw * sizeof *dcomb);
    for (size_t j = 0; j < k; j++) {
        st_analyze_normdiff(&sub[j], so);
        for (size_t w = 0; w < nw; w++) {
            const st_normdiff *d = st_normdiff_find(&sub[j], ds->d[w].workload);
            if (!d || !isfinite(d->diff.est))
                continue;
            de[n] = d->diff.est, dse[n] = d->se, dc[n++] = w; /* the SD of its joint resampling */
        }
    }
    st_rep_combine_cells(de, dse, dc, n, nw, df, 1, conf, dcomb);
    for (size_t w = 0; w < nw; w++) {
        st_normdiff *d = &ds->d[w];
        if (dcomb[w].k < 2 || !d->a || !d->t)
            continue;
        d->diff.est = dcomb[w].re.est;
        d->diff.lo = dcomb[w].re.lo;
        d->diff.hi = dcomb[w].re.hi;
        d->diff.method = isfinite(dcomb[w].re.lo) ? ST_CI_RANDOM : ST_CI_NONE;
        d->diff.why = isfinite(dcomb[w].re.lo) ? NULL : "no interval over replicates";
        d->diff.z0 = d->diff.accel = NAN;
        d->se = dcomb[w].re.se;
        d->level = ST_LEVEL_REPLICATES;
        d->res = st_diff_verdict(&d->diff, opts->margin);
    }
    free(de), free(dse), free(dc), free(df), free(dcomb);
}

/* The fit of sub's analysis that matches f (its workload, kind, time mode
 * and metric), or NULL. */
static const st_costfit *sub_fit(const st_analysis *sub, const st_costfit *f) {
    if (!sub->fits)
        return NULL;
    return st_costfit_find_mode(sub->fits, f->workload, f->kind, strcmp(f->kind, "time") ? NULL : f->time_mode,
                                f->metric);
}

/* The index of name among names[0..*n-1], appended when new. */
static size_t family_index(char (*names)[64], size_t *n, const char *name) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(names[i], name))
            return i;
    snprintf(names[*n], sizeof names[*n], "%s", name);
    return (*n)++;
}

/* The per-sample costs over replicates: every timed fit of an (not the
 * simulated part's) is made again on each replicate alone (sub[j].fits), and
 * its cost (fit.cost; in the blocked design also the pairs' pfit.cost) is
 * replaced by the random-effects combination of the replicates' costs, each
 * with its bootstrap SE (st_reg_boot_se), the between-replicate variance pooled
 * over the workloads' fits of one kind, time mode and metric (a family; the
 * cost's own from ST_REP_OWN replicates); norm and pnorm follow.  So does
 * the allocation-vs-time difference per 1000 samples/s of each wall-time
 * time fit (rep_diff: each replicate's st_costfit_norm_difference of its
 * two fits with st_costfit_norm_difference_se, families by time mode).
 * The intercepts, fixed costs and residuals stay the pooled fit's. */
static void pool_fits(st_analysis *an, const st_analysis *sub, size_t k, const st_analysis_opts *opts) {
    if (!an->fits || !an->fits->n)
        return;
    st_costfits *fs = an->fits;
    size_t nf = fs->n;
    double conf = opts->boot.confidence;
    double *est = ct_xmalloc(nf * k * sizeof *est), *se = ct_xmalloc(nf * k * sizeof *se);
    size_t *cell = ct_xmalloc(nf * k * sizeof *cell), *family = ct_xcalloc(nf, sizeof *family);
    char(*fname)[64] = ct_xcalloc(nf + 1, sizeof *fname);
    st_rep_comb *comb = ct_xmalloc(nf * sizeof *comb);
    for (int paired = 0; paired < 2; paired++) {
        size_t n = 0, nfam = 0;
        for (size_t i = 0; i < nf; i++) {
            const st_costfit *f = &fs->fits[i];
            char key[64];
            snprintf(key, sizeof key, "%s%s%s/%s", f->kind, *f->time_mode ? "-" : "", f->time_mode,
                     st_fit_metric_name(f->metric));
            family[i] = family_index(fname, &nfam, key);
            if (!f->baseline || (paired && !f->paired))
                continue; /* the simulated part's exact counts; no pairs */
            for (size_t j = 0; j < k; j++) {
                const st_costfit *g = sub_fit(&sub[j], f);
                if (!g || (paired && !g->paired))
                    continue;
                const st_reg_fit *r = paired ? &g->pfit : &g->fit;
                double s = st_reg_boot_se(r, NULL);
                if (!isfinite(r->cost.est) || !isfinite(s) || s <= 0)
                    continue;
                est[n] = r->cost.est, se[n] = s, cell[n++] = i;
            }
        }
        st_rep_combine_cells(est, se, cell, n, nf, family, nfam, conf, comb);
        for (size_t i = 0; i < nf; i++) {
            st_costfit *f = &fs->fits[i];
            if (comb[i].k < 2 || !f->baseline || (paired && !f->paired))
                continue;
            st_reg_est *c = paired ? &f->pfit.cost : &f->fit.cost, *nm = paired ? &f->pnorm : &f->norm;
            c->est = comb[i].re.est, c->lo = comb[i].re.lo, c->hi = comb[i].re.hi;
            *(paired ? &f->pcost_se : &f->cost_se) = comb[i].re.se;
            if (f->metric == ST_FIT_WALL || f->metric == ST_FIT_CPU) {
                nm->est = 1 + c->est * 1e-6, nm->lo = 1 + c->lo * 1e-6, nm->hi = 1 + c->hi * 1e-6;
            }
            double tau = sqrt(comb[i].own ? comb[i].tau2_cell : comb[i].tau2_family);
            if (!paired)
                f->rep_k = comb[i].k;
            f->level = ST_LEVEL_REPLICATES;
            const char *unit = f->metric == ST_FIT_INSTR ? "instructions" : "ns";
            st_costfit_note(f, "%scost over %zu replicates: between-replicate SD %.3g %s (%s), within %.3g %s",
                            paired ? "pairs " : "", comb[i].k, tau, unit, comb[i].own ? "its own" : fname[family[i]],
                            comb[i].within, unit);
        }
    }
    /* The allocation-vs-time differences, per wall-time time fit. */
    size_t n = 0, nfam = 0;
    for (size_t i = 0; i < nf; i++) {
        const st_costfit *t = &fs->fits[i];
        family[i] = family_index(fname, &nfam, t->time_mode);
        if (!t->baseline || t->metric != ST_FIT_WALL || strcmp(t->kind, "time"))
            continue;
        const st_costfit *a = st_costfit_find(fs, t->workload, "alloc", ST_FIT_WALL);
        if (!a || !a->baseline)
            continue;
        for (size_t j = 0; j < k; j++) {
            const st_costfit *ga = sub_fit(&sub[j], a), *gt = sub_fit(&sub[j], t);
            if (!ga || !gt)
                continue;
            /* The replicate's own difference and its SE, as its regress.csv gives them. */
            double d = st_costfit_norm_difference(ga, gt).est, s = st_costfit_norm_difference_se(ga, gt);
            if (!isfinite(d) || !isfinite(s) || s <= 0)
                continue;
            est[n] = d, se[n] = s, cell[n++] = i;
        }
    }
    st_rep_combine_cells(est, se, cell, n, nf, family, nfam, conf, comb);
    for (size_t i = 0; i < nf; i++) {
        st_costfit *t = &fs->fits[i];
        if (comb[i].k < 2 || !t->baseline || t->metric != ST_FIT_WALL || strcmp(t->kind, "time"))
            continue;
        t->rep_diff.est = comb[i].re.est, t->rep_diff.lo = comb[i].re.lo, t->rep_diff.hi = comb[i].re.hi;
        t->rep_diff_se = comb[i].re.se;
        t->has_rep_diff = 1;
    }
    free(est), free(se), free(cell), free(family), free(fname), free(comb);
}

void st_reps_apply(st_analysis *an, const int *rep, size_t k, const st_analysis_opts *opts) {
    size_t nc = an->nresults;
    if (count_replicates(an, rep, k) < 2)
        return; /* st_analyze set the levels of one replicate */
    /* Each replicate analysed alone: the same cells, sorted the same way. */
    st_sweep *subs = ct_xcalloc(k, sizeof *subs);
    st_analysis *sub = ct_xcalloc(k, sizeof *sub);
    st_analysis_opts so = *opts;
    so.progress = 0;
    so.no_fits = an->fits == NULL; /* each replicate's own fits, for pool_fits */
    so.sim = NULL;
    for (size_t j = 0; j < k; j++) {
        if (opts->progress)
            fprintf(stderr, "analyze: replicate %zu of %zu\n", j + 1, k);
        subsweep(an->sweep, rep, (int)j, &subs[j]);
        st_analyze(&subs[j], &so, &sub[j]);
        for (size_t i = 0; i < nc; i++) /* the same cells, sorted the same way */
            if (strcmp(sub[j].results[i].cell->label, an->results[i].cell->label))
                abort();
    }
    pool_quantities(an, sub, k, opts);
    replicate_verdicts(an, opts);
    pool_normdiffs(an, sub, k, &so, opts);
    pool_fits(an, sub, k, opts);
    for (size_t j = 0; j < k; j++) {
        st_analysis_free(&sub[j]);
        subsweep_free(&subs[j]);
    }
    free(subs), free(sub);
}

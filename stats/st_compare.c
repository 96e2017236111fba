/* st_compare.c - compares two sweeps cell by cell: ratio and overhead change with BCa intervals, verdicts, reports. */
#include "st_compare.h"
#include "../contracts/ct_json.h"
#include "st_analysis.h"
#include "st_desc.h"
#include "st_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The index of s in names[0..n), or -1: the parsers of the name tables below. */
static int name_index(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

#define GATE_NAME(id, name, what) name,
static const char *const gate_names[ST_NGATES] = {ST_GATES(GATE_NAME)};
#undef GATE_NAME

const char *st_gate_name(st_gate g) { return (unsigned)g < ST_NGATES ? gate_names[g] : "?"; }

int st_gate_parse(const char *s, st_gate *g) {
    int i = name_index(gate_names, ST_NGATES, s);
    if (i < 0)
        return -1;
    *g = (st_gate)i;
    return 0;
}

#define TIME_NAME(id, name, what) name,
static const char *const time_names[ST_CMP_NTIMES] = {ST_CMP_TIMES(TIME_NAME)};
#undef TIME_NAME

const char *st_cmp_time_name(st_cmp_time t) { return (unsigned)t < ST_CMP_NTIMES ? time_names[t] : "?"; }

int st_cmp_time_parse(const char *s, st_cmp_time *t) {
    int i = name_index(time_names, ST_CMP_NTIMES, s);
    if (i < 0)
        return -1;
    *t = (st_cmp_time)i;
    return 0;
}

#define SIMQ_NAME(id, name, what) name,
static const char *const simq_names[ST_CMP_SIM_N] = {ST_CMP_SIMQ(SIMQ_NAME)};
#undef SIMQ_NAME

/* Groups of the four-group bootstrap. */
enum { G_A = 0, G_B, G_A_BASE, G_B_BASE, G_COUNT };

static double stat_ratio(const double (*m)[ST_BOOT_MAX_METRICS]) { return m[G_B][0] / m[G_A][0]; }

static double stat_doverhead(const double (*m)[ST_BOOT_MAX_METRICS]) {
    return m[G_B][0] / m[G_B_BASE][0] - m[G_A][0] / m[G_A_BASE][0];
}

static void note(st_cmp_cell *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    st_note_add(r->note, sizeof r->note, fmt, ap);
    va_end(ap);
}

static double run_time(const st_run *r, st_cmp_time t) {
    return t == ST_CMP_TIME_CPU ? r->user_ns + r->sys_ns : r->wall_ns;
}

/* Per sweep: partner[block] = the index of the block's used role-0 run, or
 * -1 (blocks 1..maxb; maxb = 0 when the sweep has no blocks). */
typedef struct partners {
    long *partner;
    int64_t maxb;
} partners;

static void partners_init(const st_sweep *sw, partners *p) {
    p->maxb = 0;
    for (size_t i = 0; i < sw->nruns; i++)
        if (sw->runs[i].block > p->maxb)
            p->maxb = sw->runs[i].block;
    p->partner = ct_xmalloc((size_t)(p->maxb + 1) * sizeof *p->partner);
    for (int64_t b = 0; b <= p->maxb; b++)
        p->partner[b] = -1;
    for (size_t i = 0; i < sw->nruns; i++) {
        const st_run *r = &sw->runs[i];
        if (r->block > 0 && r->role == 0 && r->used)
            p->partner[r->block] = (long)i;
    }
}

/* The pair values of cell c (its role-1 run's time over its block's role-0
 * run's, both used and with a time t > 0) into a fresh array; *n their
 * number. */
static double *pair_values(const st_sweep *sw, const partners *p, const st_cell *c, st_cmp_time t, size_t *n) {
    double *v = ct_xmalloc((c && c->nruns ? c->nruns : 1) * sizeof *v);
    *n = 0;
    for (size_t i = 0; c && i < c->nruns; i++) {
        const st_run *x = &sw->runs[c->first_run + i];
        if (!x->used || x->role != 1 || x->block <= 0 || x->block > p->maxb || p->partner[x->block] < 0)
            continue;
        double num = run_time(x, t), den = run_time(&sw->runs[p->partner[x->block]], t);
        if (isfinite(num) && num > 0 && isfinite(den) && den > 0)
            v[(*n)++] = num / den;
    }
    return v;
}

/* The run times t of cell c's used runs (NULL: none) into a fresh array; *n
 * their number.  CPU time: the runs without one (or with none spent) are
 * left out. */
static double *run_times(const st_sweep *sw, const st_cell *c, st_cmp_time t, size_t *n) {
    *n = 0;
    if (!c)
        return ct_xmalloc(sizeof(double));
    const st_run **runs = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *runs);
    size_t k = st_used_runs(sw, c, runs), m = 0;
    double *w = ct_xmalloc((k ? k : 1) * sizeof *w);
    for (size_t i = 0; i < k; i++) {
        double v = run_time(runs[i], t);
        if (isfinite(v) && v > 0)
            w[m++] = v;
    }
    free(runs);
    *n = m;
    return w;
}

static const st_cell *find_label(const st_sweep *sw, const char *label) {
    for (size_t i = 0; i < sw->ncells; i++)
        if (strcmp(sw->cells[i].label, label) == 0)
            return &sw->cells[i];
    return NULL;
}

static int cmp_cells(const void *x, const void *y) {
    const st_cmp_cell *a = x, *b = y;
    int d = strcmp(a->a->workload, b->a->workload);
    if (d)
        return d;
    d = st_kind_rank(a->a->kind) - st_kind_rank(b->a->kind);
    if (d)
        return d;
    return strcmp(a->label, b->label);
}

void st_bh_adjust(const double *p, size_t n, double *q) {
    size_t m = 0;
    size_t *idx = ct_xmalloc((n ? n : 1) * sizeof *idx);
    for (size_t i = 0; i < n; i++) {
        q[i] = NAN;
        if (isfinite(p[i]))
            idx[m++] = i;
    }
    /* Insertion sort by p (stable): the family is small. */
    for (size_t i = 1; i < m; i++) {
        size_t v = idx[i], j = i;
        while (j > 0 && p[idx[j - 1]] > p[v]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
    double run = 1.0;
    for (size_t r = m; r-- > 0;) {
        double v = p[idx[r]] * (double)m / (double)(r + 1);
        if (v < run)
            run = v;
        q[idx[r]] = run;
    }
    free(idx);
}

/* Metadata keys listed first, in this order (docs/HARNESS.md's meta table). */
static const char *const important_keys[] = {
    "git_revision", "git_dirty", "compiler", "cflags",     "host",           "cpu_model",     "cores_online",
    "cpus_allowed", "run_cpu",   "kernel",   "governor",   "virtualization", "loadavg_start", "loadavg_end",
    "plan",         "design",    "env",      "bin_hashes", "config",
};
#define NIMPORTANT (sizeof important_keys / sizeof important_keys[0])

static int important_rank(const char *key) {
    for (size_t i = 0; i < NIMPORTANT; i++)
        if (strcmp(key, important_keys[i]) == 0)
            return (int)i;
    /* Any recorded hash of a binary counts as important too. */
    if (strstr(key, "sha") || strstr(key, "hash"))
        return (int)NIMPORTANT;
    return -1;
}

static int cmp_meta(const void *x, const void *y) {
    const st_cmp_meta *a = x, *b = y;
    int ra = important_rank(a->key), rb = important_rank(b->key);
    if (ra < 0)
        ra = 1 << 20;
    if (rb < 0)
        rb = 1 << 20;
    if (ra != rb)
        return ra - rb;
    return strcmp(a->key, b->key);
}

static int differs(const char *x, const char *y) { return (x == NULL) != (y == NULL) || (x && strcmp(x, y)); }

static void compare_meta(st_comparison *c) {
    const st_sweep *a = c->a, *b = c->b;
    c->meta = ct_xmalloc((a->nmeta + b->nmeta + 1) * sizeof *c->meta);
    c->nmeta = 0;
    for (size_t i = 0; i < a->nmeta; i++) {
        const char *vb = st_sweep_meta(b, a->meta_key[i]);
        if (differs(a->meta_value[i], vb))
            c->meta[c->nmeta++] = (st_cmp_meta){a->meta_key[i], a->meta_value[i], vb, 0};
    }
    for (size_t i = 0; i < b->nmeta; i++)
        if (!st_sweep_meta(a, b->meta_key[i]))
            c->meta[c->nmeta++] = (st_cmp_meta){b->meta_key[i], NULL, b->meta_value[i], 0};
    for (size_t i = 0; i < c->nmeta; i++)
        c->meta[i].important = important_rank(c->meta[i].key) >= 0;
    qsort(c->meta, c->nmeta, sizeof *c->meta, cmp_meta);
    const char *machine_keys[] = {"host", "cpu_model"};
    for (size_t k = 0; k < 2; k++) {
        const char *x = st_sweep_meta(a, machine_keys[k]), *y = st_sweep_meta(b, machine_keys[k]);
        if (x && y && strcmp(x, y))
            c->different_machines = 1;
    }
}

static double stat_dmedian(const double (*m)[ST_BOOT_MAX_METRICS]) { return m[1][0] - m[0][0]; }

/* The threshold test's p-value of an interval iv made from the resamples t
 * (st_compare.h): 2 min(p of change <= c + t, p of change >= c - t), at most 1. */
static double p_beyond(const double *t, size_t B, const st_interval *iv, double centre, double threshold) {
    double up = st_boot_p_greater(t, B, iv, centre + threshold);
    double down = 1.0 - st_boot_p_greater(t, B, iv, centre - threshold);
    if (isnan(up) || isnan(down))
        return NAN;
    double p = 2.0 * (up < down ? up : down);
    return p > 1.0 ? 1.0 : p;
}

/* The paired overhead change of r from its pair values pa (A) and pb (B):
 * medians, their difference with a two-sample BCa interval over pairs, and
 * (overhead gate) the Mann-Whitney test of B's pair values against A's. */
static void paired_change(const st_comparison *c, st_cmp_cell *r, const double *pa, const double *pb) {
    st_sample g[2];
    memset(g, 0, sizeof g);
    g[0].n = r->a_pairs;
    g[0].metric[0] = pa;
    g[1].n = r->b_pairs;
    g[1].metric[0] = pb;
    st_kstat stat = {stat_dmedian, 3u};
    st_boot_opts bo = c->opts.boot;
    bo.seed ^= st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, r->label), "#paired");
    double *keep = ct_xmalloc(bo.resamples * sizeof *keep);
    st_bootstrap_groups_keep(g, 2, &stat, 1, &bo, &r->doverhead, keep);
    if (c->opts.gate == ST_GATE_OVERHEAD)
        r->p_beyond = p_beyond(keep, bo.resamples, &r->doverhead, 0.0, c->opts.threshold);
    free(keep);
    r->a_overhead = st_median(pa, r->a_pairs);
    r->b_overhead = st_median(pb, r->b_pairs);
    if (c->opts.gate == ST_GATE_OVERHEAD)
        r->mw = st_mann_whitney(pb, r->b_pairs, pa, r->a_pairs);
}

/* The in-process blocks of the cell labelled label (NULL: none). */
static const st_blocks *inproc_blocks(const st_inprocs *ip, const char *label) {
    for (size_t i = 0; ip && i < ip->n; i++)
        if (!strcmp(ip->cells[i].label, label))
            return ip->cells[i].e.blocks.n ? &ip->cells[i].e.blocks : NULL;
    return NULL;
}

/* The ratios exp(r) of in-process blocks x into a fresh array. */
static double *inproc_values(const st_blocks *x) {
    double *v = ct_xmalloc((x->n ? x->n : 1) * sizeof *v);
    for (size_t i = 0; i < x->n; i++)
        v[i] = exp(x->log_ratio[i]);
    return v;
}

/* Cell r's kind and its baselines in A and B, with a note for a label that
 * names another cell, size or time mode in B. */
static void cell_match(const st_comparison *c, st_cmp_cell *r) {
    int several = 0;
    r->is_baseline = strcmp(r->a->kind, "baseline") == 0;
    if (strcmp(r->a->kind, r->b->kind) || strcmp(r->a->workload, r->b->workload))
        note(r, "the label names a different cell in B (%s %s against %s %s)", r->b->workload, r->b->kind,
             r->a->workload, r->a->kind);
    if (r->a->size != r->b->size)
        note(r, "workload size differs: %lld in A, %lld in B", (long long)r->a->size, (long long)r->b->size);
    /* Two sweeps of the older form (--env SGC_TIME_MODE) share labels across modes. */
    if (strcmp(r->a->time_mode, r->b->time_mode))
        note(r, "the time sampler's mode differs: %s in A, %s in B", r->a->time_mode, r->b->time_mode);
    r->a_base = r->is_baseline ? r->a : st_find_baseline(c->a, r->a, &several);
    r->b_base = r->is_baseline ? r->b : st_find_baseline(c->b, r->b, &several);
}

/* The run times of r and its baselines in A and B (w[k], n[k] by group,
 * malloc'd), their medians and the unpaired overheads. */
static void cell_times(const st_comparison *c, st_cmp_cell *r, double *w[G_COUNT], size_t n[G_COUNT]) {
    st_cmp_time t = c->opts.time;
    w[G_A] = run_times(c->a, r->a, t, &n[G_A]);
    w[G_B] = run_times(c->b, r->b, t, &n[G_B]);
    w[G_A_BASE] = run_times(c->a, r->is_baseline ? NULL : r->a_base, t, &n[G_A_BASE]);
    w[G_B_BASE] = run_times(c->b, r->is_baseline ? NULL : r->b_base, t, &n[G_B_BASE]);
    r->a_runs = n[G_A];
    r->b_runs = n[G_B];
    r->a_median = st_median(w[G_A], n[G_A]);
    r->b_median = st_median(w[G_B], n[G_B]);
    r->a_overhead = r->b_overhead = NAN;
    if (!r->is_baseline) {
        if (n[G_A_BASE])
            r->a_overhead = r->a_median / st_median(w[G_A_BASE], n[G_A_BASE]);
        if (n[G_B_BASE])
            r->b_overhead = r->b_median / st_median(w[G_B_BASE], n[G_B_BASE]);
        if (!r->a_base || !r->b_base)
            note(r, "no baseline cell in %s: no overhead change", !r->a_base ? "A" : "B");
    }
    if (!n[G_A] || !n[G_B])
        note(r, "no used runs in %s", !n[G_A] ? (!n[G_B] ? "A or B" : "A") : "B");
}

/* B/A and the change in overhead with their BCa intervals from resamples
 * of whole runs, and the gate's p of "within the threshold". */
static void cell_intervals(const st_comparison *c, st_cmp_cell *r, double *const w[G_COUNT], const size_t n[G_COUNT]) {
    st_sample g[G_COUNT];
    memset(g, 0, sizeof g);
    for (int k = 0; k < G_COUNT; k++) {
        g[k].n = n[k];
        g[k].metric[0] = n[k] ? w[k] : NULL;
    }
    st_kstat stats[2] = {
        {stat_ratio, 1u << G_A | 1u << G_B},
        {stat_doverhead, 1u << G_A | 1u << G_B | 1u << G_A_BASE | 1u << G_B_BASE},
    };
    st_interval out[2];
    st_boot_opts bo = c->opts.boot;
    bo.seed ^= st_fnv1a64(ST_FNV_OFFSET, r->label);
    double *keep = ct_xmalloc(2 * bo.resamples * sizeof *keep);
    st_bootstrap_groups_keep(g, G_COUNT, stats, r->is_baseline ? 1 : 2, &bo, out, keep);
    r->p_beyond = NAN;
    if (c->opts.gate == ST_GATE_RATIO)
        r->p_beyond = p_beyond(keep, bo.resamples, &out[0], 1.0, c->opts.threshold);
    else if (!r->is_baseline)
        r->p_beyond = p_beyond(keep + bo.resamples, bo.resamples, &out[1], 0.0, c->opts.threshold);
    free(keep);
    r->ratio = out[0];
    if (r->is_baseline) {
        r->doverhead = (st_interval){NAN, NAN, NAN, ST_CI_NONE, "a baseline has no overhead", NAN, NAN};
    } else {
        r->doverhead = out[1];
    }
    r->doverhead_unpaired = r->doverhead;
}

/* The change in overhead from pairs of adjacent runs (the blocked design)
 * or in-process blocks (the in-process design) when both sweeps have them;
 * else a note why it stays unpaired. */
static void cell_pairing(st_comparison *c, st_cmp_cell *r, const partners *pa, const partners *pb) {
    st_cmp_time t = c->opts.time;
    double *va = pair_values(c->a, pa, r->a, t, &r->a_pairs), *vb = pair_values(c->b, pb, r->b, t, &r->b_pairs);
    int has_overhead = !r->is_baseline && r->a_base && r->b_base;
    const st_blocks *xa = has_overhead ? inproc_blocks(c->ia, r->label) : NULL;
    const st_blocks *xb = has_overhead ? inproc_blocks(c->ib, r->label) : NULL;
    r->paired = has_overhead && r->a_pairs && r->b_pairs;
    if (r->paired) {
        paired_change(c, r, va, vb);
    } else if (xa && xb) {
        free(va);
        free(vb);
        va = inproc_values(xa);
        vb = inproc_values(xb);
        r->a_pairs = xa->n;
        r->b_pairs = xb->n;
        r->paired = 2;
        paired_change(c, r, va, vb);
    } else if (has_overhead && (xa || xb)) {
        note(r, "in-process blocks in %s only: overhead from unpaired medians", xa ? "A" : "B");
    } else if (has_overhead) {
        note(r, "no pairs of adjacent runs in %s (%s): overhead from unpaired medians",
             !r->a_pairs ? (!r->b_pairs ? "A or B" : "A") : "B",
             (!r->a_pairs && !pa->maxb) || (!r->b_pairs && !pb->maxb) ? "not a blocked sweep"
                                                                      : "no block with both runs used");
    }
    free(va);
    free(vb);
}

/* The Mann-Whitney test of the gate: on the run times (ratio), or on each
 * run over its own sweep's baseline median (overhead, unpaired); w is
 * scaled in place. */
static void cell_test(const st_comparison *c, st_cmp_cell *r, double *const w[G_COUNT], const size_t n[G_COUNT]) {
    if (c->opts.gate == ST_GATE_RATIO) {
        r->mw = st_mann_whitney(w[G_B], n[G_B], w[G_A], n[G_A]);
    } else if (r->paired) {
        /* paired_change did the test on the pair values. */
    } else if (r->is_baseline || !n[G_A_BASE] || !n[G_B_BASE]) {
        r->mw = (st_mw){NAN, NAN, 0};
    } else {
        double ma = st_median(w[G_A_BASE], n[G_A_BASE]), mb = st_median(w[G_B_BASE], n[G_B_BASE]);
        for (size_t i = 0; i < n[G_A]; i++)
            w[G_A][i] /= ma;
        for (size_t i = 0; i < n[G_B]; i++)
            w[G_B][i] /= mb;
        r->mw = st_mann_whitney(w[G_B], n[G_B], w[G_A], n[G_A]);
    }
}

static void compare_cell(st_comparison *c, st_cmp_cell *r, const partners *pa, const partners *pb) {
    size_t n[G_COUNT];
    double *w[G_COUNT];
    cell_match(c, r);
    cell_times(c, r, w, n);
    cell_intervals(c, r, w, n);
    cell_pairing(c, r, pa, pb);
    cell_test(c, r, w, n);
    for (int k = 0; k < G_COUNT; k++)
        free(w[k]);
}

/* The gated interval of r and the value of "no change". */
static const st_interval *gated(const st_comparison *c, const st_cmp_cell *r, double *centre) {
    *centre = c->opts.gate == ST_GATE_RATIO ? 1.0 : 0.0;
    return c->opts.gate == ST_GATE_RATIO ? &r->ratio : &r->doverhead;
}

/* The reason recorded for the first failed measured run of cell x, or "no reason recorded". */
static const char *first_failure(const st_sweep *sw, const st_cell *x) {
    for (size_t i = 0; i < x->nruns; i++) {
        const st_run *run = &sw->runs[x->first_run + i];
        if (!run->used)
            return run->failure && *run->failure ? run->failure : "no reason recorded";
    }
    return "no reason recorded";
}

/* The verdicts on runs that did not run or did not succeed in B
 * (st_compare.h): "missing", "failed", or NULL (the timing verdict stands);
 * the reason goes into r->failure and the note. */
static const char *failure_verdict(const st_comparison *c, st_cmp_cell *r) {
    const st_cell *a = r->a, *b = r->b;
    const char *v = NULL;
    if (!a->used)
        return NULL; /* nothing in A to lose */
    if (b->nruns == 0) {
        snprintf(r->failure, sizeof r->failure, "no measured run of the cell in B (%zu used in A): B did not run it",
                 a->used);
        v = "missing";
    } else if (!b->failed) {
        return NULL;
    } else if (!a->failed) {
        snprintf(r->failure, sizeof r->failure, "%zu of %zu measured runs failed in B (first: %s), none in A",
                 b->failed, b->nruns, first_failure(c->b, b));
        v = "failed";
    } else if (!b->used) {
        snprintf(r->failure, sizeof r->failure, "every measured run failed in B (%zu; first: %s), %zu of %zu in A",
                 b->failed, first_failure(c->b, b), a->failed, a->nruns);
        v = "failed";
    } else {
        note(r, "%zu of %zu measured runs failed in B (first: %s), %zu of %zu in A: not new, not gated", b->failed,
             b->nruns, first_failure(c->b, b), a->failed, a->nruns);
        return NULL;
    }
    note(r, "%s", r->failure);
    return v;
}

static void verdict(const st_comparison *c, st_cmp_cell *r) {
    double t = c->opts.threshold, alpha = 1.0 - c->opts.boot.confidence, c0;
    const st_interval *iv = gated(c, r, &c0);
    if ((r->verdict = failure_verdict(c, r)) != NULL)
        return;
    if (c->opts.gate == ST_GATE_OVERHEAD && r->is_baseline) {
        r->verdict = "ungated";
        return;
    }
    if (iv->method == ST_CI_NONE) {
        r->verdict = "inconclusive";
        note(r, "no interval: %s", iv->why ? iv->why : "undefined");
        return;
    }
    int above = iv->lo > c0 + t, below = iv->hi < c0 - t;
    if (above || below) {
        if (!(isfinite(r->beyond_adjusted) && r->beyond_adjusted <= alpha)) {
            r->verdict = "inconclusive";
            note(r,
                 "interval beyond the threshold but not after Benjamini-Hochberg over the cells' threshold tests "
                 "(adjusted p %.3g > %.3g)",
                 r->beyond_adjusted, alpha);
        } else if (isfinite(r->p_adjusted) && r->p_adjusted <= alpha) {
            r->verdict = above ? "slower" : "faster";
        } else {
            r->verdict = "inconclusive";
            note(r,
                 "interval beyond the threshold but the Mann-Whitney test is not significant after "
                 "Benjamini-Hochberg (adjusted p %.3g > %.3g)",
                 r->p_adjusted, alpha);
        }
    } else if (iv->lo >= c0 - t && iv->hi <= c0 + t) {
        r->verdict = "same";
    } else {
        r->verdict = "inconclusive";
    }
}

/* ---- simulated cells ---- */

static void simnote(st_cmp_simcell *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    st_note_add(r->note, sizeof r->note, fmt, ap);
    va_end(ap);
}

/* Quantity q from the medians a, b and each side's extremes [alo, ahi], [blo, bhi];
 * t the share of |a| a difference must exceed. */
static st_cmp_simq simq(double a, double alo, double ahi, double b, double blo, double bhi, double t) {
    st_cmp_simq q = {a, b, NAN, NAN, NAN, NULL};
    if (isnan(a) || isnan(b) || isnan(alo) || isnan(ahi) || isnan(blo) || isnan(bhi))
        return q;
    q.diff = b - a;
    q.lo = blo - ahi;
    q.hi = bhi - alo;
    double s = t * fabs(a);
    q.verdict = q.lo > s ? "higher" : q.hi < -s ? "lower" : "same";
    return q;
}

/* The overhead of cell x in metric m (median, and extremes from the repeats). */
static void sim_overhead(const st_simcell *x, int m, double *v, double *lo, double *hi) {
    const st_simcell *base = x->baseline;
    *v = *lo = *hi = NAN;
    if (!base || base == x)
        return;
    *v = x->v[m] / base->v[m];
    *lo = x->vmin[m] / base->vmax[m];
    *hi = x->vmax[m] / base->vmin[m];
}

static void compare_simcell(st_cmp_simcell *r, double t) {
    const st_simcell *a = r->a, *b = r->b;
    if (strcmp(a->kind, b->kind) || strcmp(a->workload, b->workload))
        simnote(r, "the label names a different cell in B (%s %s against %s %s)", b->workload, b->kind, a->workload,
                a->kind);
    if (a->size != b->size)
        simnote(r, "workload size differs: %lld in A, %lld in B", (long long)a->size, (long long)b->size);
    if (!a->ok || !b->ok)
        simnote(r, "no ok run in %s", !a->ok ? (!b->ok ? "A or B" : "A") : "B");
    const int metric[2] = {SW_SIM_IR, SW_SIM_CYCLES};
    for (int k = 0; k < 2; k++) {
        int m = metric[k];
        r->q[k] = simq(a->v[m], a->vmin[m], a->vmax[m], b->v[m], b->vmin[m], b->vmax[m], t);
        double av, alo, ahi, bv, blo, bhi;
        sim_overhead(a, m, &av, &alo, &ahi);
        sim_overhead(b, m, &bv, &blo, &bhi);
        r->q[ST_CMP_SIM_OV_IR + k] = simq(av, alo, ahi, bv, blo, bhi, t);
    }
    if (strcmp(a->kind, "baseline") && (!a->baseline || !b->baseline))
        simnote(r, "no simulated baseline in %s: no overhead", !a->baseline ? "A" : "B");
    for (int k = 0; k < ST_CMP_SIM_N; k++)
        if (r->q[k].verdict && strcmp(r->q[k].verdict, "same"))
            r->differs = 1;
}

static const st_simcell *find_simlabel(const st_sim *sim, const char *label) {
    for (size_t i = 0; sim && i < sim->ncells; i++)
        if (strcmp(sim->cells[i].label, label) == 0)
            return &sim->cells[i];
    return NULL;
}

static int cmp_simcells(const void *x, const void *y) {
    const st_cmp_simcell *a = x, *b = y;
    int d = strcmp(a->a->workload, b->a->workload);
    if (d)
        return d;
    d = st_kind_rank(a->a->kind) - st_kind_rank(b->a->kind);
    if (d)
        return d;
    return strcmp(a->label, b->label);
}

static void compare_sim(st_comparison *c, const st_sim *sa, const st_sim *sb) {
    size_t na = sa ? sa->ncells : 0, nb = sb ? sb->ncells : 0;
    c->sim = ct_xcalloc(na ? na : 1, sizeof *c->sim);
    c->sim_only_a = ct_xmalloc((na ? na : 1) * sizeof *c->sim_only_a);
    c->sim_only_b = ct_xmalloc((nb ? nb : 1) * sizeof *c->sim_only_b);
    for (size_t i = 0; i < na; i++) {
        const st_simcell *x = &sa->cells[i], *y = find_simlabel(sb, x->label);
        if (!y) {
            c->sim_only_a[c->nsim_only_a++] = x;
            continue;
        }
        st_cmp_simcell *r = &c->sim[c->nsim++];
        r->label = x->label;
        r->a = x;
        r->b = y;
    }
    for (size_t i = 0; i < nb; i++)
        if (!find_simlabel(sa, sb->cells[i].label))
            c->sim_only_b[c->nsim_only_b++] = &sb->cells[i];
    qsort(c->sim, c->nsim, sizeof *c->sim, cmp_simcells);
    for (size_t i = 0; i < c->nsim; i++) {
        compare_simcell(&c->sim[i], c->opts.sim_threshold);
        c->sim_differ += c->sim[i].differs;
    }
}

void st_compare(const st_sweep *a, const st_sweep *b, const st_sim *sa, const st_sim *sb, const st_inprocs *ia,
                const st_inprocs *ib, const st_compare_opts *opts, st_comparison *c) {
    memset(c, 0, sizeof *c);
    c->a = a;
    c->b = b;
    c->ia = ia;
    c->ib = ib;
    c->opts = *opts;
    c->cells = ct_xcalloc(a->ncells ? a->ncells : 1, sizeof *c->cells);
    c->only_a = ct_xmalloc((a->ncells ? a->ncells : 1) * sizeof *c->only_a);
    c->only_b = ct_xmalloc((b->ncells ? b->ncells : 1) * sizeof *c->only_b);
    for (size_t i = 0; i < a->ncells; i++) {
        const st_cell *cb = find_label(b, a->cells[i].label);
        if (!cb) {
            c->only_a[c->nonly_a++] = &a->cells[i];
            continue;
        }
        st_cmp_cell *r = &c->cells[c->ncells++];
        r->label = a->cells[i].label;
        r->a = &a->cells[i];
        r->b = cb;
    }
    for (size_t i = 0; i < b->ncells; i++)
        if (!find_label(a, b->cells[i].label))
            c->only_b[c->nonly_b++] = &b->cells[i];
    qsort(c->cells, c->ncells, sizeof *c->cells, cmp_cells);
    compare_meta(c);

    double *p = ct_xmalloc((c->ncells ? c->ncells : 1) * sizeof *p);
    double *q = ct_xmalloc((c->ncells ? c->ncells : 1) * sizeof *q);
    partners pa, pb;
    partners_init(a, &pa);
    partners_init(b, &pb);
    for (size_t i = 0; i < c->ncells; i++) {
        st_cmp_cell *r = &c->cells[i];
        compare_cell(c, r, &pa, &pb);
        p[i] = r->mw.p;
        c->compared += isfinite(p[i]) != 0;
        c->tested += isfinite(r->p_beyond) != 0;
        if (!r->is_baseline && r->a_base && r->b_base) {
            c->paired += r->paired != 0;
            c->unpaired += !r->paired;
        }
    }
    free(pa.partner);
    free(pb.partner);
    st_bh_adjust(p, c->ncells, q);
    for (size_t i = 0; i < c->ncells; i++)
        c->cells[i].p_adjusted = q[i];
    /* The threshold tests: every cell with a gated interval (a baseline under the overhead gate has none). */
    for (size_t i = 0; i < c->ncells; i++)
        p[i] = c->cells[i].p_beyond;
    st_bh_adjust(p, c->ncells, q);
    for (size_t i = 0; i < c->ncells; i++) {
        st_cmp_cell *r = &c->cells[i];
        r->beyond_adjusted = q[i];
        verdict(c, r);
        if (!strcmp(r->verdict, "slower"))
            c->slower++;
        else if (!strcmp(r->verdict, "faster"))
            c->faster++;
        else if (!strcmp(r->verdict, "same"))
            c->same++;
        else if (!strcmp(r->verdict, "ungated"))
            c->ungated++;
        else if (!strcmp(r->verdict, "failed"))
            c->failed++;
        else if (!strcmp(r->verdict, "missing"))
            c->missing++;
        else
            c->inconclusive++;
    }
    free(p);
    free(q);
    c->missing += c->nonly_a; /* a cell B's plan lacks is missing as much as one it never ran */
    compare_sim(c, sa, sb);
}

void st_comparison_free(st_comparison *c) {
    free(c->cells);
    free(c->only_a);
    free(c->only_b);
    free(c->meta);
    free(c->sim);
    free(c->sim_only_a);
    free(c->sim_only_b);
    memset(c, 0, sizeof *c);
}

/* ---- outputs ---- */

/* How r's overhead was computed: "paired", "unpaired", or NULL (no overhead). */
static const char *pairing(const st_cmp_cell *r) {
    if (r->is_baseline || !r->a_base || !r->b_base)
        return NULL;
    return r->paired == 2 ? "inprocess" : r->paired ? "paired" : "unpaired";
}

/* A number as written in CSV and JSON: %.10g, the same text in both. */
static void num(FILE *f, double v, const char *missing) {
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs(missing, f);
}

/* A JSON string (ct_json_str), null for NULL. */
static void json_str(FILE *f, const char *s) {
    if (!s)
        fputs("null", f);
    else
        ct_json_str(f, s);
}

/* Markdown table cell text: '|' and newlines would break the table; long
 * values (the config) are cut. */
/* s for a table cell from byte `from` on ("..." before it when from > 0),
 * at most 100 bytes ("..." after it when cut). */
static void md_str_from(FILE *f, const char *s, size_t from) {
    if (!s) {
        fputs("(absent)", f);
        return;
    }
    size_t len = strlen(s);
    if (from > len)
        from = len;
    if (from)
        fputs("...", f);
    size_t i = from;
    for (; s[i] && i < from + 100; i++)
        fputs(s[i] == '|' ? "\\|" : s[i] == '\n' ? "; " : (char[]){s[i], 0}, f);
    if (s[i])
        fputs("...", f);
}

static void md_str(FILE *f, const char *s) { md_str_from(f, s, 0); }

/* Where a table shows two long values that differ: 30 bytes before their
 * first difference, so the cut-off shows the part that differs (two config
 * lines alike in their first 100 bytes would otherwise show the same text). */
static size_t diff_window(const char *a, const char *b) {
    if (!a || !b)
        return 0;
    size_t p = 0;
    while (a[p] && a[p] == b[p])
        p++;
    return p >= 100 ? p - 30 : 0;
}

static void md_num(FILE *f, const char *fmt, double v) {
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fputs("n/a", f);
}

static const char *meta_or(const st_sweep *sw, const char *key) {
    const char *v = st_sweep_meta(sw, key);
    return v ? v : "unknown";
}

/* The simulated cells' section of the report. */
static void sim_md(FILE *f, const st_comparison *c) {
    if (!c->nsim && !c->nsim_only_a && !c->nsim_only_b)
        return;
    fprintf(f, "\n## Simulated cells: exact counts\n\n");
    fprintf(f,
            "%zu simulated cells in both sweeps; **%zu differ** beyond the spread of their repeated runs (in "
            "instructions, estimated cycles, or the overhead in either).  A difference B - A counts only when "
            "its bounds from the repeats, [B min - A max, B max - A min], lie beyond +-%g%% of A's value; a cell "
            "whose repeats agree to the count has bounds equal to the difference.  Simulated cells do not set "
            "the exit status.\n\n",
            c->nsim, c->sim_differ, 100 * c->opts.sim_threshold);
    if (c->sim_differ) {
        for (size_t i = 0; i < c->nsim; i++)
            if (c->sim[i].differs)
                fprintf(f, "- differs: %s\n", c->sim[i].label);
        fputc('\n', f);
    }
    if (c->nsim) {
        fputs("| cell | runs ok A/B | quantity | A | B | B - A | relative | bounds | verdict | note |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n",
              f);
        for (size_t i = 0; i < c->nsim; i++) {
            const st_cmp_simcell *r = &c->sim[i];
            for (int k = 0; k < ST_CMP_SIM_N; k++) {
                const st_cmp_simq *q = &r->q[k];
                int count = k < ST_CMP_SIM_OV_IR;
                const char *vf = count ? "%.15g" : "%.6f", *df = count ? "%+.15g" : "%+.6g";
                if (k == 0)
                    fprintf(f, "| %s | %zu/%zu | ", r->label, r->a->ok, r->b->ok);
                else
                    fputs("| | | ", f);
                fprintf(f, "%s | ", simq_names[k]);
                md_num(f, vf, q->a);
                fputs(" | ", f);
                md_num(f, vf, q->b);
                fputs(" | ", f);
                md_num(f, df, q->diff);
                fputs(" | ", f);
                md_num(f, "%+.3g%%", count ? 100 * q->diff / q->a : NAN);
                fputs(" | ", f);
                if (isnan(q->lo))
                    fputs("n/a", f);
                else {
                    fprintf(f, "[");
                    fprintf(f, df, q->lo);
                    fputs(", ", f);
                    fprintf(f, df, q->hi);
                    fputs("]", f);
                }
                const char *v = q->verdict ? q->verdict : "n/a";
                fprintf(f, " | %s%s%s | ", strcmp(v, "same") && strcmp(v, "n/a") ? "**" : "", v,
                        strcmp(v, "same") && strcmp(v, "n/a") ? "**" : "");
                if (k == 0)
                    md_str(f, r->note);
                fputs(" |\n", f);
            }
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->nsim_only_a; i++)
        fprintf(f, "- simulated, only in A: %s\n", c->sim_only_a[i]->label);
    for (size_t i = 0; i < c->nsim_only_b; i++)
        fprintf(f, "- simulated, only in B: %s\n", c->sim_only_b[i]->label);
}

/* The report's head: the sweeps, a different machine, the metadata that differs. */
static void md_head(FILE *f, const st_comparison *c) {
    fprintf(f, "# Comparison: B against A\n\n");
    fprintf(f, "- A: `%s` (revision %s)\n- B: `%s` (revision %s)\n\n", c->a->dir, meta_or(c->a, "git_revision"),
            c->b->dir, meta_or(c->b, "git_revision"));
    if (c->different_machines)
        fprintf(f,
                "**WARNING: A and B were measured on DIFFERENT MACHINES (host %s / %s, CPU %s / %s): "
                "differences mix the change with the machines.**\n\n",
                meta_or(c->a, "host"), meta_or(c->b, "host"), meta_or(c->a, "cpu_model"), meta_or(c->b, "cpu_model"));
    fprintf(f, "## Metadata that differs\n\n");
    if (!c->nmeta) {
        fprintf(f, "None.\n\n");
    } else {
        fprintf(f, "| key | A | B |\n|---|---|---|\n");
        for (size_t i = 0; i < c->nmeta; i++) {
            fprintf(f, "| %s%s%s | ", c->meta[i].important ? "**" : "", c->meta[i].key,
                    c->meta[i].important ? "**" : "");
            size_t from = diff_window(c->meta[i].a, c->meta[i].b);
            md_str_from(f, c->meta[i].a, from);
            fputs(" | ", f);
            md_str_from(f, c->meta[i].b, from);
            fputs(" |\n", f);
        }
        fputc('\n', f);
    }
}

/* The ratio gate: which level B/A's interval covers, and how far the
 * baselines moved between the sweeps (the machine's share of every B/A). */
static void md_ratio_level(FILE *f, const st_comparison *c) {
    double *v = ct_xmalloc((c->ncells + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < c->ncells; i++)
        if (c->cells[i].is_baseline && c->cells[i].ratio.est > 0 && isfinite(c->cells[i].ratio.est))
            v[n++] = c->cells[i].ratio.est;
    fprintf(f, "Level: B/A's interval covers the runs of each sweep, not the machine's state, which differs between "
               "two sweeps run at different times and moves every cell's B/A, baselines included");
    if (n) {
        double lo = v[0], hi = v[0];
        for (size_t i = 1; i < n; i++)
            lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
        fprintf(f, " (the baselines' B/A here: median %.4f over %zu, %.4f to %.4f)", st_median(v, n), n, lo, hi);
    }
    fprintf(f, ".  On synthetic pairs of sweeps with this project's measured noise it falls short of its level "
               "where the machine drifts slowly against a sweep's length (docs/MEASUREMENTS.md, \"Coverage of every "
               "interval kind on this machine's noise\"); the overhead gate divides each sweep's baseline out and "
               "covers near its level.\n\n");
    free(v);
}

/* The verdicts' summary: gate, times, counts, pairing. */
static void md_verdicts(FILE *f, const st_comparison *c) {
    const st_compare_opts *o = &c->opts;
    fprintf(f, "## Verdicts\n\n");
    int cpu = o->time == ST_CMP_TIME_CPU;
    fprintf(f, "Gate: **%s**, verdicts on %s.  Run times: **%s**.\n\n", st_gate_name(o->gate),
            o->gate == ST_GATE_RATIO ? (cpu ? "B/A, the ratio of the median CPU times"
                                            : "B/A, the ratio of the median wall times (it moves with the machine's "
                                              "load too)")
                                     : "the change in overhead, B's overhead minus A's (each sweep's baseline "
                                       "divided out; baselines are not gated)",
            cpu ? "CPU time (user + system of the run's process; a loaded machine moves it less than the wall "
                  "time)"
                : "wall time");
    fprintf(f,
            "%zu cells compared (%zu with a Mann-Whitney p-value and %zu with a threshold test, the two families "
            "of the Benjamini-Hochberg adjustment): **%zu slower**, %zu faster, %zu same, %zu inconclusive",
            c->ncells, c->compared, c->tested, c->slower, c->faster, c->same, c->inconclusive);
    if (o->gate == ST_GATE_OVERHEAD)
        fprintf(f, ", %zu ungated (baselines)", c->ungated);
    if (c->failed || c->missing)
        fprintf(f,
                "; **%zu FAILED in B** (runs that succeeded in A failed in B), **%zu MISSING from B** (cells of A "
                "that B lacks or never ran): the gate fails",
                c->failed, c->missing);
    fprintf(f, ".  Threshold %g%%%s, %g%% BCa intervals, %zu resamples, seed %llu.\n\n", o->threshold * 100,
            o->gate == ST_GATE_OVERHEAD ? " of the baseline's time" : "", o->boot.confidence * 100, o->boot.resamples,
            (unsigned long long)o->boot.seed);
    if (o->gate == ST_GATE_RATIO)
        md_ratio_level(f, c);
    if (c->paired || c->unpaired) {
        fprintf(f,
                "Overhead: %zu cells from pairs of adjacent runs (each sampled run over its block's baseline "
                "run, the blocked design; median over blocks) or from in-process blocks (CPU per unit of work "
                "with sampling over without, the in-process design), %zu from unpaired medians",
                c->paired, c->unpaired);
        if (c->unpaired)
            fprintf(f, " (%s; the reason in each cell's note)",
                    c->paired ? "some cells have no pairs in A or B" : "**no pairs: not both sweeps blocked**");
        fputs(".\n\n", f);
    }
}

/* An interval [lo, hi] in the format fmt, or n/a when there is none. */
static void md_interval(FILE *f, const char *fmt, int have, double lo, double hi) {
    if (have)
        fprintf(f, fmt, lo, hi);
    else
        fputs("n/a", f);
}

/* One cell's row of the verdicts table. */
static void md_cell_row(FILE *f, const st_cmp_cell *r) {
    fprintf(f, "| %s | %zu/%zu | ", r->label, r->a_runs, r->b_runs);
    md_num(f, "%.3f", r->a_median / 1e6);
    fputs(" | ", f);
    md_num(f, "%.3f", r->b_median / 1e6);
    fputs(" | ", f);
    md_num(f, "%.4f", r->ratio.est);
    fputs(" | ", f);
    md_interval(f, "[%.4f, %.4f]", r->ratio.method != ST_CI_NONE, r->ratio.lo, r->ratio.hi);
    if (!pairing(r))
        fputs(" | n/a", f);
    else if (r->paired)
        fprintf(f, " | %s (%zu/%zu)", r->paired == 2 ? "in-process blocks" : "paired", r->a_pairs, r->b_pairs);
    else
        fputs(" | unpaired", f);
    fputs(" | ", f);
    md_num(f, "%.4f", r->a_overhead);
    fputs(" | ", f);
    md_num(f, "%.4f", r->b_overhead);
    fputs(" | ", f);
    md_num(f, "%+.4f", r->doverhead.est);
    fputs(" | ", f);
    md_interval(f, "[%+.4f, %+.4f]", r->doverhead.method != ST_CI_NONE, r->doverhead.lo, r->doverhead.hi);
    fputs(" | ", f);
    md_num(f, "%.3g", r->mw.p);
    fputs(" | ", f);
    md_num(f, "%.3g", r->p_adjusted);
    int loud = !strcmp(r->verdict, "slower") || !strcmp(r->verdict, "failed") || !strcmp(r->verdict, "missing");
    fprintf(f, " | %s%s%s | ", loud ? "**" : "", r->verdict, loud ? "**" : "");
    md_str(f, r->note);
    fputs(" |\n", f);
}

/* The verdicts table, a row a cell. */
static void md_cells(FILE *f, const st_comparison *c) {
    if (!c->ncells)
        return;
    fprintf(f, "| cell | runs A/B | median A (ms) | median B (ms) | B/A | interval | overhead from (pairs A/B) "
               "| overhead A | overhead B | change | interval | p | adjusted p | verdict | note |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < c->ncells; i++)
        md_cell_row(f, &c->cells[i]);
    fputc('\n', f);
}

/* The cells of one sweep only, and how to read the verdicts. */
static void md_only_and_method(FILE *f, const st_comparison *c) {
    const st_compare_opts *o = &c->opts;
    int cpu = o->time == ST_CMP_TIME_CPU;
    fprintf(f, "## Cells in one sweep only\n\n");
    if (!c->nonly_a && !c->nonly_b)
        fprintf(f, "None: both sweeps have the same cells.\n");
    for (size_t i = 0; i < c->nonly_a; i++)
        fprintf(f, "- only in A: %s (**missing from B**: the gate fails)\n", c->only_a[i]->label);
    for (size_t i = 0; i < c->nonly_b; i++)
        fprintf(f, "- only in B: %s\n", c->only_b[i]->label);
    fprintf(f,
            "\nB/A is B's median %s time over A's, from resamples of whole runs; change is B's overhead "
            "minus A's: paired, the overhead is the median over blocks of the cell's run over its adjacent "
            "baseline run, resampled by whole blocks; unpaired, the cell's median over its baseline's median, "
            "from the same resamples as B/A.  A cell is slower or faster only when its whole %s interval lies "
            "beyond the threshold, the threshold test (p of \"the change is within the threshold\", from the "
            "same interval) is at most %g after Benjamini-Hochberg over the cells, and so is the Mann-Whitney p "
            "(adjusted p); same when the whole interval lies within the threshold.  The adjustment of the "
            "threshold tests bounds the expected share of cells called slower or faster whose change is in fact "
            "within the threshold at %g; that of the Mann-Whitney p-values bounds the share of those cells that "
            "did not change at all.  Same verdicts are not adjusted: each holds at its own level.  Method: "
            "docs/STATISTICS.md.\n",
            cpu ? "CPU" : "wall", o->gate == ST_GATE_RATIO ? "B/A" : "change", 1.0 - o->boot.confidence,
            1.0 - o->boot.confidence);
}

int st_compare_md(FILE *f, const st_comparison *c) {
    md_head(f, c);
    md_verdicts(f, c);
    md_cells(f, c);
    md_only_and_method(f, c);
    sim_md(f, c);
    return ferror(f) ? -1 : 0;
}

static const char *const csv_header =
    "label,workload,kind,a_runs,b_runs,a_median_ns,b_median_ns,ratio,ratio_lo,ratio_hi,ratio_method,"
    "a_overhead,b_overhead,overhead_change,overhead_change_lo,overhead_change_hi,overhead_change_method,"
    "overhead_pairing,a_pairs,b_pairs,unpaired_overhead_change,unpaired_overhead_change_lo,"
    "unpaired_overhead_change_hi,mw_u,mw_p,mw_p_adjusted,verdict,note,beyond_p,beyond_p_adjusted\n";

int st_compare_csv(FILE *f, const st_comparison *c) {
    fputs(csv_header, f);
    for (size_t i = 0; i < c->ncells; i++) {
        const st_cmp_cell *r = &c->cells[i];
        st_csv_field(f, r->label);
        fputc(',', f);
        st_csv_field(f, r->a->workload);
        fputc(',', f);
        st_csv_field(f, r->a->kind);
        fprintf(f, ",%zu,%zu,", r->a_runs, r->b_runs);
        const double v1[] = {r->a_median, r->b_median, r->ratio.est, r->ratio.lo, r->ratio.hi};
        for (size_t k = 0; k < 5; k++) {
            num(f, v1[k], "");
            fputc(',', f);
        }
        fprintf(f, "%s,", st_ci_name(r->ratio.method));
        const double v2[] = {r->a_overhead, r->b_overhead, r->doverhead.est, r->doverhead.lo, r->doverhead.hi};
        for (size_t k = 0; k < 5; k++) {
            num(f, v2[k], "");
            fputc(',', f);
        }
        fprintf(f, "%s,%s,%zu,%zu,", st_ci_name(r->doverhead.method), pairing(r) ? pairing(r) : "", r->a_pairs,
                r->b_pairs);
        const double v3[] = {r->doverhead_unpaired.est, r->doverhead_unpaired.lo, r->doverhead_unpaired.hi};
        for (size_t k = 0; k < 3; k++) {
            num(f, v3[k], "");
            fputc(',', f);
        }
        num(f, r->mw.u, "");
        fputc(',', f);
        num(f, r->mw.p, "");
        fputc(',', f);
        num(f, r->p_adjusted, "");
        fprintf(f, ",%s,", r->verdict);
        st_csv_field(f, r->note);
        fputc(',', f);
        num(f, r->p_beyond, "");
        fputc(',', f);
        num(f, r->beyond_adjusted, "");
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* A simulated quantity's value as written in CSV and JSON: counts with every
 * digit (%.17g), overheads with %.10g. */
static void simnum(FILE *f, int k, double v, const char *missing) {
    if (k >= ST_CMP_SIM_OV_IR)
        num(f, v, missing);
    else if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs(missing, f);
}

int st_compare_sim_csv(FILE *f, const st_comparison *c) {
    fputs("label,workload,kind,a_runs,b_runs", f);
    for (int k = 0; k < ST_CMP_SIM_N; k++)
        fprintf(f, ",a_%s,b_%s,%s_diff,%s_diff_lo,%s_diff_hi,%s_verdict", simq_names[k], simq_names[k], simq_names[k],
                simq_names[k], simq_names[k], simq_names[k]);
    fputs(",note\n", f);
    for (size_t i = 0; i < c->nsim; i++) {
        const st_cmp_simcell *r = &c->sim[i];
        st_csv_field(f, r->label);
        fputc(',', f);
        st_csv_field(f, r->a->workload);
        fputc(',', f);
        st_csv_field(f, r->a->kind);
        fprintf(f, ",%zu,%zu", r->a->ok, r->b->ok);
        for (int k = 0; k < ST_CMP_SIM_N; k++) {
            const st_cmp_simq *q = &r->q[k];
            const double v[] = {q->a, q->b, q->diff, q->lo, q->hi};
            for (size_t j = 0; j < 5; j++) {
                fputc(',', f);
                simnum(f, k, v[j], "");
            }
            fprintf(f, ",%s", q->verdict ? q->verdict : "");
        }
        fputc(',', f);
        st_csv_field(f, r->note);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

static void json_num_field(FILE *f, const char *name, double v, int comma) {
    fprintf(f, "\"%s\": ", name);
    num(f, v, "null");
    if (comma)
        fputs(", ", f);
}

static void json_labels(FILE *f, const st_cell *const *cells, size_t n) {
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        json_str(f, cells[i]->label);
    }
    fputc(']', f);
}

static void json_simlabels(FILE *f, const st_simcell *const *cells, size_t n) {
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        json_str(f, cells[i]->label);
    }
    fputc(']', f);
}

/* "sim": the simulated cells, one object per compare_sim.csv row with the same names and digits. */
static void sim_json(FILE *f, const st_comparison *c) {
    fprintf(f,
            "  \"sim\": {\n    \"counts\": {\"cells\": %zu, \"differ\": %zu, \"only_in_a\": %zu, "
            "\"only_in_b\": %zu},\n",
            c->nsim, c->sim_differ, c->nsim_only_a, c->nsim_only_b);
    fprintf(f, "    \"threshold\": %.10g,\n", c->opts.sim_threshold);
    fputs("    \"units\": {\"Ir\": \"instructions\", \"est_cycles\": \"estimated cycles\", \"overhead_Ir\": \"ratio to "
          "baseline\", \"overhead_est_cycles\": \"ratio to baseline\", \"a_runs\": \"ok runs\"},\n    \"only_in_a\": ",
          f);
    json_simlabels(f, c->sim_only_a, c->nsim_only_a);
    fputs(",\n    \"only_in_b\": ", f);
    json_simlabels(f, c->sim_only_b, c->nsim_only_b);
    fputs(",\n    \"cells\": [", f);
    for (size_t i = 0; i < c->nsim; i++) {
        const st_cmp_simcell *r = &c->sim[i];
        fputs(i ? ",\n      {\"label\": " : "\n      {\"label\": ", f);
        json_str(f, r->label);
        fputs(", \"workload\": ", f);
        json_str(f, r->a->workload);
        fputs(", \"kind\": ", f);
        json_str(f, r->a->kind);
        fprintf(f, ", \"a_runs\": %zu, \"b_runs\": %zu", r->a->ok, r->b->ok);
        for (int k = 0; k < ST_CMP_SIM_N; k++) {
            const st_cmp_simq *q = &r->q[k];
            const char *fmt[] = {"a_%s", "b_%s", "%s_diff", "%s_diff_lo", "%s_diff_hi"};
            const double v[] = {q->a, q->b, q->diff, q->lo, q->hi};
            for (size_t j = 0; j < 5; j++) {
                fputs(", \"", f);
                fprintf(f, fmt[j], simq_names[k]);
                fputs("\": ", f);
                simnum(f, k, v[j], "null");
            }
            fprintf(f, ", \"%s_verdict\": ", simq_names[k]);
            json_str(f, q->verdict);
        }
        fputs(", \"note\": ", f);
        json_str(f, r->note);
        fputc('}', f);
    }
    fputs(c->nsim ? "\n    ]\n  }\n" : "]\n  }\n", f);
}

int st_compare_json(FILE *f, const st_comparison *c) {
    const st_compare_opts *o = &c->opts;
    fputs("{\n  \"format\": \"freecheck-compare-1\",\n  \"a\": ", f);
    json_str(f, c->a->dir);
    fputs(",\n  \"b\": ", f);
    json_str(f, c->b->dir);
    fprintf(f, ",\n  \"threshold\": %.10g,\n  \"confidence\": %.10g,\n  \"resamples\": %zu,\n  \"seed\": %llu,\n",
            o->threshold, o->boot.confidence, o->boot.resamples, (unsigned long long)o->boot.seed);
    fputs("  \"correction\": \"benjamini-hochberg\",\n", f);
    fprintf(f, "  \"gate\": \"%s\",\n", st_gate_name(o->gate));
    fprintf(f, "  \"time\": \"%s\",\n", st_cmp_time_name(o->time));
    fprintf(f, "  \"different_machines\": %s,\n", c->different_machines ? "true" : "false");
    fprintf(f,
            "  \"counts\": {\"cells\": %zu, \"compared\": %zu, \"slower\": %zu, \"faster\": %zu, \"same\": %zu, "
            "\"inconclusive\": %zu, \"ungated\": %zu, \"paired\": %zu, \"unpaired\": %zu, \"only_in_a\": %zu, "
            "\"only_in_b\": %zu, \"failed\": %zu, \"missing\": %zu},\n",
            c->ncells, c->compared, c->slower, c->faster, c->same, c->inconclusive, c->ungated, c->paired, c->unpaired,
            c->nonly_a, c->nonly_b, c->failed, c->missing);
    fputs(
        "  \"units\": {\"a_median_ns\": \"ns\", \"b_median_ns\": \"ns\", \"ratio\": \"B/A\", "
        "\"a_overhead\": \"ratio to baseline\", \"b_overhead\": \"ratio to baseline\", "
        "\"overhead_change\": \"B overhead - A overhead\", \"unpaired_overhead_change\": \"B overhead - A overhead\", "
        "\"a_pairs\": \"blocks\", \"b_pairs\": \"blocks\", \"threshold\": \"fraction\"},\n",
        f);
    fputs("  \"metadata_differences\": [", f);
    for (size_t i = 0; i < c->nmeta; i++) {
        fputs(i ? ",\n    {\"key\": " : "\n    {\"key\": ", f);
        json_str(f, c->meta[i].key);
        fputs(", \"a\": ", f);
        json_str(f, c->meta[i].a);
        fputs(", \"b\": ", f);
        json_str(f, c->meta[i].b);
        fprintf(f, ", \"important\": %s}", c->meta[i].important ? "true" : "false");
    }
    fputs(c->nmeta ? "\n  ],\n  \"only_in_a\": " : "],\n  \"only_in_a\": ", f);
    json_labels(f, c->only_a, c->nonly_a);
    fputs(",\n  \"only_in_b\": ", f);
    json_labels(f, c->only_b, c->nonly_b);
    fputs(",\n  \"cells\": [", f);
    for (size_t i = 0; i < c->ncells; i++) {
        const st_cmp_cell *r = &c->cells[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        fputs("\"label\": ", f);
        json_str(f, r->label);
        fputs(", \"workload\": ", f);
        json_str(f, r->a->workload);
        fputs(", \"kind\": ", f);
        json_str(f, r->a->kind);
        fprintf(f, ", \"a_runs\": %zu, \"b_runs\": %zu, ", r->a_runs, r->b_runs);
        json_num_field(f, "a_median_ns", r->a_median, 1);
        json_num_field(f, "b_median_ns", r->b_median, 1);
        json_num_field(f, "ratio", r->ratio.est, 1);
        json_num_field(f, "ratio_lo", r->ratio.lo, 1);
        json_num_field(f, "ratio_hi", r->ratio.hi, 1);
        fprintf(f, "\"ratio_method\": \"%s\", ", st_ci_name(r->ratio.method));
        json_num_field(f, "a_overhead", r->a_overhead, 1);
        json_num_field(f, "b_overhead", r->b_overhead, 1);
        json_num_field(f, "overhead_change", r->doverhead.est, 1);
        json_num_field(f, "overhead_change_lo", r->doverhead.lo, 1);
        json_num_field(f, "overhead_change_hi", r->doverhead.hi, 1);
        fprintf(f, "\"overhead_change_method\": \"%s\", \"overhead_pairing\": ", st_ci_name(r->doverhead.method));
        json_str(f, pairing(r));
        fprintf(f, ", \"a_pairs\": %zu, \"b_pairs\": %zu, ", r->a_pairs, r->b_pairs);
        json_num_field(f, "unpaired_overhead_change", r->doverhead_unpaired.est, 1);
        json_num_field(f, "unpaired_overhead_change_lo", r->doverhead_unpaired.lo, 1);
        json_num_field(f, "unpaired_overhead_change_hi", r->doverhead_unpaired.hi, 1);
        json_num_field(f, "mw_u", r->mw.u, 1);
        json_num_field(f, "mw_p", r->mw.p, 1);
        json_num_field(f, "mw_p_adjusted", r->p_adjusted, 1);
        fprintf(f, "\"verdict\": \"%s\", \"note\": ", r->verdict);
        json_str(f, r->note);
        fputs(", ", f);
        json_num_field(f, "beyond_p", r->p_beyond, 1);
        json_num_field(f, "beyond_p_adjusted", r->beyond_adjusted, 0);
        fputc('}', f);
    }
    fputs(c->ncells ? "\n  ],\n" : "],\n", f);
    sim_json(f, c);
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

int st_compare_plotdata(FILE *f, const st_comparison *c) {
    fprintf(f,
            "# compare.dat: one row per %s cell (B against A), gate %s threshold %.10g%% time %s\n"
            "# row label change_pct lo_pct hi_pct verdict\n",
            c->opts.gate == ST_GATE_RATIO ? "matched" : "gated", st_gate_name(c->opts.gate), c->opts.threshold * 100,
            st_cmp_time_name(c->opts.time));
    size_t row = 0;
    for (size_t i = 0; i < c->ncells; i++) {
        const st_cmp_cell *r = &c->cells[i];
        double c0;
        const st_interval *iv = gated(c, r, &c0);
        if (!strcmp(r->verdict, "ungated"))
            continue;
        double e = (iv->est - c0) * 100, lo = (iv->lo - c0) * 100, hi = (iv->hi - c0) * 100;
        fprintf(f, "%zu \"%s\" ", row++, r->label);
        const double v[] = {e, lo, hi};
        for (int k = 0; k < 3; k++) {
            if (isfinite(v[k]))
                fprintf(f, "%.6g ", v[k]);
            else
                fputs("NaN ", f);
        }
        fprintf(f, "%s\n", r->verdict);
    }
    return ferror(f) ? -1 : 0;
}

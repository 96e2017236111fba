/* st_analysis.c - per-cell statistics: descriptive, bootstrap intervals, rank test, exactness, A/A. */
#include "st_analysis.h"
#include "st_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int st_kind_rank(const char *kind) {
    if (strcmp(kind, "baseline") == 0)
        return 0;
    if (strcmp(kind, "alloc") == 0)
        return 1;
    if (strcmp(kind, "time") == 0)
        return 2;
    if (strcmp(kind, "alloc+time") == 0)
        return 3;
    return 4;
}

static int cmp_cells(const void *a, const void *b) {
    const st_cell *x = *(st_cell *const *)a, *y = *(st_cell *const *)b;
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
    c = strcmp(x->time_clock, y->time_clock);
    if (c)
        return c;
    if (x->time_hz != y->time_hz)
        return x->time_hz < y->time_hz ? -1 : 1;
    if (!(isnan(x->depth) && isnan(y->depth)) && x->depth != y->depth) {
        if (isnan(x->depth))
            return 1;
        if (isnan(y->depth))
            return -1;
        return x->depth < y->depth ? -1 : 1;
    }
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return strcmp(x->label, y->label);
}

static void note(st_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(st_result *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    st_note_add(r->note, sizeof r->note, fmt, ap);
    va_end(ap);
}

/* Adds the interval's reason to the note, once per distinct reason. */
static void note_interval(st_result *r, const char *what, const st_interval *iv) {
    if (!iv->why)
        return;
    char buf[200];
    snprintf(buf, sizeof buf, "%s: %s", what, iv->why);
    if (!strstr(r->note, buf))
        note(r, "%s", buf);
}

static double count_or_zero(const st_run *run, st_key k, int needed) {
    double v = run->key[k];
    if (isnan(v) && !needed)
        return 0.0; /* the sampler is off: no samples, whether or not recorded */
    return v;
}

double st_run_sps(const st_result *r, const st_run *run, int which) {
    double secs = run->wall_ns / 1e9;
    double a = count_or_zero(run, ST_K_alloc_samples, r->samples_alloc);
    double t = count_or_zero(run, ST_K_time_samples, r->samples_time);
    double n = which == 0 ? a : which == 1 ? t : a + t;
    return n / secs;
}

double st_run_cpu(const st_analysis *an, const st_result *r, const st_run *run) {
    if (r->cpu_task_clock) {
        size_t i = (size_t)(run - an->sweep->runs);
        return an->sweep->counter[i * an->sweep->nevents + (size_t)an->task_clock_event];
    }
    return run->user_ns + run->sys_ns;
}

/* Used runs of a cell, as pointers. */
size_t st_used_runs(const st_sweep *sw, const st_cell *c, const st_run **out) {
    size_t k = 0;
    for (size_t i = 0; i < c->nruns; i++) {
        const st_run *run = &sw->runs[c->first_run + i];
        if (run->used)
            out[k++] = run;
    }
    return k;
}

static int all_finite(const double *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

static double f_overhead(const double *m1, const double *m0) { return m1[ST_M_WALL] / m0[ST_M_WALL]; }
static double f_cpu_overhead(const double *m1, const double *m0) { return m1[ST_M_CPU] / m0[ST_M_CPU]; }
static double f_asps(const double *m1, const double *m0) {
    (void)m0;
    return m1[ST_M_ASPS];
}
static double f_tsps(const double *m1, const double *m0) {
    (void)m0;
    return m1[ST_M_TSPS];
}
static double f_sps(const double *m1, const double *m0) {
    (void)m0;
    return m1[ST_M_SPS];
}
/* The paper's normalized overhead per 1000 samples/s, from the resample's
 * own overhead and rate (so its interval is its own, not derived). */
static double f_norm(const double *m1, const double *m0) {
    return 1.0 + (m1[ST_M_WALL] / m0[ST_M_WALL] - 1.0) * 1000.0 / m1[ST_M_SPS];
}
/* Extra wall time per sample, in microseconds. */
static double f_cost(const double *m1, const double *m0) {
    return (m1[ST_M_WALL] - m0[ST_M_WALL]) / m1[ST_M_SAMPLES] / 1000.0;
}

/* The statistics bootstrapped per cell: X(id, field of st_result, name in
 * notes, statistic, two-sample (needs the baseline), wanted when).  The
 * condition reads two (the cell has a baseline with used runs), a
 * (samples allocations) and t (samples time). */
#define ST_CELL_STATS(X)                                         \
    X(OVERHEAD, overhead, "overhead", f_overhead, 1, two)        \
    X(CPU, cpu_overhead, "cpu_overhead", f_cpu_overhead, 1, two) \
    X(ASPS, alloc_sps, "alloc_sps", f_asps, 0, a)                \
    X(TSPS, time_sps, "time_sps", f_tsps, 0, t)                  \
    X(SPS, sps, "sps", f_sps, 0, (a || t))                       \
    X(NORM, norm, "norm_overhead", f_norm, 1, (two && (a || t))) \
    X(COST, cost, "sample_cost", f_cost, 1, (two && (a || t)))

#define S_ENUM(id, field, name, f, two_sample, when) S_##id,
enum { ST_CELL_STATS(S_ENUM) S_COUNT };
#undef S_ENUM
#define S_STAT(id, field, name, f, two_sample, when) [S_##id] = {f, two_sample},
static const st_stat all_stats[S_COUNT] = {ST_CELL_STATS(S_STAT)};
#undef S_STAT
#define S_NAME(id, field, name, f, two_sample, when) [S_##id] = name,
static const char *const stat_names[S_COUNT] = {ST_CELL_STATS(S_NAME)};
#undef S_NAME

/* The result's interval of statistic s. */
static st_interval *stat_interval(st_result *r, int s) {
    switch (s) {
#define S_FIELD(id, field, name, f, two_sample, when) \
    case S_##id: return &r->field;
        ST_CELL_STATS(S_FIELD)
#undef S_FIELD
    }
    return NULL;
}

/* Which statistics a cell gets: want[s] set. */
static void stats_wanted(int two, int a, int t, int *want) {
#define S_WANT(id, field, name, f, two_sample, when) want[S_##id] = (when);
    ST_CELL_STATS(S_WANT)
#undef S_WANT
}

static void empty_interval(st_interval *iv) {
    iv->est = iv->lo = iv->hi = iv->z0 = iv->accel = NAN;
    iv->method = ST_CI_NONE;
    iv->why = NULL;
}

const st_cell *st_find_baseline(const st_sweep *sw, const st_cell *c, int *several) {
    const st_cell *found = NULL;
    *several = 0;
    for (size_t i = 0; i < sw->ncells; i++) {
        const st_cell *b = &sw->cells[i];
        if (strcmp(b->kind, "baseline") || strcmp(b->workload, c->workload) || b->size != c->size)
            continue;
        /* Same depth too, when depths are recorded (deepstack at several depths). */
        if (!(isnan(b->depth) && isnan(c->depth)) && b->depth != c->depth)
            continue;
        if (found)
            *several = 1;
        else
            found = b; /* cells are sorted by cell_id: the first one wins */
    }
    return found;
}

static void exactness(st_analysis *an, st_result *r, const st_run **runs, size_t n, size_t *cap) {
    const st_cell *c = r->cell;
    r->samples_ratio = NAN;
    if (!r->samples_alloc)
        return;
    int fixed = st_cell_fixed(c);
    /* In the in-process design every B segment restarts the sampler, so the
     * rule holds per segment, not per run: st_inproc checks it there. */
    const char *design = an->sweep ? st_sweep_meta(an->sweep, "design") : NULL;
    if (fixed && design && !strcmp(design, "inprocess")) {
        fixed = 0;
        note(r, "exactness checked per segment (in-process design: inprocess.csv)");
    }
    double *ratio = ct_xmalloc((n ? n : 1) * sizeof *ratio);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const st_run *run = runs[i];
        double P = run->key[ST_K_alloc_period];
        if (!(P > 0))
            P = (double)c->alloc_period;
        double pts = run->key[ST_K_alloc_sample_points], bytes = run->key[ST_K_sampled_bytes];
        if (isnan(pts) || isnan(bytes) || !(P > 0)) {
            r->exact_missing++;
            continue;
        }
        ratio[k++] = bytes > 0 ? pts / (bytes / P) : NAN;
        if (!fixed)
            continue;
        r->exact_checked++;
        /* Integers below 2^53 are exact in a double; compare as integers. */
        unsigned long long expect = (unsigned long long)bytes / (unsigned long long)P;
        if ((unsigned long long)pts != expect || pts != floor(pts)) {
            r->exact_mismatches++;
            if (an->nmismatches == *cap)
                an->mismatches = ct_xrealloc(an->mismatches, (*cap = *cap ? 2 * *cap : 16) * sizeof *an->mismatches);
            an->mismatches[an->nmismatches++] = (st_mismatch){c, run, pts, (double)expect, P};
        }
    }
    if (r->exact_missing)
        note(r, "%zu runs lack alloc_sample_points, sampled_bytes or the period: not checked", r->exact_missing);
    if (r->exact_mismatches)
        note(r, "EXACTNESS MISMATCH in %zu of %zu runs", r->exact_mismatches, r->exact_checked);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!isnan(ratio[i]))
            ratio[m++] = ratio[i];
    r->samples_ratio = m ? st_median(ratio, m) : NAN;
    free(ratio);
}

/* A/A: the baseline's runs of odd rounds against those of even rounds. */
static void noise_floor(st_result *r, const st_run **runs, size_t n, const st_analysis_opts *opts) {
    double *odd = ct_xmalloc((n ? n : 1) * sizeof *odd), *even = ct_xmalloc((n ? n : 1) * sizeof *even);
    size_t no = 0, ne = 0;
    for (size_t i = 0; i < n; i++) {
        if (runs[i]->round % 2)
            odd[no++] = runs[i]->wall_ns;
        else
            even[ne++] = runs[i]->wall_ns;
    }
    st_sample s1 = {no, {odd}}, s0 = {ne, {even}};
    st_boot_opts bo = opts->boot;
    bo.seed = opts->boot.seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, r->cell->label), "#aa");
    st_stat st = {f_overhead, 1};
    st_bootstrap(&s1, &s0, &st, 1, &bo, &r->aa);
    r->aa_odd = no;
    r->aa_even = ne;
    r->aa_floor = NAN;
    if (r->aa.method != ST_CI_NONE) {
        double up = r->aa.hi - 1.0, down = 1.0 - r->aa.lo;
        r->aa_floor = up > down ? up : down;
        if (r->aa_floor < 0)
            r->aa_floor = 0; /* the interval lies on one side of 1: the floor is at least its near end */
    } else {
        note_interval(r, "A/A", &r->aa);
    }
    free(odd);
    free(even);
}

/* The cell's identity, its baseline, and the notes on its runs. */
static void cell_setup(const st_sweep *sw, st_result *r) {
    const st_cell *c = r->cell;
    r->is_baseline = strcmp(c->kind, "baseline") == 0;
    r->samples_alloc = strstr(c->kind, "alloc") != NULL;
    r->samples_time = strstr(c->kind, "time") != NULL;
    r->runs = c->used;
    r->failed = c->failed;
    r->verdict = "n/a";
    r->mw = (st_mw){NAN, NAN, 0};
    r->baseline_median = NAN;
    r->aa_floor = NAN;
    empty_interval(&r->aa);
    for (int s = 0; s < S_COUNT; s++)
        empty_interval(stat_interval(r, s));

    int several = 0;
    r->baseline = r->is_baseline ? c : st_find_baseline(sw, c, &several);
    if (!r->is_baseline && !r->baseline)
        note(r, "no baseline cell for workload %s at size %lld: no overhead", c->workload, (long long)c->size);
    if (several)
        note(r, "several baseline cells match: compared with %s", r->baseline->label);
    if (c->failed)
        note(r, "%zu of %zu measured runs failed (excluded)", c->failed, c->nruns);
    if (c->nruns == 0)
        note(r, "no measured runs");
    else if (c->used == 0)
        note(r, "every measured run failed");
}

/* CPU time is task-clock when every run on both sides has it. */
static int all_task_clock(const st_analysis *an, const st_run **runs, size_t n, const st_run **bruns, size_t nb) {
    const st_sweep *sw = an->sweep;
    if (an->task_clock_event < 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (isnan(sw->counter[(size_t)(runs[i] - sw->runs) * sw->nevents + (size_t)an->task_clock_event]))
            return 0;
    for (size_t i = 0; i < nb; i++)
        if (isnan(sw->counter[(size_t)(bruns[i] - sw->runs) * sw->nevents + (size_t)an->task_clock_event]))
            return 0;
    return 1;
}

/* The medians of the stats keys over the cell's runs (NaN values skipped):
 * X(key, field of st_result, noted when runs lack it). */
#define ST_CELL_KEYS(X)                               \
    X(alloc_samples, alloc_samples, r->samples_alloc) \
    X(alloc_sample_points, alloc_points, 0)           \
    X(time_samples, time_samples, r->samples_time)    \
    X(time_hz_achieved, hz_achieved, 0)               \
    X(bytes_allocated, bytes_allocated, 1)            \
    X(gc_ns, gc_ns, 0)

static void key_medians(st_result *r, const st_run **runs, size_t n) {
    double *tmp = ct_xmalloc((n ? n : 1) * sizeof(double));
    st_desc d;
#define K_MEDIAN(name, field, needed)       \
    for (size_t i = 0; i < n; i++)          \
        tmp[i] = runs[i]->key[ST_K_##name]; \
    st_describe(tmp, n, &d);                \
    r->field = d.median;                    \
    if (n && d.n < n && (needed))           \
        note(r, "%zu of %zu runs lack the stats key %s", n - d.n, n, st_key_name(ST_K_##name));
    ST_CELL_KEYS(K_MEDIAN)
#undef K_MEDIAN
    free(tmp);
}

/* The bootstrap intervals of the statistics the cell gets (s1 its runs, s0
 * its baseline's), their notes, and the point rates of samplers it does not
 * turn on. */
static void cell_intervals(st_result *r, const st_sample *s1, const st_sample *s0, double *const *m1, size_t n,
                           const st_analysis_opts *opts) {
    int want[S_COUNT] = {0};
    int two = r->baseline && s0->n;
    stats_wanted(two, r->samples_alloc, r->samples_time, want);
    st_stat chosen[S_COUNT];
    int map[S_COUNT];
    size_t k = 0;
    for (int s = 0; s < S_COUNT; s++)
        if (want[s]) {
            map[k] = s;
            chosen[k++] = all_stats[s];
        }
    st_interval out[S_COUNT];
    st_boot_opts bo = opts->boot;
    bo.seed = opts->boot.seed ^ st_fnv1a64(ST_FNV_OFFSET, r->cell->label);
    if (k)
        st_bootstrap(s1, two ? s0 : NULL, chosen, k, &bo, out);
    for (size_t j = 0; j < k; j++)
        *stat_interval(r, map[j]) = out[j];
    /* Point values of rates for samplers the cell does not use. */
    if (!want[S_ASPS])
        r->alloc_sps.est = st_median(m1[ST_M_ASPS], n);
    if (!want[S_TSPS])
        r->time_sps.est = st_median(m1[ST_M_TSPS], n);
    if (!want[S_SPS])
        r->sps.est = st_median(m1[ST_M_SPS], n);
    for (int s = 0; s < S_COUNT; s++)
        if (want[s])
            note_interval(r, stat_names[s], stat_interval(r, s));
    if (want[S_NORM] && r->sps.est == 0)
        note(r, "no samples taken: no normalized overhead or per-sample cost");
}

static void analyze_cell(st_analysis *an, st_result *r, const st_analysis_opts *opts, size_t *mcap) {
    const st_sweep *sw = an->sweep;
    const st_cell *c = r->cell;
    cell_setup(sw, r);

    const st_run **runs = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *runs);
    size_t n = st_used_runs(sw, c, runs);
    const st_run **bruns = NULL;
    size_t nb = 0;
    if (r->baseline) {
        bruns = ct_xmalloc((r->baseline->nruns ? r->baseline->nruns : 1) * sizeof *bruns);
        nb = st_used_runs(sw, r->baseline, bruns);
        r->baseline_runs = nb;
        if (nb == 0 && !r->is_baseline)
            note(r, "the baseline %s has no used runs: no overhead", r->baseline->label);
    }
    r->cpu_task_clock = all_task_clock(an, runs, n, bruns, nb);

    double *m1[ST_M_COUNT], *m0[2];
    for (int m = 0; m < ST_M_COUNT; m++)
        m1[m] = ct_xmalloc((n ? n : 1) * sizeof(double));
    for (int m = 0; m < 2; m++)
        m0[m] = ct_xmalloc((nb ? nb : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        const st_run *run = runs[i];
        m1[ST_M_WALL][i] = run->wall_ns;
        m1[ST_M_CPU][i] = st_run_cpu(an, r, run);
        m1[ST_M_ASPS][i] = st_run_sps(r, run, 0);
        m1[ST_M_TSPS][i] = st_run_sps(r, run, 1);
        m1[ST_M_SPS][i] = st_run_sps(r, run, 2);
        m1[ST_M_SAMPLES][i] = count_or_zero(run, ST_K_alloc_samples, r->samples_alloc) +
                              count_or_zero(run, ST_K_time_samples, r->samples_time);
    }
    for (size_t i = 0; i < nb; i++) {
        m0[ST_M_WALL][i] = bruns[i]->wall_ns;
        m0[ST_M_CPU][i] = st_run_cpu(an, r, bruns[i]);
    }
    st_describe(m1[ST_M_WALL], n, &r->wall);
    st_describe(m1[ST_M_CPU], n, &r->cpu);
    if (nb)
        r->baseline_median = st_median(m0[ST_M_WALL], nb);
    key_medians(r, runs, n);
    exactness(an, r, runs, n, mcap);

    /* Which metrics are usable (finite on every run). */
    st_sample s1 = {n, {0}}, s0 = {nb, {0}};
    for (int m = 0; m < ST_M_COUNT; m++)
        s1.metric[m] = all_finite(m1[m], n) ? m1[m] : NULL;
    for (int m = 0; m < 2; m++)
        s0.metric[m] = all_finite(m0[m], nb) ? m0[m] : NULL;
    if (n && (!s1.metric[ST_M_CPU] || (nb && !s0.metric[ST_M_CPU])))
        note(r, "CPU time missing for some runs: no CPU overhead");

    if (r->is_baseline) {
        noise_floor(r, runs, n, opts);
        r->verdict = "baseline";
    } else if (n) {
        cell_intervals(r, &s1, &s0, m1, n, opts);
        if (r->baseline && nb) {
            r->mw = st_mann_whitney(m1[ST_M_WALL], n, m0[ST_M_WALL], nb);
        }
    }

    /* Kept for st_unpaired_se: the usable metrics as the bootstrap saw them. */
    r->run_n = n, r->base_n = nb;
    for (int m = 0; m < ST_M_COUNT; m++) {
        r->run_m[m] = s1.metric[m] ? m1[m] : NULL;
        if (!s1.metric[m])
            free(m1[m]);
    }
    for (int m = 0; m < 2; m++) {
        r->base_m[m] = s0.metric[m] ? m0[m] : NULL;
        if (!s0.metric[m])
            free(m0[m]);
    }
    free(runs);
    free(bruns);
}

/* The metrics statistic s reads of the cell's runs (bit m: run_m[m]) and of
 * the baseline's (base_m). */
static unsigned unpaired_needs(st_unpaired_stat s, unsigned *base) {
    *base = s == ST_UP_CPU ? 1u << ST_M_CPU : 1u << ST_M_WALL;
    switch (s) {
    case ST_UP_OVERHEAD: return 1u << ST_M_WALL;
    case ST_UP_CPU: return 1u << ST_M_CPU;
    case ST_UP_NORM: return 1u << ST_M_WALL | 1u << ST_M_SPS;
    case ST_UP_COST: return 1u << ST_M_WALL | 1u << ST_M_SAMPLES;
    }
    return 0;
}

static const st_stat_fn unpaired_fn[] = {f_overhead, f_cpu_overhead, f_norm, f_cost};

/* The medians of one resample of n runs (idx) of the metrics in mask. */
static void resample_medians(double *const *m, const size_t *idx, size_t n, unsigned mask, double *tmp, double *med) {
    for (int k = 0; k < ST_M_COUNT; k++) {
        med[k] = NAN;
        if (!(mask & 1u << k))
            continue;
        for (size_t i = 0; i < n; i++)
            tmp[i] = m[k][idx[i]];
        med[k] = st_median(tmp, n);
    }
}

double st_unpaired_se(const st_result *r, st_unpaired_stat s, size_t resamples, uint64_t seed) {
    unsigned bmask, mask = unpaired_needs(s, &bmask);
    size_t n = r->run_n, nb = r->base_n;
    if (n < ST_BOOT_MIN_RUNS || nb < ST_BOOT_MIN_RUNS || resamples < 2)
        return NAN;
    for (int k = 0; k < ST_M_COUNT; k++)
        if ((mask & 1u << k) && !r->run_m[k])
            return NAN;
    for (int k = 0; k < 2; k++)
        if ((bmask & 1u << k) && !r->base_m[k])
            return NAN;
    int logs = s == ST_UP_OVERHEAD || s == ST_UP_CPU;
    size_t most = n > nb ? n : nb;
    size_t *idx = ct_xmalloc(most * sizeof *idx);
    double *tmp = ct_xmalloc(most * sizeof *tmp), m1[ST_M_COUNT], m0[ST_M_COUNT];
    double *bm[ST_M_COUNT] = {r->base_m[0], r->base_m[1]};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    double mean = 0, m2 = 0; /* Welford */
    int finite = 1;
    for (size_t b = 0; b < resamples && finite; b++) {
        for (size_t i = 0; i < n; i++)
            idx[i] = gsl_rng_uniform_int(rng, n);
        resample_medians(r->run_m, idx, n, mask, tmp, m1);
        for (size_t i = 0; i < nb; i++)
            idx[i] = gsl_rng_uniform_int(rng, nb);
        resample_medians(bm, idx, nb, bmask, tmp, m0);
        double t = unpaired_fn[s](m1, m0);
        t = logs ? (t > 0 ? log(t) : NAN) : t;
        finite = isfinite(t);
        double delta = t - mean;
        mean += delta / (double)(b + 1);
        m2 += delta * (t - mean);
    }
    gsl_rng_free(rng);
    free(idx), free(tmp);
    size_t small = n < nb ? n : nb;
    return finite ? sqrt(m2 / (double)(resamples - 1)) * sqrt((double)small / (double)(small - 1)) : NAN;
}

const char *st_paired_rule_name(st_paired_rule r) {
    return r == ST_RULE_TWO_STAGE ? "two-stage" : r == ST_RULE_SEQUENTIAL ? "sequential" : "fixed";
}

/* The value of "key = value" in the sweep's config (meta config), as a
 * number, or NaN.  A percentage's % is dropped. */
static double config_number(const st_sweep *sw, const char *key) {
    const char *cfg = st_sweep_meta(sw, "config");
    size_t k = strlen(key);
    for (const char *p = cfg; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > k + 3 && !strncmp(p, key, k) && !strncmp(p + k, " = ", 3)) {
            char v[64];
            size_t m = len - k - 3 < sizeof v - 1 ? len - k - 3 : sizeof v - 1;
            memcpy(v, p + k + 3, m);
            v[m] = '\0';
            char *end;
            double x = strtod(v, &end);
            if (end != v && (!*end || !strcmp(end, "%")))
                return x;
            return NAN;
        }
        p = eol ? eol + 1 : p + len;
    }
    return NAN;
}

/* The adaptive rounds of the sweep (st_analysis.h): planned rounds and the
 * target from the config, the rule from meta adaptive_rule (absent: the
 * sequential rule of the sweeps before it). */
static void adaptive_setup(st_analysis *an) {
    const st_sweep *sw = an->sweep;
    double runs = config_number(sw, "runs"), hw = config_number(sw, "halfwidth");
    an->planned_rounds = 0;
    an->halfwidth = 0;
    an->rule = ST_RULE_FIXED;
    if (!(hw > 0) || !(runs >= 1))
        return;
    an->planned_rounds = (size_t)runs;
    an->halfwidth = hw / 100;
    const char *rule = st_sweep_meta(sw, "adaptive_rule");
    an->rule = rule && !strcmp(rule, "two-stage") ? ST_RULE_TWO_STAGE : ST_RULE_SEQUENTIAL;
}

void st_analyze_cells(const st_sweep *sw, const st_analysis_opts *opts, st_analysis *an) {
    memset(an, 0, sizeof *an);
    an->sweep = sw;
    adaptive_setup(an);
    an->task_clock_event = -1;
    an->confidence = opts->boot.confidence;
    an->replicates = 1;
    for (size_t e = 0; e < sw->nevents; e++)
        if (strcmp(sw->events[e], "perf::task-clock") == 0)
            an->task_clock_event = (int)e;
    const st_cell **order = ct_xmalloc(sw->ncells * sizeof *order);
    for (size_t i = 0; i < sw->ncells; i++)
        order[i] = &sw->cells[i];
    qsort(order, sw->ncells, sizeof *order, cmp_cells);
    an->results = ct_xcalloc(sw->ncells, sizeof *an->results);
    an->nresults = sw->ncells;
    size_t mcap = 0;
    for (size_t i = 0; i < sw->ncells; i++) {
        st_result *r = &an->results[i];
        r->cell = order[i];
        if (opts->progress && (i == 0 || strcmp(order[i - 1]->workload, order[i]->workload)))
            fprintf(stderr, "analyze: %s\n", order[i]->workload);
        analyze_cell(an, r, opts, &mcap);
        an->used_runs += r->runs;
        an->failed_runs += r->failed;
    }
    free(order);
    st_analyze_paired(an, opts);
    an->sim = opts->sim;
    for (size_t i = 0; i < an->nresults; i++) {
        st_result *r = &an->results[i];
        r->replicates = r->runs ? 1 : 0;
        r->overhead_level = ST_LEVEL_PROCESSES;
        r->paired_level = ST_LEVEL_BLOCKS;
        r->rep_overhead_tau = r->rep_overhead_tau_family = r->rep_overhead_within = NAN;
        r->rep_paired_tau = r->rep_paired_tau_family = r->rep_paired_within = NAN;
        r->rep_overhead_tau_used = r->rep_overhead_tau_lo = r->rep_overhead_tau_hi = NAN;
        r->rep_paired_tau_used = r->rep_paired_tau_lo = r->rep_paired_tau_hi = NAN;
    }
}

void st_analysis_free_cells(st_analysis *an) {
    for (size_t i = 0; i < an->nresults; i++) {
        free(an->results[i].pair_norm);
        free(an->results[i].pair_round);
        free(an->results[i].pair_log);
        free(an->results[i].pair_cpu);
        free(an->results[i].pair_cost);
        for (int m = 0; m < ST_M_COUNT; m++)
            free(an->results[i].run_m[m]);
        for (int m = 0; m < 2; m++)
            free(an->results[i].base_m[m]);
    }
    free(an->results);
    free(an->mismatches);
    memset(an, 0, sizeof *an);
}

/* st_inproc.c - the in-process estimator (invariants: st_inproc.h). */
#include "st_inproc.h"
#include "sgc_alt.h"
#include "sgc_modes.h"
#include <gsl/gsl_rng.h>
#include "st_desc.h"
#include "st_levels.h"
#include "st_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Orders segments by run, block, position (so a block's four are adjacent). */
static int cmp_seg(const void *a, const void *b) {
    const st_seg *x = *(const st_seg *const *)a, *y = *(const st_seg *const *)b;
    if (x->run != y->run)
        return (x->run > y->run) - (x->run < y->run);
    if (x->block != y->block)
        return (x->block > y->block) - (x->block < y->block);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Is g[0..3] one complete block? */
static int complete_block(const st_seg *const *g) {
    int na = 0, nb = 0;
    for (int k = 0; k < 4; k++) {
        if (g[k]->run != g[0]->run || g[k]->block != g[0]->block || g[k]->pos != k || !g[k]->complete)
            return 0;
        na += g[k]->kind == 'A';
        nb += g[k]->kind == 'B';
    }
    return na == 2 && nb == 2;
}

void st_inproc_blocks(const st_seg *segs, size_t n, st_blocks *out) {
    memset(out, 0, sizeof *out);
    const st_seg **s = ct_xmalloc((n ? n : 1) * sizeof *s);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (segs[i].block >= 1)
            s[m++] = &segs[i];
    qsort(s, m, sizeof *s, cmp_seg);

    /* Complete blocks start where four in a row form one; anything else
     * (a block cut by the exit, a missing segment) is skipped whole. */
    const st_seg ***blocks = ct_xmalloc((m / 4 + 1) * sizeof *blocks);
    size_t nb = 0, i = 0;
    int all_iter = 1;
    while (i < m) {
        size_t j = i;
        while (j < m && s[j]->run == s[i]->run && s[j]->block == s[i]->block)
            j++;
        if (j - i == 4 && complete_block(&s[i])) {
            blocks[nb++] = &s[i];
            for (size_t k = i; k < j; k++)
                if (!(s[k]->iterations > 0))
                    all_iter = 0;
        } else {
            out->skipped++;
        }
        i = j;
    }
    out->work_iterations = nb > 0 && all_iter;
    out->log_ratio = ct_xmalloc((nb ? nb : 1) * sizeof(double));
    out->sps = ct_xmalloc((nb ? nb : 1) * sizeof(double));
    out->run_of = ct_xmalloc((nb ? nb : 1) * sizeof(int64_t));
    out->block_of = ct_xmalloc((nb ? nb : 1) * sizeof(int64_t));
    int64_t last_run = 0;
    for (size_t b = 0; b < nb; b++) {
        double cpu[2] = {0, 0}, work[2] = {0, 0}, samples_b = 0;
        for (int k = 0; k < 4; k++) {
            const st_seg *g = blocks[b][k];
            int isb = g->kind == 'B';
            cpu[isb] += g->cpu_ns;
            work[isb] += out->work_iterations ? g->iterations : g->bytes;
            if (isb)
                samples_b += g->samples;
            if (isb && g->uncounted)
                out->uncounted = 1;
        }
        if (!(work[0] > 0 && work[1] > 0 && cpu[0] > 0 && cpu[1] > 0)) {
            out->skipped++;
            continue;
        }
        if (out->n == 0 || blocks[b][0]->run != last_run)
            out->runs++;
        last_run = blocks[b][0]->run;
        out->run_of[out->n] = blocks[b][0]->run;
        out->block_of[out->n] = blocks[b][0]->block;
        out->log_ratio[out->n] = log((cpu[1] / work[1]) / (cpu[0] / work[0]));
        out->sps[out->n] = samples_b / (cpu[1] / 1e9);
        out->n++;
    }
    free(blocks);
    free(s);
}

void st_blocks_free(st_blocks *b) {
    free(b->log_ratio);
    free(b->sps);
    free(b->run_of);
    free(b->block_of);
    memset(b, 0, sizeof *b);
}

/* Statistics of the medians m[0] = median r, m[1] = median s. */
static double stat_ratio(const double *m, const double *m0) {
    (void)m0;
    return exp(m[0]);
}

static double stat_cost(const double *m, const double *m0) {
    (void)m0;
    return (1.0 - exp(-m[0])) * 1e9 / m[1]; /* NaN or inf when no samples: no interval */
}

static double stat_norm(const double *m, const double *m0) {
    (void)m0;
    return 1.0 + (exp(m[0]) - 1.0) * 1000.0 / m[1];
}

/* The three estimates over blocks lr[0..n-1], sps[]: one-sample BCa;
 * samples the writer did not count give the ratio alone. */
static void estimate_blocks(const double *lr, const double *sps, size_t n, int uncounted, const st_boot_opts *opts,
                            st_interval *iv) {
    st_sample s1 = {n, {lr, sps}};
    const st_stat stats[3] = {{stat_ratio, 0}, {stat_cost, 0}, {stat_norm, 0}};
    st_bootstrap(&s1, NULL, stats, uncounted ? 1 : 3, opts, iv);
    if (uncounted)
        iv[1] = iv[2] = (st_interval){.est = NAN,
                                      .lo = NAN,
                                      .hi = NAN,
                                      .method = ST_CI_NONE,
                                      .why = "samples not counted",
                                      .z0 = NAN,
                                      .accel = NAN};
}

void st_inproc_estimate(const st_seg *segs, size_t n, const st_boot_opts *opts, st_inproc *out) {
    memset(out, 0, sizeof *out);
    st_inproc_blocks(segs, n, &out->blocks);
    const st_blocks *b = &out->blocks;
    st_interval iv[3];
    estimate_blocks(b->log_ratio, b->sps, b->n, b->uncounted, opts, iv);
    out->ratio = iv[0];
    out->cost_ns = iv[1];
    out->norm = iv[2];
    out->sps = b->n && !b->uncounted ? st_median(b->sps, b->n) : NAN;
    out->sd_log = NAN;
    if (b->n >= 2) {
        double mean = 0, ss = 0;
        for (size_t i = 0; i < b->n; i++)
            mean += b->log_ratio[i];
        mean /= (double)b->n;
        for (size_t i = 0; i < b->n; i++)
            ss += (b->log_ratio[i] - mean) * (b->log_ratio[i] - mean);
        out->sd_log = sqrt(ss / (double)(b->n - 1));
    }
}

static void free_procs(st_inproc *e) {
    for (size_t i = 0; e->procs && i < e->nprocs; i++)
        free(e->procs[i].draws);
    free(e->procs);
}

void st_inproc_free(st_inproc *e) {
    st_blocks_free(&e->blocks);
    free_procs(e);
    free(e->reps);
    e->procs = NULL, e->reps = NULL, e->nprocs = e->nreps = 0;
}

static void no_iv(st_interval *iv, const char *why) {
    *iv = (st_interval){.est = NAN, .lo = NAN, .hi = NAN, .method = ST_CI_NONE, .why = why, .z0 = NAN, .accel = NAN};
}

void st_inproc_proc_se(const double *lr, const double *sps, size_t n, int uncounted, size_t resamples, uint64_t seed,
                       double se[3], double *draws) {
    se[0] = se[1] = se[2] = NAN;
    if (n < 3 || resamples < 2)
        return;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(lr[i]) || (!uncounted && !isfinite(sps[i])))
            return;
    double *x = ct_xmalloc(n * sizeof *x), *y = ct_xmalloc(n * sizeof *y);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        ct_out_of_memory();
    gsl_rng_set(rng, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    double mean[3] = {0, 0, 0}, m2[3] = {0, 0, 0}; /* Welford */
    for (size_t b = 0; b < resamples; b++) {
        for (size_t i = 0; i < n; i++) {
            size_t j = gsl_rng_uniform_int(rng, n);
            x[i] = lr[j], y[i] = sps[j];
        }
        double m[2] = {st_quantile_select(x, n, 0.5), uncounted ? NAN : st_quantile_select(y, n, 0.5)};
        double t[3] = {m[0], stat_cost(m, NULL), stat_norm(m, NULL)};
        if (draws)
            draws[b] = m[0];
        for (int s = 0; s < 3; s++) {
            double delta = t[s] - mean[s];
            mean[s] += delta / (double)(b + 1);
            m2[s] += delta * (t[s] - mean[s]);
        }
    }
    gsl_rng_free(rng);
    if (draws) {
        memcpy(x, lr, n * sizeof *x);
        double own = st_quantile_select(x, n, 0.5);
        for (size_t b = 0; b < resamples; b++)
            draws[b] -= own;
    }
    free(x), free(y);
    double f = sqrt((double)n / (double)(n - 1));
    for (int s = 0; s < (uncounted ? 1 : 3); s++)
        se[s] = isfinite(m2[s]) ? sqrt(m2[s] / (double)(resamples - 1)) * f : NAN;
}

/* Cochran's Q of v[0..k-1] with SEs se[] (the fixed-effect mean about v[0], as st_re_combine). */
static double cochran_q(const double *v, const double *se, size_t k) {
    double s1 = 0, fe = 0, q = 0;
    for (size_t i = 0; i < k; i++) {
        double w = 1.0 / (se[i] * se[i]);
        s1 += w, fe += w * (v[i] - v[0]);
    }
    fe = v[0] + fe / s1;
    for (size_t i = 0; i < k; i++)
        q += (v[i] - fe) * (v[i] - fe) / (se[i] * se[i]);
    return q;
}

double st_inproc_q_boot_p(const double *est, const double *se, double *const *draws, size_t k, size_t B) {
    if (k < 2 || B < 1)
        return NAN;
    for (size_t i = 0; i < k; i++)
        if (!draws[i] || !(se[i] > 0) || !isfinite(se[i]) || !isfinite(est[i]))
            return NAN;
    double q = cochran_q(est, se, k), v[ST_INPROC_QMAX];
    if (k > ST_INPROC_QMAX)
        return NAN;
    size_t ge = 0;
    for (size_t b = 0; b < B; b++) {
        for (size_t i = 0; i < k; i++)
            v[i] = draws[i][b];
        ge += cochran_q(v, se, k) >= q;
    }
    return (1.0 + (double)ge) / (1.0 + (double)B);
}

/* Units' estimates and standard errors of statistic s (0 ratio on the log
 * scale, 1 cost, 2 normalized) of the processes p[0..n-1] combined. */
static void combine_procs(st_inproc_proc *const *p, size_t n, int s, double confidence, st_interval *out, st_re *re) {
    double *est = ct_xmalloc((n ? n : 1) * sizeof *est), *se = ct_xmalloc((n ? n : 1) * sizeof *se);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const st_interval *iv = s == 0 ? &p[i]->ratio : s == 1 ? &p[i]->cost_ns : &p[i]->norm;
        double e = s == 0 ? (iv->est > 0 ? log(iv->est) : NAN) : iv->est;
        if (!isfinite(e))
            continue;
        est[k] = e;
        se[k++] = p[i]->se[s];
    }
    st_re r;
    st_re_combine(est, se, k, -1, 0, confidence, &r);
    if (k < n || !isfinite(r.lo)) {
        no_iv(out, k < n ? "undefined in some process" : r.why);
        out->est = k == n && isfinite(r.est) ? (s == 0 ? exp(r.est) : r.est) : NAN;
    } else {
        out->est = s == 0 ? exp(r.est) : r.est;
        out->lo = s == 0 ? exp(r.lo) : r.lo;
        out->hi = s == 0 ? exp(r.hi) : r.hi;
        out->method = ST_CI_RANDOM;
        out->why = r.weighted ? NULL : r.why;
        out->z0 = out->accel = NAN;
    }
    if (re)
        *re = r;
    free(est);
    free(se);
}

/* The processes' Q p-value from its bootstrap (st_inproc_q_boot_p) in place of chi-square's. */
static void q_boot(st_inproc_proc *const *p, size_t n, st_re *re) {
    if (!isfinite(re->q_p) || n > ST_INPROC_QMAX)
        return;
    double est[ST_INPROC_QMAX], se[ST_INPROC_QMAX], *draws[ST_INPROC_QMAX];
    size_t B = p[0]->ndraws;
    for (size_t i = 0; i < n; i++) {
        est[i] = p[i]->ratio.est > 0 ? log(p[i]->ratio.est) : NAN;
        se[i] = p[i]->se[0], draws[i] = p[i]->draws;
        if (p[i]->ndraws != B)
            B = 0;
    }
    re->q_p = st_inproc_q_boot_p(est, se, draws, n, B);
}

void st_inproc_levels(st_inproc *e, const st_boot_opts *opts, int (*replicate_of)(int64_t run, void *ctx), void *ctx) {
    const st_blocks *b = &e->blocks;
    free_procs(e);
    free(e->reps);
    e->procs = ct_xcalloc(b->n ? b->n : 1, sizeof *e->procs);
    e->nprocs = e->nreps = 0;
    e->steady_after = e->steady_none = e->untested = e->dropped = e->kept = 0;
    e->rep_tau = e->rep_tau_family = e->rep_within = NAN;
    /* Processes: runs of consecutive blocks (st_inproc_blocks orders them by run). */
    for (size_t i = 0; i < b->n;) {
        size_t j = i;
        while (j < b->n && b->run_of[j] == b->run_of[i])
            j++;
        st_inproc_proc *p = &e->procs[e->nprocs];
        p->run = b->run_of[i];
        p->replicate = replicate_of ? replicate_of(p->run, ctx) : 0;
        p->first = i;
        p->blocks = j - i;
        st_cp_find(b->log_ratio + i, j - i, &p->cp);
        size_t start = p->cp.steady == ST_STEADY_AFTER ? p->cp.start : 0;
        p->kept = p->blocks - start;
        e->steady_after += p->cp.steady == ST_STEADY_AFTER;
        e->steady_none += p->cp.steady == ST_STEADY_NONE;
        e->untested += p->cp.steady == ST_STEADY_UNTESTED;
        e->dropped += start;
        e->kept += p->kept;
        st_boot_opts po = *opts;
        char tag[48];
        snprintf(tag, sizeof tag, "#proc%zu", e->nprocs);
        po.seed = opts->seed ^ st_fnv1a64(ST_FNV_OFFSET, tag);
        st_interval iv[3];
        estimate_blocks(b->log_ratio + i + start, b->sps + i + start, p->kept, b->uncounted, &po, iv);
        p->ratio = iv[0], p->cost_ns = iv[1], p->norm = iv[2];
        size_t nb = opts->resamples < ST_LEVEL_SE_RESAMPLES ? opts->resamples : ST_LEVEL_SE_RESAMPLES;
        p->draws = p->kept >= 3 ? ct_xmalloc(nb * sizeof *p->draws) : NULL;
        p->ndraws = p->draws ? nb : 0;
        st_inproc_proc_se(b->log_ratio + i + start, b->sps + i + start, p->kept, b->uncounted, nb, po.seed ^ 0x5e,
                          p->se, p->draws);
        e->nprocs++;
        i = j;
    }
    /* Replicates, in index order, each its processes combined. */
    e->reps = ct_xcalloc(e->nprocs ? e->nprocs : 1, sizeof *e->reps);
    st_inproc_proc **in = ct_xmalloc((e->nprocs ? e->nprocs : 1) * sizeof *in);
    int *ids = ct_xmalloc((e->nprocs ? e->nprocs : 1) * sizeof *ids);
    size_t nids = 0;
    for (size_t c = 0; c < e->nprocs; c++) {
        size_t k = 0;
        while (k < nids && ids[k] != e->procs[c].replicate)
            k++;
        if (k == nids)
            ids[nids++] = e->procs[c].replicate;
    }
    for (size_t x = 1; x < nids; x++) /* ascending */
        for (size_t y = x; y > 0 && ids[y - 1] > ids[y]; y--) {
            int t = ids[y];
            ids[y] = ids[y - 1];
            ids[y - 1] = t;
        }
    for (size_t x = 0; x < nids; x++) {
        size_t n = 0;
        for (size_t c = 0; c < e->nprocs; c++)
            if (e->procs[c].replicate == ids[x])
                in[n++] = &e->procs[c];
        st_inproc_rep *r = &e->reps[e->nreps++];
        r->replicate = ids[x];
        r->processes = n;
        if (n == 1) {
            r->level = ST_LEVEL_BLOCKS;
            r->ratio = in[0]->ratio, r->cost_ns = in[0]->cost_ns, r->norm = in[0]->norm;
            st_re_combine(NULL, NULL, 0, -1, 0, opts->confidence, &r->re);
            r->re.why = "one process: the interval covers its blocks only";
        } else {
            r->level = ST_LEVEL_PROCESSES;
            combine_procs(in, n, 0, opts->confidence, &r->ratio, &r->re);
            q_boot(in, n, &r->re);
            if (b->uncounted) {
                no_iv(&r->cost_ns, "samples not counted");
                no_iv(&r->norm, "samples not counted");
            } else {
                combine_procs(in, n, 1, opts->confidence, &r->cost_ns, NULL);
                combine_procs(in, n, 2, opts->confidence, &r->norm, NULL);
            }
        }
    }
    free(ids);
    free(in);
    if (e->nreps) {
        e->level = e->reps[0].level;
        e->lv_ratio = e->reps[0].ratio, e->lv_cost_ns = e->reps[0].cost_ns, e->lv_norm = e->reps[0].norm;
        e->re = e->reps[0].re;
        e->lv_re = e->reps[0].re;
    } else {
        e->level = ST_LEVEL_BLOCKS;
        no_iv(&e->lv_ratio, "no complete block");
        no_iv(&e->lv_cost_ns, "no complete block");
        no_iv(&e->lv_norm, "no complete block");
        st_re_combine(NULL, NULL, 0, -1, 0, opts->confidence, &e->re);
        e->lv_re = e->re;
    }
    e->heterogeneous = isfinite(e->re.q_p) && e->re.q_p < 1.0 - opts->confidence;
}

/* ---- Reading a series file ------------------------------------------------ */

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* The segment end called s (a name of SGC_ALT_ENDS), or -1. */
static int end_parse(const char *s) {
    for (int e = 0; e < SGC_ALT_NENDS; e++)
        if (!strcmp(s, sgc_alt_end_name(e)))
            return e;
    return -1;
}
#define END_WORD(id, name, what) " " name

/* The settings lines a series has (docs/FORMATS.md), and how each value is
 * checked: 'n' an unsigned decimal integer, 'w' a word checked by name,
 * 'l' a list of column names.  system, cpu_clock and unmeasured are the
 * optional keys of writers other than freecheck's runtime. */
static const struct {
    const char *key;
    char type;
} series_keys[] = {{"alternate", 'w'},    {"pattern", 'w'},      {"segment_fills", 'n'}, {"segment_cpu_ns", 'n'},
                   {"alloc_period", 'n'}, {"alloc_mode", 'w'},   {"time_hz", 'n'},       {"time_clock", 'w'},
                   {"seed", 'n'},         {"nursery_size", 'n'}, {"carry_ns", 'n'},      {"cost_ns", 'n'},
                   {"system", 'w'},       {"cpu_clock", 'w'},    {"unmeasured", 'l'}};
#define NSERIES_KEYS ((int)(sizeof series_keys / sizeof series_keys[0]))

/* The fields of a seg line (docs/FORMATS.md); those marked required are the
 * estimator's. */
static const struct {
    const char *name;
    int required;
    int may_be_unmeasured; /* a writer may list it in 'unmeasured' */
} series_cols[] = {{"index", 0, 0},
                   {"block", 1, 0},
                   {"pos", 1, 0},
                   {"kind", 1, 0},
                   {"on", 0, 0},
                   {"end", 1, 0},
                   {"cpu_ns", 1, 0},
                   {"wall_ns", 0, 1},
                   {"bytes", 1, 0},
                   {"iterations", 1, 1},
                   {"alloc_samples", 1, 1},
                   {"alloc_points", 0, 1},
                   {"sampled_bytes", 0, 1},
                   {"time_samples", 1, 1},
                   {"minor", 0, 1},
                   {"major", 0, 1},
                   {"gc_ns", 0, 1},
                   {"major_cpu_ns", 0, 1},
                   {"switch_ns", 0, 0}};
#define NSERIES_COLS ((int)(sizeof series_cols / sizeof series_cols[0]))
enum {
    C_INDEX,
    C_BLOCK,
    C_POS,
    C_KIND,
    C_ON,
    C_END,
    C_CPU,
    C_WALL,
    C_BYTES,
    C_ITER,
    C_ASAMPLES,
    C_APOINTS,
    C_SBYTES,
    C_TSAMPLES
};

/* s as an unsigned decimal integer (digits only, below 2^63) into *v; 0 or -1. */
static int parse_count(const char *s, uint64_t *v) {
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
        return -1;
    *v = strtoull(s, NULL, 10);
    return 0;
}

/* The state of one segment series being read (st_inproc_read_series): what
 * the lines so far have declared, and where the segments go. */
typedef struct series_reader {
    const char *path;
    int64_t run;
    st_seg **segs;
    size_t *n;
    size_t start, cap; /* *n on entry (this file's first segment), the capacity of *segs */
    char *err;
    size_t errlen;
    int lineno;
    int ncols;             /* fields named by the columns line (0: none yet) */
    int col[NSERIES_COLS]; /* col[k]: which series_cols entry field k is */
    int seen_key[NSERIES_KEYS];
    int unmeasured[NSERIES_COLS]; /* fields the writer says it cannot measure */
    int use_alloc, use_time;      /* whose samples a segment counts (the alternation mode's row) */
    int have_trailer, alt_mode;   /* alt_mode -1: no 'alternate' line yet */
    int time_clock_none;
    uint64_t time_hz, declared;
} series_reader;

/* Opens path for reading if it is a regular file of at most ST_SERIES_MAX_BYTES
 * (a device or a FIFO could be read forever); NULL with the reason in err. */
static FILE *series_open(const char *path, char *err, size_t errlen) {
    const char *why;
    FILE *f = st_open_regular(path, ST_SERIES_MAX_BYTES, &why);
    if (!f) {
        if (!strcmp(why, "not a regular file"))
            snprintf(err, errlen, "%s: not a regular file (a segment series is one)", path);
        else if (!strcmp(why, "larger than the limit"))
            snprintf(err, errlen, "%s: larger than the " ST_SERIES_MAX_TEXT " a segment series can be", path);
        else
            snprintf(err, errlen, "%s: cannot read the segment series: %s", path, why);
    }
    return f;
}

/* Checks that the line getline read (got bytes) is one text line of a series and
 * cuts its LF: 0, or -1 with the reason in r->err. */
static int series_line_text(series_reader *r, char *line, size_t len) {
    const char *path = r->path;
    int lineno = r->lineno;
    if (strlen(line) != len) {
        snprintf(r->err, r->errlen, "%s line %d: a NUL byte (not a text line)", path, lineno);
        return -1;
    }
    if (len > ST_SERIES_MAX_LINE) {
        snprintf(r->err, r->errlen, "%s line %d: %zu characters, longer than any line of a segment series (%d)", path,
                 lineno, len, ST_SERIES_MAX_LINE);
        return -1;
    }
    if (line[len - 1] != '\n') {
        snprintf(r->err, r->errlen, "%s line %d: the file ends inside this line (cut short)", path, lineno);
        return -1;
    }
    line[--len] = '\0';
    if (len && line[len - 1] == '\r') {
        snprintf(r->err, r->errlen,
                 "%s line %d: ends with a carriage return (CRLF line ends); a segment series has LF line ends only",
                 path, lineno);
        return -1;
    }
    if (strpbrk(line, "\t\v\f\r")) {
        snprintf(r->err, r->errlen, "%s line %d: a tab or control character (fields are separated by one space)", path,
                 lineno);
        return -1;
    }
    if (len == 0) {
        snprintf(r->err, r->errlen, "%s line %d: an empty line", path, lineno);
        return -1;
    }
    return 0;
}

/* Splits line at single spaces into field[] (at most NSERIES_COLS + 2 kept; *nf
 * one past that when there are more) and counts every field in *nfields; an
 * empty field (two spaces, a space at either end) is an error, not skipped:
 * 0, or -1 with the reason in r->err. */
static int series_split(series_reader *r, char *line, char *field[NSERIES_COLS + 2], int *nf, int *nfields) {
    *nf = 0;
    *nfields = 1;
    for (const char *q = line; *q; q++)
        *nfields += *q == ' ';
    for (char *p = line;;) {
        char *sp = strchr(p, ' ');
        if (*nf == NSERIES_COLS + 2) {
            (*nf)++;
            break;
        }
        field[(*nf)++] = p;
        if (!sp)
            break;
        *sp = '\0';
        p = sp + 1;
    }
    for (int k = 0; k < *nf && k < NSERIES_COLS + 2; k++)
        if (!*field[k]) {
            snprintf(r->err, r->errlen, "%s line %d: an empty field (fields are separated by one space)", r->path,
                     r->lineno);
            return -1;
        }
    return 0;
}

/* A 'seg' line: its fields checked against the columns line and the
 * alternation mode, the segment appended to *r->segs: 0, or -1 with the
 * reason in r->err. */
static int series_seg(series_reader *r, char **field, int nf, int nfields) {
    const char *path = r->path;
    int lineno = r->lineno, ncols = r->ncols;
    char *err = r->err;
    size_t errlen = r->errlen;
    if (!ncols) {
        snprintf(err, errlen, "%s line %d: a segment before the 'columns' line", path, lineno);
        return -1;
    }
    if (nf - 1 != ncols) {
        snprintf(err, errlen, "%s line %d: %d fields, the columns line names %d%s", path, lineno, nfields - 1, ncols,
                 nfields - 1 > ncols ? " (more fields than the columns line names)" : "");
        return -1;
    }
    st_seg g = {.run = r->run, .block = -1, .pos = -1};
    double alloc_samples = 0, time_samples = 0;
    int on = -1;
    for (int c = 0; c < ncols; c++) {
        const char *tok = field[c + 1], *name = series_cols[r->col[c]].name;
        uint64_t v = 0;
        if (r->col[c] == C_KIND) {
            if (strcmp(tok, "A") && strcmp(tok, "B")) {
                snprintf(err, errlen, "%s line %d: kind '%s' is not A or B", path, lineno, tok);
                return -1;
            }
            g.kind = tok[0];
            continue;
        }
        if (r->col[c] == C_END) {
            int e = end_parse(tok);
            if (e < 0) {
                snprintf(err, errlen, "%s line %d: end '%s' is not one of:" SGC_ALT_ENDS(END_WORD), path, lineno, tok);
                return -1;
            }
            g.complete = e != SGC_ALT_END_EXIT;
            continue;
        }
        if (parse_count(tok, &v) != 0) {
            snprintf(err, errlen, "%s line %d: %s '%s' is not a non-negative decimal integer", path, lineno, name, tok);
            return -1;
        }
        switch (r->col[c]) {
        case C_INDEX:
            if (v != *r->n - r->start) {
                snprintf(err, errlen, "%s line %d: index %s, but this is segment %zu of the file", path, lineno, tok,
                         *r->n - r->start);
                return -1;
            }
            break;
        case C_BLOCK: g.block = (int64_t)v; break;
        case C_POS:
            if (v > 3) {
                snprintf(err, errlen, "%s line %d: pos %s is not a position in a block (0 to 3)", path, lineno, tok);
                return -1;
            }
            g.pos = (int)v;
            break;
        case C_ON:
            if (v > 1) {
                snprintf(err, errlen, "%s line %d: on %s is not 0 or 1", path, lineno, tok);
                return -1;
            }
            on = (int)v;
            break;
        case C_CPU: g.cpu_ns = (double)v; break;
        case C_BYTES: g.bytes = (double)v; break;
        case C_ITER: g.iterations = (double)v; break;
        case C_ASAMPLES: alloc_samples = (double)v; break;
        case C_TSAMPLES: time_samples = (double)v; break;
        default: break; /* checked as a number; the estimator does not use it */
        }
    }
    if (on >= 0 && on != (g.kind == 'B' && r->alt_mode != SGC_ALT_NONE)) {
        snprintf(err, errlen,
                 "%s line %d: on %d with kind %c under alternate %s (on is 1 exactly for B segments, and "
                 "never under none)",
                 path, lineno, on, g.kind, sgc_alt_mode_name(r->alt_mode));
        return -1;
    }
    g.samples = (r->use_alloc ? alloc_samples : 0) + (r->use_time ? time_samples : 0);
    /* Not counted by the writer: the blocks give a ratio, no per-sample cost. */
    g.uncounted = (r->use_alloc && r->unmeasured[C_ASAMPLES]) || (r->use_time && r->unmeasured[C_TSAMPLES]);
    if (*r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        *r->segs = ct_xrealloc(*r->segs, r->cap * sizeof **r->segs);
    }
    (*r->segs)[(*r->n)++] = g;
    return 0;
}

/* The 'columns' line: once, after 'alternate', every name a known field named
 * once, every required field present; fills r->col and r->ncols: 0, or -1
 * with the reason in r->err. */
static int series_columns(series_reader *r, char **field, int nf) {
    const char *path = r->path;
    int lineno = r->lineno;
    if (r->ncols) {
        snprintf(r->err, r->errlen, "%s line %d: a second 'columns' line", path, lineno);
        return -1;
    }
    if (r->alt_mode < 0) {
        snprintf(r->err, r->errlen, "%s line %d: the 'columns' line comes before the 'alternate' line", path, lineno);
        return -1;
    }
    if (nf - 1 > (int)NSERIES_COLS || nf < 2) {
        snprintf(r->err, r->errlen, "%s line %d: %s column names", path, lineno, nf < 2 ? "no" : "too many");
        return -1;
    }
    int have[NSERIES_COLS] = {0};
    for (int k = 1; k < nf; k++) {
        int c = -1;
        for (int j = 0; j < (int)NSERIES_COLS; j++)
            if (!strcmp(field[k], series_cols[j].name))
                c = j;
        if (c < 0 || have[c]) {
            snprintf(r->err, r->errlen, "%s line %d: column '%s' %s", path, lineno, field[k],
                     c < 0 ? "is not a field of a segment line (docs/FORMATS.md)" : "is named twice");
            return -1;
        }
        have[c] = 1;
        r->col[r->ncols++] = c;
    }
    for (int j = 0; j < (int)NSERIES_COLS; j++)
        if (series_cols[j].required && !have[j]) {
            snprintf(r->err, r->errlen,
                     "%s: the columns line lacks %s (it needs block pos kind end cpu_ns bytes iterations "
                     "alloc_samples time_samples)",
                     path, series_cols[j].name);
            return -1;
        }
    return 0;
}

/* A setting line (a key of series_keys, before 'columns', once): its value
 * checked, and what the reader needs of it kept (time_hz, time_clock none,
 * unmeasured fields, the alternation mode and whose samples count): 0, or -1
 * with the reason in r->err. */
static int series_setting(series_reader *r, char **field, int nf) {
    const char *path = r->path, *word = field[0];
    int lineno = r->lineno;
    char *err = r->err;
    size_t errlen = r->errlen;
    int k = -1;
    for (int j = 0; j < (int)NSERIES_KEYS; j++)
        if (!strcmp(word, series_keys[j].key))
            k = j;
    if (k < 0) {
        snprintf(err, errlen,
                 "%s line %d: '%.40s' is not a line of a segment series (a setting of docs/FORMATS.md, "
                 "columns, seg or segments)",
                 path, lineno, word);
        return -1;
    }
    if (r->ncols) {
        snprintf(err, errlen, "%s line %d: the setting '%s' comes after the 'columns' line", path, lineno, word);
        return -1;
    }
    if (r->seen_key[k]++) {
        snprintf(err, errlen, "%s line %d: the setting '%s' is given twice", path, lineno, word);
        return -1;
    }
    uint64_t v;
    const char *val = nf == 2 ? field[1] : "";
    int ok = nf == 2;
    if (ok && series_keys[k].type == 'n') {
        ok = parse_count(val, &v) == 0;
        if (ok && !strcmp(word, "time_hz"))
            r->time_hz = v;
    } else if (ok && !strcmp(word, "pattern"))
        ok = !strcmp(val, "ABBA") || !strcmp(val, "BAAB");
    else if (ok && !strcmp(word, "alloc_mode"))
        ok = sgc_alloc_mode_parse(val) >= 0;
    else if (ok && !strcmp(word, "time_clock")) {
        r->time_clock_none = !strcmp(val, "none"); /* a program without a time sampler */
        ok = sgc_clock_parse(val) >= 0 || r->time_clock_none;
    } else if (ok && !strcmp(word, "system"))
        ok = strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(val);
    else if (ok && !strcmp(word, "cpu_clock"))
        ok = !strcmp(val, "thread") || !strcmp(val, "process");
    else if (series_keys[k].type == 'l') {
        ok = nf >= 2;
        for (int j = 1; ok && j < nf && j < NSERIES_COLS + 2; j++) {
            int c = -1;
            for (int q = 0; q < (int)NSERIES_COLS; q++)
                if (!strcmp(field[j], series_cols[q].name))
                    c = q;
            if (c < 0 || !series_cols[c].may_be_unmeasured) {
                snprintf(err, errlen,
                         "%s line %d: unmeasured '%s' is not a field that may be unmeasured (docs/FORMATS.md)", path,
                         lineno, field[j]);
                return -1;
            }
            r->unmeasured[c] = 1;
        }
    } else if (ok && !strcmp(word, "alternate")) {
        /* The samples of the samplers the mode switches; of both when it switches none (A/A). */
        int m = sgc_alt_mode_parse(val);
        if (m < 0) {
            snprintf(err, errlen, "%s line %d: alternate '%s' is not an alternation mode of SGC_ALTERNATE", path,
                     lineno, val);
            return -1;
        }
        r->alt_mode = m;
        int some = sgc_alt_switches_alloc(m) || sgc_alt_switches_time(m);
        r->use_alloc = !some || sgc_alt_switches_alloc(m);
        r->use_time = !some || sgc_alt_switches_time(m);
    }
    if (!ok) {
        snprintf(err, errlen, "%s line %d: %s needs %s", path, lineno, word,
                 series_keys[k].type == 'n'   ? "one value, a decimal integer"
                 : series_keys[k].type == 'l' ? "one or more field names"
                                              : "one value, one of the names docs/FORMATS.md gives for it");
        return -1;
    }
    return 0;
}

/* One line of the series after its text checks: the header on line 1, then
 * nothing after the trailer, then a seg, columns, segments or setting line:
 * 0, or -1 with the reason in r->err. */
static int series_line(series_reader *r, char *line) {
    if (r->lineno == 1) {
        if (strcmp(line, "sgc-segments 1") != 0) {
            snprintf(r->err, r->errlen, "%s: not a segment series (first line is not 'sgc-segments 1')", r->path);
            return -1;
        }
        return 0;
    }
    if (r->have_trailer) {
        snprintf(r->err, r->errlen, "%s line %d: text after the 'segments' line", r->path, r->lineno);
        return -1;
    }
    char *field[NSERIES_COLS + 2];
    int nf, nfields;
    if (series_split(r, line, field, &nf, &nfields) != 0)
        return -1;
    const char *word = field[0];
    if (!strcmp(word, "seg"))
        return series_seg(r, field, nf, nfields);
    if (!strcmp(word, "columns"))
        return series_columns(r, field, nf);
    if (!strcmp(word, "segments")) {
        if (nf != 2 || parse_count(field[1], &r->declared) != 0) {
            snprintf(r->err, r->errlen, "%s line %d: 'segments' needs one count (a decimal integer)", r->path,
                     r->lineno);
            return -1;
        }
        r->have_trailer = 1;
        return 0;
    }
    return series_setting(r, field, nf);
}

/* After the last line: the file was read whole, is not empty, its time
 * settings agree and its trailer counts the segments read: 0, or -1 with the
 * reason in r->err. */
static int series_end(series_reader *r, FILE *f) {
    const char *path = r->path;
    if (ferror(f)) {
        snprintf(r->err, r->errlen, "%s: read error: %s", path, strerror(errno));
        return -1;
    }
    if (r->lineno == 0) {
        snprintf(r->err, r->errlen, "%s: not a segment series (the file is empty)", path);
        return -1;
    }
    if (r->time_clock_none && r->time_hz != 0) {
        snprintf(r->err, r->errlen,
                 "%s: time_clock none with time_hz %llu (none is the clock of a program without a time sampler)", path,
                 (unsigned long long)r->time_hz);
        return -1;
    }
    if (!r->have_trailer || r->declared != (uint64_t)(*r->n - r->start)) {
        snprintf(r->err, r->errlen, "%s: incomplete segment series: %s", path,
                 r->have_trailer ? "the 'segments' count differs from the segment lines"
                                 : "no 'segments N' line at the end");
        return -1;
    }
    return 0;
}

int st_inproc_read_series(const char *path, int64_t run, st_seg **segs, size_t *n, char *err, size_t errlen) {
    FILE *f = series_open(path, err, errlen);
    if (!f)
        return -1;
    series_reader r = {.path = path,
                       .run = run,
                       .segs = segs,
                       .n = n,
                       .start = *n,
                       .cap = *n,
                       .err = err,
                       .errlen = errlen,
                       .use_alloc = 1,
                       .use_time = 1,
                       .alt_mode = -1};
    char *line = NULL;
    size_t linecap = 0;
    ssize_t got;
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &linecap, f)) > 0) {
        r.lineno++;
        rc = series_line_text(&r, line, (size_t)got);
        if (rc == 0)
            rc = series_line(&r, line);
    }
    if (rc == 0)
        rc = series_end(&r, f);
    if (rc)
        *n = r.start;
    free(line);
    fclose(f);
    return rc;
}

/* ---- The report of a sweep in the in-process design ----------------------- */

#include <sqlite3.h>
#include "st_paired.h"
#include "st_replicates.h"
#include <unistd.h>

static int has_series(sqlite3 *db) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM segments", -1, &st, NULL) != SQLITE_OK)
        return 0; /* no such table: another design */
    int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return n > 0;
}

static void fmt_iv(FILE *f, const st_interval *iv, const char *fmt) {
    fprintf(f, fmt, iv->est);
    if (iv->method == ST_CI_NONE) {
        fprintf(f, " (no interval)");
        return;
    }
    fputs(" [", f);
    fprintf(f, fmt, iv->lo);
    fputs(", ", f);
    fprintf(f, fmt, iv->hi);
    fputc(']', f);
}

static double half_width_pct(const st_interval *iv) {
    return iv->method == ST_CI_NONE ? NAN : (iv->hi - iv->lo) / 2 * 100;
}

static void csv_num(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, ",%.6g", v);
    else
        fputs(",", f);
}

/* Is the sweep's design (meta) the in-process one? */
static int design_inprocess(sqlite3 *db) {
    sqlite3_stmt *st;
    int yes = 0;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'design'", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            yes = !strcmp((const char *)sqlite3_column_text(st, 0), "inprocess");
        sqlite3_finalize(st);
    }
    return yes;
}

static int rep_of(int64_t run, void *ctx) { return st_repmap_of(ctx, run); }

/* Cells with processes in several replicates: the replicates' estimates
 * combined (st_replicates.h), each cell's between-replicate variance its own
 * or its family's. */
static void combine_replicates(st_inprocs *ip, double confidence) {
    size_t nc = ip->n, n = 0, nf = 0, multi = 0;
    for (size_t i = 0; i < nc; i++) {
        n += ip->cells[i].e.nreps;
        multi += ip->cells[i].e.nreps > 1;
    }
    if (!multi)
        return;
    size_t *family = ct_xmalloc((nc ? nc : 1) * sizeof *family);
    char(*fname)[256] = ct_xmalloc((nc ? nc : 1) * sizeof *fname);
    for (size_t i = 0; i < nc; i++) {
        char b[256];
        snprintf(b, sizeof b, "%s/%s", ip->cells[i].workload, ip->cells[i].time_hz > 0 ? "time" : "other");
        size_t f = 0;
        while (f < nf && strcmp(fname[f], b))
            f++;
        if (f == nf)
            snprintf(fname[nf++], sizeof fname[0], "%s", b);
        family[i] = f;
    }
    double *est = ct_xmalloc((n ? n : 1) * sizeof *est), *se = ct_xmalloc((n ? n : 1) * sizeof *se);
    size_t *cell = ct_xmalloc((n ? n : 1) * sizeof *cell);
    st_rep_comb *comb = ct_xmalloc(nc * sizeof *comb);
    for (int s = 0; s < 3; s++) {
        size_t m = 0;
        for (size_t i = 0; i < nc; i++)
            for (size_t j = 0; j < ip->cells[i].e.nreps; j++) {
                const st_inproc_rep *r = &ip->cells[i].e.reps[j];
                const st_interval *iv = s == 0 ? &r->ratio : s == 1 ? &r->cost_ns : &r->norm;
                double e = s == 0 ? (iv->est > 0 ? log(iv->est) : NAN) : iv->est;
                if (!isfinite(e))
                    continue;
                est[m] = e, se[m] = st_interval_se(iv, s == 0, confidence), cell[m++] = i;
            }
        st_rep_combine_cells(est, se, cell, m, nc, family, nf, confidence, comb);
        for (size_t i = 0; i < nc; i++) {
            st_inproc *e = &ip->cells[i].e;
            const st_rep_comb *o = &comb[i];
            if (e->nreps < 2 || o->k < 2)
                continue;
            st_interval *iv = s == 0 ? &e->lv_ratio : s == 1 ? &e->lv_cost_ns : &e->lv_norm;
            if (isfinite(o->re.lo)) {
                iv->est = s == 0 ? exp(o->re.est) : o->re.est;
                iv->lo = s == 0 ? exp(o->re.lo) : o->re.lo;
                iv->hi = s == 0 ? exp(o->re.hi) : o->re.hi;
                iv->method = ST_CI_RANDOM, iv->why = NULL, iv->z0 = iv->accel = NAN;
            } else {
                no_iv(iv, "no interval over replicates");
            }
            e->level = ST_LEVEL_REPLICATES;
            if (s == 0)
                e->lv_re = o->re;
            if (s == 0) {
                e->rep_tau = sqrt(o->tau2_cell);
                e->rep_tau_family = sqrt(o->tau2_family);
                e->rep_within = o->within;
            }
        }
    }
    free(family), free(fname), free(est), free(se), free(cell), free(comb);
}

/* The family of cell x (its kind and setting), "" when it has none (a depth cell). */
static void family_key(const st_inproc_cell *x, char *b, size_t size) {
    if (isfinite(x->depth))
        b[0] = 0;
    else if (!strcmp(x->kind, "baseline"))
        snprintf(b, size, "A/A");
    else
        snprintf(b, size, "%s %s %lld %s %lld", x->kind, x->alloc_mode, x->alloc_period, x->time_clock, x->time_hz);
}

/* Simultaneous intervals of every family (st_inproc_cell): each cell's
 * ratio at 1 - alpha / m, from its random-effects combination, or, for a
 * cell of one process, from its blocks' bootstrap at that level. */
static void families(st_inprocs *ip, const st_boot_opts *opts) {
    double alpha = 1.0 - opts->confidence;
    for (size_t i = 0; i < ip->n; i++) {
        st_inproc_cell *x = &ip->cells[i];
        x->family_size = 0;
        x->sim_lo = x->sim_hi = NAN;
        char k[256], k2[256];
        family_key(x, k, sizeof k);
        if (!k[0] || x->e.lv_ratio.method == ST_CI_NONE)
            continue;
        for (size_t j = 0; j < ip->n; j++) {
            family_key(&ip->cells[j], k2, sizeof k2);
            x->family_size += !strcmp(k, k2) && ip->cells[j].e.lv_ratio.method != ST_CI_NONE;
        }
    }
    for (size_t i = 0; i < ip->n; i++) {
        st_inproc_cell *x = &ip->cells[i];
        st_inproc *e = &x->e;
        if (!x->family_size)
            continue;
        double conf = 1.0 - alpha / (double)x->family_size;
        if (x->family_size == 1) {
            x->sim_lo = e->lv_ratio.lo, x->sim_hi = e->lv_ratio.hi;
        } else if (e->lv_ratio.method == ST_CI_RANDOM) {
            double lo, hi;
            st_re_at(&e->lv_re, conf, &lo, &hi);
            x->sim_lo = exp(lo), x->sim_hi = exp(hi);
        } else if (e->nprocs == 1) {
            const st_inproc_proc *p = &e->procs[0];
            size_t start = p->blocks - p->kept;
            st_boot_opts po = *opts;
            po.confidence = conf;
            po.seed = (opts->seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, x->label), "#inproc")) ^
                      st_fnv1a64(ST_FNV_OFFSET, "#proc0");
            st_interval iv[3];
            estimate_blocks(e->blocks.log_ratio + p->first + start, e->blocks.sps + p->first + start, p->kept, 1, &po,
                            iv);
            x->sim_lo = iv[0].lo, x->sim_hi = iv[0].hi;
        }
    }
}

int st_inproc_load(const char *dir, const st_boot_opts *opts, st_inprocs *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    char path[4096];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -1;
    }
    if (!has_series(db)) {
        sqlite3_close(db);
        return 0;
    }
    out->design_inprocess = design_inprocess(db);
    st_repmap reps;
    char why[512];
    if (st_repmap_read(db, &reps, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", path, why);
        sqlite3_close(db);
        return -1;
    }
    /* Databases written before the segments table had cpu_clock (freecheck's
     * own runtime alone, thread CPU time) lack the column; depth (the depth
     * cells are no family's) and backend (the simulated part's cells, 'sim',
     * never alternate) are optional columns of cells too. */
    sqlite3_stmt *probe;
    int has_clock = sqlite3_prepare_v2(db, "SELECT cpu_clock FROM segments LIMIT 0", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    int has_backend = sqlite3_prepare_v2(db, "SELECT backend FROM cells LIMIT 0", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    int has_depth = sqlite3_prepare_v2(db, "SELECT depth FROM cells LIMIT 0", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    char cq[512], sq[768];
    snprintf(cq, sizeof cq,
             "SELECT cell_id, workload, label, kind, alloc_period, time_hz, alloc_mode, time_clock, %s "
             "FROM cells %s ORDER BY cell_id",
             has_depth ? "depth" : "NULL", has_backend ? "WHERE backend != 'sim'" : "");
    snprintf(sq, sizeof sq,
             "SELECT s.run_id, s.block, s.pos, s.kind, s.end_, s.cpu_ns, s.bytes, s.iterations, "
             "s.alloc_samples, s.time_samples, s.alloc_points, s.sampled_bytes, s.on_, %s "
             "FROM segments s JOIN runs r ON r.run_id = s.run_id "
             "WHERE r.cell_id = ? AND r.status = 'ok' AND r.round > 0 ORDER BY s.run_id, s.idx",
             has_clock ? "s.cpu_clock" : "NULL");
    sqlite3_stmt *cells, *segs;
    if (sqlite3_prepare_v2(db, cq, -1, &cells, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, sq, -1, &segs, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        st_repmap_free(&reps);
        return -1;
    }
    st_inproc_cell *c = NULL;
    size_t nc = 0, cap = 0;
    st_seg *buf = NULL;
    size_t bufcap = 0, on_cap = 0;
    double *on_bytes = NULL; /* per run of the cell: bytes of its sampled segments */
    while (sqlite3_step(cells) == SQLITE_ROW) {
        if (nc == cap)
            c = ct_xrealloc(c, (cap = cap ? cap * 2 : 32) * sizeof *c);
        st_inproc_cell *x = &c[nc];
        memset(x, 0, sizeof *x);
        x->workload = strdup((const char *)sqlite3_column_text(cells, 1));
        x->label = strdup((const char *)sqlite3_column_text(cells, 2));
        x->kind = strdup((const char *)sqlite3_column_text(cells, 3));
        x->alloc_mode = ct_xstrdup((const char *)sqlite3_column_text(cells, 6));
        x->time_clock = ct_xstrdup((const char *)sqlite3_column_text(cells, 7));
        x->depth = sqlite3_column_type(cells, 8) == SQLITE_NULL ? NAN : sqlite3_column_double(cells, 8);
        if (!x->workload || !x->label || !x->kind)
            ct_out_of_memory();
        x->alloc_period = sqlite3_column_int64(cells, 4);
        x->time_hz = sqlite3_column_int64(cells, 5);
        int alloc = x->alloc_period > 0, time = x->time_hz > 0, none = !alloc && !time;
        int fixed =
            alloc && !strcmp((const char *)sqlite3_column_text(cells, 6), sgc_alloc_mode_name(SGC_SAMPLE_FIXED));
        sqlite3_reset(segs);
        sqlite3_bind_int64(segs, 1, sqlite3_column_int64(cells, 0));
        size_t n = 0, nruns = 0;
        int64_t last_run = 0;
        while (sqlite3_step(segs) == SQLITE_ROW) {
            if (n == bufcap)
                buf = ct_xrealloc(buf, (bufcap = bufcap ? bufcap * 2 : 1024) * sizeof *buf);
            st_seg *g = &buf[n++];
            g->run = sqlite3_column_int64(segs, 0);
            g->block = sqlite3_column_int64(segs, 1);
            g->pos = sqlite3_column_int(segs, 2);
            g->kind = ((const char *)sqlite3_column_text(segs, 3))[0];
            g->complete = strcmp((const char *)sqlite3_column_text(segs, 4), sgc_alt_end_name(SGC_ALT_END_EXIT)) != 0;
            g->cpu_ns = sqlite3_column_double(segs, 5);
            g->bytes = sqlite3_column_double(segs, 6);
            g->iterations = sqlite3_column_double(segs, 7);
            /* Rows come in run order: a run's sampled bytes add up in on_bytes[nruns - 1]. */
            if (!nruns || g->run != last_run) {
                if (nruns == on_cap)
                    on_bytes = ct_xrealloc(on_bytes, (on_cap = on_cap ? on_cap * 2 : 16) * sizeof *on_bytes);
                on_bytes[nruns++] = 0;
                last_run = g->run;
            }
            if (sqlite3_column_int(segs, 12))
                on_bytes[nruns - 1] += g->bytes;
            g->uncounted = 0; /* the runtime counts every sample (buf is reused: set every field) */
            g->samples = (alloc || none ? sqlite3_column_double(segs, 8) : 0) +
                         (time || none ? sqlite3_column_double(segs, 9) : 0);
            /* NULL: the writer listed the field as unmeasured (docs/FORMATS.md). */
            g->uncounted = ((alloc || none) && sqlite3_column_type(segs, 8) == SQLITE_NULL) ||
                           ((time || none) && sqlite3_column_type(segs, 9) == SQLITE_NULL);
            const char *clk = (const char *)sqlite3_column_text(segs, 13);
            if (!clk)
                clk = "thread"; /* freecheck's runtime before the column: its thread's CPU time */
            if (!x->cpu_clock[0])
                snprintf(x->cpu_clock, sizeof x->cpu_clock, "%s", clk);
            else if (strcmp(x->cpu_clock, clk))
                snprintf(x->cpu_clock, sizeof x->cpu_clock, "mixed");
            /* The sampling rule per segment: a B segment is a fresh session,
             * so it takes floor(bytes / period) points; an A segment none. */
            if (fixed && sqlite3_column_type(segs, 10) != SQLITE_NULL && sqlite3_column_type(segs, 11) != SQLITE_NULL) {
                sqlite3_int64 pts = sqlite3_column_int64(segs, 10), sb = sqlite3_column_int64(segs, 11);
                int on = sqlite3_column_int(segs, 12);
                sqlite3_int64 want = on ? (sqlite3_int64)g->bytes / x->alloc_period : 0;
                x->exact_checked++;
                if (pts != want || sb != (on ? (sqlite3_int64)g->bytes : 0))
                    x->exact_mismatches++;
            }
        }
        x->sampled_bytes = nruns ? st_median(on_bytes, nruns) : NAN;
        st_boot_opts bo = *opts;
        bo.seed = opts->seed ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, x->label), "#inproc");
        st_inproc_estimate(buf, n, &bo, &x->e);
        st_inproc_levels(&x->e, &bo, rep_of, &reps);
        nc++;
    }
    sqlite3_finalize(cells);
    sqlite3_finalize(segs);
    sqlite3_close(db);
    free(buf);
    free(on_bytes);
    out->cells = c;
    out->n = nc;
    out->replicates = reps.k;
    out->confidence = opts->confidence;
    combine_replicates(out, opts->confidence);
    families(out, opts);
    st_repmap_free(&reps);
    return 0;
}

void st_inprocs_free(st_inprocs *p) {
    for (size_t i = 0; i < p->n; i++) {
        free(p->cells[i].workload), free(p->cells[i].label), free(p->cells[i].kind);
        free(p->cells[i].alloc_mode), free(p->cells[i].time_clock);
        st_inproc_free(&p->cells[i].e);
    }
    free(p->cells);
    memset(p, 0, sizeof *p);
}

static double lo_or_nan(const st_interval *iv) { return iv->method == ST_CI_NONE ? NAN : iv->lo; }
static double hi_or_nan(const st_interval *iv) { return iv->method == ST_CI_NONE ? NAN : iv->hi; }

/* The verdict of [lo, hi] at the margin (st_paired_verdict's rules). */
static st_verdict verdict_of(double lo, double hi, double margin) {
    st_interval iv = {.est = 1, .lo = lo, .hi = hi, .method = isfinite(lo) && isfinite(hi) ? ST_CI_BCA : ST_CI_NONE};
    return st_paired_verdict(&iv, margin);
}

/* "steady" column text of a cell: its processes' steady states. */
static const char *steady_text(const st_inproc *e, char *b, size_t size) {
    size_t flat = e->nprocs - e->steady_after - e->steady_none - e->untested;
    snprintf(b, size, "%zu flat, %zu after a warm-up (%zu blocks left out), %zu without, %zu untested", flat,
             e->steady_after, e->dropped, e->steady_none, e->untested);
    return b;
}

void st_inproc_write_csv(FILE *csv, const st_inprocs *ip, double margin) {
    fputs("workload,label,kind,alloc_period,time_hz,blocks,runs,work,ratio,ratio_lo,ratio_hi,half_width_pct,"
          "sd_log,sps,cost_ns,cost_lo,cost_hi,norm,norm_lo,norm_hi,exact_checked,exact_mismatches,verdict,"
          "level,processes,replicates,kept_blocks,dropped_blocks,steady_after,no_steady,untested,q,q_p,i2,tau,"
          "heterogeneous,pooled_ratio,pooled_lo,pooled_hi,pooled_half_width_pct,pooled_verdict,family_size,sim_lo,"
          "sim_hi,family_verdict,rep_tau,rep_tau_family,rep_within,cpu_clock,samples\n",
          csv);
    for (size_t i = 0; i < ip->n; i++) {
        const st_inproc_cell *x = &ip->cells[i];
        const st_inproc *e = &x->e;
        fprintf(csv, "%s,%s,%s,%lld,%lld,%zu,%zu,%s", x->workload, x->label, x->kind, x->alloc_period, x->time_hz,
                e->blocks.n, e->blocks.runs, e->blocks.n ? (e->blocks.work_iterations ? "iterations" : "bytes") : "");
        csv_num(csv, e->lv_ratio.est), csv_num(csv, e->lv_ratio.lo), csv_num(csv, e->lv_ratio.hi);
        csv_num(csv, half_width_pct(&e->lv_ratio));
        csv_num(csv, e->sd_log), csv_num(csv, e->sps);
        csv_num(csv, e->lv_cost_ns.est), csv_num(csv, e->lv_cost_ns.lo), csv_num(csv, e->lv_cost_ns.hi);
        csv_num(csv, e->lv_norm.est), csv_num(csv, e->lv_norm.lo), csv_num(csv, e->lv_norm.hi);
        char vbuf[64];
        const char *verdict = st_verdict_text(st_paired_verdict(&e->lv_ratio, margin), margin, vbuf, sizeof vbuf);
        fprintf(csv, ",%zu,%zu,%s", x->exact_checked, x->exact_mismatches, verdict);
        fprintf(csv, ",%s,%zu,%zu,%zu,%zu,%zu,%zu,%zu", st_level_name(e->level), e->nprocs, e->nreps, e->kept,
                e->dropped, e->steady_after, e->steady_none, e->untested);
        csv_num(csv, e->re.q), csv_num(csv, e->re.q_p), csv_num(csv, e->re.i2);
        csv_num(csv, e->re.weighted ? sqrt(e->re.tau2) : NAN);
        fprintf(csv, ",%s", isfinite(e->re.q_p) ? (e->heterogeneous ? "1" : "0") : "");
        csv_num(csv, e->ratio.est), csv_num(csv, lo_or_nan(&e->ratio)), csv_num(csv, hi_or_nan(&e->ratio));
        csv_num(csv, half_width_pct(&e->ratio));
        fprintf(csv, ",%s", st_verdict_text(st_paired_verdict(&e->ratio, margin), margin, vbuf, sizeof vbuf));
        fprintf(csv, ",%zu", x->family_size);
        csv_num(csv, x->sim_lo), csv_num(csv, x->sim_hi);
        fprintf(csv, ",%s",
                x->family_size ? st_verdict_text(verdict_of(x->sim_lo, x->sim_hi, margin), margin, vbuf, sizeof vbuf)
                               : "");
        csv_num(csv, e->rep_tau), csv_num(csv, e->rep_tau_family), csv_num(csv, e->rep_within);
        fprintf(csv, ",%s,%s\n", x->cpu_clock[0] ? x->cpu_clock : "", e->blocks.uncounted ? "not counted" : "counted");
    }
}

/* The families' verdicts, one line per family: "slower on ...; no effect
 * above M on ...; faster on ...; not resolved: ...". */
static void write_families_md(FILE *md, const st_inprocs *ip, double margin) {
    int any = 0;
    char k[256], k2[256];
    for (size_t i = 0; i < ip->n; i++) {
        const st_inproc_cell *x = &ip->cells[i];
        if (x->family_size < 2)
            continue;
        family_key(x, k, sizeof k);
        int first = 1;
        for (size_t j = 0; j < i; j++) {
            family_key(&ip->cells[j], k2, sizeof k2);
            if (ip->cells[j].family_size && !strcmp(k, k2))
                first = 0;
        }
        if (!first)
            continue;
        if (!any++)
            fprintf(md,
                    "\n### Families: every workload at one setting, simultaneous intervals\n\n"
                    "A claim about all the workloads of a setting at once (\"no effect above %g%% on every "
                    "workload\") needs every interval to hold together: each interval below is at 1 - alpha/m "
                    "(Bonferroni over the m workloads of the family), so that all of a family's hold together at "
                    "the %g%% level, and the family's verdicts (read from these intervals) are all right together "
                    "with that probability. The per-cell table above holds each interval at its own level.\n\n"
                    "| family | workloads | slower | faster | no effect above %g%% | not resolved |\n"
                    "|---|---|---|---|---|---|\n",
                    margin * 100, 100 * ip->confidence, margin * 100);
        const char *slash = strchr(x->label, '/');
        fprintf(md, "| %s | %zu |",
                !strcmp(x->kind, "baseline") ? "A/A"
                : slash                      ? slash + 1
                                             : x->label,
                x->family_size);
        for (int v = 0; v < 4; v++) {
            st_verdict want = v == 0 ? ST_V_SLOWER : v == 1 ? ST_V_FASTER : v == 2 ? ST_V_EQUIVALENT : ST_V_UNRESOLVED;
            int n = 0;
            fputc(' ', md);
            for (size_t j = 0; j < ip->n; j++) {
                const st_inproc_cell *y = &ip->cells[j];
                family_key(y, k2, sizeof k2);
                if (!y->family_size || strcmp(k, k2) || verdict_of(y->sim_lo, y->sim_hi, margin) != want)
                    continue;
                fprintf(md, "%s%s [%.4f, %.4f]", n++ ? ", " : "", y->workload, y->sim_lo, y->sim_hi);
            }
            fputs(n ? " |" : " none |", md);
        }
        fputc('\n', md);
    }
}

void st_inproc_write_md(FILE *md, const st_inprocs *ip, double margin) {
    fputs("\n## In-process alternation (steady-state marginal cost)\n\n"
          "Design inprocess: every run switched its cell's sampling on (B) and off (A) in ABBA blocks of\n"
          "segments inside the process. Ratio: CPU time per unit of work (bytes allocated, or iterations), B over\n"
          "A. Each process's per-block log-ratios are searched for changepoints (PELT); blocks before a steady\n"
          "state are left out. Each process is estimated on its own (median of its per-block log-ratios, BCa over\n"
          "its blocks), and the processes are combined by a random-effects model (Hartung-Knapp with a t\n"
          "reference on the processes, never narrower than DerSimonian-Laird): **the interval covers the\n"
          "variation between processes** (level `processes`), or, with one process, only its blocks (level\n"
          "`blocks`); with several replicates, between replicates (level `replicates`). Heterogeneity: Cochran's\n"
          "Q of the processes' estimates against their within-process errors (bootstrap SEs), its p-value (from\n"
          "Q's bootstrap under equal processes, docs/STATISTICS.md), I^2 and tau (the SD of the processes'\n"
          "log-ratios beyond their blocks' noise); **HET** when p < 0.05. The pooled column is\n"
          "the blocks of every process pooled as if independent (level blocks), for comparison. This is the\n"
          "steady-state marginal cost; the process-level figures above measure whole runs (start-up and fixed\n"
          "costs included). Baseline rows are the A/A floor (nothing switched). CPU clock: the CPU time the\n"
          "segments were cut and measured by, the workload thread's (thread) or the whole process's (process: a\n"
          "runtime whose own threads do part of the work). A writer that keeps no count of its samples gives the\n"
          "ratio alone (samples/s and cost \"not counted\"). Method: docs/STATISTICS.md.\n\n"
          "| workload | cell | CPU clock | blocks (kept) | processes | level | ratio [95% CI] | half-width | verdict | "
          "heterogeneity: Q p, I^2, tau | steady state | pooled blocks [95% CI] | samples/s (B, CPU) | "
          "per-sample cost, ns | normalized per 1000 samples/s |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
          md);
    double worst_aa = NAN;
    size_t checked = 0, mismatched = 0, het = 0, tested = 0, het_aa = 0, tested_aa = 0;
    size_t procs = 0, after = 0, none = 0, untested = 0, dropped = 0, blocks = 0;
    for (size_t i = 0; i < ip->n; i++) {
        const st_inproc_cell *x = &ip->cells[i];
        const st_inproc *e = &x->e;
        int base = x->alloc_period == 0 && x->time_hz == 0;
        checked += x->exact_checked;
        mismatched += x->exact_mismatches;
        procs += e->nprocs, after += e->steady_after, none += e->steady_none, untested += e->untested;
        dropped += e->dropped, blocks += e->blocks.n;
        if (isfinite(e->re.q_p)) {
            tested++, het += e->heterogeneous;
            tested_aa += base, het_aa += base && e->heterogeneous;
        }
        double hw = half_width_pct(&e->lv_ratio);
        if (base && isfinite(hw) && !(hw <= worst_aa))
            worst_aa = hw;
        char vbuf[64], sb[160];
        const char *verdict = st_verdict_text(st_paired_verdict(&e->lv_ratio, margin), margin, vbuf, sizeof vbuf);
        fprintf(md, "| %s | %s%s | %s | %zu (%zu) | %zu | %s | ", x->workload, x->label, base ? " (A/A)" : "",
                x->cpu_clock[0] ? x->cpu_clock : "-", e->blocks.n, e->kept, e->nprocs, st_level_name(e->level));
        if (e->blocks.n)
            fmt_iv(md, &e->lv_ratio, "%.4f");
        else
            fputs("no complete block", md);
        if (isfinite(hw))
            fprintf(md, " | %.2f%% | %s | ", hw, verdict);
        else
            fputs(" | - | n/a | ", md);
        if (isfinite(e->re.q_p))
            fprintf(md, "%s%.2g, %.2f, %.3g%s | ", e->heterogeneous ? "**HET** " : "", e->re.q_p, e->re.i2,
                    sqrt(e->re.tau2), e->re.tau2 > 0 ? "" : "");
        else
            fprintf(md, "%s | ", e->nprocs == 1 ? "one process: blocks only" : "n/a");
        fprintf(md, "%s | ", steady_text(e, sb, sizeof sb));
        if (e->blocks.n)
            fmt_iv(md, &e->ratio, "%.4f");
        else
            fputs("-", md);
        if (base) {
            fputs(" | - | - | - |\n", md);
            continue;
        }
        if (e->blocks.uncounted) {
            fputs(" | not counted | not counted | not counted |\n", md);
            continue;
        }
        fprintf(md, " | %.0f | ", e->sps);
        fmt_iv(md, &e->lv_cost_ns, "%.0f");
        fputs(" | ", md);
        fmt_iv(md, &e->lv_norm, "%.4f");
        fputs(" |\n", md);
    }
    if (checked)
        fprintf(md,
                "\nExactness per segment (fixed mode): %zu segments checked, %zu did not take floor(bytes / period) "
                "points when on and 0 when off%s.\n",
                checked, mismatched, mismatched ? ": THE SAMPLING RULE IS BROKEN" : "");
    fprintf(md,
            "\nSteady state (changepoints of each process's per-block log-ratios, PELT with penalty %g ln n): %zu "
            "processes, %zu flat, %zu steady after a warm-up (changepoints in their first quarter only; %zu of %zu "
            "blocks left out before it), %zu with **no steady state** (a changepoint later in the run: kept whole, "
            "flagged), %zu too short to test (fewer than %d blocks).\n",
            ST_CP_PENALTY, procs, procs - after - none - untested, after, dropped, blocks, none, untested, ST_CP_MIN);
    if (tested)
        fprintf(md,
                "\nHeterogeneity between processes (Cochran's Q, p < 0.05): %zu of %zu cells with a test (%.1f "
                "expected by chance if processes never differed); on the A/A rows %zu of %zu.\n",
                het, tested, 0.05 * (double)tested, het_aa, tested_aa);
    if (isfinite(worst_aa))
        fprintf(md, "\nWidest A/A half-width: %.2f%% (target: at most 1%% on every workload).\n", worst_aa);
    write_families_md(md, ip, margin);
}

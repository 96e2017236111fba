/* st_synth.c - noise sources from committed sweeps, synthetic sweeps and series (invariants: st_synth.h). */
#include "st_synth.h"
#include "sgc_alt.h"
#include "sgc_modes.h"
#include "st_desc.h"
#include "st_util.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- populations ---- */

typedef struct vw {
    double v, w;
} vw;

static int cmp_vw(const void *a, const void *b) {
    double x = ((const vw *)a)->v, y = ((const vw *)b)->v;
    return (x > y) - (x < y);
}

double st_weighted_median(double *v, double *w, size_t n) {
    if (n == 0)
        return NAN;
    vw *p = ct_xmalloc(n * sizeof *p);
    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
        p[i] = (vw){v[i], w[i]};
        total += w[i];
    }
    qsort(p, n, sizeof *p, cmp_vw);
    double cum = 0.0, half = total / 2.0, m = p[n - 1].v;
    for (size_t i = 0; i < n; i++) {
        cum += p[i].w;
        if (fabs(cum - half) <= 1e-12 * total && i + 1 < n) {
            m = 0.5 * (p[i].v + p[i + 1].v);
            break;
        }
        if (cum > half) {
            m = p[i].v;
            break;
        }
    }
    for (size_t i = 0; i < n; i++)
        v[i] = p[i].v, w[i] = p[i].w;
    free(p);
    return m;
}

static char *base_name(const char *dir) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t s = n;
    while (s > 0 && dir[s - 1] != '/')
        s--;
    char *b = ct_xmalloc(n - s + 1);
    memcpy(b, dir + s, n - s);
    b[n - s] = '\0';
    return b;
}

/* ---- blocked sources ---- */

void st_nsource_finish(st_nsource *s) {
    size_t n = s->n;
    double *pool = ct_xmalloc((2 * n + 1) * sizeof *pool), *w = ct_xmalloc((2 * n + 1) * sizeof *w);
    double *level = ct_xmalloc((n + 1) * sizeof *level), *diff = ct_xmalloc((n + 1) * sizeof *diff);
    for (size_t i = 0; i < n; i++) {
        pool[2 * i] = s->blocks[i].wall[0];
        pool[2 * i + 1] = s->blocks[i].wall[1];
        level[i] = 0.5 * (s->blocks[i].wall[0] + s->blocks[i].wall[1]);
        diff[i] = s->blocks[i].wall[1] - s->blocks[i].wall[0];
    }
    for (size_t i = 0; i < 2 * n; i++)
        w[i] = 1.0;
    s->acf1_runs = st_acf1(pool, 2 * n);
    s->kurt_runs = st_excess_kurtosis(pool, 2 * n);
    s->med_wall = st_weighted_median(pool, w, 2 * n);
    for (size_t i = 0; i < n; i++) {
        pool[2 * i] = s->blocks[i].cpu[0];
        pool[2 * i + 1] = s->blocks[i].cpu[1];
        w[2 * i] = w[2 * i + 1] = 1.0;
    }
    s->med_cpu = st_weighted_median(pool, w, 2 * n);
    st_blocklen_pw(level, n, &s->len_level);
    st_blocklen_pw(diff, n, &s->len_diff);
    s->L = s->len_level.length > s->len_diff.length ? s->len_level.length : s->len_diff.length;
    s->acf1_level = st_acf1(level, n);
    s->acf1_diff = st_acf1(diff, n);
    s->kurt_diff = st_excess_kurtosis(diff, n);
    double m = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        m += diff[i];
    m /= (double)(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        ss += (diff[i] - m) * (diff[i] - m);
    s->sd_diff = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
    free(pool), free(w), free(level), free(diff);
}

typedef struct bref {
    int64_t first_seq;
    const st_run *r[2]; /* in execution order */
    const st_cell *c[2];
} bref;

static int cmp_bref(const void *a, const void *b) {
    const bref *x = a, *y = b;
    int c = strcmp(x->c[0]->workload, y->c[0]->workload);
    if (c)
        return c;
    return (x->first_seq > y->first_seq) - (x->first_seq < y->first_seq);
}

/* Median log wall (mw) and log CPU (mc) of each cell's used runs, NAN for a
 * cell with none; cell_of[run] is the run's cell. */
static void cell_medians(const st_sweep *sw, double *mw, double *mc, const st_cell **cell_of) {
    double *tmp = ct_xmalloc((sw->nruns + 1) * sizeof *tmp);
    for (size_t i = 0; i < sw->ncells; i++) {
        const st_cell *c = &sw->cells[i];
        size_t k = 0, kc = 0;
        for (size_t j = 0; j < c->nruns; j++) {
            const st_run *r = &sw->runs[c->first_run + j];
            cell_of[c->first_run + j] = c;
            if (r->used)
                tmp[k++] = log(r->wall_ns);
        }
        mw[i] = k ? st_median(tmp, k) : NAN;
        for (size_t j = 0; j < c->nruns; j++) {
            const st_run *r = &sw->runs[c->first_run + j];
            double cpu = r->user_ns + r->sys_ns;
            if (r->used && cpu > 0)
                tmp[kc++] = log(cpu);
        }
        mc[i] = kc ? st_median(tmp, kc) : NAN;
    }
    free(tmp);
}

/* The blocks (1..maxb) whose two used runs are of one workload, each as its
 * runs in execution order, sorted by bref's order; a block with a failed or
 * third run is left out, as analyze leaves it out. */
static bref *block_pairs(const st_sweep *sw, int64_t maxb, const st_cell **cell_of, size_t *nbout) {
    long *first = ct_xmalloc((size_t)(maxb + 1) * sizeof *first),
         *second = ct_xmalloc((size_t)(maxb + 1) * sizeof *second);
    int *bad = ct_xcalloc((size_t)(maxb + 1), sizeof *bad);
    for (int64_t b = 0; b <= maxb; b++)
        first[b] = second[b] = -1;
    for (size_t i = 0; i < sw->nruns; i++) {
        const st_run *r = &sw->runs[i];
        if (r->block <= 0)
            continue;
        double cpu = r->user_ns + r->sys_ns;
        if (!r->used || !(cpu > 0)) {
            bad[r->block] = 1;
            continue;
        }
        if (first[r->block] < 0)
            first[r->block] = (long)i;
        else if (second[r->block] < 0)
            second[r->block] = (long)i;
        else
            bad[r->block] = 1;
    }
    bref *br = ct_xmalloc((size_t)(maxb + 1) * sizeof *br);
    size_t nb = 0;
    for (int64_t b = 1; b <= maxb; b++) {
        if (bad[b] || first[b] < 0 || second[b] < 0)
            continue;
        const st_run *x = &sw->runs[first[b]], *y = &sw->runs[second[b]];
        if (x->seq > y->seq) {
            const st_run *t = x;
            x = y;
            y = t;
        }
        const st_cell *cx = cell_of[x - sw->runs], *cy = cell_of[y - sw->runs];
        if (strcmp(cx->workload, cy->workload))
            continue;
        br[nb++] = (bref){x->seq, {x, y}, {cx, cy}};
    }
    qsort(br, nb, sizeof *br, cmp_bref);
    free(first), free(second), free(bad);
    *nbout = nb;
    return br;
}

/* One source per workload from its sorted block pairs: each run's log time
 * less its cell's median, the level from the workload's first baseline cell;
 * a workload without a level or with fewer than 4 blocks is left out. */
static st_nsource *block_sources(const st_sweep *sw, const char *name, const bref *br, size_t nb, const double *mw,
                                 const double *mc, size_t *nsout) {
    st_nsource *src = NULL;
    size_t ns = 0;
    for (size_t i = 0; i < nb;) {
        size_t j = i;
        while (j < nb && !strcmp(br[j].c[0]->workload, br[i].c[0]->workload))
            j++;
        src = ct_xrealloc(src, (ns + 1) * sizeof *src);
        st_nsource *s = &src[ns++];
        memset(s, 0, sizeof *s);
        s->sweep = ct_xstrdup(name);
        s->workload = ct_xstrdup(br[i].c[0]->workload);
        s->n = j - i;
        s->blocks = ct_xmalloc(s->n * sizeof *s->blocks);
        for (size_t k = i; k < j; k++)
            for (int p = 0; p < 2; p++) {
                size_t ci = (size_t)(br[k].c[p] - sw->cells);
                s->blocks[k - i].wall[p] = log(br[k].r[p]->wall_ns) - mw[ci];
                s->blocks[k - i].cpu[p] = log(br[k].r[p]->user_ns + br[k].r[p]->sys_ns) - mc[ci];
            }
        /* The level: the workload's first baseline cell. */
        s->wall0 = s->cpu0 = NAN;
        for (size_t c = 0; c < sw->ncells; c++)
            if (!strcmp(sw->cells[c].kind, "baseline") && !strcmp(sw->cells[c].workload, s->workload) &&
                isfinite(mw[c])) {
                s->wall0 = exp(mw[c]);
                s->cpu0 = exp(mc[c]);
                break;
            }
        if (!isfinite(s->wall0) || !isfinite(s->cpu0) || s->n < 4) {
            free(s->sweep), free(s->workload), free(s->blocks);
            ns--;
        } else {
            st_nsource_finish(s);
        }
        i = j;
    }
    *nsout = ns;
    return src;
}

/* The normalized sources of a blocked sweep: cell medians, block pairs, one
 * source per workload (none for an unblocked sweep). */
static int load_blocked(const st_sweep *sw, const char *name, st_nsource **out, size_t *nout) {
    *out = NULL;
    *nout = 0;
    double *mw = ct_xmalloc((sw->ncells + 1) * sizeof *mw), *mc = ct_xmalloc((sw->ncells + 1) * sizeof *mc);
    const st_cell **cell_of = ct_xmalloc((sw->nruns + 1) * sizeof *cell_of);
    int64_t maxb = 0;
    cell_medians(sw, mw, mc, cell_of);
    for (size_t i = 0; i < sw->nruns; i++)
        if (sw->runs[i].block > maxb)
            maxb = sw->runs[i].block;
    if (maxb == 0) {
        free(mw), free(mc), free(cell_of);
        return 0;
    }
    size_t nb;
    bref *br = block_pairs(sw, maxb, cell_of, &nb);
    *out = block_sources(sw, name, br, nb, mw, mc, nout);
    free(br), free(mw), free(mc), free(cell_of);
    return 0;
}

void st_nsources_free(st_nsource *ns, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(ns[i].sweep), free(ns[i].workload), free(ns[i].blocks);
    free(ns);
}

/* ---- in-process sources ---- */

typedef struct rawseg {
    int64_t run, block;
    int pos, complete;
    char kind;
    double cpu, bytes, iter, samples;
} rawseg;

static int cmp_rawseg(const void *a, const void *b) {
    const rawseg *x = a, *y = b;
    if (x->run != y->run)
        return (x->run > y->run) - (x->run < y->run);
    if (x->block != y->block)
        return (x->block > y->block) - (x->block < y->block);
    return x->pos - y->pos;
}

/* A process under construction: its blocks and their uncentred r. */
typedef struct pproc {
    st_ipblock *b;
    double *r;
    size_t n;
} pproc;

static int complete4(const rawseg *g) {
    int na = 0, nb = 0;
    for (int k = 0; k < 4; k++) {
        if (g[k].run != g[0].run || g[k].block != g[0].block || g[k].pos != k || !g[k].complete)
            return 0;
        na += g[k].kind == 'A';
        nb += g[k].kind == 'B';
    }
    return na == 2 && nb == 2;
}

/* The end of the group of segments of s[i]'s run and block. */
static size_t group_end(const rawseg *s, size_t m, size_t i) {
    size_t j = i;
    while (j < m && s[j].run == s[i].run && s[j].block == s[i].block)
        j++;
    return j;
}

static int is_complete(const rawseg *s, size_t i, size_t j) {
    return j - i == 4 && s[i].block >= 1 && complete4(&s[i]);
}

/* The processes of one cell's segments, centred by the cell's median r
 * (blocks and work as st_inproc_blocks defines them). */
static void cell_processes(rawseg *s, size_t m, pproc **procs, size_t *np) {
    qsort(s, m, sizeof *s, cmp_rawseg);
    int all_iter = 1;
    size_t ncomplete = 0;
    for (size_t i = 0, j; i < m; i = j) {
        j = group_end(s, m, i);
        if (!is_complete(s, i, j))
            continue;
        for (size_t k = i; k < j; k++)
            all_iter &= s[k].iter > 0;
        ncomplete++;
    }
    all_iter &= ncomplete > 0;
    pproc *p = NULL;
    size_t n = 0;
    double *allr = ct_xmalloc((m / 4 + 1) * sizeof *allr);
    size_t nr = 0;
    int64_t last_run = 0;
    for (size_t i = 0, j; i < m; i = j) {
        j = group_end(s, m, i);
        if (!is_complete(s, i, j))
            continue;
        st_ipblock blk;
        double cpu[2] = {0, 0}, work[2] = {0, 0};
        for (int k = 0; k < 4; k++) {
            const rawseg *g = &s[i + (size_t)k];
            int isb = g->kind == 'B';
            blk.kind[k] = g->kind;
            blk.cpu[k] = g->cpu;
            blk.work[k] = all_iter ? g->iter : g->bytes;
            blk.samples[k] = g->samples;
            cpu[isb] += g->cpu;
            work[isb] += blk.work[k];
        }
        if (!(work[0] > 0 && work[1] > 0 && cpu[0] > 0 && cpu[1] > 0))
            continue;
        /* A new process when the run changes. */
        if (n == 0 || s[i].run != last_run) {
            p = ct_xrealloc(p, (n + 1) * sizeof *p);
            p[n++] = (pproc){NULL, NULL, 0};
        }
        last_run = s[i].run;
        pproc *q = &p[n - 1];
        q->b = ct_xrealloc(q->b, (q->n + 1) * sizeof *q->b);
        q->r = ct_xrealloc(q->r, (q->n + 1) * sizeof *q->r);
        q->b[q->n] = blk;
        q->r[q->n] = log((cpu[1] / work[1]) / (cpu[0] / work[0]));
        allr[nr++] = q->r[q->n];
        q->n++;
    }
    double c = nr ? st_median(allr, nr) : 0.0, f = exp(-c);
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < p[k].n; j++) {
            p[k].r[j] -= c;
            for (int t = 0; t < 4; t++)
                if (p[k].b[j].kind[t] == 'B')
                    p[k].b[j].cpu[t] *= f;
        }
    free(allr);
    *procs = p;
    *np = n;
}

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

void st_ipsource_finish(st_ipsource *s) {
    size_t total = 0;
    for (size_t k = 0; k < s->np; k++)
        total += s->p[k].n;
    double *v = ct_xmalloc((total + 1) * sizeof *v), *w = ct_xmalloc((total + 1) * sizeof *w);
    double *meds = ct_xmalloc((s->np + 1) * sizeof *meds), *acf = ct_xmalloc((s->np + 1) * sizeof *acf);
    size_t *lens = ct_xmalloc((s->np + 1) * sizeof *lens), t = 0, na = 0;
    for (size_t k = 0; k < s->np; k++) {
        st_ipproc *p = &s->p[k];
        st_blocklen bl;
        st_blocklen_pw(p->r, p->n, &bl);
        p->L = bl.length;
        lens[k] = p->L;
        for (size_t j = 0; j < p->n; j++) {
            v[t] = p->r[j];
            w[t++] = 1.0 / ((double)s->np * (double)p->n);
        }
        meds[k] = st_median(p->r, p->n);
        double a = st_acf1(p->r, p->n);
        if (isfinite(a))
            acf[na++] = a;
    }
    s->kurt = st_excess_kurtosis(v, total);
    double m = 0.0, ss = 0.0;
    for (size_t i = 0; i < total; i++)
        m += v[i];
    m /= (double)(total ? total : 1);
    for (size_t i = 0; i < total; i++)
        ss += (v[i] - m) * (v[i] - m);
    s->sd = total > 1 ? sqrt(ss / (double)(total - 1)) : NAN;
    s->truth_log = st_weighted_median(v, w, total);
    s->acf1 = na ? st_median(acf, na) : NAN;
    double mm = 0.0, sm = 0.0;
    for (size_t k = 0; k < s->np; k++)
        mm += meds[k];
    mm /= (double)(s->np ? s->np : 1);
    s->truth_proc_log = s->np ? mm : NAN;
    for (size_t k = 0; k < s->np; k++)
        sm += (meds[k] - mm) * (meds[k] - mm);
    s->sd_proc = s->np > 1 ? sqrt(sm / (double)(s->np - 1)) : NAN;
    qsort(lens, s->np, sizeof *lens, cmp_size);
    s->median_L = s->np ? lens[s->np / 2] : 1;
    free(v), free(w), free(meds), free(acf), free(lens);
}

typedef struct wpool {
    char *workload;
    pproc *p;
    size_t n;
} wpool;

static int cmp_wpool(const void *a, const void *b) {
    return strcmp(((const wpool *)a)->workload, ((const wpool *)b)->workload);
}

/* The segments of one cell's successful measured runs (the row cells is on)
 * into *buf (capacity *cap, grown as needed), their samples counted by the
 * cell's samplers (both for a cell sampling nothing); returns their number. */
static size_t cell_segments(sqlite3_stmt *cells, sqlite3_stmt *segs, rawseg **bufp, size_t *cap) {
    rawseg *buf = *bufp;
    int alloc = sqlite3_column_int64(cells, 2) > 0, time = sqlite3_column_int64(cells, 3) > 0;
    int none = !alloc && !time;
    sqlite3_reset(segs);
    sqlite3_bind_int64(segs, 1, sqlite3_column_int64(cells, 0));
    size_t m = 0;
    while (sqlite3_step(segs) == SQLITE_ROW) {
        if (m == *cap)
            buf = ct_xrealloc(buf, (*cap = *cap ? 2 * *cap : 4096) * sizeof *buf);
        rawseg *g = &buf[m++];
        g->run = sqlite3_column_int64(segs, 0);
        g->block = sqlite3_column_int64(segs, 1);
        g->pos = sqlite3_column_int(segs, 2);
        g->kind = ((const char *)sqlite3_column_text(segs, 3))[0];
        g->complete = strcmp((const char *)sqlite3_column_text(segs, 4), sgc_alt_end_name(SGC_ALT_END_EXIT)) != 0;
        g->cpu = sqlite3_column_double(segs, 5);
        g->bytes = sqlite3_column_double(segs, 6);
        g->iter = sqlite3_column_double(segs, 7);
        g->samples =
            (alloc || none ? sqlite3_column_double(segs, 8) : 0) + (time || none ? sqlite3_column_double(segs, 9) : 0);
    }
    *bufp = buf;
    return m;
}

/* Adds the processes of one cell's m segments to its workload's pool (a new
 * pool for a new workload); a process with fewer than ST_SYNTH_MIN_BLOCKS
 * blocks is dropped. */
static void pool_add(wpool **poolsp, size_t *npoolsp, const char *workload, rawseg *buf, size_t m) {
    wpool *pools = *poolsp;
    size_t npools = *npoolsp;
    pproc *p;
    size_t np;
    cell_processes(buf, m, &p, &np);
    size_t w = 0;
    while (w < npools && strcmp(pools[w].workload, workload))
        w++;
    if (w == npools) {
        pools = ct_xrealloc(pools, (npools + 1) * sizeof *pools);
        pools[npools++] = (wpool){ct_xstrdup(workload), NULL, 0};
    }
    for (size_t k = 0; k < np; k++) {
        if (p[k].n < ST_SYNTH_MIN_BLOCKS) {
            free(p[k].b), free(p[k].r);
            continue;
        }
        pools[w].p = ct_xrealloc(pools[w].p, (pools[w].n + 1) * sizeof *pools[w].p);
        pools[w].p[pools[w].n++] = p[k];
    }
    free(p);
    *poolsp = pools;
    *npoolsp = npools;
}

/* One source per workload pool, in cmp_wpool's order; a pool of fewer than 2
 * processes is freed and left out. Frees the pools. */
static st_ipsource *pool_sources(wpool *pools, size_t npools, const char *name, size_t *nsout) {
    qsort(pools, npools, sizeof *pools, cmp_wpool);
    st_ipsource *src = ct_xcalloc(npools ? npools : 1, sizeof *src);
    size_t ns = 0;
    for (size_t w = 0; w < npools; w++) {
        if (pools[w].n < 2) {
            for (size_t k = 0; k < pools[w].n; k++)
                free(pools[w].p[k].b), free(pools[w].p[k].r);
            free(pools[w].p), free(pools[w].workload);
            continue;
        }
        st_ipsource *s = &src[ns++];
        s->sweep = ct_xstrdup(name);
        s->workload = pools[w].workload;
        s->np = pools[w].n;
        s->p = ct_xmalloc(s->np * sizeof *s->p);
        for (size_t k = 0; k < s->np; k++)
            s->p[k] = (st_ipproc){pools[w].p[k].b, pools[w].p[k].r, pools[w].p[k].n, 1};
        free(pools[w].p);
        st_ipsource_finish(s);
    }
    free(pools);
    *nsout = ns;
    return src;
}

/* The in-process sources of a sweep directory: its segments table read one
 * cell at a time into workload pools, then one source per pool (none for a
 * sweep without segments); 2 with err filled when results.db cannot be read. */
static int load_inproc(const char *dir, const char *name, st_ipsource **out, size_t *nout, char *err, size_t errlen) {
    *out = NULL;
    *nout = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return 2;
    }
    sqlite3_stmt *has, *cells, *segs;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'segments'", -1,
                           &has, NULL) != SQLITE_OK ||
        sqlite3_step(has) != SQLITE_ROW) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return 2;
    }
    int present = sqlite3_column_int(has, 0);
    sqlite3_finalize(has);
    if (!present) {
        sqlite3_close(db);
        return 0;
    }
    if (sqlite3_prepare_v2(db, "SELECT cell_id, workload, alloc_period, time_hz FROM cells ORDER BY cell_id", -1,
                           &cells, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT s.run_id, s.block, s.pos, s.kind, s.end_, s.cpu_ns, s.bytes, s.iterations, "
                           "s.alloc_samples, s.time_samples FROM segments s JOIN runs r ON r.run_id = s.run_id "
                           "WHERE r.cell_id = ? AND r.status = 'ok' AND r.round > 0 ORDER BY s.run_id, s.idx",
                           -1, &segs, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return 2;
    }
    wpool *pools = NULL;
    size_t npools = 0, cap = 0;
    rawseg *buf = NULL;
    while (sqlite3_step(cells) == SQLITE_ROW) {
        const char *workload = (const char *)sqlite3_column_text(cells, 1);
        size_t m = cell_segments(cells, segs, &buf, &cap);
        if (m)
            pool_add(&pools, &npools, workload, buf, m);
    }
    sqlite3_finalize(cells);
    sqlite3_finalize(segs);
    sqlite3_close(db);
    free(buf);
    *out = pool_sources(pools, npools, name, nout);
    return 0;
}

void st_ipsources_free(st_ipsource *ips, size_t n) {
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < ips[i].np; k++)
            free(ips[i].p[k].b), free(ips[i].p[k].r);
        free(ips[i].p), free(ips[i].sweep), free(ips[i].workload);
    }
    free(ips);
}

int st_sources_load(const char *dir, st_nsource **ns, size_t *nns, st_ipsource **ips, size_t *nips, char *err,
                    size_t errlen) {
    *ns = NULL;
    *ips = NULL;
    *nns = *nips = 0;
    st_sweep sw;
    int rc = st_sweep_load(dir, &sw, err, errlen);
    if (rc)
        return 2;
    char *name = base_name(dir);
    load_blocked(&sw, name, ns, nns);
    st_sweep_free(&sw);
    rc = load_inproc(dir, name, ips, nips, err, errlen);
    free(name);
    if (rc) {
        st_nsources_free(*ns, *nns);
        *ns = NULL;
        *nns = 0;
        return 2;
    }
    if (!*nns && !*nips) {
        snprintf(err, errlen, "%s: no blocks of two used runs and no segment series: not a blocked or in-process sweep",
                 dir);
        return 2;
    }
    return 0;
}

/* ---- synthetic blocked sweeps ---- */

static const char *const syn_labels[ST_SYN_NCELLS] = {"syn/baseline", "syn/time-wall-1000Hz", "syn/alloc-fixed-1M",
                                                      "syn/alloc-fixed-4M", "syn/alloc-fixed-16M"};
static const int64_t syn_period[ST_SYN_NCELLS] = {0, 0, 1 << 20, 4 << 20, 16 << 20};

/* A balanced order for n blocks: first[i] = 1 when the role-1 run goes first. */
static void balanced(gsl_rng *rng, size_t n, int *first) {
    for (size_t i = 0; i < n; i++)
        first[i] = i < n / 2;
    if (n % 2)
        first[n - 1] = (int)gsl_rng_uniform_int(rng, 2);
    if (n > 1)
        gsl_ran_shuffle(rng, first, n, sizeof *first);
}

static st_run blank_run(void) {
    st_run r;
    memset(&r, 0, sizeof r);
    r.status_ok = r.used = 1;
    r.maxrss_kb = NAN;
    for (int k = 0; k < ST_NKEYS; k++)
        r.key[k] = NAN;
    r.steal_ns = r.other_busy_ns = r.nivcsw = r.minflt = r.loadavg1 = NAN;
    return r;
}

typedef struct synrun {
    int cell;
    st_run r;
} synrun;

static int cmp_synrun(const void *a, const void *b) {
    const synrun *x = a, *y = b;
    if (x->cell != y->cell)
        return x->cell - y->cell;
    if (x->r.round != y->r.round)
        return (x->r.round > y->r.round) - (x->r.round < y->r.round);
    return (x->r.seq > y->r.seq) - (x->r.seq < y->r.seq);
}

/* The adaptive rounds' order of a cell's next block: role 1 first when it
 * has gone first in fewer than half of the cell's blocks so far. */
static int adaptive_first(gsl_rng *rng, size_t firsts, size_t blocks) {
    if (2 * firsts < blocks)
        return 1;
    if (2 * firsts > blocks)
        return 0;
    return (int)gsl_rng_uniform_int(rng, 2);
}

typedef struct synbuild {
    const st_nsource *src;
    const st_synth_plan *plan;
    const double *samples;
    synrun *runs;
    size_t nr;
    int64_t seq, block;
} synbuild;

/* The two runs of one block of cell c in round `round`, role 1 first when f. */
static void emit_block(synbuild *sb, int c, int f, const st_nblock *nb, size_t round) {
    const st_synth_plan *plan = sb->plan;
    sb->block++;
    for (int pos = 0; pos < 2; pos++) {
        int role = (pos == 0) == (f == 1);
        int cell = role ? c : ST_SYN_BASE;
        st_run r = blank_run();
        r.run_id = r.seq = ++sb->seq;
        r.round = (int64_t)round;
        r.block = sb->block;
        r.role = role;
        double wall = sb->src->wall0 * exp(nb->wall[pos]), cpu = sb->src->cpu0 * exp(nb->cpu[pos]);
        r.key[ST_K_bytes_allocated] = 1e9;
        if (role && c == ST_SYN_TIME) {
            wall *= plan->ratio;
            cpu *= plan->ratio;
            r.key[ST_K_time_samples] = plan->rate * wall / 1e9;
            r.key[ST_K_time_hz_achieved] = plan->rate;
        } else if (role && c >= ST_SYN_ALLOC1) {
            double S = sb->samples[c];
            wall += plan->cost_ns * S;
            cpu += plan->cost_ns * S;
            r.key[ST_K_alloc_samples] = S;
            r.key[ST_K_alloc_sample_points] = S;
            r.key[ST_K_sampled_bytes] = S * (double)syn_period[c];
            r.key[ST_K_alloc_period] = (double)syn_period[c];
        }
        r.wall_ns = wall;
        r.user_ns = cpu;
        r.sys_ns = 0;
        sb->runs[sb->nr++] = (synrun){cell, r};
    }
}

void st_synth_sweep(const st_nsource *src, const st_synth_plan *plan, gsl_rng *rng, st_sweep *out,
                    double samples[ST_SYN_NCELLS]) {
    memset(out, 0, sizeof *out);
    size_t n = plan->rounds, nblocks = n * ST_SYN_NCELLS, nextra = 0;
    for (int c = 0; c < ST_SYN_NCELLS; c++)
        nextra += plan->extra[c];
    samples[ST_SYN_BASE] = 0;
    samples[ST_SYN_TIME] = NAN;
    for (int k = 0; k < 3; k++)
        samples[ST_SYN_ALLOC1 + k] = fmax(1.0, round(plan->frac[k] * src->wall0 / plan->cost_ns));
    /* The planned rounds first, so that their draws do not depend on the
     * adaptive rounds: each cell's balanced order, the noise of every block
     * in execution order, each round's order. */
    int *first = ct_xmalloc((nblocks ? nblocks : 1) * sizeof *first);
    for (int c = 0; c < ST_SYN_NCELLS; c++)
        balanced(rng, n, first + (size_t)c * n);
    size_t *noise = ct_xmalloc((nblocks + nextra + 1) * sizeof *noise);
    st_cbb_indices(rng, src->n, src->L, noise, nblocks);
    synbuild sb = {src, plan, samples, ct_xmalloc((2 * (nblocks + nextra) + 1) * sizeof(synrun)), 0, 0, 0};
    size_t used[ST_SYN_NCELLS] = {0}, firsts[ST_SYN_NCELLS] = {0};
    int order[ST_SYN_NCELLS];
    for (size_t round = 1; round <= n; round++) {
        for (int c = 0; c < ST_SYN_NCELLS; c++)
            order[c] = c;
        gsl_ran_shuffle(rng, order, ST_SYN_NCELLS, sizeof *order);
        for (int o = 0; o < ST_SYN_NCELLS; o++) {
            int c = order[o];
            int f = first[(size_t)c * n + used[c]++];
            firsts[c] += (size_t)f;
            emit_block(&sb, c, f, &src->blocks[noise[sb.block]], round);
        }
    }
    /* Adaptive rounds: one block of every cell still short of its extra
     * blocks, in a random order, the noise series drawn afresh. */
    if (nextra)
        st_cbb_indices(rng, src->n, src->L, noise + nblocks, nextra);
    size_t left[ST_SYN_NCELLS];
    for (int c = 0; c < ST_SYN_NCELLS; c++)
        left[c] = plan->extra[c];
    for (size_t round = n + 1; sb.block < (int64_t)(nblocks + nextra); round++) {
        int k = 0;
        for (int c = 0; c < ST_SYN_NCELLS; c++)
            if (left[c])
                order[k++] = c;
        if (k > 1)
            gsl_ran_shuffle(rng, order, (size_t)k, sizeof *order);
        for (int o = 0; o < k; o++) {
            int c = order[o];
            int f = adaptive_first(rng, firsts[c], used[c]);
            firsts[c] += (size_t)f;
            used[c]++;
            left[c]--;
            emit_block(&sb, c, f, &src->blocks[noise[sb.block]], round);
        }
    }
    synrun *runs = sb.runs;
    size_t nr = sb.nr;
    qsort(runs, nr, sizeof *runs, cmp_synrun);
    out->dir = ct_xstrdup("synthetic");
    out->ncells = ST_SYN_NCELLS;
    out->cells = ct_xcalloc(ST_SYN_NCELLS, sizeof *out->cells);
    out->nruns = nr;
    out->runs = ct_xmalloc(nr * sizeof *out->runs);
    for (size_t i = 0; i < nr; i++)
        out->runs[i] = runs[i].r;
    for (int c = 0; c < ST_SYN_NCELLS; c++) {
        st_cell *x = &out->cells[c];
        x->cell_id = c + 1;
        x->workload = ct_xstrdup("syn");
        x->kind = ct_xstrdup(c == ST_SYN_BASE ? "baseline" : c == ST_SYN_TIME ? "time" : "alloc");
        x->alloc_mode = ct_xstrdup(c >= ST_SYN_ALLOC1 ? sgc_alloc_mode_name(SGC_SAMPLE_FIXED) : "");
        x->time_clock = ct_xstrdup(c == ST_SYN_TIME ? "wall" : "");
        x->time_mode = ct_xstrdup(c == ST_SYN_TIME ? "signal" : ""); /* as st_db reads a signal-mode sweep */
        x->label = ct_xstrdup(syn_labels[c]);
        x->alloc_period = syn_period[c];
        x->time_hz = c == ST_SYN_TIME ? (int64_t)plan->rate : 0;
        x->size = 1;
        x->depth = NAN;
    }
    for (size_t i = 0; i < nr;) {
        size_t j = i;
        while (j < nr && runs[j].cell == runs[i].cell)
            j++;
        st_cell *x = &out->cells[runs[i].cell];
        x->first_run = i;
        x->nruns = x->used = j - i;
        i = j;
    }
    /* The meta table: the design, and with adaptive rounds the config's
     * planned rounds and target and the rule (as the sweep stores them). */
    out->nmeta = plan->halfwidth > 0 ? 3 : 1;
    out->meta_key = ct_xmalloc(3 * sizeof *out->meta_key);
    out->meta_value = ct_xmalloc(3 * sizeof *out->meta_value);
    out->meta_key[0] = ct_xstrdup("design");
    out->meta_value[0] = ct_xstrdup("blocked");
    if (plan->halfwidth > 0) {
        char cfg[128];
        snprintf(cfg, sizeof cfg, "runs = %zu\ndesign = blocked\nhalfwidth = %.17g%%\n", n, plan->halfwidth * 100);
        out->meta_key[1] = ct_xstrdup("config");
        out->meta_value[1] = ct_xstrdup(cfg);
        out->meta_key[2] = ct_xstrdup("adaptive_rule");
        out->meta_value[2] = ct_xstrdup("two-stage");
    }
    out->planned = -1;
    out->warning[0] = '\0';
    free(runs), free(first), free(noise);
}

/* ---- synthetic in-process cells ---- */

void st_synth_inproc(const st_ipsource *src, size_t procs, size_t blocks, double ratio, gsl_rng *rng, st_seg **segs,
                     size_t *nsegs) {
    size_t total = 4 * procs * blocks, k = 0;
    st_seg *s = ct_xmalloc((total ? total : 1) * sizeof *s);
    size_t *idx = ct_xmalloc((blocks ? blocks : 1) * sizeof *idx);
    for (size_t p = 0; p < procs; p++) {
        const st_ipproc *q = &src->p[gsl_rng_uniform_int(rng, (unsigned long)src->np)];
        st_cbb_indices(rng, q->n, q->L, idx, blocks);
        for (size_t b = 0; b < blocks; b++) {
            const st_ipblock *x = &q->b[idx[b]];
            for (int pos = 0; pos < 4; pos++) {
                st_seg *g = &s[k++];
                memset(g, 0, sizeof *g);
                g->run = (int64_t)p + 1;
                g->block = (int64_t)b + 1;
                g->pos = pos;
                g->kind = x->kind[pos];
                g->complete = 1;
                g->cpu_ns = x->cpu[pos] * (x->kind[pos] == 'B' ? ratio : 1.0);
                g->bytes = g->iterations = x->work[pos];
                g->samples = x->samples[pos];
            }
        }
    }
    free(idx);
    *segs = s;
    *nsegs = k;
}

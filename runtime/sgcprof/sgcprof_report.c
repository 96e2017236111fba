/* sgcprof_report.c - sgcprof's output: dump, report, folded stacks and
 * speedscope JSON from a profile (invariants: sgcprof_report.h). */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../../contracts/ct_alloc.h"
#include "../../contracts/ct_json.h"
#include "sgcprof_names.h"
#include "sgcprof_report.h"
#include "sgc_modes.h"

static const char *phase_name(uint32_t phase) { return phase == 1 ? "minor-gc" : phase == 2 ? "major-gc" : "mutator"; }

static const char *survival_name(uint32_t s) { return s == 0 ? "died" : s == 1 ? "survived" : "unknown"; }

static const char *signal_name(int sig) {
    switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    default: return "signal";
    }
}

/* ---- dump ------------------------------------------------------------------ */

int sgcprof_dump(sgc_pr_reader *r, FILE *out) {
    fprintf(out, "header version=%u base_ts=%" PRIu64 "\n", r->version, r->base_ts);
    sgc_pr_record c;
    int rc;
    while ((rc = sgc_pr_next(r, &c)) == 1) {
        /* Timestamps relative to the header's base: readable and stable. */
        uint64_t t = c.ts - r->base_ts;
        fprintf(out, "@%" PRIu64 " %s", c.offset, sgc_pr_kind_name(c.kind));
        switch (c.kind) {
        case SGC_REC_STRING: fprintf(out, " id=%u \"%s\"", c.id, c.str); break;
        case SGC_REC_NODE:
            fprintf(out, " id=%u parent=%u func=%u (%s)", c.id, c.parent, c.func, sgc_pr_string(r, c.func));
            break;
        case SGC_REC_TYPE: fprintf(out, " tid=%u name=%u (%s)", c.tid, c.name, sgc_pr_string(r, c.name)); break;
        case SGC_REC_ALLOC_CONFIG:
            fprintf(out, " t=%" PRIu64 " period=%" PRIu64 " mode=%s", t, c.period, sgc_alloc_mode_name((int)c.mode));
            break;
        case SGC_REC_ALLOC_SAMPLE:
            fprintf(out, " t=%" PRIu64 " node=%u type=%u (%s) size=%" PRIu64 " points=%u survival=%s%s", t, c.node,
                    c.tid, sgc_pr_type_name(r, c.tid), c.size, c.points, survival_name(c.survival),
                    c.large ? " large" : "");
            break;
        case SGC_REC_TIME_CONFIG:
            fprintf(out, " t=%" PRIu64 " hz=%u clock=%s", t, c.hz, sgc_clock_name((int)c.clock));
            break;
        case SGC_REC_TIME_SAMPLE:
            fprintf(out, " t=%" PRIu64 " node=%u phase=%s", t, c.node, phase_name(c.phase));
            break;
        case SGC_REC_TIME_DROPPED:
        case SGC_REC_TIME_MISSED: fprintf(out, " t=%" PRIu64 " count=%" PRIu64, t, c.count); break;
        case SGC_REC_GC_EVENT:
            fprintf(out, " kind=%s start=%" PRIu64 " duration=%" PRIu64 " heap=%" PRIu64 " rss=%" PRIu64,
                    c.gc_kind == 1 ? "minor" : "major", t, c.duration, c.heap, c.rss);
            break;
        case SGC_REC_END: fprintf(out, " t=%" PRIu64 " records=%" PRIu64, t, c.count); break;
        case SGC_REC_EXIT_SIGNAL:
            fprintf(out, " t=%" PRIu64 " signal=%" PRIu64 " (%s)", t, c.count, signal_name((int)c.count));
            break;
        default: fprintf(out, " kind=%d (skipped)", c.kind); break;
        }
        fputc('\n', out);
    }
    return rc < 0 ? -1 : 0;
}

/* ---- Aggregation -------------------------------------------------------- */

/* Function ids: string ids 1..nstrings, plus three pseudo-functions. */
typedef struct agg {
    uint32_t nf;                 /* function ids 0..nf-1 */
    uint32_t f_none;             /* "(no frame)": samples with the empty stack */
    uint32_t f_minor;            /* "[minor GC]" */
    uint32_t f_major;            /* "[major GC]" */
    double *a_self, *a_incl;     /* estimated bytes */
    uint64_t *a_sself, *a_sincl; /* allocation samples, self and inclusive */
    uint64_t *t_self, *t_incl;   /* time samples */
    uint64_t *stamp;             /* dedupe for inclusive: last sample that counted it */
} agg;

static const char *fname(const sgc_pr_reader *r, const agg *g, uint32_t f) {
    if (f == g->f_none)
        return "(no frame)";
    if (f == g->f_minor)
        return "[minor GC]";
    if (f == g->f_major)
        return "[major GC]";
    return sgc_pr_string(r, f);
}

static uint32_t leaf_of(const sgc_pr_reader *r, const agg *g, uint32_t node) {
    return node ? r->node_func[node] : g->f_none;
}

static void agg_build(const sgc_pr_reader *r, agg *g) {
    g->f_none = 0;
    g->f_minor = r->nstrings + 1;
    g->f_major = r->nstrings + 2;
    g->nf = r->nstrings + 3;
    g->a_self = ct_xcalloc(g->nf, sizeof(double));
    g->a_incl = ct_xcalloc(g->nf, sizeof(double));
    g->a_sself = ct_xcalloc(g->nf, sizeof(uint64_t));
    g->a_sincl = ct_xcalloc(g->nf, sizeof(uint64_t));
    g->t_self = ct_xcalloc(g->nf, sizeof(uint64_t));
    g->t_incl = ct_xcalloc(g->nf, sizeof(uint64_t));
    g->stamp = ct_xcalloc(g->nf, sizeof(uint64_t));
    uint64_t sample = 0;
    for (size_t i = 0; i < r->nallocs; i++) {
        const sgc_pr_alloc *a = &r->allocs[i];
        double bytes = (double)a->points * (double)sgc_pr_period_at(r, a->ts);
        uint32_t leaf = leaf_of(r, g, a->node);
        g->a_self[leaf] += bytes;
        g->a_sself[leaf]++;
        sample++;
        if (!a->node) {
            g->a_incl[g->f_none] += bytes;
            g->a_sincl[g->f_none]++;
            continue;
        }
        for (uint32_t n = a->node; n; n = r->node_parent[n]) {
            uint32_t f = r->node_func[n];
            if (g->stamp[f] != sample) {
                g->stamp[f] = sample;
                g->a_incl[f] += bytes;
                g->a_sincl[f]++;
            }
        }
    }
    for (size_t i = 0; i < r->ntimes; i++) {
        const sgc_pr_time *t = &r->times[i];
        sample++;
        uint32_t top = t->phase == 1 ? g->f_minor : t->phase == 2 ? g->f_major : leaf_of(r, g, t->node);
        g->t_self[top]++;
        if (t->phase) {
            g->t_incl[top]++;
            g->stamp[top] = sample;
        }
        if (!t->node) {
            if (g->stamp[g->f_none] != sample)
                g->t_incl[g->f_none]++;
            continue;
        }
        for (uint32_t n = t->node; n; n = r->node_parent[n]) {
            uint32_t f = r->node_func[n];
            if (g->stamp[f] != sample) {
                g->stamp[f] = sample;
                g->t_incl[f]++;
            }
        }
    }
}

static void agg_free(agg *g) {
    free(g->a_self);
    free(g->a_incl);
    free(g->a_sself);
    free(g->a_sincl);
    free(g->t_self);
    free(g->t_incl);
    free(g->stamp);
}

/* Sorting function ids by a key, descending, ties by id. */
static const double *sort_key;
static int by_key_desc(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (sort_key[x] != sort_key[y])
        return sort_key[x] < sort_key[y] ? 1 : -1;
    return x < y ? -1 : x > y;
}

/* Ids of the functions with key > 0, best first; returns how many. */
static uint32_t ranked(const agg *g, const double *key, uint32_t *ids) {
    uint32_t n = 0;
    for (uint32_t f = 0; f < g->nf; f++)
        if (key[f] > 0)
            ids[n++] = f;
    sort_key = key;
    qsort(ids, n, sizeof *ids, by_key_desc);
    return n;
}

/* sgcprof_report's `exact`: byte figures as integers, not in KiB/MiB. */
static int exact_bytes;

static void fmt_bytes(char *buf, size_t n, double b) {
    if (exact_bytes) {
        snprintf(buf, n, "%.0f B", b);
        return;
    }
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (b >= 1024 && i < 4) {
        b /= 1024;
        i++;
    }
    snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

static double *to_double(const uint64_t *v, uint32_t n) {
    double *d = ct_xcalloc(n, sizeof *d);
    for (uint32_t i = 0; i < n; i++)
        d[i] = (double)v[i];
    return d;
}

/* Seconds during which time sampling was on, from the TIME_CONFIG records
 * (a run still on at the end counts until the END record). */
static double time_on_seconds(const sgc_pr_reader *r) {
    double s = 0;
    for (size_t i = 0; i < r->ntconfs; i++) {
        if (!r->tconfs[i].value)
            continue;
        uint64_t end = i + 1 < r->ntconfs ? r->tconfs[i + 1].ts : r->end_ts;
        if (end > r->tconfs[i].ts)
            s += (double)(end - r->tconfs[i].ts) / 1e9;
    }
    return s;
}

uint64_t sgcprof_ns_per_time_sample(const sgc_pr_reader *r) {
    uint64_t n = r->ntimes + r->dropped;
    double on = time_on_seconds(r);
    if (!n || on <= 0)
        return 0;
    return (uint64_t)(on * 1e9 / (double)n + 0.5);
}

static void report_alloc(const sgc_pr_reader *r, const agg *g, FILE *out, unsigned top, uint32_t *ids) {
    uint64_t points = 0;
    double total = 0;
    for (size_t i = 0; i < r->nallocs; i++) {
        points += r->allocs[i].points;
        total += (double)r->allocs[i].points * (double)sgc_pr_period_at(r, r->allocs[i].ts);
    }
    char b[32];
    fprintf(out, "\n== Allocation samples: %zu objects, %" PRIu64 " sample points", r->nallocs, points);
    fmt_bytes(b, sizeof b, total);
    fprintf(out, ", estimated %s allocated\n", b);
    fprintf(out, "   periods:");
    if (!r->naconfs)
        fprintf(out, " (allocation sampling never on)");
    for (size_t i = 0; i < r->naconfs && i < 8; i++) {
        if (r->aconfs[i].value)
            fprintf(out, " %" PRIu64 " bytes %s from t=%.3fs;", r->aconfs[i].value,
                    sgc_alloc_mode_name((int)r->aconfs[i].mode), (double)(r->aconfs[i].ts - r->base_ts) / 1e9);
        else
            fprintf(out, " stopped at t=%.3fs;", (double)(r->aconfs[i].ts - r->base_ts) / 1e9);
    }
    if (r->naconfs > 8)
        fprintf(out, " ... (%zu changes)", r->naconfs);
    fputc('\n', out);
    if (!r->nallocs)
        return;
    double survived = 0;
    for (size_t i = 0; i < r->nallocs; i++)
        if (r->allocs[i].survival == SGC_SURVIVED)
            survived += (double)r->allocs[i].points * (double)sgc_pr_period_at(r, r->allocs[i].ts);
    fmt_bytes(b, sizeof b, survived);
    fprintf(out, "   survived their first minor collection: estimated %s (%.1f%% of the bytes)\n", b,
            total > 0 ? 100.0 * survived / total : 0.0);
    for (int incl = 0; incl < 2; incl++) {
        const double *key = incl ? g->a_incl : g->a_self;
        fprintf(out, "\n-- Top allocation sites by estimated bytes (%s)\n", incl ? "inclusive" : "self");
        fprintf(out, "  %4s %12s %7s %9s  %s\n", "rank", "est. bytes", "share", "samples", "function");
        uint32_t n = ranked(g, key, ids);
        for (uint32_t i = 0; i < n && i < top; i++) {
            fmt_bytes(b, sizeof b, key[ids[i]]);
            fprintf(out, "  %4u %12s %6.2f%% %9" PRIu64 "  %s\n", i + 1, b, 100.0 * key[ids[i]] / total,
                    incl ? g->a_sincl[ids[i]] : g->a_sself[ids[i]], fname(r, g, ids[i]));
        }
    }
    /* Per type: types are few (ids < 2^24, but only the defined ones). */
    uint32_t nt = r->cap_types;
    double *tbytes = ct_xcalloc(nt, sizeof *tbytes);
    uint64_t *ts = ct_xcalloc(nt, sizeof *ts), *surv = ct_xcalloc(nt, sizeof *surv);
    uint64_t *died = ct_xcalloc(nt, sizeof *died), *unk = ct_xcalloc(nt, sizeof *unk);
    for (size_t i = 0; i < r->nallocs; i++) {
        const sgc_pr_alloc *a = &r->allocs[i];
        tbytes[a->tid] += (double)a->points * (double)sgc_pr_period_at(r, a->ts);
        ts[a->tid]++;
        if (a->survival == 1)
            surv[a->tid]++;
        else if (a->survival == 0)
            died[a->tid]++;
        else
            unk[a->tid]++;
    }
    uint32_t *tids = ct_xcalloc(nt, sizeof *tids), k = 0;
    for (uint32_t t = 0; t < nt; t++)
        if (ts[t])
            tids[k++] = t;
    sort_key = tbytes;
    qsort(tids, k, sizeof *tids, by_key_desc);
    fprintf(out, "\n-- Allocated types (survival = survived the next minor collection)\n");
    fprintf(out, "  %12s %7s %9s %9s %9s %9s %9s  %s\n", "est. bytes", "share", "samples", "survived", "died",
            "unknown", "survival", "type");
    for (uint32_t i = 0; i < k && i < top; i++) {
        uint32_t t = tids[i];
        fmt_bytes(b, sizeof b, tbytes[t]);
        char rate[16];
        if (surv[t] + died[t])
            snprintf(rate, sizeof rate, "%.1f%%", 100.0 * (double)surv[t] / (double)(surv[t] + died[t]));
        else
            snprintf(rate, sizeof rate, "-");
        fprintf(out, "  %12s %6.2f%% %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9s  %s\n", b,
                total > 0 ? 100.0 * tbytes[t] / total : 0.0, ts[t], surv[t], died[t], unk[t], rate,
                sgc_pr_type_name(r, t));
    }
    free(tbytes);
    free(ts);
    free(surv);
    free(died);
    free(unk);
    free(tids);
}

static void report_time(const sgc_pr_reader *r, const agg *g, FILE *out, unsigned top, uint32_t *ids) {
    double on = time_on_seconds(r);
    fprintf(out, "\n== Time samples: %zu written, %" PRIu64 " dropped", r->ntimes, r->dropped);
    for (size_t i = 0; i < r->ntconfs; i++)
        if (r->tconfs[i].value) {
            fprintf(out, ", %" PRIu64 " Hz %s clock", r->tconfs[i].value, sgc_clock_name((int)r->tconfs[i].mode));
            break;
        }
    if (on > 0)
        fprintf(out, ", achieved %.1f Hz over %.3f s", (double)(r->ntimes + r->dropped) / on, on);
    fputc('\n', out);
    uint64_t ns = sgcprof_ns_per_time_sample(r);
    if (ns)
        fprintf(out,
                "   each sample stands for %" PRIu64 " ns (1 / the achieved rate): %" PRIu64 " ns sampled in all\n", ns,
                ns * (uint64_t)r->ntimes);
    if (r->missed)
        fprintf(out,
                "   %" PRIu64 " timer expirations missed: the thread was not running when they fell due "
                "(a busy machine)\n",
                r->missed);
    if (!r->ntimes)
        return;
    uint64_t ph[3] = {0, 0, 0};
    for (size_t i = 0; i < r->ntimes; i++)
        ph[r->times[i].phase]++;
    fprintf(out,
            "   phases: mutator %" PRIu64 " (%.1f%%), minor GC %" PRIu64 " (%.1f%%), major GC %" PRIu64 " (%.1f%%)\n",
            ph[0], 100.0 * (double)ph[0] / (double)r->ntimes, ph[1], 100.0 * (double)ph[1] / (double)r->ntimes, ph[2],
            100.0 * (double)ph[2] / (double)r->ntimes);
    for (int incl = 0; incl < 2; incl++) {
        double *key = to_double(incl ? g->t_incl : g->t_self, g->nf);
        fprintf(out, "\n-- Top functions by time samples (%s)\n", incl ? "inclusive" : "self");
        fprintf(out, "  %4s %9s %7s  %s\n", "rank", "samples", "share", "function");
        uint32_t n = ranked(g, key, ids);
        for (uint32_t i = 0; i < n && i < top; i++)
            fprintf(out, "  %4u %9.0f %6.2f%%  %s\n", i + 1, key[ids[i]], 100.0 * key[ids[i]] / (double)r->ntimes,
                    fname(r, g, ids[i]));
        free(key);
    }
}

static void report_side_by_side(const sgc_pr_reader *r, const agg *g, FILE *out, unsigned top) {
    if (!r->ntimes || !r->nallocs)
        return;
    uint32_t *ti = ct_xcalloc(g->nf, sizeof *ti), *ai = ct_xcalloc(g->nf, sizeof *ai);
    double *tk = to_double(g->t_self, g->nf);
    uint32_t nt = ranked(g, tk, ti);
    uint32_t na = ranked(g, g->a_self, ai);
    double atotal = 0;
    for (uint32_t f = 0; f < g->nf; f++)
        atotal += g->a_self[f];
    fprintf(out, "\n== Side by side (self): where the time goes vs where the bytes are allocated\n");
    fprintf(out, "  %4s  %-32s %7s  |  %-32s %7s\n", "rank", "top by time samples", "share", "top by allocated bytes",
            "share");
    for (uint32_t i = 0; i < top && (i < nt || i < na); i++) {
        char tl[40] = "", al[40] = "", tp[16] = "", ap[16] = "";
        if (i < nt) {
            snprintf(tl, sizeof tl, "%.32s", fname(r, g, ti[i]));
            snprintf(tp, sizeof tp, "%.2f%%", 100.0 * tk[ti[i]] / (double)r->ntimes);
        }
        if (i < na) {
            snprintf(al, sizeof al, "%.32s", fname(r, g, ai[i]));
            snprintf(ap, sizeof ap, "%.2f%%", 100.0 * g->a_self[ai[i]] / atotal);
        }
        fprintf(out, "  %4u  %-32s %7s  |  %-32s %7s\n", i + 1, tl, tp, al, ap);
    }
    free(ti);
    free(ai);
    free(tk);
}

static void report_gc(const sgc_pr_reader *r, FILE *out) {
    uint64_t n[3] = {0, 0, 0}, ns[3] = {0, 0, 0}, mx[3] = {0, 0, 0}, heap = 0, rss = 0;
    for (size_t i = 0; i < r->ngcs; i++) {
        const sgc_pr_gc *e = &r->gcs[i];
        n[e->kind]++;
        ns[e->kind] += e->duration;
        if (e->duration > mx[e->kind])
            mx[e->kind] = e->duration;
        if (e->heap > heap)
            heap = e->heap;
        if (e->rss > rss)
            rss = e->rss;
    }
    fprintf(out, "\n== GC events: %zu\n", r->ngcs);
    for (int k = 1; k <= 2; k++)
        if (n[k])
            fprintf(out, "   %s: %" PRIu64 " collections, %.3f ms in total, mean %.1f us, max %.1f us\n",
                    k == 1 ? "minor" : "major", n[k], (double)ns[k] / 1e6, (double)ns[k] / (double)n[k] / 1e3,
                    (double)mx[k] / 1e3);
    if (r->ngcs) {
        char hb[32], rb[32];
        fmt_bytes(hb, sizeof hb, (double)heap);
        fmt_bytes(rb, sizeof rb, (double)rss);
        fprintf(out, "   peak heap in use after a collection %s, peak RSS %s\n", hb, rb);
    }
}

void sgcprof_report(const sgc_pr_reader *r, FILE *out, unsigned top, int exact) {
    exact_bytes = exact;
    agg g;
    agg_build(r, &g);
    uint32_t *ids = ct_xcalloc(g.nf, sizeof *ids);
    fprintf(out, "freecheck profile, format version %u, %.3f s, %u names (functions and types), %u stack nodes\n",
            r->version, (double)(r->end_ts - r->base_ts) / 1e9, r->nstrings, r->nnodes);
    if (r->exit_signal)
        fprintf(out,
                "the run was ended by signal %d (%s): samples it had not yet recorded (allocation samples "
                "waiting for their survival, time samples not yet drained) are not in the profile\n",
                r->exit_signal, signal_name(r->exit_signal));
    report_alloc(r, &g, out, top, ids);
    report_time(r, &g, out, top, ids);
    report_side_by_side(r, &g, out, top);
    report_gc(r, out);
    free(ids);
    agg_free(&g);
}

/* ---- Exports ------------------------------------------------------------- */

/* Every string's escaped form (sgcprof_names.h), by string id. */
static char **escaped_names(const sgc_pr_reader *r, int folded) {
    char **e = ct_xcalloc((size_t)r->nstrings + 1, sizeof *e);
    for (uint32_t s = 1; s <= r->nstrings; s++)
        e[s] = sgcprof_escape(sgc_pr_string(r, s), folded);
    return e;
}

static void free_names(const sgc_pr_reader *r, char **e) {
    for (uint32_t s = 1; s <= r->nstrings; s++)
        free(e[s]);
    free(e);
}

/* Writes the names of node's stack, root first, separated by ';'. */
static void print_path(const sgc_pr_reader *r, FILE *out, uint32_t node, uint32_t *tmp, char **names) {
    uint32_t d = 0;
    for (uint32_t n = node; n; n = r->node_parent[n])
        tmp[d++] = r->node_func[n];
    if (!d)
        fputs("(no_frame)", out);
    while (d) {
        fputs(names[tmp[--d]], out);
        if (d)
            fputc(';', out);
    }
}

uint32_t sgcprof_max_depth(const sgc_pr_reader *r) {
    uint32_t *depth = ct_xcalloc((size_t)r->nnodes + 1, sizeof *depth), mx = 0;
    for (uint32_t n = 1; n <= r->nnodes; n++) {
        depth[n] = depth[r->node_parent[n]] + 1;
        if (depth[n] > mx)
            mx = depth[n];
    }
    free(depth);
    return mx;
}

void sgcprof_folded(const sgc_pr_reader *r, FILE *out, int time) {
    size_t nn = (size_t)r->nnodes + 1;
    double *w = ct_xcalloc(nn * 3, sizeof *w); /* by node and phase */
    if (time) {
        for (size_t i = 0; i < r->ntimes; i++)
            w[r->times[i].node * 3 + r->times[i].phase] += 1;
    } else {
        for (size_t i = 0; i < r->nallocs; i++)
            w[r->allocs[i].node * 3] += (double)r->allocs[i].points * (double)sgc_pr_period_at(r, r->allocs[i].ts);
    }
    uint32_t *tmp = ct_xcalloc((size_t)sgcprof_max_depth(r) + 1, sizeof *tmp);
    char **names = escaped_names(r, 1);
    for (size_t n = 0; n < nn; n++)
        for (int p = 0; p < 3; p++) {
            if (w[n * 3 + p] <= 0)
                continue;
            print_path(r, out, (uint32_t)n, tmp, names);
            if (p)
                fputs(p == 1 ? ";[minor_GC]" : ";[major_GC]", out);
            fprintf(out, " %.0f\n", w[n * 3 + p]);
        }
    free_names(r, names);
    free(tmp);
    free(w);
}

/* One speedscope stack: frame indexes root first.  Frame index of string id
 * s is s - 1; the pseudo-frames follow the strings. */
static void json_stack(const sgc_pr_reader *r, FILE *out, uint32_t node, uint32_t phase, uint32_t *tmp) {
    uint32_t d = 0;
    for (uint32_t n = node; n; n = r->node_parent[n])
        tmp[d++] = r->node_func[n] - 1;
    fputc('[', out);
    int first = 1;
    if (!d) {
        fprintf(out, "%u", r->nstrings + 2);
        first = 0;
    }
    while (d) {
        fprintf(out, first ? "%u" : ",%u", tmp[--d]);
        first = 0;
    }
    if (phase)
        fprintf(out, ",%u", r->nstrings + phase - 1);
    fputc(']', out);
}

void sgcprof_speedscope(const sgc_pr_reader *r, FILE *out, const char *name) {
    uint32_t *tmp = ct_xcalloc((size_t)sgcprof_max_depth(r) + 1, sizeof *tmp);
    char **names = escaped_names(r, 0);
    char *file = sgcprof_escape(name, 0);
    fprintf(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":");
    ct_json_str(out, file);
    free(file);
    fprintf(out, ",\"exporter\":\"sgcprof\",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
    for (uint32_t s = 1; s <= r->nstrings; s++) {
        fprintf(out, s > 1 ? ",{\"name\":" : "{\"name\":");
        ct_json_str(out, names[s]);
        fputc('}', out);
    }
    free_names(r, names);
    fprintf(out, "%s{\"name\":\"[minor GC]\"},{\"name\":\"[major GC]\"},{\"name\":\"(no frame)\"}]},\"profiles\":[",
            r->nstrings ? "," : "");
    /* Time samples, in time order, each weighing the time one sample
     * stands for at the achieved rate (1 / rate); without a known rate
     * (no time sampling configuration), one unit each. */
    uint64_t ns = sgcprof_ns_per_time_sample(r);
    fprintf(out,
            "{\"type\":\"sampled\",\"name\":\"time samples\",\"unit\":\"%s\",\"startValue\":0,"
            "\"endValue\":%" PRIu64 ",\"samples\":[",
            ns ? "nanoseconds" : "none", (ns ? ns : 1) * (uint64_t)r->ntimes);
    for (size_t i = 0; i < r->ntimes; i++) {
        if (i)
            fputc(',', out);
        json_stack(r, out, r->times[i].node, r->times[i].phase, tmp);
    }
    fprintf(out, "],\"weights\":[");
    for (size_t i = 0; i < r->ntimes; i++)
        fprintf(out, i ? ",%" PRIu64 : "%" PRIu64, ns ? ns : 1);
    double total = 0;
    for (size_t i = 0; i < r->nallocs; i++)
        total += (double)r->allocs[i].points * (double)sgc_pr_period_at(r, r->allocs[i].ts);
    fprintf(out,
            "]},{\"type\":\"sampled\",\"name\":\"allocated bytes (estimated)\",\"unit\":\"bytes\","
            "\"startValue\":0,\"endValue\":%.0f,\"samples\":[",
            total);
    for (size_t i = 0; i < r->nallocs; i++) {
        if (i)
            fputc(',', out);
        json_stack(r, out, r->allocs[i].node, 0, tmp);
    }
    fprintf(out, "],\"weights\":[");
    for (size_t i = 0; i < r->nallocs; i++)
        fprintf(out, "%s%.0f", i ? "," : "",
                (double)r->allocs[i].points * (double)sgc_pr_period_at(r, r->allocs[i].ts));
    fprintf(out, "]}]}\n");
    free(tmp);
}

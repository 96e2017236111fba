/* st_nodes.c - the nodes of a sweep: within-node comparisons, one scale per group. */
#include "st_nodes.h"
#include "st_desc.h"
#include "st_util.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_node {
    int64_t run_id;
    int node; /* index into the sorted node names */
} run_node;

static int cmp_run(const void *a, const void *b) {
    int64_t x = ((const run_node *)a)->run_id, y = ((const run_node *)b)->run_id;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int same_depth(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

/* The baseline cell of cell i (analyze's rule), or -1. */
static long baseline_of(const st_sweep *sw, size_t i) {
    const st_cell *c = &sw->cells[i];
    for (size_t j = 0; j < sw->ncells; j++) {
        const st_cell *b = &sw->cells[j];
        if (!strcmp(b->kind, "baseline") && !strcmp(b->workload, c->workload) && b->size == c->size &&
            same_depth(b->depth, c->depth))
            return (long)j;
    }
    return -1;
}

/* The median over the used runs of cell b on node k of value(run), NaN
 * when none has a finite value. */
static double node_median(const st_sweep *sw, const int *node_of, size_t b, int k, int metric, long tc) {
    const st_cell *c = &sw->cells[b];
    double *x = ct_xmalloc((c->nruns ? c->nruns : 1) * sizeof *x);
    size_t n = 0;
    for (size_t r = c->first_run; r < c->first_run + c->nruns; r++) {
        const st_run *run = &sw->runs[r];
        if (!run->used || node_of[r] != k)
            continue;
        double v = metric == 0   ? run->wall_ns
                   : metric == 1 ? run->user_ns + run->sys_ns
                   : tc >= 0     ? sw->counter[r * sw->nevents + (size_t)tc]
                                 : NAN;
        if (isfinite(v) && v > 0)
            x[n++] = v;
    }
    double m = n ? st_median(x, n) : NAN;
    free(x);
    return m;
}

/* The node of every measured run of dir's results.db, sorted by run id, in *rn
 * (node indices into *names, in the order first seen; a sweep from before the
 * node column: no runs, one name "unknown", *has_node 0): 0, or 2 with the
 * reason in err. */
static int read_run_nodes(const char *dir, run_node **rn, size_t *nrn, char ***names, size_t *nnames, int *has_node,
                          char *err, size_t errlen) {
    char path[4096];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return 2;
    }
    sqlite3_busy_timeout(db, 10000);
    /* Nodes of the measured runs (a sweep from before the column: one node). */
    sqlite3_stmt *st;
    *has_node = sqlite3_prepare_v2(db,
                                   "SELECT run_id, ifnull(node, 'unknown') FROM runs WHERE round > 0"
                                   " ORDER BY run_id",
                                   -1, &st, NULL) == SQLITE_OK;
    size_t cap = 0;
    *rn = NULL;
    *nrn = 0;
    *names = NULL;
    *nnames = 0;
    if (*has_node) {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 1);
            size_t k = 0;
            while (k < *nnames && strcmp((*names)[k], name))
                k++;
            if (k == *nnames) {
                *names = ct_xrealloc(*names, (*nnames + 1) * sizeof **names);
                (*names)[(*nnames)++] = ct_xstrdup(name);
            }
            if (*nrn == cap)
                *rn = ct_xrealloc(*rn, (cap = cap ? 2 * cap : 256) * sizeof **rn);
            (*rn)[(*nrn)++] = (run_node){sqlite3_column_int64(st, 0), (int)k};
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) {
            snprintf(err, errlen, "%s: reading the runs' nodes: %s", path, sqlite3_errmsg(db));
            sqlite3_close(db);
            free(*rn);
            for (size_t i = 0; i < *nnames; i++)
                free((*names)[i]);
            free(*names);
            return 2;
        }
    } else {
        *names = ct_xmalloc(sizeof **names);
        (*names)[(*nnames)++] = ct_xstrdup("unknown");
    }
    sqlite3_close(db);
    return 0;
}

/* Takes names and rn (read_run_nodes'): out->node the sorted names, out->runs
 * the loaded runs per node, and returns each loaded run's node index in that
 * order (0 for a run without a node). */
static int *assign_nodes(st_sweep *sw, st_nodes *out, run_node *rn, size_t nrn, char **names, size_t nnames,
                         int has_node) {
    /* Sorted names, and each loaded run's node index in that order. */
    char **sorted = ct_xmalloc((nnames ? nnames : 1) * sizeof *sorted);
    if (nnames) { /* none without measured runs: names is NULL, which memcpy and qsort must not get */
        memcpy(sorted, names, nnames * sizeof *names);
        qsort(sorted, nnames, sizeof *sorted, cmp_str);
    }
    int *rank = ct_xmalloc((nnames ? nnames : 1) * sizeof *rank);
    for (size_t i = 0; i < nnames; i++)
        for (size_t j = 0; j < nnames; j++)
            if (sorted[j] == names[i])
                rank[i] = (int)j;
    free(names);
    if (nrn)
        qsort(rn, nrn, sizeof *rn, cmp_run);
    int *node_of = ct_xcalloc(sw->nruns ? sw->nruns : 1, sizeof *node_of);
    out->nnodes = nnames;
    out->node = sorted;
    out->runs = ct_xcalloc(nnames ? nnames : 1, sizeof *out->runs);
    for (size_t r = 0; r < sw->nruns; r++) {
        run_node key = {sw->runs[r].run_id, 0};
        const run_node *f = has_node && nrn ? bsearch(&key, rn, nrn, sizeof *rn, cmp_run) : NULL;
        node_of[r] = f ? rank[f->node] : 0;
        out->runs[node_of[r]]++;
    }
    free(rank);
    free(rn);
    return node_of;
}

/* Multiplies node k's runs of baseline b's group by f (wall, CPU, task-clock;
 * a factor that is not finite leaves its quantities alone). */
static void scale_node(st_sweep *sw, const int *node_of, size_t b, size_t k, const double f[3], long tc) {
    for (size_t i = 0; i < sw->ncells; i++) {
        if (baseline_of(sw, i) != (long)b)
            continue;
        const st_cell *c = &sw->cells[i];
        for (size_t r = c->first_run; r < c->first_run + c->nruns; r++) {
            if (node_of[r] != (int)k)
                continue;
            st_run *run = &sw->runs[r];
            if (isfinite(f[0])) {
                run->wall_ns *= f[0];
                run->key[ST_K_run_ns] *= f[0];
                run->key[ST_K_minor_ns] *= f[0];
                run->key[ST_K_major_ns] *= f[0];
                run->key[ST_K_gc_ns] *= f[0];
            }
            if (isfinite(f[1])) {
                run->user_ns *= f[1];
                run->sys_ns *= f[1];
            }
            if (tc >= 0 && isfinite(f[2]))
                sw->counter[r * sw->nevents + (size_t)tc] *= f[2];
        }
    }
}

/* Puts every group (a baseline and its cells) that ran on several nodes on one
 * node's scale (scale_node), counting out->ngroups and out->nmixed; returns the
 * lines that say so, one per mixed group (a string to free; may be empty). */
static char *rescale_groups(st_sweep *sw, st_nodes *out, const int *node_of) {
    long tc = -1;
    for (size_t e = 0; e < sw->nevents; e++)
        if (!strcmp(sw->events[e], "perf::task-clock"))
            tc = (long)e;
    char *text = NULL;
    size_t tlen = 0;
    FILE *t = open_memstream(&text, &tlen);
    if (!t)
        ct_out_of_memory();
    /* Groups: each baseline with its cells. */
    size_t nn = out->nnodes;
    size_t *base_runs = ct_xcalloc(nn ? nn : 1, sizeof *base_runs);
    int *seen = ct_xcalloc(nn ? nn : 1, sizeof *seen);
    for (size_t b = 0; b < sw->ncells; b++) {
        const st_cell *bc = &sw->cells[b];
        if (strcmp(bc->kind, "baseline") || baseline_of(sw, b) != (long)b)
            continue;
        out->ngroups++;
        memset(seen, 0, nn * sizeof *seen);
        memset(base_runs, 0, nn * sizeof *base_runs);
        size_t distinct = 0;
        for (size_t i = 0; i < sw->ncells; i++) {
            if (baseline_of(sw, i) != (long)b)
                continue;
            const st_cell *c = &sw->cells[i];
            for (size_t r = c->first_run; r < c->first_run + c->nruns; r++) {
                if (!sw->runs[r].used)
                    continue;
                if (!seen[node_of[r]]++)
                    distinct++;
                if (i == b)
                    base_runs[node_of[r]]++;
            }
        }
        if (distinct < 2)
            continue;
        out->nmixed++;
        int ref = -1;
        for (size_t k = 0; k < nn; k++)
            if (base_runs[k] && (ref < 0 || base_runs[k] > base_runs[ref]))
                ref = (int)k;
        fprintf(t, "- %s: runs on %zu nodes;", bc->label, distinct);
        if (ref < 0) {
            fprintf(t, " no node has a used baseline run: not rescaled\n");
            continue;
        }
        fprintf(t, " scaled to %s (%zu baseline runs):", out->node[ref], base_runs[ref]);
        double mref[3];
        for (int m = 0; m < 3; m++)
            mref[m] = node_median(sw, node_of, b, ref, m, tc);
        for (size_t k = 0; k < nn; k++) {
            if (!seen[k] || (int)k == ref)
                continue;
            if (!base_runs[k]) {
                fprintf(t, " %s has no used baseline run: left unscaled;", out->node[k]);
                continue;
            }
            double f[3];
            for (int m = 0; m < 3; m++) {
                double mk = node_median(sw, node_of, b, (int)k, m, tc);
                f[m] = isfinite(mref[m]) && isfinite(mk) && mk > 0 ? mref[m] / mk : NAN;
            }
            fprintf(t, " %s x %.4f (wall), x %.4f (CPU);", out->node[k], f[0], f[1]);
            scale_node(sw, node_of, b, k, f, tc);
        }
        fputc('\n', t);
    }
    free(seen);
    free(base_runs);
    fclose(t);
    return text;
}

/* The report's Nodes section into out->report, from out's counts and the
 * rescaling lines (text, rescale_groups'). */
static void write_section(const st_sweep *sw, st_nodes *out, const char *text) {
    char *rep = NULL;
    size_t rlen = 0;
    FILE *f = open_memstream(&rep, &rlen);
    if (!f)
        ct_out_of_memory();
    fprintf(f, "\n## Nodes\n\n");
    const char *shards = st_sweep_meta(sw, "shards");
    if (shards)
        fprintf(f, "Merged from %s shards (`sweep --merge`; every shard's meta is in the table `shard_meta`).\n",
                shards);
    fprintf(f, "Measured runs per node:");
    for (size_t k = 0; k < out->nnodes; k++)
        fprintf(f, "%s %s %zu", k ? "," : "", out->node[k], out->runs[k]);
    fprintf(f, ".\n\n");
    if (!out->nmixed)
        fprintf(f, "Every group (a baseline and its cells) ran on one node: every overhead, paired ratio, A/A floor "
                   "and per-sample cost above compares runs of one machine, so differences in speed between nodes "
                   "do not enter them (docs/STATISTICS.md, \"Sweeps over several machines\").\n");
    else
        fprintf(f,
                "%zu of %zu groups ran on several nodes; their runs were put on one node's scale by the ratio of "
                "the baseline's medians (docs/STATISTICS.md, \"Sweeps over several machines\"); paired ratios "
                "are within one node regardless:\n\n%s",
                out->nmixed, out->ngroups, text ? text : "");
    fclose(f);
    out->report = rep;
}

int st_nodes_apply(const char *dir, st_sweep *sw, st_nodes *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->merged = st_sweep_meta(sw, "shards") != NULL;
    run_node *rn;
    size_t nrn, nnames;
    char **names;
    int has_node;
    if (read_run_nodes(dir, &rn, &nrn, &names, &nnames, &has_node, err, errlen) != 0)
        return 2;
    int *node_of = assign_nodes(sw, out, rn, nrn, names, nnames, has_node);
    char *text = rescale_groups(sw, out, node_of);
    free(node_of);
    if (out->nnodes >= 2 || out->merged)
        write_section(sw, out, text);
    free(text);
    return 0;
}

void st_nodes_free(st_nodes *n) {
    for (size_t k = 0; k < n->nnodes; k++)
        free(n->node[k]);
    free(n->node);
    free(n->runs);
    free(n->report);
    memset(n, 0, sizeof *n);
}

/* sw_shard.c - shards of a sweep (--shard K/N) and their merge (--merge). */
#define _GNU_SOURCE
#include "sw_shard.h"
#include "sw_db.h"
#include "sw_util.h"
#include "sw_schedcheck.h"
#include "sw_verify.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void sw_shard_check_opts(const sw_opts *o) {
    if (!o->shard_n)
        return;
    if (!o->seed_given)
        sw_usage_error("shard %d/%d: give the seed (--seed N, the same for every shard): each shard draws the whole "
                       "plan from it, and shards with different seeds do not make one sweep",
                       o->shard_k, o->shard_n);
    if (o->halfwidth > 0)
        sw_usage_error("shard %d/%d: adaptive rounds (--halfwidth) cannot be sharded: each shard would stop on its "
                       "own data, and the shards would no longer make up one plan",
                       o->shard_k, o->shard_n);
}

/* ---- Groups and their assignment --------------------------------------- */

/* group[i]: the group of cell i (0 .. returned count - 1, in plan order of
 * first appearance): cells of the same workload and depth. */
static int cell_groups(const sw_cell *cells, int n_cells, int *group) {
    int n = 0;
    for (int i = 0; i < n_cells; i++) {
        group[i] = -1;
        for (int j = 0; j < i && group[i] < 0; j++)
            if (!strcmp(cells[j].workload, cells[i].workload) && cells[j].depth == cells[i].depth)
                group[i] = group[j];
        if (group[i] < 0)
            group[i] = n++;
    }
    return n;
}

/* shard_of[g] (0-based) for every group of the plan; returns the number of
 * groups.  Weights are the groups' planned runs (every native run is
 * calibrated to the same CPU-time target, so runs are the unit of time). */
static int assign_groups(const sw_opts *o, const sw_cell *cells, int n_cells, int n_shards, int *group,
                         int **shard_of_out) {
    int n_groups = cell_groups(cells, n_cells, group);
    sw_slot *slots;
    int n_slots = sw_plan_schedule_all(o, cells, n_cells, &slots);
    long *weight = ct_xcalloc((size_t)(n_groups ? n_groups : 1), sizeof *weight);
    for (int i = 0; i < n_slots; i++)
        weight[group[slots[i].cell]]++;
    free(slots);
    int *order = ct_xmalloc((size_t)(n_groups ? n_groups : 1) * sizeof *order);
    for (int g = 0; g < n_groups; g++)
        order[g] = g;
    /* Insertion sort: decreasing weight, plan order among equals (stable). */
    for (int i = 1; i < n_groups; i++) {
        int g = order[i], j = i;
        while (j > 0 && weight[order[j - 1]] < weight[g]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = g;
    }
    long *load = ct_xcalloc((size_t)n_shards, sizeof *load);
    int *shard_of = ct_xmalloc((size_t)(n_groups ? n_groups : 1) * sizeof *shard_of);
    for (int i = 0; i < n_groups; i++) {
        int best = 0;
        for (int s = 1; s < n_shards; s++)
            if (load[s] < load[best])
                best = s;
        shard_of[order[i]] = best;
        load[best] += weight[order[i]];
    }
    free(load), free(order), free(weight);
    *shard_of_out = shard_of;
    return n_groups;
}

/* owned[i] for shard k of n (1-based k). */
static int *owned_cells(const sw_opts *o, const sw_cell *cells, int n_cells, int k, int n) {
    int *group = ct_xmalloc((size_t)(n_cells ? n_cells : 1) * sizeof *group), *shard_of;
    int n_groups = assign_groups(o, cells, n_cells, n, group, &shard_of);
    if (n > n_groups)
        sw_usage_error("shard %d/%d: the plan has %d group%s of cells (a workload, or one depth of deepstack, with "
                       "its baseline: they never split), so it splits into at most %d shards",
                       k, n, n_groups, n_groups == 1 ? "" : "s", n_groups);
    int *owned = ct_xcalloc((size_t)(n_cells ? n_cells : 1), sizeof *owned);
    for (int i = 0; i < n_cells; i++)
        owned[i] = shard_of[group[i]] == k - 1;
    free(group), free(shard_of);
    return owned;
}

int *sw_shard_owned(const sw_opts *o, const sw_cell *cells, int n_cells) {
    if (!o->shard_n)
        return NULL;
    return owned_cells(o, cells, n_cells, o->shard_k, o->shard_n);
}

int sw_shard_keep(const int *owned, sw_slot *slots, int n_slots) {
    int n = 0;
    for (int i = 0; i < n_slots; i++)
        if (owned[slots[i].cell])
            slots[n++] = slots[i];
    return n;
}

char *sw_shard_describe(const sw_cell *cells, int n_cells, const int *owned) {
    sw_buf b = {0};
    for (int i = 0; i < n_cells; i++) {
        if (!owned[i] || cells[i].sim)
            continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = owned[j] && !strcmp(cells[j].workload, cells[i].workload) && cells[j].depth == cells[i].depth;
        if (seen)
            continue;
        sw_buf_printf(&b, "%s%s", b.len ? ", " : "", cells[i].workload);
        if (cells[i].depth)
            sw_buf_printf(&b, " --depth %u", cells[i].depth);
    }
    if (!b.len)
        sw_buf_puts(&b, "none");
    return b.data;
}

/* ---- Merge ------------------------------------------------------------- */

typedef struct shard_in {
    char *dir;    /* as given */
    sw_db db;     /* read-only */
    int k, n;     /* meta.shard */
    char *config; /* meta.config */
    char *host;   /* meta.host */
} shard_in;

/* The merged directory being written, removed if the merge fails. */
static char *merge_out;

static void remove_partial(void) {
    if (!merge_out)
        return;
    const char *names[] = {"results.db",         "results.db-wal", "results.db-shm",
                           "results.db-journal", ".reserve",       "runs.csv"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *p = sw_xasprintf("%s/%s", merge_out, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(merge_out);
}

/* One text value of a query with one optional text parameter; fresh or NULL. */
static char *q_text(sw_db *db, const char *sql, const char *param) {
    sw_db_rows r;
    char *why = NULL, *v = NULL;
    if (sw_db_query(db, sql, param, &r, &why) == 0 && r.n && sw_db_at(&r, 0, 0))
        v = ct_xstrdup(sw_db_at(&r, 0, 0));
    sw_db_rows_free(&r);
    free(why);
    return v;
}

/* The rows of a query on shard s; a query it cannot answer is bad input. */
static sw_db_rows q_rows(shard_in *s, const char *sql) {
    sw_db_rows r;
    char *why = NULL;
    if (sw_db_query(&s->db, sql, NULL, &r, &why) != 0)
        sw_usage_error("merge: %s: %s", s->dir, why);
    return r;
}

/* A column's value as a number (0 for NULL). */
static long long num(const sw_db_rows *r, int row, int col) {
    const char *v = sw_db_at(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

static long q_long(shard_in *s, const char *sql) {
    sw_db_rows r;
    char *why = NULL;
    if (sw_db_query(&s->db, sql, NULL, &r, &why) != 0)
        sw_usage_error("merge: %s: not a results database written by this sweep (%s)", s->dir, why);
    long v = r.n ? (long)num(&r, 0, 0) : -1;
    sw_db_rows_free(&r);
    return v;
}

/* The config lines that decide the plan: every line but the machine-local
 * settings, which may differ from node to node. */
static char *plan_config(const char *config) {
    static const char *local[] = {"shard", "cpu", "out", "tmp", "bin-dir", "list", "valgrind", "sim-jobs", "progress"};
    sw_buf b = {0};
    const char *p = config;
    while (*p) {
        size_t len = strcspn(p, "\n");
        size_t name = strcspn(p, " =");
        int skip = 0;
        for (size_t i = 0; i < sizeof local / sizeof *local; i++)
            if (name == strlen(local[i]) && !strncmp(p, local[i], name))
                skip = 1;
        if (!skip) {
            sw_buf_append(&b, p, len);
            sw_buf_puts(&b, "\n");
        }
        p += len + (p[len] == '\n');
    }
    if (!b.data)
        sw_buf_puts(&b, "");
    return b.data;
}

/* The first line where two texts differ, for a message. */
static void first_difference(const char *a, const char *b, char *out, size_t size) {
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || strncmp(a, b, la)) {
            snprintf(out, size, "'%.*s' against '%.*s'", (int)la, a, (int)lb, b);
            return;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    snprintf(out, size, "(no difference)");
}

static void open_shard(shard_in *s, const char *dir) {
    s->dir = ct_xstrdup(dir);
    struct stat st;
    if (stat(dir, &st) != 0)
        sw_usage_error("merge: %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        sw_usage_error("merge: %s: not a directory (give each shard's sweep directory)", dir);
    char *path = sw_xasprintf("%s/results.db", dir);
    if (access(path, R_OK) != 0)
        sw_usage_error("merge: %s: no readable results.db there (%s)", dir, strerror(errno));
    char *why = NULL;
    if (sw_db_open_file_readonly(&s->db, path, &why) != 0)
        sw_usage_error("merge: cannot open %s: %s", path, why);
    free(path);
    q_long(s, "SELECT count(*) FROM meta, schedule, cells LIMIT 1");
    q_long(s, "SELECT count(node) FROM runs");
    char *shard = q_text(&s->db, "SELECT value FROM meta WHERE key = 'shard'", NULL);
    if (!shard)
        sw_usage_error("merge: %s is not a shard (it was not run with sweep --shard K/N)", dir);
    if (sw_opts_parse_shard(shard, &s->k, &s->n))
        sw_usage_error("merge: %s: meta.shard is '%s', not K/N", dir, shard);
    free(shard);
    s->config = q_text(&s->db, "SELECT value FROM meta WHERE key = 'config'", NULL);
    if (!s->config)
        sw_usage_error("merge: %s: results.db holds no stored config", dir);
    s->host = q_text(&s->db, "SELECT value FROM meta WHERE key = 'host'", NULL);
    if (!s->host)
        s->host = ct_xstrdup("unknown host");
}

/* Phase 1: one split: every shard of the same N, each K once, all of 1..N. */
static void check_split(shard_in *sh, int n) {
    int N = sh[0].n;
    for (int i = 0; i < n; i++) {
        if (sh[i].n != N)
            sw_usage_error("merge: %s is shard %d/%d but %s is shard %d/%d: not parts of the same split", sh[0].dir,
                           sh[0].k, sh[0].n, sh[i].dir, sh[i].k, sh[i].n);
        if (i && sh[i].k == sh[i - 1].k)
            sw_usage_error("merge: %s and %s are both shard %d/%d: a shard given twice would count its runs twice",
                           sh[i - 1].dir, sh[i].dir, sh[i].k, N);
    }
    if (n != N) {
        sw_buf miss = {0};
        for (int k = 1, i = 0; k <= N; k++) {
            while (i < n && sh[i].k < k)
                i++;
            if (i >= n || sh[i].k != k)
                sw_buf_printf(&miss, "%s%d", miss.len ? ", " : "", k);
        }
        sw_usage_error("merge: the sweep has %d shards but %d %s given; missing: shard %s", N, n, n == 1 ? "is" : "are",
                       miss.data);
    }
}

/* Phase 2: the same settings: seed and plan first, by name, then any line. */
static void check_settings(shard_in *sh, int n) {
    char *ref = plan_config(sh[0].config);
    for (int i = 1; i < n; i++) {
        char *c = plan_config(sh[i].config);
        if (strcmp(ref, c)) {
            char diff[512];
            first_difference(ref, c, diff, sizeof diff);
            sw_usage_error("merge: %s (shard %d) and %s (shard %d) were run with different settings: %s; shards of "
                           "one sweep share the seed and the plan",
                           sh[0].dir, sh[0].k, sh[i].dir, sh[i].k, diff);
        }
        free(c);
    }
    free(ref);
}

/* Phase 3: the same programs, by content. */
static void check_programs(shard_in *sh, int n) {
    for (int i = 0; i < n; i++) {
        sw_db_rows hashes = q_rows(&sh[i], "SELECT key, value FROM meta WHERE key LIKE 'sha256:%' ORDER BY key");
        int count = 0;
        for (int h = 0; h < hashes.n; h++) {
            const char *key = sw_db_at(&hashes, h, 0), *val = sw_db_at(&hashes, h, 1);
            count++;
            if (!val)
                val = "NULL";
            if (i == 0 && !strncmp(val, "none", 4))
                fprintf(stderr,
                        "sweep: merge: warning: shard %d has no hash of %s (%s): that program cannot be "
                        "compared between shards\n",
                        sh[i].k, key + 7, val);
            for (int j = 0; j < n; j++) {
                if (j == i)
                    continue;
                char *other = q_text(&sh[j].db, "SELECT value FROM meta WHERE key = ?", key);
                if (!other || strcmp(other, val))
                    sw_usage_error("merge: %s differs between shards: %s (shard %d, %s) has sha256 %.16s..., %s "
                                   "(shard %d, %s) %s%.16s%s: the shards ran different builds",
                                   key + 7, sh[i].dir, sh[i].k, sh[i].host, val, sh[j].dir, sh[j].k, sh[j].host,
                                   other ? "" : "none", other ? other : "", other ? "..." : "");
                free(other);
            }
        }
        sw_db_rows_free(&hashes);
        if (!count)
            sw_usage_error("merge: %s (shard %d) records no program hashes: cannot check that every shard ran the "
                           "same build",
                           sh[i].dir, sh[i].k);
    }
}

/* Phase 4: the plan rebuilt from the settings, and every shard's cells,
 * schedule and runs exactly its part of it, complete. */
static void check_contents(shard_in *sh, int n, sw_opts *o, sw_cell **cells_out, int *n_cells_out, sw_slot **slots_out,
                           int *n_slots_out) {
    sw_opts_defaults(o);
    sw_opts_parse_config(o, sh[0].config, "the shards' stored config");
    sw_opts_stored_defaults(o);
    if (!o->n_workloads)
        sw_usage_error("merge: %s: the stored config names no workloads", sh[0].dir);
    sw_cell *cells;
    int n_cells = sw_plan_cells(o, o->workloads, o->n_workloads, &cells);
    sw_slot *slots;
    int n_slots = sw_plan_schedule_all(o, cells, n_cells, &slots);
    sw_schedcheck(o, cells, n_cells, slots, n_slots);
    for (int i = 0; i < n; i++) {
        shard_in *s = &sh[i];
        char *where = sw_xasprintf("merge: %s (shard %d)", s->dir, s->k);
        char *plan = sw_xasprintf("the plan of its settings, shard %d of %d", s->k, s->n);
        int *owned = owned_cells(o, cells, n_cells, s->k, s->n);
        /* The same cells in every shard, its schedule exactly the plan's rows
         * of its groups, every run one of them (sw_verify.h). */
        sw_verify_cells(&s->db, where, cells, n_cells, owned, sw_opts_time_modes_legacy(o));
        sw_verify_schedule(&s->db, where, o, cells, n_cells, slots, n_slots, owned, 0, plan,
                           "not a shard of this sweep");
        sw_verify_runs(&s->db, where, o->design == SW_DESIGN_BLOCKED);
        free(owned), free(where), free(plan);
        /* Every planned run exactly once: runs are UNIQUE(seq), so each
         * schedule row has at most one; none may be missing. */
        long missing =
            q_long(s, "SELECT count(*) FROM schedule s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.seq = s.seq)");
        if (missing)
            sw_usage_error("merge: %s (shard %d, %s) misses %ld of its planned runs; finish it with: sweep --resume %s",
                           s->dir, s->k, s->host, missing, s->dir);
        char *status = q_text(&s->db, "SELECT value FROM meta WHERE key = 'status'", NULL);
        if (!status || strcmp(status, "complete"))
            sw_usage_error("merge: %s (shard %d) is not complete (status %s); finish it with: sweep --resume %s",
                           s->dir, s->k, status ? status : "unknown", s->dir);
        free(status);
    }
    *cells_out = cells;
    *n_cells_out = n_cells;
    *slots_out = slots;
    *n_slots_out = n_slots;
}

/* Every check that the shards make one sweep (sw_shard.h), phase by
 * phase; sh is sorted by K.  The plan, its cells and slots go to *o and
 * the outputs. */
static void check_shards(shard_in *sh, int n, sw_opts *o, sw_cell **cells_out, int *n_cells_out, sw_slot **slots_out,
                         int *n_slots_out) {
    check_split(sh, n);
    check_settings(sh, n);
    check_programs(sh, n);
    check_contents(sh, n, o, cells_out, n_cells_out, slots_out, n_slots_out);
}

static void exec_or_die(sw_db *db, const char *sql, const char *what) {
    char *err = NULL;
    if (sw_db_exec(db, sql, &err) != 0)
        sw_fatal("merge: %s: %s", what, err);
}

/* The rows of a query on the merged database (param as in sw_db_query). */
static sw_db_rows rows_or_die(sw_db *db, const char *sql, const char *param, const char *what) {
    sw_db_rows r;
    char *err = NULL;
    if (sw_db_query(db, sql, param, &r, &err) != 0)
        sw_fatal("merge: %s: %s", what, err);
    return r;
}

/* The columns of table t in the merged database, comma separated, with
 * prefix before each; without the column skip. */
static char *columns(sw_db *db, const char *t, const char *prefix, const char *skip) {
    char *sql = sw_xasprintf("PRAGMA main.table_info(%s)", t);
    sw_db_rows r = rows_or_die(db, sql, NULL, sql);
    sw_buf b = {0};
    for (int i = 0; i < r.n; i++) {
        const char *c = sw_db_at(&r, i, 1);
        if (skip && !strcmp(c, skip))
            continue;
        sw_buf_printf(&b, "%s%s%s", b.len ? ", " : "", prefix, c);
    }
    sw_db_rows_free(&r);
    free(sql);
    return b.data;
}

/* "INSERT INTO main.t(c...) SELECT c... FROM s.t" over the columns both
 * have, by name (fresh): a shard written before a column was added (the
 * cells' time_mode) copies into the newer schema, the column left NULL. */
static char *copy_shared(sw_db *db, const char *t) {
    char *sql = sw_xasprintf("SELECT group_concat(name, ', ') FROM pragma_table_info('%s', 's')"
                             " WHERE name IN (SELECT name FROM pragma_table_info('%s', 'main'))",
                             t, t);
    sw_db_rows r = rows_or_die(db, sql, NULL, "reading a shard's columns");
    const char *cols = r.n ? sw_db_at(&r, 0, 0) : NULL;
    char *copy = cols ? sw_xasprintf("INSERT INTO main.%s(%s) SELECT %s FROM s.%s;", t, cols, cols, t) : ct_xstrdup("");
    sw_db_rows_free(&r);
    free(sql);
    return copy;
}

static int cmp_shard(const void *a, const void *b) {
    const shard_in *x = a, *y = b;
    return x->k - y->k;
}

/* The merged meta: values every shard agrees on as they are; the others
 * per shard, or their earliest (started_utc) or latest (finished_utc). */
static void merge_meta(sw_db *d, shard_in *sh, int n, const char *out, const sw_opts *o, int n_cells, int n_slots) {
    exec_or_die(d, "CREATE TEMP TABLE allmeta AS SELECT shard, key, value FROM shard_meta WHERE key NOT IN ('shard')",
                "collecting meta");
    sw_db_rows keys = rows_or_die(d,
                                  "SELECT key, count(DISTINCT ifnull(value, '')), count(*), min(value), max(value)"
                                  " FROM allmeta GROUP BY key ORDER BY key",
                                  NULL, "meta");
    for (int r = 0; r < keys.n; r++) {
        const char *key = sw_db_at(&keys, r, 0);
        int distinct = atoi(sw_db_at(&keys, r, 1)), count = atoi(sw_db_at(&keys, r, 2));
        const char *lo = sw_db_at(&keys, r, 3), *hi = sw_db_at(&keys, r, 4);
        if (distinct == 1 && count == n) {
            sw_db_meta_set(d, key, lo);
        } else if (!strcmp(key, "started_utc")) {
            sw_db_meta_set(d, key, lo);
        } else if (!strcmp(key, "finished_utc")) {
            sw_db_meta_set(d, key, hi);
        } else {
            sw_buf b = {0};
            sw_db_rows per =
                rows_or_die(d, "SELECT shard, value FROM allmeta WHERE key = ? ORDER BY shard", key, "meta");
            for (int i = 0; i < per.n; i++) {
                int k = atoi(sw_db_at(&per, i, 0));
                const char *v = sw_db_at(&per, i, 1);
                sw_buf_printf(&b, "%sshard %d (%s): %s", b.len ? "; " : "", k, sh[k - 1].host, v ? v : "");
            }
            sw_db_rows_free(&per);
            sw_db_meta_set(d, key, b.data ? b.data : "");
            sw_buf_free(&b);
        }
    }
    sw_db_rows_free(&keys);
    exec_or_die(d, "DROP TABLE temp.allmeta", "collecting meta");
    /* The merged sweep is the unsharded plan: its config without the shard. */
    sw_buf cfg = {0};
    for (const char *p = sh[0].config; *p;) {
        size_t len = strcspn(p, "\n");
        if (strncmp(p, "shard =", 7)) {
            sw_buf_append(&cfg, p, len);
            sw_buf_puts(&cfg, "\n");
        } else {
            sw_buf_puts(&cfg, "shard = none\n");
        }
        p += len + (p[len] == '\n');
    }
    sw_db_meta_set(d, "config", cfg.data ? cfg.data : "");
    sw_buf_free(&cfg);
    char *copy = ct_xstrdup(out);
    sw_db_meta_set(d, "sweep_id", basename(copy));
    free(copy);
    sw_db_meta_set(d, "status", "complete");
    sw_buf b = {0};
    sw_buf_printf(&b, "%d workloads, %d cells, %d warm-up + %d measured rounds, %d runs, design %s; workloads:",
                  o->n_workloads, n_cells, o->warmup, o->runs, n_slots, sw_design_name(o->design));
    for (int i = 0; i < o->n_workloads; i++)
        sw_buf_printf(&b, " %s", o->workloads[i]);
    sw_db_meta_set(d, "plan", b.data);
    b.len = 0;
    sw_buf_printf(&b, "%d", n);
    sw_db_meta_set(d, "shards", b.data);
    b.len = 0;
    for (int i = 0; i < n; i++) {
        char *abs = realpath(sh[i].dir, NULL);
        sw_buf_printf(&b, "%sshard %d/%d: %s (%s)", i ? "; " : "", sh[i].k, sh[i].n, abs ? abs : sh[i].dir, sh[i].host);
        free(abs);
    }
    sw_db_meta_set(d, "merged_from", b.data);
    b.len = 0;
    sw_db_rows nodes;
    char *err = NULL;
    if (sw_db_query(d, "SELECT DISTINCT node FROM runs ORDER BY node", NULL, &nodes, &err) == 0)
        for (int i = 0; i < nodes.n; i++)
            sw_buf_printf(&b, "%s%s", b.len ? ", " : "", sw_db_at(&nodes, i, 0) ? sw_db_at(&nodes, i, 0) : "unknown");
    sw_db_rows_free(&nodes);
    free(err);
    sw_db_meta_set(d, "nodes", b.data ? b.data : "none");
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    sw_db_meta_set(d, "merged_utc", when);
    sw_buf_free(&b);
}

/* events: one row per event; supported when some shard counted it, the
 * reason naming the shards that did not. */
static void merge_events(sw_db *d) {
    exec_or_die(d,
                "INSERT INTO main.events(event, supported, reason, encoding)"
                " SELECT event, max(supported),"
                "  CASE WHEN min(supported) = max(supported) THEN min(reason)"
                "   ELSE 'not counted on ' || group_concat(CASE WHEN supported = 0 THEN host || ': ' || reason END,"
                "   '; ') END,"
                "  max(encoding) FROM temp.allevents GROUP BY event ORDER BY event",
                "merging the events");
}

/* Phase 1: the shard directories opened (each a shard's results.db,
 * read-only), sorted by K. */
static shard_in *open_shards(char **dirs, int n) {
    shard_in *sh = ct_xcalloc((size_t)n, sizeof *sh);
    for (int i = 0; i < n; i++)
        open_shard(&sh[i], dirs[i]);
    qsort(sh, (size_t)n, sizeof *sh, cmp_shard);
    return sh;
}

/* Phase 3: every shard's rows copied into db in two passes: the runs' ids
 * first (the merged ids follow the runs' start times, temp.idmap), then the
 * cells (shard 1's, with every shard's sizes), schedules, runs and what
 * hangs off them, calibrations, meta and events. */
static void copy_shards(sw_db *db, shard_in *sh, int n) {
    char *run_cols = columns(db, "runs", "", "run_id");
    char *run_cols_r = columns(db, "runs", "r.", "run_id");
    char *seg_cols = columns(db, "segments", "", "run_id"), *seg_cols_x = columns(db, "segments", "x.", "run_id");
    exec_or_die(db,
                "CREATE TEMP TABLE ids(shard INTEGER, old INTEGER, started INTEGER, seq INTEGER);"
                " CREATE TEMP TABLE allevents(host TEXT, event TEXT, supported INTEGER, reason TEXT, encoding TEXT)",
                "preparing");
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            char *dbpath = sw_xasprintf("%s/results.db", sh[i].dir);
            char *err = NULL;
            if (sw_db_query(db, "ATTACH DATABASE ? AS s", dbpath, NULL, &err) != 0)
                sw_fatal("merge: cannot attach %s: %s", dbpath, err);
            exec_or_die(db, "BEGIN", "starting a transaction");
            char *sql;
            if (pass == 0) {
                /* Ids first: the merged run ids follow the runs' start times. */
                sql = sw_xasprintf("INSERT INTO temp.ids(shard, old, started, seq) SELECT %d, run_id, started_ns, seq"
                                   " FROM s.runs",
                                   sh[i].k);
                exec_or_die(db, sql, "reading the runs");
                free(sql);
            } else {
                if (i == 0) {
                    char *cells_sql = copy_shared(db, "cells");
                    exec_or_die(db, cells_sql, "copying the cells");
                    free(cells_sql);
                }
                /* By the columns both have, like the cells. */
                char *cal = copy_shared(db, "calibration"), *probes = copy_shared(db, "calibration_probes"),
                     *native = copy_shared(db, "sim_native");
                sql = sw_xasprintf(
                    "UPDATE main.cells SET size = (SELECT c.size FROM s.cells c WHERE c.cell_id = main.cells.cell_id)"
                    " WHERE cell_id IN (SELECT cell_id FROM s.schedule);"
                    " INSERT INTO main.schedule(seq, cell_id, round, block, block_pos, block_role, replicate)"
                    "  SELECT seq, cell_id, round, block, block_pos, block_role, replicate FROM s.schedule;"
                    " INSERT INTO main.runs(run_id, %s) SELECT m.new, %s FROM s.runs r JOIN temp.idmap m"
                    "  ON m.shard = %d AND m.old = r.run_id;"
                    " INSERT INTO main.run_stats(run_id, key, value) SELECT m.new, x.key, x.value FROM s.run_stats x"
                    "  JOIN temp.idmap m ON m.shard = %d AND m.old = x.run_id;"
                    " INSERT INTO main.run_counters(run_id, event, raw, time_enabled, time_running, scaled)"
                    "  SELECT m.new, x.event, x.raw, x.time_enabled, x.time_running, x.scaled FROM s.run_counters x"
                    "  JOIN temp.idmap m ON m.shard = %d AND m.old = x.run_id;"
                    " INSERT INTO main.segments(run_id, %s) SELECT m.new, %s FROM s.segments x"
                    "  JOIN temp.idmap m ON m.shard = %d AND m.old = x.run_id;"
                    " %s %s %s"
                    " INSERT INTO main.shard_meta(shard, key, value) SELECT %d, key, value FROM s.meta;"
                    " INSERT INTO temp.allevents SELECT '%d', event, supported, reason, encoding FROM s.events",
                    run_cols, run_cols_r, sh[i].k, sh[i].k, sh[i].k, seg_cols, seg_cols_x, sh[i].k, cal, probes, native,
                    sh[i].k, sh[i].k);
                char *what = sw_xasprintf("copying shard %d (%s)", sh[i].k, sh[i].dir);
                exec_or_die(db, sql, what);
                free(what);
                free(sql);
                free(cal), free(probes), free(native);
            }
            exec_or_die(db, "COMMIT", "committing");
            exec_or_die(db, "DETACH DATABASE s", "detaching a shard");
            free(dbpath);
        }
        if (pass == 0)
            exec_or_die(db,
                        "CREATE TEMP TABLE idmap AS SELECT shard, old, row_number() OVER (ORDER BY started, seq)"
                        " AS new FROM temp.ids; CREATE UNIQUE INDEX temp.idmap_old ON idmap(shard, old)",
                        "numbering the runs");
    }
    free(run_cols), free(run_cols_r), free(seg_cols), free(seg_cols_x);
}

/* The events' shards by host name, for the reasons. */
static void name_event_hosts(sw_db *db, shard_in *sh, int n) {
    for (int i = 0; i < n; i++) {
        char *sql = sw_xasprintf("UPDATE temp.allevents SET host = 'shard %d (' || ? || ')' WHERE host = '%d'", sh[i].k,
                                 sh[i].k);
        char *err = NULL;
        if (sw_db_query(db, sql, sh[i].host, NULL, &err) != 0)
            sw_fatal("merge: naming the shards' hosts: %s", err);
        free(sql);
    }
}

int sw_shard_merge(int argc, char **argv) {
    if (argc < 2)
        sw_usage_error("merge: usage: sweep --merge OUT DIR... (OUT: a new directory; DIR: every shard's sweep "
                       "directory, one per shard)");
    const char *out = argv[0];
    struct stat st;
    if (lstat(out, &st) == 0)
        sw_usage_error("merge: %s exists; the merged sweep goes into a new directory", out);
    int n = argc - 1;
    shard_in *sh = open_shards(argv + 1, n);
    /* Phase 2: every check (nothing is created before they all pass). */
    sw_opts o;
    sw_cell *cells;
    sw_slot *slots;
    int n_cells, n_slots;
    check_shards(sh, n, &o, &cells, &n_cells, &slots, &n_slots);

    /* Every check passed: write the merged sweep. */
    if (mkdir(out, 0777) != 0)
        sw_usage_error("merge: cannot create %s: %s", out, strerror(errno));
    merge_out = ct_xstrdup(out);
    sw_set_exit_hook(remove_partial);
    sw_db d;
    sw_db_create(&d, out);
    sw_db *db = &d;
    copy_shards(db, sh, n);
    name_event_hosts(db, sh, n);
    /* Phase 4: the merged cells' modes, events and meta; every planned run there. */
    /* The cells of a shard from before the time_mode column: their modes
     * from the plan, as a --resume of it gives them (sw_db_fill_time_modes). */
    sw_db_fill_time_modes(&d, cells, n_cells);
    exec_or_die(db, "BEGIN", "starting a transaction");
    merge_events(&d);
    merge_meta(&d, sh, n, out, &o, n_cells, n_slots);
    exec_or_die(db, "COMMIT", "committing");
    long total = sw_db_count(db, "runs");
    if (total != n_slots)
        sw_fatal("merge: the merged sweep holds %ld runs, its plan %d", total, n_slots);
    char *csv = sw_xasprintf("%s/runs.csv", out);
    if (sw_db_export_csv(&d, csv) < 0)
        sw_fatal("merge: cannot write %s", csv);
    sw_db_close(&d);
    merge_out = NULL;
    sw_set_exit_hook(NULL);
    sw_buf nodes = {0};
    for (int i = 0; i < n; i++)
        sw_buf_printf(&nodes, "%s%s", i ? ", " : "", sh[i].host);
    fprintf(stderr, "sweep: merged %d shards (%s): %d cells, %ld runs, every planned run once\n", n, nodes.data,
            n_cells, total);
    printf("results: %s/results.db and %s\n", out, csv);
    sw_buf_free(&nodes);
    free(csv);
    for (int i = 0; i < n; i++) {
        sw_db_close_readonly(&sh[i].db);
        free(sh[i].dir), free(sh[i].config), free(sh[i].host);
    }
    free(sh);
    free(slots);
    sw_plan_free_cells(cells, n_cells);
    sw_opts_free(&o);
    return 0;
}

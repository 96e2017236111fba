/* st_db.c - reads results.db (cells, measured runs, stats keys, supported counters, meta). */
#include "st_db.h"
#include "st_util.h"
#include "sgc_statsrec.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The schema the harness creates: contracts/schema.sql, embedded at build time. */
#include "schema_sql.h"

const char *st_schema_sql(void) { return fc_schema_sql; }

#define KEY_NAME(key, type, value, what) #key,
static const char *const key_names[ST_NKEYS] = {SGC_STATS_KEYS(KEY_NAME)};
#undef KEY_NAME

const char *st_key_name(st_key k) { return key_names[k]; }

/* Loader state: the open database and where errors go. */
typedef struct loader {
    sqlite3 *db;
    const char *path; /* DIR/results.db, for messages */
    char *err;
    size_t errlen;
    long bad_run;                /* the first ok run whose record breaks the rules (sgc_statsrec.h), or -1 */
    sgc_statsrec_error bad_rule; /* the rule it breaks */
} loader;

static int fail(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(loader *L, const char *fmt, ...) {
    va_list ap;
    int n = snprintf(L->err, L->errlen, "%s: ", L->path);
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < L->errlen)
        vsnprintf(L->err + n, L->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return 2;
}

/* Explains an SQLite error in terms of the sweep: a database that is not
 * one, a corrupt one, or one without the documented tables or columns. */
static int fail_sql(loader *L, const char *what) {
    int code = sqlite3_errcode(L->db);
    const char *msg = sqlite3_errmsg(L->db);
    if (code == SQLITE_NOTADB)
        return fail(L, "not an SQLite database (%s): DIR is not a freecheck sweep", msg);
    if (code == SQLITE_CORRUPT)
        return fail(L, "the database is corrupt (%s)", msg);
    if (strstr(msg, "no such table") || strstr(msg, "no such column"))
        return fail(L, "%s while reading %s: not a freecheck results database (see docs/FORMATS.md)", msg, what);
    return fail(L, "cannot read %s: %s", what, msg);
}

static int prepare(loader *L, const char *sql, sqlite3_stmt **st, const char *what) {
    if (sqlite3_prepare_v2(L->db, sql, -1, st, NULL) != SQLITE_OK)
        return fail_sql(L, what);
    return 0;
}

static int table_exists(loader *L, const char *name) {
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(L->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        found = 1;
    else if (rc != SQLITE_DONE)
        found = -1;
    sqlite3_finalize(st);
    return found;
}

static int column_exists(loader *L, const char *table, const char *column) {
    char sql[128];
    sqlite3_stmt *st;
    int found = 0;
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    if (sqlite3_prepare_v2(L->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 1);
        if (name && strcmp((const char *)name, column) == 0)
            found = 1;
    }
    sqlite3_finalize(st);
    return found;
}

static char *text_or_empty(sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    return ct_xstrdup(t ? (const char *)t : "");
}

static double real_or_nan(sqlite3_stmt *st, int col) {
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_INTEGER: return (double)sqlite3_column_int64(st, col);
    case SQLITE_FLOAT: return sqlite3_column_double(st, col);
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_column_text(st, col);
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || *end || errno)
            return NAN;
        return v;
    }
    default: return NAN;
    }
}

/* Reads "--depth N" or "--depth=N" out of a workload argument string. */
static double depth_from_args(const char *args) {
    const char *p = strstr(args, "--depth");
    if (!p)
        return NAN;
    p += strlen("--depth");
    if (*p == '=' || *p == ' ')
        p++;
    char *end;
    double v = strtod(p, &end);
    return end == p ? NAN : v;
}

static int cmp_cell(const void *a, const void *b) {
    int64_t x = ((const st_cell *)a)->cell_id, y = ((const st_cell *)b)->cell_id;
    return (x > y) - (x < y);
}

/* The mode of an older sweep's time cells: its --env SGC_TIME_MODE (in the
 * meta table's env, "NAME=VALUE" items separated by spaces), else signal. */
static const char *legacy_time_mode(loader *L) {
    static const char *const names[] = {"signal", "thread"};
    const char *mode = names[0];
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(L->db, "SELECT value FROM meta WHERE key = 'env'", -1, &q, NULL) != SQLITE_OK)
        return mode;
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) {
        const char *env = (const char *)sqlite3_column_text(q, 0), *at = strstr(env, "SGC_TIME_MODE=");
        for (size_t i = 0; at && i < sizeof names / sizeof *names; i++) {
            size_t n = strlen(names[i]);
            if (!strncmp(at + 14, names[i], n) && (at[14 + n] == '\0' || at[14 + n] == ' ' || at[14 + n] == ','))
                mode = names[i];
        }
    }
    sqlite3_finalize(q);
    return mode;
}

static int load_cells(loader *L, st_sweep *sw) {
    sqlite3_stmt *st;
    int depth_col = column_exists(L, "cells", "depth");
    int args_col = !depth_col && column_exists(L, "cells", "args");
    /* The simulated cells (backend 'sim') are st_sim's, not this analysis's. */
    int backend_col = column_exists(L, "cells", "backend");
    /* The time sampler's mode (cells.time_mode); a sweep from before the
     * column, or a cell stored there as NULL, ran its time cells in the one
     * mode its --env SGC_TIME_MODE gave, else signal (docs/HARNESS.md). */
    int mode_col = column_exists(L, "cells", "time_mode");
    const char *sql = depth_col  ? "SELECT cell_id, workload, kind, alloc_period, alloc_mode, time_hz, "
                                   "time_clock, size, label, %s, depth FROM cells %s ORDER BY cell_id"
                      : args_col ? "SELECT cell_id, workload, kind, alloc_period, alloc_mode, time_hz, "
                                   "time_clock, size, label, %s, args FROM cells %s ORDER BY cell_id"
                                 : "SELECT cell_id, workload, kind, alloc_period, alloc_mode, time_hz, "
                                   "time_clock, size, label, %s FROM cells %s ORDER BY cell_id";
    char sqlbuf[512];
    snprintf(sqlbuf, sizeof sqlbuf, sql, mode_col ? "time_mode" : "NULL",
             backend_col ? "WHERE backend IS NOT 'sim'" : "");
    const char *legacy = legacy_time_mode(L);
    sql = sqlbuf;
    if (prepare(L, sql, &st, "the cells"))
        return 2;
    size_t cap = 16;
    sw->cells = ct_xmalloc(cap * sizeof *sw->cells);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sw->ncells == cap)
            sw->cells = ct_xrealloc(sw->cells, (cap *= 2) * sizeof *sw->cells);
        st_cell *c = &sw->cells[sw->ncells++];
        memset(c, 0, sizeof *c);
        c->cell_id = sqlite3_column_int64(st, 0);
        c->workload = text_or_empty(st, 1);
        c->kind = text_or_empty(st, 2);
        c->alloc_period = sqlite3_column_int64(st, 3);
        c->alloc_mode = text_or_empty(st, 4);
        c->time_hz = sqlite3_column_int64(st, 5);
        c->time_clock = text_or_empty(st, 6);
        c->size = sqlite3_column_int64(st, 7);
        c->label = text_or_empty(st, 8);
        c->time_mode = !c->time_hz                                 ? ct_xstrdup("")
                       : sqlite3_column_type(st, 9) == SQLITE_NULL ? ct_xstrdup(legacy)
                                                                   : text_or_empty(st, 9);
        c->depth = NAN;
        if (depth_col)
            c->depth = real_or_nan(st, 10);
        else if (args_col && sqlite3_column_text(st, 10))
            c->depth = depth_from_args((const char *)sqlite3_column_text(st, 10));
        if (!isnan(c->depth))
            sw->has_depth = 1;
    }
    if (rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return fail_sql(L, "the cells");
    }
    sqlite3_finalize(st);
    if (sw->ncells == 0) {
        sqlite3_stmt *q;
        int sim_cells = backend_col && sqlite3_prepare_v2(L->db, "SELECT 1 FROM cells WHERE backend = 'sim'", -1, &q,
                                                          NULL) == SQLITE_OK;
        if (sim_cells) {
            sim_cells = sqlite3_step(q) == SQLITE_ROW;
            sqlite3_finalize(q);
        }
        if (!sim_cells)
            return fail(L, "the sweep has no cells: nothing was planned (is the sweep still starting?)");
        sw->sim_only = 1;
    }
    qsort(sw->cells, sw->ncells, sizeof *sw->cells, cmp_cell);
    return 0;
}

static st_cell *find_cell(st_sweep *sw, int64_t id) {
    st_cell key = {.cell_id = id};
    return bsearch(&key, sw->cells, sw->ncells, sizeof *sw->cells, cmp_cell);
}

/* run_id -> index in sw->runs, sorted by run_id for bsearch. */
typedef struct run_ref {
    int64_t run_id;
    size_t index;
} run_ref;

static int cmp_ref(const void *a, const void *b) {
    int64_t x = ((const run_ref *)a)->run_id, y = ((const run_ref *)b)->run_id;
    return (x > y) - (x < y);
}

static long find_run(const run_ref *refs, size_t n, int64_t id) {
    run_ref key = {id, 0};
    const run_ref *r = bsearch(&key, refs, n, sizeof *refs, cmp_ref);
    return r ? (long)r->index : -1;
}

static int load_runs(loader *L, st_sweep *sw, size_t *orphans) {
    sqlite3_stmt *st;
    /* The harness's optional block and noise columns (docs/HARNESS.md). */
    int blocks = 0, noise = 0;
    if (sqlite3_prepare_v2(L->db, "SELECT block, block_role FROM runs LIMIT 0", -1, &st, NULL) == SQLITE_OK) {
        blocks = 1;
        sqlite3_finalize(st);
    }
    if (sqlite3_prepare_v2(L->db, "SELECT steal_ns, other_busy_ns, nivcsw, minflt, loadavg1 FROM runs LIMIT 0", -1, &st,
                           NULL) == SQLITE_OK) {
        noise = 1;
        sqlite3_finalize(st);
    }
    char sql[512];
    snprintf(
        sql, sizeof sql,
        "SELECT run_id, cell_id, round, status, wall_ns, user_ns, sys_ns, maxrss_kb, failure, seq, %s, %s "
        "FROM runs WHERE round > 0 AND cell_id NOT IN (SELECT cell_id FROM sim_cells) ORDER BY cell_id, round, run_id",
        blocks ? "block, block_role" : "NULL, NULL",
        noise ? "steal_ns, other_busy_ns, nivcsw, minflt, loadavg1" : "NULL, NULL, NULL, NULL, NULL");
    if (prepare(L, sql, &st, "the runs"))
        return 2;
    size_t cap = 64;
    sw->runs = ct_xmalloc(cap * sizeof *sw->runs);
    st_cell *cur = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t cell_id = sqlite3_column_int64(st, 1);
        if (!cur || cur->cell_id != cell_id) {
            cur = find_cell(sw, cell_id);
            if (cur)
                cur->first_run = sw->nruns;
        }
        if (!cur) {
            (*orphans)++;
            continue;
        }
        if (sw->nruns == cap)
            sw->runs = ct_xrealloc(sw->runs, (cap *= 2) * sizeof *sw->runs);
        st_run *r = &sw->runs[sw->nruns++];
        r->run_id = sqlite3_column_int64(st, 0);
        r->round = sqlite3_column_int64(st, 2);
        const unsigned char *status = sqlite3_column_text(st, 3);
        r->wall_ns = real_or_nan(st, 4);
        r->user_ns = real_or_nan(st, 5);
        r->sys_ns = real_or_nan(st, 6);
        r->maxrss_kb = real_or_nan(st, 7);
        r->seq = sqlite3_column_int64(st, 9);
        r->block = sqlite3_column_type(st, 10) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 10);
        r->role = sqlite3_column_int(st, 11);
        r->steal_ns = real_or_nan(st, 12);
        r->other_busy_ns = real_or_nan(st, 13);
        r->nivcsw = real_or_nan(st, 14);
        r->minflt = real_or_nan(st, 15);
        r->loadavg1 = real_or_nan(st, 16);
        for (int k = 0; k < ST_NKEYS; k++)
            r->key[k] = NAN;
        r->status_ok = status && strcmp((const char *)status, "ok") == 0;
        r->used = r->status_ok && r->wall_ns > 0;
        r->failure = NULL;
        if (!r->used) {
            const unsigned char *why = sqlite3_column_text(st, 8);
            r->failure = ct_xstrdup(why                                                 ? (const char *)why
                                    : status && strcmp((const char *)status, "ok") == 0 ? "no wall time recorded"
                                                                                        : "no reason recorded");
        }
        cur->nruns++;
        if (r->used)
            cur->used++;
        else
            cur->failed++;
    }
    if (rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return fail_sql(L, "the runs");
    }
    sqlite3_finalize(st);
    return 0;
}

/* bsearch over key indices sorted by name: a is the name sought. */
static int cmp_key_name(const void *a, const void *b) { return strcmp((const char *)a, key_names[*(const int *)b]); }

static int cmp_key_index(const void *a, const void *b) {
    return strcmp(key_names[*(const int *)a], key_names[*(const int *)b]);
}

/* Judges the record of run i (its n keys and values) by the stats record's
 * rules (runtime/sgc_statsrec.h), the harness's own: an ok run's record
 * that breaks one is kept in L->bad_run for check_values, which names its
 * cell.  No key is required: sweeps of older versions, and the tests'
 * databases, hold fewer keys (a missing key is a missing value).  A failed
 * run's record is not judged: the harness may have failed it for exactly
 * that, and it is not analysed. */
static void judge_record(loader *L, const st_sweep *sw, long i, char **keys, char **values, int n) {
    if (i < 0 || L->bad_run >= 0 || !sw->runs[i].status_ok)
        return;
    if (sgc_statsrec_judge((const char *const *)keys, (const char *const *)values, NULL, n, 0, &L->bad_rule) != 0)
        L->bad_run = i;
}

static int load_stats(loader *L, st_sweep *sw, const run_ref *refs) {
    int order[ST_NKEYS];
    for (int k = 0; k < ST_NKEYS; k++)
        order[k] = k;
    qsort(order, ST_NKEYS, sizeof *order, cmp_key_index);
    sqlite3_stmt *st;
    if (prepare(L,
                "SELECT s.run_id, s.key, s.value FROM run_stats s JOIN runs r ON r.run_id = s.run_id "
                "WHERE r.round > 0 ORDER BY s.run_id",
                &st, "the stats records (run_stats)"))
        return 2;
    /* One run's record at a time (the rows come by run), for judge_record. */
    int n = 0, cap = 64;
    char **keys = ct_xmalloc((size_t)cap * sizeof *keys), **values = ct_xmalloc((size_t)cap * sizeof *values);
    long cur = -1;
    int64_t cur_id = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (n && id != cur_id) {
            judge_record(L, sw, cur, keys, values, n);
            for (int j = 0; j < n; j++)
                free(keys[j]), free(values[j]);
            n = 0;
        }
        cur_id = id;
        long i = cur = find_run(refs, sw->nruns, id);
        const char *key = (const char *)sqlite3_column_text(st, 1);
        if (i < 0 || !key)
            continue;
        const char *value = (const char *)sqlite3_column_text(st, 2);
        if (n == cap) {
            cap *= 2;
            keys = ct_xrealloc(keys, (size_t)cap * sizeof *keys);
            values = ct_xrealloc(values, (size_t)cap * sizeof *values);
        }
        keys[n] = ct_xstrdup(key);
        values[n++] = ct_xstrdup(value ? value : "");
        const int *hit = bsearch(key, order, ST_NKEYS, sizeof *order, cmp_key_name);
        if (hit)
            sw->runs[i].key[*hit] = real_or_nan(st, 2);
    }
    if (n)
        judge_record(L, sw, cur, keys, values, n);
    for (int j = 0; j < n; j++)
        free(keys[j]), free(values[j]);
    free(keys);
    free(values);
    if (rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return fail_sql(L, "the stats records (run_stats)");
    }
    sqlite3_finalize(st);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int load_counters(loader *L, st_sweep *sw, const run_ref *refs) {
    int have_events = table_exists(L, "events"), have_counters = table_exists(L, "run_counters");
    if (have_events < 0 || have_counters < 0)
        return fail_sql(L, "the table list");
    if (!have_events || !have_counters) {
        snprintf(sw->warning, sizeof sw->warning, "%s: no %s table: counters are not analysed", L->path,
                 !have_events ? "events" : "run_counters");
        return 0;
    }
    sqlite3_stmt *st;
    if (prepare(L, "SELECT event FROM events WHERE supported != 0 AND event NOT LIKE 'sim::%' ORDER BY event", &st,
                "the events"))
        return 2;
    size_t cap = 8;
    sw->events = ct_xmalloc(cap * sizeof *sw->events);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sw->nevents == cap)
            sw->events = ct_xrealloc(sw->events, (cap *= 2) * sizeof *sw->events);
        sw->events[sw->nevents++] = text_or_empty(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return fail_sql(L, "the events");
    /* ORDER BY uses SQLite's collation; re-sort with strcmp for bsearch. */
    qsort(sw->events, sw->nevents, sizeof *sw->events, cmp_str);
    size_t total = sw->nruns * sw->nevents;
    sw->counter = ct_xmalloc((total ? total : 1) * sizeof *sw->counter);
    for (size_t i = 0; i < total; i++)
        sw->counter[i] = NAN;
    if (sw->nevents == 0)
        return 0;
    if (prepare(L,
                "SELECT c.run_id, c.event, c.scaled FROM run_counters c JOIN runs r ON r.run_id = c.run_id "
                "WHERE r.round > 0",
                &st, "the counters (run_counters)"))
        return 2;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long i = find_run(refs, sw->nruns, sqlite3_column_int64(st, 0));
        const char *ev = (const char *)sqlite3_column_text(st, 1);
        if (i < 0 || !ev)
            continue;
        char **hit = bsearch(&ev, sw->events, sw->nevents, sizeof *sw->events, cmp_str);
        if (hit)
            sw->counter[(size_t)i * sw->nevents + (size_t)(hit - sw->events)] = real_or_nan(st, 2);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return fail_sql(L, "the counters (run_counters)");
    return 0;
}

/* The harness's schedule (optional, docs/HARNESS.md): planned measured runs. */
static int load_planned(loader *L, st_sweep *sw) {
    sw->planned = -1;
    int have = table_exists(L, "schedule");
    if (have <= 0)
        return have < 0 ? fail_sql(L, "the table list") : 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(L->db,
                           "SELECT COUNT(*) FROM schedule WHERE round > 0 AND cell_id NOT IN "
                           "(SELECT cell_id FROM sim_cells)",
                           -1, &st, NULL) != SQLITE_OK)
        return 0; /* not the documented form: ignore it, it is optional */
    if (sqlite3_step(st) == SQLITE_ROW)
        sw->planned = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

static int load_meta(loader *L, st_sweep *sw) {
    int have = table_exists(L, "meta");
    if (have <= 0)
        return have < 0 ? fail_sql(L, "the table list") : 0;
    sqlite3_stmt *st;
    if (prepare(L, "SELECT key, value FROM meta ORDER BY key", &st, "the metadata (meta)"))
        return 2;
    size_t cap = 16;
    sw->meta_key = ct_xmalloc(cap * sizeof(char *));
    sw->meta_value = ct_xmalloc(cap * sizeof(char *));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sw->nmeta == cap) {
            cap *= 2;
            sw->meta_key = ct_xrealloc(sw->meta_key, cap * sizeof(char *));
            sw->meta_value = ct_xrealloc(sw->meta_value, cap * sizeof(char *));
        }
        sw->meta_key[sw->nmeta] = text_or_empty(st, 0);
        sw->meta_value[sw->nmeta] = text_or_empty(st, 1);
        sw->nmeta++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return fail_sql(L, "the metadata (meta)");
    return 0;
}

/* SQLite's own check of the file's structure (pages, b-trees, records),
 * before anything is read: a damaged file can otherwise read as different
 * numbers without any error. */
static int check_integrity(loader *L) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(L->db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
        return fail_sql(L, "the database (PRAGMA quick_check)");
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return fail_sql(L, "the database (PRAGMA quick_check)");
    }
    const char *res = (const char *)sqlite3_column_text(st, 0);
    if (!res || strcmp(res, "ok") != 0) {
        int r = fail(L,
                     "the database is damaged (SQLite's PRAGMA quick_check: %.200s); its numbers cannot be "
                     "trusted: rerun the sweep, or restore the file",
                     res ? res : "no answer");
        sqlite3_finalize(st);
        return r;
    }
    sqlite3_finalize(st);
    return 0;
}

/* A wall time above this (one day) for one run is not a measurement. */
#define ST_MAX_WALL_NS 86400e9

/* Values no sweep can produce (docs/FORMATS.md): a damaged or edited
 * database.  Each is refused with the run or cell it is in, rather than
 * analysed into different numbers.  Missing values (NaN) are not checked
 * here: the analysis treats them as missing. */
static int check_values(loader *L, const st_sweep *sw) {
    for (size_t i = 0; i < sw->ncells; i++) {
        const st_cell *c = &sw->cells[i];
        int alloc = strstr(c->kind, "alloc") != NULL, time = strstr(c->kind, "time") != NULL;
        if (strcmp(c->kind, "baseline") && strcmp(c->kind, "alloc") && strcmp(c->kind, "time") &&
            strcmp(c->kind, "alloc+time"))
            return fail(L, "cell %lld (%s): unknown kind '%s' (expected baseline, alloc, time or alloc+time)",
                        (long long)c->cell_id, c->label, c->kind);
        if (alloc && c->alloc_period <= 0)
            return fail(L,
                        "cell %lld (%s): an allocation sampling cell with period %lld: impossible "
                        "(the database is damaged or was edited)",
                        (long long)c->cell_id, c->label, (long long)c->alloc_period);
        if (time && c->time_hz <= 0)
            return fail(L,
                        "cell %lld (%s): a time sampling cell with rate %lld Hz: impossible "
                        "(the database is damaged or was edited)",
                        (long long)c->cell_id, c->label, (long long)c->time_hz);
        if (!alloc && c->alloc_period != 0)
            return fail(L,
                        "cell %lld (%s): a %s cell with allocation period %lld: impossible "
                        "(the database is damaged or was edited)",
                        (long long)c->cell_id, c->label, c->kind, (long long)c->alloc_period);
        for (size_t j = c->first_run; j < c->first_run + c->nruns; j++) {
            const st_run *r = &sw->runs[j];
#define IMPOSSIBLE(fmt, ...)                                                                                      \
    return fail(L, "run %lld (cell %s, round %lld): " fmt ": impossible (the database is damaged or was edited)", \
                (long long)r->run_id, c->label, (long long)r->round, __VA_ARGS__)
#define IMPOSSIBLE_RULE(rule)                                                                                         \
    return fail(L, "run %lld (cell %s, round %lld): %s the database is damaged or was edited)", (long long)r->run_id, \
                c->label, (long long)r->round, rule)
            if (r->status_ok && !isnan(r->wall_ns) && (r->wall_ns <= 0 || r->wall_ns > ST_MAX_WALL_NS))
                IMPOSSIBLE("wall time %.0f ns", r->wall_ns);
            if (r->user_ns < 0 || r->sys_ns < 0 || r->maxrss_kb < 0)
                IMPOSSIBLE("negative CPU time or memory (user %.0f ns, sys %.0f ns, maxrss %.0f KiB)", r->user_ns,
                           r->sys_ns, r->maxrss_kb);
            /* The record's own rules, the harness's (judge_record); then
             * what it must agree on with its cell.  A failed run's record
             * is neither judged nor analysed: the harness may have failed
             * it for exactly this. */
            char rule[512];
            snprintf(rule, sizeof rule, "%s%s: impossible (%s;",
                     L->bad_rule.kind == SGC_STATSREC_VALUE ? "stats record " : "", L->bad_rule.what, L->bad_rule.why);
            /* A value that is not one first; values that cannot go together
             * after what the cell says (samples with sampling off). */
            if ((long)j == L->bad_run && L->bad_rule.kind != SGC_STATSREC_CONSISTENCY)
                IMPOSSIBLE_RULE(rule);
            if (!r->status_ok)
                continue;
            double samples = r->key[ST_K_alloc_samples], period = r->key[ST_K_alloc_period];
            double tsamples = r->key[ST_K_time_samples];
            if (!alloc && samples > 0)
                IMPOSSIBLE("%.0f allocation samples with allocation sampling off", samples);
            if (!time && tsamples > 0)
                IMPOSSIBLE("%.0f time samples with time sampling off", tsamples);
            /* The timer cannot fire faster than its rate; twice the rate
             * over the whole run, plus 100, is far beyond any jitter. */
            if (time && !isnan(r->wall_ns) && tsamples > 2.0 * (double)c->time_hz * r->wall_ns / 1e9 + 100)
                IMPOSSIBLE("%.0f time samples in %.3f s at %lld Hz", tsamples, r->wall_ns / 1e9, (long long)c->time_hz);
            if (!isnan(period) && period != (double)c->alloc_period)
                IMPOSSIBLE("the stats record's alloc_period %.0f is not the cell's %lld", period,
                           (long long)c->alloc_period);
            if ((long)j == L->bad_run)
                IMPOSSIBLE_RULE(rule);
#undef IMPOSSIBLE
#undef IMPOSSIBLE_RULE
        }
    }
    return 0;
}

int st_sweep_load(const char *dir, st_sweep *sw, char *err, size_t errlen) {
    memset(sw, 0, sizeof *sw);
    sw->planned = -1;
    sw->dir = ct_xstrdup(dir);
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        snprintf(err, errlen, "%s: %s (give the directory of a sweep, e.g. results/latest)", dir, strerror(errno));
        return 2;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a directory (give the directory of a sweep, e.g. results/latest)", dir);
        return 2;
    }
    size_t plen = strlen(dir) + sizeof "/results.db";
    char *path = ct_xmalloc(plen);
    snprintf(path, plen, "%s/results.db", dir);
    loader L = {NULL, path, err, errlen, -1, {0}};
    int rc = 0;
    if (stat(path, &sb) != 0) {
        rc =
            fail(&L, "%s: %s is not a sweep directory (build/bin/sweep writes results.db there)", strerror(errno), dir);
        goto out;
    }
    if (!S_ISREG(sb.st_mode)) {
        rc = fail(&L, "not a regular file");
        goto out;
    }
    if (sqlite3_open_v2(path, &L.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        rc = fail(&L, "cannot open: %s", L.db ? sqlite3_errmsg(L.db) : "out of memory");
        goto out;
    }
    sqlite3_busy_timeout(L.db, 10000);
    /* One read transaction: a sweep being written is read at one point. */
    if (sqlite3_exec(L.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        rc = fail_sql(&L, "the database");
        goto out;
    }
    /* The simulated cells, which this loader leaves to st_sim (none in a
     * sweep from before the backend column). */
    if (sqlite3_exec(L.db,
                     column_exists(&L, "cells", "backend")
                         ? "CREATE TEMP VIEW sim_cells AS SELECT cell_id FROM cells WHERE backend = 'sim'"
                         : "CREATE TEMP VIEW sim_cells AS SELECT cell_id FROM cells WHERE 0",
                     NULL, NULL, NULL) != SQLITE_OK) {
        rc = fail_sql(&L, "the cells");
        goto out;
    }
    size_t orphans = 0;
    sw->sim_only = 0;
    if ((rc = check_integrity(&L)) || (rc = load_cells(&L, sw)) || (rc = load_runs(&L, sw, &orphans)))
        goto out;
    run_ref *refs = ct_xmalloc((sw->nruns ? sw->nruns : 1) * sizeof *refs);
    for (size_t i = 0; i < sw->nruns; i++)
        refs[i] = (run_ref){sw->runs[i].run_id, i};
    qsort(refs, sw->nruns, sizeof *refs, cmp_ref);
    rc = load_stats(&L, sw, refs);
    if (!rc)
        rc = load_counters(&L, sw, refs);
    free(refs);
    if (!rc)
        rc = load_meta(&L, sw);
    if (!rc)
        rc = load_planned(&L, sw);
    if (!rc)
        rc = check_values(&L, sw);
    if (!rc && orphans && !sw->warning[0])
        snprintf(sw->warning, sizeof sw->warning, "%s: %zu runs name a cell that does not exist: ignored", path,
                 orphans);
out:
    if (L.db) {
        sqlite3_exec(L.db, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(L.db);
    }
    free(path);
    return rc;
}

const char *st_sweep_meta(const st_sweep *sw, const char *key) {
    for (size_t i = 0; i < sw->nmeta; i++)
        if (strcmp(sw->meta_key[i], key) == 0)
            return sw->meta_value[i];
    return NULL;
}

void st_sweep_free(st_sweep *sw) {
    for (size_t i = 0; i < sw->ncells; i++) {
        st_cell *c = &sw->cells[i];
        free(c->workload);
        free(c->kind);
        free(c->alloc_mode);
        free(c->time_clock);
        free(c->time_mode);
        free(c->label);
    }
    free(sw->cells);
    for (size_t i = 0; i < sw->nruns; i++)
        free(sw->runs[i].failure);
    free(sw->runs);
    for (size_t e = 0; e < sw->nevents; e++)
        free(sw->events[e]);
    free(sw->events);
    free(sw->counter);
    for (size_t i = 0; i < sw->nmeta; i++) {
        free(sw->meta_key[i]);
        free(sw->meta_value[i]);
    }
    free(sw->meta_key);
    free(sw->meta_value);
    free(sw->dir);
    memset(sw, 0, sizeof *sw);
}

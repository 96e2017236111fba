/* sw_db.c - the results database and its CSV export. */
#include "sw_db.h"
#include "sw_alt.h"
#include "sw_util.h"
#include "sgc_stats_keys.h"
#include "st_util.h"
#include "../contracts/ct_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

/* What sw_db.h keeps opaque: the connection and the statements every run
 * uses, prepared once. */
struct sw_db_conn {
    sqlite3 *db;            /* the connection */
    sqlite3_stmt *ins_run;  /* prepared INSERT INTO runs */
    sqlite3_stmt *ins_stat; /* prepared INSERT INTO run_stats */
    sqlite3_stmt *ins_ctr;  /* prepared INSERT INTO run_counters */
    sqlite3_stmt *ins_seg;  /* INSERT INTO segments, prepared on first use (in-process design) */
    char *reserve;          /* DIR/.reserve, space set aside for a full disk, or NULL */
};

/* Starts d (not open yet): its connection state, all NULL. */
static void start(sw_db *d) {
    memset(d, 0, sizeof *d);
    d->conn = ct_xcalloc(1, sizeof *d->conn);
}

/* Forgets d once closed. */
static void forget(sw_db *d) {
    free(d->conn);
    free(d->path);
    memset(d, 0, sizeof *d);
}

/* The schema: contracts/schema.sql, embedded at build time. */
#include "schema_sql.h"

static SW_NORETURN void db_fail(sw_db *d, const char *what) {
    sw_fatal("%s: %s: %s", d->path, what, d->conn && d->conn->db ? sqlite3_errmsg(d->conn->db) : "cannot open");
}

static void exec_sql(sw_db *d, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(d->conn->db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "sweep: %s: %s\n", d->path, err ? err : "?");
        sqlite3_free(err);
        sw_fatal("%s: a database statement failed", d->path);
    }
}

static sqlite3_stmt *prepare(sw_db *d, const char *sql) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn->db, sql, -1, &st, NULL) != SQLITE_OK)
        db_fail(d, "preparing a statement");
    return st;
}

/* Runs a prepared statement that returns no rows, then resets it. */
static void step_done(sw_db *d, sqlite3_stmt *st, const char *what) {
    if (sqlite3_step(st) != SQLITE_DONE)
        db_fail(d, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s) {
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* The machine every run of this process runs on (runs.node): its host name,
 * read when the run statements are prepared. */
static char run_node[256];

/* The columns of a runs row and where each value comes from: one row per
 * column, X(column, type, stored when, value) with r the sw_run_row; a
 * column is NULL when its condition is false.  The INSERT statement and its
 * binds are made from this list (docs/ARCHITECTURE.md, "Adding a per-run
 * metric"); contracts/schema.sql defines the columns. */
#define SW_RUN_COLUMNS(X)                                                                        \
    X(cell_id, INT, 1, r->cell_id)                                                               \
    X(round, INT, 1, r->round)                                                                   \
    X(seq, INT, 1, r->seq)                                                                       \
    X(status, TEXT, 1, r->status)                                                                \
    X(failure, TEXT, 1, r->failure)                                                              \
    X(wall_ns, INT64, r->has_times, r->wall_ns)                                                  \
    X(user_ns, INT64, r->has_times, r->user_ns)                                                  \
    X(sys_ns, INT64, r->has_times, r->sys_ns)                                                    \
    X(maxrss_kb, INT64, r->has_times, r->maxrss_kb)                                              \
    X(sgc_seed, INT64, 1, r->sgc_seed)                                                           \
    X(cpu, INT, 1, r->cpu)                                                                       \
    X(overhead_ns, INT64, 1, r->overhead_ns)                                                     \
    X(exit_code, INT, r->exit_code >= 0, r->exit_code)                                           \
    X(term_signal, INT, r->term_signal >= 0, r->term_signal)                                     \
    X(checksum, TEXT, 1, r->checksum)                                                            \
    X(output_tail, TEXT, 1, r->output_tail)                                                      \
    X(profile_bytes, INT64, r->profile_bytes >= 0, r->profile_bytes)                             \
    X(counter_errors, TEXT, 1, r->counter_errors)                                                \
    X(started_ns, INT64, 1, r->started_ns)                                                       \
    X(block, INT, r->block, r->block)                                                            \
    X(block_pos, INT, r->block, r->block_pos)                                                    \
    X(block_role, INT, r->block, r->block_role)                                                  \
    X(steal_ns, INT64, r->has_noise && r->noise.steal_ns >= 0, r->noise.steal_ns)                \
    X(other_busy_ns, INT64, r->has_noise && r->noise.other_busy_ns >= 0, r->noise.other_busy_ns) \
    X(nivcsw, INT64, r->has_noise && r->has_times, r->noise.nivcsw)                              \
    X(minflt, INT64, r->has_noise && r->has_times, r->noise.minflt)                              \
    X(loadavg1, REAL, r->has_noise && r->noise.loadavg1 >= 0, r->noise.loadavg1)                 \
    X(node, TEXT, 1, run_node)                                                                   \
    X(replicate, INT, r->replicate >= 0, r->replicate)

/* "INSERT INTO runs(c1, c2, ...) VALUES(?, ?, ...)" from the list. */
static char *insert_run_sql(void) {
    static const char *const columns[] = {
#define SW_RUN_NAME(name, type, when, value) #name,
        SW_RUN_COLUMNS(SW_RUN_NAME)
#undef SW_RUN_NAME
    };
    sw_buf b = {0}, v = {0};
    for (size_t i = 0; i < sizeof columns / sizeof *columns; i++) {
        sw_buf_printf(&b, "%s%s", i ? ", " : "INSERT INTO runs(", columns[i]);
        sw_buf_puts(&v, i ? ",?" : "?");
    }
    sw_buf_printf(&b, ") VALUES(%s)", v.data);
    sw_buf_free(&v);
    return b.data;
}

static void prepare_run_statements(sw_db *d) {
    if (gethostname(run_node, sizeof run_node) != 0 || !run_node[0])
        snprintf(run_node, sizeof run_node, "unknown");
    run_node[sizeof run_node - 1] = '\0';
    char *sql = insert_run_sql();
    d->conn->ins_run = prepare(d, sql);
    free(sql);
    d->conn->ins_stat = prepare(d, "INSERT INTO run_stats(run_id, key, value) VALUES(?,?,?)");
    d->conn->ins_ctr = prepare(d, "INSERT INTO run_counters(run_id, event, raw, time_enabled, time_running, scaled)"
                                  " VALUES(?,?,?,?,?,?)");
}

/* Journal settings for one transaction per run: WAL with NORMAL sync keeps
 * every commit across a killed process without an fsync per run.  The WAL
 * is checkpointed into results.db whenever it holds 64 pages (256 KiB with
 * 4 KiB pages) and then cut back to at most 256 KiB, so it stays small next
 * to the database (by default it grew to 4 MiB before the first checkpoint,
 * and never shrank). */
static void tune(sw_db *d) {
    sqlite3_busy_timeout(d->conn->db, 10000);
    exec_sql(d, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                " PRAGMA wal_autocheckpoint=64; PRAGMA journal_size_limit=262144;");
}

/* Sets SW_DB_RESERVE bytes of the disk aside next to results.db (see
 * sw_db.h); a warning if the disk has not that much room. */
static void reserve_space(sw_db *d, const char *dir) {
    d->conn->reserve = sw_xasprintf("%s/.reserve", dir);
    int fd = open(d->conn->reserve, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = fd < 0 ? errno : posix_fallocate(fd, 0, SW_DB_RESERVE);
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno;
    if (err) {
        fprintf(stderr,
                "sweep: warning: cannot set %d KiB aside in %s (%s): if the disk fills up, the sweep may "
                "not be able to record that it stopped\n",
                SW_DB_RESERVE >> 10, dir, strerror(err));
        unlink(d->conn->reserve);
        free(d->conn->reserve);
        d->conn->reserve = NULL;
    }
}

static void release_space(sw_db *d) {
    if (d->conn->reserve) {
        unlink(d->conn->reserve);
        free(d->conn->reserve);
        d->conn->reserve = NULL;
    }
}

void sw_db_create(sw_db *d, const char *dir) {
    start(d);
    d->path = sw_xasprintf("%s/results.db", dir);
    if (access(d->path, F_OK) == 0)
        sw_usage_error("%s already exists; use --resume %s to finish that sweep", d->path, dir);
    if (sqlite3_open_v2(d->path, &d->conn->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        sw_usage_error("cannot create %s: %s", d->path, d->conn->db ? sqlite3_errmsg(d->conn->db) : "out of memory");
    reserve_space(d, dir);
    tune(d);
    exec_sql(d, "BEGIN");
    exec_sql(d, fc_schema_sql);
    exec_sql(d, "COMMIT");
    prepare_run_statements(d);
}

/* A sweep started before the segments table had switch_ns, system and
 * cpu_clock, and NULL for unmeasured fields, gets today's table: its rows
 * copied into one made from the schema (their new columns NULL: not
 * recorded), in one transaction. */
static void upgrade_segments(sw_db *d) {
    sqlite3_stmt *st;
    int current = sqlite3_prepare_v2(d->conn->db, "SELECT system FROM segments LIMIT 0", -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    if (current)
        return;
    const char *def = strstr(fc_schema_sql, "CREATE TABLE segments(");
    const char *end = def ? strstr(def, ");") : NULL;
    if (!end)
        sw_fatal("contracts/schema.sql has no CREATE TABLE segments(...); statement");
    char *create = sw_xasprintf("CREATE TABLE segments_upgrade(%.*s);", (int)(end - def - 22), def + 22);
    exec_sql(d, "BEGIN");
    exec_sql(d, create);
    exec_sql(d, "INSERT INTO segments_upgrade(run_id, idx, block, pos, kind, on_, end_, cpu_ns, wall_ns, bytes, "
                "iterations, alloc_samples, alloc_points, sampled_bytes, time_samples, minor, major, gc_ns, "
                "major_cpu_ns) SELECT run_id, idx, block, pos, kind, on_, end_, cpu_ns, wall_ns, bytes, iterations, "
                "alloc_samples, alloc_points, sampled_bytes, time_samples, minor, major, gc_ns, major_cpu_ns FROM "
                "segments");
    exec_sql(d, "DROP TABLE segments");
    exec_sql(d, "ALTER TABLE segments_upgrade RENAME TO segments");
    exec_sql(d, "COMMIT");
    free(create);
}

void sw_db_open_existing(sw_db *d, const char *dir) {
    start(d);
    d->path = sw_xasprintf("%s/results.db", dir);
    if (access(d->path, R_OK | W_OK) != 0)
        sw_usage_error("--resume %s: no writable results.db there (%s)", dir, strerror(errno));
    if (sqlite3_open_v2(d->path, &d->conn->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        sw_usage_error("--resume %s: cannot open %s: %s", dir, d->path,
                       d->conn->db ? sqlite3_errmsg(d->conn->db) : "?");
    sqlite3_stmt *st;
    /* SQLite's own check of every page, b-tree and record, before anything
     * is read or added: runs resumed into a damaged file are time spent on
     * numbers analyze then refuses (stats/st_db.c runs the same check). */
    sqlite3_busy_timeout(d->conn->db, 10000);
    char *damage = NULL;
    if (sqlite3_prepare_v2(d->conn->db, "PRAGMA integrity_check(5)", -1, &st, NULL) != SQLITE_OK) {
        if (sqlite3_errcode(d->conn->db) == SQLITE_NOTADB)
            sw_usage_error("--resume %s: %s is not an SQLite database (%s): not a sweep's results", dir, d->path,
                           sqlite3_errmsg(d->conn->db));
        damage = ct_xstrdup(sqlite3_errmsg(d->conn->db));
    } else {
        sw_buf b = {0};
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *line = (const char *)sqlite3_column_text(st, 0);
            if (!line || strcmp(line, "ok"))
                sw_buf_printf(&b, "%s%s", b.len ? "; " : "", line ? line : "no answer");
        }
        if (rc != SQLITE_DONE)
            sw_buf_printf(&b, "%s%s", b.len ? "; " : "", sqlite3_errmsg(d->conn->db));
        sqlite3_finalize(st);
        damage = b.data;
        for (char *p = damage; p && *p; p++) /* its answer is lines: one line of the message */
            if (*p == '\n')
                *p = ' ';
    }
    if (damage)
        sw_usage_error(
            "--resume %s: %s is damaged (SQLite's integrity check: %.300s); its runs cannot be trusted and "
            "resuming would add runs to a file analyze refuses: restore it from a copy, or start a new sweep",
            dir, d->path, damage);
    if (sqlite3_prepare_v2(d->conn->db, "SELECT count(*) FROM schedule, calibration, meta LIMIT 1", -1, &st, NULL) !=
        SQLITE_OK)
        sw_usage_error("--resume %s: %s is not a results database written by sweep (%s)", dir, d->path,
                       sqlite3_errmsg(d->conn->db));
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(d->conn->db, "SELECT block, steal_ns FROM runs LIMIT 0", -1, &st, NULL) != SQLITE_OK)
        sw_usage_error("--resume %s: %s was written by an older sweep (its runs have no block or noise columns); "
                       "finish it with the sweep that started it",
                       dir, d->path);
    sqlite3_finalize(st);
    /* A sweep started before runs had a node column gets it (its earlier
     * runs' node stays NULL: unknown). */
    if (sqlite3_prepare_v2(d->conn->db, "SELECT node FROM runs LIMIT 0", -1, &st, NULL) != SQLITE_OK)
        exec_sql(d, "ALTER TABLE runs ADD COLUMN node TEXT");
    sqlite3_finalize(st);
    /* Likewise the replicate columns (a sweep of one replicate: NULL). */
    if (sqlite3_prepare_v2(d->conn->db, "SELECT replicate FROM runs LIMIT 0", -1, &st, NULL) != SQLITE_OK)
        exec_sql(d, "ALTER TABLE runs ADD COLUMN replicate INTEGER");
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(d->conn->db, "SELECT replicate FROM schedule LIMIT 0", -1, &st, NULL) != SQLITE_OK)
        exec_sql(d, "ALTER TABLE schedule ADD COLUMN replicate INTEGER");
    sqlite3_finalize(st);
    /* And the time_mode column of the cells (NULL: the older form's cells,
     * sw_db_fill_time_modes). */
    if (sqlite3_prepare_v2(d->conn->db, "SELECT time_mode FROM cells LIMIT 0", -1, &st, NULL) != SQLITE_OK)
        exec_sql(d, "ALTER TABLE cells ADD COLUMN time_mode TEXT");
    sqlite3_finalize(st);
    upgrade_segments(d);
    reserve_space(d, dir);
    tune(d);
    prepare_run_statements(d);
}

void sw_db_close(sw_db *d) {
    sqlite3_finalize(d->conn->ins_run);
    sqlite3_finalize(d->conn->ins_stat);
    sqlite3_finalize(d->conn->ins_ctr);
    sqlite3_finalize(d->conn->ins_seg);
    d->conn->ins_seg = NULL;
    exec_sql(d, "PRAGMA journal_mode=DELETE;");
    if (sqlite3_close(d->conn->db) != SQLITE_OK)
        db_fail(d, "closing");
    release_space(d);
    forget(d);
}

/* Sets a meta value; -1 (nothing changed) if the database refuses. */
static int meta_try_set(sw_db *d, const char *key, const char *value) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    bind_text(st, 1, key);
    bind_text(st, 2, value);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int count_or_minus1(sw_db *d, const char *sql) {
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_prepare_v2(d->conn->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

void sw_db_salvage(sw_db *d, const char *dir) {
    if (!sw_db_is_open(d))
        return;
    char *msg = NULL;
    release_space(d); /* room for what follows on a full disk */
    /* The transaction in flight (if any) is lost, as a killed run's is. */
    sqlite3_exec(d->conn->db, "ROLLBACK", NULL, NULL, NULL);
    /* Moves the WAL into the database and cuts it to nothing: on a full disk
     * this is what frees room for the lines below. */
    sqlite3_wal_checkpoint_v2(d->conn->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int marked = sqlite3_exec(d->conn->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
                 meta_try_set(d, "status", "interrupted") == 0 && meta_try_set(d, "interrupted_utc", when) == 0 &&
                 sqlite3_exec(d->conn->db, "COMMIT", NULL, NULL, &msg) == SQLITE_OK;
    if (!marked) {
        sqlite3_exec(d->conn->db, "ROLLBACK", NULL, NULL, NULL);
        fprintf(stderr,
                "sweep: cannot mark the sweep interrupted in %s (%s); its status still says running, "
                "--resume works all the same\n",
                d->path, msg ? msg : sqlite3_errmsg(d->conn->db));
    }
    sqlite3_free(msg);
    char *csv = sw_xasprintf("%s/runs.csv", dir);
    int rows = sw_db_export_csv(d, csv);
    int done = count_or_minus1(d, "SELECT count(*) FROM runs");
    int total = count_or_minus1(d, "SELECT count(*) FROM schedule");
    sqlite3_finalize(d->conn->ins_run);
    sqlite3_finalize(d->conn->ins_stat);
    sqlite3_finalize(d->conn->ins_ctr);
    sqlite3_finalize(d->conn->ins_seg);
    d->conn->ins_run = d->conn->ins_stat = d->conn->ins_ctr = d->conn->ins_seg = NULL;
    sqlite3_exec(d->conn->db, "PRAGMA journal_mode=DELETE;", NULL, NULL, NULL);
    sqlite3_close(d->conn->db);
    d->conn->db = NULL;
    if (rows >= 0)
        fprintf(stderr, "sweep: %s written (%d runs)\n", csv, rows);
    if (total > 0)
        fprintf(stderr,
                "sweep: stopped; %d of %d runs are recorded in %s. Once the cause above is fixed, finish "
                "the sweep with: sweep --resume %s\n",
                done, total, d->path, dir);
    else
        fprintf(stderr,
                "sweep: stopped during calibration. Once the cause above is fixed, finish the sweep with: "
                "sweep --resume %s\n",
                dir);
    free(csv);
}

void sw_db_meta_set(sw_db *d, const char *key, const char *value) {
    sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)");
    bind_text(st, 1, key);
    bind_text(st, 2, value);
    step_done(d, st, "storing metadata");
    sqlite3_finalize(st);
}

char *sw_db_meta_get(sw_db *d, const char *key) {
    sqlite3_stmt *st = prepare(d, "SELECT value FROM meta WHERE key = ?");
    bind_text(st, 1, key);
    char *v = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = ct_xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

void sw_db_store_events(sw_db *d, const sw_counters *c) {
    exec_sql(d, "BEGIN");
    sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO events(event, supported, reason, encoding) VALUES(?,?,?,?)");
    for (int i = 0; i < c->n; i++) {
        bind_text(st, 1, c->events[i].name);
        sqlite3_bind_int(st, 2, c->events[i].supported);
        bind_text(st, 3, c->events[i].reason);
        bind_text(st, 4, c->events[i].encoding);
        step_done(d, st, "storing events");
    }
    sqlite3_finalize(st);
    exec_sql(d, "COMMIT");
}

void sw_db_store_sim_native(sw_db *d, const char *workload, uint64_t size, int runs, uint64_t cpu_ns,
                            uint64_t wall_ns) {
    sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO sim_native(workload, size, runs, cpu_ns, wall_ns)"
                                  " VALUES(?,?,?,?,?)");
    bind_text(st, 1, workload);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)size);
    sqlite3_bind_int(st, 3, runs);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)cpu_ns);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)wall_ns);
    step_done(d, st, "storing a native rate");
    sqlite3_finalize(st);
}

int sw_db_has_sim_native(sw_db *d, const char *workload) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn->db, "SELECT 1 FROM sim_native WHERE workload = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    bind_text(st, 1, workload);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

void sw_db_store_calibration(sw_db *d, const char *workload, uint64_t size, double seconds, const char *checksum,
                             const char *method, int probes, const char *status, const char *failure) {
    sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO calibration(workload, size, seconds, checksum, method,"
                                  " probes, status, failure) VALUES(?,?,?,?,?,?,?,?)");
    bind_text(st, 1, workload);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)size);
    sqlite3_bind_double(st, 3, seconds);
    bind_text(st, 4, checksum);
    bind_text(st, 5, method);
    sqlite3_bind_int(st, 6, probes);
    bind_text(st, 7, status);
    bind_text(st, 8, failure);
    step_done(d, st, "storing a calibration");
    sqlite3_finalize(st);
}

void sw_db_store_probe(sw_db *d, const char *workload, int probe, uint64_t size, uint64_t wall_ns, uint64_t cpu_ns,
                       const char *status) {
    sqlite3_stmt *st = prepare(d, "INSERT OR REPLACE INTO calibration_probes(workload, probe, size, wall_ns, cpu_ns,"
                                  " status) VALUES(?,?,?,?,?,?)");
    bind_text(st, 1, workload);
    sqlite3_bind_int(st, 2, probe);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)size);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)wall_ns);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)cpu_ns);
    bind_text(st, 6, status);
    step_done(d, st, "storing a calibration probe");
    sqlite3_finalize(st);
}

static char *column_dup(sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? ct_xstrdup((const char *)t) : NULL;
}

int sw_db_get_calibration(sw_db *d, const char *workload, uint64_t *size, char **checksum, char **status,
                          char **failure, double *seconds) {
    sqlite3_stmt *st =
        prepare(d, "SELECT size, checksum, status, failure, seconds FROM calibration WHERE workload = ?");
    bind_text(st, 1, workload);
    int found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        *size = (uint64_t)sqlite3_column_int64(st, 0);
        *checksum = column_dup(st, 1);
        *status = column_dup(st, 2);
        *failure = column_dup(st, 3);
        *seconds = sqlite3_column_double(st, 4);
    }
    sqlite3_finalize(st);
    return found;
}

void sw_db_store_plan(sw_db *d, const sw_cell *cells, int n_cells, const sw_slot *slots, int n_slots) {
    exec_sql(d, "BEGIN");
    sqlite3_stmt *st =
        prepare(d, "INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz,"
                   " time_clock, size, label, args, depth, backend, time_mode) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
    for (int i = 0; i < n_cells; i++) {
        const sw_cell *c = &cells[i];
        sqlite3_bind_int(st, 1, c->id);
        bind_text(st, 2, c->workload);
        bind_text(st, 3, c->kind);
        sqlite3_bind_int64(st, 4, (sqlite3_int64)c->alloc_period);
        bind_text(st, 5, c->alloc_mode);
        sqlite3_bind_int(st, 6, (int)c->time_hz);
        bind_text(st, 7, c->time_clock);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)c->size);
        bind_text(st, 9, c->label);
        bind_text(st, 10, c->args ? c->args : "");
        if (c->depth)
            sqlite3_bind_int(st, 11, (int)c->depth);
        bind_text(st, 12, c->sim ? "sim" : "native");
        bind_text(st, 13, c->time_mode ? c->time_mode : "");
        step_done(d, st, "storing the cells");
    }
    sqlite3_finalize(st);
    st = prepare(d, "INSERT INTO schedule(seq, cell_id, round, block, block_pos, block_role, replicate)"
                    " VALUES(?,?,?,?,?,?,?)");
    for (int i = 0; i < n_slots; i++) {
        sqlite3_bind_int(st, 1, slots[i].seq);
        sqlite3_bind_int(st, 2, cells[slots[i].cell].id);
        sqlite3_bind_int(st, 3, slots[i].round);
        if (slots[i].block) {
            sqlite3_bind_int(st, 4, slots[i].block);
            sqlite3_bind_int(st, 5, slots[i].pos);
            sqlite3_bind_int(st, 6, slots[i].role);
        }
        if (slots[i].replicate >= 0)
            sqlite3_bind_int(st, 7, slots[i].replicate);
        step_done(d, st, "storing the schedule");
    }
    sqlite3_finalize(st);
    exec_sql(d, "COMMIT");
}

void sw_db_fill_time_modes(sw_db *d, const sw_cell *cells, int n_cells) {
    exec_sql(d, "BEGIN");
    sqlite3_stmt *st = prepare(d, "UPDATE cells SET time_mode = ? WHERE cell_id = ? AND time_mode IS NULL");
    for (int i = 0; i < n_cells; i++) {
        bind_text(st, 1, cells[i].time_mode ? cells[i].time_mode : "");
        sqlite3_bind_int(st, 2, cells[i].id);
        step_done(d, st, "storing the cells' time modes");
    }
    sqlite3_finalize(st);
    exec_sql(d, "COMMIT");
}

int sw_db_count(sw_db *d, const char *table) {
    char *sql = sw_xasprintf("SELECT count(*) FROM %s", table);
    sqlite3_stmt *st = prepare(d, sql);
    free(sql);
    int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return n;
}

/* The stored mode/clock words as the static strings sw_cell uses. */
static const char *intern_mode(const unsigned char *w) {
    const char *s = sgc_alloc_mode_name(sgc_alloc_mode_parse((const char *)w));
    return s ? s : "";
}

static const char *intern_clock(const unsigned char *w) {
    const char *s = sgc_clock_name(sgc_clock_parse((const char *)w));
    return s ? s : "";
}

static const char *intern_time_mode(const unsigned char *w) {
    const char *s = sgc_time_mode_name(sgc_time_mode_parse((const char *)w));
    return s ? s : "";
}

int sw_db_load_cells(sw_db *d, sw_cell **out, const char *legacy_mode) {
    int n = sw_db_count(d, "cells");
    sw_cell *cells = ct_xcalloc((size_t)(n ? n : 1), sizeof *cells);
    /* Sweeps from before the simulated backend have no backend column, and
     * those from before the time modes no time_mode column. */
    sqlite3_stmt *probe;
    int has_backend = sqlite3_prepare_v2(d->conn->db, "SELECT backend FROM cells", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    int has_mode = sqlite3_prepare_v2(d->conn->db, "SELECT time_mode FROM cells", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    char *sql = sw_xasprintf("SELECT cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size,"
                             " label, args, depth, %s, %s FROM cells ORDER BY cell_id",
                             has_backend ? "backend" : "'native'", has_mode ? "time_mode" : "NULL");
    sqlite3_stmt *st = prepare(d, sql);
    free(sql);
    int i = 0;
    while (i < n && sqlite3_step(st) == SQLITE_ROW) {
        sw_cell *c = &cells[i];
        c->id = sqlite3_column_int(st, 0);
        if (c->id != i + 1)
            sw_fatal("%s: cell ids are not 1..%d in order; the database was changed by hand", d->path, n);
        c->workload = column_dup(st, 1);
        c->kind = column_dup(st, 2);
        c->alloc_period = (uint64_t)sqlite3_column_int64(st, 3);
        c->alloc_mode = intern_mode(sqlite3_column_text(st, 4));
        c->time_hz = (unsigned)sqlite3_column_int(st, 5);
        c->time_clock = intern_clock(sqlite3_column_text(st, 6));
        c->size = (uint64_t)sqlite3_column_int64(st, 7);
        c->label = column_dup(st, 8);
        c->args = column_dup(st, 9);
        if (!c->args)
            c->args = ct_xstrdup("");
        c->depth = (unsigned)sqlite3_column_int(st, 10);
        c->sim = sqlite3_column_text(st, 11) && !strcmp((const char *)sqlite3_column_text(st, 11), "sim");
        /* NULL: a cell stored before the column, of the sweep's one mode. */
        const unsigned char *tm = sqlite3_column_text(st, 12);
        c->time_mode = !c->time_hz ? ""
                       : tm        ? intern_time_mode(tm)
                                   : intern_time_mode((const unsigned char *)legacy_mode);
        i++;
    }
    sqlite3_finalize(st);
    *out = cells;
    return i;
}

int sw_db_missing_slots(sw_db *d, sw_slot **out) {
    sqlite3_stmt *st = prepare(d, "SELECT s.seq, s.cell_id, s.round, ifnull(s.block, 0), ifnull(s.block_pos, 0),"
                                  " ifnull(s.block_role, 0), ifnull(s.replicate, -1) FROM schedule s WHERE NOT EXISTS"
                                  " (SELECT 1 FROM runs r WHERE r.seq = s.seq) ORDER BY s.seq");
    int n = 0, cap = 256;
    sw_slot *slots = ct_xmalloc((size_t)cap * sizeof *slots);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap)
            slots = ct_xrealloc(slots, (size_t)(cap *= 2) * sizeof *slots);
        slots[n++] = (sw_slot){.seq = sqlite3_column_int(st, 0),
                               .cell = sqlite3_column_int(st, 1) - 1,
                               .round = sqlite3_column_int(st, 2),
                               .pass = -1,
                               .block = sqlite3_column_int(st, 3),
                               .pos = sqlite3_column_int(st, 4),
                               .role = sqlite3_column_int(st, 5),
                               .replicate = sqlite3_column_int(st, 6)};
    }
    sqlite3_finalize(st);
    *out = slots;
    return n;
}

/* The run's segment series, inside its transaction.  The statement is
 * prepared on first use, so databases of other designs need no table. */
static void store_segments(sw_db *d, sqlite3_int64 run_id, const sw_segment *segs, int n, const sw_series *info) {
    if (!d->conn->ins_seg)
        d->conn->ins_seg = prepare(
            d, "INSERT INTO segments(run_id, idx, block, pos, kind, on_, end_, cpu_ns, wall_ns, bytes, "
               "iterations, alloc_samples, alloc_points, sampled_bytes, time_samples, minor, major, gc_ns, "
               "major_cpu_ns, switch_ns, system, cpu_clock) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    sqlite3_stmt *st = d->conn->ins_seg;
    for (int i = 0; i < n; i++) {
        const sw_segment *g = &segs[i];
        char kind[2] = {g->kind, 0};
        int k = 1;
        sqlite3_bind_int64(st, k++, run_id);
        sqlite3_bind_int(st, k++, g->idx);
        sqlite3_bind_int(st, k++, g->block);
        sqlite3_bind_int(st, k++, g->pos);
        bind_text(st, k++, kind);
        sqlite3_bind_int(st, k++, g->on);
        bind_text(st, k++, g->end);
        /* An unmeasured field is NULL: its 0 in the file means nothing. */
#define X(name)                                               \
    if (info && (info->unmeasured & (1u << SW_ALT_F_##name))) \
        sqlite3_bind_null(st, k++);                           \
    else                                                      \
        sqlite3_bind_int64(st, k++, (sqlite3_int64)g->name);
        SW_ALT_NUM
#undef X
        if (info && info->has_switch)
            sqlite3_bind_int64(st, k++, (sqlite3_int64)g->switch_ns);
        else
            sqlite3_bind_null(st, k++);
        bind_text(st, k++, info ? info->system : "freecheck");
        bind_text(st, k++, info ? info->cpu_clock : "thread");
        step_done(d, st, "storing a run's segment series");
    }
}

/* Inserts one run with its stats and counters (inside a transaction). */
static void insert_run(sw_db *d, const sw_run_row *r) {
    sqlite3_stmt *st = d->conn->ins_run;
    int col = 0;
    /* Each column's value when its condition holds; NULL (unbound) otherwise. */
#define SW_BIND_INT(v) sqlite3_bind_int(st, col, (int)(v))
#define SW_BIND_INT64(v) sqlite3_bind_int64(st, col, (sqlite3_int64)(v))
#define SW_BIND_REAL(v) sqlite3_bind_double(st, col, (double)(v))
#define SW_BIND_TEXT(v) bind_text(st, col, (v))
#define SW_RUN_BIND(name, type, when, value) \
    col++;                                   \
    if (when)                                \
        SW_BIND_##type(value);
    SW_RUN_COLUMNS(SW_RUN_BIND)
#undef SW_RUN_BIND
#undef SW_BIND_INT
#undef SW_BIND_INT64
#undef SW_BIND_REAL
#undef SW_BIND_TEXT
    step_done(d, st, "storing a run");
    sqlite3_int64 run_id = sqlite3_last_insert_rowid(d->conn->db);
    for (int i = 0; i < r->n_stats; i++) {
        sqlite3_bind_int64(d->conn->ins_stat, 1, run_id);
        bind_text(d->conn->ins_stat, 2, r->stat_keys[i]);
        bind_text(d->conn->ins_stat, 3, r->stat_values[i]);
        step_done(d, d->conn->ins_stat, "storing a run's stats");
    }
    if (r->readings)
        for (int i = 0; i < r->counters->n; i++) {
            const sw_reading *x = &r->readings[i];
            if (!x->ok)
                continue;
            sqlite3_bind_int64(d->conn->ins_ctr, 1, run_id);
            bind_text(d->conn->ins_ctr, 2, r->counters->events[i].name);
            sqlite3_bind_int64(d->conn->ins_ctr, 3, (sqlite3_int64)x->raw);
            sqlite3_bind_int64(d->conn->ins_ctr, 4, (sqlite3_int64)x->time_enabled);
            sqlite3_bind_int64(d->conn->ins_ctr, 5, (sqlite3_int64)x->time_running);
            sqlite3_bind_double(d->conn->ins_ctr, 6, x->scaled);
            step_done(d, d->conn->ins_ctr, "storing a run's counters");
        }
    if (r->n_segs)
        store_segments(d, run_id, r->segs, r->n_segs, r->series);
}

void sw_db_store_run(sw_db *d, const sw_run_row *r) { sw_db_store_runs(d, r, 1); }

void sw_db_store_runs(sw_db *d, const sw_run_row *rows, int n) {
    exec_sql(d, "BEGIN");
    for (int i = 0; i < n; i++)
        insert_run(d, &rows[i]);
    exec_sql(d, "COMMIT");
}

/* The stats record keys runs.csv carries, one column each, in this order
 * after the runs and cells columns (docs/HARNESS.md); a new column goes at
 * the end.  Each must be a key of runtime/sgc_stats_keys.h: a name that is
 * not fails to compile (SW_KEY_<name> below). */
/* clang-format off */
#define SW_RUNS_CSV_STATS(X) \
    X(run_ns) \
    X(bytes_allocated) \
    X(objects_allocated) \
    X(alloc_samples) \
    X(alloc_sample_points) \
    X(sampled_bytes) \
    X(time_samples) \
    X(time_samples_dropped) \
    X(time_hz_achieved) \
    X(minor_collections) \
    X(major_collections) \
    X(gc_ns) \
    X(bytes_promoted) \
    X(peak_heap_bytes)
/* clang-format on */

#define SW_KEY_ENUM(key, type, value, what) SW_KEY_##key,
enum { SGC_STATS_KEYS(SW_KEY_ENUM) SW_NKEYS };
#undef SW_KEY_ENUM
#define SW_CSV_NAME(key) #key + 0 * SW_KEY_##key,
static const char *csv_stats[] = {SW_RUNS_CSV_STATS(SW_CSV_NAME)};
#undef SW_CSV_NAME

/* runs.csv's columns before the stats record keys and the counters, in
 * order: the header's name and the value (r: runs, c: cells). */
static const struct {
    const char *name, *expr;
} csv_columns[] = {
    {"run_id", "r.run_id"},
    {"seq", "r.seq"},
    {"round", "r.round"},
    {"cell_id", "c.cell_id"},
    {"workload", "c.workload"},
    {"kind", "c.kind"},
    {"label", "c.label"},
    {"alloc_period", "c.alloc_period"},
    {"alloc_mode", "c.alloc_mode"},
    {"time_hz", "c.time_hz"},
    {"time_clock", "c.time_clock"},
    {"size", "c.size"},
    {"args", "c.args"},
    {"depth", "c.depth"},
    {"backend", "c.backend"},
    {"status", "r.status"},
    {"failure", "r.failure"},
    {"wall_ns", "r.wall_ns"},
    {"user_ns", "r.user_ns"},
    {"sys_ns", "r.sys_ns"},
    {"maxrss_kb", "r.maxrss_kb"},
    {"overhead_ns", "r.overhead_ns"},
    {"cpu", "r.cpu"},
    {"sgc_seed", "r.sgc_seed"},
    {"exit_code", "r.exit_code"},
    {"term_signal", "r.term_signal"},
    {"checksum", "r.checksum"},
    {"profile_bytes", "r.profile_bytes"},
    {"block", "r.block"},
    {"block_pos", "r.block_pos"},
    {"block_role", "r.block_role"},
    {"steal_ns", "r.steal_ns"},
    {"other_busy_ns", "r.other_busy_ns"},
    {"nivcsw", "r.nivcsw"},
    {"minflt", "r.minflt"},
    {"loadavg1", "r.loadavg1"},
    {"replicate", "r.replicate"},
};

int sw_db_export_csv(sw_db *d, const char *csv_path) {
    /* One column per supported event: ctr_<name with non-alphanumerics as _>. */
    sw_buf sql = {0}, header = {0};
    for (size_t i = 0; i < sizeof csv_columns / sizeof *csv_columns; i++) {
        sw_buf_printf(&sql, "%s%s", i ? ", " : "SELECT ", csv_columns[i].expr);
        sw_buf_printf(&header, "%s%s", i ? "," : "", csv_columns[i].name);
    }
    for (size_t i = 0; i < sizeof csv_stats / sizeof *csv_stats; i++) {
        sw_buf_printf(&sql, ", (SELECT value FROM run_stats s WHERE s.run_id = r.run_id AND s.key = '%s')",
                      csv_stats[i]);
        sw_buf_printf(&header, ",%s", csv_stats[i]);
    }
    sqlite3_stmt *ev = prepare(d, "SELECT event FROM events WHERE supported = 1 ORDER BY rowid");
    while (sqlite3_step(ev) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(ev, 0);
        char *q = sqlite3_mprintf("%Q", name);
        sw_buf_printf(&sql, ", (SELECT scaled FROM run_counters k WHERE k.run_id = r.run_id AND k.event = %s)", q);
        sqlite3_free(q);
        sw_buf_puts(&header, ",ctr_");
        for (const char *p = name; *p; p++) {
            char ch =
                (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_');
            sw_buf_append(&header, &ch, 1);
        }
    }
    sqlite3_finalize(ev);
    sw_buf_puts(&sql, " FROM runs r JOIN cells c ON c.cell_id = r.cell_id ORDER BY r.seq");

    /* The database holds everything; the CSV is a copy (a full disk, say,
     * only warns), written whole or not at all (contracts/ct_out.h). */
    ct_out out;
    char err[CT_OUT_PATH_MAX + 256];
    FILE *f = NULL;
    sqlite3_stmt *st = NULL;
    int rows = 0;
    if (ct_out_begin(&out, csv_path, err, sizeof err) != 0) {
        fprintf(stderr, "sweep: warning: %s\n", err);
        rows = -1;
        goto out;
    }
    if (!(f = ct_out_stream(&out)) || sqlite3_prepare_v2(d->conn->db, sql.data, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "sweep: warning: cannot write %s: %s\n", csv_path,
                !f ? strerror(errno) : sqlite3_errmsg(d->conn->db));
        ct_out_abort(&out);
        rows = -1;
        goto out;
    }
    fprintf(f, "%s\n", header.data);
    int cols = sqlite3_column_count(st);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 0; i < cols; i++) {
            if (i)
                fputc(',', f);
            if (sqlite3_column_type(st, i) == SQLITE_FLOAT)
                fprintf(f, "%.17g", sqlite3_column_double(st, i));
            else
                st_csv_field(f, (const char *)sqlite3_column_text(st, i));
        }
        fputc('\n', f);
        rows++;
    }
    sqlite3_finalize(st);
    if (ct_out_commit(&out, err, sizeof err) != 0) {
        fprintf(stderr, "sweep: warning: %s\n", err);
        rows = -1;
    }
out:
    sw_buf_free(&sql);
    sw_buf_free(&header);
    return rows;
}

void sw_db_append_schedule(sw_db *d, const sw_cell *cells, const sw_slot *slots, int n_slots) {
    exec_sql(d, "BEGIN");
    sqlite3_stmt *st = prepare(d, "INSERT INTO schedule(seq, cell_id, round, block, block_pos, block_role)"
                                  " VALUES(?,?,?,?,?,?)");
    for (int i = 0; i < n_slots; i++) {
        sqlite3_bind_int(st, 1, slots[i].seq);
        sqlite3_bind_int(st, 2, cells[slots[i].cell].id);
        sqlite3_bind_int(st, 3, slots[i].round);
        sqlite3_bind_int(st, 4, slots[i].block);
        sqlite3_bind_int(st, 5, slots[i].pos);
        sqlite3_bind_int(st, 6, slots[i].role);
        step_done(d, st, "storing an adaptive round");
    }
    sqlite3_finalize(st);
    exec_sql(d, "COMMIT");
}

int sw_db_count_failed(sw_db *d) {
    sqlite3_stmt *st;
    int failed = 0;
    if (sqlite3_prepare_v2(d->conn->db, "SELECT count(*) FROM runs WHERE status != 'ok'", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            failed = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return failed;
}

/* A statement of the adaptive rounds: an error is fatal, in their words. */
static sqlite3_stmt *prepare_adaptive(sw_db *d, const char *sql) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn->db, sql, -1, &st, NULL) != SQLITE_OK)
        sw_fatal("%s: adaptive rounds: %s", d->path, sqlite3_errmsg(d->conn->db));
    return st;
}

int64_t sw_db_schedule_max(sw_db *d, const char *column) {
    char *sql = sw_xasprintf("SELECT max(%s) FROM schedule", column);
    sqlite3_stmt *st = prepare_adaptive(d, sql);
    free(sql);
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return v;
}

int sw_db_block_pairs(sw_db *d, sw_db_pair **out) {
    sqlite3_stmt *st =
        prepare_adaptive(d, "SELECT a.cell_id, a.wall_ns, b.wall_ns, a.round FROM runs a JOIN runs b"
                            " ON a.block = b.block AND a.block_role = 1 AND b.block_role = 0"
                            " WHERE a.round >= 1 AND a.status = 'ok' AND b.status = 'ok' AND a.wall_ns > 0"
                            " AND b.wall_ns > 0 ORDER BY a.block");
    sw_db_pair *p = NULL;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        p = ct_xrealloc(p, (size_t)(n + 1) * sizeof *p);
        p[n].cell = sqlite3_column_int(st, 0) - 1;
        p[n].wall_ns = sqlite3_column_int64(st, 1);
        p[n].base_ns = sqlite3_column_int64(st, 2);
        p[n].round = sqlite3_column_int(st, 3);
        n++;
    }
    sqlite3_finalize(st);
    *out = p;
    return n;
}

void sw_db_block_balance(sw_db *d, int n_cells, int *blocks, int *firsts) {
    sqlite3_stmt *st = prepare_adaptive(
        d, "SELECT cell_id, count(*), sum(block_pos = 1) FROM schedule WHERE block_role = 1 AND round >= 1"
           " GROUP BY cell_id");
    while (sqlite3_step(st) == SQLITE_ROW) {
        int c = sqlite3_column_int(st, 0) - 1;
        if (c >= 0 && c < n_cells) {
            blocks[c] = sqlite3_column_int(st, 1);
            firsts[c] = sqlite3_column_int(st, 2);
        }
    }
    sqlite3_finalize(st);
}

int sw_db_failures(sw_db *d, int max, sw_db_failure **out) {
    sqlite3_stmt *st, *one;
    *out = NULL;
    if (sqlite3_prepare_v2(d->conn->db,
                           "SELECT substr(coalesce(failure, '?'), 1,"
                           "  instr(coalesce(failure, '?') || char(10), char(10)) - 1) AS reason, count(*), min(seq)"
                           " FROM runs WHERE status != 'ok' GROUP BY reason ORDER BY count(*) DESC, min(seq)",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_prepare_v2(d->conn->db,
                           "SELECT c.label, r.round, r.output_tail FROM runs r JOIN cells c USING(cell_id)"
                           " WHERE r.seq = ?",
                           -1, &one, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return 0;
    }
    sw_db_failure *f = NULL;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        f = ct_xrealloc(f, (size_t)(n + 1) * sizeof *f);
        sw_db_failure *r = &f[n++];
        memset(r, 0, sizeof *r);
        r->reason = column_dup(st, 0);
        r->count = sqlite3_column_int(st, 1);
        r->first_seq = sqlite3_column_int(st, 2);
        if (n > max)
            continue;
        sqlite3_bind_int(one, 1, r->first_seq);
        if (sqlite3_step(one) == SQLITE_ROW) {
            r->label = column_dup(one, 0);
            r->round = sqlite3_column_int(one, 1);
            r->tail = column_dup(one, 2);
        }
        sqlite3_reset(one);
    }
    sqlite3_finalize(one);
    sqlite3_finalize(st);
    *out = f;
    return n;
}

void sw_db_failures_free(sw_db_failure *f, int n) {
    for (int i = 0; i < n; i++) {
        free(f[i].reason);
        free(f[i].label);
        free(f[i].tail);
    }
    free(f);
}

const char *sw_db_sqlite_version(void) { return sqlite3_libversion(); }

int sw_db_is_open(const sw_db *d) { return d->conn && d->conn->db; }

void sw_db_create_memory(sw_db *d) {
    start(d);
    d->path = ct_xstrdup("(the estimate's calibration, in memory)");
    if (sqlite3_open_v2(":memory:", &d->conn->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        db_fail(d, "opening");
    exec_sql(d, fc_schema_sql);
    prepare_run_statements(d);
}

void sw_db_open_readonly(sw_db *d, const char *what) {
    start(d);
    struct stat st;
    if (stat(what, &st) != 0)
        sw_usage_error("from: %s: %s", what, strerror(errno));
    d->path = S_ISDIR(st.st_mode) ? sw_xasprintf("%s/results.db", what) : ct_xstrdup(what);
    if (access(d->path, R_OK) != 0)
        sw_usage_error("from: %s holds no readable results.db (%s)", what, strerror(errno));
    if (sqlite3_open_v2(d->path, &d->conn->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        sw_usage_error("from: cannot open %s: %s", d->path, d->conn->db ? sqlite3_errmsg(d->conn->db) : "?");
    sqlite3_busy_timeout(d->conn->db, 10000);
    sqlite3_stmt *t;
    if (sqlite3_prepare_v2(d->conn->db, "SELECT count(*) FROM cells, runs, calibration LIMIT 1", -1, &t, NULL) !=
        SQLITE_OK)
        sw_usage_error("from: %s is not a results database written by sweep (%s)", d->path,
                       sqlite3_errmsg(d->conn->db));
    sqlite3_finalize(t);
}

void sw_db_close_readonly(sw_db *d) {
    sqlite3_close(d->conn->db);
    forget(d);
}

/* Whether the cells table has a backend column (sweeps from before the
 * simulated backend have none: every cell is native). */
static int has_backend(sw_db *d) {
    sqlite3_stmt *probe;
    int has = sqlite3_prepare_v2(d->conn->db, "SELECT backend FROM cells", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    return has;
}

int sw_db_cell_times(sw_db *d, sw_db_cell_time **out) {
    sqlite3_stmt *st = prepare(
        d, has_backend(d) ? "SELECT c.cell_id, c.label, c.backend = 'sim', r.wall_ns FROM cells c LEFT JOIN runs r"
                            " ON r.cell_id = c.cell_id AND r.status = 'ok' AND r.wall_ns IS NOT NULL"
                            " ORDER BY c.cell_id, r.wall_ns"
                          : "SELECT c.cell_id, c.label, 0, r.wall_ns FROM cells c LEFT JOIN runs r"
                            " ON r.cell_id = c.cell_id AND r.status = 'ok' AND r.wall_ns IS NOT NULL"
                            " ORDER BY c.cell_id, r.wall_ns");
    sw_db_cell_time *t = NULL;
    int n = 0, last_id = -1;
    int64_t *walls = NULL;
    size_t n_walls = 0;
    for (int rc = sqlite3_step(st);; rc = sqlite3_step(st)) {
        int id = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
        if (id != last_id && n) { /* the previous cell is complete */
            sw_db_cell_time *c = &t[n - 1];
            c->runs = (int)n_walls;
            c->median = !n_walls      ? 0
                        : n_walls % 2 ? walls[n_walls / 2]
                                      : walls[n_walls / 2 - 1] + (walls[n_walls / 2] - walls[n_walls / 2 - 1]) / 2;
            n_walls = 0;
        }
        if (rc != SQLITE_ROW) {
            if (rc != SQLITE_DONE)
                db_fail(d, "reading the run times");
            break;
        }
        if (id != last_id) {
            t = ct_xrealloc(t, (size_t)(n + 1) * sizeof *t);
            memset(&t[n], 0, sizeof t[n]);
            t[n].label = column_dup(st, 1);
            t[n].sim = sqlite3_column_int(st, 2);
            n++;
            last_id = id;
        }
        if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
            walls = ct_xrealloc(walls, (n_walls + 1) * sizeof *walls);
            walls[n_walls++] = sqlite3_column_int64(st, 3);
        }
    }
    sqlite3_finalize(st);
    free(walls);
    *out = t;
    return n;
}

void sw_db_cell_times_free(sw_db_cell_time *t, int n) {
    for (int i = 0; i < n; i++)
        free(t[i].label);
    free(t);
}

int64_t sw_db_median_overhead(sw_db *d, int sim) {
    const char *sql =
        has_backend(d)
            ? "SELECT r.overhead_ns FROM runs r JOIN cells c USING(cell_id) WHERE r.status = 'ok' AND"
              " r.overhead_ns IS NOT NULL AND (c.backend = 'sim') = ? ORDER BY r.overhead_ns"
            : "SELECT overhead_ns FROM runs WHERE status = 'ok' AND overhead_ns IS NOT NULL AND 0 = ? ORDER BY overhead_ns";
    sqlite3_stmt *st = prepare(d, sql);
    sqlite3_bind_int(st, 1, sim != 0);
    int64_t *v = NULL;
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        v = ct_xrealloc(v, (n + 1) * sizeof *v);
        v[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    int64_t m = !n ? -1 : n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
    free(v);
    return m;
}

/* ---- Plain SQL ------------------------------------------------------------ */

int sw_db_open_file_readonly(sw_db *d, const char *path, char **why) {
    start(d);
    d->path = ct_xstrdup(path);
    if (sqlite3_open_v2(path, &d->conn->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        *why = ct_xstrdup(d->conn->db ? sqlite3_errmsg(d->conn->db) : "out of memory");
        sqlite3_close(d->conn->db);
        forget(d);
        return -1;
    }
    sqlite3_busy_timeout(d->conn->db, 10000);
    return 0;
}

int sw_db_query(sw_db *d, const char *sql, const char *param, sw_db_rows *rows, char **why) {
    sw_db_rows r = {0};
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn->db, sql, -1, &st, NULL) != SQLITE_OK) {
        *why = ct_xstrdup(sqlite3_errmsg(d->conn->db));
        if (rows)
            *rows = r;
        return -1;
    }
    if (param)
        sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT);
    r.cols = sqlite3_column_count(st);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!rows)
            continue;
        r.v = ct_xrealloc(r.v, (size_t)(r.n + 1) * (size_t)(r.cols ? r.cols : 1) * sizeof *r.v);
        for (int c = 0; c < r.cols; c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            r.v[r.n * r.cols + c] = t ? ct_xstrdup((const char *)t) : NULL;
        }
        r.n++;
    }
    if (rc != SQLITE_DONE) {
        *why = ct_xstrdup(sqlite3_errmsg(d->conn->db));
        sqlite3_finalize(st);
        sw_db_rows_free(&r);
        if (rows)
            *rows = r;
        return -1;
    }
    sqlite3_finalize(st);
    if (rows)
        *rows = r;
    return 0;
}

const char *sw_db_at(const sw_db_rows *rows, int r, int c) { return rows->v[r * rows->cols + c]; }

void sw_db_rows_free(sw_db_rows *rows) {
    for (int i = 0; i < rows->n * rows->cols; i++)
        free(rows->v[i]);
    free(rows->v);
    memset(rows, 0, sizeof *rows);
}

int sw_db_exec(sw_db *d, const char *sql, char **why) {
    char *err = NULL;
    if (sqlite3_exec(d->conn->db, sql, NULL, NULL, &err) == SQLITE_OK)
        return 0;
    *why = ct_xstrdup(err ? err : "?");
    sqlite3_free(err);
    return -1;
}

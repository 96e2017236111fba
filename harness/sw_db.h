/* sw_db.h - results.db: the schema, one transaction per run, resume queries
 * and the CSV export.
 *
 * Invariants:
 *  - The core tables (meta, cells, runs, run_stats, run_counters, events) are
 *    exactly those of docs/FORMATS.md; this module only adds columns to runs
 *    and events (cells.backend among them), and the tables schedule,
 *    calibration, calibration_probes and sim_native
 *    (docs/HARNESS.md documents every column).
 *  - The whole schedule is stored, in one transaction with the cells, before
 *    the first run; so the missing runs of an interrupted sweep are exactly
 *    the schedule rows without a runs row (same seq), and UNIQUE(seq) makes a
 *    second execution of the same run impossible to store.  The two runs of
 *    a block (blocked design) are committed together (sw_db_store_runs), so
 *    an interrupted sweep never holds half a block and --resume reruns
 *    blocks whole.
 *  - A run, its stats and its counters go in one transaction, committed when
 *    the run finishes (WAL journal: a killed harness loses at most the run in
 *    flight).  At the end of a sweep the journal goes back to DELETE mode so
 *    results.db is one self-contained file.
 *  - Every database error is fatal (exit 1) with SQLite's message; what was
 *    committed before stays.  While the database is open, DIR/.reserve
 *    holds SW_DB_RESERVE bytes of the disk; after a fatal error (a full
 *    disk) sw_db_salvage deletes it first, so there is room to checkpoint
 *    the WAL, mark the sweep interrupted and write runs.csv.
 */
#ifndef SW_DB_H
#define SW_DB_H

#include <stdint.h>
#include "sw_plan.h"
#include "sw_pfm.h"
#include "sw_noise.h"

typedef struct sw_db {
    struct sw_db_conn *conn; /* the connection and its prepared statements (sw_db.c only), NULL when not open */
    char *path;              /* results.db path (messages) */
} sw_db;

/* One finished run, as stored. */
typedef struct sw_run_row {
    int cell_id, round, seq; /* identity and order */
    const char *status;      /* "ok" | "failed" */
    const char *failure;     /* NULL when ok */
    int has_times;           /* wall/user/sys/rss are valid */
    uint64_t wall_ns, user_ns, sys_ns, maxrss_kb;
    uint64_t sgc_seed;                /* SGC_SEED given to the run */
    int cpu;                          /* CPU it was pinned to */
    uint64_t overhead_ns;             /* harness time for the run outside the child's life, before the commit */
    int exit_code, term_signal;       /* -1 when not applicable */
    const char *checksum;             /* printed checksum or NULL */
    const char *output_tail;          /* tail of the output (failed runs) or NULL */
    int64_t profile_bytes;            /* size of the profile written, -1 if none */
    const char *counter_errors;       /* NULL or problems with counters */
    uint64_t started_ns;              /* CLOCK_REALTIME at the start */
    int block, block_pos, block_role; /* the run's block (0 = none), position 1/2, role 1/0 */
    int replicate;                    /* its replicate (--replicates), -1 = none (stored as NULL) */
    int has_noise;                    /* noise holds the covariates over the run */
    sw_noise noise;
    char **stat_keys, **stat_values; /* the stats record */
    int n_stats;
    const sw_counters *counters;   /* events, for the readings below */
    const sw_reading *readings;    /* NULL or counters->n readings */
    const struct sw_segment *segs; /* the segment series (in-process design), or NULL */
    int n_segs;
    const struct sw_series *series; /* what the series' header says (with segs) */
} sw_run_row;

#define SW_DB_RESERVE (1 << 20)

/* Creates results.db in dir (which must exist and not hold one). */
void sw_db_create(sw_db *d, const char *dir);
/* Opens the results.db of an existing sweep directory for --resume; exits 2
 * if it is not one. */
void sw_db_open_existing(sw_db *d, const char *dir);
/* Leaves WAL mode and closes. */
void sw_db_close(sw_db *d);

void sw_db_meta_set(sw_db *d, const char *key, const char *value);
/* Fresh copy of a meta value, or NULL. */
char *sw_db_meta_get(sw_db *d, const char *key);

/* Records the events and whether each is supported (replacing earlier rows). */
void sw_db_store_events(sw_db *d, const sw_counters *c);

/* Calibration of one workload (status "ok" or "failed"). */
void sw_db_store_calibration(sw_db *d, const char *workload, uint64_t size, double seconds, const char *checksum,
                             const char *method, int probes, const char *status, const char *failure);
void sw_db_store_probe(sw_db *d, const char *workload, int probe, uint64_t size, uint64_t wall_ns, uint64_t cpu_ns,
                       const char *status);
/* The simulated part's native rate of a workload: the median native CPU and
 * wall time of runs baseline runs at the simulated size. */
void sw_db_store_sim_native(sw_db *d, const char *workload, uint64_t size, int runs, uint64_t cpu_ns, uint64_t wall_ns);
/* Whether a native rate is stored for workload. */
int sw_db_has_sim_native(sw_db *d, const char *workload);
/* The stored calibration of a workload: returns 1 and fills the outputs
 * (fresh strings) if there is one, else 0. */
int sw_db_get_calibration(sw_db *d, const char *workload, uint64_t *size, char **checksum, char **status,
                          char **failure, double *seconds);

/* Stores the cells and the schedule in one transaction. */
void sw_db_store_plan(sw_db *d, const sw_cell *cells, int n_cells, const sw_slot *slots, int n_slots);
/* Appends the blocks of an adaptive round to the schedule, in one transaction. */
void sw_db_append_schedule(sw_db *d, const sw_cell *cells, const sw_slot *slots, int n_slots);
/* Number of stored cells (0 = the plan is not stored yet). */
int sw_db_count(sw_db *d, const char *table);
/* Loads the stored cells (ids 1..n in order).  A time-sampling cell whose
 * time_mode is NULL or absent (stored before the column) gets legacy_mode
 * (sw_opts_time_modes' one mode of the older form). */
int sw_db_load_cells(sw_db *d, sw_cell **out, const char *legacy_mode);
/* Stores the plan's time_mode of every stored cell whose time_mode is NULL
 * (a sweep from before the column, verified against the plan: --resume). */
void sw_db_fill_time_modes(sw_db *d, const sw_cell *cells, int n_cells);
/* The schedule slots that have no run yet, in seq order. */
int sw_db_missing_slots(sw_db *d, sw_slot **out);

/* Number of stored runs that are not ok (failed or not run). */
int sw_db_count_failed(sw_db *d);
/* The largest value of a schedule column ("seq", "round" or "block"), 0 if
 * the schedule is empty. */
int64_t sw_db_schedule_max(sw_db *d, const char *column);

/* The measured pairs of the blocked design: per block whose two runs are ok
 * with positive wall times (in block order), the compared run's cell index
 * (cell_id - 1) and both wall times. */
typedef struct sw_db_pair {
    int cell;                 /* cell_id - 1 of the compared (role 1) run */
    int64_t wall_ns, base_ns; /* the compared run's and its baseline's */
    int round;                /* the block's round (the planned ones first; sw_adapt.h's pilot) */
} sw_db_pair;
/* Fills *out (free it) and returns how many. */
int sw_db_block_pairs(sw_db *d, sw_db_pair **out);
/* Per cell (index cell_id - 1 below n_cells): how many measured blocks the
 * schedule gives it as the compared run, and in how many of them that run
 * comes first; cells without any are left alone. */
void sw_db_block_balance(sw_db *d, int n_cells, int *blocks, int *firsts);

/* One distinct failure reason (the first line of runs.failure) with its
 * count and the first run that failed so. */
typedef struct sw_db_failure {
    char *reason;  /* first line of the failure ("?" if none) */
    int count;     /* runs that failed so */
    int first_seq; /* the first of them (schedule order) */
    char *label;   /* its cell's label, NULL if unknown */
    int round;     /* its round */
    char *tail;    /* its output_tail, NULL if none */
} sw_db_failure;
/* The failure reasons, most frequent first (ties: earliest first); the
 * first max of them with their first run's label, round and tail, the
 * others with only reason, count and first_seq.  Returns how many reasons
 * there are (0 also if the query cannot run); *out is NULL when 0. */
int sw_db_failures(sw_db *d, int max, sw_db_failure **out);
void sw_db_failures_free(sw_db_failure *f, int n);

/* A results database in memory (the schema, nothing stored on disk): what
 * sweep --plan --estimate calibrates into. */
void sw_db_create_memory(sw_db *d);
/* Opens a finished or interrupted sweep's results.db read-only (what is
 * the directory holding it, or the file itself) for --plan --from; exits 2
 * naming it if it is not one.  Close with sw_db_close_readonly. */
void sw_db_open_readonly(sw_db *d, const char *what);
void sw_db_close_readonly(sw_db *d);

/* The stored time of one run of a cell: the median wall time of its ok
 * runs (every round, warm-up included). */
typedef struct sw_db_cell_time {
    char *label;    /* the cell's label */
    int sim;        /* its backend is sim */
    int runs;       /* its ok runs with a wall time (0: none) */
    int64_t median; /* their median wall_ns (of two middle values, the mean rounded down) */
} sw_db_cell_time;
/* Every stored cell in cell_id order; returns how many (*out: free with
 * sw_db_cell_times_free). */
int sw_db_cell_times(sw_db *d, sw_db_cell_time **out);
void sw_db_cell_times_free(sw_db_cell_time *t, int n);
/* The median harness overhead per run (runs.overhead_ns) of the ok runs of
 * the timed (sim 0) or the simulated part (sim 1), -1 if there are none. */
int64_t sw_db_median_overhead(sw_db *d, int sim);

/* The SQLite library's version. */
const char *sw_db_sqlite_version(void);
/* 1 while d has an open connection (not yet closed or salvaged). */
int sw_db_is_open(const sw_db *d);

/* Stores one run with its stats and counters, committed. */
void sw_db_store_run(sw_db *d, const sw_run_row *r);
/* Stores n runs (a block) in one transaction. */
void sw_db_store_runs(sw_db *d, const sw_run_row *rows, int n);

/* Writes runs.csv (see docs/HARNESS.md) into dir; returns rows written, or
 * -1 after a warning if the file cannot be written (the database holds
 * everything it would). */
int sw_db_export_csv(sw_db *d, const char *csv_path);
/* After a fatal error (a full disk, say): rolls back the transaction in
 * flight, checkpoints and truncates the WAL (freeing its space), marks the
 * sweep interrupted, writes runs.csv, closes the database, and prints how
 * many runs are recorded and the --resume command.  Never exits; says what
 * it could not do. */
void sw_db_salvage(sw_db *d, const char *dir);

/* ---- Plain SQL, for the merge of shards (sw_shard.c) ---------------------
 * The merge reads the shards' databases and writes the merged one in SQL;
 * these keep SQLite itself inside sw_db.c.  None of them exits: errors come
 * back as SQLite's message in *why (fresh), for the caller's own words. */

/* A query's result: n rows of cols values, as text (NULL for SQL NULL). */
typedef struct sw_db_rows {
    int n, cols;
    char **v; /* row r, column c at v[r * cols + c] */
} sw_db_rows;

/* Opens the database file at path read-only, nothing prepared (close with
 * sw_db_close_readonly).  0, or -1 with *why. */
int sw_db_open_file_readonly(sw_db *d, const char *path, char **why);
/* Runs one SQL statement with an optional text parameter (param NULL: none)
 * and collects its rows into *rows (may be NULL to discard them).  0, or -1
 * with *why (and *rows empty). */
int sw_db_query(sw_db *d, const char *sql, const char *param, sw_db_rows *rows, char **why);
/* The value at row r, column c (NULL for SQL NULL). */
const char *sw_db_at(const sw_db_rows *rows, int r, int c);
void sw_db_rows_free(sw_db_rows *rows);
/* Runs SQL statements separated by semicolons, without parameters.  0, or
 * -1 with *why. */
int sw_db_exec(sw_db *d, const char *sql, char **why);

#endif /* SW_DB_H */

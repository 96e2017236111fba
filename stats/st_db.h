/* st_db.h - loads a sweep's results.db (the tables of docs/FORMATS.md) into memory.
 *
 * Invariants:
 *  - Only the documented tables and columns are read: cells, runs (round > 0
 *    only: warm-up rounds are never loaded), run_stats (the keys of
 *    runtime/sgc_stats_keys.h), run_counters joined with events (supported events only) and
 *    meta.  cells, runs and run_stats are required; a database without
 *    run_counters, events or meta is analysed without them (a warning).
 *    An optional `depth` or `args` column of cells gives a stack depth; the
 *    harness's optional `schedule` table (docs/HARNESS.md) gives the number
 *    of planned measured runs, to tell an interrupted sweep.  The harness's
 *    optional runs columns block, block_role and the noise covariates
 *    (docs/HARNESS.md) are read when present (else 0 and NaN).
 *  - The simulated cells (cells.backend = 'sim'), their runs and the sim::
 *    events are not loaded: st_sim.h analyses them.  A sweep with only
 *    simulated cells loads with ncells = 0 and sim_only set.
 *  - The database is opened read-only and read inside one transaction, so a
 *    sweep still being written is seen at one consistent point.
 *  - cells are sorted by cell_id; each cell's measured runs are contiguous
 *    in runs[first_run .. first_run + nruns), sorted by round.  A run is
 *    "used" when status = 'ok' and wall_ns > 0; the rest are "failed".
 *  - Missing values (NULL columns, absent stats keys or counters, values
 *    that are not numbers) are NaN, never 0.
 *  - The stored stats record of every ok run follows the record's rules
 *    (runtime/sgc_statsrec.h, the harness's own), no key required; one that
 *    does not is a damaged or edited database (exit 2, naming the run and
 *    the rule).  A failed run's record is neither judged nor analysed.
 *  - All strings are owned by the st_sweep and freed by st_sweep_free.
 */
#ifndef ST_DB_H
#define ST_DB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sgc_modes.h"
#include "sgc_stats_keys.h"

/* The stats record's keys (runtime/sgc_stats_keys.h): ST_K_<key> indexes
 * st_run.key; every key of the table is loaded (a WORD key is NaN). */
#define ST__KEY_ENUM(key, type, value, what) ST_K_##key,
typedef enum st_key { SGC_STATS_KEYS(ST__KEY_ENUM) ST_NKEYS } st_key;
#undef ST__KEY_ENUM

/* The stats key named by k, as stored in run_stats.key. */
const char *st_key_name(st_key k);

typedef struct st_run {
    int64_t run_id;                             /* runs.run_id */
    int64_t round;                              /* runs.round, >= 1 */
    int status_ok;                              /* status 'ok' */
    int used;                                   /* status 'ok' and wall_ns > 0 */
    double wall_ns, user_ns, sys_ns, maxrss_kb; /* NaN if NULL */
    double key[ST_NKEYS];                       /* stats record values, NaN if absent */
    int64_t seq;                                /* runs.seq: the position in the sweep's execution order */
    int64_t block;                              /* runs.block (blocked design), 0 if none */
    int role;                                   /* runs.block_role: 1 = the compared run, 0 = the baseline run */
    double steal_ns, other_busy_ns, nivcsw, minflt, loadavg1; /* noise covariates, NaN if absent */
    char *failure;                                            /* runs.failure of a run not used (NULL if none given) */
} st_run;

typedef struct st_cell {
    int64_t cell_id;
    char *workload, *kind, *alloc_mode, *time_clock, *label; /* from cells */
    char *time_mode; /* cells.time_mode: "signal" or "thread" for a time-sampling cell ("" for another system's, or
                        without time sampling); a sweep from before the column: its --env SGC_TIME_MODE, else signal */
    int64_t alloc_period, time_hz, size; /* from cells */
    double depth;                        /* stack depth from the optional columns, else NaN */
    size_t first_run;                    /* index of its first measured run in st_sweep.runs */
    size_t nruns;                        /* measured runs (round > 0) */
    size_t used, failed;                 /* used + failed == nruns */
} st_cell;

typedef struct st_sweep {
    char *dir;      /* the sweep directory as given */
    st_cell *cells; /* sorted by cell_id */
    size_t ncells;
    st_run *runs; /* grouped by cell, then by round */
    size_t nruns;
    char **events; /* supported events with counters, sorted */
    size_t nevents;
    double *counter;               /* counter[r * nevents + e]: scaled value or NaN */
    char **meta_key, **meta_value; /* the meta table, sorted by key */
    size_t nmeta;
    int has_depth;     /* some cell has a depth */
    long planned;      /* measured runs in the harness's schedule table, -1 if none */
    int sim_only;      /* no native cells, only simulated ones (st_sim.h) */
    char warning[512]; /* non-fatal problem to print, or "" */
} st_sweep;

/* The cell samples allocations in fixed mode (sgc_modes.h), whose sample
 * counts the sampling rule makes exact. */
static inline int st_cell_fixed(const st_cell *c) {
    return strcmp(c->alloc_mode, sgc_alloc_mode_name(SGC_SAMPLE_FIXED)) == 0;
}

/* The comparisons of allocation against time sampling (st_normdiff.h) are
 * made per key: a workload's time cells of each time sampler's mode are
 * their own comparison.  The key is the workload for the first mode
 * (signal) and for cells with no mode, "<workload>/<mode>" for the others
 * ("gcbench/thread"; workload names have no '/').  A cell belongs to a key
 * of its workload if it does not sample time (allocation cells and
 * baselines belong to every key of their workload), else if its mode is the
 * key's. */
static inline int st_cell_in_key(const st_cell *c, const char *key) {
    size_t n = strlen(c->workload);
    if (strncmp(key, c->workload, n) || (key[n] && key[n] != '/'))
        return 0;
    if (!c->time_hz)
        return 1;
    if (key[n])
        return strcmp(c->time_mode, key + n + 1) == 0;
    return !c->time_mode[0] || strcmp(c->time_mode, sgc_time_mode_name(0)) == 0;
}

/* The text of contracts/schema.sql, the tables build/bin/sweep creates (the
 * tests build their fixture databases from it). */
const char *st_schema_sql(void);

/* Loads DIR/results.db.  Returns 0 on success; 2 for bad input (DIR or the
 * database missing, unreadable, corrupt or not a sweep: no documented
 * tables, or no cells; failing SQLite's PRAGMA quick_check; a value no sweep
 * can produce, such as a non-positive or absurd wall time of an 'ok' run, an
 * allocation cell with a non-positive period, more samples than possible),
 * with a message naming the problem (and the run or cell) in err. */
int st_sweep_load(const char *dir, st_sweep *sw, char *err, size_t errlen);

void st_sweep_free(st_sweep *sw);

/* The meta value of key, or NULL if the sweep has none. */
const char *st_sweep_meta(const st_sweep *sw, const char *key);

#endif

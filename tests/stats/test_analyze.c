/* test_analyze.c - build/bin/analyze end to end on fixture databases: values, files, edge cases, exit status.
 *
 * Each test builds its own results.db in a fresh temporary directory from
 * contracts/schema.sql (the schema the harness creates, embedded in the
 * statistics library: st_schema_sql) plus SQL of its own (small.sql for the
 * full pipeline), runs the analyze binary named by $ST_ANALYZE, and checks
 * the exit status, stderr and the files written.  Expected values follow
 * by hand from the fixture's construction (see small.sql's comment).
 */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "st_db.h"
#include <unistd.h>

#include "st_plotdata.h"
#include "st_sim.h"

#define EPS 1e-9

/* ---- Helpers ---------------------------------------------------------------- */

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

static const char *fixtures(void) {
    const char *d = getenv("ST_FIXTURES");
    return d ? d : "tests/stats/fixtures";
}

static char *fixture_sql(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fixtures(), name);
    char *s = slurp(path);
    cr_assert(s, "cannot read fixture %s (run from the repository root or set ST_FIXTURES)", path);
    return s;
}

static char *new_dir(void) {
    char *d = strdup("/tmp/freecheck-stats-XXXXXX");
    cr_assert(mkdtemp(d), "mkdtemp failed");
    return d;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void rm_dir(char *d) {
    nftw(d, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(d);
}

/* Creates dir/results.db from contracts/schema.sql (if with_schema), then sql. */
static void make_db(const char *dir, int with_schema, const char *sql) {
    char path[512];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    if (with_schema) {
        cr_assert_eq(sqlite3_exec(db, st_schema_sql(), NULL, NULL, &err), SQLITE_OK, "schema: %s", err);
    }
    if (sql)
        cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &err), SQLITE_OK, "fixture SQL: %s", err);
    sqlite3_close(db);
}

/* Runs analyze with the given arguments (NULL-terminated); stderr goes to
 * *err (malloc'd).  Returns the exit status, or -1 if it did not exit. */
static int run_analyze(char **err, const char *a0, const char *a1, const char *a2, const char *a3, const char *a4) {
    const char *bin = getenv("ST_ANALYZE");
    if (!bin)
        bin = "build/bin/analyze";
    char errpath[] = "/tmp/freecheck-stats-err-XXXXXX";
    int fd = mkstemp(errpath);
    cr_assert(fd >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(fd, 2);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        const char *argv[7] = {bin, a0, a1, a2, a3, a4, NULL};
        execv(bin, (char **)argv);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    close(fd);
    *err = slurp(errpath);
    unlink(errpath);
    cr_assert(!(WIFEXITED(status) && WEXITSTATUS(status) == 127), "cannot run %s (set ST_ANALYZE)", bin);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* summary.csv as rows of fields (the comment line skipped; row 0 = header). */
typedef struct table {
    char *text;
    char **field[64];
    int nf[64];
    int rows;
} table;

static void load_csv(table *t, const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    t->text = slurp(path);
    cr_assert(t->text, "%s was not written", path);
    t->rows = 0;
    for (char *line = strtok(t->text, "\n"); line && t->rows < 64; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char **f = malloc(128 * sizeof *f);
        int n = 0;
        char *p = line;
        for (;;) {
            char *c = strchr(p, ',');
            f[n++] = p;
            if (!c || n == 128)
                break;
            *c = 0;
            p = c + 1;
        }
        t->field[t->rows] = f;
        t->nf[t->rows] = n;
        t->rows++;
    }
}

static void free_csv(table *t) {
    for (int i = 0; i < t->rows; i++)
        free(t->field[i]);
    free(t->text);
}

static const char *get(const table *t, const char *label, const char *column) {
    int col = -1;
    for (int j = 0; j < t->nf[0]; j++)
        if (strcmp(t->field[0][j], column) == 0)
            col = j;
    cr_assert(col >= 0, "no column %s", column);
    for (int i = 1; i < t->rows; i++)
        if (strcmp(t->field[i][1], label) == 0) {
            cr_assert(col < t->nf[i], "row %s is short", label);
            return t->field[i][col];
        }
    cr_assert_fail("no row %s", label);
    return NULL;
}

static double getd(const table *t, const char *label, const char *column) {
    const char *s = get(t, label, column);
    cr_assert(*s, "%s of %s is empty", column, label);
    return strtod(s, NULL);
}

/* No "nan" or "inf" text anywhere: missing values must be empty fields. */
static void assert_no_nan_text(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *s = slurp(path);
    cr_assert(s);
    for (char *p = s; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    cr_assert(!strstr(s, ",nan") && !strstr(s, ",inf") && !strstr(s, ",-inf"), "%s contains nan/inf", name);
    free(s);
}

/* The SQL for one workload with a baseline and one alloc cell, n measured
 * runs each (rounds 1..n, plus a warm-up), wall = base + step * round. */
static char *simple_sweep(int n, long base_step, long cell_step, const char *extra) {
    char *s = malloc(4096);
    snprintf(
        s, 4096,
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label)"
        " VALUES (1,'w','baseline',0,'',0,'',10,'w/base'),"
        " (2,'w','alloc',65536,'fixed',0,'',10,'w/alloc');"
        "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < %d)"
        " INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb)"
        " SELECT 100 * c + k, c, k, 100 * c + k, 'ok', CASE c WHEN 1 THEN 100000000 + %ld * k"
        " ELSE 120000000 + %ld * k END, 1000, 1000, 1 FROM r, (SELECT 1 AS c UNION SELECT 2);"
        "INSERT INTO run_stats SELECT run_id, 'alloc_samples', CASE cell_id WHEN 2 THEN 1000 ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id, 'alloc_sample_points', CASE cell_id WHEN 2 THEN 1000 ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id, 'sampled_bytes', CASE cell_id WHEN 2 THEN 65536000 ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id, 'time_samples', 0 FROM runs;"
        "INSERT INTO run_stats SELECT run_id, 'bytes_allocated', 65536000 FROM runs;"
        "%s",
        n, base_step, cell_step, extra ? extra : "");
    return s;
}

/* ---- The full pipeline on small.sql --------------------------------------- */

Test(analyze, small_sweep_values_files_and_exactness) {
    char *dir = new_dir(), *err;
    char *sql = fixture_sql("small.sql");
    make_db(dir, 1, sql);
    free(sql);
    int rc = run_analyze(&err, "--resamples", "2000", dir, NULL, NULL);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    cr_assert(strstr(err, "EXACTNESS MISMATCH microbench/alloc-fixed-64K round 2"), "stderr: %s", err);
    free(err);

    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_eq(t.rows, 9); /* header + 8 cells */
    /* Warm-up ignored, failed run excluded and counted. */
    cr_assert_float_eq(getd(&t, "gcbench/baseline", "wall_median_ns"), 203e6, EPS);
    cr_assert_float_eq(getd(&t, "gcbench/baseline", "wall_q1_ns"), 201.5e6, EPS);
    cr_assert_float_eq(getd(&t, "gcbench/baseline", "wall_mad_ns"), 2e6, EPS);
    cr_assert_eq((int)getd(&t, "gcbench/alloc-fixed-1M", "runs"), 6);
    cr_assert_eq((int)getd(&t, "gcbench/alloc-fixed-1M", "runs_failed"), 1);
    cr_assert(strstr(get(&t, "gcbench/alloc-fixed-1M", "note"), "1 of 7 measured runs failed"));
    /* Overheads: ratios of medians. */
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "overhead"), 263.0 / 203.0, 1e-5);
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-1M", "overhead"), 207.5 / 203.0, 1e-5);
    cr_assert_float_eq(getd(&t, "microbench/alloc-fixed-1M", "overhead"), 106.0 / 103.0, 1e-5);
    double lo = getd(&t, "gcbench/alloc-fixed-64K", "overhead_lo"),
           hi = getd(&t, "gcbench/alloc-fixed-64K", "overhead_hi");
    cr_assert(lo < 263.0 / 203.0 && hi > 263.0 / 203.0 && lo > 1.2 && hi < 1.4, "CI [%g, %g]", lo, hi);
    cr_assert_str_eq(get(&t, "gcbench/alloc-fixed-64K", "overhead_ci"), "bca");
    /* CPU time is task-clock (wall - 1 ms in the fixture). */
    cr_assert_str_eq(get(&t, "gcbench/alloc-fixed-64K", "cpu_source"), "task-clock");
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "cpu_overhead"), 262.0 / 202.0, 1e-5);
    /* Samples: 400000000 / 65536 = 6103 per run; per-sample cost (263-203) ms / 6103. */
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "alloc_samples"), 6103, EPS);
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "sample_cost_us"), 60e6 / 6103 / 1000, 1e-4);
    double sps = 6103 / 0.263;
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "alloc_sps"), sps, sps * 1e-5);
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "norm_overhead"), 1 + (263.0 / 203.0 - 1) * 1000 / sps,
                       1e-5);
    /* Time cell: 200 samples per run; rate 200 / wall s. */
    cr_assert_float_eq(getd(&t, "gcbench/time-wall-1000", "time_sps"), 200 / 0.205, 1e-5 * 200 / 0.205);
    /* Rank test: the 64K cell's 7 runs all exceed the baseline's 7. */
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "mw_u"), 49, EPS);
    cr_assert_str_eq(get(&t, "gcbench/alloc-fixed-64K", "mw_method"), "exact");
    cr_assert_float_eq(getd(&t, "gcbench/alloc-fixed-64K", "mw_p"), 2.0 / 3432.0, 1e-6);
    cr_assert_str_eq(get(&t, "gcbench/alloc-fixed-64K", "verdict"), "slower");
    cr_assert_str_eq(get(&t, "gcbench/baseline", "verdict"), "baseline");
    /* Exactness. */
    cr_assert_eq((int)getd(&t, "microbench/alloc-fixed-64K", "exact_checked"), 7);
    cr_assert_eq((int)getd(&t, "microbench/alloc-fixed-64K", "exact_mismatches"), 1);
    cr_assert_eq((int)getd(&t, "gcbench/alloc-fixed-64K", "exact_mismatches"), 0);
    cr_assert(strstr(get(&t, "microbench/alloc-fixed-64K", "note"), "EXACTNESS MISMATCH"));
    /* A/A on the baseline rows. */
    cr_assert(*get(&t, "gcbench/baseline", "aa_ratio"));
    free_csv(&t);
    assert_no_nan_text(dir, "summary.csv");
    assert_no_nan_text(dir, "metrics.csv");

    table m;
    load_csv(&m, dir, "metrics.csv");
    cr_assert_eq(m.rows, 1 + 8 * 6); /* 5 run metrics + 1 supported counter per cell */
    free_csv(&m);

    char path[512];
    char *md = (snprintf(path, sizeof path, "%s/summary.md", dir), slurp(path));
    cr_assert(md && strstr(md, "EXACTNESS MISMATCH") && strstr(md, "## Headlines") && strstr(md, "seed 20250616"));
    cr_assert(strstr(md, "| 64K | microbench |"), "worst workload at 64K is microbench");
    cr_assert(strstr(md, "| gcbench/alloc-fixed-1M | 1 of 7 | wrong checksum (1) |"), "failed runs listed");
    cr_assert(!strstr(md, "planned measured runs"), "no schedule table: nothing said about planned runs");
    free(md);
    static const char *const dats[] = {"workloads",     "alloc_runs", "alloc_cells", "time_runs", "time_cells",
                                       "baseline_runs", "normalized", "exactness",   "depth"};
    for (size_t i = 0; i < sizeof dats / sizeof *dats; i++) {
        snprintf(path, sizeof path, "%s/plotdata/%s.dat", dir, dats[i]);
        char *s = slurp(path);
        cr_assert(s && s[0] == '#', "%s missing or without header", path);
        free(s);
    }
    snprintf(path, sizeof path, "%s/plotdata/exactness.dat", dir);
    char *ex = slurp(path);
    cr_assert(strstr(ex, "microbench fixed 65536 2 100000000 1525.87890625 1526 0 0\n"), "%s", ex);
    free(ex);
    snprintf(path, sizeof path, "%s/plotdata/alloc_runs.dat", dir);
    char *ar = slurp(path);
    cr_assert(strstr(ar, "\n\n\nmicrobench fixed"), "workloads separated by two blank lines");
    cr_assert(!strstr(ar, " 0 2"), "no warm-up rows");
    free(ar);
    rm_dir(dir);
}

Test(analyze, deterministic_given_the_seed) {
    char *dir = new_dir(), *err;
    char *sql = fixture_sql("small.sql");
    make_db(dir, 1, sql);
    free(sql);
    char path[512], *a, *b;
    cr_assert_eq(run_analyze(&err, "--resamples=1000", "--seed", "42", dir, NULL), 0, "%s", err);
    free(err);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    a = slurp(path);
    cr_assert_eq(run_analyze(&err, "--resamples=1000", "--seed", "42", "--quiet", dir), 0);
    /* Quiet: no progress or summary line; the exactness mismatch is still reported. */
    cr_assert(!strstr(err, "analyze: gcbench") && !strstr(err, "wrote"), "--quiet printed: %s", err);
    cr_assert(strstr(err, "EXACTNESS MISMATCH"), "%s", err);
    free(err);
    b = slurp(path);
    cr_assert_str_eq(a, b);
    cr_assert(strstr(a, "# analyze seed=42 resamples=1000 confidence=0.95\n"));
    free(b);
    cr_assert_eq(run_analyze(&err, "--resamples=1000", "--seed", "43", "--quiet", dir), 0);
    free(err);
    b = slurp(path);
    cr_assert_str_neq(a, b);
    free(a);
    free(b);
    rm_dir(dir);
}

/* ---- Edge cases ---------------------------------------------------------------- */

Test(edge, bad_arguments_exit_2) {
    char *err;
    cr_assert_eq(run_analyze(&err, NULL, NULL, NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "no sweep directory"), "%s", err);
    free(err);
    cr_assert_eq(run_analyze(&err, "--resamples", "5", "/tmp", NULL, NULL), 2);
    cr_assert(strstr(err, "--resamples: '5'"), "%s", err);
    free(err);
    cr_assert_eq(run_analyze(&err, "--confidence", "1.5", "/tmp", NULL, NULL), 2);
    cr_assert(strstr(err, "--confidence"), "%s", err);
    free(err);
    cr_assert_eq(run_analyze(&err, "--seed", "x1", "/tmp", NULL, NULL), 2);
    free(err);
    cr_assert_eq(run_analyze(&err, "--frobnicate", "/tmp", NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "unknown option '--frobnicate'"), "%s", err);
    free(err);
    cr_assert_eq(run_analyze(&err, "/tmp", "/tmp", NULL, NULL, NULL), 2);
    free(err);
}

Test(edge, not_a_sweep_exit_2) {
    char *dir = new_dir(), *err, path[512];
    cr_assert_eq(run_analyze(&err, "/nonexistent/sweep", NULL, NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "/nonexistent/sweep: No such file or directory"), "%s", err);
    free(err);
    cr_assert_eq(run_analyze(&err, dir, NULL, NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "is not a sweep directory"), "%s", err);
    free(err);
    /* A file given as DIR. */
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *f = fopen(path, "w");
    fputs("x", f);
    fclose(f);
    cr_assert_eq(run_analyze(&err, path, NULL, NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "not a directory"), "%s", err);
    free(err);
    /* Corrupt: not an SQLite file. */
    snprintf(path, sizeof path, "%s/results.db", dir);
    f = fopen(path, "w");
    fputs("this is not a database, just text that is long enough to have a header......\n", f);
    fclose(f);
    cr_assert_eq(run_analyze(&err, dir, NULL, NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "not an SQLite database"), "%s", err);
    free(err);
    /* An SQLite database without the tables. */
    unlink(path);
    make_db(dir, 0, "CREATE TABLE other(x);");
    cr_assert_eq(run_analyze(&err, dir, NULL, NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "no such table: cells") && strstr(err, "not a freecheck results database"), "%s", err);
    free(err);
    /* The tables, but no cells. */
    unlink(path);
    make_db(dir, 1, NULL);
    cr_assert_eq(run_analyze(&err, dir, NULL, NULL, NULL, NULL), 2);
    cr_assert(strstr(err, "no cells"), "%s", err);
    free(err);
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    cr_assert(access(path, F_OK) != 0, "nothing written for bad input");
    rm_dir(dir);
}

Test(edge, every_run_failed_exit_1_with_summary) {
    char *dir = new_dir(), *err;
    char *sql = simple_sweep(5, 1000000, 1000000, "UPDATE runs SET status = 'failed', failure = 'crash';");
    make_db(dir, 1, sql);
    free(sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 1);
    cr_assert(strstr(err, "no measured run succeeded (10 failed)"), "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_eq((int)getd(&t, "w/alloc", "runs"), 0);
    cr_assert_eq((int)getd(&t, "w/alloc", "runs_failed"), 5);
    cr_assert_str_empty(get(&t, "w/alloc", "overhead"));
    cr_assert(strstr(get(&t, "w/alloc", "note"), "every measured run failed"));
    cr_assert_str_eq(get(&t, "w/alloc", "verdict"), "n/a");
    free_csv(&t);
    assert_no_nan_text(dir, "summary.csv");
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(md && strstr(md, "No measured run succeeded"));
    free(md);
    rm_dir(dir);
}

Test(edge, no_baseline) {
    char *dir = new_dir(), *err;
    char *sql =
        simple_sweep(5, 1000000, 1000000, "DELETE FROM runs WHERE cell_id = 1; DELETE FROM cells WHERE cell_id = 1;");
    make_db(dir, 1, sql);
    free(sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_eq(t.rows, 2);
    cr_assert_str_empty(get(&t, "w/alloc", "overhead"));
    cr_assert_str_empty(get(&t, "w/alloc", "norm_overhead"));
    cr_assert_str_eq(get(&t, "w/alloc", "overhead_ci"), "none");
    cr_assert(strstr(get(&t, "w/alloc", "note"), "no baseline cell for workload w at size 10"), "%s",
              get(&t, "w/alloc", "note"));
    /* The cell's own rate is still there: 1000 samples in 0.122 s (median). */
    cr_assert_float_eq(getd(&t, "w/alloc", "alloc_sps"), 1000 / 0.123, 1e-5 * 1000 / 0.123);
    free_csv(&t);
    assert_no_nan_text(dir, "summary.csv");
    rm_dir(dir);
}

Test(edge, fewer_than_three_runs) {
    char *dir = new_dir(), *err;
    /* Also a sweep still running: analysed, and said so. */
    char *sql =
        simple_sweep(2, 1000000, 1000000,
                     "INSERT INTO meta VALUES ('status', 'running');"
                     "INSERT INTO schedule(seq, cell_id, round) SELECT seq * 10 + cell_id, cell_id, round FROM runs;"
                     "INSERT INTO schedule(seq, cell_id, round) VALUES (998, 1, 3), (999, 2, 3);");
    make_db(dir, 1, sql);
    free(sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    cr_assert(strstr(err, "the sweep is not complete (status running)"), "%s", err);
    free(err);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(md && strstr(md, "This sweep is not complete"));
    cr_assert(strstr(md, "**4 of 6 planned measured runs are recorded** (2 missing"), "%s", md);
    free(md);
    table t;
    load_csv(&t, dir, "summary.csv");
    /* Medians of {121, 122} ms and {101, 102} ms. */
    cr_assert_float_eq(getd(&t, "w/alloc", "overhead"), 121.5 / 101.5, 1e-5);
    cr_assert_str_eq(get(&t, "w/alloc", "overhead_ci"), "none");
    cr_assert_str_empty(get(&t, "w/alloc", "overhead_lo"));
    cr_assert(strstr(get(&t, "w/alloc", "note"), "fewer than 3 runs in the cell"));
    cr_assert_str_eq(get(&t, "w/alloc", "verdict"), "n/a");
    cr_assert_str_eq(get(&t, "w/base", "aa_ci"), "none"); /* 1 run per half */
    cr_assert(strstr(get(&t, "w/base", "note"), "A/A"));
    free_csv(&t);
    assert_no_nan_text(dir, "summary.csv");
    rm_dir(dir);
}

Test(edge, identical_values) {
    char *dir = new_dir(), *err;
    char *sql = simple_sweep(6, 0, 0, "UPDATE runs SET wall_ns = 100000000;");
    make_db(dir, 1, sql);
    free(sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_float_eq(getd(&t, "w/alloc", "overhead"), 1.0, EPS);
    cr_assert_str_eq(get(&t, "w/alloc", "overhead_ci"), "degenerate");
    cr_assert_float_eq(getd(&t, "w/alloc", "overhead_lo"), 1.0, EPS);
    cr_assert_float_eq(getd(&t, "w/alloc", "overhead_hi"), 1.0, EPS);
    cr_assert_float_eq(getd(&t, "w/alloc", "mw_p"), 1.0, EPS);
    /* The one verdict (st_verdict.h): a degenerate [1, 1] lies within the margin. */
    cr_assert_str_eq(get(&t, "w/alloc", "verdict"), "no effect above 2%");
    cr_assert_float_eq(getd(&t, "w/alloc", "wall_mad_ns"), 0, EPS);
    /* Zero extra time: per-sample cost exactly 0 with a degenerate interval. */
    cr_assert_float_eq(getd(&t, "w/alloc", "sample_cost_us"), 0, EPS);
    cr_assert_str_eq(get(&t, "w/base", "aa_ci"), "degenerate");
    cr_assert_float_eq(getd(&t, "w/base", "aa_floor"), 0, EPS);
    free_csv(&t);
    assert_no_nan_text(dir, "summary.csv");
    rm_dir(dir);
}

Test(edge, no_samples_taken) {
    char *dir = new_dir(), *err;
    char *sql = simple_sweep(5, 1000000, 1000000, "UPDATE run_stats SET value = '0' WHERE key = 'alloc_samples';");
    make_db(dir, 1, sql);
    free(sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_float_eq(getd(&t, "w/alloc", "alloc_sps"), 0, EPS);
    cr_assert_str_empty(get(&t, "w/alloc", "norm_overhead"));
    cr_assert_str_empty(get(&t, "w/alloc", "sample_cost_us"));
    cr_assert(strstr(get(&t, "w/alloc", "note"), "no samples taken"), "%s", get(&t, "w/alloc", "note"));
    free_csv(&t);
    assert_no_nan_text(dir, "summary.csv");
    rm_dir(dir);
}

Test(analyze, depth_from_workload_arguments) {
    /* deepstack at depths 8 and 64 given only in an args column (a results
     * database from before the harness had a depth column), each with its own
     * baseline; allocation cells at 64K. */
    char *dir = new_dir(), *err;
    make_db(
        dir, 1,
        "ALTER TABLE cells DROP COLUMN depth; ALTER TABLE cells DROP COLUMN backend; ALTER TABLE cells DROP COLUMN time_mode;"
        "INSERT INTO cells VALUES (1,'deepstack','baseline',0,'',0,'',10,'d8/base','--depth 8'),"
        " (2,'deepstack','alloc',65536,'fixed',0,'',10,'d8/alloc','--depth 8'),"
        " (3,'deepstack','baseline',0,'',0,'',10,'d64/base','--depth=64'),"
        " (4,'deepstack','alloc',65536,'fixed',0,'',10,'d64/alloc','--depth=64');"
        "WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < 5)"
        " INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb)"
        " SELECT 10 * c + k, c, k, 10 * c + k, 'ok', 100000000 + 1000000 * k + CASE c WHEN 2 THEN 1000000 WHEN 4 THEN 4000000"
        " ELSE 0 END, 1, 1, 1 FROM r, (SELECT 1 AS c UNION SELECT 2 UNION SELECT 3 UNION SELECT 4);"
        "INSERT INTO run_stats SELECT run_id, 'alloc_samples', CASE WHEN cell_id IN (2, 4) THEN 1000 ELSE 0 END FROM runs;");
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_float_eq(getd(&t, "d8/alloc", "depth"), 8, EPS);
    cr_assert_float_eq(getd(&t, "d64/alloc", "depth"), 64, EPS);
    /* Each depth against its own baseline: 1 ms and 4 ms over 1000 samples. */
    cr_assert_str_eq(get(&t, "d8/alloc", "baseline"), "d8/base");
    cr_assert_float_eq(getd(&t, "d8/alloc", "sample_cost_us"), 1.0, 1e-9);
    cr_assert_float_eq(getd(&t, "d64/alloc", "sample_cost_us"), 4.0, 1e-9);
    free_csv(&t);
    char path[512];
    snprintf(path, sizeof path, "%s/plotdata/depth.dat", dir);
    char *d = slurp(path);
    cr_assert(d && strstr(d, "deepstack 8 alloc 65536 0 5 1000 1 ") &&
                  strstr(d, "deepstack 64 alloc 65536 0 5 1000 4 "),
              "%s", d);
    char *d8 = strstr(d, "deepstack 8 "), *d64 = strstr(d, "deepstack 64 "), *gap = strstr(d, "\n\n");
    cr_assert(d8 < d64 && (!gap || gap > d64), "one series, sorted by depth: %s", d);
    free(d);
    /* Depth cells are their own experiment: they stay out of the period
     * matrix's plot data (which would show them as extra copies of
     * deepstack at 64K) and its headlines. */
    const char *matrix[] = {"alloc_cells.dat", "alloc_runs.dat", "baseline_runs.dat", "normalized.dat"};
    for (size_t i = 0; i < sizeof matrix / sizeof matrix[0]; i++) {
        snprintf(path, sizeof path, "%s/plotdata/%s", dir, matrix[i]);
        d = slurp(path);
        cr_assert(d != NULL, "%s missing", matrix[i]);
        cr_assert(strstr(d, "\ndeepstack ") == NULL, "%s holds depth cells:\n%s", matrix[i], d);
        free(d);
    }
    rm_dir(dir);
}

/* ---- Damaged and impossible databases -------------------------------------- */

/* Swaps the first two cell pointers of the first leaf page of table's
 * b-tree in dir/results.db: every row still reads, but its keys are out of
 * order, which SQLite's quick_check finds and a plain SELECT does not. */
static void damage_table(const char *dir, const char *table) {
    char path[512], sql[256];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    snprintf(sql, sizeof sql, "SELECT rootpage FROM sqlite_master WHERE name = '%s'", table);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    long page = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    FILE *f = fopen(path, "r+b");
    cr_assert(f);
    unsigned char hdr[100], p[65536];
    cr_assert_eq(fread(hdr, 1, 100, f), 100);
    long psize = hdr[16] << 8 | hdr[17];
    if (psize == 1)
        psize = 65536;
    for (;;) {
        long off = (page - 1) * psize, h = page == 1 ? 100 : 0;
        cr_assert_eq(fseek(f, off, SEEK_SET), 0);
        cr_assert_eq(fread(p, 1, (size_t)psize, f), (size_t)psize);
        if (p[h] == 0x05) { /* interior table page: go down its first child */
            long ptr = p[h + 12] << 8 | p[h + 13];
            page = (long)p[ptr] << 24 | p[ptr + 1] << 16 | p[ptr + 2] << 8 | p[ptr + 3];
            continue;
        }
        cr_assert_eq(p[h], 0x0d, "page %ld is not a table leaf", page);
        cr_assert_geq(p[h + 3] << 8 | p[h + 4], 2, "fewer than two rows on the page");
        unsigned char t0 = p[h + 8], t1 = p[h + 9];
        p[h + 8] = p[h + 10];
        p[h + 9] = p[h + 11];
        p[h + 10] = t0;
        p[h + 11] = t1;
        cr_assert_eq(fseek(f, off, SEEK_SET), 0);
        cr_assert_eq(fwrite(p, 1, (size_t)psize, f), (size_t)psize);
        break;
    }
    fclose(f);
}

Test(edge, damaged_database_fails_quick_check_exit_2) {
    const char *tables[] = {"runs", "run_stats", "cells"};
    for (int i = 0; i < 3; i++) {
        char *dir = new_dir(), *err, path[512];
        char *sql = fixture_sql("small.sql");
        make_db(dir, 1, sql);
        free(sql);
        damage_table(dir, tables[i]);
        cr_assert_eq(run_analyze(&err, dir, NULL, NULL, NULL, NULL), 2, "%s: %s", tables[i], err);
        cr_assert(strstr(err, "/results.db: the database is damaged (SQLite's PRAGMA quick_check: ") &&
                      strstr(err, "its numbers cannot be trusted"),
                  "%s: %s", tables[i], err);
        free(err);
        snprintf(path, sizeof path, "%s/summary.csv", dir);
        cr_assert(access(path, F_OK) != 0, "nothing written for a damaged database");
        rm_dir(dir);
    }
}

Test(edge, impossible_values_exit_2_naming_the_run) {
    static const struct {
        const char *sql, *msg;
    } cases[] = {
        {"UPDATE runs SET wall_ns = -5 WHERE run_id = 203",
         "run 203 (cell gcbench/alloc-fixed-64K, round 3): wall time -5 ns: impossible"},
        {"UPDATE runs SET wall_ns = 0 WHERE run_id = 101",
         "run 101 (cell gcbench/baseline, round 1): wall time 0 ns: impossible"},
        {"UPDATE runs SET wall_ns = 1e18 WHERE run_id = 504",
         "run 504 (cell microbench/baseline, round 4): wall time 1000000000000000000 ns: impossible"},
        {"UPDATE runs SET user_ns = -1 WHERE run_id = 102",
         "run 102 (cell gcbench/baseline, round 2): negative CPU time or memory"},
        {"UPDATE cells SET alloc_period = 0 WHERE cell_id = 3",
         "cell 3 (gcbench/alloc-fixed-1M): an allocation sampling cell with period 0: impossible"},
        {"UPDATE cells SET alloc_period = -65536 WHERE cell_id = 6",
         "cell 6 (microbench/alloc-fixed-64K): an allocation sampling cell with period -65536: impossible"},
        {"UPDATE cells SET time_hz = 0 WHERE cell_id = 4",
         "cell 4 (gcbench/time-wall-1000): a time sampling cell with rate 0 Hz: impossible"},
        {"UPDATE cells SET kind = 'alloc' WHERE cell_id = 5",
         "cell 5 (microbench/baseline): an allocation sampling cell with period 0: impossible"},
        {"UPDATE cells SET kind = 'allocs' WHERE cell_id = 2",
         "cell 2 (gcbench/alloc-fixed-64K): unknown kind 'allocs'"},
        {"UPDATE run_stats SET value = 400000001 WHERE run_id = 205 AND key = 'alloc_sample_points'",
         "run 205 (cell gcbench/alloc-fixed-64K, round 5): 400000001 sample points in 400000000 bytes "
         "allocated: impossible"},
        {"UPDATE run_stats SET value = 7000 WHERE run_id = 206 AND key = 'alloc_samples'",
         "run 206 (cell gcbench/alloc-fixed-64K, round 6): 7000 allocation samples from 6103 sample points: "
         "impossible"},
        {"UPDATE run_stats SET value = 3 WHERE run_id = 101 AND key = 'alloc_samples'",
         "run 101 (cell gcbench/baseline, round 1): 3 allocation samples with allocation sampling off"},
        {"UPDATE run_stats SET value = 5 WHERE run_id = 302 AND key = 'time_samples'",
         "run 302 (cell gcbench/alloc-fixed-1M, round 2): 5 time samples with time sampling off"},
        {"UPDATE run_stats SET value = 1000000 WHERE run_id = 401 AND key = 'time_samples'",
         "run 401 (cell gcbench/time-wall-1000, round 1): 1000000 time samples in 0.205 s at 1000 Hz: impossible"},
        {"UPDATE run_stats SET value = -1 WHERE run_id = 801 AND key = 'gc_ns'",
         "run 801 (cell microbench/time-wall-1000, round 1): stats record gc_ns = -1: impossible"},
        {"UPDATE run_stats SET value = 65536 WHERE run_id = 303 AND key = 'alloc_period'",
         "run 303 (cell gcbench/alloc-fixed-1M, round 3): the stats record's alloc_period 65536 is not the "
         "cell's 1048576: impossible"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = new_dir(), *err, path[512];
        char *sql = fixture_sql("small.sql");
        make_db(dir, 1, sql);
        free(sql);
        make_db(dir, 0, cases[i].sql);
        cr_assert_eq(run_analyze(&err, dir, NULL, NULL, NULL, NULL), 2, "%s: %s", cases[i].sql, err);
        cr_assert(strstr(err, cases[i].msg), "%s: got %s\nwant %s", cases[i].sql, err, cases[i].msg);
        free(err);
        snprintf(path, sizeof path, "%s/summary.csv", dir);
        cr_assert(access(path, F_OK) != 0, "nothing written for impossible values");
        rm_dir(dir);
    }
}

/* ---- Per-sample cost by regression (regress.csv) --------------------------- */

/* A baseline of 100 ms and three allocation cells taking 1000, 2000 and 4000
 * samples in 101 ms + 5 us per sample: cost 5000 ns, fixed 1 ms, exactly;
 * plus two time cells on 100 ms + 50 us per sample (fixed 0). */
Test(analyze, regression_recovers_an_exact_line) {
    char *dir = new_dir(), *err;
    const char *sql =
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label)"
        " VALUES (1,'w','baseline',0,'',0,'',10,'w/base'),"
        " (2,'w','alloc',65536,'fixed',0,'',10,'w/a64K'), (3,'w','alloc',32768,'fixed',0,'',10,'w/a32K'),"
        " (4,'w','alloc',16384,'fixed',0,'',10,'w/a16K'), (5,'w','time',0,'',100,'wall',10,'w/t100'),"
        " (6,'w','time',0,'',1000,'wall',10,'w/t1000');"
        "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < 5),"
        " c(id, s, t) AS (VALUES (1, 0, 0), (2, 1000, 0), (3, 2000, 0), (4, 4000, 0), (5, 0, 10), (6, 0, 100))"
        " INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb)"
        " SELECT 100 * id + k, id, k, 100 * id + k, 'ok', CASE WHEN s > 0 THEN 101000000 + 5000 * s"
        " ELSE 100000000 + 50000 * t END, 1000, 1000, 1 FROM r, c;"
        "INSERT INTO run_stats SELECT run_id, 'alloc_samples', CASE cell_id WHEN 2 THEN 1000 WHEN 3 THEN 2000"
        " WHEN 4 THEN 4000 ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id, 'time_samples', CASE cell_id WHEN 5 THEN 10 WHEN 6 THEN 100"
        " ELSE 0 END FROM runs;";
    make_db(dir, 1, sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "regress.csv");
    /* Rows: w alloc wall, w alloc cpu, w time wall, w time cpu (label column = kind). */
    cr_assert_eq(t.rows, 5, "%d rows", t.rows);
    cr_assert_str_eq(t.field[1][1], "alloc");
    cr_assert_str_eq(t.field[1][2], "wall");
    int cost = -1, fixed = -1, fixed_lo = -1, cells = -1, norm = -1, res = -1;
    for (int j = 0; j < t.nf[0]; j++) {
        const char *h = t.field[0][j];
        if (!strcmp(h, "cost"))
            cost = j;
        if (!strcmp(h, "fixed"))
            fixed = j;
        if (!strcmp(h, "fixed_lo"))
            fixed_lo = j;
        if (!strcmp(h, "cells"))
            cells = j;
        if (!strcmp(h, "norm_overhead"))
            norm = j;
        if (!strcmp(h, "max_abs_residual_frac"))
            res = j;
    }
    cr_assert(cost >= 0 && fixed >= 0 && fixed_lo >= 0 && cells >= 0 && norm >= 0 && res >= 0);
    cr_assert_float_eq(strtod(t.field[1][cost], NULL), 5000, EPS);
    cr_assert_float_eq(strtod(t.field[1][fixed], NULL), 1e6, EPS);
    cr_assert_float_eq(strtod(t.field[1][fixed_lo], NULL), 1e6, EPS);
    cr_assert_float_eq(strtod(t.field[1][norm], NULL), 1.005, 1e-12);
    cr_assert_float_eq(strtod(t.field[1][res], NULL), 0, EPS);
    cr_assert_str_eq(t.field[1][cells], "3");
    cr_assert_str_eq(t.field[3][1], "time");
    cr_assert_str_eq(t.field[3][2], "wall");
    cr_assert_float_eq(strtod(t.field[3][cost], NULL), 50000, EPS);
    cr_assert_float_eq(strtod(t.field[3][fixed], NULL), 0, EPS);
    free_csv(&t);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(strstr(md, "| w | alloc | 3 | 5 [5, 5] | 1.005 [1.005, 1.005] | 1 [1, 1] |"), "%s", md);
    free(md);
    rm_dir(dir);
}

/* The time sampler's modes fitted apart (sweep --time-modes): the exact line
 * above (allocation 101 ms + 5 us per sample) with two signal-mode time
 * cells on 100 ms + 50 us per sample and two sampler-thread cells on 100 ms
 * + 2 us per sample.  One time fit per mode, each exact: 50000 and 2000 ns
 * per sample (one fit of all four would give neither); regress.csv's last
 * column says the mode; summary.md has a "time (signal)" and a "time
 * (thread)" row; the verdicts compare allocation (1.005 per 1000/s) with
 * each: cheaper than the signal's 1.05, dearer than the thread's 1.002. */
Test(analyze, regression_fits_each_time_mode) {
    char *dir = new_dir(), *err;
    const char *sql =
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label,time_mode)"
        " VALUES (1,'w','baseline',0,'',0,'',10,'w/base',''),"
        " (2,'w','alloc',65536,'fixed',0,'',10,'w/a64K',''), (3,'w','alloc',32768,'fixed',0,'',10,'w/a32K',''),"
        " (4,'w','alloc',16384,'fixed',0,'',10,'w/a16K',''), (5,'w','time',0,'',100,'wall',10,'w/t100','signal'),"
        " (6,'w','time',0,'',1000,'wall',10,'w/t1000','signal'),"
        " (7,'w','time',0,'',100,'wall',10,'w/t100-thread','thread'),"
        " (8,'w','time',0,'',1000,'wall',10,'w/t1000-thread','thread');"
        "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < 5),"
        " c(id, s, t, u) AS (VALUES (1, 0, 0, 0), (2, 1000, 0, 0), (3, 2000, 0, 0), (4, 4000, 0, 0), (5, 0, 10, 0),"
        " (6, 0, 100, 0), (7, 0, 0, 10), (8, 0, 0, 100))"
        " INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb)"
        " SELECT 100 * id + k, id, k, 100 * id + k, 'ok', CASE WHEN s > 0 THEN 101000000 + 5000 * s"
        " ELSE 100000000 + 50000 * t + 2000 * u END, 1000, 1000, 1 FROM r, c;"
        "INSERT INTO run_stats SELECT run_id, 'alloc_samples', CASE cell_id WHEN 2 THEN 1000 WHEN 3 THEN 2000"
        " WHEN 4 THEN 4000 ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id, 'time_samples', CASE cell_id WHEN 5 THEN 10 WHEN 6 THEN 100"
        " WHEN 7 THEN 10 WHEN 8 THEN 100 ELSE 0 END FROM runs;";
    make_db(dir, 1, sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "regress.csv");
    /* Rows: alloc wall, alloc cpu, time wall and cpu of the signal, then of the thread. */
    cr_assert_eq(t.rows, 7, "%d rows", t.rows);
    int cost = -1, cells = -1, verdict = -1, tm = -1, level = -1, se = -1, last = t.nf[0] - 1;
    for (int j = 0; j < t.nf[0]; j++) {
        cost = !strcmp(t.field[0][j], "cost") ? j : cost;
        cells = !strcmp(t.field[0][j], "cells") ? j : cells;
        verdict = !strcmp(t.field[0][j], "verdict") ? j : verdict;
        tm = !strcmp(t.field[0][j], "time_mode") ? j : tm;
        level = !strcmp(t.field[0][j], "level") ? j : level;
        se = !strcmp(t.field[0][j], "cost_se") ? j : se;
    }
    cr_assert(cost >= 0 && cells >= 0 && verdict >= 0);
    /* The columns added after time_mode, in order, the last norm_diff_se. */
    cr_assert(tm == last - 4 && level == last - 3 && se == last - 2, "time_mode %d level %d cost_se %d of %d", tm,
              level, se, last);
    cr_assert_str_eq(t.field[0][last - 1], "paired_cost_se");
    cr_assert_str_eq(t.field[0][last], "norm_diff_se");
    static const char *const kind[6] = {"alloc", "alloc", "time", "time", "time", "time"};
    static const char *const metric[6] = {"wall", "cpu", "wall", "cpu", "wall", "cpu"};
    static const char *const mode[6] = {"", "", "signal", "signal", "thread", "thread"};
    static const double want[6] = {5000, 0, 50000, 0, 2000, 0};
    static const char *const verdicts[6] = {"alloc_cheaper", "na", "alloc_cheaper", "na", "time_cheaper", "na"};
    for (int r = 1; r <= 6; r++) {
        cr_assert_eq(t.nf[r], t.nf[0], "row %d has every column", r);
        cr_assert_str_eq(t.field[r][1], kind[r - 1], "row %d", r);
        cr_assert_str_eq(t.field[r][2], metric[r - 1], "row %d", r);
        cr_assert_str_eq(t.field[r][tm], mode[r - 1], "row %d", r);
        /* One replicate: the fits are over runs within cells; the runs lie on
         * the line exactly, so every resample's cost is the cost: SE 0, and
         * the differences' (wall rows) too. */
        cr_assert_str_eq(t.field[r][level], "processes", "row %d", r);
        cr_assert_str_eq(t.field[r][se], "0", "row %d: cost_se %s", r, t.field[r][se]);
        cr_assert_str_eq(t.field[r][last], r % 2 ? "0" : "", "row %d: norm_diff_se %s", r, t.field[r][last]);
        cr_assert_float_eq(strtod(t.field[r][cost], NULL), want[r - 1], EPS, "row %d: cost %s", r, t.field[r][cost]);
        cr_assert_str_eq(t.field[r][cells], r <= 2 ? "3" : "2", "row %d", r);
        cr_assert_str_eq(t.field[r][verdict], verdicts[r - 1], "row %d: verdict %s", r, t.field[r][verdict]);
    }
    free_csv(&t);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(strstr(md, "| w | time (signal) | 2 | 50 [50, 50] | 1.05 [1.05, 1.05] |"), "%s", md);
    cr_assert(strstr(md, "| w | time (thread) | 2 | 2 [2, 2] | 1.002 [1.002, 1.002] |"), "%s", md);
    cr_assert(
        strstr(md, "each compared on its own, <workload>/thread the sampler thread's): resolved on 2 of 2 comparisons: "
                   "allocation cheaper: w; time cheaper: w/thread;"),
        "%s", md);
    free(md);
    rm_dir(dir);
}

/* One run per sampling cell (and a baseline of four): every per-cell table
 * says "no CI" (fewer than 3 runs), and so must the regression, by the same
 * rule (st_regress.h).  Before, its resamples drew each cell's one run whole,
 * so the intervals were a point (allocation: 9.08 [9.08, 9.08]) or only the
 * baseline's spread (time, whose one cell puts the baseline into the slope:
 * 65 [50, 80]). */
Test(analyze, regression_has_no_interval_with_one_run_per_cell) {
    char *dir = new_dir(), *err;
    const char *sql =
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES"
        " (1,'w','baseline',0,'',0,'',10,'w/base'),(2,'w','alloc',65536,'fixed',0,'',10,'w/alloc-64K'),"
        " (3,'w','alloc',1048576,'fixed',0,'',10,'w/alloc-1M'),(4,'w','time',0,'',1000,'wall',10,'w/time-1000');"
        "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb) VALUES"
        " (11,1,1,1,'ok',100000000,90000000,1000,1),(12,1,2,2,'ok',101000000,90000000,1000,1),"
        " (13,1,3,3,'ok',99000000,90000000,1000,1),(14,1,4,4,'ok',102000000,90000000,1000,1),"
        " (21,2,1,5,'ok',110000000,99000000,1000,1),(31,3,1,6,'ok',101500000,91000000,1000,1),"
        " (41,4,1,7,'ok',107000000,95000000,1000,1);"
        "INSERT INTO run_stats SELECT run_id,'alloc_samples',CASE cell_id WHEN 2 THEN 1000 WHEN 3 THEN 64 ELSE 0 END"
        " FROM runs;"
        "INSERT INTO run_stats SELECT run_id,'alloc_sample_points',CASE cell_id WHEN 2 THEN 1000 WHEN 3 THEN 64 ELSE"
        " 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id,'sampled_bytes',CASE cell_id WHEN 2 THEN 65536000 WHEN 3 THEN 67108864"
        " ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id,'time_samples',CASE cell_id WHEN 4 THEN 100 ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id,'bytes_allocated',67108864 FROM runs;";
    make_db(dir, 1, sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_str_eq(get(&t, "w/alloc-64K", "overhead_ci"), "none");
    cr_assert_str_eq(get(&t, "w/time-1000", "overhead_ci"), "none");
    free_csv(&t);
    load_csv(&t, dir, "regress.csv");
    cr_assert_eq(t.rows, 5, "%d rows", t.rows);
    int cost = -1, cost_lo = -1, cost_hi = -1, fixed_lo = -1, norm_lo = -1, note = -1;
    for (int j = 0; j < t.nf[0]; j++) {
        const char *h = t.field[0][j];
        cost = !strcmp(h, "cost") ? j : cost;
        cost_lo = !strcmp(h, "cost_lo") ? j : cost_lo;
        cost_hi = !strcmp(h, "cost_hi") ? j : cost_hi;
        fixed_lo = !strcmp(h, "fixed_lo") ? j : fixed_lo;
        norm_lo = !strcmp(h, "norm_lo") ? j : norm_lo;
        note = !strcmp(h, "note") ? j : note;
    }
    cr_assert(cost >= 0 && cost_lo >= 0 && cost_hi >= 0 && fixed_lo >= 0 && norm_lo >= 0 && note >= 0);
    for (int r = 1; r < t.rows; r++) {
        cr_assert(strlen(t.field[r][cost]) > 0, "row %d has an estimate", r);
        cr_assert_str_empty(t.field[r][cost_lo], "row %d: cost_lo '%s'", r, t.field[r][cost_lo]);
        cr_assert_str_empty(t.field[r][cost_hi], "row %d", r);
        cr_assert_str_empty(t.field[r][fixed_lo], "row %d", r);
        cr_assert_str_empty(t.field[r][norm_lo], "row %d", r);
        cr_assert(strstr(t.field[r][note], "a sampling cell has fewer than 3 used runs: no interval"), "row %d: %s", r,
                  t.field[r][note]);
    }
    cr_assert_float_eq(strtod(t.field[1][cost], NULL), 9081.2, 0.05);
    free_csv(&t);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(strstr(md, "| w | alloc | 2 | 9.08 (no CI) | 1.009 (no CI) | 0.419 (no CI) | 0.417 (no CI) |"), "%s", md);
    cr_assert(strstr(md, "| w | time | 1 | 65 (no CI) | 1.065 (no CI) | n/a | n/a |"), "%s", md);
    free(md);
    rm_dir(dir);
}

/* The allocation-vs-time verdict from the regressions where the cells nearest
 * 1000 samples/s cannot give one.  The exact line above (allocation 101 ms +
 * 5 us per sample, time 100 ms + 50 us per sample) plus an allocation cell of
 * 100 samples whose runs scatter -12 .. +12 ms around the line (median on
 * it): that cell (~985 samples/s) is the one nearest 1000/s, and its interval
 * overlaps the time cell's 1.0525, so the cell-based verdict is "not
 * resolved".  The regressions stay exact: per 1000/s 1.005 [1.005, 1.005]
 * against 1.05 [1.05, 1.05]: allocation cheaper. */
Test(analyze, regression_verdict_resolves_where_cells_do_not) {
    char *dir = new_dir(), *err;
    const char *sql =
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label)"
        " VALUES (1,'w','baseline',0,'',0,'',10,'w/base'),"
        " (2,'w','alloc',65536,'fixed',0,'',10,'w/a64K'), (3,'w','alloc',32768,'fixed',0,'',10,'w/a32K'),"
        " (4,'w','alloc',16384,'fixed',0,'',10,'w/a16K'), (5,'w','time',0,'',100,'wall',10,'w/t100'),"
        " (6,'w','time',0,'',1000,'wall',10,'w/t1000'), (7,'w','alloc',1048576,'fixed',0,'',10,'w/a1M');"
        "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < 5),"
        " c(id, s, t) AS (VALUES (1, 0, 0), (2, 1000, 0), (3, 2000, 0), (4, 4000, 0), (5, 0, 10), (6, 0, 100),"
        " (7, 100, 0))"
        " INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,maxrss_kb)"
        " SELECT 100 * id + k, id, k, 100 * id + k, 'ok', CASE WHEN s > 0 THEN 101000000 + 5000 * s"
        " + CASE WHEN id = 7 THEN 6000000 * (k - 2 - (k > 2)) ELSE 0 END"
        " ELSE 100000000 + 50000 * t END, 1000, 1000, 1 FROM r, c;"
        "INSERT INTO run_stats SELECT run_id, 'alloc_samples', CASE cell_id WHEN 2 THEN 1000 WHEN 3 THEN 2000"
        " WHEN 4 THEN 4000 WHEN 7 THEN 100 ELSE 0 END FROM runs;"
        "INSERT INTO run_stats SELECT run_id, 'time_samples', CASE cell_id WHEN 5 THEN 10 WHEN 6 THEN 100"
        " ELSE 0 END FROM runs;";
    make_db(dir, 1, sql);
    cr_assert_eq(run_analyze(&err, "--resamples", "1000", dir, NULL, NULL), 0, "%s", err);
    free(err);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(strstr(md, "| w | alloc | 4 | 5 [5, 5] | 1.005 [1.005, 1.005] |"), "%s", md);
    cr_assert(strstr(md, "| w | time | 2 | 50 [50, 50] | 1.05 [1.05, 1.05] |"), "%s", md);
    cr_assert(strstr(md, "within +-2%): resolved on 1 of 1 workloads: allocation cheaper: w; time cheaper: none; "
                         "equivalent within 2%: none; not resolved: none."),
              "%s", md);
    cr_assert(strstr(md, "(unpaired, processes) | not resolved |"), "%s", md);
    cr_assert(strstr(md, "Resolved on 0 of 1 workloads with an interval of the difference: allocation cheaper: none; "
                         "time cheaper: none; equivalent within 2%: none. Not resolved: w."),
              "%s", md);
    free(md);
    table t;
    load_csv(&t, dir, "regress.csv");
    int verdict = -1, metric = 2;
    for (int j = 0; j < t.nf[0]; j++)
        if (!strcmp(t.field[0][j], "verdict"))
            verdict = j;
    cr_assert_eq(verdict, 25, "verdict is column 26, where it was; columns after it are added ones");
    cr_assert_str_eq(t.field[0][verdict + 1], "norm_diff");
    /* The difference of the exact lines' normalized overheads: (5000 - 50000) ns per sample x 1000/s. */
    for (int i = 1; i < t.rows; i++)
        if (!strcmp(t.field[i][metric], "wall")) {
            cr_assert_float_eq(strtod(t.field[i][verdict + 1], NULL), -0.045, 1e-12, "row %d", i);
            cr_assert_float_eq(strtod(t.field[i][verdict + 2], NULL), -0.045, 1e-12, "row %d", i);
            cr_assert_float_eq(strtod(t.field[i][verdict + 3], NULL), -0.045, 1e-12, "row %d", i);
        }
    cr_assert_eq(t.rows, 5, "%d rows", t.rows);
    for (int i = 1; i < t.rows; i++)
        cr_assert_str_eq(t.field[i][verdict], strcmp(t.field[i][metric], "wall") ? "na" : "alloc_cheaper", "row %d", i);
    free_csv(&t);
    rm_dir(dir);
}

/* A blocked sweep (the harness's block columns): the paired estimates are
 * Hodges-Lehmann estimates over exactly the blocks with both runs used.
 * Reference values: python3 with the standard library, the Walsh averages of
 * the logs of the ratios below and their type-7 median (as
 * tests/stats/paired_reference.py computes it). */
Test(analyze, blocked_sweep_paired_estimates) {
    static const double ratio[5] = {1.01, 1.03, 1.02, 0.99, 1.05}, aa[5] = {1.0, 1.04, 0.97, 1.0, 1.02};
    char sql[16384];
    size_t n = 0;
    n += (size_t)snprintf(
        sql + n, sizeof sql - n,
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label)"
        " VALUES(1,'w','baseline',0,'',0,'',10,'w/baseline'), (2,'w','alloc',4194304,'fixed',0,'',10,'w/alloc-fixed-4M');");
    int id = 1, seq = 1;
    for (int k = 0; k < 5; k++) {
        /* The cell's block k+1 (round k+1); role 1 first in odd blocks. */
        long b = 1000000000L, t = (long)(1e9 * ratio[k] + 0.5);
        n += (size_t)snprintf(
            sql + n, sizeof sql - n,
            "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,block_role) VALUES"
            "(%d,1,%d,%d,'ok',%ld,%ld,0,%d,0),(%d,2,%d,%d,'ok',%ld,%ld,0,%d,1);"
            "INSERT INTO run_stats VALUES(%d,'alloc_samples','100');",
            id, k + 1, seq, b, b, k + 1, id + 1, k + 1, seq + 1, t, t, k + 1, id + 1);
        id += 2, seq += 2;
        /* The baseline's A/A block (blocks 6..10, rounds 6..15: the fixture keeps (cell, round) unique). */
        long a = (long)(1e9 * aa[k] + 0.5);
        n += (size_t)snprintf(
            sql + n, sizeof sql - n,
            "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,block_role) VALUES"
            "(%d,1,%d,%d,'ok',%ld,%ld,0,%d,0),(%d,1,%d,%d,'ok',%ld,%ld,0,%d,1);",
            id, 6 + 2 * k, seq, b, b, 6 + k, id + 1, 7 + 2 * k, seq + 1, a, a, 6 + k);
        id += 2, seq += 2;
    }
    /* Block 11: the cell's run failed, so the block does not count; block 12: a
     * cell run whose baseline run failed. */
    n += (size_t)snprintf(
        sql + n, sizeof sql - n,
        "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,block_role) VALUES"
        "(%d,1,16,%d,'ok',1000000000,1000000000,0,11,0),(%d,2,16,%d,'failed',NULL,NULL,NULL,11,1),"
        "(%d,1,17,%d,'failed',NULL,NULL,NULL,12,0),(%d,2,17,%d,'ok',3000000000,3000000000,0,12,1);"
        "INSERT INTO run_stats VALUES(%d,'alloc_samples','100');",
        id, seq, id + 1, seq + 1, id + 2, seq + 2, id + 3, seq + 3, id + 3);
    char *dir = new_dir(), *err;
    make_db(dir, 1, sql);
    int rc = run_analyze(&err, "--resamples", "2000", "--margin=3%", dir, NULL);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    char *err_copy = strdup(err);

    free(err);
    table t;
    load_csv(&t, dir, "summary.csv");
    cr_assert_eq((int)getd(&t, "w/alloc-fixed-4M", "pairs"), 5);
    cr_assert_eq((int)getd(&t, "w/baseline", "pairs"), 5);
    cr_assert_float_eq(getd(&t, "w/alloc-fixed-4M", "paired"), 1.0199509792141974, 1e-6);
    cr_assert_float_eq(getd(&t, "w/alloc-fixed-4M", "paired_cpu"), 1.0199509792141974, 1e-6);
    cr_assert_float_eq(getd(&t, "w/baseline", "paired"), 1.0043903623591777, 1e-6);
    /* Per-sample cost: (t - b) / 100 samples, in us: 100, 300, 200, -100, 500 -> HL 200. */
    cr_assert_float_eq(getd(&t, "w/alloc-fixed-4M", "paired_cost_us"), 200.0, 1e-6);
    /* Normalized: 1 + HL of (r - 1) * 1000 / (100 / r) = 1 + HL of 10 r (r - 1). */
    cr_assert_float_eq(getd(&t, "w/alloc-fixed-4M", "paired_norm"), 1.205, 1e-6);
    double lo = getd(&t, "w/alloc-fixed-4M", "paired_lo"), hi = getd(&t, "w/alloc-fixed-4M", "paired_hi");
    cr_assert(lo <= 1.0199509792141974 && hi >= 1.0199509792141974 && lo >= 0.99 && hi <= 1.05, "[%g, %g]", lo, hi);
    /* The verdict follows the interval and the margin. */
    const char *v = get(&t, "w/alloc-fixed-4M", "paired_verdict");
    const char *want = lo > 1 ? "slower" : (lo >= 0.97 && hi <= 1.03) ? "no effect above 3%" : "not resolved";
    cr_assert_str_eq(v, want);
    double getd_floor = getd(&t, "w/baseline", "paired_floor");
    double alo = getd(&t, "w/baseline", "paired_lo"), ahi = getd(&t, "w/baseline", "paired_hi");
    cr_assert_float_eq(getd_floor, fmax(ahi - 1, 1 - alo), 1e-4);
    /* The unpaired ratio of medians stays beside it (medians over 6 used runs of the cell). */
    cr_assert(isfinite(getd(&t, "w/alloc-fixed-4M", "overhead")));
    free_csv(&t);
    char path[600];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(strstr(md, "## Paired comparisons (blocked design)"));
    cr_assert(strstr(md, "| w | 5 | 1.004 ["), "A/A row missing");
    cr_assert(strstr(md, "## Noise"));
    /* A floor wider than the 3% margin is warned about on stderr and in summary.md, and only then. */
    double floor = getd_floor;
    if (floor > 0.03) {
        cr_assert(strstr(err_copy, "analyze: warning: w/baseline: the A/A floor is"), "stderr: %s", err_copy);
        cr_assert(strstr(md, "**Warning: the A/A floor of w is"));
    } else {
        cr_assert_null(strstr(err_copy, "A/A floor"), "stderr: %s", err_copy);
        cr_assert_null(strstr(md, "**Warning: the A/A floor"));
    }
    free(err_copy);
    free(md);
    assert_no_nan_text(dir, "summary.csv");
    rm_dir(dir);
}

/* Appends to sql the rows of one cell measured in blocks: block k pairs a
 * run of the cell (role 1, wall ratio[k] s) with a run of its baseline (role
 * 0, 1 s); each cell run records `samples` samples of the stats key `key`.
 * Without blocks (blocked 0) the same runs are independent rounds. */
static size_t add_blocks(char *sql, size_t n, size_t cap, int *id, int *seq, int *block, int base_cell, int cell,
                         const double *ratio, int nblocks, const char *key, int samples, int blocked) {
    for (int k = 0; k < nblocks; k++) {
        long t = (long)(1e9 * ratio[k] + 0.5);
        char b0[16] = "NULL", b1[16] = "NULL", r0[8] = "NULL", r1[8] = "NULL";
        if (blocked) {
            snprintf(b0, sizeof b0, "%d", *block);
            snprintf(b1, sizeof b1, "%d", *block);
            snprintf(r0, sizeof r0, "0");
            snprintf(r1, sizeof r1, "1");
            ++*block;
        }
        n += (size_t)snprintf(
            sql + n, cap - n,
            "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,block_role)"
            " VALUES(%d,%d,%d,%d,'ok',1000000000,1000000000,0,%s,%s),"
            "(%d,%d,%d,%d,'ok',%ld,%ld,0,%s,%s);"
            "INSERT INTO run_stats VALUES(%d,'%s','%d');",
            *id, base_cell, *seq, *seq, b0, r0, *id + 1, cell, *seq + 1, *seq + 1, t, t, b1, r1, *id + 1, key, samples);
        *id += 2, *seq += 2;
    }
    return n;
}

/* One line of a plot data file: the field of `column` in the row whose
 * column `keycol` is `key` (static buffer; NULL if absent). */
static const char *dat_field(const char *path, const char *keycol, const char *key, const char *column) {
    static char out[128];
    char *text = slurp(path);
    cr_assert(text, "%s missing", path);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    cr_assert(line && line[0] == '#');
    char *names[64];
    int nn = 0;
    for (char *w = strtok(line + 1, " "); w && nn < 64; w = strtok(NULL, " "))
        names[nn++] = w;
    int kc = -1, cc = -1;
    for (int i = 0; i < nn; i++) {
        if (!strcmp(names[i], keycol))
            kc = i;
        if (!strcmp(names[i], column))
            cc = i;
    }
    cr_assert(kc >= 0 && cc >= 0, "%s: no column %s or %s", path, keycol, column);
    const char *found = NULL;
    while (!found && (line = strtok_r(NULL, "\n", &save))) {
        char *f[64], *s2 = NULL;
        int nf = 0;
        for (char *w = strtok_r(line, " ", &s2); w && nf < 64; w = strtok_r(NULL, " ", &s2))
            f[nf++] = w;
        if (nf > kc && nf > cc && !strcmp(f[kc], key)) {
            snprintf(out, sizeof out, "%s", f[cc]);
            found = out;
        }
    }
    free(text);
    return found;
}

/* Allocation against time sampling, normalized per 1000 samples/s: the
 * headline and normalized.dat judge the paired intervals (blocked cells)
 * and fall back to the unpaired ones (independent runs).  Per block the
 * normalized value is (r - 1) * 1000 / (S / r) for a wall ratio r and S
 * samples per run, so with S = 1000 it is r (r - 1), with S = 100 10 r (r - 1):
 *  - wa: alloc r = 1.01, S = 50 in every block (1.202, a degenerate
 *    interval) and time r = 1.05, S = 1000 (1.0525): time cheaper;
 *  - wb: both samplers' blocks have r = 1.003 ... 1.007, S = 1000: the same
 *    Hodges-Lehmann estimate 1.005026 (python3, tests/stats/paired_reference.py's
 *    method), both intervals inside [1.003009, 1.007049]: equivalent within 2%;
 *  - wc: both r = 1.00 ... 1.04, S = 100 (HL 1.205, values 1 .. 1.4328):
 *    the intervals overlap and span more than 2%: not resolved;
 *  - wd: wa's runs without blocks: the unpaired intervals (degenerate, 1.202
 *    and 1.0525): time cheaper, on the unpaired basis. */
Test(analyze, normalized_alloc_vs_time_paired) {
    static const double one_a[5] = {1.01, 1.01, 1.01, 1.01, 1.01}, one_t[5] = {1.05, 1.05, 1.05, 1.05, 1.05};
    static const double eq_a[5] = {1.004, 1.006, 1.005, 1.003, 1.007}, eq_t[5] = {1.005, 1.006, 1.004, 1.007, 1.003};
    static const double wide[5] = {1.00, 1.02, 1.04, 1.01, 1.03};
    static const char *const ws[4] = {"wa", "wb", "wc", "wd"};
    const double *ra[4] = {one_a, eq_a, wide, one_a}, *rt[4] = {one_t, eq_t, wide, one_t};
    const int sa[4] = {50, 1000, 100, 50}, stime[4] = {1000, 1000, 100, 1000};
    size_t cap = 65536, n = 0;
    char *sql = malloc(cap);
    int id = 1, seq = 1, block = 1;
    for (int w = 0; w < 4; w++) {
        int b = 3 * w + 1;
        n += (size_t)snprintf(sql + n, cap - n,
                              "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,"
                              "label) VALUES(%d,'%s','baseline',0,'',0,'',10,'%s/baseline'),"
                              "(%d,'%s','alloc',4194304,'fixed',0,'',10,'%s/alloc-fixed-4M'),"
                              "(%d,'%s','time',0,'',1000,'wall',10,'%s/time-wall-1000');",
                              b, ws[w], ws[w], b + 1, ws[w], ws[w], b + 2, ws[w], ws[w]);
        n = add_blocks(sql, n, cap, &id, &seq, &block, b, b + 1, ra[w], 5, "alloc_samples", sa[w], w < 3);
        n = add_blocks(sql, n, cap, &id, &seq, &block, b, b + 2, rt[w], 5, "time_samples", stime[w], w < 3);
    }
    char *dir = new_dir(), *err;
    make_db(dir, 1, sql);
    free(sql);
    int rc = run_analyze(&err, "--resamples", "2000", dir, NULL, NULL);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    free(err);
    char path[600];
    snprintf(path, sizeof path, "%s/plotdata/normalized.dat", dir);
    static const char *const basis[4] = {"paired", "paired", "paired", "unpaired"};
    static const char *const res[4] = {"time_cheaper", "equivalent", "not_resolved", "time_cheaper"};
    for (int w = 0; w < 4; w++) {
        cr_assert_str_eq(dat_field(path, "workload", ws[w], "basis"), basis[w], "%s", ws[w]);
        cr_assert_str_eq(dat_field(path, "workload", ws[w], "resolved"), res[w], "%s", ws[w]);
        cr_assert_str_eq(dat_field(path, "workload", ws[w], "alloc_pairs"), w < 3 ? "5" : "0");
        cr_assert_str_eq(dat_field(path, "workload", ws[w], "time_pairs"), w < 3 ? "5" : "0");
    }
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "alloc_paired"), NULL), 1.202, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "alloc_paired_lo"), NULL), 1.202, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "alloc_paired_hi"), NULL), 1.202, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "time_paired"), NULL), 1.0525, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "time_paired_hi"), NULL), 1.0525, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wb", "alloc_paired"), NULL), 1.005026, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wb", "time_paired"), NULL), 1.005026, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wc", "alloc_paired"), NULL), 1.205, 1e-9);
    double lo = strtod(dat_field(path, "workload", "wb", "alloc_paired_lo"), NULL);
    double hi = strtod(dat_field(path, "workload", "wb", "time_paired_hi"), NULL);
    cr_assert(lo >= 1.003009 - 1e-9 && hi <= 1.007049 + 1e-9, "[%g, %g]", lo, hi);
    /* The unpaired values stay beside: wd has no pairs, the unpaired columns its values. */
    cr_assert_str_eq(dat_field(path, "workload", "wd", "alloc_paired"), "NaN");
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wd", "alloc_norm"), NULL), 1.202, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wd", "time_norm"), NULL), 1.0525, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "alloc_norm"), NULL), 1.202, 1e-9);
    /* The difference: exact for constant blocks; wb's blocks are the same five values in both cells. */
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "diff"), NULL), 1.202 - 1.0525, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "diff_lo"), NULL), 1.202 - 1.0525, 1e-9);
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wa", "diff_hi"), NULL), 1.202 - 1.0525, 1e-9);
    cr_assert_str_eq(dat_field(path, "workload", "wa", "diff_level"), "blocks");
    cr_assert_str_eq(dat_field(path, "workload", "wd", "diff_level"), "processes");
    cr_assert_float_eq(strtod(dat_field(path, "workload", "wb", "diff"), NULL), 0.0, 1e-12);
    double dlo = strtod(dat_field(path, "workload", "wb", "diff_lo"), NULL);
    double dhi = strtod(dat_field(path, "workload", "wb", "diff_hi"), NULL);
    cr_assert(dlo < 0 && dhi > 0 && dlo >= -0.02 && dhi <= 0.02, "[%g, %g]", dlo, dhi);
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    /* The verdict from the interval of the difference alloc - time: constant blocks give it exactly
     * (1.202 - 1.0525); the cells' blocks are in no common round, so each cell's blocks are resampled on
     * their own. */
    cr_assert(strstr(md,
                     "| wa | alloc fixed 4M | 49.5 | 1.202 [1.202, 1.202] | 1.202 [1.202, 1.202] | time signal wall "
                     "1000 Hz | 952.4 | 1.052 [1.052, 1.052] | 1.052 [1.052, 1.052] | 0.1495 [0.1495, 0.1495] "
                     "(paired, blocks) | time cheaper |"),
              "%s", md);
    cr_assert(strstr(md, "(paired, blocks) | equivalent within 2% |"), "%s", md);
    cr_assert(strstr(md, "| wc | alloc fixed 4M | 98.04 | 1.205 ["), "%s", md);
    cr_assert(strstr(md, "(paired, blocks) | not resolved |"), "%s", md);
    cr_assert(strstr(md,
                     "| n/a | 1.202 [1.202, 1.202] | time signal wall 1000 Hz | 952.4 | n/a | 1.052 [1.052, 1.052] | "
                     "0.1495 [0.1495, 0.1495] (unpaired, processes) | time cheaper |"),
              "%s", md);
    cr_assert(strstr(md, "Resolved on 3 of 4 workloads with an interval of the difference: allocation cheaper: none; "
                         "time cheaper: wa, wd; equivalent within 2%: wb. Not resolved: wc."),
              "%s", md);
    free(md);
    rm_dir(dir);
}

/* ---- The simulated cells (st_sim.h) ----------------------------------------- */

Test(sim, modelled_time_overhead_from_known_inputs) {
    /* 1000 instructions per sample at 0.5 ns each (0.5 s for 1e9 instructions) plus a 2000 ns
     * delivery, 1000 times a second: 1000 x 2500 ns = 0.25% of a second. */
    cr_assert_float_eq(st_sim_time_model(1000, 1000, 1e9, 0.5, 2000), 1.0025, 1e-15);
    cr_assert_float_eq(st_sim_time_model(100, 1000, 1e9, 0.5, 2000), 1.00025, 1e-15);
    /* The counted part alone, and the kernel part alone. */
    cr_assert_float_eq(st_sim_time_model(2000, 4000, 2e9, 1.0, 0), 1 + 2000 * 2000e-9, 1e-15);
    cr_assert_float_eq(st_sim_time_model(1000, 0, 1e9, 0.5, 3000), 1.003, 1e-15);
    /* Missing or impossible inputs give NaN, never a number. */
    cr_assert(isnan(st_sim_time_model(1000, 1000, 0, 0.5, 2000)));
    cr_assert(isnan(st_sim_time_model(1000, 1000, 1e9, NAN, 2000)));
    cr_assert(isnan(st_sim_time_model(1000, 1000, 1e9, 0.5, NAN)));
    cr_assert(isnan(st_sim_time_model(0, 1000, 1e9, 0.5, 2000)));
}

Test(sim, exact_counts_overheads_fit_determinism_and_model) {
    char *dir = new_dir();
    char *sql = fixture_sql("sim.sql");
    make_db(dir, 1, sql);
    free(sql);
    char *err;
    int rc = run_analyze(&err, "--quiet", dir, NULL, NULL, NULL);
    cr_assert_eq(rc, 0, "analyze failed: %s", err);
    free(err);
    rc = run_analyze(&err, dir, NULL, NULL, NULL, NULL);
    cr_assert_eq(rc, 0);
    cr_assert(strstr(err, "NOT DETERMINISTIC: 1 simulated cells"), "stderr: %s", err);
    free(err);

    table t;
    load_csv(&t, dir, "sim.csv");
    cr_assert_eq(t.rows, 1 + 5);
    cr_assert_float_eq(getd(&t, "gcbench/sim/baseline", "Ir"), 1e9, EPS);
    cr_assert_str_eq(get(&t, "gcbench/sim/baseline", "deterministic"), "1");
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-fixed-32K", "overhead_Ir"), 1.000905, 1e-12);
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-fixed-32K", "overhead_est_cycles"), 1.000755, 1e-12);
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-fixed-32K", "per_sample_Ir"), 905, 1e-9);
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-fixed-32K", "per_sample_est_cycles"), 1510, 1e-9);
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-fixed-32K", "sps_native"), 2000, 1e-9);
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-fixed-32K", "normalized_Ir"), 1 + 0.000905 / 2, 1e-12);
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-fixed-1M", "per_sample_Ir"), 950, 1e-9);
    /* The flagged cell: 300028 more instructions in its second run, 0.03%. */
    cr_assert_str_eq(get(&t, "gcbench/sim/alloc-poisson-1M", "deterministic"), "0");
    cr_assert_float_eq(getd(&t, "gcbench/sim/alloc-poisson-1M", "spread_Ir"), 300028.0 / 1000095000.0, 1e-9);
    /* Time cells are not checked (their sample count varies), but modelled. */
    cr_assert_str_eq(get(&t, "gcbench/sim/time-1000Hz", "deterministic"), "");
    cr_assert_float_eq(getd(&t, "gcbench/sim/time-1000Hz", "time_samples"), 201, EPS);
    cr_assert_float_eq(getd(&t, "gcbench/sim/time-1000Hz", "per_sample_Ir"), 1000, 1e-9);
    cr_assert_float_eq(getd(&t, "gcbench/sim/time-1000Hz", "per_sample_est_cycles"), 2000, 1e-9);
    cr_assert_float_eq(getd(&t, "gcbench/sim/time-1000Hz", "model_user_ns"), 500, 1e-9);
    cr_assert_float_eq(getd(&t, "gcbench/sim/time-1000Hz", "model_kernel_ns"), 2000, 1e-9);
    cr_assert_float_eq(getd(&t, "gcbench/sim/time-1000Hz", "model_overhead"), 1.0025, 1e-12);
    free_csv(&t);

    /* The per-workload line in summary.md: slope 900 and fixed 5000 instructions, 1500 and
     * 10000 cycles; the flagged cell named; 1000 instructions per time sample. */
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(md);
    /* The simulated line comes from the per-sample cost regression (the
     * timed cells' fit): exact counts give exact values; two runs a cell
     * give no interval, by the rule of every interval (3 runs a group). */
    cr_assert(strstr(md, "| gcbench | alloc | 2 | 900 (no CI) | 5000 (no CI) | 1500 (no CI) | 10000 (no CI) | 0 0 | "
                         "a sampling cell has fewer than 3 used runs: no interval |"),
              "summary.md:\n%s", md);
    cr_assert(strstr(md, "| gcbench | time | 1 | 1000 (no CI) | n/a | 2000 (no CI) | n/a | 0 |"), "summary.md:\n%s",
              md);
    cr_assert(strstr(md, "NOT DETERMINISTIC: 1 simulated cells"));
    cr_assert(strstr(md, "- gcbench/sim/alloc-poisson-1M: NOT DETERMINISTIC"));
    free(md);
    snprintf(path, sizeof path, "%s/regress.csv", dir);
    char *rcsv = slurp(path);
    cr_assert(rcsv);
    cr_assert(strstr(rcsv,
                     "\ngcbench,alloc,sim_instructions,instructions,2,6,900,,,1000005000,,,1000000000,5000,,,"
                     "5e-06,,,,,,0,0,a sampling cell has fewer than 3 used runs: no interval,na,,,,0,,,,,,,,,,,,,,\n"),
              "%s", rcsv);
    cr_assert(strstr(rcsv,
                     "\ngcbench,alloc,sim_est_cycles,est_cycles,2,6,1500,,,2000010000,,,2000000000,10000,,,"
                     "5e-06,,,,,,0,0,a sampling cell has fewer than 3 used runs: no interval,na,,,,0,,,,,,,,,,,,,,\n"),
              "%s", rcsv);
    cr_assert(strstr(rcsv, "\ngcbench,time,sim_instructions,instructions,1,4,1000,,,"), "%s", rcsv);
    cr_assert(strstr(rcsv, "\ngcbench,time,sim_est_cycles,est_cycles,1,4,2000,,,"), "%s", rcsv);
    /* The poisson cell (not deterministic) is not in the line: 2 cells, 6 runs with the baseline's. */
    free(rcsv);
    /* Plot data for the figures, and the counts in metrics.csv. */
    snprintf(path, sizeof path, "%s/plotdata/sim_alloc.dat", dir);
    char *dat = slurp(path);
    cr_assert(dat && strstr(dat, "\ngcbench 32768 1.000905 1.000755 1000 905 1510 2000 "), "%s", dat ? dat : "");
    free(dat);
    /* Every plot data file written has the header of the plot data table
     * (stats/st_plotdata.h): the simulated files and regress.dat too; the
     * in-process file only in that design, peers.dat only in a sweep of
     * several systems. */
    size_t found = 0;
    for (int pf = 0; pf < ST_PD_NFILES; pf++) {
        snprintf(path, sizeof path, "%s/plotdata/%s.dat", dir, st_plotdata_name((st_plotfile)pf));
        char *text = slurp(path);
        if (!text) {
            cr_assert(!strcmp(st_plotdata_name((st_plotfile)pf), "inprocess") ||
                          !strcmp(st_plotdata_name((st_plotfile)pf), "peers"),
                      "%s not written", path);
            continue;
        }
        found++;
        size_t n = strlen(st_plotdata_header((st_plotfile)pf));
        cr_assert(!strncmp(text, st_plotdata_header((st_plotfile)pf), n) && text[n] == '\n', "%s: header %.80s", path,
                  text);
        free(text);
    }
    cr_assert_eq(found, (size_t)ST_PD_NFILES - 2);
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    char *m = slurp(path);
    cr_assert(m && strstr(m, "gcbench,gcbench/sim/alloc-fixed-32K,sim::Ir,2,1000905000,,,,1000905000,1000905000,"));
    free(m);
    rm_dir(dir);
}

/* The fixture with sql appended, analysed: sim.csv loaded into t, summary.md
 * returned. */
static char *sim_variant(const char *sql, table *t) {
    char *dir = new_dir();
    char *base = fixture_sql("sim.sql");
    char *all = malloc(strlen(base) + strlen(sql) + 2);
    sprintf(all, "%s\n%s", base, sql);
    make_db(dir, 1, all);
    free(base);
    free(all);
    char *err;
    cr_assert_eq(run_analyze(&err, "--quiet", dir, NULL, NULL, NULL), 0, "analyze failed: %s", err);
    free(err);
    load_csv(t, dir, "sim.csv");
    char path[512];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp(path);
    cr_assert(md);
    rm_dir(dir);
    return md;
}

/* Runs that recorded the virtual clock must repeat every count: one cache
 * miss more in one run of the 1M cell flags it (a difference far below the
 * 0.01% kept for runs without it), and so does one instruction. */
Test(sim, determinism_is_exact_with_the_virtual_clock) {
    static const char *const sql[] = {
        "UPDATE run_counters SET raw = 8, scaled = 8 WHERE run_id = 32 AND event = 'sim::D1mr';",
        "UPDATE run_counters SET raw = raw + 1, scaled = scaled + 1 WHERE run_id = 32 AND event = 'sim::Ir';",
    };
    static const char *const what[] = {"1 of the 10 counts differ", "1 of the 10 counts differ"};
    for (int i = 0; i < 2; i++) {
        table t;
        char *md = sim_variant(sql[i], &t);
        cr_assert_str_eq(get(&t, "gcbench/sim/alloc-fixed-1M", "deterministic"), "0", "%s", sql[i]);
        cr_assert(strstr(get(&t, "gcbench/sim/alloc-fixed-1M", "note"), what[i]), "%s: note %s", sql[i],
                  get(&t, "gcbench/sim/alloc-fixed-1M", "note"));
        cr_assert_str_eq(get(&t, "gcbench/sim/alloc-fixed-32K", "deterministic"), "1");
        cr_assert_str_eq(get(&t, "gcbench/sim/alloc-poisson-1M", "deterministic"), "0");
        cr_assert(strstr(md, "NOT DETERMINISTIC: 2 simulated cells"), "summary.md:\n%s", md);
        cr_assert(strstr(md, "- gcbench/sim/alloc-fixed-1M: NOT DETERMINISTIC: "), "summary.md:\n%s", md);
        free(md);
        free_csv(&t);
    }
    /* Unchanged, the exact cells say so. */
    table t;
    char *md = sim_variant("UPDATE run_counters SET raw = raw WHERE 0;", &t);
    cr_assert_str_eq(get(&t, "gcbench/sim/alloc-fixed-1M", "deterministic"), "1");
    cr_assert_str_eq(get(&t, "gcbench/sim/alloc-fixed-1M", "note"), "");
    cr_assert(strstr(md, "NOT DETERMINISTIC: 1 simulated cells"), "summary.md:\n%s", md);
    free(md);
    free_csv(&t);
}

/* Runs without the virtual clock (an older harness's: their runtimes
 * recorded real times) keep the 0.01% tolerance: one instruction more in
 * a billion passes, with a note saying why; 0.03% is still flagged. */
Test(sim, determinism_within_tolerance_without_the_virtual_clock) {
    table t;
    char *md = sim_variant("DELETE FROM run_stats WHERE key = 'virtual_clock_ns';"
                           "UPDATE run_counters SET raw = raw + 1, scaled = scaled + 1 WHERE run_id = 32 AND "
                           "event = 'sim::Ir';"
                           "UPDATE run_counters SET raw = 8, scaled = 8 WHERE run_id = 32 AND event = 'sim::D1mr';",
                           &t);
    cr_assert_str_eq(get(&t, "gcbench/sim/alloc-fixed-1M", "deterministic"), "1");
    cr_assert(strstr(get(&t, "gcbench/sim/alloc-fixed-1M", "note"), "runs without the virtual clock"), "note %s",
              get(&t, "gcbench/sim/alloc-fixed-1M", "note"));
    cr_assert_str_eq(get(&t, "gcbench/sim/alloc-poisson-1M", "deterministic"), "0");
    cr_assert(strstr(md, "NOT DETERMINISTIC: 1 simulated cells"), "summary.md:\n%s", md);
    free(md);
    free_csv(&t);
    /* With one cell's runs the only ones flagged away, the others pass within the tolerance. */
    md = sim_variant("DELETE FROM run_stats WHERE key = 'virtual_clock_ns';"
                     "DELETE FROM run_counters WHERE run_id = 42;",
                     &t);
    cr_assert(strstr(md, "Determinism: of the 3 checked cells (those without time sampling), 3, whose runs "
                         "recorded real times (no SGC_VIRTUAL_CLOCK), repeated within 0.01%"),
              "summary.md:\n%s", md);
    free(md);
    free_csv(&t);
    md = sim_variant("DELETE FROM run_counters WHERE run_id = 42;", &t);
    cr_assert(strstr(md, "Determinism: of the 3 checked cells (those without time sampling), 3 repeated every "
                         "count exactly."),
              "summary.md:\n%s", md);
    free(md);
    free_csv(&t);
}

/* covtest.h - helpers shared by the coverage, stopping-rule and Walsh-interval tests
 * (tests/stats/test_coverage.c, test_stop.c, test_walsh.c): tolerances and fixture databases. */
#ifndef COVTEST_H
#define COVTEST_H

#include "st_db.h"

#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void near(double got, double want, double rel, const char *what) {
    cr_assert(fabs(got - want) <= rel * fabs(want), "%s: %.15g, want %.15g", what, got, want);
}

static inline char *fixture_dir(void) {
    char *d = strdup("/tmp/freecheck-coverage-XXXXXX");
    cr_assert(mkdtemp(d));
    return d;
}

/* dir/results.db from contracts/schema.sql, then sql. */
static inline void fixture_db(const char *dir, const char *sql) {
    char path[512];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    cr_assert_eq(sqlite3_exec(db, st_schema_sql(), NULL, NULL, &err), SQLITE_OK, "schema: %s", err);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &err), SQLITE_OK, "fixture: %s", err);
    sqlite3_close(db);
}

static inline void remove_fixture(char *dir) {
    char path[512];
    snprintf(path, sizeof path, "%s/results.db", dir);
    unlink(path);
    rmdir(dir);
    free(dir);
}

#endif /* COVTEST_H */

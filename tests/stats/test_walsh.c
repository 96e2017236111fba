/* test_walsh.c - the exact Walsh-average interval of the Hodges-Lehmann estimate (stats/st_walsh.h)
 * against tests/stats/walsh_reference.py (Python standard library: the signed-rank null distribution
 * counted with integers, Hollander and Wolfe's C, the interval's order statistics). */
#include "st_analysis.h"
#include "st_analyze.h"
#include "st_walsh.h"

#include "covtest.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

Test(walsh, ranks_and_achieved_levels_match_the_integer_count) {
    struct {
        size_t n, C;
        double achieved;
    } want[] = {{6, 1, 0.96875},
                {7, 3, 0.953125},
                {10, 9, 0.951171875},
                {12, 14, 0.95751953125},
                {30, 138, 0.950289878994226},
                {100, 1956, 0.950076240395707}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double a;
        cr_assert_eq(st_walsh_rank(want[i].n, 0.95, &a), want[i].C, "n %zu", want[i].n);
        near(a, want[i].achieved, 1e-12, "achieved level");
    }
    double a;
    cr_assert_eq(st_walsh_rank(20, 0.90, &a), 61);
    near(a, 0.902692794799805, 1e-12, "90% at n = 20");
    cr_assert_eq(st_walsh_rank(5, 0.95, &a), 0, "5 blocks cannot reach 95%%");
    cr_assert(isnan(a));
    cr_assert_eq(st_walsh_rank(0, 0.95, NULL), 0);
    /* Beyond the exact count, the normal approximation continues it. */
    size_t exact = st_walsh_rank(ST_WALSH_EXACT_MAX, 0.95, NULL),
           approx = st_walsh_rank(ST_WALSH_EXACT_MAX + 1, 0.95, NULL);
    cr_assert(approx > exact && approx < exact + ST_WALSH_EXACT_MAX + 1, "%zu then %zu", exact, approx);
}

Test(walsh, interval_of_two_data_sets) {
    double d12[12] = {0.031, -0.012, 0.054, 0.008, 0.017, -0.041, 0.026, 0.093, 0.002, 0.011, -0.006, 0.038};
    st_interval iv;
    st_walsh_interval(d12, 12, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_EXACT);
    near(iv.est, 0.016750000000000001, 1e-15, "HL");
    near(iv.lo, -0.002, 1e-15, "lower");
    near(iv.hi, 0.040500000000000001, 1e-15, "upper");
    double x[30];
    unsigned long long s = 777;
    for (int i = 0; i < 30; i++) {
        s = (1103515245ull * s + 12345ull) % 2147483648ull;
        x[i] = (double)s / 2147483648.0 - 0.5;
    }
    st_walsh_interval(x, 30, 0.95, &iv);
    near(iv.est, -0.042172321584075689, 1e-14, "HL 30");
    near(iv.lo, -0.16573649295605719, 1e-14, "lower 30");
    near(iv.hi, 0.072092711459845304, 1e-14, "upper 30");
    st_walsh_interval(x, 5, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
    cr_assert(strstr(iv.why, "too few blocks"), "%s", iv.why);
    double same[8] = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    st_walsh_interval(same, 8, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_DEGENERATE);
    cr_assert(iv.lo == 0.1 && iv.hi == 0.1);
    x[3] = NAN;
    st_walsh_interval(x, 30, 0.95, &iv);
    cr_assert_eq(iv.method, ST_CI_NONE);
}

/* analyze's paired intervals (st_pairs.c): exact from 6 blocks at 95% (the
 * cell, 8 blocks), the bootstrap below (the baseline's 5 A/A blocks). */
Test(walsh, analyze_gives_paired_cells_the_exact_interval) {
    static const double ratio[8] = {1.031, 1.052, 0.998, 1.044, 1.020, 1.061, 1.009, 1.027};
    char sql[16384];
    size_t n = (size_t)snprintf(
        sql, sizeof sql,
        "INSERT INTO meta VALUES('design','blocked');"
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES"
        " (1,'w','baseline',0,'',0,'',1,'w/baseline'),(2,'w','alloc',1048576,'fixed',0,'',1,'w/alloc-fixed-1M');");
    int id = 0, block = 0;
    for (int round = 1; round <= 8; round++) {
        double base = 1e8 * (1.0 + 0.01 * round), r = ratio[round - 1];
        block++;
        id += 2;
        n += (size_t)snprintf(
            sql + n, sizeof sql - n,
            "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,block_pos,"
            "block_role) VALUES(%d,2,%d,%d,'ok',%.0f,%.0f,0,%d,1,1),(%d,1,%d,%d,'ok',%.0f,%.0f,0,%d,2,0);",
            id - 1, round, id - 1, base * r, 0.9 * base * r, block, id, round, id, base, 0.9 * base, block);
        if (round <= 5) {
            block++;
            id += 2;
            n += (size_t)snprintf(sql + n, sizeof sql - n,
                                  "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,"
                                  "block_pos,block_role) VALUES(%d,1,%d,%d,'ok',%.0f,%.0f,0,%d,1,1),"
                                  "(%d,1,%d,%d,'ok',%.0f,%.0f,0,%d,2,0);",
                                  id - 1, round, id - 1, base * (1.0 + 0.003 * round), 0.9 * base, block, id, round, id,
                                  base, 0.9 * base, block);
        }
    }
    char *dir = fixture_dir();
    fixture_db(dir, sql);
    st_sweep sw;
    char err[512];
    cr_assert_eq(st_sweep_load(dir, &sw, err, sizeof err), 0, "%s", err);
    st_analysis_opts o;
    memset(&o, 0, sizeof o);
    o.boot = (st_boot_opts){2000, 0.95, 20250616};
    o.fit_resamples = 100;
    o.margin = 0.02;
    st_analysis an;
    st_analyze(&sw, &o, &an);
    const st_result *cell = NULL, *base = NULL;
    for (size_t i = 0; i < an.nresults; i++)
        if (an.results[i].is_baseline)
            base = &an.results[i];
        else
            cell = &an.results[i];
    double d[8];
    for (int i = 0; i < 8; i++)
        d[i] = log(ratio[i]);
    st_interval want;
    st_walsh_interval(d, 8, 0.95, &want);
    cr_assert_eq(cell->pairs, 8);
    cr_assert_eq(cell->paired.method, ST_CI_EXACT);
    near(cell->paired.lo, exp(want.lo), 1e-12, "paired lower");
    near(cell->paired.hi, exp(want.hi), 1e-12, "paired upper");
    cr_assert_str_eq(st_ci_name(cell->paired.method), "exact");
    cr_assert_eq(cell->paired_cpu.method, ST_CI_EXACT, "CPU times too");
    cr_assert_eq(base->pairs, 5);
    cr_assert_eq(base->paired.method, ST_CI_BCA, "5 A/A blocks: too few for an exact 95%% interval");
    st_analysis_free(&an);
    st_sweep_free(&sw);
    remove_fixture(dir);
}

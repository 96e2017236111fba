/* test_coverage.c - the coverage benchmark's machinery (stats/st_blockboot.h, st_synth.h,
 * st_covbench.h) and the adaptive rounds' two-stage rule (stats/st_stop.h).
 *
 * Reference values of the block length and the weighted median come from
 * tests/stats/blocklen_reference.py (Python standard library, written from
 * the papers' formulas, not from the C code).  The synthetic sweeps are
 * checked exactly where the design makes an answer exact (layout, counts,
 * noise-free truths of every interval kind) and statistically where it
 * does not (coverage on normal noise within wide binomial bounds).
 */
#include "st_analysis.h"
#include "st_blockboot.h"
#include "st_covbench.h"
#include "st_db.h"
#include "st_inproc.h"
#include "st_synth.h"
#include "st_util.h"

#include "covtest.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The reference script's series: x_t = phi x_{t-1} + u_t, u_t from a 31-bit LCG. */
static void lcg_series(double *x, size_t n, double phi, unsigned long long seed) {
    unsigned long long s = seed;
    double v = 0.0;
    for (size_t i = 0; i < n; i++) {
        s = (1103515245ull * s + 12345ull) % 2147483648ull;
        v = phi * v + ((double)s / 2147483648.0 - 0.5);
        x[i] = v;
    }
}

Test(blocklen, politis_white_matches_the_reference) {
    double x[300], d[299];
    lcg_series(x, 300, 0.6, 12345);
    for (int i = 0; i < 299; i++)
        d[i] = x[i + 1] - x[i];
    st_blocklen b;
    st_blocklen_pw(x, 300, &b);
    cr_assert_eq(b.m_hat, 4);
    cr_assert_eq(b.M, 8);
    near(b.cb, 11.7041702897074, 1e-12, "ar1 cb");
    near(b.sb, 10.2245345210354, 1e-12, "ar1 sb");
    cr_assert_eq(b.length, 12);
    near(st_acf1(x, 300), 0.571658612370842, 1e-12, "ar1 rho1");
    st_blocklen_pw(d, 299, &b);
    cr_assert_eq(b.m_hat, 1);
    cr_assert_eq(b.M, 2);
    near(b.cb, 7.58546508756625, 1e-12, "diff cb");
    near(b.sb, 6.62651411643709, 1e-12, "diff sb");
    cr_assert_eq(b.length, 8);
    near(st_acf1(d, 299), -0.248299595067134, 1e-12, "diff rho1");
    st_blocklen_pw(x, 60, &b);
    cr_assert_eq(b.m_hat, 2);
    cr_assert_eq(b.M, 4);
    near(b.cb, 4.63982153604606, 1e-12, "first 60 cb");
    cr_assert_eq(b.length, 5);
    /* A constant or too short series: length 1. */
    double c[10] = {0};
    st_blocklen_pw(c, 10, &b);
    cr_assert_eq(b.length, 1);
    st_blocklen_pw(x, 3, &b);
    cr_assert_eq(b.length, 1);
}

Test(blockboot, circular_blocks_are_consecutive_and_every_value_equally_often) {
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    size_t idx[1000];
    /* L = n: every block is a rotation, so k blocks hold each index exactly k times. */
    st_cbb_indices(r, 10, 10, idx, 1000);
    size_t count[10] = {0};
    for (size_t i = 0; i < 1000; i++) {
        count[idx[i]]++;
        if (i % 10)
            cr_assert_eq(idx[i], (idx[i - 1] + 1) % 10, "block of 10 broken at %zu", i);
    }
    for (int k = 0; k < 10; k++)
        cr_assert_eq(count[k], 100, "index %d drawn %zu times", k, count[k]);
    /* L = 3 over 7: blocks of three consecutive indices (wrapping), the last cut short. */
    st_cbb_indices(r, 7, 3, idx, 20);
    for (size_t i = 0; i < 20; i++)
        if (i % 3)
            cr_assert_eq(idx[i], (idx[i - 1] + 1) % 7);
    /* L above n is cut to n; L = 0 is 1. */
    st_cbb_indices(r, 4, 9, idx, 8);
    for (size_t i = 1; i < 8; i++)
        if (i % 4)
            cr_assert_eq(idx[i], (idx[i - 1] + 1) % 4);
    st_cbb_indices(r, 4, 0, idx, 8);
    for (size_t i = 0; i < 8; i++)
        cr_assert_lt(idx[i], 4);
    gsl_rng_free(r);
}

Test(synth, weighted_median_matches_the_reference) {
    double v1[] = {3, 1, 2}, w1[] = {1, 1, 1};
    cr_assert_eq(st_weighted_median(v1, w1, 3), 2);
    double v2[] = {4, 1, 3, 2}, w2[] = {1, 1, 1, 1};
    cr_assert_eq(st_weighted_median(v2, w2, 4), 2.5);
    double v3[] = {1, 2, 3, 10}, w3[] = {0.1, 0.1, 0.1, 0.8};
    cr_assert_eq(st_weighted_median(v3, w3, 4), 10);
    double v4[] = {1, 2, 3}, w4[] = {0.25, 0.25, 0.5};
    cr_assert_eq(st_weighted_median(v4, w4, 3), 2.5);
    cr_assert(isnan(st_weighted_median(v4, w4, 0)));
}

/* A blocked source of n blocks whose residuals are given by f(i, pos). */
static st_nsource make_source(size_t n, double (*f)(size_t, int, void *), void *ctx) {
    st_nsource s;
    memset(&s, 0, sizeof s);
    s.sweep = ct_xstrdup("fixture");
    s.workload = ct_xstrdup("w");
    s.n = n;
    s.blocks = ct_xmalloc(n * sizeof *s.blocks);
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < 2; p++)
            s.blocks[i].wall[p] = s.blocks[i].cpu[p] = f(i, p, ctx);
    s.wall0 = 2e8;
    s.cpu0 = 1.5e8;
    st_nsource_finish(&s);
    return s;
}

static double zero(size_t i, int p, void *ctx) {
    (void)i, (void)p, (void)ctx;
    return 0.0;
}

static double normal(size_t i, int p, void *ctx) {
    (void)i, (void)p;
    return gsl_ran_gaussian(ctx, 0.05);
}

static double indexed(size_t i, int p, void *ctx) {
    (void)ctx;
    return ((double)i + 0.5 * p) / 1024.0; /* exact in binary: the differences are exactly 1/2048 */
}

Test(synth, sweep_layout_is_the_harness_design) {
    st_nsource s = make_source(40, indexed, NULL);
    cr_assert_eq(s.len_diff.length, 1, "constant differences: length %zu", s.len_diff.length);
    cr_assert_gt(s.len_level.length, 1, "a trend: long blocks");
    cr_assert_eq(s.L, s.len_level.length, "the longer of the two lengths");
    st_synth_plan plan = {7, 1.05, 1000.0, 1000.0, {0.01, 0.04, 0.16}, {0}, 0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    st_sweep sw;
    double samples[ST_SYN_NCELLS];
    st_synth_sweep(&s, &plan, r, &sw, samples);
    cr_assert_eq(sw.ncells, 5);
    cr_assert_eq(sw.nruns, 2 * 5 * 7, "two runs per block, five blocks per round");
    cr_assert_eq(sw.cells[ST_SYN_BASE].nruns, 7 * 6, "the baseline: an A/A block and four partners a round");
    for (int c = 1; c < 5; c++)
        cr_assert_eq(sw.cells[c].nruns, 7);
    cr_assert_eq(samples[ST_SYN_ALLOC1], round(0.01 * 2e8 / 1000.0));
    cr_assert_eq(samples[ST_SYN_ALLOC3], round(0.16 * 2e8 / 1000.0));
    /* Every block: two runs adjacent in seq, one of each role; each cell's role-1 run first in 3 or 4 of 7. */
    int64_t seq_of[80][2] = {{0}};
    int first[5] = {0}, role1_cell[80];
    for (size_t i = 0; i < sw.nruns; i++) {
        const st_run *x = &sw.runs[i];
        cr_assert(x->block >= 1 && x->block <= 35);
        seq_of[x->block][x->role] = x->seq;
        if (x->role)
            for (int c = 0; c < 5; c++)
                if (i >= sw.cells[c].first_run && i < sw.cells[c].first_run + sw.cells[c].nruns)
                    role1_cell[x->block] = c;
    }
    for (int b = 1; b <= 35; b++) {
        cr_assert_eq(llabs(seq_of[b][0] - seq_of[b][1]), 1, "block %d not adjacent", b);
        first[role1_cell[b]] += seq_of[b][1] < seq_of[b][0];
    }
    for (int c = 0; c < 5; c++)
        cr_assert(first[c] == 3 || first[c] == 4, "cell %d first in %d of 7", c, first[c]);
    /* Noise in execution order: with L = 1 every block is some observed block, its first run's residual first. */
    for (size_t i = 0; i < sw.nruns; i++) {
        const st_run *x = &sw.runs[i];
        int c = 0;
        while (!(i >= sw.cells[c].first_run && i < sw.cells[c].first_run + sw.cells[c].nruns))
            c++;
        double w = x->wall_ns;
        if (c == ST_SYN_TIME)
            w /= 1.05;
        else if (c >= ST_SYN_ALLOC1)
            w -= 1000.0 * samples[c];
        double res = log(w / 2e8), k = res * 2048.0;
        int pos = seq_of[x->block][x->role] > seq_of[x->block][!x->role];
        cr_assert(fabs(k - round(k)) < 1e-4 && ((long)round(k)) % 2 == pos, "run %zu: residual %.9g at position %d", i,
                  res, pos);
        if (c == ST_SYN_TIME)
            near(x->key[ST_K_time_samples], 1000.0 * x->wall_ns / 1e9, 1e-15, "time samples");
    }
    st_sweep_free(&sw);
    gsl_rng_free(r);
    free(s.sweep), free(s.workload), free(s.blocks);
}

/* coverage-bench writes its CSV rows unquoted: no kind's name may hold a comma. */
Test(covbench, kind_names_fit_an_unquoted_csv_field) {
    for (int k = 0; k < ST_COV_NKINDS; k++)
        cr_assert(!strchr(st_cov_kind_name((st_cov_kind)k), ','), "%s", st_cov_kind_name((st_cov_kind)k));
}

/* Noise-free sources: every estimate of every kind is its truth, so the
 * truths the benchmark judges against are the ones analyze estimates. */
Test(covbench, noise_free_estimates_equal_their_truths) {
    st_nsource s = make_source(20, zero, NULL);
    st_cov_opts o;
    st_cov_defaults(&o);
    o.resamples = 200;
    o.fit_resamples = 100;
    st_cov_iv iv[ST_COV_NKINDS];
    st_cov_experiment(&s, 5, &o, 0, iv);
    for (int k = 0; k < ST_COV_NKINDS; k++) {
        if (st_cov_kind_inproc((st_cov_kind)k))
            continue;
        cr_assert(iv[k].has, "%s: no interval", st_cov_kind_name((st_cov_kind)k));
        double tol = 1e-9 * (fabs(iv[k].truth) > 1 ? fabs(iv[k].truth) : 1.0);
        if (k == ST_COV_REG_FIXED)
            tol = 1e-6; /* ns: a difference of two 2e8 ns medians */
        cr_assert(fabs(iv[k].est - iv[k].truth) <= tol, "%s: estimate %.15g, truth %.15g",
                  st_cov_kind_name((st_cov_kind)k), iv[k].est, iv[k].truth);
        cr_assert(iv[k].lo <= iv[k].est + tol && iv[k].hi >= iv[k].est - tol, "%s: [%g, %g] around %g",
                  st_cov_kind_name((st_cov_kind)k), iv[k].lo, iv[k].hi, iv[k].est);
    }
    near(iv[ST_COV_NORM].truth, 1.05, 1e-12, "normalized truth");
    near(iv[ST_COV_CMP_PAIRED].truth, 0.03, 1e-12, "compare truth");
    free(s.sweep), free(s.workload), free(s.blocks);
}

/* Normal noise: every kind covers near 95% (200 experiments: a 95% interval
 * reaching below 0.88 or above 0.995 says the truth or the interval is
 * wrong), and the tallies are exact sums of the per-source ones. */
Test(covbench, normal_noise_covers_near_the_level, .timeout = 600) {
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    st_nsource s[2] = {make_source(600, normal, r), make_source(600, normal, r)};
    gsl_rng_free(r);
    st_cov_opts o;
    st_cov_defaults(&o);
    o.experiments = 200;
    o.resamples = 500;
    o.fit_resamples = 200;
    o.compare = 1;
    st_cov_tally t[ST_COV_NKINDS], per[2 * ST_COV_NKINDS];
    memset(t, 0, sizeof t);
    memset(per, 0, sizeof per);
    st_cov_blocked(s, 2, 12, &o, t, per, NULL);
    for (int k = 0; k < ST_COV_NKINDS; k++) {
        if (st_cov_kind_inproc((st_cov_kind)k)) {
            cr_assert_eq(t[k].judged + t[k].none, 0);
            continue;
        }
        cr_assert_eq(t[k].judged, 200, "%s: %zu judged, %zu none", st_cov_kind_name((st_cov_kind)k), t[k].judged,
                     t[k].none);
        cr_assert_eq(t[k].covered + t[k].above + t[k].below, t[k].judged);
        cr_assert_eq(per[k].judged + per[ST_COV_NKINDS + k].judged, 200);
        cr_assert_eq(per[k].covered + per[ST_COV_NKINDS + k].covered, t[k].covered);
        double lo, hi;
        st_cov_binomial(t[k].covered, t[k].judged, 0.95, &lo, &hi);
        cr_assert(hi >= 0.88 && lo <= 0.995, "%s: coverage %zu of 200, [%.3f, %.3f]", st_cov_kind_name((st_cov_kind)k),
                  t[k].covered, lo, hi);
    }
    /* The same seed, the same counts. */
    st_cov_tally again[ST_COV_NKINDS];
    memset(again, 0, sizeof again);
    o.experiments = 20;
    st_cov_tally first[ST_COV_NKINDS];
    memset(first, 0, sizeof first);
    st_cov_blocked(s, 2, 12, &o, first, NULL, NULL);
    st_cov_blocked(s, 2, 12, &o, again, NULL, NULL);
    for (int k = 0; k < ST_COV_NKINDS; k++)
        cr_assert_eq(first[k].covered, again[k].covered);
    for (int i = 0; i < 2; i++)
        free(s[i].sweep), free(s[i].workload), free(s[i].blocks);
}

Test(covbench, binomial_interval_is_clopper_pearson) {
    double lo, hi;
    st_cov_binomial(950, 1000, 0.95, &lo, &hi);
    near(lo, 0.934610, 1e-5, "950/1000 lower");
    near(hi, 0.962665, 1e-5, "950/1000 upper");
    st_cov_binomial(5, 10, 0.95, &lo, &hi);
    near(lo, 0.187086, 1e-5, "5/10 lower");
    near(hi, 0.812914, 1e-5, "5/10 upper");
    st_cov_binomial(360, 360, 0.95, &lo, &hi);
    near(lo, pow(0.025, 1.0 / 360), 1e-12, "all");
    cr_assert_eq(hi, 1.0);
    st_cov_binomial(0, 360, 0.95, &lo, &hi);
    cr_assert_eq(lo, 0.0);
    near(hi, 1 - pow(0.025, 1.0 / 360), 1e-12, "none");
}

/* ---- the sources' loader, on fixture databases ---- */

/* Workload w: baseline (cell 1) and one allocation cell (cell 2); workload v:
 * a baseline (cell 3).  Blocks 1-4: cell 2 with its baseline; 5-6: w's A/A;
 * 7-8: v's A/A; block 9: a failed run, left out.  Seq order differs from
 * block order (block 3 ran first), and within block 2 the baseline ran first. */
Test(sources, blocked_sweep_blocks_residuals_and_levels) {
    char *dir = fixture_dir();
    fixture_db(dir,
               "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES"
               " (1,'w','baseline',0,'',0,'',1,'w/baseline'),(2,'w','alloc',1048576,'fixed',0,'',1,'w/alloc'),"
               " (3,'v','baseline',0,'',0,'',1,'v/baseline');"
               "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,block_pos,block_role)"
               " VALUES"
               " (1,2,1,3,'ok',110,100,0,1,1,1),(2,1,1,4,'ok',100,90,0,1,2,0),"
               " (3,1,2,5,'ok',104,95,0,2,1,0),(4,2,2,6,'ok',121,110,0,2,2,1),"
               " (5,2,3,1,'ok',115,104,1,3,1,1),(6,1,3,2,'ok',98,88,0,3,2,0),"
               " (7,2,4,7,'ok',108,99,0,4,1,1),(8,1,4,8,'ok',102,93,0,4,2,0),"
               " (9,1,5,9,'ok',101,91,0,5,1,1),(10,1,5,10,'ok',99,89,0,5,2,0),"
               " (11,1,6,11,'ok',103,94,0,6,1,1),(12,1,6,12,'ok',97,87,0,6,2,0),"
               " (13,3,1,13,'ok',50,40,0,7,1,1),(14,3,1,14,'ok',52,42,0,7,2,0),"
               " (15,3,2,15,'ok',51,41,0,8,1,1),(16,3,2,16,'ok',49,39,0,8,2,0),"
               " (17,2,7,17,'failed',NULL,NULL,NULL,9,1,1),(18,1,7,18,'ok',100,90,0,9,2,0);");
    st_nsource *ns;
    st_ipsource *ips;
    size_t nns, nips;
    char err[512];
    cr_assert_eq(st_sources_load(dir, &ns, &nns, &ips, &nips, err, sizeof err), 0, "%s", err);
    cr_assert_eq(nns, 1, "one source per workload with 4 blocks or more (v has 2)");
    cr_assert_eq(nips, 0);
    cr_assert_str_eq(ns[0].workload, "w");
    const st_nsource *w = &ns[0];
    cr_assert_eq(w->n, 6, "blocks 1-6 (block 9 has a failed run)");
    /* Medians of log wall: cell 1 over its 9 used runs {100,104,98,102,101,99,103,97,100}: log 100;
     * cell 2 over {110,121,115,108}: log sqrt(110 * 115). */
    double m1 = log(100.0), m2 = 0.5 * (log(110.0) + log(115.0));
    near(w->wall0, 100.0, 1e-12, "w's baseline median");
    /* In seq order: block 3 (seq 1, 2), block 1 (3, 4), block 2 (5, 6), block 4, block 5, block 6. */
    double want[6][2] = {{log(115.0) - m2, log(98.0) - m1},  {log(110.0) - m2, log(100.0) - m1},
                         {log(104.0) - m1, log(121.0) - m2}, {log(108.0) - m2, log(102.0) - m1},
                         {log(101.0) - m1, log(99.0) - m1},  {log(103.0) - m1, log(97.0) - m1}};
    for (int i = 0; i < 6; i++)
        for (int p = 0; p < 2; p++)
            near(w->blocks[i].wall[p] + 10.0, want[i][p] + 10.0, 1e-12, "wall residual");
    /* CPU: user + sys, the first block's first run 104 + 1. */
    double c2[4] = {log(100.0), log(110.0), log(105.0), log(99.0)},
           c1[9] = {log(90.0), log(95.0), log(88.0), log(93.0), log(91.0), log(89.0), log(94.0), log(87.0), log(90.0)};
    double mc2 = st_median(c2, 4), mc1 = st_median(c1, 9);
    near(w->blocks[0].cpu[0] + 10.0, log(105.0) - mc2 + 10.0, 1e-12, "cpu residual");
    near(w->blocks[0].cpu[1] + 10.0, log(88.0) - mc1 + 10.0, 1e-12, "cpu residual");
    near(w->cpu0, exp(mc1), 1e-12, "w's baseline CPU median");
    st_nsources_free(ns, nns);
    remove_fixture(dir);
}

/* In-process: two processes of w's baseline and two of its allocation cell,
 * nine complete blocks each after the lead-in (ABBA), plus a block cut by
 * the exit; work is iterations.  Each block's r is log((cpu_B / it_B) /
 * (cpu_A / it_A)); each cell's r are centred by its median. */
Test(sources, inprocess_sweep_processes_centred_by_their_cell) {
    char sql[65536];
    size_t n = (size_t)snprintf(
        sql, sizeof sql,
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES"
        " (1,'w','baseline',0,'',0,'',1,'w/baseline'),(2,'w','alloc',1048576,'fixed',0,'',1,'w/alloc');"
        "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns) VALUES"
        " (1,1,1,1,'ok',1000,900,0),(2,1,2,2,'ok',1000,900,0),(3,2,1,3,'ok',1000,900,0),(4,2,2,4,'ok',1000,900,0);");
    double expect[4][9];
    for (int run = 1; run <= 4; run++) {
        int idx = 0;
        for (int b = 0; b <= 10; b++) {
            /* B segments cost 1 + (run + b) % 5 / 100 more, plus 10% in the allocation cell. */
            double f = (1.0 + (double)((run + b) % 5) / 100.0) * (run >= 3 ? 1.1 : 1.0);
            for (int pos = 0; pos < 4; pos++) {
                int isb = pos == 1 || pos == 2;
                double cpu = isb ? 1000.0 * f : 1000.0;
                const char *end = b == 10 && pos == 3 ? "exit" : "iter";
                n += (size_t)snprintf(
                    sql + n, sizeof sql - n,
                    "INSERT INTO segments VALUES(%d,%d,%d,%d,'%c',%d,'%s',%.0f,%.0f,4096,100,%d,0,0,0,0,"
                    "0,0,0,NULL,'freecheck','thread');",
                    run, idx++, b, pos, isb ? 'B' : 'A', isb && run >= 3, end, cpu, cpu, isb && run >= 3 ? 3 : 0);
            }
            if (b >= 1 && b <= 9)
                expect[run - 1][b - 1] = log(2000.0 * f / 200.0) - log(2000.0 / 200.0);
        }
    }
    char *dir = fixture_dir();
    fixture_db(dir, sql);
    st_nsource *ns;
    st_ipsource *ips;
    size_t nns, nips;
    char err[512];
    cr_assert_eq(st_sources_load(dir, &ns, &nns, &ips, &nips, err, sizeof err), 0, "%s", err);
    cr_assert_eq(nns, 0, "no blocks of runs");
    cr_assert_eq(nips, 1);
    cr_assert_eq(ips[0].np, 4);
    for (int c = 0; c < 2; c++) {
        double pooled[18];
        for (int k = 0; k < 18; k++)
            pooled[k] = expect[2 * c + k / 9][k % 9];
        double med = st_median(pooled, 18);
        for (int p = 0; p < 2; p++) {
            const st_ipproc *q = &ips[0].p[2 * c + p];
            cr_assert_eq(q->n, 9, "nine complete blocks (the lead-in and the block cut by the exit left out)");
            for (int b = 0; b < 9; b++) {
                near(q->r[b] + 10.0, expect[2 * c + p][b] - med + 10.0, 1e-12, "centred r");
                /* The stored segments give that r to the estimator. */
                double cpu[2] = {0, 0}, work[2] = {0, 0};
                for (int t = 0; t < 4; t++) {
                    int isb = q->b[b].kind[t] == 'B';
                    cpu[isb] += q->b[b].cpu[t];
                    work[isb] += q->b[b].work[t];
                }
                near(log((cpu[1] / work[1]) / (cpu[0] / work[0])) + 10.0, q->r[b] + 10.0, 1e-12, "segments' r");
            }
        }
    }
    /* A synthetic cell from it: every process a resample of one pool process,
     * ratio 1.2 on the B segments; the estimator sees r + log 1.2. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    st_seg *segs;
    size_t nsegs;
    st_synth_inproc(&ips[0], 3, 7, 1.2, r, &segs, &nsegs);
    cr_assert_eq(nsegs, 4 * 3 * 7);
    st_blocks blk;
    st_inproc_blocks(segs, nsegs, &blk);
    cr_assert_eq(blk.n, 21, "every synthetic block complete");
    cr_assert_eq(blk.runs, 3);
    cr_assert_eq(blk.work_iterations, 1);
    for (size_t i = 0; i < blk.n; i++) {
        int found = 0;
        for (size_t p = 0; p < 4 && !found; p++)
            for (size_t b = 0; b < 9 && !found; b++)
                found = fabs(blk.log_ratio[i] - log(1.2) - ips[0].p[p].r[b]) < 1e-12;
        cr_assert(found, "block %zu: r %.12g is no pool block's r + log 1.2", i, blk.log_ratio[i]);
    }
    st_blocks_free(&blk);
    free(segs);
    gsl_rng_free(r);
    st_ipsources_free(ips, nips);
    remove_fixture(dir);
}

Test(sources, a_sweep_without_blocks_or_series_is_refused) {
    char *dir = fixture_dir();
    fixture_db(dir,
               "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES"
               " (1,'w','baseline',0,'',0,'',1,'w/baseline');"
               "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns) VALUES"
               " (1,1,1,1,'ok',1000,900,0),(2,1,2,2,'ok',1000,900,0);");
    st_nsource *ns;
    st_ipsource *ips;
    size_t nns, nips;
    char err[512];
    cr_assert_eq(st_sources_load(dir, &ns, &nns, &ips, &nips, err, sizeof err), 2);
    cr_assert(strstr(err, "not a blocked or in-process sweep"), "%s", err);
    remove_fixture(dir);
    cr_assert_eq(st_sources_load("/nonexistent-freecheck-dir", &ns, &nns, &ips, &nips, err, sizeof err), 2);
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* An in-process source of np processes x n blocks whose processes differ:
 * process j's per-block log-ratios are shift_j + normal noise (SD sd),
 * shift_j = spread (j - (np - 1) / 2) / ((np - 1) / 2), blocks ABBA with
 * A's CPU 1e6 ns and work 1000 a segment. */
static st_ipsource make_ipsource(size_t np, size_t n, double spread, double sd, gsl_rng *rng) {
    st_ipsource s;
    memset(&s, 0, sizeof s);
    s.sweep = ct_xstrdup("fixture");
    s.workload = ct_xstrdup("w");
    s.np = np;
    s.p = ct_xcalloc(np, sizeof *s.p);
    for (size_t j = 0; j < np; j++) {
        st_ipproc *p = &s.p[j];
        double shift = spread * ((double)j - 0.5 * (double)(np - 1)) / (0.5 * (double)(np - 1));
        p->n = n;
        p->b = ct_xcalloc(n, sizeof *p->b);
        p->r = ct_xmalloc(n * sizeof *p->r);
        for (size_t i = 0; i < n; i++) {
            p->r[i] = shift + (sd > 0 ? gsl_ran_gaussian(rng, sd) : 0.0);
            for (int pos = 0; pos < 4; pos++) {
                int b = pos == 1 || pos == 2;
                p->b[i].kind[pos] = b ? 'B' : 'A';
                p->b[i].cpu[pos] = 1e6 * (b ? exp(p->r[i]) : 1.0);
                p->b[i].work[pos] = 1000;
                p->b[i].samples[pos] = b ? 10 : 0;
            }
        }
    }
    st_ipsource_finish(&s);
    return s;
}

static void free_ipsource(st_ipsource *s) {
    for (size_t j = 0; j < s->np; j++)
        free(s->p[j].b), free(s->p[j].r);
    free(s->p), free(s->sweep), free(s->workload);
}

/* The in-process kinds.  truth_proc_log is the mean of the processes' own
 * medians (recomputed here from sorted copies).  Processes that differ
 * (shifts up to +-0.03, block noise SD 0.05, so a process's median has an
 * SE near 0.05 x 1.25 / sqrt(40) = 0.0099): the interval over processes
 * (analyze's) covers near 95% (200 experiments: outside [0.88, 0.995]
 * says the truth or the interval is wrong); the pooled one, which ignores
 * the processes, covers clearly less; the candidate with equal weights (a
 * t interval of the 4 processes' medians) covers near 95% too; every
 * experiment is judged for all three. */
Test(covbench, in_process_kinds_judge_the_processes_interval, .timeout = 600) {
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    st_ipsource s = make_ipsource(12, 60, 0.03, 0.05, r);
    gsl_rng_free(r);
    double mean = 0;
    for (size_t j = 0; j < s.np; j++) {
        double c[60];
        memcpy(c, s.p[j].r, sizeof c);
        qsort(c, 60, sizeof *c, cmp_dbl);
        mean += 0.5 * (c[29] + c[30]) / (double)s.np;
    }
    near(s.truth_proc_log, mean, 1e-15, "the mean of the processes' medians");
    st_cov_opts o;
    st_cov_defaults(&o);
    o.experiments = 200;
    o.resamples = 500;
    st_cov_tally t[ST_COV_NKINDS];
    memset(t, 0, sizeof t);
    st_cov_inproc(&s, 1, 4, 40, &o, t, NULL);
    for (int k = 0; k < ST_COV_NKINDS; k++)
        if (!st_cov_kind_inproc((st_cov_kind)k))
            cr_assert_eq(t[k].judged + t[k].none, 0, "%s judged", st_cov_kind_name((st_cov_kind)k));
    const st_cov_tally *pr = &t[ST_COV_INPROC_PROC], *po = &t[ST_COV_INPROC];
    cr_assert_eq(pr->judged, 200, "processes: %zu judged, %zu none", pr->judged, pr->none);
    cr_assert_eq(po->judged, 200, "pooled: %zu judged, %zu none", po->judged, po->none);
    double lo, hi;
    st_cov_binomial(pr->covered, pr->judged, 0.95, &lo, &hi);
    cr_assert(hi >= 0.88 && lo <= 0.995, "processes: %zu of 200", pr->covered);
    cr_assert(po->covered + 30 < pr->covered, "pooled %zu of 200, processes %zu", po->covered, pr->covered);
    const st_cov_tally *eq = &t[ST_COV_INPROC_EQUAL];
    cr_assert_eq(eq->judged, 200, "equal weights: %zu judged, %zu none", eq->judged, eq->none);
    st_cov_binomial(eq->covered, eq->judged, 0.95, &lo, &hi);
    cr_assert(hi >= 0.88 && lo <= 0.995, "equal weights: %zu of 200", eq->covered);
    free_ipsource(&s);
}

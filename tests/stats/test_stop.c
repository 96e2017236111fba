/* test_stop.c - the adaptive rounds' two-stage rule (stats/st_stop.h): its target and interval, its
 * coverage by simulation, and analyze on sweeps with adaptive rounds (st_pairs.c: the two-stage
 * intervals, the marking in summary.csv and summary.md). */
#include "st_analysis.h"
#include "st_analyze.h"
#include "st_covbench.h"
#include "st_stop.h"
#include "st_synth.h"
#include "st_util.h"
#include "st_walsh.h"

#include "covtest.h"

#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(stop, target_from_the_pilot) {
    /* kappa at n0 = 30, 95%: t_29(0.975) sqrt(30 / 29) / z(0.975), from the tables' quantiles. */
    near(st_stop_expansion(30, 0.95), 2.045229642132703 * sqrt(30.0 / 29.0) / 1.959963984540054, 1e-9, "kappa 30");
    near(st_stop_expansion(10, 0.95), 2.262157162740992 * sqrt(10.0 / 9.0) / 1.959963984540054, 1e-9, "kappa 10");
    cr_assert_eq(st_stop_expansion(1, 0.95), 1.0);
    st_stop s = {ST_STOP_TWO_STAGE, 0.02, 30, 200, 0.95};
    /* Pilot intervals on the log scale; the expanded ratio half-widths (tests/stats/blocklen_reference.py's
     * arithmetic: sinh and exp of kappa times the distances). */
    st_interval iv = {0.0, -0.005, 0.005, ST_CI_BCA, NULL, NAN, NAN};
    cr_assert_eq(st_stop_target(&iv, &s), 30, "within the target: the pilot");
    iv.lo = -0.03, iv.hi = 0.03; /* half-width 0.0318457: 30 x (0.0318457 / 0.02)^2 = 76.07 */
    cr_assert_eq(st_stop_target(&iv, &s), 77);
    iv = (st_interval){0.1, 0.06, 0.13, ST_CI_BCA, NULL, NAN, NAN}; /* asymmetric: 0.0408459, 125.1 */
    cr_assert_eq(st_stop_target(&iv, &s), 126);
    iv = (st_interval){0.0, -0.1, 0.1, ST_CI_PERCENTILE, NULL, NAN, NAN}; /* 848.1: the maximum */
    cr_assert_eq(st_stop_target(&iv, &s), 200);
    iv.method = ST_CI_NONE;
    cr_assert_eq(st_stop_target(&iv, &s), 200, "no pilot interval: the maximum");
    s.max_blocks = 10;
    iv = (st_interval){0.0, -0.1, 0.1, ST_CI_BCA, NULL, NAN, NAN};
    cr_assert_eq(st_stop_target(&iv, &s), 30, "a maximum below the pilot is the pilot");
}

Test(stop, interval_scales_the_pilot_around_all_blocks) {
    double d[12] = {0.031, -0.012, 0.054, 0.008, 0.017, -0.041, 0.026, 0.093, 0.002, 0.011, -0.006, 0.038};
    st_boot_opts o = {4000, 0.95, 42};
    st_interval pilot, two, same;
    /* An exact pilot (8 blocks): its distances scaled by sqrt(8 / 12) around the estimate of all 12. */
    st_walsh_interval(d, 8, 0.95, &pilot);
    st_stop_interval(d, 12, 8, &o, &two);
    double s = sqrt(8.0 / 12.0), t = st_hodges_lehmann(d, 12);
    cr_assert_eq(two.est, t);
    near(two.lo, t - (pilot.est - pilot.lo) * s, 1e-15, "lower");
    near(two.hi, t + (pilot.hi - pilot.est) * s, 1e-15, "upper");
    cr_assert_eq(two.method, ST_CI_EXACT);
    /* Not extended: the pilot's interval itself. */
    st_stop_interval(d, 8, 8, &o, &same);
    cr_assert(same.est == pilot.est && same.lo == pilot.lo && same.hi == pilot.hi);
    /* A bootstrap pilot (5 blocks, too few for an exact 95% interval): expanded by kappa(5). */
    st_interval boot;
    st_paired_bootstrap(d, 5, ST_LOC_HL, &o, &boot);
    st_stop_interval(d, 12, 5, &o, &two);
    double k = st_stop_expansion(5, 0.95);
    near(k, 2.776445105197793 * sqrt(5.0 / 4.0) / 1.959963984540054, 1e-9, "kappa 5");
    s = k * sqrt(5.0 / 12.0);
    near(two.lo, t - (boot.est - boot.lo) * s, 1e-15, "bootstrap pilot lower");
    near(two.hi, t + (boot.hi - boot.est) * s, 1e-15, "bootstrap pilot upper");
    cr_assert_eq(two.method, boot.method);
    /* A pilot without an interval: the plain interval of all blocks. */
    st_interval plain;
    st_paired_interval(d, 12, &o, &plain);
    st_stop_interval(d, 12, 2, &o, &two);
    cr_assert(two.lo == plain.lo && two.hi == plain.hi);
}

/* The rules on normal noise (8% a block, target 2%, pilot 30): the two-stage
 * rule covers near 95% (300 experiments: its 95% interval must reach 0.94),
 * spends its pilot's projection, and every interval is within the target
 * unless the maximum cut it short. */
Test(stop, two_stage_rule_covers_on_normal_noise, .timeout = 600) {
    st_stop s = {ST_STOP_TWO_STAGE, 0.02, 30, 200, 0.95};
    st_stop_source src = {0, 0.08, NULL};
    st_stop_sim r;
    st_stop_simulate(&s, log(1.01), &src, 300, 500, 7, &r);
    cr_assert_eq(r.experiments, 300);
    cr_assert_eq(r.none, 0);
    cr_assert_eq(r.covered + r.above + r.below, 300);
    double lo, hi;
    st_cov_binomial(r.covered, 300, 0.95, &lo, &hi);
    cr_assert(hi >= 0.94 && lo <= 0.99, "two-stage coverage %zu of 300 [%.3f, %.3f]", r.covered, lo, hi);
    cr_assert(r.extended >= 290, "an 8%% block SD needs more than 30 blocks for +-2%%: %zu of 300 extended",
              r.extended);
    cr_assert(r.mean_blocks > 60 && r.mean_blocks < 120, "mean blocks %.1f", r.mean_blocks);
    cr_assert(r.mean_halfwidth <= 0.0202, "mean half-width %.4f", r.mean_halfwidth);
    /* Machine noise: a committed-sweep-like source of heavy-tailed blocks (t3), drawn by the block bootstrap. */
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 3);
    st_nsource ns;
    memset(&ns, 0, sizeof ns);
    ns.sweep = ct_xstrdup("fixture");
    ns.workload = ct_xstrdup("w");
    ns.n = 400;
    ns.blocks = ct_xmalloc(ns.n * sizeof *ns.blocks);
    for (size_t i = 0; i < ns.n; i++)
        for (int p = 0; p < 2; p++)
            ns.blocks[i].wall[p] = ns.blocks[i].cpu[p] = 0.04 * gsl_ran_tdist(g, 3) / sqrt(3.0);
    ns.wall0 = ns.cpu0 = 1e8;
    st_nsource_finish(&ns);
    gsl_rng_free(g);
    st_stop_source m = {2, 0, &ns};
    st_stop_simulate(&s, log(1.01), &m, 300, 500, 8, &r);
    st_cov_binomial(r.covered, 300, 0.95, &lo, &hi);
    cr_assert(hi >= 0.94 && lo <= 0.99, "two-stage coverage on resampled blocks %zu of 300 [%.3f, %.3f]", r.covered, lo,
              hi);
    free(ns.sweep), free(ns.workload), free(ns.blocks);
}

/* ---- analyze on a sweep with adaptive rounds (st_pairs.c, st_stop.h) ---- */

/* A blocked sweep: w's baseline (cell 1) and allocation cell (cell 2); 4
 * planned rounds, then 3 adaptive rounds of the cell alone; the baseline's
 * A/A blocks in the planned rounds only.  meta: the config's runs and
 * halfwidth, and adaptive_rule when rule is not NULL. */
static const double adaptive_ratio[7] = {1.031, 1.052, 0.998, 1.044, 1.020, 1.061, 1.009};

static char *adaptive_fixture(const char *halfwidth, const char *rule) {
    char sql[16384];
    size_t n = (size_t)snprintf(
        sql, sizeof sql,
        "INSERT INTO meta VALUES('design','blocked'),('config','quick = no\nruns = 4\nwarmup = 1\ndesign = "
        "blocked\nhalfwidth = %s\nmax-runs = 20\n');"
        "INSERT INTO cells(cell_id,workload,kind,alloc_period,alloc_mode,time_hz,time_clock,size,label) VALUES"
        " (1,'w','baseline',0,'',0,'',1,'w/baseline'),(2,'w','alloc',1048576,'fixed',0,'',1,'w/alloc-fixed-1M');",
        halfwidth);
    if (rule)
        n += (size_t)snprintf(sql + n, sizeof sql - n, "INSERT INTO meta VALUES('adaptive_rule','%s');", rule);
    int id = 0, block = 0;
    for (int round = 1; round <= 7; round++) {
        double base = 1e8 * (1.0 + 0.01 * round), r = adaptive_ratio[round - 1];
        block++;
        id += 2; /* run ids and seq alike: the cell's run first, then its baseline's */
        n += (size_t)snprintf(
            sql + n, sizeof sql - n,
            "INSERT INTO runs(run_id,cell_id,round,seq,status,wall_ns,user_ns,sys_ns,block,block_pos,"
            "block_role) VALUES(%d,2,%d,%d,'ok',%.0f,%.0f,0,%d,1,1),(%d,1,%d,%d,'ok',%.0f,%.0f,0,%d,2,0);",
            id - 1, round, id - 1, base * r, 0.9 * base * r, block, id, round, id, base, 0.9 * base, block);
        if (round <= 4) {
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
    return dir;
}

static const st_result *find_result(const st_analysis *an, const char *label) {
    for (size_t i = 0; i < an->nresults; i++)
        if (!strcmp(an->results[i].cell->label, label))
            return &an->results[i];
    cr_assert_fail("no result %s", label);
    return NULL;
}

static void analyse(const char *dir, st_sweep *sw, st_analysis *an) {
    char err[512];
    cr_assert_eq(st_sweep_load(dir, sw, err, sizeof err), 0, "%s", err);
    st_analysis_opts o;
    memset(&o, 0, sizeof o);
    o.boot = (st_boot_opts){2000, 0.95, 20250616};
    o.fit_resamples = 100;
    o.margin = 0.02;
    st_analyze(sw, &o, an);
}

Test(adaptive, analyze_gives_extended_cells_the_two_stage_interval) {
    char *dir = adaptive_fixture("2%", "two-stage");
    st_sweep sw;
    st_analysis an;
    analyse(dir, &sw, &an);
    cr_assert_eq(an.rule, ST_RULE_TWO_STAGE);
    cr_assert_eq(an.planned_rounds, 4);
    near(an.halfwidth, 0.02, 1e-15, "halfwidth");
    const st_result *c = find_result(&an, "w/alloc-fixed-1M"), *b = find_result(&an, "w/baseline");
    cr_assert_eq(c->pairs, 7);
    cr_assert_eq(c->pilot_pairs, 4);
    cr_assert_eq(c->adaptive_rounds, 3);
    cr_assert_eq(b->pairs, 4);
    cr_assert_eq(b->adaptive_rounds, 0, "the baseline's partner runs are not its A/A blocks");
    /* The estimate of all 7 blocks; the pilot's distances scaled by sqrt(4/7). */
    double d[7];
    for (int i = 0; i < 7; i++)
        d[i] = log(adaptive_ratio[i]);
    st_boot_opts bo = {2000, 0.95, 20250616ull ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, "w/alloc-fixed-1M"), "#paired")};
    st_interval pilot;
    st_paired_bootstrap(d, 4, ST_LOC_HL, &bo, &pilot);
    double hl = st_hodges_lehmann(d, 7), s = st_stop_expansion(4, 0.95) * sqrt(4.0 / 7.0);
    near(c->paired.est, exp(hl), 1e-12, "estimate of all blocks");
    near(c->paired.lo, exp(hl - (pilot.est - pilot.lo) * s), 1e-12, "lower end");
    near(c->paired.hi, exp(hl + (pilot.hi - pilot.est) * s), 1e-12, "upper end");
    cr_assert(strstr(c->note, "extended by 3 adaptive rounds: paired intervals by the two-stage rule"), "%s", c->note);
    /* The baseline (not extended): its planned blocks' interval, expanded by kappa. */
    double a[4];
    for (int i = 0; i < 4; i++)
        a[i] = log(1.0 + 0.003 * (i + 1));
    st_interval plain;
    bo.seed = 20250616ull ^ st_fnv1a64(st_fnv1a64(ST_FNV_OFFSET, "w/baseline"), "#paired");
    st_paired_bootstrap(a, 4, ST_LOC_HL, &bo, &plain);
    double k = st_stop_expansion(4, 0.95);
    near(b->paired.lo, exp(plain.est - (plain.est - plain.lo) * k), 1e-12, "baseline lower end");
    near(b->paired.hi, exp(plain.est + (plain.hi - plain.est) * k), 1e-12, "baseline upper end");
    st_analysis_free(&an);
    st_sweep_free(&sw);
    remove_fixture(dir);
}

Test(adaptive, sweeps_of_the_sequential_rule_keep_plain_intervals_and_say_so) {
    char *dir = adaptive_fixture("2%", NULL);
    st_sweep sw;
    st_analysis an;
    analyse(dir, &sw, &an);
    cr_assert_eq(an.rule, ST_RULE_SEQUENTIAL);
    const st_result *c = find_result(&an, "w/alloc-fixed-1M");
    cr_assert_eq(c->adaptive_rounds, 3);
    double d[7];
    for (int i = 0; i < 7; i++)
        d[i] = log(adaptive_ratio[i]);
    st_interval plain;
    st_walsh_interval(d, 7, 0.95, &plain); /* 7 blocks: the exact interval */
    cr_assert_eq(c->paired.method, ST_CI_EXACT);
    near(c->paired.lo, exp(plain.lo), 1e-12, "plain lower end");
    near(c->paired.hi, exp(plain.hi), 1e-12, "plain upper end");
    cr_assert(strstr(c->note, "extended by 3 adaptive rounds of the sequential rule: its paired intervals cover less"),
              "%s", c->note);
    st_analysis_free(&an);
    st_sweep_free(&sw);
    remove_fixture(dir);
    /* Without --halfwidth nothing is adaptive: the same runs are all planned. */
    dir = adaptive_fixture("0%", "two-stage");
    analyse(dir, &sw, &an);
    cr_assert_eq(an.rule, ST_RULE_FIXED);
    c = find_result(&an, "w/alloc-fixed-1M");
    cr_assert_eq(c->adaptive_rounds, 0);
    near(c->paired.lo, exp(plain.lo), 1e-12, "fixed lower end");
    cr_assert_null(strstr(c->note, "adaptive"), "%s", c->note);
    st_analysis_free(&an);
    st_sweep_free(&sw);
    remove_fixture(dir);
}

/* analyze's outputs: summary.csv's last columns and summary.md's mark. */
static char *slurp_file(const char *path) {
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

Test(adaptive, summary_marks_the_extended_cells) {
    const char *bin = getenv("ST_ANALYZE") ? getenv("ST_ANALYZE") : "build/bin/analyze";
    char *dir = adaptive_fixture("2%", "two-stage");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --quiet --resamples 1000 --fit-resamples 100 %s", bin, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[512];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    char *csv = slurp_file(path);
    char *header = strchr(csv, '\n') + 1, *eol = strchr(header, '\n');
    *eol = 0;
    size_t hl = strlen(header);
    cr_assert(hl > 32 && !strcmp(header + hl - strlen(",adaptive_rounds,paired_rule,time_mode,paired_se"),
                                 ",adaptive_rounds,paired_rule,time_mode,paired_se"),
              "header ends %s", header + (hl > 60 ? hl - 60 : 0));
    char *row = strstr(eol + 1, "w,w/alloc-fixed-1M,"), *row_end = strchr(row, '\n');
    *row_end = 0;
    char *se = strrchr(row, ','); /* paired_se, the last column */
    cr_assert_not_null(se);
    *se++ = 0;
    cr_assert(strlen(row) > 14 && !strcmp(row + strlen(row) - strlen(",3,two-stage,"), ",3,two-stage,"), "row %s",
              row); /* time_mode empty: an allocation cell */
    char *se_end;
    double se_v = strtod(se, &se_end);
    cr_assert(*se && !*se_end && se_v > 0 && se_v < 0.5, "paired_se '%s': the SE of a log ratio", se);
    free(csv);
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = slurp_file(path);
    cr_assert(strstr(md, "Adaptive rounds (sweep --halfwidth 2%), the two-stage rule"), "no paragraph");
    cr_assert(strstr(md, "1 cells were extended"));
    cr_assert(strstr(md, "Stein's two-stage procedure asks: 1.8749 here"),
              "kappa at 4 planned rounds: t_3(0.975) sqrt(4/3) / z = 1.8749");
    cr_assert(strstr(md, "| +3 rounds, two-stage |"), "no mark");
    cr_assert(strstr(md, "| planned rounds only |"), "the baseline's mark");
    free(md);
    const char *outs[] = {"summary.csv", "summary.md", "summary.json", "metrics.csv", "regress.csv", NULL};
    for (int i = 0; outs[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, outs[i]);
        unlink(path);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s/plotdata", dir);
    cr_assert_eq(system(cmd), 0);
    remove_fixture(dir);
}

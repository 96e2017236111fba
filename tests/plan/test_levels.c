/* test_levels.c - unit tests of the in-process plan's levels rule
 * (sw_plan_levels_choose), of the plan's counts as meta counts them
 * (sw_plan_counts) and of --plan --estimate's wall-time line
 * (sw_plan_wall_line).  The expected choices were computed independently
 * (plain Python with the published two-sided 95% t table, the cases'
 * numbers in the comments). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/sw_opts.h"
#include "../../harness/sw_plan.h"

Test(levels, t_quantiles_match_the_table) {
    /* two-sided 95%: 12.706205 (1), 3.182446 (3), 2.093024 (19), 2.042272 (30) */
    cr_assert(fabs(sw_plan_t975(1) - 12.706205) < 1e-5);
    cr_assert(fabs(sw_plan_t975(3) - 3.182446) < 1e-5);
    cr_assert(fabs(sw_plan_t975(19) - 2.093024) < 1e-5);
    cr_assert(fabs(sw_plan_t975(30) - 2.042272) < 1e-5);
}

/* No process effect and no fixed cost: every P spends the same 400 blocks,
 * so only the t quantile moves, and the rule takes the most processes that
 * keep 20 blocks each: 20 x 20, t19 / t3 = 0.657678 of the 4 x 100 width. */
Test(levels, no_process_effect_takes_the_most_processes_the_minimum_allows) {
    sw_level_cell c[3] = {{0, 0.1}, {0, 0.1}, {0, 0.1}};
    sw_level_costs k = {.block_s = 0.02, .fixed_s = 0, .harness_s = 0};
    sw_levels L;
    const char *why = NULL;
    cr_assert_eq(sw_plan_levels_choose(c, 3, &k, 4, 2.0, &L, &why), 0, "%s", why ? why : "");
    cr_assert_eq(L.processes, 20);
    cr_assert(fabs(L.blocks - 20) < 1e-9);
    cr_assert(fabs(L.target_s - 0.4) < 1e-12);
    cr_assert(fabs(L.now_blocks - 100) < 1e-9);
    cr_assert(fabs(L.median_rel - 0.657678) < 1e-5, "median %f", L.median_rel);
    cr_assert_eq(L.n_cells, 3);
}

/* A fixed cost of 1 s a process (1 ms of it the harness's) in a budget of
 * 4 x 8.001 s: the optimum is inside, at 9 processes of (32.004 / 9 - 1) /
 * 0.02 = 127.8 blocks, 0.79948 of the current width (8: 0.802545, 10:
 * 0.801902). */
Test(levels, fixed_cost_gives_an_interior_optimum) {
    sw_level_cell c[1] = {{0, 0.1}};
    sw_level_costs k = {.block_s = 0.02, .fixed_s = 1.0, .harness_s = 0.001};
    sw_levels L;
    const char *why = NULL;
    cr_assert_eq(sw_plan_levels_choose(c, 1, &k, 4, 8.0, &L, &why), 0);
    cr_assert_eq(L.processes, 9);
    cr_assert(fabs(L.blocks - (32.004 / 9 - 1) / 0.02) < 1e-9);
    cr_assert(fabs(L.target_s - (32.004 / 9 - 0.001)) < 1e-12);
    cr_assert(fabs(L.median_rel - 0.79948) < 1e-5, "median %f", L.median_rel);
}

/* Three cells, the median chooses: 11 processes of 21.38 blocks, median
 * 0.546649, the cells from 0.429439 to 0.842034. */
Test(levels, the_median_cell_decides) {
    sw_level_cell c[3] = {{0.0, 0.1}, {0.02, 0.1}, {0.05, 0.05}};
    sw_level_costs k = {.block_s = 0.02, .fixed_s = 0.3, .harness_s = 0.001};
    sw_levels L;
    const char *why = NULL;
    cr_assert_eq(sw_plan_levels_choose(c, 3, &k, 4, 2.0, &L, &why), 0);
    cr_assert_eq(L.processes, 11);
    cr_assert(fabs(L.blocks - 21.381818) < 1e-5);
    cr_assert(fabs(L.median_rel - 0.546649) < 1e-5, "median %f", L.median_rel);
    cr_assert(fabs(L.min_rel - 0.429439) < 1e-5, "min %f", L.min_rel);
    cr_assert(fabs(L.max_rel - 0.842034) < 1e-5, "max %f", L.max_rel);
}

Test(levels, unusable_inputs_are_refused_with_a_reason) {
    sw_level_cell c[1] = {{0, 0.1}};
    sw_level_costs k = {.block_s = 0.02, .fixed_s = 0, .harness_s = 0};
    sw_levels L;
    const char *why = NULL;
    cr_assert_eq(sw_plan_levels_choose(c, 0, &k, 4, 2.0, &L, &why), -1);
    cr_assert_not_null(strstr(why, "no cell"));
    sw_level_costs bad = {.block_s = 0, .fixed_s = 0, .harness_s = 0};
    cr_assert_eq(sw_plan_levels_choose(c, 1, &bad, 4, 2.0, &L, &why), -1);
    cr_assert_not_null(strstr(why, "costs"));
    /* 4 x 0.05 s of 20 ms blocks: 10 blocks in all, not 20 for each of even 2 processes. */
    cr_assert_eq(sw_plan_levels_choose(c, 1, &k, 4, 0.05, &L, &why), -1);
    cr_assert_not_null(strstr(why, "20 usable blocks"));
    sw_level_cell nan_cell[1] = {{NAN, 0.1}};
    cr_assert_eq(sw_plan_levels_choose(nan_cell, 1, &k, 4, 2.0, &L, &why), -1);
}

/* --plan's counts are meta's: every cell and every run of the schedule,
 * the simulated part's too (the quick plan: 10 + 10 cells, 120 + 20 runs). */
Test(counts, the_quick_plan_counts_as_meta) {
    sw_opts o;
    sw_opts_defaults(&o);
    static char *two[] = {"gcbench", "microbench"};
    o.n_periods = 3;
    o.periods[0] = 32768, o.periods[1] = 1 << 20, o.periods[2] = 32 << 20;
    o.n_time_hz = 1;
    o.time_hz[0] = 1000;
    o.runs = 5;
    o.n_depths = 0;
    sw_cell *cells;
    int n = sw_plan_cells(&o, two, 2, &cells);
    sw_slot *slots;
    int ns = sw_plan_schedule_all(&o, cells, n, &slots);
    sw_plan_count pc;
    sw_plan_counts(cells, n, slots, ns, &pc);
    cr_assert_eq(pc.cells, n);
    cr_assert_eq(pc.runs, ns);
    cr_assert_eq(pc.native_cells, 2 * (1 + 3 + __builtin_popcount(sw_opts_time_modes(&o))));
    cr_assert_eq(pc.sim_cells, 2 * (1 + 3 + 1));
    cr_assert_eq(pc.native_runs, 6 * 2 * pc.native_cells);
    cr_assert_eq(pc.sim_runs, 2 * pc.sim_cells);
    free(slots);
    sw_plan_free_cells(cells, n);
}

Test(wall, the_line_scales_each_part_by_its_factor) {
    sw_estimate e = {.timed_runs = 10, .timed_ns = 100000000000LL, .sim_runs = 4, .sim_ns = 30000000000LL};
    double f[2] = {1.5, 2.0}, load[3] = {5.24, 2.1, 1.68};
    char *line = sw_plan_wall_line(&e, f, load, 1);
    cr_assert_str_eq(line, "estimate: wall time (the lines above count CPU time): timed part 150.000 s (2m30s) at "
                           "x1.500, simulated part 60.000 s (1m00s) at x2.000: the calibration probes' wall time "
                           "over their CPU time, pinned to CPU 1 at load average 5.24 2.10 1.68; other load during "
                           "the sweep makes it longer or shorter\n");
    free(line);
    double none[2] = {0, 0};
    line = sw_plan_wall_line(&e, none, NULL, 0);
    cr_assert_str_eq(line, "estimate: wall time (the lines above count CPU time): timed part not estimated (no "
                           "calibration probe of it), simulated part not estimated (no calibration probe of it): the "
                           "calibration probes' wall time over their CPU time, pinned to CPU 0; other load during "
                           "the sweep makes it longer or shorter\n");
    free(line);
    cr_assert(fabs(sw_plan_wall_factor(3000, 2000) - 1.5) < 1e-15);
    cr_assert_eq(sw_plan_wall_factor(3000, 0), 0);
}

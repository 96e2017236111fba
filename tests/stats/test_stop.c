/* test_stop.c - the adaptive rounds' two-stage rule (stats/st_stop.h): its
 * target and interval, and its coverage by simulation. */
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
  /* kappa at n0 = 30, 95%: t_29(0.975) sqrt(30 / 29) / z(0.975), from the
   * tables' quantiles. */
  near(st_stop_expansion(30, 0.95),
       2.045229642132703 * sqrt(30.0 / 29.0) / 1.959963984540054, 1e-9,
       "kappa 30");
  near(st_stop_expansion(10, 0.95),
       2.262157162740992 * sqrt(10.0 / 9.0) / 1.959963984540054, 1e-9,
       "kappa 10");
  cr_assert_eq(st_stop_expansion(1, 0.95), 1.0);
  st_stop s = {ST_STOP_TWO_STAGE, 0.02, 30, 200, 0.95};
  /* Pilot intervals on the log scale; the expanded ratio half-widths
   * (tests/stats/blocklen_reference.py's arithmetic: sinh and exp of kappa
   * times the distances). */
  st_interval iv = {0.0, -0.005, 0.005, ST_CI_BCA, NULL, NAN, NAN};
  cr_assert_eq(st_stop_target(&iv, &s), 30, "within the target: the pilot");
  iv.lo = -0.03,
  iv.hi = 0.03; /* half-width 0.0318457: 30 x (0.0318457 / 0.02)^2 = 76.07 */
  cr_assert_eq(st_stop_target(&iv, &s), 77);
  iv = (st_interval){0.1,  0.06, 0.13, ST_CI_BCA,
                     NULL, NAN,  NAN}; /* asymmetric: 0.0408459, 125.1 */
  cr_assert_eq(st_stop_target(&iv, &s), 126);
  iv = (st_interval){0.0,  -0.1, 0.1, ST_CI_PERCENTILE,
                     NULL, NAN,  NAN}; /* 848.1: the maximum */
  cr_assert_eq(st_stop_target(&iv, &s), 200);
  iv.method = ST_CI_NONE;
  cr_assert_eq(st_stop_target(&iv, &s), 200, "no pilot interval: the maximum");
  s.max_blocks = 10;
  iv = (st_interval){0.0, -0.1, 0.1, ST_CI_BCA, NULL, NAN, NAN};
  cr_assert_eq(st_stop_target(&iv, &s), 30,
               "a maximum below the pilot is the pilot");
}

Test(stop, interval_scales_the_pilot_around_all_blocks) {
  double d[12] = {0.031, -0.012, 0.054, 0.008, 0.017,  -0.041,
                  0.026, 0.093,  0.002, 0.011, -0.006, 0.038};
  st_boot_opts o = {4000, 0.95, 42};
  st_interval pilot, two, same;
  /* An exact pilot (8 blocks): its distances scaled by sqrt(8 / 12) around the
   * estimate of all 12. */
  st_walsh_interval(d, 8, 0.95, &pilot);
  st_stop_interval(d, 12, 8, &o, &two);
  double s = sqrt(8.0 / 12.0), t = st_hodges_lehmann(d, 12);
  cr_assert_eq(two.est, t);
  near(two.lo, t - (pilot.est - pilot.lo) * s, 1e-15, "lower");
  near(two.hi, t + (pilot.hi - pilot.est) * s, 1e-15, "upper");
  cr_assert_eq(two.method, ST_CI_EXACT);
  /* Not extended: the pilot's interval itself. */
  st_stop_interval(d, 8, 8, &o, &same);
  cr_assert(same.est == pilot.est && same.lo == pilot.lo &&
            same.hi == pilot.hi);
  /* A bootstrap pilot (5 blocks, too few for an exact 95% interval): expanded
   * by kappa(5). */
  st_interval boot;
  st_paired_bootstrap(d, 5, ST_LOC_HL, &o, &boot);
  st_stop_interval(d, 12, 5, &o, &two);
  double k = st_stop_expansion(5, 0.95);
  near(k, 2.776445105197793 * sqrt(5.0 / 4.0) / 1.959963984540054, 1e-9,
       "kappa 5");
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
  cr_assert(hi >= 0.94 && lo <= 0.99,
            "two-stage coverage %zu of 300 [%.3f, %.3f]", r.covered, lo, hi);
  cr_assert(r.extended >= 290,
            "an 8%% block SD needs more than 30 blocks for +-2%%: %zu of 300 "
            "extended",
            r.extended);
  cr_assert(r.mean_blocks > 60 && r.mean_blocks < 120, "mean blocks %.1f",
            r.mean_blocks);
  cr_assert(r.mean_halfwidth <= 0.0202, "mean half-width %.4f",
            r.mean_halfwidth);
  /* Machine noise: a committed-sweep-like source of heavy-tailed blocks (t3),
   * drawn by the block bootstrap. */
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 3);
  st_nsource ns;
  memset(&ns, 0, sizeof ns);
  ns.sweep = st_xstrdup("fixture");
  ns.workload = st_xstrdup("w");
  ns.n = 400;
  ns.blocks = st_xmalloc(ns.n * sizeof *ns.blocks);
  for (size_t i = 0; i < ns.n; i++)
    for (int p = 0; p < 2; p++)
      ns.blocks[i].wall[p] = ns.blocks[i].cpu[p] =
          0.04 * gsl_ran_tdist(g, 3) / sqrt(3.0);
  ns.wall0 = ns.cpu0 = 1e8;
  st_nsource_finish(&ns);
  gsl_rng_free(g);
  st_stop_source m = {2, 0, &ns};
  st_stop_simulate(&s, log(1.01), &m, 300, 500, 8, &r);
  st_cov_binomial(r.covered, 300, 0.95, &lo, &hi);
  cr_assert(hi >= 0.94 && lo <= 0.99,
            "two-stage coverage on resampled blocks %zu of 300 [%.3f, %.3f]",
            r.covered, lo, hi);
  free(ns.sweep), free(ns.workload), free(ns.blocks);
}

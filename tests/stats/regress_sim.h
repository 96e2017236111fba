/* regress_sim.h - synthetic sweeps with a known per-sample cost, for the regression's tests and
 * its coverage benchmark.
 *
 * A data set has a baseline (x = 0) and four sampling cells whose sample
 * counts are 2,000 .. 60,000 (each run's count 1% apart from its cell's, as
 * time sampling gives), ten runs each: y = 3e8 + fixed (1e6 when sampling is
 * on) + cost (800) * x + noise, in ns.  Noise: normal with sd 3e6, Student t
 * with 3 degrees of freedom scaled to the same sd, or normal plus 10% of
 * runs 50% slower (load spikes).
 */
#ifndef REGRESS_SIM_H
#define REGRESS_SIM_H

#include "st_regress.h"

#include <gsl/gsl_rng.h>

typedef enum regress_sim_noise { REGRESS_SIM_NORMAL, REGRESS_SIM_T3, REGRESS_SIM_OUTLIERS } regress_sim_noise;

#define REGRESS_SIM_GROUPS 5
#define REGRESS_SIM_RUNS 10

typedef struct regress_sim {
    regress_sim_noise noise;
    double cost, fixed, base, sd; /* the truth */
    double x[REGRESS_SIM_GROUPS * REGRESS_SIM_RUNS], y[REGRESS_SIM_GROUPS * REGRESS_SIM_RUNS];
    size_t group[REGRESS_SIM_GROUPS * REGRESS_SIM_RUNS];
    st_reg_data data; /* points at the arrays above */
    gsl_rng *rng;
} regress_sim;

void regress_sim_init(regress_sim *s, regress_sim_noise noise, unsigned long seed);
/* Draws a fresh data set with the current truth. */
void regress_sim_draw(regress_sim *s);
/* Ordinary least squares slope over every run (the naive fit, for contrast). */
double regress_sim_ols_slope(const regress_sim *s);
void regress_sim_free(regress_sim *s);

/* Fraction of sims data sets whose interval (B resamples) contains the true
 * cost; *fixed_coverage (if not NULL) the same for the fixed cost. */
double regress_sim_coverage(regress_sim_noise noise, int sims, size_t resamples, double confidence, unsigned long seed,
                            double *fixed_coverage);

#endif

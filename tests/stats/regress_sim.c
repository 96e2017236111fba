/* regress_sim.c - synthetic sweeps with a known per-sample cost (regress_sim.h). */
#include "regress_sim.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double cell_x[REGRESS_SIM_GROUPS] = {0, 2000, 6000, 20000, 60000};

void regress_sim_init(regress_sim *s, regress_sim_noise noise, unsigned long seed) {
    memset(s, 0, sizeof *s);
    s->noise = noise;
    s->cost = 800, s->fixed = 1e6, s->base = 3e8, s->sd = 3e6;
    s->rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(s->rng, seed);
    size_t n = REGRESS_SIM_GROUPS * REGRESS_SIM_RUNS;
    s->data = (st_reg_data){n, s->x, s->y, s->group, REGRESS_SIM_GROUPS, 0};
}

void regress_sim_draw(regress_sim *s) {
    for (size_t i = 0; i < REGRESS_SIM_GROUPS * REGRESS_SIM_RUNS; i++) {
        size_t g = i / REGRESS_SIM_RUNS;
        s->group[i] = g;
        s->x[i] = g ? floor(cell_x[g] * (1 + 0.01 * (gsl_rng_uniform(s->rng) - 0.5))) : 0;
        double e;
        if (s->noise == REGRESS_SIM_T3)
            e = gsl_ran_tdist(s->rng, 3) * s->sd / sqrt(3.0); /* t3 has variance 3 */
        else
            e = gsl_ran_gaussian(s->rng, s->sd);
        s->y[i] = s->base + (g ? s->fixed : 0) + s->cost * s->x[i] + e;
        if (s->noise == REGRESS_SIM_OUTLIERS && gsl_rng_uniform(s->rng) < 0.10)
            s->y[i] += 0.5 * s->base;
    }
}

double regress_sim_ols_slope(const regress_sim *s) {
    size_t n = s->data.n;
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++)
        mx += s->x[i], my += s->y[i];
    mx /= (double)n, my /= (double)n;
    for (size_t i = 0; i < n; i++)
        sxx += (s->x[i] - mx) * (s->x[i] - mx), sxy += (s->x[i] - mx) * (s->y[i] - my);
    return sxy / sxx;
}

void regress_sim_free(regress_sim *s) {
    gsl_rng_free(s->rng);
    s->rng = NULL;
}

double regress_sim_coverage(regress_sim_noise noise, int sims, size_t resamples, double confidence, unsigned long seed,
                            double *fixed_coverage) {
    regress_sim s;
    regress_sim_init(&s, noise, seed);
    int hit = 0, fhit = 0;
    for (int k = 0; k < sims; k++) {
        regress_sim_draw(&s);
        st_reg_opts o = {resamples, confidence, seed * 1000003u + (unsigned long)k};
        st_reg_fit f;
        st_reg_fit_runs(&s.data, &o, &f);
        hit += f.cost.lo <= s.cost && s.cost <= f.cost.hi;
        fhit += f.fixed.lo <= s.fixed && s.fixed <= f.fixed.hi;
        st_reg_fit_free(&f);
    }
    regress_sim_free(&s);
    if (fixed_coverage)
        *fixed_coverage = (double)fhit / sims;
    return (double)hit / sims;
}

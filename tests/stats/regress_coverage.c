/* regress_coverage.c - bench-stats-regress: coverage of the per-sample cost regression's
 * intervals by simulation (regress_sim.h), for each kind of noise.  A figure, not a test.
 * usage: regress-coverage [SIMS] [RESAMPLES]
 */
#include "regress_sim.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int sims = argc > 1 ? atoi(argv[1]) : 1000;
    size_t resamples = argc > 2 ? (size_t)atol(argv[2]) : 1000;
    if (sims < 1 || resamples < 100) {
        fprintf(stderr, "usage: regress-coverage [SIMS >= 1] [RESAMPLES >= 100]\n");
        return 2;
    }
    static const char *names[] = {"normal", "t3", "10% outliers"};
    for (int k = 0; k < 3; k++) {
        double fixed;
        double cov = regress_sim_coverage((regress_sim_noise)k, sims, resamples, 0.95, 1000u + (unsigned)k, &fixed);
        printf("regression coverage, %-12s noise, %d data sets, %zu resamples: cost %.3f, fixed cost %.3f "
               "(nominal 0.95)\n",
               names[k], sims, resamples, cov, fixed);
    }
    return 0;
}

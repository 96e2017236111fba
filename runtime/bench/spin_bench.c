/* spin_bench.c - what the validation spin (SGC_SAMPLE_SPIN_NS with
 * SGC_SAMPLE_SPIN_CLOCK=cpu, docs/RUNTIME.md) costs in thread CPU time,
 * next to what a fixed count of its loop iterations (the count the rate
 * timed at start-up gives for D) costs on the same machine at the same time.
 *
 * usage: spin-bench [--spins N] [--d NS,...]
 *
 * For each D (default 1000,10000,50000,200000 ns) it runs N (default 2000)
 * spins of each kind, interleaved, and times each with the thread's CPU
 * clock (one reading on either side, so every figure includes one reading,
 * about 0.4 us here).  It prints, per kind, the cost over D: mean, the 1st,
 * 10th, 50th, 90th and 99th percentiles and the largest.  On an idle machine
 * both sit near 1; on a shared one the loop count's cost moves with the
 * speed of the CPU (docs/RUNTIME.md has figures) while the spin's stays at D
 * within half a reading.  Figures, not pass/fail: the unit test
 * spin::cpu_clock_spin_costs_d_whatever_the_calibration checks the spin.
 * The rate timed at start-up is printed too (iterations per us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgc_internal.h"
#include "bench_util.h"

static uint64_t thread_ns(void) { return bench_ns(CLOCK_THREAD_CPUTIME_ID); }

static void usage(void) {
    fputs("usage: spin-bench [--spins N] [--d NS,...]\n"
          "  --spins N   spins of each kind per D, 10..10000000 (default 2000)\n"
          "  --d NS,...  the spins' lengths in ns, each 100..100000000 (default 1000,10000,50000,200000)\n",
          stderr);
    exit(2);
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static void report(const char *what, uint64_t d, uint64_t *cost, uint64_t n) {
    qsort(cost, n, sizeof *cost, cmp_u64);
    double sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += (double)cost[i];
    double dd = (double)d;
#define Q(p) ((double)cost[(uint64_t)((double)(n - 1) * (p))] / dd)
    printf("  %-26s mean %.3f  p1 %.3f  p10 %.3f  median %.3f  p90 %.3f  p99 %.3f  max %.3f\n", what,
           sum / (double)n / dd, Q(0.01), Q(0.10), Q(0.50), Q(0.90), Q(0.99), (double)cost[n - 1] / dd);
#undef Q
}

int main(int argc, char **argv) {
    uint64_t spins = 2000;
    uint64_t ds[16] = {1000, 10000, 50000, 200000};
    int nd = 4;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--spins") && i + 1 < argc) {
            if (parse_u64(argv[++i], 10, 10000000, &spins) != 0) {
                fprintf(stderr, "spin-bench: --spins '%s': expected a whole number from 10 to 10000000\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--d") && i + 1 < argc) {
            char *list = argv[++i], *save = NULL;
            nd = 0;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (nd == 16 || parse_u64(t, 100, 100000000, &ds[nd]) != 0) {
                    fprintf(stderr, "spin-bench: --d: '%s': expected at most 16 lengths in ns from 100 to 100000000\n",
                            t);
                    return 2;
                }
                nd++;
            }
            if (nd == 0)
                usage();
        } else {
            usage();
        }
    }
    /* The spin's settings, as a run with SGC_SAMPLE_SPIN_CLOCK=cpu has them:
     * sgc_init times the loop. */
    setenv("SGC_SAMPLE_SPIN_CLOCK", "cpu", 1);
    setenv("SGC_SAMPLE_SPIN_NS", "1000", 1);
    sgc_init();
    double rate = sgc__settings.spin_iters_per_ns;
    printf("spin-bench: loop rate timed at start-up %.1f iterations per us; %llu spins of each kind per D\n",
           rate * 1000, (unsigned long long)spins);
    uint64_t *spin = malloc(spins * sizeof *spin), *loop = malloc(spins * sizeof *loop);
    if (!spin || !loop) {
        fprintf(stderr, "spin-bench: out of memory\n");
        return 1;
    }
    for (int k = 0; k < nd; k++) {
        uint64_t d = ds[k], iters = (uint64_t)((double)d * rate + 0.5);
        for (uint64_t i = 0; i < spins; i++) {
            uint64_t t0 = thread_ns();
            sgc__spin_ns(d);
            uint64_t t1 = thread_ns();
            sgc__spin_loop(iters);
            uint64_t t2 = thread_ns();
            spin[i] = t1 - t0;
            loop[i] = t2 - t1;
        }
        printf("D = %llu ns: CPU time per spin / D\n", (unsigned long long)d);
        report("spin (SGC_SAMPLE_SPIN_NS)", d, spin, spins);
        report("fixed count of the loop", d, loop, spins);
    }
    free(spin);
    free(loop);
    /* Leaves the spin's settings unused on purpose: no sampler ran. */
    sgc__settings.sample_spin_ns = 0;
    sgc_shutdown();
    return 0;
}

/* bench_util.h - clocks and medians shared by the runtime's benchmarks.
 *
 * The benchmarks report medians of repeated rounds, timed in process CPU
 * time (user + system): on a shared machine the time a process spends
 * descheduled would swamp the differences they measure.  Wall time is there
 * for the figures that are about wall time (timer rates). */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Process CPU time in ns. */
static inline uint64_t cpu_ns(void) { return bench_ns(CLOCK_PROCESS_CPUTIME_ID); }
/* CLOCK_MONOTONIC in ns. */
static inline uint64_t wall_ns(void) { return bench_ns(CLOCK_MONOTONIC); }

static inline int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of n values; sorts v in place. */
static inline uint64_t median_u64(uint64_t *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline double median_double(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* BENCH_UTIL_H */

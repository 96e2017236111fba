/* test_spin.c - the validation spin (SGC_SAMPLE_SPIN_NS, docs/RUNTIME.md):
 * every allocation sample and every time sample busy-waits the set time.
 *
 * Timing under a loaded machine is judged without flaking:
 *  - every spin waits at least D of CLOCK_MONOTONIC, so a phase that took
 *    S samples lasts at least S x D of wall time, always;
 *  - the wait is busy: the phase makes far fewer voluntary context switches
 *    than samples (a sleeping spin makes one per sample at least), and its
 *    CPU time plus the time the kernel kept it waiting on a run queue
 *    (/proc/self/schedstat) is at least S x D: a spin that slept, or that
 *    counted the wrong clock, fails;
 *  - with the spin, a phase lasts at least S x D plus half the CPU time of
 *    the same phase without it (the least of three), in wall time: the
 *    spins come on top of the work.  Without-spin phases are judged by CPU
 *    time, not wall time: under load every one of them may be preempted,
 *    which would make a wall-time baseline too long.
 * Sample counts are exact (fixed mode: floor(bytes / period)).
 * In thread mode the sampler thread owes each sample's spin to the
 * program, which pays it on its own thread: paid spins equal the thread's
 * samples exactly at stop, and the program's thread CPU time carries them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sgc_internal.h"
#include "sgc_timer.h"

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Time this process waited on a run queue, ns (second field of schedstat). */
static uint64_t runqueue_wait_ns(void) {
    FILE *f = fopen("/proc/self/schedstat", "r");
    unsigned long long run = 0, wait = 0;
    cr_assert_not_null(f, "/proc/self/schedstat is needed to tell preemption from a spin that sleeps");
    cr_assert_eq(fscanf(f, "%llu %llu", &run, &wait), 2);
    fclose(f);
    return wait;
}

static long voluntary_switches(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nvcsw;
}

typedef struct phase {
    uint64_t wall, cpu, wait;
    long nvcsw;
} phase;

static phase phase_begin(void) {
    return (phase){clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_PROCESS_CPUTIME_ID), runqueue_wait_ns(),
                   voluntary_switches()};
}

static phase phase_end(phase b) {
    phase e = phase_begin();
    return (phase){e.wall - b.wall, e.cpu - b.cpu, e.wait - b.wait, e.nvcsw - b.nvcsw};
}

static void check_busy(const char *what, phase p, uint64_t samples, uint64_t d) {
    uint64_t need = samples * d;
    cr_assert_geq(p.wall, need, "%s: %llu samples x %llu ns = %llu ns, but the phase took %llu ns of wall time", what,
                  (unsigned long long)samples, (unsigned long long)d, (unsigned long long)need,
                  (unsigned long long)p.wall);
    /* A spin that sleeps switches at least once per sample; the phase may
     * still block now and then for other reasons (a page fault under
     * memory pressure), so a few switches are allowed. */
    cr_assert_lt((uint64_t)p.nvcsw, samples / 4 + 1,
                 "%s: the spin slept (%ld voluntary context switches in %llu samples)", what, p.nvcsw,
                 (unsigned long long)samples);
    cr_assert_geq(p.cpu + p.wait, need,
                  "%s: CPU time %llu ns + run-queue wait %llu ns < %llu samples x %llu ns: the spin did not run", what,
                  (unsigned long long)p.cpu, (unsigned long long)p.wait, (unsigned long long)samples,
                  (unsigned long long)d);
}

static void clear_env(void) {
    const char *vars[] = {"SGC_ALLOC_PERIOD", "SGC_TIME_HZ", "SGC_PROFILE", "SGC_STATS",   "SGC_SAMPLE_SPIN_NS",
                          "SGC_GC_STRESS",    "SGC_VERIFY",  "SGC_POISON",  "SGC_NURSERY", "SGC_SAMPLE_SPIN_CLOCK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
}

TestSuite(spin, .init = clear_env);

Test(spin, waits_at_least_the_time_asked) {
    for (uint64_t d = 1000; d <= 1000000; d *= 10) {
        uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
        sgc__spin_ns(d);
        uint64_t t1 = clock_ns(CLOCK_MONOTONIC);
        cr_assert_geq(t1 - t0, d, "spun %llu ns for %llu", (unsigned long long)(t1 - t0), (unsigned long long)d);
    }
}

Test(spin, setting_reaches_the_stats_record) {
    setenv("SGC_SAMPLE_SPIN_NS", "12345", 1);
    char path[] = "/tmp/sgc-spin-stats-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    setenv("SGC_STATS", path, 1);
    sgc_init();
    cr_assert_eq(sgc__settings.sample_spin_ns, 12345);
    sgc_shutdown();
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[128];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (!strcmp(line, "sample_spin_ns 12345\n"))
            found = 1;
    fclose(f);
    unlink(path);
    cr_assert(found, "the stats record has no line 'sample_spin_ns 12345'");
}

/* Allocates bytes in 32-byte objects with fixed-mode sampling at period;
 * returns the samples taken. */
static uint64_t allocate(uint32_t tid, uint64_t bytes, uint64_t period) {
    sgc_stats s0, s1;
    cr_assert_eq(sgc_sampling_start(period, SGC_SAMPLE_FIXED, 0), 0);
    sgc_get_stats(&s0);
    for (uint64_t i = 0; i < bytes / 32; i++)
        sgc_alloc(tid, 24);
    sgc_get_stats(&s1);
    sgc_sampling_stop();
    return s1.alloc_samples - s0.alloc_samples;
}

Test(spin, every_allocation_sample_pays_it) {
    unsetenv("SGC_SAMPLE_SPIN_NS");
    uint32_t t = sgc_type_register(&(sgc_type){"spin24", 24, 0, SGC_VAR_NONE});
    const uint64_t bytes = 4u << 20, period = 64u << 10, d = 200000;
    uint64_t least_off_cpu = UINT64_MAX;
    for (int rep = 0; rep < 3; rep++) {
        phase b = phase_begin();
        uint64_t n = allocate(t, bytes, period);
        phase p = phase_end(b);
        cr_assert_eq(n, bytes / period, "floor(bytes / period) samples without the spin");
        if (p.cpu < least_off_cpu)
            least_off_cpu = p.cpu;
    }
    sgc__settings.sample_spin_ns = d; /* read at every sample, so it may change here */
    phase b = phase_begin();
    uint64_t n = allocate(t, bytes, period);
    phase p = phase_end(b);
    cr_assert_eq(n, bytes / period, "the spin changes no sample count");
    check_busy("allocation samples", p, n, d);
    cr_assert_geq(p.wall, n * d + least_off_cpu / 2,
                  "with the spin %llu ns of wall time, without it at least %llu ns of CPU time: not %llu samples x "
                  "%llu ns on top of half of that",
                  (unsigned long long)p.wall, (unsigned long long)least_off_cpu, (unsigned long long)n,
                  (unsigned long long)d);
}

Test(spin, every_time_sample_pays_it, .timeout = 120) {
    const uint64_t d = 300000;
    sgc_init();
    sgc__settings.sample_spin_ns = d;
    sgc_stats s0, s1;
    sgc_get_stats(&s0);
    s1 = s0;
    phase b = phase_begin();
    cr_assert_eq(sgc_time_sampling_start(1000, SGC_CLOCK_WALL), 0);
    /* At least 200 ms, and on until 20 samples were taken: on a machine so
     * busy that the process rarely runs, the timer's samples come slower
     * than 1000 Hz, and the check below needs some.  A count, not a time
     * limit, so little CPU only makes it take longer (the test's timeout
     * catches a sampler that stopped). */
    volatile uint64_t x = 1;
    uint64_t elapsed = 0;
    do {
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005u + 1;
        elapsed = clock_ns(CLOCK_MONOTONIC) - b.wall;
        if (elapsed >= 200000000u)
            sgc_get_stats(&s1);
    } while (elapsed < 200000000u || s1.time_samples - s0.time_samples < 20);
    sgc_time_sampling_stop();
    phase p = phase_end(b);
    sgc_get_stats(&s1);
    uint64_t n = s1.time_samples - s0.time_samples;
    cr_assert_geq(n, 20, "only %llu time samples in %.1f s at 1000 Hz", (unsigned long long)n, elapsed / 1e9);
    check_busy("time samples", p, n, d);
}

/* The cpu clock's spin costs D of the thread's CPU time by its own clock
 * (docs/RUNTIME.md): every spin at least D less half a clock reading, so
 * the phase's CPU time is at least S x D less a microsecond a sample (the
 * allocations' own CPU comes on top); a spin that did nothing, or ran ten
 * times too long, fails. */
Test(spin, cpu_clock_spin_costs_cpu_time) {
    setenv("SGC_SAMPLE_SPIN_CLOCK", "cpu", 1);
    setenv("SGC_SAMPLE_SPIN_NS", "200000", 1);
    sgc_init();
    cr_assert_eq(sgc__settings.sample_spin_clock, SGC_CLOCK_CPU);
    cr_assert_gt(sgc__settings.spin_iters_per_ns, 0, "not calibrated");
    uint32_t t = sgc_type_register(&(sgc_type){"spincpu24", 24, 0, SGC_VAR_NONE});
    const uint64_t bytes = 4u << 20, period = 64u << 10, d = 200000;
    uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    uint64_t n = allocate(t, bytes, period);
    uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    cr_assert_eq(n, bytes / period);
    cr_assert_geq(cpu, n * (d - 1000), "CPU time %llu ns for %llu samples x %llu ns of cpu spin",
                  (unsigned long long)cpu, (unsigned long long)n, (unsigned long long)d);
    cr_assert_leq(cpu, 3 * n * d + 50000000u, "CPU time %llu ns for %llu samples x %llu ns of cpu spin",
                  (unsigned long long)cpu, (unsigned long long)n, (unsigned long long)d);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The spin's CPU cost does not depend on the loop's calibration: a machine
 * whose speed per iteration moves (a VM whose host is busy: the same
 * iteration took 1.35 to 2.4 ns of thread CPU time here from one
 * millisecond to the next) made a calibrated count of iterations cost one
 * process 0.65 x D and another 1.33 x D.  Here the calibrated rate is made
 * four times too high and four times too low, as a start-up timing on a
 * fast or a slow moment would leave it: the median spin must still cost D
 * of CPU time, within a microsecond below (half a clock reading) and two
 * above (that, plus this test's own reading around it). */
Test(spin, cpu_clock_spin_costs_d_whatever_the_calibration) {
    setenv("SGC_SAMPLE_SPIN_CLOCK", "cpu", 1);
    setenv("SGC_SAMPLE_SPIN_NS", "50000", 1);
    sgc_init();
    const uint64_t d = 50000;
    const double calibrated = sgc__settings.spin_iters_per_ns;
    cr_assert_gt(calibrated, 0, "not calibrated");
    const double factors[] = {0.25, 1, 4};
    for (size_t f = 0; f < sizeof factors / sizeof *factors; f++) {
        sgc__settings.spin_iters_per_ns = calibrated * factors[f];
        uint64_t cost[21];
        for (int i = 0; i < 21; i++) {
            uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            sgc__spin_ns(d);
            cost[i] = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
        }
        qsort(cost, 21, sizeof *cost, cmp_u64);
        cr_assert(cost[10] + 1000 >= d && cost[10] <= d + 2000,
                  "with the loop's rate %.2f x the calibrated one, the median of 21 spins of %llu ns cost %llu ns of "
                  "CPU time (least %llu, most %llu)",
                  factors[f], (unsigned long long)d, (unsigned long long)cost[10], (unsigned long long)cost[0],
                  (unsigned long long)cost[20]);
    }
    sgc__settings.spin_iters_per_ns = calibrated;
}

/* Thread mode: the sampler thread takes the samples, the program pays their
 * spins on its own thread at its safe points (here: the allocation slow
 * path every nursery chunk), all of them by the stop.  A spin run by the
 * sampler thread itself would leave the program's thread CPU time and the
 * paid count unchanged. */
Test(spin, thread_mode_spins_are_paid_by_the_program, .timeout = 120) {
    setenv("SGC_SAMPLE_SPIN_CLOCK", "cpu", 1);
    setenv("SGC_SAMPLE_SPIN_NS", "100000", 1);
    sgc_init();
    const uint64_t d = 100000;
    uint32_t t = sgc_type_register(&(sgc_type){"spinthread24", 24, 0, SGC_VAR_NONE});
    sgc_stats s0, s1;
    sgc_get_stats(&s0);
    uint64_t paid0 = sgc__timer_spins_paid();
    uint64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    cr_assert_eq(sgc_time_sampling_start_mode(1000, SGC_CLOCK_WALL, SGC_TIME_THREAD), 0);
    /* At least 300 ms, and on until 11 samples were taken: on a busy machine
     * the sampler thread wakes less often than 1000 Hz.  A count, not a time
     * limit (the test's timeout catches a sampler thread that stopped). */
    do {
        for (int i = 0; i < 1000; i++)
            sgc_alloc(t, 24);
        sgc_get_stats(&s1);
    } while (clock_ns(CLOCK_MONOTONIC) - w0 < 300000000u || s1.time_samples - s0.time_samples <= 10);
    sgc_time_sampling_stop();
    uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    sgc_get_stats(&s1);
    uint64_t n = s1.time_samples - s0.time_samples, paid = sgc__timer_spins_paid() - paid0;
    cr_assert_gt(n, 10, "only %llu thread-mode samples in 300 ms at 1000 Hz", (unsigned long long)n);
    cr_assert_eq(paid, n, "the program paid %llu spins for %llu samples of the sampler thread",
                 (unsigned long long)paid, (unsigned long long)n);
    cr_assert_geq(cpu, n * d * 7 / 10,
                  "the program's thread CPU time %llu ns is less than 0.7 x %llu samples x %llu ns: it did not spin",
                  (unsigned long long)cpu, (unsigned long long)n, (unsigned long long)d);
}

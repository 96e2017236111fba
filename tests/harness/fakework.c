/* fakework.c - a stand-in workload for the harness tests: follows the
 * workload conventions (--size N, "checksum <value>", --check, a stats record
 * at SGC_STATS, a profile at SGC_PROFILE) and misbehaves on purpose according
 * to the name it is run under:
 *   fake-ok        behaves
 *   fake-alt       behaves (a second well-behaved workload)
 *   fake-crash     dies of SIGSEGV when allocation sampling is on
 *   fake-hang      never finishes when time sampling is on
 *   fake-badsum    prints a wrong checksum when allocation sampling is on
 *   fake-badcheck  --check fails (exit 1)
 *   fake-nostats   writes no stats record
 *   fake-min       refuses --size below 8 (exit 2, like a workload's minimum)
 *   fake-max       refuses --size above 100 (exit 2, like a workload's maximum);
 *                  sizes 90..99 take 1.4 times the work of size 100, as a
 *                  noisy measurement may, so a calibration that picked the
 *                  closest time rather than the largest size below the
 *                  target would not end on 100
 * One unit of --size is about 100000 steps of a small generator.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *env_or(const char *name, const char *dflt) {
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

int main(int argc, char **argv) {
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    unsigned long long size = 10;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            char *end;
            size = strtoull(argv[++i], &end, 10);
            if (*end || size == 0) {
                fprintf(stderr, "%s: --size: not a positive number\n", name);
                return 2;
            }
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else {
            fprintf(stderr, "%s: unknown argument %s\n", name, argv[i]);
            return 2;
        }
    }
    if ((!strcmp(name, "fake-min") && size < 8) || (!strcmp(name, "fake-max") && size > 100)) {
        fprintf(stderr, "%s: --size %llu is out of range\n", name, size);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long long period = strtoull(env_or("SGC_ALLOC_PERIOD", "0"), NULL, 10);
    unsigned hz = (unsigned)strtoul(env_or("SGC_TIME_HZ", "0"), NULL, 10);

    uint64_t x = 88172645463325252ull;
    unsigned long long steps = size * 100000ull;
    if (!strcmp(name, "fake-max") && size >= 90 && size < 100)
        steps = 100 * 140000ull;
    for (unsigned long long i = 0; i < steps; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    if (!strcmp(name, "fake-crash") && period)
        raise(SIGSEGV);
    if (!strcmp(name, "fake-hang") && hz)
        for (;;)
            pause();
    if (!strcmp(name, "fake-badsum") && period)
        x++;
    printf("fake workload %s size %llu\n", name, size);
    printf("checksum %llu\n", (unsigned long long)(x % 1000000007u));
    if (check && !strcmp(name, "fake-badcheck")) {
        fprintf(stderr, "%s: checksum mismatch (on purpose)\n", name);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const char *stats = getenv("SGC_STATS");
    if (stats && *stats && strcmp(name, "fake-nostats")) {
        FILE *f = fopen(stats, "w");
        if (!f)
            return 1;
        long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec);
        /* SGC_VIRTUAL_CLOCK=N as the runtime does it: the two readings are
         * N and 2N, so the record repeats from run to run. */
        long long vclock = strtoll(env_or("SGC_VIRTUAL_CLOCK", "0"), NULL, 10);
        if (vclock > 0)
            ns = vclock;
        fprintf(f,
                "sgc-stats 1\nrun_ns %lld\nbytes_allocated %llu\nalloc_samples %llu\nalloc_period %llu\n"
                "alloc_mode %s\ntime_hz %u\ntime_clock %s\nseed %s\n",
                ns, size * 4096, period ? size * 4096 / period : 0, period, env_or("SGC_ALLOC_MODE", "fixed"), hz,
                env_or("SGC_TIME_CLOCK", "wall"), env_or("SGC_SEED", "0"));
        /* SGC_NURSERY as given, digits only and not rounded like the runtime's,
         * so that a value that is not a multiple of 8 shows a mismatch. */
        if (getenv("SGC_NURSERY"))
            fprintf(f, "nursery_size %llu\n", strtoull(getenv("SGC_NURSERY"), NULL, 10));
        fprintf(f, "virtual_clock_ns %lld\n", vclock);
        /* The stand-in has no heap, so never huge pages: as the runtime on
         * a machine without THP. */
        if (getenv("SGC_HUGEPAGES"))
            fprintf(f, "hugepages %s\nhugepages_in_effect 0\n", getenv("SGC_HUGEPAGES"));
        fclose(f);
    }
    const char *profile = getenv("SGC_PROFILE");
    if (profile && *profile) {
        FILE *f = fopen(profile, "w");
        if (f) {
            fprintf(f, "fake profile of %s\n", name);
            fclose(f);
        }
    }
    return 0;
}

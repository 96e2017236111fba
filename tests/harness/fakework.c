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
 *   fake-badstats  writes a record that breaks the rules (runtime/sgc_statsrec.h)
 *                  when allocation sampling is on: how, FAKE_BADSTATS says
 *                  (junk, crlf, missing, version, duplicate, negative)
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

#include "sgc_stats_keys.h"

static const char *env_or(const char *name, const char *dflt) {
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* One line of the stats record: the keys a stand-in has a value for, else 0
 * of the key's type.  SGC_NURSERY as given, digits only and not rounded like
 * the runtime's, so that a value that is not a multiple of 8 shows a
 * mismatch; no heap, so never huge pages (as the runtime on a machine
 * without THP); time_mode SGC_TIME_MODE's (signal by default), or
 * FAKE_TIME_MODE's when that is set (a stand-in that ignores SGC_TIME_MODE);
 * the debug settings ignored: major_growth 2.000, stress_every, verify and
 * poison 0 whatever SGC_MAJOR_GROWTH, SGC_GC_STRESS, SGC_VERIFY and
 * SGC_POISON say (a stand-in whose record does not confirm them). */
static void fake_key(FILE *f, const char *key, const char *type, long long ns, unsigned long long bytes,
                     unsigned long long points, unsigned long long period, unsigned hz, long long vclock) {
    if (!strcmp(key, "run_ns"))
        fprintf(f, "%s %lld\n", key, ns);
    else if (!strcmp(key, "nursery_bytes") || !strcmp(key, "bytes_allocated") || !strcmp(key, "sampled_bytes"))
        fprintf(f, "%s %llu\n", key, !strcmp(key, "sampled_bytes") && !period ? 0 : bytes);
    else if (!strcmp(key, "alloc_samples") || !strcmp(key, "alloc_sample_points"))
        fprintf(f, "%s %llu\n", key, points);
    else if (!strcmp(key, "alloc_period"))
        fprintf(f, "%s %llu\n", key, period);
    else if (!strcmp(key, "alloc_mode"))
        fprintf(f, "%s %s\n", key, env_or("SGC_ALLOC_MODE", "fixed"));
    else if (!strcmp(key, "time_hz"))
        fprintf(f, "%s %u\n", key, hz);
    else if (!strcmp(key, "time_clock"))
        fprintf(f, "%s %s\n", key, env_or("SGC_TIME_CLOCK", "wall"));
    else if (!strcmp(key, "sample_spin_clock"))
        fprintf(f, "%s %s\n", key, env_or("SGC_SAMPLE_SPIN_CLOCK", "wall"));
    else if (!strcmp(key, "time_mode"))
        fprintf(f, "%s %s\n", key, env_or("FAKE_TIME_MODE", env_or("SGC_TIME_MODE", "signal")));
    else if (!strcmp(key, "seed"))
        fprintf(f, "%s %llu\n", key, strtoull(env_or("SGC_SEED", "0"), NULL, 10));
    else if (!strcmp(key, "nursery_size"))
        fprintf(f, "%s %llu\n", key, strtoull(env_or("SGC_NURSERY", "65536"), NULL, 10));
    else if (!strcmp(key, "sample_spin_ns"))
        fprintf(f, "%s %llu\n", key, strtoull(env_or("SGC_SAMPLE_SPIN_NS", "0"), NULL, 10));
    else if (!strcmp(key, "hugepages"))
        fprintf(f, "%s %s\n", key, env_or("SGC_HUGEPAGES", "0"));
    else if (!strcmp(key, "virtual_clock_ns"))
        fprintf(f, "%s %lld\n", key, vclock);
    else if (!strcmp(key, "major_growth"))
        fprintf(f, "%s 2.000\n", key);
    else if (!strcmp(key, "time_sampler_cpu"))
        fprintf(f, "%s -1\n", key);
    else
        fprintf(f, "%s %s\n", key, !strcmp(type, "DEC3") ? "0.000" : "0");
}

/* Replaces the first occurrence of from in *text with to. */
static void replace(char **text, const char *from, const char *to) {
    char *at = strstr(*text, from);
    if (!at)
        return;
    size_t head = (size_t)(at - *text), n = strlen(*text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    memcpy(out, *text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    free(*text);
    *text = out;
}

/* Gives key the value v (the line "\nkey <old>\n" becomes "\nkey v\n"). */
static void set_value(char **text, const char *key, const char *v) {
    char from[256], to[256];
    snprintf(from, sizeof from, "\n%s ", key);
    char *at = strstr(*text, from);
    if (!at)
        return;
    size_t len = strcspn(at + 1, "\n") + 1;
    snprintf(from, sizeof from, "%.*s", (int)len, at);
    snprintf(to, sizeof to, "\n%s %s", key, v);
    replace(text, from, to);
}

/* fake-badstats: the record of a run at period K KiB broken in way K. */
static void spoil(char **text, unsigned long long k, unsigned long long points) {
    char v[32];
    switch (k) {
    case 1: set_value(text, "alloc_period", "1024junk"); break; /* a junk suffix */
    case 2: {                                                   /* CRLF line ends */
        char *out = malloc(2 * strlen(*text) + 1), *o = out;
        for (const char *p = *text; *p; p++) {
            if (*p == '\n')
                *o++ = '\r';
            *o++ = *p;
        }
        *o = '\0';
        free(*text);
        *text = out;
        break;
    }
    case 3: replace(text, "\nrun_ns ", "\nrun_nanoseconds "); break;     /* a required key missing */
    case 4: replace(text, "sgc-stats 1\n", "sgc-stats 2\n"); break;      /* an unknown version */
    case 5: replace(text, "\nseed ", "\nalloc_samples 0\nseed "); break; /* a key twice */
    case 6: set_value(text, "alloc_samples", "-5"); break;
    case 7: set_value(text, "run_ns", "-1"); break;
    case 8: /* more samples than sample points */
        snprintf(v, sizeof v, "%llu", points + 1);
        set_value(text, "alloc_samples", v);
        break;
    default: break;
    }
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
    /* fake-max's sizes all run far below any calibration target the tests
     * use (at most 4 ms of CPU against 0.05 s: at 40 ms a probe came within
     * 15% of the target on a busy machine and ended the search below the
     * maximum); 90..99 take more work than 100, as a noisy measurement may. */
    if (!strcmp(name, "fake-max"))
        steps = size >= 90 && size < 100 ? 100 * 14000ull : size * 10000ull;
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
        char *text = NULL;
        size_t text_len = 0;
        FILE *f = open_memstream(&text, &text_len);
        if (!f)
            return 1;
        long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec);
        /* SGC_VIRTUAL_CLOCK=N as the runtime does it: the two readings are
         * N and 2N, so the record repeats from run to run. */
        long long vclock = strtoll(env_or("SGC_VIRTUAL_CLOCK", "0"), NULL, 10);
        if (vclock > 0)
            ns = vclock;
        /* Every key of the runtime's table, as the runtime writes them
         * (runtime/sgc_stats_keys.h; the harness requires each of a
         * freecheck workload's record): the settings from the environment,
         * the counts of a program with no heap. */
        unsigned long long bytes = size * 4096, points = period ? bytes / period : 0;
        fprintf(f, "sgc-stats 1\n");
#define FAKE_KEY(key, type, value, what) fake_key(f, #key, #type, ns, bytes, points, period, hz, vclock);
        SGC_STATS_KEYS(FAKE_KEY)
#undef FAKE_KEY
        fclose(f);
        if (!strcmp(name, "fake-badstats") && period)
            spoil(&text, period / 1024, points);
        f = fopen(stats, "w");
        if (!f || fputs(text, f) == EOF || fclose(f) != 0)
            return 1;
        free(text);
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

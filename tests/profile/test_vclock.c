/* test_vclock.c - Criterion tests of the virtual clock (SGC_VIRTUAL_CLOCK):
 * the exact times it puts in the stats record and the profile, read back by
 * the reader and by sgcprof; the time sampler keeping real time. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../contracts/ct_out.h"
#include "sgc_internal.h"
#include "sgc_profile.h"
#include "sgc_profread.h"

#ifndef SGCPROF_BIN
#error "SGCPROF_BIN must name the sgcprof binary"
#endif

static char prof[256], stats[256];

/* Criterion forks per test: a fresh runtime with the virtual clock at 1000
 * ns per reading, writing a profile and a stats record of its own. */
static void start(const char *tag, const char *period, const char *hz) {
    snprintf(prof, sizeof prof, "%s/sgc-test-vclock-%d-%s.prof", P_tmpdir, (int)getpid(), tag);
    snprintf(stats, sizeof stats, "%s/sgc-test-vclock-%d-%s.stats", P_tmpdir, (int)getpid(), tag);
    setenv("SGC_VIRTUAL_CLOCK", "1000", 1);
    setenv("SGC_PROFILE", prof, 1);
    setenv("SGC_STATS", stats, 1);
    setenv("SGC_ALLOC_PERIOD", period, 1);
    setenv("SGC_TIME_HZ", hz, 1);
    unsetenv("SGC_ALLOC_MODE");
    unsetenv("SGC_TIME_MODE");
    unsetenv("SGC_TIME_CLOCK");
    unsetenv("SGC_ALTERNATE");
    sgc_init();
}

/* The value of key in the stats record (it must be there). */
static unsigned long long stat_value(const char *key) {
    FILE *f = fopen(stats, "r");
    cr_assert_not_null(f, "no stats record at %s", stats);
    char line[256];
    size_t k = strlen(key);
    unsigned long long v = 0;
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0 && line[k] == ' ') {
            v = strtoull(line + k + 1, NULL, 10);
            found = 1;
        }
    fclose(f);
    cr_assert(found, "no %s in the stats record", key);
    return v;
}

/* What sgcprof prints for the profile. */
static char *sgcprof(const char *cmd) {
    char line[1024], out[300];
    snprintf(out, sizeof out, "%s.out", prof);
    snprintf(line, sizeof line, "%s %s '%s' >'%s' 2>&1", SGCPROF_BIN, cmd, prof, out);
    int st = system(line);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sgcprof %s failed", cmd);
    FILE *f = fopen(out, "r");
    cr_assert_not_null(f);
    char *s = calloc(1, 1 << 20);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = 0;
    fclose(f);
    unlink(out);
    return s;
}

static void cleanup(void) {
    unlink(prof);
    unlink(stats);
}

/* Every reading in the order the runtime makes them, with 1000 ns per
 * reading (the k-th reading is k x 1000):
 *   1 start-up (run_ns counts from it)    2 the profile's base timestamp
 *   3 allocation sampling on (ALLOC_CONFIG)
 *   4, 5, 6: the three samples of 200 objects of 64 bytes at a 4096-byte period
 *   7, 8 a minor collection's start and end
 *   9, 10 the minor collection of a full collection, 11, 12 its major one
 *   13 sampling off at exit (ALLOC_CONFIG 0)  14 the END record
 *   15 the stats record: run_ns = 15000 - 1000. */
Test(vclock, exact_times_in_stats_record_and_profile) {
    start("exact", "4096", "0");
    uint32_t t_blob = sgc_type_register(&(sgc_type){"blob", 56, 0, SGC_VAR_NONE});
    for (int i = 0; i < 200; i++)
        sgc_alloc(t_blob, 56); /* footprint 64: 12800 bytes, floor(12800 / 4096) = 3 samples */
    sgc_collect_minor();
    sgc_collect_major();
    sgc_shutdown();

    cr_assert_eq(stat_value("virtual_clock_ns"), 1000);
    cr_assert_eq(stat_value("alloc_samples"), 3);
    cr_assert_eq(stat_value("run_ns"), 14000);
    cr_assert_eq(stat_value("minor_collections"), 2);
    cr_assert_eq(stat_value("minor_ns"), 2000);
    cr_assert_eq(stat_value("major_collections"), 1);
    cr_assert_eq(stat_value("major_ns"), 1000);
    cr_assert_eq(stat_value("gc_ns"), 3000);

    sgc_pr_reader r;
    cr_assert_eq(sgc_pr_open(&r, prof), 0, "open: %s", r.err);
    cr_assert_eq(sgc_pr_load(&r), 0, "load: %s", r.err);
    cr_assert_eq(r.base_ts, 2000);
    cr_assert_eq(r.naconfs, 2);
    cr_assert_eq(r.aconfs[0].ts, 3000);
    cr_assert_eq(r.aconfs[0].value, 4096);
    cr_assert_eq(r.aconfs[1].ts, 13000);
    cr_assert_eq(r.aconfs[1].value, 0);
    cr_assert_eq(r.nallocs, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(r.allocs[i].ts, 4000 + 1000 * i, "sample %zu at %llu", i, (unsigned long long)r.allocs[i].ts);
        cr_assert_eq(r.allocs[i].size, 64);
    }
    cr_assert_eq(r.ngcs, 3);
    uint64_t gc_start[3] = {7000, 9000, 11000};
    uint32_t gc_kind[3] = {SGC_PHASE_MINOR, SGC_PHASE_MINOR, SGC_PHASE_MAJOR};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(r.gcs[i].start, gc_start[i], "collection %zu at %llu", i, (unsigned long long)r.gcs[i].start);
        cr_assert_eq(r.gcs[i].duration, 1000);
        cr_assert_eq(r.gcs[i].kind, gc_kind[i]);
        /* The kernel's resident set size moves with the page cache, so a
         * virtual-clock run records 0 (docs/RUNTIME.md). */
        cr_assert_eq(r.gcs[i].rss, 0, "collection %zu: rss %llu", i, (unsigned long long)r.gcs[i].rss);
    }
    cr_assert_eq(r.end_ts, 14000);
    sgc_pr_close(&r);

    /* sgcprof reads it: times relative to the base timestamp. */
    char *dump = sgcprof("dump");
    cr_assert(strstr(dump, "header version=2 base_ts=2000\n"), "%s", dump);
    cr_assert(strstr(dump, " alloc-config t=1000 period=4096 mode=fixed\n"), "%s", dump);
    cr_assert(strstr(dump, " alloc-config t=11000 period=0 mode=fixed\n"), "%s", dump);
    cr_assert(strstr(dump, " end t=12000 records="), "%s", dump);
    free(dump);
    cleanup();
}

/* sgcprof's dump of the profile with the GC events' resident set sizes cut
 * out: the kernel's page count, which moves with address space
 * randomization (the simulated runs have it off and repeat it too). */
static char *dump_without_rss(void) {
    char *d = sgcprof("dump"), *w = d;
    for (const char *p = d; *p;) {
        if (strncmp(p, " rss=", 5) == 0) {
            p += 5;
            while (*p >= '0' && *p <= '9')
                p++;
            continue;
        }
        *w++ = *p++;
    }
    *w = 0;
    return d;
}

/* Two runs of the same program record the same times: the same records with
 * the same timestamps. */
Test(vclock, repeated_runs_record_the_same_times) {
    char *dump[2];
    for (int run = 0; run < 2; run++) {
        fflush(NULL);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            start("repeat", "1000", "0");
            uint32_t t_blob = sgc_type_register(&(sgc_type){"blob", 56, 0, SGC_VAR_NONE});
            for (int i = 0; i < 5000; i++)
                sgc_alloc(t_blob, 56);
            sgc_collect_major();
            exit(0); /* atexit: sgc_shutdown writes both files */
        }
        int st;
        waitpid(pid, &st, 0);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        snprintf(prof, sizeof prof, "%s/sgc-test-vclock-%d-repeat.prof", P_tmpdir, (int)pid);
        snprintf(stats, sizeof stats, "%s/sgc-test-vclock-%d-repeat.stats", P_tmpdir, (int)pid);
        cr_assert_eq(stat_value("alloc_samples"), 5000 * 64 / 1000);
        cr_assert_eq(stat_value("run_ns"), (3 + 320 + 4 + 2) * 1000, "start-up, 320 samples, 2 collections, exit");
        dump[run] = dump_without_rss();
        cleanup();
    }
    cr_assert_str_eq(dump[0], dump[1]);
    cr_assert(strstr(dump[0], " end t=327000 records="), "%s", dump[0]);
    free(dump[0]);
    free(dump[1]);
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time sampler keeps real time: its sampling time is the real time it
 * was on (at least the 50 ms spun here, whatever the machine's load), while
 * what it records (its configuration records, the samples' timestamps) is
 * on the virtual clock: multiples of 1000, in order, inside the sampling. */
Test(vclock, time_sampler_keeps_real_time) {
    start("time", "0", "1000");
    uint64_t t0 = mono_ns();
    volatile uint64_t x = 0;
    while (mono_ns() - t0 < 50000000u)
        x++;
    sgc_shutdown();
    cr_assert_geq(stat_value("time_sampling_ns"), 50000000u);
    unsigned long long samples = stat_value("time_samples_written");

    sgc_pr_reader r;
    cr_assert_eq(sgc_pr_open(&r, prof), 0, "open: %s", r.err);
    cr_assert_eq(sgc_pr_load(&r), 0, "load: %s", r.err);
    cr_assert_eq(r.ntconfs, 2);
    cr_assert_eq(r.tconfs[0].ts, 3000, "sampling starts at the third reading");
    cr_assert_eq(r.tconfs[0].value, 1000);
    cr_assert_eq(r.tconfs[1].value, 0);
    cr_assert_eq(r.ntimes, samples);
    uint64_t prev = r.tconfs[0].ts;
    for (size_t i = 0; i < r.ntimes; i++) {
        cr_assert_eq(r.times[i].ts % 1000, 0, "sample %zu at %llu", i, (unsigned long long)r.times[i].ts);
        cr_assert_gt(r.times[i].ts, prev);
        prev = r.times[i].ts;
    }
    cr_assert_gt(r.tconfs[1].ts, prev);
    cr_assert_eq(r.tconfs[1].ts % 1000, 0);
    sgc_pr_close(&r);
    cleanup();
}

/* The temporary the runtime writes the stats record (and the segment
 * series) to before renaming it over path (runtime/sgc_output.c, through
 * contracts/ct_out.h): its name as ct_out_begin makes it in the scratch
 * directory, the file removed again. */
static void temporary_of(const char *name, char *out, size_t outlen) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", P_tmpdir, name);
    ct_out o;
    char err[600];
    cr_assert_eq(ct_out_begin(&o, path, err, sizeof err), 0, "%s", err);
    snprintf(out, outlen, "%s", o.tmp + strlen(P_tmpdir) + 1);
    ct_out_abort(&o);
    cr_assert_neq(access(o.tmp, F_OK), 0, "the temporary %s is left behind", o.tmp);
}

/* That temporary: the path, ".tmp." and the pid in 8 hex digits, a fixed
 * length whatever the pid. */
Test(vclock, temporary_path_has_a_fixed_length) {
    char name[64], want[128], got[512];
    snprintf(name, sizeof name, "sgc-test-vclock-%d-tmp", (int)getpid());
    snprintf(want, sizeof want, "%s.tmp.%08x", name, (unsigned)getpid());
    temporary_of(name, got, sizeof got);
    cr_assert_str_eq(got, want);
    cr_assert_eq(strlen(got), strlen(name) + 13);
}

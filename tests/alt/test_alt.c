/* test_alt.c - the in-process alternation driver (runtime/sgc_alt.c): segment
 * counts and ABBA order for a seed, samplers really on and off per segment
 * (exact sample counts with the restart rule), the iteration hook, the
 * series file, bad settings, and the carry-over test.
 *
 * Criterion runs each test in its own process, so each starts from a fresh
 * runtime whose settings are put in the environment before sgc_init().
 *
 * The allocation pattern is exact: objects of footprint 32 in a 64 KiB
 * nursery, so 2048 objects fill it, and the 2049th allocation runs a minor
 * collection before it is placed.  With SGC_ALT_SEGMENT=2 (two collections
 * per segment) every segment holds exactly 4096 objects = 131072 bytes, the
 * lead-in included (objects 1..4096; object 4097 runs collection 2, at
 * whose end the boundary falls, and belongs to segment 1).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sgc_alt.h"
#include "sgc_internal.h"

typedef struct obj24 {
    uint64_t a, b, c;
} obj24; /* footprint 32 */

static uint32_t T_OBJ;

static void setup(void) {
    static const char *const vars[] = {"SGC_ALLOC_PERIOD", "SGC_ALLOC_MODE", "SGC_SEED",      "SGC_TIME_HZ",
                                       "SGC_TIME_CLOCK",   "SGC_PROFILE",    "SGC_STATS",     "SGC_GC_STRESS",
                                       "SGC_VERIFY",       "SGC_POISON",     "SGC_ALTERNATE", "SGC_ALT_SEGMENT",
                                       "SGC_ALT_OUT",      "SGC_ALT_CARRY",  "SGC_ALT_COST"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("SGC_NURSERY", "64K", 1);
    T_OBJ = sgc_type_register(&(sgc_type){"obj24", sizeof(obj24), 0, SGC_VAR_NONE});
}

TestSuite(alt, .init = setup);

#define PER_FILL 2048u /* objects of 32 bytes in a 64 KiB nursery */
#define SEG_BYTES 131072u

/* Allocates n garbage objects of footprint 32, calling the iteration hook
 * once per object. */
static void alloc_n(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        obj24 *o = SGC_NEW(T_OBJ, obj24);
        o->a = i;
        sgc_iteration();
    }
}

static const sgc_alt_segment *finish(size_t *n) {
    sgc_shutdown(); /* records the running segment */
    return sgc_alt_series(n);
}

/* The kind at block position pos for a pattern (0 = ABBA, 1 = BAAB),
 * written out independently of the runtime's formula. */
static char expected_kind(int phase, int pos) {
    static const char *const pat[2] = {"ABBA", "BAAB"};
    return pat[phase][pos];
}

Test(alt, phase_follows_the_seed) {
    /* The phase is a fixed function of SGC_SEED: these values pin it, so a
     * change of the mixing (which would change every stored series' order)
     * is noticed.  Each case runs in its own child: settings are read once. */
    static const struct {
        const char *seed;
        int phase;
    } cases[] = {
        {"0", 0}, {"1", 1}, {"2", 0}, {"5", 1}, {"7", 1}, {"1592652782", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("SGC_ALTERNATE", "none", 1);
            setenv("SGC_SEED", cases[i].seed, 1);
            sgc_init();
            _exit(sgc_alt_phase() == cases[i].phase ? 0 : 1);
        }
        int status;
        waitpid(pid, &status, 0);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "seed %s", cases[i].seed);
    }
}

/* Exact segment counts and ABBA order: 21 collections, 2 per segment. */
static void check_counts_and_order(const char *seed, int phase) {
    setenv("SGC_ALTERNATE", "none", 1);
    setenv("SGC_ALT_SEGMENT", "2", 1);
    setenv("SGC_SEED", seed, 1);
    sgc_init();
    cr_assert_eq(sgc_alt_phase(), phase, "seed %s", seed);
    alloc_n(21 * PER_FILL + 1); /* exactly 21 collections */
    size_t n;
    const sgc_alt_segment *s = finish(&n);
    cr_assert_eq(n, 11, "10 boundaries (at collections 2, 4, ..., 20) and the segment running at exit");
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(s[i].index, i);
        int pos = i == 0 ? 3 : (int)((i - 1) % 4);
        cr_assert_eq(s[i].pos, pos, "segment %zu", i);
        cr_assert_eq(s[i].block, i == 0 ? 0 : (i - 1) / 4 + 1, "segment %zu", i);
        cr_assert_eq(s[i].kind, expected_kind(phase, pos), "segment %zu: %c", i, s[i].kind);
        cr_assert_eq(s[i].on, 0, "A/A switches nothing");
        cr_assert_eq(s[i].end, i + 1 < n ? SGC_ALT_END_GC : SGC_ALT_END_EXIT);
        if (i + 1 < n) {
            cr_assert_eq(s[i].minor, 2, "segment %zu", i);
            cr_assert_eq(s[i].bytes, SEG_BYTES, "segment %zu: %llu", i, (unsigned long long)s[i].bytes);
            cr_assert_eq(s[i].iterations, 2 * PER_FILL, "segment %zu", i);
        }
        cr_assert_eq(s[i].alloc_samples, 0);
        cr_assert_eq(s[i].time_samples, 0);
    }
    /* Collection 21 and the object after it fall in the last segment. */
    cr_assert_eq(s[10].minor, 1);
    cr_assert_eq(s[10].bytes, (PER_FILL + 1) * 32u);
    cr_assert_eq(s[0].kind, s[4].kind, "the lead-in has the kind every block ends with");
}

/* Two seeds with the two phases (found by the test above's formula and
 * pinned here). */
Test(alt, counts_and_order_abba) { check_counts_and_order("1592652782", 0); }
Test(alt, counts_and_order_baab) { check_counts_and_order("7", 1); }

Test(alt, fixed_mode_exact_samples_per_segment_with_restart) {
    /* Period 50000: an on-segment of 131072 bytes takes floor(131072/50000)
     * = 2 points because every on-segment restarts sampling; two adjacent
     * B segments without the restart would share floor(262144/50000) = 5. */
    setenv("SGC_ALTERNATE", "alloc", 1);
    setenv("SGC_ALLOC_PERIOD", "50000", 1);
    setenv("SGC_ALT_SEGMENT", "2", 1);
    setenv("SGC_SEED", "1592652782", 1); /* ABBA */
    sgc_init();
    alloc_n(41 * PER_FILL + 1);
    size_t n;
    const sgc_alt_segment *s = finish(&n);
    cr_assert_eq(n, 21);
    uint64_t total_points = 0;
    for (size_t i = 0; i < n; i++) {
        int on = s[i].kind == 'B';
        cr_assert_eq(s[i].on, on, "segment %zu", i);
        uint64_t want = on ? s[i].bytes / 50000 : 0;
        cr_assert_eq(s[i].alloc_points, want, "segment %zu (%c, %llu bytes): %llu points", i, s[i].kind,
                     (unsigned long long)s[i].bytes, (unsigned long long)s[i].alloc_points);
        cr_assert_eq(s[i].alloc_samples, want, "small objects: one sample per point");
        cr_assert_eq(s[i].sampled_bytes, on ? s[i].bytes : 0, "segment %zu", i);
        total_points += s[i].alloc_points;
    }
    sgc_stats st;
    sgc_get_stats(&st);
    cr_assert_eq(st.alloc_sample_points, total_points, "every point is in some segment");
    cr_assert_eq(st.alloc_sample_points, 10 * 2 + 0, "10 complete B segments of 2 points; the last is A");
}

Test(alt, large_objects_count_in_bytes_and_points) {
    /* A 20000-byte payload is a large object (footprint 20008): it takes
     * floor(20008/5000) = 4 points in an on-segment that starts with it. */
    setenv("SGC_ALTERNATE", "alloc", 1);
    setenv("SGC_ALLOC_PERIOD", "5000", 1);
    setenv("SGC_ALT_SEGMENT", "1", 1);
    setenv("SGC_SEED", "1592652782", 1); /* ABBA: lead-in A, then A B B A */
    sgc_init();
    for (int k = 0; k < 8; k++) {
        sgc_alloc(T_OBJ, 20000);
        sgc_collect_minor(); /* one boundary per object */
    }
    size_t n;
    const sgc_alt_segment *s = finish(&n);
    cr_assert_eq(n, 9);
    for (size_t i = 0; i < 8; i++) {
        cr_assert_eq(s[i].bytes, 20008, "segment %zu", i);
        cr_assert_eq(s[i].alloc_points, s[i].kind == 'B' ? 4 : 0, "segment %zu", i);
    }
}

Test(alt, poisson_segments_differ_and_estimate_bytes) {
    setenv("SGC_ALTERNATE", "alloc", 1);
    setenv("SGC_ALLOC_PERIOD", "4096", 1);
    setenv("SGC_ALLOC_MODE", "poisson", 1);
    setenv("SGC_ALT_SEGMENT", "2", 1);
    sgc_init();
    alloc_n(81 * PER_FILL + 1);
    size_t n;
    const sgc_alt_segment *s = finish(&n);
    uint64_t pts = 0, bytes = 0, distinct = 0, prev = UINT64_MAX;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i].kind != 'B') {
            cr_assert_eq(s[i].alloc_points, 0);
            continue;
        }
        pts += s[i].alloc_points;
        bytes += s[i].bytes;
        distinct += s[i].alloc_points != prev;
        prev = s[i].alloc_points;
    }
    /* 20 B segments of 131072 bytes, 32 points expected in each: each
     * segment draws its own gaps (SGC_SEED + index), so the counts vary. */
    cr_assert_gt(distinct, 3, "segments repeat the same gaps");
    double expect = (double)bytes / 4096.0;
    cr_assert(fabs((double)pts - expect) < 5 * sqrt(expect), "%llu points, %.0f expected", (unsigned long long)pts,
              expect);
}

Test(alt, time_sampler_off_in_a_segments) {
    /* Each B segment burns 20 ms of CPU (SGC_ALT_COST), so a 1 kHz timer
     * fires in it however busy the machine; A segments have no timer. */
    setenv("SGC_ALTERNATE", "time", 1);
    setenv("SGC_TIME_HZ", "1000", 1);
    setenv("SGC_ALT_COST", "20000", 1);
    setenv("SGC_ALT_SEGMENT", "1", 1);
    sgc_init();
    for (int k = 0; k < 9; k++)
        sgc_collect_minor();
    size_t n;
    const sgc_alt_segment *s = finish(&n);
    cr_assert_eq(n, 10);
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind == 'A') {
            cr_assert_eq(s[i].time_samples, 0, "segment %zu", i);
            cr_assert_lt(s[i].cpu_ns, 20000000, "segment %zu: no cost in A", i);
        } else {
            cr_assert_eq(s[i].on, 1);
            cr_assert_geq(s[i].cpu_ns, 20000000, "segment %zu carries its cost", i);
            cr_assert_geq(s[i].time_samples, 1, "segment %zu", i);
        }
    }
}

Test(alt, cpu_time_segments_through_the_hook) {
    /* No allocation at all: only the iteration hook can end segments. */
    setenv("SGC_ALTERNATE", "none", 1);
    setenv("SGC_ALT_SEGMENT", "3ms", 1);
    sgc_init();
    volatile double x = 1.0;
    size_t n = 0;
    while (sgc_alt_series(&n), n < 9) {
        for (int i = 0; i < 100; i++)
            x = x * 1.0000001 + 1e-9;
        sgc_iteration();
    }
    const sgc_alt_segment *s = sgc_alt_series(&n);
    for (size_t i = 0; i < 9; i++) {
        cr_assert_eq(s[i].end, SGC_ALT_END_ITER);
        cr_assert_geq(s[i].cpu_ns, 3000000, "segment %zu: %llu ns", i, (unsigned long long)s[i].cpu_ns);
        /* The countdown looks at the clock when half the remaining time
         * should have passed: the overshoot is a small part of a segment. */
        cr_assert_lt(s[i].cpu_ns, 4500000, "segment %zu: %llu ns", i, (unsigned long long)s[i].cpu_ns);
        cr_assert_gt(s[i].iterations, 0);
        cr_assert_eq(s[i].bytes, 0);
    }
}

Test(alt, off_by_default_hook_only_counts_down) {
    sgc_init();
    cr_assert_eq(sgc_alt_phase(), -1);
    alloc_n(3 * PER_FILL);
    size_t n;
    finish(&n);
    cr_assert_eq(n, 0);
}

Test(alt, series_file) {
    char dir[] = "/tmp/test-alt-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/series", dir);
    setenv("SGC_ALT_OUT", path, 1);
    setenv("SGC_ALTERNATE", "alloc", 1);
    setenv("SGC_ALLOC_PERIOD", "50000", 1);
    setenv("SGC_ALT_SEGMENT", "2", 1);
    setenv("SGC_SEED", "7", 1); /* BAAB */
    sgc_init();
    alloc_n(9 * PER_FILL + 1);
    sgc_shutdown();
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[512];
    int nseg = 0, declared = -1;
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "sgc-segments 1\n");
    int saw_pattern = 0, saw_columns = 0, saw_mode = 0;
    while (fgets(line, sizeof line, f)) {
        if (strcmp(line, "pattern BAAB\n") == 0)
            saw_pattern = 1;
        if (strcmp(line, "alternate alloc\n") == 0)
            saw_mode = 1;
        if (strncmp(line, "columns index block pos kind on end cpu_ns", 42) == 0)
            saw_columns = 1;
        if (strncmp(line, "seg ", 4) == 0) {
            unsigned idx, block, pos, on;
            char kind, end[8];
            unsigned long long v[11];
            int got = sscanf(line, "seg %u %u %u %c %u %7s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                             &idx, &block, &pos, &kind, &on, end, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                             &v[7], &v[8], &v[9], &v[10]);
            cr_assert_eq(got, 17, "%s", line);
            cr_assert_eq(idx, (unsigned)nseg);
            if (idx < 4) {
                cr_assert_str_eq(end, "gc");
                cr_assert_eq(v[2], SEG_BYTES);
                cr_assert_eq(v[5], kind == 'B' ? 2 : 0, "%s", line);
            } else {
                cr_assert_str_eq(end, "exit");
            }
            nseg++;
        }
        sscanf(line, "segments %d", &declared);
    }
    fclose(f);
    cr_assert(saw_pattern && saw_columns && saw_mode);
    cr_assert_eq(nseg, 5);
    cr_assert_eq(declared, 5);
    unlink(path);
    rmdir(dir);
}

/* Runs sgc__settings_load() in a child with one variable set (plus extra,
 * "NAME=VALUE" or NULL); returns its exit status and its stderr in err. */
static int load_in_child(const char *extra, const char *name, const char *value, char *err, size_t errlen) {
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        if (extra)
            putenv((char *)extra);
        setenv(name, value, 1);
        sgc__settings_load();
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(alt, bad_settings_exit_2_naming_the_variable) {
    struct {
        const char *extra, *name, *value;
    } bad[] = {
        {NULL, "SGC_ALTERNATE", "on"},
        {NULL, "SGC_ALTERNATE", "ALLOC"},
        {NULL, "SGC_ALTERNATE", "alloc"},
        {NULL, "SGC_ALTERNATE", "time"},
        {"SGC_TIME_HZ=100", "SGC_ALTERNATE", "both"},
        {"SGC_ALLOC_PERIOD=4K", "SGC_ALTERNATE", "both"},
        {NULL, "SGC_ALT_SEGMENT", "0"},
        {NULL, "SGC_ALT_SEGMENT", "0ms"},
        {NULL, "SGC_ALT_SEGMENT", "20s"},
        {NULL, "SGC_ALT_SEGMENT", "ms"},
        {NULL, "SGC_ALT_SEGMENT", "60001ms"},
        {NULL, "SGC_ALT_SEGMENT", "-3"},
        {NULL, "SGC_ALT_CARRY", "1ms"},
        {NULL, "SGC_ALT_COST", "1000001"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512], prefix[128];
        int rc = load_in_child(bad[i].extra, bad[i].name, bad[i].value, err, sizeof err);
        cr_assert_eq(rc, 2, "%s=%s: exit status %d", bad[i].name, bad[i].value, rc);
        snprintf(prefix, sizeof prefix, "freecheck: %s=%s: ", bad[i].name, bad[i].value);
        cr_assert_eq(strncmp(err, prefix, strlen(prefix)), 0, "message '%s'", err);
        cr_assert_gt(strlen(err), strlen(prefix) + 5, "the message says why");
    }
    char err[256];
    cr_assert_eq(load_in_child("SGC_ALLOC_PERIOD=4K", "SGC_ALTERNATE", "alloc", err, sizeof err), 0, "%s", err);
    cr_assert_eq(load_in_child("SGC_ALTERNATE=none", "SGC_ALT_SEGMENT", "16", err, sizeof err), 0, "%s", err);
    cr_assert_eq(load_in_child("SGC_ALTERNATE=none", "SGC_ALT_SEGMENT", "25ms", err, sizeof err), 0, "%s", err);
}

/* A path the series cannot be written to is bad input, refused at
 * start-up (runtime/sgc_output.h). */
Test(alt, unwritable_series_path_refused_at_start, .exit_code = 2) {
    setenv("SGC_ALTERNATE", "none", 1);
    setenv("SGC_ALT_OUT", "/nonexistent-dir/series", 1);
    sgc_init();
}

/* One that becomes unwritable during the run fails it at exit. */
Test(alt, series_that_becomes_unwritable_fails_the_run) {
    char dir[] = "/tmp/sgc-test-seriesdir-XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/series", dir);
    setenv("SGC_ALTERNATE", "none", 1);
    setenv("SGC_ALT_OUT", path, 1);
    sgc_init();
    cr_assert_eq(rmdir(dir), 0, "the check at start-up leaves nothing behind");
    cr_assert_eq(sgc__alt_shutdown(), -1);
}

/* ---- Carry-over --------------------------------------------------------------
 *
 * In A/A mode nothing differs between A and B but an artificial cost.
 * SGC_ALT_CARRY charges 3 ms of CPU to the segment *after* each B segment:
 * ABBA gives it once to an A (after the second B) and once to a B (after
 * the first B) in every block, so the per-block ratio stays 1.
 * SGC_ALT_COST charges the same to the B segments themselves (the positive
 * control: the same measurement sees it).  Each segment's own work is
 * about 0.1 ms (4096 allocations and two collections of 64 KiB), so 3 ms
 * of exact CPU time dominates and the checks hold on a busy machine. */

static double median(double *v, size_t n) {
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median over complete blocks of log(B CPU per byte / A CPU per byte). */
static double block_log_ratio(const sgc_alt_segment *s, size_t n) {
    double r[64];
    size_t nb = 0;
    for (size_t i = 1; i + 3 < n && nb < 64; i += 4) {
        double cpu[2] = {0, 0}, bytes[2] = {0, 0};
        for (size_t k = i; k < i + 4; k++) {
            cr_assert_eq(s[k].block, s[i].block);
            int b = s[k].kind == 'B';
            cpu[b] += (double)s[k].cpu_ns;
            bytes[b] += (double)s[k].bytes;
        }
        r[nb++] = log((cpu[1] / bytes[1]) / (cpu[0] / bytes[0]));
    }
    cr_assert_geq(nb, 8);
    return median(r, nb);
}

static double run_aa_with(const char *var, const char *seed) {
    setenv("SGC_ALTERNATE", "none", 1);
    setenv("SGC_ALT_SEGMENT", "2", 1);
    setenv("SGC_SEED", seed, 1);
    setenv(var, "3000", 1);
    sgc_init();
    alloc_n(81 * PER_FILL + 1); /* 40 segments after the lead-in: 10 blocks */
    size_t n;
    const sgc_alt_segment *s = finish(&n);
    return block_log_ratio(s, n);
}

Test(alt, carry_over_cancels_abba) {
    double lr = run_aa_with("SGC_ALT_CARRY", "1592652782");
    cr_assert(fabs(lr) < 0.05, "carry-over biased the ABBA estimate: log ratio %.4f", lr);
}
Test(alt, carry_over_cancels_baab) {
    double lr = run_aa_with("SGC_ALT_CARRY", "7");
    cr_assert(fabs(lr) < 0.05, "carry-over biased the BAAB estimate: log ratio %.4f", lr);
}
Test(alt, cost_in_b_is_seen) {
    /* B: 2 x (3 ms + ~0.1 ms), A: 2 x ~0.1 ms: a ratio far above 1. */
    double lr = run_aa_with("SGC_ALT_COST", "1592652782");
    cr_assert(lr > 2.0, "the positive control: log ratio %.4f", lr);
}

Test(alt, major_collection_cpu_in_its_segment) {
    /* One boundary per collection; every other one is a major collection,
     * whose CPU time lands in the segment it ends. */
    setenv("SGC_ALTERNATE", "none", 1);
    setenv("SGC_ALT_SEGMENT", "1", 1);
    sgc_init();
    for (int k = 0; k < 8; k++) {
        alloc_n(100);
        if (k % 2)
            sgc_collect_major();
        else
            sgc_collect_minor();
    }
    size_t n;
    const sgc_alt_segment *s = finish(&n);
    cr_assert_eq(n, 9);
    for (size_t i = 0; i < 8; i++) {
        cr_assert_eq(s[i].major, i % 2, "segment %zu", i);
        if (i % 2)
            cr_assert_gt(s[i].major_cpu_ns, 0, "segment %zu", i);
        else
            cr_assert_eq(s[i].major_cpu_ns, 0, "segment %zu", i);
        cr_assert_leq(s[i].major_cpu_ns, s[i].cpu_ns);
    }
}

Test(alt, time_segments_hold_twenty_timer_periods) {
    /* 3ms asked, 1000 Hz alternated: segments of at least 20 periods
     * (20 ms of CPU), so a fresh timer's first period is a small part. */
    setenv("SGC_ALTERNATE", "time", 1);
    setenv("SGC_TIME_HZ", "1000", 1);
    setenv("SGC_ALT_SEGMENT", "3ms", 1);
    sgc_init();
    volatile double x = 1.0;
    size_t n = 0;
    while (sgc_alt_series(&n), n < 3) {
        for (int i = 0; i < 100; i++)
            x = x * 1.0000001 + 1e-9;
        sgc_iteration();
    }
    const sgc_alt_segment *s = sgc_alt_series(&n);
    for (size_t i = 0; i < 3; i++)
        cr_assert_geq(s[i].cpu_ns, 20000000, "segment %zu: %llu ns", i, (unsigned long long)s[i].cpu_ns);
}

Test(alt, no_minimum_without_time_sampling) {
    setenv("SGC_ALTERNATE", "none", 1);
    setenv("SGC_TIME_HZ", "100", 1); /* on throughout, not alternated */
    setenv("SGC_ALT_SEGMENT", "3ms", 1);
    sgc_init();
    volatile double x = 1.0;
    size_t n = 0;
    while (sgc_alt_series(&n), n < 3) {
        for (int i = 0; i < 100; i++)
            x = x * 1.0000001 + 1e-9;
        sgc_iteration();
    }
    const sgc_alt_segment *s = sgc_alt_series(&n);
    for (size_t i = 0; i < 3; i++)
        cr_assert_lt(s[i].cpu_ns, 10000000, "segment %zu: %llu ns", i, (unsigned long long)s[i].cpu_ns);
}

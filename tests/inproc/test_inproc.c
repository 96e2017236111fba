/* test_inproc.c - the in-process estimator (stats/st_inproc.c) against
 * reference values computed independently by tests/inproc/mkfixture.py
 * (plain Python: its own reader, medians, jackknife and a bootstrap of
 * 40000 resamples with Python's generator), and the series reader's
 * refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "st_inproc.h"

#define FIX "tests/inproc/fixtures/"

static const st_boot_opts opts = {10000, 0.95, 20250616ULL};

static void near_rel(double got, double want, double tol, const char *what) {
    cr_assert(fabs(got - want) <= tol * fabs(want), "%s: %.12g, reference %.12g", what, got, want);
}

static void load(const char *const *files, int n, st_seg **segs, size_t *nseg) {
    *segs = NULL;
    *nseg = 0;
    for (int i = 0; i < n; i++) {
        char err[512];
        cr_assert_eq(st_inproc_read_series(files[i], 100 + i, segs, nseg, err, sizeof err), 0, "%s", err);
    }
}

Test(inproc, pooled_two_processes_against_reference) {
    /* python3 tests/inproc/mkfixture.py: "pooled" */
    const char *files[] = {FIX "run1.seg", FIX "run2.seg"};
    st_seg *segs;
    size_t n;
    load(files, 2, &segs, &n);
    cr_assert_eq(n, 1 + 13 * 4 + 2 + 1 + 12 * 4 + 3);
    st_inproc e;
    st_inproc_estimate(segs, n, &opts, &e);
    cr_assert_eq(e.blocks.n, 25);
    cr_assert_eq(e.blocks.skipped, 2, "the two blocks cut by the exit");
    cr_assert_eq(e.blocks.runs, 2);
    cr_assert_eq(e.blocks.work_iterations, 0);
    near_rel(e.ratio.est, 1.02724372861, 1e-10, "ratio");
    near_rel(e.cost_ns.est, 221.688213492, 1e-9, "cost");
    near_rel(e.norm.est, 1.00022772783, 1e-10, "normalized");
    near_rel(e.sps, 119632.848407, 1e-10, "samples/s");
    near_rel(e.sd_log, 0.0489914264312, 1e-9, "sd");
    near_rel(e.ratio.accel, 0.0020933711701, 1e-8, "acceleration");
    cr_assert_eq(e.ratio.method, ST_CI_BCA);
    /* Different generators and resample counts: the endpoints agree to a
     * small part of the interval's width. */
    double width = 1.03410096448 - 1.00549927281;
    cr_assert(fabs(e.ratio.lo - 1.00549927281) < 0.1 * width, "lo %.6f", e.ratio.lo);
    cr_assert(fabs(e.ratio.hi - 1.03410096448) < 0.1 * width, "hi %.6f", e.ratio.hi);
    cr_assert(e.cost_ns.lo < e.cost_ns.est && e.cost_ns.est < e.cost_ns.hi);
    cr_assert(e.norm.lo <= e.norm.est && e.norm.est <= e.norm.hi);
    st_inproc_free(&e);
    free(segs);
}

Test(inproc, iterations_as_work_against_reference) {
    /* python3 tests/inproc/mkfixture.py: "iter" (time samples only) */
    const char *files[] = {FIX "iter.seg"};
    st_seg *segs;
    size_t n;
    load(files, 1, &segs, &n);
    st_inproc e;
    st_inproc_estimate(segs, n, &opts, &e);
    cr_assert_eq(e.blocks.n, 10);
    cr_assert_eq(e.blocks.skipped, 1);
    cr_assert_eq(e.blocks.work_iterations, 1);
    near_rel(e.ratio.est, 0.997724261802, 1e-10, "ratio");
    near_rel(e.cost_ns.est, -37.4866325072, 1e-8, "cost");
    near_rel(e.norm.est, 0.999962598677, 1e-10, "normalized");
    near_rel(e.sps, 60846.4629273, 1e-10, "samples/s");
    near_rel(e.sd_log, 0.0511960210763, 1e-9, "sd");
    cr_assert(fabs(e.ratio.accel) < 1e-12, "a symmetric jackknife: %g", e.ratio.accel);
    cr_assert(e.ratio.lo < e.ratio.est && e.ratio.est < e.ratio.hi);
    st_inproc_free(&e);
    free(segs);
}

Test(inproc, bytes_when_some_segment_has_no_iterations) {
    const char *files[] = {FIX "iter.seg"};
    st_seg *segs;
    size_t n;
    load(files, 1, &segs, &n);
    segs[5].iterations = 0; /* one segment of a complete block */
    st_blocks b;
    st_inproc_blocks(segs, n, &b);
    cr_assert_eq(b.work_iterations, 0);
    cr_assert_eq(b.n, 10);
    st_blocks_free(&b);
    free(segs);
}

Test(inproc, incomplete_blocks_and_lead_in_are_left_out) {
    /* One block: A B B A with cpu 1, 2, 2, 1 per byte; a lead-in with a
     * huge cost; a second block whose last segment ended at exit. */
    st_seg s[] = {
        {7, 0, 3, 'A', 1, 1e9, 1, 0, 0},   {7, 1, 0, 'A', 1, 100, 100, 0, 0}, {7, 1, 1, 'B', 1, 210, 100, 0, 5},
        {7, 1, 2, 'B', 1, 210, 100, 0, 5}, {7, 1, 3, 'A', 1, 100, 100, 0, 0}, {7, 2, 0, 'A', 1, 100, 100, 0, 0},
        {7, 2, 1, 'B', 1, 999, 100, 0, 5}, {7, 2, 2, 'B', 1, 999, 100, 0, 5}, {7, 2, 3, 'A', 0, 100, 100, 0, 0},
        {8, 1, 0, 'B', 1, 300, 100, 0, 3}, {8, 1, 1, 'A', 1, 100, 100, 0, 0}, {8, 1, 2, 'A', 1, 100, 100, 0, 0},
        {8, 1, 3, 'A', 1, 300, 100, 0, 3}, /* 3 A: not a block */
    };
    st_blocks b;
    st_inproc_blocks(s, sizeof s / sizeof s[0], &b);
    cr_assert_eq(b.n, 1);
    cr_assert_eq(b.skipped, 2);
    cr_assert_float_eq(b.log_ratio[0], log(2.1), 1e-12);
    cr_assert_float_eq(b.sps[0], 10 / (420 / 1e9), 1e-3);
    st_blocks_free(&b);
}

static int read_text(const char *text, char *err, size_t errlen) {
    char path[] = "/tmp/test-inproc-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    st_seg *segs = NULL;
    size_t n = 0;
    int rc = st_inproc_read_series(path, 1, &segs, &n, err, errlen);
    if (rc)
        cr_assert_eq(n, 0, "nothing kept from a refused file");
    free(segs);
    unlink(path);
    return rc;
}

#define HDR \
    "sgc-segments 1\nalternate alloc\ncolumns index block pos kind on end cpu_ns bytes iterations alloc_samples time_samples\n"

Test(inproc, reader_refuses_bad_files) {
    char err[512];
    cr_assert_eq(read_text(HDR "seg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1\n", err, sizeof err), 0, "%s", err);
    struct {
        const char *text, *says;
    } bad[] = {
        {"sgc-stats 1\n", "not a segment series"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0\n", "no 'segments N' line"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 2\n", "count differs"},
        {HDR "seg 0 0 3 C 0 gc 10 10 0 0 0\nsegments 1\n", "kind 'C'"},
        {HDR "seg 0 0 3 A 0 gc 10 -10 0 0 0\nsegments 1\n", "bytes '-10'"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0\nsegments 1\n", "10 fields"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0 7\nsegments 1\n", "more fields"},
        {"sgc-segments 1\nseg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1\n", "before the 'columns' line"},
        {HDR "segments 0\nseg 0 0 3 A 0 gc 10 10 0 0 0\n", "after the 'segments' line"},
        {HDR "seg 0 0 3 A 0 stop 10 10 0 0 0\nsegments 1\n", "end 'stop' is not one of: gc iter exit"},
        {"sgc-segments 1\nalternate sometimes\n", "alternate 'sometimes' is not an alternation mode"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(read_text(bad[i].text, err, sizeof err), -1, "case %zu accepted", i);
        cr_assert_not_null(strstr(err, bad[i].says), "case %zu: '%s'", i, err);
    }
    st_seg *segs = NULL;
    size_t n = 0;
    cr_assert_eq(st_inproc_read_series("/nonexistent/series", 1, &segs, &n, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "cannot read"));
}

/* What the reader used to skip or read in part without a word (issue: no
 * part of a line silently ignored, input bounded before it is read). */
Test(inproc, reader_refuses_what_it_would_ignore) {
    char err[512], longline[1200];
    memset(longline, 'A', sizeof longline);
    memcpy(longline, "pattern ", 8);
    longline[sizeof longline - 1] = '\0';
    char longtext[1600];
    snprintf(longtext, sizeof longtext, "sgc-segments 1\nalternate alloc\n%s\n", longline);
    struct {
        const char *text, *says;
    } bad[] = {
        {HDR "hello\nseg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1\n", "line 4: 'hello' is not a line of a segment series"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1junk\n", "line 5: 'segments' needs one count"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1 2\n", "line 5: 'segments' needs one count"},
        {HDR "seg 0 1.5 3 A 0 gc 10 10 0 0 0\nsegments 1\n", "block '1.5' is not a non-negative decimal integer"},
        {HDR "seg 0 0 3 A 0 gc 10 0x10 0 0 0\nsegments 1\n", "bytes '0x10' is not a non-negative decimal integer"},
        {HDR "seg 0 0 3 A 0 gc inf 10 0 0 0\nsegments 1\n", "cpu_ns 'inf' is not a non-negative decimal integer"},
        {HDR "seg 0 0 3 A 0 gc 1e3 10 0 0 0\nsegments 1\n", "cpu_ns '1e3' is not a non-negative decimal integer"},
        {HDR "seg 0 0 3 A 0 gc 10  10 0 0 0\nsegments 1\n", "line 4: an empty field"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0 \nsegments 1\n", "line 4: an empty field"},
        {HDR "seg 0 0 3 A 0 gc\t10 10 0 0 0\nsegments 1\n", "line 4: a tab or control character"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0\r\nsegments 1\n", "line 4: ends with a carriage return (CRLF"},
        {HDR "seg 0 0 4 A 0 gc 10 10 0 0 0\nsegments 1\n", "pos 4 is not a position in a block (0 to 3)"},
        {HDR "seg 1 0 3 A 0 gc 10 10 0 0 0\nsegments 1\n", "index 1, but this is segment 0 of the file"},
        {HDR "seg 0 0 3 B 0 gc 10 10 0 0 0\nsegments 1\n", "on 0 with kind B under alternate alloc"},
        {HDR "seg 0 0 3 A 2 gc 10 10 0 0 0\nsegments 1\n", "on 2 is not 0 or 1"},
        {HDR "seg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1", "line 5: the file ends inside this line (cut short)"},
        {HDR "\nseg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1\n", "line 4: an empty line"},
        {"sgc-segments 1\nalternate alloc\ncolumns block block kind end cpu_ns bytes iterations alloc_samples "
         "time_samples\n",
         "column 'block' is named twice"},
        {"sgc-segments 1\nalternate alloc\ncolumns block pos kind end cpu_ns bytes iterations alloc_samples "
         "time_samples colour\n",
         "column 'colour' is not a field of a segment line"},
        {"sgc-segments 1\nalternate alloc\ncolumns block pos kind end cpu_ns bytes iterations alloc_samples\n",
         "the columns line lacks time_samples"},
        {"sgc-segments 1\nalternate alloc\nalternate time\n", "line 3: the setting 'alternate' is given twice"},
        {HDR "alternate time\n", "line 4: the setting 'alternate' comes after the 'columns' line"},
        {"sgc-segments 1\ncolumns block pos kind end cpu_ns bytes iterations alloc_samples time_samples\n",
         "the 'columns' line comes before the 'alternate' line"},
        {"sgc-segments 1\nalternate alloc\nfrobnicate 1\n", "'frobnicate' is not a line of a segment series"},
        {"sgc-segments 1\nalternate alloc\nseed x\n", "line 3: seed needs one value, a decimal integer"},
        {"sgc-segments 1\nalternate alloc\npattern ABAB\n", "line 3: pattern needs one value"},
        {"sgc-segments 1\nalternate alloc\nalloc_mode fixed extra\n", "line 3: alloc_mode needs one value"},
        {"sgc-segments 1\nalternate alloc\ntime_clock sundial\n", "line 3: time_clock needs one value"},
        {"sgc-segments 1\nalternate alloc extra\n", "line 2: alternate needs one value"},
        {longtext, "line 3: 1200 characters, longer than any line of a segment series (1024)"},
        {"", "not a segment series (the file is empty)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(read_text(bad[i].text, err, sizeof err), -1, "case %zu accepted", i);
        cr_assert_not_null(strstr(err, bad[i].says), "case %zu: '%s'", i, err);
    }
    /* Every field and setting the runtime writes is read and accepted. */
    cr_assert_eq(read_text("sgc-segments 1\nalternate none\npattern BAAB\nsegment_fills 2\nsegment_cpu_ns 0\n"
                           "alloc_period 0\nalloc_mode fixed\ntime_hz 0\ntime_clock wall\nseed 18446744073\n"
                           "nursery_size 1048576\ncarry_ns 0\ncost_ns 0\ncolumns index block pos kind on end cpu_ns "
                           "wall_ns bytes iterations alloc_samples alloc_points sampled_bytes time_samples minor major "
                           "gc_ns major_cpu_ns\nseg 0 0 3 A 0 gc 1 2 3 4 5 6 7 8 9 10 11 12\n"
                           "seg 1 1 0 B 0 exit 1 2 3 4 5 6 7 8 9 10 11 12\nsegments 2\n",
                           err, sizeof err),
                 0, "%s", err);
    /* Not a regular file, or larger than the bound: refused before reading. */
    st_seg *segs = NULL;
    size_t n = 0;
    cr_assert_eq(st_inproc_read_series("/tmp", 1, &segs, &n, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "/tmp: not a regular file"), "%s", err);
    cr_assert_eq(st_inproc_read_series("/dev/null", 1, &segs, &n, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "/dev/null: not a regular file"), "%s", err);
    char path[] = "/tmp/test-inproc-big-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, HDR, strlen(HDR)), (ssize_t)strlen(HDR));
    cr_assert_eq(ftruncate(fd, (off_t)(64 << 20) + 1), 0);
    close(fd);
    cr_assert_eq(st_inproc_read_series(path, 1, &segs, &n, err, sizeof err), -1);
    unlink(path);
    cr_assert_not_null(strstr(err, "larger than the 64 MiB a segment series can be"), "%s", err);
    cr_assert_eq(n, 0);
    free(segs);
}

/* The optional keys of writers other than freecheck's runtime
 * (docs/FORMATS.md, the segment series): system, cpu_clock, unmeasured,
 * time_clock none, the switch_ns column. */
Test(inproc, reader_takes_the_keys_of_other_writers) {
    char err[512];
    const char *ok =
        "sgc-segments 1\nalternate alloc\ntime_hz 0\ntime_clock none\nsystem jemalloc\ncpu_clock process\n"
        "unmeasured alloc_points wall_ns\ncolumns index block pos kind on end cpu_ns bytes iterations alloc_samples "
        "time_samples switch_ns\nseg 0 0 3 A 0 gc 10 10 0 0 0 0\nsegments 1\n";
    cr_assert_eq(read_text(ok, err, sizeof err), 0, "%s", err);
    struct {
        const char *text, *says;
    } bad[] = {
        {"sgc-segments 1\nalternate alloc\ntime_hz 1000\ntime_clock none\ncolumns index block pos kind on end cpu_ns "
         "bytes iterations alloc_samples time_samples\nseg 0 0 3 A 0 gc 10 10 0 0 0\nsegments 1\n",
         "time_clock none with time_hz 1000"},
        {"sgc-segments 1\nalternate alloc\nunmeasured cpu_ns\n", "unmeasured 'cpu_ns' is not a field that may be"},
        {"sgc-segments 1\nalternate alloc\nunmeasured\n", "unmeasured needs one or more field names"},
        {"sgc-segments 1\nalternate alloc\ncpu_clock wall\n", "cpu_clock needs one value"},
        {"sgc-segments 1\nalternate alloc\nsystem Go!\n", "system needs one value"},
        {"sgc-segments 1\nalternate alloc\nsystem go\nsystem v8\n", "the setting 'system' is given twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(read_text(bad[i].text, err, sizeof err), -1, "case %zu accepted", i);
        cr_assert_not_null(strstr(err, bad[i].says), "case %zu: '%s'", i, err);
    }
}

/* Samples a writer lists as unmeasured give the ratio and no per-sample
 * cost: never a cost computed from zeros. */
Test(inproc, unmeasured_samples_give_no_cost) {
    char path[] = "/tmp/test-inproc-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "sgc-segments 1\nalternate alloc\nunmeasured alloc_samples\ncolumns block pos kind end cpu_ns bytes "
               "iterations alloc_samples time_samples\n");
    int nseg = 0;
    for (int b = 1; b <= 12; b++)
        for (int p = 0; p < 4; p++, nseg++) {
            int isb = p == 1 || p == 2;
            fprintf(f, "seg %d %d %c gc %d 1000 0 0 0\n", b, p, isb ? 'B' : 'A', isb ? 1100 + b : 1000 + (b % 3));
        }
    fprintf(f, "segments %d\n", nseg);
    fclose(f);
    st_seg *segs = NULL;
    size_t n = 0;
    char err[512];
    cr_assert_eq(st_inproc_read_series(path, 1, &segs, &n, err, sizeof err), 0, "%s", err);
    unlink(path);
    st_inproc e;
    st_inproc_estimate(segs, n, &opts, &e);
    cr_assert_eq(e.blocks.n, 12);
    cr_assert_eq(e.blocks.uncounted, 1);
    cr_assert(e.ratio.est > 1.09 && e.ratio.est < 1.12, "ratio %g", e.ratio.est);
    cr_assert_eq(e.cost_ns.method, ST_CI_NONE);
    cr_assert(isnan(e.cost_ns.est) && isnan(e.norm.est) && isnan(e.sps));
    st_inproc_free(&e);
    free(segs);
}

/* st_inproc_proc_se: the ideal bootstrap SEs of one process's estimates over
 * 5 blocks (the median log-ratio, the per-sample cost and the normalized
 * overhead from both medians, blocks drawn whole), by enumerating all 5^5
 * equally likely resamples (computed in Python independently: SDs times
 * sqrt(5 / 4) 0.01818251854942008, 17468.013521195062 ns and
 * 0.0181119288590204), matched within 1.5% by 200000 resamples; NaN below 3
 * blocks, with a non-finite block, and for cost and normalized overhead when
 * uncounted. */
Test(inproc, process_se_matches_the_ideal_bootstrap) {
    const double lr[5] = {0.01, -0.02, 0.05, 0.00, 0.03}, sps[5] = {1000, 1200, 900, 1100, 1300};
    const double want[3] = {0.01818251854942008, 17468.013521195062, 0.0181119288590204};
    double se[3], again[3];
    st_inproc_proc_se(lr, sps, 5, 0, 200000, 11, se, NULL);
    for (int s = 0; s < 3; s++)
        cr_assert(fabs(se[s] - want[s]) <= 0.015 * want[s], "statistic %d: SE %.6g, want %.6g", s, se[s], want[s]);
    st_inproc_proc_se(lr, sps, 5, 0, 200000, 11, again, NULL);
    cr_assert(memcmp(se, again, sizeof se) == 0, "same seed, same SEs bit for bit");
    st_inproc_proc_se(lr, sps, 5, 1, 200000, 11, again, NULL);
    cr_assert(again[0] == se[0] && isnan(again[1]) && isnan(again[2]), "uncounted: the ratio's SE only");
    st_inproc_proc_se(lr, sps, 2, 0, 1000, 11, se, NULL);
    cr_assert(isnan(se[0]) && isnan(se[1]) && isnan(se[2]), "no SE below 3 blocks");
    const double bad[4] = {0.1, NAN, 0.2, 0.3};
    st_inproc_proc_se(bad, sps, 4, 0, 1000, 11, se, NULL);
    cr_assert(isnan(se[0]), "no SE with a non-finite block");
}

/* st_inproc_q_boot_p by hand: 2 processes, est 0 and 0.09, SEs 0.05: Q =
 * 0.09^2 / (2 x 0.05^2) = 1.62; the 4 resamples' Q* (the same formula on
 * the draws' differences 0, 0.1, -0.1, -0.18) are 0, 2, 2, 6.48, so 3 reach
 * Q and p = (1 + 3) / (1 + 4) = 0.8.  Equal estimates (Q = 0): every Q*
 * reaches it, p = 1.  No p-value below 2 processes or without draws. */
Test(inproc, q_boot_p_by_hand) {
    double d0[4] = {0, 0.1, -0.05, 0.02}, d1[4] = {0, 0, 0.05, 0.2};
    double *draws[2] = {d0, d1};
    const double est[2] = {0, 0.09}, se[2] = {0.05, 0.05}, same[2] = {0.03, 0.03};
    cr_assert_eq(st_inproc_q_boot_p(est, se, draws, 2, 4), 0.8);
    cr_assert_eq(st_inproc_q_boot_p(same, se, draws, 2, 4), 1.0);
    cr_assert(isnan(st_inproc_q_boot_p(est, se, draws, 1, 4)), "one process: no p-value");
    double *none[2] = {d0, NULL};
    cr_assert(isnan(st_inproc_q_boot_p(est, se, none, 2, 4)), "a process without draws: no p-value");
}

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

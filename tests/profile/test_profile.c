/* test_profile.c - Criterion tests of the profile writer, its calling-context
 * tree, the reader and sgcprof: exact round trips, caching, corrupt files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "sgc_internal.h"
#include "sgc_profile.h"
#include "sgc_profread.h"
#include "sgc_timer.h"

#ifndef SGCPROF_BIN
#error "SGCPROF_BIN must name the sgcprof binary"
#endif

static char path[256];

/* A fresh runtime (Criterion forks per test) writing to a per-test file,
 * with no sampler started by the environment. */
static void start(const char *tag) {
    snprintf(path, sizeof path, "%s/sgc-test-profile-%d-%s.prof", P_tmpdir, (int)getpid(), tag);
    setenv("SGC_PROFILE", path, 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_TIME_HZ");
    unsetenv("SGC_STATS");
    sgc_init();
}

static void load(sgc_pr_reader *r) {
    cr_assert_eq(sgc_pr_open(r, path), 0, "open: %s", r->err);
    cr_assert_eq(sgc_pr_load(r), 0, "load: %s", r->err);
}

/* The names of node's stack, root first, joined by '/'. */
static void node_path(const sgc_pr_reader *r, uint32_t node, char *out, size_t n) {
    const char *names[512];
    int d = 0;
    for (uint32_t x = node; x && d < 512; x = r->node_parent[x])
        names[d++] = sgc_pr_string(r, r->node_func[x]);
    out[0] = 0;
    while (d--) {
        strncat(out, names[d], n - strlen(out) - 1);
        if (d)
            strncat(out, "/", n - strlen(out) - 1);
    }
}

static sgc_func f_a = {"alpha", 0}, f_b = {"beta", 0}, f_c = {"gamma", 0}, f_b2 = {"beta", 0};

Test(profile, round_trip_every_record_kind) {
    start("rt");
    uint32_t t_pair = sgc_type_register(&(sgc_type){"pair", 16, 3, SGC_VAR_NONE});
    uint64_t base = sgc__now_ns();
    sgc__profile_sampling_config(base + 10, 4096, SGC_SAMPLE_FIXED);
    uint32_t node;
    {
        SGC_FRAME_FN(&f_a);
        {
            SGC_FRAME_FN(&f_b);
            node = sgc__profile_stack_current();
        }
    }
    sgc_alloc_sample s = {.ts_ns = base + 20,
                          .size = 24,
                          .stack = node,
                          .tid = t_pair,
                          .points = 3,
                          .survival = SGC_SURVIVED,
                          .large = 1};
    sgc__profile_alloc_sample(&s);
    /* Out of order on purpose: an older timestamp after a newer one. */
    sgc_alloc_sample s2 = {.ts_ns = base + 15,
                           .size = 1ull << 40,
                           .stack = 0,
                           .tid = t_pair,
                           .points = 1,
                           .survival = SGC_SURVIVAL_UNKNOWN,
                           .large = 0};
    sgc__profile_alloc_sample(&s2);
    sgc__profile_time_config(base + 30, 2000, SGC_CLOCK_CPU);
    sgc__profile_time_sample(base + 40, node, SGC_PHASE_MINOR);
    sgc__profile_time_dropped(base + 50, 7);
    sgc__profile_gc_event(SGC_PHASE_MAJOR, base + 60, 12345, 1u << 20, 5u << 20);
    sgc_shutdown();

    sgc_pr_reader r;
    load(&r);
    cr_assert_eq(r.version, SGC_PROF_VERSION);
    cr_assert(r.base_ts <= base);
    cr_assert_eq(r.naconfs, 1);
    cr_assert_eq(r.aconfs[0].ts, base + 10);
    cr_assert_eq(r.aconfs[0].value, 4096);
    cr_assert_eq(r.nallocs, 2);
    cr_assert_eq(r.allocs[0].ts, base + 20);
    cr_assert_eq(r.allocs[0].size, 24);
    cr_assert_eq(r.allocs[0].points, 3);
    cr_assert_eq(r.allocs[0].survival, SGC_SURVIVED);
    cr_assert_eq(r.allocs[0].large, 1);
    cr_assert_str_eq(sgc_pr_type_name(&r, r.allocs[0].tid), "pair");
    cr_assert_eq(r.allocs[1].ts, base + 15);
    cr_assert_eq(r.allocs[1].size, 1ull << 40);
    cr_assert_eq(r.allocs[1].survival, SGC_SURVIVAL_UNKNOWN);
    cr_assert_eq(r.allocs[1].large, 0);
    cr_assert_eq(r.allocs[1].node, 0);
    char p[256];
    node_path(&r, r.allocs[0].node, p, sizeof p);
    cr_assert_str_eq(p, "alpha/beta");
    cr_assert_eq(sgc_pr_period_at(&r, base + 20), 4096);
    cr_assert_eq(sgc_pr_period_at(&r, base + 9), 0);
    cr_assert_eq(r.ntconfs, 1);
    cr_assert_eq(r.tconfs[0].value, 2000);
    cr_assert_eq(r.tconfs[0].mode, SGC_CLOCK_CPU);
    cr_assert_eq(r.ntimes, 1);
    cr_assert_eq(r.times[0].ts, base + 40);
    cr_assert_eq(r.times[0].phase, SGC_PHASE_MINOR);
    cr_assert_eq(r.times[0].node, r.allocs[0].node);
    cr_assert_eq(r.dropped, 7);
    cr_assert_eq(r.ngcs, 1);
    cr_assert_eq(r.gcs[0].kind, 2);
    cr_assert_eq(r.gcs[0].start, base + 60);
    cr_assert_eq(r.gcs[0].duration, 12345);
    cr_assert_eq(r.gcs[0].heap, 1u << 20);
    cr_assert_eq(r.gcs[0].rss, 5u << 20);
    cr_assert(r.end_ts >= base + 60);
    sgc_pr_close(&r);
    unlink(path);
}

Test(profile, cct_incremental_matches_full_walk_and_caches) {
    start("cct");
    SGC_FRAME_FN(&f_a);
    uint32_t n_a = sgc__profile_stack_current();
    cr_assert_eq(sgc_top->cct, n_a);
    {
        SGC_FRAME_FN(&f_b);
        {
            SGC_FRAME_FN(&f_c);
            {
                SGC_FRAME_FN(&f_c); /* recursion: a distinct node */
                uint64_t before = sgc__profile_bytes();
                uint32_t n = sgc__profile_stack_current();
                /* Exactly three new frames above the cached one: strings
                 * beta and gamma, three NODE records, nothing else. */
                uint64_t grew = sgc__profile_bytes() - before;
                cr_assert_eq(grew, (3 + 4) + (3 + 5) + 3 * 5);
                cr_assert_eq(sgc__profile_stack_full(), n);
                before = sgc__profile_bytes();
                cr_assert_eq(sgc__profile_stack_current(), n);
                cr_assert_eq(sgc__profile_bytes(), before, "a cached stack emits nothing");
                /* Every frame is cached now. */
                for (sgc_frame *f = sgc_top; f; f = f->parent)
                    cr_assert_neq(f->cct, 0);
                /* Snapshots name the same nodes. */
                sgc_func *snap[] = {&f_c, &f_c, &f_b, &f_a};
                cr_assert_eq(sgc__profile_stack_of(snap, 4), n);
                cr_assert_eq(sgc__profile_stack_extend(n_a, snap, 3), n);
            }
            /* Pop one, push a different function: one new node, parent =
             * the cached gamma node. */
            uint32_t n_c = sgc_top->cct;
            cr_assert_neq(n_c, 0);
            {
                SGC_FRAME_FN(&f_b2); /* same name as beta: same string id */
                cr_assert_eq(sgc_top->cct, 0, "push clears the cache");
                uint64_t before = sgc__profile_bytes();
                uint32_t n = sgc__profile_stack_current();
                cr_assert_eq(sgc__profile_bytes() - before, 5, "one NODE record, no new string");
                cr_assert_eq(f_b2.id, f_b.id);
                cr_assert_eq(sgc__profile_stack_full(), n);
                sgc_func *snap[] = {&f_b, &f_c, &f_b, &f_a};
                cr_assert_eq(sgc__profile_stack_of(snap, 4), n);
            }
        }
    }
    sgc_shutdown();
    sgc_pr_reader r;
    load(&r);
    cr_assert_eq(r.nnodes, 5);
    char p[256];
    node_path(&r, 4, p, sizeof p);
    cr_assert_str_eq(p, "alpha/beta/gamma/gamma");
    node_path(&r, 5, p, sizeof p);
    cr_assert_str_eq(p, "alpha/beta/gamma/beta");
    sgc_pr_close(&r);
    unlink(path);
}

/* Deep stacks through real recursion: the incremental node always equals
 * the full walk's, at every depth on the way down and up. */
static void recurse(int depth, int *checked) {
    static sgc_func fns[3] = {{"r0", 0}, {"r1", 0}, {"r2", 0}};
    SGC_FRAME_FN(&fns[depth % 3]);
    if (depth % 7 == 0) {
        cr_assert_eq(sgc__profile_stack_current(), sgc__profile_stack_full());
        (*checked)++;
    }
    if (depth < 300)
        recurse(depth + 1, checked);
    cr_assert_eq(sgc__profile_stack_current(), sgc__profile_stack_full());
}

Test(profile, cct_deep_recursion) {
    start("deep");
    int checked = 0;
    recurse(0, &checked);
    cr_assert_eq(checked, 43);
    sgc_shutdown();
    sgc_pr_reader r;
    load(&r);
    cr_assert_eq(r.nnodes, 301);
    sgc_pr_close(&r);
    unlink(path);
}

/* The first walk of a process meets more new frames than the walk
 * buffer's first size (64): it grows the buffer and walks again, and names
 * the same node as the full walk; every frame is cached afterwards. */
static uint32_t fresh_deep(int depth, uint32_t *full) {
    static sgc_func fns[2] = {{"d0", 0}, {"d1", 0}};
    SGC_FRAME_FN(&fns[depth % 2]);
    if (depth < 199)
        return fresh_deep(depth + 1, full);
    *full = sgc__profile_stack_full();
    uint32_t n = sgc__profile_stack_current();
    for (sgc_frame *f = sgc_top; f; f = f->parent)
        cr_assert_neq(f->cct, 0);
    return n;
}

Test(profile, cct_first_walk_deeper_than_the_buffer) {
    start("freshdeep");
    uint64_t frames = sgc__stats.stack_frames_interned;
    uint32_t full = 0, n = fresh_deep(0, &full);
    cr_assert_eq(n, full);
    cr_assert_eq(n, 200, "200 nodes, one per depth");
    cr_assert_eq(sgc__stats.stack_frames_interned - frames, 200, "each new frame counted once");
    sgc_shutdown();
    unlink(path);
}

/* A parent whose callees alternate (its last child is another function's
 * every time, then the same again): every node is the table's, the same as
 * the full walk's, and one NODE record per distinct stack. */
__attribute__((noinline)) static uint32_t callee(sgc_func *fn) {
    SGC_FRAME_FN(fn);
    uint32_t n = sgc__profile_stack_current();
    cr_assert_eq(n, sgc__profile_stack_full());
    return n;
}

Test(profile, cct_alternating_callees) {
    start("alt");
    static sgc_func f_p = {"parent", 0}, f_x = {"x", 0}, f_y = {"y", 0}, f_x2 = {"x", 0};
    SGC_FRAME_FN(&f_p);
    uint32_t np = sgc__profile_stack_current();
    uint32_t nx = callee(&f_x), ny = callee(&f_y);
    cr_assert_neq(nx, ny);
    uint64_t before = sgc__profile_bytes();
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(callee(&f_x), nx);
        cr_assert_eq(callee(&f_y), ny);
        cr_assert_eq(callee(&f_x2), nx, "another sgc_func of the same name: the same node");
        cr_assert_eq(callee(&f_x), nx);
    }
    cr_assert_eq(sgc__profile_bytes(), before, "no record for stacks seen before");
    sgc_func *snap[] = {&f_y, &f_p};
    cr_assert_eq(sgc__profile_stack_of(snap, 2), ny);
    cr_assert_eq(sgc__profile_stack_extend(np, snap, 1), ny);
    sgc_shutdown();
    sgc_pr_reader r;
    load(&r);
    cr_assert_eq(r.nnodes, 3);
    sgc_pr_close(&r);
    unlink(path);
}

/* The time sampler's drain interns the live stack after a snapshot of
 * SGC_TIMER_INTERN_FRAMES or more uncached frames (later snapshots then stop
 * at them), and leaves a shorter one's frames uncached. */
static uint32_t snapped_cct;
static void nest_and_snap(int depth, int stop) {
    static sgc_func fn = {"nested", 0};
    SGC_FRAME_FN(&fn);
    if (depth < stop) {
        nest_and_snap(depth + 1, stop);
        return;
    }
    sgc__timer_handler(SGC_TIMER_SIGNAL, NULL, NULL); /* a snapshot, as a signal takes it */
    sgc__timer_drain();
    snapped_cct = sgc_top->cct;
}

Test(profile, time_drain_interns_only_long_snapshots) {
    start("drainintern");
    cr_assert_eq(sgc_time_sampling_start(1, SGC_CLOCK_WALL), 0);
    SGC_FRAME_FN(&f_a);
    cr_assert_neq(sgc__profile_stack_current(), 0);
    uint64_t frames = sgc__stats.stack_frames_interned;
    nest_and_snap(1, SGC_TIMER_INTERN_FRAMES - 1); /* 15 new frames above alpha's */
    cr_assert_eq(snapped_cct, 0, "a short snapshot leaves the live stack uncached");
    cr_assert_eq(sgc__stats.stack_frames_interned, frames);
    nest_and_snap(1, SGC_TIMER_INTERN_FRAMES); /* 16 */
    cr_assert_neq(snapped_cct, 0, "a long snapshot's drain interns the live stack");
    cr_assert_eq(sgc__stats.stack_frames_interned - frames, SGC_TIMER_INTERN_FRAMES);
    sgc_time_sampling_stop();
    sgc_stats st;
    sgc_get_stats(&st);
    cr_assert_eq(st.time_samples_written, st.time_samples);
    cr_assert_eq(st.time_samples_dropped, 0);
    sgc_shutdown();
    unlink(path);
}

/* The drain's interning of the live stack waits after one that did not
 * pay (the next drain met a long snapshot again: the deep frames were
 * pushed anew, as deepstack's are), 1, 2, 4 ... drains that meet one, and
 * the wait ends once an interning pays.  Every snapshot of the same stack
 * has the same node, whether the drain looked its frames up or found it
 * equal to the last long snapshot. */
static uint32_t snapped_full;
static void nest_snap_full(int depth, int stop) {
    static sgc_func fn = {"nested", 0};
    SGC_FRAME_FN(&fn);
    if (depth < stop) {
        nest_snap_full(depth + 1, stop);
        return;
    }
    sgc__timer_handler(SGC_TIMER_SIGNAL, NULL, NULL);
    sgc__timer_drain();
    snapped_cct = sgc_top->cct;
    snapped_full = sgc__profile_stack_full();
}

/* Descents of 16 new frames above alpha's, one snapshot each; pattern:
 * x where the drain interns the live stack, . where it waits. */
static void descents(const char *pattern, uint32_t *node) {
    for (int i = 0; pattern[i]; i++) {
        nest_snap_full(1, SGC_TIMER_INTERN_FRAMES);
        cr_assert_eq(snapped_cct != 0, pattern[i] == 'x', "descent %d of %s: interned %d", i, pattern,
                     snapped_cct != 0);
        if (*node == 0)
            *node = snapped_full;
        cr_assert_eq(snapped_full, *node, "the same stack, the same node");
    }
}

Test(profile, time_drain_interning_waits_after_it_did_not_pay) {
    start("drainwait");
    cr_assert_eq(sgc_time_sampling_start(1, SGC_CLOCK_WALL), 0);
    SGC_FRAME_FN(&f_a);
    cr_assert_neq(sgc__profile_stack_current(), 0);
    /* The wait doubles after each interning that did not pay. */
    uint32_t node = 0;
    descents("x.x..x....x........x", &node);
    /* A snapshot at alpha's frame (cached): the last interning paid, the
     * wait starts from 1 again. */
    sgc__timer_handler(SGC_TIMER_SIGNAL, NULL, NULL);
    sgc__timer_drain();
    descents("x.x", &node);
    sgc_time_sampling_stop();
    sgc_shutdown();
    sgc_pr_reader r;
    load(&r);
    cr_assert_eq(r.ntimes, 24);
    for (size_t i = 0; i < r.ntimes; i++)
        if (i != 20) /* alpha's own */
            cr_assert_eq(r.times[i].node, node, "time sample %zu: node %u, the stack's is %u", i, r.times[i].node,
                         node);
    cr_assert_neq(r.times[20].node, node);
    sgc_pr_close(&r);
    unlink(path);
}

/* The allocation slow path drains what the handler buffered (its inline
 * check sees the handler's count of work), without a collection. */
Test(profile, slow_path_drains_the_handlers_snapshot) {
    start("slowdrain");
    uint32_t t = sgc_type_register(&(sgc_type){"bytes", 0, 0, SGC_VAR_BYTES});
    cr_assert_eq(sgc_time_sampling_start(1, SGC_CLOCK_WALL), 0);
    SGC_FRAME_FN(&f_a);
    uint64_t minors = sgc__stats.minor_collections, written = sgc__stats.time_samples_written;
    sgc__timer_handler(SGC_TIMER_SIGNAL, NULL, NULL);
    cr_assert_eq(sgc__timer_buffered(), 1);
    sgc_alloc(t, 16384); /* a large object: the slow path */
    cr_assert_eq(sgc__timer_buffered(), 0, "the slow path drained the snapshot");
    cr_assert_eq(sgc__stats.time_samples_written - written, 1);
    cr_assert_eq(sgc__stats.minor_collections, minors, "without a collection");
    /* Nothing new: the next entries find nothing to drain. */
    sgc_alloc(t, 16384);
    cr_assert_eq(sgc__stats.time_samples_written - written, 1);
    sgc_time_sampling_stop();
    sgc_shutdown();
    unlink(path);
}

Test(profile, exit_deep_inside_completes_the_file) {
    /* A workload that calls exit() ten frames deep: its profile must end
     * with the END record all the same (sgc_shutdown runs at exit). */
    snprintf(path, sizeof path, "%s/sgc-test-profile-%d-exit.prof", P_tmpdir, (int)getpid());
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        execl(SGC_DEEP_EXIT_BIN, SGC_DEEP_EXIT_BIN, path, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3, "deep-exit helper status %d", st);
    sgc_pr_reader r;
    cr_assert_eq(sgc_pr_open(&r, path), 0, "%s", r.err);
    cr_assert_eq(sgc_pr_load(&r), 0, "a profile cut by exit(): %s", r.err);
    cr_assert_eq(r.ntimes, 1);
    char p[256];
    node_path(&r, r.times[0].node, p, sizeof p);
    cr_assert_str_eq(p, "main/d/d/d/d/d/d/d/d/d/d");
    sgc_pr_close(&r);
    unlink(path);
}

Test(profile, no_profile_still_encodes_and_writes_nothing) {
    unsetenv("SGC_PROFILE");
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_TIME_HZ");
    sgc_init();
    uint64_t before = sgc__profile_bytes();
    SGC_FRAME_FN(&f_a);
    uint32_t n = sgc__profile_stack_current();
    for (int i = 0; i < 100000; i++)
        sgc__profile_time_sample(sgc__now_ns(), n, 0);
    cr_assert_geq(sgc__profile_bytes() - before, 100000 * 5u, "records are encoded without a file");
    sgc_shutdown();
}

/* ---- Corrupt and truncated files --------------------------------------- */

static uint8_t *file_bytes(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*n);
    cr_assert_eq(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* Writes a profile with every record kind, returns its bytes. */
static uint8_t *sample_profile(size_t *n) {
    start("corrupt");
    uint32_t t = sgc_type_register(&(sgc_type){"cell", 8, 0, SGC_VAR_NONE});
    sgc__profile_sampling_config(sgc__now_ns(), 512, 0);
    SGC_FRAME_FN(&f_a);
    uint32_t node = sgc__profile_stack_current();
    for (int i = 0; i < 20; i++) {
        sgc_alloc_sample s = {sgc__now_ns(), 16, node, t, 1, (uint8_t)(i % 3), 0};
        sgc__profile_alloc_sample(&s);
        sgc__profile_time_sample(sgc__now_ns(), node, i % 3);
    }
    sgc__profile_gc_event(1, sgc__now_ns(), 10, 20, 30);
    sgc_shutdown();
    return file_bytes(path, n);
}

Test(profile, every_truncation_is_reported_with_its_offset) {
    size_t n;
    uint8_t *b = sample_profile(&n);
    sgc_pr_reader r;
    cr_assert_eq(sgc_pr_open_mem(&r, b, n), 0);
    cr_assert_eq(sgc_pr_load(&r), 0, "%s", r.err);
    sgc_pr_close(&r);
    for (size_t len = 0; len < n; len++) {
        int rc = sgc_pr_open_mem(&r, b, len);
        if (rc == 0)
            rc = sgc_pr_load(&r);
        cr_assert_eq(rc, -1, "a file cut to %zu of %zu bytes was accepted", len, n);
        cr_assert_leq(r.err_offset, len, "cut at %zu: error names offset %llu", len, (unsigned long long)r.err_offset);
        char want[64];
        snprintf(want, sizeof want, "offset %llu", (unsigned long long)r.err_offset);
        cr_assert(strstr(r.err, want), "message '%s' lacks '%s'", r.err, want);
        sgc_pr_close(&r);
    }
    free(b);
    unlink(path);
}

/* Recomputes every block's checksums (format version 2), so a test can
 * change a record and reach the reader's record checks. */
static void reseal(uint8_t *b, size_t n) {
    size_t pos = SGC_PROF_HEADER_BYTES;
    while (pos + SGC_PROF_BLOCK_HEADER_BYTES <= n) {
        uint8_t *h = b + pos;
        uint32_t len = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
        cr_assert_leq(pos + SGC_PROF_BLOCK_HEADER_BYTES + len, n);
        uint32_t c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), h + 12, len);
        for (int i = 0; i < 4; i++)
            h[4 + i] = (uint8_t)(c >> (8 * i));
        c = (uint32_t)crc32(crc32(0L, Z_NULL, 0), h, 8);
        for (int i = 0; i < 4; i++)
            h[8 + i] = (uint8_t)(c >> (8 * i));
        pos += SGC_PROF_BLOCK_HEADER_BYTES + len;
    }
}

/* Runs sgcprof with args; returns its exit status and its stderr. */
static int run_sgcprof(const char *cmd, const char *file, char *err, size_t errn) {
    char line[1024], errpath[300];
    snprintf(errpath, sizeof errpath, "%s.err", path);
    snprintf(line, sizeof line, "%s %s '%s' >/dev/null 2>'%s'", SGCPROF_BIN, cmd, file, errpath);
    int st = system(line);
    FILE *f = fopen(errpath, "r");
    size_t k = f ? fread(err, 1, errn - 1, f) : 0;
    err[k] = 0;
    if (f)
        fclose(f);
    unlink(errpath);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(profile, corrupt_records_name_their_offset_and_sgcprof_exits_2) {
    size_t n;
    uint8_t *b = sample_profile(&n);
    /* Find the first NODE record by walking the valid file. */
    sgc_pr_reader r;
    sgc_pr_record rec;
    cr_assert_eq(sgc_pr_open_mem(&r, b, n), 0);
    uint64_t node_off = 0, sample_off = 0;
    while (sgc_pr_next(&r, &rec) == 1) {
        if (rec.kind == SGC_REC_NODE && !node_off)
            node_off = rec.offset;
        if (rec.kind == SGC_REC_ALLOC_SAMPLE && !sample_off)
            sample_off = rec.offset;
    }
    sgc_pr_close(&r);
    cr_assert(node_off && sample_off);
    char err[4096];
    cr_assert_eq(run_sgcprof("report", path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run_sgcprof("dump", path, err, sizeof err), 0, "%s", err);

    /* A node whose parent is itself. */
    uint8_t *c = malloc(n);
    memcpy(c, b, n);
    c[node_off + 3] = 1; /* kind, len, id=1, parent */
    cr_assert_eq(sgc_pr_open_mem(&r, c, n), 0);
    cr_assert_eq(sgc_pr_load(&r), -1);
    cr_assert(strstr(r.err, "checksum mismatch"), "a changed byte fails the block's checksum: %s", r.err);
    cr_assert_eq(r.nallocs, 0);
    sgc_pr_close(&r);
    reseal(c, n);
    cr_assert_eq(sgc_pr_open_mem(&r, c, n), 0);
    cr_assert_eq(sgc_pr_load(&r), -1);
    cr_assert_eq(r.err_offset, node_off, "%s", r.err);
    sgc_pr_close(&r);
    /* An allocation sample naming a node that does not exist. */
    memcpy(c, b, n);
    size_t at = sample_off + 2;
    while (c[at] & 0x80) /* skip the timestamp varint */
        at++;
    c[at + 1] = 99;
    reseal(c, n);
    cr_assert_eq(sgc_pr_open_mem(&r, c, n), 0);
    cr_assert_eq(sgc_pr_load(&r), -1);
    cr_assert_eq(r.err_offset, sample_off, "%s", r.err);
    cr_assert(strstr(r.err, "undefined node 99"), "%s", r.err);
    sgc_pr_close(&r);
    char cpath[300];
    snprintf(cpath, sizeof cpath, "%s.bad", path);
    FILE *f = fopen(cpath, "wb");
    fwrite(c, 1, n, f);
    fclose(f);
    char want[64];
    snprintf(want, sizeof want, "offset %llu", (unsigned long long)sample_off);
    cr_assert_eq(run_sgcprof("report --strict", cpath, err, sizeof err), 2);
    cr_assert(strstr(err, want), "stderr '%s' lacks '%s'", err, want);
    cr_assert_eq(run_sgcprof("dump --strict", cpath, err, sizeof err), 2);
    cr_assert(strstr(err, want), "stderr '%s' lacks '%s'", err, want);
    /* Without --strict: salvaged up to the bad record, with a warning. */
    cr_assert_eq(run_sgcprof("report", cpath, err, sizeof err), 0);
    cr_assert(strstr(err, want) && strstr(err, "warning: incomplete profile"), "%s", err);
    /* Truncated in the middle of the last record. */
    f = fopen(cpath, "wb");
    fwrite(b, 1, n - 2, f);
    fclose(f);
    cr_assert_eq(run_sgcprof("folded --strict", cpath, err, sizeof err), 2);
    cr_assert(strstr(err, "truncated"), "%s", err);
    cr_assert_eq(run_sgcprof("folded", cpath, err, sizeof err), 0);
    cr_assert(strstr(err, "truncated") && strstr(err, "cut short"), "%s", err);
    /* Bad magic, data after the end, missing file, bad command. */
    memcpy(c, b, n);
    c[0] = 'X';
    cr_assert_eq(sgc_pr_open_mem(&r, c, n), -1);
    cr_assert(strstr(r.err, "offset 0") && strstr(r.err, "magic"), "%s", r.err);
    sgc_pr_close(&r);
    uint8_t *longer = malloc(n + 1);
    memcpy(longer, b, n);
    longer[n] = SGC_REC_END;
    cr_assert_eq(sgc_pr_open_mem(&r, longer, n + 1), 0);
    cr_assert_eq(sgc_pr_load(&r), -1);
    cr_assert_eq(r.err_offset, n, "%s", r.err);
    sgc_pr_close(&r);
    cr_assert_eq(run_sgcprof("report", "/nonexistent/profile", err, sizeof err), 2);
    cr_assert(strstr(err, "/nonexistent/profile"), "%s", err);
    cr_assert_eq(run_sgcprof("frobnicate", path, err, sizeof err), 2);
    cr_assert(strstr(err, "frobnicate"), "%s", err);
    unlink(cpath);
    free(longer);
    free(c);
    free(b);
    unlink(path);
}

Test(profile, bad_profile_path_exits_2) {
    pid_t pid = fork();
    if (pid == 0) {
        setenv("SGC_PROFILE", "/nonexistent-dir/x.prof", 1);
        unsetenv("SGC_ALLOC_PERIOD");
        unsetenv("SGC_TIME_HZ");
        freopen("/dev/null", "w", stderr);
        sgc_init();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d", st);
}

/* Runs "sgcprof <cmd> path" and returns its standard output (malloc'd). */
static char *sgcprof_output(const char *cmd) {
    char line[1024], outpath[300];
    snprintf(outpath, sizeof outpath, "%s.out", path);
    snprintf(line, sizeof line, "%s %s '%s' >'%s' 2>&1", SGCPROF_BIN, cmd, path, outpath);
    int st = system(line);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sgcprof %s failed", cmd);
    size_t n;
    uint8_t *b = file_bytes(outpath, &n);
    char *s = realloc(b, n + 1);
    s[n] = 0;
    unlink(outpath);
    return s;
}

/* The report's figures and the folded stacks, exactly, for a known profile:
 * estimated bytes = points x the period in force, self vs inclusive,
 * survival rates, GC samples as their own leaf, the side-by-side view. */
Test(profile, report_and_folded_figures_are_exact) {
    start("report");
    uint32_t t_pair = sgc_type_register(&(sgc_type){"pair", 16, 3, SGC_VAR_NONE});
    uint32_t t_str = sgc_type_register(&(sgc_type){"str", 0, 0, SGC_VAR_BYTES});
    uint64_t t0 = sgc__now_ns();
    sgc__profile_sampling_config(t0, 1024, SGC_SAMPLE_FIXED);
    sgc__profile_time_config(t0, 1000, SGC_CLOCK_WALL);
    uint32_t n_a, n_ab, n_ac;
    {
        SGC_FRAME_FN(&f_a);
        n_a = sgc__profile_stack_current();
        {
            SGC_FRAME_FN(&f_b);
            n_ab = sgc__profile_stack_current();
        }
        {
            SGC_FRAME_FN(&f_c);
            n_ac = sgc__profile_stack_current();
        }
    }
    /* alpha/beta: 3 points of pair (survived) + 1 point of pair (died);
     * alpha: 4 points of str (died), after a period change to 2048 for
     * one of them (2 points at 2048). */
    sgc__profile_alloc_sample(&(sgc_alloc_sample){t0 + 1, 48, n_ab, t_pair, 3, SGC_SURVIVED, 0});
    sgc__profile_alloc_sample(&(sgc_alloc_sample){t0 + 2, 24, n_ab, t_pair, 1, SGC_DIED, 0});
    sgc__profile_alloc_sample(&(sgc_alloc_sample){t0 + 3, 2048, n_a, t_str, 2, SGC_DIED, 0});
    sgc__profile_sampling_config(t0 + 4, 2048, SGC_SAMPLE_FIXED);
    sgc__profile_alloc_sample(&(sgc_alloc_sample){t0 + 5, 4096, n_a, t_str, 2, SGC_SURVIVAL_UNKNOWN, 1});
    /* Time: 6 in alpha/gamma, 2 in alpha/beta of which 1 in a minor GC. */
    for (int i = 0; i < 6; i++)
        sgc__profile_time_sample(t0 + 10 + (uint64_t)i, n_ac, SGC_PHASE_MUTATOR);
    sgc__profile_time_sample(t0 + 20, n_ab, SGC_PHASE_MUTATOR);
    sgc__profile_time_sample(t0 + 21, n_ab, SGC_PHASE_MINOR);
    /* Time sampling on for 8000 ns with 8 samples: 1000 ns each. */
    sgc__profile_time_config(t0 + 8000, 0, SGC_CLOCK_WALL);
    sgc_shutdown();

    char *rep = sgcprof_output("report");
    /* Total: 3 KiB + 1 KiB + 2 KiB + 4 KiB = 10 KiB. */
    cr_assert(strstr(rep, "5 names (functions and types), 3 stack nodes"), "%s", rep);
    cr_assert(strstr(rep, "4 objects, 8 sample points, estimated 10.0 KiB allocated"), "%s", rep);
    cr_assert(strstr(rep, "     1      6.0 KiB  60.00%         2  alpha\n"), "%s", rep);
    cr_assert(strstr(rep, "     2      4.0 KiB  40.00%         2  beta\n"), "%s", rep);
    cr_assert(strstr(rep, "     1     10.0 KiB 100.00%         4  alpha\n"), "%s", rep);
    cr_assert(strstr(rep, "      6.0 KiB  60.00%         2         0         1         1      0.0%  str\n"), "%s", rep);
    cr_assert(strstr(rep, "      4.0 KiB  40.00%         2         1         1         0     50.0%  pair\n"), "%s",
              rep);
    cr_assert(strstr(rep, "phases: mutator 7 (87.5%), minor GC 1 (12.5%), major GC 0 (0.0%)"), "%s", rep);
    cr_assert(strstr(rep, "each sample stands for 1000 ns (1 / the achieved rate): 8000 ns sampled in all"), "%s", rep);
    cr_assert(strstr(rep, "survived their first minor collection: estimated 3.0 KiB (30.0% of the bytes)"), "%s", rep);
    cr_assert(strstr(rep, "     1         6  75.00%  gamma\n"), "%s", rep);
    cr_assert(strstr(rep, "     2         1  12.50%  beta\n     3         1  12.50%  [minor GC]\n"), "%s", rep);
    cr_assert(strstr(rep, "     1         8 100.00%  alpha\n"), "%s", rep);
    cr_assert(strstr(rep, "     2         6  75.00%  gamma\n"), "%s", rep);
    cr_assert(strstr(rep, "     3         2  25.00%  beta\n"), "%s", rep);
    cr_assert(
        strstr(rep, "     1  gamma                             75.00%  |  alpha                             60.00%\n"),
        "%s", rep);
    free(rep);
    char *ft = sgcprof_output("folded --time");
    cr_assert_str_eq(ft, "alpha;beta 1\nalpha;beta;[minor_GC] 1\nalpha;gamma 6\n");
    free(ft);
    char *fa = sgcprof_output("folded --alloc");
    cr_assert_str_eq(fa, "alpha 6144\nalpha;beta 4096\n");
    free(fa);
    /* speedscope: frame index = string id - 1 (alpha 0, beta 1, gamma 2,
     * then the types), pseudo-frames after the strings ([minor GC] = 5). */
    char *ss = sgcprof_output("speedscope");
    cr_assert(strstr(ss, "\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":8000,"
                         "\"samples\":[[0,2],[0,2],[0,2],[0,2],[0,2],[0,2],[0,1],[0,1,5]],"
                         "\"weights\":[1000,1000,1000,1000,1000,1000,1000,1000]"),
              "%s", ss);
    cr_assert(strstr(ss, "\"samples\":[[0,1],[0,1],[0],[0]],\"weights\":[3072,1024,2048,4096]"), "%s", ss);
    cr_assert(strstr(ss, "{\"name\":\"gamma\"},{\"name\":\"pair\"},{\"name\":\"str\"},{\"name\":\"[minor GC]\"}"), "%s",
              ss);
    free(ss);
    unlink(path);
}

/* test_salvage.c - Criterion tests of the profile's integrity (format
 * version 2): salvage of files cut anywhere, single-bit flips, version 1
 * files, and SIGTERM/SIGINT finishing the profile. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sgc_internal.h"
#include "sgc_profile.h"
#include "sgc_profread.h"

static char spath[256];

static uint8_t *read_all(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f, "%s", p);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*n ? *n : 1);
    cr_assert_eq(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* A profile of every record kind: nfuncs distinct functions, iters samples
 * of each kind; more than 64 KiB (several blocks) for iters >= 3000. */
static uint8_t *make_profile(const char *tag, int iters, size_t *n) {
    snprintf(spath, sizeof spath, "%s/sgc-test-salvage-%d-%s.prof", P_tmpdir, (int)getpid(), tag);
    setenv("SGC_PROFILE", spath, 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_TIME_HZ");
    unsetenv("SGC_STATS");
    sgc_init();
    static sgc_func fns[64];
    static char names[64][16];
    for (int i = 0; i < 64; i++) {
        snprintf(names[i], sizeof names[i], "fn%d", i);
        fns[i] = (sgc_func){names[i], 0};
    }
    uint32_t t = sgc_type_register(&(sgc_type){"cell", 8, 0, SGC_VAR_NONE});
    uint64_t t0 = sgc__now_ns();
    sgc__profile_sampling_config(t0, 512, 0);
    sgc__profile_time_config(t0, 1000, 0);
    for (int i = 0; i < iters; i++) {
        SGC_FRAME_FN(&fns[i % 64]);
        uint32_t node;
        {
            SGC_FRAME_FN(&fns[(i / 64) % 64]);
            node = sgc__profile_stack_current();
        }
        sgc__profile_alloc_sample(&(sgc_alloc_sample){t0 + 100 * (uint64_t)i, 16 + (uint64_t)i, node, t, 1 + i % 4,
                                                      (uint8_t)(i % 3), (uint8_t)(i % 5 == 0)});
        sgc__profile_time_sample(t0 + 100 * (uint64_t)i + 7, node, i % 3);
        if (i % 97 == 0)
            sgc__profile_gc_event(1 + i % 2, t0 + 100 * (uint64_t)i, 1000 + (uint64_t)i, 4096, 8192);
        if (i % 501 == 0) {
            sgc__profile_time_dropped(t0 + 100 * (uint64_t)i + 9, 2);
            sgc__profile_time_missed(t0 + 100 * (uint64_t)i + 9, 3);
        }
    }
    sgc_shutdown();
    return read_all(spath, n);
}

typedef struct reclist {
    sgc_pr_record *rec; /* str: a copy (STRING records) or NULL */
    uint64_t *end;      /* offset just after each record */
    size_t n;
    int rc; /* sgc_pr_next's last result: 0 = ended properly, -1 = stopped */
    uint64_t err_offset;
    char err[256];
} reclist;

/* Every record of bytes [0, n) in order, read in salvage or strict mode;
 * with_offset = 0 clears the offsets (to compare files framed differently). */
static reclist read_records(const uint8_t *b, size_t n, int salvage, int with_offset) {
    reclist l = {0};
    sgc_pr_reader r;
    if (sgc_pr_open_mem(&r, b, n) != 0) {
        l.rc = -1;
        l.err_offset = r.err_offset;
        snprintf(l.err, sizeof l.err, "%s", r.err);
        sgc_pr_close(&r);
        return l;
    }
    r.salvage = salvage;
    sgc_pr_record c;
    size_t cap = 0;
    while ((l.rc = sgc_pr_next(&r, &c)) == 1) {
        if (l.n == cap) {
            cap = cap ? cap * 2 : 256;
            l.rec = realloc(l.rec, cap * sizeof *l.rec);
            l.end = realloc(l.end, cap * sizeof *l.end);
        }
        if (c.str)
            c.str = strdup(c.str);
        if (!with_offset)
            c.offset = 0;
        l.rec[l.n] = c;
        l.end[l.n++] = r.pos;
    }
    l.err_offset = r.err_offset;
    snprintf(l.err, sizeof l.err, "%s", r.err);
    sgc_pr_close(&r);
    return l;
}

static void free_list(reclist *l) {
    for (size_t i = 0; i < l->n; i++)
        free((char *)l->rec[i].str);
    free(l->rec);
    free(l->end);
}

/* Two decoded records are the same record: every field equal. */
static int same_record(const sgc_pr_record *a, const sgc_pr_record *b) {
    if ((a->str == NULL) != (b->str == NULL) || (a->str && strcmp(a->str, b->str)))
        return 0;
#define F(x) a->x == b->x
    return F(kind) && F(offset) && F(ts) && F(id) && F(parent) && F(func) && F(tid) && F(name) && F(node) &&
           F(period) && F(mode) && F(size) && F(points) && F(survival) && F(large) && F(hz) && F(clock) && F(phase) &&
           F(count) && F(gc_kind) && F(duration) && F(heap) && F(rss);
#undef F
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Offsets of the blocks of a version 2 file, and how many there are. */
static size_t block_starts(const uint8_t *b, size_t n, uint64_t *starts, size_t max) {
    size_t k = 0, pos = SGC_PROF_HEADER_BYTES;
    while (pos < n) {
        cr_assert_lt(k, max);
        starts[k++] = pos;
        pos += SGC_PROF_BLOCK_HEADER_BYTES + le32(b + pos);
    }
    cr_assert_eq(pos, n, "blocks tile the file");
    return k;
}

/* The records of full whose end is at or before cut. */
static size_t records_before(const reclist *full, uint64_t cut) {
    size_t k = 0;
    while (k < full->n && full->end[k] <= cut)
        k++;
    return k;
}

static void check_prefix(const reclist *got, const reclist *full, size_t want, const char *what) {
    cr_assert_eq(got->n, want, "%s: %zu records salvaged, %zu expected (%s)", what, got->n, want, got->err);
    for (size_t i = 0; i < want; i++)
        cr_assert(same_record(&got->rec[i], &full->rec[i]), "%s: record %zu differs", what, i);
}

/* Salvage of a file cut at offset cut: exactly the records wholly before
 * the cut, then a "truncated" stop; --strict (salvage off) refuses it. */
static void check_cut(const uint8_t *b, const reclist *full, size_t cut) {
    char what[64];
    snprintf(what, sizeof what, "cut at %zu", cut);
    reclist got = read_records(b, cut, 1, 1);
    cr_assert_eq(got.rc, -1, "%s: accepted as complete", what);
    check_prefix(&got, full, cut < SGC_PROF_HEADER_BYTES ? 0 : records_before(full, cut), what);
    cr_assert(strstr(got.err, "truncated"), "%s: %s", what, got.err);
    free_list(&got);
    reclist strict = read_records(b, cut, 0, 1);
    cr_assert_eq(strict.rc, -1, "%s: strict reader accepted it", what);
    cr_assert_leq(strict.err_offset, cut);
    free_list(&strict);
}

Test(salvage, cut_at_every_record_boundary_and_every_byte_of_a_small_profile) {
    size_t n;
    uint8_t *b = make_profile("small", 20, &n);
    reclist full = read_records(b, n, 0, 1);
    cr_assert_eq(full.rc, 0, "%s", full.err);
    cr_assert_gt(full.n, 60);
    uint64_t starts[8];
    cr_assert_eq(block_starts(b, n, starts, 8), 1, "a small profile is one block");
    size_t boundaries = 0;
    for (size_t i = 0; i + 1 < full.n; i++, boundaries++)
        check_cut(b, &full, full.end[i]);
    cr_assert_eq(boundaries, full.n - 1);
    for (size_t cut = 0; cut < n; cut++)
        check_cut(b, &full, cut);
    free_list(&full);
    free(b);
    unlink(spath);
}

Test(salvage, random_cuts_and_block_boundaries_of_a_large_profile) {
    size_t n;
    uint8_t *b = make_profile("large", 12000, &n);
    reclist full = read_records(b, n, 0, 1);
    cr_assert_eq(full.rc, 0, "%s", full.err);
    uint64_t starts[64];
    size_t nb = block_starts(b, n, starts, 64);
    cr_assert_geq(nb, 4, "%zu bytes in %zu blocks", n, nb);
    for (size_t i = 0; i < nb; i++)
        for (size_t d = 0; d <= SGC_PROF_BLOCK_HEADER_BYTES + 1; d++)
            check_cut(b, &full, starts[i] + d);
    srand(12345);
    for (int i = 0; i < 300; i++)
        check_cut(b, &full, (size_t)rand() % n);
    free_list(&full);
    free(b);
    unlink(spath);
}

/* Flips bit `bit` of b and checks: the strict reader refuses the file at
 * the offset of the header (< 24) or of the block holding the bit; the
 * salvage reader returns exactly the records of the blocks before it. */
static void check_flip(uint8_t *b, size_t n, const reclist *full, const uint64_t *starts, size_t nb, size_t bit) {
    size_t byte = bit / 8;
    b[byte] ^= (uint8_t)(1u << (bit % 8));
    char what[64];
    snprintf(what, sizeof what, "bit %zu (byte %zu)", bit % 8, byte);
    reclist strict = read_records(b, n, 0, 1);
    cr_assert_eq(strict.rc, -1, "%s flipped: not detected", what);
    reclist got = read_records(b, n, 1, 1);
    if (byte < SGC_PROF_HEADER_BYTES) {
        cr_assert_lt(strict.err_offset, SGC_PROF_HEADER_BYTES, "%s: %s", what, strict.err);
        cr_assert_eq(got.n, 0, "%s", what);
    } else {
        size_t k = nb;
        while (starts[k - 1] > byte)
            k--;
        uint64_t blk = starts[k - 1];
        cr_assert_eq(strict.err_offset, blk, "%s: reported at %llu, block at %llu: %s", what,
                     (unsigned long long)strict.err_offset, (unsigned long long)blk, strict.err);
        cr_assert(strstr(strict.err, "checksum mismatch"), "%s: %s", what, strict.err);
        check_prefix(&got, full, records_before(full, blk), what);
    }
    free_list(&strict);
    free_list(&got);
    b[byte] ^= (uint8_t)(1u << (bit % 8));
}

Test(salvage, every_single_bit_flip_of_a_small_profile_is_detected) {
    size_t n;
    uint8_t *b = make_profile("flip", 20, &n);
    reclist full = read_records(b, n, 0, 1);
    cr_assert_eq(full.rc, 0);
    uint64_t starts[8];
    size_t nb = block_starts(b, n, starts, 8);
    for (size_t bit = 0; bit < n * 8; bit++)
        check_flip(b, n, &full, starts, nb, bit);
    reclist again = read_records(b, n, 0, 1);
    cr_assert_eq(again.rc, 0, "restored");
    free_list(&again);
    free_list(&full);
    free(b);
    unlink(spath);
}

Test(salvage, bit_flips_in_a_large_profile_stop_at_the_last_good_block) {
    size_t n;
    uint8_t *b = make_profile("flipl", 12000, &n);
    reclist full = read_records(b, n, 0, 1);
    cr_assert_eq(full.rc, 0);
    uint64_t starts[64];
    size_t nb = block_starts(b, n, starts, 64);
    cr_assert_geq(nb, 4);
    /* Every bit of the file header and of every block header... */
    for (size_t bit = 0; bit < SGC_PROF_HEADER_BYTES * 8; bit++)
        check_flip(b, n, &full, starts, nb, bit);
    for (size_t i = 0; i < nb; i++)
        for (size_t bit = 0; bit < SGC_PROF_BLOCK_HEADER_BYTES * 8; bit++)
            check_flip(b, n, &full, starts, nb, starts[i] * 8 + bit);
    /* ... the first and last bytes of every block's data, and random bits. */
    for (size_t i = 0; i < nb; i++) {
        uint64_t data = starts[i] + SGC_PROF_BLOCK_HEADER_BYTES, end = i + 1 < nb ? starts[i + 1] : n;
        for (size_t bit = 0; bit < 8; bit++) {
            check_flip(b, n, &full, starts, nb, data * 8 + bit);
            check_flip(b, n, &full, starts, nb, (end - 1) * 8 + bit);
        }
    }
    srand(777);
    for (int i = 0; i < 300; i++)
        check_flip(b, n, &full, starts, nb, (size_t)rand() % (n * 8));
    free_list(&full);
    free(b);
    unlink(spath);
}

/* Version 1 (records right after the header, no blocks, 0 where version 2
 * keeps the header checksum) is still read, record for record. */
Test(salvage, version_1_files_are_still_read) {
    size_t n;
    uint8_t *b = make_profile("v1", 4000, &n);
    uint64_t starts[64];
    size_t nb = block_starts(b, n, starts, 64);
    uint8_t *v1 = malloc(n);
    memcpy(v1, b, SGC_PROF_HEADER_BYTES);
    v1[8] = 1;
    memset(v1 + 12, 0, 4);
    size_t m = SGC_PROF_HEADER_BYTES;
    for (size_t i = 0; i < nb; i++) {
        uint32_t len = le32(b + starts[i]);
        memcpy(v1 + m, b + starts[i] + SGC_PROF_BLOCK_HEADER_BYTES, len);
        m += len;
    }
    reclist a = read_records(b, n, 0, 0), c = read_records(v1, m, 0, 0);
    cr_assert_eq(a.rc, 0, "%s", a.err);
    cr_assert_eq(c.rc, 0, "version 1: %s", c.err);
    check_prefix(&c, &a, a.n, "version 1");
    sgc_pr_reader r;
    cr_assert_eq(sgc_pr_open_mem(&r, v1, m), 0);
    cr_assert_eq(r.version, 1);
    sgc_pr_close(&r);
    /* A version 1 file cut short is salvaged up to its last whole record. */
    reclist cut = read_records(v1, m - 5, 1, 0);
    cr_assert_eq(cut.rc, -1);
    check_prefix(&cut, &a, a.n - 1, "version 1 cut");
    free_list(&cut);
    /* Version 3 is refused, naming the version. */
    v1[8] = 3;
    cr_assert_eq(sgc_pr_open_mem(&r, v1, m), -1);
    cr_assert(strstr(r.err, "version 3"), "%s", r.err);
    sgc_pr_close(&r);
    free_list(&a);
    free_list(&c);
    free(v1);
    free(b);
    unlink(spath);
}

/* ---- SIGTERM / SIGINT ------------------------------------------------------ */

/* Starts the helper, waits until it has recorded `ready` samples, sends
 * sig (after delay_us more), returns its wait status. */
static int run_and_signal(const char *mode, int sig, long ready, unsigned delay_us) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        char r[32];
        snprintf(r, sizeof r, "%ld", ready);
        execl(SGC_SIG_HELPER_BIN, SGC_SIG_HELPER_BIN, spath, mode, r, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char c;
    cr_assert_eq(read(fds[0], &c, 1), 1, "the helper did not get ready");
    close(fds[0]);
    if (delay_us)
        usleep(delay_us);
    kill(pid, sig);
    /* It must end by itself; after 120 s (a hang: it needs milliseconds of
     * CPU, but the machine may be busy) it is killed and the test fails. */
    int st;
    for (int i = 0; i < 12000; i++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        cr_assert_neq(w, -1);
        if (w == pid)
            return st;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    cr_assert_fail("the helper did not end within 120 s of signal %d", sig);
    return st;
}

Test(salvage, sigterm_and_sigint_finish_the_profile) {
    int sigs[] = {SIGTERM, SIGINT};
    for (int i = 0; i < 2; i++) {
        snprintf(spath, sizeof spath, "%s/sgc-test-salvage-%d-sig%d.prof", P_tmpdir, (int)getpid(), sigs[i]);
        int st = run_and_signal("default", sigs[i], 20000, 0);
        cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i], "the helper must die of signal %d (status %d)", sigs[i],
                  st);
        sgc_pr_reader r;
        cr_assert_eq(sgc_pr_open(&r, spath), 0, "%s", r.err);
        cr_assert_eq(sgc_pr_load(&r), 0, "signal %d: %s", sigs[i], r.err);
        cr_assert_eq(r.exit_signal, sigs[i]);
        cr_assert_geq(r.ntimes, 20000);
        cr_assert_geq(r.blocks, 4);
        sgc_pr_close(&r);
        unlink(spath);
    }
}

/* The signal taken by a thread of the program's own: the runtime's thread
 * finishes the file all the same. */
Test(salvage, a_signal_taken_by_another_thread_finishes_the_profile) {
    for (int i = 0; i < 5; i++) {
        snprintf(spath, sizeof spath, "%s/sgc-test-salvage-%d-thread.prof", P_tmpdir, (int)getpid());
        int st = run_and_signal("thread", 0, 3000 + 1000 * i, 0);
        cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d", st);
        sgc_pr_reader r;
        cr_assert_eq(sgc_pr_open(&r, spath), 0, "%s", r.err);
        cr_assert_eq(sgc_pr_load(&r), 0, "run %d: %s", i, r.err);
        cr_assert_eq(r.exit_signal, SIGTERM);
        cr_assert_geq(r.ntimes, 3000 + 1000 * (size_t)i);
        sgc_pr_close(&r);
    }
    unlink(spath);
}

/* Signals at random moments (inside record encoding, buffer flushes,
 * string interning): every profile is complete and valid. */
Test(salvage, signals_at_random_moments_leave_valid_profiles) {
    srand(4242);
    for (int i = 0; i < 40; i++) {
        snprintf(spath, sizeof spath, "%s/sgc-test-salvage-%d-rnd.prof", P_tmpdir, (int)getpid());
        int st = run_and_signal("default", SIGTERM, 1000, (unsigned)(rand() % 20000));
        cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "run %d: status %d", i, st);
        sgc_pr_reader r;
        cr_assert_eq(sgc_pr_open(&r, spath), 0, "%s", r.err);
        cr_assert_eq(sgc_pr_load(&r), 0, "run %d: %s", i, r.err);
        cr_assert_eq(r.exit_signal, SIGTERM);
        cr_assert_geq(r.ntimes, 1000);
        sgc_pr_close(&r);
    }
    unlink(spath);
}

Test(salvage, a_program_s_own_handler_or_ignore_is_left_alone) {
    snprintf(spath, sizeof spath, "%s/sgc-test-salvage-%d-own.prof", P_tmpdir, (int)getpid());
    int st = run_and_signal("own", SIGTERM, 5000, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7, "the program's handler ran (status %d)", st);
    /* Its handler used _exit: no end record, salvage reads what was written. */
    size_t n;
    uint8_t *b = read_all(spath, &n);
    reclist got = read_records(b, n, 1, 1);
    cr_assert_eq(got.rc, -1);
    cr_assert(strstr(got.err, "without an end record"), "%s", got.err);
    cr_assert_gt(got.n, 5000);
    free_list(&got);
    free(b);
    /* Ignored SIGINT stays ignored: the helper is still running after it,
     * and SIGKILL ends it. */
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl(SGC_SIG_HELPER_BIN, SGC_SIG_HELPER_BIN, spath, "ignore", "100", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char c;
    cr_assert_eq(read(fds[0], &c, 1), 1);
    close(fds[0]);
    kill(pid, SIGINT);
    usleep(100000);
    cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "an ignored SIGINT ended the program");
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    unlink(spath);
}

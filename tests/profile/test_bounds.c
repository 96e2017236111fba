/* test_bounds.c - the profile reader bounds its input before it holds it
 * (runtime/sgc_profread.h): the header is checked before the rest of the
 * file is read, a file larger than the reader's limit is refused by its
 * size, and an input without a size (a pipe, a device) is read only up to
 * the limit.
 *
 * Every open runs in a child with its address space limited to 256 MiB and
 * an alarm: a reader that took its input whole first would run out of
 * memory or time there (exit 1 or a signal), not harm the machine. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "sgc_profile.h"
#include "sgc_profread.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A valid version 2 file header (docs/PROFILE.md). */
static void header(uint8_t h[SGC_PROF_HEADER_BYTES]) {
    memset(h, 0, SGC_PROF_HEADER_BYTES);
    memcpy(h, SGC_PROF_MAGIC, 8);
    put_le(h + 8, SGC_PROF_VERSION, 4);
    put_le(h + 16, 123456789, 8);
    uint8_t c[20];
    memcpy(c, h, 12);
    memcpy(c + 12, h + 16, 8);
    put_le(h + 12, (uint32_t)crc32(crc32(0L, Z_NULL, 0), c, sizeof c), 4);
}

/* Opens path with sgc_pr_open in a limited child (max: the reader's limit,
 * 0 = its default); returns the child's exit status (0: open succeeded, 1:
 * refused, anything else: it died) and the reader's message. */
static int open_in_child(const char *path, uint64_t max, char *err, size_t errlen) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
#ifndef UNDER_ASAN
        struct rlimit rl = {(rlim_t)256 << 20, (rlim_t)256 << 20};
        setrlimit(RLIMIT_AS, &rl);
#endif
        alarm(30);
        if (max)
            sgc_pr_max_bytes = max;
        sgc_pr_reader r;
        int rc = sgc_pr_open(&r, path);
        if (write(fds[1], r.err, strlen(r.err)) < 0)
            _exit(3);
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < errlen && (k = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)k;
    err[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* An endless input that is not a profile: refused by its first bytes. */
Test(reader_bounds, header_checked_before_the_rest_is_read) {
    char err[512];
    int rc = open_in_child("/dev/zero", 0, err, sizeof err);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
    cr_assert_str_eq(err, "at byte offset 0: not a freecheck profile (bad magic)");
    /* Likewise a huge regular file of anything else: nothing beyond its
     * header is read (a sparse file: no disk used). */
    char path[] = "/tmp/sgc-test-bounds-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "not a profile, just text\n", 25), 25);
    cr_assert_eq(ftruncate(fd, (off_t)1 << 33), 0);
    close(fd);
    rc = open_in_child(path, 0, err, sizeof err);
    unlink(path);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
    cr_assert_str_eq(err, "at byte offset 0: not a freecheck profile (bad magic)");
}

/* A profile larger than the limit (4 GiB by default) is refused by its size,
 * before any of it is held. */
Test(reader_bounds, file_larger_than_the_limit_refused_by_its_size) {
    char path[] = "/tmp/sgc-test-bounds-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    uint8_t h[SGC_PROF_HEADER_BYTES];
    header(h);
    cr_assert_eq(write(fd, h, sizeof h), (ssize_t)sizeof h);
    cr_assert_eq(ftruncate(fd, ((off_t)4 << 30) + 1), 0);
    close(fd);
    char err[512];
    int rc = open_in_child(path, 0, err, sizeof err);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
    cr_assert_str_eq(err, "at byte offset 0: the file is 4294967297 bytes, more than this reader holds (4294967296 "
                          "bytes); it is not a profile of one run");
    /* At the limit exactly it is read (here with a lower limit). */
    cr_assert_eq(truncate(path, 1 << 20), 0);
    rc = open_in_child(path, 1 << 20, err, sizeof err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    cr_assert_eq(truncate(path, (1 << 20) + 1), 0);
    rc = open_in_child(path, 1 << 20, err, sizeof err);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
    cr_assert_str_eq(err, "at byte offset 0: the file is 1048577 bytes, more than this reader holds (1048576 bytes); "
                          "it is not a profile of one run");
    unlink(path);
}

/* An input without a size (a pipe): read up to the limit, refused beyond. */
Test(reader_bounds, pipe_read_only_up_to_the_limit) {
    for (int over = 0; over <= 1; over++) {
        int p[2];
        cr_assert_eq(pipe(p), 0);
        pid_t w = fork();
        cr_assert_geq(w, 0);
        if (w == 0) {
            close(p[0]);
            signal(SIGPIPE, SIG_DFL);
            uint8_t h[SGC_PROF_HEADER_BYTES], zero[4096] = {0};
            header(h);
            if (write(p[1], h, sizeof h) != (ssize_t)sizeof h)
                _exit(1);
            size_t left = (1 << 20) - sizeof h + (size_t)over;
            while (left) {
                size_t k = left < sizeof zero ? left : sizeof zero;
                if (write(p[1], zero, k) != (ssize_t)k)
                    _exit(over ? 0 : 1);
                left -= k;
            }
            _exit(0);
        }
        close(p[1]);
        char path[64], err[512];
        snprintf(path, sizeof path, "/dev/fd/%d", p[0]);
        int rc = open_in_child(path, 1 << 20, err, sizeof err);
        close(p[0]);
        waitpid(w, NULL, 0);
        if (over) {
            cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
            cr_assert_str_eq(err, "at byte offset 1048576: the input goes on beyond the 1048576 bytes this reader "
                                  "holds; it is not a profile of one run");
        } else {
            cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
        }
    }
}

/* sgcprof_io.c - bounded inputs, outputs that never replace what they must
 * not (invariants: sgcprof_io.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../contracts/ct_alloc.h"
#include "../../contracts/ct_out.h"
#include "sgcprof_io.h"

/* Reads up to n bytes (fewer only at the end of the file).  Bytes read, or -1. */
static ssize_t read_full(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

int sgcprof_open_input(sgc_pr_reader *r, const char *path) {
    memset(r, 0, sizeof *r);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(r->err, sizeof r->err, "cannot open %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(r->err, sizeof r->err, "%s is a directory, not a profile", path);
        close(fd);
        return -1;
    }
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > SGCPROF_MAX_INPUT) {
        snprintf(r->err, sizeof r->err,
                 "%s is %llu bytes, more than the %llu GiB sgcprof reads (it holds a profile in memory whole)", path,
                 (unsigned long long)st.st_size, SGCPROF_MAX_INPUT >> 30);
        close(fd);
        return -1;
    }
    uint8_t magic[8];
    ssize_t n = read_full(fd, magic, sizeof magic);
    if (n < 0) {
        snprintf(r->err, sizeof r->err, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (n == (ssize_t)sizeof magic && memcmp(magic, SGC_PROF_MAGIC, sizeof magic) != 0) {
        /* The reader's own words for this (sgc_profread.c). */
        snprintf(r->err, sizeof r->err, "at byte offset 0: not a freecheck profile (bad magic)%s%s",
                 S_ISREG(st.st_mode) ? "" : ": ", S_ISREG(st.st_mode) ? "" : ct_out_kind(st.st_mode));
        close(fd);
        return -1;
    }
    if (S_ISREG(st.st_mode)) {
        close(fd);
        return sgc_pr_open(r, path);
    }
    /* A pipe (or a device that starts like a profile): read to its end, bounded. */
    size_t cap = 1 << 20, len = (size_t)n;
    uint8_t *buf = ct_xmalloc(cap);
    memcpy(buf, magic, len);
    for (;;) {
        if (len == cap) {
            if (cap >= SGCPROF_MAX_INPUT) {
                snprintf(r->err, sizeof r->err, "%s: more than the %llu GiB sgcprof reads", path,
                         SGCPROF_MAX_INPUT >> 30);
                free(buf);
                close(fd);
                return -1;
            }
            cap = cap * 2 > SGCPROF_MAX_INPUT ? (size_t)SGCPROF_MAX_INPUT : cap * 2;
            buf = ct_xrealloc(buf, cap + 1);
        }
        ssize_t k = read_full(fd, buf + len, cap - len);
        if (k < 0) {
            snprintf(r->err, sizeof r->err, "cannot read %s: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (k == 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    int rc = sgc_pr_open_mem(r, buf, len);
    free(buf);
    return rc;
}

/* realpath of path's directory + "/" + its last component, malloc'd, or NULL
 * when the directory cannot be resolved. */
static char *canon(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t dn = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 1;
    char *dir = ct_xmalloc(dn + 1);
    memcpy(dir, slash ? path : ".", dn);
    dir[dn] = '\0';
    const char *name = slash ? slash + 1 : path;
    char real[PATH_MAX];
    char *out = NULL;
    if (realpath(dir, real)) {
        size_t n = strlen(real) + strlen(name) + 2;
        out = ct_xmalloc(n);
        snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", name);
    }
    free(dir);
    return out;
}

int sgcprof_check_output(const char *path, const char *const *inputs, size_t ninputs, char *err, size_t errlen) {
    int rc = ct_out_check(path, err, errlen);
    if (rc)
        return rc;
    struct stat st;
    int exists = lstat(path, &st) == 0;
    char *c = canon(path);
    for (size_t i = 0; i < ninputs && !rc; i++) {
        struct stat in;
        int same = exists && stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino;
        char *ci = c ? canon(inputs[i]) : NULL;
        same |= ci && !strcmp(ci, c);
        free(ci);
        if (same) {
            snprintf(err, errlen, "%s is the profile being read (%s): the output would replace it (give another -o)",
                     path, inputs[i]);
            rc = 2;
        }
    }
    free(c);
    return rc;
}
